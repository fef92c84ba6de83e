/*
 * acprelay.h: the relay of jh-acp(1) without its processes.  The bytes
 * each peer writes go in (jh_acp_feed); the lines for each peer come out
 * through a callback; every decision is asked of a gate callback, which
 * jh-acp answers by running jh-hook and the fuzz target (tests/fuzz/
 * fuzz-acp.c) from its input.  The relay keeps the state of the
 * conversation: the sessions' working directories, the tool calls the
 * agent announced, the requests each side has not had answered.
 */
#ifndef JH_ACPRELAY_H
#define JH_ACPRELAY_H

#include <stddef.h>

#define JH_ACP_MAXLINE	(16u << 20)	/* a longer line from the agent
					   is never relayed */
#define JH_ACP_PREFIX	512		/* of an over-long line, kept for
					   its id; the least maxline */
#define JH_ACP_WHY	2048		/* the gate's reason, at most */

enum jh_acp_peer {
	JH_ACP_EDITOR,
	JH_ACP_AGENT
};

enum jh_acp_verdict {
	JH_ACP_NOOP,		/* no opinion */
	JH_ACP_ALLOW,
	JH_ACP_ASK,
	JH_ACP_DENY,
	JH_ACP_STOP,		/* "continue": false: not a decision */
	JH_ACP_FAIL		/* the gate could not decide: a deny */
};

struct jh_acp_io {
	/*
	 * Decides one payload (jh-normalize(1) HOSTS "acp").  On anything
	 * but allow, ask or no opinion, why (whysz bytes) says why; it
	 * starts as "the gate could not run".
	 */
	enum jh_acp_verdict (*gate)(void *arg, const char *payload,
	    char *why, size_t whysz);
	/* One line for a peer, without its newline. */
	void	(*send)(void *arg, enum jh_acp_peer to, const char *line,
		    size_t len);
	/* A diagnostic for the standard error; NULL: none. */
	void	(*note)(void *arg, const char *text);
	void	*arg;
};

struct jh_acp;

/*
 * A relay: nonce (up to 16 characters) goes into the call ids it makes
 * for the agent's fs and terminal requests; a line from the agent over
 * maxline bytes (0: JH_ACP_MAXLINE; at least JH_ACP_PREFIX) is refused.
 * NULL when out of memory.
 */
struct jh_acp *jh_acp_new(const struct jh_acp_io *io, const char *nonce,
	    size_t maxline);

/*
 * Bytes a peer wrote: each whole line is handled as it comes, the rest
 * kept for the next call.  -1 when the bytes could not be kept (out of
 * memory): the relay can go on no further.
 */
int	jh_acp_feed(struct jh_acp *relay, enum jh_acp_peer from,
	    const void *bytes, size_t len);

/*
 * The agent is gone (how: "the agent exited with status 1"): every
 * request of the editor's it did not answer gets an error.
 */
void	jh_acp_agent_gone(struct jh_acp *relay, const char *how);

void	jh_acp_free(struct jh_acp *relay);

#endif
