/*
 * The baseline for make bench: raw crypto_sign_verify_detached over the
 * same signatures and messages jh-verify checks.  Framing and parsing
 * happen before the clock starts; only the verification is timed.
 *
 *   bench-ed25519 FILE      prints "<count> <seconds>"
 *
 * For a log, each chain/1 entry counts twice: its own signature and the
 * embedded receipt's, which is what jh-verify checks.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "cose.h"
#include "util.h"

struct msg {
	uint8_t *m;
	size_t n;
	uint8_t sig[64];
	uint8_t pk[32];
};

static void
sig_structure(struct jh_buf *b, const struct jh_env *env)
{
	jh_cbor_head(b, 4, 4);
	jh_cbor_put_text(b, "Signature1", 10);
	jh_cbor_put_bytes(b, env->protected_p, env->protected_len);
	jh_cbor_put_bytes(b, NULL, 0);
	jh_cbor_put_bytes(b, env->payload_p, env->payload_len);
}

int
main(int argc, char *argv[])
{
	struct jh_reader r;
	struct jh_err e;
	struct msg *v = NULL;
	size_t n = 0, cap = 0, i, bad = 0;
	const uint8_t *item;
	size_t len;
	struct timespec t0, t1;
	int fd;

	if (argc != 2)
		errx(2, "usage: bench-ed25519 file");
	if (sodium_init() < 0)
		errx(2, "sodium_init");
	if ((fd = open(argv[1], O_RDONLY)) == -1)
		err(2, "%s", argv[1]);
	jh_reader_init(&r, fd);
	while (jh_reader_cbor(&r, &item, &len, &e) == 1) {
		struct jh_arena a;
		struct jh_env env;
		struct jh_buf b;

		jh_arena_init(&a);
		if (jh_env_parse(&env, &a, item, len, &e) == -1)
			errx(2, "%s", e.msg);
		for (;;) {
			const struct jh_cbor *rc;

			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				if ((v = realloc(v, cap * sizeof(*v))) == NULL)
					err(2, NULL);
			}
			jh_buf_init(&b);
			sig_structure(&b, &env);
			v[n].m = b.p;
			v[n].n = b.len;
			memcpy(v[n].sig, env.sig, 64);
			memcpy(v[n].pk, env.kid, 32);
			n++;
			if (strcmp(env.kind, "chain/1") != 0 ||
			    (rc = jh_cbor_get(env.core, "receipt")) == NULL)
				break;
			if (jh_env_parse(&env, &a, rc->p, rc->len, &e) == -1)
				errx(2, "%s", e.msg);
		}
		jh_arena_free(&a);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		if (crypto_sign_verify_detached(v[i].sig, v[i].m, v[i].n,
		    v[i].pk) != 0)
			bad++;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (bad)
		errx(1, "%zu signatures failed", bad);
	printf("%zu %.6f\n", n, (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (i = 0; i < n; i++)
		free(v[i].m);
	free(v);
	jh_reader_free(&r);
	return (0);
}
