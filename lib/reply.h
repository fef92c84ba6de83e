/*
 * joulehook: the reply stage (jh-normalize(1), The reply): one chained
 * receipt, bound to the call the hook driver names, to the host's own
 * answer and exit status.  jh-normalize -r and jh-hook's fused path both
 * answer through jh_reply(), so their answers are the same bytes.
 */
#ifndef JH_REPLY_H
#define JH_REPLY_H

#include <stddef.h>
#include <stdint.h>

struct jh_buf;
struct jh_host;
struct jh_keyset;
struct jh_sealed;

struct jh_reply_opts {
	const struct jh_host *host;
	const char *session;	/* the call the answer is bound to */
	const char *call;	/* its tool_use_id */
	const char *digest;	/* its input digest */
	const char *event;	/* the post-tool event answered, or NULL */
	uint64_t deadline_ms;	/* how old the receipt may be */
	int replace;		/* the grant replaces the host's prompt (-A) */
	const struct jh_sealed *own;	/* sealed here: not checked again */
};

/*
 * Answers the chained receipt in[0..n): the host's answer is put in out
 * (empty for a plain allow), and what the person should read when it is
 * a deny or a stop in diag (one line, no newline); returns the host's
 * exit status.  With fail not NULL, in is not looked at: the answer is a
 * deny for that reason (a usage error, no stewards list).  Any doubt is
 * the host's deny; out->oom set means not even that could be built.
 */
int	jh_reply(struct jh_buf *out, struct jh_buf *diag,
	    const struct jh_reply_opts *o, const struct jh_keyset *stewards,
	    const uint8_t *in, size_t n, const char *fail);

#endif /* JH_REPLY_H */
