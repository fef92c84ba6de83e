/*
 * joulehook: seal one receipt core and append it to its session's
 * chained log in-process (sealunit.c), as jh-seal | jh-chain do in a
 * pipeline; the contract is jh-seal(1) and jh-chain(1).  The log is
 * locked and its head checked before every append.  A synced append
 * (JH_SEAL_SYNC) returns only once an fsync begun after its write has
 * returned, concurrent appends to one log sharing one fsync; a written
 * one (JH_SEAL_WRITE) is left for a later sync to cover.
 */
#ifndef JH_SEALUNIT_H
#define JH_SEALUNIT_H

#include <stdint.h>

#include <jansson.h>

struct jh_err;
struct jh_key;
struct jh_keyset;

#define JH_SEAL_SYNC	1
#define JH_SEAL_WRITE	0

/*
 * Seals o as kind with key and chains it into the log of session under
 * statedir; a torn tail cut on the way is reported in *cut (bytes).
 */
int	jh_seal_chain(json_t *o, int kind, const struct jh_key *key,
	    const struct jh_keyset *keys, const char *statedir,
	    const char *session, unsigned wait_ms, int sync, uint64_t *cut,
	    struct jh_err *e);
/* Syncs a session's log as it stands, sharing any concurrent fsync. */
int	jh_seal_sync(const char *statedir, const char *session,
	    struct jh_err *e);

#endif /* JH_SEALUNIT_H */
