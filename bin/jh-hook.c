/*
 * jh-hook: the hook driver a host runs (jh-hook(1), and its SECURITY
 * CONSIDERATIONS for why it is built as it is).
 *
 * Statically linked, so no LD_PRELOAD a project's settings inject runs
 * before main.  It clears the environment, takes every path from an
 * install-time config named by absolute path, runs the stages by absolute
 * path in one process group under a deadline, hands the reply stage the
 * call's session, tool_use_id and input digest, and exits with the
 * host's blocking status whenever the answer is not a valid one: a
 * crashed, killed or slow stage is a deny, never "go ahead".
 *
 * After a tool ran (PostToolUse, PostToolUseFailure, PermissionDenied)
 * the stages are jh-normalize, jh-result, jh-seal, jh-chain and the reply
 * stage again, and any failure ends the run (continue:false): the tool
 * already ran, so stopping is the only safe side left.  At Stop and
 * SessionEnd the open asks are closed the same way and a signed
 * checkpoint of the log is appended to the configured sink.
 *
 * Hardened mode (jh-install -U) splits it in two over a Unix socket:
 * -s is the client the host runs as the developer, which only carries
 * the payload and the answer and denies on every failure of the
 * transport; -a is the server, started per connection by the system's
 * socket activation as the gate's own user, which checks the caller's
 * uid (SO_PEERCRED) and runs the same pipeline.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "chain.h"
#include "fused.h"
#include "gate.h"
#include "hookwire.h"
#include "hosts.h"
#include "json.h"
#include "statefs.h"
#include "util.h"

#define PROG		"jh-hook"
#define NSTAGES		5
#define MAX_ANSWER	(1024 * 1024)
_Static_assert(MAX_ANSWER <= JH_HW_MAX_OUT, "a frame carries every answer");
#define CONF_DEVELOPERS	16
/*
 * A config's protect lines (jh-hook(1): up to 16), each passed on as a
 * -P; jh-decide takes up to JH_PROTECT_ARGS of them (lib/gate.h).
 */
#define CONF_PROTECT	16
_Static_assert(CONF_PROTECT <= JH_PROTECT_ARGS,
    "jh-decide must take every protect line as a -P");

struct conf {
	char bindir[PATH_MAX];
	char home[PATH_MAX];
	char state[PATH_MAX];
	char user_home[PATH_MAX];
	char protect[CONF_PROTECT][PATH_MAX];
	int nprotect;
	unsigned deadline_ms;
	unsigned lock_ms;
	int answer_allow;
	char sink[PATH_MAX];	/* checkpoints are appended here */
	int readable;		/* readable=1: records 0644 (hardened) */
	struct {
		uid_t uid;
		char home[PATH_MAX];
	} dev[CONF_DEVELOPERS];	/* developer=: who -a serves */
	int ndev;
	int meter;		/* meter=transcript: observe at Stop */
	int fast;		/* fast=1: the stages in one process */
#ifdef JH_TESTING
	char stage[NSTAGES][PATH_MAX];	/* test builds: stand-ins */
	int fault_stage;	/* fault=N:SIG: the fused child raises SIG */
	int fault_sig;		/* after stage N (0-4); SIG 0: it hangs */
	char now[32];		/* now=, nonce=: JH_NOW and JH_NONCE */
	char nonce[32];		/* for the stages, so runs compare */
#endif
};

struct run {
	const struct jh_host *host;
	const char *post;	/* the post-tool event, when it is one */
	char event[64];
	char transcript[PATH_MAX];	/* the host's, at Stop */
	char prompt[128];		/* the host's id of the user's prompt */
	struct jh_buf payload;
	struct jh_buf answer;
	char session[JH_SESSION_MAX + 1];
	char call[256];
	char digest[JH_ID_LEN];
	int conn;		/* -a: the connection; else -1 */
	char uid[16];		/* -a: the caller's uid, for jh-decide -u */
};

/*
 * Ends the run with status.  Under -a the standard output and error are
 * memory files: they go back to the client in one frame,
 *
 *	jh-hook/1 STATUS OUTLEN ERRLEN\n  OUTLEN bytes  ERRLEN bytes
 *
 * and a frame that is cut short or never comes is the client's deny.
 */
static void __attribute__((noreturn))
finish_raw(const struct run *r, int status)
{
	char hdr[80], buf[65536];
	off_t len[2];
	int fd, i;

	if (r == NULL || r->conn == -1)
		_exit(status);
	for (i = 0; i < 2; i++) {
		fd = i + 1;
		if ((len[i] = lseek(fd, 0, SEEK_END)) == -1)
			_exit(status);
		if (i == 1 && len[i] > JH_HW_MAX_DIAG)
			len[i] = JH_HW_MAX_DIAG;
	}
	if (len[0] > MAX_ANSWER)
		_exit(status);	/* no frame: the client denies */
	snprintf(hdr, sizeof(hdr), "%s %d %lld %lld\n", JH_HW_MAGIC, status,
	    (long long)len[0], (long long)len[1]);
	if (jh_write_all(r->conn, hdr, strlen(hdr)) == -1)
		_exit(status);
	for (i = 0; i < 2; i++) {
		off_t off = 0;
		while (off < len[i]) {
			size_t want = (size_t)(len[i] - off) < sizeof(buf) ?
			    (size_t)(len[i] - off) : sizeof(buf);
			ssize_t n = pread(i + 1, buf, want, off);
			if (n <= 0 || jh_write_all(r->conn, buf, (size_t)n) ==
			    -1)
				_exit(status);
			off += n;
		}
	}
	shutdown(r->conn, SHUT_WR);
	_exit(status);
}

/* The same, once what stdio holds is written. */
static void __attribute__((noreturn))
finish(const struct run *r, int status)
{
	fflush(stdout);
	fflush(stderr);
	finish_raw(r, status);
}

/*
 * A failure before the payload was read: read it now, to answer its
 * event as that event wants.  A host may take the pre-tool deny's exit
 * status after a tool ran, or at the end of a turn, for something else
 * (Codex reads exit 2 at Stop as "go on", and loops).
 */
static void
learn_event(struct run *r)
{
	struct jh_err e;
	char defect[160];
	json_t *n, *c;
	const char *ev;

	if (r->payload.len == 0 && r->conn == -1)
		(void)jh_read_all(&r->payload, STDIN_FILENO, JH_MAX_RECORD, &e);
	if (r->payload.len == 0 || (n = jh_json_parse((const char *)
	    r->payload.p, r->payload.len, &e)) == NULL)
		return;
	c = json_is_object(n) ? jh_host_canon(r->host, n, defect,
	    sizeof(defect)) : NULL;
	ev = json_string_value(json_object_get(c, JH_HK_EVENT));
	if (ev != NULL && strlen(ev) < sizeof(r->event) && ev[0] != '\0') {
		strcpy(r->event, ev);
		if (jh_host_post_status(r->host, r->event) != NULL)
			r->post = r->event;
	}
	json_decref(c);
	json_decref(n);
}

/*
 * The host's answer to a deny for why, in b, and the status to exit
 * with: after a tool ran, the host's "stop the run"; at the end of a
 * session, nothing, and a status the host shows without blocking.
 */
static int
deny_answer(const struct run *run, const char *why, struct jh_buf *b)
{
	const struct jh_host *h = run->host;
	char r[600];

	if (h == NULL)
		return (2);
	snprintf(r, sizeof(r), "joulehook: %s", why);
	if (run->post != NULL) {
		jh_host_post_answer(b, h, run->post, JH_POST_STOP, r, NULL);
		return (0);
	}
	if (run->event[0] != '\0' && strcmp(run->event, JH_GATE_EVENT) != 0)
		return (1);
	if (jh_host_answer(b, h, JH_ANSWER_DENY, r, NULL, NULL, 0) == -1)
		jh_buf_reset(b);
	return (h->block_status);
}

/* The host's deny, on stdout, with the reason on stderr; and the end. */
static void __attribute__((noreturn))
deny(const struct run *run, const char *fmt, ...)
{
	struct jh_buf b;
	char why[512];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", PROG, why);
	if (run->host != NULL && run->event[0] == '\0')
		learn_event((struct run *)run);
	jh_buf_init(&b);
	status = deny_answer(run, why, &b);
	if (b.len > 0)
		fwrite(b.p, 1, b.len, stdout);
	finish(run, status);
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s -c config [-a] [-H host]\n"
	    "       %s -s socket [-H host] [-t deadline_ms]\n", PROG, PROG);
	exit(2);
}

static int
set_path(char *dst, const char *v)
{
	if (v[0] != '/' || strlen(v) >= PATH_MAX)
		return (-1);
	strcpy(dst, v);
	return (0);
}

/*
 * developer=UID or developer=UID:HOME, the callers -a serves: a decimal
 * uid, and the home their "~" means (else user_home).
 */
static int
add_developer(struct conf *c, const char *v)
{
	unsigned long u;
	char *end;

	if (c->ndev >= CONF_DEVELOPERS || v[0] < '0' || v[0] > '9')
		return (-1);
	errno = 0;
	u = strtoul(v, &end, 10);
	if (errno != 0 || u >= (uid_t)-1 || (*end != '\0' && *end != ':'))
		return (-1);
	c->dev[c->ndev].uid = (uid_t)u;
	c->dev[c->ndev].home[0] = '\0';
	if (*end == ':' && set_path(c->dev[c->ndev].home, end + 1) == -1)
		return (-1);
	c->ndev++;
	return (0);
}

/* One key=value line of the config; -1 for a key or value it refuses. */
static int
conf_line(struct conf *c, const char *line, const char *v)
{
	if (strcmp(line, "bindir") == 0) {
		if (set_path(c->bindir, v) == -1)
			return (-1);
	} else if (strcmp(line, "home") == 0) {
		if (set_path(c->home, v) == -1)
			return (-1);
	} else if (strcmp(line, "state") == 0) {
		if (set_path(c->state, v) == -1)
			return (-1);
	} else if (strcmp(line, "user_home") == 0) {
		if (set_path(c->user_home, v) == -1)
			return (-1);
	} else if (strcmp(line, "protect") == 0) {
		if (c->nprotect >= CONF_PROTECT ||
		    set_path(c->protect[c->nprotect++], v) == -1)
			return (-1);
	} else if (strcmp(line, "deadline_ms") == 0) {
		c->deadline_ms = (unsigned)strtoul(v, NULL, 10);
		if (c->deadline_ms < 100 || c->deadline_ms > 600000)
			return (-1);
	} else if (strcmp(line, "lock_ms") == 0) {
		c->lock_ms = (unsigned)strtoul(v, NULL, 10);
		if (c->lock_ms > 600000)
			return (-1);
	} else if (strcmp(line, "answer_allow") == 0)
		c->answer_allow = strcmp(v, "1") == 0;
	else if (strcmp(line, "meter") == 0) {
		if (strcmp(v, "transcript") == 0)
			c->meter = 1;
		else if (strcmp(v, "none") != 0)
			return (-1);
	} else if (strcmp(line, "sink") == 0) {
		if (set_path(c->sink, v) == -1)
			return (-1);
	} else if (strcmp(line, "readable") == 0)
		c->readable = strcmp(v, "1") == 0;
	else if (strcmp(line, "fast") == 0) {
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
			return (-1);
		c->fast = v[0] == '1';
	} else if (strcmp(line, "developer") == 0) {
		if (add_developer(c, v) == -1)
			return (-1);
	}
#ifdef JH_TESTING
	else if (strncmp(line, "stage", 5) == 0 && line[5] >= '0' &&
	    line[5] < '0' + NSTAGES && line[6] == '\0') {
		if (set_path(c->stage[line[5] - '0'], v) == -1)
			return (-1);
	} else if (strcmp(line, "now") == 0 || strcmp(line,
	    "nonce") == 0) {
		char *dst = strcmp(line, "now") == 0 ? c->now :
		    c->nonce;
		if (strlen(v) >= sizeof(c->now))
			return (-1);
		strcpy(dst, v);
	} else if (strcmp(line, "fault") == 0) {
		if (sscanf(v, "%d:%d", &c->fault_stage,
		    &c->fault_sig) != 2 || c->fault_stage < 0 ||
		    c->fault_stage >= NSTAGES || c->fault_sig < 0 ||
		    c->fault_sig >= NSIG)
			return (-1);
	}
#endif
	else
		return (-1);
	return (0);
}

/*
 * The config is the installer's: absolute path, a regular file owned by
 * the user and writable by nobody else, "key=value" lines.  c is all
 * zero on entry: main's, in static storage, so that the pages of its
 * path arrays are never touched unless a line fills them (a memset here
 * would fault in 150 KiB on every hook call, and copy them at the fork).
 */
static int
read_conf(struct conf *c, const char *path, char *why, size_t whysz)
{
	struct stat st;
	char line[PATH_MAX + 64], *eq;
	FILE *f;
	int fd, lineno = 0;

	c->deadline_ms = 8000;
	c->lock_ms = 2000;
	c->fast = 1;
#ifdef JH_TESTING
	c->fault_stage = -1;
#endif
	if (path[0] != '/')
		return (snprintf(why, whysz, "config path %s is not absolute",
		    path), -1);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return (snprintf(why, whysz, "%s: %s", path, strerror(errno)),
		    -1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return (snprintf(why, whysz, "%s: not a regular file of the "
		    "user's that only the user can write", path), -1);
	}
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return (snprintf(why, whysz, "%s: %s", path, strerror(errno)),
		    -1);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((eq = strchr(line, '=')) == NULL)
			goto bad;
		*eq = '\0';
		if (conf_line(c, line, eq + 1) == -1)
			goto bad;
	}
	fclose(f);
	if (c->bindir[0] == '\0' || c->home[0] == '\0' || c->state[0] == '\0')
		return (snprintf(why, whysz, "%s: needs bindir, home and "
		    "state", path), -1);
	if (c->lock_ms >= c->deadline_ms)
		return (snprintf(why, whysz, "%s: lock_ms must be below "
		    "deadline_ms", path), -1);
	return (0);
bad:
	fclose(f);
	return (snprintf(why, whysz, "%s:%d: bad line", path, lineno), -1);
}

/*
 * Whether a is shaped like b: the same keys, a string where b has one,
 * every other value equal.
 */
static int
same_shape(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *v;

	if (json_is_string(b))
		return (json_is_string(a));
	if (!json_is_object(b))
		return (json_equal(a, b));
	if (!json_is_object(a) || json_object_size(a) != json_object_size(b))
		return (0);
	json_object_foreach((json_t *)b, k, v)
		if (!same_shape(json_object_get(a, k), v))
			return (0);
	return (1);
}

/*
 * Whether the reply stage's answer after a tool ran is the host's stop
 * (or its stop that withholds the output): any other answer there is
 * not one the reply stage gives, so it is not passed on.
 */
static int
is_stop(const struct jh_host *h, const char *event, const json_t *j)
{
	struct jh_buf b;
	struct jh_err e;
	json_t *ref;
	int what, ok = 0;

	for (what = JH_POST_STOP; !ok && what <= JH_POST_WITHHOLD; what++) {
		jh_buf_init(&b);
		jh_host_post_answer(&b, h, event, what, "x", "/x");
		ref = b.len > 0 ? jh_json_parse((const char *)b.p, b.len, &e) :
		    NULL;
		ok = ref != NULL && same_shape(j, ref);
		json_decref(ref);
		jh_buf_free(&b);
	}
	return (ok);
}

/* The call's binding for the reply stage, from the host's payload. */
static int
bind_call(struct run *r, char *why, size_t whysz)
{
	struct jh_err e;
	json_t *j, *n, *v;
	char defect[160];
	int rc = -1;

	if ((n = jh_json_parse((const char *)r->payload.p, r->payload.len,
	    &e)) == NULL)
		return (snprintf(why, whysz, "the payload is not JSON: %s",
		    e.msg), -1);
	if (!json_is_object(n)) {
		json_decref(n);
		return (snprintf(why, whysz, "the payload is not a JSON "
		    "object"), -1);
	}
	/* the host's payload as the stages see it (jh-normalize(1)) */
	j = jh_host_canon(r->host, n, defect, sizeof(defect));
	json_decref(n);
	if (j == NULL)
		return (snprintf(why, whysz, "out of memory"), -1);
	v = json_object_get(j, JH_HK_SESSION);
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) > JH_SESSION_MAX ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(why, whysz, "the payload has no usable session id");
		goto out;
	}
	strcpy(r->session, json_string_value(v));
	v = json_object_get(j, JH_HK_EVENT);
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= sizeof(r->event) ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(why, whysz, "the payload names no event");
		goto out;
	}
	strcpy(r->event, json_string_value(v));
	r->post = jh_host_post_status(r->host, r->event) != NULL ?
	    r->event : NULL;
	if (strcmp(r->event, JH_GATE_EVENT) != 0 && r->post == NULL) {
		/* A session event: no tool call; at Stop, what to meter. */
		v = json_object_get(j, "transcript_path");
		if (r->host->transcript && json_is_string(v) && json_string_value(v)[0] == '/' &&
		    json_string_length(v) < sizeof(r->transcript) &&
		    strlen(json_string_value(v)) == json_string_length(v))
			strcpy(r->transcript, json_string_value(v));
		v = json_object_get(j, "prompt_id");
		if (json_is_string(v) && json_string_length(v) > 0 &&
		    json_string_length(v) < sizeof(r->prompt) &&
		    strlen(json_string_value(v)) == json_string_length(v))
			strcpy(r->prompt, json_string_value(v));
		rc = 0;
		goto out;
	}
	v = json_object_get(j, JH_HK_CALL);
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= sizeof(r->call) ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		snprintf(why, whysz, "the payload has no usable tool call id");
		goto out;
	}
	strcpy(r->call, json_string_value(v));
	v = json_object_get(j, JH_HK_INPUT);
	if (!json_is_object(v) || jh_input_digest(r->digest, v, &e) == -1) {
		snprintf(why, whysz, "the payload's tool input cannot be "
		    "digested");
		goto out;
	}
	rc = 0;
out:
	json_decref(j);
	return (rc);
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

static void
stage_path(char *out, const struct conf *c, int i, const char *name)
{
#ifdef JH_TESTING
	if (i >= 0 && c->stage[i][0] != '\0') {
		strcpy(out, c->stage[i]);
		return;
	}
#else
	(void)i;
#endif
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s", c->bindir, name) >=
	    PATH_MAX)
		out[0] = '\0';	/* execve then fails: a deny */
}

/* A stage run in the forked child itself, not exec'd: it never returns. */
typedef void (*inproc_fn)(const struct run *, const struct conf *);

/*
 * Runs n stages as one pipeline in one process group: feeds in, collects
 * the last stage's output into out, under the deadline.  Returns the last
 * stage's wait status, and each stage's in st[]; a stage past the
 * deadline is a deny.  With inproc, the one stage is that function in a
 * child of this process (the fused path), supervised the same way.
 */
/* A running pipeline: its processes, and the two ends kept. */
struct pipe_run {
	pid_t pid[NSTAGES];
	pid_t pgid;
	int n;
	int ifd;		/* the first stage's input, or -1 once closed */
	int ofd;		/* the last stage's output */
};

/* Kills the group and denies; the deadline's and every error's end. */
static void __attribute__((noreturn))
kill_deny(struct run *r, pid_t pgid, const char *why, unsigned ms)
{
	kill(-pgid, SIGKILL);
	while (waitpid(-pgid, NULL, 0) > 0)
		;
	if (ms > 0)
		deny(r, "the gate did not answer within %u ms", ms);
	deny(r, "%s", why);
}

/* Forks the n stages into one process group, joined by pipes. */
static void
spawn(struct pipe_run *pr, struct run *r, const struct conf *c,
    char *paths[], char **args[], inproc_fn inproc)
{
	int fds[NSTAGES + 1][2], i;

	for (i = 0; i <= pr->n; i++)
		if (pipe2(fds[i], O_CLOEXEC) == -1)
			deny(r, "pipe: %s", strerror(errno));
	for (i = 0; i < pr->n; i++) {
		if ((pr->pid[i] = fork()) == -1) {
			if (pr->pgid > 0)
				kill(-pr->pgid, SIGKILL);
			deny(r, "fork: %s", strerror(errno));
		}
		if (pr->pid[i] == 0) {
			setpgid(0, pr->pgid);
			if (dup2(fds[i][0], STDIN_FILENO) == -1 ||
			    dup2(fds[i + 1][1], STDOUT_FILENO) == -1)
				_exit(127);
			if (inproc != NULL)
				inproc(r, c);
			execve(paths[i], args[i], environ);
			fprintf(stderr, "%s: %s: %s\n", PROG, paths[i],
			    strerror(errno));
			_exit(127);
		}
		if (pr->pgid == 0)
			pr->pgid = pr->pid[i];
		setpgid(pr->pid[i], pr->pgid);
	}
	/* Keep only our ends: the first stage's input, the last's output. */
	for (i = 0; i <= pr->n; i++) {
		if (i != pr->n)
			close(fds[i][0]);
		if (i != 0)
			close(fds[i][1]);
	}
	pr->ifd = fds[0][1];
	pr->ofd = fds[pr->n][0];
	fcntl(pr->ifd, F_SETFL, O_NONBLOCK);
}

/* Feeds in and reads out until the last stage's output ends. */
static void
pump(struct pipe_run *pr, struct run *r, const struct conf *c,
    const struct jh_buf *in, struct jh_buf *out, uint64_t deadline)
{
	struct pollfd p[2];
	size_t written = 0;
	ssize_t w, x;
	uint64_t now;
	int np;

	for (;;) {
		if ((now = mono_ms()) >= deadline)
			kill_deny(r, pr->pgid, NULL, c->deadline_ms);
		np = 0;
		p[np].fd = pr->ofd;
		p[np++].events = POLLIN;
		if (pr->ifd != -1) {
			p[np].fd = pr->ifd;
			p[np++].events = POLLOUT;
		}
		if (poll(p, (nfds_t)np, (int)(deadline - now)) == -1) {
			if (errno == EINTR)
				continue;
			kill_deny(r, pr->pgid, errno == ENOMEM ? "poll: out "
			    "of memory" : "poll failed", 0);
		}
		if (pr->ifd != -1 && p[1].revents) {
			w = write(pr->ifd, in->p + written, in->len - written);
			if (w > 0)
				written += (size_t)w;
			if (w == -1 && errno != EAGAIN && errno != EINTR)
				written = in->len;
			if (written == in->len) {
				close(pr->ifd);
				pr->ifd = -1;
			}
		}
		if (!p[0].revents)
			continue;
		if (jh_buf_reserve(out, 65536) == -1)
			kill_deny(r, pr->pgid, "out of memory", 0);
		x = read(pr->ofd, out->p + out->len, out->cap - out->len);
		if (x == 0)
			return;
		if (x > 0 && (out->len += (size_t)x) > MAX_ANSWER)
			kill_deny(r, pr->pgid, "the answer is too large", 0);
		if (x == -1 && errno != EINTR && errno != EAGAIN)
			kill_deny(r, pr->pgid, strerror(errno), 0);
	}
}

/* Reaps the stages into st[]; what is left at the deadline is killed. */
static int
reap(struct pipe_run *pr, struct run *r, const struct conf *c,
    uint64_t deadline, int st[])
{
	int i, status = -1;
	pid_t w;

	for (i = 0; i < pr->n; i++) {
		for (;;) {
			if ((w = waitpid(pr->pid[i], &status, WNOHANG)) ==
			    pr->pid[i])
				break;
			if (w == -1 && errno != EINTR) {
				status = -1;
				break;
			}
			if (mono_ms() >= deadline) {
				kill(-pr->pgid, SIGKILL);
				waitpid(pr->pid[i], &status, 0);
				if (i == pr->n - 1)
					deny(r, "the gate did not finish "
					    "within %u ms", c->deadline_ms);
				break;
			}
			usleep(1000);
		}
		st[i] = status;
	}
	kill(-pr->pgid, SIGKILL);
	return (st[pr->n - 1]);
}

static int
pipeline(struct run *r, const struct conf *c, char *paths[], char **args[],
    int n, const struct jh_buf *in, struct jh_buf *out, uint64_t deadline,
    int st[], inproc_fn inproc)
{
	struct pipe_run pr;

	memset(&pr, 0, sizeof(pr));
	pr.n = n;
	spawn(&pr, r, c, paths, args, inproc);
	pump(&pr, r, c, in, out, deadline);
	if (pr.ifd != -1)
		close(pr.ifd);
	close(pr.ofd);
	return (reap(&pr, r, c, deadline, st));
}

/*
 * Appends one checkpoint to the sink, a regular file (a FIFO or a device
 * planted there is refused, never waited on), under its lock, whole or
 * not at all: a
 * write or a sync that fails cuts the sink back to its size before, so a
 * later checkpoint never lands after a torn one.
 */
static void
sink_append(struct run *r, const char *sink, unsigned lock_ms,
    const struct jh_buf *cp)
{
	struct jh_err e;
	struct stat st;
	ssize_t w;
	int fd, saved;

	if ((fd = open(sink, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0644)) == -1)
		deny(r, "checkpoint sink %s: %s", sink, strerror(errno));
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		deny(r, "checkpoint sink %s: not a regular file", sink);
	}
	/* Sessions share a sink: one append at a time, its size then. */
	if (jh_flock(fd, LOCK_EX, lock_ms, &e) == -1 || fstat(fd, &st) == -1) {
		close(fd);
		deny(r, "checkpoint sink %s: %s", sink, e.msg);
	}
	errno = 0;
	if ((w = write(fd, cp->p, cp->len)) != (ssize_t)cp->len ||
	    fsync(fd) == -1) {
		saved = w >= 0 && w < (ssize_t)cp->len && errno == 0 ? 0 :
		    errno;
		if (ftruncate(fd, st.st_size) == 0)
			(void)fsync(fd);
		close(fd);
		deny(r, "checkpoint sink %s: %s (the sink is left as it was)",
		    sink, saved != 0 ? strerror(saved) : "a short write");
	}
	close(fd);
}

/*
 * Appends the session's signed checkpoint to the sink (joulehook-formats(5),
 * Checkpoints).
 */
static void
checkpoint(struct run *r, const struct conf *c, char *lockms,
    uint64_t deadline)
{
	struct jh_buf none, cp;
	char path[PATH_MAX], *paths[1], **args[1], *a[10];
	int st, sts[1];

	if (c->sink[0] == '\0')
		return;
	stage_path(path, c, 3, "jh-chain");
	paths[0] = path;
	a[0] = path;
	a[1] = "-c";
	a[2] = "-w";
	a[3] = lockms;
	a[4] = "-S";
	a[5] = (char *)c->state;
	a[6] = "-i";
	a[7] = r->session;
	a[8] = NULL;
	args[0] = a;
	jh_buf_init(&none);
	jh_buf_init(&cp);
	st = pipeline(r, c, paths, args, 1, &none, &cp, deadline, sts, NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || cp.len == 0)
		deny(r, "no checkpoint of the session's log was made");
	sink_append(r, c->sink, c->lock_ms, &cp);
	jh_buf_free(&cp);
}

/*
 * At Stop, without a proxy (meter=transcript): the model calls the
 * host's transcript gained since the last Stop become efficiency units,
 * observed, then the session so far is rolled into one task-level unit
 * whose outcome anchor is the grant's outcome command (jh-meter(1)).
 */
/*
 * The host writes its transcript asynchronously (Claude Code: a reply's
 * lines land after its last event), so the last call of a turn may not
 * be there yet when Stop runs: wait until the file has not grown for
 * 150 ms, at most 1 s.  What still comes late is read at the next Stop
 * or at SessionEnd, from the offset.
 */
static void
settle_file(const char *path, uint64_t deadline)
{
	struct stat st;
	off_t last = -1;
	uint64_t until = mono_ms() + 1000, quiet = 0;

	if (until > deadline)
		until = deadline;
	while (mono_ms() < until) {
		if (stat(path, &st) == -1)
			return;
		if (st.st_size == last) {
			if ((quiet += 50) >= 150)
				return;
		} else
			quiet = 0;
		last = st.st_size;
		usleep(50000);
	}
}

static const char *
meter(struct run *r, const struct conf *c, char *lockms, uint64_t deadline,
    int roll)
{
	struct jh_buf out;
	char p[3][PATH_MAX], off[PATH_MAX], log[PATH_MAX], unit[160];
	char name[JH_LOG_NAME], *pv[3], *a0[12], *a1[4], *a2[6], **av[3];
	int st[NSTAGES], i;

	if (!c->meter || r->transcript[0] == '\0')
		return (NULL);
	settle_file(r->transcript, deadline);
	jh_log_name(name, (const uint8_t *)r->session, strlen(r->session));
	if ((size_t)snprintf(off, sizeof(off), "%s/meter", c->state) >=
	    sizeof(off) || (mkdir(off, 0755) == -1 && errno != EEXIST))
		deny(r, "%s: cannot make the meter's directory", off);
	if ((size_t)snprintf(off, sizeof(off), "%s/meter/%s.off", c->state,
	    name) >= sizeof(off) || (size_t)snprintf(log, sizeof(log),
	    "%s/logs/%s", c->state, name) >= sizeof(log))
		deny(r, "state path too long");
	snprintf(unit, sizeof(unit), "task:%s", r->prompt[0] ? r->prompt :
	    "session");
	stage_path(p[0], c, -1, "jh-meter");
	stage_path(p[1], c, -1, "jh-seal");
	stage_path(p[2], c, -1, "jh-chain");
	pv[0] = p[0];
	pv[1] = p[1];
	pv[2] = p[2];
	a1[0] = p[1];
	a1[1] = "-K";
	a1[2] = "efficiency/1";
	a1[3] = NULL;
	a2[0] = p[2];
	a2[1] = "-w";
	a2[2] = lockms;
	a2[3] = NULL;
	av[0] = a0;
	av[1] = a1;
	av[2] = a2;
	a0[0] = p[0];
	a0[1] = "transcript";
	a0[2] = "-O";
	a0[3] = off;
	a0[4] = "-s";
	a0[5] = r->session;
	a0[6] = r->transcript;
	a0[7] = NULL;
	jh_buf_init(&out);
	pipeline(r, c, pv, av, 3, &r->payload, &out, deadline, st, NULL);
	/* jh-meter exits 1 when it skipped a line it could not read. */
	for (i = 0; i < 3; i++)
		if (!WIFEXITED(st[i]) || WEXITSTATUS(st[i]) > (i == 0)) {
			jh_buf_free(&out);
			return ("metering the transcript failed");
		}
	if (!roll) {
		jh_buf_free(&out);
		return (NULL);
	}
	a0[1] = "aggregate";
	a0[2] = "-l";
	a0[3] = log;
	a0[4] = "-s";
	a0[5] = r->session;
	a0[6] = "-u";
	a0[7] = unit;
	a0[8] = NULL;
	jh_buf_reset(&out);
	pipeline(r, c, pv, av, 3, &r->payload, &out, deadline, st, NULL);
	/* jh-meter aggregate exits 1 when there was nothing to roll up. */
	jh_buf_free(&out);
	for (i = 0; i < 3; i++)
		if (!WIFEXITED(st[i]) || WEXITSTATUS(st[i]) > (i == 0))
			return ("sealing the task's unit failed");
	return (NULL);
}

#ifdef JH_TESTING
/* fault=N:SIG: the fused child dies of SIG after stage N, or hangs. */
static void
fault(int stage, void *arg)
{
	const struct conf *c = arg;

	if (stage != c->fault_stage)
		return;
	if (c->fault_sig == 0)
		for (;;)
			pause();
	kill(getpid(), c->fault_sig);	/* the worker: its own pid */
}
#endif

/*
 * The stages as library calls (jh_fused): the answer in out, and the
 * reply stage's status.
 */
static int
fused_stages(const struct run *r, const struct conf *c, struct jh_buf *out)
{
	struct jh_fused f;

	memset(&f, 0, sizeof(f));
	f.host = r->host;
	f.post = r->post;
	f.session = r->session;
	f.call = r->call;
	f.digest = r->digest;
	f.lock_ms = c->lock_ms;
	f.deadline_ms = c->deadline_ms;
	f.answer_allow = c->answer_allow;
	f.bindir = c->bindir;
	f.protect = (char (*)[PATH_MAX])c->protect;
	f.nprotect = c->nprotect;
	f.uid = r->uid[0] != '\0' ? r->uid : NULL;
#ifdef JH_TESTING
	if (c->fault_stage >= 0) {
		f.after = fault;
		f.arg = (void *)c;
	}
#endif
	jh_buf_init(out);
	return (jh_fused(out, stderr, &f, r->payload.p, r->payload.len));
}

/*
 * The fused path in a forked child, where clone(2) cannot make the
 * worker below: the answer on the pipe and the reply stage's status as
 * the child's.
 */
static void __attribute__((noreturn))
fused_child(const struct run *r, const struct conf *c)
{
	struct jh_buf out;
	int status;

	status = fused_stages(r, c, &out);
	if (out.len > 0 && jh_write_all(STDOUT_FILENO, out.p, out.len) == -1)
		status = 127;
	fflush(stderr);
	_exit(status);
}

/*
 * The fused path (fast=1).  The stages run in a worker that is a process
 * of its own, so that its crash, a SIGKILL or SIGSTOP of it, or a wait
 * past the deadline is this process's deny, as a forked child's would
 * be; but the worker shares this process's memory (clone(2), CLONE_VM):
 * nothing is copied when it starts, and it leaves its answer in w.out.
 * A fork here cost more than all the stages together: the page tables
 * copied, and every page either process wrote afterwards copied again.
 *
 * The stages never fork or start a thread: either would rewrite the
 * thread data the two processes share (lib/ has no fork, exec or
 * pthread_create).  While the worker runs, this process only waits, on
 * its own stack.  A worker that ended any other way than by returning
 * may have left the heap or stdio mid-update, so the answer to that end
 * is made before it starts and written with write(2) alone.  Where clone(2) fails, or the
 * sanitizers watch (they follow one stack per thread), the worker is a
 * forked child, as it was.  (valgrind cannot run this clone(2); it runs
 * jh-hook natively: scripts/valgrind-wrap.)
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED	0
#endif
#define WORKER_STACK	(8 << 20)	/* a main thread's; touched as used */
/*
 * The top of the worker's stack a gated call uses (about 120 KiB, 26
 * pages), made present in one call: a page faulted in one at a time costs
 * two to three times as much on a virtual machine.
 */
#define WORKER_HOT	(128 << 10)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23	/* Linux 5.14 */
#endif

struct worker {
	const struct run *r;
	const struct conf *c;
	struct jh_buf out;	/* the answer, read once the worker exited */
};

/* The worker: the stages, and the reply stage's status as its own. */
static int
worker_main(void *arg)
{
	struct worker *w = arg;

	_exit(fused_stages(w->r, w->c, &w->out));
}

/* The deny made in advance for an end of the worker's: bytes, status. */
struct early {
	struct jh_buf out;
	int status;
	char line[600];		/* for the standard error */
};

static void
early_make(struct early *e, const struct run *r, const char *why)
{
	jh_buf_init(&e->out);
	e->status = deny_answer(r, why, &e->out);
	snprintf(e->line, sizeof(e->line), "%s: %s\n", PROG, why);
}

/* Writes a deny made in advance and ends, with no stdio and no heap. */
static void __attribute__((noreturn))
early_end(const struct run *r, const struct early *e)
{
	(void)jh_write_all(STDERR_FILENO, e->line, strlen(e->line));
	if (e->out.len > 0)
		(void)jh_write_all(STDOUT_FILENO, e->out.p, e->out.len);
	finish_raw(r, e->status);
}

static int
fused_run(struct run *r, const struct conf *c, uint64_t deadline, int sts[],
    char *pv[], char **av[])
{
	static struct worker w;
	struct early late, died;
	struct jh_buf none;
	struct pollfd p;
	char why[160], *stack;
	uint64_t now;
	int fds[2], st = 0;
	pid_t pid = -1;

	snprintf(why, sizeof(why), "the gate did not answer within %u ms",
	    c->deadline_ms);
	early_make(&late, r, why);
	early_make(&died, r, "the gate's worker ended before it answered "
	    "(killed, or a crash)");
	w.r = r;
	w.c = c;
	stack = mmap(NULL, WORKER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED || pipe2(fds, O_CLOEXEC) == -1)
		deny(r, "cannot start the gate: %s", strerror(errno));
	/* an older kernel faults the pages in as they are touched */
	(void)madvise(stack + WORKER_STACK - WORKER_HOT, WORKER_HOT,
	    MADV_POPULATE_WRITE);
	/* the lowest page stays unmapped: an overflow is a crash */
	if (mprotect(stack, 4096, PROT_NONE) == 0 && !SANITIZED)
		pid = clone(worker_main, stack + WORKER_STACK, CLONE_VM |
		    SIGCHLD, &w);
	if (pid == -1) {
		close(fds[0]);
		close(fds[1]);
		jh_buf_init(&none);
		return (pipeline(r, c, pv, av, 1, &none, &r->answer, deadline,
		    sts, fused_child));
	}
	close(fds[1]);	/* the worker's copy closes when it ends */
	p.fd = fds[0];
	p.events = POLLIN;
	for (;;) {
		if ((now = mono_ms()) >= deadline) {
			kill(pid, SIGKILL);
			early_end(r, &late);
		}
		p.revents = 0;
		if (poll(&p, 1, (int)(deadline - now)) == -1 && errno != EINTR) {
			kill(pid, SIGKILL);
			early_end(r, &died);
		}
		if (p.revents != 0)
			break;
	}
	/* the worker's files are closed as it exits: it is all but gone */
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			kill(pid, SIGKILL);
			early_end(r, &died);
		}
	close(fds[0]);
	if (!WIFEXITED(st))
		early_end(r, &died);
	jh_buf_free(&r->answer);
	r->answer = w.out;
	jh_buf_free(&late.out);
	jh_buf_free(&died.out);
	sts[0] = st;
	return (st);
}

/*
 * Whether this call takes the fused path: fast=1, a tool call (before or
 * after it ran), one JSON value, and in a test build no stage stand-in.
 */
static int
fused(const struct run *r, const struct conf *c)
{
#ifdef JH_TESTING
	int i;

	for (i = 0; i < NSTAGES; i++)
		if (c->stage[i][0] != '\0')
			return (0);
#endif
	if (!c->fast || (r->post == NULL && strcmp(r->event,
	    JH_GATE_EVENT) != 0))
		return (0);
	return (jh_fused_fits(r->payload.p, r->payload.len));
}

/* Sets a socket's send and receive timeouts to ms. */
static void
sock_timeouts(int fd, uint64_t ms)
{
	struct timeval tv;

	if (ms == 0)
		ms = 1;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * -s: the hardened client, run by the host as the developer.  It sends
 * "jh-hook/1 HOST\n" and the payload to the gate's server, half-closes,
 * and replays the server's frame: the answer on stdout, the diagnostics
 * on stderr, the status as its own.  No socket, a refused connection, a
 * server that dies, a frame cut short or malformed, or the deadline:
 * each is the host's deny.
 */
static void __attribute__((noreturn))
client(struct run *r, const char *sock, unsigned ms)
{
	struct sockaddr_un sa;
	struct jh_buf req, reply;
	struct jh_hw_frame f;
	struct jh_err e;
	char why[1024];
	uint64_t deadline = mono_ms() + ms, now;
	size_t sent = 0;
	int fd, wdone = 0, rc;

	jh_buf_init(&r->payload);
	jh_buf_init(&req);
	jh_buf_init(&reply);
	if (jh_read_all(&r->payload, STDIN_FILENO, JH_MAX_RECORD, &e) == -1)
		deny(r, "reading the payload: %s", e.msg);
	/* Only for the shape of our own deny; the server decides. */
	(void)bind_call(r, why, sizeof(why));
	if (sock[0] != '/' || strlen(sock) >= sizeof(sa.sun_path))
		deny(r, "%s: not an absolute socket path that fits", sock);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		deny(r, "socket: %s", strerror(errno));
	sock_timeouts(fd, ms);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		deny(r, "cannot reach the gate's server at %s: %s (hardened "
		    "mode: the joulehook-hook socket must be listening; "
		    "joulehook failed closed, so the call is blocked; tell "
		    "the user)", sock, strerror(errno));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	jh_buf_addf(&req, "%s %s\n", JH_HW_MAGIC, r->host->name);
	jh_buf_add(&req, r->payload.p, r->payload.len);
	if (req.oom)
		deny(r, "out of memory");
	for (;;) {
		struct pollfd pf;
		ssize_t n;

		if ((now = mono_ms()) >= deadline)
			deny(r, "the gate's server did not answer within %u "
			    "ms (joulehook failed closed, so the call is "
			    "blocked; tell the user)", ms);
		pf.fd = fd;
		pf.events = POLLIN | (wdone ? 0 : POLLOUT);
		if (poll(&pf, 1, (int)(deadline - now)) == -1) {
			if (errno == EINTR)
				continue;
			deny(r, "poll: %s", strerror(errno));
		}
		if (!wdone && (pf.revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = write(fd, req.p + sent, req.len - sent);
			if (n > 0)
				sent += (size_t)n;
			/* A server that refused early still sends a frame. */
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				sent = req.len;
			if (sent == req.len) {
				shutdown(fd, SHUT_WR);
				wdone = 1;
			}
		}
		if (pf.revents & (POLLIN | POLLHUP | POLLERR)) {
			if (jh_buf_reserve(&reply, 65536) == -1)
				deny(r, "out of memory");
			n = read(fd, reply.p + reply.len, reply.cap - reply.len);
			if (n == 0)
				break;
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				deny(r, "reading the gate's answer: %s (joulehook "
				    "failed closed, so the call is blocked; tell "
				    "the user)", strerror(errno));
			if (n > 0 && (reply.len += (size_t)n) >
			    JH_HW_MAX_OUT + JH_HW_MAX_DIAG + JH_HW_HEAD_MAX)
				deny(r, "the gate's answer is too large");
		}
	}
	close(fd);
	if (reply.len == 0)
		deny(r, "the gate's server closed the connection without an "
		    "answer (it failed or was killed; joulehook failed "
		    "closed, so the call is blocked; tell the user)");
	if ((rc = jh_hw_frame(reply.p, reply.len, &f)) == -1)
		deny(r, "the gate's server's answer is malformed (joulehook "
		    "failed closed, so the call is blocked; tell the user)");
	if (rc == -2)
		deny(r, "the gate's server's answer was cut short (joulehook "
		    "failed closed, so the call is blocked; tell the user)");
	if (fwrite(reply.p + f.hlen + f.out, 1, f.err, stderr) != f.err ||
	    fwrite(reply.p + f.hlen, 1, f.out, stdout) != f.out ||
	    fflush(stdout) == EOF)
		deny(r, "cannot write the answer");
	_exit((int)f.status);
}

/*
 * -a: the connection systemd (Accept=yes) or systemd-socket-activate
 * --accept handed over, as fd 3 under LISTEN_FDS=1 for this pid, or as
 * the standard input (inetd style).  -1 if neither is a socket.
 */
static int
accepted(void)
{
	const char *n = getenv("LISTEN_FDS"), *p = getenv("LISTEN_PID");
	struct stat st;
	int fd = -1, dup;

	if (n != NULL && strcmp(n, "1") == 0 && p != NULL &&
	    strtol(p, NULL, 10) == (long)getpid())
		fd = 3;
	else if (fstat(STDIN_FILENO, &st) == 0 && S_ISSOCK(st.st_mode))
		fd = STDIN_FILENO;
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode))
		return (-1);
	/* No stage may hold the connection open past the server. */
	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 10)) != -1 && fd != STDIN_FILENO)
		close(fd);
	return (dup);
}

/*
 * -a: the request, "jh-hook/1 HOST\n" and the payload, read to the
 * client's half-close; sets the host and the payload.
 */
static void
read_request(struct run *r)
{
	struct jh_buf raw;
	struct jh_err e;
	char name[64];
	size_t off;

	jh_buf_init(&raw);
	if (jh_read_all(&raw, r->conn, JH_MAX_RECORD + JH_HW_HEAD_MAX,
	    &e) == -1)
		deny(r, "reading the request: %s", e.msg);
	if (jh_hw_request(raw.p, raw.len, name, sizeof(name), &off) == -1)
		deny(r, "the request is not a %s request", JH_HW_MAGIC);
	if ((r->host = jh_host_lookup(name)) == NULL)
		deny(r, "the request names an unknown host");
	jh_buf_add(&r->payload, raw.p + off, raw.len - off);
	if (r->payload.oom)
		deny(r, "out of memory");
	jh_buf_free(&raw);
}

/*
 * -a: who asked.  The kernel's word for the caller's uid (SO_PEERCRED)
 * must be a developer= of the config; it goes into the decision (jh-decide
 * -u) and picks the home "~" means.
 */
static void
check_peer(struct run *r, struct conf *c, const char *cfg)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	int i;

	if (getsockopt(r->conn, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == -1)
		deny(r, "cannot tell who is asking: %s", strerror(errno));
	for (i = 0; i < c->ndev; i++)
		if (c->dev[i].uid == cr.uid)
			break;
	if (i == c->ndev)
		deny(r, "uid %u (pid %d) is not a developer this gate serves "
		    "(the developer= lines of %s); nothing was decided",
		    (unsigned)cr.uid, (int)cr.pid, cfg);
	snprintf(r->uid, sizeof(r->uid), "%u", (unsigned)cr.uid);
	if (c->dev[i].home[0] != '\0')
		strcpy(c->user_home, c->dev[i].home);
}

/*
 * -a: the standard output and error become memory files, sent back as
 * one frame when the run ends (finish); the standard input is nothing.
 */
static int
serve_setup(void)
{
	int o, x, n;

	if ((o = memfd_create("jh-hook-out", MFD_CLOEXEC)) == -1 ||
	    (x = memfd_create("jh-hook-err", MFD_CLOEXEC)) == -1 ||
	    (n = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	if (dup2(n, STDIN_FILENO) == -1 || dup2(o, STDOUT_FILENO) == -1 ||
	    dup2(x, STDERR_FILENO) == -1)
		return (-1);
	close(o);
	close(x);
	close(n);
	return (0);
}

/* The stages' command lines, by absolute path. */
struct stages {
	char path[NSTAGES][PATH_MAX];
	char *arg[NSTAGES][2 * CONF_PROTECT + 10];
	char *pv[NSTAGES];
	char **av[NSTAGES];
	char lockms[16];
	char dl[16];
};

static void	stage_reply(struct stages *, int *, struct run *,
		    const struct conf *);

/* argv[0..) of stage i, one word at a time. */
static void
arg(struct stages *s, int i, int *n, char *w)
{
	s->arg[i][(*n)++] = w;
	s->arg[i][*n] = NULL;
}

/*
 * The five command lines (jh-hook(1), What it does, After a tool ran,
 * When a session ends): the gate's for the gate's event, else the
 * result's, with -e when a session ends.
 */
static void
stages_make(struct stages *s, struct run *r, const struct conf *c)
{
	static const char *const gate[NSTAGES] = { "jh-normalize",
	    "jh-decide", "jh-seal", "jh-chain", "jh-normalize" };
	static const char *const after[NSTAGES] = { "jh-normalize",
	    "jh-result", "jh-seal", "jh-chain", "jh-normalize" };
	int g = r->post == NULL && strcmp(r->event, JH_GATE_EVENT) == 0;
	int i, k, n;

	snprintf(s->lockms, sizeof(s->lockms), "%u", c->lock_ms);
	snprintf(s->dl, sizeof(s->dl), "%u", c->deadline_ms);
	for (i = 0; i < NSTAGES; i++) {
		stage_path(s->path[i], c, i, g ? gate[i] : after[i]);
		s->pv[i] = s->path[i];
		s->av[i] = s->arg[i];
		n = 0;
		arg(s, i, &n, s->path[i]);
		switch (i) {
		case 0:
			arg(s, i, &n, "-H");
			arg(s, i, &n, (char *)r->host->name);
			break;
		case 1:
			arg(s, i, &n, "-w");
			arg(s, i, &n, s->lockms);
			for (k = 0; g && k < c->nprotect; k++) {
				arg(s, i, &n, "-P");
				arg(s, i, &n, (char *)c->protect[k]);
			}
			if (g && r->uid[0] != '\0') {
				arg(s, i, &n, "-u");
				arg(s, i, &n, r->uid);
			}
			if (!g && r->post == NULL)
				arg(s, i, &n, "-e");	/* the session ends */
			break;
		case 2:
			arg(s, i, &n, "-K");
			arg(s, i, &n, g ? "decision/1" : "result/1");
			break;
		case 3:
			arg(s, i, &n, "-w");
			arg(s, i, &n, s->lockms);
			break;
		default:
			stage_reply(s, &n, r, c);
		}
	}
}

static void
stage_reply(struct stages *s, int *n, struct run *r, const struct conf *c)
{
	arg(s, 4, n, "-H");
	arg(s, 4, n, (char *)r->host->name);
	arg(s, 4, n, "-r");
	arg(s, 4, n, "-d");
	arg(s, 4, n, s->dl);
	arg(s, 4, n, "-i");
	arg(s, 4, n, r->session);
	arg(s, 4, n, "-u");
	arg(s, 4, n, r->call);
	arg(s, 4, n, "-D");
	arg(s, 4, n, r->digest);
	if (r->post != NULL) {
		arg(s, 4, n, "-E");
		arg(s, 4, n, (char *)r->post);
	}
	if (c->answer_allow)
		arg(s, 4, n, "-A");
}

/*
 * Stop, SessionEnd: the asks nothing answered are closed, the meter
 * reads the transcript, and the checkpoint is made.  Any other event of
 * no tool call ends nothing: no opinion.
 */
static void __attribute__((noreturn))
end_session(struct run *r, struct conf *c, struct stages *s,
    uint64_t deadline)
{
	const char *mwhy;
	int st, sts[NSTAGES];

	if (strcmp(r->event, "Stop") == 0 || strcmp(r->event,
	    "SessionEnd") == 0) {
		st = pipeline(r, c, s->pv, s->av, NSTAGES - 1, &r->payload,
		    &r->answer, deadline, sts, NULL);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			deny(r, "closing the session's asks failed");
		/*
		 * A meter that fails still leaves the checkpoint to make.
		 * SessionEnd's time is short: the transcript's tail only.
		 */
		mwhy = meter(r, c, s->lockms, deadline,
		    strcmp(r->event, "SessionEnd") != 0);
		checkpoint(r, c, s->lockms, deadline);
		if (mwhy != NULL)
			deny(r, "%s (the checkpoint was written)", mwhy);
	}
	jh_buf_free(&r->payload);
	jh_buf_free(&r->answer);
	finish(r, 0);
}

/*
 * The host's answer from the reply stage's exit status and output
 * (jh-hook(1), What it does, step 9): its deny as it is, an allow as
 * nothing, one JSON object for an ask, a rewrite or a stop; anything
 * else is a deny.
 */
static void __attribute__((noreturn))
answer(struct run *r, int st)
{
	struct jh_err e;
	json_t *j;
	int ok;

	if (!WIFEXITED(st))
		deny(r, "the reply stage %s", WIFSIGNALED(st) ?
		    "was killed" : "failed");
	if (r->post == NULL && WEXITSTATUS(st) == r->host->block_status) {
		/* A deny: the stage wrote the host's JSON and the reason. */
		fwrite(r->answer.p, 1, r->answer.len, stdout);
		finish(r, r->host->block_status);
	}
	if (WEXITSTATUS(st) != 0)
		deny(r, "the reply stage exited %d", WEXITSTATUS(st));
	if (r->answer.len > 0) {
		j = jh_json_parse((const char *)r->answer.p, r->answer.len,
		    &e);
		ok = json_is_object(j) && (r->post == NULL ||
		    is_stop(r->host, r->post, j));
		json_decref(j);
		if (!ok)
			deny(r, "the reply stage's answer is not valid");
		if (fwrite(r->answer.p, 1, r->answer.len, stdout) !=
		    r->answer.len || fflush(stdout) == EOF)
			deny(r, "cannot write the answer");
	}
	jh_buf_free(&r->payload);
	jh_buf_free(&r->answer);
	finish(r, 0);
}

/* What the command line says; -s and -a start their own way. */
struct args {
	const char *cfg;
	const char *host;
	const char *sock;
	unsigned client_ms;
	int serve;
};

static void
parse_args(struct args *a, int argc, char *argv[])
{
	char *end;
	int ch;

	memset(a, 0, sizeof(*a));
	a->host = "claude-code";
	a->client_ms = 10000;
	while ((ch = getopt(argc, argv, "ac:H:s:t:")) != -1) {
		switch (ch) {
		case 'a':
			a->serve = 1;
			break;
		case 'c':
			a->cfg = optarg;
			break;
		case 'H':
			a->host = optarg;
			break;
		case 's':
			a->sock = optarg;
			break;
		case 't':
			a->client_ms = (unsigned)strtoul(optarg, &end, 10);
			if (*end != '\0' || a->client_ms < 100 ||
			    a->client_ms > 600000)
				usage();
			break;
		default:
			usage();
		}
	}
}

/* -a: the connection, taken before the environment goes. */
static void
serve_start(struct run *r)
{
	/* Before clearenv: LISTEN_FDS and LISTEN_PID say where. */
	if ((r->conn = accepted()) == -1) {
		fprintf(stderr, "%s: -a: no connection was handed over "
		    "(LISTEN_FDS=1 or a socket on the standard input)\n", PROG);
		_exit(2);
	}
	r->host = NULL;	/* the client names it */
	sock_timeouts(r->conn, 10000);
	if (serve_setup() == -1) {
		fprintf(stderr, "%s: -a: %s\n", PROG, strerror(errno));
		_exit(2);
	}
}

/* The only environment the stages get (jh-hook(1), step 4). */
static void
environment(struct run *r, const struct conf *c)
{
	setenv("PATH", "/usr/bin:/bin", 1);
	setenv("LC_ALL", "C", 1);
	setenv("JH_HOME", c->home, 1);
	setenv("JH_STATE", c->state, 1);
	if (c->user_home[0] != '\0')
		setenv("HOME", c->user_home, 1);
#ifdef JH_TESTING
	if (c->now[0] != '\0')
		setenv("JH_NOW", c->now, 1);
	if (c->nonce[0] != '\0')
		setenv("JH_NONCE", c->nonce, 1);
#endif
	/* Hardened: the records are the developer's to read, not write. */
	umask(c->readable ? 022 : 077);
	if (sodium_init() < 0)
		deny(r, "libsodium failed to initialise");
}

int
main(int argc, char *argv[])
{
	struct rlimit rl = { 0, 0 };
	struct stages *s;
	struct args a;
	static struct conf c;	/* zero, and faulted in only where used */
	static struct run r;
	struct jh_err e;
	char why[1024];
	int st, sts[NSTAGES];
	uint64_t deadline;

	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);
	parse_args(&a, argc, argv);
	r.conn = -1;
	if ((r.host = jh_host_lookup(a.host)) == NULL) {
		fprintf(stderr, "%s: unknown host %s\n", PROG, a.host);
		_exit(2);
	}
	jh_buf_init(&r.payload);
	jh_buf_init(&r.answer);
	if (a.sock != NULL) {
		if (a.cfg != NULL || a.serve || optind != argc)
			deny(&r, "usage: %s -s socket [-H host] [-t "
			    "deadline_ms]", PROG);
		client(&r, a.sock, a.client_ms);
	}
	if (a.serve)
		serve_start(&r);
	if (a.cfg == NULL || optind != argc)
		deny(&r, "usage: %s -c config [-a] [-H host]", PROG);
	/* Nothing of the caller's environment reaches a stage (S2). */
	if (clearenv() != 0)
		deny(&r, "cannot clear the environment");
	if (read_conf(&c, a.cfg, why, sizeof(why)) == -1)
		deny(&r, "%s", why);
	if (a.serve) {
		sock_timeouts(r.conn, c.deadline_ms);
		read_request(&r);
		check_peer(&r, &c, a.cfg);
	}
	environment(&r, &c);
	if (!a.serve && jh_read_all(&r.payload, STDIN_FILENO, JH_MAX_RECORD,
	    &e) == -1)
		deny(&r, "reading the payload: %s", e.msg);
	if (bind_call(&r, why, sizeof(why)) == -1)
		deny(&r, "%s", why);
	if ((s = malloc(sizeof(*s))) == NULL)
		deny(&r, "out of memory");
	stages_make(s, &r, &c);
	deadline = mono_ms() + c.deadline_ms;
	if (r.post == NULL && strcmp(r.event, JH_GATE_EVENT) != 0)
		end_session(&r, &c, s, deadline);
	if (fused(&r, &c))
		st = fused_run(&r, &c, deadline, sts, s->pv, s->av);
	else
		st = pipeline(&r, &c, s->pv, s->av, NSTAGES, &r.payload,
		    &r.answer, deadline, sts, NULL);
	answer(&r, st);
}
