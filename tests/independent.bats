#!/usr/bin/env bats
# The published vectors (conformance/v1) verify under an implementation
# this project did not write: Debian's python3-cbor2 and python3-nacl,
# through /usr/bin/python3 (not a pyenv or venv python first in PATH).
# The Python is in tests/helpers/independent_verify.py.  Missing modules
# fail these tests, they do not skip them: CI installs both (scripts/deps).

load test_helper/common

setup() {
	_common_setup
	PY=/usr/bin/python3
	HELPER="$PROJECT_ROOT/tests/helpers/independent_verify.py"
}

# Runs the helper; the summary line must show every vector passed.
indep() {
	[ -x "$PY" ] || fail "$PY is missing: install Debian's python3, python3-cbor2 and python3-nacl (scripts/deps does)"
	run "$PY" "$HELPER" "$@"
}

# count DIR PATTERN: how many vectors of that shape the directory holds.
count() {
	local n=0 f
	for f in "$VECTORS"/$1/$2; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# unhex HEXFILE OUT (bash's printf knows \xHH)
unhex() {
	printf '%b' "$(tr -d '\n' <"$1" | sed 's/../\\x&/g')" >"$2"
}

@test "/usr/bin/python3 has cbor2 and nacl (python3-cbor2, python3-nacl)" {
	indep deps
	assert_success
	assert_output --partial "under /usr/bin/python3"
}

@test "every sealed vector verifies with cbor2 and nacl, payload canonical under cbor2" {
	n=$(count sealed '*/envelope.hex')
	[ "$n" -ge 7 ]
	indep sealed "$VECTORS"
	assert_success
	assert_line "$n passed, 0 failed"
}

@test "every accepted control verifies with cbor2 and nacl, alg -19 too" {
	n=$(count accepted '*.hex')
	[ "$n" -ge 4 ]
	indep accepted "$VECTORS"
	assert_success
	assert_line "$n passed, 0 failed"
	assert_line "ok accepted/alg-minus-19"
}

@test "a decision's uid is an integer in 0..2^32-1 under cbor2 too: the largest accepted, the bad ones refused" {
	indep accepted "$VECTORS"
	assert_success
	assert_line "ok accepted/decision-uid-max"
	indep sealed "$VECTORS"
	assert_line "ok sealed/decision-uid"
	# signed and well formed but for the uid, so the uid check refuses them
	indep negative "$VECTORS" decision-uid-text decision-uid-negative \
	    decision-uid-2-to-the-32
	assert_success
	assert_line "3 passed, 0 failed"
	assert_line "ok negative/decision-uid-text (refused: decision uid '1000' is not an integer in 0..2^32-1)"
	assert_line "ok negative/decision-uid-negative (refused: decision uid -1 is not an integer in 0..2^32-1)"
	assert_line "ok negative/decision-uid-2-to-the-32 (refused: decision uid 4294967296 is not an integer in 0..2^32-1)"
}

@test "every canonical vector decodes and re-encodes byte for byte with cbor2" {
	# One float is the exception, explained in the helper
	# (half_exact_c_mismatch): cbor2 5.4.6's C encoder writes 65504.0
	# as a single, fa477fe000, though the half f97bff is exact and
	# shortest; its pure-Python encoder writes f97bff, and the helper
	# asserts exactly that.
	n=$(count canonical '*.cbor')
	[ "$n" -ge 50 ]
	indep canonical "$VECTORS"
	assert_success
	assert_line "$n passed, 0 failed"
	assert_line --partial "ok canonical/float-half-max-65504 (cbor2's C encoder writes fa477fe000"
}

@test "every canonical digest is recomputed from its JSON with Python's json and cbor2" {
	n=$(count canonical '*.json')
	[ "$n" -ge 60 ]
	indep digest "$VECTORS"
	assert_success
	assert_line "$n passed, 0 failed"
	assert_line --partial "ok canonical/refuse-duplicate-key (refused:"
	assert_line --partial "ok canonical/refuse-int64-max-plus-1 (refused:"
}

@test "the controls built by hand in Python are byte for byte what jh-seal sealed" {
	assert_equal "$(cat "$VECTORS/accepted/control-decision.hex")" \
	    "$(cat "$VECTORS/sealed/decision-allow/envelope.hex")"
	assert_equal "$(cat "$VECTORS/accepted/control-efficiency.hex")" \
	    "$(cat "$VECTORS/sealed/efficiency-estimator/envelope.hex")"
	assert_equal "$(cat "$VECTORS/accepted/control-grant.hex")" \
	    "$(cat "$VECTORS/sealed/grant/envelope.hex")"
}

@test "gen-negative-vectors reproduces negative/ and accepted/ byte for byte" {
	[ -x "$PY" ] || fail "$PY is missing"
	run "$PY" "$PROJECT_ROOT/scripts/gen-negative-vectors" -c
	assert_success
	assert_output ""
}

@test "jh-verify rejects every negative vector" {
	# Rejection only; conformance/run also pins each error's text.
	local h name bad="" n=0
	for h in "$VECTORS"/negative/*.hex; do
		name=$(basename "$h" .hex)
		unhex "$h" "$T/$name.cbor"
		run jh-verify -s "$VECTORS/keys/steward.key.pub" \
		    -t "$VECTORS/keys/issuer.key.pub" "$T/$name.cbor"
		if [ "$status" -ne 1 ] || [[ "${lines[0]}" != *'"ok":false'* ]]; then
			bad="$bad
negative/$name: exit $status: ${lines[0]:-}"
		fi
		n=$((n + 1))
	done
	[ -z "$bad" ] || fail "not rejected:$bad"
	[ "$n" -ge 24 ]
}
