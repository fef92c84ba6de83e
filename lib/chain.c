/*
 * joulehook: the per-session hash-chained log (jh-chain(1)).
 *
 * A log is a CBOR sequence of chain/1 entries; entry n countersigns
 * {seq: n, prev: SHA-256(entry n-1) or 32 zero bytes, session, receipt}.
 * Appends happen under an exclusive flock(2) on the log itself (never a
 * classic fcntl lock, which threads do not exclude and which any close
 * releases), waited on with jh_flock's timer rather than a polling loop.
 * The head (seq, offset, hash, running tallies) is a fixed record in a
 * sidecar, pwritten after each durable append: a hint checked against the
 * entry it names, never evidence, recovered by scanning when stale.
 *
 * State files are opened by statefs.c: O_NOFOLLOW under a directory opened
 * O_DIRECTORY|O_NOFOLLOW and must be regular files owned by the user,
 * with one link and no group or other write (jh-chain(1), State files).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "chain.h"
#include "cose.h"
#include "keys.h"
#include "kinds.h"
#include "statefs.h"
#include "util.h"

#define HEAD_MAGIC	"JHHEAD3"	/* JHHEAD1, JHHEAD2 (no index): rebuilt */

/*
 * The index (jh_idx_get): a table of IDX_SLOTS slots, each filed under a
 * key's tag, its slot the tag's first word modulo the size, a later key
 * taking the slot of an earlier one: a lookup costs one pread, whatever
 * the log's length, and a miss falls back to reading the log.
 */
#define IDX_SLOTS	4096
#define IDX_TAG		16

struct idx_slot {
	uint8_t tag[IDX_TAG];	/* SHA-256 of the kind and key, cut */
	uint64_t off;		/* of the chain/1 entry */
	uint32_t len;
	uint32_t crc;		/* of the fields above */
};

/* The file name of a session's log: a digest, never the raw id. */
void
jh_log_name(char *out, const uint8_t *session, size_t n)
{
	uint8_t h[JH_HASH_LEN];

	crypto_hash_sha256(h, session, n);
	jh_hex(out, h, sizeof(h));
	memcpy(out + 64, ".jhl", 5);
}

void
jh_log_init(struct jh_log *l)
{
	memset(l, 0, sizeof(*l));
	l->dirfd = l->fd = l->hfd = l->ifd = -1;
}

void
jh_log_close(struct jh_log *l)
{
	if (l->ifd != -1)
		close(l->ifd);
	if (l->hfd != -1)
		close(l->hfd);
	if (l->fd != -1)
		close(l->fd);
	if (l->dirfd != -1)
		close(l->dirfd);
	jh_log_init(l);
}

/*
 * Opens a log and its sidecar: with a state directory, the log of a
 * session under <state>/logs/; with a path, that file.  The directory is
 * opened first, O_NOFOLLOW, so nothing in the state can be redirected.
 */
int
jh_log_open(struct jh_log *l, const char *state, const char *path,
    const uint8_t *session, size_t slen, int create, struct jh_err *e)
{
	char hname[sizeof(l->name) + 8];
	int sfd;

	jh_log_init(l);
	if (path != NULL) {
		const char *slash = strrchr(path, '/');
		char dir[4096];

		if (slash == NULL)
			strcpy(dir, ".");
		else if (slash == path)
			strcpy(dir, "/");
		else {
			if ((size_t)(slash - path) >= sizeof(dir))
				return (jh_errf(e, "%s: path too long", path));
			memcpy(dir, path, (size_t)(slash - path));
			dir[slash - path] = '\0';
		}
		if (strlen(slash ? slash + 1 : path) >= sizeof(l->name) - 6)
			return (jh_errf(e, "%s: name too long", path));
		strcpy(l->name, slash ? slash + 1 : path);
		l->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (l->dirfd == -1)
			return (jh_errf(e, "%s: %s", dir, strerror(errno)));
	} else {
		if ((sfd = jh_open_dir(AT_FDCWD, state, create, e)) == -1)
			return (-1);
		l->dirfd = jh_open_dir(sfd, "logs", create, e);
		close(sfd);
		if (l->dirfd == -1)
			return (-1);
		jh_log_name(l->name, session, slen);
	}
	if ((l->fd = jh_open_state(l->dirfd, l->name, create, &l->created,
	    e)) == -1) {
		jh_log_close(l);
		return (-1);
	}
	snprintf(hname, sizeof(hname), "%s.head", l->name);
	/* The sidecar is a hint: (re)made whenever the log exists. */
	if ((l->hfd = jh_open_state(l->dirfd, hname, 1, NULL, e)) == -1) {
		jh_log_close(l);
		return (-1);
	}
	/* So is the index. */
	snprintf(hname, sizeof(hname), "%s.idx", l->name);
	if ((l->ifd = jh_open_state(l->dirfd, hname, 1, NULL, e)) == -1) {
		jh_log_close(l);
		return (-1);
	}
	return (0);
}

static int
read_at(int fd, uint8_t *p, size_t n, uint64_t off)
{
	ssize_t r;

	while (n > 0) {
		r = pread(fd, p, n, (off_t)off);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return (-1);
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return (0);
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return (a + b < a ? UINT64_MAX : a + b);
}

static uint64_t
uint_of(const struct jh_cbor *m, const char *k)
{
	const struct jh_cbor *v = jh_cbor_get(m, k);

	return (v != NULL && v->type == JH_CBOR_UINT ? v->u : 0);
}

/*
 * Adds a receipt's figures to the display tallies.  Energy is kept by
 * grade, never summed across grades: a tool action's debit (a nominal
 * estimate), a hardware reading (measured_uj, HwShunt only), the
 * estimate of a ModelBased unit and that of an Estimator unit.  A unit
 * counts as enforced only when the proxy sealed it (source "proxy")
 * with enforced 1 (jh-status(1): enforced or only observed).
 */
void
jh_head_tally(struct jh_head *h, const struct jh_cbor *core)
{
	const struct jh_cbor *v, *en, *ts;
	int kid;

	v = jh_cbor_get(core, "kind");
	kid = v && v->type == JH_CBOR_TEXT && v->len < 32 ? 0 : -1;
	if (kid == 0) {
		char k[32];
		memcpy(k, v->p, v->len);
		k[v->len] = '\0';
		kid = jh_kind_lookup(k);
	}
	if ((ts = jh_cbor_get(core, "ts")) != NULL && ts->type ==
	    JH_CBOR_UINT) {
		if (h->first_ts == 0)
			h->first_ts = ts->u;
		h->last_ts = ts->u;
	}
	if (kid == JH_KIND_DECISION) {
		h->tools_uj = add_sat(h->tools_uj, uint_of(core,
		    "debited_uj"));
		v = jh_cbor_get(core, "verdict");
		if (jh_cbor_text_is(v, "allow"))
			h->n_allow++;
		else if (jh_cbor_text_is(v, "deny"))
			h->n_deny++;
		else if (jh_cbor_text_is(v, "ask"))
			h->n_ask++;
		else if (jh_cbor_text_is(v, "rewrite"))
			h->n_rewrite++;
	} else if (kid == JH_KIND_RESULT) {
		/* An ask the human approved debits when it settles. */
		h->tools_uj = add_sat(h->tools_uj, uint_of(core,
		    "debited_uj"));
		h->n_other++;
	} else if (kid == JH_KIND_EFFICIENCY && jh_cbor_text_is(
	    jh_cbor_get(core, "source"), "aggregate")) {
		/* A task's roll-up of units already counted. */
		h->n_other++;
	} else if (kid == JH_KIND_EFFICIENCY) {
		h->n_eff++;
		h->eff_debited_uj = add_sat(h->eff_debited_uj, uint_of(core,
		    "debited_uj"));
		en = jh_cbor_get(core, "energy");
		v = jh_cbor_get(en, "provenance");
		if (jh_cbor_text_is(v, "HwShunt") && (v = jh_cbor_get(en,
		    "measured_uj")) != NULL && v->type == JH_CBOR_UINT) {
			h->n_measured++;
			h->measured_uj = add_sat(h->measured_uj, v->u);
		} else if (jh_cbor_text_is(v, "ModelBased"))
			h->modelled_uj = add_sat(h->modelled_uj, uint_of(en,
			    "estimated_uj"));
		else
			h->estimated_uj = add_sat(h->estimated_uj, uint_of(en,
			    "estimated_uj"));
		if (uint_of(core, "enforced") == 1 &&
		    jh_cbor_text_is(jh_cbor_get(core, "source"), "proxy"))
			h->n_enforced++;
		else
			h->n_observed++;
	} else
		h->n_other++;
}

static void
idx_slot(struct idx_slot *s, uint32_t *slot, const char *kind,
    const uint8_t *key, size_t klen)
{
	crypto_hash_sha256_state st;
	uint8_t h[JH_HASH_LEN];

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const uint8_t *)"joulehook/idx", 14);
	crypto_hash_sha256_update(&st, (const uint8_t *)kind, strlen(kind) + 1);
	crypto_hash_sha256_update(&st, key, klen);
	crypto_hash_sha256_final(&st, h);
	memset(s, 0, sizeof(*s));
	memcpy(s->tag, h, IDX_TAG);
	*slot = ((uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
	    (uint32_t)h[3] << 24) % IDX_SLOTS;
}

static int
idx_put(int ifd, const char *kind, const struct jh_cbor *key, uint64_t off,
    size_t len)
{
	struct idx_slot s;
	uint32_t slot;

	if (key == NULL || key->type != JH_CBOR_TEXT)
		return (0);
	idx_slot(&s, &slot, kind, key->p, key->len);
	s.off = off;
	s.len = (uint32_t)len;
	s.crc = jh_crc32(&s, offsetof(struct idx_slot, crc));
	return (pwrite(ifd, &s, sizeof(s), (off_t)slot * sizeof(s)) ==
	    (ssize_t)sizeof(s) ? 0 : -1);
}

/* Files the entry at off under its calls, when its receipt is a decision. */
static int
idx_entry(int ifd, const struct jh_cbor *rcore, uint64_t off, size_t len)
{
	if (!jh_cbor_text_is(jh_cbor_get(rcore, "kind"), "decision/1"))
		return (0);
	if (idx_put(ifd, JH_IDX_CALL, jh_cbor_get(rcore, "tool_use_id"), off,
	    len) == -1)
		return (-1);
	if (!jh_cbor_text_is(jh_cbor_get(rcore, "verdict"), "rewrite"))
		return (0);
	return (idx_put(ifd, JH_IDX_REWRITE, jh_cbor_get(rcore,
	    "updated_digest"), off, len));
}

int
jh_idx_get(int ifd, const char *kind, const char *key, uint64_t *off,
    uint32_t *len)
{
	struct idx_slot want, s;
	uint32_t slot;

	idx_slot(&want, &slot, kind, (const uint8_t *)key, strlen(key));
	if (pread(ifd, &s, sizeof(s), (off_t)slot * sizeof(s)) !=
	    (ssize_t)sizeof(s) || memcmp(s.tag, want.tag, IDX_TAG) != 0 ||
	    s.crc != jh_crc32(&s, offsetof(struct idx_slot, crc)) ||
	    s.len == 0)
		return (-1);
	*off = s.off;
	*len = s.len;
	return (0);
}

static void
head_seal(struct jh_head *h)
{
	memcpy(h->magic, HEAD_MAGIC, sizeof(h->magic));
	h->crc = jh_crc32(h, offsetof(struct jh_head, crc));
}

static int
head_valid(const struct jh_head *h)
{
	return (memcmp(h->magic, HEAD_MAGIC, sizeof(h->magic)) == 0 &&
	    h->crc == jh_crc32(h, offsetof(struct jh_head, crc)));
}

/* Reads the sidecar; returns 0 with a record that passes its CRC. */
int
jh_head_read(struct jh_head *h, int hfd)
{
	memset(h, 0, sizeof(*h));
	if (read_at(hfd, (uint8_t *)h, sizeof(*h), 0) == -1 || !head_valid(h)) {
		memset(h, 0, sizeof(*h));
		return (-1);
	}
	return (0);
}

/*
 * Checks one complete entry during a scan: a chain/1 envelope whose seq
 * and prev continue the head; updates the head.
 */
static int
scan_entry(struct jh_head *h, const uint8_t *p, size_t n, uint64_t off,
    const struct jh_keyset *ks, int verify_sig, int ifd, uint8_t *session,
    size_t *slen, struct jh_err *e)
{
	static const uint8_t zero[JH_HASH_LEN];
	struct jh_arena a;
	struct jh_env env, inner;
	const struct jh_cbor *seq, *prev, *rc, *sess;
	int rcode = -1;

	jh_arena_init(&a);
	if (jh_env_parse(&env, &a, p, n, e) == -1)
		goto out;
	if (strcmp(env.kind, "chain/1") != 0) {
		jh_errf(e, "entry is a %s, not a chain/1", env.kind);
		goto out;
	}
	if (jh_kind_check(env.core, JH_KIND_CHAIN, e) == -1)
		goto out;
	seq = jh_cbor_get(env.core, "seq");
	prev = jh_cbor_get(env.core, "prev");
	sess = jh_cbor_get(env.core, "session");
	if (seq->u != h->count) {
		jh_errf(e, "seq %llu where %llu was due",
		    (unsigned long long)seq->u, (unsigned long long)h->count);
		goto out;
	}
	if (memcmp(prev->p, h->count ? h->hash : zero, JH_HASH_LEN) != 0) {
		jh_errf(e, "prev does not match the previous entry");
		goto out;
	}
	if (h->count == 0) {
		if (sess->len > JH_SESSION_MAX) {
			jh_errf(e, "session id too long");
			goto out;
		}
		memcpy(session, sess->p, sess->len);
		*slen = sess->len;
	} else if (sess->len != *slen || memcmp(sess->p, session, *slen)) {
		jh_errf(e, "entry of another session");
		goto out;
	}
	if (verify_sig) {
		if (!jh_keyset_has(ks, env.kid, JH_ROLE_STEWARD)) {
			jh_errf(e, "entry signed by an untrusted key");
			goto out;
		}
		if (jh_env_verify_sig(&env, e) == -1)
			goto out;
	}
	rc = jh_cbor_get(env.core, "receipt");
	if (jh_env_parse(&inner, &a, rc->p, rc->len, e) == -1)
		goto out;
	jh_head_tally(h, inner.core);
	/* the index is rebuilt with the head; a slot not written leaves it short */
	if (ifd != -1 && h->idx_end == off && idx_entry(ifd, inner.core, off,
	    n) == 0)
		h->idx_end = off + n;
	crypto_hash_sha256(h->hash, p, n);
	h->last_off = off;
	h->end = off + n;
	h->count++;
	rcode = 0;
out:
	jh_arena_free(&a);
	return (rcode);
}

/*
 * The partial item at off that r found at the end of the log: a torn
 * tail, cut when cut is set (its size in *cutbytes), or -1 with e set
 * where it is damage: it does not start as an entry, is over the
 * limit, or holds a whole entry (a torn append never does: a length
 * altered in a complete entry hides the entries after it).
 */
static int
torn_tail(struct jh_log *l, const struct jh_reader *r, uint64_t off,
    int cut, uint64_t *cutbytes, struct jh_err *e)
{
	uint64_t torn = r->offset + r->b.len - off;

	if (r->b.p[r->pos] != 0xd2 || torn > JH_MAX_RECORD)
		return (jh_errf(e, "%s: damaged at offset %llu: %llu trailing "
		    "bytes that are not an entry", l->name,
		    (unsigned long long)off, (unsigned long long)torn));
	if (jh_env_within(r->b.p + r->pos, r->b.len - r->pos, "chain/1"))
		return (jh_errf(e, "%s: damaged at offset %llu: an entry's "
		    "length was altered, and the %llu bytes after it hold "
		    "whole entries: not a torn append, never cut", l->name,
		    (unsigned long long)off, (unsigned long long)torn));
	if (cut && (ftruncate(l->fd, (off_t)off) == -1 || fsync(l->fd) == -1))
		return (jh_errf(e, "%s: %s", l->name, strerror(errno)));
	*cutbytes = torn;
	return (0);
}

/*
 * Scans the log from the start to rebuild the head.  Structure, seq and
 * prev links are checked for every entry; the signature of the last one.
 * An incomplete item at the end that starts like an envelope and is
 * shorter than the largest entry is a torn tail: with cut set it is
 * truncated away and *cutbytes reports its size.  A complete item that
 * does not check is damage, never truncated.
 */
int
jh_log_scan(struct jh_log *l, const struct jh_keyset *ks, int cut,
    uint64_t *cutbytes, struct jh_err *e)
{
	struct jh_reader r;
	struct jh_head h;
	const uint8_t *item;
	uint64_t off, last_off = 0;
	uint8_t *session;
	size_t len, slen = 0;
	int x, rc = -1;

	*cutbytes = 0;
	memset(&h, 0, sizeof(h));
	if (lseek(l->fd, 0, SEEK_SET) == -1)
		return (jh_errf(e, "%s: %s", l->name, strerror(errno)));
	if ((session = malloc(JH_SESSION_MAX)) == NULL)
		return (jh_errf(e, "out of memory"));
	/* An appender's scan rebuilds the index; a reader's leaves it. */
	if (cut && l->ifd != -1 && ftruncate(l->ifd, 0) == -1)
		h.idx_end = UINT64_MAX;
	jh_reader_init(&r, l->fd);
	for (;;) {
		off = r.offset + r.pos;
		x = jh_reader_cbor(&r, &item, &len, e);
		if (x == 0)
			break;
		if (x == JH_CBOR_TRUNCATED) {
			if (torn_tail(l, &r, off, cut, cutbytes, e) == -1)
				goto out;
			break;
		}
		if (x != 1) {
			char m[sizeof(e->msg)];
			memcpy(m, e->msg, sizeof(m));
			jh_errf(e, "%s: damaged at offset %llu: %s", l->name,
			    (unsigned long long)off, m);
			goto out;
		}
		/* Signatures are checked on the last entry below. */
		if (scan_entry(&h, item, len, off, ks, 0, cut ? l->ifd : -1,
		    session, &slen, e) == -1) {
			char m[sizeof(e->msg)];
			memcpy(m, e->msg, sizeof(m));
			jh_errf(e, "%s: damaged at entry %llu (offset %llu): "
			    "%s", l->name, (unsigned long long)h.count,
			    (unsigned long long)off, m);
			goto out;
		}
		last_off = off;
	}
	if (h.count > 0) {
		/* Re-check the last entry's signature. */
		uint8_t *buf = malloc((size_t)(h.end - last_off));
		int ok;

		if (buf == NULL) {
			jh_errf(e, "out of memory");
			goto out;
		}
		ok = read_at(l->fd, buf, (size_t)(h.end - last_off),
		    last_off) == 0;
		if (ok) {
			struct jh_arena a;
			struct jh_env env;
			jh_arena_init(&a);
			ok = jh_env_parse(&env, &a, buf, (size_t)(h.end -
			    last_off), e) == 0 && jh_keyset_has(ks, env.kid,
			    JH_ROLE_STEWARD) && jh_env_verify_sig(&env, e) == 0;
			jh_arena_free(&a);
		}
		free(buf);
		if (!ok) {
			jh_errf(e, "%s: the last entry (offset %llu) does not "
			    "verify", l->name, (unsigned long long)last_off);
			goto out;
		}
	}
	memcpy(l->session, session, slen);
	l->slen = slen;
	l->head = h;
	rc = 0;
out:
	free(session);
	jh_reader_free(&r);
	return (rc);
}

/*
 * Finds the head: the sidecar when it names the entry that really ends
 * the log, else a scan.  Called with the log locked.
 */
int
jh_log_head(struct jh_log *l, const struct jh_keyset *ks, int cut,
    uint64_t *cutbytes, struct jh_err *e)
{
	struct jh_head h;
	struct stat st;
	uint8_t *buf;
	uint8_t hash[JH_HASH_LEN];
	int ok = 0, have;

	*cutbytes = 0;
	if (fstat(l->fd, &st) == -1)
		return (jh_errf(e, "%s: %s", l->name, strerror(errno)));
	/*
	 * The sidecar is written only after an append is durable, so it
	 * never runs ahead of the log: a log shorter than the entries its
	 * sidecar acknowledged was cut, not torn by a crash.  An appender
	 * does not start it over (which would hide the cut) but refuses.
	 */
	have = jh_head_read(&h, l->hfd) == 0;
	if (cut && have && h.count > 0 && h.end > (uint64_t)st.st_size)
		return (jh_errf(e, "%s: cut below the %llu entries (%llu "
		    "bytes) its .head acknowledged, to %llu: not a crash; "
		    "nothing is appended.  Check it (jh-verify -c), move it "
		    "and its .head aside to go on",
		    l->name,
		    (unsigned long long)h.count, (unsigned long long)h.end,
		    (unsigned long long)st.st_size));
	if (st.st_size == 0) {
		memset(&l->head, 0, sizeof(l->head));
		l->slen = 0;
		l->have_session = 0;
		return (0);
	}
	if (have && h.count > 0 &&
	    h.end == (uint64_t)st.st_size && h.last_off < h.end &&
	    h.end - h.last_off <= JH_MAX_RECORD) {
		if ((buf = malloc((size_t)(h.end - h.last_off))) != NULL) {
			if (read_at(l->fd, buf, (size_t)(h.end - h.last_off),
			    h.last_off) == 0) {
				crypto_hash_sha256(hash, buf,
				    (size_t)(h.end - h.last_off));
				ok = memcmp(hash, h.hash, JH_HASH_LEN) == 0;
				if (ok) {
					struct jh_arena a;
					struct jh_env env;
					const struct jh_cbor *s;
					jh_arena_init(&a);
					ok = jh_env_parse(&env, &a, buf,
					    (size_t)(h.end - h.last_off),
					    e) == 0 &&
					    (s = jh_cbor_get(env.core,
					    "session")) != NULL &&
					    s->type == JH_CBOR_TEXT &&
					    s->len <= JH_SESSION_MAX;
					if (ok) {
						memcpy(l->session, s->p,
						    s->len);
						l->slen = s->len;
					}
					jh_arena_free(&a);
				}
			}
			free(buf);
		}
	}
	/* An appender rebuilds an index a failed write left short. */
	if (ok && cut && h.idx_end != h.end)
		ok = 0;
	if (ok) {
		l->head = h;
		l->have_session = 1;
		return (0);
	}
	if (jh_log_scan(l, ks, cut, cutbytes, e) == -1)
		return (-1);
	l->have_session = l->head.count > 0;
	return (0);
}

/*
 * Appends one receipt (already checked by the caller) as a chain/1
 * entry: one write at the end, fsync, the directory's fsync for a new
 * file, then the sidecar.  Called with the log locked; on any failure
 * the log is cut back to where it was and nothing is acknowledged.
 * With sync 0 the entry is written but not synced (the caller syncs it,
 * or a later append does), except the first of a new file.
 */
int
jh_log_append(struct jh_log *l, const struct jh_key *k,
    const uint8_t *receipt, size_t rlen, const struct jh_cbor *rcore,
    uint64_t now, const uint8_t *nonce, int sync, struct jh_buf *entry,
    struct jh_err *e)
{
	static const uint8_t zero[JH_HASH_LEN];
	const struct jh_cbor *sess = jh_cbor_get(rcore, "session");
	struct jh_buf core;
	struct jh_cmap m;
	struct jh_head h = l->head;
	ssize_t w;
	size_t done;
	int rc = -1, idx_ok;

	jh_buf_init(&core);
	jh_cmap_init(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "profile", 7), JH_PROFILE,
	    strlen(JH_PROFILE));
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "kind", 4), "chain/1", 7);
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "steward", 7), k->did,
	    strlen(k->did));
	jh_cmap_next(&m);
	jh_cbor_put_uint(jh_cmap_tkey(&m, "ts", 2), now);
	jh_cmap_next(&m);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "nonce", 5), nonce, JH_NONCE_LEN);
	jh_cmap_next(&m);
	jh_cbor_put_uint(jh_cmap_tkey(&m, "seq", 3), h.count);
	jh_cmap_next(&m);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "prev", 4), h.count ? h.hash : zero,
	    JH_HASH_LEN);
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "session", 7),
	    (const char *)sess->p, sess->len);
	jh_cmap_next(&m);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "receipt", 7), receipt, rlen);
	jh_cmap_next(&m);
	if (jh_cmap_finish(&core, &m, e) == -1)
		goto out;
	jh_buf_reset(entry);
	if (jh_seal(entry, k, core.p, core.len, e) == -1)
		goto out;
	if (entry->len > JH_MAX_RECORD) {
		jh_errf(e, "entry larger than %u bytes", JH_MAX_RECORD);
		goto out;
	}
	/* One write; a short one (a full disk) is retried to get errno. */
	for (done = 0; done < entry->len; done += (size_t)w) {
		w = pwrite(l->fd, entry->p + done, entry->len - done,
		    (off_t)(h.end + done));
		if (w == -1 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0) {
			jh_errf(e, "%s: write: %s", l->name, w == -1 ?
			    strerror(errno) : "no progress");
			goto cutback;
		}
	}
	if ((sync || l->created) && fsync(l->fd) == -1) {
		jh_errf(e, "%s: fsync: %s", l->name, strerror(errno));
		goto cutback;
	}
	if (l->created && fsync(l->dirfd) == -1) {
		jh_errf(e, "%s: fsync of the directory: %s", l->name,
		    strerror(errno));
		goto cutback;
	}
	l->created = 0;
	/* The index stays complete while every append files its entry. */
	idx_ok = h.idx_end == h.end && (h.count > 0 ||
	    ftruncate(l->ifd, 0) == 0) && idx_entry(l->ifd, rcore, h.end,
	    entry->len) == 0;
	h.last_off = h.end;
	h.end += entry->len;
	if (idx_ok)
		h.idx_end = h.end;
	crypto_hash_sha256(h.hash, entry->p, entry->len);
	h.count++;
	jh_head_tally(&h, rcore);
	head_seal(&h);
	/* A hint: no fsync; a stale one is detected and rebuilt. */
	if (pwrite(l->hfd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		(void)0;
	l->head = h;
	rc = 0;
	goto out;
cutback:
	if (ftruncate(l->fd, (off_t)l->head.end) == 0)
		(void)fsync(l->fd);
out:
	jh_cmap_free(&m);
	jh_buf_free(&core);
	return (rc);
}

/* Whether a receipt p[0..n) may be chained: its kind, steward, signature. */
static int
chainable(const struct jh_chainer *c, struct jh_env *env,
    struct jh_arena *a, const uint8_t *p, size_t n, struct jh_err *e)
{
	const struct jh_cbor *sess;
	char did[JH_DIDKEY_MAX];
	int kid;

	if (jh_env_parse(env, a, p, n, e) == -1)
		return (-1);
	kid = jh_kind_lookup(env->kind);
	if (kid != JH_KIND_DECISION && kid != JH_KIND_EFFICIENCY &&
	    kid != JH_KIND_RESULT && kid != JH_KIND_HOLD)
		return (jh_errf(e, "a %s belongs to no session; not chained",
		    env->kind));
	jh_didkey_enc(did, sizeof(did), env->kid);
	if (!jh_keyset_has(c->keys, env->kid, JH_ROLE_STEWARD))
		return (jh_errf(e, "signed by %s, not a trusted steward", did));
	if (jh_env_check_sig(env, c->own, p, n, e) == -1 ||
	    jh_kind_check(env->core, kid, e) == -1)
		return (-1);
	if (!jh_cbor_text_is(jh_cbor_get(env->core, "steward"), did))
		return (jh_errf(e, "steward is not the kid"));
	sess = jh_cbor_get(env->core, "session");
	if (sess->len == 0 || sess->len > JH_SESSION_MAX)
		return (jh_errf(e, "session id is empty or longer than %u "
		    "bytes", JH_SESSION_MAX));
	return (0);
}

/*
 * Appends the checked receipt to its session's log under the lock: the
 * head found (a torn tail cut, said in note), the receipt's session and
 * time checked against it, then the durable append.  Returns 0, 1 for a
 * refusal, 2 when it could not be done.
 */
static int
append_locked(struct jh_buf *entry, const struct jh_chainer *c,
    struct jh_log *l, const struct jh_env *env, const uint8_t *p, size_t n,
    struct jh_err *note, struct jh_err *e)
{
	const struct jh_cbor *sess = jh_cbor_get(env->core, "session");
	const struct jh_cbor *ts = jh_cbor_get(env->core, "ts");
	uint8_t nonce[JH_NONCE_LEN];
	uint64_t cut = 0;
	char m[sizeof(e->msg)];

	if (jh_flock(l->fd, LOCK_EX, c->wait_ms, e) == -1) {
		memcpy(m, e->msg, sizeof(m));
		jh_errf(e, "%s: %s", l->name, m);
		return (2);
	}
	if (jh_log_head(l, c->keys, 1, &cut, e) == -1) {
		memcpy(m, e->msg, sizeof(m));
		jh_errf(e, "%s; refusing to append (run jh-verify on it)", m);
		return (2);
	}
	if (cut > 0)
		jh_errf(note, "%s: cut a torn tail of %llu bytes (an append "
		    "that never completed)", l->name, (unsigned long long)cut);
	if (l->head.count > 0 && (l->slen != sess->len ||
	    memcmp(l->session, sess->p, sess->len) != 0)) {
		jh_errf(e, "session is not the log's");
		return (1);
	}
	if (l->head.count > 0 && ts->u < l->head.last_ts &&
	    l->head.last_ts - ts->u > c->deadline_ms) {
		jh_errf(e, "predates the head by more than %llu ms",
		    (unsigned long long)c->deadline_ms);
		return (1);
	}
	jh_nonce(nonce);
	if (jh_log_append(l, c->key, p, n, env->core, jh_now_ms(), nonce, 1,
	    entry, e) == -1)
		return (2);
	return (0);
}

int
jh_chain_receipt(struct jh_buf *entry, const struct jh_chainer *c,
    const uint8_t *p, size_t n, struct jh_err *note, struct jh_err *e)
{
	struct jh_arena a;
	struct jh_env env;
	struct jh_log *l;
	const struct jh_cbor *sess;
	int rc;

	note->msg[0] = '\0';
	jh_buf_reset(entry);
	jh_arena_init(&a);
	if (chainable(c, &env, &a, p, n, e) == -1) {
		jh_arena_free(&a);
		return (1);
	}
	sess = jh_cbor_get(env.core, "session");
	if ((l = malloc(sizeof(*l))) == NULL) {
		jh_arena_free(&a);
		jh_errf(e, "out of memory");
		return (2);
	}
	if (jh_log_open(l, c->state, c->logfile, sess->p, sess->len, 1,
	    e) == -1)
		rc = 2;
	else {
		rc = append_locked(entry, c, l, &env, p, n, note, e);
		/* the caller writes the entry out after the lock is gone */
		flock(l->fd, LOCK_UN);
		jh_log_close(l);
	}
	free(l);
	jh_arena_free(&a);
	return (rc);
}
