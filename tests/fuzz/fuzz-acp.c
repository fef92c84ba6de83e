/*
 * fuzz-acp: bytes -> jh-acp(1)'s relay (lib/acprelay.c) between an ACP
 * editor and an ACP agent, without processes.  The input is a sequence
 * of lines, each a control byte and the text of one line:
 *
 *	bit 0		from the agent (1) or the editor (0)
 *	bits 1-3	what the gate answers while the line is handled:
 *			no opinion, allow, ask, deny, "continue": false,
 *			a failure (the reason left as the relay set it),
 *			a deny or a failure whose reason is over the
 *			reason's size in two-byte characters
 *	bits 4-5	how it is fed: whole, in two or in three pieces,
 *			or ended by CR LF
 *	bits 6-7	for the editor's answer: which of the requests it
 *			has not answered it answers
 *	0xff		the agent is gone (the rest is not read)
 *
 * The agent is the party the relay does not trust: its lines are taken
 * as they come.  The editor is the user's: a line of its that is an
 * answer is given the id of a request it received and did not answer
 * yet, and dropped when there is none, so that the editor answers as a
 * real one does (with any result).  A line from the agent over
 * FZ_MAXLINE bytes exercises the relay's refusal of over-long lines.
 * Checked, line by line:
 *
 *   - every line for the editor, and every line for the agent that is
 *     not the editor's own line relayed, is one JSON-RPC 2.0 message
 *     (valid JSON as the relay reads it, "jsonrpc": "2.0", a method,
 *     or an id and one of result and error);
 *   - each request of the agent's is either relayed to the editor
 *     byte for byte or answered, once; nothing else is a request to the
 *     editor, and the editor never holds two unanswered requests of the
 *     same id;
 *   - a gated request (session/request_permission, fs/...,
 *     terminal/create) reaches the editor only on no opinion or ask (a
 *     permission request), or allow, no opinion, or an ask the user
 *     approved in the session (fs and terminal); it is decided once,
 *     and one the gate denied or failed on, or that was not decided, is
 *     answered as an error, a cancelled outcome or a reject option,
 *     never an allow option;
 *   - the agent's answers reach the editor at most once per request of
 *     the editor's, and the editor's, or the relay's, reach the agent at
 *     most once per request of the agent's; an ask the relay answered
 *     cancelled is not answered again by the editor's late answer;
 *   - every payload the gate is given is a JSON object of a known event.
 */
#include "fuzz-common.h"

#include <jansson.h>

#include "jh.h"
#include "acprelay.h"
#include "json.h"

#define FZ_MAXLINE	700	/* the agent's longest line, for the fuzz */
#define FZ_GONE		0xff

struct fzline {
	char *p;
	size_t n;
};

struct fzout {
	struct fzline *v;
	size_t n, cap;
};

/* One input's world: what the relay wrote, what the gate saw, and the
 * model of both peers. */
struct fz {
	struct fzout out[2];	/* by enum jh_acp_peer, this line's */
	int verdict;		/* bits 1-3 of the control byte */
	int pre;		/* PreToolUse payloads this line */
	char pre_method[64];	/* and the acp_method of the last */
	json_t *agent_reqs;	/* id -> requests the agent sent */
	json_t *agent_answers;	/* id -> answers the agent got */
	json_t *editor_reqs;	/* id -> requests the editor sent */
	json_t *editor_answers;	/* id -> answers the editor got */
	json_t *pending;	/* [request]: the editor's to answer; each
				   with "_cancelled" once the relay answered */
	json_t *approvals;	/* sessionId -> allow options the user chose */
};

static void
capture(void *arg, enum jh_acp_peer to, const char *line, size_t len)
{
	struct fzout *o = &((struct fz *)arg)->out[to];
	struct fzline *nv;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		if ((nv = realloc(o->v, o->cap * sizeof(*nv))) == NULL)
			abort();
		o->v = nv;
	}
	if ((o->v[o->n].p = malloc(len + 1)) == NULL)
		abort();
	memcpy(o->v[o->n].p, line, len);
	o->v[o->n].p[len] = '\0';
	o->v[o->n++].n = len;
	if (memchr(line, '\n', len) != NULL)
		abort();	/* one line is one line */
}

static void
out_clear(struct fzout *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->v[i].p);
	o->n = 0;
}

static enum jh_acp_verdict
gate(void *arg, const char *payload, char *why, size_t whysz)
{
	static const enum jh_acp_verdict v[8] = { JH_ACP_NOOP, JH_ACP_ALLOW,
	    JH_ACP_ASK, JH_ACP_DENY, JH_ACP_STOP, JH_ACP_FAIL, JH_ACP_DENY,
	    JH_ACP_FAIL };
	struct fz *f = arg;
	struct jh_err e;
	json_t *p;
	const char *ev, *m;
	char longer[3 * JH_ACP_WHY];
	size_t i;

	if ((p = jh_json_parse(payload, strlen(payload), &e)) == NULL ||
	    !json_is_object(p) || (ev = json_string_value(json_object_get(p,
	    "hook_event_name"))) == NULL || !json_is_string(json_object_get(p,
	    "session_id"))) {
		fprintf(stderr, "a payload that is not one: %s\n", payload);
		abort();
	}
	if (strcmp(ev, "PreToolUse") == 0) {
		m = json_string_value(json_object_get(p, "acp_method"));
		snprintf(f->pre_method, sizeof(f->pre_method), "%s",
		    m != NULL ? m : "");
		f->pre++;
	} else if (strcmp(ev, "PostToolUse") != 0 &&
	    strcmp(ev, "PostToolUseFailure") != 0 && strcmp(ev, "Stop") != 0)
		abort();
	json_decref(p);
	if (f->verdict >= 6) {
		/* a reason longer than there is room for, as jh-hook's can
		   be: cut in the middle of a character (of two bytes, or of
		   three and four) */
		longer[0] = 'x';
		for (i = 1; i + 7 < sizeof(longer); i += 7)
			memcpy(longer + i, f->verdict == 6 ? "\xc3\xa9\xc3\xa9"
			    "\xc3\xa9x" : "\xe2\x82\xac\xf0\x9f\x98\x80", 7);
		longer[i] = '\0';
		snprintf(why, whysz, "joulehook: %s", longer);
	} else if (f->verdict == 3)
		snprintf(why, whysz, "joulehook: denied by the fuzz gate");
	else if (f->verdict == 4)
		snprintf(why, whysz, "stopped by the fuzz gate");
	return (v[f->verdict & 7]);
}

/* The relay's diagnostics: formatted, read, and let go. */
static void
note(void *arg, const char *text)
{
	volatile size_t n = strlen(text);

	(void)arg;
	(void)n;
}

static json_t *
parse(const char *s, size_t n)
{
	struct jh_err e;

	return (jh_json_parse(s, n, &e));
}

/* A JSON-RPC 2.0 message, as a peer reads it; aborts otherwise. */
static json_t *
rpc(const struct fzline *l, const char *to)
{
	json_t *m = parse(l->p, l->n), *meth;
	const char *v;

	if (!json_is_object(m) || (v = json_string_value(json_object_get(m,
	    "jsonrpc"))) == NULL || strcmp(v, "2.0") != 0)
		goto bad;
	meth = json_object_get(m, "method");
	if (meth != NULL && !json_is_string(meth))
		goto bad;
	if (meth == NULL && (json_object_get(m, "id") == NULL ||
	    (json_object_get(m, "result") == NULL) ==
	    (json_object_get(m, "error") == NULL)))
		goto bad;
	return (m);
bad:
	fprintf(stderr, "not one JSON-RPC 2.0 message, to the %s: %.*s\n", to,
	    (int)l->n, l->p);
	abort();
}

static int
is_answer(const json_t *m)
{
	return (json_object_get(m, "method") == NULL &&
	    json_object_get(m, "id") != NULL);
}

/* The key of an id, NULL for none or null (never counted). */
static char *
idk(const json_t *m)
{
	json_t *id = json_object_get(m, "id");

	if (id == NULL || json_is_null(id))
		return (NULL);
	return (json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY));
}

/* counts[k] += d; returns the new count. */
static json_int_t
count(json_t *counts, const char *k, int d)
{
	json_int_t n = json_integer_value(json_object_get(counts, k)) + d;

	json_object_set_new(counts, k, json_integer(n));
	return (n);
}

/* An answer for a peer: at most one per request of the peer's. */
static void
answered(json_t *answers, json_t *reqs, const json_t *m, const char *to)
{
	char *k = idk(m);

	if (k == NULL)
		return;
	if (count(answers, k, 1) > json_integer_value(json_object_get(reqs,
	    k))) {
		fprintf(stderr, "the %s got more answers for id %s than it "
		    "sent requests\n", to, k);
		abort();
	}
	free(k);
}

/* The option kind the agent was answered with: "cancelled", its kind,
 * "error", or "?" for an option its request did not offer. */
static const char *
answer_kind(const json_t *req, const json_t *ans)
{
	json_t *out = json_object_get(json_object_get(ans, "result"),
	    "outcome"), *o;
	const char *oc = json_string_value(json_object_get(out, "outcome"));
	size_t i;

	if (json_object_get(ans, "error") != NULL)
		return ("error");
	if (oc != NULL && strcmp(oc, "cancelled") == 0)
		return ("cancelled");
	json_array_foreach(json_object_get(json_object_get(req, "params"),
	    "options"), i, o)
		if (json_equal(json_object_get(o, "optionId"),
		    json_object_get(out, "optionId")) &&
		    json_is_string(json_object_get(o, "kind")))
			return (json_string_value(json_object_get(o, "kind")));
	return ("?");
}

static int
gated(const char *m)
{
	return (m != NULL && (strcmp(m, "session/request_permission") == 0 ||
	    strcmp(m, "fs/read_text_file") == 0 ||
	    strcmp(m, "fs/write_text_file") == 0 ||
	    strcmp(m, "terminal/create") == 0));
}

/* The user approved an ask of the session: one fs or terminal request
 * on ask may pass for it. */
static int
take_approval(struct fz *f, const json_t *req)
{
	const char *sid = json_string_value(json_object_get(json_object_get(
	    req, "params"), "sessionId"));

	if (sid == NULL || json_integer_value(json_object_get(f->approvals,
	    sid)) <= 0)
		return (0);
	count(f->approvals, sid, -1);
	return (1);
}

/* A gated request of the agent's, relayed (fwd) or answered (ans). */
static void
check_gated(struct fz *f, const json_t *req, const char *method, int fwd,
    const json_t *ans)
{
	int perm = strcmp(method, "session/request_permission") == 0;
	int v = f->verdict & 7;
	const char *kind;

	if (f->pre > 1 || (f->pre == 1 && strcmp(f->pre_method, method) != 0))
		abort();	/* decided once, as what it is */
	if (fwd) {
		if (f->pre != 1 || !(v == 0 || v == 2 || (!perm && v == 1)) ||
		    (!perm && v == 2 && !take_approval(f, req))) {
			fprintf(stderr, "a %s the gate did not let through (%d) "
			    "reached the editor\n", method, v);
			abort();
		}
		return;
	}
	kind = answer_kind(req, ans);
	if (strncmp(kind, "allow_", 6) == 0 && !(perm && f->pre == 1 && v == 1)) {
		fprintf(stderr, "a %s the gate did not allow (%d, %d decided) "
		    "was answered %s\n", method, v, f->pre, kind);
		abort();
	}
	if (perm && strcmp(kind, "?") == 0)
		abort();	/* an option it did not offer */
}

/*
 * The relay's answer to a line of the agent's too long to be read: for
 * the id the line's start names, which must be the line's own (when it
 * is JSON at all), of a request, and none the editor has to answer.
 * The answer stands for the request the line is.
 */
static void
overlong_answer(struct fz *f, const json_t *m, const json_t *a)
{
	json_t *id = json_object_get(a, "id"), *o;
	size_t i;
	char *k;

	if (json_is_null(id))
		return;
	if (json_is_object(m) && (!json_equal(json_object_get(m, "id"), id) ||
	    json_object_get(m, "method") == NULL)) {
		fprintf(stderr, "a line too long was answered for an id not "
		    "its own\n");
		abort();
	}
	json_array_foreach(f->pending, i, o)
		if (json_equal(json_object_get(o, "id"), id)) {
			fprintf(stderr, "a line too long was answered for the id "
			    "of a request the editor has\n");
			abort();
		}
	if (!json_is_object(m) && (k = idk(a)) != NULL) {
		count(f->agent_reqs, k, 1);
		free(k);
	}
}

/* What the relay did with a line of the agent's. */
static void
after_agent(struct fz *f, const char *line, size_t n, int over)
{
	json_t *m = parse(line, n), *a, *ans = NULL, *id = NULL, *o;
	const char *method = json_string_value(json_object_get(m, "method"));
	int req, fwd = 0, nans = 0;
	char *k;
	size_t i, j;

	req = json_is_object(m) && json_object_get(m, "method") != NULL &&
	    (id = json_object_get(m, "id")) != NULL;
	if (req && (k = idk(m)) != NULL) {
		count(f->agent_reqs, k, 1);
		free(k);
	}
	for (i = 0; i < f->out[JH_ACP_EDITOR].n; i++) {
		a = rpc(&f->out[JH_ACP_EDITOR].v[i], "editor");
		if (json_object_get(a, "id") != NULL &&
		    json_object_get(a, "method") != NULL) {
			/* a request for the editor: the agent's own line */
			if (over || fwd || f->out[JH_ACP_EDITOR].v[i].n != n ||
			    memcmp(f->out[JH_ACP_EDITOR].v[i].p, line, n) != 0)
				abort();
			json_array_foreach(f->pending, j, o)
				if (json_equal(json_object_get(o, "id"),
				    json_object_get(a, "id"))) {
					fprintf(stderr, "two requests of one id "
					    "wait for the editor\n");
					abort();
				}
			json_array_append(f->pending, a);
			fwd = 1;
		} else if (is_answer(a))
			answered(f->editor_answers, f->editor_reqs, a, "editor");
		json_decref(a);
	}
	for (i = 0; i < f->out[JH_ACP_AGENT].n; i++) {
		a = rpc(&f->out[JH_ACP_AGENT].v[i], "agent");
		if (over && is_answer(a))
			overlong_answer(f, m, a);
		if (is_answer(a)) {
			nans++;
			answered(f->agent_answers, f->agent_reqs, a, "agent");
			if (req && json_equal(json_object_get(a, "id"), id)) {
				json_decref(ans);
				ans = json_incref(a);
			}
		}
		json_decref(a);
	}
	if (req && !over && fwd + nans != 1) {
		fprintf(stderr, "a request of the agent's relayed %d times and "
		    "answered %d times: %.*s\n", fwd, nans, (int)n, line);
		abort();
	}
	if (over && nans > 1)
		abort();
	if (req && !over && gated(method))
		check_gated(f, m, method, fwd, ans);
	else if (f->pre != 0)
		abort();	/* only a gated request is decided */
	json_decref(ans);
	json_decref(m);
}

/* The editor's answer to the request it received, as a real editor:
 * the line gets that request's id; NULL when there is none. */
static char *
editor_answer(struct fz *f, json_t *m, int which, json_t **req)
{
	size_t np = json_array_size(f->pending);

	if (np == 0)
		return (NULL);
	*req = json_incref(json_array_get(f->pending, (size_t)which % np));
	json_array_remove(f->pending, (size_t)which % np);
	json_object_set(m, "id", json_object_get(*req, "id"));
	return (json_dumps(m, JSON_COMPACT));
}

/* The user's choice, when it is an allow option of an ask. */
static void
approve(struct fz *f, const json_t *req, const json_t *m)
{
	json_t *params = json_object_get(req, "params"), *o;
	json_t *opt = json_object_get(json_object_get(json_object_get(m,
	    "result"), "outcome"), "optionId");
	const char *sid = json_string_value(json_object_get(params,
	    "sessionId")), *kind;
	size_t i;

	if (sid == NULL || !json_is_string(opt) || strcmp(json_string_value(
	    json_object_get(req, "method")), "session/request_permission") != 0)
		return;
	json_array_foreach(json_object_get(params, "options"), i, o) {
		kind = json_string_value(json_object_get(o, "kind"));
		if (kind != NULL && strncmp(kind, "allow_", 6) == 0 &&
		    json_equal(json_object_get(o, "optionId"), opt)) {
			count(f->approvals, sid, 1);
			return;
		}
	}
}

/* What the relay did with a line of the editor's (req: the request it
 * answers, or NULL). */
static void
after_editor(struct fz *f, const char *line, size_t n, const json_t *req)
{
	json_t *a, *o;
	size_t i, j;
	int relayed = 0, own;
	char *k;

	for (i = 0; i < f->out[JH_ACP_EDITOR].n; i++) {
		a = rpc(&f->out[JH_ACP_EDITOR].v[i], "editor");
		if (json_object_get(a, "id") != NULL)
			abort();	/* the relay asks the editor nothing */
		json_decref(a);
	}
	for (i = 0; i < f->out[JH_ACP_AGENT].n; i++) {
		own = f->out[JH_ACP_AGENT].v[i].n == n &&
		    memcmp(f->out[JH_ACP_AGENT].v[i].p, line, n) == 0;
		if (own && relayed++)
			abort();
		a = own ? parse(line, n) : rpc(&f->out[JH_ACP_AGENT].v[i],
		    "agent");
		if (json_is_object(a) && is_answer(a) &&
		    json_string_value(json_object_get(a, "method")) == NULL) {
			answered(f->agent_answers, f->agent_reqs, a, "agent");
			/* the relay's cancelled answer of an ask */
			k = own ? NULL : idk(a);
			json_array_foreach(f->pending, j, o)
				if (k != NULL && json_equal(json_object_get(o,
				    "id"), json_object_get(a, "id")))
					json_object_set_new(o, "_cancelled",
					    json_true());
			free(k);
		}
		json_decref(a);
	}
	if (req == NULL && relayed != 1)
		abort();	/* the editor's lines are relayed as they are */
	if (req != NULL && relayed == (json_object_get(req, "_cancelled") !=
	    NULL)) {
		fprintf(stderr, "the editor's answer was %s\n", relayed ?
		    "relayed after the relay had answered cancelled" :
		    "not relayed");
		abort();
	}
	if (req != NULL && relayed) {
		a = parse(line, n);
		approve(f, req, a);
		json_decref(a);
	}
	if (f->pre != 0)
		abort();
}

/* The editor's line: counted, made an honest answer, or dropped (NULL). */
static char *
editor_line(struct fz *f, const char *s, size_t n, int which, json_t **req)
{
	json_t *m = parse(s, n);
	char *k, *t = NULL;

	*req = NULL;
	if (json_is_object(m) && json_object_get(m, "id") != NULL &&
	    json_string_value(json_object_get(m, "method")) == NULL) {
		t = editor_answer(f, m, which, req);
		json_decref(m);
		return (t);
	}
	if (json_is_object(m) && json_string_value(json_object_get(m,
	    "method")) != NULL && (k = idk(m)) != NULL) {
		count(f->editor_reqs, k, 1);
		free(k);
	}
	json_decref(m);
	if ((t = malloc(n + 1)) == NULL)
		abort();
	memcpy(t, s, n);
	t[n] = '\0';
	return (t);
}

/* Feeds one line in the pieces the control byte says. */
static void
feed(struct jh_acp *r, enum jh_acp_peer from, const char *s, size_t n,
    int how)
{
	char *b;
	size_t len = n + (how == 3 ? 2 : 1), cut1, cut2;

	if ((b = malloc(len)) == NULL)
		abort();
	memcpy(b, s, n);
	if (how == 3)
		memcpy(b + n, "\r\n", 2);
	else
		b[n] = '\n';
	cut1 = how == 1 || how == 2 ? len / how / 2 : len;
	cut2 = how == 2 ? cut1 + (len - cut1) / 2 : len;
	if (jh_acp_feed(r, from, b, cut1) == -1 ||
	    jh_acp_feed(r, from, b + cut1, cut2 - cut1) == -1 ||
	    jh_acp_feed(r, from, b + cut2, len - cut2) == -1)
		abort();
	free(b);
}

/* One line of the input. */
static void
step(struct fz *f, struct jh_acp *r, unsigned c, const char *s, size_t n)
{
	enum jh_acp_peer from = (c & 1) ? JH_ACP_AGENT : JH_ACP_EDITOR;
	int how = (c >> 4) & 3;
	json_t *req = NULL;
	char *t = NULL, *line;
	size_t ln;

	f->verdict = (c >> 1) & 7;
	f->pre = 0;
	if (from == JH_ACP_EDITOR) {
		if ((t = editor_line(f, s, n, (int)(c >> 6), &req)) == NULL) {
			json_decref(req);
			return;
		}
		s = t;
		if (req != NULL)
			n = strlen(t);
	}
	feed(r, from, s, n, how);
	/* the line as the relay has it, CR and all */
	ln = n + (how == 3);
	if ((line = malloc(ln + 1)) == NULL)
		abort();
	memcpy(line, s, n);
	if (how == 3)
		line[n] = '\r';
	if (ln == 0 || (ln == 1 && line[0] == '\r')) {
		if (f->out[0].n + f->out[1].n != 0 || f->pre != 0)
			abort();	/* an empty line is nothing */
	} else if (from == JH_ACP_AGENT)
		after_agent(f, line, ln, ln > FZ_MAXLINE);
	else
		after_editor(f, line, ln, req);
	out_clear(&f->out[0]);
	out_clear(&f->out[1]);
	json_decref(req);
	free(line);
	free(t);
}

/* The agent is gone: the editor's unanswered requests are answered. */
static void
gone(struct fz *f, struct jh_acp *r)
{
	size_t i;
	json_t *a;

	jh_acp_agent_gone(r, "the agent exited with status 1");
	for (i = 0; i < f->out[JH_ACP_EDITOR].n; i++) {
		a = rpc(&f->out[JH_ACP_EDITOR].v[i], "editor");
		if (!is_answer(a) || json_object_get(a, "error") == NULL)
			abort();
		answered(f->editor_answers, f->editor_reqs, a, "editor");
		json_decref(a);
	}
	if (f->out[JH_ACP_AGENT].n != 0)
		abort();
	out_clear(&f->out[0]);
	out_clear(&f->out[1]);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "fuzz-acp: world -; the relay between an ACP editor "
	    "and agent, the gate's verdicts from the input\n");
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_acp_io io = { gate, capture, note, NULL };
	struct jh_acp *r;
	struct fz f;
	const uint8_t *p = d, *nl, *end = d + n;

	memset(&f, 0, sizeof(f));
	io.arg = &f;
	f.agent_reqs = json_object();
	f.agent_answers = json_object();
	f.editor_reqs = json_object();
	f.editor_answers = json_object();
	f.pending = json_array();
	f.approvals = json_object();
	if ((r = jh_acp_new(&io, "00112233aabbccdd", FZ_MAXLINE)) == NULL)
		abort();
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl == p)
			continue;
		if (*p == FZ_GONE) {
			gone(&f, r);
			break;
		}
		step(&f, r, *p, (const char *)p + 1, (size_t)(nl - p - 1));
	}
	jh_acp_free(r);
	free(f.out[0].v);
	free(f.out[1].v);
	json_decref(f.agent_reqs);
	json_decref(f.agent_answers);
	json_decref(f.editor_reqs);
	json_decref(f.editor_answers);
	json_decref(f.pending);
	json_decref(f.approvals);
	return (0);
}
