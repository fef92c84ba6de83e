/*
 * joulehook: the gate's decision, the whole ordered check of one
 * ActionEvent (jh-decide(1), The ordered check).
 *
 * The order, the first failure naming the stable code: well-formed,
 * protected paths and commands, a grant, its signature, its issuer, not
 * revoked, audience, nbf/exp, capability, policies (deny > ask >
 * rewrite; a rewritten input is decided again), budget -> debit.  This
 * file orders the checks, pins a session's root and owns the ledger
 * transaction; decide.c loads grants and matches capabilities and
 * policies, shellcheck.c checks a shell line, paths.c resolves paths,
 * protect.c keeps the paths no grant can reach, ledger.c keeps the
 * ledger.  bin/jh-decide.c reads the events and
 * prints the Decisions; jh-proxy makes the grant's validity check alone
 * (jh_grant_valid).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "decide.h"
#include "effects.h"
#include "effgrant.h"
#include "gate.h"
#include "hosts.h"
#include "json.h"
#include "keys.h"
#include "ledger.h"
#include "paths.h"
#include "shellcheck.h"
#include "shellparse.h"
#include "statefs.h"
#include "util.h"

#define DEFAULT_COST	100000		/* 0.1 J: a nominal surcharge */
#define MAX_TARGETS	256

/* The Decision's code, by JH_D_* (joulehook-formats(5)). */
static const char *const codes[] = {
	"ok", "malformed-event", "protected-path", "no-grant",
	"bad-signature", "untrusted-issuer", "revoked", "wrong-audience",
	"not-yet-valid", "expired", "not-granted", "unprovable-command",
	"unsafe-target", "policy-deny", "policy-ask", "policy-rewrite",
	"budget-exceeded", "gate-failure"
};

/* The fields of a well-formed event, which every later step reads. */
struct event {
	json_t *ev;
	const char *session;
	const char *tool;
	const char *cwd;
	const char *wd;		/* where a command runs: cwd, or workdir */
	const char *class;
	const char *host;
	const char *tuid;
	const json_t *in;
	char wdbuf[PATH_MAX + 1];
};

/* The targets of an action, resolved; freed by strs_free(). */
struct targets {
	char *p[MAX_TARGETS];
	int lexexec[MAX_TARGETS];	/* as written, a file a program
					   executes that leads elsewhere */
	size_t n;
	struct jh_sh_script sh;	/* a shell input's line, as step 2 parsed */
	int have_sh;		/* it and checked it for protected paths */
};

/* What one input does: its parsed shell line, and its effects. */
struct line {
	struct jh_sh_script sh;
	int have_sh;
	int borrowed;	/* sh is step 2's, freed with its targets */
	struct jh_effects ef;
};

const char *
jh_dcode_name(int code)
{
	if (code < 0 || (size_t)code >= sizeof(codes) / sizeof(codes[0]))
		return (NULL);
	return (codes[code]);
}

void
jh_decision_init(struct jh_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->targets = json_array();
}

void
jh_decision_free(struct jh_decision *d)
{
	json_decref(d->targets);
	json_decref(d->updated);
	json_decref(d->effects);
	d->targets = NULL;
	d->updated = NULL;
	d->effects = NULL;
}

/*
 * A deny, with why.  A rewrite made before (the budget comes after it)
 * is dropped: a decision/1 carries updated_input only for a rewrite, so
 * a deny with one would not seal, and the deny would go unrecorded.
 */
int
jh_decision_fail(struct jh_decision *d, int code, const char *fmt, ...)
{
	va_list ap;

	d->code = code;
	d->verdict = "deny";
	d->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	json_decref(d->updated);
	d->updated = NULL;
	return (code);
}

/* Frees n strings and empties the list. */
static void
strs_free(char **v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free(v[i]);
	*n = 0;
}

/* --- the grant -------------------------------------------------------- */

void
jh_gcache_free(struct jh_gcache *gc)
{
	if (gc->loaded)
		jh_grant_free(&gc->g);
	gc->loaded = 0;
}

/*
 * A loaded grant's standing (jh-decide(1), The ordered check): not
 * revoked, its audience names joulehook:<host>, and now_ms lies in
 * [nbf, exp).  Returns 0, or the JH_D_* code with the reason in e.
 */
int
jh_grant_valid(const struct jh_grant *g, const char *revdir,
    const char *host, uint64_t now_ms, struct jh_err *e)
{
	int r;

	if ((r = jh_grant_revoked(g, revdir, e)) != 0) {
		if (r != 1)
			return (JH_D_GATEFAIL);
		jh_errf(e, "grant %s is revoked", g->idtext);
		return (JH_D_REVOKED);
	}
	if (!jh_audience_ok(g, host)) {
		jh_errf(e, "the grant's audience does not include "
		    "joulehook:%s", host);
		return (JH_D_AUDIENCE);
	}
	if (now_ms / 1000 < g->nbf) {
		jh_errf(e, "the grant is not valid before %llu",
		    (unsigned long long)g->nbf);
		return (JH_D_NOTYET);
	}
	if (now_ms / 1000 >= g->exp) {
		jh_errf(e, "the grant expired at %llu",
		    (unsigned long long)g->exp);
		return (JH_D_EXPIRED);
	}
	return (0);
}

/* --- the decision ----------------------------------------------------- */

static const char *
sget(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return (json_is_string(v) ? json_string_value(v) : NULL);
}

/*
 * Whether a string value anywhere in v, at any depth, holds U+0000;
 * *where is then the innermost key it is under.  The gate reads strings as C strings, so
 * what followed a NUL would never be decided on.
 */
static int
has_nul(const json_t *v, const char **where)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v))
		return (strlen(json_string_value(v)) != json_string_length(v));
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (has_nul(x, where))
				return (1);
		return (0);
	}
	if (!json_is_object(v))
		return (0);
	json_object_foreach((json_t *)v, k, x) {
		if (has_nul(x, where)) {
			if (*where == NULL)
				*where = k;
			return (1);
		}
	}
	return (0);
}

/*
 * The session's pin file, opened and locked: the file that is at name
 * when the lock is held (one that a pin put in place meanwhile is opened
 * again), created empty when there is none.
 */
static int
pin_locked(int dfd, const char *name, struct jh_err *e)
{
	struct stat a, b;
	int fd, tries;

	for (tries = 0; tries < 16; tries++) {
		if ((fd = jh_open_state(dfd, name, 1, NULL, e)) == -1)
			return (-1);
		if (flock(fd, LOCK_EX) == -1) {
			close(fd);
			return (jh_errf(e, "roots: %s", strerror(errno)));
		}
		if (fstat(fd, &a) == 0 && fstatat(dfd, name, &b,
		    AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return (fd);
		close(fd);
	}
	return (jh_errf(e, "roots: the pin of %s keeps moving", name));
}

/*
 * Pins root as the session's: written whole and synced under another
 * name, then renamed over the empty file (the caller holds its lock), so
 * that a pin is either all of the root or none of it; a write that fails
 * leaves nothing behind.
 */
static int
pin_write(int dfd, const char *name, const char *root, struct jh_err *e)
{
	char tmp[2 * JH_HASH_LEN + 8];
	size_t l = strlen(root);
	int fd, ok, saved;

	snprintf(tmp, sizeof(tmp), "%s.new", name);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1)
		return (jh_errf(e, "roots: cannot pin the root: %s",
		    strerror(errno)));
	errno = 0;
	ok = pwrite(fd, root, l, 0) == (ssize_t)l && fsync(fd) == 0;
	saved = errno;
	if (close(fd) == -1 && ok) {
		ok = 0;
		saved = errno;
	}
	if (ok && (renameat(dfd, tmp, dfd, name) == -1 || fsync(dfd) == -1)) {
		ok = 0;
		saved = errno;
	}
	if (ok)
		return (0);
	unlinkat(dfd, tmp, 0);
	return (jh_errf(e, "roots: cannot pin the root: %s", saved != 0 ?
	    strerror(saved) : "a short write"));
}

/*
 * The project root: pinned once per session at its first event, in
 * JH_STATE/roots/<digest of the session id>; never the per-event cwd
 * (joulehook-formats(5), Pinned roots).
 */
/*
 * The project a directory belongs to: the nearest directory at or above
 * it that holds .git (a repository's top level, a worktree's or a
 * submodule's), else the directory itself.
 */
static int
work_tree_top(char *out, size_t sz, const char *dir)
{
	char p[PATH_MAX + 8];
	size_t n;

	snprintf(out, sz, "%s", dir);
	for (n = strlen(out); n > 0; ) {
		snprintf(p, sizeof(p), "%.*s/.git", (int)n, out);
		if (access(p, F_OK) == 0) {
			out[n == 0 ? 1 : n] = '\0';
			return (1);
		}
		while (n > 0 && out[n - 1] != '/')
			n--;
		if (n > 0)
			n--;		/* the parent, without its slash */
	}
	snprintf(out, sz, "%s", dir);
	return (0);
}

void
jh_project_top(char *out, size_t sz, const char *dir)
{
	(void)work_tree_top(out, sz, dir);
}

/*
 * Whether a working directory the model chose (cwd_chosen: the host
 * names no workspace) may pin a session's project: only inside a work
 * tree whose top is neither / nor at or above the user's home.
 */
static int
chosen_ok(const struct jh_gate *g, const char *cwd)
{
	char top[PATH_MAX + 1];

	return (work_tree_top(top, sizeof(top), cwd) && strcmp(top, "/") !=
	    0 && (g->user_home == NULL || !jh_path_under(g->user_home, top)));
}

/*
 * A session stopped after a tool ran that was not what was decided, on
 * a host that cannot end a run then (jh_host can_stop): the gate denies
 * the session's every later call.  The mark is <statedir>/stopped/<hex
 * of the session's SHA-256>.
 */
static void
stop_name(char *name, const char *session)
{
	uint8_t h[JH_HASH_LEN];

	crypto_hash_sha256(h, (const uint8_t *)session, strlen(session));
	jh_hex(name, h, sizeof(h));
}

int
jh_session_stop(const char *statedir, const char *session, struct jh_err *e)
{
	char name[2 * JH_HASH_LEN + 1];
	int sfd, dfd, fd;

	stop_name(name, session);
	if ((sfd = jh_open_dir(AT_FDCWD, statedir, 1, e)) == -1)
		return (-1);
	dfd = jh_open_dir(sfd, "stopped", 1, e);
	close(sfd);
	if (dfd == -1)
		return (-1);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	close(dfd);
	if (fd == -1)
		return (jh_errf(e, "stopped/%s: %s", name, strerror(errno)));
	close(fd);
	return (0);
}

static int
session_stopped(const struct jh_gate *g, const char *session)
{
	char p[PATH_MAX * 2], name[2 * JH_HASH_LEN + 1];
	struct stat st;

	stop_name(name, session);
	snprintf(p, sizeof(p), "%s/stopped/%s", g->statedir, name);
	return (lstat(p, &st) == 0);
}

static int
pinned_root(const struct jh_gate *g, const char *session, const char *cwd,
    int pin, char *out, size_t sz, struct jh_err *e)
{
	char name[2 * JH_HASH_LEN + 1], top[PATH_MAX + 1];
	uint8_t h[JH_HASH_LEN];
	int sfd, dfd, fd;
	ssize_t n;

	jh_project_top(top, sizeof(top), cwd);
	crypto_hash_sha256(h, (const uint8_t *)session, strlen(session));
	jh_hex(name, h, sizeof(h));
	if (g->dryrun || !pin) {
		/* explain pins nothing: the session's root, or the one it
		 * would get */
		char p[PATH_MAX * 2];
		snprintf(p, sizeof(p), "%s/roots/%s", g->statedir, name);
		snprintf(out, sz, "%s", top);
		if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
			if ((n = pread(fd, out, sz - 1, 0)) > 0 &&
			    out[0] == '/')
				out[n] = '\0';
			else
				snprintf(out, sz, "%s", top);
			close(fd);
		}
		return (0);
	}
	if ((sfd = jh_open_dir(AT_FDCWD, g->statedir, 1, e)) == -1)
		return (-1);
	dfd = jh_open_dir(sfd, "roots", 1, e);
	close(sfd);
	if (dfd == -1)
		return (-1);
	fd = pin_locked(dfd, name, e);
	if (fd == -1) {
		close(dfd);
		return (-1);
	}
	n = pread(fd, out, sz - 1, 0);
	if (n > 0)
		out[n] = '\0';
	else if (pin_write(dfd, name, top, e) == -1) {
		close(fd);
		close(dfd);
		return (-1);
	} else
		snprintf(out, sz, "%s", top);
	close(fd);
	close(dfd);
	if (out[0] != '/')
		return (jh_errf(e, "roots: the pinned root is not absolute"));
	return (0);
}

/* The shell checks' context: this event's protection and targets. */
static void
shck_init(struct jh_shck *sc, struct jh_decision *d, const struct jh_gate *g,
    const char *root)
{
	memset(sc, 0, sizeof(*sc));
	sc->protect = g->protect->path;
	sc->nprotect = g->protect->n;
	sc->root = root;
	sc->targets = d->targets;
}

/* One form of a target: resolved, checked against protection. */
static int
add_form(struct jh_decision *d, const struct jh_gate *g, const char *root,
    const char *base, const char *path, int lexical, struct targets *t)
{
	char r[PATH_MAX + 1], h[PATH_MAX + 1], l[PATH_MAX + 1];
	struct jh_err e;

	/* ~ and ~/x are the user's home, as the host reads them */
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		if (g->user_home == NULL || g->user_home[0] != '/')
			return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s names "
			    "the home, which is not known", path));
		if ((size_t)snprintf(h, sizeof(h), "%s%s", g->user_home,
		    path + 1) >= sizeof(h))
			return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s is "
			    "too long", path));
		path = h;
	}
	if (lexical) {
		if (jh_path_lexical(l, sizeof(l), base, path) == -1)
			return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s is "
			    "too long", path));
		path = l;
	}
	if (jh_path_resolve(r, sizeof(r), base, path, &e) == -1)
		return (jh_decision_fail(d, JH_D_UNSAFE, "cannot resolve "
		    "%.200s: %s", path, e.msg));
	if (jh_path_protected(g->protect->path, g->protect->n, root, r))
		return (jh_decision_fail(d, JH_D_PROTECTED, "%.200s is "
		    "protected: joulehook's own files and the host's "
		    "configuration are never granted", r));
	if (t->n >= MAX_TARGETS)
		return (jh_decision_fail(d, JH_D_UNPROVABLE,
		    "too many targets"));
	if ((t->p[t->n] = strdup(r)) == NULL)
		return (jh_decision_fail(d, JH_D_GATEFAIL, "out of memory"));
	/* .vscode -> evil: the editor reads .vscode/tasks.json */
	t->lexexec[t->n] = jh_path_lexical(l, sizeof(l), base, path) == 0 &&
	    strcmp(l, r) != 0 && jh_path_executed(l);
	json_array_append_new(d->targets, json_string(r));
	t->n++;
	return (0);
}

/*
 * A target of the action, in every form a host may read it as: as
 * written, its ".." parts taken as text (Node's path.resolve, which the
 * hosts' file tools use: "link/../x" is the x beside link, not the one
 * beside link's target), and without the white space at its ends
 * (Claude Code trims a search's path).  Each form must pass.
 */
static int
add_target(struct jh_decision *d, const struct jh_gate *g, const char *root,
    const char *base, const char *path, struct targets *t)
{
	char trimmed[PATH_MAX + 1];
	const char *form[2];
	int i, n = 1, rc, k;

	form[0] = path;
	if ((k = jh_path_trim(trimmed, sizeof(trimmed), path)) == -1)
		return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s is too long",
		    path));
	if (k == 1 && trimmed[0] != '\0')
		form[n++] = trimmed;
	for (i = 0; i < n; i++)
		if ((rc = add_form(d, g, root, base, form[i], 0, t)) != 0 ||
		    (jh_path_dotdot(form[i]) && (rc = add_form(d, g, root,
		    base, form[i], 1, t)) != 0))
			return (rc);
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

/* Everything an action targets, by class (jh-decide(1), Paths). */
static int
collect_targets(struct jh_decision *d, const struct jh_gate *g,
    const char *root, const struct event *x, const json_t *in,
    struct targets *t)
{
	const char *p, *class = x->class, *tool = x->tool, *cwd = x->cwd;
	char pre[PATH_MAX];
	int rc;

	if (strcmp(class, "read") == 0 || strcmp(class, "write") == 0 ||
	    strcmp(class, "edit") == 0) {
		/*
		 * Every path field given is a target: a tool that reads one
		 * of them (NotebookEdit writes notebook_path, whatever
		 * file_path says) acts on what it names.
		 */
		static const char *const keys[] = { "file_path",
		    "notebook_path", "path", NULL };
		const json_t *a = json_object_get(in, "paths"), *v;
		size_t k, n = 0;

		for (k = 0; keys[k] != NULL; k++) {
			if ((p = sget(in, keys[k])) == NULL)
				continue;
			n++;
			if ((rc = add_target(d, g, root, cwd, p, t)) != 0)
				return (rc);
		}
		/* a tool of several files (a patch, a read of many) */
		if (a != NULL && !json_is_array(a))
			return (jh_decision_fail(d, JH_D_MALFORMED,
			    "%s: paths is not an array", tool));
		json_array_foreach(a, k, v) {
			if (!json_is_string(v) || json_string_length(v) == 0 ||
			    strlen(json_string_value(v)) !=
			    json_string_length(v))
				return (jh_decision_fail(d, JH_D_MALFORMED,
				    "%s names a path that is not a string",
				    tool));
			n++;
			if ((rc = add_target(d, g, root, cwd,
			    json_string_value(v), t)) != 0)
				return (rc);
		}
		if (n == 0)
			return (jh_decision_fail(d, JH_D_MALFORMED,
			    "%s has no file path", tool));
		return (0);
	}
	if (strcmp(class, "search") == 0) {
		const char *base = sget(in, "path");
		char bres[PATH_MAX + 1];
		struct jh_err e;

		if (base == NULL || *base == '\0')
			base = cwd;
		if ((rc = add_target(d, g, root, cwd, base, t)) != 0)
			return (rc);
		if ((p = sget(in, "pattern")) != NULL && (strcmp(tool,
		    "Glob") == 0 || strcmp(tool, "glob") == 0)) {
			if (jh_glob_climbs(p))
				return (jh_decision_fail(d, JH_D_UNSAFE,
				    "%s's pattern %.200s may climb out of its "
				    "directory (a '..', a bracket or a brace "
				    "with a '.' after a wildcard): name the "
				    "directory plainly", tool, p));
			jh_glob_prefix(pre, sizeof(pre), p);
			if (jh_path_resolve(bres, sizeof(bres), cwd, base,
			    &e) == -1)
				return (jh_decision_fail(d, JH_D_UNSAFE, "%s",
				    e.msg));
			return (add_target(d, g, root, bres, pre, t));
		}
	}
	return (0);
}

static int
write_checks(struct jh_decision *d, const char *class,
    const struct targets *t)
{
	struct stat st;
	size_t i;

	if (strcmp(class, "write") != 0 && strcmp(class, "edit") != 0)
		return (0);
	for (i = 0; i < t->n; i++) {
		if (stat(t->p[i], &st) == -1)
			continue;	/* a new file */
		if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
			return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s is "
			    "not a regular file with one link", t->p[i]));
	}
	return (0);
}

/*
 * Whether a policy's when holds: one of effect keys over the effects,
 * else as the keys of a capability over the action, or a file class
 * and path over a shell line's reads and writes.
 */
static int
when_holds(const struct jh_cbor *when, const struct jh_action *act,
    const json_t *in, const struct line *ln, const struct jh_effect **hit)
{
	if (jh_when_effect_keys(when))
		return (jh_when_effects(when, act, &ln->ef, hit));
	return (jh_when_match(when, act, in, ln->have_sh ? &ln->sh : NULL) ||
	    (ln->have_sh && jh_when_effects(when, act, &ln->ef, hit)));
}

/*
 * A policy's words: which policy decided (its id, else its place), its
 * reason or one for its verdict, and what it met: "blocked by policy
 * no-force-push: a force push rewrites what others share
 * (vcs-remote-force (git))".  A safety stop is worded as one, never as
 * an omission of the grant.
 */
static void
policy_reason(struct jh_decision *d, const struct jh_cbor *p, size_t i,
    int deny, const struct jh_effect *hit)
{
	const struct jh_cbor *why = jh_cbor_get(p, "reason");
	const struct jh_cbor *id = jh_cbor_get(p, "id");
	char name[80], met[320];

	if (id != NULL && id->type == JH_CBOR_TEXT)
		snprintf(name, sizeof(name), "%.*s", (int)id->len,
		    (const char *)id->p);
	else
		snprintf(name, sizeof(name), "policies[%zu]", i);
	met[0] = '\0';
	if (hit != NULL) {
		char t[300];
		jh_effect_text(t, sizeof(t), hit);
		snprintf(met, sizeof(met), " (%s)", t);
	}
	if (why != NULL && why->type == JH_CBOR_TEXT && why->len > 0)
		snprintf(d->reason, sizeof(d->reason), "%s by policy %s: "
		    "%.*s%s", deny ? "blocked" : "asked", name,
		    (int)(why->len < 300 ? why->len : 300),
		    (const char *)why->p, met);
	else
		snprintf(d->reason, sizeof(d->reason), "%s by policy %s%s: "
		    "the grant %s", deny ? "blocked" : "asked", name, met,
		    deny ? "forbids this action" : "has a person confirm "
		    "this action");
	snprintf(d->rule, sizeof(d->rule), "policies[%zu]", i);
	d->hint[0] = '\0';
}

/* The deny and ask policies matching one input; only_deny: no asks. */
static int
check_policies(struct jh_decision *d, const struct jh_grant *gr,
    const struct jh_action *act, const json_t *in, const struct line *ln,
    int only_deny)
{
	const struct jh_effect *hit, *askhit = NULL;
	size_t i;
	int ask = -1;

	for (i = 0; gr->policies != NULL && i < gr->policies->len; i++) {
		const struct jh_cbor *p = &gr->policies->v[i];
		const struct jh_cbor *v = jh_cbor_get(p, "verdict");

		hit = NULL;
		if (v == NULL || !when_holds(jh_cbor_get(p, "when"), act, in,
		    ln, &hit))
			continue;
		if (jh_cbor_text_is(v, "deny")) {
			d->code = JH_D_POLICY_DENY;
			d->verdict = "deny";
			policy_reason(d, p, i, 1, hit);
			return (JH_D_POLICY_DENY);
		}
		if (jh_cbor_text_is(v, "ask") && ask == -1) {
			ask = (int)i;
			askhit = hit;
		}
	}
	if (ask != -1 && !only_deny) {
		d->code = JH_D_POLICY_ASK;
		d->verdict = "ask";
		policy_reason(d, &gr->policies->v[ask], (size_t)ask, 0,
		    askhit);
		return (JH_D_POLICY_ASK);
	}
	return (0);
}

static void
line_free(struct line *ln)
{
	if (ln->have_sh && !ln->borrowed)
		jh_sh_free(&ln->sh);
	jh_effects_free(&ln->ef);
	memset(ln, 0, sizeof(*ln));
}

/* Parses a shell line as the gate reads it: ~ and $HOME the user's. */
static int
parse_line(struct jh_sh_script *sh, const struct jh_gate *g, const char *cmd,
    struct jh_err *e)
{
	struct jh_sh_opts so;

	memset(&so, 0, sizeof(so));
	so.home = g->user_home;
	return (jh_sh_parse_with(sh, cmd, strlen(cmd), &so, e));
}

/*
 * Parses a shell input and finds its effects, or a file action's: 0, or
 * the JH_D_* code with the reason in d.  pre, when not NULL, is the
 * input's line as step 2 parsed it, used rather than parsed again.
 */
static int
line_effects(struct line *ln, struct jh_decision *d, const struct jh_gate *g,
    const struct jh_action *act, const json_t *in, const char *cwd,
    const struct jh_sh_script *pre)
{
	struct jh_effctx cx;
	struct jh_err e;
	const char *cmd;

	memset(ln, 0, sizeof(*ln));
	jh_effects_init(&ln->ef);
	if (strcmp(act->class, "shell") != 0) {
		if (jh_action_effects(&ln->ef, act, &e) == -1)
			return (jh_decision_fail(d, JH_D_GATEFAIL, "%s",
			    e.msg));
		return (0);
	}
	if ((cmd = sget(in, "command")) == NULL)
		return (jh_decision_fail(d, JH_D_MALFORMED, "no command"));
	if (pre != NULL) {
		ln->sh = *pre;
		ln->borrowed = 1;
	} else if (parse_line(&ln->sh, g, cmd, &e) == -1)
		return (jh_decision_fail(d, JH_D_UNPROVABLE, "%s", e.msg));
	ln->have_sh = 1;
	memset(&cx, 0, sizeof(cx));
	cx.cwd = cwd;
	cx.root = act->root;
	cx.home = g->user_home;
	if (jh_shell_effects(&ln->ef, &cx, &ln->sh, &e) == -1)
		return (jh_decision_fail(d, JH_D_UNSAFE, "%s", e.msg));
	return (0);
}

/*
 * A write of an existing path needs a regular file with one link, or a
 * directory (cp and mv into it): a hard link could make a path under
 * the project name a file outside it.
 */
static int
effect_writes_ok(struct jh_decision *d, const struct jh_effects *ef)
{
	struct stat st;
	size_t i;

	for (i = 0; i < ef->n; i++) {
		const struct jh_effect *e = &ef->v[i];
		if (e->kind != JH_E_WRITE || e->path == NULL ||
		    (e->flags & JH_EF_TREE) || stat(e->path, &st) == -1 ||
		    S_ISDIR(st.st_mode))
			continue;
		if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
			return (jh_decision_fail(d, JH_D_UNSAFE, "%.200s is "
			    "not a regular file with one link", e->path));
	}
	return (0);
}

/*
 * What the grant does for an action no capability grants: with
 * otherwise "ask" a human decides (unless a deny policy matches), else
 * the deny stands.
 */
static int
otherwise(struct jh_decision *d, const struct jh_grant *gr,
    const struct jh_action *act, const json_t *in, const struct line *ln,
    int rc)
{
	char why[sizeof(d->reason)];

	if (rc != JH_D_NOTGRANTED && rc != JH_D_UNPROVABLE)
		return (rc);
	/* a safety stop is named as one, whatever the grant omits */
	memcpy(why, d->reason, sizeof(why));
	if (check_policies(d, gr, act, in, ln, 1) != 0)
		return (d->code);
	/* an omission says so, and what would grant it */
	if (rc == JH_D_NOTGRANTED)
		snprintf(d->reason, sizeof(d->reason), "not in your grant: "
		    "%.400s", why);
	else
		snprintf(d->reason, sizeof(d->reason), "cannot "
		    "tell what this command does: %.400s", why);
	if (!gr->otherwise_ask)
		return (rc);
	d->code = rc;
	d->verdict = "ask";
	snprintf(d->rule, sizeof(d->rule), "otherwise");
	return (JH_D_POLICY_ASK);
}

/*
 * Capability, then the deny and ask policies, for one input; rewrite
 * policies are the caller's.  Fills the rule and the first cap; with
 * record, the Decision's effects.  pre: as line_effects takes it, a line
 * step 2 has checked for protected paths already.
 */
static int
check_input(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, struct jh_action *act, const json_t *in,
    const char *cwd, const char *root, int *capidx, int record,
    const struct jh_sh_script *pre)
{
	struct jh_effck ck;
	struct jh_shck sc;
	struct line ln;
	int rc;

	if ((rc = line_effects(&ln, d, g, act, in, cwd, pre)) != 0) {
		if (!ln.have_sh)
			rc = otherwise(d, gr, act, in, &ln, rc);
		goto out;
	}

	if (ln.have_sh) {
		shck_init(&sc, d, g, root);
		if (!ln.borrowed && jh_shell_protected(&sc, cwd, &ln.sh) != 0) {
			rc = jh_decision_fail(d, sc.code, "%s", sc.reason);
			goto out;
		}
		if (jh_effects_protected(d->reason, sizeof(d->reason),
		    g->protect->path, g->protect->n, root, &ln.ef)) {
			rc = d->code = JH_D_PROTECTED;
			d->verdict = "deny";
			goto out;
		}
		if ((rc = effect_writes_ok(d, &ln.ef)) != 0)
			goto out;
		jh_effects_caps(&ck, gr, act, &ln.sh, &ln.ef);
		*capidx = ck.first_cap;
		if (ck.code != 0) {
			jh_decision_fail(d, ck.code, "%s", ck.reason);
			memcpy(d->hint, ck.hint, sizeof(d->hint));
			rc = otherwise(d, gr, act, in, &ln, ck.code);
			goto out;
		}
	} else if (jh_effects_protected(d->reason, sizeof(d->reason),
	    g->protect->path, g->protect->n, root, &ln.ef)) {
		/* a search of a tree that links into a protected place */
		rc = d->code = JH_D_PROTECTED;
		d->verdict = "deny";
		goto out;
	} else if ((*capidx = jh_find_cap(gr, act, NULL, 0, 0)) == -1 &&
	    (ln.ef.n == 0 || jh_effects_caps(&ck, gr, act, NULL, &ln.ef) != 0 ||
	    (*capidx = ck.first_cap) == -1)) {
		jh_decision_fail(d, JH_D_NOTGRANTED, "%s%s%.200s%s%.200s",
		    act->tool, act->ntargets ? " on " : "", act->ntargets ?
		    act->targets[0] : "", act->url && !act->ntargets ?
		    " of " : "", act->url && !act->ntargets ? act->url : "");
		jh_action_hint(d->hint, sizeof(d->hint), act);
		rc = otherwise(d, gr, act, in, &ln, JH_D_NOTGRANTED);
		goto out;
	}
	if (!ln.have_sh) {
		size_t i;
		/* a file tool's effects are granted by its capability */
		for (i = 0; i < ln.ef.n; i++)
			if (ln.ef.v[i].cap == -1)
				ln.ef.v[i].cap = *capidx;
	}
	rc = check_policies(d, gr, act, in, &ln, 0);
out:
	if (record) {
		json_decref(d->effects);
		d->effects = jh_effects_json(&ln.ef, g->dryrun);
	}
	line_free(&ln);
	return (rc);
}

/*
 * One rewrite policy's field, regex and replacement, as strings; 0 when
 * it has none of them or one is too long.
 */
static int
rewrite_rule(const struct jh_cbor *rw, char *fs, size_t fsz, char *res,
    size_t rsz, char *ws, size_t wsz)
{
	const struct jh_cbor *f, *re, *with;

	f = jh_cbor_get(rw, "field");
	re = jh_cbor_get(rw, "regex");
	with = jh_cbor_get(rw, "with");
	if (f == NULL || re == NULL || with == NULL ||
	    f->type != JH_CBOR_TEXT || re->type != JH_CBOR_TEXT ||
	    with->type != JH_CBOR_TEXT || f->len >= fsz ||
	    re->len >= rsz || with->len >= wsz)
		return (0);
	snprintf(fs, fsz, "%.*s", (int)f->len, f->p);
	snprintf(res, rsz, "%.*s", (int)re->len, re->p);
	snprintf(ws, wsz, "%.*s", (int)with->len, with->p);
	return (1);
}

/* Applies the matching rewrite policies in list order to a copy. */
static int
apply_rewrites(struct jh_decision *d, const struct jh_gate *gt,
    const struct jh_grant *g, const struct jh_action *act, const json_t *in,
    const char *cwd, json_t **out)
{
	struct jh_decision dl;
	struct line ln;
	struct jh_err e;
	struct jh_buf b;
	json_t *cur;
	size_t i;
	int changed = 0, done = 0;

	/* no rewrite policy: the effects are not worked out a second time */
	for (i = 0; g->policies != NULL && i < g->policies->len; i++)
		if (jh_cbor_get(&g->policies->v[i], "rewrite") != NULL)
			break;
	if (g->policies == NULL || i == g->policies->len) {
		*out = NULL;
		return (0);
	}
	cur = json_deep_copy(in);
	jh_buf_init(&b);
	memset(&ln, 0, sizeof(ln));
	jh_effects_init(&ln.ef);
	for (i = 0; g->policies != NULL && i < g->policies->len; i++) {
		const struct jh_cbor *p = &g->policies->v[i];
		const struct jh_cbor *rw = jh_cbor_get(p, "rewrite");
		char fs[128], res[1024], ws[1024];
		int r;

		if (rw == NULL || !rewrite_rule(rw, fs, sizeof(fs), res,
		    sizeof(res), ws, sizeof(ws)) || sget(cur, fs) == NULL)
			continue;
		/*
		 * The rewrite first: where it changes nothing, the policy's
		 * `when` (and the effects it may ask for) need not be worked
		 * out.  The effects are worked out once, on the input.
		 */
		if ((r = jh_rewrite(&b, sget(cur, fs), res, ws, &e)) == 0)
			continue;
		if (!done) {
			jh_decision_init(&dl);
			(void)line_effects(&ln, &dl, gt, act, in, cwd, NULL);
			jh_decision_free(&dl);
			done = 1;
		}
		if (!when_holds(jh_cbor_get(p, "when"), act, in, &ln, NULL))
			continue;
		if (r == -1) {
			jh_decision_fail(d, JH_D_GATEFAIL, "policies[%zu]: %s",
			    i, e.msg);
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
	line_free(&ln);
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
budget(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const char *tuid, uint64_t now)
{
	struct jh_ledger *l;
	struct jh_err e;
	uint64_t rem;
	int fd, rc = 0;

	if ((fd = jh_ledger_open(g->ledgerdir, gr->ledger, 0, NULL, &e)) ==
	    -1)
		return (jh_decision_fail(d, JH_D_GATEFAIL, "%s", e.msg));
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		return (jh_decision_fail(d, JH_D_GATEFAIL, "out of memory"));
	}
	if (jh_flock(fd, LOCK_EX, g->wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1) {
		rc = jh_decision_fail(d, JH_D_GATEFAIL, "ledger: %s", e.msg);
		goto out;
	}
	if (memcmp(l->grant, gr->ledger, JH_HASH_LEN) != 0) {
		rc = jh_decision_fail(d, JH_D_GATEFAIL,
		    "ledger: not this grant's");
		goto out;
	}
	l->budget_uj = gr->budget;
	jh_ledger_reap(l, now);
	rem = jh_ledger_remaining(l);
	d->remaining = rem;
	d->have_remaining = 1;
	if (d->cost > rem) {
		rc = jh_decision_fail(d, JH_D_BUDGET, "cost %llu uJ exceeds "
		    "the remaining %llu uJ", (unsigned long long)d->cost,
		    (unsigned long long)rem);
		goto out;
	}
	if (g->dryrun)
		goto out;	/* explain: nothing debited, nothing held */
	if (strcmp(d->verdict, "ask") == 0) {
		if (jh_ledger_hold(l, tuid, d->cost, 0, now, &e) == -1) {
			rc = jh_decision_fail(d, JH_D_GATEFAIL, "ledger: %s",
			    e.msg);
			goto out;
		}
	} else {
		jh_ledger_debit(l, tuid, d->cost, now);
		d->debited = d->cost;
	}
	if (jh_ledger_write(fd, l, 1, &e) == -1) {
		d->debited = 0;
		rc = jh_decision_fail(d, JH_D_GATEFAIL, "%s", e.msg);
		goto out;
	}
	d->remaining = jh_ledger_remaining(l);
out:
	/* Closing drops the lock before the caller writes anything. */
	close(fd);
	free(l);
	return (rc);
}

/* The root a session's first call pinned: 0, or -1 when none yet. */
static int
session_root(const struct jh_gate *g, const char *session, char *out,
    size_t sz)
{
	char p[PATH_MAX * 2], name[2 * JH_HASH_LEN + 1];
	ssize_t n;
	int fd;

	stop_name(name, session);
	snprintf(p, sizeof(p), "%s/roots/%s", g->statedir, name);
	if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return (-1);
	n = pread(fd, out, sz - 1, 0);
	close(fd);
	if (n <= 0 || out[0] != '/' || memchr(out, '\0', (size_t)n) != NULL)
		return (-1);
	out[n] = '\0';
	return (0);
}

/* 1. well-formed */
static int
wellformed(struct jh_decision *d, const struct jh_gate *g, struct event *x,
    json_t *ev)
{
	const char *where = NULL;
	json_t *v;

	memset(x, 0, sizeof(*x));
	x->ev = ev;
	x->session = sget(ev, "session_id");
	x->tool = sget(ev, "tool");
	x->cwd = x->wd = sget(ev, "cwd");
	x->class = sget(ev, "class");
	x->host = sget(ev, "host");
	x->tuid = sget(ev, "tool_use_id");
	x->in = json_object_get(ev, "input");
	if ((v = json_object_get(ev, "malformed")) != NULL)
		return (jh_decision_fail(d, JH_D_MALFORMED, "malformed event: "
		    "%.200s", json_is_string(v) ? json_string_value(v) : "?"));
	if (x->cwd == NULL && x->session != NULL && *x->session != '\0' &&
	    json_is_true(json_object_get(ev, "cwd_unknown"))) {
		/*
		 * A host that sends no working directory with some events:
		 * they act in the project the session's first call pinned,
		 * and before one there is none to act in.
		 */
		if (session_root(g, x->session, x->wdbuf,
		    sizeof(x->wdbuf)) == -1)
			return (jh_decision_fail(d, JH_D_MALFORMED, "%s sent "
			    "no working directory with this call and the "
			    "session has no project yet (its calls so far "
			    "named none), so what it acts on is not known",
			    x->host != NULL ? x->host : "the host"));
		json_object_set_new(ev, "cwd", json_string(x->wdbuf));
		x->cwd = x->wd = sget(ev, "cwd");
	}
	if (x->session == NULL || *x->session == '\0' || x->tool == NULL ||
	    x->cwd == NULL || x->cwd[0] != '/' || x->class == NULL ||
	    x->host == NULL || x->tuid == NULL || *x->tuid == '\0' ||
	    !json_is_object(x->in))
		return (jh_decision_fail(d, JH_D_MALFORMED, "malformed event: "
		    "needs session_id, tool, input (an object), an absolute "
		    "cwd, class, host and tool_use_id"));
	if (has_nul(x->in, &where))
		return (jh_decision_fail(d, JH_D_MALFORMED, "malformed event: "
		    "the tool input holds a NUL (U+0000) in %.64s: the gate "
		    "decides on whole strings, and what follows a NUL would "
		    "go unread; write it without one", where != NULL ? where :
		    "a string"));
	if ((v = json_object_get(ev, "workdir")) != NULL &&
	    strcmp(x->class, "shell") == 0 && !(json_is_string(v) &&
	    json_string_length(v) == 0)) {	/* "": where it is */
		/* the command runs there: its effects are read from there */
		struct jh_err e;
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    strlen(json_string_value(v)) != json_string_length(v))
			return (jh_decision_fail(d, JH_D_MALFORMED, "malformed "
			    "event: workdir is not a path"));
		if (jh_path_resolve(x->wdbuf, sizeof(x->wdbuf), x->cwd,
		    json_string_value(v), &e) == -1)
			return (jh_decision_fail(d, JH_D_UNSAFE, "cannot "
			    "resolve the command's workdir: %s", e.msg));
		if (!jh_path_text_agrees(x->cwd, json_string_value(v)))
			return (jh_decision_fail(d, JH_D_UNSAFE, "the "
			    "command's workdir %.200s has a '..' after a link: "
			    "the host takes it as text, the kernel after the "
			    "link; name the directory without '..'",
			    json_string_value(v)));
		x->wd = x->wdbuf;
	}
	return (0);
}

/*
 * The session's root, physical so <root>/.claude is found behind links,
 * and the grant for it, loaded unless the cache holds it.  The grant is
 * found before the root it may name is known; a root it names wins.
 */
static int
root_and_grant(struct jh_decision *d, const struct jh_gate *g,
    const struct event *x, char *root, size_t sz)
{
	struct jh_gcache *gc = g->cache;
	char phys[PATH_MAX + 1], gpath[PATH_MAX * 2], cwdp[PATH_MAX + 1];
	const char *cwd = x->cwd;
	struct jh_err e;
	int chosen = 0;

	/*
	 * A cwd the model chose pins nothing unless it is a project's; it
	 * is judged, and pinned, as the physical path it names now, so that
	 * neither . nor .. nor a link the agent points elsewhere later can
	 * move the project.
	 */
	if (json_is_true(json_object_get(x->ev, "cwd_chosen"))) {
		if (jh_path_resolve(cwdp, sizeof(cwdp), "/", x->cwd, &e) == 0)
			cwd = cwdp;
		chosen = cwd != cwdp || !chosen_ok(g, cwdp);
	}
	if (pinned_root(g, x->session, cwd, !chosen, root, sz, &e) == -1)
		return (jh_decision_fail(d, JH_D_GATEFAIL, "%s", e.msg));
	if (jh_path_resolve(phys, sizeof(phys), "/", root, &e) == 0)
		snprintf(root, sz, "%s", phys);
	if (g->grantfile != NULL)
		snprintf(gpath, sizeof(gpath), "%s", g->grantfile);
	else {
		uint8_t h[JH_HASH_LEN];
		char hex[2 * JH_HASH_LEN + 1];
		crypto_hash_sha256(h, (const uint8_t *)root, strlen(root));
		jh_hex(hex, h, sizeof(h));
		snprintf(gpath, sizeof(gpath), "%s/grants/%s", g->home, hex);
		if (access(gpath, F_OK) != 0)
			snprintf(gpath, sizeof(gpath), "%s/grant", g->home);
	}
	if (!gc->loaded || strcmp(gc->path, gpath) != 0) {
		jh_gcache_free(gc);
		snprintf(gc->path, sizeof(gc->path), "%s", gpath);
		gc->rc = jh_grant_load_memo(&gc->g, gpath, g->trust, g->memo,
		    &gc->e);
		gc->loaded = 1;
	}
	if (gc->rc == 0 && gc->g.root != NULL) {
		if (jh_path_resolve(phys, sizeof(phys), "/", gc->g.root,
		    &e) == 0)
			snprintf(root, sz, "%s", phys);
		else
			snprintf(root, sz, "%s", gc->g.root);
	} else if (chosen && !g->dryrun && session_root(g, x->session, phys,
	    sizeof(phys)) == -1)
		return (jh_decision_fail(d, JH_D_UNSAFE, "%s names no "
		    "workspace, and this call's working directory %.200s, "
		    "which the model chose, is no project's work tree (a "
		    "directory with .git, below your home), so the session's "
		    "project cannot be pinned to it; give the grant a root "
		    "(jh-install -p DIR), or start the session with a command "
		    "in the project", x->host, x->cwd));
	return (0);
}

/* 2. protected paths and commands, never grantable, nor a remote agent */
static int
protection(struct jh_decision *d, const struct jh_gate *g,
    const struct event *x, const char *root, struct jh_action *act,
    struct targets *t)
{
	struct jh_shck sc;
	struct jh_err e;
	const char *c;
	json_t *v;
	int r;

	if ((v = json_object_get(x->in, "dangerouslyDisableSandbox")) !=
	    NULL && json_is_true(v))
		return (jh_decision_fail(d, JH_D_PROTECTED,
		    "dangerouslyDisableSandbox is never granted"));
	if ((r = collect_targets(d, g, root, x, x->in, t)) != 0)
		return (r);
	act->targets = t->p;
	act->lexexec = t->lexexec;
	act->ntargets = t->n;
	if (strcmp(x->class, "shell") == 0 &&
	    (c = sget(x->in, "command")) != NULL) {
		/*
		 * Protection comes before any grant (S1b): parse now, once;
		 * the capability step reads this line.
		 */
		if (parse_line(&t->sh, g, c, &e) == -1)
			return (jh_decision_fail(d, JH_D_UNPROVABLE,
			    "cannot tell what this command line "
			    "does (%.300s), so it cannot be checked and is "
			    "never granted", e.msg));
		t->have_sh = 1;
		shck_init(&sc, d, g, root);
		r = jh_shell_protected(&sc, x->wd, &t->sh);
		if (r != 0)
			return (jh_decision_fail(d, sc.code, "%s", sc.reason));
	}
	if (strcmp(x->class, "agent") == 0 && (v = json_object_get(x->in,
	    "isolation")) != NULL && json_is_string(v) &&
	    strcmp(json_string_value(v), "remote") == 0)
		return (jh_decision_fail(d, JH_D_NOTGRANTED, "a remote agent "
		    "runs off this machine, ungated and unmetered"));
	return (0);
}

/*
 * 9. capability, 10. policies: the deny and ask ones, the cost, the
 * rule, the content id.  Returns 0, JH_D_POLICY_ASK or the failure.
 */
static int
capability(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const struct event *x, const char *root,
    struct jh_action *act, const struct targets *t)
{
	const char *c;
	json_t *v;
	int capidx = -1, r;

	if ((r = write_checks(d, x->class, t)) != 0)
		return (r);
	if (strcmp(x->class, "shell") == 0 &&
	    (c = sget(x->in, "command")) != NULL) {
		jh_sha256_id(d->content_id, (const uint8_t *)c, strlen(c));
		act->content_id = d->content_id;
	} else if ((v = json_object_get(x->ev, "content_id")) != NULL &&
	    json_is_string(v))
		act->content_id = json_string_value(v);
	r = check_input(d, g, gr, act, x->in, x->wd, root, &capidx, 1,
	    t->have_sh ? &t->sh : NULL);
	if (r != 0 && r != JH_D_POLICY_ASK)
		return (r);
	d->cost = cap_cost(gr, capidx, x->class);
	if (capidx >= 0 && d->rule[0] == '\0')
		snprintf(d->rule, sizeof(d->rule), "caps[%d]", capidx);
	/* read and edit targets are hashed only now the path matched */
	if ((strcmp(x->class, "read") == 0 || strcmp(x->class, "edit") == 0) &&
	    t->n == 1 && jh_file_content_id(d->content_id, t->p[0]) == 0)
		d->have_cid = 1;
	return (r);
}

/*
 * 10. the rewrite policies.  The rewritten input is decided again (S8),
 * its targets resolved anew: a rewrite may change a path.  Returns 0,
 * rewritten or not, or -1 when the decision is a deny.
 */
/* The rewritten input, decided as a call of its own under grant gr. */
static int
rewritten_ok(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const struct event *x, const char *root,
    const struct jh_action *act, json_t *rewritten, const char *whose)
{
	struct jh_decision d2;
	struct jh_action act2 = *act;
	struct targets t2;
	int cap2 = -1, r;

	jh_decision_init(&d2);
	t2.n = 0;
	t2.have_sh = 0;
	r = collect_targets(&d2, g, root, x, rewritten, &t2);
	act2.targets = t2.p;
	act2.ntargets = t2.n;
	if (r == 0)
		r = write_checks(&d2, x->class, &t2);
	if (r == 0)
		r = check_input(&d2, g, gr, &act2, rewritten, x->wd, root,
		    &cap2, 0, NULL);
	strs_free(t2.p, &t2.n);
	if (r != 0)
		jh_decision_fail(d, d2.code == JH_D_POLICY_ASK ?
		    JH_D_POLICY_DENY : d2.code, "the rewritten input is not "
		    "granted%s: %s", whose, d2.reason);
	jh_decision_free(&d2);
	return (r != 0 ? -1 : 0);
}

static int
rewrite(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const struct jh_grant *parent,
    const struct event *x, const char *root, const struct jh_action *act)
{
	json_t *rewritten = NULL, *prw = NULL;
	char rule[sizeof(d->rule)];
	int r, rp;

	if ((r = apply_rewrites(d, g, gr, act, x->in, x->wd, &rewritten)) ==
	    -1)
		return (-1);
	snprintf(rule, sizeof(rule), "%s", d->rule);
	/*
	 * Under a subagent's grant the parent's rewrites apply too, and a
	 * rewritten input must be granted by both: a child can neither skip
	 * its parent's rewrite nor rewrite into what the parent refuses.
	 */
	if (parent != NULL) {
		if ((rp = apply_rewrites(d, g, parent, act, x->in, x->wd,
		    &prw)) == -1) {
			json_decref(rewritten);
			return (-1);
		}
		if (rp == 1 && r == 1 && !json_equal(rewritten, prw)) {
			json_decref(rewritten);
			json_decref(prw);
			return (jh_decision_fail(d, JH_D_POLICY_DENY, "the %s "
			    "subagent's grant (%s) and its parent grant (%s) "
			    "rewrite this call differently", d->agent_type,
			    rule, d->rule), -1);
		}
		if (rp == 1 && r != 1) {
			rewritten = prw;
			prw = NULL;
			r = 1;
			snprintf(rule, sizeof(rule), "the parent grant's %.50s",
			    d->rule);
		}
		json_decref(prw);
	}
	if (r != 1)
		return (r);
	if (rewritten_ok(d, g, gr, x, root, act, rewritten, "") == -1 ||
	    (parent != NULL && rewritten_ok(d, g, parent, x, root, act,
	    rewritten, " by the parent grant") == -1)) {
		json_decref(rewritten);
		return (-1);
	}
	d->updated = rewritten;
	d->code = JH_D_POLICY_REWRITE;
	d->verdict = "rewrite";
	snprintf(d->reason, sizeof(d->reason), "rewritten by %s", rule);
	return (0);
}

/*
 * Delegation (JCP's attenuation, joulehook-formats(5), Child grants): a
 * subagent's call, whose event names its agent_type, is decided under
 * the child grant for that type when there is one, <grant>.agents/<type>,
 * verified root first against the grant in force, which it may only
 * narrow: named as its parent, issued by the parent's holder (else its
 * issuer), a lower depth, no more budget, no later expiry, no earlier
 * start, itself unrevoked and valid.  Returns 0 with *child loaded, 1
 * when there is none (the grant in force decides alone, as for the main
 * agent), -1 decided (a deny).
 */
static int
child_grant(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const struct event *x, struct jh_grant *c,
    uint64_t now)
{
	const char *type = sget(x->ev, "agent_type");
	char path[sizeof(g->cache->path) + 80], did[JH_DIDKEY_MAX];
	struct jh_err e;
	size_t i;
	int r;

	if (type == NULL || *type == '\0' || *type == '.')
		return (1);
	for (i = 0; type[i] != '\0'; i++)
		if (i >= 63 || !((type[i] >= 'a' && type[i] <= 'z') ||
		    (type[i] >= 'A' && type[i] <= 'Z') || (type[i] >= '0' &&
		    type[i] <= '9') || strchr("._-", type[i]) != NULL))
			return (1);	/* no file can be named so */
	snprintf(d->agent_type, sizeof(d->agent_type), "%s", type);
	snprintf(path, sizeof(path), "%s.agents/%s", g->cache->path, type);
	if (access(path, F_OK) != 0)
		return (1);
	if ((r = jh_grant_load_memo(c, path, g->trust, g->memo, &e)) != 0) {
		jh_grant_free(c);
		jh_decision_fail(d, r, "the %s subagent's grant %s: %s", type,
		    path, e.msg);
		return (-1);
	}
	jh_didkey_enc(did, sizeof(did), c->env.kid);
	if (c->parent == NULL || (!jh_cbor_text_is(c->parent, gr->idtext) &&
	    !jh_cbor_text_is(c->parent, gr->ledgertext)))
		jh_decision_fail(d, JH_D_BADSIG, "the %s subagent's grant "
		    "does not name the grant in force, %s, as its parent", type,
		    gr->idtext);
	else if (!jh_cbor_text_is(c->agent, type))
		jh_decision_fail(d, JH_D_BADSIG, "the grant in %s is not for "
		    "the %s subagent", path, type);
	else if (gr->holder != NULL && gr->holder->type == JH_CBOR_TEXT &&
	    gr->holder->len > 8 && memcmp(gr->holder->p, "did:key:", 8) == 0 ?
	    !jh_cbor_text_is(gr->holder, did) : memcmp(c->env.kid,
	    gr->env.kid, sizeof(c->env.kid)) != 0)
		jh_decision_fail(d, JH_D_BADSIG, "the %s subagent's grant is "
		    "not issued by its parent's holder", type);
	else if (gr->depth == 0)
		jh_decision_fail(d, JH_D_NOTGRANTED, "the grant in force "
		    "allows no delegation (its depth is 0), so the %s "
		    "subagent's grant is not honoured; seal the grant with "
		    "depth 1 to delegate", type);
	else if (c->depth >= gr->depth)
		jh_decision_fail(d, JH_D_BADSIG, "the %s subagent's grant "
		    "does not lower its parent's depth", type);
	else if (c->budget > gr->budget || c->exp > gr->exp ||
	    c->nbf < gr->nbf)
		jh_decision_fail(d, JH_D_BADSIG, "the %s subagent's grant "
		    "widens its parent: its %s", type, c->budget > gr->budget ?
		    "budget is larger" : c->exp > gr->exp ? "expiry is later" :
		    "start is earlier");
	else if ((r = jh_grant_valid(c, g->revdir, x->host, now, &e)) != 0)
		jh_decision_fail(d, r, "the %s subagent's grant: %s", type,
		    r == JH_D_REVOKED ? "it is revoked" : e.msg);
	else
		return (0);
	jh_grant_free(c);
	return (-1);
}

/*
 * A subagent's action is granted only if the grant in force grants it
 * too, each with its own policies: the parent's verdict is decided as
 * for the main agent and may only make the child's stricter.  Returns
 * 0 when the parent lets it through (an ask of its own kept), -1 denied.
 */
static int
parent_too(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *gr, const struct event *x, const char *root,
    struct jh_action *act, const struct targets *t)
{
	struct jh_decision dp;
	struct jh_action ap = *act;
	int r;

	jh_decision_init(&dp);
	r = capability(&dp, g, gr, x, root, &ap, t);
	if (r != 0 && r != JH_D_POLICY_ASK) {
		jh_decision_fail(d, dp.code, "not granted by the parent grant "
		    "of the %s subagent's: %s", d->agent_type, dp.reason);
		jh_decision_free(&dp);
		return (-1);
	}
	if (r == JH_D_POLICY_ASK && d->verdict == NULL) {
		d->code = dp.code;
		d->verdict = dp.verdict;
		snprintf(d->reason, sizeof(d->reason), "%.480s (the parent "
		    "grant's)", dp.reason);
	}
	/* the price is never the child's to lower: the higher of the two */
	if (dp.cost > d->cost)
		d->cost = dp.cost;
	jh_decision_free(&dp);
	return (0);
}

/*
 * A subagent's cost, debited (or held) on its own ledger and on its
 * parent's, both under their locks, parent first: it must fit in both,
 * so delegation never mints joules.  The child's ledger is made on its
 * first use.
 */
static int
budget_chain(struct jh_decision *d, const struct jh_gate *g,
    const struct jh_grant *c, const struct jh_grant *gr, const char *tuid,
    uint64_t now)
{
	const struct jh_grant *link[2] = { gr, c };
	struct jh_ledger *l[2] = { NULL, NULL };
	struct jh_err e;
	uint64_t rem[2];
	int fd[2] = { -1, -1 }, existed, i, rc = 0;
	uint64_t raised;

	if (!g->dryrun && jh_ledger_init(g->ledgerdir, c->ledger, c->budget,
	    0, &existed, &raised, &e) == -1)
		return (jh_decision_fail(d, JH_D_GATEFAIL, "%s", e.msg));
	for (i = 0; i < 2; i++) {
		if ((fd[i] = jh_ledger_open(g->ledgerdir, link[i]->ledger, 0,
		    NULL, &e)) == -1 || (l[i] = malloc(sizeof(*l[i]))) ==
		    NULL || jh_flock(fd[i], LOCK_EX, g->wait_ms, &e) == -1 ||
		    jh_ledger_read(l[i], fd[i], &e) == -1) {
			rc = jh_decision_fail(d, JH_D_GATEFAIL, "ledger: %s",
			    l[i] == NULL && fd[i] != -1 ? "out of memory" :
			    e.msg);
			goto out;
		}
		l[i]->budget_uj = link[i]->budget;
		jh_ledger_reap(l[i], now);
		rem[i] = jh_ledger_remaining(l[i]);
	}
	d->remaining = rem[1] < rem[0] ? rem[1] : rem[0];
	d->have_remaining = 1;
	if (d->cost > d->remaining) {
		rc = jh_decision_fail(d, JH_D_BUDGET, "cost %llu uJ exceeds "
		    "the remaining %llu uJ of the %s", (unsigned long long)
		    d->cost, (unsigned long long)d->remaining, rem[1] <=
		    rem[0] ? "subagent's grant" : "parent grant");
		goto out;
	}
	if (g->dryrun)
		goto out;
	for (i = 0; i < 2; i++) {
		if (strcmp(d->verdict, "ask") == 0) {
			if (jh_ledger_hold(l[i], tuid, d->cost, 0, now,
			    &e) == -1) {
				rc = jh_decision_fail(d, JH_D_GATEFAIL,
				    "ledger: %s", e.msg);
				goto out;
			}
		} else
			jh_ledger_debit(l[i], tuid, d->cost, now);
	}
	/* The parent first: a crash between counts more, never less. */
	for (i = 0; i < 2; i++)
		if (jh_ledger_write(fd[i], l[i], 1, &e) == -1) {
			rc = jh_decision_fail(d, JH_D_GATEFAIL, "%s", e.msg);
			goto out;
		}
	if (strcmp(d->verdict, "ask") != 0)
		d->debited = d->cost;
	rem[0] = jh_ledger_remaining(l[0]);
	rem[1] = jh_ledger_remaining(l[1]);
	d->remaining = rem[1] < rem[0] ? rem[1] : rem[0];
out:
	for (i = 0; i < 2; i++) {
		if (fd[i] != -1)
			close(fd[i]);
		free(l[i]);
	}
	return (rc);
}

/*
 * Decides one PreToolUse event against the gate at now_ms.  Returns
 * d->code; the decision is made whatever it is (a deny is one).
 */
/*
 * A search's filter of the names it reads (Claude Code's Grep glob,
 * OpenCode's and Gemini CLI's include, Cline's file_pattern), as one
 * glob of a name in buf: a tree read narrowed as find -name narrows
 * one.  Of each glob its last part, which a file's name must match
 * (src/STAR.ts: STAR.ts); several, as Claude Code's Grep splits them at
 * blanks and commas, as a brace of them.  One with a leading '!'
 * narrows nothing.  Cline's search_files with none searches every name.
 */
static const char *
search_only(const struct event *x, char *buf, size_t bufsz)
{
	static const char *const keys[] = { "glob", "include",
	    "include_pattern", "file_pattern", NULL };
	const char *v = NULL, *p, *b;
	size_t n, k = 1;
	int i, parts = 0;

	if (strcmp(x->class, "search") != 0 || bufsz < 4)
		return (NULL);
	for (i = 0; v == NULL && keys[i] != NULL; i++)
		v = sget(x->in, keys[i]);
	if (v == NULL)
		return (strcmp(x->tool, "search_files") == 0 ? "*" : NULL);
	if (strpbrk(v, "{}") != NULL)
		return (strchr(v, '/') == NULL && v[0] != '!' ? v : NULL);
	buf[0] = '{';
	for (p = v; *p != '\0'; p += n) {
		p += strspn(p, " ,");
		if ((n = strcspn(p, " ,")) == 0)
			break;
		if (*p == '!')
			return (NULL);
		for (b = p + n; b > p && b[-1] != '/'; b--)
			;
		if (k + (size_t)(p + n - b) + 3 > bufsz)
			return (NULL);
		if (parts++ > 0)
			buf[k++] = ',';
		memcpy(buf + k, b, (size_t)(p + n - b));
		k += (size_t)(p + n - b);
	}
	if (parts == 0)
		return (NULL);
	if (parts == 1) {
		memmove(buf, buf + 1, k - 1);
		buf[k - 1] = '\0';
	} else {
		buf[k++] = '}';
		buf[k] = '\0';
	}
	return (buf);
}

int
jh_decide(struct jh_decision *d, const struct jh_gate *g, json_t *ev,
    uint64_t now_ms)
{
	const struct jh_grant *gr = &g->cache->g, *link = gr;
	struct jh_grant child;
	char root[PATH_MAX + 2], only[256];
	struct event x;
	struct jh_action act;
	struct targets t;
	struct jh_err e;
	int r;

	t.n = 0;
	t.have_sh = 0;
	memset(&act, 0, sizeof(act));
	if (wellformed(d, g, &x, ev) != 0 ||
	    root_and_grant(d, g, &x, root, sizeof(root)) != 0)
		return (d->code);
	if (session_stopped(g, x.session))
		return (jh_decision_fail(d, JH_D_UNSAFE, "this session was "
		    "stopped after a tool ran that was not what the gate "
		    "decided, and %s cannot end a run then: every later call "
		    "of the session is denied; start a new session", x.host));
	act.class = x.class;
	act.tool = x.tool;
	act.root = root;
	act.home = g->user_home;
	act.url = sget(x.in, "url");
	act.only = search_only(&x, only, sizeof(only));
	if (protection(d, g, &x, root, &act, &t) != 0)
		goto out;
	/* 3-5. a grant, its signature, its issuer */
	if (g->cache->rc != 0) {
		jh_decision_fail(d, g->cache->rc, "%s", g->cache->e.msg);
		goto out;
	}
	d->grant = gr->idtext;
	if (memcmp(gr->ledger, gr->id, JH_HASH_LEN) != 0)
		d->ledger = gr->ledgertext;
	/* 6. not revoked, 7. audience, 8. validity */
	if ((r = jh_grant_valid(gr, g->revdir, x.host, now_ms, &e)) != 0) {
		jh_decision_fail(d, r, "%s", e.msg);
		goto out;
	}
	/* a subagent under its child grant: every link must grant it */
	if ((r = child_grant(d, g, gr, &x, &child, now_ms)) == -1)
		goto out;
	if (r == 0) {
		link = &child;
		snprintf(d->child_id, sizeof(d->child_id), "%s", child.idtext);
		snprintf(d->child_ledger, sizeof(d->child_ledger), "%s",
		    child.ledgertext);
		d->grant = d->child_id;
		d->ledger = memcmp(child.ledger, child.id, JH_HASH_LEN) != 0 ?
		    d->child_ledger : NULL;
		snprintf(d->chain[0], sizeof(d->chain[0]), "%s",
		    child.ledgertext);
		snprintf(d->chain[1], sizeof(d->chain[1]), "%s",
		    gr->ledgertext);
		d->nchain = 2;
	}
	if ((r = capability(d, g, link, &x, root, &act, &t)) != 0 &&
	    r != JH_D_POLICY_ASK)
		goto out;
	if (link != gr && parent_too(d, g, gr, &x, root, &act, &t) != 0)
		goto out;
	if (r == 0 && d->verdict == NULL && rewrite(d, g, link, link != gr ?
	    gr : NULL, &x, root, &act) != 0)
		goto out;
	if (d->verdict == NULL) {
		d->verdict = "allow";
		if (d->rule[0] != '\0')
			snprintf(d->reason, sizeof(d->reason), "granted by %s",
			    d->rule);
		else
			snprintf(d->reason, sizeof(d->reason), "granted: "
			    "nothing in it needs a capability");
	}
	/* 11. budget -> debit (allow, rewrite) or hold (ask) */
	if ((link == gr ? budget(d, g, gr, x.tuid, now_ms) :
	    budget_chain(d, g, link, gr, x.tuid, now_ms)) == 0)
		d->outcome = jh_is_outcome(gr, x.class, d->updated ?
		    d->updated : x.in);
out:
	if (link != gr)
		jh_grant_free(&child);
	strs_free(t.p, &t.n);
	if (t.have_sh)
		jh_sh_free(&t.sh);
	return (d->code);
}

/*
 * The Decision (joulehook-formats(5), decision/1) for an event: its
 * identifying fields copied, then the verdict, code, reason, figures.
 */
json_t *
jh_decision_json(const struct jh_decision *d, const json_t *ev)
{
	static const char *const keep[] = { "session_id", "tool", "input",
	    "cwd", "host", "event", "class", "tool_use_id", "agent_id",
	    NULL };
	char reason[sizeof(d->reason)], hint[sizeof(d->hint)];
	char rule[sizeof(d->rule)];
	json_t *out, *v;
	size_t i;

	/* a message cut at a byte count may end in half a character */
	memcpy(reason, d->reason, sizeof(reason));
	memcpy(hint, d->hint, sizeof(hint));
	memcpy(rule, d->rule, sizeof(rule));
	jh_utf8_clean(reason);
	jh_utf8_clean(hint);
	jh_utf8_clean(rule);
	if ((out = json_object()) == NULL)
		return (NULL);
	json_object_set_new(out, "kind", json_string("decision/1"));
	for (i = 0; keep[i] != NULL; i++)
		if ((v = json_object_get(ev, keep[i])) != NULL)
			json_object_set(out, keep[i], v);
	if (json_object_get(out, "session_id") == NULL ||
	    !json_is_string(json_object_get(out, "session_id")))
		json_object_set_new(out, "session_id", json_string(""));
	if (d->have_uid)
		json_object_set_new(out, "uid", json_integer(d->uid));
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
	json_object_set_new(out, "reason", json_string(reason));
	json_object_set_new(out, "grant", d->grant ? json_string(d->grant) :
	    json_null());
	if (d->ledger != NULL)
		json_object_set_new(out, "ledger", json_string(d->ledger));
	if (d->agent_type[0] != '\0')
		json_object_set_new(out, "agent_type",
		    json_string(d->agent_type));
	if (d->nchain > 1) {
		json_t *a = json_array();
		for (i = 0; i < (size_t)d->nchain; i++)
			json_array_append_new(a, json_string(d->chain[i]));
		json_object_set_new(out, "chain", a);
	}
	if (d->hint[0] != '\0' && strcmp(d->verdict, "allow") != 0 &&
	    strcmp(d->verdict, "rewrite") != 0)
		json_object_set_new(out, "hint", json_string(hint));
	json_object_set_new(out, "cost_uj", json_integer((json_int_t)d->cost));
	json_object_set_new(out, "debited_uj",
	    json_integer((json_int_t)d->debited));
	json_object_set_new(out, "provenance", json_string("Estimator"));
	if (d->have_remaining)
		json_object_set_new(out, "remaining_uj",
		    json_integer((json_int_t)d->remaining));
	json_object_set_new(out, "rule", rule[0] ? json_string(rule) :
	    json_null());
	json_object_set(out, "target", json_array_size(d->targets) ?
	    d->targets : json_null());
	json_object_set(out, "updated_input", d->updated ? d->updated :
	    json_null());
	if (d->outcome && strcmp(d->verdict, "deny") != 0)
		json_object_set_new(out, "outcome", json_integer(1));
	if (d->effects != NULL && json_array_size(d->effects) > 0)
		json_object_set(out, "effects", d->effects);
	return (out);
}

void
jh_gate_ctx_init(struct jh_gate_ctx *c)
{
	memset(c, 0, sizeof(*c));
	jh_keyset_init(&c->trust);
	jh_protect_init(&c->protect);
}

int
jh_gate_open(struct jh_gate_ctx *c, const struct jh_gate_paths *p,
    struct jh_err *e)
{
	struct jh_gate *g = &c->g;
	struct jh_where *w = &c->where;

	w->state = p->statedir;
	w->ledger = p->ledgerdir;
	w->trust = p->trustfile;
	w->revoked = p->revdir;
	jh_where_fill(w);
	if ((g->home = w->home) == NULL)
		return (jh_errf(e, "no JH_HOME and no HOME"));
	if ((g->statedir = w->state) == NULL)
		return (jh_errf(e, "no JH_STATE and no HOME"));
	if ((g->ledgerdir = w->ledger) == NULL || w->trust == NULL ||
	    (g->revdir = w->revoked) == NULL)
		return (jh_errf(e, "%s: a path under it is too long",
		    g->ledgerdir == NULL ? g->statedir : g->home));
	/* A missing trust file trusts nobody: every grant is refused. */
	if (access(w->trust, F_OK) == 0 && jh_keyset_load(&c->trust, w->trust,
	    JH_ROLE_ISSUER, e) == -1)
		return (-1);
	/* Never grantable: our own files, the install, the host's config. */
	jh_protect_builtin_at(&c->protect, g->home, g->statedir, p->exedir);
	g->grantfile = p->grantfile;
	g->trust = &c->trust;
	g->protect = &c->protect;
	if ((g->user_home = getenv("HOME")) != NULL && g->user_home[0] != '/')
		g->user_home = NULL;
	g->cache = &c->cache;
	return (0);
}

void
jh_gate_close(struct jh_gate_ctx *c)
{
	jh_gcache_free(&c->cache);
	jh_protect_free(&c->protect);
	jh_keyset_free(&c->trust);
}

/* The Decision d on ev as one JSON line, with who asked. */
static int
decision_line(struct jh_buf *out, struct jh_decision *d, const json_t *ev,
    const struct jh_asker *who)
{
	json_t *o;
	char *txt;

	d->have_uid = who != NULL && who->have_uid;
	d->uid = who != NULL ? who->uid : 0;
	if ((o = jh_decision_json(d, ev)) == NULL)
		return (-1);
	txt = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	if (txt == NULL)
		return (-1);
	jh_buf_adds(out, txt);
	jh_buf_addc(out, '\n');
	free(txt);
	return (out->oom ? -1 : 0);
}

int
jh_decide_line(struct jh_buf *out, const struct jh_gate *g,
    const struct jh_asker *who, const char *line, size_t len,
    const char *why)
{
	struct jh_decision d;
	struct jh_err e;
	json_t *ev = NULL, *evn;
	const char *en;
	int rc;

	jh_decision_init(&d);
	if (line == NULL || (ev = jh_json_parse(line, len, &e)) == NULL ||
	    !json_is_object(ev)) {
		/* A line that is not an event is a malformed event's. */
		jh_decision_fail(&d, JH_D_MALFORMED, "malformed event: %s",
		    line == NULL ? why : ev != NULL ? "not an object" : e.msg);
		json_decref(ev);
		ev = json_object();
	} else {
		evn = json_object_get(ev, "event");
		en = json_is_string(evn) ? json_string_value(evn) : NULL;
		if (en != NULL && strcmp(en, JH_GATE_EVENT) != 0 &&
		    json_object_get(ev, "malformed") == NULL) {
			/* Other events pass through untouched, never debited. */
			json_decref(ev);
			jh_decision_free(&d);
			jh_buf_add(out, line, len);
			jh_buf_addc(out, '\n');
			return (out->oom ? -1 : 0);
		}
		jh_decide(&d, g, ev, jh_now_ms());
	}
	rc = ev == NULL || decision_line(out, &d, ev, who) == -1 ? -1 :
	    strcmp(d.verdict, "deny") == 0;
	json_decref(ev);
	jh_decision_free(&d);
	return (rc);
}
