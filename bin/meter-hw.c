/*
 * jh-meter run and probe (jh-meter(1)): a command's energy from the
 * hardware counters that moved while it ran (RAPL, NVML), each figure
 * with its provenance, or the ladder's rungs as this machine has them.
 */
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "jh.h"
#include "energy.h"
#include "ledger.h"
#include "meter.h"
#include "util.h"

#include "metercmd.h"

/*
 * A live counter moves within this: one that stood still this long is
 * stale.
 */
#define STALE_MS	200

/* --- run and probe ---------------------------------------------------- */

static const char *const provs[JH_RUNGS] = { "HwShunt", "HwShunt",
    "ModelBased", "Estimator", "Estimator" };

/*
 * Which hardware counters moved between two samples: a live counter that
 * stood still over STALE_MS or more is stale, not a reading of zero.
 */
struct moved {
	int rapl_ok, gpu_ok;		/* read at both ends */
	int rapl_still, gpu_still;	/* did not advance at all */
	int rapl_wrapped, gpu_back;
	uint64_t ms;
};

static void
moved(struct moved *mv, const struct jh_ladder *l, const struct jh_sample *a,
    const struct jh_sample *b)
{
	uint64_t d = 0;
	size_t i;

	memset(mv, 0, sizeof(*mv));
	mv->ms = b->t_ns > a->t_ns ? (b->t_ns - a->t_ns) / 1000000 : 0;
	mv->rapl_ok = l->npkg > 0 && a->rapl_ok && b->rapl_ok;
	mv->gpu_ok = l->ndev > 0 && a->gpu_ok && b->gpu_ok;
	if (mv->rapl_ok) {
		for (i = 0; i < l->npkg; i++) {
			if (b->pkg[i] < a->pkg[i])
				mv->rapl_wrapped = 1;
			d |= jh_rapl_delta(a->pkg[i], b->pkg[i], l->range[i]);
		}
		mv->rapl_still = d == 0;
	}
	d = 0;
	if (mv->gpu_ok) {
		for (i = 0; i < l->ndev; i++) {
			if (b->gpu_mj[i] < a->gpu_mj[i])
				mv->gpu_back = 1;
			d |= b->gpu_mj[i] - a->gpu_mj[i];
		}
		mv->gpu_still = d == 0;
	}
}

/*
 * Why a live hardware rung gave no reading over the interval, or NULL.
 * Strict (a run): a counter that did not move is no reading, however
 * short the interval; a probe only calls a still counter stale.
 */
static const char *
hw_failed(char *b, size_t sz, int rung, const struct moved *mv, int strict)
{
	int gpu = rung != JH_RUNG_RAPL;
	int still = gpu ? mv->gpu_still : mv->rapl_still;
	const char *what = gpu ? "GPU" : "package";

	if (!(gpu ? mv->gpu_ok : mv->rapl_ok)) {
		snprintf(b, sz, "a %s counter could not be read at both ends "
		    "of the interval", what);
		return (b);
	}
	if (gpu && mv->gpu_back)
		return ("a GPU counter went backwards (a driver reload): no "
		    "reading");
	if (still && mv->ms >= STALE_MS) {
		snprintf(b, sz, "stale: the %s counters did not advance in "
		    "%llu ms", what, (unsigned long long)mv->ms);
		return (b);
	}
	if (still && strict) {
		snprintf(b, sz, "the %s counters did not advance in %llu ms, "
		    "shorter than their update period%s: no reading", what,
		    (unsigned long long)mv->ms, gpu ? " (about 40 ms)" : "");
		return (b);
	}
	return (NULL);
}

static void
ladder_open(struct jh_ladder *l, uint64_t mw, const struct jh_coeffs *c)
{
	struct jh_ladder_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.calibrated_mw = mw;
	cfg.thread_uw = c->thread_uw;
	jh_ladder_cfg_env(&cfg);
	jh_ladder_open(l, &cfg);
}

/*
 * The rungs as they stood over an interval: state[i] is "selected",
 * "live" or "declined", why[i] the reason.  The hardware rungs are live
 * only if their counters were read at both ends and moved.  cmd: the
 * interval of a command, which has no token counts and in which a still
 * counter is no reading.
 */
static int
rungs(const char **state, char why[][288], const struct jh_ladder *l,
    const struct moved *mv, int cmd)
{
	char b[160];
	const char *f;
	int i, sel = -1;

	for (i = 0; i < JH_RUNGS; i++) {
		snprintf(why[i], 288, "%s", l->why[i]);
		state[i] = l->live[i] ? "live" : "declined";
		if (l->live[i] && i <= JH_RUNG_NVML &&
		    (f = hw_failed(b, sizeof(b), i, mv, cmd)) != NULL) {
			snprintf(why[i], 288, "%s", f);
			state[i] = "declined";
		}
		if (i == JH_RUNG_TOKENS && cmd) {
			snprintf(why[i], 288, "a command has no token counts");
			state[i] = "declined";
		}
		if (i == JH_RUNG_RAPL && mv->rapl_wrapped &&
		    strcmp(state[i], "live") == 0)
			snprintf(why[i], 288, "%s; a counter wrapped, corrected "
			    "with max_energy_range_uj", l->why[i]);
	}
	for (i = 0; i < JH_RUNGS; i++)
		if (strcmp(state[i], "live") == 0) {
			state[i] = "selected";
			sel = i;
			break;
		}
	return (sel);
}

/*
 * A RAPL counter wraps at its max_energy_range_uj, about 262 kJ a package:
 * under ten minutes at 500 W.  While a command runs the counters are read
 * every RAPL_TICK_MS and each step's rise added up, so that a wrap is
 * never missed, nor one counted for several.
 */
#define RAPL_TICK_MS	10000

struct follow {
	const struct jh_ladder *l;
	struct jh_sample last;		/* the latest sample */
	uint64_t rose[JH_RAPL_MAX];	/* each package's rise since the start */
	int ok;				/* every package read at every step */
};

static void
follow_step(struct follow *f)
{
	struct jh_sample s;
	size_t i;

	jh_ladder_sample(f->l, &s);
	if (!s.rapl_ok || !f->last.rapl_ok)
		f->ok = 0;
	else
		for (i = 0; i < f->l->npkg; i++)
			f->rose[i] = jh_add_sat(f->rose[i], jh_rapl_delta(
			    f->last.pkg[i], s.pkg[i], f->l->range[i]));
	f->last = s;
}

/*
 * The end sample of a followed run, its package counters set to where
 * they would stand had they never wrapped (start + every rise), so that
 * the interval from a to it is what the steps added up; a package missed
 * at any step is no reading.
 */
static void
follow_end(struct follow *f, const struct jh_sample *a, struct jh_sample *b)
{
	size_t i;

	follow_step(f);
	*b = f->last;
	if (!f->ok || !a->rapl_ok) {
		b->rapl_ok = 0;
		return;
	}
	for (i = 0; i < f->l->npkg; i++)
		b->pkg[i] = jh_add_sat(a->pkg[i], f->rose[i]);
}

/*
 * The command, waited for; its wait status.  As time(1) does, the meter
 * outlives an interrupt the command gets, so the unit is still printed;
 * and the standard output is the units', so the command writes its own
 * to the standard error.  While it runs, f steps every tick_ms.
 */
static int
run_command(char **argv, struct follow *f, unsigned tick_ms)
{
	void (*sigint)(int), (*sigquit)(int);
	struct timespec tick;
	sigset_t chld, old;
	pid_t pid, w;
	int st;

	sigint = signal(SIGINT, SIG_IGN);
	sigquit = signal(SIGQUIT, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		/* No library calls here: NVML may hold threads and locks. */
		signal(SIGINT, sigint);
		signal(SIGQUIT, sigquit);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) == -1)
			_exit(126);
		execvp(argv[0], argv);
		warn("%s", argv[0]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	tick.tv_sec = tick_ms / 1000;
	tick.tv_nsec = (long)(tick_ms % 1000) * 1000000;
	for (;;) {
		if ((w = waitpid(pid, &st, WNOHANG)) == pid)
			break;
		if (w == -1 && errno != EINTR)
			err(2, "waitpid");
		if (w == 0 && sigtimedwait(&chld, NULL, &tick) == -1 &&
		    errno == EAGAIN)
			follow_step(f);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGINT, sigint);
	signal(SIGQUIT, sigquit);
	return (st);
}

/* The rung selected, those declined above it, and what was measured. */
static void
run_report(const struct jh_energy *en, char why[][288], int sel)
{
	char jb[64], eb[64];
	int i;

	for (i = 0; i < JH_RUNGS; i++) {
		if (i == sel)
			fprintf(stderr, "%s: run: rung %s (%s): %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), provs[i], why[i]);
		else if (i < sel)
			fprintf(stderr, "%s: run: %s declined: %s: " OBSERVED
			    "\n", PROG, jh_rung_name(i), why[i]);
	}
	if (en->measured)
		fprintf(stderr, "%s: run: %s measured (%s, %s), %s estimated: "
		    OBSERVED "\n", PROG, joules(jb, sizeof(jb), en->measured_uj),
		    en->method, en->scope, joules(eb, sizeof(eb),
		    en->estimated_uj));
}

int
cmd_run(struct meter *mt, int argc, char **argv)
{
	struct jh_ladder l;
	struct jh_sample a, b;
	struct jh_unit x;
	struct jh_energy en;
	struct follow fl;
	struct moved mv;
	struct total t;
	struct opts op;
	const struct jh_coeffs *c;
	const char *state[JH_RUNGS], *session, *unit;
	char why[JH_RUNGS][288], name[JH_UNIT_ID_MAX + 64], note[160];
	uint64_t mw;
	unsigned tick;
	int ch, st, sel, code;

	memset(&t, 0, sizeof(t));
	opts_init(&op);
	while ((ch = getopt(argc, argv, "P:s:u:")) != -1)
		option(&op, ch);
	session = op.session ? op.session : "local";
	unit = op.unit;
	mw = op.mw;
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(stderr, 2);
	c = coeffs(mt);
	ladder_open(&l, mw, c);
	fflush(stdout);
	fflush(stderr);
	jh_ladder_sample(&l, &a);
	memset(&fl, 0, sizeof(fl));
	fl.l = &l;
	fl.last = a;
	fl.ok = 1;
	tick = RAPL_TICK_MS;
#ifdef JH_TESTING
	if (getenv("JH_RAPL_TICK_MS") != NULL)
		tick = (unsigned)strtoul(getenv("JH_RAPL_TICK_MS"), NULL, 10);
#endif
	st = run_command(argv, &fl, tick);
	follow_end(&fl, &a, &b);
	moved(&mv, &l, &a, &b);
	/* A still counter is no reading: sampled as unread at the end. */
	if (mv.rapl_still)
		b.rapl_ok = 0;
	if (mv.gpu_still || mv.gpu_back)
		b.gpu_ok = 0;
	jh_ladder_energy(&en, &l, &a, &b, 0, 0, 0);
	sel = rungs(state, why, &l, &mv, 1);
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	jh_unit_init(&x, session, "run");
	x.en = en;
	snprintf(name, sizeof(name), "run/%s/%llu", argv[0],
	    (unsigned long long)jh_now_ms());
	x.unit = unit ? unit : name;
	x.duration_ms = mv.ms;
	x.completed = code == 0;
	x.verdict = code == 0 ? "ok" : "error";
	snprintf(note, sizeof(note), "%s %d; rung %s", WIFEXITED(st) ? "exit" :
	    "signal", WIFEXITED(st) ? code : WTERMSIG(st), en.measured ?
	    en.method : jh_rung_name(sel));
	x.note = note;
	if (strcmp(en.method, "model") == 0)
		snprintf(x.coeff, sizeof(x.coeff), "host-calibrated/%llu-mW",
		    (unsigned long long)mw);
	else
		snprintf(x.coeff, sizeof(x.coeff), "%s#default_power", c->id);
	emit(&x);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	run_report(&en, why, sel);
	total_add(&t, &x);
	summary("run", &t, NULL);
	jh_ladder_close(&l);
	return (code);
}

int
cmd_probe(struct meter *mt, int argc, char **argv)
{
	struct jh_ladder l;
	struct jh_sample a, b;
	struct moved mv;
	struct timespec ts;
	const char *state[JH_RUNGS];
	char why[JH_RUNGS][288];
	struct opts op;
	const struct jh_coeffs *c;
	uint64_t mw, ms;
	json_t *o, *arr, *r;
	char *s;
	int ch, i, sel, quiet;

	opts_init(&op);
	while ((ch = getopt(argc, argv, "P:qt:")) != -1)
		option(&op, ch);
	mw = op.mw;
	ms = op.ms;
	quiet = op.quiet;
	if (optind != argc)
		usage(stderr, 2);
	c = coeffs(mt);
	ladder_open(&l, mw, c);
	jh_ladder_sample(&l, &a);
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	jh_ladder_sample(&l, &b);
	moved(&mv, &l, &a, &b);
	sel = rungs(state, why, &l, &mv, 0);
	o = json_object();
	arr = json_array();
	json_object_set_new(o, "selected", json_string(jh_rung_name(sel)));
	json_object_set_new(o, "provenance", json_string(provs[sel]));
	json_object_set_new(o, "interval_ms", json_integer((json_int_t)mv.ms));
	for (i = 0; i < JH_RUNGS; i++) {
		r = json_object();
		json_object_set_new(r, "rung", json_string(jh_rung_name(i)));
		json_object_set_new(r, "state", json_string(state[i]));
		json_object_set_new(r, "provenance", json_string(provs[i]));
		json_object_set_new(r, "why", json_string(why[i]));
		json_array_append_new(arr, r);
	}
	json_object_set_new(o, "rungs", arr);
	json_object_set_new(o, "enforced", json_integer(0));
	if ((s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
		errx(2, "out of memory");
	printf("%s\n", s);
	free(s);
	json_decref(o);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	for (i = 0; !quiet && i < JH_RUNGS; i++)
		if (i <= sel)
			fprintf(stderr, "%s: probe: %s %s: %s: " OBSERVED "\n",
			    PROG, jh_rung_name(i), i == sel ? "selected" :
			    "declined", why[i]);
	jh_ladder_close(&l);
	return (0);
}

