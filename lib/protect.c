/*
 * joulehook: the protected set, the paths no grant can reach
 * (jh-decide(1), The ordered check, step 2; jh-hook(1), protect=): the
 * gate's own files, its install, the hosts' configuration, and the
 * caller's -P, each resolved once.  gate.c checks targets and effects
 * against it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jh.h"
#include "paths.h"
#include "protect.h"

void
jh_protect_init(struct jh_protect *p)
{
	memset(p, 0, sizeof(*p));
}

void
jh_protect_free(struct jh_protect *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->path[i]);
	p->n = 0;
}

/* Keeps a path already resolved; there is no room past JH_PROTECT_MAX. */
static int
protect_keep(struct jh_protect *p, const char *resolved)
{
	if (p->n >= JH_PROTECT_MAX ||
	    (p->path[p->n] = strdup(resolved)) == NULL)
		return (-1);
	p->n++;
	return (0);
}

/* Adds a path, resolved; there is no room past JH_PROTECT_MAX. */
static int
protect_put(struct jh_protect *p, const char *path)
{
	char r[PATH_MAX + 1];
	struct jh_err e;

	if (p->n >= JH_PROTECT_MAX)
		return (-1);
	if (jh_path_resolve(r, sizeof(r), "/", path, &e) == -1)
		return (-1);
	return (protect_keep(p, r));
}

/*
 * A caller's own protected path (-P): absolute, and no more of them than
 * JH_PROTECT_ARGS, so room is always left for the built-in ones.
 */
int
jh_protect_add(struct jh_protect *p, const char *path, struct jh_err *e)
{
	if (path[0] != '/' || p->n >= JH_PROTECT_ARGS)
		return (jh_errf(e, "must be absolute, at most %d",
		    JH_PROTECT_ARGS));
	if (protect_put(p, path) == -1)
		return (jh_errf(e, "cannot resolve"));
	return (0);
}

/*
 * The paths never grantable: our own files (home, the state directory),
 * the install (this program's directory) and the hosts' configuration
 * ($HOME/.claude, .claude.json, .codex, .gemini, .cline, .cursor,
 * .codeium, .config/opencode and .opencode when HOME is absolute, and
 * CODEX_HOME).  One
 * that cannot be resolved is left out, as the gate has always done.
 */
void
jh_protect_builtin(struct jh_protect *p, const char *home,
    const char *statedir)
{
	jh_protect_builtin_at(p, home, statedir, NULL);
}

/*
 * Every host's own configuration under the user's home, where its hooks
 * live.  The home is resolved once: a name whose first part is not there
 * resolves to the home and the name as they are (jh_path_resolve keeps a
 * missing tail, and these hold no ".."), one lstat instead of a walk of
 * the whole path; any other is resolved in full.
 */
static void
protect_hosts(struct jh_protect *p, const char *uhome)
{
	static const char *const conf[] = { ".claude", ".claude.json",
	    ".codex", ".gemini", ".cline", ".cursor", ".codeium",
	    ".config/opencode", ".opencode", NULL };
	char home[PATH_MAX + 1], buf[2 * PATH_MAX + 2];
	const char *h;
	struct jh_err e;
	struct stat st;
	size_t i, k;

	if (jh_path_resolve(home, sizeof(home), "/", uhome, &e) == -1)
		home[0] = '\0';
	h = strcmp(home, "/") == 0 ? "" : home;
	for (i = 0; conf[i] != NULL; i++) {
		k = strcspn(conf[i], "/");
		if (home[0] != '\0' && (size_t)snprintf(buf, sizeof(buf),
		    "%s/%.*s", h, (int)k, conf[i]) < sizeof(buf) &&
		    lstat(buf, &st) == -1 && errno == ENOENT) {
			snprintf(buf, sizeof(buf), "%s/%s", h, conf[i]);
			if (strlen(buf) <= PATH_MAX)
				(void)protect_keep(p, buf);
			continue;
		}
		snprintf(buf, sizeof(buf), "%s/%s", uhome, conf[i]);
		(void)protect_put(p, buf);
	}
}

/* The same, with the install at exedir (NULL: this program's directory). */
void
jh_protect_builtin_at(struct jh_protect *p, const char *home,
    const char *statedir, const char *exedir)
{
	char exe[PATH_MAX], *end;
	const char *uhome;
	ssize_t n;

	(void)protect_put(p, home);
	(void)protect_put(p, statedir);
	if (exedir != NULL)
		(void)protect_put(p, exedir);
	else if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((end = strrchr(exe, '/')) != NULL && end != exe) {
			*end = '\0';
			(void)protect_put(p, exe);
		}
	}
	if ((uhome = getenv("HOME")) != NULL && uhome[0] == '/')
		protect_hosts(p, uhome);
	if ((uhome = getenv("CODEX_HOME")) != NULL && uhome[0] == '/')
		(void)protect_put(p, uhome);
}
