/*
 * joulehook: byte buffers, hex and base58btc, and a bump arena (buf.c).
 *
 * A struct jh_buf grows as it is appended to; a failed allocation sets
 * its sticky oom flag instead of returning an error from every append,
 * so a writer checks once, at the end.  The arena holds the trees the
 * CBOR decoder builds (cbor.h), freed all at once.  These are the
 * plumbing of every format in joulehook-formats(5) and have no man page
 * of their own.
 */
#ifndef JH_BUF_H
#define JH_BUF_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer. */
struct jh_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
	int oom;		/* sticky: set when an append failed */
};

void	jh_buf_init(struct jh_buf *b);
void	jh_buf_free(struct jh_buf *b);
void	jh_buf_reset(struct jh_buf *b);
int	jh_buf_reserve(struct jh_buf *b, size_t n);
void	jh_buf_add(struct jh_buf *b, const void *p, size_t n);
void	jh_buf_add_max(struct jh_buf *b, const void *p, size_t n, size_t max,
	    int *over);
void	jh_buf_addc(struct jh_buf *b, uint8_t c);
void	jh_buf_adds(struct jh_buf *b, const char *s);
void	jh_buf_addf(struct jh_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char	*jh_buf_cstr(struct jh_buf *b);	/* NUL-terminates; NULL on oom */

void	jh_hex(char *out, const uint8_t *p, size_t n);	/* out: 2n+1 */
int	jh_unhex(uint8_t *out, size_t outlen, const char *s, size_t slen);
int	jh_b58enc(char *out, size_t outsz, const uint8_t *p, size_t n);
int	jh_b58dec(uint8_t *out, size_t *outlen, const char *s, size_t n);

/* Bump allocation for decoded trees. */
struct jh_arena_blk;
struct jh_arena {
	struct jh_arena_blk *head;
};
void	jh_arena_init(struct jh_arena *a);
void	*jh_arena_alloc(struct jh_arena *a, size_t n);
void	jh_arena_reset(struct jh_arena *a);
void	jh_arena_free(struct jh_arena *a);

#endif /* JH_BUF_H */
