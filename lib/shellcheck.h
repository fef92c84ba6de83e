/*
 * joulehook: a shell command line against the protected paths, and
 * whether it is the grant's outcome command (shellcheck.c).  The parsed
 * line (shellparse.h) is checked word by word: joulehook's own programs
 * and protected places are refused before any grant; what the line does
 * is then decided by its effects (effects.h, effgrant.h).  The contract
 * is jh-decide(1), "Protected paths" and "Shell commands".
 */
#ifndef JH_SHELLCHECK_H
#define JH_SHELLCHECK_H

#include <stddef.h>

#include <jansson.h>

struct jh_grant;
struct jh_sh_script;

struct jh_shck {
	char *const *protect;	/* protected paths beyond the built-in ones */
	size_t nprotect;
	const char *root;	/* the pinned project root, or NULL */
	json_t *targets;	/* resolved redirect targets are appended */
	int code;		/* the first failure's JH_D_* code */
	char reason[512];
};

/*
 * Whether a file name is one the project's host configuration goes by
 * (.claude, .mcp.json, opencode.json, ...), at its root or deeper: the
 * names jh_path_protected protects in the project by name, ignoring case.
 */
int	jh_protected_name(const char *name);
extern const char *const jh_protected_names[];	/* the same, NULL-ended */

/*
 * Whether path is under one of protect[0..nprotect) or the project's
 * own host configuration under root (.claude, .mcp.json, ...).
 */
int	jh_path_protected(char *const *protect, size_t nprotect,
	    const char *root, const char *path);
/* The literal directory prefix of a glob pattern. */
void	jh_glob_prefix(char *out, size_t sz, const char *pat);
int	jh_glob_climbs(const char *pat);
/*
 * A shell line's command words that are joulehook's own programs, and
 * its words that resolve into a protected place: the JH_D_* code of
 * the first, its reason in s, or 0.
 */
int	jh_shell_protected(struct jh_shck *s, const char *cwd,
	    const struct jh_sh_script *sh);
/* Whether the command is one the grant's outcome patterns match. */
int	jh_is_outcome(const struct jh_grant *g, const char *class,
	    const json_t *in);

#endif /* JH_SHELLCHECK_H */
