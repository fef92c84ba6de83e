/*
 * joulehook: a strict deterministic-CBOR decoder and a canonical writer.
 *
 * Everything joulehook signs or verifies passes through this file, not
 * through libcbor: Debian 12's libcbor 0.8 accepts non-canonical input and
 * refuses tags 16-20 in their one-byte form, which includes COSE_Sign1's
 * 0xd2, and its half-float encoder loses the low bits of subnormals
 * (tests/libcbor-regress.c keeps these facts visible).  The programs do
 * not link libcbor at all: Debian ships no static libcbor for jh-hook,
 * and a hook stage should map no library it can do without; the float
 * heads it could have written are a few lines here.
 *
 * The decoder accepts exactly RFC 8949 section 4.2.1 core deterministic
 * encoding: shortest heads, definite lengths, map keys in the bytewise
 * order of their encodings with no duplicates, valid UTF-8 text, and
 * shortest-form floats where floats are allowed at all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"

struct dec {
	const uint8_t *p;
	size_t n;
	struct jh_arena *a;
	int flags;
	struct jh_err *e;
};

static int
utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		uint32_t cp;
		size_t k, j;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
		} else
			return (0);
		if (n - i <= k)
			return (0);
		for (j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return (0);
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return (0);
		i += k + 1;
	}
	return (1);
}

static double
half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	int m = h & 0x3ff;
	double v;

	if (e == 0)
		v = ldexp(m, -24);
	else if (e != 31)
		v = ldexp(m + 1024, e - 25);
	else
		v = m == 0 ? INFINITY : NAN;
	return ((h & 0x8000) ? -v : v);
}

static int
same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return (isnan(a) && isnan(b));
	return (a == b && signbit(a) == signbit(b));
}

static uint64_t
be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return (v);
}

/*
 * Reads one head at *pos.  Returns JH_CBOR_OK, JH_CBOR_TRUNCATED or
 * JH_CBOR_INVALID; strict selects the shortest-form rule.
 */
static int
head(const uint8_t *p, size_t n, size_t *pos, int *major, int *ai,
    uint64_t *val, int strict, struct jh_err *e)
{
	size_t at = *pos;
	int k;

	if (at >= n)
		return (JH_CBOR_TRUNCATED);
	*major = p[at] >> 5;
	*ai = p[at] & 31;
	if (*ai < 24) {
		*val = (uint64_t)*ai;
		*pos = at + 1;
		return (JH_CBOR_OK);
	}
	if (*ai == 31) {
		*val = 0;
		*pos = at + 1;
		return (JH_CBOR_OK);	/* caller decides */
	}
	if (*ai > 27) {
		jh_errf(e, "reserved additional information %d at offset %zu",
		    *ai, at);
		return (JH_CBOR_INVALID);
	}
	k = 1 << (*ai - 24);
	if (n - at - 1 < (size_t)k)
		return (JH_CBOR_TRUNCATED);
	*val = be(p + at + 1, k);
	*pos = at + 1 + (size_t)k;
	if (strict && *major != 7) {
		static const uint64_t min[4] = { 24, 0x100, 0x10000,
		    0x100000000ULL };
		if (*val < min[*ai - 24]) {
			jh_errf(e, "non-shortest integer or length head at "
			    "offset %zu", at);
			return (JH_CBOR_INVALID);
		}
	}
	return (JH_CBOR_OK);
}

static int
keycmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return (c);
	return (an < bn ? -1 : an > bn ? 1 : 0);
}

static int	dec_item(struct dec *d, size_t *pos, struct jh_cbor *out,
		    int depth);

/*
 * An array (major 4) or map (major 5) of val entries, decoded into the
 * arena; a map's keys must be in canonical order, each once.
 */
static int
dec_container(struct dec *d, size_t *pos, struct jh_cbor *out, int major,
    uint64_t val, int depth)
{
	const struct jh_cbor *pk, *k;
	size_t items, i;
	int r, c;

	/* Every item takes at least one byte. */
	if (val > d->n - *pos || (major == 5 && val > (d->n - *pos) / 2))
		return (JH_CBOR_TRUNCATED);
	items = major == 4 ? (size_t)val : 2 * (size_t)val;
	out->type = major == 4 ? JH_CBOR_ARRAY : JH_CBOR_MAP;
	out->len = (size_t)val;
	if (items > 0 && (out->v = jh_arena_alloc(d->a,
	    items * sizeof(*out->v))) == NULL) {
		jh_errf(d->e, "out of memory");
		return (JH_CBOR_INVALID);
	}
	for (i = 0; i < items; i++) {
		if ((r = dec_item(d, pos, &out->v[i], depth + 1)) != 0)
			return (r);
		if (major != 5 || i % 2 != 0 || i < 2)
			continue;
		pk = &out->v[i - 2];
		k = &out->v[i];
		c = keycmp(d->p + pk->off, pk->end - pk->off, d->p + k->off,
		    k->end - k->off);
		if (c == 0) {
			jh_errf(d->e, "duplicate map key at offset %zu",
			    k->off);
			return (JH_CBOR_INVALID);
		}
		if (c > 0) {
			jh_errf(d->e, "map keys not in canonical order at "
			    "offset %zu", k->off);
			return (JH_CBOR_INVALID);
		}
	}
	return (JH_CBOR_OK);
}

/*
 * A float (additional information ai 25, 26 or 27) from at to *pos,
 * where floats are allowed: in the shortest form that keeps its value,
 * one NaN, which re-encoding it must give back byte for byte.
 */
static int
dec_float(struct dec *d, size_t at, size_t *pos, struct jh_cbor *out, int ai,
    uint64_t val)
{
	struct jh_buf t;
	double f;
	float g;
	uint32_t w;
	int same;

	if (!(d->flags & JH_CBOR_ALLOW_FLOAT)) {
		jh_errf(d->e, "float at offset %zu", at);
		return (JH_CBOR_INVALID);
	}
	if (ai == 25)
		f = half_to_double((uint16_t)val);
	else if (ai == 26) {
		w = (uint32_t)val;
		memcpy(&g, &w, 4);
		f = g;
	} else
		memcpy(&f, &val, 8);
	jh_buf_init(&t);
	jh_cbor_put_float(&t, f);
	same = !t.oom && t.len == *pos - at &&
	    memcmp(t.p, d->p + at, t.len) == 0;
	jh_buf_free(&t);
	if (!same) {
		jh_errf(d->e, "float not in shortest form at offset %zu", at);
		return (JH_CBOR_INVALID);
	}
	out->type = JH_CBOR_FLOAT;
	out->f = f;
	return (JH_CBOR_OK);
}

static int
dec_item(struct dec *d, size_t *pos, struct jh_cbor *out, int depth)
{
	size_t at = *pos;
	int major, ai, r;
	uint64_t val;

	if (depth > JH_MAX_DEPTH) {
		jh_errf(d->e, "nesting deeper than %d at offset %zu",
		    JH_MAX_DEPTH, at);
		return (JH_CBOR_INVALID);
	}
	if ((r = head(d->p, d->n, pos, &major, &ai, &val, 1, d->e)) != 0)
		return (r);
	memset(out, 0, sizeof(*out));
	out->off = at;
	if (ai == 31) {
		if (major == 7)
			jh_errf(d->e, "unexpected break at offset %zu", at);
		else if (major >= 2 && major <= 5)
			jh_errf(d->e, "indefinite length at offset %zu", at);
		else
			jh_errf(d->e, "reserved additional information 31 at "
			    "offset %zu", at);
		return (JH_CBOR_INVALID);
	}
	switch (major) {
	case 0:
	case 1:
		out->type = major == 0 ? JH_CBOR_UINT : JH_CBOR_NINT;
		out->u = val;
		break;
	case 2:
	case 3:
		if (val > JH_MAX_RECORD) {
			jh_errf(d->e, "string of %llu bytes at offset %zu is "
			    "over the limit", (unsigned long long)val, at);
			return (JH_CBOR_INVALID);
		}
		if (d->n - *pos < val)
			return (JH_CBOR_TRUNCATED);
		out->type = major == 2 ? JH_CBOR_BYTES : JH_CBOR_TEXT;
		out->p = d->p + *pos;
		out->len = (size_t)val;
		*pos += (size_t)val;
		if (major == 3 && !utf8_valid(out->p, out->len)) {
			jh_errf(d->e, "invalid UTF-8 in text at offset %zu",
			    at);
			return (JH_CBOR_INVALID);
		}
		break;
	case 4:
	case 5:
		if ((r = dec_container(d, pos, out, major, val, depth)) != 0)
			return (r);
		break;
	case 6:
		if (!(d->flags & JH_CBOR_ALLOW_TAG) || depth != 0) {
			jh_errf(d->e, "unexpected tag %llu at offset %zu",
			    (unsigned long long)val, at);
			return (JH_CBOR_INVALID);
		}
		out->type = JH_CBOR_TAG;
		out->u = val;
		out->len = 1;
		if ((out->v = jh_arena_alloc(d->a, sizeof(*out->v))) == NULL) {
			jh_errf(d->e, "out of memory");
			return (JH_CBOR_INVALID);
		}
		if ((r = dec_item(d, pos, out->v, depth + 1)) != 0)
			return (r);
		break;
	case 7:
		if (ai >= 25) {
			if ((r = dec_float(d, at, pos, out, ai, val)) != 0)
				return (r);
			break;
		}
		if (ai == 24 || val < JH_SIMPLE_FALSE || val > JH_SIMPLE_NULL) {
			jh_errf(d->e, "simple value %llu at offset %zu",
			    (unsigned long long)val, at);
			return (JH_CBOR_INVALID);
		}
		if (!(d->flags & JH_CBOR_ALLOW_SIMPLE)) {
			jh_errf(d->e, "%s at offset %zu",
			    val == JH_SIMPLE_NULL ? "null" : "boolean", at);
			return (JH_CBOR_INVALID);
		}
		out->type = JH_CBOR_SIMPLE;
		out->u = val;
		break;
	}
	out->end = *pos;
	return (JH_CBOR_OK);
}

/*
 * Decodes one item from the front of p; *used receives its length.
 */
int
jh_cbor_decode(struct jh_cbor **out, size_t *used, struct jh_arena *a,
    const uint8_t *p, size_t n, int flags, struct jh_err *e)
{
	struct dec d = { p, n, a, flags, e };
	struct jh_cbor *v;
	size_t pos = 0;
	int r;

	if ((v = jh_arena_alloc(a, sizeof(*v))) == NULL)
		return (jh_errf(e, "out of memory"));
	if ((r = dec_item(&d, &pos, v, 0)) != 0) {
		if (r == JH_CBOR_TRUNCATED)
			jh_errf(e, "truncated item (input ends at offset %zu)",
			    n);
		return (r);
	}
	*out = v;
	*used = pos;
	return (JH_CBOR_OK);
}

/* Decodes exactly one item filling all of p. */
int
jh_cbor_decode_all(struct jh_cbor **out, struct jh_arena *a,
    const uint8_t *p, size_t n, int flags, struct jh_err *e)
{
	size_t used = 0;
	int r;

	if ((r = jh_cbor_decode(out, &used, a, p, n, flags, e)) != 0)
		return (r);
	if (used != n) {
		jh_errf(e, "trailing bytes at offset %zu", used);
		return (JH_CBOR_INVALID);
	}
	return (JH_CBOR_OK);
}

/*
 * Finds where the well-formed (not necessarily canonical) item at the
 * front of p ends, so a sequence can be split and a defective item still
 * reported on its own.  Returns JH_CBOR_TRUNCATED for an incomplete item.
 */
static int
wf_len(const uint8_t *p, size_t n, size_t *pos, int depth, int inbreak,
    struct jh_err *e)
{
	int major, ai, r;
	uint64_t val, i;

	if (depth > JH_MAX_DEPTH) {
		jh_errf(e, "nesting deeper than %d", JH_MAX_DEPTH);
		return (JH_CBOR_INVALID);
	}
	if ((r = head(p, n, pos, &major, &ai, &val, 0, e)) != 0)
		return (r);
	if (ai == 31) {
		if (major == 7)
			return (inbreak ? 1 : (jh_errf(e, "unexpected break"),
			    JH_CBOR_INVALID));
		if (major < 2 || major > 5)
			return (jh_errf(e, "reserved additional information"),
			    JH_CBOR_INVALID);
		for (;;) {
			r = wf_len(p, n, pos, depth + 1, 1, e);
			if (r == 1)
				return (JH_CBOR_OK);
			if (r != 0)
				return (r);
			if (major == 5) {
				r = wf_len(p, n, pos, depth + 1, 0, e);
				if (r != 0)
					return (r);
			}
		}
	}
	switch (major) {
	case 2:
	case 3:
		if (n - *pos < val)
			return (JH_CBOR_TRUNCATED);
		*pos += (size_t)val;
		break;
	case 4:
	case 5:
		if (major == 5) {
			if (val > UINT64_MAX / 2)
				return (JH_CBOR_TRUNCATED);
			val *= 2;
		}
		if (val > n - *pos)
			return (JH_CBOR_TRUNCATED);
		for (i = 0; i < val; i++)
			if ((r = wf_len(p, n, pos, depth + 1, 0, e)) != 0)
				return (r);
		break;
	case 6:
		return (wf_len(p, n, pos, depth + 1, 0, e));
	default:
		break;
	}
	return (JH_CBOR_OK);
}

int
jh_cbor_item_len(size_t *len, const uint8_t *p, size_t n, struct jh_err *e)
{
	size_t pos = 0;
	int r;

	if ((r = wf_len(p, n, &pos, 0, 0, e)) != 0) {
		if (r == 1) {
			jh_errf(e, "unexpected break at offset 0");
			r = JH_CBOR_INVALID;
		}
		return (r);
	}
	*len = pos;
	return (JH_CBOR_OK);
}

int
jh_cbor_text_is(const struct jh_cbor *v, const char *s)
{
	size_t n = strlen(s);

	return (v != NULL && v->type == JH_CBOR_TEXT && v->len == n &&
	    memcmp(v->p, s, n) == 0);
}

const struct jh_cbor *
jh_cbor_get(const struct jh_cbor *m, const char *key)
{
	size_t i;

	if (m == NULL || m->type != JH_CBOR_MAP)
		return (NULL);
	for (i = 0; i < m->len; i++)
		if (jh_cbor_text_is(&m->v[2 * i], key))
			return (&m->v[2 * i + 1]);
	return (NULL);
}

/*
 * A core holds integers, text, byte strings, arrays and maps with text
 * keys only (JCR-1).  The decoder already refused floats and simple
 * values unless asked; this names the field.
 */
static int
core_walk(const struct jh_cbor *v, char *path, size_t plen, size_t psz,
    struct jh_err *e)
{
	size_t i;
	int n;

	switch (v->type) {
	case JH_CBOR_FLOAT:
		return (jh_errf(e, "float in core: field %s", path));
	case JH_CBOR_SIMPLE:
		return (jh_errf(e, "%s in core: field %s",
		    v->u == JH_SIMPLE_NULL ? "null" : "boolean", path));
	case JH_CBOR_TAG:
		return (jh_errf(e, "tag in core: field %s", path));
	case JH_CBOR_ARRAY:
		for (i = 0; i < v->len; i++) {
			n = snprintf(path + plen, psz - plen, "[%zu]", i);
			if (n < 0 || (size_t)n >= psz - plen)
				n = 0;
			if (core_walk(&v->v[i], path, plen + (size_t)n, psz,
			    e) == -1)
				return (-1);
			path[plen] = '\0';
		}
		break;
	case JH_CBOR_MAP:
		for (i = 0; i < v->len; i++) {
			const struct jh_cbor *k = &v->v[2 * i];
			if (k->type != JH_CBOR_TEXT)
				return (jh_errf(e, "non-text map key in core: "
				    "field %s", plen ? path : "(top)"));
			n = snprintf(path + plen, psz - plen, "%s%.*s",
			    plen ? "." : "", (int)(k->len > 64 ? 64 : k->len),
			    (const char *)k->p);
			if (n < 0 || (size_t)n >= psz - plen)
				n = 0;
			if (core_walk(&v->v[2 * i + 1], path, plen + (size_t)n,
			    psz, e) == -1)
				return (-1);
			path[plen] = '\0';
		}
		break;
	default:
		break;
	}
	return (0);
}

int
jh_cbor_core_check(const struct jh_cbor *v, struct jh_err *e)
{
	char path[512];

	path[0] = '\0';
	if (v->type != JH_CBOR_MAP)
		return (jh_errf(e, "core is not a map"));
	return (core_walk(v, path, 0, sizeof(path), e));
}

/* The canonical writer. */

void
jh_cbor_head(struct jh_buf *b, int major, uint64_t v)
{
	uint8_t h[9];
	size_t n;
	int i;

	h[0] = (uint8_t)(major << 5);
	if (v < 24) {
		h[0] |= (uint8_t)v;
		n = 1;
	} else if (v <= 0xff) {
		h[0] |= 24;
		n = 2;
	} else if (v <= 0xffff) {
		h[0] |= 25;
		n = 3;
	} else if (v <= 0xffffffffULL) {
		h[0] |= 26;
		n = 5;
	} else {
		h[0] |= 27;
		n = 9;
	}
	for (i = (int)n - 1; i >= 1; i--) {
		h[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
	jh_buf_add(b, h, n);
}

void
jh_cbor_put_uint(struct jh_buf *b, uint64_t v)
{
	jh_cbor_head(b, 0, v);
}

void
jh_cbor_put_int(struct jh_buf *b, int64_t v)
{
	if (v >= 0)
		jh_cbor_head(b, 0, (uint64_t)v);
	else
		jh_cbor_head(b, 1, (uint64_t)(-(v + 1)));
}

void
jh_cbor_put_bytes(struct jh_buf *b, const void *p, size_t n)
{
	jh_cbor_head(b, 2, n);
	jh_buf_add(b, p, n);
}

void
jh_cbor_put_text(struct jh_buf *b, const char *p, size_t n)
{
	jh_cbor_head(b, 3, n);
	jh_buf_add(b, p, n);
}

/*
 * The half-precision bits of d when d is exactly representable, else -1.
 * Our own: libcbor 0.8's cbor_encode_half drops the low bits of
 * subnormals (tests/libcbor-regress.c).
 */
static int
double_to_half(double d, uint16_t *h)
{
	uint16_t s = signbit(d) ? 0x8000 : 0;
	double a = fabs(d), m, f;
	int e;

	if (isinf(d)) {
		*h = s | 0x7c00;
		return (0);
	}
	if (a == 0) {
		*h = s;
		return (0);
	}
	m = frexp(a, &e);		/* a = m * 2^e, m in [0.5, 1) */
	if (e - 1 >= -14) {		/* normal: (1 + f/1024) * 2^(E-15) */
		int E = e - 1 + 15;
		if (E > 30)
			return (-1);
		f = (m * 2 - 1) * 1024;
		if (f != floor(f))
			return (-1);
		*h = (uint16_t)(s | E << 10 | (int)f);
		return (0);
	}
	f = ldexp(a, 24);		/* subnormal: f * 2^-24 */
	if (f != floor(f) || f >= 1024)
		return (-1);
	*h = (uint16_t)(s | (int)f);
	return (0);
}

/*
 * Floats in the shortest form that preserves the value (RFC 8949
 * 4.2.1), NaN as f97e00.  libcbor writes single and double heads.
 */
void
jh_cbor_put_float(struct jh_buf *b, double d)
{
	unsigned char t[9];
	uint16_t h;
	float f;
	int i;

	if (isnan(d)) {
		jh_buf_add(b, "\xf9\x7e\x00", 3);
		return;
	}
	if (double_to_half(d, &h) == 0) {
		t[0] = 0xf9;
		t[1] = (unsigned char)(h >> 8);
		t[2] = (unsigned char)(h & 0xff);
		jh_buf_add(b, t, 3);
		return;
	}
	f = (float)d;
	if (same_double((double)f, d)) {
		uint32_t w;
		memcpy(&w, &f, 4);
		t[0] = 0xfa;
		for (i = 0; i < 4; i++)
			t[1 + i] = (unsigned char)(w >> (24 - 8 * i));
		jh_buf_add(b, t, 5);
		return;
	}
	{
		uint64_t w;
		memcpy(&w, &d, 8);
		t[0] = 0xfb;
		for (i = 0; i < 8; i++)
			t[1 + i] = (unsigned char)(w >> (56 - 8 * i));
		jh_buf_add(b, t, 9);
	}
}

void
jh_cmap_init(struct jh_cmap *m)
{
	memset(m, 0, sizeof(*m));
	jh_buf_init(&m->scratch);
}

void
jh_cmap_free(struct jh_cmap *m)
{
	jh_buf_free(&m->scratch);
	free(m->ent);
	memset(m, 0, sizeof(*m));
}

static void
cmap_start(struct jh_cmap *m)
{
	size_t *ne;

	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		if ((ne = realloc(m->ent, nc * 3 * sizeof(size_t))) == NULL) {
			m->oom = 1;
			return;
		}
		m->ent = ne;
		m->cap = nc;
	}
	m->cur = m->scratch.len;
}

static void
cmap_keyend(struct jh_cmap *m)
{
	if (m->oom)
		return;
	m->ent[3 * m->n] = m->cur;
	m->ent[3 * m->n + 1] = m->scratch.len;
}

struct jh_buf *
jh_cmap_tkey(struct jh_cmap *m, const char *k, size_t n)
{
	cmap_start(m);
	jh_cbor_put_text(&m->scratch, k, n);
	cmap_keyend(m);
	return (&m->scratch);
}

struct jh_buf *
jh_cmap_ikey(struct jh_cmap *m, int64_t k)
{
	cmap_start(m);
	jh_cbor_put_int(&m->scratch, k);
	cmap_keyend(m);
	return (&m->scratch);
}

void
jh_cmap_next(struct jh_cmap *m)
{
	if (m->oom)
		return;
	m->ent[3 * m->n + 2] = m->scratch.len;
	m->n++;
}

static int
ent_cmp(const uint8_t *base, const size_t *a, const size_t *b)
{
	return (keycmp(base + a[0], a[1] - a[0], base + b[0], b[1] - b[0]));
}

/* A stable merge sort of entry triples by key bytes. */
static void
ent_sort(const uint8_t *base, size_t *v, size_t *tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	ent_sort(base, v, tmp, mid);
	ent_sort(base, v + 3 * mid, tmp, n - mid);
	i = 0;
	j = mid;
	k = 0;
	while (i < mid || j < n) {
		size_t *src;
		if (j >= n || (i < mid && ent_cmp(base, v + 3 * i,
		    v + 3 * j) <= 0))
			src = v + 3 * i++;
		else
			src = v + 3 * j++;
		memcpy(tmp + 3 * k++, src, 3 * sizeof(size_t));
	}
	memcpy(v, tmp, 3 * n * sizeof(size_t));
}

int
jh_cmap_finish(struct jh_buf *out, struct jh_cmap *m, struct jh_err *e)
{
	size_t *tmp = NULL, i;

	if (m->oom || m->scratch.oom)
		return (jh_errf(e, "out of memory"));
	if (m->n > 1) {
		if ((tmp = malloc(3 * m->n * sizeof(size_t))) == NULL)
			return (jh_errf(e, "out of memory"));
		ent_sort(m->scratch.p, m->ent, tmp, m->n);
		free(tmp);
		for (i = 1; i < m->n; i++)
			if (ent_cmp(m->scratch.p, m->ent + 3 * (i - 1),
			    m->ent + 3 * i) == 0) {
				size_t *k = m->ent + 3 * i;
				return (jh_errf(e, "duplicate map key %.*s",
				    (int)(k[1] - k[0] > 64 ? 64 : k[1] - k[0]),
				    (const char *)m->scratch.p + k[0]));
			}
	}
	jh_cbor_head(out, 5, m->n);
	for (i = 0; i < m->n; i++)
		jh_buf_add(out, m->scratch.p + m->ent[3 * i],
		    m->ent[3 * i + 2] - m->ent[3 * i]);
	if (out->oom)
		return (jh_errf(e, "out of memory"));
	return (0);
}

/* Re-encodes a decoded tree canonically. */
int
jh_cbor_encode(struct jh_buf *b, const struct jh_cbor *v, struct jh_err *e)
{
	struct jh_cmap m;
	size_t i;
	int r;

	switch (v->type) {
	case JH_CBOR_UINT:
		jh_cbor_head(b, 0, v->u);
		break;
	case JH_CBOR_NINT:
		jh_cbor_head(b, 1, v->u);
		break;
	case JH_CBOR_BYTES:
		jh_cbor_put_bytes(b, v->p, v->len);
		break;
	case JH_CBOR_TEXT:
		jh_cbor_put_text(b, (const char *)v->p, v->len);
		break;
	case JH_CBOR_ARRAY:
		jh_cbor_head(b, 4, v->len);
		for (i = 0; i < v->len; i++)
			if (jh_cbor_encode(b, &v->v[i], e) == -1)
				return (-1);
		break;
	case JH_CBOR_MAP:
		jh_cmap_init(&m);
		for (i = 0; i < v->len; i++) {
			cmap_start(&m);
			if (jh_cbor_encode(&m.scratch, &v->v[2 * i], e) == -1)
				goto fail;
			cmap_keyend(&m);
			if (jh_cbor_encode(&m.scratch, &v->v[2 * i + 1], e) == -1)
				goto fail;
			jh_cmap_next(&m);
		}
		r = jh_cmap_finish(b, &m, e);
		jh_cmap_free(&m);
		if (r == -1)
			return (-1);
		break;
	fail:
		jh_cmap_free(&m);
		return (-1);
	case JH_CBOR_TAG:
		jh_cbor_head(b, 6, v->u);
		return (jh_cbor_encode(b, v->v, e));
	case JH_CBOR_SIMPLE:
		jh_buf_addc(b, (uint8_t)(0xe0 | v->u));
		break;
	case JH_CBOR_FLOAT:
		jh_cbor_put_float(b, v->f);
		break;
	}
	if (b->oom)
		return (jh_errf(e, "out of memory"));
	return (0);
}
