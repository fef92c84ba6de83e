/*
 * joulehook: jh-meter's unit of account (meter.c): one efficiency/1
 * unit as a JSON object ready for jh-seal -K efficiency/1, the energy of
 * its token counts with the coefficient family named as "<file
 * id>#<family>", and the order of provenances an aggregate takes the
 * weakest of.  jh-proxy's units are made here too.  The contract is
 * jh-meter(1) and joulehook-formats(5), "efficiency/1 from jh-meter:
 * observed units, the aggregate and the outcome anchor".
 */
#ifndef JH_METER_H
#define JH_METER_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "energy.h"

struct jh_err;

#define JH_UNIT_ID_MAX	256	/* a unit's id, session or model, bytes */

struct jh_unit {
	const char *session;
	const char *unit;
	const char *request_id;		/* NULL: none */
	/* tokens, transcript, otel, run or aggregate */
	const char *source;
	const char *model;		/* NULL: none */
	struct jh_usage u;
	uint64_t accepted;
	struct jh_energy en;
	char coeff[224];
	uint64_t duration_ms;
	int have_cost;
	uint64_t cost_musd;
	int completed;
	const char *verdict;
	int enforced;
	uint64_t debited;
	const char *note;		/* NULL: none */
	const char *grant;		/* NULL: none (jh-proxy) */
	const char *ledger;		/* NULL: the grant's own */
	int have_remaining;
	uint64_t remaining;
	uint64_t status;		/* the HTTP status answered; 0: none */
	/* jh-proxy lowered the output limit from asked to sent; 0: not */
	uint64_t limit_asked, limit_sent;
	const char *hold;		/* the hold/1 it settles; NULL: none */
};

void	jh_unit_init(struct jh_unit *x, const char *session,
	    const char *source);
/* tokens x the coefficients of the unit's model family: Estimator. */
void	jh_unit_tokens(struct jh_unit *x, const struct jh_coeffs *c);
json_t	*jh_unit_json(const struct jh_unit *x);
/* One line of JSON; a string that is not UTF-8 fails here, not later. */
int	jh_unit_print(FILE *f, const struct jh_unit *x, struct jh_err *e);

/* jh_json_count (json.h) up to JH_TOKENS_MAX, one call's tokens. */
int	jh_json_uint(uint64_t *out, const json_t *v);
/* o's string at key, if 1 to JH_UNIT_ID_MAX bytes and no NUL; else NULL. */
const char *jh_json_id(const json_t *o, const char *key);
/* The strength of a provenance; an aggregate is as strong as its weakest. */
int	jh_prov_rank(const char *p);

#endif /* JH_METER_H */
