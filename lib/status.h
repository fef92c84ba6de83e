/*
 * joulehook: the receipt surface (status.c), shared by jh-status's
 * status line, summaries and MCP server: the O(1) head check of a log, a
 * session's grant and ledger, the sessions of a project, entries read by
 * offset, and streaming summaries of verified logs.  Everything here
 * only reads.  The contract is jh-status(1), "The status line",
 * "Summaries" and "The MCP server".
 */
#ifndef JH_STATUS_H
#define JH_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "chain.h"
#include "jh.h"

struct jh_cp;
struct jh_cps;
struct jh_keyset;
struct jh_verifier;

/* Where the state is, and the keys. */
struct jh_stctx {
	const char *home;
	const char *statedir;
	const char *ledgerdir;	/* NULL: <statedir>/ledger */
	const char *grantfile;	/* NULL: the session's, as jh-decide finds it */
	const char *root;	/* the project root, realpath'd */
	const char *sink;	/* the checkpoint sink, or NULL */
	const struct jh_keyset *keys;	/* stewards and trust */
	struct jh_verifier *v;
};

/*
 * The sink's checkpoints into cps, for a summary to hold each log to (a
 * sink not written yet holds none): 0, 1 when it does not verify, 2
 * when it cannot be read; e says why.
 */
int	jh_st_load_sink(struct jh_cps *cps, const char *sink,
	    struct jh_verifier *v, struct jh_err *e);

/* The hex SHA-256 of a session id, which names its log (65 bytes). */
void	jh_st_digest(char *hex, const uint8_t *p, size_t n);
int	jh_st_is_digest(const char *s, size_t n);
/* A session's log and sidecar, read-only: 0, -1 no log, -2 (e says why). */
int	jh_st_open_log(const struct jh_stctx *o, const char *digest, int *fd,
	    int *hfd, char *path, size_t sz, struct jh_err *e);
void	jh_st_close_log(int fd, int hfd);
/* The session id of a log, from its first entry; NULL if unreadable. */
char	*jh_st_first_session(int fd);
/*
 * The checkpoint of s a log is held to: by its file's name, else its
 * first chain entry (jh-verify(1) "Logs"); *named when the name chose.
 */
const struct jh_cp *jh_st_log_cp(const struct jh_cps *s, int fd,
	    const char *path, int *named);
/*
 * The CBOR item at off into b: 1, 0 at the end of the file,
 * JH_CBOR_TRUNCATED, JH_CBOR_INVALID (cbor.h), -1 on a read error.
 */
int	jh_st_item(struct jh_buf *b, int fd, uint64_t off, struct jh_err *e);

/* The O(1) head check: what the sidecar says, and whether it holds. */
#define JH_ST_EMPTY	0	/* an empty log */
#define JH_ST_OK	1	/* the sidecar names the log's last entry */
#define JH_ST_STALE	2	/* a sidecar that does not (the log moved on) */
#define JH_ST_UNCHECKED	3	/* no sidecar that passes its CRC: no figures */
#define JH_ST_BUSY	4	/* an append held the lock: figures may lag */
#define JH_ST_BAD	5	/* the entry it names is not this session's
				   chain/1 entry, or does not verify */

struct jh_sthead {
	int state;
	int signed_ok;		/* OK, and the last entry's signature held */
	struct jh_head head;	/* the sidecar's record, unless UNCHECKED */
	uint64_t size;		/* of the log */
	char *session;		/* the session id, when OK */
	size_t slen;
	char why[160];
};
void	jh_st_head(struct jh_sthead *sh, int fd, int hfd, const char *digest,
	    const struct jh_keyset *ks);
void	jh_st_head_free(struct jh_sthead *sh);
const char *jh_st_state_word(int state);
/* enforced, partly enforced, observed or unmetered (jh-status(1)). */
const char *jh_st_meter(uint64_t n_eff, uint64_t n_enforced);
/* An energy figure in joules with an SI prefix: "4.1 J", "950 mJ". */
void	jh_st_energy(char *out, size_t sz, uint64_t uj, int ascii);

/* A session's grant, as jh-decide finds it, and the ledger it names. */
struct jh_stbudget {
	int have_grant;
	int have_ledger;
	char grant_path[4096];
	uint8_t grant[JH_HASH_LEN];
	char grant_id[JH_ID_LEN];
	uint64_t grant_budget;
	uint64_t budget;	/* from the ledger */
	uint64_t spent;
	uint64_t held;
	char why[64];		/* why a grant or ledger is missing */
};
void	jh_st_budget(struct jh_stbudget *sb, const char *home,
	    const char *state, const char *ledgerdir, const char *grantfile,
	    const char *digest, const char *hint);
/* The digests of the project's sessions, n of 65 bytes each, sorted. */
int	jh_st_sessions(struct jh_buf *out, size_t *n, const struct jh_stctx *o,
	    struct jh_err *e);
/* The session resource of the MCP server: the status line's figures. */
char	*jh_st_session_json(const struct jh_stctx *o, const char *digest,
	    int fd, int hfd, const char *path);

/* Summaries: verified logs streamed once, counts kept, never entries. */
#define JH_NPROV	3	/* HwShunt, ModelBased, Estimator */

struct jh_cnt {
	char *k;
	size_t len;
	uint64_t n;
};

struct jh_counts {		/* a count per text value */
	struct jh_cnt *v;
	size_t n;
	size_t cap;
};

struct jh_tally {		/* the figures of verified receipts */
	uint64_t entries;
	uint64_t verified;
	uint64_t failed;
	uint64_t first_ts;
	uint64_t last_ts;
	int have_ts;
	uint64_t n_dec;
	uint64_t n_eff;
	uint64_t n_enforced;
	uint64_t n_other;
	uint64_t n_res;		/* result/1: what ran */
	uint64_t n_agg;		/* task-level efficiency roll-ups */
	uint64_t n_hold;	/* hold/1: a model call's hold, before it */
	struct jh_counts verdicts, codes, tools, classes, checks;
	struct { uint64_t n, cost, debited; } dec[JH_NPROV];
	struct { uint64_t n, est, meas, debited, accepted, out, ms; }
	    eff[JH_NPROV];
};

struct jh_sum {
	struct jh_verifier *v;
	const struct jh_cps *cps;	/* the sink's checkpoints, or NULL */
	struct jh_tally total;
	uint64_t nlogs;
	uint64_t nok;
	struct jh_buf logs;	/* the logs' JSON objects, comma separated */
};

void	jh_sum_init(struct jh_sum *s, struct jh_verifier *v);
void	jh_sum_free(struct jh_sum *s);
/*
 * Verifies one log (or a file of bare receipts) into the summary: 0 when
 * every item verified, 1 when some did not, -1 when it could not be read.
 */
int	jh_sum_log(struct jh_sum *s, int fd, const char *name,
	    struct jh_err *e);
/* {"logs":[...],"total":{...}}: one JSON object, no newline. */
int	jh_sum_json(struct jh_buf *b, struct jh_sum *s);
/* One log (- for the standard input), or the project's sessions' logs. */
int	jh_st_summarize(struct jh_sum *s, const char *path, struct jh_err *e);
int	jh_st_summarize_project(const struct jh_stctx *o, struct jh_sum *s,
	    const char *want, struct jh_err *e);

#endif /* JH_STATUS_H */
