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
 * indented one cannot hide a file from the gate; a "*** " line that is
 * no header this parser knows makes the patch unreadable, which the
 * gate denies.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "host.h"

#define MAX_PATCH_FILES	256

static const char *const heads[] = { "*** Add File: ", "*** Update File: ",
    "*** Delete File: ", "*** Move to: ", NULL };

int
jh_patch_paths(const char *s, size_t n, json_t *out, char *why, size_t whysz)
{
	const char *e = s + n, *l, *nl, *t;
	size_t len, k, i, line = 0, files = 0;
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
		for (t = l; t < l + len && (*t == ' ' || *t == '\t'); t++)
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
		while (len > i && (t[len - 1] == ' ' || t[len - 1] == '\t'))
			len--;
		if (len == i)
			return (snprintf(why, whysz, "the patch's line %zu "
			    "names no file", line), -1);
		json_array_append_new(out, json_stringn(t + i, len - i));
	}
	if (!begun || !ended)
		return (snprintf(why, whysz, "the patch is not framed by *** "
		    "Begin Patch and *** End Patch"), -1);
	if (files == 0)
		return (snprintf(why, whysz, "the patch names no file"), -1);
	return (0);
}
