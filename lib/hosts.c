/*
 * joulehook: host adapters.  Each host's entry (host-*.c) turns its
 * native payload into the canonical one (Claude Code's shape, with the
 * canonical tool input keys), says which class each of its tools
 * belongs to, and how the host wants each answer; this file makes the
 * ActionEvent of a canonical payload and degrades the verdicts a host
 * lacks.  Adding a host is a host-*.c file and a line in hosts[].
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "json.h"
#include "util.h"

static const struct jh_host *const hosts[] = {
	&jh_host_claude_code, &jh_host_gemini_cli, &jh_host_codex,
	&jh_host_cline, &jh_host_cursor, &jh_host_windsurf,
	&jh_host_antigravity, &jh_host_opencode, &jh_host_acp, NULL
};

/*
 * Every other field of the canonical payload, in ActionEvent order:
 * what Claude Code 2.1.328 sends, and what an adapter keeps of a native
 * payload it renamed (the event, the tool and its input as the host
 * sent them).
 */
static const struct jh_host_field canon_fields[] = {
	{ "agent_id", "agent_id", JH_HF_NAME },
	{ "agent_type", "agent_type", JH_HF_NAME },
	{ "transcript_path", "transcript_path", JH_HF_NAME },
	{ "permission_mode", "permission_mode", JH_HF_NAME },
	{ "prompt_id", "prompt_id", JH_HF_NAME },
	{ "tool_response", "response", JH_HF_ANY },
	{ "duration_ms", "duration_ms", JH_HF_UINT },
	{ "source", "source", JH_HF_TEXT },
	{ "reason", "reason", JH_HF_TEXT },
	{ "prompt", "prompt", JH_HF_TEXT },
	{ "stop_hook_active", "stop_hook_active", JH_HF_BOOL },
	{ "mcp_server", "mcp_server", JH_HF_OBJECT },
	{ "permission_suggestions", "permission_suggestions", JH_HF_ARRAY },
	{ "effort", "effort", JH_HF_OBJECT },
	{ "error", "error", JH_HF_ANY },
	{ "is_interrupt", "is_interrupt", JH_HF_BOOL },
	{ "last_assistant_message", "last_assistant_message", JH_HF_TEXT },
	{ "background_tasks", "background_tasks", JH_HF_ARRAY },
	{ "session_crons", "session_crons", JH_HF_ARRAY },
	{ "message", "message", JH_HF_TEXT },
	{ "notification_type", "notification_type", JH_HF_TEXT },
	{ "model", "model", JH_HF_ANY },
	{ "session_title", "session_title", JH_HF_TEXT },
	{ "native_event", "native_event", JH_HF_NAME },
	{ "cwd_unknown", "cwd_unknown", JH_HF_BOOL },
	{ "cwd_chosen", "cwd_chosen", JH_HF_BOOL },
	{ "native_tool", "native_tool", JH_HF_NAME },
	{ "native_input", "native_input", JH_HF_ANY },
	{ NULL, NULL, 0 }
};

static const char *const tool_events[] = { "PreToolUse", "PostToolUse",
    "PostToolUseFailure", "PermissionRequest", "PermissionDenied", NULL };


/* The canonical events after a tool call, and what each says happened. */
static const struct {
	const char *event;
	const char *status;
} post_events[] = {
	{ "PostToolUse", "ok" },
	{ "PostToolUseFailure", "failed" },
	{ "PermissionDenied", "denied" },
	{ NULL, NULL }
};
const struct jh_host *
jh_host_lookup(const char *name)
{
	const struct jh_host *const *h;

	for (h = hosts; *h != NULL; h++)
		if (strcmp((*h)->name, name) == 0)
			return (*h);
	return (NULL);
}

/* The names of the known hosts, separated by ", ", for messages. */
const char *
jh_host_names(char *out, size_t sz)
{
	const struct jh_host *const *h;
	size_t n = 0;
	int w;

	out[0] = '\0';
	for (h = hosts; *h != NULL; h++) {
		w = snprintf(out + n, sz - n, "%s%s", n ? ", " : "",
		    (*h)->name);
		if (w < 0 || (size_t)w >= sz - n)
			break;
		n += (size_t)w;
	}
	return (out);
}

/* Matches s (n bytes, NULs included) against a pattern with '*'. */
static int
glob_match(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, mark = 0;

	while (i < n) {
		if (*pat == '*') {
			star = ++pat;
			mark = i;
		} else if (*pat != '\0' && *pat == s[i]) {
			pat++;
			i++;
		} else if (star != NULL) {
			pat = star;
			i = ++mark;
		} else
			return (0);
	}
	while (*pat == '*')
		pat++;
	return (*pat == '\0');
}

const char *
jh_host_class(const struct jh_host *h, const char *tool, size_t n)
{
	const struct jh_host_tool *t;

	for (t = h->tools; t->pattern != NULL; t++)
		if (glob_match(t->pattern, tool, n))
			return (t->cls);
	return ("other");
}

/*
 * content_id of an action, from the payload alone and never fabricated
 * (jh-normalize(1), content_id): shell, the command's bytes; write,
 * the bytes to be written; fetch, the URL's text; mcp, the text
 * "<server>/<tool>" split from "mcp__<server>__<tool>" at the first "__"
 * after the prefix.  Read and edit are left to jh-decide, which hashes
 * the file only once the path capability has matched.  Returns 1 with
 * "sha256:<hex>" in out, 0 when there is none.
 */
int
jh_content_id(char *out, const struct jh_host *h, const char *cls,
    const char *tool, size_t n, const json_t *input)
{
	const json_t *v = NULL;
	const char *srv, *sep;
	char *id;
	size_t pl = 5, sl = 2;

	(void)h;
	if (strcmp(cls, "shell") == 0)
		v = json_object_get(input, "command");
	else if (strcmp(cls, "write") == 0)
		v = json_object_get(input, "content");
	else if (strcmp(cls, "fetch") == 0)
		v = json_object_get(input, "url");
	else if (strcmp(cls, "mcp") == 0) {
		if (n <= pl || memcmp(tool, "mcp__", pl) != 0)
			return (0);
		srv = tool + pl;
		sep = memmem(srv, n - pl, "__", sl);
		if (sep == NULL || sep == srv || sep + sl == tool + n)
			return (0);
		if ((id = malloc(n)) == NULL)
			return (0);
		memcpy(id, srv, (size_t)(sep - srv));
		id[sep - srv] = '/';
		memcpy(id + (sep - srv) + 1, sep + sl,
		    (size_t)(tool + n - sep - sl));
		jh_sha256_id(out, (const uint8_t *)id, n - pl - sl + 1);
		free(id);
		return (1);
	}
	if (v == NULL || !json_is_string(v))
		return (0);
	jh_sha256_id(out, (const uint8_t *)json_string_value(v),
	    json_string_length(v));
	return (1);
}

/* The first defect of a payload. */
struct flaw {
	char msg[160];
};

static void
flaw(struct flaw *f, const char *fmt, ...)
{
	va_list ap;

	if (f->msg[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
}

static const char *
type_word(int t)
{
	switch (t) {
	case JH_HF_NAME:
	case JH_HF_TEXT: return ("a string");
	case JH_HF_UINT: return ("a non-negative integer");
	case JH_HF_BOOL: return ("true or false");
	case JH_HF_OBJECT: return ("an object");
	case JH_HF_ARRAY: return ("an array");
	}
	return ("a JSON value");
}

static int
type_ok(const json_t *v, int t)
{
	switch (t) {
	case JH_HF_NAME:
	case JH_HF_TEXT: return (json_is_string(v));
	case JH_HF_UINT: return (json_is_integer(v) &&
	    json_integer_value(v) >= 0);
	case JH_HF_BOOL: return (json_is_boolean(v));
	case JH_HF_OBJECT: return (json_is_object(v));
	case JH_HF_ARRAY: return (json_is_array(v));
	}
	return (1);
}

/*
 * Takes one field out of rest: returns a new reference to its value, or
 * NULL when it is absent (a null counts as absent) or of the wrong type,
 * which is a defect and leaves it in rest (for native).  A NAME must not
 * hold a NUL, nor be empty when required.
 */
static json_t *
take(json_t *rest, const char *key, int type, int req, struct flaw *f)
{
	json_t *v = json_object_get(rest, key);

	if (v == NULL || json_is_null(v)) {
		if (v != NULL)
			json_object_del(rest, key);
		if (req)
			flaw(f, "missing %s", key);
		return (NULL);
	}
	if (!type_ok(v, type)) {
		/*
		 * A core field of the wrong type makes the event malformed;
		 * an extra one is left for "native", so a host changing the
		 * shape of a field we only carry does not deny every call.
		 */
		if (req || strcmp(key, "agent_id") == 0)
			flaw(f, "%s must be %s", key, type_word(type));
		return (NULL);
	}
	if (type == JH_HF_NAME) {
		if (req && json_string_length(v) == 0)
			flaw(f, "%s is empty", key);
		if (memchr(json_string_value(v), '\0',
		    json_string_length(v)) != NULL)
			flaw(f, "NUL in %s", key);
	}
	json_incref(v);
	json_object_del(rest, key);
	return (v);
}

/* Whether j nests no deeper than input_digest accepts (jh_json_to_cbor). */
static int
depth_ok(const json_t *j, int d)
{
	const json_t *v;
	const char *k;
	size_t i;

	if (d > JH_MAX_DEPTH)
		return (0);
	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v)
			if (!depth_ok(v, d + 1))
				return (0);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if (!depth_ok(v, d + 1))
				return (0);
	}
	return (1);
}

/* Whether the JSON string s is the text t, NULs counted. */
static int
str_is(const json_t *s, const char *t)
{
	return (strlen(t) == json_string_length(s) &&
	    memcmp(t, json_string_value(s), strlen(t)) == 0);
}

static int
in_list(const char *const *l, const json_t *s)
{
	for (; *l != NULL; l++)
		if (str_is(s, *l))
			return (1);
	return (0);
}

static void
put(json_t *ev, const char *k, json_t *v)
{
	if (v != NULL)
		json_object_set_new(ev, k, v);
}

/*
 * The canonical payload of a host's native one: a new reference, NULL
 * when out of memory.  The first defect the adapter found, if any, is
 * left in why (the event is then malformed, and denied).
 */
json_t *
jh_host_canon(const struct jh_host *h, const json_t *p, char *why,
    size_t whysz)
{
	why[0] = '\0';
	if (h->canon == NULL || !json_is_object(p))
		return (json_incref((json_t *)p));
	return (h->canon(p, why, whysz));
}

/*
 * The ActionEvent of one payload (jh-normalize(1)), keys in this order:
 * session_id, tool, input, cwd, content_id, host, event, class,
 * tool_use_id, then the host's other fields in table order, then
 * "malformed" with the first defect, if any, then with keep_native the
 * fields no table names (and any of the wrong type) under "native".
 * Tool fields appear only when the host gave them.  Returns NULL only
 * when out of memory.
 */
static json_t *
canon_event(const struct jh_host *h, const json_t *p, int keep_native,
    const char *defect)
{
	const struct jh_host_field *hf;
	struct flaw f;
	json_t *ev, *rest, *sess, *evn, *tool, *in, *call, *cwd, *v;
	json_t *wd = NULL;
	char cid[JH_ID_LEN];
	const char *cls = NULL;
	int tev, gate;

	f.msg[0] = '\0';
	if ((ev = json_object()) == NULL)
		return (NULL);
	if (defect != NULL)
		snprintf(f.msg, sizeof(f.msg), "%s", defect);
	if (!json_is_object(p)) {
		json_object_set_new(ev, "host", json_string(h->name));
		json_object_set_new(ev, "malformed",
		    json_string("payload is not a JSON object"));
		return (ev);
	}
	if ((rest = json_copy((json_t *)p)) == NULL) {
		json_decref(ev);
		return (NULL);
	}
	sess = take(rest, JH_HK_SESSION, JH_HF_NAME, 1, &f);
	evn = take(rest, JH_HK_EVENT, JH_HF_NAME, 1, &f);
	tev = evn != NULL && in_list(tool_events, evn);
	gate = evn != NULL && str_is(evn, JH_GATE_EVENT);
	tool = take(rest, JH_HK_TOOL, JH_HF_NAME, tev, &f);
	in = take(rest, JH_HK_INPUT, JH_HF_OBJECT, tev, &f);
	if (in != NULL && !depth_ok(in, 0)) {
		flaw(&f, "%s nested deeper than %d levels", JH_HK_INPUT,
		    JH_MAX_DEPTH);
		json_decref(in);
		in = NULL;
	}
	call = take(rest, JH_HK_CALL, JH_HF_NAME, gate, &f);
	/* a host that says it sends none gets the session's root */
	cwd = take(rest, JH_HK_CWD, JH_HF_NAME, gate &&
	    !json_is_true(json_object_get(rest, "cwd_unknown")), &f);

	put(ev, "session_id", sess);
	if (tool != NULL) {
		cls = jh_host_class(h, json_string_value(tool),
		    json_string_length(tool));
		json_object_set(ev, "tool", tool);
	}
	if (tool != NULL && in != NULL) {
		/*
		 * A working directory is the tool's only where the host's
		 * tool has one (its entry renames a key to workdir): a
		 * "workdir" the model adds to another tool's input is not
		 * where the host runs it.
		 */
		const struct jh_host_tool *t = jh_hc_tool(h,
		    json_string_value(tool));
		const json_t *w = json_object_get(in, "workdir");
		if (t != NULL && t->keys != NULL &&
		    strstr(t->keys, "=workdir") != NULL && json_is_string(w))
			wd = json_incref((json_t *)w);
	}
	put(ev, "input", in);
	put(ev, "cwd", cwd);
	put(ev, "workdir", wd);
	if (tool != NULL)
		json_object_set_new(ev, "content_id", in != NULL &&
		    jh_content_id(cid, h, cls, json_string_value(tool),
		    json_string_length(tool), in) ? json_string(cid) :
		    json_null());
	json_object_set_new(ev, "host", json_string(h->name));
	put(ev, "event", evn);
	if (tool != NULL)
		json_object_set_new(ev, "class", json_string(cls));
	put(ev, "tool_use_id", call);
	json_decref(tool);
	for (hf = canon_fields; hf->native != NULL; hf++)
		if ((v = take(rest, hf->native, hf->type, 0, &f)) != NULL)
			json_object_set_new(ev, hf->name, v);
	if (f.msg[0] != '\0')
		json_object_set_new(ev, "malformed", json_string(f.msg));
	if (keep_native && json_object_size(rest) > 0)
		json_object_set(ev, "native", rest);
	json_decref(rest);
	return (ev);
}

json_t *
jh_host_event(const struct jh_host *h, const json_t *p, int keep_native)
{
	char why[160];
	json_t *c, *ev;

	if ((c = jh_host_canon(h, p, why, sizeof(why))) == NULL)
		return (NULL);
	ev = canon_event(h, c, keep_native, why[0] != '\0' ? why : NULL);
	json_decref(c);
	return (ev);
}

/*
 * One payload, a JSON value the reader framed, to its ActionEvent line
 * and a newline, appended to out (jh-normalize(1)).  Parsed as the
 * input_digest contract wants: a repeated key is refused and U+0000
 * kept; a lone surrogate is read as U+FFFD, as the host runs it (only a
 * payload with a \u escape is copied for that).  Returns 0, 1 when the
 * payload is refused (why in e: not JSON, or an event longer than the
 * next stage takes), -1 when out of memory.
 */
int
jh_normalize_one(struct jh_buf *out, const struct jh_host *h,
    const char *val, size_t len, int native, struct jh_err *e)
{
	json_error_t je;
	json_t *j, *ev;
	char *fix = NULL, *line;
	size_t n;

	if (memmem(val, len, "\\u", 2) != NULL) {
		if ((fix = malloc(len)) == NULL)
			return (jh_errf(e, "out of memory"));
		memcpy(fix, val, len);
		jh_json_lone_surrogates(fix, len);
	}
	j = json_loadb(fix != NULL ? fix : val, len, JSON_REJECT_DUPLICATES |
	    JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);
	free(fix);
	if (j == NULL) {
		jh_errf(e, "not JSON: line %d, column %d: %s", je.line,
		    je.column, je.text);
		return (1);
	}
	ev = jh_host_event(h, j, native);
	line = ev != NULL ? json_dumps(ev, JSON_COMPACT) : NULL;
	json_decref(ev);
	json_decref(j);
	if (line == NULL)
		return (jh_errf(e, "out of memory"));
	if ((n = strlen(line)) >= JH_MAX_RECORD) {
		/* The next stage would refuse the line. */
		free(line);
		jh_errf(e, "its event is longer than %u bytes", JH_MAX_RECORD);
		return (1);
	}
	jh_buf_add(out, line, n);
	jh_buf_addc(out, '\n');
	free(line);
	return (out->oom ? jh_errf(e, "out of memory") : 0);
}

/*
 * The host's answer to a verdict: what to write on the standard output
 * (possibly nothing) into b, and the exit status to return.  reason is
 * shown by the host; updated is the compact JSON of the canonical
 * replacement input (rewrite only) of the tool; replace opts in to "the
 * grant replaces the prompt".  A verdict the host lacks becomes a deny
 * that says so: an ask where the host cannot ask (or hangs on it), a
 * rewrite it cannot take.
 */
int
jh_host_answer(struct jh_buf *b, const struct jh_host *h, int verdict,
    const char *reason, const char *tool, const char *updated, int replace)
{
	struct jh_buf why;
	json_t *u = NULL, *nat = NULL;
	char *txt = NULL;
	int rc;

	jh_buf_init(&why);
	if (verdict == JH_ANSWER_ASK && !h->can_ask) {
		jh_buf_adds(&why, reason);
		jh_buf_addf(&why, " (this needs your approval, which %s "
		    "cannot be asked for here: it is denied; grant it with "
		    "jh-grant to let it run)", h->name);
		verdict = JH_ANSWER_DENY;
		reason = jh_buf_cstr(&why);
	} else if (verdict == JH_ANSWER_REWRITE) {
		struct jh_err e;
		if (h->can_rewrite && updated != NULL && tool != NULL &&
		    (u = jh_json_parse(updated, strlen(updated), &e)) != NULL)
			nat = h->native_input != NULL ?
			    h->native_input(tool, u) :
			    jh_hc_native_default(h, tool, u);
		if (nat == NULL || (txt = json_dumps(nat, JSON_COMPACT |
		    JSON_ENCODE_ANY)) == NULL) {
			jh_buf_addf(&why, "%s cannot run this call with the "
			    "input the grant rewrote it to, so it is denied "
			    "(%s)", h->name, reason);
			verdict = JH_ANSWER_DENY;
			reason = jh_buf_cstr(&why);
		}
	}
	if (reason == NULL)
		reason = "joulehook: out of memory";
	rc = h->answer(b, verdict, reason, txt, replace);
	free(txt);
	json_decref(u);
	json_decref(nat);
	jh_buf_free(&why);
	return (rc);
}

/* What a post-tool event says happened, or NULL. */
const char *
jh_host_post_status(const struct jh_host *h, const char *event)
{
	size_t i;

	(void)h;
	for (i = 0; post_events[i].event != NULL; i++)
		if (strcmp(post_events[i].event, event) == 0)
			return (post_events[i].status);
	return (NULL);
}

int
jh_host_post_answer(struct jh_buf *b, const struct jh_host *h,
    const char *event, int what, const char *reason, const char *path)
{
	return (h->post_answer(b, event, what, reason, path));
}

/*
 * The answer of the hosts whose hook says {"decision": ...} (Gemini CLI,
 * OpenCode's plugin): allow; a rewrite is allow with the reason and the
 * new input written between pre and post; anything else is the deny JSON
 * and exit 2.  Returns the exit status.
 */
int
jh_hc_decision(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, const char *pre, const char *post)
{
	if (verdict == JH_ANSWER_ALLOW) {
		jh_buf_adds(b, "{\"decision\":\"allow\"}\n");
		return (0);
	}
	jh_buf_addf(b, "{\"decision\":\"%s\",\"reason\":",
	    verdict == JH_ANSWER_REWRITE ? "allow" : "deny");
	jh_json_str(b, reason, strlen(reason));
	if (verdict == JH_ANSWER_REWRITE) {
		jh_buf_adds(b, pre);
		jh_buf_adds(b, updated);
		jh_buf_adds(b, post);
		return (0);
	}
	jh_buf_adds(b, "}\n");
	return (2);
}

/* Adapters' helpers (host.h). */

int
jh_hc_stop(struct jh_buf *b, int what, const char *reason, int sysmsg)
{
	if (what == JH_POST_OK)
		return (0);
	jh_buf_adds(b, "{\"continue\":false,\"stopReason\":");
	jh_json_str(b, reason, strlen(reason));
	if (sysmsg) {
		jh_buf_adds(b, ",\"systemMessage\":");
		jh_json_str(b, reason, strlen(reason));
	}
	jh_buf_adds(b, "}\n");
	return (0);
}

void
jh_hc_move(json_t *o, const char *from, const char *to)
{
	json_t *v = json_object_get(o, from);

	if (v == NULL || strcmp(from, to) == 0)
		return;
	json_object_set(o, to, v);
	json_object_del(o, from);
}

/* Whether a key list ("a=b c=d") reads name: it is one of its a's. */
static int
reads_key(const char *keys, const char *name)
{
	char from[64], to[64];
	int n;

	while (sscanf(keys, " %63[^= ]=%63s%n", from, to, &n) == 2) {
		if (strcmp(from, name) == 0)
			return (1);
		keys += n;
	}
	return (0);
}

/*
 * The input with its keys renamed by keys ("a=b c=d": a becomes b), or
 * with back, b becomes a; other keys are kept.  A new reference.
 */
json_t *
jh_hc_rename(const json_t *in, const char *keys, int back)
{
	json_t *o = json_deep_copy(in);
	char from[64], to[64];
	const char *k = keys;
	int n;

	if (o == NULL || keys == NULL || !json_is_object(o))
		return (o);
	/*
	 * A canonical name the host's tool does not read is a key the host
	 * ignores (Gemini's shell reads dir_path, never workdir): one the
	 * model put in the input is dropped, not decided in the place of
	 * what the host reads.  A file_path is kept: both are targets.
	 */
	while (!back && sscanf(k, " %63[^= ]=%63s%n", from, to, &n) == 2) {
		if (strcmp(to, "file_path") != 0 && !reads_key(keys, to))
			json_object_del(o, to);
		k += n;
	}
	k = keys;
	while (sscanf(k, " %63[^= ]=%63s%n", from, to, &n) == 2) {
		if (back)
			jh_hc_move(o, to, from);
		else {
			/*
			 * Two of the tool's names for one path (the model may
			 * send both): both are targets, whichever the tool reads.
			 */
			const json_t *had = json_object_get(o, to);
			if (had != NULL && json_object_get(o, from) != NULL &&
			    strcmp(to, "file_path") == 0) {
				json_t *a = json_object_get(o, "paths");
				if (!json_is_array(a)) {
					a = json_array();
					json_object_set_new(o, "paths", a);
				}
				json_array_append(a, (json_t *)had);
			}
			jh_hc_move(o, from, to);
		}
		k += n;
	}
	return (o);
}

const struct jh_host_tool *
jh_hc_tool(const struct jh_host *h, const char *tool)
{
	const struct jh_host_tool *t;

	for (t = h->tools; t->pattern != NULL; t++)
		if (glob_match(t->pattern, tool, strlen(tool)))
			return (t);
	return (NULL);
}

/*
 * Sets the canonical tool_name and tool_input (in, a reference taken)
 * of c: the input's keys renamed by the tool's entry; the host's own
 * name and input are kept as native_tool and native_input where they
 * differ.  Returns -1 when out of memory.
 */
int
jh_hc_set_tool(json_t *c, const struct jh_host *h, const char *native,
    const char *canon, json_t *in)
{
	const struct jh_host_tool *t = jh_hc_tool(h, canon);
	json_t *ci;

	if (in == NULL)
		return (-1);
	ci = json_is_object(in) ? jh_hc_rename(in, t ? t->keys : NULL, 0) :
	    json_incref(in);
	if (ci == NULL) {
		json_decref(in);
		return (-1);
	}
	if (strcmp(native, canon) != 0)
		json_object_set_new(c, "native_tool", json_string(native));
	if (!json_equal(ci, in))
		json_object_set(c, "native_input", in);
	json_object_set_new(c, JH_HK_TOOL, json_string(canon));
	json_object_set_new(c, JH_HK_INPUT, ci);
	json_decref(in);
	return (0);
}

/*
 * Renames the native event at key to its canonical name (kept when the
 * map has none) as hook_event_name, the native one as native_event.
 * Returns the canonical name, or NULL when there is no event.
 */
const char *
jh_hc_event(json_t *c, const char *key, const struct jh_hc_event *map)
{
	const json_t *v = json_object_get(c, key);
	const char *n, *canon;

	if (!json_is_string(v))
		return (NULL);
	n = canon = json_string_value(v);
	for (; map->native != NULL; map++)
		if (strcmp(map->native, n) == 0) {
			canon = map->canon;
			break;
		}
	json_object_set_new(c, "native_event", json_string(n));
	json_object_set_new(c, JH_HK_EVENT, json_string(canon));
	if (strcmp(key, JH_HK_EVENT) != 0)
		json_object_del(c, key);
	return (json_string_value(json_object_get(c, JH_HK_EVENT)));
}

/*
 * A call id for a host that sends none: "jh-" and 32 hex digits of the
 * digest of session, tool and input, so the same call before and after
 * it ran has the same id and another call has another (two identical
 * calls in one session share it; each is still decided and sealed).
 */
int
jh_hc_derive_id(json_t *c)
{
	const json_t *s = json_object_get(c, JH_HK_SESSION);
	const json_t *t = json_object_get(c, JH_HK_TOOL);
	const json_t *in = json_object_get(c, JH_HK_INPUT);
	char id[JH_ID_LEN], out[40];
	struct jh_buf b;
	char *txt;

	if (!json_is_string(s) || !json_is_string(t) || in == NULL ||
	    json_object_get(c, JH_HK_CALL) != NULL)
		return (0);
	if ((txt = json_dumps(in, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY)) == NULL)
		return (-1);
	jh_buf_init(&b);
	jh_buf_add(&b, json_string_value(s), json_string_length(s) + 1);
	jh_buf_add(&b, json_string_value(t), json_string_length(t) + 1);
	jh_buf_adds(&b, txt);
	free(txt);
	if (b.oom) {
		jh_buf_free(&b);
		return (-1);
	}
	jh_sha256_id(id, b.p, b.len);
	jh_buf_free(&b);
	snprintf(out, sizeof(out), "jh-%.32s", id + 7);
	json_object_set_new(c, JH_HK_CALL, json_string(out));
	return (0);
}

/* A value a host sent as a JSON text in a string, decoded; else itself. */
json_t *
jh_hc_unstring(const json_t *v)
{
	struct jh_err e;
	json_t *j;

	if (json_is_string(v) && json_string_length(v) > 0 &&
	    (json_string_value(v)[0] == '{' ||
	    json_string_value(v)[0] == '[') &&
	    (j = jh_json_parse(json_string_value(v), json_string_length(v),
	    &e)) != NULL)
		return (j);
	return (json_incref((json_t *)v));
}

/* "mcp__<server>__<tool>", the canonical name of an MCP tool. */
char *
jh_hc_mcp_name(const char *server, const char *tool)
{
	size_t n = strlen(server) + strlen(tool) + 8;
	char *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "mcp__%s__%s", server, tool);
	return (s);
}

/* The native input of a rewrite: the tool's renames undone. */
json_t *
jh_hc_native_default(const struct jh_host *h, const char *tool,
    const json_t *upd)
{
	const struct jh_host_tool *t = jh_hc_tool(h, tool);

	if (!json_is_object(upd))
		return (NULL);
	return (jh_hc_rename(upd, t ? t->keys : NULL, 1));
}

static int
json_space(int c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

static int
json_delim(int c)
{
	return (json_space(c) || c == '{' || c == '}' || c == '[' ||
	    c == ']' || c == ',' || c == ':' || c == '"');
}

/*
 * Frames the next JSON value of a stream of values written back to back
 * (hosts send one per hook; pretty-printed values span lines), without
 * parsing it: strings and nesting are followed, so the value ends where
 * its outermost brace, bracket or quote closes, or a bare scalar where a
 * delimiter starts.  Sets *start to the stream offset where the value
 * starts (for messages), and returns 1 with the value's bytes, 0 at the end of
 * input, JH_JSON_TOOLONG for a value over JH_MAX_RECORD (skipped, so the
 * caller may go on), JH_JSON_BROKEN when the input ends inside a value
 * or cannot be read.
 */
int
jh_reader_json(struct jh_reader *r, const char **val, size_t *len,
    uint64_t *start, struct jh_err *e)
{
	size_t i = 0;
	int depth = 0, instr = 0, esc = 0, scalar = 0, toolong = 0, c;

	for (;;) {
		while (r->pos < r->b.len && json_space(r->b.p[r->pos]))
			r->pos++;
		if (r->pos < r->b.len)
			break;
		if (r->eof)
			return (0);
		if (jh_reader_fill(r, e) == -1)
			return (JH_JSON_BROKEN);
	}
	*start = r->offset + r->pos;
	c = r->b.p[r->pos];
	if (c == '{' || c == '[')
		depth = 1;
	else if (c == '"')
		instr = 1;
	else
		scalar = 1;
	i = 1;
	for (;;) {
		for (; r->pos + i < r->b.len; i++) {
			c = r->b.p[r->pos + i];
			if (instr) {
				if (esc)
					esc = 0;
				else if (c == '\\')
					esc = 1;
				else if (c == '"') {
					instr = 0;
					if (depth == 0)
						goto done;
				}
			} else if (scalar) {
				if (json_delim(c))
					goto end;
			} else if (c == '"')
				instr = 1;
			else if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				goto done;
		}
		if (i > JH_MAX_RECORD) {
			/* Drop what we have; keep following the value. */
			toolong = 1;
			r->pos += i;
			i = 0;
		}
		if (r->eof)
			break;
		if (jh_reader_fill(r, e) == -1)
			return (JH_JSON_BROKEN);
	}
	if (!scalar) {
		r->pos = r->b.len;
		jh_errf(e, "the input ends inside a JSON value");
		return (JH_JSON_BROKEN);
	}
	goto end;
done:
	i++;
end:
	if (toolong || i > JH_MAX_RECORD) {
		r->pos += i;
		jh_errf(e, "payload longer than %u bytes", JH_MAX_RECORD);
		return (JH_JSON_TOOLONG);
	}
	*val = (const char *)r->b.p + r->pos;
	*len = i;
	r->pos += i;
	return (1);
}
