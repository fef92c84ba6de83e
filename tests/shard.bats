#!/usr/bin/env bats
# Shards (jh-grant shard, JCP's sharding): one grant split into sibling
# grants whose budgets sum within what the parent had left, each spent on
# its own machine's ledger with no shared file; a shard whose figures do
# not add up is refused at sealing, by the verifier and by the gate; and
# jh-verify -L - over every machine's logs gives the parent's total.

load test_helper/common

setup() {
	_common_setup
	jh_keys
	# jh-grant finds its programs beside itself: the test build's
	mkdir -p "$T/bin"
	cp "$PROJECT_ROOT/scripts/jh-grant" "$T/bin/jh-grant"
	for p in jh-seal jh-verify jh-decide; do
		ln -s "$JH_BIN/$p" "$T/bin/$p"
	done
	jq -nc '{audience: "joulehook:*", nbf: 0, exp: 4102444800,
	    budget_uj: 1000000000, costs: {shell: 1000}, policies: [],
	    caps: [{id: "shell", class: "shell", command: ["*"]}]}' >"$T/grant.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>/dev/null
}

jg() {
	sh "$T/bin/jh-grant" "$@"
}

# run_on MACHINE GRANT SESSION ID: one Bash call decided on that
# machine's state (JH_STATE=$T/MACHINE), sealed and chained there
run_on() {
	jq -nc --arg s "$3" --arg id "$4" --arg cwd "$T" '{session_id: $s,
	    transcript_path: "/dev/null", cwd: $cwd, hook_event_name: "PreToolUse",
	    tool_name: "Bash", tool_input: {command: "true"}, tool_use_id: $id}' |
	    JH_STATE="$T/$1" jh-normalize -H claude-code |
	    JH_STATE="$T/$1" jh-decide -g "$2" |
	    JH_STATE="$T/$1" jh-seal | JH_STATE="$T/$1" jh-chain >/dev/null
}

@test "jh-grant shard splits what a grant has left into siblings spent on their own ledgers, and the parent cannot spend it again" {
	run_on state "$JH_HOME/grant" s0 toolu_parent
	run -0 --separate-stderr jg -y -g "$JH_HOME/grant" shard -n 3 -o "$T/shards"
	assert_equal "${#lines[@]}" 3
	per=$(( (1000000000 - 1000) / 3 ))
	for i in 0 1 2; do
		assert_line --index $i --regexp "^$T/shards/shard-$i	sha256:[0-9a-f]{64}	$per\$"
	done
	[[ $stderr == *"debited $((3 * per)) uJ"* ]] || fail "stderr: $stderr"
	run -0 jq -c '.shard | [.index, .parent_uj, (.budgets | add), (.budgets | length)]' "$T/shards/shard-2.json"
	assert_output "[2,$((1000000000 - 1000)),$((3 * per)),3]"
	# the parent has only the remainder of the division left
	run -0 jh-decide -x -j -g "$JH_HOME/grant" true
	assert_equal "$(jq -c '[.verdict, .code, .remaining_uj]' <<<"$output")" \
	    "[\"deny\",\"budget-exceeded\",$(( 1000000000 - 1000 - 3 * per ))]"
	# two machines, each with its shard and its own ledger
	for m in 0 1; do
		mkdir -m 700 "$T/m$m"
		JH_STATE="$T/m$m" jh-decide -I -g "$T/shards/shard-$m" 2>/dev/null
		run_on m$m "$T/shards/shard-$m" "s-m$m" "toolu_${m}a"
		run_on m$m "$T/shards/shard-$m" "s-m$m" "toolu_${m}b"
		run -0 sh -c "JH_STATE='$T/m$m' jh-decide -x -j -g '$T/shards/shard-$m' true | jq .remaining_uj"
		assert_output "$((per - 2000))"
	done
	# the parent's total across the machines, from their logs alone
	run -0 sh -c "jh-verify -L - '$T'/shards/shard-0 '$T'/shards/shard-1 '$T'/m0/logs/*.jhl '$T'/m1/logs/*.jhl |
	    jq -c 'select(.shards) | .shards | [.parent_uj, .shards, .given, .with_receipts, .budgets_uj, .rebuilt_uj]'"
	assert_output "[$((1000000000 - 1000)),3,2,2,$((2 * per)),4000]"
	run -0 sh -c "jh-verify -L - '$T'/m0/logs/*.jhl | jq -c 'select(.ledger) | .ledger | [.rebuilt_uj, .ok, has(\"spent_uj\")]'"
	assert_output '[2000,true,false]'
	# a shard is not split again, nor into a directory that exists
	run -1 jg -y -g "$T/shards/shard-0" shard -n 2 -o "$T/again"
	assert_output --partial 'is a shard already'
	run -2 jg -y -g "$JH_HOME/grant" shard -n 2 -o "$T/shards"
	assert_output --partial 'exists'
	run -2 jg -y -g "$JH_HOME/grant" shard -n 1
	assert_output --partial '2 to 1024 shards'
}

@test "a shard whose figures do not add up is refused when sealed, by jh-verify and by the gate" {
	gid=$(jh-decide -x -j -g "$JH_HOME/grant" true | jq -r .grant)
	jq -c --arg p "$gid" '.budget_uj = 600 | .shard = {parent: $p, index: 0,
	    parent_uj: 1000, budgets: [600, 600]}' "$T/grant.json" >"$T/over.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/over.json"
	assert_output --partial "the shards' budgets, 1200 uJ together, exceed the 1000 uJ split from their parent"
	jq -c '.shard.budgets = [500, 500]' "$T/over.json" >"$T/own.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/own.json"
	assert_output --partial "a shard's budget_uj must be its own entry of shard.budgets"
	# one sealed around the sealer's check (the conformance vector, under
	# the published keys): the verifier and the gate refuse it
	jh_fixed_keys
	V="$VECTORS/negative/shard-siblings-exceed-parent"
	/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read().strip()))' \
	    "$V.hex" >"$T/bad.grant"
	run -1 jh-verify "$T/bad.grant"
	assert_output --partial "$(cat "$V.error")"
	run -0 sh -c "jq -nc --arg cwd '$T' '{session_id: \"s\", transcript_path: \"/dev/null\",
	    cwd: \$cwd, hook_event_name: \"PreToolUse\", tool_name: \"Bash\",
	    tool_input: {command: \"true\"}, tool_use_id: \"t1\"}' |
	    jh-normalize -H claude-code | jh-decide -g '$T/bad.grant'"
	run -0 jq -r '[.verdict, .reason] | join(": ")' <<<"$output"
	assert_output --partial 'deny: '
	assert_output --partial 'exceed the 20000000000000 uJ split from their parent'
}
