/*
 * jh-meter: the observing meter (issue 8, spec 4.2 and 7).  It turns token
 * counts, Claude Code transcripts, OpenTelemetry exports and hardware
 * counters into efficiency/1 units, one JSON line each, ready for
 * jh-seal -K efficiency/1 | jh-chain, and rolls units into a task-level
 * unit anchored to an outcome.  Nothing here enforces a budget: every unit
 * says enforced 0 and every summary says "observed, not enforced".
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>
#include <sodium.h>

#include "jh.h"
#include "transcript.h"

#define PROG		"jh-meter"
#define OBSERVED	"observed, not enforced"
#define STALE_MS	200		/* a live counter moves within this */

/*
 * What the subcommands share: the coefficients, loaded once by the first
 * that needs them (aggregate does not) and freed as main returns.
 */
struct meter {
	struct jh_coeffs c;
	int have_coeffs;
};

static void
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

static const struct jh_coeffs *
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

static uint64_t
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

/* Every subcommand's options; each takes the letters it names to getopt. */
struct opts {
	const char *session;
	const char *unit;
	const char *model;
	const char *offfile;
	const char *log;
	const char *verdict;
	struct jh_usage u;
	int given;		/* a token count was given */
	int quiet;
	int copt;		/* -c, or -1 */
	uint64_t mw;
	uint64_t ms;
};

static void
opts_init(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->copt = -1;
	o->ms = 250;
}

static void
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
static const char *
joules(char *b, size_t sz, uint64_t uj)
{
	snprintf(b, sz, "%llu.%06llu J", (unsigned long long)(uj / 1000000),
	    (unsigned long long)(uj % 1000000));
	return (b);
}

static void
emit(const struct jh_unit *x)
{
	struct jh_err e;

	if (jh_unit_print(stdout, x, &e) == -1)
		errx(2, "%s", e.msg);
}

/* Totals for the summary line every subcommand ends with. */
struct total {
	uint64_t units, in, out, cr, cw, est, meas;
	int all_measured;
};

static void
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

static void
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

/* --- otel ------------------------------------------------------------- */

/* The value object of an OTLP attribute list's key, or NULL. */
static const json_t *
attr(const json_t *attrs, const char *key)
{
	const json_t *a;
	size_t i;

	if (!json_is_array(attrs))
		return (NULL);
	json_array_foreach(attrs, i, a) {
		const json_t *k = json_object_get(a, "key");
		if (json_is_string(k) && strcmp(json_string_value(k), key) == 0)
			return (json_object_get(a, "value"));
	}
	return (NULL);
}

static const char *
attr_str(const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key);

	return (v != NULL ? jh_json_id(v, "stringValue") : NULL);
}

/* 0 found, 1 absent, -1 not a count. */
static int
attr_uint(uint64_t *out, const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key), *x;

	if (v == NULL)
		return (1);
	if ((x = json_object_get(v, "intValue")) == NULL &&
	    (x = json_object_get(v, "stringValue")) == NULL &&
	    (x = json_object_get(v, "doubleValue")) == NULL)
		return (-1);
	return (jh_json_uint(out, x) == -1 ? -1 : 0);
}

/* A price in dollars (a double, or its text) as micro-dollars. */
static int
attr_musd(uint64_t *out, const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key), *x;
	double d;
	char *end;

	if (v == NULL)
		return (1);
	if ((x = json_object_get(v, "doubleValue")) != NULL && json_is_number(x))
		d = json_number_value(x);
	else if ((x = json_object_get(v, "intValue")) != NULL &&
	    json_is_integer(x))
		d = (double)json_integer_value(x);
	else if ((x = json_object_get(v, "stringValue")) != NULL &&
	    json_is_string(x)) {
		d = strtod(json_string_value(x), &end);
		if (end == json_string_value(x) || *end != '\0')
			return (-1);
	} else
		return (-1);
	if (!(d >= 0 && d < 1e9))
		return (-1);
	*out = (uint64_t)(d * 1e6 + 0.5);
	return (0);
}

/* A *UnixNano: a number or a decimal string. */
static uint64_t
nanos(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	const char *s;

	if (json_is_integer(v) && json_integer_value(v) > 0)
		return ((uint64_t)json_integer_value(v));
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (*s >= '0' && *s <= '9')
			return (strtoull(s, NULL, 10));
	}
	return (0);
}

/* Owned strings, freed together. */
struct strs {
	char **v;
	size_t n;
};

static const char *
keep(struct strs *s, const char *str)
{
	if (str == NULL)
		return (NULL);
	if ((s->v = reallocarray(s->v, s->n + 1, sizeof(*s->v))) == NULL ||
	    (s->v[s->n] = strdup(str)) == NULL)
		errx(2, "out of memory");
	return (s->v[s->n++]);
}

static int
has(const struct strs *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return (1);
	return (0);
}

static void
strs_free(struct strs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* One claude_code.token.usage series: a session, a model, a type. */
struct series {
	const char *session;
	const char *model;
	int type;		/* 0 input 1 output 2 cacheRead 3 cacheCreation */
	uint64_t start;		/* cumulative: the series' start */
	int cumulative;
	uint64_t time;		/* cumulative: of the value kept */
	uint64_t value;		/* the series' total so far */
	uint64_t sealed;	/* of value, already in a unit */
	uint64_t seen_ms;	/* when its last point came */
	int done;		/* in a unit, or dropped, once */
	int mark;		/* otel_flush's */
};

/* Where each unit goes: printed (file mode) or sealed (-l). */
typedef int (*otel_sink)(void *, const struct jh_unit *, struct jh_err *);

#define OT_LOGS		1
#define OT_METRICS	2
#define OT_TRACES	4
#define OT_ALL		(OT_LOGS | OT_METRICS | OT_TRACES)

/*
 * What the export requests read so far add up to.  The same state serves
 * a file and a live receiver: every request is one otel_request, whose
 * events and spans go to the sink at once, while the metric series keep
 * adding up until otel_flush hands their sums on.
 */
struct otel {
	const char *session;	/* -s */
	const struct jh_coeffs *c;
	otel_sink sink;
	void *arg;
	struct jh_unit *u;	/* this request's events and spans */
	size_t nu;
	struct strs ukeep;	/* the strings u points to */
	struct series *s;
	size_t ns;
	struct strs keep;	/* the strings the series point to */
	struct strs evsess;	/* sessions with api_request events */
	struct total t;
	uint64_t nv;		/* export requests */
	uint64_t bad;		/* items and requests refused */
	uint64_t rejected;	/* items refused in this request */
	uint64_t unsealed;	/* units the sink could not take */
	uint64_t dropped;	/* metric series of sessions with events */
	char why[256];		/* the last refusal */
};

static void
refuse(struct otel *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An item of a request refused: said on the standard error, counted. */
static void
refuse(struct otel *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	warnx("otel: %s", o->why);
	o->bad++;
	o->rejected++;
}

static struct jh_unit *
otel_unit(struct otel *o, const char *session, const char *model)
{
	struct jh_unit *x;

	if ((o->u = reallocarray(o->u, o->nu + 1, sizeof(*o->u))) == NULL)
		errx(2, "out of memory");
	x = &o->u[o->nu++];
	jh_unit_init(x, keep(&o->ukeep, session), "otel");
	x->model = keep(&o->ukeep, model);
	return (x);
}

static const char *
session_of(const struct otel *o, const json_t *attrs, const json_t *res)
{
	const char *s;

	if ((s = attr_str(attrs, "session.id")) != NULL ||
	    (s = attr_str(res, "session.id")) != NULL)
		return (s);
	return (o->session);
}

/*
 * A Gemini CLI gemini_cli.api_response event: one answered call, its
 * counts those of the API's usageMetadata, read as the proxy reads them
 * (jh-proxy(1)): input_token_count is the prompt, the cached tokens
 * included; output is the candidates and the thoughts.
 */
static void
otel_gemini(struct otel *o, const json_t *rec, const json_t *res)
{
	static const char *const map[][2] = {
		{ "input_token_count", "promptTokenCount" },
		{ "cached_content_token_count", "cachedContentTokenCount" },
		{ "tool_token_count", "toolUsePromptTokenCount" },
		{ "output_token_count", "candidatesTokenCount" },
		{ "thoughts_token_count", "thoughtsTokenCount" },
	};
	const json_t *at = json_object_get(rec, "attributes");
	const char *sess;
	struct jh_unit *x;
	struct jh_usage u;
	struct jh_err e;
	uint64_t v, dur = 0, st = 200;
	char id[JH_UNIT_ID_MAX + 64];
	json_t *um;
	size_t i;
	int bad = 0;

	um = json_object();
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		switch (attr_uint(&v, at, map[i][0])) {
		case 0:
			if (v > INT64_MAX)
				v = INT64_MAX;
			json_object_set_new(um, map[i][1],
			    json_integer((json_int_t)v));
			break;
		case -1:
			bad = 1;
		}
	memset(&u, 0, sizeof(u));
	if (bad || attr_uint(&dur, at, "duration_ms") == -1 ||
	    attr_uint(&st, at, "status_code") == -1 ||
	    jh_usage_gemini(&u, um, &e) == -1 || !u.have_in || !u.have_out) {
		json_decref(um);
		refuse(o, "a gemini_cli.api_response event without its token "
		    "counts, or with one that is not a count: skipped");
		return;
	}
	json_decref(um);
	if ((sess = session_of(o, at, res)) == NULL) {
		refuse(o, "a gemini_cli.api_response event without session.id "
		    "(give -s): skipped");
		return;
	}
	if (!has(&o->evsess, sess))
		keep(&o->evsess, sess);
	x = otel_unit(o, sess, attr_str(at, "model"));
	x->u = u;
	x->duration_ms = dur;
	snprintf(id, sizeof(id), "api_response/%llu",
	    (unsigned long long)nanos(rec, "timeUnixNano"));
	x->unit = keep(&o->ukeep, id);
	x->completed = st == 200;
	x->verdict = st == 200 ? "ok" : "error";
	x->accepted = st == 200 ? u.out : 0;
}

/* A Claude Code api_request event (a log record): one finished call. */
static void
otel_event(struct otel *o, const json_t *rec, const json_t *res)
{
	const json_t *at = json_object_get(rec, "attributes");
	const char *name = attr_str(at, "event.name"), *sess, *seq;
	const json_t *body = json_object_get(rec, "body");
	struct jh_unit *x;
	struct jh_usage u;
	uint64_t dur = 0, musd = 0;
	char id[JH_UNIT_ID_MAX + 64];
	int hc;

	if (name == NULL && json_is_object(body))
		name = jh_json_id(body, "stringValue");
	if (name != NULL && strcmp(name, "gemini_cli.api_response") == 0) {
		otel_gemini(o, rec, res);
		return;
	}
	if (name == NULL || (strcmp(name, "api_request") != 0 &&
	    strcmp(name, "claude_code.api_request") != 0))
		return;
	memset(&u, 0, sizeof(u));
	if (attr_uint(&u.in, at, "input_tokens") != 0 ||
	    attr_uint(&u.out, at, "output_tokens") != 0 ||
	    attr_uint(&u.cache_read, at, "cache_read_tokens") == -1 ||
	    attr_uint(&u.cache_write, at, "cache_creation_tokens") == -1 ||
	    attr_uint(&dur, at, "duration_ms") == -1 ||
	    (hc = attr_musd(&musd, at, "cost_usd")) == -1) {
		refuse(o, "an api_request event without its token counts, or "
		    "with one that is not a count: skipped");
		return;
	}
	if ((sess = session_of(o, at, res)) == NULL) {
		refuse(o, "an api_request event without session.id (give -s): "
		    "skipped");
		return;
	}
	if (!has(&o->evsess, sess))
		keep(&o->evsess, sess);
	x = otel_unit(o, sess, attr_str(at, "model"));
	x->u = u;
	x->duration_ms = dur;
	x->have_cost = hc == 0;
	x->cost_musd = musd;
	x->request_id = keep(&o->ukeep, attr_str(at, "request_id"));
	if ((seq = attr_str(at, "event.sequence")) == NULL) {
		uint64_t n;
		if (attr_uint(&n, at, "event.sequence") == 0)
			snprintf(id, sizeof(id), "api_request/%llu",
			    (unsigned long long)n);
		else
			snprintf(id, sizeof(id), "api_request/%llu",
			    (unsigned long long)nanos(rec, "timeUnixNano"));
	} else
		snprintf(id, sizeof(id), "api_request/%s", seq);
	x->unit = keep(&o->ukeep, x->request_id ? x->request_id : id);
	x->completed = 1;
	x->accepted = u.out;
}

/* A claude_code.token.usage data point. */
static void
otel_point(struct otel *o, const json_t *dp, const json_t *res, int cum)
{
	static const char *const types[] = { "input", "output", "cacheRead",
	    "cacheCreation" };
	const json_t *at = json_object_get(dp, "attributes"), *v;
	const char *type = attr_str(at, "type"), *sess, *model;
	struct series *s = NULL;
	uint64_t val, start = cum ? nanos(dp, "startTimeUnixNano") : 0;
	uint64_t time = nanos(dp, "timeUnixNano");
	size_t i;
	int ti;

	for (ti = 0; ti < 4; ti++)
		if (type != NULL && strcmp(type, types[ti]) == 0)
			break;
	if ((v = json_object_get(dp, "asInt")) == NULL)
		v = json_object_get(dp, "asDouble");
	if (ti == 4 || v == NULL || jh_json_uint(&val, v) == -1 ||
	    (sess = session_of(o, at, res)) == NULL) {
		refuse(o, "a claude_code.token.usage point without a known "
		    "type, a count or a session.id: skipped");
		return;
	}
	model = attr_str(at, "model");
	for (i = 0; i < o->ns; i++)
		if (strcmp(o->s[i].session, sess) == 0 && o->s[i].type == ti &&
		    o->s[i].start == start && o->s[i].cumulative == cum &&
		    (o->s[i].model == NULL ? model == NULL : model != NULL &&
		    strcmp(o->s[i].model, model) == 0))
			s = &o->s[i];
	if (s == NULL) {
		if ((o->s = reallocarray(o->s, o->ns + 1, sizeof(*o->s))) ==
		    NULL)
			errx(2, "out of memory");
		s = &o->s[o->ns++];
		memset(s, 0, sizeof(*s));
		s->session = keep(&o->keep, sess);
		s->model = keep(&o->keep, model);
		s->type = ti;
		s->start = start;
		s->cumulative = cum;
	}
	s->seen_ms = jh_now_ms();
	if (!cum)
		s->value = jh_add_sat(s->value, val);
	else if (time >= s->time) {
		/* A cumulative series: its latest value is the total. */
		s->value = val;
		s->time = time;
	}
}

/* A generic GenAI span (OpenTelemetry semantic conventions). */
static void
otel_span(struct otel *o, const json_t *sp, const json_t *res)
{
	const json_t *at = json_object_get(sp, "attributes");
	const char *sess, *id;
	struct jh_unit *x;
	struct jh_usage u;
	uint64_t in = 0, t0, t1;
	int hi, ho, code;

	memset(&u, 0, sizeof(u));
	if ((hi = attr_uint(&in, at, "gen_ai.usage.input_tokens")) == 1)
		hi = attr_uint(&in, at, "gen_ai.usage.prompt_tokens");
	if ((ho = attr_uint(&u.out, at, "gen_ai.usage.output_tokens")) == 1)
		ho = attr_uint(&u.out, at, "gen_ai.usage.completion_tokens");
	if (hi == 1 && ho == 1)
		return;		/* not a model call */
	if (hi == -1 || ho == -1 || attr_uint(&u.cache_read, at,
	    "gen_ai.usage.cache_read.input_tokens") == -1 ||
	    attr_uint(&u.cache_write, at,
	    "gen_ai.usage.cache_creation.input_tokens") == -1) {
		refuse(o, "a gen_ai span with a token count that is not a "
		    "count: skipped");
		return;
	}
	if ((sess = attr_str(at, "gen_ai.conversation.id")) == NULL &&
	    (sess = session_of(o, at, res)) == NULL) {
		refuse(o, "a gen_ai span without gen_ai.conversation.id or "
		    "session.id (give -s): skipped");
		return;
	}
	x = otel_unit(o, sess, attr_str(at, "gen_ai.response.model") ?
	    attr_str(at, "gen_ai.response.model") : attr_str(at,
	    "gen_ai.request.model"));
	/* input_tokens includes the cached tokens, by the conventions. */
	if (u.cache_read + u.cache_write <= in)
		u.in = in - u.cache_read - u.cache_write;
	else {
		u.in = in;
		x->note = "cache counts above input_tokens: input_tokens read "
		    "as uncached";
	}
	x->u = u;
	t0 = nanos(sp, "startTimeUnixNano");
	t1 = nanos(sp, "endTimeUnixNano");
	x->duration_ms = t1 > t0 ? (t1 - t0) / 1000000 : 0;
	if ((id = attr_str(at, "gen_ai.response.id")) == NULL)
		id = jh_json_id(sp, "spanId");
	x->unit = keep(&o->ukeep, id ? id : "span");
	code = json_integer_value(json_object_get(json_object_get(sp,
	    "status"), "code"));
	x->completed = code != 2;
	x->verdict = code == 2 ? "error" : "ok";
	x->accepted = code == 2 ? 0 : u.out;
}

/* The signals of one export request that mask names. */
static void
otel_export(struct otel *o, const json_t *j, int mask)
{
	const json_t *r, *sc, *m, *l, *d;
	size_t i, k, n, p;

	json_array_foreach((mask & OT_LOGS) ? json_object_get(j,
	    "resourceLogs") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeLogs"), k, sc)
			json_array_foreach(json_object_get(sc, "logRecords"), n,
			    l)
				otel_event(o, l, res);
	}
	json_array_foreach((mask & OT_METRICS) ? json_object_get(j,
	    "resourceMetrics") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeMetrics"), k, sc)
			json_array_foreach(json_object_get(sc, "metrics"), n,
			    m) {
				const json_t *sum = json_object_get(m, "sum");
				const char *nm = jh_json_id(m, "name");
				if (nm == NULL || strcmp(nm,
				    "claude_code.token.usage") != 0)
					continue;
				json_array_foreach(json_object_get(sum,
				    "dataPoints"), p, d)
					otel_point(o, d, res, json_integer_value(
					    json_object_get(sum,
					    "aggregationTemporality")) == 2);
			}
	}
	json_array_foreach((mask & OT_TRACES) ? json_object_get(j,
	    "resourceSpans") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeSpans"), k, sc)
			json_array_foreach(json_object_get(sc, "spans"), n, l)
				otel_span(o, l, res);
	}
}

/* One unit to the sink, estimated and counted; 0, or -1 not taken. */
static int
otel_give(struct otel *o, struct jh_unit *x)
{
	struct jh_err e;

	jh_unit_tokens(x, o->c);
	if (o->sink(o->arg, x, &e) == -1) {
		refuse(o, "unit %s of session %s not sealed: %s", x->unit,
		    x->session, e.msg);
		o->unsealed++;
		return (-1);
	}
	total_add(&o->t, x);
	return (0);
}

/*
 * The metric sums of the sessions with no api_request event, as units:
 * what each series added since the last flush.  With idle_ms, only the
 * sessions and models with no point for that long; with 0, all.  Where
 * both describe a session, the events win (one unit per call, with
 * duration and cost) and its series are not counted again.
 */
static void
otel_flush(struct otel *o, uint64_t idle_ms)
{
	struct jh_unit x;
	char name[JH_UNIT_ID_MAX + 32];
	uint64_t now = jh_now_ms(), last;
	size_t i, k;
	int fresh;

	for (i = 0; i < o->ns; i++)
		o->s[i].mark = 0;
	for (i = 0; i < o->ns; i++) {
		struct series *s = &o->s[i];
		if (s->mark)
			continue;
		if (has(&o->evsess, s->session)) {
			if (!s->done)
				o->dropped++;
			s->done = 1;
			s->sealed = s->value;
			continue;
		}
		jh_unit_init(&x, s->session, "otel");
		x.model = s->model;
		fresh = 0;
		last = 0;
		for (k = i; k < o->ns; k++) {
			struct series *z = &o->s[k];
			uint64_t *f;
			if (z->mark || strcmp(z->session, s->session) != 0 ||
			    (z->model == NULL ? s->model != NULL :
			    s->model == NULL || strcmp(z->model,
			    s->model) != 0))
				continue;
			z->mark = 1;
			f = z->type == 0 ? &x.u.in : z->type == 1 ? &x.u.out :
			    z->type == 2 ? &x.u.cache_read : &x.u.cache_write;
			/* A cumulative series never goes back; if it did,
			 * nothing is taken back from what was sealed. */
			if (z->value > z->sealed)
				*f = jh_add_sat(*f, z->value - z->sealed);
			if (!z->done || z->value > z->sealed)
				fresh = 1;
			if (z->seen_ms > last)
				last = z->seen_ms;
		}
		if (!fresh || (idle_ms > 0 && now - last < idle_ms))
			continue;
		snprintf(name, sizeof(name), "token.usage/%s",
		    s->model ? s->model : "unknown");
		x.unit = name;
		x.note = "claude_code.token.usage: a sum over calls, whose "
		    "completion it does not tell";
		if (otel_give(o, &x) == -1)
			continue;	/* kept for the next flush */
		for (k = i; k < o->ns; k++) {
			struct series *z = &o->s[k];
			if (strcmp(z->session, s->session) == 0 &&
			    (z->model == NULL ? s->model == NULL :
			    s->model != NULL && strcmp(z->model,
			    s->model) == 0)) {
				z->done = 1;
				z->sealed = z->value;
			}
		}
	}
}

/*
 * One export request, the body of a POST or one value of a file: its
 * events and spans go to the sink now, its metric points add to their
 * series.  Returns 0, or -1 when the request is refused whole (o->why).
 * mask names the signals a path carries; a file's values may hold any,
 * and must hold one.
 */
static int
otel_request(struct otel *o, const char *p, size_t len, int mask)
{
	struct jh_err e;
	size_t i;
	json_t *j;

	o->nv++;
	o->rejected = 0;
	if ((j = jh_json_parse(p, len, &e)) == NULL) {
		snprintf(o->why, sizeof(o->why), "%s", e.msg);
		o->bad++;
		return (-1);
	}
	if (!json_is_object(j) || (mask == OT_ALL && json_object_get(j,
	    "resourceLogs") == NULL && json_object_get(j,
	    "resourceMetrics") == NULL && json_object_get(j,
	    "resourceSpans") == NULL)) {
		snprintf(o->why, sizeof(o->why), "not an OTLP/JSON export "
		    "request (resourceLogs, resourceMetrics or resourceSpans)");
		o->bad++;
		json_decref(j);
		return (-1);
	}
	otel_export(o, j, mask);
	json_decref(j);
	for (i = 0; i < o->nu; i++)
		otel_give(o, &o->u[i]);
	o->nu = 0;
	strs_free(&o->ukeep);
	return (0);
}

static void
otel_summary(struct otel *o)
{
	char extra[200];

	snprintf(extra, sizeof(extra), " from %llu export%s%s%s",
	    (unsigned long long)o->nv, o->nv == 1 ? "" : "s", o->dropped ?
	    ", token.usage metrics of sessions with api_request events not "
	    "counted again" : "", o->bad ? ", some input refused" : "");
	summary("otel", &o->t, extra);
}

static void
otel_free(struct otel *o)
{
	strs_free(&o->keep);
	strs_free(&o->ukeep);
	strs_free(&o->evsess);
	free(o->u);
	free(o->s);
}

/* The file mode's sink: the unit on the standard output. */
static int
print_sink(void *arg, const struct jh_unit *x, struct jh_err *e)
{
	(void)arg;
	return (jh_unit_print(stdout, x, e));
}

/* --- otel -l: the live receiver ---------------------------------------- */

#define RX_BODY		(4u * 1024 * 1024)	/* a request's body */
#define RX_FLUSH_S	60	/* metric sums of a quiet session: sealed */
#define RX_GRACE_S	10	/* the stop: requests in flight finish */
#define RX_CONNS	64
#define RX_NEWLOGS	60	/* new session logs a minute */

/*
 * The receiver's state, handed to every libmicrohttpd callback through
 * its cls pointer: nothing of it is global.  mu serialises the requests'
 * parsing and sealing, so the series add up in one order and each
 * session's log is appended to by one thread at a time.
 */
struct rx {
	pthread_mutex_t mu;
	struct otel o;
	struct jh_key key;
	struct jh_keyset keys;
	char state[4096];
	size_t maxbody;
	unsigned wait_ms;
	struct strs seen;	/* the sessions sealed into */
	double bucket;		/* new sessions still allowed */
	uint64_t bucket_ms;
	uint64_t active;	/* requests begun, not completed */
	uint64_t served;	/* requests answered 200 */
	int stopping;
};

/* One request, the connection's con_cls. */
struct rxreq {
	struct jh_buf body;
	int mask;		/* the signal of the path */
	int too_big;
	int done;
};

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

/*
 * A session this receiver has not sealed into yet is a new log: at most
 * RX_NEWLOGS a minute (a token bucket), so no exporter floods the state
 * directory with logs.  Under rx->mu.
 */
static int
admit(struct rx *rx, const char *session)
{
	uint64_t now = mono_ms();

	if (has(&rx->seen, session))
		return (1);
	rx->bucket += (double)(now - rx->bucket_ms) * RX_NEWLOGS / 60000.0;
	if (rx->bucket > RX_NEWLOGS)
		rx->bucket = RX_NEWLOGS;
	rx->bucket_ms = now;
	if (rx->bucket < 1.0)
		return (0);
	rx->bucket -= 1.0;
	if (rx->seen.n >= 65536)
		strs_free(&rx->seen);	/* forget; the limit still holds */
	keep(&rx->seen, session);
	return (1);
}

/* The live sink: seal the unit into its session's log, then print it. */
static int
seal_sink(void *arg, const struct jh_unit *x, struct jh_err *e)
{
	struct rx *rx = arg;
	uint64_t cut;
	json_t *o;
	int rc;

	if (!admit(rx, x->session))
		return (jh_errf(e, "over %d new sessions a minute: a new "
		    "session's log is not made", RX_NEWLOGS));
	if ((o = jh_unit_json(x)) == NULL)
		return (jh_errf(e, "out of memory"));
	rc = jh_seal_chain(o, JH_KIND_EFFICIENCY, &rx->key, &rx->keys,
	    rx->state, x->session, rx->wait_ms, JH_SEAL_SYNC, &cut, e);
	json_decref(o);
	if (cut > 0)
		warnx("otel: the log of session %s: cut a torn tail of %llu "
		    "bytes", x->session, (unsigned long long)cut);
	if (rc == 0 && (jh_unit_print(stdout, x, e) == -1 ||
	    fflush(stdout) == EOF))
		warnx("otel: sealed, but not printed: %s", e->msg);
	return (rc);
}

static enum MHD_Result
rx_answer(struct MHD_Connection *con, struct rxreq *q, unsigned status,
    const char *body, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	q->done = 1;
	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return (MHD_NO);
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (allow != NULL)
		MHD_add_response_header(r, "Allow", allow);
	ret = MHD_queue_response(con, status, r);
	MHD_destroy_response(r);
	return (ret);
}

/* An error, as OTLP/HTTP answers one: a google.rpc.Status in JSON. */
static enum MHD_Result
rx_error(struct MHD_Connection *con, struct rxreq *q, unsigned status,
    int code, const char *msg, const char *allow)
{
	enum MHD_Result ret;
	json_t *o;
	char *s;

	warnx("otel: refused a request (%u): %s", status, msg);
	o = json_pack("{s:i,s:s}", "code", code, "message", msg);
	s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	ret = rx_answer(con, q, status, s ? s : "{}", allow);
	free(s);
	json_decref(o);
	return (ret);
}

/* Content-Type is JSON: "application/json", parameters allowed. */
static int
is_json(const char *ct)
{
	size_t n = strlen("application/json");

	return (ct != NULL && strncasecmp(ct, "application/json", n) == 0 &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' '));
}

static enum MHD_Result
rx_begin(struct rx *rx, struct MHD_Connection *con, struct rxreq *q,
    const char *url, const char *method)
{
	const char *ct, *ce, *cl;
	char path[64];
	size_t n;
	int stopping;

	/* A request on a kept-alive connection, after the stop began: the
	 * exporter tries again later, as OTLP/HTTP retries a 503. */
	pthread_mutex_lock(&rx->mu);
	stopping = rx->stopping;
	pthread_mutex_unlock(&rx->mu);
	if (stopping)
		return (rx_error(con, q, 503, 14, "the receiver is stopping",
		    NULL));
	n = strcspn(url, "?");
	snprintf(path, sizeof(path), "%.*s", (int)(n < sizeof(path) ? n :
	    sizeof(path) - 1), url);
	q->mask = strcmp(path, "/v1/logs") == 0 ? OT_LOGS : strcmp(path,
	    "/v1/metrics") == 0 ? OT_METRICS : strcmp(path, "/v1/traces") ==
	    0 ? OT_TRACES : 0;
	if (q->mask == 0)
		return (rx_error(con, q, 404, 5, "no such path: this receiver "
		    "takes OTLP/HTTP on /v1/logs, /v1/metrics and /v1/traces",
		    NULL));
	if (strcmp(method, "POST") != 0)
		return (rx_error(con, q, 405, 12, "OTLP/HTTP exports are "
		    "POSTed", "POST"));
	ct = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_TYPE);
	if (ct != NULL && strncasecmp(ct, "application/x-protobuf", 22) == 0)
		return (rx_error(con, q, 415, 3, "this receiver reads OTLP "
		    "JSON, not protobuf: set OTEL_EXPORTER_OTLP_PROTOCOL="
		    "http/json", NULL));
	if (!is_json(ct))
		return (rx_error(con, q, 415, 3, "the body must be "
		    "application/json (OTLP/HTTP JSON: set "
		    "OTEL_EXPORTER_OTLP_PROTOCOL=http/json)", NULL));
	ce = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (ce != NULL && strcasecmp(ce, "identity") != 0)
		return (rx_error(con, q, 415, 3, "this receiver takes no "
		    "compressed bodies: set OTEL_EXPORTER_OTLP_COMPRESSION="
		    "none", NULL));
	cl = MHD_lookup_connection_value(con, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl != NULL && strtoull(cl, NULL, 10) > rx->maxbody)
		q->too_big = 1;
	return (MHD_YES);
}

/* The body has come: read it as one export request and answer. */
static enum MHD_Result
rx_end(struct rx *rx, struct MHD_Connection *con, struct rxreq *q)
{
	static const char *const rejected[] = { "", "rejectedLogRecords",
	    "rejectedDataPoints", "", "rejectedSpans" };
	enum MHD_Result ret;
	char msg[320], num[24], *s;
	uint64_t nrej;
	json_t *o;
	int rc;

	if (q->too_big) {
		snprintf(msg, sizeof(msg), "the body is over %zu bytes "
		    "(-b): not read", rx->maxbody);
		return (rx_error(con, q, 413, 8, msg, NULL));
	}
	if (q->body.oom)
		return (MHD_NO);
	pthread_mutex_lock(&rx->mu);
	rc = otel_request(&rx->o, (const char *)q->body.p, q->body.len,
	    q->mask);
	nrej = rx->o.rejected;
	snprintf(msg, sizeof(msg), "%s", rx->o.why);
	if (rc == 0)
		rx->served++;
	pthread_mutex_unlock(&rx->mu);
	if (rc == -1)
		return (rx_error(con, q, 400, 3, msg, NULL));
	if (nrej == 0)
		return (rx_answer(con, q, 200, "{}", NULL));
	/* ExportPartialSuccess: the count is an int64, a string in JSON. */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)nrej);
	o = json_pack("{s:{s:s,s:s}}", "partialSuccess", rejected[q->mask],
	    num, "errorMessage", msg);
	if (o == NULL)		/* the message cut inside a UTF-8 sequence */
		o = json_pack("{s:{s:s,s:s}}", "partialSuccess",
		    rejected[q->mask], num, "errorMessage", "some records "
		    "were refused: the receiver's standard error says why");
	s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	ret = rx_answer(con, q, 200, s ? s : "{}", NULL);
	free(s);
	return (ret);
}

static enum MHD_Result
rx_handler(void *cls, struct MHD_Connection *con, const char *url,
    const char *method, const char *version, const char *up, size_t *upsz,
    void **ptr)
{
	struct rx *rx = cls;
	struct rxreq *q = *ptr;

	(void)version;
	if (q == NULL) {
		if ((q = calloc(1, sizeof(*q))) == NULL)
			return (MHD_NO);
		jh_buf_init(&q->body);
		*ptr = q;
		pthread_mutex_lock(&rx->mu);
		rx->active++;
		pthread_mutex_unlock(&rx->mu);
		return (rx_begin(rx, con, q, url, method));
	}
	if (*upsz > 0) {
		if (!q->done)
			jh_buf_add_max(&q->body, up, *upsz, rx->maxbody,
			    &q->too_big);
		*upsz = 0;
		return (MHD_YES);
	}
	if (q->done)
		return (MHD_YES);
	return (rx_end(rx, con, q));
}

static void
rx_completed(void *cls, struct MHD_Connection *con, void **ptr,
    enum MHD_RequestTerminationCode toe)
{
	struct rx *rx = cls;
	struct rxreq *q = *ptr;

	(void)con;
	(void)toe;
	if (q == NULL)
		return;
	pthread_mutex_lock(&rx->mu);
	rx->active--;
	pthread_mutex_unlock(&rx->mu);
	jh_buf_free(&q->body);
	free(q);
	*ptr = NULL;
}

static void
rx_log(void *cls, const char *fmt, va_list ap)
{
	char m[512];
	size_t n;

	(void)cls;
	vsnprintf(m, sizeof(m), fmt, ap);
	n = strlen(m);
	while (n > 0 && m[n - 1] == '\n')
		m[--n] = '\0';
	warnx("otel: libmicrohttpd: %s", m);
}

/*
 * Serve until SIGTERM or SIGINT: the requests in flight then finish (for
 * RX_GRACE_S at most), the metric sums still held are sealed, and the
 * receiver exits 0.  Between signals, the sums of sessions quiet for
 * flush_s are sealed.
 */
static int
otel_serve(struct otel *tmpl, const char *spec, int any, size_t maxbody,
    uint64_t flush_s)
{
	struct rx *rx;
	struct MHD_Daemon *d;
	struct jh_err e;
	struct timespec tick = { 1, 0 };
	sigset_t ss, ts;
	char home[4096], path[4096], shown[300];
	uint64_t since = jh_now_ms(), n;
	int fd, sig, i;

	if ((rx = calloc(1, sizeof(*rx))) == NULL)
		errx(2, "out of memory");
	pthread_mutex_init(&rx->mu, NULL);
	rx->o = *tmpl;
	rx->o.sink = seal_sink;
	rx->o.arg = rx;
	rx->maxbody = maxbody;
	rx->wait_ms = 5000;
	rx->bucket = RX_NEWLOGS;
	rx->bucket_ms = mono_ms();
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (jh_home(home, sizeof(home)) == NULL ||
	    jh_path_join(path, sizeof(path), home, "steward.key") == -1)
		errx(2, "no key to seal with: set JH_HOME (its steward.key)");
	if (jh_state(rx->state, sizeof(rx->state)) == NULL)
		errx(2, "no state directory for the logs: set JH_STATE");
	if (jh_key_load(&rx->key, path, NULL, NULL, &e) == -1)
		errx(2, "%s", e.msg);
	if (rx->key.role != JH_ROLE_STEWARD)
		errx(2, "%s is an %s key; units are sealed by a steward key",
		    path, jh_role_name(rx->key.role));
	jh_keyset_init(&rx->keys);
	jh_keyset_add(&rx->keys, rx->key.pk, JH_ROLE_STEWARD);
	if (jh_path_join(path, sizeof(path), home, "stewards") == 0 &&
	    access(path, F_OK) == 0 && jh_keyset_load(&rx->keys, path,
	    JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);

	/* SIGTERM and SIGINT are this thread's; jh_tflock's is unblocked
	 * per wait, in the thread that waits. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	ts = ss;
	sigaddset(&ts, SIGRTMIN + 4);
	pthread_sigmask(SIG_BLOCK, &ts, NULL);
	if ((fd = jh_listen_tcp(spec, any, shown, sizeof(shown), &e)) == -1)
		errx(2, "-l %s%s", e.msg, any ? "" : " (-A allows it)");
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_POLL |
	    MHD_USE_ERROR_LOG, 0, NULL, NULL, rx_handler, rx,
	    MHD_OPTION_EXTERNAL_LOGGER, rx_log, rx,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_NOTIFY_COMPLETED, rx_completed, rx,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)RX_CONNS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
	    MHD_OPTION_END);
	if (d == NULL)
		errx(2, "cannot start the listener on %s", shown);
	warnx("otel: listening on %s for OTLP/HTTP JSON (/v1/logs, "
	    "/v1/metrics, /v1/traces); sealing into %s/logs: " OBSERVED,
	    shown, rx->state);
	for (;;) {
		sig = sigtimedwait(&ss, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (flush_s > 0 && jh_now_ms() - since >= 1000) {
			since = jh_now_ms();
			pthread_mutex_lock(&rx->mu);
			otel_flush(&rx->o, flush_s * 1000);
			pthread_mutex_unlock(&rx->mu);
		}
	}
	/* No new connection; what is in flight finishes. */
	pthread_mutex_lock(&rx->mu);
	rx->stopping = 1;
	pthread_mutex_unlock(&rx->mu);
	if ((fd = MHD_quiesce_daemon(d)) != -1)
		close(fd);
	for (i = 0; i < RX_GRACE_S * 20; i++) {
		pthread_mutex_lock(&rx->mu);
		n = rx->active;
		pthread_mutex_unlock(&rx->mu);
		if (n == 0)
			break;
		usleep(50000);
	}
	MHD_stop_daemon(d);
	otel_flush(&rx->o, 0);
	warnx("otel: stopped on SIG%s after %llu request%s answered", sig ==
	    SIGINT ? "INT" : "TERM", (unsigned long long)rx->served,
	    rx->served == 1 ? "" : "s");
	otel_summary(&rx->o);
	otel_free(&rx->o);
	strs_free(&rx->seen);
	jh_keyset_free(&rx->keys);
	jh_key_wipe(&rx->key);
	pthread_mutex_destroy(&rx->mu);
	free(rx);
	return (0);
}

static int
cmd_otel(struct meter *mt, int argc, char **argv)
{
	struct otel o;
	struct jh_reader r;
	struct jh_err e;
	struct opts op;
	const char *val, *listen = NULL;
	size_t len, maxbody = RX_BODY;
	uint64_t start, flush_s = RX_FLUSH_S;
	int ch, fd = STDIN_FILENO, rr, any = 0;

	memset(&o, 0, sizeof(o));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "Ab:F:l:s:")) != -1)
		switch (ch) {
		case 'A':
			any = 1;
			break;
		case 'b':
			maxbody = (size_t)num(optarg, JH_MAX_RECORD, ch);
			break;
		case 'F':
			flush_s = num(optarg, 86400, ch);
			break;
		case 'l':
			listen = optarg;
			break;
		default:
			option(&op, ch);
		}
	o.session = op.session;
	argc -= optind;
	argv += optind;
	if (argc > 1 || (listen != NULL && argc != 0))
		usage(stderr, 2);
	o.c = coeffs(mt);
	if (listen != NULL)
		return (otel_serve(&o, listen, any, maxbody, flush_s));
	o.sink = print_sink;
	if (argc == 1 && strcmp(argv[0], "-") != 0 &&
	    (fd = open(argv[0], O_RDONLY | O_CLOEXEC)) == -1)
		err(2, "%s", argv[0]);
	jh_reader_init(&r, fd);
	for (;;) {
		rr = jh_reader_json(&r, &val, &len, &start, &e);
		if (rr == 0)
			break;
		if (rr == JH_JSON_BROKEN) {
			warnx("otel: at byte %llu: %s", (unsigned long long)start,
			    e.msg);
			o.bad++;
			break;
		}
		if (rr == JH_JSON_TOOLONG) {
			o.nv++;
			o.bad++;
			warnx("otel: export at byte %llu: too long",
			    (unsigned long long)start);
			continue;
		}
		if (otel_request(&o, val, len, OT_ALL) == -1)
			warnx("otel: export at byte %llu: %s",
			    (unsigned long long)start, o.why);
	}
	jh_reader_free(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	otel_flush(&o, 0);
	otel_summary(&o);
	otel_free(&o);
	return (o.bad ? 1 : 0);
}

/* --- run and probe ---------------------------------------------------- */

static const char *const provs[JH_RUNGS] = { "HwShunt", "HwShunt",
    "ModelBased", "Estimator", "Estimator" };

/*
 * Which hardware counters moved between two samples: a live counter that
 * stood still over STALE_MS or more is stale, not a reading of zero.
 */
struct moved {
	int rapl_ok, gpu_ok;		/* read at both ends */
	int rapl_still, gpu_still;	/* did not advance at all */
	int rapl_wrapped, gpu_back;
	uint64_t ms;
};

static void
moved(struct moved *mv, const struct jh_ladder *l, const struct jh_sample *a,
    const struct jh_sample *b)
{
	uint64_t d = 0;
	size_t i;

	memset(mv, 0, sizeof(*mv));
	mv->ms = b->t_ns > a->t_ns ? (b->t_ns - a->t_ns) / 1000000 : 0;
	mv->rapl_ok = l->npkg > 0 && a->rapl_ok && b->rapl_ok;
	mv->gpu_ok = l->ndev > 0 && a->gpu_ok && b->gpu_ok;
	if (mv->rapl_ok) {
		for (i = 0; i < l->npkg; i++) {
			if (b->pkg[i] < a->pkg[i])
				mv->rapl_wrapped = 1;
			d |= jh_rapl_delta(a->pkg[i], b->pkg[i], l->range[i]);
		}
		mv->rapl_still = d == 0;
	}
	d = 0;
	if (mv->gpu_ok) {
		for (i = 0; i < l->ndev; i++) {
			if (b->gpu_mj[i] < a->gpu_mj[i])
				mv->gpu_back = 1;
			d |= b->gpu_mj[i] - a->gpu_mj[i];
		}
		mv->gpu_still = d == 0;
	}
}

/*
 * Why a live hardware rung gave no reading over the interval, or NULL.
 * Strict (a run): a counter that did not move is no reading, however
 * short the interval; a probe only calls a still counter stale.
 */
static const char *
hw_failed(char *b, size_t sz, int rung, const struct moved *mv, int strict)
{
	int gpu = rung != JH_RUNG_RAPL;
	int still = gpu ? mv->gpu_still : mv->rapl_still;
	const char *what = gpu ? "GPU" : "package";

	if (!(gpu ? mv->gpu_ok : mv->rapl_ok)) {
		snprintf(b, sz, "a %s counter could not be read at both ends "
		    "of the interval", what);
		return (b);
	}
	if (gpu && mv->gpu_back)
		return ("a GPU counter went backwards (a driver reload): no "
		    "reading");
	if (still && mv->ms >= STALE_MS) {
		snprintf(b, sz, "stale: the %s counters did not advance in "
		    "%llu ms", what, (unsigned long long)mv->ms);
		return (b);
	}
	if (still && strict) {
		snprintf(b, sz, "the %s counters did not advance in %llu ms, "
		    "shorter than their update period%s: no reading", what,
		    (unsigned long long)mv->ms, gpu ? " (about 40 ms)" : "");
		return (b);
	}
	return (NULL);
}

static void
ladder_open(struct jh_ladder *l, uint64_t mw, const struct jh_coeffs *c)
{
	struct jh_ladder_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.calibrated_mw = mw;
	cfg.thread_uw = c->thread_uw;
	jh_ladder_cfg_env(&cfg);
	jh_ladder_open(l, &cfg);
}

/*
 * The rungs as they stood over an interval: state[i] is "selected",
 * "live" or "declined", why[i] the reason.  The hardware rungs are live
 * only if their counters were read at both ends and moved.  cmd: the
 * interval of a command, which has no token counts and in which a still
 * counter is no reading.
 */
static int
rungs(const char **state, char why[][288], const struct jh_ladder *l,
    const struct moved *mv, int cmd)
{
	char b[160];
	const char *f;
	int i, sel = -1;

	for (i = 0; i < JH_RUNGS; i++) {
		snprintf(why[i], 288, "%s", l->why[i]);
		state[i] = l->live[i] ? "live" : "declined";
		if (l->live[i] && i <= JH_RUNG_NVML &&
		    (f = hw_failed(b, sizeof(b), i, mv, cmd)) != NULL) {
			snprintf(why[i], 288, "%s", f);
			state[i] = "declined";
		}
		if (i == JH_RUNG_TOKENS && cmd) {
			snprintf(why[i], 288, "a command has no token counts");
			state[i] = "declined";
		}
		if (i == JH_RUNG_RAPL && mv->rapl_wrapped &&
		    strcmp(state[i], "live") == 0)
			snprintf(why[i], 288, "%s; a counter wrapped, corrected "
			    "with max_energy_range_uj", l->why[i]);
	}
	for (i = 0; i < JH_RUNGS; i++)
		if (strcmp(state[i], "live") == 0) {
			state[i] = "selected";
			sel = i;
			break;
		}
	return (sel);
}

static int
cmd_run(struct meter *mt, int argc, char **argv)
{
	struct jh_ladder l;
	struct jh_sample a, b;
	struct jh_unit x;
	struct jh_energy en;
	struct moved mv;
	struct total t;
	struct opts op;
	const struct jh_coeffs *c;
	const char *state[JH_RUNGS], *session, *unit;
	char why[JH_RUNGS][288], name[JH_UNIT_ID_MAX + 64], note[160], jb[64];
	uint64_t mw;
	pid_t pid;
	void (*sigint)(int), (*sigquit)(int);
	int ch, st, i, sel, code, hw;

	memset(&t, 0, sizeof(t));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "P:s:u:")) != -1)
		option(&op, ch);
	session = op.session ? op.session : "local";
	unit = op.unit;
	mw = op.mw;
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(stderr, 2);
	c = coeffs(mt);
	ladder_open(&l, mw, c);
	fflush(stdout);
	fflush(stderr);
	jh_ladder_sample(&l, &a);
	/*
	 * As time(1) does, the meter outlives an interrupt the command gets,
	 * so the unit is still printed; and the standard output is the
	 * units', so the command writes its own to the standard error.
	 */
	sigint = signal(SIGINT, SIG_IGN);
	sigquit = signal(SIGQUIT, SIG_IGN);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		/* No library calls here: NVML may hold threads and locks. */
		signal(SIGINT, sigint);
		signal(SIGQUIT, sigquit);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) == -1)
			_exit(126);
		execvp(argv[0], argv);
		warn("%s", argv[0]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			err(2, "waitpid");
	signal(SIGINT, sigint);
	signal(SIGQUIT, sigquit);
	jh_ladder_sample(&l, &b);
	moved(&mv, &l, &a, &b);
	/* A still counter is no reading: sampled as unread at the end. */
	if (mv.rapl_still)
		b.rapl_ok = 0;
	if (mv.gpu_still || mv.gpu_back)
		b.gpu_ok = 0;
	jh_ladder_energy(&en, &l, &a, &b, 0, 0, 0);
	sel = rungs(state, why, &l, &mv, 1);
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	jh_unit_init(&x, session, "run");
	x.en = en;
	snprintf(name, sizeof(name), "run/%s/%llu", argv[0],
	    (unsigned long long)jh_now_ms());
	x.unit = unit ? unit : name;
	x.duration_ms = mv.ms;
	x.completed = code == 0;
	x.verdict = code == 0 ? "ok" : "error";
	snprintf(note, sizeof(note), "%s %d; rung %s", WIFEXITED(st) ? "exit" :
	    "signal", WIFEXITED(st) ? code : WTERMSIG(st), en.measured ?
	    en.method : jh_rung_name(sel));
	x.note = note;
	if (strcmp(en.method, "model") == 0)
		snprintf(x.coeff, sizeof(x.coeff), "host-calibrated/%llu-mW",
		    (unsigned long long)mw);
	else
		snprintf(x.coeff, sizeof(x.coeff), "%s#default_power", c->id);
	emit(&x);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	hw = en.measured;
	for (i = 0; i < JH_RUNGS; i++) {
		if (i == sel)
			fprintf(stderr, "%s: run: rung %s (%s): %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), provs[i], why[i]);
		else if (i < sel)
			fprintf(stderr, "%s: run: %s declined: %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), why[i]);
	}
	if (hw)
		fprintf(stderr, "%s: run: %s measured (%s, %s), %s estimated: "
		    OBSERVED "\n", PROG, joules(jb, sizeof(jb), en.measured_uj),
		    en.method, en.scope, joules(name, sizeof(name),
		    en.estimated_uj));
	total_add(&t, &x);
	summary("run", &t, NULL);
	jh_ladder_close(&l);
	return (code);
}

static int
cmd_probe(struct meter *mt, int argc, char **argv)
{
	struct jh_ladder l;
	struct jh_sample a, b;
	struct moved mv;
	struct timespec ts;
	const char *state[JH_RUNGS];
	char why[JH_RUNGS][288];
	struct opts op;
	const struct jh_coeffs *c;
	uint64_t mw, ms;
	json_t *o, *arr, *r;
	char *s;
	int ch, i, sel, quiet;

	opts_init(&op);
	while ((ch = getopt(argc, argv, "P:qt:")) != -1)
		option(&op, ch);
	mw = op.mw;
	ms = op.ms;
	quiet = op.quiet;
	if (optind != argc)
		usage(stderr, 2);
	c = coeffs(mt);
	ladder_open(&l, mw, c);
	jh_ladder_sample(&l, &a);
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	jh_ladder_sample(&l, &b);
	moved(&mv, &l, &a, &b);
	sel = rungs(state, why, &l, &mv, 0);
	o = json_object();
	arr = json_array();
	json_object_set_new(o, "selected", json_string(jh_rung_name(sel)));
	json_object_set_new(o, "provenance", json_string(provs[sel]));
	json_object_set_new(o, "interval_ms", json_integer((json_int_t)mv.ms));
	for (i = 0; i < JH_RUNGS; i++) {
		r = json_object();
		json_object_set_new(r, "rung", json_string(jh_rung_name(i)));
		json_object_set_new(r, "state", json_string(state[i]));
		json_object_set_new(r, "provenance", json_string(provs[i]));
		json_object_set_new(r, "why", json_string(why[i]));
		json_array_append_new(arr, r);
	}
	json_object_set_new(o, "rungs", arr);
	json_object_set_new(o, "enforced", json_integer(0));
	if ((s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
		errx(2, "out of memory");
	printf("%s\n", s);
	free(s);
	json_decref(o);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	for (i = 0; !quiet && i < JH_RUNGS; i++)
		if (i <= sel)
			fprintf(stderr, "%s: probe: %s %s: %s: " OBSERVED "\n",
			    PROG, jh_rung_name(i), i == sel ? "selected" :
			    "declined", why[i]);
	jh_ladder_close(&l);
	return (0);
}

/* --- aggregate -------------------------------------------------------- */

struct agg {
	uint64_t n, failed, skipped, completed;
	struct jh_usage u;
	uint64_t accepted, est, meas, dur, cost, debited;
	int weakest;		/* provenance rank */
	int ncost;
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

static int
get_uint(uint64_t *v, const json_t *o, const char *k, struct jh_err *e)
{
	const json_t *x = json_object_get(o, k);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return (jh_errf(e, "%s is not an unsigned integer", k));
	*v = (uint64_t)json_integer_value(x);
	return (0);
}

static void
set_once(char **dst, int *mixed, const char *s)
{
	if (s == NULL)
		return;
	if (*dst == NULL) {
		if ((*dst = strdup(s)) == NULL)
			errx(2, "out of memory");
	} else if (strcmp(*dst, s) != 0)
		*mixed = 1;
}

/* Adds one efficiency/1 unit; every attempt counts, failed ones too. */
static int
agg_add(struct agg *g, const json_t *o, struct jh_err *e)
{
	const json_t *en = json_object_get(o, "energy");
	uint64_t in, out, cr, cw, acc, est, meas = 0, dur, deb, cost, comp;
	const char *prov, *src, *sess;
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
	if (get_uint(&in, o, "tokens_in", e) == -1 ||
	    get_uint(&out, o, "tokens_out", e) == -1 ||
	    get_uint(&cr, o, "tokens_cache_read", e) == -1 ||
	    get_uint(&cw, o, "tokens_cache_write", e) == -1 ||
	    get_uint(&acc, o, "accepted_tokens", e) == -1 ||
	    get_uint(&dur, o, "duration_ms", e) == -1 ||
	    get_uint(&deb, o, "debited_uj", e) == -1 ||
	    get_uint(&comp, o, "completed", e) == -1 ||
	    get_uint(&est, en, "estimated_uj", e) == -1)
		return (-1);
	if ((prov = jh_json_id(en, "provenance")) == NULL ||
	    (strcmp(prov, "HwShunt") != 0 && strcmp(prov, "ModelBased") != 0 &&
	    strcmp(prov, "Estimator") != 0))
		return (jh_errf(e, "energy.provenance must be HwShunt, "
		    "ModelBased or Estimator"));
	if (strcmp(prov, "HwShunt") == 0 && get_uint(&meas, en, "measured_uj",
	    e) == -1)
		return (-1);
	if (strcmp(prov, "HwShunt") != 0 && json_object_get(en,
	    "measured_uj") != NULL)
		return (jh_errf(e, "energy.measured_uj is only for HwShunt"));
	set_once(&g->session, &mixed_sess, sess);
	if (mixed_sess)
		return (jh_errf(e, "a unit of session %s among units of %s: "
		    "give -s to aggregate across sessions", sess, g->session));
	if (g->n == 0 || jh_prov_rank(prov) < g->weakest)
		g->weakest = jh_prov_rank(prov);
	set_once(&g->model, &g->mixed_model, jh_json_id(o, "model"));
	if (jh_json_id(o, "model") == NULL)
		g->mixed_model = 1;
	if (strcmp(prov, "HwShunt") == 0)
		set_once(&g->scope, &g->mixed_scope, jh_json_id(en, "scope") ?
		    jh_json_id(en, "scope") : "unstated");
	g->n++;
	if (!comp)
		g->failed++;
	else
		g->completed++;
	g->u.in = jh_add_sat(g->u.in, in);
	g->u.out = jh_add_sat(g->u.out, out);
	g->u.cache_read = jh_add_sat(g->u.cache_read, cr);
	g->u.cache_write = jh_add_sat(g->u.cache_write, cw);
	g->accepted = jh_add_sat(g->accepted, acc);
	g->est = jh_add_sat(g->est, est);
	g->meas = jh_add_sat(g->meas, meas);
	g->dur = jh_add_sat(g->dur, dur);
	g->debited = jh_add_sat(g->debited, deb);
	if (json_object_get(o, "cost_musd") != NULL) {
		if (get_uint(&cost, o, "cost_musd", e) == -1)
			return (-1);
		g->cost = jh_add_sat(g->cost, cost);
		g->ncost++;
	}
	return (0);
}

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

/* A result/1 receipt with outcome 1 anchors the task; the last one wins. */
static void
agg_result(struct agg *g, const struct jh_cbor *core)
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

/* The efficiency/1 receipts of a chained log, every entry verified. */
static void
agg_log(struct agg *g, const char *path, const char *session)
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
			agg_result(g, inner.core);
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
		if (agg_add(g, o, &e) == -1)
			errx(1, "%s: entry %llu: %s", path,
			    (unsigned long long)idx, e.msg);
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

static int
cmd_aggregate(int argc, char **argv)
{
	struct agg g;
	struct jh_unit x;
	struct jh_reader r;
	struct jh_err e;
	struct opts op;
	const char *log, *session, *unit, *vopt;
	const char *line;
	char note[512], anchor[JH_UNIT_ID_MAX + 96], rate[3][48], jb[64];
	uint64_t lineno = 0, bad = 0, energy, q;
	size_t len;
	int ch, copt, rr;
	json_t *o;

	memset(&g, 0, sizeof(g));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "c:l:s:u:V:")) != -1)
		option(&op, ch);
	log = op.log;
	session = op.session;
	unit = op.unit ? op.unit : "task";
	vopt = op.verdict;
	copt = op.copt;
	if (optind != argc)
		usage(stderr, 2);
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (log != NULL)
		agg_log(&g, log, session);
	else {
		jh_reader_init(&r, STDIN_FILENO);
		for (;;) {
			rr = jh_reader_line(&r, &line, &len, &e);
			if (rr == 0)
				break;
			lineno++;
			if (rr == 1 && (len == 0 || strspn(line, " \t\r") ==
			    len))
				continue;
			o = rr == 1 ? jh_json_parse(line, len, &e) : NULL;
			if (o != NULL && session != NULL && json_is_object(o))
				json_object_set_new(o, "session",
				    json_string(session));
			if (o == NULL || agg_add(&g, o, &e) == -1) {
				warnx("aggregate: line %llu: %s",
				    (unsigned long long)lineno, e.msg);
				bad++;
			}
			json_decref(o);
		}
		jh_reader_free(&r);
	}
	if (bad)
		errx(1, "aggregate: %llu line%s refused: no aggregate of part "
		    "of a task", (unsigned long long)bad, bad == 1 ? "" : "s");
	if (g.n == 0)
		errx(1, "aggregate: no efficiency/1 units to aggregate");
	/* The outcome anchor. */
	jh_unit_init(&x, session ? session : g.session, "aggregate");
	if (g.have_outcome) {
		const char *s = g.outcome_status;
		x.completed = strcmp(s, "ok") == 0;
		x.verdict = x.completed ? "ok" : strcmp(s, "denied") == 0 ?
		    "refused" : strcmp(s, "not-run") == 0 ? "partial" : "error";
		snprintf(anchor, sizeof(anchor), "outcome: result/1 %s of %s",
		    s, g.outcome_call[0] ? g.outcome_call : "an unnamed call");
	} else if (copt != -1 || vopt != NULL) {
		x.completed = copt != -1 ? copt : strcmp(vopt, "ok") == 0;
		x.verdict = vopt ? vopt : x.completed ? "ok" : "error";
		snprintf(anchor, sizeof(anchor), "outcome: given (%s%s%s%s)",
		    copt == -1 ? "" : copt ? "-c 1" : "-c 0",
		    copt != -1 && vopt ? " " : "", vopt ? "-V " : "",
		    vopt ? vopt : "");
	} else {
		x.completed = 0;
		x.verdict = "partial";
		snprintf(anchor, sizeof(anchor), "no outcome anchor: not "
		    "counted as completed");
	}
	x.unit = unit;
	x.model = g.mixed_model ? NULL : g.model;
	x.u = g.u;
	/* What was delivered: nothing, unless the task completed. */
	x.accepted = x.completed ? g.accepted : 0;
	x.duration_ms = g.dur;
	x.debited = g.debited;
	x.have_cost = g.ncost > 0 && (uint64_t)g.ncost == g.n;
	x.cost_musd = g.cost;
	x.en.estimated_uj = g.est;
	x.en.provenance = g.weakest == 2 ? "HwShunt" : g.weakest == 1 ?
	    "ModelBased" : "Estimator";
	if (g.weakest == 2) {
		x.en.measured = 1;
		x.en.measured_uj = g.meas;
		x.en.scope = g.mixed_scope ? "mixed" : g.scope;
	}
	snprintf(x.coeff, sizeof(x.coeff), "sum-of-parts");
	snprintf(note, sizeof(note), "%llu attempt%s (%llu failed) charged "
	    "against the result; %s; " OBSERVED,
	    (unsigned long long)g.n, g.n == 1 ? "" : "s",
	    (unsigned long long)g.failed, anchor);
	x.note = note;
	emit(&x);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	/* The rates, recomputed from the integers just printed. */
	energy = x.en.measured ? x.en.measured_uj : x.en.estimated_uj;
	if (x.completed) {
		snprintf(rate[0], sizeof(rate[0]), "%llu",
		    (unsigned long long)energy);
		snprintf(rate[1], sizeof(rate[1]), "%llu", (unsigned long long)
		    jh_add_sat(jh_add_sat(x.u.in, x.u.out),
		    jh_add_sat(x.u.cache_read, x.u.cache_write)));
	} else {
		snprintf(rate[0], sizeof(rate[0]), "none");
		snprintf(rate[1], sizeof(rate[1]), "none");
	}
	if (energy > 0) {
		/* accepted tokens per joule, to three decimals, truncated */
		q = (uint64_t)((unsigned __int128)x.accepted * 1000000000u /
		    energy);
		snprintf(rate[2], sizeof(rate[2]), "%llu.%03llu",
		    (unsigned long long)(q / 1000),
		    (unsigned long long)(q % 1000));
	} else
		snprintf(rate[2], sizeof(rate[2]), "none");
	fprintf(stderr, "%s: aggregate: %llu attempts, %llu failed, completed "
	    "%d (%s): %s %s, accepted_tokens=%llu, uj_per_completed_unit=%s "
	    "tokens_per_completed_unit=%s value_per_joule=%s: " OBSERVED "\n",
	    PROG, (unsigned long long)g.n, (unsigned long long)g.failed,
	    x.completed, anchor, joules(jb, sizeof(jb), energy),
	    x.en.measured ? "measured" : "estimated",
	    (unsigned long long)x.accepted, rate[0], rate[1], rate[2]);
	free(g.session);
	free(g.model);
	free(g.scope);
	return (0);
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
