/*
 * joulehook: jh-hook's fused path (jh-hook(1), fast=1).
 *
 * One tool call's stages, in this process, in the pipeline's order:
 *
 *	normalize -> decide (or result) -> seal -> chain -> reply
 *
 * Each stage is given exactly the bytes its filter would read from the
 * one before, and gets nothing when the one before failed or refused, as
 * a filter that exits gets an empty pipe: the reply stage then denies.
 * Its diagnostics go to err with the filter's name in front.  The driver
 * runs this in a worker process of its own and keeps the deadline, so a
 * crash or a hang here is a deny as a stage's is.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "chain.h"
#include "cose.h"
#include "fused.h"
#include "gate.h"
#include "hosts.h"
#include "keys.h"
#include "kinds.h"
#include "reply.h"
#include "result.h"
#include "util.h"

/* What the run holds: the keys, loaded once for every stage. */
struct run {
	const struct jh_fused *f;
	FILE *err;
	char home[PATH_MAX];
	char state[PATH_MAX];
	char keyfile[PATH_MAX];
	char stewfile[PATH_MAX];
	struct jh_key key;
	int have_key;
	char keywhy[256];	/* why the key could not be loaded */
	struct jh_keyset stewards;	/* JH_HOME/stewards, for jh-result and the reply */
	int have_stewards;
	char stewwhy[320];
	struct jh_sealed own;	/* the receipt and entry sealed here */
};

static void
say(const struct run *r, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One diagnostic line, as the filter prog writes it. */
static void
say(const struct run *r, const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(r->err, "%s: ", prog);
	vfprintf(r->err, fmt, ap);
	fputc('\n', r->err);
	va_end(ap);
}

/* Each line of d, as the filter prog's warnings. */
static void
say_lines(const struct run *r, const char *prog, const struct jh_buf *d)
{
	const char *p = (const char *)d->p, *nl;
	size_t left = d->len;

	while (left > 0 && (nl = memchr(p, '\n', left)) != NULL) {
		say(r, prog, "%.*s", (int)(nl - p), p);
		left -= (size_t)(nl - p) + 1;
		p = nl + 1;
	}
}

int
jh_fused_fits(const uint8_t *payload, size_t n)
{
	struct jh_reader rd;
	struct jh_err e;
	const char *val;
	size_t len;
	uint64_t off = 0;
	int x, fits;

	if (jh_reader_mem(&rd, payload, n) == -1) {
		jh_reader_free(&rd);
		return (0);
	}
	fits = jh_reader_json(&rd, &val, &len, &off, &e) == 1 &&
	    (x = jh_reader_json(&rd, &val, &len, &off, &e)) == 0;
	jh_reader_free(&rd);
	return (fits);
}

/* jh-normalize -H host: the payload's event line, or nothing. */
static void
normalize(struct jh_buf *ev, const struct run *r, const uint8_t *payload,
    size_t n)
{
	struct jh_reader rd;
	struct jh_err e;
	const char *val;
	size_t len;
	uint64_t off = 0;
	int x;

	if (jh_reader_mem(&rd, payload, n) == -1) {
		say(r, "jh-normalize", "out of memory");
		jh_reader_free(&rd);
		return;
	}
	if (jh_reader_json(&rd, &val, &len, &off, &e) == 1) {
		x = jh_normalize_one(ev, r->f->host, val, len, 0, &e);
		if (x == 1)
			say(r, "jh-normalize", "-: payload 1 (offset %llu): %s",
			    (unsigned long long)off, e.msg);
		else if (x == -1)
			say(r, "jh-normalize", "%s", e.msg);
		if (x != 0)
			jh_buf_reset(ev);
	}
	jh_reader_free(&rd);
}

/* A line's bytes, its newline dropped, as jh_reader_line gives it. */
static size_t
line_len(const struct jh_buf *b)
{
	return (b->len > 0 && b->p[b->len - 1] == '\n' ? b->len - 1 : b->len);
}

/* jh-decide -w lock_ms [-P protect ...] [-u uid]: the Decision line. */
static void
decide(struct jh_buf *dec, const struct run *r, const struct jh_buf *ev)
{
	const struct jh_fused *f = r->f;
	struct jh_gate_paths paths;
	struct jh_gate_ctx *gc;
	struct jh_asker who;
	struct jh_sigmemo memo;
	struct jh_err e;
	char vdir[PATH_MAX];
	int i, ok = 1;

	if ((gc = malloc(sizeof(*gc))) == NULL) {
		say(r, "jh-decide", "out of memory");
		return;
	}
	jh_gate_ctx_init(gc);
	for (i = 0; ok && i < f->nprotect; i++)
		if (jh_protect_add(&gc->protect, f->protect[i], &e) == -1) {
			say(r, "jh-decide", "-P %s: %s", f->protect[i], e.msg);
			ok = 0;
		}
	memset(&paths, 0, sizeof(paths));
	paths.exedir = f->bindir;
	memset(&who, 0, sizeof(who));
	if (f->uid != NULL) {
		who.have_uid = 1;
		who.uid = (uint32_t)strtoul(f->uid, NULL, 10);
	}
	if (ok && jh_gate_open(gc, &paths, &e) == -1) {
		say(r, "jh-decide", "%s", e.msg);
		ok = 0;
	}
	gc->g.wait_ms = f->lock_ms;
	/* the grant's signature, checked once for this steward key */
	if (r->have_key && r->state[0] != '\0' && jh_path_join(vdir,
	    sizeof(vdir), r->state, "verified") == 0 &&
	    jh_sigmemo_key(&memo, r->key.sk) == 0) {
		memo.dir = vdir;
		memo.write = 1;
		gc->g.memo = &memo;
	}
	if (ok && ev->len > 0 && jh_decide_line(dec, &gc->g, &who,
	    (const char *)ev->p, line_len(ev), NULL) == -1) {
		say(r, "jh-decide", "out of memory");
		jh_buf_reset(dec);
	}
	sodium_memzero(&memo, sizeof(memo));
	jh_gate_close(gc);
	free(gc);
}

/* jh-result -w lock_ms: the result/1 record. */
static void
result(struct jh_buf *res, const struct run *r, const struct jh_buf *ev)
{
	struct jh_result_opts ro;
	struct jh_buf d;
	char ledger[PATH_MAX + 8];

	if (!r->have_stewards) {
		say(r, "jh-result", "%s", r->stewwhy);
		return;
	}
	if (ev->len == 0)
		return;
	snprintf(ledger, sizeof(ledger), "%s/ledger", r->state);
	memset(&ro, 0, sizeof(ro));
	ro.statedir = r->state;
	ro.ledgerdir = ledger;
	ro.keys = &r->stewards;
	ro.wait_ms = r->f->lock_ms;
	jh_buf_init(&d);
	(void)jh_result_line(res, &d, &ro, (const char *)ev->p,
	    line_len(ev));
	say_lines(r, "jh-result", &d);
	jh_buf_free(&d);
}

/* jh-seal -K kind: the record's envelope. */
static void
seal(struct jh_buf *env, const struct run *r, const char *kind,
    const struct jh_buf *rec)
{
	struct jh_buf core;
	struct jh_err e;

	if (!r->have_key) {
		say(r, "jh-seal", "%s", r->keywhy);
		return;
	}
	if (rec->len == 0)
		return;
	jh_buf_init(&core);
	if (jh_seal_record(env, &core, &r->key, r->keyfile, kind,
	    (const char *)rec->p, line_len(rec), &e) == -1) {
		say(r, "jh-seal", "-:1: %s", e.msg);
		jh_buf_reset(env);
	}
	jh_buf_free(&core);
}

/* jh-chain -w lock_ms: the chain/1 entry. */
static void
chain(struct jh_buf *entry, const struct run *r, const struct jh_buf *env)
{
	struct jh_chainer c;
	struct jh_keyset ks;
	struct jh_err e, note;
	size_t i;
	int x;

	if (!r->have_key) {
		say(r, "jh-chain", "%s", r->keywhy);
		return;
	}
	if (r->key.role != JH_ROLE_STEWARD) {
		say(r, "jh-chain", "%s is an %s key; the chain is signed by a "
		    "steward key", r->keyfile, jh_role_name(r->key.role));
		return;
	}
	/*
	 * Receipts are accepted from our own key and the listed stewards:
	 * the list keys() read, or where it could not, the file read again
	 * for the reason (none there: our own key alone).
	 */
	jh_keyset_init(&ks);
	jh_keyset_add(&ks, r->key.pk, JH_ROLE_STEWARD);
	for (i = 0; r->have_stewards && i < r->stewards.n; i++)
		jh_keyset_add(&ks, r->stewards.pk[i], r->stewards.roles[i]);
	if (!r->have_stewards && access(r->stewfile, F_OK) == 0 &&
	    jh_keyset_load(&ks, r->stewfile, JH_ROLE_STEWARD, &e) == -1) {
		say(r, "jh-chain", "%s", e.msg);
		jh_keyset_free(&ks);
		return;
	}
	if (env->len > 0) {
		memset(&c, 0, sizeof(c));
		c.keys = &ks;
		c.key = &r->key;
		c.state = r->state;
		c.wait_ms = r->f->lock_ms;
		c.deadline_ms = 60000;	/* jh-chain's -d, not given */
		c.own = &r->own;
		x = jh_chain_receipt(entry, &c, env->p, env->len, &note, &e);
		if (note.msg[0] != '\0')
			say(r, "jh-chain", "%s", note.msg);
		if (x == 1)
			say(r, "jh-chain", "receipt 1: %s", e.msg);
		else if (x != 0)
			say(r, "jh-chain", "%s", e.msg);
		if (x != 0)
			jh_buf_reset(entry);
	}
	jh_keyset_free(&ks);
}

/* jh-normalize -H host -r ...: the host's answer and exit status. */
static int
reply(struct jh_buf *out, const struct run *r, const struct jh_buf *entry)
{
	struct jh_reply_opts ro;
	struct jh_buf why;
	int status;

	memset(&ro, 0, sizeof(ro));
	ro.host = r->f->host;
	ro.session = r->f->session;
	ro.call = r->f->call;
	ro.digest = r->f->digest;
	ro.event = r->f->post;
	ro.deadline_ms = r->f->deadline_ms;
	ro.replace = r->f->answer_allow;
	ro.own = &r->own;
	jh_buf_init(&why);
	status = jh_reply(out, &why, &ro, &r->stewards, entry->p, entry->len,
	    r->have_stewards ? NULL : r->stewwhy);
	if (out->oom || why.oom) {
		say(r, "jh-normalize", "out of memory");
		jh_buf_reset(out);
		status = r->f->host->block_status;
	} else if (why.len > 0)
		fprintf(r->err, "%.*s\n", (int)why.len, (char *)why.p);
	jh_buf_free(&why);
	return (status);
}

/* The steward key and the stewards list, once for every stage. */
static void
keys(struct run *r)
{
	struct jh_err e;

	if (jh_home(r->home, sizeof(r->home)) == NULL ||
	    jh_path_join(r->keyfile, sizeof(r->keyfile), r->home,
	    "steward.key") == -1 || jh_path_join(r->stewfile,
	    sizeof(r->stewfile), r->home, "stewards") == -1) {
		snprintf(r->keywhy, sizeof(r->keywhy), "no key: give -k or "
		    "set JH_HOME");
		snprintf(r->stewwhy, sizeof(r->stewwhy), "no stewards list: "
		    "give -s or set JH_HOME");
		return;
	}
	if (jh_key_load(&r->key, r->keyfile, NULL, NULL, &e) == -1)
		snprintf(r->keywhy, sizeof(r->keywhy), "%s", e.msg);
	else
		r->have_key = 1;
	if (jh_keyset_load(&r->stewards, r->stewfile, JH_ROLE_STEWARD,
	    &e) == -1)
		snprintf(r->stewwhy, sizeof(r->stewwhy), "cannot load the "
		    "stewards list: %s", e.msg);
	else
		r->have_stewards = 1;
}

static void
after(const struct jh_fused *f, int stage)
{
	if (f->after != NULL)
		f->after(stage, f->arg);
}

int
jh_fused(struct jh_buf *out, FILE *err, const struct jh_fused *f,
    const uint8_t *payload, size_t n)
{
	struct run *r;
	struct jh_buf ev, rec, env, entry;
	int status;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		fprintf(err, "jh-hook: out of memory\n");
		return (f->host->block_status);
	}
	r->f = f;
	r->err = err;
	jh_keyset_init(&r->stewards);
	jh_buf_init(&ev);
	jh_buf_init(&rec);
	jh_buf_init(&env);
	jh_buf_init(&entry);
	keys(r);
	if (jh_state(r->state, sizeof(r->state)) == NULL)
		say(r, "jh-chain", "no state directory: give -S or set "
		    "JH_STATE");
	normalize(&ev, r, payload, n);
	after(f, 0);
	if (f->post == NULL)
		decide(&rec, r, &ev);
	else
		result(&rec, r, &ev);
	after(f, 1);
	seal(&env, r, f->post == NULL ? "decision/1" : "result/1", &rec);
	jh_sealed_add(&r->own, env.p, env.len);
	after(f, 2);
	if (r->state[0] != '\0')
		chain(&entry, r, &env);
	jh_sealed_add(&r->own, entry.p, entry.len);
	after(f, 3);
	status = reply(out, r, &entry);
	after(f, 4);
	if (r->have_key)
		jh_key_wipe_exiting(&r->key);
	jh_keyset_free(&r->stewards);
	jh_sealed_free(&r->own);
	jh_buf_free(&ev);
	jh_buf_free(&rec);
	jh_buf_free(&env);
	jh_buf_free(&entry);
	free(r);
	return (status);
}
