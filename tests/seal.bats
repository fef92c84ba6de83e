#!/usr/bin/env bats
# jh-seal: key generation and sealing.

load test_helper/common

setup() {
	_common_setup
}

@test "generates a steward key: mode 0600, did:key in the .pub file" {
	run jh-seal -G -k "$JH_HOME/steward.key"
	assert_success
	assert_file_exist "$JH_HOME/steward.key.pub"
	run stat -c %a "$JH_HOME/steward.key"
	assert_output 600
	run cat "$JH_HOME/steward.key.pub"
	assert_output --regexp '^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$'
	run grep -c '^kdf: none$' "$JH_HOME/steward.key"
	assert_output 1
}

@test "refuses to overwrite an existing key" {
	jh-seal -G -k "$JH_HOME/steward.key"
	run -2 jh-seal -G -k "$JH_HOME/steward.key"
	assert_output --partial "File exists"
}

@test "an issuer key is encrypted by default and needs its passphrase" {
	JH_PASSPHRASE=correct jh-seal -G -R issuer -k "$JH_HOME/issuer.key"
	run grep -c '^kdf: argon2id13$' "$JH_HOME/issuer.key"
	assert_output 1
	run grep -c "$(cut -c1-16 /dev/null)secret: " "$JH_HOME/issuer.key"
	assert_output 1
	cp "$JH_HOME/issuer.key.pub" "$JH_HOME/trust"
	echo '{"audience":"joulehook:*","nbf":0,"exp":1900000000,"budget_uj":1000,"caps":[]}' >"$T/g.json"
	JH_PASSPHRASE=correct run -0 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g.json"
	JH_PASSPHRASE=wrong run -2 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g.json"
	assert_output --partial "wrong passphrase"
}

@test "without a terminal an encrypted issuer key cannot be made; -W makes a plain one" {
	run -2 setsid -w jh-seal -G -R issuer -k "$JH_HOME/issuer.key" </dev/null
	assert_output --partial "-W"
	assert_file_not_exist "$JH_HOME/issuer.key"
	run -0 jh-seal -G -W -R issuer -k "$JH_HOME/issuer.key"
	run grep -c '^role: issuer$' "$JH_HOME/issuer.key"
	assert_output 1
}

@test "refuses a secret key readable by group or others" {
	jh_keys
	chmod 640 "$JH_HOME/steward.key"
	decision_json >"$T/d.json"
	run -2 jh-seal "$T/d.json"
	assert_output --partial "accessible by group or others"
}

@test "refuses a key file that is a symlink" {
	jh_keys
	ln -s "$JH_HOME/steward.key" "$T/link.key"
	decision_json >"$T/d.json"
	run -2 jh-seal -k "$T/link.key" "$T/d.json"
	assert_output --partial "link"
}

@test "seals a Decision and jh-verify accepts it" {
	jh_keys
	decision_json | jh-seal >"$T/d.cbor"
	run -0 jh-verify "$T/d.cbor"
	assert_line --index 0 --partial '"ok":true,"kind":"decision/1"'
	assert_line --index 1 '{"summary":{"objects":1,"verified":1,"failed":0}}'
}

@test "the sealed decision holds the input digest, never the input" {
	jh_keys
	run -0 sh -c 'decision_json() { :; }; true'
	decision_json | jh-seal -j >"$T/d.jsonl"
	run jq -r '.core | has("input"), has("session_id"), .session, .input_digest' "$T/d.jsonl"
	assert_line --index 0 false
	assert_line --index 1 false
	assert_line --index 2 s1
	# input_digest is SHA-256 of the canonical CBOR of the input
	want=$(echo '{"command":"npm test"}' | jh-seal -D | jq -r .digest)
	assert_line --index 3 "$want"
}

@test "output is reproducible with JH_NOW and JH_NONCE in a test build" {
	jh_keys
	decision_json >"$T/d.json"
	JH_NOW=1700000000000 JH_NONCE=0001020304050607 jh-seal "$T/d.json" >"$T/a"
	JH_NOW=1700000000000 JH_NONCE=0001020304050607 jh-seal "$T/d.json" >"$T/b"
	cmp "$T/a" "$T/b"
	run jq -r .core.ts <(jh-verify "$T/a" | head -1)
	assert_output 1700000000000
}

@test "the release build ignores JH_NOW and JH_NONCE" {
	[ -x "$PROJECT_ROOT/bin/jh-seal" ] || skip "no release build in bin/"
	jh_keys
	decision_json >"$T/d.json"
	JH_NOW=1 JH_NONCE=0000000000000000 "$PROJECT_ROOT/bin/jh-seal" -j "$T/d.json" >"$T/r.json"
	run jq -r '.core.ts > 1000000000000, .core.nonce != "0000000000000000"' "$T/r.json"
	assert_line --index 0 true
	assert_line --index 1 true
}

@test "a rewrite seals updated_input as JSON text with its digest" {
	jh_keys
	decision_json rewrite | jq -c '.updated_input={"command":"npm test --silent"} | .code="policy-rewrite"' |
	    jh-seal -j >"$T/r.json"
	run jq -r '.core.updated_input, .core.updated_digest' "$T/r.json"
	assert_line --index 0 '{"command":"npm test --silent"}'
	want=$(echo '{"command":"npm test --silent"}' | jh-seal -D | jq -r .digest)
	assert_line --index 1 "$want"
}

@test "the kind comes from -K or the record, never guessed" {
	jh_keys
	decision_json | jq -c 'del(.kind)' >"$T/nokind.json"
	run -1 jh-seal "$T/nokind.json"
	assert_output --partial "no kind"
	run -0 jh-seal -K decision/1 "$T/nokind.json"
	decision_json >"$T/d.json"
	run -1 jh-seal -K efficiency/1 "$T/d.json"
	assert_output --partial "record of kind decision/1, not efficiency/1"
	run -2 jh-seal -K bogus/1 "$T/d.json"
	assert_output --partial "unknown kind"
}

@test "a key signs only the kinds of its role" {
	jh_keys
	decision_json >"$T/d.json"
	echo '{"audience":"joulehook:*","nbf":0,"exp":1900000000,"budget_uj":1000,"caps":[]}' >"$T/g.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/steward.key" "$T/g.json"
	assert_output --partial "grant/1 needs an issuer key"
	run -1 jh-seal -k "$JH_HOME/issuer.key" "$T/d.json"
	assert_output --partial "decision/1 needs an steward key"
}

@test "floats, booleans and nulls in a core are refused, naming the field" {
	jh_keys
	decision_json | jq -c '.cost_uj=1.5' >"$T/f.json"
	run -1 jh-seal "$T/f.json"
	assert_output --partial "float in core: field cost_uj"
	decision_json | jq -c '.extra={"deep":[1,true]}' >"$T/b.json"
	run -1 jh-seal "$T/b.json"
	assert_output --partial "boolean in core: field extra.deep[1]"
	decision_json | jq -c '.reason=null' >"$T/n.json"
	run -1 jh-seal "$T/n.json"
	assert_output --partial "null in core: field reason"
	# but the input itself may hold them: it is only digested
	decision_json | jq -c '.input={"a":1.5,"b":true,"c":null}' >"$T/i.json"
	run -0 jh-seal "$T/i.json"
}

@test "each kind's required fields and types are checked" {
	jh_keys
	decision_json | jq -c 'del(.tool_use_id)' >"$T/a.json"
	run -1 jh-seal "$T/a.json"
	assert_output --partial "missing field tool_use_id"
	# a deny need not be bound to a call (a malformed event is still denied)
	decision_json deny | jq -c 'del(.tool_use_id, .tool, .input)' >"$T/d.json"
	run -0 jh-seal "$T/d.json"
	decision_json deny | jq -c '.debited_uj=5' >"$T/d2.json"
	run -1 jh-seal "$T/d2.json"
	assert_output --partial "a deny debits nothing"
	decision_json | jq -c '.cost_uj=-1' >"$T/neg.json"
	run -1 jh-seal "$T/neg.json"
	assert_output --partial "field cost_uj must be an unsigned integer"
	decision_json | jq -c '.verdict="maybe"' >"$T/v.json"
	run -1 jh-seal "$T/v.json"
	assert_output --partial "verdict"
}

@test "a decision's uid is an unsigned integer below 2^32, or refused" {
	jh_keys
	for u in 0 1000 4294967295; do
		decision_json | jq -c --argjson u "$u" '.uid=$u' >"$T/u.json"
		run -0 jh-seal -j "$T/u.json"
		run -0 jq -c .core.uid <<<"$output"
		assert_output "$u"
	done
	for u in '"1000"' -1 4294967296 1099511627776 '[1000]'; do
		decision_json | jq -c ".uid=$u" >"$T/u.json"
		run -1 jh-seal "$T/u.json"
		assert_output --partial "field uid must be an unsigned integer below 2^32"
	done
	decision_json | jq -c '.uid=1000.5' >"$T/u.json"
	run -1 jh-seal "$T/u.json"
	assert_output --partial "float in core: field uid"
	decision_json | jq -c '.uid=null' >"$T/u.json"
	run -1 jh-seal "$T/u.json"
	assert_output --partial "null in core: field uid"
	# only decision/1 knows the field
	echo '{"audience":"joulehook:*","nbf":0,"exp":1900000000,"budget_uj":1000,"caps":[],"uid":1000}' >"$T/g.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/g.json"
	assert_output --partial "unknown field uid"
}

@test "efficiency units keep the provenance contract" {
	jh_keys
	base='{"kind":"efficiency/1","session":"s1","unit":"msg_1","source":"proxy","tokens_in":10,"tokens_out":20,"tokens_cache_read":0,"tokens_cache_write":0,"accepted_tokens":20,"coeff":"default-2026","duration_ms":5,"completed":1,"verdict":"ok","enforced":1,"debited_uj":42}'
	echo "$base" | jq -c '.energy={"estimated_uj":42,"provenance":"Estimator"}' >"$T/ok.json"
	run -0 jh-seal "$T/ok.json"
	echo "$base" | jq -c '.energy={"estimated_uj":42,"provenance":"HwShunt"}' >"$T/hw.json"
	run -1 jh-seal "$T/hw.json"
	assert_output --partial "HwShunt energy must carry measured_uj"
	echo "$base" | jq -c '.energy={"estimated_uj":42,"measured_uj":40,"provenance":"Estimator"}' >"$T/est.json"
	run -1 jh-seal "$T/est.json"
	assert_output --partial "measured_uj is only for HwShunt"
}

@test "a grant gets issuer and defaults; -v prints its id, the hash of its payload" {
	jh_keys
	echo '{"audience":"joulehook:*","nbf":0,"exp":1900000000,"budget_uj":20000000000000,"caps":[{"class":"shell","command":["npm test"]}]}' >"$T/g.json"
	jh-seal -v -K grant/1 -k "$JH_HOME/issuer.key" "$T/g.json" >"$T/g.cbor" 2>"$T/err"
	run cat "$T/err"
	assert_output --regexp '^jh-seal: grant sha256:[0-9a-f]{64}$'
	id=$(sed 's/.* //' "$T/err")
	run /usr/bin/python3 -c 'import sys,cbor2,hashlib; t=cbor2.loads(open(sys.argv[1],"rb").read()); print("sha256:"+hashlib.sha256(t.value[2]).hexdigest())' "$T/g.cbor"
	assert_output "$id"
	run jq -c '.core | [.issuer==.steward, .policies, .costs, .depth]' <(jh-verify "$T/g.cbor" | head -1)
	assert_output '[true,[],{},0]'
	echo '{"audience":"joulehook:*","nbf":0,"exp":1,"budget_uj":1,"caps":[],"parent":"sha256:00"}' >"$T/p.json"
	run -1 jh-seal -K grant/1 -k "$JH_HOME/issuer.key" "$T/p.json"
	assert_output --partial "names its parent and the agent it is for, both or neither"
}

@test "bad lines are named and skipped; the others are sealed" {
	jh_keys
	{ decision_json; echo '{not json'; echo '[1,2]'; decision_json; } >"$T/mix.json"
	run --separate-stderr jh-seal "$T/mix.json"
	assert_equal "$status" 1
	[[ "$stderr" == *"mix.json:2: invalid JSON"* ]]
	[[ "$stderr" == *"mix.json:3: record is not a JSON object"* ]]
	jh-seal "$T/mix.json" 2>/dev/null >"$T/out.cbor" || true
	run -0 jh-verify -q "$T/out.cbor"
	run jq -s 'map(select(.ok)) | length' <(jh-verify "$T/out.cbor")
	assert_output 2
}

@test "duplicate keys, invalid UTF-8 and a record over the size limit are refused" {
	jh_keys
	decision_json | sed 's/"tool":"Bash",/"tool":"Bash","tool":"Write",/' >"$T/dup.json"
	run -1 jh-seal "$T/dup.json"
	assert_output --partial "duplicate"
	printf '{"kind":"decision/1","reason":"\377"}\n' >"$T/utf.json"
	run -1 jh-seal "$T/utf.json"
	assert_output --partial "invalid JSON"
	/usr/bin/python3 -c 'import json; print(json.dumps({"kind":"decision/1","reason":"x"*(17*1024*1024)}))' >"$T/big.json"
	decision_json >>"$T/big.json"
	run --separate-stderr jh-seal "$T/big.json"
	assert_equal "$status" 1
	[[ "$stderr" == *"longer than"* ]]
	jh-seal "$T/big.json" 2>/dev/null >"$T/big.cbor" || true
	run -0 jh-verify "$T/big.cbor"
}

@test "empty input seals nothing and succeeds" {
	jh_keys
	run -0 jh-seal </dev/null
	assert_output ""
}

@test "a missing key is an error that says where it looked" {
	run -2 jh-seal </dev/null
	assert_output --partial "steward.key"
}

@test "-D prints the canonical CBOR and input_digest of any JSON value" {
	run -0 sh -c 'echo "{\"b\":1,\"a\":[1.0,1e2,true,null]}" | jh-seal -D'
	assert_output '{"digest":"sha256:'"$(printf '\xa2\x61\x61\x84\xf9\x3c\x00\xf9\x56\x40\xf5\xf6\x61\x62\x01' | sha256sum | cut -c1-64)"'","cbor":"a2616184f93c00f95640f5f6616201"}'
}

@test "usage errors exit 2; -h prints usage and exits 0" {
	run -2 jh-seal -x
	assert_output --partial "usage:"
	run -0 jh-seal -h
	assert_line --index 0 --partial "usage: jh-seal -G"
	run -2 jh-seal -G
}
