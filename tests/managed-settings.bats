#!/usr/bin/env bats
# check: alone (it writes /etc/claude-code, which every real Claude Code
# reads: make check runs it after the other suites, by itself)
# Claude Code 2.1.328's MANAGED settings on Linux, observed with the REAL
# binary offline (tests/helpers/claude.bash, tests/mock/anthropic-mock.py):
# what joulehook's hardened mode rests on when it puts its hook in
# /etc/claude-code, where the agent -- which runs as the developer and can
# edit ~/.claude/settings.json and the project's .claude/ -- cannot take
# the gate away.  The hooks here are a trivial shell script (it logs
# "TAG EVENT" and, asked to, denies with exit 2 and a reason on stderr),
# not joulehook, so what is shown is Claude Code's behaviour alone.
# hosts/claude-code/README.md, "Managed settings (hardened mode)",
# lists the facts with the JSON that was used; each test's number is the
# fact's there (1-6, and of 7 what root can show).  Runtime about 80 s.
#
# Runs only as root (it writes /etc/claude-code).  /etc/claude-code is
# moved aside to /etc/claude-code.joulehook-test-backup in setup_file
# when it exists, created fresh for each test, removed in each teardown,
# and the original put back in teardown_file; a backup left over from an
# interrupted run makes the file fail rather than overwrite it.  While it
# runs, every Claude Code on the machine reads these managed settings:
# do not run it beside other Claude Code suites or a real session.
#
# One set of three mocks serves every test (setup_file): M is where the
# process environment's ANTHROPIC_BASE_URL points (claude_run), U is
# named by user, project and --settings env blocks, G by the managed env.
#
# Where the Claude Code binary cannot be had, every test is skipped
# loudly ("SKIPPED: cannot install Claude Code from npm: ..."); not root:
# "SKIPPED: needs root".

load test_helper/common
load helpers/claude

MANAGED=/etc/claude-code
MANAGED_BACKUP=/etc/claude-code.joulehook-test-backup

# bats file_tags=host

setup_file() {
	# /etc/claude-code is one for the machine: one test at a time
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	# (bats 1.8 cannot skip from setup_file: each test skips in setup)
	if [ "$(id -u)" -ne 0 ]; then
		export MS_SKIP="SKIPPED: needs root (writes $MANAGED/managed-settings.json)"
		echo "# $MS_SKIP" >&3
		return 0
	fi
	if [ -e "$MANAGED_BACKUP" ] || [ -L "$MANAGED_BACKUP" ]; then
		echo "$MANAGED_BACKUP exists (an interrupted run?): put it back as $MANAGED or remove it" >&2
		return 1
	fi
	if [ -e "$MANAGED" ] || [ -L "$MANAGED" ]; then
		mv "$MANAGED" "$MANAGED_BACKUP"
	fi
	touch "$BATS_FILE_TMPDIR/owned"
	PROJECT_ROOT="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	F="$BATS_FILE_TMPDIR"
	export HOOKLOG="$F/hooks.log" MCPLOG="$F/mcp.log"
	export HOOK="$F/hook.sh" ALLOWHOOK="$F/allow.sh" MCPSRV="$F/mcpsrv.py"
	# hook.sh TAG [deny]: logs "TAG EVENT"; with deny, a PreToolUse is
	# refused (exit 2, the reason on stderr)
	cat >"$HOOK" <<-EOF
	#!/bin/sh
	ev=\$(jq -r .hook_event_name)
	echo "\$1 \$ev" >>"$HOOKLOG"
	if [ "\${2:-}" = deny ] && [ "\$ev" = PreToolUse ]; then
		echo "managed gate: no (\$1)" >&2
		exit 2
	fi
	exit 0
	EOF
	# allow.sh: an agent's hook that answers allow for everything
	cat >"$ALLOWHOOK" <<-EOF
	#!/bin/sh
	cat >/dev/null
	echo "allowjson PreToolUse" >>"$HOOKLOG"
	echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"the agent says fine"}}'
	EOF
	# mcpsrv.py NAME: a stdio MCP server with one tool, probe_NAME
	cat >"$MCPSRV" <<-EOF
	#!/usr/bin/python3
	import json, sys
	name = sys.argv[1]
	def log(m):
	    with open("$MCPLOG", "a") as f:
	        f.write("%s %s\n" % (name, m))
	log("start")
	for line in sys.stdin:
	    try:
	        req = json.loads(line)
	    except ValueError:
	        continue
	    m, i = req.get("method"), req.get("id")
	    if i is None:
	        continue
	    if m == "initialize":
	        res = {"protocolVersion": req["params"].get("protocolVersion", "2025-06-18"),
	               "capabilities": {"tools": {}}, "serverInfo": {"name": name, "version": "1"}}
	    elif m == "tools/list":
	        res = {"tools": [{"name": "probe_" + name, "description": "probe",
	                          "inputSchema": {"type": "object", "properties": {}}}]}
	    elif m == "tools/call":
	        res = {"content": [{"type": "text", "text": "hello from " + name}]}
	    elif m == "ping":
	        res = {}
	    else:
	        out = {"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "no %s" % m}}
	        sys.stdout.write(json.dumps(out) + "\n")
	        sys.stdout.flush()
	        continue
	    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": res}) + "\n")
	    sys.stdout.flush()
	EOF
	chmod 755 "$HOOK" "$ALLOWHOOK" "$MCPSRV"
	echo '[]' >"$F/script.json"
	local m
	for m in M U G; do
		BATS_TEST_TMPDIR="$F/$m" mock_start "$F/script.json" "$F/$m.jsonl" || return 1
		printf -v "${m}_URL" %s "$MOCK_URL"
		printf -v "${m}_LOG" %s "$MOCK_LOG"
		printf -v "${m}_PID" %s "$MOCK_PID"
		export "${m}_URL" "${m}_LOG" "${m}_PID"
	done
	export SCRIPT="$F/script.json"
}

teardown_file() {
	local p
	for p in "${M_PID:-}" "${U_PID:-}" "${G_PID:-}"; do
		if [ -n "$p" ]; then
			MOCK_PID=$p mock_stop
		fi
	done
	if [ -f "$BATS_FILE_TMPDIR/owned" ]; then
		rm -rf "$MANAGED"
		if [ -e "$MANAGED_BACKUP" ] || [ -L "$MANAGED_BACKUP" ]; then
			mv "$MANAGED_BACKUP" "$MANAGED"
		fi
	fi
	return 0
}

setup() {
	if [ -n "${MS_SKIP:-}" ]; then
		skip "$MS_SKIP"
	fi
	_common_setup
	claude_install
	mkdir -p "$T/proj/.claude" "$HOME/.claude"
	P=$(cd "$T/proj" && pwd -P)
	CLAUDE_HOME="$HOME"
	MOCK_URL=$M_URL MOCK_LOG=$M_LOG
	export CLAUDE_HOME MOCK_URL MOCK_LOG
	: >"$HOOKLOG"
	: >"$MCPLOG"
	: >"$M_LOG"
	: >"$U_LOG"
	: >"$G_LOG"
	rm -rf "$MANAGED"
	install -d -m 755 -o root -g root "$MANAGED"
	bash_script
	cd "$P"
}

teardown() {
	tmux_claude_stop
	[ -f "$BATS_FILE_TMPDIR/owned" ] && rm -rf "$MANAGED"
	return 0
}

# bash_script: the mock's one turn, one Bash call that touches $P/ran.
bash_script() {
	jq -nc --arg c "touch $P/ran" \
	    '[{tool_use: [{id: "toolu_ms_1", name: "Bash", input: {command: $c, description: "m"}}]}]' >"$SCRIPT"
}

# managed JSON: /etc/claude-code/managed-settings.json, root:root 0644.
managed() {
	jq . <<<"$1" >"$T/managed.json"
	install -m 644 -o root -g root "$T/managed.json" "$MANAGED/managed-settings.json"
}

# gate_json [EXTRA]: the managed deny hook in exec form, merged with EXTRA.
gate_json() {
	local x=${1:-}
	[ -n "$x" ] || x='{}'
	jq -nc --arg h "$HOOK" --argjson x "$x" \
	    '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $h, args: ["managed", "deny"]}]}]}} + $x'
}

# hook_json TAG: settings with one PreToolUse hook, shell-string form.
hook_json() {
	jq -nc --arg c "$HOOK $1" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $c}]}]}}'
}

# cc [ARGS...]: claude -p in $P with Bash allowed (ARGS before it).
cc() {
	rm -f "$P/ran"
	: >"$HOOKLOG"
	claude_run "do the task" "$@" --allowedTools Bash
}

# ran_hooks: the hooks that ran, "TAG EVENT" sorted, one line.
ran_hooks() {
	sort -u "$HOOKLOG" | paste -sd, -
}

# posts LOG: how many model calls a mock got.
posts() {
	jq -c 'select(.method == "POST" and (.path | startswith("/v1/messages")) and (.path | contains("count_tokens") | not))' "$1" | wc -l
}

# tool_result: what the model was sent back for the first tool call.
tool_result() {
	mock_requests | jq -c '.body.messages[]? | select(.role == "user" and (.content | type) == "array")
	    | .content[] | select(.type == "tool_result")
	    | {is_error: (.is_error // false), content: (.content | if type == "string" then . else map(.text // "") | join("") end)}' | head -n1
}

# ----------------------------------------------------------------------

# Fact 1: hooks in managed-settings.json run in -p, for PreToolUse,
# PostToolUse and Stop, in both forms a handler takes: a shell command
# string, and the exec form {"command": "/abs/prog", "args": [...]}
# that the plugin's hooks.json uses.
@test "1. managed PreToolUse, PostToolUse and Stop hooks run in -p, in shell-string and exec form" {
	managed "$(jq -nc --arg h "$HOOK" '{type: "command", command: ($h + " str")} as $s
	    | {type: "command", command: $h, args: ["exec"]} as $e
	    | {hooks: {PreToolUse: [{matcher: "*", hooks: [$s, $e]}],
	               PostToolUse: [{matcher: "*", hooks: [$s, $e]}],
	               Stop: [{hooks: [$s, $e]}]}}')"
	cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$P/ran"
	run -0 ran_hooks
	assert_output "exec PostToolUse,exec PreToolUse,exec Stop,str PostToolUse,str PreToolUse,str Stop"
}

@test "1. a managed hook that exits 2 blocks the Bash call, in exec and in shell-string form" {
	managed "$(gate_json)"
	cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$P/ran"
	run -0 tool_result
	assert_output --partial '"is_error":true'
	assert_output --partial "PreToolUse:Bash hook error: [$HOOK managed deny]: managed gate: no (managed)"
	run -0 jq -c '[.permission_denials[] | .tool_use_id]' "$CLAUDE_OUT"
	assert_output '["toolu_ms_1"]'
	: >"$M_LOG"
	managed "$(jq -nc --arg c "$HOOK managed deny" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $c}]}]}}')"
	cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$P/ran"
	run -0 tool_result
	assert_output --partial "PreToolUse:Bash hook error: [$HOOK managed deny]: managed gate: no (managed)"
}

# Fact 2: with "allowManagedHooksOnly": true in managed settings, the
# hooks of user settings, project settings (.claude/settings.json and
# .claude/settings.local.json), --settings, a plugin enabled in user
# settings (a directory marketplace) and a --plugin-dir plugin do not
# run; the managed hook does.  Without it (first run) all of them run.
@test "2. allowManagedHooksOnly: user, project, local, --settings and plugin hooks do not run; the managed one does" {
	local mkt="$T/mkt" pd="$T/plugdir/pd"
	mkdir -p "$mkt/.claude-plugin" "$mkt/mp/.claude-plugin" "$mkt/mp/hooks" "$pd/.claude-plugin" "$pd/hooks"
	echo '{"name":"ms-local","owner":{"name":"t"},"plugins":[{"name":"mp","source":"./mp","description":"p"}]}' \
	    >"$mkt/.claude-plugin/marketplace.json"
	echo '{"name":"mp","version":"0.0.1"}' >"$mkt/mp/.claude-plugin/plugin.json"
	hook_json plugin-mkt >"$mkt/mp/hooks/hooks.json"
	echo '{"name":"pd","version":"0.0.1"}' >"$pd/.claude-plugin/plugin.json"
	hook_json plugin-dir >"$pd/hooks/hooks.json"
	hook_json user | jq --arg m "$mkt" '. + {extraKnownMarketplaces: {"ms-local": {source: {source: "directory", path: $m}}},
	    enabledPlugins: {"mp@ms-local": true}}' >"$HOME/.claude/settings.json"
	hook_json project >"$P/.claude/settings.json"
	hook_json local >"$P/.claude/settings.local.json"
	hook_json flag >"$T/flag.json"
	local mine
	mine=$(jq -nc --arg h "$HOOK" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $h, args: ["managed"]}]}]}}')
	managed "$mine"
	cc --settings "$T/flag.json" --plugin-dir "$pd"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	run -0 ran_hooks
	assert_output "flag PreToolUse,local PreToolUse,managed PreToolUse,plugin-dir PreToolUse,plugin-mkt PreToolUse,project PreToolUse,user PreToolUse"
	managed "$(jq -c '. + {allowManagedHooksOnly: true}' <<<"$mine")"
	cc --settings "$T/flag.json" --plugin-dir "$pd"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$P/ran"
	run -0 ran_hooks
	assert_output "managed PreToolUse"
}

# Fact 2, for a plugin: a plugin that MANAGED settings enable (its
# marketplace in managed extraKnownMarketplaces) runs its hooks under
# allowManagedHooksOnly, and user settings cannot switch it off with
# enabledPlugins false or disableAllHooks.
@test "2. a plugin enabled in managed settings runs its hooks under allowManagedHooksOnly; user settings cannot turn it off" {
	local mkt="$T/mkt"
	mkdir -p "$mkt/.claude-plugin" "$mkt/mp/.claude-plugin" "$mkt/mp/hooks"
	echo '{"name":"ms-local","owner":{"name":"t"},"plugins":[{"name":"mp","source":"./mp","description":"p"}]}' \
	    >"$mkt/.claude-plugin/marketplace.json"
	echo '{"name":"mp","version":"0.0.1"}' >"$mkt/mp/.claude-plugin/plugin.json"
	jq -nc --arg h "$HOOK" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $h, args: ["mplugin", "deny"]}]}]}}' \
	    >"$mkt/mp/hooks/hooks.json"
	managed "$(jq -nc --arg m "$mkt" '{allowManagedHooksOnly: true,
	    extraKnownMarketplaces: {"ms-local": {source: {source: "directory", path: $m}}},
	    enabledPlugins: {"mp@ms-local": true}}')"
	echo '{"enabledPlugins":{"mp@ms-local":false},"disableAllHooks":true}' >"$HOME/.claude/settings.json"
	echo '{"enabledPlugins":{"mp@ms-local":false},"disableAllHooks":true}' >"$P/.claude/settings.json"
	cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_not_exist "$P/ran"
	run -0 ran_hooks
	assert_output "mplugin PreToolUse"
}

# Fact 3: what the agent can write -- user settings, the project's
# .claude/settings.json and settings.local.json, and (were it to start
# Claude Code itself) --settings -- does not take the managed deny away:
# not disableAllHooks, not an empty "hooks" or PreToolUse list, not
# "allowManagedHooksOnly": false, not a hook of its own that exits 0 or
# answers permissionDecision "allow" (with a permissions.allow rule).
# attempts_hold AMHO: each attempt against the managed gate, with the
# managed "allowManagedHooksOnly" AMHO (true, or null for absent).
attempts_hold() {
	local amho=$1 a w n=0 bad=()
	local attempts=(
	    '{"disableAllHooks":true}'
	    '{"hooks":{}}'
	    '{"hooks":{"PreToolUse":[]}}'
	    '{"allowManagedHooksOnly":false}'
	    "$(hook_json exit0)"
	    "$(jq -nc --arg a "$ALLOWHOOK" '{permissions: {allow: ["Bash"]}, hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $a}]}]}}')"
	)
	local all
	all=$(jq -nc --arg a "$ALLOWHOOK" '{disableAllHooks: true, allowManagedHooksOnly: false, permissions: {allow: ["Bash"]},
	    hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $a}]}]}}')
	managed "$(gate_json "$(jq -nc --argjson v "$amho" 'if $v == null then {} else {allowManagedHooksOnly: $v} end')")"
	try() {
		local where=$1 json=$2 extra=()
		rm -f "$HOME/.claude/settings.json" "$P/.claude/settings.json" "$P/.claude/settings.local.json"
		case $where in
		user) echo "$json" >"$HOME/.claude/settings.json" ;;
		project) echo "$json" >"$P/.claude/settings.json" ;;
		local) echo "$json" >"$P/.claude/settings.local.json" ;;
		flag) extra=(--settings "$json") ;;
		esac
		cc "${extra[@]}"
		n=$((n + 1))
		if [ "$CLAUDE_RC" -ne 0 ] || [ -e "$P/ran" ] || ! grep -qx 'managed PreToolUse' "$HOOKLOG" ||
		    [ "$(jq '.permission_denials | length' "$CLAUDE_OUT")" != 1 ]; then
			bad+=("$where $json: rc=$CLAUDE_RC ran=$([ -e "$P/ran" ] && echo yes || echo no) hooks=$(ran_hooks)")
		fi
	}
	for a in "${attempts[@]}"; do
		for w in user project; do
			try "$w" "$a"
		done
	done
	for w in local flag; do
		try "$w" "$all"
	done
	echo "# $n attempts, managed allowManagedHooksOnly=$amho: ${#bad[@]} got through" >&3
	if [ "${#bad[@]}" -gt 0 ]; then
		printf 'got through: %s\n' "${bad[@]}" >&2
		return 1
	fi
}

@test "3. the managed deny holds against every unhooking attempt in user, project, local and --settings (allowManagedHooksOnly: true)" {
	attempts_hold true
}

@test "3. the managed deny holds against every unhooking attempt without allowManagedHooksOnly too" {
	attempts_hold null
}

# Fact 3, at launch: --bare, --safe-mode, --setting-sources (user only,
# or none), --managed-settings '{}', and CLAUDE_CODE_SIMPLE (what --bare
# sets) or CLAUDE_CODE_MANAGED_SETTINGS_PATH in the process environment
# or a project's env block keep the managed hook.
@test "3. launch flags and variables do not drop the managed hook: --bare, --safe-mode, --setting-sources, --managed-settings, env" {
	managed "$(gate_json)"
	local bad=() how
	mkdir -p "$T/empty"
	echo '{}' >"$T/empty/managed-settings.json"
	for how in --bare --safe-mode "--setting-sources user" "--setting-sources=" "--managed-settings {}" \
	    env:CLAUDE_CODE_SIMPLE=1 env:CLAUDE_CODE_MANAGED_SETTINGS_PATH="$T/empty" proj:CLAUDE_CODE_SIMPLE proj:CLAUDE_CODE_MANAGED_SETTINGS_PATH; do
		rm -f "$P/.claude/settings.json"
		case $how in
		env:*) export "${how#env:}"
		       cc
		       unset "$(v=${how#env:}; echo "${v%%=*}")" ;;
		proj:*) jq -nc --arg k "${how#proj:}" --arg v "$( [ "${how#proj:}" = CLAUDE_CODE_SIMPLE ] && echo 1 || echo "$T/empty")" \
		            '{env: {($k): $v}}' >"$P/.claude/settings.json"
		        cc ;;
		*) # shellcheck disable=SC2086
		   cc $how ;;
		esac
		if [ "$CLAUDE_RC" -ne 0 ] || [ -e "$P/ran" ] || ! grep -qx 'managed PreToolUse' "$HOOKLOG"; then
			bad+=("$how: rc=$CLAUDE_RC ran=$([ -e "$P/ran" ] && echo yes || echo no) hooks=$(ran_hooks)")
		fi
	done
	if [ "${#bad[@]}" -gt 0 ]; then
		printf 'got through: %s\n' "${bad[@]}" >&2
		return 1
	fi
}

# Fact 4: the managed "env" wins.  ANTHROPIC_BASE_URL and
# ANTHROPIC_CUSTOM_HEADERS set there (mock G, X-Jh-Managed) beat the same
# variables in user settings, project settings and --settings (mock U,
# X-Jh-User) and in the process environment (mock M, X-Jh-Proc); the
# header variable is replaced whole, not merged.  The first run shows
# that without managed settings a user env block does move the request.
@test "4. managed env wins: ANTHROPIC_BASE_URL and ANTHROPIC_CUSTOM_HEADERS over user, project, --settings and the process" {
	local genv uenv hdr
	genv=$(jq -nc --arg u "$G_URL" '{env: {ANTHROPIC_BASE_URL: $u, ANTHROPIC_CUSTOM_HEADERS: "X-Jh-Managed: 1"}}')
	uenv=$(jq -nc --arg u "$U_URL" '{env: {ANTHROPIC_BASE_URL: $u, ANTHROPIC_CUSTOM_HEADERS: "X-Jh-User: 1"}}')
	hdr() { # the X-Jh-* headers MOCK_LOG's model calls carried
		MOCK_LOG=$1 mock_requests | jq -r '.headers | to_entries[] | select(.key | ascii_downcase | startswith("x-jh")) | .key' | sort -u | paste -sd, -
	}
	# control: no managed settings, the user's env moves the request
	rm -f "$MANAGED/managed-settings.json"
	echo "$uenv" >"$HOME/.claude/settings.json"
	ANTHROPIC_CUSTOM_HEADERS="X-Jh-Proc: 1" cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_equal "$(posts "$M_LOG") $(posts "$U_LOG") $(posts "$G_LOG")" "0 2 0"
	assert_equal "$(hdr "$U_LOG")" "X-Jh-User"
	managed "$genv"
	local w
	for w in user project flag; do
		: >"$M_LOG"
		: >"$U_LOG"
		: >"$G_LOG"
		rm -f "$HOME/.claude/settings.json" "$P/.claude/settings.json"
		case $w in
		user) echo "$uenv" >"$HOME/.claude/settings.json"; ANTHROPIC_CUSTOM_HEADERS="X-Jh-Proc: 1" cc ;;
		project) echo "$uenv" >"$P/.claude/settings.json"; ANTHROPIC_CUSTOM_HEADERS="X-Jh-Proc: 1" cc ;;
		flag) ANTHROPIC_CUSTOM_HEADERS="X-Jh-Proc: 1" cc --settings "$uenv" ;;
		esac
		[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
		assert_file_exist "$P/ran"
		assert_equal "$w: $(posts "$M_LOG") $(posts "$U_LOG") $(posts "$G_LOG")" "$w: 0 0 2"
		assert_equal "$w: $(hdr "$G_LOG")" "$w: X-Jh-Managed"
	done
}

# Fact 4, the limit: a managed ANTHROPIC_BASE_URL pins only the Anthropic
# API's endpoint.  A project's env that switches the provider
# (CLAUDE_CODE_USE_BEDROCK=1, ANTHROPIC_BEDROCK_BASE_URL) sends the model
# calls to ITS host (mock U gets /model/.../invoke).  Managed
# "allowedProviders": ["customEndpoint"] (with the endpoint pinned in the
# managed env) refuses that session before any request, and lets the
# pinned endpoint through.
@test "4. a managed ANTHROPIC_BASE_URL alone does not stop a project's env switching to Bedrock; allowedProviders does" {
	local bed
	bed=$(jq -nc --arg u "$U_URL" '{env: {CLAUDE_CODE_USE_BEDROCK: "1", ANTHROPIC_BEDROCK_BASE_URL: $u,
	    CLAUDE_CODE_SKIP_BEDROCK_AUTH: "1", AWS_REGION: "us-east-1"}}')
	managed "$(jq -nc --arg u "$G_URL" '{env: {ANTHROPIC_BASE_URL: $u}}')"
	echo "$bed" >"$P/.claude/settings.json"
	cc
	assert_file_not_exist "$P/ran"
	assert_equal "$(posts "$G_LOG")" 0
	run -0 jq -r 'select(.method == "POST") | .path' "$U_LOG"
	assert_output --partial "/model/"
	# allowedProviders: refused, no request anywhere
	: >"$U_LOG"
	managed "$(jq -nc --arg u "$G_URL" '{allowedProviders: ["customEndpoint"], env: {ANTHROPIC_BASE_URL: $u}}')"
	cc
	assert_equal "$CLAUDE_RC" 1
	assert_file_not_exist "$P/ran"
	assert_equal "$(grep -c POST "$U_LOG" "$G_LOG" "$M_LOG" | cut -d: -f2 | paste -sd' ')" "0 0 0"
	run -0 cat "$CLAUDE_ERR"
	assert_output --partial "ANTHROPIC_BEDROCK_BASE_URL is set in the \"env\" block of $P/.claude/settings.json"
	# ... and the pinned endpoint works under it
	rm -f "$P/.claude/settings.json"
	cc
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_file_exist "$P/ran"
	assert_equal "$(posts "$G_LOG")" 2
}

# Fact 5: the status line, which only the interactive REPL draws (tmux,
# as tests/status-cc.bats): a managed statusLine is drawn instead of the
# user's, the project's and the local one; with "allowManagedHooksOnly":
# true and no managed statusLine, the user's is NOT drawn (so hardened
# mode has to put joulehook's status line in managed settings too).
# repl_line: Claude Code's REPL in tmux in $P, stopped again; STATUS is
# what the screen held under the prompt box once its footer ("auto mode
# on") had been up for 3 s.
repl_line() {
	local i
	claude_home_interactive "$P"
	TMUX_SOCK="$T/tmux.sock"
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s ms -x 200 -y 40 -c "$P" \
	    env -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_MODEL -u CLAUDE_CONFIG_DIR -u CLAUDECODE \
	    -u CLAUDE_CODE_ENTRYPOINT -u TMUX HOME="$HOME" TERM=xterm-256color \
	    ANTHROPIC_BASE_URL="$M_URL" ANTHROPIC_API_KEY=sk-test DISABLE_TELEMETRY=1 \
	    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_ERROR_REPORTING=1 NO_PROXY=127.0.0.1,localhost "$CLAUDE_BIN"
	PANE_PID=$(tmux -S "$TMUX_SOCK" display-message -p -t ms '#{pane_pid}')
	for ((i = 0; i < 60; i++)); do
		tmux -S "$TMUX_SOCK" capture-pane -p -t ms | grep -q 'auto mode on' && break
		sleep 0.5
	done
	sleep 3
	tmux -S "$TMUX_SOCK" capture-pane -p -t ms >"$T/screen.txt"
	tmux_claude_stop
	grep -q 'auto mode on' "$T/screen.txt" || { cat "$T/screen.txt" >&2; fail "the REPL did not come up"; }
	STATUS=$(grep -oE '(MANAGED|USER|PROJECT|LOCAL)-SL' "$T/screen.txt" | sort -u | paste -sd, -)
}

@test "5. REPL: a managed statusLine wins; under allowManagedHooksOnly the user's statusLine is not drawn" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	sl() { jq -nc --arg c "echo $1-SL" '{statusLine: {type: "command", command: $c}}'; }
	sl USER >"$HOME/.claude/settings.json"
	# control: no managed settings, the user's line is drawn
	repl_line
	assert_equal "$STATUS" USER-SL
	sl PROJECT >"$P/.claude/settings.json"
	sl LOCAL >"$P/.claude/settings.local.json"
	managed "$(sl MANAGED)"
	repl_line
	assert_equal "$STATUS" MANAGED-SL
	rm -f "$P/.claude/settings.json" "$P/.claude/settings.local.json"
	managed '{"allowManagedHooksOnly": true}'
	repl_line
	assert_equal "[$STATUS]" "[]"
}

# Fact 6: /etc/claude-code/managed-mcp.json ({"mcpServers": {...}}, the
# .mcp.json shape) has exclusive control of MCP: its server loads and its
# tool answers despite disabledMcpjsonServers in user or project
# settings, a same-named server in ~/.claude.json or the project's
# .mcp.json (which do not start, nor does any other server of the
# user's), or deniedMcpServers in the project's settings; --strict-mcp-config
# is refused.  deniedMcpServers in USER settings (or --settings) does
# switch it off: Claude Code lets users deny an organization's server for
# themselves.
@test "6. managed-mcp.json: the server loads despite the user's attempts, except a user deniedMcpServers" {
	local srv usrv bad=() what
	srv=$(jq -nc --arg c "$MCPSRV" '{mcpServers: {corp: {type: "stdio", command: $c, args: ["corp"]}}}')
	usrv=$(jq -nc --arg c "$MCPSRV" '{mcpServers: {corp: {type: "stdio", command: $c, args: ["usercorp"]},
	                                               mine: {type: "stdio", command: $c, args: ["mine"]}}}')
	jq . <<<"$srv" >"$T/mcp.json"
	install -m 644 -o root -g root "$T/mcp.json" "$MANAGED/managed-mcp.json"
	jq -nc '[{tool_use: [{id: "toolu_ms_mcp", name: "mcp__corp__probe_corp", input: {}}]}]' >"$SCRIPT"
	mcp_try() { # WHAT: -> started servers, the tool's answer
		: >"$MCPLOG"
		: >"$M_LOG"
		claude_run "do the task" "$@" --allowedTools "mcp__corp__probe_corp"
		STARTED=$(grep ' start$' "$MCPLOG" | cut -d' ' -f1 | sort | paste -sd, -)
		ANSWER=$(tool_result | jq -r .content)
	}
	for what in none user:disabled project:disabled claudejson projmcp project:denied; do
		rm -f "$HOME/.claude/settings.json" "$P/.claude/settings.json" "$P/.mcp.json" "$HOME/.claude.json"
		case $what in
		user:disabled) echo '{"disabledMcpjsonServers":["corp"]}' >"$HOME/.claude/settings.json" ;;
		project:disabled) echo '{"disabledMcpjsonServers":["corp"]}' >"$P/.claude/settings.json" ;;
		claudejson) echo "$usrv" >"$HOME/.claude.json" ;;
		projmcp) echo "$usrv" >"$P/.mcp.json"
		         echo '{"enableAllProjectMcpServers":true}' >"$HOME/.claude/settings.json" ;;
		project:denied) echo '{"deniedMcpServers":[{"serverName":"corp"}]}' >"$P/.claude/settings.json" ;;
		esac
		mcp_try
		if [ "$CLAUDE_RC" -ne 0 ] || [ "$STARTED" != corp ] || [ "$ANSWER" != "hello from corp" ]; then
			bad+=("$what: rc=$CLAUDE_RC started=[$STARTED] answer=[$ANSWER]")
		fi
	done
	if [ "${#bad[@]}" -gt 0 ]; then
		printf 'managed server lost: %s\n' "${bad[@]}" >&2
		return 1
	fi
	rm -f "$HOME/.claude/settings.json" "$P/.claude/settings.json" "$P/.mcp.json" "$HOME/.claude.json"
	# --strict-mcp-config is refused while managed-mcp.json exists
	mcp_try --strict-mcp-config --mcp-config '{"mcpServers":{}}'
	assert_equal "$CLAUDE_RC" 1
	run -0 cat "$CLAUDE_ERR"
	assert_output --partial "You cannot use --strict-mcp-config when an enterprise MCP config is present"
	# the limit: the user's own deniedMcpServers (user settings, --settings)
	echo '{"deniedMcpServers":[{"serverName":"corp"}]}' >"$HOME/.claude/settings.json"
	mcp_try
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	assert_equal "[$STARTED]" "[]"
	[[ "$ANSWER" == *"No such tool available: mcp__corp__probe_corp"* ]] || fail "answer: $ANSWER"
	rm -f "$HOME/.claude/settings.json"
	mcp_try --settings '{"deniedMcpServers":[{"serverName":"corp"}]}'
	assert_equal "[$STARTED]" "[]"
}

# Fact 7 (the part root can show): a managed-settings.json that does not
# parse, or whose hook entry does not validate, stops Claude Code before
# any model call (exit 1) -- it fails closed; the installer checks what
# it writes.  (An UNREADABLE file fails open, with a warning: shown as an
# unprivileged user, see the README.)
@test "7. a managed-settings.json that does not parse or validate stops Claude Code before any model call" {
	echo '{"hooks": {' >"$MANAGED/managed-settings.json"
	cc
	assert_equal "$CLAUDE_RC" 1
	assert_equal "$(posts "$M_LOG")" 0
	run -0 cat "$CLAUDE_ERR"
	assert_output --partial "$MANAGED/managed-settings.json: Managed settings document could not be parsed as a JSON object"
	managed "$(jq -nc --arg h "$HOOK" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $h, args: ["managed", "deny"], timeout: "x"}]}]}}')"
	cc
	assert_equal "$CLAUDE_RC" 1
	assert_equal "$(posts "$M_LOG")" 0
	assert_file_not_exist "$P/ran"
	run -0 cat "$CLAUDE_ERR"
	assert_output --partial "Unable to read managed policy settings."
	assert_output --partial "Invalid command hook (timeout: Invalid input: expected number, received string)"
}
