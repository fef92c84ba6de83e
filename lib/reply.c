/*
 * joulehook: the reply stage (jh-normalize(1), The reply).
 *
 * What jh-chain wrote is checked in the order the page gives, and the
 * first check that fails names the reason of a deny: one item, a chain/1
 * entry that verifies, holding a receipt that verifies, of the kind the
 * event wants, for this session, tool call, input, host and event, fresh.
 * Only then is the decision's own verdict the host's answer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "hosts.h"
#include "json.h"
#include "keys.h"
#include "reply.h"
#include "util.h"
#include "verify.h"

#define REASON_PREFIX	"joulehook: "
#define REASON_MAX	512

/* What the reply concluded. */
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
	int oom;
};

static char *
text_dup(struct answer *a, const struct jh_cbor *v)
{
	char *s;

	if (v == NULL || v->type != JH_CBOR_TEXT)
		return (NULL);
	if ((s = malloc(v->len + 1)) == NULL) {
		a->oom = 1;
		return (NULL);
	}
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
	if ((a->reason = malloc(REASON_MAX)) == NULL) {
		a->oom = 1;
		return (-1);
	}
	va_start(ap, fmt);
	vsnprintf(a->reason, REASON_MAX, fmt, ap);
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

/* The envelope checks: one chain/1 entry of a receipt, both verifying. */
static int
envelopes(const struct jh_reply_opts *o, struct jh_verifier *v,
    struct jh_arena *ar, const uint8_t *p, size_t n, struct jh_env *ent,
    struct jh_env *in, struct answer *a)
{
	const struct jh_cbor *rc;
	struct jh_err e;
	const char *want = o->event != NULL ? "result/1" : "decision/1";
	size_t len;
	int x;

	if (n == 0)
		return (fail(a, "no receipt: the input is empty (a stage "
		    "before the reply failed)"));
	if ((x = jh_cbor_item_len(&len, p, n, &e)) != JH_CBOR_OK)
		return (fail(a, "no receipt: the input is %s (%s)",
		    x == JH_CBOR_TRUNCATED ? "truncated" : "not CBOR", e.msg));
	if (len != n)
		return (fail(a, "the input holds more than one item; the "
		    "reply answers exactly one chained receipt"));
	if (jh_verify_env(v, ent, ar, p, n, &e) == -1)
		return (fail(a, "the receipt does not verify: %s", e.msg));
	if (strcmp(ent->kind, "chain/1") != 0)
		return (fail(a, "a bare %s, not a chain/1 entry: the receipt "
		    "was never chained", ent->kind));
	rc = jh_cbor_get(ent->core, "receipt");
	if (jh_verify_env(v, in, ar, rc->p, rc->len, &e) == -1)
		return (fail(a, "the chained receipt does not verify: %s",
		    e.msg));
	if (strcmp(in->kind, want) != 0)
		return (fail(a, "the chained receipt is of kind %s, not %s",
		    in->kind, want));
	return (0);
}

/* The binding checks: this session, call, input, host and event, fresh. */
static int
bound(const struct jh_reply_opts *o, const struct jh_env *ent,
    const struct jh_env *in, struct answer *a)
{
	const char *ev = o->event != NULL ? o->event : JH_GATE_EVENT;
	uint64_t now, age;

	if (!same(in->core, "session", o->session) ||
	    !same(ent->core, "session", o->session))
		return (fail(a, "the receipt is for another session"));
	if (!same(in->core, "tool_use_id", o->call))
		return (fail(a, "the receipt is for another tool call "
		    "(tool_use_id)"));
	if (!same(in->core, "input_digest", o->digest))
		return (fail(a, "the receipt is for another input "
		    "(input_digest)"));
	if (!same(in->core, "host", o->host->name) ||
	    !same(in->core, "event", ev))
		return (fail(a, "the receipt is not a %s on a %s %s",
		    o->event != NULL ? "result" : "decision", o->host->name,
		    ev));
	now = jh_now_ms();
	if (!fresh(ent->core, now, o->deadline_ms, &age) ||
	    !fresh(in->core, now, o->deadline_ms, &age))
		return (fail(a, "the receipt is stale: its ts is %llu ms "
		    "from now, more than %llu", (unsigned long long)age,
		    (unsigned long long)o->deadline_ms));
	return (0);
}

/* After a tool ran, what ran: anything but a match ends the run. */
static int
judge_result(const struct jh_env *in, struct answer *a)
{
	const struct jh_cbor *ck = jh_cbor_get(in->core, "check");
	const struct jh_cbor *t = jh_cbor_get(in->core, "target");

	a->verdict = JH_ANSWER_ALLOW;
	a->post = jh_cbor_text_is(ck, "match") ? JH_POST_OK : JH_POST_STOP;
	if (jh_cbor_text_is(ck, "content-mismatch")) {
		a->post = JH_POST_WITHHOLD;
		if (t != NULL && t->type == JH_CBOR_ARRAY && t->len > 0)
			a->path = text_dup(a, &t->v[0]);
	}
	return (0);
}

/* Before a tool: the decision's own verdict. */
static int
judge_decision(const struct jh_env *in, struct answer *a)
{
	const struct jh_cbor *verdict = jh_cbor_get(in->core, "verdict");
	const struct jh_cbor *ui;
	struct jh_err e;
	json_t *j;

	a->decided = 1;
	a->tool = text_dup(a, jh_cbor_get(in->core, "tool"));
	a->unprovable = jh_cbor_text_is(jh_cbor_get(in->core, "code"),
	    "unprovable-command");
	if (jh_cbor_get(in->core, "hint") != NULL)
		a->hint = text_dup(a, jh_cbor_get(in->core, "hint"));
	if (jh_cbor_text_is(verdict, "allow"))
		a->verdict = JH_ANSWER_ALLOW;
	else if (jh_cbor_text_is(verdict, "ask"))
		a->verdict = JH_ANSWER_ASK;
	else if (jh_cbor_text_is(verdict, "rewrite")) {
		/* The sealer checked that updated_digest is its digest. */
		ui = jh_cbor_get(in->core, "updated_input");
		j = jh_json_parse((const char *)ui->p, ui->len, &e);
		if (j == NULL || !json_is_object(j)) {
			json_decref(j);
			return (fail(a, "the rewrite's updated_input is not a "
			    "JSON object"));
		}
		if ((a->updated = json_dumps(j, JSON_COMPACT)) == NULL)
			a->oom = 1;
		json_decref(j);
		a->verdict = JH_ANSWER_REWRITE;
	} else
		a->verdict = JH_ANSWER_DENY;
	return (0);
}

/*
 * The checks of jh-normalize(1), The reply, on what jh-chain wrote, in
 * order; the first that fails names the reason of the deny.  On success
 * the answer is the decision's own.
 */
static int
judge(const struct jh_reply_opts *o, const struct jh_keyset *ks,
    const uint8_t *p, size_t n, struct answer *a)
{
	struct jh_verifier v;
	struct jh_arena ar;
	struct jh_env ent, in;
	int r = -1;

	jh_arena_init(&ar);
	jh_verifier_init(&v, ks);
	v.own = o->own;
	if (envelopes(o, &v, &ar, p, n, &ent, &in, a) == -1 ||
	    bound(o, &ent, &in, a) == -1)
		goto out;
	free(a->reason);
	a->reason = text_dup(a, jh_cbor_get(in.core, "reason"));
	r = o->event != NULL ? judge_result(&in, a) : judge_decision(&in, a);
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

static void
answer_free(struct answer *a)
{
	free(a->reason);
	free(a->updated);
	free(a->path);
	free(a->hint);
	free(a->tool);
}

int
jh_reply(struct jh_buf *out, struct jh_buf *diag,
    const struct jh_reply_opts *o, const struct jh_keyset *stewards,
    const uint8_t *in, size_t n, const char *failed)
{
	struct answer a;
	struct jh_buf why;
	int status;

	memset(&a, 0, sizeof(a));
	a.verdict = JH_ANSWER_DENY;
	a.post = JH_POST_OK;
	jh_buf_init(&why);
	if (failed != NULL)
		fail(&a, "%s", failed);
	else
		judge(o, stewards, in, n, &a);
	if (a.reason == NULL && !a.oom)
		fail(&a, "no reason");
	jh_buf_adds(&why, REASON_PREFIX);
	jh_buf_adds(&why, a.reason != NULL ? a.reason : "");
	if (o->event == NULL)
		advise(&why, &a);
	if (a.oom || jh_buf_cstr(&why) == NULL) {
		out->oom = 1;
		status = o->host->block_status;
		goto out;
	}
	if (o->event != NULL) {
		if (a.verdict == JH_ANSWER_DENY)
			a.post = JH_POST_STOP;
		status = jh_host_post_answer(out, o->host, o->event, a.post,
		    (char *)why.p, a.path);
	} else
		status = jh_host_answer(out, o->host, a.verdict,
		    (char *)why.p, a.tool, a.updated, o->replace);
	if (out->oom)
		status = o->host->block_status;
	else if (a.verdict == JH_ANSWER_DENY || a.post != JH_POST_OK)
		jh_buf_adds(diag, (char *)why.p);
out:
	answer_free(&a);
	jh_buf_free(&why);
	return (status);
}
