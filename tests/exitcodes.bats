#!/usr/bin/env bats
# One exit-code rule for the suite (joulehook(7), EXIT STATUS), driving
# the real programs: 0 everything was done; 1 something given was
# refused; 2 it could not run (a usage error, a key or list missing, an
# input that cannot be opened or read).  jh-hook, jh-normalize -r and
# jh-acp answer their host's protocol instead (their own suites).

load test_helper/common
load helpers/proxy

setup() {
	_common_setup
}

teardown() {
	proxy_stop
}

# A Decision, sealed: a receipt for the programs that read receipts.
receipt() {
	decision_json | jh-seal
}

# A host's PreToolUse payload, and its ActionEvent.
payload() {
	printf '{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/tmp","tool_use_id":"t1"}\n'
}

@test "jh-seal: usage 2, a refused record 1, no key or an unreadable input 2, sealed 0" {
	run -2 jh-seal -Z
	run -2 jh-seal -D -G
	decision_json >"$T/d.json"
	run -2 jh-seal "$T/d.json"
	assert_output --partial "steward.key"
	jh_keys
	run -1 jh-seal <<<'not json'
	# a record over 16 MiB at the end of the input is refused too
	head -c 17000000 /dev/zero | tr '\0' a >"$T/big"
	run -1 jh-seal "$T/big"
	assert_output --partial "record longer than"
	run -2 jh-seal "$T/missing.json"
	run -2 jh-seal "$T"
	assert_output --partial "Is a directory"
	run -0 jh-seal "$T/d.json"
	# -G: passphrases refused, a key that exists cannot be written
	JH_PASSPHRASE= run -1 jh-seal -G -R issuer -k "$T/i.key"
	assert_output --partial "empty passphrase"
	run -2 jh-seal -G -k "$JH_HOME/steward.key"
}

@test "jh-chain: usage 2, a refused receipt 1, no key or an unreadable input 2, chained 0" {
	local receipt_file=$T/r.cbor
	run -2 jh-chain -Z
	run -2 jh-chain /dev/null
	assert_output --partial "steward.key"
	jh_keys
	receipt >"$receipt_file"
	run -1 jh-chain <<<'garbage'
	run -2 jh-chain "$T/missing.cbor"
	run -2 jh-chain "$T"
	assert_output --partial "Is a directory"
	run -0 jh-chain -l "$T/s1.jhl" "$receipt_file"
	# another session's receipt is refused by this session's log
	decision_json | jq -c '.session_id = "s2"' | jh-seal >"$T/s2.cbor"
	run -1 jh-chain -l "$T/s1.jhl" "$T/s2.cbor"
}

@test "jh-verify: usage 2, a failed object 1, no keys or an unreadable input 2, verified 0" {
	run -2 jh-verify -Z
	run -2 jh-verify /dev/null
	assert_output --partial "no trusted keys"
	jh_keys
	receipt >"$T/r.cbor"
	run -1 jh-verify <<<'garbage'
	cp "$T/r.cbor" "$T/bad.cbor"
	flip_byte "$T/bad.cbor" 40
	run -1 jh-verify "$T/bad.cbor"
	run -2 jh-verify "$T/missing.cbor"
	run -2 jh-verify "$T"
	run -2 jh-verify -c "$T/missing.cp" "$T/r.cbor"
	run -0 jh-verify "$T/r.cbor"
}

@test "jh-normalize: usage 2, a payload that is not JSON 1, an unreadable input 2, normalized 0" {
	run -2 jh-normalize -Z
	run -2 jh-normalize
	run -1 jh-normalize -H claude-code <<<'{"a":'
	run -2 jh-normalize -H claude-code "$T/missing.json"
	run -2 jh-normalize -H claude-code "$T"
	payload >"$T/p.json"
	run -0 jh-normalize -H claude-code "$T/p.json"
	# both, the higher wins
	run -2 jh-normalize -H claude-code "$T/p.json" "$T/missing.json"
}

@test "jh-decide: usage 2, a deny with -e or a grant that does not verify 1, an unreadable grant or input 2, decided 0" {
	jh_keys
	payload | jh-normalize -H claude-code >"$T/ev.json"
	run -2 jh-decide -Z
	run -2 jh-decide -u notauid "$T/ev.json"
	run -0 jh-decide "$T/ev.json"
	run -1 jh-decide -e "$T/ev.json"
	assert_output --partial '"verdict":"deny"'
	run -2 jh-decide "$T/missing.json"
	run -2 jh-decide "$T"
	# -I: a grant missing is 2, one that does not verify 1
	run -2 jh-decide -I -g "$T/missing.grant"
	echo '{}' >"$T/g.json"
	run -1 jh-decide -I -g "$T/g.json"
	echo '{"audience":"joulehook:*","nbf":0,"exp":4102444800,"budget_uj":1000,"caps":[]}' >"$T/g.json"
	jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g.json" >"$T/grant"
	run -0 jh-decide -I -g "$T/grant"
}

@test "jh-result: usage 2, an event it cannot answer 1, no stewards or an unreadable input 2, answered 0" {
	run -2 jh-result -Z
	run -2 jh-result /dev/null
	assert_output --partial "stewards"
	jh_keys
	run -1 jh-result <<<'not json'
	run -1 jh-result <<<'{"event":"PostToolUse","host":"nohost"}'
	run -2 jh-result "$T/missing.json"
	run -2 jh-result "$T"
	run -0 jh-result </dev/null
}

@test "jh-status: usage 2, a log that does not verify 1, an unreadable log 2, verified 0; the status line is 0" {
	run -2 jh-status -Z
	run -2 jh-status -s -p
	jh_keys
	receipt | jh-chain -l "$T/s.jhl" >/dev/null
	run -0 jh-status -s "$T/s.jhl"
	cp "$T/s.jhl" "$T/bad.jhl"
	flip_byte "$T/bad.jhl" 60
	run -1 jh-status -s "$T/bad.jhl"
	run -2 jh-status -s "$T/missing.jhl"
	# the config's checkpoint sink: one that does not verify is 1, one
	# that cannot be read 2
	printf 'home=%s\nstate=%s\nsink=%s\n' "$JH_HOME" "$JH_STATE" "$T/sink" \
	    >"$T/status.conf"
	chmod 600 "$T/status.conf"
	echo garbage >"$T/sink"
	run -1 jh-status -s -c "$T/status.conf" "$T/s.jhl"
	assert_output --partial "checkpoint sink"
	rm "$T/sink"
	mkdir "$T/sink"
	run -2 jh-status -s -c "$T/status.conf" "$T/s.jhl"
	assert_output --partial "checkpoint sink"
	run -0 jh-status
}

@test "jh-ship: usage 2, a file that is not a log 1, no stewards or an unreadable log 2, nothing new 0" {
	run -2 jh-ship -Z
	run -2 jh-ship -e s1 -c x
	run -2 jh-ship -S "$JH_STATE"
	assert_output --partial "no trusted stewards"
	jh_keys
	echo garbage >"$T/notalog.jhl"
	run -1 jh-ship -S "$JH_STATE" "$T/notalog.jhl"
	assert_output --partial "not a log"
	run -2 jh-ship -S "$JH_STATE" "$T/missing.jhl"
	# no log chained yet: nothing to ship, no database needed
	run -0 jh-ship -S "$JH_STATE"
}

@test "jh-proxy: usage 2, no token or key 2, stopped by a signal 0" {
	run -2 jh-proxy -Z
	run -2 jh-proxy
	run -2 jh-proxy -u http://127.0.0.1:1 -l 127.0.0.1:0
	assert_output --partial "proxy.token"
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$JH_HOME/proxy.token"
	run -2 jh-proxy -u http://127.0.0.1:1 -l 127.0.0.1:0
	assert_output --partial "steward.key"
	proxy_setup
	UPSTREAM=http://127.0.0.1:1 proxy_start
	proxy_stop
	[ "$PROXY_RC" -eq 0 ]
}

@test "jh-install: usage 2, a settings file it will not touch 1" {
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -Z
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -H nohost
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -d soon
	assert_output --partial "-d wants milliseconds"
	mkdir -p "$HOME/.claude"
	echo '{not json' >"$HOME/.claude/settings.json"
	run -1 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN"
	assert_output --partial "not valid JSON; not touching it"
}

@test "jh-grant: usage 2, a grant that does not verify 1, no grant 2, shown 0" {
	local P="$T/proj" g
	mkdir -p "$P"
	git -C "$P" init -q -b main
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -p "$P"
	cd "$P"
	run -2 sh "$PROJECT_ROOT/scripts/jh-grant" frob
	run -2 sh "$PROJECT_ROOT/scripts/jh-grant" -g "$T/missing" show
	run -0 sh "$PROJECT_ROOT/scripts/jh-grant" show
	g="$JH_HOME/grants/$(printf %s "$P" | sha256sum | cut -c1-64)"
	cp "$g" "$T/g"
	flip_byte "$T/g" 40
	run -1 sh "$PROJECT_ROOT/scripts/jh-grant" -g "$T/g" show
	assert_output --partial "does not verify"
}

@test "check-suites: usage 2, a failed suite 1 (and the others still run), all passed 0" {
	# a bats of its own, out of this one's environment and its PATH
	local p cs
	p=$(printf '%s' "$PATH" | tr : '\n' | grep -v bats-core | paste -sd:)
	cs="env -i PATH=$p HOME=$HOME sh $PROJECT_ROOT/scripts/check-suites"
	run -2 $cs
	assert_output --partial "usage: check-suites"
	run -2 $cs -j 0 "$T"
	run -2 $cs -q "$T"
	run -2 $cs "$T/missing.bats"
	assert_output --partial "missing.bats: no such suite"
	mkdir "$T/s"
	run -2 $cs "$T/s"
	assert_output --partial "no suites to run"
	printf '@test "passes" {\n\ttrue\n}\n' >"$T/s/a.bats"
	printf '@test "fails" {\n\tfalse\n}\n' >"$T/s/b.bats"
	printf '# bats test_tags=slow\n@test "tagged" {\n\ttrue\n}\n@test "untagged" {\n\tfalse\n}\n' >"$T/s/c.bats"
	printf '# check: alone\n@test "alone" {\n\ttrue\n}\n' >"$T/s/d.bats"
	run -1 --separate-stderr $cs -j 3 "$T/s"
	assert_line --regexp "^== $T/s/b\.bats: exit 1, [0-9]+ s\$"
	assert_line "ok 1 passes"
	assert_line "not ok 1 fails"
	assert_line "ok 1 alone"
	assert_line "== 2 of 4 suites failed"
	[ "$stderr" = "check-suites: $T/s/b.bats failed"$'\n'"check-suites: $T/s/c.bats failed" ]
	# the suite marked alone runs after the others
	printf '%s\n' "$output" | grep '^== /' | tail -n1 | grep -q "^== $T/s/d\.bats: exit 0,"
	run -0 $cs -t slow "$T/s/c.bats" "$T/s/a.bats"
	assert_line "ok 1 tagged"
	refute_line --partial "untagged"
	assert_line "== 0 of 2 suites failed"
}

@test "jh-meter: usage 2, a refused line 1, an unreadable file 2, metered 0" {
	run -2 jh-meter -Z
	run -2 jh-meter tokens -Q
	run -2 jh-meter frob
	run -1 jh-meter tokens <<<'not json'
	assert_output --partial "invalid JSON"
	run -2 jh-meter transcript "$T/missing.jsonl"
	assert_output --partial "No such file"
	run -0 jh-meter tokens -m claude-sonnet-4-6 -s s1 -u m1 -i 3 -o 5
	run -1 jh-meter otel <<<'{"resourceSpans": 7'
}

@test "jh-acp: usage 2, a relative config path 2; then by which end closed" {
	run -2 jh-acp -Z
	run -2 jh-acp
	run -2 jh-acp -c relative.conf -- /bin/cat
	# the editor closes first: 0; the agent ends first: 1
	run -0 jh-acp -s "$T/no.sock" -- /bin/cat </dev/null
	run -1 jh-acp -s "$T/no.sock" -- /bin/true < <(sleep 2)
}
