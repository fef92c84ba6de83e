/*
 * joulehook: the clock, nonces, default paths, whole reads and writes,
 * and the record readers the filters' input loops run on (util.c).
 * The clock and nonces obey JH_NOW and JH_NONCE only in a test build
 * (jh-hook(1), SECURITY CONSIDERATIONS); the paths are joulehook(7),
 * FILES; the exit statuses of the input loops are joulehook(7), EXIT
 * STATUS; a record is at most JH_MAX_RECORD (joulehook-formats(5),
 * "Streams").
 */
#ifndef JH_UTIL_H
#define JH_UTIL_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"

struct jh_err;

uint64_t jh_now_ms(void);
/* A monotonic clock in milliseconds, for deadlines (never JH_NOW). */
uint64_t jh_mono_ms(void);
void	jh_nonce(uint8_t *n);			/* JH_NONCE_LEN bytes */
/* All of fd (at most max bytes) appended to b. */
int	jh_read_all(struct jh_buf *b, int fd, size_t max, struct jh_err *e);
/* All of p to fd, or -1 with errno. */
int	jh_write_all(int fd, const void *p, size_t n);
/* Flushes an output stream and names any error; 0, or 2 (exit status). */
int	jh_fshut(FILE *fp, const char *name);
/*
 * Drops from s, in place, every byte that is not part of well-formed
 * UTF-8 (RFC 3629): what a byte-counted %.Ns left of a character cut in
 * two.  Returns s.
 */
char	*jh_utf8_clean(char *s);

/* JH_HOME and JH_STATE, or their XDG defaults. */
const char *jh_home(char *out, size_t sz);
const char *jh_state(char *out, size_t sz);
int	jh_path_join(char *out, size_t sz, const char *dir, const char *name);

/*
 * Where the suite's files are (joulehook(7), FILES): set what the options
 * gave, NULL the rest, and jh_where_fill gives the rest their defaults.
 */
struct jh_where {
	const char *home;	/* JH_HOME */
	const char *state;	/* JH_STATE */
	const char *ledger;	/* <state>/ledger */
	const char *key;	/* <home>/steward.key */
	const char *issuer;	/* <home>/issuer.key */
	const char *stewards;	/* <home>/stewards */
	const char *trust;	/* <home>/trust */
	const char *revoked;	/* <home>/revoked */
	char buf[8][PATH_MAX];
};
void	jh_where_fill(struct jh_where *w);

/* Reading records from a stream: lines, JSON values (hosts.h), CBOR items. */
struct jh_reader {
	int fd;
	struct jh_buf b;
	size_t pos;
	int eof;
	int err;		/* the errno of a read that failed, else 0 */
	uint64_t offset;	/* stream offset of b.p[0] */
	size_t tried;		/* bytes of an item found truncated */
};
void	jh_reader_init(struct jh_reader *r, int fd);
int	jh_reader_mem(struct jh_reader *r, const void *p, size_t n);
void	jh_reader_free(struct jh_reader *r);
/* Reads more input: the bytes read, 0 at EOF, -1 on error. */
ssize_t	jh_reader_fill(struct jh_reader *r, struct jh_err *e);
/* A millisecond option: digits only, at most 7 of them. */
int	jh_parse_ms(unsigned *out, const char *s);
/*
 * 1 with the next line (without its newline), 0 at the end of input, -1
 * on a read error or a line over JH_MAX_RECORD (skipped: go on).
 */
int	jh_reader_line(struct jh_reader *r, const char **line, size_t *len,
	    struct jh_err *e);
/*
 * 1 with the next whole CBOR item of a sequence, 0 at the end of input,
 * JH_CBOR_TRUNCATED or JH_CBOR_INVALID (cbor.h).
 */
int	jh_reader_cbor(struct jh_reader *r, const uint8_t **item, size_t *len,
	    struct jh_err *e);

/*
 * The filters' input loops: each named file, or the standard input.  fn
 * returns the exit status a file or a line earns (0, 1 or 2; a file's
 * fn -1 to stop at once); the loop returns the highest.
 */
#define JH_IN_STOP	0x01	/* a file that cannot be opened ends the loop */
#define JH_IN_NOHANG	0x02	/* open O_NONBLOCK: a FIFO cannot hang it */
typedef int (*jh_file_fn)(void *arg, struct jh_reader *r, const char *path);
int	jh_each_file(int argc, char *argv[], int flags, jh_file_fn fn,
	    void *arg);
/* line, len; or NULL, 0 and why the line could not be read */
typedef int (*jh_line_fn)(void *arg, const char *line, size_t len,
	    const char *why);
int	jh_each_line(int argc, char *argv[], jh_line_fn fn, void *arg);

#endif /* JH_UTIL_H */
