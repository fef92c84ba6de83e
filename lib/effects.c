/*
 * joulehook: what a shell line does, by the command table (effects.h,
 * cmdtab.h; jh-decide(1) "Effects").
 *
 * Each simple command the parser listed is read word by word against its
 * table entry: options (short, clustered, long, abbreviated, with their
 * values attached or not), subcommands, operands by position, and the
 * redirections.  Every path is resolved as the file tools' paths are,
 * against the directory the command runs in.  What the table does not
 * know, and every value only known when the line runs, is an effect of
 * kind unknown with its reason: never a guess.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fts.h>
#include <glob.h>

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "cmdtab.h"
#include "decide.h"
#include "effects.h"
#include "paths.h"
#include "shellcheck.h"
#include "shellparse.h"
#include "util.h"

#define MAX_OPTS	192	/* option specs in one entry */
#define MAX_RULES	8	/* operand rules in one entry */
#define MAX_OPERANDS	512
#define MAX_NEST	8	/* commands run by commands (npx, -m, P) */
#define MAX_FIND	4	/* paths of a find its -exec's {} stands for */
#define FIND_NAME	128	/* the longest -name kept as a tree's filter */
#define MAX_MKLINK	16	/* links one line makes, followed later */
#define MAX_SCRIPTS	8	/* paths a line must not change (kept_path) */

static const char *const kind_names[JH_E_NKINDS] = { "read", "write",
    "delete", "exec", "net", "install", "vcs-local-destroy",
    "vcs-history-rewrite", "vcs-remote", "vcs-remote-force", "unknown" };

/*
 * Environment names a command may be given without changing what it
 * runs or where it writes (beyond jh_inert_env's locale and terminal).
 */
static const char *const quiet_env[] = { "NODE_ENV", "RUST_BACKTRACE",
    "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED", "CGO_ENABLED", "GOOS", "GOARCH",
    "DEBUG", "VERBOSE", "HUSKY", "CARGO_TERM_COLOR", "JEST_WORKER_ID",
    "NO_UPDATE_NOTIFIER", "GIT_TERMINAL_PROMPT", "PORT", "LOG_LEVEL",
    "RAILS_ENV", "APP_ENV", "FLASK_DEBUG", "NEXT_TELEMETRY_DISABLED", NULL };

/*
 * The text of the word s as a path from the directory dir: s itself
 * where it is absolute.  -1 where it does not fit in sz.
 */
static int
word_path(char *out, size_t sz, const char *dir, const char *s)
{
	int n;

	n = s[0] == '/' ? snprintf(out, sz, "%s", s) :
	    snprintf(out, sz, "%s/%s", dir, s);
	return (n >= 0 && (size_t)n < sz ? 0 : -1);
}

/*
 * A value that names no path, option or file: letters, digits and
 * "_.+-", not starting with '-' (ON, Debug, 17, address).
 */
static int
plain_value(const char *v, size_t n)
{
	size_t i;

	if (n > 0 && v[0] == '-')
		return (0);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && strchr("_.+-", v[i]) ==
		    NULL)
			return (0);
	return (1);
}

static int
in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l != NULL; l++)
		if (strlen(*l) == n && strncmp(*l, s, n) == 0)
			return (1);
	return (0);
}

static int
ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return (n >= k && strncmp(s + n - k, suf, k) == 0);
}

/* /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/0 to 2, /dev/null. */
static int
std_stream(const char *s)
{
	static const char *const names[] = { "/dev/stdin", "/dev/stdout",
	    "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2", "/dev/null",
	    NULL };

	return (in_list(names, s, strlen(s)));
}

/*
 * pytest --cov-report TYPE[:skip-covered] with no destination: printed,
 * or written where coverage writes by default, in the project.
 */
static int
cov_report(const char *v)
{
	static const char *const types[] = { "term", "term-missing", "html",
	    "xml", "json", "lcov", "annotate", "markdown", "markdown-append",
	    NULL };
	size_t n = strcspn(v, ":");

	return (in_list(types, v, n) && (v[n] == '\0' ||
	    strcmp(v + n, ":skip-covered") == 0));
}

/* A ".." that is a whole part of a pattern's path (not {1..3}). */
static int
climbs(const char *g)
{
	const char *d;

	for (d = g; (d = strstr(d, "..")) != NULL; d += 2)
		if ((d == g || strchr("/{,", d[-1]) != NULL) &&
		    strchr("/,}", d[2]) != NULL)	/* or its NUL */
			return (1);
	return (0);
}

/*
 * A part of a glob that may match "..": one that starts with a dot (.*,
 * .?*, .{.,x}).  bash before 5.2, and 5.2 without globskipdots, gives
 * ".." to .* as to ls -a, so .*\/x reaches the parent's x.
 */
static int
dot_climbs(const char *w)
{
	const char *p = w;
	char part[NAME_MAX + 1];
	size_t k;

	for (; *p != '\0'; p += k + (p[k] == '/')) {
		k = strcspn(p, "/");
		if (p[0] != '.' || strcspn(p, "*?[{") >= k)
			continue;
		if (k > NAME_MAX || memchr(p, '{', k) != NULL)
			return (1);
		memcpy(part, p, k);
		part[k] = '\0';
		if (fnmatch(part, "..", 0) == 0)
			return (1);
	}
	return (0);
}


/* Programs that read more options from an @FILE operand. */
static const char *const respfile[] = { "cc", "c++", "gcc", "g++", "clang",
    "clang++", "cpp", "ld", "ld.bfd", "ld.gold", "ld.lld", "lld", "as",
    "ar", "nm", "objdump", "objcopy", "readelf", "size", "strip", "rustc",
    "javac", "java", NULL };

/*
 * CFLAGS='-O0 -g -fsanitize=address': options that only change how the
 * compiler builds, by a list of what is allowed, as GCC and Clang have
 * long aliases of what writes, loads or runs (--prefix is -B, --include
 * is -include, -fopt-info-all=FILE writes FILE): optimization, debug
 * info, warnings (not -Wl, -Wa, -Wp), a standard, machine options,
 * macros, search directories, libraries, and features without a value
 * or with one of a few inert ones.  Nothing that starts with "--".
 */
static int
compiler_flags(const char *v)
{
	static const char *const word[] = { "-pthread", "-pedantic",
	    "-pedantic-errors", "-ansi", "-pipe", "-shared", "-static",
	    "-rdynamic", "-w", "-fPIC", "-fpic", "-fPIE", "-fpie", "-pie",
	    "-no-pie", NULL };
	/* these take any value of the safe characters */
	static const char *const pre[] = { "-O", "-g", "-D", "-U", "-std=",
	    "-I", "-L", "-l", "-march=", "-mtune=", "-mcpu=", "-msse",
	    "-mavx", "-mfpu=", "-mfloat-abi=", "-m32", "-m64", "-mno-",
	    "-fsanitize=", "-fno-sanitize=", "-fsanitize-recover=",
	    "-fno-sanitize-recover=", "-fvisibility=", "-fdiagnostics-color=",
	    "-fmessage-length=", "-fcf-protection=", "-flto=",
	    "-ftrivial-auto-var-init=", "-fstack-protector", NULL };
	/* -fNAME (and -fno-NAME) without a value, but these, which write,
	 * load or run */
	static const char *const fbad[] = { "-fplugin", "-fpass-plugin",
	    "-fprofile", "-fdump", "-fopt-info", "-fsave", "-ftime-trace",
	    "-fuse-ld", "-fcoverage", "-fcallgraph", "-fproc-stat",
	    "-fcrash", "-fdebug-prefix", "-fmodule", "-fimplicit-module",
	    "-fprebuilt", "-fembed", "-frecord", "-fstack-usage", NULL };
	const char *t;
	size_t n, i;
	int ok;

	for (t = v; *t != '\0'; t += n) {
		t += strspn(t, " ");
		if ((n = strcspn(t, " ")) == 0)
			break;
		if (t[0] != '-' || t[1] == '-')
			return (0);
		for (i = 0; i < n; i++)
			if (!isalnum((unsigned char)t[i]) &&
			    strchr("_.,=+:-/", t[i]) == NULL)
				return (0);
		ok = 0;
		for (i = 0; !ok && word[i] != NULL; i++)
			ok = strlen(word[i]) == n && strncmp(t, word[i], n) == 0;
		for (i = 0; !ok && pre[i] != NULL; i++)
			ok = strncmp(t, pre[i], strlen(pre[i])) == 0;
		/* -lNAME, never -l:FILE (a file of any path, linked in) */
		if (ok && t[1] == 'l' && memchr(t, ':', n) != NULL)
			ok = 0;
		if (ok && t[1] == 'l' && memchr(t, '/', n) != NULL)
			ok = 0;
		/* -Wall, -Wno-unused, -Werror=format: not -Wl, -Wa, -Wp, */
		if (!ok && t[1] == 'W' && n > 2 && memchr(t, ',', n) == NULL)
			ok = 1;
		if (!ok && t[1] == 'f' && memchr(t, '=', n) == NULL &&
		    memchr(t, ',', n) == NULL) {
			ok = 1;
			for (i = 0; ok && fbad[i] != NULL; i++)
				if (strncmp(t, fbad[i], strlen(fbad[i])) == 0)
					ok = 0;
		}
		if (!ok)
			return (0);
	}
	return (1);
}

/*
 * make NAME=value overrides the makefile's NAME wherever a recipe uses
 * it (CC='curl ...|sh;cc'): only a plain value, and not one of make's
 * own settings (MAKEFLAGS, MAKEFILES, SHELL, .SHELLFLAGS), is inert.
 */
static int
make_override(const struct jh_sh_word *w)
{
	static const char *const own[] = { "MAKEFLAGS", "MFLAGS",
	    "GNUMAKEFLAGS", "MAKEFILES", "MAKE", "SHELL", ".SHELLFLAGS",
	    "MAKESHELL", NULL };
	const char *eq = strchr(w->s, '=');
	size_t n;

	if (eq == NULL || w->s[0] == '-')
		return (0);
	n = (size_t)(eq - w->s);
	if (n > 0 && strchr(":+?!", w->s[n - 1]) != NULL)
		n--;
	if ((w->flags & JH_SHW_EXPAND) || in_list(own, w->s, n))
		return (1);
	if (n >= 5 && strncmp(w->s + n - 5, "FLAGS", 5) == 0)
		return (!compiler_flags(eq + 1));
	return (!plain_value(eq + 1, strlen(eq + 1)));
}

/* A yes or no, a feature state or a count: ON, false, enabled, 17. */
static int
switch_value(const char *v)
{
	static const char *const words[] = { "on", "off", "true", "false",
	    "yes", "no", "y", "n", "enabled", "disabled", "auto", NULL };
	size_t i;

	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(v, words[i]) == 0)
			return (1);
	for (i = 0; isdigit((unsigned char)v[i]); i++)
		continue;
	return (i > 0 && v[i] == '\0');
}

/* NAME of letters, digits and '_' that names no program to run. */
static int
option_name(const char *s, size_t n)
{
	static const char *const runs[] = { "EXECUTABLE", "COMMAND",
	    "COMPILER", "LAUNCHER", "PROGRAM", "executable", "command",
	    "compiler", "launcher", "program", NULL };
	size_t i;

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return (0);
	for (i = 0; runs[i] != NULL; i++)
		if (ends_with(s, n, runs[i]))
			return (0);
	return (n > 0);
}

/*
 * A build definition that only picks among what the project's own build
 * files offer: cmake -D NAME[:TYPE]=VALUE and meson -D NAME=VALUE.  The
 * build system's own settings can name a compiler, a launcher, a file
 * to include or where to install, so only those listed here are taken,
 * with a plain value; any other (a project's option) only with a yes,
 * a no or a count, and never one named for a program it runs
 * (GIT_EXECUTABLE=sh would run a file of the tree).  1 when inert.
 */
static int
inert_define(const char *prog, const struct jh_sh_word *w)
{
	static const char *const cmake_vars[] = { "CMAKE_BUILD_TYPE",
	    "CMAKE_EXPORT_COMPILE_COMMANDS", "CMAKE_C_STANDARD",
	    "CMAKE_CXX_STANDARD", "CMAKE_CXX_STANDARD_REQUIRED",
	    "CMAKE_C_STANDARD_REQUIRED", "CMAKE_C_EXTENSIONS",
	    "CMAKE_CXX_EXTENSIONS", "CMAKE_POSITION_INDEPENDENT_CODE",
	    "CMAKE_VERBOSE_MAKEFILE", "CMAKE_COLOR_DIAGNOSTICS",
	    "CMAKE_INTERPROCEDURAL_OPTIMIZATION", "CMAKE_UNITY_BUILD",
	    "CMAKE_COMPILE_WARNING_AS_ERROR", "CMAKE_MESSAGE_LOG_LEVEL",
	    NULL };
	static const char *const meson_opts[] = { "buildtype",
	    "optimization", "debug", "werror", "warning_level",
	    "default_library", "b_sanitize", "b_lto", "b_ndebug",
	    "b_coverage", "b_pie", "b_staticpic", "b_asneeded", "b_lundef",
	    "b_colorout", "c_std", "cpp_std", "unity", "strip",
	    "auto_features", NULL };
	const char *const *builtin;
	const char *s = w->s, *eq;
	size_t n;

	if (strcmp(prog, "cmake") == 0)
		builtin = cmake_vars;
	else if (strcmp(prog, "meson") == 0)
		builtin = meson_opts;
	else
		return (0);
	if (w->flags != 0 || (eq = strchr(s, '=')) == NULL ||
	    !plain_value(eq + 1, strlen(eq + 1)))
		return (0);
	/* cmake's NAME:TYPE */
	n = builtin == cmake_vars ? strcspn(s, ":=") : (size_t)(eq - s);
	if (s[n] == ':' && !plain_value(s + n + 1, (size_t)(eq - s) - n - 1))
		return (0);
	if (in_list(builtin, s, n))
		return (1);
	return (option_name(s, n) && switch_value(eq + 1) &&
	    strncmp(s, "CMAKE_", 6) != 0);
}

/*
 * ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 and the other sanitizers'
 * settings: inert when every flag is one that only changes what is
 * checked and reported, with a plain value.  A log path, a symbolizer
 * path, a suppressions or include file and a coverage directory name
 * files, and are never taken.
 */
static int
inert_sanitizer(const char *s, size_t l, const struct jh_sh_word *w)
{
	static const char *const vars[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS",
	    "LSAN_OPTIONS", "TSAN_OPTIONS", "MSAN_OPTIONS", NULL };
	static const char *const flags[] = { "abort_on_error",
	    "allocator_may_return_null", "alloc_dealloc_mismatch",
	    "check_initialization_order", "color", "detect_container_overflow",
	    "detect_invalid_pointer_pairs", "detect_leaks",
	    "detect_odr_violation", "detect_stack_use_after_return",
	    "detect_stack_use_after_scope", "exitcode",
	    "fast_unwind_on_malloc", "halt_on_error", "handle_abort",
	    "handle_segv", "handle_sigbus", "handle_sigfpe", "handle_sigill",
	    "history_size", "leak_check_at_exit", "malloc_context_size",
	    "max_leaks", "new_delete_type_mismatch", "poison_heap",
	    "print_stacktrace", "print_stats", "print_summary",
	    "print_suppressions", "quarantine_size_mb", "report_globals",
	    "report_objects", "report_signal_unsafe", "second_deadlock_stack",
	    "silence_unsigned_overflow", "strict_init_order",
	    "strict_string_checks", "symbolize", "use_sigaltstack",
	    "verbosity", NULL };
	const char *v, *eq;
	size_t n;

	if (w->flags != 0 || s[l] != '=' || !in_list(vars, s, l))
		return (0);
	for (v = s + l + 1; *v != '\0'; v += n + (v[n] != '\0')) {
		n = strcspn(v, ":, ");
		if (n == 0)
			continue;
		if ((eq = memchr(v, '=', n)) == NULL || !in_list(flags, v,
		    (size_t)(eq - v)) || !plain_value(eq + 1,
		    (size_t)(v + n - eq - 1)))
			return (0);
	}
	return (1);
}

const char *
jh_eff_name(int k)
{
	return (k >= 0 && k < JH_E_NKINDS ? kind_names[k] : "unknown");
}

int
jh_eff_kind(const char *s)
{
	int k;

	for (k = 0; k < JH_E_NKINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return (k);
	return (-1);
}

void
jh_effects_init(struct jh_effects *ef)
{
	memset(ef, 0, sizeof(*ef));
}

void
jh_effects_free(struct jh_effects *ef)
{
	size_t i;

	for (i = 0; i < ef->n; i++) {
		free(ef->v[i].path);
		free(ef->v[i].program);
		free(ef->v[i].arg);
		free(ef->v[i].only);
		free(ef->v[i].name);
	}
	free(ef->v);
	memset(ef, 0, sizeof(*ef));
}

/* The table, by name: entries are in strcmp order. */
const struct jh_cmddef *
jh_cmd_lookup(const char *name)
{
	size_t lo = 0, hi = jh_ncmdtab, mid;
	int c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcmp(name, jh_cmdtab[mid].name);
		if (c == 0)
			return (&jh_cmdtab[mid]);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (NULL);
}

/*
 * The entry for a command word: its last path component, then the same
 * without a version suffix (python3.11, gcc-12, clang++-14).
 */
static const struct jh_cmddef *
lookup_word(const char *w, char *name, size_t sz)
{
	const struct jh_cmddef *d;
	const char *b = strrchr(w, '/');
	size_t n;

	snprintf(name, sz, "%s", b ? b + 1 : w);
	if ((d = jh_cmd_lookup(name)) != NULL)
		return (d);
	n = strlen(name);
	while (n > 0 && ((name[n - 1] >= '0' && name[n - 1] <= '9') ||
	    name[n - 1] == '.'))
		n--;
	if (n > 0 && name[n - 1] == '-')
		n--;
	if (n == 0 || n == strlen(name))
		return (NULL);
	name[n] = '\0';
	if ((d = jh_cmd_lookup(name)) == NULL)
		/* not a version: the word's own name, for the reason */
		snprintf(name, sz, "%s", b ? b + 1 : w);
	return (d);
}

/* One option spec of an entry, parsed from its opts text. */
struct optspec {
	const char *names;	/* into the opts text */
	size_t nlen;
	int val;		/* 0, '=' or '?' */
	int eff;		/* the value's letter */
	int eff2;		/* a second value word's letter, or 0 */
	const char *tags;	/* into the opts text, or NULL */
	size_t tlen;
};

struct optset {
	struct optspec v[MAX_OPTS];
	size_t n;
	int any;		/* "-*": other options are flags */
};

static void
opts_parse(struct optset *os, const char *s)
{
	const char *p = s, *q, *e;

	memset(os, 0, sizeof(*os));
	while (s != NULL && *p != '\0' && os->n < MAX_OPTS) {
		struct optspec *o = &os->v[os->n];

		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		for (e = p; *e != '\0' && *e != ' '; e++)
			;
		if (e - p == 2 && p[0] == '-' && p[1] == '*') {
			os->any = 1;
			p = e;
			continue;
		}
		memset(o, 0, sizeof(*o));
		o->names = p;
		for (q = p; q < e && *q != '=' && *q != '?' && *q != ':'; q++)
			;
		o->nlen = (size_t)(q - p);
		if (q < e && (*q == '=' || *q == '?') && q + 1 < e) {
			o->val = *q;
			o->eff = q[1];
			q += 2;
			if (o->val == '=' && q < e && *q != ':')
				o->eff2 = *q++;
		}
		if (q < e && *q == ':') {
			o->tags = q + 1;
			o->tlen = (size_t)(e - q - 1);
		}
		os->n++;
		p = e;
	}
}

/* Whether a comma-separated list (of len bytes) holds word w (wl bytes). */
static int
list_has(const char *l, size_t len, const char *w, size_t wl)
{
	const char *p = l, *end = l + len, *c;

	while (l != NULL && p < end) {
		for (c = p; c < end && *c != ','; c++)
			;
		if ((size_t)(c - p) == wl && strncmp(p, w, wl) == 0)
			return (1);
		p = c + 1;
	}
	return (0);
}

static int
has_tag(const struct optspec *o, const char *t)
{
	return (o->tags != NULL && list_has(o->tags, o->tlen, t, strlen(t)));
}

/*
 * The option a word names.  exact: the spelling in full; else, with
 * abbrev, the one option of which it is a prefix (*ambig when more).
 */
static const struct optspec *
opt_find(const struct optset *os, const char *w, size_t wl, int abbrev,
    int *ambig)
{
	const struct optspec *hit = NULL;
	size_t i;
	const char *p, *c, *end;

	*ambig = 0;
	for (i = 0; i < os->n; i++)
		if (list_has(os->v[i].names, os->v[i].nlen, w, wl))
			return (&os->v[i]);
	if (!abbrev || wl < 3 || w[1] != '-')
		return (NULL);
	for (i = 0; i < os->n; i++) {
		end = os->v[i].names + os->v[i].nlen;
		for (p = os->v[i].names; p < end; p = c + 1) {
			for (c = p; c < end && *c != ','; c++)
				;
			if ((size_t)(c - p) > wl && strncmp(p, w, wl) == 0) {
				if (hit != NULL && hit != &os->v[i])
					*ambig = 1;
				hit = &os->v[i];
				break;
			}
		}
	}
	return (*ambig ? NULL : hit);
}

/* Operand rules. */
struct rule {
	char eff[8];
	int star;
	int last;
};

static size_t
rules_parse(struct rule *r, const char *s)
{
	size_t n = 0, k;
	const char *p = s;

	while (s != NULL && *p != '\0' && n < MAX_RULES) {
		memset(&r[n], 0, sizeof(r[n]));
		if (*p == '$') {
			r[n].last = 1;
			p++;
		}
		for (k = 0; *p != '\0' && *p != ',' && *p != '*'; p++)
			if (k + 1 < sizeof(r[n].eff))
				r[n].eff[k++] = *p;
		if (*p == '*') {
			r[n].star = 1;
			p++;
		}
		n++;
		if (*p == ',')
			p++;
	}
	return (n);
}

/*
 * The extraction of one line.  The arrays come last: a line starts with
 * the fields before them zeroed and their strings empty, as the arrays
 * are read only up to their counts (84 KiB a call not to copy).
 */
struct ex {
	struct jh_effects *ef;
	const struct jh_effctx *cx;
	struct jh_err *e;
	size_t cmd;
	int nest;
	int cflags;		/* the simple command's JH_SHC_* */
	size_t nftree;		/* find's paths below, for {} */
	size_t fcmd;		/* the command that set them */
	int xfind;		/* xargs gives the find's paths as operands */
	int found;		/* a {} was taken as the find's paths */
	const char *curonly;	/* the -name of the {} being expanded, or "" */
	int curfold;
	size_t nmklink;		/* links below */
	int srcfar;		/* a file outside the project was sourced */
	size_t nscript;		/* pnpm NAME taken as pnpm run NAME */
	size_t scmd[MAX_SCRIPTS];		/* its command; spkg below */
	char ftree[MAX_FIND][PATH_MAX + 1];	/* the last find's paths: {} */
	char fonly[MAX_FIND][FIND_NAME];	/* and its -name, or "" */
	int ffold[MAX_FIND];			/* -iname */
	char fdir[PATH_MAX + 1];	/* and where it ran: {} is from there */
	char gtop[FIND_NAME];	/* path_of's glob word's last part, or "" */
	char mklink[MAX_MKLINK][PATH_MAX + 1];	/* links the line makes */
	size_t mkcmd[MAX_MKLINK];		/* and the command that does */
	char lexout[PATH_MAX + 1];	/* path_of's last path, where as
					   written it is a file a program
					   executes and it leads elsewhere */
	char spkg[MAX_SCRIPTS][PATH_MAX + 1];	/* the package.json read */
};

static int
add(struct ex *x, int kind, int flags, const char *path, const char *prog,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

int
jh_effect_add(struct jh_effects *ef, int kind, int flags, size_t cmd,
    const char *path, const char *prog, const char *arg, struct jh_err *e)
{
	struct jh_effect *v;
	size_t i;

	/* the same effect of the same command once */
	for (i = ef->n; i > 0 && ef->v[i - 1].cmd == cmd; i--) {
		v = &ef->v[i - 1];
		if (v->only == NULL && v->kind == kind && v->flags == flags &&
		    (v->path == NULL) == (path == NULL) &&
		    (path == NULL || strcmp(v->path, path) == 0) &&
		    (v->program == NULL) == (prog == NULL) &&
		    (prog == NULL || strcmp(v->program, prog) == 0) &&
		    (v->arg == NULL) == (arg == NULL || arg[0] == '\0') &&
		    (v->arg == NULL || strcmp(v->arg, arg) == 0))
			return (0);
	}
	if (ef->n == ef->cap) {
		size_t nc = ef->cap ? ef->cap * 2 : 16;
		if ((v = reallocarray(ef->v, nc, sizeof(*v))) == NULL)
			return (jh_errf(e, "out of memory"));
		ef->v = v;
		ef->cap = nc;
	}
	v = &ef->v[ef->n];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->flags = flags;
	v->cmd = cmd;
	v->cap = -1;
	if ((path != NULL && (v->path = strdup(path)) == NULL) ||
	    (prog != NULL && (v->program = strdup(prog)) == NULL) ||
	    (arg != NULL && arg[0] != '\0' &&
	    (v->arg = strdup(arg)) == NULL)) {
		free(v->path);
		free(v->program);
		return (jh_errf(e, "out of memory"));
	}
	ef->n++;
	return (0);
}

static int
add(struct ex *x, int kind, int flags, const char *path, const char *prog,
    const char *fmt, ...)
{
	char arg[512], pn[128];
	va_list ap;

	arg[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(arg, sizeof(arg), fmt, ap);
		va_end(ap);
	}
	/* the program, not its subcommand: "git", never "git log" */
	if (prog != NULL) {
		snprintf(pn, sizeof(pn), "%.*s", (int)strcspn(prog, " "),
		    prog);
		prog = pn;
	}
	/* a write through a link whose name as written is executed */
	if (kind == JH_E_WRITE && path != NULL && x->lexout[0] != '\0' &&
	    strcmp(path, x->lexout) == 0)
		flags |= JH_EF_EXECUTED;
	return (jh_effect_add(x->ef, kind, flags, x->cmd, path, prog, arg,
	    x->e));
}

/*
 * The suffix match of runs patterns: a pattern of k components matches
 * the last k components of a path; "**" inside it crosses directories.
 */
static int
runs_match(const char *pat, size_t plen, const char *path)
{
	char p[256];
	size_t k = 1, i;
	const char *s;

	if (plen == 0 || plen >= sizeof(p))
		return (0);
	for (i = 0; i < plen; i++)
		p[i] = (char)tolower((unsigned char)pat[i]);
	p[plen] = '\0';
	while (strncmp(p, "**/", 3) == 0)
		memmove(p, p + 3, strlen(p + 3) + 1);
	for (i = 0; p[i] != '\0'; i++)
		if (p[i] == '/')
			k++;
	if (strstr(p, "**") != NULL) {
		/* try every suffix */
		for (s = path; s != NULL; s = strchr(s + 1, '/'))
			if (jh_glob(p, s[0] == '/' ? s + 1 : s, 1))
				return (1);
		return (0);
	}
	for (s = path + strlen(path); s > path && k > 0; s--)
		if (s[-1] == '/' && --k == 0)
			break;
	if (k > 0)
		return (0);
	return (jh_glob(p, s, 1));
}

int
jh_path_executed(const char *path0)
{
	char path[PATH_MAX * 2];
	unsigned long i;
	const char *r, *c;
	size_t k;

	/*
	 * ignoring case, as the file systems of macOS and Windows do:
	 * MAKEFILE is the Makefile make reads there
	 */
	if (jh_path_fold_letters(path, sizeof(path), path0) == -1)
		return (1);
	for (k = 0; path[k] != '\0'; k++)
		path[k] = (char)tolower((unsigned char)path[k]);

	for (i = 0; i < jh_ncmdtab; i++) {
		if ((r = jh_cmdtab[i].runs) == NULL)
			continue;
		/* a program's subcommands mostly repeat its runs */
		if (i > 0 && jh_cmdtab[i - 1].runs != NULL &&
		    (jh_cmdtab[i - 1].runs == r ||
		    strcmp(jh_cmdtab[i - 1].runs, r) == 0))
			continue;
		for (; *r != '\0'; r = *c ? c + 1 : c) {
			for (c = r; *c != '\0' && *c != ','; c++)
				;
			if (runs_match(r, (size_t)(c - r), path))
				return (1);
		}
	}
	return (0);
}

/*
 * Command substitutions that print one token, never blank, never a
 * glob and never starting with '-': a word whose every expansion is
 * one of these cannot become another option or several words.  A
 * branch's name is none of them: the agent chooses it (git symbolic-ref
 * takes --output=x).
 */
static const char *const one_token[] = { "nproc",
    "getconf _NPROCESSORS_ONLN", "whoami", "id -u", "id -g", "id -un",
    "uname", "uname -s", "uname -m", "uname -r", "date +%s",
    "date +%Y%m%d", "git rev-parse HEAD", "git rev-parse --short HEAD",
    "sysctl -n hw.ncpu", NULL };

static int
tokens_only(const char *s)
{
	const char *p, *e;
	size_t i, n;
	int any = 0;

	for (p = s; (p = strpbrk(p, "$`")) != NULL; p = e + 1) {
		if (p[0] == '`') {
			if ((e = strchr(p + 1, '`')) == NULL)
				return (0);
			p += 1;
		} else if (p[1] == '(' && p[2] != '(') {
			if ((e = strchr(p + 2, ')')) == NULL)
				return (0);
			p += 2;
		} else
			return (0);	/* a variable: its value is anything */
		n = (size_t)(e - p);
		for (i = 0; one_token[i] != NULL; i++)
			if (strlen(one_token[i]) == n &&
			    strncmp(one_token[i], p, n) == 0)
				break;
		if (one_token[i] == NULL)
			return (0);
		any = 1;
	}
	return (any);
}

/* The state of one command being read. */
struct cmdst {
	const struct optspec *opt;	/* the option whose value is read */
	const struct jh_cmddef *def;
	char name[256];		/* as the table knows it */
	char dir[PATH_MAX + 1];	/* where it works; "" when unknown */
	struct optset os;
	int endopts;
	int pattern;		/* the pattern came with an option */
	int exits;		/* an option prints and exits (--version) */
	int keep;		/* operands to delete are kept (git rm -n) */
	int target;		/* a -t destination was given */
	int symbolic;		/* ln -s: a target is read from the link */
	int inplace, recursive, delete;
	int rest;		/* the rest is passed on (A) */
	int sawopt;		/* FINDEXPR: the expression began */
	char fname[FIND_NAME];	/* find: the one -name every match has */
	int ffold;		/* it was -iname */
	int fany;		/* find: -o, ! or a second name: no one name */
	int fneg;		/* find: the last word was ! or -not */
	int inops;		/* the operands are being read */
	char opsdir[PATH_MAX + 1];	/* OPSDIR: where the operands are */
	int have_opsdir;
	int rmt;		/* the value next is an archive (rmt tag) */
	int handed;		/* the rest went to a command of its own */
	int redir;		/* a redirection's target, not a word */
	char runs[256];		/* P: the program of the command it runs */
	const struct jh_sh_word *ops[MAX_OPERANDS];
	size_t nops;
};

/* Whether any option of the entry has an effect beyond a flag. */
static int
risky_opts(const struct optset *os)
{
	size_t i;

	for (i = 0; i < os->n; i++)
		if ((os->v[i].val && os->v[i].eff != 'i') ||
		    (os->v[i].tags != NULL && !has_tag(&os->v[i], "pattern") &&
		    !has_tag(&os->v[i], "recursive")))
			return (1);
	return (0);
}

/*
 * Whether a word that is not literal is still safe where its value is
 * inert: it prints one token, or the program has no option it could
 * turn into (an unquoted value may split into several words, and one
 * of them may start with '-').
 */
static int
expand_ok(const struct cmdst *c, const struct jh_sh_word *w)
{
	if (!(w->flags & JH_SHW_EXPAND) || tokens_only(w->s))
		return (1);
	if (!(w->flags & JH_SHW_SPLIT) && w->s[0] != '$' && w->s[0] != '`')
		return (1);
	return (!risky_opts(&c->os));
}

/*
 * The last part of a glob word whose patterns are all in that part (rm
 * -f build/STAR.o), into out, for the effect on its directory to reach
 * only what that part matches (JH_EF_ONLYTOP); "" for any other.  Only
 * '*' and '?' are taken: fnmatch(3) on the unquoted text then matches
 * every name bash would, and more where a quoted * or ? was literal; a
 * bracket, brace, backslash, extglob's and zsh's pattern characters
 * keep the whole directory.
 */
static void
top_glob(char *out, size_t sz, const struct jh_sh_word *w)
{
	const char *last = strrchr(w->s, '/');

	out[0] = '\0';
	last = last != NULL ? last + 1 : w->s;
	if (!(w->flags & JH_SHW_GLOB) || (w->flags & JH_SHW_BRACE) ||
	    (size_t)(last - w->s) > strcspn(w->s, "*?[{") ||
	    last[0] == '\0' || strpbrk(last, "[]{}()|\\^~#<>") != NULL ||
	    strlen(last) >= sz)
		return;
	/*
	 * bash folds case by the locale (nocaseglob: U+0130 is i, U+212A
	 * is k), fnmatch(3) here by bytes: ASCII alone is matched alike
	 */
	for (; *last != '\0'; last++)
		if ((unsigned char)*last >= 0x80)
			return;
	last = strrchr(w->s, '/');
	last = last != NULL ? last + 1 : w->s;
	snprintf(out, sz, "%s", last);
}

/* A redirection's effects are the shell's: no program, flag REDIR. */
#define RF(c)	((c)->redir ? JH_EF_REDIR : 0)
#define RP(c)	((c)->redir ? NULL : (c)->name)

/* A path word, resolved against the command's directory. */
static int
path_of(struct ex *x, struct cmdst *c, const struct jh_sh_word *w,
    char *out, size_t sz, int *tree, int *skip)
{
	char lit[PATH_MAX], lex[PATH_MAX * 2];
	struct jh_err e;
	size_t i;

	*tree = 0;
	*skip = 0;
	if (w->flags & JH_SHW_EXPAND) {
		*skip = 1;
		return (add(x, JH_E_UNKNOWN, c->redir ? JH_EF_REDIR : 0, NULL,
		    c->redir ? NULL : c->name, "'%.100s' is not literal: its "
		    "value is only known when it runs", w->s));
	}
	if (w->flags & JH_SHW_TILDE) {
		*skip = 1;
		return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c), "'%.100s' "
		    "holds a ~ this gate does not expand", w->s));
	}
	if ((x->cflags & JH_SHC_WRAPPED) && strstr(w->s, "{}") != NULL) {
		*skip = 1;
		return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c), "'%.100s' "
		    "is a path find fills in when it runs", w->s));
	}
	x->gtop[0] = '\0';
	snprintf(lit, sizeof(lit), "%s", w->s);
	if (w->flags & (JH_SHW_GLOB | JH_SHW_BRACE)) {
		const char *base = strrchr(w->s, '/'), *g;
		/*
		 * A glob may expand to a word that starts with '-', and so
		 * to an option, unless a literal part comes first.
		 */
		if (!c->endopts && risky_opts(&c->os) && strchr("*?[{",
		    w->s[0]) != NULL) {
			*skip = 1;
			return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c),
			    "'%.100s' may expand to an option of %s", w->s,
			    c->name));
		}
		/*
		 * "*" "/../x", x{,/../../y}, {/etc/x,y}, {~,/tmp}/x: what comes
		 * after the first pattern may climb out of its prefix, or
		 * start again at / or ~.
		 */
		g = w->s + strcspn(w->s, "*?[{");
		if (climbs(g) || dot_climbs(w->s) || strstr(g, "{/") != NULL ||
		    strstr(g, ",/") != NULL || strstr(g, "{~") != NULL ||
		    strstr(g, ",~") != NULL) {
			*skip = 1;
			return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c),
			    "'%.100s' may expand to a path outside the one it "
			    "starts with", w->s));
		}
		jh_glob_prefix(lit, sizeof(lit), w->s);
		for (i = 0; lit[i] != '\0'; i++)
			if (lit[i] == '{') {
				lit[i] = '\0';
				break;
			}
		if (base == NULL || lit[0] == '\0')
			snprintf(lit, sizeof(lit), ".");
		top_glob(x->gtop, sizeof(x->gtop), w);
		*tree = 1;
	}
	if (lit[0] != '/' && c->dir[0] == '\0') {
		*skip = 1;
		return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c), "'%.100s' is "
		    "relative to a directory this gate cannot follow", w->s));
	}
	if (jh_path_resolve(out, sz, c->dir[0] ? c->dir : "/", lit, &e) == -1) {
		/* cd build && cmake ..: build is made by the line, maybe */
		if (strncmp(e.msg, "'..' in a part", 14) == 0) {
			*skip = 1;
			return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c),
			    "'%.100s' climbs out of a directory that is not "
			    "there yet", w->s));
		}
		return (jh_errf(x->e, "cannot resolve %.200s: %s", w->s,
		    e.msg));
	}
	/*
	 * .vscode -> evil: the name as written is what the editor reads
	 * (.vscode/tasks.json), where the link leads a plain file: a write
	 * is executed by either (add() reads the mark)
	 */
	x->lexout[0] = '\0';
	if (jh_path_lexical(lex, sizeof(lex), c->dir[0] ? c->dir : "/",
	    lit) == 0 && strcmp(lex, out) != 0 && jh_path_executed(lex))
		snprintf(x->lexout, sizeof(x->lexout), "%s", out);
	/*
	 * ln -s . r && echo x > r/.mcp.json: a link an earlier command of
	 * the line makes is not there to follow yet
	 */
	for (i = 0; i < x->nmklink; i++)
		if (x->mkcmd[i] < x->cmd && jh_path_under(out, x->mklink[i])) {
			*skip = 1;
			return (add(x, JH_E_UNKNOWN, RF(c), NULL, RP(c),
			    "'%.100s' goes through %.200s, a link an earlier "
			    "command of the line makes: where it leads is "
			    "only known then", w->s, x->mklink[i]));
		}
	return (0);
}

static int	command(struct ex *, const char *, char *const *,
		    const int *, size_t, int);
static int	made_plain(const struct ex *, const char *);

/*
 * Whether a tree copied or moved from src to dst (dst itself, or dst/the
 * tree's name where dst is a directory) puts a file where a program
 * executes it: src listed up to JH_ONLYSCAN entries; one it cannot list,
 * or more, is taken as yes.
 */
static int
tree_lands_executed(const char *src, const char *dst)
{
	char q[PATH_MAX * 2 + 2], *paths[2];
	const char *base = strrchr(src, '/');
	struct stat st;
	FTSENT *e;
	FTS *t;
	size_t seen = 0, sl = strlen(src);
	int hit = 0;

	if (lstat(src, &st) == -1 || !S_ISDIR(st.st_mode))
		return (1);
	base = base != NULL ? base + 1 : src;
	paths[0] = (char *)src;
	paths[1] = NULL;
	if ((t = fts_open(paths, FTS_PHYSICAL | FTS_NOSTAT, NULL)) == NULL)
		return (1);
	while (!hit && (e = fts_read(t)) != NULL) {
		const char *rel = e->fts_path + sl;
		if (e->fts_info == FTS_DP || e->fts_level == 0)
			continue;
		if (++seen > JH_ONLYSCAN || e->fts_info == FTS_DNR ||
		    e->fts_info == FTS_ERR) {
			hit = 1;
			break;
		}
		snprintf(q, sizeof(q), "%s%s", dst, rel);
		hit = jh_path_executed(q);
		snprintf(q, sizeof(q), "%s/%s%s", dst, base, rel);
		hit = hit || jh_path_executed(q);
	}
	fts_close(t);
	return (hit);
}

static int	glob_lands_executed(const char *, const char *);

/*
 * Whether the command being read has read a tree (a copy's source) that
 * puts a file a program executes into the tree dst it writes: the files
 * a glob or find's name matches, or what the tree holds now.
 */
static int
tree_read(const struct ex *x, const char *dst)
{
	const struct jh_effect *r;
	size_t i;

	for (i = x->ef->n; i > 0 && x->ef->v[i - 1].cmd == x->cmd; i--) {
		r = &x->ef->v[i - 1];
		if (r->kind == JH_E_READ && (r->flags & JH_EF_TREE) &&
		    (r->only != NULL ? glob_lands_executed(dst, r->only) :
		    r->path == NULL || (r->flags & JH_EF_GLOB) ||
		    (tree_lands_executed(r->path, dst) &&
		    !made_plain(x, r->path))))
			return (1);
	}
	return (0);
}

/* Whether a component of path below tree matches only. */
static int
only_match(const char *tree, const char *only, int fold, const char *path)
{
	char c[PATH_MAX + 1];
	const char *r = path + strlen(tree);
	size_t n;

	while (*r == '/')
		r++;
	for (; *r != '\0'; r += n + (r[n] == '/')) {
		n = strcspn(r, "/");
		if (n == 0 || n >= sizeof(c))
			continue;
		memcpy(c, r, n);
		c[n] = '\0';
		if (fnmatch(only, c, fold ? FNM_CASEFOLD : 0) == 0)
			return (1);
	}
	return (0);
}

/*
 * Whether a shell glob's last part, only, matches the first component of
 * p below tree (p itself: yes, what is under it may match).  Matched
 * with no FNM_PERIOD and ignoring case: with dotglob, GLOBIGNORE or
 * nocaseglob bash matches more names than by default, never fewer.
 */
static int
top_match(const char *tree, const char *only, const char *p)
{
	char c[PATH_MAX + 1];
	const char *r = p + strlen(tree);
	size_t n;

	while (*r == '/')
		r++;
	if ((n = strcspn(r, "/")) == 0 || n >= sizeof(c))
		return (1);
	memcpy(c, r, n);
	c[n] = '\0';
	return (fnmatch(only, c, FNM_CASEFOLD) == 0);
}

/*
 * Whether a program that acts on the paths under tree with a component
 * only matches (find -name) would act on p or anything under it: p's
 * own components, then what is under it, looked at up to JH_ONLYSCAN
 * entries (beyond that, yes).  p is at or under tree.  With top, only
 * is a shell glob's last part (tree/only): what it matches, and all
 * under that, and nothing else.
 */
int
jh_only_reaches(const char *tree, const char *only, int fold, int top,
    const char *p)
{
	char *const paths[] = { (char *)p, NULL };
	struct stat st;
	FTS *f;
	FTSENT *e;
	size_t seen = 0;
	int hit = 0;

	if (only != NULL && top)
		return (top_match(tree, only, p));
	if (only == NULL || only_match(tree, only, fold, p))
		return (1);
	if (lstat(p, &st) == -1 || !S_ISDIR(st.st_mode))
		return (0);
	if ((f = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, NULL)) == NULL)
		return (1);
	while (!hit && (e = fts_read(f)) != NULL) {
		if (e->fts_info == FTS_DP)
			continue;
		if (++seen > JH_ONLYSCAN || e->fts_info == FTS_DNR ||
		    e->fts_info == FTS_ERR)
			hit = 1;
		else if (only_match(tree, only, fold, e->fts_path))
			hit = 1;
	}
	fts_close(f);
	return (hit);
}

/*
 * Whether deleting p (a tree with fl, and find's -name only) deletes a
 * repository's history.
 */
static int
git_dir(const char *p, int fl, const char *only, int fold)
{
	char g[PATH_MAX * 2];
	const char *b = strrchr(p, '/');

	if (b != NULL && strcmp(b + 1, ".git") == 0)
		return (1);
	return ((fl & JH_EF_TREE) && (size_t)snprintf(g, sizeof(g),
	    "%s/.git", p) < sizeof(g) && access(g, F_OK) == 0 &&
	    jh_only_reaches(p, only, fold, fl & JH_EF_ONLYTOP, g));
}

/*
 * The host a network operand names, lowercased into out: a URL's (after
 * the scheme and any user, before a port or path), user@host's, else the
 * word itself (a host, or a remote's name).  Read as the WHATWG URL
 * parser that web tools use reads it: tabs and newlines dropped, and
 * after a special scheme (http, https, ws, wss, ftp) any run of slashes
 * and backslashes, so http:/evil/?://localhost is evil's; a backslash
 * ends the host as a slash does (https://a\\@b/ is a's).  Returns the
 * length; a host that does not fit is cut, so it matches no pattern
 * written for a shorter one.
 */
size_t
jh_url_host(const char *s0, char *out, size_t sz)
{
	static const char *const special[] = { "http", "https", "ws", "wss",
	    "ftp", NULL };
	char s[2048];
	const char *h, *at, *end;
	size_t n, i, k;

	for (n = 0; *s0 != '\0' && n + 1 < sizeof(s); s0++)
		if (*s0 != '\t' && *s0 != '\n' && *s0 != '\r' &&
		    (n > 0 || (unsigned char)*s0 > ' '))
			s[n++] = *s0;
	while (n > 0 && (unsigned char)s[n - 1] <= ' ')
		n--;
	s[n] = '\0';
	h = s;
	/* a scheme: a letter, then letters, digits, + - . up to a : */
	for (k = 0; isalnum((unsigned char)s[k]) || (k > 0 && strchr("+-.",
	    s[k]) != NULL && s[k] != '\0'); k++)
		;
	if (k > 0 && isalpha((unsigned char)s[0]) && s[k] == ':') {
		for (i = 0; special[i] != NULL; i++)
			if (strlen(special[i]) == k &&
			    strncasecmp(s, special[i], k) == 0)
				break;
		if (special[i] != NULL) {
			h = s + k + 1;
			h += strspn(h, "/\\");
		} else if (strncmp(s + k + 1, "//", 2) == 0)
			h = s + k + 3;
	} else if ((end = strstr(s, "://")) != NULL)
		h = end + 3;
	end = h + strcspn(h, "/?#\\");
	/* the user is all before the last @ */
	if ((at = memrchr(h, '@', (size_t)(end - h))) != NULL)
		h = at + 1;
	if (*h == '[') {		/* [v6]:port */
		const char *rb = memchr(h, ']', (size_t)(end - h));
		if (rb != NULL)
			end = rb + 1;
	} else if ((at = memchr(h, ':', (size_t)(end - h))) != NULL)
		end = at;	/* host:port, host:path */
	n = (size_t)(end - h);
	if (sz == 0)
		return (0);
	if (n >= sz)
		n = sz - 1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)h[i]);
	out[n] = '\0';
	return (n);
}

/*
 * find's expression: a single -name or -iname ANDed with the rest means
 * every path it acts on has a component that matches it, which the
 * protected-path check can use; -o, a second name, and a ! or -not
 * before the name or a ( mean nothing (! -path P narrows the rest).
 */
static void
find_name(struct cmdst *c, const struct jh_sh_word *w,
    const struct jh_sh_word *v)
{
	int neg = c->fneg;

	c->fneg = strcmp(w->s, "-not") == 0;
	if (strcmp(w->s, "-o") == 0 || strcmp(w->s, "-or") == 0)
		c->fany = 1;
	if (strcmp(w->s, "-name") != 0 && strcmp(w->s, "-iname") != 0)
		return;
	if (neg) {
		c->fany = 1;
		return;
	}
	if (v == NULL || v->flags & JH_SHW_EXPAND || c->fname[0] != '\0' ||
	    strlen(v->s) >= sizeof(c->fname) || v->s[0] == '\0') {
		c->fany = 1;
		return;
	}
	snprintf(c->fname, sizeof(c->fname), "%s", v->s);
	c->ffold = w->s[1] == 'i';
}

/* Gives the effect just added (if it was) find's -name as its filter. */
static int
find_only(struct ex *x, size_t before, const char *name, int fold)
{
	struct jh_effect *e;

	if (name[0] == '\0' || x->ef->n == before)
		return (0);
	e = &x->ef->v[x->ef->n - 1];
	if (!(e->flags & JH_EF_TREE) || e->only != NULL)
		return (0);
	if ((e->only = strdup(name)) == NULL)
		return (jh_errf(x->e, "out of memory"));
	e->onlyfold = fold;
	return (0);
}

/*
 * Gives the tree effects on p the letter just added (since before) the
 * last part of the glob word that named p as their filter.
 */
static int
glob_only(struct ex *x, size_t before, const char *p, const char *top)
{
	struct jh_effect *e;
	size_t i;

	for (i = before; top[0] != '\0' && i < x->ef->n; i++) {
		e = &x->ef->v[i];
		if (!(e->flags & JH_EF_TREE) || e->only != NULL ||
		    e->path == NULL || strcmp(e->path, p) != 0)
			continue;
		if ((e->only = strdup(top)) == NULL)
			return (jh_errf(x->e, "out of memory"));
		e->onlyfold = 1;
		e->flags |= JH_EF_ONLYTOP;
	}
	return (0);
}

/*
 * A read, a write or a run of the link name (one a glob matched) by the
 * effects before..end: one of where it leads, a link to what does not
 * exist yet included, as that name's own would be.  A delete removes
 * the link alone, and ls reads no file.
 */
static int
link_effects(struct ex *x, size_t before, size_t end, const char *name)
{
	char q[PATH_MAX + 1];
	struct jh_err e;
	struct stat st;
	size_t i;
	int fl;

	if (lstat(name, &st) == -1 || !S_ISLNK(st.st_mode))
		return (0);
	if (jh_path_resolve(q, sizeof(q), "/", name, &e) == -1)
		return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "%.200s links "
		    "where this gate cannot follow: %s", name, e.msg));
	for (i = before; i < end; i++) {
		const struct jh_effect *g = &x->ef->v[i];
		if ((g->flags & JH_EF_META) || g->kind == JH_E_DELETE ||
		    (g->kind != JH_E_READ && g->kind != JH_E_WRITE &&
		    g->kind != JH_E_EXEC) || !(g->flags & JH_EF_TREE))
			continue;
		fl = g->flags & (JH_EF_RUNS | JH_EF_INPLACE | JH_EF_REDIR);
		/* a recursive program goes on into a directory */
		if (stat(q, &st) == 0 && S_ISDIR(st.st_mode))
			fl |= JH_EF_TREE;
		if (g->kind == JH_E_WRITE && jh_path_executed(q))
			fl |= JH_EF_EXECUTED;
		if (add(x, g->kind, fl, q, x->ef->v[i].program, NULL) == -1)
			return (-1);
	}
	return (0);
}

/*
 * A glob read (cat .en[v], cat STAR/.env, head STAR.pem): each file it
 * matches now, as bash's glob gives them (a leading dot only where the
 * pattern has one), a read of its own beside the tree's, up to
 * JH_GLOBREADS of them, so that a policy on a name (STAR STAR/.env) meets
 * it; a last part top in dir, or else the whole word pat.
 */
#define JH_GLOBREADS	256
static int
glob_reads(struct ex *x, size_t before, const char *dir, const char *top,
    const char *pat)
{
	char name[PATH_MAX + 1], res[PATH_MAX + 1];
	const char *prog = NULL;
	struct dirent *d;
	struct jh_err e;
	size_t i, end = x->ef->n, n = 0;
	glob_t g;
	int r = 0;
	DIR *dp;

	for (i = before; i < end && prog == NULL; i++)
		if (x->ef->v[i].kind == JH_E_READ &&
		    (x->ef->v[i].flags & JH_EF_TREE) &&
		    !(x->ef->v[i].flags & JH_EF_META))
			prog = x->ef->v[i].program != NULL ?
			    x->ef->v[i].program : "";
	if (prog == NULL)
		return (0);
	if (top == NULL) {
		memset(&g, 0, sizeof(g));
		if (glob(pat, GLOB_NOSORT | GLOB_BRACE, NULL, &g) == 0)
			for (i = 0; r == 0 && i < g.gl_pathc &&
			    n++ < JH_GLOBREADS; i++)
				if (jh_path_resolve(res, sizeof(res), "/",
				    g.gl_pathv[i], &e) == 0)
					r = add(x, JH_E_READ, 0, res, prog[0] ?
					    prog : NULL, NULL);
		globfree(&g);
		return (r);
	}
	if ((dp = opendir(dir)) == NULL)
		return (0);
	while (r == 0 && n < JH_GLOBREADS && (d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") ==
		    0 || fnmatch(top, d->d_name, FNM_PERIOD) != 0 ||
		    (size_t)snprintf(name, sizeof(name), "%s/%s", dir,
		    d->d_name) >= sizeof(name) ||
		    jh_path_resolve(res, sizeof(res), "/", name, &e) == -1)
			continue;
		n++;
		r = add(x, JH_E_READ, 0, res, prog[0] ? prog : NULL, NULL);
	}
	closedir(dp);
	return (r);
}

/*
 * The links among what a glob matches now (tee ./nSTAR.md where notes.md
 * links to .git/hooks/pre-commit), for the effects before..end of its
 * word: a last part top in dir, matched as top_match does (ignoring
 * case, a leading dot like any character); or else the whole word pat
 * by glob(3), with dot files (GLOB_PERIOD) and braces.  Past
 * JH_GLOBSCAN entries or matches, unknown.
 */
#define JH_GLOBSCAN	20000
static int
glob_links(struct ex *x, size_t before, const char *dir, const char *top,
    const char *pat)
{
	char name[PATH_MAX + 1];
	struct dirent *d;
	size_t i, end = x->ef->n, seen = 0;
	glob_t g;
	int any = 0, k, r = 0;
	DIR *dp;

	for (i = before; i < end; i++)
		if ((x->ef->v[i].flags & JH_EF_TREE) &&
		    !(x->ef->v[i].flags & JH_EF_META) &&
		    x->ef->v[i].kind != JH_E_DELETE)
			any = 1;
	if (!any)
		return (0);
	if (top == NULL) {
		memset(&g, 0, sizeof(g));
		k = glob(pat, GLOB_NOSORT | GLOB_PERIOD | GLOB_BRACE, NULL,
		    &g);
		if (k != 0 && k != GLOB_NOMATCH)
			r = add(x, JH_E_UNKNOWN, 0, NULL, NULL, "cannot see "
			    "what '%.200s' matches", pat);
		else if (k == 0 && g.gl_pathc > JH_GLOBSCAN)
			r = add(x, JH_E_UNKNOWN, 0, NULL, NULL, "'%.200s' "
			    "matches too many paths to see where its links "
			    "lead", pat);
		for (i = 0; k == 0 && r == 0 && i < g.gl_pathc; i++)
			r = link_effects(x, before, end, g.gl_pathv[i]);
		globfree(&g);
		return (r);
	}
	if ((dp = opendir(dir)) == NULL)
		return (0);
	while (r == 0 && (d = readdir(dp)) != NULL) {
		if (++seen > JH_GLOBSCAN) {
			r = add(x, JH_E_UNKNOWN, 0, NULL, NULL, "%.200s holds "
			    "too many entries to see where a glob's links "
			    "lead", dir);
			break;
		}
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") ==
		    0 || fnmatch(top, d->d_name, FNM_CASEFOLD) != 0 ||
		    (size_t)snprintf(name, sizeof(name), "%s/%s", dir,
		    d->d_name) >= sizeof(name))
			continue;
		r = link_effects(x, before, end, name);
	}
	closedir(dp);
	return (r);
}

static int	passed_on(struct ex *x, struct cmdst *c,
	    const struct jh_sh_word *w);
static int	letter_path(struct ex *, struct cmdst *, int,
		    const struct jh_sh_word *, const char *, int, int);
static int	letter(struct ex *x, struct cmdst *c, int l,
		    const struct jh_sh_word *w);

/* find -exec's {}: the letter l on every path under the trees find walks. */
static int
letter_found(struct ex *x, struct cmdst *c, int l)
{
	struct jh_sh_word tw;
	size_t i, before;
	int rec = c->recursive, r;

	/*
	 * find prints its paths as it was given them: a relative one is
	 * from where it ran, and a command that runs elsewhere (env -C)
	 * opens it from there
	 */
	x->found = 1;
	if (strcmp(c->dir, x->fdir) != 0)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s runs in "
		    "another directory than the find whose paths it is given, "
		    "which may be relative to where find ran", c->name));
	c->recursive = 1;
	for (i = 0; i < x->nftree; i++) {
		before = x->ef->n;
		tw.s = x->ftree[i];
		tw.len = strlen(tw.s);
		tw.flags = 0;
		x->curonly = x->fonly[i];
		x->curfold = x->ffold[i];
		r = letter(x, c, l, &tw);
		x->curonly = "";
		if (r == -1 ||
		    find_only(x, before, x->fonly[i], x->ffold[i]) == -1)
			return (-1);
		/* what find prints, a copy puts side by side */
		for (; before < x->ef->n; before++)
			if (x->ef->v[before].flags & JH_EF_TREE)
				x->ef->v[before].flags |= JH_EF_GLOB;
	}
	c->recursive = rec;
	return (0);
}

/*
 * A write (k JH_E_WRITE) or a delete of the path p, with its flags fl: a
 * tree written from another tree (cp -r, tar -x, rsync) may plant any
 * file, a program rewriting a tree in place (a formatter) plants none;
 * deleting a git directory destroys history.
 */
/*
 * gzip, bzip2, xz and their un-: the file an operand makes is another
 * name, the operand with the suffix taken off (or .tar for .tgz and the
 * like) or put on.  Both are written, as the mode may not be known; a
 * -S suffix is unknown in the table.
 */
static int
zip_outputs(struct ex *x, const struct cmdst *c, const char *p)
{
	static const char *const prog[] = { "gzip", "gunzip", "bzip2",
	    "bunzip2", "xz", "unxz", NULL };
	static const char *const add_sfx[] = { ".gz", ".gz", ".bz2", ".bz2",
	    ".xz", ".xz" };
	static const struct { const char *from, *to; } sfx[] = {
		{ ".tgz", ".tar" }, { ".taz", ".tar" }, { ".tbz", ".tar" },
		{ ".tbz2", ".tar" }, { ".txz", ".tar" }, { ".tlz", ".tar" },
		{ ".gz", "" }, { ".z", "" }, { ".Z", "" }, { ".bz2", "" },
		{ ".bz", "" }, { ".xz", "" }, { ".lzma", "" }, { NULL, NULL }
	};
	char o[PATH_MAX + 8];
	size_t i, n = strlen(p), m;

	for (i = 0; prog[i] != NULL && strcmp(prog[i], c->name) != 0; i++)
		;
	if (prog[i] == NULL)
		return (0);
	snprintf(o, sizeof(o), "%s%s", p, add_sfx[i]);
	if (add(x, JH_E_WRITE, jh_path_executed(o) ? JH_EF_EXECUTED : 0, o,
	    c->name, NULL) == -1)
		return (-1);
	for (i = 0; sfx[i].from != NULL; i++) {
		m = strlen(sfx[i].from);
		if (n > m && strcmp(p + n - m, sfx[i].from) == 0) {
			snprintf(o, sizeof(o), "%.*s%s", (int)(n - m), p,
			    sfx[i].to);
			return (add(x, JH_E_WRITE, jh_path_executed(o) ?
			    JH_EF_EXECUTED : 0, o, c->name, NULL));
		}
	}
	return (0);
}

/* Whether the literal prefixes (or, with end, suffixes) of two globs
 * agree: one is the start (the end) of the other, ignoring case. */
static int
ends_agree(const char *a, const char *b, int end)
{
	size_t na, nb, n;

	if (end) {
		const char *x = a + strlen(a), *y = b + strlen(b);
		while (x > a && strchr("*?]", x[-1]) == NULL)
			x--;
		while (y > b && strchr("*?]", y[-1]) == NULL)
			y--;
		na = strlen(x);
		nb = strlen(y);
		n = na < nb ? na : nb;
		return (strncasecmp(x + na - n, y + nb - n, n) == 0);
	}
	na = strcspn(a, "*?[");
	nb = strcspn(b, "*?[");
	n = na < nb ? na : nb;
	return (strncasecmp(a, b, n) == 0);
}

/*
 * Whether a name the glob g (a shell glob's last part) matches, copied
 * into the directory dir, may be a file a program executes: any name
 * there (dir is .git/hooks), or a name of the table's runs lists g may
 * match: a literal one g matches, one with a pattern whose literal ends
 * agree with g's (STAR.cmake and STAR.c cannot meet; STAR.json and
 * tsconfig.STAR.json may), each where dir would hold it.
 */
static int
glob_lands_executed(const char *dir, const char *g)
{
	char q[PATH_MAX * 2 + 2], inst[256];
	const char *r, *c, *l;
	unsigned long i;
	size_t n, k, j;

	snprintf(q, sizeof(q), "%s/x", dir);
	if (jh_path_executed(q))
		return (1);
	for (i = 0; i < jh_ncmdtab; i++) {
		if ((r = jh_cmdtab[i].runs) == NULL)
			continue;
		for (; *r != '\0'; r = *c ? c + 1 : c) {
			for (c = r; *c != '\0' && *c != ','; c++)
				;
			for (l = c; l > r && l[-1] != '/'; l--)
				;
			if ((n = (size_t)(c - l)) == 0 || n >= sizeof(inst))
				continue;
			memcpy(inst, l, n);
			inst[n] = '\0';
			if (strpbrk(inst, "*?[") == NULL) {
				if (fnmatch(g, inst, FNM_CASEFOLD) != 0)
					continue;
			} else {
				if (!ends_agree(g, inst, 0) ||
				    !ends_agree(g, inst, 1))
					continue;
				/* a name the pattern matches: x for each part */
				for (j = k = 0; inst[j] != '\0'; j++) {
					if (inst[j] == '[') {
						j += strcspn(inst + j, "]");
						inst[k++] = 'x';
						if (inst[j] == '\0')
							break;
					} else
						inst[k++] = inst[j] == '*' ||
						    inst[j] == '?' ? 'x' :
						    inst[j];
				}
				inst[k] = '\0';
			}
			snprintf(q, sizeof(q), "%s/%s", dir, inst);
			if (jh_path_executed(q))
				return (1);
		}
	}
	return (0);
}

/*
 * A write of a directory lands in it under a name the program picks:
 * cp SRC DIR/ makes DIR/SRC's name, go build -o DIR/ the package's.
 * It is marked executed where a file of that name there would be (for
 * each path the command read), or where any name there would be
 * (any name in .git/hooks): the write the name alone would have asked
 * about.
 */
static void
into_dirs(struct ex *x)
{
	char q[PATH_MAX * 2 + 2];
	struct jh_effect *w, *r;
	struct stat st;
	const char *b;
	size_t i, j;

	for (i = x->ef->n; i > 0 && x->ef->v[i - 1].cmd == x->cmd; i--) {
		w = &x->ef->v[i - 1];
		if (w->kind != JH_E_WRITE || w->path == NULL ||
		    (w->flags & JH_EF_EXECUTED))
			continue;
		/* any name: also a directory made there (clone DIR) */
		snprintf(q, sizeof(q), "%s/x", w->path);
		if (!jh_path_executed(q) && !(w->flags & JH_EF_TREE) &&
		    (stat(w->path, &st) == -1 || !S_ISDIR(st.st_mode)))
			continue;
		for (j = x->ef->n; !jh_path_executed(q) && j > 0 &&
		    x->ef->v[j - 1].cmd == x->cmd; j--) {
			r = &x->ef->v[j - 1];
			if (r->kind != JH_E_READ || r->path == NULL ||
			    (b = strrchr(r->path, '/')) == NULL || b[1] == '\0')
				continue;
			/*
			 * cp /tmp/e/STAR.json ., find -name N -exec cp {} .:
			 * the names a glob or find's name matches land there,
			 * or any name of a tree read
			 */
			if ((r->flags & JH_EF_TREE) &&
			    !(r->flags & JH_EF_META) &&
			    !(w->flags & JH_EF_INPLACE) && (r->only != NULL ?
			    glob_lands_executed(w->path, r->only) :
			    (r->flags & JH_EF_GLOB) ||
			    (tree_lands_executed(r->path, w->path) &&
			    !made_plain(x, r->path)))) {
				w->flags |= JH_EF_EXECUTED;
				break;
			}
			/* the name as written, where a link led elsewhere */
			if (r->name != NULL) {
				snprintf(q, sizeof(q), "%s/%s", w->path,
				    r->name);
				if (jh_path_executed(q))
					break;
			}
			snprintf(q, sizeof(q), "%s%s", w->path, b);
		}
		if (jh_path_executed(q))
			w->flags |= JH_EF_EXECUTED;
	}
}

/*
 * The host configuration a write of a directory may plant, by the name
 * it lands under (cp /tmp/e/.mcp.json ., ln -s /tmp/e/.claude .): that
 * name's write, which protection then refuses.  A glob's last part that
 * starts with a dot, or find's name (which matches a leading dot), may
 * match such a name; a glob part that matches a dot only as bash with
 * dotglob would makes the write executed instead (asked, not refused).
 */
static int
landing(struct ex *x)
{
	const char *const *names = jh_protected_names;
	char q[PATH_MAX * 2 + 2];
	const struct jh_effect *r;
	struct jh_effect *w;
	struct stat st;
	const char *b;
	size_t i, j, k, n0 = x->ef->n, first = n0;

	while (first > 0 && x->ef->v[first - 1].cmd == x->cmd)
		first--;
	for (i = first; i < n0; i++) {
		w = &x->ef->v[i];
		if (w->kind != JH_E_WRITE || w->path == NULL ||
		    (w->flags & JH_EF_INPLACE) || (!(w->flags & JH_EF_TREE) &&
		    (stat(w->path, &st) == -1 || !S_ISDIR(st.st_mode))))
			continue;
		for (j = first; j < n0; j++) {
			r = &x->ef->v[j];
			if (r->kind != JH_E_READ || r->path == NULL ||
			    (r->flags & JH_EF_META) ||
			    (b = strrchr(r->path, '/')) == NULL || b[1] == '\0')
				continue;
			for (k = 0; names[k] != NULL; k++) {
				if (!(r->flags & JH_EF_TREE) ?
				    strcasecmp(b + 1, names[k]) != 0 &&
				    (r->name == NULL || strcasecmp(r->name,
				    names[k]) != 0) :
				    r->only == NULL || fnmatch(r->only,
				    names[k], FNM_CASEFOLD) != 0)
					continue;
				w = &x->ef->v[i];
				if ((r->flags & JH_EF_ONLYTOP) &&
				    r->only[0] != '.') {
					w->flags |= JH_EF_EXECUTED;
					continue;
				}
				snprintf(q, sizeof(q), "%s/%s", w->path,
				    names[k]);
				if (add(x, JH_E_WRITE, 0, q, w->program,
				    NULL) == -1)
					return (-1);
				r = &x->ef->v[j];
			}
		}
	}
	return (0);
}

static int
letter_change(struct ex *x, struct cmdst *c, int k, int fl, const char *p)
{
	const char *fo;
	size_t before;
	int ff;

	if (k == JH_E_WRITE && zip_outputs(x, c, p) == -1)
		return (-1);

	if (k == JH_E_WRITE && (jh_path_executed(p) ||
	    ((fl & JH_EF_TREE) && !(fl & JH_EF_INPLACE) && tree_read(x, p))))
		fl |= JH_EF_EXECUTED;
	fo = (c->def->flags & JH_CT_FINDEXPR) && !c->fany ? c->fname :
	    x->curonly;
	ff = (c->def->flags & JH_CT_FINDEXPR) ? c->ffold : x->curfold;
	if (k == JH_E_DELETE && git_dir(p, fl, fo[0] ? fo : NULL, ff) &&
	    add(x, JH_E_VCS_DESTROY, 0, NULL, c->name, NULL) == -1)
		return (-1);
	before = x->ef->n;
	if (add(x, k, fl, p, c->name, NULL) == -1)
		return (-1);
	return (find_only(x, before, fo, ff));
}

/*
 * Whether a glob matches, now, a file a program executes; also where it
 * matches more than can be looked at, or cannot be read.
 */
static int
glob_runs(const struct cmdst *c, const struct jh_sh_word *w)
{
	char pat[PATH_MAX * 2 + 2], r[PATH_MAX + 1];
	struct jh_err e;
	glob_t g;
	size_t i;
	int hit = 0, k;

	if (w->s[0] != '/' && c->dir[0] == '\0')
		return (1);
	if (word_path(pat, sizeof(pat), c->dir, w->s) == -1)
		return (1);
	memset(&g, 0, sizeof(g));
	k = glob(pat, GLOB_NOSORT | GLOB_PERIOD | GLOB_BRACE, NULL, &g);
	if (k == GLOB_NOMATCH) {
		globfree(&g);
		return (0);
	}
	if (k != 0 || g.gl_pathc > 10000) {
		globfree(&g);
		return (1);
	}
	for (i = 0; i < g.gl_pathc && !hit; i++)
		hit = jh_path_executed(g.gl_pathv[i]) || (jh_path_resolve(r,
		    sizeof(r), "/", g.gl_pathv[i], &e) == 0 &&
		    jh_path_executed(r));
	globfree(&g);
	return (hit);
}

/*
 * A file letter (x f m r w d) on the path w names; for r also the file
 * an option value names as @FILE or <FILE.
 */
static int
letter_file(struct ex *x, struct cmdst *c, int l, const struct jh_sh_word *w)
{
	const char *at;
	char p[PATH_MAX + 1];
	struct stat st;
	int tree, skip, fl;

	/*
	 * An option value that names a file to read as @FILE or <FILE,
	 * alone or after NAME= (curl -d @body.json, -F f=@x, gh api -F
	 * k=@x): that file is read too.
	 */
	if (l == 'r' && !c->inops && w->flags == 0 &&
	    (at = strpbrk(w->s, "@<")) != NULL && at[1] != '\0' &&
	    (at == w->s || at[-1] == '=' || (strcmp(c->name, "curl") == 0 &&
	    memchr(w->s, '=', (size_t)(at - w->s)) == NULL)) &&
	    strcmp(at + 1, "-") != 0) {
		struct jh_sh_word aw = *w;
		aw.s = (char *)at + 1;
		aw.len = strlen(aw.s);
		if (letter(x, c, 'r', &aw) == -1)
			return (-1);
	}
	/* tee /dev/stderr, cat /dev/stdin: the command's own streams */
	if ((l == 'r' || l == 'w') && w->flags == 0 && std_stream(w->s))
		return (0);
	/* curl -o 'x#1': #N is what a {} or [] of the URL matched */
	if (l == 'w' && !c->inops && strcmp(c->name, "curl") == 0 &&
	    strchr(w->s, '#') != NULL)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "curl names "
		    "the file '%.100s' after what its URL's {} or [] match",
		    w->s));
	/*
	 * diff <(a) <(b), tee >(gzip >x.gz): a pipe the shell made, whose
	 * commands are listed on their own; read, written or listed, it is
	 * no file.  Run, sourced or loaded, it is code only known when it
	 * runs (path_of below).
	 */
	if ((l == 'r' || l == 'w' || l == 'm') && (w->flags &
	    JH_SHW_PROCSUB) && !c->delete && !c->inplace)
		return (0);
	if (path_of(x, c, w, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (skip)
		return (0);
	fl = tree || c->recursive ? JH_EF_TREE : 0;
	if (tree)
		fl |= JH_EF_GLOB;
	/* a recursive program given a file works on that file */
	if (!tree && c->recursive && stat(p, &st) == 0 && !S_ISDIR(st.st_mode))
		fl = 0;
	/* rm -f STAR.o: the directory, as far as the glob's last part goes */
	if (x->gtop[0] != '\0' && !(c->def->flags & JH_CT_FINDEXPR) &&
	    x->curonly[0] == '\0') {
		char top[FIND_NAME];
		size_t before = x->ef->n;
		int r;

		snprintf(top, sizeof(top), "%s", x->gtop);
		x->curonly = top;
		x->curfold = 1;
		r = letter_path(x, c, l, w, p, tree, fl | JH_EF_ONLYTOP);
		x->curonly = "";
		x->curfold = 0;
		if (r == -1 || glob_only(x, before, p, top) == -1 ||
		    glob_reads(x, before, p, top, NULL) == -1)
			return (-1);
		return (glob_links(x, before, p, top, NULL));
	}
	/* cat STAR/id: the links among what the whole word matches */
	if (tree && (w->flags & (JH_SHW_GLOB | JH_SHW_BRACE)) &&
	    (w->s[0] == '/' || c->dir[0] != '\0')) {
		char pat[PATH_MAX * 2 + 2];
		size_t before = x->ef->n;

		if (letter_path(x, c, l, w, p, tree, fl) == -1)
			return (-1);
		if (word_path(pat, sizeof(pat), c->dir, w->s) == -1)
			return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "'%.100s' "
			    "is too long to expand", w->s));
		if (glob_reads(x, before, NULL, NULL, pat) == -1)
			return (-1);
		return (glob_links(x, before, NULL, NULL, pat));
	}
	return (letter_path(x, c, l, w, p, tree, fl));
}

/*
 * cp /tmp/e/.mcp.json . where that is a link to notes.txt: the copy is
 * named .mcp.json, as the word says, not after where the link leads.
 * The read just added keeps the word's last part where the two differ.
 */
static int
read_name(struct ex *x, const struct jh_sh_word *w, const char *p)
{
	struct jh_effect *e;
	const char *a, *b;
	size_t n;

	if (x->ef->n == 0)
		return (0);
	e = &x->ef->v[x->ef->n - 1];
	if (e->kind != JH_E_READ || e->path == NULL ||
	    strcmp(e->path, p) != 0 || e->name != NULL ||
	    (w->flags & (JH_SHW_GLOB | JH_SHW_BRACE)))
		return (0);
	n = strlen(w->s);
	while (n > 1 && w->s[n - 1] == '/')
		n--;
	for (a = w->s + n; a > w->s && a[-1] != '/'; a--)
		;
	b = strrchr(p, '/');
	b = b != NULL ? b + 1 : p;
	if ((size_t)(w->s + n - a) == strlen(b) &&
	    strncmp(a, b, strlen(b)) == 0)
		return (0);
	if (w->s + n == a || strncmp(a, ".", (size_t)(w->s + n - a)) == 0 ||
	    strncmp(a, "..", (size_t)(w->s + n - a)) == 0)
		return (0);
	if ((e->name = strndup(a, (size_t)(w->s + n - a))) == NULL)
		return (jh_errf(x->e, "out of memory"));
	return (0);
}

/*
 * A tree find walks (PATH, or "." for none given): what its {} stands
 * for, narrowed by its one -name, and the directory it ran in.
 */
static void
found_tree(struct ex *x, const struct cmdst *c, const char *path)
{
	if (x->nftree >= MAX_FIND)
		return;
	snprintf(x->fonly[x->nftree], FIND_NAME, "%s", c->fany ? "" :
	    c->fname);
	x->ffold[x->nftree] = c->ffold;
	x->fcmd = x->cmd;
	snprintf(x->fdir, sizeof(x->fdir), "%s", c->dir);
	snprintf(x->ftree[x->nftree++], PATH_MAX + 1, "%s", path);
}

/* letter_file's effects of the path p its word w named, flags fl. */
static int
letter_path(struct ex *x, struct cmdst *c, int l, const struct jh_sh_word *w,
    const char *p, int tree, int fl)
{
	if (l == 'x' || l == 'f')
		return (add(x, JH_E_EXEC, fl | JH_EF_RUNS, p, c->name, NULL));
	if (l == 'm')
		/* ls, stat: the names and attributes, not the bytes */
		return (add(x, JH_E_READ, fl | JH_EF_META, p, c->name, NULL) ==
		    -1 ? -1 : 0);
	/*
	 * sed -i 's/a/b/' web/STAR.json rewrites what the glob matches now
	 * (an in-place program makes no file): package.json among them is
	 * the write of it a name would have asked about.
	 */
	if (tree && c->inplace && (w->flags & JH_SHW_GLOB) && glob_runs(c, w))
		fl |= JH_EF_EXECUTED;
	/*
	 * tee STAR.json writes what the glob matches when it runs, or the
	 * pattern's own name: package.json among them, where a name of the
	 * table's runs lists may match it (any, past the last part)
	 */
	else if (tree && l == 'w' && (w->flags &
	    (JH_SHW_GLOB | JH_SHW_BRACE)) && (!(fl & JH_EF_ONLYTOP) ||
	    glob_lands_executed(p, x->curonly)))
		fl |= JH_EF_EXECUTED;
	if (l == 'r' && c->delete)
		l = 'd';
	/* chmod -R, chown -R: the modes of what is there, no name made */
	if (l == 'w' && (strcmp(c->name, "chmod") == 0 ||
	    strcmp(c->name, "chown") == 0 || strcmp(c->name, "chgrp") == 0))
		fl |= JH_EF_INPLACE;
	if (l == 'r') {
		if (((c->def->flags & JH_CT_FINDEXPR) && !c->delete &&
		    c->inops) || (c->inops && (strcmp(c->name, "grep") == 0 ||
		    strcmp(c->name, "git ls-files") == 0)))
			found_tree(x, c, p);
		if (add(x, JH_E_READ, fl, p, c->name, NULL) == -1 ||
		    read_name(x, w, p) == -1)
			return (-1);
		if (!c->inplace)
			return (0);
		/* sed -i, black: what is there rewritten; cp -l: linked */
		l = 'w';
		fl |= JH_EF_INPLACE;
	}
	return (letter_change(x, c, l == 'w' ? JH_E_WRITE : JH_E_DELETE, fl,
	    p));
}

/*
 * Whether a program's file operand names code fetched to run: a URL, a
 * registry specifier (npm:, jsr:), or a module at a version on a host
 * (github.com/x/y@latest).
 */
static int
remote_code(const char *s)
{
	const char *at, *sl;

	if (strstr(s, "://") != NULL || strncmp(s, "npm:", 4) == 0 ||
	    strncmp(s, "jsr:", 4) == 0)
		return (1);
	if ((at = strrchr(s, '@')) == NULL || at == s ||
	    (sl = strchr(s, '/')) == NULL || sl > at)
		return (0);
	/* its first part a host name: a dot in it, not ./ or ../ */
	return (s[0] != '.' && memchr(s, '.', (size_t)(sl - s)) != NULL);
}

/*
 * ar's key where it puts members in the archive (r, q, with c, s, u, v,
 * D, U, S): the archive written, the members read, as the operands after
 * it say; t, x, p, d, m and the rest stay unknown.
 */
static int
ar_insert_key(const char *s)
{
	return (s[0] != '\0' && strspn(s, "rqcsuvDUS") == strlen(s) &&
	    strpbrk(s, "rq") != NULL);
}

/*
 * go build -ldflags "-s -w", -ldflags "-X main.version=1.2",
 * -gcflags "all=-N -l": flags that strip, set a string or turn off
 * optimisation; a value with any other word (-extld, -linkmode, -toolexec
 * reach programs) stays unknown.
 */
static int
go_flags(const char *s)
{
	static const char *const ok[] = { "-s", "-w", "-N", "-l", "-m",
	    "all=-N", "-trimpath", NULL };
	const char *t, *eq;
	size_t n;
	int x = 0;

	if (strpbrk(s, "'\"\\$`") != NULL)
		return (0);
	for (t = s; *(t += strspn(t, " ")) != '\0'; t += n) {
		n = strcspn(t, " ");
		if (x) {	/* -X importpath.name=value */
			eq = memchr(t, '=', n);
			if (eq == NULL || eq == t || strspn(t,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./-") != (size_t)(eq - t) ||
			    strspn(eq + 1, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-") !=
			    n - (size_t)(eq - t) - 1)
				return (0);
			x = 0;
		} else if (n == 2 && strncmp(t, "-X", 2) == 0)
			x = 1;
		else if (!in_list(ok, t, n))
			return (0);
	}
	return (!x);
}

/* An operand or option value whose meaning only the program knows. */
static int
letter_u(struct ex *x, const struct cmdst *c, const struct jh_sh_word *w)
{
	if (c->inops && w->flags == 0 && strcmp(c->name, "ar") == 0 &&
	    c->nops > 0 && c->ops[0] == w && ar_insert_key(w->s))
		return (0);
	if (!c->inops && w->flags == 0 && strncmp(c->name, "go ", 3) == 0 &&
	    c->opt != NULL && (memmem(c->opt->names, c->opt->nlen,
	    "ldflags", 7) != NULL || memmem(c->opt->names, c->opt->nlen,
	    "gcflags", 7) != NULL) && go_flags(w->s))
		return (0);
	/* pytest --cov-report=term-missing: a report, not a path */
	if (!c->inops && w->flags == 0 && strcmp(c->name, "pytest") == 0 &&
	    cov_report(w->s))
		return (0);
	/* pytest -p no:NAME only turns a plugin off */
	if (!c->inops && w->flags == 0 && strcmp(c->name, "pytest") == 0 &&
	    strncmp(w->s, "no:", 3) == 0)
		return (0);
	if (!c->inops && inert_define(c->name, w))
		return (0);
	/* kill %1, kill $!: a job this shell started itself */
	if (c->inops && strcmp(c->name, "kill") == 0 && ((w->flags == 0 &&
	    w->s[0] == '%') || ((w->flags & JH_SHW_EXPAND) &&
	    strcmp(w->s, "$!") == 0)))
		return (0);
	return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "what '%.100s' does "
	    "for %s is only known when it runs", w->s, c->name));
}

/* A URL or host: the network, or file:// a file. */
static int
letter_n(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	char p[PATH_MAX + 1];

	if (w->flags & JH_SHW_EXPAND)
		return (add(x, JH_E_NET, 0, NULL, c->name, "any"));
	/*
	 * curl expands {a,b} and [1-9] in a URL (unless -g), and -T
	 * uploads to a file: URL, a write of that file
	 */
	if (strcmp(c->name, "curl") == 0 && (strpbrk(w->s, "{[") != NULL ||
	    strncasecmp(w->s, "file:", 5) == 0))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "curl expands "
		    "a {} or [] in '%.100s' to other URLs, and may upload to "
		    "a file: URL", w->s));
	/* file:///etc/shadow is a read of that file */
	if (strncasecmp(w->s, "file://", 7) == 0) {
		struct jh_sh_word fw = *w;
		fw.s = (char *)w->s + 7;
		if (strncasecmp(fw.s, "localhost/", 10) == 0)
			fw.s += 9;
		fw.len = strlen(fw.s);
		if (fw.s[0] != '/')
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name,
			    "'%.100s' names a file on another host",
			    w->s));
		return (letter_file(x, c, 'r', &fw));
	}
	jh_url_host(w->s, p, sizeof(p));
	return (add(x, JH_E_NET, 0, NULL, c->name, "%s", p));
}

/* A program or file the command runs. */
static int
letter_x(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	if (c->inops && strcmp(w->s, "-") == 0 && w->flags == 0)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
		    "runs its standard input", c->name));
	/* deno run https://..., npm:x, go run host/mod@v: fetched code */
	if (remote_code(w->s))
		return (add(x, JH_E_INSTALL, 0, NULL, c->name, NULL) ==
		    -1 ? -1 : add(x, JH_E_UNKNOWN, 0, NULL, c->name,
		    "%s fetches '%.100s' and runs it", c->name, w->s));
	/*
	 * An option's value that is a command line (tar -I 'sh -c
	 * ...', git grep -O'cmd;:'): the shell runs it, so what it
	 * does is only known when it runs.
	 */
	if (!c->inops && strpbrk(w->s, " \t\n;&|<>()$`\\\"'*?[]{}~!#=")
	    != NULL)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
		    "runs the command line '%.100s': what it does is "
		    "only known when it runs", c->name, w->s));
	/* an option's value names a program; an operand is a file */
	if (!c->inops && !(w->flags & (JH_SHW_EXPAND | JH_SHW_GLOB |
	    JH_SHW_BRACE | JH_SHW_TILDE)) && strchr(w->s, '/') == NULL)
		return (add(x, JH_E_EXEC, JH_EF_RUNS, NULL, w->s,
		    NULL));
	return (letter_file(x, c, 'x', w));
}

/*
 * A word whose shape makes the program do more than its letter says: an
 * unknown added and 1, or 0 where the letter decides.
 */
static int
word_shape(struct ex *x, struct cmdst *c, int l, const struct jh_sh_word *w)
{
	const char *p0;

	if ((l == 'i' || l == 'A') && !expand_ok(c, w))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s' is "
		    "not literal: it may become options of %s", w->s,
		    c->name) == -1 ? -1 : 1);
	/* jest --config '{"setupFiles": [...]}': a JSON value, not a file */
	if (l == 'f' && !c->inops && w->s[0] == '{')
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s' is a "
		    "JSON value, not a file: what %s loads by it is only known "
		    "when it runs", w->s, c->name) == -1 ? -1 : 1);
	/* tar -f HOST:PATH: rsh runs rmt on HOST (tar-1.34 "Remote Tape") */
	if (c->rmt) {
		c->rmt = 0;
		if ((p0 = strchr(w->s, ':')) != NULL && p0 > w->s &&
		    memchr(w->s, '/', (size_t)(p0 - w->s)) == NULL)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
			    "reaches the archive '%.100s' on another host "
			    "through rsh", c->name, w->s) == -1 ? -1 : 1);
	}
	/*
	 * gcc @FILE: the file holds more options (-wrapper, -fplugin).
	 * Any word is read so, an option's value too (gcc -x @FILE), and
	 * one that starts with an expansion may start with @.
	 */
	if ((w->s[0] == '@' || ((w->flags & JH_SHW_EXPAND) && (w->s[0] ==
	    '$' || w->s[0] == '`'))) && in_list(respfile, c->name,
	    strlen(c->name)))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s reads "
		    "more options from a word that starts, or may start, with @ "
		    "('%.100s')", c->name, w->s) == -1 ? -1 : 1);
	/* strace -o '|CMD' (or !CMD) pipes its trace to a command it runs */
	if (!c->inops && (w->s[0] == '|' || w->s[0] == '!') &&
	    (strcmp(c->name, "strace") == 0 || strcmp(c->name, "ltrace") ==
	    0))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s runs "
		    "'%.100s' as a command", c->name, w->s + 1) == -1 ? -1 : 1);
	/* make -f -: the makefile is standard input */
	if (l == 'f' && !c->inops && strcmp(w->s, "-") == 0 && w->flags == 0)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s reads a "
		    "file of code from standard input", c->name) == -1 ? -1 :
		    1);
	return (0);
}

/* c: the directory the command works in from here (make -C, tar -C). */
static int
letter_c(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	char p[PATH_MAX + 1];
	int tree, skip;

	if ((c->def->flags & JH_CT_OPSDIR) && (c->nops > 0 || c->have_opsdir))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s -C after a "
		    "name, or a second time: each name is taken from the "
		    "directory named before it", c->name));
	if (path_of(x, c, w, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (c->def->flags & JH_CT_OPSDIR) {
		snprintf(c->opsdir, sizeof(c->opsdir), "%s", skip || tree ? "" :
		    p);
		c->have_opsdir = 1;
	} else if (skip || tree)
		c->dir[0] = '\0';
	else
		snprintf(c->dir, sizeof(c->dir), "%s", p);
	return (0);
}

/*
 * git's REV:PATH, :PATH and :N:PATH (git show HEAD:.env, git cat-file -p
 * :.env): the file's content as it was committed or staged is read, as
 * the file itself would be.  PATH is from the top of the work tree (the
 * project here), or from the command's directory after ./ or ../; :/TEXT
 * names a commit by its message, and a URL is no REV:PATH.
 */
static int
git_blob(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	const char *s = w->s, *path, *top;
	char rel[PATH_MAX * 2], p[PATH_MAX + 1];
	struct jh_sh_word v;
	int tree, skip;

	if (strncmp(c->name, "git ", 4) != 0 || !c->inops || w->flags != 0 ||
	    s[0] == '-' || strncmp(s, ":/", 2) == 0 ||
	    strstr(s, "://") != NULL || (path = strchr(s, ':')) == NULL)
		return (0);
	if (s[0] == ':' && s[1] >= '0' && s[1] <= '3' && s[2] == ':')
		path = s + 2;
	if (*++path == '\0')
		return (0);	/* REV: is the whole tree, listed */
	top = strncmp(path, "./", 2) == 0 || strncmp(path, "../", 3) == 0 ||
	    x->cx->root == NULL ? c->dir : x->cx->root;
	if (top[0] == '\0')
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s' is "
		    "relative to a directory this gate cannot follow", s));
	if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", top, path) >=
	    sizeof(rel))
		return (jh_errf(x->e, "path too long"));
	v.s = rel;
	v.len = strlen(rel);
	v.flags = 0;
	if (path_of(x, c, &v, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	return (skip ? 0 : add(x, JH_E_READ, 0, p, c->name, NULL));
}

/* Applies one effect letter to a word (an option's value or an operand). */
static int
letter(struct ex *x, struct cmdst *c, int l, const struct jh_sh_word *w)
{
	char p[PATH_MAX + 1];
	int tree, skip, r;

	if (c->keep && l == 'd')
		l = 'r';	/* git rm --cached, git clean -n: a read */
	if ((l == 'r' || l == 'i') && git_blob(x, c, w) == -1)
		return (-1);
	if ((x->cflags & JH_SHC_WRAPPED) && w->flags == 0 &&
	    strcmp(w->s, "{}") == 0 && x->nftree > 0 && c->def != NULL &&
	    strchr("rmwdxf", l) != NULL)
		return (letter_found(x, c, l));
	/*
	 * echo {}, basename {}: the paths as text (the table's
	 * JH_CT_TEXT).  An inert operand of another program may be its
	 * script (sed's, awk's), which a path may spell: those stay
	 * unknown.
	 */
	if ((x->cflags & JH_SHC_WRAPPED) && w->flags == 0 &&
	    strcmp(w->s, "{}") == 0 && x->nftree > 0 && l == 'i' &&
	    c->def != NULL && (c->def->flags & JH_CT_TEXT))
		x->found = 1;
	if ((r = word_shape(x, c, l, w)) != 0)
		return (r == -1 ? -1 : 0);
	switch (l) {
	case 'i':
		return (0);
	case 's':
		return (0);	/* handled by the caller */
	case 'A':
		/* make NAME=value: pasted into every recipe that uses it */
		if (strcmp(c->name, "make") == 0 && make_override(w))
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s'"
			    " is pasted into make's recipes", w->s));
		/* make -j $(nproc): one token, no path */
		if ((w->flags & JH_SHW_EXPAND) && !(w->flags & JH_SHW_TILDE) &&
		    tokens_only(w->s) && strchr(w->s, '/') == NULL &&
		    strstr(w->s, "..") == NULL)
			return (0);
		if (w->flags & (JH_SHW_EXPAND | JH_SHW_TILDE))
			return (path_of(x, c, w, p, sizeof(p), &tree, &skip));
		return (passed_on(x, c, w));
	case 'u':
		return (letter_u(x, c, w));
	case 'n':
		return (letter_n(x, c, w));
	case 'c':
		return (letter_c(x, c, w));
	case 'x':
		return (letter_x(x, c, w));
	case 'm':
	case 'f':
	case 'r':
	case 'w':
	case 'd':
		return (letter_file(x, c, l, w));
	default:
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the command "
		    "table has no effect '%c' (%s)", l, c->name));
	}
}

static int
letters(struct ex *x, struct cmdst *c, const char *ls,
    const struct jh_sh_word *w)
{
	for (; *ls != '\0'; ls++)
		if (letter(x, c, *ls, w) == -1)
			return (-1);
	return (0);
}

/* The tags of an option or an entry. */
static int
tags(struct ex *x, struct cmdst *c, const char *t, size_t len)
{
	static const struct {
		const char *tag;
		int kind;
	} k[] = { { "destroy", JH_E_VCS_DESTROY },
	    { "rewrite", JH_E_VCS_REWRITE }, { "remote", JH_E_VCS_REMOTE },
	    { "force", JH_E_VCS_FORCE }, { "net", JH_E_NET },
	    { "install", JH_E_INSTALL } };
	size_t i;

	if (t == NULL)
		return (0);
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (list_has(t, len, k[i].tag, strlen(k[i].tag)) &&
		    add(x, k[i].kind, 0, NULL, c->name, k[i].kind == JH_E_NET ?
		    "any" : NULL) == -1)
			return (-1);
	if (list_has(t, len, "exec", 4) &&
	    add(x, JH_E_EXEC, JH_EF_RUNS, NULL, c->name, NULL) == -1)
		return (-1);
	if (list_has(t, len, "unknown", 7) &&
	    add(x, JH_E_UNKNOWN, 0, NULL, c->name, "an option of %s that "
	    "is never provable", c->name) == -1)
		return (-1);
	if (list_has(t, len, "recursive", 9))
		c->recursive = 1;
	if (list_has(t, len, "inplace", 7))
		c->inplace = 1;
	if (list_has(t, len, "delete", 6))
		c->delete = 1;
	if (list_has(t, len, "pattern", 7))
		c->pattern = 1;
	if (list_has(t, len, "target", 6))
		c->target = 1;
	if (list_has(t, len, "symbolic", 8))
		c->symbolic = 1;
	if (list_has(t, len, "end", 3))
		c->endopts = 1;
	if (list_has(t, len, "rest", 4))
		c->rest = 1;
	if (list_has(t, len, "exit", 4))
		c->exits = 1;
	if (list_has(t, len, "keep", 4))
		c->keep = 1;
	if (list_has(t, len, "rmt", 3))
		c->rmt = 1;
	return (0);
}

static void
cmd_reset(struct cmdst *c, const struct jh_cmddef *d, const char *name)
{
	c->def = d;
	if (name != c->name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	opts_parse(&c->os, d->opts);
	c->endopts = 0;
	c->nops = 0;
	c->sawopt = 0;
	c->have_opsdir = 0;
	c->rmt = 0;
	if ((d->flags & JH_CT_FINDEXPR) || (d->tags != NULL &&
	    list_has(d->tags, strlen(d->tags), "recursive", 9)))
		c->recursive = 1;	/* find and rg walk every path given */
	/* black, go fmt: their operands are rewritten, known before them */
	if (d->tags != NULL && list_has(d->tags, strlen(d->tags), "inplace",
	    7))
		c->inplace = 1;
}

/*
 * An option whose value names a program that runs with the rest of the
 * words (python -m pytest -x): that command is decided on its own.
 */
/*
 * Python's own modules, compiled into it (sys.builtin_module_names of
 * CPython 3.11) or in its library: python -m loads runpy, site, os,
 * encodings and the like before it looks in the directory, and a
 * module already loaded is the one that runs, so a project's file of
 * such a name never is.
 */
static const char *const py_builtin[] = { "_abc", "_ast", "_codecs",
    "_collections", "_functools", "_imp", "_io", "_locale", "_operator",
    "_signal", "_sre", "_stat", "_string", "_symtable", "_thread",
    "_tokenize", "_tracemalloc", "_warnings", "_weakref", "atexit",
    "builtins", "errno", "faulthandler", "gc", "itertools", "marshal",
    "posix", "pwd", "sys", "time", "xxsubtype", NULL };

static int
py_stdlib(const char *top, size_t n)
{
	static const char *const where[] = { "/usr/lib/python3*/%.*s",
	    "/usr/lib/python3*/%.*s.py", "/usr/local/lib/python3*/%.*s",
	    "/usr/local/lib/python3*/%.*s.py",
	    "/usr/lib/python3*/lib-dynload/%.*s.*",
	    "/usr/local/lib/python3*/lib-dynload/%.*s.*", NULL };
	char pat[PATH_MAX];
	glob_t g;
	size_t i;
	int hit;

	if (in_list(py_builtin, top, n))
		return (1);
	for (i = 0; where[i] != NULL; i++) {
		snprintf(pat, sizeof(pat), where[i], (int)n, top);
		hit = glob(pat, GLOB_NOSORT, NULL, &g) == 0;
		if (hit)
			globfree(&g);
		if (hit)
			return (1);
	}
	return (0);
}

/*
 * python -m NAME where NAME is the project's own module: every file that
 * runs, where it really is (a link to /tmp runs what it leads to), into
 * out[0..*n).  NAME's dots are packages, each a directory with a regular
 * __init__.py in the directory python runs in, which -m puts first on
 * sys.path (a directory without one is a namespace package, which a
 * package installed anywhere else on the path takes before it); a
 * package named last runs its __main__.py, else NAME.py runs, as
 * python's finder looks for a package before a module.  Not a name of
 * Python's own (py_stdlib).  0, or -1 where it is not the project's.
 */
#define PY_FILES	16
static int
py_module(const struct cmdst *c, const struct jh_sh_word *v,
    char out[][PATH_MAX + 1], size_t *n)
{
	char dir[PATH_MAX + 1], lex[PATH_MAX * 2];
	const char *s = v->s, *dot;
	struct stat st;
	struct jh_err e;
	size_t len, k = 0;

	*n = 0;
	if ((strcmp(c->name, "python") != 0 && strcmp(c->name, "python3") !=
	    0) || v->flags != 0 || c->dir[0] == '\0' || s[0] == '\0' ||
	    strlen(s) >= PATH_MAX - 32 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_.") != strlen(s) || s[0] == '.' ||
	    strstr(s, "..") != NULL || s[strlen(s) - 1] == '.' ||
	    py_stdlib(s, strcspn(s, ".")))
		return (-1);
	snprintf(dir, sizeof(dir), "%s", c->dir);
	for (;;) {
		dot = strchr(s, '.');
		len = dot != NULL ? (size_t)(dot - s) : strlen(s);
		/* a package: its __init__.py runs */
		if ((size_t)snprintf(lex, sizeof(lex), "%s/%.*s/__init__.py",
		    dir, (int)len, s) < sizeof(lex) && lstat(lex, &st) == 0 &&
		    !S_ISDIR(st.st_mode) && stat(lex, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (k == PY_FILES || jh_path_resolve(out[k++],
			    PATH_MAX + 1, "/", lex, &e) == -1)
				return (-1);
			snprintf(lex, sizeof(lex), "%s/%.*s", dir, (int)len, s);
			if (strlen(lex) > PATH_MAX)
				return (-1);
			memcpy(dir, lex, strlen(lex) + 1);
			if (dot != NULL) {
				s = dot + 1;
				continue;
			}
			/* python -m PACKAGE runs its __main__.py */
			snprintf(lex, sizeof(lex), "%s/__main__.py", dir);
		} else if (dot != NULL)
			return (-1);
		else
			snprintf(lex, sizeof(lex), "%s/%s.py", dir, s);
		if (k == PY_FILES || stat(lex, &st) == -1 ||
		    !S_ISREG(st.st_mode) || jh_path_resolve(out[k++],
		    PATH_MAX + 1, "/", lex, &e) == -1)
			return (-1);
		*n = k;
		return (0);
	}
}

/* python -I or -P before -m (k is past its value): no cwd on sys.path */
static int
py_isolated(const struct jh_sh_word *av, size_t k)
{
	size_t i;

	for (i = 1; i < k; i++)
		if (av[i].s[0] == '-' && av[i].s[1] != '-' &&
		    strpbrk(av[i].s, "IP") != NULL)
			return (1);
	return (0);
}

static int
opt_program(struct ex *x, struct cmdst *c, const struct jh_sh_word *v,
    const struct jh_sh_word *av, size_t argc, size_t k, size_t *used)
{
	char *w[MAX_OPERANDS], (*py)[PATH_MAX + 1];
	int fl[MAX_OPERANDS], r = 0;
	size_t n = 1, npy, i;

	*used = argc;	/* the rest belongs to that command */
	c->handed = 1;
	if ((py = malloc(PY_FILES * sizeof(*py))) == NULL)
		return (jh_errf(x->e, "out of memory"));
	if (!py_isolated(av, k) && py_module(c, v, py, &npy) == 0) {
		/* the project's code, and its words passed on to it */
		for (i = 0; r == 0 && i < npy; i++)
			r = add(x, JH_E_EXEC, JH_EF_RUNS, py[i], c->name, NULL);
		free(py);
		if (r == -1)
			return (-1);
		for (; k < argc; k++)
			if (letter(x, c, 'A', &av[k]) == -1)
				return (-1);
		return (0);
	}
	free(py);
	if (x->nest >= MAX_NEST)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "commands "
		    "nested too deep"));
	w[0] = v->s;
	fl[0] = v->flags;
	for (; k < argc && n < MAX_OPERANDS; k++, n++) {
		w[n] = av[k].s;
		fl[n] = av[k].flags;
	}
	if (k < argc)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a command of "
		    "more than %d words", MAX_OPERANDS));
	return (command(x, c->dir, w, fl, n, 1));
}

/*
 * The value of option o at argv[k]: attached (att, not NULL), else the
 * next word unless the value is optional.  *used is the words taken.
 */
static int	opt_value1(struct ex *, struct cmdst *, const struct optspec *,
		    const char *, const struct jh_sh_word *, size_t, size_t,
		    size_t *);

/*
 * An option's value.  A file an option writes is that one file, also
 * where the program's operands are trees (tar -cf x.tgz, flake8
 * --output-file): only a destination (target: cp -r -t DIR) is a tree.
 */
static int
opt_value(struct ex *x, struct cmdst *c, const struct optspec *o,
    const char *att, const struct jh_sh_word *av, size_t argc, size_t k,
    size_t *used)
{
	int rec = c->recursive, r;

	c->opt = o;	/* whose value it is, for letter_u */
	if (o->eff != 'w' || !rec || has_tag(o, "target"))
		r = opt_value1(x, c, o, att, av, argc, k, used);
	else {
		c->recursive = 0;
		r = opt_value1(x, c, o, att, av, argc, k, used);
		c->recursive = rec;
	}
	c->opt = NULL;
	return (r);
}

/* An option's second value word, at argv[k], where it takes one. */
static int
opt_second(struct ex *x, struct cmdst *c, const struct optspec *o,
    const struct jh_sh_word *av, size_t argc, size_t k, size_t *used)
{
	if (o->eff2 == 0)
		return (0);
	if (k >= argc)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s %s needs "
		    "two values", c->name, av[*used == 2 ? k - 2 : k - 1].s));
	*used = *used + 1;
	return (letter(x, c, o->eff2, &av[k]));
}

static int
opt_value1(struct ex *x, struct cmdst *c, const struct optspec *o,
    const char *att, const struct jh_sh_word *av, size_t argc, size_t k,
    size_t *used)
{
	struct jh_sh_word vw;

	if (att != NULL) {
		vw = av[k];
		vw.s = (char *)att;
		if (o->eff == 'P')
			return (opt_program(x, c, &vw, av, argc, k + 1, used));
		if (letter(x, c, o->eff, &vw) == -1)
			return (-1);
		return (opt_second(x, c, o, av, argc, k + 1, used));
	}
	if (o->val == '?')
		return (0);
	if (k + 1 >= argc)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s %s needs a "
		    "value", c->name, av[k].s));
	*used = 2;
	if (o->eff == 'P')
		return (opt_program(x, c, &av[k + 1], av, argc, k + 2, used));
	if (letter(x, c, o->eff, &av[k + 1]) == -1)
		return (-1);
	return (opt_second(x, c, o, av, argc, k + 2, used));
}

/*
 * --setup-files as --setupFiles, for a program whose option parser
 * takes either (yargs, cac), or NULL.
 */
static const struct optspec *
camel_find(const struct optset *os, const char *s, size_t wl)
{
	char cc[128];
	size_t i, n = 0;
	int ambig;

	if (wl >= sizeof(cc) || memchr(s + 2, '-', wl - 2) == NULL)
		return (NULL);
	for (i = 0; i < wl; i++) {
		if (i > 2 && s[i] == '-' && i + 1 < wl && isalpha((unsigned
		    char)s[i + 1]))
			cc[n++] = (char)toupper((unsigned char)s[++i]);
		else
			cc[n++] = s[i];
	}
	return (opt_find(os, cc, n, 0, &ambig));
}

/*
 * One option word at argv[k]; *used is how many words it took.  A
 * value-taking option runs its value's letter; its tags are applied.
 */
static int
option(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc, size_t k, size_t *used)
{
	const struct jh_sh_word *w = &av[k];
	const struct optspec *o;
	const char *eq, *s = w->s;
	size_t i, wl;
	int ambig, dl = (c->def->flags & JH_CT_DASHLONG) != 0;

	*used = 1;
	if ((w->flags & JH_SHW_EXPAND) && (!tokens_only(s) ||
	    strcspn(s, "$`") < 2 || (s[1] == '-' && strchr(s, '=') ==
	    NULL)))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s' is "
		    "not literal: which option it is is only known when it "
		    "runs", s));
	if (s[1] == '-' || dl) {
		eq = strchr(s, '=');
		wl = eq ? (size_t)(eq - s) : strlen(s);
		o = opt_find(&c->os, s, wl, (c->def->flags & JH_CT_ABBREV) &&
		    s[1] == '-', &ambig);
		if (o == NULL && (c->def->flags & JH_CT_CAMEL) && s[1] == '-')
			o = camel_find(&c->os, s, wl);
		if (o == NULL && dl && s[1] != '-' && strlen(s) > 2)
			goto shorts;	/* -name unknown: try -n -a -m -e */
		if (o == NULL) {
			if (c->os.any && !ambig && !eq)
				return (0);
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the "
			    "command table does not know %s %.*s%s", c->name,
			    (int)wl, s, ambig ? " (ambiguous)" : ""));
		}
		if (tags(x, c, o->tags, o->tlen) == -1)
			return (-1);
		if (!o->val) {
			if (eq != NULL)
				return (add(x, JH_E_UNKNOWN, 0, NULL, c->name,
				    "%s %.*s takes no value", c->name, (int)wl,
				    s));
			return (0);
		}
		return (opt_value(x, c, o, eq ? eq + 1 : NULL, av, argc, k,
		    used));
	}
shorts:
	for (i = 1; s[i] != '\0'; i++) {
		char sn[3] = { '-', s[i], '\0' };
		/*
		 * No cluster: -name is one option the table does not know
		 * (go test -test.coverprofile=F is not -t -e ... -o F)
		 */
		if (i > 1 && (c->def->flags & JH_CT_NOCLUSTER)) {
			if (c->os.any && strchr(s, '=') == NULL)
				return (0);
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the "
			    "command table does not know %s %.100s", c->name,
			    s));
		}
		o = opt_find(&c->os, sn, 2, 0, &ambig);
		if (o == NULL) {
			if (c->os.any)
				continue;
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the "
			    "command table does not know %s %s", c->name, sn));
		}
		if (tags(x, c, o->tags, o->tlen) == -1)
			return (-1);
		if (!o->val)
			continue;
		return (opt_value(x, c, o, s[i + 1] != '\0' ? s + i + 1 :
		    NULL, av, argc, k, used));
	}
	return (0);
}

/* The rest of the words, from k, are a command this one runs. */
static int
nested(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc, size_t k)
{
	char *w[MAX_OPERANDS];
	int fl[MAX_OPERANDS];
	size_t n = 0;

	if (x->nest >= MAX_NEST)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "commands "
		    "nested too deep"));
	for (; k < argc && n < MAX_OPERANDS; k++, n++) {
		w[n] = av[k].s;
		fl[n] = av[k].flags;
	}
	if (k < argc)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a command of "
		    "more than %d words", MAX_OPERANDS));
	if (n == 0)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s without "
		    "the command it runs", c->name));
	snprintf(c->runs, sizeof(c->runs), "%s", fl[0] ? "" : w[0]);
	/* the runner itself (sudo, npx, uv run) is an exec of its own */
	if (!(c->def->flags & JH_CT_WRAPPER) && add(x, JH_E_EXEC, JH_EF_RUNS,
	    c->dir[0] ? c->dir : NULL, c->name, NULL) == -1)
		return (-1);
	return (command(x, c->dir, w, fl, n, 1));
}

/* A chmod mode: octal, or [ugoa]*[-+=][rwxXstugo]* clauses. */
static int
is_mode(const char *s)
{
	if (s[0] >= '0' && s[0] <= '7')
		return (strspn(s, "01234567") == strlen(s));
	for (;;) {
		s += strspn(s, "ugoa");
		if (*s != '+' && *s != '-' && *s != '=')
			return (0);
		do
			s += 1 + strspn(s + 1, "rwxXstugo");
		while (*s == '+' || *s == '-' || *s == '=');
		if (*s == '\0')
			return (1);
		if (*s++ != ',')
			return (0);
	}
}

/*
 * A program given no path reads its directory: ls lists it, find and a
 * recursive grep or rg search the tree; a filter reads only its input.
 */
static int
no_paths(struct ex *x, struct cmdst *c, int meta)
{
	int rec = c->recursive || (c->def->flags & JH_CT_FINDEXPR);

	if ((c->def->flags & JH_CT_FILTER) && !c->recursive)
		return (0);
	if (c->dir[0] == '\0')
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s reads a "
		    "directory this gate cannot follow", c->name));
	/* find with no starting point walks ".": its -exec's {} too */
	if (((c->def->flags & JH_CT_FINDEXPR) && !c->delete) ||
	    strcmp(c->name, "grep") == 0 ||
	    strcmp(c->name, "git ls-files") == 0)
		found_tree(x, c, c->dir);
	return (add(x, JH_E_READ, (rec ? JH_EF_TREE : 0) | (meta ? JH_EF_META :
	    0), c->dir, c->name, NULL));
}

/*
 * Whether an earlier command of the line makes path p a plain file: a
 * redirection of the shell writes it (jq . f > f.tmp), and nothing
 * else written before it is p or a tree that holds it (ln -s, tar x,
 * git checkout could make it a link).  What a program run before does
 * is the exec capability's to grant, as running it alone is.
 */
static int
made_plain(const struct ex *x, const char *p)
{
	char r[PATH_MAX + 1];
	struct jh_err e;
	size_t i;
	int made = 0;

	if (jh_path_resolve(r, sizeof(r), "/", p, &e) == -1)
		return (0);
	for (i = 0; i < x->ef->n; i++) {
		const struct jh_effect *v = &x->ef->v[i];
		if (v->cmd >= x->cmd || (v->kind != JH_E_WRITE &&
		    v->kind != JH_E_DELETE) || v->path == NULL ||
		    !(strcmp(v->path, r) == 0 || ((v->flags & JH_EF_TREE) &&
		    jh_path_under(r, v->path))))
			continue;
		if (v->kind != JH_E_WRITE || !(v->flags & JH_EF_REDIR) ||
		    strcmp(v->path, r) != 0)
			return (0);
		made = 1;
	}
	return (made);
}

/*
 * mv moves a link itself: its text, relative, is read again from where
 * it lands (a/b/up -> ../.. moved to h leads two levels higher), which
 * is as making a link to that place, a write of it (as ln -s is).  A
 * source that is not there yet may be a link an earlier command of the
 * line makes: unknown.
 */
static int
moved_links(struct ex *x, const struct cmdst *c)
{
	char sp[PATH_MAX * 2], dp[PATH_MAX * 2], txt[PATH_MAX], q[PATH_MAX + 1];
	struct jh_err e;
	struct stat st;
	const struct jh_sh_word *d;
	char *sl;
	size_t i, n;
	ssize_t k;

	if (strcmp(c->name, "mv") != 0 || c->dir[0] == '\0' || c->nops < 1 ||
	    (!c->target && c->nops < 2))
		return (0);
	n = c->target ? c->nops : c->nops - 1;
	d = c->target ? NULL : c->ops[c->nops - 1];
	for (i = 0; i < n; i++) {
		const struct jh_sh_word *w = c->ops[i];
		if (w->flags != 0)
			continue;	/* decided as not literal already */
		if (word_path(sp, sizeof(sp), c->dir, w->s) == -1)
			continue;
		if (lstat(sp, &st) == -1 && made_plain(x, sp))
			continue;
		if (lstat(sp, &st) == -1)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "mv "
			    "moves '%.100s', which is not there yet: if an "
			    "earlier command makes it a link, where it leads "
			    "changes where it lands", w->s));
		if (!S_ISLNK(st.st_mode))
			continue;
		if ((k = readlink(sp, txt, sizeof(txt) - 1)) <= 0)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "cannot "
			    "read the link %.100s", w->s));
		txt[k] = '\0';
		if (d == NULL || d->flags != 0 || (size_t)snprintf(dp,
		    sizeof(dp), "%s%s%s", d->s[0] == '/' ? "" : c->dir,
		    d->s[0] == '/' ? "" : "/", d->s) >= sizeof(dp))
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "mv "
			    "moves the link %.100s where its directory is not "
			    "known", w->s));
		/* into a directory, or as the name dp */
		if (stat(dp, &st) == -1 || !S_ISDIR(st.st_mode)) {
			if ((sl = strrchr(dp, '/')) == NULL)
				continue;
			*sl = '\0';
		}
		if (jh_path_resolve(q, sizeof(q), dp, txt, &e) == -1)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the "
			    "link %.100s leads where this gate cannot follow "
			    "once moved: %s", w->s, e.msg));
		if (add(x, JH_E_WRITE, jh_path_executed(q) ? JH_EF_EXECUTED :
		    0, q, c->name, NULL) == -1)
			return (-1);
	}
	return (0);
}

/* Keeps p as a link this command makes, for the commands after it. */
static int
mklink_add(struct ex *x, const char *p)
{
	if (x->nmklink == MAX_MKLINK)
		return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "the line makes "
		    "more than %d links, which later commands may go "
		    "through", MAX_MKLINK));
	snprintf(x->mklink[x->nmklink], sizeof(x->mklink[0]), "%s", p);
	x->mkcmd[x->nmklink++] = x->cmd;
	return (0);
}

/*
 * The links ln and cp -s or -l make, and mv moves: a later command of
 * the line that names a path through one is unknown (path_of), as the
 * link is not there to follow when the line is decided.  ln -s T DIR,
 * DIR a directory or a link to one, makes DIR/T's last part.
 */
static int
note_links(struct ex *x, const struct cmdst *c)
{
	char p[PATH_MAX + 1], d[PATH_MAX * 2 + 2], q[PATH_MAX + 1];
	const struct jh_sh_word *l;
	struct jh_err e;
	struct stat st;
	const char *b, *t;
	size_t i, n, k;
	int todir, mv = strcmp(c->name, "mv") == 0;

	if (c->dir[0] == '\0' || c->nops == 0 || !(strcmp(c->name, "ln") ==
	    0 || mv || (strcmp(c->name, "cp") == 0 && c->inplace)))
		return (0);
	if (c->target || (c->nops == 1 && strcmp(c->name, "ln") != 0)) {
		/* mv -t DIR: only where it moves a link */
		for (i = 0; mv && i < c->nops; i++) {
			t = c->ops[i]->s;
			if (word_path(d, sizeof(d), c->dir, t) == 0 &&
			    lstat(d, &st) == 0 &&
			    S_ISLNK(st.st_mode))
				break;
		}
		if (mv && i == c->nops)
			return (0);
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s makes "
		    "links where this gate does not keep them", c->name));
	}
	n = c->nops == 1 ? 1 : c->nops - 1;
	l = c->nops == 1 ? NULL : c->ops[c->nops - 1];
	if (l != NULL && (l->flags != 0 || (size_t)snprintf(p, sizeof(p),
	    "%s%s%s", l->s[0] == '/' ? "" : c->dir, l->s[0] == '/' ? "" :
	    "/", l->s) >= sizeof(p)))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s makes a "
		    "link whose path is not known", c->name));
	todir = l == NULL || (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	for (i = 0; i < n; i++) {
		t = c->ops[i]->s;
		if (mv) {
			/* only a link moved is one (a missing one: unknown) */
			if (word_path(d, sizeof(d), c->dir, t) == -1 ||
			    lstat(d, &st) == -1 ||
			    !S_ISLNK(st.st_mode))
				continue;
		}
		k = strlen(t);
		while (k > 1 && t[k - 1] == '/')
			k--;
		for (b = t + k; b > t && b[-1] != '/'; b--)
			;
		if ((size_t)(todir ? snprintf(d, sizeof(d), "%s/%.*s",
		    l == NULL ? c->dir : p, (int)(t + k - b), b) :
		    snprintf(d, sizeof(d), "%s", p)) >= sizeof(d) ||
		    jh_path_resolve(q, sizeof(q), "/", d, &e) == -1)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
			    "makes a link whose path this gate cannot "
			    "resolve", c->name));
		if (mklink_add(x, q) == -1)
			return (-1);
		if (!todir)
			break;	/* one link: the last operand */
	}
	return (0);
}

/*
 * git clone fills a directory with whatever the repository holds (a
 * nested .claude, a package.json): a tree written, executed where it is
 * in the project; with no directory given, the one its name makes here.
 */
static int
clone_dest(struct ex *x, const struct cmdst *c)
{
	char name[256], p[PATH_MAX + 1];
	const struct jh_sh_word *u;
	struct jh_err e;
	size_t i, n;
	int fl = JH_EF_TREE;
	const char *b;

	if (strcmp(c->name, "git clone") != 0 || c->nops < 1)
		return (0);
	if (c->nops >= 2) {
		/* the directory the operand rule wrote: a tree, executed */
		for (i = x->ef->n; i > 0 && x->ef->v[i - 1].cmd == x->cmd;
		    i--) {
			struct jh_effect *w = &x->ef->v[i - 1];
			if (w->kind != JH_E_WRITE || w->path == NULL)
				continue;
			w->flags |= JH_EF_TREE;
			if (x->cx->root != NULL &&
			    jh_path_under(w->path, x->cx->root))
				w->flags |= JH_EF_EXECUTED;
		}
		return (0);
	}
	u = c->ops[0];
	n = strlen(u->s);
	while (n > 0 && u->s[n - 1] == '/')
		n--;
	if (n > 4 && strncmp(u->s + n - 4, ".git", 4) == 0)
		n -= 4;
	while (n > 0 && u->s[n - 1] == '/')
		n--;
	for (b = u->s + n; b > u->s && b[-1] != '/' && b[-1] != ':'; b--)
		;
	if (u->flags != 0 || c->dir[0] == '\0' || b == u->s + n ||
	    (size_t)(u->s + n - b) >= sizeof(name))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "git clone "
		    "makes a directory named after '%.100s' that this gate "
		    "cannot tell", u->s));
	snprintf(name, sizeof(name), "%.*s", (int)(u->s + n - b), b);
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    jh_path_resolve(p, sizeof(p), c->dir, name, &e) == -1)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "git clone "
		    "makes a directory named after '%.100s' that this gate "
		    "cannot tell", u->s));
	if (x->cx->root != NULL && jh_path_under(p, x->cx->root))
		fl |= JH_EF_EXECUTED;
	return (add(x, JH_E_WRITE, fl, p, c->name, NULL));
}

/*
 * ln -s TARGET LINK: a relative TARGET is found from LINK's directory,
 * not the working directory.  1 with that directory in ldir where it
 * is another (LINK a directory, or with a slash); 2 where that is not
 * known (-t, whose directory is not kept, or one not there yet): the
 * target is unknown, and its path is not taken from here.
 */
static int
link_elsewhere(struct ex *x, const struct cmdst *c, char *ldir, size_t sz)
{
	char p[PATH_MAX * 2];
	struct stat st;
	const struct jh_sh_word *l;
	const char *sl;
	size_t i;

	/* one operand: the link is made here, under the target's name */
	if (!c->symbolic || (!c->target && c->nops < 2))
		return (0);
	for (i = 0; i < c->nops - (c->target ? 0 : 1); i++)
		if (c->ops[i]->s[0] != '/')
			break;
	if (i == c->nops - (c->target ? 0 : 1))
		return (0);	/* every target absolute */
	if (c->target)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "ln -s -t with "
		    "a relative target: it is found from the link's "
		    "directory") == -1 ? -1 : 2);
	l = c->ops[c->nops - 1];
	if ((size_t)snprintf(p, sizeof(p), "%s/%s", c->dir, l->s) >=
	    sizeof(p) || l->flags != 0 || c->dir[0] == '\0')
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "ln -s with a "
		    "relative target and a link whose directory is not "
		    "known") == -1 ? -1 : 2);
	/* a link to a directory, as a directory: ln makes the link in it */
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
		sl = p + strlen(p);
	else if ((sl = strrchr(p, '/')) == NULL || sl < p + strlen(c->dir))
		return (0);	/* the link is made here */
	if ((size_t)snprintf(ldir, sz, "%.*s", (int)(sl - p), p) >= sz ||
	    stat(ldir, &st) == -1 || !S_ISDIR(st.st_mode))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "ln -s with a "
		    "relative target and a link in a directory that is not "
		    "there yet") == -1 ? -1 : 2);
	return (1);
}

/* The operands, by the entry's rules. */
static int
operands(struct ex *x, struct cmdst *c)
{
	struct rule r[MAX_RULES];
	char ldir[PATH_MAX + 1], here[PATH_MAX + 1];
	size_t nr = rules_parse(r, c->def->args), ri = 0, i, end = c->nops;
	size_t pr, npr = 0, first = 0;
	const struct rule *last = NULL;
	int k;

	c->inops = 1;
	if (c->handed)
		return (0);
	if ((k = link_elsewhere(x, c, ldir, sizeof(ldir))) == -1)
		return (-1);
	if (k == 1) {
		memcpy(here, c->dir, sizeof(here));
		snprintf(c->dir, sizeof(c->dir), "%s", ldir);
	}
	/* tar -C DIR: the names are taken there, the archive was not */
	if (c->have_opsdir)
		memcpy(c->dir, c->opsdir, sizeof(c->dir));
	if (c->pattern && nr > 0 && !r[0].last)
		ri = 1;
	/* chmod's mode (chmod(1)) is no path; a word unlike one stays w */
	if (strcmp(c->name, "chmod") == 0 && c->nops > 1 &&
	    c->ops[0]->flags == 0 && is_mode(c->ops[0]->s))
		first = 1;
	/* a shell or an interpreter given no script runs its input */
	if (c->nops == 0 && !c->exits && ri < nr && !r[ri].last &&
	    strchr(r[ri].eff, 'x') != NULL && (c->def->flags & JH_CT_RUNS))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s given no "
		    "script runs its standard input", c->name));
	/* the path rule: the first that reads, from where operands start */
	for (pr = ri; pr < nr && (r[pr].last || (strcmp(r[pr].eff, "r") != 0 &&
	    strcmp(r[pr].eff, "m") != 0)); pr++)
		;
	for (i = 0; i < nr; i++)
		if (r[i].last && !c->target)
			last = &r[i];
	if (last != NULL && end > 0 && end > ri)
		end--;
	else
		last = NULL;
	for (i = first; i < end; i++) {
		const char *ls;
		while (ri < nr && r[ri].last)
			ri++;
		if (ri >= nr)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
			    "takes no operand '%.100s' the command table "
			    "knows", c->name, c->ops[i]->s));
		ls = r[ri].eff;
		if (ri == pr)
			npr++;
		/* a relative link target found from where is not known */
		if (k == 2 && c->ops[i]->s[0] != '/') {
			if (!r[ri].star)
				ri++;
			continue;
		}
		if (letters(x, c, ls, c->ops[i]) == -1)
			return (-1);
		if (!r[ri].star)
			ri++;
	}
	if (k == 1)
		memcpy(c->dir, here, sizeof(here));
	if (last != NULL && letters(x, c, last->eff, c->ops[end]) == -1)
		return (-1);
	if (pr < nr && npr == 0 && last == NULL)
		return (no_paths(x, c, strcmp(r[pr].eff, "m") == 0));
	return (0);
}

/* Past a part of a sed command delimited by d, from p; NULL if unclosed. */
static const char *
sed_part(const char *p, char d)
{
	for (; *p != '\0' && *p != '\n'; p++) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == d)
			return (p + 1);
	}
	return (NULL);
}

/*
 * Past a sed address at p (a line number with ~N, $, /RE/ or \cREc with
 * I or M, and a second one after a comma, or +N, ~N), or p where none
 * starts; NULL where one is cut short.
 */
static const char *
sed_addr(const char *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (*p == '$')
			p++;
		else if (isdigit((unsigned char)*p) || (i == 1 && (*p == '+' ||
		    *p == '~'))) {
			p++;
			while (isdigit((unsigned char)*p) || *p == '~')
				p++;
		} else if (*p == '/' || (*p == '\\' && p[1] != '\0' &&
		    p[1] != '\n')) {
			if ((p = sed_part(p + (*p == '/' ? 1 : 2), *p == '/' ?
			    '/' : p[1])) == NULL)
				return (NULL);
			while (*p == 'I' || *p == 'M')
				p++;
		} else
			return (i == 0 ? p : NULL);
		if (i == 1 || *p != ',')
			return (p);
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return (p);
}

/*
 * Whether a sed script or an awk program may run a command, or read or
 * write a file of its own choosing.  A sed script is read command by
 * command, each after its address (an s inside /RE/ is no command): s
 * and y have their parts skipped (an s's flags are inert only as g, p,
 * i, m and a count: not e or w), a, i and c their text, labels theirs;
 * e, w, W, r, R, v, F, z, Q or a letter not known are risky.  An awk
 * program is risky with system(), getline, a pipe, a redirection,
 * close, fflush, @load, @include, or ARGV or ARGC (files it names
 * itself).
 */
/*
 * Whether an awk program's '|' or '>' may be a pipe or a redirection.
 * A program with no '/' (so no regular expression, whose text could
 * hide a quote) is read past its strings and comments: there '||' is
 * an or, and a '>' is a comparison outside the braces of an action or
 * inside parentheses (print (a > b) compares; print a > b writes).
 * Any other program's '|' or '>' is taken as risky.
 */
static int
awk_redirects(const char *s)
{
	const char *p;
	int brace = 0, paren = 0;

	if (strchr(s, '/') != NULL)
		return (strchr(s, '|') != NULL || strchr(s, '>') != NULL);
	for (p = s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '\n')
					return (1);
				if (*p == '\\' && p[1] != '\0')
					p++;
			}
			break;
		case '#':
			p += strcspn(p, "\n");
			if (*p == '\0')
				return (0);
			break;
		case '{':
			brace++;
			break;
		case '}':
			brace--;
			break;
		case '(':
			paren++;
			break;
		case ')':
			paren--;
			break;
		case '|':
			if (p[1] != '|')
				return (1);
			p++;
			if (p[1] == '|')
				return (1);
			break;
		case '>':
			if (brace > 0 && paren <= 0)
				return (1);
			break;
		}
	}
	return (0);
}

/*
 * gawk's @: @load and @include, and an indirect call, @f("cat ...") with
 * f = "sys" "tem" made at run time (a newline or a backslash may come
 * between).  Any @, in a string or a regular expression too.
 */
static int
awk_at(const char *s)
{
	return (strchr(s, '@') != NULL);
}

static int
script_risky(const char *prog, const char *s)
{
	const char *p = s;
	char d;

	if (strcmp(prog, "sed") != 0)
		return (strstr(s, "system") != NULL || strstr(s, "getline") !=
		    NULL || awk_redirects(s) ||
		    strstr(s, "close") != NULL || strstr(s, "fflush") !=
		    NULL || awk_at(s) || strstr(s, "ARGV") != NULL ||
		    strstr(s, "ARGC") != NULL);
	for (;;) {
		while (*p != '\0' && strchr(" \t\n;{}", *p) != NULL)
			p++;
		if (*p == '\0')
			return (0);
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if ((p = sed_addr(p)) == NULL)
			return (1);
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		if (*p == '\0' || strchr("\n;{}", *p) != NULL)
			continue;
		if (*p == 's' || *p == 'y') {
			d = p[1];
			if (d == '\0' || d == '\n' || d == '\\' ||
			    (p = sed_part(p + 2, d)) == NULL ||
			    (p = sed_part(p, d)) == NULL)
				return (1);
			for (; *p != '\0' && strchr(";\n}", *p) == NULL; p++)
				if (strchr("gpiImM0123456789 \t", *p) == NULL)
					return (1);
			continue;
		}
		if (strchr("aic", *p) != NULL) {
			p += strcspn(p, "\n");
			continue;
		}
		if (strchr(":btT", *p) != NULL) {
			p += strcspn(p, ";\n");
			continue;
		}
		if (strchr("pdDnNPhHgGxlLq=", *p) != NULL) {
			p++;
			while (isdigit((unsigned char)*p) || *p == ' ')
				p++;
			continue;
		}
		return (1);
	}
}

/*
 * The script an option of sed or awk gives at av[*k], or NULL: sed -e S,
 * -neS, -n -e S, --expr=S (any prefix of --expression), awk -e S and
 * --source=S (gawk).  *k moves past a value in the next word.
 */
static const char *
script_opt(int sed, const struct jh_sh_word *av, size_t argc, size_t *k)
{
	const char *s = av[*k].s, *eq, *e;
	size_t n;

	if (s[0] != '-' || s[1] == '\0')
		return (NULL);
	if (s[1] == '-') {
		eq = strchr(s, '=');
		n = eq != NULL ? (size_t)(eq - s - 2) : strlen(s + 2);
		if (n == 0 || strncmp(s + 2, sed ? "expression" : "source", n)
		    != 0)
			return (NULL);
	} else {
		/* flags without a value may come before the e */
		if ((e = strchr(s + 1, 'e')) == NULL || strspn(s + 1, sed ?
		    "nrsuzE" : "") != (size_t)(e - s - 1))
			return (NULL);
		eq = e[1] != '\0' ? e : NULL;
	}
	if (eq != NULL)
		return (eq + 1);
	return (*k + 1 < argc ? av[++*k].s : "");
}

/*
 * jq's and yq's filter, their first operand unless -f gave it: jq's
 * import and include, and yq's load operators, read files it names.
 */
static int
query(struct ex *x, struct cmdst *c)
{
	int jq = strcmp(c->name, "jq") == 0;
	const char *f;

	if ((!jq && strcmp(c->name, "yq") != 0) || c->pattern || c->nops == 0)
		return (0);
	f = c->ops[0]->s;
	if (c->ops[0]->flags & JH_SHW_EXPAND)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a %s filter "
		    "that is not literal", c->name));
	if (jq ? strstr(f, "import") != NULL || strstr(f, "include") !=
	    NULL : strstr(f, "load") != NULL)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a %s filter "
		    "that reads a file it names", c->name));
	return (0);
}

/*
 * sed -i SUFFIX (attached: -i.bak, -ni.orig, --in-place=.bak) keeps each
 * file's old text as FILE plus SUFFIX: a write of that name too.  A
 * suffix with a '/' or '*' names the backup elsewhere (sed(1)):
 * unknown.
 */
static int
sed_backups(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc, int given)
{
	char b[PATH_MAX + 64];
	struct jh_sh_word w;
	const char *sfx = NULL, *s;
	size_t k, i, n;

	for (k = 1; k < argc && strcmp(av[k].s, "--") != 0; k++) {
		s = av[k].s;
		if (strncmp(s, "--in-place=", 11) == 0)
			sfx = s + 11;
		else if (s[0] == '-' && s[1] != '-' && (n = strspn(s + 1,
		    "nEsruz")) < strlen(s + 1) && s[1 + n] == 'i' &&
		    s[2 + n] != '\0')
			sfx = s + 2 + n;
		else
			continue;
		if (av[k].flags != 0 || strpbrk(sfx, "/*") != NULL)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "sed -i's "
			    "backup suffix '%.100s' names a file of its own",
			    sfx));
	}
	if (sfx == NULL)
		return (0);
	for (i = given ? 0 : 1; i < c->nops; i++) {
		if (c->ops[i]->flags != 0)
			continue;
		snprintf(b, sizeof(b), "%s%s", c->ops[i]->s, sfx);
		w = *c->ops[i];
		w.s = b;
		w.len = strlen(b);
		if (letter(x, c, 'w', &w) == -1)
			return (-1);
	}
	return (0);
}

/* sed and awk: the script, the first operand unless an option gave it. */
static int
scripts(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc)
{
	const char *v;
	size_t k;
	int given = 0, sed = strcmp(c->name, "sed") == 0;

	if (query(x, c) == -1)
		return (-1);
	if (!sed && strcmp(c->name, "awk") != 0 && strcmp(c->name, "gawk") !=
	    0 && strcmp(c->name, "mawk") != 0)
		return (0);
	for (k = 1; k < argc; k++) {
		if (strcmp(av[k].s, "--") == 0)
			break;
		if ((v = script_opt(sed, av, argc, &k)) == NULL)
			continue;
		given = 1;
		if (av[k].flags & JH_SHW_EXPAND)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a %s "
			    "script that is not literal", c->name));
		if (script_risky(sed ? "sed" : "awk", v))
			goto risky;
	}
	if (sed && sed_backups(x, c, av, argc, given) == -1)
		return (-1);
	if (given || c->nops == 0)
		return (0);
	if (c->ops[0]->flags & JH_SHW_EXPAND)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s's script "
		    "is not literal", c->name));
	if (script_risky(sed ? "sed" : "awk", c->ops[0]->s))
		goto risky;
	return (0);
risky:
	return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s's script "
	    "can run programs or write files", c->name));
}

/*
 * git push: a refspec "+src:dst" forces, and ":dst" deletes, whatever
 * the options say (git-push(1), <refspec>).
 */
static int
refspecs(struct ex *x, struct cmdst *c)
{
	size_t i;

	/*
	 * git pull /tmp/evil main merges another repository's files into
	 * the work tree (a nested .claude, a Makefile): what a remote of
	 * the project's own (a name) brings came through its history
	 */
	if (strcmp(c->name, "git pull") == 0 && c->nops > 0 &&
	    (c->ops[0]->flags != 0 || strpbrk(c->ops[0]->s, "/:.") != NULL))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "git pull from "
		    "'%.100s', a repository given by its path or URL, writes "
		    "whatever files it holds into the work tree", c->ops[0]->s));
	if (strcmp(c->name, "git fetch") == 0 || strcmp(c->name, "git pull") ==
	    0) {
		/* +src:dst force-updates the local dst (git-fetch(1)) */
		for (i = 1; i < c->nops; i++)
			if ((c->ops[i]->flags & JH_SHW_EXPAND) ||
			    (c->ops[i]->s[0] == '+' && strchr(c->ops[i]->s,
			    ':') != NULL))
				return (add(x, JH_E_VCS_DESTROY, 0, NULL,
				    c->name, NULL));
		return (0);
	}
	if (strcmp(c->name, "git push") != 0)
		return (0);
	for (i = 1; i < c->nops; i++) {
		const char *s = c->ops[i]->s;
		if (c->ops[i]->flags & JH_SHW_EXPAND)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "a "
			    "refspec that is not literal"));
		if (s[0] == '+' || s[0] == ':')
			return (add(x, JH_E_VCS_FORCE, 0, NULL, c->name, NULL));
	}
	return (0);
}

/*
 * sqlite3 given no SQL reads it from standard input, dot-commands such
 * as .shell and .output included.  gh api sends GET unless -X names
 * another method or a field or --input gives a body: then it changes the
 * remote (gh-api(1)).  docker compose run, exec and create take docker
 * run's mounts and privileges on their command line.
 */
static int
stdin_or_api(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc)
{
	const char *s;
	size_t k;

	if (strcmp(c->name, "sqlite3") == 0 && c->nops <= 1 && !c->exits)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "sqlite3 given "
		    "no SQL runs its standard input"));
	/*
	 * go mod edit with no file edits go.mod; go work edit, init and use
	 * edit or make go.work: files the go command executes.
	 */
	if ((strcmp(c->name, "go mod edit") == 0 && c->nops == 0) ||
	    ((strcmp(c->name, "go work edit") == 0 && c->nops == 0) ||
	    strcmp(c->name, "go work init") == 0 || strcmp(c->name,
	    "go work use") == 0)) {
		char p[PATH_MAX + 16];

		if (c->dir[0] == '\0')
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
			    "runs in a directory this gate cannot follow",
			    c->name));
		snprintf(p, sizeof(p), "%s/%s", c->dir, c->name[3] == 'm' ?
		    "go.mod" : "go.work");
		return (add(x, JH_E_WRITE, jh_path_executed(p) ?
		    JH_EF_EXECUTED : 0, p, c->name, NULL));
	}
	/* git am or apply given no file applies the patches of its input */
	if ((strcmp(c->name, "git am") == 0 || strcmp(c->name,
	    "git apply") == 0) && c->nops == 0 && !c->exits)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s given no "
		    "file writes the files its input's patches name",
		    c->name));
	if (strcmp(c->name, "docker compose") == 0 && c->nops > 0 &&
	    (strcmp(c->ops[0]->s, "run") == 0 || strcmp(c->ops[0]->s,
	    "exec") == 0 || strcmp(c->ops[0]->s, "create") == 0 ||
	    (c->ops[0]->flags & JH_SHW_EXPAND)))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "docker "
		    "compose %.20s runs a container as its words say",
		    c->ops[0]->s));
	if (strcmp(c->name, "gh api") != 0)
		return (0);
	for (k = 1; k < argc; k++) {
		s = av[k].s;
		if (strcmp(s, "--") == 0)
			break;
		if ((strcmp(s, "-X") == 0 || strcmp(s, "--method") == 0) &&
		    k + 1 < argc && strcasecmp(av[k + 1].s, "GET") != 0)
			break;
		if ((strncmp(s, "-X", 2) == 0 && s[2] != '\0' &&
		    strcasecmp(s + 2, "GET") != 0) || (strncmp(s, "--method=",
		    9) == 0 && strcasecmp(s + 9, "GET") != 0))
			break;
		if (strncmp(s, "-f", 2) == 0 || strncmp(s, "-F", 2) == 0 ||
		    strncmp(s, "--raw-field", 11) == 0 || strncmp(s,
		    "--field", 7) == 0 || strncmp(s, "--input", 7) == 0)
			break;
	}
	if (k < argc && strcmp(av[k].s, "--") != 0)
		return (add(x, JH_E_VCS_REMOTE, 0, NULL, c->name, NULL));
	return (0);
}

/*
 * git checkout and git restore overwrite the work tree's copy of every
 * path they are given: an operand after "--", or one that names a path
 * that exists, discards local changes (git-checkout(1), git-restore(1));
 * restore --staged alone only unstages.
 */
static int
overwrites(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc)
{
	char p[PATH_MAX * 2];
	size_t i, k;
	int dd = 0, staged = 0, worktree = 0;

	if (strcmp(c->name, "git checkout") != 0 &&
	    strcmp(c->name, "git restore") != 0)
		return (0);
	for (k = 1; k < argc; k++) {
		if (strcmp(av[k].s, "--") == 0)
			dd = 1;
		if (strcmp(av[k].s, "--staged") == 0 || strcmp(av[k].s, "-S") == 0)
			staged = 1;
		if (strcmp(av[k].s, "--worktree") == 0 ||
		    strcmp(av[k].s, "-W") == 0)
			worktree = 1;
	}
	if (c->name[4] == 'r' && staged && !worktree)
		return (0);
	for (i = 0; i < c->nops; i++) {
		const char *s = c->ops[i]->s;
		if (c->name[4] == 'r' || dd || (c->ops[i]->flags &
		    (JH_SHW_EXPAND | JH_SHW_GLOB | JH_SHW_BRACE)) ||
		    c->dir[0] == '\0' || (snprintf(p, sizeof(p), "%s/%s",
		    s[0] == '/' ? "" : c->dir, s) < (int)sizeof(p) &&
		    access(p, F_OK) == 0))
			return (add(x, JH_E_VCS_DESTROY, 0, NULL, c->name,
			    NULL));
	}
	return (0);
}

/* What an entry does whenever it runs: its flags. */
static int
entry_runs(struct ex *x, struct cmdst *c)
{
	const struct jh_cmddef *d = c->def;

	if ((d->flags & JH_CT_NET) && add(x, JH_E_NET, 0, NULL, c->name,
	    "any") == -1)
		return (-1);
	if ((d->flags & JH_CT_INSTALL) && add(x, JH_E_INSTALL, 0, NULL,
	    c->name, NULL) == -1)
		return (-1);
	if (d->flags & JH_CT_RUNS) {
		if (c->dir[0] == '\0')
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s "
			    "runs in a directory this gate cannot follow",
			    c->name));
		if (add(x, JH_E_EXEC, JH_EF_RUNS, c->dir, c->name,
		    NULL) == -1)
			return (-1);
	}
	return (0);
}

/*
 * npx (npm exec) runs a package's program, fetching the package when
 * no project has it installed: a program in node_modules/.bin of the
 * directory or one above it is run from there (npm-exec(1)), no
 * install; pnpm exec and yarn exec run it from there too.  Its path in
 * p.
 */
static int
npx_local(const struct cmdst *c, char *p, size_t sz)
{
	char d[PATH_MAX + 1];
	char *sl;

	if ((strcmp(c->name, "npx") != 0 && strcmp(c->name, "npm exec") != 0 &&
	    strcmp(c->name, "npm x") != 0 && strcmp(c->name, "pnpm exec") != 0 &&
	    strcmp(c->name, "yarn exec") != 0) || c->runs[0] == '\0' ||
	    strchr(c->runs, '/') != NULL || c->runs[0] == '.' ||
	    c->dir[0] == '\0')
		return (0);
	snprintf(d, sizeof(d), "%s", c->dir);
	for (;;) {
		if ((size_t)snprintf(p, sz, "%s/node_modules/.bin/%s", d,
		    c->runs) < sz && access(p, X_OK) == 0)
			return (1);
		if ((sl = strrchr(d, '/')) == NULL || sl == d)
			return (0);
		*sl = '\0';
	}
}

static int	kept_path(struct ex *, const char *);

/* The entry's own effects once its words are read: tags, then flags. */
static int
entry_effects(struct ex *x, struct cmdst *c)
{
	const struct jh_cmddef *d = c->def;
	char bin[PATH_MAX * 2], real[PATH_MAX + 1];
	struct jh_err e;
	int local = npx_local(c, bin, sizeof(bin));

	if (d->tags != NULL && !local && !c->keep &&
	    tags(x, c, d->tags, strlen(d->tags)) == -1)
		return (-1);
	/*
	 * npx tsc runs node_modules/.bin/tsc, a link a package made (to
	 * ../typescript/bin/tsc) or any other: the code it runs is where
	 * that leads, decided there
	 */
	if (local && (jh_path_resolve(real, sizeof(real), "/", bin, &e) ==
	    -1 ? add(x, JH_E_UNKNOWN, 0, NULL, c->name, "cannot resolve "
	    "%.200s: %s", bin, e.msg) : add(x, JH_E_EXEC, JH_EF_RUNS, real,
	    c->runs, NULL)) == -1)
		return (-1);
	/* the line must not change the link, or what it leads through */
	if (local && (kept_path(x, bin) == -1 || kept_path(x, real) == -1))
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "too many "
		    "programs looked up on one line"));
	/* a runner (sudo, npx) is an exec of its own, with or without one */
	if (d->args != NULL && d->args[0] == 'P' && !(d->flags &
	    JH_CT_WRAPPER) && add(x, JH_E_EXEC, JH_EF_RUNS, c->dir[0] ?
	    c->dir : NULL, c->name, NULL) == -1)
		return (-1);
	return (entry_runs(x, c));
}

/*
 * A word of find's expression, once it has started (at its first test,
 * or at ( ! or ,): the tests are read as options; an operand there is
 * not find's.  0 when w is not one, 1 when it was taken, -1 on error.
 */
static int
find_word(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	if (!(c->def->flags & JH_CT_FINDEXPR) || !(c->sawopt ||
	    (w->flags == 0 && (strcmp(w->s, "!") == 0 ||
	    strcmp(w->s, "(") == 0 || strcmp(w->s, ",") == 0))))
		return (0);
	/* the expression starts at ( ! or , too (find(1)) */
	c->sawopt = 1;
	if (strcmp(w->s, ",") == 0 || (c->fneg && strcmp(w->s, "(") == 0) ||
	    (c->fneg && strcmp(w->s, "!") == 0))
		c->fany = 1;
	c->fneg = strcmp(w->s, "!") == 0;
	if (strcmp(w->s, "(") != 0 && strcmp(w->s, ")") != 0 &&
	    strcmp(w->s, "!") != 0 && strcmp(w->s, ",") != 0 &&
	    add(x, JH_E_UNKNOWN, 0, NULL, c->name, "%s does not take "
	    "'%.100s' here", c->name, w->s) == -1)
		return (-1);
	return (1);
}

/*
 * `pnpm NAME' and `yarn NAME' run the script NAME of package.json where
 * NAME is no command of their own; where it is no script, they run a
 * program of that name instead (pnpm exec, yarn's bins), which nothing
 * here could read.  NAME is taken for `run NAME' only where it is the
 * first word after the program, it is a name neither program has a
 * command of (one with a ':', or one of a few such), and the
 * package.json of the command's directory, a regular file read through
 * no link, lists it among its scripts.  What else the line does is
 * checked once it is all read (scripts_kept).
 */
static const char *const script_names[] = { "build", "dev", "lint",
    "format", "fmt", "typecheck", "type-check", "preview", "watch",
    "serve", "compile", "e2e", "coverage", "storybook", "generate",
    "codegen", NULL };

static int
script_shorthand(struct ex *x, const struct cmdst *c, const char *name)
{
	char p[PATH_MAX + 1], *b;
	struct stat st;
	json_t *j;
	ssize_t n;
	size_t i;
	int fd, ok;

	if ((strcmp(c->name, "pnpm") != 0 && strcmp(c->name, "yarn") != 0) ||
	    c->dir[0] == '\0' || x->nscript == MAX_SCRIPTS)
		return (0);
	for (i = 0; script_names[i] != NULL &&
	    strcmp(script_names[i], name) != 0; i++)
		;
	if ((script_names[i] == NULL && (strchr(name, ':') == NULL ||
	    name[0] == '-' || name[0] == ':')) ||
	    jh_path_join(p, sizeof(p), c->dir, "package.json") == -1)
		return (0);
	if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) ==
	    -1)
		return (0);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size >
	    (1 << 20) || (b = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return (0);
	}
	n = read(fd, b, (size_t)st.st_size + 1);
	close(fd);
	j = n == st.st_size ? json_loadb(b, (size_t)n, 0, NULL) : NULL;
	free(b);
	/* pnpm tests the script's truth: an empty one is a program run */
	ok = json_string_length(json_object_get(json_object_get(j,
	    "scripts"), name)) > 0;
	json_decref(j);
	return (ok && kept_path(x, p) == 0);
}

/*
 * pnpm NAME where NAME is neither a script nor one of pnpm's commands
 * runs NAME as pnpm exec does (pnpm 6.6 on): from node_modules/.bin
 * where a package put it, else from the PATH.  Taken as pnpm exec NAME
 * only where the first word after pnpm names a program there and none
 * of pnpm's own commands; the program is then decided as npx's is,
 * where its link leads, and the line is checked as for a script.
 */
static const char *const pnpm_cmds[] = { "access", "add", "adduser",
    "approve-builds", "audit", "bin", "bugs", "c", "cache", "cat-file",
    "cat-index", "ci", "clean", "clean-install", "completion", "config",
    "create", "dedupe", "deploy", "deprecate", "dislink", "dist-tag", "dlx",
    "docs", "doctor", "edit", "env", "exec", "fetch", "find", "find-hash",
    "get", "help", "home", "i", "ic", "ignored-builds", "import", "info",
    "init", "install", "install-clean", "install-test", "issues", "it",
    "la", "licenses", "link", "list", "ll", "ln", "login", "logout", "ls",
    "m", "multi", "outdated", "owner", "pack", "patch", "patch-commit",
    "patch-remove", "ping", "pkg", "prefix", "profile", "prune", "publish",
    "rb", "rebuild", "recursive", "remove", "repo", "restart", "rm", "root",
    "run", "run-script", "s", "se", "search", "self-update", "server",
    "set", "set-script", "setup", "show", "star", "stars", "start",
    "store", "t", "team", "test", "token", "tst", "un", "uni", "uninstall",
    "unlink", "unpublish", "unstar", "up", "update", "upgrade", "v",
    "version", "view", "whoami", "why", "xmas", NULL };

static int
local_bin(struct ex *x, const struct cmdst *c, const char *name)
{
	char p[PATH_MAX * 2];
	struct stat st;
	size_t i;

	if (strcmp(c->name, "pnpm") != 0 || c->dir[0] == '\0' ||
	    x->nscript == MAX_SCRIPTS || name[0] == '\0' || name[0] == '.' ||
	    name[0] == '-' || strchr(name, '/') != NULL)
		return (0);
	for (i = 0; pnpm_cmds[i] != NULL; i++)
		if (strcmp(pnpm_cmds[i], name) == 0)
			return (0);
	if ((size_t)snprintf(p, sizeof(p), "%s/node_modules/.bin/%s", c->dir,
	    name) >= sizeof(p) || access(p, X_OK) != 0 ||
	    (size_t)snprintf(p, sizeof(p), "%s/package.json", c->dir) >=
	    sizeof(p) || lstat(p, &st) == -1 || !S_ISREG(st.st_mode))
		return (0);
	/* a script of that name would run instead: package.json kept */
	return (kept_path(x, p) == 0);
}

/*
 * Keeps path p (a package.json read, a program's link and where it
 * leads) to be checked against the rest of the line (scripts_kept).
 */
static int
kept_path(struct ex *x, const char *p)
{
	if (x->nscript == MAX_SCRIPTS || strlen(p) > PATH_MAX)
		return (-1);
	memcpy(x->spkg[x->nscript], p, strlen(p) + 1);
	x->scmd[x->nscript++] = x->cmd;
	return (0);
}

/*
 * Whether an effect of another command on the line may change the
 * package.json a script was found in before the program reads it: a
 * write, a delete, a checkout or a rewrite of it, of a directory above
 * it, or of nothing named, or anything git does (stash, switch and pull
 * change the work tree, and say only that git runs); then which script
 * runs, if any, is unknown.  The commands before it ran first; those
 * after may run beside it, in a pipeline or in the background.
 */
static int
scripts_kept(struct ex *x)
{
	const struct jh_effect *v;
	size_t i, k, n;
	int git;

	for (i = 0; i < x->nscript; i++)
		for (k = 0; k < x->ef->n; k++) {
			v = &x->ef->v[k];
			git = v->program != NULL && strncmp(v->program, "git",
			    3) == 0 && (v->program[3] == '\0' ||
			    v->program[3] == ' ');
			if (v->cmd == x->scmd[i] || (!git &&
			    v->kind != JH_E_WRITE && v->kind != JH_E_DELETE &&
			    v->kind != JH_E_VCS_DESTROY &&
			    v->kind != JH_E_VCS_REWRITE))
				continue;
			n = v->path != NULL ? strlen(v->path) : 0;
			if (git || v->path == NULL || strcmp(v->path, "/") ==
			    0 || (strncmp(v->path, x->spkg[i], n) == 0 &&
			    (x->spkg[i][n] == '\0' || x->spkg[i][n] == '/')))
				return (add(x, JH_E_UNKNOWN, 0, x->spkg[i],
				    NULL, "the line may change %s, which "
				    "says what a later step runs, before it "
				    "runs; run that step on a line of its "
				    "own", x->spkg[i]));
		}
	return (0);
}

/*
 * The subcommand word of a program that has them (git, cargo, yarn): its
 * entry is the command's from here on.  1 to read on; 2 where the word
 * is the first operand of the entry (pnpm NAME as pnpm run NAME); else
 * what words() returns, 0 with an effect saying why the rest is
 * unknown, or -1.
 */
static int
subcommand(struct ex *x, struct cmdst *c, const struct jh_sh_word *w,
    int first)
{
	const struct jh_cmddef *sub;
	char sname[512];
	int r = 1;

	if (w->flags != 0)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the subcommand "
		    "of %s is not literal", c->name));
	/* rustup's proxies: cargo +nightly fmt is cargo fmt */
	if (w->s[0] == '+' && w->s[1] != '\0' && strchr(w->s, '/') == NULL &&
	    (strcmp(c->name, "cargo") == 0 ||
	    strcmp(c->name, "rustup run") == 0))
		return (1);
	snprintf(sname, sizeof(sname), "%s %s", c->name, w->s);
	if ((sub = jh_cmd_lookup(sname)) == NULL && first &&
	    script_shorthand(x, c, w->s)) {
		snprintf(sname, sizeof(sname), "%s run", c->name);
		sub = jh_cmd_lookup(sname);
		r = 2;
	} else if (sub == NULL && first && local_bin(x, c, w->s)) {
		snprintf(sname, sizeof(sname), "%s exec", c->name);
		sub = jh_cmd_lookup(sname);
		r = 2;
	}
	if (sub == NULL)
		return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "the command "
		    "table does not know %s %s", c->name, w->s));
	/*
	 * What the program itself does, wherever it went; its tags are for
	 * it run alone (a bare yarn installs).
	 */
	if (entry_runs(x, c) == -1)
		return (-1);
	cmd_reset(c, sub, sname);
	return (r);
}

/* Reads the words of one command against its entry. */
static int
words(struct ex *x, struct cmdst *c, const struct jh_sh_word *av,
    size_t argc)
{
	size_t k, used;
	int r;

	for (k = 1; k < argc; k += used) {
		const struct jh_sh_word *w = &av[k];
		used = 1;
		if (c->rest) {
			if (letter(x, c, 'A', w) == -1)
				return (-1);
			continue;
		}
		if (!c->endopts && strcmp(w->s, "--") == 0 &&
		    !(w->flags & JH_SHW_EXPAND)) {
			int amb;
			const struct optspec *o = opt_find(&c->os, "--", 2, 0,
			    &amb);
			c->endopts = 1;
			if (o != NULL && tags(x, c, o->tags, o->tlen) == -1)
				return (-1);
			continue;
		}
		if ((c->def->flags & JH_CT_FINDEXPR) && w->flags == 0 &&
		    (strcmp(w->s, "-exec") == 0 || strcmp(w->s, "-execdir") ==
		    0 || strcmp(w->s, "-ok") == 0 || strcmp(w->s, "-okdir") ==
		    0)) {
			/* its command is listed on its own (shellparse.c) */
			c->sawopt = 1;
			while (k + used < argc && strcmp(av[k + used].s, ";") !=
			    0 && strcmp(av[k + used].s, "+") != 0)
				used++;
			used++;
			continue;
		}
		if (!c->endopts && w->s[0] == '-' && w->s[1] != '\0') {
			if (c->def->flags & JH_CT_FINDEXPR) {
				c->sawopt = 1;
				find_name(c, w, k + 1 < argc ? &av[k + 1] :
				    NULL);
			}
			if (option(x, c, av, argc, k, &used) == -1)
				return (-1);
			continue;
		}
		if (!c->endopts && !expand_ok(c, w)) {
			/*
			 * Unquoted, it may split into several words; any
			 * of them, or a quoted one, may be an option.
			 */
			if (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s' "
			    "is not literal: it may become options of %s",
			    w->s, c->name) == -1)
				return (-1);
			continue;
		}
		if ((r = find_word(x, c, w)) != 0) {
			if (r == -1)
				return (-1);
			continue;
		}
		if ((c->def->flags & JH_CT_SUB) && c->nops == 0) {
			if ((r = subcommand(x, c, w, k == 1)) == 1)
				continue;
			if (r != 2)
				return (r);
			/* pnpm NAME: NAME is pnpm run's operand */
		}
		if (c->def->args != NULL && c->def->args[0] == 'P' &&
		    c->nops == 0)
			return (nested(x, c, av, argc, k));
		if (c->nops >= MAX_OPERANDS)
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "too "
			    "many operands"));
		c->ops[c->nops++] = w;
		if (c->def->flags & JH_CT_POSIX)
			c->endopts = 1;
	}
	if ((r = scripts(x, c, av, argc)) != 0 || (r = refspecs(x, c)) != 0 ||
	    (r = stdin_or_api(x, c, av, argc)) != 0 ||
	    (r = overwrites(x, c, av, argc)) != 0)
		return (r);
	if ((r = operands(x, c)) != 0 || (r = moved_links(x, c)) != 0 ||
	    (r = clone_dest(x, c)) != 0 || (r = note_links(x, c)) != 0)
		return (r);
	into_dirs(x);
	return (landing(x));
}

/*
 * A word passed on (A) to code an exec capability trusts: inert unless
 * it names a path outside the project, as itself, after a "=" or an
 * option's letters (--require=/x, CC=/x, -r/x), after a "," or ":" in a list,
 * or through a ".." anywhere (./../x, src/../../x), which is unknown.
 */
static int
passed_on(struct ex *x, struct cmdst *c, const struct jh_sh_word *w)
{
	struct jh_sh_word v = *w;
	const char *s = w->s, *q, *eq;
	char p[PATH_MAX + 1];
	int tree, skip;

	if (x->cx->root == NULL || (strchr(s, '/') == NULL &&
	    strstr(s, "..") == NULL))
		return (0);
	/*
	 * ./configure --prefix=/usr/local: autoconf's installation
	 * directories (GNU Coding Standards, "Directory Variables") are
	 * where a later make install puts files, nothing configure runs.
	 */
	if (strcmp(c->name, "configure") == 0 && (strncmp(s, "--prefix=", 9) ==
	    0 || strncmp(s, "--exec-prefix=", 14) == 0 || ((eq = strchr(s,
	    '=')) != NULL && eq - s > 5 && strncmp(eq - 3, "dir", 3) == 0 &&
	    strspn(s + 2, "abcdefghijklmnopqrstuvwxyz") == (size_t)(eq - s -
	    2))))
		return (0);
	if ((eq = strchr(s, '=')) != NULL)
		s = eq + 1;	/* --opt=V, NAME=V (configure CC=/x) */
	else if (s[0] == '-')
		s += strcspn(s, "./");
	if (strncasecmp(s, "file://", 7) == 0)
		s += 7;		/* file:///etc/x is /etc/x */
	for (q = s; *q != '\0'; q++)
		if ((*q == ',' || *q == ':') && (q[1] == '/' || q[1] == '.') &&
		    strncmp(q, "://", 3) != 0)	/* a URL is no list */
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "'%.100s', "
			    "passed on by %s, holds a list of paths", w->s,
			    c->name));
	if (*s == '\0' || (s[0] != '/' && strstr(s, "..") == NULL))
		return (0);
	v.s = (char *)s;
	v.len = strlen(s);
	if (path_of(x, c, &v, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (!skip && !jh_path_under(p, x->cx->root))
		return (add(x, JH_E_UNKNOWN, 0, p, c->name, "'%.100s', passed "
		    "on by %s, names a path outside the project", w->s,
		    c->name));
	return (0);
}

/*
 * tar's old-style key (tar xzf A, tar-1.34 "Old options"): a first word
 * of letters is the options of its letters, their values the next words,
 * in turn.  Read as a cluster, a value letter takes the rest of the
 * word instead: the one letter that takes a value is put last (tar xfz
 * A is tar -xzf A), and a key with two is 1, unknown (tar cfI x.tar
 * CMD: -I's value is CMD, and tar runs it).
 */
static int
old_style(const struct cmdst *c, struct jh_sh_word *av, size_t n,
    char *key, size_t sz)
{
	const char *s, *v;

	if (strcmp(c->name, "tar") != 0 || n < 2 || av[1].flags != 0)
		return (0);
	s = av[1].s;
	if (s[0] == '-' || s[0] == '\0' || strlen(s) + 2 > sz ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") !=
	    strlen(s))
		return (0);
	/* GNU tar's short options that take a value: one, put last */
	if ((v = strpbrk(s, "bCfFgHIKLNTVX")) != NULL &&
	    strpbrk(v + 1, "bCfFgHIKLNTVX") != NULL)
		return (1);
	if (v == NULL)
		snprintf(key, sz, "-%s", s);
	else
		snprintf(key, sz, "-%.*s%s%c", (int)(v - s), s, v + 1, *v);
	av[1].s = key;
	av[1].len = strlen(key);
	return (0);
}

/*
 * kill -9 -1, kill -TERM -PGID: after the signal a negative number is a
 * process group (-1 every process the user may signal), not an option.
 */
static int
kill_group(struct ex *x, const struct cmdst *c, const struct jh_sh_word *av,
    size_t n)
{
	size_t k;

	if (strcmp(c->name, "kill") != 0)
		return (0);
	for (k = 2; k < n && strcmp(av[k].s, "--") != 0; k++)
		if (av[k].s[0] == '-' && isdigit((unsigned char)av[k].s[1]))
			return (add(x, JH_E_UNKNOWN, 0, NULL, c->name, "kill "
			    "%.20s signals a process group", av[k].s));
	return (0);
}

/* Under a directory only the system installs into. */
static int
system_path(const char *p)
{
	static const char *const dirs[] = { "/usr/", "/bin/", "/sbin/",
	    "/lib/", "/lib64/", "/opt/", "/nix/store/", "/snap/", NULL };
	size_t i;

	for (i = 0; dirs[i] != NULL; i++)
		if (strncmp(p, dirs[i], strlen(dirs[i])) == 0)
			return (1);
	return (0);
}

/*
 * Whether p is in a directory where package managers put the programs
 * they install: node_modules/.bin, or a Python virtual environment's bin
 * (beside its pyvenv.cfg).  Such a program is the tool of its name
 * (.venv/bin/pip is pip, node_modules/.bin/tsc is tsc), not code the
 * project wrote.
 */
static int
tool_bin(const char *p)
{
	char cfg[PATH_MAX + 16];
	const char *b = strrchr(p, '/');
	size_t n;

	if (b == NULL)
		return (0);
	n = (size_t)(b - p);
	if (n >= 18 && strncmp(b - 18, "/node_modules/.bin", 18) == 0)
		return (1);
	if (n < 4 || strncmp(b - 4, "/bin", 4) != 0 || n - 4 >= PATH_MAX)
		return (0);
	snprintf(cfg, sizeof(cfg), "%.*s/pyvenv.cfg", (int)(n - 4), p);
	return (access(cfg, F_OK) == 0);
}

/*
 * A command word that is a path.  A file of the project (./app,
 * build/test, ./configure) is the project's code: an exec of that file,
 * its words passed to it (A).  A path elsewhere is the program the
 * table names by its last component, or else unknown.  Returns 1 when
 * the caller is to read it as a program of the table.
 */
static int
path_cmd(struct ex *x, struct cmdst *c, const char *dir,
    const struct jh_sh_word *av, size_t n)
{
	char p[PATH_MAX + 1];
	struct cmdst t;
	size_t k;
	int tree, skip;

	memset(&t, 0, sizeof(t));
	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	lookup_word(av[0].s, t.name, sizeof(t.name));
	snprintf(c->name, sizeof(c->name), "%s", t.name);
	if (path_of(x, &t, &av[0], p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (skip)
		return (0);
	if (x->cx->root == NULL || !jh_path_under(p, x->cx->root)) {
		/*
		 * /tmp/x/ls is not ls: a program outside the system's
		 * directories is a file someone could have put there, run
		 * as itself as well as read by its name.
		 */
		if (lookup_word(av[0].s, t.name, sizeof(t.name)) != NULL) {
			if (!system_path(p) && add(x, JH_E_EXEC, JH_EF_RUNS,
			    p, t.name, NULL) == -1)
				return (-1);
			return (1);
		}
		if (add(x, JH_E_EXEC, JH_EF_RUNS, p, t.name, NULL) == -1)
			return (-1);
		return (add(x, JH_E_UNKNOWN, JH_EF_UNLISTED, NULL, t.name,
		    "%s is not in the command table", t.name));
	}
	if (add(x, JH_E_EXEC, JH_EF_RUNS, p, t.name, NULL) == -1)
		return (-1);
	/* .venv/bin/pip install x: a tool installed there, not the project's */
	if (tool_bin(p) && lookup_word(av[0].s, t.name, sizeof(t.name)) !=
	    NULL)
		return (1);
	t.inops = 1;
	for (k = 1; k < n; k++)
		if (letter(x, &t, 'A', &av[k]) == -1)
			return (-1);
	return (0);
}

/*
 * A program the words av (flags fl) run, in dir ("" unknown).  nest:
 * run by another command, which already listed its own effects.
 */
/*
 * --NAME=PATTERN with the pattern after the '=' (grep --include=*.go):
 * every word it expands to starts with --NAME=, so it stays that option
 * and only its value varies, which the option's rule decides.
 */
static int
value_glob(const char *w)
{
	const char *eq = strchr(w, '=');

	return (w[0] == '-' && w[1] == '-' && eq != NULL &&
	    strcspn(w, "*?[{") > (size_t)(eq - w));
}

static int
command(struct ex *x, const char *dir, char *const *w, const int *fl,
    size_t n, int nest)
{
	struct jh_sh_word av[MAX_OPERANDS];
	struct cmdst *c;
	char key[64];
	size_t i;
	int r;

	if (n > MAX_OPERANDS)
		return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "a command of "
		    "more than %d words", MAX_OPERANDS));
	for (i = 0; i < n; i++) {
		av[i].s = w[i];
		av[i].len = strlen(w[i]);
		av[i].flags = fl[i];
		/* find . -{delete,print}, sort -{o..o} F: options made at
		 * run time */
		if (i > 0 && w[i][0] == '-' && (fl[i] & (JH_SHW_GLOB |
		    JH_SHW_BRACE)) && !value_glob(w[i]))
			return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "'%.100s' "
			    "expands to options only known when it runs",
			    w[i]));
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (jh_errf(x->e, "out of memory"));
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	x->nest += nest;
	r = 0;
	if (fl[0] & (JH_SHW_EXPAND | JH_SHW_GLOB | JH_SHW_BRACE |
	    JH_SHW_TILDE))
		r = add(x, JH_E_UNKNOWN, 0, NULL, NULL, "the command word "
		    "'%.100s' is only known when it runs", w[0]);
	else if (strchr(w[0], '/') != NULL && (r = path_cmd(x, c, dir, av,
	    n)) != 1)
		;	/* a file of the project, run as a program */
	else if ((r = 0, c->def = lookup_word(w[0], c->name,
	    sizeof(c->name))) == NULL) {
		/* a program the table lacks */
		r = add(x, JH_E_EXEC, JH_EF_RUNS, NULL, c->name, NULL);
		if (r == 0)
			r = add(x, JH_E_UNKNOWN, JH_EF_UNLISTED, NULL,
			    c->name, "%s is not in the command table",
			    c->name);
	} else if (!(c->def->flags & JH_CT_WRAPPER)) {
		cmd_reset(c, c->def, c->name);
		if (old_style(c, av, n, key, sizeof(key)))
			r = add(x, JH_E_UNKNOWN, 0, NULL, c->name, "tar's key "
			    "'%.40s' gives values to letters before its last, "
			    "which take the next words in turn: write them as "
			    "options (-c -f FILE)", av[1].s);
		else if ((r = kill_group(x, c, av, n)) == 0 &&
		    (r = words(x, c, av, n)) == 0)
			r = entry_effects(x, c);
	}
	x->nest -= nest;
	free(c);
	return (r);
}

/*
 * NAME=DIR[:DIR...] of a module search path (PYTHONPATH=src): the
 * commands after it import code from those directories, an exec of
 * each.  1 when every directory is literal and resolves inside the
 * project, with the effects added; 0 to leave it unknown.  dir is the
 * command's directory for a prefix assignment, NULL for an export,
 * whose relative entries later commands read from wherever they run.
 */
static int
search_path(struct ex *x, const char *dir, const char *val, size_t l,
    const struct jh_sh_word *w)
{
	static const char *const names[] = { "PYTHONPATH", "NODE_PATH",
	    "PERL5LIB", "RUBYLIB", "CLASSPATH", NULL };
	char one[PATH_MAX + 1], p[PATH_MAX + 1];
	const char *v;
	struct jh_err e;
	size_t n;
	int pass;

	if (!in_list(names, w->s, l) || (w->flags & (JH_SHW_EXPAND | JH_SHW_GLOB |
	    JH_SHW_BRACE | JH_SHW_TILDE)) || val[0] == '\0' ||
	    x->cx->root == NULL)
		return (0);
	/* first check every entry, then add: all of them or none */
	for (pass = 0; pass < 2; pass++)
		for (v = val; *v != '\0'; v += n + (v[n] == ':')) {
			n = strcspn(v, ":");
			if (n == 0 || n >= sizeof(one))
				return (0);
			memcpy(one, v, n);
			one[n] = '\0';
			/* relative: to the directory of each later command */
			if ((one[0] != '/' && (dir == NULL || dir[0] != '/')) ||
			    jh_path_resolve(p, sizeof(p), one[0] == '/' ? "/" :
			    dir, one, &e) == -1 ||
			    !jh_path_under(p, x->cx->root))
				return (0);
			if (pass == 1 && add(x, JH_E_EXEC, JH_EF_TREE, p, NULL,
			    NULL) == -1)
				return (-1);
		}
	return (1);
}

/* PAGER=cat, GIT_PAGER= (and MANPAGER): no pager, so nothing more runs. */
static int
no_pager(const char *s, size_t l, const struct jh_sh_word *w)
{
	static const char *const pagers[] = { "PAGER", "GIT_PAGER",
	    "MANPAGER", NULL };

	return (w->flags == 0 && s[l] == '=' && in_list(pagers, s, l) &&
	    (strcmp(s + l + 1, "cat") == 0 || s[l + 1] == '\0'));
}

/*
 * CFLAGS=-O0 make, CC=clang make: the C family's build settings that
 * make's implicit rules, configure and cmake take from the environment,
 * with the values make NAME=value takes as inert (compiler_flags), and a
 * compiler of the table by its plain name.
 */
static int
build_env(const char *s, size_t l, const struct jh_sh_word *w)
{
	static const char *const flags[] = { "CFLAGS", "CXXFLAGS",
	    "CPPFLAGS", "LDFLAGS", "LDLIBS", NULL };
	static const char *const ccs[] = { "CC", "CXX", NULL };
	static const char *const cc[] = { "cc", "c++", "gcc", "g++", "clang",
	    "clang++", NULL };
	const char *v = s + l + 1;
	size_t n;

	if (w->flags != 0 || s[l] != '=')
		return (0);
	if (in_list(flags, s, l))
		return (compiler_flags(v));
	if (!in_list(ccs, s, l))
		return (0);
	/* gcc-12, clang-14 */
	n = strcspn(v, "-");
	if (v[n] == '-' && (v[n + 1] == '\0' ||
	    strspn(v + n + 1, "0123456789") != strlen(v + n + 1)))
		return (0);
	return (in_list(cc, v, n));
}

/*
 * Whether the option word o (n bytes) is one of list, or, for an entry
 * ending in '=', that option with a value of digits only, or (for one
 * ending in '=*') any value of letters, digits, '-' and '_'.
 */
static int
tool_opt(const char *const *list, const char *o, size_t n)
{
	size_t i, k;

	for (i = 0; list[i] != NULL; i++) {
		k = strlen(list[i]);
		if (list[i][k - 1] == '*') {
			k--;
			if (n > k && strncmp(o, list[i], k) == 0 &&
			    strspn(o + k, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n - k)
				return (1);
		} else if (list[i][k - 1] == '=') {
			if (n > k && strncmp(o, list[i], k) == 0 &&
			    strspn(o + k, "0123456789") == n - k)
				return (1);
		} else if (n == k && strncmp(o, list[i], k) == 0)
			return (1);
	}
	return (0);
}

/*
 * NODE_OPTIONS, PYTEST_ADDOPTS, GOFLAGS and RUSTFLAGS hold options of
 * node, pytest, go and rustc that each invocation takes, and some load
 * or run code (node --require, --import, --inspect; pytest -p, -c,
 * --rootdir; go -toolexec, -exec, -overlay; rustc -C linker=): only a
 * value that is nothing but options that tune, warn or choose among the
 * project's own files is inert.  The value is split at blanks, as they
 * split it; a quote or backslash is not taken.  A few names are inert
 * with one value (CARGO_INCREMENTAL=0, GOWORK=off, GOTOOLCHAIN=local).
 */
static int
tool_env(const char *s, size_t l, const struct jh_sh_word *w)
{
	static const char *const node[] = { "--max-old-space-size=",
	    "--max-semi-space-size=", "--stack-size=",
	    "--max-http-header-size=", "--enable-source-maps",
	    "--no-warnings", "--no-deprecation", "--trace-warnings",
	    "--trace-deprecation", "--throw-deprecation", "--trace-uncaught",
	    "--experimental-vm-modules", "--openssl-legacy-provider",
	    "--use-openssl-ca", "--use-bundled-ca", "--preserve-symlinks",
	    "--unhandled-rejections=*", "--dns-result-order=*", NULL };
	static const char *const pytest[] = { "-x", "-q", "-qq", "-v", "-vv",
	    "-vvv", "-s", "-l", "-ra", "-rA", "-rf", "-rs", "--lf",
	    "--last-failed", "--ff", "--failed-first", "--sw", "--stepwise",
	    "--exitfirst", "--quiet", "--verbose", "--no-header",
	    "--no-summary", "--disable-warnings", "--showlocals",
	    "--strict-markers", "--tb=*", "--maxfail=", "--durations=",
	    "--color=*", "--capture=*", "-n=", "--numprocesses=", "-nauto",
	    "--numprocesses=auto", "--import-mode=*", NULL };
	static const char *const gof[] = { "-mod=*", "-count=", "-v", "-race",
	    "-trimpath", "-buildvcs=*", "-p=", "-tags=*", "-cover",
	    "-modcacherw", "-short", "-failfast", NULL };
	/* rustc's lint levels and code generation that runs nothing */
	static const char *const rustf[] = { "-D", "-W", "-A", "-F",
	    "warnings", "-Dwarnings", "-Wwarnings", "-Awarnings",
	    "-Copt-level=*", "-Cdebuginfo=*", "-Ctarget-cpu=*",
	    "-Ccodegen-units=", "-Coverflow-checks=*", "-Cdebug-assertions=*",
	    NULL };
	/* NAME=VALUE whole: values that only turn a feature off or on */
	static const char *const whole[] = { "CARGO_INCREMENTAL=0",
	    "CARGO_INCREMENTAL=1", "GOWORK=off", "GOTOOLCHAIN=local",
	    "GOFLAGS=", NULL };
	const char *const *list;
	const char *v = s + l + 1, *t;
	size_t n;

	if (w->flags != 0 || s[l] != '=')
		return (0);
	if (in_list(whole, s, strlen(s)))
		return (1);
	if (l == 12 && strncmp(s, "NODE_OPTIONS", l) == 0)
		list = node;
	else if (l == 14 && strncmp(s, "PYTEST_ADDOPTS", l) == 0)
		list = pytest;
	else if (l == 7 && strncmp(s, "GOFLAGS", l) == 0)
		list = gof;
	else if ((l == 9 && strncmp(s, "RUSTFLAGS", l) == 0) ||
	    (l == 12 && strncmp(s, "RUSTDOCFLAGS", l) == 0))
		list = rustf;
	else
		return (0);
	if (strpbrk(v, "'\"\\") != NULL)
		return (0);
	for (t = v; *(t += strspn(t, " \t\n")) != '\0'; t += n)
		if (!tool_opt(list, t, (n = strcspn(t, " \t\n"))))
			return (0);
	return (1);
}

/* One NAME=value: only inert names change nothing that runs. */
static int
assign_word(struct ex *x, const char *dir, const struct jh_sh_word *w)
{
	const char *s = w->s;
	size_t l;
	int r;

	if (jh_inert_env(s))
		return (0);
	l = strcspn(s, "+=");
	if ((in_list(quiet_env, s, l) && !(w->flags & JH_SHW_EXPAND)) ||
	    inert_sanitizer(s, l, w) || no_pager(s, l, w) ||
	    build_env(s, l, w) || tool_env(s, l, w))
		return (0);
	if (s[l] == '=' && (r = search_path(x, dir, s + l + 1, l, w)) != 0)
		return (r == -1 ? -1 : 0);
	return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "%.*s= changes what "
	    "later commands run", (int)l, s));
}

/*
 * Assignments before the command or on their own, and those export,
 * declare and the like make for the commands after them.
 */
static int
assigns(struct ex *x, const char *dir, const struct jh_sh_cmd *c)
{
	static const char *const setters[] = { "export", "declare", "typeset",
	    "readonly", "local", NULL };
	size_t k, i;

	for (k = 0; k < c->nassign; k++)
		if (assign_word(x, dir, &c->assign[k]) == -1)
			return (-1);
	if (c->argc == 0)
		return (0);
	for (i = 0; setters[i] != NULL; i++)
		if (strcmp(c->argv[0].s, setters[i]) == 0)
			break;
	for (k = 1; setters[i] != NULL && k < c->argc; k++)
		if (c->argv[k].s[0] != '-' && strchr(c->argv[k].s, '=') !=
		    NULL && assign_word(x, NULL, &c->argv[k]) == -1)
			return (-1);
	return (0);
}

/* A redirection's effect. */
static int
redirect(struct ex *x, const char *dir, const struct jh_sh_redir *r)
{
	struct cmdst t;
	char p[PATH_MAX + 1];
	const char *s = r->target.s;
	int tree, skip, fl = 0;

	/* < <(cmd), > >(cmd): a pipe to or from commands listed on their own */
	if (r->kind == JH_SHR_DUP || r->kind == JH_SHR_HEREDOC ||
	    (r->target.flags & JH_SHW_PROCSUB))
		return (0);
	if (!(r->target.flags & JH_SHW_EXPAND) && (strcmp(s, "/dev/null") ==
	    0 || strcmp(s, "/dev/stdout") == 0 || strcmp(s, "/dev/stderr") ==
	    0 || strcmp(s, "/dev/stdin") == 0))
		return (0);
	if (strncmp(s, "/dev/tcp/", 9) == 0 || strncmp(s, "/dev/udp/", 9) ==
	    0)
		return (add(x, JH_E_NET, JH_EF_REDIR, NULL, NULL, "%s", s + 9));
	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "a redirect");
	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	t.endopts = 1;
	if (r->target.flags & (JH_SHW_GLOB | JH_SHW_BRACE))
		return (add(x, JH_E_UNKNOWN, JH_EF_REDIR, NULL, NULL, "a "
		    "redirect to '%.100s', which the shell expands", s));
	t.redir = 1;
	if (path_of(x, &t, &r->target, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (skip)
		return (0);
	fl = JH_EF_REDIR;
	if (r->kind == JH_SHR_READ)
		return (add(x, JH_E_READ, fl, p, NULL, NULL));
	if (jh_path_executed(p))
		fl |= JH_EF_EXECUTED;
	return (add(x, JH_E_WRITE, fl, p, NULL, NULL));
}

/* Builtins that run nothing, read nothing and write nothing. */
static int
free_word(const char *w)
{
	static const char *const l[] = { "cd", "pushd", "popd", "dirs",
	    "true", "false", ":", "export", "unset", "shift", "wait",
	    "read", "[[", "((", "test", "[", "set", "shopt", "local",
	    "declare", "typeset", "readonly", "return", "exit", "break",
	    "continue", "umask", "hash", "type", "jobs", NULL };
	size_t i;

	for (i = 0; l[i] != NULL; i++)
		if (strcmp(w, l[i]) == 0)
			return (1);
	return (0);
}

/*
 * [[ A -eq B ]] (and -ne, -lt, -le, -gt, -ge): bash evaluates each side
 * as an arithmetic expression, and a value read at run time may hold
 * a[$(cmd)], which runs cmd.  1 when a side is neither an integer
 * written out nor a parameter whose value is always one ($?, $#, $$,
 * $!, ${#NAME}).
 */
static int
cond_arith(const struct jh_sh_cmd *c)
{
	static const char *const ops[] = { "-eq", "-ne", "-lt", "-le", "-gt",
	    "-ge", NULL };
	static const char *const ints[] = { "$?", "$#", "$$", "$!", NULL };
	size_t k, i, j;

	for (k = 1; k + 1 < c->argc; k++) {
		if (c->argv[k].flags != 0 || !in_list(ops, c->argv[k].s,
		    strlen(c->argv[k].s)))
			continue;
		for (j = k - 1; j <= k + 1; j += 2) {
			const struct jh_sh_word *w = &c->argv[j];
			const char *p = w->s;
			if (w->flags == 0) {
				p += *p == '-' || *p == '+';
				if (*p != '\0' && strspn(p, "0123456789") ==
				    strlen(p))
					continue;
				return (1);
			}
			if ((w->flags & ~JH_SHW_SPLIT) != JH_SHW_EXPAND)
				return (1);
			if (in_list(ints, p, strlen(p)))
				continue;
			if (strncmp(p, "${#", 3) ==
			    0 && (i = strspn(p + 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789_")) > 0 &&
			    strcmp(p + 3 + i, "}") == 0)
				continue;
			return (1);
		}
	}
	return (0);
}

/*
 * test -v 'a[x]', [[ -v a[x] ]] and unset 'a[x]' evaluate the subscript
 * as arithmetic, so x's value runs as code too: 1 when such a word's
 * subscript is more than digits, or the word is only known when it runs.
 */
static int
subscripted(const struct jh_sh_cmd *c)
{
	const char *w = c->argc > 0 ? c->argv[0].s : "", *b, *e;
	int unset = strcmp(w, "unset") == 0;
	size_t k;

	if (c->argc == 0 || c->argv[0].flags != 0 || (!unset && strcmp(w,
	    "test") != 0 && strcmp(w, "[") != 0 && strcmp(w, "[[") != 0))
		return (0);
	for (k = 1; k < c->argc; k++) {
		if (!unset && (strcmp(c->argv[k - 1].s, "-v") != 0 ||
		    c->argv[k - 1].flags != 0))
			continue;
		/* a name only known when it runs may hold a subscript */
		if (c->argv[k].flags & JH_SHW_EXPAND)
			return (1);
		if ((b = strchr(c->argv[k].s, '[')) == NULL)
			continue;
		e = strchr(b, ']');
		if (e == NULL || e == b + 1 || strspn(b + 1, "0123456789") !=
		    (size_t)(e - b - 1))
			return (1);
	}
	return (0);
}

/*
 * shopt -s or -u of an option this gate does not follow: cdable_vars
 * makes "cd NAME" go to $NAME, -u globskipdots lets .* match "..",
 * expand_aliases, sourcepath and the rest change what later words run
 * or name.  Those that only change which names a glob gives, which the
 * gate already decides as the glob's whole tree, or how a pipe runs,
 * are followed; printing or asking (-p, -q, none) changes nothing.
 */
static int
shopt_risky(const struct jh_sh_cmd *c)
{
	/* dotglob, nocaseglob: a glob's name is matched as bash's default */
	static const char *const ok[] = { "nullglob", "failglob",
	    "nocasematch", "globstar", "extglob", "lastpipe", "xpg_echo",
	    "checkwinsize", NULL };
	static const char *const oset[] = { "pipefail", "errexit", "nounset",
	    "xtrace", "noglob", "noclobber", "verbose", NULL };
	const char *s;
	size_t k;
	int set = 0, o = 0;

	if (c->argc == 0 || c->argv[0].flags != 0 || strcmp(c->argv[0].s,
	    "shopt") != 0)
		return (0);
	for (k = 1; k < c->argc; k++) {
		s = c->argv[k].s;
		if (c->argv[k].flags != 0)
			return (1);
		if (s[0] == '-' && strcmp(s, "--") != 0) {
			if (strspn(s + 1, "supqo") != strlen(s + 1))
				return (1);
			set |= strpbrk(s, "su") != NULL;
			o |= strchr(s, 'o') != NULL;
			continue;
		}
		if (set && !in_list(o ? oset : ok, s, strlen(s)))
			return (1);
	}
	return (0);
}

/* A decimal number, as xargs -n and -P take. */
static int
number(const char *s)
{
	return (s[0] != '\0' && strspn(s, "0123456789") == strlen(s));
}

/*
 * Whether a name reaches xargs (without -0) as itself: no blank, quote,
 * backslash, control or non-ASCII byte, which xargs would split at or
 * take as quoting (or as a blank, in some locales).
 */
static int
xargs_plain(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s <= ' ' || (unsigned char)*s >= 0x7f || *s == '\'' ||
		    *s == '"' || *s == '\\')
			return (0);
	return (1);
}

/* Whether every name under the trees is plain (at most JH_ONLYSCAN). */
static int
trees_plain(const struct ex *x)
{
	char *paths[MAX_FIND + 1];
	FTSENT *e;
	FTS *f;
	size_t i, seen = 0;
	int ok = 1;

	for (i = 0; i < x->nftree; i++)
		paths[i] = (char *)x->ftree[i];
	paths[i] = NULL;
	if ((f = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR, NULL)) == NULL)
		return (0);
	while (ok && (e = fts_read(f)) != NULL) {
		if (e->fts_info == FTS_DP)
			continue;
		if (++seen > JH_ONLYSCAN || e->fts_info == FTS_DNR ||
		    e->fts_info == FTS_ERR || e->fts_info == FTS_NS ||
		    (e->fts_level > 0 && !xargs_plain(e->fts_name)))
			ok = 0;
	}
	fts_close(f);
	return (ok);
}

/*
 * Whether grep prints only the names of files, as find prints its paths
 * (grep -rl PATTERN DIR | xargs sed -i ...): -l (or -L), the options
 * that only choose what matches, and plain paths, each a tree it walks
 * with -r, or a file; -R follows links and is not taken.  1 where the
 * names end with a NUL (-Z, for xargs -0), 2 with a newline, 4 where
 * grep prints anything else.
 */
static int
grep_names(const struct jh_sh_cmd *f)
{
	static const char *const sel[] = { "--recursive", "--ignore-case",
	    "--word-regexp", "--line-regexp", "--fixed-strings",
	    "--extended-regexp", "--basic-regexp", "--perl-regexp",
	    "--no-messages", "--files-with-matches", "--files-without-match",
	    "--null", "--no-ignore-case", NULL };
	const char *s, *ops[MAX_OPERANDS];
	size_t k, nops = 0;
	int names = 0, nul = 0, pat = 0, ends = 0;

	for (k = 1; k < f->argc; k++) {
		s = f->argv[k].s;
		/*
		 * --include=*.c may only become more --include= words
		 * (a file of that name), the same option
		 */
		if (f->argv[k].flags == JH_SHW_GLOB && !ends &&
		    (strncmp(s, "--include=", 10) == 0 ||
		    strncmp(s, "--exclude=", 10) == 0 ||
		    strncmp(s, "--exclude-dir=", 14) == 0))
			continue;
		if (f->argv[k].flags != 0)
			return (4);
		if (ends || s[0] != '-' || s[1] == '\0') {
			if (nops == MAX_OPERANDS)
				return (4);
			ops[nops++] = s;
			continue;
		}
		if (strcmp(s, "--") == 0) {
			ends = 1;
			continue;
		}
		if (strcmp(s, "-e") == 0 && k + 1 < f->argc) {
			/* a glob there is more words: paths, options */
			if (f->argv[++k].flags != 0)
				return (4);
			pat++;
			continue;
		}
		if (strncmp(s, "--regexp=", 9) == 0) {
			pat++;
			continue;
		}
		if (strncmp(s, "--include=", 10) == 0 ||
		    strncmp(s, "--exclude=", 10) == 0 ||
		    strncmp(s, "--exclude-dir=", 14) == 0)
			continue;
		if (s[1] == '-') {
			if (!in_list(sel, s, strlen(s)))
				return (4);
			names |= strcmp(s, "--files-with-matches") == 0 ||
			    strcmp(s, "--files-without-match") == 0;
			nul |= strcmp(s, "--null") == 0;
			continue;
		}
		for (s++; *s != '\0'; s++) {
			if (strchr("rilLwxFEGPsIZ", *s) == NULL)
				return (4);
			names |= *s == 'l' || *s == 'L';
			nul |= *s == 'Z';
		}
	}
	/*
	 * The operands: the pattern where no -e gave one (grep takes -e
	 * wherever it is), then the paths.  - is the standard input,
	 * printed as "(standard input)", and a name printed with a leading
	 * - is an option of the command xargs runs.  With no path grep -r
	 * prints the names it finds bare (a file named -fx.sed); under a
	 * path given (. or src) each begins with it.
	 */
	for (k = pat > 0 ? 0 : 1; k < nops; k++)
		if (!xargs_plain(ops[k]) || ops[k][0] == '-')
			return (4);
	if (!names || nops < (pat > 0 ? 1u : 2u))
		return (4);
	return (nul ? 1 : 2);
}

/*
 * Whether git ls-files prints only the names of files under the paths
 * it is given, as find prints its paths (git ls-files -z src | xargs -0
 * wc -l): options that only choose which files (-z, -c, -o, -m, -d, -i,
 * --exclude-standard, --exclude=PATTERN), and paths, at least one, each
 * plain and naming more than . (every name git prints then begins with
 * it; with none, or ., it prints names from its index bare, and one
 * named -x is an option of the command xargs runs), none starting with
 * - or : (git's pathspec magic, which reaches outside) and no pattern
 * (it matches names in every directory: '*.env').  git's own options
 * (-c, -C, --git-dir) before ls-files, --full-name and the tags of -t,
 * -v, -s are not taken.  1 for -z, 2 for newlines, 4 for anything else.
 */
static int
ls_files_names(const struct jh_sh_cmd *f)
{
	static const char *const sel[] = { "-z", "-c", "--cached", "-o",
	    "--others", "-m", "--modified", "-d", "--deleted", "-i",
	    "--ignored", "--exclude-standard", NULL };
	const char *s;
	size_t k;
	int nul = 0, ends = 0, paths = 0;

	if (f->argc < 2 || f->argv[1].flags != 0 ||
	    strcmp(f->argv[1].s, "ls-files") != 0)
		return (4);
	for (k = 2; k < f->argc; k++) {
		s = f->argv[k].s;
		if (f->argv[k].flags != 0)
			return (4);
		if (!ends && strcmp(s, "--") == 0)
			ends = 1;
		else if (!ends && s[0] == '-') {
			if (!in_list(sel, s, strlen(s)) &&
			    strncmp(s, "--exclude=", 10) != 0)
				return (4);
			nul |= strcmp(s, "-z") == 0;
		} else if (s[0] == '-' || s[0] == ':' || !xargs_plain(s) ||
		    strpbrk(s, "*?[") != NULL || strspn(s, "./") == strlen(s))
			return (4);
		else
			paths++;
	}
	return (paths == 0 ? 4 : nul ? 1 : 2);
}

#define XF_FIND		1	/* xargs gives the find's paths */
#define XF_SPLIT	2	/* split at blanks: names as they are now */
#define XF_EMPTY	4	/* runs once without them where there are none */

/*
 * Whether command i is an xargs that gives a find's paths, and nothing
 * else, to the command it runs: find's standard output is its input (a
 * pipe from that one command), find prints paths alone (-print or
 * -print0, no other action, no link followed), and xargs takes them
 * whole: -0 for -print0; else every name under find's trees, and every
 * starting point as written, holds no byte xargs splits at or quotes
 * with, and nothing earlier in the line could have made one.  Only the
 * options that change how many run at once or how many operands each
 * gets are taken.  The command it runs is then CMD ARGS {} +.
 */
static int
xargs_find(const struct ex *x, const struct jh_sh_script *sh, size_t i)
{
	static const char *const act[] = { "-exec", "-execdir", "-ok",
	    "-okdir", "-printf", "-fprintf", "-fprint", "-fprint0", "-ls",
	    "-fls", "-delete", "-follow", "-files0-from", "-help", "--help",
	    "-version", "--version", "-D", NULL };
	const struct jh_sh_cmd *c = &sh->cmd[i], *f, *run;
	const char *s;
	size_t k, stop;
	int nul = 0, print0 = 0, expr = 0, empty = XF_EMPTY;

	if (x->nftree == 0 || c->pipe_from == 0 || c->pipe_from == SIZE_MAX ||
	    x->fcmd + 1 != c->pipe_from || i + 1 >= sh->n || c->argc == 0 ||
	    c->argv[0].flags != 0 || strcmp(c->argv[0].s, "xargs") != 0)
		return (0);
	run = &sh->cmd[i + 1];
	if (!(run->flags & JH_SHC_WRAPPED) || !(run->flags &
	    JH_SHC_OPENARGS) || run->argc == 0 || run->argc >= c->argc)
		return (0);
	/* its input is the pipe: no <, <<, <&, and no <> (a write of 0) */
	for (k = 0; k < c->nredir; k++)
		if (c->redir[k].fd == 0 || (c->redir[k].fd == -1 &&
		    c->redir[k].kind != JH_SHR_WRITE))
			return (0);
	stop = c->argc - run->argc;
	for (k = 1; k < stop; k++) {
		s = c->argv[k].s;
		if (c->argv[k].flags != 0)
			return (0);
		if (strcmp(s, "-0") == 0 || strcmp(s, "--null") == 0)
			nul = 1;
		else if (strcmp(s, "-r") == 0 ||
		    strcmp(s, "--no-run-if-empty") == 0)
			empty = 0;
		else if (strcmp(s, "-t") == 0 || strcmp(s, "-x") == 0 ||
		    strcmp(s, "--verbose") == 0 || strcmp(s, "--exit") == 0)
			continue;
		else if ((strcmp(s, "-n") == 0 || strcmp(s, "-P") == 0) &&
		    k + 1 < stop && c->argv[k + 1].flags == 0 &&
		    number(c->argv[k + 1].s))
			k++;
		else if (((strncmp(s, "-n", 2) == 0 || strncmp(s, "-P", 2) ==
		    0) && number(s + 2)) || (strncmp(s, "--max-args=", 11) ==
		    0 && number(s + 11)) || (strncmp(s, "--max-procs=", 12) ==
		    0 && number(s + 12)))
			continue;
		else
			return (0);
	}
	f = &sh->cmd[c->pipe_from - 1];
	if (f->argc == 0 || f->argv[0].flags != 0 || (strcmp(f->argv[0].s,
	    "find") != 0 && strcmp(f->argv[0].s, "grep") != 0 &&
	    strcmp(f->argv[0].s, "git") != 0) || (f->flags & JH_SHC_WRAPPED))
		return (0);
	/*
	 * its errors stay out of the pipe: they repeat words of the line
	 * (find -user 'x /etc/shadow' 2>/dev/stdout)
	 */
	for (k = 0; k < f->nredir; k++)
		if (f->redir[k].kind != JH_SHR_WRITE || f->redir[k].fd != 2 ||
		    f->redir[k].target.flags != 0 ||
		    strcmp(f->redir[k].target.s, "/dev/null") != 0)
			return (0);
	if (strcmp(f->argv[0].s, "grep") == 0)
		print0 = grep_names(f);
	else if (strcmp(f->argv[0].s, "git") == 0)
		print0 = ls_files_names(f);
	else for (k = 1; k < f->argc; k++) {
		s = f->argv[k].s;
		if (f->argv[k].flags != 0)
			return (0);
		if (!expr && strcmp(s, "--") == 0)
			continue;	/* starting points follow */
		if (s[0] == '-' || strcmp(s, "(") == 0 || strcmp(s, "!") == 0)
			expr = 1;
		if (!expr && (s[0] == '\0' || !xargs_plain(s)))
			return (0);
		if (!expr)
			continue;
		if (strcmp(s, "-print0") == 0)
			print0 |= 1;
		else if (strcmp(s, "-print") == 0)
			print0 |= 2;
		else if (in_list(act, s, strlen(s)) || strcmp(s, "-L") == 0 ||
		    strcmp(s, "-H") == 0)
			return (0);
	}
	/* -print0 for -0, and -print (or none) without: never both */
	if ((print0 & 1) != nul || print0 >= 3)
		return (0);
	if (!nul && !trees_plain(x))
		return (0);
	return (XF_FIND | empty | (nul ? 0 : XF_SPLIT));
}

/*
 * Whether an effect leaves the names xargs splits as they were: a read,
 * or a write or delete of one file whose path xargs would take whole.
 * A program run, or a tree written, may make any name.
 */
static int
keeps_names(const struct jh_effect *v)
{
	return (v->kind == JH_E_READ || ((v->kind == JH_E_WRITE ||
	    v->kind == JH_E_DELETE) && !(v->flags & JH_EF_TREE) &&
	    v->path != NULL && xargs_plain(v->path)));
}

/* Whether an effect writes or deletes one of the trees find walks. */
static int
on_found(const struct ex *x, const struct jh_effect *v)
{
	size_t i;

	if (v->path == NULL || (v->kind != JH_E_WRITE && v->kind !=
	    JH_E_DELETE))
		return (0);
	for (i = 0; i < x->nftree; i++)
		if (strcmp(v->path, x->ftree[i]) == 0)
			return (1);
	return (0);
}

/*
 * find | xargs without -0 took the names as they are now.  Another
 * command of the line, run before it or beside it (run is the index of
 * the one xargs runs, SIZE_MAX for none), may make one xargs splits;
 * so may what xargs runs while find still walks (from the effect
 * before on, where run is SIZE_MAX), unless it only rewrites or deletes
 * what it is given.
 */
static int
xargs_names(struct ex *x, size_t run, size_t before)
{
	const struct jh_effect *v;
	size_t k;

	for (k = before; k < x->ef->n; k++) {
		v = &x->ef->v[k];
		if (keeps_names(v) || (run != SIZE_MAX ? v->cmd == run :
		    v->kind == JH_E_UNKNOWN || on_found(x, v)))
			continue;
		return (add(x, JH_E_UNKNOWN, 0, NULL, "xargs", "xargs splits "
		    "the names find prints at blanks and quotes, and %s may "
		    "make such a name: use find -print0 | xargs -0",
		    run != SIZE_MAX ? "another command of the line" :
		    "what it runs"));
	}
	return (0);
}

/* A find -exec's command: its run-time operands are its {} paths. */
static int
find_exec(const struct ex *x, const struct jh_sh_cmd *c)
{
	size_t k;

	if (!(c->flags & JH_SHC_WRAPPED) || x->nftree == 0)
		return (0);
	for (k = 1; k < c->argc; k++)
		if (c->argv[k].flags == 0 && strcmp(c->argv[k].s, "{}") == 0)
			return (1);
	return (0);
}

/*
 * source FILE (or . FILE): an exec of the file, which runs in this
 * shell.  What follows it is decided where the parser followed only
 * while every file sourced is the project's (JH_SHC_CWD_SOURCED).
 */
static int
source(struct ex *x, const char *dir, const struct jh_sh_word *file)
{
	struct cmdst t;
	char p[PATH_MAX + 1];
	int tree, skip;

	if (file == NULL)
		return (jh_errf(x->e, "source without a file"));
	/* source NAME: bash and sh look NAME up in PATH first */
	if (file->flags == 0 && strchr(file->s, '/') == NULL) {
		x->srcfar = 1;
		return (add(x, JH_E_UNKNOWN, 0, NULL, "source", "'%.100s' "
		    "names no directory, so the shell looks it up in PATH "
		    "before the working directory: say ./%.100s for the "
		    "project's", file->s, file->s));
	}
	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "source");
	snprintf(t.dir, sizeof(t.dir), "%s", dir);
	t.endopts = 1;
	if (path_of(x, &t, file, p, sizeof(p), &tree, &skip) == -1)
		return (-1);
	if (!skip && add(x, JH_E_EXEC, JH_EF_RUNS, p, "source", NULL) == -1)
		return (-1);
	if (skip || x->cx->root == NULL || !jh_path_under(p, x->cx->root))
		x->srcfar = 1;
	return (0);
}

/*
 * Where a command runs: the parser's directory for it, from the line's,
 * or "" where it is not known.  After a sourced file, the directory is
 * the one the parser followed unless that file's code moved it.  Where
 * every file sourced so far is the project's, that code is decided as an
 * exec of it and could do whatever follows itself, so what follows is
 * decided where it would run had the file not moved.  After any other,
 * it is unknown.
 */
static void
cmd_dir(const struct ex *x, const struct jh_sh_cmd *c, char *dir,
    size_t dirsz)
{
	if ((c->flags & JH_SHC_CWD_UNKNOWN) || ((c->flags &
	    JH_SHC_CWD_SOURCED) && x->srcfar))
		dir[0] = '\0';
	else if (c->cwd == NULL)
		snprintf(dir, dirsz, "%s", x->cx->cwd);
	else if (c->cwd[0] == '/')
		snprintf(dir, dirsz, "%s", c->cwd);
	else
		snprintf(dir, dirsz, "%s/%s", x->cx->cwd, c->cwd);
	/* bash's cd takes ".." as text, the kernel after the link */
	if (dir[0] == '/' && !jh_path_text_agrees(NULL, dir))
		dir[0] = '\0';
}

/* What bash evaluates as code in a command's own words: unknown. */
static int
cmd_evaluates(struct ex *x, const struct jh_sh_cmd *c)
{
	if (c->argc > 0 && c->argv[0].flags == 0 && strcmp(
	    c->argv[0].s, "[[") == 0 && cond_arith(c) && add(x,
	    JH_E_UNKNOWN, 0, NULL, NULL, "[[ compares as arithmetic a "
	    "value only known when it runs, which bash evaluates as "
	    "code too") == -1)
		return (-1);
	if (shopt_risky(c) && add(x, JH_E_UNKNOWN, 0, NULL, NULL,
	    "shopt sets an option that changes what later words run "
	    "or name, which this gate does not follow") == -1)
		return (-1);
	if (subscripted(c) && add(x, JH_E_UNKNOWN, 0, NULL, NULL,
	    "%s evaluates an array subscript that names a value as "
	    "arithmetic, which bash evaluates as code too",
	    c->argv[0].s) == -1)
		return (-1);
	return (0);
}

/*
 * The program a simple command runs (none for an assignment alone or a
 * word bash takes as no command), on its words: with find's paths
 * where an xargs fed by find gives them ("{}" appended; without -r, the
 * program alone too, as xargs runs it once when find prints nothing).
 */
static int
cmd_program(struct ex *x, const struct jh_sh_script *sh,
    const struct jh_sh_cmd *c, const char *dir)
{
	char *w[MAX_OPERANDS];
	int fl[MAX_OPERANDS];
	size_t n, xown = SIZE_MAX, i = x->cmd;

	if (c->argc == 0 || (c->argv[0].flags == 0 && free_word(c->argv[0].s)))
		return (0);
	if ((c->flags & JH_SHC_OPENARGS) && !find_exec(x, c) && !x->xfind &&
	    add(x, JH_E_UNKNOWN, 0, NULL, c->argv[0].s, "%.100s is given "
	    "operands only known when it runs%s", c->argv[0].s, i > 0 &&
	    sh->cmd[i - 1].argc > 0 && strcmp(sh->cmd[i - 1].argv[0].s,
	    "xargs") == 0 ? " (find DIR ... | xargs CMD and grep -rl PAT "
	    "DIR | xargs CMD, with plain names, and find DIR ... -print0 | "
	    "xargs -0 CMD are decided as find DIR ... -exec CMD {} +)" :
	    "") == -1)
		return (-1);
	for (n = 0; n < c->argc && n < MAX_OPERANDS; n++) {
		w[n] = c->argv[n].s;
		fl[n] = c->argv[n].flags;
	}
	if (n == c->argc && n < MAX_OPERANDS && x->xfind &&
	    (c->flags & JH_SHC_OPENARGS)) {
		xown = x->ef->n;
		if ((x->xfind & XF_EMPTY) &&
		    command(x, dir, w, fl, n, 0) == -1)
			return (-1);
		w[n] = (char *)"{}";
		fl[n++] = 0;
	}
	if (n < c->argc)
		return (add(x, JH_E_UNKNOWN, 0, NULL, NULL, "a command of "
		    "more than %d words", MAX_OPERANDS));
	x->found = 0;
	if (strcmp(c->argv[0].s, "source") == 0 ||
	    strcmp(c->argv[0].s, ".") == 0) {
		if (source(x, dir, c->argc > 1 ? &c->argv[1] : NULL) == -1)
			return (-1);
	} else if (command(x, dir, w, fl, n, 0) == -1)
		return (-1);
	/*
	 * find's paths where the program takes no path: sed's or awk's
	 * script, grep's pattern, the program xargs runs
	 */
	if ((xown != SIZE_MAX || find_exec(x, c)) && !x->found &&
	    add(x, JH_E_UNKNOWN, 0, NULL, c->argv[0].s, "%.100s takes the "
	    "paths find prints where it takes no path (a script, a pattern "
	    "or a program), so what it does with them is only known when it "
	    "runs", c->argv[0].s) == -1)
		return (-1);
	if (xown != SIZE_MAX && (x->xfind & XF_SPLIT) &&
	    xargs_names(x, SIZE_MAX, xown) == -1)
		return (-1);
	return (0);
}

int
jh_shell_effects(struct jh_effects *ef, const struct jh_effctx *cx,
    const struct jh_sh_script *sh, struct jh_err *e)
{
	struct ex x;
	char dir[PATH_MAX * 2];
	size_t i, k, xsplit = 0;

	memset(&x, 0, offsetof(struct ex, ftree));
	x.fdir[0] = x.gtop[0] = x.lexout[0] = '\0';
	x.ef = ef;
	x.curonly = "";
	x.cx = cx;
	x.e = e;
	if (sh->arith_unknown && add(&x, JH_E_UNKNOWN, 0, NULL, NULL,
	    "a value only known when it runs that bash evaluates as code "
	    "too (arithmetic, ${!name}, ${x@P} or an integer variable)") ==
	    -1)
		return (-1);
	for (i = 0; i < sh->n; i++) {
		const struct jh_sh_cmd *c = &sh->cmd[i];

		x.cmd = i;
		x.cflags = c->flags;
		if (!(c->flags & JH_SHC_WRAPPED)) {
			/* {} is only the find's it follows, or its xargs' */
			x.xfind = xargs_find(&x, sh, i);
			if (x.xfind & XF_SPLIT)
				xsplit = i + 2;
			if (!x.xfind)
				x.nftree = 0;
		}
		cmd_dir(&x, c, dir, sizeof(dir));
		if (assigns(&x, dir, c) == -1)
			return (-1);
		for (k = 0; k < c->nredir; k++)
			if (redirect(&x, dir, &c->redir[k]) == -1)
				return (-1);
		if (cmd_evaluates(&x, c) == -1 ||
		    cmd_program(&x, sh, c, dir) == -1)
			return (-1);
	}
	if (xsplit > 0 && xargs_names(&x, xsplit - 1, 0) == -1)
		return (-1);
	return (scripts_kept(&x));
}
