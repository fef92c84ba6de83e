# Run the real Codex CLI offline against tests/mock/openai-mock.py
# (its /v1/responses route, scripted with "turns").
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/codex
#   setup()    { _common_setup; codex_install; }
#   teardown() { codex_mock_stop; }
#
#   codex_mock_start "$T/script.json"    # MOCK_URL, MOCK_LOG, MOCK_PID
#   codex_config                         # CODEX_HOME/config.toml, a user's own
#   codex_run "do the task" [-c model="gpt-5.5"] [--dangerously-bypass-hook-trust]
#   # -> CODEX_RC, CODEX_OUT (the --json event stream), CODEX_ERR
#
# codex_install: npm-installs @openai/codex@$CODEX_VERSION once into
# ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/codex-$CODEX_VERSION and sets
# CODEX_BIN to the native binary (in @openai/codex-linux-x64; the npm
# package's bin is a node launcher for it).  When npm cannot fetch it, the
# calling test is skipped with a loud "SKIPPED: cannot install Codex from
# npm: ...", never failed, never left hanging.
#
# What 0.171.0 needs to run offline (hosts/codex/README.md, checked
# again here):
#  - model_provider = a [model_providers.X] with wire_api = "responses"
#    and base_url = the mock's /v1; env_key names the variable the key is
#    read from (MOCK_API_KEY=sk-test here; OPENAI_API_KEY=sk-test too, for
#    the metered provider jh-install -M adds);
#  - the [features] block below: without it Codex tries github.com,
#    api.github.com and chatgpt.com (curated plugin sync) at startup;
#  - approval_policy = "never" and sandbox_mode = "danger-full-access":
#    exec never prompts, and commands may write where the test looks.
# `-c model="gpt-5.5"` gets the bundled model metadata and with it the
# freeform apply_patch tool (an unknown model has exec_command only).
#
# Hook trust: Codex runs a non-managed hook only when config.toml records
# its hash ([hooks.state."<hooks.json>:<event>:<group>:<handler>"]
# trusted_hash = "sha256:..."); codex_run passes no bypass flag of its own,
# so a test shows which mode it uses by passing
# --dangerously-bypass-hook-trust itself or not.

. "${BASH_SOURCE[0]%/*}/npm.bash"

CODEX_VERSION="${CODEX_VERSION:-0.171.0}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc.
_CODEX_NPM_HOME="${_CODEX_NPM_HOME:-$HOME}"

codex_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/codex-$CODEX_VERSION"
	local bin v
	npm_install_once "Codex" codex "$dir" "@openai/codex@$CODEX_VERSION" \
	    "$_CODEX_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		CODEX_BIN="$NPM_BIN"
		export CODEX_BIN
		return 0
	fi
	# The native binary, not the node launcher: one process less to
	# stop, and the version it reports is the binary's own.
	bin=$(ls "$dir"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n1)
	[ -n "$bin" ] || bin="$dir/node_modules/.bin/codex"
	v=$(HOME="$BATS_TEST_TMPDIR" timeout 30 "$bin" --version </dev/null 2>/dev/null) || true
	if [ "${v##* }" != "$CODEX_VERSION" ]; then
		npm_fail "Codex" codex "installed, but 'codex --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
	CODEX_BIN="$bin"
	export CODEX_BIN
}

# codex_mock_start SCRIPTFILE [LOGFILE]: openai-mock.py on a free port,
# in its own session.
codex_mock_start() {
	local script="$1" dir="$BATS_TEST_TMPDIR/mock" i port=""
	MOCK_LOG="${2:-$dir/requests.jsonl}"
	mkdir -p "$dir"
	rm -f "$dir/port" "$dir/pid"
	# fd 3 closed: bats waits for every holder of fd 3 before it finishes.
	setsid /usr/bin/python3 "$PROJECT_ROOT/tests/mock/openai-mock.py" \
	    --port 0 --port-file "$dir/port" --pid-file "$dir/pid" \
	    --script "$script" --log "$MOCK_LOG" \
	    </dev/null >"$dir/mock.out" 2>&1 3>&- &
	MOCK_PID=$!
	for ((i = 0; i < 100; i++)); do
		if [ -s "$dir/port" ]; then
			port=$(cat "$dir/port")
			curl -sf -o /dev/null -m 2 "http://127.0.0.1:$port/v1/models" && break
		fi
		kill -0 "$MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$dir/pid" ] && MOCK_PID=$(cat "$dir/pid")
	if ! curl -sf -o /dev/null -m 2 "http://127.0.0.1:${port:-0}/v1/models"; then
		echo "mock did not start:" >&2
		cat "$dir/mock.out" >&2
		codex_mock_stop
		return 1
	fi
	MOCK_PORT=$port
	MOCK_URL="http://127.0.0.1:$port"
	export MOCK_URL MOCK_LOG MOCK_PORT MOCK_PID
}

codex_mock_stop() {
	[ -n "${MOCK_PID:-}" ] || return 0
	local n
	kill "$MOCK_PID" 2>/dev/null || true
	for ((n = 0; n < 30; n++)); do
		kill -0 "$MOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$MOCK_PID" 2>/dev/null || true
	wait "$MOCK_PID" 2>/dev/null || true
	MOCK_PID=
	return 0
}

# codex_config [BASEURL]: the user's own $CODEX_HOME/config.toml, pointed
# at the mock (or BASEURL, without /v1).  Written before jh-install, which
# adds its marked block to it.
codex_config() {
	local base="${1:-${MOCK_URL:?codex_mock_start first}}"
	CODEX_HOME="${CODEX_HOME:-$HOME/.codex}"
	mkdir -p "$CODEX_HOME"
	export CODEX_HOME
	cat >"$CODEX_HOME/config.toml" <<-EOF
	# the test user's own settings (tests/helpers/codex.bash)
	model = "mock-model"
	model_provider = "mock"
	approval_policy = "never"
	sandbox_mode = "danger-full-access"
	check_for_update_on_startup = false
	web_search = "disabled"

	[model_providers.mock]
	name = "mock"
	base_url = "$base/v1"
	env_key = "MOCK_API_KEY"
	wire_api = "responses"

	[analytics]
	enabled = false

	[features]
	plugins = false
	apps = false
	remote_plugin = false
	plugin_sharing = false
	in_app_updates = false
	browser_use = false
	browser_use_external = false
	computer_use = false
	in_app_browser = false
	EOF
}

# The JSON bodies of the model calls (POST /v1/responses), one per line.
codex_requests() {
	jq -c 'select(.method == "POST" and .path == "/v1/responses")' "$MOCK_LOG"
}

# codex_output CALLID: what the model was sent back for call CALLID (the
# function_call_output or custom_tool_call_output), as a string.
codex_output() {
	codex_requests | jq -rs --arg id "$1" '[.[] | .body.input[]?
	    | select((.type == "function_call_output" or .type == "custom_tool_call_output")
	             and .call_id == $id) | .output
	    | if type == "string" then . else tostring end] | first // empty'
}

# codex_run PROMPT [ARGS...]: `codex exec --skip-git-repo-check --json
# ARGS PROMPT` in the current directory, HOME and CODEX_HOME the test's,
# under timeout ${CODEX_TIMEOUT:-120}.  Sets CODEX_RC, CODEX_OUT, CODEX_ERR; returns 0 (look
# at CODEX_RC) so that a failing codex does not abort the test before its
# output is shown.
codex_run() {
	local prompt="$1"
	shift
	: "${CODEX_BIN:?codex_install first}"
	CODEX_HOME="${CODEX_HOME:-$HOME/.codex}"
	CODEX_N=$((${CODEX_N:-0} + 1))
	CODEX_OUT="$BATS_TEST_TMPDIR/codex.$CODEX_N.out"
	CODEX_ERR="$BATS_TEST_TMPDIR/codex.$CODEX_N.err"
	export CODEX_HOME
	CODEX_RC=0
	env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u CODEX_API_KEY -u RUST_LOG \
	    -u CODEX_SANDBOX -u CODEX_SANDBOX_NETWORK_DISABLED \
	    HOME="$HOME" CODEX_HOME="$CODEX_HOME" MOCK_API_KEY=sk-test OPENAI_API_KEY=sk-test \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 "${CODEX_TIMEOUT:-120}" "$CODEX_BIN" exec --skip-git-repo-check --json "$@" "$prompt" \
	    </dev/null >"$CODEX_OUT" 2>"$CODEX_ERR" 3>&- || CODEX_RC=$?
	if [ "$CODEX_RC" -eq 124 ] || [ "$CODEX_RC" -eq 137 ]; then
		echo "codex_run: codex timed out after ${CODEX_TIMEOUT:-120} s (stderr: $CODEX_ERR)" >&2
	fi
	export CODEX_RC CODEX_OUT CODEX_ERR
	return 0
}

# The session id of the last run (the --json stream's thread.started).
codex_session() {
	jq -r 'select(.type == "thread.started") | .thread_id' "$CODEX_OUT" | head -n1
}

# On failure, show what codex and the mock did (bats prints test stderr).
codex_dump() {
	echo "--- codex rc=${CODEX_RC:-?} stdout:" >&2
	cat "${CODEX_OUT:-/dev/null}" >&2 2>/dev/null
	echo "--- codex stderr:" >&2
	tail -n 40 "${CODEX_ERR:-/dev/null}" >&2 2>/dev/null
	echo "--- mock log (paths):" >&2
	jq -c '[.method, .path, .response.status, .response.turn, .response.call_ids]' \
	    "${MOCK_LOG:-/dev/null}" >&2 2>/dev/null
}
