#!/usr/bin/env bats
# What ran: jh-hook's post-tool and end-of-session pipelines (jh-normalize,
# jh-result, jh-seal -K result/1, jh-chain, jh-normalize -r -E), driven
# with Claude Code's payload shapes (tests/fixtures/claude-code) through
# the real hook driver, its config and the real programs.

load test_helper/common

setup() {
	_common_setup
	jh_keys
	R="$T/repo"
	mkdir -p "$R/src" "$T/sink"
	R=$(cd "$R" && pwd -P)
	printf 'alpha line\nsecond line\n' >"$R/src/a.txt"
	jq -nc --arg root "$R" '{
	audience: "joulehook:*", root: $root, nbf: 0, exp: 4102444800,
	budget_uj: 100000000, outcome: ["npm run test"],
	costs: {shell: 2000000, write: 200000, read: 50000, default: 100000},
	caps: [
	  {class: "shell", command: ["echo *", "npm run *"]},
	  {class: ["read", "search"], path: ["**"]},
	  {class: ["write", "edit"], path: ["src/**"]}
	],
	policies: [
	  {id: "deploy-asks", when: {class: "shell", command: ["npm run deploy*"]},
	   verdict: "ask", reason: "deploys need a human"},
	  {id: "quiet", when: {class: "shell"},
	   rewrite: {field: "command", regex: "^echo loud", with: "echo quiet"}}
	]}' >"$T/grant.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" \
	    >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>/dev/null
	CONF="$JH_HOME/hook.conf"
	write_conf
	SID="sess-$BATS_TEST_NUMBER"
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
}

# write_conf [EXTRA-LINE ...]: the driver's config, as jh-install writes it.
write_conf() {
	{
		echo "bindir=$JH_BIN"
		echo "home=$JH_HOME"
		echo "state=$JH_STATE"
		echo "sink=$T/sink/checkpoints"
		for l in "$@"; do echo "$l"; done
	} >"$CONF"
	chmod 600 "$CONF"
}

# payload EVENT TOOL INPUT-JSON ID [RESPONSE-JSON]: a Claude Code hook payload.
payload() {
	jq -nc --arg s "$SID" --arg ev "$1" --arg tool "$2" --argjson in "$3" \
	    --arg id "$4" --argjson resp "${5:-null}" --arg cwd "$R" '{
	    session_id: $s, transcript_path: "/nonexistent.jsonl", cwd: $cwd,
	    permission_mode: "default", hook_event_name: $ev, tool_name: $tool,
	    tool_input: $in, tool_use_id: $id}
	  + (if $resp == null then {} else {tool_response: $resp,
	     duration_ms: 12} end)'
}

# stop: a Stop payload of the session, as Claude Code sends it.
stop() {
	jq -nc --arg s "$SID" --arg cwd "$R" '{session_id: $s,
	    transcript_path: "/nonexistent.jsonl", cwd: $cwd,
	    hook_event_name: "Stop", stop_hook_active: false}'
}

# hook PAYLOAD: the driver, as Claude Code runs it; sets status and output.
hook() {
	run --separate-stderr jh-hook -c "$CONF" -H claude-code <<<"$1"
}

# read_resp PATH CONTENT: a whole-file Read result, in Claude Code's shape.
read_resp() {
	jq -nc --arg p "$1" --arg c "$2" '{type: "text", file: {filePath: $p,
	    content: $c, numLines: ($c | split("\n") | length),
	    startLine: 1, totalLines: ($c | split("\n") | length)}}'
}

# results: the log's result/1 cores, one JSON object per line.
results() {
	jh-verify "$LOG" | jq -c 'select(.chain) | .core
	    | select(.kind == "result/1")'
}

pre_post() {	# TOOL INPUT ID RESPONSE
	hook "$(payload PreToolUse "$1" "$2" "$3")"
	[ "$status" -eq 0 ]
	hook "$(payload PostToolUse "$1" "$2" "$3" "$4")"
}

@test "a Read that ran as decided: no answer, a result/1 bound to the decision entry" {
	in=$(jq -nc --arg p "$R/src/a.txt" '{file_path: $p}')
	pre_post Read "$in" toolu_r1 \
	    "$(read_resp "$R/src/a.txt" "$(cat "$R/src/a.txt")
")"
	assert_success
	assert_output ""
	run -0 results
	run -0 jq -r '[.check, .status, .decided, .tool_use_id] | join(" ")' <<<"$output"
	assert_output "match ok allow toolu_r1"
	# decision = SHA-256 of the chain/1 entry that holds the allow.
	dec=$(results | jq -r .decision)
	first=$(jh-verify "$LOG" | jq -r 'select(.chain) | .entry_hash // empty' | head -1)
	cid=$(results | jq -r .content_id)
	[ "$cid" = "sha256:$(sha256sum <"$R/src/a.txt" | cut -c1-64)" ]
	run -0 /usr/bin/python3 - "$LOG" "$dec" <<'EOF'
import sys, hashlib
import cbor2
data = open(sys.argv[1], 'rb').read()
import io
f = io.BytesIO(data)
hashes = []
while f.tell() < len(data):
    start = f.tell()
    cbor2.load(f)
    hashes.append("sha256:" + hashlib.sha256(data[start:f.tell()]).hexdigest())
assert sys.argv[2] == hashes[0], (sys.argv[2], hashes)
print(len(hashes))
EOF
	assert_output 2
	run -0 jh-verify -q "$LOG"
}

@test "a tool that ran with no decision receipt stops the session (continue:false)" {
	hook "$(payload PostToolUse Bash '{"command":"echo hi"}' toolu_none \
	    '{"stdout":"hi\n","stderr":"","interrupted":false}')"
	assert_success
	run -0 jq -r '[.continue, .stopReason] | @tsv' <<<"$output"
	assert_output --partial "false	joulehook: Bash ran with no decision receipt"
	run -0 results
	run -0 jq -r '[.check, has("decision")] | @tsv' <<<"$output"
	assert_output "no-receipt	false"
}

@test "an input that differs from the one decided on stops the session" {
	hook "$(payload PreToolUse Bash '{"command":"echo hi"}' toolu_m)"
	assert_success
	hook "$(payload PostToolUse Bash '{"command":"echo hi; rm -rf x"}' \
	    toolu_m '{"stdout":"","stderr":"","interrupted":false}')"
	assert_success
	run -0 jq -r .continue <<<"$output"
	assert_output false
	run -0 results
	run -0 jq -r .check <<<"$output"
	assert_output input-mismatch
}

@test "a rewrite: the rewritten input that ran matches the sealed updated_input" {
	hook "$(payload PreToolUse Bash '{"command":"echo loud"}' toolu_rw)"
	assert_success
	run -0 jq -r .hookSpecificOutput.updatedInput.command <<<"$output"
	assert_output "echo quiet"
	hook "$(payload PostToolUse Bash '{"command":"echo quiet"}' toolu_rw \
	    '{"stdout":"quiet\n","stderr":"","interrupted":false}')"
	assert_success
	assert_output ""
	run -0 results
	run -0 jq -r '[.check, .decided] | @tsv' <<<"$output"
	assert_output "match	rewrite"
}

@test "a Read whose file changed after the decision is withheld and stops the session" {
	in=$(jq -nc --arg p "$R/src/a.txt" '{file_path: $p}')
	hook "$(payload PreToolUse Read "$in" toolu_toc)"
	assert_success
	echo "planted after the check" >"$R/src/a.txt"
	hook "$(payload PostToolUse Read "$in" toolu_toc \
	    "$(read_resp "$R/src/a.txt" "$(cat "$R/src/a.txt")
")")"
	assert_success
	run -0 jq -r '[.continue, .hookSpecificOutput.hookEventName,
	    .hookSpecificOutput.updatedToolOutput.file.filePath,
	    (.hookSpecificOutput.updatedToolOutput.file.content
	     | test("withheld"))] | @tsv' <<<"$output"
	assert_output "false	PostToolUse	$R/src/a.txt	true"
	refute_output --partial "planted"
	run -0 results
	run -0 jq -r .check <<<"$output"
	assert_output content-mismatch
}

@test "a partial Read is not re-hashed" {
	in=$(jq -nc --arg p "$R/src/a.txt" '{file_path: $p, offset: 2, limit: 1}')
	hook "$(payload PreToolUse Read "$in" toolu_part)"
	assert_success
	resp=$(jq -nc --arg p "$R/src/a.txt" '{type: "text", file: {filePath: $p,
	    content: "second line", numLines: 1, startLine: 2, totalLines: 3}}')
	hook "$(payload PostToolUse Read "$in" toolu_part "$resp")"
	assert_success
	assert_output ""
	run -0 results
	run -0 jq -r '[.check, has("content_id")] | @tsv' <<<"$output"
	assert_output "match	false"
}

@test "an ask the human approved: the hold settles into a debit, the answer is recorded" {
	in='{"command":"npm run deploy"}'
	hook "$(payload PreToolUse Bash "$in" toolu_ask)"
	assert_success
	run -0 jq -r .hookSpecificOutput.permissionDecision <<<"$output"
	assert_output ask
	run -0 jh-verify -L "$JH_STATE/ledger" "$LOG"
	held=$(jq -r 'select(.ledger) | .ledger.held_uj' <<<"$output")
	[ "$held" -eq 2000000 ]
	# the ask's decision is the hold's receipt: rebuilt from it alone
	run -0 jq -c 'select(.ledger) | .ledger | [.ok, .receipts_uj, .unsettled_uj, .rebuilt_uj]' <<<"$output"
	assert_output "[true,0,2000000,2000000]"
	hook "$(payload PostToolUse Bash "$in" toolu_ask \
	    '{"stdout":"","stderr":"","interrupted":false}')"
	assert_success
	assert_output ""
	run -0 results
	run -0 jq -r '[.answer, .debited_uj, .check] | @tsv' <<<"$output"
	assert_output "approved	2000000	match"
	# The ledger and the receipts agree: spent = the settled ask.
	run -0 jh-verify -L "$JH_STATE/ledger" "$LOG"
	run -0 jq -c 'select(.ledger) | .ledger | [.ok, .held_uj, .spent_uj, .receipts_uj, .unsettled_uj]' <<<"$output"
	assert_output "[true,0,2000000,2000000,0]"
}

@test "an ask never answered: Stop releases its hold, records refused, writes a checkpoint" {
	in='{"command":"npm run deploy"}'
	hook "$(payload PreToolUse Bash "$in" toolu_ask2)"
	assert_success
	hook "$(payload PreToolUse Bash '{"command":"echo x"}' toolu_e)"
	assert_success
	stop=$(jq -nc --arg s "$SID" --arg cwd "$R" '{session_id: $s,
	    transcript_path: "/nonexistent.jsonl", cwd: $cwd,
	    hook_event_name: "Stop", stop_hook_active: false,
	    last_assistant_message: "done"}')
	hook "$stop"
	assert_success
	assert_output ""
	run -0 results
	run -0 jq -r '[.event, .status, .answer, .debited_uj, .tool_use_id] | @tsv' <<<"$output"
	assert_output "Stop	not-run	refused	0	toolu_ask2"
	run -0 jh-verify -L "$JH_STATE/ledger" "$LOG"
	run -0 jq -c 'select(.ledger) | .ledger | [.ok, .held_uj, .spent_uj]' <<<"$output"
	assert_output "[true,0,2000000]"
	# A second Stop closes nothing twice, and appends a second checkpoint.
	hook "$stop"
	assert_success
	run -0 results
	[ "$(wc -l <<<"$output")" -eq 1 ]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	run -0 jq -r 'select(.log) | [.log.ok, .log.extent] | @tsv' <<<"$output"
	assert_output --partial "true"
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
	# A truncated copy of the log is caught against the sink.
	n=$(jh-verify "$LOG" | jq -s '[.[] | select(.chain)] | length')
	jh-verify "$LOG" >/dev/null
	/usr/bin/python3 "$PROJECT_ROOT/tests/helpers/cborseq.py" droplast \
	    "$LOG" "$T/short.jhl"
	run -1 jh-verify -c "$T/sink/checkpoints" "$T/short.jhl"
	assert_output --partial "truncated"
	[ "$n" -ge 3 ]
}

@test "SessionEnd writes a checkpoint too; a session with no log writes none and fails nothing" {
	hook "$(payload PreToolUse Bash '{"command":"echo x"}' toolu_se)"
	assert_success
	end=$(jq -nc --arg s "$SID" '{session_id: $s, cwd: "/",
	    transcript_path: "/x.jsonl", hook_event_name: "SessionEnd",
	    reason: "other"}')
	hook "$end"
	assert_success
	[ -s "$T/sink/checkpoints" ]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
	size=$(stat -c %s "$T/sink/checkpoints")
	SID=never-used
	hook "$(jq -nc --arg s "$SID" '{session_id: $s, cwd: "/",
	    transcript_path: "/x.jsonl", hook_event_name: "SessionEnd",
	    reason: "other"}')"
	# No log, no checkpoint: the hook says so and blocks nothing (exit 1).
	[ "$status" -eq 1 ]
	[ "$(stat -c %s "$T/sink/checkpoints")" -eq "$size" ]
}

@test "PostToolUseFailure and PermissionDenied are recorded as failed and denied" {
	hook "$(payload PreToolUse Bash '{"command":"echo f"}' toolu_f)"
	hook "$(payload PostToolUseFailure Bash '{"command":"echo f"}' toolu_f \
	    '"Exit code 1"')"
	assert_success
	assert_output ""
	hook "$(payload PreToolUse Bash '{"command":"npm run deploy"}' toolu_d)"
	hook "$(payload PermissionDenied Bash '{"command":"npm run deploy"}' toolu_d)"
	assert_success
	run -0 results
	run -0 jq -r '[.event, .status, .check, .answer // "-"] | @tsv' <<<"$output"
	assert_output "PostToolUseFailure	failed	match	-
PermissionDenied	denied	match	refused"
	run -0 jh-verify -L "$JH_STATE/ledger" "$LOG"
	run -0 jq -c 'select(.ledger) | .ledger | [.ok, .held_uj]' <<<"$output"
	assert_output "[true,0]"
}

@test "fail closed after a tool ran: a killed, failing or missing stage stops the session" {
	hook "$(payload PreToolUse Bash '{"command":"echo k"}' toolu_k)"
	post=$(payload PostToolUse Bash '{"command":"echo k"}' toolu_k \
	    '{"stdout":"k\n","stderr":"","interrupted":false}')
	printf '#!/bin/sh\nkill -9 $$\n' >"$T/killed"
	printf '#!/bin/sh\nexit 3\n' >"$T/fails"
	printf '#!/bin/sh\nsleep 30\n' >"$T/slow"
	printf '#!/bin/sh\necho "{\\"continue\\":true}"\n' >"$T/liar"
	chmod 755 "$T/killed" "$T/fails" "$T/slow" "$T/liar"
	for s in 1 2 3 4; do
		for stub in killed fails "$T/nonexistent"; do
			case $stub in /*) p=$stub ;; *) p="$T/$stub" ;; esac
			write_conf "stage$s=$p"
			hook "$post"
			[ "$status" -eq 0 ] || { echo "stage$s=$stub: $status"; return 1; }
			jq -e '.continue == false and (.stopReason | startswith("joulehook: "))' \
			    <<<"$output" >/dev/null || { echo "stage$s=$stub: $output"; return 1; }
		done
	done
	write_conf "stage4=$T/liar"
	hook "$post"
	run -0 jq -r .continue <<<"$output"
	assert_output false
	write_conf "stage1=$T/slow" "deadline_ms=500" "lock_ms=100"
	hook "$post"
	run -0 jq -r .stopReason <<<"$output"
	assert_output --partial "did not answer within 500 ms"
}

@test "jh-result: bad input gets a clear error and no record" {
	run -1 jh-result <<<'{"event": "PostToolUse"'
	assert_output --partial "malformed"
	run -1 jh-result <<<'{"event":"PreToolUse","host":"claude-code"}'
	assert_output --partial "not a post-tool event"
	run -1 jh-result <<<'{"event":"PostToolUse","host":"claude-code","session_id":"s"}'
	assert_output --partial "without session_id, tool_use_id"
	run -1 jh-result <<<'{"event":"PostToolUse","host":"nohost"}'
	assert_output --partial "unknown host"
	# an input that cannot be opened or read is 2
	run -2 jh-result "$T/missing.json"
	assert_output --partial "missing.json"
	run -2 jh-result "$T"
	assert_output --partial "Is a directory"
}

@test "meter=transcript: Stop chains the transcript's new units (once) and a task-level aggregate" {
	write_conf "meter=transcript"
	cp "$PROJECT_ROOT/tests/fixtures/meter/transcript.jsonl" "$T/t.jsonl"
	# The transcript's units are of its own session, the hook's session.
	SID=$(jq -r 'select(.sessionId) | .sessionId' "$T/t.jsonl" | head -1)
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
	want=$(jh-meter transcript -s "$SID" "$T/t.jsonl" 2>/dev/null | wc -l)
	[ "$want" -ge 2 ]
	hook "$(payload PreToolUse Bash '{"command":"echo m"}' toolu_m1)"
	stop=$(jq -nc --arg s "$SID" --arg t "$T/t.jsonl" '{session_id: $s,
	    transcript_path: $t, cwd: "/", prompt_id: "p-1",
	    hook_event_name: "Stop", stop_hook_active: false}')
	hook "$stop"
	assert_success
	assert_output ""
	effs() {
		jh-verify "$LOG" | jq -r 'select(.kind == "efficiency/1")
		    | [.core.source, .core.unit, .core.enforced] | @tsv'
	}
	run -0 effs
	[ "$(grep -c '^transcript' <<<"$output")" -eq "$want" ]
	assert_line "$(printf 'aggregate\ttask:p-1\t0')"
	# The next Stop reads from where the last one stopped: no unit twice.
	hook "$stop"
	assert_success
	run -0 effs
	[ "$(grep -c '^transcript' <<<"$output")" -eq "$want" ]
	[ "$(grep -c '^aggregate' <<<"$output")" -eq 2 ]
	run -0 jh-verify -q "$LOG"
	# A reply the host wrote after the last Stop (transcripts are written
	# asynchronously) is read at SessionEnd, whose short time budget rolls
	# up nothing.
	jq -c 'select(.type == "assistant")' "$T/t.jsonl" | tail -1 |
	    jq -c '.message.id = "msg_late" | .requestId = "req_late"' >>"$T/t.jsonl"
	end=$(jq -nc --arg s "$SID" --arg t "$T/t.jsonl" '{session_id: $s,
	    transcript_path: $t, cwd: "/", hook_event_name: "SessionEnd",
	    reason: "other"}')
	hook "$end"
	assert_success
	run -0 effs
	[ "$(grep -c '^transcript' <<<"$output")" -eq "$((want + 1))" ]
	assert_line --partial "msg_late"
	[ "$(grep -c '^aggregate' <<<"$output")" -eq 2 ]
}

@test "the grant's outcome command anchors the task: its result carries outcome, aggregate reads it" {
	write_conf "meter=transcript"
	cp "$PROJECT_ROOT/tests/fixtures/meter/transcript.jsonl" "$T/t.jsonl"
	SID=$(jq -r 'select(.sessionId) | .sessionId' "$T/t.jsonl" | head -1)
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
	stop=$(jq -nc --arg s "$SID" --arg t "$T/t.jsonl" '{session_id: $s,
	    transcript_path: $t, cwd: "/", prompt_id: "p-1",
	    hook_event_name: "Stop", stop_hook_active: false}')
	agg() {
		jh-verify "$LOG" | jq -r 'select(.kind == "efficiency/1"
		    and .core.source == "aggregate") | [.core.completed,
		    .core.verdict] | @tsv' | tail -1
	}
	hook "$(payload PreToolUse Bash '{"command":"npm run test"}' toolu_o1)"
	run -0 jh-verify "$LOG"
	run -0 jq -r 'select(.kind == "decision/1") | .core.outcome' <<<"$output"
	assert_output 1
	hook "$(payload PostToolUseFailure Bash '{"command":"npm run test"}' toolu_o1 '"Exit code 1"')"
	assert_success
	hook "$stop"
	assert_success
	run -0 agg
	assert_output "$(printf '0\terror')"
	# a second attempt passes: the task completes, both attempts charged
	hook "$(payload PreToolUse Bash '{"command":"npm run test"}' toolu_o2)"
	hook "$(payload PostToolUse Bash '{"command":"npm run test"}' toolu_o2 \
	    '{"stdout":"ok","stderr":"","interrupted":false}')"
	hook "$stop"
	run -0 agg
	assert_output "$(printf '1\tok')"
	run -0 jh-verify "$LOG"
	run -0 jq -r 'select(.kind == "result/1") | [.core.tool_use_id, .core.outcome, .core.status] | @tsv' <<<"$output"
	assert_output "$(printf 'toolu_o1\t1\tfailed\ntoolu_o2\t1\tok')"
	# a command that is not the outcome command carries no outcome
	hook "$(payload PreToolUse Bash '{"command":"npm run build"}' toolu_o3)"
	run -0 jh-verify "$LOG"
	run -0 jq -r 'select(.kind == "decision/1" and .core.tool_use_id == "toolu_o3") | .core.outcome // "none"' <<<"$output"
	assert_output none
}

@test "a Stop whose meter fails still writes its checkpoint, and says what failed (exit 1)" {
	write_conf "meter=transcript"
	hook "$(payload PreToolUse Bash '{"command":"echo c"}' toolu_c1)"
	stop=$(jq -nc --arg s "$SID" '{session_id: $s, cwd: "/",
	    transcript_path: "/nonexistent/t.jsonl", hook_event_name: "Stop",
	    stop_hook_active: false}')
	hook "$stop"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"metering the transcript failed (the checkpoint was written)"* ]]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
}

# A decision covers the tool it was made for: an allow of a Read never
# covers a Write of the same input under the same tool_use_id.
@test "a tool run under another tool's decision stops the session" {
	in=$(jq -nc --arg p "$R/evil.txt" '{file_path: $p, content: "x"}')
	hook "$(payload PreToolUse Read "$in" toolu_swap)"
	assert_success
	hook "$(payload PostToolUse Write "$in" toolu_swap \
	    "$(jq -nc --arg p "$R/evil.txt" '{type: "create", filePath: $p, content: "x"}')")"
	assert_success
	run -0 jq -r .continue <<<"$output"
	assert_output false
	run -0 results
	run -0 jq -r '[.tool, .check] | @tsv' <<<"$output"
	assert_output "Write	not-allowed"
}

# Stop closes an unanswered ask as refused and releases its hold: a run of
# it after that is paid for and stops the session.
@test "an ask that runs after a result closed it is debited, and stops the session" {
	in='{"command":"npm run deploy"}'
	hook "$(payload PreToolUse Bash "$in" toolu_late)"
	assert_success
	hook "$(stop)"
	assert_success
	hook "$(payload PostToolUse Bash "$in" toolu_late \
	    '{"stdout":"","stderr":"","interrupted":false}')"
	assert_success
	run -0 jq -r .continue <<<"$output"
	assert_output false
	run -0 results
	run -0 jq -sr 'map([.status, .answer, .debited_uj, .check] | @tsv) | .[]' <<<"$output"
	assert_line --index 0 "not-run	refused	0	match"
	assert_line --index 1 "ok	approved	2000000	not-allowed"
	run -0 jh-verify -L "$JH_STATE/ledger" "$LOG"
	run -0 jq -c 'select(.ledger) | .ledger | [.held_uj, .spent_uj]' <<<"$output"
	assert_output "[0,2000000]"
}

# A checkpoint is found for a log by its file's name (the SHA-256 of its
# session, as jh-chain names it) or its first chain entry: neither a
# bare receipt of another session put in front nor an emptied file
# escapes it.
@test "a log cut behind another session's receipt, or emptied, still fails its checkpoint" {
	hook "$(payload PreToolUse Bash '{"command":"echo a"}' toolu_c1)"
	hook "$(payload PreToolUse Bash '{"command":"echo b"}' toolu_c2)"
	hook "$(stop)"
	assert_success
	run -0 jh-verify -q -c "$T/sink/checkpoints" "$LOG"
	/usr/bin/python3 "$PROJECT_ROOT/tests/helpers/cborseq.py" droplast \
	    "$LOG" "$T/short.jhl"
	jq -nc --arg cwd "$R" '{session_id: "other", tool: "Bash",
	    input: {command: "echo x"}, cwd: $cwd, content_id: null,
	    host: "claude-code", event: "PreToolUse", class: "shell",
	    tool_use_id: "t9"}' | jh-decide | jh-seal >"$T/bare"
	mkdir "$T/named" "$T/empty"
	name=$(basename "$LOG")
	cat "$T/bare" "$T/short.jhl" >"$T/named/$name"
	cat "$T/bare" "$T/short.jhl" >"$T/fronted.jhl"
	: >"$T/empty/$name"
	for f in "$T/named/$name" "$T/fronted.jhl"; do
		run -1 jh-verify -c "$T/sink/checkpoints" "$f"
		assert_output --partial "truncated"
	done
	# emptied, even beside a log that meets the checkpoint
	run -1 jh-verify -c "$T/sink/checkpoints" "$T/empty/$name"
	run -1 jh-verify -c "$T/sink/checkpoints" "$LOG" "$T/empty/$name"
	assert_output --partial "truncated"
}
