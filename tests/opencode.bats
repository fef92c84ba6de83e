#!/usr/bin/env bats
# End to end: joulehook gating the REAL OpenCode 1.18.33, offline.
#
# Each test gets a fresh HOME, JH_HOME and JH_STATE under $T (as
# test_helper/common sets them), a project $T/proj ($P, its realpath),
# the user's own ~/.config/opencode/opencode.json pointing at
# tests/mock/openai-mock.py (tests/helpers/opencode.bash), and installs
# joulehook with `scripts/jh-install -H opencode` (-W -b $JH_BIN -p $P -g
# <a grant written for the test>), which writes the plugin
# ~/.config/opencode/plugin/joulehook.js (hosts/opencode/bind.sh).  Then
# `opencode run --format json` runs in $P with a scripted conversation.
#
# Every claim is shown by a side effect on disk, by what the model was
# sent back (the tool message of the next request, in the mock's log),
# and by the session's log JH_STATE/logs/<sha256 of the session id>.jhl
# as jh-verify reads it.
#
# What OpenCode 1.18.33 does with the plugin (hosts/opencode/README.md):
# a throw from tool.execute.before is a block whose text the model gets
# as the tool's result, and the loop goes on; a hook that never resolves
# hangs the run (OpenCode has no hook timeout: the plugin keeps its own).
#
# Where npm cannot reach the registry the tests that need the binary are
# skipped, loudly ("SKIPPED: cannot install OpenCode from npm: ...").

load test_helper/common
load helpers/claude
load helpers/proxy
load helpers/opencode

setup_file() {
	jh_bin_snapshot
}

setup() {
	_common_setup
	mkdir -p "$T/proj"
	P=$(cd "$T/proj" && pwd -P)
	cd "$P"
}

teardown() {
	local rc=0
	proxy_stop || rc=1
	opencode_mock_stop
	return $rc
}

# grant CAPS [POLICIES]: a grant document for the project in $T/grant.json.
grant() {
	jq -n --arg root "$P" --argjson caps "$1" --argjson pol "${2:-[]}" '{
	    audience: "joulehook:*", nbf: 0, exp: 4102444800,
	    budget_uj: 20000000000000,
	    costs: {shell: 2000000, write: 200000, edit: 200000, read: 50000,
	            search: 50000, default: 100000},
	    root: $root, caps: $caps, policies: $pol}' >"$T/grant.json"
}

# turns JSON: the mock's script, its turns (a title request is answered
# outside them).
turns() {
	jq -c '{toolless_text: "A title", text: "done", chat_turns: .}' <<<"$1" >"$T/script.json"
}

# bash ID CMD: one bash tool call, for turns().
bash_call() {
	jq -nc --arg i "$1" --arg c "$2" '{id: $i, name: "bash", arguments: {command: $c, description: "e2e"}}'
}

# tool ID NAME ARGS: one call of another tool.
tool_call() {
	jq -nc --arg i "$1" --arg n "$2" --argjson a "$3" '{id: $i, name: $n, arguments: $a}'
}

# oc_install [ARGS]: the mock (unless started), the user's opencode.json,
# then jh-install -H opencode.
oc_install() {
	[ -n "${MOCK_PID:-}" ] || opencode_mock_start "$T/script.json"
	opencode_config
	run sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H opencode "$@"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	INSTALL_OUT=$output
}

# e2e: opencode run in $P; fails (with a dump) unless it exits 0.  Sets
# SID and LOG.
e2e() {
	opencode_run "do the task"
	[ "$OC_RC" -eq 0 ] || { oc_dump; return 1; }
	SID=$(opencode_session)
	[ -n "$SID" ] || { oc_dump; return 1; }
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
}

oc_dump() {
	echo "opencode exited $OC_RC" >&2
	tail -c 3000 "$OC_OUT" >&2
	grep -iE 'error|joulehook|plugin' "$OC_ERR" | tail -n 30 >&2
}

# answer ID: what the model was sent back for call ID.
answer() {
	opencode_output "$1"
}

# decided: each decision's call, verdict and code, in log order.
decided() {
	jh-verify "$LOG" | jq -r 'select(.kind == "decision/1") |
	    [.core.tool_use_id, .core.verdict, .core.code] | join(" ")'
}

log_verifies() {
	run -0 jh-verify "$LOG"
	run -0 jq -c 'select(.log or .summary) | [.log.ok, .summary.failed]' <<<"$output"
	assert_output '[true,null]
[null,0]'
}

# bats test_tags=host
@test "1. a granted command runs, and its allow receipt is in the session's log" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'touch granted')]}]"
	oc_install
	assert_output --partial "bound OpenCode: the plugin $HOME/.config/opencode/plugin/joulehook.js"
	e2e
	assert_file_exist "$P/granted"
	run -0 decided
	assert_output "c1 allow ok"
	run -0 answer c1
	refute_output --partial joulehook
	log_verifies
}

# bats test_tags=host
@test "2. a denied rm -rf does not run; the model is told joulehook's reason and the loop goes on" {
	opencode_install
	grant '[{"class": "shell", "command": ["rm *", "touch *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	echo precious >"$P/victim"
	turns "[{\"tool_calls\": [$(bash_call c1 'rm -rf victim')]}, {\"text\": \"I was blocked\"}]"
	oc_install
	e2e
	run -0 cat "$P/victim"
	assert_output precious
	run -0 answer c1
	assert_output --regexp '^joulehook: blocked by policy no-destruction: destructive commands are never granted'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.verdict, .core.code, .core.debited_uj] | @tsv'"
	assert_output "$(printf 'deny\tpolicy-deny\t0')"
	# the next turn was asked for, with the block in it
	run -0 jq -r 'select(.type == "text") | .part.text' "$OC_OUT"
	assert_output 'I was blocked'
	log_verifies
}

# bats test_tags=host
@test "3. an ask policy is a deny that says so (the plugin cannot ask): not run, the model told, no hang" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "ask-secrets", "when": {"class": "shell", "command": ["touch *secret*"]},
	       "verdict": "ask", "reason": "a human must approve secrets"}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'touch secret')]}, {\"text\": \"asked\"}]"
	oc_install
	SECONDS=0
	e2e
	[ "$SECONDS" -lt 60 ]
	assert_file_not_exist "$P/secret"
	run -0 answer c1
	assert_output --partial 'a human must approve secrets'
	assert_output --partial 'which opencode cannot be asked for here: it is denied'
	run -0 decided
	assert_output "c1 ask policy-ask"
}

# bats test_tags=host
@test "4. a write outside the project (bash) and outside the granted paths (write) is denied; one inside runs" {
	opencode_install
	grant '[{"class": ["read", "search"], "path": ["**"]},
	        {"class": ["write", "edit"], "path": ["src/**"]},
	        {"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$P/src" "$T/elsewhere"
	turns "[{\"tool_calls\": [$(bash_call c1 "touch $T/elsewhere/escaped"),
	    $(tool_call c2 write "$(jq -nc --arg f "$P/outside.txt" '{filePath: $f, content: "escaped\n"}')"),
	    $(tool_call c3 write "$(jq -nc --arg f "$P/src/new.txt" '{filePath: $f, content: "inside\n"}')")]}]"
	oc_install
	e2e
	assert_file_not_exist "$T/elsewhere/escaped"
	assert_file_not_exist "$P/outside.txt"
	run -0 cat "$P/src/new.txt"
	assert_output inside
	run -0 answer c1
	assert_output --regexp '^joulehook: not in your grant'
	run -0 answer c2
	assert_output --regexp '^joulehook: not in your grant'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | join(\" \")' | sort | tr '\n' ' '"
	assert_output 'c1 deny c2 deny c3 allow '
	log_verifies
}

# bats test_tags=host
@test "5. a rewrite policy changes the command that runs" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "redact-token", "when": {"class": "shell"},
	       "rewrite": {"field": "command", "regex": "ghp_[A-Za-z0-9]{36}", "with": "REDACTED"}}]'
	tok=ghp_$(printf 'a%.0s' $(seq 36))
	turns "[{\"tool_calls\": [$(bash_call c1 "touch $tok")]}]"
	oc_install
	e2e
	assert_file_not_exist "$P/$tok"
	assert_file_exist "$P/REDACTED"
	run -0 decided
	assert_output "c1 rewrite policy-rewrite"
	# OpenCode reports the arguments that ran
	run -0 jq -r 'select(.type == "tool_use") | .part.state.input.command' "$OC_OUT"
	assert_output 'touch REDACTED'
	# and the result binds to the rewritten input
	run -0 sh -c "jh-verify '$LOG' | jq -c 'select(.kind == \"result/1\") | [.core.status, .core.check]'"
	assert_output '["ok","match"]'
	log_verifies
}

# bats test_tags=host
@test "6. a stage killed mid-pipeline blocks the tool; the calls around it run" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *'touch killed'*) kill -KILL \$\$ ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	turns "[{\"tool_calls\": [$(bash_call c1 'touch before')]},
	        {\"tool_calls\": [$(bash_call c2 'touch killed')]},
	        {\"tool_calls\": [$(bash_call c3 'touch after')]}]"
	oc_install
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	e2e
	assert_file_exist "$P/before"
	assert_file_not_exist "$P/killed"
	assert_file_exist "$P/after"
	run -0 answer c2
	assert_output --regexp '^joulehook: '
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.verdict' | tr '\n' ' '"
	assert_output 'allow allow '
	log_verifies
}

# bats test_tags=host
@test "7. a jh-hook that cannot be executed, or that hangs past the plugin's deadline, blocks the tool; the run does not hang" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'touch unhooked')]}, {\"text\": \"blocked\"}]"
	# -d 2000: the plugin gives the hook 2000 + 500 + 5000 ms
	oc_install -d 2000
	grep -qF 'const DEADLINE_MS = Number("7500");' "$HOME/.config/opencode/plugin/joulehook.js"
	hook=$JH_HOME/bin/jh-hook
	grep -qF "const HOOK = \"$hook\";" "$HOME/.config/opencode/plugin/joulehook.js"
	cp "$hook" "$T/jh-hook.real"
	chmod 644 "$hook"
	e2e
	assert_file_not_exist "$P/unhooked"
	run -0 answer c1
	assert_output --regexp "^joulehook: bash was not run: cannot run $hook: .*the gate fails closed"

	# a hook that never answers: killed at the deadline, with its group
	printf '#!/bin/sh\necho started >>"%s"\nexec sleep 613\n' "$T/hang.log" >"$hook"
	chmod 755 "$hook"
	SECONDS=0
	e2e
	[ "$SECONDS" -lt 60 ]
	assert_file_exist "$T/hang.log"
	assert_file_not_exist "$P/unhooked"
	run -0 answer c1
	assert_output --regexp "^joulehook: bash was not run: $hook gave no answer within 7500 ms and was killed"
	! pgrep -x -f "sleep 613"

	# a hook that answers allow but exits with another status
	printf '#!/bin/sh\necho "{\\"decision\\":\\"allow\\"}"\nexit 1\n' >"$hook"
	e2e
	assert_file_not_exist "$P/unhooked"
	run -0 answer c1
	assert_output --regexp "^joulehook: bash was not run: $hook exited 1 without a valid answer"
	cp "$T/jh-hook.real" "$hook"
}

# bats test_tags=host
@test "8. two parallel bash calls are each decided, their hooks concurrent; one unforked chain" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	cat >"$T/chain-slow.sh" <<-EOF
	#!/bin/sh
	echo "\$\$ \$(date +%s%N)" >>"$T/chain-starts"
	sleep 0.3
	exec "$JH_BIN/jh-chain" "\$@"
	EOF
	chmod 755 "$T/chain-slow.sh"
	turns "[{\"tool_calls\": [$(bash_call p1 'touch p1'), $(bash_call p2 'rm p0')]}]"
	oc_install
	echo "stage3=$T/chain-slow.sh" >>"$JH_HOME/hook.conf"
	touch "$P/p0"
	e2e
	assert_file_exist "$P/p1"
	assert_file_exist "$P/p0"
	run -0 answer p2
	assert_output --regexp '^joulehook: not in your grant'
	run -0 sh -c "jh-verify '$LOG' | jq -s '[.[] | select(.chain) | .chain.seq] | . == [range(length)]'"
	assert_output true
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.tool_use_id + \" \" + .core.verdict' | sort | tr '\n' ' '"
	assert_output 'p1 allow p2 deny '
	# the two pre-tool jh-chain stages overlapped
	run -0 sh -c "awk '{print \$2}' '$T/chain-starts' | sort -n | head -n 2 |
	    awk 'NR > 1 && \$1 - p < 300000000 {n++} {p = \$1} END {print n + 0}'"
	[ "$output" -ge 1 ]
	log_verifies
}

# bats test_tags=host
@test "9. the receipts chain and verify; tool.execute.after binds each result (bash, write, read, edit) to its decision" {
	opencode_install
	grant '[{"class": ["read", "search", "write", "edit"], "path": ["**"]},
	        {"class": "shell", "command": ["echo *"]}]'
	echo 'alpha line' >"$P/existing.txt"
	turns "[{\"tool_calls\": [$(bash_call b1 'echo one')]},
	    {\"tool_calls\": [$(tool_call w1 write "$(jq -nc --arg f "$P/new.txt" '{filePath: $f, content: "new\n"}')")]},
	    {\"tool_calls\": [$(tool_call r1 read "$(jq -nc --arg f "$P/existing.txt" '{filePath: $f}')")]},
	    {\"tool_calls\": [$(tool_call e1 edit "$(jq -nc --arg f "$P/existing.txt" '{filePath: $f, oldString: "alpha", newString: "beta"}')")]},
	    {\"text\": \"finished\"}]"
	oc_install
	e2e
	run -0 cat "$P/new.txt"
	assert_output new
	run -0 cat "$P/existing.txt"
	assert_output 'beta line'
	run -0 decided
	assert_output "$(printf 'b1 allow ok\nw1 allow ok\nr1 allow ok\ne1 allow ok')"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | [.core.tool_use_id, .core.event, .core.status, .core.check] | join(\" \")'"
	assert_output "$(printf 'b1 PostToolUse ok match\nw1 PostToolUse ok match\nr1 PostToolUse ok match\ne1 PostToolUse ok match')"
	log_verifies
}

# bats test_tags=host
@test "10. attack: the agent cannot unhook the gate: even a grant of every command and path leaves OpenCode's config to the user" {
	opencode_install
	grant '[{"class": "shell", "command": ["*"]},
	        {"class": ["read", "search", "write", "edit"], "path": ["/**"]}]'
	plugin=$HOME/.config/opencode/plugin/joulehook.js
	cfg=$HOME/.config/opencode/opencode.json
	turns "[{\"tool_calls\": [
	    $(tool_call a1 write "$(jq -nc --arg f "$plugin" '{filePath: $f, content: "export const X = async () => ({})\n"}')"),
	    $(bash_call a2 "rm -f $plugin"),
	    $(tool_call a3 edit "$(jq -nc --arg f "$cfg" '{filePath: $f, oldString: "mock-model", newString: "x"}')"),
	    $(bash_call a4 "echo '{}' > $cfg"),
	    $(tool_call a5 write "$(jq -nc --arg f "$P/.opencode/plugin/evil.js" '{filePath: $f, content: "export const E = async () => ({})\n"}')"),
	    $(tool_call a6 write "$(jq -nc --arg f "$P/opencode.json" '{filePath: $f, content: "{\"plugin\": [\"evil\"]}\n"}')"),
	    $(bash_call a7 "mkdir -p $HOME/.opencode/plugin && touch $HOME/.opencode/plugin/evil.js")]}]"
	oc_install
	cp "$plugin" "$T/plugin.before"
	cp "$cfg" "$T/cfg.before"
	e2e
	cmp "$plugin" "$T/plugin.before"
	cmp "$cfg" "$T/cfg.before"
	assert_file_not_exist "$P/.opencode/plugin/evil.js"
	assert_file_not_exist "$P/opencode.json"
	assert_file_not_exist "$HOME/.opencode/plugin/evil.js"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict, .core.code] | join(\" \")' | sort"
	assert_output "$(printf 'a1 deny protected-path\na2 deny protected-path\na3 deny protected-path\na4 deny protected-path\na5 deny protected-path\na6 deny protected-path\na7 deny protected-path')"
	log_verifies
}

# bats test_tags=host
@test "11. a plugin of the user's that changes the arguments after joulehook allowed them: the result does not match, the model is told, the session is stopped" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'touch decided')]},
	        {\"tool_calls\": [$(bash_call c2 'touch later')]}]"
	oc_install
	# loaded after joulehook's (OpenCode loads the directory in order)
	cat >"$HOME/.config/opencode/plugin/zz-rewrite.js" <<-'EOF'
	export const Rewrite = async () => ({
		"tool.execute.before": async (input, output) => {
			if (output.args.command === "touch decided")
				output.args.command = "touch undecided";
		},
	});
	EOF
	e2e
	if [ -e "$P/decided" ]; then
		skip "OpenCode ran joulehook's tool.execute.before after the user's plugin here"
	fi
	assert_file_exist "$P/undecided"
	run -0 answer c1
	assert_output --partial 'joulehook:'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | .core.check'"
	refute_output match
	# OpenCode's plugin cannot end the run: the gate denies the rest
	assert_file_not_exist "$P/later"
	run -0 answer c2
	assert_output --partial 'stopped'
}

@test "bind.sh: the plugin filled in, the user's opencode.json kept; -M adds the metered provider; unbind removes only its own" {
	mkdir -p "$HOME/.config/opencode"
	jq -n '{model: "mine/m", provider: {mine: {npm: "@ai-sdk/openai-compatible",
	    options: {baseURL: "https://up.example/v1"}, models: {m: {name: "M"}}}},
	    mcp: {theirs: {type: "local", command: ["x"]}}}' >"$HOME/.config/opencode/opencode.json"
	cp "$HOME/.config/opencode/opencode.json" "$T/user.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H opencode
	plugin=$HOME/.config/opencode/plugin/joulehook.js
	! grep -q '@JH_' "$plugin"
	run -0 grep -F "const HOOK = \"$JH_HOME/bin/jh-hook\";" "$plugin"
	run -0 grep -F "const HOOK_ARGS = [\"-c\", \"$JH_HOME/hook.conf\", \"-H\", \"opencode\"];" "$plugin"
	run -0 grep -F 'const DEADLINE_MS = Number("15000");' "$plugin"
	run -0 jq -c '[.model, .provider.mine.options.baseURL, .mcp.theirs.command, .mcp.joulehook.command[0]]' "$HOME/.config/opencode/opencode.json"
	assert_output "[\"mine/m\",\"https://up.example/v1\",[\"x\"],\"$JH_HOME/bin/jh-status\"]"
	# idempotent
	cp "$plugin" "$T/p1"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H opencode
	cmp "$plugin" "$T/p1"
	# a plugin of the user's is warned of
	echo 'export const Mine = async () => ({})' >"$HOME/.config/opencode/plugin/mine.js"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H opencode
	assert_output --partial "warning: OpenCode also loads $HOME/.config/opencode/plugin/mine.js"
	# a file of that name that is not joulehook's is not replaced
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H opencode
	assert_file_not_exist "$plugin"
	assert_file_exist "$HOME/.config/opencode/plugin/mine.js"
	run -0 jq -cS . "$HOME/.config/opencode/opencode.json"
	assert_output "$(jq -cS . "$T/user.json")"
	echo 'theirs' >"$plugin"
	run -1 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H opencode
	assert_output --partial "is not joulehook's; not touching it"
	run -0 cat "$plugin"
	assert_output theirs
	rm -f "$plugin"

	# -M through bind.sh alone (no proxy started): provider.joulehook,
	# with the models of the user's provider that calls upstream
	cat >"$T/stub.sh" <<-'EOF'
	. "$STUBS"
	bindir=$BINDIR conf="$JH_HOME/hook.conf" deadline=8000 hostdir=$1
	. "$hostdir/bind.sh"
	"$2"
	EOF
	run -0 env HOME="$HOME" JH_HOME="$JH_HOME" BINDIR="$JH_BIN" \
	    url=http://127.0.0.1:8177 token=tok upstream=https://up.example \
	    STUBS="$PROJECT_ROOT/tests/helpers/bindstub.sh" sh "$T/stub.sh" \
	    "$PROJECT_ROOT/hosts/opencode" jh_bind
	run -0 jq -c '.provider.joulehook | [.npm, .options.baseURL, .options.headers["X-Joulehook-Token"], (.models | keys)]' "$HOME/.config/opencode/opencode.json"
	assert_output '["@ai-sdk/openai-compatible","http://127.0.0.1:8177/v1","tok",["m"]]'
	run -0 env HOME="$HOME" JH_HOME="$JH_HOME" BINDIR="$JH_BIN" \
	    STUBS="$PROJECT_ROOT/tests/helpers/bindstub.sh" sh "$T/stub.sh" \
	    "$PROJECT_ROOT/hosts/opencode" jh_unbind
	run -0 jq -cS . "$HOME/.config/opencode/opencode.json"
	assert_output "$(jq -cS . "$T/user.json")"
	# XDG_CONFIG_HOME is honoured
	mkdir -p "$T/xdg"
	run -0 env XDG_CONFIG_HOME="$T/xdg" HOME="$HOME" JH_HOME="$JH_HOME" BINDIR="$JH_BIN" \
	    STUBS="$PROJECT_ROOT/tests/helpers/bindstub.sh" sh "$T/stub.sh" \
	    "$PROJECT_ROOT/hosts/opencode" jh_bind
	assert_file_exist "$T/xdg/opencode/plugin/joulehook.js"
}

@test "the plugin by itself fails closed: unconfigured, a hook that answers nothing, and an after hook that fails reports, never throws" {
	command -v node >/dev/null || skip "no node to load the plugin with"
	mkdir -p "$T/pl"
	cp "$PROJECT_ROOT/hosts/opencode/plugin/joulehook.js" "$T/pl/unconfigured.mjs"
	# as it is in the source tree: every call blocked
	cat >"$T/drive.mjs" <<-'EOF'
	const m = await import(process.argv[2]);
	const p = await m.JouleHook({ directory: "/nonexistent" });
	const out = { args: { command: "true" } };
	try {
		await p["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, out);
		console.log("RAN");
	} catch (e) {
		console.log("BLOCKED " + e.message);
	}
	const after = { title: "t", metadata: {}, output: "x" };
	await p["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args: {} }, after);
	console.log("AFTER " + after.output.replace(/\n/g, " "));
	EOF
	run -0 node "$T/drive.mjs" "$T/pl/unconfigured.mjs"
	assert_line --regexp '^BLOCKED joulehook: bash was not run: the plugin is not configured'
	assert_line --regexp '^AFTER x  joulehook: the result of bash \(c\) was not recorded: the plugin is not configured'
	# a hook that exits 0 with nothing: not an allow
	printf '#!/bin/sh\ncat >/dev/null\n' >"$T/empty-hook"
	chmod 755 "$T/empty-hook"
	sed -e "s|\"@JH_HOOK@\"|\"$T/empty-hook\"|; s|\"@JH_DEADLINE_MS@\"|\"3000\"|" \
	    "$PROJECT_ROOT/hosts/opencode/plugin/joulehook.js" >"$T/pl/empty.mjs"
	run -0 node "$T/drive.mjs" "$T/pl/empty.mjs"
	assert_line --regexp "^BLOCKED joulehook: bash was not run: $T/empty-hook exited 0 without a valid answer"
	# a rewrite to what is not an object of arguments
	printf '#!/bin/sh\ncat >/dev/null\necho "{\\"decision\\":\\"allow\\",\\"args\\":[1]}"\n' >"$T/bad-rewrite"
	chmod 755 "$T/bad-rewrite"
	sed -e "s|\"@JH_HOOK@\"|\"$T/bad-rewrite\"|; s|\"@JH_DEADLINE_MS@\"|\"3000\"|" \
	    "$PROJECT_ROOT/hosts/opencode/plugin/joulehook.js" >"$T/pl/bad.mjs"
	run -0 node "$T/drive.mjs" "$T/pl/bad.mjs"
	assert_line --regexp '^BLOCKED joulehook: the gate.s rewrite is not an object of arguments'
	# a rewrite replaces the arguments in the object OpenCode runs; a
	# stop after the call is added to its output
	cat >"$T/fake-hook" <<-'EOF'
	#!/bin/sh
	case $(cat) in
	*tool.execute.before*) echo '{"decision":"allow","reason":"r","args":{"command":"echo safe"}}' ;;
	*) echo '{"decision":"stop","reason":"joulehook: what ran is not what was decided"}' ;;
	esac
	EOF
	chmod 755 "$T/fake-hook"
	sed -e "s|\"@JH_HOOK@\"|\"$T/fake-hook\"|; s|\"@JH_DEADLINE_MS@\"|\"3000\"|" \
	    "$PROJECT_ROOT/hosts/opencode/plugin/joulehook.js" >"$T/pl/fake.mjs"
	cat >"$T/drive2.mjs" <<-'EOF'
	const m = await import(process.argv[2]);
	const p = await m.JouleHook({ directory: "/nonexistent" });
	const args = { command: "rm -rf x", description: "d" };
	const out = { args };
	await p["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, out);
	console.log("SAME " + (out.args === args) + " " + JSON.stringify(args));
	const after = { title: "t", metadata: {}, output: "x" };
	await p["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args }, after);
	console.log("AFTER " + after.output.replace(/\n/g, " "));
	await p["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args }, undefined);
	console.log("UNDEFINED OK");
	EOF
	run -0 node "$T/drive2.mjs" "$T/pl/fake.mjs"
	assert_line 'SAME true {"command":"echo safe"}'
	assert_line 'AFTER x  joulehook: what ran is not what was decided'
	assert_line 'UNDEFINED OK'
}

# bats test_tags=host
@test "12. when the session goes idle the gate seals a checkpoint (-C), which the log matches" {
	opencode_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'touch one')]}, {\"text\": \"finished\"}]"
	mkdir -p "$T/sink"
	oc_install -C "$T/sink/checkpoints"
	e2e
	assert_file_exist "$P/one"
	[ -s "$T/sink/checkpoints" ]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
	log_verifies
}

# bats test_tags=host
@test "13. through the installed meter (-M): provider.joulehook sends through jh-proxy; one efficiency/1 per model call in the session's own log, beside the gate's receipts" {
	opencode_install
	grant '[{"class": "shell", "command": ["echo *"]}]'
	turns "[{\"tool_calls\": [$(bash_call c1 'echo metered')]}, {\"text\": \"finished\"}]"
	opencode_mock_start "$T/script.json"
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	oc_install -M "$MOCK_URL" -l "127.0.0.1:$port"
	assert_output --partial "bound the meter for OpenCode: provider.joulehook"
	cmd=$(sed -n 's/^ExecStart=//p' "$HOME/.config/systemd/user/joulehook-proxy.service")
	$cmd </dev/null 2>"$T/svc.err" 3>&- &
	PROXY_PID=$!
	PROXY_ERR="$T/svc.err"
	for n in $(seq 50); do grep -q 'listening on' "$T/svc.err" && break; sleep 0.1; done
	opencode_run "do the task" -m joulehook/mock-model
	[ "$OC_RC" -eq 0 ] || { oc_dump; cat "$T/svc.err" >&2; false; }
	SID=$(opencode_session)
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
	# every model call went through the proxy, with OpenCode's session id
	calls=$(jq -c 'select(.method == "POST" and .path == "/v1/chat/completions")' "$MOCK_LOG" | wc -l)
	[ "$calls" -ge 3 ]
	run -0 jq -r 'select(.method == "POST") | .headers["x-session-id"] // .headers["X-Session-Id"] // "none"' "$MOCK_LOG"
	refute_output --partial none
	run receipts "$SID"
	assert_equal "${#lines[@]}" "$calls"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.verdict'"
	assert_output allow
	log_verifies
	proxy_stop
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H opencode
	run -0 jq -c '[.provider.joulehook, .mcp]' "$HOME/.config/opencode/opencode.json"
	assert_output '[null,null]'
}

@test "the starter grant: OpenCode's todowrite, todoread, skill and the receipt tool run; task and an MCP tool are denied, saying how to grant them" {
	mkdir -p "$HOME/src/app"
	(cd "$HOME/src/app" && git init -q)
	unset JH_HOME JH_STATE
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$HOME/src/app" -H opencode
	hook=$HOME/.config/joulehook/bin/jh-hook
	conf=$HOME/.config/joulehook/hook.conf
	call() {
		jq -nc --arg t "$1" --arg d "$HOME/src/app" '{hook_event_name: "tool.execute.before",
		    session_id: "s-starter", tool_call_id: ("c-" + $t), tool: $t, args: {}, cwd: $d}' |
		    "$hook" -c "$conf" -H opencode 2>/dev/null
	}
	for t in todowrite todoread skill joulehook_verify; do
		run -0 call "$t"
		assert_output '{"decision":"allow"}'
	done
	run -2 call task
	assert_output --partial '"decision":"deny"'
	assert_output --partial 'jh-grant add tool=task'
	assert_output --partial 'which opencode cannot be asked for here: it is denied'
	run -2 call github_create_issue
	assert_output --partial 'jh-grant add tool=github_create_issue'
}
