/*
 * joulehook: the model APIs' wire formats as jh-proxy meets them
 * (Anthropic Messages, OpenAI Chat Completions and Responses, and Gemini's
 * generateContent): SSE framing, what each API's events and bodies say
 * about usage, ids and the end of a call, and each API's error shape.
 *
 * The SSE parser works on a copy of the bytes being relayed; it never
 * holds back the stream.  Events are bounded: one larger than the limit
 * is passed through unread (and the call's usage is then an estimate).
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "energy.h"
#include "json.h"
#include "wire.h"

void
jh_sse_init(struct jh_sse *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	jh_buf_init(&s->raw);
	jh_buf_init(&s->data);
	s->max = max;
}

void
jh_sse_free(struct jh_sse *s)
{
	jh_buf_free(&s->raw);
	jh_buf_free(&s->data);
}

/* One field line of an event (the line has no terminator). */
static void
sse_field(struct jh_sse *s, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n);
	size_t kn = colon ? (size_t)(colon - p) : n, vn;
	const char *v = colon ? colon + 1 : p + n;

	vn = n - (size_t)(v - p);
	if (vn > 0 && *v == ' ') {
		v++;
		vn--;
	}
	if (kn == 0)
		return;				/* a comment */
	if (kn == 5 && memcmp(p, "event", 5) == 0) {
		if (vn >= sizeof(s->name))
			vn = sizeof(s->name) - 1;
		memcpy(s->name, v, vn);
		s->name[vn] = '\0';
	} else if (kn == 4 && memcmp(p, "data", 4) == 0) {
		if (s->ndata++ > 0)
			jh_buf_addc(&s->data, '\n');
		jh_buf_add(&s->data, v, vn);
	}
}

static void
sse_reset(struct jh_sse *s, size_t used)
{
	if (used < s->raw.len)
		memmove(s->raw.p, s->raw.p + used, s->raw.len - used);
	s->raw.len -= used;
	s->line = 0;
	s->name[0] = '\0';
	s->ndata = 0;
	jh_buf_reset(&s->data);
}

/*
 * Feeds bytes.  cb gets each complete event: its name ("" when none),
 * its data lines joined by newlines, and its raw bytes; an event that
 * grew past the limit reaches cb as raw bytes only (name NULL).  Returns
 * -1 when cb does, or on out of memory.
 */
int
jh_sse_feed(struct jh_sse *s, const uint8_t *p, size_t n, jh_sse_cb cb,
    void *ctx)
{
	uint8_t *nl;
	size_t ll;

	jh_buf_add(&s->raw, p, n);
	if (s->raw.oom)
		return (-1);
	while ((nl = memchr(s->raw.p + s->line, '\n', s->raw.len -
	    s->line)) != NULL) {
		const char *lp = (const char *)s->raw.p + s->line;
		size_t end = (size_t)(nl - s->raw.p) + 1;

		ll = (size_t)((const char *)nl - lp);
		if (ll > 0 && lp[ll - 1] == '\r')
			ll--;
		if (ll == 0) {
			int r;
			if (s->skip)
				r = cb(ctx, NULL, NULL, 0, s->raw.p, end);
			else {
				jh_buf_addc(&s->data, '\0');
				if (s->data.oom)
					return (-1);
				r = cb(ctx, s->name, (const char *)s->data.p,
				    s->data.len - 1, s->raw.p, end);
			}
			s->skip = 0;
			sse_reset(s, end);
			if (r == -1)
				return (-1);
			continue;
		}
		if (!s->skip)
			sse_field(s, lp, ll);
		s->line = end;
	}
	if (s->raw.len > s->max) {
		/* Too large to read: pass it on, follow it to its end. */
		s->skip = 1;
		if (cb(ctx, NULL, NULL, 0, s->raw.p, s->line) == -1)
			return (-1);
		sse_reset(s, s->line);
		if (s->raw.len > s->max) {
			if (cb(ctx, NULL, NULL, 0, s->raw.p, s->raw.len) == -1)
				return (-1);
			sse_reset(s, s->raw.len);
		}
	}
	return (0);
}

/* --- what the events say --------------------------------------------- */

static void
copy_str(char *out, size_t sz, const json_t *v)
{
	if (json_is_string(v) && json_string_length(v) > 0)
		snprintf(out, sz, "%s", json_string_value(v));
}

static void
add_len(struct jh_wire *w, const json_t *v)
{
	if (json_is_string(v))
		w->text_bytes += json_string_length(v);
}

static void
usage_into(struct jh_wire *w, const json_t *u)
{
	struct jh_err e;
	int r;

	if (u == NULL || json_is_null(u))
		return;
	switch (w->api) {
	case JH_API_ANTHROPIC:
		r = jh_usage_anthropic(&w->u, u, &e);
		break;
	case JH_API_CHAT:
		r = jh_usage_chat(&w->u, u, &e);
		break;
	case JH_API_GEMINI:
		r = jh_usage_gemini(&w->u, u, &e);
		break;
	default:
		r = jh_usage_responses(&w->u, u, &e);
		break;
	}
	if (r == -1) {
		w->usage_bad = 1;
		snprintf(w->usage_err, sizeof(w->usage_err), "%.120s", e.msg);
	}
}

static void
error_of(struct jh_wire *w, const json_t *err)
{
	json_t *t;

	if (!json_is_object(err)) {
		if (w->err[0] == '\0')
			snprintf(w->err, sizeof(w->err), "error");
		return;
	}
	t = json_object_get(err, "type");
	if (!json_is_string(t))
		t = json_object_get(err, "code");
	if (!json_is_string(t))
		t = json_object_get(err, "status");	/* Gemini's */
	if (json_is_string(t))
		copy_str(w->err, sizeof(w->err), t);
	else if (w->err[0] == '\0')
		snprintf(w->err, sizeof(w->err), "error");
}

static void
anthropic_event(struct jh_wire *w, const json_t *j)
{
	const char *type = json_string_value(json_object_get(j, "type"));
	json_t *m, *d;

	if (type == NULL)
		return;
	if (strcmp(type, "message_start") == 0) {
		m = json_object_get(j, "message");
		copy_str(w->id, sizeof(w->id), json_object_get(m, "id"));
		copy_str(w->model, sizeof(w->model), json_object_get(m,
		    "model"));
		usage_into(w, json_object_get(m, "usage"));
		/* its output count is a placeholder until message_delta's */
		w->out_provisional = json_object_get(json_object_get(m,
		    "usage"), "output_tokens") != NULL;
	} else if (strcmp(type, "content_block_delta") == 0) {
		d = json_object_get(j, "delta");
		add_len(w, json_object_get(d, "text"));
		add_len(w, json_object_get(d, "partial_json"));
		add_len(w, json_object_get(d, "thinking"));
	} else if (strcmp(type, "message_delta") == 0) {
		if (json_is_object(json_object_get(j, "usage")))
			w->out_provisional = 0;
		usage_into(w, json_object_get(j, "usage"));
		copy_str(w->stop, sizeof(w->stop), json_object_get(
		    json_object_get(j, "delta"), "stop_reason"));
	} else if (strcmp(type, "message_stop") == 0)
		w->done = 1;
	else if (strcmp(type, "error") == 0)
		error_of(w, json_object_get(j, "error"));
}

/* Returns 0 when the event is the usage chunk to hide. */
static int
chat_event(struct jh_wire *w, const json_t *j)
{
	json_t *ch, *c, *u;
	size_t i;

	copy_str(w->id, sizeof(w->id), json_object_get(j, "id"));
	copy_str(w->model, sizeof(w->model), json_object_get(j, "model"));
	if (json_object_get(j, "error") != NULL)
		error_of(w, json_object_get(j, "error"));
	ch = json_object_get(j, "choices");
	json_array_foreach(ch, i, c) {
		copy_str(w->stop, sizeof(w->stop), json_object_get(c,
		    "finish_reason"));
		add_len(w, json_object_get(json_object_get(c, "delta"),
		    "content"));
		add_len(w, json_object_get(json_object_get(c, "message"),
		    "content"));
	}
	u = json_object_get(j, "usage");
	if (u != NULL && !json_is_null(u)) {
		usage_into(w, u);
		/* the chunk include_usage adds: no choices, only usage */
		if (w->hide_usage && json_is_array(ch) &&
		    json_array_size(ch) == 0)
			return (0);
	}
	return (1);
}

static void
responses_event(struct jh_wire *w, const json_t *j, const char *type)
{
	json_t *r = json_object_get(j, "response");

	if (strcmp(type, "response.created") == 0 ||
	    strcmp(type, "response.in_progress") == 0) {
		copy_str(w->id, sizeof(w->id), json_object_get(r, "id"));
		copy_str(w->model, sizeof(w->model), json_object_get(r,
		    "model"));
	} else if (strcmp(type, "response.output_text.delta") == 0 ||
	    strcmp(type, "response.function_call_arguments.delta") == 0 ||
	    strcmp(type, "response.reasoning_summary_text.delta") == 0)
		add_len(w, json_object_get(j, "delta"));
	else if (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0 ||
	    strcmp(type, "response.failed") == 0) {
		copy_str(w->id, sizeof(w->id), json_object_get(r, "id"));
		copy_str(w->model, sizeof(w->model), json_object_get(r,
		    "model"));
		usage_into(w, json_object_get(r, "usage"));
		copy_str(w->stop, sizeof(w->stop), json_object_get(r,
		    "status"));
		if (strcmp(type, "response.failed") == 0)
			error_of(w, json_object_get(r, "error"));
		w->done = 1;
	} else if (strcmp(type, "error") == 0)
		error_of(w, json_object_get(j, "error") ? json_object_get(j,
		    "error") : (json_t *)j);
}

/* The string leaves of a function call's arguments, for estimates. */
static void
add_args(struct jh_wire *w, const json_t *v, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 16)
		return;
	if (json_is_string(v))
		add_len(w, v);
	else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
			add_args(w, x, depth + 1);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			add_args(w, x, depth + 1);
	}
}

/*
 * One Gemini GenerateContentResponse: a whole answer, or one chunk of a
 * stream (each may carry usageMetadata; the last is the total).  The
 * answer has ended when a candidate names its finishReason or the prompt
 * was blocked (promptFeedback.blockReason); an SSE stream has no other
 * end marker.
 */
static void
gemini_chunk(struct jh_wire *w, const json_t *j)
{
	json_t *ch, *c, *parts, *p, *fb;
	size_t i, k;

	if (json_object_get(j, "error") != NULL) {
		error_of(w, json_object_get(j, "error"));
		return;
	}
	copy_str(w->id, sizeof(w->id), json_object_get(j, "responseId"));
	copy_str(w->model, sizeof(w->model), json_object_get(j,
	    "modelVersion"));
	usage_into(w, json_object_get(j, "usageMetadata"));
	ch = json_object_get(j, "candidates");
	json_array_foreach(ch, i, c) {
		parts = json_object_get(json_object_get(c, "content"), "parts");
		json_array_foreach(parts, k, p) {
			add_len(w, json_object_get(p, "text"));
			fb = json_object_get(p, "functionCall");
			add_len(w, json_object_get(fb, "name"));
			add_args(w, json_object_get(fb, "args"), 0);
		}
		if (json_is_string(json_object_get(c, "finishReason"))) {
			copy_str(w->stop, sizeof(w->stop), json_object_get(c,
			    "finishReason"));
			w->done = 1;
		}
	}
	fb = json_object_get(j, "promptFeedback");
	if (json_is_string(json_object_get(fb, "blockReason"))) {
		copy_str(w->stop, sizeof(w->stop), json_object_get(fb,
		    "blockReason"));
		w->done = 1;
	}
}

/*
 * One SSE event of the call's API.  Returns 1 to relay it, 0 when it is
 * the usage chunk the proxy asked for and the client did not.
 */
int
jh_wire_event(struct jh_wire *w, const char *name, const char *data,
    size_t n)
{
	const char *type;
	json_t *j;
	int fwd = 1;

	if (w->api == JH_API_CHAT && n == 6 && memcmp(data, "[DONE]", 6) == 0) {
		w->done = 1;
		return (1);
	}
	if (n == 0)
		return (1);
	if ((j = json_loadb(data, n, JSON_ALLOW_NUL, NULL)) == NULL)
		return (1);
	if (!json_is_object(j)) {
		json_decref(j);
		return (1);
	}
	switch (w->api) {
	case JH_API_ANTHROPIC:
		anthropic_event(w, j);
		break;
	case JH_API_CHAT:
		fwd = chat_event(w, j);
		break;
	case JH_API_GEMINI:
		gemini_chunk(w, j);
		break;
	default:
		type = json_string_value(json_object_get(j, "type"));
		if (type == NULL)
			type = name;
		if (type != NULL)
			responses_event(w, j, type);
		break;
	}
	json_decref(j);
	return (fwd);
}

/* A whole JSON body: a non-streaming answer or an error. */
void
jh_wire_body(struct jh_wire *w, const uint8_t *p, size_t n, int status)
{
	json_t *j, *c;
	size_t i;

	j = json_loadb((const char *)p, n, JSON_ALLOW_NUL, NULL);
	if (w->api == JH_API_GEMINI && status < 400 && json_is_array(j)) {
		/* streamGenerateContent without alt=sse: an array of chunks */
		json_array_foreach(j, i, c)
			if (json_is_object(c))
				gemini_chunk(w, c);
		json_decref(j);
		return;
	}
	if (j == NULL || !json_is_object(j)) {
		json_decref(j);
		if (status >= 400 && w->err[0] == '\0')
			snprintf(w->err, sizeof(w->err), "http-%d", status);
		return;
	}
	if (status >= 400 || json_object_get(j, "error") != NULL) {
		error_of(w, json_object_get(j, "error"));
		json_decref(j);
		return;
	}
	if (w->api == JH_API_GEMINI) {
		gemini_chunk(w, j);
		/* a whole answer has ended, whether it names why or not */
		w->done = 1;
		json_decref(j);
		return;
	}
	copy_str(w->id, sizeof(w->id), json_object_get(j, "id"));
	copy_str(w->model, sizeof(w->model), json_object_get(j, "model"));
	usage_into(w, json_object_get(j, "usage"));
	switch (w->api) {
	case JH_API_ANTHROPIC:
		copy_str(w->stop, sizeof(w->stop), json_object_get(j,
		    "stop_reason"));
		json_array_foreach(json_object_get(j, "content"), i, c) {
			add_len(w, json_object_get(c, "text"));
			add_len(w, json_object_get(c, "thinking"));
		}
		break;
	case JH_API_CHAT:
		json_array_foreach(json_object_get(j, "choices"), i, c) {
			copy_str(w->stop, sizeof(w->stop), json_object_get(c,
			    "finish_reason"));
			add_len(w, json_object_get(json_object_get(c,
			    "message"), "content"));
		}
		break;
	default:
		copy_str(w->stop, sizeof(w->stop), json_object_get(j,
		    "status"));
		break;
	}
	w->done = 1;
	json_decref(j);
}

/* The call ended the way a finished answer ends (U2's accepted_tokens). */
int
jh_wire_accepted(const struct jh_wire *w)
{
	static const char *const ok[] = { "end_turn", "tool_use",
	    "stop_sequence", "stop", "tool_calls", "function_call",
	    "completed", "STOP", NULL };
	size_t i;

	if (!w->done || w->err[0] != '\0')
		return (0);
	for (i = 0; ok[i] != NULL; i++)
		if (strcmp(w->stop, ok[i]) == 0)
			return (1);
	return (0);
}

/*
 * An error body in the API's own shape, for an answer of this HTTP
 * status.  Gemini's (google.rpc.Status) carries the status as its code,
 * and type as its status name.
 */
void
jh_wire_error(struct jh_buf *b, int api, int status, const char *type,
    const char *msg)
{
	jh_buf_reset(b);
	if (api == JH_API_GEMINI) {
		char code[16];

		snprintf(code, sizeof(code), "%d", status);
		jh_buf_adds(b, "{\"error\":{\"code\":");
		jh_buf_adds(b, code);
		jh_buf_adds(b, ",\"message\":");
		jh_json_str(b, msg, strlen(msg));
		jh_buf_adds(b, ",\"status\":");
		jh_json_str(b, type, strlen(type));
		jh_buf_adds(b, "}}");
	} else if (api == JH_API_ANTHROPIC) {
		jh_buf_adds(b, "{\"type\":\"error\",\"error\":{\"type\":");
		jh_json_str(b, type, strlen(type));
		jh_buf_adds(b, ",\"message\":");
		jh_json_str(b, msg, strlen(msg));
		jh_buf_adds(b, "}}");
	} else {
		jh_buf_adds(b, "{\"error\":{\"message\":");
		jh_json_str(b, msg, strlen(msg));
		jh_buf_adds(b, ",\"type\":");
		jh_json_str(b, type, strlen(type));
		jh_buf_adds(b, ",\"param\":null,\"code\":");
		jh_json_str(b, type, strlen(type));
		jh_buf_adds(b, "}}");
	}
}
