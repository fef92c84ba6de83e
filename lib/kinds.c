/*
 * joulehook: the sealed kinds, what each core must hold, and how a
 * producer's JSON record becomes a core (joulehook-formats(5)).
 *
 * One table drives both directions: jh-seal checks the core it built
 * with the same function jh-verify uses on a core it received.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "util.h"

enum ftype {
	F_TEXT,
	F_UINT,
	F_UINT32,	/* an unsigned integer below 2^32: a uid */
	F_FLAG,		/* 0 or 1: cores have no booleans */
	F_BYTES,
	F_BYTES8,
	F_BYTES32,
	F_MAP,
	F_ARRAY,
	F_TEXTS,	/* an array of text */
	F_AUD,		/* text, or an array of text */
	F_ID,		/* "sha256:" + 64 lowercase hex */
	F_DID		/* did:key of an Ed25519 key */
};

#define OPT	0	/* optional */
#define REQ	1	/* always required */
#define BIND	2	/* required when a decision lets the action run */

struct field {
	const char *name;
	enum ftype type;
	int req;
};

struct kind {
	const char *name;
	int id;
	enum jh_role role;
	const struct field *fields;
};

static const struct field common[] = {
	{ "profile", F_TEXT, REQ },
	{ "kind", F_TEXT, REQ },
	{ "steward", F_DID, REQ },
	{ "ts", F_UINT, REQ },
	{ "nonce", F_BYTES8, REQ },
	{ NULL, 0, 0 }
};

static const struct field decision[] = {
	{ "session", F_TEXT, REQ },
	{ "tool_use_id", F_TEXT, BIND },
	{ "agent_id", F_TEXT, OPT },
	{ "host", F_TEXT, BIND },
	{ "event", F_TEXT, BIND },
	{ "tool", F_TEXT, BIND },
	{ "class", F_TEXT, BIND },
	{ "cwd", F_TEXT, BIND },
	{ "target", F_TEXTS, OPT },
	{ "content_id", F_ID, OPT },
	{ "input_digest", F_ID, BIND },
	{ "verdict", F_TEXT, REQ },
	{ "code", F_TEXT, REQ },
	{ "reason", F_TEXT, REQ },
	{ "grant", F_ID, OPT },
	{ "cost_uj", F_UINT, REQ },
	{ "debited_uj", F_UINT, REQ },
	{ "provenance", F_TEXT, REQ },
	{ "remaining_uj", F_UINT, BIND },
	{ "updated_input", F_TEXT, OPT },
	{ "updated_digest", F_ID, OPT },
	{ "rule", F_TEXT, OPT },
	{ "outcome", F_FLAG, OPT },
	{ "effects", F_ARRAY, OPT },
	{ "hint", F_TEXT, OPT },
	{ "ledger", F_ID, OPT },
	{ "uid", F_UINT32, OPT },
	{ "agent_type", F_TEXT, OPT },
	{ "chain", F_TEXTS, OPT },
	{ NULL, 0, 0 }
};

static const struct field efficiency[] = {
	{ "session", F_TEXT, REQ },
	{ "unit", F_TEXT, REQ },
	{ "request_id", F_TEXT, OPT },
	{ "source", F_TEXT, REQ },
	{ "model", F_TEXT, OPT },
	{ "tokens_in", F_UINT, REQ },
	{ "tokens_out", F_UINT, REQ },
	{ "tokens_cache_read", F_UINT, REQ },
	{ "tokens_cache_write", F_UINT, REQ },
	{ "accepted_tokens", F_UINT, REQ },
	{ "energy", F_MAP, REQ },
	{ "coeff", F_TEXT, REQ },
	{ "duration_ms", F_UINT, REQ },
	{ "cost_musd", F_UINT, OPT },
	{ "completed", F_FLAG, REQ },
	{ "verdict", F_TEXT, REQ },
	{ "enforced", F_FLAG, REQ },
	{ "debited_uj", F_UINT, REQ },
	{ "grant", F_ID, OPT },
	{ "ledger", F_ID, OPT },
	{ "remaining_uj", F_UINT, OPT },
	{ "status", F_UINT, OPT },
	{ "note", F_TEXT, OPT },
	{ "limit_asked", F_UINT, OPT },
	{ "limit_sent", F_UINT, OPT },
	{ "hold", F_TEXT, OPT },
	{ NULL, 0, 0 }
};

static const struct field grant[] = {
	{ "issuer", F_DID, REQ },
	{ "holder", F_TEXT, OPT },
	{ "audience", F_AUD, REQ },
	{ "root", F_TEXT, OPT },
	{ "nbf", F_UINT, REQ },
	{ "exp", F_UINT, REQ },
	{ "budget_uj", F_UINT, REQ },
	{ "caps", F_ARRAY, REQ },
	{ "outcome", F_TEXTS, OPT },
	{ "policies", F_ARRAY, REQ },
	{ "costs", F_MAP, REQ },
	{ "depth", F_UINT, REQ },
	{ "otherwise", F_TEXT, OPT },
	{ "ledger", F_ID, OPT },
	{ "shard", F_MAP, OPT },
	{ "parent", F_ID, OPT },
	{ "agent", F_TEXT, OPT },
	{ NULL, 0, 0 }
};

static const struct field revocation[] = {
	{ "grant", F_ID, REQ },
	{ "issuer", F_DID, REQ },
	{ "reason", F_TEXT, REQ },
	{ NULL, 0, 0 }
};

static const struct field chain[] = {
	{ "seq", F_UINT, REQ },
	{ "prev", F_BYTES32, REQ },
	{ "session", F_TEXT, REQ },
	{ "receipt", F_BYTES, REQ },
	{ NULL, 0, 0 }
};

static const struct field checkpoint[] = {
	{ "session", F_TEXT, REQ },
	{ "count", F_UINT, REQ },
	{ "head", F_BYTES32, REQ },
	{ NULL, 0, 0 }
};

/*
 * What ran (jh-result(1)): the PostToolUse stage's evidence, bound to
 * the decision by tool_use_id and to the chain entry that holds it.
 */
static const struct field result[] = {
	{ "session", F_TEXT, REQ },
	{ "tool_use_id", F_TEXT, REQ },
	{ "host", F_TEXT, REQ },
	{ "event", F_TEXT, REQ },
	{ "tool", F_TEXT, REQ },
	{ "class", F_TEXT, REQ },
	{ "input_digest", F_ID, REQ },
	{ "status", F_TEXT, REQ },
	{ "check", F_TEXT, REQ },
	{ "reason", F_TEXT, REQ },
	{ "decision", F_ID, OPT },
	{ "decided", F_TEXT, OPT },
	{ "response_digest", F_ID, OPT },
	{ "content_id", F_ID, OPT },
	{ "target", F_TEXTS, OPT },
	{ "answer", F_TEXT, OPT },
	{ "grant", F_ID, OPT },
	{ "ledger", F_ID, OPT },
	{ "debited_uj", F_UINT, REQ },
	{ "duration_ms", F_UINT, OPT },
	{ "outcome", F_FLAG, OPT },
	{ "chain", F_TEXTS, OPT },
	{ NULL, 0, 0 }
};

/*
 * A model call's hold, sealed before the call goes upstream: the most it
 * may debit (joulehook-formats(5), hold/1); the efficiency/1 whose hold
 * names its unit settles it.
 */
static const struct field hold[] = {
	{ "session", F_TEXT, REQ },
	{ "unit", F_TEXT, REQ },
	{ "source", F_TEXT, REQ },
	{ "grant", F_ID, REQ },
	{ "ledger", F_ID, OPT },
	{ "held_uj", F_UINT, REQ },
	{ "model", F_TEXT, OPT },
	{ "remaining_uj", F_UINT, OPT },
	{ "limit_asked", F_UINT, OPT },
	{ "limit_sent", F_UINT, OPT },
	{ NULL, 0, 0 }
};

static const struct kind kinds[] = {
	{ "decision/1", JH_KIND_DECISION, JH_ROLE_STEWARD, decision },
	{ "efficiency/1", JH_KIND_EFFICIENCY, JH_ROLE_STEWARD, efficiency },
	{ "grant/1", JH_KIND_GRANT, JH_ROLE_ISSUER, grant },
	{ "revocation/1", JH_KIND_REVOCATION, JH_ROLE_ISSUER, revocation },
	{ "chain/1", JH_KIND_CHAIN, JH_ROLE_STEWARD, chain },
	{ "checkpoint/1", JH_KIND_CHECKPOINT, JH_ROLE_STEWARD, checkpoint },
	{ "result/1", JH_KIND_RESULT, JH_ROLE_STEWARD, result },
	{ "hold/1", JH_KIND_HOLD, JH_ROLE_STEWARD, hold },
	{ NULL, 0, 0, NULL }
};

static const char *const verdicts[] = { "allow", "deny", "ask", "rewrite",
    NULL };
static const char *const provenances[] = { "HwShunt", "ModelBased",
    "Estimator", NULL };
static const char *const sources[] = { "proxy", "otel", "transcript", "run",
    "aggregate", "tokens", NULL };
static const char *const res_status[] = { "ok", "failed", "denied",
    "not-run", NULL };
static const char *const res_checks[] = { "match", "no-receipt",
    "not-allowed", "input-mismatch", "content-mismatch", "target-mismatch",
    NULL };
static const char *const res_answers[] = { "approved", "refused", NULL };
static const char *const eff_verdicts[] = { "ok", "error", "partial",
    "refused", "usage-estimated", NULL };

static const struct kind *
kind_by_id(int id)
{
	const struct kind *k;

	for (k = kinds; k->name != NULL; k++)
		if (k->id == id)
			return (k);
	return (NULL);
}

int
jh_kind_lookup(const char *name)
{
	const struct kind *k;

	for (k = kinds; k->name != NULL; k++)
		if (strcmp(k->name, name) == 0)
			return (k->id);
	return (0);
}

const char *
jh_kind_name(int id)
{
	const struct kind *k = kind_by_id(id);

	return (k ? k->name : "?");
}

enum jh_role
jh_kind_role(int id)
{
	const struct kind *k = kind_by_id(id);

	return (k ? k->role : JH_ROLE_STEWARD);
}

static int
is_id(const struct jh_cbor *v)
{
	size_t i;

	if (v->type != JH_CBOR_TEXT || v->len != 71 ||
	    memcmp(v->p, "sha256:", 7) != 0)
		return (0);
	for (i = 7; i < 71; i++)
		if (!((v->p[i] >= '0' && v->p[i] <= '9') ||
		    (v->p[i] >= 'a' && v->p[i] <= 'f')))
			return (0);
	return (1);
}

static int
type_ok(const struct jh_cbor *v, enum ftype t)
{
	size_t i;
	uint8_t pk[JH_PK_LEN];

	switch (t) {
	case F_TEXT:
		return (v->type == JH_CBOR_TEXT);
	case F_UINT:
		return (v->type == JH_CBOR_UINT);
	case F_UINT32:
		return (v->type == JH_CBOR_UINT && v->u <= UINT32_MAX);
	case F_FLAG:
		return (v->type == JH_CBOR_UINT && v->u <= 1);
	case F_BYTES:
		return (v->type == JH_CBOR_BYTES);
	case F_BYTES8:
		return (v->type == JH_CBOR_BYTES && v->len == 8);
	case F_BYTES32:
		return (v->type == JH_CBOR_BYTES && v->len == 32);
	case F_MAP:
		return (v->type == JH_CBOR_MAP);
	case F_ARRAY:
		return (v->type == JH_CBOR_ARRAY);
	case F_TEXTS:
	case F_AUD:
		if (t == F_AUD && v->type == JH_CBOR_TEXT)
			return (1);
		if (v->type != JH_CBOR_ARRAY)
			return (0);
		for (i = 0; i < v->len; i++)
			if (v->v[i].type != JH_CBOR_TEXT)
				return (0);
		return (1);
	case F_ID:
		return (is_id(v));
	case F_DID:
		return (v->type == JH_CBOR_TEXT &&
		    jh_didkey_dec(pk, (const char *)v->p, v->len) == 0);
	}
	return (0);
}

static const char *
type_name(enum ftype t)
{
	switch (t) {
	case F_TEXT: return ("a text string");
	case F_UINT: return ("an unsigned integer");
	case F_UINT32: return ("an unsigned integer below 2^32");
	case F_FLAG: return ("0 or 1");
	case F_BYTES: return ("a byte string");
	case F_BYTES8: return ("8 bytes");
	case F_BYTES32: return ("32 bytes");
	case F_MAP: return ("a map");
	case F_ARRAY: return ("an array");
	case F_TEXTS: return ("an array of text strings");
	case F_AUD: return ("a text string or an array of them");
	case F_ID: return ("\"sha256:\" and 64 lowercase hex digits");
	case F_DID: return ("a did:key of an Ed25519 key");
	}
	return ("?");
}

static int
one_of(const struct jh_cbor *v, const char *const *set)
{
	for (; *set != NULL; set++)
		if (jh_cbor_text_is(v, *set))
			return (1);
	return (0);
}

static int
known(const struct field *f, const struct jh_cbor *k)
{
	for (; f->name != NULL; f++)
		if (jh_cbor_text_is(k, f->name))
			return (1);
	return (0);
}

/* Cores are closed: a field the kind does not define is refused. */
static int
check_unknown(const struct jh_cbor *core, const struct field *f,
    struct jh_err *e)
{
	size_t i;

	for (i = 0; i < core->len; i++) {
		const struct jh_cbor *k = &core->v[2 * i];
		if (!known(common, k) && !known(f, k))
			return (jh_errf(e, "unknown field %.*s",
			    (int)(k->len > 64 ? 64 : k->len),
			    (const char *)k->p));
	}
	return (0);
}

static int
check_fields(const struct jh_cbor *core, const struct field *f, int bind,
    struct jh_err *e)
{
	const struct jh_cbor *v;

	if (f != common && check_unknown(core, f, e) == -1)
		return (-1);

	for (; f->name != NULL; f++) {
		if ((v = jh_cbor_get(core, f->name)) == NULL) {
			if (f->req == REQ || (f->req == BIND && bind))
				return (jh_errf(e, "missing field %s",
				    f->name));
			continue;
		}
		if (!type_ok(v, f->type))
			return (jh_errf(e, "field %s must be %s", f->name,
			    type_name(f->type)));
	}
	return (0);
}

static int
same_text(const struct jh_cbor *a, const struct jh_cbor *b)
{
	return (a != NULL && b != NULL && a->type == JH_CBOR_TEXT &&
	    b->type == JH_CBOR_TEXT && a->len == b->len &&
	    memcmp(a->p, b->p, a->len) == 0);
}

/*
 * A grant's costs are microjoules: every value of costs and every
 * capability's cost_uj an unsigned integer.  One the gate would pass
 * over (a negative number, a text) would make it charge another cost
 * than the one the grant states.
 */
static int
grant_costs(const struct jh_cbor *core, struct jh_err *e)
{
	const struct jh_cbor *c = jh_cbor_get(core, "costs"), *caps, *v;
	size_t i;

	if (c != NULL && c->type == JH_CBOR_MAP)
		for (i = 0; i < c->len; i++)
			if (c->v[2 * i + 1].type != JH_CBOR_UINT)
				return (jh_errf(e, "costs.%.*s must be an "
				    "unsigned integer (microjoules)",
				    (int)(c->v[2 * i].len < 64 ?
				    c->v[2 * i].len : 64),
				    (const char *)c->v[2 * i].p));
	if ((caps = jh_cbor_get(core, "caps")) == NULL ||
	    caps->type != JH_CBOR_ARRAY)
		return (0);
	for (i = 0; i < caps->len; i++)
		if ((v = jh_cbor_get(&caps->v[i], "cost_uj")) != NULL &&
		    v->type != JH_CBOR_UINT)
			return (jh_errf(e, "caps[%zu].cost_uj must be an "
			    "unsigned integer (microjoules)", i));
	return (0);
}

/*
 * A shard (JCP's sharding, joulehook-formats(5), grant/1): one of the
 * sibling grants a grant was split into, each spent on its own ledger.
 * It states its parent, its index, every sibling's budget and how much
 * of its parent was split: its own budget must be its entry, and the
 * siblings' budgets together no more than what was split, so shards can
 * never hold more than their parent had.
 */
#define SHARDS_MAX	1024

static int
grant_shard(const struct jh_cbor *core, struct jh_err *e)
{
	const struct jh_cbor *s = jh_cbor_get(core, "shard"), *p, *ix, *bs,
	    *of, *b = jh_cbor_get(core, "budget_uj");
	uint64_t sum = 0;
	size_t i;

	if (s == NULL)
		return (0);
	p = jh_cbor_get(s, "parent");
	ix = jh_cbor_get(s, "index");
	bs = jh_cbor_get(s, "budgets");
	of = jh_cbor_get(s, "parent_uj");
	if (p == NULL || !is_id(p))
		return (jh_errf(e, "field shard.parent must be the parent "
		    "grant's id"));
	if (ix == NULL || ix->type != JH_CBOR_UINT || of == NULL ||
	    of->type != JH_CBOR_UINT)
		return (jh_errf(e, "fields shard.index and shard.parent_uj "
		    "must be unsigned integers"));
	if (bs == NULL || bs->type != JH_CBOR_ARRAY || bs->len == 0 ||
	    bs->len > SHARDS_MAX)
		return (jh_errf(e, "field shard.budgets must be an array of "
		    "1 to %d budgets", SHARDS_MAX));
	for (i = 0; i < bs->len; i++) {
		if (bs->v[i].type != JH_CBOR_UINT)
			return (jh_errf(e, "shard.budgets[%zu] must be an "
			    "unsigned integer (microjoules)", i));
		if (bs->v[i].u > UINT64_MAX - sum)
			return (jh_errf(e, "the shards' budgets overflow"));
		sum += bs->v[i].u;
	}
	if (ix->u >= bs->len)
		return (jh_errf(e, "shard.index %llu is not one of its %zu "
		    "siblings", (unsigned long long)ix->u, bs->len));
	if (b == NULL || b->type != JH_CBOR_UINT || b->u != bs->v[ix->u].u)
		return (jh_errf(e, "a shard's budget_uj must be its own entry "
		    "of shard.budgets"));
	if (sum > of->u)
		return (jh_errf(e, "the shards' budgets, %llu uJ together, "
		    "exceed the %llu uJ split from their parent",
		    (unsigned long long)sum, (unsigned long long)of->u));
	return (0);
}

/* updated_digest must be the input_digest of the JSON in updated_input. */
static int
check_updated(const struct jh_cbor *ui, const struct jh_cbor *ud,
    struct jh_err *e)
{
	char dg[JH_ID_LEN];
	json_t *j;
	int r;

	if ((j = jh_json_parse((const char *)ui->p, ui->len, e)) == NULL)
		return (jh_errf(e, "updated_input is not JSON"));
	r = jh_input_digest(dg, j, e);
	json_decref(j);
	if (r == -1)
		return (-1);
	if (!jh_cbor_text_is(ud, dg))
		return (jh_errf(e, "updated_digest is not the digest of "
		    "updated_input"));
	return (0);
}

/* decision/1: its verdict, provenance, and a rewrite's updated input. */
static int
check_decision(const struct jh_cbor *core, const struct kind *k,
    struct jh_err *e)
{
	const struct jh_cbor *v, *ui, *ud;

	if ((v = jh_cbor_get(core, "verdict")) == NULL || !one_of(v, verdicts))
		return (jh_errf(e, "field verdict must be allow, deny, ask or "
		    "rewrite"));
	if (check_fields(core, k->fields, !jh_cbor_text_is(v, "deny"),
	    e) == -1)
		return (-1);
	if (!one_of(jh_cbor_get(core, "provenance"), provenances))
		return (jh_errf(e, "field provenance must be HwShunt, "
		    "ModelBased or Estimator"));
	if (jh_cbor_text_is(v, "rewrite")) {
		if ((ui = jh_cbor_get(core, "updated_input")) == NULL ||
		    (ud = jh_cbor_get(core, "updated_digest")) == NULL)
			return (jh_errf(e, "a rewrite must carry updated_input "
			    "and updated_digest"));
		if (check_updated(ui, ud, e) == -1)
			return (-1);
	} else if (jh_cbor_get(core, "updated_input") != NULL ||
	    jh_cbor_get(core, "updated_digest") != NULL)
		return (jh_errf(e, "updated_input and updated_digest are only "
		    "for a rewrite"));
	if ((jh_cbor_text_is(v, "deny") || jh_cbor_text_is(v, "ask")) &&
	    jh_cbor_get(core, "debited_uj")->u != 0)
		return (jh_errf(e, "%s debits nothing",
		    jh_cbor_text_is(v, "ask") ? "an ask" : "a deny"));
	return (0);
}

/* efficiency/1: its source, verdict and energy, a reading only measured. */
static int
check_efficiency(const struct jh_cbor *core, const struct kind *k,
    struct jh_err *e)
{
	const struct jh_cbor *v, *en, *m;

	if (check_fields(core, k->fields, 0, e) == -1)
		return (-1);
	if (!one_of(jh_cbor_get(core, "source"), sources))
		return (jh_errf(e, "field source must be proxy, otel, "
		    "transcript, run, tokens or aggregate"));
	if (!one_of(jh_cbor_get(core, "verdict"), eff_verdicts))
		return (jh_errf(e, "field verdict must be ok, error, partial, "
		    "refused or usage-estimated"));
	en = jh_cbor_get(core, "energy");
	if ((v = jh_cbor_get(en, "estimated_uj")) == NULL ||
	    v->type != JH_CBOR_UINT)
		return (jh_errf(e, "field energy.estimated_uj must be an "
		    "unsigned integer"));
	if ((v = jh_cbor_get(en, "provenance")) == NULL ||
	    !one_of(v, provenances))
		return (jh_errf(e, "field energy.provenance must be HwShunt, "
		    "ModelBased or Estimator"));
	/* The provenance contract: a reading only from a counter. */
	if (jh_cbor_text_is(v, "HwShunt")) {
		m = jh_cbor_get(en, "measured_uj");
		if (m == NULL || m->type != JH_CBOR_UINT)
			return (jh_errf(e, "HwShunt energy must carry "
			    "measured_uj"));
	} else if (jh_cbor_get(en, "measured_uj") != NULL)
		return (jh_errf(e, "energy.measured_uj is only for HwShunt"));
	return (0);
}

/* result/1: its status, check, answer, and the decision it names. */
static int
check_result(const struct jh_cbor *core, const struct kind *k,
    struct jh_err *e)
{
	const struct jh_cbor *v;

	if (check_fields(core, k->fields, 0, e) == -1)
		return (-1);
	if (!one_of(jh_cbor_get(core, "status"), res_status))
		return (jh_errf(e, "field status must be ok, failed, denied "
		    "or not-run"));
	if (!one_of(jh_cbor_get(core, "check"), res_checks))
		return (jh_errf(e, "field check must be match, no-receipt, "
		    "not-allowed, input-mismatch, content-mismatch or "
		    "target-mismatch"));
	if ((v = jh_cbor_get(core, "answer")) != NULL &&
	    !one_of(v, res_answers))
		return (jh_errf(e, "field answer must be approved or "
		    "refused"));
	if ((v = jh_cbor_get(core, "decided")) != NULL && !one_of(v, verdicts))
		return (jh_errf(e, "field decided must be allow, deny, ask or "
		    "rewrite"));
	if ((jh_cbor_get(core, "decision") == NULL) !=
	    jh_cbor_text_is(jh_cbor_get(core, "check"), "no-receipt"))
		return (jh_errf(e, "a result names its decision unless its "
		    "check is no-receipt"));
	return (0);
}

/* grant/1: a child's parent and agent, its costs, shard and otherwise. */
static int
check_grant(const struct jh_cbor *core, struct jh_err *e)
{
	const struct jh_cbor *v;

	/* A child grant (delegation) is for one kind of subagent. */
	if ((jh_cbor_get(core, "parent") == NULL) !=
	    (jh_cbor_get(core, "agent") == NULL))
		return (jh_errf(e, "a child grant names its parent and the "
		    "agent it is for, both or neither"));
	if (jh_cbor_get(core, "parent") != NULL &&
	    jh_cbor_get(core, "shard") != NULL)
		return (jh_errf(e, "a child grant is not a shard"));
	if (grant_costs(core, e) == -1 || grant_shard(core, e) == -1)
		return (-1);
	if ((v = jh_cbor_get(core, "otherwise")) != NULL &&
	    !jh_cbor_text_is(v, "ask") && !jh_cbor_text_is(v, "deny"))
		return (jh_errf(e, "field otherwise must be ask or deny"));
	return (0);
}

/*
 * Checks a decoded core against its kind.  The caller has already run
 * jh_cbor_core_check (no floats, booleans or nulls).
 */
int
jh_kind_check(const struct jh_cbor *core, int id, struct jh_err *e)
{
	const struct kind *k = kind_by_id(id);

	if (k == NULL)
		return (jh_errf(e, "unknown kind"));
	if (check_fields(core, common, 0, e) == -1)
		return (-1);
	if (!jh_cbor_text_is(jh_cbor_get(core, "profile"), JH_PROFILE))
		return (jh_errf(e, "profile is not %s", JH_PROFILE));
	if (!jh_cbor_text_is(jh_cbor_get(core, "kind"), k->name))
		return (jh_errf(e, "kind is not %s", k->name));
	switch (id) {
	case JH_KIND_DECISION:
		return (check_decision(core, k, e));
	case JH_KIND_EFFICIENCY:
		return (check_efficiency(core, k, e));
	case JH_KIND_HOLD:
		if (check_fields(core, k->fields, 0, e) == -1)
			return (-1);
		if (!jh_cbor_text_is(jh_cbor_get(core, "source"), "proxy"))
			return (jh_errf(e, "field source must be proxy"));
		return (0);
	case JH_KIND_RESULT:
		return (check_result(core, k, e));
	case JH_KIND_GRANT:
		if (check_grant(core, e) == -1)
			return (-1);
		/* FALLTHROUGH */
	case JH_KIND_REVOCATION:
		if (check_fields(core, k->fields, 0, e) == -1)
			return (-1);
		if (!same_text(jh_cbor_get(core, "issuer"),
		    jh_cbor_get(core, "steward")))
			return (jh_errf(e, "issuer is not the steward"));
		return (0);
	default:
		return (check_fields(core, k->fields, 0, e));
	}
}

static void
del_null(json_t *o, const char *k)
{
	if (json_is_null(json_object_get(o, k)))
		json_object_del(o, k);
}

/*
 * Turns a producer's record into the JSON part of a core: maps the
 * Decision form (session_id, input, updated_input as an object) to the
 * sealed form, fills defaults, and drops the fields the sealer owns.
 */
int
jh_kind_prepare(json_t *o, int id, const struct jh_key *key, uint64_t ts,
    const uint8_t *nonce, struct jh_err *e)
{
	static const char *const owned[] = { "profile", "kind", "steward",
	    "ts", "nonce", NULL };
	char dg[JH_ID_LEN];
	json_t *v;
	size_t i;

	(void)ts;
	(void)nonce;
	for (i = 0; owned[i] != NULL; i++)
		json_object_del(o, owned[i]);
	switch (id) {
	case JH_KIND_DECISION:
		if ((v = json_object_get(o, "session_id")) != NULL) {
			if (json_object_get(o, "session") == NULL)
				json_object_set(o, "session", v);
			json_object_del(o, "session_id");
		}
		if ((v = json_object_get(o, "input")) != NULL) {
			if (jh_input_digest(dg, v, e) == -1)
				return (-1);
			json_object_set_new(o, "input_digest",
			    json_string(dg));
			json_object_del(o, "input");
		}
		del_null(o, "updated_input");
		if ((v = json_object_get(o, "updated_input")) != NULL &&
		    json_is_string(v)) {
			/* Given as text: its digest is ours to compute. */
			json_t *p = jh_json_parse(json_string_value(v),
			    json_string_length(v), e);
			int r;
			if (p == NULL)
				return (jh_errf(e, "updated_input is not JSON"));
			r = jh_input_digest(dg, p, e);
			json_decref(p);
			if (r == -1)
				return (-1);
			json_object_set_new(o, "updated_digest",
			    json_string(dg));
		} else if (v != NULL) {
			char *txt;
			if (jh_input_digest(dg, v, e) == -1)
				return (-1);
			txt = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			if (txt == NULL)
				return (jh_errf(e, "out of memory"));
			json_object_set_new(o, "updated_digest",
			    json_string(dg));
			json_object_set_new(o, "updated_input",
			    json_string(txt));
			free(txt);
		}
		json_object_del(o, "native");
		del_null(o, "content_id");
		del_null(o, "agent_id");
		del_null(o, "target");
		del_null(o, "grant");
		del_null(o, "rule");
		del_null(o, "updated_digest");
		del_null(o, "outcome");
		del_null(o, "hint");
		del_null(o, "ledger");
		del_null(o, "agent_type");
		del_null(o, "chain");
		break;
	case JH_KIND_EFFICIENCY:
		del_null(o, "request_id");
		del_null(o, "model");
		del_null(o, "cost_musd");
		del_null(o, "grant");
		del_null(o, "ledger");
		del_null(o, "remaining_uj");
		del_null(o, "hold");
		if ((v = json_object_get(o, "energy")) != NULL &&
		    json_is_object(v))
			del_null(v, "measured_uj");
		break;
	case JH_KIND_GRANT:
		if (json_object_get(o, "policies") == NULL)
			json_object_set_new(o, "policies", json_array());
		if (json_object_get(o, "costs") == NULL)
			json_object_set_new(o, "costs", json_object());
		if (json_object_get(o, "depth") == NULL)
			json_object_set_new(o, "depth", json_integer(0));
		/* FALLTHROUGH */
	case JH_KIND_REVOCATION:
		json_object_set_new(o, "issuer", json_string(key->did));
		break;
	default:
		break;
	}
	return (0);
}

/*
 * Builds the canonical core: the prepared JSON fields plus the common
 * fields the sealer owns, nonce as a byte string.
 */
int
jh_core_build(struct jh_buf *out, const json_t *o, int id,
    const struct jh_key *key, uint64_t ts, const uint8_t *nonce,
    struct jh_err *e)
{
	struct jh_cmap m;
	const char *k;
	json_t *v;
	void *it;
	int rc;

	jh_cmap_init(&m);
	for (it = json_object_iter((json_t *)o); it != NULL;
	    it = json_object_iter_next((json_t *)o, it)) {
		size_t kn = json_object_iter_key_len(it);
		k = json_object_iter_key(it);
		v = json_object_iter_value(it);
		if (jh_json_field_to_cbor(jh_cmap_tkey(&m, k, kn), v, k, kn,
		    e) == -1) {
			jh_cmap_free(&m);
			return (-1);
		}
		jh_cmap_next(&m);
	}
	jh_cbor_put_text(jh_cmap_tkey(&m, "profile", 7), JH_PROFILE,
	    strlen(JH_PROFILE));
	jh_cmap_next(&m);
	k = jh_kind_name(id);
	jh_cbor_put_text(jh_cmap_tkey(&m, "kind", 4), k, strlen(k));
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "steward", 7), key->did,
	    strlen(key->did));
	jh_cmap_next(&m);
	jh_cbor_put_uint(jh_cmap_tkey(&m, "ts", 2), ts);
	jh_cmap_next(&m);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "nonce", 5), nonce, JH_NONCE_LEN);
	jh_cmap_next(&m);
	rc = jh_cmap_finish(out, &m, e);
	jh_cmap_free(&m);
	return (rc);
}

/*
 * The kind a JSON record is sealed as (jh-seal(1)): want when it is not
 * NULL (the record's own "kind" must then agree), else its own "kind";
 * never a chain/1 or checkpoint/1, and only with the key of its role.
 * Returns the kind's id, or -1 with the refusal in e.
 */
static int
record_kind(const json_t *j, const char *want, const struct jh_key *key,
    const char *keyname, struct jh_err *e)
{
	const json_t *jk = json_object_get(j, "kind");
	const char *kname;
	int kid;

	if (!json_is_object(j))
		return (jh_errf(e, "record is not a JSON object"));
	if (jk != NULL && !json_is_string(jk))
		return (jh_errf(e, "field kind must be a string"));
	if (want != NULL && jk != NULL &&
	    strcmp(json_string_value(jk), want) != 0)
		return (jh_errf(e, "record of kind %s, not %s",
		    json_string_value(jk), want));
	if (want == NULL && jk == NULL)
		return (jh_errf(e, "record has no kind and -K was not given"));
	kname = want != NULL ? want : json_string_value(jk);
	if ((kid = jh_kind_lookup(kname)) == 0 || kid == JH_KIND_CHAIN ||
	    kid == JH_KIND_CHECKPOINT)
		return (jh_errf(e, "%s is not a kind jh-seal seals", kname));
	if (jh_kind_role(kid) != key->role)
		return (jh_errf(e, "%s needs an %s key; %s is a %s key", kname,
		    jh_role_name(jh_kind_role(kid)), keyname,
		    jh_role_name(key->role)));
	return (kid);
}

/*
 * Seals one JSON record as its kind (record_kind).  keyname names the key
 * in a refusal.  The core is built and then checked with the verifier's
 * own rules before it is signed.  The envelope goes into env and the
 * core into core (both reset first).  Returns the kind's id, or -1 with
 * why the record is refused in e.
 */
int
jh_seal_record(struct jh_buf *env, struct jh_buf *core,
    const struct jh_key *key, const char *keyname, const char *want,
    const char *line, size_t len, struct jh_err *e)
{
	struct jh_arena a;
	struct jh_cbor *dec;
	json_t *j;
	uint8_t nonce[JH_NONCE_LEN];
	uint64_t ts;
	int kid, rc = -1;

	jh_buf_reset(env);
	jh_buf_reset(core);
	if ((j = jh_json_parse(line, len, e)) == NULL)
		return (-1);
	jh_arena_init(&a);
	if ((kid = record_kind(j, want, key, keyname, e)) == -1)
		goto out;
	ts = jh_now_ms();
	jh_nonce(nonce);
	if (jh_kind_prepare(j, kid, key, ts, nonce, e) == -1 ||
	    jh_core_build(core, j, kid, key, ts, nonce, e) == -1)
		goto out;
	if (core->len > JH_MAX_RECORD - 256) {
		jh_errf(e, "record too large");
		goto out;
	}
	/* Check what we built with the verifier's own rules. */
	if (jh_cbor_decode_all(&dec, &a, core->p, core->len, 0, e) != 0 ||
	    jh_kind_check(dec, kid, e) == -1 ||
	    jh_seal(env, key, core->p, core->len, e) == -1)
		goto out;
	rc = kid;
out:
	json_decref(j);
	jh_arena_free(&a);
	return (rc);
}
