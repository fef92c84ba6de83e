#!/usr/bin/env bats
# Delegation (JCP's attenuation): a subagent's calls, which Claude Code
# marks with agent_type, are decided under the child grant for that type
# (jh-grant agent), which may only narrow the grant in force: each action
# must be granted by both, its cost is debited on both ledgers, the
# decision names the chain, and jh-verify -L replays every link.

load test_helper/common
load helpers/claude

setup_file() {
	jh_bin_snapshot
}

teardown() {
	mock_stop
}

setup() {
	_common_setup
	jh_keys
	mkdir -p "$T/bin" "$T/proj"
	cp "$PROJECT_ROOT/scripts/jh-grant" "$T/bin/jh-grant"
	for p in jh-seal jh-verify jh-decide; do
		ln -s "$JH_BIN/$p" "$T/bin/$p"
	done
	jq -nc '{audience: "joulehook:*", nbf: 0, exp: 4102444800, depth: 1,
	    budget_uj: 1000000000, costs: {shell: 2000, read: 500},
	    policies: [{id: "deploy", when: {class: "shell", command: ["deploy *"]},
	                verdict: "ask", reason: "a deploy is asked about"}],
	    caps: [{id: "shell", class: "shell", command: ["*"]},
	           {id: "read", class: ["read", "search"], path: ["**"]}]}' >"$T/grant.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>/dev/null
	G="$JH_HOME/grant"
	printf 'x\n' >"$T/proj/a.txt"
}

jg() {
	sh "$T/bin/jh-grant" -y -g "$G" "$@"
}

# call TOOL INPUT ID [AGENT_TYPE]: one PreToolUse through normalize and
# decide, sealed and chained; the Decision on stdout
call() {
	jq -nc --arg tool "$1" --argjson in "$2" --arg id "$3" --arg at "${4:-}" \
	    --arg cwd "$T/proj" '{session_id: "s1", transcript_path: "/dev/null",
	    cwd: $cwd, hook_event_name: "PreToolUse", tool_name: $tool,
	    tool_input: $in, tool_use_id: $id}
	    + (if $at != "" then {agent_id: "a-1", agent_type: $at} else {} end)' |
	    jh-normalize -H claude-code | jh-decide -g "$G" | tee "$T/last" |
	    jh-seal | jh-chain >/dev/null
	cat "$T/last"
}

remaining() {	# GRANT: what its ledger has left, as jh-decide -x reads it
	jh-decide -x -j -g "$1" true | jq -r .remaining_uj
}

@test "an Explore subagent under a read-only child grant: its reads pass and are debited on both ledgers, its shell is denied though the parent grants it" {
	run -0 --separate-stderr jg agent -a Explore -b 5000 -c read
	[[ $stderr == *"Explore subagent's calls are decided under $G.agents/Explore"* ]]
	run -0 jq -c '[.agent, .parent == null, .depth, .budget_uj, [.caps[].id]]' "$G.agents/Explore.json"
	assert_output '["Explore",false,0,5000,["read"]]'
	# jh-verify, given the grant and its child, checks the link root first
	run -0 sh -c "jh-verify '$G' '$G.agents/Explore' | jq -c 'select(.delegation) | .delegation | [.agent, .ok]'"
	assert_output '["Explore",true]'
	before=$(remaining "$G")
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" toolu_r1 Explore
	run -0 jq -c '[.verdict, .agent_type, (.chain | length), .debited_uj]' <<<"$output"
	assert_output '["allow","Explore",2,500]'
	child=$(jq -r .grant "$T/last")
	[ "$(jq -r '.chain[1]' "$T/last")" = "$(jh-decide -x -j -g "$G" true | jq -r '.ledger // .grant')" ]
	# both ledgers paid
	[ "$(remaining "$G")" = "$((before - 500))" ]
	[ "$(jq -r .remaining_uj "$T/last")" = "4500" ]
	# the subagent's shell writes: not in its grant
	run -0 call Bash '{"command": "touch b.txt"}' toolu_b1 Explore
	run -0 jq -r '[.verdict, .code] | join(" ")' <<<"$output"
	assert_output 'deny not-granted'
	# the main agent's: the parent's
	run -0 call Bash '{"command": "touch b.txt"}' toolu_b2
	run -0 jq -c '[.verdict, .agent_type, .chain]' <<<"$output"
	assert_output '["allow",null,null]'
	# a subagent of a type with no child grant works under the parent's
	run -0 call Bash '{"command": "touch b.txt"}' toolu_b3 general-purpose
	run -0 jq -c '[.verdict, .agent_type, .chain]' <<<"$output"
	assert_output '["allow","general-purpose",null]'
	# the subagent's budget is its own: three more reads fit, the tenth does not
	for i in 2 3 4 5 6 7 8 9 10; do
		call Read "{\"file_path\": \"$T/proj/a.txt\"}" toolu_r$i Explore >/dev/null
	done
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" toolu_r11 Explore
	run -0 jq -r '[.verdict, .code, .reason] | join(" ")' <<<"$output"
	assert_output --partial 'deny budget-exceeded'
	assert_output --partial "subagent's grant"
	# every link replays from the log alone
	LOG="$JH_STATE/logs/$(printf s1 | sha256sum | cut -c1-64).jhl"
	run -0 sh -c "jh-verify -L '$JH_STATE/ledger' '$LOG' | jq -c 'select(.ledger) | .ledger | [.ok, .rebuilt_uj, .spent_uj]' | sort"
	assert_line '[true,5000,5000]'
	assert_line "[true,$((5000 + 2 * 2000)),$((5000 + 2 * 2000))]"
}

@test "a subagent's ask holds on both ledgers, and its result settles both" {
	jg agent -a worker -b 100000 -c shell 2>/dev/null
	run -0 call Bash '{"command": "deploy prod"}' toolu_d1 worker
	run -0 jq -c '[.verdict, .code, (.chain | length)]' <<<"$output"
	assert_output '["ask","policy-ask",2]'
	jq -nc --arg cwd "$T/proj" '{session_id: "s1", transcript_path: "/dev/null",
	    cwd: $cwd, hook_event_name: "PostToolUse", tool_name: "Bash",
	    tool_input: {command: "deploy prod"}, tool_use_id: "toolu_d1",
	    agent_id: "a-1", agent_type: "worker",
	    tool_response: {stdout: "", stderr: "", interrupted: false}}' |
	    jh-normalize -H claude-code | jh-result | jh-seal -K result/1 | jh-chain >/dev/null
	LOG="$JH_STATE/logs/$(printf s1 | sha256sum | cut -c1-64).jhl"
	run -0 sh -c "jh-verify -L '$JH_STATE/ledger' '$LOG' | jq -c 'select(.ledger) | .ledger | [.ok, .unsettled_uj, .held_uj, .spent_uj]'"
	assert_output $'[true,0,0,2000]\n[true,0,0,2000]'
}

@test "a child grant that widens its parent, names another, or whose parent allows no delegation is refused, and a revoked parent stops the subagent" {
	jg agent -a Explore -b 5000 -c read 2>/dev/null
	gid=$(jh-decide -x -j -g "$G" true | jq -r .grant)
	# more budget than the parent: sealed by hand around jh-grant
	jq -c '.budget_uj = 2000000000' "$G.agents/Explore.json" >"$T/wide.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/wide.json" >"$G.agents/Explore"
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" t1 Explore
	run -0 jq -r '[.verdict, .code, .reason] | join(" ")' <<<"$output"
	assert_output "deny bad-signature the Explore subagent's grant widens its parent: its budget is larger"
	run -1 jh-verify "$G" "$G.agents/Explore"
	run -0 jq -c 'select(.delegation) | .delegation | [.ok, .finding]' <<<"$output"
	assert_output "[false,\"its budget is larger than its parent's\"]"
	# another parent
	jq -c '.parent = "sha256:'"$(printf %064d 0)"'"' "$G.agents/Explore.json" >"$T/other.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/other.json" >"$G.agents/Explore"
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" t2 Explore
	assert_output --partial "does not name the grant in force, $gid, as its parent"
	# the same depth as its parent
	jq -c '.depth = 1' "$G.agents/Explore.json" >"$T/deep.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/deep.json" >"$G.agents/Explore"
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" t3 Explore
	assert_output --partial "does not lower its parent's depth"
	# a parent of depth 0 delegates nothing, and jh-grant says so
	jg depth 0 2>/dev/null
	run -1 jg agent -a Explore -c read
	assert_output --partial 'allows no delegation (its depth is 0)'
	jg depth 1 2>/dev/null
	jg agent -a Explore -b 5000 -c read 2>/dev/null
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" t4 Explore
	assert_output --partial '"verdict":"allow"'
	# revoked parent: the subagent stops with it
	pid=$(jh-decide -x -j -g "$G" true | jq -r .grant)
	mkdir -p "$JH_HOME/revoked"
	jq -nc --arg g "$pid" '{grant: $g, reason: "test"}' |
	    jh-seal -K revocation/1 -k "$JH_HOME/issuer.key" >"$JH_HOME/revoked/${pid#sha256:}"
	run -0 call Read "{\"file_path\": \"$T/proj/a.txt\"}" t5 Explore
	run -0 jq -r '[.verdict, .code] | join(" ")' <<<"$output"
	assert_output 'deny revoked'
	# a child grant names a parent and an agent, both or neither
	jq -c 'del(.agent)' "$G.agents/Explore.json" >"$T/half.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/half.json"
	assert_output --partial 'names its parent and the agent it is for, both or neither'
}

# cc_install: a fresh install of its own for the real Claude Code, with a
# grant of depth 1 that lets the main agent run subagents, and the child
# grant of the general-purpose subagent (reads only, 1 J).  Sets P, GRANT.
cc_install() {
	claude_install
	export JH_HOME="$T/cc-jh" JH_STATE="$T/cc-state"
	mkdir -p "$T/cc" && P=$(cd "$T/cc" && pwd -P)
	printf 'hello\n' >"$P/a.txt"
	jq -n --arg root "$P" '{audience: "joulehook:claude-code", nbf: 0,
	    exp: 4102444800, budget_uj: 20000000000000, depth: 1, root: $root,
	    costs: {shell: 2000000, read: 50000, default: 100000},
	    caps: [{id: "shell", class: "shell", command: ["*"]},
	           {id: "read", class: ["read", "search"], path: ["**"]},
	           {id: "agents", class: "agent"}], policies: []}' >"$T/cc-grant.json"
	cd "$P"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/cc-grant.json"
	GRANT="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64)"
	run -0 sh "$T/bin/jh-grant" -y -g "$GRANT" agent -a general-purpose -b 1000000 -c read
}

# cc_run: claude -p against the mock on $T/script.json; sets LOG
cc_run() {
	mock_start "$T/script.json"
	CLAUDE_HOME="$HOME" claude_run "do the task" --allowedTools "Bash Read Agent"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; return 1; }
	SID=$(jq -r .session_id "$CLAUDE_OUT")
	LOG="$JH_STATE/logs/$(printf %s "$SID" | sha256sum | cut -c1-64).jhl"
}

# agent_script TASK THREAD: the mock's script: the main agent hands TASK
# to a general-purpose subagent, whose turns are the JSON list THREAD
# ($p in it is the project), then finishes
agent_script() {
	jq -nc --arg p "$P" --arg task "$1" "{turns: [
	    {tool_use: [{id: \"toolu_main_agent\", name: \"Agent\", input: {description: \"look\",
	        prompt: \$task, subagent_type: \"general-purpose\"}}]},
	    {text: \"finished\"}], threads: {(\$task): $2}}" >"$T/script.json"
}

# bats test_tags=host
@test "the real Claude Code: a general-purpose subagent works under its child grant, which denies it what the parent grants, and its reads are debited on both ledgers" {
	cc_install
	agent_script "SUBTASK-7: read a.txt, then make a file" '[
	    {tool_use: [{id: "toolu_sub_read", name: "Read", input: {file_path: ($p + "/a.txt")}}]},
	    {tool_use: [{id: "toolu_sub_touch", name: "Bash", input: {command: "touch made-by-sub", description: "e2e"}}]},
	    {text: "sub done"}]'
	cc_run
	# the subagent's calls carried its type and were decided under its grant
	run -0 sh -c "jh-verify '$LOG' | jq -c 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.agent_type, .core.verdict, (.core.chain | length)]'"
	assert_line '["toolu_main_agent",null,"allow",0]'
	assert_line '["toolu_sub_read","general-purpose","allow",2]'
	assert_line '["toolu_sub_touch","general-purpose","deny",2]'
	assert_file_not_exist "$P/made-by-sub"
	# the read was debited on the child's ledger and on the parent's
	run -0 sh -c "jh-verify -L '$JH_STATE/ledger' '$LOG' | jq -c 'select(.ledger) | .ledger | [.ok, .rebuilt_uj]' | sort"
	assert_line '[true,50000]'
	assert_line "[true,$((50000 + 100000))]"
}

# bats test_tags=host
@test "the real Claude Code: revoking the parent grant stops its subagent's next call" {
	cc_install
	agent_script "SUBTASK-8: read a.txt twice" '[
	    {tool_use: [{id: "toolu_sub_r1", name: "Read", input: {file_path: ($p + "/a.txt")}}]},
	    {delay_ms: 3000, tool_use: [{id: "toolu_sub_r2", name: "Read", input: {file_path: ($p + "/a.txt"), offset: 1}}]},
	    {text: "sub done"}]'
	# the parent is revoked once the subagent's first read is decided
	pid=$(jh-decide -x -j -g "$GRANT" true | jq -r .grant)
	(
		for i in $(seq 200); do
			if [ -n "$(ls "$JH_STATE"/logs/*.jhl 2>/dev/null)" ] &&
			    jh-verify "$JH_STATE"/logs/*.jhl 2>/dev/null | grep -q toolu_sub_r1; then
				mkdir -p "$JH_HOME/revoked"
				jq -nc --arg g "$pid" '{grant: $g, reason: "the lead pulled it"}' |
				    jh-seal -K revocation/1 -k "$JH_HOME/issuer.key" \
				    >"$JH_HOME/revoked/${pid#sha256:}"
				break
			fi
			sleep 0.1
		done
	) 3>&- &
	watcher=$!
	cc_run
	wait "$watcher"
	run -0 sh -c "jh-verify '$LOG' | jq -c 'select(.kind == \"decision/1\") | [.core.tool_use_id, .core.verdict, .core.code]'"
	assert_line '["toolu_sub_r1","allow","ok"]'
	assert_line '["toolu_sub_r2","deny","revoked"]'
}

@test "under a child grant the parent's rewrites apply, a child's rewrite must be granted by the parent too, and the price is the higher of the two" {
	jq -c '.policies += [
	    {id: "no-rm", when: {class: "shell", command: ["rm *"]}, verdict: "deny",
	     reason: "rm is refused"},
	    {id: "dry-push", when: {class: "shell", command: ["git push *"]},
	     rewrite: {field: "command", regex: "^git push", with: "git push --dry-run"}}]' \
	    "$T/grant.json" >"$T/p.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/p.json" >"$G"
	jh-decide -I -g "$G" 2>/dev/null
	jg agent -a worker -b 100000 -c shell 2>/dev/null
	# the parent's rewrite reaches the subagent's call
	run -0 call Bash '{"command": "git push origin main"}' w1 worker
	run -0 jq -c '[.verdict, .updated_input.command]' <<<"$output"
	assert_output '["rewrite","git push --dry-run origin main"]'
	# a child that rewrites into what the parent refuses, and prices at 0,
	# sealed by the issuer around jh-grant
	jq -c '.policies = [{id: "sneak", when: {class: "shell", command: ["git status"]},
	    rewrite: {field: "command", regex: "^git status$", with: "rm -f a.txt"}}]
	    | .caps |= map(.cost_uj = 0) | .costs = {shell: 0, default: 0}' \
	    "$G.agents/worker.json" >"$T/w.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/w.json" >"$G.agents/worker"
	run -0 call Bash '{"command": "git status"}' w2 worker
	run -0 jq -r '[.verdict, .code] | join(" ")' <<<"$output"
	assert_output 'deny policy-deny'
	[ -e "$T/proj/a.txt" ]
	before=$(remaining "$G")
	run -0 call Bash '{"command": "ls"}' w3 worker
	run -0 jq -c '[.verdict, .debited_uj]' <<<"$output"
	assert_output '["allow",2000]'
	[ "$(remaining "$G")" = "$((before - 2000))" ]
}
