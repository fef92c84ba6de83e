/*
 * joulehook: the protected set, the paths never grantable (protect.c).
 */
#ifndef JH_PROTECT_H
#define JH_PROTECT_H

#include <stddef.h>

#include "jh.h"

/*
 * A protected set holds at most JH_PROTECT_MAX paths, of which at most
 * JH_PROTECT_ARGS are the caller's own (-P): the rest is kept for the
 * built-in ones, which a long -P list must never crowd out.
 */
#define JH_PROTECT_MAX	48
#define JH_PROTECT_ARGS	32

struct jh_protect {
	char *path[JH_PROTECT_MAX];	/* resolved, absolute */
	size_t n;
};

void	jh_protect_init(struct jh_protect *p);
int	jh_protect_add(struct jh_protect *p, const char *path,
	    struct jh_err *e);
void	jh_protect_builtin(struct jh_protect *p, const char *home,
	    const char *statedir);
void	jh_protect_builtin_at(struct jh_protect *p, const char *home,
	    const char *statedir, const char *exedir);
void	jh_protect_free(struct jh_protect *p);

#endif /* JH_PROTECT_H */
