#!/usr/bin/env bats
# check: alone (it writes /etc/codex, which every real Codex reads: make
# check runs it after the other suites, by itself)
# Hardened mode (-U) for hosts other than Claude Code, as root (CI runs as
# root): a gate user and an unprivileged developer are made here (and
# removed after), and the REAL host runs AS THE DEVELOPER (runuser -u),
# offline against its mock.
#
# Codex CLI 0.171.0: `jh-install -U -H codex` binds the gate in Codex's
# managed requirements (/etc/codex/requirements.toml; Codex reads no other
# path, so this suite writes the real one, saving and restoring one that
# was there).  The developer's own config.toml switches hooks off, their
# hooks.json adds a hook and their [hooks.state] tries to disable the
# managed one: the gate's hook still runs, with no trust record, a denied
# command does not run, a granted one does, the developer's hook does not
# run, and the receipts land in the gate user's state and verify.
#
# Gemini CLI 0.61.0: its system settings (here at a root-owned path
# GEMINI_CLI_SYSTEM_SETTINGS_PATH names, the variable Gemini CLI documents
# for it) do run their hooks over the developer's settings, but the
# developer's hooksConfig.disabled and GEMINI_CLI_TRUST_WORKSPACE=false in
# ~/.gemini/.env switch them off (a GEMINI_CLI_SYSTEM_SETTINGS_PATH in .env
# does not: the system file is read first); so `jh-install -U -H gemini-cli` is
# refused, and this suite shows why with a probe hook in that layer.
#
# It never writes /etc/claude-code (JH_CC_MANAGED is moved to a path of
# its own, and the one test binding claude-code runs no Claude Code), so
# it may run beside tests/hardened.bats, but not beside another run of
# itself or anything else that writes /etc/codex.

load test_helper/common
load helpers/gemini
load helpers/codex

setup() {
	_common_setup
	[ "$(id -u)" = 0 ] || skip "SKIPPED: hardened mode is installed by root (CI runs as root)"
	local c
	for c in useradd userdel runuser systemd-socket-activate getent; do
		command -v "$c" >/dev/null || skip "SKIPPED: no $c here"
	done
	TAG="jhh$$"
	G="${TAG}g" D="${TAG}d"
	export JH_SYSCONF="/etc/$TAG" JH_SYSSTATE="/var/lib/$TAG"
	export JH_LIBEXEC="/usr/local/libexec/$TAG" JH_RUNDIR="/run/$TAG"
	export JH_UNITDIR="$T/units" JH_CC_MANAGED="/etc/$TAG-claude-code"
	export JH_CODEX_MANAGED=/etc/codex
	SAVED_CX=""
	if [ -e /etc/codex ] || [ -L /etc/codex ]; then
		SAVED_CX="/etc/codex.$TAG-saved"
		mv /etc/codex "$SAVED_CX"
	fi
	useradd -m -d "/home/$D" -s /bin/sh "$D"
	DH="/home/$D" PROJ="/home/$D/proj"
	chmod 755 "$DH"
	DUID=$(id -u "$D")
	# What the developer runs: root-owned copies, readable by all.
	W="/usr/local/lib/$TAG"
	mkdir -p "$W/scripts" "$W/lib" "$W/bin" "$W/probe"
	cp "$PROJECT_ROOT/scripts/jh-install" "$PROJECT_ROOT/scripts/jh-grant" "$W/scripts/"
	cp "$PROJECT_ROOT/lib/coefficients.json" "$W/lib/"
	cp -R "$PROJECT_ROOT/hosts" "$W/"
	cp "$JH_BIN"/jh-* "$W/bin/"
	chmod -R a+rX "$W"
	asdev git init -q -b main "$PROJ"
	PROJ=$(cd "$PROJ" && pwd -P)
	SRV_PID=
	# where the developer's own hooks and the probe leave a mark
	UMARK="$W/marks/userhook-ran"
	mkdir -p "$W/marks" "$W/cap"
	chmod 1777 "$W/marks" "$W/cap"
}

teardown() {
	[ -n "${TAG:-}" ] || return 0
	[ -z "${SRV_PID:-}" ] || kill -- "-$SRV_PID" 2>/dev/null || true
	codex_mock_stop
	gemini_mock_stop
	pkill -u "$D" 2>/dev/null || true
	sh "$PROJECT_ROOT/scripts/jh-install" -u -U "$G" >/dev/null 2>&1 || true
	userdel -r "$D" >/dev/null 2>&1 || true
	userdel "$G" >/dev/null 2>&1 || true
	getent group "$G" >/dev/null && groupdel "$G" 2>/dev/null || true
	rm -rf "$JH_SYSCONF" "$JH_SYSSTATE" "$JH_LIBEXEC" "$JH_RUNDIR" "$W" "$JH_CC_MANAGED" \
	    "/etc/$TAG-gemini" /etc/codex
	[ -z "$SAVED_CX" ] || mv "$SAVED_CX" /etc/codex
}

# asdev CMD...: as the developer, with the developer's bare environment.
asdev() {
	runuser -u "$D" -- env -i HOME="$DH" PATH=/usr/bin:/bin LC_ALL=C "$@"
}

# grant CAPS: the grant document for the project, in $W (the gate reads it).
grant() {
	jq -n --arg root "$PROJ" --argjson caps "$1" '{
	    audience: "joulehook:*", nbf: 0, exp: 4102444800,
	    budget_uj: 20000000000000,
	    costs: {shell: 2000000, write: 200000, edit: 200000, read: 50000,
	            search: 50000, default: 100000},
	    root: $root, caps: $caps, policies: []}' >"$W/grant.json"
	chmod 644 "$W/grant.json"
}

# serve: the gate's socket as the gate's user, by the line jh-install
# printed for a machine without systemd.
serve() {
	local line i
	install -d -o "$G" -g "$G" -m 755 "$JH_RUNDIR"
	line=$(sed -n "s/.*runuser -u $G -- sh -c '\(.*\)'$/\1/p" <<<"$1")
	[ -n "$line" ]
	setsid runuser -u "$G" -- sh -c "$line" </dev/null >"$T/activate.out" 2>&1 3>&- &
	SRV_PID=$!
	for ((i = 0; i < 100; i++)); do [ -S "$JH_RUNDIR/hook.sock" ] && break; sleep 0.05; done
	[ -S "$JH_RUNDIR/hook.sock" ]
}

# ----------------------------------------------------------------------
# Codex

# cx_dev PROMPT [ARGS]: the real Codex as the developer in the project.
cx_dev() {
	CODEX_N=$((${CODEX_N:-0} + 1))
	CODEX_OUT="$T/codex.$CODEX_N.out" CODEX_ERR="$T/codex.$CODEX_N.err"
	CODEX_RC=0
	asdev sh -c 'cd "$1" && shift && exec "$@"' sh "$PROJ" env CODEX_HOME="$DH/.codex" \
	    MOCK_API_KEY=sk-test NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 120 "$CODEX_BIN" exec --skip-git-repo-check --json "$@" "do the task" \
	    </dev/null >"$CODEX_OUT" 2>"$CODEX_ERR" 3>&- || CODEX_RC=$?
	[ "$CODEX_RC" -eq 0 ] || { codex_dump; return 1; }
}

cx_call() {
	jq -nc --arg c "$1" --arg id "$2" --arg w "$PROJ" \
	    '{name: "exec_command", arguments: {cmd: $c, workdir: $w}, call_id: $id}'
}

# The developer's own Codex config, pointed at the mock, with every way
# out of the gate a user's files have: hooks switched off, a hook of
# their own, and the managed hook "disabled" under the keys it could have.
cx_dev_config() {
	CODEX_HOME="$DH/.codex" codex_config
	sed -i 's/^\[features\]$/[features]\nhooks = false/' "$DH/.codex/config.toml"
	cat >>"$DH/.codex/config.toml" <<-EOF

	[hooks.state."/etc/codex/requirements.toml:pre_tool_use:0:0"]
	enabled = false
	[hooks.state."<managed-requirements>/requirements.toml:pre_tool_use:0:0"]
	enabled = false
	EOF
	jq -n --arg m "$UMARK" '{hooks: {PreToolUse: [{matcher: "*",
	    hooks: [{type: "command", command: ("touch " + $m)}]}]}}' >"$DH/.codex/hooks.json"
	chown -R "$D:$D" "$DH/.codex"
}

# bats test_tags=host
@test "codex: -U -H codex binds the managed requirements; the real Codex as the developer is gated there, whatever the developer's own config says" {
	codex_install
	local req=/etc/codex/requirements.toml out sid log
	# The administrator's own requirements, kept around the block.
	mkdir -p /etc/codex
	printf '# the administrator'"'"'s requirements\nallowed_sandbox_modes = ["read-only", "workspace-write", "danger-full-access"]\n' >"$req"
	chmod 600 "$req"
	cp "$req" "$T/admin.toml"
	grant '[{"class": "shell", "command": ["touch *"]}]'
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -p "$PROJ" -b "$W/bin" -g "$W/grant.json" -H codex
	out=$output
	assert_output --partial "bound the gate in Codex's managed requirements $req"
	refute_output --partial "managed settings"
	assert_file_not_exists "$JH_CC_MANAGED"
	run -0 stat -c '%U %a' /etc/codex "$req"
	assert_output "$(printf 'root 755\nroot 644')"
	run -0 cat "$req"
	assert_line --index 0 --partial "# >>> joulehook"
	assert_line "allow_managed_hooks_only = true"
	assert_line "features.hooks = true"
	assert_line --regexp "^hooks\.PreToolUse = \[\{ matcher = \"\*\", hooks = \[\{ type = \"command\", command = \"'$JH_LIBEXEC/jh-hook' -s '$JH_RUNDIR/hook.sock' -H codex -t 10000\", timeout = 15 \}\] \}\]$"
	assert_line --regexp '^hooks\.SessionEnd = .*-t 2500", timeout = 3 '
	run -0 sh -c "sed '1,/^# <<< joulehook/d' '$req'"
	assert_output "$(cat "$T/admin.toml")"
	# idempotent: a second install changes nothing
	cp "$req" "$T/bound.toml"
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -p "$PROJ" -b "$W/bin" -g "$W/grant.json" -H codex
	cmp "$req" "$T/bound.toml"
	serve "$out"

	# The real Codex, as the developer, whose own files try to unhook it.
	echo precious >"$PROJ/victim"
	chown "$D:$D" "$PROJ/victim"
	jq -c '{turns: .}' >"$T/script.json" <<-EOF
	[{"calls": [$(cx_call 'touch granted' call_ok), $(cx_call 'rm victim' call_rm)]}, {"text": "finished"}]
	EOF
	chmod 644 "$T/script.json"
	codex_mock_start "$T/script.json"
	cx_dev_config
	cx_dev
	assert_file_exists "$PROJ/granted"
	run -0 cat "$PROJ/victim"
	assert_output precious
	run -0 codex_output call_rm
	assert_output --partial "Command blocked by PreToolUse hook: joulehook"
	assert_file_not_exists "$UMARK"
	# no trust record anywhere, no bypass flag: managed hooks need none
	run grep -c 'trusted_hash' "$DH/.codex/config.toml"
	assert_output 0

	# The receipts: in the gate user's state, its own, and they verify,
	# every decision sealed with the developer's uid.
	sid=$(jq -r 'select(.type == "thread.started") | .thread_id' "$CODEX_OUT" | head -n1)
	log="$JH_SYSSTATE/logs/$(printf %s "$sid" | sha256sum | cut -c1-64).jhl"
	run -0 stat -c '%U' "$log"
	assert_output "$G"
	asdev env JH_HOME="$JH_SYSCONF" "$JH_LIBEXEC/jh-verify" "$log" >"$T/verify.out"
	run -0 jq -c 'select(.ok == false or .log.ok == false or (.summary.failed // 0) > 0)' "$T/verify.out"
	assert_output ""
	run -0 jq -s -r --arg u "$DUID" '[.[] | select(.kind == "decision/1")]
	    | map([.core.verdict, (.core.uid | tostring == $u)] | @tsv) | sort | join(",")' "$T/verify.out"
	assert_output "$(printf 'allow\ttrue,deny\ttrue')"

	# The developer's -c on the command line cannot switch hooks off either.
	codex_mock_stop
	rm -f "$PROJ/granted"
	jq -c '{turns: .}' >"$T/script.json" <<-EOF
	[{"calls": [$(cx_call 'rm victim' call_rm2)]}, {"text": "finished"}]
	EOF
	codex_mock_start "$T/script.json"
	cx_dev_config
	cx_dev -c features.hooks=false
	run -0 cat "$PROJ/victim"
	assert_output precious
	run -0 codex_output call_rm2
	assert_output --partial "Command blocked by PreToolUse hook: joulehook"

	# -u -U -H codex takes only the block out: the administrator's file
	# is back as it was, the gate stays.
	run -0 sh "$W/scripts/jh-install" -u -U "$G" -H codex
	assert_output --partial "took the gate out of $req"
	cmp "$req" "$T/admin.toml"
	assert_file_exists "$JH_LIBEXEC/jh-hook"
	run -0 sh "$W/scripts/jh-install" -u -U "$G"
	assert_file_not_exists "$JH_LIBEXEC/jh-hook"
	cmp "$req" "$T/admin.toml"
}

@test "codex: a link or a conflicting file at the managed requirements is refused before anything changes; a block alone is removed whole" {
	local req=/etc/codex/requirements.toml
	mkdir -p /etc/codex
	echo 'x = 1' >"$T/elsewhere.toml"
	ln -s "$T/elsewhere.toml" "$req"
	run -1 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H codex
	assert_output --partial "$req is a symbolic link; not touching it"
	run id "$G"
	assert_failure
	assert_file_not_exists "$JH_SYSCONF"
	run -0 cat "$T/elsewhere.toml"
	assert_output 'x = 1'
	rm "$req"
	printf '[features]\nmemories = false\n' >"$req"
	run -1 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H codex
	assert_output --partial "already sets allow_managed_hooks_only, [features] or [hooks]"
	assert_file_not_exists "$JH_SYSCONF"
	rm -rf /etc/codex
	ln -s "$T" /etc/codex
	run -1 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H codex
	assert_output --partial "/etc/codex is a symbolic link; not touching it"
	rm /etc/codex
	# No file before: the one -U writes goes whole with -u -U, and the
	# directory with it.
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H codex
	assert_file_exists "$req"
	run -0 sh "$W/scripts/jh-install" -u -U "$G"
	assert_output --partial "removed $req (it held joulehook's block only)"
	assert_file_not_exists /etc/codex
}

@test "claude-code and codex together: one gate, both layers; -u -U -H takes out one host, -u -U the rest" {
	# JH_CC_MANAGED is this suite's own directory (no Claude Code runs here)
	local req=/etc/codex/requirements.toml ms="$JH_CC_MANAGED/managed-settings.json"
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H claude-code -H codex
	assert_output --partial "bound the gate in Claude Code's managed settings $ms"
	assert_output --partial "bound the gate in Codex's managed requirements $req"
	jq -e --arg s "$JH_RUNDIR/hook.sock" '.allowManagedHooksOnly == true
	    and (.hooks.PreToolUse[0].hooks[0].args == ["-s", $s, "-H", "claude-code", "-t", "10000"])' "$ms"
	grep -q -- "-H codex -t 10000" "$req"
	# the developer's jh-status -P declares both, from root's records
	profiles() {
		asdev "$W/bin/jh-status" -P -j -c "$JH_SYSCONF/status.conf" |
		    jq -r '.[] | select(.gate.bound) | .host' | tr '\n' ' '
	}
	run -0 profiles
	assert_output 'claude-code codex '
	run -0 sh "$W/scripts/jh-install" -u -U "$G" -H claude-code
	assert_output --partial "took the gate out of $ms"
	assert_file_not_exists "$ms"
	grep -q -- "-H codex -t 10000" "$req"
	assert_file_exists "$JH_LIBEXEC/jh-hook"
	run -0 profiles
	assert_output 'codex '
	run -0 sh "$W/scripts/jh-install" -u -U "$G"
	assert_file_not_exists "$req"
	assert_file_not_exists "$JH_LIBEXEC"
	run -0 profiles
	assert_output ''
}

# ----------------------------------------------------------------------
# Gemini CLI

# A probe standing in for the gate's hook in the system settings: records
# each call, blocks a command naming the victim.
probe_hook() {
	cat >"$W/probe/hook" <<-EOF
	#!/bin/sh
	in=\$(cat)
	printf '%s\n' "\$in" >"$W/cap/\$\$.json"
	case "\$(printf '%s' "\$in" | jq -r '.tool_input.command // ""')" in
	*victim*) echo '{"decision": "deny", "reason": "probe: no victims"}'; exit 2 ;;
	esac
	echo '{}'
	EOF
	chmod 755 "$W/probe/hook"
}

# gm_dev: the real Gemini CLI as the developer in the project, its system
# settings at GSYS (GEMINI_CLI_SYSTEM_SETTINGS_PATH).
gm_dev() {
	GEMINI_N=$((${GEMINI_N:-0} + 1))
	GEMINI_OUT="$T/gemini.$GEMINI_N.out" GEMINI_ERR="$T/gemini.$GEMINI_N.err"
	GEMINI_RC=0
	asdev sh -c 'cd "$1" && shift && exec "$@"' sh "$PROJ" env \
	    GEMINI_CLI_SYSTEM_SETTINGS_PATH="$GSYS" GEMINI_API_KEY=test-key \
	    GOOGLE_GEMINI_BASE_URL="$GEMINI_MOCK_URL" NO_COLOR=1 \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 90 "$GEMINI_BIN" -p "do the task" -m "$GEMINI_MODEL" -o json --approval-mode yolo \
	    </dev/null >"$GEMINI_OUT" 2>"$GEMINI_ERR" 3>&- || GEMINI_RC=$?
}

# bats test_tags=host
@test "gemini-cli: -U -H gemini-cli is refused, and the real Gemini CLI shows why: the developer's own files switch a system hook off" {
	gemini_install
	probe_hook
	# The refusal comes first and changes nothing.
	run -2 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H gemini-cli
	assert_output --partial "hardened mode (-U) cannot bind Gemini CLI"
	assert_output --partial "hooksConfig.disabled"
	assert_output --partial "GEMINI_CLI_TRUST_WORKSPACE=false"
	run -2 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin" -H codex -H gemini-cli
	run id "$G"
	assert_failure
	assert_file_not_exists "$JH_SYSCONF"
	assert_file_not_exists /etc/codex

	# A root-owned system settings file, its hook named as bind.sh names
	# the gate's (folder trust off there: every folder is trusted).
	GSYS="/etc/$TAG-gemini/settings.json"
	mkdir -p "/etc/$TAG-gemini"
	jq -n --arg c "$W/probe/hook" '{security: {folderTrust: {enabled: false}},
	    hooksConfig: {enabled: true},
	    hooks: {BeforeTool: [{matcher: "*", hooks: [{type: "command", command: $c,
		name: "joulehook", timeout: 10000}]}]}}' >"$GSYS"
	chmod 644 "$GSYS"
	jq -nc '[{function_calls: [{name: "run_shell_command", args: {command: "rm victim", description: "e2e"}}]},
	    {text: "finished"}]' >"$T/script.json"
	chmod 644 "$T/script.json"
	local v
	for v in none empty-hooks hooks-off env-path disabled trust-off; do
		rm -f "$W/cap"/* "$DH/.gemini/.env" "$DH/.gemini/settings.json"
		echo precious >"$PROJ/victim"
		chown "$D:$D" "$PROJ/victim"
		GEMINI_HOME="$DH" gemini_home
		case $v in
		empty-hooks) GEMINI_HOME="$DH" gemini_home '.hooks = {}' ;;
		hooks-off) GEMINI_HOME="$DH" gemini_home '.hooks = {} | .hooksConfig.enabled = false' ;;
		disabled) GEMINI_HOME="$DH" gemini_home '.hooksConfig.disabled = ["joulehook"]' ;;
		env-path) echo GEMINI_CLI_SYSTEM_SETTINGS_PATH=/dev/null >"$DH/.gemini/.env" ;;
		trust-off) echo GEMINI_CLI_TRUST_WORKSPACE=false >"$DH/.gemini/.env" ;;
		esac
		chown -R "$D:$D" "$DH/.gemini"
		gemini_mock_stop
		gemini_mock_start "$T/script.json"
		gm_dev
		[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; false; }
		case $v in
		none | empty-hooks | hooks-off | env-path)
			# the system's hook runs over the user's settings (the
			# system file is read before .env moves it)
			run -0 cat "$PROJ/victim"
			assert_output precious
			[ -n "$(ls "$W/cap")" ] ;;
		disabled)
			# a user's hooksConfig.disabled names it: it never runs,
			# and the command it would have blocked does
			assert_file_not_exists "$PROJ/victim"
			[ -z "$(ls "$W/cap")" ] ;;
		trust-off)
			# an untrusted folder: no hook at all, the system's included
			[ -z "$(ls "$W/cap")" ]
			run -0 grep -c "Project hooks disabled because the folder is not trusted" "$GEMINI_ERR" ;;
		esac
	done
}
