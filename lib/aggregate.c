/*
 * joulehook: efficiency/1 units rolled into one task-level unit
 * (aggregate.h, jh-meter(1), aggregate).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "aggregate.h"
#include "cbor.h"
#include "ledger.h"
#include "meter.h"

void
jh_agg_init(struct jh_agg *g)
{
	memset(g, 0, sizeof(*g));
}

void
jh_agg_free(struct jh_agg *g)
{
	free(g->session);
	free(g->model);
	free(g->scope);
	memset(g, 0, sizeof(*g));
}

static int
get_uint(uint64_t *v, const json_t *o, const char *k, struct jh_err *e)
{
	const json_t *x = json_object_get(o, k);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return (jh_errf(e, "%s is not an unsigned integer", k));
	*v = (uint64_t)json_integer_value(x);
	return (0);
}

/* *dst is the first s seen; another sets *mixed.  -1: out of memory. */
static int
set_once(char **dst, int *mixed, const char *s)
{
	if (s == NULL)
		return (0);
	if (*dst == NULL) {
		if ((*dst = strdup(s)) == NULL)
			return (-1);
	} else if (strcmp(*dst, s) != 0)
		*mixed = 1;
	return (0);
}

/* The counts every unit has. */
struct counts {
	uint64_t in, out, cr, cw, acc, est, meas, dur, deb, comp;
	const char *prov;
};

static int
unit_counts(struct counts *c, const json_t *o, struct jh_err *e)
{
	const json_t *en = json_object_get(o, "energy");

	c->meas = 0;
	if (get_uint(&c->in, o, "tokens_in", e) == -1 ||
	    get_uint(&c->out, o, "tokens_out", e) == -1 ||
	    get_uint(&c->cr, o, "tokens_cache_read", e) == -1 ||
	    get_uint(&c->cw, o, "tokens_cache_write", e) == -1 ||
	    get_uint(&c->acc, o, "accepted_tokens", e) == -1 ||
	    get_uint(&c->dur, o, "duration_ms", e) == -1 ||
	    get_uint(&c->deb, o, "debited_uj", e) == -1 ||
	    get_uint(&c->comp, o, "completed", e) == -1 ||
	    get_uint(&c->est, en, "estimated_uj", e) == -1)
		return (-1);
	if ((c->prov = jh_json_id(en, "provenance")) == NULL ||
	    (strcmp(c->prov, "HwShunt") != 0 && strcmp(c->prov,
	    "ModelBased") != 0 && strcmp(c->prov, "Estimator") != 0))
		return (jh_errf(e, "energy.provenance must be HwShunt, "
		    "ModelBased or Estimator"));
	if (strcmp(c->prov, "HwShunt") == 0 && get_uint(&c->meas, en,
	    "measured_uj", e) == -1)
		return (-1);
	if (strcmp(c->prov, "HwShunt") != 0 && json_object_get(en,
	    "measured_uj") != NULL)
		return (jh_errf(e, "energy.measured_uj is only for HwShunt"));
	return (0);
}

static void
add_counts(struct jh_agg *g, const struct counts *c)
{
	g->n++;
	if (!c->comp)
		g->failed++;
	else
		g->completed++;
	g->u.in = jh_add_sat(g->u.in, c->in);
	g->u.out = jh_add_sat(g->u.out, c->out);
	g->u.cache_read = jh_add_sat(g->u.cache_read, c->cr);
	g->u.cache_write = jh_add_sat(g->u.cache_write, c->cw);
	g->accepted = jh_add_sat(g->accepted, c->acc);
	g->est = jh_add_sat(g->est, c->est);
	g->meas = jh_add_sat(g->meas, c->meas);
	g->dur = jh_add_sat(g->dur, c->dur);
	g->debited = jh_add_sat(g->debited, c->deb);
}

int
jh_agg_add(struct jh_agg *g, const json_t *o, struct jh_err *e)
{
	const json_t *en = json_object_get(o, "energy");
	struct counts c;
	const char *src, *sess;
	uint64_t cost;
	int mixed_sess = 0;

	if (!json_is_object(o))
		return (jh_errf(e, "not a JSON object"));
	if (jh_json_id(o, "kind") != NULL && strcmp(jh_json_id(o, "kind"),
	    "efficiency/1") != 0)
		return (jh_errf(e, "a %s, not an efficiency/1 unit",
		    jh_json_id(o, "kind")));
	if ((src = jh_json_id(o, "source")) == NULL || (sess = jh_json_id(o,
	    "session")) == NULL)
		return (jh_errf(e, "no source or session: not an efficiency/1 "
		    "unit"));
	if (strcmp(src, "aggregate") == 0) {
		g->skipped++;
		return (0);	/* its parts are counted, not it again */
	}
	if (unit_counts(&c, o, e) == -1)
		return (-1);
	if (set_once(&g->session, &mixed_sess, sess) == -1)
		goto nomem;
	if (mixed_sess)
		return (jh_errf(e, "a unit of session %s among units of %s: "
		    "give -s to aggregate across sessions", sess, g->session));
	if (json_object_get(o, "cost_musd") != NULL &&
	    get_uint(&cost, o, "cost_musd", e) == -1)
		return (-1);
	if (g->n == 0 || jh_prov_rank(c.prov) < g->weakest)
		g->weakest = jh_prov_rank(c.prov);
	if (set_once(&g->model, &g->mixed_model, jh_json_id(o,
	    "model")) == -1)
		goto nomem;
	if (jh_json_id(o, "model") == NULL)
		g->mixed_model = 1;
	if (strcmp(c.prov, "HwShunt") == 0 && set_once(&g->scope,
	    &g->mixed_scope, jh_json_id(en, "scope") ? jh_json_id(en,
	    "scope") : "unstated") == -1)
		goto nomem;
	add_counts(g, &c);
	if (json_object_get(o, "cost_musd") != NULL) {
		g->cost = jh_add_sat(g->cost, cost);
		g->ncost++;
	}
	return (0);
nomem:
	jh_errf(e, "out of memory");
	return (JH_AGG_NOMEM);
}

void
jh_agg_result(struct jh_agg *g, const struct jh_cbor *core)
{
	const struct jh_cbor *oc = jh_cbor_get(core, "outcome");
	const struct jh_cbor *st = jh_cbor_get(core, "status");
	const struct jh_cbor *id = jh_cbor_get(core, "tool_use_id");

	if (oc == NULL || oc->type != JH_CBOR_UINT || oc->u != 1 ||
	    st == NULL || st->type != JH_CBOR_TEXT)
		return;
	g->have_outcome = 1;
	snprintf(g->outcome_status, sizeof(g->outcome_status), "%.*s",
	    (int)st->len, (const char *)st->p);
	if (id != NULL && id->type == JH_CBOR_TEXT)
		snprintf(g->outcome_call, sizeof(g->outcome_call), "%.*s",
		    (int)(id->len > JH_UNIT_ID_MAX ? JH_UNIT_ID_MAX : id->len),
		    (const char *)id->p);
	else
		g->outcome_call[0] = '\0';
}

void
jh_agg_sums(struct jh_unit *x, const struct jh_agg *g)
{
	x->model = g->mixed_model ? NULL : g->model;
	x->u = g->u;
	/* What was delivered: nothing, unless the task completed. */
	x->accepted = x->completed ? g->accepted : 0;
	x->duration_ms = g->dur;
	x->debited = g->debited;
	x->have_cost = g->ncost > 0 && (uint64_t)g->ncost == g->n;
	x->cost_musd = g->cost;
	x->en.estimated_uj = g->est;
	x->en.provenance = g->weakest == 2 ? "HwShunt" : g->weakest == 1 ?
	    "ModelBased" : "Estimator";
	if (g->weakest == 2) {
		x->en.measured = 1;
		x->en.measured_uj = g->meas;
		x->en.scope = g->mixed_scope ? "mixed" : g->scope;
	}
	snprintf(x->coeff, sizeof(x->coeff), "sum-of-parts");
}
