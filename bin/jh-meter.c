/*
 * jh-meter: the observing meter (jh-meter(1)).  It turns token counts,
 * Claude Code transcripts, OpenTelemetry exports and hardware counters
 * into efficiency/1 units, one JSON line each, ready for
 * jh-seal -K efficiency/1 | jh-chain, and rolls units into a task-level
 * unit anchored to an outcome.  Nothing here enforces a budget: every unit
 * says enforced 0 and every summary says "observed, not enforced".
 *
 * The readers of what an agent writes are the library's, where the fuzz
 * targets drive them: transcripts (lib/transcript.c), OTLP/JSON exports
 * (lib/otlp.c) and the units an aggregate takes (lib/aggregate.c).  This
 * file holds the options, the output, the exit codes and the tokens and
 * transcript subcommands; otel and its receiver, run and probe, and
 * aggregate are files of their own beside it (bin/metercmd.h names them).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jh.h"
#include "energy.h"
#include "json.h"
#include "ledger.h"
#include "meter.h"
#include "transcript.h"
#include "util.h"

#include "metercmd.h"

void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s tokens [-i in] [-m model] [-o out] [-r cache_read] "
	    "[-s session]\n"
	    "                [-u unit] [-w cache_write]\n"
	    "       %s transcript [-O offsetfile] [-s session] file ...\n"
	    "       %s otel [-s session] [file]\n"
	    "       %s otel -l addr:port [-A] [-b bytes] [-F seconds] "
	    "[-s session]\n"
	    "       %s run [-P mW] [-s session] [-u unit] -- command [arg ...]\n"
	    "       %s probe [-q] [-P mW] [-t ms]\n"
	    "       %s aggregate [-c 0|1] [-l log] [-s session] [-u unit] "
	    "[-V verdict]\n"
	    "       %s -h\n", PROG, PROG, PROG, PROG, PROG, PROG, PROG, PROG);
	exit(status);
}

const struct jh_coeffs *
coeffs(struct meter *mt)
{
	struct jh_err e;
	char path[4096];

	if (mt->have_coeffs)
		return (&mt->c);
	if (jh_coeffs_path(path, sizeof(path)) == NULL)
		errx(2, "no coefficient file (coefficients.json or "
		    "share/joulehook/coefficients.json beside bin/)");
	if (jh_coeffs_load(&mt->c, path, &e) == -1)
		errx(2, "%s", e.msg);
	mt->have_coeffs = 1;
	return (&mt->c);
}

uint64_t
num(const char *s, uint64_t max, int opt)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9' || (v = strtoull(s, &end, 10), errno != 0) ||
	    *end != '\0' || v > max)
		errx(2, "-%c: %s is not a count from 0 to %llu", opt, s,
		    (unsigned long long)max);
	return (v);
}

static const char *const eff_verdicts[] = { "ok", "error", "partial",
    "refused", "usage-estimated", NULL };


void
opts_init(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->copt = -1;
	o->ms = 250;
}

void
option(struct opts *o, int ch)
{
	size_t i;

	switch (ch) {
	case 'c':
		o->copt = (int)num(optarg, 1, ch);
		break;
	case 'i':
	case 'o':
	case 'r':
	case 'w':
		*(ch == 'i' ? &o->u.in : ch == 'o' ? &o->u.out : ch == 'r' ?
		    &o->u.cache_read : &o->u.cache_write) = num(optarg,
		    JH_TOKENS_MAX, ch);
		o->given = 1;
		break;
	case 'l':
		o->log = optarg;
		break;
	case 'm':
		o->model = optarg;
		break;
	case 'O':
		o->offfile = optarg;
		break;
	case 'P':
		o->mw = num(optarg, 100000000, ch);
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 's':
		o->session = optarg;
		break;
	case 't':
		o->ms = num(optarg, 60000, ch);
		break;
	case 'u':
		o->unit = optarg;
		break;
	case 'V':
		for (i = 0; eff_verdicts[i] != NULL; i++)
			if (strcmp(optarg, eff_verdicts[i]) == 0)
				break;
		if (eff_verdicts[i] == NULL)
			errx(2, "-V: %s is not ok, error, partial, refused or "
			    "usage-estimated", optarg);
		o->verdict = optarg;
		break;
	default:
		usage(stderr, 2);
	}
}

/* "12.345 J" from microjoules, for people. */
const char *
joules(char *b, size_t sz, uint64_t uj)
{
	snprintf(b, sz, "%llu.%06llu J", (unsigned long long)(uj / 1000000),
	    (unsigned long long)(uj % 1000000));
	return (b);
}

void
emit(const struct jh_unit *x)
{
	struct jh_err e;

	if (jh_unit_print(stdout, x, &e) == -1)
		errx(2, "%s", e.msg);
}


void
total_add(struct total *t, const struct jh_unit *x)
{
	if (t->units == 0)
		t->all_measured = 1;
	t->units++;
	t->in += x->u.in;
	t->out += x->u.out;
	t->cr += x->u.cache_read;
	t->cw += x->u.cache_write;
	t->est = jh_add_sat(t->est, x->en.estimated_uj);
	if (x->en.measured)
		t->meas = jh_add_sat(t->meas, x->en.measured_uj);
	else
		t->all_measured = 0;
}

void
summary(const char *cmd, const struct total *t, const char *extra)
{
	char b[64];

	fflush(stdout);		/* the units first, then what they add up to */
	fprintf(stderr, "%s: %s: %llu unit%s, in=%llu out=%llu cache_read=%llu "
	    "cache_write=%llu, %s estimated%s: " OBSERVED "\n", PROG, cmd,
	    (unsigned long long)t->units, t->units == 1 ? "" : "s",
	    (unsigned long long)t->in, (unsigned long long)t->out,
	    (unsigned long long)t->cr, (unsigned long long)t->cw,
	    joules(b, sizeof(b), t->est), extra ? extra : "");
}

/* --- tokens ----------------------------------------------------------- */

/*
 * The usage of one JSON line: {"model":...,"usage":{...}} as an API
 * answers, or the usage fields at the top.  OpenAI's shapes are told by
 * their fields: prompt/completion tokens (Chat Completions), or
 * input_tokens_details (Responses); the rest is Anthropic's.
 */
static int
line_usage(struct jh_usage *u, const json_t *o, struct jh_err *e)
{
	const json_t *us = json_object_get(o, "usage");

	if (us == NULL)
		us = o;
	memset(u, 0, sizeof(*u));
	if (!json_is_object(us))
		return (jh_errf(e, "usage is not an object"));
	if (json_object_get(us, "prompt_tokens") != NULL ||
	    json_object_get(us, "completion_tokens") != NULL) {
		if (jh_usage_chat(u, us, e) == -1)
			return (-1);
	} else if (json_object_get(us, "input_tokens_details") != NULL) {
		if (jh_usage_responses(u, us, e) == -1)
			return (-1);
	} else if (jh_usage_anthropic(u, us, e) == -1)
		return (-1);
	if (!u->have_in && !u->have_out)
		return (jh_errf(e, "no token counts (input_tokens, "
		    "output_tokens, prompt_tokens or completion_tokens)"));
	return (0);
}

static int
cmd_tokens(struct meter *mt, int argc, char **argv)
{
	struct jh_unit x;
	struct jh_reader r;
	struct jh_err e;
	struct total t;
	struct opts op;
	const struct jh_coeffs *c;
	const char *model, *session, *unit, *line;
	char name[JH_UNIT_ID_MAX + 32];
	size_t len;
	uint64_t lineno = 0, bad = 0;
	int ch, rr;
	json_t *o;

	memset(&t, 0, sizeof(t));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "i:m:o:r:s:u:w:")) != -1)
		option(&op, ch);
	model = op.model;
	session = op.session ? op.session : "local";
	unit = op.unit;
	jh_unit_init(&x, session, "tokens");
	x.u = op.u;
	if (optind != argc)
		usage(stderr, 2);
	c = coeffs(mt);
	if (op.given) {
		x.session = session;
		x.model = model;
		x.unit = unit ? unit : "tokens-1";
		x.completed = 1;
		x.accepted = x.u.out;
		jh_unit_tokens(&x, c);
		emit(&x);
		total_add(&t, &x);
		summary("tokens", &t, NULL);
		return (0);
	}
	jh_reader_init(&r, STDIN_FILENO);
	for (;;) {
		rr = jh_reader_line(&r, &line, &len, &e);
		if (rr == 0)
			break;
		lineno++;
		if (rr == -1) {
			warnx("tokens: line %llu: %s", (unsigned long long)lineno,
			    e.msg);
			bad++;
			if (strncmp(e.msg, "read", 4) == 0)
				break;
			continue;
		}
		if (len == 0 || strspn(line, " \t\r") == len)
			continue;
		if ((o = jh_json_parse(line, len, &e)) == NULL ||
		    !json_is_object(o)) {
			warnx("tokens: line %llu: %s", (unsigned long long)lineno,
			    o == NULL ? e.msg : "not a JSON object");
			json_decref(o);
			bad++;
			continue;
		}
		jh_unit_init(&x, jh_json_id(o, "session") ? jh_json_id(o, "session") :
		    session, "tokens");
		if (line_usage(&x.u, o, &e) == -1) {
			warnx("tokens: line %llu: %s", (unsigned long long)lineno,
			    e.msg);
			json_decref(o);
			bad++;
			continue;
		}
		x.model = jh_json_id(o, "model") ? jh_json_id(o, "model") : model;
		x.request_id = jh_json_id(o, "request_id");
		snprintf(name, sizeof(name), "%s-%llu", unit ? unit : "tokens",
		    (unsigned long long)lineno);
		x.unit = jh_json_id(o, "unit") ? jh_json_id(o, "unit") : jh_json_id(o, "id") ?
		    jh_json_id(o, "id") : name;
		x.completed = 1;
		x.accepted = x.u.out;
		jh_unit_tokens(&x, c);
		emit(&x);
		total_add(&t, &x);
		json_decref(o);
	}
	jh_reader_free(&r);
	summary("tokens", &t, bad ? ", some lines refused" : NULL);
	return (bad ? 1 : 0);
}

/* --- transcript ------------------------------------------------------- */

/* A line skipped or left: said with its file's name. */
static void
transcript_warn(void *arg, const char *msg)
{
	warnx("%s: %s", (const char *)arg, msg);
}

/*
 * Reads file f from its offset in offs (or the start) into t; its next
 * offset into *next.
 */
static void
transcript_file(struct jh_transcript *t, const char *path, size_t f,
    const struct jh_offs *offs, int resume, uint64_t *next)
{
	struct jh_err e;
	struct stat st;
	char rp[PATH_MAX];
	uint64_t off = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		err(2, "%s", path);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		errx(2, "%s: not a regular file", path);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (realpath(path, rp) == NULL)
		err(2, "%s", path);
	if (resume)
		off = jh_offs_get(offs, rp);
	if (off > (uint64_t)st.st_size) {
		warnx("%s: shorter (%lld bytes) than the offset read before "
		    "(%llu): a new file, read from the start", path,
		    (long long)st.st_size, (unsigned long long)off);
		off = 0;
	}
	if (off > 0 && lseek(fd, (off_t)off, SEEK_SET) == -1)
		err(2, "%s", path);
	if (jh_transcript_read(t, fd, f, off, resume, next, transcript_warn,
	    (void *)path, &e) == -1)
		errx(2, "%s", e.msg);
	close(fd);
}

/* Only once the units are out is what was read consumed. */
static void
transcript_save(struct jh_offs *offs, const char *offfile, char **files,
    size_t nf, const uint64_t *next)
{
	struct jh_err e;
	char rp[PATH_MAX];
	size_t f;

	for (f = 0; f < nf; f++) {
		if (realpath(files[f], rp) == NULL)
			err(2, "%s", files[f]);
		if (jh_offs_set(offs, rp, next[f], &e) == -1)
			errx(2, "%s", e.msg);
	}
	if (jh_offs_save(offs, offfile, &e) == -1)
		errx(2, "%s", e.msg);
}

static int
cmd_transcript(struct meter *mt, int argc, char **argv)
{
	struct jh_transcript t;
	struct jh_offs offs;
	struct jh_err e;
	struct jh_unit x;
	struct total tot;
	struct opts op;
	const struct jh_coeffs *c;
	const char *sess;
	char fallback[JH_UNIT_ID_MAX + 1], extra[96];
	uint64_t *next;
	size_t i, f, nf;
	int ch, rc;

	memset(&tot, 0, sizeof(tot));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "O:s:")) != -1)
		option(&op, ch);
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(stderr, 2);
	c = coeffs(mt);
	memset(&offs, 0, sizeof(offs));
	if (op.offfile != NULL && jh_offs_load(&offs, op.offfile, &e) == -1)
		errx(2, "%s", e.msg);
	nf = (size_t)argc;
	if ((next = calloc(nf, sizeof(*next))) == NULL)
		errx(2, "out of memory");
	jh_transcript_init(&t);
	for (f = 0; f < nf; f++)
		transcript_file(&t, argv[f], f, &offs, op.offfile != NULL,
		    &next[f]);
	for (i = 0; i < t.n; i++) {
		if (t.v[i].deferred)
			continue;
		sess = jh_transcript_session(&t.v[i], op.session,
		    argv[t.v[i].file], fallback, sizeof(fallback));
		jh_transcript_unit(&x, &t.v[i], sess, c);
		emit(&x);
		total_add(&tot, &x);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	if (op.offfile != NULL)
		transcript_save(&offs, op.offfile, argv, nf, next);
	snprintf(extra, sizeof(extra), " from %llu lines%s",
	    (unsigned long long)t.lines, t.bad ? ", some lines skipped" : "");
	summary("transcript", &tot, extra);
	rc = t.bad ? 1 : 0;
	free(next);
	jh_offs_free(&offs);
	jh_transcript_free(&t);
	return (rc);
}


int
main(int argc, char *argv[])
{
	struct meter mt;
	int rc;

	memset(&mt, 0, sizeof(mt));
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		usage(stderr, 2);
	if (argv[1][0] == '-') {
		/* Only -h comes before a subcommand. */
		if (getopt(argc, argv, "h") == 'h')
			usage(stdout, 0);
		usage(stderr, 2);
	}
	optind = 1;
	if (strcmp(argv[1], "tokens") == 0)
		rc = cmd_tokens(&mt, argc - 1, argv + 1);
	else if (strcmp(argv[1], "transcript") == 0)
		rc = cmd_transcript(&mt, argc - 1, argv + 1);
	else if (strcmp(argv[1], "otel") == 0)
		rc = cmd_otel(&mt, argc - 1, argv + 1);
	else if (strcmp(argv[1], "run") == 0)
		rc = cmd_run(&mt, argc - 1, argv + 1);
	else if (strcmp(argv[1], "probe") == 0)
		rc = cmd_probe(&mt, argc - 1, argv + 1);
	else if (strcmp(argv[1], "aggregate") == 0)
		rc = cmd_aggregate(argc - 1, argv + 1);
	else {
		warnx("%s: no such subcommand", argv[1]);
		usage(stderr, 2);
	}
	if (mt.have_coeffs)
		jh_coeffs_free(&mt.c);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return (rc);
}

