# A real MCP client for the tests: the official TypeScript SDK from npm,
# driven by tests/helpers/mcp-client.mjs.
#
#   load helpers/mcp
#   mcp_sdk_install                      # sets MCP_SDK, or skips loudly
#   mcp_client ROOT OP [ARG]             # one JSON object on stdout
#
# mcp_sdk_install: npm-installs @modelcontextprotocol/sdk@$MCP_SDK_VERSION
# once into ${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/mcp-sdk-$VERSION
# (reused afterwards).  When npm or node is missing or cannot fetch it,
# the calling test is skipped with a loud "SKIPPED: cannot install the MCP
# SDK from npm: ..." (also printed on fd 3), never failed.

MCP_SDK_VERSION="${MCP_SDK_VERSION:-1.32.2}"
# Loaded before setup() replaces HOME: npm keeps the user's ~/.npmrc.
_MCP_NPM_HOME="${_MCP_NPM_HOME:-$HOME}"

_mcp_skip() {
	local msg="SKIPPED: cannot install the MCP SDK from npm: $*"
	echo "# $msg" >&3 2>/dev/null || true
	echo "$msg" >&2
	skip "$msg"
}

mcp_sdk_install() {
	local dir="${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/mcp-sdk-$MCP_SDK_VERSION"
	local pkg="$dir/node_modules/@modelcontextprotocol/sdk/package.json"
	local log="$dir/npm-install.log" rc=0 v
	local failed="${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/mcp-sdk-install-failed"

	if [ -f "$pkg" ] && [ "$(jq -r .version "$pkg" 2>/dev/null)" = "$MCP_SDK_VERSION" ]; then
		MCP_SDK="$dir"
		export MCP_SDK
		return 0
	fi
	[ -f "$failed" ] && _mcp_skip "$(cat "$failed") (not retried in this run)"
	command -v node >/dev/null 2>&1 || _mcp_skip "node is not installed"
	command -v npm >/dev/null 2>&1 || _mcp_skip "npm is not installed"
	mkdir -p "$dir" || _mcp_skip "cannot create $dir"
	(
		flock -w 300 9 || exit 99
		[ -f "$pkg" ] && exit 0
		HOME="$_MCP_NPM_HOME" timeout -k 10 240 npm install --prefix "$dir" \
		    --no-audit --no-fund --no-save --fetch-retries=1 \
		    --fetch-timeout=60000 \
		    "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" >"$log" 2>&1
	) 9>"$dir/.lock" </dev/null || rc=$?
	if [ "$rc" -ne 0 ] || [ ! -f "$pkg" ]; then
		case $rc in
		124 | 137) v="npm install timed out after 240 s (log: $log)" ;;
		99) v="timed out waiting for another install (lock $dir/.lock)" ;;
		*) v="npm install exited $rc: $(grep -m1 -iE 'npm error|ERR!' "$log" 2>/dev/null || tail -n1 "$log" 2>/dev/null) (log: $log)" ;;
		esac
		echo "$v" >"$failed"
		_mcp_skip "$v"
	fi
	MCP_SDK="$dir"
	export MCP_SDK
}

# mcp_client ROOT OP [ARG]: one client session against `jh-status -m -r ROOT`.
mcp_client() {
	timeout -k 5 120 node "$PROJECT_ROOT/tests/helpers/mcp-client.mjs" "$@" \
	    </dev/null
}
