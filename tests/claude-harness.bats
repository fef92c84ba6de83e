#!/usr/bin/env bats
# The offline harness for the REAL Claude Code CLI (tests/helpers/claude.bash
# + tests/mock/anthropic-mock.py), and the facts about Claude Code 2.1.328
# that joulehook's end-to-end tests and installers rely on.  Each fact is
# stated in the comment above the test that shows it.
#
# Where npm cannot reach the registry, every test that needs the binary is
# skipped with "SKIPPED: cannot install Claude Code from npm: ..."; the
# mock's own test still runs.
#
# Summary of what 2.1.328 does (all in -p mode, --output-format json):
#  - a PreToolUse command hook that exits 0 with no output = no opinion;
#    with --allowedTools Bash the tool runs (a)
#  - exit 2 blocks; the model gets a tool_result with is_error:true and
#    content "PreToolUse:Bash hook error: [<command> <args...>]: <stderr>"
#    and the call is listed in the result's permission_denials (b)
#  - exec form works: {"type":"command","command":"/abs/or/PATH-name",
#    "args":["a b","$HOME"]}: argv passed verbatim, no shell (c)
#  - hooks of the tool calls of one assistant message: serial for mutating
#    Bash, concurrent for read-only Bash; the handlers of one event run
#    concurrently (d)
#  - X-Claude-Code-Session-Id == payload session_id == result session_id;
#    the response's request-id header lands in the transcript (e)
#  - --plugin-dir DIR loads a plugin in -p; CLAUDE_PLUGIN_ROOT = DIR made
#    absolute against the cwd, symlinks kept, no trailing slash; also
#    substituted in "command" and "args" (f); a directory marketplace via
#    settings or `claude plugin install` works too (g)
#  - the hook "timeout" is in seconds; a timed-out hook is killed with its
#    process group and the tool runs (fail-open) (h)
#  - a schema error in a PreToolUse handler silently drops the WHOLE
#    settings file in -p (fail-open); in another event only that entry (i)
#  - usage from the mock's message_start/message_delta is summed into the
#    result JSON's usage (j)

load test_helper/common
load helpers/claude

setup() {
	_common_setup
	W="$T/work"
	mkdir -p "$W"
	cd "$W"
}

teardown() {
	mock_stop
}

# script_bash CMD...: a one-turn script, one Bash tool_use per CMD (one
# assistant message; several = parallel calls).
script_bash() {
	local c
	for c in "$@"; do
		jq -nc --arg c "$c" '{name:"Bash",input:{command:$c,description:"scripted"}}'
	done | jq -sc '[{tool_use:.}]' >"$T/script.json"
}

# hook_script NAME EXIT [STDERR]: a sh hook that saves its stdin (payload),
# argv and environment to $T/hook.NAME.*, then exits EXIT.
hook_script() {
	local name=$1 code=$2 msg=${3:-}
	cat >"$T/$name.sh" <<-EOF
	#!/bin/sh
	cat >"$T/hook.$name.\$\$.json"
	{ echo "argc=\$#"; for a in "\$@"; do echo "arg=[\$a]"; done
	  echo "argv0=[\$0]"; echo "root=[\$CLAUDE_PLUGIN_ROOT]"
	  echo "data=[\$CLAUDE_PLUGIN_DATA]"; echo "project=[\$CLAUDE_PROJECT_DIR]"
	} >"$T/hook.$name.\$\$.env"
	[ -n "$msg" ] && echo "$msg" >&2
	exit $code
	EOF
	chmod +x "$T/$name.sh"
}

# settings_pre CMD [EXTRA-JSON]: settings with one PreToolUse Bash handler.
settings_pre() {
	local x=${2:-'{}'}
	jq -nc --arg c "$1" --argjson x "$x" \
	    '{hooks:{PreToolUse:[{matcher:"Bash",hooks:[{type:"command",command:$c}+$x]}]}}' \
	    >"$T/settings.json"
}

# The JSON body of the Nth model call (0-based).
nth_request() {
	mock_requests | sed -n "$(($1 + 1))p" | jq -c .body
}

@test "mock: SSE and JSON messages, errors, count_tokens, models, HEAD, redacted log" {
	cat >"$T/script.json" <<-'EOF'
	[{"text": "hello there", "tool_use": [{"name": "Bash", "input": {"command": "ls"}},
	                                      {"name": "Read", "input": {"file_path": "/x"}}],
	  "usage": {"input_tokens": 100, "cache_read_input_tokens": 7}},
	 {"error": {"status": 429, "type": "rate_limit_error", "message": "slow down",
	            "headers": {"retry-after": "3"}, "count": 1}, "text": "after"}]
	EOF
	mock_start "$T/script.json"
	: >"$MOCK_LOG" # drop mock_start's readiness probes
	run -0 curl -sI "$MOCK_URL/"
	assert_line --partial "200 OK"
	run -0 curl -sI "$MOCK_URL/api/hello"
	assert_line --partial "200 OK"
	# streaming: chunked, request-id, the event order, input_json_delta
	run -0 curl -sN -D "$T/h1" -H 'x-api-key: sk-secret' -H 'Authorization: Bearer tok-secret' \
	    "$MOCK_URL/v1/messages?beta=true" -d '{"stream":true,"messages":[{"role":"user","content":"hi"}]}'
	grep -qi '^transfer-encoding: chunked' "$T/h1"
	grep -qi '^request-id: req_' "$T/h1"
	assert_equal "$(grep '^event:' <<<"$output" | tr '\n' ' ')" "event: message_start event: ping event: content_block_start event: content_block_delta event: content_block_stop event: content_block_start event: content_block_delta event: content_block_stop event: content_block_start event: content_block_delta event: content_block_stop event: message_delta event: message_stop "
	run -0 sh -c "curl -sN '$MOCK_URL/v1/messages' -d '{\"stream\":true,\"messages\":[]}' | sed -n 's/^data: //p' | jq -sc '
	    [ (.[0].message.usage), ([.[]|select(.type==\"content_block_start\").content_block|.id//empty]),
	      ([.[]|select(.delta.type==\"input_json_delta\").delta.partial_json]|add),
	      (.[-2].delta.stop_reason), (.[-2].usage.output_tokens > 1), (.[0].message.id|startswith(\"msg_\")) ]'"
	assert_output --regexp '^\[\{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":7,"output_tokens":1,"service_tier":"standard"\},\["toolu_[0-9a-z]+","toolu_[0-9a-z]+"\],"\{\\"command\\":\\"ls\\"\}\{\\"file_path\\":\\"/x\\"\}","tool_use",true,true\]$'
	# non-streaming JSON; turn 1's error is served once (count 1), then its text
	run -0 curl -s -D "$T/h2" "$MOCK_URL/v1/messages" -d '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}'
	assert_output --partial '"type": "rate_limit_error", "message": "slow down"'
	grep -q '^HTTP/1.1 429' "$T/h2"
	grep -qi '^retry-after: 3' "$T/h2"
	run -0 curl -s "$MOCK_URL/v1/messages" -d '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}'
	run -0 jq -c '[.content, .stop_reason, (.id|startswith("msg_"))]' <<<"$output"
	assert_output '[[{"type":"text","text":"after"}],"end_turn",true]'
	# past the script: "done"
	run -0 curl -s "$MOCK_URL/v1/messages" -d '{"messages":[{"role":"assistant"},{"role":"assistant"}]}'
	assert_output --partial '"text": "done"'
	run -0 curl -s "$MOCK_URL/v1/messages/count_tokens?beta=true" -d '{"messages":[{"role":"user","content":"abcdefgh"}]}'
	assert_output --regexp '^\{"input_tokens": [0-9]+\}$'
	run -0 curl -s "$MOCK_URL/v1/models"
	assert_output --partial '"id": "claude-opus-5-5"'
	run -0 curl -s -o /dev/null -w '%{http_code}' "$MOCK_URL/nope"
	assert_output 404
	# the log: one line per request, secrets redacted, unique request ids
	run -0 jq -sc '[length, (map(.response.request_id)|unique|length),
	    (map(select(.headers["x-api-key"]))[0].headers|[."x-api-key",.Authorization])]' "$MOCK_LOG"
	assert_output '[10,10,["REDACTED","REDACTED"]]'
	run grep -c secret "$MOCK_LOG"
	assert_output 0
}

# (a) exit 0 + no output + --allowedTools Bash: the tool runs.  Payload keys
# as observed with Claude Code 2.1.328; tool_use_id is the mock's toolu_ id.
# bats test_tags=host
@test "(a) claude -p runs a scripted Bash call past a PreToolUse hook that exits 0" {
	claude_install
	script_bash "touch $W/ran && echo ORIGINAL"
	hook_script allow 0
	settings_pre "$T/allow.sh"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$W/ran"
	run -0 jq -r '[.type, .subtype, .result, .is_error] | @tsv' "$CLAUDE_OUT"
	assert_output $'result\tsuccess\tdone\tfalse'
	# the payload
	local p toolu
	p=$(cat "$T"/hook.allow.*.json)
	toolu=$(mock_requests | head -1 | jq -r '.response.tool_use_ids[0]')
	run -0 jq -r '[.hook_event_name, .tool_name, .tool_input.command, .tool_use_id, .cwd, .permission_mode] | @tsv' <<<"$p"
	assert_output "PreToolUse	Bash	touch $W/ran && echo ORIGINAL	$toolu	$W	default"
	# the tool's output went back to the model
	run -0 jq -c '.messages[-1].content[0] | [.type, .tool_use_id, .content]' <<<"$(nth_request 1)"
	assert_output "[\"tool_result\",\"$toolu\",\"ORIGINAL\"]"
}

# (b) exit 2 + stderr blocks.  The model sees, as the tool_result (is_error
# true): "PreToolUse:Bash hook error: [<command>]: <stderr>\n" -- the command
# as configured (exec form: command and args joined by single spaces), then
# the hook's stderr verbatim.  The result JSON lists the call in
# permission_denials; exit code of claude stays 0.
# bats test_tags=host
@test "(b) a PreToolUse hook exiting 2 blocks the call; its stderr reaches the model" {
	claude_install
	script_bash "touch $W/ran && echo ORIGINAL"
	hook_script block 2 "blocked by test gate"
	settings_pre "$T/block.sh"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	run -0 jq -c '.messages[-1].content[0] | [.type, .is_error, .content]' <<<"$(nth_request 1)"
	assert_output "[\"tool_result\",true,\"PreToolUse:Bash hook error: [$T/block.sh]: blocked by test gate\\n\"]"
	run -0 jq -c '[.permission_denials[] | [.tool_name, .tool_input.command]]' "$CLAUDE_OUT"
	assert_output "[[\"Bash\",\"touch $W/ran && echo ORIGINAL\"]]"
}

# (c) Exec form IS accepted by 2.1.328:
#   {"type":"command","command":"/path/hook","args":["first arg","$HOME",...]}
# argv is passed verbatim (no shell: "$HOME" and "; touch" stay literal,
# empty strings kept, spaces in the command path fine), the payload
# arrives on stdin as in shell form, and "command" without a slash is
# looked up in PATH ("sh" + ["-c", ...] works).  In the exit-2 message the
# label is command + args joined by spaces, unquoted.
# bats test_tags=host
@test "(c) exec-form hooks (command + args) get argv verbatim and the payload on stdin" {
	claude_install
	script_bash "touch $W/ran && echo ORIGINAL"
	mkdir -p "$T/sp ace"
	hook_script exec 2 "exec gate"
	mv "$T/exec.sh" "$T/sp ace/exec hook.sh"
	jq -nc --arg c "$T/sp ace/exec hook.sh" --arg inj "; touch $T/injected" \
	    '{hooks:{PreToolUse:[{matcher:"Bash",hooks:[{type:"command",command:$c,
	      args:["first arg","$HOME",$inj,""]}]}]}}' >"$T/settings.json"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	assert_file_not_exist "$T/injected"
	run -0 cat "$T"/hook.exec.*.env
	assert_line --index 0 "argc=4"
	assert_line --index 1 "arg=[first arg]"
	assert_line --index 2 'arg=[$HOME]'
	assert_line --index 3 "arg=[; touch $T/injected]"
	assert_line --index 4 "arg=[]"
	assert_line --index 5 "argv0=[$T/sp ace/exec hook.sh]"
	run -0 jq -r '.tool_input.command' "$T"/hook.exec.*.json
	assert_output "touch $W/ran && echo ORIGINAL"
	run -0 jq -r '.messages[-1].content[0].content' <<<"$(nth_request 1)"
	assert_output "PreToolUse:Bash hook error: [$T/sp ace/exec hook.sh first arg \$HOME ; touch $T/injected ]: exec gate"

	# PATH lookup of a bare command name
	mock_stop
	jq -nc '{hooks:{PreToolUse:[{matcher:"Bash",hooks:[{type:"command",command:"sh",
	    args:["-c","cat >/dev/null; echo via PATH >&2; exit 2"]}]}]}}' >"$T/settings.json"
	mock_start "$T/script.json" "$T/mock2.jsonl"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	assert_file_not_exist "$W/ran"
	run -0 jq -r '.messages[-1].content[0].content' <<<"$(nth_request 1)"
	assert_output "PreToolUse:Bash hook error: [sh -c cat >/dev/null; echo via PATH >&2; exit 2]: via PATH"
}

# (d) Two tool_use blocks in one assistant message: both get a hook call
# with their own tool_use_id and both results go back in ONE user message.
# Hook scheduling (sleep-1 hooks): for mutating Bash (touch) strictly
# serial -- hook1, tool1, hook2, tool2; for read-only Bash (ls, cat) the
# hooks of the two calls overlap, and two handlers on the same event also
# run concurrently (all 4 start before the first ends).
# bats test_tags=host
@test "(d) two tool_use blocks in one message: serial for mutating Bash, concurrent for read-only" {
	claude_install
	cat >"$T/slow.sh" <<-EOF
	#!/bin/sh
	id=\$(jq -r .tool_use_id)
	echo "start \$id \$1 \$(date +%s.%N)" >>"$T/conc.log"
	sleep 1
	echo "end \$id \$1 \$(date +%s.%N)" >>"$T/conc.log"
	EOF
	chmod +x "$T/slow.sh"
	settings_pre "$T/slow.sh A"
	script_bash "touch $W/p1 && echo P1" "touch $W/p2 && echo P2"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$W/p1"
	assert_file_exist "$W/p2"
	local ids
	ids=$(mock_requests | head -1 | jq -r '.response.tool_use_ids | join(" ")')
	run -0 awk '{print $1, $2}' "$T/conc.log"
	assert_output "start ${ids% *}
end ${ids% *}
start ${ids#* }
end ${ids#* }"
	run -0 jq -c '[.messages[-1].content[] | [.type, .tool_use_id, .content]]' <<<"$(nth_request 1)"
	assert_output "[[\"tool_result\",\"${ids% *}\",\"P1\"],[\"tool_result\",\"${ids#* }\",\"P2\"]]"

	# read-only calls, two handlers each
	mock_stop
	rm -f "$T/conc.log"
	jq -nc --arg a "$T/slow.sh A" --arg b "$T/slow.sh B" \
	    '{hooks:{PreToolUse:[{matcher:"Bash",hooks:[{type:"command",command:$a},{type:"command",command:$b}]}]}}' \
	    >"$T/settings.json"
	script_bash "ls $W" "cat $T/script.json"
	mock_start "$T/script.json" "$T/mock2.jsonl"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	run -0 awk '{print $1}' "$T/conc.log"
	assert_output "start
start
start
start
end
end
end
end"
}

# (e) Every model call carries X-Claude-Code-Session-Id = the hook payload's
# session_id = the result JSON's session_id.  The mock's per-response
# request-id header and msg_ id are what Claude Code stores in the
# transcript (transcript_path from the payload): "requestId" and
# message.id of each assistant entry.
# bats test_tags=host
@test "(e) X-Claude-Code-Session-Id equals the payload's session_id; request-id per response" {
	claude_install
	script_bash "echo hi"
	hook_script rec 0
	settings_pre "$T/rec.sh"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	local sid tp
	sid=$(jq -r .session_id "$T"/hook.rec.*.json)
	tp=$(jq -r .transcript_path "$T"/hook.rec.*.json)
	[[ "$sid" =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]]
	run -0 jq -r .session_id "$CLAUDE_OUT"
	assert_output "$sid"
	run -0 sh -c "jq -r '.headers[\"X-Claude-Code-Session-Id\"] // empty' '$MOCK_LOG' | sort -u"
	assert_output "$sid"
	# two model calls, distinct request ids, each recorded in the transcript
	run -0 sh -c "jq -r 'select(.method==\"POST\") | .response.request_id' '$MOCK_LOG' | sort -u | wc -l"
	assert_output 2
	local rid
	for rid in $(mock_requests | jq -r .response.request_id); do
		[[ "$rid" == req_* ]]
		grep -q "\"requestId\":\"$rid\"" "$tp"
	done
	for rid in $(mock_requests | jq -r .response.message_id); do
		grep -q "\"id\":\"$rid\"" "$tp"
	done
	# the headers Claude Code 2.1.328 was seen to send, the key
	# redacted in the log
	run -0 jq -r '.path, .headers["x-api-key"], .headers["anthropic-version"], .headers["x-app"], .headers["User-Agent"], .body.stream' <<<"$(mock_requests | head -1)"
	assert_output "/v1/messages?beta=true
REDACTED
2023-06-01
cli
claude-cli/2.1.328 (external, sdk-cli)
true"
}

# (f) `--plugin-dir DIR` loads DIR as a plugin for the session, -p included
# (no marketplace, no install, no trust prompt).  The plugin's
# hooks/hooks.json PreToolUse hooks gate Bash.  Its id is "<name>@inline".
# ${CLAUDE_PLUGIN_ROOT} (env var and substitution in "command" AND in exec
# "args") = DIR resolved against the cwd: absolute, trailing slash dropped,
# symlinks NOT resolved (a symlinked DIR stays the link's path).
# CLAUDE_PLUGIN_DATA = $HOME/.claude/plugins/data/<name>-inline (created).
# In the exit-2 message the label shows the command with
# ${CLAUDE_PLUGIN_ROOT} already expanded, and the message ends with
# "\n\nThis hook comes from the jh-probe@inline plugin."  Both forms run concurrently
# (handlers of one event), so both record before the block is decided.
# bats test_tags=host
@test "(f) --plugin-dir loads a plugin's hooks/hooks.json in -p; CLAUDE_PLUGIN_ROOT is that dir" {
	claude_install
	local P="$T/plugins/jh-probe"
	mkdir -p "$P/.claude-plugin" "$P/hooks"
	echo '{"name":"jh-probe","version":"0.0.1","description":"harness probe"}' \
	    >"$P/.claude-plugin/plugin.json"
	hook_script shellform 0
	hook_script execform 2 "plugin gate"
	mv "$T/shellform.sh" "$T/execform.sh" "$P/hooks/"
	cat >"$P/hooks/hooks.json" <<-'EOF'
	{"description": "probe", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/shellform.sh one"},
	  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/execform.sh",
	   "args": ["${CLAUDE_PLUGIN_ROOT}/x", "two"]}]}]}}
	EOF
	ln -s "$T/plugins" "$T/link"
	script_bash "touch $W/ran && echo ORIGINAL"
	mock_start "$T/script.json"
	# relative, through a symlink, with a trailing slash
	claude_run "do the task" --plugin-dir ../link/jh-probe/ --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	run -0 cat "$T"/hook.shellform.*.env
	assert_line --index 0 "argc=1"
	assert_line --index 1 "arg=[one]"
	assert_line --index 2 "argv0=[$T/link/jh-probe/hooks/shellform.sh]"
	assert_line --index 3 "root=[$T/link/jh-probe]"
	assert_line --index 4 "data=[$CLAUDE_HOME/.claude/plugins/data/jh-probe-inline]"
	assert_line --index 5 "project=[$W]"
	run -0 cat "$T"/hook.execform.*.env
	assert_line --index 1 "arg=[$T/link/jh-probe/x]"
	assert_line --index 2 "arg=[two]"
	assert_line --index 4 "root=[$T/link/jh-probe]"
	assert_dir_exist "$CLAUDE_HOME/.claude/plugins/data/jh-probe-inline"
	run -0 jq -r '.messages[-1].content[0].content' <<<"$(nth_request 1)"
	assert_output "PreToolUse:Bash hook error: [$T/link/jh-probe/hooks/execform.sh $T/link/jh-probe/x two]: plugin gate

This hook comes from the jh-probe@inline plugin."
	run -0 jq -r '.pluginUsage | keys[] | select(endswith("@inline"))' "$CLAUDE_HOME/.claude.json"
	assert_output "jh-probe@inline"
}

# (g) The other two ways to load a plugin from a local directory, both
# working in -p and offline:
#  1. settings only (e.g. --settings FILE, or ~/.claude/settings.json):
#     {"extraKnownMarketplaces":{"jh-local":{"source":{"source":"directory",
#       "path":"/abs/mkt"}}},"enabledPlugins":{"jh-probe@jh-local":true}}
#     where /abs/mkt/.claude-plugin/marketplace.json lists
#     {"name":"jh-probe","source":"./jh-probe"} -- no install step needed.
#  2. `claude plugin marketplace add /abs/mkt` + `claude plugin install
#     jh-probe@jh-local` (writes exactly the keys of 1. into
#     ~/.claude/settings.json, scope user, and copies the plugin into
#     ~/.claude/plugins/cache/jh-local/jh-probe/<version>).
# In both, CLAUDE_PLUGIN_ROOT is the plugin's directory INSIDE the
# marketplace source (not the cache copy) and CLAUDE_PLUGIN_DATA is
# ~/.claude/plugins/data/<name>-<marketplace>.
# bats test_tags=host
@test "(g) a local directory marketplace + enabledPlugins also loads the plugin in -p" {
	claude_install
	local M="$T/mkt" P="$T/mkt/jh-probe"
	mkdir -p "$M/.claude-plugin" "$P/.claude-plugin" "$P/hooks"
	echo '{"name":"jh-local","owner":{"name":"joulehook tests"},"plugins":[{"name":"jh-probe","source":"./jh-probe","description":"probe"}]}' \
	    >"$M/.claude-plugin/marketplace.json"
	echo '{"name":"jh-probe","version":"0.0.1"}' >"$P/.claude-plugin/plugin.json"
	hook_script mk 2 "marketplace gate"
	mv "$T/mk.sh" "$P/hooks/"
	echo '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/hooks/mk.sh"}]}]}}' \
	    >"$P/hooks/hooks.json"
	jq -nc --arg m "$M" '{extraKnownMarketplaces:{"jh-local":{source:{source:"directory",path:$m}}},
	    enabledPlugins:{"jh-probe@jh-local":true}}' >"$T/settings.json"
	script_bash "touch $W/ran && echo ORIGINAL"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	run -0 cat "$T"/hook.mk.*.env
	assert_line --index 2 "root=[$P]"
	assert_line --index 3 "data=[$CLAUDE_HOME/.claude/plugins/data/jh-probe-jh-local]"

	# 2. the CLI, in a fresh HOME
	rm -f "$T"/hook.mk.*
	CLAUDE_HOME="$T/home-cli"
	mkdir -p "$CLAUDE_HOME"
	run -0 env HOME="$CLAUDE_HOME" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    DISABLE_AUTOUPDATER=1 timeout 60 "$CLAUDE_BIN" plugin marketplace add "$M" </dev/null
	run -0 env HOME="$CLAUDE_HOME" DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    DISABLE_AUTOUPDATER=1 timeout 60 "$CLAUDE_BIN" plugin install jh-probe@jh-local </dev/null
	run -0 jq -c '[.enabledPlugins, .extraKnownMarketplaces["jh-local"].source]' "$CLAUDE_HOME/.claude/settings.json"
	assert_output "[{\"jh-probe@jh-local\":true},{\"source\":\"directory\",\"path\":\"$M\"}]"
	assert_dir_exist "$CLAUDE_HOME/.claude/plugins/cache/jh-local/jh-probe/0.0.1/hooks"
	claude_run "do the task" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	run -0 cat "$T"/hook.mk.*.env
	assert_line --index 2 "root=[$P]"
}

# (h) "timeout" is in SECONDS: with "timeout": 2 a hook that sleeps 1 s,
# writes a line, then sleeps 10 s gets its line written (so not ms) and is
# killed at ~2 s -- with its process group (its `sleep 10` child is gone
# too) -- and the tool RUNS (a timed-out hook = no decision, fail-open) even
# though the hook would have exited 2.
# bats test_tags=host
@test "(h) the hook timeout is in seconds; a timed-out hook is killed and the tool runs" {
	claude_install
	cat >"$T/slow.sh" <<-EOF
	#!/bin/sh
	cat >/dev/null
	echo "start \$(date +%s.%N)" >>"$T/to.log"
	sleep 1
	echo "after1s \$(date +%s.%N)" >>"$T/to.log"
	sleep 10.4242
	echo "end" >>"$T/to.log"
	echo "too late" >&2
	exit 2
	EOF
	chmod +x "$T/slow.sh"
	settings_pre "$T/slow.sh" '{"timeout":2}'
	script_bash "date +%s.%N >$W/ran"
	mock_start "$T/script.json"
	local t0=$SECONDS
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	[ $((SECONDS - t0)) -lt 10 ]
	assert_file_exist "$W/ran"
	run -0 awk '{print $1}' "$T/to.log"
	assert_output "start
after1s"
	# the tool ran about 2 s after the hook started
	run -0 awk -v s="$(awk '/^start/{print $2}' "$T/to.log")" '{d = $1 - s; print (d >= 1.8 && d < 8) ? "ok" : d}' "$W/ran"
	assert_output ok
	# the hook's `sleep 10.4242` child was killed with it
	run pgrep -fx "sleep 10.4242"
	assert_failure
}

# (i) Settings validation in -p is silent (only --debug-file shows
# "Invalid setting skipped without dialog (automated session): ...").
#  - a schema error in a PreToolUse (or PermissionRequest) handler, e.g.
#    "timeout":"2" or "args":"x", drops EVERYTHING in that settings file
#    ("nothing it sits in is applied"), including the valid deny hook next
#    to it: the tool runs -- fail-open.
#  - a schema error in another event's handler (PostToolUse) drops only
#    that entry ("entry ignored"): the PreToolUse hook still blocks.
#  - unknown keys in a handler are accepted.
# bats test_tags=host
@test "(i) an invalid PreToolUse handler silently disables the whole settings file in -p" {
	claude_install
	hook_script block 2 "blocked"
	script_bash "touch $W/ran && echo ORIGINAL"
	jq -nc --arg c "$T/block.sh" '{hooks:{PreToolUse:[
	    {matcher:"Bash",hooks:[{type:"command",command:$c}]},
	    {matcher:"Bash",hooks:[{type:"command",command:"true",timeout:"2"}]}]}}' >"$T/settings.json"
	mock_start "$T/script.json"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash --debug-file "$T/debug.txt"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$W/ran"
	run -0 grep -c "Invalid setting skipped without dialog (automated session): $T/settings.json: hooks.PreToolUse.1.hooks.0: Invalid command hook (timeout" "$T/debug.txt"
	run -0 grep -c "nothing it sits in is applied" "$T/debug.txt"
	[ ! -e "$T"/hook.block.*.json ]

	mock_stop
	rm -f "$W/ran"
	jq -nc --arg c "$T/block.sh" '{hooks:{
	    PreToolUse:[{matcher:"Bash",hooks:[{type:"command",command:$c,bogusKey:1}]}],
	    PostToolUse:[{matcher:"Bash",hooks:[{type:"command",command:"true",timeout:"2"}]}]}}' >"$T/settings.json"
	mock_start "$T/script.json" "$T/mock2.jsonl"
	claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash --debug-file "$T/debug2.txt"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$W/ran"
	run -0 grep -c "hooks.PostToolUse.0.hooks.0: Invalid command hook (timeout: Invalid input: expected number, received string); entry ignored" "$T/debug2.txt"
}

# (j) The mock's usage numbers are what Claude Code accounts: the result
# JSON's usage is the sum over the model calls of the scripted usage
# (input/cache fields from message_start, output_tokens from the
# cumulative message_delta).
# bats test_tags=host
@test "(j) scripted usage is summed into the result's usage" {
	claude_install
	jq -nc --arg c "echo hi" '[
	    {tool_use:[{name:"Bash",input:{command:$c}}],
	     usage:{input_tokens:100,cache_creation_input_tokens:7,cache_read_input_tokens:11,output_tokens:13}},
	    {text:"finished",
	     usage:{input_tokens:200,cache_creation_input_tokens:0,cache_read_input_tokens:30,output_tokens:5}}]' \
	    >"$T/script.json"
	mock_start "$T/script.json"
	claude_run "do the task" --allowedTools Bash
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	run -0 jq -c '[.result, .num_turns, .usage.input_tokens, .usage.cache_creation_input_tokens,
	    .usage.cache_read_input_tokens, .usage.output_tokens]' "$CLAUDE_OUT"
	assert_output '["finished",2,300,7,41,18]'
}
