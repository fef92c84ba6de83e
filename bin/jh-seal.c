/*
 * jh-seal: seal JSON records as JCR-1 envelopes; generate keys.
 */
#include <sys/resource.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "json.h"
#include "keys.h"
#include "kinds.h"
#include "util.h"

#define PROG "jh-seal"

enum mode { SEAL, GENERATE, DIGEST };

struct opts {
	enum mode mode;
	const char *keyfile;
	const char *kind;
	enum jh_role role;
	int json;
	int verbose;
	int nopass;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s -G [-W] [-R steward|issuer] -k keyfile\n"
	    "       %s [-jv] [-K kind] [-k keyfile] [file ...]\n"
	    "       %s -D [file ...]\n"
	    "       %s -h\n", PROG, PROG, PROG, PROG);
	exit(status);
}

/* A passphrase from the terminal; in a test build also JH_PASSPHRASE. */
static int
getpass_cb(char *buf, size_t sz, const char *path, void *ctx)
{
	char prompt[512];

	(void)ctx;
#ifdef JH_TESTING
	{
		const char *p = getenv("JH_PASSPHRASE");
		if (p != NULL) {
			if (strlen(p) >= sz)
				return (-1);
			memcpy(buf, p, strlen(p) + 1);
			return (0);
		}
	}
#endif
	snprintf(prompt, sizeof(prompt), "passphrase for %s: ", path);
	return (jh_pass_tty(buf, sz, prompt, NULL));
}

static int
generate(const struct opts *o)
{
	struct jh_err e;
	char *p1 = NULL, *p2 = NULL;
	int rc = 1;

	if (o->role == JH_ROLE_ISSUER && !o->nopass) {
		if ((p1 = sodium_malloc(1024)) == NULL ||
		    (p2 = sodium_malloc(1024)) == NULL)
			errx(2, "out of secure memory");
		if (getpass_cb(p1, 1024, "the new issuer key", NULL) == -1)
			errx(2, "cannot read a passphrase (no terminal?); "
			    "-W stores the issuer key unencrypted");
#ifdef JH_TESTING
		if (getenv("JH_PASSPHRASE") != NULL)
			memcpy(p2, p1, strlen(p1) + 1);
		else
#endif
		if (jh_pass_tty(p2, 1024, "repeat the passphrase: ",
		    NULL) == -1)
			errx(2, "cannot read a passphrase");
		if (strcmp(p1, p2) != 0) {
			warnx("passphrases do not match");
			goto out;
		}
		if (*p1 == '\0') {
			warnx("empty passphrase; -W stores the key "
			    "unencrypted");
			goto out;
		}
	}
	if (jh_key_generate(o->keyfile, o->role, p1, &e) == -1) {
		warnx("%s", e.msg);
		rc = 2;
		goto out;
	}
	rc = 0;
out:
	sodium_free(p1);
	sodium_free(p2);
	return (rc);
}

/* Writes one sealed item, or its JSON form; returns -1 on a write error. */
static int
emit(const struct opts *o, const struct jh_buf *env, const uint8_t *payload,
    size_t paylen, int kid)
{
	struct jh_arena a;
	struct jh_cbor *core;
	struct jh_buf j;
	struct jh_err e;
	int rc = 0;

	if (!o->json)
		return (fwrite(env->p, 1, env->len, stdout) == env->len ? 0 :
		    -1);
	jh_arena_init(&a);
	jh_buf_init(&j);
	if (jh_cbor_decode_all(&core, &a, payload, paylen, 0, &e) != 0)
		errx(2, "internal error: %s", e.msg);
	jh_buf_addf(&j, "{\"kind\":\"%s\",\"core\":", jh_kind_name(kid));
	jh_cbor_to_json(&j, core);
	jh_buf_adds(&j, "}\n");
	if (j.oom || fwrite(j.p, 1, j.len, stdout) != j.len)
		rc = -1;
	jh_buf_free(&j);
	jh_arena_free(&a);
	return (rc);
}

/*
 * Seals one JSON record.  Returns 0 when sealed, 1 when the record was
 * refused (reason on stderr), -1 on a write error.
 */
static int
seal_one(const struct opts *o, const struct jh_key *key, const char *src,
    unsigned long lineno, const char *line, size_t len)
{
	struct jh_err e;
	struct jh_buf core, env;
	int kid, rc = 1;

	jh_buf_init(&core);
	jh_buf_init(&env);
	if ((kid = jh_seal_record(&env, &core, key, o->keyfile, o->kind, line,
	    len, &e)) == -1)
		warnx("%s:%lu: %s", src, lineno, e.msg);
	else {
		if (o->verbose && kid == JH_KIND_GRANT) {
			char id[JH_ID_LEN];
			jh_sha256_id(id, core.p, core.len);
			fprintf(stderr, "%s: grant %s\n", PROG, id);
		}
		rc = emit(o, &env, core.p, core.len, kid) == -1 ? -1 : 0;
	}
	jh_buf_free(&core);
	jh_buf_free(&env);
	return (rc);
}

static int
digest_one(const char *src, unsigned long lineno, const char *line,
    size_t len)
{
	struct jh_err e;
	struct jh_buf c, out;
	json_t *j;
	char id[JH_ID_LEN];
	int rc;

	if ((j = jh_json_parse(line, len, &e)) == NULL) {
		warnx("%s:%lu: %s", src, lineno, e.msg);
		return (1);
	}
	jh_buf_init(&c);
	jh_buf_init(&out);
	if (jh_json_to_cbor(&c, j, JH_JSON_DIGEST, &e) == -1) {
		warnx("%s:%lu: %s", src, lineno, e.msg);
		rc = 1;
	} else {
		char *hex = malloc(2 * c.len + 1);
		if (hex == NULL)
			errx(2, "out of memory");
		jh_hex(hex, c.p, c.len);
		jh_sha256_id(id, c.p, c.len);
		jh_buf_addf(&out, "{\"digest\":\"%s\",\"cbor\":\"%s\"}\n", id,
		    hex);
		free(hex);
		rc = (out.oom || fwrite(out.p, 1, out.len, stdout) != out.len) ?
		    -1 : 0;
	}
	json_decref(j);
	jh_buf_free(&c);
	jh_buf_free(&out);
	return (rc);
}

struct run {
	const struct opts *o;
	const struct jh_key *key;
};

/*
 * Seals (or digests) each line of one input (jh_each_file).  Returns 0,
 * 1 when some record was refused, 2 when the input could not be read,
 * -1 on a write error.
 */
static int
run_file(void *arg, struct jh_reader *r, const char *path)
{
	const struct run *run = arg;
	struct jh_err e;
	const char *line;
	size_t len;
	unsigned long lineno = 0;
	int x, refused = 0;

	while ((x = jh_reader_line(r, &line, &len, &e)) != 0) {
		lineno++;
		if (x == -1) {
			warnx("%s:%lu: %s", path, lineno, e.msg);
			if (r->err != 0)
				return (2);
			refused = 1;	/* a line too long, skipped */
			continue;
		}
		if (len == 0)
			continue;
		x = run->o->mode == DIGEST ? digest_one(path, lineno, line,
		    len) : seal_one(run->o, run->key, path, lineno, line, len);
		if (x == -1)
			return (-1);
		if (x == 1)
			refused = 1;
	}
	return (refused);
}

int
main(int argc, char *argv[])
{
	struct opts o = { SEAL, NULL, NULL, JH_ROLE_STEWARD, 0, 0, 0 };
	struct rlimit rl = { 0, 0 };
	struct jh_key key;
	struct jh_err e;
	struct run run;
	struct jh_where w;
	int ch, rc;

	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "DGhjK:k:R:vW")) != -1) {
		switch (ch) {
		case 'D':
		case 'G':
			/* Mode letters are mutually exclusive. */
			if (o.mode != SEAL)
				usage(stderr, 2);
			o.mode = ch == 'D' ? DIGEST : GENERATE;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'j':
			o.json = 1;
			break;
		case 'K':
			o.kind = optarg;
			break;
		case 'k':
			o.keyfile = optarg;
			break;
		case 'R':
			if (jh_role_parse(&o.role, optarg) == -1)
				usage(stderr, 2);
			break;
		case 'v':
			o.verbose = 1;
			break;
		case 'W':
			o.nopass = 1;
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");

	if (o.mode == GENERATE) {
		if (o.keyfile == NULL || argc != 0)
			usage(stderr, 2);
		return (generate(&o));
	}
	memset(&key, 0, sizeof(key));
	if (o.mode == SEAL) {
		if (o.kind != NULL && (jh_kind_lookup(o.kind) == 0 ||
		    jh_kind_lookup(o.kind) == JH_KIND_CHAIN ||
		    jh_kind_lookup(o.kind) == JH_KIND_CHECKPOINT))
			errx(2, "unknown kind %s (jh-seal seals decision/1, "
			    "efficiency/1, grant/1 and revocation/1)", o.kind);
		if (o.keyfile == NULL) {
			memset(&w, 0, sizeof(w));
			jh_where_fill(&w);
			o.keyfile = o.kind != NULL &&
			    jh_kind_role(jh_kind_lookup(o.kind)) ==
			    JH_ROLE_ISSUER ? w.issuer : w.key;
			if (o.keyfile == NULL)
				errx(2, "no key: give -k or set JH_HOME");
		}
		if (jh_key_load(&key, o.keyfile, getpass_cb, NULL, &e) == -1)
			errx(2, "%s", e.msg);
	}
	run.o = &o;
	run.key = &key;
	rc = jh_each_file(argc, argv, JH_IN_STOP, run_file, &run);
	jh_key_wipe(&key);
	if (jh_fshut(stdout, "stdout") != 0 || rc == -1)
		return (2);
	return (rc);
}
