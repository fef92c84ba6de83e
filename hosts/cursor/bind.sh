# shellcheck shell=sh disable=SC2154,SC2016  # the variables are jh-install's; the jq is single-quoted on purpose
# hosts/cursor/bind.sh: bind joulehook to Cursor's agent hooks, or unbind
# it.  Sourced by jh-install -H cursor, which provides say, die, q,
# json_edit, $bindir, $conf, $JH_HOME, $HOME, $deadline, $project and,
# with -M, $upstream and $url.  hosts/cursor/README.md says what is bound
# and why.  Defines jh_bind and jh_unbind only; its variables start
# with jhcu_.
#
# The user-level ~/.cursor/hooks.json gets one entry per event, known by
# its command (the absolute jh-hook, ending in -H cursor); the user's
# other entries and keys are kept.  preToolUse is the one gate: it fires
# for every tool, and beforeShellExecution, beforeReadFile and
# beforeMCPExecution fire beside it for the same call, so they are not
# bound.  It has "failClosed": true, so a crashed, slow or silent hook
# blocks the call instead of letting it run.

jh_bind() {
	jhcu_f=$HOME/.cursor/hooks.json
	jhcu_t=$(( (deadline + deadline / 4) / 1000 + 5 ))
	jhcu_cmd="$(q "$bindir/jh-hook") -c $(q "$conf") -H cursor"
	if [ -f "$jhcu_f" ]; then
		jhcu_v=$(jq -r '.version // 1' "$jhcu_f" 2>/dev/null) ||
		    no "$jhcu_f is not JSON; not touching it"
		[ "$jhcu_v" = 1 ] ||
		    no "$jhcu_f has version $jhcu_v; joulehook knows Cursor's hooks.json version 1 only"
	fi
	hooks_keep "$jhcu_f" cursor-hooks.json
	jhcu_before=$hooks_before
	json_edit "$jhcu_f" '
	    def ours: (.command? // "") as $c
	        | ($c | contains("/jh-hook")) and ($c | endswith(" -H cursor"));
	    .version = 1
	    | .hooks = ((.hooks // {})
	        | with_entries(.value |= map(select(ours | not))))
	    | .hooks.preToolUse += [{command: $cmd, type: "command",
	        timeout: $t, failClosed: true}]
	    | .hooks.postToolUse += [{command: $cmd, type: "command",
	        timeout: $t}]
	    | .hooks.stop += [{command: $cmd, type: "command", timeout: $t}]
	    | .hooks.sessionEnd += [{command: $cmd, type: "command",
	        timeout: $t}]' --arg cmd "$jhcu_cmd" --argjson t "$jhcu_t" ||
	    die "could not edit $jhcu_f"
	if [ "$jhcu_before" != "$(jq -cS . "$jhcu_f")" ]; then
		say "bound Cursor in $jhcu_f: preToolUse (failClosed, timeout ${jhcu_t}s), postToolUse, stop and sessionEnd run $jhcu_cmd"
		for jhcu_c in "$HOME/.claude/settings.json" \
		    ${project:+"$project/.claude/settings.json"} \
		    ${project:+"$project/.claude/settings.local.json"}; do
			if [ -f "$jhcu_c" ] && jq -e '(.hooks // {}) != {} or
			    (.enabledPlugins["joulehook@joulehook"] // false)' \
			    "$jhcu_c" >/dev/null 2>&1; then
				say "note: $jhcu_c has hooks, which Cursor also runs when its third-party configs setting is on (see hosts/cursor/README.md)"
			fi
		done
	fi
	if [ -n "${upstream:-}" ]; then
		say "not metered: Cursor sends its model calls through Cursor's servers and has no base URL a file can point at $url"
	fi
}

jh_unbind() {
	jhcu_f=$HOME/.cursor/hooks.json
	if [ -f "$jhcu_f" ] && jq -e '[.hooks[]?[]? | .command? // ""
	    | select(contains("/jh-hook") and endswith(" -H cursor"))]
	    | length > 0' "$jhcu_f" >/dev/null 2>&1; then
		json_edit "$jhcu_f" '
		    def ours: (.command? // "") as $c
		        | ($c | contains("/jh-hook")) and ($c | endswith(" -H cursor"));
		    .hooks |= (with_entries(.value |= map(select(ours | not)))
		        | with_entries(select(.value != [])))' ||
		    die "could not edit $jhcu_f"
		say "unbound Cursor: removed joulehook's hooks from $jhcu_f"
	fi
	hooks_forget "$jhcu_f" cursor-hooks.json '. == {version: 1, hooks: {}}'
}
