#!/usr/bin/env bats
# jh-status: the status line (Claude Code's captured statusLine input),
# -s summaries of verified logs, and the MCP server (a real SDK client
# and raw JSON-RPC).  Logs are made by the real pipeline:
# jh-decide | jh-seal | jh-chain.
#
# The large-log case uses the 100,000 entries of the issue (about 40 s on
# tmpfs, built by one jh-seal | jh-chain stream); JH_QUICK=1 makes it
# 10,000, as does a sanitizer or valgrind build.

load test_helper/common
load helpers/mcp

setup() {
	_common_setup
	jh_keys
	R="$T/repo"
	mkdir -p "$R" "$T/other"
	R=$(cd "$R" && pwd -P)
	FIX="$PROJECT_ROOT/tests/fixtures/claude-code/statusLine-stdin-interactive.json"
	SEQ="/usr/bin/python3 $PROJECT_ROOT/tests/helpers/cborseq.py"
	N=0
	# The project's grant, where jh-decide looks first: grants/<root>.
	mkdir -p "$JH_HOME/grants"
	G="$JH_HOME/grants/$(printf %s "$R" | sha256sum | cut -c1-64)"
	grant_doc 20000000000000 >"$T/grant.json"
	jh-seal -v -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" >"$G" 2>"$T/gid"
	GID=$(sed 's/.* //' "$T/gid")
	jh-decide -I -g "$G" 2>/dev/null
}

teardown() {
	if [ -n "${SHM:-}" ]; then rm -rf "$SHM"; fi
}

grant_doc() {
	jq -nc --argjson b "$1" '{audience: "joulehook:*", nbf: 0,
	    exp: 1900000000, budget_uj: $b, costs: {shell: 2000000},
	    caps: [{class: "shell", command: ["npm test", "npm run *", "echo *"]}],
	    policies: [
	      {id: "deploy-asks", when: {class: "shell", command: ["npm run deploy*"]},
	       verdict: "ask", reason: "deploys need a human"},
	      {id: "redact-token", when: {class: "shell"},
	       rewrite: {field: "command", regex: "ghp_[A-Za-z0-9]{36}", with: "REDACTED"}}]}'
}

# gate SESSION [-C cwd] COMMAND...: one PreToolUse per command, through
# jh-decide | jh-seal | jh-chain.
gate() {
	local s=$1 cwd=$R c
	shift
	if [ "$1" = -C ]; then cwd=$2; shift 2; fi
	for c in "$@"; do
		N=$((N + 1))
		jq -nc --arg s "$s" --arg id "toolu_$N" --arg c "$c" \
		    --arg cwd "$cwd" '{session_id: $s, tool_use_id: $id,
		    host: "claude-code", event: "PreToolUse", tool: "Bash",
		    class: "shell", cwd: $cwd, input: {command: $c},
		    content_id: null}'
	done | jh-decide | jh-seal | jh-chain >/dev/null
}

# eff SESSION ENFORCED UJ [PROVENANCE [SOURCE [GRANT]]]: one efficiency/1
# unit, as tests/seal.bats makes them, sealed and chained; the source is
# proxy when ENFORCED is 1, else transcript, unless given.
eff() {
	jq -nc --arg s "$1" --argjson enf "$2" --argjson uj "$3" \
	    --arg p "${4:-Estimator}" --arg src "${5:-}" --arg g "${6:-}" \
	    '{kind: "efficiency/1", session: $s,
	    unit: "msg_\($uj)", source: (if $src != "" then $src elif $enf == 1 then "proxy" else "transcript" end),
	    tokens_in: 10, tokens_out: 20, tokens_cache_read: 0,
	    tokens_cache_write: 0, accepted_tokens: 20,
	    energy: ({estimated_uj: $uj, provenance: $p} +
	        (if $p == "HwShunt" then {measured_uj: $uj} else {} end)),
	    coeff: "default-2026", duration_ms: 5, completed: 1, verdict: "ok",
	    enforced: $enf, debited_uj: (if $enf == 1 then $uj else 0 end)}
	    + (if $g != "" then {grant: $g} else {} end)' |
	    jh-seal | jh-chain >/dev/null
}

digest() { printf %s "$1" | sha256sum | cut -c1-64; }
logof() { echo "$JH_STATE/logs/$(digest "$1").jhl"; }

# The captured interactive statusLine input, as this test's session.
sl_input() {
	jq -c --arg s "$1" --arg r "$R" '.session_id = $s | .cwd = $r |
	    .workspace.current_dir = $r | .workspace.project_dir = $r' "$FIX"
}

# status SESSION [OPTIONS]: the status line for the captured input.
status() {
	local s=$1
	shift
	sl_input "$s" | jh-status "$@"
}

TOKEN="ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

@test "the status line from Claude Code's captured input shows the log's and the ledger's figures" {
	gate s1 "npm test" "npm test" "curl example.com" "npm run deploy" \
	    "echo $TOKEN"
	run -0 status s1
	assert_output "jh ⚡ 6 J tools (est) of 20 MJ · 2 allow 1 deny 1 ask 1 rewrite · chain 5 ok · unmetered"
	[ "$(printf %s "$output" | wc -m)" -le 100 ]
	# The same figures, verified, from the log and the ledger.
	run sh -c "jh-verify '$(logof s1)' | jq -r 'select(.core) | .core.verdict' | sort | uniq -c | tr -s ' ' | tr '\n' ,"
	assert_output " 2 allow, 1 ask, 1 deny, 1 rewrite,"
	run sh -c "jh-verify '$(logof s1)' | jq -s 'map(.core.debited_uj // 0) | add'"
	assert_output 6000000
	run sh -c "jh-verify -L '$JH_STATE/ledger' '$(logof s1)' | jq -c 'select(.ledger) | .ledger | [.spent_uj, .ok]'"
	assert_output "[6000000,true]"
	run sh -c "jh-verify '$(logof s1)' | jq -r 'select(.log) | .log.entries'"
	assert_output 5
}

@test "-p prints the same line in plain ASCII" {
	gate s1 "npm test" "curl example.com"
	run -0 status s1 -p
	assert_output "jh: 2 J tools (est) of 20 MJ | 1 allow 1 deny | chain 2 ok | unmetered"
	run sh -c "printf %s '$output' | LC_ALL=C grep -c '[^ -~]'"
	assert_output 0
}

@test "the meter's state: unmetered, observed, enforced; tool estimates are never the session's energy" {
	gate s1 "npm test"
	run -0 status s1 -p
	assert_output "jh: 2 J tools (est) of 20 MJ | 1 allow 0 deny | chain 1 ok | unmetered"
	# Telemetry only (enforced 0): observed, the units' estimate, and
	# not the tools' figure.
	gate s2 "npm test"
	eff s2 0 1500000
	run -0 status s2 -p
	assert_output "jh: model 1.5 J (est) of 20 MJ | 1 allow 0 deny | chain 2 ok | observed"
	refute_output --partial tools
	# One proxy unit (enforced 1) beside one that was only observed: the
	# line says which part was enforced; a reading and an estimate are
	# shown apart, never summed into one figure.
	gate s3 "npm test"
	eff s3 0 1000
	eff s3 1 2500000000 HwShunt
	run -0 status s3 -p
	assert_output "jh: model 2.5 kJ (measured) + 1 mJ (est) of 20 MJ | 1 allow 0 deny | chain 3 ok | enforced 1 of 2 calls"
	run -0 sh -c "jh-status -s '$(logof s3)' | jq -r .total.meter"
	assert_output "partly enforced"
	# every unit enforced: enforced
	gate s8 "npm test"
	eff s8 1 1000
	eff s8 1 2000 HwShunt
	run -0 status s8 -p
	assert_output --partial "| chain 3 ok | enforced"
	refute_output --partial "calls"
	# Readings only: measured, no estimate part.
	eff s5 0 3000000 HwShunt otel
	run -0 status s5 -p
	assert_output "jh: model 3 J (measured) of 20 MJ | 0 allow 0 deny | chain 1 ok | observed"
	# ModelBased: modelled, apart from the Estimator's figure.
	eff s6 0 4000 ModelBased run
	eff s6 0 5000 Estimator transcript
	run -0 status s6 -p
	assert_output "jh: model 4 mJ (modelled) + 5 mJ (est) of 20 MJ | 0 allow 0 deny | chain 2 ok | observed"
	# A task-level aggregate rolls up units already counted: not again.
	eff s6 0 9000 Estimator aggregate
	run -0 status s6 -p
	assert_output "jh: model 4 mJ (modelled) + 5 mJ (est) of 20 MJ | 0 allow 0 deny | chain 3 ok | observed"
	# enforced 1 from anything but the proxy is not the proxy's word;
	# a proxy unit whose ceiling was not enforced is observed.
	eff s7 1 9000 Estimator transcript
	eff s7 0 1000 Estimator proxy
	run -0 status s7 -p
	assert_output "jh: model 10 mJ (est) of 20 MJ | 0 allow 0 deny | chain 2 ok | observed"
	run -0 sh -c "jh-status -s '$(logof s7)' | jq -c '.total | [.meter, .efficiency]'"
	assert_output '["observed",{"receipts":2,"enforced":0,"observed":2}]'
	# A session with units only has no pinned root: the host's project
	# directory finds the grant.
	eff s4 1 7
	run -0 status s4 -p
	assert_output "jh: model 7 uJ (est) of 20 MJ | 0 allow 0 deny | chain 1 ok | enforced"
	run -0 status s4
	assert_output "jh ⚡ model 7 µJ (est) of 20 MJ · 0 allow 0 deny · chain 1 ok · enforced"
}

@test "the three meter words on Claude Code's captured input match the log, the ledger and -s" {
	# Built on the same session: unmetered, then observed, then partly
	# enforced (the first unit stays observed).
	gate s1 "npm test" "curl example.com"
	check() {
		run -0 status s1 -p
		assert_output "$1"
		# the word and the counts, as -s verifies them
		sum=$(jh-status -s "$(logof s1)")
		assert_equal "$(jq -r .total.meter <<<"$sum")" "$2"
		assert_equal "$(jq -r '.total.verdicts | "\(.allow // 0) allow \(.deny // 0) deny"' <<<"$sum")" "1 allow 1 deny"
		assert_equal "$(jq -r .total.entries <<<"$sum")" "$3"
		# the budget: the ledger's, as jh-verify -L reads it
		run -0 sh -c "jh-verify -L '$JH_STATE/ledger' '$(logof s1)' | jq -r 'select(.ledger) | .ledger.ok'"
		assert_output true
	}
	check "jh: 2 J tools (est) of 20 MJ | 1 allow 1 deny | chain 2 ok | unmetered" unmetered 2
	eff s1 0 1200000
	check "jh: model 1.2 J (est) of 20 MJ | 1 allow 1 deny | chain 3 ok | observed" observed 3
	eff s1 1 800000 HwShunt
	check "jh: model 800 mJ (measured) + 1.2 J (est) of 20 MJ | 1 allow 1 deny | chain 4 ok | enforced 1 of 2 calls" "partly enforced" 4
	# The figures, from the verified receipts: the reading and the
	# estimate of the units, the tools' debits.
	run -0 sh -c "jh-status -s '$(logof s1)' | jq -c '.total.energy | [.efficiency.HwShunt.measured_uj, .efficiency.Estimator.estimated_uj, .tools.Estimator.debited_uj]'"
	assert_output "[800000,1200000,2000000]"
}

@test "an old (JHHEAD1, JHHEAD2) sidecar is named on the line and rebuilt by the next append's scan" {
	gate s1 "npm test" "npm test"
	# The record of the previous format: magic JHHEAD1, a shorter layout.
	printf 'JHHEAD1\0' >"$(logof s1).head"
	head -c 200 /dev/zero >>"$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: budget 20 MJ | chain unchecked: an older head record, rebuilt at the next receipt"
	gate s1 "npm test"
	run -0 status s1 -p
	assert_output "jh: 6 J tools (est) of 20 MJ | 3 allow 0 deny | chain 3 ok | unmetered"
	run -0 head -c 8 "$(logof s1).head"
	assert_output "JHHEAD3"
	# the layout before the index
	printf 'JHHEAD2\0' >"$(logof s1).head"
	head -c 200 /dev/zero >>"$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: budget 20 MJ | chain unchecked: an older head record, rebuilt at the next receipt"
	gate s1 "npm test"
	run -0 head -c 8 "$(logof s1).head"
	assert_output "JHHEAD3"
}

@test "a stale sidecar is named stale, a missing or damaged one unchecked, another session's log bad" {
	gate s1 "npm test" "npm test"
	cp "$(logof s1).head" "$T/old.head"
	gate s1 "npm test"
	run -0 status s1 -p
	assert_output --partial "3 allow 0 deny | chain 3 ok"
	# An old record: the figures it has, said to be stale.
	cat "$T/old.head" >"$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: 4 J tools (est) of 20 MJ | 2 allow 0 deny | chain 2 stale | unmetered"
	# The next append rebuilds it; a torn tail after it is stale again.
	gate s1 "npm test"
	run -0 status s1 -p
	assert_output --partial "| chain 4 ok |"
	head -c 100 "$(logof s1)" >>"$(logof s1)"
	run -0 status s1 -p
	assert_output --partial "| chain 4 stale |"
	# No record, or one that fails its CRC: no figures at all.
	rm "$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: budget 20 MJ | chain unchecked: no head record"
	printf 'XXXXXXXXXX' >"$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: budget 20 MJ | chain unchecked: the head record is damaged"
	# A record that matches its log, but the log is another session's.
	gate s2 "npm test"
	cat "$(logof s2)" >"$(logof s1)"
	cat "$(logof s2).head" >"$(logof s1).head"
	run -0 status s1 -p
	assert_output "jh: 2 J tools (est) of 20 MJ | 1 allow 0 deny | chain 1 bad | unmetered"
}

@test "an append in progress (the log locked) is said, not taken for damage" {
	gate s1 "npm test"
	flock -x "$(logof s1)" sleep 30 &
	holder=$!
	for i in $(seq 50); do
		flock -n -s "$(logof s1)" true || break
		sleep 0.1
	done
	run -0 status s1 -p
	kill "$holder"
	wait "$holder" || true
	assert_output "jh: 2 J tools (est) of 20 MJ | 1 allow 0 deny | chain 1 appending | unmetered"
}

@test "no log yet, no grant, another grant; bad input is a line and status 0" {
	run -0 status fresh -p
	assert_output "jh: no receipts yet in this session | budget 20 MJ"
	run -0 status fresh
	assert_output "jh ⚡ no receipts yet in this session · budget 20 MJ"
	# A session outside the project, with no JH_HOME/grant: no budget.
	run -0 sh -c "echo '{\"session_id\":\"x\",\"cwd\":\"$T/other\"}' | jh-status -p"
	assert_output "jh: no receipts yet in this session"
	gate s1 -C "$T/other" "npm test"
	run -0 sh -c "echo '{\"session_id\":\"s1\"}' | jh-status -p"
	assert_output "jh: 0 J tools (est) (no grant) | 0 allow 1 deny | chain 1 ok | unmetered"
	# -g names the grant; a grant without a ledger says so.
	grant_doc 5000000000000 >"$T/g5.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g5.json" >"$T/g5"
	run -0 sh -c "echo '{\"session_id\":\"s1\"}' | jh-status -p -g '$T/g5'"
	assert_output "jh: 0 J tools (est) (no ledger) | 0 allow 1 deny | chain 1 ok | unmetered"
	jh-decide -I -g "$T/g5" 2>/dev/null
	run -0 sh -c "echo '{\"session_id\":\"s1\"}' | jh-status -p -g '$T/g5'"
	assert_output "jh: 0 J tools (est) of 5 MJ | 0 allow 1 deny | chain 1 ok | unmetered"
	for input in 'not json' '[1,2]' '{"session_id": 5}' '{}' '' \
	    '{"session_id": ""}' '{"session_id": "s1"} trailing'; do
		run -0 jh-status -p <<<"$input"
		assert_output --regexp '^jh: status unavailable: (the input is not a JSON object|no session_id)$'
	done
	run -0 jh-status -p </dev/null
	assert_output "jh: status unavailable: the input is not a JSON object"
	run -0 sh -c "head -c 2000000 /dev/zero | tr '\\0' ' ' | jh-status -p"
	assert_output --partial "jh: status unavailable: input larger than"
	run -2 jh-status -x
	run -2 jh-status -p -s
	run -2 jh-status extra-argument
	run -0 jh-status -h
	assert_line --index 0 --partial "usage: jh-status [-p]"
}

@test "planted links and FIFOs in the state are refused on the line, never followed or waited on" {
	mkdir -p "$JH_STATE/logs"
	chmod 700 "$JH_STATE/logs"
	echo secret >"$T/target"
	ln -s "$T/target" "$(logof s1)"
	run -0 timeout 10 sh -c "echo '{\"session_id\":\"s1\"}' | jh-status -p"
	assert_output --regexp '^jh: status unavailable: .*\.jhl: is a symbolic link$'
	mkfifo "$(logof s2)"
	run -0 timeout 10 sh -c "echo '{\"session_id\":\"s2\"}' | jh-status -p"
	assert_output --regexp '^jh: status unavailable: .*\.jhl: not a regular file$'
}

@test "the status line reads only the log's last entry, not the whole log" {
	gate s1 "npm test" "npm test" "npm test"
	# Damage the first entry: a verification fails, the line does not
	# read it.
	flip_byte "$(logof s1)" 100
	run -0 status s1 -p
	assert_output --partial "| chain 3 ok |"
	run -1 jh-status -s "$(logof s1)"
	if ! command -v strace >/dev/null; then
		skip "no strace to count the bytes read"
	fi
	local cmds=() i
	for i in $(seq 300); do cmds+=("npm test"); done
	gate s2 "${cmds[@]}"
	# 300 entries (~250 kB): the line reads a few kB of it.
	sl_input s2 >"$T/in.json"
	# (LeakSanitizer cannot run under ptrace)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -e trace=read,pread64 -o "$T/trace" jh-status -p <"$T/in.json"
	size=$(stat -c %s "$(logof s2)")
	read_bytes=$(awk '/^[0-9]+ +(read|pread64)\(/ { sub(/.*= /, ""); if ($1 > 0) n += $1 } END { print n + 0 }' "$T/trace")
	[ "$size" -gt 200000 ] || fail "log too small: $size"
	[ "$read_bytes" -lt 100000 ] || fail "read $read_bytes bytes of a $size-byte log"
}

# The large log: one jh-seal | jh-chain stream, on tmpfs where there is one.
big_log() {
	local n=$1
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		SHM=$(mktemp -d /dev/shm/jh-status-test.XXXXXX)
		export JH_STATE="$SHM/state"
	fi
	mkdir -p "$JH_STATE/roots"
	chmod 700 "$JH_STATE" "$JH_STATE/roots"
	jh-decide -I -g "$G" 2>/dev/null
	printf %s "$R" >"$JH_STATE/roots/$(digest big)"
	chmod 600 "$JH_STATE/roots/$(digest big)"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"kind\":\"decision/1\",\"session_id\":\"big\",\"tool\":\"%s\",\"input\":{\"command\":\"npm test %d\"},\"cwd\":\"/repo\",\"host\":\"claude-code\",\"event\":\"PreToolUse\",\"class\":\"%s\",\"tool_use_id\":\"toolu_%d\",\"verdict\":\"%s\",\"code\":\"%s\",\"reason\":\"r\",\"cost_uj\":2000000,\"debited_uj\":%d,\"provenance\":\"Estimator\",\"remaining_uj\":1000,\"rule\":\"caps[0]\"}\n", (i % 10 ? "Bash" : "Read"), i, (i % 10 ? "shell" : "read"), i, (i % 4 ? "allow" : "deny"), (i % 4 ? "ok" : "not-granted"), (i % 4 ? 2000000 : 0), i }' |
	    jh-seal | jh-chain >/dev/null
}

@test "a large log: -s summarizes it streaming, the status line stays O(1), MCP lists it page by page" {
	local n=100000 plain=1
	# An ASan or valgrind build (jh-status not static) runs the 10k log
	# and has no RSS bound: its shadow memory is not the program's.
	file -L "$JH_BIN/jh-status" | grep -q 'statically linked' || plain=0
	[ "${JH_QUICK:-0}" = 1 ] || [ "$plain" = 0 ] && n=10000
	big_log "$n"
	log=$(logof big)
	# The status line: the same answer in about the time of a small log.
	run -0 sh -c "echo '{\"session_id\":\"big\"}' | jh-status -p"
	assert_output --regexp "^jh: [0-9.]+ kJ tools \(est\) of 20 MJ \| $((n * 3 / 4)) allow $((n / 4)) deny \| chain $n ok \| unmetered$"
	echo '{"session_id":"big"}' >"$T/in.json"
	t0=$(date +%s%N)
	for i in $(seq 20); do jh-status <"$T/in.json" >/dev/null; done
	t1=$(date +%s%N)
	for i in $(seq 20); do cat <"$T/in.json" >/dev/null; done
	t2=$(date +%s%N)
	echo "# status line on $n entries: $(( (t1 - t0) / 20000 )) us per call; cat: $(( (t2 - t1) / 20000 )) us" >&3
	# -s: every entry verified, counts exact, memory bounded.
	if [ -x /usr/bin/time ] && [ "$plain" = 1 ]; then
		/usr/bin/time -f %M -o "$T/rss" jh-status -s "$log" >"$T/sum.json"
		[ "$(cat "$T/rss")" -lt 65536 ] || fail "max RSS $(cat "$T/rss") kB"
	else
		jh-status -s "$log" >"$T/sum.json"
	fi
	run jq -c '.total | [.entries, .verified, .failed, .ok, .verdicts, .tools, .classes, .energy.tools.Estimator.debited_uj]' "$T/sum.json"
	assert_output "[$n,$n,0,true,{\"allow\":$((n * 3 / 4)),\"deny\":$((n / 4))},{\"Bash\":$((n * 9 / 10)),\"Read\":$((n / 10))},{\"read\":$((n / 10)),\"shell\":$((n * 9 / 10))},$((n * 3 / 4 * 2000000))]"
	# MCP: a fresh server reads the last entry by scanning offsets only.
	last="joulehook://session/$(digest big)/$((n - 1))"
	run -0 sh -c "jq -nc --arg u '$last' '{jsonrpc:\"2.0\",id:1,method:\"resources/read\",params:{uri:\$u}}' | jh-status -m -r '$R' | jq -r '.result.contents[0].text | fromjson | [.ok, .chain.seq] | @csv'"
	assert_output "true,$((n - 1))"
	# Pages of 100, each read on from the cursor's offset.
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"resources/list"}' |
	    jh-status -m -r "$R" >"$T/p1"
	cur=$(jq -r .result.nextCursor "$T/p1")
	run jq '.result.resources | length' "$T/p1"
	assert_output 100
	jq -nc --arg c "$cur" '{jsonrpc:"2.0",id:2,method:"resources/list",params:{cursor:$c}}' |
	    jh-status -m -r "$R" >"$T/p2"
	run jq -r '.result.resources[0].name' "$T/p2"
	assert_output "$(digest big | cut -c1-12)/99"
}

@test "-s: counts by verdict, code, tool and class and energy by provenance match jh-verify; failures exit 1" {
	gate s1 "npm test" "curl example.com" "npm run deploy" "echo $TOKEN"
	eff s1 1 3000 HwShunt
	eff s1 0 5000
	run -0 jh-status -s "$(logof s1)"
	echo "$output" >"$T/sum.json"
	jh-verify "$(logof s1)" >"$T/v.jsonl"
	by() { jq -sc "[.[] | select(.core.kind == \"decision/1\") | .core.$1] | group_by(.) | map({(.[0]): length}) | add" "$T/v.jsonl"; }
	for f in verdict:verdicts code:codes tool:tools class:classes; do
		assert_equal "$(jq -c ".logs[0].${f#*:}" "$T/sum.json")" "$(by "${f%%:*}")"
	done
	run jq -c '.logs[0] | [.session, .ok, .entries, .verified, .meter, .efficiency, .energy]' "$T/sum.json"
	assert_output '["s1",true,6,6,"partly enforced",{"receipts":2,"enforced":1,"observed":1},{"tools":{"Estimator":{"receipts":4,"cost_uj":6000000,"debited_uj":4000000}},"efficiency":{"HwShunt":{"receipts":1,"estimated_uj":3000,"measured_uj":3000,"debited_uj":3000,"accepted_tokens":20,"tokens_out":20,"duration_ms":5,"uj_per_accepted_token":150,"tokens_per_s":4000},"Estimator":{"receipts":1,"estimated_uj":5000,"measured_uj":0,"debited_uj":0,"accepted_tokens":20,"tokens_out":20,"duration_ms":5,"uj_per_accepted_token":250,"tokens_per_s":4000}}}]'
	assert_equal "$(jq .logs[0].energy.tools.Estimator.cost_uj "$T/sum.json")" \
	    "$(jq -s 'map(select(.core.kind == "decision/1") | .core.cost_uj) | add' "$T/v.jsonl")"
	assert_equal "$(jq .logs[0].first_ts "$T/sum.json")" "$(jq -s '[.[] | select(.core) | .core.ts] | first' "$T/v.jsonl")"
	assert_equal "$(jq .logs[0].last_ts "$T/sum.json")" "$(jq -s '[.[] | select(.core) | .core.ts] | last' "$T/v.jsonl")"
	# From the standard input, and twice: the total adds the logs up.
	run -0 sh -c "jh-status -s - '$(logof s1)' <'$(logof s1)' | jq -c '.total | [.logs, .entries, .ok, .verdicts.allow]'"
	assert_output "[2,12,true,2]"
	# A changed byte: exit 1, the first broken item named.
	cp "$(logof s1)" "$T/bad.jhl"
	flip_byte "$T/bad.jhl" 300
	run -1 jh-status -s "$T/bad.jhl"
	run jq -c '.logs[0] | [.ok, .first_broken.item, .total]' <<<"$output"
	assert_output "[false,1,null]"
	# A log that cannot be read: exit 2, the others still summarized.
	run -2 --separate-stderr jh-status -s "$T/missing.jhl" "$(logof s1)"
	assert_equal "$(jq -c '.total.logs' <<<"$output")" 1
	[[ "$stderr" == *"missing.jhl"* ]]
	# No trusted keys: exit 2.
	rm "$JH_HOME/stewards" "$JH_HOME/trust"
	run -2 jh-status -s "$(logof s1)"
	assert_output --partial "no trusted keys"
}

@test "-s without logs: the sessions pinned to the project root only" {
	gate s1 "npm test"
	gate s2 "npm test" "npm test"
	gate s3 -C "$T/other" "npm test"
	run -0 sh -c "cd '$R' && jh-status -s | jq -c '[.logs[].session] | sort'"
	assert_output '["s1","s2"]'
	run -0 sh -c "jh-status -s -r '$T/other' | jq -c '[.logs[].session]'"
	assert_output '["s3"]'
	run -0 sh -c "jh-status -s -r '$T' | jq -c '.total | [.logs, .ok]'"
	assert_output '[0,true]'
}

# rpc LINE...: raw JSON-RPC lines to a server of the project.
rpc() {
	printf '%s\n' "$@" | jh-status -m -r "$R"
}

@test "MCP over raw stdin: handshake, discovery, ping, and every kind of bad request" {
	gate s1 "npm test"
	run -0 rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    '{"jsonrpc":"2.0","id":"two","method":"ping"}' \
	    '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}' \
	    '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}' \
	    '{"jsonrpc":"2.0","id":5,"method":"server/discover"}'
	assert_equal "${#lines[@]}" 5
	assert_equal "$(jq -c '[.id, .result.protocolVersion, .result.serverInfo.name, (.result.capabilities | keys)]' <<<"${lines[0]}")" '[1,"2025-06-18","jh-status",["resources","tools"]]'
	assert_equal "${lines[1]}" '{"jsonrpc":"2.0","id":"two","result":{}}'
	assert_equal "$(jq -r .result.protocolVersion <<<"${lines[2]}")" 2025-03-26
	assert_equal "$(jq -r .result.protocolVersion <<<"${lines[3]}")" 2025-11-25
	assert_equal "$(jq -c '.result | [.supportedVersions, .serverInfo.name, (.capabilities | keys)]' <<<"${lines[4]}")" '[["2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"jh-status",["resources","tools"]]'
	run -0 rpc 'not json' '{"jsonrpc":"2.0","id":1' '[{"jsonrpc":"2.0","id":1,"method":"ping"}]' \
	    '42' '{"id":2,"method":"ping"}' '{"jsonrpc":"2.0","id":3}' \
	    '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}' \
	    '{"jsonrpc":"2.0","id":4,"method":"no/such"}' \
	    '{"jsonrpc":"2.0","method":"notifications/no-such"}' \
	    '{"jsonrpc":"2.0","id":99,"result":{}}' \
	    '{"jsonrpc":"2.0","id":5,"method":"resources/read"}' \
	    '{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":7}}' \
	    '{"jsonrpc":"2.0","id":7,"method":"resources/read","params":[1]}' \
	    '{"jsonrpc":"2.0","id":8,"method":"resources/list","params":{"cursor":"bogus"}}' \
	    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}' \
	    '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"rm"}}' \
	    '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"verify","arguments":{"session":1}}}' \
	    '{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"joulehook://session/nope"}}' \
	    "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest s1)/5\"}}" \
	    "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest s1)/0x\"}}" \
	    '{"jsonrpc":"2.0","id":15,"method":"initialize","params":{}}' \
	    '{"jsonrpc":"2.0","id":16,"method":"ping"}'
	run jq -c '[.id, .error.code]' <<<"$output"
	assert_output "$(printf '%s\n' '[null,-32700]' '[null,-32700]' '[null,-32600]' \
	    '[null,-32600]' '[2,-32600]' '[3,-32600]' '[null,-32600]' '[4,-32601]' \
	    '[5,-32602]' '[6,-32602]' '[7,-32602]' '[8,-32602]' '[9,-32602]' \
	    '[10,-32602]' '[11,-32602]' '[12,-32002]' '[13,-32002]' '[14,-32002]' \
	    '[15,-32602]' '[16,null]')"
	# --mcp is -m; EOF ends the server with status 0.
	run -0 sh -c "printf '%s\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}' | jh-status --mcp -r '$R'"
	assert_output '{"jsonrpc":"2.0","id":1,"result":{}}'
	run -0 jh-status -m </dev/null
	assert_output ""
}

@test "MCP with the real SDK: initialize, list page by page, read JSON and CBOR, tools/list, verify" {
	mcp_sdk_install
	local cmds=() i
	for i in $(seq 150); do cmds+=("npm test"); done
	gate s1 "${cmds[@]}"
	gate s2 "npm test" "curl example.com" "npm run deploy"
	gate s3 -C "$T/other" "npm test"
	run -0 mcp_client "$R" info
	assert_equal "$(jq -c '[.serverInfo.name, (.capabilities | keys)]' <<<"$output")" '["jh-status",["resources","tools"]]'
	# 2 sessions and 153 receipts, in pages of 100; not s3's.
	run -0 mcp_client "$R" list
	echo "$output" >"$T/list.json"
	assert_equal "$(jq -c '[.pages, (.resources | length), (.resources | map(.uri) | unique | length)]' "$T/list.json")" '[2,155,155]'
	assert_equal "$(jq -r --arg d "$(digest s1)" '[.resources[] | select(.uri | startswith("joulehook://session/" + $d + "/"))] | length' "$T/list.json")" 150
	assert_equal "$(jq -r --arg d "$(digest s3)" '[.resources[] | select(.uri | contains($d))] | length' "$T/list.json")" 0
	assert_equal "$(jq -r --arg d "$(digest s2)" '.resources[] | select(.uri == "joulehook://session/" + $d + "/2") | .title' "$T/list.json")" "decision/1 ask Bash"
	assert_equal "$(jq -r '[.resources[].mimeType] | unique | join(",")' "$T/list.json")" application/json
	# A receipt: the line jh-verify prints, and the entry's CBOR.
	run -0 mcp_client "$R" read "joulehook://session/$(digest s1)/42"
	echo "$output" >"$T/read.json"
	assert_equal "$(jq -c '.contents[0].text | fromjson' "$T/read.json")" \
	    "$(jh-verify "$(logof s1)" | jq -c 'select(.chain.seq == 42)')"
	assert_equal "$(jq -r '[.contents[].mimeType] | join(",")' "$T/read.json")" application/json,application/cbor
	mkdir "$T/e"
	$SEQ split "$(logof s1)" "$T/e"
	jq -r '.contents[1].blob' "$T/read.json" | base64 -d >"$T/blob"
	cmp "$T/blob" "$T/e/42"
	# A session: its status, from the head record and the ledger.
	run -0 mcp_client "$R" read "joulehook://session/$(digest s2)"
	assert_equal "$(jq -c '.contents[0].text | fromjson | [.session, .chain, .verdicts, .meter, .ledger.budget_uj]' <<<"$output")" \
	    '["s2",{"state":"ok","entries":3},{"allow":1,"deny":1,"ask":1,"rewrite":0},"unmetered",20000000000000]'
	run -1 mcp_client "$R" read "joulehook://session/$(digest s3)/0"
	assert_output --partial "Resource not found"
	run -0 mcp_client "$R" tools
	assert_equal "$(jq -c '[.tools[] | [.name, .inputSchema.type, .inputSchema.properties.session.type]]' <<<"$output")" '[["verify","object","string"]]'
	# verify: every session, one by id or digest; a tampered log fails.
	run -0 mcp_client "$R" verify
	assert_equal "$(jq -c '[.isError, (.content[0].text | fromjson | .total | [.logs, .entries, .ok])]' <<<"$output")" '[false,[2,153,true]]'
	run -0 mcp_client "$R" verify s2
	assert_equal "$(jq -c '.content[0].text | fromjson | [.logs[].session]' <<<"$output")" '["s2"]'
	run -0 mcp_client "$R" verify "$(digest s2)"
	assert_equal "$(jq -c '.content[0].text | fromjson | [.logs[].session]' <<<"$output")" '["s2"]'
	run -0 mcp_client "$R" verify s3
	assert_equal "$(jq -c '[.isError, .content[0].text]' <<<"$output")" "[true,\"no session s3 of the project $R\"]"
	# One byte of entry 6 changed.
	off=$(cat "$T"/e/{0..5} | wc -c)
	flip_byte "$(logof s1)" $((off + 100))
	run -0 mcp_client "$R" verify
	assert_equal "$(jq -c '[.isError, (.content[0].text | fromjson | [.total.ok, (.logs[] | select(.session == "s1") | .first_broken.item)])]' <<<"$output")" '[true,[false,7]]'
	# Reading the damaged entry says so, as jh-verify does; the one
	# before it is intact.
	run -0 mcp_client "$R" read "joulehook://session/$(digest s1)/6"
	assert_equal "$(jq -c '.contents[0].text | fromjson | .ok' <<<"$output")" false
	run -0 mcp_client "$R" read "joulehook://session/$(digest s1)/5"
	assert_equal "$(jq -c '.contents[0].text | fromjson | .ok' <<<"$output")" true
}

@test "MCP serves a session with only metered model calls (no pinned root) when its units debited the project's grant" {
	gate s1 "npm test"
	# jh-proxy's units name the grant they debited; no tool call was
	# gated, so no root is pinned.
	eff m1 1 2500000 Estimator proxy "$GID"
	eff m1 1 1000 Estimator proxy "$GID"
	# another grant's units, and units that name none: not this project's
	eff m2 1 7 Estimator proxy "sha256:$(printf x | sha256sum | cut -c1-64)"
	eff m3 0 9 Estimator transcript
	[ ! -e "$JH_STATE/roots/$(digest m1)" ]
	run -0 rpc '{"jsonrpc":"2.0","id":1,"method":"resources/list"}'
	uris=$(jq -r '.result.resources[].uri' <<<"$output" | sort)
	assert_equal "$uris" "$(printf '%s\n' "joulehook://session/$(digest s1)" "joulehook://session/$(digest s1)/0" \
	    "joulehook://session/$(digest m1)" "joulehook://session/$(digest m1)/0" "joulehook://session/$(digest m1)/1" | sort)"
	# read: the session's status and a unit, verified
	run -0 rpc "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest m1)\"}}"
	assert_equal "$(jq -c '.result.contents[0].text | fromjson | [.session, .meter, .efficiency, .energy.model_estimated_uj, .energy.model_measured_uj, .energy.tools_estimated_uj]' <<<"$output")" \
	    '["m1","enforced",{"receipts":2,"enforced":2,"observed":0,"measured":0},2501000,0,0]'
	run -0 rpc "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest m1)/1\"}}"
	assert_equal "$(jq -c '.result.contents[0].text | fromjson | [.ok, .chain.seq, .core.kind, .core.grant]' <<<"$output")" "[true,1,\"efficiency/1\",\"$GID\"]"
	run -0 rpc "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest m2)/0\"}}"
	assert_equal "$(jq -c .error.code <<<"$output")" -32002
	# verify covers it; -s of the project too
	run -0 rpc '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"verify","arguments":{"session":"m1"}}}'
	assert_equal "$(jq -c '.result | [.isError, (.content[0].text | fromjson | .total | [.logs, .entries, .ok, .meter])]' <<<"$output")" '[false,[1,2,true,"enforced"]]'
	run -0 sh -c "jh-status -s -r '$R' | jq -c '[.logs[].session] | sort'"
	assert_output '["m1","s1"]'
	# A root pinned elsewhere wins over the grant: m1 is then not ours.
	printf %s "$T/other" >"$JH_STATE/roots/$(digest m1)"
	chmod 600 "$JH_STATE/roots/$(digest m1)"
	run -0 sh -c "jh-status -s -r '$R' | jq -c '[.logs[].session]'"
	assert_output '["s1"]'
}

@test "-c takes the state from the installer's config, never from the environment" {
	gate s1 "npm test" "curl example.com"
	printf '# test\nbindir=/nonexistent\nhome=%s\nstate=%s\nsink=/x/y\n' "$JH_HOME" "$JH_STATE" >"$T/hook.conf"
	chmod 600 "$T/hook.conf"
	sl_input s1 >"$T/in.json"
	# The environment names an empty state: -c wins.
	mkdir -p "$T/evil/logs"
	run -0 sh -c "JH_HOME='$T/evil' JH_STATE='$T/evil' jh-status -p -c '$T/hook.conf' <'$T/in.json'"
	assert_output --partial "1 allow 1 deny | chain 2 ok"
	run -0 sh -c "JH_HOME='$T/evil' JH_STATE='$T/evil' jh-status -p <'$T/in.json'"
	assert_output "jh: no receipts yet in this session"
	run -0 sh -c "cd '$R' && JH_STATE='$T/evil' jh-status -c '$T/hook.conf' -m </dev/null"
	run -0 sh -c "printf '%s\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}' | (cd '$R' && JH_STATE='$T/evil' jh-status -c '$T/hook.conf' -m) | jq '.result.resources | length'"
	assert_output 3
	# A config the installer did not write: refused, status 2.
	chmod 620 "$T/hook.conf"
	run -2 jh-status -p -c "$T/hook.conf" <"$T/in.json"
	assert_output --partial "only its owner can write"
	chmod 600 "$T/hook.conf"
	run -2 jh-status -p -c "hook.conf" <"$T/in.json"
	assert_output --partial "not absolute"
	printf 'home=%s\n' "$JH_HOME" >"$T/half.conf"
	chmod 600 "$T/half.conf"
	run -2 jh-status -p -c "$T/half.conf" <"$T/in.json"
	assert_output --partial "needs home and state"
	printf 'home=%s\nstate=relative\n' "$JH_HOME" >"$T/rel.conf"
	chmod 600 "$T/rel.conf"
	run -2 jh-status -c "$T/rel.conf" -s
	assert_output --partial "not an absolute path"
	ln -s "$T/hook.conf" "$T/link.conf"
	run -2 jh-status -p -c "$T/link.conf" <"$T/in.json"
}

@test "MCP: when the project's receipts change while it is idle, the server says so once (notifications/resources/list_changed)" {
	gate s1 "npm test"
	# initialize and list, then a new receipt, then idle: one notification;
	# none before the client listed, none again until it lists again
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}' \
		    '{"jsonrpc":"2.0","id":2,"method":"resources/list"}'
		sleep 1.5
		gate s1 "npm test"
		gate s2 "npm test"
		sleep 3.5
		printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"resources/list"}'
		sleep 2.5
	} | jh-status -m -r "$R" >"$T/out.jsonl"
	run -0 jq -c '[.id, .method, (.result.resources // [] | length)]' "$T/out.jsonl"
	assert_output '[1,null,0]
[2,null,2]
[null,"notifications/resources/list_changed",0]
[3,null,5]'
	run -0 jq -c 'select(.id == 1) | .result.capabilities.resources' "$T/out.jsonl"
	assert_output '{"listChanged":true}'
}

@test "the status line is statically linked: an LD_PRELOAD Claude Code's shell passes on never runs in it" {
	file -L "$JH_BIN/jh-status" | grep -q 'statically linked' || {
		echo "# SKIPPED: $JH_BIN/jh-status is not static (asan or valgrind build)" >&3
		skip "jh-status is not statically linked (asan or valgrind build)"
	}
	gate s1 "npm test"
	printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
	    '__attribute__((constructor)) static void evil(void) {' \
	    '	FILE *f = fopen(getenv("EVIL_LOG"), "a");' \
	    '	if (f) { fputs("ran\n", f); fclose(f); }' \
	    '	puts("jh: 0 J of 20 MJ | all is well | faked"); exit(0); }' >"$T/evil.c"
	cc -shared -fPIC -o "$T/evil.so" "$T/evil.c"
	run -0 env LD_PRELOAD="$T/evil.so" EVIL_LOG="$T/evil.log" cat /dev/null
	assert_output --partial faked	# the library works on a dynamic program
	run -0 sh -c "sl_in=\$(cat); printf '%s' \"\$sl_in\" | LD_PRELOAD='$T/evil.so' EVIL_LOG='$T/evil2.log' jh-status -p" <<<"$(sl_input s1)"
	refute_output --partial faked
	assert_output --partial "1 allow"
	assert_file_not_exist "$T/evil2.log"
}

# A fifth review, of the MCP server and the status line as the agent
# sees them: a link planted in another project's root, a sink the verify
# tool left out, a default grant named for a session of the project's,
# a request line that parses to 80 times its size, a stewards file that
# does not load.
@test "MCP and the line hold against planted links, a cut log, a huge line and bad stewards" {
	gate s1 "npm test" "npm test" "npm test"
	gate s3 -C "$T/other" "npm test"
	# a link where another project's root was: its sessions stay its own
	mv "$T/other" "$T/other.real"
	ln -s "$R" "$T/other"
	run -0 rpc '{"jsonrpc":"2.0","id":1,"method":"resources/list"}'
	refute_output --partial "$(digest s3)"
	run -0 rpc '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"verify","arguments":{"session":"s3"}}}'
	run -0 jq -r '.result.content[0].text' <<<"$output"
	refute_output --partial '"entries":1'
	rm "$T/other"
	mv "$T/other.real" "$T/other"
	# the verify tool holds a log to the config's sink, as -s does
	jh-chain -c -i s1 >"$T/sink"
	printf 'home=%s\nstate=%s\nsink=%s\n' "$JH_HOME" "$JH_STATE" "$T/sink" >"$T/hook.conf"
	chmod 600 "$T/hook.conf"
	mkdir "$T/e"
	$SEQ split "$(logof s1)" "$T/e"
	cat "$T/e/0" "$T/e/1" >"$(logof s1)"
	rm -f "$(logof s1).head"
	run -0 sh -c "printf '%s\n' '{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"verify\",\"arguments\":{\"session\":\"s1\"}}}' |
	    jh-status -m -c '$T/hook.conf' -r '$R'"
	run -0 jq -c '.result | [.isError, (.content[0].text | fromjson | .logs[0].extent)]' <<<"$output"
	assert_output '[true,"truncated: the checkpoint has 3 entries, the log 2"]'
	# a session with only model calls shows the project's grant
	eff m1 1 2500000 Estimator proxy "$GID"
	grant_doc 7000000 >"$T/g7.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g7.json" >"$JH_HOME/grant"
	run -0 rpc "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"joulehook://session/$(digest m1)\"}}"
	run -0 jq -r '.result.contents[0].text | fromjson | .grant' <<<"$output"
	assert_output "$GID"
	# a request over 1 MiB is refused unparsed
	run -0 sh -c "python3 -c 'import sys; sys.stdout.write(\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"ping\\\",\\\"params\\\":{\\\"a\\\":[\" + \",\".join([\"{}\"] * 600000) + \"]}}\\n\")' |
	    jh-status -m -r '$R'"
	assert_output --partial "over 1 MiB"
	# stewards that do not load: the line checks no signature, and says so
	cp "$JH_HOME/stewards" "$T/stewards.ok"
	echo garbage >"$JH_HOME/stewards"
	run -0 --separate-stderr status s3 -p
	assert_output --partial "chain unchecked: the stewards file does not load"
	cp "$T/stewards.ok" "$JH_HOME/stewards"
}
