/*
 * otlp.h: OpenTelemetry OTLP/HTTP JSON export requests read into
 * efficiency/1 units (jh-meter(1), otel): Claude Code's api_request log
 * events and claude_code.token.usage metric, Gemini CLI's
 * gemini_cli.api_response events, and generic GenAI spans.  The same
 * state serves a file and a live receiver: every request is one
 * jh_otlp_request, whose events and spans go to the sink at once, while
 * the metric series keep adding up until jh_otlp_flush hands their sums
 * on.
 */
#ifndef JH_OTLP_H
#define JH_OTLP_H

#include <stddef.h>
#include <stdint.h>

struct jh_coeffs;
struct jh_err;
struct jh_unit;

#define JH_OT_LOGS	1	/* the signals a request may carry */
#define JH_OT_METRICS	2
#define JH_OT_TRACES	4
#define JH_OT_ALL	(JH_OT_LOGS | JH_OT_METRICS | JH_OT_TRACES)

#define JH_OTLP_NOMEM	(-2)	/* out of memory: the request is lost */

/* Owned strings, freed together. */
struct jh_strs {
	char **v;
	size_t n;
};

/* A copy of str kept in s (NULL for NULL, or when memory ran out). */
const char *jh_strs_keep(struct jh_strs *s, const char *str);
int	jh_strs_has(const struct jh_strs *s, const char *str);
void	jh_strs_free(struct jh_strs *s);

/* One claude_code.token.usage series: a session, a model, a type. */
struct jh_otlp_series {
	const char *session;
	const char *model;	/* NULL: none */
	int type;		/* 0 input 1 output 2 cacheRead 3 cacheCreation */
	uint64_t start;		/* cumulative: the series' start */
	int cumulative;
	uint64_t time;		/* cumulative: of the value kept */
	uint64_t value;		/* the series' total so far */
	uint64_t sealed;	/* of value, already in a unit */
	uint64_t seen_ms;	/* when its last point came */
	int done;		/* in a unit, or dropped, once */
	int mark;		/* jh_otlp_flush's */
};

/* Where each unit goes: 0 taken, -1 with why not. */
typedef int (*jh_otlp_sink)(void *arg, const struct jh_unit *x,
    struct jh_err *e);
/* An item refused, in words, for the caller to say. */
typedef void (*jh_otlp_warn)(void *arg, const char *msg);

struct jh_otlp {
	const char *session;	/* of items without session.id; NULL none */
	const struct jh_coeffs *c;
	jh_otlp_sink sink;
	jh_otlp_warn warn;	/* NULL: nothing said */
	void *arg;		/* the sink's and warn's */
	struct jh_unit *u;	/* this request's events and spans */
	size_t nu;
	struct jh_strs ukeep;	/* the strings u points to */
	struct jh_otlp_series *s;
	size_t ns;
	struct jh_strs keep;	/* the strings the series point to */
	struct jh_strs evsess;	/* sessions with api_request events */
	uint64_t nv;		/* export requests */
	uint64_t bad;		/* items and requests refused */
	uint64_t rejected;	/* items refused in this request */
	uint64_t unsealed;	/* units the sink could not take */
	uint64_t dropped;	/* metric series of sessions with events */
	int nomem;		/* memory ran out in this request */
	char why[256];		/* the last refusal */
};

void	jh_otlp_init(struct jh_otlp *o, const struct jh_coeffs *coeffs,
	    const char *session, jh_otlp_sink sink, jh_otlp_warn warn,
	    void *arg);
void	jh_otlp_free(struct jh_otlp *o);

/*
 * One export request, the body of a POST or one value of a file: its
 * events and spans go to the sink now, its metric points add to their
 * series.  mask names the signals its path carries; a file's values
 * (JH_OT_ALL) may hold any, and must hold one.  Returns 0, -1 when the
 * request is refused whole (o->why), JH_OTLP_NOMEM.
 */
int	jh_otlp_request(struct jh_otlp *o, const char *body, size_t len,
	    int mask);

/*
 * The export requests of a file on fd, one JSON value each (one a line,
 * or pretty-printed), each refused one said to warn.  Returns 0, or
 * JH_OTLP_NOMEM.
 */
int	jh_otlp_read(struct jh_otlp *o, int fd);

/*
 * The metric sums of the sessions with no api_request event, as units:
 * what each series added since the last flush.  With idle_ms, only the
 * sessions and models with no point for that long; with 0, all.  Where
 * both describe a session, the events win (one unit per call, with
 * duration and cost) and its series are not counted again.
 */
void	jh_otlp_flush(struct jh_otlp *o, uint64_t idle_ms);

#endif
