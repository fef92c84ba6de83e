/*
 * joulehook: a grant's capabilities and policies over effects
 * (jh-decide(1) "Effects", joulehook-formats(5) "Grants").
 *
 * One grant means the same for every tool: a read by cat is granted by
 * the capability that grants the Read tool on that path, a redirect or
 * a tee by the one that grants Write, and both meet the same policies.
 * A literal command capability grants what its command runs (the exec,
 * its network and installs, a push); the paths the command reads,
 * writes and deletes still need the capabilities of those paths.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <fts.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "cbor.h"
#include "decide.h"
#include "effects.h"
#include "effgrant.h"
#include "paths.h"
#include "shellcheck.h"
#include "shellparse.h"

static int
text_eq(const struct jh_cbor *v, const char *s)
{
	return (v != NULL && v->type == JH_CBOR_TEXT && v->len == strlen(s) &&
	    memcmp(v->p, s, v->len) == 0);
}

/* Calls f on v's text, or on each text of v's array, until it says 1. */
static int
each_text(const struct jh_cbor *v, int (*f)(const char *, const void *),
    const void *ctx)
{
	char buf[PATH_MAX];
	size_t i, n = 1;
	const struct jh_cbor *t;

	if (v == NULL)
		return (0);
	if (v->type == JH_CBOR_ARRAY)
		n = v->len;
	else if (v->type != JH_CBOR_TEXT)
		return (0);
	for (i = 0; i < n; i++) {
		t = v->type == JH_CBOR_ARRAY ? &v->v[i] : v;
		if (t->type != JH_CBOR_TEXT || t->len >= sizeof(buf) ||
		    memchr(t->p, '\0', t->len) != NULL)
			continue;
		memcpy(buf, t->p, t->len);
		buf[t->len] = '\0';
		if (f(buf, ctx))
			return (1);
	}
	return (0);
}

static int
eq_cb(const char *p, const void *ctx)
{
	return (strcmp(p, ctx) == 0);
}

static int
glob_cb(const char *p, const void *ctx)
{
	return (jh_glob(p, ctx, 0));
}

/* A pattern made absolute: relative to the root, or ~/ to the home. */
static int
pat_abs(char *out, size_t sz, const char *pat, const char *root,
    const char *home)
{
	int n;

	if (pat[0] == '/')
		n = snprintf(out, sz, "%s", pat);
	else if (pat[0] == '~' && (pat[1] == '/' || pat[1] == '\0')) {
		if (home == NULL || home[0] != '/')
			return (-1);
		n = snprintf(out, sz, "%s%s", home, pat + 1);
	} else {
		if (root == NULL)
			return (-1);
		n = snprintf(out, sz, "%s%s%s", root, strcmp(root, "/") == 0 ?
		    "" : "/", pat);
	}
	return (n < 0 || (size_t)n >= sz ? -1 : 0);
}

struct pctx {
	const char *root;
	const char *home;
	const char *path;
	int tree;
	int touch;	/* policies: may the pattern match under a tree */
	const char *only;	/* the tree's name filter (jh_effect's) */
	int onlyfold;
	int onlytop;
};

/* A glob as tokens: a literal byte, any one byte ('?', a bracket), '*'. */
#define GM_ANY	256
#define GM_STAR	257
#define GM_MAX	128

static int
gm_tokens(int *t, const char *p, int fold)
{
	int n = 0;

	for (; *p != '\0'; p++) {
		if (n == GM_MAX || *p == '{')
			return (-1);	/* a brace: left to the caller */
		if (*p == '*') {
			if (n == 0 || t[n - 1] != GM_STAR)
				t[n++] = GM_STAR;
		} else if (*p == '?')
			t[n++] = GM_ANY;
		else if (*p == '[') {
			/* a bracket as any one byte: wider, never narrower */
			if (strstr(p, "[:") != NULL || strstr(p, "[=") != NULL ||
			    strstr(p, "[.") != NULL)
				return (-1);	/* a class: left to the caller */
			if (p[1] == '!' || p[1] == '^')
				p++;
			if (p[1] == ']')
				p++;
			while (p[1] != '\0' && p[1] != ']')
				p++;
			if (p[1] == '\0')
				return (-1);
			p++;
			t[n++] = GM_ANY;
		} else {
			if (*p == '\\' && p[1] != '\0')
				p++;
			t[n++] = fold ? tolower((unsigned char)*p) :
			    (unsigned char)*p;
		}
	}
	return (n);
}

/*
 * Whether some name matches both globs of one component (a bracket read
 * as any one byte; a brace, or one too long, as meeting anything).
 */
static int
glob_meet(const char *a, const char *b, int fold)
{
	static unsigned char m[GM_MAX + 1][GM_MAX + 1];
	int ta[GM_MAX], tb[GM_MAX], na, nb, i, j;

	if ((na = gm_tokens(ta, a, fold)) == -1 ||
	    (nb = gm_tokens(tb, b, fold)) == -1)
		return (1);
	/* m[i][j]: the rests from token i of a and j of b meet */
	for (i = na; i >= 0; i--)
		for (j = nb; j >= 0; j--) {
			if (i == na && j == nb)
				m[i][j] = 1;
			else if (i < na && ta[i] == GM_STAR)
				m[i][j] = m[i + 1][j] || (j < nb && m[i][j + 1]);
			else if (j < nb && tb[j] == GM_STAR)
				m[i][j] = m[i][j + 1] || (i < na && m[i + 1][j]);
			else
				m[i][j] = i < na && j < nb && (ta[i] == GM_ANY ||
				    tb[j] == GM_ANY || ta[i] == tb[j]) &&
				    m[i + 1][j + 1];
		}
	return (m[0][0]);
}

/* Whether a glob has a wildcard. */
static int
wild(const char *g)
{
	return (strpbrk(g, "*?[{\\") != NULL);
}

/*
 * find -name ONLY over a tree, against a pattern's NAME: where either is
 * a plain name, whether the other matches it; where both have
 * wildcards and some name could match both (*.pe? and *.pem), whether
 * such a name is in the tree, looked at up to JH_ONLYSCAN entries.
 * Past those it is taken as no, as a tree read no name narrows is (a
 * repository's node_modules would otherwise ask about every *.ts).
 */
static int
find_meets(const struct pctx *c, const char *name)
{
	char *paths[2];
	FTSENT *e;
	FTS *t;
	size_t seen = 0;
	int hit = 0, fl = c->onlyfold ? FNM_CASEFOLD : 0;

	if (!wild(c->only))
		return (fnmatch(name, c->only, fl) == 0);
	if (!wild(name))
		return (fnmatch(c->only, name, fl) == 0);
	if (!glob_meet(c->only, name, c->onlyfold))
		return (0);
	paths[0] = (char *)c->path;
	paths[1] = NULL;
	if ((t = fts_open(paths, FTS_PHYSICAL | FTS_NOSTAT, NULL)) == NULL)
		return (1);
	while (!hit && (e = fts_read(t)) != NULL) {
		if (e->fts_info == FTS_DP)
			continue;
		if (++seen > JH_ONLYSCAN)
			break;
		hit = e->fts_level > 0 && fnmatch(c->only, e->fts_name, fl) ==
		    0 && fnmatch(name, e->fts_name, fl) == 0;
	}
	fts_close(t);
	return (hit);
}

/*
 * A tree read narrowed by a name (find -name, a shell glob's last part)
 * against a pattern of a name anywhere (**\/NAME) that holds all of the
 * tree.  A glob (its first part under the tree) meets the pattern where
 * an entry of the tree's top is there that both match, as the shell's
 * glob would give it (a leading dot only where the glob has one); a
 * find's name where some name matches both.
 */
static int	only_meets1(const struct pctx *, const char *);

/*
 * The filter's alternatives where it has braces (*.{ts,tsx}, one level):
 * whether any meets; nested braces, or more than 16, are taken as yes.
 */
static int
only_meets(const struct pctx *c, const char *name)
{
	struct pctx a = *c;
	char alt[256];
	const char *o = c->only, *l, *r, *p, *q;
	int n = 0;

	if ((l = strchr(o, '{')) == NULL)
		return (only_meets1(c, name));
	if ((r = strchr(l, '}')) == NULL || memchr(l + 1, '{', (size_t)(r -
	    l - 1)) != NULL || strchr(r + 1, '{') != NULL)
		return (1);
	for (p = l + 1; p <= r; p = q + 1) {
		for (q = p; q < r && *q != ','; q++)
			;
		if (++n > 16 || snprintf(alt, sizeof(alt), "%.*s%.*s%s",
		    (int)(l - o), o, (int)(q - p), p, r + 1) >= (int)sizeof(alt))
			return (1);
		a.only = alt;
		if (only_meets1(&a, name))
			return (1);
	}
	return (0);
}

static int
only_meets1(const struct pctx *c, const char *name)
{
	struct dirent *d;
	DIR *dir;
	int hit = 0, fl = c->onlyfold ? FNM_CASEFOLD : 0;

	if (!c->onlytop)
		return (find_meets(c, name));
	if ((dir = opendir(c->path)) == NULL)
		return (0);
	while (!hit && (d = readdir(dir)) != NULL)
		hit = strcmp(d->d_name, ".") != 0 &&
		    strcmp(d->d_name, "..") != 0 &&
		    fnmatch(c->only, d->d_name, fl | FNM_PERIOD) == 0 &&
		    fnmatch(name, d->d_name, 0) == 0;
	closedir(dir);
	return (hit);
}

/* The literal part of an absolute pattern, before its first glob. */
static size_t
lit_len(const char *p)
{
	size_t n = strcspn(p, "*?[");

	if (p[n] == '\0')
		return (n);
	while (n > 0 && p[n - 1] != '/')
		n--;
	return (n);
}

/*
 * Whether pattern p (absolute) covers every path under dir: it ends in
 * a double star and what comes before it matches dir or an ancestor.
 */
static int
covers(const char *p, const char *dir)
{
	char pre[PATH_MAX * 2], anc[PATH_MAX + 2];
	size_t n = strlen(p), k;

	if (n < 3 || strcmp(p + n - 3, "/**") != 0)
		return (0);
	memcpy(pre, p, n - 3);
	pre[n - 3] = '\0';
	if (pre[0] == '\0')
		return (1);		/* the whole file system */
	snprintf(anc, sizeof(anc), "%s", dir);
	for (k = strlen(anc); k > 0; ) {
		if (jh_glob(pre, anc, 1))
			return (1);
		while (k > 1 && anc[k - 1] != '/')
			k--;
		anc[k > 1 ? k - 1 : 1] = '\0';
		if (k <= 1)
			break;
		k = strlen(anc);
	}
	return (0);
}

static int
path_cb(const char *pat, const void *ctx)
{
	const struct pctx *c = ctx;
	char a[PATH_MAX * 2];
	size_t l;

	if (pat_abs(a, sizeof(a), pat, c->root, c->home) == -1)
		return (0);
	/* a tree's own path too: a search of .env is a read of .env */
	if (jh_path_match(a, NULL, c->path))
		return (1);
	if (!c->tree)
		return (0);
	if (covers(a, c->path))
		return (1);
	if (!c->touch)
		return (0);
	/*
	 * A tree meets a pattern whose literal part names a place in it
	 * (~/.ssh/ under a tree of the home), or the pattern's literal
	 * part holds the tree and the rest has no double star.  A pattern
	 * of a name anywhere (a double star and then a name) says nothing
	 * of a tree until it is listed, which the gate does not do.
	 */
	l = lit_len(a);
	if (strstr(a + l, "**") != NULL) {
		const char *name = a + l + 3;
		int any = strncmp(a + l, "**/", 3) == 0 &&
		    strchr(name, '/') == NULL && name[0] != '\0';
		while (l > 1 && a[l - 1] == '/')
			l--;
		a[l] = '\0';
		if (jh_path_under(a, c->path) && strcmp(a, c->path) != 0)
			return (1);
		/* **\/.env over a tree read only for *.pem, .en? */
		return (any && c->only != NULL && jh_path_under(c->path, a) &&
		    only_meets(c, name));
	}
	a[l] = '\0';
	return (jh_path_under(a, c->path) || jh_path_under(c->path, a) ||
	    (l > 0 && a[l - 1] == '/' && strncmp(c->path, a, l) == 0));
}

static int
path_hit(const struct jh_cbor *pats, const struct jh_action *act,
    const struct jh_effect *e, int touch)
{
	struct pctx c;

	if (e->path == NULL)
		return (0);
	c.root = act->root;
	c.home = act->home;
	c.path = e->path;
	c.tree = (e->flags & JH_EF_TREE) != 0;
	c.touch = touch;
	c.only = e->only;
	c.onlyfold = e->onlyfold;
	c.onlytop = (e->flags & JH_EF_ONLYTOP) != 0;
	return (each_text(pats, path_cb, &c));
}

static int
is_path_kind(int k)
{
	return (k == JH_E_READ || k == JH_E_WRITE || k == JH_E_DELETE);
}

static int
class_hit(const struct jh_cbor *classes, int kind)
{
	switch (kind) {
	case JH_E_READ:
		return (each_text(classes, eq_cb, "read") ||
		    each_text(classes, eq_cb, "search"));
	case JH_E_WRITE:
	case JH_E_DELETE:
		return (each_text(classes, eq_cb, "write") ||
		    each_text(classes, eq_cb, "edit"));
	}
	return (0);
}

/* Does a capability (not a literal command one) grant this effect? */
static int
cap_effect(const struct jh_cbor *cap, const struct jh_action *act,
    const struct jh_effect *e)
{
	const struct jh_cbor *v;

	if (cap == NULL || cap->type != JH_CBOR_MAP ||
	    jh_cbor_get(cap, "command") != NULL ||
	    jh_cbor_get(cap, "url") != NULL ||
	    jh_cbor_get(cap, "content_id") != NULL)
		return (0);
	if ((v = jh_cbor_get(cap, "effect")) != NULL) {
		if (!each_text(v, eq_cb, jh_eff_name(e->kind)))
			return (0);
	} else if ((v = jh_cbor_get(cap, "class")) == NULL ||
	    !class_hit(v, e->kind))
		return (0);
	if ((v = jh_cbor_get(cap, "tool")) != NULL && (act->tool == NULL ||
	    !each_text(v, glob_cb, act->tool)))
		return (0);
	if ((v = jh_cbor_get(cap, "program")) != NULL && (e->program == NULL ||
	    !each_text(v, glob_cb, e->program)))
		return (0);
	if ((v = jh_cbor_get(cap, "host")) != NULL && (e->kind != JH_E_NET ||
	    e->arg == NULL || !each_text(v, glob_cb, e->arg)))
		return (0);
	if ((v = jh_cbor_get(cap, "path")) != NULL) {
		if (!path_hit(v, act, e, 0))
			return (0);
	} else if (is_path_kind(e->kind))
		return (0);	/* a path effect needs a path grant */
	return (1);
}

struct litctx {
	char **w;
	size_t n;
	int open;
	int exact;
};

static int
lit_cb(const char *p, const void *ctx)
{
	struct litctx *c = (struct litctx *)ctx;

	if (!jh_cmd_match(p, c->w, c->n, c->open))
		return (0);
	c->exact = strpbrk(p, "*?[") == NULL;
	return (1);
}

/*
 * The literal command capability that names simple command c, or -1;
 * *exact: its pattern has no wildcard, so it grants all the command
 * does.
 */
static int
literal_cap(const struct jh_grant *g, const struct jh_action *act,
    const struct jh_sh_cmd *c, int *exact, int *glob_ok)
{
	char *w[512];
	size_t n = 0, k, i;
	struct litctx lc;
	const struct jh_cbor *cap, *v;

	for (k = 0; k < c->nassign && n < 512; k++)
		if (!jh_inert_env(c->assign[k].s))
			w[n++] = c->assign[k].s;
	for (k = 0; k < c->argc && n < 512; k++)
		w[n++] = c->argv[k].s;
	if (n == 0)
		return (-1);
	for (i = 0; g->caps != NULL && i < g->caps->len; i++) {
		cap = &g->caps->v[i];
		if ((v = jh_cbor_get(cap, "command")) == NULL)
			continue;
		if (jh_cbor_get(cap, "class") != NULL &&
		    !text_eq(jh_cbor_get(cap, "class"), "shell") &&
		    !each_text(jh_cbor_get(cap, "class"), eq_cb, "shell"))
			continue;
		if (jh_cbor_get(cap, "tool") != NULL && (act->tool == NULL ||
		    !each_text(jh_cbor_get(cap, "tool"), glob_cb, act->tool)))
			continue;
		if (jh_cbor_get(cap, "content_id") != NULL &&
		    (act->content_id == NULL || !each_text(jh_cbor_get(cap,
		    "content_id"), eq_cb, act->content_id)))
			continue;
		lc.w = w;
		lc.n = n;
		lc.open = (c->flags & JH_SHC_OPENARGS) != 0;
		lc.exact = 0;
		if (!each_text(v, lit_cb, &lc))
			continue;
		*exact = lc.exact;
		v = jh_cbor_get(cap, "glob");
		*glob_ok = v != NULL && v->type == JH_CBOR_UINT && v->u == 1;
		return ((int)i);
	}
	return (-1);
}

/*
 * What a literal command capability grants of its command's effects:
 * what it runs, and the paths it reads, writes and deletes inside the
 * project, but a write of a file that something executes; anywhere
 * else a path needs the capability of that path.
 */
static int
literal_grants(const struct jh_effect *e, int exact, const char *root)
{
	if (e->flags & JH_EF_REDIR)
		return (0);	/* the shell's, not the command's */
	if (is_path_kind(e->kind))
		return (e->program != NULL && e->path != NULL && root != NULL &&
		    jh_path_under(e->path, root) &&
		    !(e->flags & JH_EF_EXECUTED));
	if (exact)
		return (1);
	/* a redirect's or an assignment's effect is not the program's */
	if (e->program == NULL)
		return (0);
	switch (e->kind) {
	case JH_E_EXEC:
	case JH_E_NET:
	case JH_E_INSTALL:
	case JH_E_VCS_REMOTE:
		return (1);
	case JH_E_UNKNOWN:
		return ((e->flags & JH_EF_UNLISTED) != 0);
	}
	return (0);
}

static void
ckfail(struct jh_effck *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
ckfail(struct jh_effck *r, int code, const char *fmt, ...)
{
	va_list ap;

	if (r->code != 0)
		return;
	r->code = code;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/*
 * Appends " KEY=VALUE" to a hint, the value quoted for a POSIX shell
 * when it holds anything but the characters a shell leaves alone.
 */
static void
hint_kv(char *out, size_t sz, const char *key, const char *val)
{
	size_t l = strlen(out), i;
	int plain = val[0] != '\0';

	for (i = 0; val[i] != '\0'; i++)
		if (!isalnum((unsigned char)val[i]) &&
		    strchr("_./:@%+,=-", val[i]) == NULL)
			plain = 0;
	if (l + 1 >= sz)
		return;
	l += (size_t)snprintf(out + l, sz - l, "%s%s=%s", l ? " " : "", key,
	    plain ? "" : "'");
	for (i = 0; val[i] != '\0' && l + 5 < sz; i++) {
		if (val[i] == '\'') {
			memcpy(out + l, "'\\''", 4);
			l += 4;
		} else
			out[l++] = val[i];
	}
	if (!plain && l + 1 < sz)
		out[l++] = '\'';
	out[l < sz ? l : sz - 1] = '\0';
}

/*
 * A path as a grant's pattern names it: relative to the root inside the
 * project, ~/ in the home, else absolute; a tree with its ** .
 */
static void
hint_path(char *out, size_t sz, const char *path, int tree,
    const char *root, const char *home)
{
	const char *rel = NULL, *pre = "";
	size_t n;

	if (root != NULL && jh_path_under(path, root)) {
		n = strlen(root);
		rel = path[n] == '/' ? path + n + 1 : "";
	} else if (home != NULL && home[0] == '/' && jh_path_under(path,
	    home)) {
		n = strlen(home);
		rel = path[n] == '/' ? path + n + 1 : "";
		pre = "~/";
	}
	if (rel == NULL)
		snprintf(out, sz, "%s%s", path, tree ? "/**" : "");
	else if (rel[0] == '\0')
		snprintf(out, sz, "%s**", pre);
	else
		snprintf(out, sz, "%s%s%s", pre, rel, tree ? "/**" : "");
}

/*
 * The capability that would grant one effect, as the arguments of
 * jh-grant add (jh-grant(1)); empty where no line should: a redirect
 * (the shell's write, granted by its path's capability like any
 * other is suggested as such).  cmd is the simple command's text.
 */
static void
effect_hint(char *out, size_t sz, const struct jh_effect *e,
    const char *cmd, const char *root, const char *home)
{
	char v[PATH_MAX + 8];
	size_t i;

	int unlisted = e->program != NULL && !is_path_kind(e->kind) &&
	    strchr(e->program, '/') == NULL &&
	    jh_cmd_lookup(e->program) == NULL;

	out[0] = '\0';
	if (e->kind == JH_E_UNKNOWN || unlisted) {
		const char *sp;
		if (cmd == NULL || cmd[0] == '\0' || strlen(cmd) > 200)
			return;
		if (!unlisted)
			return;	/* what cannot be proved is never suggested */
		/* a program the table does not know: it and a subcommand */
		sp = strchr(cmd, ' ');
		snprintf(v, sizeof(v), "%.*s *", (int)(sp ? sp - cmd :
		    (ptrdiff_t)strlen(cmd)), cmd);
		if (sp != NULL && islower((unsigned char)sp[1])) {
			for (i = 1; islower((unsigned char)sp[i]) ||
			    isdigit((unsigned char)sp[i]) || sp[i] == '-'; i++)
				;
			if (sp[i] == ' ' || sp[i] == '\0')
				snprintf(v, sizeof(v), "%.*s *",
				    (int)(sp + i - cmd), cmd);
		}
		hint_kv(out, sz, "command", v);
		return;
	}
	hint_kv(out, sz, "effect", jh_eff_name(e->kind));
	if (e->program != NULL && !is_path_kind(e->kind))
		hint_kv(out, sz, "program", e->program);
	if (e->path != NULL) {
		hint_path(v, sizeof(v), e->path, (e->flags & JH_EF_TREE) != 0,
		    root, home);
		hint_kv(out, sz, "path", v);
	}
	if (e->kind == JH_E_NET && e->arg != NULL && strcmp(e->arg, "any") !=
	    0)
		hint_kv(out, sz, "host", e->arg);
}

/*
 * Adds one capability to a hint of several, joined by " + " as jh-grant
 * add takes them: once, and not beside a wider one (the same keys less
 * the last, "effect=net program=curl" covering "... host=x").
 */
static void
hint_add(char *out, size_t sz, const char *h)
{
	char *p, *q;
	size_t hl = strlen(h), pl;

	if (hl == 0)
		return;
	for (p = out; *p != '\0'; p = *q ? q + 3 : q) {
		if ((q = strstr(p, " + ")) == NULL)
			q = p + strlen(p);
		pl = (size_t)(q - p);
		if (pl <= hl && strncmp(p, h, pl) == 0 && (pl == hl ||
		    h[pl] == ' '))
			return;		/* it, or a wider one, is there */
		if (hl < pl && strncmp(p, h, hl) == 0 && p[hl] == ' ') {
			/* h is wider: it replaces this one */
			memmove(p + hl, q, strlen(q) + 1);
			return;
		}
	}
	if (strlen(out) + hl + 4 >= sz)
		return;
	if (out[0] != '\0')
		strcat(out, " + ");
	strcat(out, h);
}

/*
 * The capability that would grant an action of a file or other tool no
 * capability grants: its class and target, else its tool.
 */
void
jh_action_hint(char *out, size_t sz, const struct jh_action *act)
{
	char v[PATH_MAX + 8];

	out[0] = '\0';
	if (act->ntargets > 0 && act->class != NULL &&
	    strcmp(act->class, "other") != 0) {
		hint_kv(out, sz, "class", act->class);
		hint_path(v, sizeof(v), act->targets[0], 0, act->root,
		    act->home);
		hint_kv(out, sz, "path", v);
		return;
	}
	if (act->tool == NULL)
		return;
	hint_kv(out, sz, "tool", act->tool);
	if (act->url != NULL && strstr(act->url, "://") != NULL) {
		/* the site: scheme://host/ and what is under it */
		const char *h = strstr(act->url, "://") + 3;
		size_t n = (size_t)(h - act->url) + strcspn(h, "/?#");
		if (n < sizeof(v) - 3) {
			snprintf(v, sizeof(v), "%.*s/*", (int)n, act->url);
			hint_kv(out, sz, "url", v);
		}
	}
}

/* A person's words for one effect: "write /x (git)". */
void
jh_effect_text(char *out, size_t sz, const struct jh_effect *e)
{
	int anyhost = e->kind == JH_E_NET && e->arg != NULL &&
	    strcmp(e->arg, "any") == 0;

	char only[160] = "";

	/* a tree read only for a name: its name after the tree (*.pem) */
	if ((e->flags & JH_EF_TREE) && e->only != NULL)
		snprintf(only, sizeof(only), "/%s%.100s", e->flags &
		    JH_EF_ONLYTOP ? "" : "**/", e->only);
	else if (e->flags & JH_EF_TREE)
		snprintf(only, sizeof(only), "/**");
	snprintf(out, sz, "%s%s%.200s%s%s%s%s", jh_eff_name(e->kind),
	    e->path || (e->kind == JH_E_NET && e->arg) ? " " : "",
	    e->path ? e->path : anyhost ? "to any host" :
	    e->kind == JH_E_NET && e->arg ? e->arg : "", only,
	    e->program ? " (" : "", e->program ? e->program : "",
	    e->program ? ")" : "");
}

static void
cmd_text(char *out, size_t sz, const struct jh_sh_cmd *c)
{
	size_t k, l = 0;

	out[0] = '\0';
	for (k = 0; k < c->nassign + c->argc && l + 2 < sz; k++) {
		const char *s = k < c->nassign ? c->assign[k].s :
		    c->argv[k - c->nassign].s;
		if (k < c->nassign && jh_inert_env(s))
			continue;
		l += (size_t)snprintf(out + l, sz - l, "%s%s", l ? " " : "",
		    s);
	}
	if (l >= sz)
		l = sz - 1;
}

int
jh_effects_caps(struct jh_effck *r, const struct jh_grant *g,
    const struct jh_action *act, const struct jh_sh_script *sh,
    const struct jh_effects *ef)
{
	int lit[JH_EFF_MAXCMD], exact[JH_EFF_MAXCMD], gok[JH_EFF_MAXCMD];
	size_t i, j;
	int idx, nohint = 0;

	memset(r, 0, sizeof(*r));
	r->first_cap = -1;
	for (i = 0; i < JH_EFF_MAXCMD; i++) {
		exact[i] = gok[i] = 0;
		lit[i] = sh != NULL && i < sh->n ? literal_cap(g, act,
		    &sh->cmd[i], &exact[i], &gok[i]) : -1;
	}
	for (j = 0; j < ef->n; j++) {
		struct jh_effect *e = &ef->v[j];
		size_t ci = e->cmd;
		char t[400], ct[240], h[sizeof(r->hint)];

		idx = -1;
		if (ci < JH_EFF_MAXCMD && lit[ci] != -1 &&
		    literal_grants(e, exact[ci], act->root))
			idx = lit[ci];
		e->literal = idx != -1;
		for (i = 0; idx == -1 && g->caps != NULL && i < g->caps->len;
		    i++)
			if (cap_effect(&g->caps->v[i], act, e))
				idx = (int)i;
		if ((e->cap = idx) != -1) {
			if (r->first_cap == -1)
				r->first_cap = idx;
			continue;
		}
		r->ungranted++;
		if (sh != NULL && ci < sh->n)
			cmd_text(ct, sizeof(ct), &sh->cmd[ci]);
		else
			ct[0] = '\0';
		effect_hint(h, sizeof(h), e, ct, act->root, act->home);
		if (h[0] == '\0')
			nohint = 1;	/* a partial hint would mislead */
		hint_add(r->hint, sizeof(r->hint), h);
		if (e->kind == JH_E_UNKNOWN && !(e->flags & JH_EF_UNLISTED))
			ckfail(r, JH_D_UNPROVABLE, "%.300s", e->arg ? e->arg :
			    "unknown effect");
		else if (e->kind == JH_E_UNKNOWN)
			ckfail(r, JH_D_NOTGRANTED, "the command %.200s", ct);
		else {
			jh_effect_text(t, sizeof(t), e);
			ckfail(r, JH_D_NOTGRANTED, "%.300s", t);
		}
	}
	/* an unlisted program's globs: as the literal capability opts in */
	for (i = 0; sh != NULL && r->code == 0 && i < sh->n &&
	    i < JH_EFF_MAXCMD; i++) {
		const struct jh_sh_cmd *c = &sh->cmd[i];
		size_t k;
		if (lit[i] == -1 || gok[i] || c->argc == 0 ||
		    jh_cmd_lookup(c->argv[0].s) != NULL)
			continue;
		for (k = 0; k < c->argc; k++)
			if (c->argv[k].flags & (JH_SHW_GLOB | JH_SHW_BRACE |
			    JH_SHW_TILDE))
				ckfail(r, JH_D_UNPROVABLE, "'%.100s' expands "
				    "(glob, brace or tilde) and the capability "
				    "does not opt in with \"glob\":1",
				    c->argv[k].s);
	}
	if (nohint || r->code == JH_D_UNPROVABLE)
		r->hint[0] = '\0';
	if (r->first_cap == -1)
		for (i = 0; sh != NULL && i < sh->n && i < JH_EFF_MAXCMD; i++)
			if (lit[i] != -1) {
				r->first_cap = lit[i];
				break;
			}
	return (r->code);
}

int
jh_when_effect_keys(const struct jh_cbor *w)
{
	return (jh_cbor_get(w, "effect") != NULL ||
	    jh_cbor_get(w, "program") != NULL ||
	    jh_cbor_get(w, "executed") != NULL ||
	    jh_cbor_get(w, "except") != NULL);
}

/* One effect against a policy's when of effect keys. */
static int
when_effect(const struct jh_cbor *w, const struct jh_action *act,
    const struct jh_effect *e)
{
	const struct jh_cbor *v;

	/*
	 * A policy about paths is about what they hold: ls and stat, which
	 * read names and attributes only, do not meet it.
	 */
	if ((e->flags & JH_EF_META) && jh_cbor_get(w, "path") != NULL)
		return (0);
	if ((v = jh_cbor_get(w, "effect")) != NULL &&
	    !each_text(v, eq_cb, jh_eff_name(e->kind)))
		return (0);
	if ((v = jh_cbor_get(w, "program")) != NULL && (e->program == NULL ||
	    !each_text(v, glob_cb, e->program)))
		return (0);
	if ((v = jh_cbor_get(w, "executed")) != NULL && v->type ==
	    JH_CBOR_UINT && v->u == 1 && !(e->flags & JH_EF_EXECUTED))
		return (0);
	if ((v = jh_cbor_get(w, "path")) != NULL && !path_hit(v, act, e, 1))
		return (0);
	if ((v = jh_cbor_get(w, "except")) != NULL && path_hit(v, act, e, 0))
		return (0);
	if ((v = jh_cbor_get(w, "host")) != NULL && (e->kind != JH_E_NET ||
	    e->arg == NULL || !each_text(v, glob_cb, e->arg)))
		return (0);
	return (1);
}

int
jh_when_effects(const struct jh_cbor *w, const struct jh_action *act,
    const struct jh_effects *ef, const struct jh_effect **hit)
{
	const struct jh_cbor *cls, *pth;
	size_t i;

	if (w == NULL || w->type != JH_CBOR_MAP || ef == NULL)
		return (0);
	if (jh_when_effect_keys(w)) {
		if (jh_cbor_get(w, "command") != NULL ||
		    jh_cbor_get(w, "field") != NULL)
			return (0);	/* the caller matches those */
		if ((cls = jh_cbor_get(w, "class")) != NULL &&
		    !each_text(cls, eq_cb, act->class))
			return (0);
		if (jh_cbor_get(w, "tool") != NULL && (act->tool == NULL ||
		    !each_text(jh_cbor_get(w, "tool"), glob_cb, act->tool)))
			return (0);
		for (i = 0; i < ef->n; i++)
			if (when_effect(w, act, &ef->v[i])) {
				if (hit != NULL)
					*hit = &ef->v[i];
				return (1);
			}
		return (0);
	}
	/*
	 * A when of a file class and a path meets a shell line's reads or
	 * writes of those paths, as the Read or Write tool's would.
	 */
	if ((pth = jh_cbor_get(w, "path")) == NULL ||
	    jh_cbor_get(w, "command") != NULL || jh_cbor_get(w, "field") !=
	    NULL || jh_cbor_get(w, "tool") != NULL ||
	    strcmp(act->class, "shell") != 0)
		return (0);
	cls = jh_cbor_get(w, "class");
	for (i = 0; i < ef->n; i++) {
		const struct jh_effect *e = &ef->v[i];
		if (!is_path_kind(e->kind) || (e->flags & JH_EF_META) ||
		    (cls != NULL && !class_hit(cls, e->kind)))
			continue;
		if (path_hit(pth, act, e, 1)) {
			if (hit != NULL)
				*hit = e;
			return (1);
		}
	}
	return (0);
}

struct linkscan {
	char *out;
	size_t sz;
	char *const *protect;
	size_t nprotect;
	const char *root;
	const struct jh_effect *conf;	/* a write or delete of the tree */
	size_t seen;
	char path[PATH_MAX];
};

/*
 * A tree written or deleted that is too large or too deep to look
 * through for a host's configuration: as if it held one.
 */
static int
too_big(struct linkscan *ls)
{
	snprintf(ls->out, ls->sz, "%.200s holds more than %d entries, or "
	    "is nested deeper than 256, to look through for the host's "
	    "configuration, which is never granted: %s a smaller part of it",
	    ls->conf->path, JH_CONFSCAN, jh_eff_name(ls->conf->kind));
	return (1);
}

/*
 * One directory of the scan, path[0..len): readdir's d_type says which
 * entries are links and directories, so no entry is stat'ed unless the
 * file system does not say.  1 at a link into a protected place.
 */
static int
scan_dir(struct linkscan *ls, size_t len, int depth)
{
	char r[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	size_t n;
	int type, hit = 0;

	if (depth > 256 && ls->conf != NULL)
		return (too_big(ls));
	if (depth > 256 || (dp = opendir(ls->path)) == NULL)
		return (0);
	while (!hit && (d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (++ls->seen > (ls->conf != NULL ? JH_CONFSCAN :
		    JH_LINKSCAN)) {
			hit = ls->conf != NULL ? too_big(ls) : 0;
			break;
		}
		n = strlen(d->d_name);
		if (len + 1 + n >= sizeof(ls->path))
			continue;
		/* rm -f STAR.o: what the glob does not match is not reached */
		if (ls->conf != NULL && depth == 0 && ls->conf->only != NULL &&
		    (ls->conf->flags & JH_EF_ONLYTOP) &&
		    fnmatch(ls->conf->only, d->d_name, FNM_CASEFOLD) != 0)
			continue;
		ls->path[len] = '/';
		memcpy(ls->path + len + 1, d->d_name, n + 1);
		type = d->d_type;
		if (type == DT_UNKNOWN && lstat(ls->path, &st) == 0)
			type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ?
			    DT_DIR : DT_REG;
		/* sub/.claude under rm -rf sub: a host's, as sub/.claude is */
		if (ls->conf != NULL && jh_protected_name(d->d_name) &&
		    jh_path_protected(ls->protect, ls->nprotect, ls->root,
		    ls->path) && jh_only_reaches(ls->conf->path,
		    ls->conf->only, ls->conf->onlyfold, ls->conf->flags &
		    JH_EF_ONLYTOP, ls->path)) {
			snprintf(ls->out, ls->sz, "%.200s is protected (%s "
			    "%.200s reaches it): joulehook's own files and the "
			    "host's configuration are never granted", ls->path,
			    jh_eff_name(ls->conf->kind), ls->conf->path);
			hit = 1;
		} else if (type == DT_LNK && ls->seen <= JH_LINKSCAN) {
			if (realpath(ls->path, r) != NULL &&
			    jh_path_protected(ls->protect, ls->nprotect,
			    ls->root, r)) {
				snprintf(ls->out, ls->sz, "%.200s is a link into "
				    "%.200s, which is protected: joulehook's own "
				    "files and the host's configuration are never "
				    "granted", ls->path, r);
				hit = 1;
			}
		} else if (type == DT_DIR && !(ls->conf != NULL &&
		    ls->conf->kind == JH_E_DELETE &&
		    strcmp(d->d_name, "node_modules") == 0))
			/*
			 * rm -rf node_modules: what a package shipped is no
			 * configuration of the user's to keep
			 */
			hit = scan_dir(ls, len + 1 + n, depth + 1);
		ls->path[len] = '\0';
	}
	closedir(dp);
	return (hit);
}

/*
 * Whether a tree holds a symbolic link into a protected place: a program
 * that follows links (tar -h, grep -R, a host's search) would read or
 * write there.  At most JH_LINKSCAN entries are looked at; a larger
 * tree is checked only that far (joulehook-formats(5) says so).
 */
static int
tree_link(char *out, size_t sz, char *const *protect, size_t nprotect,
    const char *root, const char *dir, const struct jh_effect *conf)
{
	struct linkscan ls;
	struct stat st;
	size_t len = strlen(dir);

	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    len >= sizeof(ls.path))
		return (0);
	ls.out = out;
	ls.sz = sz;
	ls.protect = protect;
	ls.nprotect = nprotect;
	ls.root = root;
	ls.conf = conf;
	ls.seen = 0;
	memcpy(ls.path, dir, len + 1);
	while (len > 1 && ls.path[len - 1] == '/')
		ls.path[--len] = '\0';
	return (scan_dir(&ls, len, 0));
}

/* Whether a path is, or is under, a directory named node_modules. */
static int
in_node_modules(const char *p)
{
	const char *m;

	for (m = p; (m = strstr(m, "/node_modules")) != NULL; m++)
		if (m[13] == '/' || m[13] == '\0')
			return (1);
	return (0);
}

/*
 * Protection over effects: a path in a protected place, or a tree that
 * holds one.  A tree that is only read may hold the project's own host
 * configuration (root/.claude): that is configuration, not a secret.
 */
int
jh_effects_protected(char *out, size_t sz, char *const *protect,
    size_t nprotect, const char *root, const struct jh_effects *ef)
{
	char p[PATH_MAX + 16];
	struct stat st;
	size_t i, k, j;

	for (i = 0; i < ef->n; i++) {
		const struct jh_effect *e = &ef->v[i];
		int scanned = 0;
		if (e->path == NULL)
			continue;
		if (jh_path_protected(protect, nprotect, root, e->path))
			goto hit;
		if (!(e->flags & JH_EF_TREE))
			continue;
		/* find -name: only what a matching name reaches */
		for (k = 0; k < nprotect; k++)
			if (jh_path_under_fold(protect[k], e->path) &&
			    jh_only_reaches(e->path, e->only, e->onlyfold,
			    e->flags & JH_EF_ONLYTOP, protect[k]))
				goto hit;
		/*
		 * A tree under one already scanned is not scanned again; one
		 * written or deleted is scanned also for what of the host's
		 * configuration it holds, where that is protected by name.
		 */
		for (j = 0; j < i && !scanned; j++)
			scanned = (ef->v[j].flags & JH_EF_TREE) &&
			    ef->v[j].path != NULL &&
			    jh_path_under(e->path, ef->v[j].path);
		if ((e->kind == JH_E_WRITE || (e->kind == JH_E_DELETE &&
		    !in_node_modules(e->path))) &&
		    root != NULL ? tree_link(out,
		    sz, protect, nprotect, root, e->path, e) : (!scanned &&
		    tree_link(out, sz, protect, nprotect, root, e->path,
		    NULL)))
			return (1);
		if (e->kind == JH_E_READ || root == NULL)
			continue;
		/*
		 * A tree a program writes may hold the project's own host
		 * configuration: unless the program only rewrites files that
		 * are there (or runs them: PYTHONPATH=.), and root/.claude is
		 * not.
		 */
		snprintf(p, sizeof(p), "%s/.claude", root);
		if (jh_path_under_fold(p, e->path) && jh_only_reaches(e->path,
		    e->only, e->onlyfold, e->flags & JH_EF_ONLYTOP, p) &&
		    ((!(e->flags & JH_EF_INPLACE) && e->kind != JH_E_EXEC) ||
		    lstat(p, &st) == 0)) {
			snprintf(out, sz, "%.200s is protected (%s %.200s "
			    "reaches it): the host's configuration is never "
			    "granted", p, jh_eff_name(e->kind), e->path);
			return (1);
		}
		continue;
hit:
		snprintf(out, sz, "%.200s%s is protected: joulehook's own "
		    "files and the host's configuration are never granted",
		    e->path, e->flags & JH_EF_TREE ? " (and what is under "
		    "it)" : "");
		return (1);
	}
	return (0);
}

/* The effects of a file tool's action: its targets, by class. */
int
jh_action_effects(struct jh_effects *ef, const struct jh_action *act,
    struct jh_err *e)
{
	size_t i, n;
	int kind = -1, fl = 0;

	if (strcmp(act->class, "read") == 0)
		kind = JH_E_READ;
	else if (strcmp(act->class, "write") == 0 ||
	    strcmp(act->class, "edit") == 0)
		kind = JH_E_WRITE;
	else if (strcmp(act->class, "search") == 0) {
		kind = JH_E_READ;
		fl = JH_EF_TREE;
	}
	for (i = 0; kind != -1 && i < act->ntargets; i++) {
		struct stat st;
		int f = fl;
		if (kind == JH_E_WRITE && (jh_path_executed(act->targets[i]) ||
		    (act->lexexec != NULL && act->lexexec[i])))
			f |= JH_EF_EXECUTED;
		/*
		 * A read of a directory may read all of it (Windsurf's); a
		 * search of a file reads that file.
		 */
		if (kind == JH_E_READ && stat(act->targets[i], &st) == 0) {
			if (S_ISDIR(st.st_mode))
				f |= JH_EF_TREE;
			else
				f &= ~JH_EF_TREE;
		}
		n = ef->n;
		if (jh_effect_add(ef, kind, f, 0, act->targets[i], act->tool,
		    NULL, e) == -1)
			return (-1);
		/* a search for *.py reads only those (find -name's) */
		if (ef->n > n && (f & JH_EF_TREE) && act->only != NULL &&
		    (ef->v[n].only = strdup(act->only)) == NULL)
			return (jh_errf(e, "out of memory"));
	}
	/* a host pattern is matched against the URL's host, as in a shell */
	if (act->url != NULL && strcmp(act->class, "fetch") == 0) {
		char host[256];

		if (jh_url_host(act->url, host, sizeof(host)) == 0)
			snprintf(host, sizeof(host), "any");
		if (jh_effect_add(ef, JH_E_NET, 0, 0, NULL, act->tool, host,
		    e) == -1)
			return (-1);
	}
	return (0);
}

/* The effects as the decision/1 records them. */
json_t *
jh_effects_json(const struct jh_effects *ef, int rules)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; a != NULL && i < ef->n; i++) {
		const struct jh_effect *e = &ef->v[i];
		if ((o = json_object()) == NULL)
			break;
		json_object_set_new(o, "effect",
		    json_string(jh_eff_name(e->kind)));
		if (e->path != NULL)
			json_object_set_new(o, "path", json_string(e->path));
		if (e->program != NULL)
			json_object_set_new(o, "program",
			    json_string(e->program));
		if (e->arg != NULL)
			json_object_set_new(o, e->kind == JH_E_NET ? "host" :
			    "why", json_string(e->arg));
		if (e->flags & JH_EF_TREE)
			json_object_set_new(o, "tree", json_integer(1));
		if (e->only != NULL)
			json_object_set_new(o, "only", json_string(e->only));
		if (e->flags & JH_EF_META)
			json_object_set_new(o, "meta", json_integer(1));
		if (e->flags & JH_EF_EXECUTED)
			json_object_set_new(o, "executed", json_integer(1));
		if (rules) {
			char rule[32];
			snprintf(rule, sizeof(rule), "caps[%d]", e->cap);
			json_object_set_new(o, "cmd", json_integer(
			    (json_int_t)e->cmd));
			json_object_set_new(o, "rule", e->cap == -1 ?
			    json_null() : json_string(rule));
		}
		json_array_append_new(a, o);
	}
	return (a);
}
