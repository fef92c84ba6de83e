# Run the real Claude Code CLI offline against tests/mock/anthropic-mock.py.
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/claude
#   setup()    { _common_setup; claude_install; }
#   teardown() { mock_stop; }
#
#   mock_start "$T/script.json"          # MOCK_URL, MOCK_LOG, MOCK_PID
#   claude_run "do the task" --settings "$T/settings.json" --allowedTools Bash
#   # -> CLAUDE_RC, CLAUDE_OUT (stdout file), CLAUDE_ERR (stderr file), CLAUDE_HOME
#
# claude_install: npm-installs @anthropic-ai/claude-code@$CLAUDE_VERSION once
# into ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/claude-code-$CLAUDE_VERSION
# (reused afterwards) and sets CLAUDE_BIN.  When npm cannot fetch it, the
# calling test is skipped with a loud "SKIPPED: cannot install Claude Code
# from npm: ..." (also printed on fd 3), never failed, never left hanging.
#
# Flags of 2.1.328 that matter here (from `claude --help`):
#   --settings <file-or-json>   extra settings (hooks live here)
#   --allowedTools <tools...>   "Bash Write Edit Read" or "Bash,Read"; see the
#                               note in claude_run about the variadic parse
#   --plugin-dir <path>         "Load a plugin from a directory or .zip for
#                               this session only; a folder of plugins loads
#                               each child (repeatable)" -- works in -p, see
#                               tests/claude-harness.bats (f)
#   --setting-sources, --bare, --safe-mode, --debug-file <path>,
#   --include-hook-events (stream-json only), --session-id <uuid>,
#   --no-session-persistence
#   There is no --plugin-url use offline; `claude plugin ...` manages
#   installed/marketplace plugins and is not needed for a directory.

. "${BASH_SOURCE[0]%/*}/npm.bash"

CLAUDE_VERSION="${CLAUDE_VERSION:-2.1.328}"
# This file is loaded before setup() replaces HOME: npm keeps the user's
# ~/.npmrc (registry, proxy) and ~/.npm cache.
_CLAUDE_NPM_HOME="${_CLAUDE_NPM_HOME:-$HOME}"

claude_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/claude-code-$CLAUDE_VERSION"
	local bin="$dir/node_modules/.bin/claude" v
	# EBADENGINE on node 20 (package wants >=22) is expected and harmless:
	# the package ships a native binary, node only runs its postinstall.
	npm_install_once "Claude Code" claude "$dir" \
	    "@anthropic-ai/claude-code@$CLAUDE_VERSION" "$_CLAUDE_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		CLAUDE_BIN="$NPM_BIN"
		export CLAUDE_BIN
		return 0
	fi
	bin="${NPM_BIN:-$bin}"
	# npm may leave bin/claude.exe as the placeholder when the postinstall
	# (which copies the platform binary over it) did not run; fall back to
	# the platform package's binary then.
	v=$(timeout 30 "$bin" --version </dev/null 2>/dev/null) || true
	if [ "${v%% *}" != "$CLAUDE_VERSION" ]; then
		local alt
		for alt in "$dir"/node_modules/@anthropic-ai/claude-code-linux-*/claude; do
			[ -x "$alt" ] || continue
			v=$(timeout 30 "$alt" --version </dev/null 2>/dev/null) || true
			if [ "${v%% *}" = "$CLAUDE_VERSION" ]; then
				ln -sf "$alt" "$dir/claude" && bin="$dir/claude"
				break
			fi
		done
	fi
	if [ "${v%% *}" != "$CLAUDE_VERSION" ]; then
		npm_fail "Claude Code" claude "installed, but 'claude --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
	CLAUDE_BIN="$bin"
	export CLAUDE_BIN
}

# mock_start SCRIPTFILE [LOGFILE]: the mock on a free port, in its own session.
mock_start() {
	local script="$1" dir="$BATS_TEST_TMPDIR/mock" i port=""
	MOCK_LOG="${2:-$dir/requests.jsonl}"
	mkdir -p "$dir"
	rm -f "$dir/port" "$dir/pid"
	# fd 3 closed: bats waits for every holder of fd 3 before it finishes.
	setsid /usr/bin/python3 "$PROJECT_ROOT/tests/mock/anthropic-mock.py" \
	    --port 0 --port-file "$dir/port" --pid-file "$dir/pid" \
	    --script "$script" --log "$MOCK_LOG" \
	    </dev/null >"$dir/mock.out" 2>&1 3>&- &
	MOCK_PID=$!
	for ((i = 0; i < 100; i++)); do
		if [ -s "$dir/port" ]; then
			port=$(cat "$dir/port")
			curl -sf -o /dev/null -m 2 -I "http://127.0.0.1:$port/" && break
		fi
		kill -0 "$MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$dir/pid" ] && MOCK_PID=$(cat "$dir/pid")
	if ! curl -sf -o /dev/null -m 2 -I "http://127.0.0.1:${port:-0}/"; then
		echo "mock did not start:" >&2
		cat "$dir/mock.out" >&2
		mock_stop
		return 1
	fi
	MOCK_PORT=$port
	MOCK_URL="http://127.0.0.1:$port"
	export MOCK_URL MOCK_LOG MOCK_PORT MOCK_PID
}

mock_stop() {
	[ -n "${MOCK_PID:-}" ] || return 0
	local i
	kill "$MOCK_PID" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$MOCK_PID" 2>/dev/null || true
	wait "$MOCK_PID" 2>/dev/null || true
	MOCK_PID=
	return 0
}

# The JSON bodies of the model calls (POST /v1/messages), one per line.
mock_requests() {
	jq -c 'select(.method=="POST" and (.path|startswith("/v1/messages")) and (.path|contains("count_tokens")|not))' "$MOCK_LOG"
}

# claude_run PROMPT [ARGS...]: `claude -p PROMPT --output-format json ARGS`
# in the current directory, HOME=$CLAUDE_HOME (default: a fresh
# $BATS_TEST_TMPDIR/claude-home), against $MOCK_URL, under timeout 120.
# Sets CLAUDE_RC, CLAUDE_OUT, CLAUDE_ERR; returns 0 (look at CLAUDE_RC) so
# that a failing claude does not abort the test before its output is shown.
#
# --allowedTools is variadic (<tools...>): it swallows the following bare
# words, so pass the tools as ONE argument ("Bash Write") and put it after
# the other options, or end it with another --flag.
claude_run() {
	local prompt="$1"
	shift
	: "${MOCK_URL:?mock_start first}"
	CLAUDE_HOME="${CLAUDE_HOME:-$BATS_TEST_TMPDIR/claude-home}"
	mkdir -p "$CLAUDE_HOME"
	CLAUDE_N=$((${CLAUDE_N:-0} + 1))
	CLAUDE_OUT="$BATS_TEST_TMPDIR/claude.$CLAUDE_N.out"
	CLAUDE_ERR="$BATS_TEST_TMPDIR/claude.$CLAUDE_N.err"
	export CLAUDE_HOME
	CLAUDE_RC=0
	env -u ANTHROPIC_AUTH_TOKEN -u ANTHROPIC_MODEL -u CLAUDE_CONFIG_DIR \
	    -u CLAUDE_CODE_USE_BEDROCK -u CLAUDE_CODE_USE_VERTEX \
	    -u CLAUDE_CODE_USE_FOUNDRY -u CLAUDECODE -u CLAUDE_CODE_ENTRYPOINT \
	    HOME="$CLAUDE_HOME" \
	    ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=sk-test \
	    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
	    DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 120 "$CLAUDE_BIN" -p "$prompt" --output-format json "$@" \
	    </dev/null >"$CLAUDE_OUT" 2>"$CLAUDE_ERR" 3>&- || CLAUDE_RC=$?
	if [ "$CLAUDE_RC" -eq 124 ] || [ "$CLAUDE_RC" -eq 137 ]; then
		echo "claude_run: claude timed out after 120 s (stderr: $CLAUDE_ERR)" >&2
	fi
	export CLAUDE_RC CLAUDE_OUT CLAUDE_ERR
	return 0
}

# On failure, show what claude and the mock did (bats prints test stderr).
claude_dump() {
	echo "--- claude rc=${CLAUDE_RC:-?} stdout:" >&2
	cat "${CLAUDE_OUT:-/dev/null}" >&2 2>/dev/null
	echo "--- claude stderr:" >&2
	cat "${CLAUDE_ERR:-/dev/null}" >&2 2>/dev/null
	echo "--- mock log (paths):" >&2
	jq -c '[.method,.path,.response.status,.response.turn]' "${MOCK_LOG:-/dev/null}" >&2 2>/dev/null
}

# ~/.claude.json keys an *interactive* session needs to start without
# dialogs (observed with Claude Code 2.1.328); -p needs none of them.
claude_home_interactive() {
	local cwd="${1:-$PWD}"
	CLAUDE_HOME="${CLAUDE_HOME:-$BATS_TEST_TMPDIR/claude-home}"
	mkdir -p "$CLAUDE_HOME"
	jq -n --arg cwd "$cwd" '{hasCompletedOnboarding: true,
	    customApiKeyResponses: {approved: ["sk-test"], rejected: []},
	    projects: {($cwd): {hasTrustDialogAccepted: true}}}' >"$CLAUDE_HOME/.claude.json"
}

# jh_bin_snapshot: for setup_file.  The programs are installed from a
# copy of $JH_BIN taken once for the file: a `make` relinking
# build/test/bin while a session runs would let Claude Code start a
# half-written jh-hook, and a hook it cannot run is "proceed" to Claude
# Code (seen here: a denied rm -rf ran).  JH_BIN then names the copy.
jh_bin_snapshot() {
	local root src p
	root="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	src="${JH_BIN:-$root/build/test/bin}"
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	for p in "$src"/jh-*; do
		case $p in *.o | *.d) continue ;; esac
		cp "$p" "$BATS_FILE_TMPDIR/bin/"
	done
	export JH_BIN="$BATS_FILE_TMPDIR/bin"
}

# tmux_claude_stop: the interactive Claude Code started in tmux (socket
# TMUX_SOCK, pane process PANE_PID) gone, its server too; Claude Code
# writes under HOME until it is.
tmux_claude_stop() {
	local i
	if [ -n "${TMUX_SOCK:-}" ]; then
		tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true
	fi
	if [ -n "${PANE_PID:-}" ]; then
		kill "$PANE_PID" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			kill -0 "$PANE_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$PANE_PID" 2>/dev/null || true
	fi
	TMUX_SOCK= PANE_PID=
}
