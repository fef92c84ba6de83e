/*
 * jh-meter's parts (jh-meter(1)), what its files share:
 *
 *	jh-meter.c	the options, the output, tokens and transcript,
 *			main
 *	meter-otel.c	otel: an export read, or the live receiver (-l)
 *	meter-hw.c	run and probe: the hardware rungs
 *	meter-agg.c	aggregate: the task-level unit
 *
 * Everything here may end the process (errx): this is a program's code,
 * not the library's.
 */
#ifndef JH_METERCMD_H
#define JH_METERCMD_H

#include <stdint.h>
#include <stdio.h>

#include "energy.h"
#include "meter.h"

#define PROG		"jh-meter"
#define OBSERVED	"observed, not enforced"

/*
 * What the subcommands share: the coefficients, loaded once by the first
 * that needs them (aggregate does not) and freed as main returns.
 */
struct meter {
	struct jh_coeffs c;
	int have_coeffs;
};

/* Every subcommand's options; each takes the letters it names to getopt. */
struct opts {
	const char *session;
	const char *unit;
	const char *model;
	const char *offfile;
	const char *log;
	const char *verdict;
	struct jh_usage u;
	int given;		/* a token count was given */
	int quiet;
	int copt;		/* -c, or -1 */
	uint64_t mw;
	uint64_t ms;
};

/* Totals for the summary line every subcommand ends with. */
struct total {
	uint64_t units, in, out, cr, cw, est, meas;
	int all_measured;
};

void	usage(FILE *f, int status) __attribute__((noreturn));
const struct jh_coeffs *coeffs(struct meter *mt);
uint64_t num(const char *s, uint64_t max, int opt);
void	opts_init(struct opts *o);
void	option(struct opts *o, int ch);
const char *joules(char *b, size_t sz, uint64_t uj);
void	emit(const struct jh_unit *x);
void	total_add(struct total *t, const struct jh_unit *x);
void	summary(const char *cmd, const struct total *t, const char *extra);

/* The subcommands: each returns main's exit status. */
int	cmd_otel(struct meter *mt, int argc, char **argv);
int	cmd_run(struct meter *mt, int argc, char **argv);
int	cmd_probe(struct meter *mt, int argc, char **argv);
int	cmd_aggregate(int argc, char **argv);

#endif /* JH_METERCMD_H */
