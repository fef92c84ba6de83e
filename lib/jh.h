/*
 * joulehook: the one internal header of libjoulehook.
 *
 * Library functions return 0 on success and -1 on failure, writing a
 * one-line reason into a caller-supplied struct jh_err; they never print
 * and never exit.  Outputs come first in argument lists, inputs after.
 */
#ifndef JH_H
#define JH_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JH_PROFILE	"joulehook/1"
#define JH_VERSION	"0.1.0"

/* Limits shared by every stage, so no stage refuses what another passed. */
#define JH_MAX_RECORD	(16u * 1024 * 1024)	/* one JSON line or CBOR item */
#define JH_MAX_DEPTH	64			/* CBOR/JSON nesting */

#define JH_PK_LEN	32
#define JH_SK_LEN	64
#define JH_SEED_LEN	32
#define JH_SIG_LEN	64
#define JH_HASH_LEN	32
#define JH_NONCE_LEN	8
#define JH_DIDKEY_MAX	64		/* "did:key:z6Mk" + 44 chars + NUL */
#define JH_ID_LEN	(7 + 64 + 1)	/* "sha256:" + hex + NUL */

struct jh_err {
	char msg[256];
};

int jh_errf(struct jh_err *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The modules split out into their own headers (issue 18): included
 * here only until every file includes what it uses.
 */
#include "buf.h"
#include "cbor.h"
#include "json.h"
#include "keys.h"
#include "cose.h"
#include "kinds.h"
#include "chain.h"
#include "verify.h"
#include "checkpoint.h"
#include "shellparse.h"
#include "paths.h"
#include "ledger.h"
#include "decide.h"
#include "shellcheck.h"
#include "sealunit.h"

/*
 * statefs.c: the CRC, the bounded flock and the state files' openers.
 * Included here only until the header split: files that use them include
 * statefs.h themselves.
 */
#include "statefs.h"

/*
 * energy.c: token usage with each provider's semantics, token
 * coefficients, and the metering ladder (jh-proxy(1), Energy).
 */
#define JH_TOKENS_MAX	1000000000ULL	/* more in one call is absurd */

struct jh_usage {
	uint64_t in;		/* uncached input (Anthropic semantics) */
	uint64_t out;		/* output, thinking/reasoning included */
	uint64_t cache_read;
	uint64_t cache_write;
	int have_in;		/* the provider reported the input side */
	int have_out;		/* and the output side */
};

int	jh_usage_anthropic(struct jh_usage *, const json_t *, struct jh_err *);
int	jh_usage_chat(struct jh_usage *, const json_t *, struct jh_err *);
int	jh_usage_responses(struct jh_usage *, const json_t *, struct jh_err *);
int	jh_usage_gemini(struct jh_usage *, const json_t *, struct jh_err *);

struct jh_coeff {		/* one model family, microjoules per token */
	char family[64];
	uint64_t in;
	uint64_t out;
	uint64_t cache_read;
	uint64_t cache_write;
	char **match;		/* fnmatch(3) patterns over the model name */
	size_t nmatch;
};

struct jh_coeffs {
	char id[128];
	char digest[JH_ID_LEN];	/* of the file's bytes */
	uint64_t thread_uw;	/* default power per CPU thread */
	struct jh_coeff *fam;
	size_t n;
};

uint64_t jh_mul_sat(uint64_t, uint64_t);
int	jh_coeffs_load(struct jh_coeffs *, const char *, struct jh_err *);
void	jh_coeffs_free(struct jh_coeffs *);
const char *jh_coeffs_path(char *, size_t);
const struct jh_coeff *jh_coeffs_find(const struct jh_coeffs *, const char *);
uint64_t jh_tokens_uj(const struct jh_coeff *, const struct jh_usage *);

#define JH_RUNG_RAPL	0	/* HwShunt */
#define JH_RUNG_NVML	1	/* HwShunt, the GPUs only */
#define JH_RUNG_MODEL	2	/* ModelBased: time x calibrated power */
#define JH_RUNG_TOKENS	3	/* Estimator: tokens x coefficients */
#define JH_RUNG_TIME	4	/* Estimator: time x default power */
#define JH_RUNGS	5
#define JH_RAPL_MAX	16
#define JH_GPU_MAX	16

struct jh_ladder_cfg {
	const char *powercap;	/* NULL: /sys/class/powercap */
	const char *nvml;	/* NULL: libnvidia-ml.so.1 */
	uint64_t calibrated_mw;	/* 0: no ModelBased rung */
	uint64_t default_mw;	/* 0: threads online x thread_uw */
	uint64_t thread_uw;	/* from the coefficient file */
};

struct jh_ladder {
	int selected;			/* the top live rung */
	int live[JH_RUNGS];
	char why[JH_RUNGS][224];	/* why each was taken or declined */
	size_t npkg;
	char pkg[JH_RAPL_MAX][512];	/* the packages' energy_uj files */
	uint64_t range[JH_RAPL_MAX];	/* their max_energy_range_uj */
	void *dl;			/* NVML */
	int nvml_up;
	int (*nvml_energy)(void *, unsigned long long *);
	int (*nvml_shutdown)(void);
	void *dev[JH_GPU_MAX];
	unsigned ndev;
	uint64_t calibrated_mw;
	uint64_t default_mw;
};

struct jh_sample {
	uint64_t t_ns;			/* CLOCK_MONOTONIC */
	int rapl_ok;			/* every package read */
	uint64_t pkg[JH_RAPL_MAX];
	int gpu_ok;			/* every GPU read */
	uint64_t gpu_mj[JH_GPU_MAX];
};

struct jh_energy {
	uint64_t estimated_uj;		/* always */
	uint64_t measured_uj;		/* only when measured */
	int measured;
	const char *provenance;		/* HwShunt, ModelBased, Estimator */
	const char *method;		/* the rung: rapl nvml model tokens time */
	const char *scope;		/* what measured_uj covers */
};

const char *jh_rung_name(int);
void	jh_ladder_cfg_env(struct jh_ladder_cfg *);
void	jh_ladder_open(struct jh_ladder *, const struct jh_ladder_cfg *);
void	jh_ladder_close(struct jh_ladder *);
void	jh_ladder_sample(const struct jh_ladder *, struct jh_sample *);
uint64_t jh_rapl_delta(uint64_t, uint64_t, uint64_t);
void	jh_ladder_energy(struct jh_energy *, const struct jh_ladder *,
	    const struct jh_sample *, const struct jh_sample *, int, uint64_t,
	    uint64_t);

int	jh_session_stop(const char *, const char *, struct jh_err *);

/* util.c */
uint64_t jh_now_ms(void);
void	jh_nonce(uint8_t *);
int	jh_read_all(struct jh_buf *, int, size_t, struct jh_err *);
int	jh_write_all(int, const void *, size_t);
int	jh_fshut(FILE *fp, const char *name);
const char *jh_home(char *, size_t);
const char *jh_state(char *, size_t);
int	jh_path_join(char *, size_t, const char *, const char *);

/*
 * Where the suite's files are (joulehook(7), FILES): set what the options
 * gave, NULL the rest, and jh_where_fill gives the rest their defaults.
 */
struct jh_where {
	const char *home;	/* JH_HOME */
	const char *state;	/* JH_STATE */
	const char *ledger;	/* <state>/ledger */
	const char *key;	/* <home>/steward.key */
	const char *issuer;	/* <home>/issuer.key */
	const char *stewards;	/* <home>/stewards */
	const char *trust;	/* <home>/trust */
	const char *revoked;	/* <home>/revoked */
	char buf[8][PATH_MAX];
};
void	jh_where_fill(struct jh_where *w);

/* Reading records from a stream. */
struct jh_reader {
	int fd;
	struct jh_buf b;
	size_t pos;
	int eof;
	int err;		/* the errno of a read that failed, else 0 */
	uint64_t offset;	/* stream offset of b.p[0] */
};
void	jh_reader_init(struct jh_reader *, int);
int	jh_reader_mem(struct jh_reader *r, const void *p, size_t n);
void	jh_reader_free(struct jh_reader *);
ssize_t	jh_reader_fill(struct jh_reader *, struct jh_err *);
int	jh_parse_ms(unsigned *, const char *);
int	jh_reader_line(struct jh_reader *, const char **, size_t *,
	    struct jh_err *);
/* The filters' input loops (util.c): each named file, or the standard input. */
#define JH_IN_STOP	0x01	/* a file that cannot be opened ends the loop */
#define JH_IN_NOHANG	0x02	/* open O_NONBLOCK: a FIFO cannot hang it */
typedef int (*jh_file_fn)(void *arg, struct jh_reader *r, const char *path);
int	jh_each_file(int argc, char *argv[], int flags, jh_file_fn fn,
	    void *arg);
/* line, len; or NULL, 0 and why the line could not be read */
typedef int (*jh_line_fn)(void *arg, const char *line, size_t len,
	    const char *why);
int	jh_each_line(int argc, char *argv[], jh_line_fn fn, void *arg);
int	jh_reader_cbor(struct jh_reader *, const uint8_t **, size_t *,
	    struct jh_err *);

/*
 * hosts.c: host adapters (host.h, host-*.c), one table entry per host:
 * how its native payload becomes the canonical one (Claude Code's
 * shape: session_id, hook_event_name, tool_name, tool_input with the
 * canonical keys, cwd, tool_use_id), the class of each of its tools,
 * and its answer to each verdict.  jh-normalize(1) "HOSTS".
 */
#define JH_HF_ANY	0	/* any JSON value */
#define JH_HF_TEXT	1	/* a string */
#define JH_HF_NAME	2	/* a string without NUL (ids, paths) */
#define JH_HF_UINT	3	/* a non-negative integer */
#define JH_HF_BOOL	4
#define JH_HF_OBJECT	5
#define JH_HF_ARRAY	6

struct jh_host_field {
	const char *native;	/* the canonical payload's key */
	const char *name;	/* the ActionEvent's */
	int type;		/* JH_HF_* */
};

struct jh_host_tool {
	const char *pattern;	/* a tool name; '*' matches any run */
	const char *cls;	/* shell read write edit fetch search mcp
				   agent (other when nothing matches) */
	const char *keys;	/* "native=canonical ..." input renames */
};

#define JH_ANSWER_ALLOW		0
#define JH_ANSWER_REWRITE	1
#define JH_ANSWER_ASK		2
#define JH_ANSWER_DENY		3

#define JH_POST_OK		0	/* what ran is what was decided */
#define JH_POST_STOP		1	/* end the run after this tool */
#define JH_POST_WITHHOLD	2	/* and replace the tool's output */

#define JH_HOST_RUN	0	/* tested against the real host */
#define JH_HOST_DOCS	1	/* from documentation, not run */

struct jh_host {
	const char *name;		/* -H name, the event's "host" */
	int from;			/* JH_HOST_RUN, JH_HOST_DOCS */
	/* the canonical payload of a native one (NULL: it is canonical) */
	json_t *(*canon)(const json_t *, char *, size_t);
	const struct jh_host_tool *tools;
	int can_ask;			/* else ask is answered deny */
	int can_rewrite;		/* else rewrite is answered deny */
	int block_status;		/* the exit status that blocks */
	/* verdict, reason, the native updated input (rewrite), replace */
	int (*answer)(struct jh_buf *, int, const char *, const char *,
	    int);
	/* the native input of a rewrite, NULL when it has none */
	json_t *(*native_input)(const char *, const json_t *);
	int (*post_answer)(struct jh_buf *, const char *, int, const char *,
	    const char *);
	int (*read_text)(const json_t *, const char **, size_t *,
	    const char **);
	const char *(*written_path)(const json_t *);
	int transcript;			/* transcript_path is Claude Code's */
	int can_stop;			/* it ends a run after a tool */
};

/* The canonical payload's keys, the same for every host. */
#define JH_HK_SESSION	"session_id"
#define JH_HK_EVENT	"hook_event_name"
#define JH_HK_TOOL	"tool_name"
#define JH_HK_INPUT	"tool_input"
#define JH_HK_CWD	"cwd"
#define JH_HK_CALL	"tool_use_id"
#define JH_GATE_EVENT	"PreToolUse"

#define JH_JSON_TOOLONG	(-1)	/* a value over JH_MAX_RECORD, skipped */
#define JH_JSON_BROKEN	(-2)	/* input ends inside a value; read error */

const struct jh_host *jh_host_lookup(const char *);
const char *jh_host_names(char *, size_t);
const char *jh_host_class(const struct jh_host *, const char *, size_t);
int	jh_content_id(char *, const struct jh_host *, const char *,
	    const char *, size_t, const json_t *);
json_t	*jh_host_canon(const struct jh_host *, const json_t *, char *,
	    size_t);
json_t	*jh_host_event(const struct jh_host *, const json_t *, int);
int	jh_normalize_one(struct jh_buf *out, const struct jh_host *h,
	    const char *val, size_t len, int native, struct jh_err *e);
int	jh_host_answer(struct jh_buf *, const struct jh_host *, int,
	    const char *, const char *, const char *, int);
const char *jh_host_post_status(const struct jh_host *, const char *);
int	jh_host_post_answer(struct jh_buf *, const struct jh_host *,
	    const char *, int, const char *, const char *);
int	jh_reader_json(struct jh_reader *, const char **, size_t *,
	    uint64_t *, struct jh_err *);

/*
 * status.c: the receipt surface (jh-status(1)) for jh-status: the O(1)
 * head check, a session's grant and ledger, the sessions of a project,
 * entries read by offset, and streaming summaries of verified logs.
 */
#define JH_ST_EMPTY	0	/* an empty log */
#define JH_ST_OK	1	/* the sidecar names the entry that ends the log */
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

void	jh_st_digest(char *, const uint8_t *, size_t);	/* out: 65 */
int	jh_st_is_digest(const char *, size_t);
int	jh_st_item(struct jh_buf *, int, uint64_t, struct jh_err *);
void	jh_st_head(struct jh_sthead *, int, int, const char *,
	    const struct jh_keyset *);
void	jh_st_head_free(struct jh_sthead *);
const char *jh_st_state_word(int);
const char *jh_st_meter(uint64_t, uint64_t);
void	jh_st_budget(struct jh_stbudget *, const char *, const char *,
	    const char *, const char *, const char *, const char *);
struct jh_stctx;
int	jh_st_sessions(struct jh_buf *, size_t *, const struct jh_stctx *,
	    struct jh_err *);
void	jh_st_energy(char *, size_t, uint64_t, int);
void	jh_sum_init(struct jh_sum *, struct jh_verifier *);
void	jh_sum_free(struct jh_sum *);
int	jh_sum_log(struct jh_sum *, int, const char *, struct jh_err *);
int	jh_sum_json(struct jh_buf *, struct jh_sum *);

struct jh_stctx {		/* where the state is, and the keys */
	const char *home;
	const char *statedir;
	const char *ledgerdir;	/* NULL: <statedir>/ledger */
	const char *grantfile;	/* NULL: the session's, as jh-decide finds it */
	const char *root;	/* the project root, realpath'd */
	const struct jh_keyset *keys;	/* stewards and trust */
	struct jh_verifier *v;
};

int	jh_st_open_log(const struct jh_stctx *, const char *, int *, int *,
	    char *, size_t, struct jh_err *);
void	jh_st_close_log(int, int);
char	*jh_st_first_session(int);
char	*jh_st_session_json(const struct jh_stctx *, const char *, int, int,
	    const char *);
int	jh_st_summarize(struct jh_sum *, const char *, struct jh_err *);
int	jh_st_summarize_project(const struct jh_stctx *, struct jh_sum *,
	    const char *, struct jh_err *);

/*
 * meter.c: jh-meter's units (issue 8).  One efficiency/1 unit as a JSON
 * object ready for jh-seal -K efficiency/1, and the energy of token counts
 * with the coefficient family named as "<file id>#<family>".
 */
struct jh_unit {
	const char *session;
	const char *unit;
	const char *request_id;		/* NULL: none */
	const char *source;		/* tokens transcript otel run aggregate */
	const char *model;		/* NULL: none */
	struct jh_usage u;
	uint64_t accepted;
	struct jh_energy en;
	char coeff[224];
	uint64_t duration_ms;
	int have_cost;
	uint64_t cost_musd;
	int completed;
	const char *verdict;
	int enforced;
	uint64_t debited;
	const char *note;		/* NULL: none */
	const char *grant;		/* NULL: none (jh-proxy) */
	const char *ledger;		/* NULL: the grant's own */
	int have_remaining;
	uint64_t remaining;
	uint64_t status;		/* the HTTP status answered; 0: none */
	/* jh-proxy lowered the output limit from asked to sent; 0: not */
	uint64_t limit_asked, limit_sent;
	const char *hold;		/* the hold/1 it settles; NULL: none */
};

void	jh_unit_init(struct jh_unit *, const char *, const char *);
void	jh_unit_tokens(struct jh_unit *, const struct jh_coeffs *);
json_t	*jh_unit_json(const struct jh_unit *);
int	jh_unit_print(FILE *, const struct jh_unit *, struct jh_err *);
int	jh_json_uint(uint64_t *, const json_t *);
int	jh_prov_rank(const char *);
#define JH_UNIT_ID_MAX	256	/* a unit's id, session or model, bytes */
/* o's string at key, if 1 to JH_UNIT_ID_MAX bytes and no NUL; else NULL */
const char *jh_json_id(const json_t *o, const char *key);
/* end of meter.c */

/* listen.c: a listening TCP socket on addr:port. */
int	jh_listen_tcp(const char *, int, char *, size_t, struct jh_err *);

#endif /* JH_H */
