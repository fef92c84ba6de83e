/*
 * joulehook: jh-status's MCP server (jh-status(1), The MCP server):
 * JSON-RPC 2.0 over newline-delimited JSON on stdio, for the sessions
 * whose pinned root is the project root.  Each receipt is a resource,
 * read by offset, with its decoded JSON and its raw CBOR; the verify tool
 * checks whole logs.  Bad messages get JSON-RPC errors, notifications
 * no answer; EOF ends the server.
 */
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
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
#include "checkpoint.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "mcp.h"
#include "status.h"
#include "util.h"
#include "verify.h"

#define MCP_MAX_LINE	(1u << 20)	/* one request, in bytes */

#define PAGE		100		/* resources per resources/list page */
#define WATCH_MS	1000		/* how often idle, the list is checked */
#define URI_PREFIX	"joulehook://session/"

/* The offsets of a session's entries found so far: off[i] for i <= n. */
struct sidx {
	char digest[2 * JH_HASH_LEN + 1];
	uint64_t *off;
	size_t n;
	size_t cap;
};

struct mcp {
	const struct jh_stctx *o;
	FILE *out;
	int dead;		/* the output failed */
	struct jh_err e;
	struct sidx *ix;
	size_t nix;
	int open;		/* initialize or server/discover answered */
	int listed;		/* a first page of resources/list answered */
	int notified;		/* list_changed sent since */
	uint64_t fp;		/* the list's fingerprint when last listed */
};

struct rpcerr {
	int code;
	char msg[256];
};

static const char *const versions[] = { "2025-11-25", "2025-06-18",
    "2025-03-26", "2024-11-05", NULL };

static json_t *
jstr(const char *s)
{
	json_t *j = json_string(s);

	return (j != NULL ? j : json_string("(not UTF-8)"));
}

static json_t *
jstrn(const void *p, size_t n)
{
	json_t *j = json_stringn(p, n);

	return (j != NULL ? j : json_string("(not UTF-8)"));
}

/* Writes one message; a write error ends the server. */
static void
send_msg(struct mcp *m, json_t *msg)
{
	char *s = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;

	if (s == NULL)
		m->dead = jh_errf(&m->e, "out of memory");
	else if (!m->dead && (fputs(s, m->out) == EOF ||
	    putc('\n', m->out) == EOF || fflush(m->out) == EOF))
		m->dead = jh_errf(&m->e, "stdout: %s", strerror(errno));
	free(s);
	json_decref(msg);
}

static void
reply_err(struct mcp *m, json_t *id, int code, const char *msg)
{
	send_msg(m, json_pack("{s:s,s:O,s:{s:i,s:o}}", "jsonrpc", "2.0",
	    "id", id != NULL ? id : json_null(), "error", "code", code,
	    "message", jstr(msg)));
}

static json_t *
fail(struct rpcerr *re, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static json_t *
fail(struct rpcerr *re, int code, const char *fmt, ...)
{
	va_list ap;

	re->code = code;
	va_start(ap, fmt);
	vsnprintf(re->msg, sizeof(re->msg), fmt, ap);
	va_end(ap);
	return (NULL);
}

static json_t *
server_info(struct mcp *m)
{
	char text[PATH_MAX + 400];

	snprintf(text, sizeof(text), "joulehook receipts of the sessions "
	    "whose project root is %s. Each receipt is a resource "
	    URI_PREFIX "<session digest>/<seq>: its decoded JSON, as "
	    "jh-verify prints it, and the raw CBOR entry in base64. "
	    "The verify tool checks whole logs.", m->o->root);
	return (json_pack("{s:{s:{s:b},s:{}},s:{s:s,s:s,s:s},s:o}",
	    "capabilities", "resources", "listChanged", 1, "tools",
	    "serverInfo", "name",
	    "jh-status", "title", "joulehook receipts", "version", JH_VERSION,
	    "instructions", jstr(text)));
}

static json_t *
m_initialize(struct mcp *m, json_t *p, struct rpcerr *re)
{
	json_t *v = json_object_get(p, "protocolVersion"), *r;
	const char *want = versions[0];
	int i;

	if (!json_is_string(v))
		return (fail(re, -32602, "initialize needs protocolVersion"));
	for (i = 0; versions[i] != NULL; i++)
		if (strcmp(versions[i], json_string_value(v)) == 0)
			want = versions[i];
	r = server_info(m);
	json_object_set_new(r, "protocolVersion", json_string(want));
	m->open = 1;
	return (r);
}

static json_t *
m_discover(struct mcp *m, json_t *p, struct rpcerr *re)
{
	json_t *r = server_info(m), *a = json_array();
	int i;

	(void)p;
	(void)re;
	for (i = 0; versions[i] != NULL; i++)
		json_array_append_new(a, json_string(versions[i]));
	json_object_set_new(r, "supportedVersions", a);
	json_object_set_new(r, "protocolVersion", json_string(versions[0]));
	m->open = 1;
	return (r);
}

static json_t *
m_ping(struct mcp *m, json_t *p, struct rpcerr *re)
{
	(void)m;
	(void)p;
	(void)re;
	return (json_object());
}

static struct sidx *
index_of(struct mcp *m, const char *digest)
{
	struct sidx *x;
	size_t i;

	for (i = 0; i < m->nix; i++)
		if (strcmp(m->ix[i].digest, digest) == 0)
			return (&m->ix[i]);
	if ((x = realloc(m->ix, (m->nix + 1) * sizeof(*x))) == NULL)
		return (NULL);
	m->ix = x;
	x = &m->ix[m->nix];
	memset(x, 0, sizeof(*x));
	snprintf(x->digest, sizeof(x->digest), "%s", digest);
	if ((x->off = calloc(x->cap = 64, sizeof(*x->off))) == NULL)
		return (NULL);
	m->nix++;
	return (x);
}

/* Notes that entry n (the next unknown one) ends at end. */
static void
index_push(struct sidx *x, size_t n, uint64_t end)
{
	uint64_t *v;

	if (n != x->n)
		return;
	if (x->n + 2 > x->cap) {
		if ((v = realloc(x->off, 2 * x->cap * sizeof(*v))) == NULL)
			return;
		x->off = v;
		x->cap *= 2;
	}
	x->off[++x->n] = end;
}

/*
 * The offset of entry pos, scanning on from the last one known.
 * Returns 1 when the log holds it, 0 when not.
 */
static int
entry_off(struct sidx *x, int fd, uint64_t pos, uint64_t *off)
{
	struct jh_reader r;
	struct jh_err e;
	const uint8_t *item;
	size_t len;

	if (pos < x->n) {
		*off = x->off[pos];
		return (1);
	}
	if (lseek(fd, (off_t)x->off[x->n], SEEK_SET) == -1)
		return (0);
	jh_reader_init(&r, fd);
	r.offset = x->off[x->n];
	while (x->n <= pos && jh_reader_cbor(&r, &item, &len, &e) == 1) {
		size_t n0 = x->n;
		index_push(x, x->n, r.offset + r.pos);
		if (x->n == n0)
			break;
	}
	jh_reader_free(&r);
	if (pos < x->n) {
		*off = x->off[pos];
		return (1);
	}
	return (0);
}

static int
is_served(struct mcp *m, const char *digest)
{
	struct jh_buf d;
	struct jh_err e;
	size_t n, i;
	int found = 0;

	jh_buf_init(&d);
	if (jh_st_sessions(&d, &n, m->o, &e) == 0)
		for (i = 0; i < n && !found; i++)
			found = strcmp((const char *)d.p + i * (2 *
			    JH_HASH_LEN + 1), digest) == 0;
	jh_buf_free(&d);
	return (found);
}

/* A resource of one entry: its URI, a name and a title from its fields. */
static json_t *
entry_resource(const char *digest, uint64_t pos, const uint8_t *p,
    size_t n)
{
	struct jh_arena a;
	struct jh_env env, in;
	struct jh_err e;
	const struct jh_cbor *rc;
	struct jh_buf t;
	char uri[128], name[64];
	json_t *r;

	jh_arena_init(&a);
	jh_buf_init(&t);
	if (jh_env_parse(&env, &a, p, n, &e) == 0 &&
	    (rc = jh_cbor_get(env.core, "receipt")) != NULL &&
	    rc->type == JH_CBOR_BYTES &&
	    jh_env_parse(&in, &a, rc->p, rc->len, &e) == 0) {
		const struct jh_cbor *f[3];
		const char *k[3] = { "verdict", "tool", "unit" };
		int i;
		jh_buf_adds(&t, in.kind);
		for (i = 0; i < 3; i++)
			if ((f[i] = jh_cbor_get(in.core, k[i])) != NULL &&
			    f[i]->type == JH_CBOR_TEXT && f[i]->len < 200) {
				jh_buf_addc(&t, ' ');
				jh_buf_add(&t, f[i]->p, f[i]->len);
			}
	} else
		jh_buf_adds(&t, "an entry that does not parse");
	snprintf(uri, sizeof(uri), URI_PREFIX "%s/%llu", digest,
	    (unsigned long long)pos);
	snprintf(name, sizeof(name), "%.12s/%llu", digest,
	    (unsigned long long)pos);
	r = json_pack("{s:s,s:s,s:o,s:s,s:s}", "uri", uri, "name", name,
	    "title", jstrn(t.p, t.len), "description", "a receipt as chained "
	    "(listed unverified; reading it verifies it)", "mimeType",
	    "application/json");
	jh_buf_free(&t);
	jh_arena_free(&a);
	return (r);
}

static json_t *
session_resource(const char *digest, int fd)
{
	char uri[128], name[64], title[256];
	char *id = jh_st_first_session(fd);

	snprintf(uri, sizeof(uri), URI_PREFIX "%s", digest);
	snprintf(name, sizeof(name), "%.12s", digest);
	snprintf(title, sizeof(title), "session %.200s", id ? id : "?");
	free(id);
	return (json_pack("{s:s,s:s,s:o,s:s,s:s}", "uri", uri, "name", name,
	    "title", jstr(title), "description", "the session's status: "
	    "figures of its head record and ledger, not a verification",
	    "mimeType", "application/json"));
}

/* Whether the item at off is entry pos of a log: the cursor's check. */
static int
is_entry(int fd, uint64_t off, uint64_t pos)
{
	struct jh_buf b;
	struct jh_arena a;
	struct jh_env env;
	struct jh_err e;
	const struct jh_cbor *seq;
	struct stat st;
	int ok;

	if (fstat(fd, &st) == -1 || off > (uint64_t)st.st_size)
		return (0);
	if (off == (uint64_t)st.st_size)
		return (1);	/* the end: nothing more in this log */
	jh_buf_init(&b);
	jh_arena_init(&a);
	ok = jh_st_item(&b, fd, off, &e) == 1 &&
	    jh_env_parse(&env, &a, b.p, b.len, &e) == 0 &&
	    strcmp(env.kind, "chain/1") == 0 &&
	    (seq = jh_cbor_get(env.core, "seq")) != NULL &&
	    seq->type == JH_CBOR_UINT && seq->u == pos;
	jh_arena_free(&a);
	jh_buf_free(&b);
	return (ok);
}

/*
 * What resources/list would list, in 64 bits: the project's sessions
 * and the size of each log (entries are only ever appended).
 */
static uint64_t
fingerprint(struct mcp *m)
{
	struct jh_buf d;
	struct jh_err e;
	struct stat st;
	char path[PATH_MAX + 80];
	uint64_t h = 1469598103934665603ull, v;
	size_t n, i, k;

	jh_buf_init(&d);
	if (jh_st_sessions(&d, &n, m->o, &e) == -1)
		n = 0;
	for (i = 0; i < n; i++) {
		const char *dg = (const char *)d.p + i * (2 * JH_HASH_LEN + 1);
		snprintf(path, sizeof(path), "%s/logs/%s.jhl", m->o->statedir,
		    dg);
		v = lstat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
		for (k = 0; k < 2 * JH_HASH_LEN; k++)
			h = (h ^ (uint8_t)dg[k]) * 1099511628211ull;
		for (k = 0; k < 8; k++)
			h = (h ^ ((v >> (8 * k)) & 0xff)) * 1099511628211ull;
	}
	jh_buf_free(&d);
	return (h ^ n);
}

/*
 * Idle: when the list changed since the client last listed it (a new
 * session, a new receipt), says so once (notifications/resources/
 * list_changed), so a client that caches the list (Claude Code does)
 * lists it again.
 */
static void
watch(struct mcp *m)
{
	if (!m->open || !m->listed || m->notified || fingerprint(m) == m->fp)
		return;
	send_msg(m, json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method",
	    "notifications/resources/list_changed"));
	m->notified = 1;
}

/*
 * resources/list: each session of the project, then its entries, PAGE
 * at a time, read on from the byte offset the cursor names (the next
 * entry: session digest, position, offset, checked against the entry
 * found there), never from the start.
 */
static json_t *
m_list(struct mcp *m, json_t *p, struct rpcerr *re)
{
	struct jh_buf d;
	struct jh_err e;
	struct jh_reader r;
	struct sidx *x;
	struct stat st;
	json_t *cur = json_object_get(p, "cursor"), *list, *res;
	char cd[2 * JH_HASH_LEN + 1] = "", path[PATH_MAX + 80], next[160];
	unsigned long long pos = 0, off = 0;
	size_t n, i, emitted = 0, len;
	const uint8_t *it;
	int fd, hfd, k = -1, bad = 0;

	next[0] = '\0';
	if (cur == NULL) {
		m->fp = fingerprint(m);
		m->listed = 1;
		m->notified = 0;
	}
	if (cur != NULL && (!json_is_string(cur) ||
	    sscanf(json_string_value(cur), "%64[0-9a-f].%llu.%llu%n", cd, &pos,
	    &off, &k) != 3 || k != (int)json_string_length(cur) ||
	    !jh_st_is_digest(cd, strlen(cd))))
		return (fail(re, -32602, "Invalid params: invalid cursor"));
	jh_buf_init(&d);
	if (jh_st_sessions(&d, &n, m->o, &e) == -1)
		n = 0;
	list = json_array();
	for (i = 0; i < n && next[0] == '\0' && !bad; i++) {
		const char *dg = (const char *)d.p + i * (2 * JH_HASH_LEN + 1);
		int resume = cur != NULL && strcmp(dg, cd) == 0;
		if (cur != NULL && strcmp(dg, cd) < 0)
			continue;
		if (jh_st_open_log(m->o, dg, &fd, &hfd, path, sizeof(path),
		    &e) != 0)
			continue;
		if (resume && !is_entry(fd, off, pos))
			bad = 1;
		else if (!resume) {
			pos = off = 0;
			json_array_append_new(list, session_resource(dg, fd));
			emitted++;
		}
		cur = NULL;
		x = index_of(m, dg);
		if (!bad && lseek(fd, (off_t)off, SEEK_SET) != -1) {
			jh_reader_init(&r, fd);
			r.offset = off;
			while (emitted < PAGE && jh_reader_cbor(&r, &it, &len,
			    &e) == 1) {
				if (x != NULL)
					index_push(x, pos, r.offset + r.pos);
				json_array_append_new(list, entry_resource(dg,
				    pos, it, len));
				emitted++;
				pos++;
			}
			off = r.offset + r.pos;
			jh_reader_free(&r);
			if (emitted == PAGE && ((fstat(fd, &st) == 0 &&
			    off < (uint64_t)st.st_size) || i + 1 < n))
				snprintf(next, sizeof(next), "%s.%llu.%llu", dg,
				    pos, off);
		}
		jh_st_close_log(fd, hfd);
	}
	jh_buf_free(&d);
	if (bad) {
		json_decref(list);
		return (fail(re, -32602, "Invalid params: invalid cursor"));
	}
	res = json_pack("{s:o}", "resources", list);
	if (next[0] != '\0')
		json_object_set_new(res, "nextCursor", json_string(next));
	return (res);
}

static json_t *
m_templates(struct mcp *m, json_t *p, struct rpcerr *re)
{
	(void)m;
	(void)p;
	(void)re;
	return (json_pack("{s:[{s:s,s:s,s:s,s:s}]}", "resourceTemplates",
	    "uriTemplate", URI_PREFIX "{digest}/{seq}", "name", "receipt",
	    "description", "receipt seq of the session whose id has the "
	    "SHA-256 digest", "mimeType", "application/json"));
}

/*
 * The JSON line jh-verify prints for entry pos: the entry and its
 * receipt verified, its seq and prev checked against entry pos-1.
 */
static void
entry_json(struct mcp *m, struct jh_buf *out, int fd, struct sidx *x,
    uint64_t pos, uint64_t off, const struct jh_buf *item,
    const char *path)
{
	struct jh_arena a;
	struct jh_env env, inner;
	struct jh_err e;
	struct jh_lv lv;
	struct jh_buf prev;
	uint64_t poff;
	int ok, entry_ok;

	jh_arena_init(&a);
	jh_lv_init(&lv);
	jh_buf_init(&prev);
	ok = jh_verify_env(m->o->v, &env, &a, item->p, item->len, &e) == 0;
	if (ok && pos > 0 && entry_off(x, fd, pos - 1, &poff) == 1 &&
	    jh_st_item(&prev, fd, poff, &e) == 1) {
		lv.entries = pos;
		lv.seq = pos - 1;
		crypto_hash_sha256(lv.hash, prev.p, prev.len);
	}
	if (env.kind != NULL && strcmp(env.kind, "chain/1") == 0) {
		entry_ok = ok;
		if (ok)
			ok = jh_lv_entry(&lv, m->o->v, &env, item->p,
			    item->len, &inner, &a, &e) == 0;
		if (ok || entry_ok) {
			jh_entry_json(out, &env, ok ? &inner : NULL, ok,
			    ok ? NULL : e.msg);
			goto out;
		}
	} else if (ok)
		jh_errf(&e, "a bare %s inside a log", env.kind);
	jh_buf_adds(out, "{\"ok\":false,\"file\":");
	jh_json_str(out, path, strlen(path));
	jh_buf_addf(out, ",\"item\":%llu,\"offset\":%llu,\"error\":",
	    (unsigned long long)pos + 1, (unsigned long long)off);
	jh_json_str(out, e.msg, strlen(e.msg));
	jh_buf_addc(out, '}');
out:
	jh_buf_free(&prev);
	jh_lv_free(&lv);
	jh_arena_free(&a);
}

static json_t *
m_read(struct mcp *m, json_t *p, struct rpcerr *re)
{
	json_t *u = json_object_get(p, "uri"), *res = NULL;
	struct jh_buf item, out;
	struct jh_err e;
	struct sidx *x;
	const char *uri, *rest;
	char digest[2 * JH_HASH_LEN + 1], path[PATH_MAX + 80], *s, *b64;
	unsigned long long pos = 0;
	uint64_t off;
	int fd, hfd, k = -1, whole;

	if (!json_is_string(u))
		return (fail(re, -32602, "resources/read needs a uri"));
	uri = json_string_value(u);
	if (strncmp(uri, URI_PREFIX, strlen(URI_PREFIX)) != 0)
		return (fail(re, -32002, "Resource not found: %.200s", uri));
	rest = uri + strlen(URI_PREFIX);
	whole = strlen(rest) == 2 * JH_HASH_LEN;
	if (strlen(rest) < 2 * JH_HASH_LEN ||
	    !jh_st_is_digest(rest, 2 * JH_HASH_LEN) || (!whole &&
	    (rest[2 * JH_HASH_LEN] != '/' || rest[2 * JH_HASH_LEN + 1] < '0' ||
	    rest[2 * JH_HASH_LEN + 1] > '9' || sscanf(rest + 2 * JH_HASH_LEN +
	    1, "%llu%n", &pos, &k) != 1 || rest[2 * JH_HASH_LEN + 1 + k] !=
	    '\0')))
		return (fail(re, -32002, "Resource not found: %.200s", uri));
	memcpy(digest, rest, 2 * JH_HASH_LEN);
	digest[2 * JH_HASH_LEN] = '\0';
	if (!is_served(m, digest) || jh_st_open_log(m->o, digest, &fd, &hfd,
	    path, sizeof(path), &e) != 0)
		return (fail(re, -32002, "Resource not found: %.200s", uri));
	jh_buf_init(&item);
	jh_buf_init(&out);
	if (whole) {
		s = jh_st_session_json(m->o, digest, fd, hfd, path);
		if (s != NULL)
			res = json_pack("{s:[{s:s,s:s,s:o}]}", "contents",
			    "uri", uri, "mimeType", "application/json", "text",
			    jstr(s));
		free(s);
		if (res == NULL)
			fail(re, -32603, "out of memory");
		goto out;
	}
	/* Offsets found before are checked: a log can be replaced. */
	if ((x = index_of(m, digest)) != NULL && pos < x->n &&
	    !is_entry(fd, x->off[pos], pos))
		x->n = 0;
	if (x == NULL || entry_off(x, fd, pos, &off) != 1 ||
	    jh_st_item(&item, fd, off, &e) != 1) {
		fail(re, -32002, "Resource not found: %.200s", uri);
		goto out;
	}
	entry_json(m, &out, fd, x, pos, off, &item, path);
	b64 = malloc(sodium_base64_ENCODED_LEN(item.len,
	    sodium_base64_VARIANT_ORIGINAL));
	if (b64 == NULL || out.oom) {
		free(b64);
		fail(re, -32603, "out of memory");
		goto out;
	}
	sodium_bin2base64(b64, sodium_base64_ENCODED_LEN(item.len,
	    sodium_base64_VARIANT_ORIGINAL), item.p, item.len,
	    sodium_base64_VARIANT_ORIGINAL);
	res = json_pack("{s:[{s:s,s:s,s:o},{s:s,s:s,s:s}]}", "contents",
	    "uri", uri, "mimeType", "application/json", "text",
	    jstrn(out.p, out.len), "uri", uri, "mimeType", "application/cbor",
	    "blob", b64);
	free(b64);
out:
	jh_st_close_log(fd, hfd);
	jh_buf_free(&item);
	jh_buf_free(&out);
	return (res);
}

static json_t *
m_tools(struct mcp *m, json_t *p, struct rpcerr *re)
{
	(void)m;
	(void)p;
	(void)re;
	return (json_pack("{s:[{s:s,s:s,s:s,s:{s:s,s:{s:{s:s,s:s}},s:b}}]}",
	    "tools", "name", "verify", "title", "Verify receipt logs",
	    "description", "Verify the hash-chained receipt logs of this "
	    "project's sessions (or of one session: its id or digest) as "
	    "jh-verify does: every signature, seq and prev link, and each "
	    "embedded receipt. Returns a JSON summary: counts by verdict, "
	    "code, tool and class, energy by provenance, and ok.",
	    "inputSchema", "type", "object", "properties", "session", "type",
	    "string", "description", "a session id or its SHA-256 digest; "
	    "absent: every session of the project",
	    "additionalProperties", 0));
}

static json_t *
m_call(struct mcp *m, json_t *p, struct rpcerr *re)
{
	json_t *name = json_object_get(p, "name");
	json_t *args = json_object_get(p, "arguments"), *sess = NULL;
	struct jh_sum s;
	struct jh_cps cps;
	struct jh_buf out;
	struct jh_err e;
	const char *key;
	json_t *v, *res;
	int bad = 0;

	memset(&cps, 0, sizeof(cps));
	if (!json_is_string(name))
		return (fail(re, -32602, "tools/call needs a name"));
	if (strcmp(json_string_value(name), "verify") != 0)
		return (fail(re, -32602, "unknown tool %.100s",
		    json_string_value(name)));
	if (args != NULL && !json_is_object(args) && !json_is_null(args))
		return (fail(re, -32602, "arguments must be an object"));
	json_object_foreach(args, key, v) {
		if (strcmp(key, "session") != 0 || !json_is_string(v))
			return (fail(re, -32602, "verify takes one argument, "
			    "session, a string"));
		sess = v;
	}
	jh_buf_init(&out);
	if (m->o->keys->n == 0) {
		jh_buf_adds(&out, "no trusted keys: list them in "
		    "JH_HOME/stewards and JH_HOME/trust");
		bad = 1;
	} else if (jh_st_load_sink(&cps, m->o->sink, m->o->v, &e) != 0) {
		/* each log is held to the config's sink, as -s holds it */
		jh_buf_addf(&out, "checkpoint sink: %s", e.msg);
		bad = 1;
	} else {
		jh_sum_init(&s, m->o->v);
		s.cps = &cps;
		if (jh_st_summarize_project(m->o, &s, sess != NULL ?
		    json_string_value(sess) : NULL, &e) == -1) {
			jh_buf_adds(&out, e.msg);
			bad = 1;
		} else {
			jh_sum_json(&out, &s);
			bad = s.nok != s.nlogs;
		}
		jh_sum_free(&s);
	}
	jh_cps_free(&cps);
	res = json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text",
	    "text", jstrn(out.p, out.len), "isError", bad);
	jh_buf_free(&out);
	return (res);
}

static const struct {
	const char *name;
	json_t *(*fn)(struct mcp *, json_t *, struct rpcerr *);
} methods[] = {
	{ "initialize", m_initialize },
	{ "ping", m_ping },
	{ "server/discover", m_discover },
	{ "resources/list", m_list },
	{ "resources/templates/list", m_templates },
	{ "resources/read", m_read },
	{ "tools/list", m_tools },
	{ "tools/call", m_call },
	{ NULL, NULL }
};

/* One JSON-RPC message: a request gets one reply, a notification none. */
static void
handle(struct mcp *m, const char *line, size_t len)
{
	json_error_t je;
	json_t *req, *id, *method, *params, *res;
	struct rpcerr re;
	char msg[300];
	int i;

	if ((req = json_loadb(line, len, JSON_REJECT_DUPLICATES |
	    JSON_DECODE_ANY, &je)) ==
	    NULL) {
		snprintf(msg, sizeof(msg), "Parse error: %s", je.text);
		reply_err(m, NULL, -32700, msg);
		return;
	}
	if (!json_is_object(req)) {
		reply_err(m, NULL, -32600, json_is_array(req) ?
		    "Invalid Request: batches are not supported" :
		    "Invalid Request: not an object");
		goto out;
	}
	id = json_object_get(req, "id");
	method = json_object_get(req, "method");
	params = json_object_get(req, "params");
	if (id != NULL && !json_is_string(id) && !json_is_integer(id)) {
		reply_err(m, NULL, -32600, "Invalid Request: id must be a "
		    "string or an integer");
		goto out;
	}
	if (method == NULL && id != NULL && (json_object_get(req, "result") ||
	    json_object_get(req, "error")))
		goto out;	/* a response: we send no requests */
	if (!json_is_string(json_object_get(req, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(req, "jsonrpc")),
	    "2.0") != 0 || !json_is_string(method)) {
		reply_err(m, id, -32600, "Invalid Request: needs jsonrpc "
		    "\"2.0\" and a method");
		goto out;
	}
	if (id == NULL)
		goto out;	/* notifications: none needs an answer */
	if (params != NULL && !json_is_object(params)) {
		reply_err(m, id, -32602, "Invalid params: params must be an "
		    "object");
		goto out;
	}
	for (i = 0; methods[i].name != NULL; i++)
		if (strcmp(methods[i].name, json_string_value(method)) == 0)
			break;
	if (methods[i].name == NULL) {
		snprintf(msg, sizeof(msg), "Method not found: %.200s",
		    json_string_value(method));
		reply_err(m, id, -32601, msg);
		goto out;
	}
	memset(&re, 0, sizeof(re));
	if ((res = methods[i].fn(m, params, &re)) == NULL)
		reply_err(m, id, re.code ? re.code : -32603, re.code ? re.msg :
		    "Internal error");
	else
		send_msg(m, json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id",
		    id, "result", res));
out:
	json_decref(req);
}

/*
 * Serves requests read from fd, answering on out, until EOF (0) or a
 * write error (-1, e says why).
 */
int
jh_mcp_serve(const struct jh_stctx *o, int fd, FILE *out, struct jh_err *e)
{
	struct mcp m;
	struct jh_reader r;
	const char *line;
	size_t len, i;
	int x;

	memset(&m, 0, sizeof(m));
	m.o = o;
	m.out = out;
	jh_reader_init(&r, fd);
	for (;;) {
		if (m.dead)
			break;
		/* No whole line buffered: wait for one, watching the list. */
		if (!r.eof && (r.pos >= r.b.len || memchr(r.b.p + r.pos, '\n',
		    r.b.len - r.pos) == NULL)) {
			struct pollfd pfd = { fd, POLLIN, 0 };
			int pr = poll(&pfd, 1, WATCH_MS);

			if (pr == 0) {
				watch(&m);
				continue;
			}
			if (pr == -1 && errno == EINTR)
				continue;
		}
		if ((x = jh_reader_line(&r, &line, &len, e)) == 0)
			break;
		if (x == -1) {
			if (strncmp(e->msg, "read:", 5) == 0)
				break;	/* as EOF: the client is gone */
			reply_err(&m, NULL, -32700, "Parse error: message "
			    "too long");
			continue;
		}
		while (len > 0 && (line[len - 1] == '\r' ||
		    line[len - 1] == ' '))
			len--;
		/*
		 * A request is a few hundred bytes; parsed, a line of many
		 * small values takes 80 times its size: refused unparsed.
		 */
		if (len > MCP_MAX_LINE)
			reply_err(&m, NULL, -32700, "Parse error: message "
			    "over 1 MiB");
		else if (len > 0)
			handle(&m, line, len);
	}
	jh_reader_free(&r);
	for (i = 0; i < m.nix; i++)
		free(m.ix[i].off);
	free(m.ix);
	if (m.dead)
		*e = m.e;
	return (m.dead ? -1 : 0);
}
