/*
 * joulehook: the gate as one library call (jh-decide(1)).
 *
 * jh_decide() makes the whole ordered check of one ActionEvent, the
 * first failure naming the stable code: well-formed, protected paths and
 * commands, a grant, its signature, its issuer, not revoked, audience,
 * nbf/exp, capability, policies (deny > ask > rewrite; a rewritten input
 * is decided again), budget -> debit.  The context, struct jh_gate, is
 * the caller's; the grant cache in it is the only part jh_decide()
 * changes.  jh_grant_valid() is the revocation, audience and validity
 * part alone, which jh-proxy makes too.  The set of paths no grant can
 * allow is protect.h's.
 */
#ifndef JH_GATE_H
#define JH_GATE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "decide.h"
#include "jh.h"
#include "keys.h"
#include "protect.h"
#include "util.h"

struct jh_buf;

/* The last grant loaded, by path: a stream of events reuses it. */
struct jh_gcache {
	char path[PATH_MAX * 2];
	int loaded;
	int rc;			/* 0 or the JH_D_* code of the failure */
	struct jh_err e;
	struct jh_grant g;
};

void	jh_gcache_free(struct jh_gcache *gc);

/* What a decision is made against. */
struct jh_gate {
	const char *home;		/* JH_HOME: grants/, grant */
	const char *statedir;		/* JH_STATE: pinned roots */
	const char *ledgerdir;
	const char *revdir;
	const char *grantfile;		/* NULL: the root's, under home */
	const struct jh_keyset *trust;	/* grant issuers */
	const struct jh_protect *protect;
	const char *user_home;		/* ~ and $HOME in command lines */
	unsigned wait_ms;		/* for the ledger's lock */
	int dryrun;			/* explain: pin, debit and hold nothing */
	struct jh_gcache *cache;
	const struct jh_sigmemo *memo;	/* signatures checked before, or NULL */
};

/* One decision. */
struct jh_decision {
	int code;			/* JH_D_* */
	const char *verdict;		/* allow ask rewrite deny */
	char reason[512];
	char hint[512];			/* jh-grant add's arguments, or "" */
	uint64_t cost;
	uint64_t debited;
	uint64_t remaining;
	int have_remaining;
	char rule[80];
	json_t *targets;		/* array of resolved paths */
	json_t *updated;		/* rewrite: the new input */
	char content_id[JH_ID_LEN];
	int have_cid;
	const char *grant;		/* the grant's id, in the cache */
	const char *ledger;		/* the ledger's, when not the grant's */
	int outcome;		/* the command is the grant's outcome command */
	json_t *effects;		/* what the input does, as decided */
	int have_uid;		/* the caller set uid: write it */
	uint32_t uid;		/* the asker's, from SO_PEERCRED */
	/* a subagent's call decided under its child grant (delegation) */
	char agent_type[64];	/* "" when none */
	char child_id[JH_ID_LEN], child_ledger[JH_ID_LEN];
	char chain[2][JH_ID_LEN];	/* every ledger debited, own first */
	int nchain;
};

const char *jh_dcode_name(int code);
void	jh_decision_init(struct jh_decision *d);
void	jh_decision_free(struct jh_decision *d);
int	jh_decision_fail(struct jh_decision *d, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
json_t	*jh_decision_json(const struct jh_decision *d, const json_t *ev);
int	jh_grant_valid(const struct jh_grant *g, const char *revdir,
	    const char *host, uint64_t now_ms, struct jh_err *e);
int	jh_decide(struct jh_decision *d, const struct jh_gate *g, json_t *ev,
	    uint64_t now_ms);
void	jh_project_top(char *out, size_t sz, const char *dir);

/*
 * Marks a session stopped (<statedir>/stopped/<hex of its SHA-256>): a
 * tool ran that was not what was decided, on a host that cannot end a
 * run then, and the gate denies the session's every later call.
 */
int	jh_session_stop(const char *statedir, const char *session,
	    struct jh_err *e);

/* Where a gate's files are; NULL: as jh-decide(1) says (JH_HOME, JH_STATE). */
struct jh_gate_paths {
	const char *statedir;
	const char *ledgerdir;
	const char *trustfile;
	const char *revdir;
	const char *grantfile;	/* NULL: the project's, as jh-decide finds it */
	const char *exedir;	/* the install; NULL: this program's directory */
};

/* A gate and everything it points into, owned together. */
struct jh_gate_ctx {
	struct jh_gate g;
	struct jh_keyset trust;
	struct jh_protect protect;	/* the caller's -P, then the built-ins */
	struct jh_gcache cache;
	struct jh_where where;		/* the paths the gate points into */
};

/* Who asked for a decision (the socket server's SO_PEERCRED uid). */
struct jh_asker {
	int have_uid;
	uint32_t uid;
};

/*
 * jh_gate_ctx_init, then the caller's protected paths (jh_protect_add on
 * c->protect), then jh_gate_open: the directories, the trusted issuers
 * and the built-in protected paths.  The caller sets c->g.wait_ms and
 * c->g.dryrun.  jh_gate_close frees it all.
 */
void	jh_gate_ctx_init(struct jh_gate_ctx *c);
int	jh_gate_open(struct jh_gate_ctx *c, const struct jh_gate_paths *p,
	    struct jh_err *e);
void	jh_gate_close(struct jh_gate_ctx *c);

/*
 * One input line of jh-decide(1) to its output line, appended to out: a
 * PreToolUse event's Decision, any other event as it is, and a line that
 * is not an event (or could not be read: line NULL, why says why) a
 * malformed event's Decision.  Returns 1 when the Decision is a deny, 0
 * otherwise, -1 when out of memory.
 */
int	jh_decide_line(struct jh_buf *out, const struct jh_gate *g,
	    const struct jh_asker *who, const char *line, size_t len,
	    const char *why);

#endif /* JH_GATE_H */
