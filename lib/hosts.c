/*
 * joulehook: host adapters.  One table entry per host says where its
 * hook payload keeps each ActionEvent field, which class each of its
 * tools belongs to, which input field names a tool's target, and how the
 * host wants each answer; adding a host touches only this file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"

/*
 * Claude Code (real-hosts.md 2, hosts.md 1).  Tool names are matched
 * exactly, or by a pattern whose '*' matches any run of characters; a
 * tool no pattern matches is of class "other".
 */
static const struct jh_host_tool cc_tools[] = {
	{ "Bash", "shell" },
	{ "PowerShell", "shell" },
	{ "Write", "write" },
	{ "Edit", "edit" },
	{ "MultiEdit", "edit" },
	{ "NotebookEdit", "edit" },
	{ "Read", "read" },
	{ "Glob", "search" },
	{ "Grep", "search" },
	{ "LS", "search" },
	{ "WebFetch", "fetch" },
	{ "WebSearch", "fetch" },
	{ "Agent", "agent" },
	{ "Task", "agent" },
	{ "mcp__*", "mcp" },
	{ NULL, NULL }
};

/* Every other field Claude Code 2.1.328 sends, in ActionEvent order. */
static const struct jh_host_field cc_fields[] = {
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
	{ NULL, NULL, 0 }
};

static const char *const cc_tool_events[] = { "PreToolUse", "PostToolUse",
    "PostToolUseFailure", "PermissionRequest", "PermissionDenied", NULL };

static void
hso_open(struct jh_buf *b, const char *decision, const char *reason)
{
	jh_buf_adds(b, "{\"hookSpecificOutput\":{\"hookEventName\":"
	    "\"PreToolUse\"");
	if (decision == NULL)
		return;
	jh_buf_addf(b, ",\"permissionDecision\":\"%s\","
	    "\"permissionDecisionReason\":", decision);
	jh_json_str(b, reason, strlen(reason));
}

/*
 * Claude Code's PreToolUse answers (real-hosts.md 2.4, SECURITY.md S5):
 * allow is "no opinion" (exit 0, nothing on stdout) so the host's own
 * permission flow still applies, unless the grant replaces the prompt;
 * a rewrite is updatedInput alone, which the host checks again; deny is
 * the deny JSON and exit 2, which blocks even if the JSON were not
 * understood.
 */
static int
cc_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	switch (verdict) {
	case JH_ANSWER_ALLOW:
		if (!replace)
			return (0);
		hso_open(b, "allow", reason);
		break;
	case JH_ANSWER_REWRITE:
		hso_open(b, replace ? "allow" : NULL, reason);
		jh_buf_adds(b, ",\"updatedInput\":");
		jh_buf_adds(b, updated);
		break;
	case JH_ANSWER_ASK:
		/*
		 * The REPL's dialogs for Write, Edit and Read do not show a
		 * hook's permissionDecisionReason (tests/claude-session.bats);
		 * a systemMessage is shown to the user for every tool.
		 */
		hso_open(b, "ask", reason);
		jh_buf_adds(b, "},\"systemMessage\":");
		jh_json_str(b, reason, strlen(reason));
		jh_buf_adds(b, "}\n");
		return (0);
	default:
		hso_open(b, "deny", reason);
		jh_buf_adds(b, "}}\n");
		return (2);
	}
	jh_buf_adds(b, "}}\n");
	return (0);
}

/* Claude Code's events after a tool call, and what each says happened. */
static const struct jh_host_post cc_post[] = {
	{ "PostToolUse", "ok" },
	{ "PostToolUseFailure", "failed" },
	{ "PermissionDenied", "denied" },
	{ NULL, NULL }
};

/*
 * Claude Code's answers after a tool ran (hosts.md 1.6, SECURITY.md 7b):
 * nothing when what ran is what was decided; otherwise continue:false,
 * which ends the run after this tool, with the reason for the user and
 * for the model; a Read whose bytes are not the ones decided on is
 * replaced (updatedToolOutput, in the Read result's own shape).
 */
static int
cc_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	if (what == JH_POST_OK)
		return (0);
	jh_buf_adds(b, "{\"continue\":false,\"stopReason\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, ",\"systemMessage\":");
	jh_json_str(b, reason, strlen(reason));
	if (strcmp(event, "PostToolUse") == 0 ||
	    strcmp(event, "PostToolUseFailure") == 0) {
		jh_buf_addf(b, ",\"hookSpecificOutput\":{\"hookEventName\":"
		    "\"%s\",\"additionalContext\":", event);
		jh_json_str(b, reason, strlen(reason));
		if (what == JH_POST_WITHHOLD && path != NULL &&
		    strcmp(event, "PostToolUse") == 0) {
			jh_buf_adds(b, ",\"updatedToolOutput\":{\"type\":"
			    "\"text\",\"file\":{\"filePath\":");
			jh_json_str(b, path, strlen(path));
			jh_buf_adds(b, ",\"content\":");
			jh_json_str(b, reason, strlen(reason));
			jh_buf_adds(b, ",\"numLines\":1,\"startLine\":1,"
			    "\"totalLines\":1}}");
		}
		jh_buf_adds(b, "}");
	}
	jh_buf_adds(b, "}\n");
	return (0);
}

/*
 * A Read result's text when it is the whole file (1 with *p, *n),
 * 0 when it is not text or only part of the file, -1 when malformed.
 */
static int
cc_read_text(const json_t *resp, const char **p, size_t *n,
    const char **path)
{
	const json_t *f, *c, *start, *nl, *tot, *fp;

	if (!json_is_object(resp))
		return (-1);
	if (!json_is_string(json_object_get(resp, "type")) ||
	    strcmp(json_string_value(json_object_get(resp, "type")),
	    "text") != 0)
		return (0);
	f = json_object_get(resp, "file");
	c = json_object_get(f, "content");
	fp = json_object_get(f, "filePath");
	start = json_object_get(f, "startLine");
	nl = json_object_get(f, "numLines");
	tot = json_object_get(f, "totalLines");
	if (!json_is_string(c) || !json_is_string(fp))
		return (-1);
	*path = json_string_value(fp);
	if (!json_is_integer(start) || !json_is_integer(nl) ||
	    !json_is_integer(tot) || json_integer_value(start) != 1 ||
	    json_integer_value(nl) != json_integer_value(tot))
		return (0);
	*p = json_string_value(c);
	*n = json_string_length(c);
	return (1);
}

/* The path a Write or Edit result says it wrote, or NULL. */
static const char *
cc_written_path(const json_t *resp)
{
	const json_t *fp = json_object_get(resp, "filePath");

	return (json_is_string(fp) ? json_string_value(fp) : NULL);
}

static const struct jh_host hosts[] = {
	{
		"claude-code",
		"session_id", "hook_event_name", "tool_name", "tool_input",
		"cwd", "tool_use_id",
		cc_tool_events, "PreToolUse",
		cc_fields, cc_tools,
		"command", "content", "url", "mcp__", "__",
		2, cc_answer,
		cc_post, cc_post_answer, cc_read_text, cc_written_path
	},
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	    NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL }
};

const struct jh_host *
jh_host_lookup(const char *name)
{
	const struct jh_host *h;

	for (h = hosts; h->name != NULL; h++)
		if (strcmp(h->name, name) == 0)
			return (h);
	return (NULL);
}

/* The names of the known hosts, separated by ", ", for messages. */
const char *
jh_host_names(char *out, size_t sz)
{
	const struct jh_host *h;
	size_t n = 0;
	int w;

	out[0] = '\0';
	for (h = hosts; h->name != NULL; h++) {
		w = snprintf(out + n, sz - n, "%s%s", n ? ", " : "", h->name);
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
 * (DESIGN.md 2.1): shell, the command's bytes; write, the bytes to be
 * written; fetch, the URL's text; mcp, the text "<server>/<tool>" split
 * from "mcp__<server>__<tool>" at the first "__" after the prefix.
 * Read and edit are left to jh-decide, which hashes the file only once
 * the path capability has matched.  Returns 1 with "sha256:<hex>" in
 * out, 0 when there is none.
 */
int
jh_content_id(char *out, const struct jh_host *h, const char *cls,
    const char *tool, size_t n, const json_t *input)
{
	const json_t *v = NULL;
	const char *srv, *sep;
	char *id;
	size_t pl = strlen(h->mcp_prefix), sl = strlen(h->mcp_sep);

	if (strcmp(cls, "shell") == 0)
		v = json_object_get(input, h->f_command);
	else if (strcmp(cls, "write") == 0)
		v = json_object_get(input, h->f_content);
	else if (strcmp(cls, "fetch") == 0)
		v = json_object_get(input, h->f_url);
	else if (strcmp(cls, "mcp") == 0) {
		if (n <= pl || memcmp(tool, h->mcp_prefix, pl) != 0)
			return (0);
		srv = tool + pl;
		sep = memmem(srv, n - pl, h->mcp_sep, sl);
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
 * The ActionEvent of one payload (DESIGN.md 2.1), keys in this order:
 * session_id, tool, input, cwd, content_id, host, event, class,
 * tool_use_id, then the host's other fields in table order, then
 * "malformed" with the first defect, if any, then with keep_native the
 * fields no table names (and any of the wrong type) under "native".
 * Tool fields appear only when the host gave them.  Returns NULL only
 * when out of memory.
 */
json_t *
jh_host_event(const struct jh_host *h, const json_t *p, int keep_native)
{
	const struct jh_host_field *hf;
	struct flaw f;
	json_t *ev, *rest, *sess, *evn, *tool, *in, *call, *cwd, *v;
	char cid[JH_ID_LEN];
	const char *cls = NULL;
	int tev, gate;

	f.msg[0] = '\0';
	if ((ev = json_object()) == NULL)
		return (NULL);
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
	sess = take(rest, h->f_session, JH_HF_NAME, 1, &f);
	evn = take(rest, h->f_event, JH_HF_NAME, 1, &f);
	tev = evn != NULL && in_list(h->tool_events, evn);
	gate = evn != NULL && str_is(evn, h->gate_event);
	tool = take(rest, h->f_tool, JH_HF_NAME, tev, &f);
	in = take(rest, h->f_input, JH_HF_OBJECT, tev, &f);
	if (in != NULL && !depth_ok(in, 0)) {
		flaw(&f, "%s nested deeper than %d levels", h->f_input,
		    JH_MAX_DEPTH);
		json_decref(in);
		in = NULL;
	}
	call = take(rest, h->f_call, JH_HF_NAME, gate, &f);
	cwd = take(rest, h->f_cwd, JH_HF_NAME, gate, &f);

	put(ev, "session_id", sess);
	if (tool != NULL) {
		cls = jh_host_class(h, json_string_value(tool),
		    json_string_length(tool));
		json_object_set(ev, "tool", tool);
	}
	put(ev, "input", in);
	put(ev, "cwd", cwd);
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
	for (hf = h->fields; hf->native != NULL; hf++)
		if ((v = take(rest, hf->native, hf->type, 0, &f)) != NULL)
			json_object_set_new(ev, hf->name, v);
	if (f.msg[0] != '\0')
		json_object_set_new(ev, "malformed", json_string(f.msg));
	if (keep_native && json_object_size(rest) > 0)
		json_object_set(ev, "native", rest);
	json_decref(rest);
	return (ev);
}

/*
 * The host's answer to a verdict: what to write on the standard output
 * (possibly nothing) into b, and the exit status to return.  reason is
 * shown by the host; updated is the compact JSON of the replacement
 * input (rewrite only); replace opts in to "the grant replaces the
 * prompt".
 */
int
jh_host_answer(struct jh_buf *b, const struct jh_host *h, int verdict,
    const char *reason, const char *updated, int replace)
{
	return (h->answer(b, verdict, reason, updated, replace));
}

/* What the host's post-tool event says happened, or NULL. */
const char *
jh_host_post_status(const struct jh_host *h, const char *event)
{
	const struct jh_host_post *p;

	for (p = h->post; p != NULL && p->event != NULL; p++)
		if (strcmp(p->event, event) == 0)
			return (p->status);
	return (NULL);
}

int
jh_host_post_answer(struct jh_buf *b, const struct jh_host *h,
    const char *event, int what, const char *reason, const char *path)
{
	return (h->post_answer(b, event, what, reason, path));
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
