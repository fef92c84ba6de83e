/*
 * jh-proxy: the listener's handlers (libmicrohttpd, one thread a
 * connection): admit the caller and its session, read the request,
 * decide, hold, forward; answer refusals in the API's own shape.
 */
#include <sys/socket.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sodium.h>

#include "buf.h"
#include "decide.h"
#include "energy.h"
#include "json.h"
#include "keys.h"
#include "ledger.h"
#include "listen.h"
#include "proxy.h"
#include "util.h"
#include "wire.h"

/* A body up to this is parsed whole; a larger one member by member. */
#define SCAN_WHOLE	(1u << 20)

/* --- the proxy's state ------------------------------------------------ */

/* Zeroed, its locks ready; NULL when out of memory. */
struct jh_px *
jh_px_new(void)
{
	struct jh_px *px;

	if ((px = calloc(1, sizeof(*px))) == NULL)
		return (NULL);
	pthread_mutex_init(&px->mu, NULL);
	pthread_mutex_init(&px->g.mu, NULL);
	atomic_init(&px->stopping, 0);
	return (px);
}

/* Once the listener has stopped: every call is done with it. */
void
jh_px_free(struct jh_px *px)
{
	size_t i;

	for (i = 0; i < px->npool; i++) {
		curl_easy_cleanup(px->pool[i].h);
		curl_multi_cleanup(px->pool[i].m);
	}
	if (px->g.loaded)
		jh_grant_free(&px->g.g);
	jh_keyset_free(&px->g.trust);
	jh_keyset_free(&px->o.keys);
	jh_key_wipe(&px->o.key);
	jh_coeffs_free(&px->o.coeffs);
	if (px->o.ladder)
		jh_ladder_close(&px->o.lad);
	free(px->sessions);
	pthread_mutex_destroy(&px->mu);
	pthread_mutex_destroy(&px->g.mu);
	sodium_memzero(px, sizeof(*px));
	free(px);
}

/* --- the listener ----------------------------------------------------- */

static enum MHD_Result
respond(struct call *c, int status, const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return (MHD_NO);
	if (len > 0)
		MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(c->con, (unsigned int)status, r);
	MHD_destroy_response(r);
	c->answered = status;
	c->done = 1;
	return (ret);
}

/* google.rpc.Code names for the statuses the proxy answers itself. */
static const char *
gemini_status(int status)
{
	switch (status) {
	case 400:
	case 413:
		return ("INVALID_ARGUMENT");
	case 401:
		return ("UNAUTHENTICATED");
	case 402:
		return ("FAILED_PRECONDITION");
	case 403:
		return ("PERMISSION_DENIED");
	case 404:
		return ("NOT_FOUND");
	case 429:
		return ("RESOURCE_EXHAUSTED");
	case 500:
		return ("INTERNAL");
	case 502:
	case 503:
		return ("UNAVAILABLE");
	default:
		return ("UNKNOWN");
	}
}

/*
 * An answer of our own, in the shape of the API the client speaks.  For
 * Gemini the type is a google.rpc.Code name: one given in capitals is
 * kept, any other is the status's own.
 */
static enum MHD_Result
reply_error(struct call *c, int status, const char *type, const char *msg)
{
	struct jh_buf b;
	enum MHD_Result r;

	if (c->api == JH_API_GEMINI && !(type[0] >= 'A' && type[0] <= 'Z'))
		type = gemini_status(status);
	jh_buf_init(&b);
	jh_wire_error(&b, c->api, status, type, msg);
	r = b.oom ? MHD_NO : respond(c, status, (const char *)b.p, b.len);
	jh_buf_free(&b);
	return (r);
}

/* The type that goes with each refusal status in Anthropic's shape. */
static const char *
refusal_type(struct call *c, int budget)
{
	int status = c->px->o.refuse_status;

	/*
	 * Gemini CLI retries 429, 499 and 5xx only; FAILED_PRECONDITION is
	 * what Google answers when billing stands in the way.
	 */
	if (c->api == JH_API_GEMINI)
		return (status == 403 ? "PERMISSION_DENIED" :
		    "FAILED_PRECONDITION");
	if (c->api != JH_API_ANTHROPIC)
		return (budget ? "budget_exceeded" : "permission_denied");
	switch (status) {
	case 402:
		return ("billing_error");
	case 403:
		return ("permission_error");
	default:
		return ("invalid_request_error");
	}
}

static enum MHD_Result
refuse(struct call *c, int budget, const char *note, const char *msg)
{
	enum MHD_Result r;

	r = reply_error(c, c->px->o.refuse_status, refusal_type(c, budget),
	    msg);
	c->note = note;
	jh_px_finish(c, "refused");
	return (r);
}

static int
session_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > SESSION_MAX)
		return (0);
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '_' || s[i] == ':' || s[i] == '-'))
			return (0);
	return (1);
}

/*
 * A session seen before, or a new one within the rate of new logs
 * (jh-proxy(1), Callers: a caller cannot create one log file per
 * invented id at will).
 */
int
jh_px_admit(struct jh_px *px, const char *session)
{
	uint8_t h[16];
	uint64_t now = jh_mono_ms();
	size_t i;
	int ok = 0;

	crypto_generichash(h, sizeof(h), (const uint8_t *)session,
	    strlen(session), NULL, 0);
	pthread_mutex_lock(&px->mu);
	for (i = 0; i < px->nsess; i++)
		if (memcmp(px->sessions[i].h, h, sizeof(h)) == 0) {
			ok = 1;
			goto out;
		}
	px->bucket += (double)(now - px->bucket_ms) * px->o.newlogs /
	    60000.0;
	if (px->bucket > px->o.newlogs)
		px->bucket = px->o.newlogs;
	px->bucket_ms = now;
	if (px->bucket < 1.0)
		goto out;
	px->bucket -= 1.0;
	if (px->nsess == px->capsess) {
		size_t nc = px->capsess ? px->capsess * 2 : 256;
		struct sess *x;
		if (nc > 65536)
			px->nsess = 0;	/* forget; the limit still holds */
		else if ((x = realloc(px->sessions, nc * sizeof(*x))) !=
		    NULL) {
			px->sessions = x;
			px->capsess = nc;
		} else
			goto out;
	}
	memcpy(px->sessions[px->nsess++].h, h, sizeof(h));
	ok = 1;
out:
	pthread_mutex_unlock(&px->mu);
	return (ok);
}

/*
 * A token count: an integer, or where the body held an integer past
 * int64 (so every integer was read as a real, jh_json_load_wire) a real
 * with no fraction.  1 read, 0 not a count.
 */
static int
count_of(const json_t *j, int reals, uint64_t *v)
{
	double d;

	if (json_is_integer(j)) {
		if (json_integer_value(j) < 0 ||
		    (uint64_t)json_integer_value(j) > JH_TOKENS_MAX)
			return (0);
		*v = (uint64_t)json_integer_value(j);
		return (1);
	}
	if (!reals || !json_is_real(j))
		return (0);
	d = json_real_value(j);
	if (!(d >= 0) || d > (double)JH_TOKENS_MAX || d != (double)(uint64_t)d)
		return (0);
	*v = (uint64_t)d;
	return (1);
}

/* Reads an optional token count: 1 read, 0 absent, -1 not a count. */
static int
tokens_field(const struct call *c, const json_t *o, const char *k,
    uint64_t *v)
{
	json_t *j = json_object_get(o, k);

	if (j == NULL || json_is_null(j))
		return (0);
	return (count_of(j, c->reals, v) ? 1 : -1);
}

/*
 * A Gemini field by either name proto3's JSON mapping takes, the
 * lowerCamelCase one and the field's own snake_case one; *both is set
 * when the two are given, since which one the provider reads is not
 * known.  NULL when neither is.
 */
static json_t *
gem_field(const json_t *o, const char *camel, const char *snake, int *both)
{
	json_t *a = json_object_get(o, camel), *b = json_object_get(o, snake);

	if (a != NULL && b != NULL)
		*both = 1;
	return (a != NULL ? a : b);
}

/*
 * A Gemini count: a number as count_of reads one, or, as proto3's JSON
 * mapping allows, a string of decimal digits.  1 read, 0 absent or
 * null, -1 not a count; with neg, a negative integer (thinkingBudget's
 * -1, a dynamic budget) reads as 0.
 */
static int
gem_count(const struct call *c, const json_t *j, int neg, uint64_t *v)
{
	const char *p;
	char *end;
	unsigned long long u;

	if (j == NULL || json_is_null(j))
		return (0);
	if (count_of(j, c->reals, v))
		return (1);
	if (neg && json_is_integer(j) && json_integer_value(j) < 0) {
		*v = 0;
		return (1);
	}
	if (!json_is_string(j))
		return (-1);
	p = json_string_value(j);
	if (neg && strcmp(p, "-1") == 0) {
		*v = 0;
		return (1);
	}
	if (*p < '0' || *p > '9' || strlen(p) > 19)
		return (-1);
	errno = 0;
	u = strtoull(p, &end, 10);
	if (errno != 0 || *end != '\0' || u > JH_TOKENS_MAX)
		return (-1);
	*v = u;
	return (1);
}

/*
 * The tools a provider runs itself, whose results reach the model as
 * input the request body does not show: Anthropic's web search, web
 * fetch and code execution (a tools[] type named so, with its date);
 * the Responses API's hosted tools; Chat Completions' web_search_options;
 * Gemini's googleSearch, urlContext and codeExecution (by either
 * name).  Returns how many the request declares.
 */
static uint64_t
server_tools(const struct call *c, const json_t *req)
{
	static const char *const anthropic[] = { "web_search_",
	    "web_fetch_", "code_execution_", NULL };
	static const char *const responses[] = { "web_search",
	    "web_search_preview", "file_search", "code_interpreter",
	    "image_generation", "mcp", "computer_use_preview", NULL };
	static const char *const gemini[] = { "googleSearch",
	    "googleSearchRetrieval", "urlContext", "codeExecution",
	    "google_search", "google_search_retrieval", "url_context",
	    "code_execution", NULL };
	const json_t *t;
	const char *type;
	uint64_t n = 0;
	size_t i, k;

	if (c->api == JH_API_CHAT)
		return (json_object_get(req, "web_search_options") != NULL);
	json_array_foreach(json_object_get(req, "tools"), i, t) {
		type = json_string_value(json_object_get(t, "type"));
		switch (c->api) {
		case JH_API_ANTHROPIC:
			for (k = 0; type != NULL && anthropic[k] != NULL; k++)
				if (strncmp(type, anthropic[k],
				    strlen(anthropic[k])) == 0)
					n++;
			break;
		case JH_API_GEMINI:
			for (k = 0; gemini[k] != NULL; k++)
				if (json_object_get(t, gemini[k]) != NULL)
					n++;
			break;
		default:
			for (k = 0; type != NULL && responses[k] != NULL; k++)
				if (strcmp(type, responses[k]) == 0)
					n++;
			break;
		}
	}
	return (n);
}

/*
 * Gemini's output limit: generationConfig.maxOutputTokens, times
 * candidateCount; a thinkingConfig.thinkingBudget is added, whether the
 * model counts its thoughts within the limit or beside it.  As
 * tokens_field: 1 read, 2 read where it cannot be lowered, 0 none, -1
 * not a count; -2 a request refused, with why.
 */
static int
gemini_limits(struct call *c, json_t *req, uint64_t *out, uint64_t *n,
    uint64_t *think, char *why, size_t sz)
{
	json_t *gc, *tc;
	int r, both = 0, snake;

	gc = gem_field(req, "generationConfig", "generation_config", &both);
	if (gc != NULL && !json_is_null(gc) && !json_is_object(gc)) {
		snprintf(why, sz, "generationConfig is not an object");
		return (-2);
	}
	/* the limit is lowered in place only as generationConfig's */
	snake = json_object_get(req, "generationConfig") == NULL ||
	    json_object_get(gc, "maxOutputTokens") == NULL;
	c->lim_key = snake ? NULL : "maxOutputTokens";
	r = gem_count(c, gem_field(gc, "maxOutputTokens", "max_output_tokens",
	    &both), 0, out);
	if (r >= 0 && gem_count(c, gem_field(gc, "candidateCount",
	    "candidate_count", &both), 0, n) == -1)
		r = -1;
	if (*n == 0)
		*n = 1;
	/* -1 asks for a dynamic budget, 0 for none: nothing added */
	tc = gem_field(gc, "thinkingConfig", "thinking_config", &both);
	if (tc != NULL && !json_is_null(tc) && !json_is_object(tc)) {
		snprintf(why, sz, "thinkingConfig is not an object");
		return (-2);
	}
	if (gem_count(c, gem_field(tc, "thinkingBudget", "thinking_budget",
	    &both), 1, think) == -1) {
		snprintf(why, sz, "thinkingBudget is not a count");
		return (-2);
	}
	if (both) {
		snprintf(why, sz, "a field of the output limit is given by both "
		    "of its names (camelCase and snake_case), and which one the "
		    "provider reads is not known");
		return (-2);
	}
	if (r == 1 && snake)
		r = 2;	/* read, but not where it can be lowered */
	return (r);
}

/*
 * The worst case of a call, labelled an estimate: the input at bytes / 4
 * tokens at the dearer of the input and cache-write coefficients, plus
 * the most output the request allows at the output coefficient, clamped
 * by -c.  A request that names no output limit is held at -m tokens,
 * which is not a true worst case.
 */
static int
worst_case(struct call *c, json_t *req, char *why, size_t sz)
{
	const struct opts *o = &c->px->o;
	uint64_t out = 0, n = 1, cin, think = 0, tools;
	int r;

	c->lim_key = NULL;
	switch (c->api) {
	case JH_API_ANTHROPIC:
		c->lim_key = "max_tokens";
		r = tokens_field(c, req, "max_tokens", &out);
		/* a thinking budget is spent within max_tokens */
		if (tokens_field(c, json_object_get(req, "thinking"),
		    "budget_tokens", &c->inner) == -1)
			c->inner = 0;
		break;
	case JH_API_GEMINI:
		if ((r = gemini_limits(c, req, &out, &n, &think, why, sz)) ==
		    -2)
			return (-1);
		break;
	case JH_API_CHAT:
		c->lim_key = "max_completion_tokens";
		if ((r = tokens_field(c, req, "max_completion_tokens", &out)) ==
		    0) {
			c->lim_key = "max_tokens";
			r = tokens_field(c, req, "max_tokens", &out);
		}
		if (r >= 0 && tokens_field(c, req, "n", &n) == -1)
			r = -1;
		if (n == 0)
			n = 1;
		break;
	default:
		c->lim_key = "max_output_tokens";
		r = tokens_field(c, req, "max_output_tokens", &out);
		break;
	}
	if (r == 2)
		r = 1;
	else if (r != 1)
		c->lim_key = NULL;
	if (r == -1) {
		snprintf(why, sz, "the output token limit is not a count "
		    "up to %llu", (unsigned long long)JH_TOKENS_MAX);
		return (-1);
	}
	if (r == 0) {
		out = o->default_out;
		c->clamped = 1;
	}
	c->lim_asked = out;
	c->n_cand = n;
	c->think = think;
	c->out_worst = jh_mul_sat(jh_add_sat(out, think), n);
	c->in_est = (c->body.len + 3) / 4;
	/* what a provider's own tools add to the input: -x tokens each */
	if ((tools = server_tools(c, req)) > 0)
		c->in_est = jh_add_sat(c->in_est, jh_mul_sat(tools,
		    o->tool_in));
	cin = c->fam->cache_write > c->fam->in ? c->fam->cache_write :
	    c->fam->in;
	c->in_cost = jh_mul_sat(c->in_est, cin);
	c->worst = jh_add_sat(c->in_cost,
	    jh_mul_sat(c->out_worst, c->fam->out));
	c->hold = c->worst;
	if (o->cap_uj > 0 && c->worst > o->cap_uj) {
		c->hold = o->cap_uj;
		c->clamped = 1;
	}
	return (0);
}

/*
 * A true ceiling: when the call's worst case is more than the budget
 * has left (rem), its output limit is lowered to what rem pays, in the
 * bytes that go upstream, so the provider itself stops the answer there
 * and the hold is the call's real worst case as sent.  Not below
 * JH_PX_MIN_OUT tokens, nor to or below a thinking budget spent within
 * the limit, nor where the limit is not written once, plainly, as the
 * number the parse read.  Returns 1 lowered (c->hold is the new worst
 * case), 0 not, -2 out of memory.
 */
int
jh_px_limit(struct call *c, uint64_t rem)
{
	const char *p = c->fwd ? c->fwd : (const char *)c->body.p;
	size_t n = c->fwd ? c->fwdlen : c->body.len, vs, ve, gs, ge, nl;
	uint64_t per, lim, was;
	char num[24], *end, *q;

	if (c->lim_key == NULL || c->clamped || c->fam == NULL ||
	    c->fam->out == 0 || rem <= c->in_cost)
		return (0);
	per = (rem - c->in_cost) / c->fam->out / c->n_cand;
	if (per <= c->think)
		return (0);
	lim = per - c->think;
	if (lim < JH_PX_MIN_OUT || lim <= c->inner || lim >= c->lim_asked)
		return (0);
	gs = 0;
	if (c->api == JH_API_GEMINI) {
		if (jh_json_span(p, n, "generationConfig", &gs, &ge) != 1)
			return (0);
		n = ge;
	}
	if (jh_json_span(p + gs, n - gs, c->lim_key, &vs, &ve) != 1)
		return (0);
	vs += gs;
	ve += gs;
	if (ve - vs >= sizeof(num))
		return (0);
	memcpy(num, p + vs, ve - vs);
	num[ve - vs] = '\0';
	errno = 0;
	was = strtoull(num, &end, 10);
	if (errno != 0 || *end != '\0' || num[0] < '0' || num[0] > '9' ||
	    was != c->lim_asked)
		return (0);
	n = c->fwd ? c->fwdlen : c->body.len;
	nl = (size_t)snprintf(num, sizeof(num), "%llu",
	    (unsigned long long)lim);
	if ((q = malloc(n - (ve - vs) + nl + 1)) == NULL)
		return (-2);
	memcpy(q, p, vs);
	memcpy(q + vs, num, nl);
	memcpy(q + vs + nl, p + ve, n - ve);
	free(c->fwd);
	c->fwd = q;
	c->fwdlen = n - (ve - vs) + nl;
	c->fwd[c->fwdlen] = '\0';
	c->lim_sent = lim;
	c->out_worst = jh_mul_sat(jh_add_sat(lim, c->think), c->n_cand);
	c->worst = jh_add_sat(c->in_cost, jh_mul_sat(c->out_worst,
	    c->fam->out));
	c->hold = c->worst;
	return (1);
}

/*
 * Usage on a Chat Completions stream must be asked for: the body sent
 * instead (c->fwd) asks for it, and the usage chunk is then hidden from
 * the client.  Where the body has no stream_options, the member is put
 * in front of the client's bytes, which are otherwise kept as sent; an
 * object without include_usage is re-serialized, which keeps U+0000 but
 * not integers past int64, and needs the whole body parsed: a body with
 * such integers, or over SCAN_WHOLE, is refused (why), since it would go
 * without usage and its reasoning unmetered.  0, -1 refused, or -2 out
 * of memory.
 */
static int
ask_usage(struct call *c, json_t *req, json_t *so, char *why, size_t sz)
{
	static const char member[] = "\"stream_options\":"
	    "{\"include_usage\":true}";
	const char *p = (const char *)c->body.p;
	size_t at, rest, ml = sizeof(member) - 1;

	if (so == NULL) {
		for (at = 0; at < c->body.len && p[at] != '{'; at++)
			;
		rest = c->body.len - at - 1;
		/* "{" member ("," if the object has one) the rest */
		for (size_t i = at + 1; i < c->body.len; i++)
			if (strchr(" \t\r\n", p[i]) == NULL) {
				if (p[i] != '}')
					ml++;
				break;
			}
		if ((c->fwd = malloc(c->body.len + ml + 1)) == NULL)
			return (-2);
		memcpy(c->fwd, p, at + 1);
		memcpy(c->fwd + at + 1, member, sizeof(member) - 1);
		if (ml > sizeof(member) - 1)
			c->fwd[at + sizeof(member)] = ',';
		memcpy(c->fwd + at + 1 + ml, p + at + 1, rest);
		c->fwdlen = c->body.len + ml;
		c->fwd[c->fwdlen] = '\0';
	} else if (c->reals || c->body.len > SCAN_WHOLE) {
		/* req is not the whole body: never dumped */
		snprintf(why, sz, "this stream's stream_options asks for no "
		    "usage, and the proxy cannot add it to a body %s: set "
		    "\"include_usage\": true in it", c->reals ? "with an "
		    "integer past 64 bits" : "this large");
		return (-1);
	} else {
		if (!json_is_object(so)) {
			so = json_object();
			json_object_set_new(req, "stream_options", so);
		}
		json_object_set_new(so, "include_usage", json_true());
		if ((c->fwd = json_dumps(req, JSON_COMPACT)) == NULL)
			return (-2);
		c->fwdlen = strlen(c->fwd);
	}
	c->w.hide_usage = 1;
	return (0);
}

/*
 * What a metered request's body says: its model (so the coefficient
 * family), whether the client streams, the worst case, and for a Chat
 * Completions stream that does not ask for usage, the body to send
 * instead, which does (c->fwd; the usage chunk is then hidden from the
 * client).  Returns 0; -1 with why when the body is refused (not a JSON
 * object, an output token limit that is not a count); -2 out of memory.
 * A function of its own so that the request's bytes can be fuzzed
 * without a connection (tests/fuzz/fuzz-sse.c).
 */
int
jh_px_scan(struct call *c, char *why, size_t sz)
{
	/* what may be too large to read: the conversation and the tools */
	static const char *const bulk[] = { "messages", "contents", "input",
	    "system", "systemInstruction", "system_instruction",
	    "instructions", "tools", "prompt", NULL };
	json_t *req, *v, *so, *left;
	size_t i, k;
	int rc = 0;

	if ((left = json_array()) == NULL)
		return (-2);
	/* A large body's conversation is not made a tree (flat memory). */
	if (c->body.len > SCAN_WHOLE)
		req = jh_json_load_members((const char *)c->body.p,
		    c->body.len, SCAN_WHOLE, &c->reals, left);
	else
		req = jh_json_load_wire(c->body.p, c->body.len, &c->reals);
	if (!json_is_object(req)) {
		json_decref(req);
		json_decref(left);
		snprintf(why, sz, "the request body is not a JSON object");
		return (-1);
	}
	/*
	 * Any other member too large to read may hold a limit (Gemini's
	 * generationConfig, a thinking budget): never left unread.
	 */
	json_array_foreach(left, i, v) {
		for (k = 0; bulk[k] != NULL && strcmp(bulk[k],
		    json_string_value(v)) != 0; k++)
			;
		if (bulk[k] == NULL) {
			snprintf(why, sz, "the request's \"%.64s\" is over "
			    "%d bytes as written, too large for the proxy to "
			    "read its limits: send it smaller", json_string_value(
			    v), SCAN_WHOLE);
			json_decref(left);
			json_decref(req);
			return (-1);
		}
	}
	json_decref(left);
	/* Gemini names the model and the stream in the path (begin). */
	if (c->api != JH_API_GEMINI) {
		if (json_is_string(v = json_object_get(req, "model")))
			snprintf(c->model, sizeof(c->model), "%s",
			    json_string_value(v));
		c->client_stream = json_is_true(json_object_get(req,
		    "stream"));
	}
	c->fam = jh_coeffs_find(&c->px->o.coeffs, c->model);
	so = json_object_get(req, "stream_options");
	/* a background response is made after the call, out of reach */
	if (c->api == JH_API_RESPONSES && (v = json_object_get(req,
	    "background")) != NULL && !json_is_false(v) && !json_is_null(v)) {
		snprintf(why, sz, "a background response is generated after "
		    "this call returns, where the proxy cannot meter or "
		    "bound it: send it without \"background\"");
		rc = -1;
	} else if (worst_case(c, req, why, sz) == -1)
		rc = -1;
	else if (c->api == JH_API_CHAT && c->client_stream &&
	    !json_is_true(json_object_get(so, "include_usage")))
		rc = ask_usage(c, req, so, why, sz);
	json_decref(req);
	return (rc);
}

static enum MHD_Result
forward(struct call *c)
{
	const union MHD_ConnectionInfo *ci;
	struct MHD_Response *r;
	struct hdrctx x;
	char *url;
	size_t i, ul;
	enum MHD_Result ret;

	/* Until the transfer is started, nothing has gone upstream. */
	c->result = CURLE_FAILED_INIT;
	jh_px_up_get(c);
	if (c->up.m == NULL || c->up.h == NULL)
		return (reply_error(c, 500, "api_error", "joulehook: out of "
		    "memory"));
	ul = strlen(c->px->o.upstream) + strlen(c->uri) + 1;
	if ((url = malloc(ul)) == NULL)
		return (MHD_NO);
	snprintf(url, ul, "%s%s", c->px->o.upstream, c->uri);
	memset(&x, 0, sizeof(x));
	x.c = c;
	x.conn = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "Connection");
	MHD_get_connection_values(c->con, MHD_HEADER_KIND, jh_px_req_header,
	    &x);
	c->hdrs = curl_slist_append(c->hdrs, "Accept-Encoding: identity");
	c->hdrs = curl_slist_append(c->hdrs, "Expect:");
	curl_easy_setopt(c->up.h, CURLOPT_URL, url);
	/* the path routed is the path sent: never merged by libcurl */
	curl_easy_setopt(c->up.h, CURLOPT_PATH_AS_IS, 1L);
	free(url);
	curl_easy_setopt(c->up.h, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(c->up.h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->up.h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(c->up.h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c->up.h, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	curl_easy_setopt(c->up.h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->up.h, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(c->up.h, CURLOPT_HEADERFUNCTION, jh_px_on_header);
	curl_easy_setopt(c->up.h, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(c->up.h, CURLOPT_WRITEFUNCTION, jh_px_on_body);
	curl_easy_setopt(c->up.h, CURLOPT_WRITEDATA, c);
	if (c->route == R_MODELS)
		curl_easy_setopt(c->up.h, CURLOPT_HTTPGET, 1L);
	else {
		curl_easy_setopt(c->up.h, CURLOPT_POST, 1L);
		curl_easy_setopt(c->up.h, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(c->fwd ? c->fwdlen : c->body.len));
		curl_easy_setopt(c->up.h, CURLOPT_POSTFIELDS, c->fwd ? c->fwd :
		    (c->body.len ? (char *)c->body.p : ""));
	}
	if (x.oom || curl_multi_add_handle(c->up.m, c->up.h) != CURLM_OK)
		return (reply_error(c, 500, "api_error", "joulehook: cannot "
		    "start the upstream call"));
	c->result = CURLE_OK;
	ci = MHD_get_connection_info(c->con,
	    MHD_CONNECTION_INFO_CONNECTION_FD);
	c->client_fd = ci ? ci->connect_fd : -1;
	c->watch_client = c->client_fd >= 0;
	c->last_data = jh_mono_ms();
	if (jh_px_pump(c, 1) == -1) {
		jh_px_finish(c, NULL);
		return (MHD_NO);
	}
	if (!c->headers_done) {
		char msg[CURL_ERROR_SIZE + 64];
		snprintf(msg, sizeof(msg), "joulehook: the upstream did not "
		    "answer: %s", c->curl_err[0] ? c->curl_err :
		    curl_easy_strerror(c->result));
		ret = reply_error(c, 502, c->api == JH_API_ANTHROPIC ?
		    "api_error" : "server_error", msg);
		jh_px_finish(c, NULL);
		return (ret);
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024,
	    jh_px_relay, c, NULL);
	if (r == NULL)
		return (MHD_NO);
	for (i = 0; i < c->nrh; i++)
		MHD_add_response_header(r, c->rh[i].name, c->rh[i].value);
	c->answered = c->status;
	ret = MHD_queue_response(c->con, (unsigned int)c->status, r);
	MHD_destroy_response(r);
	c->done = 1;
	return (ret);
}

/* The whole request is in: decide, hold, forward. */
static enum MHD_Result
dispatch(struct call *c)
{
	struct jh_px *px = c->px;
	char why[512], msg[1024], b1[32], b2[32];
	int r;

	if (c->too_big) {
		c->note = "body-too-large";
		r = reply_error(c, 413, c->api == JH_API_ANTHROPIC ?
		    "request_too_large" : "invalid_request_error",
		    "joulehook: the request body is larger than this proxy "
		    "accepts");
		jh_px_finish(c, "error");
		return (r);
	}
	if (!c->metered)
		return (forward(c));
	if ((r = jh_px_scan(c, why, sizeof(why))) == -2)
		return (MHD_NO);
	if (r == -1) {
		c->note = "malformed-body";
		snprintf(msg, sizeof(msg), "joulehook: %s", why);
		r = reply_error(c, 400, "invalid_request_error", msg);
		jh_px_finish(c, "error");
		return (r);
	}
	if ((r = jh_px_grant_check(c, why, sizeof(why))) != 0) {
		snprintf(msg, sizeof(msg), "joulehook: no model call is granted: "
		    "%s", why);
		return (refuse(c, 0, "grant", msg));
	}
	if ((r = jh_px_hold(c, why, sizeof(why))) != 0) {
		if (r == -1 && strstr(why, "too many open holds") != NULL) {
			/* Busy, not spent: an answer the client retries. */
			c->note = "ledger-full";
			r = reply_error(c, c->api == JH_API_ANTHROPIC ? 529 : 503,
			    c->api == JH_API_ANTHROPIC ? "overloaded_error" :
			    "server_error", "joulehook: too many calls in flight "
			    "on this grant; try again");
			jh_px_finish(c, "refused");
			return (r);
		}
		if (r == -1) {
			snprintf(msg, sizeof(msg), "joulehook: the joule budget "
			    "cannot be checked: %s", why);
			return (refuse(c, 0, "ledger", msg));
		}
		snprintf(msg, sizeof(msg), "joulehook: the joule budget is "
		    "spent: this call could use up to %s (an estimate) and the "
		    "grant has %s left. Ask for a new grant, or a lower "
		    "%s.", jh_px_joules(b1, sizeof(b1), c->hold),
		    jh_px_joules(b2, sizeof(b2), c->remaining),
		    c->api == JH_API_GEMINI ? "maxOutputTokens" : "max_tokens");
		return (refuse(c, 1, "budget", msg));
	}
	pthread_mutex_lock(&px->mu);
	c->overlapped = px->inflight > 0;
	px->inflight++;
	c->starts_at = ++px->starts;
	pthread_mutex_unlock(&px->mu);
	if (px->o.ladder)
		jh_ladder_sample(&px->o.lad, &c->s0);
	else
		c->s0.t_ns = jh_mono_ms() * 1000000;
	return (forward(c));
}

/*
 * Gemini's routes: /v1beta/models/MODEL:METHOD (also /v1 and /v1alpha).
 * Returns the method (1 generateContent, 2 streamGenerateContent, 3
 * countTokens, 4 another), the model copied out; -1 for the model list
 * (GET /v1beta/models[/MODEL]); 0 for a path that is not Gemini's.
 */
static int
gemini_route(const char *path, char *model, size_t sz)
{
	static const char *const ver[] = { "/v1beta/models", "/v1/models",
	    "/v1alpha/models", NULL };
	const char *p = NULL, *colon;
	size_t i, n;

	for (i = 0; ver[i] != NULL && p == NULL; i++) {
		n = strlen(ver[i]);
		if (strncmp(path, ver[i], n) == 0 && (path[n] == '\0' ||
		    path[n] == '/'))
			p = path + n;
	}
	if (p == NULL)
		return (0);
	if (*p == '\0')
		return (-1);
	if ((colon = strchr(p, ':')) == NULL)
		return (p[1] != '\0' && strchr(p + 1, '/') == NULL ? -1 : 4);
	p++;
	n = (size_t)(colon - p);
	if (n == 0 || n >= sz || memchr(p, '/', n) != NULL)
		return (4);
	for (i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' &&
		    p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') ||
		    p[i] == '.' || p[i] == '_' || p[i] == '-'))
			return (4);
	memcpy(model, p, n);
	model[n] = '\0';
	if (strcmp(colon, ":generateContent") == 0)
		return (1);
	if (strcmp(colon, ":streamGenerateContent") == 0)
		return (2);
	if (strcmp(colon, ":countTokens") == 0)
		return (3);
	return (4);
}

/* The caller presents the install's token, or came over the socket. */
static int
authorized(struct call *c)
{
	const struct opts *o = &c->px->o;
	const union MHD_ConnectionInfo *ci;
	const char *t;

	ci = MHD_get_connection_info(c->con,
	    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (o->unixpath != NULL || (ci != NULL && ci->client_addr != NULL &&
	    ci->client_addr->sa_family == AF_UNIX))
		return (1);
	t = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "X-Joulehook-Token");
	return (t != NULL && strlen(t) == o->toklen &&
	    sodium_memcmp(t, o->token, o->toklen) == 0);
}

/*
 * Whether a path is forwarded as the route it names: no "." or ".."
 * segment, no empty one, no escape or control byte, as the upstream
 * would otherwise resolve it to another endpoint (/v1/models/../files).
 */
static int
plain_path(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || p[0] != '/')
		return (0);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch <= 0x20 || ch >= 0x7f || ch == '%' || ch == '\\')
			return (0);
		if (ch == '/' && i > 0 && p[i - 1] == '/')
			return (0);
		if (ch == '.' && p[i - 1] == '/' && (i + 1 == n ||
		    p[i + 1] == '/' || (p[i + 1] == '.' && (i + 2 == n ||
		    p[i + 2] == '/'))))
			return (0);
	}
	return (1);
}

/*
 * The request's path (its query left out), the API it speaks and its
 * route: R_PROBE for a probe of the proxy itself, R_NONE for a path
 * that is no route through it, nor one with a "." or ".." segment.
 */
static void
route(struct call *c, int get, int post)
{
	const char *q;
	size_t n;
	int gm;

	q = strchr(c->uri, '?');
	n = q ? (size_t)(q - c->uri) : strlen(c->uri);
	c->api = JH_API_ANTHROPIC;
	c->w.api = c->api;
	if (n >= sizeof(c->path) || !plain_path(c->uri, n))
		return;	/* R_NONE: answered 404 */
	memcpy(c->path, c->uri, n);
	c->path[n] = '\0';
	if (get && (strcmp(c->path, "/") == 0 ||
	    strcmp(c->path, "/api/hello") == 0))
		c->route = R_PROBE;
	else if (post && strcmp(c->path, "/v1/messages") == 0)
		c->route = R_MESSAGES;
	else if (post && strcmp(c->path, "/v1/messages/count_tokens") == 0)
		c->route = R_COUNT;
	else if (get && (strcmp(c->path, "/v1/models") == 0 ||
	    (strncmp(c->path, "/v1/models/", 11) == 0 && c->path[11] !=
	    '\0' && strchr(c->path + 11, '/') == NULL)))
		c->route = R_MODELS;
	else if (post && strcmp(c->path, "/v1/chat/completions") == 0) {
		c->route = R_CHAT;
		c->api = JH_API_CHAT;
	} else if (post && strcmp(c->path, "/v1/responses") == 0) {
		c->route = R_RESPONSES;
		c->api = JH_API_RESPONSES;
	} else if ((gm = gemini_route(c->path, c->model,
	    sizeof(c->model))) != 0) {
		c->api = JH_API_GEMINI;
		if (gm == -1 && get)
			c->route = R_MODELS;
		else if (gm == 3 && post)
			c->route = R_COUNT;
		else if ((gm == 1 || gm == 2) && post) {
			c->route = R_GEMINI;
			c->client_stream = gm == 2;
		}
		if (c->route != R_GEMINI)
			c->model[0] = '\0';
	}
	c->w.api = c->api;
}

/* Whether p[0..n) is the string s. */
static int
span_is(const char *p, size_t n, const char *s)
{
	return (strlen(s) == n && memcmp(p, s, n) == 0);
}

/*
 * What would make the provider answer in another shape than the one the
 * meter reads its usage from, or run another method than the one routed,
 * or NULL.  Google's system parameters (fields, $fields, alt=proto, the
 * X-Goog-FieldMask header) drop usageMetadata from the answer, and
 * X-HTTP-Method-Override turns a routed GET into a POST: refused.  A
 * Gemini call's query may hold only alt (sse or json), key and
 * prettyPrint.
 */
static const char *
answer_shape(struct call *c)
{
	static const char *const hdr[] = { "X-HTTP-Method-Override",
	    "X-HTTP-Method", "X-Method-Override", "X-Goog-FieldMask",
	    "X-Fields", NULL };
	const char *q = strchr(c->uri, '?'), *a, *e, *eq, *k, *v;
	size_t i, kl, vl;

	for (i = 0; hdr[i] != NULL; i++)
		if (MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
		    hdr[i]) != NULL)
			return ("joulehook: a method override or a field mask "
			    "would change what the provider runs or answers, "
			    "unseen by the meter: refused");
	if (c->api != JH_API_GEMINI || q == NULL)
		return (NULL);
	for (a = q + 1; *a != '\0'; a = *e == '&' ? e + 1 : e) {
		e = a + strcspn(a, "&");
		eq = memchr(a, '=', (size_t)(e - a));
		k = a;
		kl = (size_t)((eq != NULL ? eq : e) - a);
		v = eq != NULL ? eq + 1 : e;
		vl = (size_t)(e - v);
		if (kl > 0 && k[0] == '$') {
			k++;
			kl--;
		}
		if ((kl == 0 && vl == 0) || span_is(k, kl, "key") ||
		    span_is(k, kl, "prettyPrint") || (span_is(k, kl, "alt") &&
		    (span_is(v, vl, "sse") || span_is(v, vl, "json"))))
			continue;
		return ("joulehook: the meter reads the usage from the answer: "
		    "a query parameter other than alt=sse or alt=json, key "
		    "and prettyPrint (fields, alt=proto) is refused");
	}
	return (NULL);
}

/* A caller without the token: refused, logged at most once a second. */
static enum MHD_Result
unauthorized(struct call *c, const char *method)
{
	struct jh_px *px = c->px;
	uint64_t now = jh_mono_ms();
	int log = 0;

	pthread_mutex_lock(&px->mu);
	if (now - px->last_authlog >= 1000) {
		px->last_authlog = now;
		log = 1;
	}
	pthread_mutex_unlock(&px->mu);
	if (log)
		jh_px_log("refused a caller without the token: %s %.64s",
		    method, c->path);
	return (reply_error(c, 401, c->api == JH_API_ANTHROPIC ?
	    "authentication_error" : "invalid_api_key", "joulehook: "
	    "this proxy needs its X-Joulehook-Token header"));
}

/* The session a metered call names, or the proxy's own. */
static const char *
session_of(struct call *c)
{
	static const char *const hdr[] = { "X-Claude-Code-Session-Id",
	    "X-Joulehook-Session", "session-id", "x-session-id", NULL };
	const char *s = NULL;
	size_t i;

	for (i = 0; hdr[i] != NULL && s == NULL; i++)
		s = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
		    hdr[i]);
	return (s != NULL ? s : c->px->o.session);
}

/* The call's hold id, unique across restarts: a hold/1 is settled by it. */
static void
hold_id(struct call *c)
{
	struct jh_px *px = c->px;

	pthread_mutex_lock(&px->mu);
	if (px->run == 0)
		px->run = randombytes_random() | 1;
	snprintf(c->id, sizeof(c->id), "jhp-%ld-%08x-%llu", (long)getpid(),
	    (unsigned)px->run, (unsigned long long)++px->seq);
	pthread_mutex_unlock(&px->mu);
}

/*
 * The request's headers are in: route it, admit its caller and its
 * session, refuse a body over -b now; the body follows.
 */
static enum MHD_Result
begin(struct call *c, const char *method)
{
	struct jh_px *px = c->px;
	const char *s, *cl, *why;

	route(c, strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0,
	    strcmp(method, "POST") == 0);
	if (c->route == R_PROBE)
		return (respond(c, 200, "", 0));
	if (!authorized(c))
		return (unauthorized(c, method));
	if (c->route == R_NONE)
		return (reply_error(c, 404, c->api == JH_API_ANTHROPIC ?
		    "not_found_error" : "not_found", "joulehook: no such route "
		    "through this proxy"));
	if (atomic_load(&px->stopping))
		return (reply_error(c, c->api == JH_API_GEMINI ? 503 : 529,
		    "overloaded_error", "joulehook: the proxy is stopping"));
	if ((why = answer_shape(c)) != NULL)
		return (reply_error(c, 400, "invalid_request_error", why));
	c->metered = c->route == R_MESSAGES || c->route == R_CHAT ||
	    c->route == R_RESPONSES || c->route == R_GEMINI;
	if (c->metered) {
		s = session_of(c);
		if (!session_ok(s))
			return (reply_error(c, 400, "invalid_request_error",
			    "joulehook: the session id must be 1 to 128 of "
			    "A-Z a-z 0-9 . _ : -"));
		if (!jh_px_admit(px, s))
			return (reply_error(c, px->o.refuse_status,
			    refusal_type(c, 0), "joulehook: too many new "
			    "sessions this minute"));
		snprintf(c->session, sizeof(c->session), "%s", s);
		hold_id(c);
	}
	cl = MHD_lookup_connection_value(c->con, MHD_HEADER_KIND,
	    "Content-Length");
	if (cl != NULL && strtoull(cl, NULL, 10) > px->o.maxbody) {
		c->too_big = 1;
		return (dispatch(c));
	}
	return (MHD_YES);
}

enum MHD_Result
jh_px_handler(void *cls, struct MHD_Connection *con, const char *url,
    const char *method, const char *version, const char *up, size_t *upsz,
    void **ptr)
{
	struct jh_px *px = cls;
	struct call *c = *ptr;

	(void)url;
	(void)version;
	if (c == NULL)
		return (MHD_NO);
	c->con = con;
	if (!c->started) {
		c->started = 1;
		pthread_mutex_lock(&px->mu);
		px->active++;
		pthread_mutex_unlock(&px->mu);
		return (begin(c, method));
	}
	if (*upsz > 0) {
		if (!c->done)
			jh_buf_add_max(&c->body, up, *upsz, px->o.maxbody,
			    &c->too_big);
		*upsz = 0;
		return (MHD_YES);
	}
	if (c->done)
		return (MHD_YES);
	if (c->body.oom)
		return (MHD_NO);
	return (dispatch(c));
}

void *
jh_px_on_uri(void *cls, const char *uri, struct MHD_Connection *con)
{
	struct call *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (NULL);
	if ((c->uri = strdup(uri)) == NULL) {
		free(c);
		return (NULL);
	}
	c->px = cls;
	c->con = con;
	c->t0 = jh_mono_ms();
	c->client_fd = -1;
	jh_buf_init(&c->body);
	jh_buf_init(&c->out);
	jh_buf_init(&c->copy);
	return (c);
}

void
jh_px_completed(void *cls, struct MHD_Connection *con, void **ptr,
    enum MHD_RequestTerminationCode toe)
{
	struct jh_px *px = cls;
	struct call *c = *ptr;

	(void)con;
	if (c == NULL)
		return;
	if (c->started) {
		pthread_mutex_lock(&px->mu);
		px->active--;
		pthread_mutex_unlock(&px->mu);
	}
	if (!c->finished && c->metered && c->session[0] != '\0' &&
	    c->started) {
		if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
			c->client_gone = !c->up_done;
		if (toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN)
			c->cut = 1;
		jh_px_finish(c, NULL);
	}
	jh_px_sync(c);
	jh_px_call_free(c);
	*ptr = NULL;
}

void
jh_px_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char m[512];

	(void)cls;
	jh_listen_msg(m, sizeof(m), fmt, ap);
	jh_px_log("libmicrohttpd: %s", m);
}

