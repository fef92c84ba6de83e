/*
 * joulehook: seal one receipt core (a JSON object) and append it to its
 * session's chained log, as jh-seal | jh-chain do in a pipeline
 * (jh-seal(1), jh-chain(1)), for the programs that seal in-process.
 *
 * The log is opened, locked with jh_tflock and its head checked against
 * the keys before every append, so a writer in-process excludes jh-chain
 * and jh-decide as they exclude each other; a torn tail is cut first and
 * its length reported in *cut.
 *
 * Group commit: a synced append writes its entry under the log's lock,
 * unlocks, and then waits until an fsync begun after its write has
 * returned, its own or one a concurrent append on the same log started;
 * it returns only then, so no receipt is acknowledged before it is on
 * disk, while calls that settle together share one fsync.  The table
 * of logs being synced is this file's own, under its own mutex.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "chain.h"
#include "cose.h"
#include "keys.h"
#include "kinds.h"
#include "sealunit.h"
#include "statefs.h"
#include "util.h"

#define GC_LOGS	32

/* A log some append is syncing; free again when none is (refs 0). */
struct gc_log {
	dev_t dev;
	ino_t ino;
	unsigned refs;		/* appends waiting on it or syncing it */
	int busy;		/* an fsync is running */
	uint64_t written;	/* the end of the last entry registered */
	uint64_t synced;	/* covered by an fsync that returned */
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct gc_log v[GC_LOGS];
} gc = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } } };

/* The log's slot, under gc.mu; NULL when all are in use. */
static struct gc_log *
gc_slot(const struct stat *st)
{
	struct gc_log *g, *free = NULL;

	for (g = gc.v; g < gc.v + GC_LOGS; g++) {
		if (g->refs > 0 && g->dev == st->st_dev && g->ino ==
		    st->st_ino)
			return (g);
		if (g->refs == 0 && free == NULL)
			free = g;
	}
	if (free != NULL) {
		memset(free, 0, sizeof(*free));
		free->dev = st->st_dev;
		free->ino = st->st_ino;
	}
	return (free);
}

/*
 * Waits until the log is synced up to end, where the entry just written
 * ends.  Called with the log unlocked and still open.  A slot lives only
 * while appends share it, so what it says is never older than them.
 */
static int
gc_sync(int fd, const char *name, uint64_t end, struct jh_err *e)
{
	struct gc_log *g;
	struct stat st;
	uint64_t target;
	int r = 0;

	if (fstat(fd, &st) == -1)
		return (jh_errf(e, "%s: %s", name, strerror(errno)));
	pthread_mutex_lock(&gc.mu);
	if ((g = gc_slot(&st)) == NULL) {
		pthread_mutex_unlock(&gc.mu);
		r = fsync(fd);
		goto done;
	}
	g->refs++;
	if (end > g->written)
		g->written = end;
	while (g->busy && g->synced < end)
		pthread_cond_wait(&gc.cv, &gc.mu);
	if (g->synced < end) {
		g->busy = 1;
		target = g->written;	/* each write registered is done */
		pthread_mutex_unlock(&gc.mu);
		r = fsync(fd);
		pthread_mutex_lock(&gc.mu);
		g->busy = 0;
		if (r == 0 && target > g->synced)
			g->synced = target;
		pthread_cond_broadcast(&gc.cv);
	}
	g->refs--;
	pthread_mutex_unlock(&gc.mu);
done:
	if (r == -1)
		return (jh_errf(e, "%s: fsync: %s", name, strerror(errno)));
	return (0);
}

int
jh_seal_chain(json_t *o, int kind, const struct jh_key *key,
    const struct jh_keyset *keys, const char *statedir, const char *session,
    unsigned wait_ms, int sync, uint64_t *cut, struct jh_err *e)
{
	struct jh_buf core, env, entry;
	struct jh_arena a;
	struct jh_cbor *cc;
	struct jh_log *l = NULL;
	uint8_t nonce[JH_NONCE_LEN];
	uint64_t ts = jh_now_ms();
	int rc = -1, locked = 0;

	*cut = 0;
	jh_buf_init(&core);
	jh_buf_init(&env);
	jh_buf_init(&entry);
	jh_arena_init(&a);
	jh_nonce(nonce);
	if (jh_kind_prepare(o, kind, key, ts, nonce, e) == -1 ||
	    jh_core_build(&core, o, kind, key, ts, nonce, e) == -1 ||
	    jh_cbor_decode_all(&cc, &a, core.p, core.len, 0, e) == -1 ||
	    jh_kind_check(cc, kind, e) == -1 ||
	    jh_seal(&env, key, core.p, core.len, e) == -1)
		goto out;
	if ((l = malloc(sizeof(*l))) == NULL) {
		jh_errf(e, "out of memory");
		goto out;
	}
	if (jh_log_open(l, statedir, NULL, (const uint8_t *)session,
	    strlen(session), 1, e) == -1) {
		free(l);
		l = NULL;
		goto out;
	}
	if (jh_tflock(l->fd, LOCK_EX, wait_ms, e) == -1)
		goto out;
	locked = 1;
	if (jh_log_head(l, keys, 1, cut, e) == -1)
		goto out;
	if (l->head.count > 0 && (l->slen != strlen(session) ||
	    memcmp(l->session, session, l->slen) != 0)) {
		jh_errf(e, "%s is another session's log", l->name);
		goto out;
	}
	jh_nonce(nonce);
	if (jh_log_append(l, key, env.p, env.len, cc, jh_now_ms(), nonce, 0,
	    &entry, e) == -1)
		goto out;
	flock(l->fd, LOCK_UN);
	locked = 0;
	rc = sync ? gc_sync(l->fd, l->name, l->head.end, e) : 0;
out:
	if (l != NULL) {
		if (locked)
			flock(l->fd, LOCK_UN);
		jh_log_close(l);
		free(l);
	}
	jh_arena_free(&a);
	jh_buf_free(&core);
	jh_buf_free(&env);
	jh_buf_free(&entry);
	return (rc);
}

/*
 * Syncs the session's log as it stands, sharing the fsync with any
 * concurrent one (above): for a receipt appended with JH_SEAL_WRITE
 * whose writer syncs it after answering its client.
 */
int
jh_seal_sync(const char *statedir, const char *session, struct jh_err *e)
{
	struct jh_log *l;
	struct stat st;
	int rc = -1;

	if ((l = malloc(sizeof(*l))) == NULL)
		return (jh_errf(e, "out of memory"));
	if (jh_log_open(l, statedir, NULL, (const uint8_t *)session,
	    strlen(session), 0, e) == -1) {
		free(l);
		return (-1);
	}
	if (fstat(l->fd, &st) == -1)
		jh_errf(e, "%s: %s", l->name, strerror(errno));
	else
		rc = gc_sync(l->fd, l->name, (uint64_t)st.st_size, e);
	jh_log_close(l);
	free(l);
	return (rc);
}
