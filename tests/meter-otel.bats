#!/usr/bin/env bats
#
# jh-meter otel -l, the live OTLP/HTTP JSON receiver (jh-meter(1) "otel
# -l"): fed over real HTTP (curl, and the real Claude Code 2.1.328 and
# Gemini CLI 0.61.0 exporting their telemetry to it), it seals the units
# the file mode prints, token for token, into each session's chained log;
# it answers as an OTLP collector does; it stops cleanly; what it refuses
# leaves the logs whole.

load test_helper/common
load helpers/otel
load helpers/claude
load helpers/gemini

setup() {
	_common_setup
	jh_keys
	CAP="$PROJECT_ROOT/tests/fixtures/otel-capture"
	FX="$PROJECT_ROOT/tests/fixtures/meter"
	CC_LOGS="$CAP/claude-code-2.1.328-v1_logs.jsonl"
	CC_METRICS="$CAP/claude-code-2.1.328-v1_metrics.jsonl"
}

teardown() {
	rx_kill
	mock_stop
	gemini_mock_stop
}

# The units a file gives, without the key order's say: sorted keys.
file_units() {
	jh-meter otel "$@" 2>/dev/null | jq -cS .
}

@test "the capture POSTed over HTTP seals the file mode's units, token for token, equal to the mock's usage" {
	rx_start -F 0
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	assert_equal "$(cat "$T/answer")" "{}"
	run -0 rx_post /v1/metrics "$CC_METRICS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	# what it printed is what the file mode prints for the same requests
	cat "$CC_LOGS" "$CC_METRICS" >"$T/both.jsonl"
	file_units "$T/both.jsonl" >"$T/file.jsonl"
	jq -cS . "$RX_OUT" >"$T/rx.jsonl"
	run -0 diff "$T/file.jsonl" "$T/rx.jsonl"
	assert_equal "$(wc -l <"$T/rx.jsonl")" 2
	# and what it sealed is what it printed, in one verified log
	run -0 rx_logs
	assert_equal "${#lines[@]}" 1
	units_of "$(rx_logs)" | jq -cS . >"$T/sealed.jsonl"
	run -0 diff "$T/rx.jsonl" "$T/sealed.jsonl"
	# the mock's usage of that run, call by call
	run -0 jq -sc 'map([.request_id, .usage.input_tokens, .usage.output_tokens, .usage.cache_read_input_tokens, .usage.cache_creation_input_tokens])' "$CAP/mock-usage.jsonl"
	want=$output
	run -0 jq -sc 'map([.request_id, .tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write])' "$T/sealed.jsonl"
	assert_equal "$output" "$want"
	# observed, never enforced
	run -0 jq -sc 'map([.source, .enforced, .debited_uj, .energy.provenance]) | unique' "$T/sealed.jsonl"
	assert_output '[["otel",0,0,"Estimator"]]'
	[[ $(cat "$RX_ERR") == *"token.usage metrics of sessions with api_request events not counted again"*"observed, not enforced"* ]]
}

@test "metrics alone: the sums are sealed at the stop, as the file mode's" {
	rx_start -F 0
	run -0 rx_post /v1/metrics "$CC_METRICS"
	assert_output 200
	# nothing sealed before the stop (no -F)
	[ ! -s "$RX_OUT" ]
	rx_stop
	assert_equal "$RX_RC" 0
	file_units "$CC_METRICS" >"$T/file.jsonl"
	run -0 diff "$T/file.jsonl" <(jq -cS . "$RX_OUT")
	run -0 totals "$RX_OUT"
	assert_output "$(jq -sc '[(map(.usage.input_tokens) | add), (map(.usage.output_tokens) | add), (map(.usage.cache_read_input_tokens) | add), (map(.usage.cache_creation_input_tokens) | add)]' "$CAP/mock-usage.jsonl")"
	run -0 jh-verify $(rx_logs)
}

@test "metric series add up across requests: delta points added, cumulative the latest; quiet sessions sealed by -F, then only what they added" {
	for f in otel-metrics.jsonl otel-metrics-cumulative.jsonl; do
		rm -rf "$JH_STATE/logs"
		rx_start -F 0
		# one request per line: the series span requests
		i=0
		while IFS= read -r line; do
			i=$((i + 1))
			printf '%s\n' "$line" >"$T/req.$i.json"
			run -0 rx_post /v1/metrics "$T/req.$i.json"
			assert_output 200
		done <"$FX/$f"
		[ "$i" -ge 2 ]
		rx_stop
		run -0 diff <(file_units "$FX/$f") <(jq -cS . "$RX_OUT")
	done
	# -F 1: a quiet session is sealed while the receiver runs; a later
	# point adds a unit of only what it added
	rm -rf "$JH_STATE/logs"
	rx_start -F 1
	head -n 1 "$FX/otel-metrics.jsonl" >"$T/m1.json"
	tail -n +2 "$FX/otel-metrics.jsonl" >"$T/m2.json"
	run -0 rx_post /v1/metrics "$T/m1.json"
	for ((i = 0; i < 60; i++)); do
		[ -s "$RX_OUT" ] && break
		sleep 0.1
	done
	[ -s "$RX_OUT" ]
	run -0 totals "$RX_OUT"
	assert_output "$(file_units "$T/m1.json" | totals)"
	run -0 rx_post /v1/metrics "$T/m2.json"
	rx_stop
	assert_equal "$RX_RC" 0
	# together: the file's totals, nothing counted twice
	run -0 totals "$RX_OUT"
	assert_output "$(file_units "$FX/otel-metrics.jsonl" | totals)"
	run -0 totals <(units_of $(rx_logs))
	assert_output "$(file_units "$FX/otel-metrics.jsonl" | totals)"
}

@test "spans and Gemini CLI events over /v1/traces and /v1/logs: the file mode's units" {
	rx_start -F 0
	run -0 rx_post /v1/traces "$FX/otel-spans.json"
	assert_output 200
	run -0 rx_post /v1/logs "$CAP/gemini-cli-0.61.0-v1_logs.json"
	assert_output 200
	rx_stop
	cat "$FX/otel-spans.json" "$CAP/gemini-cli-0.61.0-v1_logs.json" >"$T/both.json"
	run -0 diff <(file_units "$T/both.json") <(jq -cS . "$RX_OUT")
	# the Gemini call: the mock's usageMetadata, read as the proxy reads it
	run -0 jq -c 'select(.source == "otel" and (.unit | startswith("api_response/"))) | [.tokens_in, .tokens_out, .tokens_cache_read]' "$RX_OUT"
	assert_output "$(jq -c '[.promptTokenCount - .cachedContentTokenCount, .candidatesTokenCount + (.thoughtsTokenCount // 0), .cachedContentTokenCount]' "$CAP/gemini-mock-usage.jsonl")"
	# a path reads only its own signal: spans sent to /v1/logs are not read
	rx_start -F 0
	run -0 rx_post /v1/logs "$FX/otel-spans.json"
	assert_output 200
	rx_stop
	[ ! -s "$RX_OUT" ]
}

@test "refusals answer as a collector does, say why and what to set, and leave the receiver serving" {
	rx_start -F 0 -b 65536
	# protobuf: 415, naming the setting
	run -0 rx_post /v1/logs "$CC_LOGS" application/x-protobuf
	assert_output 415
	run -0 jq -r .message "$T/answer"
	assert_output --partial "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"
	# another type
	run -0 rx_post /v1/logs "$CC_LOGS" text/plain
	assert_output 415
	# compressed: 415, naming the setting (no gzip here: libz is not ours)
	gzip -c "$CC_LOGS" >"$T/logs.gz"
	run -0 rx_post /v1/logs "$T/logs.gz" application/json -H "Content-Encoding: gzip"
	assert_output 415
	run -0 jq -r .message "$T/answer"
	assert_output --partial "OTEL_EXPORTER_OTLP_COMPRESSION=none"
	# unknown path, wrong method
	run -0 rx_post /v1/profiles "$CC_LOGS"
	assert_output 404
	run -0 curl -s -o "$T/answer" -D "$T/headers" -w '%{http_code}' "$RX_URL/v1/logs"
	assert_output 405
	run -0 grep -i '^Allow: POST' "$T/headers"
	# over -b: 413, with a Content-Length and chunked
	head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big.json"
	run -0 rx_post /v1/logs "$T/big.json"
	assert_output 413
	run -0 rx_post /v1/logs "$T/big.json" application/json -H "Transfer-Encoding: chunked"
	assert_output 413
	# not JSON, not an object: 400 with a google.rpc.Status
	printf '{"resourceLogs": [' >"$T/cut.json"
	run -0 rx_post /v1/logs "$T/cut.json"
	assert_output 400
	run -0 jq -c '[.code, (.message | length > 0)]' "$T/answer"
	assert_output '[3,true]'
	echo '[1, 2]' >"$T/arr.json"
	run -0 rx_post /v1/metrics "$T/arr.json"
	assert_output 400
	# an empty request is fine
	echo '{}' >"$T/empty.json"
	run -0 rx_post /v1/traces "$T/empty.json"
	assert_output 200
	# a record it cannot read: 200 with partialSuccess, the rest sealed
	jq -c '.resourceLogs[0].scopeLogs[0].logRecords |= map(if ([.attributes[] | select(.key == "request_id") | .value.stringValue][0]) == "req_mock0001fc7fe869d6bb46d2" then .attributes |= map(select(.key != "input_tokens")) else . end)' "$CC_LOGS" >"$T/part.json"
	run -0 rx_post /v1/logs "$T/part.json"
	assert_output 200
	run -0 jq -c '.partialSuccess | [.rejectedLogRecords, (.errorMessage | test("api_request event without its token counts"))]' "$T/answer"
	assert_output '["1",true]'
	# still serving: the whole capture afterwards
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jq -r .unit "$RX_OUT"
	assert_output "$(printf 'req_mock00047e969472b1351e02\nreq_mock0001fc7fe869d6bb46d2\nreq_mock00047e969472b1351e02')"
	run -0 grep -c 'refused a request' "$RX_ERR"
	assert_output 9
	run -0 jh-verify $(rx_logs)
}

@test "a malformed or huge body loses nothing and corrupts nothing: the log verifies, every good unit is in it once" {
	rx_start -F 0
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	# over the default 4 MiB
	head -c 5000000 /dev/zero | tr '\0' '[' >"$T/huge.json"
	run -0 rx_post /v1/logs "$T/huge.json"
	assert_output 413
	# deep nesting, a NUL, invalid UTF-8, a duplicate key
	head -c 3000 /dev/zero | tr '\0' '[' >"$T/deep.json"
	run -0 rx_post /v1/logs "$T/deep.json"
	assert_output 400
	printf '{"resourceLogs":[]}\0{}' >"$T/nul.json"
	run -0 rx_post /v1/logs "$T/nul.json"
	assert_output 400
	printf '{"resourceLogs":"\xff\xfe"}' >"$T/utf.json"
	run -0 rx_post /v1/logs "$T/utf.json"
	assert_output 400
	printf '{"resourceLogs":[],"resourceLogs":[]}' >"$T/dup.json"
	run -0 rx_post /v1/logs "$T/dup.json"
	assert_output 400
	# a client that goes away mid-body
	python3 - "$RX_PORT" <<-'PY'
	import socket, sys
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
	s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"resourceLogs\":[")
	s.close()
	PY
	# a counted metric point of a session, then its metrics again
	run -0 rx_post /v1/metrics "$CC_METRICS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jh-verify $(rx_logs)
	run -0 jq -r .unit "$RX_OUT"
	assert_output "$(printf 'req_mock0001fc7fe869d6bb46d2\nreq_mock00047e969472b1351e02')"
	run -0 --separate-stderr jh-meter aggregate -l "$(rx_logs)" -c 1
	run -0 jq -c '[.tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write]' <<<"$output"
	assert_output '[24688,45,3200,240]'
}

@test "300 mutated exports (bytes flipped, cut, values of the wrong type): every one answered 200 or 400, the receiver alive, the log whole" {
	rx_start -F 1
	python3 - "$RX_PORT" "$CC_LOGS" "$CC_METRICS" >"$T/mut.out" <<-'PY'
	import http.client, json, random, sys
	port = int(sys.argv[1])
	bodies = [open(f, "rb").read() for f in sys.argv[2:4]]
	rnd = random.Random(7)
	def swap(o):
	    # a value of another type somewhere in the tree
	    if isinstance(o, dict) and o:
	        k = rnd.choice(list(o))
	        if rnd.random() < 0.3:
	            o[k] = rnd.choice([None, -1, 1e300, "x" * 300, [], {}, True, "99999999999999999999"])
	        else:
	            swap(o[k])
	    elif isinstance(o, list) and o:
	        swap(rnd.choice(o))
	seen = {}
	for i in range(300):
	    which = i % 2
	    b = bytearray(bodies[which])
	    m = i % 3
	    if m == 0:
	        for _ in range(rnd.randint(1, 8)):
	            b[rnd.randrange(len(b))] = rnd.randrange(256)
	    elif m == 1:
	        b = b[:rnd.randrange(len(b))]
	    else:
	        o = json.loads(bytes(b))
	        for _ in range(rnd.randint(1, 4)):
	            swap(o)
	        b = json.dumps(o).encode()
	    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
	    c.request("POST", ["/v1/logs", "/v1/metrics"][which], bytes(b), {"Content-Type": "application/json"})
	    r = c.getresponse()
	    r.read()
	    seen[r.status] = seen.get(r.status, 0) + 1
	    c.close()
	print(json.dumps(seen, sort_keys=True))
	PY
	run -0 jq -r 'keys | join(" ")' "$T/mut.out"
	[[ $output =~ ^(200|400)( (200|400))?$ ]]
	# still serving, and what it sealed verifies
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jh-verify $(rx_logs)
}

@test "concurrent exporters: every unit sealed once, every log chained and verified" {
	rx_start -F 0
	# 4 sessions x 10 requests, each an api_request event of its own
	for s in 1 2 3 4; do
		for n in $(seq 1 10); do
			jq -c --arg s "sess-$s" --arg r "req-$s-$n" --arg n "$n" '
			    .resourceLogs[0].scopeLogs[0].logRecords |= (map(select(([.attributes[] | select(.key == "event.name") | .value.stringValue][0]) == "api_request")) | .[:1]
			    | map(.attributes |= map(if .key == "session.id" then .value.stringValue = $s
			        elif .key == "request_id" then .value.stringValue = $r
			        elif .key == "output_tokens" then .value = {"stringValue": $n}
			        else . end)))' "$CC_LOGS" >"$T/c-$s-$n.json"
		done
	done
	ls "$T"/c-*.json | xargs -P 8 -I{} sh -c 'code=$(curl -s -o /dev/null -w "%{http_code}" -H "Content-Type: application/json" --data-binary @{} "$0/v1/logs"); [ "$code" = 200 ] || { echo "{}: $code"; exit 1; }' "$RX_URL"
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 rx_logs
	assert_equal "${#lines[@]}" 4
	run -0 jh-verify $(rx_logs)
	run -0 jq -s 'length, (map(.request_id) | unique | length), (map(.tokens_out) | add)' "$RX_OUT"
	assert_equal "$(echo $output)" "40 40 220"
	for l in $(rx_logs); do
		run -0 units_of "$l"
		assert_equal "${#lines[@]}" 10
		assert_equal "$(units_of "$l" | jq -r .session | sort -u | wc -l)" 1
	done
}

@test "SIGTERM and SIGINT: the request in flight finishes and is sealed, the sums are flushed, exit 0" {
	for sig in TERM INT; do
		rm -rf "$JH_STATE/logs"
		rx_start -F 0
		run -0 rx_post /v1/metrics "$CC_METRICS"
		# a request whose body is still coming when the signal lands
		rm -f "$T/slow.answer.sent"
		python3 - "$RX_PORT" "$CC_LOGS" "$T/slow.answer" <<-'PY' &
		import socket, sys, time
		body = open(sys.argv[2], "rb").read()
		s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
		s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
		s.sendall(body[:100])
		open(sys.argv[3] + ".sent", "w").close()
		time.sleep(1.5)
		s.sendall(body[100:])
		a = b""
		while True:
		    d = s.recv(65536)
		    if not d:
		        break
		    a += d
		open(sys.argv[3], "wb").write(a)
		PY
		client=$!
		for ((i = 0; i < 100; i++)); do
			[ -e "$T/slow.answer.sent" ] && break
			sleep 0.05
		done
		sleep 0.2
		rx_stop "$sig"
		wait "$client"
		assert_equal "$RX_RC" 0
		run -0 head -n 1 "$T/slow.answer"
		assert_output --partial "200"
		# its events sealed; the metric sums of the session not again
		run -0 jq -r .unit "$RX_OUT"
		assert_output "$(printf 'req_mock0001fc7fe869d6bb46d2\nreq_mock00047e969472b1351e02')"
		run -0 jh-verify $(rx_logs)
		run -0 grep "stopped on SIG$sig" "$RX_ERR"
		# and the port is closed
		run ! curl -s -m 2 "$RX_URL/v1/logs"
	done
	# the sums of a session with no events: sealed at the stop
	rm -rf "$JH_STATE/logs"
	rx_start
	run -0 rx_post /v1/metrics "$CC_METRICS"
	rx_stop INT
	assert_equal "$RX_RC" 0
	run -0 jq -r .unit "$RX_OUT"
	assert_output "token.usage/claude-opus-5-5"
}

@test "after SIGTERM, a new request on a kept-alive connection is a 503 to retry, not lost" {
	rx_start -F 0
	python3 - "$RX_PORT" "$CC_LOGS" "$RX_PID" >"$T/ka.out" <<-'PY'
	import http.client, os, signal, sys, time
	port, body, pid = int(sys.argv[1]), open(sys.argv[2], "rb").read(), int(sys.argv[3])
	c = http.client.HTTPConnection("127.0.0.1", port)
	c.request("POST", "/v1/logs", body, {"Content-Type": "application/json"})
	r = c.getresponse(); r.read(); print(r.status)
	# the connection stays open: a second request in flight keeps the
	# receiver waiting, so start one and signal while it is being sent
	c.putrequest("POST", "/v1/logs")
	c.putheader("Content-Type", "application/json")
	c.putheader("Content-Length", str(len(body)))
	c.endheaders()
	time.sleep(0.3)
	os.kill(pid, signal.SIGTERM)
	time.sleep(0.5)
	c.send(body)
	r = c.getresponse(); r.read(); print(r.status)
	try:
	    c.request("POST", "/v1/logs", body, {"Content-Type": "application/json"})
	    r = c.getresponse(); print(r.status, r.read().decode())
	except Exception as e:
	    print("closed")
	PY
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 sed -n 1,2p "$T/ka.out"
	assert_output "$(printf '200\n200')"
	run -0 sed -n 3p "$T/ka.out"
	[[ $output == "503 "*"stopping"* || $output == closed ]]
	# the two requests answered 200 were sealed; the third was not
	run -0 jq -s length "$RX_OUT"
	assert_output 4
	run -0 jh-verify $(rx_logs)
}

@test "a receiver killed mid-stream (SIGKILL) leaves logs that verify; the next one appends to them" {
	rx_start -F 0
	for n in $(seq 1 30); do
		jq -c --arg r "req-k-$n" '.resourceLogs[0].scopeLogs[0].logRecords |= map(.attributes |= map(if .key == "request_id" then .value.stringValue = ($r + "-" + (.value.stringValue | .[-4:])) else . end))' "$CC_LOGS" >"$T/k-$n.json"
	done
	ls "$T"/k-*.json | xargs -P 4 -I{} curl -s -o /dev/null -m 10 -H "Content-Type: application/json" --data-binary @{} "$RX_URL/v1/logs" &
	posts=$!
	sleep 0.3
	kill -9 "$RX_PID"
	wait "$RX_PID" || true
	RX_PID=
	wait "$posts" || true
	# whatever was sealed before the kill verifies (a torn tail is never
	# acknowledged, and the next append cuts it)
	run -0 jh-verify $(rx_logs)
	before=$(units_of $(rx_logs) | wc -l)
	rx_start -F 0
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jh-verify $(rx_logs)
	assert_equal "$(units_of $(rx_logs) | wc -l)" "$((before + 2))"
}

@test "a restart: delta series go on exactly; a cumulative series is counted again from its start, as jh-meter(1) warns" {
	head -n 1 "$FX/otel-metrics.jsonl" >"$T/d1.json"
	tail -n +2 "$FX/otel-metrics.jsonl" >"$T/d2.json"
	rx_start -F 0
	run -0 rx_post /v1/metrics "$T/d1.json"
	rx_stop
	rx_start -F 0
	run -0 rx_post /v1/metrics "$T/d2.json"
	rx_stop
	run -0 totals <(units_of $(rx_logs))
	assert_output "$(file_units "$FX/otel-metrics.jsonl" | totals)"
	# cumulative: the second receiver sees the whole total again
	rm -rf "$JH_STATE/logs"
	head -n 1 "$FX/otel-metrics-cumulative.jsonl" >"$T/c1.json"
	rx_start -F 0
	run -0 rx_post /v1/metrics "$T/c1.json"
	rx_stop
	tail -n +2 "$FX/otel-metrics-cumulative.jsonl" >"$T/c2.json"
	rx_start -F 0
	run -0 rx_post /v1/metrics "$T/c2.json"
	assert_output 200
	rx_stop
	# 283 output tokens at the first point, 324 + 7 at the second: the
	# file mode's 331, and the 283 again
	run -0 jq -s '[.[].tokens_out] | add' <(units_of $(rx_logs))
	assert_output "$(( $(file_units "$FX/otel-metrics-cumulative.jsonl" | jq -s '[.[].tokens_out] | add') + 283 ))"
}

@test "a unit that cannot be sealed is a rejected record, said with why; the next request seals again" {
	rx_start -F 0
	# a state directory others may write is refused by every stage
	chmod 777 "$JH_STATE"
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	run -0 jq -c '.partialSuccess | [.rejectedLogRecords, (.errorMessage | test("not sealed"))]' "$T/answer"
	assert_output '["2",true]'
	chmod 700 "$JH_STATE"
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	assert_equal "$(cat "$T/answer")" "{}"
	rx_stop
	run -0 grep -c "not sealed" "$RX_ERR"
	assert_output 2
	run -0 jq -s length "$RX_OUT"
	assert_output 2
	run -0 jh-verify $(rx_logs)
}

@test "an exporter that makes up session ids makes at most 60 new logs a minute; the rest are rejected records" {
	rx_start -F 0
	jq -c '(.resourceLogs[0].scopeLogs[0].logRecords | map(select(([.attributes[] | select(.key == "event.name") | .value.stringValue][0]) == "api_request")) | .[0]) as $rec
	    | .resourceLogs[0].scopeLogs[0].logRecords = [range(70) as $i | $rec
	        | .attributes |= map(if .key == "session.id" then .value.stringValue = "made-up-\($i)"
	            elif .key == "request_id" then .value.stringValue = "req-\($i)" else . end)]' "$CC_LOGS" >"$T/flood.json"
	run -0 rx_post /v1/logs "$T/flood.json"
	assert_output 200
	run -0 jq -c '.partialSuccess | [.rejectedLogRecords, (.errorMessage | test("new sessions a minute"))]' "$T/answer"
	assert_output '["10",true]'
	run -0 rx_logs
	assert_equal "${#lines[@]}" 60
	# a session already sealed into is not new
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	rx_stop
	run -0 jh-verify $(rx_logs)
}

@test "loopback only unless -A; no key or a bad address is exit 2 with why" {
	run -2 jh-meter otel -l 0.0.0.0:0
	assert_output --partial "not a loopback address"
	assert_output --partial "-A"
	run -2 jh-meter otel -l 192.0.2.1:0
	run -2 jh-meter otel -l localhost:4318
	assert_output --partial "not a numeric address"
	run -2 jh-meter otel -l 127.0.0.1:99999
	run -2 jh-meter otel -l 127.0.0.1:0 "$CC_LOGS"
	mv "$JH_HOME/steward.key" "$T/key"
	run -2 jh-meter otel -l 127.0.0.1:0
	assert_output --partial "steward.key"
	# an issuer key does not seal units
	cp "$JH_HOME/issuer.key" "$JH_HOME/steward.key"
	run -2 jh-meter otel -l 127.0.0.1:0
	assert_output --partial "steward key"
	mv "$T/key" "$JH_HOME/steward.key"
	# a port alone is loopback's
	jh-meter otel -l 0 2>"$T/p.err" &
	pid=$!
	for ((i = 0; i < 100; i++)); do grep -q 'listening on' "$T/p.err" && break; sleep 0.05; done
	kill "$pid"
	wait "$pid"
	run -0 grep -c 'listening on 127.0.0.1:' "$T/p.err"
	# -A: any address (here, still loopback's port)
	rx_start -A
	rx_stop
	assert_equal "$RX_RC" 0
	run -2 jh-meter otel -l 127.0.0.1:0 -x
}

# --- the real hosts ----------------------------------------------------

# bats test_tags=host
@test "real Claude Code 2.1.328, telemetry to the receiver: the sealed totals are the mock's usage, call by call" {
	claude_install
	cp "$CAP/mock-script.json" "$T/script.json"
	mock_start "$T/script.json"
	rx_start -F 0
	mkdir -p "$T/proj" && cd "$T/proj"
	CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp \
	    OTEL_METRICS_EXPORTER=otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
	    OTEL_EXPORTER_OTLP_ENDPOINT="$RX_URL" \
	    claude_run "run it" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; cat "$RX_ERR" >&2; false; }
	rx_stop
	assert_equal "$RX_RC" 0
	SID=$(jq -r .session_id "$CLAUDE_OUT")
	# the mock's answers, by request id
	run -0 jq -sc 'map(select(.method == "POST" and (.path | startswith("/v1/messages")) and .response.status == 200 and .response.message_id != null) | .response | [.request_id, .usage.input_tokens, .usage.output_tokens, .usage.cache_read_input_tokens, .usage.cache_creation_input_tokens]) | sort' "$MOCK_LOG"
	want=$output
	[ "$(jq length <<<"$want")" -eq 2 ]
	run -0 rx_logs
	assert_equal "${#lines[@]}" 1
	units_of "$(rx_logs)" >"$T/sealed.jsonl"
	run -0 jq -sc 'map([.request_id, .tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write]) | sort' "$T/sealed.jsonl"
	assert_equal "$output" "$want"
	run -0 jq -r .session "$T/sealed.jsonl"
	assert_output "$(printf '%s\n%s' "$SID" "$SID")"
	run -0 jh-verify $(rx_logs)
}

# bats test_tags=host
@test "real Claude Code 2.1.328 exporting protobuf or gzip: refused with the setting to change, nothing sealed" {
	claude_install
	cp "$CAP/mock-script.json" "$T/script.json"
	mock_start "$T/script.json"
	rx_start -F 0
	mkdir -p "$T/proj" && cd "$T/proj"
	CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp \
	    OTEL_METRICS_EXPORTER=otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
	    OTEL_EXPORTER_OTLP_ENDPOINT="$RX_URL" \
	    claude_run "run it" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp \
	    OTEL_METRICS_EXPORTER=otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
	    OTEL_EXPORTER_OTLP_COMPRESSION=gzip \
	    OTEL_EXPORTER_OTLP_ENDPOINT="$RX_URL" \
	    claude_run "run it" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 grep -c "refused a request (415).*OTEL_EXPORTER_OTLP_PROTOCOL=http/json" "$RX_ERR"
	[ "$output" -ge 2 ]
	run -0 grep -c "refused a request (415).*OTEL_EXPORTER_OTLP_COMPRESSION=none" "$RX_ERR"
	[ "$output" -ge 2 ]
	[ ! -s "$RX_OUT" ]
	run -0 rx_logs
	assert_output ""
}

# bats test_tags=host
@test "real Claude Code 2.1.328 with the receiver down: the session runs, unmetered (observed, never a gate), and does not hang" {
	claude_install
	cp "$CAP/mock-script.json" "$T/script.json"
	mock_start "$T/script.json"
	port=$(free_port)
	mkdir -p "$T/proj" && cd "$T/proj"
	SECONDS=0
	CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp \
	    OTEL_METRICS_EXPORTER=otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
	    OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$port" \
	    claude_run "run it" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; false; }
	[ "$SECONDS" -lt 60 ]
	run -0 rx_logs
	assert_output ""
}

# bats test_tags=host
@test "real Gemini CLI 0.61.0, telemetry to the receiver: its api_response events sealed, equal to the mock's usageMetadata" {
	gemini_install
	echo '[{"text": "hello there", "usage": {"cachedContentTokenCount": 10, "candidatesTokenCount": 7, "thoughtsTokenCount": 3}}]' >"$T/gscript.json"
	gemini_mock_start "$T/gscript.json"
	rx_start -F 0
	gemini_home ".telemetry = {enabled: true, target: \"local\", otlpEndpoint: \"$RX_URL\", otlpProtocol: \"http\", logPrompts: false}"
	mkdir -p "$T/proj" && cd "$T/proj"
	gemini_run "say hi"
	[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; cat "$RX_ERR" >&2; false; }
	rx_stop
	assert_equal "$RX_RC" 0
	# it sent all three signals, as JSON, and none was refused
	run ! grep "refused" "$RX_ERR"
	# every call the mock answered, as the proxy reads usageMetadata
	run -0 jq -sc 'map(select(.method == "POST" and .response.status == 200 and .response.usage != null) | .response.usage | [.promptTokenCount - (.cachedContentTokenCount // 0) + (.toolUsePromptTokenCount // 0), (.candidatesTokenCount // 0) + (.thoughtsTokenCount // 0), (.cachedContentTokenCount // 0)]) | sort' "$GEMINI_MOCK_LOG"
	want=$output
	[ "$(jq length <<<"$want")" -ge 1 ]
	run -0 rx_logs
	assert_equal "${#lines[@]}" 1
	units_of "$(rx_logs)" >"$T/sealed.jsonl"
	run -0 jq -sc 'map([.tokens_in, .tokens_out, .tokens_cache_read]) | sort' "$T/sealed.jsonl"
	assert_equal "$output" "$want"
	run -0 jq -r '.session' "$T/sealed.jsonl"
	assert_output "$(gemini_json .session_id)"
	run -0 jh-verify $(rx_logs)
}

# --- jh-install -O ------------------------------------------------------

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# svc_start UNITFILE: its ExecStart run as systemd would, with its
# Environment (no systemd --user in a test); RX_* as rx_start sets them.
svc_start() {
	local env cmd i
	env=$(sed -n 's/^Environment=//p' "$1")
	cmd=$(sed -n 's/^ExecStart=//p' "$1")
	RX_OUT="$T/svc.out" RX_ERR="$T/svc.err"
	: >"$RX_ERR"
	env $env $cmd >"$RX_OUT" 2>"$RX_ERR" 3>&- &
	RX_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'listening on' "$RX_ERR" && break
		sleep 0.05
	done
	grep -q 'listening on' "$RX_ERR" || { cat "$RX_ERR" >&2; return 1; }
}

@test "jh-install -O binds the receiver and the hosts' telemetry, its unit serves, -u puts the user's settings back" {
	rm -f "$JH_HOME"/*
	port=$(free_port)
	mkdir -p "$HOME/.claude" "$HOME/.gemini"
	# the user's own settings, some of them the very ones -O sets
	echo '{"env": {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "MY_VAR": "1"}, "model": "opus"}' >"$HOME/.claude/settings.json"
	echo '{"telemetry": {"enabled": false, "logPrompts": true}, "ui": {"theme": "dark"}}' >"$HOME/.gemini/settings.json"
	cp "$HOME/.claude/settings.json" "$T/cc.before"
	cp "$HOME/.gemini/settings.json" "$T/gm.before"
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H claude-code -H gemini-cli -O "127.0.0.1:$port"
	assert_output --partial "bound the receiver: Claude Code exports its telemetry (OTLP/HTTP JSON) to http://127.0.0.1:$port"
	assert_output --partial "bound the receiver: Gemini CLI exports its telemetry (OTLP/HTTP JSON) to http://127.0.0.1:$port"
	unit="$HOME/.config/systemd/user/joulehook-otlp.service"
	assert_output --partial "wrote $unit"
	run -0 jq -cS '.env' "$HOME/.claude/settings.json"
	assert_output "$(jq -cnS --arg u "http://127.0.0.1:$port" '{CLAUDE_CODE_ENABLE_TELEMETRY: "1", MY_VAR: "1", OTEL_EXPORTER_OTLP_ENDPOINT: $u, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_LOGS_EXPORTER: "otlp", OTEL_METRICS_EXPORTER: "otlp"}')"
	run -0 jq -cS '.telemetry' "$HOME/.gemini/settings.json"
	assert_output "$(jq -cnS --arg u "http://127.0.0.1:$port" '{enabled: true, logPrompts: true, otlpEndpoint: $u, otlpProtocol: "http", target: "local"}')"
	run -0 grep '^ExecStart=' "$unit"
	assert_output "ExecStart=$JH_HOME/bin/jh-meter otel -l 127.0.0.1:$port"
	# the transcript meter is off: the telemetry meters the calls, once
	run -0 grep '^meter=' "$JH_HOME/hook.conf"
	assert_output "meter=none"
	# idempotent
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H claude-code -H gemini-cli -O "127.0.0.1:$port"
	refute_output --partial "wrote $unit"
	# the unit's ExecStart serves
	svc_start "$unit"
	RX_URL="http://127.0.0.1:$port"
	run -0 rx_post /v1/logs "$CC_LOGS"
	assert_output 200
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jq -r .unit "$RX_OUT"
	assert_output "$(printf 'req_mock0001fc7fe869d6bb46d2\nreq_mock00047e969472b1351e02')"
	run -0 jh-verify $(rx_logs)
	# -u: the service gone, the user's settings as they were
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	assert_output --partial "unbound the receiver"
	assert_output --partial "removed the joulehook-otlp.service service"
	assert_file_not_exist "$unit"
	assert_file_not_exist "$JH_HOME/otlp.conf"
	run -0 jq -cS '{env, model}' "$HOME/.claude/settings.json"
	assert_output "$(jq -cS '{env, model}' "$T/cc.before")"
	run -0 jq -cS '{telemetry, ui}' "$HOME/.gemini/settings.json"
	assert_output "$(jq -cS '{telemetry, ui}' "$T/gm.before")"
}

@test "jh-install -O: the default address, and what it refuses" {
	rm -f "$JH_HOME"/*
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -O
	assert_output --partial "to http://127.0.0.1:4318"
	run -0 jq -r '.env.OTEL_EXPORTER_OTLP_ENDPOINT' "$HOME/.claude/settings.json"
	assert_output "http://127.0.0.1:4318"
	# -u with no env of the user's: no env left
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	run -0 jq -c '.env' "$HOME/.claude/settings.json"
	assert_output null
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -O -M http://127.0.0.1:1
	assert_output --partial "count every call twice"
	run -2 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -O 0.0.0.0:4318
	assert_output --partial "loopback"
}

# bats test_tags=host
@test "real Claude Code 2.1.328 under jh-install -O: its settings alone send the telemetry to the installed receiver" {
	claude_install
	rm -f "$JH_HOME"/*
	port=$(free_port)
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -O "127.0.0.1:$port"
	svc_start "$HOME/.config/systemd/user/joulehook-otlp.service"
	cp "$CAP/mock-script.json" "$T/script.json"
	mock_start "$T/script.json"
	mkdir -p "$T/work" && cd "$T/work"
	CLAUDE_HOME=$HOME claude_run "run it" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; cat "$RX_ERR" >&2; false; }
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jq -sc 'map(select(.method == "POST" and (.path | startswith("/v1/messages")) and .response.status == 200 and .response.message_id != null) | .response | [.request_id, .usage.input_tokens, .usage.output_tokens, .usage.cache_read_input_tokens, .usage.cache_creation_input_tokens]) | sort' "$MOCK_LOG"
	want=$output
	sid=$(jq -r .session_id "$CLAUDE_OUT")
	# the receiver's units are in the session's log, beside the gate's
	run -0 jq -sc 'map([.request_id, .tokens_in, .tokens_out, .tokens_cache_read, .tokens_cache_write]) | sort' "$RX_OUT"
	assert_equal "$output" "$want"
	run -0 jq -r .session "$RX_OUT"
	assert_output "$(printf '%s\n%s' "$sid" "$sid")"
	run -0 jh-verify $(rx_logs)
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
}

# bats test_tags=host
@test "real Gemini CLI 0.61.0 under jh-install -O -H gemini-cli: the telemetry block it wrote sends the calls to the installed receiver" {
	gemini_install
	rm -f "$JH_HOME"/*
	port=$(free_port)
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -W -b "$JH_BIN" -H gemini-cli -O "127.0.0.1:$port"
	svc_start "$HOME/.config/systemd/user/joulehook-otlp.service"
	echo '[{"text": "hello there", "usage": {"cachedContentTokenCount": 10, "candidatesTokenCount": 7}}]' >"$T/gscript.json"
	gemini_mock_start "$T/gscript.json"
	# what a headless run needs besides, the telemetry block left as written
	f="$HOME/.gemini/settings.json"
	jq '. * {security: {auth: {selectedType: "gemini-api-key"}}, general: {disableAutoUpdate: true, disableUpdateNag: true}}' "$f" >"$f.new"
	mv "$f.new" "$f"
	run -0 jq -c '.telemetry' "$f"
	assert_output "{\"enabled\":true,\"target\":\"local\",\"otlpEndpoint\":\"http://127.0.0.1:$port\",\"otlpProtocol\":\"http\"}"
	mkdir -p "$T/work" && cd "$T/work"
	GEMINI_HOME=$HOME gemini_run "say hi"
	[ "$GEMINI_RC" -eq 0 ] || { gemini_dump; cat "$RX_ERR" >&2; false; }
	rx_stop
	assert_equal "$RX_RC" 0
	run -0 jq -sc 'map(select(.method == "POST" and .response.status == 200 and .response.usage != null) | .response.usage | [.promptTokenCount - (.cachedContentTokenCount // 0) + (.toolUsePromptTokenCount // 0), (.candidatesTokenCount // 0) + (.thoughtsTokenCount // 0), (.cachedContentTokenCount // 0)]) | sort' "$GEMINI_MOCK_LOG"
	want=$output
	run -0 jq -sc 'map([.tokens_in, .tokens_out, .tokens_cache_read]) | sort' "$RX_OUT"
	assert_equal "$output" "$want"
	run -0 jh-verify $(rx_logs)
	run -0 sh "$PROJECT_ROOT/scripts/jh-install" -u
	run -0 jq -c '.telemetry' "$f"
	assert_output null
}
