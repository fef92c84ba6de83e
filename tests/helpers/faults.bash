# The hook under faults and hostile input (tests/faults.bats,
# tests/hostile.bats): a grant and its ledger, a hook.conf, Claude Code
# payloads, and the checks every run ends with.
#
#   load test_helper/common
#   load helpers/faults
#   setup() { _common_setup; fault_setup; }
#
#   hook_conf [LINE...]     # writes $CONF: the base, JH_HOOK_MODE_CONF, LINEs
#   pre ID CMD [SID]        # a PreToolUse Bash payload on stdout
#   post ID CMD [SID]       # its PostToolUse, the command's output "ok"
#   hook [ARGS...] <PAYLOAD # jh-hook -c $CONF: status, output, stderr
#   pre_answer_ok ID        # the last hook's answer is a valid deny, or an
#                           # answer backed by its receipt in the log
#   state_ok                # every log verifies, every ledger replays
#
# JH_HOOK_MODE_CONF holds hook.conf lines every hook of these suites gets
# (empty by default): the same suites run in another mode of jh-hook by
# setting it, as in JH_HOOK_MODE_CONF=fast=1.

# fault_setup: keys, the grant (shell "echo *", an ask for "echo ask*",
# reads anywhere, writes under src/), its ledger, and $CONF.
fault_setup() {
	jh_keys
	P="$T/proj"
	mkdir -p "$P/src"
	P=$(cd "$P" && pwd -P)
	SID="s$BATS_TEST_NUMBER"
	grant_doc >"$T/grant.json"
	seal_grant "$T/grant.json"
	CONF="$JH_HOME/hook.conf"
	hook_conf
}

# grant_doc [NBF EXP]: the test grant, rooted at the project.
grant_doc() {
	jq -nc --arg root "$P" --argjson nbf "${1:-0}" --argjson exp "${2:-4102444800}" '{
	audience: "joulehook:*", root: $root, nbf: $nbf, exp: $exp,
	budget_uj: 100000000000,
	costs: {shell: 2000000, write: 200000, read: 50000, default: 100000},
	caps: [
	  {class: "shell", command: ["echo *"]},
	  {class: ["read", "search"], path: ["**"]},
	  {class: ["write", "edit"], path: ["src/**"]}
	],
	policies: [
	  {id: "asks", when: {class: "shell", command: ["echo ask*"]},
	   verdict: "ask", reason: "asking is part of the test"}
	]}'
}

# seal_grant DOC [KEY]: the default grant, sealed, and its ledger.
seal_grant() {
	jh-seal -K grant/1 -k "${2:-$JH_HOME/issuer.key}" "$1" >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>"$T/init.err" || true
	GRANT_HEX=$(sed -n 's/.*grant sha256:\([0-9a-f]*\) .*/\1/p' "$T/init.err")
}

# hook_conf [LINE...]: the driver's config, as jh-install writes it, with
# the mode's lines and then the test's.
hook_conf() {
	local l
	{
		echo "bindir=$JH_BIN"
		echo "home=$JH_HOME"
		echo "state=$JH_STATE"
		echo "sink=${SINK:-$T/sink}"
		[ -z "${JH_HOOK_MODE_CONF:-}" ] || printf '%s\n' "$JH_HOOK_MODE_CONF"
		for l in "$@"; do echo "$l"; done
	} >"$CONF"
	chmod 600 "$CONF"
}

pre() {
	jq -nc --arg s "${3:-$SID}" --arg id "$1" --arg c "$2" --arg cwd "$P" \
	    '{session_id: $s, transcript_path: "/dev/null", cwd: $cwd,
	      permission_mode: "default", hook_event_name: "PreToolUse",
	      tool_name: "Bash", tool_input: {command: $c}, tool_use_id: $id}'
}

post() {
	pre "$@" | jq -c '.hook_event_name = "PostToolUse" |
	    .tool_response = {stdout: "ok\n", stderr: "", interrupted: false}'
}

stop_payload() {
	jq -nc --arg s "${1:-$SID}" --arg cwd "$P" \
	    '{session_id: $s, transcript_path: "/dev/null", cwd: $cwd,
	      hook_event_name: "Stop", stop_hook_active: false}'
}

hook() {
	run --separate-stderr "$JH_BIN/jh-hook" -c "$CONF" "$@"
}

# log_of SESSION: the path of its log
log_of() {
	printf '%s/logs/%s.jhl\n' "$JH_STATE" "$(printf %s "$1" | sha256sum | cut -c1-64)"
}

# is_deny: the last answer is Claude Code's deny: exit 2 and its JSON.
is_deny() {
	[ "$status" = 2 ] && [ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output" 2>/dev/null)" = deny ]
}

# pre_answer_ok ID: the last pre-tool answer is a deny (exit 2 and the
# deny JSON), or exit 0 with nothing (allow) or an ask, and then the log
# holds the chained decision on ID with that verdict.
pre_answer_ok() {
	local want
	if [ "$status" = 2 ]; then
		is_deny && return 0
		echo "exit 2 without the deny JSON: $output"
		return 1
	fi
	[ "$status" = 0 ] || { echo "exit $status: $output"; return 1; }
	case $output in
	"") want=allow ;;
	*) want=$(jq -r '.hookSpecificOutput.permissionDecision // empty' <<<"$output") ||
		{ echo "exit 0 with an answer that is not JSON: $output"; return 1; } ;;
	esac
	case $want in allow | ask) ;; *) echo "exit 0 with '$output'"; return 1 ;; esac
	jh-verify "$(log_of "${2:-$SID}")" 2>/dev/null | jq -s -e --arg id "$1" --arg v "$want" \
	    'any(.[]; .ok and .chain and .kind == "decision/1" and
	     .core.tool_use_id == $id and .core.verdict == $v)' >/dev/null && return 0
	echo "answered $want on $1 with no such decision in the log"
	return 1
}

# post_answer_ok ID: the last post-tool answer is exit 0 with the stop
# ({"continue":false} and a reason), or nothing, and then the log holds
# a result/1 on ID that matched.
post_answer_ok() {
	[ "$status" = 0 ] || { echo "post-tool exit $status: $output"; return 1; }
	if [ -n "$output" ]; then
		jq -e '.continue == false and (.stopReason | startswith("joulehook: "))' \
		    <<<"$output" >/dev/null && return 0
		echo "post-tool answer neither empty nor a stop: $output"
		return 1
	fi
	jh-verify "$(log_of "${2:-$SID}")" 2>/dev/null | jq -s -e --arg id "$1" \
	    'any(.[]; .ok and .chain and .kind == "result/1" and
	     .core.tool_use_id == $id and .core.check == "match")' >/dev/null && return 0
	echo "let $1 stand with no matching result/1 in the log"
	return 1
}

# state_ok: every log verifies (a torn tail is no failure), and each
# ledger replays from them: never behind its receipts.
state_ok() {
	local logs=() f out
	for f in "$JH_STATE"/logs/*.jhl; do
		[ -e "$f" ] || continue
		logs+=("$f")
		jh-verify -q "$f" || { echo "log $f does not verify"; return 1; }
	done
	[ "${#logs[@]}" -gt 0 ] || return 0
	out=$(jh-verify -L "$JH_STATE/ledger" "${logs[@]}" 2>&1) || true
	jq -e -s '[.[] | select(.ledger)] | all(.ledger.ok)' \
	    <<<"$out" >/dev/null && return 0
	echo "the ledger does not replay:"
	grep ledger <<<"$out"
	return 1
}

# state_sum: a digest of every file under JH_STATE, path and bytes, and
# of the checkpoint sink: what "nothing changed" compares.
state_sum() {
	(cd "$JH_STATE" && find . -type f -print0 | sort -z |
	    xargs -0 -r sha256sum; cat "${SINK:-$T/sink}" 2>/dev/null | sha256sum)
}

# known_bug WHAT: skips a test that shows a bug left to the change that
# owns its code, saying what it is; JH_RUN_BUGS=1 runs it (and it fails
# until the bug is fixed).
known_bug() {
	[ -n "${JH_RUN_BUGS:-}" ] || skip "BUG: $1"
}
