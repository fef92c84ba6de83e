/*
 * jh-result: what ran, checked against what was decided (jh-result(1)).
 *
 * The check of one post-tool event, and the closing of a session's asks
 * with -e, is jh_result_line() (lib/result.c); this program reads the
 * options, the stewards list and the events, and prints the result/1
 * records for jh-seal.
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
#include "keys.h"
#include "result.h"
#include "util.h"

#define PROG "jh-result"

struct opts {
	struct jh_result_opts r;
	const char *stewards;
	struct jh_keyset keys;
	struct jh_where w;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-e] [-L ledgerdir] [-S statedir] [-s stewards] "
	    "[-w ms] [file ...]\n"
	    "       %s -h\n", PROG, PROG);
	exit(status);
}

/* Writes what the library said, each line as this program's warning. */
static void
say(const struct jh_buf *d)
{
	const char *p = (const char *)d->p, *nl;
	size_t left = d->len;

	while (left > 0 && (nl = memchr(p, '\n', left)) != NULL) {
		warnx("%.*s", (int)(nl - p), p);
		left -= (size_t)(nl - p) + 1;
		p = nl + 1;
	}
}

/* One event (jh_each_line): 0, or 1 when it got no record. */
static int
run_line(void *arg, const char *line, size_t len, const char *why)
{
	const struct opts *o = arg;
	struct jh_buf out, d;
	int rc;

	if (line == NULL)
		return (1);	/* named by jh_each_line */
	(void)why;
	jh_buf_init(&out);
	jh_buf_init(&d);
	rc = jh_result_line(&out, &d, &o->r, line, len) == -1 ? 1 : 0;
	if (out.oom || d.oom) {
		warnx("out of memory");
		rc = 2;
	}
	say(&d);
	if (out.len > 0 && fwrite(out.p, 1, out.len, stdout) != out.len)
		err(2, "stdout");
	jh_buf_free(&out);
	jh_buf_free(&d);
	return (rc);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct jh_err e;
	int ch, rc;

	memset(&o, 0, sizeof(o));
	o.r.wait_ms = 2000;
	signal(SIGPIPE, SIG_IGN);
	jh_keyset_init(&o.keys);
	while ((ch = getopt(argc, argv, "ehL:S:s:w:")) != -1) {
		switch (ch) {
		case 'e':
			o.r.end = 1;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'L':
			o.r.ledgerdir = optarg;
			break;
		case 'S':
			o.r.statedir = optarg;
			break;
		case 's':
			o.stewards = optarg;
			break;
		case 'w':
			if (jh_parse_ms(&o.r.wait_ms, optarg) == -1)
				usage(stderr, 2);
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	o.w.state = o.r.statedir;
	o.w.ledger = o.r.ledgerdir;
	o.w.stewards = o.stewards;
	jh_where_fill(&o.w);
	if ((o.r.statedir = o.w.state) == NULL)
		errx(2, "no JH_STATE and no HOME");
	if ((o.r.ledgerdir = o.w.ledger) == NULL)
		errx(2, "%s/ledger: path too long", o.r.statedir);
	if ((o.stewards = o.w.stewards) == NULL)
		errx(2, "no stewards list: give -s or set JH_HOME");
	if (jh_keyset_load(&o.keys, o.stewards, JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);
	o.r.keys = &o.keys;

	rc = jh_each_line(argc, argv, run_line, &o);
	jh_keyset_free(&o.keys);
	if (jh_fshut(stdout, "stdout") != 0)
		return (2);
	return (rc);
}
