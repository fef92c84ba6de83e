/*
 * jh-meter: the observing meter (issue 8, spec 4.2 and 7).  It turns token
 * counts, Claude Code transcripts, OpenTelemetry exports and hardware
 * counters into efficiency/1 units, one JSON line each, ready for
 * jh-seal -K efficiency/1 | jh-chain, and rolls units into a task-level
 * unit anchored to an outcome.  Nothing here enforces a budget: every unit
 * says enforced 0 and every summary says "observed, not enforced".
 *
 * The readers of what an agent writes are the library's, where the fuzz
 * targets drive them: transcripts (lib/transcript.c), OTLP/JSON exports
 * (lib/otlp.c) and the units an aggregate takes (lib/aggregate.c).  Here
 * are the options, the receiver's HTTP plumbing, the hardware rungs, the
 * output and the exit codes.
 */
#include <sys/file.h>
#include <sys/resource.h>
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
#include "aggregate.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "energy.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "ledger.h"
#include "listen.h"
#include "meter.h"
#include "otlp.h"
#include "sealunit.h"
#include "statefs.h"
#include "transcript.h"
#include "util.h"
#include "verify.h"

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

/* An item of a request refused: said on the standard error. */
static void
otel_warn(void *arg, const char *msg)
{
	(void)arg;
	warnx("otel: %s", msg);
}

static void
otel_summary(const struct jh_otlp *o, const struct total *t)
{
	char extra[200];

	snprintf(extra, sizeof(extra), " from %llu export%s%s%s",
	    (unsigned long long)o->nv, o->nv == 1 ? "" : "s", o->dropped ?
	    ", token.usage metrics of sessions with api_request events not "
	    "counted again" : "", o->bad ? ", some input refused" : "");
	summary("otel", t, extra);
}

/* The file mode's sink: the unit on the standard output, counted. */
static int
print_sink(void *arg, const struct jh_unit *x, struct jh_err *e)
{
	if (jh_unit_print(stdout, x, e) == -1)
		return (-1);
	total_add(arg, x);
	return (0);
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
	struct jh_otlp o;
	struct total t;		/* the units sealed */
	struct jh_key key;
	struct jh_keyset keys;
	char state[4096];
	size_t maxbody;
	unsigned wait_ms;
	struct jh_strs seen;	/* the sessions sealed into */
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

	if (jh_strs_has(&rx->seen, session))
		return (1);
	rx->bucket += (double)(now - rx->bucket_ms) * RX_NEWLOGS / 60000.0;
	if (rx->bucket > RX_NEWLOGS)
		rx->bucket = RX_NEWLOGS;
	rx->bucket_ms = now;
	if (rx->bucket < 1.0)
		return (0);
	rx->bucket -= 1.0;
	if (rx->seen.n >= 65536)
		jh_strs_free(&rx->seen);	/* forget; the limit still holds */
	if (jh_strs_keep(&rx->seen, session) == NULL)
		errx(2, "out of memory");
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
	if (rc == 0)
		total_add(&rx->t, x);
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
	q->mask = strcmp(path, "/v1/logs") == 0 ? JH_OT_LOGS : strcmp(path,
	    "/v1/metrics") == 0 ? JH_OT_METRICS : strcmp(path, "/v1/traces") ==
	    0 ? JH_OT_TRACES : 0;
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
	if ((rc = jh_otlp_request(&rx->o, (const char *)q->body.p,
	    q->body.len, q->mask)) == JH_OTLP_NOMEM)
		errx(2, "out of memory");
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

/* The receiver's state, with the key it seals with and the keys it trusts. */
static struct rx *
rx_new(const struct jh_otlp *tmpl, size_t maxbody)
{
	struct rx *rx;
	struct jh_err e;
	struct rlimit rl = { 0, 0 };
	char home[4096], path[4096];

	/*
	 * The receiver holds the steward key for as long as it runs: no
	 * core dump may carry it.  Only here, so that jh-meter run leaves
	 * the metered command's limit as it was.
	 */
	setrlimit(RLIMIT_CORE, &rl);
	if ((rx = calloc(1, sizeof(*rx))) == NULL)
		errx(2, "out of memory");
	pthread_mutex_init(&rx->mu, NULL);
	jh_otlp_init(&rx->o, tmpl->c, tmpl->session, seal_sink, otel_warn, rx);
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
	return (rx);
}

/* What rx_new made, the key wiped. */
static void
rx_free(struct rx *rx)
{
	jh_otlp_free(&rx->o);
	jh_strs_free(&rx->seen);
	jh_keyset_free(&rx->keys);
	jh_key_wipe(&rx->key);
	pthread_mutex_destroy(&rx->mu);
	free(rx);
}

/*
 * The stop: no new connection, what is in flight finishes (for
 * RX_GRACE_S at most), and the metric sums still held are sealed.
 */
static void
rx_stop(struct rx *rx, struct MHD_Daemon *d, int sig)
{
	uint64_t n;
	int fd, i;

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
	jh_otlp_flush(&rx->o, 0);
	warnx("otel: stopped on SIG%s after %llu request%s answered", sig ==
	    SIGINT ? "INT" : "TERM", (unsigned long long)rx->served,
	    rx->served == 1 ? "" : "s");
	otel_summary(&rx->o, &rx->t);
	rx_free(rx);
}

/*
 * Serve until SIGTERM or SIGINT, then stop (rx_stop) and exit 0.  Between
 * signals, the sums of sessions quiet for flush_s are sealed.
 */
static int
otel_serve(const struct jh_otlp *tmpl, const char *spec, int any,
    size_t maxbody, uint64_t flush_s)
{
	struct rx *rx;
	struct MHD_Daemon *d;
	struct jh_err e;
	struct timespec tick = { 1, 0 };
	sigset_t ss, ts;
	char shown[300];
	uint64_t since = jh_now_ms();
	int fd, sig;

	rx = rx_new(tmpl, maxbody);
	/* SIGTERM and SIGINT are this thread's; jh_tflock's is unblocked
	 * per wait, in the thread that waits. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	ts = ss;
	sigaddset(&ts, SIGRTMIN + 4);
	pthread_sigmask(SIG_BLOCK, &ts, NULL);
	if ((fd = jh_listen_tcp(spec, any, shown, sizeof(shown), &e)) == -1) {
		rx_free(rx);
		errx(2, "-l %s%s", e.msg, any ? "" : " (-A allows it)");
	}
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
	if (d == NULL) {
		rx_free(rx);
		errx(2, "cannot start the listener on %s", shown);
	}
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
			jh_otlp_flush(&rx->o, flush_s * 1000);
			pthread_mutex_unlock(&rx->mu);
		}
	}
	rx_stop(rx, d, sig);
	return (0);
}

static int
cmd_otel(struct meter *mt, int argc, char **argv)
{
	struct jh_otlp o;
	struct total t;
	struct opts op;
	const char *listen = NULL;
	size_t maxbody = RX_BODY;
	uint64_t flush_s = RX_FLUSH_S;
	int ch, fd = STDIN_FILENO, any = 0, rc;

	memset(&t, 0, sizeof(t));
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
	argc -= optind;
	argv += optind;
	if (argc > 1 || (listen != NULL && argc != 0))
		usage(stderr, 2);
	jh_otlp_init(&o, coeffs(mt), op.session, print_sink, otel_warn, &t);
	if (listen != NULL)
		return (otel_serve(&o, listen, any, maxbody, flush_s));
	if (argc == 1 && strcmp(argv[0], "-") != 0 &&
	    (fd = open(argv[0], O_RDONLY | O_CLOEXEC)) == -1)
		err(2, "%s", argv[0]);
	if (jh_otlp_read(&o, fd) == JH_OTLP_NOMEM)
		errx(2, "out of memory");
	if (fd != STDIN_FILENO)
		close(fd);
	jh_otlp_flush(&o, 0);
	otel_summary(&o, &t);
	rc = o.bad ? 1 : 0;
	jh_otlp_free(&o);
	return (rc);
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

/*
 * The command, waited for; its wait status.  As time(1) does, the meter
 * outlives an interrupt the command gets, so the unit is still printed;
 * and the standard output is the units', so the command writes its own
 * to the standard error.
 */
static int
run_command(char **argv)
{
	void (*sigint)(int), (*sigquit)(int);
	pid_t pid;
	int st;

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
	return (st);
}

/* The rung selected, those declined above it, and what was measured. */
static void
run_report(const struct jh_energy *en, char why[][288], int sel)
{
	char jb[64], eb[64];
	int i;

	for (i = 0; i < JH_RUNGS; i++) {
		if (i == sel)
			fprintf(stderr, "%s: run: rung %s (%s): %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), provs[i], why[i]);
		else if (i < sel)
			fprintf(stderr, "%s: run: %s declined: %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), why[i]);
	}
	if (en->measured)
		fprintf(stderr, "%s: run: %s measured (%s, %s), %s estimated: "
		    OBSERVED "\n", PROG, joules(jb, sizeof(jb), en->measured_uj),
		    en->method, en->scope, joules(eb, sizeof(eb),
		    en->estimated_uj));
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
	char why[JH_RUNGS][288], name[JH_UNIT_ID_MAX + 64], note[160];
	uint64_t mw;
	int ch, st, sel, code;

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
	st = run_command(argv);
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
	run_report(&en, why, sel);
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

static int
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
