# A throwaway PostgreSQL 15 for a suite: initdb and pg_ctl in a temporary
# directory, listening only on a Unix socket there (no TCP), trust
# authentication on that socket only.  initdb refuses root, so as root
# (CI) the server runs as nobody, and the suite connects as that OS
# user's superuser role.
#
#   pg_start    in setup_file: sets PG_SKIP (why there is no server) or
#               exports PGHOST, PGPORT, PGDATABASE and PG_SUPER
#   pg_stop     in teardown_file
#   pg_super    psql as the superuser (who owns the schema)
#   pg_as ROLE  psql as ROLE

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}

# Runs a command as the server's OS user.
pg_run() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=nobody --regid="$(id -g nobody)" \
		    --clear-groups -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	local top

	PG_SKIP=
	if [ ! -x "$PG_BINDIR/initdb" ] || [ ! -x "$PG_BINDIR/pg_ctl" ]; then
		PG_SKIP="PostgreSQL 15 is not installed ($PG_BINDIR/initdb): apt-get install postgresql-15 (scripts/deps installs it)"
		export PG_SKIP
		return 0
	fi
	if ! command -v psql >/dev/null; then
		PG_SKIP="psql is not installed: apt-get install postgresql-client-15"
		export PG_SKIP
		return 0
	fi
	top=$(mktemp -d /tmp/jh-pg.XXXXXX)
	PG_TOP=$top
	mkdir "$top/sock"
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$top" "$top/sock"
		PG_SUPER=nobody
	else
		PG_SUPER=$(id -un)
	fi
	chmod 700 "$top"
	if ! (cd "$top" && pg_run "$PG_BINDIR/initdb" -D "$top/data" \
	    -U "$PG_SUPER" -A trust -E UTF8 --locale=C.UTF-8 \
	    >"$top/initdb.log" 2>&1); then
		PG_SKIP="initdb failed: $(tail -3 "$top/initdb.log")"
		export PG_SKIP
		return 0
	fi
	if ! (cd "$top" && pg_run "$PG_BINDIR/pg_ctl" -D "$top/data" -w \
	    -l "$top/server.log" -o "-k $top/sock -c listen_addresses= -p 5432 -c fsync=off" \
	    start >"$top/pg_ctl.log" 2>&1); then
		PG_SKIP="the server did not start: $(tail -3 "$top/server.log")"
		export PG_SKIP
		return 0
	fi
	export PG_TOP PG_SUPER PGHOST="$top/sock" PGPORT=5432 \
	    PGDATABASE=joulehook
	PGUSER=$PG_SUPER psql -q -X -v ON_ERROR_STOP=1 -d postgres \
	    -c 'CREATE DATABASE joulehook' >/dev/null
}

pg_stop() {
	[ -n "${PG_TOP:-}" ] || return 0
	(cd "$PG_TOP" && pg_run "$PG_BINDIR/pg_ctl" -D "$PG_TOP/data" -m immediate \
	    stop >/dev/null 2>&1) || true
	rm -rf "$PG_TOP"
}

pg_super() {
	PGUSER=$PG_SUPER psql -q -X -A -t -v ON_ERROR_STOP=1 "$@"
}

pg_as() {
	local role=$1
	shift
	PGUSER=$role psql -q -X -A -t -v ON_ERROR_STOP=1 "$@"
}
