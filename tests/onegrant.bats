#!/usr/bin/env bats
# One grant, every host (jh-normalize(1) "HOSTS"): the same actions,
# each written the way each host's own tools would carry it, decided
# against the one starter grant scripts/jh-install writes, get the same
# verdict in every adapter; and each host's hook answer blocks exactly
# the calls that verdict does not let through (an ask is a block where
# the host cannot ask).
#
# Actions: a granted test command, a denied destructive command (one
# that runs as another user), a read inside the project and one of a
# secret outside it, a write inside the project and one outside, a write
# of a file a granted command executes (the Makefile), and an MCP call
# the grant does not name.  Codex has no read or write tool of its own:
# it reads with cat and writes with apply_patch, which are the same
# actions to the gate.

load test_helper/common

HOSTS="claude-code gemini-cli codex cline cursor windsurf antigravity opencode acp"

setup_file() {
	local root src
	root="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	src="${JH_BIN:-$root/build/test/bin}"
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	cp "$src"/jh-chain "$src"/jh-decide "$src"/jh-hook "$src"/jh-normalize \
	    "$src"/jh-result "$src"/jh-seal "$src"/jh-verify "$src"/jh-meter \
	    "$src"/jh-status "$BATS_FILE_TMPDIR/bin/"
	export JH_BIN="$BATS_FILE_TMPDIR/bin"
}

setup() {
	_common_setup
	# never under /tmp: the starter grant grants writes there
	W=$(mktemp -d /var/tmp/jh-onegrant.XXXXXX)
	export HOME="$W/home"
	P="$HOME/src/app"
	mkdir -p "$P/src" "$HOME/.ssh"
	printf 'all:\n\ttrue\n' >"$P/Makefile"
	echo 'x' >"$P/src/a.c"
	echo 'secret' >"$HOME/.ssh/id_rsa"
	(cd "$P" && git init -q)
	unset XDG_CONFIG_HOME XDG_STATE_HOME JH_HOME JH_STATE
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	HOOK="$HOME/.config/joulehook/bin/jh-hook"
	CONF="$HOME/.config/joulehook/hook.conf"
}

teardown() {
	[ -n "${W:-}" ] && rm -rf "$W"
}

# shell HOST COMMAND: the host's payload of a shell call.
shell() {
	local h=$1 c=$2
	case $h in
	claude-code | codex)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:$s,hook_event_name:"PreToolUse",cwd:$d,tool_name:"Bash",tool_input:{command:$c},tool_use_id:$i}' ;;
	gemini-cli)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" \
		    '{session_id:$s,hook_event_name:"BeforeTool",cwd:$d,timestamp:"2026-12-01T00:00:00Z",tool_name:"run_shell_command",tool_input:{command:$c,description:"x"}}' ;;
	cline)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" --arg i "call-$RANDOM$RANDOM" \
		    '{taskId:$s,hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:$i,name:"run_commands",input:{commands:[$c]}}}' ;;
	cursor)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" --arg i "call-$RANDOM$RANDOM" \
		    '{conversation_id:$s,generation_id:"g",hook_event_name:"preToolUse",workspace_roots:[$d],cwd:$d,tool_name:"Shell",tool_input:{command:$c,working_directory:$d},tool_use_id:$i}' ;;
	windsurf)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" \
		    '{agent_action_name:"pre_run_command",trajectory_id:$s,execution_id:"e",timestamp:"2026-12-01T00:00:00Z",tool_info:{command_line:$c,cwd:$d}}' ;;
	antigravity)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" \
		    '{conversationId:$s,stepIdx:1,workspacePaths:[$d],toolCall:{name:"run_command",args:{CommandLine:$c,Cwd:$d}}}' ;;
	opencode)
		jq -nc --arg c "$c" --arg d "$P" --arg s "s-$h" --arg i "call-$RANDOM$RANDOM" \
		    '{hook_event_name:"tool.execute.before",session_id:$s,tool_call_id:$i,tool:"bash",args:{command:$c,description:"x"},cwd:$d}' ;;
	acp)	# jh-acp(1), for codex-acp's permission request of an exec
		jq -nc --arg c "$c" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-acp",hook_event_name:"PreToolUse",cwd:$d,acp_method:"session/request_permission",tool_call:{toolCallId:$i,kind:"execute",title:$c,rawInput:{command:["/bin/bash","-lc",$c],cwd:$d}}}' ;;
	esac
}

# readf HOST PATH: the host's payload of a read of one file.
readf() {
	local h=$1 f=$2
	case $h in
	claude-code)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-claude-code",hook_event_name:"PreToolUse",cwd:$d,tool_name:"Read",tool_input:{file_path:$f},tool_use_id:$i}' ;;
	codex) shell codex "cat $f" ;;
	gemini-cli)
		jq -nc --arg f "$f" --arg d "$P" \
		    '{session_id:"s-gemini-cli",hook_event_name:"BeforeTool",cwd:$d,tool_name:"read_file",tool_input:{file_path:$f}}' ;;
	cline)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{taskId:"s-cline",hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:$i,name:"read_files",input:{files:[{path:$f}]}}}' ;;
	cursor)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{conversation_id:"s-cursor",hook_event_name:"preToolUse",workspace_roots:[$d],cwd:$d,tool_name:"Read",tool_input:{file_path:$f},tool_use_id:$i}' ;;
	windsurf)
		# documented without a working directory: the session's
		jq -nc --arg f "$f" \
		    '{agent_action_name:"pre_read_code",trajectory_id:"s-windsurf",execution_id:"e",tool_info:{file_path:$f}}' ;;
	antigravity)
		jq -nc --arg f "$f" --arg d "$P" \
		    '{conversationId:"s-antigravity",stepIdx:2,workspacePaths:[$d],toolCall:{name:"view_file",args:{AbsolutePath:$f}}}' ;;
	opencode)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{hook_event_name:"tool.execute.before",session_id:"s-opencode",tool_call_id:$i,tool:"read",args:{filePath:$f},cwd:$d}' ;;
	acp)	# claude-code-acp's read, through the editor
		jq -nc --arg f "$f" --arg d "$P" \
		    '{session_id:"s-acp",hook_event_name:"PreToolUse",cwd:$d,acp_method:"fs/read_text_file",params:{sessionId:"s-acp",path:$f}}' ;;
	esac
}

# writef HOST PATH: the host's payload of a write of one file.
writef() {
	local h=$1 f=$2
	case $h in
	claude-code)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-claude-code",hook_event_name:"PreToolUse",cwd:$d,tool_name:"Write",tool_input:{file_path:$f,content:"y\n"},tool_use_id:$i}' ;;
	codex)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-codex",hook_event_name:"PreToolUse",cwd:$d,tool_name:"apply_patch",tool_input:{command:("*** Begin Patch\n*** Add File: " + $f + "\n+y\n*** End Patch\n")},tool_use_id:$i}' ;;
	gemini-cli)
		jq -nc --arg f "$f" --arg d "$P" \
		    '{session_id:"s-gemini-cli",hook_event_name:"BeforeTool",cwd:$d,tool_name:"write_file",tool_input:{file_path:$f,content:"y\n"}}' ;;
	cline)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{taskId:"s-cline",hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:$i,name:"editor",input:{path:$f,new_text:"y\n"}}}' ;;
	cursor)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{conversation_id:"s-cursor",hook_event_name:"preToolUse",workspace_roots:[$d],cwd:$d,tool_name:"Write",tool_input:{file_path:$f,content:"y\n"},tool_use_id:$i}' ;;
	windsurf)
		jq -nc --arg f "$f" \
		    '{agent_action_name:"pre_write_code",trajectory_id:"s-windsurf",execution_id:"e",tool_info:{file_path:$f,edits:[{old_string:"",new_string:"y\n"}]}}' ;;
	antigravity)
		jq -nc --arg f "$f" --arg d "$P" \
		    '{conversationId:"s-antigravity",stepIdx:3,workspacePaths:[$d],toolCall:{name:"write_to_file",args:{TargetFile:$f,CodeContent:"y\n"}}}' ;;
	opencode)
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{hook_event_name:"tool.execute.before",session_id:"s-opencode",tool_call_id:$i,tool:"write",args:{filePath:$f,content:"y\n"},cwd:$d}' ;;
	acp)	# claude-code-acp's Write, as its permission request
		jq -nc --arg f "$f" --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-acp",hook_event_name:"PreToolUse",cwd:$d,acp_method:"session/request_permission",tool_call:{toolCallId:$i,kind:"edit",locations:[{path:$f}],rawInput:{file_path:$f,content:"y\n"},_meta:{claudeCode:{toolName:"mcp__acp__Write"}}}}' ;;
	esac
}

# mcp HOST: the host's payload of a call of github's create_issue.
mcp() {
	local h=$1
	case $h in
	claude-code | codex)
		jq -nc --arg d "$P" --arg s "s-$h" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:$s,hook_event_name:"PreToolUse",cwd:$d,tool_name:"mcp__github__create_issue",tool_input:{title:"t"},tool_use_id:$i}' ;;
	gemini-cli)
		jq -nc --arg d "$P" \
		    '{session_id:"s-gemini-cli",hook_event_name:"BeforeTool",cwd:$d,tool_name:"create_issue",tool_input:{title:"t"},mcp_context:{server_name:"github",tool_name:"create_issue"}}' ;;
	cline)
		jq -nc --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{taskId:"s-cline",hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:$i,name:"use_mcp_tool",input:{server_name:"github",tool_name:"create_issue",arguments:"{\"title\":\"t\"}"}}}' ;;
	cursor)
		jq -nc --arg d "$P" \
		    '{conversation_id:"s-cursor",generation_id:"g",hook_event_name:"beforeMCPExecution",workspace_roots:[$d],tool_name:"create_issue",tool_input:"{\"title\":\"t\"}",mcp_server_name:"github"}' ;;
	windsurf)
		jq -nc --arg d "$P" \
		    '{agent_action_name:"pre_mcp_tool_use",trajectory_id:"s-windsurf",execution_id:"e",tool_info:{mcp_server_name:"github",mcp_tool_name:"create_issue",mcp_tool_arguments:{title:"t"},cwd:$d}}' ;;
	antigravity)
		jq -nc --arg d "$P" \
		    '{conversationId:"s-antigravity",stepIdx:4,workspacePaths:[$d],toolCall:{name:"mcp__github__create_issue",args:{title:"t"}}}' ;;
	opencode)
		# OpenCode names an MCP tool <server>_<tool>
		jq -nc --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{hook_event_name:"tool.execute.before",session_id:"s-opencode",tool_call_id:$i,tool:"github_create_issue",args:{title:"t"},cwd:$d}' ;;
	acp)
		jq -nc --arg d "$P" --arg i "call-$RANDOM$RANDOM" \
		    '{session_id:"s-acp",hook_event_name:"PreToolUse",cwd:$d,acp_method:"session/request_permission",tool_call:{toolCallId:$i,kind:"other",rawInput:{title:"t"},_meta:{claudeCode:{toolName:"mcp__github__create_issue"}}}}' ;;
	esac
}

# verdict HOST PAYLOAD: the gate's verdict, then whether the host's
# answer lets the call through ("runs" or "blocked").
verdict() {
	local h=$1 p=$2 v out rc=0
	v=$(printf '%s\n' "$p" | "$JH_BIN/jh-normalize" -H "$h" |
	    JH_HOME="$HOME/.config/joulehook" JH_STATE="$HOME/.local/state/joulehook" \
	    "$JH_BIN/jh-decide" | jq -r .verdict)
	out=$(printf '%s\n' "$p" | "$HOOK" -c "$CONF" -H "$h" 2>/dev/null) || rc=$?
	printf '%s %s\n' "$v" "$(blocked "$h" "$rc" "$out")"
}

# blocked HOST STATUS STDOUT: what the host makes of the hook's answer.
blocked() {
	local h=$1 rc=$2 out=$3
	case $h in
	claude-code | acp)
		[ "$rc" = 2 ] && { echo blocked; return; }
		case $(jq -r '.hookSpecificOutput.permissionDecision // "none"' <<<"${out:-{\}}") in
		deny | ask) echo blocked ;; *) echo runs ;;
		esac ;;
	gemini-cli | antigravity | opencode)
		[ "$(jq -r .decision <<<"$out")" = allow ] && [ "$rc" = 0 ] && echo runs || echo blocked ;;
	codex)
		[ "$rc" = 2 ] && echo blocked || echo runs ;;
	cline)
		[ "$(jq -r .cancel <<<"$out")" = false ] && echo runs || echo blocked ;;
	cursor)
		[ "$(jq -r .permission <<<"$out")" = allow ] && [ "$rc" = 0 ] && echo runs || echo blocked ;;
	windsurf)
		[ "$rc" = 0 ] && echo runs || echo blocked ;;
	esac
}

@test "one grant, every host: the same action gets the same verdict in every adapter" {
	local h a want got bad=0 n
	# The session's root is pinned by its first call: a command, as a
	# session starts.
	for h in $HOSTS; do
		verdict "$h" "$(shell "$h" "git status")" >/dev/null
	done
	while IFS='|' read -r a want; do
		[ -n "$a" ] || continue
		for h in $HOSTS; do
			case $a in
			shell:*) got=$(verdict "$h" "$(shell "$h" "${a#shell:}")") ;;
			read:*) got=$(verdict "$h" "$(readf "$h" "${a#read:}")") ;;
			write:*) got=$(verdict "$h" "$(writef "$h" "${a#write:}")") ;;
			mcp) got=$(verdict "$h" "$(mcp "$h")") ;;
			esac
			# the host's answer follows the verdict: only an allow runs
			# (a claude-code allow is "no opinion", which runs too)
			case ${got%% *}:${got#* } in
			allow:runs | ask:blocked | deny:blocked) ;;
			*) echo "$h $a: the answer does not follow the verdict: $got"; bad=1 ;;
			esac
			if [ "${got%% *}" != "$want" ]; then
				echo "$h $a: $got, want $want"
				bad=1
			fi
		done
	done <<EOF
shell:npm test|allow
shell:sudo rm -rf /var/lib|deny
read:$P/src/a.c|allow
read:$HOME/.ssh/id_rsa|ask
write:$P/src/b.c|allow
write:$HOME/.bashrc|deny
write:$P/Makefile|ask
mcp|ask
EOF
	[ "$bad" = 0 ]
}

@test "one grant, every host: a protected file and a changed directory are never granted" {
	local h got first=""
	for h in $HOSTS; do
		# a git hook is code git runs: never allowed, the same everywhere
		verdict "$h" "$(shell "$h" "git status")" >/dev/null
		got=$(verdict "$h" "$(writef "$h" "$P/.git/hooks/pre-commit")")
		[ "${got%% *}" != allow ] || { echo "$h .git/hooks: $got"; return 1; }
		first=${first:-$got}
		[ "$got" = "$first" ] || { echo "$h .git/hooks: $got, not $first"; return 1; }
		got=$(verdict "$h" "$(writef "$h" "$HOME/.config/joulehook/grant")")
		[ "$got" = "deny blocked" ] || { echo "$h joulehook's grant: $got"; return 1; }
	done
	# Windsurf's file events, documented without a working directory,
	# act in the project the session's first command pinned: before
	# one there is none
	run -2 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H windsurf' _ "$(writef windsurf "$P/src/b.c" | jq -c '.trajectory_id = "s-new"')" "$HOOK" "$CONF"
	assert_output --partial "windsurf sent no working directory"
	# Cline runs its commands in turn: a cd before the next one is refused
	got=$(verdict cline "$(jq -nc --arg d "$P" '{taskId:"s-cline",hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:"c-cd",name:"run_commands",input:{commands:["cd /tmp","echo x > .git/hooks/pre-commit"]}}}')")
	[ "$got" = "deny blocked" ]
	# a Gemini shell call's dir_path is where its effects are read from
	got=$(verdict gemini-cli "$(jq -nc --arg d "$P" '{session_id:"s-gemini-cli",hook_event_name:"BeforeTool",cwd:$d,tool_name:"run_shell_command",tool_input:{command:"echo x > id_rsa",dir_path:"../../.ssh"}}')")
	[ "${got%% *}" != allow ] || { echo "gemini dir_path: $got"; return 1; }
}

@test "a host that cannot end a run after a tool: a mismatch denies the rest of the session" {
	local pre post rc out
	# Codex: a PostToolUse stop does not end its run (it goes on), so
	# what ran not being what was decided must stop the session here.
	pre=$(jq -nc --arg d "$P" '{session_id:"s-stop",hook_event_name:"PreToolUse",cwd:$d,tool_name:"Bash",tool_input:{command:"npm test"},tool_use_id:"c1"}')
	post=$(jq -nc --arg d "$P" '{session_id:"s-stop",hook_event_name:"PostToolUse",cwd:$d,tool_name:"Bash",tool_input:{command:"rm -rf src"},tool_use_id:"c1",tool_response:"done"}')
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H codex' _ "$pre" "$HOOK" "$CONF"
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H codex' _ "$post" "$HOOK" "$CONF"
	assert_output --partial '"continue":false'
	run -2 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H codex 2>/dev/null' _ "$(jq -c '.tool_use_id = "c2"' <<<"$pre")" "$HOOK" "$CONF"
	assert_output --partial "this session was stopped"
	# another session is not
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H codex' _ "$(jq -c '.session_id = "s-other" | .tool_use_id = "c3"' <<<"$pre")" "$HOOK" "$CONF"
	# Claude Code ends its own run on the stop: its session is not marked
	pre=${pre//s-stop/s-cc}
	post=${post//s-stop/s-cc}
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H claude-code' _ "$pre" "$HOOK" "$CONF"
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H claude-code' _ "$post" "$HOOK" "$CONF"
	run -0 sh -c 'printf "%s\n" "$1" | "$2" -c "$3" -H claude-code' _ "$(jq -c '.tool_use_id = "c4"' <<<"$pre")" "$HOOK" "$CONF"
	refute_output --partial "stopped"
}

@test "attack: a working directory or a second path the model adds to a tool's input moves nothing" {
	local got
	verdict claude-code "$(shell claude-code "git status")" >/dev/null
	# Claude Code's Bash has no working directory: a "workdir" the model
	# puts in its input is not where the command runs (the project is),
	# so it cannot move the effects to /tmp, which is granted
	got=$(verdict claude-code "$(jq -nc --arg d "$P" '{session_id:"s-claude-code",hook_event_name:"PreToolUse",cwd:$d,tool_name:"Bash",tool_input:{command:"rm -rf .git",workdir:"/tmp"},tool_use_id:"w1"}')")
	[ "${got%% *}" != allow ] || { echo "Bash workdir: $got"; return 1; }
	# Codex's exec_command has one: it is honoured, and checked
	got=$(verdict codex "$(jq -nc --arg d "$P" '{session_id:"s-codex",hook_event_name:"PreToolUse",cwd:$d,tool_name:"exec_command",tool_input:{cmd:"echo x > id_rsa",workdir:"../../.ssh"},tool_use_id:"w2"}')")
	[ "${got%% *}" != allow ] || { echo "exec_command workdir: $got"; return 1; }
	# two names of one path (Antigravity's view_file reads AbsolutePath):
	# both are targets, whichever the tool reads
	verdict antigravity "$(shell antigravity "git status")" >/dev/null
	got=$(verdict antigravity "$(jq -nc --arg d "$P" --arg s "$HOME/.ssh/id_rsa" --arg f "$P/src/a.c" '{conversationId:"s-antigravity",stepIdx:9,workspacePaths:[$d],toolCall:{name:"view_file",args:{AbsolutePath:$s,TargetFile:$f}}}')")
	[ "${got%% *}" != allow ] || { echo "view_file two paths: $got"; return 1; }
	# Cline's editor writes path: a file_path beside it changes nothing
	got=$(verdict cline "$(jq -nc --arg d "$P" --arg f "$P/src/ok.c" '{taskId:"s-cline",hookName:"tool_call",workspaceRoots:[$d],tool_call:{id:"w3",name:"editor",input:{path:"/etc/cron.d/x",file_path:$f,new_text:"y"}}}')")
	[ "$got" = "deny blocked" ] || { echo "editor path: $got"; return 1; }
	# OpenCode's bash has a workdir: honoured, and checked; its write
	# writes filePath, whatever a file_path beside it says
	verdict opencode "$(shell opencode "git status")" >/dev/null
	got=$(verdict opencode "$(jq -nc --arg d "$P" '{hook_event_name:"tool.execute.before",session_id:"s-opencode",tool_call_id:"w4",tool:"bash",args:{command:"echo x > id_rsa",workdir:"../../.ssh"},cwd:$d}')")
	[ "${got%% *}" != allow ] || { echo "opencode bash workdir: $got"; return 1; }
	got=$(verdict opencode "$(jq -nc --arg d "$P" --arg f "$P/src/ok.c" '{hook_event_name:"tool.execute.before",session_id:"s-opencode",tool_call_id:"w5",tool:"write",args:{filePath:"/etc/cron.d/x",file_path:$f,content:"y"},cwd:$d}')")
	[ "$got" = "deny blocked" ] || { echo "opencode write filePath: $got"; return 1; }
}
