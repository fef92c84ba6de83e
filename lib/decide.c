/*
 * joulehook: the gate's decision (jh-decide(1)).  A deterministic
 * function of the event, the grant, the revocation set, the ledger and
 * the clock; it never asks a model.
 *
 * This file holds the parts that need no I/O beyond the file system
 * reads that path resolution and content hashing make: loading and
 * checking a grant, resolving an event's targets, capability and policy
 * matching, rewrites; shellcheck.c holds the protected-path rule and a
 * shell line's checks.  gate.c orders the checks (jh_decide) and owns
 * the ledger transaction.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "decide.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "paths.h"
#include "shellparse.h"
#include "util.h"

#define CONTENT_MAX	(16u * 1024 * 1024)	/* hash files up to this */

/* Environment names whose assignment before a command is harmless. */
static const char *const inert_env[] = { "LANG", "LC_ALL", "LC_CTYPE",
    "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME", "TZ", "NO_COLOR",
    "FORCE_COLOR", "CI", "TERM", "COLUMNS", "LINES", NULL };

void
jh_grant_free(struct jh_grant *g)
{
	jh_arena_free(&g->arena);
	free(g->bytes);
	memset(g, 0, sizeof(*g));
}

static const char *
cstr(struct jh_arena *a, const struct jh_cbor *v)
{
	char *s;

	if (v == NULL || v->type != JH_CBOR_TEXT)
		return (NULL);
	if (memchr(v->p, '\0', v->len) != NULL)
		return (NULL);
	if ((s = jh_arena_alloc(a, v->len + 1)) == NULL)
		return (NULL);
	memcpy(s, v->p, v->len);
	s[v->len] = '\0';
	return (s);
}

/*
 * The tag of a grant whose signature was checked: keyed BLAKE2b of the
 * domain and the SHA-256 h of the grant's bytes.
 */
static void
memo_tag(uint8_t tag[JH_HASH_LEN], const struct jh_sigmemo *m,
    const uint8_t h[JH_HASH_LEN])
{
	static const char dom[] = "joulehook verified grant/1";
	crypto_generichash_state st;

	crypto_generichash_init(&st, m->key, JH_HASH_LEN, JH_HASH_LEN);
	crypto_generichash_update(&st, (const uint8_t *)dom, sizeof(dom));
	crypto_generichash_update(&st, h, JH_HASH_LEN);
	crypto_generichash_final(&st, tag, JH_HASH_LEN);
	sodium_memzero(&st, sizeof(st));
}

/* m->key from the steward key's seed; 0, or -1 where it cannot be made. */
int
jh_sigmemo_key(struct jh_sigmemo *m, const uint8_t *seed)
{
	return (crypto_kdf_derive_from_key(m->key, sizeof(m->key), 1,
	    "jhgrant1", seed));
}

/*
 * Whether bytes carry a tag under m->dir, or (check 0) writes theirs
 * there, best effort: a tag lost or unreadable is a signature checked
 * again.  The file is read through no link, 32 bytes or nothing.
 */
static int
memo(const struct jh_sigmemo *m, const uint8_t *bytes, size_t len,
    int check)
{
	uint8_t h[JH_HASH_LEN], tag[JH_HASH_LEN], got[JH_HASH_LEN + 1];
	char tmp[2 * JH_HASH_LEN + 32], hex[2 * JH_HASH_LEN + 1];
	struct stat st;
	ssize_t n;
	int dfd, fd, ok = 0;

	/* the directory, the user's alone and no link, as state files are */
	if ((dfd = open(m->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 && (check || errno != ENOENT ||
	    mkdir(m->dir, 0700) == -1 || (dfd = open(m->dir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1))
		return (0);
	if (fstat(dfd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		close(dfd);
		return (0);
	}
	crypto_hash_sha256(h, bytes, len);
	jh_hex(hex, h, sizeof(h));
	memo_tag(tag, m, h);
	if (check) {
		if ((fd = openat(dfd, hex, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC)) != -1) {
			n = read(fd, got, sizeof(got));
			close(fd);
			ok = n == JH_HASH_LEN && sodium_memcmp(got, tag,
			    JH_HASH_LEN) == 0;
		}
	} else {
		snprintf(tmp, sizeof(tmp), ".%s.%ld", hex, (long)getpid());
		if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600)) != -1) {
			ok = write(fd, tag, sizeof(tag)) ==
			    (ssize_t)sizeof(tag);
			if (close(fd) == -1 || !ok ||
			    renameat(dfd, tmp, dfd, hex) == -1)
				(void)unlinkat(dfd, tmp, 0);
		}
	}
	close(dfd);
	return (ok);
}

/*
 * Loads a sealed grant and checks it: a canonical grant/1 envelope whose
 * signature verifies (else JH_D_BADSIG), signed by an issuer in trust
 * (else JH_D_UNTRUSTED).  Returns 0, or a JH_D_* code with the reason.
 */
int
jh_grant_load(struct jh_grant *g, const char *path,
    const struct jh_keyset *trust, struct jh_err *e)
{
	return (jh_grant_load_memo(g, path, trust, NULL, e));
}

/*
 * A grant's signature checked once for the holder of the steward key:
 * an Ed25519 verification costs a hook call about 0.1 ms, a tag's read
 * a few microseconds.  The tag stands only for the check of these very
 * bytes; the issuer's trust, revocation and the grant's times are
 * checked at every call as before.
 */
int
jh_grant_load_memo(struct jh_grant *g, const char *path,
    const struct jh_keyset *trust, const struct jh_sigmemo *m,
    struct jh_err *e)
{
	int known = 0;
	struct jh_buf b;
	const struct jh_cbor *v;
	char did[JH_DIDKEY_MAX];
	int fd;

	memset(g, 0, sizeof(*g));
	jh_arena_init(&g->arena);
	jh_buf_init(&b);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		jh_errf(e, "no grant: %s: %s", path, strerror(errno));
		return (JH_D_NOGRANT);
	}
	if (jh_read_all(&b, fd, JH_MAX_RECORD, e) == -1) {
		close(fd);
		jh_buf_free(&b);
		return (JH_D_NOGRANT);
	}
	close(fd);
	g->bytes = b.p;
	g->len = b.len;
	if (jh_env_parse(&g->env, &g->arena, g->bytes, g->len, e) == -1 ||
	    (!(known = m != NULL && memo(m, g->bytes, g->len, 1)) &&
	    jh_env_verify_sig(&g->env, e) == -1)) {
		char msg[sizeof(e->msg)];
		memcpy(msg, e->msg, sizeof(msg));
		jh_errf(e, "the grant does not verify: %s", msg);
		return (JH_D_BADSIG);
	}
	if (m != NULL && m->write && !known)
		(void)memo(m, g->bytes, g->len, 0);
	if (strcmp(g->env.kind, "grant/1") != 0) {
		jh_errf(e, "the grant file holds a %s", g->env.kind);
		return (JH_D_BADSIG);
	}
	if (jh_kind_check(g->env.core, JH_KIND_GRANT, e) == -1) {
		char msg[sizeof(e->msg)];
		memcpy(msg, e->msg, sizeof(msg));
		jh_errf(e, "the grant is not valid: %s", msg);
		return (JH_D_BADSIG);
	}
	jh_didkey_enc(did, sizeof(did), g->env.kid);
	if (!jh_cbor_text_is(jh_cbor_get(g->env.core, "steward"), did)) {
		jh_errf(e, "the grant's issuer is not its signer");
		return (JH_D_BADSIG);
	}
	if (!jh_keyset_has(trust, g->env.kid, JH_ROLE_ISSUER)) {
		jh_errf(e, "the grant's issuer %s is not in the trust file",
		    did);
		return (JH_D_UNTRUSTED);
	}
	crypto_hash_sha256(g->id, g->env.payload_p, g->env.payload_len);
	jh_id_text(g->idtext, g->id);
	/*
	 * A grant resealed from another names that one's ledger, so a
	 * changed grant spends on from what was spent (formats(5)).
	 */
	memcpy(g->ledger, g->id, JH_HASH_LEN);
	if ((v = jh_cbor_get(g->env.core, "ledger")) != NULL &&
	    jh_unhex(g->ledger, JH_HASH_LEN, (const char *)v->p + 7,
	    64) == -1) {
		jh_errf(e, "the grant's ledger is not an id");
		return (JH_D_BADSIG);
	}
	jh_id_text(g->ledgertext, g->ledger);
	g->caps = jh_cbor_get(g->env.core, "caps");
	g->policies = jh_cbor_get(g->env.core, "policies");
	g->costs = jh_cbor_get(g->env.core, "costs");
	g->audience = jh_cbor_get(g->env.core, "audience");
	g->outcome = jh_cbor_get(g->env.core, "outcome");
	g->otherwise_ask = jh_cbor_text_is(jh_cbor_get(g->env.core,
	    "otherwise"), "ask");
	g->root = cstr(&g->arena, jh_cbor_get(g->env.core, "root"));
	g->nbf = jh_cbor_get(g->env.core, "nbf")->u;
	g->exp = jh_cbor_get(g->env.core, "exp")->u;
	g->budget = jh_cbor_get(g->env.core, "budget_uj")->u;
	g->depth = jh_cbor_get(g->env.core, "depth")->u;
	g->parent = jh_cbor_get(g->env.core, "parent");
	g->agent = jh_cbor_get(g->env.core, "agent");
	g->holder = jh_cbor_get(g->env.core, "holder");
	if ((v = jh_cbor_get(g->env.core, "root")) != NULL &&
	    (g->root == NULL || g->root[0] != '/')) {
		jh_errf(e, "the grant's root is not an absolute path");
		return (JH_D_BADSIG);
	}
	return (0);
}

/*
 * The revocation check is one open: revoked/<grant hex>.  A file there
 * must be a revocation/1 for this grant by its issuer; one that is not
 * fails closed (the caller denies with gate-failure).  Returns 0 not
 * revoked, 1 revoked, -1 unverifiable.
 */
int
jh_grant_revoked(const struct jh_grant *g, const char *dir,
    struct jh_err *e)
{
	char path[4096], hex[2 * JH_HASH_LEN + 1];
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	int fd, rc = -1;

	if (dir == NULL)
		return (0);
	jh_hex(hex, g->id, JH_HASH_LEN);
	if (snprintf(path, sizeof(path), "%s/%s", dir, hex) >=
	    (int)sizeof(path))
		return (jh_errf(e, "revocation path too long"));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOFOLLOW)) == -1) {
		if (errno == ENOENT)
			return (0);
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	}
	jh_buf_init(&b);
	jh_arena_init(&a);
	if (jh_read_all(&b, fd, JH_MAX_RECORD, e) == -1)
		goto out;
	if (jh_env_parse(&env, &a, b.p, b.len, e) == -1 ||
	    jh_env_verify_sig(&env, e) == -1 ||
	    strcmp(env.kind, "revocation/1") != 0 ||
	    jh_kind_check(env.core, JH_KIND_REVOCATION, e) == -1 ||
	    memcmp(env.kid, g->env.kid, JH_PK_LEN) != 0 ||
	    !jh_cbor_text_is(jh_cbor_get(env.core, "grant"), g->idtext)) {
		jh_errf(e, "%s is not a revocation of this grant by its "
		    "issuer", path);
		goto out;
	}
	rc = 1;
out:
	close(fd);
	jh_buf_free(&b);
	jh_arena_free(&a);
	return (rc);
}

/* A cbor text or array of texts; calls f on each until it returns 1. */
static int
any_text(const struct jh_cbor *v, int (*f)(const char *, size_t,
    const void *), const void *ctx)
{
	size_t i;

	if (v == NULL)
		return (0);
	if (v->type == JH_CBOR_TEXT)
		return (f((const char *)v->p, v->len, ctx));
	if (v->type != JH_CBOR_ARRAY)
		return (0);
	for (i = 0; i < v->len; i++)
		if (v->v[i].type == JH_CBOR_TEXT &&
		    f((const char *)v->v[i].p, v->v[i].len, ctx))
			return (1);
	return (0);
}

static int
glob_free_cb(const char *p, size_t n, const void *ctx)
{
	char pat[1024];

	if (n >= sizeof(pat))
		return (0);
	memcpy(pat, p, n);
	pat[n] = '\0';
	return (jh_glob(pat, ctx, 0));
}

static int
exact_cb(const char *p, size_t n, const void *ctx)
{
	return (strlen(ctx) == n && memcmp(p, ctx, n) == 0);
}

int
jh_audience_ok(const struct jh_grant *g, const char *host)
{
	char aud[256];

	snprintf(aud, sizeof(aud), "joulehook:%s", host);
	return (any_text(g->audience, glob_free_cb, aud));
}

/*
 * Splits a command pattern into words at blanks.  Patterns are written
 * by a grant's author; they have no quoting.
 */
static size_t
split_words(char *s, char **w, size_t max)
{
	size_t n = 0;
	char *p = s;

	while (*p != '\0' && n < max) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (*p == '\0')
			break;
		w[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
	}
	return (n);
}

/*
 * Matches a command pattern against quote-removed words: each pattern
 * word but the last matches one word (a glob within the word); the last
 * matches the remaining words joined by single spaces, so "npm run *"
 * takes any arguments and "git push *--force*" finds --force anywhere
 * after "git push".  With openargs (xargs, find -exec ... +), arguments
 * come at run time, so the pattern must end in "*".
 */
int
jh_cmd_match(const char *pattern, char **words, size_t n, int openargs)
{
	char pat[1024], *pw[64], joined[8192];
	size_t np, i, jl = 0;

	if (strlen(pattern) >= sizeof(pat))
		return (0);
	strcpy(pat, pattern);
	if ((np = split_words(pat, pw, 64)) == 0)
		return (0);
	if (openargs && strcmp(pw[np - 1], "*") != 0)
		return (0);
	if (n < np - 1)
		return (0);
	for (i = 0; i + 1 < np; i++)
		if (!jh_glob(pw[i], words[i], 0))
			return (0);
	joined[0] = '\0';
	for (i = np - 1; i < n; i++) {
		size_t wl = strlen(words[i]);
		if (jl + wl + 2 >= sizeof(joined))
			return (0);
		if (i > np - 1)
			joined[jl++] = ' ';
		memcpy(joined + jl, words[i], wl);
		jl += wl;
		joined[jl] = '\0';
	}
	return (jh_glob(pw[np - 1], joined, 0));
}

struct cmdctx {
	char **words;
	size_t n;
	int openargs;
};

static int
cmd_cb(const char *p, size_t len, const void *ctx)
{
	const struct cmdctx *c = ctx;
	char pat[1024];

	if (len >= sizeof(pat))
		return (0);
	memcpy(pat, p, len);
	pat[len] = '\0';
	return (jh_cmd_match(pat, c->words, c->n, c->openargs));
}

struct pathctx {
	const char *root;
	const char *path;
};

static int
path_cb(const char *p, size_t len, const void *ctx)
{
	const struct pathctx *c = ctx;
	char pat[PATH_MAX];

	if (len >= sizeof(pat))
		return (0);
	memcpy(pat, p, len);
	pat[len] = '\0';
	return (jh_path_match(pat, c->root, c->path));
}

static int
class_ok(const struct jh_cbor *m, const char *class, const char *tool)
{
	const struct jh_cbor *c = jh_cbor_get(m, "class");
	const struct jh_cbor *t = jh_cbor_get(m, "tool");

	if (c == NULL && t == NULL)
		return (0);
	if (c != NULL && !any_text(c, exact_cb, class))
		return (0);
	if (t != NULL && !any_text(t, glob_free_cb, tool))
		return (0);
	return (1);
}

/*
 * Does cap (or a policy's when) hold for this action?  Keys are ANDed:
 * class/tool, command (for one simple command's words), path (every
 * target), url, content_id.
 */
int
jh_cap_match(const struct jh_cbor *cap, const struct jh_action *act,
    char **words, size_t nwords, int openargs)
{
	const struct jh_cbor *v;
	size_t i;

	if (cap == NULL || cap->type != JH_CBOR_MAP)
		return (0);
	if (!class_ok(cap, act->class, act->tool))
		return (0);
	if ((v = jh_cbor_get(cap, "command")) != NULL) {
		struct cmdctx c = { words, nwords, openargs };
		if (words == NULL || !any_text(v, cmd_cb, &c))
			return (0);
	} else if (words != NULL)
		return (0);	/* a shell cap must name its commands */
	if ((v = jh_cbor_get(cap, "path")) != NULL) {
		if (act->ntargets == 0)
			return (0);
		for (i = 0; i < act->ntargets; i++) {
			struct pathctx p = { act->root, act->targets[i] };
			if (!any_text(v, path_cb, &p))
				return (0);
		}
	} else if (act->ntargets > 0 && words == NULL &&
	    (strcmp(act->class, "read") == 0 ||
	    strcmp(act->class, "write") == 0 ||
	    strcmp(act->class, "edit") == 0 ||
	    strcmp(act->class, "search") == 0))
		return (0);	/* file actions need a path grant */
	if ((v = jh_cbor_get(cap, "url")) != NULL &&
	    (act->url == NULL || !any_text(v, glob_free_cb, act->url)))
		return (0);
	if ((v = jh_cbor_get(cap, "content_id")) != NULL &&
	    (act->content_id == NULL || !any_text(v, exact_cb,
	    act->content_id)))
		return (0);
	return (1);
}

/* The index of the first capability that grants the action, or -1. */
int
jh_find_cap(const struct jh_grant *g, const struct jh_action *a, char **w,
    size_t n, int openargs)
{
	size_t i;

	for (i = 0; g->caps != NULL && i < g->caps->len; i++)
		if (jh_cap_match(&g->caps->v[i], a, w, n, openargs))
			return ((int)i);
	return (-1);
}

/*
 * The hash of an existing regular file, opened without following links
 * or blocking on a FIFO, under a size cap; NULL when there is none to be
 * had honestly (jh-decide(1), Paths).
 */
int
jh_file_content_id(char *out, const char *path)
{
	struct stat st;
	crypto_hash_sha256_state h;
	uint8_t buf[65536], d[JH_HASH_LEN];
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (off_t)CONTENT_MAX) {
		close(fd);
		return (-1);
	}
	crypto_hash_sha256_init(&h);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		crypto_hash_sha256_update(&h, buf, (size_t)r);
	close(fd);
	if (r == -1)
		return (-1);
	crypto_hash_sha256_final(&h, d);
	jh_id_text(out, d);
	return (0);
}

int
jh_inert_env(const char *assign)
{
	size_t i, n = strcspn(assign, "=+[");

	for (i = 0; inert_env[i] != NULL; i++)
		if (strlen(inert_env[i]) == n &&
		    strncmp(assign, inert_env[i], n) == 0)
			return (1);
	return (0);
}

/*
 * The text every match of a POSIX ERE starts with: its leading ordinary
 * characters, less the last where a repetition follows it (a + too:
 * glibc reads b+? as (b+)?); none where the expression holds an
 * alternation anywhere.  lit gets at most sz - 1.
 */
static void
ere_lead(const char *re, char *lit, size_t sz)
{
	size_t n = 0;

	lit[0] = '\0';
	if (strchr(re, '|') != NULL)
		return;
	if (*re == '^')
		re++;
	while (*re != '\0' && strchr("\\.[]()*+?{}^$", *re) == NULL &&
	    n + 1 < sz)
		lit[n++] = *re++;
	if (n > 0 && (*re == '*' || *re == '?' || *re == '{' || *re == '+'))
		n--;
	lit[n] = '\0';
}

/*
 * Rewrites one string: every match of the POSIX ERE is replaced by
 * `with`, where \0-\9 are back-references and everything else is
 * literal (jh-decide(1), Policies).  Returns 1 when something changed.
 */
int
jh_rewrite(struct jh_buf *out, const char *s, const char *re,
    const char *with, struct jh_err *e)
{
	regex_t rx;
	regmatch_t m[10];
	const char *p = s, *w;
	char lead[64];
	int changed = 0, flags = 0, r;

	/*
	 * Text without what every match starts with is left as it is, the
	 * expression not compiled: glibc's regcomp(3) costs a cold process
	 * about 0.1 ms, a tenth of a gated call's decision.
	 */
	ere_lead(re, lead, sizeof(lead));
	if (lead[0] != '\0' && strstr(s, lead) == NULL) {
		jh_buf_reset(out);
		jh_buf_adds(out, s);
		if (jh_buf_cstr(out) == NULL)
			return (jh_errf(e, "out of memory"));
		return (0);
	}
	if ((r = regcomp(&rx, re, REG_EXTENDED)) != 0) {
		char msg[128];
		regerror(r, &rx, msg, sizeof(msg));
		return (jh_errf(e, "bad rewrite regex: %s", msg));
	}
	jh_buf_reset(out);
	while (*p != '\0' && regexec(&rx, p, 10, m, flags) == 0) {
		jh_buf_add(out, p, (size_t)m[0].rm_so);
		for (w = with; *w != '\0'; w++) {
			if (w[0] == '\\' && w[1] >= '0' && w[1] <= '9') {
				int k = w[1] - '0';
				if (m[k].rm_so != -1)
					jh_buf_add(out, p + m[k].rm_so,
					    (size_t)(m[k].rm_eo - m[k].rm_so));
				w++;
			} else
				jh_buf_addc(out, (uint8_t)*w);
		}
		changed = 1;
		if (m[0].rm_eo == m[0].rm_so) {
			/* An empty match: step over one character. */
			if (p[m[0].rm_eo] == '\0')
				break;
			jh_buf_addc(out, (uint8_t)p[m[0].rm_eo]);
			p += m[0].rm_eo + 1;
		} else
			p += m[0].rm_eo;
		flags = REG_NOTBOL;
	}
	jh_buf_adds(out, p);
	regfree(&rx);
	if (jh_buf_cstr(out) == NULL)
		return (jh_errf(e, "out of memory"));
	return (changed);
}

/* A policy's `when`: like a cap, plus field+regex over the input. */
int
jh_when_match(const struct jh_cbor *when, const struct jh_action *act,
    const json_t *input, const struct jh_sh_script *sh)
{
	const struct jh_cbor *f, *re, *cmd;
	size_t i;

	if (when == NULL || when->type != JH_CBOR_MAP)
		return (0);
	if ((jh_cbor_get(when, "class") != NULL ||
	    jh_cbor_get(when, "tool") != NULL) &&
	    !class_ok(when, act->class, act->tool))
		return (0);
	if ((cmd = jh_cbor_get(when, "command")) != NULL) {
		int hit = 0;
		if (sh == NULL)
			return (0);
		for (i = 0; i < sh->n && !hit; i++) {
			const struct jh_sh_cmd *c = &sh->cmd[i];
			char *w[256];
			size_t n = 0, k;
			struct cmdctx cc;
			for (k = 0; k < c->argc && n < 256; k++)
				w[n++] = c->argv[k].s;
			if (n == 0)
				continue;
			cc.words = w;
			cc.n = n;
			cc.openargs = 0;
			hit = any_text(cmd, cmd_cb, &cc);
		}
		if (!hit)
			return (0);
	}
	if ((f = jh_cbor_get(when, "path")) != NULL) {
		int hit = 0;
		for (i = 0; i < act->ntargets && !hit; i++) {
			struct pathctx p = { act->root, act->targets[i] };
			hit = any_text(f, path_cb, &p);
		}
		if (!hit)
			return (0);
	}
	f = jh_cbor_get(when, "field");
	re = jh_cbor_get(when, "regex");
	if (f != NULL || re != NULL) {
		char fname[128], rs[1024];
		json_t *v;
		regex_t rx;
		int ok;

		if (f == NULL || re == NULL || f->type != JH_CBOR_TEXT ||
		    re->type != JH_CBOR_TEXT || f->len >= sizeof(fname) ||
		    re->len >= sizeof(rs))
			return (0);
		memcpy(fname, f->p, f->len);
		fname[f->len] = '\0';
		memcpy(rs, re->p, re->len);
		rs[re->len] = '\0';
		v = json_object_get(input, fname);
		if (v == NULL || !json_is_string(v))
			return (0);
		if (regcomp(&rx, rs, REG_EXTENDED | REG_NOSUB) != 0)
			return (0);
		ok = regexec(&rx, json_string_value(v), 0, NULL, 0) == 0;
		regfree(&rx);
		if (!ok)
			return (0);
	}
	return (1);
}
