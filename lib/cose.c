/*
 * joulehook: JCR-1 envelopes, COSE_Sign1 (RFC 9052) with Ed25519.
 *
 *	#6.18([ bstr(detCBOR({1: -8, 4: kid})), {}, bstr(payload), bstr(sig) ])
 *	Sig_structure = ["Signature1", protected, h'', payload]
 *
 * Verification signs over the exact received byte ranges of protected
 * and payload, never over a re-encoding; the strict decoder has already
 * refused any encoding that is not canonical, so the two are the same
 * bytes for every envelope that gets this far.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "keys.h"

#define SIG1_CONTEXT	"Signature1"

static void
sig_structure(struct jh_buf *b, const uint8_t *prot, size_t plen,
    const uint8_t *payload, size_t paylen)
{
	jh_cbor_head(b, 4, 4);
	jh_cbor_put_text(b, SIG1_CONTEXT, strlen(SIG1_CONTEXT));
	jh_cbor_put_bytes(b, prot, plen);
	jh_cbor_put_bytes(b, NULL, 0);
	jh_cbor_put_bytes(b, payload, paylen);
}

/* Seals a canonical core (payload bytes) into an envelope appended to out. */
int
jh_seal(struct jh_buf *out, const struct jh_key *k, const uint8_t *payload,
    size_t paylen, struct jh_err *e)
{
	struct jh_buf prot, tbs;
	uint8_t sig[JH_SIG_LEN];
	int rc = -1;

	jh_buf_init(&prot);
	jh_buf_init(&tbs);
	/* Keys 1 < 4 already in canonical order. */
	jh_cbor_head(&prot, 5, 2);
	jh_cbor_put_int(&prot, COSE_HDR_ALG);
	jh_cbor_put_int(&prot, COSE_ALG_EDDSA);
	jh_cbor_put_int(&prot, COSE_HDR_KID);
	jh_cbor_put_bytes(&prot, k->pk, JH_PK_LEN);
	sig_structure(&tbs, prot.p, prot.len, payload, paylen);
	if (prot.oom || tbs.oom) {
		jh_errf(e, "out of memory");
		goto out;
	}
	if (crypto_sign_detached(sig, NULL, tbs.p, tbs.len, k->sk) != 0) {
		jh_errf(e, "signing failed");
		goto out;
	}
	jh_cbor_head(out, 6, COSE_TAG_SIGN1);
	jh_cbor_head(out, 4, 4);
	jh_cbor_put_bytes(out, prot.p, prot.len);
	jh_cbor_head(out, 5, 0);
	jh_cbor_put_bytes(out, payload, paylen);
	jh_cbor_put_bytes(out, sig, sizeof(sig));
	if (out->oom) {
		jh_errf(e, "out of memory");
		goto out;
	}
	rc = 0;
out:
	jh_buf_free(&prot);
	jh_buf_free(&tbs);
	return (rc);
}

static int
int_value(const struct jh_cbor *v, int64_t *out)
{
	if (v->type == JH_CBOR_UINT && v->u <= (uint64_t)INT64_MAX)
		*out = (int64_t)v->u;
	else if (v->type == JH_CBOR_NINT && v->u < (uint64_t)INT64_MAX)
		*out = -1 - (int64_t)v->u;
	else
		return (-1);
	return (0);
}

/*
 * Parses an envelope from exactly the bytes given, checking its shape,
 * its canonical form, the protected header and the core's data model.
 * It does not check the signature or whether the kid is trusted.
 */
int
jh_env_parse(struct jh_env *env, struct jh_arena *a, const uint8_t *p,
    size_t n, struct jh_err *e)
{
	struct jh_cbor *top, *prot, *core;
	const struct jh_cbor *arr, *kind;
	int have_alg = 0, have_kid = 0;
	size_t i;
	char *ks;

	memset(env, 0, sizeof(*env));
	if (jh_cbor_decode_all(&top, a, p, n, JH_CBOR_ALLOW_TAG |
	    JH_CBOR_ALLOW_FLOAT | JH_CBOR_ALLOW_SIMPLE, e) != 0)
		return (-1);
	if (top->type != JH_CBOR_TAG)
		return (jh_errf(e, "untagged envelope (expected COSE_Sign1, "
		    "tag 18)"));
	if (top->u != COSE_TAG_SIGN1)
		return (jh_errf(e, "wrong tag %llu (expected COSE_Sign1, "
		    "tag 18)", (unsigned long long)top->u));
	arr = top->v;
	if (arr->type != JH_CBOR_ARRAY || arr->len != 4)
		return (jh_errf(e, "COSE_Sign1 is not an array of 4"));
	if (arr->v[0].type != JH_CBOR_BYTES)
		return (jh_errf(e, "protected header is not a byte string"));
	if (arr->v[1].type != JH_CBOR_MAP)
		return (jh_errf(e, "unprotected header is not a map"));
	if (arr->v[1].len != 0)
		return (jh_errf(e, "non-empty unprotected header (it is not "
		    "signed)"));
	if (arr->v[2].type != JH_CBOR_BYTES)
		return (jh_errf(e, "payload is not a byte string"));
	if (arr->v[3].type != JH_CBOR_BYTES || arr->v[3].len != JH_SIG_LEN)
		return (jh_errf(e, "signature is not 64 bytes"));
	env->protected_p = arr->v[0].p;
	env->protected_len = arr->v[0].len;
	env->payload_p = arr->v[2].p;
	env->payload_len = arr->v[2].len;
	env->sig = arr->v[3].p;

	if (jh_cbor_decode_all(&prot, a, env->protected_p, env->protected_len,
	    0, e) != 0) {
		char m[sizeof(e->msg)];
		memcpy(m, e->msg, sizeof(m));
		return (jh_errf(e, "protected header: %s", m));
	}
	if (prot->type != JH_CBOR_MAP)
		return (jh_errf(e, "protected header is not a map"));
	for (i = 0; i < prot->len; i++) {
		int64_t label;
		const struct jh_cbor *v = &prot->v[2 * i + 1];

		if (int_value(&prot->v[2 * i], &label) == -1)
			return (jh_errf(e, "protected header: unexpected "
			    "label"));
		if (label == COSE_HDR_ALG) {
			if (int_value(v, &env->alg) == -1)
				return (jh_errf(e, "alg is not an integer"));
			if (env->alg != COSE_ALG_EDDSA &&
			    env->alg != COSE_ALG_ED25519)
				return (jh_errf(e, "unsupported alg %lld (only "
				    "-8 and -19 are accepted)",
				    (long long)env->alg));
			have_alg = 1;
		} else if (label == COSE_HDR_KID) {
			if (v->type != JH_CBOR_BYTES || v->len != JH_PK_LEN)
				return (jh_errf(e, "kid is not a 32-byte "
				    "Ed25519 public key"));
			memcpy(env->kid, v->p, JH_PK_LEN);
			have_kid = 1;
		} else
			return (jh_errf(e, "protected header: unexpected "
			    "label %lld", (long long)label));
	}
	if (!have_alg)
		return (jh_errf(e, "protected header has no alg"));
	if (!have_kid)
		return (jh_errf(e, "protected header has no kid"));

	if (jh_cbor_decode_all(&core, a, env->payload_p, env->payload_len,
	    JH_CBOR_ALLOW_FLOAT | JH_CBOR_ALLOW_SIMPLE, e) != 0) {
		char m[sizeof(e->msg)];
		memcpy(m, e->msg, sizeof(m));
		return (jh_errf(e, "payload: %s", m));
	}
	if (jh_cbor_core_check(core, e) == -1)
		return (-1);
	env->core = core;
	if ((kind = jh_cbor_get(core, "kind")) == NULL ||
	    kind->type != JH_CBOR_TEXT || kind->len > 64)
		return (jh_errf(e, "core has no kind"));
	if ((ks = jh_arena_alloc(a, kind->len + 1)) == NULL)
		return (jh_errf(e, "out of memory"));
	memcpy(ks, kind->p, kind->len);
	ks[kind->len] = '\0';
	if (memchr(ks, '\0', kind->len) != NULL)
		return (jh_errf(e, "kind holds a NUL"));
	env->kind = ks;
	return (0);
}

int
jh_env_verify_sig(const struct jh_env *env, struct jh_err *e)
{
	struct jh_buf tbs;
	int ok;

	jh_buf_init(&tbs);
	sig_structure(&tbs, env->protected_p, env->protected_len,
	    env->payload_p, env->payload_len);
	if (tbs.oom) {
		jh_buf_free(&tbs);
		return (jh_errf(e, "out of memory"));
	}
	ok = crypto_sign_verify_detached(env->sig, tbs.p, tbs.len,
	    env->kid) == 0;
	jh_buf_free(&tbs);
	if (!ok)
		return (jh_errf(e, "bad signature"));
	return (0);
}

void
jh_sealed_add(struct jh_sealed *s, const uint8_t *p, size_t len)
{
	if (s->n < JH_SEALED_MAX && len > 0 &&
	    (s->p[s->n] = malloc(len)) != NULL) {
		memcpy(s->p[s->n], p, len);
		s->len[s->n++] = len;
	}
}

void
jh_sealed_free(struct jh_sealed *s)
{
	while (s->n > 0)
		free(s->p[--s->n]);
}

int
jh_env_check_sig(const struct jh_env *env, const struct jh_sealed *own,
    const uint8_t *p, size_t n, struct jh_err *e)
{
	size_t i;

	for (i = 0; own != NULL && i < own->n; i++)
		if (own->len[i] == n && memcmp(own->p[i], p, n) == 0)
			return (0);
	return (jh_env_verify_sig(env, e));
}

int
jh_env_within(const uint8_t *p, size_t n, const char *kind)
{
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	size_t i, len, tries = 0;
	int hit = 0;

	jh_arena_init(&a);
	for (i = 1; i + 1 < n && !hit; i++) {
		/* tag 18 (COSE_Sign1) on an array of four */
		if (p[i] != 0xd2 || p[i + 1] != 0x84)
			continue;
		if (++tries > JH_ENV_SCAN) {
			hit = 1;
			break;
		}
		if (jh_cbor_item_len(&len, p + i, n - i, &e) != JH_CBOR_OK)
			continue;
		jh_arena_reset(&a);
		hit = jh_env_parse(&env, &a, p + i, len, &e) == 0 &&
		    env.kind != NULL && strcmp(env.kind, kind) == 0 &&
		    jh_env_verify_sig(&env, &e) == 0;
	}
	jh_arena_free(&a);
	return (hit);
}
