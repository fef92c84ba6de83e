/*
 * fuzz-otlp: bytes -> jh-meter's OTLP/JSON reader (lib/otlp.c), as
 * 'jh-meter otel FILE' and the receiver (otel -l) feed it.  The first
 * byte picks: bits 0-1 the way in (0 a file of export requests read from
 * a memory file descriptor, 1 a POST to /v1/logs, 2 to /v1/metrics, 3 to
 * /v1/traces, the rest being its body), bit 2 whether -s names a
 * session, bit 3 whether the sink refuses every other unit (a log that
 * cannot be sealed).  Checked:
 *
 *   - every unit passes fuzz-meter.h's checks (names, counts, estimate,
 *     its printed line read back, the aggregate takes it);
 *   - the same bytes read again, fresh, give the same units and counts;
 *   - a request refused whole gives no unit and starts no series;
 *   - a metric sum the sink refused comes again at the next flush, and
 *     a flush after that gives nothing;
 *   - the same requests sent again add no metric unit but from a delta
 *     series (a cumulative series' latest value is its total);
 *   - where the rest is one JSON object, the file's units are those of
 *     the three POSTs of it, to /v1/logs, /v1/metrics and /v1/traces.
 */
#include "fuzz-common.h"

#include <sys/mman.h>

#include "jh.h"
#include "json.h"
#include "meter.h"
#include "otlp.h"
#include "fuzz-meter.h"

#define FO_NOTE		"claude_code.token.usage:"	/* a metric sum's */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_world("fuzz-otlp", "OTLP/JSON logs, metrics and traces to units");
	fm_init();
	return (0);
}

/* The sink: every unit checked and kept, or every other one refused. */
struct sink {
	struct fm_units u;
	int refuse;
	uint64_t given, refused;
	uint64_t metric;	/* metric sums among the units kept */
	const struct jh_otlp *o;
	int resent;		/* a metric sum now needs a delta series */
};

/* A delta series of x's session and model. */
static int
has_delta(const struct jh_otlp *o, const struct jh_unit *x)
{
	size_t i;

	for (i = 0; i < o->ns; i++)
		if (!o->s[i].cumulative && strcmp(o->s[i].session,
		    x->session) == 0 && (o->s[i].model == NULL ?
		    x->model == NULL : x->model != NULL &&
		    strcmp(o->s[i].model, x->model) == 0))
			return (1);
	return (0);
}

static int
sink(void *arg, const struct jh_unit *x, struct jh_err *e)
{
	struct sink *s = arg;
	int metric = x->note != NULL && strncmp(x->note, FO_NOTE,
	    strlen(FO_NOTE)) == 0;

	if (strcmp(x->source, "otel") != 0)
		abort();
	if (s->refuse && s->given++ % 2 == 1) {
		s->refused++;
		return (jh_errf(e, "refused by fuzz-otlp's sink"));
	}
	if (metric && s->resent && !has_delta(s->o, x)) {
		fprintf(stderr, "a cumulative metric counted again: %s/%s\n",
		    x->session, x->unit);
		abort();
	}
	s->metric += metric;
	fm_unit(&s->u, x);
	return (0);
}

/* The bytes in one way: a file, or a POST to the path of mask. */
static void
feed(struct jh_otlp *o, struct sink *s, int way, const uint8_t *d,
    size_t n)
{
	static const int masks[4] = { 0, JH_OT_LOGS, JH_OT_METRICS,
	    JH_OT_TRACES };
	size_t before = s->u.n, ns = o->ns;
	int fd, rc;

	if (way == 0) {
		fd = fm_memfd(d, n);
		if (jh_otlp_read(o, fd) != 0)
			abort();
		close(fd);
		return;
	}
	rc = jh_otlp_request(o, (const char *)d, n, masks[way]);
	if (rc != 0 && rc != -1)
		abort();
	if (rc == -1 && (s->u.n != before || o->ns != ns))
		abort();
}

/* A run of the bytes: fed, flushed; what came of it. */
struct run {
	struct sink s;
	uint64_t nv, bad, dropped, unsealed;
	size_t first;		/* units before the retry flush */
};

static void
run(struct run *r, int ctl, const uint8_t *d, size_t n)
{
	struct jh_otlp o;
	size_t again;

	memset(r, 0, sizeof(*r));
	fm_units_init(&r->s.u);
	r->s.refuse = (ctl & 8) != 0;
	r->s.o = &o;
	jh_otlp_init(&o, &fm_coeffs, ctl & 4 ? "fuzz-s" : NULL, sink, NULL,
	    &r->s);
	feed(&o, &r->s, ctl & 3, d, n);
	jh_otlp_flush(&o, 0);
	r->first = r->s.u.n;
	/* What the sink refused of the sums comes again; then nothing. */
	r->s.refuse = 0;
	again = r->s.u.n;
	jh_otlp_flush(&o, 0);
	if (r->s.u.n - again > r->s.refused)
		abort();
	again = r->s.u.n;
	jh_otlp_flush(&o, 0);
	if (r->s.u.n != again)
		abort();
	r->nv = o.nv;
	r->bad = o.bad;
	r->dropped = o.dropped;
	r->unsealed = o.unsealed;
	/* Sent again: the cumulative series add nothing. */
	r->s.resent = 1;
	feed(&o, &r->s, ctl & 3, d, n);
	jh_otlp_flush(&o, 0);
	fm_units_check(&r->s.u);
	jh_otlp_free(&o);
}

/* One object: the file's units are the three POSTs' units. */
static void
three_ways(int ctl, const uint8_t *d, size_t n)
{
	static const int order[3] = { JH_OT_LOGS, JH_OT_METRICS,
	    JH_OT_TRACES };
	struct jh_otlp o;
	struct sink file, posts;
	struct jh_err e;
	json_t *j;
	int i, fd;

	if ((j = jh_json_parse((const char *)d, n, &e)) == NULL)
		return;
	i = json_is_object(j);
	json_decref(j);
	if (!i)
		return;
	memset(&file, 0, sizeof(file));
	memset(&posts, 0, sizeof(posts));
	fm_units_init(&file.u);
	fm_units_init(&posts.u);
	jh_otlp_init(&o, &fm_coeffs, ctl & 4 ? "fuzz-s" : NULL, sink, NULL,
	    &file);
	fd = fm_memfd(d, n);
	if (jh_otlp_read(&o, fd) != 0)
		abort();
	close(fd);
	jh_otlp_flush(&o, 0);
	jh_otlp_free(&o);
	jh_otlp_init(&o, &fm_coeffs, ctl & 4 ? "fuzz-s" : NULL, sink, NULL,
	    &posts);
	for (i = 0; i < 3; i++)
		if (jh_otlp_request(&o, (const char *)d, n, order[i]) != 0)
			abort();
	jh_otlp_flush(&o, 0);
	jh_otlp_free(&o);
	if (file.u.n != posts.u.n || !fm_same(&file.u, 0, &posts.u, 0,
	    file.u.n)) {
		fm_dump("file", &file.u);
		fm_dump("posts", &posts.u);
		abort();
	}
	fm_units_free(&file.u);
	fm_units_free(&posts.u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct run a, b;
	int ctl;

	if (n == 0)
		return (0);
	ctl = d[0];
	d++;
	n--;
	run(&a, ctl, d, n);
	run(&b, ctl, d, n);
	if (a.nv != b.nv || a.bad != b.bad || a.dropped != b.dropped ||
	    a.unsealed != b.unsealed || a.s.refused != b.s.refused ||
	    a.s.u.n != b.s.u.n || !fm_same(&a.s.u, 0, &b.s.u, 0, a.s.u.n))
		abort();
	if (a.unsealed != a.s.refused || a.bad < a.unsealed)
		abort();
	three_ways(ctl, d, n);
	fm_units_free(&a.s.u);
	fm_units_free(&b.s.u);
	return (0);
}
