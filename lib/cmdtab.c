/*
 * joulehook: the command table (cmdtab.h says how to read an entry).
 */
#include <stddef.h>

#include "cmdtab.h"

const struct jh_cmddef jh_cmdtab[] = {
	{ "cat", "-*", "r*", NULL, NULL, JH_CT_FILTER, "cat(1)" },
};

const unsigned long jh_ncmdtab = sizeof(jh_cmdtab) / sizeof(jh_cmdtab[0]);
