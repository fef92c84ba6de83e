/*
 * sh-effects: prints the effects lib/effects.c finds in shell commands,
 * one JSON line per input line, for tests/effects.bats.
 *
 *   sh-effects [-e] [-d dir] [-r root] [-H home]
 *
 * -e decodes \n, \t and \\ as sh-parse does; dir is where each line
 * starts (default the working directory), root the project root and home
 * the user's.  A refusal is data ({"ok":false,...}).
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "effects.h"
#include "effgrant.h"
#include "shellparse.h"

static size_t
unescape(char *s, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && strchr("nt\\", s[i + 1])) {
			i++;
			s[o++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : '\\';
		} else
			s[o++] = s[i];
	}
	return (o);
}

int
main(int argc, char *argv[])
{
	struct jh_sh_opts so;
	struct jh_effctx cx;
	char dir[PATH_MAX], *line = NULL, *txt;
	size_t cap = 0;
	ssize_t n;
	int ch, esc = 0;

	memset(&cx, 0, sizeof(cx));
	memset(&so, 0, sizeof(so));
	if (getcwd(dir, sizeof(dir)) == NULL)
		err(2, "getcwd");
	cx.cwd = dir;
	while ((ch = getopt(argc, argv, "ed:r:H:")) != -1) {
		switch (ch) {
		case 'e':
			esc = 1;
			break;
		case 'd':
			cx.cwd = optarg;
			break;
		case 'r':
			cx.root = optarg;
			break;
		case 'H':
			cx.home = so.home = optarg;
			break;
		default:
			fprintf(stderr, "usage: sh-effects [-e] [-d dir] "
			    "[-r root] [-H home]\n");
			return (2);
		}
	}
	while ((n = getline(&line, &cap, stdin)) != -1) {
		struct jh_sh_script sh;
		struct jh_effects ef;
		struct jh_err e;
		json_t *o = json_object();

		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (esc)
			n = (ssize_t)unescape(line, (size_t)n);
		jh_effects_init(&ef);
		if (jh_sh_parse_with(&sh, line, (size_t)n, &so, &e) == -1) {
			json_object_set_new(o, "ok", json_false());
			json_object_set_new(o, "error", json_string(e.msg));
		} else {
			if (jh_shell_effects(&ef, &cx, &sh, &e) == -1) {
				json_object_set_new(o, "ok", json_false());
				json_object_set_new(o, "error",
				    json_string(e.msg));
			} else {
				json_object_set_new(o, "ok", json_true());
				json_object_set_new(o, "effects",
				    jh_effects_json(&ef, 0));
			}
			jh_sh_free(&sh);
		}
		jh_effects_free(&ef);
		txt = json_dumps(o, JSON_COMPACT);
		puts(txt);
		free(txt);
		json_decref(o);
	}
	free(line);
	return (ferror(stdout) ? 2 : 0);
}
