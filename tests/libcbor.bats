#!/usr/bin/env bats
# Why signed bytes never go through libcbor (joulehook-formats(5)): Debian 12's
# libcbor 0.8 refuses COSE_Sign1's one-byte tag, accepts non-canonical
# input and loses bits of subnormal halves. When a libcbor release fixes
# any of these the test fails, as a prompt to revisit the decision.

load test_helper/common

setup() {
	_common_setup
}

@test "libcbor 0.8 still refuses 0xd2, accepts non-canonical input, mis-encodes subnormal halves" {
	run -0 "$JH_TESTBIN/libcbor-regress"
	assert_line "refuses one-byte tag 18 (0xd2): yes"
	assert_line "accepts non-shortest integer 0x18 0x01: yes"
	assert_line "accepts unsorted map keys: yes"
	assert_line --partial "cbor_encode_half(3 * 2^-24) loses bits: yes"
}

@test "our decoder accepts what libcbor refuses and refuses what it accepts" {
	jh_keys
	decision_json | jh-seal >"$T/r.cbor"
	run -0 jh-verify "$T/r.cbor"
	[ "$(head -c 1 "$T/r.cbor" | xxd -p)" = d2 ]
	printf '\x18\x01' >"$T/long.cbor"
	run -1 jh-verify "$T/long.cbor"
	assert_output --partial "non-shortest integer"
}
