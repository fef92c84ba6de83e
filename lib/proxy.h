/*
 * jh-proxy's parts (jh-proxy(1)): what its files share.
 *
 *   bin/jh-proxy.c	options and their defaults, the listening socket,
 *			signals, the listener's start and its graceful stop;
 *			main makes the one struct jh_px
 *   lib/proxyserve.c	the listener's handlers (libmicrohttpd): admit the
 *			caller and its session, route the request, read and
 *			scan its body for the worst case, decide, hold,
 *			forward; refusals in the API's own shape
 *   lib/proxyhold.c	a call's account: the grant check, the ledger hold
 *			and its settlement, the hold/1 and efficiency/1
 *			receipts, the line logged
 *   lib/proxyup.c	the upstream call (libcurl, a pooled handle pair a
 *			call) and the relay of its answer as it arrives
 *   lib/wire.c		the model APIs' wire formats (wire.h): SSE framing,
 *			usage, ids and error shapes
 *   lib/sealunit.c	a receipt sealed and chained in-process, its fsync
 *			shared by calls that end together (sealunit.h)
 *
 * The proxy's files are in lib/ so that tests/fuzz/fuzz-sse.c links them
 * as it links the rest of the library; only jh-proxy's program links
 * them, so only it maps libcurl and libmicrohttpd.  The state is one
 * struct jh_px, passed to every libmicrohttpd callback as its cls and
 * reached from a call as c->px (libcurl's callbacks get the call); the
 * files keep no mutable state of their own.
 */
#ifndef JH_PROXY_H
#define JH_PROXY_H

#include <sys/stat.h>

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>
#include <microhttpd.h>

#include "buf.h"
#include "decide.h"
#include "energy.h"
#include "jh.h"
#include "keys.h"
#include "util.h"
#include "wire.h"

#define PROG		"jh-proxy"
#define SESSION_MAX	128		/* bytes of a session id */
#define POOL_MAX	64

enum route {
	R_NONE, R_PROBE, R_MESSAGES, R_COUNT, R_MODELS, R_CHAT, R_RESPONSES,
	R_GEMINI	/* generateContent, streamGenerateContent */
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
	uint64_t tool_in;		/* -x: input a server tool may add */
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
	struct jh_where w;		/* the defaults of the paths above */
	char grantbuf[PATH_MAX], tokbuf[PATH_MAX], coefbuf[PATH_MAX];
	char upbuf[2048];		/* -u without its trailing slashes */
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


struct rhdr {
	char *name;
	char *value;
};

struct jh_px;

struct call {
	struct jh_px *px;		/* the proxy it came through */
	char *uri;			/* as received: path and query */
	char path[256];
	enum route route;
	int api;
	int started;
	int done;			/* the request was answered */
	struct MHD_Connection *con;
	struct jh_buf body;
	int reals;			/* the body's integers read as reals */
	int too_big;
	char session[SESSION_MAX + 1];
	char id[48];			/* jhp-<pid>-<n>: the hold */
	char model[128];
	uint64_t t0;			/* ms, monotonic */
	/* metering */
	int metered;
	int forwarded;			/* a hold was placed: it went upstream */
	int hold_sealed;		/* its hold/1 is in the log */
	int sync_due;			/* its receipts are written, not synced */
	int clamped;
	uint64_t in_est, out_worst, worst, hold;
	/* the output limit, which jh_px_limit may lower to what the budget
	 * pays: its key ("" none), as asked, as sent (0: not lowered) */
	const char *lim_key;
	uint64_t lim_asked, lim_sent;
	uint64_t in_cost, n_cand, think, inner;	/* inner: thinking within */
	const struct jh_coeff *fam;
	uint8_t grant[JH_HASH_LEN];
	char grant_id[JH_ID_LEN];
	char ledger_id[JH_ID_LEN];	/* the ledger grant[] names */
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
	uint64_t lost_bytes;	/* relayed of a body too large to copy */
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

struct hdrctx {
	struct call *c;
	const char *conn;
	int oom;
};

/*
 * The proxy's state, one for the process: main makes it (jh_px_new) and
 * hands it to libmicrohttpd as every callback's cls; a call reaches it
 * as c->px, so libcurl's callbacks, which get the call, do too.  The
 * options are set before the listener starts and only read after.
 */
struct jh_px {
	struct opts o;
	struct gcache g;		/* under its own g.mu */
	pthread_mutex_t mu;		/* guards what follows */
	struct upconn pool[POOL_MAX];	/* idle handle pairs, for reuse */
	size_t npool;
	struct sess *sessions;		/* session ids seen */
	size_t nsess, capsess;
	double bucket;			/* new logs allowed now (-n) */
	uint64_t bucket_ms;		/* when it was last filled */
	uint64_t inflight, starts;	/* metered calls upstream; begun */
	uint64_t active;		/* requests being answered */
	uint64_t seq;			/* the last hold id's number */
	uint64_t last_authlog;		/* when a refused caller was logged */
	uint32_t run;			/* this run's tag in hold ids */
	/* 1: stop taking calls; 2: cut the rest.  Read without mu. */
	atomic_int stopping;
};

/* proxyhold.c */
void	jh_px_log(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
const char *jh_px_joules(char *buf, size_t sz, uint64_t uj);
int	jh_px_grant_check(struct call *c, char *why, size_t sz);
int	jh_px_hold(struct call *c, char *why, size_t sz);
void	jh_px_sync(struct call *c);
void	jh_px_finish(struct call *c, const char *verdict);

/* proxyup.c; cls is a struct hdrctx, or the call */
enum MHD_Result jh_px_req_header(void *cls, enum MHD_ValueKind kind,
	    const char *key, const char *value);
size_t	jh_px_on_header(char *p, size_t sz, size_t nm, void *cls);
size_t	jh_px_on_body(char *p, size_t sz, size_t nm, void *cls);
int	jh_px_pump(struct call *c, int for_headers);
ssize_t	jh_px_relay(void *cls, uint64_t pos, char *buf, size_t max);
void	jh_px_up_get(struct call *c);
void	jh_px_call_free(struct call *c);

/* proxyserve.c; cls is the struct jh_px */
struct jh_px *jh_px_new(void);
void	jh_px_free(struct jh_px *px);
int	jh_px_admit(struct jh_px *px, const char *session);
int	jh_px_scan(struct call *c, char *why, size_t sz);
/* the fewest output tokens a lowered limit leaves a call */
#define JH_PX_MIN_OUT	256
int	jh_px_limit(struct call *c, uint64_t rem);
enum MHD_Result jh_px_handler(void *cls, struct MHD_Connection *con,
	    const char *url, const char *method, const char *version,
	    const char *up, size_t *upsz, void **ptr);
void	*jh_px_on_uri(void *cls, const char *uri, struct MHD_Connection *con);
void	jh_px_completed(void *cls, struct MHD_Connection *con, void **ptr,
	    enum MHD_RequestTerminationCode toe);
void	jh_px_mhd_log(void *cls, const char *fmt, va_list ap);

#endif /* !JH_PROXY_H */
