/*
 * joulehook: byte buffers, hex, base58btc, errors and a bump arena.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jh.h"
#include "buf.h"

int
jh_errf(struct jh_err *e, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return (-1);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return (-1);
}

void
jh_buf_init(struct jh_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void
jh_buf_free(struct jh_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void
jh_buf_reset(struct jh_buf *b)
{
	b->len = 0;
	b->oom = 0;
}

int
jh_buf_reserve(struct jh_buf *b, size_t n)
{
	size_t ncap;
	uint8_t *np;

	if (b->oom)
		return (-1);
	if (n <= b->cap - b->len)
		return (0);
	if (n > SIZE_MAX / 2 - b->len) {
		b->oom = 1;
		return (-1);
	}
	ncap = b->cap ? b->cap : 256;
	while (ncap - b->len < n)
		ncap *= 2;
	if ((np = realloc(b->p, ncap)) == NULL) {
		b->oom = 1;
		return (-1);
	}
	b->p = np;
	b->cap = ncap;
	return (0);
}

void
jh_buf_add(struct jh_buf *b, const void *p, size_t n)
{
	if (n == 0 || jh_buf_reserve(b, n) == -1)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/*
 * A request body read in pieces, up to max bytes: past it the buffer is
 * dropped and *over set, and later pieces are ignored.
 */
void
jh_buf_add_max(struct jh_buf *b, const void *p, size_t n, size_t max,
    int *over)
{
	if (*over)
		return;
	if (b->len + n > max) {
		*over = 1;
		jh_buf_free(b);
		jh_buf_init(b);
		return;
	}
	jh_buf_add(b, p, n);
}

void
jh_buf_addc(struct jh_buf *b, uint8_t c)
{
	if (jh_buf_reserve(b, 1) == -1)
		return;
	b->p[b->len++] = c;
}

void
jh_buf_adds(struct jh_buf *b, const char *s)
{
	jh_buf_add(b, s, strlen(s));
}

void
jh_buf_addf(struct jh_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || jh_buf_reserve(b, (size_t)n + 1) == -1)
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
jh_buf_cstr(struct jh_buf *b)
{
	if (jh_buf_reserve(b, 1) == -1)
		return (NULL);
	b->p[b->len] = '\0';
	return ((char *)b->p);
}

void
jh_hex(char *out, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* Decodes exactly outlen bytes from exactly 2*outlen hex digits. */
int
jh_unhex(uint8_t *out, size_t outlen, const char *s, size_t slen)
{
	size_t i;
	int hi, lo;

	if (slen != 2 * outlen)
		return (-1);
	for (i = 0; i < outlen; i++) {
		if ((hi = hexval((unsigned char)s[2 * i])) < 0 ||
		    (lo = hexval((unsigned char)s[2 * i + 1])) < 0)
			return (-1);
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (0);
}

static const char b58[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/* Base58btc (Bitcoin alphabet), quadratic but only used on 34 bytes. */
int
jh_b58enc(char *out, size_t outsz, const uint8_t *p, size_t n)
{
	uint8_t tmp[128];
	size_t zeros = 0, len = 0, i, j, o;

	if (n > 64)
		return (-1);
	while (zeros < n && p[zeros] == 0)
		zeros++;
	memset(tmp, 0, sizeof(tmp));
	for (i = zeros; i < n; i++) {
		unsigned carry = p[i];
		for (j = 0; j < len || carry; j++) {
			if (j >= sizeof(tmp))
				return (-1);
			carry += 256u * tmp[j];
			tmp[j] = (uint8_t)(carry % 58);
			carry /= 58;
		}
		len = j;
	}
	if (zeros + len + 1 > outsz)
		return (-1);
	o = 0;
	for (i = 0; i < zeros; i++)
		out[o++] = '1';
	for (i = 0; i < len; i++)
		out[o++] = b58[tmp[len - 1 - i]];
	out[o] = '\0';
	return (0);
}

int
jh_b58dec(uint8_t *out, size_t *outlen, const char *s, size_t n)
{
	uint8_t tmp[128];
	size_t zeros = 0, len = 0, i, j, o;
	const char *q;

	if (n > 120)
		return (-1);
	while (zeros < n && s[zeros] == '1')
		zeros++;
	memset(tmp, 0, sizeof(tmp));
	for (i = zeros; i < n; i++) {
		unsigned carry;
		if (s[i] == '\0' || (q = strchr(b58, s[i])) == NULL)
			return (-1);
		carry = (unsigned)(q - b58);
		for (j = 0; j < len || carry; j++) {
			if (j >= sizeof(tmp))
				return (-1);
			carry += 58u * tmp[j];
			tmp[j] = (uint8_t)(carry & 0xff);
			carry >>= 8;
		}
		len = j;
	}
	if (zeros + len > *outlen)
		return (-1);
	o = 0;
	for (i = 0; i < zeros; i++)
		out[o++] = 0;
	for (i = 0; i < len; i++)
		out[o++] = tmp[len - 1 - i];
	*outlen = o;
	return (0);
}

struct jh_arena_blk {
	struct jh_arena_blk *next;
	size_t used;
	size_t cap;
	max_align_t data[];
};

void
jh_arena_init(struct jh_arena *a)
{
	a->head = NULL;
}

void *
jh_arena_alloc(struct jh_arena *a, size_t n)
{
	struct jh_arena_blk *b = a->head;
	size_t cap;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (n == 0)
		n = sizeof(max_align_t);
	if (b == NULL || b->cap - b->used < n) {
		cap = n > 16384 ? n : 16384;
		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			return (NULL);
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	return (p);
}

/* Frees all but the newest block, which is kept for reuse. */
void
jh_arena_reset(struct jh_arena *a)
{
	struct jh_arena_blk *b, *n;

	if (a->head == NULL)
		return;
	for (b = a->head->next; b != NULL; b = n) {
		n = b->next;
		free(b);
	}
	a->head->next = NULL;
	a->head->used = 0;
}

void
jh_arena_free(struct jh_arena *a)
{
	struct jh_arena_blk *b, *n;

	for (b = a->head; b != NULL; b = n) {
		n = b->next;
		free(b);
	}
	a->head = NULL;
}
