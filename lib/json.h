/*
 * joulehook: JSON (through jansson) to canonical CBOR and back, the
 * input_digest of a tool input, and sha256: ids (json.c).
 *
 * The JSON-to-CBOR mapping is part of the input_digest contract third
 * parties recompute: joulehook-formats(5), "input_digest and the
 * JSON-to-CBOR mapping" and "Identifiers".
 */
#ifndef JH_JSON_H
#define JH_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct jh_buf;
struct jh_cbor;
struct jh_err;

#define JH_JSON_CORE	0	/* cores: no floats, bools or nulls */
#define JH_JSON_DIGEST	1	/* input_digest profile */

/* Strict JSON: a repeated key refused, U+0000 kept (input_digest). */
json_t	*jh_json_parse(const char *s, size_t n, struct jh_err *e);
/* A provider's JSON as it reads it (*reals: integers past int64 seen). */
json_t	*jh_json_load_wire(const void *p, size_t n, int *reals);
/* A large object's top-level members, those over max bytes left null. */
json_t	*jh_json_load_members(const char *p, size_t n, size_t max, int *reals,
	    json_t *left);
/* Where key's value is written in the object p[0..n): 1, 0 absent, -1. */
int	jh_json_span(const char *p, size_t n, const char *key, size_t *vs,
	    size_t *ve);
/* Each \u escape of a lone surrogate made \ufffd in place; how many. */
size_t	jh_json_lone_surrogates(char *s, size_t n);

/* JSON to canonical CBOR in a profile; one field of a core, by name. */
int	jh_json_to_cbor(struct jh_buf *b, const json_t *j, int profile,
	    struct jh_err *e);
int	jh_json_field_to_cbor(struct jh_buf *b, const json_t *j,
	    const char *name, size_t namelen, struct jh_err *e);
/* "sha256:" and the hex SHA-256 of the input's canonical CBOR. */
int	jh_input_digest(char *out, const json_t *input, struct jh_err *e);
/* Decoded CBOR as JSON text (bytes as hex); a JSON string of s[0..n). */
int	jh_cbor_to_json(struct jh_buf *b, const struct jh_cbor *v);
void	jh_json_str(struct jh_buf *b, const char *s, size_t n);

/*
 * A count as JSON writers write one: an integer, a decimal string or an
 * integral real, 0 to max.  0, or -1 for anything else.
 */
int	jh_json_count(uint64_t *out, const json_t *v, uint64_t max);

/* "sha256:" and the hex of SHA-256(p[0..n)), or of the hash h: JH_ID_LEN */
int	jh_sha256_id(char *out, const uint8_t *p, size_t n);
void	jh_id_text(char *out, const uint8_t *h);

#endif /* JH_JSON_H */
