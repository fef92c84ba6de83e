/*
 * joulehook: JSON (through jansson) to canonical CBOR and back.
 *
 * The JSON-to-CBOR number mapping is part of the input_digest contract
 * that third parties recompute (conformance/v1/digest): a JSON number
 * without fraction or exponent is a CBOR integer, and must fit in int64
 * (jansson refuses larger ones, and so do we); any other number is a
 * float in its shortest exact form, so 1, 1.0 and 1e2 all differ.
 * Duplicate object keys are refused, U+0000 is kept, text is never
 * normalized.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "json.h"

json_t *
jh_json_parse(const char *s, size_t n, struct jh_err *e)
{
	json_error_t je;
	json_t *j;

	j = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
	    JSON_DECODE_ANY, &je);
	if (j == NULL)
		jh_errf(e, "invalid JSON at column %d: %s", je.column, je.text);
	return (j);
}

/* JSON's whitespace; never NUL, which strchr(3) would match. */
static int
is_ws(char c)
{
	return (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

/* Past the JSON value at p[i] (well-formed input, as jansson read it). */
static size_t
skip_value(const char *p, size_t n, size_t i)
{
	int depth = 0, str = 0;

	for (; i < n; i++) {
		if (str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"') {
				str = 0;
				if (depth == 0)
					return (i + 1);
			}
		} else if (p[i] == '"')
			str = 1;
		else if (p[i] == '{' || p[i] == '[')
			depth++;
		else if (p[i] == '}' || p[i] == ']') {
			if (depth == 0)
				return (i);	/* a scalar ended at its object */
			if (--depth == 0)
				return (i + 1);
		} else if (depth == 0 && (p[i] == ',' || is_ws(p[i])))
			return (i);
	}
	return (n);
}

static size_t
skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && is_ws(p[i]))
		i++;
	return (i);
}

/*
 * Where the member key of the JSON object p[0..n) has its value, as
 * written: [*vs, *ve), the key compared as written.  Returns 1 found
 * once, 0 absent, -1 written more than once, p not an object, or a key
 * of it written with an escape (which may be key once decoded).  For a body jansson read, so the bytes are well-formed; a
 * caller that edits the value checks that the parse saw the same.
 */
int
jh_json_span(const char *p, size_t n, const char *key, size_t *vs,
    size_t *ve)
{
	size_t i, ks, kl = strlen(key), e;
	int found = 0;

	i = skip_ws(p, n, 0);
	if (i >= n || p[i] != '{')
		return (-1);
	for (i = skip_ws(p, n, i + 1); i < n && p[i] == '"';) {
		ks = i + 1;
		i = skip_value(p, n, i);
		e = i - 1;			/* the closing quote */
		/*
		 * A key written with an escape (max\u005ftokens) is the same
		 * key to a parser, which reads the last of two: no span.
		 */
		if (memchr(p + ks, '\\', e - ks) != NULL)
			return (-1);
		i = skip_ws(p, n, i);
		if (i >= n || p[i] != ':')
			return (-1);
		i = skip_ws(p, n, i + 1);
		if (e - ks == kl && memcmp(p + ks, key, kl) == 0) {
			if (found++)
				return (-1);
			*vs = i;
			*ve = skip_value(p, n, i);
		}
		i = skip_ws(p, n, skip_value(p, n, i));
		if (i < n && p[i] == ',')
			i = skip_ws(p, n, i + 1);
	}
	return (found);
}

/*
 * A provider's JSON as the provider reads it, for the meter: U+0000 in
 * strings, and integers past int64 (read then as reals, *reals set), so
 * that no body a provider takes is refused for its bytes.  Duplicate
 * keys are the provider's business: the last one is read.  The bytes
 * relayed are always the client's own; this parse only reads them.
 */
json_t *
jh_json_load_wire(const void *p, size_t n, int *reals)
{
	json_error_t je;
	json_t *j;

	*reals = 0;
	if ((j = json_loadb(p, n, JSON_ALLOW_NUL, &je)) != NULL ||
	    strstr(je.text, "too big") == NULL)
		return (j);
	*reals = 1;
	return (json_loadb(p, n, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL,
	    NULL));
}

/* One JSON value of any kind, as jh_json_load_wire reads a body. */
static json_t *
load_any(const char *p, size_t n, int *reals)
{
	json_error_t je;
	json_t *j;

	if ((j = json_loadb(p, n, JSON_ALLOW_NUL | JSON_DECODE_ANY, &je)) !=
	    NULL || strstr(je.text, "too big") == NULL)
		return (j);
	*reals = 1;
	return (json_loadb(p, n, JSON_ALLOW_NUL | JSON_DECODE_ANY |
	    JSON_DECODE_INT_AS_REAL, NULL));
}

/*
 * A large body's top-level members, each parsed on its own, those whose
 * value is over max bytes as written left null: what jh-proxy reads of a
 * body (the model, its limits, stream options, tools) without building a
 * tree of the whole conversation, which would take twice the body's
 * memory again.  A member left out is not checked; the provider reads
 * it; its name is appended to left, when left is not NULL.  NULL when
 * the body is not one JSON object; duplicate keys keep the last, as
 * jansson does.
 */
json_t *
jh_json_load_members(const char *p, size_t n, size_t max, int *reals,
    json_t *left)
{
	json_t *o, *k, *v;
	size_t i, ks, ke, vs;

	*reals = 0;
	i = skip_ws(p, n, 0);
	if (i >= n || p[i] != '{' || (o = json_object()) == NULL)
		return (NULL);
	for (i = skip_ws(p, n, i + 1); i < n && p[i] == '"';) {
		ks = i;
		ke = i = skip_value(p, n, i);
		i = skip_ws(p, n, i);
		if (i >= n || p[i] != ':')
			goto bad;
		vs = i = skip_ws(p, n, i + 1);
		i = skip_value(p, n, i);
		if (i == vs || (k = json_loadb(p + ks, ke - ks,
		    JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL)) == NULL)
			goto bad;
		v = i - vs > max ? json_null() : load_any(p + vs, i - vs,
		    reals);
		if (!json_is_string(k) || v == NULL || json_object_setn_new(o,
		    json_string_value(k), json_string_length(k), v) == -1 ||
		    (i - vs > max && left != NULL && json_array_append(left,
		    k) == -1)) {
			json_decref(k);
			goto bad;
		}
		json_decref(k);
		i = skip_ws(p, n, i);
		if (i >= n || p[i] != ',')
			break;
		i = skip_ws(p, n, i + 1);
		if (i >= n || p[i] != '"')
			goto bad;
	}
	if (i >= n || p[i] != '}' || skip_ws(p, n, i + 1) != n)
		goto bad;
	return (o);
bad:
	json_decref(o);
	return (NULL);
}

static int
hex4(const char *s, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		int c = s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return (-1);
		*v = *v << 4 | (unsigned)d;
	}
	return (0);
}

/*
 * Rewrites in place, in JSON text s of n bytes, each \u escape of a
 * lone UTF-16 surrogate (valid JSON syntax, what JavaScript's
 * JSON.stringify writes for one, which jansson refuses) as \ufffd, the
 * replacement character: what Node passes on when it encodes such a
 * string as UTF-8, so the text decided is the text that runs.  The
 * length does not change.  Returns how many it rewrote.
 */
size_t
jh_json_lone_surrogates(char *s, size_t n)
{
	size_t i, fixed = 0;
	unsigned v, w;
	int instr = 0;

	for (i = 0; i < n; i++) {
		if (!instr) {
			instr = s[i] == '"';
			continue;
		}
		if (s[i] == '"') {
			instr = 0;
			continue;
		}
		if (s[i] != '\\' || i + 1 >= n)
			continue;
		if (s[i + 1] != 'u' || i + 6 > n || hex4(s + i + 2, &v) == -1) {
			i++;		/* \" \\ \n ...: one escaped byte */
			continue;
		}
		if (v >= 0xd800 && v <= 0xdbff && i + 12 <= n &&
		    s[i + 6] == '\\' && s[i + 7] == 'u' &&
		    hex4(s + i + 8, &w) == 0 && w >= 0xdc00 && w <= 0xdfff) {
			i += 11;	/* a pair */
			continue;
		}
		if (v >= 0xd800 && v <= 0xdfff) {
			memcpy(s + i + 2, "fffd", 4);
			fixed++;
		}
		i += 5;
	}
	return (fixed);
}

struct jpath {
	char s[256];
	size_t n;
};

static size_t
jpath_push(struct jpath *p, const char *fmt, const char *k, size_t kn,
    size_t idx)
{
	size_t old = p->n;
	int w;

	if (fmt == NULL)
		w = snprintf(p->s + p->n, sizeof(p->s) - p->n, "[%zu]", idx);
	else
		w = snprintf(p->s + p->n, sizeof(p->s) - p->n, fmt,
		    (int)(kn > 64 ? 64 : kn), k);
	if (w > 0 && (size_t)w < sizeof(p->s) - p->n)
		p->n += (size_t)w;
	return (old);
}

static int
to_cbor(struct jh_buf *b, const json_t *j, int profile, struct jpath *path,
    int depth, struct jh_err *e)
{
	const char *k;
	json_t *v;
	size_t i, old;
	void *it;
	struct jh_cmap m;

	if (depth > JH_MAX_DEPTH)
		return (jh_errf(e, "nesting deeper than %d at %s",
		    JH_MAX_DEPTH, path->n ? path->s : "(top)"));
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		jh_cmap_init(&m);
		for (it = json_object_iter((json_t *)j); it != NULL;
		    it = json_object_iter_next((json_t *)j, it)) {
			size_t kn;
			k = json_object_iter_key(it);
			kn = json_object_iter_key_len(it);
			v = json_object_iter_value(it);
			old = jpath_push(path, path->n ? ".%.*s" : "%.*s", k,
			    kn, 0);
			if (to_cbor(jh_cmap_tkey(&m, k, kn), v, profile, path,
			    depth + 1, e) == -1) {
				jh_cmap_free(&m);
				return (-1);
			}
			path->n = old;
			path->s[old] = '\0';
			jh_cmap_next(&m);
		}
		i = (size_t)jh_cmap_finish(b, &m, e);
		jh_cmap_free(&m);
		if ((int)i == -1)
			return (-1);
		break;
	case JSON_ARRAY:
		jh_cbor_head(b, 4, json_array_size(j));
		json_array_foreach(j, i, v) {
			old = jpath_push(path, NULL, NULL, 0, i);
			if (to_cbor(b, v, profile, path, depth + 1, e) == -1)
				return (-1);
			path->n = old;
			path->s[old] = '\0';
		}
		break;
	case JSON_STRING:
		jh_cbor_put_text(b, json_string_value(j), json_string_length(j));
		break;
	case JSON_INTEGER:
		jh_cbor_put_int(b, (int64_t)json_integer_value(j));
		break;
	case JSON_REAL:
		if (profile == JH_JSON_CORE)
			return (jh_errf(e, "float in core: field %s",
			    path->n ? path->s : "(top)"));
		jh_cbor_put_float(b, json_real_value(j));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		if (profile == JH_JSON_CORE)
			return (jh_errf(e, "boolean in core: field %s",
			    path->n ? path->s : "(top)"));
		jh_buf_addc(b, json_is_true(j) ? 0xf5 : 0xf4);
		break;
	case JSON_NULL:
		if (profile == JH_JSON_CORE)
			return (jh_errf(e, "null in core: field %s",
			    path->n ? path->s : "(top)"));
		jh_buf_addc(b, 0xf6);
		break;
	}
	if (b->oom)
		return (jh_errf(e, "out of memory"));
	return (0);
}

int
jh_json_to_cbor(struct jh_buf *b, const json_t *j, int profile,
    struct jh_err *e)
{
	struct jpath path;

	path.s[0] = '\0';
	path.n = 0;
	return (to_cbor(b, j, profile, &path, 0, e));
}

/* Converts one field of a core, naming it in errors. */
int
jh_json_field_to_cbor(struct jh_buf *b, const json_t *j, const char *name,
    size_t namelen, struct jh_err *e)
{
	struct jpath path;

	path.s[0] = '\0';
	path.n = 0;
	jpath_push(&path, "%.*s", name, namelen, 0);
	return (to_cbor(b, j, JH_JSON_CORE, &path, 1, e));
}

/* An id's text: "sha256:" and the hex of the SHA-256 h. */
void
jh_id_text(char *out, const uint8_t *h)
{
	memcpy(out, "sha256:", 7);
	jh_hex(out + 7, h, JH_HASH_LEN);
}

/* The id of p[0..n): "sha256:" and the hex of its SHA-256. */
int
jh_sha256_id(char *out, const uint8_t *p, size_t n)
{
	uint8_t h[JH_HASH_LEN];

	crypto_hash_sha256(h, p, n);
	jh_id_text(out, h);
	return (0);
}

/* input_digest: "sha256:" + hex SHA-256 of the detCBOR of the input. */
int
jh_input_digest(char *out, const json_t *input, struct jh_err *e)
{
	struct jh_buf b;

	jh_buf_init(&b);
	if (jh_json_to_cbor(&b, input, JH_JSON_DIGEST, e) == -1) {
		jh_buf_free(&b);
		return (-1);
	}
	jh_sha256_id(out, b.p, b.len);
	jh_buf_free(&b);
	return (0);
}

void
jh_json_str(struct jh_buf *b, const char *s, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i, run = 0;

	jh_buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		jh_buf_add(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			memcpy(u, "\\u00", 4);
			u[4] = hx[c >> 4];
			u[5] = hx[c & 15];
			u[6] = '\0';
			esc = u;
		}
		jh_buf_adds(b, esc);
	}
	jh_buf_add(b, s + run, n - run);
	jh_buf_addc(b, '"');
}

/*
 * Renders decoded CBOR as JSON text: byte strings as lowercase hex,
 * integers beyond the int64 range as decimal strings (JSON readers such
 * as jq would silently round them), non-text map keys as strings.
 */
int
jh_cbor_to_json(struct jh_buf *b, const struct jh_cbor *v)
{
	char num[32];
	size_t i;

	switch (v->type) {
	case JH_CBOR_UINT:
		if (v->u > (uint64_t)INT64_MAX)
			jh_buf_addf(b, "\"%llu\"", (unsigned long long)v->u);
		else
			jh_buf_addf(b, "%llu", (unsigned long long)v->u);
		break;
	case JH_CBOR_NINT:
		if (v->u > (uint64_t)INT64_MAX)
			jh_buf_addf(b, "\"-%llu\"",
			    (unsigned long long)v->u + 1ULL);
		else
			jh_buf_addf(b, "-%llu", (unsigned long long)v->u + 1);
		break;
	case JH_CBOR_BYTES: {
		size_t k;
		if (jh_buf_reserve(b, 2 * v->len + 3) == -1)
			return (-1);
		b->p[b->len++] = '"';
		for (k = 0; k < v->len; k++) {
			static const char hx[] = "0123456789abcdef";
			b->p[b->len++] = (uint8_t)hx[v->p[k] >> 4];
			b->p[b->len++] = (uint8_t)hx[v->p[k] & 15];
		}
		b->p[b->len++] = '"';
		break;
	}
	case JH_CBOR_TEXT:
		jh_json_str(b, (const char *)v->p, v->len);
		break;
	case JH_CBOR_ARRAY:
		jh_buf_addc(b, '[');
		for (i = 0; i < v->len; i++) {
			if (i)
				jh_buf_addc(b, ',');
			jh_cbor_to_json(b, &v->v[i]);
		}
		jh_buf_addc(b, ']');
		break;
	case JH_CBOR_MAP:
		jh_buf_addc(b, '{');
		for (i = 0; i < v->len; i++) {
			const struct jh_cbor *k = &v->v[2 * i];
			if (i)
				jh_buf_addc(b, ',');
			if (k->type == JH_CBOR_TEXT)
				jh_json_str(b, (const char *)k->p, k->len);
			else {
				struct jh_buf t;
				jh_buf_init(&t);
				jh_cbor_to_json(&t, k);
				if (t.len > 0 && t.p[0] == '"')
					jh_buf_add(b, t.p, t.len);
				else
					jh_json_str(b, (const char *)t.p, t.len);
				jh_buf_free(&t);
			}
			jh_buf_addc(b, ':');
			jh_cbor_to_json(b, &v->v[2 * i + 1]);
		}
		jh_buf_addc(b, '}');
		break;
	case JH_CBOR_TAG:
		jh_buf_addf(b, "{\"tag\":%llu,\"value\":",
		    (unsigned long long)v->u);
		jh_cbor_to_json(b, v->v);
		jh_buf_addc(b, '}');
		break;
	case JH_CBOR_SIMPLE:
		jh_buf_adds(b, v->u == JH_SIMPLE_TRUE ? "true" :
		    v->u == JH_SIMPLE_FALSE ? "false" : "null");
		break;
	case JH_CBOR_FLOAT:
		if (v->f != v->f || v->f - v->f != 0)
			jh_buf_adds(b, "null");	/* NaN, Inf: not JSON */
		else {
			snprintf(num, sizeof(num), "%.17g", v->f);
			jh_buf_adds(b, num);
		}
		break;
	}
	return (b->oom ? -1 : 0);
}

/*
 * A count as telemetry writes it: a JSON integer, a decimal string (OTLP
 * JSON writes 64-bit integers either way) or an integral double, from 0 to
 * max.  Returns 0, or -1 for anything else.
 */
int
jh_json_count(uint64_t *out, const json_t *v, uint64_t max)
{
	const char *s;
	char *end;
	double d;
	unsigned long long n;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0 ||
		    (uint64_t)json_integer_value(v) > max)
			return (-1);
		*out = (uint64_t)json_integer_value(v);
		return (0);
	}
	if (json_is_real(v)) {
		d = json_real_value(v);
		if (!(d >= 0 && d <= (double)max) ||
		    d != (double)(uint64_t)d)
			return (-1);
		*out = (uint64_t)d;
		return (0);
	}
	if (!json_is_string(v))
		return (-1);
	s = json_string_value(v);
	if (*s < '0' || *s > '9')
		return (-1);
	n = strtoull(s, &end, 10);
	if (*end != '\0' || n > max)
		return (-1);
	*out = n;
	return (0);
}
