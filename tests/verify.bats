#!/usr/bin/env bats
# jh-verify on sealed objects (log verification is in chain.bats).

load test_helper/common

setup() {
	_common_setup
	jh_keys
}

@test "prints one line per object and a summary; exit 0 when all verify" {
	{ decision_json; decision_json deny; } | jh-seal >"$T/r.cbor"
	run -0 jh-verify "$T/r.cbor"
	assert_equal "${#lines[@]}" 3
	assert_line --index 2 '{"summary":{"objects":2,"verified":2,"failed":0}}'
}

@test "jq audits just work" {
	{ decision_json; decision_json deny; decision_json; } | jh-seal >"$T/r.cbor"
	run -0 sh -c "jh-verify '$T/r.cbor' | jq -c 'select(.core.verdict==\"deny\") | .core.code'"
	assert_output '"ok"'
	run sh -c "jh-verify '$T/r.cbor' | jq -s 'map(select(.ok)) | length'"
	assert_output 3
}

@test "reads stdin, '-' and several files" {
	decision_json | jh-seal >"$T/a.cbor"
	decision_json deny | jh-seal >"$T/b.cbor"
	run -0 jh-verify "$T/a.cbor" - "$T/b.cbor" <"$T/a.cbor"
	assert_line --index 3 '{"summary":{"objects":3,"verified":3,"failed":0}}'
	run -0 jh-verify <"$T/a.cbor"
}

@test "a receipt from an unlisted key is refused" {
	decision_json | jh-seal >"$T/r.cbor"
	mkdir "$T/other"
	jh-seal -G -k "$T/other/k"
	run -1 jh-verify -s "$T/other/k.pub" "$T/r.cbor"
	assert_output --partial "untrusted kid did:key:"
	run -0 jh-verify -p "$(cat "$JH_HOME/steward.key.pub")" "$T/r.cbor"
}

@test "trust roles are separate: an issuer key does not vouch for receipts" {
	decision_json | jh-seal >"$T/r.cbor"
	run -1 jh-verify -t "$JH_HOME/steward.key.pub" "$T/r.cbor"
	assert_output --partial "not a trusted steward key"
	echo '{"audience":"joulehook:*","nbf":0,"exp":1900000000,"budget_uj":1000,"caps":[]}' |
	    jh-seal -K grant/1 -k "$JH_HOME/issuer.key" >"$T/g.cbor"
	run -1 jh-verify -s "$JH_HOME/issuer.key.pub" "$T/g.cbor"
	assert_output --partial "not a trusted issuer key"
	run -0 jh-verify -t "$JH_HOME/issuer.key.pub" "$T/g.cbor"
}

@test "any changed byte is caught, and the rest still verify" {
	{ decision_json; decision_json; } | jh-seal >"$T/r.cbor"
	size=$(stat -c %s "$T/r.cbor")
	half=$((size / 2))
	for off in 60 100 $((half - 10)); do
		cp "$T/r.cbor" "$T/x.cbor"
		printf '\x5a' | dd of="$T/x.cbor" bs=1 seek="$off" conv=notrunc 2>/dev/null
		cmp -s "$T/r.cbor" "$T/x.cbor" && continue
		run -1 jh-verify "$T/x.cbor"
		assert_line --index 1 --partial '"ok":true'
	done
}

@test "garbage, truncation and an empty file" {
	printf 'hello' >"$T/g"
	run -1 jh-verify "$T/g"
	assert_output --partial '"ok":false'
	decision_json | jh-seal >"$T/r.cbor"
	head -c 100 "$T/r.cbor" >"$T/t.cbor"
	run -1 jh-verify "$T/t.cbor"
	assert_output --partial "truncated"
	: >"$T/empty"
	run -0 jh-verify "$T/empty"
	assert_output '{"summary":{"objects":0,"verified":0,"failed":0}}'
}

@test "-q prints nothing on stdout and the defects on stderr" {
	decision_json | jh-seal >"$T/r.cbor"
	run -0 --separate-stderr jh-verify -q "$T/r.cbor"
	assert_output ""
	printf 'x' >>"$T/r.cbor"
	run -1 --separate-stderr jh-verify -q "$T/r.cbor"
	assert_output ""
	[[ "$stderr" == *"item 2"* ]]
}

@test "cannot run: no trusted keys, unreadable file, bad option" {
	rm "$JH_HOME/stewards" "$JH_HOME/trust"
	decision_json | jh-seal >"$T/r.cbor"
	run -2 jh-verify "$T/r.cbor"
	assert_output --partial "no trusted keys"
	run -2 jh-verify -p did:key:zBogus "$T/r.cbor"
	run -2 jh-verify -p "$(cat "$JH_HOME/steward.key.pub")" "$T/missing"
	run -2 jh-verify -Z
	run -0 jh-verify -h
}
