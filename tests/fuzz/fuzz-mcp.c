/*
 * fuzz-mcp: bytes -> jh-status -m's MCP server (jh_mcp_serve,
 * lib/mcp.c): newline-delimited JSON-RPC 2.0 as the MCP client sends it
 * (the host, on the model's behalf: the cursors, URIs and session ids
 * are the model's), read from a memory file, answered into a memory
 * stream.  The server serves a scratch project with one session, whose
 * log of three chained decision/1 receipts is made once with the test
 * steward key (conformance/v1/keys); its digest is that of the session
 * id "fuzz-mcp", which tests/fuzz/seeds puts in the seeds' URIs and
 * cursors.  Checked: the server ends at the end of input without an
 * error, and every line it writes is a JSON-RPC 2.0 object, a reply (an
 * id, and a result or an error with an integer code and a message) or a
 * notification.
 */
#include "fuzz-common.h"

#include <sys/mman.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "chain.h"
#include "cose.h"
#include "json.h"
#include "kinds.h"
#include "mcp.h"
#include "status.h"
#include "verify.h"

#define SESSION		"fuzz-mcp"
#define NOW_MS		1767225600000ULL

static char statedir[512], jhhome[512], root[PATH_MAX];
static struct jh_verifier fz_v;
static struct jh_stctx ctx;

/* One decision/1 receipt of the session, chained onto its log. */
static void
append(struct jh_log *l, const char *tool, const char *verdict, int i)
{
	uint8_t nonce[JH_NONCE_LEN] = { 1, 2, 3, 4, 5, 6, 7, (uint8_t)i };
	char rec[1024];
	struct jh_arena a;
	struct jh_buf core, env, entry;
	struct jh_env parsed;
	struct jh_err e;
	json_t *j;

	snprintf(rec, sizeof(rec), "{\"kind\":\"decision/1\",\"session_id\":"
	    "\"" SESSION "\",\"tool\":\"%s\",\"input\":{\"command\":\"npm "
	    "test\"},\"cwd\":\"%s\",\"content_id\":null,\"host\":"
	    "\"claude-code\",\"event\":\"PreToolUse\",\"class\":\"shell\","
	    "\"tool_use_id\":\"toolu_%02d\",\"verdict\":\"%s\",\"code\":"
	    "\"%s\",\"reason\":\"r\",\"grant\":null,\"cost_uj\":2000000,"
	    "\"debited_uj\":%s,\"provenance\":\"Estimator\","
	    "\"remaining_uj\":1000,\"rule\":\"caps[0]\",\"target\":null,"
	    "\"updated_input\":null}", tool, root, i, verdict,
	    strcmp(verdict, "allow") == 0 ? "ok" : "not-granted",
	    strcmp(verdict, "allow") == 0 ? "2000000" : "0");
	jh_arena_init(&a);
	jh_buf_init(&core);
	jh_buf_init(&env);
	jh_buf_init(&entry);
	if ((j = jh_json_parse(rec, strlen(rec), &e)) == NULL ||
	    jh_kind_prepare(j, JH_KIND_DECISION, &fz_steward, NOW_MS, nonce,
	    &e) == -1 || jh_core_build(&core, j, JH_KIND_DECISION,
	    &fz_steward, NOW_MS + (uint64_t)i, nonce, &e) == -1 ||
	    jh_seal(&env, &fz_steward, core.p, core.len, &e) == -1 ||
	    jh_env_parse(&parsed, &a, env.p, env.len, &e) == -1 ||
	    jh_log_append(l, &fz_steward, env.p, env.len, parsed.core,
	    NOW_MS + (uint64_t)i, nonce, 1, &entry, &e) == -1) {
		fprintf(stderr, "fuzz-mcp: the log: %s\n", e.msg);
		abort();
	}
	json_decref(j);
	jh_buf_free(&entry);
	jh_buf_free(&env);
	jh_buf_free(&core);
	jh_arena_free(&a);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[PATH_MAX + 200], hex[2 * JH_HASH_LEN + 1];
	uint8_t h[JH_HASH_LEN];
	struct jh_log l;
	struct jh_err e;
	uint64_t cut;
	int fd;

	(void)argc; (void)argv;
	fz_world("fuzz-mcp", "JSON-RPC over a session of three receipts");
	fz_keys();
	jh_verifier_init(&fz_v, &fz_trust);
	if (realpath(fz_root, root) == NULL)
		abort();
	snprintf(statedir, sizeof(statedir), "%s/state", fz_base);
	snprintf(jhhome, sizeof(jhhome), "%s/jh", fz_base);
	mkdir(statedir, 0755);
	mkdir(jhhome, 0700);
	snprintf(p, sizeof(p), "%s/roots", statedir);
	mkdir(p, 0755);
	crypto_hash_sha256(h, (const uint8_t *)SESSION, strlen(SESSION));
	jh_hex(hex, h, sizeof(h));
	snprintf(p, sizeof(p), "%s/roots/%s", statedir, hex);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(fd, root, strlen(root)) != (ssize_t)strlen(root))
		abort();
	close(fd);
	if (jh_log_open(&l, statedir, NULL, (const uint8_t *)SESSION,
	    strlen(SESSION), 1, &e) == -1 ||
	    jh_log_head(&l, &fz_trust, 1, &cut, &e) == -1) {
		fprintf(stderr, "fuzz-mcp: the log: %s\n", e.msg);
		abort();
	}
	append(&l, "Bash", "allow", 0);
	append(&l, "Bash", "deny", 1);
	append(&l, "Read", "allow", 2);
	jh_log_close(&l);
	memset(&ctx, 0, sizeof(ctx));
	ctx.home = jhhome;
	ctx.statedir = statedir;
	ctx.root = root;
	ctx.keys = &fz_trust;
	ctx.v = &fz_v;
	return (0);
}

static void
check_line(const char *s, size_t n)
{
	json_error_t je;
	json_t *j, *id, *res, *err, *code;

	if ((j = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	    &je)) == NULL) {
		fprintf(stderr, "not JSON (%s): %.*s\n", je.text, (int)n, s);
		abort();
	}
	if (!json_is_object(j) || !json_is_string(json_object_get(j,
	    "jsonrpc")) || strcmp(json_string_value(json_object_get(j,
	    "jsonrpc")), "2.0") != 0)
		abort();
	id = json_object_get(j, "id");
	res = json_object_get(j, "result");
	err = json_object_get(j, "error");
	if (json_object_get(j, "method") != NULL) {
		if (id != NULL || res != NULL || err != NULL)
			abort();
	} else {
		if (id == NULL || (res == NULL) == (err == NULL))
			abort();
		if (!json_is_null(id) && !json_is_string(id) &&
		    !json_is_integer(id))
			abort();
		if (err != NULL && (!json_is_integer(code = json_object_get(err,
		    "code")) || !json_is_string(json_object_get(err,
		    "message")) || json_integer_value(code) == 0))
			abort();
	}
	json_decref(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_err e;
	FILE *out;
	char *buf = NULL, *p, *nl;
	size_t len = 0;
	int fd, r;

	if ((fd = memfd_create("fuzz-mcp", MFD_CLOEXEC)) == -1)
		return (0);
	if ((n > 0 && write(fd, d, n) != (ssize_t)n) ||
	    (out = open_memstream(&buf, &len)) == NULL) {
		close(fd);
		return (0);
	}
	lseek(fd, 0, SEEK_SET);
	r = jh_mcp_serve(&ctx, fd, out, &e);
	fclose(out);
	close(fd);
	if (r != 0) {
		fprintf(stderr, "jh_mcp_serve: %s\n", e.msg);
		abort();
	}
	for (p = buf; p != NULL && p < buf + len; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			abort();	/* every message ends its line */
		check_line(p, (size_t)(nl - p));
	}
	free(buf);
	return (0);
}
