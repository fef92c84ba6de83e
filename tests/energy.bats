#!/usr/bin/env bats
# The energy module (lib/energy.c) through its test program: provider
# usage semantics, the coefficient file, the metering ladder against a
# synthetic powercap tree and a stand-in NVML library, and the
# thread-safe timed lock of lib/chain.c.

load test_helper/common

setup() {
	_common_setup
	P="$JH_TESTBIN/energy-probe"
	COEFF="$PROJECT_ROOT/lib/coefficients.json"
	unset JH_POWERCAP_ROOT JH_NVML_LIB
}

# pkg DIR N ENERGY RANGE: a package zone intel-rapl:N with a core subzone
pkg() {
	local z="$1/intel-rapl:$2"
	mkdir -p "$z/intel-rapl:$2:0"
	echo "package-$2" >"$z/name"
	echo "$3" >"$z/energy_uj"
	echo "$4" >"$z/max_energy_range_uj"
	echo core >"$z/intel-rapl:$2:0/name"
	echo 5 >"$z/intel-rapl:$2:0/energy_uj"
	echo "$4" >"$z/intel-rapl:$2:0/max_energy_range_uj"
}

# measure ARGS... -- CMD: energy-probe measure samples, runs CMD between
# its two samples, and leaves the JSON in $output
measure() {
	local args=() cmd
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	cmd="$*"
	mkfifo "$T/go"
	"$P" measure "${args[@]}" <"$T/go" >"$T/m.out" &
	local pid=$!
	exec 4>"$T/go"
	for _ in $(seq 100); do
		grep -q '^ready' "$T/m.out" 2>/dev/null && break
		sleep 0.05
	done
	eval "$cmd"
	echo go >&4
	exec 4>&-
	wait "$pid"
	rm -f "$T/go"
	output=$(tail -n 1 "$T/m.out")
}

standin() {
	command -v cc >/dev/null || skip "no C compiler for the NVML stand-in"
	cc -shared -fPIC -o "$T/libnvml-standin.so" \
	    "$PROJECT_ROOT/tests/fixtures/nvml-standin.c"
	export JH_NVML_LIB="$T/libnvml-standin.so"
	export STANDIN_NVML_FILE="$T/gpu"
}

@test "every coefficient has a value, a source and an uncertainty note" {
	run -0 jq -e '[.families[] | .input, .output, .cache_read, .cache_write |
	    (.uj | type == "number" and . >= 0) and (.source | length > 20) and
	    (.uncertainty | length > 5)] | all' "$COEFF"
	run -0 jq -e '.default_power.source | length > 20' "$COEFF"
	run -0 "$P" coeffs "$COEFF"
	assert_output --regexp '^joulehook-coefficients/[^ ]+ 6 families sha256:[0-9a-f]{64}$'
}

@test "a coefficient without a source, a negative one or no catch-all family is refused" {
	jq 'del(.families[0].output.source)' "$COEFF" >"$T/c1.json"
	run -1 "$P" coeffs "$T/c1.json"
	assert_output --partial 'claude-haiku: output has no source'
	jq '.families[1].input.uj = -1' "$COEFF" >"$T/c2.json"
	run -1 "$P" coeffs "$T/c2.json"
	assert_output --partial 'input.uj must be an integer'
	jq '.families |= map(select(.family != "default"))' "$COEFF" >"$T/c3.json"
	run -1 "$P" coeffs "$T/c3.json"
	assert_output --partial 'no family matches every model'
	jq 'del(.families[2].cache_read.uncertainty)' "$COEFF" >"$T/c4.json"
	run -1 "$P" coeffs "$T/c4.json"
	assert_output --partial 'no uncertainty note'
}

@test "tokens x coefficients: the first matching family, every token kind" {
	run -0 "$P" tokens "$COEFF" claude-opus-5-5 10 20 30 40
	# 10 x 1.2 J + 20 x 6 J + 30 x 0.12 J + 40 x 1.5 J
	assert_output 'joulehook-coefficients/2026-11#claude-opus 195600000'
	run -0 "$P" tokens "$COEFF" claude-3-5-haiku-20241022 1000 0 0 0
	assert_output --partial '#claude-haiku 50000000'
	run -0 "$P" tokens "$COEFF" claude-sonnet-4-6 0 1 0 0
	assert_output --partial '#claude-sonnet 2000000'
	run -0 "$P" tokens "$COEFF" gpt-4o-mini 0 1000 0 0
	assert_output --partial '#gpt-small 430000000'
	run -0 "$P" tokens "$COEFF" gpt-5.5 1 1 1 0
	assert_output --partial '#gpt 2220000'
	run -0 "$P" tokens "$COEFF" mock-model 0 0 100 10
	assert_output --partial '#default 4500000'
	# saturating, never wrapping
	run -0 "$P" tokens "$COEFF" claude-opus-5-5 0 18446744073709551615 0 0
	assert_output --partial ' 18446744073709551615'
}

@test "usage: Anthropic input excludes the cache; OpenAI prompt tokens include it" {
	run -0 "$P" usage anthropic '{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":50}'
	assert_output 'in=3 out=50 cache_read=2000 cache_write=100 have=11'
	run -0 "$P" usage chat '{"prompt_tokens":2100,"completion_tokens":50,"prompt_tokens_details":{"cached_tokens":2000}}'
	assert_output 'in=100 out=50 cache_read=2000 cache_write=0 have=11'
	run -0 "$P" usage responses '{"input_tokens":300,"input_tokens_details":{"cached_tokens":256},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":4}}'
	assert_output 'in=44 out=9 cache_read=256 cache_write=0 have=11'
	# a message_delta may carry only the output side; null cache fields
	run -0 "$P" usage anthropic '{"output_tokens":7,"cache_read_input_tokens":null}'
	assert_output 'in=0 out=7 cache_read=0 cache_write=0 have=01'
}

@test "usage: negative, fractional, non-numeric and absurd counts are refused" {
	run -1 "$P" usage anthropic '{"input_tokens":-5,"output_tokens":1}'
	assert_output --partial 'input_tokens is negative'
	run -1 "$P" usage anthropic '{"input_tokens":1.5}'
	assert_output --partial 'not an integer'
	run -1 "$P" usage anthropic '{"output_tokens":"12"}'
	assert_output --partial 'not an integer'
	run -1 "$P" usage anthropic '{"output_tokens":4611686018427387904}'
	assert_output --partial 'absurd'
	run -1 "$P" usage chat '{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":11}}'
	assert_output --partial '11 cached of 10 input tokens'
	run -1 "$P" usage responses '[]'
	assert_output --partial 'not an object'
}

@test "no powercap and no NVML: the ladder says why and falls to the estimates" {
	export JH_POWERCAP_ROOT="$T/none" JH_NVML_LIB="$T/none.so"
	run -0 "$P" probe
	assert_line --index 0 --regexp "^rapl declined no $T/none .*virtual machine"
	assert_line --index 1 --regexp '^nvml declined cannot load .*none.so'
	assert_line --index 2 'model declined no power calibrated for this host'
	assert_line --index 3 --partial 'tokens selected'
}

@test "RAPL: every package counter summed, subzones not added, HwShunt" {
	pkg "$T/pc" 0 1000000 262143328850
	pkg "$T/pc" 1 5000000 262143328850
	echo psys >"$T/pc/intel-rapl:0/name.x"
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	run -0 "$P" probe
	assert_line --index 0 "rapl selected 2 package counters under $T/pc"
	measure -t 777 -- 'echo 1250000 >"$T/pc/intel-rapl:0/energy_uj"; echo 5500000 >"$T/pc/intel-rapl:1/energy_uj"; echo 999999 >"$T/pc/intel-rapl:0/intel-rapl:0:0/energy_uj"'
	run jq -c . <<<"$output"
	assert_output '{"provenance":"HwShunt","method":"rapl","estimated_uj":777,"measured_uj":750000,"scope":"cpu-packages"}'
}

@test "RAPL: a counter that wrapped is corrected with max_energy_range_uj" {
	pkg "$T/pc" 0 262143000000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	measure -t 5 -- 'echo 171150 >"$T/pc/intel-rapl:0/energy_uj"'
	# 262143328850 - 262143000000 + 171150
	run jq -r .measured_uj <<<"$output"
	assert_output 500000
}

@test "RAPL: HwShunt only while every package counter is live" {
	pkg "$T/pc" 0 1000 262143328850
	pkg "$T/pc" 1 1000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	measure -t 4242 -- 'echo 9000 >"$T/pc/intel-rapl:0/energy_uj"; rm "$T/pc/intel-rapl:1/energy_uj"'
	run jq -c . <<<"$output"
	assert_output '{"provenance":"Estimator","method":"tokens","estimated_uj":4242}'
	# a package with no range cannot have its wrap corrected: declined
	rm "$T/pc/intel-rapl:1/max_energy_range_uj"
	echo 1 >"$T/pc/intel-rapl:1/energy_uj"
	run -0 "$P" probe
	assert_line --index 0 --partial 'rapl declined intel-rapl:1: no max_energy_range_uj'
	# an unreadable counter (a directory here; mode 0400 root-only on Linux 5.10+)
	echo 1 >"$T/pc/intel-rapl:1/max_energy_range_uj"
	rm "$T/pc/intel-rapl:1/energy_uj"
	mkdir "$T/pc/intel-rapl:1/energy_uj"
	run -0 "$P" probe
	assert_line --index 0 --regexp '^rapl declined intel-rapl:1/energy_uj: '
}

@test "NVML: a stand-in library's GPU counters, HwShunt for the GPUs only" {
	standin
	export JH_POWERCAP_ROOT="$T/none"
	printf '1000\n2000\n' >"$T/gpu"
	run -0 "$P" probe
	assert_line --index 1 --regexp "^nvml selected 2 GPUs through .*libnvml-standin.so \(the GPUs only: a partial figure\)$"
	measure -t 11 -- 'printf "1500\n2250\n" >"$T/gpu"'
	run jq -c . <<<"$output"
	assert_output '{"provenance":"HwShunt","method":"nvml","estimated_uj":11,"measured_uj":750000,"scope":"gpus"}'
}

@test "NVML and RAPL together; NVML declined with the reason when it cannot read" {
	standin
	pkg "$T/pc" 0 100 262143328850
	export JH_POWERCAP_ROOT="$T/pc"
	echo 10 >"$T/gpu"
	measure -- 'echo 300 >"$T/pc/intel-rapl:0/energy_uj"; echo 12 >"$T/gpu"'
	run jq -r '[.provenance, .method, .measured_uj, .scope] | @tsv' <<<"$output"
	assert_output "$(printf 'HwShunt\trapl+nvml\t2200\tcpu-packages+gpus')"
	for m in noinit nodev noenergy; do
		STANDIN_NVML_MODE=$m run -0 "$P" probe
		assert_line --index 1 --regexp '^nvml declined '
	done
	STANDIN_NVML_MODE=noenergy run -0 "$P" probe
	assert_line --index 1 --partial 'no total-energy counter (NVML error 3'
	# a GPU counter that went backwards (a driver reload) is no reading
	measure -t 9 -- 'echo 5 >"$T/gpu"; echo 400 >"$T/pc/intel-rapl:0/energy_uj"'
	run jq -r '[.method, .measured_uj] | @tsv' <<<"$output"
	assert_output "$(printf 'rapl\t100')"
}

@test "ModelBased: time x calibrated power; with nothing else, time x the default power" {
	export JH_POWERCAP_ROOT="$T/none" JH_NVML_LIB="$T/none.so"
	measure -P 50000 -- 'sleep 0.3'
	run jq -r '[.provenance, .method, (.estimated_uj >= 15000000 and .estimated_uj < 100000000), has("measured_uj")] | @tsv' <<<"$output"
	assert_output "$(printf 'ModelBased\tmodel\ttrue\tfalse')"
	measure -- 'sleep 0.2'
	run jq -r '[.provenance, .method, .estimated_uj > 0] | @tsv' <<<"$output"
	assert_output "$(printf 'Estimator\ttime\ttrue')"
}

@test "the thread-safe timed lock times out in one thread and excludes flock(1)" {
	: >"$T/lockfile"
	flock "$T/lockfile" sleep 3 &
	sleep 0.3
	start=$(date +%s%N)
	run -1 "$P" tflock "$T/lockfile" 400
	assert_output 'not locked: timed out after 400 ms waiting for a lock'
	el=$(( ($(date +%s%N) - start) / 1000000 ))
	[ "$el" -ge 350 ] && [ "$el" -lt 2500 ]
	run -0 "$P" tflock "$T/lockfile" 5000
	assert_output locked
	wait
}
