# Run the real Cline CLI offline against tests/mock/openai-mock.py
# (its /v1/chat/completions route, scripted with "chat_turns").
#
# Source after test_helper/common (needs PROJECT_ROOT and BATS_TEST_TMPDIR):
#
#   load test_helper/common
#   load helpers/cline
#   setup()    { _common_setup; cline_install; }
#   teardown() { cline_teardown; }      # the hub daemon, then the mock
#
#   cline_mock_start "$T/script.json"   # CMOCK_URL, CMOCK_LOG, CMOCK_PID
#   cline_auth                          # openai-compatible provider -> the mock
#   cline_run "do the task"             # CLINE_RC, CLINE_OUT, CLINE_ERR
#
# cline_install: npm-installs cline@$CLINE_VERSION once into
# ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/cline-$CLINE_VERSION (the
# package is a launcher; the program is the native binary of
# @cline/cli-linux-x64) and sets CLINE_BIN.  When npm cannot fetch it,
# the calling test is skipped with a loud "SKIPPED: cannot install Cline
# from npm: ...", never failed, never left hanging.
#
# What 3.0.65 does that a harness must know (observed here):
#  - `cline auth -p openai-compatible -k KEY -m MODEL -b URL` writes
#    ~/.cline/data/settings/providers.json; `cline --json "PROMPT"` runs
#    one task in act mode with auto-approve on, one JSON event a line on
#    stdout, and exits 0 even when a hook cancelled the run.  A prompt of
#    one bare word is taken for a subcommand ("Unknown command").
#  - The first run in a HOME spawns a detached hub daemon, `cline
#    --cline-hub-daemon --cwd DIR --host 127.0.0.1 --port 25463
#    --pathname /hub` (its pid also in ~/.cline/data/locks/hub/
#    production.json), before the CLI exits; it outlives the CLI, and
#    every later run in that HOME executes inside it: the hooks are then
#    the daemon's children, with the environment it was started with.
#    While another HOME's daemon holds port 25463 no daemon is spawned
#    and the runs stay in the CLI.  cline_hub_stop ends every daemon
#    whose HOME is the test's.
#  - Hooks are the regular files in ~/.cline/hooks named after an event
#    (case-insensitive, optional .sh .py ... extension); every such file
#    of an event runs, one after the other, sorted by path.

. "${BASH_SOURCE[0]%/*}/npm.bash"

CLINE_VERSION="${CLINE_VERSION:-3.0.65}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc.
_CLINE_NPM_HOME="${_CLINE_NPM_HOME:-$HOME}"

cline_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/cline-$CLINE_VERSION"
	local bin v alt
	npm_install_once "Cline" cline "$dir" "cline@$CLINE_VERSION" "$_CLINE_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		CLINE_BIN="$NPM_BIN"
		export CLINE_BIN
		return 0
	fi
	bin="${NPM_BIN:-$dir/node_modules/.bin/cline}"
	v=$(HOME="$BATS_TEST_TMPDIR" timeout 30 "$bin" --version </dev/null 2>/dev/null) || true
	if [ "$v" != "$CLINE_VERSION" ]; then
		# the launcher's postinstall may not have run: the platform binary
		alt="$dir/node_modules/@cline/cli-linux-x64/bin/cline"
		v=$(HOME="$BATS_TEST_TMPDIR" timeout 30 "$alt" --version </dev/null 2>/dev/null) || true
		[ "$v" = "$CLINE_VERSION" ] && bin="$alt"
	fi
	if [ "$v" != "$CLINE_VERSION" ]; then
		npm_fail "Cline" cline "installed, but 'cline --version' says '${v:-nothing}' (log: $dir/npm-install.log)"
	fi
	echo "$bin" >"$dir/.verified"
	CLINE_BIN="$bin"
	export CLINE_BIN
}

# cline_mock_start SCRIPTFILE [LOGFILE]: openai-mock.py on a free port, in
# its own session.  Sets CMOCK_URL, CMOCK_LOG, CMOCK_PORT, CMOCK_PID.
cline_mock_start() {
	local script="$1" dir="$BATS_TEST_TMPDIR/cmock" i port=""
	CMOCK_LOG="${2:-$dir/requests.jsonl}"
	mkdir -p "$dir"
	rm -f "$dir/port" "$dir/pid"
	# fd 3 closed: bats waits for every holder of fd 3 before it finishes.
	setsid /usr/bin/python3 "$PROJECT_ROOT/tests/mock/openai-mock.py" \
	    --port 0 --port-file "$dir/port" --pid-file "$dir/pid" \
	    --script "$script" --log "$CMOCK_LOG" \
	    </dev/null >"$dir/mock.out" 2>&1 3>&- &
	CMOCK_PID=$!
	for ((i = 0; i < 100; i++)); do
		if [ -s "$dir/port" ]; then
			port=$(cat "$dir/port")
			curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/v1/models" && break
		fi
		kill -0 "$CMOCK_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$dir/pid" ] && CMOCK_PID=$(cat "$dir/pid")
	if ! curl -sf -o /dev/null -m 2 "http://127.0.0.1:${port:-0}/v1/models"; then
		echo "mock did not start:" >&2
		cat "$dir/mock.out" >&2
		cline_mock_stop
		return 1
	fi
	CMOCK_PORT=$port
	CMOCK_URL="http://127.0.0.1:$port"
	export CMOCK_URL CMOCK_LOG CMOCK_PORT CMOCK_PID
}

cline_mock_stop() {
	[ -n "${CMOCK_PID:-}" ] || return 0
	_cline_kill "$CMOCK_PID"
	CMOCK_PID=
	return 0
}

# _cline_kill PID...: TERM, up to 3 s, then KILL.
_cline_kill() {
	local p i
	for p in "$@"; do kill "$p" 2>/dev/null || true; done
	for p in "$@"; do
		for ((i = 0; i < 30; i++)); do
			kill -0 "$p" 2>/dev/null || break
			# a zombie (a child of this shell) counts as gone
			[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}

# The chat completion requests' JSON bodies, one per line.
cline_requests() {
	jq -c 'select(.method=="POST" and .path=="/v1/chat/completions")' "$CMOCK_LOG"
}

# cline_auth [URL]: the openai-compatible provider at URL (default
# $CMOCK_URL/v1), key sk-test, model mock-model, in CLINE_HOME.  The real
# `cline auth` takes 4 s, so it runs once per file (into
# $BATS_FILE_TMPDIR/cline-auth) and each test gets a copy of the
# providers.json it wrote, with its base URL.
cline_auth() {
	local url="${1:-${CMOCK_URL:?cline_mock_start first}/v1}"
	local tdir="${BATS_FILE_TMPDIR:-$BATS_TEST_TMPDIR}/cline-auth"
	local tmpl="$tdir/.cline/data/settings/providers.json"
	local pj
	CLINE_HOME="${CLINE_HOME:-$HOME}"
	pj="$CLINE_HOME/.cline/data/settings/providers.json"
	if [ ! -s "$tmpl" ]; then
		mkdir -p "$tdir"
		HOME="$tdir" timeout -k 5 60 "$CLINE_BIN" auth -p openai-compatible -k sk-test \
		    -m mock-model -b http://127.0.0.1:9/v1 </dev/null >"$tdir/auth.out" 2>&1 3>&- &&
		    [ -s "$tmpl" ] || {
			echo "cline auth failed:" >&2
			cat "$tdir/auth.out" >&2
			return 1
		}
	fi
	mkdir -p "${pj%/*}"
	jq --arg u "$url" '.providers["openai-compatible"].settings.baseUrl = $u' "$tmpl" >"$pj"
	chmod 600 "$pj"
}

# cline_run PROMPT [ARGS...]: `cline --json ARGS PROMPT` in the current
# directory, HOME=$CLINE_HOME (default $HOME), under timeout 120.  Sets
# CLINE_RC, CLINE_OUT, CLINE_ERR; returns 0 (look at CLINE_RC).  Cline's
# own variables from the caller's environment are dropped.
cline_run() {
	local prompt="$1"
	shift
	CLINE_HOME="${CLINE_HOME:-$HOME}"
	CLINE_N=$((${CLINE_N:-0} + 1))
	CLINE_OUT="$BATS_TEST_TMPDIR/cline.$CLINE_N.out"
	CLINE_ERR="$BATS_TEST_TMPDIR/cline.$CLINE_N.err"
	CLINE_RC=0
	env -u CLINE_DIR -u CLINE_DATA_DIR -u CLINE_API_KEY -u CLINE_PROVIDER \
	    -u CLINE_MODEL -u CLINE_HUB_PORT -u CLINE_SESSION_BACKEND_MODE \
	    -u CLINE_API_BASE_URL -u CLINE_HOOKS_LOG_PATH \
	    HOME="$CLINE_HOME" \
	    NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
	    timeout -k 5 120 "$CLINE_BIN" --json "$@" "$prompt" \
	    </dev/null >"$CLINE_OUT" 2>"$CLINE_ERR" 3>&- || CLINE_RC=$?
	if [ "$CLINE_RC" -eq 124 ] || [ "$CLINE_RC" -eq 137 ]; then
		echo "cline_run: cline timed out after 120 s (stderr: $CLINE_ERR)" >&2
	fi
	export CLINE_RC CLINE_OUT CLINE_ERR CLINE_HOME
	return 0
}

# cline_hub_pids [HOME]: the hub daemons run with that HOME (default
# CLINE_HOME, else HOME): those the lock file names and those found by
# their arguments and environment.
cline_hub_pids() {
	local home="${1:-${CLINE_HOME:-$HOME}}" p lock
	lock="$home/.cline/data/locks/hub/production.json"
	{
		if [ -f "$lock" ]; then
			p=$(jq -r '.pid // empty' "$lock" 2>/dev/null)
			if [ -n "$p" ] && tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" |
			    grep -q -- '--cline-hub-daemon'; then
				echo "$p"
			fi
		fi
		# the candidates by their arguments, then each one's HOME
		for p in $(pgrep -f -- '--cline-hub-daemon' 2>/dev/null); do
			tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qxF "HOME=$home" || continue
			echo "$p"
		done
	} | sort -u
}

# cline_hub_stop [HOME]: every hub daemon of that HOME gone.
cline_hub_stop() {
	local pids
	pids=$(cline_hub_pids "$@")
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	_cline_kill $pids
}

cline_teardown() {
	cline_hub_stop
	cline_mock_stop
}

# On failure, show what cline and the mock did (bats prints test stderr).
cline_dump() {
	echo "--- cline rc=${CLINE_RC:-?} stdout (events):" >&2
	jq -c 'select(.type != "agent_event" or .event.type != "content_update")' \
	    "${CLINE_OUT:-/dev/null}" >&2 2>/dev/null || cat "${CLINE_OUT:-/dev/null}" >&2
	echo "--- cline stderr (last 20 lines):" >&2
	tail -n 20 "${CLINE_ERR:-/dev/null}" >&2 2>/dev/null
	echo "--- mock log:" >&2
	jq -c '[.method, .path, .response.status, .response.turn, .response.tool_call_ids]' \
	    "${CMOCK_LOG:-/dev/null}" >&2 2>/dev/null
}

# cline_tool_call ID NAME ARGS_JSON: one scripted call for chat_turns.
cline_tool_call() {
	jq -nc --arg id "$1" --arg n "$2" --argjson a "$3" '{id: $id, name: $n, arguments: $a}'
}

# cline_result ID: what the model was sent back for tool call ID (the
# content of the role:"tool" message), from the mock's log.
cline_result() {
	cline_requests | jq -r --arg id "$1" '.body.messages[]?
	    | select(.role == "tool" and .tool_call_id == $id)
	    | .content | if type == "string" then . else map(.text // "") | join("") end' |
	    head -n1
}

# cline_finish: the run's finishReason (completed, aborted, ...).
cline_finish() {
	jq -r 'select(.type == "run_result") | .finishReason' "$CLINE_OUT"
}
