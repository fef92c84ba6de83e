# shellcheck shell=sh disable=SC2154,SC2016  # the variables are jh-install's; the jq is single-quoted on purpose
# hosts/antigravity/bind.sh: bind joulehook to Antigravity's (agy) hooks,
# or unbind it.  Sourced by jh-install -H antigravity, which provides
# say, die, q, json_edit, $bindir, $conf, $JH_HOME, $HOME, $deadline and,
# with -M, $upstream and $url.  hosts/antigravity/README.md says what is
# bound, from which reports, and why.  Defines jh_bind and jh_unbind
# only; its variables start with jhag_.
#
# ~/.gemini/config/hooks.json is the file agy is reported to read.  Two
# shapes are reported (agy 1.0.5: {"hooks": {EVENT: [groups]}}; agy
# 1.1.25: an object of named hooks, each {EVENT: [groups]}); a top-level
# "hooks" key is read the same way by both, as the wrapper or as a hook
# named "hooks", so joulehook adds its groups there and leaves every
# other key alone.  PreToolUse (the gate) and PostToolUse only: the
# other events are reported not to run in 1.0.5, and one entry 1.1.25
# cannot load drops the whole file, gate included.

jh_bind() {
	jhag_f=$HOME/.gemini/config/hooks.json
	jhag_t=$(( (deadline + deadline / 4) / 1000 + 5 ))
	jhag_cmd="$(q "$bindir/jh-hook") -c $(q "$conf") -H antigravity"
	if [ -f "$jhag_f" ]; then
		jq -e . "$jhag_f" >/dev/null 2>&1 ||
		    no "$jhag_f is not JSON; not touching it"
	fi
	hooks_keep "$jhag_f" antigravity-hooks.json
	jhag_before=$hooks_before
	json_edit "$jhag_f" '
	    def ours: any(.hooks[]?; (.command? // "") as $c
	        | ($c | contains("/jh-hook")) and ($c | endswith(" -H antigravity")));
	    .hooks = ((.hooks // {})
	        | with_entries(.value |= map(select(ours | not))))
	    | .hooks.PreToolUse += [{matcher: "", hooks: [{type: "command",
	        command: $cmd, timeout: $t}]}]
	    | .hooks.PostToolUse += [{matcher: "", hooks: [{type: "command",
	        command: $cmd, timeout: $t}]}]' \
	    --arg cmd "$jhag_cmd" --argjson t "$jhag_t" ||
	    die "could not edit $jhag_f"
	if [ "$jhag_before" != "$(jq -cS . "$jhag_f")" ]; then
		say "bound Antigravity in $jhag_f: PreToolUse and PostToolUse (every tool, timeout ${jhag_t}s) run $jhag_cmd"
		say "note: Antigravity's hooks are known from third-party reports only; check that agy runs them (hosts/antigravity/README.md)"
	fi
	if [ -n "${upstream:-}" ]; then
		say "not metered: no reported way to point agy's model calls at $url"
	fi
}

jh_unbind() {
	jhag_f=$HOME/.gemini/config/hooks.json
	if [ -f "$jhag_f" ] && jq -e '[.hooks[]?[]?.hooks[]? | .command? // ""
	    | select(contains("/jh-hook") and endswith(" -H antigravity"))]
	    | length > 0' "$jhag_f" >/dev/null 2>&1; then
		json_edit "$jhag_f" '
		    def ours: any(.hooks[]?; (.command? // "") as $c
		        | ($c | contains("/jh-hook")) and ($c | endswith(" -H antigravity")));
		    .hooks |= (with_entries(.value |= map(select(ours | not)))
		        | with_entries(select(.value != [])))
		    | if .hooks == {} then del(.hooks) else . end' ||
		    die "could not edit $jhag_f"
		say "unbound Antigravity: removed joulehook's hooks from $jhag_f"
	fi
	hooks_forget "$jhag_f" antigravity-hooks.json '. == {}'
}
