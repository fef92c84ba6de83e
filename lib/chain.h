/*
 * joulehook: the per-session hash-chained log (chain.c): opening a
 * session's log, its sidecar and its index, checking and mending its
 * head, and appending chain/1 entries under the log's lock.  The
 * contract is jh-chain(1) and joulehook-formats(5), "The chained log",
 * "The sidecar" and "chain/1 and checkpoint/1".
 */
#ifndef JH_CHAIN_H
#define JH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

struct jh_buf;
struct jh_cbor;
struct jh_err;
struct jh_key;
struct jh_keyset;
struct jh_sealed;

#define JH_SESSION_MAX	16384		/* the longest session id, in bytes */
#define JH_LOG_NAME	(64 + 4 + 1)	/* hex digest + ".jhl" + NUL */

/* The sidecar record: a fixed layout, pwritten whole (joulehook-formats(5)). */
struct jh_head {
	char magic[8];		/* "JHHEAD3" (older: JHHEAD1, JHHEAD2) */
	uint64_t count;		/* entries in the log */
	uint64_t last_off;	/* offset of the last entry */
	uint64_t end;		/* log size after the last entry */
	uint8_t hash[32];	/* SHA-256 of the last entry's bytes */
	uint64_t first_ts;	/* ts of the first and last receipt */
	uint64_t last_ts;
	uint64_t n_allow;	/* display tallies, not evidence */
	uint64_t n_deny;
	uint64_t n_ask;
	uint64_t n_rewrite;
	uint64_t n_eff;		/* efficiency/1 receipts */
	uint64_t n_other;
	uint64_t n_enforced;	/* of them: source proxy, enforced 1 */
	uint64_t n_observed;	/* the others */
	uint64_t n_measured;	/* of them: with a reading (HwShunt) */
	uint64_t tools_uj;	/* decision/1 debited_uj: tool estimates */
	uint64_t eff_debited_uj;	/* efficiency/1 debited_uj */
	uint64_t measured_uj;	/* efficiency/1 measured_uj: readings */
	uint64_t modelled_uj;	/* estimated_uj of ModelBased units */
	uint64_t estimated_uj;	/* estimated_uj of Estimator units */
	uint64_t idx_end;	/* the index holds every entry before it */
	uint32_t crc;		/* CRC-32 of everything above */
	uint32_t pad;
};

struct jh_log {
	int dirfd;
	int fd;
	int hfd;
	int ifd;		/* the index by call (jh_idx_get) */
	int created;
	int have_session;
	char name[256];
	uint8_t session[JH_SESSION_MAX];
	size_t slen;
	struct jh_head head;
};

/* A session's log's file name (JH_LOG_NAME): a digest, never the raw id. */
void	jh_log_name(char *out, const uint8_t *session, size_t n);
void	jh_log_init(struct jh_log *l);
void	jh_log_close(struct jh_log *l);
/*
 * Opens a log and its sidecar: with state, the session's log under
 * <state>/logs/; with path, that file (jh-chain(1), State files).
 */
int	jh_log_open(struct jh_log *l, const char *state, const char *path,
	    const uint8_t *session, size_t slen, int create, struct jh_err *e);
/* Adds a receipt's figures to the sidecar's display tallies. */
void	jh_head_tally(struct jh_head *h, const struct jh_cbor *core);

/*
 * The index beside a log (<log>.idx): the last decision/1 entry of each
 * call, by its tool_use_id (JH_IDX_CALL) and, for a rewrite, by its
 * updated_digest (JH_IDX_REWRITE); a hint like the sidecar, complete up
 * to the sidecar's idx_end.  jh_idx_get gives the offset and length of
 * the entry filed under key, or -1 when none is (or the slot went to
 * another key): the caller checks the entry it names.
 */
#define JH_IDX_CALL	"call"
#define JH_IDX_REWRITE	"rewrite"
int	jh_idx_get(int ifd, const char *kind, const char *key, uint64_t *off,
	    uint32_t *len);

/* Reads the sidecar; 0 with a record that passes its CRC. */
int	jh_head_read(struct jh_head *h, int hfd);
/*
 * The head of a locked log: jh_log_scan rebuilds it from the entries
 * (a torn tail cut when cut is set, its size in *cutbytes); jh_log_head
 * takes the sidecar when it names the entry that ends the log, else
 * scans.
 */
int	jh_log_scan(struct jh_log *l, const struct jh_keyset *ks, int cut,
	    uint64_t *cutbytes, struct jh_err *e);
int	jh_log_head(struct jh_log *l, const struct jh_keyset *ks, int cut,
	    uint64_t *cutbytes, struct jh_err *e);
/*
 * Appends one checked receipt to a locked log as a chain/1 entry (put
 * in entry), synced unless sync is 0; on failure the log is cut back.
 */
int	jh_log_append(struct jh_log *l, const struct jh_key *k,
	    const uint8_t *receipt, size_t rlen, const struct jh_cbor *rcore,
	    uint64_t now, const uint8_t *nonce, int sync, struct jh_buf *entry,
	    struct jh_err *e);

/* What jh_chain_receipt appends with, and where. */
struct jh_chainer {
	const struct jh_keyset *keys;	/* the stewards whose receipts count */
	const struct jh_key *key;	/* signs the entries */
	const char *state;		/* the logs under <state>/logs/, or */
	const char *logfile;		/* this one log */
	unsigned wait_ms;		/* for the log's lock */
	uint64_t deadline_ms;	/* how far a receipt may predate the head */
	const struct jh_sealed *own;	/* sealed here: not checked again */
};

/*
 * Chains one sealed receipt p[0..n) (jh-chain(1)): its chain/1 entry is
 * appended durably to its session's log and put into entry.  Returns 0;
 * 1 when the receipt is refused and 2 when it could not be done (the
 * lock, I/O, a damaged log), with why in e.  note says what was mended
 * on the way (a torn tail cut), or is empty.
 */
int	jh_chain_receipt(struct jh_buf *entry, const struct jh_chainer *c,
	    const uint8_t *p, size_t n, struct jh_err *note, struct jh_err *e);

#endif /* JH_CHAIN_H */
