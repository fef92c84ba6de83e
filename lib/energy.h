/*
 * joulehook: the energy module (energy.c), shared by jh-proxy and
 * jh-meter: provider token usage read with each API's semantics, token
 * coefficients from one data file, and the metering ladder (RAPL, NVML,
 * a calibrated model, tokens, time; the top live rung measures).  All
 * amounts are unsigned 64-bit microjoules and saturate.  The contract
 * is jh-proxy(1), "Energy", jh-meter(1) probe, and joulehook-formats(5),
 * "efficiency/1 from jh-proxy, and the coefficient file".
 */
#ifndef JH_ENERGY_H
#define JH_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "jh.h"

#define JH_TOKENS_MAX	1000000000ULL	/* more in one call is absurd */

struct jh_usage {
	uint64_t in;		/* uncached input (Anthropic semantics) */
	uint64_t out;		/* output, thinking/reasoning included */
	uint64_t cache_read;
	uint64_t cache_write;
	int have_in;		/* the provider reported the input side */
	int have_out;		/* and the output side */
};

/*
 * An API's usage object read into u, each with that API's semantics;
 * only the fields present are updated (the last cumulative one wins).
 */
int	jh_usage_anthropic(struct jh_usage *u, const json_t *usage,
	    struct jh_err *e);
int	jh_usage_chat(struct jh_usage *u, const json_t *usage,
	    struct jh_err *e);
int	jh_usage_responses(struct jh_usage *u, const json_t *usage,
	    struct jh_err *e);
int	jh_usage_gemini(struct jh_usage *u, const json_t *usage,
	    struct jh_err *e);

struct jh_coeff {		/* one model family, microjoules per token */
	char family[64];
	uint64_t in;
	uint64_t out;
	uint64_t cache_read;
	uint64_t cache_write;
	char **match;		/* fnmatch(3) patterns over the model name */
	size_t nmatch;
};

struct jh_coeffs {
	char id[128];
	char digest[JH_ID_LEN];	/* of the file's bytes */
	uint64_t thread_uw;	/* default power per CPU thread */
	struct jh_coeff *fam;
	size_t n;
};

uint64_t jh_mul_sat(uint64_t a, uint64_t b);	/* a x b, saturating */
/* Every figure names its source; some family must match every model. */
int	jh_coeffs_load(struct jh_coeffs *c, const char *path,
	    struct jh_err *e);
void	jh_coeffs_free(struct jh_coeffs *c);
/* The installed coefficient file, or the source tree's. */
const char *jh_coeffs_path(char *out, size_t sz);
/* The first family with a pattern matching model. */
const struct jh_coeff *jh_coeffs_find(const struct jh_coeffs *c,
	    const char *model);
uint64_t jh_tokens_uj(const struct jh_coeff *c, const struct jh_usage *u);

#define JH_RUNG_RAPL	0	/* HwShunt */
#define JH_RUNG_NVML	1	/* HwShunt, the GPUs only */
#define JH_RUNG_MODEL	2	/* ModelBased: time x calibrated power */
#define JH_RUNG_TOKENS	3	/* Estimator: tokens x coefficients */
#define JH_RUNG_TIME	4	/* Estimator: time x default power */
#define JH_RUNGS	5
#define JH_RAPL_MAX	16
#define JH_GPU_MAX	16

struct jh_ladder_cfg {
	const char *powercap;	/* NULL: /sys/class/powercap */
	const char *nvml;	/* NULL: libnvidia-ml.so.1 */
	uint64_t calibrated_mw;	/* 0: no ModelBased rung */
	uint64_t default_mw;	/* 0: threads online x thread_uw */
	uint64_t thread_uw;	/* from the coefficient file */
};

struct jh_ladder {
	int selected;			/* the top live rung */
	int live[JH_RUNGS];
	char why[JH_RUNGS][224];	/* why each was taken or declined */
	size_t npkg;
	char pkg[JH_RAPL_MAX][512];	/* the packages' energy_uj files */
	uint64_t range[JH_RAPL_MAX];	/* their max_energy_range_uj */
	void *dl;			/* NVML */
	int nvml_up;
	int (*nvml_energy)(void *dev, unsigned long long *mj);
	int (*nvml_shutdown)(void);
	void *dev[JH_GPU_MAX];
	unsigned ndev;
	uint64_t calibrated_mw;
	uint64_t default_mw;
};

struct jh_sample {
	uint64_t t_ns;			/* CLOCK_MONOTONIC */
	int rapl_ok;			/* every package read */
	uint64_t pkg[JH_RAPL_MAX];
	int gpu_ok;			/* every GPU read */
	uint64_t gpu_mj[JH_GPU_MAX];
};

struct jh_energy {
	uint64_t estimated_uj;		/* always */
	uint64_t measured_uj;		/* only when measured */
	int measured;
	const char *provenance;		/* HwShunt, ModelBased, Estimator */
	const char *method;		/* rapl, nvml, model, tokens or time */
	const char *scope;		/* what measured_uj covers */
};

const char *jh_rung_name(int r);
/* The test build's synthetic hardware, named in the environment. */
void	jh_ladder_cfg_env(struct jh_ladder_cfg *cfg);
/* Probes every rung; selected is the top one that is live. */
void	jh_ladder_open(struct jh_ladder *l, const struct jh_ladder_cfg *cfg);
void	jh_ladder_close(struct jh_ladder *l);
/* Reads every live counter. */
void	jh_ladder_sample(const struct jh_ladder *l, struct jh_sample *s);
/* A RAPL counter's rise, modulo its range. */
uint64_t jh_rapl_delta(uint64_t prev, uint64_t now, uint64_t range);
/*
 * The energy of the interval a..b: measured_uj from the counters live
 * at both ends, the estimate from the rung below them (l NULL: the
 * Estimator rungs alone).
 */
void	jh_ladder_energy(struct jh_energy *en, const struct jh_ladder *l,
	    const struct jh_sample *a, const struct jh_sample *b,
	    int have_tokens, uint64_t tokens_uj, uint64_t default_mw);

#endif /* JH_ENERGY_H */
