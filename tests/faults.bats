#!/usr/bin/env bats
# Fault injection (issue 20): the hook's stages killed at random moments,
# stopped holding a lock, a state directory that fills up, fails or is
# replaced, records corrupted, the clock jumping.  Each time the host
# gets a deny, or an answer the log backs with its receipt; what was
# there before still verifies, and no ledger counts less than its
# receipts.
#
# The random runs are short in make check; JH_FAULT_ITER sets how many
# runs each such test makes (JH_FAULT_ITER=5000 for the long mode), and
# JH_FAULT_SEED the seed of $RANDOM (printed on a failure).  The stand-in
# stages are the test build's stageN= lines, which run the stages as
# programs whatever the mode; tests/faultinject.c, loaded into a stage
# with LD_PRELOAD, fails one write or fsync, or stops the stage holding a
# lock.  Every other hook runs in the mode the config gives it, with
# JH_HOOK_MODE_CONF's lines (helpers/faults.bash): JH_HOOK_MODE_CONF=fast=0
# runs this suite with the stages exec'd.  The tests of bugs left to the
# code that owns them are skipped with "BUG:", and run with JH_RUN_BUGS=1.

# bats file_tags=faults

load test_helper/common
load helpers/faults

setup() {
	_common_setup
	fault_setup
	FI="$JH_TESTBIN/faultinject.so"
	SEED=${JH_FAULT_SEED:-$$}
	RANDOM=$SEED
	MNT=
	WIN=()
}

teardown() {
	local p
	! declare -F proxy_stop >/dev/null || proxy_stop >/dev/null 2>&1 || true
	! declare -F mock_stop >/dev/null || mock_stop
	for p in ${BG_PIDS:-}; do
		kill -CONT "$p" 2>/dev/null || true
		kill -KILL "$p" 2>/dev/null || true
	done
	[ -z "$MNT" ] || umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
	[ -z "${PG_STARTED:-}" ] || pg_stop
}

STAGES=(jh-normalize jh-decide jh-seal jh-chain jh-normalize)
POST_STAGES=(jh-normalize jh-result jh-seal jh-chain jh-normalize)

iterations() {
	echo "${JH_FAULT_ITER:-$1}"
}

# killers NAME...: a stand-in for each stage n, $T/stage.n, that runs the
# real program NAME under timeout(1): SIGKILL after the seconds in
# $T/delay.n, or never with "none"; a kill that landed (the program had
# not ended) is counted in $T/landed.  The config names them all.
killers() {
	local n=0 name lines=()
	for name in "$@"; do
		cat >"$T/stage.$n" <<-EOF
		#!/bin/sh
		read d <"$T/delay.$n" 2>/dev/null || d=none
		[ "\$d" = none ] && exec "$JH_BIN/$name" "\$@"
		if [ "\$d" = time ]; then
			s=\$(date +%s%N)
			"$JH_BIN/$name" "\$@"
			r=\$?
			echo \$(((\$(date +%s%N) - s) / 100000)) >>"$T/life.$n"
			exit \$r
		fi
		timeout --foreground -s KILL "\$d" "$JH_BIN/$name" "\$@"
		r=\$?
		[ \$r != 137 ] || echo "$n" >>"$T/landed"
		exit \$r
		EOF
		chmod 755 "$T/stage.$n"
		echo none >"$T/delay.$n"
		lines+=("stage$n=$T/stage.$n")
		n=$((n + 1))
	done
	KILL_LINES=("${lines[@]}")
}

# calibrate PAYLOAD: each stage's life in a run of the hook, the longest
# of three, in 0.1 ms units: where its kills are spread at first.
calibrate() {
	local k n
	for n in 0 1 2 3 4; do echo time >"$T/delay.$n"; done
	for k in 1 2 3; do
		"$JH_BIN/jh-hook" -c "$CONF" >/dev/null 2>&1 <<<"$1" || true
	done
	for n in 0 1 2 3 4; do
		WIN[$n]=$(($(sort -n "$T/life.$n" | tail -n 1) + 2))
		echo none >"$T/delay.$n"
	done
}

# arm: one stage, at random, is killed at a random moment within its
# window (0.1 ms units: its life as calibrate found it, then widened or
# narrowed to where kills land); the others run.  Sets KILLED.
arm() {
	local n d
	for n in 0 1 2 3 4; do echo none >"$T/delay.$n"; done
	K=$((RANDOM % 5))
	d=$(((RANDOM * 32768 + RANDOM) % WIN[K] + 1))
	printf '%d.%04d\n' $((d / 10000)) $((d % 10000)) >"$T/delay.$K"
	KILLED="stage $K after $(cat "$T/delay.$K") s"
	LANDED=$(landed)
}

# adapt: the killed stage's window grows when the kill landed, else
# shrinks, so about half the kills land while the stage runs.
adapt() {
	if [ "$(landed)" -gt "$LANDED" ]; then
		WIN[K]=$((WIN[K] * 5 / 4 + 1))
	elif [ "${WIN[K]}" -gt 20 ]; then
		WIN[K]=$((WIN[K] * 7 / 10))
	fi
}

# checked N ITER: after run N of ITER, the session's log verifies; every
# 25 runs and after the last, every log and the ledger too (the long
# mode's sessions are cut at 200 runs, so each check stays short).
checked() {
	[ ! -e "$(log_of "$SID")" ] || jh-verify -q "$(log_of "$SID")" ||
	    { echo "log of $SID does not verify"; return 1; }
	[ $(($1 % 25)) = 24 ] || [ $(($1 + 1)) = "$2" ] || return 0
	state_ok
}

landed() {
	cat "$T/landed" 2>/dev/null | wc -l
}

# after_run [adapt]: run $n of $iter is done: the kill window adapts (with
# "adapt"), the state is checked, the run counted.
after_run() {
	[ "${1:-}" != adapt ] || adapt
	checked "$n" "$iter" || { echo "run $n ($KILLED, seed $SEED)"; return 1; }
	count=$((count + 1))
}

# report TALLY: the runs' tally on the test's output; all of them ran.
report() {
	echo "# $count runs, $(landed) kills landed: $1" >&3
	[ "$count" = "$iter" ]
}

# A command at random: an allow, an ask or a deny.
some_command() {
	case $((RANDOM % 4)) in
	0) echo "echo ask $RANDOM" ;;
	1) echo "rm -rf /opt/x$RANDOM" ;;
	*) echo "echo hi $RANDOM" ;;
	esac
}

@test "SIGKILL at random moments in each pre-tool stage: a valid deny, or an answer backed by its chained decision; the log and the ledger verify" {
	local n iter count=0 deny=0 allow=0
	iter=$(iterations 15)
	killers "${STAGES[@]}"
	hook_conf "${KILL_LINES[@]}"
	calibrate "$(pre warm 'echo hi')"
	for ((n = 0; n < iter; n++)); do
		SID="s$BATS_TEST_NUMBER-$((n / 200))"
		arm
		[ $((n % 2)) = 0 ] && hook_conf "${KILL_LINES[@]}" || hook_conf "${KILL_LINES[@]}" answer_allow=1
		hook <<<"$(pre "k$n" "$(some_command)")"
		pre_answer_ok "k$n" || { echo "run $n ($KILLED, seed $SEED): status $status out [$output] err [$stderr]"; jh-verify "$(log_of "$SID")" | jq -c "select(.core) | [.kind, .ok, .core.tool_use_id, .core.verdict]"; return 1; }
		[ "$status" = 2 ] && deny=$((deny + 1)) || allow=$((allow + 1))
		after_run adapt
	done
	report "$deny denied, $allow answered from a receipt"
}

@test "SIGKILL at random moments in each post-tool stage: the answer is nothing only when its matching result/1 is chained, else the host's stop; the log and the ledger verify" {
	local n iter count=0 stop=0 quiet=0
	iter=$(iterations 10)
	killers "${POST_STAGES[@]}"
	hook <<<"$(pre warm 'echo hi')"
	hook_conf "${KILL_LINES[@]}"
	calibrate "$(post warm 'echo hi')"
	for ((n = 0; n < iter; n++)); do
		SID="s$BATS_TEST_NUMBER-$((n / 200))"
		hook_conf
		hook <<<"$(pre "p$n" "echo hi $n")"
		[ "$status" = 0 ] || { echo "run $n: the decision failed: $stderr"; return 1; }
		arm
		hook_conf "${KILL_LINES[@]}"
		hook <<<"$(post "p$n" "echo hi $n")"
		post_answer_ok "p$n" || { echo "run $n ($KILLED, seed $SEED): $stderr"; return 1; }
		[ -n "$output" ] && stop=$((stop + 1)) || quiet=$((quiet + 1))
		after_run adapt
	done
	report "$stop stopped, $quiet let stand on a matching result/1"
}

# child_kill PAYLOAD TENTHS: the hook on PAYLOAD, and after about TENTHS
# of a millisecond one of its children at random (the fused child, or a
# stage), if any is left, SIGKILLed; sets status, output, stderr, and
# adapts the window w the moments are drawn from.  The wait and the
# look-up fork nothing, so the moment is where it is meant.
child_kill() {
	local hp kids
	[ -p "$T/never" ] || { mkfifo "$T/never"; exec 9<>"$T/never"; }
	"$JH_BIN/jh-hook" -c "$CONF" <<<"$1" >"$T/ck.out" 2>"$T/ck.err" &
	hp=$!
	read -r -t "$(printf '%d.%04d' $(($2 / 10000)) $(($2 % 10000)))" -u 9 || true
	kids=()
	# (no newline at its end: read says 1, and has read it)
	read -r -a kids <"/proc/$hp/task/$hp/children" 2>/dev/null || true
	# the window widens where kills land, and narrows where they miss
	if [ "${#kids[@]}" -gt 0 ] && kill -KILL "${kids[RANDOM % ${#kids[@]}]}" 2>/dev/null; then
		echo k >>"$T/landed"
		w=$((w * 5 / 4 + 1))
	elif [ "$w" -gt 20 ]; then
		w=$((w * 7 / 10))
	fi
	status=0
	wait "$hp" || status=$?
	output=$(cat "$T/ck.out")
	stderr=$(cat "$T/ck.err")
}

@test "the hook as configured (fused by default, JH_HOOK_MODE_CONF for another mode): a child SIGKILLed at a random moment is a deny, or an answer backed by its receipt, before and after the tool" {
	local n k iter w= t0 cmd count=0 deny=0 allow=0
	iter=$(iterations 15)
	hook_conf
	hook <<<"$(pre warm 'echo hi')"
	# tenths of a millisecond: the shortest of three runs of the hook
	for k in 1 2 3; do
		t0=${EPOCHREALTIME/./}
		hook <<<"$(pre "warm$k" 'echo hi')"
		t0=$(((${EPOCHREALTIME/./} - t0) / 100 + 1))
		[ -n "${w:-}" ] && [ "$w" -le "$t0" ] || w=$t0
	done
	for ((n = 0; n < iter; n++)); do
		SID="s$BATS_TEST_NUMBER-$((n / 200))"
		cmd=$(some_command)
		d=$(((RANDOM * 32768 + RANDOM) % w))
		KILLED="a child after $d tenths of a ms"
		child_kill "$(pre "c$n" "$cmd")" "$d"
		pre_answer_ok "c$n" || { echo "run $n ($KILLED, seed $SEED): $stderr"; return 1; }
		if [ "$status" = 0 ] && [ -z "$output" ]; then
			allow=$((allow + 1))
			child_kill "$(post "c$n" "$cmd")" $(((RANDOM * 32768 + RANDOM) % w))
			post_answer_ok "c$n" || { echo "run $n, after the tool (seed $SEED): $stderr"; return 1; }
		else
			deny=$((deny + 1))
		fi
		after_run
	done
	report "$deny denied or asked, $allow allowed from a receipt (then killed again after the tool)"
}

# serve LINE...: jh-hook -a for each connection to $S, as
# systemd-socket-activate --accept starts it (tests/hooksock.bats), its
# config $CONF with LINEs and the caller's uid as its developer.  Each
# server is started by $T/server, which SIGKILLs it after the seconds in
# $T/delay.srv ("none": never).
serve() {
	command -v systemd-socket-activate >/dev/null ||
		skip "SKIPPED: systemd-socket-activate is not installed (Debian: systemd)"
	hook_conf "$@" "developer=$(id -u)" readable=1
	echo none >"$T/delay.srv"
	cat >"$T/server" <<-EOF
	#!/bin/sh
	read d <"$T/delay.srv" 2>/dev/null || d=none
	if [ "\$d" != none ]; then
		(sleep "\$d"; kill -KILL \$\$ 2>/dev/null && echo srv >>"$T/landed") \\
		    3>&- </dev/null >/dev/null 2>&1 &
	fi
	exec "$JH_BIN/jh-hook" -c "$CONF" -a
	EOF
	chmod 755 "$T/server"
	S="$T/gate.sock"
	setsid systemd-socket-activate --accept -l "$S" "$T/server" \
	    </dev/null >"$T/activate.out" 2>&1 3>&- &
	BG_PIDS="${BG_PIDS:-} $!"
	local k
	for ((k = 0; k < 100; k++)); do
		[ -S "$S" ] && return 0
		sleep 0.05
	done
	cat "$T/activate.out" >&2
	return 1
}

@test "the hardened server (jh-hook -a under socket activation): SIGKILL at random moments in a stage or in the server itself is the client's deny, or an answer backed by its receipt" {
	local n iter count=0 deny=0 allow=0
	iter=$(iterations 8)
	killers "${STAGES[@]}"
	serve "${KILL_LINES[@]}"
	calibrate "$(pre warm 'echo hi')"
	for ((n = 0; n < iter; n++)); do
		SID="s$BATS_TEST_NUMBER-$((n / 200))"
		arm
		if [ $((RANDOM % 6)) = 0 ]; then
			# the server, not a stage
			cp "$T/delay.$K" "$T/delay.srv"
			echo none >"$T/delay.$K"
			KILLED="the server after $(cat "$T/delay.srv") s"
		fi
		run --separate-stderr "$JH_BIN/jh-hook" -s "$S" -t 20000 <<<"$(pre "h$n" "$(some_command)")"
		echo none >"$T/delay.srv"
		pre_answer_ok "h$n" || { echo "run $n ($KILLED, seed $SEED): $stderr"; return 1; }
		[ "$status" = 2 ] && deny=$((deny + 1)) || allow=$((allow + 1))
		after_run adapt
	done
	report "$deny denied, $allow answered from a receipt"
}

# stopper N NAME PATH: a stand-in for stage N, the program NAME, that
# stops (SIGSTOP) as soon as it holds the lock on the file whose path
# holds PATH (tests/faultinject.c); its pid is in $T/stopped.pid.
stopper() {
	[ -f "$FI" ] || skip "SKIPPED: no $FI (make BUILD=test build/test/tests/faultinject.so)"
	cat >"$T/stopper" <<-EOF
	#!/bin/sh
	echo \$\$ >"$T/stopped.pid"
	LD_PRELOAD="$FI" JH_FI_STOP_LOCK="$3" ASAN_OPTIONS=verify_asan_link_order=0 \\
	    exec "$JH_BIN/$2" "\$@"
	EOF
	chmod 755 "$T/stopper"
	STOP_LINE="stage$1=$T/stopper"
}

# stopped_pid: waits until the stand-in is stopped, and prints its pid.
stopped_pid() {
	local k p
	for ((k = 0; k < 200; k++)); do
		p=$(cat "$T/stopped.pid" 2>/dev/null) || true
		if [ -n "$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = T ]; then
			echo "$p"
			return 0
		fi
		sleep 0.05
	done
	echo "the stage never stopped holding its lock" >&2
	return 1
}

# held_lock N NAME PATH WHAT: hook A's stage N stops holding the lock on
# PATH; hooks B and C deny, naming WHAT, within their own deadline; once
# A resumes it answers from its receipt, and the state verifies.
held_lock() {
	local pid
	stopper "$1" "$2" "$3"
	hook_conf "$STOP_LINE" deadline_ms=60000 lock_ms=20000
	"$JH_BIN/jh-hook" -c "$CONF" <<<"$(pre held 'echo held')" >"$T/a.out" 2>"$T/a.err" &
	local a=$!
	BG_PIDS="${BG_PIDS:-} $a"
	pid=$(stopped_pid)
	BG_PIDS="$BG_PIDS $pid"
	hook_conf deadline_ms=3000 lock_ms=500
	hook <<<"$(pre b1 'echo b')"
	is_deny || { echo "B: $status $output"; return 1; }
	[[ $stderr == *"$4"* ]] || { echo "B's reason: $stderr"; return 1; }
	# another session: the ledger is the grant's, the log the session's
	hook <<<"$(pre c1 'echo c' "$SID-other")"
	if [ "$2" = jh-decide ]; then
		is_deny || { echo "C: $status $output"; return 1; }
	else
		pre_answer_ok c1 "$SID-other" && [ "$status" = 0 ] || { echo "C: $status $output"; return 1; }
	fi
	kill -CONT "$pid"
	status=0
	wait "$a" || status=$?
	output=$(cat "$T/a.out")
	pre_answer_ok held
	[ -z "$output" ]
	state_ok
	# and the session goes on
	hook <<<"$(pre after 'echo after')"
	pre_answer_ok after
	[ "$status" = 0 ]
	state_ok
}

@test "a decision stage stopped holding the ledger's lock: other hooks deny within their deadline, and once it resumes the ledger and the log agree" {
	held_lock 1 jh-decide /ledger/ "timed out after 500 ms waiting for a lock"
}

@test "a chain stage stopped holding the log's lock: the session's other hooks deny within their deadline, another session goes on, and once it resumes the log verifies" {
	held_lock 3 jh-chain .jhl "timed out after 500 ms waiting for a lock"
}

# small_state SIZE [LINE...]: JH_STATE on a tmpfs of SIZE mounted here
# (as root; unmounted in teardown), with the grant's ledger, and the
# config with LINEs.
small_state() {
	[ "$(id -u)" = 0 ] || skip "SKIPPED: mounting a small tmpfs needs root (CI runs as root)"
	MNT="$T/small"
	mkdir -p "$MNT"
	mount -t tmpfs -o "size=$1,mode=0700" tmpfs "$MNT" ||
		{ MNT=; skip "SKIPPED: cannot mount a tmpfs here"; }
	export JH_STATE="$MNT/state"
	mkdir -m 700 "$JH_STATE"
	jh-decide -I -g "$JH_HOME/grant" 2>/dev/null
	shift
	hook_conf "$@"
}

# fill: the tmpfs is full; unfill: room again.
fill() {
	cat /dev/zero >"$MNT/fill" 2>/dev/null || true
}

unfill() {
	rm -f "$MNT/fill"
}

@test "a state directory that fills up (ENOSPC): every call is a valid deny or an answer from its receipt, a cut append leaves the log as it was, and calls go on once there is room" {
	local r k log size fit=0
	small_state 256k
	log=$(log_of "$SID")
	for r in 1 2 3; do
		hook <<<"$(pre "a$r" 'echo hi')"
		[ "$status" = 0 ] || { echo "$status $output $stderr"; return 1; }
	done
	for ((r = 0; r < 3; r++)); do
		cp "$log" "$T/before"
		size=$(stat -c %s "$log")
		fill
		# the log's last page takes a few more entries, then none
		for ((k = 0; k < 6; k++)); do
			hook <<<"$(pre "f$r.$k" 'echo full')"
			pre_answer_ok "f$r.$k" || { echo "round $r: $stderr"; return 1; }
			[ "$status" = 0 ] || break
			fit=$((fit + 1))
		done
		is_deny
		[[ $stderr == *"No space left on device"* ]]
		# what was there is still there, byte for byte
		cmp -n "$size" "$T/before" "$log"
		if [ $((r % 3)) = 0 ]; then
			# a session not seen yet cannot pin its root: a deny
			hook <<<"$(pre "n$r" 'echo new' "new-$r")"
			is_deny || { echo "round $r, new session: $status $output"; return 1; }
			hook <<<"$(post "a1" 'echo hi')"
			post_answer_ok a1 || { echo "round $r, post-tool: $stderr"; return 1; }
		fi
		state_ok
		unfill
		hook <<<"$(pre "u$r" "echo room $r")"
		[ "$status" = 0 ] || { echo "round $r, with room: $stderr"; return 1; }
	done
	hook <<<"$(pre v 'echo new' new-0)"
	[ "$status" = 0 ] || { echo "a new session with room: $stderr"; return 1; }
	state_ok
	echo "# 3 rounds on a full disk, each ending in a deny; $fit calls fit the log's last page before" >&3
}

@test "a ledger made on a full disk is not left half made: jh-decide -I fails, and succeeds once there is room" {
	small_state 256k
	rm -rf "$JH_STATE/ledger"
	fill
	run -2 jh-decide -I -g "$JH_HOME/grant"
	assert_output --partial "No space left on device"
	run -0 find "$JH_STATE/ledger" -type f
	assert_output ""
	hook <<<"$(pre l1 'echo hi')"
	is_deny
	unfill
	run -0 jh-decide -I -g "$JH_HOME/grant"
	assert_output --partial created
	hook <<<"$(pre l2 'echo hi')"
	[ "$status" = 0 ]
	state_ok
}

# stop_hook: the session's Stop, which appends its checkpoint to the sink.
stop_hook() {
	hook <<<"$(stop_payload)"
}

# pad_sink BYTES: whole checkpoints of another session appended to the
# sink until it holds at least BYTES.
pad_sink() {
	hook <<<"$(pre pad 'echo pad' pad-session)"
	while [ "$(stat -c %s "$SINK" 2>/dev/null || echo 0)" -lt "$1" ]; do
		jh-chain -c -i pad-session >>"$SINK"
	done
}

@test "a checkpoint sink on a full disk: Stop fails with the reason, and the log still verifies against the whole checkpoints before the cut one" {
	small_state 256k
	SINK="$MNT/sink"
	hook_conf
	hook <<<"$(pre c1 'echo hi')"
	stop_hook
	[ "$status" = 0 ] || { echo "$stderr"; return 1; }
	# its last page nearly full: the next checkpoint is cut short
	pad_sink 3900
	hook <<<"$(pre c2 'echo hi')"
	cp "$SINK" "$T/sink.before"
	fill
	stop_hook
	assert_equal "$status" 1
	# (a short write is named with a stale errno: see the next test)
	[[ $stderr == *"checkpoint sink $SINK: "* ]] || { echo "$stderr"; return 1; }
	run -0 cmp -n "$(stat -c %s "$T/sink.before")" "$T/sink.before" "$SINK"
	run -0 --separate-stderr jh-verify -c "$SINK" "$(log_of "$SID")"
	run -0 jq -r 'select(.log) | .log.extent' <<<"$output"
	assert_output "extends the checkpoint by 1 entries (those verified as a prefix only)"
	if [ "$(stat -c %s "$SINK")" != "$(stat -c %s "$T/sink.before")" ]; then
		[[ $stderr == *"of a checkpoint cut short, an append that never completed"* ]]
	fi
}

@test "a checkpoint cut short at a Stop does not spoil the sink for the next Stop's" {
	small_state 256k
	SINK="$MNT/sink"
	hook_conf
	hook <<<"$(pre c1 'echo hi')"
	stop_hook
	pad_sink 3900
	hook <<<"$(pre c2 'echo hi')"
	fill
	stop_hook
	assert_equal "$status" 1
	unfill
	hook <<<"$(pre c3 'echo hi')"
	stop_hook
	assert_equal "$status" 0
	run -0 jh-verify -c "$SINK" "$(log_of "$SID")"
	run -0 jq -r 'select(.log) | .log.extent' <<<"$output"
	assert_output "matches the checkpoint"
}

@test "a checkpoint sink that is a directory or on a read-only file system: Stop fails with the reason and changes nothing" {
	hook <<<"$(pre c1 'echo hi')"
	mkdir "$T/sink"
	stop_hook
	assert_equal "$status" 1
	[[ $stderr == *"checkpoint sink $T/sink: Is a directory"* ]]
	rmdir "$T/sink"
	small_state 256k
	SINK="$MNT/sink"
	hook_conf
	hook <<<"$(pre c2 'echo hi')"
	stop_hook
	assert_equal "$status" 0
	cp "$SINK" "$T/sink.before"
	mount -o remount,ro "$MNT"
	stop_hook
	assert_equal "$status" 1
	[[ $stderr == *"Read-only file system"* ]]
	cmp "$T/sink.before" "$SINK"
	run -0 jh-verify -q -c "$SINK" "$(log_of "$SID")"
}

@test "a FIFO planted as the checkpoint sink is refused at once, never waited on" {
	hook <<<"$(pre c1 'echo hi')"
	mkfifo "$T/sink"
	run timeout 20 "$JH_BIN/jh-hook" -c "$CONF" <<<"$(stop_payload)"
	assert_equal "$status" 1
	assert_output --partial "checkpoint sink $T/sink"
}

# injector N NAME: a stand-in for stage N, the program NAME, that runs it
# with tests/faultinject.c and the faults in $T/fail ("none": none).
injector() {
	[ -f "$FI" ] || skip "SKIPPED: no $FI (make BUILD=test build/test/tests/faultinject.so)"
	cat >"$T/inject.$1" <<-EOF
	#!/bin/sh
	read f <"$T/fail" 2>/dev/null || f=none
	[ "\$f" = none ] && exec "$JH_BIN/$2" "\$@"
	LD_PRELOAD="$FI" JH_FI_FAIL="\$f" ASAN_OPTIONS=verify_asan_link_order=0 \\
	    exec "$JH_BIN/$2" "\$@"
	EOF
	chmod 755 "$T/inject.$1"
	echo "stage$1=$T/inject.$1"
}

@test "EIO, ENOSPC and short writes on the log, the sidecar, the ledger and the pinned root: each call is a deny that names the error (a lost sidecar is only a hint), what the log held is kept, and the next call goes on" {
	local line want fault stage n=0 log size
	log=$(log_of "$SID")
	hook <<<"$(pre first 'echo hi')"
	[ "$status" = 0 ]
	while IFS='|' read -r stage fault want; do
		[ -n "$stage" ] || continue
		n=$((n + 1))
		if [ "$stage" = 1 ]; then
			hook_conf "$(injector 1 jh-decide)"
		else
			hook_conf "$(injector 3 jh-chain)"
		fi
		echo "$fault" >"$T/fail"
		cp "$log" "$T/before"
		size=$(stat -c %s "$log")
		# a fault on the pinned root needs a session not seen yet
		case $fault in *roots*) s="$SID-$n" ;; *) s=$SID ;; esac
		hook <<<"$(pre "e$n" 'echo hi' "$s")"
		pre_answer_ok "e$n" "$s" || { echo "$fault: $stderr"; return 1; }
		case $want in
		deny)
			is_deny || { echo "$fault: not denied: $status"; return 1; }
			[[ $stderr == *"Input/output error"* || $stderr == *"short write"* ||
			    $stderr == *"No space left"* || $stderr == *"cannot pin the root"* ]] ||
			    { echo "$fault: the reason: $stderr"; return 1; } ;;
		allow) [ "$status" = 0 ] || { echo "$fault: $stderr"; return 1; } ;;
		esac
		cmp -n "$size" "$T/before" "$log"
		state_ok || { echo "after $fault"; return 1; }
		echo none >"$T/fail"
		hook <<<"$(pre "r$n" 'echo again' "$s")"
		[ "$status" = 0 ] || { echo "after $fault, the next call: $stderr"; return 1; }
		state_ok || { echo "after $fault, the next call"; return 1; }
	done <<-EOF
	3|pwrite:.jhl:1:EIO|deny
	3|pwrite:.jhl:1:SHORT|deny
	3|fsync:.jhl:1:EIO|deny
	3|fsync:.jhl:1:EIO,ftruncate:.jhl:1:EIO|deny
	3|pwrite:.jhl.head:1:EIO|allow
	3|pwrite:.jhl.head:1:SHORT|allow
	1|pwrite:/ledger/:1:EIO|deny
	1|pwrite:/ledger/:1:SHORT|deny
	1|fdatasync:/ledger/:1:EIO|deny
	1|pwrite:/roots/:1:EIO|deny
	1|fsync:/roots/:1:EIO|deny
	EOF
	[ "$n" = 11 ]
}

@test "a root pin cut short by a failed write is never taken for the session's root" {
	local r
	jq -c 'del(.root) | .caps = [{class: "read", path: ["**"]}] | .policies = []' \
	    "$T/grant.json" >"$T/rootless.json"
	seal_grant "$T/rootless.json"
	echo secret >"$T/outside"
	# a project whose path's first half is $T: the pin cut in half
	r="$T/$(printf 'y%.0s' $(seq $((${#T} - 1))))"
	mkdir -p "$r"
	read_call() {
		pre "$1" x "$2" | jq -c --arg f "$3" --arg cwd "$r" \
		    '.cwd = $cwd | .tool_name = "Read" | .tool_input = {file_path: $f}'
	}
	hook_conf
	hook <<<"$(read_call o0 whole "$T/outside")"
	is_deny
	hook_conf "$(injector 1 jh-decide)"
	echo pwrite:/roots/:1:SHORT >"$T/fail"
	hook <<<"$(read_call o1 cut "$r/x")"
	is_deny
	hook_conf
	hook <<<"$(read_call o2 cut "$T/outside")"
	is_deny
}

@test "a state directory remounted read-only: every call is a deny or the host's stop with the reason, nothing changes, and calls go on once it is writable" {
	small_state 1m
	hook <<<"$(pre w1 'echo hi')"
	[ "$status" = 0 ]
	stop_hook
	before=$(state_sum)
	mount -o remount,ro "$MNT"
	hook <<<"$(pre w2 'echo hi')"
	is_deny
	[[ $stderr == *"Read-only file system"* ]] || { echo "$stderr"; return 1; }
	hook <<<"$(pre w3 'echo hi' other)"
	is_deny
	hook <<<"$(post w1 'echo hi')"
	post_answer_ok w1
	[ -n "$output" ]
	run -0 state_sum
	assert_output "$before"
	state_ok
	mount -o remount,rw "$MNT"
	hook <<<"$(pre w4 'echo hi')"
	[ "$status" = 0 ]
	hook <<<"$(post w4 'echo hi')"
	post_answer_ok w4
	[ -z "$output" ]
	state_ok
}

# plant PATH KIND: PATH (moved to PATH.real) replaced by a directory, a
# FIFO, a symbolic link to a copy, or a hard link to a copy.
plant() {
	mv "$1" "$1.real"
	case $2 in
	dir) mkdir "$1" ;;
	fifo) mkfifo -m 600 "$1" ;;
	symlink) cp -a "$1.real" "$T/copy"; ln -s "$T/copy" "$1" ;;
	hardlink) cp -a "$1.real" "$1.copy"; ln "$1.copy" "$1" ;;
	esac
}

# planted PATH: what was planted, as it is now.
planted() {
	if [ -d "$1" ]; then
		(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
	elif [ -p "$1" ]; then
		echo fifo
	else
		sha256sum <"$1"
	fi
}

unplant() {
	rm -rf "$1" "$1.copy" "$T/copy"
	mv "$1.real" "$1"
}

@test "the log, its sidecar or index, the ledger, a pinned root or their directories replaced by a directory, a FIFO or a link: a deny at once with the reason, nothing written there, and the session goes on once it is back" {
	local f k n=0 log ledger
	hook <<<"$(pre d0 'echo hi')"
	[ "$status" = 0 ]
	log=$(log_of "$SID")
	ledger=$(ls "$JH_STATE"/ledger/*)
	for f in "$log" "$log.head" "$log.idx" "$ledger" "$JH_STATE/roots/$(basename "$log" .jhl)" \
	    "$JH_STATE/logs" "$JH_STATE/ledger" "$JH_STATE/roots"; do
		for k in dir fifo symlink hardlink; do
			[ -d "$f" ] && [ "$k" != symlink ] && continue
			n=$((n + 1))
			plant "$f" "$k"
			before=$(planted "$f")
			run --separate-stderr timeout 60 "$JH_BIN/jh-hook" -c "$CONF" <<<"$(pre "d$n" 'echo hi')"
			is_deny || { echo "$f as a $k: $status $output $stderr"; unplant "$f"; return 1; }
			[[ ${stderr,,} == *"not a regular file"* || $stderr == *"symbolic link"* ||
			    $stderr == *"links"* || ${stderr,,} == *"not a directory"* ||
			    $stderr == *"Is a directory"* ]] ||
			    { echo "$f as a $k, the reason: $stderr"; unplant "$f"; return 1; }
			[ "$(planted "$f")" = "$before" ] ||
			    { echo "$f as a $k: written to"; unplant "$f"; return 1; }
			unplant "$f"
		done
		hook <<<"$(pre "d$n.after" 'echo hi')"
		[ "$status" = 0 ] || { echo "$f back: $stderr"; return 1; }
	done
	state_ok
	echo "# $n planted, each denied" >&3
}

@test "jh-proxy with its state on a full or read-only disk: a model call whose hold cannot be recorded is refused before the provider, with the reason; the records verify, and calls go on once there is room" {
	load helpers/claude
	load helpers/proxy
	small_state 256k
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$JH_HOME/proxy.token"
	TOKEN=$(cat "$JH_HOME/proxy.token")
	echo '[{"text":"hello there"}]' >"$T/script.json"
	mock_start "$T/script.json"
	proxy_start
	messages_body 1000 >"$T/body"
	run -0 ph /v1/messages -H 'X-Claude-Code-Session-Id: m1' --data-binary @"$T/body" -w ' %{http_code}'
	assert_output --partial ' 200'
	local up k
	up=$(grep -c '"POST"' "$MOCK_LOG")
	fill
	# the session's log, then a new session's: the hold/1 cannot be chained
	for k in m1 m2 m1 m2; do
		run -0 ph /v1/messages -H "X-Claude-Code-Session-Id: $k" --data-binary @"$T/body" -w ' %{http_code}'
		[[ $output == *" 200" ]] && continue	# the log's last page took it
		assert_output --partial "the hold's receipt cannot be written"
		assert_output --partial ' 402'
	done
	run -0 grep -c '"POST"' "$MOCK_LOG"
	[ "$output" -lt $((up + 4)) ]
	state_ok
	unfill
	mount -o remount,ro "$MNT"
	run -0 ph /v1/messages -H 'X-Claude-Code-Session-Id: m1' --data-binary @"$T/body" -w ' %{http_code}'
	assert_output --partial ' 402'
	assert_output --partial "Read-only file system"
	state_ok
	mount -o remount,rw "$MNT"
	run -0 ph /v1/messages -H 'X-Claude-Code-Session-Id: m1' --data-binary @"$T/body" -w ' %{http_code}'
	assert_output --partial ' 200'
	run -0 ph /v1/messages -H 'X-Claude-Code-Session-Id: m3' --data-binary @"$T/body" -w ' %{http_code}'
	assert_output --partial ' 200'
	proxy_stop
	mock_stop
	state_ok
}

@test "jh-ship with its cursors on a full or read-only disk, or a cursor replaced: the run fails with the reason, the cursor is never moved back or reset, and the next run ships again without a duplicate" {
	load helpers/pg
	pg_start
	PG_STARTED=1
	[ -z "$PG_SKIP" ] || skip "SKIPPED: no PostgreSQL: $PG_SKIP"
	pg_super -f "$PROJECT_ROOT/lib/ship.sql" >/dev/null
	pg_super -c 'CREATE ROLE alice LOGIN IN ROLE jh_shipper'
	small_state 256k
	local k cursor
	for k in 1 2; do hook <<<"$(pre "sh$k" 'echo hi')"; done
	run -0 jh-ship -d user=alice
	cursor="$JH_STATE/ship/$(basename "$(log_of "$SID")" .jhl)"
	cp "$cursor" "$T/cursor.1"
	hook <<<"$(pre sh3 'echo hi')"
	fill
	run -2 --separate-stderr jh-ship -d user=alice
	[[ $stderr == *"No space left on device"* ]] || { echo "$stderr"; return 1; }
	cmp "$T/cursor.1" "$cursor"
	unfill
	mount -o remount,ro "$MNT"
	run -2 --separate-stderr jh-ship -d user=alice
	[[ $stderr == *"Read-only file system"* ]] || { echo "$stderr"; return 1; }
	cmp "$T/cursor.1" "$cursor"
	mount -o remount,rw "$MNT"
	for k in dir fifo symlink; do
		plant "$cursor" "$k"
		run -2 --separate-stderr timeout 60 "$JH_BIN/jh-ship" -d user=alice
		[[ $stderr == *"cursor"* ]] || { echo "$k: $stderr"; unplant "$cursor"; return 1; }
		unplant "$cursor"
		cmp "$T/cursor.1" "$cursor"
	done
	run -0 jh-ship -d user=alice
	# the third was committed by the run whose cursor could not be written
	assert_output --partial '"entries":3,"new":0,"present":1'
	run -0 pg_super -c 'SELECT count(*) FROM joulehook.entries'
	assert_output 3
}

# ledger_file: the grant's ledger.
ledger_file() {
	echo "$JH_STATE/ledger/$GRANT_HEX"
}

@test "a ledger of random bytes, cut short, emptied or grown is refused, never reset; a changed slot is caught by the replay; the receipts mend it" {
	local k l
	for k in 1 2 3; do hook <<<"$(pre "g$k" 'echo hi')"; done
	l=$(ledger_file)
	cp "$l" "$T/ledger.good"
	for k in random cut half empty grown; do
		case $k in
		random) head -c 17600 /dev/urandom >"$l" ;;
		cut) head -c 17000 "$T/ledger.good" >"$l" ;;
		half) head -c 8800 "$T/ledger.good" >"$l" ;;
		empty) : >"$l" ;;
		grown) { cat "$T/ledger.good"; echo x; } >"$l" ;;
		esac
		cp "$l" "$T/ledger.bad"
		hook <<<"$(pre "c$k" 'echo hi')"
		is_deny || { echo "$k: $status $output"; return 1; }
		[[ $stderr == *"damaged"* ]] || { echo "$k: $stderr"; return 1; }
		run -2 jh-decide -I -g "$JH_HOME/grant"
		assert_output --partial "damaged; refusing to reset it"
		run -1 jh-verify -L "$JH_STATE/ledger" "$(log_of "$SID")"
		cmp "$T/ledger.bad" "$l"
	done
	# one byte of the newer slot: the older is read, and the replay
	# finds the ledger behind its receipts
	cp "$T/ledger.good" "$l"
	seq=$(od -An -tu8 -j 8 -N 8 "$l" | tr -d ' ')
	seq1=$(od -An -tu8 -j 8808 -N 8 "$l" | tr -d ' ')
	[ "$seq" -gt "$seq1" ] && off=100 || off=8900
	flip_byte "$l" "$off"
	run -1 jh-verify -L "$JH_STATE/ledger" "$(log_of "$SID")"
	run -0 jq -r 'select(.ledger) | .ledger.ok' <<<"$output"
	assert_output false
	# mended from the receipts: a damaged ledger is removed by hand first
	rm "$l"
	jh-verify -L "$JH_STATE/ledger" "$(log_of "$SID")" | jh-decide -I -g "$JH_HOME/grant" -r - 2>/dev/null
	hook <<<"$(pre mended 'echo hi')"
	[ "$status" = 0 ]
	state_ok
}

# sidecar_ok LOG: the sidecar names the log's last entry, with the right
# count, end and hash, and passes its CRC.
sidecar_ok() {
	local head entries
	head=$(jh-verify "$1" | jq -r 'select(.log) | .log.head')
	entries=$(jh-verify "$1" | jq -r 'select(.log) | .log.entries')
	/usr/bin/python3 - "$1.head" "$entries" "$(stat -c %s "$1")" "$head" <<-'PY'
	import struct, sys, zlib
	d = open(sys.argv[1], "rb").read()
	assert len(d) == 208, len(d)
	assert d[:8] == b"JHHEAD3\0", d[:8]
	assert struct.unpack_from("<I", d, 200)[0] == zlib.crc32(d[:200]), "crc"
	count, last, end = struct.unpack_from("<QQQ", d, 8)
	assert count == int(sys.argv[2]), (count, sys.argv[2])
	assert end == int(sys.argv[3]), (end, sys.argv[3])
	assert d[32:64].hex() == sys.argv[4], "hash"
	PY
}

@test "a sidecar of random bytes, cut short, emptied, or another log's: never trusted, rebuilt from the log at the next append" {
	local k log
	for k in 1 2 3; do hook <<<"$(pre "h$k" 'echo hi')"; done
	hook <<<"$(pre other 'echo hi' other-session)"
	log=$(log_of "$SID")
	sidecar_ok "$log"
	for k in random cut empty other stale; do
		case $k in
		random) head -c 208 /dev/urandom >"$log.head" ;;
		cut) head -c 100 "$log.head" >"$T/h" && cat "$T/h" >"$log.head" ;;
		empty) : >"$log.head" ;;
		other) cat "$(log_of other-session).head" >"$log.head" ;;
		stale) cp "$log.head" "$T/stale" ;;
		esac
		# the status line, which reads it, does not take it either
		run -0 jh-status -c "$CONF" <<<"{\"session_id\":\"$SID\"}"
		case $k in
		random | cut | empty) assert_output --partial "chain unchecked: the head record is damaged" ;;
		other) assert_output --partial "stale" ;;
		esac
		hook <<<"$(pre "s$k" 'echo hi')"
		[ "$status" = 0 ] || { echo "$k: $stderr"; return 1; }
		[ "$k" != stale ] || cat "$T/stale" >"$log.head"
		[ "$k" = stale ] || sidecar_ok "$log" || { echo "after $k"; return 1; }
	done
	# the stale one names an entry that no longer ends the log
	run -0 jh-status -c "$CONF" <<<"{\"session_id\":\"$SID\"}"
	assert_output --partial "stale"
	hook <<<"$(pre after 'echo hi')"
	sidecar_ok "$log"
	state_ok
	run -0 jh-status -c "$CONF" <<<"{\"session_id\":\"$SID\"}"
	assert_output --partial "9 allow 0 deny · chain 9 ok"
}

# decision_hash LOG ID: the SHA-256 of the log's entry that holds the
# decision on ID, as a result/1 names it.
decision_hash() {
	/usr/bin/python3 - "$@" <<-'PY'
	import cbor2, hashlib, io, sys
	data = open(sys.argv[1], "rb").read()
	f = io.BytesIO(data)
	while f.tell() < len(data):
	    start = f.tell()
	    entry = cbor2.load(f)
	    raw = data[start:f.tell()]
	    receipt = cbor2.loads(cbor2.loads(entry.value[2])["receipt"])
	    core = cbor2.loads(receipt.value[2])
	    if core.get("kind") == "decision/1" and core.get("tool_use_id") == sys.argv[2]:
	        print("sha256:" + hashlib.sha256(raw).hexdigest())
	        break
	PY
}

# idx_point IDX FROM TO: the index slot of call FROM made to name the
# entry the slot of call TO names, its tag and CRC right.
idx_point() {
	/usr/bin/python3 - "$@" <<-'PY'
	import hashlib, struct, sys, zlib
	idx = bytearray(open(sys.argv[1], "rb").read())
	def slot(key):
	    tag = hashlib.sha256(b"joulehook/idx\0call\0" + key.encode()).digest()[:16]
	    return tag, struct.unpack_from("<I", tag, 0)[0] % 4096
	ta, sa = slot(sys.argv[2])
	tb, sb = slot(sys.argv[3])
	assert idx[32 * sb:32 * sb + 16] == tb
	rec = bytearray(ta) + idx[32 * sb + 16:32 * sb + 28]
	rec += struct.pack("<I", zlib.crc32(bytes(rec)))
	idx += bytes(max(0, 32 * sa + 32 - len(idx)))
	idx[32 * sa:32 * sa + 32] = rec
	open(sys.argv[1], "wb").write(idx)
	PY
}

@test "an index of random bytes, emptied, another log's, or naming another call's entry is never trusted: after the tool, each call's result names its own decision" {
	local k n=0 log
	for k in 1 2 3 4 5 6; do hook <<<"$(pre "x$k" "echo $k")"; done
	hook <<<"$(pre other 'echo hi' other-session)"
	log=$(log_of "$SID")
	[ -s "$log.idx" ]
	for k in pointed random empty other; do
		n=$((n + 1))
		case $k in
		random) head -c 131072 /dev/urandom >"$log.idx" ;;
		empty) : >"$log.idx" ;;
		other) cat "$(log_of other-session).idx" >"$log.idx" ;;
		pointed) idx_point "$log.idx" "x$n" x6 ;;
		esac
		hook <<<"$(post "x$n" "echo $n")"
		post_answer_ok "x$n" || { echo "$k: $stderr"; return 1; }
		[ -z "$output" ] || { echo "$k: $output"; return 1; }
		run -0 sh -c "jh-verify '$log' | jq -r --arg id x$n 'select(.kind == \"result/1\" and .core.tool_use_id == \$id) | .core.decision'"
		assert_output "$(decision_hash "$log" "x$n")"
	done
	state_ok
}

@test "a checkpoint of random bytes, cut short, emptied or with a byte changed fails jh-verify -c, saying why" {
	local k
	hook <<<"$(pre k1 'echo hi')"
	jh-chain -c -i "$SID" >"$T/cp.good"
	run -0 jh-verify -q -c "$T/cp.good" "$(log_of "$SID")"
	for k in random cut empty flipped; do
		case $k in
		random) head -c 300 /dev/urandom >"$T/cp" ;;
		cut) head -c 100 "$T/cp.good" >"$T/cp" ;;
		empty) : >"$T/cp" ;;
		flipped) cp "$T/cp.good" "$T/cp"; flip_byte "$T/cp" 150 ;;
		esac
		run -1 --separate-stderr jh-verify -q -c "$T/cp" "$(log_of "$SID")"
		[ -n "$stderr" ] && [[ $stderr != *": " ]] || { echo "$k: '$stderr'"; return 1; }
	done
	run -1 --separate-stderr jh-verify -q -c "$T/cp" "$(log_of "$SID")"
	run -0 jh-verify -q "$(log_of "$SID")"
}

# at MS: the stages' clock, in Unix milliseconds, as the test build's
# now= line of the config sets it, in whatever mode the hook runs.
at() {
	hook_conf "now=$1"
}

# clock_bin MS REPLY-MS: the clock MS for every stage but the reply
# stage, which gets REPLY-MS: a bindir of stand-ins that run each program
# with its JH_NOW, which the config names.  Only stages the hook execs
# can be given a clock of their own (fast=0).
clock_bin() {
	local p
	mkdir -p "$T/clockbin"
	for p in jh-normalize jh-decide jh-seal jh-chain jh-result; do
		cat >"$T/clockbin/$p" <<-EOF
		#!/bin/sh
		case " \$* " in *" -r "*) export JH_NOW=$2 ;; *) export JH_NOW=$1 ;; esac
		exec "$JH_BIN/$p" "\$@"
		EOF
		chmod 755 "$T/clockbin/$p"
	done
	hook_conf "bindir=$T/clockbin" fast=0
}

@test "a clock that jumps around the grant's nbf and exp: before nbf and from exp on the hook denies with the reason, in between it allows" {
	local nbf=2000000000 exp=2000000100 k=0
	grant_doc "$nbf" "$exp" >"$T/grant.json"
	seal_grant "$T/grant.json"
	while read -r ms want why; do
		k=$((k + 1))
		at "$ms"
		# a session each, so that only the grant's times decide
		hook <<<"$(pre "t$k" 'echo hi' "clock-$k")"
		case $want in
		allow) [ "$status" = 0 ] && [ -z "$output" ] || { echo "at $ms: $status $stderr"; return 1; } ;;
		deny) is_deny && [[ $stderr == *"$why"* ]] || { echo "at $ms: $status $stderr"; return 1; } ;;
		esac
		pre_answer_ok "t$k" "clock-$k"
	done <<-EOF
	$((nbf * 1000 - 1)) deny the grant is not valid before $nbf
	$((nbf * 1000)) allow
	$((exp * 1000 - 1)) allow
	$((exp * 1000)) deny the grant expired at $exp
	$((exp * 1000 + 86400000)) deny the grant expired at $exp
	$((nbf * 1000 - 86400000)) deny the grant is not valid before $nbf
	$((nbf * 1000 + 50000)) allow
	EOF
	state_ok
}

@test "a clock that jumps back across a session: a receipt within a minute of the head is chained, one older is refused and denied, the log unchanged; the reply stage denies a receipt whose time is not its own" {
	local t0=1800000000000 log size off
	log=$(log_of "$SID")
	at "$t0"
	hook <<<"$(pre b1 'echo hi')"
	[ "$status" = 0 ]
	# 30 s back: out of order, within jh-chain's minute
	at $((t0 - 30000))
	hook <<<"$(pre b2 'echo hi')"
	[ "$status" = 0 ] || { echo "$stderr"; return 1; }
	pre_answer_ok b2
	# two minutes back: older than the head allows
	at $((t0 - 120000))
	size=$(stat -c %s "$log")
	hook <<<"$(pre b3 'echo hi')"
	is_deny
	[[ $stderr == *"predates the head"* ]] || { echo "$stderr"; return 1; }
	assert_equal "$(stat -c %s "$log")" "$size"
	# an hour on, then back to where it was
	at $((t0 + 3600000))
	hook <<<"$(pre b4 'echo hi')"
	[ "$status" = 0 ]
	at "$t0"
	hook <<<"$(pre b5 'echo hi')"
	is_deny
	[[ $stderr == *"predates the head"* ]]
	# the reply stage's clock 9 s off the others' (deadline_ms 8000), on
	# either side: the decision is chained, the host denied
	for off in 9000 -9000; do
		clock_bin $((t0 + 3700000)) $((t0 + 3700000 + off))
		hook <<<"$(pre "r$off" 'echo hi')"
		is_deny
		[[ $stderr == *"the receipt is stale"* ]] || { echo "$stderr"; return 1; }
	done
	# and after a tool ran: the stop
	at $((t0 + 3700000))
	hook <<<"$(pre p1 'echo hi')"
	[ "$status" = 0 ]
	clock_bin $((t0 + 3700000)) $((t0 + 3709000))
	hook <<<"$(post p1 'echo hi')"
	post_answer_ok p1
	[[ $output == *"stale"* ]] || { echo "$output"; return 1; }
	at $((t0 + 3700000))
	hook <<<"$(pre after 'echo hi')"
	[ "$status" = 0 ]
	state_ok
	run -0 sh -c "jh-verify '$log' | jq -r 'select(.kind == \"decision/1\") | .core.tool_use_id' | tr '\n' ' '"
	assert_output "b1 b2 b4 r9000 r-9000 p1 after "
}
