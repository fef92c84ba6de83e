#!/usr/bin/env bats
# jh-chain: the per-session hash-chained log, and jh-verify on whole logs.

load test_helper/common

setup() {
	_common_setup
	jh_keys
	SEQ="/usr/bin/python3 $PROJECT_ROOT/tests/helpers/cborseq.py"
}

# chain N receipts of session $2 (default s1) into the state's log
chain_n() {
	local n=$1 sess=${2:-s1} i
	for ((i = 0; i < n; i++)); do
		decision_json | jq -c --arg s "$sess" --arg i "toolu_$i" \
		    '.session_id=$s | .tool_use_id=$i'
	done | jh-seal | jh-chain >/dev/null
}

logof() {
	local h
	h=$(printf '%s' "${1:-s1}" | sha256sum | cut -c1-64)
	echo "$JH_STATE/logs/$h.jhl"
}

@test "appends each receipt and passes on the chain/1 entry" {
	decision_json | jh-seal >"$T/r.cbor"
	jh-chain <"$T/r.cbor" >"$T/e.cbor"
	run -0 jh-verify "$T/e.cbor"
	assert_line --index 0 --partial '"ok":true,"kind":"decision/1"'
	assert_line --index 0 --partial '"chain":{"seq":0,"prev":"0000000000000000000000000000000000000000000000000000000000000000","session":"s1"'
	cmp "$T/e.cbor" "$(logof s1)"
	run -0 sh -c "jh-chain -j <'$T/r.cbor'"
	assert_output --partial '"chain":{"seq":1,'
}

@test "a log of many entries verifies, seq 0..n-1, and jq audits work on it" {
	chain_n 20
	run -0 jh-verify "$(logof)"
	run sh -c "jh-verify '$(logof)' | jq -r 'select(.chain) | .chain.seq' | tr '\n' ' '"
	assert_output "$(seq -s ' ' 0 19) "
	run sh -c "jh-verify '$(logof)' | jq -c 'select(.core.verdict==\"allow\")' | wc -l"
	assert_output 20
	run sh -c "jh-verify '$(logof)' | jq -r 'select(.log) | .log.entries'"
	assert_output 20
}

@test "the log's name is a digest: hostile session ids stay inside the state directory" {
	for sid in '../../etc/x' "$(head -c 10240 /dev/zero | tr '\0' a)" $'line\nbreak' '/abs/path' '.'; do
		decision_json | jq -c --arg s "$sid" '.session_id=$s' | jh-seal | jh-chain >/dev/null
	done
	decision_json | jq -c '.session_id="nul\u0000id"' | jh-seal | jh-chain >/dev/null
	run sh -c "ls '$JH_STATE/logs' | grep -c '^[0-9a-f]\{64\}\.jhl\$'"
	assert_output 6
	run find "$T" -path "$JH_STATE" -prune -o -name '*.jhl' -print
	assert_output ""
	assert_file_not_exist "$T/etc/x"
}

@test "refuses kinds that belong to no session, and untrusted or damaged receipts" {
	echo '{"audience":"joulehook:*","nbf":0,"exp":1,"budget_uj":1,"caps":[]}' |
	    jh-seal -K grant/1 -k "$JH_HOME/issuer.key" >"$T/g.cbor"
	run -1 --separate-stderr jh-chain <"$T/g.cbor"
	assert_output ""
	[[ "$stderr" == *"belongs to no session"* ]]
	mkdir "$T/o"
	jh-seal -G -k "$T/o/k"
	decision_json | jh-seal -k "$T/o/k" >"$T/x.cbor"
	run -1 --separate-stderr jh-chain <"$T/x.cbor"
	assert_output ""
	[[ "$stderr" == *"not a trusted steward"* ]]
	decision_json | jh-seal >"$T/r.cbor"
	flip_byte "$T/r.cbor" 200
	run -1 jh-chain <"$T/r.cbor"
	assert_output --partial "receipt 1: "
}

@test "refuses a receipt of another session than the log's, and one that predates the head" {
	chain_n 1 s1
	decision_json | jq -c '.session_id="s2"' | jh-seal >"$T/s2.cbor"
	run -1 --separate-stderr jh-chain -l "$(logof s1)" <"$T/s2.cbor"
	assert_output ""
	[[ "$stderr" == *"session is not the log's"* ]]
	old=$(( $(date +%s) * 1000 - 3600000 ))
	decision_json | JH_NOW=$old jh-seal >"$T/old.cbor"
	run -1 --separate-stderr jh-chain <"$T/old.cbor"
	assert_output ""
	[[ "$stderr" == *"predates the head"* ]]
	run -0 jh-chain -d 7200000 <"$T/old.cbor"
}

@test "tampering: changed bytes in a receipt, an entry, a signature" {
	chain_n 5
	mkdir "$T/e"
	$SEQ split "$(logof)" "$T/e"
	len2=$(stat -c %s "$T/e/2")
	# receipt bytes sit inside the entry's payload; the entry signature
	# is the last 64 bytes; the entry's own ts/nonce sit near its start
	for at in 300 60 $((len2 - 10)); do
		cp "$T/e/2" "$T/x"
		flip_byte "$T/x" "$at"
		cat "$T/e/0" "$T/e/1" "$T/x" "$T/e/3" "$T/e/4" >"$T/log"
		run -1 jh-verify "$T/log"
		assert_line --index 2 --partial '"ok":false'
		run sh -c "jh-verify '$T/log' | jq -r 'select(.log) | .log.first_broken.entry'"
		assert_output 3
	done
}

@test "tampering: removed, swapped, duplicated and spliced entries" {
	chain_n 5
	chain_n 2 other
	mkdir "$T/e" "$T/o"
	$SEQ split "$(logof)" "$T/e"
	$SEQ split "$(logof other)" "$T/o"
	e="$T/e"
	cat $e/0 $e/1 $e/3 $e/4 >"$T/removed"
	run -1 jh-verify "$T/removed"
	assert_output --partial "seq 3 follows seq 1"
	cat $e/1 $e/2 $e/3 $e/4 >"$T/first"
	run -1 jh-verify "$T/first"
	assert_output --partial "does not start at seq 0"
	cat $e/0 $e/2 $e/1 $e/3 $e/4 >"$T/swapped"
	run -1 jh-verify "$T/swapped"
	assert_output --partial "seq 2 follows seq 0"
	cat $e/0 $e/1 $e/1 $e/2 $e/3 $e/4 >"$T/dup"
	run -1 jh-verify "$T/dup"
	assert_output --partial "seq 1 follows seq 1"
	cat $e/0 "$T/o/1" $e/2 $e/3 $e/4 >"$T/spliced"
	run -1 jh-verify "$T/spliced"
	assert_output --partial "another session"
}

@test "tampering: an old receipt re-appended under a fresh entry is a replay" {
	chain_n 3
	mkdir "$T/e"
	$SEQ split "$(logof)" "$T/e"
	$SEQ receipt "$T/e/1" >"$T/old.cbor"
	run -0 jh-chain <"$T/old.cbor"
	run -1 jh-verify "$(logof)"
	assert_output --partial "receipt already chained at seq 1 (replayed)"
}

# first_three: the session's log cut to its first three entries, whole.
first_three() {
	mkdir -p "$T/e"
	$SEQ split "$(logof)" "$T/e"
	cat "$T/e/0" "$T/e/1" "$T/e/2"
}

@test "truncation of the tail: detected with a checkpoint, prefix-only without" {
	chain_n 4
	jh-chain -c -i s1 >"$T/cp"
	run -0 jh-verify -c "$T/cp" "$(logof)"
	assert_output --partial '"extent":"matches the checkpoint"'
	first_three >"$T/short"
	run -1 jh-verify -c "$T/cp" "$T/short"
	assert_output --partial "truncated: the checkpoint has 4 entries, the log 3"
	run -0 jh-verify "$T/short"
	assert_output --partial "verified as a prefix only"
	chain_n 1
	run -0 jh-verify -c "$T/cp" "$(logof)"
	assert_output --partial "extends the checkpoint by 1 entries"
	# a checkpoint of another session does not vouch for this log
	chain_n 1 s9
	jh-chain -c -i s9 >"$T/cp9"
	run -1 jh-verify -c "$T/cp9" "$(logof)"
}

# A sink holds the checkpoints of many sessions: each needs its log, and
# no number of bare receipts in front of a log hides which session it is.
@test "a sink of two sessions: a log deleted from beside the others fails, naming its session; bare receipts in front hide nothing" {
	chain_n 4
	chain_n 2 s2
	{ jh-chain -c -i s1; jh-chain -c -i s2; } >"$T/sink"
	run -0 jh-verify -q -c "$T/sink" "$(logof)" "$(logof s2)"
	# one log asked about, the other beside it: not asked about
	run -0 jh-verify -q -c "$T/sink" "$(logof)"
	# the other deleted: found missing
	mv "$(logof s2)" "$T/away"
	run -1 --separate-stderr jh-verify -q -c "$T/sink" "$(logof)"
	[[ "$stderr" == *"no log of the checkpoint's session s2 was given, nor is one beside the logs given"* ]] || { echo "$stderr"; false; }
	mv "$T/away" "$(logof s2)"
	# 70 bare receipts, then s1's first three entries, under another name
	for ((i = 0; i < 70; i++)); do decision_json; done | jh-seal >"$T/pad"
	first_three >"$T/short"
	cat "$T/pad" "$T/short" >"$T/renamed.log"
	run -1 --separate-stderr jh-verify -q -c "$T/sink" "$T/renamed.log" "$(logof s2)"
	[[ "$stderr" == *"truncated: the checkpoint has 4 entries, the log 3"* ]] || { echo "$stderr"; false; }
	# jh-status with the sink in its config holds a log to it as jh-verify does
	printf 'home=%s\nstate=%s\nsink=%s\n' "$JH_HOME" "$JH_STATE" "$T/sink" >"$T/hook.conf"
	chmod 600 "$T/hook.conf"
	run -1 jh-status -s -c "$T/hook.conf" "$T/renamed.log"
	mkdir "$T/empty"
	: >"$T/empty/$(basename "$(logof s2)")"
	run -1 jh-status -s -c "$T/hook.conf" "$T/empty/$(basename "$(logof s2)")"
	assert_output --partial "truncated: the checkpoint has 2 entries"
	run -0 jh-status -s -c "$T/hook.conf" "$(logof)" "$(logof s2)"
}

@test "a checkpoint sink past 16 MiB (a year of Stops) is still read, and still catches a cut log" {
	chain_n 4
	jh-chain -c -i s1 >"$T/cp"
	# a sink is every Stop of every session, appended for as long as it
	# is kept: 17 MiB of the same whole checkpoint
	/usr/bin/python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(d * (17 * 1024 * 1024 // len(d) + 1))' "$T/cp" "$T/sink"
	[ "$(stat -c %s "$T/sink")" -gt $((16 * 1024 * 1024)) ]
	run -0 jh-verify -c "$T/sink" "$(logof)"
	assert_output --partial '"extent":"matches the checkpoint"'
	first_three >"$T/short"
	run -1 jh-verify -c "$T/sink" "$T/short"
	assert_output --partial "truncated: the checkpoint has 4 entries, the log 3"
	# a torn last append is still only a torn tail
	head -c 100 "$T/cp" >>"$T/sink"
	run -0 jh-verify -c "$T/sink" "$(logof)"
}

@test "50 concurrent writers: one log, 50 entries, seq 0..49, no interleaving" {
	for i in $(seq 0 49); do
		decision_json | jq -c --arg i "toolu_$i" '.tool_use_id=$i' | jh-seal >"$T/r$i.cbor"
	done
	for i in $(seq 0 49); do
		jh-chain -w 20000 <"$T/r$i.cbor" >"$T/out$i" &
	done
	wait
	run -0 jh-verify "$(logof)"
	run sh -c "jh-verify '$(logof)' | jq -r 'select(.chain) | .chain.seq' | sort -n | tr '\n' ' '"
	assert_output "$(seq -s ' ' 0 49) "
	run sh -c "jh-verify '$(logof)' | jq -r 'select(.chain) | .core.tool_use_id' | sort -u | wc -l"
	assert_output 50
	run sh -c "cat $T/out* | wc -c"
	assert_output "$(stat -c %s "$(logof)")"
}

@test "kill -9 during appends: the next append recovers and nothing acknowledged is lost" {
	decision_json | jq -c 'range(200) as $i | .tool_use_id = "toolu_\($i)"' >"$T/stream.json"
	for round in 1 2 3 4 5 6 7 8; do
		# fresh receipts each round: the same ones twice would be a replay
		jh-seal "$T/stream.json" >"$T/stream$round.cbor"
	done
	for round in 1 2 3 4 5 6 7 8; do
		# made here: a kill that lands before the child opens it
		# leaves nothing acknowledged, not a missing file
		: >"$T/ack$round"
		jh-chain <"$T/stream$round.cbor" >"$T/ack$round" 2>/dev/null &
		pid=$!
		sleep "0.0$((RANDOM % 9 + 1))"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	# the last append also cuts a torn tail, if the kill left one
	decision_json | jh-seal | jh-chain >/dev/null
	run -0 jh-verify -q "$(logof)"
	# every entry acknowledged in any round is in the log, byte for byte
	for round in 1 2 3 4 5 6 7 8; do
		run -0 $SEQ missing "$T/ack$round" "$(logof)"
		[ -z "$output" ] || fail "round $round: acknowledged entries $output missing from the log"
	done
}

@test "a torn tail is cut with a message; a complete bad item is refused, never cut" {
	chain_n 3
	mkdir "$T/e"
	$SEQ split "$(logof)" "$T/e"
	head -c 150 "$T/e/2" >>"$(logof)"
	run -0 --separate-stderr jh-chain < <(decision_json | jh-seal)
	[[ "$stderr" == *"cut a torn tail of 150 bytes"* ]]
	run -0 jh-verify "$(logof)"
	printf '\x01' >>"$(logof)"
	size=$(stat -c %s "$(logof)")
	run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
	assert_output ""
	[[ "$stderr" == *"damaged"* ]]
	assert_equal "$(stat -c %s "$(logof)")" "$size"
}

# A torn append is a part of one entry; a length altered in a complete
# entry (the payload's, from 734 bytes to 65535) makes the rest look like
# one, but it holds whole signed entries: neither verified as a torn
# tail nor cut, before or after more appends, with or without the .head.
@test "an entry's length altered mid-log is damage, never a torn tail: verify fails and jh-chain refuses" {
	chain_n 5
	local log off
	log=$(logof)
	mkdir "$T/e"
	$SEQ split "$log" "$T/e"
	off=$(( $(stat -c %s "$T/e/0") + $(stat -c %s "$T/e/1") + 44 ))
	printf '\xff\xff' | dd of="$log" bs=1 seek="$off" conv=notrunc status=none
	run -1 --separate-stderr jh-verify -q "$log"
	[[ "$stderr" == *"an entry's length was altered"* ]] || { echo "$stderr"; false; }
	run -1 --separate-stderr jh-status -s "$log"
	run -0 jq -r '.logs[0].first_broken.error' <<<"$output"
	assert_output --partial "length was altered"
	# with its .head, jh-chain appends after the last entry it names;
	# what it appends is hidden as well, and still found
	run jh-chain < <(decision_json | jq -c '.tool_use_id="toolu_9"' | jh-seal)
	run -1 jh-verify -q "$log"
	# without it, the scan refuses rather than cut acknowledged entries
	rm "$log.head"
	size=$(stat -c %s "$log")
	run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
	[[ "$stderr" == *"hold whole entries: not a torn append, never cut"* ]] || { echo "$stderr"; false; }
	assert_equal "$(stat -c %s "$log")" "$size"
	# a real torn append that holds its whole inner receipt is one still
	mkdir "$T/f"
	head -c -1 "$T/e/4" >"$T/f/last"
	cat "$T/e/0" "$T/e/1" "$T/e/2" "$T/e/3" "$T/f/last" >"$log"
	run -0 jh-verify "$log"
	assert_output --partial "a torn tail of"
}

@test "a log cut below the entries it acknowledged is never started over: appends are refused, saying why" {
	chain_n 3
	local log
	log=$(logof)
	# cut inside the first entry: it would pass for a torn tail, and
	# the log would start again from seq 0
	for size in 1000 0; do
		cp "$log" "$T/whole"
		truncate -s "$size" "$log"
		run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
		assert_output ""
		[[ "$stderr" == *"cut below the 3 entries ("*" bytes) its .head acknowledged, to $size: not a crash"* ]] || { echo "$stderr"; false; }
		[[ "$stderr" == *"move it and its .head aside to go on"* ]] || { echo "$stderr"; false; }
		assert_equal "$(stat -c %s "$log")" "$size"
		cp "$T/whole" "$log"
	done
	# the whole log goes on as ever
	run -0 jh-chain < <(decision_json | jq -c '.tool_use_id="toolu_9"' | jh-seal)
	run -0 jh-verify "$log"
	# moved aside, as the message says: a new log starts
	mv "$log" "$T/cut.jhl"
	mv "$log.head" "$T/cut.jhl.head"
	run -0 jh-chain < <(decision_json | jh-seal)
	run -0 jh-verify "$log"
}

@test "a stale, missing or corrupt sidecar is rebuilt from the log" {
	chain_n 3
	rm "$(logof).head"
	chain_n 1
	printf 'garbage' | dd of="$(logof).head" bs=1 seek=20 conv=notrunc 2>/dev/null
	chain_n 1
	run -0 jh-verify "$(logof)"
	run sh -c "jh-verify '$(logof)' | jq -r 'select(.log) | .log.entries'"
	assert_output 5
}

@test "a lock it cannot take in time is an error and nothing on stdout" {
	chain_n 1
	flock "$(logof)" sleep 3 &
	sleep 0.3
	run -2 --separate-stderr jh-chain -w 200 < <(decision_json | jh-seal)
	assert_output ""
	[[ "$stderr" == *"timed out after 200 ms"* ]]
	wait
}

@test "a full disk (file size limit): a clear error, nothing acknowledged, the log still verifies" {
	chain_n 3
	size=$(stat -c %s "$(logof)")
	decision_json | jh-seal >"$T/r.cbor"
	run -2 --separate-stderr sh -c "ulimit -f $(( (size + 200) / 512 )); exec jh-chain <'$T/r.cbor'"
	assert_output ""
	[[ "$stderr" == *"File too large"* ]]
	assert_equal "$(stat -c %s "$(logof)")" "$size"
	run -0 jh-verify "$(logof)"
}

@test "a full tmpfs: a clear error, nothing acknowledged" {
	mkdir "$T/small"
	mount -t tmpfs -o size=16k tmpfs "$T/small" 2>/dev/null || skip "cannot mount a tmpfs here"
	chmod 700 "$T/small"
	n=0
	while decision_json | jh-seal | JH_STATE="$T/small" jh-chain >"$T/ack" 2>"$T/err"; do
		n=$((n + 1))
		[ "$n" -lt 200 ] || break
	done
	grep -q "No space left" "$T/err" || { umount "$T/small"; fail "no ENOSPC error: $(cat "$T/err")"; }
	[ ! -s "$T/ack" ] || { umount "$T/small"; fail "acknowledged on a full disk"; }
	JH_STATE="$T/small" run jh-verify "$T/small/logs/"*.jhl
	umount "$T/small"
	assert_success
}

@test "planted symlinks, FIFOs and hard links in the state are refused" {
	mkdir -p "$JH_STATE/logs"
	chmod 700 "$JH_STATE/logs"
	echo 'precious' >"$T/bashrc"
	ln -s "$T/bashrc" "$(logof)"
	run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
	assert_output ""
	[[ "$stderr" == *"symbolic link"* ]]
	assert_equal "$(cat "$T/bashrc")" precious
	rm "$(logof)"
	mkfifo "$(logof)"
	run -2 --separate-stderr timeout 5 jh-chain < <(decision_json | jh-seal)
	[[ "$stderr" == *"not a regular file"* ]]
	rm "$(logof)"
	ln "$T/bashrc" "$(logof)"
	chmod 600 "$(logof)"
	run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
	[[ "$stderr" == *"links"* ]]
	rm "$(logof)"
	ln -s "$T/bashrc" "$(logof).head"
	run -2 --separate-stderr jh-chain < <(decision_json | jh-seal)
	[[ "$stderr" == *"symbolic link"* ]]
	assert_equal "$(cat "$T/bashrc")" precious
	rm "$(logof).head"
	rm -rf "$JH_STATE/logs"
	ln -s "$T" "$JH_STATE/logs"
	run -2 jh-chain < <(decision_json | jh-seal)
	assert_output --partial "logs"
}

@test "jh-verify on a log being appended to says so instead of reporting a defect" {
	chain_n 2
	mkdir "$T/e"
	$SEQ split "$(logof)" "$T/e"
	head -c 100 "$T/e/1" >>"$(logof)"
	flock "$(logof)" sleep 2 &
	sleep 0.3
	run -0 jh-verify "$(logof)"
	assert_output --partial "an append is in progress"
	wait
	run -0 jh-verify "$(logof)"
	assert_output --partial "torn tail of 100 bytes"
}

@test "-c prints a signed checkpoint; usage errors" {
	chain_n 2
	run -0 sh -c "jh-chain -c -j -i s1"
	assert_output --partial '"kind":"checkpoint/1"'
	assert_output --partial '"count":2'
	run -2 jh-chain -c
	run -2 jh-chain -c -i nosuch
	run -2 jh-chain -l x -S y
	run -0 jh-chain -h
	run -2 jh-chain -k "$JH_HOME/issuer.key" </dev/null
	assert_output --partial "steward key"
}
