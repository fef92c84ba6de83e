/*
 * What the meter's fuzz targets (fuzz-transcript.c, fuzz-otlp.c) share:
 * the coefficients, the checks every unit a reader makes must pass, and
 * the list of units a run made, as the text jh-meter would print.
 *
 * A unit is checked: a session and a name of 1 to JH_UNIT_ID_MAX bytes,
 * a model that is absent or named, token counts that JSON holds exactly
 * (no clamping past INT64_MAX), no more accepted than produced, the
 * estimate and the coefficient name recomputed from the counts and the
 * coefficients, its line printed as jh-meter prints it, read back to the
 * same counts, and taken by the task aggregate.
 */
#ifndef JH_FUZZ_METER_H
#define JH_FUZZ_METER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "aggregate.h"
#include "energy.h"
#include "json.h"
#include "ledger.h"
#include "meter.h"

static struct jh_coeffs fm_coeffs;

static void
fm_init(void)
{
	char p[600];
	struct jh_err e;

	snprintf(p, sizeof(p), "%s/lib/coefficients.json", FZ_TOP);
	if (jh_coeffs_load(&fm_coeffs, p, &e) == -1) {
		fprintf(stderr, "%s\n", e.msg);
		abort();
	}
}

/* The units of one run, as printed, and their aggregate. */
struct fm_units {
	char **v;
	size_t n;
	struct jh_agg agg;
	struct jh_usage sum;
};

static void
fm_units_init(struct fm_units *u)
{
	memset(u, 0, sizeof(*u));
	jh_agg_init(&u->agg);
}

static void
fm_units_free(struct fm_units *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->v[i]);
	free(u->v);
	jh_agg_free(&u->agg);
	memset(u, 0, sizeof(*u));
}

static void
fm_name(const char *what, const char *s, int may_be_null)
{
	if (s == NULL && may_be_null)
		return;
	if (s == NULL || *s == '\0' || strlen(s) > JH_UNIT_ID_MAX) {
		fprintf(stderr, "fuzz-meter: a unit's %s is %s%s%s\n", what,
		    s == NULL ? "absent" : "\"", s == NULL ? "" : s,
		    s == NULL ? "" : "\"");
		abort();
	}
}

static uint64_t
fm_get(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		abort();
	return ((uint64_t)json_integer_value(v));
}

/* The printed line read back: the same counts; the aggregate takes it. */
static void
fm_readback(struct fm_units *u, const struct jh_unit *x, const char *line,
    size_t len)
{
	struct jh_err e;
	json_t *o;

	if ((o = jh_json_parse(line, len, &e)) == NULL || !json_is_object(o))
		abort();
	if (fm_get(o, "tokens_in") != x->u.in ||
	    fm_get(o, "tokens_out") != x->u.out ||
	    fm_get(o, "tokens_cache_read") != x->u.cache_read ||
	    fm_get(o, "tokens_cache_write") != x->u.cache_write ||
	    fm_get(o, "accepted_tokens") != x->accepted ||
	    fm_get(json_object_get(o, "energy"), "estimated_uj") !=
	    x->en.estimated_uj ||
	    strcmp(json_string_value(json_object_get(o, "session")),
	    x->session) != 0)
		abort();
	/* jh-meter aggregate -s: the task's session, whatever the units' */
	json_object_set_new(o, "session", json_string("fuzz-task"));
	if (jh_agg_add(&u->agg, o, &e) != 0) {
		fprintf(stderr, "fuzz-meter: the aggregate refused a unit: %s\n"
		    "%.*s\n", e.msg, (int)len, line);
		abort();
	}
	json_decref(o);
}

/* Checks x, and keeps its line. */
static void
fm_unit(struct fm_units *u, const struct jh_unit *x)
{
	const struct jh_coeff *f = jh_coeffs_find(&fm_coeffs, x->model);
	char coeff[sizeof(x->coeff)], *line = NULL, **nv;
	size_t len = 0;
	struct jh_err e;
	FILE *mf;

	fm_name("session", x->session, 0);
	fm_name("name", x->unit, 0);
	fm_name("model", x->model, 1);
	if (x->u.in > INT64_MAX || x->u.out > INT64_MAX ||
	    x->u.cache_read > INT64_MAX || x->u.cache_write > INT64_MAX ||
	    x->accepted > x->u.out || x->verdict == NULL ||
	    (x->completed && x->accepted != x->u.out))
		abort();
	snprintf(coeff, sizeof(coeff), "%s#%s", fm_coeffs.id, f->family);
	if (x->en.estimated_uj != jh_tokens_uj(f, &x->u) ||
	    strcmp(x->coeff, coeff) != 0 || x->en.measured)
		abort();
	if ((mf = open_memstream(&line, &len)) == NULL)
		abort();
	if (jh_unit_print(mf, x, &e) == -1) {
		fprintf(stderr, "fuzz-meter: not printed: %s\n", e.msg);
		abort();
	}
	fclose(mf);
	if (len == 0 || line[len - 1] != '\n')
		abort();
	fm_readback(u, x, line, len - 1);
	u->sum.in = jh_add_sat(u->sum.in, x->u.in);
	u->sum.out = jh_add_sat(u->sum.out, x->u.out);
	if ((nv = reallocarray(u->v, u->n + 1, sizeof(*nv))) == NULL)
		abort();
	u->v = nv;
	u->v[u->n++] = line;
}

/* The aggregate of a run's units adds up to them. */
static void
fm_units_check(const struct fm_units *u)
{
	if (u->agg.n != u->n || u->agg.u.in != u->sum.in ||
	    u->agg.u.out != u->sum.out)
		abort();
}

/* a == b, unit for unit, from i of a and j of b on. */
static int
fm_same(const struct fm_units *a, size_t i, const struct fm_units *b,
    size_t j, size_t n)
{
	size_t k;

	if (i + n > a->n || j + n > b->n)
		return (0);
	for (k = 0; k < n; k++)
		if (strcmp(a->v[i + k], b->v[j + k]) != 0)
			return (0);
	return (1);
}

static void
fm_dump(const char *what, const struct fm_units *u)
{
	size_t i;

	fprintf(stderr, "%s: %zu units\n", what, u->n);
	for (i = 0; i < u->n; i++)
		fprintf(stderr, "  %s", u->v[i]);
}

/* A memory file holding d, at offset 0. */
static int
fm_memfd(const uint8_t *d, size_t n)
{
	int fd;

	if ((fd = memfd_create("fuzz-meter", MFD_CLOEXEC)) == -1 ||
	    (n > 0 && write(fd, d, n) != (ssize_t)n) ||
	    lseek(fd, 0, SEEK_SET) == -1)
		abort();
	return (fd);
}

#endif
