/*
 * joulehook fuzz targets: what they share.  The scratch world (a home
 * with a project in it), the effect extractor's checks (fuzz-shell.c,
 * fuzz-cmdopts.c), and the fixed test keys (the envelope, grant and MCP
 * targets).  Not every target uses every helper, hence FZ_UNUSED.
 *
 * The effect extractor (lib/effects.h) is referenced weakly, so a target
 * links against whatever library the tree has: where jh_shell_effects is
 * not there yet, the target fuzzes what is (the parser) and says so once.
 * The build links the library's objects, not an archive, so an extractor
 * that is there is always linked in.
 */
#ifndef JH_FUZZ_COMMON_H
#define JH_FUZZ_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sodium.h>

#include "jh.h"
#include "effects.h"
#include "keys.h"
#include "shellparse.h"

#pragma weak jh_shell_effects
#pragma weak jh_effects_init
#pragma weak jh_effects_free
#pragma weak jh_eff_name

#define FZ_UNUSED	__attribute__((unused))

/*
 * ASan's quarantine, which keeps freed memory poisoned before it is used
 * again: 32 MiB rather than 256, so that the memory the targets reuse
 * stays mapped (fresh pages cost a fault each, with their zeroing a
 * quarter and more of fuzz-grant's and fuzz-acp's time).  One input
 * frees about 1 MiB at most (max_len 4096; fuzz-mcp's corpus 1.2 MiB),
 * so whatever an input frees stays poisoned to its end: no use after
 * free within an input goes unseen.  ASAN_OPTIONS still overrides it.
 */
const char *__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return ("quarantine_size_mb=32");
}

/* The source tree, for the test keys and the coefficients (the Makefile). */
#ifndef FZ_TOP
#define FZ_TOP	"."
#endif

/* The scratch world: a home with a project in it. */
static char fz_base[64], fz_home[128], fz_root[192], fz_cwd[256];

static int
fz_rm(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb; (void)flag; (void)f;
	return (remove(p));
}

static void
fz_cleanup(void)
{
	if (fz_base[0] != '\0')
		nftw(fz_base, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static FZ_UNUSED void
fz_put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static FZ_UNUSED int
fz_have_effects(void)
{
	return (jh_shell_effects != NULL && jh_effects_init != NULL &&
	    jh_effects_free != NULL);
}

/*
 * Makes the scratch world once; says what is fuzzed.  It is made in
 * TMPDIR, else in /dev/shm where there is one: memory, so that the
 * files a target writes and removes for each input (a grant, a ledger)
 * cost no journal.
 */
static FZ_UNUSED void
fz_world(const char *target, const char *what)
{
	const char *tmp = getenv("TMPDIR");
	char p[512];

	if (tmp == NULL)
		tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" :
		    "/tmp";
	snprintf(fz_base, sizeof(fz_base), "%s/jh-fuzz.XXXXXX", tmp);
	if (mkdtemp(fz_base) == NULL) {
		perror("mkdtemp");
		abort();
	}
	atexit(fz_cleanup);
	snprintf(fz_home, sizeof(fz_home), "%s/home", fz_base);
	snprintf(fz_root, sizeof(fz_root), "%s/src/proj", fz_home);
	snprintf(fz_cwd, sizeof(fz_cwd), "%s/src", fz_root);
	mkdir(fz_home, 0700);
	snprintf(p, sizeof(p), "%s/src", fz_home);
	mkdir(p, 0700);
	mkdir(fz_root, 0700);
	mkdir(fz_cwd, 0700);
	snprintf(p, sizeof(p), "%s/.git", fz_root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/.ssh", fz_home);
	mkdir(p, 0700);
	fz_put(fz_root, "Makefile", "all:\n");
	fz_put(fz_root, "package.json", "{}\n");
	fz_put(fz_root, ".env", "K=v\n");
	fz_put(fz_root, ".git/config", "[core]\n");
	fz_put(fz_cwd, "a.c", "int a;\n");
	fz_put(fz_home, ".bashrc", "# rc\n");
	fz_put(fz_home, ".ssh/id_rsa", "key\n");
	snprintf(p, sizeof(p), "%s/link", fz_root);
	if (symlink(fz_home, p) == -1)
		perror("symlink");
	fprintf(stderr, "%s: world %s; %s\n", target, fz_base, what);
}

/* The world, and whether the effect extractor is fuzzed (without, where
   the library has none). */
static FZ_UNUSED void
fz_init(const char *target, const char *without)
{
	fz_world(target, fz_have_effects() ?
	    "fuzzing with the effect extractor" : without);
}

/* Every field of every effect is read, so a bad pointer shows. */
static FZ_UNUSED size_t
fz_touch(const struct jh_effects *fx)
{
	size_t i, sum = 0;

	for (i = 0; i < fx->n; i++) {
		const struct jh_effect *f = &fx->v[i];

		if (f->kind < 0 || f->kind >= JH_E_NKINDS)
			abort();
		if (jh_eff_name != NULL && jh_eff_name(f->kind) == NULL)
			abort();
		if (f->path != NULL) {
			sum += strlen(f->path);
			if (f->path[0] != '/')
				abort();	/* resolved paths are absolute */
		}
		if (f->program != NULL)
			sum += strlen(f->program);
		if (f->arg != NULL)
			sum += strlen(f->arg);
		sum += (size_t)f->flags + f->cmd;
	}
	return (sum);
}

/* The effects of a script, checked and freed. */
static FZ_UNUSED void
fz_effects(const struct jh_sh_script *sc)
{
	struct jh_effects fx;
	struct jh_effctx c = { fz_cwd, fz_root, fz_home };
	struct jh_err e;
	volatile size_t sink;

	if (!fz_have_effects())
		return;
	jh_effects_init(&fx);
	if (jh_shell_effects(&fx, &c, sc, &e) == 0)
		sink = fz_touch(&fx);
	else
		sink = strlen(e.msg);
	(void)sink;
	jh_effects_free(&fx);
}

/*
 * The fixed test keys of conformance/v1/keys (never for anything else):
 * copied into the world at mode 600, as jh_key_load wants a secret key,
 * and loaded; fz_trust trusts the steward as a steward and the issuer as
 * an issuer, from the .pub files.  Call after fz_world.
 */
static struct jh_key fz_steward, fz_issuer;
static struct jh_keyset fz_trust;

static FZ_UNUSED void
fz_keys(void)
{
	static const char *const name[2] = { "steward.key", "issuer.key" };
	static const int role[2] = { JH_ROLE_STEWARD, JH_ROLE_ISSUER };
	struct jh_key *k[2] = { &fz_steward, &fz_issuer };
	char src[512], dst[512], buf[4096];
	struct jh_err e;
	ssize_t n;
	int i, in, out;

	if (sodium_init() == -1) {
		fprintf(stderr, "sodium_init failed\n");
		abort();
	}
	snprintf(dst, sizeof(dst), "%s/keys", fz_base);
	mkdir(dst, 0700);
	jh_keyset_init(&fz_trust);
	for (i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/conformance/v1/keys/%s", FZ_TOP,
		    name[i]);
		snprintf(dst, sizeof(dst), "%s/keys/%s", fz_base, name[i]);
		if ((in = open(src, O_RDONLY)) == -1 ||
		    (n = read(in, buf, sizeof(buf))) <= 0 ||
		    (out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1 ||
		    write(out, buf, (size_t)n) != n) {
			perror(src);
			abort();
		}
		close(in);
		close(out);
		if (jh_key_load(k[i], dst, NULL, NULL, &e) == -1) {
			fprintf(stderr, "%s\n", e.msg);
			abort();
		}
		snprintf(src, sizeof(src), "%s/conformance/v1/keys/%s.pub",
		    FZ_TOP, name[i]);
		if (jh_keyset_load(&fz_trust, src, role[i], &e) == -1) {
			fprintf(stderr, "%s\n", e.msg);
			abort();
		}
	}
}

#endif
