# shellcheck shell=sh disable=SC2154,SC2016  # the variables are jh-install's; the jq is single-quoted on purpose
# hosts/windsurf/bind.sh: bind joulehook to Windsurf's Cascade hooks, or
# unbind it.  Sourced by jh-install -H windsurf, which provides say, die,
# q, json_edit, $bindir, $conf, $JH_HOME, $HOME and, with -M, $upstream
# and $url.  hosts/windsurf/README.md says what is bound and why.
# Defines jh_bind and jh_unbind only; its variables start with jhws_.
#
# The user-level ~/.codeium/windsurf/hooks.json gets one entry per event,
# known by its command (the absolute jh-hook, ending in -H windsurf); the
# user's other entries and keys are kept.  The four pre_* tool hooks are
# Windsurf's only gates (exit 2 blocks); the post_* ones and
# post_cascade_response (end of a response) feed the result check and
# the checkpoint.  Windsurf's entries have no timeout: the driver's own
# deadline bounds the hook.

jh_bind() {
	jhws_f=$HOME/.codeium/windsurf/hooks.json
	jhws_cmd="$(q "$bindir/jh-hook") -c $(q "$conf") -H windsurf"
	if [ -f "$jhws_f" ]; then
		jq -e . "$jhws_f" >/dev/null 2>&1 ||
		    no "$jhws_f is not JSON; not touching it"
	fi
	hooks_keep "$jhws_f" windsurf-hooks.json
	jhws_before=$hooks_before
	json_edit "$jhws_f" '
	    def ours: (.command? // "") as $c
	        | ($c | contains("/jh-hook")) and ($c | endswith(" -H windsurf"));
	    .hooks = ((.hooks // {})
	        | with_entries(.value |= map(select(ours | not))))
	    | reduce ("pre_run_command", "pre_write_code", "pre_read_code",
	        "pre_mcp_tool_use", "post_run_command", "post_write_code",
	        "post_read_code", "post_mcp_tool_use",
	        "post_cascade_response") as $e (.;
	        .hooks[$e] += [{command: $cmd, show_output: false}])' \
	    --arg cmd "$jhws_cmd" || die "could not edit $jhws_f"
	if [ "$jhws_before" != "$(jq -cS . "$jhws_f")" ]; then
		say "bound Windsurf in $jhws_f: pre_run_command, pre_write_code, pre_read_code, pre_mcp_tool_use (exit 2 blocks), their post_* and post_cascade_response run $jhws_cmd"
	fi
	if [ -n "${upstream:-}" ]; then
		say "not metered: Windsurf sends its model calls through its own servers and has no base URL a file can point at $url"
	fi
}

jh_unbind() {
	jhws_f=$HOME/.codeium/windsurf/hooks.json
	if [ -f "$jhws_f" ] && jq -e '[.hooks[]?[]? | .command? // ""
	    | select(contains("/jh-hook") and endswith(" -H windsurf"))]
	    | length > 0' "$jhws_f" >/dev/null 2>&1; then
		json_edit "$jhws_f" '
		    def ours: (.command? // "") as $c
		        | ($c | contains("/jh-hook")) and ($c | endswith(" -H windsurf"));
		    .hooks |= (with_entries(.value |= map(select(ours | not)))
		        | with_entries(select(.value != [])))' ||
		    die "could not edit $jhws_f"
		say "unbound Windsurf: removed joulehook's hooks from $jhws_f"
	fi
	hooks_forget "$jhws_f" windsurf-hooks.json '. == {hooks: {}}'
}
