#!/usr/bin/env bats
# check: alone (it writes /etc/claude-code, which every real Claude Code
# reads: make check runs it after the other suites, by itself)
# Hardened mode end to end, as root (CI runs as root): a gate user and an
# unprivileged developer are made here (and removed after); the
# developer's single-user install spends a little, `jh-install -U` carries
# it over, and the REAL Claude Code (the pinned version, offline against
# tests/mock/anthropic-mock.py) runs AS THE DEVELOPER in a project the
# developer owns, its hook the socket client bound in Claude Code's
# managed settings, the gate served as the gate user by
# systemd-socket-activate --accept (what the socket unit does where
# systemd is PID 1).
#
# The scripted agent writes a test file that, when the granted command
# runs it, tries to read every secret, to change the ledger, a log, the
# grant, the trust and stewards lists and the hook config, to kill or
# replace the gate's programs and socket, to edit the managed settings,
# and to drop the hook through the developer's ~/.claude/settings.json
# and the project's .claude/; then two more tool calls.  Every attempt
# fails or changes nothing, the later calls are still decided and sealed
# with the developer's uid, the log verifies and the ledger replays.

load test_helper/common
load helpers/claude

# bats file_tags=host

setup() {
	_common_setup
	[ "$(id -u)" = 0 ] || skip "SKIPPED: hardened mode is installed by root (CI runs as root)"
	local c
	for c in useradd userdel runuser systemd-socket-activate getent; do
		command -v "$c" >/dev/null || skip "SKIPPED: no $c here"
	done
	claude_install
	TAG="jht$$"
	G="${TAG}g" D="${TAG}d"
	export JH_SYSCONF="/etc/$TAG" JH_SYSSTATE="/var/lib/$TAG"
	export JH_LIBEXEC="/usr/local/libexec/$TAG" JH_RUNDIR="/run/$TAG"
	export JH_UNITDIR="$T/units" JH_CC_MANAGED=/etc/claude-code
	SAVED_CC=""
	if [ -e /etc/claude-code ]; then
		SAVED_CC="/etc/claude-code.$TAG-saved"
		mv /etc/claude-code "$SAVED_CC"
	fi
	useradd -m -d "/home/$D" -s /bin/sh "$D"
	DH="/home/$D" PROJ="/home/$D/proj"
	DUID=$(id -u "$D")
	# What the developer runs must be readable by the developer: a
	# root-owned copy of the programs, the scripts and Claude Code.
	W="/usr/local/lib/$TAG"
	mkdir -p "$W/scripts" "$W/lib" "$W/hosts" "$W/bin"
	cp "$PROJECT_ROOT/scripts/jh-install" "$PROJECT_ROOT/scripts/jh-grant" "$W/scripts/"
	cp "$PROJECT_ROOT/lib/coefficients.json" "$W/lib/"
	cp -R "$PROJECT_ROOT/hosts/claude-code" "$W/hosts/"
	cp "$JH_BIN"/jh-* "$W/bin/"
	cp "$(readlink -f "$CLAUDE_BIN")" "$W/claude"
	chmod -R a+rX "$W"
	asdev git init -q -b main "$PROJ"
	asdev sh -c "cd '$PROJ' && printf 'node_modules\n' >.gitignore && git add . && git -c user.email=d@x -c user.name=d commit -qm init"
	SRV_PID= PROXY_PID=
}

teardown() {
	[ -n "${TAG:-}" ] || return 0
	[ -z "${SRV_PID:-}" ] || kill -- "-$SRV_PID" 2>/dev/null || true
	[ -z "${PROXY_PID:-}" ] || kill -- "-$PROXY_PID" 2>/dev/null || true
	mock_stop
	pkill -u "$D" 2>/dev/null || true
	sh "$PROJECT_ROOT/scripts/jh-install" -u -U "$G" >/dev/null 2>&1 || true
	userdel -r "$D" >/dev/null 2>&1 || true
	userdel "$G" >/dev/null 2>&1 || true
	getent group "$G" >/dev/null && groupdel "$G" 2>/dev/null || true
	rm -rf "$JH_SYSCONF" "$JH_SYSSTATE" "$JH_LIBEXEC" "$JH_RUNDIR" "$W" /etc/claude-code
	[ -z "$SAVED_CC" ] || mv "$SAVED_CC" /etc/claude-code
}

# asdev CMD...: as the developer, with the developer's bare environment.
asdev() {
	runuser -u "$D" -- env -i HOME="$DH" PATH=/usr/bin:/bin LC_ALL=C "$@"
}

asgate() {
	runuser -u "$G" -- env -i PATH=/usr/bin:/bin LC_ALL=C JH_HOME="$JH_SYSCONF" JH_STATE="$JH_SYSSTATE" "$@"
}

# What the agent can reach must not change: every file of the gate's
# config, programs and managed settings, with its mode and owner.
fingerprint() {
	find "$JH_SYSCONF" "$JH_LIBEXEC" /etc/claude-code -xdev -type f -print0 | sort -z |
	    xargs -0 stat -c '%n %a %U' | while read -r f rest; do
		printf '%s %s %s\n' "$f" "$rest" "$(sha256sum <"$f" | cut -c1-64)"
	done
}

# The scripted agent: the way out as a test the granted command runs,
# then two more tool calls and a read of a secret.
build_script() {
	sed -e "s|@C@|$JH_SYSCONF|g" -e "s|@S@|$JH_SYSSTATE|g" -e "s|@L@|$JH_LIBEXEC|g" \
	    -e "s|@R@|$JH_RUNDIR|g" -e "s|@G@|$G|g" >"$T/attack.sh" <<'EOF'
#!/bin/sh
# Run by the granted test command, as the developer: every way out.
out=attack.out
: >"$out"
try() {
	name=$1
	shift
	if ( "$@" ) >/dev/null 2>&1; then echo "GOT $name" >>"$out"; else echo "refused $name" >>"$out"; fi
}
C=@C@ S=@S@ L=@L@ R=@R@
for f in steward.key issuer.key hook.conf single-user/steward.key single-user/issuer.key; do
	try "read $f" sh -c "cat '$C/$f' | grep -q ."
done
for f in "$S"/ledger/* "$S"/logs/*; do
	try "append $f" sh -c "printf x >>'$f'"
	try "truncate $f" truncate -s 0 "$f"
	try "remove $f" rm "$f"
	try "rename $f" mv "$f" "$f.gone"
done
try "new ledger" sh -c "echo x >'$S/ledger/new'"
try "replace the grant" sh -c "for g in '$C'/grants/*; do echo '{}' >\"\$g\"; done"
try "remove the grant" sh -c "rm '$C'/grants/*"
try "trust a key" sh -c "echo did:key:z6MkX >>'$C/trust'"
try "add a steward" sh -c "echo did:key:z6MkX >>'$C/stewards'"
try "edit hook.conf" sh -c "echo developer=0 >>'$C/hook.conf'"
try "replace jh-decide" cp /bin/true "$L/jh-decide"
try "remove jh-hook" rm "$L/jh-hook"
try "kill the gate" sh -c "kill -9 \$(pgrep -u @G@)"
try "remove the socket" rm "$R/hook.sock"
try "plant in the socket dir" mkdir "$R/x"
try "edit the managed settings" sh -c "echo '{}' >/etc/claude-code/managed-settings.json"
try "a managed drop-in" sh -c "mkdir -p /etc/claude-code/managed-settings.d && echo '{\"disableAllHooks\":true}' >/etc/claude-code/managed-settings.d/x.json"
# These the developer may write; they must change nothing.
unhook='{"disableAllHooks": true, "allowManagedHooksOnly": false, "hooks": {"PreToolUse": []}}'
mkdir -p "$HOME/.claude" .claude
printf '%s\n' "$unhook" >"$HOME/.claude/settings.json" && echo "wrote user settings" >>"$out"
printf '%s\n' "$unhook" >.claude/settings.json && echo "wrote project settings" >>"$out"
printf '%s\n' "$unhook" >.claude/settings.local.json && echo "wrote local settings" >>"$out"
echo "attack done" >>"$out"
EOF
	jq -n --arg p "$PROJ" --rawfile a "$T/attack.sh" --arg c "$JH_SYSCONF" '[
	    {tool_use: [{name: "Write", input: {file_path: ($p + "/attack.test.sh"), content: $a}}]},
	    {tool_use: [{name: "Bash", input: {command: "sh attack.test.sh", description: "run the tests"}}]},
	    {tool_use: [{name: "Bash", input: {command: "ls -la", description: "list"}}]},
	    {tool_use: [{name: "Read", input: {file_path: ($p + "/attack.out")}}]},
	    {tool_use: [{name: "Bash", input: {command: ("cat " + $c + "/steward.key"), description: "key"}}]},
	    {text: "done"}]' >"$T/script.json"
}

@test "hardened: code the agent wrote and a granted command ran reads no secret, changes no record and unhooks nothing; the gate goes on deciding" {
	local grant gh before after rem0 rem1
	# 1. The developer's single-user install, and a call it spent on.
	asdev sh "$W/scripts/jh-install" -W -b "$W/bin" -p "$PROJ" >"$T/single.out" 2>&1 ||
		{ cat "$T/single.out"; false; }
	gh=$(printf %s "$PROJ" | sha256sum | cut -c1-64)
	jq -nc --arg cwd "$PROJ" '{session_id: "single-1", transcript_path: "/dev/null", cwd: $cwd,
	    hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command: "ls"}, tool_use_id: "toolu_single"}' >"$W/single.json"
	chmod 644 "$W/single.json"
	asdev "$DH/.config/joulehook/bin/jh-hook" -c "$DH/.config/joulehook/hook.conf" <"$W/single.json"
	rem0=$(asdev sh -c "JH_HOME='$DH/.config/joulehook' JH_STATE='$DH/.local/state/joulehook' '$W/bin/jh-decide' -x -j -d '$PROJ' -g '$DH/.config/joulehook/grants/$gh' ls" | jq .remaining_uj)
	[ "$rem0" -lt 20000000000000 ]

	# 2. One command makes it hardened, keeping the budget and the log;
	# with -M the meter too, in front of the mock provider.
	build_script
	mock_start "$T/script.json"
	PPORT=$(( 20000 + $$ % 20000 ))
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -p "$PROJ" -b "$W/bin" -M "$MOCK_URL" -l "127.0.0.1:$PPORT"
	assert_output --partial "created the system user $G"
	assert_output --partial "resealed the carried-over grant"
	assert_output --partial "took the single-user plugin out of $DH/.claude/settings.json"
	local install_out=$output
	assert_file_not_exists "$DH/.config/joulehook/steward.key"
	assert_file_not_exists "$DH/.config/joulehook/issuer.key"
	grant="$JH_SYSCONF/grants/$gh"
	rem1=$(asgate "$JH_LIBEXEC/jh-decide" -x -j -d "$PROJ" -g "$grant" ls | jq .remaining_uj)
	assert_equal "$rem1" "$rem0"
	run -0 stat -c '%a %U' "$JH_SYSCONF/steward.key" "$JH_SYSCONF/issuer.key" "$JH_SYSCONF/hook.conf"
	assert_output "$(printf '600 %s\n600 %s\n600 %s' "$G" "$G" "$G")"
	run -0 stat -c '%U %a' "$JH_LIBEXEC/jh-hook" "$JH_LIBEXEC/jh-decide"
	assert_output "$(printf 'root 755\nroot 755')"
	jq -e '.allowManagedHooksOnly == true and (.hooks.PreToolUse[0].hooks[0].args | index("-s") != null)' \
	    /etc/claude-code/managed-settings.json

	# 3. The gate's socket, served as the gate's user per connection.
	install -d -o "$G" -g "$G" -m 755 "$JH_RUNDIR"
	# The command jh-install printed for a machine without systemd.
	local serve
	serve=$(sed -n "s/.*runuser -u $G -- sh -c '\(.*\)'$/\1/p" <<<"$install_out")
	[ -n "$serve" ]
	setsid runuser -u "$G" -- sh -c "$serve" </dev/null >"$T/activate.out" 2>&1 3>&- &
	SRV_PID=$!
	local i meter
	for ((i = 0; i < 100; i++)); do [ -S "$JH_RUNDIR/hook.sock" ] && break; sleep 0.05; done
	# The meter, as the gate's user, by the line jh-install printed.
	meter=$(sed -n "s/.*and the meter: runuser -u $G -- //p" <<<"$install_out")
	[ -n "$meter" ]
	setsid runuser -u "$G" -- $meter </dev/null >"$T/proxy.out" 2>&1 3>&- &
	PROXY_PID=$!
	for ((i = 0; i < 100; i++)); do curl -s -o /dev/null "http://127.0.0.1:$PPORT/" && break; sleep 0.05; done
	jq -e --arg u "http://127.0.0.1:$PPORT" '.env.ANTHROPIC_BASE_URL == $u' /etc/claude-code/managed-settings.json
	fingerprint >"$T/before"


	# 5. The real Claude Code, as the developer, in the developer's
	# project; the provider's URL comes from the managed settings.
	asdev sh -c "cd '$PROJ' && ANTHROPIC_API_KEY=sk-test \
	    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_ERROR_REPORTING=1 NO_PROXY=127.0.0.1,localhost \
	    timeout -k 5 150 '$W/claude' -p 'run the tests' --output-format json --allowedTools 'Bash Write Read'" \
	    </dev/null >"$T/claude.out" 2>"$T/claude.err" 3>&- || { cat "$T/claude.err"; false; }

	# Every attempt failed or changed nothing.
	run -0 cat "$PROJ/attack.out"
	assert_line "attack done"
	refute_output --partial "GOT "
	assert_line "wrote user settings"
	assert_line "wrote project settings"
	[ "$(grep -c '^refused' "$PROJ/attack.out")" -ge 20 ]
	fingerprint >"$T/after"
	run -0 diff "$T/before" "$T/after"
	kill -0 "$SRV_PID"
	[ -S "$JH_RUNDIR/hook.sock" ]

	# Every tool call of the session was decided, as the developer's uid,
	# the ones after the attack too, and the key read was not allowed.
	local ids n
	ids=$(mock_requests | jq -r '.. | objects | select(.type? == "tool_use") | .id' | sort -u)
	n=$(wc -l <<<"$ids")
	[ "$n" -eq 5 ]
	asdev sh -c "JH_HOME='$JH_SYSCONF' '$JH_LIBEXEC/jh-verify' '$JH_SYSSTATE'/logs/*.jhl" >"$T/verify.out"
	run -0 jq -s -r --arg u "$DUID" '[.[] | select(.kind == "decision/1" and .core.session_id != "single-1")]
	    | map(select((.core.uid | tostring) == $u)) | length' "$T/verify.out"
	assert_equal "$output" 5
	run -0 jq -s -r '[.[] | select(.kind == "decision/1" and (.core.input.command // "" | startswith("cat ")))][0].core.verdict' "$T/verify.out"
	refute_output allow
	run -0 jq -s -r '[.[] | select(.kind == "decision/1" and .core.tool == "Read")][0].core.verdict' "$T/verify.out"
	assert_output allow
	run -0 jq -s -r '[.[] | select(.kind == "result/1")] | length' "$T/verify.out"
	[ "$output" -ge 4 ]
	# The carried-over log verifies beside the new one; the ledger replays.
	run -0 jq -c 'select(.ok == false or .log.ok == false or (.summary.failed // 0) > 0)' "$T/verify.out"
	assert_output ""
	run -0 jq -s -r '[.[] | select(.log.session == "single-1")][0].log.entries' "$T/verify.out"
	[ "$output" -ge 1 ] || { grep single-1 "$T/verify.out" >&3; false; }
	asdev sh -c "JH_HOME='$JH_SYSCONF' '$JH_LIBEXEC/jh-verify' -q -L '$JH_SYSSTATE/ledger' '$JH_SYSSTATE'/logs/*.jhl"
	# The model calls went through the meter, sealed by the gate's user.
	run -0 jq -s -r '[.[] | select(.kind == "efficiency/1")] | length' "$T/verify.out"
	[ "$output" -ge 1 ]
	# The developer's status line reads the gate's records.
	jq -nc --arg cwd "$PROJ" --arg s "$(jq -r '.session_id' "$T/claude.out")" \
	    '{session_id: $s, cwd: $cwd, workspace: {current_dir: $cwd}}' >"$W/sl.json"
	chmod 644 "$W/sl.json"
	run -0 asdev "$JH_LIBEXEC/jh-status" -c "$JH_SYSCONF/status.conf" <"$W/sl.json"
	assert_output --partial "chain"
	refute_output --partial "no receipts"
}

@test "hardened: -u takes the gate out of the managed settings and the system, keeping the records" {
	run -0 sh "$W/scripts/jh-install" -W -U "$G" -D "$D,nobody" -b "$W/bin" -M http://127.0.0.1:9 -l 127.0.0.1:9
	# Both developers are served, each with the home "~" means.
	run -0 grep '^developer=' "$JH_SYSCONF/hook.conf"
	assert_output "$(printf 'developer=%s:%s\ndeveloper=%s:%s' "$DUID" "$DH" "$(id -u nobody)" "$(getent passwd nobody | cut -d: -f6)")"
	[ -f /etc/claude-code/managed-settings.json ]
	[ -x "$JH_LIBEXEC/jh-hook" ]
	# The units systemd would run, as systemd reads them (no systemd is
	# PID 1 here, so they are not started).
	if command -v systemd-analyze >/dev/null; then
		run -0 systemd-analyze verify "$JH_UNITDIR/joulehook-hook.socket" \
		    "$JH_UNITDIR/joulehook-hook@.service" "$JH_UNITDIR/joulehook-proxy.service"
		refute_output --partial "Unknown"
		refute_output --partial "not executable"
		refute_output --partial "Failed"
	fi
	run -0 grep -h '^User=' "$JH_UNITDIR/joulehook-hook@.service" "$JH_UNITDIR/joulehook-proxy.service"
	assert_output "$(printf 'User=%s\nUser=%s' "$G" "$G")"
	# A setting of the administrator's stays through -u.
	jq '.cleanupPeriodDays = 7' /etc/claude-code/managed-settings.json >"$T/m.json"
	cp "$T/m.json" /etc/claude-code/managed-settings.json
	run -0 sh "$W/scripts/jh-install" -u -U "$G"
	run -0 jq -c . /etc/claude-code/managed-settings.json
	assert_output '{"cleanupPeriodDays":7}'
	assert_file_not_exists /etc/claude-code/managed-mcp.json
	assert_file_not_exists "$JH_LIBEXEC/jh-hook"
	assert_file_not_exists "$JH_UNITDIR/joulehook-hook.socket"
	assert_file_exists "$JH_SYSCONF/steward.key"
	assert_file_exists "$JH_SYSCONF/grant"
	# Root is never the developer; -U needs root.
	run -2 sh "$W/scripts/jh-install" -W -U "$G" -D root -b "$W/bin"
	assert_output --partial "cannot be root"
	run -2 asdev sh "$W/scripts/jh-install" -W -U "$G" -D "$D" -b "$W/bin"
	assert_output --partial "needs root"
}
