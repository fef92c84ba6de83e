/*
 * fuzz-cmdopts: bytes -> words (split at blanks, newlines and NULs) ->
 * one simple command -> jh_shell_effects: the command table's option and
 * operand parser, without the shell parser in front.  The words are
 * literal (quoted, for the extractor), as any string may be.
 *
 * A first byte of 0x01 picks the program from the table instead: the
 * next byte is an entry's index (its name split into words: "git log"),
 * and the rest are its arguments, so the fuzzer reaches every entry.
 */
#include "fuzz-common.h"

#include "cmdtab.h"
#include "shellparse.h"

#define MAXW	256

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-cmdopts",
	    "jh_shell_effects is not in the library: nothing to fuzz");
	return (0);
}

static int
blank(uint8_t c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\0');
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_sh_word w[MAXW];
	struct jh_sh_cmd cmd;
	struct jh_sh_script sc;
	char *buf;
	size_t i, nw = 0, len;

	if (!fz_have_effects())
		return (0);
	if ((buf = malloc(n + 1 + 64)) == NULL)
		return (0);
	len = 0;
	i = 0;
	if (n >= 2 && d[0] == 0x01 && jh_ncmdtab > 0) {
		const char *name = jh_cmdtab[d[1] % jh_ncmdtab].name;
		size_t k = strlen(name);

		if (k > 63)
			k = 63;
		memcpy(buf, name, k);
		buf[k] = ' ';
		len = k + 1;
		i = 2;
	}
	memcpy(buf + len, d + i, n - i);
	len += n - i;
	buf[len] = '\0';
	for (i = 0; i < len && nw < MAXW; ) {
		size_t s;

		while (i < len && blank((uint8_t)buf[i]))
			buf[i++] = '\0';
		if (i >= len)
			break;
		s = i;
		while (i < len && !blank((uint8_t)buf[i]))
			i++;
		buf[i] = '\0';
		w[nw].s = buf + s;
		w[nw].len = i - s;
		w[nw].flags = 0;
		nw++;
		i++;
	}
	if (nw > 0) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.argv = w;
		cmd.argc = nw;
		sc.cmd = &cmd;
		sc.n = 1;
		fz_effects(&sc);
	}
	free(buf);
	return (0);
}
