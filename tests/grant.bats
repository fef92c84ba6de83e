#!/usr/bin/env bats
# jh-grant(1): the grant shown and changed in one step, through the REAL
# installed hook (scripts/jh-install -W, the starter grant), and the
# ledger carried across every reseal, so widening a grant never gives its
# budget back.

load test_helper/common

setup() {
	_common_setup
	P="$T/proj"
	mkdir -p "$P/src"
	git -C "$P" init -q -b main
	printf '{"scripts":{"test":"node test.js"}}\n' >"$P/package.json"
	printf 'x\n' >"$P/src/a.js"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	H="$JH_HOME/bin"
	GRANT="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64)"
	cd "$P"
}

jg() {
	sh "$PROJECT_ROOT/scripts/jh-grant" "$@"
}

# hook TOOL INPUT-JSON [ID [EVENT]]: one payload to the installed hook, as
# Claude Code sends it; output is the hook's stdout, status its exit.
hook() {
	jq -nc --arg cwd "$P" --arg tool "$1" --argjson in "$2" --arg id "${3:-toolu_$RANDOM$RANDOM}" \
	    --arg ev "${4:-PreToolUse}" '{session_id: "s1", transcript_path: "/dev/null", cwd: $cwd,
	    hook_event_name: $ev, tool_name: $tool, tool_input: $in, tool_use_id: $id}
	    + (if $ev == "PostToolUse" then {tool_response: {stdout: "", stderr: "", interrupted: false}} else {} end)' |
	    "$H/jh-hook" -c "$JH_HOME/hook.conf"
}

verdict_of() {	# COMMAND: the verdict jh-decide -x gives it here
	"$H/jh-decide" -x -j "$1" | jq -r .verdict
}

ledger_file() {
	local l
	l=$("$H/jh-decide" -x -j -g "$GRANT" true | jq -r '.ledger // .grant')
	printf '%s/ledger/%s\n' "$JH_STATE" "${l#sha256:}"
}

spent() {	# what the ledger holds as spent: jh-verify -L over the logs
	"$H/jh-verify" -L "$JH_STATE/ledger" "$JH_STATE"/logs/*.jhl | jq -r 'select(.ledger) | .ledger.spent_uj'
}

@test "show prints the grant in force with every capability's and policy's id" {
	run -0 --separate-stderr jg show
	assert_equal "$(jq -r '[.caps[].id] | join(" ")' <<<"$output")" \
	    "project-read system-read toolchain-read meta-tools project-write project-exec git-vcs git-net build-net local-net"
	run -0 jq -r '.policies | map(.id) | index("push") != null' <<<"$output"
	assert_output true
	[[ $stderr == "jh-grant: the grant $GRANT: sha256:"* ]]
	# the sealer's own fields are not part of the document
	run -0 jg show
	refute_output --partial '"nonce"'
	run -0 jg -h
	assert_line --index 0 'usage: jh-grant [-y] [-g grant | -p project] show'
	run -2 jg frob
	run -2 jg -g "$GRANT" -p "$P" show
	assert_output --partial "give one"
}

@test "add: the asked command is allowed afterwards, and what was spent stays spent" {
	# something spent, under the grant as installed
	run -0 hook Bash '{"command":"ls src"}'
	assert_output ""
	local before old
	before=$(spent)
	[ "$before" -gt 0 ]
	old=$(cat "$GRANT" | sha256sum)
	# the ask names the line that grants it
	run -0 hook Bash '{"command":"curl -s https://example.com/api"}'
	run -0 jq -r .hookSpecificOutput.permissionDecisionReason <<<"$output"
	assert_output "joulehook: not in your grant: net example.com (curl). To allow it from now on: jh-grant add effect=net program=curl host=example.com"
	# that line, as the person runs it
	run -0 --separate-stderr jg -y add effect=net program=curl host=example.com
	assert_line --partial '+      "host": "example.com",'
	assert_line --partial '+      "id": "net-curl",'
	[[ $stderr == *"it spends from ledger sha256:"*"so what was spent stays spent"* ]]
	[ "$(cat "$GRANT" | sha256sum)" != "$old" ]
	# the new grant spends the same ledger: nothing was given back
	[ "$(spent)" = "$before" ]
	run -0 hook Bash '{"command":"curl -s https://example.com/api"}'
	assert_output ""
	[ "$(spent)" -gt "$before" ]
	# another host is still asked, and so is following redirects
	run -0 verdict_of 'curl -s https://evil.example.net/'
	assert_output ask
	run -0 verdict_of 'curl -sL https://example.com/api'
	assert_output ask
	# the logs replay against the one ledger across the change
	run -0 "$H/jh-verify" -q -L "$JH_STATE/ledger" "$JH_STATE"/logs/*.jhl
	run -0 sh -c "'$H/jh-verify' '$JH_STATE'/logs/*.jhl | jq -r 'select(.kind == \"decision/1\") | .core.ledger // .core.grant' | sort -u | wc -l"
	assert_output 1
	# the status line reads the ledger the grant names
	run -0 sh -c "printf '{\"session_id\":\"s1\",\"cwd\":\"$P\"}' | '$H/jh-status' -c '$JH_HOME/hook.conf'"
	refute_output --partial "no ledger"
	refute_output --partial "unavailable"
}

@test "add: a capability already granted changes nothing; several at once with +" {
	local old
	old=$(sha256sum <"$GRANT")
	run -0 --separate-stderr jg -y add effect=exec path='**'
	assert_equal "$stderr" "jh-grant: project-exec already grants {\"effect\":\"exec\",\"path\":\"**\"}
jh-grant: nothing to change in $GRANT"
	[ "$(sha256sum <"$GRANT")" = "$old" ]
	run -0 verdict_of 'npm install lodash'
	assert_output ask
	run -0 jg -y add effect=net program=npm + effect=install program=npm
	run -0 verdict_of 'npm install lodash'
	assert_output allow
	run -0 --separate-stderr jg show
	assert_equal "$(jq -r '[.caps[].id] | .[-2:] | join(" ")' <<<"$output")" "net-npm install-npm"
}

@test "every hint the gate gives grants, once added, exactly what it was given for" {
	local c h
	for c in 'curl https://api.github.com/repos' 'terraform plan -out tf.plan' \
	    'cat /etc/hostname' 'ls /srv' 'npm install left-pad' 'wget -q https://example.org/f'; do
		h=$("$H/jh-decide" -x -j "$c" | jq -r '.hint // empty')
		if [ -z "$h" ]; then
			# no hint where the table cannot prove what it does
			run -0 "$H/jh-decide" -x -j "$c"
			assert_equal "$(jq -r '[.effects[].effect] | index("unknown") != null' <<<"$output")" true
			continue
		fi
		eval "set -- $h"
		run -0 jg -y add "$@"
		run -0 verdict_of "$c"
		assert_output allow
	done
	# a file tool's and a web tool's
	run -0 hook WebFetch '{"url":"https://docs.python.org/3/x.html","prompt":"x"}'
	h=$(jq -r .hookSpecificOutput.permissionDecisionReason <<<"$output" | sed -n 's/.*jh-grant add //p')
	assert_equal "$h" "tool=WebFetch url='https://docs.python.org/*'"
	eval "set -- $h"
	run -0 jg -y add "$@"
	run -0 hook WebFetch '{"url":"https://docs.python.org/3/y.html","prompt":"x"}'
	assert_output ""
	run -0 hook WebFetch '{"url":"https://evil.example/","prompt":"x"}'
	assert_output --partial '"ask"'
}

@test "policy and remove: a safety stop is named as one, and taken out by its id" {
	run -0 --separate-stderr jg -y policy -r "no network tools in this repository" deny program=curl
	run -0 verdict_of 'curl https://example.com'
	assert_output deny
	run -2 --separate-stderr hook Bash '{"command":"curl https://example.com"}'
	run -0 jq -r .hookSpecificOutput.permissionDecisionReason <<<"$output"
	assert_output "joulehook: blocked by policy deny-curl: no network tools in this repository (net example.com (curl)). Do not retry this or try another way to do the same thing; tell the user what was blocked and why."
	run -0 jg -y remove deny-curl
	run -0 verdict_of 'curl https://example.com'
	assert_output ask
	# the push policy asks; without it git-vcs grants the push
	run -0 verdict_of 'git push origin main'
	assert_output ask
	run -0 jg -y remove push
	run -0 verdict_of 'git push origin main'
	assert_output allow
	# an id that is not there
	run -1 jg -y remove no-such-thing
	assert_output --partial "has no capability or policy no-such-thing"
}

@test "bad input is refused with the reason, and the grant is left as it was" {
	local old
	old=$(sha256sum <"$GRANT")
	run -2 jg -y add colour=blue
	assert_output --partial "a capability has no key 'colour'"
	run -2 jg -y add effect=teleport
	assert_output --partial "no effect 'teleport'"
	run -2 jg -y add cost_uj=-5 tool=X
	assert_output --partial "cost_uj wants a whole number"
	run -2 jg -y add effect
	assert_output --partial "'effect' is not key=value"
	run -2 jg -y policy allow tool=X
	assert_output --partial "ask or deny"
	run -1 jg -y add -i project-read tool=X
	assert_output --partial "already has an id project-read"
	# not confirmed: no terminal and no -y
	run -1 jg add tool=X </dev/null
	assert_output --partial "not changed: confirm on a terminal, or give -y"
	# an issuer key that cannot sign: no reseal
	mv "$JH_HOME/issuer.key" "$T/issuer.key"
	run -2 jg -y add tool=X
	assert_output --partial "could not seal the grant"
	mv "$T/issuer.key" "$JH_HOME/issuer.key"
	[ "$(sha256sum <"$GRANT")" = "$old" ]
	# a grant that does not verify is not edited
	cp "$GRANT" "$T/g"
	flip_byte "$GRANT" 40
	run -1 jg -y add tool=X
	assert_output --partial "does not verify"
	cp "$T/g" "$GRANT"
}

@test "learn proposes what the person approved in asks, most frequent first" {
	# two approved asks of curl, one of terraform, one of a policy, one
	# refused (no loop variable: bats' run sets i)
	run -0 hook Bash '{"command":"curl -s https://example.com/1"}' toolu_c1
	assert_output --partial '"ask"'
	run -0 hook Bash '{"command":"curl -s https://example.com/1"}' toolu_c1 PostToolUse
	run -0 hook Bash '{"command":"curl -s https://example.com/2"}' toolu_c2
	run -0 hook Bash '{"command":"curl -s https://example.com/2"}' toolu_c2 PostToolUse
	run -0 hook Bash '{"command":"terraform plan"}' toolu_t1
	run -0 hook Bash '{"command":"terraform plan"}' toolu_t1 PostToolUse
	run -0 hook Bash '{"command":"git push origin main"}' toolu_p1
	run -0 hook Bash '{"command":"git push origin main"}' toolu_p1 PostToolUse
	run -0 hook Bash '{"command":"wget https://x.example/"}' toolu_w1
	run -0 --separate-stderr jg learn
	assert_line --index 0 "$(printf '2\tjh-grant add effect=net program=curl host=example.com')"
	assert_line --index 1 "$(printf "1\tjh-grant add command='terraform plan *'")"
	assert_line --index 2 "$(printf '1\t# approved asks of policy push: jh-grant remove push stops the asking')"
	refute_output --partial wget
	# one command makes the first proposal so
	run -0 jg -y add effect=net program=curl host=example.com
	run -0 verdict_of 'curl -s https://example.com/3'
	assert_output allow
	run -0 jg learn -n 1
	assert_equal "${#lines[@]}" 1
}

@test "jh-install reseals a changed grant onto the same ledger" {
	run -0 hook Bash '{"command":"ls"}'
	local led before
	led=$(ledger_file)
	before=$(spent)
	# a grant document of the user's own, replacing the starter grant
	jq '.budget_uj = 30000000000000 | del(.ledger)' "$GRANT.json" >"$T/mine.json"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/mine.json"
	assert_output --partial "sealed the grant $GRANT"
	[ "$(ledger_file)" = "$led" ]
	[ "$(spent)" = "$before" ]
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P" -g "$T/mine.json"
	assert_output --partial "is unchanged (its budget carries on)"
	assert_output --partial "next: jh-grant show"
}
