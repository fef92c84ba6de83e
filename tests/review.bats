#!/usr/bin/env bats
# Holes an outside review found, each closed and pinned here through the
# real programs: a lone surrogate in a payload, costs the gate would
# pass over, a tool with two path fields, ~ in a file tool's path,
# protected names in another case, a search that follows a link into
# joulehook's state.

load test_helper/common

setup() {
	_common_setup
	P="$T/proj"
	mkdir -p "$P/src" "$P/.claude"
	git -C "$P" init -q -b main
	printf '{}\n' >"$P/.claude/settings.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	H="$JH_HOME/bin"
	cd "$P"
}

# event TOOL CLASS INPUT-JSON: an ActionEvent of the session s1 here.
event() {
	jq -nc --arg cwd "$P" --arg tool "$1" --arg class "$2" --argjson in "$3" \
	    '{session_id: "s1", tool_use_id: "t1", host: "claude-code", event: "PreToolUse",
	      tool: $tool, class: $class, cwd: $cwd, input: $in}'
}

decide() {	# TOOL CLASS INPUT-JSON: "verdict code" of the explain
	event "$@" | "$H/jh-decide" -x -j - | jq -r '.verdict + " " + .code'
}

@test "a lone UTF-16 surrogate is read as U+FFFD, as the host runs it, and a bad payload does not stop the stream" {
	local pre='{"session_id":"s","transcript_path":"/dev/null","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":'
	{
		printf '%s"t1","tool_input":{"command":"echo \\ud83d \\\\ud83d \\ud83d\\ude00 \\udc00x"}}\n' "$pre"
		printf '{"a":}\n'
		printf '%s"t2","tool_input":{"command":"ls"}}\n' "$pre"
	} >"$T/stream.json"
	run -1 --separate-stderr jh-normalize -H claude-code "$T/stream.json"
	assert_equal "${#lines[@]}" 2
	assert_equal "$(jq -r .input.command <<<"${lines[0]}")" "echo $(printf '\357\277\275') \\ud83d $(printf '\360\237\230\200') $(printf '\357\277\275')x"
	assert_equal "$(jq -r .tool_use_id <<<"${lines[1]}")" t2
	[[ $stderr == *"payload 2"*"not JSON"* ]]
}

@test "a negative or text cost is refused when the grant is sealed, as the gate would pass over it" {
	# the issuer key jh-install made (-W: unencrypted)
	local base='{"audience":"joulehook:claude-code","nbf":0,"exp":4102444800,"budget_uj":1000,"caps":[{"tool":"X"}]}'
	run -1 --separate-stderr jh-seal -K grant/1 -k "$JH_HOME/issuer.key" <<<"$(jq -c '.caps[0].cost_uj = -5' <<<"$base")"
	[[ $stderr == *"caps[0].cost_uj must be an unsigned integer"* ]]
	run -1 --separate-stderr jh-seal -K grant/1 -k "$JH_HOME/issuer.key" <<<"$(jq -c '.costs = {shell: "2"}' <<<"$base")"
	[[ $stderr == *"costs.shell must be an unsigned integer"* ]]
	run -1 --separate-stderr jh-seal -K grant/1 -k "$JH_HOME/issuer.key" <<<"$(jq -c '.costs = {default: 1.5}' <<<"$base")"
	run -0 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" <<<"$(jq -c '.costs = {shell: 2} | .caps[0].cost_uj = 7' <<<"$base")"
}

@test "every path field of a file tool is a target: NotebookEdit is decided on the notebook it writes" {
	run -0 decide NotebookEdit edit "{\"file_path\":\"$P/src/a.ipynb\",\"notebook_path\":\"/etc/x.ipynb\",\"new_source\":\"x\"}"
	assert_output "deny policy-deny"
	run -0 decide NotebookEdit edit "{\"file_path\":\"$P/src/a.ipynb\",\"notebook_path\":\"$P/.claude/settings.json\",\"new_source\":\"x\"}"
	assert_output "deny protected-path"
	run -0 decide NotebookEdit edit "{\"notebook_path\":\"$P/src/a.ipynb\",\"new_source\":\"x\"}"
	assert_output "allow ok"
}

@test "~ in a file tool's path is the user's home, never a folder of the project" {
	mkdir -p "$HOME/.ssh"
	run -0 event Read read '{"file_path":"~/.ssh/id_rsa"}'
	run -0 sh -c "printf '%s' '$output' | '$H/jh-decide' -x -j - | jq -r '.target[0], .verdict'"
	assert_output "$HOME/.ssh/id_rsa
ask"
	run -0 decide Write write '{"file_path":"~/.claude/settings.json","content":"{}"}'
	assert_output "deny protected-path"
	run -0 decide Read read '{"file_path":"src/~x"}'
	assert_output "allow ok"
}

@test "protected names are matched in any case, as macOS and Windows file systems match them" {
	run -0 decide Write write "{\"file_path\":\"$P/.CLAUDE/settings.json\",\"content\":\"{}\"}"
	assert_output "deny protected-path"
	run -0 decide Write write "{\"file_path\":\"$P/.Mcp.JSON\",\"content\":\"{}\"}"
	assert_output "deny protected-path"
	local upper
	upper=$(printf '%s' "$JH_HOME" | tr 'a-z' 'A-Z')
	run -0 decide Write write "{\"file_path\":\"$upper/grant\",\"content\":\"x\"}"
	assert_output "deny protected-path"
	run -0 "$H/jh-decide" -x -j 'echo {} > .Claude/settings.local.json'
	assert_equal "$(jq -r .code <<<"$output")" protected-path
}

@test "a search of a tree that holds a link into joulehook's state is refused" {
	run -0 decide Grep search "{\"pattern\":\"x\",\"path\":\"$P\"}"
	assert_output "allow ok"
	ln -s "$JH_STATE" "$P/src/state"
	run -0 decide Grep search "{\"pattern\":\"x\",\"path\":\"$P\"}"
	assert_output "deny protected-path"
	run -0 decide Glob search "{\"pattern\":\"**/*.jhl\"}"
	assert_output "deny protected-path"
	run -0 "$H/jh-decide" -x -j 'grep -rn x .'
	assert_equal "$(jq -r .code <<<"$output")" protected-path
}

@test "jh-status -s checks each log against the configured checkpoint sink, as jh-verify -c does" {
	mkdir -p "$T/sink"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -C "$T/sink/cp"
	local conf="$JH_HOME/hook.conf" log size
	for id in t1 t2; do
		jq -nc --arg cwd "$P" --arg id "$id" '{session_id: "s1", transcript_path: "/dev/null",
		    cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
		    tool_input: {command: "ls"}, tool_use_id: $id}' | "$H/jh-hook" -c "$conf"
		log=$(ls "$JH_STATE"/logs/*.jhl)
		[ "$id" = t1 ] && size=$(stat -c %s "$log")
	done
	# Stop seals a checkpoint into the sink (its meter fails on /dev/null)
	jq -nc --arg cwd "$P" '{session_id: "s1", transcript_path: "/dev/null", cwd: $cwd,
	    hook_event_name: "Stop", stop_hook_active: false}' | "$H/jh-hook" -c "$conf" || :
	[ -s "$T/sink/cp" ]
	run -0 sh -c "'$H/jh-status' -s -c '$conf' | jq -c '.logs[] | [.ok, .extent]'"
	assert_output '[true,"matches the checkpoint"]'
	# the tail cut back to the first entry: the checkpoint says so
	head -c "$size" "$log" >"$T/cut" && cp "$T/cut" "$log"
	run -1 "$H/jh-status" -s -c "$conf"
	assert_equal "$(jq -c '.logs[] | [.ok, .extent]' <<<"$output")" '[false,"truncated: the checkpoint has 2 entries, the log 1"]'
	# without the sink in the config, the same log is a prefix only
	sed -i '/^sink=/d' "$conf"
	run -0 "$H/jh-status" -s -c "$conf"
	assert_equal "$(jq -r '.logs[0].extent' <<<"$output")" "verified as a prefix only: without a checkpoint, a truncated tail cannot be detected"
}
