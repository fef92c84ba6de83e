/*
 * jh-verify: check sealed objects against trusted keys; print JSON lines.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"

#define PROG "jh-verify"

struct opts {
	int quiet;
	struct jh_keyset keys;
	/* did:key of the last kid seen: base58 is slow, kids repeat. */
	uint8_t last_kid[JH_PK_LEN];
	char last_did[JH_DIDKEY_MAX];
};

struct tally {
	unsigned long objects;
	unsigned long ok;
	unsigned long failed;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-q] [-p didkey] [-s stewards] [-t trust] [file ...]\n"
	    "       %s -h\n", PROG, PROG);
	exit(status);
}

/*
 * Verifies one envelope.  On success fills *env and returns 0; on a
 * defect writes the reason into e and returns -1.
 */
static int
verify_one(struct jh_env *env, struct jh_arena *a, struct opts *o,
    const uint8_t *p, size_t n, struct jh_err *e)
{
	const char *did = o->last_did;
	const struct jh_cbor *st;
	int kid;

	if (jh_env_parse(env, a, p, n, e) == -1)
		return (-1);
	if ((kid = jh_kind_lookup(env->kind)) == 0)
		return (jh_errf(e, "unknown kind %s", env->kind));
	if (o->last_did[0] == '\0' ||
	    memcmp(o->last_kid, env->kid, JH_PK_LEN) != 0) {
		memcpy(o->last_kid, env->kid, JH_PK_LEN);
		jh_didkey_enc(o->last_did, sizeof(o->last_did), env->kid);
	}
	if (!jh_keyset_has(&o->keys, env->kid, jh_kind_role(kid)))
		return (jh_errf(e, "untrusted kid %s (not a trusted %s key)",
		    did, jh_role_name(jh_kind_role(kid))));
	if (jh_env_verify_sig(env, e) == -1)
		return (-1);
	if (jh_kind_check(env->core, kid, e) == -1)
		return (-1);
	st = jh_cbor_get(env->core, "steward");
	if (!jh_cbor_text_is(st, did))
		return (jh_errf(e, "steward is not the kid (signed by %s)",
		    did));
	return (0);
}

static int
report(struct jh_buf *out, const struct opts *o, const char *src,
    unsigned long idx, uint64_t off, const struct jh_env *env, int ok,
    const struct jh_err *e)
{
	if (o->quiet) {
		if (!ok)
			fprintf(stderr, "%s: %s: item %lu (offset %llu): %s\n",
			    PROG, src, idx, (unsigned long long)off, e->msg);
		return (0);
	}
	jh_buf_reset(out);
	if (ok) {
		jh_buf_adds(out, "{\"ok\":true,\"kind\":");
		jh_json_str(out, env->kind, strlen(env->kind));
		jh_buf_adds(out, ",\"core\":");
		jh_cbor_to_json(out, env->core);
		jh_buf_adds(out, "}\n");
	} else {
		jh_buf_adds(out, "{\"ok\":false,\"file\":");
		jh_json_str(out, src, strlen(src));
		jh_buf_addf(out, ",\"item\":%lu,\"offset\":%llu,\"error\":",
		    idx, (unsigned long long)off);
		jh_json_str(out, e->msg, strlen(e->msg));
		jh_buf_adds(out, "}\n");
	}
	if (out->oom || fwrite(out->p, 1, out->len, stdout) != out->len)
		return (-1);
	return (0);
}

static int
run_file(struct opts *o, const char *path, struct tally *t)
{
	struct jh_reader r;
	struct jh_err e;
	struct jh_buf out;
	struct jh_env env;
	struct jh_arena a;
	const uint8_t *item;
	size_t len;
	unsigned long idx = 0;
	uint64_t off;
	int fd, x, rc = 0, ok;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		warn("%s", path);
		return (-2);
	} else {
		/* O_NONBLOCK only to not hang on a FIFO at open. */
		int fl = fcntl(fd, F_GETFL);
		if (fl != -1)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	jh_reader_init(&r, fd);
	jh_buf_init(&out);
	jh_arena_init(&a);
	for (;;) {
		off = r.offset + r.pos;
		x = jh_reader_cbor(&r, &item, &len, &e);
		if (x == 0)
			break;
		idx++;
		t->objects++;
		if (x != 1) {
			/* Cannot frame the rest: report and stop. */
			t->failed++;
			if (report(&out, o, path, idx, off, NULL, 0, &e) == -1)
				rc = -1;
			break;
		}
		jh_arena_reset(&a);
		ok = verify_one(&env, &a, o, item, len, &e) == 0;
		if (ok)
			t->ok++;
		else
			t->failed++;
		if (report(&out, o, path, idx, off, &env, ok, &e) == -1)
			rc = -1;
		if (rc == -1)
			break;
	}
	jh_arena_free(&a);
	jh_buf_free(&out);
	jh_reader_free(&r);
	if (fd != STDIN_FILENO)
		close(fd);
	return (rc);
}

static void
load_default(struct opts *o, const char *home, const char *name, int role)
{
	struct jh_err e;
	char path[4096];

	if (jh_path_join(path, sizeof(path), home, name) == -1)
		return;
	if (access(path, F_OK) != 0)
		return;
	if (jh_keyset_load(&o->keys, path, role, &e) == -1)
		errx(2, "%s", e.msg);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct tally t = { 0, 0, 0 };
	struct jh_err e;
	char home[4096];
	int ch, i, rc = 0, given = 0, x;

	memset(&o, 0, sizeof(o));
	jh_keyset_init(&o.keys);
	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt(argc, argv, "hp:qs:t:")) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout, 0);
			break;
		case 'p':
			if (jh_keyset_add_did(&o.keys, optarg,
			    JH_ROLE_STEWARD | JH_ROLE_ISSUER, &e) == -1)
				errx(2, "-p: %s", e.msg);
			given = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 's':
		case 't':
			if (jh_keyset_load(&o.keys, optarg, ch == 's' ?
			    JH_ROLE_STEWARD : JH_ROLE_ISSUER, &e) == -1)
				errx(2, "%s", e.msg);
			given = 1;
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	if (!given && jh_home(home, sizeof(home)) != NULL) {
		load_default(&o, home, "stewards", JH_ROLE_STEWARD);
		load_default(&o, home, "trust", JH_ROLE_ISSUER);
	}
	if (o.keys.n == 0)
		errx(2, "no trusted keys: give -p, -s or -t, or list keys in "
		    "JH_HOME/stewards and JH_HOME/trust");

	if (argc == 0)
		rc = run_file(&o, "-", &t);
	for (i = 0; i < argc && rc != -1; i++)
		if ((x = run_file(&o, argv[i], &t)) != 0)
			rc = x;
	if (rc != -1 && !o.quiet) {
		printf("{\"summary\":{\"objects\":%lu,\"verified\":%lu,"
		    "\"failed\":%lu}}\n", t.objects, t.ok, t.failed);
	}
	jh_keyset_free(&o.keys);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (2);
	}
	if (rc == -1 || rc == -2)
		return (2);
	return (t.failed ? 1 : 0);
}
