# bats file_tags=fuzz
# (the targets are built with ASan and UBSan already: make check-asan
# leaves this suite out)
load test_helper/common
setup() { _common_setup; }

# A smoke pass of the libFuzzer targets (tests/fuzz/): `make fuzz-build`
# compiles the library again with clang, coverage and ASan+UBSan into
# build/fuzz/ and links each target, then each runs FUZZ_RUNS inputs
# (20000 unless set; at most FUZZ_SMOKE_SECONDS, 10) from seeds made of
# the fixtures.  A crash, a leak or a sanitizer report fails the test,
# with the input under build/fuzz/crash-*.  `make fuzz` is the long run.
# Skipped, loudly, without clang or its libFuzzer runtime (Debian:
# clang-14 libclang-rt-14-dev, which scripts/deps installs).

fuzz_ready() {
	FUZZ_CC=$(command -v clang-14 || command -v clang) || {
		echo "# SKIPPED: no clang for the fuzz targets" >&3
		skip "no clang (apt-get install clang-14 libclang-rt-14-dev)"
	}
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$T/probe.c"
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" 2>"$T/probe.err" || {
		echo "# SKIPPED: $FUZZ_CC has no libFuzzer runtime: $(head -n1 "$T/probe.err")" >&3
		skip "no libFuzzer runtime for $FUZZ_CC (apt-get install libclang-rt-14-dev)"
	}
	run -0 "$T/probe" -runs=1
}

fuzz_build() {
	run make -s -j"$(nproc)" -C "$PROJECT_ROOT" FUZZ_CC="$FUZZ_CC" fuzz-build
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	FO="$PROJECT_ROOT/build/fuzz"
}

smoke() {
	# RUNS: fewer for a target that does more per input; then more
	# libFuzzer options
	run sh "$PROJECT_ROOT/tests/fuzz/run" "$FO" "$1" -runs="${FUZZ_RUNS:-${2:-20000}}" \
	    -max_total_time="${FUZZ_SMOKE_SECONDS:-10}" "${@:3}"
	echo "$output"
	echo "# $(printf '%s\n' "$output" | grep '^fuzz:')" >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *"fuzz: $1: "*" execs in "* ]]
}

@test "fuzz: the seeds and the dictionary come from the fixtures" {
	fuzz_ready
	run -0 sh "$PROJECT_ROOT/tests/fuzz/seeds" "$T/fz"
	local n
	n=$(find "$T/fz/seeds-shell" -type f | wc -l)
	[ "$n" -ge 500 ]
	[ "$(find "$T/fz/seeds-cmdopts" -type f | wc -l)" -eq "$n" ]
	# a here-document of the agent corpus is decoded into real newlines
	run -0 grep -rlF "<<'EOF'" "$T/fz/seeds-shell"
	run -0 sh -c "grep -rlx 'EOF' '$T/fz/seeds-shell' | head -n1"
	[ -n "$output" ]
	run -0 grep -c '^"' "$T/fz/cmdtab.dict"
	[ "$output" -ge 10 ]
	# the format targets': every conformance envelope, as bytes
	n=$(ls "$PROJECT_ROOT"/conformance/v1/sealed/*/envelope.hex \
	    "$PROJECT_ROOT"/conformance/v1/accepted/*.hex \
	    "$PROJECT_ROOT"/conformance/v1/negative/*.hex | wc -l)
	[ "$(find "$T/fz/seeds-envelope" -type f -name 'sealed-*' -o -type f \
	    -name 'accepted-*' -o -type f -name 'negative-*' | wc -l)" -eq "$n" ]
	run -0 sh -c "head -c 2 '$T/fz/seeds-envelope/sealed-grant' | od -An -tx1"
	assert_output ' d2 84'
	[ "$(find "$T/fz/seeds-payload" -type f | wc -l)" -ge 10 ]
	[ "$(find "$T/fz/seeds-grant" -type f | wc -l)" -ge 5 ]
	for t in paths sse mcp transcript otlp acp; do
		[ "$(find "$T/fz/seeds-$t" -type f | wc -l)" -ge 3 ]
		run -0 grep -c '^"' "$T/fz/$t.dict"
	done
	# the meter's: each OTLP seed a control byte and an export request
	# small enough for -max_len, the transcript's whole lines of JSON
	run -0 sh -c "find '$T/fz/seeds-otlp' -type f -size +4095c | wc -l"
	assert_output 0
	run -0 sh -c "tail -c +2 '$T/fz/seeds-otlp/mixed' | jq -r 'keys[]'"
	assert_output $'resourceLogs\nresourceSpans'
	run -0 jq -sr 'length' "$T/fz/seeds-transcript/streaming"
	assert_output 5
	# the relay's: each captured ACP payload's call, under five verdicts
	[ "$(find "$T/fz/seeds-acp" -type f -name 'capture-*' | wc -l)" -eq \
	    $((5 * $(ls "$PROJECT_ROOT"/tests/hosts/acp/*.json | wc -l))) ]
	# the MCP seeds name the session fuzz-mcp serves
	run -0 grep -c "$(printf %s fuzz-mcp | sha256sum | cut -c1-64)" \
	    "$T/fz/seeds-mcp/session"
}

@test "fuzz: fuzz-shell (parser, effect extractor) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-shell
}

@test "fuzz: fuzz-cmdopts (the table's option parser) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-cmdopts
}

@test "fuzz: fuzz-hookwire (the hardened hook's request and frame) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-hookwire
}

@test "fuzz: fuzz-envelope (CBOR decoder, envelope parser and verifier) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-envelope
}

@test "fuzz: fuzz-payload (host payloads to ActionEvents, the answers) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-payload 4000	# each input through all nine hosts
}

@test "fuzz: fuzz-grant (grant documents, sealed, loaded, decided against) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-grant
}

@test "fuzz: fuzz-paths (path resolution, under, glob, protection) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-paths
}

@test "fuzz: fuzz-sse (the proxy's request scan, SSE and usage readers) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-sse
}

@test "fuzz: fuzz-mcp (jh-status -m's JSON-RPC server) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-mcp
}

@test "fuzz: fuzz-transcript (Claude Code transcripts, offsets, units) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-transcript 3000	# each input read whole thrice, and in pieces
}

@test "fuzz: fuzz-otlp (OTLP/JSON logs, metrics, traces to units) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-otlp 10000
}

@test "fuzz: fuzz-acp (jh-acp's relay: JSON-RPC both ways, the gate's verdicts) smoke run" {
	fuzz_ready
	fuzz_build
	smoke fuzz-acp 5000 -rss_limit_mb=512
	# found by a CI smoke run: one optionId offered as allow_always and as
	# reject_once; the relay's rejection by that id was read as an allow
	run "$FO/fuzz-acp" "$PROJECT_ROOT/tests/fuzz/regress/acp-dup-option-id"
	echo "$output" | tail -n 3
	[ "$status" -eq 0 ]
}
