/*
 * joulehook: the sealed kinds (kinds.c): what each kind's core must
 * hold, which key role seals it, and how a producer's JSON record
 * becomes a core.  One table drives both directions, so jh-seal checks
 * the core it built as jh-verify checks one it received.  The contract
 * is joulehook-formats(5), "Cores" and the section of each kind, and
 * jh-seal(1).
 */
#ifndef JH_KINDS_H
#define JH_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "keys.h"

struct jh_buf;
struct jh_cbor;

enum jh_kind_id {
	JH_KIND_DECISION = 1,
	JH_KIND_EFFICIENCY,
	JH_KIND_GRANT,
	JH_KIND_REVOCATION,
	JH_KIND_CHAIN,
	JH_KIND_CHECKPOINT,
	JH_KIND_RESULT,
	JH_KIND_HOLD
};

/* A kind's id by name ("decision/1"), 0 when unknown; its name, its role. */
int	jh_kind_lookup(const char *name);
const char *jh_kind_name(int id);
enum jh_role jh_kind_role(int id);

/* A decoded core against its kind (jh_cbor_core_check already passed). */
int	jh_kind_check(const struct jh_cbor *core, int id, struct jh_err *e);

/*
 * A producer's record made the JSON part of a core (jh_kind_prepare),
 * then the canonical core with the fields the sealer owns (jh_core_build).
 */
int	jh_kind_prepare(json_t *o, int id, const struct jh_key *key,
	    uint64_t ts, const uint8_t *nonce, struct jh_err *e);
int	jh_core_build(struct jh_buf *out, const json_t *o, int id,
	    const struct jh_key *key, uint64_t ts, const uint8_t *nonce,
	    struct jh_err *e);

/*
 * Seals one JSON record as want, or as its own "kind" (keyname names
 * the key in a refusal): the envelope into env, the core into core.
 * Returns the kind's id, or -1 with why the record is refused.
 */
int	jh_seal_record(struct jh_buf *env, struct jh_buf *core,
	    const struct jh_key *key, const char *keyname, const char *want,
	    const char *line, size_t len, struct jh_err *e);

#endif /* JH_KINDS_H */
