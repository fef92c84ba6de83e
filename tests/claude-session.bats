#!/usr/bin/env bats
# A whole coding session through the REAL Claude Code 2.1.328 (offline,
# tests/mock/anthropic-mock.py) and the REAL installed joulehook:
# scripts/jh-install with the STARTER GRANT (no -g), in a temporary HOME,
# JH_HOME and JH_STATE, as a user gets it.
#
#  1. -p: a scripted session of 19 tool calls done the way Claude Code's
#     agent does them (Read, grep/find through Bash -- 2.1.328 has no
#     Grep or Glob tool, see below --, npm test, Edit, Write, git add,
#     the heredoc commit, a branch, a push) runs to its end: every step
#     but the push ran, the push was asked (the starter grant's `push`
#     policy), and the session log verifies.
#  2. the interactive REPL under tmux: for each tool kind the starter
#     grant asks about (Bash, Write, Read, Edit, WebFetch), Claude Code's
#     permission dialog comes up; where Claude Code shows a hook's reason
#     (Bash, WebFetch) joulehook's is on screen; the test approves each
#     and the tool runs.
#  3. the grant widened under a running REPL: curl is asked twice (the
#     dialog shows "To allow it from now on: jh-grant add effect=net
#     program=curl host=example.com") and approved; jh-grant learn proposes that line,
#     jh-grant -y add runs it, the ledger keeps what was spent, and the
#     same curl in the same session then runs with no dialog.
#
# Facts about Claude Code 2.1.328 these tests rest on (observed here):
#
#  - Its tool list (the request's tools) has no Grep and no Glob, in -p
#    and in the REPL; a tool_use of either gets "<tool_use_error>Error: No
#    such tool available: Grep. Grep is not available in this session --
#    search file contents with `grep` via the Bash tool instead." So the
#    scripted agent searches with Bash grep and find, as the real one does.
#    WebFetch is deferred (not in the list until ToolSearch loads it), but
#    a tool_use of it runs.
#
#  - A hook "ask" in -p (permissionDecision "ask", exit 0), even for a tool
#    that --allowedTools allows: nobody can answer, so Claude Code DENIES
#    the call.  The tool does not run; the model gets a tool_result with
#    is_error:true whose content is the hook's permissionDecisionReason
#    alone ("joulehook: ..."; unlike a hook deny, no "PreToolUse:Bash hook
#    error:" prefix); the call is listed in the result JSON's
#    permission_denials; claude exits 0 and the session goes on (the model
#    gets its next turn).  The transcript's entry for that tool_result has
#    toolDenialKind "user-rejected" and permissionDecision {decision:
#    "reject", source: "config", reasonCode: "hook:PreToolUse"}.  No
#    PermissionDenied hook event is sent for it, so joulehook's Stop stage
#    records the ask as not-run, answer "refused".
#
#  - In the REPL (permission mode "auto", its default) a hook "ask" always
#    brings up Claude Code's own permission dialog for the tool (auto mode
#    does not decide it), and the transcript records the human's yes as
#    {decision: "accept", source: "user_temporary", reasonCode:
#    "hook:PreToolUse"}.  Whether the dialog shows the hook's
#    permissionDecisionReason depends on the tool:
#      Bash, WebFetch: YES, in a box above the question:
#        │ Hook PreToolUse:Bash requires confirmation for this command:
#        │ joulehook: not in your grant: no capability grants net https://example.com (curl) [plugin:joulehook]
#        plugin hooks.json to update hooks
#        Do you want to proceed?
#      (WebFetch: "... for this tool:", then "Do you want to allow Claude
#      to fetch this content?")
#      Write, Edit, Read: NO (below).  So joulehook's ask also carries a
#      systemMessage with the same text, which the REPL prints for every
#      tool, but only once the dialog was answered, under the tool's line:
#        ⎿  PreToolUse:Write says: joulehook: asked by policy executed-files: ...
#      Write, Edit, Read, during the dialog:  The dialog is the plain one, with no word of
#      the hook or its reason anywhere on the screen:
#        Write: "Create file" / "Makefile" / the content / "Do you want to
#               create Makefile?"
#        Edit:  "Edit file" / "package.json" / the diff / "Do you want to
#               make this edit to package.json?"
#        Read:  "Read file" / "Read(<abs path>/.env)" / "Do you want to
#               proceed?"
#      so for the starter grant's executed-files (Write, Edit) and
#      secrets-read (Read) asks, the user is asked without being told why.
#      Test 2 asserts the reason for Bash and WebFetch and notes (on fd 3)
#      its absence for the others, without failing.
#
#  - A hook that answers nothing (joulehook's allow without jh-install -A)
#    leaves the call to Claude Code's own permissions.  In the REPL's auto
#    mode, offline, a curl then gets auto mode's own dialog "Auto mode
#    can't check actions in this session" (its safety check runs on the
#    server; the mock has none).  An allow rule of the user's own
#    (Bash(curl:*) in .claude/settings.local.json) lets it run with no
#    dialog (transcript: permissionDecision {decision: "accept", source:
#    "config", reasonType: "subcommandResults"}), yet a hook "ask" still
#    brings the dialog up over that rule.  With jh-install -A the hook's
#    allow answers instead: {decision: "accept", source: "hook"}.
#
#  - The hook reads the grant on every call: a grant resealed while the
#    REPL runs is in force from the session's next tool call, no restart.

# Where npm cannot reach the registry the tests are skipped, loudly
# ("SKIPPED: cannot install Claude Code from npm: ...").

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
	# npm must not look for its own updates (offline)
	export npm_config_update_notifier=false NO_UPDATE_NOTIFIER=1
	cd "$P"
}


teardown() {
	tmux_claude_stop
	mock_stop
}

# project: a small node project with a bug and a failing test, committed
# on main and pushed to a bare local remote ($T/remote.git).
project() {
	mkdir -p "$P/src"
	cat >"$P/package.json" <<-'EOF'
	{
	  "name": "calc",
	  "version": "1.0.0",
	  "private": true,
	  "scripts": {
	    "test": "node test.js"
	  }
	}
	EOF
	cat >"$P/src/sum.js" <<-'EOF'
	// The sum of the numbers in a list.
	function sum(xs) {
	  let total = 0;
	  for (let i = 1; i < xs.length; i++) total += xs[i];
	  return total;
	}

	module.exports = { sum };
	EOF
	cat >"$P/test.js" <<-'EOF'
	const assert = require("assert");
	const { sum } = require("./src/sum");

	assert.strictEqual(sum([]), 0);
	assert.strictEqual(sum([1, 2, 3]), 6);
	console.log("ok: sum");
	EOF
	printf 'node_modules/\n' >"$P/.gitignore"
	git -C "$P" init -q -b main
	git -C "$P" config user.name "Test User"
	git -C "$P" config user.email "test@example.invalid"
	git -C "$P" add -A
	git -C "$P" commit -q -m "calc: sum"
	git init -q --bare "$T/remote.git"
	git -C "$P" remote add origin "$T/remote.git"
	git -C "$P" push -q origin main
}

# The installed programs, as the hook runs them.
jhv() {
	"$JH_HOME/bin/jh-verify" "$@"
}

# result ID: what the model was sent back for tool call ID, as
# {"is_error":..,"content":"..."} (content blocks joined).
result() {
	mock_requests | jq -c --arg id "$1" '.body.messages[]?
	    | select(.role == "user" and (.content | type) == "array")
	    | .content[] | select(.type == "tool_result" and .tool_use_id == $id)
	    | {is_error: (.is_error // false),
	       content: (.content | if type == "string" then .
	                 else map(.text // "") | join("") end)}' | head -n1
}

# decision ID: the log's decision entry for tool call ID (core).
decision() {
	jhv "$LOG" | jq -c --arg id "$1" 'select(.chain and .kind == "decision/1"
	    and .core.tool_use_id == $id) | .core'
}

# rule_id CORE: the id of the grant rule that decided (caps[i] and
# policies[i] resolved through the installed grant document).
rule_id() {
	local r
	r=$(jq -r .rule <<<"$1")
	jq -r --arg r "$r" '(first($r | capture("^(?<k>caps|policies)\\[(?<i>[0-9]+)\\]$")?) // null) as $m
	    | if $m then .[$m.k][$m.i | tonumber].id // $r else $r end' "$GRANT_JSON"
}

# squash: stdin with every blank removed (a dialog line may wrap).
squash() {
	tr -d ' \t\n│╭╮╰╯─'
}

# ----------------------------------------------------------------------

# bats test_tags=host
@test "a realistic session of at least 15 steps runs to its end with the starter grant" {
	claude_install
	project
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	GRANT_JSON="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64).json"
	assert_file_exist "$GRANT_JSON"
	# the starter grant: asks what it does not grant, asks pushes
	run -0 jq -c '[.otherwise, (.policies[] | select(.id == "push") | .verdict)]' "$GRANT_JSON"
	assert_output '["ask","ask"]'

	local br=fix/sum-first-element msg
	msg="Fix sum: start at the first element

The loop started at index 1, so the first number was never added.
Add an edge-case test for single and negative numbers.

🤖 Generated with [Claude Code](https://claude.com/claude-code)

Co-Authored-By: Claude <noreply@anthropic.com>"
	jq -nc --arg p "$P" --arg br "$br" --arg msg "$msg" '
	  def bash($id; $c; $d): {id: $id, name: "Bash", input: {command: $c, description: $d}};
	  [
	  {text: "I will look at the project first.",
	   tool_use: [bash("toolu_s01"; "git status"; "Show working tree status")]},
	  {tool_use: [bash("toolu_s02"; "ls -la"; "List files in the project")]},
	  {tool_use: [bash("toolu_s03"; "find . -name \u0027*.js\u0027 -not -path \u0027./node_modules/*\u0027"; "Find JavaScript files")]},
	  {tool_use: [{id: "toolu_s04", name: "Read", input: {file_path: ($p + "/package.json")}}]},
	  {tool_use: [bash("toolu_s05"; "grep -rn \"sum\" --include=\"*.js\" ."; "Search for sum")]},
	  {tool_use: [{id: "toolu_s06", name: "Read", input: {file_path: ($p + "/src/sum.js")}},
	              {id: "toolu_s07", name: "Read", input: {file_path: ($p + "/test.js")}}]},
	  {tool_use: [bash("toolu_s08"; "npm test 2>&1 | tail -20"; "Run the tests")]},
	  {text: "The loop starts at 1 and skips the first element.",
	   tool_use: [{id: "toolu_s09", name: "Edit", input: {file_path: ($p + "/src/sum.js"),
	     old_string: "for (let i = 1; i < xs.length; i++)", new_string: "for (let i = 0; i < xs.length; i++)"}}]},
	  {tool_use: [bash("toolu_s10"; "npm test"; "Run the tests again")]},
	  {tool_use: [bash("toolu_s11"; "git diff"; "Show the change")]},
	  {tool_use: [bash("toolu_s12"; "git checkout -b " + $br; "Create a branch for the fix")]},
	  {tool_use: [{id: "toolu_s13", name: "Write", input: {file_path: ($p + "/test/edge.test.js"),
	     content: "const assert = require(\"assert\");\nconst { sum } = require(\"../src/sum\");\n\nassert.strictEqual(sum([5]), 5);\nassert.strictEqual(sum([-1, -2]), -3);\nconsole.log(\"ok: edge cases\");\n"}}]},
	  {tool_use: [bash("toolu_s14"; "node test/edge.test.js"; "Run the new test")]},
	  {tool_use: [bash("toolu_s15"; "git add src/sum.js"; "Stage the fix")]},
	  {tool_use: [bash("toolu_s16"; "git add -A && git status --short"; "Stage everything")]},
	  {tool_use: [bash("toolu_s17"; "git commit -m \"$(cat <<\u0027EOF\u0027\n" + $msg + "\nEOF\n)\""; "Commit the fix")]},
	  {tool_use: [bash("toolu_s18"; "git log --oneline -3"; "Show recent commits")]},
	  {tool_use: [bash("toolu_s19"; "git push -u origin " + $br; "Push the branch")]},
	  {text: ("The fix is committed on " + $br + ".")}]' >"$T/script.json"
	[ "$(jq '[.[].tool_use // [] | .[]] | length' "$T/script.json")" -ge 15 ]

	mock_start "$T/script.json"
	local t0=$SECONDS
	claude_run "fix the failing test and push a branch" --allowedTools "Bash Write Edit Read"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	echo "# claude -p session: $((SECONDS - t0)) s" >&3
	SID=$(jq -r .session_id "$CLAUDE_OUT")
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
	# to its end: the final text, and every scripted turn was served
	run -0 jq -r '[.subtype, .result] | @tsv' "$CLAUDE_OUT"
	assert_output "$(printf 'success\tThe fix is committed on %s.' "$br")"

	# every step but the push ran, and the model saw it run
	local i id
	for i in $(seq -w 1 18); do
		id=toolu_s$i
		run -0 result $id
		[ -n "$output" ] || fail "$id: no tool_result went back to the model"
		assert_equal "$(jq -r .is_error <<<"$output")" false
	done
	run -0 jq -r .content <<<"$(result toolu_s08)"
	assert_output --partial "AssertionError"
	run -0 jq -r .content <<<"$(result toolu_s10)"
	assert_output --partial "ok: sum"
	run -0 jq -r .content <<<"$(result toolu_s14)"
	assert_output --partial "ok: edge cases"
	run -0 grep -c "for (let i = 0; i < xs.length; i++)" "$P/src/sum.js"
	assert_file_exist "$P/test/edge.test.js"
	run -0 node "$P/test.js"
	run -0 git -C "$P" branch --show-current
	assert_output "$br"
	run -0 git -C "$P" log -1 --format=%B
	assert_output "$msg"
	run -0 git -C "$P" show --name-only --format= HEAD
	assert_output "src/sum.js
test/edge.test.js"
	run -0 git -C "$P" status --porcelain
	assert_output ""
	run -0 git -C "$P" log --oneline
	assert_equal "${#lines[@]}" 2

	# the push did not run: the remote has main only
	run -0 git --git-dir="$T/remote.git" for-each-ref --format='%(refname)'
	assert_output refs/heads/main
	# ... it was asked (-p: a denial), and the model was told joulehook's reason
	local core reason
	core=$(decision toolu_s19)
	run -0 jq -r '[.verdict, .code] | @tsv' <<<"$core"
	assert_output "$(printf 'ask\tpolicy-ask')"
	run -0 rule_id "$core"
	assert_output push
	reason=$(jq -r .reason <<<"$core")
	run -0 result toolu_s19
	assert_equal "$(jq -r .is_error <<<"$output")" true
	run -0 jq -r .content <<<"$output"
	assert_output --regexp '^joulehook'
	assert_output --partial "$reason"
	run -0 jq -c '[.permission_denials[] | [.tool_use_id, .tool_name, .tool_input.command]]' "$CLAUDE_OUT"
	assert_output "[[\"toolu_s19\",\"Bash\",\"git push -u origin $br\"]]"
	# the transcript: rejected by configuration, on the hook's word
	local tr
	tr=$(find "$HOME/.claude/projects" -name "$SID.jsonl")
	run -0 jq -c 'select(.type == "user" and (.message.content | type) == "array"
	    and any(.message.content[]; .tool_use_id? == "toolu_s19"))
	    | [.toolDenialKind, .permissionDecision.decision, .permissionDecision.reasonCode]' "$tr"
	assert_output '["user-rejected","reject","hook:PreToolUse"]'

	# the decisions are in the log, which verifies (and its ledger)
	run -0 jhv "$LOG"
	run -0 jq -c 'select(.log or .summary) | [.log.ok, .summary.failed]' <<<"$output"
	assert_output '[true,null]
[null,0]'
	run -0 jhv -q -L "$JH_STATE/ledger" "$LOG"
	jhv "$LOG" >"$T/v.jsonl"
	local allow ask other
	allow=$(jq -s '[.[] | select(.chain and .kind == "decision/1" and .core.verdict == "allow")] | length' "$T/v.jsonl")
	ask=$(jq -s '[.[] | select(.chain and .kind == "decision/1" and .core.verdict == "ask")] | length' "$T/v.jsonl")
	other=$(jq -s '[.[] | select(.chain and .kind == "decision/1" and (.core.verdict | IN("allow", "ask") | not))] | length' "$T/v.jsonl")
	echo "# decisions: $allow allow, $ask ask, $other other" >&3
	assert_equal "$allow $ask $other" "18 1 0"
	# one decision per tool call (the two parallel Reads in either order)
	run -0 sh -c "jq -r 'select(.chain and .kind == \"decision/1\") | .core.tool_use_id' '$T/v.jsonl' | sort"
	assert_output "$(for i in $(seq -w 1 19); do echo toolu_s$i; done)"
	# what ran has a PostToolUse result; the asked push got one at Stop
	run -0 sh -c "jq -r 'select(.chain and .kind == \"result/1\") | [.core.tool_use_id, .core.event, .core.status, .core.answer // \"-\"] | @tsv' '$T/v.jsonl' | sort"
	assert_output "$(for i in $(seq -w 1 18); do printf 'toolu_s%s\tPostToolUse\tok\t-\n' $i; done
	    printf 'toolu_s19\tStop\tnot-run\trefused')"
}

# screen: the tmux pane's text now.
screen() {
	tmux -S "$TMUX_SOCK" capture-pane -p -t jh 2>/dev/null
}

# wait_screen REGEX: polls the screen (at most 60 s) until a line of it
# matches the extended REGEX; fails with the screen shown otherwise.
wait_screen() {
	local i
	for ((i = 0; i < 240; i++)); do
		screen | grep -qaE -- "$1" && return 0
		sleep 0.25
	done
	echo "no '$1' on the screen within 60 s:" >&2
	screen >&2
	return 1
}

# repl_start: Claude Code's REPL in a tmux pane (200x50) in $P, against
# the mock, with HOME's settings (joulehook's plugin) and the
# ~/.claude.json keys that skip the first-run dialogs (onboarding, the
# API key, trusting the folder) and keep the diff sidebar closed.
repl_start() {
	claude_home_interactive "$P"
	jq '.diffSidebarOpen = false' "$HOME/.claude.json" >"$T/cj" && mv "$T/cj" "$HOME/.claude.json"
	TMUX_SOCK="$T/tmux.sock"
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s jh -x 200 -y 50 -c "$P" \
	    env -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_MODEL -u CLAUDE_CONFIG_DIR -u CLAUDECODE \
	    -u CLAUDE_CODE_ENTRYPOINT -u TMUX \
	    HOME="$HOME" TERM=xterm-256color ANTHROPIC_BASE_URL="$MOCK_URL" \
	    ANTHROPIC_API_KEY=sk-test DISABLE_TELEMETRY=1 \
	    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_ERROR_REPORTING=1 NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    "$CLAUDE_BIN"
	PANE_PID=$(tmux -S "$TMUX_SOCK" display-message -p -t jh '#{pane_pid}')
	# ready: joulehook's status line is drawn below the prompt
	wait_screen 'jh ⚡'
}

# The tools whose ask dialog shows the hook's reason in 2.1.328.
SHOWS_REASON="Bash WebFetch"

# bats test_tags=host
@test "the REPL shows joulehook's reason in its ask dialog" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	claude_install
	git -C "$P" init -q -b main
	printf 'API_TOKEN=not-a-real-secret\n' >"$P/.env"
	printf '{\n  "name": "calc",\n  "scripts": {\n    "test": "node test.js"\n  }\n}\n' >"$P/package.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	GRANT_JSON="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64).json"
	# one ask per tool kind, each in its own turn; the Read of package.json
	# (allowed, no dialog) is what Claude Code wants before an Edit
	jq -nc --arg p "$P" '[
	  {tool_use: [{id: "toolu_r_bash", name: "Bash", input: {command: "curl -sS https://example.com", description: "Fetch the page"}}]},
	  {tool_use: [{id: "toolu_r_write", name: "Write", input: {file_path: ($p + "/Makefile"), content: "test:\n\tnpm test\n"}}]},
	  {tool_use: [{id: "toolu_r_read", name: "Read", input: {file_path: ($p + "/.env")}}]},
	  {tool_use: [{id: "toolu_r_readpkg", name: "Read", input: {file_path: ($p + "/package.json")}}]},
	  {tool_use: [{id: "toolu_r_edit", name: "Edit", input: {file_path: ($p + "/package.json"),
	    old_string: "\"test\": \"node test.js\"", new_string: "\"test\": \"node --test\""}}]},
	  {tool_use: [{id: "toolu_r_fetch", name: "WebFetch", input: {url: "https://example.com/", prompt: "What is on this page?"}}]},
	  {text: "all the asked tools ran"}]' >"$T/script.json"
	mock_start "$T/script.json"
	local t0=$SECONDS
	repl_start
	tmux -S "$TMUX_SOCK" send-keys -t jh "do the task" Enter

	# each dialog, in turn: Claude Code's own marker of that tool's
	# permission dialog, the screen kept, then "1" (Yes)
	local tool marker id core f
	while IFS='|' read -r tool id marker; do
		wait_screen "$marker"
		wait_screen '❯ 1\. Yes' # the dialog's options are drawn
		f="$T/dialog.$tool.txt"
		screen >"$f"
		core=$(jhv "$JH_STATE"/logs/*.jhl 2>/dev/null | jq -c --arg id "$id" \
		    'select(.chain and .kind == "decision/1" and .core.tool_use_id == $id) | .core')
		# the gate asked, by the rule expected of the starter grant
		assert_equal "$(jq -r .verdict <<<"$core")" ask
		case $tool in
		Bash | WebFetch) assert_equal "$(rule_id "$core")" otherwise ;;
		Write | Edit) assert_equal "$(rule_id "$core")" executed-files ;;
		Read) assert_equal "$(rule_id "$core")" secrets-read ;;
		esac
		if [[ " $SHOWS_REASON " == *" $tool "* ]]; then
			# the hook's header, then joulehook's reason on its own line
			grep -qaF "Hook PreToolUse:$tool requires confirmation" "$f" ||
			    fail "$tool: no hook header in the dialog: $(cat "$f")"
			grep -qaE '^ *│ *joulehook' "$f" ||
			    fail "$tool: joulehook's reason is not in the dialog: $(cat "$f")"
			squash <"$f" | grep -qF "notinyourgrant" ||
			    fail "$tool: 'not in your grant' is not in the dialog: $(cat "$f")"
		elif ! grep -qaE '^ *│ *joulehook' "$f"; then
			echo "# $tool: Claude Code's ask dialog shows no hook reason ($(grep -aE 'Do you want' "$f" | sed 's/^ *//'))" >&3
		fi
		tmux -S "$TMUX_SOCK" send-keys -t jh 1
	done <<-'EOF'
	Bash|toolu_r_bash|^ *Bash command *$
	Write|toolu_r_write|Do you want to create Makefile\?
	Read|toolu_r_read|^ *Read\(.*/\.env\)
	Edit|toolu_r_edit|Do you want to make this edit to package\.json\?
	WebFetch|toolu_r_fetch|Do you want to allow Claude to fetch this content\?
	EOF
	# where the dialog cannot show it, joulehook's systemMessage is shown
	# once the tool was answered: "PreToolUse:Write says: joulehook: ..."
	grep -qaF "PreToolUse:Write says: joulehook: asked by policy executed-files" "$T/dialog.Edit.txt" ||
	    fail "no systemMessage of the Write's ask: $(cat "$T/dialog.Edit.txt")"
	for tool in Read Edit; do
		grep -qaF "PreToolUse:$tool says: joulehook: asked by policy" "$T/dialog.WebFetch.txt" ||
		    fail "no systemMessage of the $tool's ask: $(cat "$T/dialog.WebFetch.txt")"
	done
	wait_screen "all the asked tools ran"
	echo "# REPL session: $((SECONDS - t0)) s" >&3
	tmux_claude_stop

	# every approved tool ran
	run -0 cat "$P/Makefile"
	assert_output "$(printf 'test:\n\tnpm test')"
	run -0 grep -c '"test": "node --test"' "$P/package.json"
	run -0 jq -r .content <<<"$(result toolu_r_read)"
	assert_output --partial "API_TOKEN=not-a-real-secret"
	# curl and WebFetch ran (offline: "curl: (6) Could not resolve host",
	# "Unable to verify if domain example.com is safe to fetch"): what
	# came back is theirs, not joulehook's
	for id in toolu_r_bash toolu_r_fetch; do
		run -0 result $id
		[ -n "$output" ] || fail "$id: no tool_result went back to the model"
		run -0 jq -r .content <<<"$output"
		refute_output --regexp '^joulehook'
	done
	# ... and the gate saw the human's yes: each ask's result is "approved"
	LOG=$(ls "$JH_STATE"/logs/*.jhl)
	run -0 jhv -q "$LOG"
	run -0 sh -c "'$JH_HOME/bin/jh-verify' '$LOG' | jq -r 'select(.chain and .kind == \"result/1\" and .core.decided == \"ask\") | [.core.tool_use_id, .core.answer] | @tsv' | sort"
	assert_output "$(printf 'toolu_r_bash\tapproved\ntoolu_r_edit\tapproved\ntoolu_r_fetch\tapproved\ntoolu_r_read\tapproved\ntoolu_r_write\tapproved')"
}

# wait_screen_unless REGEX BAD: as wait_screen, but fails at once, with
# the screen shown, when a line matches the extended regex BAD first.
wait_screen_unless() {
	local i s
	for ((i = 0; i < 240; i++)); do
		s=$(screen)
		if grep -qaE -- "$2" <<<"$s"; then
			echo "'$2' came up on the screen (waiting for '$1'):" >&2
			printf '%s\n' "$s" >&2
			return 1
		fi
		grep -qaE -- "$1" <<<"$s" && return 0
		sleep 0.25
	done
	echo "no '$1' on the screen within 60 s:" >&2
	screen >&2
	return 1
}

# ledger_now: the ledger jh-verify -L rebuilds from every log, as
# {grant (the ledger's id), receipts_uj, spent_uj, held_uj, ok}; fails
# unless there is exactly one.
ledger_now() {
	local l
	l=$(jhv -L "$JH_STATE/ledger" "$JH_STATE"/logs/*.jhl | jq -c 'select(.ledger) | .ledger')
	[ "$(wc -l <<<"$l")" -eq 1 ] || { echo "not one ledger: $l" >&2; return 1; }
	printf '%s\n' "$l"
}

# The REPL's permission dialog, Claude Code's own or a hook's ask, and
# auto mode's "cannot check" one: none may show for a granted command.
ANY_DIALOG='^ *Bash command *$|requires confirmation|Do you want to proceed\?|❯ 1\. Yes|Auto mode can.t check'

# The grant widened while the REPL runs.  The hook reads the grant on
# every call, so the running session sees it at its next tool call.  With
# the starter install (no -A) a granted command is joulehook's "no
# opinion" and Claude Code's own permissions still decide: in auto mode
# and offline, curl then gets auto mode's "Auto mode can't check actions
# in this session" dialog (its safety check runs on the server, which the
# mock is not).  So the user here lets curl through Claude Code's own
# rules (Bash(curl:*) in .claude/settings.local.json), as one who relies
# on joulehook to gate it: the hook's ask still brings up the dialog over
# that rule, and once the grant has curl nothing asks.
# bats test_tags=host
@test "after jh-grant add, the command the REPL asked about runs without a dialog and the budget spent before is still spent" {
	command -v tmux >/dev/null || skip "SKIPPED: no tmux (Debian package tmux; scripts/deps installs it)"
	local t0=$SECONDS
	claude_install
	git -C "$P" init -q -b main
	mkdir -p "$P/.claude"
	printf '{"permissions": {"allow": ["Bash(curl:*)"]}}\n' >"$P/.claude/settings.local.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	GRANT_JSON="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64).json"
	# three prompts in one REPL session, the same curl in each; the mock's
	# turn k answers the request that holds k assistant messages, so the
	# turns run on across the prompts
	local curl='curl -sS https://example.com'
	jq -nc --arg c "$curl" '[
	  {tool_use: [{id: "toolu_g1", name: "Bash", input: {command: $c, description: "Fetch the page"}}]},
	  {text: "fetched it once"},
	  {tool_use: [{id: "toolu_g2", name: "Bash", input: {command: $c, description: "Fetch the page again"}}]},
	  {text: "fetched it twice"},
	  {tool_use: [{id: "toolu_g3", name: "Bash", input: {command: $c, description: "Fetch the page once more"}}]},
	  {text: "fetched it without asking"}]' >"$T/script.json"
	mock_start "$T/script.json"
	repl_start

	# 1. twice: the starter grant asks (otherwise), the dialog shows
	# joulehook's reason with the line that grants it, the person says yes
	local n id core f
	for n in 1 2; do
		id=toolu_g$n
		tmux -S "$TMUX_SOCK" send-keys -t jh "fetch the page" Enter
		wait_screen '^ *Bash command *$'
		wait_screen '❯ 1\. Yes'
		f="$T/dialog.$n.txt"
		screen >"$f"
		core=$(jhv "$JH_STATE"/logs/*.jhl 2>/dev/null | jq -c --arg id "$id" \
		    'select(.chain and .kind == "decision/1" and .core.tool_use_id == $id) | .core')
		assert_equal "$(jq -r .verdict <<<"$core")" ask
		assert_equal "$(rule_id "$core")" otherwise
		assert_equal "$(jq -r .hint <<<"$core")" "effect=net program=curl host=example.com"
		grep -qaF "Hook PreToolUse:Bash requires confirmation" "$f" ||
		    fail "ask $n: no hook header in the dialog: $(cat "$f")"
		squash <"$f" | grep -qF "Toallowitfromnowon:jh-grantaddeffect=netprogram=curlhost=example.com" ||
		    fail "ask $n: the dialog does not show the jh-grant add line: $(cat "$f")"
		tmux -S "$TMUX_SOCK" send-keys -t jh 1
		if [ $n = 1 ]; then wait_screen "fetched it once"; else wait_screen "fetched it twice"; fi
	done

	# 2. the REPL goes on running; what the ledger holds so far
	local before lid
	before=$(ledger_now)
	lid=$(jq -r .grant <<<"$before")
	[ "$(jq -r .ok <<<"$before")" = true ] || fail "the ledger before: $before"
	[ "$(jq -r .spent_uj <<<"$before")" -gt 0 ] || fail "nothing spent before: $before"

	# 3. learn proposes the line the two approved asks carried, count first
	run -0 --separate-stderr sh "$PROJECT_ROOT/scripts/jh-grant" -p "$P" learn
	assert_line --index 0 "$(printf '2\tjh-grant add effect=net program=curl host=example.com')"

	# 4. exactly that line, with -y
	local line
	line=${lines[0]#*$'\t'}
	[[ $line == "jh-grant add "* ]] || fail "not a jh-grant add line: $line"
	eval "set -- ${line#jh-grant add }"
	run -0 --separate-stderr sh "$PROJECT_ROOT/scripts/jh-grant" -y -p "$P" add "$@"
	assert_line --partial '+      "id": "net-curl",'
	local re='resealed [^ ]+: (sha256:[0-9a-f]{64}) \(was (sha256:[0-9a-f]{64})\); it spends from ledger (sha256:[0-9a-f]{64}),'
	[[ $stderr =~ $re ]] || fail "jh-grant add said: $stderr"
	local newgid=${BASH_REMATCH[1]} oldgid=${BASH_REMATCH[2]}
	assert_equal "${BASH_REMATCH[3]}" "$lid"
	[ "$newgid" != "$oldgid" ]
	assert_equal "$(jq -r '.caps[] | select(.id == "net-curl") | [.effect, .program] | @tsv' "$GRANT_JSON")" \
	    "$(printf 'net\tcurl')"

	# 5. nothing given back: the same ledger, spent no less, and it replays
	local after
	after=$(ledger_now)
	assert_equal "$(jq -r .grant <<<"$after")" "$lid"
	[ "$(jq -r .spent_uj <<<"$after")" -ge "$(jq -r .spent_uj <<<"$before")" ] ||
	    fail "spent went down: before $before, after $after"
	run -0 jhv -q -L "$JH_STATE/ledger" "$JH_STATE"/logs/*.jhl

	# 6. the same curl in the same session: no dialog of any kind, the
	# model's text comes
	tmux -S "$TMUX_SOCK" send-keys -t jh "fetch the page again" Enter
	wait_screen_unless "fetched it without asking" "$ANY_DIALOG"
	tmux_claude_stop
	LOG=$(ls "$JH_STATE"/logs/*.jhl)
	# the gate allowed it by the added capability, under the new grant,
	# spending from the old ledger
	core=$(decision toolu_g3)
	assert_equal "$(jq -r '[.verdict, .grant, .ledger] | @tsv' <<<"$core")" \
	    "$(printf 'allow\t%s\t%s' "$newgid" "$lid")"
	assert_equal "$(rule_id "$core")" net-curl
	# curl ran: what came back is its own (offline, "curl: (6) Could not
	# resolve host"), not joulehook's
	run -0 result toolu_g3
	[ -n "$output" ] || fail "toolu_g3: no tool_result went back to the model"
	run -0 jq -r .content <<<"$output"
	refute_output --regexp '^joulehook'
	assert_output --partial 'curl'
	# Claude Code let it through on its own rule; the asks were the
	# person's yes, once each
	local tr
	tr=$(find "$HOME/.claude/projects" -name '*.jsonl' | head -n1)
	run -0 jq -r 'select(.type == "user" and (.message.content | type) == "array")
	    | .message.content[0].tool_use_id? as $id | select($id)
	    | [$id, .permissionDecision.source, .permissionDecision.reasonCode // "-"] | @tsv' "$tr"
	assert_output "$(printf 'toolu_g1\tuser_temporary\thook:PreToolUse\ntoolu_g2\tuser_temporary\thook:PreToolUse\ntoolu_g3\tconfig\t-')"
	run -0 sh -c "'$JH_HOME/bin/jh-verify' '$LOG' | jq -r 'select(.chain and .kind == \"result/1\") | [.core.tool_use_id, .core.answer // \"-\"] | @tsv'"
	assert_output "$(printf 'toolu_g1\tapproved\ntoolu_g2\tapproved\ntoolu_g3\t-')"
	# the allowed call spent on from there, and the logs still replay
	local last
	last=$(ledger_now)
	assert_equal "$(jq -r .grant <<<"$last")" "$lid"
	[ "$(jq -r .spent_uj <<<"$last")" -gt "$(jq -r .spent_uj <<<"$after")" ] ||
	    fail "the allowed curl spent nothing: after the reseal $after, at the end $last"
	run -0 jhv -q -L "$JH_STATE/ledger" "$LOG"
	echo "# ledger: spent $(jq -r .spent_uj <<<"$before") uJ (held $(jq -r .held_uj <<<"$before")) before the reseal, $(jq -r .spent_uj <<<"$after") after it, $(jq -r .spent_uj <<<"$last") at the end" >&3
	echo "# grant widened in a running REPL: $((SECONDS - t0)) s" >&3
}
