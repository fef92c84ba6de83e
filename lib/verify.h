/*
 * joulehook: verification of sealed objects and whole logs (verify.c),
 * shared by jh-verify and the programs that serve receipts.  One
 * envelope gets every check of joulehook-formats(5), "The JCR-1
 * envelope"; a log is checked entry by entry as its chain must run
 * ("The chained log"), so only its first break is reported.  The
 * contract is jh-verify(1), "The checks" and "Logs".
 */
#ifndef JH_VERIFY_H
#define JH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "jh.h"

struct jh_arena;
struct jh_buf;
struct jh_env;
struct jh_keyset;
struct jh_reader;
struct jh_sealed;

struct jh_verifier {
	const struct jh_keyset *keys;
	uint8_t last_kid[JH_PK_LEN];	/* base58 is slow; kids repeat */
	char last_did[JH_DIDKEY_MAX];
	const struct jh_sealed *own;	/* sealed here: not checked again */
};

struct jh_lv {			/* the state of one log being verified */
	uint64_t entries;
	uint64_t seq;		/* of the last entry */
	uint8_t hash[JH_HASH_LEN];	/* of the last entry */
	uint8_t *session;
	size_t slen;
	int have_session;
	uint64_t first_bad;	/* 1-based entry index of the first defect */
	uint64_t first_seq;
	char first_err[256];
	uint64_t cp_count;	/* a checkpoint to match, if any */
	uint8_t cp_hash[JH_HASH_LEN];
	int cp_seen;
	uint32_t *idx;		/* receipt payload hashes seen */
	uint8_t (*hashes)[JH_HASH_LEN];
	uint64_t *hseq;
	size_t nh;
	size_t cap;
};

void	jh_verifier_init(struct jh_verifier *v, const struct jh_keyset *ks);
/*
 * Every check of one envelope: shape and canonical form, a known kind,
 * a kid trusted for the kind's role, the signature, the kind's fields.
 */
int	jh_verify_env(struct jh_verifier *v, struct jh_env *env,
	    struct jh_arena *a, const uint8_t *p, size_t n, struct jh_err *e);

void	jh_lv_init(struct jh_lv *lv);
void	jh_lv_free(struct jh_lv *lv);
/*
 * One verified chain/1 entry as the next of a log (its receipt put in
 * inner); -1 with the defect in e.  jh_lv_skip passes an entry that
 * could not be checked, so those after it are judged on their own.
 */
int	jh_lv_entry(struct jh_lv *lv, struct jh_verifier *v,
	    const struct jh_env *ent, const uint8_t *bytes, size_t n,
	    struct jh_env *inner, struct jh_arena *a, struct jh_err *e);
void	jh_lv_skip(struct jh_lv *lv, const uint8_t *bytes, size_t n,
	    const char *err);
/*
 * 1 when the item at off that r found truncated is a log's partial last
 * item (an append in progress, or a torn tail), said in out; else 0,
 * with e set to why it is not where it holds a whole chain entry.
 */
int	jh_log_tail(char *out, size_t sz, const struct jh_reader *r,
	    const struct jh_lv *lv, uint64_t off, int fd, struct jh_err *e);

/* The JSON line of a chain entry, and of one jh-chain -j just wrote. */
int	jh_entry_json(struct jh_buf *b, const struct jh_env *ent,
	    const struct jh_env *inner, int ok, const char *err);
int	jh_chain_json(struct jh_buf *b, const uint8_t *p, size_t n);

#endif /* JH_VERIFY_H */
