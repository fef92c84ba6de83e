/*
 * jh-acp: a gating relay between an ACP editor and an ACP agent
 * (jh-acp(1)).  The editor starts jh-acp in the agent's place; jh-acp
 * starts the agent and relays the Agent Client Protocol's JSON-RPC
 * lines both ways unchanged, except that the agent's
 * session/request_permission, fs/read_text_file, fs/write_text_file and
 * terminal/create requests are first decided by jh-hook -H acp, and a
 * deny is answered to the agent without the editor seeing the request.
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

#define PROG		"jh-acp"
#define MAXLINE		(16u << 20)	/* a longer line is never relayed
					   from the agent */
#define ANSWER_MAX	(1u << 20)	/* the most of jh-hook's answer read */
#define PREFIX_KEEP	512		/* of an over-long line, for its id */

enum verdict { V_NOOP, V_ALLOW, V_ASK, V_DENY, V_STOP };

struct side {
	int fd;
	struct jh_buf in;
	int eof;
	int skipping;		/* inside a line over MAXLINE */
	size_t skipped;
	char prefix[PREFIX_KEEP + 1];
};

struct relay {
	const char *conf;	/* -c */
	const char *sock;	/* -s */
	char hook[PATH_MAX];	/* jh-hook beside jh-acp */
	int timeout_s;		/* -t */
	int to_agent;		/* the agent's standard input */
	pid_t agent;
	json_t *cwd;		/* sessionId -> cwd */
	json_t *newreq;		/* editor's session/new id -> cwd */
	json_t *calls;		/* sessionId \n toolCallId -> merged call */
	json_t *gated;		/* sessionId \n toolCallId -> 1 */
	json_t *asks;		/* request id -> {sessionId, call} */
	json_t *dropped;	/* request id -> 1: answered cancelled */
	json_t *approved;	/* [{sessionId, target}] the editor approved */
	json_t *outstanding;	/* the editor's request ids, unanswered */
	json_t *ops;		/* fs/terminal request id -> {sessionId,
				   method, params, callid}, relayed */
	json_t *prompts;	/* the editor's session/prompt id -> sessionId */
	char nonce[17];		/* this relay's, in the call ids it makes */
	unsigned long nops;
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

static void
sendjson(int fd, json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	if (t == NULL)
		return;
	writeall(fd, t, strlen(t));
	writeall(fd, "\n", 1);
	free(t);
}

/* The JSON text of an id, as a key. */
static char *
idkey(const json_t *id)
{
	return (json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY));
}

static char *
callkey(const char *sid, const char *tcid)
{
	char *k;

	if (asprintf(&k, "%s\n%s", sid, tcid) == -1)
		return (NULL);
	return (k);
}

static void
respond_result(int fd, const json_t *id, json_t *result)
{
	json_t *r = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
	    "result", result);

	if (r != NULL)
		sendjson(fd, r);
	json_decref(r);
}

static void
respond_error(int fd, const json_t *id, int code, const char *msg)
{
	json_t *r = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0",
	    "id", id, "error", "code", code, "message", msg);

	if (r != NULL)
		sendjson(fd, r);
	json_decref(r);
}

/* Tells the user, in the editor's thread, what was refused and why. */
static void
tell_user(const char *sid, const char *text)
{
	json_t *n;

	fprintf(stderr, "%s: %s\n", PROG, text);
	if (sid == NULL)
		return;
	n = json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:{s:s,s:s}}}}", "jsonrpc",
	    "2.0", "method", "session/update", "params", "sessionId", sid,
	    "update", "sessionUpdate", "agent_message_chunk", "content",
	    "type", "text", "text", text);
	if (n != NULL)
		sendjson(STDOUT_FILENO, n);
	json_decref(n);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + ts.tv_nsec / 1e9);
}

/*
 * Runs jh-hook -H acp on one payload, under the -t deadline, and reads
 * its verdict: every failure is a deny, with the reason in why.
 */
static enum verdict
run_hook(struct relay *r, const char *payload, char *why, size_t whysz)
{
	int in[2], out[2], st = 0;
	pid_t pid;
	struct jh_buf b;
	size_t off = 0, plen = strlen(payload);
	double end = now_s() + r->timeout_s;
	enum verdict v = V_DENY;
	char tms[32];
	json_t *j = NULL, *hso;
	const char *pd, *rs;
	struct jh_err e;

	snprintf(why, whysz, "the gate could not run");
	if (pipe2(in, O_CLOEXEC) == -1)
		return (V_DENY);
	if (pipe2(out, O_CLOEXEC) == -1) {
		close(in[0]);
		close(in[1]);
		return (V_DENY);
	}
	snprintf(tms, sizeof(tms), "%d", r->timeout_s * 1000);
	if ((pid = fork()) == -1) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return (V_DENY);
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		if (r->sock != NULL)
			execl(r->hook, "jh-hook", "-s", r->sock, "-H", "acp",
			    "-t", tms, (char *)NULL);
		else
			execl(r->hook, "jh-hook", "-c", r->conf, "-H", "acp",
			    (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s\n", PROG, r->hook,
		    strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	jh_buf_init(&b);
	for (;;) {
		struct pollfd p[2];
		int n = 0, ms = (int)((end - now_s()) * 1000), ow = -1;
		char tmp[8192];
		ssize_t k;

		if (ms <= 0) {
			snprintf(why, whysz, "the gate did not answer within "
			    "%d s", r->timeout_s);
			kill(-pid, SIGKILL);
			goto reap;
		}
		p[n].fd = out[0];
		p[n++].events = POLLIN;
		if (in[1] != -1) {
			ow = n;
			p[n].fd = in[1];
			p[n++].events = POLLOUT;
		}
		if (poll(p, n, ms) == -1) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL);
			goto reap;
		}
		if (ow != -1 && p[ow].revents) {
			k = write(in[1], payload + off, plen - off);
			if (k > 0)
				off += (size_t)k;
			if ((k == -1 && errno != EAGAIN && errno != EINTR) ||
			    off == plen) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (p[0].revents) {
			k = read(out[0], tmp, sizeof(tmp));
			if (k == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0)
				break;
			if (b.len + (size_t)k > ANSWER_MAX) {
				snprintf(why, whysz, "the gate's answer is over "
				    "%u bytes", ANSWER_MAX);
				kill(-pid, SIGKILL);
				goto reap;
			}
			jh_buf_add(&b, tmp, (size_t)k);
		}
	}
	v = V_NOOP;
reap:
	if (in[1] != -1)
		close(in[1]);
	close(out[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	if (v == V_DENY || b.oom)
		goto done;
	v = V_DENY;
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
	hso = json_object_get(j, "hookSpecificOutput");
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
		goto done;
	}
	if (WEXITSTATUS(st) != 0) {
		snprintf(why, whysz, "the gate failed (exit status %d)",
		    WEXITSTATUS(st));
		goto done;
	}
	if (j == NULL)
		v = V_NOOP;
	else if (json_is_false(json_object_get(j, "continue")))
		v = V_STOP;
	else if (pd != NULL && strcmp(pd, "allow") == 0)
		v = V_ALLOW;
	else if (pd != NULL && strcmp(pd, "ask") == 0)
		v = V_ASK;
	else if (pd == NULL && hso == NULL && json_object_size(j) == 0)
		v = V_NOOP;
	else if (pd == NULL || strcmp(pd, "deny") != 0)
		snprintf(why, whysz, "the gate's answer is not one jh-acp "
		    "knows");
done:
	json_decref(j);
	jh_buf_free(&b);
	return (v);
}

/* The payload of jh-normalize(1) HOSTS "acp", as text. */
static char *
payload(struct relay *r, const char *event, const char *sid,
    const char *method, json_t *call, json_t *params, json_t *resp,
    const char *callid)
{
	json_t *p = json_object(), *cwd = json_object_get(r->cwd, sid);
	char *t;

	if (p == NULL)
		return (NULL);
	json_object_set_new(p, "hook_event_name", json_string(event));
	json_object_set_new(p, "session_id", json_string(sid));
	if (cwd != NULL)
		json_object_set(p, "cwd", cwd);
	if (method != NULL)
		json_object_set_new(p, "acp_method", json_string(method));
	if (callid != NULL)
		json_object_set_new(p, "tool_use_id", json_string(callid));
	if (call != NULL)
		json_object_set(p, "tool_call", call);
	if (params != NULL)
		json_object_set(p, "params", params);
	if (resp != NULL)
		json_object_set(p, "tool_response", resp);
	t = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	return (t);
}

/* Merges a tool_call or tool_call_update into the session's cache. */
static json_t *
remember_call(struct relay *r, const char *sid, json_t *upd)
{
	const char *id = json_string_value(json_object_get(upd,
	    "toolCallId"));
	json_t *c, *m, *nm;
	char *k;

	if (id == NULL || (k = callkey(sid, id)) == NULL)
		return (NULL);
	if ((c = json_object_get(r->calls, k)) == NULL) {
		c = json_object();
		json_object_set_new(r->calls, k, c);
	}
	m = json_deep_copy(json_object_get(c, "_meta"));
	nm = json_object_get(upd, "_meta");
	json_object_update(c, upd);
	json_object_del(c, "sessionUpdate");
	if (json_is_object(m) && json_is_object(nm)) {
		json_object_update_recursive(m, nm);
		json_object_set(c, "_meta", m);
	}
	json_decref(m);
	free(k);
	return (c);
}

static const char *
sid_of(json_t *params)
{
	return (json_string_value(json_object_get(params, "sessionId")));
}

/* The option of the first of the kinds offered, or NULL. */
static const char *
pick(json_t *options, const char *k1, const char *k2)
{
	size_t i;
	json_t *o;
	const char *want[2] = { k1, k2 }, *kind, *id;
	int w;

	for (w = 0; w < 2; w++)
		json_array_foreach(options, i, o) {
			kind = json_string_value(json_object_get(o, "kind"));
			id = json_string_value(json_object_get(o, "optionId"));
			if (kind != NULL && id != NULL &&
			    strcmp(kind, want[w]) == 0)
				return (id);
		}
	return (NULL);
}

static void
answer_option(struct relay *r, const json_t *id, const char *opt)
{
	json_t *res;

	if (opt != NULL)
		res = json_pack("{s:{s:s,s:s}}", "outcome", "outcome",
		    "selected", "optionId", opt);
	else
		res = json_pack("{s:{s:s}}", "outcome", "outcome",
		    "cancelled");
	respond_result(r->to_agent, id, res);
}

/*
 * What a call the editor approved may do through the editor: write or
 * read its path (with its content, when the call names it), or run its
 * command.  A new reference, or NULL.
 */
static json_t *
call_target(json_t *call)
{
	json_t *in = json_object_get(call, "rawInput"), *v, *t;
	json_t *loc = json_array_get(json_object_get(call, "locations"), 0);

	if (json_is_string(v = json_object_get(in, "command")))
		return (json_pack("{s:O}", "command", v));
	if (!json_is_string(v = json_object_get(in, "file_path")) &&
	    !json_is_string(v = json_object_get(loc, "path")))
		return (NULL);
	t = json_pack("{s:O}", "path", v);
	if (t != NULL && json_is_string(v = json_object_get(in, "content")))
		json_object_set(t, "content", v);
	return (t);
}

/* The permission request: decided here, or asked of the editor. */
static void
gate_permission(struct relay *r, json_t *msg, const char *line, size_t n)
{
	json_t *id = json_object_get(msg, "id");
	json_t *params = json_object_get(msg, "params");
	json_t *tc = json_object_get(params, "toolCall");
	json_t *opts = json_object_get(params, "options"), *call, *a;
	const char *sid = sid_of(params), *tcid, *title;
	char why[2048], msgtxt[2600], *p, *k;
	enum verdict v;

	tcid = json_string_value(json_object_get(tc, "toolCallId"));
	if (sid == NULL || tcid == NULL || !json_is_array(opts)) {
		answer_option(r, id, pick(opts, "reject_once",
		    "reject_always"));
		tell_user(sid, "joulehook refused a permission request that "
		    "names no session, tool call id or options: the agent "
		    "sent a malformed request\n");
		return;
	}
	call = json_deep_copy(remember_call(r, sid, tc));
	p = payload(r, "PreToolUse", sid, "session/request_permission",
	    call, NULL, NULL, NULL);
	v = p != NULL ? run_hook(r, p, why, sizeof(why)) : V_DENY;
	if (p == NULL)
		snprintf(why, sizeof(why), "out of memory");
	free(p);
	if ((k = callkey(sid, tcid)) != NULL)
		json_object_set_new(r->gated, k, json_true());
	free(k);
	title = json_string_value(json_object_get(call, "title"));
	if (title == NULL)
		title = tcid;
	switch (v) {
	case V_ALLOW:
		answer_option(r, id, pick(opts, "allow_once",
		    "allow_always"));
		break;
	case V_NOOP:
	case V_ASK:
		/* the editor asks the user: its answer is relayed */
		a = json_pack("{s:s,s:O,s:O}", "sessionId", sid, "call",
		    call, "options", opts);
		if ((k = idkey(id)) != NULL && a != NULL)
			json_object_set(r->asks, k, a);
		json_decref(a);
		free(k);
		writeall(STDOUT_FILENO, line, n);
		writeall(STDOUT_FILENO, "\n", 1);
		break;
	default:
		answer_option(r, id, pick(opts, "reject_once",
		    "reject_always"));
		snprintf(msgtxt, sizeof(msgtxt), "joulehook refused %s: %s\n",
		    title, strncmp(why, "joulehook: ", 11) == 0 ? why + 11 :
		    why);
		tell_user(sid, msgtxt);
		break;
	}
	json_decref(call);
}

/* A call the editor approved: consumed by the one fs or terminal
 * request that carries it out. */
static int
take_approval(struct relay *r, const char *sid, const char *method,
    json_t *params)
{
	size_t i;
	json_t *a, *t, *c;
	int term = strcmp(method, "terminal/create") == 0;

	json_array_foreach(r->approved, i, a) {
		t = json_object_get(a, "target");
		if (strcmp(json_string_value(json_object_get(a, "sessionId")),
		    sid) != 0)
			continue;
		if (term ? !json_equal(json_object_get(t, "command"),
		    json_object_get(params, "command")) ||
		    json_array_size(json_object_get(params, "args")) > 0 :
		    !json_equal(json_object_get(t, "path"),
		    json_object_get(params, "path")))
			continue;
		c = json_object_get(t, "content");
		if (!term && c != NULL &&
		    strcmp(method, "fs/write_text_file") == 0 &&
		    !json_equal(c, json_object_get(params, "content")))
			continue;
		json_array_remove(r->approved, i);
		return (1);
	}
	return (0);
}

/* fs/read_text_file, fs/write_text_file, terminal/create. */
static void
gate_client_op(struct relay *r, json_t *msg, const char *method,
    const char *line, size_t n)
{
	json_t *id = json_object_get(msg, "id");
	json_t *params = json_object_get(msg, "params");
	const char *sid = sid_of(params);
	char why[2048], txt[2600], callid[64], *p, *k = NULL;
	enum verdict v = V_DENY;
	int noask = 0;
	json_t *op;

	snprintf(why, sizeof(why), "the request names no session");
	/* the request has no call id: one of this relay's, never reused */
	snprintf(callid, sizeof(callid), "acp-%s-%lu", r->nonce, ++r->nops);
	if (sid != NULL && (p = payload(r, "PreToolUse", sid, method, NULL,
	    params, NULL, callid)) != NULL) {
		v = run_hook(r, p, why, sizeof(why));
		free(p);
	}
	if (v == V_ASK || v == V_NOOP) {
		if (take_approval(r, sid, method, params))
			v = V_ALLOW;
		else if (v == V_ASK) {
			v = V_DENY;
			noask = 1;
		} else
			v = V_ALLOW;	/* no opinion: the editor's own */
	}
	if (v == V_STOP) {
		v = V_DENY;
		snprintf(why, sizeof(why), "the gate's answer is not a decision");
	}
	if (v == V_ALLOW) {
		/* its result, when the editor answers, is bound to it */
		op = json_pack("{s:s,s:s,s:O,s:s}", "sessionId", sid, "method",
		    method, "params", params, "callid", callid);
		if (op != NULL && (k = idkey(id)) != NULL)
			json_object_set(r->ops, k, op);
		free(k);
		json_decref(op);
		writeall(STDOUT_FILENO, line, n);
		writeall(STDOUT_FILENO, "\n", 1);
		return;
	}
	snprintf(txt, sizeof(txt), "joulehook refused %s: %s%s", method,
	    strncmp(why, "joulehook: ", 11) == 0 ? why + 11 : why, noask ?
	    " (it needs the user's approval, and the agent asked for none "
	    "for this request)" : "");
	respond_error(r->to_agent, id, -32000, txt);
	strncat(txt, "\n", sizeof(txt) - strlen(txt) - 1);
	tell_user(sid, txt);
}

/* What ran is not what was decided: the user is told, the turn ended. */
static void
stop_turn(struct relay *r, const char *sid, const char *what,
    const char *why)
{
	char txt[2600];
	json_t *c;

	snprintf(txt, sizeof(txt), "joulehook stopped the turn after %s: "
	    "%s\n", what, strncmp(why, "joulehook: ", 11) == 0 ? why + 11 :
	    why);
	tell_user(sid, txt);
	/* the call has run: what is left to do is to end the turn */
	c = json_pack("{s:s,s:s,s:{s:s}}", "jsonrpc", "2.0", "method",
	    "session/cancel", "params", "sessionId", sid);
	if (c != NULL)
		sendjson(r->to_agent, c);
	json_decref(c);
}

/* The editor's answer to a relayed fs or terminal request: its result,
 * bound to the decision by the post pipeline. */
static void
post_op(struct relay *r, json_t *op, json_t *m)
{
	const char *sid = json_string_value(json_object_get(op, "sessionId"));
	json_t *err = json_object_get(m, "error");
	char why[2048], *p;
	enum verdict v;

	p = payload(r, err != NULL ? "PostToolUseFailure" : "PostToolUse",
	    sid, json_string_value(json_object_get(op, "method")), NULL,
	    json_object_get(op, "params"), err != NULL ? err :
	    json_object_get(m, "result"), json_string_value(json_object_get(op,
	    "callid")));
	if (p == NULL)
		return;
	v = run_hook(r, p, why, sizeof(why));
	free(p);
	if (v != V_NOOP)
		stop_turn(r, sid, json_string_value(json_object_get(op,
		    "method")), why);
}

/* A turn ended: the session's Stop, which closes its unanswered asks
 * and, with a sink, checkpoints its log (jh-hook(1)). */
static void
turn_end(struct relay *r, const char *sid)
{
	char why[2048], *p;

	if ((p = payload(r, "Stop", sid, NULL, NULL, NULL, NULL, NULL)) ==
	    NULL)
		return;
	if (run_hook(r, p, why, sizeof(why)) != V_NOOP)
		fprintf(stderr, "%s: at the end of the turn: %s\n", PROG, why);
	free(p);
}

/* A tool call that ended: its result bound by the post pipeline. */
static void
post_call(struct relay *r, const char *sid, json_t *call)
{
	const char *st = json_string_value(json_object_get(call, "status"));
	const char *tcid = json_string_value(json_object_get(call,
	    "toolCallId"));
	json_t *resp;
	char why[2048], *p, *k;
	enum verdict v;
	int gated;

	if (st == NULL || tcid == NULL || (strcmp(st, "completed") != 0 &&
	    strcmp(st, "failed") != 0))
		return;
	if ((k = callkey(sid, tcid)) == NULL)
		return;
	gated = json_object_get(r->gated, k) != NULL;
	json_object_del(r->gated, k);
	free(k);
	resp = json_object_get(call, "rawOutput");
	if (resp == NULL)
		resp = json_object_get(call, "content");
	p = payload(r, strcmp(st, "failed") == 0 ? "PostToolUseFailure" :
	    "PostToolUse", sid, "session/update", call, NULL, resp, NULL);
	if (p == NULL)
		return;
	v = run_hook(r, p, why, sizeof(why));
	free(p);
	if (!gated) {
		/* it ran without asking: its result is sealed, no more */
		if (v != V_NOOP)
			fprintf(stderr, "%s: observed only (the agent did not "
			    "ask): %s: %s\n", PROG, tcid, why);
		return;
	}
	if (v == V_NOOP)
		return;
	stop_turn(r, sid, tcid, why);
}

static int
gated_method(const char *m)
{
	return (strcmp(m, "session/request_permission") == 0 ||
	    strcmp(m, "fs/read_text_file") == 0 ||
	    strcmp(m, "fs/write_text_file") == 0 ||
	    strcmp(m, "terminal/create") == 0);
}

/* A line from the agent. */
static void
from_agent(struct relay *r, const char *line, size_t n)
{
	struct jh_err e;
	json_t *m = jh_json_parse(line, n, &e), *id, *params, *upd, *c;
	json_t *ended = NULL;
	const char *method, *sid, *su;
	char *k;

	if (!json_is_object(m)) {
		/*
		 * Not JSON here may still be JSON to the editor (a lone
		 * surrogate, a repeated key): it is never relayed.
		 */
		fprintf(stderr, "%s: dropped a line from the agent that is "
		    "not a JSON-RPC object (%s)\n", PROG, m == NULL ? e.msg :
		    "not an object");
		if (m == NULL)
			respond_error(r->to_agent, json_null(), -32700,
			    "jh-acp: parse error: the line was not relayed");
		else
			respond_error(r->to_agent, json_null(), -32600,
			    "jh-acp: not a JSON-RPC object: not relayed");
		json_decref(m);
		return;
	}
	method = json_string_value(json_object_get(m, "method"));
	id = json_object_get(m, "id");
	params = json_object_get(m, "params");
	if (json_object_get(m, "method") != NULL && method == NULL) {
		respond_error(r->to_agent, id ? id : json_null(), -32600,
		    "jh-acp: the method is not a string: not relayed");
		json_decref(m);
		return;
	}
	if (method != NULL && id == NULL && gated_method(method)) {
		/* a gated request without an id: nothing could answer it */
		fprintf(stderr, "%s: dropped a %s without an id from the agent\n",
		    PROG, method);
		json_decref(m);
		return;
	}
	if (method != NULL && id != NULL) {
		if (strcmp(method, "session/request_permission") == 0)
			gate_permission(r, m, line, n);
		else if (gated_method(method))
			gate_client_op(r, m, method, line, n);
		else {
			writeall(STDOUT_FILENO, line, n);
			writeall(STDOUT_FILENO, "\n", 1);
		}
		json_decref(m);
		return;
	}
	if (method == NULL && id != NULL && (k = idkey(id)) != NULL) {
		/* a response to the editor's request */
		json_t *cwd = json_object_get(r->newreq, k);
		const char *nsid = json_string_value(json_object_get(
		    json_object_get(m, "result"), "sessionId"));
		if (cwd != NULL && nsid != NULL)
			json_object_set(r->cwd, nsid, cwd);
		json_object_del(r->newreq, k);
		json_object_del(r->outstanding, k);
		if ((ended = json_object_get(r->prompts, k)) != NULL) {
			json_incref(ended);
			json_object_del(r->prompts, k);
		}
		free(k);
	}
	writeall(STDOUT_FILENO, line, n);
	writeall(STDOUT_FILENO, "\n", 1);
	if (ended != NULL) {
		turn_end(r, json_string_value(ended));
		json_decref(ended);
	}
	if (method != NULL && strcmp(method, "session/update") == 0 &&
	    (sid = sid_of(params)) != NULL) {
		upd = json_object_get(params, "update");
		su = json_string_value(json_object_get(upd, "sessionUpdate"));
		if (su != NULL && (strcmp(su, "tool_call") == 0 ||
		    strcmp(su, "tool_call_update") == 0) &&
		    (c = remember_call(r, sid, upd)) != NULL) {
			c = json_deep_copy(c);
			post_call(r, sid, c);
			json_decref(c);
		}
	}
	json_decref(m);
}

/* A line from the editor. */
static void
from_editor(struct relay *r, const char *line, size_t n)
{
	struct jh_err e;
	json_t *m = jh_json_parse(line, n, &e), *id, *params, *a, *res;
	json_t *o, *t, *op = NULL;
	const char *method, *sid, *opt, *kind;
	char *k = NULL;
	size_t i;

	if (!json_is_object(m))
		goto relay;
	method = json_string_value(json_object_get(m, "method"));
	id = json_object_get(m, "id");
	params = json_object_get(m, "params");
	if (id != NULL)
		k = idkey(id);
	if (method != NULL && id != NULL && k != NULL) {
		json_object_set_new(r->outstanding, k, json_incref(id));
		if (strcmp(method, "session/new") == 0 &&
		    json_is_string(json_object_get(params, "cwd")))
			json_object_set(r->newreq, k,
			    json_object_get(params, "cwd"));
		if (strcmp(method, "session/prompt") == 0 &&
		    (sid = sid_of(params)) != NULL)
			json_object_set_new(r->prompts, k, json_string(sid));
		if (strcmp(method, "session/load") == 0 &&
		    (sid = sid_of(params)) != NULL &&
		    json_is_string(json_object_get(params, "cwd")))
			json_object_set(r->cwd, sid,
			    json_object_get(params, "cwd"));
	} else if (method == NULL && k != NULL) {
		if ((op = json_object_get(r->ops, k)) != NULL) {
			json_incref(op);
			json_object_del(r->ops, k);
		}
		if (json_object_get(r->dropped, k) != NULL) {
			/* answered cancelled already: the agent has it */
			json_object_del(r->dropped, k);
			goto drop;
		}
		a = json_object_get(r->asks, k);
		res = json_object_get(json_object_get(json_object_get(m,
		    "result"), "outcome"), "optionId");
		opt = json_string_value(res);
		if (a != NULL && opt != NULL) {
			/* the user chose an allow_* option: the call's fs or
			 * terminal request is approved with it */
			json_array_foreach(json_object_get(a, "options"), i, o) {
				kind = json_string_value(json_object_get(o,
				    "kind"));
				if (kind == NULL || strncmp(kind, "allow_", 6) ||
				    !json_equal(json_object_get(o, "optionId"),
				    res))
					continue;
				t = call_target(json_object_get(a, "call"));
				if (t != NULL)
					json_array_append_new(r->approved,
					    json_pack("{s:O,s:o}", "sessionId",
					    json_object_get(a, "sessionId"),
					    "target", t));
				break;
			}
		}
		json_object_del(r->asks, k);
	} else if (method != NULL && strcmp(method, "session/cancel") == 0 &&
	    (sid = sid_of(params)) != NULL) {
		const char *key;
		json_t *tmp;
		void *it;

		json_object_foreach_safe(r->asks, it, key, a) {
			if (strcmp(json_string_value(json_object_get(a,
			    "sessionId")), sid) != 0)
				continue;
			tmp = json_loads(key, JSON_DECODE_ANY, NULL);
			if (tmp != NULL)
				answer_option(r, tmp, NULL);
			json_decref(tmp);
			json_object_set_new(r->dropped, key, json_true());
			json_object_del(r->asks, key);
		}
	}
relay:
	writeall(r->to_agent, line, n);
	writeall(r->to_agent, "\n", 1);
	if (op != NULL)
		post_op(r, op, m);
drop:
	json_decref(op);
	free(k);
	json_decref(m);
}

/* An over-long line from the agent: never relayed; a request is
 * answered with an error when its id can be read from its start. */
static void
overlong(struct relay *r, struct side *s)
{
	const char *p = strstr(s->prefix, "\"id\":");
	json_t *id = NULL;
	char *end;
	long long v;

	fprintf(stderr, "%s: dropped a line from the agent of more than %u "
	    "bytes\n", PROG, MAXLINE);
	if (p == NULL)
		return;
	p += 5;
	while (*p == ' ')
		p++;
	v = strtoll(p, &end, 10);
	if (end != p)
		id = json_integer(v);
	else if (*p == '"' && (end = strchr(p + 1, '"')) != NULL)
		id = json_stringn(p + 1, (size_t)(end - p - 1));
	if (id != NULL && strstr(s->prefix, "\"method\"") != NULL)
		respond_error(r->to_agent, id, -32600, "jh-acp: the request "
		    "is too long to be checked: not relayed");
	json_decref(id);
}

/* Reads what is there and hands each complete line on. */
static void
pump(struct relay *r, struct side *s, int agent)
{
	char tmp[65536], *nl;
	ssize_t k;
	size_t off, len;

	k = read(s->fd, tmp, sizeof(tmp));
	if (k == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		s->eof = 1;
		return;
	}
	jh_buf_add(&s->in, tmp, (size_t)k);
	off = 0;
	while (off < s->in.len) {
		nl = memchr(s->in.p + off, '\n', s->in.len - off);
		len = nl != NULL ? (size_t)(nl - (char *)s->in.p) - off :
		    s->in.len - off;
		if (s->skipping) {
			s->skipped += len;
			if (nl == NULL) {
				off = s->in.len;
				break;
			}
			s->skipping = 0;
			if (agent)
				overlong(r, s);
			off += len + 1;
			continue;
		}
		if (nl == NULL) {
			if (len > MAXLINE && agent) {
				memcpy(s->prefix, s->in.p + off, PREFIX_KEEP);
				s->prefix[PREFIX_KEEP] = '\0';
				s->skipping = 1;
				s->skipped = len;
				off = s->in.len;
			}
			break;
		}
		if (len > MAXLINE && agent) {
			memcpy(s->prefix, s->in.p + off, PREFIX_KEEP);
			s->prefix[PREFIX_KEEP] = '\0';
			overlong(r, s);
		} else if (len > 0 && !(len == 1 && s->in.p[off] == '\r')) {
			if (agent)
				from_agent(r, (char *)s->in.p + off, len);
			else
				from_editor(r, (char *)s->in.p + off, len);
		}
		off += len + 1;
	}
	memmove(s->in.p, s->in.p + off, s->in.len - off);
	s->in.len -= off;
}

/* What is left when the agent is gone: an error for every request of
 * the editor's it did not answer. */
static void
agent_gone(struct relay *r, int st)
{
	const char *key;
	json_t *id;
	char msg[160];

	if (WIFSIGNALED(st))
		snprintf(msg, sizeof(msg), "jh-acp: the agent was killed by "
		    "signal %d", WTERMSIG(st));
	else
		snprintf(msg, sizeof(msg), "jh-acp: the agent exited with "
		    "status %d", WEXITSTATUS(st));
	json_object_foreach(r->outstanding, key, id)
		respond_error(STDOUT_FILENO, id, -32603, msg);
	fprintf(stderr, "%s: %s\n", PROG, msg + 8);
}

static void
find_hook(struct relay *r)
{
	char self[PATH_MAX], *slash;
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (k <= 0)
		errx(2, "cannot find my own path in /proc/self/exe");
	self[k] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	if (snprintf(r->hook, sizeof(r->hook), "%s/jh-hook", self) >=
	    (int)sizeof(r->hook))
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

int
main(int argc, char *argv[])
{
	struct relay r;
	struct side ed, ag;
	int ch, a2r[2], r2a[2], wd[2], st = 0, rc = 0;
	pid_t parent = getpid(), dog;
	char *end, *dconf = NULL;
	long lv;

	memset(&r, 0, sizeof(r));
	r.timeout_s = 30;
	while ((ch = getopt(argc, argv, "c:hs:t:")) != -1) {
		switch (ch) {
		case 'c':
			r.conf = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 's':
			r.sock = optarg;
			break;
		case 't':
			lv = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || lv < 1 ||
			    lv > 3600)
				errx(2, "-t %s: not a number of seconds from 1 "
				    "to 3600", optarg);
			r.timeout_s = (int)lv;
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(stderr, 2);
	if (r.conf != NULL && r.sock != NULL)
		usage(stderr, 2);
	if (r.sock == NULL && r.conf == NULL &&
	    (r.conf = dconf = default_conf()) == NULL)
		errx(2, "no -c, and no JH_HOME or HOME to find hook.conf in");
	if ((r.conf != NULL && r.conf[0] != '/') ||
	    (r.sock != NULL && r.sock[0] != '/'))
		errx(2, "%s: not an absolute path", r.conf ? r.conf : r.sock);
	find_hook(&r);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(a2r, O_CLOEXEC) == -1 || pipe2(r2a, O_CLOEXEC) == -1 ||
	    pipe2(wd, O_CLOEXEC) == -1)
		err(2, "pipe");
	if ((r.agent = fork()) == -1)
		err(2, "fork");
	if (r.agent == 0) {
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
	setpgid(r.agent, r.agent);
	/*
	 * The watchdog: when jh-acp is gone, however it went, its end of
	 * wd closes, and the watchdog kills the agent's whole process
	 * group (the agent's own children too, which PR_SET_PDEATHSIG
	 * does not reach).
	 */
	if ((dog = fork()) == -1) {
		kill(-r.agent, SIGKILL);
		err(2, "fork");
	}
	if (dog == 0) {
		char c;
		int fd;

		setpgid(0, 0);
		for (fd = 0; fd < 1024; fd++)
			if (fd != wd[0] && fd != STDERR_FILENO)
				close(fd);
		while (read(wd[0], &c, 1) == -1 && errno == EINTR)
			;
		kill(-r.agent, SIGKILL);
		_exit(0);
	}
	close(wd[0]);
	close(r2a[0]);
	close(a2r[1]);
	r.to_agent = r2a[1];
	r.cwd = json_object();
	r.newreq = json_object();
	r.calls = json_object();
	r.gated = json_object();
	r.asks = json_object();
	r.dropped = json_object();
	r.approved = json_array();
	r.outstanding = json_object();
	r.ops = json_object();
	r.prompts = json_object();
	{
		unsigned char rnd[8];
		int i;

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			err(2, "getrandom");
		for (i = 0; i < 8; i++)
			snprintf(r.nonce + 2 * i, 3, "%02x", rnd[i]);
	}
	memset(&ed, 0, sizeof(ed));
	memset(&ag, 0, sizeof(ag));
	ed.fd = STDIN_FILENO;
	ag.fd = a2r[0];
	jh_buf_init(&ed.in);
	jh_buf_init(&ag.in);
	while (!ag.eof) {
		struct pollfd p[2];
		int n = 0;

		if (!ed.eof) {
			p[n].fd = ed.fd;
			p[n++].events = POLLIN;
		}
		p[n].fd = ag.fd;
		p[n++].events = POLLIN;
		if (poll(p, n, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!ed.eof && p[0].revents)
			pump(&r, &ed, 0);
		if (p[n - 1].revents)
			pump(&r, &ag, 1);
		if (ed.eof && r.to_agent != -1) {
			/* the editor is done: so is the agent */
			close(r.to_agent);
			r.to_agent = -1;
			kill(-r.agent, SIGTERM);
		}
	}
	if (r.to_agent != -1)
		close(r.to_agent);
	r.to_agent = open("/dev/null", O_WRONLY);
	while (waitpid(r.agent, &st, 0) == -1 && errno == EINTR)
		;
	kill(-r.agent, SIGKILL);
	if (!ed.eof) {
		agent_gone(&r, st);
		rc = 1;
	}
	json_decref(r.cwd);
	json_decref(r.newreq);
	json_decref(r.calls);
	json_decref(r.gated);
	json_decref(r.asks);
	json_decref(r.dropped);
	json_decref(r.approved);
	json_decref(r.outstanding);
	json_decref(r.ops);
	json_decref(r.prompts);
	jh_buf_free(&ed.in);
	jh_buf_free(&ag.in);
	free(dconf);
	return (rc);
}
