/*
 * jh-proxy: the enforcing meter at the model boundary (DESIGN.md 5,
 * spec 4): an HTTP/1.1 listener (libmicrohttpd, one thread a connection)
 * that forwards Anthropic Messages and OpenAI Chat Completions and
 * Responses calls upstream with libcurl, holds each call's worst case
 * against the grant's joule budget before the provider is reached,
 * relays the answer as it arrives, settles the hold to the metered
 * figure and seals an efficiency/1 receipt into the session's log.
 *
 * Lock discipline (SECURITY.md R2, R3): the ledger lock is never held
 * across the network (hold, unlock, forward, lock, settle); the hold is
 * settled and synced before the receipt is chained; every thread opens
 * the ledger and the log itself and waits for their flock(2) locks with
 * jh_tflock, so the proxy excludes jh-decide and jh-chain as they
 * exclude each other.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sodium.h>

#include "jh.h"

#define PROG		"jh-proxy"
#define DEFAULT_LISTEN	"127.0.0.1:8177"
#define DEFAULT_BODY	(32u * 1024 * 1024)	/* Anthropic's own limit */
#define DEFAULT_OUT	128000		/* output tokens when none is asked */
#define DEFAULT_IDLE	600		/* seconds without upstream bytes */
#define DEFAULT_NEWLOGS	60		/* new session logs a minute */
#define SESSION_MAX	128		/* bytes of a session id */
#define SSE_EVENT_MAX	(4u * 1024 * 1024)
#define COPY_MAX	(16u * 1024 * 1024)	/* a JSON answer read for usage */
#define OUT_HIGH	(1u * 1024 * 1024)	/* relay buffer: pause upstream */
#define POOL_MAX	64
#define GRACE_S		30		/* SIGTERM: in-flight calls finish */

enum route {
	R_NONE, R_PROBE, R_MESSAGES, R_COUNT, R_MODELS, R_CHAT, R_RESPONSES
};

struct opts {
	const char *upstream;
	const char *listen;
	const char *unixpath;
	const char *grantfile;
	const char *trustfile;
	const char *revdir;
	const char *ledgerdir;
	const char *statedir;
	const char *stewards;
	const char *keyfile;
	const char *tokenfile;
	const char *coeffile;
	const char *host;
	size_t maxbody;
	uint64_t cap_uj;
	uint64_t default_out;
	uint64_t idle_ms;
	unsigned newlogs;
	unsigned wait_ms;
	uint64_t calibrated_mw;
	int ladder;
	int refuse_status;
	char token[65];
	size_t toklen;
	struct jh_key key;
	struct jh_keyset keys;		/* receipt signers, for log heads */
	struct jh_coeffs coeffs;
	struct jh_ladder lad;
	uint64_t default_mw;
	char session[64];		/* for callers that name none */
	char homebuf[PATH_MAX], statebuf[PATH_MAX], ledgerbuf[PATH_MAX];
	char trustbuf[PATH_MAX], revbuf[PATH_MAX], keybuf[PATH_MAX];
	char grantbuf[PATH_MAX], stewbuf[PATH_MAX], tokbuf[PATH_MAX];
	char coefbuf[PATH_MAX];
};

/* A grant loaded once and reloaded when its file changes. */
struct gcache {
	pthread_mutex_t mu;
	int loaded;
	int rc;
	struct jh_err e;
	struct stat gst, tst;
	struct jh_grant g;
	struct jh_keyset trust;
};

struct upconn {			/* a libcurl handle pair kept for reuse */
	CURLM *m;
	CURL *h;
};

struct sess {			/* session ids seen, for the new-log limit */
	uint8_t h[16];
};

static struct opts O;
static struct gcache G = { .mu = PTHREAD_MUTEX_INITIALIZER };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;	/* what follows */
static struct upconn pool[POOL_MAX];
static size_t npool;
static struct sess *sessions;
static size_t nsess, capsess;
static double bucket;
static uint64_t bucket_ms;
static uint64_t inflight, starts, seq;
static uint64_t active;		/* requests being answered */
static uint64_t last_authlog;
static atomic_int stopping;	/* 1: stop taking calls; 2: cut the rest */

struct rhdr {
	char *name;
	char *value;
};

struct call {
	char *uri;			/* as received: path and query */
	char path[256];
	enum route route;
	int api;
	int started;
	int done;			/* the request was answered */
	struct MHD_Connection *con;
	struct jh_buf body;
	int too_big;
	char session[SESSION_MAX + 1];
	char id[48];			/* jhp-<pid>-<n>: the hold */
	char model[128];
	uint64_t t0;			/* ms, monotonic */
	/* metering */
	int metered;
	int forwarded;			/* a hold was placed: it went upstream */
	int held;			/* the hold is open */
	int clamped;
	uint64_t in_est, out_worst, worst, hold;
	const struct jh_coeff *fam;
	uint8_t grant[JH_HASH_LEN];
	char grant_id[JH_ID_LEN];
	uint64_t budget;		/* the grant's, as checked */
	int have_grant;
	uint64_t remaining;
	int have_remaining;
	struct jh_sample s0;
	uint64_t starts_at;
	int overlapped;
	int client_stream;
	/* upstream */
	struct upconn up;
	struct curl_slist *hdrs;
	char *fwd;			/* the body sent, when rewritten */
	size_t fwdlen;
	int status;
	int headers_done;
	int up_done;
	CURLcode result;
	char curl_err[CURL_ERROR_SIZE];
	struct rhdr *rh;
	size_t nrh;
	int sse;
	struct jh_buf out;
	size_t out_pos;
	int paused;
	struct jh_sse sse_state;
	struct jh_buf copy;
	int copy_lost;
	struct jh_wire w;
	uint64_t last_data;
	int client_fd;
	int watch_client;
	int client_gone;
	int cut;			/* shutdown cut the call */
	int idle;			/* upstream went quiet */
	const char *note;		/* what happened, for the receipt */
	int answered;			/* the status the client got */
	int finished;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s -u upstream [-E] [-b bytes] [-C coefficients] "
	    "[-c cap_uj] [-g grant]\n"
	    "                [-H host] [-i seconds] [-k keyfile] "
	    "[-L ledgerdir] [-l addr:port | -U socket]\n"
	    "                [-m tokens] [-n logs] [-P mW] [-R revokeddir] "
	    "[-S statedir] [-s stewards]\n"
	    "                [-T tokenfile] [-t trust] [-w ms]\n"
	    "       %s -h\n", PROG, PROG);
	exit(status);
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

static void
logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line to stderr, whole (stdio's lock keeps lines apart). */
static void
logf_(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", PROG);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

static const char *
joules(char *buf, size_t sz, uint64_t uj)
{
	if (uj >= 1000000000000ULL)
		snprintf(buf, sz, "%.2f MJ", (double)uj / 1e12);
	else if (uj >= 1000000000ULL)
		snprintf(buf, sz, "%.2f kJ", (double)uj / 1e9);
	else
		snprintf(buf, sz, "%.3f J", (double)uj / 1e6);
	return (buf);
}

/* --- the grant -------------------------------------------------------- */

static int
same_file(const struct stat *a, const struct stat *b)
{
	return (a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec);
}

/*
 * The check jh-decide makes (SECURITY.md S9 v): signature, trust,
 * revocation, audience, nbf/exp.  The grant and the trust list are
 * reloaded when their files change, by (dev, inode, size, mtime).
 */
static int
grant_check(struct call *c, char *why, size_t sz)
{
	struct stat gst, tst;
	struct jh_err e;
	uint64_t now = jh_now_ms() / 1000;
	int r, rc;

	pthread_mutex_lock(&G.mu);
	memset(&tst, 0, sizeof(tst));
	if (stat(O.grantfile, &gst) == -1) {
		snprintf(why, sz, "no grant: %s: %s", O.grantfile,
		    strerror(errno));
		rc = JH_D_NOGRANT;
		goto out;
	}
	(void)stat(O.trustfile, &tst);
	if (!G.loaded || !same_file(&gst, &G.gst) || !same_file(&tst,
	    &G.tst)) {
		if (G.loaded)
			jh_grant_free(&G.g);
		jh_keyset_free(&G.trust);
		jh_keyset_init(&G.trust);
		G.loaded = 1;
		G.gst = gst;
		G.tst = tst;
		if (access(O.trustfile, F_OK) == 0 &&
		    jh_keyset_load(&G.trust, O.trustfile, JH_ROLE_ISSUER,
		    &G.e) == -1) {
			G.rc = JH_D_GATEFAIL;
			memset(&G.g, 0, sizeof(G.g));
		} else
			G.rc = jh_grant_load(&G.g, O.grantfile, &G.trust, &G.e);
	}
	if ((rc = G.rc) != 0) {
		snprintf(why, sz, "%s", G.e.msg);
		goto out;
	}
	memcpy(c->grant, G.g.id, JH_HASH_LEN);
	memcpy(c->grant_id, G.g.idtext, JH_ID_LEN);
	c->budget = G.g.budget;
	c->have_grant = 1;
	if ((r = jh_grant_revoked(&G.g, O.revdir, &e)) != 0) {
		rc = r == 1 ? JH_D_REVOKED : JH_D_GATEFAIL;
		snprintf(why, sz, "%s", r == 1 ? "the grant is revoked" :
		    e.msg);
	} else if (!jh_audience_ok(&G.g, O.host)) {
		rc = JH_D_AUDIENCE;
		snprintf(why, sz, "the grant's audience does not include "
		    "joulehook:%s", O.host);
	} else if (now < G.g.nbf) {
		rc = JH_D_NOTYET;
		snprintf(why, sz, "the grant is not valid before %llu",
		    (unsigned long long)G.g.nbf);
	} else if (now >= G.g.exp) {
		rc = JH_D_EXPIRED;
		snprintf(why, sz, "the grant expired at %llu",
		    (unsigned long long)G.g.exp);
	}
out:
	pthread_mutex_unlock(&G.mu);
	return (rc);
}

/* --- the ledger ------------------------------------------------------- */

/*
 * Places the call's hold, or refuses when it does not fit: under the
 * ledger's lock, on this thread's own open file description, then
 * unlocked before anything goes on the network.  Returns 0 held, 1 over
 * budget, -1 could not (why says which).
 */
static int
ledger_hold(struct call *c, char *why, size_t sz)
{
	struct jh_ledger *l;
	struct jh_err e;
	uint64_t rem;
	int fd, rc = -1;

	if ((fd = jh_ledger_open(O.ledgerdir, c->grant, 0, NULL, &e)) == -1) {
		snprintf(why, sz, "%s", e.msg);
		return (-1);
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		snprintf(why, sz, "out of memory");
		return (-1);
	}
	if (jh_tflock(fd, LOCK_EX, O.wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1) {
		snprintf(why, sz, "ledger: %s", e.msg);
		goto out;
	}
	if (memcmp(l->grant, c->grant, JH_HASH_LEN) != 0) {
		snprintf(why, sz, "ledger: not this grant's");
		goto out;
	}
	l->budget_uj = c->budget;
	jh_ledger_reap(l, jh_now_ms());
	rem = jh_ledger_remaining(l);
	c->remaining = rem;
	c->have_remaining = 1;
	if (c->hold > rem) {
		rc = 1;
		goto out;
	}
	if (jh_ledger_hold(l, c->id, c->hold, (int)getpid(), jh_now_ms(),
	    &e) == -1) {
		snprintf(why, sz, "ledger: %s", e.msg);
		goto out;
	}
	if (jh_ledger_write(fd, l, &e) == -1) {
		snprintf(why, sz, "%s", e.msg);
		goto out;
	}
	c->held = c->forwarded = 1;
	c->remaining = jh_ledger_remaining(l);
	rc = 0;
out:
	close(fd);			/* drops the lock */
	free(l);
	return (rc);
}

/* Settles the hold to what was metered, synced, before any receipt. */
static int
ledger_settle(struct call *c, uint64_t debit)
{
	struct jh_ledger *l;
	struct jh_err e;
	int fd, rc = -1;

	if ((fd = jh_ledger_open(O.ledgerdir, c->grant, 0, NULL, &e)) == -1) {
		logf_("%s: cannot settle: %s", c->id, e.msg);
		return (-1);
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		return (-1);
	}
	if (jh_tflock(fd, LOCK_EX, O.wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1 ||
	    jh_ledger_settle(l, c->id, debit, 0, jh_now_ms(), &e) == -1 ||
	    jh_ledger_write(fd, l, &e) == -1) {
		logf_("%s: cannot settle: %s", c->id, e.msg);
		goto out;
	}
	c->remaining = jh_ledger_remaining(l);
	c->have_remaining = 1;
	c->held = 0;
	rc = 0;
out:
	close(fd);
	free(l);
	return (rc);
}

/* --- receipts --------------------------------------------------------- */

/* Seals an efficiency/1 core and appends it to the session's log. */
static int
chain_receipt(json_t *o, const char *session)
{
	struct jh_buf core, env, entry;
	struct jh_arena a;
	struct jh_cbor *cc;
	struct jh_log *l = NULL;
	struct jh_err e;
	uint8_t nonce[JH_NONCE_LEN];
	uint64_t ts = jh_now_ms(), cut;
	int rc = -1, locked = 0;

	jh_buf_init(&core);
	jh_buf_init(&env);
	jh_buf_init(&entry);
	jh_arena_init(&a);
	jh_nonce(nonce);
	if (jh_kind_prepare(o, JH_KIND_EFFICIENCY, &O.key, ts, nonce,
	    &e) == -1 || jh_core_build(&core, o, JH_KIND_EFFICIENCY, &O.key,
	    ts, nonce, &e) == -1 || jh_cbor_decode_all(&cc, &a, core.p,
	    core.len, 0, &e) == -1 || jh_kind_check(cc, JH_KIND_EFFICIENCY,
	    &e) == -1 || jh_seal(&env, &O.key, core.p, core.len, &e) == -1)
		goto out;
	if ((l = malloc(sizeof(*l))) == NULL) {
		jh_errf(&e, "out of memory");
		goto out;
	}
	if (jh_log_open(l, O.statedir, NULL, (const uint8_t *)session,
	    strlen(session), 1, &e) == -1) {
		free(l);
		l = NULL;
		goto out;
	}
	if (jh_tflock(l->fd, LOCK_EX, O.wait_ms, &e) == -1)
		goto out;
	locked = 1;
	if (jh_log_head(l, &O.keys, 1, &cut, &e) == -1)
		goto out;
	if (cut > 0)
		logf_("%s: cut a torn tail of %llu bytes", l->name,
		    (unsigned long long)cut);
	if (l->head.count > 0 && (l->slen != strlen(session) ||
	    memcmp(l->session, session, l->slen) != 0)) {
		jh_errf(&e, "%s is another session's log", l->name);
		goto out;
	}
	jh_nonce(nonce);
	if (jh_log_append(l, &O.key, env.p, env.len, cc, jh_now_ms(), nonce,
	    &entry, &e) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		logf_("receipt not chained: %s", e.msg);
	if (l != NULL) {
		if (locked)
			flock(l->fd, LOCK_UN);
		jh_log_close(l);
		free(l);
	}
	jh_arena_free(&a);
	jh_buf_free(&core);
	jh_buf_free(&env);
	jh_buf_free(&entry);
	return (rc);
}

/*
 * The call's end: meter it, settle its hold (synced), chain its receipt
 * and log one line.  Runs once, on the connection's thread.
 */
static void
finish(struct call *c, const char *verdict)
{
	struct jh_sample s1;
	struct jh_energy en;
	struct jh_usage u;
	struct jh_unit x;
	json_t *o;
	uint64_t debit = 0, est_out, dur;
	int reached, estimated, enforced, completed, accepted;
	char b1[32], b2[32], b3[32];

	if (c->finished)
		return;
	c->finished = 1;
	dur = mono_ms() - c->t0;
	memset(&u, 0, sizeof(u));
	memset(&en, 0, sizeof(en));
	en.provenance = "Estimator";
	en.method = "tokens";
	/* Did the request reach the provider?  Not if it never connected. */
	reached = c->forwarded && (c->headers_done || !(c->result ==
	    CURLE_COULDNT_CONNECT || c->result == CURLE_COULDNT_RESOLVE_HOST ||
	    c->result == CURLE_COULDNT_RESOLVE_PROXY ||
	    c->result == CURLE_FAILED_INIT));
	if (c->metered && c->forwarded) {
		if (!c->sse && c->headers_done && !c->copy_lost && c->up_done)
			jh_wire_body(&c->w, c->copy.p, c->copy.len, c->status);
		u = c->w.u;
		estimated = c->w.usage_bad || !u.have_in || !u.have_out ||
		    !c->w.done;
		/* A missing usage is never 0 J: estimate what is missing. */
		if (c->w.usage_bad) {
			memset(&u, 0, sizeof(u));
			est_out = (c->w.text_bytes + 3) / 4;
		} else
			est_out = u.out > (c->w.text_bytes + 3) / 4 ? u.out :
			    (c->w.text_bytes + 3) / 4;
		if (!reached) {
			memset(&u, 0, sizeof(u));
			estimated = 0;
		} else if (estimated) {
			if (!u.have_in)
				u.in = c->in_est;
			if (!c->w.done || !u.have_out)
				u.out = est_out;
		}
		if (O.ladder)
			jh_ladder_sample(&O.lad, &s1);
		else
			s1.t_ns = c->s0.t_ns + dur * 1000000;
		pthread_mutex_lock(&mu);
		if (starts != c->starts_at)
			c->overlapped = 1;
		inflight--;
		pthread_mutex_unlock(&mu);
		jh_ladder_energy(&en, O.ladder && !c->overlapped ? &O.lad :
		    NULL, &c->s0, &s1, 1, jh_tokens_uj(c->fam, &u),
		    O.default_mw);
		debit = en.measured && en.measured_uj > en.estimated_uj ?
		    en.measured_uj : en.estimated_uj;
		if (ledger_settle(c, debit) == -1)
			debit = 0;
		if (verdict == NULL) {
			if (c->client_gone || c->cut || c->idle ||
			    (c->up_done && c->result != CURLE_OK &&
			    c->headers_done) || (c->sse && c->status < 300 &&
			    !c->w.done && c->w.err[0] == '\0'))
				verdict = "partial";
			else if (c->status >= 400 || c->w.err[0] != '\0' ||
			    !c->headers_done)
				verdict = "error";
			else if (estimated)
				verdict = "usage-estimated";
			else
				verdict = "ok";
		}
	} else {
		estimated = 0;
		if (verdict == NULL)
			verdict = !c->metered ? "passed" : "error";
	}
	if (c->note == NULL) {
		if (c->client_gone)
			c->note = "client-disconnected";
		else if (c->cut)
			c->note = "shutdown";
		else if (c->idle)
			c->note = "upstream-idle";
		else if (c->forwarded && !c->headers_done)
			c->note = "upstream-unreachable";
		else if (c->up_done && c->result != CURLE_OK)
			c->note = "upstream-disconnected";
		else if (c->w.err[0] != '\0')
			c->note = c->status >= 400 ? "upstream-error" :
			    "stream-error";
		else if (c->w.usage_bad)
			c->note = "usage-refused";
	}
	completed = c->forwarded && c->w.done && c->w.err[0] == '\0' &&
	    !c->client_gone && !c->cut && c->status < 300;
	accepted = completed && jh_wire_accepted(&c->w);
	enforced = strcmp(verdict, "refused") == 0 ||
	    (!c->clamped && debit <= c->hold);
	if (c->session[0] != '\0' && c->metered) {
		const char *rid = NULL;
		size_t i;

		/* The unit's JSON is lib/meter.c's, as jh-meter prints it. */
		jh_unit_init(&x, c->session, "proxy");
		x.unit = c->w.id[0] ? c->w.id : c->id;
		for (i = 0; i < c->nrh; i++)
			if (strcasecmp(c->rh[i].name, "request-id") == 0 ||
			    strcasecmp(c->rh[i].name, "x-request-id") == 0)
				rid = c->rh[i].value;
		x.request_id = rid;
		x.model = c->w.model[0] ? c->w.model : c->model;
		x.u = u;
		x.accepted = accepted ? u.out : 0;
		x.en = en;
		snprintf(x.coeff, sizeof(x.coeff), "%s%s%s", O.coeffs.id,
		    c->fam ? "#" : "", c->fam ? c->fam->family : "");
		x.duration_ms = dur;
		x.completed = completed;
		x.verdict = verdict;
		x.enforced = enforced;
		x.debited = debit;
		x.grant = c->have_grant ? c->grant_id : NULL;
		x.have_remaining = c->have_remaining;
		x.remaining = c->remaining;
		x.status = c->answered > 0 ? (uint64_t)c->answered : 0;
		x.note = c->note;
		if ((o = jh_unit_json(&x)) != NULL) {
			chain_receipt(o, c->session);
			json_decref(o);
		}
	}
	logf_("%.8s %s %s %d %s%s%s in=%llu out=%llu cr=%llu cw=%llu "
	    "energy=%s%s debit=%s remaining=%s %llu ms",
	    c->session[0] ? c->session : "-", c->route == R_MODELS ? "GET" :
	    "POST", c->path, c->answered, verdict, c->note ? "/" : "",
	    c->note ? c->note : "", (unsigned long long)u.in,
	    (unsigned long long)u.out, (unsigned long long)u.cache_read,
	    (unsigned long long)u.cache_write,
	    joules(b1, sizeof(b1), en.measured ? en.measured_uj :
	    en.estimated_uj), en.measured ? " (measured)" : "",
	    joules(b2, sizeof(b2), debit), c->have_remaining ? joules(b3,
	    sizeof(b3), c->remaining) : "-", (unsigned long long)dur);
}

/* --- upstream --------------------------------------------------------- */

/* Hop-by-hop and framing headers, never passed on either way. */
static const char *const hop[] = { "connection", "keep-alive",
    "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "trailers", "transfer-encoding", "upgrade", "content-length",
    NULL };

static int
in_list(const char *const *l, const char *name, size_t n)
{
	for (; *l != NULL; l++)
		if (strlen(*l) == n && strncasecmp(*l, name, n) == 0)
			return (1);
	return (0);
}

/* Is the header named in the request's Connection header? */
static int
named_by_connection(const char *conn, const char *name)
{
	size_t n = strlen(name);
	const char *p = conn;

	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (strncasecmp(p, name, n) == 0 && (p[n] == '\0' ||
		    p[n] == ',' || p[n] == ' ' || p[n] == '\t'))
			return (1);
		p = strchr(p, ',');
	}
	return (0);
}

struct hdrctx {
	struct call *c;
	const char *conn;
	int oom;
};

/*
 * The client's headers go upstream unchanged (anthropic-version and
 * anthropic-beta always), except hop-by-hop ones, Host (libcurl writes
 * the upstream's), Accept-Encoding (identity is asked, so usage can be
 * read: SECURITY.md X12) and the proxy's own token.  Keys are passed,
 * never logged.
 */
static enum MHD_Result
add_req_header(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	static const char *const drop[] = { "host", "expect",
	    "accept-encoding", "x-joulehook-token", NULL };
	struct hdrctx *x = cls;
	struct curl_slist *l;
	char *line;
	size_t n;

	(void)kind;
	n = strlen(key);
	if (in_list(hop, key, n) || in_list(drop, key, n) ||
	    (x->conn != NULL && named_by_connection(x->conn, key)))
		return (MHD_YES);
	if (value == NULL)
		value = "";
	if ((line = malloc(n + strlen(value) + 3)) == NULL) {
		x->oom = 1;
		return (MHD_NO);
	}
	/* "Name;" is how libcurl sends a header with an empty value. */
	if (*value == '\0')
		sprintf(line, "%s;", key);
	else
		sprintf(line, "%s: %s", key, value);
	if ((l = curl_slist_append(x->c->hdrs, line)) == NULL)
		x->oom = 1;
	else
		x->c->hdrs = l;
	free(line);
	return (x->oom ? MHD_NO : MHD_YES);
}

static size_t
on_header(char *p, size_t sz, size_t nm, void *cls)
{
	struct call *c = cls;
	size_t n = sz * nm, k;
	const char *colon, *v;
	struct rhdr *r;

	c->last_data = mono_ms();
	while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* A new header block (after a 1xx): start over. */
		const char *sp = memchr(p, ' ', n);
		c->status = sp ? atoi(sp + 1) : 0;
		for (k = 0; k < c->nrh; k++) {
			free(c->rh[k].name);
			free(c->rh[k].value);
		}
		c->nrh = 0;
		return (sz * nm);
	}
	if (n == 0) {
		if (c->status >= 200) {
			c->headers_done = 1;
			for (k = 0; k < c->nrh; k++)
				if (strcasecmp(c->rh[k].name,
				    "content-type") == 0 &&
				    strncasecmp(c->rh[k].value,
				    "text/event-stream", 17) == 0)
					c->sse = 1;
			if (c->sse && c->metered)
				jh_sse_init(&c->sse_state, SSE_EVENT_MAX);
		}
		return (sz * nm);
	}
	if ((colon = memchr(p, ':', n)) == NULL || colon == p)
		return (sz * nm);
	k = (size_t)(colon - p);
	if (in_list(hop, p, k) || (k == 4 && strncasecmp(p, "date", 4) == 0))
		return (sz * nm);
	for (v = colon + 1; v < p + n && (*v == ' ' || *v == '\t'); v++)
		;
	if ((r = realloc(c->rh, (c->nrh + 1) * sizeof(*r))) == NULL)
		return (0);
	c->rh = r;
	r = &c->rh[c->nrh];
	r->name = strndup(p, k);
	r->value = strndup(v, (size_t)(p + n - v));
	if (r->name == NULL || r->value == NULL) {
		free(r->name);
		free(r->value);
		return (0);
	}
	c->nrh++;
	return (sz * nm);
}

static int
read_event(void *cls, const char *name, const char *data, size_t n,
    const uint8_t *raw, size_t rn)
{
	struct call *c = cls;

	(void)raw;
	(void)rn;
	if (name != NULL)
		jh_wire_event(&c->w, name, data, n);
	return (0);
}

/* The relay for a stream with an event to hide: whole events. */
static int
relay_event(void *cls, const char *name, const char *data, size_t n,
    const uint8_t *raw, size_t rn)
{
	struct call *c = cls;

	if (name == NULL || jh_wire_event(&c->w, name, data, n))
		jh_buf_add(&c->out, raw, rn);
	return (c->out.oom ? -1 : 0);
}

/*
 * Upstream bytes: into the relay buffer as they arrive, and a copy into
 * the parser.  A client slower than the provider pauses the transfer.
 */
static size_t
on_body(char *p, size_t sz, size_t nm, void *cls)
{
	struct call *c = cls;
	size_t n = sz * nm;

	if (c->out.len - c->out_pos >= OUT_HIGH) {
		c->paused = 1;
		return (CURL_WRITEFUNC_PAUSE);
	}
	c->last_data = mono_ms();
	if (!c->metered)
		jh_buf_add(&c->out, p, n);
	else if (c->sse && c->w.hide_usage) {
		if (jh_sse_feed(&c->sse_state, (const uint8_t *)p, n,
		    relay_event, c) == -1)
			return (0);
	} else if (c->sse) {
		jh_buf_add(&c->out, p, n);
		if (jh_sse_feed(&c->sse_state, (const uint8_t *)p, n,
		    read_event, c) == -1)
			return (0);
	} else {
		jh_buf_add(&c->out, p, n);
		if (!c->copy_lost && c->copy.len + n > COPY_MAX) {
			c->copy_lost = 1;
			jh_buf_free(&c->copy);
		} else if (!c->copy_lost)
			jh_buf_add(&c->copy, p, n);
	}
	return (c->out.oom ? 0 : n);
}

/*
 * Drives the transfer on this thread until there is something to relay
 * (or, with for_headers, until the status and headers are in), or it
 * ends.  Returns -1 when the client went away, the upstream went quiet
 * for too long, or the proxy is cutting calls short.
 */
static int
pump(struct call *c, int for_headers)
{
	struct curl_waitfd wfd;
	CURLMsg *msg;
	char b;
	ssize_t r;
	int running, left, n;

	for (;;) {
		curl_multi_perform(c->up.m, &running);
		while ((msg = curl_multi_info_read(c->up.m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE) {
				c->up_done = 1;
				c->result = msg->data.result;
			}
		if (c->up_done || (for_headers ? c->headers_done :
		    c->out.len > c->out_pos))
			return (0);
		if (atomic_load(&stopping) == 2) {
			c->cut = 1;
			return (-1);
		}
		if (O.idle_ms > 0 && mono_ms() - c->last_data > O.idle_ms) {
			c->idle = 1;
			return (-1);
		}
		memset(&wfd, 0, sizeof(wfd));
		wfd.fd = c->client_fd;
		wfd.events = CURL_WAIT_POLLIN;
		n = 0;
		curl_multi_poll(c->up.m, c->watch_client ? &wfd : NULL,
		    c->watch_client ? 1 : 0, 200, &n);
		if (c->watch_client && (wfd.revents & CURL_WAIT_POLLIN)) {
			/* Readable: the client hung up, or sent more. */
			r = recv(c->client_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
			if (r == 0 || (r == -1 && errno != EAGAIN &&
			    errno != EWOULDBLOCK && errno != EINTR)) {
				c->client_gone = 1;
				return (-1);
			}
			if (r > 0)
				c->watch_client = 0;
		}
	}
}

/* MHD's content reader: relays what is there, pumping for more. */
static ssize_t
relay(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct call *c = cls;
	size_t n;
	int clean;

	(void)pos;
	for (;;) {
		if (c->out.len > c->out_pos) {
			n = c->out.len - c->out_pos;
			if (n > max)
				n = max;
			memcpy(buf, c->out.p + c->out_pos, n);
			c->out_pos += n;
			if (c->out_pos == c->out.len)
				c->out.len = c->out_pos = 0;
			if (c->paused && c->out.len - c->out_pos < OUT_HIGH / 2) {
				c->paused = 0;
				curl_easy_pause(c->up.h, CURLPAUSE_CONT);
			}
			return ((ssize_t)n);
		}
		if (c->up_done) {
			clean = c->result == CURLE_OK;
			finish(c, NULL);
			return (clean ? MHD_CONTENT_READER_END_OF_STREAM :
			    MHD_CONTENT_READER_END_WITH_ERROR);
		}
		if (pump(c, 0) == -1) {
			finish(c, NULL);
			return (MHD_CONTENT_READER_END_WITH_ERROR);
		}
	}
}

static void
up_get(struct call *c)
{
	pthread_mutex_lock(&mu);
	if (npool > 0)
		c->up = pool[--npool];
	pthread_mutex_unlock(&mu);
	if (c->up.m == NULL) {
		c->up.m = curl_multi_init();
		c->up.h = curl_easy_init();
	} else
		curl_easy_reset(c->up.h);
}

/* Back to the pool: the multi handle keeps its live connections. */
static void
up_put(struct call *c)
{
	if (c->up.m == NULL)
		return;
	curl_multi_remove_handle(c->up.m, c->up.h);
	pthread_mutex_lock(&mu);
	if (npool < POOL_MAX && c->up.h != NULL) {
		pool[npool++] = c->up;
		c->up.m = NULL;
	}
	pthread_mutex_unlock(&mu);
	if (c->up.m != NULL) {
		curl_easy_cleanup(c->up.h);
		curl_multi_cleanup(c->up.m);
	}
	memset(&c->up, 0, sizeof(c->up));
}

static void
call_free(struct call *c)
{
	size_t i;

	up_put(c);
	curl_slist_free_all(c->hdrs);
	for (i = 0; i < c->nrh; i++) {
		free(c->rh[i].name);
		free(c->rh[i].value);
	}
	free(c->rh);
	if (c->sse && c->metered && c->headers_done)
		jh_sse_free(&c->sse_state);
	jh_buf_free(&c->body);
	jh_buf_free(&c->out);
	jh_buf_free(&c->copy);
	free(c->fwd);
	free(c->uri);
	free(c);
}

/* --- the listener ----------------------------------------------------- */

static enum MHD_Result
respond(struct call *c, int status, const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return (MHD_NO);
	if (len > 0)
		MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c->con, (unsigned int)status, r);
	MHD_destroy_response(r);
	c->answered = status;
	c->done = 1;
	return (ret);
}

/* An answer of our own, in the shape of the API the client speaks. */
static enum MHD_Result
reply_error(struct call *c, int status, const char *type, const char *msg)
{
	struct jh_buf b;
	enum MHD_Result r;

	jh_buf_init(&b);
	jh_wire_error(&b, c->api, type, msg);
	r = b.oom ? MHD_NO : respond(c, status, (const char *)b.p, b.len);
	jh_buf_free(&b);
	return (r);
}

/* The type that goes with each refusal status in Anthropic's shape. */
static const char *
refusal_type(struct call *c, int budget)
{
	if (c->api != JH_API_ANTHROPIC)
		return (budget ? "budget_exceeded" : "permission_denied");
	switch (O.refuse_status) {
	case 402:
		return ("billing_error");
	case 403:
		return ("permission_error");
	default:
		return ("invalid_request_error");
	}
}

static enum MHD_Result
refuse(struct call *c, int budget, const char *note, const char *msg)
{
	enum MHD_Result r;

	r = reply_error(c, O.refuse_status, refusal_type(c, budget), msg);
	c->note = note;
	finish(c, "refused");
	return (r);
}

static int
session_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > SESSION_MAX)
		return (0);
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == ':' || s[i] == '-'))
			return (0);
	return (1);
}

/*
 * A session seen before, or a new one within the rate of new logs
 * (SECURITY.md S13: a caller cannot create one log file per invented id
 * at will).
 */
static int
session_admit(const char *s)
{
	uint8_t h[16];
	uint64_t now = mono_ms();
	size_t i;
	int ok = 0;

	crypto_generichash(h, sizeof(h), (const uint8_t *)s, strlen(s),
	    NULL, 0);
	pthread_mutex_lock(&mu);
	for (i = 0; i < nsess; i++)
		if (memcmp(sessions[i].h, h, sizeof(h)) == 0) {
			ok = 1;
			goto out;
		}
	bucket += (double)(now - bucket_ms) * O.newlogs / 60000.0;
	if (bucket > O.newlogs)
		bucket = O.newlogs;
	bucket_ms = now;
	if (bucket < 1.0)
		goto out;
	bucket -= 1.0;
	if (nsess == capsess) {
		size_t nc = capsess ? capsess * 2 : 256;
		struct sess *x;
		if (nc > 65536)
			nsess = 0;	/* forget; the limit still holds */
		else if ((x = realloc(sessions, nc * sizeof(*x))) != NULL) {
			sessions = x;
			capsess = nc;
		} else
			goto out;
	}
	memcpy(sessions[nsess++].h, h, sizeof(h));
	ok = 1;
out:
	pthread_mutex_unlock(&mu);
	return (ok);
}

/* Reads an optional token count: 1 read, 0 absent, -1 not a count. */
static int
tokens_field(const json_t *o, const char *k, uint64_t *v)
{
	json_t *j = json_object_get(o, k);

	if (j == NULL || json_is_null(j))
		return (0);
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > JH_TOKENS_MAX)
		return (-1);
	*v = (uint64_t)json_integer_value(j);
	return (1);
}

/*
 * The worst case of a call, labelled an estimate: the input at bytes / 4
 * tokens at the dearer of the input and cache-write coefficients, plus
 * the most output the request allows at the output coefficient, clamped
 * by -c.  A request that names no output limit is held at -m tokens,
 * which is not a true worst case.
 */
static int
worst_case(struct call *c, json_t *req, char *why, size_t sz)
{
	uint64_t out = 0, n = 1, cin;
	int r;

	switch (c->api) {
	case JH_API_ANTHROPIC:
		r = tokens_field(req, "max_tokens", &out);
		break;
	case JH_API_CHAT:
		if ((r = tokens_field(req, "max_completion_tokens", &out)) == 0)
			r = tokens_field(req, "max_tokens", &out);
		if (r >= 0 && tokens_field(req, "n", &n) == -1)
			r = -1;
		if (n == 0)
			n = 1;
		break;
	default:
		r = tokens_field(req, "max_output_tokens", &out);
		break;
	}
	if (r == -1) {
		snprintf(why, sz, "the output token limit is not a count");
		return (-1);
	}
	if (r == 0) {
		out = O.default_out;
		c->clamped = 1;
	}
	c->out_worst = jh_mul_sat(out, n);
	c->in_est = (c->body.len + 3) / 4;
	cin = c->fam->cache_write > c->fam->in ? c->fam->cache_write :
	    c->fam->in;
	c->worst = jh_add_sat(jh_mul_sat(c->in_est, cin),
	    jh_mul_sat(c->out_worst, c->fam->out));
	c->hold = c->worst;
	if (O.cap_uj > 0 && c->worst > O.cap_uj) {
		c->hold = O.cap_uj;
		c->clamped = 1;
	}
	return (0);
}

static enum MHD_Result
forward(struct call *c)
{
	const union MHD_ConnectionInfo *ci;
	struct MHD_Response *r;
	struct hdrctx x;
	char *url;
	size_t i, ul;
	enum MHD_Result ret;

	/* Until the transfer is started, nothing has gone upstream. */
	c->result = CURLE_FAILED_INIT;
	up_get(c);
	if (c->up.m == NULL || c->up.h == NULL)
		return (reply_error(c, 500, "api_error", "joulehook: out of "
		    "memory"));
	ul = strlen(O.upstream) + strlen(c->uri) + 1;
	if ((url = malloc(ul)) == NULL)
		return (MHD_NO);
	snprintf(url, ul, "%s%s", O.upstream, c->uri);
	memset(&x, 0, sizeof(x));
	x.c = c;
	x.conn = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "Connection");
	MHD_get_connection_values(c->con, MHD_HEADER_KIND, add_req_header, &x);
	c->hdrs = curl_slist_append(c->hdrs, "Accept-Encoding: identity");
	c->hdrs = curl_slist_append(c->hdrs, "Expect:");
	curl_easy_setopt(c->up.h, CURLOPT_URL, url);
	free(url);
	curl_easy_setopt(c->up.h, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(c->up.h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->up.h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(c->up.h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c->up.h, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	curl_easy_setopt(c->up.h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->up.h, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(c->up.h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c->up.h, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(c->up.h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->up.h, CURLOPT_WRITEDATA, c);
	if (c->route == R_MODELS)
		curl_easy_setopt(c->up.h, CURLOPT_HTTPGET, 1L);
	else {
		curl_easy_setopt(c->up.h, CURLOPT_POST, 1L);
		curl_easy_setopt(c->up.h, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(c->fwd ? c->fwdlen : c->body.len));
		curl_easy_setopt(c->up.h, CURLOPT_POSTFIELDS, c->fwd ? c->fwd :
		    (c->body.len ? (char *)c->body.p : ""));
	}
	if (x.oom || curl_multi_add_handle(c->up.m, c->up.h) != CURLM_OK)
		return (reply_error(c, 500, "api_error", "joulehook: cannot "
		    "start the upstream call"));
	c->result = CURLE_OK;
	ci = MHD_get_connection_info(c->con,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	c->client_fd = ci ? ci->connect_fd : -1;
	c->watch_client = c->client_fd >= 0;
	c->last_data = mono_ms();
	if (pump(c, 1) == -1) {
		finish(c, NULL);
		return (MHD_NO);
	}
	if (!c->headers_done) {
		char msg[CURL_ERROR_SIZE + 64];
		snprintf(msg, sizeof(msg), "joulehook: the upstream did not "
		    "answer: %s", c->curl_err[0] ? c->curl_err :
		    curl_easy_strerror(c->result));
		ret = reply_error(c, 502, c->api == JH_API_ANTHROPIC ?
		    "api_error" : "server_error", msg);
		finish(c, NULL);
		return (ret);
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024,
	    relay, c, NULL);
	if (r == NULL)
		return (MHD_NO);
	for (i = 0; i < c->nrh; i++)
		MHD_add_response_header(r, c->rh[i].name, c->rh[i].value);
	c->answered = c->status;
	ret = MHD_queue_response(c->con, (unsigned int)c->status, r);
	MHD_destroy_response(r);
	c->done = 1;
	return (ret);
}

/* The whole request is in: decide, hold, forward. */
static enum MHD_Result
dispatch(struct call *c)
{
	json_t *req, *v;
	char why[512], msg[1024], b1[32], b2[32];
	int r;

	if (c->too_big) {
		c->note = "body-too-large";
		r = reply_error(c, 413, c->api == JH_API_ANTHROPIC ?
		    "request_too_large" : "invalid_request_error",
		    "joulehook: the request body is larger than this proxy "
		    "accepts");
		finish(c, "error");
		return (r);
	}
	if (!c->metered)
		return (forward(c));
	req = json_loadb((const char *)c->body.p, c->body.len, 0, NULL);
	if (!json_is_object(req)) {
		json_decref(req);
		c->note = "malformed-body";
		r = reply_error(c, 400, "invalid_request_error", "joulehook: "
		    "the request body is not a JSON object");
		finish(c, "error");
		return (r);
	}
	if (json_is_string(v = json_object_get(req, "model")))
		snprintf(c->model, sizeof(c->model), "%s",
		    json_string_value(v));
	c->fam = jh_coeffs_find(&O.coeffs, c->model);
	c->client_stream = json_is_true(json_object_get(req, "stream"));
	if (worst_case(c, req, why, sizeof(why)) == -1) {
		json_decref(req);
		c->note = "malformed-body";
		snprintf(msg, sizeof(msg), "joulehook: %s", why);
		r = reply_error(c, 400, "invalid_request_error", msg);
		finish(c, "error");
		return (r);
	}
	/* Usage on a Chat Completions stream must be asked for. */
	if (c->api == JH_API_CHAT && c->client_stream) {
		json_t *so = json_object_get(req, "stream_options");
		if (!json_is_object(so) ||
		    !json_is_true(json_object_get(so, "include_usage"))) {
			if (!json_is_object(so)) {
				so = json_object();
				json_object_set_new(req, "stream_options", so);
			}
			json_object_set_new(so, "include_usage", json_true());
			c->w.hide_usage = 1;
			c->fwd = json_dumps(req, JSON_COMPACT);
			c->fwdlen = c->fwd ? strlen(c->fwd) : 0;
			if (c->fwd == NULL) {
				json_decref(req);
				return (MHD_NO);
			}
		}
	}
	json_decref(req);
	if ((r = grant_check(c, why, sizeof(why))) != 0) {
		snprintf(msg, sizeof(msg), "joulehook: no model call is granted: "
		    "%s", why);
		return (refuse(c, 0, "grant", msg));
	}
	if ((r = ledger_hold(c, why, sizeof(why))) != 0) {
		if (r == -1 && strstr(why, "too many open holds") != NULL) {
			/* Busy, not spent: an answer the client retries. */
			c->note = "ledger-full";
			r = reply_error(c, c->api == JH_API_ANTHROPIC ? 529 : 503,
			    c->api == JH_API_ANTHROPIC ? "overloaded_error" :
			    "server_error", "joulehook: too many calls in flight "
			    "on this grant; try again");
			finish(c, "refused");
			return (r);
		}
		if (r == -1) {
			snprintf(msg, sizeof(msg), "joulehook: the joule budget "
			    "cannot be checked: %s", why);
			return (refuse(c, 0, "ledger", msg));
		}
		snprintf(msg, sizeof(msg), "joulehook: the joule budget is "
		    "spent: this call could use up to %s (an estimate) and the "
		    "grant has %s left. Ask for a new grant, or a lower "
		    "max_tokens.", joules(b1, sizeof(b1), c->hold),
		    joules(b2, sizeof(b2), c->remaining));
		return (refuse(c, 1, "budget", msg));
	}
	pthread_mutex_lock(&mu);
	c->overlapped = inflight > 0;
	inflight++;
	c->starts_at = ++starts;
	pthread_mutex_unlock(&mu);
	if (O.ladder)
		jh_ladder_sample(&O.lad, &c->s0);
	else
		c->s0.t_ns = mono_ms() * 1000000;
	return (forward(c));
}

/* The caller presents the install's token, or came over the socket. */
static int
authorized(struct call *c)
{
	const union MHD_ConnectionInfo *ci;
	const char *t;

	ci = MHD_get_connection_info(c->con,
	    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (O.unixpath != NULL || (ci != NULL && ci->client_addr != NULL &&
	    ci->client_addr->sa_family == AF_UNIX))
		return (1);
	t = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "X-Joulehook-Token");
	return (t != NULL && strlen(t) == O.toklen &&
	    sodium_memcmp(t, O.token, O.toklen) == 0);
}

static enum MHD_Result
begin(struct call *c, const char *method)
{
	static const char *const sess_hdr[] = { "X-Claude-Code-Session-Id",
	    "X-Joulehook-Session", "session-id", "x-session-id", NULL };
	const char *q, *s, *cl;
	size_t n, i;
	uint64_t now;
	int post = strcmp(method, "POST") == 0;
	int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;

	q = strchr(c->uri, '?');
	n = q ? (size_t)(q - c->uri) : strlen(c->uri);
	if (n >= sizeof(c->path))
		n = sizeof(c->path) - 1;
	memcpy(c->path, c->uri, n);
	c->path[n] = '\0';
	c->api = JH_API_ANTHROPIC;
	if (get && (strcmp(c->path, "/") == 0 ||
	    strcmp(c->path, "/api/hello") == 0))
		return (respond(c, 200, "", 0));
	if (post && strcmp(c->path, "/v1/messages") == 0)
		c->route = R_MESSAGES;
	else if (post && strcmp(c->path, "/v1/messages/count_tokens") == 0)
		c->route = R_COUNT;
	else if (get && (strcmp(c->path, "/v1/models") == 0 ||
	    strncmp(c->path, "/v1/models/", 11) == 0))
		c->route = R_MODELS;
	else if (post && strcmp(c->path, "/v1/chat/completions") == 0) {
		c->route = R_CHAT;
		c->api = JH_API_CHAT;
	} else if (post && strcmp(c->path, "/v1/responses") == 0) {
		c->route = R_RESPONSES;
		c->api = JH_API_RESPONSES;
	}
	c->w.api = c->api;
	if (!authorized(c)) {
		now = mono_ms();
		pthread_mutex_lock(&mu);
		if (now - last_authlog >= 1000) {
			last_authlog = now;
			pthread_mutex_unlock(&mu);
			logf_("refused a caller without the token: %s %.64s",
			    method, c->path);
		} else
			pthread_mutex_unlock(&mu);
		return (reply_error(c, 401, c->api == JH_API_ANTHROPIC ?
		    "authentication_error" : "invalid_api_key", "joulehook: "
		    "this proxy needs its X-Joulehook-Token header"));
	}
	if (c->route == R_NONE)
		return (reply_error(c, 404, c->api == JH_API_ANTHROPIC ?
		    "not_found_error" : "not_found", "joulehook: no such route "
		    "through this proxy"));
	if (atomic_load(&stopping))
		return (reply_error(c, 529, "overloaded_error", "joulehook: "
		    "the proxy is stopping"));
	c->metered = c->route == R_MESSAGES || c->route == R_CHAT ||
	    c->route == R_RESPONSES;
	if (c->metered) {
		s = NULL;
		for (i = 0; sess_hdr[i] != NULL && s == NULL; i++)
			s = MHD_lookup_connection_value(c->con,
			    MHD_HEADER_KIND, sess_hdr[i]);
		if (s == NULL)
			s = O.session;
		if (!session_ok(s))
			return (reply_error(c, 400, "invalid_request_error",
			    "joulehook: the session id must be 1 to 128 of "
			    "A-Z a-z 0-9 . _ : -"));
		if (!session_admit(s))
			return (reply_error(c, O.refuse_status,
			    refusal_type(c, 0), "joulehook: too many new "
			    "sessions this minute"));
		snprintf(c->session, sizeof(c->session), "%s", s);
		pthread_mutex_lock(&mu);
		snprintf(c->id, sizeof(c->id), "jhp-%ld-%llu", (long)getpid(),
		    (unsigned long long)++seq);
		pthread_mutex_unlock(&mu);
	}
	cl = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "Content-Length");
	if (cl != NULL && strtoull(cl, NULL, 10) > O.maxbody) {
		c->too_big = 1;
		return (dispatch(c));
	}
	return (MHD_YES);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *con, const char *url,
    const char *method, const char *version, const char *up, size_t *upsz,
    void **ptr)
{
	struct call *c = *ptr;

	(void)cls;
	(void)url;
	(void)version;
	if (c == NULL)
		return (MHD_NO);
	c->con = con;
	if (!c->started) {
		c->started = 1;
		pthread_mutex_lock(&mu);
		active++;
		pthread_mutex_unlock(&mu);
		return (begin(c, method));
	}
	if (*upsz > 0) {
		if (!c->too_big && !c->done) {
			if (c->body.len + *upsz > O.maxbody) {
				c->too_big = 1;
				jh_buf_free(&c->body);
				jh_buf_init(&c->body);
			} else
				jh_buf_add(&c->body, up, *upsz);
		}
		*upsz = 0;
		return (MHD_YES);
	}
	if (c->done)
		return (MHD_YES);
	if (c->body.oom)
		return (MHD_NO);
	return (dispatch(c));
}

static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct call *c;

	(void)cls;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (NULL);
	if ((c->uri = strdup(uri)) == NULL) {
		free(c);
		return (NULL);
	}
	c->con = con;
	c->t0 = mono_ms();
	c->client_fd = -1;
	jh_buf_init(&c->body);
	jh_buf_init(&c->out);
	jh_buf_init(&c->copy);
	return (c);
}

static void
on_completed(void *cls, struct MHD_Connection *con, void **ptr,
    enum MHD_RequestTerminationCode toe)
{
	struct call *c = *ptr;

	(void)cls;
	(void)con;
	if (c == NULL)
		return;
	if (c->started) {
		pthread_mutex_lock(&mu);
		active--;
		pthread_mutex_unlock(&mu);
	}
	if (!c->finished && c->metered && c->session[0] != '\0' &&
	    c->started) {
		if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
			c->client_gone = !c->up_done;
		if (toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN)
			c->cut = 1;
		finish(c, NULL);
	}
	call_free(c);
	*ptr = NULL;
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char m[512];
	size_t n;

	(void)cls;
	vsnprintf(m, sizeof(m), fmt, ap);
	n = strlen(m);
	while (n > 0 && m[n - 1] == '\n')
		m[--n] = '\0';
	logf_("libmicrohttpd: %s", m);
}

/* --- main ------------------------------------------------------------- */

static void
curl_lock_none(CURL *h, curl_lock_data d, curl_lock_access a, void *u)
{
	(void)h;
	(void)d;
	(void)a;
	(void)u;
}

/* A TCP socket on addr:port ("127.0.0.1:8177", "[::1]:8177"). */
static int
listen_tcp(const char *spec, char *shown, size_t sz)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[256], *colon;
	const char *h;
	unsigned long port;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (strlen(spec) >= sizeof(host))
		errx(2, "-l %s: too long", spec);
	strcpy(host, spec);
	if ((colon = strrchr(host, ':')) == NULL)
		errx(2, "-l wants addr:port");
	*colon = '\0';
	port = strtoul(colon + 1, NULL, 10);
	if (port > 65535 || colon[1] == '\0')
		errx(2, "-l %s: bad port", spec);
	h = host;
	if (h[0] == '[' && h[strlen(h) - 1] == ']') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		host[strlen(host) - 1] = '\0';
		h++;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, h, &s6->sin6_addr) != 1)
			errx(2, "-l %s: not an address", spec);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, h, &s4->sin_addr) != 1)
			errx(2, "-l %s: not an address", spec);
		sl = sizeof(*s4);
	}
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1)
		err(2, "-l %s", spec);
	if (listen(fd, 128) == -1)
		err(2, "listen");
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6)
		snprintf(shown, sz, "[%s]:%u", h, ntohs(((struct sockaddr_in6 *)
		    &ss)->sin6_port));
	else
		snprintf(shown, sz, "%s:%u", h, ntohs(((struct sockaddr_in *)
		    &ss)->sin_port));
	return (fd);
}

/*
 * A Unix socket only the user can connect to (mode 0700, SECURITY.md
 * S13): bound under a umask that leaves no window with a wider mode.  A
 * stale socket left by a killed proxy is replaced; anything else there
 * is refused.
 */
static int
listen_unix(const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		errx(2, "-U %s: path too long", path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			errx(2, "-U %s: exists and is not a socket", path);
		unlink(path);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	old = umask(077);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		err(2, "-U %s", path);
	umask(old);
	if (chmod(path, 0700) == -1 || listen(fd, 128) == -1)
		err(2, "-U %s", path);
	return (fd);
}

static void
load_token(void)
{
	char buf[256];
	ssize_t n;
	int fd;

	if ((fd = open(O.tokenfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		err(2, "%s (the per-install token; jh-install -M makes one)",
		    O.tokenfile);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		errx(2, "%s: empty", O.tokenfile);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
	    buf[n - 1] == ' '))
		n--;
	if (n < 16 || (size_t)n >= sizeof(O.token))
		errx(2, "%s: a token is 16 to 64 characters", O.tokenfile);
	memcpy(O.token, buf, (size_t)n);
	O.token[n] = '\0';
	O.toklen = (size_t)n;
	sodium_memzero(buf, sizeof(buf));
}

static uint64_t
num(const char *s, uint64_t max, int opt)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > max)
		errx(2, "-%c %s: not a number up to %llu", opt, s,
		    (unsigned long long)max);
	return (v);
}

static void
defaults(void)
{
	const char *home, *st;

	home = jh_home(O.homebuf, sizeof(O.homebuf));
	st = O.statedir ? O.statedir : jh_state(O.statebuf, sizeof(O.statebuf));
	if (home == NULL || st == NULL)
		errx(2, "no JH_HOME/JH_STATE and no HOME");
	O.statedir = st;
#define DEF(f, buf, dir, name) do { if ((f) == NULL) { \
	snprintf((buf), sizeof(buf), "%s/%s", (dir), (name)); (f) = (buf); } \
	} while (0)
	DEF(O.ledgerdir, O.ledgerbuf, st, "ledger");
	DEF(O.trustfile, O.trustbuf, home, "trust");
	DEF(O.revdir, O.revbuf, home, "revoked");
	DEF(O.keyfile, O.keybuf, home, "steward.key");
	DEF(O.grantfile, O.grantbuf, home, "grant");
	DEF(O.tokenfile, O.tokbuf, home, "proxy.token");
	if (O.stewards == NULL) {
		snprintf(O.stewbuf, sizeof(O.stewbuf), "%s/stewards", home);
		if (access(O.stewbuf, F_OK) == 0)
			O.stewards = O.stewbuf;
	}
#undef DEF
	if (O.coeffile == NULL && (O.coeffile = jh_coeffs_path(O.coefbuf,
	    sizeof(O.coefbuf))) == NULL)
		errx(2, "cannot find coefficients.json beside the program; "
		    "give -C");
}

int
main(int argc, char *argv[])
{
	struct rlimit rl = { 0, 0 };
	struct MHD_Daemon *d;
	struct jh_ladder_cfg lc;
	struct jh_err e;
	CURLSH *share;
	sigset_t ss, ts;
	char shown[300];
	uint64_t t0;
	int ch, fd, sig, i;

	O.maxbody = DEFAULT_BODY;
	O.default_out = DEFAULT_OUT;
	O.idle_ms = DEFAULT_IDLE * 1000ULL;
	O.newlogs = DEFAULT_NEWLOGS;
	O.wait_ms = 5000;
	O.host = "claude-code";
	O.refuse_status = 402;
	setrlimit(RLIMIT_CORE, &rl);
	/* One line: tests/man.bats reads the option string from here. */
	while ((ch = getopt(argc, argv, "b:C:c:Eg:H:hi:k:L:l:m:n:P:R:S:s:T:t:U:u:w:")) != -1) {
		switch (ch) {
		case 'b':
			O.maxbody = (size_t)num(optarg, JH_MAX_RECORD * 16ULL,
			    ch);
			break;
		case 'C':
			O.coeffile = optarg;
			break;
		case 'c':
			O.cap_uj = num(optarg, UINT64_MAX, ch);
			break;
		case 'E':
			O.ladder = 1;
			break;
		case 'g':
			O.grantfile = optarg;
			break;
		case 'H':
			O.host = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'i':
			O.idle_ms = num(optarg, 86400, ch) * 1000;
			break;
		case 'k':
			O.keyfile = optarg;
			break;
		case 'L':
			O.ledgerdir = optarg;
			break;
		case 'l':
			O.listen = optarg;
			break;
		case 'm':
			O.default_out = num(optarg, JH_TOKENS_MAX, ch);
			break;
		case 'n':
			O.newlogs = (unsigned)num(optarg, 1000000, ch);
			break;
		case 'P':
			O.calibrated_mw = num(optarg, 100000000, ch);
			break;
		case 'R':
			O.revdir = optarg;
			break;
		case 'S':
			O.statedir = optarg;
			break;
		case 's':
			O.stewards = optarg;
			break;
		case 'T':
			O.tokenfile = optarg;
			break;
		case 't':
			O.trustfile = optarg;
			break;
		case 'U':
			O.unixpath = optarg;
			break;
		case 'u':
			O.upstream = optarg;
			break;
		case 'w':
			O.wait_ms = (unsigned)num(optarg, 600000, ch);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind != argc || O.upstream == NULL ||
	    (O.listen != NULL && O.unixpath != NULL))
		usage(stderr, 2);
	if (strncmp(O.upstream, "http://", 7) != 0 &&
	    strncmp(O.upstream, "https://", 8) != 0)
		errx(2, "-u %s: an http:// or https:// URL", O.upstream);
	{
		/* The raw request path is appended: no trailing slash. */
		static char up[2048];
		size_t n = strlen(O.upstream);
		if (n >= sizeof(up))
			errx(2, "-u: too long");
		memcpy(up, O.upstream, n + 1);
		while (n > 8 && up[n - 1] == '/')
			up[--n] = '\0';
		O.upstream = up;
	}
#ifdef JH_TESTING
	{
		const char *s = getenv("JH_PROXY_REFUSE_STATUS");
		if (s != NULL && *s != '\0')
			O.refuse_status = atoi(s);
	}
#endif
	if (O.listen == NULL && O.unixpath == NULL)
		O.listen = DEFAULT_LISTEN;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	defaults();
	if (O.listen != NULL)
		load_token();
	if (jh_coeffs_load(&O.coeffs, O.coeffile, &e) == -1)
		errx(2, "%s", e.msg);
	if (jh_key_load(&O.key, O.keyfile, NULL, NULL, &e) == -1)
		errx(2, "%s", e.msg);
	if (O.key.role != JH_ROLE_STEWARD)
		errx(2, "%s is an %s key; receipts are signed by a steward key",
		    O.keyfile, jh_role_name(O.key.role));
	jh_keyset_init(&O.keys);
	jh_keyset_add(&O.keys, O.key.pk, JH_ROLE_STEWARD);
	if (O.stewards != NULL && jh_keyset_load(&O.keys, O.stewards,
	    JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);
	jh_keyset_init(&G.trust);
	memset(&lc, 0, sizeof(lc));
	lc.calibrated_mw = O.calibrated_mw;
	lc.thread_uw = O.coeffs.thread_uw;
	jh_ladder_cfg_env(&lc);
	if (O.ladder) {
		jh_ladder_open(&O.lad, &lc);
		for (i = 0; i < JH_RUNGS; i++)
			logf_("energy: %s %s: %s", jh_rung_name(i),
			    i == O.lad.selected ? "selected" : O.lad.live[i] ?
			    "live" : "declined", O.lad.why[i]);
	} else {
		long th = sysconf(_SC_NPROCESSORS_ONLN);
		O.default_mw = (uint64_t)(th > 0 ? th : 1) *
		    O.coeffs.thread_uw / 1000;
	}
	t0 = jh_now_ms();
	snprintf(O.session, sizeof(O.session), "jh-proxy-%ld-%llu",
	    (long)getpid(), (unsigned long long)t0);
	/* The proxy's own session is known from the start. */
	bucket = 1;
	bucket_ms = mono_ms();
	session_admit(O.session);
	bucket = O.newlogs;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		errx(2, "libcurl failed to initialise");
	(void)share;
	(void)curl_lock_none;

	/* Signals: SIGTERM and SIGINT are taken by this thread only. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	ts = ss;
	sigaddset(&ts, SIGRTMIN + 4);	/* jh_tflock's, unblocked per wait */
	pthread_sigmask(SIG_BLOCK, &ts, NULL);

	fd = O.unixpath ? listen_unix(O.unixpath) : listen_tcp(O.listen,
	    shown, sizeof(shown));
	if (O.unixpath)
		snprintf(shown, sizeof(shown), "%s", O.unixpath);
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_POLL |
	    MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)512,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)600,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
	    MHD_OPTION_END);
	if (d == NULL)
		errx(2, "cannot start the listener on %s", shown);
	logf_("listening on %s%s, forwarding to %s; grant %s; coefficients "
	    "%s", O.unixpath ? "unix:" : "", shown, O.upstream, O.grantfile,
	    O.coeffs.id);

	do {
		if (sigwait(&ss, &sig) != 0)
			sig = SIGTERM;
	} while (sig != SIGTERM && sig != SIGINT);
	atomic_store(&stopping, 1);
	pthread_mutex_lock(&mu);
	logf_("stopping: %llu call%s in flight", (unsigned long long)inflight,
	    inflight == 1 ? "" : "s");
	pthread_mutex_unlock(&mu);
	if ((fd = MHD_quiesce_daemon(d)) != -1)
		close(fd);
	if (O.unixpath)
		unlink(O.unixpath);
	/*
	 * Calls being answered finish, settle and reach their client; after
	 * the grace, what is left is cut short, settled and sealed partial.
	 */
	for (i = 0; i < GRACE_S * 20; i++) {
		uint64_t n;
		pthread_mutex_lock(&mu);
		n = active;
		pthread_mutex_unlock(&mu);
		if (n == 0)
			break;
		usleep(50000);
	}
	atomic_store(&stopping, 2);
	MHD_stop_daemon(d);
	for (i = 0; i < (int)npool; i++) {
		curl_easy_cleanup(pool[i].h);
		curl_multi_cleanup(pool[i].m);
	}
	curl_global_cleanup();
	if (G.loaded)
		jh_grant_free(&G.g);
	jh_keyset_free(&G.trust);
	jh_keyset_free(&O.keys);
	jh_key_wipe(&O.key);
	jh_coeffs_free(&O.coeffs);
	if (O.ladder)
		jh_ladder_close(&O.lad);
	free(sessions);
	sodium_memzero(O.token, sizeof(O.token));
	logf_("stopped");
	return (0);
}
