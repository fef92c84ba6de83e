/*
 * fuzz-grant: bytes -> a grant document (JSON) as jh-seal and jh-grant
 * seal it (jh_kind_prepare, jh_core_build, jh_kind_check for grant/1),
 * then the sealed grant as the gate loads it (jh_grant_load) and reads
 * its capabilities, policies, costs and audience: each of a fixed set of
 * events is decided against it by jh_decide, as a dry run (jh-decide -x:
 * nothing pinned, debited or held) against a ledger made for the grant.
 * Checked:
 *
 *   - the core jh_core_build makes is canonical CBOR with no float, bool
 *     or null (the strict decoder takes it, and re-encodes the same
 *     bytes), as jh-seal assumes;
 *   - a grant whose core passes the grant/1 rules, sealed by the trusted
 *     issuer, loads (or is refused only for a root that is not absolute);
 *   - every decision has a verdict and a code that go together, a reason,
 *     and its Decision record passes the decision/1 rules once sealed as
 *     jh-seal seals it (with the effects as a real run records them: a
 *     dry run adds each effect's rule and command index).
 */
#include "fuzz-common.h"

#include <stddef.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "decide.h"
#include "gate.h"
#include "json.h"
#include "kinds.h"
#include "ledger.h"
#include "statefs.h"

#define NOW_MS	1767225600000ULL	/* 2026-01-01, inside the seeds' */

static char grantpath[512], statedir[512], ledgerdir[512], jhhome[512];
static struct jh_protect protect;
static json_t *events[16];
static size_t nevents;

/* One PreToolUse event of Claude Code's, as jh-normalize writes it. */
static void
event(const char *tool, const char *cls, const char *input)
{
	struct jh_err e;
	json_t *ev, *in;

	if ((in = jh_json_parse(input, strlen(input), &e)) == NULL) {
		fprintf(stderr, "event %s: %s\n", tool, e.msg);
		abort();
	}
	ev = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:s}", "session_id",
	    "fuzz-grant", "tool", tool, "input", in, "cwd", fz_cwd, "host",
	    "claude-code", "event", "PreToolUse", "class", cls, "tool_use_id",
	    "toolu_fuzz");
	if (ev == NULL)
		abort();
	events[nevents++] = ev;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[600];

	(void)argc; (void)argv;
	fz_world("fuzz-grant", "grant/1 sealing, loading, and decisions "
	    "against it");
	fz_keys();
	snprintf(grantpath, sizeof(grantpath), "%s/grant", fz_base);
	snprintf(statedir, sizeof(statedir), "%s/state", fz_base);
	snprintf(ledgerdir, sizeof(ledgerdir), "%s/ledger", fz_base);
	snprintf(jhhome, sizeof(jhhome), "%s/jh", fz_base);
	mkdir(statedir, 0700);
	mkdir(ledgerdir, 0700);
	mkdir(jhhome, 0700);
	jh_protect_init(&protect);
	jh_protect_builtin(&protect, jhhome, statedir);
	snprintf(p, sizeof(p), "{\"file_path\":\"%s/a.c\"}", fz_cwd);
	event("Read", "read", p);
	event("Write", "write", "{\"file_path\":\"~/.bashrc\",\"content\":"
	    "\"x\"}");
	event("Edit", "edit", "{\"file_path\":\"../Makefile\",\"old_string\":"
	    "\"a\",\"new_string\":\"b\"}");
	event("Glob", "search", "{\"pattern\":\"**/*.c\"}");
	event("Bash", "shell", "{\"command\":\"git push --force origin "
	    "main\"}");
	event("Bash", "shell", "{\"command\":\"cat a.c | head -n 3 > "
	    "out.txt && npm test\"}");
	event("Bash", "shell", "{\"command\":\"curl -s https://example.com/x "
	    "-o /tmp/x; sudo rm -rf ~/.ssh\"}");
	event("Bash", "shell", "{\"command\":\"echo ghp_0123456789abcdef"
	    "0123456789abcdefABCD\"}");
	event("WebFetch", "fetch", "{\"url\":\"https://example.com/a\","
	    "\"prompt\":\"p\"}");
	event("mcp__github__create_issue", "mcp", "{\"title\":\"t\"}");
	return (0);
}

static const char *const verdicts[] = { "allow", "ask", "deny", "rewrite",
    NULL };

/* The Decision as jh-seal seals it must pass the decision/1 rules. */
static void
sealable(const json_t *rec)
{
	static const uint8_t nonce[JH_NONCE_LEN] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct jh_arena a;
	struct jh_cbor *dec;
	struct jh_buf core;
	struct jh_err e;
	json_t *o, *fx;
	size_t i;

	if ((o = json_deep_copy(rec)) == NULL)
		return;
	fx = json_object_get(o, "effects");
	for (i = 0; i < json_array_size(fx); i++) {
		json_object_del(json_array_get(fx, i), "rule");
		json_object_del(json_array_get(fx, i), "cmd");
	}
	jh_arena_init(&a);
	jh_buf_init(&core);
	if (jh_kind_prepare(o, JH_KIND_DECISION, &fz_steward, NOW_MS, nonce,
	    &e) == -1 || jh_core_build(&core, o, JH_KIND_DECISION, &fz_steward,
	    NOW_MS, nonce, &e) == -1 || jh_cbor_decode_all(&dec, &a, core.p,
	    core.len, 0, &e) != 0 || jh_kind_check(dec, JH_KIND_DECISION,
	    &e) == -1) {
		char *t = json_dumps(rec, JSON_COMPACT);
		fprintf(stderr, "the Decision does not seal: %s\n%s\n", e.msg,
		    t != NULL ? t : "");
		abort();
	}
	jh_arena_free(&a);
	jh_buf_free(&core);
	json_decref(o);
}

/* The grant's ledger, as jh-decide -I makes it: nothing spent. */
static void
ledger(const struct jh_grant *g, char *path, size_t sz)
{
	struct jh_ledger l;
	char hex[2 * JH_HASH_LEN + 1];
	int fd;

	memset(&l, 0, sizeof(l));
	memcpy(l.magic, "JHLEDG1", 8);
	l.seq = 1;
	memcpy(l.grant, g->ledger, JH_HASH_LEN);
	l.budget_uj = g->budget;
	l.crc = jh_crc32(&l, offsetof(struct jh_ledger, crc));
	jh_hex(hex, g->ledger, JH_HASH_LEN);
	snprintf(path, sz, "%s/%s", ledgerdir, hex);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(fd, &l, sizeof(l)) != (ssize_t)sizeof(l))
		abort();
	close(fd);
}

static void
decide(struct jh_gcache *gc, json_t *ev)
{
	struct jh_gate g;
	struct jh_decision d;
	json_t *rec;
	size_t i;
	int code;

	memset(&g, 0, sizeof(g));
	g.home = jhhome;
	g.statedir = statedir;
	g.ledgerdir = ledgerdir;
	g.grantfile = grantpath;
	g.trust = &fz_trust;
	g.protect = &protect;
	g.user_home = fz_home;
	g.dryrun = 1;
	g.cache = gc;
	jh_decision_init(&d);
	code = jh_decide(&d, &g, ev, NOW_MS);
	if (code != d.code || jh_dcode_name(code) == NULL ||
	    d.verdict == NULL || memchr(d.reason, '\0',
	    sizeof(d.reason)) == NULL || d.reason[0] == '\0')
		abort();
	for (i = 0; verdicts[i] != NULL; i++)
		if (strcmp(d.verdict, verdicts[i]) == 0)
			break;
	if (verdicts[i] == NULL)
		abort();
	/* allow and rewrite are ok or rewritten; a deny is never ok */
	if ((strcmp(d.verdict, "allow") == 0 && code != JH_D_OK) ||
	    (strcmp(d.verdict, "rewrite") == 0 &&
	    code != JH_D_POLICY_REWRITE) ||
	    (strcmp(d.verdict, "deny") == 0 && code == JH_D_OK) ||
	    (strcmp(d.verdict, "rewrite") == 0 && !json_is_object(d.updated)))
		abort();
	if (d.debited != 0)
		abort();	/* a dry run debits nothing */
	if ((rec = jh_decision_json(&d, ev)) == NULL)
		abort();
	sealable(rec);
	json_decref(rec);
	jh_decision_free(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const uint8_t nonce[JH_NONCE_LEN] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct jh_arena a;
	struct jh_buf core, env, re;
	struct jh_cbor *dec;
	struct jh_grant gr;
	struct jh_gcache *gc;
	struct jh_err e;
	json_t *j;
	char lpath[700];
	size_t i;
	int fd, rc;

	if ((j = jh_json_parse((const char *)d, n, &e)) == NULL)
		return (0);
	jh_arena_init(&a);
	jh_buf_init(&core);
	jh_buf_init(&env);
	jh_buf_init(&re);
	if (!json_is_object(j) || jh_kind_prepare(j, JH_KIND_GRANT,
	    &fz_issuer, NOW_MS, nonce, &e) == -1 || jh_core_build(&core, j,
	    JH_KIND_GRANT, &fz_issuer, NOW_MS, nonce, &e) == -1)
		goto out;
	if (jh_cbor_decode_all(&dec, &a, core.p, core.len, 0, &e) != 0 ||
	    jh_cbor_core_check(dec, &e) == -1) {
		fprintf(stderr, "jh_core_build made a core the strict decoder "
		    "refuses: %s\n", e.msg);
		abort();
	}
	if (jh_cbor_encode(&re, dec, &e) == 0 && (re.len != core.len ||
	    memcmp(re.p, core.p, core.len) != 0))
		abort();
	if (jh_kind_check(dec, JH_KIND_GRANT, &e) == -1)
		goto out;	/* jh-seal refuses it */
	if (jh_seal(&env, &fz_issuer, core.p, core.len, &e) == -1)
		goto out;
	if ((fd = open(grantpath, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1 ||
	    write(fd, env.p, env.len) != (ssize_t)env.len)
		abort();
	close(fd);
	rc = jh_grant_load(&gr, grantpath, &fz_trust, &e);
	if (rc != 0 && !(rc == JH_D_BADSIG && strstr(e.msg, "root") != NULL)) {
		fprintf(stderr, "a valid grant sealed by the trusted issuer "
		    "does not load: %s\n", e.msg);
		abort();
	}
	if (rc == 0 && (gr.caps == NULL || gr.policies == NULL ||
	    gr.costs == NULL || gr.audience == NULL))
		abort();
	lpath[0] = '\0';
	if (rc == 0)
		ledger(&gr, lpath, sizeof(lpath));
	jh_grant_free(&gr);
	if ((gc = calloc(1, sizeof(*gc))) == NULL)
		goto out;
	for (i = 0; i < nevents; i++)
		decide(gc, events[i]);
	jh_gcache_free(gc);
	free(gc);
	if (lpath[0] != '\0')
		unlink(lpath);
out:
	json_decref(j);
	jh_buf_free(&re);
	jh_buf_free(&env);
	jh_buf_free(&core);
	jh_arena_free(&a);
	return (0);
}
