/*
 * jh-verify: check sealed objects and whole logs against trusted keys;
 * print one JSON line per object for jq.
 */
#include <err.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "checkpoint.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "ledger.h"
#include "status.h"
#include "util.h"
#include "verify.h"

#define PROG "jh-verify"

/*
 * What a receipt did to a ledger, for ledger replay: counted once by
 * payload hash and type.  A debit names its grant; a hold (a hold/1, an
 * ask) its grant and id; a settlement only the id of the hold it closes.
 */
enum { R_DEBIT, R_HOLD, R_SETTLE };

struct debit {
	uint8_t ph[JH_HASH_LEN];
	int type;
	uint8_t grant[JH_HASH_LEN];
	uint64_t amount;
	char id[64];
	uint8_t key[JH_HASH_LEN];	/* SHA-256 of session, NUL, id */
};

struct replay {
	struct debit *v;
	size_t n;
	size_t cap;
};

/* A shard grant given (jh-grant shard): its id, its parent's, its share. */
struct shard {
	uint8_t id[JH_HASH_LEN];
	char parent[JH_ID_LEN];
	uint64_t parent_uj;
	uint64_t budget;
	uint64_t n;		/* siblings, itself included */
	uint64_t rebuilt;	/* what its ledger's replay found */
	int seen;		/* its ledger had receipts */
};

struct shards {
	struct shard *v;
	size_t n;
};

/* A grant given, for the delegation check (a child's link to its parent). */
struct grantrec {
	char id[JH_ID_LEN], ledger[JH_ID_LEN], parent[JH_ID_LEN];
	char agent[64], holder[JH_DIDKEY_MAX], issuer[JH_DIDKEY_MAX];
	uint64_t depth, budget, nbf, exp;
};

struct grants {
	struct grantrec *v;
	size_t n;
};

struct opts {
	int quiet;
	const char *ledgerdir;	/* "-": rebuild only, no ledger files */
	struct replay rp;
	struct shards sh;
	struct grants gs;	/* every grant verified, for -L and chains */
	struct jh_keyset keys;
	struct jh_verifier v;
	const struct jh_cp *cp;	/* the one the log at hand is checked with */
	int cp_named;		/* ... which its file's name chose */
	struct jh_cps cps;	/* -c: every checkpoint the file holds */
	unsigned char *cp_used;	/* ... each of whose session a log was given */
};

struct tally {
	unsigned long objects;
	unsigned long ok;
	unsigned long failed;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-q] [-c checkpoint] [-L ledgerdir] [-p didkey] "
	    "[-s stewards]\n"
	    "                 [-t trust] [file ...]\n"
	    "       %s -h\n", PROG, PROG);
	exit(status);
}

static int
put(struct jh_buf *out)
{
	if (out->oom || fwrite(out->p, 1, out->len, stdout) != out->len)
		return (-1);
	return (0);
}

static void
quiet_err(const char *src, unsigned long idx, uint64_t off, const char *m)
{
	fprintf(stderr, "%s: %s: item %lu (offset %llu): %s\n", PROG, src,
	    idx, (unsigned long long)off, m);
}

static int
report_fail(struct jh_buf *out, const struct opts *o, const char *src,
    unsigned long idx, uint64_t off, const char *msg)
{
	if (o->quiet) {
		quiet_err(src, idx, off, msg);
		return (0);
	}
	jh_buf_reset(out);
	jh_buf_adds(out, "{\"ok\":false,\"file\":");
	jh_json_str(out, src, strlen(src));
	jh_buf_addf(out, ",\"item\":%lu,\"offset\":%llu,\"error\":", idx,
	    (unsigned long long)off);
	jh_json_str(out, msg, strlen(msg));
	jh_buf_adds(out, "}\n");
	return (put(out));
}

/*
 * Whether a log of cp's session that was not given is there, under the
 * name jh-chain gives it, in the directory of a log given: then it was
 * not asked about.  One that is in none of them was deleted, or the
 * logs given are not where the session's log was kept; either fails.
 */
static int
log_beside(const struct jh_cp *cp, int argc, char *argv[])
{
	char hex[2 * JH_HASH_LEN + 1], p[PATH_MAX];
	const char *slash;
	int i;

	jh_st_digest(hex, (const uint8_t *)cp->session, cp->slen);
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0)
			continue;
		slash = strrchr(argv[i], '/');
		if ((size_t)snprintf(p, sizeof(p), "%.*s%s.jhl", slash == NULL ?
		    0 : (int)(slash - argv[i] + 1), argv[i], hex) < sizeof(p) &&
		    access(p, F_OK) == 0)
			return (1);
	}
	return (0);
}

/*
 * The sessions of the checkpoint file that no log given was of, each
 * said once: the failures they count.  One left out is excused where its
 * log is beside a log given, and some log of the file's was given.
 */
static unsigned long
cp_missing(struct opts *o, int argc, char *argv[])
{
	unsigned long n = 0;
	size_t i, j;
	int any = 0;

	for (i = 0; i < o->cps.n; i++)
		any |= o->cp_used[i];
	for (i = 0; i < o->cps.n; i++) {
		if (o->cp_used[i])
			continue;
		for (j = i; j < o->cps.n; j++)
			if (o->cps.v[j].slen == o->cps.v[i].slen &&
			    memcmp(o->cps.v[j].session, o->cps.v[i].session,
			    o->cps.v[i].slen) == 0)
				o->cp_used[j] = 1;
		if (any && log_beside(&o->cps.v[i], argc, argv))
			continue;
		n++;
		warnx("no log of the checkpoint's session %.*s was given, nor "
		    "is one beside the logs given", (int)o->cps.v[i].slen,
		    o->cps.v[i].session);
	}
	return (n);
}

/* A log of o->cp's session was given: every checkpoint of it is used. */
static void
cp_used(struct opts *o)
{
	size_t i;

	for (i = 0; i < o->cps.n; i++)
		if (o->cps.v[i].slen == o->cp->slen && memcmp(
		    o->cps.v[i].session, o->cp->session, o->cp->slen) == 0)
			o->cp_used[i] = 1;
}

/* One line for a log: its extent, head, and what a checkpoint added. */
static int
log_summary(struct jh_buf *out, struct opts *o, const char *src,
    struct jh_lv *lv, const char *tail, int other_bad, struct tally *t)
{
	char hex[2 * JH_HASH_LEN + 1], note[256];
	int cp_fail = 0;

	jh_hex(hex, lv->hash, JH_HASH_LEN);
	if (o->cp != NULL && lv->have_session && lv->slen == o->cp->slen &&
	    memcmp(lv->session, o->cp->session, lv->slen) == 0) {
		cp_used(o);
		cp_fail = jh_cp_note(o->cp, lv, note, sizeof(note));
	} else if (o->cp != NULL && o->cp_named) {
		/* named as its session's log, it holds none of it: emptied */
		cp_used(o);
		cp_fail = 1;
		snprintf(note, sizeof(note), "truncated: the checkpoint has "
		    "%llu entries, the log none of its session",
		    (unsigned long long)o->cp->count);
	} else
		snprintf(note, sizeof(note), "verified as a prefix only: "
		    "without a checkpoint, a truncated tail cannot be "
		    "detected");
	if (cp_fail) {
		t->failed++;
		if (o->quiet)
			fprintf(stderr, "%s: %s: %s\n", PROG, src, note);
	}
	if (o->quiet)
		return (0);
	jh_buf_reset(out);
	jh_buf_adds(out, "{\"log\":{\"file\":");
	jh_json_str(out, src, strlen(src));
	jh_buf_adds(out, ",\"session\":");
	jh_json_str(out, (const char *)lv->session, lv->slen);
	jh_buf_addf(out, ",\"entries\":%llu,\"head\":\"%s\",\"ok\":%s",
	    (unsigned long long)lv->entries, hex,
	    lv->first_bad == 0 && !cp_fail && !other_bad ? "true" : "false");
	if (lv->first_bad) {
		jh_buf_addf(out, ",\"first_broken\":{\"entry\":%llu,\"seq\":"
		    "%llu,\"error\":", (unsigned long long)lv->first_bad,
		    (unsigned long long)lv->first_seq);
		jh_json_str(out, lv->first_err, strlen(lv->first_err));
		jh_buf_addc(out, '}');
	}
	jh_buf_adds(out, ",\"extent\":");
	jh_json_str(out, note, strlen(note));
	if (tail != NULL) {
		jh_buf_adds(out, ",\"tail\":");
		jh_json_str(out, tail, strlen(tail));
	}
	jh_buf_adds(out, "}}\n");
	return (put(out));
}

static void
add(struct opts *o, const struct jh_env *env, int type, const struct
    jh_cbor *g, uint64_t amount, const struct jh_cbor *id)
{
	struct debit *x;

	if (o->rp.n == o->rp.cap) {
		size_t nc = o->rp.cap ? 2 * o->rp.cap : 1024;
		if ((x = realloc(o->rp.v, nc * sizeof(*x))) == NULL)
			errx(2, "out of memory");
		o->rp.v = x;
		o->rp.cap = nc;
	}
	x = &o->rp.v[o->rp.n];
	memset(x, 0, sizeof(*x));
	if (g != NULL && jh_unhex(x->grant, JH_HASH_LEN,
	    (const char *)g->p + 7, 64) == -1)
		return;
	crypto_hash_sha256(x->ph, env->payload_p, env->payload_len);
	x->type = type;
	x->amount = amount;
	if (id != NULL && id->type == JH_CBOR_TEXT) {
		const struct jh_cbor *s = jh_cbor_get(env->core, "session");
		crypto_hash_sha256_state h;

		snprintf(x->id, sizeof(x->id), "%.*s", (int)(id->len < 63 ?
		    id->len : 63), (const char *)id->p);
		/* A hold is settled by its own session's receipt only. */
		crypto_hash_sha256_init(&h);
		if (s != NULL && s->type == JH_CBOR_TEXT)
			crypto_hash_sha256_update(&h, s->p, s->len);
		crypto_hash_sha256_update(&h, (const uint8_t *)"", 1);
		crypto_hash_sha256_update(&h, id->p, id->len);
		crypto_hash_sha256_final(&h, x->key);
	}
	o->rp.n++;
}

static uint64_t
uint_field(const struct jh_cbor *core, const char *k)
{
	const struct jh_cbor *v = jh_cbor_get(core, k);

	return (v != NULL && v->type == JH_CBOR_UINT ? v->u : 0);
}

/* A shard grant (checked by its kind: its figures are consistent). */
static void
record_shard(struct opts *o, const struct jh_env *env,
    const struct jh_cbor *sh)
{
	const struct jh_cbor *p = jh_cbor_get(sh, "parent"),
	    *bs = jh_cbor_get(sh, "budgets");
	struct shard *x;
	size_t i;

	uint8_t id[JH_HASH_LEN];

	crypto_hash_sha256(id, env->payload_p, env->payload_len);
	for (i = 0; i < o->sh.n; i++)
		if (memcmp(id, o->sh.v[i].id, JH_HASH_LEN) == 0)
			return;		/* given twice */
	if ((x = realloc(o->sh.v, (o->sh.n + 1) * sizeof(*x))) == NULL)
		errx(2, "out of memory");
	o->sh.v = x;
	x = &o->sh.v[o->sh.n++];
	memset(x, 0, sizeof(*x));
	memcpy(x->id, id, JH_HASH_LEN);
	snprintf(x->parent, sizeof(x->parent), "%.*s", (int)p->len,
	    (const char *)p->p);
	x->parent_uj = uint_field(sh, "parent_uj");
	x->budget = uint_field(env->core, "budget_uj");
	x->n = bs->len;
}

/*
 * After the ledgers: each parent whose shards were given, with what its
 * shards' receipts rebuilt together, so a team that split one budget
 * across machines sees the parent's total.
 */
static int
shard_totals(struct opts *o)
{
	struct jh_buf out;
	size_t i, j;
	int rc = 0;

	jh_buf_init(&out);
	for (i = 0; i < o->sh.n; i++) {
		uint64_t rebuilt = 0, budgets = 0, given = 0, seen = 0;
		int first = 1;

		for (j = 0; j < i && first; j++)
			if (strcmp(o->sh.v[j].parent, o->sh.v[i].parent) == 0)
				first = 0;
		if (!first)
			continue;
		for (j = i; j < o->sh.n; j++) {
			if (strcmp(o->sh.v[j].parent, o->sh.v[i].parent) != 0)
				continue;
			given++;
			budgets = jh_add_sat(budgets, o->sh.v[j].budget);
			rebuilt = jh_add_sat(rebuilt, o->sh.v[j].rebuilt);
			seen += o->sh.v[j].seen;
		}
		if (o->quiet)
			continue;
		jh_buf_reset(&out);
		jh_buf_addf(&out, "{\"shards\":{\"parent\":\"%s\","
		    "\"parent_uj\":%llu,\"shards\":%llu,\"given\":%llu,"
		    "\"with_receipts\":%llu,\"budgets_uj\":%llu,"
		    "\"rebuilt_uj\":%llu}}\n", o->sh.v[i].parent,
		    (unsigned long long)o->sh.v[i].parent_uj,
		    (unsigned long long)o->sh.v[i].n,
		    (unsigned long long)given, (unsigned long long)seen,
		    (unsigned long long)budgets, (unsigned long long)rebuilt);
		if (put(&out) == -1)
			rc = -1;
	}
	jh_buf_free(&out);
	return (rc);
}

static void
copy_text(char *dst, size_t sz, const struct jh_cbor *v)
{
	dst[0] = '\0';
	if (v != NULL && v->type == JH_CBOR_TEXT)
		snprintf(dst, sz, "%.*s", (int)(v->len < sz - 1 ? v->len :
		    sz - 1), (const char *)v->p);
}

/* Every grant verified is kept: a child's parent may be given with it. */
static void
record_grant(struct opts *o, const struct jh_env *env)
{
	const struct jh_cbor *c = env->core;
	struct grantrec *x;

	if (c == NULL || strcmp(env->kind, "grant/1") != 0)
		return;
	if ((x = realloc(o->gs.v, (o->gs.n + 1) * sizeof(*x))) == NULL)
		errx(2, "out of memory");
	o->gs.v = x;
	x = &o->gs.v[o->gs.n++];
	memset(x, 0, sizeof(*x));
	jh_sha256_id(x->id, env->payload_p, env->payload_len);
	copy_text(x->ledger, sizeof(x->ledger), jh_cbor_get(c, "ledger"));
	if (x->ledger[0] == '\0')
		memcpy(x->ledger, x->id, sizeof(x->ledger));
	copy_text(x->parent, sizeof(x->parent), jh_cbor_get(c, "parent"));
	copy_text(x->agent, sizeof(x->agent), jh_cbor_get(c, "agent"));
	copy_text(x->holder, sizeof(x->holder), jh_cbor_get(c, "holder"));
	copy_text(x->issuer, sizeof(x->issuer), jh_cbor_get(c, "issuer"));
	x->depth = uint_field(c, "depth");
	x->budget = uint_field(c, "budget_uj");
	x->nbf = uint_field(c, "nbf");
	x->exp = uint_field(c, "exp");
}

/*
 * After the last file: each child grant whose parent was given with it
 * is checked root first, as the gate checks it (joulehook-formats(5),
 * Child grants): the parent it names, signed by the parent's holder
 * (else its issuer), a lower depth, no wider budget, expiry or start.
 * One line each; a child that does not narrow its parent is a failure.
 */
static int
check_chains(struct opts *o, struct tally *t)
{
	struct jh_buf out;
	size_t i, j;
	int rc = 0;

	jh_buf_init(&out);
	for (i = 0; i < o->gs.n; i++) {
		const struct grantrec *c = &o->gs.v[i], *p = NULL;
		const char *why = NULL, *signer;

		if (c->parent[0] == '\0')
			continue;
		for (j = 0; j < o->gs.n && p == NULL; j++)
			if (strcmp(o->gs.v[j].id, c->parent) == 0 ||
			    strcmp(o->gs.v[j].ledger, c->parent) == 0)
				p = &o->gs.v[j];
		if (p == NULL)
			continue;	/* its parent was not given */
		signer = strncmp(p->holder, "did:key:", 8) == 0 ? p->holder :
		    p->issuer;
		if (strcmp(c->issuer, signer) != 0)
			why = "not issued by its parent's holder";
		else if (p->depth == 0)
			why = "its parent allows no delegation (depth 0)";
		else if (c->depth >= p->depth)
			why = "it does not lower its parent's depth";
		else if (c->budget > p->budget)
			why = "its budget is larger than its parent's";
		else if (c->exp > p->exp)
			why = "it expires after its parent";
		else if (c->nbf < p->nbf)
			why = "it starts before its parent";
		if (why != NULL)
			t->failed++;
		if (o->quiet) {
			if (why != NULL)
				fprintf(stderr, "%s: child grant %s: %s\n", PROG,
				    c->id, why);
			continue;
		}
		jh_buf_reset(&out);
		jh_buf_addf(&out, "{\"delegation\":{\"child\":\"%s\","
		    "\"parent\":\"%s\",\"agent\":", c->id, p->id);
		jh_json_str(&out, c->agent, strlen(c->agent));
		jh_buf_addf(&out, ",\"ok\":%s", why ? "false" : "true");
		if (why != NULL) {
			jh_buf_adds(&out, ",\"finding\":");
			jh_json_str(&out, why, strlen(why));
		}
		jh_buf_adds(&out, "}}\n");
		if (put(&out) == -1)
			rc = -1;
	}
	jh_buf_free(&out);
	return (rc);
}

/*
 * A subagent's decision (and the result that settles its ask) debited
 * or held on every ledger of its chain: its own, then its ancestors'.
 */
static void
chained(struct opts *o, const struct jh_env *env, int type,
    const struct jh_cbor *g, uint64_t amount, const struct jh_cbor *id)
{
	const struct jh_cbor *ch = jh_cbor_get(env->core, "chain");
	size_t i;

	add(o, env, type, g, amount, id);
	if (ch == NULL || ch->type != JH_CBOR_ARRAY)
		return;
	for (i = 0; i < ch->len; i++)
		if (ch->v[i].type == JH_CBOR_TEXT && ch->v[i].len == 71 &&
		    !(ch->v[i].len == g->len && memcmp(ch->v[i].p, g->p,
		    g->len) == 0))
			add(o, env, type, &ch->v[i], amount, id);
}

static void
record(struct opts *o, const struct jh_env *env)
{
	const struct jh_cbor *g, *id, *h, *c = env->core;
	int kid;

	record_grant(o, env);
	if (o->ledgerdir == NULL || c == NULL)
		return;
	kid = jh_kind_lookup(env->kind);
	if (kid == JH_KIND_GRANT && (h = jh_cbor_get(c, "shard")) != NULL) {
		record_shard(o, env, h);
		return;
	}
	if ((id = jh_cbor_get(c, "tool_use_id")) == NULL)
		id = jh_cbor_get(c, "unit");
	/* What settles a hold: a result (an ask's), an efficiency/1's hold. */
	if (kid == JH_KIND_RESULT)
		add(o, env, R_SETTLE, NULL, 0, id);
	else if (kid == JH_KIND_EFFICIENCY && (h = jh_cbor_get(c,
	    "hold")) != NULL)
		add(o, env, R_SETTLE, NULL, 0, h);
	/* A resealed grant's receipts count on the ledger it names. */
	if ((g = jh_cbor_get(c, "ledger")) == NULL)
		g = jh_cbor_get(c, "grant");
	if (g == NULL || g->type != JH_CBOR_TEXT || g->len != 71)
		return;
	if (kid == JH_KIND_HOLD)
		add(o, env, R_HOLD, g, uint_field(c, "held_uj"), id);
	else if (kid == JH_KIND_DECISION && jh_cbor_text_is(jh_cbor_get(c,
	    "verdict"), "ask") && uint_field(c, "cost_uj") > 0)
		chained(o, env, R_HOLD, g, uint_field(c, "cost_uj"), id);
	else if ((h = jh_cbor_get(c, "debited_uj")) != NULL &&
	    h->type == JH_CBOR_UINT)
		chained(o, env, R_DEBIT, g, h->u, id);
}

static int
debit_cmp(const void *a, const void *b)
{
	const struct debit *x = a, *y = b;
	int r = memcmp(x->ph, y->ph, JH_HASH_LEN);

	if (r == 0)
		r = x->type - y->type;
	return (r != 0 ? r : memcmp(x->grant, y->grant, JH_HASH_LEN));
}

/* By grant, the settlements (no grant) first, each group by id. */
static int
grant_cmp(const void *a, const void *b)
{
	const struct debit *x = a, *y = b;
	int r;

	if ((x->type == R_SETTLE) != (y->type == R_SETTLE))
		return (x->type == R_SETTLE ? -1 : 1);
	if (x->type != R_SETTLE && (r = memcmp(x->grant, y->grant,
	    JH_HASH_LEN)) != 0)
		return (r);
	return (memcmp(x->key, y->key, JH_HASH_LEN));
}

static int
id_seen(const struct replay *rp, const uint8_t *grant, const char *id)
{
	size_t i;

	for (i = 0; i < rp->n; i++)
		if (rp->v[i].type != R_SETTLE && memcmp(rp->v[i].grant,
		    grant, JH_HASH_LEN) == 0 && strcmp(rp->v[i].id, id) == 0)
			return (1);
	return (0);
}

/* Whether a settlement names the hold: v[0..ns) are sorted by key. */
static int
settled(const struct debit *v, size_t ns, const uint8_t *key)
{
	size_t lo = 0, hi = ns, mid;
	int r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((r = memcmp(v[mid].key, key, JH_HASH_LEN)) == 0)
			return (1);
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (0);
}

/*
 * --ledger: rebuilds each grant's ledger from the receipts alone (each
 * counted once, by payload hash): what they debited, and each hold no
 * receipt settles at the most its call could debit, as the ledger itself
 * settles a hold whose owner is gone.  Compared with the ledger file: one
 * that counts less than its receipts was reset or edited, and fails; one
 * that counts more is the trace of a fail-closed crash; a missing one
 * fails, and jh-decide -I -r restores it from this output.
 */
/*
 * The ledger file of grant, read into l (zero when there is none to
 * read), against the rebuilt_uj of its receipts: 1 when it holds at
 * least that, else 0; what was found goes in finding.
 */
static int
ledger_check(const struct opts *o, struct jh_ledger *l, const uint8_t *grant,
    uint64_t rebuilt, char *finding, size_t sz)
{
	const struct replay *rp = &o->rp;
	struct jh_err e;
	uint64_t used;
	size_t k, m;
	int fd, w, ok = 1;

	memset(l, 0, sizeof(*l));
	finding[0] = '\0';
	if (strcmp(o->ledgerdir, "-") == 0)
		return (1);	/* rebuild only: no ledger file to compare */
	if ((fd = jh_ledger_open(o->ledgerdir, grant, JH_LEDGER_READ, NULL,
	    &e)) == -1 || jh_ledger_read(l, fd, &e) == -1) {
		snprintf(finding, sz, "%s; jh-decide -I -r restores it from "
		    "this output", e.msg);
		memset(l, 0, sizeof(*l));
		ok = 0;
	} else if ((used = jh_add_sat(l->spent_uj, l->held_uj)) < rebuilt) {
		snprintf(finding, sz, "the ledger counts %llu uJ less than its "
		    "receipts: it was reset or edited; jh-decide -I -r raises "
		    "it to them", (unsigned long long)(rebuilt - used));
		ok = 0;
	} else if (used > rebuilt) {
		m = JH_LEDGER_RING < l->ndebits ? JH_LEDGER_RING :
		    (size_t)l->ndebits;
		w = snprintf(finding, sz, "%llu uJ debited with no receipt: "
		    "the trace of a fail-closed crash (a stage died after the "
		    "debit, so the action did not run) or of an ask hold "
		    "settled when nothing answered it; recent debits without "
		    "a receipt:", (unsigned long long)(used - rebuilt));
		for (k = 0; k < m && w > 0 && (size_t)w < sz - 80; k++)
			if (!id_seen(rp, grant, l->ring[k].id))
				w += snprintf(finding + w, sz - (size_t)w,
				    " %.60s", l->ring[k].id);
	}
	if (fd != -1)
		close(fd);
	return (ok);
}

static int
replay_ledger(struct opts *o, struct tally *t)
{
	struct jh_ledger *l;
	struct jh_buf out;
	struct replay *rp = &o->rp;
	size_t i, j, k, n = 0, ns;
	int rc = 0;

	jh_buf_init(&out);
	if ((l = malloc(sizeof(*l))) == NULL)
		errx(2, "out of memory");
	if (rp->n > 0)	/* no receipts: v is NULL, which qsort may not take */
		qsort(rp->v, rp->n, sizeof(*rp->v), debit_cmp);
	for (i = 0; i < rp->n; i++)
		if (n == 0 || debit_cmp(&rp->v[n - 1], &rp->v[i]) != 0)
			rp->v[n++] = rp->v[i];
	rp->n = n;
	if (rp->n > 0)
		qsort(rp->v, rp->n, sizeof(*rp->v), grant_cmp);
	for (ns = 0; ns < rp->n && rp->v[ns].type == R_SETTLE; ns++)
		;
	for (i = ns; i < rp->n; i = j) {
		char hex[2 * JH_HASH_LEN + 1], finding[512];
		uint64_t sum = 0, open = 0, rebuilt;
		int ok;

		for (j = i; j < rp->n && memcmp(rp->v[j].grant, rp->v[i].grant,
		    JH_HASH_LEN) == 0; j++) {
			if (rp->v[j].type == R_DEBIT)
				sum = jh_add_sat(sum, rp->v[j].amount);
			else if (!settled(rp->v, ns, rp->v[j].key))
				open = jh_add_sat(open, rp->v[j].amount);
		}
		rebuilt = jh_add_sat(sum, open);
		jh_hex(hex, rp->v[i].grant, JH_HASH_LEN);
		for (k = 0; k < o->sh.n; k++)
			if (memcmp(o->sh.v[k].id, rp->v[i].grant,
			    JH_HASH_LEN) == 0) {
				o->sh.v[k].rebuilt = rebuilt;
				o->sh.v[k].seen = 1;
			}
		ok = ledger_check(o, l, rp->v[i].grant, rebuilt, finding,
		    sizeof(finding));
		if (!ok)
			t->failed++;
		if (o->quiet) {
			if (!ok)
				fprintf(stderr, "%s: ledger sha256:%s: %s\n",
				    PROG, hex, finding);
			continue;
		}
		jh_buf_reset(&out);
		jh_buf_addf(&out, "{\"ledger\":{\"grant\":\"sha256:%s\","
		    "\"receipts_uj\":%llu,\"unsettled_uj\":%llu,"
		    "\"rebuilt_uj\":%llu", hex, (unsigned long long)sum,
		    (unsigned long long)open, (unsigned long long)rebuilt);
		if (strcmp(o->ledgerdir, "-") != 0)
			jh_buf_addf(&out, ",\"spent_uj\":%llu,\"held_uj\":%llu",
			    (unsigned long long)l->spent_uj,
			    (unsigned long long)l->held_uj);
		jh_buf_addf(&out, ",\"ok\":%s", ok ? "true" : "false");
		if (finding[0] != '\0') {
			jh_buf_adds(&out, ",\"finding\":");
			jh_json_str(&out, finding, strlen(finding));
		}
		jh_buf_adds(&out, "}}\n");
		if (put(&out) == -1)
			rc = -1;
	}
	free(l);
	jh_buf_free(&out);
	if (shard_totals(o) == -1)
		rc = -1;
	return (rc);
}

static void select_cp(struct opts *, int, const char *);

struct run {
	struct opts *o;
	struct tally *t;
};

/* One input being verified. */
struct vfile {
	struct opts *o;
	struct tally *t;
	const char *path;
	struct jh_buf out;	/* a JSON line */
	struct jh_arena a;
	struct jh_lv lv;	/* the log, once it has entries */
	int logbad;		/* a defect of the log beyond its entries' */
};

/*
 * A chain/1 entry (its envelope verified when ok): its receipt checked
 * too, and its line written.  Fields are shown only from what verified:
 * the chain fields of an entry whose own signature held, the receipt
 * only when it verified too.  -1 on a write error.
 */
static int
verify_entry(struct vfile *f, const struct jh_env *env, int ok,
    const uint8_t *item, size_t len, unsigned long idx, uint64_t off,
    struct jh_err *e)
{
	struct jh_env inner;
	int entry_ok = ok;

	memset(&inner, 0, sizeof(inner));
	if (ok)
		ok = jh_lv_entry(&f->lv, &f->o->v, env, item, len, &inner,
		    &f->a, e) == 0;
	else
		jh_lv_skip(&f->lv, item, len, e->msg);
	if (ok) {
		f->t->ok++;
		record(f->o, &inner);
	} else
		f->t->failed++;
	if (f->o->quiet) {
		if (!ok)
			quiet_err(f->path, idx, off, e->msg);
		return (0);
	}
	if (!ok && !entry_ok)
		return (report_fail(&f->out, f->o, f->path, idx, off, e->msg));
	jh_buf_reset(&f->out);
	jh_entry_json(&f->out, env, ok ? &inner : NULL, ok, ok ? NULL :
	    e->msg);
	jh_buf_addc(&f->out, '\n');
	return (put(&f->out));
}

/* A bare receipt (verified when ok): its line written.  -1 on a write error. */
static int
verify_bare(struct vfile *f, const struct jh_env *env, int ok,
    unsigned long idx, uint64_t off, struct jh_err *e)
{
	if (ok && f->lv.entries > 0) {
		ok = 0;
		jh_errf(e, "a bare %s inside a log", env->kind);
	}
	if (!ok) {
		f->t->failed++;
		if (f->lv.entries > 0)
			f->logbad = 1;
		return (report_fail(&f->out, f->o, f->path, idx, off, e->msg));
	}
	f->t->ok++;
	record(f->o, env);
	if (f->o->quiet)
		return (0);
	jh_buf_reset(&f->out);
	jh_buf_adds(&f->out, "{\"ok\":true,\"kind\":");
	jh_json_str(&f->out, env->kind, strlen(env->kind));
	jh_buf_adds(&f->out, ",\"core\":");
	jh_cbor_to_json(&f->out, env->core);
	jh_buf_adds(&f->out, "}\n");
	return (put(&f->out));
}

/*
 * Verifies each item of one input (jh_each_file), each failure counted
 * in the tally.  Returns 0, 2 when the input could not be read, -1 on a
 * write error.
 */
static int
run_file(void *arg, struct jh_reader *r, const char *path)
{
	struct vfile f;
	struct jh_env env;
	struct jh_err e;
	const uint8_t *item;
	char tail[160];
	size_t len;
	unsigned long idx = 0;
	uint64_t off;
	int x, ok, rc = 0, havetail = 0;

	memset(&f, 0, sizeof(f));
	f.o = ((struct run *)arg)->o;
	f.t = ((struct run *)arg)->t;
	f.path = path;
	jh_buf_init(&f.out);
	jh_arena_init(&f.a);
	jh_lv_init(&f.lv);
	select_cp(f.o, r->fd, path);
	if (f.o->cp != NULL)
		f.lv.cp_count = f.o->cp->count;
	for (;;) {
		off = r->offset + r->pos;
		if ((x = jh_reader_cbor(r, &item, &len, &e)) == 0)
			break;
		/*
		 * A partial last item in a log: an append in progress when a
		 * writer holds the lock, else a torn tail that was never
		 * acknowledged and the next append cuts.
		 */
		if (x == JH_CBOR_TRUNCATED && jh_log_tail(tail, sizeof(tail),
		    r, &f.lv, off, r->fd != STDIN_FILENO ? r->fd : -1, &e)) {
			havetail = 1;
			break;
		}
		idx++;
		f.t->objects++;
		if (x != 1) {
			/* Cannot frame the rest: report and stop. */
			f.t->failed++;
			if (f.lv.entries > 0)
				f.logbad = 1;
			rc = report_fail(&f.out, f.o, path, idx, off, e.msg);
			break;
		}
		jh_arena_reset(&f.a);
		ok = jh_verify_env(&f.o->v, &env, &f.a, item, len, &e) == 0;
		if (env.kind != NULL && strcmp(env.kind, "chain/1") == 0)
			rc = verify_entry(&f, &env, ok, item, len, idx, off, &e);
		else
			rc = verify_bare(&f, &env, ok, idx, off, &e);
		if (rc == -1)
			break;
	}
	if (rc != -1 && f.lv.entries > 0 &&
	    log_summary(&f.out, f.o, path, &f.lv, havetail ? tail : NULL,
	    f.logbad, f.t) == -1)
		rc = -1;
	else if (rc != -1 && f.lv.entries == 0 && f.o->cp_named) {
		/* named as a checkpointed session's log, and emptied */
		cp_used(f.o);
		f.t->failed++;
		warnx("%s: truncated: the checkpoint has %llu entries, the log "
		    "none", path, (unsigned long long)f.o->cp->count);
	}
	jh_lv_free(&f.lv);
	jh_arena_free(&f.a);
	jh_buf_free(&f.out);
	return (rc == 0 && r->err != 0 ? 2 : rc);
}

/*
 * The checkpoint for the log on fd: the latest of the session its file
 * is named after (jh-chain's <hex of the session's SHA-256>.jhl), else
 * of the session its first chain entry names (the file is rewound), or,
 * on a stream that cannot be peeked at, of the one session the
 * checkpoints are all of.
 */
static void
select_cp(struct opts *o, int fd, const char *path)
{
	o->cp = jh_st_log_cp(&o->cps, fd, path, &o->cp_named);
}

/* A default key list, when it is there. */
static void
load_default(struct opts *o, const char *path, int role)
{
	struct jh_err e;

	if (path == NULL || access(path, F_OK) != 0)
		return;
	if (jh_keyset_load(&o->keys, path, role, &e) == -1)
		errx(2, "%s", e.msg);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct tally t = { 0, 0, 0 };
	struct run run;
	struct jh_err e;
	const char *cpfile = NULL;
	struct jh_where w;
	int ch, rc = 0, given = 0, x;

	memset(&o, 0, sizeof(o));
	jh_keyset_init(&o.keys);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "c:hL:p:qs:t:")) != -1) {
		switch (ch) {
		case 'L':
			o.ledgerdir = optarg;
			break;
		case 'c':
			cpfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'p':
			if (jh_keyset_add_did(&o.keys, optarg,
			    JH_ROLE_STEWARD | JH_ROLE_ISSUER, &e) == -1)
				errx(2, "-p: %s", e.msg);
			given = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 's':
		case 't':
			if (jh_keyset_load(&o.keys, optarg, ch == 's' ?
			    JH_ROLE_STEWARD : JH_ROLE_ISSUER, &e) == -1)
				errx(2, "%s", e.msg);
			given = 1;
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (!given) {
		memset(&w, 0, sizeof(w));
		jh_where_fill(&w);
		load_default(&o, w.stewards, JH_ROLE_STEWARD);
		load_default(&o, w.trust, JH_ROLE_ISSUER);
	}
	if (o.keys.n == 0)
		errx(2, "no trusted keys: give -p, -s or -t, or list keys in "
		    "JH_HOME/stewards and JH_HOME/trust");
	jh_verifier_init(&o.v, &o.keys);
	if (cpfile != NULL && (x = jh_cps_load(&o.cps, cpfile, &o.v,
	    &e)) != 0)
		errx(x == -2 ? 2 : 1, "%s", e.msg);
	if (o.cps.torn > 0)
		warnx("%s: ends in %zu bytes of a checkpoint cut short, an "
		    "append that never completed; the %zu whole ones before "
		    "it are used", cpfile, o.cps.torn, o.cps.n);
	if (o.cps.n > 0 && (o.cp_used = calloc(o.cps.n, 1)) == NULL)
		err(2, "calloc");

	run.o = &o;
	run.t = &t;
	/* Never blocking in open: a FIFO cannot hang it. */
	rc = jh_each_file(argc, argv, JH_IN_NOHANG, run_file, &run);
	if (rc != -1 && o.ledgerdir != NULL && replay_ledger(&o, &t) == -1)
		rc = -1;
	if (rc != -1 && check_chains(&o, &t) == -1)
		rc = -1;
	free(o.rp.v);
	free(o.gs.v);
	free(o.sh.v);
	if (rc != -1)
		t.failed += cp_missing(&o, argc, argv);
	free(o.cp_used);
	if (rc != -1 && !o.quiet) {
		printf("{\"summary\":{\"objects\":%lu,\"verified\":%lu,"
		    "\"failed\":%lu}}\n", t.objects, t.ok, t.failed);
	}
	jh_cps_free(&o.cps);
	jh_keyset_free(&o.keys);
	if (jh_fshut(stdout, "stdout") != 0)
		return (2);
	if (rc == -1 || rc == 2)
		return (2);
	return (t.failed ? 1 : 0);
}
