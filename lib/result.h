/*
 * joulehook: what ran, checked against what was decided (jh-result(1)).
 */
#ifndef JH_RESULT_H
#define JH_RESULT_H

#include <stddef.h>

struct jh_buf;
struct jh_keyset;

struct jh_result_opts {
	const char *statedir;		/* the logs, under <statedir>/logs */
	const char *ledgerdir;		/* where asks' holds are settled */
	const struct jh_keyset *keys;	/* the stewards whose receipts count */
	unsigned wait_ms;		/* for a ledger's lock */
	int end;			/* -e: a session's end closes its asks */
};

/*
 * One ActionEvent line of jh-result(1): its result/1 records appended to
 * out, one a line (none for an event that ends nothing), and what the
 * person should read appended to diag, one a line.  Returns 0, or -1
 * when the line could not be answered (not an event, out of memory).
 */
int	jh_result_line(struct jh_buf *out, struct jh_buf *diag,
	    const struct jh_result_opts *o, const char *line, size_t len);

#endif /* JH_RESULT_H */
