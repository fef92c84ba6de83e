# shellcheck shell=sh disable=SC2154,SC2016
# hosts/opencode/bind.sh: binds OpenCode (1.18.33) to joulehook.
#
# Sourced by jh-install -H opencode, which then calls jh_bind (jh_unbind
# with -u).  POSIX sh under set -eu; uses say, die, q, json_edit,
# hooks_keep, hooks_forget, $bindir, $conf, $JH_HOME, $HOME, $deadline
# and, with -M, $upstream, $url and $token (hosts/opencode/README.md).
#
# OpenCode has no command hooks: it loads every {plugin,plugins}/*.{js,ts}
# of its config directory (${XDG_CONFIG_HOME:-~/.config}/opencode) as a
# plugin.  What this changes, each said as it is done, each undone by
# jh_unbind:
#   opencode/plugin/joulehook.js: the plugin, with jh-hook's path, the
#     hook config and its own deadline written in; it runs
#     jh-hook -c CONF -H opencode before and after every tool call;
#   opencode/opencode.json: mcp.joulehook (jh-status -c CONF -m, the
#     receipts over MCP) and, with -M, provider.joulehook, an
#     OpenAI-compatible provider whose baseURL is jh-proxy, with the
#     proxy's token header; the user's own entries are left as they are.

_jho_mark="// joulehook: written by jh-install -H opencode; jh-install -u -H opencode removes it"

_jho_dirs() {
	_jho_dir=${XDG_CONFIG_HOME:-$HOME/.config}/opencode
	_jho_plugin=$_jho_dir/plugin/joulehook.js
	_jho_json=$_jho_dir/opencode.json
}

# The plugin's source: beside this file (hosts/opencode/plugin).
_jho_src() {
	for _jho_s in "$hostdir/plugin/joulehook.js" \
	    "$(dirname "$0")/../hosts/opencode/plugin/joulehook.js"; do
		[ -f "$_jho_s" ] && { printf '%s\n' "$_jho_s"; return 0; }
	done
	return 1
}

jh_bind() {
	_jho_dirs
	[ -x "$bindir/jh-hook" ] || die "no $bindir/jh-hook"
	_jho_s=$(_jho_src) || die "cannot find hosts/opencode/plugin/joulehook.js"
	# OpenCode waits on a plugin's hook for ever: the plugin's own
	# deadline outlasts the gate's, whose deny comes first.
	_jho_ms=$((deadline + deadline / 4 + 5000))
	mkdir -p "$_jho_dir/plugin" || die "cannot create $_jho_dir/plugin"
	if [ -e "$_jho_plugin" ] && ! grep -qxF "$_jho_mark" "$_jho_plugin" 2>/dev/null; then
		no "$_jho_plugin is not joulehook's; not touching it (move it away and run again)"
	fi
	{
		printf '%s\n' "$_jho_mark"
		jq -Rr --arg h "$(jq -nc --arg v "$bindir/jh-hook" '$v')" \
		    --arg c "$(jq -nc --arg v "$conf" '$v')" --arg d "\"$_jho_ms\"" '
		    gsub("\"@JH_HOOK@\""; $h) | gsub("\"@JH_CONF@\""; $c)
		    | gsub("\"@JH_DEADLINE_MS@\""; $d)' "$_jho_s"
	} >"$_jho_plugin.jh.new" || { rm -f "$_jho_plugin.jh.new"; die "cannot write $_jho_plugin"; }
	grep -q '@JH_' "$_jho_plugin.jh.new" && { rm -f "$_jho_plugin.jh.new"; die "cannot fill in $_jho_plugin"; }
	chmod 644 "$_jho_plugin.jh.new"
	if cmp -s "$_jho_plugin.jh.new" "$_jho_plugin"; then
		rm -f "$_jho_plugin.jh.new"
	else
		mv "$_jho_plugin.jh.new" "$_jho_plugin"
		say "bound OpenCode: the plugin $_jho_plugin runs $bindir/jh-hook -c $conf -H opencode before and after every tool call (its deadline ${_jho_ms} ms; any failure blocks the call)"
	fi
	for _jho_f in "$_jho_dir"/plugin/* "$_jho_dir"/plugins/*; do
		[ -e "$_jho_f" ] || continue
		[ "$_jho_f" != "$_jho_plugin" ] || continue
		say "warning: OpenCode also loads $_jho_f; a plugin whose tool.execute.before changes a call's arguments after joulehook's runs what the gate did not decide"
	done
	if [ -x "$bindir/jh-status" ] || [ -n "${url:-}" ]; then
		hooks_keep "$_jho_json" opencode.json
	fi
	if [ -x "$bindir/jh-status" ]; then
		json_edit "$_jho_json" '.mcp.joulehook = {type: "local",
		    command: [$s, "-c", $c, "-m"], enabled: true}' \
		    --arg s "$bindir/jh-status" --arg c "$conf" || die "cannot edit $_jho_json"
		say "registered the receipt MCP server joulehook in $_jho_json: $bindir/jh-status -c $conf -m"
	fi
	[ -n "${url:-}" ] || return 0
	# The metered provider: OpenAI chat completions through jh-proxy.
	# Its models are those of the user's providers that call upstream.
	json_edit "$_jho_json" '.provider.joulehook = {npm: "@ai-sdk/openai-compatible",
	    name: "joulehook (metered)",
	    options: {baseURL: ($u + "/v1"), apiKey: "{env:OPENAI_API_KEY}",
		headers: {"X-Joulehook-Token": $t}},
	    models: ([(.provider // {}) | to_entries[]
		| select(.key != "joulehook")
		| select(((.value.options.baseURL // "") | rtrimstr("/") | rtrimstr("/v1")) ==
		    ($up | rtrimstr("/") | rtrimstr("/v1")))
		| .value.models // {}] | add // {})}' \
	    --arg u "$url" --arg t "$token" --arg up "$upstream" || die "cannot edit $_jho_json"
	say "bound the meter for OpenCode: provider.joulehook in $_jho_json sends to $url/v1 with the token header (the key from OPENAI_API_KEY); select its models as joulehook/<model> (add them under provider.joulehook.models if none were copied); your own providers are unchanged"
}

jh_unbind() {
	_jho_dirs
	if [ -f "$_jho_plugin" ] && grep -qxF "$_jho_mark" "$_jho_plugin"; then
		rm -f "$_jho_plugin"
		say "unbound OpenCode: removed $_jho_plugin"
		rmdir "$_jho_dir/plugin" 2>/dev/null || :
	fi
	if [ -f "$_jho_json" ]; then
		if jq -e '.mcp.joulehook or .provider.joulehook' "$_jho_json" >/dev/null 2>&1; then
			json_edit "$_jho_json" 'del(.mcp.joulehook) | del(.provider.joulehook)
			    | if .mcp == {} then del(.mcp) else . end
			    | if .provider == {} then del(.provider) else . end' ||
			    die "cannot edit $_jho_json"
			say "removed joulehook's MCP server and metered provider from $_jho_json"
		fi
	fi
	hooks_forget "$_jho_json" opencode.json '. == {}'
	return 0
}
