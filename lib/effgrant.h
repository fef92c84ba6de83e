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
#define JH_CONFSCAN	1000000	/* and of one written or deleted for a
				   host's configuration: beyond, as if held */

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

int	jh_effects_caps(struct jh_effck *r, const struct jh_grant *g,
	    const struct jh_action *act, const struct jh_sh_script *sh,
	    const struct jh_effects *ef);
int	jh_when_effect_keys(const struct jh_cbor *w);
int	jh_when_effects(const struct jh_cbor *w, const struct jh_action *act,
	    const struct jh_effects *ef, const struct jh_effect **hit);
int	jh_effects_protected(char *out, size_t sz, char *const *protect,
	    size_t nprotect, const char *root, const struct jh_effects *ef);
int	jh_action_effects(struct jh_effects *ef, const struct jh_action *act,
	    struct jh_err *e);
json_t	*jh_effects_json(const struct jh_effects *ef, int rules);
void	jh_effect_text(char *out, size_t sz, const struct jh_effect *e);
void	jh_action_hint(char *out, size_t sz, const struct jh_action *act);

#endif
