/*
 * joulehook: seal one receipt core (a JSON object) and append it to its
 * session's chained log, as jh-seal | jh-chain do in a pipeline
 * (jh-seal(1), jh-chain(1)), for the programs that seal in-process.
 *
 * The log is opened, locked with jh_tflock and its head checked against
 * the keys before every append, so a writer in-process excludes jh-chain
 * and jh-decide as they exclude each other; a torn tail is cut first and
 * its length reported in *cut.
 */
#include <sys/file.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"

int
jh_seal_chain(json_t *o, int kind, const struct jh_key *key,
    const struct jh_keyset *keys, const char *statedir, const char *session,
    unsigned wait_ms, uint64_t *cut, struct jh_err *e)
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
	if (jh_log_append(l, key, env.p, env.len, cc, jh_now_ms(), nonce,
	    &entry, e) == -1)
		goto out;
	rc = 0;
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
