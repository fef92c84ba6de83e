# npm packages the suites run (helpers/claude.bash, helpers/ccusage.bash):
# installed once, reused afterwards, and a loud skip -- never a failure,
# never a hang -- when npm cannot fetch them.
#
#   npm_install_once WHAT TAG DIR SPEC NPMHOME
#
# WHAT names the package in the skip ("SKIPPED: cannot install WHAT from
# npm: ...", also printed on fd 3); TAG names this bats run's failure
# marker, ${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/TAG-install-failed, so one
# failed attempt makes later tests skip at once.  SPEC is npm-installed
# into DIR with HOME=NPMHOME (the user's ~/.npmrc and ~/.npm cache).
#
# DIR/.verified holds the path of the binary the caller verified.  When
# it names one, NPM_DONE=1 and NPM_BIN is that path.  Otherwise npm
# installs SPEC (one npm at a time, as suites may run at once), NPM_DONE=0
# and NPM_BIN is what DIR/.verified names by then (another suite may have
# verified it meanwhile) or empty; the caller checks the binary, writes
# DIR/.verified, or gives up with npm_fail.

# npm_skip WHAT MSG...: the loud skip; bats shows the reason in the TAP
# line and fd 3 makes it visible even with a pretty formatter.
npm_skip() {
	local msg="SKIPPED: cannot install $1 from npm: ${*:2}"
	echo "# $msg" >&3 2>/dev/null || true
	echo "$msg" >&2
	skip "$msg"
}

_npm_failed() {
	echo "${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/$1-install-failed"
}

# npm_fail WHAT TAG MSG: remembers the failure for this run, then skips.
npm_fail() {
	echo "$3" >"$(_npm_failed "$2")"
	npm_skip "$1" "$3"
}

npm_install_once() {
	local what="$1" tag="$2" dir="$3" spec="$4" home="$5"
	local stamp="$dir/.verified" log="$dir/npm-install.log" rc=0 v
	local failed
	failed=$(_npm_failed "$tag")
	NPM_DONE=0 NPM_BIN=
	if [ -f "$stamp" ] && v=$(cat "$stamp") && [ -x "$v" ]; then
		NPM_DONE=1 NPM_BIN="$v"
		return 0
	fi
	[ -f "$failed" ] && npm_skip "$what" "$(cat "$failed") (not retried in this run)"
	command -v npm >/dev/null 2>&1 || npm_skip "$what" "npm is not installed"
	mkdir -p "$dir" || npm_skip "$what" "cannot create $dir"
	(
		flock -w 400 9 || exit 99
		[ -f "$stamp" ] && [ -x "$(cat "$stamp")" ] && exit 0
		HOME="$home" timeout -k 10 300 npm install --prefix "$dir" \
		    --no-audit --no-fund --no-save --fetch-retries=1 --fetch-timeout=60000 \
		    "$spec" >"$log" 2>&1
	) 9>"$dir/.lock" </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		case $rc in
		124 | 137) v="npm install timed out after 300 s (log: $log)" ;;
		99) v="timed out waiting for another install (lock $dir/.lock)" ;;
		*) v="npm install exited $rc: $(grep -m1 -iE 'npm error|ERR!' "$log" 2>/dev/null || tail -n1 "$log" 2>/dev/null) (log: $log)" ;;
		esac
		npm_fail "$what" "$tag" "$v"
	fi
	if [ -f "$stamp" ] && [ -x "$(cat "$stamp")" ]; then
		NPM_BIN=$(cat "$stamp")
	fi
	return 0
}
