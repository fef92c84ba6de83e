#!/usr/bin/env bats
# jh-acp(1): the gating relay between an ACP editor and an ACP agent.
# The editor is tests/acp/editor.mjs on @agentclientprotocol/sdk 2.4.0;
# the agent is tests/acp/fake-agent.py (the relay's protocol edge cases)
# or, in the tests tagged host, the real claude-code-acp 0.16.2 and
# codex-acp 0.16.0 from npm, offline against tests/mock/.

load test_helper/common
load helpers/acp
load helpers/claude
load helpers/codex

setup_file() {
	jh_bin_snapshot
}

setup() {
	_common_setup
	jh_keys
	P="$T/proj"
	mkdir -p "$P"
	P=$(cd "$P" && pwd -P)
	FAKE="$PROJECT_ROOT/tests/acp/fake-agent.py"
	AG_LOG="$T/agent.jsonl"
	acp_sdk_install
}

teardown() {
	[ -z "${SRV_PID:-}" ] || { kill "$SRV_PID" 2>/dev/null; wait "$SRV_PID" 2>/dev/null; }
	mock_stop
	codex_mock_stop
}

# A grant for the fake agent's tests: echo and touch, files in $P; rm -rf
# is refused by policy; writing a .env needs a human.
fake_grant() {
	acp_grant '[{"class": "shell", "command": ["echo *", "touch *"]},
	            {"class": ["write", "edit", "read", "search"], "path": ["**"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"},
	      {"id": "secrets", "when": {"class": ["write", "edit"], "path": ["**/.env"]},
	       "verdict": "ask", "reason": "a human must approve secrets"}]'
	acp_install -A
}

# steps JSON: the fake agent's script.
steps() {
	printf '%s\n' "$1" >"$T/steps.json"
}

fake_run() {
	acp_run /usr/bin/python3 "$FAKE" "$T/steps.json" "$AG_LOG"
}

# The fake agent's tool_call announcement and permission request.
tool_call() { # ID KIND RAWINPUT-JSON
	jq -nc --arg id "$1" --arg k "$2" --argjson r "$3" '{send: {jsonrpc: "2.0",
	    method: "session/update", params: {sessionId: "fake-1", update: {
	    sessionUpdate: "tool_call", toolCallId: $id, title: ("call " + $id),
	    kind: $k, status: "pending", rawInput: $r}}}}'
}
ask_perm() { # RPCID TOOLCALLID OPTIONS-JSON
	jq -nc --argjson n "$1" --arg id "$2" --argjson o "$3" '{send: {jsonrpc: "2.0",
	    id: $n, method: "session/request_permission", params: {sessionId: "fake-1",
	    toolCall: {toolCallId: $id}, options: $o}}}'
}
await() { echo "{\"await\": $1}"; }
# What the fake agent was answered for request N.
answer_of() {
	jq -c --argjson n "$1" 'select(.response.id == $n) | .response | del(.jsonrpc)' "$AG_LOG"
}
# Options whose ids lie about their kinds: only the kind may be read.
LYING='[{"optionId": "reject", "name": "Allow", "kind": "allow_always"},
        {"optionId": "allow", "name": "Reject", "kind": "reject_once"},
        {"optionId": "yes", "name": "Yes", "kind": "allow_once"},
        {"optionId": "never", "name": "Never", "kind": "reject_always"}]'

@test "acp 1. -h prints the synopsis of jh-acp(1); a usage error exits 2" {
	run -0 jh-acp -h
	assert_output "usage: jh-acp [-c config | -s socket] [-t seconds] -- agent [arg ...]
       jh-acp -h"
	run -2 jh-acp
	run -2 jh-acp -t 0 -- true
	# past what jh-hook -s -t takes, every call would be a usage deny
	run -2 jh-acp -t 601 -- true
	assert_output --partial "from 1 to 600"
	run -2 jh-acp -c relative.conf -- true
	run -2 jh-acp -c /a -s /b -- true
}

@test "acp 1b. jh-install -H acp copies jh-acp beside jh-hook and prints the editor's lines; -u -H acp says what to remove" {
	fake_grant
	assert_file_executable "$JH_HOME/bin/jh-acp"
	assert_file_executable "$JH_HOME/bin/jh-hook"
	run -0 grep -F "\"command\": \"$JH_HOME/bin/jh-acp\"" <<<"$INSTALL_OUT"
	run -0 grep -F "\"args\": [\"-c\", \"$JH_HOME/hook.conf\", \"--\"" <<<"$INSTALL_OUT"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H acp
	assert_output --partial "remove jh-acp from your editor's agent settings"
}

@test "acp 2. a denied call: the agent gets the reject_once option, picked by kind; the editor never sees the request and is told why" {
	fake_grant
	steps "[$(tool_call c1 execute "{\"command\": \"rm -rf $P/victim\"}"),
	        $(ask_perm 7 c1 "$LYING"), $(await 7)]"
	echo precious >"$P/victim"
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 7
	assert_output '{"id":7,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 ed_says
	assert_output --partial "joulehook refused call c1: blocked by policy no-destruction: destructive commands are never granted"
	assert_output --partial "tell the user"
	assert_file_exist "$P/victim"
}

@test "acp 3. a deny with no reject option is answered cancelled; an allow picks allow_once over allow_always" {
	fake_grant
	steps "[$(tool_call c1 execute "{\"command\": \"rm -rf $P/x\"}"),
	        $(ask_perm 1 c1 '[{"optionId": "ok", "name": "OK", "kind": "allow_once"}]'), $(await 1),
	        $(tool_call c2 execute "{\"command\": \"touch $P/y\"}"),
	        $(ask_perm 2 c2 "$LYING"), $(await 2)]"
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 1
	assert_output '{"id":1,"result":{"outcome":{"outcome":"cancelled"}}}'
	run -0 answer_of 2
	assert_output '{"id":2,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}'
	run -0 ed_reqs session/request_permission
	assert_output ""
}

@test "acp 4. an ask reaches the editor byte for byte, and the editor's answer reaches the agent" {
	fake_grant
	steps "[$(tool_call c1 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=1\"}"),
	        $(ask_perm 3 c1 "$LYING"), $(await 3)]"
	acp_spec answer='"reject"'
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 ed_reqs session/request_permission
	assert_output "$(jq -c '.[1].send.params' "$T/steps.json")"
	# the editor picked reject_once ("allow"), relayed as it was
	run -0 answer_of 3
	assert_output '{"id":3,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
}

@test "acp 5. session/cancel answers the pending request cancelled; the editor's late answer is not relayed" {
	fake_grant
	steps "[$(tool_call c1 edit "{\"file_path\": \"$P/.env\"}"),
	        $(ask_perm 4 c1 "$LYING"), $(await 4), {\"await_cancel\": true}]"
	acp_spec answer='"hang"' cancel_after_ms=300
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 4
	assert_output '{"id":4,"result":{"outcome":{"outcome":"cancelled"}}}'
	run -0 jq -c 'select(.got.method == "session/cancel") | .got.params' "$AG_LOG"
	assert_output '{"sessionId":"fake-1"}'
	run -0 jq -c 'select(.response.id == 4)' "$AG_LOG"
	assert_equal "$(echo "$output" | wc -l)" 1
}

@test "acp 6. fs and terminal requests are gated: a denied one is an error to the agent and never reaches the editor" {
	fake_grant
	mkdir -p "$T/outside"
	steps "[{\"send\": {\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/in.txt\", \"content\": \"ok\\n\"}}}, $(await 10),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 11, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$T/outside/out.txt\", \"content\": \"no\\n\"}}}, $(await 11),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 12, \"method\": \"fs/read_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$T/outside/secret\"}}}, $(await 12),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 13, \"method\": \"terminal/create\", \"params\": {\"sessionId\": \"fake-1\", \"command\": \"rm\", \"args\": [\"-rf\", \"$P/victim\"]}}}, $(await 13),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 14, \"method\": \"terminal/create\", \"params\": {\"sessionId\": \"fake-1\", \"command\": \"touch\", \"args\": [\"$P/made\"], \"env\": [{\"name\": \"LD_PRELOAD\", \"value\": \"/tmp/x.so\"}]}}}, $(await 14),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 15, \"method\": \"terminal/create\", \"params\": {\"sessionId\": \"fake-1\", \"command\": \"touch\", \"args\": [\"$P/made\"]}}}, $(await 15),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 16, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=1\"}}}, $(await 16)]"
	echo secret >"$T/outside/secret"
	echo precious >"$P/victim"
	acp_spec fs=true terminal=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 cat "$P/in.txt"
	assert_output ok
	assert_file_not_exist "$T/outside/out.txt"
	assert_file_exist "$P/victim"
	run -0 answer_of 10
	assert_output '{"id":10,"result":{}}'
	for n in 11 12 13 14 16; do
		run -0 jq -r --argjson n $n 'select(.response.id == $n) | .response.error | "\(.code) \(.message)"' "$AG_LOG"
		assert_output --regexp '^-32000 joulehook refused (fs|terminal)/'
	done
	run -0 jq -r 'select(.response.id == 11) | .response.error.message' "$AG_LOG"
	assert_output --partial "not in your grant: Write on $T/outside/out.txt. The user can grant it with: jh-grant add class=write path=$T/outside/out.txt"
	run -0 jq -r 'select(.response.id == 16) | .response.error.message' "$AG_LOG"
	assert_output --partial "a human must approve secrets"
	assert_output --partial "the agent asked for none"
	run -0 jq -r 'select(.response.id == 15) | .response.result.terminalId' "$AG_LOG"
	assert_output term-1
	# the editor received only the two requests that were allowed
	run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
	assert_output "fs/write_text_file
terminal/create"
	# each decided (a call id of the relay's own), and each result bound
	# (the ask the relay refused for want of an approval is closed at
	# the end of the turn, by the session's Stop: not run, refused)
	run -0 sh -c "jh-verify '$(acp_log fake-1)' | jq -r 'select(.chain) | [.kind, (.core.verdict // .core.check), .core.tool, .core.status // \"-\"] | @tsv'"
	assert_output "$(printf 'decision/1\tallow\tWrite\t-
result/1\tmatch\tWrite\tok
decision/1\tdeny\tWrite\t-
decision/1\tdeny\tRead\t-
decision/1\tdeny\tBash\t-
decision/1\tdeny\tBash\t-
decision/1\tallow\tBash\t-
result/1\tmatch\tBash\tok
decision/1\task\tWrite\t-
result/1\tmatch\tWrite\tnot-run')"
	run -0 sh -c "jh-verify '$(acp_log fake-1)' | jq -r 'select(.kind == \"decision/1\") | .core.tool_use_id' | sort -u | wc -l"
	assert_output 7
	run -0 jh-verify -q "$(acp_log fake-1)"
}

@test "acp 7. bad lines from the agent: not JSON, a lone surrogate, a repeated key, a batch, a line over 16 MiB -- none reaches the editor" {
	fake_grant
	steps "[{\"raw\": \"this is not json\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":20,\\\"method\\\":\\\"fs/write_text_file\\\",\\\"params\\\":{\\\"sessionId\\\":\\\"fake-1\\\",\\\"path\\\":\\\"$T/sur\\\\ud800\\\",\\\"content\\\":\\\"x\\\"}}\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":21,\\\"method\\\":\\\"_x/ok\\\",\\\"method\\\":\\\"fs/write_text_file\\\",\\\"params\\\":{\\\"sessionId\\\":\\\"fake-1\\\",\\\"path\\\":\\\"$T/dup\\\",\\\"content\\\":\\\"x\\\"}}\"},
	        {\"raw\": \"[{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":22,\\\"method\\\":\\\"fs/write_text_file\\\",\\\"params\\\":{\\\"sessionId\\\":\\\"fake-1\\\",\\\"path\\\":\\\"$T/batch\\\",\\\"content\\\":\\\"x\\\"}}]\"},
	        {\"huge\": 17000000, \"send\": {\"jsonrpc\": \"2.0\", \"id\": 23, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$T/huge\", \"content\": \"x\"}}},
	        $(await 23)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
	assert_output ""
	assert_file_not_exist "$T/sur"
	assert_file_not_exist "$T/dup"
	assert_file_not_exist "$T/batch"
	assert_file_not_exist "$T/huge"
	run -0 jq -r 'select(.response.id == 23) | .response.error.message' "$AG_LOG"
	assert_output "jh-acp: the request is too long to be checked: not relayed"
	run -0 jq -r 'select(.got.error) | .got.error.code' "$AG_LOG"
	assert_output "-32700
-32700
-32700
-32600
-32600"
	run -0 grep -c "dropped a line from the agent" "$ED_ERR"
	assert_output 5
}

@test "acp 8. an unknown method is relayed both ways unchanged" {
	fake_grant
	steps '[{"send": {"jsonrpc": "2.0", "id": 30, "method": "_vendor/ping", "params": {"x": [1, 2.50, "\u00e9"]}}}, {"await": 30},
	        {"send": {"jsonrpc": "2.0", "method": "_vendor/note", "params": {"y": true}}},
	        {"send": {"jsonrpc": "2.0", "id": 31, "method": "_vendor/ping", "params": {}}}, {"await": 31}]'
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 jq -c 'select(.method == "_vendor/ping" or .method == "_vendor/note") | [.dir, .params]' "$ED_LOG"
	assert_output '["req",{"x":[1,2.5,"é"]}]
["note",{"y":true}]
["req",{}]'
	run -0 jq -c 'select(.response.id == 30) | .response.error.code' "$AG_LOG"
	assert_output -- "-32601"
}

@test "acp 9. a killed hook stage and one that hangs past -t each deny; the next call is decided again" {
	fake_grant
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *c_kill*) kill -KILL \$\$ ;; esac
	case \$in in *c_hang*) sleep 20 ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	steps "[$(tool_call c_kill execute "{\"command\": \"touch $P/killed\"}"), $(ask_perm 1 c_kill "$LYING"), $(await 1),
	        $(tool_call c_hang execute "{\"command\": \"touch $P/hung\"}"), $(ask_perm 2 c_hang "$LYING"), $(await 2),
	        $(tool_call c_ok execute "{\"command\": \"touch $P/ok\"}"), $(ask_perm 3 c_ok "$LYING"), $(await 3)]"
	ACP_RELAY_ARGS="-t 2" fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 1
	assert_output '{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 answer_of 2
	assert_output '{"id":2,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 answer_of 3
	assert_output '{"id":3,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}'
	run -0 ed_says
	assert_output --partial "joulehook refused call c_hang: the gate did not answer within 2 s"
	run -0 ed_reqs session/request_permission
	assert_output ""
}

@test "acp 10. a killed relay leaves the editor with an error and no agent process" {
	fake_grant
	steps '[{"sleep_ms": 60000}]'
	acp_run /bin/sh -c "echo \$\$ >'$T/agent.pid'; exec /usr/bin/python3 '$FAKE' '$T/steps.json' '$AG_LOG'" &
	local ed=$! i
	for ((i = 0; i < 100; i++)); do
		[ -s "$T/agent.pid" ] && grep -q '"session/prompt"' "$AG_LOG" 2>/dev/null && break
		sleep 0.1
	done
	# the oldest: the relay (the newer one is its watchdog)
	run -0 pgrep -o -f "^$JH_HOME/bin/jh-acp .*$T/steps.json"
	kill -KILL "$output"
	wait "$ed" || true
	run -0 jq -r 'select(.dir == "error") | .message' "$T/editor.jsonl"
	assert_output --partial "closed"
	for ((i = 0; i < 50; i++)); do
		kill -0 "$(cat "$T/agent.pid")" 2>/dev/null || break
		sleep 0.1
	done
	run ! kill -0 "$(cat "$T/agent.pid")"
	run ! pgrep -f "$T/steps.json"
}

@test "acp 11. an agent that dies mid-prompt gives the editor an error for its request" {
	fake_grant
	acp_run /bin/sh -c "read -r l; echo '{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1,\"agentCapabilities\":{}}}'; read -r l; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"sessionId\":\"s\"}}'; read -r l; exit 3"
	[ "$ED_RC" -eq 3 ] || { acp_dump; false; }
	run -0 jq -r 'select(.dir == "error") | .message' "$ED_LOG"
	assert_output --partial "the agent exited with status 3"
}

@test "acp 12. every decision is sealed in the session's log, which verifies; a result binds to its decision" {
	fake_grant
	steps "[$(tool_call c1 execute "{\"command\": \"touch $P/a\"}"), $(ask_perm 1 c1 "$LYING"), $(await 1),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": \"fake-1\", \"update\": {\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c1\", \"status\": \"completed\", \"rawOutput\": \"\"}}}},
	        $(tool_call c2 execute "{\"command\": \"rm -rf $P\"}"), $(ask_perm 2 c2 "$LYING"), $(await 2),
	        $(tool_call c3 read "{\"file_path\": \"$P/a\"}"),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": \"fake-1\", \"update\": {\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c3\", \"status\": \"completed\"}}}}]"
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	LOG=$(acp_log fake-1)
	run -0 jh-verify -q "$LOG"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.chain) | [.kind, .core.tool_use_id, (.core.verdict // .core.check)] | @tsv'"
	assert_output "$(printf 'decision/1\tc1\tallow\nresult/1\tc1\tmatch\ndecision/1\tc2\tdeny\nresult/1\tc3\tno-receipt')"
	# c3 ran without asking: observed, sealed as no-receipt, not stopped
	run -0 grep "observed only" "$ED_ERR"
	run -0 jq -c 'select(.got.method == "session/cancel")' "$AG_LOG"
	assert_output ""
}

@test "acp 13. a lying call is refused: an execute call that names itself Read, a request of an unknown session, a gated request without an id" {
	fake_grant
	steps "[{\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": \"fake-1\", \"update\": {\"sessionUpdate\": \"tool_call\", \"toolCallId\": \"c1\", \"kind\": \"execute\", \"title\": \"Read\", \"rawInput\": {\"file_path\": \"$P/a\", \"command\": \"touch $P/lied\"}, \"_meta\": {\"claudeCode\": {\"toolName\": \"Read\"}}}}}},
	        $(ask_perm 1 c1 "$LYING"), $(await 1),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"other\", \"path\": \"$P/other\", \"content\": \"x\"}}}, $(await 2),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/noid\", \"content\": \"x\"}}},
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"_vendor/sync\"}}, $(await 3)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 1
	assert_output '{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 ed_says
	assert_output --partial "the tool call says it is Read, of kind execute"
	run -0 jq -r 'select(.response.id == 2) | .response.error.message' "$AG_LOG"
	assert_output --partial "joulehook refused fs/write_text_file"
	assert_file_not_exist "$P/other"
	assert_file_not_exist "$P/noid"
	run -0 grep "dropped a fs/write_text_file without an id" "$ED_ERR"
	run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
	assert_output "_vendor/sync"
}

@test "acp 14. the user's approval of an ask lets that call's one write through: not other content, not a second time" {
	fake_grant
	steps "[$(tool_call c1 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=1\"}"),
	        $(ask_perm 1 c1 "$LYING"), $(await 1),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=evil\"}}}, $(await 2),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=1\"}}}, $(await 3),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=1\"}}}, $(await 4)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 1
	assert_output '{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}'
	for n in 2 4; do
		run -0 jq -r --argjson n $n 'select(.response.id == $n) | .response.error.message' "$AG_LOG"
		assert_output --partial "a human must approve secrets"
	done
	run -0 answer_of 3
	assert_output '{"id":3,"result":{}}'
	run -0 cat "$P/.env"
	assert_output K=1
}

@test "acp 15. a decided call whose reported input is not the one decided stops the turn (session/cancel) and tells the user" {
	fake_grant
	steps "[$(tool_call c1 execute "{\"command\": \"touch $P/a\"}"), $(ask_perm 1 c1 "$LYING"), $(await 1),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"session/update\", \"params\": {\"sessionId\": \"fake-1\", \"update\": {\"sessionUpdate\": \"tool_call_update\", \"toolCallId\": \"c1\", \"status\": \"completed\", \"rawInput\": {\"command\": \"touch $P/b\"}}}}},
	        {\"await_cancel\": true}]"
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 jq -c 'select(.got.method == "session/cancel") | .got.params' "$AG_LOG"
	assert_output '{"sessionId":"fake-1"}'
	run -0 ed_says
	assert_output --partial "joulehook stopped the turn after c1:"
	run -0 sh -c "jh-verify '$(acp_log fake-1)' | jq -r 'select(.kind == \"result/1\") | .core.check'"
	assert_output input-mismatch
}

@test "acp 16. hardened: jh-acp -s asks the gate's socket server, and a deny or a missing server still never passes" {
	command -v systemd-socket-activate >/dev/null ||
	    skip "SKIPPED: systemd-socket-activate is not installed (Debian: systemd)"
	fake_grant
	cp "$JH_HOME/hook.conf" "$T/srv.conf"
	echo "developer=$(id -u)" >>"$T/srv.conf"
	chmod 600 "$T/srv.conf"
	ACP_SOCK="$T/gate.sock"
	systemd-socket-activate --accept -l "$ACP_SOCK" "$JH_HOME/bin/jh-hook" \
	    -c "$T/srv.conf" -a </dev/null >"$T/activate.out" 2>&1 3>&- &
	SRV_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S "$ACP_SOCK" ] && break
		sleep 0.05
	done
	steps "[$(tool_call c1 execute "{\"command\": \"rm -rf $P\"}"), $(ask_perm 1 c1 "$LYING"), $(await 1),
	        $(tool_call c2 execute "{\"command\": \"touch $P/a\"}"), $(ask_perm 2 c2 "$LYING"), $(await 2)]"
	ACP_SOCK="$ACP_SOCK" fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 answer_of 1
	assert_output '{"id":1,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 answer_of 2
	assert_output '{"id":2,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}'
	kill "$SRV_PID"
	wait "$SRV_PID" 2>/dev/null || true
	SRV_PID=
	rm -f "$AG_LOG"
	ACP_SOCK="$T/nosuch.sock" fake_run
	run -0 answer_of 2
	assert_output '{"id":2,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}'
	run -0 ed_says
	assert_output --partial "cannot reach the gate's server"
}

# --- the real agents ------------------------------------------------------

# claude_acp TURNS: claude-code-acp against the Anthropic mock scripted
# with TURNS, through jh-acp, the editor offering fs and terminal.
claude_acp() {
	acp_claude_install
	jq -c '{turns: .}' <<<"$1" >"$T/script.json"
	mock_start "$T/script.json"
	acp_spec fs=true terminal=true "${@:2}"
	unset ANTHROPIC_AUTH_TOKEN ANTHROPIC_MODEL CLAUDE_CONFIG_DIR CLAUDECODE \
	    CLAUDE_CODE_ENTRYPOINT
	ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-test \
	    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    acp_run node "$ACP_CLAUDE"
	SID=$(jq -r 'select(.dir == "session") | .sessionId' "$ED_LOG")
	LOG=$(acp_log "$SID")
}

# codex_acp TURNS: codex-acp against the OpenAI mock's Responses turns;
# Codex asks for every command it does not trust (approval_policy
# untrusted) and runs it unsandboxed, so what it asks is what runs.
codex_acp() {
	acp_codex_install
	jq -c '{turns: .}' <<<"$1" >"$T/script.json"
	codex_mock_start "$T/script.json"
	CODEX_HOME="$HOME/.codex"
	codex_config
	sed -i 's/^approval_policy = .*/approval_policy = "untrusted"/; s/^model = .*/model = "gpt-5.5"/' "$CODEX_HOME/config.toml"
	acp_spec "${@:2}"
	unset OPENAI_BASE_URL CODEX_API_KEY RUST_LOG
	CODEX_HOME="$CODEX_HOME" MOCK_API_KEY=sk-test OPENAI_API_KEY=sk-test \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    acp_run "$ACP_CODEX"
	SID=$(jq -r 'select(.dir == "session") | .sessionId' "$ED_LOG")
	LOG=$(acp_log "$SID")
}

# The chain's decisions and results: kind, call id, verdict or check.
sealed() {
	jh-verify "$LOG" | jq -r 'select(.chain) | [.kind, .core.tool_use_id,
	    (.core.verdict // .core.check), (.core.tool // "")] | @tsv'
}

agent_grant() {
	acp_grant '[{"class": "shell", "command": ["echo *", "touch *"]},
	            {"class": ["write", "edit", "read", "search"], "path": ["**"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"},
	      {"id": "secrets", "when": {"class": ["write", "edit"], "path": ["**/.env"]},
	       "verdict": "ask", "reason": "a human must approve secrets"}]'
	acp_install -A
}

# bats test_tags=host
# A copy of jh-acp whose jh-hook (the one beside it) is the script $1.
relay_with_hook() {
	mkdir -p "$T/relay"
	cp "$JH_BIN/jh-acp" "$T/relay/jh-acp"
	printf '%s\n' "$1" >"$T/relay/jh-hook"
	chmod 755 "$T/relay/jh-hook"
	ACP_RELAY="$T/relay/jh-acp"
}

@test "acp 17. a refusal whose reason is longer than jh-acp keeps still answers the agent and tells the user: the reason is cut on a character boundary" {
	fake_grant
	# a hook whose reason is 2 bytes past the 2047 jh-acp keeps, in
	# two-byte characters, after an odd or an even start
	for odd in "" x; do
		relay_with_hook "#!/bin/sh
cat >/dev/null
printf '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"joulehook: $odd%s\"}}' \"\$(printf 'é%.0s' \$(seq 1 1025))\"
exit 2"
		steps "[{\"send\": {\"jsonrpc\": \"2.0\", \"id\": 40, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/a\", \"content\": \"no\"}}}, $(await 40)]"
		acp_spec fs=true
		rm -f "$AG_LOG"
		ACP_TIMEOUT=30 fake_run
		[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
		run -0 jq -r 'select(.response.id == 40) | .response.error | "\(.code) \(.message | length)"' "$AG_LOG"
		assert_output --regexp '^-32000 10[0-9][0-9]$'
		run -0 ed_says
		assert_output --regexp "^joulehook refused fs/write_text_file: ${odd}é+"
		run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
		assert_output ""
	done
	assert_file_not_exist "$P/a"
}

# jh-acp, with every line it writes to the editor copied to $T/to-editor.
relay_tee() {
	printf '#!/bin/sh\n"%s/jh-acp" "$@" | tee -a "%s/to-editor"\n' "$JH_BIN" "$T" >"$T/relay-tee"
	chmod 755 "$T/relay-tee"
	ACP_RELAY="$T/relay-tee"
}

# Every line relay_tee saw is a JSON-RPC 2.0 message, and no request of
# the editor's is answered twice.
editor_lines_ok() {
	run -0 jq -c 'select(.jsonrpc != "2.0" or (has("method") or has("id") | not))' "$T/to-editor"
	assert_output ""
	run -0 sh -c "jq -c 'select(.method == null and .id != null) | .id' '$T/to-editor' | sort | uniq -d"
	assert_output ""
}

@test "acp 18. the agent's lines that are no JSON-RPC 2.0 message, answers to no request of the editor's, and an over-long line's inner id never reach the editor" {
	fake_grant
	relay_tee
	steps "[{\"raw\": \"{\\\"id\\\":25,\\\"method\\\":\\\"_vendor/ping\\\"}\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"1.0\\\",\\\"id\\\":0,\\\"result\\\":{}}\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\"}\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":{\\\"a\\\":1},\\\"method\\\":\\\"_vendor/ping\\\"}\"},
	        {\"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":0,\\\"result\\\":{},\\\"error\\\":{\\\"code\\\":1,\\\"message\\\":\\\"m\\\"}}\"},
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 0, \"result\": {\"protocolVersion\": 1}}},
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 99, \"result\": {}}},
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": null, \"error\": {\"code\": -32700, \"message\": \"parse error\"}}},
	        {\"huge\": 17000000, \"send\": {\"jsonrpc\": \"2.0\", \"method\": \"fs/write_text_file\", \"params\": {\"id\": 2, \"sessionId\": \"fake-1\", \"path\": \"$P/huge\", \"content\": \"x\"}, \"id\": 23}},
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 31, \"method\": \"_vendor/ping\", \"params\": {}}}, $(await 31)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	editor_lines_ok
	run -0 jq -c 'select(.id == 99 or .id == 25 or .id == {"a": 1})' "$T/to-editor"
	assert_output ""
	run -0 jq -c 'select(.id == null and .error != null) | .error.code' "$T/to-editor"
	assert_output -- "-32700"
	run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
	assert_output "_vendor/ping"
	# each refused line is answered: a request for its id, else for null
	run -0 jq -c 'select(.got.error.code == -32600) | [.got.id, .got.error.code]' "$AG_LOG"
	assert_output '[25,-32600]
[null,-32600]
[null,-32600]
[null,-32600]
[null,-32600]'
	run -0 grep -c "dropped an answer from the agent to no request of the editor's" "$ED_ERR"
	assert_output 2
	assert_file_not_exist "$P/huge"
}

@test "acp 19. a request whose id the editor still holds is refused, so the user's approval of one ask never lets another call's write through" {
	fake_grant
	relay_tee
	steps "[$(tool_call c1 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=1\"}"),
	        $(tool_call c2 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=evil\"}"),
	        $(ask_perm 5 c1 "$LYING"), $(ask_perm 5 c2 "$LYING"), $(await 5), $(await 5),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=evil\"}}}, $(await 6),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=1\"}}}, $(await 7)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	editor_lines_ok
	# the editor was asked about c1 alone, and the user allowed it
	run -0 jq -c 'select(.dir == "req" and .method == "session/request_permission") | .params.toolCall.toolCallId' "$ED_LOG"
	assert_output '"c1"'
	run -0 jq -c 'select(.response.id == 5) | .response.error.code // .response.result.outcome.optionId' "$AG_LOG"
	assert_output '-32600
"yes"'
	run -0 jq -r 'select(.response.id == 6) | .response.error.message' "$AG_LOG"
	assert_output --partial "a human must approve secrets"
	run -0 answer_of 7
	assert_output '{"id":7,"result":{}}'
	run -0 cat "$P/.env"
	assert_output K=1
	run -0 grep -c "its id 5 is that of a request the editor has not answered" "$ED_ERR"
	assert_output 1
}

@test "acp 20. claude-code-acp: a denied rm -rf never runs, the editor is never asked and is told why" {
	agent_grant
	echo precious >"$P/victim"
	claude_acp "[{\"tool_use\": [{\"name\": \"mcp__acp__Bash\", \"id\": \"toolu_rm\",
	    \"input\": {\"command\": \"rm -rf $P/victim\", \"description\": \"clean\", \"timeout\": 60000}}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	assert_file_exist "$P/victim"
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 ed_reqs terminal/create
	assert_output ""
	run -0 ed_says
	assert_output --partial "joulehook refused \`rm -rf $P/victim\`: blocked by policy no-destruction"
	run -0 sealed
	assert_line --regexp "^decision/1	toolu_rm	deny	Bash$"
	run -0 jh-verify -q "$LOG"
}

# bats test_tags=host
@test "acp 21. claude-code-acp: granted Write and Bash run through the editor, each gated twice (the call, then its fs or terminal request); results bind" {
	agent_grant
	claude_acp "[{\"tool_use\": [{\"name\": \"mcp__acp__Write\", \"id\": \"toolu_w\",
	    \"input\": {\"file_path\": \"$P/granted.txt\", \"content\": \"hello\\n\"}}]},
	    {\"tool_use\": [{\"name\": \"mcp__acp__Bash\", \"id\": \"toolu_b\",
	    \"input\": {\"command\": \"touch $P/made\", \"description\": \"touch\", \"timeout\": 60000}}]},
	    {\"tool_use\": [{\"name\": \"mcp__acp__Read\", \"id\": \"toolu_r\",
	    \"input\": {\"file_path\": \"$P/granted.txt\"}}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 cat "$P/granted.txt"
	assert_output hello
	assert_file_exist "$P/made" || { acp_dump; false; }
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 jq -r 'select(.dir == "req") | .method' "$ED_LOG"
	assert_output "fs/write_text_file
terminal/create
fs/read_text_file"
	run -0 sealed
	assert_line --regexp "^decision/1	toolu_w	allow	Write$"
	assert_line --regexp "^decision/1	acp-[0-9a-f]{16}-1	allow	Write$"
	assert_line --regexp "^result/1	acp-[0-9a-f]{16}-1	match	Write$"
	assert_line --regexp "^decision/1	toolu_b	allow	Bash$"
	assert_line --regexp "^decision/1	acp-[0-9a-f]{16}-2	allow	Bash$"
	assert_line --regexp "^result/1	acp-[0-9a-f]{16}-2	match	Bash$"
	assert_line --regexp "^result/1	toolu_w	match	Write$"
	assert_line --regexp "^result/1	toolu_b	match	Bash$"
	# claude-code-acp reads without asking: the call is observed only
	# (its result sealed as no-receipt), its fs request still decided
	assert_line --regexp "^decision/1	acp-[0-9a-f]{16}-3	allow	Read$"
	assert_line --regexp "^result/1	toolu_r	no-receipt	Read$"
	run -0 grep "observed only (the agent did not ask): toolu_r" "$ED_ERR"
	run -0 jh-verify -q "$LOG"
}

# bats test_tags=host
@test "acp 22. claude-code-acp: an ask reaches the editor; its allow is relayed and the write runs; its reject stops it" {
	agent_grant
	claude_acp "[{\"tool_use\": [{\"name\": \"mcp__acp__Write\", \"id\": \"toolu_env\",
	    \"input\": {\"file_path\": \"$P/.env\", \"content\": \"K=1\\n\"}}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 ed_reqs session/request_permission
	assert_output --partial '"toolCallId":"toolu_env"'
	run -0 cat "$P/.env"
	assert_output K=1
	run -0 sealed
	assert_line --regexp "^decision/1	toolu_env	ask	Write$"
	mock_stop
	rm -f "$P/.env"
	claude_acp "[{\"tool_use\": [{\"name\": \"mcp__acp__Write\", \"id\": \"toolu_env2\",
	    \"input\": {\"file_path\": \"$P/.env\", \"content\": \"K=2\\n\"}}]},
	    {\"text\": \"finished\"}]" answer='"reject"'
	run -0 ed_reqs session/request_permission
	assert_output --partial '"toolCallId":"toolu_env2"'
	assert_file_not_exist "$P/.env"
}

# bats test_tags=host
@test "acp 23. claude-code-acp: a killed hook stage denies the call" {
	agent_grant
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *toolu_k*) kill -KILL \$\$ ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	claude_acp "[{\"tool_use\": [{\"name\": \"mcp__acp__Bash\", \"id\": \"toolu_k\",
	    \"input\": {\"command\": \"touch $P/killed\", \"description\": \"t\", \"timeout\": 60000}}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	assert_file_not_exist "$P/killed"
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 ed_says
	assert_output --partial "joulehook refused"
}

# bats test_tags=host
@test "acp 24. codex-acp: a granted command runs, a denied rm -rf and a patch outside the project never do" {
	agent_grant
	echo precious >"$P/victim"
	mkdir -p "$T/outside"
	codex_acp "[{\"calls\": [{\"name\": \"exec_command\", \"call_id\": \"call_ok\", \"arguments\": {\"cmd\": \"touch $P/granted\", \"workdir\": \"$P\"}}]},
	    {\"calls\": [{\"name\": \"apply_patch\", \"call_id\": \"call_patch\", \"input\": \"*** Begin Patch\\n*** Add File: $T/outside/evil\\n+x\\n*** End Patch\\n\"}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	assert_file_exist "$P/granted"
	assert_file_not_exist "$T/outside/evil"
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 ed_says
	assert_output --partial "not in your grant"
	run -0 sealed
	assert_line --regexp "^decision/1	call_ok	allow	Bash$"
	assert_line --regexp "^result/1	call_ok	match	Bash$"
	assert_line --regexp "^decision/1	call_patch	deny	apply_patch$"
	run -0 jh-verify -q "$LOG"
	mock_stop
	codex_acp "[{\"calls\": [{\"name\": \"exec_command\", \"call_id\": \"call_rm\", \"arguments\": {\"cmd\": \"rm -rf $P/victim\", \"workdir\": \"$P\"}}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	assert_file_exist "$P/victim"
	run -0 ed_reqs session/request_permission
	assert_output ""
	run -0 ed_says
	assert_output --partial "blocked by policy no-destruction"
}

# bats test_tags=host
@test "acp 25. codex-acp: an ask reaches the editor, whose answer is relayed" {
	agent_grant
	codex_acp "[{\"calls\": [{\"name\": \"apply_patch\", \"call_id\": \"call_env\", \"input\": \"*** Begin Patch\\n*** Add File: $P/.env\\n+K=1\\n*** End Patch\\n\"}]},
	    {\"text\": \"finished\"}]"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 ed_reqs session/request_permission
	assert_output --partial '"toolCallId":"call_env"'
	run -0 cat "$P/.env"
	assert_output K=1
}

# bats test_tags=host
@test "acp 26. codex-acp: a killed relay leaves the editor with an error and no codex-acp running" {
	agent_grant
	acp_codex_install
	jq -nc '{delay_ms: 60000, turns: [{text: "slow"}]}' >"$T/script.json"
	codex_mock_start "$T/script.json"
	CODEX_HOME="$HOME/.codex"
	codex_config
	acp_spec
	CODEX_HOME="$CODEX_HOME" MOCK_API_KEY=sk-test OPENAI_API_KEY=sk-test \
	    acp_run "$ACP_CODEX" &
	local ed=$! i relay
	# the prompt is sent once the session is there; the mock holds the
	# model call (it logs a request only once answered)
	for ((i = 0; i < 300; i++)); do
		grep -q '"dir":"session"' "$T/editor.jsonl" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
	relay=$(pgrep -o -f "^$JH_HOME/bin/jh-acp .*$ACP_CODEX")
	run -0 pgrep -f "^$ACP_CODEX"
	kill -KILL "$relay"
	wait "$ed" || true
	run -0 jq -r 'select(.dir == "error") | .message' "$T/editor.jsonl"
	assert_output --partial "closed" || { cat "$T/editor.jsonl" "$T/editor.err" >&2; false; }
	for ((i = 0; i < 50; i++)); do
		pgrep -f "^$ACP_CODEX" >/dev/null || break
		sleep 0.1
	done
	run ! pgrep -f "^$ACP_CODEX"
	codex_mock_stop
}

# bats test_tags=host
@test "acp 27. codex-acp that is not set to ask runs commands it is not asked about: observed only, sealed as no-receipt" {
	agent_grant
	acp_codex_install
	jq -nc --arg p "$P" '{turns: [{calls: [{name: "exec_command", call_id: "call_quiet",
	    arguments: {cmd: ("touch " + $p + "/quiet"), workdir: $p}}]}, {text: "finished"}]}' >"$T/script.json"
	codex_mock_start "$T/script.json"
	CODEX_HOME="$HOME/.codex"
	codex_config
	acp_spec
	CODEX_HOME="$CODEX_HOME" MOCK_API_KEY=sk-test OPENAI_API_KEY=sk-test \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    acp_run "$ACP_CODEX"
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	# approval_policy "never": Codex asked nothing, and ran it
	assert_file_exist "$P/quiet"
	run -0 ed_reqs session/request_permission
	assert_output ""
	LOG=$(acp_log "$(jq -r 'select(.dir == "session") | .sessionId' "$ED_LOG")")
	run -0 sealed
	assert_output "$(printf 'result/1\tcall_quiet\tno-receipt\tBash')"
	run -0 grep "observed only (the agent did not ask): call_quiet" "$ED_ERR"
	codex_mock_stop
}

@test "acp 28. ids 5 and 5.0 are one id to the editor: the second is refused; an approval of a read never lets a write through" {
	fake_grant
	perm50=$(ask_perm 5 c2 "$LYING" | sed 's/"id":5,/"id":5.0,/')
	[[ $perm50 == *'"id":5.0,'* ]]
	steps "[$(tool_call c1 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=1\"}"),
	        $(tool_call c2 edit "{\"file_path\": \"$P/.env\", \"content\": \"K=evil\"}"),
	        $(ask_perm 5 c1 "$LYING"), $perm50, $(await 5), $(await 5),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=evil\"}}}, $(await 6)]"
	acp_spec fs=true
	fake_run
	[ "$ED_RC" -eq 0 ] || { acp_dump; false; }
	run -0 jq -c 'select(.dir == "req" and .method == "session/request_permission") | .params.toolCall.toolCallId' "$ED_LOG"
	assert_output '"c1"'
	run -0 jq -r 'select(.response.id == 6) | .response.error.message' "$AG_LOG"
	assert_output --partial "a human must approve secrets"
	[ ! -e "$P/.env" ] || [ "$(cat "$P/.env")" != K=evil ]
	# a read of .env approved, then a write of it: the approval is for a read
	rm -f "$P/.env"
	steps "[$(tool_call c3 read "{\"file_path\": \"$P/.env\"}"),
	        $(ask_perm 7 c3 "$LYING"), $(await 7),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"fs/write_text_file\", \"params\": {\"sessionId\": \"fake-1\", \"path\": \"$P/.env\", \"content\": \"K=evil\"}}}, $(await 8)]"
	fake_run
	run -0 jq -r 'select(.response.id == 8) | .response.error.message' "$AG_LOG"
	assert_output --partial "a human must approve secrets"
	[ ! -e "$P/.env" ]
	# a terminal's variable that feeds a program its options stays in the
	# line decided: TAR_OPTIONS may run a command, so it is never granted
	steps "[{\"send\": {\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"terminal/create\", \"params\": {\"sessionId\": \"fake-1\", \"command\": \"touch\", \"args\": [\"$P/made\"], \"env\": [{\"name\": \"TAR_OPTIONS\", \"value\": \"--checkpoint-action=exec=id\"}]}}}, $(await 9),
	        {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": \"terminal/create\", \"params\": {\"sessionId\": \"fake-1\", \"command\": \"touch\", \"args\": [\"$P/made\"], \"env\": [{\"name\": \"TERM\", \"value\": \"dumb\"}]}}}, $(await 10)]"
	acp_spec fs=true terminal=true
	fake_run
	run -0 jq -r 'select(.response.id == 9) | .response.error.code' "$AG_LOG"
	assert_output -32000
	run -0 jq -r 'select(.response.id == 10) | .response.result.terminalId' "$AG_LOG"
	assert_output term-1
}
