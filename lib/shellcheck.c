/*
 * joulehook: a shell command line against the protected paths, and
 * whether it is the grant's outcome command (jh-decide(1),
 * Protected paths and Shell commands).
 *
 * The parsed line (shellparse.c) is checked word by word: joulehook's
 * own programs and protected places are refused before any grant.  What
 * the line does is then decided by its effects (effects.c, effgrant.c).
 * A failure leaves its JH_D_* code and reason in the struct jh_shck;
 * jh_decide() (gate.c) orders these checks among the others.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "jh.h"
#include "cbor.h"
#include "decide.h"
#include "paths.h"
#include "shellcheck.h"
#include "shellparse.h"

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

/*
 * Whether a part of rel (a path below the root) is a host's
 * configuration by name (jh_protected_names, any case): each host also
 * loads its own from where it starts, which may be below the root (a
 * .claude's skills and agents, a .gemini's settings, a .codex's
 * config.toml from every directory down to where Codex starts, an
 * opencode.json).
 */
static int
nested_conf(const char *rel)
{
	char part[NAME_MAX + 1];
	const char *p = rel;
	size_t k;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		k = strcspn(p, "/");
		if (k > 0 && k <= NAME_MAX) {
			memcpy(part, p, k);
			part[k] = '\0';
			if (jh_protected_name(part))
				return (1);
		}
		p += k;
	}
	return (0);
}

const char *const jh_protected_names[] = { ".claude", ".codex", ".gemini",
    ".cursor", ".windsurf", ".clinerules", ".agents", ".agent",
    ".opencode", ".mcp.json", "opencode.json", "opencode.jsonc", NULL };

int
jh_protected_name(const char *n)
{
	char f[NAME_MAX + 1];
	size_t i;
	int r;

	if ((r = jh_path_fold_letters(f, sizeof(f), n)) == -1)
		return (1);
	if (r == 1)
		n = f;
	for (i = 0; jh_protected_names[i] != NULL; i++)
		if (strcasecmp(n, jh_protected_names[i]) == 0)
			return (1);
	return (0);
}

static int	path_protected(char *const *, size_t, const char *,
		    const char *);

/*
 * Ignoring case as macOS's file system does: ASCII, and the two letters
 * outside it that it takes as ASCII ones (jh_path_fold_letters).
 */
int
jh_path_protected(char *const *protect, size_t nprotect, const char *root,
    const char *path)
{
	char f[PATH_MAX * 2];
	int r;

	if ((r = jh_path_fold_letters(f, sizeof(f), path)) == -1)
		return (1);
	return (path_protected(protect, nprotect, root, r == 1 ? f : path));
}

static int
path_protected(char *const *protect, size_t nprotect, const char *root,
    const char *path)
{
	char p[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < nprotect; i++)
		if (jh_path_under_fold(path, protect[i]))
			return (1);
	if (root != NULL) {
		/* every bound host's project configuration: its hooks */
		static const char *const dirs[] = { ".claude", ".codex",
		    ".gemini", ".cursor", ".windsurf", ".clinerules",
		    ".agents", ".agent", ".opencode", NULL };
		/* and the project's opencode.json, whose plugins OpenCode runs */
		static const char *const files[] = { ".mcp.json",
		    "opencode.json", "opencode.jsonc", NULL };
		for (i = 0; dirs[i] != NULL; i++) {
			snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
			if (jh_path_under_fold(path, p))
				return (1);
		}
		for (i = 0; files[i] != NULL; i++) {
			snprintf(p, sizeof(p), "%s/%s", root, files[i]);
			if (strcasecmp(path, p) == 0)
				return (1);
		}
		/* and the same found deeper in the project */
		if (jh_path_under(path, root) && nested_conf(path +
		    strlen(root)))
			return (1);
	}
	return (0);
}

/*
 * Whether a glob pattern may climb above its literal directory prefix:
 * from its first wildcard on, a "..", a bracket that may match '.' (one
 * holding a '.', a range, a class or a negation: [.][.] is "..") or a
 * brace holding a '.' or a '/' ({.,x}{.,y} makes ".."), as the globs of
 * the hosts' file tools expand them.  *.[ch] and *.{ts,tsx} do not.
 */
int
jh_glob_climbs(const char *pat)
{
	const char *p = pat + strcspn(pat, "*?[{"), *b, *e;

	if (*p == '\0')
		return (0);
	while (p > pat && p[-1] != '/')
		p--;
	if (strstr(p, "..") != NULL)
		return (1);
	for (b = strchr(p, '['); b != NULL; b = strchr(b + 1, '[')) {
		if (b[1] == '!' || b[1] == '^')
			return (1);
		for (e = b + 1; *e != '\0' && (*e != ']' || e == b + 1); e++)
			if (*e == '.' || *e == '-' || *e == '[' || *e == '/' ||
			    *e == '\\')
				return (1);
	}
	for (b = strchr(p, '{'); b != NULL; b = strchr(b + 1, '{'))
		for (e = b + 1; *e != '\0' && *e != '}'; e++)
			if (*e == '.' || *e == '/' || *e == '{' || *e == '[')
				return (1);
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
