#!/usr/bin/env bats
# jh-ship: two developers' sessions shipped to a real PostgreSQL 15
# (tests/helpers/pg.bash), idempotently and without a gap, into tables the
# shipping role cannot change, and verified back from the database.

load test_helper/common
load helpers/pg

setup_file() {
	pg_start
	[ -z "$PG_SKIP" ] || return 0
	pg_super -f "$BATS_TEST_DIRNAME/../lib/ship.sql"
	pg_super <<-'EOF'
	CREATE ROLE alice LOGIN IN ROLE jh_shipper;
	CREATE ROLE bob LOGIN IN ROLE jh_shipper;
	CREATE ROLE lead LOGIN IN ROLE jh_auditor;
	-- every privilege on the tables, but not their owner
	CREATE ROLE admin LOGIN;
	GRANT USAGE ON SCHEMA joulehook TO admin;
	GRANT ALL ON ALL TABLES IN SCHEMA joulehook TO admin;
	EOF
}

teardown_file() {
	pg_stop
}

setup() {
	[ -z "$PG_SKIP" ] || skip "no PostgreSQL: $PG_SKIP"
	_common_setup
	SEQ="/usr/bin/python3 $PROJECT_ROOT/tests/helpers/cborseq.py"
	pg_super -c 'TRUNCATE joulehook.entries, joulehook.checkpoints'
}

# dev NAME: that developer's JH_HOME and JH_STATE (keys made once), and
# the database role jh-ship connects as.
dev() {
	export JH_HOME="$T/$1/jh" JH_STATE="$T/$1/state" DB="user=$1"
	if [ ! -d "$JH_HOME" ]; then
		mkdir -p "$JH_HOME" "$JH_STATE"
		chmod 700 "$JH_HOME" "$JH_STATE"
		jh_keys
	fi
}

# chain N SESSION [VERDICT]: N decisions chained into SESSION's log
chain() {
	decision_json "${3:-allow}" | jq -c --arg s "$2" --argjson n "$1" '
	    range($n) as $i | .session_id=$s | .tool_use_id="toolu_\($i)" |
	    if .verdict == "deny" then .code="policy-deny" |
	    .rule="no-force-push" else . end' | jh-seal | jh-chain >/dev/null
}

logof() {
	printf '%s/logs/%s.jhl\n' "$JH_STATE" \
	    "$(printf '%s' "$1" | sha256sum | cut -c1-64)"
}

cursorof() {
	printf '%s/ship/%s\n' "$JH_STATE" \
	    "$(printf '%s' "$1" | sha256sum | cut -c1-64)"
}

rows() {
	pg_super -c "SELECT count(*) FROM joulehook.$1"
}

@test "two developers' sessions ship, and the team lead's views count them by developer" {
	dev alice
	chain 3 a1
	chain 1 a1 deny
	jh-chain -c -i a1 >>"$T/alice/sink"
	run -0 jh-ship -d "$DB" -c "$T/alice/sink"
	assert_line --partial '"session":"a1","entries":4,"new":4,"present":0}}'
	assert_line --partial '"read":1,"new":1}}'
	dev bob
	chain 2 b1
	chain 1 b2
	jh-chain -c -i b1 >>"$T/bob/sink"
	run -0 jh-ship -d "$DB" -c "$T/bob/sink"
	assert_equal "$(grep -c '"new":' <<<"$output")" 3
	run pg_as lead -c "SELECT developer, host, decisions, allow, deny,
	    spent_uj, sessions FROM joulehook.spend ORDER BY developer"
	assert_output "alice|claude-code|4|3|1|6000000|1
bob|claude-code|3|3|0|6000000|2"
	run pg_as lead -c "SELECT rule, code, denials, developers
	    FROM joulehook.denials"
	assert_output "no-force-push|policy-deny|1|1"
	run pg_as lead -c "SELECT session, checkpoint_count, entries, status
	    FROM joulehook.checkpoint_status ORDER BY session"
	assert_output "a1|4|4|ok
b1|2|2|ok"
	# the raw column is the log, byte for byte, and core the receipt
	run pg_as lead -c "SELECT kind, core->>'verdict', shipped_by, steward
	    FROM joulehook.entries WHERE session = 'b2'"
	assert_output "decision/1|allow|bob|$(cat "$JH_HOME/steward.key.pub")"
}

@test "a second run ships nothing new; a lost cursor ships again without a duplicate" {
	dev alice
	chain 3 s
	run -0 jh-ship -d "$DB"
	assert_output --partial '"entries":3,"new":3,"present":0'
	run -0 jh-ship -d "$DB"
	assert_output --partial '"entries":3,"new":0,"present":0'
	rm "$(cursorof s)"
	run -0 jh-ship -d "$DB"
	assert_output --partial '"entries":3,"new":0,"present":3'
	assert_equal "$(rows entries)" 3
	chain 2 s
	run -0 jh-ship -d "$DB"
	assert_output --partial '"entries":5,"new":2,"present":0'
	assert_equal "$(rows entries)" 5
	run pg_super -c "SELECT string_agg(seq::text, ' ' ORDER BY seq)
	    FROM joulehook.entries"
	assert_output "0 1 2 3 4"
}

@test "a log longer than a batch ships in several transactions" {
	dev alice
	chain 300 s
	run -0 jh-ship -d "$DB"
	assert_output --partial '"entries":300,"new":300,"present":0'
	assert_equal "$(rows entries)" 300
	run cat "$(cursorof s)"
	assert_output --regexp '^jh-ship/1 300 [0-9]+ [0-9]+ [0-9a-f]{64}$'
}

@test "a gap is refused: by the database, and by jh-ship before it" {
	dev alice
	# an entry 2 of a session the database holds nothing of
	run -1 pg_as alice -c "INSERT INTO joulehook.entries (entry_hash,
	    session_hash, seq, prev, raw, receipt, kind, core, ts, steward)
	    VALUES (sha256('\\x01'), sha256('\\x02'), 2, sha256('\\x03'),
	    '\\x01', '\\x01', 'decision/1', '{}', 0, 'x')"
	assert_output --partial 'gap: entry 2 of session'
	run -1 pg_as alice -c "INSERT INTO joulehook.entries (entry_hash,
	    session_hash, seq, prev, raw, receipt, kind, core, ts, steward)
	    VALUES (sha256('\\x01'), sha256('\\x02'), 0, sha256('\\x03'),
	    '\\x01', '\\x01', 'decision/1', '{}', 0, 'x')"
	assert_output --partial 'entry 0 of session'
	# the database lost the last two entries (its owner removed them):
	# the cursor is ahead of it, and the next entry is refused
	chain 4 s
	run -0 jh-ship -d "$DB"
	pg_super -c "DELETE FROM joulehook.entries WHERE seq >= 2"
	cp "$(cursorof s)" "$T/cursor"
	chain 1 s
	run -1 --separate-stderr jh-ship -d "$DB"
	[[ $stderr == *"gap: entry 4 of session"* ]]
	cmp "$T/cursor" "$(cursorof s)"
	assert_equal "$(rows entries)" 2
	# a file missing an entry: jh-ship ships up to the gap, not past it
	mkdir "$T/e"
	$SEQ split "$(logof s)" "$T/e"
	pg_super -c 'TRUNCATE joulehook.entries'
	rm "$(cursorof s)"
	cat "$T/e/0" "$T/e/1" "$T/e/3" >"$T/holed.jhl"
	run -1 --separate-stderr jh-ship -d "$DB" "$T/holed.jhl"
	[[ $stderr == *"seq 3 follows seq 1"* ]]
	assert_output --partial '"entries":2,"new":2'
	assert_equal "$(rows entries)" 2
}

@test "the shipping role cannot UPDATE, DELETE or TRUNCATE; a role granted them is still refused; the owner can" {
	dev alice
	chain 2 s
	jh-chain -c -i s >"$T/cp"
	jh-ship -d "$DB" -c "$T/cp" >/dev/null
	local t op
	for t in entries checkpoints; do
		for op in "UPDATE joulehook.$t SET ts = 0" \
		    "DELETE FROM joulehook.$t" "TRUNCATE joulehook.$t"; do
			run -1 pg_as alice -c "$op"
			assert_output --partial "permission denied for table $t"
			run -1 pg_as admin -c "$op"
			assert_output --partial "joulehook.$t is append-only: ${op%% *} refused for admin"
		done
	done
	assert_equal "$(rows entries)" 2
	assert_equal "$(rows checkpoints)" 1
	# nor can a shipper ship as someone else
	run -0 pg_as alice -c "INSERT INTO joulehook.checkpoints (cp_hash,
	    session_hash, count, head, raw, core, ts, steward, shipped_by)
	    VALUES (sha256('\\x05'), sha256('\\x05'), 1, sha256('\\x05'),
	    '\\x05', '{}', 0, 'x', 'bob')"
	run pg_super -c "SELECT shipped_by FROM joulehook.checkpoints
	    WHERE ts = 0"
	assert_output alice
	run -0 pg_super -c "UPDATE joulehook.entries SET ts = ts"
	run -0 pg_super -c "DELETE FROM joulehook.entries WHERE seq = 1"
	assert_equal "$(rows entries)" 1
	run -0 pg_super -c "TRUNCATE joulehook.entries, joulehook.checkpoints"
	assert_equal "$(rows entries)" 0
}

@test "jh-verify on the export from the database is jh-verify on the file" {
	dev alice
	chain 3 a1
	chain 2 a1 deny
	jh-chain -c -i a1 >"$T/sink"
	chain 1 a1
	jh-chain -c -i a1 >>"$T/sink"
	jh-ship -d "$DB" -c "$T/sink" >/dev/null
	jh-ship -d "$DB" -e a1 >"$T/export"
	cmp "$T/export" "$(logof a1)"
	run -0 sh -c "jh-ship -d '$DB' -e a1 | jh-verify"
	assert_equal "$output" "$(jh-verify <"$(logof a1)")"
	assert_output --partial '"entries":6,'
	jh-ship -d "$DB" -E a1 >"$T/cps"
	cmp "$T/cps" "$T/sink"
	run -0 jh-verify -c "$T/cps" "$T/export"
	assert_output --partial '"extent":"matches the checkpoint"'
	run -1 --separate-stderr jh-ship -d "$DB" -e nosuch
	[[ $stderr == *"holds no entry of session nosuch"* ]]
}

@test "a log cut on disk: jh-ship refuses, and the database's copy holds against its checkpoint while the cut file does not" {
	dev alice
	chain 4 s
	jh-chain -c -i s >"$T/sink"
	jh-ship -d "$DB" -c "$T/sink" >/dev/null
	mkdir "$T/e"
	$SEQ split "$(logof s)" "$T/e"
	truncate -s "-$(stat -c %s "$T/e/3")" "$(logof s)"
	run -1 --separate-stderr jh-ship -d "$DB"
	[[ $stderr == *"shorter than the 4 entries"*"the log was cut; refused"* ]]
	jh-ship -d "$DB" -e s >"$T/export"
	jh-ship -d "$DB" -E s >"$T/cps"
	run -0 jh-verify -c "$T/cps" "$T/export"
	assert_output --partial '"extent":"matches the checkpoint"'
	run -1 jh-verify -c "$T/cps" "$(logof s)"
	assert_output --partial 'truncated: the checkpoint has 4 entries, the log 3'
	# cut before its last entries were shipped: the checkpoint, shipped,
	# says so in the database
	chain 2 t
	jh-ship -d "$DB" "$(logof t)" >/dev/null
	chain 1 t
	jh-chain -c -i t >>"$T/sink"
	$SEQ droplast "$(logof t)" "$T/t.jhl"
	cat "$T/t.jhl" >"$(logof t)"
	run -0 jh-ship -d "$DB" -c "$T/sink" "$(logof t)"
	run pg_as lead -c "SELECT session, checkpoint_count, entries, status
	    FROM joulehook.checkpoint_status WHERE status <> 'ok'"
	assert_output "t|3|2|missing"
	# the team lead's queries in README.md run, and say the same
	sed -n '/^```sql$/,/^```$/p' "$PROJECT_ROOT/README.md" | sed '1d;$d' \
	    >"$T/lead.sql"
	[ -s "$T/lead.sql" ]
	run -0 pg_as lead -f "$T/lead.sql"
	assert_line "t|alice|3|2|missing"
	assert_line --regexp "^alice\|\|claude-code\|[0-9-]+\|12000000\|6\|6\|0\|0\|0\|0$"
}

# An entry's length altered to swallow the entries after it makes them
# look like an append in progress: never shipped as the end, nor waited on.
@test "an entry's length altered mid-log: jh-ship refuses it and what follows, saying why" {
	dev alice
	chain 5 s
	mkdir "$T/e"
	$SEQ split "$(logof s)" "$T/e"
	off=$(( $(stat -c %s "$T/e/0") + $(stat -c %s "$T/e/1") + 44 ))
	printf '\xff\xff' | dd of="$(logof s)" bs=1 seek="$off" conv=notrunc status=none
	run -1 --separate-stderr jh-ship -d "$DB"
	[[ $stderr == *"its length was altered"*"not shipped, nor anything after it"* ]] || { echo "$stderr"; false; }
	run -0 rows entries
	assert_output --partial "2"
}

@test "a damaged cursor is an error, never reset; one that names another entry is a rewritten log" {
	dev alice
	chain 2 s
	jh-ship -d "$DB" >/dev/null
	c=$(cursorof s)
	cp "$c" "$T/good"
	echo 'jh-ship/1 2 garbage' >"$c"
	run -2 --separate-stderr jh-ship -d "$DB"
	[[ $stderr == *"is damaged; it is not reset"* ]]
	assert_equal "$(cat "$c")" 'jh-ship/1 2 garbage'
	: >"$c"
	run -2 jh-ship -d "$DB"
	# the right shape, another hash: the log is not what was shipped
	sed -E 's/[1-9a-f]$/0/; t; s/0$/1/' "$T/good" >"$c"
	! cmp -s "$T/good" "$c"
	run -1 --separate-stderr jh-ship -d "$DB"
	[[ $stderr == *"the log was rewritten; refused"* ]]
	cp "$T/good" "$c"
	run -0 jh-ship -d "$DB"
}

@test "-w ships as the log grows, never holding the log, and ends on SIGTERM" {
	dev alice
	chain 1 s
	jh-chain -c -i s >"$T/sink"
	jh-ship -d "$DB" -c "$T/sink" -w 1 >"$T/w.out" 2>"$T/w.err" &
	pid=$!
	wait_rows() {
		local i
		for ((i = 0; i < 50; i++)); do
			[ "$(rows "$1")" = "$2" ] && return 0
			sleep 0.1
		done
		return 1
	}
	wait_rows entries 1
	wait_rows checkpoints 1
	chain 2 s
	jh-chain -c -i s >>"$T/sink"
	wait_rows entries 3
	wait_rows checkpoints 2
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 0
	run cat "$T/w.err"
	assert_output ""
	assert_equal "$(grep -c '"new":' "$T/w.out")" 4
}

@test "a NUL in a text reaches jsonb as U+FFFD; the raw bytes keep it" {
	dev alice
	decision_json | jq -c '.session_id="nul\u0000id"' | jh-seal |
	    jh-chain >/dev/null
	run -0 jh-ship -d "$DB"
	run pg_super -c "SELECT session = E'nul\\uFFFDid',
	    position('\\x6e756c006964'::bytea in raw) > 0 FROM joulehook.entries"
	assert_output 't|t'
}

@test "usage errors, no stewards, and a database it cannot reach" {
	dev alice
	chain 1 s
	run -2 jh-ship -e s -c x
	run -2 jh-ship -e s -E s
	run -2 jh-ship -w 0
	run -2 jh-ship -e s extra
	run -2 --separate-stderr jh-ship -d "host=$T/nowhere"
	[[ $stderr == *"database: "* ]]
	run -2 --separate-stderr env JH_HOME="$T/empty" jh-ship -d "$DB"
	[[ $stderr == *"no trusted stewards"* ]]
	run -0 jh-ship -h
	assert_line --index 0 --partial 'usage: jh-ship'
}
