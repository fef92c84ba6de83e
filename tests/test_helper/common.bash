# Shared setup for every bats suite: hermetic HOME/JH_HOME/JH_STATE per
# test, the test build's programs first in PATH, helper libraries loaded
# from Debian's /usr/lib/bats.

_common_setup() {
	bats_require_minimum_version 1.5.0
	bats_load_library bats-support
	bats_load_library bats-assert
	bats_load_library bats-file
	PROJECT_ROOT="$(cd "$(dirname "$BATS_TEST_FILENAME")/.." && pwd)"
	JH_BIN="${JH_BIN:-$PROJECT_ROOT/build/test/bin}"
	JH_TESTBIN="${JH_TESTBIN:-$PROJECT_ROOT/build/test/tests}"
	VECTORS="$PROJECT_ROOT/conformance/v1"
	export JH_BIN JH_TESTBIN
	PATH="$JH_BIN:$PATH"
	T="$BATS_TEST_TMPDIR"
	export HOME="$T/home" JH_HOME="$T/jh" JH_STATE="$T/state"
	unset XDG_CONFIG_HOME XDG_STATE_HOME JH_NOW JH_NONCE JH_PASSPHRASE
	mkdir -p "$HOME" "$JH_HOME" "$JH_STATE"
	chmod 700 "$JH_HOME" "$JH_STATE"
}

# Fresh steward and (unencrypted) issuer keys in JH_HOME, listed in
# stewards and trust.
jh_keys() {
	jh-seal -G -k "$JH_HOME/steward.key"
	jh-seal -G -W -R issuer -k "$JH_HOME/issuer.key"
	cp "$JH_HOME/steward.key.pub" "$JH_HOME/stewards"
	cp "$JH_HOME/issuer.key.pub" "$JH_HOME/trust"
}

# The published conformance keys (fixed, test-only), copied with mode
# 0600 because git does not keep it.
jh_fixed_keys() {
	install -m 600 "$VECTORS/keys/steward.key" "$JH_HOME/steward.key"
	install -m 600 "$VECTORS/keys/issuer.key" "$JH_HOME/issuer.key"
	cp "$VECTORS/keys/steward.key.pub" "$JH_HOME/steward.key.pub"
	cp "$VECTORS/keys/issuer.key.pub" "$JH_HOME/issuer.key.pub"
	cp "$VECTORS/keys/steward.key.pub" "$JH_HOME/stewards"
	cp "$VECTORS/keys/issuer.key.pub" "$JH_HOME/trust"
}

# A Decision as jh-decide writes it (joulehook-formats(5), The Decision).
decision_json() {
	local verdict="${1:-allow}" debit=2000000
	[ "$verdict" = deny ] && debit=0
	printf '{"kind":"decision/1","session_id":"s1","tool":"Bash","input":{"command":"npm test"},"cwd":"/repo","content_id":null,"host":"claude-code","event":"PreToolUse","class":"shell","tool_use_id":"toolu_01","verdict":"%s","code":"ok","reason":"granted","grant":null,"cost_uj":2000000,"debited_uj":%s,"provenance":"Estimator","remaining_uj":1000,"rule":"caps[0]","target":null,"updated_input":null}\n' "$verdict" "$debit"
}

# flip_byte FILE OFFSET: complements one byte in place, so the file always
# changes (writing a fixed byte leaves it as it was 1 time in 256 where
# the bytes are a signature, a key or a nonce).
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[ -n "$b" ] || return 1
	printf "\\$(printf %03o $((b ^ 255)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
