/*
 * jh-normalize: a host's hook payloads to ActionEvents, the first stage
 * of the gate; with -r, the last: a chained decision receipt bound to the
 * call to the host's own answer and exit status; with -r -E and a
 * post-tool event, a chained result/1 to the host's answer after a tool
 * ran (nothing, or stop the run and maybe withhold the output).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"

#define PROG "jh-normalize"
#define REASON_PREFIX "joulehook: "

struct opts {
	const struct jh_host *host;
	int reply;
	int native;
	int replace;		/* -A: the grant replaces the prompt */
	int help;
	int dset;		/* -d given */
	uint64_t deadline_ms;
	const char *stewards;
	const char *session;
	const char *call;
	const char *digest;
	const char *event;	/* -E: the event answered, if not the gate's */
	char bad[160];		/* the first usage error, if any */
};

/* What the reply stage concluded. */
struct answer {
	int verdict;		/* JH_ANSWER_* */
	char *reason;		/* without the prefix */
	char *updated;		/* compact JSON (rewrite) */
	int post;		/* JH_POST_*, for a post-tool event */
	char *path;		/* the Read result to withhold */
	char *hint;		/* jh-grant add's arguments that would grant it */
	char *tool;		/* the decided call's tool */
	int decided;		/* the reason is a decision's, not a failure */
	int unprovable;		/* its code is unprovable-command */
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s -H host [-n] [file ...]\n"
	    "       %s -H host -r [-A] [-d ms] [-s stewards] -i session "
	    "-u tool_use_id\n"
	    "                    -D input_digest [-E event]\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static void
usage_err(struct opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->bad[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(o->bad, sizeof(o->bad), fmt, ap);
	va_end(ap);
}

/*
 * Normalizes one input: each JSON value becomes one ActionEvent line.
 * Returns 0, 1 when some payload could not be read as JSON (named on the
 * standard error, nothing written for it), -1 on a write error.
 */
static int
normalize_file(const struct opts *o, const char *path)
{
	struct jh_reader r;
	struct jh_err e;
	json_error_t je;
	json_t *j, *ev;
	const char *val;
	char *line;
	size_t len;
	unsigned long idx = 0;
	uint64_t off;
	char *fix;
	int fd, x, rc = 0;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		warn("%s", path);
		return (1);
	}
	jh_reader_init(&r, fd);
	for (;;) {
		off = r.offset + r.pos;
		if ((x = jh_reader_json(&r, &val, &len, &off, &e)) == 0)
			break;
		idx++;
		if (x != 1) {
			warnx("%s: payload %lu (offset %llu): %s", path, idx,
			    (unsigned long long)off, e.msg);
			rc = 1;
			if (x == JH_JSON_TOOLONG)
				continue;
			break;
		}
		/*
		 * The flags of jh_json_parse: the input_digest contract
		 * refuses a repeated key and keeps U+0000.  A lone
		 * surrogate is read as U+FFFD, as the host runs it.  A
		 * payload that is not JSON is passed over: the reader
		 * found where it ends, so the next one is read.
		 */
		fix = NULL;
		if (memmem(val, len, "\\u", 2) != NULL) {
			/* only a payload with a \u escape is copied */
			if ((fix = malloc(len)) == NULL)
				errx(2, "out of memory");
			memcpy(fix, val, len);
			jh_json_lone_surrogates(fix, len);
		}
		j = json_loadb(fix != NULL ? fix : val, len,
		    JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY,
		    &je);
		free(fix);
		if (j == NULL) {
			warnx("%s: payload %lu (offset %llu): not JSON: line "
			    "%d, column %d: %s", path, idx,
			    (unsigned long long)off, je.line, je.column,
			    je.text);
			rc = 1;
			continue;
		}
		ev = jh_host_event(o->host, j, o->native);
		line = ev != NULL ? json_dumps(ev, JSON_COMPACT) : NULL;
		json_decref(ev);
		json_decref(j);
		if (line == NULL)
			errx(2, "out of memory");
		if (strlen(line) >= JH_MAX_RECORD) {
			/* The next stage would refuse the line. */
			warnx("%s: payload %lu (offset %llu): its event is "
			    "longer than %u bytes", path, idx,
			    (unsigned long long)off, JH_MAX_RECORD);
			free(line);
			rc = 1;
			continue;
		}
		x = fputs(line, stdout) == EOF || putchar('\n') == EOF;
		free(line);
		if (x) {
			rc = -1;
			break;
		}
	}
	jh_reader_free(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	return (rc);
}

static char *
text_dup(const struct jh_cbor *v)
{
	char *s;

	if ((s = malloc(v->len + 1)) == NULL)
		errx(2, "out of memory");
	memcpy(s, v->p, v->len);
	s[v->len] = '\0';
	return (s);
}

static int
fail(struct answer *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets a deny with the reason why; returns -1. */
static int
fail(struct answer *a, const char *fmt, ...)
{
	va_list ap;

	free(a->reason);
	free(a->hint);
	a->hint = NULL;
	a->decided = 0;
	a->verdict = JH_ANSWER_DENY;
	if ((a->reason = malloc(512)) == NULL)
		errx(2, "out of memory");
	va_start(ap, fmt);
	vsnprintf(a->reason, 512, fmt, ap);
	va_end(ap);
	return (-1);
}

/* Whether a core's text field equals s, which the caller names. */
static int
same(const struct jh_cbor *core, const char *field, const char *s)
{
	return (jh_cbor_text_is(jh_cbor_get(core, field), s));
}

static int
fresh(const struct jh_cbor *core, uint64_t now, uint64_t limit,
    uint64_t *age)
{
	const struct jh_cbor *ts = jh_cbor_get(core, "ts");

	*age = ts->u > now ? ts->u - now : now - ts->u;
	return (*age <= limit);
}

/*
 * The checks of jh-normalize(1), The reply, on what jh-chain wrote, in
 * order; the first that fails names the reason of the deny.  On success
 * the answer is the decision's own.
 */
static int
judge(const struct opts *o, const struct jh_keyset *ks, const uint8_t *p,
    size_t n, struct answer *a)
{
	struct jh_verifier v;
	struct jh_arena ar;
	struct jh_env ent, in;
	struct jh_err e;
	const struct jh_cbor *rc, *verdict, *ui;
	json_t *j;
	size_t len;
	uint64_t now, age;
	int x, r = -1;

	if (n == 0)
		return (fail(a, "no receipt: the input is empty (a stage "
		    "before the reply failed)"));
	if ((x = jh_cbor_item_len(&len, p, n, &e)) != JH_CBOR_OK)
		return (fail(a, "no receipt: the input is %s (%s)",
		    x == JH_CBOR_TRUNCATED ? "truncated" : "not CBOR", e.msg));
	if (len != n)
		return (fail(a, "the input holds more than one item; the "
		    "reply answers exactly one chained receipt"));
	jh_arena_init(&ar);
	jh_verifier_init(&v, ks);
	if (jh_verify_env(&v, &ent, &ar, p, n, &e) == -1) {
		fail(a, "the receipt does not verify: %s", e.msg);
		goto out;
	}
	if (strcmp(ent.kind, "chain/1") != 0) {
		fail(a, "a bare %s, not a chain/1 entry: the receipt was "
		    "never chained", ent.kind);
		goto out;
	}
	rc = jh_cbor_get(ent.core, "receipt");
	if (jh_verify_env(&v, &in, &ar, rc->p, rc->len, &e) == -1) {
		fail(a, "the chained receipt does not verify: %s", e.msg);
		goto out;
	}
	if (strcmp(in.kind, o->event != NULL ? "result/1" :
	    "decision/1") != 0) {
		fail(a, "the chained receipt is of kind %s, not %s", in.kind,
		    o->event != NULL ? "result/1" : "decision/1");
		goto out;
	}
	if (!same(in.core, "session", o->session) ||
	    !same(ent.core, "session", o->session)) {
		fail(a, "the receipt is for another session");
		goto out;
	}
	if (!same(in.core, "tool_use_id", o->call)) {
		fail(a, "the receipt is for another tool call (tool_use_id)");
		goto out;
	}
	if (!same(in.core, "input_digest", o->digest)) {
		fail(a, "the receipt is for another input (input_digest)");
		goto out;
	}
	if (!same(in.core, "host", o->host->name) || !same(in.core, "event",
	    o->event != NULL ? o->event : JH_GATE_EVENT)) {
		fail(a, "the receipt is not a %s on a %s %s", o->event !=
		    NULL ? "result" : "decision", o->host->name,
		    o->event != NULL ? o->event : JH_GATE_EVENT);
		goto out;
	}
	now = jh_now_ms();
	if (!fresh(ent.core, now, o->deadline_ms, &age) ||
	    !fresh(in.core, now, o->deadline_ms, &age)) {
		fail(a, "the receipt is stale: its ts is %llu ms from now, "
		    "more than %llu", (unsigned long long)age,
		    (unsigned long long)o->deadline_ms);
		goto out;
	}
	free(a->reason);
	a->reason = text_dup(jh_cbor_get(in.core, "reason"));
	if (o->event != NULL) {
		/* What ran: anything but a match ends the run. */
		const struct jh_cbor *ck = jh_cbor_get(in.core, "check");
		const struct jh_cbor *t = jh_cbor_get(in.core, "target");
		a->verdict = JH_ANSWER_ALLOW;
		a->post = jh_cbor_text_is(ck, "match") ? JH_POST_OK :
		    JH_POST_STOP;
		if (jh_cbor_text_is(ck, "content-mismatch")) {
			a->post = JH_POST_WITHHOLD;
			if (t != NULL && t->type == JH_CBOR_ARRAY && t->len > 0)
				a->path = text_dup(&t->v[0]);
		}
		r = 0;
		goto out;
	}
	verdict = jh_cbor_get(in.core, "verdict");
	a->decided = 1;
	a->tool = text_dup(jh_cbor_get(in.core, "tool"));
	a->unprovable = jh_cbor_text_is(jh_cbor_get(in.core, "code"),
	    "unprovable-command");
	if (jh_cbor_get(in.core, "hint") != NULL)
		a->hint = text_dup(jh_cbor_get(in.core, "hint"));
	if (jh_cbor_text_is(verdict, "allow"))
		a->verdict = JH_ANSWER_ALLOW;
	else if (jh_cbor_text_is(verdict, "ask"))
		a->verdict = JH_ANSWER_ASK;
	else if (jh_cbor_text_is(verdict, "rewrite")) {
		/* The sealer checked that updated_digest is its digest. */
		ui = jh_cbor_get(in.core, "updated_input");
		j = jh_json_parse((const char *)ui->p, ui->len, &e);
		if (j == NULL || !json_is_object(j)) {
			json_decref(j);
			fail(a, "the rewrite's updated_input is not a JSON "
			    "object");
			goto out;
		}
		a->updated = json_dumps(j, JSON_COMPACT);
		json_decref(j);
		if (a->updated == NULL)
			errx(2, "out of memory");
		a->verdict = JH_ANSWER_REWRITE;
	} else
		a->verdict = JH_ANSWER_DENY;
	r = 0;
out:
	jh_arena_free(&ar);
	return (r);
}

/*
 * What the person and the agent can do about an ask or a deny: the line
 * that would grant what the grant omits, and for a deny the agent
 * reads, not to look for another way round it (jh-normalize(1)).
 */
static void
advise(struct jh_buf *why, const struct answer *a)
{
	if (a->verdict != JH_ANSWER_ASK && a->verdict != JH_ANSWER_DENY)
		return;
	if (a->hint != NULL && a->hint[0] != '\0') {
		jh_buf_adds(why, a->verdict == JH_ANSWER_ASK ?
		    ". To allow it from now on: jh-grant add " :
		    ". The user can grant it with: jh-grant add ");
		jh_buf_adds(why, a->hint);
	}
	if (a->verdict != JH_ANSWER_DENY)
		return;
	if (!a->decided)
		jh_buf_adds(why, " (joulehook failed closed, so the call is "
		    "blocked; tell the user).");
	else if (a->unprovable)
		jh_buf_adds(why, ". Write it as plain commands whose effects "
		    "can be read, or tell the user and let them run it.");
	else
		jh_buf_adds(why, ". Do not retry this or try another way to "
		    "do the same thing; tell the user what was blocked and "
		    "why.");
}

/*
 * The reply stage: every path ends in the host's answer, and any doubt
 * in its deny and blocking exit status.
 */
static int
reply(const struct opts *o)
{
	struct answer a = { JH_ANSWER_DENY, NULL, NULL, JH_POST_OK, NULL,
	    NULL, NULL, 0, 0 };
	struct jh_keyset ks;
	struct jh_buf in, out, why;
	struct jh_err e;
	char home[4096], sbuf[4096];
	const char *stewards = o->stewards;
	int status;

	jh_keyset_init(&ks);
	jh_buf_init(&in);
	jh_buf_init(&out);
	jh_buf_init(&why);
	if (o->bad[0] != '\0')
		fail(&a, "usage: %s", o->bad);
	else if (stewards == NULL && (jh_home(home, sizeof(home)) == NULL ||
	    jh_path_join(sbuf, sizeof(sbuf), home, "stewards") == -1))
		fail(&a, "no stewards list: give -s or set JH_HOME");
	else if (jh_keyset_load(&ks, stewards != NULL ? stewards : sbuf,
	    JH_ROLE_STEWARD, &e) == -1)
		fail(&a, "cannot load the stewards list: %s", e.msg);
	else if (jh_read_all(&in, STDIN_FILENO, JH_MAX_RECORD, &e) == -1)
		fail(&a, "no receipt: %s", e.msg);
	else
		judge(o, &ks, in.p, in.len, &a);

	jh_buf_adds(&why, REASON_PREFIX);
	jh_buf_adds(&why, a.reason);
	if (o->event == NULL)
		advise(&why, &a);
	if (jh_buf_cstr(&why) == NULL)
		errx(2, "out of memory");
	if (o->event != NULL) {
		if (a.verdict == JH_ANSWER_DENY)
			a.post = JH_POST_STOP;
		status = jh_host_post_answer(&out, o->host, o->event, a.post,
		    (char *)why.p, a.path);
	} else
		status = jh_host_answer(&out, o->host, a.verdict,
		    (char *)why.p, a.tool, a.updated, o->replace);
	if (out.oom)
		errx(o->host->block_status, "out of memory");
	if (a.verdict == JH_ANSWER_DENY || a.post != JH_POST_OK)
		fprintf(stderr, "%s\n", (char *)why.p);
	if ((out.len > 0 && fwrite(out.p, 1, out.len, stdout) != out.len) ||
	    fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		status = o->host->block_status;
	}
	free(a.reason);
	free(a.updated);
	free(a.path);
	free(a.hint);
	free(a.tool);
	jh_keyset_free(&ks);
	jh_buf_free(&in);
	jh_buf_free(&out);
	jh_buf_free(&why);
	return (status);
}

static void
parse_ms(struct opts *o, const char *s)
{
	char *end;

	errno = 0;
	o->deadline_ms = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 ||
	    o->deadline_ms > 86400000ULL * 365)
		usage_err(o, "-d %s: not a number of milliseconds", s);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *hostname = NULL;
	char names[256];
	int ch, i, rc = 0, x;

	memset(&o, 0, sizeof(o));
	o.deadline_ms = 30000;
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Parse every option even after an error: with -r and a known
	 * host, a usage error is still answered with the host's deny.
	 */
	opterr = 0;
	while ((ch = getopt(argc, argv, "AD:d:E:H:hi:nrs:u:")) != -1) {
		switch (ch) {
		case 'A':
			o.replace = 1;
			break;
		case 'D':
			o.digest = optarg;
			break;
		case 'E':
			o.event = optarg;
			break;
		case 'd':
			o.dset = 1;
			parse_ms(&o, optarg);
			break;
		case 'H':
			hostname = optarg;
			break;
		case 'h':
			o.help = 1;
			break;
		case 'i':
			o.session = optarg;
			break;
		case 'n':
			o.native = 1;
			break;
		case 'r':
			o.reply = 1;
			break;
		case 's':
			o.stewards = optarg;
			break;
		case 'u':
			o.call = optarg;
			break;
		default:
			if (optopt == 'D' || optopt == 'd' || optopt == 'E' ||
			    optopt == 'H' ||
			    optopt == 'i' || optopt == 's' || optopt == 'u')
				usage_err(&o, "-%c needs an argument", optopt);
			else
				usage_err(&o, "unknown option -%c", optopt);
		}
	}
	argc -= optind;
	argv += optind;
	if (o.help && !o.reply)
		usage(stdout, 0);
	if (hostname != NULL && (o.host = jh_host_lookup(hostname)) == NULL)
		usage_err(&o, "unknown host %s (known: %s)", hostname,
		    jh_host_names(names, sizeof(names)));
	if (o.host == NULL) {
		if (o.bad[0] == '\0')
			usage_err(&o, "-H host is required");
		warnx("%s", o.bad);
		usage(stderr, 2);
	}
	if (o.reply) {
		/* -h here too: a hook must never answer with usage text. */
		if (o.help)
			usage_err(&o, "-h with -r");
		if (o.native)
			usage_err(&o, "-n with -r");
		if (argc != 0)
			usage_err(&o, "-r reads the standard input only");
		if (o.session == NULL || o.call == NULL || o.digest == NULL)
			usage_err(&o, "-r needs -i session, -u tool_use_id "
			    "and -D input_digest");
		if (o.event != NULL && (o.host == NULL ||
		    jh_host_post_status(o.host, o.event) == NULL))
			usage_err(&o, "-E %s: not a post-tool event of the "
			    "host", o.event);
		if (sodium_init() < 0)
			usage_err(&o, "libsodium failed to initialise");
		return (reply(&o));
	}
	if (o.replace || o.dset || o.session != NULL || o.call != NULL ||
	    o.digest != NULL || o.stewards != NULL || o.event != NULL)
		usage_err(&o, "-A, -D, -d, -E, -i, -s and -u belong to -r");
	if (o.bad[0] != '\0') {
		warnx("%s", o.bad);
		usage(stderr, 2);
	}
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (argc == 0)
		rc = normalize_file(&o, "-");
	for (i = 0; i < argc && rc != -1; i++)
		if ((x = normalize_file(&o, argv[i])) != 0)
			rc = x;
	if (fflush(stdout) == EOF || ferror(stdout) || rc == -1) {
		warn("stdout");
		return (2);
	}
	return (rc ? 2 : 0);
}
