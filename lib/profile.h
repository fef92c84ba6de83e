/*
 * joulehook: each host's declared conformance profile (joulehook(7)
 * PROFILES, jh-status(1) -P): which seams the host offers, what the
 * adapter cannot see, and what an install bound.
 */
#ifndef JH_PROFILE_H
#define JH_PROFILE_H

#include <stddef.h>

#include <jansson.h>

struct jh_err;

#define JH_PROFILE_LIMITS	6

struct jh_profile {
	const char *host;	/* the -H name */
	const char *name;	/* for people, with the version tested */
	const char *profile;	/* claude-code, hooks-family, cline, ... */
	const char *gate;	/* the gate seam, NULL: none */
	const char *proxy;	/* how jh-install -M binds jh-proxy, NULL */
	const char *surface;	/* where receipts are shown, NULL: nowhere */
	const char *tested;	/* how this binding was tested */
	const char *limits[JH_PROFILE_LIMITS];	/* what it cannot see */
};

/* What one install bound, read from its JH_HOME (jh-install(1)). */
struct jh_bound {
	char hosts[512];	/* JH_HOME/hosts: " a b c " */
	char proxy_url[256];	/* JH_HOME/meter.conf url=, "" none */
	char proxy_hosts[512];	/* meter.conf hosts=: " a b " */
	char otlp_url[256];	/* JH_HOME/otlp.conf url=, "" none */
	char otlp_hosts[512];	/* otlp.conf hosts= */
	int transcript;		/* hook.conf meter=transcript */
};

const struct jh_profile *jh_profile_lookup(const char *host);
const struct jh_profile *jh_profile_at(size_t i);
/* Reads what the install under home bound; -1 with e on a bad record. */
int	jh_bound_read(struct jh_bound *b, const char *home, const char *conf,
	    struct jh_err *e);
/* One host's profile and binding as JSON (installed: its gate bound). */
json_t	*jh_profile_json(const struct jh_profile *p, const struct jh_bound *b);

#endif
