/*
 * joulehook: a sink's checkpoints, read back (checkpoint.c).  A sink
 * (jh-install -C) holds a sequence of checkpoint/1 envelopes, one per
 * Stop; a log is checked against the latest of its own session: it must
 * hold at least that many entries, and its entry count-1 must be the
 * head the checkpoint signed.  jh-verify -c and jh-status -s use it;
 * the contract is joulehook-formats(5), "Checkpoints".
 */
#ifndef JH_CHECKPOINT_H
#define JH_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "jh.h"

struct jh_lv;
struct jh_verifier;

struct jh_cp {
	char *session;		/* NUL-terminated, slen bytes */
	size_t slen;
	uint64_t count;
	uint8_t head[JH_HASH_LEN];
};

struct jh_cps {
	struct jh_cp *v;
	size_t n;
	size_t torn;	/* bytes of a last checkpoint cut short, not read */
};

/*
 * Reads every checkpoint of the file at path, each verified with v: 0;
 * -2 when the file cannot be read, -1 when it is not a sequence of
 * valid checkpoints.
 */
int	jh_cps_load(struct jh_cps *s, const char *path, struct jh_verifier *v,
	    struct jh_err *e);
void	jh_cps_free(struct jh_cps *s);
/* The checkpoint a log of session sid (NULL: not known) is held to. */
const struct jh_cp *jh_cps_pick(const struct jh_cps *s, const char *sid);
/*
 * What cp says of the verified log lv, in note; 1 when the log fails it
 * (cut, or not the log it signed), 0 when it matches or extends it.
 */
int	jh_cp_note(const struct jh_cp *cp, const struct jh_lv *lv, char *note,
	    size_t sz);

#endif /* JH_CHECKPOINT_H */
