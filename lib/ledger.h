/*
 * joulehook: the ledger, spent and held microjoules per grant
 * (ledger.c).  <state>/ledger/<grant hex> holds two fixed slots, each
 * written with a higher seq and a CRC and fsynced, so a crash mid-write
 * leaves the other intact; it is only ever created by an explicit init,
 * so deleting it cannot reset a budget.  Amounts are unsigned and
 * saturate.  The contract is joulehook-formats(5), "The ledger", and
 * jh-decide(1), "Costs and the ledger".
 */
#ifndef JH_LEDGER_H
#define JH_LEDGER_H

#include <stdint.h>

struct jh_err;

#define JH_LEDGER_HOLDS	64
#define JH_LEDGER_RING	32
/* The life of an ask hold no answer settled. */
#define JH_ASK_TTL_MS	(10 * 60 * 1000)

struct jh_hold {
	char id[64];		/* tool_use_id (ask) or request id (proxy) */
	uint64_t amount;
	uint64_t ts;
	int32_t pid;		/* owner, 0 for an ask hold */
	uint32_t pad;
	uint64_t start;		/* owner's start time (/proc stat field 22) */
};

struct jh_debit {
	char id[64];
	uint64_t amount;
	uint64_t ts;
};

struct jh_ledger {		/* one slot, joulehook-formats(5) */
	char magic[8];		/* "JHLEDG1" */
	uint64_t seq;
	uint8_t grant[32];	/* SHA-256 of the grant's payload */
	uint64_t budget_uj;
	uint64_t spent_uj;
	uint64_t held_uj;
	uint32_t nholds;
	uint32_t pad;
	uint64_t ndebits;	/* debits ever; the ring keeps the last ones */
	struct jh_hold holds[JH_LEDGER_HOLDS];
	struct jh_debit ring[JH_LEDGER_RING];
	uint32_t crc;		/* CRC-32 of everything above */
	uint32_t pad2;
};

uint64_t jh_add_sat(uint64_t a, uint64_t b);	/* a + b, saturating */

/*
 * Opens <dir>/<grant hex>, made with its parent when create is 1; with
 * create JH_LEDGER_READ only to read, as another user's reader may.
 */
#define JH_LEDGER_READ	(-1)
int	jh_ledger_open(const char *dir, const uint8_t *grant, int create,
	    int *created, struct jh_err *e);
/* The newest valid slot; a ledger of another size is damaged. */
int	jh_ledger_read(struct jh_ledger *out, int fd, struct jh_err *e);
/* The next state into the other slot, fsynced unless sync is 0. */
int	jh_ledger_write(int fd, struct jh_ledger *l, int sync,
	    struct jh_err *e);
/*
 * Creates a grant's ledger with spent already spent; an existing one is
 * kept, its spend only raised (by *raised) to what a replay counted.
 */
int	jh_ledger_init(const char *state, const uint8_t *grant,
	    uint64_t budget, uint64_t spent, int *existed, uint64_t *raised,
	    struct jh_err *e);

/* The start time of process pid, to tell a live owner from a reused pid. */
uint64_t jh_pid_start(int pid);
/* Settles in full the holds nothing will settle any more; now in ms. */
int	jh_ledger_reap(struct jh_ledger *l, uint64_t now);
uint64_t jh_ledger_remaining(const struct jh_ledger *l);
/* A debit for an action, a hold, and a hold settled or released. */
void	jh_ledger_debit(struct jh_ledger *l, const char *id, uint64_t amount,
	    uint64_t ts);
int	jh_ledger_hold(struct jh_ledger *l, const char *id, uint64_t amount,
	    int pid, uint64_t ts, struct jh_err *e);
int	jh_ledger_settle(struct jh_ledger *l, const char *id, int pid,
	    uint64_t amount, int release, uint64_t ts, struct jh_err *e);

#endif /* JH_LEDGER_H */
