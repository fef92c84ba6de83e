# hosts/gemini-cli/bind.sh: binds Gemini CLI (0.61.0) to joulehook.
# Sourced by jh-install -H gemini-cli, which calls jh_bind (jh_unbind
# with -u) after the common part; POSIX sh.  It uses jh-install's say,
# die, q and json_edit and its $bindir, $conf, $JH_HOME, $HOME, $deadline
# and, with -M, $upstream, $url and $token.
#
# What it changes, each said as it is done, each undone by jh_unbind:
#   ~/.gemini/settings.json
#     hooks.BeforeTool, hooks.AfterTool (matcher "*"), hooks.AfterAgent,
#     hooks.SessionEnd: one command hook each, named "joulehook":
#       jh-hook -c CONF -H gemini-cli, timeout in milliseconds above the
#       gate's deadline (Gemini CLI's hook timeouts are milliseconds);
#     mcpServers.joulehook: jh-status -c CONF -m (the receipts, for the
#       model and the user, over MCP);
#     with -M, security.auth.selectedType "gemini-api-key" when none is
#       set (with GOOGLE_GEMINI_BASE_URL set and none selected, Gemini
#       CLI picks "gateway", which headless runs refuse).
#   ~/.gemini/.env (with -M): GOOGLE_GEMINI_BASE_URL (the proxy) and the
#     X-Joulehook-Token header in GEMINI_CLI_CUSTOM_HEADERS; Gemini CLI
#     reads neither from settings.json.  A base URL the user had is kept
#     in $JH_HOME/gemini-cli.env.saved and put back by jh_unbind.
# jh-install defines the variables this file reads; jq filters are single-quoted.
# shellcheck disable=SC2154,SC2016
# Hooks and servers of the user's own are left as they are.


# The jq that drops joulehook's hooks (and the groups and events they
# leave empty) from .hooks.
_gm_unhook='if (.hooks | type) == "object" then
	.hooks |= with_entries(
	    if (.value | type) == "array" then
		.value |= map(if (.hooks | type) == "array"
		    then .hooks |= map(select(.name != "joulehook")) else . end
		    | select((.hooks | type) != "array" or (.hooks | length) > 0))
	    else . end
	    | select((.value | type) != "array" or (.value | length) > 0))
	| if .hooks == {} then del(.hooks) else . end
    else . end'

jh_bind() {
	_gm_settings="$HOME/.gemini/settings.json"
	_gm_ms=$((deadline + deadline / 4 + 5000))
	_gm_cmd="$(q "$bindir/jh-hook") -c $(q "$conf") -H gemini-cli"
	mkdir -p "$HOME/.gemini"
	# One entry per event, replaced in place: binding twice leaves one.
	json_edit "$_gm_settings" "$_gm_unhook"'
	    | .hooks = (.hooks // {})
	    | reduce ("BeforeTool", "AfterTool", "AfterAgent", "SessionEnd") as $e (.;
		.hooks[$e] = ((.hooks[$e] // []) + [
		    (if $e == "BeforeTool" or $e == "AfterTool" then {matcher: "*"} else {} end)
		    + {hooks: [{type: "command", command: $c, name: "joulehook",
			timeout: ($ms | tonumber)}]}]))' \
	    --arg c "$_gm_cmd" --arg ms "$_gm_ms" || die "cannot edit $_gm_settings"
	say "bound Gemini CLI in $_gm_settings: BeforeTool, AfterTool, AfterAgent and SessionEnd run $_gm_cmd (timeout ${_gm_ms} ms)"
	if [ -x "$bindir/jh-status" ]; then
		# No env: Gemini CLI refuses to set LD_PRELOAD, LD_AUDIT or
		# LD_LIBRARY_PATH for a server ("Blocked dangerous environment
		# variable override"); jh-status clears its own environment.
		json_edit "$_gm_settings" '.mcpServers.joulehook = {command: $s,
		    args: ["-c", $c, "-m"]}' \
		    --arg s "$bindir/jh-status" --arg c "$conf" || die "cannot edit $_gm_settings"
		say "registered the receipt MCP server joulehook in $_gm_settings: $bindir/jh-status -c $conf -m"
	fi
	if jq -e '[.hooks.BeforeTool // [] | .[] | .hooks[]? | select(.name != "joulehook")] | length > 0' \
	    "$_gm_settings" >/dev/null 2>&1; then
		say "warning: $_gm_settings has other BeforeTool hooks; Gemini CLI runs them beside joulehook's, and one that rewrites the tool input runs a command the gate did not decide"
	fi
	case ${upstream:-} in '') return 0 ;; esac
	_gm_bind_meter
}

# The meter: Gemini CLI takes the base URL and extra headers from its
# environment only, which it fills from the first .env it finds.
_gm_bind_meter() {
	_gm_settings="$HOME/.gemini/settings.json"
	_gm_envf="$HOME/.gemini/.env"
	_gm_saved="$JH_HOME/gemini-cli.env.saved"
	[ -f "$_gm_envf" ] || : >"$_gm_envf"
	_gm_old=$(sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}GOOGLE_GEMINI_BASE_URL[[:space:]]*=[[:space:]]*//p' "$_gm_envf" | tail -n 1)
	_gm_old=$(printf '%s' "$_gm_old" | sed 's/^["'\'']//; s/["'\'']$//')
	if [ -n "$_gm_old" ] && [ "$_gm_old" != "$url" ] && [ ! -f "$_gm_saved" ]; then
		printf 'GOOGLE_GEMINI_BASE_URL=%s\n' "$_gm_old" >"$_gm_saved"
		say "kept your GOOGLE_GEMINI_BASE_URL ($_gm_old) in $_gm_saved; jh-install -u puts it back"
	fi
	_gm_hdrs=$(sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}GEMINI_CLI_CUSTOM_HEADERS[[:space:]]*=[[:space:]]*//p' "$_gm_envf" | tail -n 1)
	_gm_hdrs=$(printf '%s' "$_gm_hdrs" | sed 's/^["'\'']//; s/["'\'']$//')
	_gm_hdrs=$(_gm_drop_token "$_gm_hdrs")
	_gm_hdrs="${_gm_hdrs:+$_gm_hdrs, }X-Joulehook-Token: $token"
	{
		grep -v -E '^[[:space:]]*(export[[:space:]]+)?(GOOGLE_GEMINI_BASE_URL|GEMINI_CLI_CUSTOM_HEADERS)[[:space:]]*=' "$_gm_envf" || :
		printf 'GOOGLE_GEMINI_BASE_URL=%s\n' "$url"
		printf 'GEMINI_CLI_CUSTOM_HEADERS="%s"\n' "$_gm_hdrs"
	} >"$_gm_envf.new"
	chmod 600 "$_gm_envf.new"
	mv "$_gm_envf.new" "$_gm_envf"
	say "bound the meter: Gemini CLI's calls go to $url (GOOGLE_GEMINI_BASE_URL and the X-Joulehook-Token header in GEMINI_CLI_CUSTOM_HEADERS, in $_gm_envf)"
	_gm_sel=$(jq -r '.security.auth.selectedType // empty' "$_gm_settings")
	case $_gm_sel in
	'')
		json_edit "$_gm_settings" '.security.auth.selectedType = "gemini-api-key"' ||
		    die "cannot edit $_gm_settings"
		: >"$JH_HOME/gemini-cli.authtype"
		say "set security.auth.selectedType to gemini-api-key in $_gm_settings (with a base URL and none selected, Gemini CLI picks gateway, which headless runs refuse); GEMINI_API_KEY is still yours to give"
		;;
	gemini-api-key | gateway) ;;
	*)
		say "warning: $_gm_settings selects $_gm_sel: Gemini CLI then calls Google's endpoints itself, not the base URL, and the meter sees none of its calls; select gemini-api-key to meter them"
		;;
	esac
	say "note: Gemini CLI reads only the first .env it finds from the working directory up (a project's .env or .gemini/.env hides $_gm_envf), only in trusted folders, and never over a variable already set: there its calls go round the meter"
}

# _gm_drop_token HEADERS: the comma-separated headers without ours.
_gm_drop_token() {
	printf '%s' "$1" | tr ',' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' |
	    grep -v -i '^X-Joulehook-Token:' | grep -v '^$' | paste -sd ',' - | sed 's/,/, /g'
}

jh_unbind() {
	_gm_settings="$HOME/.gemini/settings.json"
	_gm_envf="$HOME/.gemini/.env"
	_gm_saved="$JH_HOME/gemini-cli.env.saved"
	if [ -f "$_gm_settings" ]; then
		if jq -e '[.hooks // {} | .[]? | .[]? | .hooks[]? | select(.name == "joulehook")] | length > 0' \
		    "$_gm_settings" >/dev/null 2>&1; then
			json_edit "$_gm_settings" "$_gm_unhook" || die "cannot edit $_gm_settings"
			say "unbound Gemini CLI: removed joulehook's hooks from $_gm_settings"
		fi
		if jq -e '.mcpServers.joulehook' "$_gm_settings" >/dev/null 2>&1; then
			json_edit "$_gm_settings" 'del(.mcpServers.joulehook)
			    | if .mcpServers == {} then del(.mcpServers) else . end' ||
			    die "cannot edit $_gm_settings"
			say "removed the MCP server joulehook from $_gm_settings"
		fi
		if [ -f "$JH_HOME/gemini-cli.authtype" ]; then
			json_edit "$_gm_settings" 'if .security.auth.selectedType == "gemini-api-key"
			    then del(.security.auth.selectedType)
				| if .security.auth == {} then del(.security.auth) else . end
				| if .security == {} then del(.security) else . end
			    else . end' || die "cannot edit $_gm_settings"
			rm -f "$JH_HOME/gemini-cli.authtype"
			say "removed security.auth.selectedType, which jh-install had set, from $_gm_settings"
		fi
	fi
	if [ -f "$_gm_envf" ] && grep -q 'X-Joulehook-Token' "$_gm_envf"; then
		_gm_hdrs=$(sed -n 's/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}GEMINI_CLI_CUSTOM_HEADERS[[:space:]]*=[[:space:]]*//p' "$_gm_envf" | tail -n 1)
		_gm_hdrs=$(_gm_drop_token "$(printf '%s' "$_gm_hdrs" | sed 's/^["'\'']//; s/["'\'']$//')")
		{
			grep -v -E '^[[:space:]]*(export[[:space:]]+)?(GOOGLE_GEMINI_BASE_URL|GEMINI_CLI_CUSTOM_HEADERS)[[:space:]]*=' "$_gm_envf" || :
			[ ! -f "$_gm_saved" ] || cat "$_gm_saved"
			[ -z "$_gm_hdrs" ] || printf 'GEMINI_CLI_CUSTOM_HEADERS="%s"\n' "$_gm_hdrs"
		} >"$_gm_envf.new"
		chmod 600 "$_gm_envf.new"
		mv "$_gm_envf.new" "$_gm_envf"
		if [ -f "$_gm_saved" ]; then
			rm -f "$_gm_saved"
			say "unbound the meter in $_gm_envf and put your GOOGLE_GEMINI_BASE_URL back"
		else
			say "unbound the meter: removed GOOGLE_GEMINI_BASE_URL and the token header from $_gm_envf"
		fi
		[ -s "$_gm_envf" ] || { rm -f "$_gm_envf"; say "removed $_gm_envf, which held nothing else"; }
	fi
	return 0
}
