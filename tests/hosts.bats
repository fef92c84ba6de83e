#!/usr/bin/env bats
# The golden tables of the host adapters (jh-normalize(1) "HOSTS"), data
# not code: for every host, each native payload tests/hosts/HOST/*.json
# becomes exactly the ActionEvent in its .event file, each verdict of
# HOST/answers.tsv exactly that native stdout and exit status, and a
# pipeline that fails exactly the host's deny.  The payloads of
# claude-code, gemini-cli, codex and cline are what those hosts sent
# (tests/hosts/README.md); cursor's, windsurf's and antigravity's are
# built from documentation.  tests/hosts/regen rewrites the tables after
# a deliberate change; read its diff.

load test_helper/common

setup() {
	_common_setup
	G="$PROJECT_ROOT/tests/hosts"
}

@test "golden: every native payload becomes exactly its ActionEvent" {
	local f h n=0 bad=0
	for f in "$G"/*/*.json; do
		h=$(basename "$(dirname "$f")")
		[ -f "${f%.json}.event" ] || { echo "no ${f%.json}.event"; bad=1; continue; }
		run -0 sh -c 'jq -c . "$1" | "$2"/jh-normalize -H "$3"' _ "$f" "$JH_BIN" "$h"
		if [ "$output" != "$(cat "${f%.json}.event")" ]; then
			echo "$h $(basename "$f"):"
			echo "  got:  $output"
			echo "  want: $(cat "${f%.json}.event")"
			bad=1
		fi
		n=$((n + 1))
	done
	[ "$n" -ge 60 ] || { echo "only $n payloads"; bad=1; }
	[ "$bad" = 0 ]
}

@test "golden: every verdict becomes exactly the host's stdout and exit status" {
	local h line verdict tool upd st want out rc bad=0 n=0
	for h in claude-code gemini-cli codex cline cursor windsurf antigravity opencode acp; do
		[ -f "$G/$h/answers.tsv" ] || { echo "no $h/answers.tsv"; bad=1; continue; }
		while IFS= read -r line; do
			case $line in '#'* | '') continue ;; esac
			IFS='	' read -r verdict tool upd st want <<<"$line"
			rc=0
			if [ "$upd" = - ]; then
				out=$("$JH_TESTBIN/host-answer" "$h" "$verdict" "$tool" REASON) || rc=$?
			else
				out=$("$JH_TESTBIN/host-answer" "$h" "$verdict" "$tool" REASON "$upd") || rc=$?
			fi
			if [ "$rc" != "$st" ] || [ "${out:--}" != "$want" ]; then
				echo "$h $verdict $tool: got $rc ${out:--}, want $st $want"
				bad=1
			fi
			n=$((n + 1))
		done <"$G/$h/answers.tsv"
	done
	[ "$n" -ge 30 ]
	[ "$bad" = 0 ]
}

@test "golden: a pipeline that fails is the host's deny, in its own words" {
	local h rc out
	jh_keys
	mkdir -p "$T/home" "$T/state" "$T/p"
	for h in claude-code gemini-cli codex cline cursor windsurf antigravity opencode acp; do
		# a stage that is not there: every host gets its own deny
		cat >"$T/hook.conf" <<-EOF
		bindir=$JH_BIN
		home=$T/home
		state=$T/state
		deadline_ms=2000
		lock_ms=500
		stage1=$T/nonexistent
		EOF
		f=$(ls "$G/$h"/*.json | while read -r x; do
			[ "$(jq -r .event "${x%.json}.event")" = PreToolUse ] && { echo "$x"; break; }
		done)
		[ -n "$f" ] || { echo "$h: no pre-tool payload"; return 1; }
		rc=0
		out=$(jq -c . "$f" | "$JH_BIN/jh-hook" -c "$T/hook.conf" -H "$h" 2>/dev/null) || rc=$?
		case $h in
		cline) [ "$(jq -r .cancel <<<"$out")" = true ] ;;
		gemini-cli | antigravity | opencode)
			[ "$rc" = 2 ] && [ "$(jq -r .decision <<<"$out")" = deny ] ;;
		cursor) [ "$rc" = 2 ] && [ "$(jq -r .permission <<<"$out")" = deny ] ;;
		windsurf) [ "$rc" = 2 ] ;;
		*) [ "$rc" = 2 ] && [ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$out")" = deny ] ;;
		esac || { echo "$h: $rc $out"; return 1; }
	done
}

@test "jh-install: -H binds several hosts from one install, -u -H unbinds one, -u alone the rest" {
	export HOME="$T/home"
	mkdir -p "$HOME"
	unset XDG_CONFIG_HOME XDG_STATE_HOME JH_HOME JH_STATE
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H cursor -H windsurf
	assert_output --partial "the gate is bound for cursor windsurf"
	jq -e '.hooks.preToolUse[0].failClosed == true' "$HOME/.cursor/hooks.json"
	jq -e '.hooks.pre_run_command | length == 1' "$HOME/.codeium/windsurf/hooks.json"
	[ ! -e "$HOME/.claude/settings.json" ]	# Claude Code only when named
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u -H cursor
	[ ! -e "$HOME/.cursor/hooks.json" ]
	jq -e '.hooks.pre_run_command | length == 1' "$HOME/.codeium/windsurf/hooks.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	assert_output --partial "unbound Windsurf"
	[ ! -e "$HOME/.codeium/windsurf/hooks.json" ]
	[ ! -e "$HOME/.config/joulehook/hosts" ]
	# an unknown host changes nothing
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -H vscode
	assert_output --partial "unknown host vscode"
}
