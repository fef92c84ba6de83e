#!/usr/bin/env bats
# jh-seal and jh-verify against every published vector (conformance/run).

load test_helper/common

setup() {
	_common_setup
}

@test "the binaries pass every conformance/v1 vector" {
	run sh "$PROJECT_ROOT/conformance/run"
	assert_success
	assert_line --regexp '^[0-9]+ passed, 0 failed$'
	refute_line --partial "FAIL "
}
