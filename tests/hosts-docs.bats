#!/usr/bin/env bats
# The hosts bound from documentation only (Cursor, Windsurf,
# Antigravity): their golden payloads (tests/hosts/<host>/) are
# well-formed and say what their names say, and each hosts/<host>/bind.sh,
# sourced by POSIX sh as jh-install sources it (stub say, die, q and
# json_edit, a scratch HOME), writes the host's config as valid JSON,
# runs the hook command it names, keeps the user's own entries, is
# idempotent, and is undone by jh_unbind.  No host runs here.

load test_helper/common

setup() {
	_common_setup
	# A bindir with a space and a quote in it, so the command line's
	# quoting is tested too; its jh-hook prints its arguments.
	B="$T/bin dir/it's"
	mkdir -p "$B"
	cat >"$B/jh-hook" <<-'EOF'
	#!/bin/sh
	for a in "$@"; do printf '<%s>' "$a"; done
	echo
	EOF
	chmod +x "$B/jh-hook"
	C="$JH_HOME/hook.conf"
	: >"$C"
	cp "$PROJECT_ROOT/tests/helpers/bindstub.sh" "$T/stubs.sh"
}

# bind HOST FUNC [VAR=VALUE...]: sources the stubs and hosts/HOST/bind.sh
# in sh and calls FUNC, with the variables jh-install gives it.
bind() {
	local host=$1 fn=$2
	shift 2
	env "$@" bindir="$B" conf="$C" deadline=2000 project= \
	    hostdir="$PROJECT_ROOT/hosts/$host" \
	    sh -c '. "$1"; . "$2"; '"$fn" sh "$T/stubs.sh" \
	    "$PROJECT_ROOT/hosts/$host/bind.sh"
}

# config HOST: the file bind.sh writes.
config() {
	case $1 in
	cursor) echo "$HOME/.cursor/hooks.json" ;;
	windsurf) echo "$HOME/.codeium/windsurf/hooks.json" ;;
	antigravity) echo "$HOME/.gemini/config/hooks.json" ;;
	esac
}

# commands HOST: every hook command in the host's config, one a line.
commands() {
	case $1 in
	antigravity) jq -r '.hooks[][].hooks[].command' "$(config "$1")" ;;
	*) jq -r '.hooks[][].command' "$(config "$1")" ;;
	esac
}

@test "every golden payload is one JSON object naming its event and the host's common fields" {
	local f n ev
	for f in "$PROJECT_ROOT"/tests/hosts/{cursor,windsurf,antigravity}/*.json; do
		n=$(basename "$f" .json)
		ev=${n%%-*}
		jq -e 'type == "object"' "$f" >/dev/null ||
		    fail "$f: not one JSON object"
		case $f in
		*/cursor/*)
			jq -e --arg ev "$ev" '.hook_event_name == $ev
			    and (.conversation_id | type) == "string"
			    and (.generation_id | type) == "string"
			    and (.cursor_version | type) == "string"
			    and (.workspace_roots | type) == "array"
			    and has("model") and has("user_email")
			    and has("transcript_path")' "$f" >/dev/null ||
			    fail "$f: Cursor's common fields or event" ;;
		*/windsurf/*)
			jq -e --arg ev "$ev" '.agent_action_name == $ev
			    and (.trajectory_id | type) == "string"
			    and (.execution_id | type) == "string"
			    and (.timestamp | type) == "string"
			    and (.tool_info | type) == "object"' "$f" >/dev/null ||
			    fail "$f: Windsurf's common fields or event" ;;
		*/antigravity/*)
			jq -e '(.conversationId | type) == "string"
			    and (.stepIdx | type) == "number"
			    and (.workspacePaths | type) == "array"
			    and has("toolCall")' "$f" >/dev/null ||
			    fail "$f: Antigravity's common fields" ;;
		*) fail "$f: no host" ;;
		esac
	done
	# The tool in a name is the payload's tool.
	local d="$PROJECT_ROOT/tests/hosts"
	for f in "$d"/cursor/preToolUse-*.json; do
		n=$(basename "$f" .json)
		n=${n#preToolUse-}
		# a variant of a tool's payload: Shell-observed, Shell-both-dirs
		n=${n%%-[a-z]*}
		jq -e --arg t "$n" '.tool_name == $t or (.tool_name | startswith($t + ":"))' "$f" >/dev/null ||
		    fail "$f: tool_name is not $n"
	done
	for f in "$d"/antigravity/PreToolUse-*.json; do
		n=$(basename "$f" .json)
		n=${n#PreToolUse-}
		jq -e --arg t "$n" '.toolCall.name == $t or ($t == "mcp" and (.toolCall.name | startswith("mcp_")))' "$f" >/dev/null ||
		    fail "$f: toolCall.name is not $n"
	done
	# Strings that the docs give as JSON text parse as JSON.
	jq -e '.tool_input | fromjson | type == "object"' \
	    "$d/cursor/beforeMCPExecution-MCP.json" >/dev/null
	jq -e '.tool_output | fromjson | has("exitCode")' \
	    "$d/cursor/postToolUse-Shell.json" >/dev/null
}

@test "tests/hosts/README.md lists every golden payload, and only those" {
	local f n listed
	listed=$(grep -o '[a-z]*/[A-Za-z_-]*\.json' "$PROJECT_ROOT/tests/hosts/README.md" | sort -u)
	for f in "$PROJECT_ROOT"/tests/hosts/{cursor,windsurf,antigravity}/*.json; do
		n=${f#"$PROJECT_ROOT"/tests/hosts/}
		grep -qx "$n" <<<"$listed" || fail "$n is not in tests/hosts/README.md"
	done
	for n in $listed; do
		[ -f "$PROJECT_ROOT/tests/hosts/$n" ] || fail "README lists $n, which is not there"
	done
	for n in cursor windsurf antigravity; do
		assert_file_exists "$PROJECT_ROOT/tests/hosts/$n/mapping.md"
	done
}

@test "each bind.sh is POSIX sh and defines jh_bind and jh_unbind, no other function" {
	local h before after
	for h in cursor windsurf antigravity; do
		sh -n "$PROJECT_ROOT/hosts/$h/bind.sh"
		run bash -c 'before=$(declare -F); . "$1"; diff <(echo "$before") <(declare -F) | sed -n "s/^> declare -f //p"' \
		    bash "$PROJECT_ROOT/hosts/$h/bind.sh"
		assert_success
		assert_output "$(printf 'jh_bind\njh_unbind')"
	done
}

@test "bind writes valid JSON whose commands run jh-hook -c CONF -H HOST, and a second bind changes nothing" {
	local h f out
	for h in cursor windsurf antigravity; do
		f=$(config "$h")
		run bind "$h" jh_bind
		assert_success
		assert_output --partial "bound"
		jq -e . "$f" >/dev/null
		run commands "$h"
		assert_success
		[ -n "$output" ]
		while IFS= read -r c; do
			out=$(sh -c "$c")
			[ "$out" = "<-c><$C><-H><$h>" ] || fail "$h: $c ran as $out"
		done <<<"$output"
		cp "$f" "$T/$h.first"
		run bind "$h" jh_bind
		assert_success
		refute_output --partial "bound"
		cmp "$f" "$T/$h.first"
	done
}

@test "Cursor: version 1, preToolUse fails closed with a timeout past the deadline, no granular gate events" {
	run bind cursor jh_bind
	assert_success
	local f
	f=$(config cursor)
	jq -e '.version == 1' "$f"
	# deadline 2000 ms: (2000 + 500) / 1000 + 5 = 7 s, an integer.
	jq -e '.hooks.preToolUse == [{command: .hooks.preToolUse[0].command,
	    type: "command", timeout: 7, failClosed: true}]' "$f"
	jq -e '[.hooks.postToolUse, .hooks.stop, .hooks.sessionEnd]
	    | all(length == 1 and (.[0].timeout == 7) and (.[0] | has("failClosed") | not))' "$f"
	jq -e '.hooks | keys == ["postToolUse", "preToolUse", "sessionEnd", "stop"]' "$f"
}

@test "Windsurf: every pre_* tool gate and the post hooks, no prompt gate" {
	run bind windsurf jh_bind
	assert_success
	jq -e '.hooks | keys == ["post_cascade_response", "post_mcp_tool_use",
	    "post_read_code", "post_run_command", "post_write_code",
	    "pre_mcp_tool_use", "pre_read_code", "pre_run_command",
	    "pre_write_code"]' "$(config windsurf)"
	jq -e '[.hooks[][]] | all(keys == ["command", "show_output"])' "$(config windsurf)"
}

@test "Antigravity: PreToolUse and PostToolUse under a top-level hooks key, catch-all matcher, integer timeout" {
	run bind antigravity jh_bind
	assert_success
	jq -e 'keys == ["hooks"] and (.hooks | keys == ["PostToolUse", "PreToolUse"])
	    and ([.hooks[][]] | all(.matcher == "" and (.hooks | length == 1)
	        and .hooks[0].type == "command" and .hooks[0].timeout == 7))' \
	    "$(config antigravity)"
}

@test "bind keeps the user's own hooks and keys; unbind leaves exactly them" {
	mkdir -p "$HOME/.cursor" "$HOME/.codeium/windsurf" "$HOME/.gemini/config"
	cat >"$(config cursor)" <<-'EOF'
	{"version": 1, "hooks": {"preToolUse": [{"command": "./audit.sh", "matcher": "Shell"}],
	 "afterFileEdit": [{"command": "prettier --write"}]}, "x-user": true}
	EOF
	cat >"$(config windsurf)" <<-'EOF'
	{"hooks": {"pre_run_command": [{"command": "python3 guard.py", "show_output": true}]}, "other": 1}
	EOF
	# agy 1.1.25's named-hook shape, which must be left alone.
	cat >"$(config antigravity)" <<-'EOF'
	{"shell-audit": {"PreToolUse": [{"matcher": "run_command",
	  "hooks": [{"type": "command", "command": "./audit.sh", "timeout": 5}]}]}}
	EOF
	local h f
	for h in cursor windsurf antigravity; do
		f=$(config "$h")
		jq -S . "$f" >"$T/$h.user"
		run bind "$h" jh_bind
		assert_success
		assert_output --partial "kept a copy"
		cmp <(jq -S . "$JH_HOME/$h-hooks.json.orig") "$T/$h.user"
		# The user's entries are all still there, first.
		case $h in
		cursor) jq -e '.["x-user"] and .hooks.preToolUse[0].command == "./audit.sh"
		    and .hooks.afterFileEdit == [{command: "prettier --write"}]
		    and (.hooks.preToolUse | length) == 2' "$f" ;;
		windsurf) jq -e '.other == 1 and .hooks.pre_run_command[0].command == "python3 guard.py"
		    and (.hooks.pre_run_command | length) == 2' "$f" ;;
		antigravity) jq -e '.["shell-audit"].PreToolUse[0].hooks[0].command == "./audit.sh"
		    and (.hooks.PreToolUse | length) == 1' "$f" ;;
		esac
		run bind "$h" jh_unbind
		assert_success
		assert_output --partial "unbound"
		cmp <(jq -S . "$f") "$T/$h.user"
		assert_file_not_exists "$JH_HOME/$h-hooks.json.orig"
	done
}

@test "unbind removes a config bind made, and is quiet when there is nothing to undo" {
	local h
	for h in cursor windsurf antigravity; do
		run bind "$h" jh_bind
		assert_success
		assert_file_exists "$(config "$h")"
		run bind "$h" jh_unbind
		assert_success
		assert_output --partial "removed $(config "$h")"
		assert_file_not_exists "$(config "$h")"
		run bind "$h" jh_unbind
		assert_success
		assert_output ""
	done
}

@test "a rebind from another bindir replaces joulehook's entry instead of adding a second" {
	local h c old="$T/old/bin"
	mkdir -p "$old"
	printf '#!/bin/sh\necho old\n' >"$old/jh-hook"
	chmod +x "$old/jh-hook"
	for h in cursor windsurf antigravity; do
		B0=$B B=$old
		run bind "$h" jh_bind
		B=$B0
		assert_success
		run bind "$h" jh_bind
		assert_success
		assert_output --partial "bound"
		run commands "$h"
		while IFS= read -r c; do
			[ "$(sh -c "$c")" = "<-c><$C><-H><$h>" ] || fail "$h: $c is not the new binding"
		done <<<"$output"
		# One entry per event, as after a first bind.
		jq -e '[.hooks[] | length] | all(. == 1)' "$(config "$h")"
	done
}

@test "bind refuses a config that is not JSON, and Cursor's of another version, and leaves it as it was" {
	local h f
	for h in cursor windsurf antigravity; do
		f=$(config "$h")
		mkdir -p "$(dirname "$f")"
		printf '{"hooks": {,}\n' >"$f"
		cp "$f" "$T/$h.bad"
		run bind "$h" jh_bind
		assert_failure
		assert_output --partial "not JSON"
		cmp "$f" "$T/$h.bad"
	done
	printf '{"version": 2, "hooks": {}}\n' >"$(config cursor)"
	run bind cursor jh_bind
	assert_failure
	assert_output --partial "version 2"
	jq -e '.version == 2' "$(config cursor)"
}

@test "with a meter upstream, each host says its model calls are not metered" {
	local h
	for h in cursor windsurf antigravity; do
		run bind "$h" jh_bind upstream=https://api.example.com \
		    url=http://127.0.0.1:7011 token=t0k
		assert_success
		assert_output --partial "not metered"
		assert_output --partial "http://127.0.0.1:7011"
		refute_output --partial "t0k"
	done
}

@test "Cursor: a Claude Code hook config the user has is pointed out (Cursor runs it too)" {
	mkdir -p "$HOME/.claude"
	printf '{"enabledPlugins": {"joulehook@joulehook": true}}\n' >"$HOME/.claude/settings.json"
	run bind cursor jh_bind
	assert_success
	assert_output --partial "$HOME/.claude/settings.json has hooks, which Cursor also runs"
}

@test "hosts/HOST/hooks.json.example is what bind writes for the default install (deadline 8000 ms)" {
	local h
	for h in cursor windsurf antigravity; do
		run env bindir=/home/dev/.config/joulehook/bin \
		    conf=/home/dev/.config/joulehook/hook.conf deadline=8000 \
		    sh -c '. "$1"; . "$2"; jh_bind' sh "$T/stubs.sh" \
		    "$PROJECT_ROOT/hosts/$h/bind.sh"
		assert_success
		cmp <(jq -S . "$(config "$h")") \
		    <(jq -S . "$PROJECT_ROOT/hosts/$h/hooks.json.example")
	done
}
