/*
 * aggregate.h: efficiency/1 units rolled into one task-level unit
 * (jh-meter(1), aggregate).  Every attempt counts, failed ones too; the
 * energy is as strong as its weakest part; a result/1 receipt with
 * outcome 1 anchors the task.
 */
#ifndef JH_AGGREGATE_H
#define JH_AGGREGATE_H

#include <stdint.h>

#include <jansson.h>

#include "meter.h"

struct jh_cbor;
struct jh_err;

#define JH_AGG_NOMEM	(-2)	/* out of memory */

struct jh_agg {
	uint64_t n, failed, skipped, completed;
	struct jh_usage u;
	uint64_t accepted, est, meas, dur, cost, debited;
	int weakest;		/* provenance rank (jh_prov_rank) */
	int ncost;		/* units with a cost */
	char *session;
	char *model;
	int mixed_model;
	char *scope;
	int mixed_scope;
	/* the outcome anchor of a log: its last result/1 with outcome 1 */
	int have_outcome;
	char outcome_status[32];
	char outcome_call[JH_UNIT_ID_MAX + 1];
};

void	jh_agg_init(struct jh_agg *g);
void	jh_agg_free(struct jh_agg *g);

/*
 * Adds one efficiency/1 unit (an aggregate's is skipped: its parts are
 * counted, not it again).  Returns 0, -1 with why it is refused (not a
 * unit, or one of another session), JH_AGG_NOMEM.
 */
int	jh_agg_add(struct jh_agg *g, const json_t *unit, struct jh_err *e);

/* A result/1 core with outcome 1 anchors the task; the last one wins. */
void	jh_agg_result(struct jh_agg *g, const struct jh_cbor *core);

/*
 * The sums into the task's unit x, whose completed is already decided:
 * nothing is accepted unless it completed.
 */
void	jh_agg_sums(struct jh_unit *x, const struct jh_agg *g);

#endif
