/*
 * host-answer: a host's native answer to one verdict, for the golden
 * tables of tests/hosts.bats:
 *
 *	host-answer host verdict tool reason [updated-json]
 *
 * verdict is allow, allow-replace, rewrite, ask or deny; prints what the
 * host gets on its standard output and exits with the hook's status.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "hosts.h"

int
main(int argc, char *argv[])
{
	const struct jh_host *h;
	struct jh_buf b;
	int v, replace = 0, rc;

	if (argc < 5 || (h = jh_host_lookup(argv[1])) == NULL) {
		fprintf(stderr, "usage: host-answer host verdict tool reason "
		    "[updated]\n");
		return (64);
	}
	if (strcmp(argv[2], "allow") == 0)
		v = JH_ANSWER_ALLOW;
	else if (strcmp(argv[2], "allow-replace") == 0) {
		v = JH_ANSWER_ALLOW;
		replace = 1;
	} else if (strcmp(argv[2], "rewrite") == 0)
		v = JH_ANSWER_REWRITE;
	else if (strcmp(argv[2], "ask") == 0)
		v = JH_ANSWER_ASK;
	else if (strcmp(argv[2], "deny") == 0)
		v = JH_ANSWER_DENY;
	else
		return (64);
	jh_buf_init(&b);
	rc = jh_host_answer(&b, h, v, argv[4], argv[3],
	    argc > 5 ? argv[5] : NULL, replace);
	if (b.len > 0)
		fwrite(b.p, 1, b.len, stdout);
	jh_buf_free(&b);
	return (rc);
}
