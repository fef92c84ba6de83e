#!/usr/bin/env bats
# jh-normalize: Claude Code hook payloads to ActionEvents, and the reply
# stage that turns a chained decision receipt bound to the call into
# Claude Code's answer.

load test_helper/common

setup() {
	_common_setup
	FIX="$PROJECT_ROOT/tests/fixtures/claude-code"
}

norm() {
	jh-normalize -H claude-code "$@"
}

sha() {
	printf 'sha256:%s' "$(sha256sum | cut -c1-64)"
}

# The deny Claude Code gets, with reason R.
deny_of() {
	jq -cn --arg r "joulehook: $1" \
	    '{hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"deny",permissionDecisionReason:$r}}'
}

# --- forward: payloads to ActionEvents ---------------------------------

@test "PreToolUse Bash: tool, class, input, content_id of the command, tool_use_id, key order" {
	run -0 norm "$FIX/PreToolUse-Bash.json"
	assert_equal "${#lines[@]}" 1
	command=$(jq -r .tool_input.command "$FIX/PreToolUse-Bash.json")
	want=$(printf %s "$command" | sha)
	run jq -c '[.tool, .class, .content_id, .tool_use_id, .host, .event, .cwd, .session_id]' <<<"$output"
	assert_output "[\"Bash\",\"shell\",\"$want\",\"toolu_00_0\",\"claude-code\",\"PreToolUse\",\"/home/dev/project\",\"c6fdfddf-13dd-4a89-af32-dd539f6354a9\"]"
	run sh -c "jh-normalize -H claude-code '$FIX/PreToolUse-Bash.json' | jq -c '.input == \$p.tool_input' --argjson p \"\$(cat '$FIX/PreToolUse-Bash.json')\""
	assert_output true
	run sh -c "jh-normalize -H claude-code '$FIX/PreToolUse-Bash.json' | jq -c keys_unsorted"
	assert_output '["session_id","tool","input","cwd","content_id","host","event","class","tool_use_id","transcript_path","permission_mode","prompt_id","effort"]'
}

@test "PreToolUse Write: content_id is the digest of the content to be written" {
	run -0 norm "$FIX/PreToolUse-Write.json"
	want=$(jq -j .tool_input.content "$FIX/PreToolUse-Write.json" | sha)
	run jq -c '[.tool, .class, .content_id, .tool_use_id, .input]' <<<"$output"
	assert_output "[\"Write\",\"write\",\"$want\",\"toolu_01_0\",{\"file_path\":\"/home/dev/project/new.txt\",\"content\":\"new file\\n\"}]"
}

@test "PreToolUse Edit and Read: no content_id (jh-decide hashes the file after the path check)" {
	run -0 norm "$FIX/PreToolUse-Edit.json"
	run jq -c '[.tool, .class, .content_id, .tool_use_id, .input]' <<<"$output"
	assert_output '["Edit","edit",null,"toolu_03_0",{"file_path":"/home/dev/project/existing.txt","old_string":"alpha","new_string":"beta","replace_all":false}]'
	run -0 norm "$FIX/PreToolUse-Read.json"
	run jq -c '[.tool, .class, .content_id, .tool_use_id, .input]' <<<"$output"
	assert_output '["Read","read",null,"toolu_02_0",{"file_path":"/home/dev/project/existing.txt"}]'
}

@test "PreToolUse of an MCP tool: class mcp, content_id of server/tool, mcp_server kept" {
	run -0 norm "$FIX/PreToolUse-mcp__probe__write_note.json"
	want=$(printf %s probe/write_note | sha)
	run jq -c '[.tool, .class, .content_id, .tool_use_id, .input, .mcp_server]' <<<"$output"
	assert_output "[\"mcp__probe__write_note\",\"mcp\",\"$want\",\"toolu_00_0\",{\"text\":\"hello from mock\"},{\"name\":\"probe\",\"source\":\"dynamic\"}]"
}

@test "content_id by class: plugin MCP names, fetch URLs, and none where underivable" {
	p() {
		jq -cn --arg t "$1" --argjson i "$2" \
		    '{session_id:"s",hook_event_name:"PreToolUse",tool_name:$t,tool_input:$i,tool_use_id:"t",cwd:"/"}' |
		    norm | jq -r '[.class, .content_id // "null"] | join(" ")'
	}
	run p mcp__plugin_jh_receipts__verify '{}'
	assert_output "mcp $(printf %s plugin_jh_receipts/verify | sha)"
	run p mcp__noseparator '{}'
	assert_output "mcp null"
	run p mcp__srv__ '{}'
	assert_output "mcp null"
	run p mcp____tool '{}'
	assert_output "mcp null"
	run p WebFetch '{"url":"https://example.org/x","prompt":"p"}'
	assert_output "fetch $(printf %s https://example.org/x | sha)"
	run p WebSearch '{"query":"q"}'
	assert_output "fetch null"
	run p Bash '{"command":42}'
	assert_output "shell null"
	run p Write '{"file_path":"/x"}'
	assert_output "write null"
	run p Bash '{"command":"a\u0000b"}'
	assert_output "shell $(printf 'a\0b' | sha)"
	run p Bash '{"command":"été ✓"}'
	assert_output "shell $(printf %s 'été ✓' | sha)"
}

@test "the class of every Claude Code tool name" {
	local t c
	while read -r t c; do
		run sh -c "jq -cn --arg t '$t' '{session_id:\"s\",hook_event_name:\"PreToolUse\",tool_name:\$t,tool_input:{},tool_use_id:\"u\",cwd:\"/\"}' | jh-normalize -H claude-code | jq -r .class"
		assert_output "$c" || fail "tool $t"
	done <<-EOF
	Bash shell
	PowerShell shell
	Write write
	Edit edit
	MultiEdit edit
	NotebookEdit edit
	Read read
	Glob search
	Grep search
	LS search
	WebFetch fetch
	WebSearch fetch
	Agent agent
	Task agent
	mcp__github__create_issue mcp
	mcp__x mcp
	ToolSearch other
	Skill other
	Workflow other
	ScheduleWakeup other
	ListAgents other
	ReportFindings other
	TodoWrite other
	ExitPlanMode other
	TaskCreate other
	bash other
	Bashful other
	NoSuchTool other
	EOF
}

@test "PostToolUse keeps the response and duration; PermissionRequest has no tool_use_id" {
	run -0 norm "$FIX/PostToolUse-Bash.json"
	run jq -c '[.event, .tool, .class, .tool_use_id, .response, .duration_ms]' <<<"$output"
	assert_output '["PostToolUse","Bash","shell","toolu_00_0",{"stdout":"","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},53]'
	run -0 norm "$FIX/PermissionRequest-Bash-print-mode.json"
	run jq -c '[.event, .tool, .class, has("tool_use_id"), .permission_suggestions[1].mode, has("malformed")]' <<<"$output"
	assert_output '["PermissionRequest","Bash","shell",false,"acceptEdits",false]'
}

@test "Stop, SessionStart, SessionEnd and UserPromptSubmit normalize without tool fields" {
	run -0 norm "$FIX/Stop.json"
	assert_output '{"session_id":"c6fdfddf-13dd-4a89-af32-dd539f6354a9","cwd":"/home/dev/project","host":"claude-code","event":"Stop","transcript_path":"/home/dev/.claude/projects/-home-dev-project/c6fdfddf-13dd-4a89-af32-dd539f6354a9.jsonl","permission_mode":"default","prompt_id":"6d932f3c-1670-40f6-a17c-9cf9ff4d12ed","stop_hook_active":false,"effort":{"level":"medium"},"last_assistant_message":"done","background_tasks":[],"session_crons":[]}'
	run -0 norm "$FIX/SessionStart.json"
	assert_output '{"session_id":"c6fdfddf-13dd-4a89-af32-dd539f6354a9","cwd":"/home/dev/project","host":"claude-code","event":"SessionStart","transcript_path":"/home/dev/.claude/projects/-home-dev-project/c6fdfddf-13dd-4a89-af32-dd539f6354a9.jsonl","source":"startup"}'
	run -0 norm "$FIX/SessionEnd-print-mode.json"
	run jq -c '[.event, .reason, has("tool"), has("class"), has("content_id")]' <<<"$output"
	assert_output '["SessionEnd","other",false,false,false]'
	run -0 norm "$FIX/UserPromptSubmit.json"
	run jq -c '[.event, .prompt, .permission_mode]' <<<"$output"
	assert_output '["UserPromptSubmit","do the task","default"]'
}

@test "lossless: every captured field maps to a name; -n keeps unknown fields under native" {
	local f
	for f in "$FIX"/*.json; do
		# the status line's input is not a hook payload
		case $f in */statusLine-*) continue ;; esac
		run -0 jh-normalize -n -H claude-code "$f"
		run jq -c 'has("native"), has("malformed")' <<<"$output"
		assert_output $'false\nfalse' || fail "$f"
	done
	jq -c '. + {"future_field":{"a":1},"zz":"x"}' "$FIX/PreToolUse-Bash.json" >"$T/u.json"
	run -0 norm -n "$T/u.json"
	run jq -c '[.native, has("malformed"), .tool]' <<<"$output"
	assert_output '[{"future_field":{"a":1},"zz":"x"},false,"Bash"]'
	run -0 norm "$T/u.json"
	refute_output --partial future_field
	run -0 norm "$FIX/PreToolUse-Bash.json"
	assert_equal "$(norm "$T/u.json")" "$output"
}

@test "a stream of payloads, pretty-printed or back to back, over several files" {
	cat "$FIX/PreToolUse-Bash.json" "$FIX/Stop.json" >"$T/two.json"
	jq -c . "$FIX/SessionStart.json" | tr -d '\n' >"$T/one.json"
	run -0 sh -c "jh-normalize -H claude-code '$T/two.json' - '$T/one.json' <'$FIX/PreToolUse-Read.json' | jq -r .event"
	assert_output $'PreToolUse\nStop\nPreToolUse\nSessionStart'
	run -0 sh -c "printf '%s%s' \"\$(jq -c . '$FIX/Stop.json')\" \"\$(jq -c . '$FIX/Stop.json')\" | jh-normalize -H claude-code | wc -l"
	assert_output 2
	run -0 norm </dev/null
	assert_output ""
}

@test "input that is not JSON: a diagnostic, nothing written for it, exit 1" {
	run -1 --separate-stderr norm <<<'this is not json'
	assert_output ""
	[[ $stderr == *"jh-normalize: -: payload 1 (offset 0): not JSON"* ]]
	# what came before is still written; a bad payload whose end the
	# reader finds is passed over, one it cannot is the end
	{ jq -c . "$FIX/Stop.json"; echo '{"a":'; } >"$T/trunc.json"
	run -1 --separate-stderr norm "$T/trunc.json"
	assert_equal "$(jq -r .event <<<"$output")" Stop
	[[ $stderr == *"payload 2"*"ends inside a JSON value"* ]]
	{ jq -c . "$FIX/Stop.json"; echo '{"a":1,}'; jq -c . "$FIX/Stop.json"; } >"$T/bad.json"
	run -1 --separate-stderr norm "$T/bad.json"
	assert_equal "${#lines[@]}" 2
	run -1 --separate-stderr norm <<<'{"session_id":"s","session_id":"t","hook_event_name":"Stop"}'
	assert_output ""
	[[ $stderr == *"duplicate object key"* ]]
	# an input that cannot be opened, or read, is 2
	run -2 norm "$T/missing.json"
	assert_output --partial "missing.json"
	run -2 norm "$T"
	assert_output --partial "Is a directory"
}

@test "invalid UTF-8 is not JSON: nothing written, exit 1" {
	printf '{"session_id":"s\xff","hook_event_name":"Stop"}' >"$T/u8.json"
	run -1 --separate-stderr norm "$T/u8.json"
	assert_output ""
	[[ $stderr == *"not JSON"* ]]
}

@test "a 20 MB payload: a diagnostic, nothing written for it, the next payload still normalized" {
	{
		printf '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"u","cwd":"/","tool_input":{"file_path":"/x","content":"'
		head -c 20000000 /dev/zero | tr '\0' a
		printf '"}}\n'
		cat "$FIX/Stop.json"
	} >"$T/big.json"
	run -1 --separate-stderr norm "$T/big.json"
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jq -r .event <<<"$output")" Stop
	[[ $stderr == *"payload 1 (offset 0): payload longer than 16777216 bytes"* ]]
	# a payload just under the limit whose event, with content_id, would
	# be over it: the next stage would refuse the line, so none is written
	{
		printf '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"u","cwd":"/","tool_input":{"file_path":"/x","content":"'
		head -c 16777000 /dev/zero | tr '\0' a
		printf '"}}'
	} >"$T/edge.json"
	run -1 --separate-stderr norm "$T/edge.json"
	assert_output ""
	[[ $stderr == *"its event is longer than 16777216 bytes"* ]]
}

@test "valid JSON but not an object: a malformed event, exit 0" {
	run -0 norm <<<'[1,2] "x" 42 null'
	assert_equal "${#lines[@]}" 4
	for l in "${lines[@]}"; do
		assert_equal "$l" '{"host":"claude-code","malformed":"payload is not a JSON object"}'
	done
}

@test "missing fields and wrong types: the event with what could be taken, and malformed" {
	m() {
		jq -c "$1" "$FIX/PreToolUse-Bash.json" | norm | jq -c "$2"
	}
	run m 'del(.session_id)' '[.malformed, has("session_id"), .tool]'
	assert_output '["missing session_id",false,"Bash"]'
	run m 'del(.hook_event_name)' '[.malformed, has("event"), .tool]'
	assert_output '["missing hook_event_name",false,"Bash"]'
	run m '.session_id = 7' '[.malformed, has("session_id")]'
	assert_output '["session_id must be a string",false]'
	run m '.session_id = ""' '.malformed'
	assert_output '"session_id is empty"'
	run m '.session_id = "a\u0000b"' '.malformed'
	assert_output '"NUL in session_id"'
	run m '.tool_input = "echo hi"' '[.malformed, has("input"), .class, .content_id]'
	assert_output '["tool_input must be an object",false,"shell",null]'
	run m 'del(.tool_name)' '[.malformed, has("tool"), has("class"), .input.command]'
	assert_output '["missing tool_name",false,false,"echo hello > /home/dev/project/bash_out.txt"]'
	run m 'del(.tool_use_id)' '[.malformed, has("tool_use_id")]'
	assert_output '["missing tool_use_id",false]'
	run m '.tool_use_id = null' '.malformed'
	assert_output '"missing tool_use_id"'
	run m 'del(.cwd)' '.malformed'
	assert_output '"missing cwd"'
	# an extra field of an unexpected shape is not a reason to deny every
	# call: it is left out (kept under native with -n), not malformed
	run m '.duration_ms = -1' '[.malformed, has("duration_ms")]'
	assert_output '[null,false]'
	run m '.permission_mode = {}' '[.malformed, has("permission_mode")]'
	assert_output '[null,false]'
	run m '.agent_id = 5' '.malformed'
	assert_output '"agent_id must be a string"'
	# the first defect is named; a wrong type is kept under native with -n
	jq -c '.session_id = 7 | .tool_input = 1' "$FIX/PreToolUse-Bash.json" >"$T/w.json"
	run -0 norm -n "$T/w.json"
	run jq -c '[.malformed, .native]' <<<"$output"
	assert_output '["session_id must be a string",{"session_id":7,"tool_input":1}]'
	# a Stop needs no tool fields, a PostToolUse no tool_use_id
	run sh -c "jq -c 'del(.cwd)' '$FIX/Stop.json' | jh-normalize -H claude-code | jq -c 'has(\"malformed\")'"
	assert_output false
	run sh -c "jq -c 'del(.tool_use_id)' '$FIX/PostToolUse-Bash.json' | jh-normalize -H claude-code | jq -c 'has(\"malformed\")'"
	assert_output false
}

@test "NUL in a string: kept, and hashed as bytes; U+0000 in an id is malformed" {
	jq -c '.tool_input.command = "echo a\u0000b"' "$FIX/PreToolUse-Bash.json" >"$T/n.json"
	run -0 norm "$T/n.json"
	run jq -c '[.input.command == "echo a\u0000b", .content_id, has("malformed")]' <<<"$output"
	assert_output "[true,\"$(printf 'echo a\0b' | sha)\",false]"
	jq -c '.tool_use_id = "t\u0000x"' "$FIX/PreToolUse-Bash.json" >"$T/n2.json"
	run -0 norm "$T/n2.json"
	run jq -c .malformed <<<"$output"
	assert_output '"NUL in tool_use_id"'
}

@test "deep nesting: over 64 levels in tool_input is malformed and dropped; past the parser's limit, not JSON" {
	nest() {
		local n=$1
		printf '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"u","cwd":"/","tool_input":{"a":'
		printf '%*s' "$n" '' | tr ' ' '['
		printf '%*s' "$n" '' | tr ' ' ']'
		printf '}}\n'
	}
	nest 64 | norm >"$T/ok"
	run jq -c '[has("malformed"), has("input")]' "$T/ok"
	assert_output '[false,true]'
	run -0 sh -c "jq -c .input '$T/ok' | jh-seal -D"
	nest 65 | norm >"$T/deep"
	run -1 --separate-stderr sh -c "$(declare -f nest); nest 65 | jq -c .tool_input | jh-seal -D"
	[[ $stderr == *"nesting deeper than 64"* ]]
	run jq -c '[.malformed, has("input"), .content_id, .class]' "$T/deep"
	assert_output '["tool_input nested deeper than 64 levels",false,null,"shell"]'
	run -1 --separate-stderr sh -c "$(declare -f nest); nest 5000 | jh-normalize -H claude-code"
	assert_output ""
	[[ $stderr == *"not JSON"* ]]
}

@test "what jh-normalize writes for an input digests as the payload's tool_input" {
	jq -c '.tool_input = {"n":1,"f":1.0,"e":1e2,"b":true,"z":null,"s":"\u00e9"}' \
	    "$FIX/PreToolUse-Bash.json" >"$T/d.json"
	a=$(jq -c .tool_input "$T/d.json" | jh-seal -D | jq -r .digest)
	b=$(norm "$T/d.json" | jq -c .input | jh-seal -D | jq -r .digest)
	assert_equal "$a" "$b"
	# jq rewrites 1.0 as 1; the digest of the raw text is the reference
	a=$(printf '%s\n' '{"n":1,"f":1.0,"e":1e2,"b":true,"z":null,"s":"\u00e9"}' | jh-seal -D | jq -r .digest)
	printf '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"X","tool_use_id":"u","cwd":"/","tool_input":%s}' \
	    '{"n":1,"f":1.0,"e":1e2,"b":true,"z":null,"s":"\u00e9"}' >"$T/raw.json"
	norm "$T/raw.json" >"$T/ev"
	b=$(sed 's/.*"input":\({[^}]*}\).*/\1/' "$T/ev" | jh-seal -D | jq -r .digest)
	assert_equal "$a" "$b"
}

# cx PATCH: Codex's PreToolUse of apply_patch with the patch text PATCH
cx() {
	jq -cn --arg p "$1" '{session_id: "cx1", cwd: "/p", hook_event_name: "PreToolUse",
	    tool_name: "apply_patch", tool_input: {command: $p}, tool_use_id: "call_1",
	    transcript_path: null, model: "gpt-5", permission_mode: "default", turn_id: "t1"}' |
	    jh-normalize -H codex
}

@test "apply_patch: a header behind any blank a host trims is a file; a name with a blank at an end is malformed" {
	# Codex trims a line with Rust's char::is_whitespace before it matches
	for b in $'\v' $'\f' $'\r' $'\xc2\xa0' $'\xe3\x80\x80' $'\xe2\x80\xa8' $'\xef\xbb\xbf' ' ' $'\t'; do
		run -0 cx "*** Begin Patch"$'\n'"*** Add File: a.txt"$'\n'"+x"$'\n'"$b*** Add File: /h/.bashrc"$'\n'"+y"$'\n'"*** End Patch"$'\n'
		run jq -c '[.input.paths, .malformed]' <<<"$output"
		assert_output '[["a.txt","/h/.bashrc"],null]'
	done
	# OpenCode takes the name after the colon trimmed (JavaScript's trim)
	for b in ' ' $'\xc2\xa0' $'\xe3\x80\x80'; do
		jq -cn --arg p "*** Begin Patch"$'\n'"*** Update File: $b/h/.config/opencode/opencode.json"$'\n'"@@"$'\n'"-{}"$'\n'"+{}"$'\n'"*** End Patch" \
		    '{hook_event_name: "tool.execute.before", session_id: "ses_1", tool_call_id: "c1",
		      tool: "apply_patch", args: {patchText: $p}, cwd: "/p"}' >"$T/oc.json"
		run -0 jh-normalize -H opencode "$T/oc.json"
		run jq -r '.malformed' <<<"$output"
		assert_output --partial 'starts with a blank'
	done
	run -0 cx "*** Begin Patch"$'\n'"*** Add File: /h/.claude.json"$'\xc2\xa0'$'\n'"+{}"$'\n'"*** End Patch"$'\n'
	run jq -r '.malformed' <<<"$output"
	assert_output --partial 'ends with a blank'
	# Cline's apply_patch, its patch as input.input or as the bare input
	for in in '{input: $p}' '$p'; do
		jq -nc --arg p "*** Begin Patch"$'\n'"*** Add File: a.txt"$'\n'"+x"$'\n'"*** Update File: /h/b"$'\n'"@@"$'\n'"-y"$'\n'"+z"$'\n'"*** End Patch" \
		    "{taskId: \"t1\", hookName: \"tool_call\", workspaceRoots: [\"/p\"],
		      tool_call: {id: \"c1\", name: \"apply_patch\", input: $in}}" >"$T/cl.json"
		run -0 jh-normalize -H cline "$T/cl.json"
		run jq -c '[.class, .input.paths, .malformed]' <<<"$output"
		assert_output '["edit",["a.txt","/h/b"],null]'
	done
	# trailing spaces and tabs are still no part of the name
	run -0 cx "*** Begin Patch"$'\n'"*** Add File: a.txt "$'\t'$'\n'"+x"$'\n'"*** End Patch"$'\n'
	run jq -c '[.input.paths, .malformed]' <<<"$output"
	assert_output '[["a.txt"],null]'
}

@test "usage: -h, a missing or unknown host, options of the other mode" {
	run -0 jh-normalize -h
	assert_line --index 0 'usage: jh-normalize -H host [-n] [file ...]'
	run -2 jh-normalize
	assert_output --partial "-H host is required"
	run -2 jh-normalize -H vscode
	assert_output --partial "unknown host vscode (known: claude-code, gemini-cli, codex, cline, cursor, windsurf, antigravity, opencode, acp)"
	run -2 jh-normalize -H claude-code -A
	assert_output --partial "belong to -r"
	run -2 jh-normalize -H claude-code -x
	assert_output --partial "unknown option -x"
}

# --- reply: a chained receipt to Claude Code's answer ------------------

# The deny, on stdout as JSON and on stderr as text: the reason, then
# the advice (what to do about it: jh-normalize(1)).
assert_deny() {
	local r
	r=$(printf '%s' "$output" | jq -r '.hookSpecificOutput.permissionDecisionReason')
	assert_equal "$(printf '%s' "$output" | jq -c '.hookSpecificOutput | del(.permissionDecisionReason)')" \
	    '{"hookEventName":"PreToolUse","permissionDecision":"deny"}'
	[[ "$r" == "joulehook: $1"* ]] || fail "reason '$r' does not start with 'joulehook: $1'"
	[[ "$r" == *"tell the user"* ]] || fail "reason '$r' gives no advice"
	assert_equal "$stderr" "$r"
}

# A chain/1 entry from the real pieces: a Decision (adjusted by the jq
# filter $2) sealed and chained.
entry() {
	decision_json "${1:-allow}" | jq -c "${2:-.}" | jh-seal | jh-chain
}

reply() {
	jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$DIG" "$@"
}

setup_reply() {
	jh_keys
	DIG=$(echo '{"command":"npm test"}' | jh-seal -D | jq -r .digest)
}

@test "reply: allow is no opinion (exit 0, nothing written); -A makes it Claude Code's allow" {
	setup_reply
	entry allow >"$T/e"
	run -0 --separate-stderr reply <"$T/e"
	assert_output ""
	assert_equal "$stderr" ""
	run -0 reply -A <"$T/e"
	assert_output '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"joulehook: granted"}}'
}

@test "reply: a deny is the deny JSON, the reason on stderr, exit 2" {
	setup_reply
	entry deny '.code="no-grant" | .reason="no grant covers Bash"' >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_deny 'no grant covers Bash'
	assert_equal "$stderr" "joulehook: no grant covers Bash. Do not retry this or try another way to do the same thing; tell the user what was blocked and why."
}

@test "reply: a deny or an ask the grant could cover says the jh-grant line that covers it" {
	setup_reply
	entry deny '.code="not-granted" | .reason="not in your grant: net example.com (curl)" | .hint="effect=net program=curl host=example.com"' >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_deny 'not in your grant: net example.com (curl). The user can grant it with: jh-grant add effect=net program=curl host=example.com. Do not retry'
	entry ask '.debited_uj=0 | .code="not-granted" | .rule="otherwise" | .reason="not in your grant: net example.com (curl)" | .hint="effect=net program=curl"' >"$T/e"
	run -0 reply <"$T/e"
	assert_output '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"joulehook: not in your grant: net example.com (curl). To allow it from now on: jh-grant add effect=net program=curl"},"systemMessage":"joulehook: not in your grant: net example.com (curl). To allow it from now on: jh-grant add effect=net program=curl"}'
	# a line the gate cannot read: write it plainly, never "do not retry"
	entry deny '.code="unprovable-command" | .reason="cannot tell what this command line does (eval is not supported)"' >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_equal "$stderr" "joulehook: cannot tell what this command line does (eval is not supported). Write it as plain commands whose effects can be read, or tell the user and let them run it."
}

# An ask also carries the reason as a systemMessage: Claude Code's REPL
# shows no hook reason in its Write, Edit and Read dialogs, and prints a
# systemMessage for every tool (tests/claude-session.bats).
@test "reply: ask is Claude Code's ask, exit 0" {
	setup_reply
	entry ask '.debited_uj=0 | .code="policy-ask" | .reason="tests/** writes run as code"' >"$T/e"
	run -0 --separate-stderr reply <"$T/e"
	assert_output '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"joulehook: tests/** writes run as code"},"systemMessage":"joulehook: tests/** writes run as code"}'
	assert_equal "$stderr" ""
}

@test "reply: a rewrite is updatedInput alone (with -A also allow), the object sealed" {
	setup_reply
	entry rewrite '.code="policy-rewrite" | .reason="token redacted" | .updated_input={"command":"npm test","env":{"N":1.5,"T":"$GITHUB_TOKEN"}}' >"$T/e"
	run -0 reply <"$T/e"
	assert_output '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"npm test","env":{"N":1.5,"T":"$GITHUB_TOKEN"}}}}'
	run jq -c '.hookSpecificOutput.updatedInput == {"command":"npm test","env":{"N":1.5,"T":"$GITHUB_TOKEN"}}' <<<"$output"
	assert_output true
	run -0 reply -A <"$T/e"
	assert_output '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"joulehook: token redacted","updatedInput":{"command":"npm test","env":{"N":1.5,"T":"$GITHUB_TOKEN"}}}}'
}

@test "reply: empty input, garbage, truncated entries and two entries are denied" {
	setup_reply
	run -2 --separate-stderr reply </dev/null
	assert_deny 'no receipt: the input is empty (a stage before the reply failed)'
	assert_equal "$stderr" "joulehook: no receipt: the input is empty (a stage before the reply failed) (joulehook failed closed, so the call is blocked; tell the user)."
	run -2 --separate-stderr reply <<<'{"verdict":"allow"}'
	assert_output --partial '"permissionDecision":"deny","permissionDecisionReason":"joulehook: '
	entry allow >"$T/e"
	head -c 100 "$T/e" >"$T/trunc"
	run -2 --separate-stderr reply <"$T/trunc"
	assert_output --partial '"permissionDecisionReason":"joulehook: no receipt: the input is truncated'
	{ entry allow; entry allow; } >"$T/two"
	run -2 --separate-stderr reply <"$T/two"
	assert_deny 'the input holds more than one item; the reply answers exactly one chained receipt'
	{ cat "$T/e"; printf x; } >"$T/trail"
	run -2 --separate-stderr reply <"$T/trail"
	assert_deny 'the input holds more than one item; the reply answers exactly one chained receipt'
}

@test "reply: a bare decision/1 straight from jh-seal is denied" {
	setup_reply
	decision_json allow | jh-seal >"$T/bare"
	run -2 --separate-stderr reply <"$T/bare"
	assert_deny 'a bare decision/1, not a chain/1 entry: the receipt was never chained'
}

@test "reply: a valid entry of another call, session or input is denied" {
	setup_reply
	entry allow '.tool_use_id="toolu_02"' >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_deny 'the receipt is for another tool call (tool_use_id)'
	entry allow >"$T/e"
	run -2 --separate-stderr jh-normalize -H claude-code -r -i s2 -u toolu_01 -D "$DIG" <"$T/e"
	assert_deny 'the receipt is for another session'
	other=$(echo '{"command":"rm -rf /"}' | jh-seal -D | jq -r .digest)
	run -2 --separate-stderr jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$other" <"$T/e"
	assert_deny 'the receipt is for another input (input_digest)'
	entry allow '.session_id="s2"' >"$T/e2"
	run -2 --separate-stderr reply <"$T/e2"
	assert_deny 'the receipt is for another session'
	entry allow '.event="PostToolUse"' >"$T/e3"
	run -2 --separate-stderr reply <"$T/e3"
	assert_deny 'the receipt is not a decision on a claude-code PreToolUse'
}

@test "reply: a stale receipt or entry is denied; -d sets the limit" {
	setup_reply
	now=$(($(date +%s) * 1000))
	# sealed a minute ago, chained now
	decision_json allow | JH_NOW=$((now - 60000)) jh-seal | jh-chain -l "$T/l1" >"$T/old"
	run -2 --separate-stderr reply <"$T/old"
	assert_output --regexp '^\{"hookSpecificOutput":\{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"joulehook: the receipt is stale: its ts is [0-9]+ ms from now, more than 30000 \(joulehook failed closed, so the call is blocked; tell the user\)\."\}\}$'
	run -0 reply -d 120000 <"$T/old"
	assert_output ""
	# a fresh receipt in an entry chained long ago
	decision_json allow | JH_NOW=$now jh-seal | JH_NOW=$((now - 1000000)) jh-chain -l "$T/l2" >"$T/e"
	run -2 --separate-stderr env JH_NOW=$now jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$DIG" <"$T/e"
	assert_deny 'the receipt is stale: its ts is 1000000 ms from now, more than 30000'
	run -0 env JH_NOW=$((now - 1000000 + 30000)) jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$DIG" -d 1000000 <"$T/e"
	run -2 --separate-stderr env JH_NOW=$((now - 1000000 + 30000)) jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$DIG" <"$T/e"
	assert_deny 'the receipt is stale: its ts is 970000 ms from now, more than 30000'
	# a receipt from the future is no better
	decision_json allow | JH_NOW=$((now + 60000)) jh-seal | JH_NOW=$now jh-chain -l "$T/l4" >"$T/f"
	run -2 --separate-stderr env JH_NOW=$now jh-normalize -H claude-code -r -i s1 -u toolu_01 -D "$DIG" <"$T/f"
	assert_deny 'the receipt is stale: its ts is 60000 ms from now, more than 30000'
}

@test "reply: an entry signed by a key not in stewards, or tampered with, is denied" {
	setup_reply
	mkdir "$T/o"
	jh-seal -G -k "$T/o/k"
	decision_json allow | jh-seal -k "$T/o/k" | jh-chain -k "$T/o/k" -l "$T/o/log" >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_output --partial '"permissionDecisionReason":"joulehook: the receipt does not verify: untrusted kid did:key:z6Mk'
	# our entry around another key's receipt
	decision_json allow | jh-seal -k "$T/o/k" | jh-chain -s "$T/o/k.pub" -l "$T/o/log2" >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_output --partial '"permissionDecisionReason":"joulehook: the chained receipt does not verify: untrusted kid'
	# issuer keys sign no receipts
	cat "$JH_HOME/issuer.key.pub" >"$T/s"
	entry allow >"$T/e"
	run -2 --separate-stderr reply -s "$T/s" <"$T/e"
	assert_output --partial 'the receipt does not verify: untrusted kid'
	run -0 reply -s "$JH_HOME/stewards" <"$T/e"
	n=$(stat -c %s "$T/e")
	cp "$T/e" "$T/x"
	flip_byte "$T/x" $((n - 10))
	run -2 --separate-stderr reply <"$T/x"
	assert_output --partial '"permissionDecisionReason":"joulehook: the receipt does not verify'
	rm "$JH_HOME/stewards"
	run -2 --separate-stderr reply <"$T/e"
	assert_output --partial 'cannot load the stewards list'
}

@test "reply: a chained receipt that is not a decision/1 is denied" {
	setup_reply
	echo '{"kind":"efficiency/1","session":"s1","unit":"msg_1","source":"proxy","tokens_in":10,"tokens_out":20,"tokens_cache_read":0,"tokens_cache_write":0,"accepted_tokens":20,"coeff":"c","duration_ms":5,"completed":1,"verdict":"ok","enforced":1,"debited_uj":42,"energy":{"estimated_uj":42,"provenance":"Estimator"}}' |
	    jh-seal | jh-chain >"$T/e"
	run -2 --separate-stderr reply <"$T/e"
	assert_deny 'the chained receipt is of kind efficiency/1, not decision/1'
}

@test "reply: usage errors are still answered with the deny JSON and exit 2" {
	setup_reply
	entry allow >"$T/e"
	run -2 --separate-stderr jh-normalize -H claude-code -r -i s1 -u toolu_01 <"$T/e"
	assert_deny 'usage: -r needs -i session, -u tool_use_id and -D input_digest'
	run -2 --separate-stderr reply -x <"$T/e"
	assert_deny 'usage: unknown option -x'
	run -2 --separate-stderr reply -d soon <"$T/e"
	assert_deny 'usage: -d soon: not a number of milliseconds'
	run -2 --separate-stderr reply -h <"$T/e"
	assert_deny 'usage: -h with -r'
	run -2 --separate-stderr reply -n <"$T/e"
	assert_deny 'usage: -n with -r'
	run -2 --separate-stderr reply file <"$T/e"
	assert_deny 'usage: -r reads the standard input only'
	run -2 --separate-stderr jh-normalize -r -i s1 -u toolu_01 -D "$DIG" <"$T/e"
	refute_output --partial hookSpecificOutput
	run -2 --separate-stderr jh-normalize -r -H nohost -i s1 -u toolu_01 -D "$DIG" <"$T/e"
	refute_output --partial hookSpecificOutput
}

@test "the whole gate: normalize, decide (jq), seal, chain, reply" {
	setup_reply
	p="$FIX/PreToolUse-Bash.json"
	dig=$(jq -c .tool_input "$p" | jh-seal -D | jq -r .digest)
	gate() {
		jh-normalize -H claude-code "$p" |
		    jq -c --arg v "$1" '{kind:"decision/1", session_id, tool, input, cwd, content_id, host, event, class, tool_use_id, verdict:$v, code:"ok", reason:"r", cost_uj:0, debited_uj:0, provenance:"Estimator", remaining_uj:0}' |
		    jh-seal | jh-chain |
		    jh-normalize -H claude-code -r -i "$(jq -r .session_id "$p")" -u "$(jq -r .tool_use_id "$p")" -D "$dig"
	}
	run -0 gate allow
	assert_output ""
	run -2 --separate-stderr gate deny
	assert_deny r
}

# An adapter reads a tool's arguments as the host's tool does, or refuses
# them: a decoy key the model adds never stands in for what runs.
@test "Cline: run_commands, read_files and fetch_web_content are read in the shape Cline runs, other shapes refused" {
	cl() { # TOOL INPUT-JSON: the event's input and defect, one line
		jq -nc --arg n "$1" --argjson i "$2" '{taskId: "c1",
		    workspaceRoots: ["/p"], hookName: "tool_call",
		    tool_call: {id: "t1", name: $n, input: $i}}' |
		    jh-normalize -H cline | jq -c '[.input.command // .input.paths // .input.url, .malformed]'
	}
	run -0 cl run_commands '{"commands":"touch /tmp/x","command":"git status"}'
	assert_output '["touch /tmp/x",null]'
	run -0 cl run_commands '{"command":"ls src"}'
	assert_output '["ls src",null]'
	# each runs in a shell of its own: a subshell each
	run -0 cl run_commands '{"commands":["ls","pwd"],"command":"git status"}'
	assert_output $'["(\\nls\\n)\\n(\\npwd\\n)\\n",null]'
	for in in '{"command":"cat","args":["/etc/shadow"]}' \
	    '{"commands":{"command":"touch","args":["/tmp/x"]},"command":"git status"}' \
	    '{"commands":[{"command":"touch","args":["/tmp/x"]}]}' '{"commands":7}' '{}'; do
		run -0 cl run_commands "$in"
		run -0 jq -r '.[1]' <<<"$output"
		[ "$output" != null ]
	done
	run -0 cl read_files '{"files":[{"path":"/p/a"},"/p/b"]}'
	assert_output '[["/p/a","/p/b"],null]'
	# Cline reads a relative one from its process's directory
	run -0 cl read_files '{"files":[{"path":".aws/credentials"}]}'
	assert_output --partial 'relative path'
	for in in '{"filePath":"/etc/shadow","paths":["a"]}' \
	    '{"file_paths":["/etc/shadow"],"paths":["a"]}' '{"files":["a"],"path":"/etc/shadow"}'; do
		run -0 cl read_files "$in"
		assert_output --partial 'more than one key'
	done
	run -0 cl fetch_web_content '{"url":"https://docs.example.com/a","requests":[{"url":"https://evil.example.net/x","prompt":"p"}]}'
	assert_output '["https://evil.example.net/x",null]'
	run -0 cl fetch_web_content '{"requests":[{"url":"https://a.example/","prompt":"p"},{"url":"https://b.example/","prompt":"p"}]}'
	assert_output --partial 'one URL a call'
}

@test "Gemini CLI: web_fetch is the URL its prompt names, and read_many_files' patterns are the trees of their prefixes" {
	mkdir -p "$T/w/src/deep"
	gm() { # TOOL INPUT-JSON
		jq -nc --arg t "$1" --argjson i "$2" --arg cwd "$T/w" '{session_id: "g1",
		    hook_event_name: "BeforeTool", tool_name: $t, tool_input: $i, cwd: $cwd}' |
		    jh-normalize -H gemini-cli | jq -c '[.input.url // .input.paths, .malformed]'
	}
	# the whole piece, as Gemini CLI fetches it: a full stop after it too
	run -0 gm web_fetch '{"prompt":"Summarize https://docs.example.com/a."}'
	assert_output '["https://docs.example.com/a.",null]'
	run -0 gm web_fetch '{"url":"https://docs.example.com/a","prompt":"Summarize https://evil.example.net/x?d=1"}'
	assert_output --partial 'more than one URL'
	run -0 gm web_fetch '{"prompt":"no address"}'
	assert_output --partial 'names no URL'
	# the prompt is split at white space as JavaScript's \s splits it,
	# and each piece is the URL new URL() reads: its host after a [ or a
	# quote is evil.example's
	run -0 gm web_fetch '{"prompt":"Summarize https://localhost[@evil.example/leak?k=1"}'
	assert_output '["https://localhost[@evil.example/leak?k=1",null]'
	run -0 gm web_fetch '{"prompt":"Summarize https://localhost'"'"'@evil.example/leak"}'
	assert_output --partial '@evil.example/leak'
	for sp in '\u00a0' '\f' '\u3000' '\u2028'; do
		run -0 gm web_fetch "{\"prompt\":\"Summarize https://localhost/a${sp}https://evil.example/x\"}"
		assert_output --partial 'more than one URL'
	done
	run -0 gm web_fetch '{"prompt":"see xhttps://evil.example/x"}'
	assert_output --partial 'more than one URL'
	run -0 gm read_many_files '{"include":["src/deep/**/*.ts","README.md","**/.en?","SRC/**","/etc/*.conf"]}'
	assert_output '[["src/deep","README.md",".",".","/etc"],null]'
	run -0 gm read_many_files '{"include":["src/**/*.{ts,tsx}"]}'
	assert_output '[["src"],null]'
	# the tool's glob walks a '..' after a wildcard, and a bracket or a
	# brace can spell one: src/{..,x}/.env is the project's .env
	for p in 'src/{..,x}/.env' 'src/*/../../.env' 'src/[.][.]/.env' \
	    'src/{.,x}{.,y}/.claude/settings.json' 'src/deep/*/../../../.ssh/id_rsa'; do
		run -0 gm read_many_files "$(jq -nc --arg p "$p" '{include: ["README.md", $p]}')"
		assert_output --partial 'may climb out of its directory'
	done
}

@test "ACP: every path a call's input names is a target, and a search names one" {
	acp() { # TOOL-CALL-JSON
		jq -nc --argjson t "$1" '{hook_event_name: "PreToolUse", session_id: "a1", cwd: "/p",
		    acp_method: "session/request_permission", tool_call: $t}' |
		    jh-normalize -H acp | jq -c '[.tool, (.input.paths // .input.path // .input.file_path), .malformed]'
	}
	run -0 acp '{"toolCallId":"m1","kind":"move","status":"pending","title":"mv","locations":[{"path":"/p/a.txt"}],"rawInput":{"source":"/p/a.txt","target":"/p/.claude/settings.json"}}'
	assert_output --partial '/p/.claude/settings.json'
	run -0 acp '{"toolCallId":"m2","kind":"move","status":"pending","title":"mv","locations":[{"path":"/p/a.txt"}],"rawInput":{"from":"a.txt","to":".mcp.json"}}'
	assert_output --partial '.mcp.json'
	run -0 acp '{"toolCallId":"e1","kind":"edit","status":"pending","title":"e","locations":[{"path":"/p/a.txt"}],"rawInput":{"filePath":"/p/.mcp.json","oldString":"a","newString":"b"}}'
	assert_output --partial '/p/.mcp.json'
	run -0 acp '{"toolCallId":"r1","kind":"read","status":"pending","title":"r","locations":[{"path":"/p/Makefile"}],"rawInput":{"absolute_path":"/home/u/.ssh/id_rsa"}}'
	assert_output --partial '/home/u/.ssh/id_rsa'
	# a tool of no class of its own may not say it edits
	run -0 acp '{"toolCallId":"t1","kind":"edit","status":"pending","title":"TodoWrite","rawInput":{"file_path":"/home/u/.bashrc","content":"x"},"_meta":{"claudeCode":{"toolName":"TodoWrite"}}}'
	assert_output --partial 'the tool call says it is TodoWrite, of kind edit'
	# a search checks one path: two that differ make the call malformed
	run -0 acp '{"toolCallId":"s1","kind":"search","status":"pending","title":"grep","locations":[{"path":"/p"},{"path":"/home/u/.ssh"}],"rawInput":{"pattern":"x"}}'
	assert_output --partial 'more than one path'
	run -0 acp '{"toolCallId":"s2","kind":"search","status":"pending","title":"grep","locations":[{"path":"/p"}],"rawInput":{"pattern":"x","path":"/home/u/.ssh"}}'
	assert_output --partial 'more than one path'
	run -0 acp '{"toolCallId":"s3","kind":"search","status":"pending","title":"grep","locations":[{"path":"/p/src"}],"rawInput":{"pattern":"x","path":"/p/src"}}'
	assert_output '["Grep","/p/src",null]'
}

# A directory is where the host runs a command only under the key the
# host's tool reads: Gemini's shell reads dir_path and ignores a workdir
# the model adds; an ACP agent's exec and an editor's terminal run in
# their own cwd, which the gate must follow.
@test "a workdir is the host's own: a decoy one is dropped, an ACP exec's or terminal's cwd is followed" {
	run -0 jh-normalize -H gemini-cli <<<'{"session_id":"g1","transcript_path":"/x","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","workdir":"/tmp"}}'
	run -0 jq -c '[.workdir, .input]' <<<"$output"
	assert_output '[null,{"command":"ls"}]'
	run -0 jh-normalize -H gemini-cli <<<'{"session_id":"g1","transcript_path":"/x","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"/p/sub","workdir":"/tmp"}}'
	run -0 jq -c '[.workdir, .input]' <<<"$output"
	assert_output '["/p/sub",{"command":"ls","workdir":"/p/sub"}]'
	run -0 jh-normalize -H acp <<<'{"hook_event_name":"PreToolUse","session_id":"a1","cwd":"/p","acp_method":"terminal/create","params":{"sessionId":"a1","command":"sh","args":["-c","echo x >> .bashrc"],"cwd":"/root"}}'
	run -0 jq -r .workdir <<<"$output"
	assert_output /root
	run -0 jh-normalize -H acp <<<'{"hook_event_name":"PreToolUse","session_id":"a1","cwd":"/p","acp_method":"session/request_permission","tool_call":{"toolCallId":"x","kind":"execute","status":"pending","title":"x","rawInput":{"call_id":"c","command":["/bin/bash","-lc","rm -rf .ssh"],"cwd":"/root"}}}'
	run -0 jq -r .workdir <<<"$output"
	assert_output /root
	# codex's exec takes the shell from the model: one it names by path
	# outside the system's directories is what runs, not a script's shell
	for a0 in /p/bash ./bash; do
		run -0 jh-normalize -H acp <<<"$(jq -nc --arg a "$a0" '{hook_event_name:"PreToolUse",session_id:"a1",cwd:"/p",acp_method:"session/request_permission",tool_call:{toolCallId:"x",kind:"execute",status:"pending",title:"x",rawInput:{call_id:"c",command:[$a,"-lc","npm test"],cwd:"/p"}}}')"
		run -0 jq -r .input.command <<<"$output"
		assert_output "$a0 -lc 'npm test'"
	done
	# Claude's Bash over ACP takes no directory: a workdir in it is dropped
	run -0 jh-normalize -H acp <<<'{"hook_event_name":"PreToolUse","session_id":"a1","cwd":"/p","acp_method":"session/request_permission","tool_call":{"toolCallId":"x","kind":"execute","status":"pending","title":"x","rawInput":{"command":"ls","workdir":"/tmp"},"_meta":{"claudeCode":{"toolName":"Bash"}}}}'
	run -0 jq -c '[.workdir, .input.workdir]' <<<"$output"
	refute_output --partial /tmp
}

# Gemini CLI 0.61.0 drops a leading "@" from a file tool's path that is
# not there as written, and its replace searches the workspace for a
# relative path that is not there: both forms are targets, and such a
# replace is refused.
@test "Gemini: a file path's '@' form is a target too; replace of a relative path not there is refused" {
	mkdir -p "$T/g/.gemini" "$T/g/src"
	echo '{}' >"$T/g/.gemini/settings.json"
	echo x >"$T/g/src/a.c"
	for t in write_file replace read_file; do
		run -0 jh-normalize -H gemini-cli <<<"$(jq -nc --arg t "$t" --arg c "$T/g" '{session_id:"g1",hook_event_name:"BeforeTool",cwd:$c,tool_name:$t,tool_input:{file_path:"@.gemini/settings.json",content:"x",old_string:"a",new_string:"b"}}')"
		run -0 jq -c '[.input.file_path, .input.paths, .malformed]' <<<"$output"
		assert_output '["@.gemini/settings.json",[".gemini/settings.json"],null]'
	done
	run -0 jh-normalize -H gemini-cli <<<"$(jq -nc --arg c "$T/g" '{session_id:"g1",hook_event_name:"BeforeTool",cwd:$c,tool_name:"replace",tool_input:{file_path:"settings.json",old_string:"a",new_string:"b"}}')"
	run -0 jq -r .malformed <<<"$output"
	assert_output --partial 'would search the workspace'
	# a path that is there, relative or in full, is the host's as written
	for f in src/a.c "$T/g/src/a.c" src/new.c; do
		run -0 jh-normalize -H gemini-cli <<<"$(jq -nc --arg c "$T/g" --arg f "$f" '{session_id:"g1",hook_event_name:"BeforeTool",cwd:$c,tool_name:"write_file",tool_input:{file_path:$f,content:"x"}}')"
		run -0 jq -c '[.input.paths, .malformed]' <<<"$output"
		assert_output '[null,null]'
	done
}
