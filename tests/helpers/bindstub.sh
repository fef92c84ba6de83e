# What scripts/jh-install gives a hosts/HOST/bind.sh (jh-install(1)
# HOSTS): say, die, q and json_edit, as it defines them, for the suites
# that run a binding alone (source it in sh before bind.sh).
PROG=jh-install
say() { printf '%s: %s\n' "$PROG" "$*"; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
json_edit() {
	jf=$1 filter=$2
	shift 2
	mkdir -p "$(dirname "$jf")"
	[ -f "$jf" ] || echo '{}' >"$jf"
	jq "$@" "$filter" "$jf" >"$jf.jh.tmp" || { rm -f "$jf.jh.tmp"; die "$jf is not valid JSON; not touching it"; }
	mv "$jf.jh.tmp" "$jf"
}
