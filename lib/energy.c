/*
 * joulehook: the energy module, shared by jh-proxy and jh-meter
 * (jh-proxy(1), Energy; jh-meter(1)): provider token usage read with
 * each API's semantics, token coefficients from one data file, and the
 * metering ladder.
 *
 * The ladder, top first:
 *   RAPL    package counters in powercap sysfs           HwShunt
 *   NVML    GPU total energy, libnvidia-ml by dlopen      HwShunt (GPU only)
 *   model   elapsed time x a power the host calibrated   ModelBased
 *   tokens  tokens x per-family coefficients             Estimator
 *   time    elapsed time x a documented default power     Estimator
 * A rung is used only while it is live; measured_uj is sealed only from a
 * counter read at both ends of the interval (the provenance contract of
 * joule-code-receipt.md 2).  All amounts are unsigned 64-bit microjoules
 * and saturate.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "energy.h"
#include "json.h"
#include "ledger.h"
#include "util.h"

#define POWERCAP	"/sys/class/powercap"
#define NVML_LIB	"libnvidia-ml.so.1"
#define COEFF_MAX	(4u * 1024 * 1024)	/* the data file */
#define UJ_PER_TOKEN_MAX 1000000000ULL		/* 1 kJ a token is absurd */

uint64_t
jh_mul_sat(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return (UINT64_MAX);
	return (a * b);
}

/* --- usage ------------------------------------------------------------ */

/*
 * Reads one token count: absent or null leaves *have 0; anything but a
 * JSON integer from 0 to JH_TOKENS_MAX is refused (a negative, fractional
 * or absurd count never reaches the ledger).
 */
static int
count(uint64_t *out, int *have, const json_t *o, const char *k,
    struct jh_err *e)
{
	json_t *v = json_object_get(o, k);
	json_int_t n;

	*have = 0;
	if (v == NULL || json_is_null(v))
		return (0);
	if (!json_is_integer(v))
		return (jh_errf(e, "usage %s is not an integer", k));
	n = json_integer_value(v);
	if (n < 0)
		return (jh_errf(e, "usage %s is negative", k));
	if ((uint64_t)n > JH_TOKENS_MAX)
		return (jh_errf(e, "usage %s of %lld tokens is absurd", k,
		    (long long)n));
	*out = (uint64_t)n;
	*have = 1;
	return (0);
}

/*
 * Anthropic Messages usage (message.usage, message_start.message.usage,
 * message_delta.usage): input_tokens excludes the cache, which has its own
 * two fields.  Only the fields present are updated: message_delta carries
 * cumulative values, the last one seen wins.
 */
int
jh_usage_anthropic(struct jh_usage *u, const json_t *usage, struct jh_err *e)
{
	struct jh_usage t = *u;
	int h;

	if (!json_is_object(usage))
		return (jh_errf(e, "usage is not an object"));
	if (count(&t.in, &h, usage, "input_tokens", e) == -1)
		return (-1);
	t.have_in |= h;
	if (count(&t.out, &h, usage, "output_tokens", e) == -1)
		return (-1);
	t.have_out |= h;
	if (count(&t.cache_write, &h, usage, "cache_creation_input_tokens",
	    e) == -1 || count(&t.cache_read, &h, usage,
	    "cache_read_input_tokens", e) == -1)
		return (-1);
	*u = t;
	return (0);
}

/*
 * OpenAI usage: prompt (Chat Completions) or input (Responses) tokens
 * include the cached ones, so uncached input is the difference.
 */
static int
usage_openai(struct jh_usage *u, const json_t *usage, const char *fin,
    const char *fout, const char *fdet, struct jh_err *e)
{
	struct jh_usage t = *u;
	uint64_t in = 0, out = 0, cached = 0;
	int hi, ho, hc = 0;
	json_t *d;

	if (!json_is_object(usage))
		return (jh_errf(e, "usage is not an object"));
	if (count(&in, &hi, usage, fin, e) == -1 ||
	    count(&out, &ho, usage, fout, e) == -1)
		return (-1);
	d = json_object_get(usage, fdet);
	if (d != NULL && !json_is_null(d)) {
		if (!json_is_object(d))
			return (jh_errf(e, "usage %s is not an object", fdet));
		if (count(&cached, &hc, d, "cached_tokens", e) == -1)
			return (-1);
	}
	if (hc && hi && cached > in)
		return (jh_errf(e, "usage: %llu cached of %llu input tokens",
		    (unsigned long long)cached, (unsigned long long)in));
	if (hi) {
		t.in = in - (hc ? cached : 0);
		t.cache_read = hc ? cached : 0;
		t.have_in = 1;
	}
	if (ho) {
		t.out = out;
		t.have_out = 1;
	}
	*u = t;
	return (0);
}

int
jh_usage_chat(struct jh_usage *u, const json_t *usage, struct jh_err *e)
{
	return (usage_openai(u, usage, "prompt_tokens", "completion_tokens",
	    "prompt_tokens_details", e));
}

int
jh_usage_responses(struct jh_usage *u, const json_t *usage, struct jh_err *e)
{
	return (usage_openai(u, usage, "input_tokens", "output_tokens",
	    "input_tokens_details", e));
}

/*
 * Gemini usageMetadata (generateContent, every streamGenerateContent
 * chunk; the last one is the call's total): promptTokenCount includes
 * cachedContentTokenCount, so uncached input is the difference, plus
 * toolUsePromptTokenCount (the prompt of a server-side tool's result);
 * output is candidatesTokenCount plus thoughtsTokenCount.  A count that
 * is 0 is left out on the wire (proto3 JSON), so an absent one is 0 when
 * the object names the side at all; each object replaces the last.
 */
int
jh_usage_gemini(struct jh_usage *u, const json_t *usage, struct jh_err *e)
{
	struct jh_usage t = *u;
	uint64_t p = 0, cached = 0, tool = 0, cand = 0, th = 0, tot = 0;
	int hp, hc, ht, hd, hth, htot;

	if (!json_is_object(usage))
		return (jh_errf(e, "usageMetadata is not an object"));
	if (count(&p, &hp, usage, "promptTokenCount", e) == -1 ||
	    count(&cached, &hc, usage, "cachedContentTokenCount", e) == -1 ||
	    count(&tool, &ht, usage, "toolUsePromptTokenCount", e) == -1 ||
	    count(&cand, &hd, usage, "candidatesTokenCount", e) == -1 ||
	    count(&th, &hth, usage, "thoughtsTokenCount", e) == -1 ||
	    count(&tot, &htot, usage, "totalTokenCount", e) == -1)
		return (-1);
	if (cached > p)
		return (jh_errf(e, "usageMetadata: %llu cached of %llu prompt "
		    "tokens", (unsigned long long)cached,
		    (unsigned long long)p));
	if (p - cached + tool > JH_TOKENS_MAX || cand + th > JH_TOKENS_MAX)
		return (jh_errf(e, "usageMetadata: more than %llu tokens in "
		    "one call is absurd", (unsigned long long)JH_TOKENS_MAX));
	if (hp || hc || ht) {
		t.in = p - cached + tool;
		t.cache_read = cached;
		t.have_in = 1;
	}
	if (hd || hth || htot) {
		t.out = cand + th;
		t.have_out = 1;
	}
	*u = t;
	return (0);
}

/* --- coefficients ----------------------------------------------------- */

void
jh_coeffs_free(struct jh_coeffs *c)
{
	size_t i, j;

	for (i = 0; i < c->n; i++) {
		for (j = 0; j < c->fam[i].nmatch; j++)
			free(c->fam[i].match[j]);
		free(c->fam[i].match);
	}
	free(c->fam);
	memset(c, 0, sizeof(*c));
}

/* One figure: {"uj": N, "source": "...", "uncertainty": "..."}. */
static int
figure(uint64_t *out, const json_t *fam, const char *fname, const char *k,
    struct jh_err *e)
{
	json_t *f = json_object_get(fam, k), *v;
	json_int_t n;

	if (!json_is_object(f))
		return (jh_errf(e, "family %s: no %s figure", fname, k));
	v = json_object_get(f, "uj");
	if (!json_is_integer(v) || (n = json_integer_value(v)) < 0 ||
	    (uint64_t)n > UJ_PER_TOKEN_MAX)
		return (jh_errf(e, "family %s: %s.uj must be an integer from 0 "
		    "to %llu", fname, k, (unsigned long long)UJ_PER_TOKEN_MAX));
	/* The contract of the file: no number without where it came from. */
	v = json_object_get(f, "source");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return (jh_errf(e, "family %s: %s has no source", fname, k));
	v = json_object_get(f, "uncertainty");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return (jh_errf(e, "family %s: %s has no uncertainty note",
		    fname, k));
	*out = (uint64_t)n;
	return (0);
}

static int
load_family(struct jh_coeff *c, const json_t *fam, size_t idx,
    struct jh_err *e)
{
	json_t *v, *m;
	const char *name;
	size_t i;

	v = json_object_get(fam, "family");
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= sizeof(c->family) ||
	    strchr(json_string_value(v), '#') != NULL)
		return (jh_errf(e, "families[%zu]: family must be a short name",
		    idx));
	name = json_string_value(v);
	snprintf(c->family, sizeof(c->family), "%s", name);
	if (figure(&c->in, fam, name, "input", e) == -1 ||
	    figure(&c->out, fam, name, "output", e) == -1 ||
	    figure(&c->cache_read, fam, name, "cache_read", e) == -1 ||
	    figure(&c->cache_write, fam, name, "cache_write", e) == -1)
		return (-1);
	m = json_object_get(fam, "match");
	if (!json_is_array(m) || json_array_size(m) == 0)
		return (jh_errf(e, "family %s: match must list patterns", name));
	if ((c->match = calloc(json_array_size(m), sizeof(char *))) == NULL)
		return (jh_errf(e, "out of memory"));
	for (i = 0; i < json_array_size(m); i++) {
		v = json_array_get(m, i);
		if (!json_is_string(v))
			return (jh_errf(e, "family %s: match[%zu] is not text",
			    name, i));
		if ((c->match[i] = strdup(json_string_value(v))) == NULL)
			return (jh_errf(e, "out of memory"));
		c->nmatch++;
	}
	return (0);
}

/*
 * Loads the coefficient file.  Every figure must name its source and
 * uncertainty, and some family must match every model ("*"), so no model
 * is ever metered at 0 J for want of a coefficient.
 */
int
jh_coeffs_load(struct jh_coeffs *c, const char *path, struct jh_err *e)
{
	struct jh_buf b;
	json_t *j = NULL, *v, *fams;
	size_t i, k;
	int fd, rc = -1, all = 0;

	memset(c, 0, sizeof(*c));
	jh_buf_init(&b);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	if (jh_read_all(&b, fd, COEFF_MAX, e) == -1) {
		close(fd);
		goto out;
	}
	close(fd);
	jh_sha256_id(c->digest, b.p, b.len);
	if ((j = jh_json_parse((const char *)b.p, b.len, e)) == NULL)
		goto out;
	v = json_object_get(j, "id");
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= sizeof(c->id)) {
		jh_errf(e, "%s: no id", path);
		goto out;
	}
	snprintf(c->id, sizeof(c->id), "%s", json_string_value(v));
	v = json_object_get(j, "default_power");
	if (json_is_object(v) && json_is_integer(json_object_get(v,
	    "uw_per_thread")) && json_integer_value(json_object_get(v,
	    "uw_per_thread")) > 0 && json_is_string(json_object_get(v,
	    "source")))
		c->thread_uw = (uint64_t)json_integer_value(json_object_get(v,
		    "uw_per_thread"));
	else {
		jh_errf(e, "%s: default_power needs uw_per_thread and a source",
		    path);
		goto out;
	}
	fams = json_object_get(j, "families");
	if (!json_is_array(fams) || json_array_size(fams) == 0) {
		jh_errf(e, "%s: no families", path);
		goto out;
	}
	if ((c->fam = calloc(json_array_size(fams), sizeof(*c->fam))) ==
	    NULL) {
		jh_errf(e, "out of memory");
		goto out;
	}
	for (i = 0; i < json_array_size(fams); i++) {
		c->n++;
		if (load_family(&c->fam[i], json_array_get(fams, i), i,
		    e) == -1) {
			char m[sizeof(e->msg)];
			memcpy(m, e->msg, sizeof(m));
			jh_errf(e, "%s: %s", path, m);
			goto out;
		}
		for (k = 0; k < c->fam[i].nmatch; k++)
			if (strcmp(c->fam[i].match[k], "*") == 0)
				all = 1;
	}
	if (!all) {
		jh_errf(e, "%s: no family matches every model (\"*\")", path);
		goto out;
	}
	rc = 0;
out:
	json_decref(j);
	jh_buf_free(&b);
	if (rc == -1)
		jh_coeffs_free(c);
	return (rc);
}

/*
 * The installed coefficient file: share/joulehook/coefficients.json beside
 * the program's bin/, or lib/coefficients.json of the source tree the
 * program was built in (bin/ or build/<variant>/bin/).
 */
const char *
jh_coeffs_path(char *out, size_t sz)
{
	static const char *const rel[] = {
	    "../share/joulehook/coefficients.json",
	    "../coefficients.json",		/* JH_HOME/bin's */
	    "../lib/coefficients.json",
	    "../../../lib/coefficients.json", NULL };
	char exe[4096], *slash;
	ssize_t n;
	size_t i;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return (NULL);
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return (NULL);
	*slash = '\0';
	for (i = 0; rel[i] != NULL; i++) {
		if (snprintf(out, sz, "%s/%s", exe, rel[i]) >= (int)sz)
			continue;
		if (access(out, R_OK) == 0)
			return (out);
	}
	return (NULL);
}

/* The first family with a pattern matching the model. */
const struct jh_coeff *
jh_coeffs_find(const struct jh_coeffs *c, const char *model)
{
	size_t i, k;

	if (model == NULL)
		model = "";
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->fam[i].nmatch; k++)
			if (fnmatch(c->fam[i].match[k], model, 0) == 0)
				return (&c->fam[i]);
	return (&c->fam[c->n - 1]);
}

/* tokens x coefficients, saturating. */
uint64_t
jh_tokens_uj(const struct jh_coeff *c, const struct jh_usage *u)
{
	uint64_t t;

	t = jh_mul_sat(u->in, c->in);
	t = jh_add_sat(t, jh_mul_sat(u->out, c->out));
	t = jh_add_sat(t, jh_mul_sat(u->cache_read, c->cache_read));
	t = jh_add_sat(t, jh_mul_sat(u->cache_write, c->cache_write));
	return (t);
}

/* --- the ladder ------------------------------------------------------- */

/* NVML's C interface, the few calls used (nvml.h, return 0 = success). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_energy_fn)(void *, unsigned long long *);
typedef int (*nvml_shutdown_fn)(void);

static const char *const rung_names[JH_RUNGS] = { "rapl", "nvml", "model",
    "tokens", "time" };

const char *
jh_rung_name(int r)
{
	return (r >= 0 && r < JH_RUNGS ? rung_names[r] : "?");
}

/* Reads a decimal counter from a sysfs file; -1 with errno on failure. */
static int
read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof(buf) - 1);
	saved = errno;
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? EINVAL : saved;
		return (-1);
	}
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') ||
	    buf[0] == '-') {
		errno = EINVAL;
		return (-1);
	}
	return (0);
}

static int
zone_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/*
 * Finds the package zones (intel-rapl:N, one colon: the subzones core,
 * uncore and dram are inside a package and are not added to it) and
 * checks that every one can be read now.
 */
static void
rapl_open(struct jh_ladder *l, const char *root)
{
	char *names[JH_RAPL_MAX], path[4096], name[64];
	struct dirent *d;
	DIR *dir;
	size_t n = 0, i;
	uint64_t v;
	int fd;
	ssize_t r;

	if ((dir = opendir(root)) == NULL) {
		snprintf(l->why[JH_RUNG_RAPL], sizeof(l->why[0]), "no %s (%s): "
		    "no powercap here, as in a virtual machine", root,
		    strerror(errno));
		return;
	}
	while ((d = readdir(dir)) != NULL && n < JH_RAPL_MAX) {
		const char *c = strchr(d->d_name, ':');
		if (c == NULL || strchr(c + 1, ':') != NULL ||
		    strncmp(d->d_name, "intel-rapl:", 11) != 0 ||
		    c[1] < '0' || c[1] > '9')
			continue;
		if ((names[n] = strdup(d->d_name)) != NULL)
			n++;
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), zone_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/name", root, names[i]);
		name[0] = '\0';
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			r = read(fd, name, sizeof(name) - 1);
			name[r > 0 ? r : 0] = '\0';
			close(fd);
		}
		if (strncmp(name, "package", 7) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", root,
		    names[i]);
		if (read_u64(path, &v) == -1 || v == 0) {
			snprintf(l->why[JH_RUNG_RAPL], sizeof(l->why[0]),
			    "%s: no max_energy_range_uj, so a wraparound "
			    "cannot be corrected", names[i]);
			goto out;
		}
		l->range[l->npkg] = v;
		snprintf(l->pkg[l->npkg], sizeof(l->pkg[0]), "%s/%s/energy_uj",
		    root, names[i]);
		if (read_u64(l->pkg[l->npkg], &v) == -1) {
			snprintf(l->why[JH_RUNG_RAPL], sizeof(l->why[0]),
			    "%s/energy_uj: %s%s", names[i], strerror(errno),
			    errno == EACCES ? " (readable by root only since "
			    "Linux 5.10, CVE-2020-8694)" : "");
			goto out;
		}
		l->npkg++;
	}
	if (l->npkg == 0) {
		snprintf(l->why[JH_RUNG_RAPL], sizeof(l->why[0]),
		    "no package zone under %s", root);
		goto out;
	}
	l->live[JH_RUNG_RAPL] = 1;
	snprintf(l->why[JH_RUNG_RAPL], sizeof(l->why[0]), "%zu package "
	    "counter%s under %s", l->npkg, l->npkg == 1 ? "" : "s", root);
out:
	if (!l->live[JH_RUNG_RAPL])
		l->npkg = 0;
	for (i = 0; i < n; i++)
		free(names[i]);
}

static void
nvml_open(struct jh_ladder *l, const char *lib)
{
	nvml_init_fn init;
	nvml_count_fn cnt;
	nvml_handle_fn handle;
	unsigned int n = 0, i;
	unsigned long long mj;
	const char *err;
	int r;

	if ((l->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		err = dlerror();
		snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]), "cannot load "
		    "%s: %s", lib, err ? err : "?");
		return;
	}
	init = (nvml_init_fn)dlsym(l->dl, "nvmlInit_v2");
	cnt = (nvml_count_fn)dlsym(l->dl, "nvmlDeviceGetCount_v2");
	handle = (nvml_handle_fn)dlsym(l->dl, "nvmlDeviceGetHandleByIndex_v2");
	l->nvml_energy = (int (*)(void *, unsigned long long *))dlsym(l->dl,
	    "nvmlDeviceGetTotalEnergyConsumption");
	l->nvml_shutdown = (int (*)(void))dlsym(l->dl, "nvmlShutdown");
	if (init == NULL || cnt == NULL || handle == NULL ||
	    l->nvml_energy == NULL || l->nvml_shutdown == NULL) {
		snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]), "%s lacks "
		    "the NVML energy interface", lib);
		goto fail;
	}
	if ((r = init()) != 0) {
		snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]), "nvmlInit: "
		    "error %d (no driver loaded?)", r);
		goto fail;
	}
	l->nvml_up = 1;
	if ((r = cnt(&n)) != 0 || n == 0) {
		snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]), "no GPU "
		    "(nvmlDeviceGetCount: %d, %u devices)", r, n);
		goto fail;
	}
	if (n > JH_GPU_MAX)
		n = JH_GPU_MAX;
	for (i = 0; i < n; i++) {
		if ((r = handle(i, &l->dev[i])) != 0 ||
		    (r = l->nvml_energy(l->dev[i], &mj)) != 0) {
			snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]),
			    "GPU %u: no total-energy counter (NVML error %d; "
			    "Volta or newer is needed)", i, r);
			goto fail;
		}
	}
	l->ndev = n;
	l->live[JH_RUNG_NVML] = 1;
	snprintf(l->why[JH_RUNG_NVML], sizeof(l->why[0]), "%u GPU%s through "
	    "%s (the GPUs only: a partial figure)", n, n == 1 ? "" : "s", lib);
	return;
fail:
	if (l->nvml_up)
		l->nvml_shutdown();
	l->nvml_up = 0;
	dlclose(l->dl);
	l->dl = NULL;
	l->nvml_energy = NULL;
}

/*
 * The test build reads the hardware from a synthetic powercap tree and a
 * stand-in NVML library named in the environment; an installed program
 * ignores both, as it ignores JH_NOW.
 */
void
jh_ladder_cfg_env(struct jh_ladder_cfg *cfg)
{
#ifdef JH_TESTING
	const char *s;

	if ((s = getenv("JH_POWERCAP_ROOT")) != NULL && *s != '\0')
		cfg->powercap = s;
	if ((s = getenv("JH_NVML_LIB")) != NULL && *s != '\0')
		cfg->nvml = s;
#else
	(void)cfg;
#endif
}

/* Probes every rung; selected is the top one that is live. */
void
jh_ladder_open(struct jh_ladder *l, const struct jh_ladder_cfg *cfg)
{
	long threads;
	int i;

	memset(l, 0, sizeof(*l));
	l->calibrated_mw = cfg->calibrated_mw;
	l->default_mw = cfg->default_mw;
	if (l->default_mw == 0) {
		threads = sysconf(_SC_NPROCESSORS_ONLN);
		l->default_mw = (uint64_t)(threads > 0 ? threads : 1) *
		    (cfg->thread_uw ? cfg->thread_uw : 4000000) / 1000;
	}
	rapl_open(l, cfg->powercap ? cfg->powercap : POWERCAP);
	nvml_open(l, cfg->nvml ? cfg->nvml : NVML_LIB);
	if (l->calibrated_mw > 0) {
		l->live[JH_RUNG_MODEL] = 1;
		snprintf(l->why[JH_RUNG_MODEL], sizeof(l->why[0]), "elapsed "
		    "time x %llu mW calibrated on this host",
		    (unsigned long long)l->calibrated_mw);
	} else
		snprintf(l->why[JH_RUNG_MODEL], sizeof(l->why[0]), "no power "
		    "calibrated for this host");
	l->live[JH_RUNG_TOKENS] = 1;
	snprintf(l->why[JH_RUNG_TOKENS], sizeof(l->why[0]), "tokens x "
	    "coefficients, when the unit has token counts");
	l->live[JH_RUNG_TIME] = 1;
	snprintf(l->why[JH_RUNG_TIME], sizeof(l->why[0]), "elapsed time x "
	    "%llu mW, the documented default", (unsigned long long)l->default_mw);
	l->selected = JH_RUNG_TIME;
	for (i = 0; i < JH_RUNGS; i++)
		if (l->live[i]) {
			l->selected = i;
			break;
		}
}

void
jh_ladder_close(struct jh_ladder *l)
{
	if (l->dl != NULL) {
		if (l->nvml_up)
			l->nvml_shutdown();
		dlclose(l->dl);
	}
	memset(l, 0, sizeof(*l));
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/* Reads every live counter; a counter that cannot be read now is not live. */
void
jh_ladder_sample(const struct jh_ladder *l, struct jh_sample *s)
{
	unsigned long long mj;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->t_ns = mono_ns();
	s->rapl_ok = l->npkg > 0;
	for (i = 0; i < l->npkg; i++)
		if (read_u64(l->pkg[i], &s->pkg[i]) == -1)
			s->rapl_ok = 0;
	s->gpu_ok = l->ndev > 0;
	for (i = 0; i < l->ndev; i++) {
		if (l->nvml_energy(l->dev[i], &mj) != 0)
			s->gpu_ok = 0;
		else
			s->gpu_mj[i] = mj;
	}
}

/*
 * A RAPL counter is monotonic modulo its range: when it went down it
 * wrapped once (sampling must be faster than range / maximum power).
 */
uint64_t
jh_rapl_delta(uint64_t prev, uint64_t now, uint64_t range)
{
	if (now >= prev)
		return (now - prev);
	if (prev > range)
		return (now);
	return (range - prev + now);
}

/*
 * The energy of the interval a..b.  With a ladder, the counters that were
 * live at both ends give measured_uj (HwShunt); the estimate is the rung
 * below them: a calibrated time x power (ModelBased), tokens x
 * coefficients when the unit has tokens, else time x the default power.
 * Without a ladder (l NULL), only the Estimator rungs apply.
 */
void
jh_ladder_energy(struct jh_energy *en, const struct jh_ladder *l,
    const struct jh_sample *a, const struct jh_sample *b, int have_tokens,
    uint64_t tokens_uj, uint64_t default_mw)
{
	uint64_t ms = b->t_ns > a->t_ns ? (b->t_ns - a->t_ns) / 1000000 : 0;
	uint64_t rapl = 0, gpu = 0;
	int rok = 0, gok = 0;
	size_t i;

	memset(en, 0, sizeof(*en));
	en->provenance = "Estimator";
	if (l != NULL && l->calibrated_mw > 0) {
		en->estimated_uj = jh_mul_sat(ms, l->calibrated_mw);
		en->provenance = "ModelBased";
		en->method = "model";
	} else if (have_tokens) {
		en->estimated_uj = tokens_uj;
		en->method = "tokens";
	} else {
		en->estimated_uj = jh_mul_sat(ms, l != NULL ? l->default_mw :
		    default_mw);
		en->method = "time";
	}
	if (l == NULL)
		return;
	if (l->npkg > 0 && a->rapl_ok && b->rapl_ok) {
		rok = 1;
		for (i = 0; i < l->npkg; i++)
			rapl = jh_add_sat(rapl, jh_rapl_delta(a->pkg[i],
			    b->pkg[i], l->range[i]));
	}
	if (l->ndev > 0 && a->gpu_ok && b->gpu_ok) {
		gok = 1;
		for (i = 0; i < l->ndev; i++) {
			/* Millijoules since the driver loaded: never wraps. */
			if (b->gpu_mj[i] < a->gpu_mj[i]) {
				gok = 0;
				break;
			}
			gpu = jh_add_sat(gpu, jh_mul_sat(b->gpu_mj[i] -
			    a->gpu_mj[i], 1000));
		}
	}
	if (!rok && !gok)
		return;
	en->measured = 1;
	en->measured_uj = jh_add_sat(rok ? rapl : 0, gok ? gpu : 0);
	en->provenance = "HwShunt";
	en->method = rok && gok ? "rapl+nvml" : rok ? "rapl" : "nvml";
	en->scope = rok && gok ? "cpu-packages+gpus" : rok ? "cpu-packages" :
	    "gpus";
}
