#!/usr/bin/env bats
# jh-status with the REAL Claude Code 2.1.328, offline against
# tests/mock/anthropic-mock.py, installed by scripts/jh-install exactly as
# a user gets it: the plugin's .mcp.json starts `jh-status -c hook.conf -m`
# and ~/.claude/settings.json runs `jh-status -c hook.conf` as the status
# line.
#
#  (a) the status line, interactive under tmux: what Claude Code draws on
#      the screen after a turn shows the figures of the session's log, in
#      the meter's three states (unmetered, observed, enforced);
#  (b) the MCP server, started by Claude Code from the plugin: the model
#      (the mock's script) calls the resource tools and the verify tool;
#      what Claude Code sent back to the model (the mock's log of the next
#      request) lists and verifies the session's receipts.
#
# Where npm cannot reach the registry the tests are skipped, loudly.

load test_helper/common
load helpers/claude

setup_file() {
	jh_bin_snapshot
}

setup() {
	_common_setup
	mkdir -p "$T/proj"
	P=$(cd "$T/proj" && pwd -P)
	CLAUDE_HOME="$HOME"
	export CLAUDE_HOME
	cd "$P"
	# A fixed session id, so the script can name its receipts.
	SID=$(cat /proc/sys/kernel/random/uuid)
	D=$(printf %s "$SID" | sha256sum | cut -c1-64)
	LOG="$JH_STATE/logs/$D.jhl"
	SRV="plugin:joulehook:joulehook"
}


teardown() {
	if [ -n "${PROXY_PID:-}" ]; then
		kill "$PROXY_PID" 2>/dev/null || true
		wait "$PROXY_PID" 2>/dev/null || true
	fi
	tmux_claude_stop
	mock_stop
}

grant() {
	jq -n --arg root "$P" --argjson caps "$1" '{
	    audience: "joulehook:claude-code", nbf: 0, exp: 4102444800,
	    budget_uj: 20000000000000,
	    costs: {shell: 2000000, write: 200000, edit: 200000, read: 50000,
	            search: 50000, default: 100000},
	    root: $root, caps: $caps, policies: []}' >"$T/grant.json"
}

jh_install() {
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" "$@"
}

# result ID: what the model was sent back for tool call ID.
result() {
	mock_requests | jq -c --arg id "$1" '.body.messages[]?
	    | select(.role == "user" and (.content | type) == "array")
	    | .content[] | select(.type == "tool_result" and .tool_use_id == $id)
	    | {is_error: (.is_error // false),
	       content: (.content | if type == "string" then .
	                 else map(.text // "") | join("") end)}' | head -n1
}

# (b) Two runs of the same session (--session-id, then --resume): the
# first gates a command, so the session has a receipt; the second lists,
# reads and verifies through the plugin's server.  Claude Code 2.1.328 in
# -p lists a server's resources once, when it connects, and does not act
# on notifications/resources/list_changed (jh-status sends one when the
# list changes; the interactive REPL registers the handler, -p does
# not), so a receipt made after the server connected is read and
# verified in the same run but listed from the next one.
# bats test_tags=host
@test "(b) the plugin's MCP server, run by Claude Code, lists, reads and verifies the session's receipts" {
	claude_install
	grant '[{"class": "shell", "command": ["touch *"]},
	        {"tool": ["ToolSearch", "ListMcpResourcesTool", "ReadMcpResourceTool", "mcp__plugin_joulehook_joulehook__verify"]}]'
	jh_install
	assert_output --partial "MCP server: $JH_HOME/bin/jh-status -c $JH_HOME/hook.conf -m"
	run -0 jq -c '.mcpServers.joulehook | [.command, .args]' "$JH_HOME/claude-code/plugin/.mcp.json"
	assert_output "[\"$JH_HOME/bin/jh-status\",[\"-c\",\"$JH_HOME/hook.conf\",\"-m\"]]"
	local tools="Bash ToolSearch ListMcpResourcesTool ReadMcpResourceTool mcp__plugin_joulehook_joulehook__verify"
	jq -nc --arg srv "$SRV" --arg d "$D" '[
	  {tool_use: [{id: "toolu_cc_touch", name: "Bash", input: {command: "touch one", description: "t"}}]},
	  {text: "first run done"},
	  {tool_use: [{id: "toolu_cc_search", name: "ToolSearch", input: {query: "select:ListMcpResourcesTool,ReadMcpResourceTool,mcp__plugin_joulehook_joulehook__verify"}}]},
	  {tool_use: [{id: "toolu_cc_list", name: "ListMcpResourcesTool", input: {server: $srv}}]},
	  {tool_use: [{id: "toolu_cc_read", name: "ReadMcpResourceTool", input: {server: $srv, uri: ("joulehook://session/" + $d + "/0")}}]},
	  {tool_use: [{id: "toolu_cc_sess", name: "ReadMcpResourceTool", input: {server: $srv, uri: ("joulehook://session/" + $d)}}]},
	  {tool_use: [{id: "toolu_cc_verify", name: "mcp__plugin_joulehook_joulehook__verify", input: {session: $d}}]}
	]' >"$T/script.json"
	mock_start "$T/script.json"
	claude_run "gate a command" --session-id "$SID" --allowedTools "$tools"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$P/one"
	assert_file_exist "$LOG"
	claude_run "show the receipts" --resume "$SID" --allowedTools "$tools"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_equal "$(jq -r .session_id "$CLAUDE_OUT")" "$SID"
	# What the log says, verified.
	jh-verify "$LOG" | jq -c 'select(.chain)' >"$T/v.jsonl"
	# list: the session and its receipts as of the second run's start,
	# with the plugin server's name
	run -0 result toolu_cc_list
	echo "$output" >"$T/list.json"
	assert_equal "$(jq -r .is_error "$T/list.json")" false
	jq -r .content "$T/list.json" >"$T/list.txt"
	run -0 jq -r '.[] | [.server, .uri, .title] | @tsv' "$T/list.txt"
	assert_line --index 0 "$(printf '%s\tjoulehook://session/%s\tsession %s' "$SRV" "$D" "$SID")"
	assert_line --index 1 "$(printf '%s\tjoulehook://session/%s/0\tdecision/1 allow Bash' "$SRV" "$D")"
	# every entry of the log when the run started is listed
	run -0 jq -c '[.[] | .uri | capture("/(?<n>[0-9]+)$") | .n | tonumber] | . == [range(length)] and length >= 1' "$T/list.txt"
	assert_output true
	# read: entry 0 is the allow of the first run's touch, verified
	run -0 result toolu_cc_read
	assert_equal "$(jq -r .is_error <<<"$output")" false
	assert_equal "$(jq -r .content <<<"$output" | jq -c '.contents[0].text | fromjson | [.ok, .chain.seq, .core.verdict, .core.tool_use_id, .core.session]')" \
	    "[true,0,\"allow\",\"toolu_cc_touch\",\"$SID\"]"
	assert_equal "$(jq -r .content <<<"$output" | jq -c '.contents[0].text | fromjson')" "$(head -n1 "$T/v.jsonl")"
	# the session: the status line's figures
	run -0 result toolu_cc_sess
	run -0 jq -c '.content | fromjson | .contents[0].text | fromjson | [.session, .chain.state, .meter, .ledger.budget_uj]' <<<"$output"
	# the first run's Stop metered its model calls from the transcript
	local word=unmetered
	grep -qx meter=transcript "$JH_HOME/hook.conf" && word=observed
	assert_output "[\"$SID\",\"ok\",\"$word\",20000000000000]"
	# verify: the whole log, every entry when the tool ran
	run -0 result toolu_cc_verify
	assert_equal "$(jq -r .is_error <<<"$output")" false
	run -0 jq -c '.content | fromjson | [.total.ok, .total.logs, (.logs[0].session), (.logs[0].entries >= 5), .total.meter]' <<<"$output"
	assert_output "[true,1,\"$SID\",true,\"$word\"]"
}

# screen: the tmux pane's text now.
screen() {
	tmux -S "$TMUX_SOCK" capture-pane -p -t jh 2>/dev/null
}

# settle DONE: polls (up to 120 s) until the screen shows DONE (the
# turn's last message) and the status line on it has been the line the
# log and the ledger call for (expected_line) for 6 s, longer than the
# status line's refresh interval: receipts that land after the last
# message (the post-tool stage, the meter's units) are then on it.
# Sets got and want.
settle() {
	local i stable=0 last=""
	for ((i = 0; i < 240; i++)); do
		want=$(expected_line)
		got=$(screen | grep -o 'jh ⚡.*' | sed 's/[[:space:]]*$//' | tail -n1)
		{ date +%T.%N; screen | grep -aE 'hook|jh ⚡|…|●|⎿'; } >>"$T/screens.log"
		if screen | grep -qF "$1" && [ "$got" = "$want" ]; then
			[ "$want" = "$last" ] && stable=$((stable + 1)) || stable=1
			last=$want
			[ "$stable" -ge 13 ] && return 0
		else
			stable=0
		fi
		sleep 0.5
	done
	return 0
}

# expected_line: the status line the log and the ledger call for now, as
# jh-status prints it for Claude Code's captured statusLine input with
# this session's id (the installed program, the installed config).
expected_line() {
	jq -c --arg s "$SID" --arg p "$P" '.session_id = $s | .cwd = $p |
	    .workspace.current_dir = $p | .workspace.project_dir = $p' \
	    "$PROJECT_ROOT/tests/fixtures/claude-code/statusLine-stdin-interactive.json" |
	    "$JH_HOME/bin/jh-status" -c "$JH_HOME/hook.conf"
}

# repl_start [ENV...]: Claude Code's REPL in a tmux pane, in $P, for
# session $SID, with HOME's settings and ENV (ANTHROPIC_BASE_URL, unless
# the settings' env names it); returns once the status line is drawn,
# after checking that it says the session has no receipt yet.
repl_start() {
	local i
	claude_home_interactive "$P"
	TMUX_SOCK="$T/tmux.sock"
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s jh -x 220 -y 50 -c "$P" \
	    env -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_MODEL -u CLAUDE_CONFIG_DIR -u CLAUDECODE \
	    -u CLAUDE_CODE_ENTRYPOINT -u TMUX -u ANTHROPIC_BASE_URL \
	    HOME="$HOME" TERM=xterm-256color "$@" \
	    ANTHROPIC_API_KEY=sk-test DISABLE_TELEMETRY=1 \
	    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_ERROR_REPORTING=1 NO_PROXY=127.0.0.1,localhost \
	    "$CLAUDE_BIN" --session-id "$SID" --allowedTools Bash
	PANE_PID=$(tmux -S "$TMUX_SOCK" display-message -p -t jh '#{pane_pid}')
	for ((i = 0; i < 60; i++)); do
		screen | grep -q 'jh ⚡' && break
		sleep 0.5
	done
	screen >"$T/screen0.txt"
	# before any receipt: the line says so, with the budget
	run -0 grep -o 'jh ⚡.*' "$T/screen0.txt"
	assert_output --partial "jh ⚡ no receipts yet in this session · budget 20 MJ"
}

# interactive [ENV...]: repl_start, then one turn ("run the touch"),
# settled (see settle), and Claude Code stopped, so the log holds still.
# Sets got and want.
interactive() {
	repl_start "$@"
	tmux -S "$TMUX_SOCK" send-keys -t jh "run the touch" Enter
	settle "the command ran"
	screen >"$T/screen1.txt"
	if [ "$got" != "$want" ]; then
		cat "$T/screen1.txt" >&2
		tail -n 40 "$T/screens.log" | cut -c1-200 >&2
	fi
	tmux_claude_stop
	assert_file_exist "$P/one"
	# what was on screen is what the log and the ledger call for
	assert_equal "$got" "$want"
	assert_equal "$(expected_line)" "$want"
}

# The decisions of the line, from the verified log and the ledger: one
# allow of 2 J, every entry counted.
decisions_match() {
	jh-verify -L "$JH_STATE/ledger" "$LOG" >"$T/v.jsonl"
	local n allow deny spent
	n=$(jq -s '[.[] | select(.chain)] | length' "$T/v.jsonl")
	allow=$(jq -s '[.[] | select(.kind == "decision/1" and .core.verdict == "allow")] | length' "$T/v.jsonl")
	deny=$(jq -s '[.[] | select(.kind == "decision/1" and .core.verdict == "deny")] | length' "$T/v.jsonl")
	spent=$(jq -s '[.[] | select(.kind == "decision/1") | .core.debited_uj] | add' "$T/v.jsonl")
	[ "$(jq -s '[.[] | select(.log)] | .[0].log.ok' "$T/v.jsonl")" = true ]
	assert_equal "$allow $deny $spent" "1 0 2000000"
	[[ "$got" == *" · $allow allow $deny deny · chain $n ok · "* ]] || fail "counts: $got (log: $allow allow $deny deny, $n entries)"
	# the ledger verifies against the log, and holds what the session's
	# receipts debited (the tools', and the proxy's units when bound)
	run -0 jq -s -c '[.[] | select(.ledger)] | .[0].ledger | [.ok, .spent_uj]' "$T/v.jsonl"
	assert_output "[true,$(jq -s '[.[] | select(.chain) | .core.debited_uj // 0] | add' "$T/v.jsonl")]"
}

# The model figure of the line is the units' estimate the sidecar holds,
# and the same sum over the verified units (-s); the word is -s's.
model_matches() {
	jh-status -s "$LOG" >"$T/sum.json"
	assert_equal "$(jq -r .total.ok "$T/sum.json")" true
	assert_equal "$(jq -r .total.meter "$T/sum.json")" "$1"
	run -0 sh -c "printf '%s\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$D\"}}' |
	    (cd '$P' && '$JH_HOME/bin/jh-status' -c '$JH_HOME/hook.conf' -m) | jq -c '.result.contents[0].text | fromjson | [.meter, .energy.model_estimated_uj, .energy.model_measured_uj]'"
	assert_output "[\"$1\",$(jq -r '.total.energy.efficiency | [.[].estimated_uj] | add' "$T/sum.json"),0]"
	[ "$(jq -r '.total.energy.efficiency | [.[].estimated_uj] | add' "$T/sum.json")" -gt 0 ]
}

# (a) Claude Code in its interactive REPL, in a tmux pane, installed by
# jh-install, in the meter's three states: after a turn that gated one
# command, the status line it draws is jh-status's line for the session,
# and its figures are those of the log (verified) and the ledger.
#
# unmetered: no meter at all (the hook config's meter=none, no proxy):
# only the tools' estimate, so labelled.
# bats test_tags=host
@test "(a) interactive under tmux, unmetered: the status line on screen shows the log's figures" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	claude_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	run -0 jq -c .statusLine "$HOME/.claude/settings.json"
	assert_output "$(jq -nc --arg c "'$JH_HOME/bin/jh-status' -c '$JH_HOME/hook.conf'" '{type: "command", command: $c, refreshInterval: 5}')"
	sed -i 's/^meter=transcript$/meter=none/' "$JH_HOME/hook.conf"
	grep -qx meter=none "$JH_HOME/hook.conf"
	jq -nc '[{tool_use: [{id: "toolu_cc_tmux", name: "Bash", input: {command: "touch one", description: "t"}}]},
	  {text: "the command ran"}]' >"$T/script.json"
	mock_start "$T/script.json"
	interactive ANTHROPIC_BASE_URL="$MOCK_URL"
	decisions_match
	[[ "$got" =~ ^"jh ⚡ 2 J tools (est) of 20 MJ · 1 allow 0 deny · chain "[0-9]+" ok · unmetered"$ ]] || fail "$got"
	assert_equal "$(jh-status -s "$LOG" | jq -r .total.meter)" unmetered
}

# observed: the default install meters the model calls from the
# transcript at Stop (jh-meter, meter=transcript): units with enforced 0.
# bats test_tags=host
@test "(a) interactive under tmux, observed (the transcript meter at Stop): the status line shows the units' estimate" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	claude_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	grep -qx meter=transcript "$JH_HOME/hook.conf" || skip "SKIPPED: this jh-install does not meter from the transcript"
	jq -nc '[{tool_use: [{id: "toolu_cc_obs", name: "Bash", input: {command: "touch one", description: "t"}}]},
	  {text: "the command ran"}]' >"$T/script.json"
	mock_start "$T/script.json"
	interactive ANTHROPIC_BASE_URL="$MOCK_URL"
	decisions_match
	[[ "$got" =~ ^"jh ⚡ model "[0-9.]+" "[a-zµ]*"J (est) of 20 MJ · 1 allow 0 deny · chain "[0-9]+" ok · observed"$ ]] || fail "$got"
	refute [ "$(jq -s '[.[] | select(.kind == "efficiency/1" and .core.enforced == 1)] | length' "$T/v.jsonl")" -gt 0 ]
	model_matches observed
}

# enforced: jh-install -M puts jh-proxy between Claude Code and the mock
# (ANTHROPIC_BASE_URL and the token header in the settings' env); the
# proxy seals an efficiency/1 per model call, enforced where its hold
# covered the worst case.
# bats test_tags=host
@test "(a) interactive under tmux with the meter bound (jh-install -M): the status line says enforced" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	claude_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jq -nc '[{tool_use: [{id: "toolu_cc_meter", name: "Bash", input: {command: "touch one", description: "t"}}]},
	  {text: "the command ran"}]' >"$T/script.json"
	mock_start "$T/script.json"
	local port i cmd
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	jh_install -M "$MOCK_URL" -l "127.0.0.1:$port"
	assert_output --partial "bound the meter"
	G="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64)"
	# systemctl --user is not here: start the command the installer gave
	# (it debits the project's grant)
	cmd=$(printf '%s\n' "$output" | sed -n 's/^jh-install:   JH_HOME=[^ ]* JH_STATE=[^ ]* //p')
	assert_equal "$cmd" "$JH_HOME/bin/jh-proxy -u $MOCK_URL -l 127.0.0.1:$port -C $JH_HOME/coefficients.json -g $G"
	JH_HOME="$JH_HOME" JH_STATE="$JH_STATE" $cmd </dev/null >"$T/proxy.out" 2>"$T/proxy.err" 3>&- &
	PROXY_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$T/proxy.err" && break
		sleep 0.05
	done
	grep -q 'listening on' "$T/proxy.err" || { cat "$T/proxy.err" >&2; false; }
	# ANTHROPIC_BASE_URL comes from the settings the installer wrote
	interactive
	kill "$PROXY_PID" 2>/dev/null || true
	wait "$PROXY_PID" 2>/dev/null || true
	PROXY_PID=
	decisions_match
	[[ "$got" =~ ^"jh ⚡ model "[0-9.]+" "[a-zµ]*"J (est) of 20 MJ · 1 allow 0 deny · chain "[0-9]+" ok · enforced"$ ]] || fail "$got"
	# every model call went through the proxy and was sealed: the
	# provider's request ids, in the mock's log and in the units
	run -0 sh -c "jq -r 'select(.method == \"POST\") | .response.request_id' '$MOCK_LOG' | sort"
	[ -n "$output" ]
	local ids=$output
	run -0 sh -c "jq -r 'select(.kind == \"efficiency/1\") | .core.request_id' '$T/v.jsonl' | sort"
	assert_equal "$output" "$ids"
	[ "$(jq -s '[.[] | select(.kind == "efficiency/1" and .core.enforced == 1 and .core.source == "proxy")] | length' "$T/v.jsonl")" -ge 1 ]
	model_matches enforced
}

# The installer's part, without Claude Code: the status line it sets, a
# user's status line kept and put back, idempotency, -C and its warning.
@test "jh-install: statusLine and .mcp.json rendered, a user's status line kept and put back by -u; -C writes sink=, none warns" {
	grant '[{"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$HOME/.claude"
	echo '{"statusLine": {"type": "command", "command": "echo mine", "padding": 1}, "model": "x"}' >"$HOME/.claude/settings.json"
	jh_install
	assert_output --partial "warning: no checkpoint sink (-C): without a checkpoint kept where the agent cannot write, tail truncation and deletion of a log go undetected"
	assert_output --partial "replaced the status line in $HOME/.claude/settings.json with joulehook's; yours is kept in $JH_HOME/statusLine.saved.json"
	run -0 jq -c '[.statusLine, .model]' "$HOME/.claude/settings.json"
	assert_output "$(jq -nc --arg c "'$JH_HOME/bin/jh-status' -c '$JH_HOME/hook.conf'" '[{type: "command", command: $c, refreshInterval: 5}, "x"]')"
	run -0 jq -c . "$JH_HOME/statusLine.saved.json"
	assert_output '{"type":"command","command":"echo mine","padding":1}'
	run -0 grep -c '^sink=' "$JH_HOME/hook.conf" || true
	assert_output 0
	# the status line command, as Claude Code runs it (a shell), with a
	# project env that names another state: the installed one is read
	run -0 sh -c "echo '{\"session_id\":\"none\",\"cwd\":\"$P\"}' | JH_STATE=/nonexistent JH_HOME=/nonexistent sh -c \"\$(jq -r .statusLine.command '$HOME/.claude/settings.json')\""
	assert_output "jh ⚡ no receipts yet in this session · budget 20 MJ"
	# .mcp.json: exec form, the installed program and config
	run -0 jq -c '.mcpServers.joulehook' "$JH_HOME/claude-code/plugin/.mcp.json"
	assert_output "{\"command\":\"$JH_HOME/bin/jh-status\",\"args\":[\"-c\",\"$JH_HOME/hook.conf\",\"-m\"],\"env\":{\"LD_PRELOAD\":\"\",\"LD_AUDIT\":\"\",\"LD_LIBRARY_PATH\":\"\"}}"
	[ ! -e "$JH_HOME/claude-code/plugin/.mcp.json.in" ]
	# again: nothing about the status line changes or is said
	cp "$HOME/.claude/settings.json" "$T/before.json"
	jh_install
	refute_output --partial "status line"
	cmp "$HOME/.claude/settings.json" "$T/before.json"
	# -C: the sink in hook.conf, and refusals
	jh_install -C "$T/sink.cbor"
	assert_output --partial "checkpoints go to $T/sink.cbor at Stop and SessionEnd"
	refute_output --partial "no checkpoint sink"
	run -0 grep '^sink=' "$JH_HOME/hook.conf"
	assert_output "sink=$T/sink.cbor"
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/grant.json" -C relative.cbor
	assert_output --partial "-C wants an absolute path"
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/grant.json" -C "$T"
	assert_output --partial "is a directory"
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/grant.json" -C "$T/no/such/dir/sink"
	assert_output --partial "no directory"
	jh_install -C "$P/sink.cbor"
	assert_output --partial "warning: $P/sink.cbor is inside the project, where the agent can write"
	# -u: the user's status line comes back, the plugin goes
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	assert_output --partial "put back the status line joulehook replaced"
	run -0 jq -c '[.statusLine, .model, (.enabledPlugins | has("joulehook@joulehook"))]' "$HOME/.claude/settings.json"
	assert_output '[{"type":"command","command":"echo mine","padding":1},"x",false]'
	[ ! -e "$JH_HOME/statusLine.saved.json" ]
	# with no status line before, -u removes joulehook's
	jq 'del(.statusLine)' "$HOME/.claude/settings.json" >"$T/s.json"
	cp "$T/s.json" "$HOME/.claude/settings.json"
	jh_install
	assert_output --partial "set the status line in $HOME/.claude/settings.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	assert_output --partial "removed the joulehook status line"
	run -0 jq -c 'has("statusLine")' "$HOME/.claude/settings.json"
	assert_output false
}

# Issue 6: an ask in the interactive REPL.  Claude Code shows its dialog;
# the human (tmux keys) says yes; the command runs, and the PostToolUse
# stage settles the ask's hold into a debit and seals the answer: result/1
# answer "approved", bound to the ask's entry.
# bats test_tags=host
@test "(c) interactive: an ask the human approves runs; its hold settles and the answer is sealed" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	claude_install
	jq -n --arg root "$P" '{audience: "joulehook:claude-code", nbf: 0,
	    exp: 4102444800, budget_uj: 20000000000000,
	    costs: {shell: 2000000, default: 100000}, root: $root,
	    caps: [{class: "shell", command: ["touch *"]}],
	    policies: [{id: "ask-secrets", when: {class: "shell", command: ["touch *secret*"]},
	      verdict: "ask", reason: "a human must approve secrets"}]}' >"$T/grant.json"
	jh_install
	jq -nc '[{tool_use: [{id: "toolu_cc_ask", name: "Bash", input: {command: "touch secret", description: "t"}}]},
	  {text: "the command ran"}]' >"$T/script.json"
	mock_start "$T/script.json"
	repl_start ANTHROPIC_BASE_URL="$MOCK_URL"
	tmux -S "$TMUX_SOCK" send-keys -t jh "run the touch" Enter
	for ((i = 0; i < 120; i++)); do
		screen | grep -q "a human must approve secrets" && break
		sleep 0.5
	done
	screen >"$T/dialog.txt"
	run -0 grep -c "Do you want to proceed" "$T/dialog.txt"
	# while the human thinks, the cost is held, not spent
	jh-verify -L "$JH_STATE/ledger" "$LOG" >"$T/v0.jsonl"
	run -0 jq -s -c '[.[] | select(.ledger)] | .[0].ledger | [.held_uj, .spent_uj]' "$T/v0.jsonl"
	assert_output "[2000000,0]"
	tmux -S "$TMUX_SOCK" send-keys -t jh "1"
	for ((i = 0; i < 120; i++)); do
		screen | grep -q "the command ran" && [ -s "$LOG" ] &&
		    jh-verify "$LOG" 2>/dev/null | jq -e 'select(.kind == "result/1")' >/dev/null && break
		sleep 0.5
	done
	tmux_claude_stop
	assert_file_exist "$P/secret"
	jh-verify -L "$JH_STATE/ledger" "$LOG" >"$T/v.jsonl"
	run -0 jq -r 'select(.kind == "result/1") | [.core.tool_use_id, .core.decided, .core.answer, .core.status, .core.check, .core.debited_uj] | @tsv' "$T/v.jsonl"
	assert_output "$(printf 'toolu_cc_ask\task\tapproved\tok\tmatch\t2000000')"
	run -0 jq -s -c '[.[] | select(.ledger)] | .[0].ledger | [.ok, .held_uj, .spent_uj, .receipts_uj]' "$T/v.jsonl"
	assert_output "[true,0,2000000,2000000]"
}
