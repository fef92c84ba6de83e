# The live OTLP/HTTP receiver, jh-meter otel -l (jh-meter(1)), for the
# suites that feed it.
#
#   rx_start [OPTIONS...]   jh-meter otel -l 127.0.0.1:0 OPTIONS, on a free
#                           port: RX_PID, RX_PORT, RX_URL, RX_OUT (the units
#                           it sealed, as it prints them), RX_ERR
#   rx_stop [SIGNAL]        SIGTERM (or SIGNAL), waited for: RX_RC
#   rx_post PATH FILE [CONTENT-TYPE [CURL-ARGS...]]
#                           POST FILE to RX_URL/PATH: prints the status,
#                           the answer's body in $BATS_TEST_TMPDIR/answer
#   rx_kill                 for teardown: whatever is left, killed
#   rx_logs                 the session logs sealed into, one a line

rx_start() {
	local i
	RX_OUT="$BATS_TEST_TMPDIR/rx.${RX_N:=0}.out"
	RX_ERR="$BATS_TEST_TMPDIR/rx.$RX_N.err"
	RX_N=$((RX_N + 1))
	RX_PORT=
	: >"$RX_ERR"
	# fd 3 closed: bats waits for every holder of fd 3 before it finishes.
	jh-meter otel -l 127.0.0.1:0 "$@" >"$RX_OUT" 2>"$RX_ERR" 3>&- &
	RX_PID=$!
	for ((i = 0; i < 200; i++)); do
		RX_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$RX_ERR")
		[ -n "$RX_PORT" ] && break
		kill -0 "$RX_PID" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$RX_PORT" ]; then
		echo "the receiver did not start:" >&2
		cat "$RX_ERR" >&2
		rx_kill
		return 1
	fi
	RX_URL="http://127.0.0.1:$RX_PORT"
	export RX_PID RX_PORT RX_URL RX_OUT RX_ERR
}

rx_stop() {
	RX_RC=
	[ -n "${RX_PID:-}" ] || return 0
	kill "-${1:-TERM}" "$RX_PID" 2>/dev/null || true
	RX_RC=0
	wait "$RX_PID" || RX_RC=$?
	RX_PID=
	export RX_RC
}

rx_kill() {
	[ -n "${RX_PID:-}" ] || return 0
	kill -9 "$RX_PID" 2>/dev/null || true
	wait "$RX_PID" 2>/dev/null || true
	RX_PID=
}

rx_post() {
	local path="$1" file="$2" ct="${3:-application/json}"
	shift 3 2>/dev/null || shift $#
	curl -s -m 30 -o "$BATS_TEST_TMPDIR/answer" -w '%{http_code}' \
	    -H "Content-Type: $ct" --data-binary "@$file" "$@" "$RX_URL$path"
}

rx_logs() {
	find "$JH_STATE/logs" -name '*.jhl' 2>/dev/null | sort
}

# units_of LOG...: the efficiency/1 units sealed in the logs, verified,
# one JSON line each, without what sealing added (ts, nonce, steward,
# profile).
units_of() {
	jh-verify "$@" | jq -c 'select(.kind == "efficiency/1") | .core |
	    del(.ts, .nonce, .steward, .profile)'
}

# totals FILE: the units' sums as [in, out, cache_read, cache_write].
totals() {
	jq -sc '[(map(.tokens_in) | add), (map(.tokens_out) | add),
	    (map(.tokens_cache_read) | add), (map(.tokens_cache_write) | add)]' "$@"
}
