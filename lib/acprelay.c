/*
 * joulehook: the relay of jh-acp(1) between an ACP editor and an ACP
 * agent (acprelay.h).  Lines pass both ways unchanged, except that the
 * agent's session/request_permission, fs/read_text_file,
 * fs/write_text_file and terminal/create requests are first decided by
 * the gate, and a deny is answered to the agent without the editor
 * seeing the request.  No process, file or descriptor is touched here:
 * what goes out goes through the caller's callbacks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "acprelay.h"
#include "buf.h"
#include "json.h"
#include "util.h"

#define TEXT_MAX	2600	/* a message for the user or the agent */

struct side {
	struct jh_buf in;
	int skipping;		/* inside a line over maxline */
	char prefix[JH_ACP_PREFIX + 1];
};

struct jh_acp {
	struct jh_acp_io io;
	size_t maxline;
	struct side side[2];	/* by enum jh_acp_peer */
	json_t *cwd;		/* sessionId -> cwd */
	json_t *newreq;		/* editor's session/new id -> cwd */
	json_t *calls;		/* sessionId \n toolCallId -> merged call */
	json_t *gated;		/* sessionId \n toolCallId -> 1 */
	json_t *pending;	/* the agent's requests the editor has, by
				   id: {id, ask: {sessionId, call, options}
				   (a permission request), op: {sessionId,
				   method, params, callid} (fs, terminal),
				   answered: true (cancelled by the relay)} */
	json_t *approved;	/* [{sessionId, target}] the editor approved */
	json_t *outstanding;	/* the editor's requests the agent has, by
				   id: {id, n} */
	json_t *prompts;	/* the editor's session/prompt id -> sessionId */
	char nonce[17];		/* in the call ids this relay makes */
	unsigned long nops;
};

static void
note(struct jh_acp *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
note(struct jh_acp *r, const char *fmt, ...)
{
	char *t;
	va_list ap;
	int n;

	if (r->io.note == NULL)
		return;
	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n == -1)
		return;
	r->io.note(r->io.arg, t);
	free(t);
}

/*
 * A text for the user or the agent, as snprintf(3) makes it, made UTF-8
 * again (jh_utf8_clean): a text cut short in a character (a reason
 * longer than the buffer) would make no JSON, and no answer at all.
 */
static void
textf(char *buf, size_t sz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
textf(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
	jh_utf8_clean(buf);
}

static void
send_line(struct jh_acp *r, enum jh_acp_peer to, const char *line, size_t n)
{
	r->io.send(r->io.arg, to, line, n);
}

static void
send_json(struct jh_acp *r, enum jh_acp_peer to, json_t *j)
{
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	if (t == NULL)
		return;
	send_line(r, to, t, strlen(t));
	free(t);
}

/* The JSON text of an id, as a key. */
static char *
idkey(const json_t *id)
{
	char *k;
	double d;

	/*
	 * 5 and 5.0 are one number to an editor in JavaScript: an integral
	 * real is keyed as that integer, so neither can stand for the other.
	 */
	if (json_is_real(id)) {
		d = json_real_value(id);
		if (d > -9007199254740992.0 && d < 9007199254740992.0 &&
		    d == (double)(long long)d) {
			if (asprintf(&k, "%lld", (long long)d) == -1)
				return (NULL);
			return (k);
		}
	}
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
respond_result(struct jh_acp *r, const json_t *id, json_t *result)
{
	json_t *m = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
	    "result", result);

	if (m != NULL)
		send_json(r, JH_ACP_AGENT, m);
	json_decref(m);
}

static void
respond_error(struct jh_acp *r, enum jh_acp_peer to, const json_t *id,
    int code, const char *msg)
{
	json_t *m = json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0",
	    "id", id, "error", "code", code, "message", msg);

	if (m != NULL)
		send_json(r, to, m);
	json_decref(m);
}

/* Tells the user, in the editor's thread, what was refused and why. */
static void
tell_user(struct jh_acp *r, const char *sid, const char *text)
{
	json_t *n;

	note(r, "%s", text);
	if (sid == NULL)
		return;
	n = json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:{s:s,s:s}}}}", "jsonrpc",
	    "2.0", "method", "session/update", "params", "sessionId", sid,
	    "update", "sessionUpdate", "agent_message_chunk", "content",
	    "type", "text", "text", text);
	if (n != NULL)
		send_json(r, JH_ACP_EDITOR, n);
	json_decref(n);
}

/* A reason without the hook's "joulehook: " in front. */
static const char *
bare(const char *why)
{
	return (strncmp(why, "joulehook: ", 11) == 0 ? why + 11 : why);
}

/* Asks the gate; why says why on anything but allow, ask or no opinion. */
static enum jh_acp_verdict
ask_gate(struct jh_acp *r, const char *payload, char *why, size_t whysz)
{
	enum jh_acp_verdict v;

	snprintf(why, whysz, "the gate could not run");
	v = r->io.gate(r->io.arg, payload, why, whysz);
	why[whysz - 1] = '\0';
	jh_utf8_clean(why);
	return (v);
}

/* The payload of jh-normalize(1) HOSTS "acp", as text. */
static char *
payload(struct jh_acp *r, const char *event, const char *sid,
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
remember_call(struct jh_acp *r, const char *sid, json_t *upd)
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

/*
 * Whether every option named id is of kind: an agent that offers one id
 * twice, as a rejection and as an allow, reads an answer of that id as
 * it likes.
 */
static int
id_only(json_t *options, const char *id, const char *kind)
{
	size_t i;
	json_t *o;
	const char *k, *d;

	json_array_foreach(options, i, o) {
		k = json_string_value(json_object_get(o, "kind"));
		d = json_string_value(json_object_get(o, "optionId"));
		if (d != NULL && strcmp(d, id) == 0 && (k == NULL ||
		    strcmp(k, kind) != 0))
			return (0);
	}
	return (1);
}

/* The option of the first of the kinds offered, named by no other, or NULL. */
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
			    strcmp(kind, want[w]) == 0 &&
			    id_only(options, id, kind))
				return (id);
		}
	return (NULL);
}

static void
answer_option(struct jh_acp *r, const json_t *id, const char *opt)
{
	json_t *res;

	if (opt != NULL)
		res = json_pack("{s:{s:s,s:s}}", "outcome", "outcome",
		    "selected", "optionId", opt);
	else
		res = json_pack("{s:{s:s}}", "outcome", "outcome",
		    "cancelled");
	respond_result(r, id, res);
}

/*
 * What a call the editor approved may do through the editor: write or
 * read its path (with its content, when the call names it), or run its
 * command.  A new reference, or NULL.
 */
static json_t *
call_target(json_t *call)
{
	json_t *in = json_object_get(call, "rawInput"), *v, *fp, *t;
	json_t *loc = json_array_get(json_object_get(call, "locations"), 0);
	const char *kind = json_string_value(json_object_get(call, "kind"));

	/* an approval is for the kind of call decided: a run, a read, an edit */
	if (kind == NULL)
		return (NULL);
	if (strcmp(kind, "execute") == 0)
		return (json_is_string(v = json_object_get(in, "command")) ?
		    json_pack("{s:s,s:O}", "kind", kind, "command", v) : NULL);
	if (strcmp(kind, "read") != 0 && strcmp(kind, "edit") != 0)
		return (NULL);
	/* the path decided: the location's, which file_path may not contradict */
	v = json_object_get(loc, "path");
	fp = json_object_get(in, "file_path");
	if (!json_is_string(v))
		v = fp;
	else if (fp != NULL && !json_equal(fp, v))
		return (NULL);
	if (!json_is_string(v))
		return (NULL);
	t = json_pack("{s:s,s:O}", "kind", kind, "path", v);
	if (t != NULL && json_is_string(v = json_object_get(in, "content")))
		json_object_set(t, "content", v);
	return (t);
}

/* The agent's request goes to the editor, which now has it; ask and op
 * say what its answer means (stolen; NULL: nothing). */
static void
forward(struct jh_acp *r, const json_t *id, json_t *ask, json_t *op,
    const char *line, size_t n)
{
	json_t *p = json_pack("{s:O}", "id", id);
	char *k = idkey(id);

	if (p != NULL && ask != NULL)
		json_object_set(p, "ask", ask);
	if (p != NULL && op != NULL)
		json_object_set(p, "op", op);
	if (p != NULL && k != NULL)
		json_object_set(r->pending, k, p);
	json_decref(p);
	json_decref(ask);
	json_decref(op);
	free(k);
	send_line(r, JH_ACP_EDITOR, line, n);
}

/* The agent is refused: its request picked a reject option, the user
 * told why. */
static void
refuse_permission(struct jh_acp *r, const json_t *id, json_t *opts,
    const char *sid, const char *title, const char *why)
{
	char txt[TEXT_MAX];

	answer_option(r, id, pick(opts, "reject_once", "reject_always"));
	textf(txt, sizeof(txt), "joulehook refused %s: %s\n", title,
	    bare(why));
	tell_user(r, sid, txt);
}

/* The permission request: decided here, or asked of the editor. */
static void
gate_permission(struct jh_acp *r, json_t *msg, const char *line, size_t n)
{
	json_t *id = json_object_get(msg, "id");
	json_t *params = json_object_get(msg, "params");
	json_t *tc = json_object_get(params, "toolCall");
	json_t *opts = json_object_get(params, "options"), *call, *a;
	const char *sid = sid_of(params), *tcid, *title;
	char why[JH_ACP_WHY], *p, *k;
	enum jh_acp_verdict v;

	tcid = json_string_value(json_object_get(tc, "toolCallId"));
	if (sid == NULL || tcid == NULL || !json_is_array(opts)) {
		answer_option(r, id, pick(opts, "reject_once",
		    "reject_always"));
		tell_user(r, sid, "joulehook refused a permission request "
		    "that names no session, tool call id or options: the "
		    "agent sent a malformed request\n");
		return;
	}
	call = json_deep_copy(remember_call(r, sid, tc));
	p = payload(r, "PreToolUse", sid, "session/request_permission",
	    call, NULL, NULL, NULL);
	v = p != NULL ? ask_gate(r, p, why, sizeof(why)) : JH_ACP_DENY;
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
	case JH_ACP_ALLOW:
		answer_option(r, id, pick(opts, "allow_once",
		    "allow_always"));
		break;
	case JH_ACP_NOOP:
	case JH_ACP_ASK:
		/* the editor asks the user: its answer is relayed */
		a = json_pack("{s:s,s:O,s:O}", "sessionId", sid, "call",
		    call, "options", opts);
		forward(r, id, a, NULL, line, n);
		break;
	default:
		refuse_permission(r, id, opts, sid, title, why);
		break;
	}
	json_decref(call);
}

/* A call the editor approved: consumed by the one fs or terminal
 * request that carries it out. */
static int
take_approval(struct jh_acp *r, const char *sid, const char *method,
    json_t *params)
{
	size_t i;
	json_t *a, *t, *c;
	int term = strcmp(method, "terminal/create") == 0;
	const char *want = term ? "execute" : strcmp(method,
	    "fs/write_text_file") == 0 ? "edit" : "read";

	json_array_foreach(r->approved, i, a) {
		t = json_object_get(a, "target");
		if (strcmp(json_string_value(json_object_get(a, "sessionId")),
		    sid) != 0 || json_string_value(json_object_get(t,
		    "kind")) == NULL || strcmp(json_string_value(
		    json_object_get(t, "kind")), want) != 0)
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

/* An allowed fs or terminal request goes to the editor; its result,
 * when the editor answers, is bound to the decision (post_op). */
static void
relay_op(struct jh_acp *r, const json_t *id, const char *sid,
    const char *method, json_t *params, const char *callid,
    const char *line, size_t n)
{
	json_t *op;

	op = json_pack("{s:s,s:s,s:O,s:s}", "sessionId", sid, "method",
	    method, "params", params, "callid", callid);
	forward(r, id, NULL, op, line, n);
}

/* fs/read_text_file, fs/write_text_file, terminal/create. */
static void
gate_client_op(struct jh_acp *r, json_t *msg, const char *method,
    const char *line, size_t n)
{
	json_t *id = json_object_get(msg, "id");
	json_t *params = json_object_get(msg, "params");
	const char *sid = sid_of(params);
	char why[JH_ACP_WHY], txt[TEXT_MAX], callid[64], *p;
	enum jh_acp_verdict v = JH_ACP_DENY;
	int noask = 0;

	snprintf(why, sizeof(why), "the request names no session");
	/* the request has no call id: one of this relay's, never reused */
	snprintf(callid, sizeof(callid), "acp-%s-%lu", r->nonce, ++r->nops);
	if (sid != NULL && (p = payload(r, "PreToolUse", sid, method, NULL,
	    params, NULL, callid)) != NULL) {
		v = ask_gate(r, p, why, sizeof(why));
		free(p);
	}
	if (v == JH_ACP_ASK || v == JH_ACP_NOOP) {
		if (take_approval(r, sid, method, params))
			v = JH_ACP_ALLOW;
		else if (v == JH_ACP_ASK) {
			v = JH_ACP_DENY;
			noask = 1;
		} else
			v = JH_ACP_ALLOW;	/* no opinion: the editor's own */
	}
	if (v == JH_ACP_STOP) {
		v = JH_ACP_DENY;
		snprintf(why, sizeof(why), "the gate's answer is not a "
		    "decision");
	}
	if (v == JH_ACP_ALLOW) {
		relay_op(r, id, sid, method, params, callid, line, n);
		return;
	}
	textf(txt, sizeof(txt), "joulehook refused %s: %s%s", method,
	    bare(why), noask ? " (it needs the user's approval, and the "
	    "agent asked for none for this request)" : "");
	respond_error(r, JH_ACP_AGENT, id, -32000, txt);
	strncat(txt, "\n", sizeof(txt) - strlen(txt) - 1);
	tell_user(r, sid, txt);
}

/* What ran is not what was decided: the user is told, the turn ended. */
static void
stop_turn(struct jh_acp *r, const char *sid, const char *what,
    const char *why)
{
	char txt[TEXT_MAX];
	json_t *c;

	textf(txt, sizeof(txt), "joulehook stopped the turn after %s: "
	    "%s\n", what, bare(why));
	tell_user(r, sid, txt);
	/* the call has run: what is left to do is to end the turn */
	c = json_pack("{s:s,s:s,s:{s:s}}", "jsonrpc", "2.0", "method",
	    "session/cancel", "params", "sessionId", sid);
	if (c != NULL)
		send_json(r, JH_ACP_AGENT, c);
	json_decref(c);
}

/* The editor's answer to a relayed fs or terminal request: its result,
 * bound to the decision by the post pipeline. */
static void
post_op(struct jh_acp *r, json_t *op, json_t *m)
{
	const char *sid = json_string_value(json_object_get(op, "sessionId"));
	json_t *err = json_object_get(m, "error");
	char why[JH_ACP_WHY], *p;
	enum jh_acp_verdict v;

	p = payload(r, err != NULL ? "PostToolUseFailure" : "PostToolUse",
	    sid, json_string_value(json_object_get(op, "method")), NULL,
	    json_object_get(op, "params"), err != NULL ? err :
	    json_object_get(m, "result"), json_string_value(json_object_get(op,
	    "callid")));
	if (p == NULL)
		return;
	v = ask_gate(r, p, why, sizeof(why));
	free(p);
	if (v != JH_ACP_NOOP)
		stop_turn(r, sid, json_string_value(json_object_get(op,
		    "method")), why);
}

/* A turn ended: the session's Stop, which closes its unanswered asks
 * and, with a sink, checkpoints its log (jh-hook(1)). */
static void
turn_end(struct jh_acp *r, const char *sid)
{
	char why[JH_ACP_WHY], *p;

	if ((p = payload(r, "Stop", sid, NULL, NULL, NULL, NULL, NULL)) ==
	    NULL)
		return;
	if (ask_gate(r, p, why, sizeof(why)) != JH_ACP_NOOP)
		note(r, "at the end of the turn: %s", why);
	free(p);
}

/* A tool call that ended: its result bound by the post pipeline. */
static void
post_call(struct jh_acp *r, const char *sid, json_t *call)
{
	const char *st = json_string_value(json_object_get(call, "status"));
	const char *tcid = json_string_value(json_object_get(call,
	    "toolCallId"));
	json_t *resp;
	char why[JH_ACP_WHY], *p, *k;
	enum jh_acp_verdict v;
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
	v = ask_gate(r, p, why, sizeof(why));
	free(p);
	if (!gated) {
		/* it ran without asking: its result is sealed, no more */
		if (v != JH_ACP_NOOP)
			note(r, "observed only (the agent did not ask): %s: %s",
			    tcid, why);
		return;
	}
	if (v == JH_ACP_NOOP)
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

/* What makes an object no JSON-RPC 2.0 message, or NULL. */
static const char *
not_rpc(json_t *m)
{
	const char *v = json_string_value(json_object_get(m, "jsonrpc"));

	if (v == NULL || strcmp(v, "2.0") != 0)
		return ("no \"jsonrpc\": \"2.0\"");
	if (json_object_get(m, "method") != NULL)
		return (NULL);
	if (json_object_get(m, "id") == NULL)
		return ("neither a method nor an id");
	if ((json_object_get(m, "result") == NULL) ==
	    (json_object_get(m, "error") == NULL))
		return ("an answer with both or neither of result and error");
	return (NULL);
}

/*
 * A line from the agent that is not a JSON-RPC 2.0 message here: refused
 * (1), never relayed.  Not JSON here may still be JSON to the editor (a
 * lone surrogate, a repeated key), and what is not a message may still
 * be read as one by the editor's parser.  A request is answered with an
 * error for its id; anything else with an error for the id null.
 */
static int
agent_refused(struct jh_acp *r, json_t *m, const struct jh_err *e)
{
	json_t *id, *meth;
	const char *why;

	if (!json_is_object(m)) {
		note(r, "dropped a line from the agent that is not a "
		    "JSON-RPC object (%s)", m == NULL ? e->msg :
		    "not an object");
		if (m == NULL)
			respond_error(r, JH_ACP_AGENT, json_null(), -32700,
			    "jh-acp: parse error: the line was not relayed");
		else
			respond_error(r, JH_ACP_AGENT, json_null(), -32600,
			    "jh-acp: not a JSON-RPC object: not relayed");
		return (1);
	}
	id = json_object_get(m, "id");
	meth = json_object_get(m, "method");
	if (id != NULL && !json_is_string(id) && !json_is_number(id) &&
	    !json_is_null(id)) {
		note(r, "dropped a line from the agent whose id is not a "
		    "string, a number or null");
		respond_error(r, JH_ACP_AGENT, json_null(), -32600,
		    "jh-acp: the id is not a string, a number or null: not "
		    "relayed");
		return (1);
	}
	if (meth != NULL && !json_is_string(meth)) {
		respond_error(r, JH_ACP_AGENT, id ? id : json_null(), -32600,
		    "jh-acp: the method is not a string: not relayed");
		return (1);
	}
	if ((why = not_rpc(m)) != NULL) {
		note(r, "dropped a line from the agent that is not a "
		    "JSON-RPC 2.0 message (%s)", why);
		respond_error(r, JH_ACP_AGENT, meth != NULL && id != NULL ? id :
		    json_null(), -32600, "jh-acp: not a JSON-RPC 2.0 message: "
		    "not relayed");
		return (1);
	}
	return (0);
}

/*
 * The agent's answer to a request of the editor's: -1 when the editor
 * has no such request waiting (another answer to one answered already,
 * or to none), which is never relayed; *ended, the session whose turn
 * it ends (a new reference), or NULL.
 */
static int
agent_answer(struct jh_acp *r, json_t *m, const json_t *id, json_t **ended)
{
	json_t *cwd, *o;
	const char *nsid;
	json_int_t n;
	char *k;

	*ended = NULL;
	if ((k = idkey(id)) == NULL)
		return (-1);
	if ((o = json_object_get(r->outstanding, k)) == NULL) {
		free(k);
		/* an error about a line of no request's: nothing to answer */
		if (json_is_null(id) && json_object_get(m, "error") != NULL)
			return (0);
		note(r, "dropped an answer from the agent to no request of "
		    "the editor's that waits for one");
		return (-1);
	}
	if ((n = json_integer_value(json_object_get(o, "n"))) > 1)
		json_object_set_new(o, "n", json_integer(n - 1));
	else
		json_object_del(r->outstanding, k);
	cwd = json_object_get(r->newreq, k);
	nsid = json_string_value(json_object_get(json_object_get(m,
	    "result"), "sessionId"));
	if (cwd != NULL && nsid != NULL)
		json_object_set(r->cwd, nsid, cwd);
	json_object_del(r->newreq, k);
	if ((*ended = json_object_get(r->prompts, k)) != NULL) {
		json_incref(*ended);
		json_object_del(r->prompts, k);
	}
	free(k);
	return (0);
}

/* A session/update: a tool call that ended is bound by post_call. */
static void
agent_update(struct jh_acp *r, json_t *params)
{
	const char *sid = sid_of(params), *su;
	json_t *upd, *c;

	if (sid == NULL)
		return;
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

/*
 * A request of the agent's: decided, or relayed.  One whose id is that
 * of a request the editor has not answered is refused: the editor's
 * answer could not say which of the two it is for (an approval given
 * to one would let the other's write through).
 */
static void
agent_request(struct jh_acp *r, json_t *m, const char *method,
    const char *line, size_t n)
{
	json_t *id = json_object_get(m, "id");
	char *k = idkey(id);

	if (k != NULL && json_object_get(r->pending, k) != NULL) {
		note(r, "dropped a %s from the agent: its id %s is that of a "
		    "request the editor has not answered", method, k);
		respond_error(r, JH_ACP_AGENT, id, -32600, "jh-acp: the id "
		    "is that of a request the editor has not answered: not "
		    "relayed");
	} else if (strcmp(method, "session/request_permission") == 0)
		gate_permission(r, m, line, n);
	else if (gated_method(method))
		gate_client_op(r, m, method, line, n);
	else
		forward(r, id, NULL, NULL, line, n);
	free(k);
}

/* A line from the agent. */
static void
from_agent(struct jh_acp *r, const char *line, size_t n)
{
	struct jh_err e;
	json_t *m = jh_json_parse(line, n, &e), *id, *ended = NULL;
	const char *method;

	if (agent_refused(r, m, &e)) {
		json_decref(m);
		return;
	}
	method = json_string_value(json_object_get(m, "method"));
	id = json_object_get(m, "id");
	if (method != NULL && id == NULL && gated_method(method))
		/* a gated request without an id: nothing could answer it */
		note(r, "dropped a %s without an id from the agent", method);
	else if (method != NULL && id != NULL)
		agent_request(r, m, method, line, n);
	else if (method != NULL || agent_answer(r, m, id, &ended) == 0) {
		send_line(r, JH_ACP_EDITOR, line, n);
		if (ended != NULL)
			turn_end(r, json_string_value(ended));
		if (method != NULL && strcmp(method, "session/update") == 0)
			agent_update(r, json_object_get(m, "params"));
	}
	json_decref(ended);
	json_decref(m);
}

/* A request of the editor's: what the relay needs of it kept. */
static void
editor_request(struct jh_acp *r, const char *method, json_t *id,
    json_t *params, const char *k)
{
	const char *sid;
	json_t *o;

	if ((o = json_object_get(r->outstanding, k)) != NULL)
		json_object_set_new(o, "n", json_integer(json_integer_value(
		    json_object_get(o, "n")) + 1));
	else
		json_object_set_new(r->outstanding, k, json_pack("{s:O,s:i}",
		    "id", id, "n", 1));
	if (strcmp(method, "session/new") == 0 &&
	    json_is_string(json_object_get(params, "cwd")))
		json_object_set(r->newreq, k, json_object_get(params, "cwd"));
	if (strcmp(method, "session/prompt") == 0 &&
	    (sid = sid_of(params)) != NULL)
		json_object_set_new(r->prompts, k, json_string(sid));
	if (strcmp(method, "session/load") == 0 &&
	    (sid = sid_of(params)) != NULL &&
	    json_is_string(json_object_get(params, "cwd")))
		json_object_set(r->cwd, sid, json_object_get(params, "cwd"));
}

/* The user chose an option of an ask: an allow_* one approves the
 * call's fs or terminal request. */
static void
editor_chose(struct jh_acp *r, json_t *ask, json_t *m)
{
	json_t *res, *o, *t;
	const char *kind;
	size_t i;

	res = json_object_get(json_object_get(json_object_get(m, "result"),
	    "outcome"), "optionId");
	if (ask == NULL || json_string_value(res) == NULL)
		return;
	json_array_foreach(json_object_get(ask, "options"), i, o) {
		kind = json_string_value(json_object_get(o, "kind"));
		if (kind == NULL || strncmp(kind, "allow_", 6) != 0 ||
		    !json_equal(json_object_get(o, "optionId"), res))
			continue;
		t = call_target(json_object_get(ask, "call"));
		if (t != NULL)
			json_array_append_new(r->approved, json_pack("{s:O,s:o}",
			    "sessionId", json_object_get(ask, "sessionId"),
			    "target", t));
		break;
	}
}

/* The editor's session/cancel: each ask of the session still waiting
 * is answered cancelled; the editor's answer, if it comes, is dropped. */
static void
editor_cancel(struct jh_acp *r, const char *sid)
{
	const char *key;
	json_t *p, *ask;

	json_object_foreach(r->pending, key, p) {
		ask = json_object_get(p, "ask");
		if (ask == NULL || json_object_get(p, "answered") != NULL ||
		    strcmp(json_string_value(json_object_get(ask,
		    "sessionId")), sid) != 0)
			continue;
		answer_option(r, json_object_get(p, "id"), NULL);
		json_object_set_new(p, "answered", json_true());
	}
}

/* A line from the editor: relayed, unless it answers what the relay
 * had answered already. */
static void
from_editor(struct jh_acp *r, const char *line, size_t n)
{
	struct jh_err e;
	json_t *m = jh_json_parse(line, n, &e), *id, *params, *p = NULL;
	const char *method, *sid;
	char *k = NULL;

	if (!json_is_object(m))
		goto relay;
	method = json_string_value(json_object_get(m, "method"));
	id = json_object_get(m, "id");
	params = json_object_get(m, "params");
	if (id != NULL)
		k = idkey(id);
	if (method != NULL && id != NULL && k != NULL)
		editor_request(r, method, id, params, k);
	else if (method == NULL && k != NULL &&
	    (p = json_object_get(r->pending, k)) != NULL) {
		json_incref(p);
		json_object_del(r->pending, k);
		/* answered cancelled already: the agent has it */
		if (json_object_get(p, "answered") != NULL)
			goto drop;
		editor_chose(r, json_object_get(p, "ask"), m);
	} else if (method != NULL && strcmp(method, "session/cancel") == 0 &&
	    (sid = sid_of(params)) != NULL)
		editor_cancel(r, sid);
relay:
	send_line(r, JH_ACP_AGENT, line, n);
	if (json_object_get(p, "op") != NULL)
		post_op(r, json_object_get(p, "op"), m);
drop:
	json_decref(p);
	free(k);
	json_decref(m);
}

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return (p);
}

/* Past the JSON value that starts at p, as written; NULL when the text
 * ends first. */
static const char *
skip_value(const char *p)
{
	int depth = 0, str = 0;

	for (; *p != '\0'; p++) {
		if (str) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"') {
				str = 0;
				if (depth == 0)
					return (p + 1);
			}
		} else if (*p == '"')
			str = 1;
		else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return (p);	/* a scalar ended at its object */
			if (--depth == 0)
				return (p + 1);
		} else if (depth == 0 && (*p == ',' || *p == ' ' ||
		    *p == '\t' || *p == '\r' || *p == '\n'))
			return (p);
	}
	return (NULL);
}

/*
 * The start of an over-long line: the value of the member "id" of the
 * object it begins, when that is a string, a number or null, and
 * whether it has a member "method", both read at the object's own
 * level, never inside another value (a request's params may hold an
 * "id" of their own).  A new reference, or NULL.
 */
static json_t *
prefix_id(const char *p, int *method)
{
	const char *k, *ke, *v, *e;
	json_t *id = NULL, *j;
	int ids = 0;

	*method = 0;
	if (*(p = skip_ws(p)) != '{')
		return (NULL);
	for (p = skip_ws(p + 1); *p == '"'; p = skip_ws(p + 1)) {
		k = p;
		if ((ke = skip_value(k)) == NULL || *(v = skip_ws(ke)) != ':' ||
		    (e = skip_value(v = skip_ws(v + 1))) == NULL)
			break;
		if (ke - k == 8 && strncmp(k, "\"method\"", 8) == 0)
			*method = 1;
		if (ke - k == 4 && strncmp(k, "\"id\"", 4) == 0 &&
		    ids++ == 0) {
			j = json_loadb(v, (size_t)(e - v), JSON_DECODE_ANY |
			    JSON_ALLOW_NUL, NULL);
			if (json_is_string(j) || json_is_number(j) ||
			    json_is_null(j))
				id = json_incref(j);
			json_decref(j);
		}
		if (*(p = skip_ws(e)) != ',')
			break;
	}
	if (ids > 1) {
		/* two ids: which the editor would read is anyone's guess */
		json_decref(id);
		return (NULL);
	}
	return (id);
}

/*
 * An over-long line from the agent: never relayed.  A request is
 * answered with an error when its start names a method and its id, and
 * the id is not that of a request the editor has not answered (whose
 * answer the agent would then get twice): then with the id null.
 */
static void
overlong(struct jh_acp *r, const char *prefix)
{
	json_t *id;
	char *k;
	int method;

	note(r, "dropped a line from the agent of more than %zu bytes",
	    r->maxline);
	if ((id = prefix_id(prefix, &method)) == NULL || !method) {
		json_decref(id);
		return;
	}
	if ((k = idkey(id)) != NULL && json_object_get(r->pending, k) !=
	    NULL) {
		json_decref(id);
		id = json_null();
	}
	free(k);
	respond_error(r, JH_ACP_AGENT, id, -32600, "jh-acp: the request is "
	    "too long to be checked: not relayed");
	json_decref(id);
}

/* One whole line of a peer's. */
static void
handle(struct jh_acp *r, enum jh_acp_peer from, const char *line, size_t n)
{
	if (n == 0 || (n == 1 && line[0] == '\r'))
		return;
	if (from == JH_ACP_AGENT)
		from_agent(r, line, n);
	else
		from_editor(r, line, n);
}

/* The start of a line over maxline from the agent, for overlong. */
static void
keep_prefix(struct side *s, const uint8_t *p)
{
	memcpy(s->prefix, p, JH_ACP_PREFIX);
	s->prefix[JH_ACP_PREFIX] = '\0';
}

int
jh_acp_feed(struct jh_acp *r, enum jh_acp_peer from, const void *bytes,
    size_t len)
{
	struct side *s = &r->side[from];
	size_t off = 0, n;
	uint8_t *nl;
	int agent = from == JH_ACP_AGENT;

	jh_buf_add(&s->in, bytes, len);
	if (s->in.oom)
		return (-1);
	while (off < s->in.len) {
		nl = memchr(s->in.p + off, '\n', s->in.len - off);
		n = nl != NULL ? (size_t)(nl - s->in.p) - off :
		    s->in.len - off;
		if (s->skipping) {
			if (nl == NULL) {
				off = s->in.len;
				break;
			}
			s->skipping = 0;
			overlong(r, s->prefix);
		} else if (nl == NULL) {
			if (n > r->maxline && agent) {
				keep_prefix(s, s->in.p + off);
				s->skipping = 1;
				off = s->in.len;
			}
			break;
		} else if (n > r->maxline && agent) {
			keep_prefix(s, s->in.p + off);
			overlong(r, s->prefix);
		} else
			handle(r, from, (char *)s->in.p + off, n);
		off += n + 1;
	}
	if (off > 0) {
		memmove(s->in.p, s->in.p + off, s->in.len - off);
		s->in.len -= off;
	}
	return (0);
}

void
jh_acp_agent_gone(struct jh_acp *r, const char *how)
{
	const char *key;
	json_t *o;
	json_int_t i;
	char msg[256];

	textf(msg, sizeof(msg), "jh-acp: %s", how);
	json_object_foreach(r->outstanding, key, o)
		for (i = json_integer_value(json_object_get(o, "n")); i > 0;
		    i--)
			respond_error(r, JH_ACP_EDITOR, json_object_get(o, "id"),
			    -32603, msg);
	note(r, "%s", how);
}

struct jh_acp *
jh_acp_new(const struct jh_acp_io *io, const char *nonce, size_t maxline)
{
	struct jh_acp *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (NULL);
	r->io = *io;
	r->maxline = maxline == 0 ? JH_ACP_MAXLINE : maxline < JH_ACP_PREFIX ?
	    JH_ACP_PREFIX : maxline;
	snprintf(r->nonce, sizeof(r->nonce), "%s", nonce);
	jh_buf_init(&r->side[0].in);
	jh_buf_init(&r->side[1].in);
	r->cwd = json_object();
	r->newreq = json_object();
	r->calls = json_object();
	r->gated = json_object();
	r->pending = json_object();
	r->approved = json_array();
	r->outstanding = json_object();
	r->prompts = json_object();
	if (r->cwd == NULL || r->newreq == NULL || r->calls == NULL ||
	    r->gated == NULL || r->pending == NULL || r->approved == NULL ||
	    r->outstanding == NULL || r->prompts == NULL) {
		jh_acp_free(r);
		return (NULL);
	}
	return (r);
}

void
jh_acp_free(struct jh_acp *r)
{
	if (r == NULL)
		return;
	json_decref(r->cwd);
	json_decref(r->newreq);
	json_decref(r->calls);
	json_decref(r->gated);
	json_decref(r->pending);
	json_decref(r->approved);
	json_decref(r->outstanding);
	json_decref(r->prompts);
	jh_buf_free(&r->side[0].in);
	jh_buf_free(&r->side[1].in);
	free(r);
}
