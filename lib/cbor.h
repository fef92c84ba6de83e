/*
 * joulehook: strict deterministic CBOR (cbor.c).
 *
 * The decoder accepts exactly RFC 8949 section 4.2.1 core deterministic
 * encoding and refuses anything else; the writer emits only that
 * encoding, and struct jh_cmap sorts a map's keys as it must.
 * Everything joulehook signs or verifies passes through here; the
 * contract is joulehook-formats(5), "Deterministic CBOR".
 */
#ifndef JH_CBOR_H
#define JH_CBOR_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct jh_err;

enum jh_cbor_type {
	JH_CBOR_UINT,
	JH_CBOR_NINT,
	JH_CBOR_BYTES,
	JH_CBOR_TEXT,
	JH_CBOR_ARRAY,
	JH_CBOR_MAP,
	JH_CBOR_TAG,
	JH_CBOR_SIMPLE,		/* false (20), true (21), null (22) */
	JH_CBOR_FLOAT
};

#define JH_SIMPLE_FALSE	20
#define JH_SIMPLE_TRUE	21
#define JH_SIMPLE_NULL	22

struct jh_cbor {
	enum jh_cbor_type type;
	uint64_t u;		/* uint; nint is -1-u; tag number; simple */
	double f;
	const uint8_t *p;	/* bytes/text content */
	size_t len;		/* bytes/text length; array items; map pairs */
	struct jh_cbor *v;	/* array items, or map key,value pairs; tag */
	size_t off;		/* raw range of the whole item in the input */
	size_t end;
};

/* Decoder flags. */
#define JH_CBOR_ALLOW_TAG	0x01	/* a tag is accepted (envelopes) */
#define JH_CBOR_ALLOW_FLOAT	0x02	/* floats (input_digest profile) */
#define JH_CBOR_ALLOW_SIMPLE	0x04	/* false/true/null (same) */

/* Decode results. */
#define JH_CBOR_OK		0
#define JH_CBOR_INVALID		(-1)	/* complete but not acceptable */
#define JH_CBOR_TRUNCATED	(-2)	/* input ended inside the item */

/*
 * Decodes one item from the front of p[0..n) (*used: its length), or
 * exactly one item filling all of it: JH_CBOR_OK, or a result above.
 */
int	jh_cbor_decode(struct jh_cbor **out, size_t *used, struct jh_arena *a,
	    const uint8_t *p, size_t n, int flags, struct jh_err *e);
int	jh_cbor_decode_all(struct jh_cbor **out, struct jh_arena *a,
	    const uint8_t *p, size_t n, int flags, struct jh_err *e);
/* The length of the well-formed item at the front of p, not decoded. */
int	jh_cbor_item_len(size_t *len, const uint8_t *p, size_t n,
	    struct jh_err *e);
/* A map's value at a text key, or NULL; whether v is the text s. */
const struct jh_cbor *jh_cbor_get(const struct jh_cbor *m, const char *key);
int	jh_cbor_text_is(const struct jh_cbor *v, const char *s);
/* A core: a map of integers, text, bytes, arrays and text-keyed maps. */
int	jh_cbor_core_check(const struct jh_cbor *v, struct jh_err *e);

/* Canonical writer. */
void	jh_cbor_head(struct jh_buf *b, int major, uint64_t v);
void	jh_cbor_put_uint(struct jh_buf *b, uint64_t v);
void	jh_cbor_put_int(struct jh_buf *b, int64_t v);
void	jh_cbor_put_bytes(struct jh_buf *b, const void *p, size_t n);
void	jh_cbor_put_text(struct jh_buf *b, const char *p, size_t n);
void	jh_cbor_put_float(struct jh_buf *b, double d);
/* A decoded tree re-encoded canonically. */
int	jh_cbor_encode(struct jh_buf *b, const struct jh_cbor *v,
	    struct jh_err *e);

/*
 * A canonical map writer: add pairs in any order, then finish; keys are
 * sorted by their encoded bytes and duplicates refused.
 */
struct jh_cmap {
	struct jh_buf scratch;
	size_t *ent;		/* per pair: key start, key end, pair end */
	size_t cur;		/* key start of the pair being written */
	size_t n;
	size_t cap;
	int oom;
};
void	jh_cmap_init(struct jh_cmap *m);
void	jh_cmap_free(struct jh_cmap *m);
struct jh_buf *jh_cmap_tkey(struct jh_cmap *m, const char *k, size_t n);
struct jh_buf *jh_cmap_ikey(struct jh_cmap *m, int64_t k);
void	jh_cmap_next(struct jh_cmap *m);		/* value written */
int	jh_cmap_finish(struct jh_buf *out, struct jh_cmap *m,
	    struct jh_err *e);

#endif /* JH_CBOR_H */
