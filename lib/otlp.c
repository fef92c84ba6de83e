/*
 * joulehook: OpenTelemetry OTLP/HTTP JSON export requests read into
 * efficiency/1 units (otlp.h, jh-meter(1), otel).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "energy.h"
#include "hosts.h"
#include "json.h"
#include "ledger.h"
#include "meter.h"
#include "otlp.h"
#include "util.h"

/* The value object of an OTLP attribute list's key, or NULL. */
static const json_t *
attr(const json_t *attrs, const char *key)
{
	const json_t *a;
	size_t i;

	if (!json_is_array(attrs))
		return (NULL);
	json_array_foreach(attrs, i, a) {
		const char *k = jh_json_id(a, "key");
		if (k != NULL && strcmp(k, key) == 0)
			return (json_object_get(a, "value"));
	}
	return (NULL);
}

static const char *
attr_str(const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key);

	return (v != NULL ? jh_json_id(v, "stringValue") : NULL);
}

/* 0 found, 1 absent, -1 not a count. */
static int
attr_uint(uint64_t *out, const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key), *x;

	if (v == NULL)
		return (1);
	if ((x = json_object_get(v, "intValue")) == NULL &&
	    (x = json_object_get(v, "stringValue")) == NULL &&
	    (x = json_object_get(v, "doubleValue")) == NULL)
		return (-1);
	return (jh_json_uint(out, x) == -1 ? -1 : 0);
}

/* A price in dollars (a double, or its text) as micro-dollars. */
static int
attr_musd(uint64_t *out, const json_t *attrs, const char *key)
{
	const json_t *v = attr(attrs, key), *x;
	double d;
	char *end;

	if (v == NULL)
		return (1);
	if ((x = json_object_get(v, "doubleValue")) != NULL && json_is_number(x))
		d = json_number_value(x);
	else if ((x = json_object_get(v, "intValue")) != NULL &&
	    json_is_integer(x))
		d = (double)json_integer_value(x);
	else if ((x = json_object_get(v, "stringValue")) != NULL &&
	    json_is_string(x)) {
		d = strtod(json_string_value(x), &end);
		if (end == json_string_value(x) || *end != '\0')
			return (-1);
	} else
		return (-1);
	if (!(d >= 0 && d < 1e9))
		return (-1);
	*out = (uint64_t)(d * 1e6 + 0.5);
	return (0);
}

/* A *UnixNano: a number or a decimal string. */
static uint64_t
nanos(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	const char *s;

	if (json_is_integer(v) && json_integer_value(v) > 0)
		return ((uint64_t)json_integer_value(v));
	if (json_is_string(v)) {
		s = json_string_value(v);
		if (*s >= '0' && *s <= '9')
			return (strtoull(s, NULL, 10));
	}
	return (0);
}

const char *
jh_strs_keep(struct jh_strs *s, const char *str)
{
	char **nv;

	if (str == NULL)
		return (NULL);
	if ((nv = reallocarray(s->v, s->n + 1, sizeof(*nv))) == NULL)
		return (NULL);
	s->v = nv;
	if ((s->v[s->n] = strdup(str)) == NULL)
		return (NULL);
	return (s->v[s->n++]);
}

int
jh_strs_has(const struct jh_strs *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return (1);
	return (0);
}

void
jh_strs_free(struct jh_strs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static void
refuse(struct jh_otlp *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An item of a request refused: said to warn, counted. */
static void
refuse(struct jh_otlp *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	if (o->warn != NULL)
		o->warn(o->arg, o->why);
	o->bad++;
	o->rejected++;
}

/* A copy of str for this request's units; NULL as str is, or o->nomem. */
static const char *
ukeep(struct jh_otlp *o, const char *str)
{
	const char *k = jh_strs_keep(&o->ukeep, str);

	if (str != NULL && k == NULL)
		o->nomem = 1;
	return (k);
}

/* A new unit of this request; NULL when memory ran out (o->nomem). */
static struct jh_unit *
otel_unit(struct jh_otlp *o, const char *session, const char *model)
{
	struct jh_unit *x, *nu;

	if ((nu = reallocarray(o->u, o->nu + 1, sizeof(*nu))) == NULL) {
		o->nomem = 1;
		return (NULL);
	}
	o->u = nu;
	x = &o->u[o->nu++];
	jh_unit_init(x, ukeep(o, session), "otel");
	x->model = ukeep(o, model);
	return (x);
}

static const char *
session_of(const struct jh_otlp *o, const json_t *attrs, const json_t *res)
{
	const char *s;

	if ((s = attr_str(attrs, "session.id")) != NULL ||
	    (s = attr_str(res, "session.id")) != NULL)
		return (s);
	return (o->session);
}

/*
 * The unit of an event named what, in its session (whose metric series
 * are then not units); NULL when it has none (refused) or memory ran out.
 */
static struct jh_unit *
event_unit(struct jh_otlp *o, const char *what, const json_t *at,
    const json_t *res, const struct jh_usage *u, uint64_t dur)
{
	struct jh_unit *x;
	const char *sess;

	if ((sess = session_of(o, at, res)) == NULL) {
		refuse(o, "%s event without session.id (give -s): skipped",
		    what);
		return (NULL);
	}
	if (!jh_strs_has(&o->evsess, sess) &&
	    jh_strs_keep(&o->evsess, sess) == NULL) {
		o->nomem = 1;
		return (NULL);
	}
	if ((x = otel_unit(o, sess, attr_str(at, "model"))) == NULL)
		return (NULL);
	x->u = *u;
	x->duration_ms = dur;
	return (x);
}

/*
 * A Gemini CLI gemini_cli.api_response event: one answered call, its
 * counts those of the API's usageMetadata, read as the proxy reads them
 * (jh-proxy(1)): input_token_count is the prompt, the cached tokens
 * included; output is the candidates and the thoughts.
 */
static void
otel_gemini(struct jh_otlp *o, const json_t *rec, const json_t *res)
{
	static const char *const map[][2] = {
		{ "input_token_count", "promptTokenCount" },
		{ "cached_content_token_count", "cachedContentTokenCount" },
		{ "tool_token_count", "toolUsePromptTokenCount" },
		{ "output_token_count", "candidatesTokenCount" },
		{ "thoughts_token_count", "thoughtsTokenCount" },
	};
	const json_t *at = json_object_get(rec, "attributes");
	struct jh_unit *x;
	struct jh_usage u;
	struct jh_err e;
	uint64_t v, dur = 0, st = 200;
	char id[JH_UNIT_ID_MAX + 64];
	json_t *um;
	size_t i;
	int bad = 0;

	um = json_object();
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		switch (attr_uint(&v, at, map[i][0])) {
		case 0:
			if (v > INT64_MAX)
				v = INT64_MAX;
			json_object_set_new(um, map[i][1],
			    json_integer((json_int_t)v));
			break;
		case -1:
			bad = 1;
		}
	memset(&u, 0, sizeof(u));
	if (bad || attr_uint(&dur, at, "duration_ms") == -1 ||
	    attr_uint(&st, at, "status_code") == -1 ||
	    jh_usage_gemini(&u, um, &e) == -1 || !u.have_in || !u.have_out) {
		json_decref(um);
		refuse(o, "a gemini_cli.api_response event without its token "
		    "counts, or with one that is not a count: skipped");
		return;
	}
	json_decref(um);
	if ((x = event_unit(o, "a gemini_cli.api_response", at, res, &u,
	    dur)) == NULL)
		return;
	snprintf(id, sizeof(id), "api_response/%llu",
	    (unsigned long long)nanos(rec, "timeUnixNano"));
	x->unit = ukeep(o, id);
	x->completed = st == 200;
	x->verdict = st == 200 ? "ok" : "error";
	x->accepted = st == 200 ? u.out : 0;
}

/* A Claude Code api_request event (a log record): one finished call. */
static void
otel_event(struct jh_otlp *o, const json_t *rec, const json_t *res)
{
	const json_t *at = json_object_get(rec, "attributes");
	const char *name = attr_str(at, "event.name"), *seq;
	const json_t *body = json_object_get(rec, "body");
	struct jh_unit *x;
	struct jh_usage u;
	uint64_t dur = 0, musd = 0;
	char id[JH_UNIT_ID_MAX + 64];
	int hc;

	if (name == NULL && json_is_object(body))
		name = jh_json_id(body, "stringValue");
	if (name != NULL && strcmp(name, "gemini_cli.api_response") == 0) {
		otel_gemini(o, rec, res);
		return;
	}
	if (name == NULL || (strcmp(name, "api_request") != 0 &&
	    strcmp(name, "claude_code.api_request") != 0))
		return;
	memset(&u, 0, sizeof(u));
	if (attr_uint(&u.in, at, "input_tokens") != 0 ||
	    attr_uint(&u.out, at, "output_tokens") != 0 ||
	    attr_uint(&u.cache_read, at, "cache_read_tokens") == -1 ||
	    attr_uint(&u.cache_write, at, "cache_creation_tokens") == -1 ||
	    attr_uint(&dur, at, "duration_ms") == -1 ||
	    (hc = attr_musd(&musd, at, "cost_usd")) == -1) {
		refuse(o, "an api_request event without its token counts, or "
		    "with one that is not a count: skipped");
		return;
	}
	if ((x = event_unit(o, "an api_request", at, res, &u, dur)) == NULL)
		return;
	x->have_cost = hc == 0;
	x->cost_musd = musd;
	x->request_id = ukeep(o, attr_str(at, "request_id"));
	if ((seq = attr_str(at, "event.sequence")) == NULL) {
		uint64_t n;
		if (attr_uint(&n, at, "event.sequence") == 0)
			snprintf(id, sizeof(id), "api_request/%llu",
			    (unsigned long long)n);
		else
			snprintf(id, sizeof(id), "api_request/%llu",
			    (unsigned long long)nanos(rec, "timeUnixNano"));
	} else
		snprintf(id, sizeof(id), "api_request/%s", seq);
	x->unit = ukeep(o, x->request_id ? x->request_id : id);
	x->completed = 1;
	x->accepted = u.out;
}

/* A new series; NULL when memory ran out (o->nomem). */
static struct jh_otlp_series *
series_new(struct jh_otlp *o, const char *sess, const char *model,
    int type, uint64_t start, int cum)
{
	struct jh_otlp_series *s, *ns;

	if ((ns = reallocarray(o->s, o->ns + 1, sizeof(*ns))) == NULL) {
		o->nomem = 1;
		return (NULL);
	}
	o->s = ns;
	s = &o->s[o->ns];
	memset(s, 0, sizeof(*s));
	if ((s->session = jh_strs_keep(&o->keep, sess)) == NULL ||
	    (model != NULL && (s->model = jh_strs_keep(&o->keep,
	    model)) == NULL)) {
		o->nomem = 1;
		return (NULL);
	}
	s->type = type;
	s->start = start;
	s->cumulative = cum;
	o->ns++;
	return (s);
}

/* A claude_code.token.usage data point. */
static void
otel_point(struct jh_otlp *o, const json_t *dp, const json_t *res, int cum)
{
	static const char *const types[] = { "input", "output", "cacheRead",
	    "cacheCreation" };
	const json_t *at = json_object_get(dp, "attributes"), *v;
	const char *type = attr_str(at, "type"), *sess, *model;
	struct jh_otlp_series *s = NULL;
	uint64_t val, start = cum ? nanos(dp, "startTimeUnixNano") : 0;
	uint64_t time = nanos(dp, "timeUnixNano");
	size_t i;
	int ti;

	for (ti = 0; ti < 4; ti++)
		if (type != NULL && strcmp(type, types[ti]) == 0)
			break;
	if ((v = json_object_get(dp, "asInt")) == NULL)
		v = json_object_get(dp, "asDouble");
	/*
	 * A cumulative point is the session's running total, which a long
	 * session takes past one call's JH_TOKENS_MAX (cache reads first).
	 */
	if (ti == 4 || v == NULL || jh_json_count(&val, v, cum ?
	    (uint64_t)INT64_MAX : JH_TOKENS_MAX) == -1 ||
	    (sess = session_of(o, at, res)) == NULL) {
		refuse(o, "a claude_code.token.usage point without a known "
		    "type, a count or a session.id: skipped");
		return;
	}
	model = attr_str(at, "model");
	for (i = 0; i < o->ns; i++)
		if (strcmp(o->s[i].session, sess) == 0 && o->s[i].type == ti &&
		    o->s[i].start == start && o->s[i].cumulative == cum &&
		    (o->s[i].model == NULL ? model == NULL : model != NULL &&
		    strcmp(o->s[i].model, model) == 0))
			s = &o->s[i];
	if (s == NULL && (s = series_new(o, sess, model, ti, start,
	    cum)) == NULL)
		return;
	s->seen_ms = jh_now_ms();
	if (!cum)
		s->value = jh_add_sat(s->value, val);
	else if (time >= s->time) {
		/* A cumulative series: its latest value is the total. */
		s->value = val;
		s->time = time;
	}
}

/* A generic GenAI span (OpenTelemetry semantic conventions). */
static void
otel_span(struct jh_otlp *o, const json_t *sp, const json_t *res)
{
	const json_t *at = json_object_get(sp, "attributes");
	const char *sess, *id;
	struct jh_unit *x;
	struct jh_usage u;
	uint64_t in = 0, t0, t1;
	int hi, ho, code;

	memset(&u, 0, sizeof(u));
	if ((hi = attr_uint(&in, at, "gen_ai.usage.input_tokens")) == 1)
		hi = attr_uint(&in, at, "gen_ai.usage.prompt_tokens");
	if ((ho = attr_uint(&u.out, at, "gen_ai.usage.output_tokens")) == 1)
		ho = attr_uint(&u.out, at, "gen_ai.usage.completion_tokens");
	if (hi == 1 && ho == 1)
		return;		/* not a model call */
	if (hi == -1 || ho == -1 || attr_uint(&u.cache_read, at,
	    "gen_ai.usage.cache_read.input_tokens") == -1 ||
	    attr_uint(&u.cache_write, at,
	    "gen_ai.usage.cache_creation.input_tokens") == -1) {
		refuse(o, "a gen_ai span with a token count that is not a "
		    "count: skipped");
		return;
	}
	if ((sess = attr_str(at, "gen_ai.conversation.id")) == NULL &&
	    (sess = session_of(o, at, res)) == NULL) {
		refuse(o, "a gen_ai span without gen_ai.conversation.id or "
		    "session.id (give -s): skipped");
		return;
	}
	if ((x = otel_unit(o, sess, attr_str(at, "gen_ai.response.model") ?
	    attr_str(at, "gen_ai.response.model") : attr_str(at,
	    "gen_ai.request.model"))) == NULL)
		return;
	/* input_tokens includes the cached tokens, by the conventions. */
	if (u.cache_read + u.cache_write <= in)
		u.in = in - u.cache_read - u.cache_write;
	else {
		u.in = in;
		x->note = "cache counts above input_tokens: input_tokens read "
		    "as uncached";
	}
	x->u = u;
	t0 = nanos(sp, "startTimeUnixNano");
	t1 = nanos(sp, "endTimeUnixNano");
	x->duration_ms = t1 > t0 ? (t1 - t0) / 1000000 : 0;
	if ((id = attr_str(at, "gen_ai.response.id")) == NULL)
		id = jh_json_id(sp, "spanId");
	x->unit = ukeep(o, id ? id : "span");
	code = json_integer_value(json_object_get(json_object_get(sp,
	    "status"), "code"));
	x->completed = code != 2;
	x->verdict = code == 2 ? "error" : "ok";
	x->accepted = code == 2 ? 0 : u.out;
}

/* The signals of one export request that mask names. */
static void
otel_export(struct jh_otlp *o, const json_t *j, int mask)
{
	const json_t *r, *sc, *m, *l, *d;
	size_t i, k, n, p;

	json_array_foreach((mask & JH_OT_LOGS) ? json_object_get(j,
	    "resourceLogs") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeLogs"), k, sc)
			json_array_foreach(json_object_get(sc, "logRecords"), n,
			    l)
				otel_event(o, l, res);
	}
	json_array_foreach((mask & JH_OT_METRICS) ? json_object_get(j,
	    "resourceMetrics") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeMetrics"), k, sc)
			json_array_foreach(json_object_get(sc, "metrics"), n,
			    m) {
				const json_t *sum = json_object_get(m, "sum");
				const char *nm = jh_json_id(m, "name");
				if (nm == NULL || strcmp(nm,
				    "claude_code.token.usage") != 0)
					continue;
				json_array_foreach(json_object_get(sum,
				    "dataPoints"), p, d)
					otel_point(o, d, res, json_integer_value(
					    json_object_get(sum,
					    "aggregationTemporality")) == 2);
			}
	}
	json_array_foreach((mask & JH_OT_TRACES) ? json_object_get(j,
	    "resourceSpans") : NULL, i, r) {
		const json_t *res = json_object_get(json_object_get(r,
		    "resource"), "attributes");
		json_array_foreach(json_object_get(r, "scopeSpans"), k, sc)
			json_array_foreach(json_object_get(sc, "spans"), n, l)
				otel_span(o, l, res);
	}
}

/* One unit to the sink, estimated; 0, or -1 not taken. */
static int
otel_give(struct jh_otlp *o, struct jh_unit *x)
{
	struct jh_err e;

	jh_unit_tokens(x, o->c);
	if (o->sink(o->arg, x, &e) == -1) {
		refuse(o, "unit %s of session %s not sealed: %s", x->unit,
		    x->session, e.msg);
		o->unsealed++;
		return (-1);
	}
	return (0);
}

void
jh_otlp_flush(struct jh_otlp *o, uint64_t idle_ms)
{
	struct jh_unit x;
	char name[JH_UNIT_ID_MAX + 32];
	uint64_t now = jh_now_ms(), last;
	size_t i, k;
	int fresh;

	for (i = 0; i < o->ns; i++)
		o->s[i].mark = 0;
	for (i = 0; i < o->ns; i++) {
		struct jh_otlp_series *s = &o->s[i];
		if (s->mark)
			continue;
		if (jh_strs_has(&o->evsess, s->session)) {
			if (!s->done)
				o->dropped++;
			s->done = 1;
			s->sealed = s->value;
			continue;
		}
		jh_unit_init(&x, s->session, "otel");
		x.model = s->model;
		fresh = 0;
		last = 0;
		for (k = i; k < o->ns; k++) {
			struct jh_otlp_series *z = &o->s[k];
			uint64_t *f;
			if (z->mark || strcmp(z->session, s->session) != 0 ||
			    (z->model == NULL ? s->model != NULL :
			    s->model == NULL || strcmp(z->model,
			    s->model) != 0))
				continue;
			z->mark = 1;
			f = z->type == 0 ? &x.u.in : z->type == 1 ? &x.u.out :
			    z->type == 2 ? &x.u.cache_read : &x.u.cache_write;
			/* A cumulative series never goes back; if it did,
			 * nothing is taken back from what was sealed. */
			if (z->value > z->sealed)
				*f = jh_add_sat(*f, z->value - z->sealed);
			if (!z->done || z->value > z->sealed)
				fresh = 1;
			if (z->seen_ms > last)
				last = z->seen_ms;
		}
		if (!fresh || (idle_ms > 0 && now - last < idle_ms))
			continue;
		snprintf(name, sizeof(name), "token.usage/%s",
		    s->model ? s->model : "unknown");
		x.unit = name;
		x.note = "claude_code.token.usage: a sum over calls, whose "
		    "completion it does not tell";
		if (otel_give(o, &x) == -1)
			continue;	/* kept for the next flush */
		for (k = i; k < o->ns; k++) {
			struct jh_otlp_series *z = &o->s[k];
			if (strcmp(z->session, s->session) == 0 &&
			    (z->model == NULL ? s->model == NULL :
			    s->model != NULL && strcmp(z->model,
			    s->model) == 0)) {
				z->done = 1;
				z->sealed = z->value;
			}
		}
	}
}

int
jh_otlp_request(struct jh_otlp *o, const char *body, size_t len, int mask)
{
	struct jh_err e;
	size_t i;
	json_t *j;

	o->nv++;
	o->rejected = 0;
	o->nomem = 0;
	if ((j = jh_json_parse(body, len, &e)) == NULL) {
		snprintf(o->why, sizeof(o->why), "%s", e.msg);
		o->bad++;
		return (-1);
	}
	if (!json_is_object(j) || (mask == JH_OT_ALL && json_object_get(j,
	    "resourceLogs") == NULL && json_object_get(j,
	    "resourceMetrics") == NULL && json_object_get(j,
	    "resourceSpans") == NULL)) {
		snprintf(o->why, sizeof(o->why), "not an OTLP/JSON export "
		    "request (resourceLogs, resourceMetrics or resourceSpans)");
		o->bad++;
		json_decref(j);
		return (-1);
	}
	otel_export(o, j, mask);
	json_decref(j);
	for (i = 0; i < o->nu && !o->nomem; i++)
		otel_give(o, &o->u[i]);
	o->nu = 0;
	jh_strs_free(&o->ukeep);
	if (o->nomem) {
		snprintf(o->why, sizeof(o->why), "out of memory");
		return (JH_OTLP_NOMEM);
	}
	return (0);
}

void
jh_otlp_init(struct jh_otlp *o, const struct jh_coeffs *coeffs,
    const char *session, jh_otlp_sink sink, jh_otlp_warn warn, void *arg)
{
	memset(o, 0, sizeof(*o));
	o->c = coeffs;
	o->session = session;
	o->sink = sink;
	o->warn = warn;
	o->arg = arg;
}

void
jh_otlp_free(struct jh_otlp *o)
{
	jh_strs_free(&o->keep);
	jh_strs_free(&o->ukeep);
	jh_strs_free(&o->evsess);
	free(o->u);
	free(o->s);
	o->u = NULL;
	o->s = NULL;
	o->nu = o->ns = 0;
}

static void
say(struct jh_otlp *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
say(struct jh_otlp *o, const char *fmt, ...)
{
	char m[512];
	va_list ap;

	if (o->warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	o->warn(o->arg, m);
}

int
jh_otlp_read(struct jh_otlp *o, int fd)
{
	struct jh_reader r;
	struct jh_err e;
	const char *val;
	uint64_t start;
	size_t len;
	int rr, rc = 0;

	jh_reader_init(&r, fd);
	for (;;) {
		start = r.offset + r.pos;
		if ((rr = jh_reader_json(&r, &val, &len, &start, &e)) == 0)
			break;
		if (rr == JH_JSON_BROKEN) {
			say(o, "at byte %llu: %s", (unsigned long long)start,
			    e.msg);
			o->bad++;
			break;
		}
		if (rr == JH_JSON_TOOLONG) {
			o->nv++;
			o->bad++;
			say(o, "export at byte %llu: too long",
			    (unsigned long long)start);
			continue;
		}
		if ((rc = jh_otlp_request(o, val, len, JH_OT_ALL)) ==
		    JH_OTLP_NOMEM)
			break;
		if (rc == -1)
			say(o, "export at byte %llu: %s",
			    (unsigned long long)start, o->why);
		rc = 0;
	}
	jh_reader_free(&r);
	return (rc);
}
