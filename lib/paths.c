/*
 * joulehook: path resolution and matching for the gate (jh-decide(1),
 * Paths).
 *
 * A path is made absolute against a base, the longest existing prefix is
 * resolved with realpath(3) (so a symlink, and a ".." after one, resolve
 * the way the kernel will resolve them), and only then is a tail that does
 * not exist yet appended, and only if it holds no "..".  Patterns are
 * globs where "**" crosses directories and "*" does not.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/openat2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "jh.h"
#include "paths.h"

/*
 * Opens path O_PATH without following a magic link (/proc/PID/cwd, root,
 * exe, fd/N, and so /dev/stdout and /dev/fd/N): those name what this
 * process has, not what the command the path is for will have; ELOOP.
 * A kernel or a filter without openat2(2) gets a plain open.
 */
static int
open_path(const char *path)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd == -1 && (errno == ENOSYS || errno == EPERM))
		fd = open(path, O_PATH | O_CLOEXEC);
	return ((int)fd);
}

/* ELOOP from open_path: a magic link, not a loop, when a plain open works. */
static int
magic(const char *path)
{
	int fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1) {
		errno = ELOOP;
		return (0);
	}
	(void)close(fd);
	errno = ELOOP;
	return (1);
}

/* /proc/self, /proc/thread-self and /proc/PID name a process's own files. */
static int
proc_own(const char *p)
{
	size_t n;

	if (strncmp(p, "/proc/", 6) != 0)
		return (0);
	p += 6;
	if (strncmp(p, "self", 4) == 0)
		n = 4;
	else if (strncmp(p, "thread-self", 11) == 0)
		n = 11;
	else
		n = strspn(p, "0123456789");
	return (n > 0 && (p[n] == '/' || p[n] == '\0'));
}

/* Absolute, and no part of it empty, "." or "..". */
static int
plain(const char *p)
{
	if (*p != '/')
		return (0);
	if (p[1] == '\0')
		return (1);
	for (;;) {
		size_t k = strcspn(++p, "/");
		if (k == 0 || (k == 1 && p[0] == '.') ||
		    (k == 2 && p[0] == '.' && p[1] == '.'))
			return (0);
		if (p[k] == '\0')
			return (1);
		p += k;
	}
}

/*
 * realpath(3) in three system calls: the kernel resolves the whole path
 * once (open O_PATH: no permission on the file itself, no blocking on a
 * FIFO) and names what it found through /proc/self/fd.  realpath(3)
 * reads each component's link in turn, five to ten calls for a path in a
 * project.  The library's walk stays the answer where /proc is not
 * mounted, where no descriptor is left for the open, and where the name
 * found is not a plain absolute one: a file unlinked between the open
 * and the read is named with " (deleted)" after it, which realpath(3)
 * would not say.
 */
static char *
real(const char *path, char res[PATH_MAX])
{
	static const char gone[] = " (deleted)";
	struct open_how how;
	char link[32];
	ssize_t n;
	long pf;
	int fd;

	/*
	 * A plain path (absolute, no ".", "..", "//" or trailing "/") the
	 * kernel walks without meeting a link names itself: one call, and
	 * no read of /proc, which costs as much again.
	 */
	if (plain(path) && strlen(path) < PATH_MAX) {
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_CLOEXEC;
		how.resolve = RESOLVE_NO_SYMLINKS;
		if ((pf = syscall(SYS_openat2, AT_FDCWD, path, &how,
		    sizeof(how))) != -1) {
			(void)close((int)pf);
			return (strcpy(res, path));
		}
		if (errno == ENOENT || errno == ENOTDIR)
			return (NULL);
	}
	if ((fd = open_path(path)) == -1)
		return (errno == EMFILE || errno == ENFILE ? realpath(path,
		    res) : NULL);
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, res, PATH_MAX);
	(void)close(fd);
	if (n > 0 && n < PATH_MAX && res[0] == '/' && ((size_t)n <
	    sizeof(gone) || memcmp(res + n - (sizeof(gone) - 1), gone,
	    sizeof(gone) - 1) != 0)) {
		res[n] = '\0';
		return (res);
	}
	return (realpath(path, res));	/* which sets errno if it fails */
}

/*
 * buf (of *n bytes, its last part after slash) is a link to what is not
 * there: buf becomes its target, joined to the link's directory where it
 * is relative.  0, or -1 with the reason.
 */
static int
dangling(char *buf, size_t bufsz, size_t *n, char *slash, int links,
    const char *path, struct jh_err *e)
{
	char lnk[PATH_MAX];
	ssize_t k;

	if (links > 40 || (k = readlink(buf, lnk, sizeof(lnk) - 1)) <= 0)
		return (jh_errf(e, "%s: cannot follow the link %s", path, buf));
	lnk[k] = '\0';
	if (lnk[0] == '/')
		*n = (size_t)snprintf(buf, bufsz, "%s", lnk);
	else {
		slash[1] = '\0';
		*n = strlen(buf);
		*n += (size_t)snprintf(buf + *n, bufsz - *n, "%s", lnk);
	}
	if (*n >= bufsz - 1)
		return (jh_errf(e, "path too long"));
	if (proc_own(buf))
		return (jh_errf(e, "%s links to a process's own files "
		    "(/proc/self, /proc/PID), not followed", path));
	return (0);
}

int
jh_path_resolve(char *out, size_t sz, const char *base, const char *path,
    struct jh_err *e)
{
	char buf[PATH_MAX * 2], tail[PATH_MAX * 2], res[PATH_MAX];
	struct stat st;
	size_t n, tl = 0;
	char *slash;
	int links = 0;

	if (path == NULL || *path == '\0')
		return (jh_errf(e, "empty path"));
	if (memchr(path, '\0', strlen(path) + 1) != path + strlen(path))
		return (jh_errf(e, "path holds a NUL"));
	if (path[0] == '/')
		n = (size_t)snprintf(buf, sizeof(buf), "%s", path);
	else {
		if (base == NULL || base[0] != '/')
			return (jh_errf(e, "relative path without an absolute "
			    "base"));
		n = (size_t)snprintf(buf, sizeof(buf), "%s/%s", base, path);
	}
	if (n >= sizeof(buf) - 1)
		return (jh_errf(e, "path too long"));
	if (proc_own(buf))
		return (jh_errf(e, "%s names a process's own files (/proc/"
		    "self, /proc/PID), not followed", path));
	tail[0] = '\0';
	for (;;) {
		/* Drop trailing slashes, but keep "/". */
		while (n > 1 && buf[n - 1] == '/')
			buf[--n] = '\0';
		if (real(buf, res) != NULL)
			break;
		if (errno == ELOOP && magic(buf))
			return (jh_errf(e, "%s goes through a process's own "
			    "files (/proc/self, /dev/fd), not followed", path));
		if (errno != ENOENT && errno != ENOTDIR)
			return (jh_errf(e, "%s: %s", buf, strerror(errno)));
		if ((slash = strrchr(buf, '/')) == NULL || n <= 1)
			return (jh_errf(e, "%s: cannot resolve", path));
		/*
		 * A link to what does not exist yet: a write through it
		 * creates its target, so the path is the target's.
		 */
		if (errno == ENOENT && lstat(buf, &st) == 0 &&
		    S_ISLNK(st.st_mode)) {
			if (dangling(buf, sizeof(buf), &n, slash, ++links,
			    path, e) == -1)
				return (-1);
			continue;
		}
		/* The missing component joins the tail; ".." may not. */
		if (strcmp(slash + 1, "..") == 0)
			return (jh_errf(e, "'..' in a part of the path that "
			    "does not exist yet: %s", path));
		if (strcmp(slash + 1, ".") != 0 && slash[1] != '\0') {
			size_t cl = strlen(slash + 1);
			if (tl + cl + 2 > sizeof(tail))
				return (jh_errf(e, "path too long"));
			memmove(tail + cl + 1, tail, tl + 1);
			memcpy(tail, slash + 1, cl);
			tail[cl] = tl ? '/' : '\0';
			tl += cl + (tl ? 1 : 0);
			tail[tl] = '\0';
		}
		if (slash == buf) {
			buf[1] = '\0';
			n = 1;
		} else {
			*slash = '\0';
			n = (size_t)(slash - buf);
		}
	}
	if (proc_own(res))
		return (jh_errf(e, "%s names a process's own files (/proc/"
		    "self, /proc/PID), not followed", path));
	if (tl == 0)
		n = (size_t)snprintf(out, sz, "%s", res);
	else
		n = (size_t)snprintf(out, sz, "%s%s%s", res,
		    strcmp(res, "/") == 0 ? "" : "/", tail);
	if (n >= sz)
		return (jh_errf(e, "path too long"));
	return (0);
}

/*
 * path made absolute against base, its "." and ".." parts taken as text,
 * as Node's path.resolve(3) does (and Claude Code, Gemini CLI and
 * OpenCode before they open the file): "link/.." is the directory that
 * holds link, whatever link points to.  0, or -1 when it is too long.
 */
int
jh_path_lexical(char *out, size_t sz, const char *base, const char *path)
{
	char in[PATH_MAX * 2];
	size_t n = 1, k;
	const char *p, *c;

	if (sz < 2 || (size_t)(path[0] == '/' || base == NULL ?
	    snprintf(in, sizeof(in), "%s", path) : snprintf(in, sizeof(in),
	    "%s/%s", base, path)) >= sizeof(in))
		return (-1);
	out[0] = '/';
	out[1] = '\0';
	for (p = in; *p != '\0'; p = c) {
		while (*p == '/')
			p++;
		c = p + strcspn(p, "/");
		k = (size_t)(c - p);
		if (k == 0 || (k == 1 && p[0] == '.'))
			continue;
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
			out[n] = '\0';
			continue;
		}
		if (n + (n > 1) + k + 1 > sz)
			return (-1);
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, p, k);
		n += k;
		out[n] = '\0';
	}
	return (0);
}

/*
 * Whether path, against base, comes to one place both ways: its ".."
 * parts taken as text (bash's cd -L, Node's path.resolve) and after the
 * links they follow (the kernel).  A path without ".." always does.
 */
int
jh_path_text_agrees(const char *base, const char *path)
{
	char lex[PATH_MAX + 1], a[PATH_MAX + 1], b[PATH_MAX + 1];
	struct jh_err e;

	if (!jh_path_dotdot(path))
		return (1);
	return (jh_path_lexical(lex, sizeof(lex), base, path) == 0 &&
	    jh_path_resolve(a, sizeof(a), "/", lex, &e) == 0 &&
	    jh_path_resolve(b, sizeof(b), base != NULL ? base : "/", path,
	    &e) == 0 && strcmp(a, b) == 0);
}

/* Whether a path has a ".." part. */
int
jh_path_dotdot(const char *path)
{
	const char *p;

	for (p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' ||
		    p[2] == '/'))
			return (1);
	return (0);
}

/*
 * The bytes of white space at s, as JavaScript's String.prototype.trim
 * counts it (ECMA-262, WhiteSpace and LineTerminator), in UTF-8: 0 where
 * s holds none.
 */
static size_t
js_space(const unsigned char *s, size_t left)
{
	static const char *const u[] = { "\xc2\xa0", "\xe1\x9a\x80",
	    "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f",
	    "\xe3\x80\x80", "\xef\xbb\xbf", NULL };
	size_t i, n;

	if (left == 0)
		return (0);
	if (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r'))
		return (1);
	if (left >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x80 &&
	    s[2] <= 0x8a)
		return (3);		/* U+2000 to U+200A */
	for (i = 0; u[i] != NULL; i++)
		if ((n = strlen(u[i])) <= left && memcmp(s, u[i], n) == 0)
			return (n);
	return (0);
}

/*
 * path without the white space JavaScript's trim() drops at its ends,
 * as Claude Code's tools read a path: 1 with it in out where some was
 * dropped, 0 where none was, -1 where out is too small.
 */
int
jh_path_trim(char *out, size_t sz, const char *path)
{
	const unsigned char *s = (const unsigned char *)path;
	size_t len = strlen(path), lo = 0, hi = len, k, j;
	int moved;

	while ((k = js_space(s + lo, hi - lo)) > 0)
		lo += k;
	/* from the end: the longest of the spaces that ends there */
	do {
		moved = 0;
		for (j = 1; j <= 3 && j <= hi - lo; j++)
			if (js_space(s + hi - j, j) == j) {
				hi -= j;
				moved = 1;
				break;
			}
	} while (moved);
	if (lo == 0 && hi == len)
		return (0);
	if (hi - lo + 1 > sz)
		return (-1);
	memcpy(out, path + lo, hi - lo);
	out[hi - lo] = '\0';
	return (1);
}

/* True when path is dir or lies under it; fold: ignoring ASCII case. */
static int
under(const char *path, const char *dir, int fold)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return (path[0] == '/');
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return ((fold ? strncasecmp(path, dir, n) : strncmp(path, dir, n)) ==
	    0 && (path[n] == '\0' || path[n] == '/'));
}

int
jh_path_under(const char *path, const char *dir)
{
	return (under(path, dir, 0));
}

/*
 * The path with the two letters outside ASCII that a file system which
 * ignores case (macOS's) takes as ASCII ones written as those: U+017F
 * (long s) as 's', U+212A (Kelvin sign) as 'k'.  .\u017fsh is .ssh
 * there.  Returns 1 when out differs from in, 0 when not, -1 when it
 * does not fit.
 */
int
jh_path_fold_letters(char *out, size_t sz, const char *in)
{
	size_t o = 0;
	int changed = 0;

	for (; *in != '\0'; in++) {
		if (o + 1 >= sz)
			return (-1);
		if ((unsigned char)in[0] == 0xc5 &&
		    (unsigned char)in[1] == 0xbf) {
			out[o++] = 's';
			in++;
			changed = 1;
		} else if ((unsigned char)in[0] == 0xe2 &&
		    (unsigned char)in[1] == 0x84 &&
		    (unsigned char)in[2] == 0xaa) {
			out[o++] = 'k';
			in += 2;
			changed = 1;
		} else
			out[o++] = *in;
	}
	out[o] = '\0';
	return (changed);
}
/*
 * jh_path_under, ignoring ASCII case: the file systems of macOS and
 * Windows do, so .CLAUDE/settings.json is .claude/settings.json there.
 */
int
jh_path_under_fold(const char *path, const char *dir)
{
	return (under(path, dir, 1));
}

static int
class_match(const char **pp, char c)
{
	const char *p = *pp + 1;
	int neg = 0, ok = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {
		ok = c == ']';
		p++;
	}
	for (; *p != '\0' && *p != ']'; p++) {
		if (p[1] == '-' && p[2] != '\0' && p[2] != ']') {
			if (c >= p[0] && c <= p[2])
				ok = 1;
			p += 2;
		} else if (*p == c)
			ok = 1;
	}
	if (*p != ']')
		return (-1);	/* not a class: match '[' literally */
	*pp = p;
	return (ok != neg);
}

/*
 * Glob match.  With pathname set, a star and "?" do not match "/", and
 * a double star matches any run of characters including "/" (pattern
 * a/STARSTAR matches a/b/c; STARSTAR followed by "/" matches zero or more
 * directories); without pathname every star is free.  A backslash quotes
 * the next character.
 */
int
jh_glob(const char *p, const char *s, int pathname)
{
	const char *q;
	int r;

	for (; *p != '\0'; p++, s++) {
		switch (*p) {
		case '*':
			if (pathname && p[1] == '*') {
				p += 2;
				if (*p == '/') {
					/* zero or more directories */
					if (jh_glob(p + 1, s, pathname))
						return (1);
				}
				for (q = s; ; q++) {
					if (jh_glob(p, q, pathname))
						return (1);
					if (*q == '\0')
						return (0);
				}
			}
			while (p[1] == '*')
				p++;
			for (q = s; ; q++) {
				if (jh_glob(p + 1, q, pathname))
					return (1);
				if (*q == '\0' || (pathname && *q == '/'))
					return (0);
			}
		case '?':
			if (*s == '\0' || (pathname && *s == '/'))
				return (0);
			break;
		case '[':
			if (*s == '\0' || (pathname && *s == '/'))
				return (0);
			q = p;
			if ((r = class_match(&q, *s)) == -1) {
				if (*s != '[')
					return (0);
				break;
			}
			if (!r)
				return (0);
			p = q;
			break;
		case '\\':
			if (p[1] != '\0')
				p++;
			/* FALLTHROUGH */
		default:
			if (*p != *s)
				return (0);
			break;
		}
	}
	return (*s == '\0');
}

/* A pattern ending in "/" + double star also covers the directory itself. */
static int
jh_glob_dir(const char *pat, const char *path)
{
	char tmp[PATH_MAX * 2];
	size_t n = strlen(pat);

	if (n >= 3 && strcmp(pat + n - 3, "/**") == 0 &&
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/", path) < sizeof(tmp) &&
	    jh_glob(pat, tmp, 1))
		return (1);
	return (jh_glob(pat, path, 1));
}

/* A grant path pattern: relative ones are relative to the root. */
int
jh_path_match(const char *pattern, const char *root, const char *path)
{
	char full[PATH_MAX * 2];

	if (pattern[0] == '/')
		return (jh_glob_dir(pattern, path));
	if (root == NULL)
		return (0);
	if ((size_t)snprintf(full, sizeof(full), "%s%s%s", root,
	    strcmp(root, "/") == 0 ? "" : "/", pattern) >= sizeof(full))
		return (0);
	return (jh_glob_dir(full, path));
}
