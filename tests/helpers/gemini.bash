# Run the real Gemini CLI offline against tests/mock/gemini-mock.py.
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/gemini
#   setup()    { _common_setup; gemini_install; }
#   teardown() { gemini_mock_stop; }
#
#   gemini_mock_start "$T/script.json"   # GEMINI_MOCK_URL, GEMINI_MOCK_LOG, GEMINI_MOCK_PID
#   gemini_home                          # HOME's ~/.gemini/settings.json for headless runs
#   gemini_run "do the task"
#   # -> GEMINI_RC, GEMINI_OUT (stdout file), GEMINI_ERR (stderr file)
#
# gemini_install: npm-installs @google/gemini-cli@$GEMINI_VERSION once into
# ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/gemini-cli-$GEMINI_VERSION
# (reused afterwards) and sets GEMINI_BIN.  When npm cannot fetch it, the
# calling test is skipped with a loud "SKIPPED: cannot install Gemini CLI
# from npm: ..." (also printed on fd 3), never failed, never left hanging.
#
# What a headless run of 0.61.0 needs against a local base URL (observed):
#   security.auth.selectedType "gemini-api-key": without it
#       GOOGLE_GEMINI_BASE_URL selects the "gateway" auth type, which
#       headless refuses ("Invalid auth method selected.", exit 41);
#   GEMINI_CLI_TRUST_WORKSPACE=true: an untrusted folder forces the
#       approval mode back to "default";
#   --approval-mode yolo: in "default", headless registers only read-only
#       tools, so run_shell_command is "not found" and BeforeTool never
#       fires;
#   hook timeouts are in milliseconds.

. "${BASH_SOURCE[0]%/*}/npm.bash"

GEMINI_VERSION="${GEMINI_VERSION:-0.61.0}"
GEMINI_MODEL="${GEMINI_MODEL:-gemini-2.5-pro}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc.
_GEMINI_NPM_HOME="${_GEMINI_NPM_HOME:-$HOME}"

gemini_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/gemini-cli-$GEMINI_VERSION"
	local bin="$dir/node_modules/.bin/gemini" v
	# keytar and node-pty install scripts are not run (npm's allowScripts
	# warning): Gemini CLI works without them, headless.
	npm_install_once "Gemini CLI" gemini "$dir" \
	    "@google/gemini-cli@$GEMINI_VERSION" "$_GEMINI_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		GEMINI_BIN="$NPM_BIN"
		export GEMINI_BIN
		return 0
	fi
	bin="${NPM_BIN:-$bin}"
	v=$(HOME="$BATS_TEST_TMPDIR" timeout 60 "$bin" --version </dev/null 2>/dev/null) || true
	if [ "$v" != "$GEMINI_VERSION" ]; then
		npm_fail "Gemini CLI" gemini "installed, but 'gemini --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
	GEMINI_BIN="$bin"
	export GEMINI_BIN
}

# gemini_mock_start SCRIPTFILE: the mock on a free port, in its own session.
gemini_mock_start() {
	local dir="$BATS_TEST_TMPDIR/gmock" i port=""
	GEMINI_MOCK_LOG="$dir/requests.jsonl"
	mkdir -p "$dir"
	rm -f "$dir/port" "$dir/pid"
	# fd 3 closed: bats waits for every holder of fd 3 before it finishes.
	setsid /usr/bin/python3 "$PROJECT_ROOT/tests/mock/gemini-mock.py" \
	    --port 0 --port-file "$dir/port" --pid-file "$dir/pid" \
	    --script "$1" --log "$GEMINI_MOCK_LOG" \
	    </dev/null >"$dir/mock.out" 2>&1 3>&- &
	GEMINI_MOCK_PID=$!
	for ((i = 0; i < 100; i++)); do
		if [ -s "$dir/port" ]; then
			port=$(cat "$dir/port")
			curl -sf -o /dev/null -m 2 -I "http://127.0.0.1:$port/" && break
		fi
		kill -0 "$GEMINI_MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$dir/pid" ] && GEMINI_MOCK_PID=$(cat "$dir/pid")
	if ! curl -sf -o /dev/null -m 2 -I "http://127.0.0.1:${port:-0}/"; then
		echo "gemini mock did not start:" >&2
		cat "$dir/mock.out" >&2
		gemini_mock_stop
		return 1
	fi
	GEMINI_MOCK_URL="http://127.0.0.1:$port"
	export GEMINI_MOCK_URL GEMINI_MOCK_LOG GEMINI_MOCK_PID
}

gemini_mock_stop() {
	[ -n "${GEMINI_MOCK_PID:-}" ] || return 0
	local i
	kill "$GEMINI_MOCK_PID" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$GEMINI_MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$GEMINI_MOCK_PID" 2>/dev/null || true
	wait "$GEMINI_MOCK_PID" 2>/dev/null || true
	GEMINI_MOCK_PID=
	return 0
}

# The model calls the mock answered from the script (not Gemini CLI's
# own JSON side questions), one JSON line each.
gemini_requests() {
	jq -c 'select(.method == "POST" and (.path | contains("GenerateContent") or contains("generateContent")) and (.response.side | not))' "$GEMINI_MOCK_LOG"
}

# gemini_home [JQ-FILTER]: GEMINI_HOME (default $HOME) gets the settings a
# headless run needs, merged into ~/.gemini/settings.json (what jh-install
# wrote there is kept); the filter, if any, is applied last.
gemini_home() {
	GEMINI_HOME="${GEMINI_HOME:-$HOME}"
	local f="$GEMINI_HOME/.gemini/settings.json"
	mkdir -p "$GEMINI_HOME/.gemini"
	[ -s "$f" ] || echo '{}' >"$f"
	jq "${1:-.}" >"$f.new" <<-EOF
	$(jq '. * {security: {auth: {selectedType: "gemini-api-key"}},
	    privacy: {usageStatisticsEnabled: false}, telemetry: {enabled: false},
	    general: {disableAutoUpdate: true, disableUpdateNag: true}}' "$f")
	EOF
	mv "$f.new" "$f"
	export GEMINI_HOME
}

# gemini_run PROMPT [ARGS...]: `gemini -p PROMPT -m $GEMINI_MODEL -o json
# --approval-mode yolo ARGS` in the current directory with HOME=$GEMINI_HOME,
# against $GEMINI_BASE_URL (default the mock; GEMINI_BASE_URL=none leaves
# it to ~/.gemini/.env), under timeout 90.  Sets GEMINI_RC, GEMINI_OUT,
# GEMINI_ERR; returns 0 (look at GEMINI_RC).
gemini_run() {
	local prompt="$1" base="${GEMINI_BASE_URL:-${GEMINI_MOCK_URL:-}}"
	local -a envs=()
	shift
	GEMINI_HOME="${GEMINI_HOME:-$HOME}"
	GEMINI_N=$((${GEMINI_N:-0} + 1))
	GEMINI_OUT="$BATS_TEST_TMPDIR/gemini.$GEMINI_N.out"
	GEMINI_ERR="$BATS_TEST_TMPDIR/gemini.$GEMINI_N.err"
	[ "$base" = none ] || envs+=("GOOGLE_GEMINI_BASE_URL=$base")
	[ -z "${GEMINI_HEADERS:-}" ] || envs+=("GEMINI_CLI_CUSTOM_HEADERS=$GEMINI_HEADERS")
	GEMINI_RC=0
	env -u GOOGLE_API_KEY -u GOOGLE_GENAI_USE_VERTEXAI -u GOOGLE_CLOUD_PROJECT \
	    -u GOOGLE_CLOUD_LOCATION -u GOOGLE_GEMINI_BASE_URL -u GEMINI_MODEL \
	    -u GEMINI_CLI_CUSTOM_HEADERS -u GEMINI_SANDBOX -u GEMINI_CLI_HOME \
	    HOME="$GEMINI_HOME" GEMINI_API_KEY="${GEMINI_API_KEY:-test-key}" \
	    GEMINI_CLI_TRUST_WORKSPACE=true NO_COLOR=1 \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    "${envs[@]}" \
	    timeout -k 5 90 "$GEMINI_BIN" -p "$prompt" -m "$GEMINI_MODEL" -o json \
	    --approval-mode yolo "$@" \
	    </dev/null >"$GEMINI_OUT" 2>"$GEMINI_ERR" 3>&- || GEMINI_RC=$?
	if [ "$GEMINI_RC" -eq 124 ] || [ "$GEMINI_RC" -eq 137 ]; then
		echo "gemini_run: gemini timed out after 90 s (stderr: $GEMINI_ERR)" >&2
	fi
	export GEMINI_RC GEMINI_OUT GEMINI_ERR
	return 0
}

# gemini_json FILTER: FILTER applied to the JSON document gemini -o json
# wrote first.  Under load, a line of text has been seen after it (CI,
# ASan build); that text is shown on fd 3 rather than failing the parse.
gemini_json() {
	if ! jq . "$GEMINI_OUT" >/dev/null 2>&1; then
		echo "# gemini's stdout holds more than its JSON: ...$(tail -c 160 "$GEMINI_OUT" | tr '\n' ' ')" >&3
	fi
	jq -n -r "input | $1" "$GEMINI_OUT"
}

# On failure, show what gemini and the mock did (bats prints test stderr).
gemini_dump() {
	echo "--- gemini rc=${GEMINI_RC:-?} stdout:" >&2
	cat "${GEMINI_OUT:-/dev/null}" >&2 2>/dev/null
	echo "--- gemini stderr:" >&2
	tail -n 40 "${GEMINI_ERR:-/dev/null}" >&2 2>/dev/null
	echo "--- mock log:" >&2
	jq -c '[.method, .path, .response.status, .response.turn, .response.function_calls]' \
	    "${GEMINI_MOCK_LOG:-/dev/null}" >&2 2>/dev/null
}

# The functionResponse parts the model was sent, one JSON line each:
# {name, response}.
gemini_function_responses() {
	jq -c '.body.contents[]?.parts[]? | select(.functionResponse) | .functionResponse' \
	    "$GEMINI_MOCK_LOG" 2>/dev/null
}
