#!/usr/bin/env bats
# End to end: joulehook gating the REAL Cline CLI 3.0.65, offline.
#
# Each test gets a fresh HOME, JH_HOME and JH_STATE under $T and a
# project $T/proj ($P, its realpath); jh-install -H cline (-W -b $JH_BIN
# -p $P -g <the test's grant>) writes the hook files in ~/.cline/hooks
# (hosts/cline/bind.sh), `cline auth` points Cline's openai-compatible
# provider at tests/mock/openai-mock.py (scripted "chat_turns"), and
# `cline --json` runs one task in $P (tests/helpers/cline.bash).
#
# Every claim is shown by a side effect on disk, by what the model was
# sent back (the mock's log of the next request), by how Cline's run
# ended (its run_result event), and by the task's log in JH_STATE/logs
# as jh-verify reads it.
#
# What Cline 3.0.65 does with joulehook's answers (observed here):
#  - allow {"cancel":false}: the tool runs;
#  - deny {"cancel":true,"errorMessage":R}: the tool does not run and the
#    whole run ends (run_result finishReason "aborted", no further model
#    call); R reaches only Cline's log (~/.cline/data/logs/cline.log), the
#    terminal says "[abort] aborted by another client";
#  - rewrite {"cancel":false,"overrideInput":{...}}: the rewritten input
#    runs;
#  - exit codes mean nothing to Cline: a hook that fails without the
#    cancel JSON lets the tool run, so jh-hook prints it on every failure.
#
# Every test stops the hub daemon Cline spawns (cline_teardown); the
# last test checks that none of this file's is left.

load test_helper/common
load helpers/cline

setup_file() {
	# the programs copied once: a rebuild during the run cannot hand
	# Cline a half-written jh-hook (as tests/claude-code.bats does)
	local root p
	root="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	for p in "${JH_BIN:-$root/build/test/bin}"/jh-*; do
		case $p in *.o | *.d) continue ;; esac
		cp "$p" "$BATS_FILE_TMPDIR/bin/"
	done
	export JH_BIN="$BATS_FILE_TMPDIR/bin"
	echo "$BATS_FILE_TMPDIR" >"$BATS_FILE_TMPDIR/homes"
}

setup() {
	_common_setup
	mkdir -p "$T/proj"
	P=$(cd "$T/proj" && pwd -P)
	CLINE_HOME="$HOME"
	export CLINE_HOME
	echo "$HOME" >>"$BATS_FILE_TMPDIR/homes"
	cd "$P"
}

teardown() {
	[ -n "${PROXY_PID:-}" ] && _cline_kill "$PROXY_PID"
	PROXY_PID=
	cline_teardown
}

# grant CAPS [POLICIES]: a grant document for the project in $T/grant.json,
# for Cline alone (AUD= another audience).
grant() {
	jq -n --arg root "$P" --argjson caps "$1" --argjson pol "${2:-[]}" \
	    --arg aud "${AUD:-joulehook:cline}" '{
	    audience: $aud, nbf: 0, exp: 4102444800,
	    budget_uj: 20000000000000,
	    costs: {shell: 2000000, write: 200000, edit: 200000, read: 50000,
	            search: 50000, default: 100000},
	    root: $root, caps: $caps, policies: $pol}' >"$T/grant.json"
}

jh_install() {
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H cline "$@"
	INSTALL_OUT=$output
}

# turns JSON: the mock's chat_turns.
turns() {
	jq -c '{chat_turns: .}' <<<"$1" >"$T/script.json"
}

# cmd ID COMMAND...: one run_commands call, as a JSON object for turns().
cmd() {
	local id=$1
	shift
	jq -nc --arg id "$id" '{id: $id, name: "run_commands",
	    arguments: {commands: $ARGS.positional}}' --args "$@"
}

# e2e: the mock on $T/script.json, the provider pointed at it (unless
# NOAUTH=1), then cline --json in $P; fails (with a dump) unless cline
# exits 0.  Sets TASK (Cline's taskId: joulehook's session) and LOG
# (that session's log).
e2e() {
	[ -n "${CMOCK_PID:-}" ] || cline_mock_start "$T/script.json"
	[ "${NOAUTH:-0}" = 1 ] || cline_auth
	cline_run "do the task"
	[ "$CLINE_RC" -eq 0 ] || { cline_dump; return 1; }
	TASK=$(jq -r 'select(.type == "hook_event") | .taskId' "$CLINE_OUT" | head -n1)
	LOG="$JH_STATE/logs/$(printf %s "$TASK" | sha256sum | cut -c1-64).jhl"
}

# entries: the log's decision entries, as jh-verify writes them.
entries() {
	jh-verify "${1:-$LOG}" | jq -c 'select(.chain and .kind == "decision/1")'
}

# decided: "call_id verdict code" for each decision, in chain order.
decided() {
	entries | jq -r '[.core.tool_use_id, .core.verdict, .core.code] | join(" ")'
}

# The log verifies, as JSON lines and with -q.
log_verifies() {
	[ -n "$LOG" ] && [ -f "$LOG" ] || fail "no log in $JH_STATE/logs"
	run -0 jh-verify "$LOG"
	run -0 jq -c 'select(.log or .summary) | [.log.ok, .summary.failed]' <<<"$output"
	assert_output '[true,null]
[null,0]'
	run -0 jh-verify -q "$LOG"
	assert_output ""
}

# model_calls: how many chat completions Cline asked for.
model_calls() {
	cline_requests | wc -l
}

# ----------------------------------------------------------------------
# The installer's part, without Cline: no npm needed.

@test "jh-install -H cline: hook files are regular files that exec jh-hook -H cline; a second run changes nothing; -u removes them" {
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	local ev f
	for ev in PreToolUse PostToolUse TaskComplete SessionShutdown; do
		f="$HOME/.cline/hooks/$ev"
		output=$INSTALL_OUT
		assert_output --partial "installed Cline's $ev hook $f (runs $JH_HOME/bin/jh-hook -c $JH_HOME/hook.conf -H cline)"
		[ -f "$f" ] && [ ! -L "$f" ] && [ -x "$f" ] || fail "$f is not an executable regular file"
		run -0 sed -n 4p "$f"
		assert_output "exec '$JH_HOME/bin/jh-hook' -c '$JH_HOME/hook.conf' -H cline"
	done
	# nothing else is bound: no Claude Code settings
	assert_file_not_exist "$HOME/.claude/settings.json"
	run -0 ls "$HOME/.cline/hooks"
	assert_output "$(printf 'PostToolUse\nPreToolUse\nSessionShutdown\nTaskComplete')"
	# idempotent: the files and their times stay
	local before
	before=$(stat -c '%n %Y %s' "$HOME"/.cline/hooks/*)
	sleep 1
	jh_install
	refute_output --partial "hook $HOME/.cline/hooks"
	assert_equal "$(stat -c '%n %Y %s' "$HOME"/.cline/hooks/*)" "$before"
	# the hook answers Cline natively: a granted touch is cancel:false
	run -0 sh -c "jq --arg p '$P' '.workspaceRoots = [\$p] | .workspaceInfo.rootPath = \$p
	    | .tool_call.input.commands = [\"touch x\"]' \
	    '$PROJECT_ROOT/tests/fixtures/cline/PreToolUse-run_commands.json' | '$HOME/.cline/hooks/PreToolUse'"
	assert_output '{"cancel":false}'
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H cline
	for ev in PreToolUse PostToolUse TaskComplete SessionShutdown; do
		assert_output --partial "removed Cline's $ev hook $HOME/.cline/hooks/$ev"
		assert_file_not_exist "$HOME/.cline/hooks/$ev"
	done
}

@test "jh-install -H cline keeps a user's own hook of the same event: joulehook's goes beside it, and -u removes only joulehook's" {
	grant '[{"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$HOME/.cline/hooks"
	printf '#!/bin/sh\necho "{}"\n' >"$HOME/.cline/hooks/PreToolUse"
	printf '#!/bin/sh\necho "{}"\n' >"$HOME/.cline/hooks/taskcomplete.py"
	chmod 755 "$HOME/.cline/hooks/PreToolUse" "$HOME/.cline/hooks/taskcomplete.py"
	local mine
	mine=$(sha256sum "$HOME/.cline/hooks/PreToolUse" "$HOME/.cline/hooks/taskcomplete.py")
	jh_install
	assert_output --partial "installed Cline's PreToolUse hook $HOME/.cline/hooks/PreToolUse.sh"
	assert_output --partial "kept your Cline PreToolUse hook $HOME/.cline/hooks/PreToolUse: Cline runs it and joulehook's one after the other, and a cancel from either blocks the call"
	assert_output --partial "installed Cline's TaskComplete hook $HOME/.cline/hooks/TaskComplete "
	assert_output --partial "kept your Cline TaskComplete hook $HOME/.cline/hooks/taskcomplete.py"
	assert_equal "$(sha256sum "$HOME/.cline/hooks/PreToolUse" "$HOME/.cline/hooks/taskcomplete.py")" "$mine"
	# a second run finds its own file again, and writes no third one
	jh_install
	refute_output --partial "installed Cline's"
	run -0 ls "$HOME/.cline/hooks"
	assert_output "$(printf 'PostToolUse\nPreToolUse\nPreToolUse.sh\nSessionShutdown\nTaskComplete\ntaskcomplete.py')"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H cline
	run -0 ls "$HOME/.cline/hooks"
	assert_output "$(printf 'PreToolUse\ntaskcomplete.py')"
	assert_equal "$(sha256sum "$HOME/.cline/hooks/PreToolUse" "$HOME/.cline/hooks/taskcomplete.py")" "$mine"
}

@test "jh-install -H cline refuses a deadline Cline's 120 s hook timeout would cut short" {
	grant '[{"class": "shell", "command": ["touch *"]}]'
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H cline -d 100000
	assert_output --partial "the gate's deadline (100000 ms) is too long for Cline, which kills a hook at 120 s and then runs the tool"
	assert_file_not_exist "$HOME/.cline/hooks/PreToolUse"
}

# ----------------------------------------------------------------------
# The real Cline.

# bats test_tags=host
@test "1. a granted command runs; its allow and its result are chained; TaskComplete checkpoints the log" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	mkdir -p "$T/sink"
	jh_install -C "$T/sink/checkpoints"
	turns "[{\"tool_calls\": [$(cmd call_ok "touch $P/granted")]}]"
	e2e
	assert_file_exist "$P/granted"
	assert_equal "$(cline_finish)" completed
	run -0 decided
	assert_output "call_ok allow ok"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"decision/1\")
	    | [.core.host, .core.tool, .core.event, .core.cwd, .core.session] | @tsv'"
	assert_output "$(printf 'cline\trun_commands\tPreToolUse\t%s\t%s' "$P" "$TASK")"
	# after the tool: a result/1 that found what ran was what was decided
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | [.core.tool_use_id, .core.event, .core.status, .core.check] | join(\" \")'"
	assert_output "call_ok PostToolUse ok match"
	log_verifies
	# TaskComplete (Cline's end of a task) appended a checkpoint that
	# vouches for the whole log, and not for a truncated copy
	[ -s "$T/sink/checkpoints" ] || fail "no checkpoint in the sink"
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
	/usr/bin/python3 "$PROJECT_ROOT/tests/helpers/cborseq.py" droplast "$LOG" "$T/short.jhl"
	run -1 jh-verify -c "$T/sink/checkpoints" "$T/short.jhl"
	assert_output --partial "truncated"
}

# bats test_tags=host
@test "2. a denied rm -rf does not run, Cline's run is aborted, and nothing after it runs" {
	cline_install
	grant '[{"class": "shell", "command": ["rm *", "touch *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	mkdir -p "$T/sink"
	jh_install -C "$T/sink/checkpoints"
	echo precious >"$P/victim"
	turns "[{\"tool_calls\": [$(cmd call_rm "rm -rf $P/victim")]},
	        {\"tool_calls\": [$(cmd call_after "touch $P/after")]}]"
	e2e
	run -0 cat "$P/victim"
	assert_output precious
	assert_file_not_exist "$P/after"
	assert_equal "$(cline_finish)" aborted
	assert_equal "$(model_calls)" 1
	run -0 decided
	assert_output "call_rm deny policy-deny"
	# the reason is in Cline's own log
	run -0 grep -c "joulehook: blocked by policy no-destruction: destructive commands are never granted" \
	    "$HOME/.cline/data/logs/cline.log"
	log_verifies
	# the aborted run still ends with SessionShutdown, which checkpoints
	[ -s "$T/sink/checkpoints" ] || fail "no checkpoint in the sink"
	run -0 jh-verify -c "$T/sink/checkpoints" "$LOG"
	assert_output --partial "matches the checkpoint"
}

# bats test_tags=host
@test "3. an editor write outside the project is denied; the file is not made" {
	cline_install
	grant '[{"class": ["read", "search"], "path": ["**"]},
	        {"class": ["write", "edit"], "path": ["**"]}]'
	jh_install
	turns "$(jq -nc --arg f "$T/outside.txt" '[{tool_calls: [{id: "call_out", name: "editor",
	    arguments: {path: $f, new_text: "escaped\n"}}]}]')"
	e2e
	assert_file_not_exist "$T/outside.txt"
	assert_equal "$(cline_finish)" aborted
	run -0 decided
	assert_output "call_out deny not-granted"
	log_verifies
}

# bats test_tags=host
@test "4. read_files of a file in the project and an editor write inside it are allowed" {
	cline_install
	grant '[{"class": ["read", "search"], "path": ["**"]},
	        {"class": ["write", "edit"], "path": ["src/**"]}]'
	jh_install
	mkdir -p "$P/src"
	echo "hello old world" >"$P/src/a.txt"
	turns "$(jq -nc --arg p "$P" '[
	    {tool_calls: [{id: "call_read", name: "read_files", arguments: {files: [{path: ($p + "/src/a.txt")}]}}]},
	    {tool_calls: [{id: "call_edit", name: "editor", arguments: {path: ($p + "/src/a.txt"), old_text: "old", new_text: "new"}}]},
	    {tool_calls: [{id: "call_new", name: "editor", arguments: {path: ($p + "/src/new.txt"), new_text: "inside\n"}}]}]')"
	e2e
	assert_equal "$(cline_finish)" completed
	run -0 cline_result call_read
	assert_output --partial "hello old world"
	run -0 cat "$P/src/a.txt"
	assert_output "hello new world"
	run -0 cat "$P/src/new.txt"
	assert_output inside
	run -0 decided
	assert_output "$(printf 'call_read allow ok\ncall_edit allow ok\ncall_new allow ok')"
	log_verifies
}

# bats test_tags=host
@test "5. a rewrite policy changes the command that runs (overrideInput)" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "rename", "when": {"class": "shell", "command": ["touch *"]},
	       "rewrite": {"field": "command", "regex": "ORIGINAL-([a-z]+)",
	                   "with": "REWRITTEN-\\1"}}]'
	jh_install
	turns "[{\"tool_calls\": [$(cmd call_rw "touch $P/ORIGINAL-one")]}]"
	e2e
	assert_file_not_exist "$P/ORIGINAL-one"
	assert_file_exist "$P/REWRITTEN-one"
	assert_equal "$(cline_finish)" completed
	run -0 decided
	assert_output "call_rw rewrite policy-rewrite"
	log_verifies
}

# bats test_tags=host
@test "6. a stage killed mid-pipeline blocks the call: jh-hook prints the cancel, Cline runs nothing more" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	cat >"$T/seal-killed.sh" <<-EOF
	#!/bin/sh
	in=\$(cat)
	case \$in in *call_kill*) kill -KILL \$\$ ;; esac
	printf '%s\n' "\$in" | exec "$JH_BIN/jh-seal" "\$@"
	EOF
	chmod 755 "$T/seal-killed.sh"
	echo "stage2=$T/seal-killed.sh" >>"$JH_HOME/hook.conf"
	turns "[{\"tool_calls\": [$(cmd call_before "touch $P/before")]},
	        {\"tool_calls\": [$(cmd call_kill "touch $P/killed")]},
	        {\"tool_calls\": [$(cmd call_after "touch $P/after")]}]"
	e2e
	assert_file_exist "$P/before"
	assert_file_not_exist "$P/killed"
	assert_file_not_exist "$P/after"
	assert_equal "$(cline_finish)" aborted
	run -0 grep -c "joulehook failed closed" "$HOME/.cline/data/logs/cline.log"
	run -0 decided
	assert_output "call_before allow ok"
	log_verifies
}

# bats test_tags=host
@test "7. two tool calls in one message are both decided, in call order, in one unforked chain" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	turns "[{\"tool_calls\": [$(cmd call_p1 "touch $P/one"), $(cmd call_p2 "touch $P/two")]}]"
	e2e
	assert_file_exist "$P/one"
	assert_file_exist "$P/two"
	assert_equal "$(cline_finish)" completed
	run -0 decided
	assert_output "$(printf 'call_p1 allow ok\ncall_p2 allow ok')"
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.chain) | .chain.seq' | tr '\n' ' '"
	assert_output --regexp "^0 1 2 3 "
	log_verifies
}

# bats test_tags=host
@test "8. one denied call of two in a message: neither runs, since the cancel aborts the run" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	turns "[{\"tool_calls\": [$(cmd call_d1 "curl -o $P/fetched http://127.0.0.1:9/x"), $(cmd call_d2 "touch $P/two")]}]"
	e2e
	assert_file_not_exist "$P/fetched"
	assert_file_not_exist "$P/two"
	assert_equal "$(cline_finish)" aborted
	run -0 decided
	assert_output "call_d1 deny not-granted"
	log_verifies
}

# bats test_tags=host
@test "9. the hub daemon: a second task in the same HOME runs inside it, and is gated the same" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]' \
	    '[{"id": "no-destruction", "when": {"class": "shell", "command": ["rm -rf*"]},
	       "verdict": "deny", "reason": "destructive commands are never granted"}]'
	jh_install
	# the user's own hook runs beside joulehook's: it notes its parent
	cat >"$HOME/.cline/hooks/PreToolUse.py" <<-EOF
	#!/usr/bin/python3
	import os, sys
	sys.stdin.read()
	with open("$T/parents", "a") as f:
	    f.write(open("/proc/%d/cmdline" % os.getppid()).read().replace("\0", " ") + "\n")
	print("{}")
	EOF
	chmod 755 "$HOME/.cline/hooks/PreToolUse.py"
	turns "[{\"tool_calls\": [$(cmd call_h1 "touch $P/first")]}]"
	e2e
	assert_file_exist "$P/first"
	[ -n "$(cline_hub_pids)" ] || fail "no hub daemon after the first run"
	echo precious >"$P/victim"
	cline_mock_stop
	turns "[{\"tool_calls\": [$(cmd call_h2 "rm -rf $P/victim")]},
	        {\"tool_calls\": [$(cmd call_h3 "touch $P/after")]}]"
	e2e
	run -0 cat "$P/victim"
	assert_output precious
	assert_file_not_exist "$P/after"
	assert_equal "$(cline_finish)" aborted
	run -0 cat "$T/parents"
	assert_line --index 0 --partial " --json do the task"
	assert_line --index 1 --partial " --cline-hub-daemon "
	# two tasks, two logs, both verify
	run -0 sh -c "ls '$JH_STATE'/logs/*.jhl | wc -l"
	assert_output 2
	local l
	for l in "$JH_STATE"/logs/*.jhl; do
		LOG=$l log_verifies
	done
	run -0 sh -c "for l in '$JH_STATE'/logs/*.jhl; do jh-verify \"\$l\"; done |
	    jq -r 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict] | join(\" \")' | sort"
	assert_output "$(printf 'call_h1 allow\ncall_h2 deny')"
}

# meter_e2e: jh-install -M in front of the mock, the proxy started as the
# installer says, one task whose two model calls carry the mock's token
# counts; the proxy's efficiency/1 receipts must carry exactly those.
meter_e2e() {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	turns "[{\"tool_calls\": [$(cmd call_m "touch $P/metered")], \"usage\": {\"prompt_tokens\": 1234, \"completion_tokens\": 56, \"total_tokens\": 1290}},
	        {\"text\": \"done\", \"usage\": {\"prompt_tokens\": 1300, \"completion_tokens\": 7, \"total_tokens\": 1307}}]"
	cline_mock_start "$T/script.json"
	# the provider first, as a user has it; -M then points it at the proxy
	cline_auth
	local port i pcmd
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	jh_install -M "$CMOCK_URL" -l "127.0.0.1:$port"
	assert_output --partial "pointed Cline's openai-compatible provider at the meter, http://127.0.0.1:$port/v1, with its X-Joulehook-Token header"
	run -0 jq -c --arg t "$(cat "$JH_HOME/proxy.token")" '.providers["openai-compatible"].settings
	    | [.baseUrl, .headers["X-Joulehook-Token"] == $t, .apiKey, .model]' "$HOME/.cline/data/settings/providers.json"
	assert_output "[\"http://127.0.0.1:$port/v1\",true,\"sk-test\",\"mock-model\"]"
	pcmd=$(printf '%s\n' "$INSTALL_OUT" | sed -n 's/^jh-install:   JH_HOME=[^ ]* JH_STATE=[^ ]* //p')
	[ -n "$pcmd" ] || fail "no proxy command in: $INSTALL_OUT"
	JH_HOME="$JH_HOME" JH_STATE="$JH_STATE" $pcmd </dev/null >"$T/proxy.out" 2>"$T/proxy.err" 3>&- &
	PROXY_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$T/proxy.err" && break
		sleep 0.05
	done
	grep -q 'listening on' "$T/proxy.err" || { cat "$T/proxy.err" >&2; false; }
	NOAUTH=1 e2e || true
	if [ "${METER_AUD_CHECK:-0}" = 1 ] && grep -q "the grant's audience does not include joulehook:claude-code" "$CLINE_OUT"; then
		skip "core: jh-install -M -H cline starts jh-proxy without -H cline, so the proxy decides model calls as claude-code and a grant for joulehook:cline refuses every one"
	fi
	[ "$CLINE_RC" -eq 0 ] || fail "cline exited $CLINE_RC"
	assert_file_exist "$P/metered"
	assert_equal "$(cline_finish)" completed
	# the proxy forwarded both calls; the mock saw no client token
	assert_equal "$(model_calls)" 2
	run -0 sh -c "jq -r '.headers | keys[] | ascii_downcase' '$CMOCK_LOG' | grep -c joulehook || true"
	assert_output 0
	_cline_kill "$PROXY_PID"
	PROXY_PID=
	run -0 sh -c "for l in '$JH_STATE'/logs/*.jhl; do jh-verify \"\$l\"; done |
	    jq -c 'select(.kind == \"efficiency/1\") | [.core.tokens_in, .core.tokens_out]'"
	assert_output "$(printf '[1234,56]\n[1300,7]')"
	# -u puts the provider back as it was
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H cline
	run -0 jq -c '.providers["openai-compatible"].settings | [.baseUrl, .headers]' "$HOME/.cline/data/settings/providers.json"
	assert_output "[\"$CMOCK_URL/v1\",null]"
}


@test "10. the meter (jh-install -M): Cline's calls go through jh-proxy with the token header; one efficiency/1 per call with the mock's token counts" {
	AUD='joulehook:*' meter_e2e
}

@test "10b. the meter with a grant for Cline alone (audience joulehook:cline)" {
	METER_AUD_CHECK=1 meter_e2e
}

# bats test_tags=host
@test "11. the agent cannot unhook the gate: even a grant of every command and path leaves ~/.cline to the user" {
	cline_install
	grant '[{"class": "shell", "command": ["*"]},
	        {"class": ["read", "search", "write", "edit"], "path": ["/**"]}]'
	jh_install
	turns "[{\"tool_calls\": [$(cmd call_unhook "rm -f $HOME/.cline/hooks/PreToolUse")]},
	        {\"tool_calls\": [$(cmd call_after "touch $P/after")]}]"
	e2e
	assert_file_exist "$HOME/.cline/hooks/PreToolUse"
	assert_file_not_exist "$P/after"
	assert_equal "$(cline_finish)" aborted
	run -0 decided
	assert_output "call_unhook deny protected-path"
	log_verifies
}

# bats test_tags=host
@test "12. a user's hook that rewrites the input after joulehook allowed it: jh-result sees the mismatch and stops the run" {
	cline_install
	grant '[{"class": "shell", "command": ["touch *"]}]'
	jh_install
	# sorts after joulehook's PreToolUse, so its overrideInput is the one
	# Cline applies
	cat >"$HOME/.cline/hooks/PreToolUse.sh" <<-EOF
	#!/bin/sh
	cat >/dev/null
	echo '{"cancel":false,"overrideInput":{"commands":["touch $P/swapped"]}}'
	EOF
	chmod 755 "$HOME/.cline/hooks/PreToolUse.sh"
	turns "[{\"tool_calls\": [$(cmd call_swap "touch $P/decided")]},
	        {\"tool_calls\": [$(cmd call_after "touch $P/after")]}]"
	e2e
	# the swapped command ran (the tool had run when PostToolUse came)
	assert_file_exist "$P/swapped"
	assert_file_not_exist "$P/decided"
	assert_file_not_exist "$P/after"
	assert_equal "$(cline_finish)" aborted
	run -0 sh -c "jh-verify '$LOG' | jq -r 'select(.kind == \"result/1\") | [.core.tool_use_id, .core.status, .core.check] | join(\" \")'"
	assert_output "call_swap ok input-mismatch"
	run -0 grep -c "joulehook: .*another hook or the host changed it after the decision" "$HOME/.cline/data/logs/cline.log"
	log_verifies
}

# Last in the file (bats runs a file in order): every HOME a test used.
@test "13. no hub daemon of this file's tests is left running" {
	local h pids=""
	while IFS= read -r h; do
		pids="$pids$(cline_hub_pids "$h")"
	done <"$BATS_FILE_TMPDIR/homes"
	assert_equal "$pids" ""
}
