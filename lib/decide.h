/*
 * joulehook: the gate's decision, the parts that need no I/O beyond
 * the file system reads of path resolution and content hashing
 * (decide.c): the decision codes, loading and checking a grant,
 * capability and policy matching, and rewrites.  gate.h orders the
 * checks (jh_decide) and owns the ledger transaction; shellcheck.h
 * holds the protected paths and a shell line's checks.  The contract is
 * jh-decide(1), "The ordered check", "Decision codes", "Capabilities"
 * and "Policies", and joulehook-formats(5), "Grant documents and
 * matching".
 */
#ifndef JH_DECIDE_H
#define JH_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "cose.h"
#include "jh.h"

struct jh_cbor;
struct jh_keyset;
struct jh_sh_script;

/* The first check that failed; jh_dcode_name (gate.h) is its name. */
enum jh_dcode {
	JH_D_OK = 0,
	JH_D_MALFORMED,		/* malformed-event */
	JH_D_PROTECTED,		/* protected-path */
	JH_D_NOGRANT,		/* no-grant */
	JH_D_BADSIG,		/* bad-signature */
	JH_D_UNTRUSTED,		/* untrusted-issuer */
	JH_D_REVOKED,		/* revoked */
	JH_D_AUDIENCE,		/* wrong-audience */
	JH_D_NOTYET,		/* not-yet-valid */
	JH_D_EXPIRED,		/* expired */
	JH_D_NOTGRANTED,	/* not-granted */
	JH_D_UNPROVABLE,	/* unprovable-command */
	JH_D_UNSAFE,		/* unsafe-target */
	JH_D_POLICY_DENY,	/* policy-deny */
	JH_D_POLICY_ASK,	/* policy-ask */
	JH_D_POLICY_REWRITE,	/* policy-rewrite */
	JH_D_BUDGET,		/* budget-exceeded */
	JH_D_GATEFAIL		/* gate-failure */
};

struct jh_grant {
	struct jh_arena arena;
	uint8_t *bytes;
	size_t len;
	struct jh_env env;
	uint8_t id[JH_HASH_LEN];	/* SHA-256 of the payload */
	char idtext[JH_ID_LEN];
	uint8_t ledger[JH_HASH_LEN];	/* the ledger it spends: its ledger */
	char ledgertext[JH_ID_LEN];	/* field, else its own id */
	const struct jh_cbor *caps;
	const struct jh_cbor *policies;
	const struct jh_cbor *costs;
	const struct jh_cbor *audience;
	const struct jh_cbor *outcome;	/* the outcome command(s), or NULL */
	int otherwise_ask;		/* otherwise: "ask" */
	const char *root;
	uint64_t nbf;
	uint64_t exp;
	uint64_t budget;
	uint64_t depth;			/* delegation depth left */
	const struct jh_cbor *parent;	/* a child grant's parent id */
	const struct jh_cbor *agent;	/* and the agent type it is for */
	const struct jh_cbor *holder;	/* who may delegate it, or NULL */
};

/* What a capability is matched against. */
struct jh_action {
	const char *class;
	const char *tool;
	const char *root;
	const char *home;	/* the user's: ~/ in path patterns */
	const char *url;
	const char *content_id;
	const char *only;	/* a search's name filter (Grep's glob), or
				   NULL */
	char **targets;		/* resolved absolute paths */
	const int *lexexec;	/* each: as written, an executed file */
	size_t ntargets;
};

/*
 * Loads a sealed grant and checks it: a canonical grant/1 envelope whose
 * signature verifies (else JH_D_BADSIG), by an issuer in trust (else
 * JH_D_UNTRUSTED).  Returns 0, or a JH_D_* code with the reason.
 */
int	jh_grant_load(struct jh_grant *g, const char *path,
	    const struct jh_keyset *trust, struct jh_err *e);
/*
 * The signatures a process that holds the steward key has checked
 * before: a tag per grant's bytes under dir, keyed by a key derived from
 * the steward's (jh_sigmemo_key), so that only the holder of that key
 * can write one (joulehook-formats(5), Verified grants).
 */
struct jh_sigmemo {
	uint8_t key[JH_HASH_LEN];
	const char *dir;	/* $JH_STATE/verified */
	int write;		/* add a tag for a signature checked here */
};
int	jh_sigmemo_key(struct jh_sigmemo *m, const uint8_t *seed);
/* jh_grant_load, where a tag in memo (or NULL) stands for the check. */
int	jh_grant_load_memo(struct jh_grant *g, const char *path,
	    const struct jh_keyset *trust, const struct jh_sigmemo *memo,
	    struct jh_err *e);
void	jh_grant_free(struct jh_grant *g);
/* Whether revoked/<grant hex> under dir revokes g: 0, 1, -1 unverifiable. */
int	jh_grant_revoked(const struct jh_grant *g, const char *dir,
	    struct jh_err *e);
int	jh_audience_ok(const struct jh_grant *g, const char *host);
/*
 * A command pattern against quote-removed words: the last pattern word
 * matches the rest, joined by spaces; with openargs it must end in "*".
 */
int	jh_cmd_match(const char *pattern, char **words, size_t n,
	    int openargs);
/* Whether cap (or a policy's when) holds for the action. */
int	jh_cap_match(const struct jh_cbor *cap, const struct jh_action *act,
	    char **words, size_t nwords, int openargs);
/* The index of the first capability that grants the action, or -1. */
int	jh_find_cap(const struct jh_grant *g, const struct jh_action *a,
	    char **w, size_t n, int openargs);
/* A policy's when: like a capability, plus field and regex over input. */
int	jh_when_match(const struct jh_cbor *when, const struct jh_action *act,
	    const json_t *input, const struct jh_sh_script *sh);
/* The sha256: id of an existing regular file's content, else -1. */
int	jh_file_content_id(char *out, const char *path);
/* Whether an assignment before a command is harmless (LANG=C). */
int	jh_inert_env(const char *assign);
/* Every match of the ERE re in s replaced by with; 1 when one changed. */
int	jh_rewrite(struct jh_buf *out, const char *s, const char *re,
	    const char *with, struct jh_err *e);

#endif /* JH_DECIDE_H */
