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
 *
 * This file is the driver; the config, the stages' supervision and the
 * socket are files of their own beside it (bin/hook.h names them).
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "chain.h"
#include "hookwire.h"
#include "hosts.h"
#include "json.h"
#include "statefs.h"
#include "util.h"

#include "hook.h"

/*
 * Ends the run with status.  Under -a the standard output and error are
 * memory files: they go back to the client in one frame,
 *
 *	jh-hook/1 STATUS OUTLEN ERRLEN\n  OUTLEN bytes  ERRLEN bytes
 *
 * and a frame that is cut short or never comes is the client's deny.
 */
/*
 * Reads what the client sent and was not read (a refusal before the
 * request was read), for a second at most in all: a socket closed with
 * bytes unread is reset, and the client would read the reset, not the
 * frame.  (Each read waits 100 ms at most: a client that sends a byte
 * now and then holds no server.)
 */
static void
drain(int fd, char *buf, size_t sz)
{
	struct timeval tv = { 0, 100000 };
	uint64_t end = jh_mono_ms() + 1000;
	size_t total = 0;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (total < JH_MAX_RECORD + JH_HW_HEAD_MAX && jh_mono_ms() < end &&
	    (n = read(fd, buf, sz)) > 0)
		total += (size_t)n;
}

void
finish_raw(const struct run *r, int status)
{
	/* never on the stack: a host's stack limit may be small (main) */
	static char buf[65536];
	char hdr[80];
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
	drain(r->conn, buf, sizeof(buf));
	_exit(status);
}

/* The same, once what stdio holds is written. */
void
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
int
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

/*
 * Whether a blocking status and its answer are what the host acts on:
 * one JSON object, or nothing where the host's own answer to a deny at
 * this event is nothing with the same status (Windsurf's pre-tool deny,
 * a session event's status).  Cline and Antigravity read no exit status:
 * an empty answer there is a "go ahead", and so is Codex's exit 2 at
 * Stop.  A stage or a server that failed before it knew the host leaves
 * exactly that.
 */
int
answer_readable(const struct run *r, int status, const uint8_t *out,
    size_t n)
{
	struct jh_buf b;
	struct jh_err e;
	json_t *j;
	int ok, want;

	if (n > 0) {
		j = jh_json_parse((const char *)out, n, &e);
		ok = json_is_object(j);
		json_decref(j);
		return (ok);
	}
	jh_buf_init(&b);
	want = deny_answer(r, "", &b);
	ok = b.len == 0 && !b.oom && want == status;
	jh_buf_free(&b);
	return (ok);
}

/* The host's deny, on stdout, with the reason on stderr; and the end. */
void
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
int
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
	uint64_t until = jh_mono_ms() + 1000, quiet = 0;

	if (until > deadline)
		until = deadline;
	while (jh_mono_ms() < until) {
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
		if (!answer_readable(r, WEXITSTATUS(st), r->answer.p,
		    r->answer.len))
			deny(r, "the reply stage blocked the call without an "
			    "answer %s can read", r->host->name);
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
			if (jh_parse_ms(&a->client_ms, optarg) == -1 ||
			    a->client_ms < 100 ||
			    a->client_ms > 600000)
				usage();
			break;
		default:
			usage();
		}
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

/*
 * The stack's limit, which a host passes on and code running as the user
 * may lower in the host (prlimit(1)): a crash after the answer is
 * written is no deny to a host that reads the exit status.  The soft
 * limit is raised to 8 MiB where the hard one allows; 0 when it stays
 * under 1 MiB, too small to decide safely.
 */
static int
stack_room(rlim_t *have)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) == -1)
		return (0);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (8 << 20)) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >
		    (8 << 20) ? (8 << 20) : rl.rlim_max;
		(void)setrlimit(RLIMIT_STACK, &rl);
	}
	*have = rl.rlim_cur;
	return (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (1 << 20));
}

int
main(int argc, char *argv[])
{
	struct rlimit rl = { 0, 0 };
	rlim_t stack = 0;
	sigset_t none;
	int roomy;
	struct stages *s;
	struct args a;
	static struct conf c;	/* zero, and faulted in only where used */
	static struct run r;
	struct jh_err e;
	char why[1024];
	int st, sts[NSTAGES];
	uint64_t start = jh_mono_ms(), deadline;

	setrlimit(RLIMIT_CORE, &rl);
	roomy = stack_room(&stack);
	/*
	 * A signal mask is inherited through exec (systemd-socket-activate
	 * blocks what its signalfd reads): the timers that bound a lock's
	 * wait or a request's read must be able to fire.
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	parse_args(&a, argc, argv);
	r.conn = -1;
	if ((r.host = jh_host_lookup(a.host)) == NULL) {
		fprintf(stderr, "%s: unknown host %s\n", PROG, a.host);
		_exit(2);
	}
	if (!roomy)
		deny(&r, "the stack limit is %llu KiB and cannot be raised "
		    "(its hard limit was lowered), too small to decide "
		    "safely; start the host with the default limit",
		    (unsigned long long)stack >> 10);
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
	if (c.fast && !a.serve)
		heap_ready();
	if (a.serve) {
		sock_timeouts(r.conn, c.deadline_ms);
		read_request(&r, c.deadline_ms);
		check_peer(&r, &c, a.cfg);
	}
	environment(&r, &c);
	/* the deadline counts from the start, the payload's reading too */
	deadline = start + c.deadline_ms;
	pre_deadline(&r, &c, deadline);
	if (!a.serve && jh_read_all(&r.payload, STDIN_FILENO, JH_MAX_RECORD,
	    &e) == -1)
		deny(&r, "reading the payload: %s", e.msg);
	if (bind_call(&r, why, sizeof(why)) == -1)
		deny(&r, "%s", why);
	if (a.serve) {
		check_owner(&r, &c);
		check_transcript(&r);
	}
	pre_deadline_off();
	if (fused(&r, &c))
		st = fused_run(&r, &c, deadline, sts);
	else {
		/* the programs' command lines: the fused path needs none */
		if ((s = malloc(sizeof(*s))) == NULL)
			deny(&r, "out of memory");
		stages_make(s, &r, &c);
		if (r.post == NULL && strcmp(r.event, JH_GATE_EVENT) != 0)
			end_session(&r, &c, s, deadline);
		st = pipeline(&r, &c, s->pv, s->av, NSTAGES, &r.payload,
		    &r.answer, deadline, sts, NULL);
	}
	answer(&r, st);
}

