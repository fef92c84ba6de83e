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
#include "buf.h"
#include "cbor.h"
#include "decide.h"
#include "gate.h"
#include "hosts.h"
#include "json.h"
#include "ledger.h"
#include "shellparse.h"
#include "util.h"

#define PROG		"jh-decide"

struct opts {
	const char *grantfile;
	const char *dir;		/* -d: where -x command lines start */
	int explain;			/* -x */
	int json;			/* -j */
	struct jh_gate_paths paths;
	int exit_deny;
	int init;
	const char *replay;		/* -r: jh-verify -L's output */
	unsigned wait_ms;
	struct jh_asker who;		/* -u */
	struct jh_gate_ctx *gc;
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
	o->who.uid = (uint32_t)v;
	o->who.have_uid = 1;
}

static void	explain(const struct opts *, const struct jh_gate *,
		    json_t *, const struct jh_decision *);

/*
 * -x on one line: an event jh_decide would decide is explained, and 1
 * returned; 0 for a line jh_decide_line answers as it always does (one
 * that is not an event, an event of another kind).
 */
static int
explain_line(const struct opts *o, const struct jh_gate *g, const char *line,
    size_t len, int *denied)
{
	struct jh_decision d;
	struct jh_err e;
	json_t *ev, *evn;
	const char *en;

	if ((ev = jh_json_parse(line, len, &e)) == NULL)
		return (0);
	evn = json_object_get(ev, "event");
	en = json_is_string(evn) ? json_string_value(evn) : NULL;
	if (!json_is_object(ev) || (en != NULL && strcmp(en,
	    JH_GATE_EVENT) != 0 && json_object_get(ev, "malformed") == NULL)) {
		json_decref(ev);
		return (0);
	}
	jh_decision_init(&d);
	jh_decide(&d, g, ev, jh_now_ms());
	explain(o, g, ev, &d);
	if (strcmp(d.verdict, "deny") == 0)
		*denied = 1;
	json_decref(ev);
	jh_decision_free(&d);
	return (1);
}

/* One line: its Decision (jh_decide_line), or with -x its explanation. */
static void
run_line(const struct opts *o, const struct jh_gate *g, const char *line,
    size_t len, const char *why, int *denied)
{
	struct jh_buf out;
	int x;

	if (o->explain && line != NULL && explain_line(o, g, line, len,
	    denied))
		return;
	jh_buf_init(&out);
	if ((x = jh_decide_line(&out, g, &o->who, line, len, why)) == -1)
		errx(2, "out of memory");
	if (x == 1)
		*denied = 1;
	if (fwrite(out.p, 1, out.len, stdout) != out.len)
		err(2, "stdout");
	jh_buf_free(&out);
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

	run_line(lc->o, lc->g, line, len, why, lc->denied);
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
	json_t *o, *l, *r;
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
		r = json_object_get(l, "rebuilt_uj");
		/* microjoules, not a token count: any amount a ledger holds */
		if (json_is_string(json_object_get(l, "grant")) &&
		    strcmp(json_string_value(json_object_get(l, "grant")),
		    ledger) == 0 && json_is_integer(r) &&
		    json_integer_value(r) >= 0) {
			v = (uint64_t)json_integer_value(r);
			found = 1;
		}
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

	if (o->paths.grantfile == NULL)
		errx(2, "-I needs -g grant");
	/* A grant that cannot be read is 2; one that does not verify, 1. */
	if ((r = jh_grant_load(&g, o->paths.grantfile, &o->gc->trust, &e)) != 0)
		errx(r == JH_D_NOGRANT ? 2 : 1, "%s", e.msg);
	if (o->replay != NULL)
		spent = replay_spent(o->replay, g.ledgertext);
	if (jh_ledger_init(o->gc->g.ledgerdir, g.ledger, g.budget, spent, &existed,
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

/* The options, into o and the gate's protected paths (-P). */
static void
parse_opts(struct opts *o, int argc, char *argv[])
{
	struct jh_err e;
	int ch;

	while ((ch = getopt(argc, argv, "d:eg:hIjL:P:r:R:S:t:u:w:x")) != -1) {
		switch (ch) {
		case 'd':
			o->dir = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'x':
			o->explain = 1;
			break;
		case 'e':
			o->exit_deny = 1;
			break;
		case 'g':
			o->paths.grantfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'I':
			o->init = 1;
			break;
		case 'L':
			o->paths.ledgerdir = optarg;
			break;
		case 'P':
			if (jh_protect_add(&o->gc->protect, optarg, &e) == -1)
				errx(2, "-P %s: %s", optarg, e.msg);
			break;
		case 'r':
			o->replay = optarg;
			break;
		case 'R':
			o->paths.revdir = optarg;
			break;
		case 'S':
			o->paths.statedir = optarg;
			break;
		case 't':
			o->paths.trustfile = optarg;
			break;
		case 'u':
			parse_uid(o, optarg);
			break;
		case 'w':
			if (jh_parse_ms(&o->wait_ms, optarg) == -1)
				usage(stderr, 2);
			break;
		default:
			usage(stderr, 2);
		}
	}
	/* -u: who asked for the Decisions to seal; -I and -x write none. */
	if (o->who.have_uid && (o->init || o->explain))
		usage(stderr, 2);
	if (o->replay != NULL && !o->init)
		usage(stderr, 2);
	if ((o->json || o->dir != NULL) && !o->explain)
		usage(stderr, 2);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct jh_err e;
	struct jh_gate_ctx *gc;
	struct jh_gate *g;
	struct lines lc;
	int x, denied = 0, bad = 0;

	memset(&o, 0, sizeof(o));
	o.wait_ms = 2000;
	if ((gc = malloc(sizeof(*gc))) == NULL)
		err(2, NULL);
	jh_gate_ctx_init(gc);
	o.gc = gc;
	g = &gc->g;
	signal(SIGPIPE, SIG_IGN);
	parse_opts(&o, argc, argv);
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (jh_gate_open(gc, &o.paths, &e) == -1)
		errx(2, "%s", e.msg);
	g->wait_ms = o.wait_ms;
	g->dryrun = o.explain;
	if (o.init)
		x = init_ledger(&o);
	else {
		lc.o = &o;
		lc.g = g;
		lc.denied = &denied;
		if (o.explain && argc > 0 && strcmp(argv[0], "-") != 0)
			explain_commands(&o, g, argc, argv, &denied);
		else
			bad = jh_each_line(argc, argv, one_line, &lc);
		x = jh_fshut(stdout, "stdout") != 0 || bad == 2 ? 2 :
		    o.exit_deny && denied ? 1 : 0;
	}
	jh_gate_close(gc);
	free(gc);
	return (x);
}
