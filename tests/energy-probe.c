/*
 * energy-probe: drives lib/energy.c for tests/energy.bats.
 *
 *   energy-probe probe                       the ladder: one line per rung
 *   energy-probe measure [-t uj] [-P mW]     sample, wait for a line on
 *                                            stdin, sample, print the energy
 *   energy-probe tokens FILE MODEL IN OUT CR CW
 *                                            the family and tokens x coeffs
 *   energy-probe usage anthropic|chat|responses JSON
 *                                            the usage as jh-proxy reads it
 *   energy-probe coeffs FILE                 load (and so check) a file
 *   energy-probe tflock FILE MS              take an exclusive lock with
 *                                            jh_tflock from a second thread
 *
 * The test build reads JH_POWERCAP_ROOT and JH_NVML_LIB.
 */
#include <sys/file.h>

#include <err.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "energy.h"
#include "json.h"
#include "statefs.h"

static void
usage(void)
{
	fprintf(stderr, "usage: energy-probe probe | measure [-t uj] [-P mW] | "
	    "tokens file model in out cr cw | usage api json | coeffs file | "
	    "tflock file ms\n");
	exit(2);
}

static int
probe(void)
{
	struct jh_ladder_cfg cfg;
	struct jh_ladder l;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	jh_ladder_cfg_env(&cfg);
	jh_ladder_open(&l, &cfg);
	for (i = 0; i < JH_RUNGS; i++)
		printf("%s %s %s\n", jh_rung_name(i), i == l.selected ?
		    "selected" : l.live[i] ? "live" : "declined", l.why[i]);
	jh_ladder_close(&l);
	return (0);
}

static int
measure(int argc, char **argv)
{
	struct jh_ladder_cfg cfg;
	struct jh_ladder l;
	struct jh_sample a, b;
	struct jh_energy en;
	char line[64];
	uint64_t tok = 0;
	int have = 0, ch;

	memset(&cfg, 0, sizeof(cfg));
	while ((ch = getopt(argc, argv, "P:t:")) != -1) {
		switch (ch) {
		case 'P':
			cfg.calibrated_mw = strtoull(optarg, NULL, 10);
			break;
		case 't':
			tok = strtoull(optarg, NULL, 10);
			have = 1;
			break;
		default:
			usage();
		}
	}
	jh_ladder_cfg_env(&cfg);
	jh_ladder_open(&l, &cfg);
	jh_ladder_sample(&l, &a);
	printf("ready %s\n", jh_rung_name(l.selected));
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		errx(2, "no go line");
	jh_ladder_sample(&l, &b);
	jh_ladder_energy(&en, &l, &a, &b, have, tok, 0);
	printf("{\"provenance\":\"%s\",\"method\":\"%s\",\"estimated_uj\":%llu",
	    en.provenance, en.method, (unsigned long long)en.estimated_uj);
	if (en.measured)
		printf(",\"measured_uj\":%llu,\"scope\":\"%s\"",
		    (unsigned long long)en.measured_uj, en.scope);
	printf("}\n");
	jh_ladder_close(&l);
	return (0);
}

static int
tokens(char **argv)
{
	struct jh_coeffs c;
	struct jh_usage u;
	struct jh_err e;
	const struct jh_coeff *f;

	if (jh_coeffs_load(&c, argv[0], &e) == -1)
		errx(1, "%s", e.msg);
	memset(&u, 0, sizeof(u));
	u.in = strtoull(argv[2], NULL, 10);
	u.out = strtoull(argv[3], NULL, 10);
	u.cache_read = strtoull(argv[4], NULL, 10);
	u.cache_write = strtoull(argv[5], NULL, 10);
	f = jh_coeffs_find(&c, argv[1]);
	printf("%s#%s %llu\n", c.id, f->family,
	    (unsigned long long)jh_tokens_uj(f, &u));
	jh_coeffs_free(&c);
	return (0);
}

static int
use(const char *api, const char *js)
{
	struct jh_usage u;
	struct jh_err e;
	json_t *j;
	int r = -1;

	if ((j = jh_json_parse(js, strlen(js), &e)) == NULL)
		errx(2, "%s", e.msg);
	memset(&u, 0, sizeof(u));
	if (strcmp(api, "anthropic") == 0)
		r = jh_usage_anthropic(&u, j, &e);
	else if (strcmp(api, "chat") == 0)
		r = jh_usage_chat(&u, j, &e);
	else if (strcmp(api, "responses") == 0)
		r = jh_usage_responses(&u, j, &e);
	else
		usage();
	json_decref(j);
	if (r == -1) {
		printf("refused: %s\n", e.msg);
		return (1);
	}
	printf("in=%llu out=%llu cache_read=%llu cache_write=%llu have=%d%d\n",
	    (unsigned long long)u.in, (unsigned long long)u.out,
	    (unsigned long long)u.cache_read,
	    (unsigned long long)u.cache_write, u.have_in, u.have_out);
	return (0);
}

struct lockarg {
	const char *path;
	unsigned ms;
	int rc;
	char msg[256];
};

static void *
locker(void *p)
{
	struct lockarg *a = p;
	struct jh_err e;
	int fd;

	if ((fd = open(a->path, O_RDWR | O_CLOEXEC)) == -1) {
		a->rc = 2;
		return (NULL);
	}
	a->rc = jh_tflock(fd, LOCK_EX, a->ms, &e) == 0 ? 0 : 1;
	if (a->rc)
		snprintf(a->msg, sizeof(a->msg), "%s", e.msg);
	close(fd);
	return (NULL);
}

/*
 * Takes the lock from a second thread while the main thread sleeps in a
 * read of a pipe: only the locking thread may be interrupted.
 */
static int
tflock(const char *path, const char *ms)
{
	struct lockarg a;
	pthread_t t;
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 4);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	memset(&a, 0, sizeof(a));
	a.path = path;
	a.ms = (unsigned)strtoul(ms, NULL, 10);
	if (pthread_create(&t, NULL, locker, &a) != 0)
		errx(2, "pthread_create");
	pthread_join(t, NULL);
	if (a.rc == 0)
		printf("locked\n");
	else
		printf("not locked: %s\n", a.msg);
	return (a.rc);
}

int
main(int argc, char *argv[])
{
	struct jh_coeffs c;
	struct jh_err e;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "probe") == 0)
		return (probe());
	if (strcmp(argv[1], "measure") == 0)
		return (measure(argc - 1, argv + 1));
	if (strcmp(argv[1], "tokens") == 0 && argc == 8)
		return (tokens(argv + 2));
	if (strcmp(argv[1], "usage") == 0 && argc == 4)
		return (use(argv[2], argv[3]));
	if (strcmp(argv[1], "coeffs") == 0 && argc == 3) {
		if (jh_coeffs_load(&c, argv[2], &e) == -1) {
			printf("refused: %s\n", e.msg);
			return (1);
		}
		printf("%s %zu families %s\n", c.id, c.n, c.digest);
		jh_coeffs_free(&c);
		return (0);
	}
	if (strcmp(argv[1], "tflock") == 0 && argc == 4)
		return (tflock(argv[2], argv[3]));
	usage();
	return (2);
}
