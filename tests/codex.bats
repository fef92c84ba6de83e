#!/usr/bin/env bats
# End to end: joulehook gating the REAL Codex CLI 0.171.0, offline.
#
# Each test gets a fresh HOME (CODEX_HOME = $HOME/.codex), JH_HOME and
# JH_STATE under $T and a project $T/proj ($P, its realpath).  The user's
# own config.toml (tests/helpers/codex.bash: the mock provider, approval
# "never", full access, the offline [features]) is written first; then
# `jh-install -H codex` binds the hooks (hosts/codex/bind.sh) and `codex
# exec` runs in $P against tests/mock/openai-mock.py's /v1/responses,
# scripted turn by turn (exec_command function calls, apply_patch custom
# tool calls).
#
# Trust mode: every test but (t1)'s first run uses NO
# --dangerously-bypass-hook-trust: the hooks run because config.toml
# holds the trust record bind.sh wrote, exactly as Codex's /hooks review
# writes it.  (t1) shows that without it Codex skips the hook silently.
#
# Every claim is shown by a side effect on disk (a file that exists or
# not, its contents), by what the model was sent back (the mock's log of
# the next request: the function_call_output), and by the session's log
# JH_STATE/logs/<sha256 of the session id>.jhl as jh-verify reads it.
#
# Where npm cannot reach the registry the tests are skipped, loudly
# ("SKIPPED: cannot install Codex from npm: ..."); where the core
# (jh-install -H codex, jh-hook -H codex) has not landed, they are
# skipped with "core: ...".

load test_helper/common
load helpers/claude	# jh_bin_snapshot
load helpers/codex

setup_file() {
	jh_bin_snapshot
}

setup() {
	_common_setup
	mkdir -p "$T/proj"
	P=$(cd "$T/proj" && pwd -P)
	CODEX_HOME="$HOME/.codex"
	export CODEX_HOME
	cd "$P"
}

teardown() {
	if [ -n "${PROXY_PID:-}" ]; then
		kill "$PROXY_PID" 2>/dev/null || true
		wait "$PROXY_PID" 2>/dev/null || true
		PROXY_PID=
	fi
	codex_mock_stop
}

# core: skip unless jh-install binds hosts with -H (the core's dispatch).
need_core() {
	grep -q 'jh_bind' "$PROJECT_ROOT/scripts/jh-install" ||
	    skip "core: jh-install -H codex (sourcing hosts/codex/bind.sh, calling jh_bind) has not landed"
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

jh_install() {
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H codex "$@"
	INSTALL_OUT=$output
}
# turns JSON: the mock's script ({"turns": [...]}).
turns() {
	jq -c '{turns: .}' <<<"$1" >"$T/script.json"
}

# exec_call CMD [ID]: one exec_command function call, as JSON.
exec_call() {
	jq -nc --arg c "$1" --arg id "${2:-}" --arg w "$P" \
	    '{name: "exec_command", arguments: {cmd: $c, workdir: $w}}
	     + (if $id != "" then {call_id: $id} else {} end)'
}

# patch_call TEXT [ID]: one apply_patch custom (freeform) tool call.
patch_call() {
	jq -nc --arg p "$1" --arg id "${2:-}" \
	    '{name: "apply_patch", input: $p}
	     + (if $id != "" then {call_id: $id} else {} end)'
}

# e2e [ARGS...]: the mock on $T/script.json (and config.toml pointed at
# it, unless already written), then codex exec in $P; fails (with a dump)
# unless codex exits 0.  Sets SID and LOG.
e2e() {
	[ -n "${MOCK_PID:-}" ] || codex_mock_start "$T/script.json"
	codex_run "do the task" "$@"
	[ "$CODEX_RC" -eq 0 ] || { codex_dump; return 1; }
	SID=$(codex_session)
	[ -n "$SID" ] || { codex_dump; return 1; }
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
}

# The config must exist before jh-install adds its block: a user who
# already runs Codex against the mock.
user_config() {
	codex_mock_start "$T/script.json"
	codex_config
}

entries() {
	jh-verify "${1:-$LOG}" | jq -c 'select(.chain and .kind == "decision/1")'
}

entry() {
	entries | jq -c --arg id "$1" 'select(.core.tool_use_id == $id)'
}

log_verifies() {
	run -0 jh-verify "$LOG"
	run -0 jq -c 'select(.log or .summary) | [.log.ok, .summary.failed]' <<<"$output"
	assert_output '[true,null]
[null,0]'
	run -0 jh-verify -q "$LOG"
	assert_output ""
}

# Codex's text for a hook's block (hosts/codex/README.md), as the model
# gets it.
blocked() {
	run -0 codex_output "$1"
	assert_output --partial "Command blocked by PreToolUse hook: "
}

# bind_shim FUNC: hosts/codex/bind.sh's FUNC with jh-install's helpers
# stood in, bindir=$T/bin (a probe as jh-hook): the trust record alone,
# before and without the core.
bind_shim() {
	(
		set -eu
		. "$PROJECT_ROOT/tests/helpers/bindstub.sh"
		bindir="$T/bin" conf="$T/hook.conf" deadline=8000 url="" token="" upstream=""
		. "$PROJECT_ROOT/hosts/codex/bind.sh"
		"$1"
	)
}

# A probe standing in for jh-hook: records each payload, denies any
# command that names "victim" the way jh-hook -H codex does.
probe_hook() {
	mkdir -p "$T/bin" "$T/cap"
	cat >"$T/bin/jh-hook" <<-EOF
	#!/bin/sh
	in=\$(cat)
	ev=\$(printf '%s' "\$in" | jq -r .hook_event_name)
	printf '%s\n' "\$in" >"$T/cap/\$ev.\$\$.json"
	case "\$ev" in PreToolUse) ;; *) exit 0 ;; esac
	case "\$(printf '%s' "\$in" | jq -r '.tool_input.command')" in
	*victim*)
		echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"probe: no victims"}}'
		echo "probe: no victims" >&2
		exit 2 ;;
	esac
	exit 0
	EOF
	chmod 755 "$T/bin/jh-hook"
}

# ----------------------------------------------------------------------
# The harness and the trust record (no core needed)

# bats test_tags=host
@test "(t1) Codex skips an untrusted hook without a word; the trust bind.sh records makes it run without the bypass flag" {
	codex_install
	probe_hook
	turns "[{\"calls\": [$(exec_call 'touch ran1' call_t1_ok), $(exec_call 'rm victim' call_t1_rm)]},
	        {\"text\": \"finished\"}]"
	user_config
	# hooks.json as bind.sh writes it, but no trust: Codex skips the hook
	echo precious >"$P/victim"
	run -0 bind_shim jh_bind
	assert_output --partial "recorded Codex's trust for joulehook's hooks in $CODEX_HOME/config.toml"
	cp "$CODEX_HOME/config.toml" "$T/trusted.toml"
	codex_config	# the user's config again, without the block
	e2e
	assert_file_exist "$P/ran1"
	assert_file_not_exist "$P/victim"
	run -0 find "$T/cap" -type f
	assert_output ""
	run -0 codex_output call_t1_rm
	refute_output --partial "blocked"
	run -0 jq -c 'select(.type == "item.completed" and .item.type == "error") | .item.message' "$CODEX_OUT"
	refute_output --partial hook
	# with the trust record: the same turns (new call ids), the hook runs
	# and denies
	cp "$T/trusted.toml" "$CODEX_HOME/config.toml"
	rm -f "$P/ran1"
	echo precious >"$P/victim"
	turns "[{\"calls\": [$(exec_call 'touch ran1' call_t1b_ok), $(exec_call 'rm victim' call_t1b_rm)]},
	        {\"text\": \"finished\"}]"
	e2e
	assert_file_exist "$P/ran1"
	run -0 cat "$P/victim"
	assert_output precious
	run -0 codex_output call_t1b_rm
	assert_output --partial "Command blocked by PreToolUse hook: probe: no victims"
	# every bound event reached the hook: two PreToolUse, one PostToolUse
	# (the call that ran), Stop and SessionEnd
	run -0 sh -c "ls '$T/cap' | sed 's/\\..*//' | sort | uniq -c | awk '{print \$2 \"=\" \$1}' | tr '\n' ' '"
	assert_output "PostToolUse=1 PreToolUse=2 SessionEnd=1 Stop=1 "
	# the bypass flag was not used: Codex reports it when it is
	run grep -c dangerously-bypass-hook-trust "$CODEX_OUT"
	assert_output 0
}

# bats test_tags=host
@test "(t2) a changed hook loses its trust: Codex skips it until bind.sh records the new hash" {
	codex_install
	probe_hook
	turns "[{\"calls\": [$(exec_call 'rm victim' call_t2_rm)]}, {\"text\": \"finished\"}]"
	user_config
	run -0 bind_shim jh_bind
	# the hook's command changes (another timeout), the record does not
	jq '.hooks.PreToolUse[-1].hooks[0].timeout += 1' "$CODEX_HOME/hooks.json" >"$T/h.json"
	mv "$T/h.json" "$CODEX_HOME/hooks.json"
	echo precious >"$P/victim"
	e2e
	assert_file_not_exist "$P/victim"
	run -0 find "$T/cap" -name 'PreToolUse.*'
	assert_output ""
	# bind again: the group is replaced in place and trusted again
	run -0 bind_shim jh_bind
	run -0 jq '.hooks.PreToolUse | length' "$CODEX_HOME/hooks.json"
	assert_output 1
	echo precious >"$P/victim"
	turns "[{\"calls\": [$(exec_call 'rm victim' call_t2b_rm)]}, {\"text\": \"finished\"}]"
	e2e
	assert_file_exist "$P/victim"
	blocked call_t2b_rm
}

# bats test_tags=host
@test "(t3) the mock drives Codex: parallel exec_command calls and an apply_patch custom tool call (gpt-5.5)" {
	codex_install
	turns "$(jq -nc --arg p "$P" --argjson a "$(exec_call 'touch p1' call_t3_a)" \
	    --argjson b "$(exec_call 'touch p2' call_t3_b)" '[
	    {calls: [$a, $b]},
	    {calls: [{name: "apply_patch", call_id: "call_t3_patch",
	              input: ("*** Begin Patch\n*** Add File: " + $p + "/added.txt\n+added by patch\n*** End Patch\n")}]},
	    {text: "finished"}]')"
	user_config
	e2e -c 'model="gpt-5.5"'
	assert_file_exist "$P/p1"
	assert_file_exist "$P/p2"
	run -0 cat "$P/added.txt"
	assert_output "added by patch"
	# three model calls: turn 0, 1, 2; the request offered apply_patch as
	# a custom tool; usage in response.completed reached Codex
	run -0 sh -c "jq -c 'select(.method == \"POST\") | .response.turn' '$MOCK_LOG' | tr '\n' ' '"
	assert_output "0 1 2 "
	run -0 jq -r 'select(.method == "POST") | .body.tools[]? | select(.name == "apply_patch") | .type' "$MOCK_LOG"
	assert_line custom
	run -0 jq -c 'select(.type == "turn.completed") | .usage.input_tokens > 0' "$CODEX_OUT"
	assert_output true
	run -0 codex_output call_t3_patch
	assert_output --partial "added.txt"
}

# ----------------------------------------------------------------------
# Through the installed gate (jh-install -H codex)

# bats test_tags=host
@test "1. a granted command runs; its allow receipt is in the session log, which verifies" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"calls\": [$(exec_call 'touch granted' call_e2e_ok)]}, {\"text\": \"finished\"}]"
	user_config
	mkdir -p "$T/sink"
	jh_install -C "$T/sink/checkpoints"
	assert_output --partial "recorded Codex's trust for joulehook's hooks in $CODEX_HOME/config.toml"
	e2e
	assert_file_exist "$P/granted"
	run -0 entries
	assert_equal "${#lines[@]}" 1
	# PostToolUse: what ran is what was decided
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | [.core.tool_use_id, .core.event, .core.check] | @tsv'"
	assert_output "$(printf 'call_e2e_ok\tPostToolUse\tmatch')"
	# Stop and SessionEnd sealed a checkpoint that vouches for the log
	[ -s "$T/sink/checkpoints" ]
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
	run -0 entries
	run -0 jq -r '[.core.verdict, .core.code, .core.tool_use_id, .core.session, .core.event, .core.cwd] | @tsv' <<<"$output"
	assert_output "$(printf 'allow\tok\tcall_e2e_ok\t%s\tPreToolUse\t%s' "$SID" "$P")"
	log_verifies
	# the receipt MCP server the block registers reached the model's
	# tools (0.171.0 sends an MCP server as a namespace of functions)
	run -0 sh -c "jq -r 'select(.method == \"POST\") | .body.tools[]? | select(.name == \"mcp__joulehook\") | [.type, (.tools[].name)] | join(\" \")' '$MOCK_LOG' | sort -u"
	assert_output "namespace verify"
	# the session ended: no model call after the scripted ones
	run -0 sh -c "jq -c 'select(.method == \"POST\") | .response.turn' '$MOCK_LOG' | tr '\n' ' '"
	assert_output "0 1 "
}

# bats test_tags=host
@test "2. a denied rm -rf does not run; the model is told joulehook's reason" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["rm *", "touch *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	turns "[{\"calls\": [$(exec_call 'rm -rf victim' call_e2e_rm)]}, {\"text\": \"finished\"}]"
	user_config
	jh_install
	echo precious >"$P/victim"
	e2e
	run -0 cat "$P/victim"
	assert_output precious
	blocked call_e2e_rm
	assert_output --partial "joulehook: blocked by policy no-destruction: destructive commands are never granted"
	run -0 jq -r '[.core.verdict, .core.code, .core.rule, .core.debited_uj] | @tsv' <<<"$(entry call_e2e_rm)"
	assert_output "$(printf 'deny\tpolicy-deny\tpolicies[0]\t0')"
	log_verifies
}

# bats test_tags=host
@test "3. a shell write outside the project is denied; the same command inside runs" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}, {"class": ["write", "edit"], "path": ["**"]}]'
	mkdir -p "$T/outside"
	turns "[{\"calls\": [$(exec_call "touch $T/outside/escaped" call_e2e_out), $(exec_call 'touch inside' call_e2e_in)]},
	        {\"text\": \"finished\"}]"
	user_config
	jh_install
	e2e
	assert_file_not_exist "$T/outside/escaped"
	assert_file_exist "$P/inside"
	blocked call_e2e_out
	assert_output --partial "joulehook: not in your grant: write $T/outside/escaped"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | @tsv' | sort"
	assert_output "$(printf 'call_e2e_in\tallow\ncall_e2e_out\tdeny')"
	log_verifies
}

# bats test_tags=host
@test "4. apply_patch: adding a file inside the project is allowed; deleting or moving one outside, or writing ~/.codex, is denied" {
	need_core
	codex_install
	grant '[{"class": ["read", "search"], "path": ["**"]},
	        {"class": ["write", "edit", "delete"], "path": ["**"]}]'
	mkdir -p "$T/outside"
	echo keep >"$T/outside/keep.txt"
	echo "alpha line" >"$P/a.txt"
	turns "$(jq -nc --arg p "$P" --arg o "$T/outside" --arg ch "$CODEX_HOME" '[
	    {calls: [{name: "apply_patch", call_id: "call_p_add",
	              input: ("*** Begin Patch\n*** Add File: " + $p + "/src/new.txt\n+inside\n*** End Patch\n")}]},
	    {calls: [{name: "apply_patch", call_id: "call_p_del",
	              input: ("*** Begin Patch\n*** Delete File: " + $o + "/keep.txt\n*** End Patch\n")}]},
	    {calls: [{name: "apply_patch", call_id: "call_p_mv",
	              input: ("*** Begin Patch\n*** Update File: " + $p + "/a.txt\n*** Move to: " + $o + "/a.txt\n@@\n-alpha line\n+beta line\n*** End Patch\n")}]},
	    {calls: [{name: "apply_patch", call_id: "call_p_codex",
	              input: ("*** Begin Patch\n*** Add File: " + $ch + "/evil.toml\n+[hooks]\n*** End Patch\n")}]},
	    {text: "finished"}]')"
	user_config
	jh_install
	e2e -c 'model="gpt-5.5"'
	run -0 cat "$P/src/new.txt"
	assert_output inside
	run -0 cat "$T/outside/keep.txt"
	assert_output keep
	run -0 cat "$P/a.txt"
	assert_output "alpha line"
	assert_file_not_exist "$T/outside/a.txt"
	assert_file_not_exist "$CODEX_HOME/evil.toml"
	blocked call_p_del
	blocked call_p_mv
	blocked call_p_codex
	run -0 codex_output call_p_add
	refute_output --partial "blocked"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | @tsv'"
	assert_output "$(printf 'call_p_add\tallow\ncall_p_del\tdeny\ncall_p_mv\tdeny\ncall_p_codex\tdeny')"
	log_verifies
}

# bats test_tags=host
@test "5. a rewrite policy (redact-token) changes the command that runs" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["echo *"]}, {"class": ["write"], "path": ["**"]}]' \
	    "$(jq -c '[.policies[] | select(.id == "redact-token")]' "$PROJECT_ROOT/scripts/examples/grant.json")"
	local tok=ghp_abcdefghijklmnopqrstuvwxyz0123456789
	turns "[{\"calls\": [$(exec_call "echo $tok > token.txt" call_e2e_rw)]}, {\"text\": \"finished\"}]"
	user_config
	jh_install
	e2e
	assert_file_exist "$P/token.txt"
	run grep -c ghp_ "$P/token.txt"
	assert_output 0
	# what Codex ran is the rewritten command
	run -0 jq -r 'select(.type == "item.completed" and .item.type == "command_execution") | .item.command' "$CODEX_OUT"
	assert_output --partial 'echo $GITHUB_TOKEN > token.txt'
	refute_output --partial "$tok"
	run -0 jq -r '[.core.verdict, .core.code] | @tsv' <<<"$(entry call_e2e_rw)"
	assert_output "$(printf 'rewrite\tpolicy-rewrite')"
	log_verifies
}

# bats test_tags=host
@test "6. a stage killed mid-pipeline blocks the tool; the calls around it run" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"calls\": [$(exec_call 'touch before' call_k_before)]},
	        {\"calls\": [$(exec_call 'touch killed' call_k_kill)]},
	        {\"calls\": [$(exec_call 'touch after' call_k_after)]},
	        {\"text\": \"finished\"}]"
	user_config
	jh_install
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *call_k_kill*) kill -KILL \$\$ ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	e2e
	assert_file_exist "$P/before"
	assert_file_not_exist "$P/killed"
	assert_file_exist "$P/after"
	blocked call_k_kill
	assert_output --partial "joulehook"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | .core.tool_use_id'"
	assert_output "$(printf 'call_k_before\ncall_k_after')"
	log_verifies
}

# bats test_tags=host
@test "7. two parallel exec_command calls in one response are both decided, in one unforked chain" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *", "rm *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	echo precious >"$P/victim"
	turns "[{\"calls\": [$(exec_call 'touch p1' call_par_1), $(exec_call 'rm -rf victim' call_par_2),
	                     $(exec_call 'touch p3' call_par_3)]}, {\"text\": \"finished\"}]"
	user_config
	jh_install
	e2e
	assert_file_exist "$P/p1"
	assert_file_exist "$P/p3"
	assert_file_exist "$P/victim"
	blocked call_par_2
	# one response carried the three calls
	run -0 jq -c 'select(.response.turn == 0) | .response.call_ids' "$MOCK_LOG"
	assert_output '["call_par_1","call_par_2","call_par_3"]'
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | @tsv' | sort"
	assert_output "$(printf 'call_par_1\tallow\ncall_par_2\tdeny\ncall_par_3\tallow')"
	run -0 sh -c "jh-verify '$LOG' | jq -s '[.[] | select(.chain) | .chain.seq] | . == [range(length)]'"
	assert_output true
	log_verifies
}

# bats test_tags=host
@test "8. through jh-proxy (jh-install -M, codex -p joulehook): one efficiency/1 per model call with the mock's token counts" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "$(jq -nc --argjson a "$(exec_call 'touch metered' call_m_1)" '[
	    {calls: [$a], usage: {input_tokens: 1200, input_tokens_details: {cached_tokens: 200},
	                          output_tokens: 30, output_tokens_details: {reasoning_tokens: 0}, total_tokens: 1230}},
	    {text: "finished", usage: {input_tokens: 1500, input_tokens_details: {cached_tokens: 0},
	                               output_tokens: 7, output_tokens_details: {reasoning_tokens: 0}, total_tokens: 1507}}]')"
	user_config
	local port i cmd
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	jh_install -M "$MOCK_URL" -l "127.0.0.1:$port"
	assert_output --partial "run codex -p joulehook"
	cmd=$(printf '%s\n' "$output" | sed -n 's/^jh-install:   JH_HOME=[^ ]* JH_STATE=[^ ]* //p' | head -n1)
	[ -n "$cmd" ] || fail "no proxy command in: $output"
	JH_HOME="$JH_HOME" JH_STATE="$JH_STATE" $cmd </dev/null >"$T/proxy.out" 2>"$T/proxy.err" 3>&- &
	PROXY_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$T/proxy.err" && break
		sleep 0.05
	done
	grep -q 'listening on' "$T/proxy.err" || { cat "$T/proxy.err" >&2; false; }
	e2e -p joulehook
	assert_file_exist "$P/metered"
	# both model calls went through the proxy, with the token header
	run -0 jq -c 'select(.method == "POST") | [.path, .response.turn]' "$MOCK_LOG"
	assert_output '["/v1/responses",0]
["/v1/responses",1]'
	run -0 jq -r 'select(.method == "POST") | .headers | to_entries[] | select(.key | ascii_downcase == "x-joulehook-token") | .key' "$MOCK_LOG"
	assert_output ""	# the proxy takes its token off
	kill "$PROXY_PID" 2>/dev/null || true
	wait "$PROXY_PID" 2>/dev/null || true
	PROXY_PID=
	run -0 sh -c "jh-verify '$LOG' | jq -c 'select(.kind == \"efficiency/1\") | .core | [.tokens_in, .tokens_out, .tokens_cache_read]'"
	assert_output '[1000,30,200]
[1500,7,0]'
	log_verifies
}

# Item 11: a hook of the user's, beside joulehook's, answers allow with
# another command (Codex runs both; the updatedInput wins).  What ran is
# not what was decided: PostToolUse's jh-result records it and answers
# Codex's stop, {"continue":false,"stopReason":R}.  Codex 0.171.0 (exec)
# puts R in place of the tool's output for the model but does NOT end
# the run: the next call is made, and the gate, which marked the session
# stopped, denies it.
# bats test_tags=host
@test "11. another hook that rewrites an allowed input is caught after the tool: result/1 input-mismatch, the model is told" {
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"calls\": [$(exec_call 'touch granted' call_sw_1)]},
	        {\"calls\": [$(exec_call 'touch next' call_sw_2)]}, {\"text\": \"finished\"}]"
	user_config
	cat >"$T/other.sh" <<-'EOF'
	#!/bin/sh
	cat >/dev/null
	echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"touch sneaky"}}}'
	EOF
	chmod 755 "$T/other.sh"
	mkdir -p "$CODEX_HOME"
	jq -n --arg c "$T/other.sh" '{hooks: {PreToolUse: [{matcher: "*", hooks: [{type: "command", command: $c, timeout: 10}]}]}}' \
	    >"$CODEX_HOME/hooks.json"
	jh_install
	# the user trusts their own hook (the record /hooks would write)
	(_jh_cx_events=PreToolUse; . "$PROJECT_ROOT/hosts/codex/bind.sh"; _jh_cx_events=PreToolUse
	 _jh_cx_home; _jh_cx_trust "$T/other.sh") | sed 's/ # joulehook$//' >>"$CODEX_HOME/config.toml"
	run -0 grep -c 'pre_tool_use:0:0' "$CODEX_HOME/config.toml"
	assert_output 1
	e2e
	# the other hook's input ran once; joulehook's never did
	assert_file_exist "$P/sneaky"
	assert_file_not_exist "$P/granted"
	assert_file_not_exist "$P/next"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | [.core.tool_use_id, .core.check] | @tsv'"
	assert_output "$(printf 'call_sw_1\tinput-mismatch')"
	# the session is stopped: the next call is denied, whatever it is
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\" and .core.tool_use_id == \"call_sw_2\") | [.core.verdict, .core.reason] | @tsv'"
	assert_output --partial "deny	this session was stopped"
	# the model got joulehook's reason instead of the command's output
	run -0 codex_output call_sw_1
	assert_output "joulehook: the input Bash ran is not the one decided on (another hook or the host changed it after the decision)"
	# and Codex went on: all three scripted turns were asked for
	run -0 sh -c "jq -c 'select(.method == \"POST\") | .response.turn' '$MOCK_LOG' | tr '\n' ' '"
	assert_output "0 1 2 "
	log_verifies
}

# Codex's own configuration holds the hooks and their trust: an agent
# that could write $CODEX_HOME/hooks.json or config.toml (or the
# project's .codex/) could unhook the gate, so no grant may allow it.
# bats test_tags=host
@test "9. whatever the grant, apply_patch and the shell cannot write Codex's configuration (~/.codex, <project>/.codex)" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *", "echo *"]},
	        {"class": ["read", "search", "write", "edit", "delete"], "path": ["/**"]}]'
	mkdir -p "$P/.codex"
	turns "$(jq -nc --arg p "$P" --arg ch "$CODEX_HOME" --arg w "$P" '[
	    {calls: [{name: "apply_patch", call_id: "call_c_hooks",
	              input: ("*** Begin Patch\n*** Delete File: " + $ch + "/hooks.json\n*** End Patch\n")},
	             {name: "exec_command", call_id: "call_c_toml",
	              arguments: {cmd: ("echo \"[hooks]\" > " + $ch + "/config.toml"), workdir: $w}},
	             {name: "apply_patch", call_id: "call_c_proj",
	              input: ("*** Begin Patch\n*** Add File: " + $p + "/.codex/hooks.json\n+{}\n*** End Patch\n")},
	             {name: "apply_patch", call_id: "call_c_ok",
	              input: ("*** Begin Patch\n*** Add File: " + $p + "/fine.txt\n+fine\n*** End Patch\n")}]},
	    {text: "finished"}]')"
	user_config
	jh_install
	cp "$CODEX_HOME/config.toml" "$T/config.toml.before"
	e2e -c 'model="gpt-5.5"'
	assert_file_exist "$P/fine.txt"
	assert_file_exist "$CODEX_HOME/hooks.json"
	cmp "$CODEX_HOME/config.toml" "$T/config.toml.before"
	assert_file_not_exist "$P/.codex/hooks.json"
	blocked call_c_hooks
	blocked call_c_toml
	blocked call_c_proj
	log_verifies
}

# Codex reads exit 2 on Stop as "do not stop, go on" (the stderr becomes
# the model's next input): a gate that answers its fail-closed deny there
# would keep the session calling the model until something kills it.
# bats test_tags=host
@test "10. a broken hook config blocks the tool and still lets the session end" {
	need_core
	codex_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"calls\": [$(exec_call 'touch broken' call_b_1)]}, {\"text\": \"finished\"}]"
	user_config
	jh_install
	mv "$JH_HOME/hook.conf" "$JH_HOME/hook.conf.away"
	CODEX_TIMEOUT=40 codex_run "do the task"
	mv "$JH_HOME/hook.conf.away" "$JH_HOME/hook.conf"
	[ "$CODEX_RC" -eq 0 ] || { codex_dump; false; }
	assert_file_not_exist "$P/broken"
	blocked call_b_1
	run -0 sh -c "jq -c 'select(.method == \"POST\")' '$MOCK_LOG' | wc -l"
	assert_output 2
}

@test "jh-install -H codex is idempotent, keeps the user's settings, refuses a clashing table, and -u takes out only what it added" {
	need_core
	grant '[{"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$CODEX_HOME"
	printf 'model = "gpt-5.5"\n\n[tui]\nnotifications = true\n' >"$CODEX_HOME/config.toml"
	echo '{"hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "/usr/bin/true"}]}]}}' >"$CODEX_HOME/hooks.json"
	cp "$CODEX_HOME/config.toml" "$T/config.before"
	cp "$CODEX_HOME/hooks.json" "$T/hooks.before"
	jh_install
	# the user's group first, ours after it (its trust key names index 1)
	run -0 jq -c '.hooks.PreToolUse | map(.matcher)' "$CODEX_HOME/hooks.json"
	assert_output '["^Bash$","*"]'
	run -0 grep -c "hooks.json:pre_tool_use:1:0" "$CODEX_HOME/config.toml"
	assert_output 1
	run -0 jq -r '.hooks | keys | join(" ")' "$CODEX_HOME/hooks.json"
	assert_output "PostToolUse PreToolUse SessionEnd Stop"
	run -0 jq -r '.hooks.Stop[0].hooks[0] | [.command, .timeout] | @tsv' "$CODEX_HOME/hooks.json"
	assert_output "$(printf "'%s' -c '%s' -H codex\t15" "$JH_HOME/bin/jh-hook" "$JH_HOME/hook.conf")"
	# ours is hosts/codex/hooks.json, rendered
	run -0 jq -cS '.hooks | map_values(map(select(.hooks[0].command | test("jh-hook"))))' "$CODEX_HOME/hooks.json"
	assert_output "$(sed -e "s|@BINDIR@|$JH_HOME/bin|g" -e "s|@CONF@|$JH_HOME/hook.conf|g" \
	    -e 's|@TIMEOUT@|15|g' "$PROJECT_ROOT/hosts/codex/hooks.json" | jq -cS .hooks)"
	run -0 head -n 4 "$CODEX_HOME/config.toml"
	assert_output "$(cat "$T/config.before")"
	grep -q '^\[mcp_servers.joulehook\] # joulehook$' "$CODEX_HOME/config.toml"
	# again: nothing changes
	cp "$CODEX_HOME/config.toml" "$T/config.once"
	cp "$CODEX_HOME/hooks.json" "$T/hooks.once"
	jh_install
	cmp "$CODEX_HOME/config.toml" "$T/config.once"
	cmp "$CODEX_HOME/hooks.json" "$T/hooks.once"
	refute_output --partial "recorded Codex's trust"
	# -u: back to the user's files
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H codex
	cmp "$CODEX_HOME/config.toml" "$T/config.before"
	run -0 jq -S . "$CODEX_HOME/hooks.json"
	assert_output "$(jq -S . "$T/hooks.before")"
	# a user's own [mcp_servers.joulehook]: refused, nothing written
	printf '\n[mcp_servers.joulehook]\ncommand = "mine"\n' >>"$CODEX_HOME/config.toml"
	cp "$CODEX_HOME/config.toml" "$T/config.clash"
	run -1 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/grant.json" -H codex
	assert_output --partial "already defines [mcp_servers.joulehook] outside joulehook's block"
	cmp "$CODEX_HOME/config.toml" "$T/config.clash"
}
