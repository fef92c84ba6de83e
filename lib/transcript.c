/*
 * joulehook: Claude Code's transcripts read into model calls, and the
 * offsets they are read again from (transcript.h, jh-meter(1)).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "energy.h"
#include "json.h"
#include "meter.h"
#include "transcript.h"
#include "util.h"

void
jh_transcript_init(struct jh_transcript *t)
{
	memset(t, 0, sizeof(*t));
}

void
jh_transcript_free(struct jh_transcript *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].id);
		free(t->v[i].request_id);
		free(t->v[i].model);
		free(t->v[i].session);
	}
	free(t->v);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static uint64_t
hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return (h);
}

/* The slots twice the calls at least: rebuilt at twice the size. */
static int
regrow(struct jh_transcript *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 1024, *s, i, j;

	if ((s = calloc(ns, sizeof(*s))) == NULL)
		return (-1);
	for (i = 0; i < t->n; i++) {
		for (j = hash(t->v[i].id) & (ns - 1); s[j] != 0;
		    j = (j + 1) & (ns - 1))
			;
		s[j] = i + 1;
	}
	free(t->slot);
	t->slot = s;
	t->nslot = ns;
	return (0);
}

/* The call of id, made if new (*isnew); NULL when memory ran out. */
static struct jh_tcall *
call_find(struct jh_transcript *t, const char *id, int *isnew)
{
	struct jh_tcall *nv;
	size_t j, k, nc;

	*isnew = 0;
	if (t->n * 2 >= t->nslot && regrow(t) == -1)
		return (NULL);
	for (j = hash(id) & (t->nslot - 1); t->slot[j] != 0;
	    j = (j + 1) & (t->nslot - 1))
		if (strcmp(t->v[t->slot[j] - 1].id, id) == 0)
			return (&t->v[t->slot[j] - 1]);
	if (t->n == t->cap) {
		nc = t->cap ? t->cap * 2 : 256;
		if ((nv = reallocarray(t->v, nc, sizeof(*nv))) == NULL)
			return (NULL);
		t->v = nv;
		t->cap = nc;
	}
	k = t->n;
	memset(&t->v[k], 0, sizeof(t->v[k]));
	if ((t->v[k].id = strdup(id)) == NULL)
		return (NULL);
	t->n++;
	t->slot[j] = k + 1;
	*isnew = 1;
	return (&t->v[k]);
}

/* *dst becomes a copy of s, unless s is NULL; -1 when memory ran out. */
static int
set_str(char **dst, const char *s)
{
	char *c;

	if (s == NULL)
		return (0);
	if ((c = strdup(s)) == NULL)
		return (-1);
	free(*dst);
	*dst = c;
	return (0);
}

/* The line's usage into its call; 0, or JH_TR_NOMEM. */
static int
call_add(struct jh_transcript *t, const json_t *o, const json_t *msg,
    const struct jh_usage *u, size_t file, uint64_t off, struct jh_err *e)
{
	struct jh_tcall *x;
	const char *model = jh_json_id(msg, "model");
	int isnew, rc = 0;

	if ((x = call_find(t, jh_json_id(msg, "id"), &isnew)) == NULL) {
		jh_errf(e, "out of memory");
		return (JH_TR_NOMEM);
	}
	if (isnew) {
		x->file = file;
		x->start = off;
		x->u = *u;
		rc = set_str(&x->session, jh_json_id(o, "sessionId")) |
		    set_str(&x->model, model) |
		    set_str(&x->request_id, jh_json_id(o, "requestId"));
	} else if (u->out > x->u.out) {
		x->u = *u;
		rc = set_str(&x->request_id, jh_json_id(o, "requestId")) |
		    set_str(&x->model, model);
	}
	x->last = off;
	if (json_is_string(json_object_get(msg, "stop_reason")) &&
	    !x->stopped) {
		x->stopped = 1;
		x->stop = off;
	}
	if (rc != 0) {
		jh_errf(e, "out of memory");
		return (JH_TR_NOMEM);
	}
	return (0);
}

int
jh_transcript_line(struct jh_transcript *t, const char *line, size_t len,
    size_t file, uint64_t off, struct jh_err *e)
{
	json_t *o, *msg, *us, *id;
	struct jh_usage u;
	const char *model, *ty;
	int rc = 0;

	/* Most lines are prompts, tool results and metadata: not parsed. */
	if (memmem(line, len, "\"usage\"", 7) == NULL ||
	    memmem(line, len, "\"assistant\"", 11) == NULL)
		return (0);
	if ((o = jh_json_parse(line, len, e)) == NULL)
		return (-1);
	msg = json_object_get(o, "message");
	ty = jh_json_id(o, "type");
	if (!json_is_object(o) || !json_is_object(msg) || ty == NULL ||
	    strcmp(ty, "assistant") != 0 ||
	    (us = json_object_get(msg, "usage")) == NULL)
		goto out;
	/* API errors are written as messages of the model "<synthetic>". */
	model = jh_json_id(msg, "model");
	if (json_is_true(json_object_get(o, "isApiErrorMessage")) ||
	    (model != NULL && strcmp(model, "<synthetic>") == 0))
		goto out;
	if (jh_json_id(msg, "id") == NULL) {
		id = json_object_get(msg, "id");
		if (json_is_string(id) && memchr(json_string_value(id), '\0',
		    json_string_length(id)) != NULL)
			rc = jh_errf(e, "an assistant message whose id holds a "
			    "NUL (\\u0000)");
		else
			rc = jh_errf(e, "an assistant message without an id (or "
			    "one over %d bytes)", JH_UNIT_ID_MAX);
		goto out;
	}
	memset(&u, 0, sizeof(u));
	if (jh_usage_anthropic(&u, us, e) == -1)
		rc = -1;
	else
		rc = call_add(t, o, msg, &u, file, off, e);
out:
	json_decref(o);
	return (rc);
}

static void
say(jh_tr_warn warn, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
say(jh_tr_warn warn, void *arg, const char *fmt, ...)
{
	char m[512];
	va_list ap;

	if (warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	warn(arg, m);
}

/* Resumed: the last call of file, if still streaming, waits. */
static void
defer_last(struct jh_transcript *t, size_t file, uint64_t *next)
{
	size_t i, last = SIZE_MAX;

	for (i = 0; i < t->n; i++)
		if (t->v[i].file == file && (last == SIZE_MAX ||
		    t->v[i].start > t->v[last].start))
			last = i;
	if (last != SIZE_MAX && !t->v[last].stopped) {
		t->v[last].deferred = 1;
		*next = t->v[last].start;
	}
}

int
jh_transcript_read(struct jh_transcript *t, int fd, size_t file,
    uint64_t off, int resume, uint64_t *next, jh_tr_warn warn, void *arg,
    struct jh_err *e)
{
	struct jh_reader r;
	const char *line;
	uint64_t lstart;
	size_t len;
	int rr, rc = 0;

	jh_reader_init(&r, fd);
	r.offset = off;
	*next = off;
	for (;;) {
		lstart = r.offset + r.pos;
		if ((rr = jh_reader_line(&r, &line, &len, e)) == 0)
			break;
		if (rr == -1) {
			say(warn, arg, "line at byte %llu: %s",
			    (unsigned long long)lstart, e->msg);
			t->bad++;
			if (strncmp(e->msg, "read", 4) == 0)
				break;
			*next = r.offset + r.pos;
			continue;
		}
		/* No newline yet: Claude Code is still writing it. */
		if (r.eof && line + len == (const char *)r.b.p + r.b.len) {
			say(warn, arg, "a partial last line at byte %llu, left "
			    "for the next read", (unsigned long long)lstart);
			break;
		}
		*next = r.offset + r.pos;
		t->lines++;
		if ((rc = jh_transcript_line(t, line, len, file, lstart,
		    e)) == JH_TR_NOMEM)
			break;
		if (rc == -1) {
			say(warn, arg, "line at byte %llu skipped: %s",
			    (unsigned long long)lstart, e->msg);
			t->bad++;
			rc = 0;
		}
	}
	jh_reader_free(&r);
	if (rc == JH_TR_NOMEM)
		return (-1);
	if (resume)
		defer_last(t, file, next);
	return (0);
}

const char *
jh_transcript_session(const struct jh_tcall *c, const char *session,
    const char *path, char *buf, size_t bufsz)
{
	const char *base, *ext;

	if (c->session != NULL)
		return (c->session);
	if (session != NULL)
		return (session);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	ext = strstr(base, ".jsonl");
	snprintf(buf, bufsz, "%.*s", (int)(ext ? ext - base :
	    (ptrdiff_t)strlen(base)), base);
	return (buf);
}

void
jh_transcript_unit(struct jh_unit *x, const struct jh_tcall *c,
    const char *session, const struct jh_coeffs *coeffs)
{
	jh_unit_init(x, session, "transcript");
	x->unit = c->id;
	x->request_id = c->request_id;
	x->model = c->model;
	x->u = c->u;
	x->completed = c->stopped;
	x->accepted = c->stopped ? c->u.out : 0;
	if (!c->stopped) {
		x->verdict = "partial";
		x->note = "no stop_reason seen: a call cut short, or still "
		    "streaming when read";
	}
	jh_unit_tokens(x, coeffs);
}

/* --- the offsets of -O ------------------------------------------------- */

uint64_t
jh_offs_get(const struct jh_offs *o, const char *path)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->path[i], path) == 0)
			return (o->off[i]);
	return (0);
}

int
jh_offs_set(struct jh_offs *o, const char *path, uint64_t off,
    struct jh_err *e)
{
	char **np;
	uint64_t *no;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->path[i], path) == 0) {
			o->off[i] = off;
			return (0);
		}
	if ((np = reallocarray(o->path, o->n + 1, sizeof(*np))) == NULL)
		return (jh_errf(e, "out of memory"));
	o->path = np;
	if ((no = reallocarray(o->off, o->n + 1, sizeof(*no))) == NULL)
		return (jh_errf(e, "out of memory"));
	o->off = no;
	if ((o->path[o->n] = strdup(path)) == NULL)
		return (jh_errf(e, "out of memory"));
	o->off[o->n++] = off;
	return (0);
}

/* The lines of an offsets file, NUL-terminated in p. */
static int
offs_parse(struct jh_offs *o, char *p, const char *file, struct jh_err *e)
{
	char *nl, *sp;
	unsigned long long v;

	for (; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			return (jh_errf(e, "%s: a line without its end: not an "
			    "offset file", file));
		*nl = '\0';
		errno = 0;
		v = strtoull(p, &sp, 10);
		if (sp == p || *sp != ' ' || errno != 0 || sp[1] != '/')
			return (jh_errf(e, "%s: not an offset file (\"<offset> "
			    "<absolute path>\" lines)", file));
		if (jh_offs_set(o, sp + 1, v, e) == -1)
			return (-1);
	}
	return (0);
}

int
jh_offs_load(struct jh_offs *o, const char *file, struct jh_err *e)
{
	struct jh_buf b;
	struct jh_err re;
	int fd, rc;

	memset(o, 0, sizeof(*o));
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		if (errno == ENOENT)
			return (0);
		return (jh_errf(e, "%s: %s", file, strerror(errno)));
	}
	jh_buf_init(&b);
	if (jh_read_all(&b, fd, 4u * 1024 * 1024, &re) == -1) {
		rc = jh_errf(e, "%s: %s", file, re.msg);
		goto out;
	}
	if (jh_buf_cstr(&b) == NULL) {
		rc = jh_errf(e, "out of memory");
		goto out;
	}
	rc = offs_parse(o, (char *)b.p, file, e);
out:
	close(fd);
	jh_buf_free(&b);
	return (rc);
}

int
jh_offs_save(const struct jh_offs *o, const char *file, struct jh_err *e)
{
	char tmp[PATH_MAX];
	FILE *f;
	size_t i;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", file, (long)getpid()) >=
	    (int)sizeof(tmp))
		return (jh_errf(e, "%s: path too long", file));
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1)
		return (jh_errf(e, "%s: %s", tmp, strerror(errno)));
	if ((f = fdopen(fd, "w")) == NULL) {
		jh_errf(e, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return (-1);
	}
	for (i = 0; i < o->n; i++)
		fprintf(f, "%llu %s\n", (unsigned long long)o->off[i],
		    o->path[i]);
	if (fflush(f) == EOF || fsync(fd) == -1 || ferror(f)) {
		jh_errf(e, "%s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return (-1);
	}
	fclose(f);
	if (rename(tmp, file) == -1) {
		jh_errf(e, "rename %s: %s", file, strerror(errno));
		unlink(tmp);
		return (-1);
	}
	return (0);
}

void
jh_offs_free(struct jh_offs *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		free(o->path[i]);
	free(o->path);
	free(o->off);
	memset(o, 0, sizeof(*o));
}
