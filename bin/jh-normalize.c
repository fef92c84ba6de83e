/*
 * jh-normalize: a host's hook payloads to ActionEvents, the first stage
 * of the gate; with -r, the last: a chained decision receipt bound to the
 * call to the host's own answer and exit status; with -r -E and a
 * post-tool event, a chained result/1 to the host's answer after a tool
 * ran (nothing, or stop the run and maybe withhold the output).
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "hosts.h"
#include "keys.h"
#include "reply.h"
#include "util.h"

#define PROG "jh-normalize"

struct opts {
	const struct jh_host *host;
	int reply;
	int native;
	int replace;		/* -A: the grant replaces the prompt */
	int help;
	int dset;		/* -d given */
	uint64_t deadline_ms;
	const char *stewards;
	const char *session;
	const char *call;
	const char *digest;
	const char *event;	/* -E: the event answered, if not the gate's */
	char bad[160];		/* the first usage error, if any */
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s -H host [-n] [file ...]\n"
	    "       %s -H host -r [-A] [-d ms] [-s stewards] -i session "
	    "-u tool_use_id\n"
	    "                    -D input_digest [-E event]\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static void
usage_err(struct opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->bad[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(o->bad, sizeof(o->bad), fmt, ap);
	va_end(ap);
}

/*
 * Normalizes one input (jh_each_file): each JSON value becomes one
 * ActionEvent line.  Returns 0, 1 when some payload was refused, not
 * JSON or too long (named on the standard error, nothing written for
 * it), 2 when the input could not be read, -1 on a write error.
 */
static int
normalize_file(void *arg, struct jh_reader *r, const char *path)
{
	const struct opts *o = arg;
	struct jh_buf line;
	struct jh_err e;
	const char *val;
	size_t len;
	unsigned long idx = 0;
	uint64_t off;
	int x, rc = 0;

	jh_buf_init(&line);
	for (;;) {
		off = r->offset + r->pos;
		if ((x = jh_reader_json(r, &val, &len, &off, &e)) == 0)
			break;
		idx++;
		if (x != 1) {
			warnx("%s: payload %lu (offset %llu): %s", path, idx,
			    (unsigned long long)off, e.msg);
			rc = 1;
			if (x == JH_JSON_TOOLONG)
				continue;
			break;
		}
		/* A payload that is not JSON is passed over: its end is known. */
		jh_buf_reset(&line);
		if ((x = jh_normalize_one(&line, o->host, val, len, o->native,
		    &e)) == -1)
			errx(2, "%s", e.msg);
		if (x == 1) {
			warnx("%s: payload %lu (offset %llu): %s", path, idx,
			    (unsigned long long)off, e.msg);
			rc = 1;
			continue;
		}
		if (fwrite(line.p, 1, line.len, stdout) != line.len) {
			rc = -1;
			break;
		}
	}
	jh_buf_free(&line);
	return (r->err != 0 ? 2 : rc);
}

/*
 * The reply stage: every path ends in the host's answer, and any doubt
 * in its deny and blocking exit status (jh_reply, lib/reply.c).
 */
static int
reply(const struct opts *o)
{
	struct jh_reply_opts ro;
	struct jh_keyset ks;
	struct jh_buf in, out, why;
	struct jh_err e;
	struct jh_where w;
	char failed[512];
	int status;

	memset(&w, 0, sizeof(w));
	w.stewards = o->stewards;
	jh_where_fill(&w);
	jh_keyset_init(&ks);
	jh_buf_init(&in);
	jh_buf_init(&out);
	jh_buf_init(&why);
	failed[0] = '\0';
	if (o->bad[0] != '\0')
		snprintf(failed, sizeof(failed), "usage: %s", o->bad);
	else if (w.stewards == NULL)
		snprintf(failed, sizeof(failed), "no stewards list: give -s "
		    "or set JH_HOME");
	else if (jh_keyset_load(&ks, w.stewards, JH_ROLE_STEWARD, &e) == -1)
		snprintf(failed, sizeof(failed), "cannot load the stewards "
		    "list: %s", e.msg);
	else if (jh_read_all(&in, STDIN_FILENO, JH_MAX_RECORD, &e) == -1)
		snprintf(failed, sizeof(failed), "no receipt: %s", e.msg);
	memset(&ro, 0, sizeof(ro));
	ro.host = o->host;
	ro.session = o->session;
	ro.call = o->call;
	ro.digest = o->digest;
	ro.event = o->event;
	ro.deadline_ms = o->deadline_ms;
	ro.replace = o->replace;
	status = jh_reply(&out, &why, &ro, &ks, in.p, in.len,
	    failed[0] != '\0' ? failed : NULL);
	if (out.oom || why.oom)
		errx(o->host->block_status, "out of memory");
	if (why.len > 0)
		fprintf(stderr, "%.*s\n", (int)why.len, (char *)why.p);
	if (out.len > 0)
		(void)fwrite(out.p, 1, out.len, stdout);
	if (jh_fshut(stdout, "stdout") != 0)
		status = o->host->block_status;
	jh_keyset_free(&ks);
	jh_buf_free(&in);
	jh_buf_free(&out);
	jh_buf_free(&why);
	return (status);
}

static void
parse_ms(struct opts *o, const char *s)
{
	char *end;

	errno = 0;
	o->deadline_ms = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 ||
	    o->deadline_ms > 86400000ULL * 365)
		usage_err(o, "-d %s: not a number of milliseconds", s);
}

/*
 * Every option, even after an error: with -r and a known host, a usage
 * error is still answered with the host's deny.  The first error is kept
 * in o->bad; hostname gets -H.
 */
static void
parse_opts(struct opts *o, int argc, char *argv[], const char **hostname)
{
	int ch;

	opterr = 0;
	while ((ch = getopt(argc, argv, "AD:d:E:H:hi:nrs:u:")) != -1) {
		switch (ch) {
		case 'A':
			o->replace = 1;
			break;
		case 'D':
			o->digest = optarg;
			break;
		case 'E':
			o->event = optarg;
			break;
		case 'd':
			o->dset = 1;
			parse_ms(o, optarg);
			break;
		case 'H':
			*hostname = optarg;
			break;
		case 'h':
			o->help = 1;
			break;
		case 'i':
			o->session = optarg;
			break;
		case 'n':
			o->native = 1;
			break;
		case 'r':
			o->reply = 1;
			break;
		case 's':
			o->stewards = optarg;
			break;
		case 'u':
			o->call = optarg;
			break;
		default:
			if (optopt == 'D' || optopt == 'd' || optopt == 'E' ||
			    optopt == 'H' ||
			    optopt == 'i' || optopt == 's' || optopt == 'u')
				usage_err(o, "-%c needs an argument", optopt);
			else
				usage_err(o, "unknown option -%c", optopt);
		}
	}
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *hostname = NULL;
	char names[256];
	int rc;

	memset(&o, 0, sizeof(o));
	o.deadline_ms = 30000;
	signal(SIGPIPE, SIG_IGN);
	parse_opts(&o, argc, argv, &hostname);
	argc -= optind;
	argv += optind;
	if (o.help && !o.reply)
		usage(stdout, 0);
	if (hostname != NULL && (o.host = jh_host_lookup(hostname)) == NULL)
		usage_err(&o, "unknown host %s (known: %s)", hostname,
		    jh_host_names(names, sizeof(names)));
	if (o.host == NULL) {
		if (o.bad[0] == '\0')
			usage_err(&o, "-H host is required");
		warnx("%s", o.bad);
		usage(stderr, 2);
	}
	if (o.reply) {
		/* -h here too: a hook must never answer with usage text. */
		if (o.help)
			usage_err(&o, "-h with -r");
		if (o.native)
			usage_err(&o, "-n with -r");
		if (argc != 0)
			usage_err(&o, "-r reads the standard input only");
		if (o.session == NULL || o.call == NULL || o.digest == NULL)
			usage_err(&o, "-r needs -i session, -u tool_use_id "
			    "and -D input_digest");
		if (o.event != NULL && (o.host == NULL ||
		    jh_host_post_status(o.host, o.event) == NULL))
			usage_err(&o, "-E %s: not a post-tool event of the "
			    "host", o.event);
		if (sodium_init() < 0)
			usage_err(&o, "libsodium failed to initialise");
		return (reply(&o));
	}
	if (o.replace || o.dset || o.session != NULL || o.call != NULL ||
	    o.digest != NULL || o.stewards != NULL || o.event != NULL)
		usage_err(&o, "-A, -D, -d, -E, -i, -s and -u belong to -r");
	if (o.bad[0] != '\0') {
		warnx("%s", o.bad);
		usage(stderr, 2);
	}
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	rc = jh_each_file(argc, argv, 0, normalize_file, &o);
	if (jh_fshut(stdout, "stdout") != 0 || rc == -1)
		return (2);
	return (rc);
}
