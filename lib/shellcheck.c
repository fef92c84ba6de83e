/*
 * joulehook: a shell command line against the protected paths and a
 * grant's capabilities (DESIGN.md 4, SECURITY.md S1b, S6).
 *
 * The parsed line (shellparse.c) is checked word by word: joulehook's
 * own programs and protected places are refused before any grant, then
 * every simple command and every redirect must be granted.  A failure
 * leaves its JH_D_* code and reason in the struct jh_shck; jh_decide()
 * (gate.c) orders these checks among the others.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"

static int
shfail(struct jh_shck *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
shfail(struct jh_shck *s, int code, const char *fmt, ...)
{
	va_list ap;

	s->code = code;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
	return (code);
}

int
jh_path_protected(char *const *protect, size_t nprotect, const char *root,
    const char *path)
{
	char p[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < nprotect; i++)
		if (jh_path_under(path, protect[i]))
			return (1);
	if (root != NULL) {
		snprintf(p, sizeof(p), "%s/.claude", root);
		if (jh_path_under(path, p))
			return (1);
		snprintf(p, sizeof(p), "%s/.mcp.json", root);
		if (strcmp(path, p) == 0)
			return (1);
	}
	return (0);
}

/* The literal directory prefix of a glob pattern. */
void
jh_glob_prefix(char *out, size_t sz, const char *pat)
{
	size_t i, last = 0;
	int seen = 0;

	for (i = 0; pat[i] != '\0'; i++) {
		if (strchr("*?[{", pat[i]) != NULL)
			break;
		if (pat[i] == '/') {
			last = i;
			seen = 1;
		}
	}
	if (pat[i] == '\0') {
		snprintf(out, sz, "%s", pat);
		return;
	}
	if (!seen) {
		snprintf(out, sz, ".");
		return;
	}
	snprintf(out, sz, "%.*s", last == 0 ? 1 : (int)last, pat);
}

static const char *
cmd_base(char *buf, size_t sz, const char *cwd, const struct jh_sh_cmd *c)
{
	if (c->flags & JH_SHC_CWD_UNKNOWN)
		return (NULL);
	if (c->cwd == NULL)
		return (cwd);
	if (c->cwd[0] == '/')
		return (c->cwd);
	snprintf(buf, sz, "%s/%s", cwd, c->cwd);
	return (buf);
}

static int
word_bad(const struct jh_sh_word *w, int glob_ok, struct jh_shck *s)
{
	if (w->flags & JH_SHW_EXPAND)
		return (shfail(s, JH_D_UNPROVABLE, "'%.100s' is not literal: "
		    "its value is only known when it runs", w->s));
	if ((w->flags & (JH_SHW_GLOB | JH_SHW_BRACE | JH_SHW_TILDE)) &&
	    !glob_ok)
		return (shfail(s, JH_D_UNPROVABLE, "'%.100s' expands (glob, "
		    "brace or tilde) and the capability does not opt in "
		    "with \"glob\":1", w->s));
	return (0);
}

/*
 * Protection for a shell line: command words that are joulehook's own
 * programs, and any literal word (or the value after '=' in an option)
 * that resolves into a protected place.
 */
int
jh_shell_protected(struct jh_shck *s, const char *cwd,
    const struct jh_sh_script *sh)
{
	size_t i, k;
	char bbuf[PATH_MAX * 2], r[PATH_MAX + 1];
	struct jh_err e;

	for (i = 0; i < sh->n; i++) {
		const struct jh_sh_cmd *c = &sh->cmd[i];
		const char *base = cmd_base(bbuf, sizeof(bbuf), cwd, c);

		if (c->argc > 0) {
			const char *w = c->argv[0].s, *slash = strrchr(w, '/');
			if (strncmp(slash ? slash + 1 : w, "jh-", 3) == 0)
				return (shfail(s, JH_D_PROTECTED, "%.100s is "
				    "one of joulehook's own programs", w));
		}
		for (k = 0; k < c->argc + c->nredir; k++) {
			const struct jh_sh_word *w = k < c->argc ?
			    &c->argv[k] : &c->redir[k - c->argc].target;
			const char *p = w->s, *eq;

			if (p == NULL || *p == '\0' || (w->flags & JH_SHW_EXPAND))
				continue;
			if (p[0] == '-' && (eq = strchr(p, '=')) != NULL)
				p = eq + 1;
			if (p[0] != '/' && base == NULL)
				continue;
			if (jh_path_resolve(r, sizeof(r), base ? base : "/", p,
			    &e) == 0 && jh_path_protected(s->protect,
			    s->nprotect, s->root, r))
				return (shfail(s, JH_D_PROTECTED, "%.200s is "
				    "protected: joulehook's own files and the "
				    "host's configuration are never granted",
				    r));
		}
	}
	return (0);
}

/* A redirect target needs a capability of its own class. */
static int
redir_ok(struct jh_shck *s, const struct jh_grant *g,
    const struct jh_action *act, const char *base,
    const struct jh_sh_redir *r)
{
	char *t[1];
	char path[PATH_MAX + 1];
	struct jh_action sub = *act;
	struct jh_err e;
	struct stat st;
	const char *p = r->target.s;
	int rc;

	if (r->kind == JH_SHR_DUP || r->kind == JH_SHR_HEREDOC)
		return (0);
	if ((rc = word_bad(&r->target, 0, s)) != 0)
		return (rc);
	if (strcmp(p, "/dev/null") == 0 || strcmp(p, "/dev/stdout") == 0 ||
	    strcmp(p, "/dev/stderr") == 0 || strcmp(p, "/dev/stdin") == 0)
		return (0);
	if (strncmp(p, "/dev/tcp/", 9) == 0 || strncmp(p, "/dev/udp/", 9) == 0)
		return (shfail(s, JH_D_NOTGRANTED, "a redirect to %.100s is "
		    "network I/O", p));
	if (p[0] != '/' && base == NULL)
		return (shfail(s, JH_D_UNPROVABLE, "a relative redirect after "
		    "a cd this gate cannot follow"));
	if (jh_path_resolve(path, sizeof(path), base ? base : "/", p,
	    &e) == -1)
		return (shfail(s, JH_D_UNSAFE, "redirect %.100s: %s", p,
		    e.msg));
	json_array_append_new(s->targets, json_string(path));
	t[0] = path;
	sub.targets = t;
	sub.ntargets = 1;
	sub.class = r->kind == JH_SHR_READ ? "read" : "write";
	if (jh_find_cap(g, &sub, NULL, 0, 0) == -1) {
		sub.class = "edit";
		if (r->kind == JH_SHR_READ || jh_find_cap(g, &sub, NULL, 0,
		    0) == -1)
			return (shfail(s, JH_D_NOTGRANTED, "no capability to "
			    "%s %.200s", r->kind == JH_SHR_READ ? "read" :
			    "write", path));
	}
	if (r->kind == JH_SHR_WRITE && stat(path, &st) == 0 &&
	    (!S_ISREG(st.st_mode) || st.st_nlink != 1))
		return (shfail(s, JH_D_UNSAFE, "%.200s is not a regular file "
		    "with one link", path));
	return (0);
}

/* Every simple command of the line must be granted. */
int
jh_shell_caps(struct jh_shck *s, const struct jh_grant *g,
    const struct jh_action *act, const char *cwd,
    const struct jh_sh_script *sh, int *first_cap)
{
	char bbuf[PATH_MAX * 2], *w[512];
	size_t i, k, n;
	int rc, idx, globs;

	*first_cap = -1;
	/* What cannot be proven is named before what is not granted. */
	for (i = 0; i < sh->n; i++)
		for (k = 0; k < sh->cmd[i].argc + sh->cmd[i].nassign; k++) {
			const struct jh_sh_word *wd = k < sh->cmd[i].argc ?
			    &sh->cmd[i].argv[k] :
			    &sh->cmd[i].assign[k - sh->cmd[i].argc];
			if (wd->flags & JH_SHW_EXPAND)
				return (word_bad(wd, 0, s));
		}
	for (i = 0; i < sh->n; i++) {
		const struct jh_sh_cmd *c = &sh->cmd[i];
		const char *base = cmd_base(bbuf, sizeof(bbuf), cwd, c);

		n = 0;
		globs = 0;
		for (k = 0; k < c->nassign; k++) {
			if ((rc = word_bad(&c->assign[k], 0, s)) != 0)
				return (rc);
			if (!jh_inert_env(c->assign[k].s) && n < 512)
				w[n++] = c->assign[k].s;
		}
		for (k = 0; k < c->argc && n < 512; k++) {
			if (c->argv[k].flags & JH_SHW_EXPAND)
				return (word_bad(&c->argv[k], 0, s));
			if (c->argv[k].flags & (JH_SHW_GLOB | JH_SHW_BRACE |
			    JH_SHW_TILDE))
				globs = 1;
			w[n++] = c->argv[k].s;
		}
		if (n > 0 && !(c->nassign == 0 && c->argc > 0 &&
		    jh_free_builtin(c->argv[0].s))) {
			idx = jh_find_cap(g, act, w, n, (c->flags &
			    JH_SHC_OPENARGS) != 0);
			if (idx == -1) {
				char line[300];
				size_t l = 0;
				for (k = 0; k < n && l < sizeof(line) - 2; k++)
					l += (size_t)snprintf(line + l,
					    sizeof(line) - l, "%s%s", k ? " " :
					    "", w[k]);
				return (shfail(s, JH_D_NOTGRANTED, "command "
				    "not granted: %.200s", line));
			}
			if (globs) {
				const struct jh_cbor *gv = jh_cbor_get(
				    &g->caps->v[idx], "glob");
				int ok = gv != NULL && gv->type ==
				    JH_CBOR_UINT && gv->u == 1;
				for (k = 0; k < c->argc; k++)
					if ((rc = word_bad(&c->argv[k], ok,
					    s)) != 0)
						return (rc);
			}
			if (*first_cap == -1)
				*first_cap = idx;
		}
		for (k = 0; k < c->nredir; k++)
			if ((rc = redir_ok(s, g, act, base,
			    &c->redir[k])) != 0)
				return (rc);
	}
	return (0);
}

/*
 * Whether the command that will run is the grant's outcome command (the
 * task's test, say): one simple command that an outcome pattern matches.
 * Its result/1 then anchors the task-level efficiency unit (jh-meter(1)).
 */
int
jh_is_outcome(const struct jh_grant *g, const char *class, const json_t *in)
{
	struct jh_sh_script sh;
	struct jh_err e;
	json_t *v = json_object_get(in, "command");
	const char *cmd = json_is_string(v) ? json_string_value(v) : NULL;
	size_t i;
	int hit = 0;

	if (g->outcome == NULL || class == NULL || strcmp(class, "shell") != 0 ||
	    cmd == NULL || jh_sh_parse(&sh, cmd, strlen(cmd), &e) == -1)
		return (0);
	if (sh.n == 1 && sh.cmd[0].argc > 0 && sh.cmd[0].nassign == 0)
		for (i = 0; i < g->outcome->len && !hit; i++) {
			char pat[1024];
			const struct jh_cbor *p = &g->outcome->v[i];
			if (p->len >= sizeof(pat))
				continue;
			memcpy(pat, p->p, p->len);
			pat[p->len] = '\0';
			char *w[512];
			size_t k, n = sh.cmd[0].argc < 512 ? sh.cmd[0].argc : 512;
			for (k = 0; k < n; k++)
				w[k] = sh.cmd[0].argv[k].s;
			hit = jh_cmd_match(pat, w, n, 0);
		}
	jh_sh_free(&sh);
	return (hit);
}
