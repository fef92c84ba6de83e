/*
 * fuzz-transcript: bytes -> jh-meter's reader of Claude Code transcripts
 * (lib/transcript.c), as 'jh-meter transcript [-O offsetfile] FILE'
 * drives it: the bytes are the file, read from a memory file descriptor
 * to its end.  Checked:
 *
 *   - every unit passes fuzz-meter.h's checks (names, counts, estimate,
 *     its printed line read back, the aggregate takes it);
 *   - the same bytes read again, fresh, give the same units, offset and
 *     counts;
 *   - read resumable (-O), the units are those of a plain read less at
 *     most one, the last call, still streaming (no stop_reason), whose
 *     first line the offset then stops at;
 *   - where the calls are written as Claude Code writes them, one after
 *     another, each with its stop_reason on its last line: the file read
 *     in two pieces at a line boundary, the second from the offset the
 *     first left (the file having grown in between), gives the units of
 *     one read, and the same final offset.
 */
#include "fuzz-common.h"

#include <sys/mman.h>

#include "jh.h"
#include "meter.h"
#include "transcript.h"
#include "fuzz-meter.h"

#define FT_PATH		"/fuzz/session.jsonl"
#define FT_SPLITS	8	/* line boundaries tried per input */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_world("fuzz-transcript", "transcript reader, offsets and units");
	fm_init();
	return (0);
}

/* One read of fd from off into t; its next offset. */
static uint64_t
piece(struct jh_transcript *t, int fd, uint64_t off, int resume)
{
	struct jh_err e;
	uint64_t next;

	if (lseek(fd, (off_t)off, SEEK_SET) == -1 ||
	    jh_transcript_read(t, fd, 0, off, resume, &next, NULL, NULL,
	    &e) == -1)
		abort();
	if (next < off)
		abort();
	return (next);
}

/* The units of t's calls (those not deferred), as jh-meter makes them. */
static void
units(struct fm_units *u, const struct jh_transcript *t)
{
	struct jh_unit x;
	char fallback[JH_UNIT_ID_MAX + 1];
	const char *sess;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->v[i].deferred)
			continue;
		sess = jh_transcript_session(&t->v[i], NULL, FT_PATH, fallback,
		    sizeof(fallback));
		jh_transcript_unit(&x, &t->v[i], sess, &fm_coeffs);
		fm_unit(u, &x);
	}
	fm_units_check(u);
}

/* A whole read of fd: its units, offset, line and skip counts. */
struct whole {
	struct fm_units u;
	uint64_t next, lines, bad;
	int sequential;		/* calls one after another, stopped last */
	size_t deferred;	/* the call left, or SIZE_MAX */
};

static void
whole(struct whole *w, int fd, int resume)
{
	struct jh_transcript t;
	size_t i;

	fm_units_init(&w->u);
	jh_transcript_init(&t);
	w->next = piece(&t, fd, 0, resume);
	w->lines = t.lines;
	w->bad = t.bad;
	w->sequential = 1;
	w->deferred = SIZE_MAX;
	for (i = 0; i < t.n; i++) {
		const struct jh_tcall *c = &t.v[i];
		if (c->start > c->last || (c->stopped && (c->stop < c->start ||
		    c->stop > c->last)))
			abort();
		if (i > 0 && t.v[i - 1].start >= c->start)
			abort();	/* calls are in the order they began */
		if ((i + 1 < t.n && c->last >= t.v[i + 1].start) ||
		    (c->stopped && c->stop != c->last))
			w->sequential = 0;
		if (c->deferred) {
			if (w->deferred != SIZE_MAX || i + 1 != t.n ||
			    c->stopped || w->next != c->start)
				abort();
			w->deferred = i;
		}
	}
	units(&w->u, &t);
	jh_transcript_free(&t);
}

/* Read in two pieces: the first k bytes, then the rest from the offset. */
static void
split(const uint8_t *d, size_t n, size_t k, const struct whole *w)
{
	struct jh_transcript t;
	struct fm_units a, b;
	uint64_t n1, n2;
	int fd;

	fm_units_init(&a);
	fm_units_init(&b);
	fd = fm_memfd(d, k);
	jh_transcript_init(&t);
	n1 = piece(&t, fd, 0, 1);
	units(&a, &t);
	jh_transcript_free(&t);
	if (n1 > k || (n1 > 0 && d[n1 - 1] != '\n'))
		abort();	/* the offset is a line's start */
	if (pwrite(fd, d + k, n - k, (off_t)k) != (ssize_t)(n - k))
		abort();
	jh_transcript_init(&t);
	n2 = piece(&t, fd, n1, 1);
	units(&b, &t);
	jh_transcript_free(&t);
	close(fd);
	if (n2 != w->next || a.n + b.n != w->u.n || !fm_same(&w->u, 0, &a, 0,
	    a.n) || !fm_same(&w->u, a.n, &b, 0, b.n)) {
		fprintf(stderr, "split at %zu: offsets %llu then %llu, whole "
		    "%llu\n", k, (unsigned long long)n1,
		    (unsigned long long)n2, (unsigned long long)w->next);
		fm_dump("whole", &w->u);
		fm_dump("first", &a);
		fm_dump("second", &b);
		abort();
	}
	fm_units_free(&a);
	fm_units_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct whole w1, w2, plain;
	size_t k, nl = 0, step, seen = 0;
	int fd;

	fd = fm_memfd(d, n);
	whole(&w1, fd, 1);
	whole(&w2, fd, 1);
	whole(&plain, fd, 0);
	close(fd);
	if (w1.next != w2.next || w1.lines != w2.lines || w1.bad != w2.bad ||
	    w1.u.n != w2.u.n || !fm_same(&w1.u, 0, &w2.u, 0, w1.u.n))
		abort();
	/* resumed: the plain read's units, less the one left, if any */
	k = plain.u.n - w1.u.n;
	if (plain.next > n || plain.lines != w1.lines || k > 1 ||
	    (k == 0 && w1.next != plain.next))
		abort();
	if (k == 1 && (!fm_same(&plain.u, 0, &w1.u, 0, plain.u.n - 1) ||
	    strstr(plain.u.v[plain.u.n - 1], "\"completed\":0") == NULL))
		abort();
	if (w1.sequential) {
		for (k = 0; k + 1 < n; k++)
			nl += d[k] == '\n';
		step = nl > FT_SPLITS ? nl / FT_SPLITS + 1 : 1;
		for (k = 0; k + 1 < n; k++)
			if (d[k] == '\n' && seen++ % step == 0)
				split(d, n, k + 1, &w1);
	}
	fm_units_free(&w1.u);
	fm_units_free(&w2.u);
	fm_units_free(&plain.u);
	return (0);
}
