# jh-proxy in tests: a grant and its ledger, the proxy in front of a mock.
#
#   load test_helper/common
#   load helpers/claude            # mock_start (the Anthropic mock)
#   load helpers/proxy
#   setup()    { _common_setup; proxy_setup; }
#   teardown() { proxy_stop; mock_stop; openai_stop; }
#
#   grant_budget 20000000000000     # seal JH_HOME/grant, init its ledger
#   mock_start "$T/script.json"     # or openai_start "$T/oai.json"
#   proxy_start [ARGS...]           # PROXY_URL, PROXY_PID, PROXY_ERR
#   ph ...                          # curl with the token, -H args follow
#   receipts [SESSION]              # the session's efficiency cores, JSON lines
#   session_log SESSION             # the path of the session's log

# proxy_client ARGS...: tests/helpers/proxy-client.py
proxy_client() {
	/usr/bin/python3 "$PROJECT_ROOT/tests/helpers/proxy-client.py" "$@"
}

proxy_setup() {
	jh_keys
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$JH_HOME/proxy.token"
	TOKEN=$(cat "$JH_HOME/proxy.token")
	export TOKEN
}

# grant_budget UJ [EXTRA-JQ]: a grant for any audience with this budget
grant_budget() {
	jq -nc --argjson b "$1" '{audience: "joulehook:*", nbf: 0,
	    exp: 4102444800, budget_uj: $b, costs: {}, caps: [], policies: []}' |
	    jq -c "${2:-.}" >"$T/grant.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>"$T/init.err"
	GRANT_HEX=$(sed -n 's/.*grant sha256:\([0-9a-f]*\) .*/\1/p' "$T/init.err")
	export GRANT_HEX
}

# proxy_start [ARGS...]: jh-proxy -u $UPSTREAM (default $MOCK_URL) on a
# free port; waits for its "listening on" line
proxy_start() {
	local i up="${UPSTREAM:-$MOCK_URL}" listen=(-l 127.0.0.1:0)
	PROXY_ERR="$T/proxy.err"
	: >"$PROXY_ERR"
	case " $* " in *" -U "*) listen=() ;; esac
	# fd 3 closed: bats waits for every holder of fd 3
	jh-proxy -u "$up" "${listen[@]}" "$@" </dev/null >"$T/proxy.out" \
	    2>"$PROXY_ERR" 3>&- &
	PROXY_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$PROXY_ERR" && break
		kill -0 "$PROXY_PID" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q 'listening on' "$PROXY_ERR"; then
		echo "jh-proxy did not start:" >&2
		cat "$PROXY_ERR" >&2
		return 1
	fi
	PROXY_ADDR=$(sed -n 's/.*listening on \([^,]*\),.*/\1/p' "$PROXY_ERR" | head -n 1)
	PROXY_URL="http://$PROXY_ADDR"
	export PROXY_URL PROXY_PID PROXY_ERR
}

# proxy_stop: SIGTERM, then wait for a clean exit (status in PROXY_RC).
# Fails, showing the proxy's standard error, when it did not exit 0 or
# reported a sanitizer or valgrind error (make check-asan, check-valgrind).
proxy_stop() {
	[ -n "${PROXY_PID:-}" ] || return 0
	local i
	kill -TERM "$PROXY_PID" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		kill -0 "$PROXY_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$PROXY_PID" 2>/dev/null || true
	PROXY_RC=0
	wait "$PROXY_PID" 2>/dev/null || PROXY_RC=$?
	PROXY_PID=
	if [ "$PROXY_RC" -ne 0 ] ||
	    grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:|^==[0-9]+==' "$PROXY_ERR"; then
		echo "jh-proxy exited $PROXY_RC:" >&2
		tail -n 40 "$PROXY_ERR" >&2
		return 1
	fi
	return 0
}

# openai_start SCRIPT: the OpenAI mock (OPENAI_URL, OPENAI_LOG, OPENAI_PID)
openai_start() {
	local dir="$BATS_TEST_TMPDIR/oai" i
	mkdir -p "$dir"
	OPENAI_LOG="$dir/requests.jsonl"
	setsid /usr/bin/python3 "$PROJECT_ROOT/tests/mock/openai-mock.py" \
	    --port 0 --port-file "$dir/port" --pid-file "$dir/pid" \
	    --script "$1" --log "$OPENAI_LOG" </dev/null >"$dir/out" 2>&1 3>&- &
	OPENAI_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -s "$dir/port" ] && break
		sleep 0.05
	done
	OPENAI_URL="http://127.0.0.1:$(cat "$dir/port")"
	[ -s "$dir/pid" ] && OPENAI_PID=$(cat "$dir/pid")
	export OPENAI_URL OPENAI_LOG OPENAI_PID
}

openai_stop() {
	[ -n "${OPENAI_PID:-}" ] || return 0
	kill "$OPENAI_PID" 2>/dev/null || true
	wait "$OPENAI_PID" 2>/dev/null || true
	OPENAI_PID=
}

# ph PATH [curl args...]: POST through the proxy with the token
ph() {
	local path=$1
	shift
	curl -sS -H "X-Joulehook-Token: $TOKEN" -H 'content-type: application/json' \
	    "$@" "$PROXY_URL$path"
}

# session_log SESSION: the path of the session's log
session_log() {
	printf '%s/logs/%s.jhl\n' "$JH_STATE" "$(printf %s "$1" | sha256sum | cut -c1-64)"
}

# receipts [SESSION]: the efficiency/1 cores in the session's log, verified
receipts() {
	local s="${1:-s1}" f
	f=$(session_log "$s")
	[ -f "$f" ] || return 0
	jh-verify -s "$JH_HOME/stewards" "$f" |
	    jq -c 'select(.kind == "efficiency/1") | .core'
}

# ledger_json: spent and held of the grant's ledger, read as jh-proxy reads it
ledger_json() {
	local l="$JH_STATE/ledger/$GRANT_HEX"
	/usr/bin/python3 - "$l" <<-'EOF'
	import fcntl, struct, sys, json, zlib
	# as jh-proxy reads it: under the lock, a slot only where its CRC holds
	with open(sys.argv[1], "rb") as f:
	    fcntl.flock(f, fcntl.LOCK_SH)
	    d = f.read()
	best = None
	for i in range(2):
	    s = d[i * 8800:(i + 1) * 8800]
	    if len(s) < 8800 or s[:7] != b"JHLEDG1":
	        continue
	    if zlib.crc32(s[:8792]) != struct.unpack_from("<I", s, 8792)[0]:
	        continue
	    seq, = struct.unpack_from("<Q", s, 8)
	    if best is None or seq > best[0]:
	        best = (seq, s)
	s = best[1]
	budget, spent, held = struct.unpack_from("<QQQ", s, 48)
	nholds, = struct.unpack_from("<I", s, 72)
	print(json.dumps({"budget": budget, "spent": spent, "held": held,
	                  "nholds": nholds}))
	EOF
}

# messages_body [MAX_TOKENS] [STREAM]: an Anthropic request body
messages_body() {
	jq -nc --argjson m "${1:-1000}" --argjson s "${2:-false}" \
	    '{model: "claude-opus-5-5", max_tokens: $m, stream: $s,
	      messages: [{role: "user", content: "hello"}]}'
}
