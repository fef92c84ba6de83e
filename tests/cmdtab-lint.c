/*
 * cmdtab-lint: checks the command table (lib/cmdtab.c) against the
 * grammar of lib/cmdtab.h, for tests/cmdtab.bats.
 *
 *   cmdtab-lint	prints the first problem and exits 1, or exits 0
 *   cmdtab-lint -l	lists every entry, one a line: its name, opts,
 *			args, runs, tags and src, tab-separated
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdtab.h"

#define PROG "cmdtab-lint"

static const char *
nz(const char *s)
{
	return (s != NULL ? s : "");
}

int
main(int argc, char *argv[])
{
	char why[256];
	unsigned long i;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-l") != 0)) {
		fprintf(stderr, "usage: %s [-l]\n", PROG);
		return (2);
	}
	if (jh_cmdtab_check(why, sizeof(why)) == -1) {
		printf("%s: %s\n", PROG, why);
		return (1);
	}
	if (argc == 2)
		for (i = 0; i < jh_ncmdtab; i++)
			printf("%s\t%s\t%s\t%s\t%s\t%#x\t%s\n",
			    jh_cmdtab[i].name, nz(jh_cmdtab[i].opts),
			    nz(jh_cmdtab[i].args), nz(jh_cmdtab[i].runs),
			    nz(jh_cmdtab[i].tags), jh_cmdtab[i].flags,
			    nz(jh_cmdtab[i].src));
	if (fflush(stdout) == EOF || ferror(stdout))
		return (2);
	return (0);
}
