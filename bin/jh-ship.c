/*
 * jh-ship: ship sessions' chained logs and checkpoints to PostgreSQL,
 * idempotently and from a durable local cursor; export a session's
 * entries or checkpoints back as the exact bytes, for jh-verify.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "statefs.h"
#include "status.h"
#include "util.h"
#include "verify.h"

#define PROG		"jh-ship"
#define BATCH		256	/* entries per transaction */
#define CURSOR_MAGIC	"jh-ship/1"

struct opts {
	const char *conninfo;
	char state[4096];
	int shipfd;		/* <state>/ship, the cursors */
	const char *cpfile;
	uint64_t cp_off;	/* -w: how far the checkpoint file was shipped */
	unsigned interval;	/* -w seconds; 0: one pass */
	struct jh_keyset keys;
	struct jh_verifier v;
	PGconn *db;
};

/* What was shipped of one session: the last entry's extent and hash. */
struct cursor {
	uint64_t count;
	uint64_t off;
	uint64_t end;
	uint8_t hash[JH_HASH_LEN];
};

static volatile sig_atomic_t stop;

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-c checkpoints] [-d conninfo] [-S statedir] "
	    "[-s stewards]\n"
	    "               [-w seconds] [file ...]\n"
	    "       %s [-d conninfo] -e session | -E session\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
db_open(struct opts *o)
{
	const char *keys[] = { "dbname", "application_name",
	    "client_encoding", NULL };
	const char *vals[] = { o->conninfo, PROG, "UTF8", NULL };

	if (o->db != NULL && PQstatus(o->db) == CONNECTION_OK)
		return (0);
	if (o->db != NULL)
		PQfinish(o->db);
	o->db = PQconnectdbParams(keys, vals, 1);
	if (o->db == NULL || PQstatus(o->db) != CONNECTION_OK) {
		warnx("database: %s", o->db != NULL ?
		    PQerrorMessage(o->db) : "out of memory");
		return (-1);
	}
	return (0);
}

/*
 * Runs a statement; 0 when it succeeded, else the exit status its failure
 * earns: 1 when the database refused the data (an integrity rule, the
 * schema's gap and append-only rules, SQLSTATE class 23 or JH), 2 when it
 * could not be done.  *rows, when given, gets the rows it affected.
 */
static int
db_exec(struct opts *o, const char *what, const char *sql, int n,
    const char *const *vals, const int *lens, const int *fmts, long *rows)
{
	PGresult *r;
	const char *st;
	int rc = 0;

	r = PQexecParams(o->db, sql, n, NULL, vals, lens, fmts, 0);
	if (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
		st = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) :
		    NULL;
		rc = st != NULL && (strncmp(st, "23", 2) == 0 ||
		    strncmp(st, "JH", 2) == 0) ? 1 : 2;
		warnx("%s: %s", what, r != NULL ? PQresultErrorMessage(r) :
		    PQerrorMessage(o->db));
	} else if (rows != NULL)
		*rows = strtol(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return (rc);
}

static int
db_simple(struct opts *o, const char *sql)
{
	return (db_exec(o, sql, sql, 0, NULL, NULL, NULL, NULL));
}

/*
 * A core as JSON for a jsonb column.  PostgreSQL's jsonb cannot hold
 * U+0000, so an escaped NUL in a text becomes U+FFFD there (same length);
 * the raw column keeps the evidence.
 */
static int
core_json(struct jh_buf *j, const struct jh_cbor *core)
{
	size_t i;

	jh_buf_reset(j);
	jh_cbor_to_json(j, core);
	jh_buf_addc(j, '\0');
	if (j->oom)
		return (-1);
	for (i = 0; i + 1 < j->len; i++) {
		if (j->p[i] != '\\')
			continue;
		if (j->p[i + 1] == 'u' && i + 6 <= j->len &&
		    memcmp(j->p + i + 2, "0000", 4) == 0)
			memcpy(j->p + i + 2, "fffd", 4);
		i++;
	}
	return (0);
}

static int
put_uint(char *buf, size_t sz, const struct jh_cbor *v)
{
	return (snprintf(buf, sz, "%llu", (unsigned long long)(v != NULL &&
	    v->type == JH_CBOR_UINT ? v->u : 0)));
}

/* The cursor of session hex, or count 0 when there is none.  -1: damaged. */
static int
cursor_read(struct opts *o, const char *hex, struct cursor *c)
{
	struct jh_err e;
	char buf[256], magic[16], h[2 * JH_HASH_LEN + 1], nl;
	unsigned long long count, off, end;
	ssize_t n;
	int fd;

	memset(c, 0, sizeof(*c));
	if ((fd = jh_st_file(o->shipfd, hex, &e)) == -1) {
		if (errno == ENOENT)
			return (0);
		warnx("cursor %s: %s", hex, e.msg);
		return (-1);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		warnx("cursor %s/ship/%s: %s", o->state, hex,
		    n == 0 ? "empty" : strerror(errno));
		return (-1);
	}
	buf[n] = '\0';
	if (sscanf(buf, "%15s %llu %llu %llu %64[0-9a-f]%c", magic, &count,
	    &off, &end, h, &nl) != 6 || nl != '\n' || buf[n - 1] != '\n' ||
	    strlen(buf) != (size_t)n || strcmp(magic, CURSOR_MAGIC) != 0 ||
	    strlen(h) != 2 * JH_HASH_LEN || count == 0 || off >= end ||
	    jh_unhex(c->hash, JH_HASH_LEN, h, strlen(h)) == -1) {
		warnx("cursor %s/ship/%s is damaged; it is not reset (remove "
		    "it to ship the log again from its start)", o->state, hex);
		return (-1);
	}
	c->count = count;
	c->off = off;
	c->end = end;
	return (0);
}

/* Writes a cursor atomically: a temporary file, fsync, rename, fsync. */
static int
cursor_write(struct opts *o, const char *hex, const struct cursor *c)
{
	char tmp[80], h[2 * JH_HASH_LEN + 1], line[256];
	int fd, n;

	jh_hex(h, c->hash, JH_HASH_LEN);
	n = snprintf(line, sizeof(line), "%s %llu %llu %llu %s\n",
	    CURSOR_MAGIC, (unsigned long long)c->count,
	    (unsigned long long)c->off, (unsigned long long)c->end, h);
	snprintf(tmp, sizeof(tmp), "%s.tmp", hex);
	/* one a failed run left: the error is the one that matters */
	if (unlinkat(o->shipfd, tmp, 0) == -1 && errno != ENOENT) {
		warn("cursor %s/ship/%s", o->state, tmp);
		return (-1);
	}
	if ((fd = openat(o->shipfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		warn("cursor %s/ship/%s", o->state, hex);
		return (-1);
	}
	if (jh_write_all(fd, line, (size_t)n) == -1 || fsync(fd) == -1) {
		warn("cursor %s/ship/%s", o->state, hex);
		close(fd);
		unlinkat(o->shipfd, tmp, 0);
		return (-1);
	}
	if (close(fd) == -1 || renameat(o->shipfd, tmp, o->shipfd, hex) == -1 ||
	    fsync(o->shipfd) == -1) {
		warn("cursor %s/ship/%s", o->state, hex);
		unlinkat(o->shipfd, tmp, 0);
		return (-1);
	}
	return (0);
}

/*
 * Checks that the log still holds the entry its cursor names, at the
 * same place, and primes lv to continue after it.  1 when it does not.
 */
static int
cursor_check(int fd, const char *path, const struct cursor *c, off_t size,
    struct jh_lv *lv)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	const struct jh_cbor *seq, *sess;
	uint8_t h[JH_HASH_LEN];
	int rc = 1;

	if ((uint64_t)size < c->end) {
		warnx("%s: %llu bytes, shorter than the %llu entries "
		    "(%llu bytes) already shipped: the log was cut; refused",
		    path, (unsigned long long)size,
		    (unsigned long long)c->count, (unsigned long long)c->end);
		return (1);
	}
	jh_buf_init(&b);
	jh_arena_init(&a);
	if (jh_st_item(&b, fd, c->off, &e) == 1 && b.len == c->end - c->off &&
	    (crypto_hash_sha256(h, b.p, b.len), memcmp(h, c->hash,
	    JH_HASH_LEN) == 0) && jh_env_parse(&env, &a, b.p, b.len, &e) == 0 &&
	    (seq = jh_cbor_get(env.core, "seq")) != NULL &&
	    seq->type == JH_CBOR_UINT && seq->u == c->count - 1 &&
	    (sess = jh_cbor_get(env.core, "session")) != NULL &&
	    sess->type == JH_CBOR_TEXT &&
	    (lv->session = malloc(sess->len + 1)) != NULL) {
		memcpy(lv->session, sess->p, sess->len);
		lv->slen = sess->len;
		lv->have_session = 1;
		lv->entries = c->count;
		lv->seq = c->count - 1;
		memcpy(lv->hash, c->hash, JH_HASH_LEN);
		rc = 0;
	} else
		warnx("%s: does not hold, at offset %llu, the entry of seq "
		    "%llu already shipped: the log was rewritten; refused",
		    path, (unsigned long long)c->off,
		    (unsigned long long)c->count - 1);
	jh_arena_free(&a);
	jh_buf_free(&b);
	return (rc);
}

static const char sql_entry[] =
    "INSERT INTO joulehook.entries (entry_hash, session_hash, seq, prev, "
    "raw, receipt, kind, core, ts, steward) VALUES ($1, $2, $3, $4, $5, "
    "$6, $7, $8::jsonb, $9, $10) ON CONFLICT (entry_hash) DO NOTHING";

/* Inserts one verified entry; *fresh is 1 when it was not there yet. */
static int
insert_entry(struct opts *o, const struct jh_env *ent,
    const struct jh_env *inner, const uint8_t *item, size_t len,
    const uint8_t *shash, struct jh_buf *j, int *fresh)
{
	const struct jh_cbor *seq, *prev, *rc, *ts, *st;
	const char *vals[10];
	int lens[10], fmts[10] = { 1, 1, 0, 1, 1, 1, 0, 0, 0, 0 };
	uint8_t h[JH_HASH_LEN];
	char seqs[24], tss[24], stw[JH_DIDKEY_MAX];
	long rows = 0;
	int x;

	seq = jh_cbor_get(ent->core, "seq");
	prev = jh_cbor_get(ent->core, "prev");
	rc = jh_cbor_get(ent->core, "receipt");
	ts = jh_cbor_get(ent->core, "ts");
	st = jh_cbor_get(ent->core, "steward");
	crypto_hash_sha256(h, item, len);
	put_uint(seqs, sizeof(seqs), seq);
	put_uint(tss, sizeof(tss), ts);
	snprintf(stw, sizeof(stw), "%.*s", (int)st->len, (const char *)st->p);
	if (core_json(j, inner->core) == -1) {
		warnx("out of memory");
		return (2);
	}
	vals[0] = (const char *)h, lens[0] = JH_HASH_LEN;
	vals[1] = (const char *)shash, lens[1] = JH_HASH_LEN;
	vals[2] = seqs, lens[2] = 0;
	vals[3] = (const char *)prev->p, lens[3] = (int)prev->len;
	vals[4] = (const char *)item, lens[4] = (int)len;
	vals[5] = (const char *)rc->p, lens[5] = (int)rc->len;
	vals[6] = inner->kind, lens[6] = 0;
	vals[7] = (const char *)j->p, lens[7] = 0;
	vals[8] = tss, lens[8] = 0;
	vals[9] = stw, lens[9] = 0;
	if ((x = db_exec(o, "entry", sql_entry, 10, vals, lens, fmts,
	    &rows)) != 0)
		return (x);
	*fresh = rows > 0;
	return (0);
}

/* Ends a batch: commit, then move the cursor to what it shipped. */
static int
batch_end(struct opts *o, const char *hex, const struct cursor *c,
    const struct cursor *was)
{
	int x;

	if ((x = db_simple(o, "COMMIT")) != 0)
		return (x);
	if (c->count == was->count)
		return (0);
	return (cursor_write(o, hex, c) == -1 ? 2 : 0);
}

static void
report(const char *path, const struct jh_lv *lv, uint64_t count,
    uint64_t fresh, uint64_t present)
{
	struct jh_buf b;

	jh_buf_init(&b);
	jh_buf_adds(&b, "{\"ship\":{\"file\":");
	jh_json_str(&b, path, strlen(path));
	jh_buf_adds(&b, ",\"session\":");
	jh_json_str(&b, (const char *)lv->session, lv->slen);
	jh_buf_addf(&b, ",\"entries\":%llu,\"new\":%llu,\"present\":%llu}}\n",
	    (unsigned long long)count, (unsigned long long)fresh,
	    (unsigned long long)present);
	if (!b.oom)
		fwrite(b.p, 1, b.len, stdout);
	fflush(stdout);
	jh_buf_free(&b);
}

/* One log being shipped (ship_fd). */
struct shipping {
	const char *path;
	int fd;
	uint64_t size;
	struct jh_lv lv;
	struct cursor c;	/* what is shipped, with the batch open */
	struct cursor was;	/* what was committed */
	uint8_t shash[JH_HASH_LEN];	/* the session's digest */
	char hex[2 * JH_HASH_LEN + 1];	/* and its text: the cursor's name */
	uint64_t bf, bp;	/* the open batch's rows: new, already there */
};

/*
 * Finds where the log's shipping starts: its session (from the first
 * entry), its cursor, checked against the log, and the database, the
 * log read from the cursor on.  Returns the status it earns, and sets
 * *idle when there is nothing to ship (empty, or all shipped).
 */
static int
ship_start(struct opts *o, struct shipping *sp, int quiet_idle, int *idle)
{
	struct jh_buf first;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	struct stat st;
	const struct jh_cbor *sess;
	int x, rc = 0;

	*idle = 0;
	if (fstat(sp->fd, &st) == -1) {
		warn("%s", sp->path);
		return (2);
	}
	sp->size = (uint64_t)st.st_size;
	jh_buf_init(&first);
	jh_arena_init(&a);
	/* The session, from the first entry, names the cursor. */
	x = jh_st_item(&first, sp->fd, 0, &e);
	if (x == 0 || x == JH_CBOR_TRUNCATED) {
		*idle = 1;	/* empty, or its first append in progress */
		goto out;
	}
	if (x != 1 || jh_env_parse(&env, &a, first.p, first.len, &e) == -1 ||
	    (sess = jh_cbor_get(env.core, "session")) == NULL ||
	    sess->type != JH_CBOR_TEXT) {
		warnx("%s: not a log: %s", sp->path, x == -1 || x == 1 ?
		    e.msg : "its first item is not an envelope");
		rc = 1;
		goto out;
	}
	/* The log's digest: the cursor's name and the rows' session_hash. */
	crypto_hash_sha256(sp->shash, sess->p, sess->len);
	jh_hex(sp->hex, sp->shash, JH_HASH_LEN);
	if (cursor_read(o, sp->hex, &sp->c) == -1) {
		rc = 2;
		goto out;
	}
	sp->was = sp->c;
	if (sp->c.count > 0 && cursor_check(sp->fd, sp->path, &sp->c,
	    (off_t)sp->size, &sp->lv) != 0)
		rc = 1;
	else if (sp->size == sp->c.end) {
		if (!quiet_idle && sp->lv.have_session)
			report(sp->path, &sp->lv, sp->c.count, 0, 0);
		*idle = 1;
	} else if (db_open(o) == -1)
		rc = 2;
	else if (lseek(sp->fd, (off_t)sp->c.end, SEEK_SET) == -1) {
		warn("%s", sp->path);
		rc = 2;
	}
out:
	jh_arena_free(&a);
	jh_buf_free(&first);
	return (rc);
}

/*
 * Checks the next entry as jh-verify does (its signature, its receipt,
 * seq, prev, session) and inserts it.  Returns the status it earns.
 */
static int
ship_entry(struct opts *o, struct shipping *sp, struct jh_arena *a,
    struct jh_buf *j, const uint8_t *item, size_t len, uint64_t off)
{
	struct jh_env env, inner;
	struct jh_err e;
	int rc = 0, isnew;

	jh_arena_reset(a);
	if (jh_verify_env(&o->v, &env, a, item, len, &e) == -1)
		rc = 1;
	else if (strcmp(env.kind, "chain/1") != 0) {
		jh_errf(&e, "a bare %s in a log", env.kind);
		rc = 1;
	} else if (jh_lv_entry(&sp->lv, &o->v, &env, item, len, &inner, a,
	    &e) == -1)
		rc = 1;
	if (rc != 0) {
		warnx("%s: entry at offset %llu: %s; not shipped, nor anything "
		    "after it", sp->path, (unsigned long long)off, e.msg);
		return (rc);
	}
	if ((rc = insert_entry(o, &env, &inner, item, len, sp->shash, j,
	    &isnew)) != 0)
		return (rc);
	if (isnew)
		sp->bf++;
	else
		sp->bp++;
	sp->c.count = sp->lv.entries;
	sp->c.off = off;
	sp->c.end = off + len;
	memcpy(sp->c.hash, sp->lv.hash, JH_HASH_LEN);
	return (0);
}

/*
 * Ships the entries of one log that its cursor has not: each checked as
 * jh-verify checks it, BATCH to a transaction, the cursor moved after each
 * commit.  Returns the exit status it earns (0, 1 refused, 2 failed).
 */
static int
ship_fd(struct opts *o, int fd, const char *path, int quiet_idle)
{
	struct shipping sp;
	struct jh_reader r;
	struct jh_buf j;
	struct jh_arena a;
	struct jh_err e;
	const uint8_t *item;
	uint64_t fresh = 0, present = 0, off;	/* the rows committed */
	size_t len, inbatch = 0;
	int rc, x, idle;

	memset(&sp, 0, sizeof(sp));
	sp.path = path;
	sp.fd = fd;
	jh_lv_init(&sp.lv);
	jh_buf_init(&j);
	jh_arena_init(&a);
	jh_reader_init(&r, fd);
	if ((rc = ship_start(o, &sp, quiet_idle, &idle)) != 0 || idle)
		goto out;
	r.offset = sp.c.end;
	if ((rc = db_simple(o, "BEGIN")) != 0)
		goto out;
	for (;;) {
		off = r.offset + r.pos;
		x = jh_reader_cbor(&r, &item, &len, &e);
		if (x == 0)
			break;
		/* an append in progress, unless it hides whole entries */
		if (x == JH_CBOR_TRUNCATED && jh_env_within(r.b.p + r.pos,
		    r.b.len - r.pos, "chain/1")) {
			rc = 1;
			warnx("%s: entry at offset %llu: its length was altered, "
			    "and the bytes after it hold whole entries; not "
			    "shipped, nor anything after it", path,
			    (unsigned long long)off);
			break;
		}
		if (x == JH_CBOR_TRUNCATED)
			break;
		if (x != 1) {
			rc = r.err != 0 ? 2 : 1;	/* unreadable, unframeable */
			warnx("%s: entry at offset %llu: %s; not shipped, nor "
			    "anything after it", path, (unsigned long long)off,
			    e.msg);
			break;
		}
		if ((rc = ship_entry(o, &sp, &a, &j, item, len, off)) != 0)
			break;
		if (++inbatch < BATCH)
			continue;
		if ((x = batch_end(o, sp.hex, &sp.c, &sp.was)) != 0) {
			rc = x;
			goto out;
		}
		sp.was = sp.c;
		fresh += sp.bf, present += sp.bp;
		sp.bf = sp.bp = 0;
		inbatch = 0;
		if ((rc = db_simple(o, "BEGIN")) != 0)
			goto out;
	}
	/* What verified before a bad entry is shipped; a failed batch is not. */
	if (rc == 2 || (rc == 1 && (sp.c.count == sp.was.count ||
	    PQtransactionStatus(o->db) == PQTRANS_INERROR))) {
		db_simple(o, "ROLLBACK");
		sp.c = sp.was;
	} else if ((x = batch_end(o, sp.hex, &sp.c, &sp.was)) != 0)
		rc = x;
	else
		fresh += sp.bf, present += sp.bp;
	if (sp.lv.have_session && (fresh > 0 || !quiet_idle))
		report(path, &sp.lv, sp.c.count, fresh, present);
out:
	jh_reader_free(&r);
	jh_lv_free(&sp.lv);
	jh_arena_free(&a);
	jh_buf_free(&j);
	return (rc);
}

static int
ship_path(struct opts *o, int dirfd, const char *name, const char *shown,
    int quiet_idle)
{
	struct jh_err e;
	int fd, rc;

	if ((fd = jh_st_file(dirfd, name, &e)) == -1) {
		warnx("%s", e.msg);
		return (2);
	}
	rc = ship_fd(o, fd, shown, quiet_idle);
	close(fd);
	return (rc);
}

/* Every log under <state>/logs, in no particular order. */
static int
ship_logs(struct opts *o, int quiet_idle)
{
	struct jh_err e;
	struct dirent *d;
	DIR *dir;
	char logs[4096], shown[8192];
	int dfd, rc = 0, x;
	size_t n;

	if (jh_path_join(logs, sizeof(logs), o->state, "logs") == -1 ||
	    (dfd = jh_st_dir(AT_FDCWD, logs, &e)) == -1) {
		if (errno == ENOENT)
			return (0);	/* nothing chained yet */
		warnx("%s", e.msg);
		return (2);
	}
	if ((dir = fdopendir(dfd)) == NULL) {
		warn("%s", logs);
		close(dfd);
		return (2);
	}
	while ((d = readdir(dir)) != NULL && !stop) {
		n = strlen(d->d_name);
		if (n != 2 * JH_HASH_LEN + 4 ||
		    strcmp(d->d_name + 2 * JH_HASH_LEN, ".jhl") != 0 ||
		    !jh_st_is_digest(d->d_name, 2 * JH_HASH_LEN))
			continue;
		snprintf(shown, sizeof(shown), "%s/%s", logs, d->d_name);
		if ((x = ship_path(o, dirfd(dir), d->d_name, shown,
		    quiet_idle)) > rc)
			rc = x;
	}
	closedir(dir);
	return (rc);
}

static const char sql_cp[] =
    "INSERT INTO joulehook.checkpoints (cp_hash, session_hash, count, "
    "head, raw, core, ts, steward) VALUES ($1, $2, $3, $4, $5, $6::jsonb, "
    "$7, $8) ON CONFLICT (cp_hash) DO NOTHING";

/*
 * Verifies the n-th checkpoint/1 envelope of the file and inserts it;
 * *fresh is 1 when it was not there yet.  Returns the status it earns.
 */
static int
ship_cp(struct opts *o, struct jh_arena *a, struct jh_buf *j,
    const uint8_t *item, size_t len, uint64_t n, int *fresh)
{
	struct jh_env env;
	struct jh_err e;
	const struct jh_cbor *ss, *cnt, *head, *ts, *stw;
	const char *vals[8];
	int lens[8], fmts[8] = { 1, 1, 0, 1, 1, 0, 0, 0 }, rc;
	uint8_t h[JH_HASH_LEN], sh[JH_HASH_LEN];
	char cs[24], tss[24], sw[JH_DIDKEY_MAX];
	long rows = 0;

	*fresh = 0;
	jh_arena_reset(a);
	if (jh_verify_env(&o->v, &env, a, item, len, &e) == -1 ||
	    (strcmp(env.kind, "checkpoint/1") != 0 &&
	    jh_errf(&e, "a %s, not a checkpoint/1", env.kind))) {
		warnx("%s: checkpoint %llu: %s", o->cpfile,
		    (unsigned long long)n, e.msg);
		return (1);
	}
	ss = jh_cbor_get(env.core, "session");
	cnt = jh_cbor_get(env.core, "count");
	head = jh_cbor_get(env.core, "head");
	ts = jh_cbor_get(env.core, "ts");
	stw = jh_cbor_get(env.core, "steward");
	crypto_hash_sha256(h, item, len);
	crypto_hash_sha256(sh, ss->p, ss->len);
	put_uint(cs, sizeof(cs), cnt);
	put_uint(tss, sizeof(tss), ts);
	snprintf(sw, sizeof(sw), "%.*s", (int)stw->len, (const char *)stw->p);
	if (core_json(j, env.core) == -1)
		return (2);
	vals[0] = (const char *)h, lens[0] = JH_HASH_LEN;
	vals[1] = (const char *)sh, lens[1] = JH_HASH_LEN;
	vals[2] = cs, lens[2] = 0;
	vals[3] = (const char *)head->p, lens[3] = (int)head->len;
	vals[4] = (const char *)item, lens[4] = (int)len;
	vals[5] = (const char *)j->p, lens[5] = 0;
	vals[6] = tss, lens[6] = 0;
	vals[7] = sw, lens[7] = 0;
	if ((rc = db_exec(o, "checkpoint", sql_cp, 8, vals, lens, fmts,
	    &rows)) == 0 && rows > 0)
		*fresh = 1;
	return (rc);
}

/*
 * Ships the checkpoint/1 envelopes of a file (one checkpoint or a sink),
 * each verified, in one transaction.  With -w only what was appended
 * since the last pass is read.
 */
static int
ship_cps(struct opts *o, int quiet_idle)
{
	struct jh_reader r;
	struct jh_buf j;
	struct jh_arena a;
	struct jh_err e;
	struct stat st;
	const uint8_t *item;
	uint64_t fresh = 0, n = 0;
	size_t len;
	int fd, x, isnew, rc = 0;

	if ((fd = open(o->cpfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1 ||
	    fstat(fd, &st) == -1) {
		warn("%s", o->cpfile);
		if (fd != -1)
			close(fd);
		return (2);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if ((uint64_t)st.st_size < o->cp_off)
		o->cp_off = 0;		/* replaced: read it all again */
	if ((uint64_t)st.st_size == o->cp_off ||
	    lseek(fd, (off_t)o->cp_off, SEEK_SET) == -1) {
		close(fd);
		return (0);
	}
	if (db_open(o) == -1 || db_simple(o, "BEGIN") != 0) {
		close(fd);
		return (2);
	}
	jh_reader_init(&r, fd);
	r.offset = o->cp_off;
	jh_buf_init(&j);
	jh_arena_init(&a);
	while (rc == 0 && (x = jh_reader_cbor(&r, &item, &len, &e)) == 1) {
		if ((rc = ship_cp(o, &a, &j, item, len, ++n, &isnew)) == 0)
			fresh += (uint64_t)isnew;
	}
	if (rc == 0 && x != 0 && x != JH_CBOR_TRUNCATED) {
		warnx("%s: %s", o->cpfile, e.msg);
		rc = r.err != 0 ? 2 : 1;
	}
	if (rc != 0)
		db_simple(o, "ROLLBACK");
	else if ((rc = db_simple(o, "COMMIT")) == 0) {
		o->cp_off = r.offset + r.pos;
		if (fresh > 0 || !quiet_idle) {
			jh_buf_reset(&j);
			jh_buf_adds(&j, "{\"ship\":{\"checkpoints\":");
			jh_json_str(&j, o->cpfile, strlen(o->cpfile));
			jh_buf_addf(&j, ",\"read\":%llu,\"new\":%llu}}\n",
			    (unsigned long long)n, (unsigned long long)fresh);
			if (!j.oom)
				fwrite(j.p, 1, j.len, stdout);
			fflush(stdout);
		}
	}
	jh_arena_free(&a);
	jh_buf_free(&j);
	jh_reader_free(&r);
	close(fd);
	return (rc);
}

/*
 * -e and -E: a session's entries in seq order, or its checkpoints, as
 * the exact bytes shipped, streamed one row at a time.
 */
static int
export(struct opts *o, const char *session, int cps)
{
	PGresult *r;
	uint8_t sh[JH_HASH_LEN];
	const char *vals[1] = { (const char *)sh };
	int lens[1] = { JH_HASH_LEN }, fmts[1] = { 1 }, rc = 0;
	uint64_t n = 0;

	if (db_open(o) == -1)
		return (2);
	crypto_hash_sha256(sh, (const uint8_t *)session, strlen(session));
	if (!PQsendQueryParams(o->db, cps ?
	    "SELECT raw FROM joulehook.checkpoints WHERE session_hash = $1 "
	    "ORDER BY count, ts, cp_hash" :
	    "SELECT raw FROM joulehook.entries WHERE session_hash = $1 "
	    "ORDER BY seq", 1, NULL, vals, lens, fmts, 1) ||
	    !PQsetSingleRowMode(o->db)) {
		warnx("database: %s", PQerrorMessage(o->db));
		return (2);
	}
	while ((r = PQgetResult(o->db)) != NULL) {
		if (PQresultStatus(r) == PGRES_SINGLE_TUPLE) {
			if (rc == 0 && fwrite(PQgetvalue(r, 0, 0), 1,
			    (size_t)PQgetlength(r, 0, 0), stdout) !=
			    (size_t)PQgetlength(r, 0, 0))
				rc = 2;
			n++;
		} else if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			warnx("database: %s", PQresultErrorMessage(r));
			rc = 2;
		}
		PQclear(r);
	}
	if (rc == 0 && n == 0) {
		warnx("the database holds no %s of session %s",
		    cps ? "checkpoint" : "entry", session);
		rc = 1;
	}
	return (rc);
}

static void
load_stewards(struct opts *o, const char *path, int given)
{
	struct jh_err e;

	if (!given && (path == NULL || access(path, F_OK) != 0))
		errx(2, "no trusted stewards: give -s or list them in "
		    "JH_HOME/stewards");
	if (jh_keyset_load(&o->keys, path, JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);
}

static int
ship_all(struct opts *o, int argc, char *argv[], int quiet_idle)
{
	int i, x, rc = 0;

	if (argc == 0)
		rc = ship_logs(o, quiet_idle);
	for (i = 0; i < argc && !stop; i++)
		if ((x = ship_path(o, AT_FDCWD, argv[i], argv[i],
		    quiet_idle)) > rc)
			rc = x;
	if (o->cpfile != NULL && !stop && (x = ship_cps(o, quiet_idle)) > rc)
		rc = x;
	return (rc);
}

/* -w: a pass every interval; a failed pass is said and retried. */
static int
ship_watch(struct opts *o, int argc, char *argv[])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Only a signal ends it. */
	while (!stop) {
		ship_all(o, argc, argv, 1);
		if (!stop)
			sleep(o->interval);
	}
	return (0);
}

/*
 * The state directory (-S, else JH_STATE), the stewards trusted (-s,
 * else JH_HOME/stewards) and the cursors' directory, <state>/ship, made
 * mode 0700 when it is not there.
 */
static void
open_state(struct opts *o, const char *state, const char *stewards)
{
	struct jh_where where;
	struct jh_err e;
	int fd;

	memset(&where, 0, sizeof(where));
	where.state = state;
	where.stewards = stewards;
	jh_where_fill(&where);
	if ((state = where.state) == NULL)
		errx(2, "no state directory: give -S or set JH_STATE");
	if (snprintf(o->state, sizeof(o->state), "%s", state) >=
	    (int)sizeof(o->state))
		errx(2, "%s: path too long", state);
	load_stewards(o, where.stewards, stewards != NULL);
	jh_verifier_init(&o->v, &o->keys);
	if (mkdir(o->state, 0700) == -1 && errno != EEXIST)
		err(2, "%s", o->state);
	if ((fd = open(o->state, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		err(2, "%s", o->state);
	if ((o->shipfd = jh_open_dir(fd, "ship", 1, &e)) == -1)
		errx(2, "%s/%s", o->state, e.msg);
	close(fd);
	fchmod(o->shipfd, 0700);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *stewards = NULL, *session = NULL, *state = NULL;
	char *end;
	unsigned long w;
	int ch, cps = 0, rc;

	memset(&o, 0, sizeof(o));
	jh_keyset_init(&o.keys);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "c:d:E:e:hS:s:w:")) != -1) {
		switch (ch) {
		case 'c':
			o.cpfile = optarg;
			break;
		case 'd':
			o.conninfo = optarg;
			break;
		case 'E':
		case 'e':
			if (session != NULL)
				usage(stderr, 2);
			session = optarg;
			cps = ch == 'E';
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'S':
			state = optarg;
			break;
		case 's':
			stewards = optarg;
			break;
		case 'w':
			w = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' ||
			    w == 0 || w > 86400)
				usage(stderr, 2);
			o.interval = (unsigned)w;
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (session != NULL && (argc != 0 || o.cpfile != NULL ||
	    state != NULL || stewards != NULL || o.interval != 0))
		usage(stderr, 2);
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (session != NULL) {
		rc = export(&o, session, cps);
		PQfinish(o.db);
		return (jh_fshut(stdout, "stdout") != 0 ? 2 : rc);
	}
	open_state(&o, state, stewards);
	rc = o.interval == 0 ? ship_all(&o, argc, argv, 0) :
	    ship_watch(&o, argc, argv);
	PQfinish(o.db);
	close(o.shipfd);
	jh_keyset_free(&o.keys);
	return (jh_fshut(stdout, "stdout") != 0 ? 2 : rc);
}
