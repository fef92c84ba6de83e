/*
 * jh-proxy: the enforcing meter at the model boundary (jh-proxy(1),
 * joulehook spec section 4): an HTTP/1.1 listener (libmicrohttpd,
 * one thread a connection) that forwards Anthropic Messages and OpenAI
 * Chat Completions and Responses calls upstream with libcurl, holds each
 * call's worst case against the grant's joule budget before the provider
 * is reached, relays the answer as it arrives, settles the hold to the
 * metered figure and seals an efficiency/1 receipt into the session's log.
 *
 * Lock discipline (jh-proxy(1), The budget): the ledger lock is never held
 * across the network (hold, unlock, forward, lock, settle); the hold is
 * settled and synced before the receipt is chained; every thread opens
 * the ledger and the log itself and waits for their flock(2) locks with
 * jh_tflock, so the proxy excludes jh-decide and jh-chain as they
 * exclude each other.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <microhttpd.h>
#include <sodium.h>

#include "jh.h"
#include "energy.h"
#include "keys.h"
#include "listen.h"
#include "proxy.h"
#include "util.h"

#define DEFAULT_LISTEN	"127.0.0.1:8177"
#define DEFAULT_BODY	(32u * 1024 * 1024)	/* Anthropic's own limit */
#define DEFAULT_OUT	128000		/* output tokens when none is asked */
#define DEFAULT_TOOL_IN	50000		/* input a server-side tool may add */
#define DEFAULT_IDLE	600		/* seconds without upstream bytes */
#define DEFAULT_NEWLOGS	60		/* new session logs a minute */
#define GRACE_S		30		/* SIGTERM: in-flight calls finish */

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
	    "                [-T tokenfile] [-t trust] [-w ms] [-x tokens]\n"
	    "       %s -h\n", PROG, PROG);
	exit(status);
}

/* --- main ------------------------------------------------------------- */

/* A TCP socket on addr:port ("127.0.0.1:8177", "[::1]:8177"). */
static int
listen_tcp(const char *spec, char *shown, size_t sz)
{
	struct jh_err e;
	int fd;

	/* Any address: a caller needs the per-install token (-T). */
	if ((fd = jh_listen_tcp(spec, 1, shown, sz, &e)) == -1)
		errx(2, "-l %s", e.msg);
	return (fd);
}

/*
 * A Unix socket only the user can connect to (mode 0700, jh-proxy(1),
 * Callers): bound under a umask that leaves no window with a wider mode.  A
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
load_token(struct opts *o)
{
	char buf[256];
	ssize_t n;
	int fd;

	if ((fd = open(o->tokenfile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		err(2, "%s (the per-install token; jh-install -M makes one)",
		    o->tokenfile);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		errx(2, "%s: empty", o->tokenfile);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
	    buf[n - 1] == ' '))
		n--;
	if (n < 16 || (size_t)n >= sizeof(o->token))
		errx(2, "%s: a token is 16 to 64 characters", o->tokenfile);
	memcpy(o->token, buf, (size_t)n);
	o->token[n] = '\0';
	o->toklen = (size_t)n;
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
defaults(struct opts *o)
{
	struct jh_where *w = &o->w;

	w->state = o->statedir;
	w->ledger = o->ledgerdir;
	w->trust = o->trustfile;
	w->revoked = o->revdir;
	w->key = o->keyfile;
	jh_where_fill(w);
	if (w->home == NULL || w->state == NULL)
		errx(2, "no JH_HOME/JH_STATE and no HOME");
	o->statedir = w->state;
	o->ledgerdir = w->ledger;
	o->trustfile = w->trust;
	o->revdir = w->revoked;
	o->keyfile = w->key;
	if (o->grantfile == NULL && jh_path_join(o->grantbuf,
	    sizeof(o->grantbuf), w->home, "grant") == 0)
		o->grantfile = o->grantbuf;
	if (o->tokenfile == NULL && jh_path_join(o->tokbuf,
	    sizeof(o->tokbuf), w->home, "proxy.token") == 0)
		o->tokenfile = o->tokbuf;
	if (o->ledgerdir == NULL || o->trustfile == NULL || o->revdir == NULL ||
	    o->keyfile == NULL || o->grantfile == NULL || o->tokenfile == NULL)
		errx(2, "a path under %s or %s is too long", w->home, w->state);
	if (o->stewards == NULL && w->stewards != NULL &&
	    access(w->stewards, F_OK) == 0)
		o->stewards = w->stewards;
	if (o->coeffile == NULL && (o->coeffile = jh_coeffs_path(o->coefbuf,
	    sizeof(o->coefbuf))) == NULL)
		errx(2, "cannot find coefficients.json beside the program; "
		    "give -C");
}

/*
 * Whether the upstream URL's host is this machine: localhost, a loopback
 * address, or an address of one of its interfaces, written as a number
 * (no name is looked up).  -E reads this machine's counters, which say
 * nothing of a provider elsewhere.  0 with why when it is not.
 */
static int
upstream_local(const char *url, char *why, size_t sz)
{
	struct ifaddrs *ifa, *i;
	struct in6_addr a6;
	struct in_addr a4;
	char host[256], addr[INET6_ADDRSTRLEN];
	const char *p = strstr(url, "://") + 3, *end;
	size_t n;
	int v6, local = 0;

	if (*p == '[') {
		p++;
		end = strchr(p, ']');
	} else
		end = p + strcspn(p, ":/?#");
	if (end == NULL || (n = (size_t)(end - p)) == 0 || n >= sizeof(host)) {
		snprintf(why, sz, "names no host");
		return (0);
	}
	memcpy(host, p, n);
	host[n] = '\0';
	if (strcasecmp(host, "localhost") == 0)
		return (1);
	v6 = inet_pton(AF_INET6, host, &a6) == 1;
	if (!v6 && inet_pton(AF_INET, host, &a4) != 1) {
		snprintf(why, sz, "names %s, which is not localhost or a "
		    "numeric address of this machine", host);
		return (0);
	}
	if ((v6 && IN6_IS_ADDR_LOOPBACK(&a6)) ||
	    (!v6 && (ntohl(a4.s_addr) >> 24) == 127))
		return (1);
	if (getifaddrs(&ifa) == 0) {
		for (i = ifa; i != NULL && !local; i = i->ifa_next) {
			if (i->ifa_addr == NULL || i->ifa_addr->sa_family !=
			    (v6 ? AF_INET6 : AF_INET))
				continue;
			local = v6 ? memcmp(&((struct sockaddr_in6 *)(void *)
			    i->ifa_addr)->sin6_addr, &a6, sizeof(a6)) == 0 :
			    ((struct sockaddr_in *)(void *)i->ifa_addr)->
			    sin_addr.s_addr == a4.s_addr;
		}
		freeifaddrs(ifa);
	}
	if (!local) {
		inet_ntop(v6 ? AF_INET6 : AF_INET, v6 ? (void *)&a6 :
		    (void *)&a4, addr, sizeof(addr));
		snprintf(why, sz, "names %s, which is not an address of this "
		    "machine", addr);
	}
	return (local);
}

/*
 * The options together: -u an http:// or https:// URL, local with -E,
 * kept without trailing slashes, since the raw request path is
 * appended; the listener on TCP unless -U names a socket.
 */
static void
check_opts(struct opts *o)
{
	char why[400];
	size_t n = strlen(o->upstream);

	if (strncmp(o->upstream, "http://", 7) != 0 &&
	    strncmp(o->upstream, "https://", 8) != 0)
		errx(2, "-u %s: an http:// or https:// URL", o->upstream);
	if (o->ladder && !upstream_local(o->upstream, why, sizeof(why)))
		errx(2, "-E meters this machine's energy counters, for a model "
		    "served here; the upstream %s %s", o->upstream, why);
	if (n >= sizeof(o->upbuf))
		errx(2, "-u: too long");
	memcpy(o->upbuf, o->upstream, n + 1);
	while (n > 8 && o->upbuf[n - 1] == '/')
		o->upbuf[--n] = '\0';
	o->upstream = o->upbuf;
#ifdef JH_TESTING
	{
		const char *s = getenv("JH_PROXY_REFUSE_STATUS");
		if (s != NULL && *s != '\0')
			o->refuse_status = atoi(s);
	}
#endif
	if (o->listen == NULL && o->unixpath == NULL)
		o->listen = DEFAULT_LISTEN;
}

/* The options, over their defaults (the paths' are defaults()'s). */
static void
parse_opts(struct opts *o, int argc, char *argv[])
{
	int ch;

	o->maxbody = DEFAULT_BODY;
	o->default_out = DEFAULT_OUT;
	o->tool_in = DEFAULT_TOOL_IN;
	o->idle_ms = DEFAULT_IDLE * 1000ULL;
	o->newlogs = DEFAULT_NEWLOGS;
	o->wait_ms = 5000;
	o->host = "claude-code";
	o->refuse_status = 402;
	/* One line: tests/man.bats reads the option string from here. */
	while ((ch = getopt(argc, argv, "b:C:c:Eg:H:hi:k:L:l:m:n:P:R:S:s:T:t:U:u:w:x:")) != -1) {
		switch (ch) {
		case 'b':
			o->maxbody = (size_t)num(optarg, JH_MAX_RECORD * 16ULL,
			    ch);
			break;
		case 'C':
			o->coeffile = optarg;
			break;
		case 'c':
			o->cap_uj = num(optarg, UINT64_MAX, ch);
			break;
		case 'E':
			o->ladder = 1;
			break;
		case 'g':
			o->grantfile = optarg;
			break;
		case 'H':
			o->host = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'i':
			o->idle_ms = num(optarg, 86400, ch) * 1000;
			break;
		case 'k':
			o->keyfile = optarg;
			break;
		case 'L':
			o->ledgerdir = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'm':
			o->default_out = num(optarg, JH_TOKENS_MAX, ch);
			break;
		case 'n':
			o->newlogs = (unsigned)num(optarg, 1000000, ch);
			break;
		case 'P':
			o->calibrated_mw = num(optarg, 100000000, ch);
			break;
		case 'R':
			o->revdir = optarg;
			break;
		case 'S':
			o->statedir = optarg;
			break;
		case 's':
			o->stewards = optarg;
			break;
		case 'T':
			o->tokenfile = optarg;
			break;
		case 't':
			o->trustfile = optarg;
			break;
		case 'U':
			o->unixpath = optarg;
			break;
		case 'u':
			o->upstream = optarg;
			break;
		case 'w':
			o->wait_ms = (unsigned)num(optarg, 600000, ch);
			break;
		case 'x':
			o->tool_in = num(optarg, JH_TOKENS_MAX, ch);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (optind != argc || o->upstream == NULL ||
	    (o->listen != NULL && o->unixpath != NULL))
		usage(stderr, 2);
}

/*
 * What every call needs, loaded once: the token, the coefficients, the
 * steward key and the log heads' signers, the energy ladder (-E) or the
 * machine's estimated power, the proxy's own session (known from the
 * start) and the bucket of new logs.
 */
static void
load(struct jh_px *px)
{
	struct opts *o = &px->o;
	struct jh_ladder_cfg lc;
	struct jh_err e;
	int i;

	defaults(o);
	if (o->listen != NULL)
		load_token(o);
	if (jh_coeffs_load(&o->coeffs, o->coeffile, &e) == -1)
		errx(2, "%s", e.msg);
	if (jh_key_load(&o->key, o->keyfile, NULL, NULL, &e) == -1)
		errx(2, "%s", e.msg);
	if (o->key.role != JH_ROLE_STEWARD)
		errx(2, "%s is an %s key; receipts are signed by a steward key",
		    o->keyfile, jh_role_name(o->key.role));
	jh_keyset_init(&o->keys);
	jh_keyset_add(&o->keys, o->key.pk, JH_ROLE_STEWARD);
	if (o->stewards != NULL && jh_keyset_load(&o->keys, o->stewards,
	    JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);
	jh_keyset_init(&px->g.trust);
	memset(&lc, 0, sizeof(lc));
	lc.calibrated_mw = o->calibrated_mw;
	lc.thread_uw = o->coeffs.thread_uw;
	jh_ladder_cfg_env(&lc);
	if (o->ladder) {
		jh_ladder_open(&o->lad, &lc);
		for (i = 0; i < JH_RUNGS; i++)
			jh_px_log("energy: %s %s: %s", jh_rung_name(i),
			    i == o->lad.selected ? "selected" : o->lad.live[i] ?
			    "live" : "declined", o->lad.why[i]);
	} else {
		long th = sysconf(_SC_NPROCESSORS_ONLN);
		o->default_mw = (uint64_t)(th > 0 ? th : 1) *
		    o->coeffs.thread_uw / 1000;
	}
	snprintf(o->session, sizeof(o->session), "jh-proxy-%ld-%llu",
	    (long)getpid(), (unsigned long long)jh_now_ms());
	px->bucket = 1;
	px->bucket_ms = jh_mono_ms();
	jh_px_admit(px, o->session);
	px->bucket = o->newlogs;
}

/* The listener on its socket, each callback handed the proxy's state. */
/*
 * How long a client connection may sit with nothing moving: never less
 * than -i, so that a call waiting on a quiet upstream is given up by -i
 * and settled, not cut by the listener first; with -i 0, never.
 */
static unsigned int
client_timeout(const struct opts *o)
{
	uint64_t s = o->idle_ms / 1000;

	if (o->idle_ms == 0)
		return (0);
	return ((unsigned int)(s + 60 > DEFAULT_IDLE ? s + 60 : DEFAULT_IDLE));
}

static struct MHD_Daemon *
start(struct jh_px *px)
{
	const struct opts *o = &px->o;
	struct MHD_Daemon *d;
	char shown[300];
	int fd;

	fd = o->unixpath ? listen_unix(o->unixpath) : listen_tcp(o->listen,
	    shown, sizeof(shown));
	if (o->unixpath)
		snprintf(shown, sizeof(shown), "%s", o->unixpath);
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_POLL |
	    MHD_USE_ERROR_LOG, 0, NULL, NULL, jh_px_handler, px,
	    MHD_OPTION_EXTERNAL_LOGGER, jh_px_mhd_log, px,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_URI_LOG_CALLBACK, jh_px_on_uri, px,
	    MHD_OPTION_NOTIFY_COMPLETED, jh_px_completed, px,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)512,
	    MHD_OPTION_CONNECTION_TIMEOUT, client_timeout(o),
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
	    MHD_OPTION_END);
	if (d == NULL)
		errx(2, "cannot start the listener on %s", shown);
	jh_px_log("listening on %s%s, forwarding to %s; grant %s; coefficients "
	    "%s", o->unixpath ? "unix:" : "", shown, o->upstream, o->grantfile,
	    o->coeffs.id);
	return (d);
}

/*
 * SIGTERM or SIGINT: no new calls; calls being answered finish, settle
 * and reach their client; after the grace, what is left is cut short,
 * settled and sealed partial.
 */
static void
stop(struct jh_px *px, struct MHD_Daemon *d)
{
	uint64_t n;
	int fd, i;

	atomic_store(&px->stopping, 1);
	pthread_mutex_lock(&px->mu);
	jh_px_log("stopping: %llu call%s in flight",
	    (unsigned long long)px->inflight, px->inflight == 1 ? "" : "s");
	pthread_mutex_unlock(&px->mu);
	if ((fd = MHD_quiesce_daemon(d)) != -1)
		close(fd);
	if (px->o.unixpath)
		unlink(px->o.unixpath);
	for (i = 0; i < GRACE_S * 20; i++) {
		pthread_mutex_lock(&px->mu);
		n = px->active;
		pthread_mutex_unlock(&px->mu);
		if (n == 0)
			break;
		usleep(50000);
	}
	atomic_store(&px->stopping, 2);
	MHD_stop_daemon(d);
}

int
main(int argc, char *argv[])
{
	struct rlimit rl = { 0, 0 };
	struct jh_px *px;
	struct MHD_Daemon *d;
	sigset_t ss, ts;
	int sig;

	setrlimit(RLIMIT_CORE, &rl);
	if ((px = jh_px_new()) == NULL)
		err(2, "out of memory");
	parse_opts(&px->o, argc, argv);
	check_opts(&px->o);
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	load(px);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		errx(2, "libcurl failed to initialise");

	/* Signals: SIGTERM and SIGINT are taken by this thread only. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	ts = ss;
	sigaddset(&ts, SIGRTMIN + 4);	/* jh_tflock's, unblocked per wait */
	pthread_sigmask(SIG_BLOCK, &ts, NULL);

	d = start(px);
	do {
		if (sigwait(&ss, &sig) != 0)
			sig = SIGTERM;
	} while (sig != SIGTERM && sig != SIGINT);
	stop(px, d);
	jh_px_free(px);
	curl_global_cleanup();
	jh_px_log("stopped");
	return (0);
}
