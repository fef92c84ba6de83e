/*
 * jh-hook's hardened mode (jh-hook(1), -s and -a): the client the host
 * runs as the developer, which carries the payload and the answer over a
 * Unix socket and denies on every failure of the transport; and the
 * server's side of one connection, run as the gate's own user.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "buf.h"
#include "hook.h"
#include "hookwire.h"
#include "hosts.h"
#include "statefs.h"
#include "util.h"

/* Sets a socket's send and receive timeouts to ms. */
void
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
 * Sends req on fd and reads the server's frame into reply, until the
 * server closes or the deadline; any failure is the host's deny.
 */
static void
exchange(struct run *r, int fd, const struct jh_buf *req,
    struct jh_buf *reply, unsigned ms, uint64_t deadline)
{
	uint64_t now;
	size_t sent = 0;
	int wdone = 0;

	for (;;) {
		struct pollfd pf;
		ssize_t n;

		if ((now = jh_mono_ms()) >= deadline)
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
			n = write(fd, req->p + sent, req->len - sent);
			if (n > 0)
				sent += (size_t)n;
			/* A server that refused early still sends a frame. */
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				sent = req->len;
			if (sent == req->len) {
				shutdown(fd, SHUT_WR);
				wdone = 1;
			}
		}
		if (pf.revents & (POLLIN | POLLHUP | POLLERR)) {
			if (jh_buf_reserve(reply, 65536) == -1)
				deny(r, "out of memory");
			n = read(fd, reply->p + reply->len, reply->cap - reply->len);
			if (n == 0)
				break;
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				deny(r, "reading the gate's answer: %s (joulehook "
				    "failed closed, so the call is blocked; tell "
				    "the user)", strerror(errno));
			if (n > 0 && (reply->len += (size_t)n) >
			    JH_HW_MAX_OUT + JH_HW_MAX_DIAG + JH_HW_HEAD_MAX)
				deny(r, "the gate's answer is too large");
		}
	}
}

/*
 * -s: the hardened client, run by the host as the developer.  It sends
 * "jh-hook/1 HOST\n" and the payload to the gate's server, half-closes,
 * and replays the server's frame: the answer on stdout, the diagnostics
 * on stderr, the status as its own.  No socket, a refused connection, a
 * server that dies, a frame cut short or malformed, or the deadline:
 * each is the host's deny.
 */
void
client(struct run *r, const char *sock, unsigned ms)
{
	struct sockaddr_un sa;
	struct jh_buf req, reply;
	struct jh_hw_frame f;
	struct jh_err e;
	char why[1024];
	uint64_t deadline = jh_mono_ms() + ms;
	int fd, rc;

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
	exchange(r, fd, &req, &reply, ms, deadline);
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
	if (fwrite(reply.p + f.hlen + f.out, 1, f.err, stderr) != f.err)
		deny(r, "cannot write the answer");
	/* A server that failed before it knew the host answers nothing. */
	if (f.status != 0 && !answer_readable(r, (int)f.status,
	    reply.p + f.hlen, f.out))
		deny(r, "the gate's server refused the call (status %d) "
		    "without an answer %s can read (joulehook failed closed, "
		    "so the call is blocked; tell the user)", (int)f.status,
		    r->host->name);
	if (fwrite(reply.p + f.hlen, 1, f.out, stdout) != f.out ||
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
 * client's half-close, within ms; sets the host and the payload.
 */
void
read_request(struct run *r, unsigned ms)
{
	struct jh_buf raw;
	struct jh_err e;
	char name[64];
	size_t off;

	jh_buf_init(&raw);
	/*
	 * SO_RCVTIMEO bounds each read(2), not the request: a client that
	 * sends a byte a second would hold the server for ever.  The whole
	 * read is bounded by the deadline: SIGALRM's default action ends
	 * the server, and the client, who gets no frame, denies.
	 */
	signal(SIGALRM, SIG_DFL);
	alarm(ms / 1000 + 1);
	if (jh_read_all(&raw, r->conn, JH_MAX_RECORD + JH_HW_HEAD_MAX,
	    &e) == -1)
		deny(r, "reading the request: %s", e.msg);
	alarm(0);
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
void
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
 * -a: a session is one developer's.  The first uid to name a session id
 * owns it (<state>/owners/<hex of the id's SHA-256>, in the gate's own
 * state): another developer served by the same gate can neither decide,
 * close nor stop a call of it.
 */
void
check_owner(struct run *r, const struct conf *c)
{
	char name[2 * JH_HASH_LEN + 1], tmp[2 * JH_HASH_LEN + 32], have[16];
	uint8_t h[JH_HASH_LEN];
	struct jh_err e;
	ssize_t n;
	size_t l = strlen(r->uid);
	int sfd, dfd, fd, made, err;

	crypto_hash_sha256(h, (const uint8_t *)r->session, strlen(r->session));
	jh_hex(name, h, sizeof(h));
	if (mkdir(c->state, 0755) == -1 && errno != EEXIST)
		deny(r, "%s: %s", c->state, strerror(errno));
	if ((sfd = open(c->state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		deny(r, "%s: %s", c->state, strerror(errno));
	dfd = jh_open_dir(sfd, "owners", 1, &e);
	close(sfd);
	if (dfd == -1)
		deny(r, "the sessions' owners: %s", e.msg);
	/*
	 * Written whole under another name and linked into place, so that
	 * a call of the same session at the same moment (a host's parallel
	 * tool calls) reads the owner, never an empty file
	 */
	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	(void)unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || jh_write_all(fd, r->uid, l) == -1 ||
	    fsync(fd) == -1) {
		(void)unlinkat(dfd, tmp, 0);
		deny(r, "cannot record the session's owner: %s",
		    strerror(errno));
	}
	close(fd);
	made = linkat(dfd, tmp, dfd, name, 0) == 0;
	err = errno;
	(void)unlinkat(dfd, tmp, 0);
	if (made) {
		close(dfd);
		return;
	}
	if (err != EEXIST || (fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		deny(r, "the session's owner: %s", strerror(err != EEXIST ?
		    err : errno));
	n = read(fd, have, sizeof(have));
	close(fd);
	close(dfd);
	if (n != (ssize_t)l || memcmp(have, r->uid, l) != 0)
		deny(r, "session %.64s is another developer's (uid %.*s): uid %s "
		    "cannot act in it", r->session, n > 0 ? (int)n : 0, have,
		    r->uid);
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

/* -a: the connection, taken before the environment goes. */
void
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

/*
 * -a: the transcript a Stop names is read as this gate's user, so a
 * developer could name the gate's own files (its keys, another
 * developer's transcript) and learn from the meter whether they are
 * there and how many lines they hold.  It is opened here, once, and
 * used only when what was opened is a regular file of the caller's; the
 * stages then read that open file (/dev/fd/N), so no link swapped in
 * after the check is followed.  Any other is not metered, and said so.
 */
void
check_transcript(struct run *r)
{
	struct stat st;
	int fd;

	if (r->transcript[0] == '\0')
		return;
	if ((fd = open(r->transcript, O_RDONLY | O_NONBLOCK)) == -1 ||
	    fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (unsigned long)st.st_uid != strtoul(r->uid, NULL, 10)) {
		fprintf(stderr, "%s: the transcript %.200s is not a file of "
		    "uid %s: not metered\n", PROG, r->transcript, r->uid);
		if (fd != -1)
			close(fd);
		r->transcript[0] = '\0';
		return;
	}
	snprintf(r->transcript, sizeof(r->transcript), "/dev/fd/%d", fd);
}

