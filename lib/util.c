/*
 * joulehook: clock, nonces, default paths and record readers.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "jh.h"
#include "buf.h"
#include "cbor.h"
#include "util.h"

/*
 * JH_NOW and JH_NONCE exist only in a test build (-DJH_TESTING), so a
 * project's settings cannot move an installed gate's clock (jh-hook(1),
 * SECURITY CONSIDERATIONS).
 */
uint64_t
jh_now_ms(void)
{
	struct timespec ts;

#ifdef JH_TESTING
	const char *s = getenv("JH_NOW");
	if (s != NULL && *s != '\0')
		return (strtoull(s, NULL, 10));
#endif
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

uint64_t
jh_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

void
jh_nonce(uint8_t *n)
{
#ifdef JH_TESTING
	const char *s = getenv("JH_NONCE");
	if (s != NULL && jh_unhex(n, JH_NONCE_LEN, s, strlen(s)) == 0)
		return;
#endif
	randombytes_buf(n, JH_NONCE_LEN);
}

int
jh_path_join(char *out, size_t sz, const char *dir, const char *name)
{
	int n = snprintf(out, sz, "%s/%s", dir, name);

	return (n < 0 || (size_t)n >= sz ? -1 : 0);
}

static const char *
xdg_dir(char *out, size_t sz, const char *var, const char *fallback)
{
	const char *d = getenv(var), *home;
	int n;

	if (d != NULL && d[0] == '/')
		n = snprintf(out, sz, "%s/joulehook", d);
	else if ((home = getenv("HOME")) != NULL && home[0] == '/')
		n = snprintf(out, sz, "%s/%s/joulehook", home, fallback);
	else
		return (NULL);
	return (n < 0 || (size_t)n >= sz ? NULL : out);
}

/* JH_HOME, else $XDG_CONFIG_HOME/joulehook, else ~/.config/joulehook. */
const char *
jh_home(char *out, size_t sz)
{
	const char *d = getenv("JH_HOME");

	if (d != NULL && *d != '\0') {
		if (strlen(d) >= sz)
			return (NULL);
		memcpy(out, d, strlen(d) + 1);
		return (out);
	}
	return (xdg_dir(out, sz, "XDG_CONFIG_HOME", ".config"));
}

/* JH_STATE, else $XDG_STATE_HOME/joulehook, else ~/.local/state/joulehook. */
const char *
jh_state(char *out, size_t sz)
{
	const char *d = getenv("JH_STATE");

	if (d != NULL && *d != '\0') {
		if (strlen(d) >= sz)
			return (NULL);
		memcpy(out, d, strlen(d) + 1);
		return (out);
	}
	return (xdg_dir(out, sz, "XDG_STATE_HOME", ".local/state"));
}

/* given, else dir/name in buf (PATH_MAX); NULL when neither can be had. */
static const char *
under(const char *given, char *buf, const char *dir, const char *name)
{
	if (given != NULL)
		return (given);
	if (dir == NULL || jh_path_join(buf, PATH_MAX, dir, name) == -1)
		return (NULL);
	return (buf);
}

/*
 * Fills in each of w's paths that no option gave with its default
 * (joulehook(7), FILES): the directories JH_HOME and JH_STATE (jh_home,
 * jh_state), the files under them.  A path whose directory is unknown
 * (no HOME) or that does not fit stays NULL.
 */
void
jh_where_fill(struct jh_where *w)
{
	if (w->home == NULL)
		w->home = jh_home(w->buf[0], PATH_MAX);
	if (w->state == NULL)
		w->state = jh_state(w->buf[1], PATH_MAX);
	w->ledger = under(w->ledger, w->buf[2], w->state, "ledger");
	w->key = under(w->key, w->buf[3], w->home, "steward.key");
	w->issuer = under(w->issuer, w->buf[4], w->home, "issuer.key");
	w->stewards = under(w->stewards, w->buf[5], w->home, "stewards");
	w->trust = under(w->trust, w->buf[6], w->home, "trust");
	w->revoked = under(w->revoked, w->buf[7], w->home, "revoked");
}

/*
 * The end of an output stream, as sbase's fshut: flushed, and any error
 * writing it (now or earlier) named on the standard error.  Returns 0,
 * or 2, the exit status of a program that could not write its output.
 */
int
jh_fshut(FILE *fp, const char *name)
{
	if (fflush(fp) == EOF || ferror(fp)) {
		warn("%s", name);
		return (2);
	}
	return (0);
}

char *
jh_utf8_clean(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;
	size_t n, k;
	uint32_t cp;

	while (*r != '\0') {
		if (*r < 0x80) {
			*w++ = *r++;
			continue;
		}
		n = *r >= 0xc2 && *r <= 0xdf ? 2 : *r >= 0xe0 && *r <= 0xef ?
		    3 : *r >= 0xf0 && *r <= 0xf4 ? 4 : 0;
		cp = n == 2 ? *r & 0x1f : n == 3 ? *r & 0x0f : *r & 0x07;
		for (k = 1; k < n && (r[k] & 0xc0) == 0x80; k++)
			cp = cp << 6 | (r[k] & 0x3f);
		if (n == 0 || k < n || (n == 3 && (cp < 0x800 || (cp >= 0xd800 &&
		    cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 ||
		    cp > 0x10ffff))) {
			r++;	/* a byte of no whole character: dropped */
			continue;
		}
		memmove(w, r, n);
		w += n;
		r += n;
	}
	*w = '\0';
	return (s);
}

/* Writes all of p to fd, or -1 with errno (EINTR is retried). */
int
jh_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, c, n)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		c += w;
		n -= (size_t)w;
	}
	return (0);
}

/*
 * Room for the next read: 64 KiB more once less than READ_MIN is left,
 * so that a small file or stream, read to its end, costs one buffer,
 * never the doubling a second 64 KiB would make (128 KiB, which the
 * sanitizers' allocator maps and unmaps for each file).
 */
#define READ_MIN	4096

int
jh_read_all(struct jh_buf *b, int fd, size_t max, struct jh_err *e)
{
	ssize_t r;

	for (;;) {
		if (b->cap - b->len < READ_MIN &&
		    jh_buf_reserve(b, 65536) == -1)
			return (jh_errf(e, "out of memory"));
		r = read(fd, b->p + b->len, b->cap - b->len);
		if (r == 0)
			break;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			return (jh_errf(e, "read: %s", strerror(errno)));
		}
		b->len += (size_t)r;
		if (b->len > max)
			return (jh_errf(e, "input larger than %zu bytes", max));
	}
	return (0);
}

void
jh_reader_init(struct jh_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	jh_buf_init(&r->b);
}

/* A reader of a copy of p[0..n): no file behind it, at its end already. */
int
jh_reader_mem(struct jh_reader *r, const void *p, size_t n)
{
	jh_reader_init(r, -1);
	jh_buf_add(&r->b, p, n);
	r->eof = 1;
	return (r->b.oom ? -1 : 0);
}

void
jh_reader_free(struct jh_reader *r)
{
	jh_buf_free(&r->b);
}

/* Reads more input; returns bytes read, 0 at EOF, -1 on error. */
ssize_t
jh_reader_fill(struct jh_reader *r, struct jh_err *e)
{
	ssize_t n;

	if (r->pos > 0 && r->pos >= r->b.len / 2) {
		memmove(r->b.p, r->b.p + r->pos, r->b.len - r->pos);
		r->b.len -= r->pos;
		r->offset += r->pos;
		r->pos = 0;
	}
	if (r->b.cap - r->b.len < READ_MIN &&
	    jh_buf_reserve(&r->b, 65536) == -1)
		return (jh_errf(e, "out of memory"));
	do
		n = read(r->fd, r->b.p + r->b.len, r->b.cap - r->b.len);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		r->eof = 1;
		r->err = errno;
		return (jh_errf(e, "read: %s", strerror(errno)));
	}
	if (n == 0)
		r->eof = 1;
	r->b.len += (size_t)n;
	return (n);
}

/*
 * Returns 1 with the next line (without its newline), 0 at the end of
 * input, -1 on a read error or a line over JH_MAX_RECORD (which is then
 * skipped, so the caller may go on).
 */
int
jh_reader_line(struct jh_reader *r, const char **line, size_t *len,
    struct jh_err *e)
{
	size_t scanned = 0;	/* bytes after pos known to hold no newline */
	uint8_t *nl;
	int toolong = 0;

	for (;;) {
		nl = r->b.len > r->pos + scanned ? memchr(r->b.p + r->pos +
		    scanned, '\n', r->b.len - r->pos - scanned) : NULL;
		if (nl != NULL) {
			size_t start = r->pos;
			r->pos = (size_t)(nl - r->b.p) + 1;
			if (toolong || r->pos - start - 1 > JH_MAX_RECORD)
				return (jh_errf(e, "record longer than %u bytes",
				    JH_MAX_RECORD));
			*line = (const char *)r->b.p + start;
			*len = (size_t)(nl - r->b.p) - start;
			return (1);
		}
		scanned = r->b.len - r->pos;
		if (scanned > JH_MAX_RECORD) {
			/* Drop what we have; keep looking for the end. */
			toolong = 1;
			r->pos = r->b.len;
			scanned = 0;
		}
		if (r->eof)
			break;
		if (jh_reader_fill(r, e) == -1)
			return (-1);
	}
	if (toolong) {
		r->pos = r->b.len;
		return (jh_errf(e, "record longer than %u bytes", JH_MAX_RECORD));
	}
	if (r->pos == r->b.len)
		return (0);
	if (r->b.len - r->pos > JH_MAX_RECORD) {
		r->pos = r->b.len;
		return (jh_errf(e, "record longer than %u bytes", JH_MAX_RECORD));
	}
	*line = (const char *)r->b.p + r->pos;
	*len = r->b.len - r->pos;
	r->pos = r->b.len;
	return (1);
}

/*
 * Returns 1 with the next whole CBOR item of a sequence, 0 at the end of
 * input, JH_CBOR_TRUNCATED when the input ends inside an item, and
 * JH_CBOR_INVALID when the next item is not well-formed (the rest of the
 * sequence cannot be framed).
 */
int
jh_reader_cbor(struct jh_reader *r, const uint8_t **item, size_t *len,
    struct jh_err *e)
{
	size_t n, have;
	int rc;

	for (;;) {
		/*
		 * An item found truncated is framed again only once what is
		 * read of it has doubled (or at the end, or over the limit):
		 * a long item read in small pieces costs linear time.
		 */
		have = r->b.len - r->pos;
		if (have > 0 && (have >= 2 * r->tried || r->eof ||
		    have > JH_MAX_RECORD)) {
			rc = jh_cbor_item_len(&n, r->b.p + r->pos, have, e);
			if (rc == JH_CBOR_OK) {
				if (n > JH_MAX_RECORD) {
					jh_errf(e, "item longer than %u bytes",
					    JH_MAX_RECORD);
					return (JH_CBOR_INVALID);
				}
				*item = r->b.p + r->pos;
				*len = n;
				r->pos += n;
				r->tried = 0;
				return (1);
			}
			if (rc == JH_CBOR_INVALID)
				return (JH_CBOR_INVALID);
			if (have > JH_MAX_RECORD) {
				jh_errf(e, "item longer than %u bytes",
				    JH_MAX_RECORD);
				return (JH_CBOR_INVALID);
			}
			r->tried = have;
		}
		if (r->eof)
			break;
		if (jh_reader_fill(r, e) == -1)
			return (JH_CBOR_INVALID);
	}
	if (r->pos == r->b.len)
		return (0);
	jh_errf(e, "truncated item at the end of input (%zu bytes)",
	    r->b.len - r->pos);
	return (JH_CBOR_TRUNCATED);
}

/* A millisecond option: digits only, at most 7 of them (under 3 hours). */
int
jh_parse_ms(unsigned *out, const char *s)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9' || strlen(s) > 7)
		return (-1);
	v = strtoul(s, &end, 10);
	if (*end != '\0')
		return (-1);
	*out = (unsigned)v;
	return (0);
}

/*
 * The filters' input: each named file in turn, or the standard input
 * when none is named or one is "-".  fn reads one file through r, which
 * it may move on (its offset, a lseek of r->fd first), and returns the
 * exit status the file earns (joulehook(7), EXIT STATUS: 0; 1, something
 * in it refused; 2, something could not be done, such as reading it: a
 * read error is in r->err), or -1 to stop at once (a write error).  A
 * file that cannot be opened is named on the standard error and earns 2;
 * with JH_IN_STOP it also ends the loop.  Returns the highest status, or
 * -1 when fn stopped the loop.
 */
int
jh_each_file(int argc, char *argv[], int flags, jh_file_fn fn, void *arg)
{
	struct jh_reader r;
	int i, x, fd, fl, rc = 0;

	for (i = 0; i < (argc > 0 ? argc : 1); i++) {
		const char *path = argc > 0 ? argv[i] : "-";
		if (strcmp(path, "-") == 0)
			fd = STDIN_FILENO;
		else if ((fd = open(path, O_RDONLY | O_CLOEXEC |
		    (flags & JH_IN_NOHANG ? O_NONBLOCK : 0))) == -1) {
			warn("%s", path);
			rc = 2;
			if (flags & JH_IN_STOP)
				break;
			continue;
		} else if ((flags & JH_IN_NOHANG) &&
		    (fl = fcntl(fd, F_GETFL)) != -1)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		jh_reader_init(&r, fd);
		x = fn(arg, &r, path);
		jh_reader_free(&r);
		if (fd != STDIN_FILENO)
			close(fd);
		if (x == -1)
			return (-1);
		if (x > rc)
			rc = x;
	}
	return (rc);
}

struct each_line {
	jh_line_fn fn;
	void *arg;
};

static int
lines_of(void *arg, struct jh_reader *r, const char *path)
{
	const struct each_line *el = arg;
	struct jh_err e;
	const char *line;
	size_t len;
	int x, rc = 0;

	while ((x = jh_reader_line(r, &line, &len, &e)) != 0) {
		if (x == -1) {
			warnx("%s: %s", path, e.msg);
			if ((x = el->fn(el->arg, NULL, 0, e.msg)) > rc)
				rc = x;
			if (r->eof && r->pos >= r->b.len)
				break;
			continue;
		}
		if (len > 0 && (x = el->fn(el->arg, line, len, NULL)) > rc)
			rc = x;
	}
	return (r->err != 0 ? 2 : rc);
}

/*
 * The filters' input loop, a line at a time (jh_each_file): fn gets
 * every non-empty line, or NULL and the reason for a line that cannot be
 * read (too long, unreadable), after which the rest of that file is read
 * on, and returns the status the line earns (0, 1 or 2).  Returns the
 * highest status, 2 when some file could not be opened or read.
 */
int
jh_each_line(int argc, char *argv[], jh_line_fn fn, void *arg)
{
	struct each_line el;

	el.fn = fn;
	el.arg = arg;
	return (jh_each_file(argc, argv, 0, lines_of, &el));
}
