# shellcheck shell=sh disable=SC2154,SC2016
# hosts/cline/bind.sh: binds the Cline CLI (3.x) to joulehook.
#
# Sourced by jh-install -H cline, which then calls jh_bind (jh_unbind
# with -u).  POSIX sh under set -eu; uses say, die, q, json_edit,
# $bindir, $conf, $JH_HOME, $HOME, $deadline and, with -M, $upstream,
# $url and $token (hosts/cline/README.md says what each part does).
#
# Cline runs, for each hook event, every regular file in ~/.cline/hooks
# whose name is the event's (case-insensitive, with no extension or one
# of .sh .bash .zsh .js .mjs .cjs .ts .mts .cts .py .ps1), one after the
# other in path order, and merges their answers: any {"cancel":true}
# cancels, the last overrideInput wins.  Symbolic links are skipped.
# So joulehook's hook is a regular file of its own beside any hook of
# the user's, never in its place: the user's keeps running, and a
# cancel from either blocks.

_jhc_events="PreToolUse PostToolUse TaskComplete SessionShutdown"
_jhc_mark="# joulehook: written by jh-install -H cline; jh-install -u -H cline removes it"

# _jhc_ours FILE: FILE is a hook file jh-install wrote.
_jhc_ours() {
	[ -f "$1" ] && [ ! -L "$1" ] && grep -qxF "$_jhc_mark" "$1" 2>/dev/null
}

# _jhc_slot DIR EVENT: the path for joulehook's EVENT hook: the one it
# wrote before, else the first free name Cline runs for EVENT.
_jhc_slot() {
	for _jhc_x in "" .sh .bash .zsh; do
		if _jhc_ours "$1/$2$_jhc_x"; then
			printf '%s\n' "$1/$2$_jhc_x"
			return 0
		fi
	done
	for _jhc_x in "" .sh .bash .zsh; do
		if [ ! -e "$1/$2$_jhc_x" ] && [ ! -L "$1/$2$_jhc_x" ]; then
			printf '%s\n' "$1/$2$_jhc_x"
			return 0
		fi
	done
	return 1
}

# _jhc_others DIR EVENT: the user's hook files for EVENT (not ours).
_jhc_others() {
	_jhc_lc=$(printf '%s' "$2" | tr "[:upper:]" "[:lower:]")
	for _jhc_f in "$1"/*; do
		[ -e "$_jhc_f" ] || [ -L "$_jhc_f" ] || continue
		_jhc_n=$(basename "$_jhc_f" | tr "[:upper:]" "[:lower:]")
		case $_jhc_n in
		"$_jhc_lc" | "$_jhc_lc".sh | "$_jhc_lc".bash | "$_jhc_lc".zsh | \
		    "$_jhc_lc".js | "$_jhc_lc".mjs | "$_jhc_lc".cjs | "$_jhc_lc".ts | \
		    "$_jhc_lc".mts | "$_jhc_lc".cts | "$_jhc_lc".py | "$_jhc_lc".ps1) ;;
		*) continue ;;
		esac
		_jhc_ours "$_jhc_f" || printf '%s\n' "$_jhc_f"
	done
}

jh_bind() {
	_jhc_dir="$HOME/.cline/hooks"
	# Cline kills a hook after 120 s (fixed in 3.0.65) and then runs the
	# tool: the gate's own deny must come well before that.
	if [ $((deadline + deadline / 4 + 5000)) -gt 120000 ]; then
		die "the gate's deadline (${deadline} ms) is too long for Cline, which kills a hook at 120 s and then runs the tool; use -d 90000 or less"
	fi
	mkdir -p "$_jhc_dir"
	for _jhc_ev in $_jhc_events; do
		_jhc_p=$(_jhc_slot "$_jhc_dir" "$_jhc_ev") ||
			no "$_jhc_dir has no free name for joulehook's $_jhc_ev hook ($_jhc_ev, $_jhc_ev.sh, $_jhc_ev.bash and $_jhc_ev.zsh are all taken by yours)"
		{
			echo '#!/bin/sh'
			echo "$_jhc_mark"
			echo "# Cline runs this for its $_jhc_ev event; jh-hook answers with the gate's decision."
			echo "exec $(q "$bindir/jh-hook") -c $(q "$conf") -H cline"
		} >"$_jhc_p.jh.new"
		chmod 755 "$_jhc_p.jh.new"
		if cmp -s "$_jhc_p.jh.new" "$_jhc_p" 2>/dev/null; then
			rm -f "$_jhc_p.jh.new"
		else
			mv -f "$_jhc_p.jh.new" "$_jhc_p"
			say "installed Cline's $_jhc_ev hook $_jhc_p (runs $bindir/jh-hook -c $conf -H cline)"
		fi
		_jhc_others "$_jhc_dir" "$_jhc_ev" | while IFS= read -r _jhc_o; do
			say "kept your Cline $_jhc_ev hook $_jhc_o: Cline runs it and joulehook's one after the other, and a cancel from either blocks the call"
		done
	done
	if [ -n "${upstream:-}" ]; then
		_jhc_bind_meter
	fi
}

# With -M: Cline's openai-compatible provider sends its model calls to
# the proxy, with the proxy's client token as a header (the provider
# settings' "headers"); what was there before is kept in
# JH_HOME/cline-provider.saved.json.
_jhc_bind_meter() {
	_jhc_saved="$JH_HOME/cline-provider.saved.json"
	_jhc_pj="$HOME/.cline/data/settings/providers.json"
	mkdir -p "$(dirname "$_jhc_pj")"
	json_edit "$_jhc_pj" '.'
	if [ ! -f "$_jhc_saved" ] && ! jq -e '.providers["openai-compatible"].settings.headers["X-Joulehook-Token"]' "$_jhc_pj" >/dev/null 2>&1; then
		jq '.providers["openai-compatible"] // null' "$_jhc_pj" >"$_jhc_saved.new"
		mv -f "$_jhc_saved.new" "$_jhc_saved"
		chmod 600 "$_jhc_saved"
	fi
	if jq -e --arg u "$url/v1" --arg t "$token" '.providers["openai-compatible"].settings
	    | .baseUrl == $u and .headers["X-Joulehook-Token"] == $t' "$_jhc_pj" >/dev/null 2>&1; then
		:
	else
		json_edit "$_jhc_pj" '.version = (.version // 1)
		    | .providers["openai-compatible"].settings = ((.providers["openai-compatible"].settings // {})
		        + {provider: "openai-compatible", baseUrl: $u})
		    | .providers["openai-compatible"].settings.headers = ((.providers["openai-compatible"].settings.headers // {})
		        + {"X-Joulehook-Token": $t})
		    | .providers["openai-compatible"].updatedAt = (now | todate)' \
		    --arg u "$url/v1" --arg t "$token"
		chmod 600 "$_jhc_pj"
		say "pointed Cline's openai-compatible provider at the meter, $url/v1, with its X-Joulehook-Token header, in $_jhc_pj (the previous entry is kept in $_jhc_saved; -u puts it back)"
	fi
	if ! jq -e '.providers["openai-compatible"].settings.apiKey' "$_jhc_pj" >/dev/null 2>&1; then
		say "warning: Cline's openai-compatible provider has no API key yet: cline auth -p openai-compatible -k KEY -m MODEL -b $url/v1"
	fi
	_jhc_last=$(jq -r '.lastUsedProvider // ""' "$_jhc_pj")
	if [ "$_jhc_last" != openai-compatible ]; then
		say "warning: Cline uses the provider '${_jhc_last:-none}', not openai-compatible: only openai-compatible calls go through the meter (Cline takes a base URL for OpenAI and OpenAI-compatible providers only); switch with cline auth -p openai-compatible"
	fi
}

jh_unbind() {
	_jhc_dir="$HOME/.cline/hooks"
	for _jhc_ev in $_jhc_events; do
		for _jhc_x in "" .sh .bash .zsh; do
			if _jhc_ours "$_jhc_dir/$_jhc_ev$_jhc_x"; then
				rm -f "$_jhc_dir/$_jhc_ev$_jhc_x"
				say "removed Cline's $_jhc_ev hook $_jhc_dir/$_jhc_ev$_jhc_x"
			fi
		done
	done
	_jhc_saved="$JH_HOME/cline-provider.saved.json"
	_jhc_pj="$HOME/.cline/data/settings/providers.json"
	if [ -f "$_jhc_pj" ] && jq -e '.providers["openai-compatible"].settings.headers["X-Joulehook-Token"]' "$_jhc_pj" >/dev/null 2>&1; then
		if [ -f "$_jhc_saved" ]; then
			json_edit "$_jhc_pj" 'if $s == null then del(.providers["openai-compatible"])
			    else .providers["openai-compatible"] = $s end' \
			    --argjson s "$(cat "$_jhc_saved")"
			rm -f "$_jhc_saved"
			say "put Cline's openai-compatible provider back as it was before the meter, in $_jhc_pj"
		else
			json_edit "$_jhc_pj" 'del(.providers["openai-compatible"].settings.headers["X-Joulehook-Token"])'
			say "removed the meter's X-Joulehook-Token header from Cline's openai-compatible provider in $_jhc_pj (its base URL still names the meter: set it with cline auth -b)"
		fi
	fi
}
