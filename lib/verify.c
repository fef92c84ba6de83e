/*
 * joulehook: verification of sealed objects and whole logs, shared by
 * jh-verify and the programs that serve receipts.
 */
#include <sys/file.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "util.h"
#include "verify.h"

void
jh_verifier_init(struct jh_verifier *v, const struct jh_keyset *ks)
{
	memset(v, 0, sizeof(*v));
	v->keys = ks;
}

static const char *
did_of(struct jh_verifier *v, const uint8_t *kid)
{
	if (v->last_did[0] == '\0' ||
	    memcmp(v->last_kid, kid, JH_PK_LEN) != 0) {
		memcpy(v->last_kid, kid, JH_PK_LEN);
		jh_didkey_enc(v->last_did, sizeof(v->last_did), kid);
	}
	return (v->last_did);
}

/*
 * Every check of joulehook-formats(5), The JCR-1 envelope, on one
 * envelope: shape and canonical form (jh_env_parse), a known kind, a
 * kid trusted for the kind's role, the signature over the exact bytes,
 * the kind's fields, steward == kid.
 */
int
jh_verify_env(struct jh_verifier *v, struct jh_env *env, struct jh_arena *a,
    const uint8_t *p, size_t n, struct jh_err *e)
{
	const char *did;
	int kid;

	if (jh_env_parse(env, a, p, n, e) == -1)
		return (-1);
	did = did_of(v, env->kid);
	/* The signature first, so nothing unauthenticated is reported. */
	if (!jh_keyset_has(v->keys, env->kid, JH_ROLE_STEWARD |
	    JH_ROLE_ISSUER))
		return (jh_errf(e, "untrusted kid %s (not a trusted key)",
		    did));
	if (jh_env_check_sig(env, v->own, p, n, e) == -1)
		return (-1);
	if ((kid = jh_kind_lookup(env->kind)) == 0)
		return (jh_errf(e, "unknown kind %s", env->kind));
	if (!jh_keyset_has(v->keys, env->kid, jh_kind_role(kid)))
		return (jh_errf(e, "untrusted kid %s (not a trusted %s key)",
		    did, jh_role_name(jh_kind_role(kid))));
	if (jh_kind_check(env->core, kid, e) == -1)
		return (-1);
	if (!jh_cbor_text_is(jh_cbor_get(env->core, "steward"), did))
		return (jh_errf(e, "steward is not the kid (signed by %s)",
		    did));
	return (0);
}

/* A set of 32-byte hashes: open addressing on their first 8 bytes. */
static int
hset_add(struct jh_lv *lv, const uint8_t *h, uint64_t *first)
{
	uint64_t k;
	size_t i, mask;

	if (2 * (lv->nh + 1) > lv->cap) {
		size_t nc = lv->cap ? 2 * lv->cap : 1024, j;
		uint32_t *ni = calloc(nc, sizeof(*ni));
		uint8_t (*nh)[JH_HASH_LEN];
		uint64_t *ns;

		if (ni == NULL)
			return (-1);
		if ((nh = realloc(lv->hashes, nc / 2 * JH_HASH_LEN)) == NULL ||
		    (ns = realloc(lv->hseq, nc / 2 * sizeof(*ns))) == NULL) {
			if (nh != NULL)
				lv->hashes = nh;
			free(ni);
			return (-1);
		}
		lv->hashes = nh;
		lv->hseq = ns;
		for (j = 0; j < lv->nh; j++) {
			memcpy(&k, lv->hashes[j], 8);
			for (i = k & (nc - 1); ni[i] != 0; i = (i + 1) & (nc - 1))
				;
			ni[i] = (uint32_t)j + 1;
		}
		free(lv->idx);
		lv->idx = ni;
		lv->cap = nc;
	}
	mask = lv->cap - 1;
	memcpy(&k, h, 8);
	for (i = k & mask; lv->idx[i] != 0; i = (i + 1) & mask)
		if (memcmp(lv->hashes[lv->idx[i] - 1], h, JH_HASH_LEN) == 0) {
			*first = lv->hseq[lv->idx[i] - 1];
			return (1);
		}
	memcpy(lv->hashes[lv->nh], h, JH_HASH_LEN);
	lv->hseq[lv->nh] = *first;
	lv->idx[i] = (uint32_t)++lv->nh;
	return (0);
}

void
jh_lv_init(struct jh_lv *lv)
{
	memset(lv, 0, sizeof(*lv));
}

void
jh_lv_free(struct jh_lv *lv)
{
	free(lv->idx);
	free(lv->hashes);
	free(lv->hseq);
	free(lv->session);
	jh_lv_init(lv);
}

/*
 * Checks one chain/1 entry (already verified as an envelope) as the next
 * entry of a log: exactly one embedded receipt of a session kind that
 * verifies itself, the same session throughout, seq and prev continuing
 * the previous entry, and no receipt payload seen before.  Returns 0, or
 * -1 with the defect in e; the log state advances either way so that only
 * the break point is reported.
 */
int
jh_lv_entry(struct jh_lv *lv, struct jh_verifier *v, const struct jh_env *ent,
    const uint8_t *bytes, size_t n, struct jh_env *inner, struct jh_arena *a,
    struct jh_err *e)
{
	static const uint8_t zero[JH_HASH_LEN];
	const struct jh_cbor *seq, *prev, *sess, *rc, *isess;
	uint8_t h[JH_HASH_LEN], ph[JH_HASH_LEN];
	uint64_t first;
	int kid, bad = 0, r;
	struct jh_err ie;

	seq = jh_cbor_get(ent->core, "seq");
	prev = jh_cbor_get(ent->core, "prev");
	sess = jh_cbor_get(ent->core, "session");
	rc = jh_cbor_get(ent->core, "receipt");
	crypto_hash_sha256(h, bytes, n);
	memset(inner, 0, sizeof(*inner));

	if (!lv->have_session) {
		if ((lv->session = malloc(sess->len + 1)) == NULL)
			return (jh_errf(e, "out of memory"));
		memcpy(lv->session, sess->p, sess->len);
		lv->slen = sess->len;
		lv->have_session = 1;
	}
	if (sess->len != lv->slen || memcmp(sess->p, lv->session,
	    lv->slen) != 0)
		bad = jh_errf(e, "entry of another session (spliced in)");
	else if (lv->entries == 0 && seq->u != 0)
		bad = jh_errf(e, "the log does not start at seq 0 (seq %llu): "
		    "entries before it were removed",
		    (unsigned long long)seq->u);
	else if (lv->entries > 0 && seq->u != lv->seq + 1)
		bad = jh_errf(e, "seq %llu follows seq %llu: an entry was "
		    "removed, duplicated or reordered",
		    (unsigned long long)seq->u, (unsigned long long)lv->seq);
	else if (memcmp(prev->p, lv->entries ? lv->hash : zero,
	    JH_HASH_LEN) != 0 && !(lv->entries == 0 && seq->u != 0))
		bad = jh_errf(e, "prev is not the hash of the previous entry");

	if (!bad) {
		if (jh_verify_env(v, inner, a, rc->p, rc->len, &ie) == -1)
			bad = jh_errf(e, "embedded receipt: %s", ie.msg);
		else if ((kid = jh_kind_lookup(inner->kind)) ==
		    JH_KIND_CHAIN || kid == JH_KIND_CHECKPOINT ||
		    kid == JH_KIND_GRANT || kid == JH_KIND_REVOCATION)
			bad = jh_errf(e, "embedded receipt is a %s, which "
			    "belongs to no session", inner->kind);
		else if ((isess = jh_cbor_get(inner->core, "session")) ==
		    NULL || isess->len != sess->len ||
		    memcmp(isess->p, sess->p, sess->len) != 0)
			bad = jh_errf(e, "embedded receipt is of another "
			    "session");
		else {
			crypto_hash_sha256(ph, inner->payload_p,
			    inner->payload_len);
			first = seq->u;
			if ((r = hset_add(lv, ph, &first)) == -1)
				return (jh_errf(e, "out of memory"));
			if (r == 1)
				bad = jh_errf(e, "receipt already chained at "
				    "seq %llu (replayed)",
				    (unsigned long long)first);
		}
	}
	lv->seq = seq->u;
	memcpy(lv->hash, h, JH_HASH_LEN);
	if (lv->cp_count > 0 && seq->u == lv->cp_count - 1 && !bad)
		memcpy(lv->cp_hash, h, JH_HASH_LEN), lv->cp_seen = 1;
	lv->entries++;
	if (bad && lv->first_bad == 0) {
		lv->first_bad = lv->entries;
		lv->first_seq = seq->u;
		memcpy(lv->first_err, e->msg, sizeof(lv->first_err));
	}
	return (bad ? -1 : 0);
}

/*
 * Advances the log state past an entry that could not be checked (its
 * envelope failed), so the entries after it are judged on their own.
 */
void
jh_lv_skip(struct jh_lv *lv, const uint8_t *bytes, size_t n, const char *err)
{
	crypto_hash_sha256(lv->hash, bytes, n);
	lv->seq = lv->entries ? lv->seq + 1 : 0;
	lv->entries++;
	if (lv->first_bad == 0) {
		lv->first_bad = lv->entries;
		lv->first_seq = lv->seq;
		snprintf(lv->first_err, sizeof(lv->first_err), "%s", err);
	}
}

/*
 * Whether the item at off, which r found truncated, is a log's partial
 * last item rather than a defect: the log has entries, the item starts
 * as an envelope and is not over the limit.  If so, what it is goes in
 * out: an append in progress (a writer holds the lock on fd, -1 to not
 * look) or a torn tail that no append acknowledged.
 */
int
jh_log_tail(char *out, size_t sz, const struct jh_reader *r,
    const struct jh_lv *lv, uint64_t off, int fd, struct jh_err *e)
{
	uint64_t n = r->offset + r->b.len - off;

	if (lv->entries == 0 || r->b.p[r->pos] != 0xd2 || n > JH_MAX_RECORD)
		return (0);
	if (jh_env_within(r->b.p + r->pos, r->b.len - r->pos, "chain/1")) {
		jh_errf(e, "an entry's length was altered: the %llu bytes "
		    "from here, which do not frame, hold whole signed chain "
		    "entries, so they are not a torn append",
		    (unsigned long long)n);
		return (0);
	}
	if (fd != -1 && flock(fd, LOCK_SH | LOCK_NB) == -1 &&
	    errno == EWOULDBLOCK)
		snprintf(out, sz, "a partial last item: an append is in "
		    "progress");
	else
		snprintf(out, sz, "a torn tail of %llu bytes: an append that "
		    "never completed, never acknowledged",
		    (unsigned long long)n);
	return (1);
}

/*
 * The JSON line of a chain entry: {ok, kind: inner kind, core: inner
 * core, chain: {seq, prev, session, ts}}, so the same jq filters work on
 * bare receipts and on logs.
 */
int
jh_entry_json(struct jh_buf *b, const struct jh_env *ent,
    const struct jh_env *inner, int ok, const char *err)
{
	const struct jh_cbor *v;

	jh_buf_addf(b, "{\"ok\":%s", ok ? "true" : "false");
	if (inner != NULL && inner->kind != NULL) {
		jh_buf_adds(b, ",\"kind\":");
		jh_json_str(b, inner->kind, strlen(inner->kind));
		jh_buf_adds(b, ",\"core\":");
		jh_cbor_to_json(b, inner->core);
	}
	jh_buf_adds(b, ",\"chain\":{\"seq\":");
	jh_cbor_to_json(b, jh_cbor_get(ent->core, "seq"));
	jh_buf_adds(b, ",\"prev\":");
	jh_cbor_to_json(b, jh_cbor_get(ent->core, "prev"));
	jh_buf_adds(b, ",\"session\":");
	jh_cbor_to_json(b, jh_cbor_get(ent->core, "session"));
	if ((v = jh_cbor_get(ent->core, "ts")) != NULL) {
		jh_buf_adds(b, ",\"ts\":");
		jh_cbor_to_json(b, v);
	}
	jh_buf_addc(b, '}');
	if (err != NULL) {
		jh_buf_adds(b, ",\"error\":");
		jh_json_str(b, err, strlen(err));
	}
	jh_buf_addc(b, '}');
	return (b->oom ? -1 : 0);
}

/*
 * For jh-chain -j: the JSON line of an entry it just wrote.  Anything
 * but a chain/1 entry by that kind's rules is refused, as jh_entry_json
 * reads its seq, prev and session unchecked.
 */
int
jh_chain_json(struct jh_buf *b, const uint8_t *p, size_t n)
{
	struct jh_arena a;
	struct jh_env ent, inner;
	struct jh_err e;
	const struct jh_cbor *rc;
	int r = -1;

	jh_arena_init(&a);
	if (jh_env_parse(&ent, &a, p, n, &e) == 0 &&
	    strcmp(ent.kind, "chain/1") == 0 &&
	    jh_kind_check(ent.core, JH_KIND_CHAIN, &e) == 0 &&
	    (rc = jh_cbor_get(ent.core, "receipt")) != NULL &&
	    jh_env_parse(&inner, &a, rc->p, rc->len, &e) == 0)
		r = jh_entry_json(b, &ent, &inner, 1, NULL);
	jh_arena_free(&a);
	return (r);
}
