# ccusage (npm), the reference that jh-meter transcript's totals are checked
# against (issue 8).
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/ccusage
#   ccusage_install                       # -> CCUSAGE_BIN, or a loud skip
#   ccusage_totals "$CLAUDE_HOME/.claude" # -> [input, output, cache_read,
#                                         #     cache_creation] on stdout
#
# ccusage_install: npm-installs ccusage@$CCUSAGE_VERSION once into
# ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/ccusage-$CCUSAGE_VERSION
# (reused afterwards) and sets CCUSAGE_BIN.  When npm cannot fetch it the
# calling test is skipped with a loud "SKIPPED: cannot install ccusage from
# npm: ..." (also printed on fd 3), never failed, never left hanging.
#
# 20.0.24 is the newest ccusage whose linux-x64 binary is published.  The
# package is a small node wrapper (src/cli.js) around a native binary in
# the optional dependency @ccusage/ccusage-linux-x64 (bin/ccusage, static
# PIE); npm leaves that file mode 0644 and the wrapper chmods it on its
# first run, so the wrapper is what we call.

CCUSAGE_VERSION="${CCUSAGE_VERSION:-20.0.24}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc and
# ~/.npm cache.
_CCUSAGE_NPM_HOME="${_CCUSAGE_NPM_HOME:-$HOME}"

_ccusage_skip() {
	local msg="SKIPPED: cannot install ccusage from npm: $*"
	echo "# $msg" >&3 2>/dev/null || true
	echo "$msg" >&2
	skip "$msg"
}

# ccusage_version BIN: what `BIN --version` says ("ccusage 20.0.24").
_ccusage_version() {
	timeout 30 env -i PATH="$PATH" HOME="${BATS_TEST_TMPDIR:-/tmp}" \
	    "$1" --version </dev/null 2>/dev/null
}

ccusage_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/ccusage-$CCUSAGE_VERSION"
	local bin="$dir/node_modules/.bin/ccusage"
	local stamp="$dir/.verified"
	local log="$dir/npm-install.log" rc=0 v
	# One failed attempt per bats run: later tests skip at once.
	local failed="${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/ccusage-install-failed"
	# the stamp holds the verified wrapper's path
	if [ -f "$stamp" ] && v=$(cat "$stamp") && [ -x "$v" ]; then
		CCUSAGE_BIN="$v"
		export CCUSAGE_BIN
		return 0
	fi
	[ -f "$failed" ] && _ccusage_skip "$(cat "$failed") (not retried in this run)"
	command -v npm >/dev/null 2>&1 || _ccusage_skip "npm is not installed"
	mkdir -p "$dir" || _ccusage_skip "cannot create $dir"
	# Several suites (bats -j) may install at once: one npm at a time.
	(
		flock -w 400 9 || exit 99
		[ -f "$stamp" ] && [ -x "$(cat "$stamp")" ] && exit 0
		HOME="$_CCUSAGE_NPM_HOME" timeout -k 10 300 npm install --prefix "$dir" \
		    --no-audit --no-fund --no-save --fetch-retries=1 --fetch-timeout=60000 \
		    "ccusage@$CCUSAGE_VERSION" >"$log" 2>&1
	) 9>"$dir/.lock" </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		case $rc in
		124 | 137) v="npm install timed out after 300 s (log: $log)" ;;
		99) v="timed out waiting for another install (lock $dir/.lock)" ;;
		*) v="npm install exited $rc: $(grep -m1 -iE 'npm error|ERR!' "$log" 2>/dev/null || tail -n1 "$log" 2>/dev/null) (log: $log)" ;;
		esac
		echo "$v" >"$failed"
		_ccusage_skip "$v"
	fi
	[ -f "$stamp" ] && [ -x "$(cat "$stamp")" ] && bin=$(cat "$stamp")
	v=$(_ccusage_version "$bin") || true
	if [ "$v" != "ccusage $CCUSAGE_VERSION" ]; then
		# the optional native package missing (npm skips an optional
		# dependency it cannot fetch) shows up here
		v="installed, but 'ccusage --version' says '${v:-nothing}' (log: $log)"
		echo "$v" >"$failed"
		_ccusage_skip "$v"
	fi
	echo "$bin" >"$stamp"
	CCUSAGE_BIN="$bin"
	export CCUSAGE_BIN
}

# ccusage_json CONFIGDIR REPORT...: `ccusage claude REPORT --json --offline`
# over the transcripts under CONFIGDIR/projects only: a clean environment
# with HOME an empty folder (no ~/.config/claude, no ~/.claude), the
# working directory an empty folder (no ccusage.json auto-discovered),
# CLAUDE_CONFIG_DIR=CONFIGDIR, --offline (never fetches prices; the mock's
# model has none, so costs are 0 and beside the point), TZ=UTC.
ccusage_json() {
	local cfg="$1" d="$BATS_TEST_TMPDIR/ccusage-run"
	shift
	: "${CCUSAGE_BIN:?ccusage_install first}"
	mkdir -p "$d/home" "$d/cwd"
	(cd "$d/cwd" && env -i PATH="$PATH" HOME="$d/home" TZ=UTC NO_COLOR=1 \
	    CLAUDE_CONFIG_DIR="$cfg" \
	    timeout 60 "$CCUSAGE_BIN" claude "$@" --json --offline </dev/null)
}

# ccusage_totals CONFIGDIR: ccusage's session report totals as
# [input, output, cache_read, cache_creation].
ccusage_totals() {
	ccusage_json "$1" session | jq -ce '.totals |
	    [.inputTokens, .outputTokens, .cacheReadTokens, .cacheCreationTokens]'
}
