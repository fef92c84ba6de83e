/*
 * joulehook: checkpoints, read back.  A sink (jh-install -C) holds a
 * sequence of checkpoint/1 envelopes, one per Stop; a log is checked
 * against the latest (largest count) of its own session: it must hold at
 * least that many entries and its entry count-1 must be the head the
 * checkpoint signed (joulehook-formats(5), "Checkpoints").  jh-verify -c
 * and jh-status -s use this.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "checkpoint.h"
#include "cose.h"
#include "util.h"
#include "verify.h"

void
jh_cps_free(struct jh_cps *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].session);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * Reads every checkpoint of the file; each must verify with v.  0; -2
 * when the file cannot be read, -1 when it is not a sequence of valid
 * checkpoints, with the reason (and nothing kept).  A sink whose last
 * append was cut short (a full disk) ends in part of an envelope: after
 * at least one whole checkpoint that is a torn tail, left in s->torn and
 * not read; anywhere else a checkpoint cut short is not one.
 */
int
jh_cps_load(struct jh_cps *s, const char *path, struct jh_verifier *v,
    struct jh_err *e)
{
	struct jh_reader rd;
	struct jh_arena a;
	struct jh_env env;
	const struct jh_cbor *ss, *c, *h;
	const uint8_t *item;
	struct jh_cp *cp;
	char m[sizeof(e->msg)];
	size_t len, cap = 0;
	uint64_t off = 0;
	int fd, x, rc = -1;

	memset(s, 0, sizeof(*s));
	jh_arena_init(&a);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		jh_arena_free(&a);
		jh_errf(e, "%s: %s", path, strerror(errno));
		return (-2);
	}
	/*
	 * A sink grows by one checkpoint a Stop, for every session, for as
	 * long as it is kept: it is read an item at a time, each at most
	 * JH_MAX_RECORD bytes, never whole.
	 */
	jh_reader_init(&rd, fd);
	while ((x = jh_reader_cbor(&rd, &item, &len, e)) == 1) {
		jh_arena_reset(&a);
		if (jh_verify_env(v, &env, &a, item, len, e) == -1) {
			memcpy(m, e->msg, sizeof(m));
			jh_errf(e, "%s: checkpoint %zu does not verify: %s",
			    path, s->n + 1, m);
			goto out;
		}
		if (strcmp(env.kind, "checkpoint/1") != 0) {
			jh_errf(e, "%s: a %s, not a checkpoint/1", path,
			    env.kind);
			goto out;
		}
		/* doubled as it fills: a sink holds tens of thousands */
		if (s->n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			if ((cp = reallocarray(s->v, cap, sizeof(*cp))) ==
			    NULL) {
				jh_errf(e, "out of memory");
				goto out;
			}
			s->v = cp;
		}
		cp = &s->v[s->n];
		memset(cp, 0, sizeof(*cp));
		ss = jh_cbor_get(env.core, "session");
		c = jh_cbor_get(env.core, "count");
		h = jh_cbor_get(env.core, "head");
		if ((cp->session = malloc(ss->len + 1)) == NULL) {
			jh_errf(e, "out of memory");
			goto out;
		}
		s->n++;
		memcpy(cp->session, ss->p, ss->len);
		cp->session[ss->len] = '\0';
		cp->slen = ss->len;
		cp->count = c->u;
		memcpy(cp->head, h->p, JH_HASH_LEN);
		off += len;
	}
	if (rd.err != 0) {
		jh_errf(e, "%s: %s", path, strerror(rd.err));
		rc = -2;
		goto out;
	}
	if (x == 0 && s->n == 0) {
		jh_errf(e, "%s: no checkpoint", path);
		goto out;
	}
	if (x == JH_CBOR_TRUNCATED && s->n > 0 && rd.b.p[rd.pos] == 0xd2)
		s->torn = rd.b.len - rd.pos;
	else if (x == JH_CBOR_TRUNCATED) {
		jh_errf(e, "%s: checkpoint %zu is cut short (%zu bytes at "
		    "offset %llu)", path, s->n + 1, rd.b.len - rd.pos,
		    (unsigned long long)off);
		goto out;
	} else if (x != 0) {
		memcpy(m, e->msg, sizeof(m));
		jh_errf(e, "%s: checkpoint %zu: %s", path, s->n + 1, m);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		jh_cps_free(s);
	jh_reader_free(&rd);
	close(fd);
	jh_arena_free(&a);
	return (rc);
}

/*
 * The checkpoint a log of session sid (NULL: not known) is checked
 * against: the latest of that session's, or, for an unknown session, of
 * the one session every checkpoint is of.  NULL when there is none.
 */
const struct jh_cp *
jh_cps_pick(const struct jh_cps *s, const char *sid)
{
	const struct jh_cp *best = NULL;
	size_t i, slen = sid != NULL ? strlen(sid) : 0;
	int one = 1;

	for (i = 1; i < s->n; i++)
		if (s->v[i].slen != s->v[0].slen || memcmp(s->v[i].session,
		    s->v[0].session, s->v[0].slen) != 0)
			one = 0;
	for (i = 0; i < s->n; i++) {
		const struct jh_cp *c = &s->v[i];
		if (sid != NULL ? (c->slen != slen ||
		    memcmp(c->session, sid, slen) != 0) : !one)
			continue;
		if (best == NULL || c->count > best->count)
			best = c;
	}
	return (best);
}

/*
 * What the checkpoint says of a verified log (lv, verified with its
 * cp_count set to cp's count): note is the extent, for people.  1 when
 * the log fails it (cut, or not the log it signed), 0 when it matches
 * or extends it.
 */
int
jh_cp_note(const struct jh_cp *cp, const struct jh_lv *lv, char *note,
    size_t sz)
{
	if (lv->entries < cp->count) {
		snprintf(note, sz, "truncated: the checkpoint has %llu entries, "
		    "the log %llu", (unsigned long long)cp->count,
		    (unsigned long long)lv->entries);
		return (1);
	}
	if (!lv->cp_seen || memcmp(lv->cp_hash, cp->head, JH_HASH_LEN) != 0) {
		snprintf(note, sz, "does not extend the checkpoint: entry %llu "
		    "is not the checkpoint's head",
		    (unsigned long long)(cp->count - 1));
		return (1);
	}
	if (lv->entries == cp->count)
		snprintf(note, sz, "matches the checkpoint");
	else
		snprintf(note, sz, "extends the checkpoint by %llu entries "
		    "(those verified as a prefix only)",
		    (unsigned long long)(lv->entries - cp->count));
	return (0);
}
