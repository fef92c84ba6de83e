#!/usr/bin/env bats
# Hostile input (issue 20), through the real jh-hook and its config where
# a decision is due and through the real filters for streams: payloads
# past every limit, JSON the gate must not read as the host does,
# session ids and tool names built to confuse, paths that loop or look
# alike, grants and revocations that cannot be trusted, receipts of
# another session.  Each gets a clear reason, the host's deny where a
# decision is due, and the records stay as they were or still verify.

# bats file_tags=hostile

load test_helper/common
load helpers/faults

setup() {
	_common_setup
	fault_setup
	HOSTS="$PROJECT_ROOT/tests/hosts"
}

# claude TOOL INPUT-JSON [ID] [SID]: a Claude Code PreToolUse payload.
claude() {
	pre "${3:-t1}" x "${4:-$SID}" | jq -c --arg t "$1" --argjson in "$2" \
	    '.tool_name = $t | .tool_input = $in'
}

# denied_unchanged: the last answer is the deny with a reason, and the
# state is as it was before ($BEFORE).
denied_unchanged() {
	is_deny || { echo "not denied: $status $output"; return 1; }
	[[ $stderr == *"jh-hook: "* || $stderr == *"joulehook: "* ]] ||
	    { echo "no reason: $stderr"; return 1; }
	[ "$(state_sum)" = "$BEFORE" ] || { echo "the state changed"; return 1; }
}

@test "payloads past the limits or not JSON as the host means it: 50 MB, nested 100k deep, bad and overlong UTF-8, a raw NUL, a repeated key, an integer past int64, a lone surrogate: the hook denies, naming the defect, and records nothing" {
	local k head
	hook <<<"$(claude Bash '{"command":"echo hi"}' t0)"
	[ "$status" = 0 ]
	BEFORE=$(state_sum)
	# the payload up to inside its tool_input, which comes last
	head=$(claude Bash '{"command":"echo hi"}' | jq -c 'del(.tool_input) + {tool_input: {command: "echo hi"}}' | sed 's/}}$//')
	[ "${head: -9}" = '"echo hi"' ]
	# 50 MB of command
	/usr/bin/python3 -c 'import sys; sys.stdout.write(sys.argv[1] + ",\"x\":\"" + "a" * (50 << 20) + "\"}}")' "$head" >"$T/big"
	hook <"$T/big"
	denied_unchanged
	[[ $stderr == *"16 MiB"* || $stderr == *"too large"* || $stderr == *"16777216"* ]] || { echo "$stderr"; return 1; }
	/usr/bin/python3 -c 'import sys; sys.stdout.write(sys.argv[1] + ",\"x\":" + "[" * 100000 + "]" * 100000 + "}}")' "$head" >"$T/deep"
	hook <"$T/deep"
	denied_unchanged
	[[ $stderr == *"depth"* ]] || { echo "$stderr"; return 1; }
	for k in 'echo \xff\xfe' 'echo \xc0\xaf' 'echo \xed\xa0\x80' 'echo \xf4\x90\x80\x80' 'echo a\0b'; do
		hook < <(printf '%s,"x":"%b"}}' "$head" "$k")
		denied_unchanged || { echo "$k"; return 1; }
		[[ $stderr == *"not JSON"* ]]
	done
	while read -r k; do
		hook <<<"$k"
		denied_unchanged || { echo "$k"; return 1; }
		[[ $stderr == *"not JSON"* ]]
	done <<-EOF
	$head,"command":"rm -rf /"}}
	$(claude Bash '{"command":"echo hi"}' | sed 's/"tool_name":"Bash"/&,"tool_name":"Read"/')
	$(claude Bash '{"command":"echo hi"}' | sed 's/"session_id":"[^"]*"/&,"session_id":"other"/')
	$head,"timeout":99999999999999999999}}
	$head,"timeout":-9223372036854775809}}
	$head,"x":"\ud800"}}
	$(claude Bash '{"command":"echo hi"}' | sed 's/}$//')
	EOF
	state_ok
}

@test "a U+0000 in a field the hook binds or the gate reads as a name is a deny, never cut at the NUL" {
	BEFORE=$(state_sum)
	local p
	for p in \
	    "$(claude Bash '{"command":"echo hi"}' | jq -c '.session_id = "s\u0000x"')" \
	    "$(claude Bash '{"command":"echo hi"}' | jq -c '.tool_use_id = "t\u0000x"')"; do
		hook <<<"$p"
		denied_unchanged
		[[ $stderr == *"session id"* || $stderr == *"tool call"* || $stderr == *"id"* ]]
	done
	# the gate reads these: a deny, sealed
	for p in \
	    "$(claude Bash '{"command":"echo hi"}' t2 | jq -c '.tool_name = "Bash\u0000x"')" \
	    "$(claude Bash '{"command":"echo hi"}' t3 | jq -c --arg p "$P" '.cwd = $p + "\u0000/../.."')"; do
		hook <<<"$p"
		is_deny
		[[ $stderr == *"NUL in"* ]] || { echo "$stderr"; return 1; }
	done
	state_ok
}

@test "a U+0000 in a command or a path is decided on the whole string, never on what comes before it" {
	local p
	for p in \
	    "$(claude Bash '{"command":"echo a\u0000; rm -rf /opt/x"}' n1)" \
	    "$(claude Bash '{"command":"echo a\u0000"}' n2)" \
	    "$(claude Write "$(jq -nc --arg p "$P" '{file_path: ($p + "/src/a.c\u0000/../../../../etc/passwd"), content: "x"}')" n3)" \
	    "$(claude Grep "$(jq -nc --arg p "$P" '{pattern: "x", path: ($p + "/src\u0000/../../..")}')" n4)"; do
		hook <<<"$p"
		is_deny || { echo "allowed: $p"; return 1; }
	done
}

@test "session ids with '/', '..', a newline or 16 KiB are logs named by their digest inside the logs directory; one of 64 KiB is a deny" {
	local s n=0
	for s in '../../etc' 'a/b/../../c' '/' '..' $'two\nlines' "$(printf 'x%.0s' $(seq 16384))"; do
		n=$((n + 1))
		hook <<<"$(claude Bash '{"command":"echo hi"}' "i$n" "$s")"
		[ "$status" = 0 ] || { echo "${s:0:20}: $stderr"; return 1; }
		[ -f "$(log_of "$s")" ]
	done
	run -0 sh -c "find '$T' -newer '$CONF' -type f ! -path '$JH_STATE/*' ! -name 'separate-stderr-*'"
	assert_output ""
	run -0 sh -c "ls '$JH_STATE/logs' | grep -vE '^[0-9a-f]{64}\.jhl(\.head|\.idx)?$' || true"
	assert_output ""
	BEFORE=$(state_sum)
	hook <<<"$(claude Bash '{"command":"echo hi"}' big "$(printf 'x%.0s' $(seq 65536))")"
	denied_unchanged
	[[ $stderr == *"no usable session id"* ]]
	state_ok
}

@test "tool names that look like a granted tool (Cyrillic, full-width, zero-width, case, spaces) are never given its class: each is denied as a tool no capability names" {
	local t
	hook <<<"$(claude Bash '{"command":"echo hi"}' real)"
	[ "$status" = 0 ]
	for t in 'Вash' 'Bаsh' 'Ｂａｓｈ' $'Ba\u200dsh' $'Bash\u200b' $'\ufeffBash' 'bash' 'BASH' 'Bash ' ' Bash' $'Bash\t' 'Rеad' 'Ｒｅａｄ' 'Wrіte'; do
		hook <<<"$(claude "$t" "$(jq -nc --arg p "$P" '{command: "echo hi", file_path: ($p + "/src/a.c"), content: "x"}')" "l$RANDOM")"
		is_deny || { echo "'$t': $status $output"; return 1; }
		[[ $stderr == *"not in your grant: $t"* ]] || { echo "'$t': $stderr"; return 1; }
	done
	run -0 sh -c "jh-verify '$(log_of "$SID")' | jq -r 'select(.kind == \"decision/1\" and .core.tool_use_id != \"real\") | .core.code' | sort -u"
	assert_output not-granted
	state_ok
}

@test "look-alike tool names in Gemini CLI, Codex, OpenCode and Cline payloads: each host's own deny" {
	local out
	# host template jq-edit answer-check
	while IFS='|' read -r h f edit; do
		[ -n "$h" ] || continue
		run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H "$h" < <(jq -c --arg p "$P" "$edit" "$HOSTS/$h/$f")
		case $h in
		cline) [ "$(jq -r .cancel <<<"$output")" = true ] ;;
		gemini-cli | opencode) [ "$status" = 2 ] && [ "$(jq -r .decision <<<"$output")" = deny ] ;;
		*) is_deny ;;
		esac || { echo "$h $edit: $status $output"; return 1; }
		[[ $stderr == *"not in your grant"* ]] || { echo "$h: $stderr"; return 1; }
	done <<-'EOF'
	gemini-cli|BeforeTool-run_shell_command.json|.cwd = $p | .tool_input.command = "echo hi" | .tool_name = "run_shell_commаnd"
	gemini-cli|BeforeTool-run_shell_command.json|.cwd = $p | .tool_input.command = "echo hi" | .tool_name = "Run_shell_command"
	codex|PreToolUse-Bash.json|.cwd = $p | .tool_input.command = "echo hi" | .tool_name = "Вash"
	opencode|tool.execute.before-bash.json|.cwd = $p | .args.command = "echo hi" | .tool = "bаsh"
	opencode|tool.execute.before-bash.json|.cwd = $p | .args.command = "echo hi" | .tool = "Bash "
	cline|PreToolUse-tool_call-run_commands.json|.workspaceRoots = [$p] | .tool_call.input.commands = ["echo hi"] | .tool_call.name = "run_cоmmands"
	EOF
}

@test "hostile payloads in each host's shape (a repeated key, 100k deep, past 16 MiB, bad UTF-8): each host's own deny, nothing recorded" {
	local h f ans
	BEFORE=$(state_sum)
	for h in gemini-cli codex opencode cline; do
		case $h in
		gemini-cli) f=BeforeTool-run_shell_command.json ;;
		codex) f=PreToolUse-Bash.json ;;
		opencode) f=tool.execute.before-bash.json ;;
		cline) f=PreToolUse-tool_call-run_commands.json ;;
		esac
		jq -c --arg p "$P" '.cwd = $p' "$HOSTS/$h/$f" | sed 's/}$//' >"$T/head"
		for k in dup deep big utf8; do
			case $k in
			dup) printf '%s,"session_id":"x","session_id":"y"}' "$(cat "$T/head")" ;;
			deep) /usr/bin/python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().rstrip("\n") + ",\"x\":" + "[" * 100000 + "]" * 100000 + "}")' "$T/head" ;;
			big) /usr/bin/python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read().rstrip("\n") + ",\"x\":\"" + "a" * (20 << 20) + "\"}")' "$T/head" ;;
			utf8) printf '%s,"x":"\xc0\xaf"}' "$(cat "$T/head")" ;;
			esac >"$T/p"
			run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H "$h" <"$T/p"
			case $h in
			cline) ans=$(jq -r .cancel <<<"$output") && [ "$ans" = true ] ;;
			gemini-cli | opencode) [ "$status" = 2 ] && [ "$(jq -r .decision <<<"$output")" = deny ] ;;
			*) is_deny ;;
			esac || { echo "$h $k: $status ${output:0:200}"; return 1; }
			[[ $stderr == *"jh-hook: "* ]] || { echo "$h $k: $stderr"; return 1; }
			[ "$(state_sum)" = "$BEFORE" ] || { echo "$h $k: the state changed"; return 1; }
		done
	done
}

@test "Cline: a run_commands command that is not a whole line on its own (a trailing backslash, an open quote or here-document) cannot carry the next one past the gate" {
	local c
	while read -r c; do
		run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H cline < <(jq -c --arg p "$P" --argjson c "$c" \
		    '.workspaceRoots = [$p] | .tool_call.id = "c\($c | length)" | .tool_call.input.commands = $c' \
		    "$HOSTS/cline/PreToolUse-tool_call-run_commands.json")
		[ "$(jq -r .cancel <<<"$output")" = true ] || { echo "$c: $output"; return 1; }
		[[ $stderr == *"is not a whole command line on its own"* ]] || { echo "$c: $stderr"; return 1; }
	done <<-'EOF'
	["echo a\\", "rm -rf /opt/x"]
	["echo \"a", "rm -rf /opt/x\""]
	["echo 'a", "rm -rf /opt/x'"]
	["cat <<EOF", "rm -rf /opt/x", "EOF"]
	["echo a &&", "rm -rf /opt/x"]
	["echo $(", "rm -rf /opt/x", ")"]
	EOF
	# each runs in a shell of its own: a function one defines is not the next one's
	for c in '["rm() { echo x; }", "rm -rf /opt/x"]' '["alias rm=echo", "rm -rf /opt/x"]'; do
		run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H cline < <(jq -c --arg p "$P" --argjson c "$c" \
		    '.workspaceRoots = [$p] | .tool_call.id = "f\($c | length)" | .tool_call.input.commands = $c' \
		    "$HOSTS/cline/PreToolUse-tool_call-run_commands.json")
		[ "$(jq -r .cancel <<<"$output")" = true ] || { echo "$c: $output"; return 1; }
	done
	# whole lines pass, a backslash that is itself escaped included
	for c in '["echo a", "echo b"]' '["echo a\\\\", "echo b"]'; do
		run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H cline < <(jq -c --arg p "$P" --argjson c "$c" \
		    '.workspaceRoots = [$p] | .tool_call.id = "w\($c | length)" | .tool_call.input.commands = $c' \
		    "$HOSTS/cline/PreToolUse-tool_call-run_commands.json")
		assert_output '{"cancel":false}'
	done
	state_ok
}

@test "paths with '//', a trailing '/.', '..' through a link, and symbolic link loops: decided on what they resolve to, never wider" {
	local f want
	mkdir -p "$P/.claude"
	echo 'int a;' >"$P/src/a.c"
	ln -s loop "$P/src/loop"
	ln -s l2 "$P/src/l1"
	ln -s l1 "$P/src/l2"
	ln -s .. "$P/src/up"
	while read -r f want; do
		hook <<<"$(claude Write "$(jq -nc --arg f "${f//@/$P}" '{file_path: $f, content: "x"}')" "p$RANDOM")"
		case $want in
		allow) [ "$status" = 0 ] || { echo "$f: $stderr"; return 1; } ;;
		*) is_deny && [[ $stderr == *"$want"* ]] || { echo "$f: $status $stderr"; return 1; } ;;
		esac
	done <<-'EOF'
	@/src//a.c allow
	@//src/a.c allow
	@/src/./a.c allow
	@/src/a.c/. allow
	@/src/. is not a regular file
	@/src/./. is not a regular file
	@/.claude//settings.json is protected
	@/.claude/./settings.json is protected
	@/src/../.claude/settings.json is protected
	@/.claude/. is protected
	@/src/up/.claude/settings.json is protected
	@/src/up/x not in your grant
	@/src/up/src/a.c allow
	@/src/loop/x Too many levels of symbolic links
	@/src/l1/x Too many levels of symbolic links
	@/src/loop Too many levels of symbolic links
	@/src/a.c/../../x cannot resolve
	EOF
	# the receipts name what was decided on: the resolved path
	run -0 sh -c "jh-verify '$(log_of "$SID")' | jq -r 'select(.core.verdict == \"allow\") | .core.target[0]' | sort -u"
	assert_output "$P/src/a.c"
	state_ok
}

@test "a path as the host's file tools read it: '..' after a link taken as text, white space at its ends trimmed, a .claude at any depth: each form decided, the narrowest wins" {
	local t f want
	mkdir -p "$P/src/a/b/c"
	ln -s a/b/c "$P/src/deep"
	while read -r t f want; do
		case $t in
		Grep) in=$(jq -nc --arg f "${f//@/$P}" '{pattern: "AKIA", path: $f}') ;;
		*) in=$(jq -nc --arg f "${f//@/$P}" '{file_path: $f, content: "x"}') ;;
		esac
		hook <<<"$(claude "$t" "$in" "p$RANDOM")"
		case $want in
		allow) [ "$status" = 0 ] || { echo "$t $f: $stderr"; return 1; } ;;
		*) ! [ "$status" = 0 ] && [[ $stderr == *"$want"* ]] || { echo "$t $f: $status $stderr"; return 1; } ;;
		esac
	done <<-'EOF'
	Write src/deep/../x.c allow
	Write src/deep/../../x.c not in your grant
	Write @/src/deep/../../x.c not in your grant
	Write src/deep/../../../.claude/settings.json is protected
	Write src/.claude/skills/x/SKILL.md is protected
	Write src/a/.CLAUDE/commands/x.md is protected
	Write src/a/.claude/ſettings.json is protected
	Write .mcp.jſon is protected
	Write .clineruleſ/x.md is protected
	Write src/.opencode/plugin/x.js is protected
	Write src/a/opencode.json is protected
	Write src/.gemini/settings.json is protected
	Write src/a/.codex/config.toml is protected
	Write src/.mcp.json is protected
	Write src/.cursor/hooks.json is protected
	Write @/src/a.c allow
	Grep src/deep/../../.. is protected
	Grep src/deep/../.. allow
	EOF
	# leading white space, which Claude Code's search trims: U+0020, a tab, U+00A0, U+FEFF
	for f in " $HOME" $'\t'"$HOME" $'\u00a0'"$HOME" $'\ufeff'"$HOME/"; do
		hook <<<"$(claude Grep "$(jq -nc --arg f "$f" '{pattern: "AKIA", path: $f}')" "p$RANDOM")"
		! [ "$status" = 0 ] || { echo "allowed: '$f'"; return 1; }
		[[ $stderr == *"not in your grant"* || $stderr == *"protected"* ]] || { echo "'$f': $stderr"; return 1; }
	done
	hook <<<"$(claude Grep "$(jq -nc --arg f " src " '{pattern: "AKIA", path: $f}')" "p$RANDOM")"
	[ "$status" = 0 ] || { echo "$stderr"; return 1; }
	# a shell's workdir: OpenCode takes its '..' as text
	for wd in src/deep/../../.. src/deep/.. src/a/..; do
		run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" -H opencode <<<"$(jq -nc --arg p "$P" --arg w "$wd" \
		    '{hook_event_name: "tool.execute.before", session_id: "ses_wd", tool_call_id: "c\($w | length)",
		      tool: "bash", args: {command: "echo x", workdir: $w, description: "x"}, cwd: $p}')"
		case $wd in
		src/deep/*) [[ $stderr == *"'..' after a link"* ]] || { echo "$wd: $status $output $stderr"; return 1; } ;;
		*) [[ $stderr != *"after a link"* ]] || { echo "$wd: $stderr"; return 1; } ;;
		esac
	done
	state_ok
}

@test "grants that cannot be trusted deny at the hook with the reason: an untrusted issuer, a far-future nbf, a revocation by another issuer" {
	local gid
	jh-seal -G -W -R issuer -k "$T/other.key"
	seal_grant "$T/grant.json" "$T/other.key"
	hook <<<"$(claude Bash '{"command":"echo hi"}' u1)"
	is_deny
	[[ $stderr == *"trust"* || $stderr == *"issuer"* ]] || { echo "$stderr"; return 1; }
	grant_doc 32503680000 32503680001 >"$T/future.json"
	seal_grant "$T/future.json"
	hook <<<"$(claude Bash '{"command":"echo hi"}' u2)"
	is_deny
	[[ $stderr == *"the grant is not valid before 32503680000"* ]] || { echo "$stderr"; return 1; }
	seal_grant "$T/grant.json"
	gid="sha256:$GRANT_HEX"
	mkdir -p "$JH_HOME/revoked"
	jq -nc --arg g "$gid" '{grant: $g, reason: "revoked by someone else"}' |
	    jh-seal -K revocation/1 -k "$T/other.key" >"$JH_HOME/revoked/${gid#sha256:}"
	hook <<<"$(claude Bash '{"command":"echo hi"}' u3)"
	is_deny
	run -0 sh -c "jh-verify '$(log_of "$SID")' | jq -r 'select(.kind == \"decision/1\") | .core.tool_use_id + \" \" + .core.code'"
	assert_output "u1 untrusted-issuer
u2 not-yet-valid
u3 gate-failure"
	state_ok
}

# replayer FILE: a stand-in for jh-chain (stage 3) that appends what it
# is given, as the real one does, and then answers with FILE instead.
replayer() {
	cat >"$T/replay.sh" <<-EOF
	#!/bin/sh
	"$JH_BIN/jh-chain" "\$@" >/dev/null
	cat "$1"
	EOF
	chmod 755 "$T/replay.sh"
	echo "stage3=$T/replay.sh"
}

@test "a receipt of another session, or of another call, given to the reply stage is refused: the hook denies, the post-tool hook stops the run" {
	local other entry
	# the same call, tool_use_id and command, in another session
	hook <<<"$(claude Bash '{"command":"echo hi"}' same other-session)"
	[ "$status" = 0 ]
	other=$(log_of other-session)
	cp "$other" "$T/other.entry"
	hook_conf "$(replayer "$T/other.entry")"
	hook <<<"$(claude Bash '{"command":"echo hi"}' same)"
	is_deny
	[[ $stderr == *"session"* ]] || { echo "$stderr"; return 1; }
	# an earlier call of this session, replayed for a new one
	hook_conf
	hook <<<"$(claude Bash '{"command":"echo hi"}' first)"
	[ "$status" = 0 ]
	mkdir "$T/e"
	/usr/bin/python3 "$PROJECT_ROOT/tests/helpers/cborseq.py" split "$(log_of "$SID")" "$T/e"
	entry=$(ls "$T"/e/* | tail -n 1)
	hook_conf "$(replayer "$entry")"
	hook <<<"$(claude Bash '{"command":"echo hi"}' second)"
	is_deny
	[[ $stderr == *"tool_use_id"* || $stderr == *"not a decision on this call"* || $stderr == *"call"* ]] ||
	    { echo "$stderr"; return 1; }
	# after a tool ran: another session's result is the stop
	hook_conf
	hook <<<"$(post same 'x' other-session | jq -c '.tool_input = {command: "echo hi"}')"
	hook_conf "$(replayer "$other")"
	hook <<<"$(post same 'x' | jq -c '.tool_input = {command: "echo hi"}')"
	post_answer_ok same
	[ -n "$output" ]
	hook_conf
	state_ok
}

@test "a stream of payloads to jh-normalize goes on past each bad one, naming it: past 16 MiB, 100k deep, bad UTF-8, a raw NUL, a repeated key, an integer past int64, a value cut short" {
	local n
	good() {
		jq -nc --arg id "$1" '{session_id: "s", transcript_path: "/dev/null",
		    cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash",
		    tool_input: {command: "ls"}, tool_use_id: $id}'
	}
	{
		good g1
		/usr/bin/python3 -c 'import sys; sys.stdout.write("{\"x\":\"" + "a" * (20 << 20) + "\"}\n")'
		good g2
		/usr/bin/python3 -c 'print("[" * 100000 + "]" * 100000)'
		good g3
		printf '{"a":"\xff\xfe"}\n'
		good g4
		printf '{"a":"\xc0\xaf"}\n'
		good g5
		printf '{"a":1,"a":2}\n'
		good g6
		printf '{"a":99999999999999999999}\n'
		good g7
		printf '{"a":"x\0y"}\n'
		good g8
		printf '{"a":}\n'
		good g9
	} >"$T/stream.json"
	run -1 --separate-stderr jh-normalize -H claude-code "$T/stream.json"
	run -0 jq -r .tool_use_id <<<"$output"
	assert_output "$(printf 'g%s\n' 1 2 3 4 5 6 7 8 9)"
	for n in 2 4 6 8 10 12 14 16; do
		[[ $stderr == *"payload $n "* ]] || { echo "payload $n not named: $stderr"; return 1; }
	done
	[[ $stderr == *"longer than 16777216 bytes"* ]]
	[[ $stderr == *"maximum parsing depth"* ]]
	[[ $stderr == *"duplicate object key"* ]]
	[[ $stderr == *"too big integer"* ]]
}
