#!/usr/bin/env bats
# jh-meter transcript against ccusage 20.0.24 (issue 8), on transcripts
# written by the REAL Claude Code 2.1.328 talking to
# tests/mock/anthropic-mock.py (tests/helpers/claude.bash), and against
# what the mock itself sent (its request log is the ground truth).
#
# What Claude Code 2.1.328 writes (observed here, -p, streaming):
#  - one "type":"assistant" line per content block of a reply (text,
#    tool_use, ...), each with the same message.id, the block's index as
#    "apiBlockIndex", and "requestId" = the response's `request-id` header
#    exactly as the mock sent it (test 1);
#  - every line of a message carries the message's FINAL usage: the lines
#    are timestamped when their block ends but reach the file only after
#    message_delta (seen with 0.7 s between SSE events), so 2.1.328 writes
#    no partial output_tokens; a stream cut before message_delta leaves no
#    assistant line at all (Claude Code sends the request again);
#  - every line has message.stop_reason and sessionId; `claude -p --resume
#    SID` appends to the same SID.jsonl (test 4);
#  - message.usage keeps input_tokens, cache_read_input_tokens,
#    cache_creation_input_tokens, output_tokens, and adds a
#    "cache_creation": {ephemeral_5m_input_tokens, ephemeral_1h_input_tokens}
#    breakdown -- zeros when the response had none;
#  - other line types (api-request, api-request-blob, cost-state, ...)
#    carry no message.usage.
#
# What ccusage 20.0.24 does with them (`ccusage claude session --json
# --offline`, CLAUDE_CONFIG_DIR=<dir holding projects/>), observed by
# editing copies of a real transcript:
#  - dedup key message.id + ":" + requestId (message.id alone when
#    requestId is absent); lines with different requestIds are all counted;
#  - of the lines with one key it keeps the line with the largest
#    input + output + cache_read + cache_creation, the first one on a tie --
#    not "the first line" as older versions did;
#    within one message input and cache fields are the same on every line,
#    so this is "the largest output_tokens", jh-meter's rule (test 3);
#  - cache creation is the sum of usage.cache_creation.ephemeral_5m +
#    ephemeral_1h when that object is present, and
#    cache_creation_input_tokens only when it is absent.  Claude Code adds
#    a zero breakdown when the response had none, so a mock reply with
#    cache_creation_input_tokens but no breakdown reads as 0 cache writes
#    to ccusage.  The real API sends the breakdown (usage.cache_creation)
#    and it adds up to cache_creation_input_tokens; the mock's script below
#    sends it so (the mock passes script usage through as given).
#
# jh-meter transcript keys on message.id alone, keeps the line with the
# largest output_tokens, and counts cache_creation_input_tokens.  It would
# part from ccusage only on lines of one message.id with different
# requestIds (ccusage counts each) or a breakdown that does not add up;
# Claude Code 2.1.328 against a faithful server writes neither.  Totals
# therefore agree exactly -- input, output, cache read and cache write --
# with each other and with what the mock sent (tests 2-4).

load test_helper/common
load helpers/claude
load helpers/ccusage

setup() {
	_common_setup
	mkdir -p "$T/proj"
	cd "$T/proj"
}

teardown() {
	mock_stop
}

# The session: four model calls, turns 0-3.  Replies of 2, 3, 1 and 1
# content blocks (text + tool_use, text + two parallel tool_use, tool_use
# alone, text), cache writes (5-minute and 1-hour) and cache reads;
# output_tokens set by the script on two turns, computed by the mock on
# the others.  Turns 4-5 answer the resumed session of test 4 (the mock
# picks a turn by the number of assistant messages in the request, and a
# resumed session sends the old ones).
SCRIPT='[
 {"text": "Let me look at the tree first.",
  "tool_use": [{"name": "Bash", "input": {"command": "echo one", "description": "one"}}],
  "usage": {"cache_creation_input_tokens": 1200, "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 1200, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 37}},
 {"text": "Two more, in parallel.",
  "tool_use": [{"name": "Bash", "input": {"command": "echo two", "description": "two"}},
               {"name": "Bash", "input": {"command": "echo three", "description": "three"}}],
  "usage": {"cache_creation_input_tokens": 300, "cache_read_input_tokens": 1200,
            "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200}}},
 {"tool_use": [{"name": "Bash", "input": {"command": "echo four", "description": "four"}}],
  "usage": {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 1500,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}}},
 {"text": "All done.",
  "usage": {"cache_creation_input_tokens": 50, "cache_read_input_tokens": 1500,
            "cache_creation": {"ephemeral_5m_input_tokens": 50, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 9}},
 {"text": "Resumed: one more.",
  "tool_use": [{"name": "Bash", "input": {"command": "echo five", "description": "five"}}],
  "usage": {"cache_creation_input_tokens": 700, "cache_read_input_tokens": 1550,
            "cache_creation": {"ephemeral_5m_input_tokens": 700, "ephemeral_1h_input_tokens": 0}}},
 {"text": "Done again.",
  "usage": {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 2250,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}}}
]'

# session: Claude Code installed (or a loud skip), the mock on SCRIPT,
# `claude -p` in $T/proj with Bash allowed; sets TRANSCRIPTS (the JSONL
# files under $CLAUDE_HOME/.claude/projects, one per line) and TR (the
# session's own transcript).
session() {
	claude_install
	jq -c . <<<"$SCRIPT" >"$T/script.json"
	mock_start "$T/script.json"
	claude_run "run the four echoes" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; return 1; }
	SID=$(jq -r .session_id "$CLAUDE_OUT")
	TRANSCRIPTS=$(find "$CLAUDE_HOME/.claude/projects" -name '*.jsonl' | sort)
	TR=$(find "$CLAUDE_HOME/.claude/projects" -name "$SID.jsonl")
	[ -n "$TR" ] || { echo "no transcript $SID.jsonl" >&2; return 1; }
}

# The successful model calls as the mock answered them: one line
# {message_id, request_id, turn, usage} each, in order.
mock_calls() {
	jq -c 'select(.method == "POST" and (.path | startswith("/v1/messages"))
	    and .response.status == 200 and .response.message_id != null)
	    | .response | {message_id, request_id, turn, usage}' "$MOCK_LOG"
}

# mock_totals: what the mock sent, summed, as
# [input, output, cache_read, cache_creation].
mock_totals() {
	mock_calls | jq -sc 'map(.usage) | [
	    (map(.input_tokens) | add), (map(.output_tokens) | add),
	    (map(.cache_read_input_tokens) | add),
	    (map(.cache_creation_input_tokens) | add)]'
}

# assistant_lines [FILE...]: the transcript lines that carry usage.
assistant_lines() {
	jq -c 'select(.type == "assistant" and (.message.usage | type) == "object")' "$@"
}

# meter FILE...: jh-meter transcript's units into $T/units.jsonl (stdout
# only; stderr may hold valgrind's or a sanitizer's report).
meter() {
	[ -x "$JH_BIN/jh-meter" ] || {
		echo "jh-meter is not built in $JH_BIN (make BUILD=test)" >&2
		return 1
	}
	local rc=0
	jh-meter transcript "$@" >"$T/units.jsonl" 2>"$T/meter.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "jh-meter transcript exited $rc:" >&2
		cat "$T/meter.err" >&2
		return 1
	fi
}

# meter_totals: the units' sums as [input, output, cache_read, cache_write].
meter_totals() {
	jq -sc '[(map(.tokens_in) | add), (map(.tokens_out) | add),
	    (map(.tokens_cache_read) | add), (map(.tokens_cache_write) | add)]' \
	    "$T/units.jsonl"
}

# ----------------------------------------------------------------------

# Claude Code's side, which the comparison stands on: a line per content
# block, requestId = the mock's request-id header, the same final usage on
# every line of a message, equal to what the mock sent.
@test "1. Claude Code writes a line per content block, with the mock's request-id as requestId" {
	session
	# one session file, nothing else that ccusage would read
	assert_equal "$TRANSCRIPTS" "$TR"
	# the mock answered four calls; each reached the transcript with its
	# request-id, once per content block (2, 3, 1, 1), in order
	run -0 mock_calls
	assert_equal "${#lines[@]}" 4
	mock_calls >"$T/calls.jsonl"
	run -0 jq -sc --slurpfile calls "$T/calls.jsonl" '
	    ($calls | map({(.message_id): .request_id}) | add) as $rid
	    | group_by(.message.id) | sort_by(.[0].timestamp)
	    | map([length, (map(.requestId == $rid[.message.id]) | all),
	           (map(.apiBlockIndex) == [range(length)])])' \
	    < <(assistant_lines "$TR")
	assert_output '[[2,true,true],[3,true,true],[1,true,true],[1,true,true]]'
	# message ids in the transcript = the mock's, in order
	run -0 diff <(mock_calls | jq -r .message_id) \
	    <(assistant_lines "$TR" | jq -r .message.id | uniq)
	# every line of a message carries the usage the mock sent for it
	# (2.1.328 writes no partial output_tokens), breakdown included
	run -0 jq -sc --slurpfile calls "$T/calls.jsonl" '
	    ($calls | map({(.message_id): .usage}) | add) as $u
	    | map(.message.usage as $l | $u[.message.id] as $m
	          | [$l.input_tokens, $l.output_tokens, $l.cache_read_input_tokens,
	             $l.cache_creation_input_tokens, $l.cache_creation]
	            == [$m.input_tokens, $m.output_tokens, $m.cache_read_input_tokens,
	                $m.cache_creation_input_tokens, $m.cache_creation])
	    | [length, all]' < <(assistant_lines "$TR")
	assert_output '[7,true]'
}

# The comparison.  ccusage and jh-meter read the same files; both must
# match the mock's totals, so neither can agree with the other by sharing
# a mistake.  A reader that summed every line would count the multi-block
# replies two and three times: the naive sums are asserted larger.
# bats test_tags=host
@test "2. jh-meter transcript totals equal ccusage's and the mock's on a real session" {
	ccusage_install
	session
	local want
	want=$(mock_totals)
	# cache reads and writes are in play
	run -0 jq -e '.[2] > 0 and .[3] > 0' <<<"$want"
	run -0 ccusage_totals "$CLAUDE_HOME/.claude"
	assert_output "$want"
	# TRANSCRIPTS: the same file set ccusage read
	# shellcheck disable=SC2086
	meter $TRANSCRIPTS
	run -0 meter_totals
	assert_output "$want"
	# one unit per distinct message id in the transcript, named by it,
	# with the requestId and model Claude Code recorded for it
	run -0 jq -sc 'map(.kind) | unique' "$T/units.jsonl"
	assert_output '["efficiency/1"]'
	# both attribute the calls to Claude Code's session id
	run -0 jq -sc 'map(.session) | unique' "$T/units.jsonl"
	assert_output "[\"$SID\"]"
	run -0 ccusage_json "$CLAUDE_HOME/.claude" session
	run -0 jq -c '[.sessions[].sessionId]' <<<"$output"
	assert_output "[\"$SID\"]"
	run -0 diff <(jq -r .unit "$T/units.jsonl" | sort) \
	    <(assistant_lines "$TR" | jq -r .message.id | sort -u)
	run -0 jq -r '[.unit, .request_id, .model] | @tsv' "$T/units.jsonl"
	assert_equal "${#lines[@]}" "$(assistant_lines "$TR" | jq -r .message.id | sort -u | wc -l)"
	run -0 diff <(jq -r '[.unit, .request_id, .model] | @tsv' "$T/units.jsonl" | sort) \
	    <(assistant_lines "$TR" | jq -r '[.message.id, .requestId, .message.model] | @tsv' | sort -u)
	# per call, not only in total: each unit is its mock call's usage
	mock_calls >"$T/calls.jsonl"
	run -0 jq -sc --slurpfile calls "$T/calls.jsonl" '
	    ($calls | map({(.message_id): .usage}) | add) as $u
	    | map($u[.unit] as $m | [.tokens_in, .tokens_out, .tokens_cache_read,
	          .tokens_cache_write] == [$m.input_tokens, $m.output_tokens,
	          $m.cache_read_input_tokens, $m.cache_creation_input_tokens]) | all' \
	    "$T/units.jsonl"
	assert_output true
	# the files' naive sums are larger: the dedup is doing work
	run -0 jq -sc --argjson want "$want" 'map(.message.usage) | [
	    (map(.input_tokens) | add) > $want[0], (map(.output_tokens) | add) > $want[1]]' \
	    < <(assistant_lines "$TR")
	assert_output '[true,true]'
}

# Older Claude Code versions wrote each block's line as its block ended,
# with the usage known then: message_start's output_tokens (the API, and
# the mock, send 1 there).  2.1.328 no longer does (test 1), so that shape
# is made from this session's own transcript: every line of a message but
# one gets output_tokens 1, input and cache fields untouched.
# With the final line last (as streaming wrote it) and first (order must
# not matter), ccusage -- largest input+output+cache per key, which here
# is the largest output_tokens -- and jh-meter -- largest output_tokens
# per message id -- both still count each message once, in full.
# bats test_tags=host
@test "3. lines with partial output_tokens: ccusage and jh-meter both keep the largest" {
	ccusage_install
	session
	local want order
	want=$(mock_totals)
	for order in final-last final-first; do
		rm -rf "$T/cfg.$order"
		mkdir -p "$T/cfg.$order/projects/p"
		# $n[id]: lines of the message; $k: this line's position in it.
		# The full line stays last (final-last) or first (final-first).
		jq -c --arg order "$order" -s '
		    (map(select(.type == "assistant" and .message.usage != null)
		         | .message.id) | group_by(.) | map({(.[0]): length}) | add) as $n
		    | reduce .[] as $l ({seen: {}, out: []};
		        if $l.type == "assistant" and $l.message.usage != null then
		          ($l.message.id) as $id | (.seen[$id] // 0) as $k
		          | .seen[$id] = $k + 1
		          | .out += [if ($order == "final-last" and $k < $n[$id] - 1)
		                        or ($order == "final-first" and $k > 0)
		                     then $l | .message.usage.output_tokens = 1 else $l end]
		        else .out += [$l] end)
		    | .out[]' "$TR" >"$T/cfg.$order/projects/p/$SID.jsonl"
		# the edit took: partial lines, and the final line where intended
		run -0 jq -sc 'map(select(.type == "assistant"))
		    | group_by(.message.id) | sort_by(.[0].timestamp)
		    | map(map(.message.usage.output_tokens > 1))' \
		    "$T/cfg.$order/projects/p/$SID.jsonl"
		if [ "$order" = final-last ]; then
			assert_output '[[false,true],[false,false,true],[true],[true]]'
		else
			assert_output '[[true,false],[true,false,false],[true],[true]]'
		fi
		run -0 ccusage_totals "$T/cfg.$order"
		assert_output "$want"
		meter "$T/cfg.$order/projects/p/$SID.jsonl"
		run -0 meter_totals
		assert_output "$want"
		run -0 jq -s length "$T/units.jsonl"
		assert_output 4
	done
}

# The Stop hook's way of reading (-O: from the offset the last read left):
# the session, read; the same session resumed (`claude -p --resume SID`
# appends to the same file, same session id, observed), read again; a
# third read with nothing new.  The reads hand out each call once, and
# together they are ccusage's totals over the whole file, and the mock's.
# bats test_tags=host
@test "4. incremental reads (-O) across a resumed session add up to ccusage's totals" {
	ccusage_install
	session
	local off="$T/meter.offsets" first
	meter -O "$off" "$TR"
	cp "$T/units.jsonl" "$T/units.1.jsonl"
	run -0 jq -s length "$T/units.1.jsonl"
	assert_output 4
	first=$(wc -l <"$TR")
	claude_run "two more" --resume "$SID" --allowedTools "Bash"
	[ "$CLAUDE_RC" -eq 0 ] || { claude_dump; return 1; }
	assert_equal "$(jq -r .session_id "$CLAUDE_OUT")" "$SID"
	# appended to the one file
	assert_equal "$(find "$CLAUDE_HOME/.claude/projects" -name '*.jsonl')" "$TR"
	run -0 test "$(wc -l <"$TR")" -gt "$first"
	run -0 mock_calls
	assert_equal "${#lines[@]}" 6
	meter -O "$off" "$TR"
	cp "$T/units.jsonl" "$T/units.2.jsonl"
	meter -O "$off" "$TR"
	run -0 cat "$T/units.jsonl"
	assert_output ""
	# the second read: only the resumed session's two calls
	run -0 diff <(jq -r .unit "$T/units.2.jsonl") <(mock_calls | tail -n 2 | jq -r .message_id)
	cat "$T/units.1.jsonl" "$T/units.2.jsonl" >"$T/units.jsonl"
	run -0 meter_totals
	assert_output "$(mock_totals)"
	run -0 ccusage_totals "$CLAUDE_HOME/.claude"
	assert_output "$(mock_totals)"
	# one read of the whole file agrees as well
	meter "$TR"
	run -0 meter_totals
	assert_output "$(mock_totals)"
}
