/*
 * jh-meter otel (jh-meter(1)): OpenTelemetry exports as units, from a
 * file or from the live OTLP/HTTP receiver (-l), which seals what it
 * takes into the sessions' logs.
 */
#include <sys/resource.h>

#include <err.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>
#include <sodium.h>

#include "jh.h"
#include "energy.h"
#include "kinds.h"
#include "listen.h"
#include "meter.h"
#include "otlp.h"
#include "sealunit.h"
#include "util.h"

#include "metercmd.h"

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

/*
 * A session this receiver has not sealed into yet is a new log: at most
 * RX_NEWLOGS a minute (a token bucket), so no exporter floods the state
 * directory with logs.  Under rx->mu.
 */
static int
admit(struct rx *rx, const char *session)
{
	uint64_t now = jh_mono_ms();

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

	(void)cls;
	jh_listen_msg(m, sizeof(m), fmt, ap);
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
	rx->bucket_ms = jh_mono_ms();
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

int
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

