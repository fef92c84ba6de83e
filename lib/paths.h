/*
 * joulehook: path resolution and matching for the gate (paths.c).  A
 * path is made absolute against a base and its longest existing prefix
 * resolved with realpath(3) before a tail that does not exist yet is
 * appended; patterns are globs where "**" crosses directories and "*"
 * does not.  The contract is jh-decide(1), "Paths".
 */
#ifndef JH_PATHS_H
#define JH_PATHS_H

#include <stddef.h>

struct jh_err;

/* path made absolute against base, and resolved, into out[0..sz). */
int	jh_path_resolve(char *out, size_t sz, const char *base,
	    const char *path, struct jh_err *e);
/* path made absolute against base, "." and ".." taken as text. */
int	jh_path_lexical(char *out, size_t sz, const char *base,
	    const char *path);
/* Whether path has a ".." part. */
int	jh_path_dotdot(const char *path);
/* Whether its ".." as text and after links come to one place. */
int	jh_path_text_agrees(const char *base, const char *path);
/* path without JavaScript trim()'s white space at its ends: 1 if cut. */
int	jh_path_trim(char *out, size_t sz, const char *path);
/* Whether path is dir or under it; _fold ignores ASCII case. */
int	jh_path_under(const char *path, const char *dir);
int	jh_path_under_fold(const char *path, const char *dir);
int	jh_path_fold_letters(char *out, size_t sz, const char *in);
/* Glob match; with pathname set "*" stops at "/" and "**" does not. */
int	jh_glob(const char *p, const char *s, int pathname);
/* A grant path pattern: relative ones are relative to root. */
int	jh_path_match(const char *pattern, const char *root, const char *path);

#endif /* JH_PATHS_H */
