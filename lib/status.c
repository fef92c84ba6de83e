/*
 * joulehook: the receipt surface (jh-status(1)), shared by the status
 * line, the summaries and the MCP server of jh-status.
 *
 * The status line never reads a log through: it checks the sidecar the
 * way jh_log_head does without a scan (CRC, the log's size, the hash of
 * the entry it names) and says "stale" or "unchecked" when that fails.
 * Summaries stream a log once, verifying each entry as jh-verify does,
 * and keep counts, never entries.  Everything here only reads: state
 * files are opened read-only, O_NOFOLLOW, and checked as chain.c checks
 * them (jh-chain(1), State files).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "chain.h"
#include "checkpoint.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "ledger.h"
#include "statefs.h"
#include "status.h"
#include "util.h"
#include "verify.h"

#define LOCK_WAIT_MS	50	/* the longest wait for an append */

void
jh_st_digest(char *hex, const uint8_t *p, size_t n)
{
	uint8_t h[JH_HASH_LEN];

	crypto_hash_sha256(h, p, n);
	jh_hex(hex, h, sizeof(h));
}

int
jh_st_is_digest(const char *s, size_t n)
{
	size_t i;

	if (n != 2 * JH_HASH_LEN)
		return (0);
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'f')))
			return (0);
	return (1);
}

/*
 * Reads the CBOR item at off into b (reset first).  Returns 1 with an
 * item, 0 at the end of the file, JH_CBOR_TRUNCATED for a partial item
 * at the end, JH_CBOR_INVALID for bytes that are not an item, -1 on a
 * read error.
 */
int
jh_st_item(struct jh_buf *b, int fd, uint64_t off, struct jh_err *e)
{
	size_t want = 4096, n;
	ssize_t r;
	int x;

	for (;;) {
		jh_buf_reset(b);
		if (jh_buf_reserve(b, want) == -1)
			return (jh_errf(e, "out of memory"));
		do
			r = pread(fd, b->p, want, (off_t)off);
		while (r == -1 && errno == EINTR);
		if (r == -1)
			return (jh_errf(e, "read: %s", strerror(errno)));
		if (r == 0)
			return (0);
		b->len = (size_t)r;
		x = jh_cbor_item_len(&n, b->p, b->len, e);
		if (x == JH_CBOR_OK) {
			if (n > JH_MAX_RECORD) {
				jh_errf(e, "item longer than %u bytes",
				    JH_MAX_RECORD);
				return (JH_CBOR_INVALID);
			}
			b->len = n;
			return (1);
		}
		if (x == JH_CBOR_INVALID)
			return (x);
		if ((size_t)r < want || want > JH_MAX_RECORD)
			return (JH_CBOR_TRUNCATED);
		want *= 4;
	}
}

/*
 * The entry the sidecar names as the log's last (stale until shown
 * otherwise): it must hash to the head, be this session's chain/1 entry
 * with seq count-1 and, with keys, be signed by a trusted steward.
 */
static void
head_entry(struct jh_sthead *sh, int fd, const char *digest,
    const struct jh_keyset *ks)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	const struct jh_cbor *s, *seq;
	uint8_t hash[JH_HASH_LEN];
	char hex[2 * JH_HASH_LEN + 1];

	jh_buf_init(&b);
	jh_arena_init(&a);
	if (jh_st_item(&b, fd, sh->head.last_off, &e) != 1 ||
	    b.len != sh->head.end - sh->head.last_off) {
		snprintf(sh->why, sizeof(sh->why), "no entry where the head "
		    "record says the last one is");
		goto done;
	}
	crypto_hash_sha256(hash, b.p, b.len);
	if (memcmp(hash, sh->head.hash, JH_HASH_LEN) != 0) {
		snprintf(sh->why, sizeof(sh->why), "the last entry is not the "
		    "one the head record names");
		goto done;
	}
	sh->state = JH_ST_BAD;
	if (jh_env_parse(&env, &a, b.p, b.len, &e) == -1 ||
	    strcmp(env.kind, "chain/1") != 0 ||
	    (s = jh_cbor_get(env.core, "session")) == NULL ||
	    s->type != JH_CBOR_TEXT || (seq = jh_cbor_get(env.core,
	    "seq")) == NULL || seq->type != JH_CBOR_UINT) {
		snprintf(sh->why, sizeof(sh->why), "the last entry is not a "
		    "chain/1 entry");
		goto done;
	}
	jh_st_digest(hex, s->p, s->len);
	if (strcmp(hex, digest) != 0) {
		snprintf(sh->why, sizeof(sh->why), "the log holds another "
		    "session");
		goto done;
	}
	if (seq->u + 1 != sh->head.count) {
		snprintf(sh->why, sizeof(sh->why), "the last entry has seq "
		    "%llu, the head record counts %llu entries",
		    (unsigned long long)seq->u,
		    (unsigned long long)sh->head.count);
		goto done;
	}
	if (ks != NULL && ks->n > 0 && (!jh_keyset_has(ks, env.kid,
	    JH_ROLE_STEWARD) || jh_env_verify_sig(&env, &e) == -1)) {
		snprintf(sh->why, sizeof(sh->why), "the last entry is not "
		    "signed by a trusted steward");
		goto done;
	}
	if ((sh->session = malloc(s->len + 1)) != NULL) {
		memcpy(sh->session, s->p, s->len);
		sh->session[s->len] = '\0';
		sh->slen = s->len;
	}
	sh->signed_ok = ks != NULL && ks->n > 0;
	sh->state = JH_ST_OK;
done:
	jh_arena_free(&a);
	jh_buf_free(&b);
}

/* Why a sidecar hfd (-1: none) that fails its CRC gives no figures. */
static void
head_unchecked(struct jh_sthead *sh, int hfd)
{
	char magic[8];

	sh->state = JH_ST_UNCHECKED;
	if (hfd != -1 && pread(hfd, magic, sizeof(magic), 0) ==
	    (ssize_t)sizeof(magic) && (memcmp(magic, "JHHEAD1",
	    sizeof(magic)) == 0 || memcmp(magic, "JHHEAD2",
	    sizeof(magic)) == 0))
		snprintf(sh->why, sizeof(sh->why), "an older head record, "
		    "rebuilt at the next receipt");
	else
		snprintf(sh->why, sizeof(sh->why), hfd == -1 ?
		    "no head record" : "the head record is damaged");
}

/*
 * The O(1) head check.  Under a shared lock (waited for briefly, so an
 * append in progress is reported as such, not as damage): the sidecar
 * must pass its CRC, name a non-empty log whose size is its end, and the
 * bytes from last_off to end must hash to its head and be a chain/1
 * entry with seq count-1 of the session whose digest names the log.
 * With keys, that entry's signature is checked too.
 */
void
jh_st_head(struct jh_sthead *sh, int fd, int hfd, const char *digest,
    const struct jh_keyset *ks)
{
	struct jh_err e;
	struct stat st;
	int locked, valid;

	memset(sh, 0, sizeof(*sh));
	/* Uncontended, no timer; else a bounded wait (jh_flock's). */
	locked = flock(fd, LOCK_SH | LOCK_NB) == 0 || (errno == EWOULDBLOCK &&
	    jh_flock(fd, LOCK_SH, LOCK_WAIT_MS, &e) == 0);
	if (fstat(fd, &st) == -1) {
		sh->state = JH_ST_UNCHECKED;
		snprintf(sh->why, sizeof(sh->why), "%s", strerror(errno));
		goto out;
	}
	sh->size = (uint64_t)st.st_size;
	valid = hfd != -1 && jh_head_read(&sh->head, hfd) == 0;
	if (sh->size == 0 && (!valid || sh->head.count == 0))
		sh->state = JH_ST_EMPTY;
	else if (!valid)
		head_unchecked(sh, hfd);
	else if (!locked) {
		sh->state = JH_ST_BUSY;
		snprintf(sh->why, sizeof(sh->why), "an append is in progress");
	} else if (sh->head.count == 0 || sh->head.end != sh->size ||
	    sh->head.last_off >= sh->head.end ||
	    sh->head.end - sh->head.last_off > JH_MAX_RECORD) {
		sh->state = JH_ST_STALE;
		snprintf(sh->why, sizeof(sh->why), "the head record names "
		    "%llu bytes, the log has %llu",
		    (unsigned long long)sh->head.end,
		    (unsigned long long)sh->size);
	} else {
		sh->state = JH_ST_STALE;
		head_entry(sh, fd, digest, ks);
	}
out:
	if (locked)
		flock(fd, LOCK_UN);
}

void
jh_st_head_free(struct jh_sthead *sh)
{
	free(sh->session);
	sh->session = NULL;
}

const char *
jh_st_state_word(int state)
{
	switch (state) {
	case JH_ST_OK:		return ("ok");
	case JH_ST_STALE:	return ("stale");
	case JH_ST_BUSY:	return ("appending");
	case JH_ST_BAD:		return ("bad");
	case JH_ST_EMPTY:	return ("empty");
	default:		return ("unchecked");
	}
}

/*
 * The meter's state (jh-status(1)): enforced when every efficiency/1
 * unit of the session (aggregates aside) is one jh-proxy sealed with
 * enforced 1 (n_enforced counts only those); partly enforced when some
 * are and some are not (an overrun, a clamp, a call metered from
 * telemetry); observed when none is (telemetry, transcript or run units,
 * proxy units whose ceiling was not enforced); unmetered when it has
 * none: only the tool actions' estimates, which are never the session's
 * energy.
 */
const char *
jh_st_meter(uint64_t n_eff, uint64_t n_enforced)
{
	if (n_eff == 0)
		return ("unmetered");
	if (n_enforced >= n_eff)
		return ("enforced");
	return (n_enforced > 0 ? "partly enforced" : "observed");
}

/*
 * The grant file of a session (jh_st_budget), in sb->grant_path: the
 * one given, else the grant of the root pinned for the session (digest)
 * or of hint, else JH_HOME/grant.
 */
static void
grant_path(struct jh_stbudget *sb, const char *home, const char *state,
    const char *grantfile, const char *digest, const char *hint)
{
	struct jh_err e;
	char root[PATH_MAX], hex[2 * JH_HASH_LEN + 1];
	int sfd, rfd, fd;
	ssize_t n;

	root[0] = '\0';
	if (grantfile != NULL) {
		snprintf(sb->grant_path, sizeof(sb->grant_path), "%s",
		    grantfile);
		return;
	}
	if (digest != NULL && (sfd = jh_st_dir(AT_FDCWD, state, &e)) != -1) {
		if ((rfd = jh_st_dir(sfd, "roots", &e)) != -1) {
			if ((fd = jh_st_file(rfd, digest, &e)) != -1) {
				n = pread(fd, root, sizeof(root) - 1, 0);
				root[n > 0 ? n : 0] = '\0';
				close(fd);
			}
			close(rfd);
		}
		close(sfd);
	}
	sb->grant_path[0] = '\0';
	if (root[0] != '/' && hint != NULL && hint[0] == '/')
		snprintf(root, sizeof(root), "%s", hint);
	if (root[0] == '/') {
		jh_st_digest(hex, (const uint8_t *)root, strlen(root));
		snprintf(sb->grant_path, sizeof(sb->grant_path),
		    "%s/grants/%s", home, hex);
		if (access(sb->grant_path, F_OK) != 0)
			sb->grant_path[0] = '\0';
	}
	if (sb->grant_path[0] == '\0')
		snprintf(sb->grant_path, sizeof(sb->grant_path), "%s/grant",
		    home);
}

/*
 * The grant of a session and its ledger: the grant file given, else
 * JH_HOME/grants/<sha256 of the root pinned in JH_STATE/roots/<digest>>,
 * else JH_HOME/grant, as jh-decide finds it; a session with no pinned
 * root yet uses hint (the host's project directory) in its place.  The
 * grant's id is the SHA-256 of its payload and names the ledger.  The
 * grant is parsed, not verified: it only names the ledger, which holds
 * the figures.
 */
void
jh_st_budget(struct jh_stbudget *sb, const char *home, const char *state,
    const char *ledgerdir, const char *grantfile, const char *digest,
    const char *hint)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	struct jh_ledger *l = NULL;
	const struct jh_cbor *v;
	char dir[PATH_MAX];
	uint8_t led[JH_HASH_LEN];
	int fd;

	memset(sb, 0, sizeof(*sb));
	jh_buf_init(&b);
	jh_arena_init(&a);
	grant_path(sb, home, state, grantfile, digest, hint);
	if ((fd = open(sb->grant_path, O_RDONLY | O_CLOEXEC |
	    O_NONBLOCK)) == -1) {
		snprintf(sb->why, sizeof(sb->why), "no grant");
		goto out;
	}
	if (jh_read_all(&b, fd, JH_MAX_RECORD, &e) == -1 ||
	    jh_env_parse(&env, &a, b.p, b.len, &e) == -1 ||
	    strcmp(env.kind, "grant/1") != 0) {
		close(fd);
		snprintf(sb->why, sizeof(sb->why), "bad grant");
		goto out;
	}
	close(fd);
	crypto_hash_sha256(sb->grant, env.payload_p, env.payload_len);
	jh_id_text(sb->grant_id, sb->grant);
	if ((v = jh_cbor_get(env.core, "budget_uj")) != NULL &&
	    v->type == JH_CBOR_UINT)
		sb->grant_budget = v->u;
	sb->have_grant = 1;
	if (ledgerdir == NULL) {
		snprintf(dir, sizeof(dir), "%s/ledger", state);
		ledgerdir = dir;
	}
	/* The ledger it spends: the one it names, else its own. */
	memcpy(led, sb->grant, JH_HASH_LEN);
	if ((v = jh_cbor_get(env.core, "ledger")) != NULL &&
	    (v->type != JH_CBOR_TEXT || v->len != 71 ||
	    jh_unhex(led, JH_HASH_LEN, (const char *)v->p + 7, 64) == -1)) {
		snprintf(sb->why, sizeof(sb->why), "bad grant");
		goto out;
	}
	if ((l = malloc(sizeof(*l))) == NULL ||
	    (fd = jh_ledger_open(ledgerdir, led, JH_LEDGER_READ, NULL,
	    &e)) == -1) {
		snprintf(sb->why, sizeof(sb->why), "no ledger");
		goto out;
	}
	if (jh_ledger_read(l, fd, &e) == -1 ||
	    memcmp(l->grant, led, JH_HASH_LEN) != 0) {
		close(fd);
		snprintf(sb->why, sizeof(sb->why), "ledger damaged");
		goto out;
	}
	close(fd);
	sb->budget = l->budget_uj;
	sb->spent = l->spent_uj;
	sb->held = l->held_uj;
	sb->have_ledger = 1;
out:
	free(l);
	jh_arena_free(&a);
	jh_buf_free(&b);
}

static int
digest_cmp(const void *a, const void *b)
{
	return (memcmp(a, b, 2 * JH_HASH_LEN));
}

/*
 * Whether the log named (a session with no pinned root) is of the project
 * whose grant has the id given: its first entry embeds a hold/1 or an
 * efficiency/1 receipt that names that grant.  Only jh-proxy's units
 * name a grant; a unit that names none ties its session to no project.
 */
static int
debits_grant(int lfd, const char *name, const char *grant_id)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env, in;
	struct jh_err e;
	const struct jh_cbor *rc;
	int fd, ok = 0;

	if ((fd = jh_st_file(lfd, name, &e)) == -1)
		return (0);
	jh_buf_init(&b);
	jh_arena_init(&a);
	if (jh_st_item(&b, fd, 0, &e) == 1 &&
	    jh_env_parse(&env, &a, b.p, b.len, &e) == 0 &&
	    strcmp(env.kind, "chain/1") == 0 &&
	    (rc = jh_cbor_get(env.core, "receipt")) != NULL &&
	    rc->type == JH_CBOR_BYTES &&
	    jh_env_parse(&in, &a, rc->p, rc->len, &e) == 0 &&
	    (strcmp(in.kind, "efficiency/1") == 0 ||
	    strcmp(in.kind, "hold/1") == 0))
		ok = jh_cbor_text_is(jh_cbor_get(in.core, "grant"), grant_id);
	jh_arena_free(&a);
	jh_buf_free(&b);
	close(fd);
	return (ok);
}

/*
 * The sessions pinned to the project root (root, in dir, <state>/roots/)
 * that have a log in lfd: their digests added to out.
 */
static void
pinned_sessions(struct jh_buf *out, size_t *n, DIR *dir, int lfd,
    const char *root)
{
	char pinned[PATH_MAX], name[JH_LOG_NAME];
	struct jh_err e;
	struct dirent *d;
	struct stat st;
	ssize_t r;
	int fd;

	while ((d = readdir(dir)) != NULL) {
		if (!jh_st_is_digest(d->d_name, strlen(d->d_name)))
			continue;
		if ((fd = jh_st_file(dirfd(dir), d->d_name, &e)) == -1)
			continue;
		r = pread(fd, pinned, sizeof(pinned) - 1, 0);
		close(fd);
		if (r <= 0)
			continue;
		pinned[r] = '\0';
		/*
		 * The root was pinned resolved, and root is: compared as
		 * written, never through the file system as it is now, where
		 * a link planted in a path of another project's root would
		 * make that project's sessions look like this one's.
		 */
		if (strcmp(pinned, root) != 0)
			continue;
		memcpy(name, d->d_name, 2 * JH_HASH_LEN);
		memcpy(name + 2 * JH_HASH_LEN, ".jhl", 5);
		if (fstatat(lfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		jh_buf_add(out, d->d_name, 2 * JH_HASH_LEN + 1);
		(*n)++;
	}
}

/*
 * The sessions with a log in lfd and no root pinned in rfd (-1: no
 * roots) whose first unit debited the grant grant_id: their digests
 * added to out.
 */
static int
unpinned_sessions(struct jh_buf *out, size_t *n, int lfd, int rfd,
    const char *grant_id, struct jh_err *e)
{
	char name[JH_LOG_NAME];
	struct dirent *d;
	struct stat st;
	DIR *ld;
	size_t len;
	int lfd2 = dup(lfd);

	if (lfd2 == -1 || (ld = fdopendir(lfd2)) == NULL) {
		if (lfd2 != -1)
			close(lfd2);
		return (jh_errf(e, "logs: %s", strerror(errno)));
	}
	while ((d = readdir(ld)) != NULL) {
		len = strlen(d->d_name);
		if (len != 2 * JH_HASH_LEN + 4 ||
		    strcmp(d->d_name + 2 * JH_HASH_LEN, ".jhl") != 0 ||
		    !jh_st_is_digest(d->d_name, 2 * JH_HASH_LEN))
			continue;
		memcpy(name, d->d_name, 2 * JH_HASH_LEN);
		name[2 * JH_HASH_LEN] = '\0';
		if (rfd != -1 && fstatat(rfd, name, &st,
		    AT_SYMLINK_NOFOLLOW) != -1)
			continue;	/* pinned: decided above */
		if (rfd != -1 && errno != ENOENT)
			continue;
		if (!debits_grant(lfd, d->d_name, grant_id))
			continue;
		jh_buf_add(out, name, 2 * JH_HASH_LEN + 1);
		(*n)++;
	}
	closedir(ld);
	return (0);
}

/*
 * The sessions of a project (jh-status(1), The MCP server): those whose
 * root pinned in <state>/roots/ is the project root (both resolved, so
 * compared as written) and that have a log; and those with a log but no
 * pinned root (only model calls metered, no tool call gated yet) whose
 * first unit debited the project's grant (the one jh-decide would use
 * for that root).  out receives n digests of 65 bytes each, sorted.
 */
int
jh_st_sessions(struct jh_buf *out, size_t *n, const struct jh_stctx *o,
    struct jh_err *e)
{
	struct jh_stbudget sb;
	DIR *dir = NULL;
	int sfd, rfd, lfd, rc = 0;

	jh_buf_reset(out);
	*n = 0;
	if ((sfd = jh_st_dir(AT_FDCWD, o->statedir, e)) == -1)
		return (errno == ENOENT ? 0 : -1);
	rfd = jh_st_dir(sfd, "roots", e);
	/* A roots that is there but unusable: no session is known. */
	if (rfd == -1 && errno != ENOENT) {
		close(sfd);
		return (0);
	}
	lfd = jh_st_dir(sfd, "logs", e);
	close(sfd);
	if (lfd == -1) {
		if (rfd != -1)
			close(rfd);
		return (0);
	}
	if (rfd != -1) {
		if ((dir = fdopendir(rfd)) == NULL) {
			close(rfd);
			close(lfd);
			return (jh_errf(e, "roots: %s", strerror(errno)));
		}
		pinned_sessions(out, n, dir, lfd, o->root);
	}
	/* The unpinned sessions that debited the project's grant. */
	jh_st_budget(&sb, o->home, o->statedir, o->ledgerdir, o->grantfile,
	    NULL, o->root);
	if (sb.have_grant)
		rc = unpinned_sessions(out, n, lfd, dir != NULL ? dirfd(dir) :
		    -1, sb.grant_id, e);
	if (dir != NULL)
		closedir(dir);
	close(lfd);
	if (rc == -1)
		return (-1);
	if (out->oom)
		return (jh_errf(e, "out of memory"));
	if (*n > 1)
		qsort(out->p, *n, 2 * JH_HASH_LEN + 1, digest_cmp);
	return (0);
}

/* A count per text value: open addressing, keys kept sorted on output. */
static uint64_t
fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n-- > 0)
		h = (h ^ *p++) * 1099511628211ull;
	return (h);
}

static int
counts_add(struct jh_counts *c, const struct jh_cbor *v)
{
	size_t i, mask;

	if (v == NULL || v->type != JH_CBOR_TEXT)
		return (0);
	if (2 * (c->n + 1) > c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 16, j;
		struct jh_cnt *nv = calloc(nc, sizeof(*nv));

		if (nv == NULL)
			return (-1);
		for (j = 0; j < c->cap; j++) {
			if (c->v[j].k == NULL)
				continue;
			for (i = fnv((uint8_t *)c->v[j].k, c->v[j].len) &
			    (nc - 1); nv[i].k != NULL; i = (i + 1) & (nc - 1))
				;
			nv[i] = c->v[j];
		}
		free(c->v);
		c->v = nv;
		c->cap = nc;
	}
	mask = c->cap - 1;
	for (i = fnv(v->p, v->len) & mask; c->v[i].k != NULL;
	    i = (i + 1) & mask)
		if (c->v[i].len == v->len && memcmp(c->v[i].k, v->p,
		    v->len) == 0) {
			c->v[i].n++;
			return (0);
		}
	if ((c->v[i].k = malloc(v->len + 1)) == NULL)
		return (-1);
	memcpy(c->v[i].k, v->p, v->len);
	c->v[i].k[v->len] = '\0';
	c->v[i].len = v->len;
	c->v[i].n = 1;
	c->n++;
	return (0);
}

static void
counts_free(struct jh_counts *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		free(c->v[i].k);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int
cnt_cmp(const void *a, const void *b)
{
	const struct jh_cnt *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->k, y->k, n);

	if (r != 0)
		return (r);
	return (x->len < y->len ? -1 : x->len > y->len);
}

static void
counts_json(struct jh_buf *b, const char *name, struct jh_counts *c)
{
	struct jh_cnt *v;
	size_t i, n = 0;

	jh_buf_addf(b, ",\"%s\":{", name);
	if (c->n > 0 && (v = malloc(c->n * sizeof(*v))) != NULL) {
		for (i = 0; i < c->cap; i++)
			if (c->v[i].k != NULL)
				v[n++] = c->v[i];
		qsort(v, n, sizeof(*v), cnt_cmp);
		for (i = 0; i < n; i++) {
			if (i)
				jh_buf_addc(b, ',');
			jh_json_str(b, v[i].k, v[i].len);
			jh_buf_addf(b, ":%llu", (unsigned long long)v[i].n);
		}
		free(v);
	} else if (c->n > 0)
		b->oom = 1;
	jh_buf_addc(b, '}');
}

static const char *const provs[JH_NPROV] = { "HwShunt", "ModelBased",
    "Estimator" };

static int
prov_index(const struct jh_cbor *v)
{
	int i;

	for (i = 0; i < JH_NPROV; i++)
		if (jh_cbor_text_is(v, provs[i]))
			return (i);
	return (JH_NPROV - 1);	/* kinds.c admits no other */
}

static uint64_t
uval(const struct jh_cbor *m, const char *k)
{
	const struct jh_cbor *v = jh_cbor_get(m, k);

	return (v != NULL && v->type == JH_CBOR_UINT ? v->u : 0);
}

/* Adds one verified receipt's figures. */
static int
tally_add(struct jh_tally *t, const struct jh_cbor *core)
{
	const struct jh_cbor *v, *en;
	int p, r = 0;

	if ((v = jh_cbor_get(core, "ts")) != NULL && v->type ==
	    JH_CBOR_UINT) {
		if (!t->have_ts)
			t->first_ts = v->u;
		t->last_ts = v->u;
		t->have_ts = 1;
	}
	v = jh_cbor_get(core, "kind");
	if (jh_cbor_text_is(v, "decision/1")) {
		t->n_dec++;
		r |= counts_add(&t->verdicts, jh_cbor_get(core, "verdict"));
		r |= counts_add(&t->codes, jh_cbor_get(core, "code"));
		r |= counts_add(&t->tools, jh_cbor_get(core, "tool"));
		r |= counts_add(&t->classes, jh_cbor_get(core, "class"));
		p = prov_index(jh_cbor_get(core, "provenance"));
		t->dec[p].n++;
		t->dec[p].cost = jh_add_sat(t->dec[p].cost, uval(core,
		    "cost_uj"));
		t->dec[p].debited = jh_add_sat(t->dec[p].debited, uval(core,
		    "debited_uj"));
	} else if (jh_cbor_text_is(v, "efficiency/1") && jh_cbor_text_is(
	    jh_cbor_get(core, "source"), "aggregate")) {
		t->n_agg++;	/* a roll-up of units counted already */
	} else if (jh_cbor_text_is(v, "hold/1")) {
		t->n_hold++;	/* its call's efficiency/1 counts it */
	} else if (jh_cbor_text_is(v, "result/1")) {
		t->n_res++;
		r |= counts_add(&t->checks, jh_cbor_get(core, "check"));
	} else if (jh_cbor_text_is(v, "efficiency/1")) {
		t->n_eff++;
		if (uval(core, "enforced") == 1 && jh_cbor_text_is(
		    jh_cbor_get(core, "source"), "proxy"))
			t->n_enforced++;
		en = jh_cbor_get(core, "energy");
		p = prov_index(jh_cbor_get(en, "provenance"));
		t->eff[p].n++;
		t->eff[p].est = jh_add_sat(t->eff[p].est, uval(en,
		    "estimated_uj"));
		t->eff[p].meas = jh_add_sat(t->eff[p].meas, uval(en,
		    "measured_uj"));
		t->eff[p].debited = jh_add_sat(t->eff[p].debited, uval(core,
		    "debited_uj"));
		t->eff[p].accepted = jh_add_sat(t->eff[p].accepted, uval(core,
		    "accepted_tokens"));
		t->eff[p].out = jh_add_sat(t->eff[p].out, uval(core,
		    "tokens_out"));
		t->eff[p].ms = jh_add_sat(t->eff[p].ms, uval(core,
		    "duration_ms"));
	} else
		t->n_other++;
	return (r);
}

/*
 * The rates jcp-efficiency names, recomputed from the sealed integers
 * on read, never sealed themselves: microjoules per accepted token (the
 * energy of the grade, HwShunt's reading, else the estimate) and output
 * tokens per second of the calls' wall time; null where a divisor is 0.
 * Three decimals, truncated.
 */
static void
rate(struct jh_buf *b, const char *k, uint64_t num, uint64_t den,
    uint64_t scale)
{
	unsigned __int128 q;

	if (den == 0) {
		jh_buf_addf(b, ",\"%s\":null", k);
		return;
	}
	q = (unsigned __int128)num * scale * 1000u / den;
	if (q > UINT64_MAX)
		q = UINT64_MAX;
	jh_buf_addf(b, ",\"%s\":%llu.%03llu", k,
	    (unsigned long long)(q / 1000), (unsigned long long)(q % 1000));
}

static void
rates_json(struct jh_buf *b, uint64_t uj, uint64_t accepted, uint64_t out,
    uint64_t ms)
{
	rate(b, "uj_per_accepted_token", uj, accepted, 1);
	rate(b, "tokens_per_s", out, ms, 1000);
}

static void
tally_free(struct jh_tally *t)
{
	counts_free(&t->verdicts);
	counts_free(&t->codes);
	counts_free(&t->tools);
	counts_free(&t->classes);
	counts_free(&t->checks);
	memset(t, 0, sizeof(*t));
}

/* The fields of a tally, after an opening brace and at least one field. */
static void
tally_json(struct jh_buf *b, struct jh_tally *t)
{
	int i, first;

	jh_buf_addf(b, ",\"entries\":%llu,\"verified\":%llu,\"failed\":%llu",
	    (unsigned long long)t->entries, (unsigned long long)t->verified,
	    (unsigned long long)t->failed);
	if (t->have_ts)
		jh_buf_addf(b, ",\"first_ts\":%llu,\"last_ts\":%llu",
		    (unsigned long long)t->first_ts,
		    (unsigned long long)t->last_ts);
	else
		jh_buf_adds(b, ",\"first_ts\":null,\"last_ts\":null");
	jh_buf_addf(b, ",\"meter\":\"%s\",\"decisions\":%llu",
	    jh_st_meter(t->n_eff, t->n_enforced),
	    (unsigned long long)t->n_dec);
	counts_json(b, "verdicts", &t->verdicts);
	counts_json(b, "codes", &t->codes);
	counts_json(b, "tools", &t->tools);
	counts_json(b, "classes", &t->classes);
	jh_buf_addf(b, ",\"efficiency\":{\"receipts\":%llu,\"enforced\":%llu,"
	    "\"observed\":%llu},\"other\":%llu",
	    (unsigned long long)t->n_eff, (unsigned long long)t->n_enforced,
	    (unsigned long long)(t->n_eff - t->n_enforced),
	    (unsigned long long)t->n_other);
	jh_buf_addf(b, ",\"results\":%llu,\"aggregates\":%llu,\"holds\":%llu",
	    (unsigned long long)t->n_res, (unsigned long long)t->n_agg,
	    (unsigned long long)t->n_hold);
	counts_json(b, "checks", &t->checks);
	/* Decisions: the Estimator's tool surcharges. */
	jh_buf_adds(b, ",\"energy\":{\"tools\":{");
	for (i = 0, first = 1; i < JH_NPROV; i++) {
		if (t->dec[i].n == 0)
			continue;
		jh_buf_addf(b, "%s\"%s\":{\"receipts\":%llu,\"cost_uj\":%llu,"
		    "\"debited_uj\":%llu}", first ? "" : ",", provs[i],
		    (unsigned long long)t->dec[i].n,
		    (unsigned long long)t->dec[i].cost,
		    (unsigned long long)t->dec[i].debited);
		first = 0;
	}
	jh_buf_adds(b, "},\"efficiency\":{");
	for (i = 0, first = 1; i < JH_NPROV; i++) {
		if (t->eff[i].n == 0)
			continue;
		jh_buf_addf(b, "%s\"%s\":{\"receipts\":%llu,\"estimated_uj\":"
		    "%llu,\"measured_uj\":%llu,\"debited_uj\":%llu,"
		    "\"accepted_tokens\":%llu,\"tokens_out\":%llu,"
		    "\"duration_ms\":%llu", first ? "" : ",", provs[i],
		    (unsigned long long)t->eff[i].n,
		    (unsigned long long)t->eff[i].est,
		    (unsigned long long)t->eff[i].meas,
		    (unsigned long long)t->eff[i].debited,
		    (unsigned long long)t->eff[i].accepted,
		    (unsigned long long)t->eff[i].out,
		    (unsigned long long)t->eff[i].ms);
		rates_json(b, i == 0 ? t->eff[i].meas : t->eff[i].est,
		    t->eff[i].accepted, t->eff[i].out, t->eff[i].ms);
		jh_buf_addc(b, '}');
		first = 0;
	}
	jh_buf_adds(b, "}}");
}

void
jh_sum_init(struct jh_sum *s, struct jh_verifier *v)
{
	memset(s, 0, sizeof(*s));
	s->v = v;
	jh_buf_init(&s->logs);
}

void
jh_sum_free(struct jh_sum *s)
{
	tally_free(&s->total);
	jh_buf_free(&s->logs);
}

/* One log being summarized (jh_sum_log). */
struct logsum {
	struct jh_tally t;
	struct jh_lv lv;
	const struct jh_cp *cp;	/* the sink's checkpoint of its session */
	int cpfail;		/* the log does not meet it */
	uint64_t bad_idx;	/* the first item that failed, 1-based */
	uint64_t bad_off;
	char bad[320];		/* and why */
	char tail[160];		/* a partial last item */
	char note[256];		/* what the checkpoint says of its extent */
};

/*
 * Verifies one item of a log at off, adding the figures of what verified
 * to the log's tally and the summary's.  Returns 0, or -1 when out of
 * memory.
 */
static int
sum_item(struct jh_sum *s, struct logsum *ls, struct jh_arena *a,
    const uint8_t *item, size_t len, uint64_t off)
{
	struct jh_env env, inner;
	struct jh_err ie;
	const struct jh_env *rec = &env;
	int ok, oom = 0;

	jh_arena_reset(a);
	ok = jh_verify_env(s->v, &env, a, item, len, &ie) == 0;
	if (env.kind != NULL && strcmp(env.kind, "chain/1") == 0) {
		if (ok)
			ok = jh_lv_entry(&ls->lv, s->v, &env, item, len, &inner,
			    a, &ie) == 0;
		else
			jh_lv_skip(&ls->lv, item, len, ie.msg);
		rec = &inner;
	} else if (ok && ls->lv.entries > 0) {
		ok = 0;
		jh_errf(&ie, "a bare %s inside a log", env.kind);
	}
	if (ok) {
		oom = tally_add(&ls->t, rec->core) |
		    tally_add(&s->total, rec->core);
		ls->t.verified++;
	} else {
		ls->t.failed++;
		if (ls->bad_idx == 0) {
			ls->bad_idx = ls->t.entries;
			ls->bad_off = off;
			snprintf(ls->bad, sizeof(ls->bad), "%s", ie.msg);
		}
	}
	return (oom ? -1 : 0);
}

/* The log's JSON object, added to the summary's list. */
static void
sum_json(struct jh_buf *b, struct logsum *ls, const char *name)
{
	int bad = ls->t.failed || ls->cpfail;

	if (b->len > 0)
		jh_buf_addc(b, ',');
	jh_buf_adds(b, "{\"file\":");
	jh_json_str(b, name, strlen(name));
	jh_buf_adds(b, ",\"session\":");
	if (ls->lv.have_session)
		jh_json_str(b, (const char *)ls->lv.session, ls->lv.slen);
	else
		jh_buf_adds(b, "null");
	jh_buf_addf(b, ",\"ok\":%s", bad ? "false" : "true");
	tally_json(b, &ls->t);
	if (ls->bad_idx) {
		jh_buf_addf(b, ",\"first_broken\":{\"item\":%llu,"
		    "\"offset\":%llu,\"error\":",
		    (unsigned long long)ls->bad_idx,
		    (unsigned long long)ls->bad_off);
		jh_json_str(b, ls->bad, strlen(ls->bad));
		jh_buf_addc(b, '}');
	}
	if (ls->tail[0] != '\0') {
		jh_buf_adds(b, ",\"tail\":");
		jh_json_str(b, ls->tail, strlen(ls->tail));
	}
	if (ls->cp != NULL) {
		jh_buf_adds(b, ",\"extent\":");
		jh_json_str(b, ls->note, strlen(ls->note));
	} else if (ls->lv.entries > 0)
		jh_buf_adds(b, ",\"extent\":\"verified as a prefix only: "
		    "without a checkpoint, a truncated tail cannot be "
		    "detected\"");
	jh_buf_addc(b, '}');
}

/*
 * Verifies one log (or a file of bare receipts) as jh-verify does, in
 * one pass, and adds its figures to the summary: those of the receipts
 * that verified.  Returns 0 when every item verified, 1 when some did
 * not, -1 when the file could not be read (e says why).
 */
int
jh_sum_log(struct jh_sum *s, int fd, const char *name, struct jh_err *e)
{
	struct jh_reader r;
	struct jh_arena a;
	struct logsum ls;
	struct jh_err ie;
	const uint8_t *item;
	size_t len;
	uint64_t off;
	int x, rc = 0, named;

	memset(&ls, 0, sizeof(ls));
	jh_lv_init(&ls.lv);
	/* the sink's latest checkpoint of the log's session, if any */
	if ((ls.cp = jh_st_log_cp(s->cps, fd, name, &named)) != NULL)
		ls.lv.cp_count = ls.cp->count;
	jh_reader_init(&r, fd);
	jh_arena_init(&a);
	for (;;) {
		off = r.offset + r.pos;
		if ((x = jh_reader_cbor(&r, &item, &len, &ie)) == 0)
			break;
		if (x == JH_CBOR_TRUNCATED && jh_log_tail(ls.tail,
		    sizeof(ls.tail), &r, &ls.lv, off, fd, &ie))
			break;
		ls.t.entries++;
		if (x == JH_CBOR_INVALID && r.err != 0) {
			rc = jh_errf(e, "%s: %s", name, ie.msg);
			goto out;
		}
		if (x != 1) {
			/* Cannot frame the rest. */
			ls.t.failed++;
			ls.bad_idx = ls.t.entries;
			ls.bad_off = off;
			snprintf(ls.bad, sizeof(ls.bad), "%s (the rest cannot "
			    "be read)", ie.msg);
			break;
		}
		if (sum_item(s, &ls, &a, item, len, off) == -1) {
			rc = jh_errf(e, "out of memory");
			goto out;
		}
	}
	/* a log cut below its checkpoint, or not the one it signed, fails */
	if (ls.cp != NULL)
		ls.cpfail = jh_cp_note(ls.cp, &ls.lv, ls.note, sizeof(ls.note));
	s->total.entries += ls.t.entries;
	s->total.verified += ls.t.verified;
	s->total.failed += ls.t.failed + (ls.cpfail ? 1 : 0);
	s->nlogs++;
	if (ls.t.failed == 0 && !ls.cpfail)
		s->nok++;
	sum_json(&s->logs, &ls, name);
	rc = ls.t.failed || ls.cpfail ? 1 : 0;
out:
	tally_free(&ls.t);
	jh_lv_free(&ls.lv);
	jh_arena_free(&a);
	jh_reader_free(&r);
	return (rc);
}

/* {"logs":[...],"total":{...}}: one JSON object, no newline. */
int
jh_sum_json(struct jh_buf *b, struct jh_sum *s)
{
	jh_buf_adds(b, "{\"logs\":[");
	jh_buf_add(b, s->logs.p, s->logs.len);
	jh_buf_addf(b, "],\"total\":{\"logs\":%llu,\"ok\":%s",
	    (unsigned long long)s->nlogs, s->nok == s->nlogs ? "true" :
	    "false");
	tally_json(b, &s->total);
	jh_buf_addc(b, '}');
	jh_buf_addc(b, '}');
	return (b->oom || s->logs.oom ? -1 : 0);
}

/*
 * An energy figure in joules with an SI prefix and three significant
 * digits at most: "4.1 J", "20 MJ", "950 mJ"; ASCII "uJ" for micro.
 */
void
jh_st_energy(char *out, size_t sz, uint64_t uj, int ascii)
{
	static const char *const pre[] = { "\xc2\xb5", "m", "", "k", "M",
	    "G", "T" };
	double v = (double)uj;
	int i = 0;
	char num[32];
	size_t n;

	if (uj == 0) {
		snprintf(out, sz, "0 J");
		return;
	}
	for (;;) {
		snprintf(num, sizeof(num), "%.3g", v);
		if (i == 6 || (strtod(num, NULL) < 1000 &&
		    strchr(num, 'e') == NULL))
			break;
		v /= 1000;
		i++;
	}
	if (strchr(num, '.') != NULL) {
		n = strlen(num);
		while (num[n - 1] == '0')
			num[--n] = '\0';
		if (num[n - 1] == '.')
			num[--n] = '\0';
	}
	snprintf(out, sz, "%s %sJ", num, i == 0 && ascii ? "u" : pre[i]);
}

/*
 * Opens a session's log and sidecar read-only.  Returns 0, -1 when the
 * session has no log, -2 when the state cannot be used (e says why).
 */
int
jh_st_open_log(const struct jh_stctx *o, const char *digest, int *fd, int *hfd,
    char *path, size_t sz, struct jh_err *e)
{
	char name[JH_LOG_NAME + 8];
	int sfd, lfd, rc = -2;

	*fd = *hfd = -1;
	if ((sfd = jh_st_dir(AT_FDCWD, o->statedir, e)) == -1)
		return (errno == ENOENT ? -1 : -2);
	lfd = jh_st_dir(sfd, "logs", e);
	close(sfd);
	if (lfd == -1)
		return (errno == ENOENT ? -1 : -2);
	snprintf(name, sizeof(name), "%s.jhl", digest);
	if ((*fd = jh_st_file(lfd, name, e)) == -1)
		rc = errno == ENOENT ? -1 : -2;
	else {
		snprintf(path, sz, "%s/logs/%s", o->statedir, name);
		strcat(name, ".head");
		*hfd = jh_st_file(lfd, name, e);
		rc = 0;
	}
	close(lfd);
	return (rc);
}

void
jh_st_close_log(int fd, int hfd)
{
	if (fd != -1)
		close(fd);
	if (hfd != -1)
		close(hfd);
}

/*
 * The session id of a log, from its first chain entry (a bare receipt
 * put before it names no log's session, however many there are); NULL
 * if unreadable or there is none.
 */
char *
jh_st_first_session(int fd)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	const struct jh_cbor *s;
	uint64_t off = 0;
	char *id = NULL;

	jh_buf_init(&b);
	while (id == NULL && jh_st_item(&b, fd, off, &e) == 1) {
		off += b.len;
		jh_arena_init(&a);
		if (jh_env_parse(&env, &a, b.p, b.len, &e) == 0 &&
		    strcmp(env.kind, "chain/1") == 0 &&
		    (s = jh_cbor_get(env.core, "session")) != NULL &&
		    s->type == JH_CBOR_TEXT && (id = malloc(s->len + 1)) !=
		    NULL) {
			memcpy(id, s->p, s->len);
			id[s->len] = '\0';
		}
		jh_arena_free(&a);
	}
	jh_buf_free(&b);
	return (id);
}

/*
 * The checkpoint a log is held to: the latest of the session its file
 * is named after (jh-chain's lowercase hex SHA-256 of the session id,
 * then .jhl), else of the session of its first chain entry (the file is
 * rewound), else, where the file cannot be peeked at, of the one
 * session all of s is of.  *named is set when the name chose it.
 */
const struct jh_cp *
jh_st_log_cp(const struct jh_cps *s, int fd, const char *path, int *named)
{
	char *sid = NULL, hex[2 * JH_HASH_LEN + 1];
	const char *base = strrchr(path, '/');
	const struct jh_cp *cp;
	size_t i;

	*named = 0;
	if (s == NULL || s->n == 0)
		return (NULL);
	base = base != NULL ? base + 1 : path;
	for (i = 0; i < s->n && strlen(base) == 2 * JH_HASH_LEN + 4 &&
	    strcmp(base + 2 * JH_HASH_LEN, ".jhl") == 0; i++) {
		jh_st_digest(hex, (const uint8_t *)s->v[i].session,
		    s->v[i].slen);
		if (strncmp(base, hex, 2 * JH_HASH_LEN) == 0) {
			*named = 1;
			return (jh_cps_pick(s, s->v[i].session));
		}
	}
	if (lseek(fd, 0, SEEK_CUR) == 0)
		sid = jh_st_first_session(fd);
	lseek(fd, 0, SEEK_SET);
	cp = jh_cps_pick(s, sid);
	free(sid);
	return (cp);
}

int
jh_st_load_sink(struct jh_cps *cps, const char *sink, struct jh_verifier *v,
    struct jh_err *e)
{
	int x;

	memset(cps, 0, sizeof(*cps));
	if (sink == NULL || sink[0] == '\0')
		return (0);
	if ((x = jh_cps_load(cps, sink, v, e)) == -1)
		return (1);
	if (x == -2 && access(sink, F_OK) == 0)
		return (2);
	return (0);
}

/* Verifies one log (- for the standard input) into a summary. */
int
jh_st_summarize(struct jh_sum *s, const char *path, struct jh_err *e)
{
	int fd, fl, r;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	else if ((fl = fcntl(fd, F_GETFL)) != -1)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	r = jh_sum_log(s, fd, path, e);
	if (fd != STDIN_FILENO)
		close(fd);
	return (r == -1 ? -1 : 0);
}

/*
 * The logs of the project's sessions (or the one given: an id or its
 * digest), verified.  Returns 0, or -1 with why in e.
 */
int
jh_st_summarize_project(const struct jh_stctx *o, struct jh_sum *s,
    const char *want, struct jh_err *e)
{
	struct jh_buf d;
	char path[PATH_MAX + 80], wd[2 * JH_HASH_LEN + 1];
	size_t n, i;
	int found = 0, rc = 0;

	jh_buf_init(&d);
	if (want != NULL) {
		if (jh_st_is_digest(want, strlen(want)))
			snprintf(wd, sizeof(wd), "%s", want);
		else
			jh_st_digest(wd, (const uint8_t *)want, strlen(want));
	}
	if (jh_st_sessions(&d, &n, o, e) == -1) {
		jh_buf_free(&d);
		return (-1);
	}
	for (i = 0; i < n && rc == 0; i++) {
		const char *dg = (const char *)d.p + i * (2 * JH_HASH_LEN + 1);
		if (want != NULL && strcmp(dg, wd) != 0)
			continue;
		found = 1;
		snprintf(path, sizeof(path), "%s/logs/%s.jhl", o->statedir, dg);
		rc = jh_st_summarize(s, path, e);
	}
	if (rc == 0 && want != NULL && !found)
		rc = jh_errf(e, "no session %.100s of the project %.200s", want,
		    o->root);
	jh_buf_free(&d);
	return (rc);
}

/* The session resource: the status line's figures as JSON. */
char *
jh_st_session_json(const struct jh_stctx *o, const char *digest, int fd,
    int hfd, const char *path)
{
	struct jh_sthead sh;
	struct jh_stbudget sb;
	struct jh_buf b;
	char *id = jh_st_first_session(fd), *s;
	const struct jh_head *h = &sh.head;

	jh_st_head(&sh, fd, hfd, digest, o->keys);
	/*
	 * A session served with no root pinned debits the project's grant
	 * (jh_st_sessions): that one, found by the project's root, not the
	 * default grant.
	 */
	jh_st_budget(&sb, o->home, o->statedir, o->ledgerdir,
	    o->grantfile, digest, o->root);
	jh_buf_init(&b);
	jh_buf_adds(&b, "{\"session\":");
	if (id != NULL)
		jh_json_str(&b, id, strlen(id));
	else
		jh_buf_adds(&b, "null");
	jh_buf_addf(&b, ",\"digest\":\"%s\",\"log\":", digest);
	jh_json_str(&b, path, strlen(path));
	jh_buf_addf(&b, ",\"chain\":{\"state\":\"%s\"",
	    jh_st_state_word(sh.state));
	if (sh.why[0] != '\0') {
		jh_buf_adds(&b, ",\"why\":");
		jh_json_str(&b, sh.why, strlen(sh.why));
	}
	if (sh.state != JH_ST_UNCHECKED && sh.state != JH_ST_EMPTY)
		jh_buf_addf(&b, ",\"entries\":%llu},\"verdicts\":{\"allow\":"
		    "%llu,\"deny\":%llu,\"ask\":%llu,\"rewrite\":%llu},"
		    "\"efficiency\":{\"receipts\":%llu,\"enforced\":%llu,"
		    "\"observed\":%llu,\"measured\":%llu},\"meter\":\"%s\","
		    "\"energy\":{\"tools_estimated_uj\":%llu,"
		    "\"model_measured_uj\":%llu,\"model_modelled_uj\":%llu,"
		    "\"model_estimated_uj\":%llu,\"model_debited_uj\":%llu},"
		    "\"first_ts\":%llu,\"last_ts\":%llu",
		    (unsigned long long)h->count,
		    (unsigned long long)h->n_allow,
		    (unsigned long long)h->n_deny,
		    (unsigned long long)h->n_ask,
		    (unsigned long long)h->n_rewrite,
		    (unsigned long long)h->n_eff,
		    (unsigned long long)h->n_enforced,
		    (unsigned long long)h->n_observed,
		    (unsigned long long)h->n_measured,
		    jh_st_meter(h->n_eff, h->n_enforced),
		    (unsigned long long)h->tools_uj,
		    (unsigned long long)h->measured_uj,
		    (unsigned long long)h->modelled_uj,
		    (unsigned long long)h->estimated_uj,
		    (unsigned long long)h->eff_debited_uj,
		    (unsigned long long)h->first_ts,
		    (unsigned long long)h->last_ts);
	else
		jh_buf_addc(&b, '}');
	if (sb.have_grant)
		jh_buf_addf(&b, ",\"grant\":\"%s\"", sb.grant_id);
	if (sb.have_ledger)
		jh_buf_addf(&b, ",\"ledger\":{\"budget_uj\":%llu,\"spent_uj\":"
		    "%llu,\"held_uj\":%llu}", (unsigned long long)sb.budget,
		    (unsigned long long)sb.spent, (unsigned long long)sb.held);
	jh_buf_adds(&b, ",\"note\":\"display figures from the head record "
	    "and the ledger, not evidence: call the verify tool\"}");
	s = b.oom ? NULL : jh_buf_cstr(&b);
	if (s == NULL)
		jh_buf_free(&b);
	free(id);
	jh_st_head_free(&sh);
	return (s);
}
