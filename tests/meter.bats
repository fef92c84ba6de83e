#!/usr/bin/env bats
# jh-meter: units from token counts, Claude Code transcripts and
# OpenTelemetry exports; run and probe on a synthetic powercap tree and
# the stand-in NVML library; the task-level aggregate and its outcome
# anchor; everything sealed through the real jh-seal | jh-chain | jh-verify.

load test_helper/common

setup() {
	_common_setup
	FX="$PROJECT_ROOT/tests/fixtures/meter"
	unset JH_POWERCAP_ROOT JH_NVML_LIB STANDIN_NVML_MODE
}

# zone DIR N ENERGY RANGE: a RAPL package zone (and its core subzone)
zone() {
	local d="$1/intel-rapl:$2"
	mkdir -p "$d/intel-rapl:$2:0"
	printf 'package-%s\n' "$2" >"$d/name"
	printf '%s\n' "$3" >"$d/energy_uj"
	printf '%s\n' "$4" >"$d/max_energy_range_uj"
	printf 'core\n' >"$d/intel-rapl:$2:0/name"
	printf '7\n' >"$d/intel-rapl:$2:0/energy_uj"
}

nvml() {
	command -v cc >/dev/null || skip "no C compiler for the NVML stand-in"
	cc -shared -fPIC -o "$T/nvml.so" "$PROJECT_ROOT/tests/fixtures/nvml-standin.c"
	export JH_NVML_LIB="$T/nvml.so" STANDIN_NVML_FILE="$T/gpu"
}

# tsv: the token fields of units, one line each
tsv() {
	jq -r '[.unit, (.request_id // "-"), (.model // "-"), .tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write] | @tsv'
}

@test "tokens: options give one Estimator unit, observed, not enforced" {
	run -0 --separate-stderr jh-meter tokens -m claude-opus-5-5 -s s1 -u u1 -i 10 -o 20 -r 30 -w 40
	run jq -c . <<<"$output"
	# 10 x 1.2 J + 20 x 6 J + 30 x 0.12 J + 40 x 1.5 J (tests/energy.bats)
	assert_output '{"kind":"efficiency/1","session":"s1","unit":"u1","source":"tokens","model":"claude-opus-5-5","tokens_in":10,"tokens_out":20,"tokens_cache_read":30,"tokens_cache_write":40,"accepted_tokens":20,"energy":{"estimated_uj":195600000,"provenance":"Estimator"},"coeff":"joulehook-coefficients/2026-11#claude-opus","duration_ms":0,"completed":1,"verdict":"ok","enforced":0,"debited_uj":0}'
	run -0 --separate-stderr jh-meter tokens -o 1
	[[ $stderr == *": observed, not enforced" ]]
	run -2 jh-meter tokens -i -3
	assert_output --partial '-i: -3 is not a count'
	run -2 jh-meter tokens -o 1x
	run -2 jh-meter nosuch
	assert_output --partial 'nosuch: no such subcommand'
}

@test "tokens: JSON lines in Anthropic, Chat Completions and Responses shapes; bad lines refused by number" {
	cat >"$T/in.jsonl" <<-'EOF'
	{"model":"claude-sonnet-4-6","input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":2000,"output_tokens":50,"unit":"msg_a","request_id":"req_a"}
	{"model":"gpt-4o","usage":{"prompt_tokens":2100,"completion_tokens":50,"prompt_tokens_details":{"cached_tokens":2000}}}
	{"model":"gpt-5.5","id":"resp_1","usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":256},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":4}}}

	not json
	{"input_tokens":-5,"output_tokens":1}
	{"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":11}}}
	{"model":"m"}
	[1,2]
	EOF
	run -1 --separate-stderr jh-meter tokens -s s3 <"$T/in.jsonl"
	run tsv <<<"$output"
	assert_output "$(printf 'msg_a\treq_a\tclaude-sonnet-4-6\t3\t50\t2000\t100\ntokens-2\t-\tgpt-4o\t100\t50\t2000\t0\nresp_1\t-\tgpt-5.5\t44\t9\t256\t0')"
	run -1 --separate-stderr jh-meter tokens -s s3 <"$T/in.jsonl"
	[[ $stderr == *"line 5: invalid JSON"* ]]
	[[ $stderr == *"line 6: usage input_tokens is negative"* ]]
	[[ $stderr == *"line 7: usage: 11 cached of 10 input tokens"* ]]
	[[ $stderr == *"line 8: no token counts"* ]]
	[[ $stderr == *"line 9: not a JSON object"* ]]
	[[ $stderr == *"3 units"*"some lines refused: observed, not enforced" ]]
}

@test "transcript: one unit per message id, the largest output_tokens, API errors passed over" {
	run -0 --separate-stderr jh-meter transcript "$FX/transcript.jsonl"
	units=$output
	run tsv <<<"$units"
	assert_output "$(printf '%s\n' \
	    'msg_01HXa1q9VbXwZ7mXk3TqYJpD	req_011CVdQx7mN4P2sKqYv8aB3c	claude-opus-5-5	3	187	14200	1520' \
	    'msg_01KqP4sT8uVwXyZ2a3b4c5d6	req_011CVdR2fGh5JkLmNpQrStUv	claude-opus-5-5	1	96	15720	310' \
	    'msg_01Zt9Hk2Lm3Np4Qr5St6Uv7W	req_011CVdS9aBcDeFgHiJkLmNoP	claude-haiku-4-5-20251001	412	7	0	0' \
	    'msg_01Wx2Yz3Ab4Cd5Ef6Gh7Ij8K	req_011CVdT3qRsTuVwXyZaBcDeF	claude-opus-5-5	2	41	16030	95')"
	run jq -r '[.session, .source, .verdict, .completed, .enforced, .accepted_tokens == .tokens_out, .energy.provenance, has("measured_uj")] | @tsv' <<<"$units"
	for l in "${lines[@]}"; do
		assert_equal "$l" "$(printf '5f0c2e7a-3b1d-4c8e-9a6f-2d7b8e1c4a90\ttranscript\tok\t1\t0\ttrue\tEstimator\tfalse')"
	done
	[[ $stderr == "jh-meter: transcript: 4 units, in=418 out=331 cache_read=45950 cache_write=1925, "*" from 13 lines: observed, not enforced" ]]
	# the naive sum of every line would count message A three times
	run jq -s '[.[] | select(.type == "assistant") | .message.usage.output_tokens] | add' "$FX/transcript.jsonl"
	assert_output 465
}

@test "transcript: a partial last line is not read; bad and hostile lines are skipped with a diagnostic" {
	cp "$FX/transcript.jsonl" "$T/t.jsonl"
	long=$(head -c 300 /dev/zero | tr '\0' x)
	{
		echo '{"type":"assistant","message":{"id":"msg_bad","usage":{"input_tokens":"3","output_tokens":1}}}'
		echo 'not json at all'
		printf '{"type":"assistant","message":{"id":"%s","usage":{"input_tokens":1,"output_tokens":1}}}\n' "$long"
		printf '{"type":"assistant","message":{"id":"msg_\xff\xfe","usage":{"input_tokens":1,"output_tokens":1}}}\n'
		echo '{"type":"assistant","message":{"usage":{"input_tokens":1}}}'
		# nesting far past the parser's limit
		printf '{"type":"assistant","usage":1,"x":'
		printf '[%.0s' $(seq 100000)
		printf ']%.0s' $(seq 100000)
		printf '}\n'
		printf '{"type":"assistant","requestId":"req_p","message":{"id":"msg_partial","usage":{"input_tokens":9,"output_tokens":9}'
	} >>"$T/t.jsonl"
	run -1 --separate-stderr jh-meter transcript "$T/t.jsonl"
	assert_equal "$(jq -r .unit <<<"$output" | tr '\n' ' ')" "msg_01HXa1q9VbXwZ7mXk3TqYJpD msg_01KqP4sT8uVwXyZ2a3b4c5d6 msg_01Zt9Hk2Lm3Np4Qr5St6Uv7W msg_01Wx2Yz3Ab4Cd5Ef6Gh7Ij8K "
	[[ $stderr == *"skipped: usage input_tokens is not an integer"* ]]
	[[ $stderr == *"skipped: invalid JSON"* ]]
	[[ $stderr == *"skipped: an assistant message without an id (or one over 256 bytes)"* ]]
	[[ $stderr == *"a partial last line at byte"*"left for the next read"* ]]
	[[ $stderr == *"maximum parsing depth reached"* ]]
	[[ $stderr != *msg_partial* ]]
}

@test "transcript: a line over 16 MiB is skipped and the rest still read" {
	{
		head -n 4 "$FX/transcript.jsonl"
		printf '{"type":"assistant","pad":"'
		head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' a
		printf '"}\n'
		tail -n +5 "$FX/transcript.jsonl"
	} >"$T/big.jsonl"
	run -1 --separate-stderr jh-meter transcript "$T/big.jsonl"
	assert_equal "$(jq -s 'map(.tokens_out) | add' <<<"$output")" 331
	[[ $stderr == *"record longer than 16777216 bytes"* ]]
}

@test "transcript -O: resumes at the offset, a call still streaming waits whole, the offset is renamed into place" {
	head -n 12 "$FX/transcript.jsonl" >"$T/t.jsonl"	# ends inside msg D
	run -0 --separate-stderr jh-meter transcript -O "$T/off" "$T/t.jsonl"
	assert_equal "$(jq -r .unit <<<"$output" | tr '\n' ' ')" "msg_01HXa1q9VbXwZ7mXk3TqYJpD msg_01KqP4sT8uVwXyZ2a3b4c5d6 msg_01Zt9Hk2Lm3Np4Qr5St6Uv7W "
	# the offset is the start of message D's first line
	want=$(head -n 11 "$T/t.jsonl" | wc -c)
	assert_equal "$(cat "$T/off")" "$want $(realpath "$T/t.jsonl")"
	# the rest arrives, and a line still being written
	tail -n +13 "$FX/transcript.jsonl" >>"$T/t.jsonl"
	printf '{"type":"user","message":{"role":"user","content":"ne' >>"$T/t.jsonl"
	run -0 --separate-stderr jh-meter transcript -O "$T/off" "$T/t.jsonl"
	run tsv <<<"$output"
	assert_output "$(printf 'msg_01Wx2Yz3Ab4Cd5Ef6Gh7Ij8K\treq_011CVdT3qRsTuVwXyZaBcDeF\tclaude-opus-5-5\t2\t41\t16030\t95')"
	assert_equal "$(cut -d' ' -f1 "$T/off")" "$(wc -c <"$FX/transcript.jsonl")"
	run -0 --separate-stderr jh-meter transcript -O "$T/off" "$T/t.jsonl"
	assert_output ''
	[[ $stderr == *"0 units"*"observed, not enforced" ]]
	# no temporary file is left behind
	run ls "$T"
	refute_output --partial '.tmp'
	# a file shorter than its offset is a new file
	head -n 5 "$FX/transcript.jsonl" >"$T/t.jsonl"
	run -0 --separate-stderr jh-meter transcript -O "$T/off" "$T/t.jsonl"
	assert_equal "$(jq -r .unit <<<"$output")" msg_01HXa1q9VbXwZ7mXk3TqYJpD
	[[ $stderr == *"a new file, read from the start"* ]]
	# a damaged offset file is an error, not a silent restart
	echo garbage >"$T/off"
	run -2 jh-meter transcript -O "$T/off" "$T/t.jsonl"
	assert_output --partial 'not an offset file'
}

@test "otel: api_request log events are the transcript's calls, token for token" {
	run -0 --separate-stderr jh-meter otel "$FX/otel-logs.json"
	ev=$output
	run jq -r '[.tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write, .model] | @tsv' <<<"$ev"
	want=$(jh-meter transcript "$FX/transcript.jsonl" 2>/dev/null |
	    jq -r '[.tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write, .model] | @tsv')
	assert_output "$want"
	run jq -r '[.unit, .session, .source, .duration_ms, .cost_musd, .completed, .verdict, .enforced] | @tsv' <<<"$ev"
	assert_line --index 0 "$(printf 'api_request/2\t5f0c2e7a-3b1d-4c8e-9a6f-2d7b8e1c4a90\totel\t8123\t49800\t1\tok\t0')"
	assert_line --index 2 "$(printf 'api_request/4\t5f0c2e7a-3b1d-4c8e-9a6f-2d7b8e1c4a90\totel\t611\t447\t1\tok\t0')"
	[[ $stderr == *"4 units, in=418 out=331 cache_read=45950 cache_write=1925"*"observed, not enforced" ]]
}

@test "otel: token.usage metrics sum per session and model, delta or cumulative; events win over metrics" {
	for f in otel-metrics.jsonl otel-metrics-cumulative.jsonl; do
		run -0 --separate-stderr jh-meter otel "$FX/$f"
		run tsv <<<"$output"
		assert_output "$(printf 'token.usage/claude-opus-5-5\t-\tclaude-opus-5-5\t6\t324\t45950\t1925\ntoken.usage/claude-haiku-4-5-20251001\t-\tclaude-haiku-4-5-20251001\t412\t7\t0\t0')"
	done
	run -0 --separate-stderr jh-meter otel "$FX/otel-metrics.jsonl"
	run jq -r '[.completed, .accepted_tokens, .note] | @tsv' <<<"$output"
	assert_line --index 0 --partial "$(printf '0\t0\tclaude_code.token.usage: a sum over calls')"
	# the same calls as events and as metrics: counted once
	cat "$FX/otel-metrics.jsonl" "$FX/otel-logs.json" >"$T/both.json"
	run -0 --separate-stderr jh-meter otel <"$T/both.json"
	assert_equal "$(jq -s 'length, (map(.tokens_out) | add), (map(.tokens_cache_read) | add)' <<<"$output" | tr '\n' ' ')" "4 331 45950 "
	[[ $stderr == *"from 3 exports, token.usage metrics of sessions with api_request events not counted again: observed, not enforced" ]]
}

@test "otel: a cumulative series is a session's running total, taken past one call's 10^9 tokens" {
	# cache reads of a long session: 0.9 then 1.2 billion, as Claude Code
	# exports its cumulative claude_code.token.usage
	point() {	# TEMPORALITY TIME VALUE
		jq -nc --argjson t "$1" --arg time "$2" --arg v "$3" '{resourceMetrics: [{resource: {attributes: [
		    {key: "service.name", value: {stringValue: "claude-code"}}]},
		  scopeMetrics: [{scope: {name: "com.anthropic.claude_code"}, metrics: [{
		    name: "claude_code.token.usage", unit: "tokens",
		    sum: {aggregationTemporality: $t, isMonotonic: true, dataPoints: [{
		      attributes: [{key: "session.id", value: {stringValue: "s-long"}},
		        {key: "model", value: {stringValue: "claude-opus-5-5"}},
		        {key: "type", value: {stringValue: "cacheRead"}}],
		      startTimeUnixNano: "1796012400000000000", timeUnixNano: $time,
		      asInt: $v}]}}]}]}]}'
	}
	{ point 2 1796012460000000000 900000000; point 2 1796012520000000000 1200000000; } >"$T/cum.jsonl"
	run -0 --separate-stderr jh-meter otel "$T/cum.jsonl"
	assert_equal "$(jq -r .tokens_cache_read <<<"$output")" 1200000000
	[[ $stderr != *skipped* ]]
	# a delta point is what one export interval added: a billion more
	# tokens in it is refused, as one call's would be
	point 1 1796012460000000000 1200000000 >"$T/delta.jsonl"
	run -1 --separate-stderr jh-meter otel "$T/delta.jsonl"
	[[ $stderr == *"without a known type, a count or a session.id: skipped"* ]]
}

@test "otel: GenAI spans: input includes the cache, errors are not completed, other spans are not calls" {
	run -0 --separate-stderr jh-meter otel "$FX/otel-spans.json"
	run jq -r '[.unit, .session, .model, .tokens_in, .tokens_out, .tokens_cache_read, .duration_ms, .verdict, .completed, .accepted_tokens] | @tsv' <<<"$output"
	assert_output "$(printf '%s\n' \
	    'chatcmpl-A1	conv-7	gpt-4o-2026-08-06	100	50	2000	1234	ok	1	50' \
	    'chatcmpl-A2	conv-7	gpt-4o-2026-08-06	300	9	0	500	error	0	0' \
	    'chatcmpl-A3	conv-7	gpt-4o-mini-2026-08-06	120	30	0	100	ok	1	30')"
}

@test "otel: what is not an export, or a record without a session or counts, is refused" {
	echo '{"hello":1}' >"$T/x.json"
	run -1 jh-meter otel "$T/x.json"
	assert_output --partial 'not an OTLP/JSON export request'
	jq -c '.resourceLogs[0].scopeLogs[0].logRecords[1].attributes |= map(select(.key != "session.id"))' "$FX/otel-logs.json" >"$T/nos.json"
	run -1 --separate-stderr jh-meter otel "$T/nos.json"
	assert_equal "$(jq -s length <<<"$output")" 3
	[[ $stderr == *"without session.id (give -s): skipped"* ]]
	run -0 --separate-stderr jh-meter otel -s given "$T/nos.json"
	assert_equal "$(jq -r .session <<<"$output" | head -n 1)" given
	jq -c '.resourceLogs[0].scopeLogs[0].logRecords[1].attributes |= map(if .key == "output_tokens" then .value = {"stringValue": "-4"} else . end)' "$FX/otel-logs.json" >"$T/neg.json"
	run -1 --separate-stderr jh-meter otel "$T/neg.json"
	[[ $stderr == *"with one that is not a count: skipped"* ]]
	printf '{"resourceLogs": [' >"$T/cut.json"
	run -1 jh-meter otel "$T/cut.json"
	run -2 jh-meter otel "$T/none.json"
}

@test "a session, id or model holding a NUL (\u0000) is no name: never an empty session or unit (fuzz-transcript, fuzz-otlp)" {
	{
		echo '{"type":"assistant","sessionId":"\u0000","message":{"id":"msg_n1","model":"\u0000","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}}'
		echo '{"type":"assistant","sessionId":"s9","message":{"id":"\u0000a","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}}'
		echo '{"type":"assistant\u0000x","sessionId":"s9","message":{"id":"msg_n2","usage":{"input_tokens":1,"output_tokens":2}}}'
	} >"$T/nul.jsonl"
	run -1 --separate-stderr jh-meter transcript "$T/nul.jsonl"
	assert_equal "$(jq -r '[.session, .unit, .model // "-"] | @tsv' <<<"$output")" "$(printf 'nul\tmsg_n1\t-')"
	[[ $stderr == *"line at byte "*" skipped: an assistant message whose id holds a NUL (\u0000)"* ]]
	run -1 --separate-stderr jh-meter transcript -s given "$T/nul.jsonl"
	assert_equal "$(jq -r .session <<<"$output")" given
	# an event whose session.id, and whose key, hold a NUL: no session
	jq -c '.resourceLogs[0].scopeLogs[0].logRecords[1].attributes |= map(if .key == "session.id" then .value.stringValue = "\u0000" else . end) |
	    .resourceLogs[0].scopeLogs[0].logRecords[2].attributes |= map(if .key == "session.id" then .key = "session.id\u0000x" else . end) |
	    .resourceLogs[0].scopeLogs[0].logRecords[3].attributes |= map(if .key == "model" then .value.stringValue = "\u0000" else . end)' \
	    "$FX/otel-logs.json" >"$T/nul.json"
	run -1 --separate-stderr jh-meter otel "$T/nul.json"
	assert_equal "$(jq -s 'length, (map(select(.session == "" or .unit == "" or .model == "")) | length)' <<<"$output" | tr '\n' ' ')" "2 0 "
	[[ $stderr == *"without session.id (give -s): skipped"* ]]
	run -0 --separate-stderr jh-meter otel -s given "$T/nul.json"
	assert_equal "$(jq -r .session <<<"$output" | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' ' ')" "2 5f0c2e7a-3b1d-4c8e-9a6f-2d7b8e1c4a90 2 given "
}

@test "run: RAPL live, a reading of the package counters only (HwShunt)" {
	zone "$T/pc" 0 1000000 262143328850
	zone "$T/pc" 1 5000000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	run -0 --separate-stderr jh-meter run -s s1 -u build -- sh -c "echo 1250000 >'$T/pc/intel-rapl:0/energy_uj'; echo 5500000 >'$T/pc/intel-rapl:1/energy_uj'; echo 9 >'$T/pc/intel-rapl:0/intel-rapl:0:0/energy_uj'"
	run jq -c '[.unit, .source, .energy.provenance, .energy.measured_uj, .energy.scope, .verdict, .completed, .enforced]' <<<"$output"
	assert_output '["build","run","HwShunt",750000,"cpu-packages","ok",1,0]'
	[[ $stderr == "jh-meter: run: rung rapl (HwShunt): 2 package counters under $T/pc: observed, not enforced"* ]]
	[[ $stderr == *"0.750000 J measured (rapl, cpu-packages)"* ]]
}

@test "run: a wrapped RAPL counter is corrected with max_energy_range_uj" {
	zone "$T/pc" 0 262143000000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	run -0 --separate-stderr jh-meter run -- sh -c "echo 171150 >'$T/pc/intel-rapl:0/energy_uj'"
	assert_equal "$(jq .energy.measured_uj <<<"$output")" 500000
}

@test "run: a long command whose counter wraps more than once is followed, every wrap counted" {
	zone "$T/pc" 0 262143000000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	# the test build reads the counters every 50 ms while it runs (the
	# release, every 10 s: a wrap takes ten minutes at 500 W)
	export JH_RAPL_TICK_MS=50
	E="$T/pc/intel-rapl:0/energy_uj"
	# each value put in place whole, as sysfs gives it: a tick that read
	# the file between echo's truncation and its write would see none
	run -0 --separate-stderr jh-meter run -- sh -c "put() { echo \$1 >'$E.new' && mv '$E.new' '$E'; }; put 200000; sleep 0.4; put 262143000000; sleep 0.4; put 100000; sleep 0.2"
	# wrap (328850 + 200000), a rise, wrap (328850 + 100000); the two
	# ends alone would give 428850
	assert_equal "$(jq .energy.measured_uj <<<"$output")" $((328850 + 200000 + 262142800000 + 328850 + 100000))
	assert_equal "$(jq -r .energy.provenance <<<"$output")" HwShunt
	# a package that could not be read at some step is no reading
	run -0 --separate-stderr jh-meter run -- sh -c "rm '$E'; sleep 0.3; echo 5 >'$E'"
	assert_equal "$(jq -r '.energy | has("measured_uj")' <<<"$output")" false
}

@test "run: stale, missing and unreadable counters are declined with the reason; no measured_uj" {
	zone "$T/pc" 0 1000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	# stale: the counter stood still for the whole 300 ms
	run -0 --separate-stderr jh-meter run -- sleep 0.3
	run jq -c '[.energy.provenance, (.energy | has("measured_uj")), (.energy.estimated_uj > 0), .note]' <<<"$output"
	assert_output '["Estimator",false,true,"exit 0; rung time"]'
	[[ $stderr == *"jh-meter: run: rapl declined: stale: the package counters did not advance in "*" ms: observed, not enforced"* ]]
	[[ $stderr == *"run: nvml declined: cannot load $T/none.so"* ]]
	[[ $stderr == *"run: model declined: no power calibrated for this host"* ]]
	[[ $stderr == *"run: tokens declined: a command has no token counts"* ]]
	[[ $stderr == *"run: rung time (Estimator): elapsed time x "*" mW, the documented default"* ]]
	# missing
	export JH_POWERCAP_ROOT="$T/none"
	run -0 --separate-stderr jh-meter run -P 40000 -- true
	assert_equal "$(jq -c '[.energy.provenance, (.energy | has("measured_uj")), .coeff]' <<<"$output")" '["ModelBased",false,"host-calibrated/40000-mW"]'
	[[ $stderr == *"run: rapl declined: no $T/none (No such file or directory): no powercap here"* ]]
	[[ $stderr == *"run: rung model (ModelBased)"* ]]
	# unreadable (a directory: mode 0400 is no obstacle to root)
	export JH_POWERCAP_ROOT="$T/pc"
	rm "$T/pc/intel-rapl:0/energy_uj"
	mkdir "$T/pc/intel-rapl:0/energy_uj"
	run -0 --separate-stderr jh-meter run -- true
	refute_output --partial measured_uj
	[[ $stderr == *"run: rapl declined: intel-rapl:0/energy_uj: "* ]]
	# a counter that vanishes during the run gives no reading either
	rmdir "$T/pc/intel-rapl:0/energy_uj"
	echo 5 >"$T/pc/intel-rapl:0/energy_uj"
	run -0 --separate-stderr jh-meter run -- rm "$T/pc/intel-rapl:0/energy_uj"
	refute_output --partial measured_uj
	[[ $stderr == *"run: rapl declined: a package counter could not be read at both ends of the interval"* ]]
}

@test "run: the NVML stand-in's GPUs (a partial figure), with RAPL added; the command's status is kept" {
	nvml
	export JH_POWERCAP_ROOT="$T/none"
	printf '1000\n2000\n' >"$T/gpu"
	run -0 --separate-stderr jh-meter run -- sh -c "printf '1500\n2250\n' >'$T/gpu'"
	assert_equal "$(jq -c '[.energy.provenance, .energy.measured_uj, .energy.scope]' <<<"$output")" '["HwShunt",750000,"gpus"]'
	[[ $stderr == *"run: rapl declined: no $T/none"* ]]
	[[ $stderr == *"run: rung nvml (HwShunt): 2 GPUs through $T/nvml.so (the GPUs only: a partial figure)"* ]]
	zone "$T/pc" 0 100 262143328850
	export JH_POWERCAP_ROOT="$T/pc"
	echo 10 >"$T/gpu"
	run -3 --separate-stderr jh-meter run -- sh -c "echo 300 >'$T/pc/intel-rapl:0/energy_uj'; echo 12 >'$T/gpu'; exit 3"
	assert_equal "$(jq -c '[.energy.measured_uj, .energy.scope, .verdict, .completed, .note]' <<<"$output")" '[2200,"cpu-packages+gpus","error",0,"exit 3; rung rapl+nvml"]'
	# a GPU counter that went backwards (a driver reload) is no reading
	export JH_POWERCAP_ROOT="$T/none"
	run -0 --separate-stderr jh-meter run -- sh -c "echo 5 >'$T/gpu'"
	refute_output --partial measured_uj
	[[ $stderr == *"run: nvml declined: a GPU counter went backwards"* ]]
	STANDIN_NVML_MODE=noenergy run -0 --separate-stderr jh-meter run -- true
	[[ $stderr == *"run: nvml declined: GPU 0: no total-energy counter (NVML error 3"* ]]
	run -127 --separate-stderr jh-meter run -- "$T/no-such-command"
	# the standard output is the unit's; an interrupt ends the command only
	# (perl puts SIGINT back to its default, which a shell started with it
	# ignored, as in a job run in the background, could not)
	run -130 --separate-stderr jh-meter run -- perl -e '$| = 1; print "from-the-command\n"; $SIG{INT} = "DEFAULT"; kill "INT", $$; sleep 5'
	assert_equal "$(jq -c '[.verdict, .completed, .note]' <<<"$output")" '["error",0,"signal 2; rung time"]'
	[[ $stderr == "from-the-command"* ]]
	# the GPU counter did not move in so short a run: no reading, not 0 J
	[[ $stderr == *"run: nvml declined: the GPU counters did not advance in "*" ms, shorter than their update period (about 40 ms): no reading"* ]]
	run -2 jh-meter run
}

@test "probe: the live rung and why each one above it is not" {
	zone "$T/pc" 0 1000 262143328850
	export JH_POWERCAP_ROOT="$T/pc" JH_NVML_LIB="$T/none.so"
	run -0 --separate-stderr jh-meter probe -t 0
	run jq -r '.selected, .provenance, .enforced, (.rungs[] | [.rung, .state, .provenance] | @tsv)' <<<"$output"
	assert_output "$(printf '%s\n' rapl HwShunt 0 \
	    "$(printf 'rapl\tselected\tHwShunt')" "$(printf 'nvml\tdeclined\tHwShunt')" \
	    "$(printf 'model\tdeclined\tModelBased')" "$(printf 'tokens\tlive\tEstimator')" \
	    "$(printf 'time\tlive\tEstimator')")"
	[[ $stderr == "jh-meter: probe: rapl selected: 1 package counter under $T/pc: observed, not enforced" ]]
	# stale over the probe's interval
	run -0 --separate-stderr jh-meter probe -t 250
	[[ $(jq -r '.selected, .rungs[0].why' <<<"$output" | tr '\n' '|') =~ ^tokens\|stale:\ the\ package\ counters\ did\ not\ advance\ in\ 2[5-9][0-9]\ ms\|$ ]]
	[[ $stderr == *"probe: rapl declined: stale"*"probe: nvml declined: cannot load"*"probe: model declined: no power calibrated"*"probe: tokens selected: tokens x coefficients"* ]]
	# a counter that moves is live over the same interval
	# (renamed into place, so a read never sees a half-written file)
	( for i in $(seq 1 30); do echo $((1000 + i * 977)) >"$T/e.new"; mv "$T/e.new" "$T/pc/intel-rapl:0/energy_uj"; sleep 0.02; done ) &
	run -0 --separate-stderr jh-meter probe -q -t 250
	wait
	assert_equal "$(jq -r .selected <<<"$output")" rapl
	assert_equal "$stderr" ''
	# no package zone, and no range to correct a wrap with
	rm "$T/pc/intel-rapl:0/max_energy_range_uj"
	run -0 --separate-stderr jh-meter probe -P 30000 -t 0
	assert_equal "$(jq -r '.selected, .rungs[0].why' <<<"$output" | tr '\n' '|')" "model|intel-rapl:0: no max_energy_range_uj, so a wraparound cannot be corrected|"
}

@test "probe: the NVML stand-in, live and declined" {
	nvml
	export JH_POWERCAP_ROOT="$T/none"
	echo 5000 >"$T/gpu"
	run -0 --separate-stderr jh-meter probe -t 0
	assert_equal "$(jq -r '.selected, .rungs[1].why' <<<"$output" | tr '\n' '|')" "nvml|1 GPU through $T/nvml.so (the GPUs only: a partial figure)|"
	for m in noinit nodev noenergy; do
		STANDIN_NVML_MODE=$m run -0 --separate-stderr jh-meter probe -t 0
		assert_equal "$(jq -r '.rungs[1].state' <<<"$output")" declined
	done
	STANDIN_NVML_MODE=noinit run -0 --separate-stderr jh-meter probe -t 0
	assert_equal "$(jq -r '.rungs[1].why' <<<"$output")" 'nvmlInit: error 9 (no driver loaded?)'
	run -0 --separate-stderr jh-meter probe -t 250
	[[ $(jq -r '.rungs[1].why' <<<"$output") =~ ^stale:\ the\ GPU\ counters\ did\ not\ advance\ in\ 2[5-9][0-9]\ ms$ ]]
}

# unit SESSION NAME COMPLETED OUT UJ [PROVENANCE [MEASURED]]
unit() {
	jq -nc --arg s "$1" --arg u "$2" --argjson c "$3" --argjson o "$4" \
	    --argjson e "$5" --arg p "${6:-Estimator}" --argjson m "${7:-null}" \
	    '{kind: "efficiency/1", session: $s, unit: $u, source: "transcript",
	    model: "claude-opus-5-5", tokens_in: 10, tokens_out: $o,
	    tokens_cache_read: 1000, tokens_cache_write: 100,
	    accepted_tokens: (if $c == 1 then $o else 0 end),
	    energy: ({estimated_uj: $e, provenance: $p} +
	    (if $m == null then {} else {measured_uj: $m, scope: "gpus"} end)),
	    coeff: "c#f", duration_ms: 1000, completed: $c,
	    verdict: (if $c == 1 then "ok" else "error" end), enforced: 0,
	    debited_uj: 0}'
}

@test "aggregate: every attempt is charged, failed ones too, against what was delivered" {
	{
		unit s1 a1 0 400 7000000
		unit s1 a2 0 300 5000000
		unit s1 a3 1 200 3000000
	} >"$T/u.jsonl"
	run -0 --separate-stderr jh-meter aggregate -c 1 -u fix <"$T/u.jsonl"
	run jq -c '[.unit, .source, .tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write, .accepted_tokens, .energy, .duration_ms, .completed, .verdict, .enforced, .note]' <<<"$output"
	assert_output '["fix","aggregate",30,900,3000,300,200,{"estimated_uj":15000000,"provenance":"Estimator"},3000,1,"ok",0,"3 attempts (2 failed) charged against the result; outcome: given (-c 1); observed, not enforced"]'
	[[ $stderr == *"3 attempts, 2 failed, completed 1"*"15.000000 J estimated, accepted_tokens=200, uj_per_completed_unit=15000000 tokens_per_completed_unit=4230 value_per_joule=13.333: observed, not enforced" ]]
	# a task that did not complete delivered nothing
	run -0 --separate-stderr jh-meter aggregate -c 0 <"$T/u.jsonl"
	assert_equal "$(jq -c '[.accepted_tokens, .completed, .verdict, .energy.estimated_uj]' <<<"$output")" '[0,0,"error",15000000]'
	[[ $stderr == *"uj_per_completed_unit=none tokens_per_completed_unit=none value_per_joule=0.000: observed, not enforced" ]]
	# no anchor: not completed, and the note says why
	run -0 --separate-stderr jh-meter aggregate <"$T/u.jsonl"
	assert_equal "$(jq -c '[.completed, .verdict]' <<<"$output")" '[0,"partial"]'
	assert_equal "$(jq -r .note <<<"$output")" '3 attempts (2 failed) charged against the result; no outcome anchor: not counted as completed; observed, not enforced'
	run -0 --separate-stderr jh-meter aggregate -V refused <"$T/u.jsonl"
	assert_equal "$(jq -c '[.completed, .verdict]' <<<"$output")" '[0,"refused"]'
}

@test "aggregate: provenance is the weakest part's; measured_uj only when every part is a reading" {
	{
		unit s1 a1 1 10 7000 HwShunt 9000
		unit s1 a2 1 10 5000 HwShunt 4000
	} >"$T/hw.jsonl"
	run -0 --separate-stderr jh-meter aggregate -c 1 <"$T/hw.jsonl"
	assert_equal "$(jq -c .energy <<<"$output")" '{"estimated_uj":12000,"measured_uj":13000,"scope":"gpus","provenance":"HwShunt"}'
	unit s1 a3 1 10 3000 ModelBased >>"$T/hw.jsonl"
	run -0 --separate-stderr jh-meter aggregate -c 1 <"$T/hw.jsonl"
	assert_equal "$(jq -c .energy <<<"$output")" '{"estimated_uj":15000,"provenance":"ModelBased"}'
	unit s1 a4 1 10 1000 >>"$T/hw.jsonl"
	run -0 --separate-stderr jh-meter aggregate -c 1 <"$T/hw.jsonl"
	assert_equal "$(jq -c .energy <<<"$output")" '{"estimated_uj":16000,"provenance":"Estimator"}'
}

@test "aggregate: bad input is refused whole, with the line" {
	unit s1 a1 1 10 7000 >"$T/u.jsonl"
	unit s2 b1 1 10 7000 >>"$T/u.jsonl"
	run -1 jh-meter aggregate -c 1 <"$T/u.jsonl"
	assert_output --partial 'line 2: a unit of session s2 among units of s1: give -s'
	run -0 --separate-stderr jh-meter aggregate -c 1 -s task-1 <"$T/u.jsonl"
	assert_equal "$(jq -r .session <<<"$output")" task-1
	unit s1 a1 1 10 7000 | jq -c '.energy.measured_uj = 5' >"$T/bad.jsonl"
	echo '{"kind":"decision/1","session":"s1"}' >>"$T/bad.jsonl"
	unit s1 a1 1 10 7000 | jq -c '.tokens_out = -1' >>"$T/bad.jsonl"
	echo 'x' >>"$T/bad.jsonl"
	run -1 jh-meter aggregate -c 1 <"$T/bad.jsonl"
	assert_line --partial 'line 1: energy.measured_uj is only for HwShunt'
	assert_line --partial 'line 2: a decision/1, not an efficiency/1 unit'
	assert_line --partial 'line 3: tokens_out is not an unsigned integer'
	assert_line --partial 'line 4: invalid JSON'
	assert_line --partial '4 lines refused: no aggregate of part of a task'
	run -1 jh-meter aggregate </dev/null
	assert_output --partial 'no efficiency/1 units to aggregate'
	run -2 jh-meter aggregate -c 2
	run -2 jh-meter aggregate -V great
}

@test "sealed: transcript units through jh-seal | jh-chain | jh-verify, aggregated from the log; rates recompute from the sealed integers" {
	jh_keys
	jh-meter transcript "$FX/transcript.jsonl" 2>/dev/null |
	    jh-seal -K efficiency/1 | jh-chain -l "$T/s.jhl" >/dev/null
	jh-meter otel "$FX/otel-spans.json" 2>/dev/null | jq -c '.session = "5f0c2e7a-3b1d-4c8e-9a6f-2d7b8e1c4a90"' |
	    jh-seal -K efficiency/1 | jh-chain -l "$T/s.jhl" >/dev/null
	run -0 jh-verify "$T/s.jhl"
	assert_line '{"summary":{"objects":7,"verified":7,"failed":0}}'
	run -0 --separate-stderr jh-meter aggregate -l "$T/s.jhl" -c 1 -u task-1
	agg=$output
	err=$stderr
	# seal the aggregate too, and read its figures back from the verified log
	jh-seal -K efficiency/1 <<<"$agg" | jh-chain -l "$T/s.jhl" >/dev/null
	run -0 jh-verify "$T/s.jhl"
	assert_line '{"summary":{"objects":8,"verified":8,"failed":0}}'
	core=$(jh-verify "$T/s.jhl" | jq -c 'select(.core.source == "aggregate") | .core')
	[ -n "$core" ]
	run jq -r '[.tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write, .accepted_tokens, .energy.estimated_uj, .completed, .enforced] | @tsv' <<<"$core"
	# 4 transcript calls + 3 spans, one of them failed
	assert_output "$(printf '938\t420\t47950\t1925\t411\t10633700000\t1\t0')"
	acc=$(jq .accepted_tokens <<<"$core")
	uj=$(jq .energy.estimated_uj <<<"$core")
	q=$((acc * 1000000000 / uj))
	tok=$(jq '.tokens_in + .tokens_out + .tokens_cache_read + .tokens_cache_write' <<<"$core")
	[[ $err == *"uj_per_completed_unit=$uj tokens_per_completed_unit=$tok value_per_joule=$((q / 1000)).$(printf %03d $((q % 1000))): observed, not enforced" ]]
	# aggregates in the log are not counted again
	run -0 --separate-stderr jh-meter aggregate -l "$T/s.jhl" -c 1
	assert_equal "$(jq .energy.estimated_uj <<<"$output")" "$uj"
	# a log that does not verify is not aggregated
	flip_byte "$T/s.jhl" 200
	run -1 jh-meter aggregate -l "$T/s.jhl" -c 1
	assert_output --partial 'does not verify'
	rm -f "$JH_HOME/stewards" "$JH_HOME/trust"
	run -2 jh-meter aggregate -l "$T/s.jhl"
	assert_output --partial 'no trusted keys'
}

@test "aggregate -l: the outcome anchor is the log's last result/1 with outcome 1" {
	jh_keys
	res() {
		jq -nc --arg st "$1" --argjson oc "$2" '{kind: "result/1", session: "s1",
		    tool_use_id: "toolu_test", host: "claude-code", event: "PostToolUse",
		    tool: "Bash", class: "shell", input_digest: ("sha256:" + ("0" * 64)),
		    status: $st, check: "no-receipt", reason: "test command",
		    debited_uj: 0} + (if $oc == 1 then {outcome: 1} else {} end)'
	}
	res ok 1 | jh-seal -K result/1 >/dev/null 2>&1 ||
	    skip "this build has no result/1 kind"
	{
		unit s1 a1 0 400 7000000
		res failed 1
		unit s1 a2 1 200 3000000
		res ok 1
		res failed 0
	} | jh-seal | jh-chain -l "$T/r.jhl" >/dev/null
	run -0 --separate-stderr jh-meter aggregate -l "$T/r.jhl" -c 0
	assert_equal "$(jq -c '[.completed, .verdict, .accepted_tokens, .energy.estimated_uj]' <<<"$output")" '[1,"ok",200,10000000]'
	assert_equal "$(jq -r .note <<<"$output")" '2 attempts (1 failed) charged against the result; outcome: result/1 ok of toolu_test; observed, not enforced'
	res denied 1 | jh-seal | jh-chain -l "$T/r.jhl" >/dev/null
	run -0 --separate-stderr jh-meter aggregate -l "$T/r.jhl"
	assert_equal "$(jq -c '[.completed, .verdict, .accepted_tokens]' <<<"$output")" '[0,"refused",0]'
}

@test "every unit is observed: enforced 0, nothing debited, and no measured_uj without a live counter" {
	export JH_POWERCAP_ROOT="$T/none" JH_NVML_LIB="$T/none.so"
	{
		jh-meter tokens -i 1 -o 1
		jh-meter transcript "$FX/transcript.jsonl"
		jh-meter otel "$FX/otel-logs.json"
		jh-meter otel "$FX/otel-metrics.jsonl"
		jh-meter otel "$FX/otel-spans.json"
		jh-meter run -- true
	} >"$T/all.jsonl" 2>"$T/all.err"
	run jq -s 'length, all(.enforced == 0 and .debited_uj == 0 and (.energy | has("measured_uj") | not) and .energy.provenance != "HwShunt")' "$T/all.jsonl"
	assert_output "$(printf '15\ntrue')"
	run grep -c 'observed, not enforced$' "$T/all.err"
	assert_output "$(wc -l <"$T/all.err")"
}

@test "an installed copy in JH_HOME/bin reads JH_HOME/coefficients.json, as jh-install lays them out; none is an error" {
	mkdir -p "$T/inst/bin"
	cp "$JH_BIN/jh-meter" "$T/inst/bin/"
	run -2 "$T/inst/bin/jh-meter" tokens -o 1
	assert_output --partial 'no coefficient file'
	jq '.families |= map(if .family == "default" then .output.uj = 7 else . end)' \
	    "$PROJECT_ROOT/lib/coefficients.json" >"$T/inst/coefficients.json"
	run -0 --separate-stderr "$T/inst/bin/jh-meter" tokens -o 3
	assert_equal "$(jq -c '[.energy.estimated_uj, .coeff]' <<<"$output")" '[21,"joulehook-coefficients/2026-11#default"]'
}
