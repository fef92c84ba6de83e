/*
 * fuzz-envelope: bytes -> the strict CBOR decoder (lib/cbor.c) and the
 * JCR-1 envelope (COSE_Sign1) parser and verifier (lib/cose.c,
 * lib/verify.c, lib/kinds.c), which take whatever a log, a grant file or
 * a peer hands jh-verify.  Checked:
 *
 *   - an item the decoder accepts is canonical: re-encoded it is the same
 *     bytes, and the well-formedness scan (jh_cbor_item_len) ends where
 *     the decoder did; its JSON rendering (jh-verify's output) is JSON;
 *   - an envelope jh_env_parse accepts points inside the input, and
 *     jh_verify_env accepts it only if its kind's rules hold;
 *   - its payload sealed again with the test key of its kind's role
 *     verifies exactly when the kind's rules hold and the core names that
 *     key as its steward (the fuzzer cannot forge a signature, so this is
 *     how the checks after the signature are reached);
 *   - a chain/1 entry that verifies goes through the log checker
 *     (jh_lv_entry) and its JSON line (jh_entry_json) is JSON.
 *
 * Keys: the fixed test keys of conformance/v1/keys, loaded once.
 */
#include "fuzz-common.h"

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "verify.h"

static struct jh_verifier fz_v;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_world("fuzz-envelope", "CBOR decoder, envelope parser, verifier "
	    "and kind checks (test keys)");
	fz_keys();
	jh_verifier_init(&fz_v, &fz_trust);
	return (0);
}

/*
 * What jh-verify prints must be JSON.  Duplicate keys may happen (a
 * non-text map key is rendered as a string), and jansson takes no
 * U+0000 in a key, which JSON allows (each \u0000 is read as \u0001),
 * nor an integer beyond int64 (a tag's number), read as a real.
 */
static void
is_json(const struct jh_buf *b)
{
	json_error_t je;
	json_t *j;
	char *t, *p;

	if (b->oom || (t = malloc(b->len + 1)) == NULL)
		return;
	memcpy(t, b->p, b->len);
	t[b->len] = '\0';
	for (p = t; (p = memmem(p, b->len - (size_t)(p - t), "\\u0000",
	    6)) != NULL; p += 6)
		p[5] = '1';
	j = json_loadb(t, b->len, JSON_DECODE_ANY | JSON_ALLOW_NUL |
	    JSON_DECODE_INT_AS_REAL, &je);
	if (j == NULL) {
		fprintf(stderr, "not JSON (%s): %.*s\n", je.text,
		    (int)(b->len > 2000 ? 2000 : b->len), t);
		abort();
	}
	json_decref(j);
	free(t);
}

/*
 * How deep map keys that are themselves maps or arrays nest.  Each such
 * key is rendered, then quoted as a string, so the rendering doubles in
 * size with each level (a 1 kB item renders to gigabytes): a core, the
 * only thing the programs render, has text keys alone, so the targets
 * render only items whose keys nest at most KEYNEST deep.
 */
#define KEYNEST	6

static int
keynest(const struct jh_cbor *v)
{
	size_t i;
	int m = 0, k;

	if (v->type == JH_CBOR_TAG)
		return (keynest(v->v));
	if (v->type == JH_CBOR_ARRAY)
		for (i = 0; i < v->len; i++)
			if ((k = keynest(&v->v[i])) > m)
				m = k;
	if (v->type == JH_CBOR_MAP)
		for (i = 0; i < v->len; i++) {
			const struct jh_cbor *key = &v->v[2 * i];
			if ((key->type == JH_CBOR_MAP ||
			    key->type == JH_CBOR_ARRAY ||
			    key->type == JH_CBOR_TAG) &&
			    (k = 1 + keynest(key)) > m)
				m = k;
			if ((k = keynest(&v->v[2 * i + 1])) > m)
				m = k;
		}
	return (m);
}

static void
cbor(const uint8_t *d, size_t n)
{
	struct jh_arena a;
	struct jh_cbor *v;
	struct jh_buf b;
	struct jh_err e;
	size_t used = 0, wf = 0;

	jh_arena_init(&a);
	jh_buf_init(&b);
	if (jh_cbor_decode(&v, &used, &a, d, n, JH_CBOR_ALLOW_TAG |
	    JH_CBOR_ALLOW_FLOAT | JH_CBOR_ALLOW_SIMPLE, &e) == JH_CBOR_OK) {
		if (used == 0 || used > n || v->off != 0 || v->end != used)
			abort();
		if (jh_cbor_item_len(&wf, d, n, &e) != JH_CBOR_OK ||
		    wf != used) {
			fprintf(stderr, "decoded %zu bytes, well-formed %zu: "
			    "%s\n", used, wf, e.msg);
			abort();
		}
		if (jh_cbor_encode(&b, v, &e) == 0 && (b.len != used ||
		    memcmp(b.p, d, used) != 0)) {
			fprintf(stderr, "re-encoded %zu bytes of %zu differ\n",
			    b.len, used);
			abort();
		}
		jh_buf_reset(&b);
		if (keynest(v) <= KEYNEST && jh_cbor_to_json(&b, v) == 0)
			is_json(&b);
	} else if (memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
		abort();
	jh_buf_free(&b);
	jh_arena_free(&a);
}

/* Inside [d, d + n). */
static int
inside(const uint8_t *p, size_t len, const uint8_t *d, size_t n)
{
	return (p >= d && len <= n && (size_t)(p - d) <= n - len);
}

static void
chain_entry(const struct jh_env *ent, const uint8_t *p, size_t n,
    struct jh_arena *a)
{
	struct jh_lv lv;
	struct jh_env inner;
	struct jh_buf b;
	struct jh_err e;
	int ok;

	jh_lv_init(&lv);
	jh_buf_init(&b);
	ok = jh_lv_entry(&lv, &fz_v, ent, p, n, &inner, a, &e) == 0;
	if (lv.entries != 1 || (!ok && lv.first_bad != 1))
		abort();
	jh_entry_json(&b, ent, ok ? &inner : NULL, ok, ok ? NULL : e.msg);
	is_json(&b);
	jh_buf_free(&b);
	jh_lv_free(&lv);
}

/* The payload sealed again with the key of the kind's role. */
static void
reseal(const struct jh_env *env, int kid, int rules)
{
	const struct jh_key *k = jh_kind_role(kid) == JH_ROLE_ISSUER ?
	    &fz_issuer : &fz_steward;
	struct jh_arena a;
	struct jh_env env2;
	struct jh_sealed own;
	struct jh_buf s;
	struct jh_err e;
	int want, got;

	jh_arena_init(&a);
	jh_buf_init(&s);
	if (jh_seal(&s, k, env->payload_p, env->payload_len, &e) == -1)
		goto out;
	want = rules == 0 &&
	    jh_cbor_text_is(jh_cbor_get(env->core, "steward"), k->did);
	got = jh_verify_env(&fz_v, &env2, &a, s.p, s.len, &e) == 0;
	if (want != got) {
		fprintf(stderr, "resealed %s: verify says %s (%s), the kind's "
		    "rules say %s\n", env->kind, got ? "yes" : "no",
		    got ? "" : e.msg, want ? "yes" : "no");
		abort();
	}
	/* vouched for as sealed here, the signature unchecked: the same */
	memset(&own, 0, sizeof(own));
	jh_sealed_add(&own, s.p, s.len);
	fz_v.own = &own;
	if ((jh_verify_env(&fz_v, &env2, &a, s.p, s.len, &e) == 0) != got)
		abort();
	fz_v.own = NULL;
	jh_sealed_free(&own);
	if (got && kid == JH_KIND_CHAIN)
		chain_entry(&env2, s.p, s.len, &a);
out:
	jh_buf_free(&s);
	jh_arena_free(&a);
}

/*
 * Bytes that differ from what was sealed here in one byte (the last) are
 * not vouched for: their signature is checked as if no set were given.
 */
static void
not_vouched(const uint8_t *d, size_t n, int ok)
{
	struct jh_sealed own;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	uint8_t *c;

	if (n == 0 || (c = malloc(n)) == NULL)
		return;
	memcpy(c, d, n);
	c[n - 1] ^= 1;
	memset(&own, 0, sizeof(own));
	jh_sealed_add(&own, c, n);
	free(c);		/* the set keeps its own copy */
	jh_arena_init(&a);
	fz_v.own = &own;
	if ((jh_verify_env(&fz_v, &env, &a, d, n, &e) == 0) != ok)
		abort();
	fz_v.own = NULL;
	jh_arena_free(&a);
	jh_sealed_free(&own);
}

static void
envelope(const uint8_t *d, size_t n)
{
	struct jh_arena a;
	struct jh_env env, env2;
	struct jh_buf b;
	struct jh_err e;
	int kid, rules = -1, ok;

	jh_arena_init(&a);
	jh_buf_init(&b);
	if (jh_env_parse(&env, &a, d, n, &e) == -1) {
		if (memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
			abort();
		/* a bad envelope never verifies */
		if (jh_verify_env(&fz_v, &env2, &a, d, n, &e) == 0)
			abort();
		goto out;
	}
	if (!inside(env.protected_p, env.protected_len, d, n) ||
	    !inside(env.payload_p, env.payload_len, d, n) ||
	    !inside(env.sig, JH_SIG_LEN, d, n) || env.core == NULL ||
	    env.core->type != JH_CBOR_MAP || env.kind == NULL ||
	    strlen(env.kind) > 64 || (env.alg != COSE_ALG_EDDSA &&
	    env.alg != COSE_ALG_ED25519))
		abort();
	if ((kid = jh_kind_lookup(env.kind)) != 0) {
		rules = jh_kind_check(env.core, kid, &e);
		if (strcmp(jh_kind_name(kid), env.kind) != 0)
			abort();
	}
	ok = jh_verify_env(&fz_v, &env2, &a, d, n, &e) == 0;
	not_vouched(d, n, ok);
	if (ok && rules != 0) {
		fprintf(stderr, "%s verifies, but its kind's rules do not hold"
		    "\n", env.kind);
		abort();
	}
	if (kid != 0)
		reseal(&env, kid, rules);
	if (jh_chain_json(&b, d, n) == 0)
		is_json(&b);
out:
	jh_buf_free(&b);
	jh_arena_free(&a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	cbor(d, n);
	envelope(d, n);
	return (0);
}
