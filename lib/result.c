/*
 * joulehook: what ran, checked against what was decided (jh-result(1)).
 *
 * For an ActionEvent jh-normalize made of a host's post-tool event
 * (PostToolUse, PostToolUseFailure, PermissionDenied), the decision
 * receipt the session's log holds for the same tool_use_id is found,
 * the input that ran is compared with the input decided on (or the
 * rewrite's), a whole Read result is re-hashed against the decision's
 * content_id, the path a Write or Edit reports is checked, an ask's hold
 * is settled or released, and one result/1 record is written.  For an
 * event that ends a session (Stop, SessionEnd), with end set, every ask
 * of the session that no result answered is closed instead: the tool
 * never ran, the hold is released.  jh-result and jh-hook's fused path
 * both run jh_result_line(), so their records are the same bytes.
 */
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
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
#include "cbor.h"
#include "chain.h"
#include "cose.h"
#include "gate.h"
#include "hosts.h"
#include "json.h"
#include "ledger.h"
#include "paths.h"
#include "result.h"
#include "statefs.h"
#include "util.h"
#include "verify.h"

/* One line being answered. */
struct ctx {
	const struct jh_result_opts *o;
	struct jh_verifier v;
	struct jh_buf *out;	/* result/1 records, one a line */
	struct jh_buf *diag;	/* what to tell the person, one a line */
	int oom;
};

static int
diag(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A line of diagnostics; returns -1. */
static int
diag(struct ctx *c, const char *fmt, ...)
{
	char m[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	jh_buf_adds(c->diag, m);
	jh_buf_addc(c->diag, '\n');
	return (-1);
}

/* A session's log, mapped read-only, with its sidecar and index. */
struct log {
	const uint8_t *p;
	size_t n;
	int have;
	int head_ok;		/* the sidecar's head is the whole log's */
	struct jh_head head;
	int ifd;		/* the index, when head_ok says it is whole */
};

/* The decision found for a tool call. */
struct found {
	struct jh_arena a;
	struct jh_env ent, in;
	char entry_id[JH_ID_LEN];	/* of the chain/1 entry's bytes */
	int have;
};

/* One result being made. */
struct res {
	const char *status;
	const char *check;
	char reason[512];
	const char *answer;
	uint64_t debited;
	char content_id[JH_ID_LEN];
	int have_cid;
	int closed;	/* a result already closed the call (an ask) */
};

static const char *
sget(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return (json_is_string(v) ? json_string_value(v) : NULL);
}

static char *
text(const struct jh_cbor *v)
{
	char *s;

	if (v == NULL || v->type != JH_CBOR_TEXT)
		return (NULL);
	if ((s = malloc(v->len + 1)) == NULL)
		return (NULL);
	memcpy(s, v->p, v->len);
	s[v->len] = '\0';
	return (s);
}

/* Maps the session's log; no log is not an error (nothing was decided). */
/*
 * The sidecar and the index beside the log, read-only: the head counts
 * only when it names the end of the log as mapped, and the index only
 * when the head says every entry before it was filed.  Both are hints:
 * anything they name is checked again, and without them the log is read.
 */
static void
log_hints(struct log *l, int dfd, const char *name)
{
	char hname[JH_LOG_NAME + 8];
	struct jh_err e;
	int hfd;

	snprintf(hname, sizeof(hname), "%s.head", name);
	if ((hfd = jh_st_file(dfd, hname, &e)) == -1)
		return;
	l->head_ok = jh_head_read(&l->head, hfd) == 0 && l->head.end == l->n;
	close(hfd);
	if (!l->head_ok || l->head.idx_end != l->head.end)
		return;
	snprintf(hname, sizeof(hname), "%s.idx", name);
	l->ifd = jh_st_file(dfd, hname, &e);
}

/* Maps the session's log; no log is not an error (nothing was decided). */
static int
log_map(struct log *l, struct ctx *c, const char *session)
{
	struct jh_err e;
	struct stat st;
	char name[JH_LOG_NAME];
	int sfd, dfd, fd;

	memset(l, 0, sizeof(*l));
	l->ifd = -1;
	jh_log_name(name, (const uint8_t *)session, strlen(session));
	if ((sfd = jh_st_dir(AT_FDCWD, c->o->statedir, &e)) == -1)
		return (errno == ENOENT ? 0 : diag(c, "%s", e.msg));
	dfd = jh_st_dir(sfd, "logs", &e);
	close(sfd);
	if (dfd == -1)
		return (errno == ENOENT ? 0 : diag(c, "%s", e.msg));
	if ((fd = jh_st_file(dfd, name, &e)) == -1) {
		close(dfd);
		return (errno == ENOENT ? 0 : diag(c, "%s", e.msg));
	}
	if (fstat(fd, &st) == -1) {
		diag(c, "%s: %s", name, strerror(errno));
		close(fd);
		close(dfd);
		return (-1);
	}
	l->have = 1;
	if (st.st_size > 0) {
		l->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    fd, 0);
		if (l->p == MAP_FAILED) {
			diag(c, "%s: mmap: %s", name, strerror(errno));
			close(fd);
			close(dfd);
			return (-1);
		}
		l->n = (size_t)st.st_size;
	}
	close(fd);
	log_hints(l, dfd, name);
	close(dfd);
	return (0);
}

static void
log_unmap(struct log *l)
{
	if (l->n > 0)
		munmap((void *)l->p, l->n);
	if (l->ifd != -1)
		close(l->ifd);
	memset(l, 0, sizeof(*l));
	l->ifd = -1;
}

/*
 * Calls fn for each complete entry of the log whose bytes hold needle
 * (most entries are skipped by a memmem alone); stops at a partial tail.
 */
static void
log_each(const struct log *l, const void *needle, size_t nlen,
    void (*fn)(void *, const uint8_t *, size_t), void *arg)
{
	struct jh_err e;
	size_t off = 0, len;

	while (off < l->n) {
		if (jh_cbor_item_len(&len, l->p + off, l->n - off, &e) !=
		    JH_CBOR_OK)
			break;
		if (memmem(l->p + off, len, needle, nlen) != NULL)
			fn(arg, l->p + off, len);
		off += len;
	}
}

/* Parses an entry and its receipt, unverified; 0 when both parse. */
static int
entry_parse(struct jh_arena *a, struct jh_env *ent, struct jh_env *in,
    const uint8_t *p, size_t n)
{
	struct jh_err e;
	const struct jh_cbor *rc;

	if (jh_env_parse(ent, a, p, n, &e) == -1 ||
	    strcmp(ent->kind, "chain/1") != 0 ||
	    (rc = jh_cbor_get(ent->core, "receipt")) == NULL ||
	    rc->type != JH_CBOR_BYTES ||
	    jh_env_parse(in, a, rc->p, rc->len, &e) == -1)
		return (-1);
	return (0);
}

struct find_ctx {
	struct ctx *x;
	const char *session;
	const char *call;
	const char *rewritten;	/* or: the rewrite whose updated_digest */
	struct found *f;
	int results;		/* result/1 receipts already for the call */
};

/* Keeps the last verified decision/1 of the session for the call. */
static void
find_one(void *arg, const uint8_t *p, size_t n)
{
	struct find_ctx *c = arg;
	struct jh_arena a;
	struct jh_env ent, in;
	struct jh_err e;

	jh_arena_init(&a);
	if (entry_parse(&a, &ent, &in, p, n) == -1 ||
	    (c->rewritten != NULL ? !jh_cbor_text_is(jh_cbor_get(in.core,
	    "updated_digest"), c->rewritten) || !jh_cbor_text_is(
	    jh_cbor_get(in.core, "verdict"), "rewrite") :
	    !jh_cbor_text_is(jh_cbor_get(in.core, "tool_use_id"), c->call)) ||
	    !jh_cbor_text_is(jh_cbor_get(in.core, "session"), c->session) ||
	    !jh_cbor_text_is(jh_cbor_get(ent.core, "session"), c->session))
		goto out;
	if (strcmp(in.kind, "result/1") == 0) {
		c->results++;
		goto out;
	}
	if (strcmp(in.kind, "decision/1") != 0)
		goto out;
	/* Only what our stewards signed counts. */
	jh_arena_free(&a);
	jh_arena_init(&a);
	{
		struct jh_verifier *v = &c->x->v;
		const struct jh_cbor *rc;
		if (jh_verify_env(v, &ent, &a, p, n, &e) == -1 ||
		    strcmp(ent.kind, "chain/1") != 0 ||
		    (rc = jh_cbor_get(ent.core, "receipt")) == NULL ||
		    jh_verify_env(v, &in, &a, rc->p, rc->len, &e) == -1) {
			diag(c->x, "a decision for %s does not verify: %s",
			    c->call, e.msg);
			goto out;
		}
	}
	if (c->f->have)
		jh_arena_free(&c->f->a);
	c->f->a = a;
	c->f->ent = ent;
	c->f->in = in;
	jh_sha256_id(c->f->entry_id, p, n);
	c->f->have = 1;
	return;
out:
	jh_arena_free(&a);
}

/* Counts the session's result/1 receipts for the call. */
static void
result_one(void *arg, const uint8_t *p, size_t n)
{
	struct find_ctx *c = arg;
	struct jh_arena a;
	struct jh_env ent, in;

	jh_arena_init(&a);
	if (entry_parse(&a, &ent, &in, p, n) == 0 &&
	    strcmp(in.kind, "result/1") == 0 &&
	    jh_cbor_text_is(jh_cbor_get(in.core, "tool_use_id"), c->call) &&
	    jh_cbor_text_is(jh_cbor_get(in.core, "session"), c->session) &&
	    jh_cbor_text_is(jh_cbor_get(ent.core, "session"), c->session))
		c->results++;
	jh_arena_free(&a);
}

/*
 * The last decision filed under key: the one entry the index names, when
 * it is whole and the entry is that decision; else every entry of the
 * log that holds the key's bytes.
 */
static void
log_find(const struct log *l, const char *kind, const char *key,
    struct find_ctx *c)
{
	uint64_t off;
	uint32_t len;

	if (l->ifd != -1 && jh_idx_get(l->ifd, kind, key, &off, &len) == 0 &&
	    off < l->n && len <= l->n - off) {
		find_one(c, l->p + off, len);
		if (c->f->have)
			return;
	}
	log_each(l, key, strlen(key), find_one, c);
}

/*
 * Settles (the tool ran: the human said yes) or releases (it did not)
 * the hold an ask placed, under the ledger's lock.
 */
/* The ledger a decision spent on: its ledger, else its grant's. */
static const struct jh_cbor *
spends(const struct jh_cbor *core)
{
	const struct jh_cbor *v;

	if ((v = jh_cbor_get(core, "ledger")) != NULL)
		return (v);
	return (jh_cbor_get(core, "grant"));
}

static void
settle(struct ctx *c, struct res *r, const struct jh_cbor *grant,
    const char *call, uint64_t amount, int release)
{
	struct jh_ledger *l;
	struct jh_err e;
	uint8_t g[JH_HASH_LEN];
	int fd;

	if (grant == NULL || grant->len != 71 ||
	    jh_unhex(g, sizeof(g), (const char *)grant->p + 7, 64) == -1)
		return;
	if ((fd = jh_ledger_open(c->o->ledgerdir, g, 0, NULL, &e)) == -1) {
		diag(c, "ledger: %s", e.msg);
		return;
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		c->oom = 1;
		close(fd);
		return;
	}
	if (jh_flock(fd, LOCK_EX, c->o->wait_ms, &e) == -1 ||
	    jh_ledger_read(l, fd, &e) == -1)
		diag(c, "ledger: %s", e.msg);
	else if (memcmp(l->grant, g, sizeof(g)) != 0)
		diag(c, "ledger: not the grant's");
	else if (jh_ledger_settle(l, call, 0, amount, release, jh_now_ms(),
	    &e) == -1) {
		size_t k = strlen(r->reason);
		if (!release && r->closed) {
			/*
			 * It ran after a result released its hold: it is
			 * paid for now, whatever released it.
			 */
			jh_ledger_debit(l, call, amount, jh_now_ms());
			if (jh_ledger_write(fd, l, 1, &e) == -1)
				diag(c, "ledger: %s", e.msg);
			else
				r->debited = amount;
			snprintf(r->reason + k, sizeof(r->reason) - k, "; its "
			    "cost is debited now, as its hold was released");
		} else
			/* Reaped at its time-to-live: it was debited then. */
			snprintf(r->reason + k, sizeof(r->reason) - k, "; the "
			    "ask's hold had already settled in full");
	} else if (jh_ledger_write(fd, l, 1, &e) == -1)
		diag(c, "ledger: %s", e.msg);
	else if (!release)
		r->debited = amount;
	close(fd);
	free(l);
}

/*
 * A subagent's ask held its cost on every ledger of its chain (the
 * decision's chain, own first): each is settled or released alike.
 */
static void
settle_all(struct ctx *c, struct res *r, const struct jh_cbor *core,
    const char *call, uint64_t amount, int release)
{
	const struct jh_cbor *own = spends(core), *ch = jh_cbor_get(core,
	    "chain");
	struct res other;
	size_t i;

	settle(c, r, own, call, amount, release);
	if (ch == NULL || ch->type != JH_CBOR_ARRAY)
		return;
	for (i = 0; i < ch->len; i++) {
		if (own != NULL && ch->v[i].len == own->len &&
		    memcmp(ch->v[i].p, own->p, own->len) == 0)
			continue;
		memset(&other, 0, sizeof(other));
		other.closed = r->closed;
		settle(c, &other, &ch->v[i], call, amount, release);
	}
}

/* The decision's array of texts k, copied into the result as it is. */
static void
copy_texts(json_t *o, const struct jh_cbor *core, const char *k)
{
	const struct jh_cbor *v = jh_cbor_get(core, k);
	json_t *a;
	size_t i;

	if (v == NULL || v->type != JH_CBOR_ARRAY || (a = json_array()) ==
	    NULL)
		return;
	for (i = 0; i < v->len; i++)
		json_array_append_new(a, json_stringn((const char *)v->v[i].p,
		    v->v[i].len));
	json_object_set_new(o, k, a);
}

static void
emit(struct ctx *c, const json_t *ev, const char *tool, const char *cls, const char *dg,
    const struct found *f, const struct res *r, const char *event)
{
	json_t *o = json_object();
	const struct jh_cbor *v;
	char *s;

	json_object_set_new(o, "session", json_string(sget(ev, "session_id")));
	json_object_set_new(o, "tool_use_id",
	    json_string(sget(ev, "tool_use_id")));
	json_object_set_new(o, "host", json_string(sget(ev, "host")));
	json_object_set_new(o, "event", json_string(event));
	json_object_set_new(o, "tool", json_string(tool));
	json_object_set_new(o, "class", json_string(cls));
	json_object_set_new(o, "input_digest", json_string(dg));
	json_object_set_new(o, "status", json_string(r->status));
	json_object_set_new(o, "check", json_string(r->check));
	json_object_set_new(o, "reason", json_string(r->reason));
	if (f->have) {
		json_object_set_new(o, "decision", json_string(f->entry_id));
		if ((s = text(jh_cbor_get(f->in.core, "verdict"))) != NULL)
			json_object_set_new(o, "decided", json_string(s));
		free(s);
		if ((s = text(jh_cbor_get(f->in.core, "grant"))) != NULL)
			json_object_set_new(o, "grant", json_string(s));
		free(s);
		if ((s = text(jh_cbor_get(f->in.core, "ledger"))) != NULL)
			json_object_set_new(o, "ledger", json_string(s));
		free(s);
		if ((v = jh_cbor_get(f->in.core, "outcome")) != NULL &&
		    v->type == JH_CBOR_UINT && v->u == 1)
			json_object_set_new(o, "outcome", json_integer(1));
		copy_texts(o, f->in.core, "chain");
		copy_texts(o, f->in.core, "target");
	}
	if (r->have_cid)
		json_object_set_new(o, "content_id",
		    json_string(r->content_id));
	if (r->answer != NULL)
		json_object_set_new(o, "answer", json_string(r->answer));
	json_object_set_new(o, "debited_uj", json_integer((json_int_t)
	    (r->debited > (uint64_t)INT64_MAX ? INT64_MAX : r->debited)));
	if (ev != NULL) {
		json_t *x = json_object_get(ev, "response");
		char rd[JH_ID_LEN];
		struct jh_err e;
		if (x != NULL && jh_input_digest(rd, x, &e) == 0)
			json_object_set_new(o, "response_digest",
			    json_string(rd));
		if (json_is_integer(json_object_get(ev, "duration_ms")))
			json_object_set(o, "duration_ms",
			    json_object_get(ev, "duration_ms"));
	}
	if ((s = json_dumps(o, JSON_COMPACT)) == NULL)
		c->oom = 1;
	else {
		jh_buf_adds(c->out, s);
		jh_buf_addc(c->out, '\n');
	}
	free(s);
	json_decref(o);
}

static void
rsay(struct res *r, const char *check, const char *fmt, const char *a)
{
	r->check = check;
	snprintf(r->reason, sizeof(r->reason), fmt, a);
}

/* A Read's bytes re-hashed against the decision's content_id. */
static void
check_read(struct res *r, const struct found *f, const struct jh_host *h,
    const json_t *resp, const char *tool)
{
	const struct jh_cbor *cid = jh_cbor_get(f->in.core, "content_id");
	const char *p, *path;
	size_t n;
	int x = h->read_text(resp, &p, &n, &path);

	if (x == 1) {
		jh_sha256_id(r->content_id, (const uint8_t *)p, n);
		r->have_cid = 1;
		if (cid != NULL && !jh_cbor_text_is(cid, r->content_id))
			rsay(r, "content-mismatch", "%s returned bytes that "
			    "are not the ones decided on (the file changed "
			    "after the decision): withheld", tool);
		else if (cid == NULL)
			rsay(r, "match", "%s ran as decided; the decision had "
			    "no content_id to compare with", tool);
	} else if (x == 0)
		rsay(r, "match", "%s ran as decided; a partial or non-text "
		    "result is not re-hashed", tool);
}

/* The path a Write or Edit reports, against the decision's target. */
static void
check_written(struct res *r, const struct found *f, const struct jh_host *h,
    const json_t *ev, const json_t *resp, const char *tool)
{
	const struct jh_cbor *t = jh_cbor_get(f->in.core, "target");
	const char *wp = h->written_path(resp);
	const char *cwd = sget(ev, "cwd");
	char rp[PATH_MAX];
	struct jh_err e;

	if (wp != NULL && t != NULL && t->type == JH_CBOR_ARRAY &&
	    t->len > 0 && (cwd == NULL || jh_path_resolve(rp, sizeof(rp), cwd,
	    wp, &e) == -1 || !jh_cbor_text_is(&t->v[0], rp)))
		rsay(r, "target-mismatch", "%s wrote a path that is not the "
		    "one decided on", tool);
}

/*
 * What ran against its decision f: the verdict, the input (or the
 * rewrite's), and for a Read or a Write what it returned; an ask's hold
 * is settled (it ran) or released (the host refused it).
 */
static void
check_ran(struct ctx *x, struct res *r, const struct found *f,
    const json_t *ev, const struct jh_host *h, const char *dg)
{
	const char *status = r->status, *call = sget(ev, "tool_use_id");
	const char *tool = sget(ev, "tool"), *cls = sget(ev, "class");
	const json_t *resp = json_object_get(ev, "response");
	const struct jh_cbor *verdict = jh_cbor_get(f->in.core, "verdict");
	const struct jh_cbor *want = jh_cbor_get(f->in.core,
	    jh_cbor_text_is(verdict, "rewrite") ? "updated_digest" :
	    "input_digest");
	int ok = strcmp(status, "ok") == 0;
	int same = jh_cbor_text_is(jh_cbor_get(f->in.core, "tool"), tool) &&
	    jh_cbor_text_is(jh_cbor_get(f->in.core, "class"), cls);

	if (jh_cbor_text_is(verdict, "ask"))
		r->answer = strcmp(status, "denied") == 0 ? "refused" :
		    "approved";
	/* a decision for one tool never covers another's run */
	if (!same && strcmp(status, "denied") != 0) {
		rsay(r, "not-allowed", "%s ran under the tool_use_id of a "
		    "decision for another tool", tool);
		return;
	}
	if (jh_cbor_text_is(verdict, "deny")) {
		rsay(r, "not-allowed", "%s ran although its decision was "
		    "deny", tool);
		if (strcmp(status, "denied") == 0)
			rsay(r, "match", "%s was denied, as decided", tool);
		return;
	}
	if (!jh_cbor_text_is(want, dg))
		rsay(r, "input-mismatch", "the input %s ran is not the one "
		    "decided on (another hook or the host changed it after "
		    "the decision)", tool);
	else {
		rsay(r, "match", "%s ran as decided", tool);
		if (strcmp(status, "denied") == 0)
			rsay(r, "match", "%s was refused by the host's "
			    "permission check", tool);
		else if (strcmp(cls, "read") == 0 && ok &&
		    h->read_text != NULL && resp != NULL)
			check_read(r, f, h, resp, tool);
		else if ((strcmp(cls, "write") == 0 || strcmp(cls,
		    "edit") == 0) && ok && h->written_path != NULL &&
		    resp != NULL)
			check_written(r, f, h, ev, resp, tool);
	}
	/* an ask a result closed as never run or refused, run after all */
	if (jh_cbor_text_is(verdict, "ask") && r->closed &&
	    strcmp(status, "denied") != 0)
		rsay(r, "not-allowed", "%s ran after a result had closed its "
		    "ask as refused or never run", tool);
	if (jh_cbor_text_is(verdict, "ask"))
		settle_all(x, r, f->in.core, call, jh_cbor_get(f->in.core,
		    "cost_uj")->u, strcmp(status, "denied") == 0);
}

/* One post-tool event. */
static int
post(struct ctx *x, const json_t *ev, const struct jh_host *h,
    const char *status)
{
	struct found f;
	struct find_ctx c;
	struct log l;
	struct res r;
	struct jh_err e;
	const char *session = sget(ev, "session_id");
	const char *call = sget(ev, "tool_use_id");
	const char *tool = sget(ev, "tool"), *cls = sget(ev, "class");
	const char *event = sget(ev, "event");
	const json_t *input = json_object_get(ev, "input");
	const struct jh_host *eh;
	char dg[JH_ID_LEN];

	if (session == NULL || call == NULL || tool == NULL || cls == NULL ||
	    !json_is_object(input) || jh_input_digest(dg, input, &e) == -1)
		return (diag(x, "a %s event without session_id, tool_use_id, "
		    "tool, class and an input object", event));
	memset(&f, 0, sizeof(f));
	memset(&r, 0, sizeof(r));
	r.status = status;
	if (log_map(&l, x, session) == -1)
		return (-1);
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.session = session;
	c.call = call;
	c.f = &f;
	log_find(&l, JH_IDX_CALL, call, &c);
	if (!f.have && strncmp(call, "jh-", 3) == 0) {
		/*
		 * A call id derived from the input (a host that sends none):
		 * after a rewrite the host reports the input it ran, the
		 * rewritten one, whose id is another; its decision is the
		 * rewrite to exactly that input.
		 */
		c.rewritten = dg;
		log_find(&l, JH_IDX_REWRITE, dg, &c);
	}
	if (!f.have)
		rsay(&r, "no-receipt", "%s ran with no decision receipt for "
		    "its tool_use_id in the session's log: the gate did not "
		    "run for it (a hook that failed open, or one removed)",
		    tool);
	else {
		/* an ask's call: whether a result closed it already */
		if (jh_cbor_text_is(jh_cbor_get(f.in.core, "verdict"),
		    "ask")) {
			c.results = 0;
			log_each(&l, call, strlen(call), result_one, &c);
			r.closed = c.results > 0;
		}
		check_ran(x, &r, &f, ev, h, dg);
	}
	/*
	 * What ran is not what was decided, on a host that cannot end the
	 * run now: the gate denies the session from here on.
	 */
	eh = sget(ev, "host") != NULL ? jh_host_lookup(sget(ev, "host")) :
	    NULL;
	if (r.check != NULL && strcmp(r.check, "match") != 0 && eh != NULL &&
	    !eh->can_stop && jh_session_stop(x->o->statedir, session,
	    &e) == -1)
		diag(x, "cannot stop the session: %s", e.msg);
	emit(x, ev, tool, cls, dg, &f, &r, event);
	if (f.have)
		jh_arena_free(&f.a);
	log_unmap(&l);
	return (0);
}

/* The asks of a session, and the calls a result answered. */
struct asks {
	struct ctx *x;
	const char *session;
	char **answered;
	size_t na, ca;
	struct found *f;
	size_t nf, cf;
};

static void
asks_one(void *arg, const uint8_t *p, size_t n)
{
	struct asks *s = arg;
	struct jh_arena a;
	struct jh_env ent, in;
	struct jh_err e;
	const struct jh_cbor *rc, *id;

	jh_arena_init(&a);
	if (entry_parse(&a, &ent, &in, p, n) == -1 ||
	    !jh_cbor_text_is(jh_cbor_get(ent.core, "session"), s->session) ||
	    (id = jh_cbor_get(in.core, "tool_use_id")) == NULL ||
	    id->type != JH_CBOR_TEXT)
		goto out;
	if (strcmp(in.kind, "result/1") == 0) {
		if (s->na == s->ca) {
			s->ca = s->ca ? 2 * s->ca : 16;
			void *n = reallocarray(s->answered, s->ca,
			    sizeof(*s->answered));
			if (n == NULL) {
				s->x->oom = 1;
				goto out;
			}
			s->answered = n;
		}
		s->answered[s->na++] = text(id);
		goto out;
	}
	if (strcmp(in.kind, "decision/1") != 0 ||
	    !jh_cbor_text_is(jh_cbor_get(in.core, "verdict"), "ask"))
		goto out;
	jh_arena_free(&a);
	jh_arena_init(&a);
	if (jh_verify_env(&s->x->v, &ent, &a, p, n, &e) == -1 ||
	    (rc = jh_cbor_get(ent.core, "receipt")) == NULL ||
	    jh_verify_env(&s->x->v, &in, &a, rc->p, rc->len, &e) == -1) {
		diag(s->x, "an ask does not verify: %s", e.msg);
		goto out;
	}
	if (s->nf == s->cf) {
		s->cf = s->cf ? 2 * s->cf : 16;
		void *nf = reallocarray(s->f, s->cf, sizeof(*s->f));
		if (nf == NULL) {
			s->x->oom = 1;
			goto out;
		}
		s->f = nf;
	}
	s->f[s->nf].a = a;
	s->f[s->nf].ent = ent;
	s->f[s->nf].in = in;
	jh_sha256_id(s->f[s->nf].entry_id, p, n);
	s->f[s->nf++].have = 1;
	return;
out:
	jh_arena_free(&a);
}

/* The session ended: every ask no result answered never ran. */
static int
end(struct ctx *x, const json_t *ev)
{
	static const uint8_t ask[] = "\x67verdict\x63" "ask";
	static const uint8_t res[] = "\x68result/1";
	struct asks s;
	struct log l;
	const char *session = sget(ev, "session_id");
	const char *event = sget(ev, "event");
	size_t i, k;

	if (session == NULL)
		return (diag(x, "a %s event without a session_id", event));
	if (log_map(&l, x, session) == -1)
		return (-1);
	if (l.head_ok && l.head.n_ask == 0) {
		/* the whole log holds no ask: there is none to close */
		log_unmap(&l);
		return (0);
	}
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.session = session;
	log_each(&l, res, sizeof(res) - 1, asks_one, &s);
	log_each(&l, ask, sizeof(ask) - 1, asks_one, &s);
	for (i = 0; i < s.nf; i++) {
		struct found *f = &s.f[i];
		struct res r;
		char *call = text(jh_cbor_get(f->in.core, "tool_use_id"));
		char *tool = text(jh_cbor_get(f->in.core, "tool"));
		char *cls = text(jh_cbor_get(f->in.core, "class"));
		char *dg = text(jh_cbor_get(f->in.core, "input_digest"));
		int done = call == NULL;
		if (call == NULL)
			x->oom = 1;
		for (k = 0; k < s.na && !done; k++)
			done = s.answered[k] != NULL &&
			    strcmp(s.answered[k], call) == 0;
		if (!done && tool != NULL && cls != NULL && dg != NULL) {
			json_t *e = json_pack("{s:s, s:s, s:s}",
			    "session_id", session, "tool_use_id", call,
			    "host", sget(ev, "host") ? sget(ev, "host") : "");
			memset(&r, 0, sizeof(r));
			r.status = "not-run";
			r.check = "match";
			r.answer = "refused";
			snprintf(r.reason, sizeof(r.reason), "%s was asked "
			    "about and never ran before the session ended",
			    tool);
			settle_all(x, &r, f->in.core, call, 0, 1);
			emit(x, e, tool, cls, dg, f, &r, event);
			json_decref(e);
		}
		free(call);
		free(tool);
		free(cls);
		free(dg);
		jh_arena_free(&f->a);
	}
	for (k = 0; k < s.na; k++)
		free(s.answered[k]);
	free(s.answered);
	free(s.f);
	log_unmap(&l);
	return (0);
}


int
jh_result_line(struct jh_buf *out, struct jh_buf *diags,
    const struct jh_result_opts *o, const char *line, size_t len)
{
	struct ctx c;
	const struct jh_host *h;
	const char *event, *status, *hn;
	struct jh_err e;
	json_t *ev;
	int rc = -1;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.out = out;
	c.diag = diags;
	jh_verifier_init(&c.v, o->keys);
	if ((ev = jh_json_parse(line, len, &e)) == NULL)
		return (diag(&c, "malformed event: %s", e.msg));
	if (!json_is_object(ev) || (event = sget(ev, "event")) == NULL ||
	    (hn = sget(ev, "host")) == NULL)
		diag(&c, "not an ActionEvent (no event or host)");
	else if ((h = jh_host_lookup(hn)) == NULL)
		diag(&c, "unknown host %s", hn);
	else if ((status = jh_host_post_status(h, event)) != NULL)
		rc = post(&c, ev, h, status);
	else if (o->end)
		rc = end(&c, ev);
	else
		diag(&c, "%s is not a post-tool event of %s (-e closes a "
		    "session)", event, hn);
	json_decref(ev);
	if (c.oom || out->oom)
		rc = diag(&c, "out of memory");
	return (rc);
}
