/*
 * joulehook: jh-hook's fused path (jh-hook(1), fast=1): the stages of one
 * tool call run in one process through the library calls the filters
 * make (jh_normalize_one, jh_decide_line or jh_result_line,
 * jh_seal_record, jh_chain_receipt, jh_reply), each fed exactly what its
 * filter would have read, so the answer and the receipts are those of the
 * pipeline.  The filters stay the composable reference path.
 */
#ifndef JH_FUSED_H
#define JH_FUSED_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jh_buf;
struct jh_host;

struct jh_fused {
	const struct jh_host *host;
	const char *post;	/* the post-tool event, or NULL: the gate */
	const char *session;	/* the call the answer is bound to */
	const char *call;
	const char *digest;
	unsigned lock_ms;	/* -w of jh-decide, jh-result, jh-chain */
	uint64_t deadline_ms;	/* -d of the reply stage */
	int answer_allow;	/* -A of the reply stage */
	const char *bindir;	/* the gate's programs, never grantable */
	char (*protect)[PATH_MAX];	/* the config's protect lines (-P) */
	int nprotect;
	const char *uid;	/* -u of jh-decide, or NULL */
	/* called after each stage (0 normalize to 4 reply), or NULL */
	void (*after)(int stage, void *arg);
	void *arg;
};

/*
 * Whether payload[0..n) is one JSON value as jh-normalize frames it: only
 * such a payload takes the fused path (any other is left to the
 * pipeline, whose reply refuses it).
 */
int	jh_fused_fits(const uint8_t *payload, size_t n);

/*
 * Runs the stages on the payload, with the environment the driver set
 * (JH_HOME, JH_STATE, HOME): the reply stage's answer into out, each
 * stage's diagnostics on err as its filter would write them; returns the
 * reply stage's exit status.  For a process that ends once it returns:
 * the steward key's secure region is zeroed, and its unmapping left to
 * the exit (jh_key_wipe_exiting).
 */
int	jh_fused(struct jh_buf *out, FILE *err, const struct jh_fused *f,
	    const uint8_t *payload, size_t n);

#endif /* JH_FUSED_H */
