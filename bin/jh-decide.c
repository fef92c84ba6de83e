/*
 * jh-decide: decide ActionEvents against a signed grant, content
 * policies and the joule budget; write Decisions (DESIGN.md 2.2, 4).
 *
 * The ordered check, the first failure naming the stable code:
 * well-formed, protected paths and commands, a grant, its signature, its
 * issuer, not revoked, audience, nbf/exp, capability, policies (deny >
 * ask > rewrite; a rewritten input is decided again), budget -> debit.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"

#define PROG		"jh-decide"
#define DEFAULT_COST	100000		/* 0.1 J: a nominal surcharge */
#define MAX_TARGETS	256
#define MAX_PROTECT	48

static const char *const codes[] = {
	"ok", "malformed-event", "protected-path", "no-grant",
	"bad-signature", "untrusted-issuer", "revoked", "wrong-audience",
	"not-yet-valid", "expired", "not-granted", "unprovable-command",
	"unsafe-target", "policy-deny", "policy-ask", "policy-rewrite",
	"budget-exceeded", "gate-failure"
};

struct opts {
	const char *grantfile;
	const char *trustfile;
	const char *revdir;
	const char *ledgerdir;
	const char *statedir;
	const char *home;
	int exit_deny;
	int init;
	unsigned wait_ms;
	struct jh_keyset trust;
	char *protect[MAX_PROTECT];
	size_t nprotect;
	char homebuf[PATH_MAX], statebuf[PATH_MAX], ledgerbuf[PATH_MAX];
	char trustbuf[PATH_MAX], revbuf[PATH_MAX];
};

/* The last grant loaded, by path: a stream of events reuses it. */
struct gcache {
	char path[PATH_MAX * 2];
	int loaded;
	int rc;			/* 0 or the JH_D_* code of the failure */
	struct jh_err e;
	struct jh_grant g;
};

/* One decision being made. */
struct dec {
	int code;
	const char *verdict;
	char reason[512];
	uint64_t cost;
	uint64_t debited;
	uint64_t remaining;
	int have_remaining;
	char rule[32];
	json_t *targets;		/* array of resolved paths */
	json_t *updated;		/* rewrite: the new input */
	char content_id[JH_ID_LEN];
	int have_cid;
	const char *grant;
	int outcome;		/* the command is the grant's outcome command */
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-e] [-g grant] [-L ledgerdir] [-P dir] [-R revokeddir] "
	    "[-S statedir]\n"
	    "                 [-t trust] [-w ms] [file ...]\n"
	    "       %s -I [-g grant] [-L ledgerdir] [-S statedir] [-t trust]\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static int
fail(struct dec *d, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct dec *d, int code, const char *fmt, ...)
{
	va_list ap;

	d->code = code;
	d->verdict = "deny";
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	return (code);
}

static const char *
sget(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return (json_is_string(v) ? json_string_value(v) : NULL);
}

/*
 * The project root: pinned once per session at its first event, in
 * JH_STATE/roots/<digest of the session id>; never the per-event cwd
 * (SECURITY.md S2).
 */
static int
pinned_root(const struct opts *o, const char *session, const char *cwd,
    char *out, size_t sz, struct jh_err *e)
{
	char name[2 * JH_HASH_LEN + 1];
	uint8_t h[JH_HASH_LEN];
	int sfd, dfd, fd, created = 0;
	ssize_t n;

	crypto_hash_sha256(h, (const uint8_t *)session, strlen(session));
	jh_hex(name, h, sizeof(h));
	if (mkdir(o->statedir, 0700) == -1 && errno != EEXIST)
		return (jh_errf(e, "%s: %s", o->statedir, strerror(errno)));
	sfd = open(o->statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (sfd == -1)
		return (jh_errf(e, "%s: %s", o->statedir, strerror(errno)));
	if (jh_state_check(sfd, 1, o->statedir, e) == -1) {
		close(sfd);
		return (-1);
	}
	dfd = jh_open_dir(sfd, "roots", 1, e);
	close(sfd);
	if (dfd == -1)
		return (-1);
	fd = jh_open_state(dfd, name, 1, &created, e);
	if (fd == -1) {
		close(dfd);
		return (-1);
	}
	if (flock(fd, LOCK_EX) == -1) {
		close(fd);
		close(dfd);
		return (jh_errf(e, "roots: %s", strerror(errno)));
	}
	n = pread(fd, out, sz - 1, 0);
	if (n > 0)
		out[n] = '\0';
	else {
		/* First event of the session: pin its cwd. */
		size_t l = strlen(cwd);
		if (l + 1 > sz || pwrite(fd, cwd, l, 0) != (ssize_t)l ||
		    fsync(fd) == -1 || fsync(dfd) == -1) {
			close(fd);
			close(dfd);
			return (jh_errf(e, "roots: cannot pin the root"));
		}
		memcpy(out, cwd, l + 1);
	}
	close(fd);
	close(dfd);
	if (out[0] != '/')
		return (jh_errf(e, "roots: the pinned root is not absolute"));
	return (0);
}

/* The shell checks' context: this event's protection and targets. */
static void
shck_init(struct jh_shck *sc, struct dec *d, const struct opts *o,
    const char *root)
{
	memset(sc, 0, sizeof(*sc));
	sc->protect = o->protect;
	sc->nprotect = o->nprotect;
	sc->root = root;
	sc->targets = d->targets;
}

/* A target of the action: resolved, checked against protection. */
static int
add_target(struct dec *d, const struct opts *o, const char *root,
    const char *base, const char *path, char **targets, size_t *n)
{
	char r[PATH_MAX + 1];
	struct jh_err e;

	if (jh_path_resolve(r, sizeof(r), base, path, &e) == -1)
		return (fail(d, JH_D_UNSAFE, "cannot resolve %.200s: %s", path,
		    e.msg));
	if (jh_path_protected(o->protect, o->nprotect, root, r))
		return (fail(d, JH_D_PROTECTED, "%.200s is protected: "
		    "joulehook's own files and the host's configuration are "
		    "never granted", r));
	if (*n >= MAX_TARGETS)
		return (fail(d, JH_D_UNPROVABLE, "too many targets"));
	if ((targets[*n] = strdup(r)) == NULL)
		return (fail(d, JH_D_GATEFAIL, "out of memory"));
	json_array_append_new(d->targets, json_string(r));
	(*n)++;
	return (0);
}

static uint64_t
cap_cost(const struct jh_grant *g, int idx, const char *class)
{
	const struct jh_cbor *v = NULL;

	if (idx >= 0 && (v = jh_cbor_get(&g->caps->v[idx], "cost_uj")) !=
	    NULL && v->type == JH_CBOR_UINT)
		return (v->u);
	if ((v = jh_cbor_get(g->costs, class)) != NULL &&
	    v->type == JH_CBOR_UINT)
		return (v->u);
	if ((v = jh_cbor_get(g->costs, "default")) != NULL &&
	    v->type == JH_CBOR_UINT)
		return (v->u);
	return (DEFAULT_COST);
}

/* Everything an action targets, by class (SECURITY.md S6, U3). */
static int
collect_targets(struct dec *d, const struct opts *o, const char *root,
    const char *class, const char *tool, const json_t *in, const char *cwd,
    char **targets, size_t *n)
{
	const char *p;
	char pre[PATH_MAX];
	int rc;

	if (strcmp(class, "read") == 0 || strcmp(class, "write") == 0 ||
	    strcmp(class, "edit") == 0) {
		if ((p = sget(in, "file_path")) == NULL &&
		    (p = sget(in, "notebook_path")) == NULL &&
		    (p = sget(in, "path")) == NULL)
			return (fail(d, JH_D_MALFORMED, "%s has no file path",
			    tool));
		return (add_target(d, o, root, cwd, p, targets, n));
	}
	if (strcmp(class, "search") == 0) {
		const char *base = sget(in, "path");
		char bres[PATH_MAX + 1];
		struct jh_err e;

		if (base == NULL || *base == '\0')
			base = cwd;
		if ((rc = add_target(d, o, root, cwd, base, targets, n)) != 0)
			return (rc);
		if ((p = sget(in, "pattern")) != NULL && strcmp(tool,
		    "Glob") == 0) {
			jh_glob_prefix(pre, sizeof(pre), p);
			if (jh_path_resolve(bres, sizeof(bres), cwd, base,
			    &e) == -1)
				return (fail(d, JH_D_UNSAFE, "%s", e.msg));
			return (add_target(d, o, root, bres, pre, targets, n));
		}
	}
	return (0);
}

static int
write_checks(struct dec *d, const char *class, char **targets, size_t n)
{
	struct stat st;
	size_t i;

	if (strcmp(class, "write") != 0 && strcmp(class, "edit") != 0)
		return (0);
	for (i = 0; i < n; i++) {
		if (stat(targets[i], &st) == -1)
			continue;	/* a new file */
		if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
			return (fail(d, JH_D_UNSAFE, "%.200s is not a regular "
			    "file with one link", targets[i]));
	}
	return (0);
}

/*
 * Capability, then the deny and ask policies, for one input; rewrite
 * policies are the caller's.  Fills the rule and the first cap.
 */
static int
check_input(struct dec *d, const struct opts *o, const struct jh_grant *g,
    struct jh_action *act, const json_t *in, const char *cwd,
    const char *root, int *capidx)
{
	struct jh_sh_script sh;
	struct jh_shck sc;
	struct jh_err e;
	size_t i;
	int rc = 0, have_sh = 0, ask = -1;

	memset(&sh, 0, sizeof(sh));
	if (strcmp(act->class, "shell") == 0) {
		const char *cmd = sget(in, "command");
		if (cmd == NULL)
			return (fail(d, JH_D_MALFORMED, "no command"));
		if (jh_sh_parse(&sh, cmd, strlen(cmd), &e) == -1)
			return (fail(d, JH_D_UNPROVABLE, "%s", e.msg));
		have_sh = 1;
		shck_init(&sc, d, o, root);
		if (jh_shell_protected(&sc, cwd, &sh) != 0 ||
		    jh_shell_caps(&sc, g, act, cwd, &sh, capidx) != 0) {
			rc = fail(d, sc.code, "%s", sc.reason);
			goto out;
		}
	} else {
		if ((*capidx = jh_find_cap(g, act, NULL, 0, 0)) == -1) {
			rc = fail(d, JH_D_NOTGRANTED, "no capability grants "
			    "%s%s%.200s", act->tool, act->ntargets ? " on " :
			    "", act->ntargets ? act->targets[0] : "");
			goto out;
		}
	}
	for (i = 0; g->policies != NULL && i < g->policies->len; i++) {
		const struct jh_cbor *p = &g->policies->v[i];
		const struct jh_cbor *v = jh_cbor_get(p, "verdict");
		const struct jh_cbor *why = jh_cbor_get(p, "reason");
		const struct jh_cbor *id = jh_cbor_get(p, "id");

		if (v == NULL || !jh_when_match(jh_cbor_get(p, "when"), act, in,
		    have_sh ? &sh : NULL))
			continue;
		if (jh_cbor_text_is(v, "deny")) {
			rc = fail(d, JH_D_POLICY_DENY, "%.*s",
			    why ? (int)why->len : 6, why ? (const char *)why->p :
			    "denied by a policy");
			snprintf(d->rule, sizeof(d->rule), "policies[%zu]", i);
			goto out;
		}
		if (jh_cbor_text_is(v, "ask") && ask == -1)
			ask = (int)i;
		(void)id;
	}
	if (ask != -1) {
		const struct jh_cbor *why = jh_cbor_get(&g->policies->v[ask],
		    "reason");
		d->code = JH_D_POLICY_ASK;
		d->verdict = "ask";
		snprintf(d->reason, sizeof(d->reason), "%.*s",
		    why ? (int)why->len : 22, why ? (const char *)why->p :
		    "a policy asks a human");
		snprintf(d->rule, sizeof(d->rule), "policies[%d]", ask);
		rc = JH_D_POLICY_ASK;
	}
out:
	if (have_sh)
		jh_sh_free(&sh);
	return (rc);
}

/* Applies the matching rewrite policies in list order to a copy. */
static int
apply_rewrites(struct dec *d, const struct jh_grant *g,
    const struct jh_action *act, const json_t *in, json_t **out)
{
	struct jh_sh_script sh;
	struct jh_err e;
	struct jh_buf b;
	json_t *cur = json_deep_copy(in);
	size_t i;
	int changed = 0, have_sh = 0;

	jh_buf_init(&b);
	memset(&sh, 0, sizeof(sh));
	if (strcmp(act->class, "shell") == 0 && sget(in, "command") != NULL &&
	    jh_sh_parse(&sh, sget(in, "command"), strlen(sget(in,
	    "command")), &e) == 0)
		have_sh = 1;
	for (i = 0; g->policies != NULL && i < g->policies->len; i++) {
		const struct jh_cbor *p = &g->policies->v[i];
		const struct jh_cbor *rw = jh_cbor_get(p, "rewrite");
		const struct jh_cbor *f, *re, *with;
		char fs[128], res[1024], ws[1024];
		int r;

		if (rw == NULL || !jh_when_match(jh_cbor_get(p, "when"), act,
		    in, have_sh ? &sh : NULL))
			continue;
		f = jh_cbor_get(rw, "field");
		re = jh_cbor_get(rw, "regex");
		with = jh_cbor_get(rw, "with");
		if (f == NULL || re == NULL || with == NULL ||
		    f->type != JH_CBOR_TEXT || re->type != JH_CBOR_TEXT ||
		    with->type != JH_CBOR_TEXT || f->len >= sizeof(fs) ||
		    re->len >= sizeof(res) || with->len >= sizeof(ws))
			continue;
		snprintf(fs, sizeof(fs), "%.*s", (int)f->len, f->p);
		snprintf(res, sizeof(res), "%.*s", (int)re->len, re->p);
		snprintf(ws, sizeof(ws), "%.*s", (int)with->len, with->p);
		if (sget(cur, fs) == NULL)
			continue;
		r = jh_rewrite(&b, sget(cur, fs), res, ws, &e);
		if (r == -1) {
			fail(d, JH_D_GATEFAIL, "policies[%zu]: %s", i, e.msg);
			json_decref(cur);
			cur = NULL;
			break;
		}
		if (r == 1) {
			json_object_set_new(cur, fs, json_string(
			    (const char *)b.p));
			changed = 1;
			snprintf(d->rule, sizeof(d->rule), "policies[%zu]", i);
		}
	}
	if (have_sh)
		jh_sh_free(&sh);
	jh_buf_free(&b);
	if (cur == NULL)
		return (-1);
	if (!changed) {
		json_decref(cur);
		*out = NULL;
		return (0);
	}
	*out = cur;
	return (1);
}

/* The budget: under the ledger's lock, debit or hold, fsync. */
static int
budget(struct dec *d, const struct opts *o, const struct jh_grant *g,
    const char *tuid, uint64_t now)
{
	struct jh_ledger *l;
	struct jh_err e;
	uint64_t rem;
	int fd, rc = 0;

	if ((fd = jh_ledger_open(o->ledgerdir, g->id, 0, NULL, &e)) == -1)
		return (fail(d, JH_D_GATEFAIL, "%s", e.msg));
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		return (fail(d, JH_D_GATEFAIL, "out of memory"));
	}
	if (jh_flock(fd, LOCK_EX, o->wait_ms, &e) == -1) {
		rc = fail(d, JH_D_GATEFAIL, "ledger: %s", e.msg);
		goto out;
	}
	if (jh_ledger_read(l, fd, &e) == -1) {
		rc = fail(d, JH_D_GATEFAIL, "ledger: %s", e.msg);
		goto out;
	}
	if (memcmp(l->grant, g->id, JH_HASH_LEN) != 0) {
		rc = fail(d, JH_D_GATEFAIL, "ledger: not this grant's");
		goto out;
	}
	l->budget_uj = g->budget;
	jh_ledger_reap(l, now);
	rem = jh_ledger_remaining(l);
	d->remaining = rem;
	d->have_remaining = 1;
	if (d->cost > rem) {
		rc = fail(d, JH_D_BUDGET, "cost %llu uJ exceeds the remaining "
		    "%llu uJ", (unsigned long long)d->cost,
		    (unsigned long long)rem);
		goto out;
	}
	if (strcmp(d->verdict, "ask") == 0) {
		if (jh_ledger_hold(l, tuid, d->cost, 0, now, &e) == -1) {
			rc = fail(d, JH_D_GATEFAIL, "ledger: %s", e.msg);
			goto out;
		}
	} else {
		jh_ledger_debit(l, tuid, d->cost, now);
		d->debited = d->cost;
	}
	if (jh_ledger_write(fd, l, &e) == -1) {
		d->debited = 0;
		rc = fail(d, JH_D_GATEFAIL, "%s", e.msg);
		goto out;
	}
	d->remaining = jh_ledger_remaining(l);
out:
	/* Closing drops the lock before anything is written to stdout. */
	close(fd);
	free(l);
	return (rc);
}

/* Decides one PreToolUse event. */
static void
decide(struct dec *d, const struct opts *o, json_t *ev, struct gcache *gc)
{
	struct jh_grant *g;
	const char *session, *tool, *cwd, *class, *host, *tuid;
	char root[PATH_MAX + 2], gpath[PATH_MAX * 2], *targets[MAX_TARGETS];
	struct jh_action act;
	struct jh_err e;
	json_t *in, *v, *rewritten = NULL;
	size_t nt = 0, i;
	uint64_t now = jh_now_ms();
	int capidx = -1, r;

	(void)e;

	memset(&act, 0, sizeof(act));
	session = sget(ev, "session_id");
	tool = sget(ev, "tool");
	cwd = sget(ev, "cwd");
	class = sget(ev, "class");
	host = sget(ev, "host");
	tuid = sget(ev, "tool_use_id");
	in = json_object_get(ev, "input");
	/* 1. well-formed */
	if ((v = json_object_get(ev, "malformed")) != NULL) {
		fail(d, JH_D_MALFORMED, "malformed event: %.200s",
		    json_is_string(v) ? json_string_value(v) : "?");
		return;
	}
	if (session == NULL || *session == '\0' || tool == NULL ||
	    cwd == NULL || cwd[0] != '/' || class == NULL || host == NULL ||
	    tuid == NULL || *tuid == '\0' || !json_is_object(in)) {
		fail(d, JH_D_MALFORMED, "malformed event: needs session_id, "
		    "tool, input (an object), an absolute cwd, class, host "
		    "and tool_use_id");
		return;
	}
	if (pinned_root(o, session, cwd, root, sizeof(root), &e) == -1) {
		fail(d, JH_D_GATEFAIL, "%s", e.msg);
		return;
	}
	{
		/* The physical root, so <root>/.claude is found behind links. */
		char phys[PATH_MAX + 1];
		if (jh_path_resolve(phys, sizeof(phys), "/", root, &e) == 0)
			snprintf(root, sizeof(root), "%s", phys);
	}
	/* The grant is found before the root it may name is known. */
	if (o->grantfile != NULL)
		snprintf(gpath, sizeof(gpath), "%s", o->grantfile);
	else {
		uint8_t h[JH_HASH_LEN];
		char hex[2 * JH_HASH_LEN + 1];
		crypto_hash_sha256(h, (const uint8_t *)root, strlen(root));
		jh_hex(hex, h, sizeof(h));
		snprintf(gpath, sizeof(gpath), "%s/grants/%s", o->home, hex);
		if (access(gpath, F_OK) != 0)
			snprintf(gpath, sizeof(gpath), "%s/grant", o->home);
	}
	if (!gc->loaded || strcmp(gc->path, gpath) != 0) {
		if (gc->loaded)
			jh_grant_free(&gc->g);
		snprintf(gc->path, sizeof(gc->path), "%s", gpath);
		gc->rc = jh_grant_load(&gc->g, gpath, &o->trust, &gc->e);
		gc->loaded = 1;
	}
	g = &gc->g;
	if (gc->rc == 0 && g->root != NULL) {
		char phys[PATH_MAX + 1];
		if (jh_path_resolve(phys, sizeof(phys), "/", g->root, &e) == 0)
			snprintf(root, sizeof(root), "%s", phys);
		else
			snprintf(root, sizeof(root), "%s", g->root);
	}
	act.class = class;
	act.tool = tool;
	act.root = root;
	act.url = sget(in, "url");
	/* 2. protected paths and commands, never grantable */
	if ((v = json_object_get(in, "dangerouslyDisableSandbox")) != NULL &&
	    json_is_true(v)) {
		fail(d, JH_D_PROTECTED, "dangerouslyDisableSandbox is never "
		    "granted");
		return;
	}
	if (collect_targets(d, o, root, class, tool, in, cwd, targets,
	    &nt) != 0)
		goto out;
	act.targets = targets;
	act.ntargets = nt;
	if (strcmp(class, "shell") == 0 && sget(in, "command") != NULL) {
		/* Protection comes before any grant (S1b): parse now. */
		struct jh_sh_script sh;
		struct jh_shck sc;
		const char *c = sget(in, "command");
		if (jh_sh_parse(&sh, c, strlen(c), &e) == -1) {
			fail(d, JH_D_UNPROVABLE, "%s", e.msg);
			goto out;
		}
		shck_init(&sc, d, o, root);
		r = jh_shell_protected(&sc, cwd, &sh);
		jh_sh_free(&sh);
		if (r != 0) {
			fail(d, sc.code, "%s", sc.reason);
			goto out;
		}
	}
	if (strcmp(class, "agent") == 0 && (v = json_object_get(in,
	    "isolation")) != NULL && json_is_string(v) &&
	    strcmp(json_string_value(v), "remote") == 0) {
		fail(d, JH_D_NOTGRANTED, "a remote agent runs off this machine, "
		    "ungated and unmetered");
		goto out;
	}
	/* 3-5. a grant, its signature, its issuer */
	if (gc->rc != 0) {
		fail(d, gc->rc, "%s", gc->e.msg);
		goto out;
	}
	d->grant = g->idtext;
	/* 6. not revoked */
	if ((r = jh_grant_revoked(g, o->revdir, &e)) != 0) {
		if (r == 1)
			fail(d, JH_D_REVOKED, "grant %s is revoked", g->idtext);
		else
			fail(d, JH_D_GATEFAIL, "%s", e.msg);
		goto out;
	}
	/* 7. audience, 8. validity */
	if (!jh_audience_ok(g, host)) {
		fail(d, JH_D_AUDIENCE, "the grant's audience does not include "
		    "joulehook:%s", host);
		goto out;
	}
	if (now / 1000 < g->nbf) {
		fail(d, JH_D_NOTYET, "the grant is not valid before %llu",
		    (unsigned long long)g->nbf);
		goto out;
	}
	if (now / 1000 >= g->exp) {
		fail(d, JH_D_EXPIRED, "the grant expired at %llu",
		    (unsigned long long)g->exp);
		goto out;
	}
	/* 9. capability, 10. policies */
	if ((r = write_checks(d, class, targets, nt)) != 0)
		goto out;
	if (strcmp(class, "shell") == 0 && sget(in, "command") != NULL) {
		uint8_t h[JH_HASH_LEN];
		const char *c = sget(in, "command");
		crypto_hash_sha256(h, (const uint8_t *)c, strlen(c));
		memcpy(d->content_id, "sha256:", 7);
		jh_hex(d->content_id + 7, h, sizeof(h));
		act.content_id = d->content_id;
	} else if ((v = json_object_get(ev, "content_id")) != NULL &&
	    json_is_string(v))
		act.content_id = json_string_value(v);
	r = check_input(d, o, g, &act, in, cwd, root, &capidx);
	if (r != 0 && r != JH_D_POLICY_ASK)
		goto out;
	d->cost = cap_cost(g, capidx, class);
	if (capidx >= 0 && d->rule[0] == '\0')
		snprintf(d->rule, sizeof(d->rule), "caps[%d]", capidx);
	/* read and edit targets are hashed only now the path matched */
	if ((strcmp(class, "read") == 0 || strcmp(class, "edit") == 0) &&
	    nt == 1 && jh_file_content_id(d->content_id, targets[0]) == 0)
		d->have_cid = 1;
	if (r == 0) {
		r = apply_rewrites(d, g, &act, in, &rewritten);
		if (r == -1)
			goto out;
		if (r == 1) {
			struct dec d2;
			char rule[32];
			int cap2 = -1;

			char *t2[MAX_TARGETS];
			size_t nt2 = 0, k;
			struct jh_action act2 = act;

			/*
			 * The rewritten input is decided again (S8), its
			 * targets resolved anew: a rewrite may change a path.
			 */
			memset(&d2, 0, sizeof(d2));
			d2.targets = json_array();
			snprintf(rule, sizeof(rule), "%s", d->rule);
			r = collect_targets(&d2, o, root, class, tool, rewritten,
			    cwd, t2, &nt2);
			act2.targets = t2;
			act2.ntargets = nt2;
			if (r == 0)
				r = write_checks(&d2, class, t2, nt2);
			if (r == 0)
				r = check_input(&d2, o, g, &act2, rewritten, cwd,
				    root, &cap2);
			for (k = 0; k < nt2; k++)
				free(t2[k]);
			json_decref(d2.targets);
			if (r != 0) {
				fail(d, d2.code == JH_D_POLICY_ASK ?
				    JH_D_POLICY_DENY : d2.code,
				    "the rewritten input is not granted: %s",
				    d2.reason);
				json_decref(rewritten);
				goto out;
			}
			d->updated = rewritten;
			d->code = JH_D_POLICY_REWRITE;
			d->verdict = "rewrite";
			snprintf(d->reason, sizeof(d->reason), "rewritten by "
			    "%s", rule);
		}
	}
	if (d->verdict == NULL) {
		d->verdict = "allow";
		snprintf(d->reason, sizeof(d->reason), "granted by %s",
		    d->rule);
	}
	/* 11. budget -> debit (allow, rewrite) or hold (ask) */
	if (budget(d, o, g, tuid, now) == 0)
		d->outcome = jh_is_outcome(g, class, d->updated ? d->updated : in);
out:
	for (i = 0; i < nt; i++)
		free(targets[i]);
}

static void
emit(const struct opts *o, json_t *ev, struct dec *d, int *denied)
{
	static const char *const keep[] = { "session_id", "tool", "input",
	    "cwd", "host", "event", "class", "tool_use_id", "agent_id",
	    NULL };
	json_t *out = json_object(), *v;
	char *txt;
	size_t i;

	(void)o;
	json_object_set_new(out, "kind", json_string("decision/1"));
	for (i = 0; keep[i] != NULL; i++)
		if ((v = json_object_get(ev, keep[i])) != NULL)
			json_object_set(out, keep[i], v);
	if (json_object_get(out, "session_id") == NULL ||
	    !json_is_string(json_object_get(out, "session_id")))
		json_object_set_new(out, "session_id", json_string(""));
	if (d->have_cid || d->content_id[0] != '\0')
		json_object_set_new(out, "content_id",
		    json_string(d->content_id));
	else if ((v = json_object_get(ev, "content_id")) != NULL &&
	    json_is_string(v))
		json_object_set(out, "content_id", v);
	else
		json_object_set_new(out, "content_id", json_null());
	json_object_set_new(out, "verdict", json_string(d->verdict));
	json_object_set_new(out, "code", json_string(codes[d->code]));
	json_object_set_new(out, "reason", json_string(d->reason));
	json_object_set_new(out, "grant", d->grant ? json_string(d->grant) :
	    json_null());
	json_object_set_new(out, "cost_uj", json_integer((json_int_t)d->cost));
	json_object_set_new(out, "debited_uj",
	    json_integer((json_int_t)d->debited));
	json_object_set_new(out, "provenance", json_string("Estimator"));
	if (d->have_remaining)
		json_object_set_new(out, "remaining_uj",
		    json_integer((json_int_t)d->remaining));
	json_object_set_new(out, "rule", d->rule[0] ? json_string(d->rule) :
	    json_null());
	json_object_set(out, "target", json_array_size(d->targets) ?
	    d->targets : json_null());
	json_object_set(out, "updated_input", d->updated ? d->updated :
	    json_null());
	if (d->outcome && strcmp(d->verdict, "deny") != 0)
		json_object_set_new(out, "outcome", json_integer(1));
	txt = json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (txt == NULL)
		errx(2, "out of memory");
	puts(txt);
	free(txt);
	json_decref(out);
	if (strcmp(d->verdict, "deny") == 0)
		*denied = 1;
}

static void
run_line(struct opts *o, const char *line, size_t len, struct gcache *gc,
    int *denied)
{
	struct jh_err e;
	struct dec d;
	json_t *ev, *evn;
	const char *en;

	memset(&d, 0, sizeof(d));
	d.targets = json_array();
	if ((ev = jh_json_parse(line, len, &e)) == NULL ||
	    !json_is_object(ev)) {
		fail(&d, JH_D_MALFORMED, "malformed event: %s", ev ? "not an "
		    "object" : e.msg);
		json_decref(ev);
		ev = json_object();
		emit(o, ev, &d, denied);
		goto out;
	}
	evn = json_object_get(ev, "event");
	en = json_is_string(evn) ? json_string_value(evn) : NULL;
	if (en != NULL && strcmp(en, "PreToolUse") != 0 &&
	    json_object_get(ev, "malformed") == NULL) {
		/* Other events pass through untouched, never debited. */
		fwrite(line, 1, len, stdout);
		putchar('\n');
		goto out;
	}
	decide(&d, o, ev, gc);
	emit(o, ev, &d, denied);
out:
	json_decref(ev);
	json_decref(d.targets);
	json_decref(d.updated);
}

struct lines {
	struct opts *o;
	struct gcache *gc;
	int *denied;
};

/* One input line; a line that cannot be read is a malformed event. */
static int
one_line(void *arg, const char *line, size_t len, const char *why)
{
	struct lines *lc = arg;

	if (line == NULL) {
		struct dec d;
		json_t *ev = json_object();
		memset(&d, 0, sizeof(d));
		d.targets = json_array();
		fail(&d, JH_D_MALFORMED, "malformed event: %s", why);
		emit(lc->o, ev, &d, lc->denied);
		json_decref(ev);
		json_decref(d.targets);
		return (0);
	}
	run_line(lc->o, line, len, lc->gc, lc->denied);
	return (0);
}

static int
init_ledger(struct opts *o)
{
	struct jh_grant g;
	struct jh_err e;
	int r, existed;

	if (o->grantfile == NULL)
		errx(2, "-I needs -g grant");
	if ((r = jh_grant_load(&g, o->grantfile, &o->trust, &e)) != 0)
		errx(1, "%s", e.msg);
	if (jh_ledger_init(o->ledgerdir, g.id, g.budget, &existed, &e) == -1)
		errx(2, "%s", e.msg);
	fprintf(stderr, "%s: ledger for grant %s %s\n", PROG, g.idtext,
	    existed ? "exists (left as it is)" : "created");
	jh_grant_free(&g);
	return (0);
}

static int
add_protect(struct opts *o, const char *path)
{
	char r[PATH_MAX + 1];
	struct jh_err e;

	if (o->nprotect >= MAX_PROTECT)
		return (-1);	/* the caller refuses; built-ins come first */
	if (jh_path_resolve(r, sizeof(r), "/", path, &e) == -1)
		return (-1);
	if ((o->protect[o->nprotect] = strdup(r)) == NULL)
		return (-1);
	o->nprotect++;
	return (0);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct jh_err e;
	struct gcache *gc;
	struct lines lc;
	const char *home;
	char exe[PATH_MAX], buf[PATH_MAX];
	size_t i;
	ssize_t n;
	int ch, x, denied = 0, bad = 0;
	char *end;

	memset(&o, 0, sizeof(o));
	o.wait_ms = 2000;
	if ((gc = calloc(1, sizeof(*gc))) == NULL)
		err(2, NULL);
	jh_keyset_init(&o.trust);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "eg:hIL:P:R:S:t:w:")) != -1) {
		switch (ch) {
		case 'e':
			o.exit_deny = 1;
			break;
		case 'g':
			o.grantfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'I':
			o.init = 1;
			break;
		case 'L':
			o.ledgerdir = optarg;
			break;
		case 'P':
			/* Room is always left for the built-in protections. */
			if (optarg[0] != '/' || o.nprotect >= MAX_PROTECT - 16)
				errx(2, "-P %s: must be absolute, at most 32",
				    optarg);
			if (add_protect(&o, optarg) == -1)
				errx(2, "-P %s: cannot resolve", optarg);
			break;
		case 'R':
			o.revdir = optarg;
			break;
		case 'S':
			o.statedir = optarg;
			break;
		case 't':
			o.trustfile = optarg;
			break;
		case 'w':
			if (jh_parse_ms(&o.wait_ms, optarg) == -1)
				usage(stderr, 2);
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if ((o.home = jh_home(o.homebuf, sizeof(o.homebuf))) == NULL)
		errx(2, "no JH_HOME and no HOME");
	if (o.statedir == NULL &&
	    (o.statedir = jh_state(o.statebuf, sizeof(o.statebuf))) == NULL)
		errx(2, "no JH_STATE and no HOME");
	if (o.ledgerdir == NULL) {
		snprintf(o.ledgerbuf, sizeof(o.ledgerbuf), "%s/ledger",
		    o.statedir);
		o.ledgerdir = o.ledgerbuf;
	}
	if (o.trustfile == NULL) {
		snprintf(o.trustbuf, sizeof(o.trustbuf), "%s/trust", o.home);
		o.trustfile = o.trustbuf;
	}
	if (o.revdir == NULL) {
		snprintf(o.revbuf, sizeof(o.revbuf), "%s/revoked", o.home);
		o.revdir = o.revbuf;
	}
	/* A missing trust file trusts nobody: every grant is refused. */
	if (access(o.trustfile, F_OK) == 0 &&
	    jh_keyset_load(&o.trust, o.trustfile, JH_ROLE_ISSUER, &e) == -1)
		errx(2, "%s", e.msg);
	if (o.init) {
		x = init_ledger(&o);
		free(gc);
		for (i = 0; i < o.nprotect; i++)
			free(o.protect[i]);
		jh_keyset_free(&o.trust);
		return (x);
	}

	/* Never grantable: our own files, the install, the host's config. */
	add_protect(&o, o.home);
	add_protect(&o, o.statedir);
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((end = strrchr(exe, '/')) != NULL && end != exe) {
			*end = '\0';
			add_protect(&o, exe);
		}
	}
	if ((home = getenv("HOME")) != NULL && home[0] == '/') {
		snprintf(buf, sizeof(buf), "%s/.claude", home);
		add_protect(&o, buf);
		snprintf(buf, sizeof(buf), "%s/.claude.json", home);
		add_protect(&o, buf);
	}

	lc.o = &o;
	lc.gc = gc;
	lc.denied = &denied;
	if (jh_each_line(argc, argv, one_line, &lc) == -1)
		bad = 1;
	if (gc->loaded)
		jh_grant_free(&gc->g);
	free(gc);
	for (i = 0; i < o.nprotect; i++)
		free(o.protect[i]);
	jh_keyset_free(&o.trust);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (2);
	}
	if (bad)
		return (2);
	return (o.exit_deny && denied ? 1 : 0);
}
