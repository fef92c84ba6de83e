/*
 * joulehook: Ed25519 key files with roles, lists of trusted keys, and
 * did:key names for public keys (keys.c, didkey.c).
 *
 * A secret key lives in sodium_malloc memory and is wiped by
 * jh_key_wipe.  The file formats are joulehook-formats(5), "Secret key
 * files", "Public key files" and "Trust lists"; the roles are
 * joulehook(7), "Key roles".
 */
#ifndef JH_KEYS_H
#define JH_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "jh.h"

/* did:key:z6Mk... of an Ed25519 public key, and back (didkey.c). */
int	jh_didkey_enc(char *out, size_t outsz, const uint8_t *pk);
int	jh_didkey_dec(uint8_t *pk, const char *s, size_t n);

/* Key files with roles (keys.c). */
enum jh_role {
	JH_ROLE_STEWARD = 1,	/* decisions, efficiency, chain, checkpoints */
	JH_ROLE_ISSUER = 2	/* grants and revocations */
};

struct jh_key {
	enum jh_role role;
	uint8_t pk[JH_PK_LEN];
	uint8_t *sk;		/* JH_SK_LEN, at the start of mem */
	void *mem;		/* sodium_malloc'd; jh_key_wipe frees it */
	char did[JH_DIDKEY_MAX];
};

/* Puts the passphrase of the key file named prompt into buf[0..sz). */
typedef int (*jh_pass_fn)(char *buf, size_t sz, const char *prompt,
    void *ctx);

int	jh_key_generate(const char *path, enum jh_role role, const char *pass,
	    struct jh_err *e);
int	jh_key_load(struct jh_key *k, const char *path, jh_pass_fn passfn,
	    void *ctx, struct jh_err *e);
void	jh_key_wipe(struct jh_key *k);
void	jh_key_wipe_exiting(struct jh_key *k);
int	jh_pass_tty(char *buf, size_t sz, const char *prompt, void *ctx);
const char *jh_role_name(enum jh_role r);
int	jh_role_parse(enum jh_role *r, const char *s);

/* A list of trusted public keys, each with the roles it is trusted for. */
struct jh_keyset {
	uint8_t (*pk)[JH_PK_LEN];
	int *roles;		/* bitmask of enum jh_role it is trusted for */
	size_t n;
	size_t cap;
};
void	jh_keyset_init(struct jh_keyset *s);
void	jh_keyset_free(struct jh_keyset *s);
int	jh_keyset_add(struct jh_keyset *s, const uint8_t *pk, int roles);
int	jh_keyset_add_did(struct jh_keyset *s, const char *did, int roles,
	    struct jh_err *e);
int	jh_keyset_load(struct jh_keyset *s, const char *path, int roles,
	    struct jh_err *e);
int	jh_keyset_has(const struct jh_keyset *s, const uint8_t *pk, int role);

#endif /* JH_KEYS_H */
