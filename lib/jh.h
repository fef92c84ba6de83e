/*
 * joulehook: what every part of libjoulehook shares.
 *
 * Library functions return 0 on success and -1 on failure, writing a
 * one-line reason into a caller-supplied struct jh_err; they never print
 * and never exit.  Outputs come first in argument lists, inputs after.
 * Each module has its own header (lib/README is the map); this one holds
 * only the error convention and the limits and sizes every stage and
 * every format shares (joulehook-formats(5)).
 */
#ifndef JH_H
#define JH_H

#define JH_PROFILE	"joulehook/1"
#define JH_VERSION	"0.1.0"

/* Limits shared by every stage, so no stage refuses what another passed. */
#define JH_MAX_RECORD	(16u * 1024 * 1024)	/* one JSON line or CBOR item */
#define JH_MAX_DEPTH	64			/* CBOR/JSON nesting */

/* Ed25519 keys and signatures, SHA-256 hashes and the ids made of them. */
#define JH_PK_LEN	32
#define JH_SK_LEN	64
#define JH_SEED_LEN	32
#define JH_SIG_LEN	64
#define JH_HASH_LEN	32
#define JH_NONCE_LEN	8
#define JH_DIDKEY_MAX	64		/* "did:key:z6Mk" + 44 chars + NUL */
#define JH_ID_LEN	(7 + 64 + 1)	/* "sha256:" + hex + NUL */

struct jh_err {
	char msg[256];
};

/* buf.c: e's reason, printf-style (e may be NULL); returns -1. */
int	jh_errf(struct jh_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* JH_H */
