#!/usr/bin/env bats
# End to end: joulehook gating the REAL Gemini CLI 0.61.0, offline.
#
# Each test gets a fresh HOME, JH_HOME and JH_STATE under $T (as
# test_helper/common sets them) and a project $T/proj ($P, its realpath),
# installs joulehook with `scripts/jh-install -H gemini-cli` (-W -b $JH_BIN
# -p $P -g <a grant written for the test>), which writes the hooks into
# ~/.gemini/settings.json (hosts/gemini-cli/bind.sh), and runs
# `gemini -p ... --approval-mode yolo -o json` in $P against
# tests/mock/gemini-mock.py with a scripted conversation
# (tests/helpers/gemini.bash).  Gemini CLI's HOME is the test's HOME.
#
# Every claim is shown by a side effect on disk (a file that exists or
# not), by what the model was sent back (the functionResponse of the next
# request, in the mock's log), and by the session's log
# JH_STATE/logs/<sha256 of the session id>.jhl as jh-verify reads it.
#
# What Gemini CLI 0.61.0 does with joulehook's answers
# (hosts/gemini-cli/README.md):
#  - allow {"decision":"allow"}: the tool runs;
#  - deny {"decision":"deny","reason":R}, exit 2: the tool does not run;
#    the model gets functionResponse {"error": "Tool execution blocked: R"};
#  - rewrite: allow + hookSpecificOutput.tool_input: the new input runs;
#  - ask hangs a headless run, so the core answers deny.
#
# Where npm cannot reach the registry the tests that need the binary are
# skipped, loudly ("SKIPPED: cannot install Gemini CLI from npm: ...").
# Where the core (jh-install -H, jh-hook -H gemini-cli) is not there yet,
# the gate's tests skip with "core: ...".

load test_helper/common
load helpers/claude
load helpers/proxy
load helpers/gemini

setup_file() {
	jh_bin_snapshot
}

setup() {
	_common_setup
	mkdir -p "$T/proj"
	P=$(cd "$T/proj" && pwd -P)
	GEMINI_HOME="$HOME"
	export GEMINI_HOME
	cd "$P"
}

teardown() {
	local rc=0
	proxy_stop || rc=1
	gemini_mock_stop
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

# jh_install [ARGS]: jh-install -H gemini-cli for the project, then the
# settings a headless test run needs merged over what it wrote.  Skips
# with "core: ..." while jh-install or jh-hook cannot bind Gemini CLI.
jh_install() {
	run sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H gemini-cli "$@"
	if [ "$status" -ne 0 ] && grep -q 'usage:' <<<"$output" &&
	    ! grep -q -- '-H' <<<"$(sed -n '/usage:/p' <<<"$output")"; then
		skip "core: jh-install has no -H (hosts: commits not merged yet)"
	fi
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	INSTALL_OUT=$output
	core_ready
	gemini_home
}

# core_ready: jh-hook -H gemini-cli answers a captured SessionStart with
# exit 0, as the contract says; else the gate's tests skip.
core_ready() {
	local out rc=0
	out=$(jq -c --arg cwd "$P" '.cwd = $cwd | .session_id = "core-probe"' \
	    /dev/stdin <<<'{"session_id":"x","transcript_path":"/dev/null","cwd":"/","hook_event_name":"SessionStart","timestamp":"2026-11-30T00:16:24.156Z","source":"startup"}' |
	    "$JH_BIN/jh-hook" -c "$JH_HOME/hook.conf" -H gemini-cli 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || skip "core: jh-hook -H gemini-cli answered a SessionStart with exit $rc: ${out:0:200}"
}

# turns JSON: the mock's script (a list of model turns).
turns() {
	jq -c . <<<"$1" >"$T/script.json"
}

# shell CMD: one run_shell_command function call, for turns().
shell() {
	jq -nc --arg c "$1" '{name: "run_shell_command", args: {command: $c, description: "e2e"}}'
}

# e2e [ARGS]: the mock on $T/script.json, then gemini -p in $P; fails
# (with a dump) unless gemini exits 0.  Sets SID and LOG.
e2e() {
	gemini_mock_start "$T/script.json"
	gemini_run "do the task" "$@"
	[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; return 1; }
	SID=$(gemini_json .session_id)
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
}

# answer CMD-SUBSTRING: the functionResponse.response the model was sent
# back for the run_shell_command whose command contains the substring.
answer() {
	local n
	n=$(gemini_requests | jq -s -c --arg s "$1" '
	    [.[] | .body.contents[]?.parts[]? | select(.functionCall.name == "run_shell_command")] | length')
	gemini_requests | jq -s -c --arg s "$1" '
	    (last | .body.contents) as $c
	    | [range(0; $c | length) as $i | $c[$i] | select(.role == "model")
	       | .parts | to_entries[] | select(.value.functionCall.args.command // "" | contains($s))
	       | {i: $i, k: .key}] | first as $at
	    | if $at == null then null else
	      [$c[$at.i + 1].parts[] | select(.functionResponse) | .functionResponse.response][$at.k]
	      end'
}

# entries [FILE]: the log's decision entries as jh-verify writes them.
entries() {
	jh-verify "${1:-$LOG}" | jq -c 'select(.chain and .kind == "decision/1")'
}

log_verifies() {
	run -0 jh-verify "$@" "$LOG"
	run -0 jq -c 'select(.log or .summary) | [.log.ok, .summary.failed]' <<<"$output"
	assert_output '[true,null]
[null,0]'
}

# ----------------------------------------------------------------------
# bind.sh by itself, under stand-ins for jh-install's helpers: no Gemini
# CLI and no core needed.

# bind FUNC [VAR=VALUE ...]: runs jh_bind or jh_unbind from bind.sh in a
# shell that defines what jh-install gives it (its say, die, q and
# json_edit, as scripts/jh-install has them).
bind() {
	local fn=$1
	shift
	cat >"$T/stub.sh" <<-'EOF'
	. "$STUBS"
	bindir=$BINDIR conf="$JH_HOME/hook.conf" deadline=8000 hostdir=$1
	. "$hostdir/bind.sh"
	"$2"
	EOF
	mkdir -p "$T/jh bin"
	printf '#!/bin/sh\n' >"$T/jh bin/jh-status"
	chmod 755 "$T/jh bin/jh-status"
	run env "$@" HOME="$HOME" JH_HOME="$JH_HOME" BINDIR="$T/jh bin" \
	    STUBS="$PROJECT_ROOT/tests/helpers/bindstub.sh" sh "$T/stub.sh" \
	    "$PROJECT_ROOT/hosts/gemini-cli" "$fn"
}

@test "bind.sh: four hooks and the MCP server, in ms above the deadline; idempotent; the user's settings kept; unbind removes only its own" {
	mkdir -p "$HOME/.gemini"
	jq -n '{theme: "dark", hooks: {BeforeTool: [{matcher: "write_file",
	    hooks: [{type: "command", command: "/usr/bin/true", name: "mine"}]}]},
	    mcpServers: {other: {command: "/bin/cat"}}}' >"$HOME/.gemini/settings.json"
	bind jh_bind
	assert_success
	assert_output --partial "bound Gemini CLI in $HOME/.gemini/settings.json"
	assert_output --partial 'warning:'	# the user's own BeforeTool hook
	bind jh_bind
	assert_success
	s="$HOME/.gemini/settings.json"
	run -0 jq -c '[.hooks | to_entries[] | [.key, (.value | map(.matcher // "-")),
	    [.value[].hooks[] | select(.name == "joulehook") | [.command, .timeout]]]]' "$s"
	want="'$T/jh bin/jh-hook' -c '$JH_HOME/hook.conf' -H gemini-cli"
	assert_output "$(jq -nc --arg c "$want" '[["BeforeTool", ["write_file", "*"], [[$c, 15000]]],
	    ["AfterTool", ["*"], [[$c, 15000]]], ["AfterAgent", ["-"], [[$c, 15000]]],
	    ["SessionEnd", ["-"], [[$c, 15000]]]]')"
	run -0 jq -c '[.theme, .hooks.BeforeTool[0].hooks[0].name, (.mcpServers | keys),
	    .mcpServers.joulehook.command, .mcpServers.joulehook.args]' "$s"
	assert_output "$(jq -nc --arg c "$JH_HOME/hook.conf" --arg s "$T/jh bin/jh-status" '["dark", "mine", ["joulehook", "other"], $s, ["-c", $c, "-m"]]')"
	# no meter without -M
	assert_file_not_exist "$HOME/.gemini/.env"
	bind jh_unbind
	assert_success
	assert_output --partial 'removed the MCP server joulehook'
	run -0 jq -c . "$s"
	assert_output '{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"type":"command","command":"/usr/bin/true","name":"mine"}]}]},"mcpServers":{"other":{"command":"/bin/cat"}}}'
	# unbinding again changes nothing and says nothing
	bind jh_unbind
	assert_success
	assert_output ''
}

@test "bind.sh -M: the base URL and the token header go to ~/.gemini/.env, the auth type is set once; unbind puts the user's back" {
	mkdir -p "$HOME/.gemini"
	printf 'GEMINI_API_KEY=mine\nGOOGLE_GEMINI_BASE_URL="https://gw.example/x"\nGEMINI_CLI_CUSTOM_HEADERS="X-Team: blue"\n' >"$HOME/.gemini/.env"
	m=(upstream=https://generativelanguage.googleapis.com url=http://127.0.0.1:8177 token=abcdefabcdefabcdef)
	bind jh_bind "${m[@]}"
	assert_success
	assert_output --partial 'bound the meter: Gemini CLI'
	assert_output --partial 'kept your GOOGLE_GEMINI_BASE_URL (https://gw.example/x)'
	assert_output --partial 'set security.auth.selectedType to gemini-api-key'
	bind jh_bind "${m[@]}"
	assert_success
	run -0 cat "$HOME/.gemini/.env"
	assert_output $'GEMINI_API_KEY=mine\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8177\nGEMINI_CLI_CUSTOM_HEADERS="X-Team: blue, X-Joulehook-Token: abcdefabcdefabcdef"'
	run -0 jq -r .security.auth.selectedType "$HOME/.gemini/settings.json"
	assert_output gemini-api-key
	bind jh_unbind
	assert_success
	run -0 cat "$HOME/.gemini/.env"
	assert_output $'GEMINI_API_KEY=mine\nGOOGLE_GEMINI_BASE_URL=https://gw.example/x\nGEMINI_CLI_CUSTOM_HEADERS="X-Team: blue"'
	run -0 jq -c . "$HOME/.gemini/settings.json"
	assert_output '{}'
	# an auth type of the user's own is left alone, and named
	echo '{"security": {"auth": {"selectedType": "oauth-personal"}}}' >"$HOME/.gemini/settings.json"
	rm "$HOME/.gemini/.env"
	bind jh_bind "${m[@]}"
	assert_output --partial 'selects oauth-personal: Gemini CLI then calls'
	bind jh_unbind
	assert_output --partial "removed $HOME/.gemini/.env, which held nothing else"
	run -0 jq -c . "$HOME/.gemini/settings.json"
	assert_output '{"security":{"auth":{"selectedType":"oauth-personal"}}}'
}

# ----------------------------------------------------------------------
# The meter: Gemini CLI through jh-proxy, the environment set by hand
# (the gate is not involved).

# bats test_tags=host
@test "Gemini CLI through jh-proxy: one efficiency/1 per model call, with the mock's token counts, in the proxy's own log" {
	gemini_install
	proxy_setup
	grant_budget 20000000000000
	turns "[{\"function_calls\": [$(shell 'echo one')], \"usage\": {\"thoughtsTokenCount\": 7, \"cachedContentTokenCount\": 100}},
	        {\"text\": \"finished\", \"usage\": {\"cachedContentTokenCount\": 3000}}]"
	gemini_mock_start "$T/script.json"
	UPSTREAM=$GEMINI_MOCK_URL proxy_start -C "$PROJECT_ROOT/lib/coefficients.json"
	gemini_home
	GEMINI_BASE_URL=$PROXY_URL GEMINI_HEADERS="X-Joulehook-Token: $TOKEN" gemini_run "run echo"
	[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; cat "$PROXY_ERR" >&2; false; }
	run -0 gemini_json .response
	assert_output finished
	# every call the mock answered, scripted or Gemini CLI's own
	calls=$(jq -c 'select(.method == "POST" and (.path | contains("enerateContent")))' "$GEMINI_MOCK_LOG" | wc -l)
	[ "$calls" -ge 2 ]
	own=$(jh-verify "$JH_STATE"/logs/*.jhl | jq -r 'select(.chain.session | startswith("jh-proxy-")) | .chain.session' | head -n 1)
	run receipts "$own"
	assert_equal "${#lines[@]}" "$calls"
	# each receipt's tokens are the usageMetadata the mock sent for that call
	jq -c 'select(.method == "POST" and (.path | contains("enerateContent"))) | .response |
	    [.response_id, .usage.promptTokenCount - (.usage.cachedContentTokenCount // 0),
	     .usage.candidatesTokenCount + (.usage.thoughtsTokenCount // 0),
	     (.usage.cachedContentTokenCount // 0)]' "$GEMINI_MOCK_LOG" | sort >"$T/want"
	receipts "$own" | jq -c '[.unit, .tokens_in, .tokens_out, .tokens_cache_read]' | sort >"$T/got"
	run diff "$T/want" "$T/got"
	assert_success
	run sh -c "$(declare -f session_log receipts); JH_STATE='$JH_STATE' JH_HOME='$JH_HOME' receipts '$own' | jq -r '[.verdict, .enforced, .source, .model] | join(\" \")' | sort -u"
	assert_output 'ok 0 proxy gemini-2.5-pro'
	# the API key reached the mock, never the proxy's log
	run -0 sh -c "jq -r 'select(.method == \"POST\") | .headers[\"x-goog-api-key\"]' '$GEMINI_MOCK_LOG' | sort | uniq -c | awk '{print \$1, \$2}'"
	assert_output "$calls test-key"
	run grep -c 'test-key' "$PROXY_ERR"
	assert_output 0
}

# bats test_tags=host
@test "Gemini CLI through jh-proxy: over budget the run stops at the first call (402 FAILED_PRECONDITION is not retried); without the token nothing passes" {
	gemini_install
	proxy_setup
	grant_budget 1000000
	turns '[{"text": "never reached"}]'
	gemini_mock_start "$T/script.json"
	UPSTREAM=$GEMINI_MOCK_URL proxy_start -C "$PROJECT_ROOT/lib/coefficients.json"
	gemini_home
	GEMINI_BASE_URL=$PROXY_URL GEMINI_HEADERS="X-Joulehook-Token: $TOKEN" gemini_run "say hi"
	[ "$GEMINI_RC" -ne 0 ] || { gemini_dump; false; }
	n=$(grep -c 'refused/budget' "$PROXY_ERR")
	echo "# 402: $n requests; exit $GEMINI_RC; $(gemini_json '.error.message // empty' 2>/dev/null | head -c 120)" >&3
	assert_equal "$n" 1
	grep -q 'joulehook: the joule budget is spent' "$GEMINI_OUT" "$GEMINI_ERR" ||
	    { gemini_dump; false; }
	run -0 jq -c 'select(.method == "POST")' "$GEMINI_MOCK_LOG"
	assert_output ''
	# no token: 401 UNAUTHENTICATED, not retried either, and no call upstream
	GEMINI_BASE_URL=$PROXY_URL gemini_run "say hi"
	[ "$GEMINI_RC" -ne 0 ]
	assert_equal "$(grep -c 'refused a caller without the token' "$PROXY_ERR")" 1
	run -0 jq -c 'select(.method == "POST")' "$GEMINI_MOCK_LOG"
	assert_output ''
}

# ----------------------------------------------------------------------
# The gate: jh-install -H gemini-cli, then the real Gemini CLI.

# bats test_tags=host
@test "1. a granted command runs, and its allow receipt is in the session's log" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	assert_output --partial "bound Gemini CLI in $HOME/.gemini/settings.json"
	turns "[{\"function_calls\": [$(shell 'touch granted')]}]"
	e2e
	assert_file_exist "$P/granted"
	run -0 answer 'touch granted'
	refute_output --partial '"error"'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.verdict, .core.code] | @tsv'"
	assert_output "$(printf 'allow\tok')"
	log_verifies
}

# bats test_tags=host
@test "2. a denied rm -rf does not run; the model is told joulehook's reason" {
	gemini_install
	grant '[{"class": "shell", "command": ["rm *", "touch *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	jh_install
	echo precious >"$P/victim"
	turns "[{\"function_calls\": [$(shell 'rm -rf victim')]}, {\"text\": \"I was blocked\"}]"
	e2e
	run -0 cat "$P/victim"
	assert_output precious
	run -0 answer 'rm -rf victim'
	assert_output --regexp '^\{"error":"Tool execution blocked: joulehook: blocked by policy no-destruction: destructive commands are never granted'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.verdict, .core.code, .core.debited_uj] | @tsv'"
	assert_output "$(printf 'deny\tpolicy-deny\t0')"
	# the loop went on: the model's next turn was asked for and shown
	run -0 gemini_json .response
	assert_output 'I was blocked'
	log_verifies
}

# bats test_tags=host
@test "2b. an ask policy is a deny (headless Gemini CLI hangs on ask): not run, the model told, no hang" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "ask-secrets", "when": {"class": "shell", "command": ["touch *secret*"]},
	       "verdict": "ask", "reason": "a human must approve secrets"}]'
	jh_install
	turns "[{\"function_calls\": [$(shell 'touch secret')]}, {\"text\": \"asked\"}]"
	SECONDS=0
	e2e
	[ "$SECONDS" -lt 60 ]
	assert_file_not_exist "$P/secret"
	run -0 answer 'touch secret'
	assert_output --partial '"error":"Tool execution blocked: joulehook: '
	assert_output --partial 'a human must approve secrets'
	run -0 gemini_json .response
	assert_output asked
}

# bats test_tags=host
@test "3. a write outside the project (shell) and outside the granted paths (write_file) is denied; one inside runs" {
	gemini_install
	grant '[{"class": ["read", "search"], "path": ["**"]},
	        {"class": ["write", "edit"], "path": ["src/**"]},
	        {"class": "shell", "command": ["touch *"]}]'
	jh_install
	mkdir -p "$P/src" "$T/elsewhere"
	turns "$(jq -nc --arg p "$P" --arg t "$T/elsewhere" '[{function_calls: [
	    {name: "run_shell_command", args: {command: ("touch " + $t + "/escaped"), description: "e2e"}},
	    {name: "write_file", args: {file_path: ($p + "/outside.txt"), content: "escaped\n"}},
	    {name: "write_file", args: {file_path: ($p + "/src/new.txt"), content: "inside\n"}}]}]')"
	e2e
	assert_file_not_exist "$T/elsewhere/escaped"
	assert_file_not_exist "$P/outside.txt"
	run -0 cat "$P/src/new.txt"
	assert_output inside
	run -0 answer "$T/elsewhere/escaped"
	assert_output --partial '"error":"Tool execution blocked: joulehook: not in your grant'
	run -0 gemini_function_responses
	assert_output --partial '"name":"write_file","response":{"error":"Tool execution blocked: joulehook: not in your grant'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.verdict' | sort | tr '\n' ' '"
	assert_output 'allow deny deny '
	log_verifies
}

# bats test_tags=host
@test "4. a rewrite policy changes the command that runs" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "redact-token", "when": {"class": "shell"},
	       "rewrite": {"field": "command", "regex": "ghp_[A-Za-z0-9]{36}", "with": "REDACTED"}}]'
	jh_install
	tok=ghp_$(printf 'a%.0s' $(seq 36))
	turns "[{\"function_calls\": [$(shell "touch $tok")]}]"
	e2e
	assert_file_not_exist "$P/$tok"
	assert_file_exist "$P/REDACTED"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.verdict, .core.code] | @tsv'"
	assert_output "$(printf 'rewrite\tpolicy-rewrite')"
	log_verifies
	run -0 answer "touch $tok"
	refute_output --partial '"error"'
	run -0 gemini_requests
	assert_output --partial 'Tool input parameters were modified by a hook before execution'
}

# bats test_tags=host
@test "5. a stage killed mid-pipeline blocks the tool (exit 2 is Gemini CLI's deny); the calls around it run" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *'touch killed'*) kill -KILL \$\$ ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	turns "[{\"function_calls\": [$(shell 'touch before')]},
	        {\"function_calls\": [$(shell 'touch killed')]},
	        {\"function_calls\": [$(shell 'touch after')]}]"
	e2e
	assert_file_exist "$P/before"
	assert_file_not_exist "$P/killed"
	assert_file_exist "$P/after"
	run -0 answer 'touch killed'
	assert_output --partial '"error":"Tool execution blocked: joulehook: '
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.verdict' | tr '\n' ' '"
	assert_output 'allow allow '
	log_verifies
}

# bats test_tags=host
@test "6. a jh-hook that cannot be executed blocks every tool (exit 126/127 with text is a deny)" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	# the installed copy the hook command names, made unexecutable
	hook=$(jq -r '.hooks.BeforeTool[] | .hooks[] | select(.name == "joulehook") | .command' "$HOME/.gemini/settings.json")
	bin=$(sed -n "s/^'\([^']*\)'.*/\1/p" <<<"$hook")
	[ -x "$bin" ]
	chmod 644 "$bin"
	turns "[{\"function_calls\": [$(shell 'touch unhooked')]}]"
	gemini_mock_start "$T/script.json"
	gemini_run "do the task"
	chmod 755 "$bin"
	assert_file_not_exist "$P/unhooked"
	run -0 answer 'touch unhooked'
	assert_output --partial '"error":"Tool execution blocked'
}

# bats test_tags=host
@test "7. three run_shell_command calls in one turn (two granted, one not) are each decided, hooks concurrent; one unforked chain" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	cat >"$T/chain-slow.sh" <<-EOF
	#!/bin/sh
	echo "\$\$ \$(date +%s%N)" >>"$T/chain-starts"
	sleep 0.3
	exec "$JH_BIN/jh-chain" "\$@"
	EOF
	chmod 755 "$T/chain-slow.sh"
	echo "stage3=$T/chain-slow.sh" >>"$JH_HOME/hook.conf"
	turns "[{\"function_calls\": [$(shell 'touch p1'), $(shell 'touch p2'), $(shell 'rm p0')]}]"
	e2e
	assert_file_exist "$P/p1"
	assert_file_exist "$P/p2"
	run -0 answer 'rm p0'
	assert_output --partial '"error":"Tool execution blocked: joulehook: not in your grant'
	run -0 sh -c "jh-verify '$LOG' | jq -s '[.[] | select(.chain) | .chain.seq] | . == [range(length)]'"
	assert_output true
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.verdict' | sort | tr '\n' ' '"
	assert_output 'allow allow deny '
	# some jh-chain started while another was still in its 300 ms wait
	run -0 sh -c "awk '{print \$2}' '$T/chain-starts' | sort -n |
	    awk 'NR > 1 && \$1 - p < 300000000 {n++} {p = \$1} END {print n + 0}'"
	[ "$output" -ge 1 ]
	log_verifies
}

# bats test_tags=host
@test "8. the session's receipts chain and verify; AfterTool binds each result to its decision; AfterAgent and SessionEnd seal checkpoints" {
	gemini_install
	grant '[{"class": "shell", "command": ["touch *", "echo *"]}]'
	mkdir -p "$T/sink"
	jh_install -C "$T/sink/checkpoints"
	turns "[{\"function_calls\": [$(shell 'touch one')]}, {\"function_calls\": [$(shell 'echo two')]}, {\"text\": \"finished\"}]"
	e2e
	assert_file_exist "$P/one"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.chain) | .kind' | sort | uniq -c | awk '{print \$2, \$1}'"
	assert_line 'decision/1 2'
	assert_line 'result/1 2'
	run -0 sh -c "jh-verify '$LOG' | jq -c 'select(.kind == \"result/1\") | [.core.event, .core.status, .core.check]'"
	assert_output $'["PostToolUse","ok","match"]\n["PostToolUse","ok","match"]'
	log_verifies
	[ -s "$T/sink/checkpoints" ]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
}

# bats test_tags=host
@test "9. through the installed meter (-M): one efficiency/1 per model call, beside the gate's receipts" {
	gemini_install
	grant '[{"class": "shell", "command": ["echo *"]}]'
	turns "[{\"function_calls\": [$(shell 'echo metered')], \"usage\": {\"thoughtsTokenCount\": 5}}, {\"text\": \"finished\"}]"
	gemini_mock_start "$T/script.json"
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	jh_install -M "$GEMINI_MOCK_URL" -l "127.0.0.1:$port"
	assert_output --partial "bound the meter: Gemini CLI's calls go to http://127.0.0.1:$port"
	cmd=$(sed -n 's/^ExecStart=//p' "$HOME/.config/systemd/user/joulehook-proxy.service")
	$cmd </dev/null 2>"$T/svc.err" 3>&- &
	PROXY_PID=$!
	PROXY_ERR="$T/svc.err"
	for n in $(seq 50); do grep -q 'listening on' "$T/svc.err" && break; sleep 0.1; done
	# the base URL and the token come from ~/.gemini/.env only
	GEMINI_BASE_URL=none gemini_run "do the task"
	[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; cat "$T/svc.err" >&2; false; }
	calls=$(jq -c 'select(.method == "POST" and (.path | contains("enerateContent")))' "$GEMINI_MOCK_LOG" | wc -l)
	[ "$calls" -ge 2 ]
	own=$(jh-verify "$JH_STATE"/logs/*.jhl | jq -r 'select(.chain.session | startswith("jh-proxy-")) | .chain.session' | head -n 1)
	run receipts "$own"
	assert_equal "${#lines[@]}" "$calls"
	run -0 sh -c "jh-verify '$JH_STATE'/logs/*.jhl | jq -r 'select(.kind == \"decision/1\") | .core.verdict'"
	assert_output allow
	proxy_stop
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H gemini-cli
	assert_output --partial 'unbound the meter'
	# the .env held only what jh-install wrote
	assert_file_not_exist "$HOME/.gemini/.env"
	run -0 jq -c '[.hooks, .mcpServers, .security]' "$HOME/.gemini/settings.json"
	assert_output --regexp '^\[null,null,'

}

@test "jh-install -H gemini-cli is idempotent and -u removes only what it added" {
	grant '[{"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$HOME/.gemini"
	echo '{"theme": "dark", "mcpServers": {"other": {"command": "/bin/cat"}}}' >"$HOME/.gemini/settings.json"
	jh_install
	jh_install
	run -0 jq -c '[.theme, (.mcpServers | keys), ([.hooks[][] | .hooks[] | select(.name == "joulehook")] | length)]' "$HOME/.gemini/settings.json"
	assert_output '["dark",["joulehook","other"],4]'
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H gemini-cli
	run -0 jq -c '[.theme, (.mcpServers | keys), .hooks]' "$HOME/.gemini/settings.json"
	assert_output '["dark",["other"],null]'
}
