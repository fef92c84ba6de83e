/*
 * joulehook: JCR-1 envelopes, COSE_Sign1 (RFC 9052) with Ed25519
 * (cose.c): sealing a payload, and taking a received envelope apart
 * and checking its signature over the exact bytes received.  The
 * contract is joulehook-formats(5), "The JCR-1 envelope".
 */
#ifndef JH_COSE_H
#define JH_COSE_H

#include <stddef.h>
#include <stdint.h>

#include "jh.h"

struct jh_arena;
struct jh_buf;
struct jh_cbor;
struct jh_key;

/* COSE (RFC 9052) labels and values used by the JCR-1 envelope. */
#define COSE_TAG_SIGN1	18
#define COSE_HDR_ALG	1
#define COSE_HDR_KID	4
#define COSE_ALG_EDDSA	(-8)
#define COSE_ALG_ED25519 (-19)		/* RFC 9864 fully specified */

/* Seals a canonical core (payload bytes) into an envelope appended to out. */
int	jh_seal(struct jh_buf *out, const struct jh_key *k,
	    const uint8_t *payload, size_t paylen, struct jh_err *e);

/* An envelope taken apart: its byte ranges point into what was parsed. */
struct jh_env {
	const uint8_t *protected_p;	/* exact received bytes */
	size_t protected_len;
	const uint8_t *payload_p;
	size_t payload_len;
	const uint8_t *sig;
	int64_t alg;
	uint8_t kid[JH_PK_LEN];
	struct jh_cbor *core;		/* decoded payload */
	const char *kind;		/* NUL-terminated, in the arena */
};
/*
 * jh_env_parse checks an envelope's shape, canonical form, protected
 * header and the core's data model, not its signature or whether its
 * kid is trusted; jh_env_verify_sig checks the signature alone.
 */
int	jh_env_parse(struct jh_env *env, struct jh_arena *a, const uint8_t *p,
	    size_t n, struct jh_err *e);
int	jh_env_verify_sig(const struct jh_env *env, struct jh_err *e);

#endif /* JH_COSE_H */
