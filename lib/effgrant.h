/*
 * joulehook: a grant's capabilities and policies over effects
 * (effgrant.c).
 */
#ifndef JH_EFFGRANT_H
#define JH_EFFGRANT_H

#include <jansson.h>

#include "effects.h"

#define JH_EFF_MAXCMD	512	/* simple commands of one line looked at */
#define JH_LINKSCAN	20000	/* entries of a tree scanned for links */

struct jh_effck {
	int code;		/* JH_D_* of the first effect not granted */
	char reason[512];
	char hint[512];		/* jh-grant add's arguments that grant it */
	size_t ungranted;	/* effects no capability grants */
	int first_cap;		/* the capability of the first granted one */
};

struct jh_grant;
struct jh_action;
struct jh_cbor;

int	jh_effects_caps(struct jh_effck *, const struct jh_grant *,
	    const struct jh_action *, const struct jh_sh_script *,
	    const struct jh_effects *);
int	jh_when_effect_keys(const struct jh_cbor *);
int	jh_when_effects(const struct jh_cbor *, const struct jh_action *,
	    const struct jh_effects *, const struct jh_effect **);
int	jh_effects_protected(char *, size_t, char *const *, size_t,
	    const char *, const struct jh_effects *);
int	jh_action_effects(struct jh_effects *, const struct jh_action *,
	    struct jh_err *);
json_t	*jh_effects_json(const struct jh_effects *, int);
void	jh_effect_text(char *, size_t, const struct jh_effect *);
void	jh_action_hint(char *, size_t, const struct jh_action *);

#endif
