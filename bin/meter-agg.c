/*
 * jh-meter aggregate (jh-meter(1)): the units of a session rolled into
 * one task-level unit, anchored to the grant's outcome.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "aggregate.h"
#include "cbor.h"
#include "cose.h"
#include "energy.h"
#include "json.h"
#include "kinds.h"
#include "ledger.h"
#include "meter.h"
#include "statefs.h"
#include "util.h"
#include "verify.h"

#include "metercmd.h"

/* --- aggregate -------------------------------------------------------- */

static void
load_keys(struct jh_keyset *k, const char *home, const char *name, int role)
{
	struct jh_err e;
	char path[4096];

	if (jh_path_join(path, sizeof(path), home, name) == -1 ||
	    access(path, F_OK) != 0)
		return;
	if (jh_keyset_load(k, path, role, &e) == -1)
		errx(2, "%s", e.msg);
}

/* The efficiency/1 receipts of a chained log, every entry verified. */
static void
agg_log(struct jh_agg *g, const char *path, const char *session)
{
	struct jh_keyset keys;
	struct jh_verifier v;
	struct jh_reader r;
	struct jh_arena a;
	struct jh_env env, inner;
	struct jh_lv lv;
	struct jh_err e;
	struct jh_buf j;
	const uint8_t *item;
	char home[4096];
	size_t len;
	uint64_t idx = 0;
	int fd, x;
	json_t *o;

	jh_keyset_init(&keys);
	if (jh_home(home, sizeof(home)) != NULL) {
		load_keys(&keys, home, "stewards", JH_ROLE_STEWARD);
		load_keys(&keys, home, "trust", JH_ROLE_ISSUER);
	}
	if (keys.n == 0)
		errx(2, "-l: no trusted keys in JH_HOME/stewards to verify %s",
		    path);
	jh_verifier_init(&v, &keys);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		err(2, "%s", path);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	/* A shared lock: no append is half written while this reads. */
	if (jh_flock(fd, LOCK_SH, 5000, &e) == -1)
		errx(2, "%s: %s", path, e.msg);
	jh_reader_init(&r, fd);
	jh_arena_init(&a);
	jh_lv_init(&lv);
	jh_buf_init(&j);
	for (;;) {
		x = jh_reader_cbor(&r, &item, &len, &e);
		if (x == 0)
			break;
		idx++;
		if (x == JH_CBOR_TRUNCATED && lv.entries > 0) {
			warnx("%s: a torn tail after entry %llu, never "
			    "acknowledged: not read", path,
			    (unsigned long long)(idx - 1));
			break;
		}
		if (x != 1)
			errx(1, "%s: entry %llu: %s", path,
			    (unsigned long long)idx, e.msg);
		jh_arena_reset(&a);
		memset(&env, 0, sizeof(env));
		if (jh_verify_env(&v, &env, &a, item, len, &e) == -1 ||
		    strcmp(env.kind, "chain/1") != 0 ||
		    jh_lv_entry(&lv, &v, &env, item, len, &inner, &a,
		    &e) == -1)
			errx(1, "%s: entry %llu does not verify: %s", path,
			    (unsigned long long)idx, env.kind != NULL &&
			    strcmp(env.kind, "chain/1") != 0 ? "not a chain/1 "
			    "entry" : e.msg);
		if (strcmp(inner.kind, "result/1") == 0) {
			jh_agg_result(g, inner.core);
			continue;
		}
		if (strcmp(inner.kind, "efficiency/1") != 0)
			continue;
		jh_buf_reset(&j);
		if (jh_cbor_to_json(&j, inner.core) == -1 ||
		    (o = jh_json_parse((const char *)j.p, j.len, &e)) == NULL)
			errx(2, "%s: entry %llu: cannot read its receipt", path,
			    (unsigned long long)idx);
		if (session != NULL) {
			/* -s names the task's session; units keep theirs. */
			json_object_set_new(o, "session", json_string(session));
		}
		if ((x = jh_agg_add(g, o, &e)) != 0)
			errx(x == JH_AGG_NOMEM ? 2 : 1, "%s: entry %llu: %s",
			    path, (unsigned long long)idx, e.msg);
		json_decref(o);
	}
	if (lv.entries == 0)
		errx(1, "%s: no chained entries", path);
	if (g->session == NULL) {
		if ((g->session = strndup((char *)lv.session, lv.slen)) == NULL)
			errx(2, "out of memory");
	}
	jh_buf_free(&j);
	jh_lv_free(&lv);
	jh_arena_free(&a);
	jh_reader_free(&r);
	jh_keyset_free(&keys);
	close(fd);
}

/* The units on the standard input; how many lines were refused. */
static uint64_t
agg_stdin(struct jh_agg *g, const char *session)
{
	struct jh_reader r;
	struct jh_err e;
	const char *line;
	uint64_t lineno = 0, bad = 0;
	size_t len;
	int rr, rc;
	json_t *o;

	jh_reader_init(&r, STDIN_FILENO);
	while ((rr = jh_reader_line(&r, &line, &len, &e)) != 0) {
		lineno++;
		if (rr == 1 && (len == 0 || strspn(line, " \t\r") == len))
			continue;
		o = rr == 1 ? jh_json_parse(line, len, &e) : NULL;
		if (o != NULL && session != NULL && json_is_object(o))
			json_object_set_new(o, "session", json_string(session));
		rc = o == NULL ? -1 : jh_agg_add(g, o, &e);
		if (rc == JH_AGG_NOMEM)
			errx(2, "%s", e.msg);
		if (rc == -1) {
			warnx("aggregate: line %llu: %s",
			    (unsigned long long)lineno, e.msg);
			bad++;
		}
		json_decref(o);
	}
	jh_reader_free(&r);
	return (bad);
}

/*
 * Whether the task completed, and why it is said to: the log's outcome,
 * else -c and -V, else not counted as completed.
 */
static void
agg_anchor(struct jh_unit *x, char *anchor, size_t sz,
    const struct jh_agg *g, int copt, const char *vopt)
{
	const char *s = g->outcome_status;

	if (g->have_outcome) {
		x->completed = strcmp(s, "ok") == 0;
		x->verdict = x->completed ? "ok" : strcmp(s, "denied") == 0 ?
		    "refused" : strcmp(s, "not-run") == 0 ? "partial" : "error";
		snprintf(anchor, sz, "outcome: result/1 %s of %s", s,
		    g->outcome_call[0] ? g->outcome_call : "an unnamed call");
	} else if (copt != -1 || vopt != NULL) {
		x->completed = copt != -1 ? copt : strcmp(vopt, "ok") == 0;
		x->verdict = vopt ? vopt : x->completed ? "ok" : "error";
		snprintf(anchor, sz, "outcome: given (%s%s%s%s)",
		    copt == -1 ? "" : copt ? "-c 1" : "-c 0",
		    copt != -1 && vopt ? " " : "", vopt ? "-V " : "",
		    vopt ? vopt : "");
	} else {
		x->completed = 0;
		x->verdict = "partial";
		snprintf(anchor, sz, "no outcome anchor: not counted as "
		    "completed");
	}
}

/* The rates, recomputed from the integers of the unit just printed. */
static void
agg_rates(const struct jh_unit *x, const struct jh_agg *g,
    const char *anchor)
{
	char rate[3][48], jb[64];
	uint64_t energy, q;

	energy = x->en.measured ? x->en.measured_uj : x->en.estimated_uj;
	if (x->completed) {
		snprintf(rate[0], sizeof(rate[0]), "%llu",
		    (unsigned long long)energy);
		snprintf(rate[1], sizeof(rate[1]), "%llu", (unsigned long long)
		    jh_add_sat(jh_add_sat(x->u.in, x->u.out),
		    jh_add_sat(x->u.cache_read, x->u.cache_write)));
	} else {
		snprintf(rate[0], sizeof(rate[0]), "none");
		snprintf(rate[1], sizeof(rate[1]), "none");
	}
	if (energy > 0) {
		/* accepted tokens per joule, to three decimals, truncated */
		q = (uint64_t)((unsigned __int128)x->accepted * 1000000000u /
		    energy);
		snprintf(rate[2], sizeof(rate[2]), "%llu.%03llu",
		    (unsigned long long)(q / 1000),
		    (unsigned long long)(q % 1000));
	} else
		snprintf(rate[2], sizeof(rate[2]), "none");
	fprintf(stderr, "%s: aggregate: %llu attempts, %llu failed, completed "
	    "%d (%s): %s %s, accepted_tokens=%llu, uj_per_completed_unit=%s "
	    "tokens_per_completed_unit=%s value_per_joule=%s: " OBSERVED "\n",
	    PROG, (unsigned long long)g->n, (unsigned long long)g->failed,
	    x->completed, anchor, joules(jb, sizeof(jb), energy),
	    x->en.measured ? "measured" : "estimated",
	    (unsigned long long)x->accepted, rate[0], rate[1], rate[2]);
}

int
cmd_aggregate(int argc, char **argv)
{
	struct jh_agg g;
	struct jh_unit x;
	struct opts op;
	char note[512], anchor[JH_UNIT_ID_MAX + 96];
	uint64_t bad = 0;
	int ch;

	jh_agg_init(&g);
	opts_init(&op);
	while ((ch = getopt(argc, argv, "c:l:s:u:V:")) != -1)
		option(&op, ch);
	if (optind != argc)
		usage(stderr, 2);
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (op.log != NULL)
		agg_log(&g, op.log, op.session);
	else
		bad = agg_stdin(&g, op.session);
	if (bad)
		errx(1, "aggregate: %llu line%s refused: no aggregate of part "
		    "of a task", (unsigned long long)bad, bad == 1 ? "" : "s");
	if (g.n == 0)
		errx(1, "aggregate: no efficiency/1 units to aggregate");
	jh_unit_init(&x, op.session ? op.session : g.session, "aggregate");
	agg_anchor(&x, anchor, sizeof(anchor), &g, op.copt, op.verdict);
	x.unit = op.unit ? op.unit : "task";
	jh_agg_sums(&x, &g);
	snprintf(note, sizeof(note), "%llu attempt%s (%llu failed) charged "
	    "against the result; %s; " OBSERVED,
	    (unsigned long long)g.n, g.n == 1 ? "" : "s",
	    (unsigned long long)g.failed, anchor);
	x.note = note;
	emit(&x);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	agg_rates(&x, &g, anchor);
	jh_agg_free(&g);
	return (0);
}
