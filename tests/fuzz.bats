load test_helper/common
setup() { _common_setup; }

# A smoke pass of the libFuzzer targets (tests/fuzz/): `make fuzz-build`
# compiles the library again with clang, coverage and ASan+UBSan into
# build/fuzz/ and links each target, then each runs FUZZ_RUNS inputs
# (20000 unless set; at most FUZZ_SMOKE_SECONDS, 120) from seeds made of
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
	run make -s -C "$PROJECT_ROOT" FUZZ_CC="$FUZZ_CC" fuzz-build
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	FO="$PROJECT_ROOT/build/fuzz"
}

smoke() {
	run sh "$PROJECT_ROOT/tests/fuzz/run" "$FO" "$1" -runs="${FUZZ_RUNS:-20000}" \
	    -max_total_time="${FUZZ_SMOKE_SECONDS:-120}"
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
