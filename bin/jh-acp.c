/*
 * jh-acp: a gating relay between an ACP editor and an ACP agent
 * (jh-acp(1)).  The editor starts jh-acp in the agent's place; jh-acp
 * starts the agent and relays the Agent Client Protocol's JSON-RPC
 * lines both ways unchanged, except that the agent's
 * session/request_permission, fs/read_text_file, fs/write_text_file and
 * terminal/create requests are first decided by jh-hook -H acp, and a
 * deny is answered to the agent without the editor seeing the request.
 * The relay itself is lib/acprelay.c; this program starts the agent,
 * runs the hook for each decision and moves the bytes.
 */
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "acprelay.h"
#include "buf.h"
#include "json.h"

#define PROG		"jh-acp"
#define ANSWER_MAX	(1u << 20)	/* the most of jh-hook's answer read */

struct prog {
	const char *conf;	/* -c */
	const char *sock;	/* -s */
	char *dconf;		/* the default -c, allocated */
	char hook[PATH_MAX];	/* jh-hook beside jh-acp */
	int timeout_s;		/* -t */
	int to_agent;		/* the agent's standard input */
	int from_agent;		/* the agent's standard output */
	pid_t agent;
};

/* One peer's input: the editor's (standard input) or the agent's. */
struct input {
	int fd;
	int eof;
	enum jh_acp_peer peer;
};

static void
usage(FILE *f, int status)
{
	fprintf(f, "usage: %s [-c config | -s socket] [-t seconds] -- "
	    "agent [arg ...]\n       %s -h\n", PROG, PROG);
	exit(status);
}

static void
writeall(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			return;		/* the reader is gone: its EOF says so */
		}
		s += w;
		n -= (size_t)w;
	}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/* Starts jh-hook -H acp in a process group of its own: its standard
 * input on *in, its output on *out.  -1 when it cannot be started. */
static int
spawn_hook(const struct prog *pr, pid_t *pid, int *in, int *out)
{
	int ip[2], op[2];
	char tms[32];

	if (pipe2(ip, O_CLOEXEC) == -1)
		return (-1);
	if (pipe2(op, O_CLOEXEC) == -1) {
		close(ip[0]);
		close(ip[1]);
		return (-1);
	}
	snprintf(tms, sizeof(tms), "%d", pr->timeout_s * 1000);
	if ((*pid = fork()) == -1) {
		close(ip[0]);
		close(ip[1]);
		close(op[0]);
		close(op[1]);
		return (-1);
	}
	if (*pid == 0) {
		setpgid(0, 0);
		dup2(ip[0], STDIN_FILENO);
		dup2(op[1], STDOUT_FILENO);
		if (pr->sock != NULL)
			execl(pr->hook, "jh-hook", "-s", pr->sock, "-H", "acp",
			    "-t", tms, (char *)NULL);
		else
			execl(pr->hook, "jh-hook", "-c", pr->conf, "-H", "acp",
			    (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s\n", PROG, pr->hook,
		    strerror(errno));
		_exit(127);
	}
	setpgid(*pid, *pid);
	close(ip[0]);
	close(op[1]);
	fcntl(ip[1], F_SETFL, O_NONBLOCK);
	*in = ip[1];
	*out = op[0];
	return (0);
}

/*
 * Writes the payload to the hook and reads its answer into b, under the
 * -t deadline.  -1, with why, when the hook's group had to be killed.
 */
static int
talk(const struct prog *pr, pid_t pid, int *in, int out,
    const char *payload, struct jh_buf *b, char *why, size_t whysz)
{
	size_t off = 0, plen = strlen(payload);
	double end = now_s() + pr->timeout_s;
	struct pollfd p[2];
	int n, ms, ow;
	char tmp[8192];
	ssize_t k;

	for (;;) {
		n = 0;
		ow = -1;
		if ((ms = (int)((end - now_s()) * 1000)) <= 0) {
			snprintf(why, whysz, "the gate did not answer within "
			    "%d s", pr->timeout_s);
			kill(-pid, SIGKILL);
			return (-1);
		}
		p[n].fd = out;
		p[n++].events = POLLIN;
		if (*in != -1) {
			ow = n;
			p[n].fd = *in;
			p[n++].events = POLLOUT;
		}
		if (poll(p, n, ms) == -1) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL);
			return (-1);
		}
		if (ow != -1 && p[ow].revents) {
			k = write(*in, payload + off, plen - off);
			if (k > 0)
				off += (size_t)k;
			if ((k == -1 && errno != EAGAIN && errno != EINTR) ||
			    off == plen) {
				close(*in);
				*in = -1;
			}
		}
		if (p[0].revents) {
			k = read(out, tmp, sizeof(tmp));
			if (k == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0)
				return (0);
			if (b->len + (size_t)k > ANSWER_MAX) {
				snprintf(why, whysz, "the gate's answer is over "
				    "%u bytes", ANSWER_MAX);
				kill(-pid, SIGKILL);
				return (-1);
			}
			jh_buf_add(b, tmp, (size_t)k);
		}
	}
}

/* The verdict in the hook's exit status st and answer j (NULL: none). */
static enum jh_acp_verdict
verdict(int st, json_t *j, char *why, size_t whysz)
{
	json_t *hso = json_object_get(j, "hookSpecificOutput");
	const char *pd, *rs;

	pd = json_string_value(json_object_get(hso, "permissionDecision"));
	rs = json_string_value(json_object_get(hso,
	    "permissionDecisionReason"));
	if (rs == NULL)
		rs = json_string_value(json_object_get(j, "stopReason"));
	if (rs != NULL)
		snprintf(why, whysz, "%s", rs);
	if (WEXITSTATUS(st) == 2) {
		if (rs == NULL)
			snprintf(why, whysz, "the gate denied it");
		return (JH_ACP_DENY);
	}
	if (WEXITSTATUS(st) != 0) {
		snprintf(why, whysz, "the gate failed (exit status %d)",
		    WEXITSTATUS(st));
		return (JH_ACP_FAIL);
	}
	if (j == NULL)
		return (JH_ACP_NOOP);
	if (json_is_false(json_object_get(j, "continue")))
		return (JH_ACP_STOP);
	if (pd != NULL && strcmp(pd, "allow") == 0)
		return (JH_ACP_ALLOW);
	if (pd != NULL && strcmp(pd, "ask") == 0)
		return (JH_ACP_ASK);
	if (pd == NULL && hso == NULL && json_object_size(j) == 0)
		return (JH_ACP_NOOP);
	if (pd == NULL || strcmp(pd, "deny") != 0) {
		snprintf(why, whysz, "the gate's answer is not one jh-acp "
		    "knows");
		return (JH_ACP_FAIL);
	}
	return (JH_ACP_DENY);
}

/*
 * The gate of the relay (struct jh_acp_io): runs jh-hook -H acp on one
 * payload, under the -t deadline, and reads its verdict: every failure
 * is a deny, with the reason in why.
 */
static enum jh_acp_verdict
run_hook(void *arg, const char *payload, char *why, size_t whysz)
{
	const struct prog *pr = arg;
	int in, out, st = 0, killed;
	pid_t pid;
	struct jh_buf b;
	enum jh_acp_verdict v = JH_ACP_FAIL;
	json_t *j = NULL;
	struct jh_err e;

	snprintf(why, whysz, "the gate could not run");
	if (spawn_hook(pr, &pid, &in, &out) == -1)
		return (JH_ACP_FAIL);
	jh_buf_init(&b);
	killed = talk(pr, pid, &in, out, payload, &b, why, whysz) == -1;
	if (in != -1)
		close(in);
	close(out);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	if (killed || b.oom)
		goto done;
	if (WIFSIGNALED(st)) {
		snprintf(why, whysz, "the gate was killed by signal %d",
		    WTERMSIG(st));
		goto done;
	}
	if (b.len > 0 && (j = jh_json_parse((char *)b.p, b.len, &e)) ==
	    NULL) {
		snprintf(why, whysz, "the gate's answer is not JSON (%s)",
		    e.msg);
		goto done;
	}
	v = verdict(st, j, why, whysz);
done:
	json_decref(j);
	jh_buf_free(&b);
	return (v);
}

/* The relay's lines: the editor's on the standard output. */
static void
send_to(void *arg, enum jh_acp_peer to, const char *line, size_t len)
{
	const struct prog *pr = arg;
	int fd = to == JH_ACP_EDITOR ? STDOUT_FILENO : pr->to_agent;

	if (fd == -1)
		return;		/* the agent's input is closed */
	writeall(fd, line, len);
	writeall(fd, "\n", 1);
}

static void
say(void *arg, const char *text)
{
	(void)arg;
	fprintf(stderr, "%s: %s\n", PROG, text);
}

static void
find_hook(struct prog *pr)
{
	char self[PATH_MAX], *slash;
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (k <= 0)
		errx(2, "cannot find my own path in /proc/self/exe");
	self[k] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	if (snprintf(pr->hook, sizeof(pr->hook), "%s/jh-hook", self) >=
	    (int)sizeof(pr->hook))
		errx(2, "path too long: %s/jh-hook", self);
}

static char *
default_conf(void)
{
	const char *h = getenv("JH_HOME"), *x = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *c = NULL;

	if (h != NULL && h[0] == '/')
		(void)asprintf(&c, "%s/hook.conf", h);
	else if (x != NULL && x[0] == '/')
		(void)asprintf(&c, "%s/joulehook/hook.conf", x);
	else if (home != NULL && home[0] == '/')
		(void)asprintf(&c, "%s/.config/joulehook/hook.conf", home);
	return (c);
}

/* The options; returns the index of the agent's argv. */
static int
options(struct prog *pr, int argc, char *argv[])
{
	char *end;
	long lv;
	int ch;

	pr->timeout_s = 30;
	while ((ch = getopt(argc, argv, "c:hs:t:")) != -1) {
		switch (ch) {
		case 'c':
			pr->conf = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 's':
			pr->sock = optarg;
			break;
		case 't':
			lv = strtol(optarg, &end, 10);
			/* jh-hook -t takes at most 600000 ms */
			if (*optarg == '\0' || *end != '\0' || lv < 1 ||
			    lv > 600)
				errx(2, "-t %s: not a number of seconds from 1 "
				    "to 600", optarg);
			pr->timeout_s = (int)lv;
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (argc - optind < 1)
		usage(stderr, 2);
	if (pr->conf != NULL && pr->sock != NULL)
		usage(stderr, 2);
	if (pr->sock == NULL && pr->conf == NULL &&
	    (pr->conf = pr->dconf = default_conf()) == NULL)
		errx(2, "no -c, and no JH_HOME or HOME to find hook.conf in");
	if ((pr->conf != NULL && pr->conf[0] != '/') ||
	    (pr->sock != NULL && pr->sock[0] != '/'))
		errx(2, "%s: not an absolute path", pr->conf ? pr->conf :
		    pr->sock);
	return (optind);
}

/*
 * Starts the agent in a process group of its own, and the watchdog:
 * when jh-acp is gone, however it went, its end of the watchdog's pipe
 * closes, and the watchdog kills the agent's whole process group (the
 * agent's own children too, which PR_SET_PDEATHSIG does not reach).
 */
static void
start_agent(struct prog *pr, char *argv[])
{
	int a2r[2], r2a[2], wd[2], fd;
	pid_t parent = getpid(), dog;
	char c;

	if (pipe2(a2r, O_CLOEXEC) == -1 || pipe2(r2a, O_CLOEXEC) == -1 ||
	    pipe2(wd, O_CLOEXEC) == -1)
		err(2, "pipe");
	if ((pr->agent = fork()) == -1)
		err(2, "fork");
	if (pr->agent == 0) {
		/* the agent dies with jh-acp: it is never left ungated */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(r2a[0], STDIN_FILENO);
		dup2(a2r[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", PROG, argv[0],
		    strerror(errno));
		_exit(127);
	}
	setpgid(pr->agent, pr->agent);
	if ((dog = fork()) == -1) {
		kill(-pr->agent, SIGKILL);
		err(2, "fork");
	}
	if (dog == 0) {
		setpgid(0, 0);
		for (fd = 0; fd < 1024; fd++)
			if (fd != wd[0] && fd != STDERR_FILENO)
				close(fd);
		while (read(wd[0], &c, 1) == -1 && errno == EINTR)
			;
		kill(-pr->agent, SIGKILL);
		_exit(0);
	}
	close(wd[0]);
	close(r2a[0]);
	close(a2r[1]);
	pr->to_agent = r2a[1];
	pr->from_agent = a2r[0];
}

/* Reads what is there of one peer's and hands it to the relay; -1 when
 * the relay could not keep it. */
static int
pump(struct jh_acp *relay, struct input *s)
{
	char tmp[65536];
	ssize_t k;

	k = read(s->fd, tmp, sizeof(tmp));
	if (k == -1 && (errno == EINTR || errno == EAGAIN))
		return (0);
	if (k <= 0) {
		s->eof = 1;
		return (0);
	}
	return (jh_acp_feed(relay, s->peer, tmp, (size_t)k));
}

/* Relays until the agent's output ends. */
static void
relay_loop(struct prog *pr, struct jh_acp *relay, struct input *ed,
    struct input *ag)
{
	struct pollfd p[2];
	int n;

	while (!ag->eof) {
		n = 0;
		if (!ed->eof) {
			p[n].fd = ed->fd;
			p[n++].events = POLLIN;
		}
		p[n].fd = ag->fd;
		p[n++].events = POLLIN;
		if (poll(p, n, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((!ed->eof && p[0].revents && pump(relay, ed) == -1) ||
		    (p[n - 1].revents && pump(relay, ag) == -1)) {
			/* nothing more can be relayed: nor may the agent run */
			warnx("out of memory: the agent is stopped");
			kill(-pr->agent, SIGKILL);
			break;
		}
		if (ed->eof && pr->to_agent != -1) {
			/* the editor is done: so is the agent */
			close(pr->to_agent);
			pr->to_agent = -1;
			kill(-pr->agent, SIGTERM);
		}
	}
}

/* The agent's end: what the editor is owed, and the exit status. */
static int
agent_end(struct prog *pr, struct jh_acp *relay, int editor_done)
{
	char how[160];
	int st = 0;

	if (pr->to_agent != -1)
		close(pr->to_agent);
	pr->to_agent = -1;
	while (waitpid(pr->agent, &st, 0) == -1 && errno == EINTR)
		;
	kill(-pr->agent, SIGKILL);
	if (editor_done)
		return (0);
	if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "the agent was killed by signal %d",
		    WTERMSIG(st));
	else
		snprintf(how, sizeof(how), "the agent exited with status %d",
		    WEXITSTATUS(st));
	jh_acp_agent_gone(relay, how);
	return (1);
}

int
main(int argc, char *argv[])
{
	struct prog pr;
	struct jh_acp_io io;
	struct jh_acp *relay;
	struct input ed, ag;
	unsigned char rnd[8];
	char nonce[17];
	int i, rc, agentarg;

	memset(&pr, 0, sizeof(pr));
	agentarg = options(&pr, argc, argv);
	find_hook(&pr);
	signal(SIGPIPE, SIG_IGN);
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		err(2, "getrandom");
	for (i = 0; i < 8; i++)
		snprintf(nonce + 2 * i, 3, "%02x", rnd[i]);
	start_agent(&pr, argv + agentarg);
	memset(&io, 0, sizeof(io));
	io.gate = run_hook;
	io.send = send_to;
	io.note = say;
	io.arg = &pr;
	if ((relay = jh_acp_new(&io, nonce, 0)) == NULL) {
		kill(-pr.agent, SIGKILL);
		errx(2, "out of memory");
	}
	memset(&ed, 0, sizeof(ed));
	memset(&ag, 0, sizeof(ag));
	ed.fd = STDIN_FILENO;
	ed.peer = JH_ACP_EDITOR;
	ag.fd = pr.from_agent;
	ag.peer = JH_ACP_AGENT;
	relay_loop(&pr, relay, &ed, &ag);
	rc = agent_end(&pr, relay, ed.eof);
	jh_acp_free(relay);
	free(pr.dconf);
	return (rc);
}
