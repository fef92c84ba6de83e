/*
 * jh-proxy: a call's account (jh-proxy(1), The budget): the
 * grant check jh-decide makes, the hold placed on the ledger before the
 * provider is reached, its settlement to the metered figure (synced),
 * and the efficiency/1 receipt sealed into the session's log.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "jh.h"
#include "decide.h"
#include "energy.h"
#include "gate.h"
#include "keys.h"
#include "kinds.h"
#include "ledger.h"
#include "meter.h"
#include "proxy.h"
#include "sealunit.h"
#include "statefs.h"
#include "util.h"
#include "wire.h"

static int	ledger_settle(struct call *, uint64_t, int);
static int	hold_receipt(struct call *, char *, size_t);

/* One line to stderr, whole (stdio's lock keeps lines apart). */
void
jh_px_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", PROG);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}

const char *
jh_px_joules(char *buf, size_t sz, uint64_t uj)
{
	if (uj >= 1000000000000ULL)
		snprintf(buf, sz, "%.2f MJ", (double)uj / 1e12);
	else if (uj >= 1000000000ULL)
		snprintf(buf, sz, "%.2f kJ", (double)uj / 1e9);
	else
		snprintf(buf, sz, "%.3f J", (double)uj / 1e6);
	return (buf);
}

/* --- the grant -------------------------------------------------------- */

static int
same_file(const struct stat *a, const struct stat *b)
{
	return (a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec);
}

/*
 * The check jh-decide makes (jh-decide(1), The ordered check): signature,
 * trust, then jh_grant_valid()'s revocation, audience, nbf/exp.  The grant
 * and the trust list are reloaded when their files change, by (dev,
 * inode, size, mtime).
 */
int
jh_px_grant_check(struct call *c, char *why, size_t sz)
{
	const struct opts *o = &c->px->o;
	struct gcache *g = &c->px->g;
	struct stat gst, tst;
	struct jh_err e;
	uint64_t now = jh_now_ms();
	int rc;

	pthread_mutex_lock(&g->mu);
	memset(&tst, 0, sizeof(tst));
	if (stat(o->grantfile, &gst) == -1) {
		snprintf(why, sz, "no grant: %s: %s", o->grantfile,
		    strerror(errno));
		rc = JH_D_NOGRANT;
		goto out;
	}
	(void)stat(o->trustfile, &tst);
	if (!g->loaded || !same_file(&gst, &g->gst) || !same_file(&tst,
	    &g->tst)) {
		if (g->loaded)
			jh_grant_free(&g->g);
		jh_keyset_free(&g->trust);
		jh_keyset_init(&g->trust);
		g->loaded = 1;
		g->gst = gst;
		g->tst = tst;
		if (access(o->trustfile, F_OK) == 0 &&
		    jh_keyset_load(&g->trust, o->trustfile, JH_ROLE_ISSUER,
		    &g->e) == -1) {
			g->rc = JH_D_GATEFAIL;
			memset(&g->g, 0, sizeof(g->g));
		} else
			g->rc = jh_grant_load(&g->g, o->grantfile, &g->trust,
			    &g->e);
	}
	if ((rc = g->rc) != 0) {
		snprintf(why, sz, "%s", g->e.msg);
		goto out;
	}
	memcpy(c->grant, g->g.ledger, JH_HASH_LEN);
	memcpy(c->grant_id, g->g.idtext, JH_ID_LEN);
	memcpy(c->ledger_id, g->g.ledgertext, JH_ID_LEN);
	c->budget = g->g.budget;
	c->have_grant = 1;
	/* A model call's refusal has never named the revoked grant. */
	if ((rc = jh_grant_valid(&g->g, o->revdir, o->host, now, &e)) != 0)
		snprintf(why, sz, "%s", rc == JH_D_REVOKED ?
		    "the grant is revoked" : e.msg);
out:
	pthread_mutex_unlock(&g->mu);
	return (rc);
}

/* --- the ledger ------------------------------------------------------- */

/*
 * Places the call's hold, or refuses when it does not fit: under the
 * ledger's lock, on this thread's own open file description, then
 * unlocked before anything goes on the network.  Returns 0 held, 1 over
 * budget, -1 could not (why says which).
 */
int
jh_px_hold(struct call *c, char *why, size_t sz)
{
	const struct opts *o = &c->px->o;
	struct jh_ledger *l;
	struct jh_err e;
	uint64_t rem;
	int fd, rc = -1;

	if ((fd = jh_ledger_open(o->ledgerdir, c->grant, 0, NULL, &e)) == -1) {
		snprintf(why, sz, "%s", e.msg);
		return (-1);
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		snprintf(why, sz, "out of memory");
		return (-1);
	}
	if (jh_tflock(fd, LOCK_EX, o->wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1) {
		snprintf(why, sz, "ledger: %s", e.msg);
		goto out;
	}
	if (memcmp(l->grant, c->grant, JH_HASH_LEN) != 0) {
		snprintf(why, sz, "ledger: not this grant's");
		goto out;
	}
	l->budget_uj = c->budget;
	jh_ledger_reap(l, jh_now_ms());
	rem = jh_ledger_remaining(l);
	c->remaining = rem;
	c->have_remaining = 1;
	if (c->hold > rem && jh_px_limit(c, rem) != 1) {
		rc = 1;
		goto out;
	}
	if (jh_ledger_hold(l, c->id, c->hold, (int)getpid(), jh_now_ms(),
	    &e) == -1) {
		snprintf(why, sz, "ledger: %s", e.msg);
		goto out;
	}
	if (jh_ledger_write(fd, l, 1, &e) == -1) {
		snprintf(why, sz, "%s", e.msg);
		goto out;
	}
	c->forwarded = 1;
	c->remaining = jh_ledger_remaining(l);
	rc = 0;
out:
	close(fd);			/* drops the lock */
	free(l);
	if (rc == 0 && hold_receipt(c, why, sz) == -1) {
		c->forwarded = 0;
		(void)ledger_settle(c, 0, 1);	/* or the proxy's exit does */
		rc = -1;
	}
	return (rc);
}

/*
 * Settles the hold to what was metered (or releases it), not synced: a
 * settlement lost to a crash leaves the hold, which the proxy's exit
 * settles at its worst case, so a lost one never lowers what is counted.
 */
static int
ledger_settle(struct call *c, uint64_t debit, int release)
{
	const struct opts *o = &c->px->o;
	struct jh_ledger *l;
	struct jh_err e;
	int fd, rc = -1;

	if ((fd = jh_ledger_open(o->ledgerdir, c->grant, 0, NULL, &e)) == -1) {
		jh_px_log("%s: cannot settle: %s", c->id, e.msg);
		return (-1);
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		close(fd);
		return (-1);
	}
	if (jh_tflock(fd, LOCK_EX, o->wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1 ||
	    jh_ledger_settle(l, c->id, (int)getpid(), debit, release,
	    jh_now_ms(), &e) ==
	    -1 || jh_ledger_write(fd, l, 0, &e) == -1) {
		jh_px_log("%s: cannot settle: %s", c->id, e.msg);
		goto out;
	}
	c->remaining = jh_ledger_remaining(l);
	c->have_remaining = 1;
	rc = 0;
out:
	close(fd);
	free(l);
	return (rc);
}

/* --- receipts --------------------------------------------------------- */

/* Seals a core and appends it to the session's log. */
static int
chain_receipt(const struct opts *o, json_t *core, int kind,
    const char *session, int sync, struct jh_err *e)
{
	uint64_t cut;
	int rc;

	rc = jh_seal_chain(core, kind, &o->key, &o->keys, o->statedir,
	    session, o->wait_ms, sync, &cut, e);
	if (cut > 0)
		jh_px_log("the log of session %s: cut a torn tail of %llu bytes",
		    session, (unsigned long long)cut);
	if (rc == -1)
		jh_px_log("receipt not chained: %s", e->msg);
	return (rc);
}

/*
 * The call's receipts to disk, after its client has the answer: the
 * settlement's efficiency/1 and the hold/1 before it, in one fsync that
 * concurrent calls on the log share.  The line logged says when a
 * receipt could not be synced; the ledger's synced hold still counts
 * the call at its worst case until then.
 */
void
jh_px_sync(struct call *c)
{
	struct jh_err e;

	if (!c->sync_due)
		return;
	c->sync_due = 0;
	if (jh_seal_sync(c->px->o.statedir, c->session, &e) == -1)
		jh_px_log("%s: receipt not synced: %s", c->id, e.msg);
}

/*
 * The hold's hold/1, written into the session's log before the call goes
 * upstream (joulehook-formats(5), hold/1): the write-ahead record a
 * ledger is rebuilt from.  Its fsync is the settlement's, which follows
 * on the same log; the ledger's hold is synced already.  A hold that
 * cannot be written is not placed: the call does not go upstream.
 */
static int
hold_receipt(struct call *c, char *why, size_t sz)
{
	struct jh_err e;
	json_t *o;
	int rc;

	if (c->session[0] == '\0')
		return (0);
	if ((o = json_object()) == NULL) {
		snprintf(why, sz, "out of memory");
		return (-1);
	}
	json_object_set_new(o, "session", json_string(c->session));
	json_object_set_new(o, "unit", json_string(c->id));
	json_object_set_new(o, "source", json_string("proxy"));
	json_object_set_new(o, "grant", json_string(c->grant_id));
	if (strcmp(c->ledger_id, c->grant_id) != 0)
		json_object_set_new(o, "ledger", json_string(c->ledger_id));
	json_object_set_new(o, "held_uj", json_integer((json_int_t)c->hold));
	if (c->model[0] != '\0')
		json_object_set_new(o, "model", json_string(c->model));
	json_object_set_new(o, "remaining_uj",
	    json_integer((json_int_t)c->remaining));
	if (c->lim_sent > 0) {
		json_object_set_new(o, "limit_asked",
		    json_integer((json_int_t)c->lim_asked));
		json_object_set_new(o, "limit_sent",
		    json_integer((json_int_t)c->lim_sent));
	}
	rc = chain_receipt(&c->px->o, o, JH_KIND_HOLD, c->session,
	    JH_SEAL_WRITE, &e);
	json_decref(o);
	if (rc == -1) {
		snprintf(why, sz, "the hold's receipt cannot be written: %s",
		    e.msg);
		return (-1);
	}
	c->hold_sealed = 1;
	return (0);
}

/* What a call's end found, from its metering to its log line. */
struct tally {
	struct jh_usage u;		/* the tokens, read or estimated */
	struct jh_energy en;
	uint64_t debit;			/* what the hold settled to */
	uint64_t dur;			/* ms, since the request came in */
	int estimated;			/* the tokens are (partly) estimated */
	const char *verdict;
};

/*
 * The tokens a forwarded call used: the provider's usage, or where it
 * is missing, refused or cut short, an estimate (a missing usage is
 * never 0 J); none when the request never reached the provider.
 */
static void
tokens_used(struct call *c, struct tally *t)
{
	uint64_t est_out;
	int reached;

	/* Did the request reach the provider?  Not if it never connected. */
	reached = c->headers_done || !(c->result == CURLE_COULDNT_CONNECT ||
	    c->result == CURLE_COULDNT_RESOLVE_HOST ||
	    c->result == CURLE_COULDNT_RESOLVE_PROXY ||
	    c->result == CURLE_FAILED_INIT);
	if (!c->sse && c->headers_done && !c->copy_lost && c->up_done)
		jh_wire_body(&c->w, c->copy.p, c->copy.len, c->status);
	t->u = c->w.u;
	t->estimated = c->w.usage_bad || !t->u.have_in || !t->u.have_out ||
	    !c->w.done || c->w.out_provisional;
	/*
	 * An answer too large to copy was not read: its usage is missing,
	 * and everything relayed counts as output text.
	 */
	if (c->copy_lost) {
		t->estimated = 1;
		t->u.have_out = 0;
		c->w.text_bytes = c->lost_bytes > c->w.text_bytes ?
		    c->lost_bytes : c->w.text_bytes;
	}
	if (c->w.usage_bad) {
		memset(&t->u, 0, sizeof(t->u));
		est_out = (c->w.text_bytes + 3) / 4;
	} else
		est_out = t->u.out > (c->w.text_bytes + 3) / 4 ? t->u.out :
		    (c->w.text_bytes + 3) / 4;
	if (!reached) {
		memset(&t->u, 0, sizeof(t->u));
		t->estimated = 0;
	} else if (t->estimated) {
		if (!t->u.have_in)
			t->u.in = c->in_est;
		if (!c->w.done || !t->u.have_out || c->w.out_provisional)
			t->u.out = est_out;
		/*
		 * A client that left before the provider's usage came, or a
		 * successful answer without it: what the provider made unseen
		 * (reasoning, the rest of the answer) is not in the text
		 * relayed.  Leaving early is the client's choice, and so is
		 * a request for an answer without usage (Gemini's fields or
		 * alt=proto; a provider's answer always carries it): the call
		 * counts at its worst case.
		 */
		if ((c->client_gone || (c->status >= 200 && c->status < 300)) &&
		    (!t->u.have_out || c->w.out_provisional) &&
		    c->out_worst > t->u.out)
			t->u.out = c->out_worst;
	}
}

/*
 * Meters a forwarded call (its tokens, its energy, measured where -E
 * reads this machine's counters and no other call overlapped it) and
 * settles its hold to the greater figure.
 */
static void
meter(struct call *c, struct tally *t)
{
	struct jh_px *px = c->px;
	const struct opts *o = &px->o;
	struct jh_sample s1;

	tokens_used(c, t);
	if (o->ladder)
		jh_ladder_sample(&o->lad, &s1);
	else
		s1.t_ns = c->s0.t_ns + t->dur * 1000000;
	pthread_mutex_lock(&px->mu);
	if (px->starts != c->starts_at)
		c->overlapped = 1;
	px->inflight--;
	pthread_mutex_unlock(&px->mu);
	jh_ladder_energy(&t->en, o->ladder && !c->overlapped ? &o->lad :
	    NULL, &c->s0, &s1, 1, jh_tokens_uj(c->fam, &t->u),
	    o->default_mw);
	t->debit = t->en.measured && t->en.measured_uj > t->en.estimated_uj ?
	    t->en.measured_uj : t->en.estimated_uj;
	if (ledger_settle(c, t->debit, 0) == -1)
		t->debit = 0;
}

/* How a forwarded call ended, when its caller did not say. */
static const char *
verdict_of(const struct call *c, int estimated)
{
	if (c->client_gone || c->cut || c->idle || (c->up_done &&
	    c->result != CURLE_OK && c->headers_done) || (c->sse &&
	    c->status < 300 && !c->w.done && c->w.err[0] == '\0'))
		return ("partial");
	if (c->status >= 400 || c->w.err[0] != '\0' || !c->headers_done)
		return ("error");
	return (estimated ? "usage-estimated" : "ok");
}

/* What happened, for the receipt, when nothing named it before. */
static const char *
note_of(const struct call *c, uint64_t debit)
{
	if (c->client_gone)
		return ("client-disconnected");
	if (c->cut)
		return ("shutdown");
	if (c->idle)
		return ("upstream-idle");
	if (c->forwarded && !c->headers_done)
		return ("upstream-unreachable");
	if (c->up_done && c->result != CURLE_OK)
		return ("upstream-disconnected");
	if (c->w.err[0] != '\0')
		return (c->status >= 400 ? "upstream-error" : "stream-error");
	if (c->w.usage_bad)
		return ("usage-refused");
	if (c->forwarded && debit > c->hold)
		return ("overrun");
	return (NULL);
}

/*
 * The call's efficiency/1, chained into the session's log; its JSON is
 * lib/meter.c's, as jh-meter prints it.  Written before the client's
 * answer ends, synced (with the hold/1 before it) once it has:
 * jh_px_sync, from libmicrohttpd's completion callback.
 */
static void
seal_unit(struct call *c, const struct tally *t)
{
	const struct opts *o = &c->px->o;
	struct jh_unit x;
	struct jh_err e;
	json_t *unit;
	size_t i;
	int completed;

	completed = c->forwarded && c->w.done && c->w.err[0] == '\0' &&
	    !c->client_gone && !c->cut && c->status < 300;
	jh_unit_init(&x, c->session, "proxy");
	x.unit = c->w.id[0] ? c->w.id : c->id;
	for (i = 0; i < c->nrh; i++)
		if (strcasecmp(c->rh[i].name, "request-id") == 0 ||
		    strcasecmp(c->rh[i].name, "x-request-id") == 0)
			x.request_id = c->rh[i].value;
	x.limit_asked = c->lim_asked;
	x.limit_sent = c->lim_sent;
	x.hold = c->hold_sealed ? c->id : NULL;
	x.model = c->w.model[0] ? c->w.model : c->model;
	x.u = t->u;
	x.accepted = completed && jh_wire_accepted(&c->w) ? t->u.out : 0;
	x.en = t->en;
	snprintf(x.coeff, sizeof(x.coeff), "%s%s%s", o->coeffs.id,
	    c->fam ? "#" : "", c->fam ? c->fam->family : "");
	x.duration_ms = t->dur;
	x.completed = completed;
	x.verdict = t->verdict;
	x.enforced = strcmp(t->verdict, "refused") == 0 ||
	    (!c->clamped && t->debit <= c->hold);
	x.debited = t->debit;
	x.grant = c->have_grant ? c->grant_id : NULL;
	x.ledger = strcmp(c->ledger_id, c->grant_id) != 0 ? c->ledger_id :
	    NULL;
	x.have_remaining = c->have_remaining;
	x.remaining = c->remaining;
	x.status = c->answered > 0 ? (uint64_t)c->answered : 0;
	x.note = c->note;
	if ((unit = jh_unit_json(&x)) == NULL)
		return;
	if (chain_receipt(o, unit, JH_KIND_EFFICIENCY, c->session,
	    JH_SEAL_WRITE, &e) == 0)
		c->sync_due = 1;
	json_decref(unit);
}

/* One line, every figure with its grade: a reading, a model, an estimate. */
static void
log_call(const struct call *c, const struct tally *t)
{
	const struct jh_energy *en = &t->en;
	char b1[32], b2[32], b3[32];

	jh_px_log("%.8s %s %s %d %s%s%s in=%llu out=%llu cr=%llu cw=%llu%s "
	    "energy=%s (%s) debit=%s remaining=%s %llu ms",
	    c->session[0] ? c->session : "-", c->route == R_MODELS ? "GET" :
	    "POST", c->path, c->answered, t->verdict, c->note ? "/" : "",
	    c->note ? c->note : "", (unsigned long long)t->u.in,
	    (unsigned long long)t->u.out, (unsigned long long)t->u.cache_read,
	    (unsigned long long)t->u.cache_write,
	    t->estimated ? " (tokens estimated)" : "",
	    jh_px_joules(b1, sizeof(b1), en->measured ? en->measured_uj :
	    en->estimated_uj), en->measured ? "measured" :
	    strcmp(en->provenance, "ModelBased") == 0 ? "modelled" : "est",
	    jh_px_joules(b2, sizeof(b2), t->debit), c->have_remaining ?
	    jh_px_joules(b3, sizeof(b3), c->remaining) : "-",
	    (unsigned long long)t->dur);
}

/*
 * The call's end: meter it, settle its hold, chain its receipt and log
 * one line.  Runs once, on the connection's thread.
 */
void
jh_px_finish(struct call *c, const char *verdict)
{
	struct tally t;

	if (c->finished)
		return;
	c->finished = 1;
	memset(&t, 0, sizeof(t));
	t.dur = jh_mono_ms() - c->t0;
	t.en.provenance = "Estimator";
	t.en.method = "tokens";
	if (c->metered && c->forwarded) {
		meter(c, &t);
		if (verdict == NULL)
			verdict = verdict_of(c, t.estimated);
	} else if (verdict == NULL)
		verdict = !c->metered ? "passed" : "error";
	t.verdict = verdict;
	if (c->note == NULL)
		c->note = note_of(c, t.debit);
	if (c->session[0] != '\0' && c->metered)
		seal_unit(c, &t);
	log_call(c, &t);
}
