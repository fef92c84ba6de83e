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

/*
 * Whether p[1..n) holds a whole envelope of kind whose signature checks
 * (against its own kid: no trust is asked).  A log's partial last item
 * is a torn append only where it holds no chain entry: an entry never
 * holds another, while a length altered in a complete entry hides the
 * entries after it in what looks like a torn tail.  More than
 * JH_ENV_SCAN candidates is taken as a yes.
 */
#define JH_ENV_SCAN	4096
int	jh_env_within(const uint8_t *p, size_t n, const char *kind);

/*
 * The envelopes one process sealed itself, to hand on to its own later
 * checks (the fused hook: seal, chain, reply): an envelope whose bytes
 * are exactly one of these carries a signature this process made with a
 * key whose public half was checked against its secret when it was
 * loaded, so checking it again cannot fail.  Every other check of the
 * envelope (its kid trusted for its role, its kind's fields) still runs.
 * The set keeps a copy of each; one it has no room or memory for is
 * checked in full.  Zeroed to start, jh_sealed_free to end.
 */
#define JH_SEALED_MAX	4
struct jh_sealed {
	size_t n;
	uint8_t *p[JH_SEALED_MAX];
	size_t len[JH_SEALED_MAX];
};
void	jh_sealed_add(struct jh_sealed *s, const uint8_t *p, size_t len);
void	jh_sealed_free(struct jh_sealed *s);
/*
 * jh_env_verify_sig, skipped where the envelope's bytes p[0..n) are one
 * of own's (own may be NULL: every signature is checked).
 */
int	jh_env_check_sig(const struct jh_env *env, const struct jh_sealed *own,
	    const uint8_t *p, size_t n, struct jh_err *e);

#endif /* JH_COSE_H */
