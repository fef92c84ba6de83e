/*
 * jh-status: the receipt surface (jh-status(1)).  By default, one status
 * line for Claude Code's statusLine, from a session's head record and its
 * grant's ledger, never from a pass over the log; -s, a JSON summary of
 * verified logs; -m, an MCP server on stdio exposing a project's receipts
 * as resources and a verify tool.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "chain.h"
#include "checkpoint.h"
#include "keys.h"
#include "mcp.h"
#include "profile.h"
#include "status.h"
#include "util.h"
#include "verify.h"

#define PROG		"jh-status"
#define LINE_INPUT_MAX	(1024 * 1024)	/* a status-line payload */

struct opts {
	int mode;		/* 0: status line, 's', 'm', 'P' */
	int plain;
	int all, json;		/* -P: every known host; JSON */
	const char *conf;	/* -c */
	struct jh_stctx c;
	char root[PATH_MAX];
	char homebuf[PATH_MAX], statebuf[PATH_MAX];	/* the config's */
	struct jh_where w;
	char sink[PATH_MAX];	/* the config's checkpoint sink, or "" */
	char keys_bad[200];	/* why the stewards file did not load */
	struct jh_keyset keys;	/* stewards and trust */
	struct jh_verifier v;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-p] [-c config] [-g grant] [-L ledgerdir] [-S statedir]\n"
	    "       %s -s [-c config] [-r root] [-S statedir] [log ...]\n"
	    "       %s -m [-c config] [-g grant] [-L ledgerdir] [-r root] "
	    "[-S statedir]\n"
	    "       %s -P [-aj] [-c config]\n"
	    "       %s -h\n", PROG, PROG, PROG, PROG, PROG);
	exit(status);
}

/*
 * The status line: spend, verdict counts, chain state and the meter's
 * state, from the head record and the ledger.  Display only: whatever
 * goes wrong is said on the line, and the status is 0.
 */
static void
line_of(struct jh_buf *b, const struct opts *o, const struct jh_sthead *sh,
    const struct jh_stbudget *sb)
{
	const struct jh_head *h = &sh->head;
	const char *sep = o->plain ? " | " : " \xc2\xb7 ";
	char fig[32];

	jh_buf_adds(b, o->plain ? "jh:" : "jh \xe2\x9a\xa1");
	if (sh->state == JH_ST_UNCHECKED) {
		jh_buf_adds(b, " ");
		if (sb->have_ledger) {
			jh_st_energy(fig, sizeof(fig), sb->budget, o->plain);
			jh_buf_addf(b, "budget %s%s", fig, sep);
		}
		jh_buf_addf(b, "chain unchecked: %s", sh->why);
		return;
	}
	/*
	 * Spec 7: without a meter, only the tools' estimates, so labelled,
	 * never as the session's energy.  With one, the model's energy by
	 * grade, never summed across grades: a reading is "measured", an
	 * estimate "est" (ModelBased: "modelled").
	 */
	if (h->n_eff == 0) {
		jh_st_energy(fig, sizeof(fig), h->tools_uj, o->plain);
		jh_buf_addf(b, " %s tools (est)", fig);
	} else {
		static const char *const grade[] = { "measured", "modelled",
		    "est" };
		uint64_t v[3];
		int i, any = 0;

		v[0] = h->measured_uj;
		v[1] = h->modelled_uj;
		v[2] = h->estimated_uj;
		jh_buf_adds(b, " model");
		for (i = 0; i < 3; i++) {
			if (v[i] == 0 && (any || i < 2 || h->n_measured ==
			    h->n_eff))
				continue;
			jh_st_energy(fig, sizeof(fig), v[i], o->plain);
			jh_buf_addf(b, "%s %s (%s)", any ? " +" : "", fig,
			    grade[i]);
			any = 1;
		}
		if (!any) {
			jh_st_energy(fig, sizeof(fig), 0, o->plain);
			jh_buf_addf(b, " %s (measured)", fig);
		}
	}
	if (sb->have_ledger) {
		jh_st_energy(fig, sizeof(fig), sb->budget, o->plain);
		jh_buf_addf(b, " of %s", fig);
	} else
		jh_buf_addf(b, " (%s)", sb->why);
	jh_buf_addf(b, "%s%llu allow %llu deny", sep,
	    (unsigned long long)h->n_allow, (unsigned long long)h->n_deny);
	if (h->n_ask)
		jh_buf_addf(b, " %llu ask", (unsigned long long)h->n_ask);
	if (h->n_rewrite)
		jh_buf_addf(b, " %llu rewrite",
		    (unsigned long long)h->n_rewrite);
	jh_buf_addf(b, "%schain %llu %s%s", sep,
	    (unsigned long long)h->count, jh_st_state_word(sh->state), sep);
	/* which part was not: the model calls whose ceiling only observed */
	if (h->n_enforced > 0 && h->n_enforced < h->n_eff)
		jh_buf_addf(b, "enforced %llu of %llu calls",
		    (unsigned long long)h->n_enforced,
		    (unsigned long long)h->n_eff);
	else
		jh_buf_adds(b, jh_st_meter(h->n_eff, h->n_enforced));
}

static int
status_line(struct opts *o)
{
	struct jh_buf in, out;
	struct jh_err e;
	struct jh_sthead sh;
	struct jh_stbudget sb;
	json_error_t je;
	json_t *j = NULL, *sid;
	const char *s, *hint;
	char digest[2 * JH_HASH_LEN + 1], path[PATH_MAX + 80], fig[32];
	int fd, hfd, r;

	jh_buf_init(&in);
	jh_buf_init(&out);
	jh_buf_adds(&out, o->plain ? "jh: " : "jh \xe2\x9a\xa1 ");
	if (jh_read_all(&in, STDIN_FILENO, LINE_INPUT_MAX, &e) == -1) {
		jh_buf_addf(&out, "status unavailable: %s", e.msg);
		goto print;
	}
	if ((j = json_loadb((const char *)in.p, in.len, 0, &je)) == NULL ||
	    !json_is_object(j)) {
		jh_buf_adds(&out, "status unavailable: the input is not a "
		    "JSON object");
		goto print;
	}
	sid = json_object_get(j, "session_id");
	if (!json_is_string(sid) || (s = json_string_value(sid))[0] == '\0' ||
	    json_string_length(sid) > JH_SESSION_MAX) {
		jh_buf_adds(&out, "status unavailable: no session_id");
		goto print;
	}
	jh_st_digest(digest, (const uint8_t *)s, json_string_length(sid));
	/* Before its first event a session has no pinned root: the host's. */
	if ((hint = json_string_value(json_object_get(json_object_get(j,
	    "workspace"), "project_dir"))) == NULL)
		hint = json_string_value(json_object_get(j, "cwd"));
	jh_st_budget(&sb, o->c.home, o->c.statedir, o->c.ledgerdir,
	    o->c.grantfile, digest, hint);
	r = jh_st_open_log(&o->c, digest, &fd, &hfd, path, sizeof(path), &e);
	if (r == 0)
		jh_st_head(&sh, fd, hfd, digest, &o->keys);
	if (r == 0 && o->keys_bad[0] != '\0' && sh.state != JH_ST_EMPTY &&
	    sh.state != JH_ST_UNCHECKED) {
		sh.state = JH_ST_UNCHECKED;
		snprintf(sh.why, sizeof(sh.why), "the stewards file does not "
		    "load (%.100s)", o->keys_bad);
	}
	if (r == -2)
		jh_buf_addf(&out, "status unavailable: %s", e.msg);
	else if (r == -1 || sh.state == JH_ST_EMPTY) {
		jh_buf_adds(&out, "no receipts yet in this session");
		if (sb.have_ledger) {
			jh_st_energy(fig, sizeof(fig), sb.budget, o->plain);
			jh_buf_addf(&out, "%sbudget %s", o->plain ? " | " :
			    " \xc2\xb7 ", fig);
		}
	} else {
		jh_buf_reset(&out);
		line_of(&out, o, &sh, &sb);
	}
	if (r == 0) {
		jh_st_head_free(&sh);
		jh_st_close_log(fd, hfd);
	}
print:
	jh_buf_addc(&out, '\n');
	if (!out.oom)
		(void)fwrite(out.p, 1, out.len, stdout);
	json_decref(j);
	jh_buf_free(&in);
	jh_buf_free(&out);
	return (0);
}

static int
summary_mode(struct opts *o, int argc, char **argv)
{
	struct jh_sum s;
	struct jh_cps cps;
	struct jh_buf out;
	struct jh_err e;
	int i, bad = 0, refused = 0;

	memset(&cps, 0, sizeof(cps));

	if (o->keys.n == 0)
		errx(2, "no trusted keys: list them in JH_HOME/stewards and "
		    "JH_HOME/trust");
	jh_sum_init(&s, &o->v);
	jh_buf_init(&out);
	/*
	 * The config's sink: each log is checked against its session's
	 * latest checkpoint there, as jh-verify -c does.  A sink not yet
	 * written (no Stop yet) holds none.
	 */
	switch (jh_st_load_sink(&cps, o->sink, &o->v, &e)) {
	case 1:
		warnx("checkpoint sink: %s", e.msg);
		refused = 1;	/* it does not verify */
		break;
	case 2:
		warnx("checkpoint sink: %s", e.msg);
		bad = 1;
		break;
	default:
		s.cps = &cps;
	}
	if (argc == 0 && jh_st_summarize_project(&o->c, &s, NULL, &e) == -1) {
		warnx("%s", e.msg);
		bad = 1;
	}
	for (i = 0; i < argc; i++)
		if (jh_st_summarize(&s, argv[i], &e) == -1) {
			warnx("%s", e.msg);
			bad = 1;
		}
	if (jh_sum_json(&out, &s) == -1)
		errx(2, "out of memory");
	jh_buf_addc(&out, '\n');
	(void)fwrite(out.p, 1, out.len, stdout);
	if (jh_fshut(stdout, "stdout") != 0)
		exit(2);
	i = bad ? 2 : refused || s.nok != s.nlogs ? 1 : 0;
	jh_sum_free(&s);
	jh_cps_free(&cps);
	jh_buf_free(&out);
	return (i);
}

/* One host's profile for people, from the same JSON -j prints. */
static void
profile_text(struct jh_buf *b, const json_t *o)
{
	const json_t *g = json_object_get(o, "gate");
	const json_t *m = json_object_get(o, "meter");
	const json_t *r = json_object_get(o, "receipts");
	const json_t *v;
	const char *host = json_string_value(json_object_get(o, "host"));
	const char *seam = json_string_value(json_object_get(g, "seam"));
	const char *by = json_string_value(json_object_get(m, "by"));
	const char *url = json_string_value(json_object_get(m, "url"));
	const char *sf = json_string_value(json_object_get(r, "surface"));
	size_t i;

	jh_buf_addf(b, "%s: %s, profile %s (%s)\n", host,
	    json_string_value(json_object_get(o, "name")),
	    json_string_value(json_object_get(o, "profile")),
	    json_string_value(json_object_get(o, "conformance")));
	if (seam == NULL)
		jh_buf_adds(b, "  gate:       none: the host offers no seam\n");
	else if (json_is_true(json_object_get(g, "bound")))
		jh_buf_addf(b, "  gate:       bound: %s\n", seam);
	else
		jh_buf_addf(b, "  gate:       not bound (jh-install -H %s): "
		    "%s\n", host, seam);
	if (by == NULL)
		jh_buf_adds(b, "  meter:      not bound\n");
	else if (url != NULL)
		jh_buf_addf(b, "  meter:      %s at %s; the ceiling is %s\n",
		    by, url, json_string_value(json_object_get(m, "ceiling")));
	else
		jh_buf_addf(b, "  meter:      %s; the ceiling is %s\n", by,
		    json_string_value(json_object_get(m, "ceiling")));
	jh_buf_addf(b, "  receipts:   %s%s%s\n",
	    json_is_true(json_object_get(r, "sealed")) ?
	    "sealed and chained" : "none yet (nothing bound)",
	    sf != NULL ? "; shown in: " : "; shown nowhere in the host",
	    sf != NULL ? sf : "");
	jh_buf_adds(b, "  verdicts:  ");
	json_array_foreach(json_object_get(o, "verdicts"), i, v)
		jh_buf_addf(b, " %s", json_string_value(v));
	if (json_array_size(json_object_get(o, "verdicts")) == 0)
		jh_buf_adds(b, " none (no gate)");
	jh_buf_addf(b, "\n  tested:     %s\n",
	    json_string_value(json_object_get(o, "tested")));
	jh_buf_adds(b, "  cannot see:\n");
	json_array_foreach(json_object_get(o, "cannot_see"), i, v)
		jh_buf_addf(b, "   - %s\n", json_string_value(v));
}

/*
 * -P: for every host the install bound (with -a every host joulehook
 * knows), its profile, the seams bound, whether the ceiling is enforced
 * or observed, and what the adapter cannot see (jh-status(1), Profiles).
 */
static int
profile_mode(struct opts *o)
{
	const struct jh_profile *p;
	struct jh_bound bd;
	struct jh_buf out;
	struct jh_err e;
	json_t *arr, *x;
	char *s;
	size_t i, n = 0;

	if (jh_bound_read(&bd, o->c.home, o->conf, &e) == -1)
		errx(2, "%s", e.msg);
	jh_buf_init(&out);
	if ((arr = json_array()) == NULL)
		errx(2, "out of memory");
	for (i = 0; (p = jh_profile_at(i)) != NULL; i++) {
		if ((x = jh_profile_json(p, &bd)) == NULL)
			errx(2, "out of memory");
		if (!o->all && !json_is_true(json_object_get(x, "installed"))) {
			json_decref(x);
			continue;
		}
		if (!o->json) {
			if (n > 0)
				jh_buf_addc(&out, '\n');
			profile_text(&out, x);
		}
		json_array_append_new(arr, x);
		n++;
	}
	if (o->json) {
		if ((s = json_dumps(arr, JSON_COMPACT)) == NULL)
			errx(2, "out of memory");
		jh_buf_adds(&out, s);
		jh_buf_addc(&out, '\n');
		free(s);
	}
	json_decref(arr);
	(void)fwrite(out.p, 1, out.len, stdout);
	if (jh_fshut(stdout, "stdout") != 0)
		exit(2);
	jh_buf_free(&out);
	if (n == 0 && !o->json)
		warnx("no host is bound in %s (jh-install -H HOST binds one; "
		    "-a lists them all)", o->c.home);
	return (0);
}

/*
 * The installer's config (the hook driver's, jh-hook(1), or in hardened
 * mode the root-owned status.conf): an absolute path to a regular file
 * of the user's or root's that nobody else can write, "key=value" lines; home and state are taken, other keys are the
 * driver's.  With it, no environment variable names the state.
 */
static void
read_conf(struct opts *o, const char *path)
{
	struct stat st;
	char line[PATH_MAX + 64], *v;
	FILE *f;
	int fd, lineno = 0;

	if (path[0] != '/')
		errx(2, "config path %s is not absolute", path);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		err(2, "%s", path);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022))
		errx(2, "%s: not a regular file of the user's or root's that "
		    "only its owner can write", path);
	if ((f = fdopen(fd, "r")) == NULL)
		err(2, "%s", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f))
			errx(2, "%s:%d: line too long", path, lineno);
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((v = strchr(line, '=')) == NULL)
			errx(2, "%s:%d: bad line", path, lineno);
		*v++ = '\0';
		if (strcmp(line, "sink") == 0 && v[0] == '/' &&
		    strlen(v) < sizeof(o->sink)) {
			strcpy(o->sink, v);
			continue;
		}
		if (strcmp(line, "home") != 0 && strcmp(line, "state") != 0)
			continue;
		if (v[0] != '/' || strlen(v) >= PATH_MAX)
			errx(2, "%s:%d: %s is not an absolute path", path,
			    lineno, line);
		strcpy(strcmp(line, "home") == 0 ? o->homebuf : o->statebuf,
		    v);
	}
	if (ferror(f))
		err(2, "%s", path);
	fclose(f);
	if (o->homebuf[0] == '\0' || o->statebuf[0] == '\0')
		errx(2, "%s: needs home and state", path);
}

/* A key list, when it is there. */
static void
load_keys(struct opts *o, const char *path, int role)
{
	struct jh_err e;

	if (path != NULL && access(path, F_OK) == 0 &&
	    jh_keyset_load(&o->keys, path, role, &e) == -1) {
		warnx("%s", e.msg);
		/* the status line then checks no signature: it says so */
		if (role == JH_ROLE_STEWARD)
			snprintf(o->keys_bad, sizeof(o->keys_bad), "%.80s: "
			    "%.100s", path, e.msg);
	}
}

/*
 * The options, each mode's checked against the others; the operands
 * (logs, for -s) are left from argv[optind].  root gets -r.
 */
static void
parse_opts(struct opts *o, int argc, char *argv[], const char **root)
{
	int ch, i;

	/* --mcp, the long name some MCP clients expect: the same as -m. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--mcp") == 0)
			argv[i] = (char *)"-m";
	while ((ch = getopt(argc, argv, "ac:g:hjL:mPpr:S:s")) != -1) {
		switch (ch) {
		case 'a':
			o->all = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'c':
			o->conf = optarg;
			break;
		case 'g':
			o->c.grantfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'L':
			o->c.ledgerdir = optarg;
			break;
		case 'm':
		case 'P':
		case 's':
			if (o->mode != 0 && o->mode != ch)
				usage(stderr, 2);
			o->mode = ch;
			break;
		case 'p':
			o->plain = 1;
			break;
		case 'r':
			*root = optarg;
			break;
		case 'S':
			o->c.statedir = optarg;
			break;
		default:
			usage(stderr, 2);
		}
	}
	if ((argc > optind && o->mode != 's') || (o->plain && o->mode != 0) ||
	    ((o->all || o->json) && o->mode != 'P') || (o->mode == 'P' &&
	    (*root != NULL || o->c.grantfile != NULL ||
	    o->c.ledgerdir != NULL || o->c.statedir != NULL)) ||
	    (*root != NULL && o->mode == 0) || (o->mode == 's' &&
	    (o->c.grantfile != NULL || o->c.ledgerdir != NULL)))
		usage(stderr, 2);
}

/*
 * Where the state is: the installer's config (-c), as the hook driver
 * reads it, with nothing of the caller's environment; else JH_HOME and
 * JH_STATE.  -S still names the state directory.
 */
static void
find_state(struct opts *o)
{
	if (o->conf != NULL) {
		read_conf(o, o->conf);
		if (clearenv() != 0)
			errx(2, "cannot clear the environment");
		o->w.home = o->homebuf;
		o->w.state = o->statebuf;
	}
	if (o->c.statedir != NULL)
		o->w.state = o->c.statedir;
	jh_where_fill(&o->w);
	if ((o->c.home = o->w.home) == NULL)
		errx(2, "no JH_HOME and no HOME");
	if ((o->c.statedir = o->w.state) == NULL)
		errx(2, "no JH_STATE and no HOME");
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct jh_err e;
	const char *root = NULL;
	char cwd[PATH_MAX];
	int rc;

	memset(&o, 0, sizeof(o));
	jh_keyset_init(&o.keys);
	signal(SIGPIPE, SIG_IGN);
	parse_opts(&o, argc, argv, &root);
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	find_state(&o);
	if (o.mode == 'P') {
		rc = profile_mode(&o);
		jh_keyset_free(&o.keys);
		return (rc);
	}
	load_keys(&o, o.w.stewards, JH_ROLE_STEWARD);
	if (o.mode != 0)
		load_keys(&o, o.w.trust, JH_ROLE_ISSUER);
	jh_verifier_init(&o.v, &o.keys);
	o.c.keys = &o.keys;
	o.c.v = &o.v;
	o.c.root = o.root;
	o.c.sink = o.sink[0] != '\0' ? o.sink : NULL;
	if (o.mode != 0) {
		if (root == NULL && (root = getcwd(cwd, sizeof(cwd))) == NULL)
			err(2, "getcwd");
		if (realpath(root, o.root) == NULL)
			err(2, "%s", root);
	}
	if (o.mode == 's')
		rc = summary_mode(&o, argc, argv);
	else if (o.mode == 'm') {
		if ((rc = jh_mcp_serve(&o.c, STDIN_FILENO, stdout, &e)) == -1)
			errx(2, "%s", e.msg);
	}
	else
		rc = status_line(&o);
	jh_keyset_free(&o.keys);
	return (rc);
}
