#!/usr/bin/env bats
# jh-hook's fused path (fast=1, the default): the stages of a tool call
# as library calls in one worker process.  It must give the host the very
# answer, exit status and diagnostics the five-process pipeline (fast=0)
# gives, and leave the very same log, sidecar, index and ledger, on
# every payload of every host we carry and on the agent corpus; a worker
# that dies, is stopped or hangs at any stage is the host's deny (or its stop after
# a tool ran), as a stage of the pipeline is.  And the PostToolUse hook
# finds the call's decision through the index, never by reading the log.

load test_helper/common

setup() {
	_common_setup
	P="$T/proj"
	mkdir -p "$P"
	git -C "$P" init -q -b main
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	H="$JH_HOME/bin"
	# Runs compare only with the clock and the nonces fixed (test build).
	printf 'now=1764871200000\nnonce=0102030405060708\n' >>"$JH_HOME/hook.conf"
}

payload() {	# EVENT TOOL INPUT-JSON [ID] [SESSION]
	jq -nc --arg cwd "$P" --arg ev "$1" --arg tool "$2" --argjson in "$3" \
	    --arg id "${4:-toolu_1}" --arg s "${5:-s1}" \
	    '{session_id: $s, transcript_path: "/dev/null", cwd: $cwd,
	      hook_event_name: $ev, tool_name: $tool, tool_input: $in,
	      tool_use_id: $id}'
}

# twin: two copies of the state, each with its own config, fast=0 and
# fast=1; hook MODE HOST FILE runs one payload in one of them and keeps
# what the host would see (stdout, stderr, exit status).
twin() {
	local m
	for m in 0 1; do
		cp -a "$JH_STATE" "$T/state$m"
		sed "s|^state=.*|state=$T/state$m|" "$JH_HOME/hook.conf" >"$T/hook$m.conf"
		echo "fast=$m" >>"$T/hook$m.conf"
		chmod 600 "$T/hook$m.conf"
	done
}

hook() {
	local st=0
	"$H/jh-hook" -c "$T/hook$1.conf" -H "$2" <"$3" >"$T/out$1" 2>"$T/err$1" || st=$?
	echo "$st" >>"$T/out$1"
}

# same FILE HOST: both paths answer it alike and leave the same state.
# Each call gets a nonce of its own (the same in both runs), so that two
# calls with the same input are not sealed into the same bytes.
NONCE=0
same() {
	local m
	NONCE=$((NONCE + 1))
	for m in 0 1; do
		sed -i "s/^nonce=.*/nonce=$(printf %016x "$NONCE")/" "$T/hook$m.conf"
	done
	hook 0 "$2" "$1"
	hook 1 "$2" "$1"
	if ! cmp -s "$T/out0" "$T/out1" || ! cmp -s "$T/err0" "$T/err1"; then
		echo "differs on $1 (-H $2):"
		diff "$T/out0" "$T/out1" || true
		diff "$T/err0" "$T/err1" || true
		return 1
	fi
	# verified/ holds the tags of the grant signatures the fused path
	# checked (joulehook-formats(5), Verified grants): its cache alone
	if ! diff -r -x verified "$T/state0" "$T/state1" >/dev/null; then
		echo "state differs after $1 (-H $2):"
		diff -r -x verified "$T/state0" "$T/state1" || true
		return 1
	fi
}

@test "fused: every captured or documented payload of every host is answered and sealed as the pipeline does" {
	twin
	local d f n=0 host
	for d in "$PROJECT_ROOT"/tests/hosts/*/ "$PROJECT_ROOT"/tests/fixtures/claude-code/; do
		host=$(basename "$d")
		[ "$host" = fixtures ] && host=claude-code
		[ "$host" = claude-code ] || [ "$(basename "$(dirname "$d")")" = hosts ] || continue
		# decisions before results, so a result finds its decision
		for f in $(ls "$d"*.json | awk '/Pre|pre|before|Before/ { print; next } { late = late $0 "\n" } END { printf "%s", late }'); do
			# the documented project is this test's, so grants apply
			sed -e "s|/home/dev/project|$P|g" -e "s|/home/dev/proj\"|$P\"|g" "$f" >"$T/p.json"
			same "$T/p.json" "$host"
			n=$((n + 1))
		done
	done
	[ "$n" -ge 100 ]
	# the receipts are real: both logs verify, and are the same bytes
	for f in "$T"/state1/logs/*.jhl; do
		run jh-verify "$f"
		[ "$status" -eq 0 ] || { echo "$f: $output"; false; }
	done
	run -0 sh -c "ls '$T'/state1/logs/*.jhl | wc -l"
	[ "$output" -ge 5 ]
}

# Every third line in make check; JH_FUSED_ALL=1 takes them all.
@test "fused: the agent corpus's Bash lines, each decided then reported after, answer and seal alike" {
	twin
	local i=0 k=0 id cmd step=3
	[ -z "${JH_FUSED_ALL:-}" ] || step=1
	while IFS=$'\t' read -r id proj tool input cwd want; do
		case $id in '#'* | '') continue ;; esac
		[ "$tool" = Bash ] && [ "${input:0:1}" != "{" ] || continue
		k=$((k + 1))
		[ $((k % step)) -eq 0 ] || continue
		cmd=$(printf '%b' "${input//@R/$P}")
		payload PreToolUse Bash "$(jq -nc --arg c "$cmd" '{command: $c}')" "toolu_$i" >"$T/p.json"
		same "$T/p.json" claude-code
		jq -c '.hook_event_name = "PostToolUse" | .tool_response = {stdout: "", stderr: "", interrupted: false}' \
		    "$T/p.json" >"$T/q.json"
		same "$T/q.json" claude-code
		i=$((i + 1))
	done <"$PROJECT_ROOT/tests/fixtures/agent-corpus.tsv"
	[ "$i" -ge $((300 / step)) ]
	run -0 jh-verify -q "$T"/state1/logs/*.jhl
}

@test "fused: malformed payloads get the pipeline's deny, in the same words" {
	twin
	printf '{"session_id":"s1","hook_event_name":"PreToolUse"' >"$T/cut.json"
	printf '%s\n%s\n' "$(payload PreToolUse Bash '{"command":"ls"}')" \
	    "$(payload PreToolUse Bash '{"command":"ls"}' toolu_2)" >"$T/two.json"
	payload PreToolUse Bash '{"command":"ls"}' | sed 's/"ls"/"ls \\ud83d"/' >"$T/surrogate.json"
	printf '%s' "$(payload PreToolUse Bash '{"command":"ls"}')" | sed 's/"cwd"/"cwd":"\/","cwd"/' >"$T/dup.json"
	payload PreToolUse Bash '"ls"' >"$T/notobj.json"
	local f
	for f in cut two surrogate dup notobj; do
		same "$T/$f.json" claude-code
	done
	# two payloads in one are no payload: the driver denies it unread
	hook 1 claude-code "$T/two.json"
	run -0 tail -n1 "$T/out1"
	assert_output 2
	run -0 grep -c 'the payload is not JSON' "$T/err1"
}

# The deadline counts from the hook's start: a payload that takes long to
# arrive (or to parse: megabytes of it on a loaded machine) is the host's
# deny at the deadline, before the host's own timeout lets the call run.
@test "a payload still arriving at the deadline is a deny then, with the reason" {
	sed -i 's/^deadline_ms=.*//; s/^lock_ms=.*//' "$JH_HOME/hook.conf"
	printf 'deadline_ms=1000\nlock_ms=500\n' >>"$JH_HOME/hook.conf"
	payload PreToolUse Bash '{"command":"ls"}' toolu_slow >"$T/p.json"
	run -2 --separate-stderr bash -c '{ head -c 40 "$1"; sleep 4; tail -c +41 "$1"; } |
	    "$2" -c "$3"' _ "$T/p.json" "$H/jh-hook" "$JH_HOME/hook.conf"
	run -0 jq -r .hookSpecificOutput.permissionDecision <<<"$output"
	assert_output deny
	[[ "$stderr" == *"did not answer within 1000 ms (reading the call)"* ]] || { echo "$stderr"; false; }
	# nothing was decided or chained for it, and the gate goes on
	payload PreToolUse Bash '{"command":"ls"}' toolu_next >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
}

@test "fused: a worker killed, crashed, aborted or hung at any stage is the host's deny, and the log still verifies" {
	local stage sig
	sed -i 's/^deadline_ms=.*//' "$JH_HOME/hook.conf"
	echo "deadline_ms=1500" >>"$JH_HOME/hook.conf"
	echo "lock_ms=500" >>"$JH_HOME/hook.conf"
	for stage in 0 1 2 3 4; do
		for sig in 9 11 6 0; do
			cp "$JH_HOME/hook.conf" "$T/f.conf"
			echo "fault=$stage:$sig" >>"$T/f.conf"
			chmod 600 "$T/f.conf"
			payload PreToolUse Bash '{"command":"ls"}' "toolu_$stage$sig" >"$T/p.json"
			run --separate-stderr "$H/jh-hook" -c "$T/f.conf" <"$T/p.json"
			[ "$status" -eq 2 ] || { echo "stage $stage sig $sig: exit $status: $output"; false; }
			run -0 jq -r .hookSpecificOutput.permissionDecision <<<"$output"
			assert_output deny
		done
	done
	# a hang is cut at the deadline, and said so
	cp "$JH_HOME/hook.conf" "$T/f.conf"
	echo "fault=1:0" >>"$T/f.conf"
	run -2 "$H/jh-hook" -c "$T/f.conf" <"$T/p.json"
	[[ "$output" == *"did not answer within 1500 ms"* ]]
	# so is a worker stopped (SIGSTOP) between two stages
	cp "$JH_HOME/hook.conf" "$T/f.conf"
	echo "fault=1:19" >>"$T/f.conf"
	payload PreToolUse Bash '{"command":"ls"}' toolu_stopped >"$T/p.json"
	run -2 "$H/jh-hook" -c "$T/f.conf" <"$T/p.json"
	[[ "$output" == *"did not answer within 1500 ms"* ]]
	# what was chained before a death is whole: the log verifies
	run -0 jh-verify -q "$JH_STATE"/logs/*.jhl
	# and the gate goes on answering
	payload PreToolUse Bash '{"command":"ls"}' toolu_after >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
}

@test "verified grants: a tag stands only for the bytes the steward key tagged; a forged, copied or linked one never passes a grant that does not verify" {
	local g h tag
	g="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64)"
	[ -f "$g" ]
	payload PreToolUse Bash '{"command":"ls"}' toolu_v1 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	# the check of the grant's signature was tagged: 32 bytes, the
	# user's alone, named by the SHA-256 of the grant's bytes
	h=$(sha256sum <"$g" | cut -c1-64)
	tag="$JH_STATE/verified/$h"
	[ "$(stat -c %s:%a "$tag")" = 32:600 ]
	[ "$(stat -c %a "$JH_STATE/verified")" = 700 ]
	# the next call, with the tag, decides as the first
	payload PreToolUse Bash '{"command":"ls"}' toolu_v2 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	# the grant's signature broken (its last byte), and a tag put for
	# the new bytes: copied from the good one, made up, or a link to the
	# good one; each is checked again, and the call denied
	cp "$g" "$T/good"
	{ head -c -1 "$T/good"; tail -c 1 "$T/good" | tr '\000-\377' '\001-\377\000'; } >"$g"
	h=$(sha256sum <"$g" | cut -c1-64)
	for how in copy random link; do
		rm -f "$JH_STATE/verified/$h"
		case $how in
		copy) cp "$tag" "$JH_STATE/verified/$h" ;;
		random) head -c 32 /dev/urandom >"$JH_STATE/verified/$h" ;;
		link) ln -s "$tag" "$JH_STATE/verified/$h" ;;
		esac
		payload PreToolUse Bash '{"command":"ls"}' "toolu_v$how" >"$T/p.json"
		run -2 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
		[[ "$output" == *"does not verify"* ]] || { echo "$how: $output"; false; }
	done
	# a tag made with another steward key is no tag: the good grant,
	# under a new key, is checked again and tagged anew
	cp "$T/good" "$g"
	cp "$tag" "$T/oldtag"
	mv "$JH_HOME/steward.key" "$T/old.key"
	mv "$JH_HOME/steward.key.pub" "$T/old.key.pub"
	run -0 jh-seal -G -k "$JH_HOME/steward.key"
	cat "$JH_HOME/steward.key.pub" >>"$JH_HOME/stewards"
	payload PreToolUse Bash '{"command":"ls"}' toolu_v3 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	! cmp -s "$tag" "$T/oldtag"
	# the directory a link elsewhere: nothing is read or written there
	rm -rf "$JH_STATE/verified"
	mkdir "$T/vt"
	ln -s "$T/vt" "$JH_STATE/verified"
	payload PreToolUse Bash '{"command":"ls"}' toolu_v4 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	[ -z "$(ls -A "$T/vt")" ]
}

@test "a stack limit the host passes on, lowered or raised: a deny exits 2, never a crash after the answer" {
	command -v prlimit >/dev/null || skip "no prlimit"
	payload PreToolUse Bash '{"command":"rm -rf /opt/app"}' toolu_stk >"$T/p.json"
	# soft limit lowered, the hard one not: raised again, decided as ever
	run --separate-stderr prlimit --stack=65536:unlimited "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	[ "$status" -eq 2 ] || { echo "exit $status: $output $stderr"; false; }
	run -0 jq -r .hookSpecificOutput.permissionDecision <<<"$output"
	assert_output deny
	# both lowered: too small to decide, said so, and still exit 2
	for lim in 32768 65536 262144; do
		run --separate-stderr prlimit --stack=$lim "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
		[ "$status" -eq 2 ] || { echo "$lim: exit $status: $output"; false; }
		[[ $stderr == *"stack limit"* ]]
	done
	payload PreToolUse Bash '{"command":"ls"}' toolu_stk2 >"$T/p.json"
	run --separate-stderr prlimit --stack=65536:unlimited "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	[ "$status" -eq 0 ] || { echo "exit $status: $output $stderr"; false; }
}

@test "a reply stage that blocks with no answer the host can read is the host's own deny, for every host" {
	# The test build's stage4= puts a stand-in for the reply stage that
	# exits with the blocking status and prints nothing, as jh-normalize
	# does when it runs out of memory.  Cline and Antigravity read no
	# exit status: an empty answer there would let the tool run.
	printf '#!/bin/sh\ncat >/dev/null\necho "jh-normalize: out of memory" >&2\nexit 2\n' >"$T/mute.sh"
	chmod 755 "$T/mute.sh"
	cp "$JH_HOME/hook.conf" "$T/m.conf"
	echo "stage4=$T/mute.sh" >>"$T/m.conf"
	chmod 600 "$T/m.conf"
	local d f host n=0
	for d in "$PROJECT_ROOT"/tests/hosts/*/; do
		host=$(basename "$d")
		for f in "$d"*.json; do
			[ "$(jq -r .event "${f%.json}.event")" = PreToolUse ] || continue
			sed -e "s|/home/dev/project|$P|g" "$f" >"$T/p.json"
			run --separate-stderr "$H/jh-hook" -c "$T/m.conf" -H "$host" <"$T/p.json"
			if [ "$host" = windsurf ]; then
				# its deny is exit 2 and nothing on stdout
				[ "$status" -eq 2 ] && [ -z "$output" ] ||
				    { echo "$f: exit $status: $output"; false; }
			else
				[ -n "$output" ] || { echo "$f: an empty answer (exit $status)"; false; }
				run -0 jq -e 'tostring | test("allow") | not' <<<"$output"
			fi
			# (a payload refused before the stages is denied as ever)
			[[ $stderr == *"without an answer $host can read"* ]] &&
			    n=$((n + 1))
		done
	done
	[ "$n" -ge 20 ]
	# Cline's and Antigravity's own words for a deny
	sed -e "s|/home/dev/project|$P|g" "$PROJECT_ROOT"/tests/hosts/cline/PreToolUse-tool_call-read_files.json >"$T/p.json"
	run --separate-stderr "$H/jh-hook" -c "$T/m.conf" -H cline <"$T/p.json"
	assert_equal "$(jq -r .cancel <<<"$output")" true
	f=$(ls "$PROJECT_ROOT"/tests/hosts/antigravity/PreToolUse-*.json | head -n 1)
	sed -e "s|/home/dev/project|$P|g" "$f" >"$T/p.json"
	run --separate-stderr "$H/jh-hook" -c "$T/m.conf" -H antigravity <"$T/p.json"
	assert_equal "$(jq -r .decision <<<"$output")" deny
}

@test "fused: a worker that dies after a tool ran stops the run" {
	payload PreToolUse Bash '{"command":"ls"}' >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	jq -c '.hook_event_name = "PostToolUse" | .tool_response = {stdout: "", stderr: "", interrupted: false}' \
	    "$T/p.json" >"$T/q.json"
	cp "$JH_HOME/hook.conf" "$T/f.conf"
	echo "fault=1:9" >>"$T/f.conf"
	run -0 --separate-stderr "$H/jh-hook" -c "$T/f.conf" <"$T/q.json"
	run -0 jq -r .continue <<<"$output"
	assert_output false
	# untouched, it is a match: nothing to answer
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/q.json"
	assert_output ""
}

# The log of session s1, and its index.
logof() { echo "$JH_STATE/logs/$(printf %s "${1:-s1}" | sha256sum | cut -c1-64).jhl"; }

@test "index: the PostToolUse hook reads only the decision the index names, not the log before it" {
	local i
	for i in 1 2 3 4 5; do
		payload PreToolUse Bash '{"command":"ls"}' "toolu_$i" >"$T/p$i.json"
		run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p$i.json"
	done
	[ -s "$(logof).idx" ]
	# Damage the first entry: a reader of the log stops there, so only a
	# lookup that goes straight to the fifth decision can find it.
	cp "$(logof)" "$T/log.bak"
	printf '\377' | dd of="$(logof)" bs=1 seek=1 conv=notrunc status=none
	jq -c '.hook_event_name = "PostToolUse" | .tool_response = {stdout: "", stderr: "", interrupted: false}' \
	    "$T/p5.json" >"$T/q5.json"
	jq -nc --arg s s1 '{session_id: $s, tool_use_id: "toolu_5", host: "claude-code", event: "PostToolUse", tool: "Bash", class: "shell", cwd: "/", input: {command: "ls"}, response: {stdout: ""}}' >"$T/ev.json"
	run -0 jh-result "$T/ev.json"
	run -0 jq -r .check <<<"$output"
	assert_output match
	# with the index gone, the log is read, and its damage stops the search
	rm "$(logof).idx"
	run -0 jh-result "$T/ev.json"
	run -0 jq -r .check <<<"$output"
	assert_output no-receipt
	cp "$T/log.bak" "$(logof)"
}

@test "index: a damaged, stale or misfiled index never gives the wrong decision" {
	local i
	for i in 1 2 3; do
		payload PreToolUse Bash '{"command":"ls"}' "toolu_$i" >"$T/p.json"
		run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	done
	# toolu_2 again, now denied: the last decision is the one that counts
	payload PreToolUse Bash '{"command":"sudo ls"}' toolu_2 >"$T/p.json"
	run -2 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	ev() { jq -nc --arg id "$1" --arg c "$2" '{session_id: "s1", tool_use_id: $id, host: "claude-code", event: "PostToolUse", tool: "Bash", class: "shell", cwd: "/", input: {command: $c}, response: {stdout: ""}}'; }
	ev toolu_2 "sudo ls" >"$T/ev2.json"
	ev toolu_1 ls >"$T/ev1.json"
	check() { run -0 jh-result "$T/ev$1.json"; run -0 jq -r '[.check, .decided] | join(" ")' <<<"$output"; assert_output "$2"; }
	check 2 "not-allowed deny"
	check 1 "match allow"
	# random bytes over the whole index
	head -c "$(stat -c %s "$(logof).idx")" /dev/urandom >"$(logof).idx"
	check 2 "not-allowed deny"
	check 1 "match allow"
	# a slot forged for toolu_2 (its tag, a right CRC) that names
	# toolu_1's decision: the entry's own tool_use_id still decides
	payload PreToolUse Bash '{"command":"ls"}' toolu_5 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	python3 - "$(logof).idx" <<'PY'
import hashlib, struct, sys, zlib
path = sys.argv[1]
def slot(key):
    h = hashlib.sha256(b"joulehook/idx\0call\0" + key).digest()
    return h[:16], struct.unpack("<I", h[:4])[0] % 4096
b = bytearray(open(path, "rb").read())
t1, s1 = slot(b"toolu_1")
t2, s2 = slot(b"toolu_2")
off, ln = struct.unpack_from("<QI", b, 32 * s1 + 16)
rec = t2 + struct.pack("<QI", off, ln)
rec += struct.pack("<I", zlib.crc32(rec))
b[32 * s2:32 * s2 + 32] = rec
open(path, "wb").write(b)
PY
	check 2 "not-allowed deny"
	check 1 "match allow"
	# an index emptied behind the sidecar's back: the log is read
	: >"$(logof).idx"
	check 2 "not-allowed deny"
	check 1 "match allow"
	# the next append finds the index short and rebuilds it
	payload PreToolUse Bash '{"command":"ls"}' toolu_4 >"$T/p.json"
	run -0 "$H/jh-hook" -c "$JH_HOME/hook.conf" <"$T/p.json"
	[ "$(stat -c %s "$(logof).idx")" -gt 0 ]
	check 2 "not-allowed deny"
	check 1 "match allow"
}

@test "config: a line it cannot take is the host's deny, naming the file and the line, and nothing is decided" {
	payload PreToolUse Bash '{"command":"ls"}' >"$T/p.json"
	local bad k=0 n
	for bad in 'no equals sign' 'colour=blue' 'deadline_ms=5' 'bindir=relative/path' \
	    "protect=/$(printf 'x%.0s' $(seq 5000))" 'deadline_ms=8000xyz' \
	    'deadline_ms=4294967396' 'lock_ms=abc' 'lock_ms=-1' 'deadline_ms= 8000'; do
		k=$((k + 1))
		cp "$JH_HOME/hook.conf" "$T/c$k.conf"
		printf '%s\n' "$bad" >>"$T/c$k.conf"
		chmod 600 "$T/c$k.conf"
		n=$(wc -l <"$T/c$k.conf")
		run -2 --separate-stderr "$H/jh-hook" -c "$T/c$k.conf" <"$T/p.json"
		run -0 jq -r .hookSpecificOutput.permissionDecision <<<"$output"
		assert_output deny
		[[ "$stderr" == *"$T/c$k.conf:$n: bad line"* ]] || { echo "$bad: want line $n of $T/c$k.conf: $stderr"; false; }
	done
	# a NUL inside a line is a bad line too, not the line cut short
	cp "$JH_HOME/hook.conf" "$T/nul.conf"
	printf 'fast=1\000junk\n' >>"$T/nul.conf"
	chmod 600 "$T/nul.conf"
	run -2 --separate-stderr "$H/jh-hook" -c "$T/nul.conf" <"$T/p.json"
	[[ "$stderr" == *"bad line"* ]]
	# a last line without its newline is read; comments and blank lines are skipped
	cp "$JH_HOME/hook.conf" "$T/ok.conf"
	printf '# a comment\n\nfast=1' >>"$T/ok.conf"
	chmod 600 "$T/ok.conf"
	run -0 "$H/jh-hook" -c "$T/ok.conf" <"$T/p.json"
	# nothing was decided on a bad config: one decision, the good run's
	run -0 sh -c "jh-verify '$JH_STATE'/logs/*.jhl | jq -r 'select(.kind == \"decision/1\") | .core.verdict'"
	assert_output allow
}
