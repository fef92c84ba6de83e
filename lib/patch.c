/*
 * joulehook: the files an apply_patch text touches (Codex's freeform
 * patch tool, jh-normalize(1) "HOSTS"):
 *
 *	*** Begin Patch
 *	*** Add File: PATH		then "+" lines
 *	*** Update File: PATH		then "@@" hunks, maybe
 *	*** Move to: PATH		 right after the Update line
 *	*** Delete File: PATH
 *	*** End Patch
 *
 * Every file named is a target, the old and the new name of a move
 * alike.  A header is recognized with leading blanks too, so an
 * indented one cannot hide a file from the gate: any character Rust's
 * char::is_whitespace or JavaScript's String.prototype.trim takes for
 * a blank (a vertical tab, a no-break space, U+3000), as Codex and
 * OpenCode trim a line before they match it.  A "*** " line that is no
 * header this parser knows makes the patch unreadable, which the gate
 * denies; so does a name that starts with a blank, which a host may
 * trim away (OpenCode) or keep.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "host.h"

#define MAX_PATCH_FILES	256

static const char *const heads[] = { "*** Add File: ", "*** Update File: ",
    "*** Delete File: ", "*** Move to: ", NULL };

/*
 * The length of the blank at p (before e), or 0: ASCII's, and Unicode's
 * White_Space characters and U+FEFF in UTF-8.
 */
static size_t
blank(const char *p, const char *e)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n = (size_t)(e - p);
	unsigned cp;

	if (n == 0)
		return (0);
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
		return (1);
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return (2);
	if (n < 3 || (u[0] & 0xf0) != 0xe0)
		return (0);
	cp = (unsigned)(u[0] & 0x0f) << 12 | (unsigned)(u[1] & 0x3f) << 6 |
	    (u[2] & 0x3f);
	if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	    cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 ||
	    cp == 0xfeff)
		return (3);
	return (0);
}

int
jh_patch_paths(const char *s, size_t n, json_t *out, char *why, size_t whysz)
{
	const char *e = s + n, *l, *nl, *t;
	size_t len, k, i, b, line = 0, files = 0;
	int begun = 0, ended = 0;

	if (memchr(s, '\0', n) != NULL)
		return (snprintf(why, whysz, "the patch holds a NUL byte"), -1);
	for (l = s; l < e; l = nl + 1) {
		line++;
		if ((nl = memchr(l, '\n', (size_t)(e - l))) == NULL)
			nl = e;
		len = (size_t)(nl - l);
		if (len > 0 && l[len - 1] == '\r')
			len--;
		for (t = l; (b = blank(t, l + len)) > 0; t += b)
			;
		len -= (size_t)(t - l);
		if (len < 4 || memcmp(t, "*** ", 4) != 0)
			continue;
		if (len == 15 && memcmp(t, "*** Begin Patch", 15) == 0) {
			if (begun)
				return (snprintf(why, whysz, "the patch "
				    "begins twice (line %zu)", line), -1);
			begun = 1;
			continue;
		}
		if (!begun)
			return (snprintf(why, whysz, "the patch does not start "
			    "with *** Begin Patch"), -1);
		if (len == 13 && memcmp(t, "*** End Patch", 13) == 0) {
			ended = 1;
			continue;
		}
		if (len == 15 && memcmp(t, "*** End of File", 15) == 0)
			continue;
		for (k = 0; heads[k] != NULL; k++)
			if (len > strlen(heads[k]) &&
			    memcmp(t, heads[k], strlen(heads[k])) == 0)
				break;
		if (heads[k] == NULL)
			return (snprintf(why, whysz, "the patch's line %zu "
			    "(%.60s) is no header of apply_patch's", line,
			    t), -1);
		if (ended)
			return (snprintf(why, whysz, "the patch goes on after "
			    "*** End Patch (line %zu)", line), -1);
		if (++files > MAX_PATCH_FILES)
			return (snprintf(why, whysz, "the patch names more "
			    "than %d files", MAX_PATCH_FILES), -1);
		i = strlen(heads[k]);
		/* trailing blanks are not part of the name */
		while (len > i && blank(t + len - 1, t + len) == 1)
			len--;
		if ((len >= i + 2 && blank(t + len - 2, t + len) == 2) ||
		    (len >= i + 3 && blank(t + len - 3, t + len) == 3))
			return (snprintf(why, whysz, "the patch's line %zu "
			    "names a file that ends with a blank, which a "
			    "host may trim away or keep", line), -1);
		if (len == i)
			return (snprintf(why, whysz, "the patch's line %zu "
			    "names no file", line), -1);
		if (blank(t + i, t + len) > 0)
			return (snprintf(why, whysz, "the patch's line %zu "
			    "names a file that starts with a blank, which a "
			    "host may trim away or keep", line), -1);
		json_array_append_new(out, json_stringn(t + i, len - i));
	}
	if (!begun || !ended)
		return (snprintf(why, whysz, "the patch is not framed by *** "
		    "Begin Patch and *** End Patch"), -1);
	if (files == 0)
		return (snprintf(why, whysz, "the patch names no file"), -1);
	return (0);
}
