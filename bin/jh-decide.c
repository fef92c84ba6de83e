/*
 * jh-decide: decide ActionEvents against a signed grant, content
 * policies and the joule budget; write Decisions (DESIGN.md 2.2, 4).
 *
 * The ordered check itself is jh_decide() (lib/gate.c).  This program
 * reads the options and the events, makes a ledger (-I) and prints one
 * Decision a PreToolUse event, passing other events through.
 */
#include <err.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "gate.h"

#define PROG		"jh-decide"

struct opts {
	const char *grantfile;
	const char *trustfile;
	const char *revdir;
	const char *ledgerdir;
	const char *statedir;
	const char *home;
	int exit_deny;
	int init;
	unsigned wait_ms;
	struct jh_keyset trust;
	struct jh_protect protect;
	char homebuf[PATH_MAX], statebuf[PATH_MAX], ledgerbuf[PATH_MAX];
	char trustbuf[PATH_MAX], revbuf[PATH_MAX];
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-e] [-g grant] [-L ledgerdir] [-P dir] [-R revokeddir] "
	    "[-S statedir]\n"
	    "                 [-t trust] [-w ms] [file ...]\n"
	    "       %s -I [-g grant] [-L ledgerdir] [-S statedir] [-t trust]\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static void
emit(json_t *ev, const struct jh_decision *d, int *denied)
{
	json_t *out;
	char *txt;

	if ((out = jh_decision_json(d, ev)) == NULL ||
	    (txt = json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII)) == NULL)
		errx(2, "out of memory");
	puts(txt);
	free(txt);
	json_decref(out);
	if (strcmp(d->verdict, "deny") == 0)
		*denied = 1;
}

/* A line that is not an event is a malformed event's Decision. */
static void
emit_malformed(const char *why, int *denied)
{
	struct jh_decision d;
	json_t *ev = json_object();

	jh_decision_init(&d);
	jh_decision_fail(&d, JH_D_MALFORMED, "malformed event: %s", why);
	emit(ev, &d, denied);
	json_decref(ev);
	jh_decision_free(&d);
}

static void
run_line(const struct jh_gate *g, const char *line, size_t len,
    int *denied)
{
	struct jh_decision d;
	struct jh_err e;
	json_t *ev, *evn;
	const char *en;

	if ((ev = jh_json_parse(line, len, &e)) == NULL ||
	    !json_is_object(ev)) {
		emit_malformed(ev ? "not an object" : e.msg, denied);
		json_decref(ev);
		return;
	}
	evn = json_object_get(ev, "event");
	en = json_is_string(evn) ? json_string_value(evn) : NULL;
	if (en != NULL && strcmp(en, "PreToolUse") != 0 &&
	    json_object_get(ev, "malformed") == NULL) {
		/* Other events pass through untouched, never debited. */
		fwrite(line, 1, len, stdout);
		putchar('\n');
		json_decref(ev);
		return;
	}
	jh_decision_init(&d);
	jh_decide(&d, g, ev, jh_now_ms());
	emit(ev, &d, denied);
	json_decref(ev);
	jh_decision_free(&d);
}

struct lines {
	const struct jh_gate *g;
	int *denied;
};

/* One input line; a line that cannot be read is a malformed event. */
static int
one_line(void *arg, const char *line, size_t len, const char *why)
{
	struct lines *lc = arg;

	if (line == NULL)
		emit_malformed(why, lc->denied);
	else
		run_line(lc->g, line, len, lc->denied);
	return (0);
}

static int
init_ledger(struct opts *o)
{
	struct jh_grant g;
	struct jh_err e;
	int r, existed;

	if (o->grantfile == NULL)
		errx(2, "-I needs -g grant");
	if ((r = jh_grant_load(&g, o->grantfile, &o->trust, &e)) != 0)
		errx(1, "%s", e.msg);
	if (jh_ledger_init(o->ledgerdir, g.id, g.budget, &existed, &e) == -1)
		errx(2, "%s", e.msg);
	fprintf(stderr, "%s: ledger for grant %s %s\n", PROG, g.idtext,
	    existed ? "exists (left as it is)" : "created");
	jh_grant_free(&g);
	return (0);
}

/* The directories not given fall back to JH_HOME's and JH_STATE's. */
static void
defaults(struct opts *o)
{
	struct jh_err e;

	if ((o->home = jh_home(o->homebuf, sizeof(o->homebuf))) == NULL)
		errx(2, "no JH_HOME and no HOME");
	if (o->statedir == NULL && (o->statedir = jh_state(o->statebuf,
	    sizeof(o->statebuf))) == NULL)
		errx(2, "no JH_STATE and no HOME");
	if (o->ledgerdir == NULL) {
		snprintf(o->ledgerbuf, sizeof(o->ledgerbuf), "%s/ledger",
		    o->statedir);
		o->ledgerdir = o->ledgerbuf;
	}
	if (o->trustfile == NULL) {
		snprintf(o->trustbuf, sizeof(o->trustbuf), "%s/trust",
		    o->home);
		o->trustfile = o->trustbuf;
	}
	if (o->revdir == NULL) {
		snprintf(o->revbuf, sizeof(o->revbuf), "%s/revoked", o->home);
		o->revdir = o->revbuf;
	}
	/* A missing trust file trusts nobody: every grant is refused. */
	if (access(o->trustfile, F_OK) == 0 &&
	    jh_keyset_load(&o->trust, o->trustfile, JH_ROLE_ISSUER, &e) == -1)
		errx(2, "%s", e.msg);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct jh_err e;
	struct jh_gcache *gc;
	struct jh_gate g;
	struct lines lc;
	int ch, x, denied = 0, bad = 0;

	memset(&o, 0, sizeof(o));
	o.wait_ms = 2000;
	if ((gc = calloc(1, sizeof(*gc))) == NULL)
		err(2, NULL);
	jh_keyset_init(&o.trust);
	jh_protect_init(&o.protect);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "eg:hIL:P:R:S:t:w:")) != -1) {
		switch (ch) {
		case 'e':
			o.exit_deny = 1;
			break;
		case 'g':
			o.grantfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'I':
			o.init = 1;
			break;
		case 'L':
			o.ledgerdir = optarg;
			break;
		case 'P':
			if (jh_protect_add(&o.protect, optarg, &e) == -1)
				errx(2, "-P %s: %s", optarg, e.msg);
			break;
		case 'R':
			o.revdir = optarg;
			break;
		case 'S':
			o.statedir = optarg;
			break;
		case 't':
			o.trustfile = optarg;
			break;
		case 'w':
			if (jh_parse_ms(&o.wait_ms, optarg) == -1)
				usage(stderr, 2);
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	defaults(&o);
	if (o.init) {
		x = init_ledger(&o);
		free(gc);
		jh_protect_free(&o.protect);
		jh_keyset_free(&o.trust);
		return (x);
	}

	/* Never grantable: our own files, the install, the host's config. */
	jh_protect_builtin(&o.protect, o.home, o.statedir);
	memset(&g, 0, sizeof(g));
	g.home = o.home;
	g.statedir = o.statedir;
	g.ledgerdir = o.ledgerdir;
	g.revdir = o.revdir;
	g.grantfile = o.grantfile;
	g.trust = &o.trust;
	g.protect = &o.protect;
	g.wait_ms = o.wait_ms;
	if ((g.user_home = getenv("HOME")) != NULL && g.user_home[0] != '/')
		g.user_home = NULL;
	g.cache = gc;
	lc.g = &g;
	lc.denied = &denied;
	if (jh_each_line(argc, argv, one_line, &lc) == -1)
		bad = 1;
	jh_gcache_free(gc);
	free(gc);
	jh_protect_free(&o.protect);
	jh_keyset_free(&o.trust);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (2);
	}
	if (bad)
		return (2);
	return (o.exit_deny && denied ? 1 : 0);
}
