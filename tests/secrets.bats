#!/usr/bin/env bats
# No secret leaves where it is kept: the steward's and the issuer's
# secret keys, the proxy's token and the provider's API key never reach a
# log, a receipt, a ledger, a sidecar, a config file written by the
# installer, the standard output or the standard error of any program,
# on the paths that work and on those that fail (joulehook(7) "Key
# roles"; jh-proxy(1) "Callers").  Every form a leak could take is looked
# for: hex either case, base64 and base64url of the seed, its raw bytes
# in the binary logs.

load test_helper/common
load helpers/claude

setup() {
	_common_setup
	P="$T/proj"
	mkdir -p "$P" "$T/out"
	git -C "$P" init -q -b main
	PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	echo '[{"text":"hello there"}]' >"$T/script.json"
	mock_start "$T/script.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -M "$MOCK_URL" -l "127.0.0.1:$PORT"
	echo "$output" >"$T/out/install"
	APIKEY="sk-ant-api03-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')-secret"
}

teardown() {
	[ -z "${PX:-}" ] || kill "$PX" 2>/dev/null || true
	[ -z "${PX2:-}" ] || kill "$PX2" 2>/dev/null || true
	mock_stop
}

# the forms of each secret, one per line
forms() {
	local f hex
	for f in "$JH_HOME/steward.key" "$JH_HOME/issuer.key"; do
		hex=$(sed -n 's/^secret: //p' "$f")
		[ ${#hex} = 64 ] || { echo "no secret in $f" >&2; return 1; }
		echo "$hex"
		tr a-f A-F <<<"$hex"
		xxd -r -p <<<"$hex" | base64 -w0 | tr -d '='
		echo
		xxd -r -p <<<"$hex" | base64 -w0 | tr '+/' '-_' | tr -d '='
		echo
	done
	cat "$JH_HOME/proxy.token"
	echo
	echo "$APIKEY"
}

hook() {
	"$JH_HOME/bin/jh-hook" -c "$JH_HOME/hook.conf" -H claude-code
}

payload() {
	jq -nc --arg c "$1" --arg d "$P" --arg i "toolu_$RANDOM$RANDOM" \
	    '{session_id: "sec-1", transcript_path: "/dev/null", cwd: $d,
	      hook_event_name: "PreToolUse", tool_name: "Bash",
	      tool_input: {command: $c}, tool_use_id: $i}'
}

@test "no secret key, token or API key in any output, record or file the suite's programs write, working or failing" {
	local n=0 s f hits
	# the gate: an allow, a deny, a protected read of the key itself, and
	# a payload that is not JSON
	payload 'ls' | hook >"$T/out/h1" 2>&1 || true
	payload 'rm -rf /' | hook >"$T/out/h2" 2>&1 || true
	payload "cat $JH_HOME/steward.key" | hook >"$T/out/h3" 2>&1 || true
	echo '{not json' | hook >"$T/out/h4" 2>&1 || true
	# the meter: the installed command line, with the token and key
	cmd=$(sed -n 's/^ExecStart=//p' "$HOME/.config/systemd/user/joulehook-proxy.service")
	$cmd </dev/null >"$T/out/px.out" 2>"$T/out/px.err" 3>&- &
	PX=$!
	for n in $(seq 50); do grep -q 'listening on' "$T/out/px.err" && break; sleep 0.1; done
	tok=$(cat "$JH_HOME/proxy.token")
	body='{"model":"claude-opus-5-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}'
	for h in "X-Joulehook-Token: $tok" "X-Joulehook-Token: ${tok}x" "X-Joulehook-Token: "; do
		curl -sS "http://127.0.0.1:$PORT/v1/messages" -H "$h" -H "x-api-key: $APIKEY" \
		    -H "Authorization: Bearer $APIKEY" -H 'X-Claude-Code-Session-Id: sec-1' \
		    -H 'content-type: application/json' -d "$body" >>"$T/out/calls" 2>&1 || true
	done
	curl -sS "http://127.0.0.1:$PORT/v1/messages?key=$APIKEY" -H "X-Joulehook-Token: $tok" \
	    -H 'content-type: application/json' -d '{"model":"m","max_tokens":"x"}' >>"$T/out/calls" 2>&1 || true
	# an upstream that is down: the error path
	mock_stop
	curl -sS "http://127.0.0.1:$PORT/v1/messages" -H "X-Joulehook-Token: $tok" \
	    -H "x-api-key: $APIKEY" -H 'X-Claude-Code-Session-Id: sec-1' \
	    -H 'content-type: application/json' -d "$body" >>"$T/out/calls" 2>&1 || true
	kill -TERM "$PX"
	wait "$PX" || true
	PX=
	# the receipt surface and the audits
	jq -nc '{session_id: "sec-1"}' | "$JH_HOME/bin/jh-status" -c "$JH_HOME/hook.conf" >"$T/out/st1" 2>&1 || true
	(cd "$P" && jh-status -s) >"$T/out/st2" 2>&1 || true
	jh-status -P -a -j >"$T/out/st3" 2>&1 || true
	jh-verify -L "$JH_STATE/ledger" "$JH_STATE"/logs/*.jhl >"$T/out/v1" 2>&1 || true
	sh "$PROJECT_ROOT/scripts/jh-grant" -p "$P" show >"$T/out/g1" 2>&1 || true
	# a key others can read is refused, and the refusal names no secret
	chmod 640 "$JH_HOME/steward.key"
	decision_json | jh-seal -k "$JH_HOME/steward.key" >"$T/out/k1" 2>&1 || true
	payload 'ls' | hook >"$T/out/k2" 2>&1 || true
	chmod 600 "$JH_HOME/steward.key"
	grep -q 'readable by others\|not 0600\|mode' "$T/out/k1"
	# a key file given where data is read, line by line or as CBOR, and
	# one of the wrong role: an error quotes none of it
	for f in "$JH_HOME/steward.key" "$JH_HOME/issuer.key"; do
		n=$((n + 1))
		for c in "jh-verify" "jh-chain" "jh-normalize -H claude-code" \
		    "jh-decide" "jh-seal -k $JH_HOME/steward.key" "jh-result" \
		    "jh-meter otel" "jh-meter transcript -s x"; do
			$c "$f" >>"$T/out/asdata.$n" 2>&1 </dev/null || true
		done
		hook <"$f" >>"$T/out/asdata.$n" 2>&1 || true
	done
	jh-chain -k "$JH_HOME/issuer.key" </dev/null >"$T/out/role" 2>&1 || true
	grep -q 'is an issuer key' "$T/out/role"
	# what to search: every output, the state, what the installer wrote
	# (the keys and the token's own files aside; Claude Code's settings
	# carry the token by design, so they are searched for the keys only)
	mapfile -t files < <(find "$T/out" "$JH_STATE" "$JH_HOME" "$HOME" -type f \
	    ! -name '*.key' ! -name proxy.token ! -path "$HOME/.claude/settings.json" \
	    ! -path "$T/mock/*")
	[ "${#files[@]}" -gt 10 ]
	forms >"$T/forms"
	hits=0
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		if grep -aqlF -- "$s" "${files[@]}"; then
			echo "leaked: ${s:0:12}... in $(grep -alF -- "$s" "${files[@]}" | head -3)"
			hits=$((hits + 1))
		fi
	done <"$T/forms"
	# the raw seed bytes, in the binary logs and sidecars
	for f in "$JH_HOME/steward.key" "$JH_HOME/issuer.key"; do
		sed -n 's/^secret: //p' "$f" | xxd -r -p >"$T/seed"
		for g in "${files[@]}"; do
			/usr/bin/python3 -c 'import sys; sys.exit(open(sys.argv[1],"rb").read() in open(sys.argv[2],"rb").read())' \
			    "$T/seed" "$g" || { echo "raw seed of $f in $g"; hits=$((hits + 1)); }
		done
	done
	# the token and the key in the settings Claude Code reads: the token
	# only where it belongs, never the provider's key
	! grep -qF -- "$APIKEY" "$HOME/.claude/settings.json"
	[ "$hits" = 0 ]
	# and the searches looked where the calls left their traces
	grep -q 'refused a caller without the token' "$T/out/px.err"
	ls "$JH_STATE"/logs/*.jhl >/dev/null
}

@test "a program that holds a key cannot dump core: the proxy runs with a core limit of 0" {
	cmd=$(sed -n 's/^ExecStart=//p' "$HOME/.config/systemd/user/joulehook-proxy.service")
	$cmd </dev/null >"$T/px.out" 2>"$T/px.err" 3>&- &
	PX=$!
	for n in $(seq 50); do grep -q 'listening on' "$T/px.err" && break; sleep 0.1; done
	run -0 awk '/^Max core file size/ {print $5, $6}' "/proc/$PX/limits"
	assert_output '0 0'
}

# core_limit CMD...: the core file size limit of CMD while it runs, as
# /proc shows it. CMD waits on its standard input, a pipe kept open; the
# limit is read once its image is CMD's and it sleeps there (state S), so
# past its start-up: an exec'd image that has not reached main yet (a slow
# sanitizer start, say) still has the limit it inherited, and never sleeps.
core_limit() {
	local pid k lim= st
	mkfifo "$T/hold.$$"
	"$@" <"$T/hold.$$" >/dev/null 2>&1 3>&- &
	pid=$!
	exec 4>"$T/hold.$$"
	for ((k = 0; k < 200; k++)); do
		st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
		if [ "$st" = S ] &&
		    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$1")" ]; then
			lim=$(awk '/^Max core file size/ {print $5, $6}' "/proc/$pid/limits") && break
		fi
		sleep 0.05
	done
	exec 4>&-
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$T/hold.$$"
	echo "$lim"
}

@test "every program that holds a secret key runs with a core limit of 0: jh-seal, jh-chain, the hook, and jh-meter's receiver" {
	run -0 core_limit "$JH_BIN/jh-seal" -k "$JH_HOME/steward.key"
	assert_output '0 0'
	run -0 core_limit "$JH_BIN/jh-chain"
	assert_output '0 0'
	run -0 core_limit "$JH_HOME/bin/jh-hook" -c "$JH_HOME/hook.conf"
	assert_output '0 0'
	jh-meter otel -l 127.0.0.1:0 </dev/null >"$T/rx.out" 2>"$T/rx.err" 3>&- &
	local rx=$! k
	for ((k = 0; k < 100; k++)); do grep -q 'listening on' "$T/rx.err" && break; sleep 0.05; done
	run -0 awk '/^Max core file size/ {print $5, $6}' "/proc/$rx/limits"
	kill -TERM "$rx"
	wait "$rx" || true
	assert_output '0 0'
	# the metered command keeps its own
	run -0 jh-meter run -u u1 -- sh -c 'ulimit -c' 2>/dev/null
	assert_line --index 0 "$(ulimit -c)"
}

@test "a secret key file behind a symbolic link, a FIFO in its place, or one of another owner is refused by every program that loads one, naming why" {
	local k cmd
	cp -a "$JH_HOME/steward.key" "$T/steward.key.real"
	for k in symlink fifo owner; do
		rm -f "$JH_HOME/steward.key"
		case $k in
		symlink) ln -s "$T/steward.key.real" "$JH_HOME/steward.key" ;;
		fifo) mkfifo -m 600 "$JH_HOME/steward.key" ;;
		owner)
			[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || continue
			cp -a "$T/steward.key.real" "$JH_HOME/steward.key"
			chown nobody "$JH_HOME/steward.key" ;;
		esac
		for cmd in "jh-seal -k $JH_HOME/steward.key" "jh-chain" \
		    "jh-meter otel -l 127.0.0.1:0" "jh-proxy -u http://127.0.0.1:9 -l 127.0.0.1:0"; do
			run -2 --separate-stderr timeout 30 $cmd </dev/null
			case $k in
			symlink) [[ $stderr == *"symbolic link"* || $stderr == *"Too many levels"* ]] ;;
			fifo) [[ $stderr == *"not a regular file"* ]] ;;
			owner) [[ $stderr == *"not owned by the user"* ]] ;;
			esac || { echo "$cmd, a key $k: $status $stderr"; return 1; }
		done
		# and the hook, whose jh-chain cannot seal: a deny
		run -2 --separate-stderr "$JH_HOME/bin/jh-hook" -c "$JH_HOME/hook.conf" < <(payload ls)
		[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output")" = deny ]
	done
	rm -f "$JH_HOME/steward.key"
	cp -a "$T/steward.key.real" "$JH_HOME/steward.key"
}
