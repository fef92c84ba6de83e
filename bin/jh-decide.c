/*
 * jh-decide: decide ActionEvents against a signed grant, content
 * policies and the joule budget; write Decisions (jh-decide(1)).
 *
 * The ordered check itself is jh_decide() (lib/gate.c).  This program
 * reads the options and the events, makes a ledger (-I) and prints one
 * Decision a PreToolUse event, passing other events through.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
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
	const char *dir;		/* -d: where -x command lines start */
	int explain;			/* -x */
	int json;			/* -j */
	const char *trustfile;
	const char *revdir;
	const char *ledgerdir;
	const char *statedir;
	const char *home;
	int exit_deny;
	int init;
	const char *replay;		/* -r: jh-verify -L's output */
	unsigned wait_ms;
	int have_uid;			/* -u */
	uint32_t uid;
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
	    "                 [-t trust] [-u uid] [-w ms] [file ...]\n"
	    "       %s -I [-g grant] [-L ledgerdir] [-r replay] [-S statedir]\n"
	    "                 [-t trust]\n"
	    "       %s -x [-j] [-d dir] [-g grant] [-L ledgerdir] [-S statedir]\n"
	    "                 [-t trust] [command ...]\n"
	    "       %s -h\n", PROG, PROG, PROG, PROG);
	exit(status);
}

static void	print_json(json_t *);

/*
 * -u: the uid the gate's socket server read with SO_PEERCRED, decimal,
 * 0 to 4294967294; (uid_t)-1 is no uid.
 */
static void
parse_uid(struct opts *o, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9' || strlen(s) > 10 ||
	    (v = strtoull(s, &end, 10), errno != 0) || *end != '\0' ||
	    v > 4294967294ULL)
		errx(2, "-u %s: not a uid (a decimal number from 0 to "
		    "4294967294)", s);
	o->uid = (uint32_t)v;
	o->have_uid = 1;
}

static void
emit(const struct opts *o, json_t *ev, struct jh_decision *d, int *denied)
{
	json_t *out;

	d->have_uid = o->have_uid;
	d->uid = o->uid;
	if ((out = jh_decision_json(d, ev)) == NULL)
		errx(2, "out of memory");
	print_json(out);
	json_decref(out);
	if (strcmp(d->verdict, "deny") == 0)
		*denied = 1;
}

/* A line that is not an event is a malformed event's Decision. */
static void
emit_malformed(const struct opts *o, const char *why, int *denied)
{
	struct jh_decision d;
	json_t *ev = json_object();

	jh_decision_init(&d);
	jh_decision_fail(&d, JH_D_MALFORMED, "malformed event: %s", why);
	emit(o, ev, &d, denied);
	json_decref(ev);
	jh_decision_free(&d);
}

static void	explain(const struct opts *, const struct jh_gate *,
		    json_t *, const struct jh_decision *);

static void
run_line(const struct opts *o, const struct jh_gate *g, const char *line,
    size_t len, int *denied)
{
	struct jh_decision d;
	struct jh_err e;
	json_t *ev, *evn;
	const char *en;

	if ((ev = jh_json_parse(line, len, &e)) == NULL ||
	    !json_is_object(ev)) {
		emit_malformed(o, ev ? "not an object" : e.msg, denied);
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
	if (o->explain) {
		explain(o, g, ev, &d);
		if (strcmp(d.verdict, "deny") == 0)
			*denied = 1;
	} else
		emit(o, ev, &d, denied);
	json_decref(ev);
	jh_decision_free(&d);
}

static void
print_json(json_t *o)
{
	char *txt;

	if ((txt = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII)) == NULL)
		errx(2, "out of memory");
	puts(txt);
	free(txt);
}

/* One effect, in the words jh-decide(1) uses, and what granted it. */
static void
explain_effect(const json_t *e, const struct jh_grant *gr)
{
	const char *p = json_string_value(json_object_get(e, "path"));
	const char *pg = json_string_value(json_object_get(e, "program"));
	const char *why = json_string_value(json_object_get(e, "why"));
	const char *host = json_string_value(json_object_get(e, "host"));
	const char *rule = json_string_value(json_object_get(e, "rule"));
	const struct jh_cbor *id;
	char what[PATH_MAX + 64];
	int i;

	snprintf(what, sizeof(what), "%s%s%s%s%s%s%s%s",
	    json_string_value(json_object_get(e, "effect")),
	    p || host ? " " : "", p ? p : host ? host : "",
	    json_object_get(e, "tree") ? "/**" : "",
	    pg ? " (" : "", pg ? pg : "", pg ? ")" : "",
	    json_object_get(e, "executed") ? " executed" : "");
	if (rule != NULL && sscanf(rule, "caps[%d]", &i) == 1 && i >= 0 &&
	    gr->caps != NULL && (size_t)i < gr->caps->len &&
	    (id = jh_cbor_get(&gr->caps->v[i], "id")) != NULL &&
	    id->type == JH_CBOR_TEXT)
		printf("       %-50s %s %.*s\n", what, rule, (int)id->len,
		    (const char *)id->p);
	else
		printf("       %-50s %s\n", what, rule ? rule : "not granted");
	if (why != NULL)
		printf("         %s\n", why);
}

/*
 * -x: what the gate would decide, and why, effect by effect; the same
 * jh_decide() as the hook, with nothing pinned, debited or held.
 */
static void
explain_text(const json_t *ev, const struct jh_decision *d,
    const struct jh_sh_script *sh, const struct jh_grant *gr)
{
	const json_t *ef = d->effects, *e, *in = json_object_get(ev, "input");
	const char *cmd = json_string_value(json_object_get(in, "command"));
	char *txt = cmd ? NULL : json_dumps(in, JSON_COMPACT);
	size_t i, k, j;

	printf("%s %s\n", json_string_value(json_object_get(ev, "tool")),
	    cmd ? cmd : txt ? txt : "");
	free(txt);
	printf("  cwd %s\n", json_string_value(json_object_get(ev, "cwd")));
	for (i = 0; sh != NULL && i < sh->n; i++) {
		printf("  %zu.", i + 1);
		for (k = 0; k < sh->cmd[i].nassign; k++)
			printf(" %s", sh->cmd[i].assign[k].s);
		for (k = 0; k < sh->cmd[i].argc; k++)
			printf(" %s", sh->cmd[i].argv[k].s);
		putchar('\n');
		json_array_foreach(ef, j, e)
			if ((size_t)json_integer_value(json_object_get(e,
			    "cmd")) == i)
				explain_effect(e, gr);
	}
	if (sh == NULL)
		json_array_foreach(ef, j, e)
			explain_effect(e, gr);
	printf("  verdict %s (%s%s%s): %s\n", d->verdict, jh_dcode_name(d->code),
	    d->rule[0] ? ", " : "", d->rule, d->reason);
}

static void
explain(const struct opts *o, const struct jh_gate *g, json_t *ev,
    const struct jh_decision *d)
{
	struct jh_sh_script sh;
	struct jh_sh_opts so;
	struct jh_err e;
	json_t *out, *cmds, *w;
	const char *cmd;
	size_t i, k;
	int have = 0;

	cmd = json_string_value(json_object_get(json_object_get(ev, "input"),
	    "command"));
	memset(&so, 0, sizeof(so));
	so.home = getenv("HOME");
	if (cmd != NULL && jh_sh_parse_with(&sh, cmd, strlen(cmd), &so,
	    &e) == 0)
		have = 1;
	if (!o->json)
		explain_text(ev, d, have ? &sh : NULL, &g->cache->g);
	else {
		if ((out = jh_decision_json(d, ev)) == NULL ||
		    (cmds = json_array()) == NULL)
			errx(2, "out of memory");
		for (i = 0; have && i < sh.n; i++) {
			w = json_array();
			for (k = 0; k < sh.cmd[i].nassign; k++)
				json_array_append_new(w,
				    json_string(sh.cmd[i].assign[k].s));
			for (k = 0; k < sh.cmd[i].argc; k++)
				json_array_append_new(w,
				    json_string(sh.cmd[i].argv[k].s));
			json_array_append_new(cmds, w);
		}
		json_object_set_new(out, "commands", cmds);
		print_json(out);
		json_decref(out);
	}
	if (have)
		jh_sh_free(&sh);
}

/* -x with command lines: each one a Bash call in the directory. */
static int
explain_commands(const struct opts *o, const struct jh_gate *g, int argc,
    char *argv[], int *denied)
{
	char cwd[PATH_MAX], id[32];
	struct jh_decision d;
	json_t *ev;
	int i;

	if (o->dir != NULL) {
		if (realpath(o->dir, cwd) == NULL)
			err(2, "%s", o->dir);
	} else if (getcwd(cwd, sizeof(cwd)) == NULL)
		err(2, "getcwd");
	for (i = 0; i < argc; i++) {
		snprintf(id, sizeof(id), "explain-%d", i + 1);
		ev = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:{s:s}}",
		    "session_id", "explain", "tool_use_id", id, "host",
		    "claude-code", "event", "PreToolUse", "tool", "Bash",
		    "class", "shell", "cwd", cwd, "input", "command", argv[i]);
		if (ev == NULL)
			errx(2, "out of memory");
		jh_decision_init(&d);
		jh_decide(&d, g, ev, jh_now_ms());
		explain(o, g, ev, &d);
		if (strcmp(d.verdict, "deny") == 0)
			*denied = 1;
		jh_decision_free(&d);
		json_decref(ev);
	}
	return (0);
}

struct lines {
	const struct opts *o;
	const struct jh_gate *g;
	int *denied;
};

/* One input line; a line that cannot be read is a malformed event. */
static int
one_line(void *arg, const char *line, size_t len, const char *why)
{
	struct lines *lc = arg;

	if (line == NULL)
		emit_malformed(lc->o, why, lc->denied);
	else
		run_line(lc->o, lc->g, line, len, lc->denied);
	return (0);
}

/*
 * -r: what jh-verify -L rebuilt for the ledger named, from the receipts
 * alone (its "rebuilt_uj"), read from its JSON lines.  Returns 0 and the
 * figure, or exits: a replay that does not name this ledger restores
 * nothing.
 */
static uint64_t
replay_spent(const char *path, const char *ledger)
{
	struct jh_err e;
	json_t *o, *l;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t v = 0;
	int found = 0;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "r")) == NULL)
		err(2, "%s", path);
	while (!found && (n = getline(&line, &cap, f)) != -1) {
		if ((o = jh_json_parse(line, (size_t)n, &e)) == NULL)
			continue;
		l = json_object_get(o, "ledger");
		if (json_is_string(json_object_get(l, "grant")) &&
		    strcmp(json_string_value(json_object_get(l, "grant")),
		    ledger) == 0 && jh_json_uint(&v, json_object_get(l,
		    "rebuilt_uj")) == 0)
			found = 1;
		json_decref(o);
	}
	if (ferror(f))
		err(2, "%s", path);
	free(line);
	if (f != stdin)
		fclose(f);
	if (!found)
		errx(1, "%s: no rebuilt figure for ledger %s (the output of "
		    "jh-verify -L over the grant's logs)", path, ledger);
	return (v);
}

static int
init_ledger(struct opts *o)
{
	struct jh_grant g;
	struct jh_err e;
	uint64_t spent = 0, raised;
	char b[64];
	int r, existed;

	if (o->grantfile == NULL)
		errx(2, "-I needs -g grant");
	if ((r = jh_grant_load(&g, o->grantfile, &o->trust, &e)) != 0)
		errx(1, "%s", e.msg);
	if (o->replay != NULL)
		spent = replay_spent(o->replay, g.ledgertext);
	if (jh_ledger_init(o->ledgerdir, g.ledger, g.budget, spent, &existed,
	    &raised, &e) == -1)
		errx(2, "%s", e.msg);
	if (!existed && spent > 0)
		snprintf(b, sizeof(b), "restored, %llu uJ spent",
		    (unsigned long long)spent);
	else if (raised > 0)
		snprintf(b, sizeof(b), "exists, raised by %llu uJ",
		    (unsigned long long)raised);
	else
		snprintf(b, sizeof(b), "%s", existed ? "exists (left as it "
		    "is)" : "created");
	if (memcmp(g.ledger, g.id, JH_HASH_LEN) != 0)
		fprintf(stderr, "%s: ledger %s, which grant %s spends, %s\n",
		    PROG, g.ledgertext, g.idtext, b);
	else
		fprintf(stderr, "%s: ledger for grant %s %s\n", PROG,
		    g.idtext, b);
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
	while ((ch = getopt(argc, argv, "d:eg:hIjL:P:r:R:S:t:u:w:x")) != -1) {
		switch (ch) {
		case 'd':
			o.dir = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'x':
			o.explain = 1;
			break;
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
		case 'r':
			o.replay = optarg;
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
		case 'u':
			parse_uid(&o, optarg);
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
	/* -u: who asked for the Decisions to seal; -I and -x write none. */
	if (o.have_uid && (o.init || o.explain))
		usage(stderr, 2);
	if (o.replay != NULL && !o.init)
		usage(stderr, 2);
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
	g.dryrun = o.explain;
	lc.o = &o;
	lc.g = &g;
	lc.denied = &denied;
	if ((o.json || o.dir != NULL) && !o.explain)
		usage(stderr, 2);
	if (o.explain && argc > 0 && strcmp(argv[0], "-") != 0)
		explain_commands(&o, &g, argc, argv, &denied);
	else if (jh_each_line(argc, argv, one_line, &lc) == -1)
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
