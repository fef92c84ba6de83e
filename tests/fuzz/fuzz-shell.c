/*
 * fuzz-shell: bytes -> jh_sh_parse_with (with a home) -> jh_shell_effects
 * (a cwd and a root in a scratch world) -> free.  libFuzzer target
 * (make fuzz; tests/fuzz.bats runs a smoke pass).
 */
#include "fuzz-common.h"

#include "jh.h"
#include "shellparse.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-shell",
	    "jh_shell_effects is not in the library: fuzzing the parser only");
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_sh_script sc;
	struct jh_sh_opts o = { fz_home };
	struct jh_err e;
	size_t i, j;

	if (jh_sh_parse_with(&sc, (const char *)d, n, &o, &e) != 0) {
		if (memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
			abort();	/* the reason is a string */
		return (0);
	}
	for (i = 0; i < sc.n; i++) {	/* every word is a string */
		const struct jh_sh_cmd *c = &sc.cmd[i];

		for (j = 0; j < c->argc; j++)
			if (strlen(c->argv[j].s) != c->argv[j].len)
				abort();
		for (j = 0; j < c->nassign; j++)
			if (strlen(c->assign[j].s) != c->assign[j].len)
				abort();
	}
	fz_effects(&sc);
	jh_sh_free(&sc);
	return (0);
}
