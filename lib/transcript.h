/*
 * transcript.h: Claude Code's transcripts (jh-meter(1), transcript).  A
 * session's JSONL has a line per content block, each with its message's
 * usage as it stood; the lines are read into model calls, one
 * efficiency/1 unit each.  And the offsets file of -O, from which each
 * transcript is read again where the last read stopped.
 */
#ifndef JH_TRANSCRIPT_H
#define JH_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "energy.h"

struct jh_err;
struct jh_unit;

#define JH_TR_NOMEM	(-2)	/* out of memory: nothing more is read */

/*
 * One model call.  output_tokens grows while the answer streams, so the
 * line with the largest is kept.
 */
struct jh_tcall {
	char *id;
	char *request_id;
	char *model;		/* NULL: none */
	char *session;		/* NULL: the line had no sessionId */
	struct jh_usage u;
	int stopped;		/* a line had a stop_reason */
	int deferred;		/* resumed: left for the next read */
	size_t file;		/* the caller's number of its file */
	uint64_t start;		/* offset of its first line */
	uint64_t last;		/* offset of its last line */
	uint64_t stop;		/* offset of its first line with a stop_reason */
};

/* The calls read so far, found by id (open addressing). */
struct jh_transcript {
	struct jh_tcall *v;
	size_t n, cap;
	size_t *slot;		/* index + 1; 0 empty */
	size_t nslot;
	uint64_t lines;		/* whole lines read */
	uint64_t bad;		/* lines skipped */
};

/* A line skipped or left, in words, for the caller to say. */
typedef void (*jh_tr_warn)(void *arg, const char *msg);

void	jh_transcript_init(struct jh_transcript *t);
void	jh_transcript_free(struct jh_transcript *t);

/*
 * One line (without its newline) at byte off of file.  Returns 0 when it
 * was used or is no model call, -1 with why when it cannot be read,
 * JH_TR_NOMEM when memory ran out.
 */
int	jh_transcript_line(struct jh_transcript *t, const char *line,
	    size_t len, size_t file, uint64_t off, struct jh_err *e);

/*
 * The lines of fd (positioned at byte off) to its end, as file's.  A
 * last line without its newline is still being written: it is left.
 * *next is where the next read starts; with resume, a call still
 * streaming at the end (the last call of file, with no stop_reason yet)
 * is deferred and *next stops at its first line, so the next read finds
 * it whole.  Every line skipped goes to warn.  Returns 0, or -1 when
 * memory ran out.
 */
int	jh_transcript_read(struct jh_transcript *t, int fd, size_t file,
	    uint64_t off, int resume, uint64_t *next, jh_tr_warn warn,
	    void *arg, struct jh_err *e);

/*
 * The session a call is in: its own, else session, else the name of its
 * file path less ".jsonl" (written into buf).
 */
const char *jh_transcript_session(const struct jh_tcall *c,
	    const char *session, const char *path, char *buf, size_t bufsz);

/* A call as its unit in session, its energy estimated with coeffs. */
void	jh_transcript_unit(struct jh_unit *x, const struct jh_tcall *c,
	    const char *session, const struct jh_coeffs *coeffs);

/* -O's offsets: "<offset> <path>" lines, the path last (spaces allowed). */
struct jh_offs {
	char **path;
	uint64_t *off;
	size_t n;
};

/* A file that is not there is no offsets; 0, or -1 with why. */
int	jh_offs_load(struct jh_offs *o, const char *file, struct jh_err *e);
uint64_t jh_offs_get(const struct jh_offs *o, const char *path);
int	jh_offs_set(struct jh_offs *o, const char *path, uint64_t off,
	    struct jh_err *e);
/* Written whole beside file and renamed over it: never torn. */
int	jh_offs_save(const struct jh_offs *o, const char *file,
	    struct jh_err *e);
void	jh_offs_free(struct jh_offs *o);

#endif
