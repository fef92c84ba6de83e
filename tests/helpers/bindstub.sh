# What scripts/jh-install gives a hosts/HOST/bind.sh (jh-install(1)
# HOSTS): say, die, no, q, json_edit, hooks_keep and hooks_forget, as it
# defines them, for the suites
# that run a binding alone (source it in sh before bind.sh).
PROG=jh-install
say() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 2; }
no() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
json_edit() {
	jf=$1 filter=$2
	shift 2
	mkdir -p "$(dirname "$jf")"
	[ -f "$jf" ] || echo '{}' >"$jf"
	jq "$@" "$filter" "$jf" >"$jf.jh.tmp" || { rm -f "$jf.jh.tmp"; no "$jf is not valid JSON; not touching it"; }
	mv "$jf.jh.tmp" "$jf"
}

# hooks_keep FILE TAG: before a binding first edits FILE, a copy of it as
# it was (JH_HOME/TAG.orig), or a note that joulehook makes it
# (JH_HOME/TAG.made); hooks_before is FILE's canonical JSON, or "none".
hooks_keep() {
	if [ -f "$1" ]; then
		if [ ! -e "$JH_HOME/$2.orig" ] && [ ! -e "$JH_HOME/$2.made" ]; then
			cp -p "$1" "$JH_HOME/$2.orig"
			say "kept a copy of $1 as it was, in $JH_HOME/$2.orig"
		fi
		hooks_before=$(jq -cS . "$1")
	else
		mkdir -p "$(dirname "$1")"
		: >"$JH_HOME/$2.made"
		hooks_before=none
	fi
}

# hooks_forget FILE TAG EMPTY: after unbinding, FILE goes if joulehook
# made it and it is EMPTY (a jq filter), and so does what hooks_keep kept.
hooks_forget() {
	if [ -e "$JH_HOME/$2.made" ]; then
		if [ -f "$1" ] && jq -e "$3" "$1" >/dev/null 2>&1; then
			rm -f "$1"
			say "removed $1, which joulehook had made"
		fi
		rm -f "$JH_HOME/$2.made"
	fi
	if [ -e "$JH_HOME/$2.orig" ]; then
		rm -f "$JH_HOME/$2.orig"
		say "removed $JH_HOME/$2.orig (nothing of it was replaced: its entries are still in $1)"
	fi
}
