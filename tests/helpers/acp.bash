# jh-acp's tests (tests/acp.bats): an ACP editor (tests/acp/editor.mjs, on
# @agentclientprotocol/sdk) driving jh-acp in front of an ACP agent, the
# scripted tests/acp/fake-agent.py or a real one from npm, offline
# against the mocks.
#
#   acp_sdk_install        ACP_SDK (the SDK's stable entry point)
#   acp_claude_install     ACP_CLAUDE (claude-code-acp's dist/index.js)
#   acp_codex_install      ACP_CODEX (codex-acp's native binary)
#   acp_grant CAPS [POLICIES]; acp_install [jh-install options]
#   acp_spec KEY=JSON ...  the editor's spec, $T/spec.json
#   acp_run AGENT [ARGS]   the editor -> jh-acp -> AGENT; ED_RC, ED_LOG
#   ed_reqs METHOD         the requests of METHOD the editor received
#
# Each install is npm_install_once (helpers/npm.bash): a loud skip,
# never a failure, when npm cannot fetch the package.

. "${BASH_SOURCE[0]%/*}/npm.bash"

ACP_SDK_VERSION="${ACP_SDK_VERSION:-2.4.0}"
ACP_CLAUDE_VERSION="${ACP_CLAUDE_VERSION:-0.16.2}"
ACP_CODEX_VERSION="${ACP_CODEX_VERSION:-0.16.0}"
_ACP_NPM_HOME="${_ACP_NPM_HOME:-$HOME}"

_acp_cache() {
	echo "${JH_NPM_CACHE:-$PROJECT_ROOT/tests/.cache}/$1"
}

acp_sdk_install() {
	local dir f
	dir=$(_acp_cache "acp-sdk-$ACP_SDK_VERSION")
	command -v node >/dev/null 2>&1 || npm_skip "the ACP SDK" "node is not installed"
	npm_install_once "the ACP SDK" acp-sdk "$dir" \
	    "@agentclientprotocol/sdk@$ACP_SDK_VERSION" "$_ACP_NPM_HOME"
	f="$dir/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js"
	if [ "$NPM_DONE" != 1 ]; then
		[ -f "$f" ] && [ "$(jq -r .version "$dir/node_modules/@agentclientprotocol/sdk/package.json")" = "$ACP_SDK_VERSION" ] ||
		    npm_fail "the ACP SDK" acp-sdk "installed, but $f is not version $ACP_SDK_VERSION"
		echo "$dir/node_modules/@agentclientprotocol/sdk" >"$dir/.verified"
	fi
	ACP_SDK="$f"
	export ACP_SDK
}

acp_claude_install() {
	local dir f
	dir=$(_acp_cache "claude-code-acp-$ACP_CLAUDE_VERSION")
	npm_install_once "claude-code-acp" acp-claude "$dir" \
	    "@zed-industries/claude-code-acp@$ACP_CLAUDE_VERSION" "$_ACP_NPM_HOME"
	f="$dir/node_modules/@zed-industries/claude-code-acp/dist/index.js"
	if [ "$NPM_DONE" != 1 ]; then
		[ -f "$f" ] && [ "$(jq -r .version "$dir/node_modules/@zed-industries/claude-code-acp/package.json")" = "$ACP_CLAUDE_VERSION" ] ||
		    npm_fail "claude-code-acp" acp-claude "installed, but $f is not version $ACP_CLAUDE_VERSION"
		echo "$dir/node_modules/@zed-industries/claude-code-acp" >"$dir/.verified"
	fi
	ACP_CLAUDE="$f"
	export ACP_CLAUDE
}

acp_codex_install() {
	local dir bin v
	dir=$(_acp_cache "codex-acp-$ACP_CODEX_VERSION")
	npm_install_once "codex-acp" acp-codex "$dir" \
	    "@zed-industries/codex-acp@$ACP_CODEX_VERSION" "$_ACP_NPM_HOME"
	if [ "$NPM_DONE" = 1 ]; then
		ACP_CODEX="$NPM_BIN"
		export ACP_CODEX
		return 0
	fi
	bin=$(ls "$dir"/node_modules/@zed-industries/codex-acp-linux-*/bin/codex-acp 2>/dev/null | head -n1)
	[ -n "$bin" ] && [ -x "$bin" ] ||
	    npm_fail "codex-acp" acp-codex "installed, but no native codex-acp binary for this platform (log: $dir/npm-install.log)"
	v=$(jq -r .version "$dir/node_modules/@zed-industries/codex-acp/package.json" 2>/dev/null)
	[ "$v" = "$ACP_CODEX_VERSION" ] ||
	    npm_fail "codex-acp" acp-codex "installed, but its package says version '${v:-nothing}'"
	echo "$bin" >"$dir/.verified"
	ACP_CODEX="$bin"
	export ACP_CODEX
}

# acp_grant CAPS [POLICIES]: a grant for the project $P in $T/grant.json.
acp_grant() {
	jq -n --arg root "$P" --argjson caps "$1" --argjson pol "${2:-[]}" '{
	    audience: "joulehook:*", nbf: 0, exp: 4102444800,
	    budget_uj: 20000000000000,
	    costs: {shell: 2000000, write: 200000, edit: 200000, read: 50000,
	            search: 50000, default: 100000},
	    root: $root, caps: $caps, policies: $pol}' >"$T/grant.json"
}

# acp_install [OPTIONS]: jh-install -H acp (-A: a grant's allow is the
# agent's allow_once, no prompt), which copies jh-acp to $JH_HOME/bin.
acp_install() {
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" \
	    -g "$T/grant.json" -H acp "$@"
	INSTALL_OUT=$output
	ACP_RELAY="$JH_HOME/bin/jh-acp"
}

# acp_spec KEY=JSON ...: the editor's spec; cwd $P, log $T/editor.jsonl,
# answer allow, unless given.
acp_spec() {
	local kv k v j
	j=$(jq -nc --arg cwd "$P" --arg log "$T/editor.jsonl" \
	    '{cwd: $cwd, log: $log, prompts: ["do the task"], answer: "allow"}')
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		j=$(jq -c --arg k "$k" --argjson v "$v" '.[$k] = $v' <<<"$j")
	done
	echo "$j" >"$T/spec.json"
}

# acp_run AGENT [ARGS...]: the editor, under timeout ${ACP_TIMEOUT:-120},
# starting "$ACP_RELAY $ACP_RELAY_ARGS -c CONF -- AGENT ARGS" in $P (-s
# $ACP_SOCK instead of -c when that is set).  ED_RC is
# its exit status (0 every prompt ended, 3 the connection failed),
# ED_LOG what it received, ED_ERR the stderr of all three.
acp_run() {
	: "${ACP_SDK:?acp_sdk_install first}"
	[ -f "$T/spec.json" ] || acp_spec
	ED_LOG="$T/editor.jsonl" ED_ERR="$T/editor.err"
	rm -f "$ED_LOG"
	ED_RC=0
	local gate=(-c "$JH_HOME/hook.conf")
	[ -z "${ACP_SOCK:-}" ] || gate=(-s "$ACP_SOCK")
	(cd "$P" && env IS_SANDBOX=1 timeout -k 5 "${ACP_TIMEOUT:-120}" \
	    node "$PROJECT_ROOT/tests/acp/editor.mjs" "$T/spec.json" -- \
	    "${ACP_RELAY:-$JH_BIN/jh-acp}" ${ACP_RELAY_ARGS:-} \
	    "${gate[@]}" -- "$@") </dev/null >"$T/editor.out" \
	    2>"$ED_ERR" 3>&- || ED_RC=$?
	touch "$ED_LOG"
	export ED_RC ED_LOG ED_ERR
	return 0
}

# ed_reqs METHOD: the params of each METHOD request the editor received.
ed_reqs() {
	jq -c --arg m "$1" 'select(.dir == "req" and .method == $m) | .params' "$ED_LOG"
}

# ed_says: the text of the agent_message_chunks the editor received.
ed_says() {
	jq -r 'select(.dir == "note" and .params.update.sessionUpdate == "agent_message_chunk")
	    | .params.update.content.text' "$ED_LOG"
}

acp_dump() {
	echo "--- editor rc=${ED_RC:-?} log:" >&2
	cut -c1-600 "${ED_LOG:-/dev/null}" >&2 2>/dev/null
	echo "--- stderr:" >&2
	tail -n 40 "${ED_ERR:-/dev/null}" >&2 2>/dev/null
}

# The session's log and its decision/1 entries.
acp_log() {
	echo "$JH_STATE/logs/$(printf %s "$1" | sha256sum | cut -c1-64).jhl"
}
