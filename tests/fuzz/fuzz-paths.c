/*
 * fuzz-paths: bytes -> the gate's path resolver and matchers
 * (lib/paths.c, jh_path_protected and jh_glob_prefix of
 * lib/shellcheck.c) in a scratch world with a symlink in it.  The paths
 * are the agent's (a tool's file_path, a command's operand); the patterns
 * are a grant's.  The first byte picks the base (the cwd, the project,
 * the home, "/", none, a relative one); the rest is split at newlines
 * into a path, a pattern and a directory.  Checked:
 *
 *   - a resolved path is absolute and lexically clean (no empty, "." or
 *     ".." component, no trailing slash), and resolving it again gives
 *     it back;
 *   - under and its case-folding twin agree with each other, and with
 *     themselves on lower-cased strings;
 *   - jh_glob agrees with fnmatch(3) on patterns of a, b, /, ., * and ?
 *     (with pathname set, where "**" is joulehook's own, on patterns
 *     without it), and a "**" for a "*" matches at least as much;
 *   - a glob prefix is a prefix of its pattern, or ".";
 *   - a path that resolves to the project's .claude, or to a file in it,
 *     is protected.
 *
 * jh_glob backtracks (a star tries every length), so its time grows as
 * a power of the length of what it matches, the power being the number
 * of stars: the patterns it is given here are cut at TAME_LEN bytes or
 * before a fifth star, and the strings at TAME_LEN bytes.
 */
#include "fuzz-common.h"

#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>

#include "jh.h"
#include "gate.h"
#include "paths.h"
#include "shellcheck.h"

#define TAME_LEN	128	/* glob operands: see above */
#define TAME_STARS	4
#define PROJ_MAX	48	/* projected glob operands */

static struct jh_protect protect;
static char claude[300];
static struct stat claude_st, settings_st;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[600], jh[300];

	(void)argc; (void)argv;
	fz_world("fuzz-paths", "resolve, under, glob and protection");
	snprintf(p, sizeof(p), "%s/.claude", fz_root);
	mkdir(p, 0700);
	fz_put(p, "settings.json", "{}\n");
	snprintf(p, sizeof(p), "%s/.claude/settings.json", fz_root);
	if (stat(p, &settings_st) == -1)
		abort();
	snprintf(p, sizeof(p), "%s/up", fz_cwd);
	if (symlink("..", p) == -1)
		perror("symlink");
	snprintf(claude, sizeof(claude), "%s/.claude", fz_root);
	if (stat(claude, &claude_st) == -1)
		abort();
	snprintf(jh, sizeof(jh), "%s/.config/joulehook", fz_home);
	jh_protect_init(&protect);
	jh_protect_builtin(&protect, jh, fz_base);
	return (0);
}

static void
clean(const char *r)
{
	size_t n = strlen(r);

	if (r[0] != '/' || (n > 1 && r[n - 1] == '/') ||
	    strstr(r, "//") != NULL || strstr(r, "/./") != NULL ||
	    strstr(r, "/../") != NULL || (n >= 2 &&
	    strcmp(r + n - 2, "/.") == 0) || (n >= 3 &&
	    strcmp(r + n - 3, "/..") == 0)) {
		fprintf(stderr, "resolved to an unclean path: %s\n", r);
		abort();
	}
}

static void
lower(char *out, const char *s, size_t sz)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i + 1 < sz; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

static void
under(const char *p, const char *dir)
{
	char lp[PATH_MAX * 2], ld[PATH_MAX * 2];
	int u = jh_path_under(p, dir), f = jh_path_under_fold(p, dir);

	if (u && !f)
		abort();
	lower(lp, p, sizeof(lp));
	lower(ld, dir, sizeof(ld));
	if (strlen(lp) != strlen(p) || strlen(ld) != strlen(dir))
		return;
	if (f != jh_path_under(lp, ld) || f != jh_path_under_fold(lp, ld))
		abort();
	if (p[0] == '/' && !jh_path_under(p, p))
		abort();
}

/* At most max bytes of s, and for a pattern, up to its fifth star. */
static void
tame(char *out, const char *s, size_t max, int pattern)
{
	size_t i;
	int stars = 0;

	for (i = 0; s[i] != '\0' && i < max; i++) {
		if (pattern && s[i] == '*' && ++stars > TAME_STARS)
			break;
		out[i] = s[i];
	}
	out[i] = '\0';
}

/* s mapped onto an alphabet whose glob meaning fnmatch(3) shares. */
static void
project(char *out, const char *s, const char *abc, int nostar2)
{
	size_t i, k = 0, m = strlen(abc);

	int stars = 0;

	for (i = 0; s[i] != '\0' && k < PROJ_MAX; i++) {
		char c = abc[(unsigned char)s[i] % m];
		if (nostar2 && c == '*' && k > 0 && out[k - 1] == '*')
			continue;
		if (c == '*' && ++stars > TAME_STARS)
			break;
		out[k++] = c;
	}
	out[k] = '\0';
}

static void
glob(const char *rawpat, const char *raws)
{
	char p[PROJ_MAX + 1], t[PROJ_MAX + 1], w[2 * PROJ_MAX + 2];
	char pat[TAME_LEN + 1], s[TAME_LEN + 1];
	size_t i, k;
	int pn, jg, fm;

	tame(pat, rawpat, TAME_LEN, 1);
	tame(s, raws, TAME_LEN, 0);
	(void)jh_glob(pat, s, 0);
	(void)jh_glob(pat, s, 1);
	(void)jh_path_match(pat, fz_root, s);
	(void)jh_path_match(pat, "/", s);
	for (pn = 0; pn < 2; pn++) {
		project(p, pat, "ab/.*?", pn);
		project(t, s, "ab/.", 0);
		jg = jh_glob(p, t, pn);
		fm = fnmatch(p, t, pn ? FNM_PATHNAME : 0) == 0;
		if (jg != fm) {
			fprintf(stderr, "jh_glob(\"%s\", \"%s\", %d) = %d, "
			    "fnmatch %d\n", p, t, pn, jg, fm);
			abort();
		}
		if (!pn || !jg)
			continue;
		/* each lone star widened to two matches at least as much */
		for (i = 0; p[i] != '\0'; i++) {
			if (p[i] != '*')
				continue;
			memcpy(w, p, i);
			w[i] = '*';
			for (k = i; p[k] != '\0'; k++)
				w[k + 1] = p[k];
			w[k + 1] = '\0';
			if (!jh_glob(w, t, 1)) {
				fprintf(stderr, "\"%s\" matches \"%s\", \"%s\" "
				    "does not\n", p, t, w);
				abort();
			}
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const char *const rel = "src";
	const char *base, *part[3] = { "", "", "" };
	char *buf, *s, *nl, r[PATH_MAX + 1], r2[PATH_MAX + 1], pre[PATH_MAX];
	struct jh_err e;
	struct stat st;
	size_t i;

	if (n < 1 || (buf = malloc(n)) == NULL)
		return (0);
	switch (d[0] % 8) {
	case 1: base = fz_root; break;
	case 2: base = fz_home; break;
	case 3: base = "/"; break;
	case 4: base = NULL; break;
	case 5: base = rel; break;
	default: base = fz_cwd; break;
	}
	memcpy(buf, d + 1, n - 1);
	buf[n - 1] = '\0';
	for (s = buf, i = 0; i < 3 && s != NULL; i++) {
		part[i] = s;
		if ((nl = strchr(s, '\n')) != NULL)
			*nl++ = '\0';
		s = nl;
	}

	if (jh_path_resolve(r, sizeof(r), base, part[0], &e) == 0) {
		clean(r);
		if (jh_path_resolve(r2, sizeof(r2), "/", r, &e) == 0) {
			if (strcmp(r, r2) != 0) {
				fprintf(stderr, "%s resolves to %s, that to "
				    "%s\n", part[0], r, r2);
				abort();
			}
		} else if (strstr(e.msg, "too long") == NULL) {
			fprintf(stderr, "%s resolves to %s, that does not: "
			    "%s\n", part[0], r, e.msg);
			abort();
		}
		if ((jh_path_under_fold(r, claude) || (stat(r, &st) == 0 &&
		    ((st.st_dev == claude_st.st_dev &&
		    st.st_ino == claude_st.st_ino) ||
		    (st.st_dev == settings_st.st_dev &&
		    st.st_ino == settings_st.st_ino)))) &&
		    !jh_path_protected(protect.path, protect.n, fz_root, r)) {
			fprintf(stderr, "%s resolves to %s, .claude, which is "
			    "not protected\n", part[0], r);
			abort();
		}
		under(r, part[2][0] != '\0' ? part[2] : fz_root);
		glob(part[1], r);
	} else if (memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
		abort();
	under(part[0], part[2]);
	glob(part[1], part[0]);
	jh_glob_prefix(pre, sizeof(pre), part[1]);
	if (strcmp(pre, ".") != 0 && strncmp(pre, part[1], strlen(pre)) != 0)
		abort();
	(void)jh_path_protected(protect.path, protect.n, fz_root, part[0]);
	free(buf);
	return (0);
}
