/*
 * joulehook: the ledger, spent and held microjoules per grant
 * (joulehook-formats(5), The ledger).
 *
 * <state>/ledger/<grant hex> holds two fixed slots; each update writes
 * the slot the newer one is not, with a higher seq and a CRC, and syncs
 * it, so a crash mid-write leaves the other slot intact (R4).  The file
 * is never renamed or replaced, so the flock(2) on it always guards the
 * live data.  A ledger is only ever created by an explicit init: a
 * missing one is an error, so deleting it cannot reset a budget.
 *
 * Amounts are unsigned 64-bit and saturate.  A hold is a record {id,
 * amount, owner pid and start time, ts}: an ask hold is keyed by the
 * tool_use_id and has no owner; a proxy hold names the process that
 * placed it, and a hold whose owner died settles to its worst case.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jh.h"
#include "buf.h"
#include "ledger.h"
#include "statefs.h"
#include "util.h"

#define LEDGER_MAGIC	"JHLEDG1"

uint64_t
jh_add_sat(uint64_t a, uint64_t b)
{
	return (a + b < a ? UINT64_MAX : a + b);
}

static uint32_t
slot_crc(const struct jh_ledger *s)
{
	return (jh_crc32(s, offsetof(struct jh_ledger, crc)));
}

static int
slot_valid(const struct jh_ledger *s)
{
	return (memcmp(s->magic, LEDGER_MAGIC, sizeof(s->magic)) == 0 &&
	    s->crc == slot_crc(s) && s->nholds <= JH_LEDGER_HOLDS);
}

/*
 * The ledger directory, opened and checked, created 0755 (less the
 * umask) with its parent when create is 1.
 */
static int
ledger_dir(const char *dir, const char *name, int create, struct jh_err *e)
{
	char parent[4096];
	const char *slash;
	int dfd;

	if (create) {
		if ((slash = strrchr(dir, '/')) != NULL && slash != dir &&
		    (size_t)(slash - dir) < sizeof(parent)) {
			memcpy(parent, dir, (size_t)(slash - dir));
			parent[slash - dir] = '\0';
			if (mkdir(parent, 0755) == -1 && errno != EEXIST)
				return (jh_errf(e, "%s: %s", parent,
				    strerror(errno)));
		}
		if (mkdir(dir, 0755) == -1 && errno != EEXIST)
			return (jh_errf(e, "%s: %s", dir, strerror(errno)));
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd == -1 && errno == ENOENT)
		return (jh_errf(e, "no ledger for grant sha256:%s (no ledger "
		    "directory %s; jh-decide -I creates it)", name, dir));
	if (dfd == -1)
		return (jh_errf(e, "%s: %s", dir, strerror(errno)));
	if (jh_state_check(dfd, JH_ST_DIR, dir, e) == -1) {
		close(dfd);
		return (-1);
	}
	return (dfd);
}

/*
 * Opens <dir>/<grant hex>, dir being the ledger directory (normally
 * JH_STATE/ledger), created 0755 (less the umask) with its parent when
 * create is 1.  create JH_LEDGER_READ opens it only to read, as a
 * reader of another user's records may (jh_state_check).
 */
int
jh_ledger_open(const char *dir, const uint8_t *grant, int create,
    int *created, struct jh_err *e)
{
	char name[2 * JH_HASH_LEN + 1];
	int dfd, fd;

	jh_hex(name, grant, JH_HASH_LEN);
	if (created != NULL)
		*created = 0;
	if (create == JH_LEDGER_READ) {
		if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			return (jh_errf(e, "no ledger for grant sha256:%s (%s: "
			    "%s)", name, dir, strerror(errno)));
		if (jh_state_check(dfd, JH_ST_DIR | JH_ST_READ, dir, e) ==
		    -1) {
			close(dfd);
			return (-1);
		}
		fd = jh_st_file(dfd, name, e);
		close(dfd);
		return (fd);
	}
	if ((dfd = ledger_dir(dir, name, create, e)) == -1)
		return (-1);
	fd = jh_open_state(dfd, name, create, created, e);
	if (fd == -1 && !create && errno == ENOENT)
		jh_errf(e, "no ledger for grant sha256:%s (jh-decide -I "
		    "creates one; it is never made implicitly, so deleting it "
		    "cannot reset a budget)", name);
	if (fd != -1 && created != NULL && *created && fsync(dfd) == -1) {
		jh_errf(e, "%s: %s", dir, strerror(errno));
		close(fd);
		fd = -1;
	}
	close(dfd);
	return (fd);
}

/*
 * Makes a new ledger whole or not at all: both slots of l are written
 * and synced to a file of this process's beside it, which is then given
 * the ledger's name only if no ledger has it (RENAME_NOREPLACE, else a
 * link).  A full disk or a crash while it is made thus never leaves an
 * empty or half-written ledger, which could not be told from a damaged
 * one and would be refused for good.  0 when made, 1 when there was one
 * already, -1 on an error (and nothing made).
 */
static int
ledger_create(const char *dir, const uint8_t *grant, struct jh_ledger *l,
    struct jh_err *e)
{
	char name[2 * JH_HASH_LEN + 1], tmp[2 * JH_HASH_LEN + 32];
	int dfd, fd, r, rc = -1;

	jh_hex(name, grant, JH_HASH_LEN);
	snprintf(tmp, sizeof(tmp), "%s.%ld.new", name, (long)getpid());
	if ((dfd = ledger_dir(dir, name, 1, e)) == -1)
		return (-1);
	/* one of a dead process of this pid: never anyone else's */
	unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		jh_errf(e, "%s/%s: %s", dir, tmp, strerror(errno));
		goto out;
	}
	/* Both slots valid from the start. */
	if (jh_ledger_write(fd, l, 1, e) == -1 ||
	    jh_ledger_write(fd, l, 1, e) == -1)
		goto out;
	r = renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE);
	if (r == -1 && (errno == EINVAL || errno == ENOSYS) &&
	    (r = linkat(dfd, tmp, dfd, name, 0)) == 0)
		unlinkat(dfd, tmp, 0);
	if (r == -1 && errno == EEXIST)
		rc = 1;
	else if (r == -1)
		jh_errf(e, "%s/%s: %s", dir, name, strerror(errno));
	else if (fsync(dfd) == -1)
		jh_errf(e, "%s: %s", dir, strerror(errno));
	else
		rc = 0;
out:
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	if (fd != -1)
		close(fd);
	close(dfd);
	return (rc);
}

/*
 * Reads the newest valid slot.  A ledger is always written whole, so one
 * of another size was cut or added to, and is damaged even when a slot
 * in it still checks: its other slot could be the newer one.
 */
int
jh_ledger_read(struct jh_ledger *out, int fd, struct jh_err *e)
{
	struct jh_ledger *s;
	struct stat st;
	ssize_t r;
	int i, best = -1;

	if (fstat(fd, &st) == -1)
		return (jh_errf(e, "ledger: %s", strerror(errno)));
	if (st.st_size != (off_t)(2 * sizeof(*s)))
		return (jh_errf(e, "the ledger is %lld bytes, not %zu "
		    "(damaged)", (long long)st.st_size, 2 * sizeof(*s)));
	if ((s = malloc(2 * sizeof(*s))) == NULL)
		return (jh_errf(e, "out of memory"));
	if ((r = pread(fd, s, 2 * sizeof(*s), 0)) != (ssize_t)(2 *
	    sizeof(*s))) {
		free(s);
		return (jh_errf(e, "cannot read the ledger: %s", r == -1 ?
		    strerror(errno) : "short read"));
	}
	/*
	 * The newest valid slot: the one with the higher sequence where it
	 * is valid, else the other where that one is.  Each slot's CRC runs
	 * over 8800 bytes, at every decision and model call, so the second
	 * is checked only when the first is not valid.
	 */
	i = s[1].seq > s[0].seq;
	if (slot_valid(&s[i]))
		best = i;
	else if (slot_valid(&s[1 - i]))
		best = 1 - i;
	if (best == -1) {
		free(s);
		return (jh_errf(e, "the ledger has no valid slot (damaged)"));
	}
	*out = s[best];
	free(s);
	return (0);
}

/*
 * Writes the next state into the slot not holding the current one, and
 * fsyncs it unless sync is 0: a settlement that only lowers what is
 * counted (a lost one leaves its hold, which its owner's death settles at
 * the worst case) need not wait for the disk.
 */
int
jh_ledger_write(int fd, struct jh_ledger *l, int sync, struct jh_err *e)
{
	off_t off;
	ssize_t w;

	l->seq++;
	memcpy(l->magic, LEDGER_MAGIC, sizeof(l->magic));
	l->crc = slot_crc(l);
	off = (off_t)((l->seq & 1) * sizeof(*l));
	do
		w = pwrite(fd, l, sizeof(*l), off);
	while (w == -1 && errno == EINTR);
	if (w != (ssize_t)sizeof(*l))
		return (jh_errf(e, "ledger write: %s", w == -1 ?
		    strerror(errno) : "short write"));
	/*
	 * fdatasync(2): the slots are written in place, so only a file's
	 * first write of its second slot changes what it takes to read the
	 * data back (its size), and fdatasync writes that; a change of
	 * mtime alone would cost the inode's block a write of its own.
	 */
	if (sync && fdatasync(fd) == -1)
		return (jh_errf(e, "ledger fdatasync: %s", strerror(errno)));
	return (0);
}

/*
 * Creates the ledger of a grant with spent microjoules already spent (0
 * for a new grant; what a replay of the receipts found, to restore a
 * lost ledger).  An existing one is left as it is, except that a replay
 * counting more than it holds raises its spend to that (*raised says by
 * how much): a restore never lowers a ledger.
 */
int
jh_ledger_init(const char *state, const uint8_t *grant, uint64_t budget,
    uint64_t spent, int *existed, uint64_t *raised, struct jh_err *e)
{
	struct jh_ledger *l;
	uint64_t used;
	int fd, made = 1, rc = -1;

	*existed = 0;
	*raised = 0;
	if ((l = calloc(1, sizeof(*l))) == NULL)
		return (jh_errf(e, "out of memory"));
	if ((fd = jh_ledger_open(state, grant, 0, NULL, e)) == -1 &&
	    errno == ENOENT) {
		memcpy(l->grant, grant, JH_HASH_LEN);
		l->budget_uj = budget;
		if (spent > 0)
			jh_ledger_debit(l, "jh-restore", spent, jh_now_ms());
		/* another process may make it first: then it is read */
		if ((made = ledger_create(state, grant, l, e)) == 1)
			fd = jh_ledger_open(state, grant, 0, NULL, e);
	}
	if (fd == -1 || made != 1) {
		free(l);
		if (fd != -1)
			close(fd);
		return (made == 0 ? 0 : -1);
	}
	if (jh_flock(fd, LOCK_EX, 5000, e) == -1)
		goto out;
	if (jh_ledger_read(l, fd, e) == 0) {
		*existed = 1;
		rc = 0;
		used = jh_add_sat(l->spent_uj, l->held_uj);
		if (spent > used) {
			*raised = spent - used;
			jh_ledger_debit(l, "jh-restore", *raised, jh_now_ms());
			rc = jh_ledger_write(fd, l, 1, e);
		}
	} else {
		/* Present but empty or damaged: never overwritten. */
		jh_errf(e, "a ledger exists for this grant but is damaged; "
		    "refusing to reset it");
	}
out:
	free(l);
	close(fd);
	return (rc);
}

/* The process start time, to tell a live owner from a reused pid. */
uint64_t
jh_pid_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "re")) == NULL)
		return (0);
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return (0);
	}
	fclose(f);
	/* Field 22, counted after the ")" that ends the command name. */
	if ((p = strrchr(buf, ')')) == NULL)
		return (0);
	for (i = 2; i < 22 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		sscanf(p + 1, "%llu", &st);
	return (st);
}

/*
 * Settles, to their full amount, the holds nothing will settle any more:
 * a proxy hold whose owner process is gone, and an ask hold older than
 * JH_ASK_TTL_MS (the human's answer is not seen by the gate yet, so the
 * action may have run: counting it is the safe side).  now is in ms.
 */
int
jh_ledger_reap(struct jh_ledger *l, uint64_t now)
{
	uint32_t i = 0;
	int n = 0;

	while (i < l->nholds) {
		struct jh_hold *h = &l->holds[i];
		if ((h->pid > 0 && jh_pid_start(h->pid) != h->start) ||
		    (h->pid == 0 && now > h->ts && now - h->ts > JH_ASK_TTL_MS)) {
			l->held_uj -= h->amount < l->held_uj ? h->amount :
			    l->held_uj;
			jh_ledger_debit(l, h->id, h->amount, now);
			l->holds[i] = l->holds[--l->nholds];
			n++;
			continue;
		}
		i++;
	}
	return (n);
}

uint64_t
jh_ledger_remaining(const struct jh_ledger *l)
{
	uint64_t used = jh_add_sat(l->spent_uj, l->held_uj);

	return (used >= l->budget_uj ? 0 : l->budget_uj - used);
}

static void
ring_add(struct jh_ledger *l, const char *id, uint64_t amount, uint64_t ts)
{
	struct jh_debit *d = &l->ring[l->ndebits % JH_LEDGER_RING];

	memset(d, 0, sizeof(*d));
	snprintf(d->id, sizeof(d->id), "%s", id);
	d->amount = amount;
	d->ts = ts;
	l->ndebits++;
}

/* Debits amount for an action (allow or rewrite), naming its id. */
void
jh_ledger_debit(struct jh_ledger *l, const char *id, uint64_t amount,
    uint64_t ts)
{
	l->spent_uj = jh_add_sat(l->spent_uj, amount);
	ring_add(l, id, amount, ts);
}

int
jh_ledger_hold(struct jh_ledger *l, const char *id, uint64_t amount,
    int pid, uint64_t ts, struct jh_err *e)
{
	struct jh_hold *h;
	uint32_t i;

	/* stored whole or not at all: a cut id could name two holds */
	if (strlen(id) >= sizeof(h->id))
		return (jh_errf(e, "a hold id of %zu bytes is too long (at "
		    "most %zu)", strlen(id), sizeof(h->id) - 1));
	for (i = 0; i < l->nholds; i++)
		if (strncmp(l->holds[i].id, id, sizeof(l->holds[i].id)) == 0)
			return (jh_errf(e, "a hold named %s exists", id));
	if (l->nholds >= JH_LEDGER_HOLDS) {
		/* Full: the oldest ask hold settles to its amount. */
		uint32_t k, old = JH_LEDGER_HOLDS;
		for (k = 0; k < l->nholds; k++)
			if (l->holds[k].pid == 0 && (old == JH_LEDGER_HOLDS ||
			    l->holds[k].ts < l->holds[old].ts))
				old = k;
		if (old == JH_LEDGER_HOLDS)
			return (jh_errf(e, "too many open holds (%d)",
			    JH_LEDGER_HOLDS));
		jh_ledger_settle(l, l->holds[old].id, 0, l->holds[old].amount,
		    0, ts, e);
	}
	h = &l->holds[l->nholds++];
	memset(h, 0, sizeof(*h));
	snprintf(h->id, sizeof(h->id), "%s", id);
	h->amount = amount;
	h->ts = ts;
	h->pid = pid;
	h->start = pid > 0 ? jh_pid_start(pid) : 0;
	l->held_uj = jh_add_sat(l->held_uj, amount);
	return (0);
}

/*
 * Replaces a hold by a debit of amount (settle), or drops it (release,
 * with amount UINT64_MAX meaning nothing is debited).  Only the hold of
 * that id and that owner (pid, 0 for an ask hold): an ask's tool_use_id
 * never settles a proxy's hold of the same name.  Returns -1 when no
 * hold has that id and owner.
 */
int
jh_ledger_settle(struct jh_ledger *l, const char *id, int pid,
    uint64_t amount, int release, uint64_t ts, struct jh_err *e)
{
	uint32_t i;

	for (i = 0; i < l->nholds; i++) {
		struct jh_hold *h = &l->holds[i];
		if (strncmp(h->id, id, sizeof(h->id)) != 0 || h->pid != pid)
			continue;
		l->held_uj -= h->amount < l->held_uj ? h->amount : l->held_uj;
		if (!release)
			jh_ledger_debit(l, id, amount, ts);
		l->holds[i] = l->holds[--l->nholds];
		return (0);
	}
	return (jh_errf(e, "no open hold named %s", id));
}
