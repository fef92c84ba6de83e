/*
 * jh-chain: append sealed receipts to their session's hash-chained log,
 * durably, and pass the chain/1 entry on; print signed checkpoints.
 */
#include <sys/file.h>
#include <sys/resource.h>

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
#include "buf.h"
#include "cbor.h"
#include "chain.h"
#include "cose.h"
#include "json.h"
#include "keys.h"
#include "statefs.h"
#include "util.h"
#include "verify.h"

#define PROG "jh-chain"

struct opts {
	int checkpoint;
	int json;
	const char *keyfile;
	const char *logfile;
	const char *state;
	const char *session;
	unsigned wait_ms;	/* lock wait */
	uint64_t deadline_ms;	/* how far a receipt may predate the head */
	struct jh_keyset keys;
	struct jh_key key;
};

static void
usage(FILE *f, int status)
{
	fprintf(f,
	    "usage: %s [-j] [-d ms] [-k keyfile] [-l logfile | -S statedir] "
	    "[-s stewards] [-w ms]\n"
	    "                [file ...]\n"
	    "       %s -c [-j] [-k keyfile] [-w ms] "
	    "[-l logfile | -S statedir -i session]\n"
	    "       %s -h\n", PROG, PROG, PROG);
	exit(status);
}

static int
out_entry(const struct opts *o, const struct jh_buf *entry)
{
	struct jh_buf j;
	int rc = 0;

	if (!o->json)
		return (fwrite(entry->p, 1, entry->len, stdout) == entry->len ?
		    0 : -1);
	jh_buf_init(&j);
	if (jh_chain_json(&j, entry->p, entry->len) == 0)
		jh_buf_addc(&j, '\n');
	else
		j.oom = 1;
	if (j.oom)
		warnx("out of memory");
	if (j.oom || fwrite(j.p, 1, j.len, stdout) != j.len)
		rc = -1;
	jh_buf_free(&j);
	return (rc);
}

/*
 * Chains one receipt.  Returns 0 when appended and written, 1 when the
 * receipt was refused, 2 when it could not be done (lock, I/O, damage),
 * -1 on a write error to stdout.
 */
static int
chain_one(struct opts *o, const uint8_t *p, size_t n, unsigned long idx)
{
	struct jh_chainer c;
	struct jh_buf entry;
	struct jh_err e, note;
	int rc;

	memset(&c, 0, sizeof(c));
	c.keys = &o->keys;
	c.key = &o->key;
	c.state = o->state;
	c.logfile = o->logfile;
	c.wait_ms = o->wait_ms;
	c.deadline_ms = o->deadline_ms;
	jh_buf_init(&entry);
	rc = jh_chain_receipt(&entry, &c, p, n, &note, &e);
	if (note.msg[0] != '\0')
		warnx("%s", note.msg);
	if (rc == 1)
		warnx("receipt %lu: %s", idx, e.msg);
	else if (rc != 0)
		warnx("%s", e.msg);
	else if (out_entry(o, &entry) == -1)
		rc = -1;
	jh_buf_free(&entry);
	return (rc);
}

static int
checkpoint(struct opts *o)
{
	struct jh_log *l;
	struct jh_err e;
	struct jh_buf core, env;
	struct jh_cmap m;
	uint8_t nonce[JH_NONCE_LEN];
	uint64_t cut;
	int rc = 2;

	if ((l = malloc(sizeof(*l))) == NULL)
		errx(2, "out of memory");
	jh_buf_init(&core);
	jh_buf_init(&env);
	jh_cmap_init(&m);
	if (jh_log_open(l, o->state, o->logfile, (const uint8_t *)o->session,
	    o->session ? strlen(o->session) : 0, 0, &e) == -1) {
		warnx("%s", e.msg);
		goto out;
	}
	if (jh_flock(l->fd, LOCK_SH, o->wait_ms, &e) == -1 ||
	    jh_log_head(l, &o->keys, 0, &cut, &e) == -1) {
		warnx("%s: %s", l->name, e.msg);
		goto out;
	}
	flock(l->fd, LOCK_UN);
	if (l->head.count == 0) {
		warnx("%s: the log is empty", l->name);
		goto out;
	}
	jh_cbor_put_text(jh_cmap_tkey(&m, "profile", 7), JH_PROFILE,
	    strlen(JH_PROFILE));
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "kind", 4), "checkpoint/1", 12);
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "steward", 7), o->key.did,
	    strlen(o->key.did));
	jh_cmap_next(&m);
	jh_cbor_put_uint(jh_cmap_tkey(&m, "ts", 2), jh_now_ms());
	jh_cmap_next(&m);
	jh_nonce(nonce);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "nonce", 5), nonce, JH_NONCE_LEN);
	jh_cmap_next(&m);
	jh_cbor_put_text(jh_cmap_tkey(&m, "session", 7),
	    (const char *)l->session, l->slen);
	jh_cmap_next(&m);
	jh_cbor_put_uint(jh_cmap_tkey(&m, "count", 5), l->head.count);
	jh_cmap_next(&m);
	jh_cbor_put_bytes(jh_cmap_tkey(&m, "head", 4), l->head.hash,
	    JH_HASH_LEN);
	jh_cmap_next(&m);
	if (jh_cmap_finish(&core, &m, &e) == -1 ||
	    jh_seal(&env, &o->key, core.p, core.len, &e) == -1) {
		warnx("%s", e.msg);
		goto out;
	}
	if (o->json) {
		struct jh_arena a;
		struct jh_cbor *c;
		struct jh_buf j;

		jh_arena_init(&a);
		jh_buf_init(&j);
		if (jh_cbor_decode_all(&c, &a, core.p, core.len, 0, &e) == 0) {
			jh_buf_adds(&j, "{\"kind\":\"checkpoint/1\",\"core\":");
			jh_cbor_to_json(&j, c);
			jh_buf_adds(&j, "}\n");
			fwrite(j.p, 1, j.len, stdout);
		}
		jh_buf_free(&j);
		jh_arena_free(&a);
	} else
		fwrite(env.p, 1, env.len, stdout);
	rc = 0;
out:
	jh_log_close(l);
	free(l);
	jh_cmap_free(&m);
	jh_buf_free(&core);
	jh_buf_free(&env);
	return (rc);
}

/*
 * Chains each receipt of one input (jh_each_file).  Returns the highest
 * status of its receipts (chain_one), 1 when an item could not be framed
 * (the rest of the input is not read), 2 when the input could not be
 * read, -1 on a write error.
 */
static int
run_file(void *arg, struct jh_reader *r, const char *path)
{
	struct opts *o = arg;
	struct jh_err e;
	const uint8_t *item;
	size_t len;
	unsigned long idx = 0;
	int x, worst = 0;

	while ((x = jh_reader_cbor(r, &item, &len, &e)) == 1) {
		idx++;
		if ((x = chain_one(o, item, len, idx)) == -1)
			return (-1);
		if (x > worst)
			worst = x;
	}
	if (x != 0) {
		warnx("%s: %s", path, e.msg);
		if (worst < (r->err != 0 ? 2 : 1))
			worst = r->err != 0 ? 2 : 1;
	}
	return (worst);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct rlimit rl = { 0, 0 };
	struct jh_err e;
	struct jh_where w;
	const char *stewards = NULL;
	int ch, worst;
	char *end;

	memset(&o, 0, sizeof(o));
	o.wait_ms = 3000;
	o.deadline_ms = 60000;
	jh_keyset_init(&o.keys);
	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_IGN);
	/* A file-size limit is an error to report, not a signal to die of. */
	signal(SIGXFSZ, SIG_IGN);
	while ((ch = getopt(argc, argv, "cd:hi:jk:l:S:s:w:")) != -1) {
		switch (ch) {
		case 'c':
			o.checkpoint = 1;
			break;
		case 'd':
			o.deadline_ms = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' ||
			    o.deadline_ms > 86400000ULL * 365)
				usage(stderr, 2);
			break;
		case 'h':
			usage(stdout, 0);
			break;
		case 'i':
			o.session = optarg;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'k':
			o.keyfile = optarg;
			break;
		case 'l':
			o.logfile = optarg;
			break;
		case 'S':
			o.state = optarg;
			break;
		case 's':
			stewards = optarg;
			break;
		case 'w':
			if (jh_parse_ms(&o.wait_ms, optarg) == -1)
				usage(stderr, 2);
			break;
		default:
			usage(stderr, 2);
		}
	}
	argc -= optind;
	argv += optind;
	if (o.logfile != NULL && o.state != NULL)
		usage(stderr, 2);
	if (o.checkpoint && (argc != 0 ||
	    (o.logfile == NULL && o.session == NULL)))
		usage(stderr, 2);
	if (sodium_init() < 0)
		errx(2, "libsodium failed to initialise");
	memset(&w, 0, sizeof(w));
	w.key = o.keyfile;
	w.state = o.state;
	jh_where_fill(&w);
	if ((o.keyfile = w.key) == NULL)
		errx(2, "no key: give -k or set JH_HOME");
	if (o.logfile == NULL && (o.state = w.state) == NULL)
		errx(2, "no state directory: give -S or set JH_STATE");
	if (jh_key_load(&o.key, o.keyfile, NULL, NULL, &e) == -1)
		errx(2, "%s", e.msg);
	if (o.key.role != JH_ROLE_STEWARD)
		errx(2, "%s is an %s key; the chain is signed by a steward key",
		    o.keyfile, jh_role_name(o.key.role));
	/* Receipts are accepted from our own key and the listed stewards. */
	jh_keyset_add(&o.keys, o.key.pk, JH_ROLE_STEWARD);
	if (stewards == NULL && w.stewards != NULL &&
	    access(w.stewards, F_OK) == 0)
		stewards = w.stewards;
	if (stewards != NULL && jh_keyset_load(&o.keys, stewards,
	    JH_ROLE_STEWARD, &e) == -1)
		errx(2, "%s", e.msg);

	if (o.checkpoint)
		worst = checkpoint(&o);
	else
		worst = jh_each_file(argc, argv, 0, run_file, &o);
	jh_key_wipe(&o.key);
	jh_keyset_free(&o.keys);
	if (jh_fshut(stdout, "stdout") != 0 || worst == -1)
		return (2);
	return (worst);
}
