/*
 * joulehook: jh-meter's unit of account (issue 8, spec 4.2): one
 * efficiency/1 unit as a JSON object for jh-seal -K efficiency/1, the
 * estimated energy of its token counts, and the order of provenances an
 * aggregate takes the weakest of.
 *
 * Observe-only units are never enforced and debit nothing: enforced 0,
 * debited_uj 0 unless an aggregate sums what a proxy debited.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "energy.h"
#include "json.h"
#include "meter.h"

void
jh_unit_init(struct jh_unit *x, const char *session, const char *source)
{
	memset(x, 0, sizeof(*x));
	x->session = session;
	x->source = source;
	x->verdict = "ok";
	x->en.provenance = "Estimator";
	x->en.method = "tokens";
	snprintf(x->coeff, sizeof(x->coeff), "none");
}

/* tokens x the coefficients of the unit's model family: Estimator. */
void
jh_unit_tokens(struct jh_unit *x, const struct jh_coeffs *c)
{
	const struct jh_coeff *f = jh_coeffs_find(c, x->model);
	struct jh_sample none;

	memset(&none, 0, sizeof(none));
	jh_ladder_energy(&x->en, NULL, &none, &none, 1, jh_tokens_uj(f, &x->u),
	    0);
	snprintf(x->coeff, sizeof(x->coeff), "%s#%s", c->id, f->family);
}

/* JSON has no unsigned 64-bit integer: an amount past it is clamped. */
static json_t *
juint(uint64_t v)
{
	return (json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)));
}

static void
put(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v);
}

json_t *
jh_unit_json(const struct jh_unit *x)
{
	json_t *o, *en;

	if ((o = json_object()) == NULL || (en = json_object()) == NULL) {
		json_decref(o);
		return (NULL);
	}
	put(en, "estimated_uj", juint(x->en.estimated_uj));
	if (x->en.measured) {
		put(en, "measured_uj", juint(x->en.measured_uj));
		if (x->en.scope != NULL)
			put(en, "scope", json_string(x->en.scope));
	}
	put(en, "provenance", json_string(x->en.provenance));
	put(o, "kind", json_string("efficiency/1"));
	put(o, "session", json_string(x->session));
	put(o, "unit", json_string(x->unit));
	if (x->request_id != NULL && *x->request_id != '\0')
		put(o, "request_id", json_string(x->request_id));
	put(o, "source", json_string(x->source));
	if (x->model != NULL && *x->model != '\0')
		put(o, "model", json_string(x->model));
	put(o, "tokens_in", juint(x->u.in));
	put(o, "tokens_out", juint(x->u.out));
	put(o, "tokens_cache_read", juint(x->u.cache_read));
	put(o, "tokens_cache_write", juint(x->u.cache_write));
	put(o, "accepted_tokens", juint(x->accepted));
	put(o, "energy", en);
	put(o, "coeff", json_string(x->coeff));
	put(o, "duration_ms", juint(x->duration_ms));
	if (x->have_cost)
		put(o, "cost_musd", juint(x->cost_musd));
	put(o, "completed", json_integer(x->completed ? 1 : 0));
	put(o, "verdict", json_string(x->verdict));
	put(o, "enforced", json_integer(x->enforced ? 1 : 0));
	put(o, "debited_uj", juint(x->debited));
	if (x->grant != NULL)
		put(o, "grant", json_string(x->grant));
	if (x->grant != NULL && x->ledger != NULL)
		put(o, "ledger", json_string(x->ledger));
	if (x->have_remaining)
		put(o, "remaining_uj", juint(x->remaining));
	if (x->status > 0)
		put(o, "status", juint(x->status));
	if (x->note != NULL && *x->note != '\0')
		put(o, "note", json_string(x->note));
	if (x->limit_sent > 0) {
		put(o, "limit_asked", juint(x->limit_asked));
		put(o, "limit_sent", juint(x->limit_sent));
	}
	if (x->hold != NULL)
		put(o, "hold", json_string(x->hold));
	return (o);
}

/* One line of JSON; a string that is not UTF-8 fails here, not later. */
int
jh_unit_print(FILE *f, const struct jh_unit *x, struct jh_err *e)
{
	json_t *o;
	char *s;
	int rc = 0;

	if (x->session == NULL || x->unit == NULL)
		return (jh_errf(e, "a unit needs a session and a name"));
	if ((o = jh_unit_json(x)) == NULL ||
	    json_object_size(o) < 16 ||
	    (s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL) {
		json_decref(o);
		return (jh_errf(e, "unit %s: text that is not UTF-8, or out of "
		    "memory", x->unit));
	}
	if (fprintf(f, "%s\n", s) < 0)
		rc = jh_errf(e, "write: output failed");
	free(s);
	json_decref(o);
	return (rc);
}

/* jh_json_count up to JH_TOKENS_MAX, what one call may hold. */
int
jh_json_uint(uint64_t *out, const json_t *v)
{
	return (jh_json_count(out, v, JH_TOKENS_MAX));
}

/*
 * An id, a session or a model name: a string of 1 to JH_UNIT_ID_MAX
 * bytes with no NUL ("\u0000"), which would cut the name short, to ""
 * where it comes first.
 */
const char *
jh_json_id(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	size_t n = json_string_length(v);

	return (json_is_string(v) && n > 0 && n <= JH_UNIT_ID_MAX &&
	    strlen(json_string_value(v)) == n ? json_string_value(v) : NULL);
}

/*
 * The strength of a provenance: a reading from a counter, a model of this
 * host, an estimate.  An aggregate is only as strong as its weakest part.
 */
int
jh_prov_rank(const char *p)
{
	if (p == NULL)
		return (0);
	if (strcmp(p, "HwShunt") == 0)
		return (2);
	if (strcmp(p, "ModelBased") == 0)
		return (1);
	return (0);
}
