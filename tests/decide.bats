#!/usr/bin/env bats
# jh-decide: the ordered check, capabilities, policies, paths, the ledger.

load test_helper/common

setup() {
	_common_setup
	jh_keys
	R="$T/repo"
	mkdir -p "$R/src" "$R/tests" "$R/.claude" "$T/outside"
	R=$(cd "$R" && pwd -P)
	echo 'int a;' >"$R/src/a.c"
	echo 'secret' >"$T/outside/file"
	grant_doc >"$T/grant.json"
	seal_grant "$T/grant.json"
}

# The test grant: the shape of joulehook-formats(5), rooted at the test
# repository.
grant_doc() {
	jq -nc --arg root "$R" --argjson budget "${BUDGET:-20000000000000}" \
	    --argjson nbf "${NBF:-0}" --argjson exp "${EXP:-1900000000}" \
	    --arg aud "${AUD:-joulehook:*}" '{
	audience: $aud, root: $root, nbf: $nbf, exp: $exp, budget_uj: $budget,
	costs: {shell: 2000000, write: 200000, read: 50000, default: 100000},
	caps: [
	  {class: "shell", command: ["npm test", "npm run *", "git status",
	    "git diff *", "git push *", "ls *", "cat *", "echo *"]},
	  {class: ["read", "search"], path: ["**"]},
	  {class: ["write", "edit"], path: ["src/**", "tests/**"]},
	  {tool: "mcp__github__*"},
	  {tool: ["ToolSearch", "Skill", "TodoWrite"]},
	  {class: "fetch", url: ["https://docs.example.com/*"]},
	  {class: "shell", command: ["make *"], glob: 1, cost_uj: 5000000}
	],
	policies: [
	  {id: "no-force-push", when: {class: "shell", command: ["git push *--force*"]},
	   verdict: "deny", reason: "force push is never granted"},
	  {id: "deploy-asks", when: {class: "shell", command: ["npm run deploy*"]},
	   verdict: "ask", reason: "deploys need a human"},
	  {id: "redact-token", when: {class: "shell"},
	   rewrite: {field: "command", regex: "ghp_[A-Za-z0-9]{36}", with: "REDACTED"}}
	]}'
}

seal_grant() {
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$1" >"$JH_HOME/grant"
	jh-decide -I -g "$JH_HOME/grant" 2>/dev/null
}

# ev TOOL CLASS INPUT-JSON [session] [tool_use_id]
ev() {
	jq -nc --arg tool "$1" --arg class "$2" --argjson input "$3" \
	    --arg cwd "$R" --arg s "${4:-s1}" --arg id "${5:-toolu_1}" \
	    '{session_id:$s, tool:$tool, input:$input, cwd:$cwd, content_id:null,
	      host:"claude-code", event:"PreToolUse", class:$class, tool_use_id:$id}'
}

decide_code() {
	ev "$@" | jh-decide | jq -r '"\(.verdict) \(.code)"'
}

bash_ev() {
	ev Bash shell "$(jq -nc --arg c "$1" '{command:$c}')"
}

# table [WRAPPER...]: every row of the decision table through jh-decide
# (run by the wrapper, if one is given); fails on the first mismatch.
table() {
	ln -s /etc "$R/src/etclink"
	ln "$T/outside/file" "$R/src/hard"
	mkfifo "$R/src/fifo"
	mkdir -p "$R/src2"
	tok=ghp_$(printf 'a%.0s' $(seq 36))
	fails=0
	while IFS='|' read -r tool class input want; do
		[ -z "$tool" ] && continue
		case "$tool" in \#*) continue ;; esac
		input=${input//@R/$R}
		input=${input//@H/$JH_HOME}
		input=${input//@TOK/$tok}
		got=$(ev "$tool" "$class" "$input" | "$@" jh-decide | jq -r '"\(.verdict) \(.code)"')
		if [ "$got" != "$want" ]; then
			echo "MISMATCH $tool $input: want '$want' got '$got'" >&3
			fails=$((fails + 1))
		fi
	done <"$PROJECT_ROOT/tests/fixtures/decide-table.txt"
	[ "$fails" -eq 0 ]
}

@test "the table: every tool and check gives the expected verdict and code" {
	table
}

# Paths are resolved by the kernel and named back through /proc/self/fd;
# where /proc is not there, realpath(3) walks them: the same answers.
@test "the table holds with /proc hidden (paths resolved by realpath(3))" {
	unshare -m sh -c 'mount -t tmpfs none /proc' 2>/dev/null ||
	    skip "no mount namespace here (needs root)"
	table unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh
}

@test "a decision carries the event, the grant, the cost, the debit and the remaining budget" {
	run -0 sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' | jh-decide"
	d="$output"
	run jq -r '[.kind, .verdict, .code, .rule, .cost_uj, .debited_uj, .provenance, .tool_use_id, (.grant|startswith("sha256:")), .remaining_uj] | @tsv' <<<"$d"
	assert_output "$(printf 'decision/1\tallow\tok\tcaps[0]\t2000000\t2000000\tEstimator\ttoolu_1\ttrue\t19999998000000')"
	run jq -r .content_id <<<"$d"
	assert_output "sha256:$(printf %s 'npm test' | sha256sum | cut -c1-64)"
	# and it seals as a decision/1
	run -0 bash -c "jh-seal <<<'$d' | jh-verify -q"
}

@test "read and edit targets are hashed only after the path matched" {
	run -0 sh -c "$(declare -f ev); R='$R'; ev Read read '{\"file_path\":\"$R/src/a.c\"}' | jh-decide | jq -r .content_id"
	assert_output "sha256:$(sha256sum <"$R/src/a.c" | cut -c1-64)"
	run -0 sh -c "$(declare -f ev); R='$R'; ev Read read '{\"file_path\":\"$T/outside/file\"}' | jh-decide | jq -r '.verdict, .content_id'"
	assert_output $'deny\nnull'
}

@test "the ordered checks: no grant, bad signature, untrusted issuer, revoked" {
	rm "$JH_HOME/grant"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny no-grant"
	seal_grant "$T/grant.json"
	cp "$JH_HOME/grant" "$T/good"
	flip_byte "$JH_HOME/grant" 200
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny bad-signature"
	cp "$T/good" "$JH_HOME/grant"
	: >"$JH_HOME/trust"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny untrusted-issuer"
	cp "$JH_HOME/issuer.key.pub" "$JH_HOME/trust"
	id=$(jh-verify "$JH_HOME/grant" | head -1 >/dev/null; jh-seal -v -K grant/1 -k "$JH_HOME/issuer.key" "$T/grant.json" 2>&1 >/dev/null | sed 's/.* //')
	# revoke the grant in use (its id is the hash of its payload)
	gid=$(/usr/bin/python3 -c 'import sys,cbor2,hashlib; print("sha256:"+hashlib.sha256(cbor2.loads(open(sys.argv[1],"rb").read()).value[2]).hexdigest())' "$JH_HOME/grant")
	mkdir -p "$JH_HOME/revoked"
	jq -nc --arg g "$gid" '{grant:$g, reason:"key leaked"}' |
	    jh-seal -K revocation/1 -k "$JH_HOME/issuer.key" >"$JH_HOME/revoked/${gid#sha256:}"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny revoked"
	# a revocation by anyone else is not honoured: it fails closed
	mkdir "$T/o"
	jh-seal -G -W -R issuer -k "$T/o/k"
	jq -nc --arg g "$gid" '{grant:$g, reason:"x"}' | jh-seal -K revocation/1 -k "$T/o/k" >"$JH_HOME/revoked/${gid#sha256:}"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny gate-failure"
	[ -n "$id" ]
}

@test "the ordered checks: audience, not yet valid, expired (seconds, at the boundary)" {
	AUD=joulehook:cursor grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny wrong-audience"
	NBF=2000000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny not-yet-valid"
	EXP=1700000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	JH_NOW=1699999999999 run decide_code Bash shell '{"command":"npm test"}'
	assert_output "allow ok"
	JH_NOW=1700000000000 run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny expired"
}

@test "budget: debits add up, an over-budget action is denied, an ask holds" {
	BUDGET=5000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "allow ok"
	run decide_code Bash shell '{"command":"npm test"}' s1 toolu_2
	assert_output "allow ok"
	run decide_code Bash shell '{"command":"npm test"}' s1 toolu_3
	assert_output "deny budget-exceeded"
	run sh -c "$(declare -f ev); R='$R'; ev Read read '{\"file_path\":\"$R/src/a.c\"}' s1 toolu_4 | jh-decide | jq -c '[.verdict, .debited_uj, .remaining_uj]'"
	assert_output '["allow",50000,950000]'
	BUDGET=10000000 grant_doc >"$T/g2.json"
	seal_grant "$T/g2.json"
	run sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm run deploy\"}' s1 toolu_9 | jh-decide | jq -c '[.verdict, .code, .debited_uj, .remaining_uj]'"
	assert_output '["ask","policy-ask",0,8000000]'
}

@test "a rewrite the budget cannot pay for is a deny without the rewritten input, and seals" {
	BUDGET=1000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	ev Bash shell '{"command":"echo ghp_0123456789abcdef0123456789abcdefABCD"}' >"$T/ev"
	run -0 sh -c "jh-decide '$T/ev' >'$T/d'"
	run -0 jq -c '[.verdict, .code, .updated_input]' "$T/d"
	assert_output '["deny","budget-exceeded",null]'
	run -0 sh -c "jh-seal -k '$JH_HOME/steward.key' '$T/d' | jh-verify | head -1 | jq -c '[.ok, .core.code]'"
	assert_output '[true,"budget-exceeded"]'
}

@test "a missing ledger is never recreated implicitly: the gate denies" {
	rm -rf "$JH_STATE/ledger"
	run decide_code Bash shell '{"command":"npm test"}'
	assert_output "deny gate-failure"
	run sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' | jh-decide | jq -r .reason"
	assert_output --partial "no ledger"
	# an init never resets an existing ledger
	seal_grant "$T/grant.json"
	decide_code Bash shell '{"command":"npm test"}' >/dev/null
	run -0 jh-decide -I -g "$JH_HOME/grant"
	assert_output --partial "exists"
	run sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' s1 t2 | jh-decide | jq -r .remaining_uj"
	assert_output 19999996000000
}

@test "-r restores a ledger that spent more than a token count could hold (1 kJ and up)" {
	hex=$(ls "$JH_STATE/ledger")
	rm "$JH_STATE/ledger/$hex"
	# 5 kJ: about 2,500 shell calls at the test grant's costs
	printf '{"ledger":{"grant":"sha256:%s","rebuilt_uj":5000000000}}\n' "$hex" >"$T/replay.json"
	run -0 jh-decide -I -g "$JH_HOME/grant" -r "$T/replay.json"
	assert_output "jh-decide: ledger for grant sha256:$hex restored, 5000000000 uJ spent"
	run sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' | jh-decide | jq -r .remaining_uj"
	assert_output $((20000000000000 - 5000000000 - 2000000))
	# a figure that is not a whole number of microjoules restores nothing
	rm "$JH_STATE/ledger/$hex"
	printf '{"ledger":{"grant":"sha256:%s","rebuilt_uj":-1}}\n{"ledger":{"grant":"sha256:%s","rebuilt_uj":"5"}}\n' "$hex" "$hex" >"$T/bad.json"
	run -1 jh-decide -I -g "$JH_HOME/grant" -r "$T/bad.json"
	assert_output --partial "no rebuilt figure for ledger sha256:$hex"
	assert_file_not_exist "$JH_STATE/ledger/$hex"
}

@test "the project root is pinned at the session's first event, never the later cwd" {
	jq -c 'del(.root)' "$T/grant.json" >"$T/g.json"
	seal_grant "$T/g.json"
	run sh -c "$(declare -f ev); R='$R'; ev Write write '{\"file_path\":\"$R/src/x.c\",\"content\":\"x\"}' s9 | jh-decide | jq -r .verdict"
	assert_output allow
	# a later event whose cwd is / does not re-root src/** to /src/**
	mkdir -p "$T/other/src"
	run sh -c "jq -nc --arg cwd '$T/other' '{session_id:\"s9\",tool:\"Write\",input:{file_path:\"src/y.c\",content:\"y\"},cwd:\$cwd,content_id:null,host:\"claude-code\",event:\"PreToolUse\",class:\"write\",tool_use_id:\"t2\"}' | jh-decide | jq -r '.verdict, .code'"
	assert_output $'deny\nnot-granted'
}

@test "a session started in a subdirectory is rooted at its repository's top" {
	jq -c 'del(.root)' "$T/grant.json" >"$T/g.json"
	seal_grant "$T/g.json"
	mkdir -p "$R/.git" "$R/src/deep"
	# the first event comes from src/deep; src/** is still the repo's src
	run sh -c "jq -nc --arg cwd '$R/src/deep' '{session_id:\"s10\",tool:\"Write\",input:{file_path:\"../x.c\",content:\"x\"},cwd:\$cwd,content_id:null,host:\"claude-code\",event:\"PreToolUse\",class:\"write\",tool_use_id:\"t1\"}' | jh-decide | jq -r '.verdict, .code'"
	assert_output $'allow\nok'
	run -0 cat "$JH_STATE/roots/$(printf s10 | sha256sum | cut -c1-64)"
	assert_output "$R"
}

@test "a working directory the model chose pins no session but a work tree's below the home" {
	jq -c 'del(.root)' "$T/grant.json" >"$T/g.json"
	seal_grant "$T/g.json"
	mkdir -p "$R/.git"
	export HOME="$T/home"
	mkdir -p "$HOME"
	# Windsurf names no workspace: run_command's cwd is the model's
	ws() { # ws SESSION CWD COMMAND
		jq -nc --arg s "$1" --arg c "$2" --arg cmd "$3" '{agent_action_name: "pre_run_command",
		    trajectory_id: $s, execution_id: "e1", timestamp: "2026-12-06T00:00:00Z",
		    tool_info: {command_line: $cmd, cwd: $c}}' | jh-normalize -H windsurf | jh-decide
	}
	# a home that is a work tree (dotfiles) is no project, however named
	mkdir -p "$HOME/.git" "$HOME/sub"
	ln -s "$HOME" "$R/src/homelink"
	for c in / "$T" "$HOME" "$HOME/." "$HOME/sub/.." "$R/src/homelink"; do
		run -0 ws w1 "$c" 'ls src'
		run jq -r '.verdict, .code, .reason' <<<"$output"
		assert_line --index 0 deny
		assert_line --index 2 --partial 'names no workspace'
	done
	rm "$R/src/homelink"
	assert_file_not_exist "$JH_STATE/roots/$(printf w1 | sha256sum | cut -c1-64)"
	# the project's own work tree pins it; a later cwd of / runs there only
	run -0 ws w1 "$R/src" 'ls'
	assert_equal "$(jq -r .verdict <<<"$output")" allow
	run -0 cat "$JH_STATE/roots/$(printf w1 | sha256sum | cut -c1-64)"
	assert_output "$R"
	run -0 ws w1 / 'ls src'
	assert_equal "$(jq -r .verdict <<<"$output")" deny
	# pinned through a link, the project is where the link led then
	ln -s "$R" "$T/proj-link"
	run -0 ws w2 "$T/proj-link/src" 'ls'
	assert_equal "$(jq -r .verdict <<<"$output")" allow
	run -0 cat "$JH_STATE/roots/$(printf w2 | sha256sum | cut -c1-64)"
	assert_output "$R"
	# Antigravity: the workspace is the project, run_command's Cwd is not
	jq -nc --arg r "$R" '{conversationId: "a1", hookEventName: "PreToolUse", workspacePaths: [$r],
	    toolCall: {name: "run_command", args: {CommandLine: "ls src", Cwd: "/"}}}' |
	    jh-normalize -H antigravity >"$T/agy.json"
	run jq -r '.cwd, .workdir' "$T/agy.json"
	assert_output "$R"$'\n/'
	jh-decide <"$T/agy.json" >/dev/null
	run -0 cat "$JH_STATE/roots/$(printf a1 | sha256sum | cut -c1-64)"
	assert_output "$R"
}

@test "jh-decide -x explains as the gate decides, and pins, debits and holds nothing" {
	cp "$JH_STATE/ledger/"* "$T/ledger.before"
	cd "$R"
	run -0 jh-decide -x -j 'cat src/a.c | wc -l' 'git push origin main --force' \
	    'echo x > src/new.c' 'curl -s http://example.com'
	run -0 jq -r '[.verdict, .code] | join(" ")' <<<"$output"
	assert_output $'allow ok\ndeny policy-deny\nallow ok\ndeny not-granted'
	run -0 jh-decide -x -j 'cat src/a.c'
	run -0 jq -c '[.effects[] | [.effect, .rule, .cmd]], .commands' <<<"$output"
	assert_output $'[["read","caps[0]",0]]\n[["cat","src/a.c"]]'
	cmp "$JH_STATE/ledger/"* "$T/ledger.before"
	[ ! -e "$JH_STATE/roots/$(printf explain | sha256sum | cut -c1-64)" ]
	run -0 jh-decide -x 'LD_PRELOAD=./x.so git status'
	assert_output --partial 'verdict deny (unprovable-command)'
	assert_output --partial 'LD_PRELOAD= changes what later commands run'
}

@test "events other than PreToolUse pass through untouched and are never debited" {
	line='{"session_id":"s1","event":"PostToolUse","tool":"Bash","input":{"command":"npm test"},"response":{"stdout":"ok"}}'
	run -0 jh-decide <<<"$line"
	assert_output "$line"
}

@test "bad input: a clear deny, exit 0, no state changed" {
	before=$(cat "$JH_STATE/ledger/"*)
	for bad in '{not json' '[1,2]' '"s"' '{"session_id":"s1","event":"PreToolUse"}' \
	    '{"session_id":"s1","event":"PreToolUse","tool":"Bash","class":"shell","host":"claude-code","cwd":"relative","input":{},"tool_use_id":"t"}' \
	    '{"session_id":"s1","event":"PreToolUse","malformed":"bad payload"}' \
	    '{"session_id":"s\u0000x","event":"PreToolUse","tool":7}'; do
		run -0 jh-decide <<<"$bad"
		assert_output --partial '"verdict":"deny","code":"malformed-event"'
	done
	printf '{"session_id":"\377"}\n' | jh-decide | grep -q malformed-event
	/usr/bin/python3 -c 'print("{\"a\":" * 5000 + "1" + "}" * 5000)' | jh-decide | grep -q malformed-event
	/usr/bin/python3 -c 'import json; print(json.dumps({"session_id":"s1","event":"PreToolUse","tool":"Write","class":"write","host":"claude-code","cwd":"/tmp","tool_use_id":"t","input":{"file_path":"/nowhere/x","content":"x"*(10*1024*1024)}}))' >"$T/big.json"
	run -0 sh -c "jh-decide <'$T/big.json' | jq -r .code"
	assert_output not-granted
	assert_equal "$(cat "$JH_STATE/ledger/"*)" "$before"
	run -1 sh -c "echo '{bad' | jh-decide -e >/dev/null"
}

@test "50 concurrent deciders on a budget for exactly 10 actions: exactly 10 allows" {
	BUDGET=20000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	for i in $(seq 1 50); do
		ev Bash shell '{"command":"npm test"}' s1 "toolu_$i" >"$T/e$i"
	done
	for i in $(seq 1 50); do
		jh-decide -w 30000 <"$T/e$i" >"$T/d$i" &
	done
	wait
	run sh -c "cat $T/d* | jq -r .verdict | sort | uniq -c | tr -s ' '"
	assert_output $' 10 allow\n 40 deny'
	run sh -c "cat $T/d* | jq -r 'select(.verdict==\"deny\") | .code' | sort -u"
	assert_output budget-exceeded
}

@test "kill -9 at random points: the ledger is never corrupt and never under-counts" {
	for i in $(seq 1 300); do ev Bash shell '{"command":"npm test"}' s1 "toolu_$i"; done >"$T/stream"
	for round in 1 2 3 4 5 6; do
		jh-decide <"$T/stream" >"$T/out$round" &
		pid=$!
		sleep "0.0$((RANDOM % 9 + 1))"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	allows=$(cat "$T"/out* | grep -c '"verdict":"allow"' || true)
	run -0 sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' s1 last | jh-decide | jq -r '.verdict, .remaining_uj'"
	assert_line --index 0 allow
	remaining=${lines[1]}
	spent=$(( 20000000000000 - remaining - 2000000 ))
	[ "$spent" -ge $(( allows * 2000000 )) ] || fail "ledger spent $spent < $allows allows"
}

@test "a ledger lock it cannot get in time is a deny, never a hang" {
	flock "$(ls "$JH_STATE"/ledger/*)" sleep 3 &
	sleep 0.3
	run -0 sh -c "$(declare -f ev); R='$R'; ev Bash shell '{\"command\":\"npm test\"}' | jh-decide -w 200 | jq -r '.verdict, .code'"
	assert_output $'deny\ngate-failure'
	wait
}

@test "usage" {
	run -0 jh-decide -h
	assert_output --partial "usage: jh-decide"
	run -2 jh-decide -Z
	run -2 jh-decide -I
}

@test "-u puts the asking process's uid in every decision, which seals; without -u there is none" {
	bash_ev 'npm test' >"$T/ev"
	run -0 jh-decide -u 1000 "$T/ev"
	d="$output"
	run -0 jq -c '[.uid, (.uid|type), .verdict]' <<<"$d"
	assert_output '[1000,"number","allow"]'
	run -0 bash -c "jh-seal -k '$JH_HOME/steward.key' <<<'$d' | jh-verify | head -1 | jq -c .core.uid"
	assert_output 1000
	# a malformed line's decision says who sent it too
	run -0 sh -c "echo garbage | jh-decide -u 0 | jq -c '[.uid, .code]'"
	assert_output '[0,"malformed-event"]'
	run -0 sh -c "jh-decide -u 4294967294 '$T/ev' | jq .uid"
	assert_output 4294967294
	# without -u: no uid, and an event's own uid is not copied
	run -0 sh -c "jh-decide '$T/ev' | jq -c 'has(\"uid\")'"
	assert_output false
	jq -c '.uid = 0' "$T/ev" >"$T/ev-uid"
	run -0 sh -c "jh-decide '$T/ev-uid' | jq -c 'has(\"uid\")'"
	assert_output false
	run -0 sh -c "jh-decide -u 7 '$T/ev-uid' | jq -c .uid"
	assert_output 7
}

@test "-u takes only a decimal uid from 0 to 4294967294, and not with -I or -x" {
	bash_ev 'npm test' >"$T/ev"
	for u in -1 abc 4294967296 4294967295 '' 12a ' 1' +1 1.0 99999999999; do
		run -2 jh-decide -u "$u" "$T/ev"
		assert_output "jh-decide: -u $u: not a uid (a decimal number from 0 to 4294967294)"
	done
	run -2 jh-decide -I -u 1000 -g "$JH_HOME/grant"
	assert_output --partial "usage: jh-decide"
	run -2 jh-decide -x -u 1000 'npm test'
	assert_output --partial "usage: jh-decide"
}

@test "an ask hold nothing settles becomes a debit after its time: never lost, never stuck" {
	BUDGET=10000000 grant_doc >"$T/g.json"
	seal_grant "$T/g.json"
	now=$(( $(date +%s) * 1000 ))
	run -0 sh -c "$(declare -f ev); R='$R'; JH_NOW=$now; export JH_NOW; ev Bash shell '{\"command\":\"npm run deploy\"}' s1 ask1 | jh-decide | jq -c '[.verdict, .remaining_uj]'"
	assert_output '["ask",8000000]'
	later=$(( now + 11 * 60 * 1000 ))
	run -0 sh -c "$(declare -f ev); R='$R'; JH_NOW=$later; export JH_NOW; ev Bash shell '{\"command\":\"npm test\"}' s1 t2 | jh-decide | jq -c '[.verdict, .remaining_uj]'"
	assert_output '["allow",6000000]'
	# a full table of asks: the oldest settles, the next ask still holds
	seal_grant "$T/grant.json"
	for n in $(seq 1 70); do
		ev Bash shell '{"command":"npm run deploy"}' s1 "ask_$n"
	done | jh-decide -w 5000 >"$T/asks"
	run sh -c "jq -r .code '$T/asks' | sort | uniq -c | tr -s ' '"
	assert_output " 70 policy-ask"
}

@test "a read of a directory is a read of its tree: a link in it into a protected place is refused" {
	mkdir -p "$R/docs"
	echo x >"$R/docs/a.md"
	run decide_code Read read "{\"file_path\":\"$R/docs\"}"
	assert_output "allow ok"
	ln -s "$R/.claude" "$R/docs/cfg"
	run decide_code Read read "{\"file_path\":\"$R/docs\"}"
	assert_output "deny protected-path"
	# a file beside it is read as before
	run decide_code Read read "{\"file_path\":\"$R/docs/a.md\"}"
	assert_output "allow ok"
}

@test "a reason cut inside a character is still UTF-8: the decision keeps it and seals" {
	e=$(printf 'é%.0s' $(seq 1 300))
	for c in "rm -rf /opt/$e" "cat /etc/$e" "npm test $e; curl http://$e"; do
		jq -nc --arg c "$c" --arg cwd "$R" '{session_id:"u8", tool:"Bash", input:{command:$c},
		    cwd:$cwd, content_id:null, host:"claude-code", event:"PreToolUse", class:"shell",
		    tool_use_id:"toolu_u8"}' | jh-decide >"$T/d.json"
		run jq -r '.reason | type' "$T/d.json"
		assert_output string
		run -0 jh-seal -k "$JH_HOME/steward.key" "$T/d.json"
	done
}

# A rewrite's expression is compiled only where the field holds the text
# every match starts with; the expressions here start otherwise: an
# alternation, an optional first character, an anchor, a bracket, a
# repeated character made optional.
@test "rewrites whose matches start in more than one way still rewrite, and only where their when holds" {
	jq -c '.policies += [
	    {id: "alt", when: {class: "shell"},
	     rewrite: {field: "command", regex: "(sk|pk)-[0-9]{4}", with: "KEY"}},
	    {id: "opt", when: {class: "shell"},
	     rewrite: {field: "command", regex: "x?tok=[a-z]+", with: "T"}},
	    {id: "anch", when: {class: "shell"},
	     rewrite: {field: "command", regex: "^echo zz", with: "echo yy"}},
	    {id: "brk", when: {class: "shell"},
	     rewrite: {field: "command", regex: "[Pp]ass=[a-z]+", with: "P"}},
	    {id: "lazy", when: {class: "shell"},
	     rewrite: {field: "command", regex: "wq+?z", with: "W"}},
	    {id: "only-push", when: {class: "shell", command: ["git push *"]},
	     rewrite: {field: "command", regex: "--no-verify", with: ""}}]' \
	    "$T/grant.json" >"$T/g.json"
	seal_grant "$T/g.json"
	upd() { ev Bash shell "{\"command\":\"$1\"}" | jh-decide | jq -r '.updated_input.command // "none"'; }
	run upd "echo pk-1234 and sk-9876"
	assert_output "echo KEY and KEY"
	run upd "echo tok=abc"
	assert_output "echo T"
	run upd "echo xtok=def"
	assert_output "echo T"
	run upd "echo zz top"
	assert_output "echo yy top"
	run upd "echo pass=abc Pass=def"
	assert_output "echo P P"
	# glibc reads q+? as (q+)?: wz matches
	run upd "echo wz"
	assert_output "echo W"
	run upd "echo --no-verify"
	assert_output "none"
	run upd "echo plain"
	assert_output "none"
}

@test "a rewrite that moves a path is decided again on the new path" {
	jq -c --arg h "$JH_HOME" '.policies += [
	    {id: "to-etc", when: {class: "write", path: ["src/etc-*"]},
	     rewrite: {field: "file_path", regex: "src/etc-", with: "/etc/"}},
	    {id: "to-home", when: {class: "write", path: ["src/home-*"]},
	     rewrite: {field: "file_path", regex: "src/home-", with: ($h + "/")}}]' \
	    "$T/grant.json" >"$T/g.json"
	seal_grant "$T/g.json"
	run decide_code Write write '{"file_path":"src/etc-passwd","content":"x"}'
	assert_output "deny not-granted"
	run decide_code Write write '{"file_path":"src/home-grant","content":"x"}'
	assert_output "deny protected-path"
	run decide_code Write write '{"file_path":"src/plain.c","content":"x"}'
	assert_output "allow ok"
}

@test "protection comes before any grant, and -P cannot crowd out the built-in protections" {
	rm "$JH_HOME/grant"
	run decide_code Bash shell '{"command":"jh-seal -h"}'
	assert_output "deny protected-path"
	run decide_code Read read "{\"file_path\":\"$JH_HOME/steward.key\"}"
	assert_output "deny protected-path"
	seal_grant "$T/grant.json"
	args=()
	for n in $(seq 1 40); do args+=(-P "/p$n"); done
	run -2 jh-decide "${args[@]}" </dev/null
	assert_output --partial "at most 32"
	run -2 jh-decide -P relative </dev/null
}

# A host pattern names a host: a fetch is matched by its URL's host, as a
# shell command's network effect is, never by the text of the whole URL.
@test "a fetch is matched by its URL's host: the host's name elsewhere in the URL grants nothing" {
	jq -nc --arg root "$R" '{audience: "joulehook:*", root: $root, nbf: 0,
	    exp: 1900000000, budget_uj: 20000000000000,
	    caps: [{effect: "net", host: ["*.github.com", "github.com"]}]}' \
	    >"$T/g2.json"
	seal_grant "$T/g2.json"
	for u in https://api.github.com/repos https://GitHub.com/x \
	    https://x@github.com/; do
		run decide_code WebFetch fetch "$(jq -nc --arg u "$u" '{url:$u, prompt:"p"}')"
		[ "$output" = "allow ok" ] || { echo "$u: $output"; false; }
	done
	for u in https://attacker.example/x.github.com \
	    'https://attacker.example/?q=.github.com' \
	    'https://attacker.example/#.github.com' \
	    'https://attacker.example\@github.com/' \
	    https://github.com.attacker.example/; do
		run decide_code WebFetch fetch "$(jq -nc --arg u "$u" '{url:$u, prompt:"p"}')"
		[ "$output" = "deny not-granted" ] || { echo "$u: $output"; false; }
	done
	run decide_code Bash shell '{"command":"curl https://attacker.example/x.github.com"}'
	[ "$output" = "deny not-granted" ]
	run decide_code Bash shell '{"command":"curl https://api.github.com/x"}'
	[ "$output" = "allow ok" ]
}

@test "rm -f over a glob reaches what its last part matches: src/*.o is granted, a nested host configuration is not" {
	mkdir -p "$R/src/.claude"
	: >"$R/src/a.o"
	run decide_code Bash shell '{"command":"rm -f src/*.o"}'
	assert_output "allow ok"
	for c in 'rm -rf src/.cla*' 'rm -rf src/*' 'rm -rf src/?claude' \
	    'rm -rf src/*.[co]*' 'rm -f src/*.{o,claude}'; do
		run decide_code Bash shell "$(jq -nc --arg c "$c" '{command:$c}')"
		[ "$output" = "deny protected-path" ] || { echo "$c: $output"; false; }
	done
	# a tree written or deleted that holds a host's nested configuration
	: >"$R/tests/opencode.json"
	for c in 'rm -rf src' 'rm -rf tests' 'cp -r src/.. tests'; do
		run decide_code Bash shell "$(jq -nc --arg c "$c" '{command:$c}')"
		[ "$output" = "deny protected-path" ] || { echo "$c: $output"; false; }
	done
	run decide_code Bash shell '{"command":"rm -f tests/*.o"}'
	assert_output "allow ok"
}

@test "what lands in a directory by a protected name, a glob's link into one, and a nested one past 20000 entries are refused" {
	mkdir -p "$T/e" "$R/src/big"
	: >"$T/e/.mcp.json"
	# a link named .mcp.json is copied under that name, not its target's
	mkdir -p "$T/l"
	echo '{}' >"$T/l/notes.txt"
	ln -s "$T/l/notes.txt" "$T/l/.mcp.json"
	for c in "cp $T/e/.mcp.json ." "cp $T/e/.mcp.js?n ." \
	    "cp $T/l/.mcp.json ." "ln -s $T/l/.mcp.json ." \
	    "find $T/e -name '*.json' -exec cp {} . \\;"; do
		run decide_code Bash shell "$(jq -nc --arg c "$c" '{command:$c}')"
		[ "$output" = "deny protected-path" ] || { echo "$c: $output"; false; }
	done
	ln -s ../.claude/settings.local.json "$R/src/s.md"
	run decide_code Bash shell '{"command":"echo {} | tee src/s*.md"}'
	assert_output "deny protected-path"
	rm "$R/src/s.md"
	mkdir -p "$R/src/.claude"
	(cd "$R/src/big" && seq 1 20010 | xargs touch)
	run decide_code Bash shell '{"command":"rm -rf src"}'
	assert_output "deny protected-path"
	run decide_code Bash shell '{"command":"rm -f src/big/*.o"}'
	assert_output "allow ok"
	# what a package shipped under node_modules is not the user's to keep
	mkdir -p "$R/src/node_modules/p/.claude"
	run decide_code Bash shell '{"command":"rm -rf src/node_modules"}'
	assert_output "allow ok"
}
