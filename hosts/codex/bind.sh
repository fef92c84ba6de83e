# hosts/codex/bind.sh: bind joulehook to Codex CLI (0.171.0), sourced by
# jh-install -H codex, which calls jh_bind (jh_unbind with -u).
#
# It edits, in CODEX_HOME (default ~/.codex; Codex resolves it to its real
# path, and so does this file):
#  - hooks.json: one joulehook group for PreToolUse (matcher "*"),
#    PostToolUse (matcher "*"), Stop and SessionEnd, each running
#    '$bindir/jh-hook' -c '$conf' -H codex; the user's other groups are
#    kept where they are (a group's position is part of its trust key);
#  - config.toml: a block between "# >>> joulehook" and "# <<< joulehook"
#    holding the trust Codex records for these hooks
#    ([hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash,
#    the sha256 of the hook's normalized identity, as the /hooks review
#    writes it), the receipt MCP server ([mcp_servers.joulehook]) and,
#    with -M, the metered provider ([model_providers.joulehook]);
#  - with -M, the profile file joulehook.config.toml (model_provider =
#    "joulehook"), which `codex -p joulehook` layers on top: the user's
#    default provider is not changed.
# No TOML tool is assumed: the block is written whole and removed whole;
# a table the user already defines outside it is refused, not merged.
#
# Uses from jh-install: say, die, q, json_edit, $bindir, $conf, $deadline,
# $HOME, $JH_HOME, and with -M $url and $token.

_jh_cx_mark_begin='# >>> joulehook'
_jh_cx_mark_end='# <<< joulehook'
_jh_cx_events='PreToolUse PostToolUse Stop SessionEnd'

# Codex's CODEX_HOME, made and resolved as Codex resolves it (realpath):
# the trust keys name hooks.json by that path.
_jh_cx_home() {
	_jh_cx_dir=${CODEX_HOME:-$HOME/.codex}
	mkdir -p "$_jh_cx_dir" || die "cannot create $_jh_cx_dir"
	_jh_cx_dir=$(cd "$_jh_cx_dir" && pwd -P) || die "cannot resolve $_jh_cx_dir"
	_jh_cx_hooks=$_jh_cx_dir/hooks.json
	_jh_cx_toml=$_jh_cx_dir/config.toml
	_jh_cx_profile=$_jh_cx_dir/joulehook.config.toml
}

# The event's label in a trust key: PreToolUse -> pre_tool_use.
_jh_cx_label() {
	printf '%s' "$1" | sed 's/\([a-z]\)\([A-Z]\)/\1_\2/g' | tr 'A-Z' 'a-z'
}

# config.toml without our block (on stdout).  Our tables carry "# joulehook"
# on their header line; a table Codex itself put inside the block (it
# edits config.toml when you trust another hook in /hooks) is kept.
_jh_cx_strip() {
	[ -f "$1" ] || return 0
	awk -v b="$_jh_cx_mark_begin" -v e="$_jh_cx_mark_end" '
	    index($0, b) == 1 { inb = 1; keep = 0; next }
	    inb && index($0, e) == 1 { inb = 0; next }
	    inb && /^[ \t]*\[/ { keep = ($0 !~ /\][ \t]*# joulehook[ \t]*$/) }
	    !inb || keep { print }' "$1"
}

# The hooks.json filter: our group per event replaced where it is, or
# appended; groups of the user's untouched.
_jh_cx_hooks_filter='
def ours: [(.hooks // [])[] | (.command? // "") | test("jh-hook'"'"' -c .* -H codex$")] | any;
reduce ($events | split(" "))[] as $e (.;
    ({type: "command", command: $cmd,
      timeout: (if $e == "SessionEnd" then ([$t, 3] | min) else $t end)}) as $h
    | (if $e == "PreToolUse" or $e == "PostToolUse" then {matcher: "*", hooks: [$h]}
       else {hooks: [$h]} end) as $g
    | .hooks[$e] = ((.hooks[$e] // []) as $gs
        | if ($gs | map(ours) | any) then $gs | map(if ours then $g else . end)
          else $gs + [$g] end))'

# The trust entries for every joulehook handler in hooks.json, as TOML.
# The hash is Codex's: "sha256:" + hex sha256 of the compact, key-sorted
# JSON of {event_name, matcher (where the event has one), hooks: [the
# handler with timeout and async filled in]} (codex-rs hooks discovery,
# command_hook_hash; checked against 0.171.0 by tests/codex.bats).
_jh_cx_trust() {
	jq -r --arg cmd "$1" --arg events "$_jh_cx_events" '
	    .hooks as $all | ($events | split(" "))[] as $e
	    | ($all[$e] // []) | to_entries[] | .key as $gi | .value as $g
	    | ($g.hooks // []) | to_entries[] | select(.value.command == $cmd)
	    | [$e, ($gi | tostring), (.key | tostring),
	       ({event_name: "@LABEL@",
	         hooks: [{type: "command", command: .value.command,
	                  timeout: ((.value.timeout // 600) | if . < 1 then 1 else . end),
	                  async: (.value.async // false)}]}
	        + (if $g.matcher != null and ($e == "PreToolUse" or $e == "PostToolUse")
	           then {matcher: $g.matcher} else {} end) | tojson)] | @tsv' "$_jh_cx_hooks" |
	while IFS='	' read -r ev gi hi ident; do
		lab=$(_jh_cx_label "$ev")
		hash=$(printf '%s' "$ident" | jq -cS --arg l "$lab" '.event_name = $l' |
		    tr -d '\n' | sha256sum | cut -c1-64)
		printf '[hooks.state.%s] # joulehook\ntrusted_hash = "sha256:%s"\n' \
		    "$(jq -nr --arg k "$_jh_cx_hooks:$lab:$gi:$hi" '$k | tojson')" "$hash"
	done
}

jh_bind() {
	_jh_cx_home
	command -v jq >/dev/null || die "jq is needed to edit $_jh_cx_hooks"
	[ -x "$bindir/jh-hook" ] || die "no $bindir/jh-hook"
	_jh_cx_cmd="$(q "$bindir/jh-hook") -c $(q "$conf") -H codex"
	# Codex kills a hook at its timeout and then runs the tool: the
	# timeout must outlast the gate's deadline, which answers deny.
	_jh_cx_t=$(( (deadline + deadline / 4) / 1000 + 5 ))

	# The tables of our block must not be the user's too: TOML forbids a
	# table defined twice, and Codex would not start.
	_jh_cx_strip "$_jh_cx_toml" >"$_jh_cx_toml.jh.rest" ||
	    die "cannot read $_jh_cx_toml"
	for _jh_cx_tab in mcp_servers model_providers; do
		if grep -Eq "^[[:space:]]*\[[[:space:]]*$_jh_cx_tab[[:space:]]*\.[[:space:]]*\"?joulehook\"?[[:space:]]*[].]" \
		    "$_jh_cx_toml.jh.rest"; then
			rm -f "$_jh_cx_toml.jh.rest"
			no "$_jh_cx_toml already defines [$_jh_cx_tab.joulehook] outside joulehook's block; rename or remove it and run again"
		fi
	done

	_jh_cx_before=$(cat "$_jh_cx_hooks" 2>/dev/null || :)
	json_edit "$_jh_cx_hooks" "$_jh_cx_hooks_filter" \
	    --arg cmd "$_jh_cx_cmd" --argjson t "$_jh_cx_t" --arg events "$_jh_cx_events"
	[ "$_jh_cx_before" = "$(cat "$_jh_cx_hooks")" ] ||
	    say "bound Codex's PreToolUse, PostToolUse, Stop and SessionEnd hooks to $bindir/jh-hook -H codex in $_jh_cx_hooks (timeout ${_jh_cx_t}s; SessionEnd 3s, Codex's most)"
	_jh_cx_trust "$_jh_cx_cmd" >"$_jh_cx_toml.jh.trust"
	# A trust entry for one of these hooks that /hooks wrote outside the
	# block (Codex's own record of the same thing) gives way to ours.
	sed -n 's/^\(\[hooks\.state\.".*"\]\) # joulehook$/\1/p' "$_jh_cx_toml.jh.trust" >"$_jh_cx_toml.jh.keys"
	if [ -s "$_jh_cx_toml.jh.keys" ] && grep -qxFf "$_jh_cx_toml.jh.keys" "$_jh_cx_toml.jh.rest"; then
		awk 'NR == FNR { k[$0] = 1; next }
		    /^[ \t]*\[/ { drop = ($0 in k) }
		    !drop { print }' "$_jh_cx_toml.jh.keys" "$_jh_cx_toml.jh.rest" >"$_jh_cx_toml.jh.rest2"
		mv "$_jh_cx_toml.jh.rest2" "$_jh_cx_toml.jh.rest"
		say "replaced the trust Codex had recorded for joulehook's hooks outside the block in $_jh_cx_toml"
	fi
	rm -f "$_jh_cx_toml.jh.keys"

	{
		printf '%s (written by jh-install -H codex; jh-install -u -H codex takes it out)\n' "$_jh_cx_mark_begin"
		printf '# The trust Codex records for joulehook'"'"'s hooks (what /hooks writes\n'
		printf '# when you trust them): without it Codex skips them without a word.\n'
		cat "$_jh_cx_toml.jh.trust"
		if [ -x "$bindir/jh-status" ]; then
			printf '\n# The receipt MCP server.\n[mcp_servers.joulehook] # joulehook\n'
			printf 'command = %s\n' "$(jq -nr --arg v "$bindir/jh-status" '$v | tojson')"
			printf 'args = %s\n' "$(jq -nc --arg c "$conf" '["-c", $c, "-m"]')"
			printf 'env = { LD_PRELOAD = "", LD_AUDIT = "", LD_LIBRARY_PATH = "" }\n'
		fi
		if [ -n "${url:-}" ]; then
			printf '\n# The metered provider (jh-proxy in front of %s);\n' "${upstream:-the provider}"
			printf '# codex -p joulehook selects it (joulehook.config.toml).\n'
			printf '[model_providers.joulehook] # joulehook\nname = "joulehook"\n'
			printf 'base_url = %s\n' "$(jq -nr --arg v "$url/v1" '$v | tojson')"
			printf 'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
			printf 'http_headers = { "X-Joulehook-Token" = %s }\n' "$(jq -nr --arg v "$token" '$v | tojson')"
		fi
		printf '%s\n' "$_jh_cx_mark_end"
	} >"$_jh_cx_toml.jh.block" || die "cannot write $_jh_cx_toml.jh.block"
	grep -q '^\[hooks\.state\.' "$_jh_cx_toml.jh.block" ||
	    die "found no joulehook hook in $_jh_cx_hooks to trust"
	{
		cat "$_jh_cx_toml.jh.rest"
		# a blank line between the user's last line and the block
		[ -s "$_jh_cx_toml.jh.rest" ] && [ -n "$(tail -n1 "$_jh_cx_toml.jh.rest")" ] && echo
		cat "$_jh_cx_toml.jh.block"
	} >"$_jh_cx_toml.jh.new"
	rm -f "$_jh_cx_toml.jh.rest" "$_jh_cx_toml.jh.block" "$_jh_cx_toml.jh.trust"
	if cmp -s "$_jh_cx_toml.jh.new" "$_jh_cx_toml"; then
		rm -f "$_jh_cx_toml.jh.new"
	else
		if [ -f "$_jh_cx_toml" ] && [ ! -f "$JH_HOME/codex-config.toml.saved" ] &&
		    ! grep -q "^$_jh_cx_mark_begin" "$_jh_cx_toml"; then
			cp "$_jh_cx_toml" "$JH_HOME/codex-config.toml.saved"
			say "kept a copy of $_jh_cx_toml as it was in $JH_HOME/codex-config.toml.saved"
		fi
		[ -f "$_jh_cx_toml" ] && { chmod --reference="$_jh_cx_toml" "$_jh_cx_toml.jh.new" 2>/dev/null || :; }
		mv "$_jh_cx_toml.jh.new" "$_jh_cx_toml"
		say "recorded Codex's trust for joulehook's hooks in $_jh_cx_toml (the hashes /hooks would record; Codex runs them without --dangerously-bypass-hook-trust)"
		[ -x "$bindir/jh-status" ] &&
		    say "registered the receipt MCP server in $_jh_cx_toml: [mcp_servers.joulehook] $bindir/jh-status -c $conf -m"
	fi

	if [ -n "${url:-}" ]; then
		if [ -f "$_jh_cx_profile" ] && ! grep -q "^$_jh_cx_mark_begin" "$_jh_cx_profile"; then
			no "$_jh_cx_profile is not joulehook's; not touching it"
		fi
		printf '%s (written by jh-install -H codex -M; -u takes it out)\nmodel_provider = "joulehook"\n%s\n' \
		    "$_jh_cx_mark_begin" "$_jh_cx_mark_end" >"$_jh_cx_profile.new"
		if cmp -s "$_jh_cx_profile.new" "$_jh_cx_profile"; then
			rm -f "$_jh_cx_profile.new"
		else
			mv "$_jh_cx_profile.new" "$_jh_cx_profile"
			say "wrote the profile $_jh_cx_profile"
		fi
		say "bound the meter for Codex: [model_providers.joulehook] sends to $url/v1 with the token header; your default provider is unchanged: run codex -p joulehook to go through the meter (it reads your key from OPENAI_API_KEY; a ChatGPT sign-in is not metered)"
	fi
	say "check it took: in codex, /hooks lists joulehook's hooks as trusted; a command your grant denies is blocked with \"Command blocked by PreToolUse hook: joulehook: ...\""
	say "if you move or remove a hook listed before joulehook's in $_jh_cx_hooks, its trust key changes and Codex skips it silently: run jh-install -H codex again"
}

jh_unbind() {
	_jh_cx_home
	if [ -f "$_jh_cx_hooks" ]; then
		json_edit "$_jh_cx_hooks" '
		    def ours: [(.hooks // [])[] | (.command? // "") | test("jh-hook'"'"' -c .* -H codex$")] | any;
		    if .hooks then .hooks |= (with_entries(.value |= map(select(ours | not)))
		        | with_entries(select(.value != []))) else . end
		    | if .hooks == {} then del(.hooks) else . end'
		if jq -e '. == {}' "$_jh_cx_hooks" >/dev/null 2>&1; then
			rm -f "$_jh_cx_hooks"
			say "removed $_jh_cx_hooks (it held joulehook's hooks only)"
		else
			say "took joulehook's hooks out of $_jh_cx_hooks"
		fi
	fi
	if [ -f "$_jh_cx_toml" ] && grep -q "^$_jh_cx_mark_begin" "$_jh_cx_toml"; then
		_jh_cx_strip "$_jh_cx_toml" >"$_jh_cx_toml.jh.new" || die "cannot read $_jh_cx_toml"
		# the blank line jh_bind put before the block
		if [ -s "$_jh_cx_toml.jh.new" ] && [ -z "$(tail -n1 "$_jh_cx_toml.jh.new")" ]; then
			sed '$d' "$_jh_cx_toml.jh.new" >"$_jh_cx_toml.jh.new2" &&
			    mv "$_jh_cx_toml.jh.new2" "$_jh_cx_toml.jh.new"
		fi
		chmod --reference="$_jh_cx_toml" "$_jh_cx_toml.jh.new" 2>/dev/null || :
		mv "$_jh_cx_toml.jh.new" "$_jh_cx_toml"
		say "took joulehook's block (hook trust, MCP server, metered provider) out of $_jh_cx_toml"
	fi
	if [ -f "$_jh_cx_profile" ] && grep -q "^$_jh_cx_mark_begin" "$_jh_cx_profile"; then
		rm -f "$_jh_cx_profile"
		say "removed the profile $_jh_cx_profile"
	fi
	rm -f "$JH_HOME/codex-config.toml.saved"
}
