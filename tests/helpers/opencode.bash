# Run the real OpenCode offline against tests/mock/openai-mock.py (its
# /v1/chat/completions route, scripted with "chat_turns").
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/opencode
#   setup()    { _common_setup; opencode_install; }
#   teardown() { opencode_mock_stop; }
#
#   opencode_mock_start "$T/script.json"   # MOCK_URL, MOCK_LOG, MOCK_PID
#   opencode_config                        # the user's own opencode.json
#   opencode_run "do the task"
#   # -> OC_RC, OC_OUT (the --format json event stream), OC_ERR
#
# opencode_install: npm-installs opencode-ai@$OPENCODE_VERSION once into
# ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/opencode-$OPENCODE_VERSION
# and sets OPENCODE_BIN to the native binary (opencode-linux-x64/bin; the
# npm package's bin is a node launcher for it; its postinstall is not
# needed).  When npm cannot fetch it, the calling test is skipped with a
# loud "SKIPPED: cannot install OpenCode from npm: ...", never failed,
# never left hanging.
#
# What 1.18.33 needs to run offline (hosts/opencode/README.md, checked
# again here): a provider with npm "@ai-sdk/openai-compatible" (bundled, no
# download) whose baseURL is the mock's /v1 and whose model says
# tool_call; autoupdate off and sharing disabled; the OPENCODE_DISABLE_*
# variables below; every XDG directory the test's.  Its first model call
# offers no tools (the session title): the script's "toolless_text"
# answers it outside the turns.  At start OpenCode npm-installs
# @opencode-ai/plugin into every config directory, in the background but
# waited for (30 s when the registry is slow or out of reach): the npm
# settings below make that fail at once, offline; joulehook's plugin has
# no dependencies and loads all the same.  "run" needs no permission answers: the
# default agent allows its tools outside a few paths.

. "${BASH_SOURCE[0]%/*}/npm.bash"
# the OpenAI mock's start and stop (codex_mock_start, codex_mock_stop)
. "${BASH_SOURCE[0]%/*}/codex.bash"

OPENCODE_VERSION="${OPENCODE_VERSION:-1.18.33}"
_OC_NPM_HOME="${_OC_NPM_HOME:-$HOME}"

opencode_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/opencode-$OPENCODE_VERSION"
	local bin v
	npm_install_once "OpenCode" opencode "$dir" \
	    "opencode-ai@$OPENCODE_VERSION" "$_OC_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		OPENCODE_BIN="$NPM_BIN"
		export OPENCODE_BIN
		return 0
	fi
	bin="$dir/node_modules/opencode-linux-x64/bin/opencode"
	[ -x "$bin" ] || bin=$(ls "$dir"/node_modules/opencode-linux-*/bin/opencode 2>/dev/null | head -n1)
	v=$(HOME="$BATS_TEST_TMPDIR" timeout 60 "$bin" --version </dev/null 2>/dev/null) || true
	if [ "$v" != "$OPENCODE_VERSION" ]; then
		npm_fail "OpenCode" opencode "installed, but 'opencode --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
	OPENCODE_BIN="$bin"
	export OPENCODE_BIN
}

opencode_mock_start() { codex_mock_start "$@"; }
opencode_mock_stop() { codex_mock_stop; }

# opencode_config [BASEURL]: the user's own opencode.json, its one
# provider the mock (or BASEURL, without /v1).  Written before
# jh-install, which adds its entries to it.
opencode_config() {
	local base="${1:-${MOCK_URL:?opencode_mock_start first}}"
	OC_CONFIG="${XDG_CONFIG_HOME:-$HOME/.config}/opencode"
	mkdir -p "$OC_CONFIG"
	jq -n --arg b "$base/v1" '{"$schema": "https://opencode.ai/config.json",
	    autoupdate: false, share: "disabled", model: "mock/mock-model",
	    provider: {mock: {npm: "@ai-sdk/openai-compatible", name: "Mock",
		options: {baseURL: $b, apiKey: "sk-test"},
		models: {"mock-model": {name: "Mock Model", tool_call: true,
		    limit: {context: 100000, output: 4096}}}}}}' >"$OC_CONFIG/opencode.json"
	export OC_CONFIG
}

# opencode_run PROMPT [ARGS...]: `opencode run --format json ARGS PROMPT`
# in the current directory, under timeout ${OC_TIMEOUT:-90}.  Sets OC_RC,
# OC_OUT, OC_ERR; returns 0 (look at OC_RC).
opencode_run() {
	local prompt="$1"
	shift
	: "${OPENCODE_BIN:?opencode_install first}"
	OC_N=$((${OC_N:-0} + 1))
	OC_OUT="$BATS_TEST_TMPDIR/opencode.$OC_N.out"
	OC_ERR="$BATS_TEST_TMPDIR/opencode.$OC_N.err"
	OC_RC=0
	env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ANTHROPIC_API_KEY \
	    -u OPENCODE_CONFIG -u OPENCODE_CONFIG_DIR -u OPENCODE_CONFIG_CONTENT \
	    HOME="$HOME" XDG_CONFIG_HOME="${XDG_CONFIG_HOME:-$HOME/.config}" \
	    XDG_DATA_HOME="$HOME/.local/share" XDG_CACHE_HOME="$HOME/.cache" \
	    XDG_STATE_HOME="${XDG_STATE_HOME:-$HOME/.local/state}" \
	    OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 \
	    OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
	    OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_EXTERNAL_SKILLS=1 \
	    OPENAI_API_KEY=sk-test \
	    npm_config_offline=true npm_config_registry=http://127.0.0.1:9/ \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 "${OC_TIMEOUT:-90}" "$OPENCODE_BIN" run --format json \
	    --print-logs --log-level INFO "$@" "$prompt" \
	    </dev/null >"$OC_OUT" 2>"$OC_ERR" 3>&- || OC_RC=$?
	if [ "$OC_RC" -eq 124 ] || [ "$OC_RC" -eq 137 ]; then
		echo "opencode_run: opencode timed out after ${OC_TIMEOUT:-90} s (stderr: $OC_ERR)" >&2
	fi
	export OC_RC OC_OUT OC_ERR
	return 0
}

# The JSON bodies of the model calls (POST /v1/chat/completions) that
# offered tools, one per line.
opencode_requests() {
	jq -c 'select(.method == "POST" and .path == "/v1/chat/completions"
	    and ((.body.tools // []) | length) > 0)' "$MOCK_LOG"
}

# opencode_output CALLID: what the model was last sent back for call
# CALLID (the tool message's content), as a string.
opencode_output() {
	opencode_requests | jq -rs --arg id "$1" '[.[] | .body.messages[]?
	    | select(.role == "tool" and .tool_call_id == $id) | .content
	    | if type == "string" then . else tostring end] | last // empty'
}

# The session id OpenCode gave the run (its x-session-id header, the
# payload's sessionID).
opencode_session() {
	jq -r 'select(.sessionID != null) | .sessionID' "$OC_OUT" 2>/dev/null | head -n1
}
