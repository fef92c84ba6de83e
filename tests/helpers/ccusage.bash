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

. "${BASH_SOURCE[0]%/*}/npm.bash"

CCUSAGE_VERSION="${CCUSAGE_VERSION:-20.0.24}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc and
# ~/.npm cache.
_CCUSAGE_NPM_HOME="${_CCUSAGE_NPM_HOME:-$HOME}"

# ccusage_version BIN: what `BIN --version` says ("ccusage 20.0.24").
_ccusage_version() {
	timeout 30 env -i PATH="$PATH" HOME="${BATS_TEST_TMPDIR:-/tmp}" \
	    "$1" --version </dev/null 2>/dev/null
}

ccusage_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/ccusage-$CCUSAGE_VERSION"
	local bin="$dir/node_modules/.bin/ccusage" v
	npm_install_once ccusage ccusage "$dir" "ccusage@$CCUSAGE_VERSION" \
	    "$_CCUSAGE_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		CCUSAGE_BIN="$NPM_BIN"
		export CCUSAGE_BIN
		return 0
	fi
	bin="${NPM_BIN:-$bin}"
	v=$(_ccusage_version "$bin") || true
	if [ "$v" != "ccusage $CCUSAGE_VERSION" ]; then
		# the optional native package missing (npm skips an optional
		# dependency it cannot fetch) shows up here
		npm_fail ccusage ccusage "installed, but 'ccusage --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
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
