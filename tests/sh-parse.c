/*
 * sh-parse: prints what lib/shellparse.c makes of shell commands, one
 * JSON line per command, for tests/shellparse.bats.
 *
 *   sh-parse [-e]	one command per input line
 *   sh-parse -a [-e]	the whole input is one script
 *
 * -e decodes \n (newline), \t (tab), \0 (NUL) and \\ (backslash), so
 * that a one-line corpus can hold multi-line scripts; any other
 * backslash stays as it is.  With JH_TEST_HOME set, it is the home
 * directory the parser is given (jh_sh_parse_with()).  A refusal is data
 * ({"ok":false,...}), not an exit status: the exit status is 0 unless the
 * input or output failed (2).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jh.h"
#include "buf.h"
#include "json.h"
#include "shellparse.h"
#include "util.h"

#define PROG "sh-parse"

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-ae]\n", PROG);
	exit(2);
}

static size_t
unescape(char *s, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && strchr("nt0\\", s[i + 1]) !=
		    NULL) {
			i++;
			s[o++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' :
			    s[i] == '0' ? '\0' : '\\';
		} else
			s[o++] = s[i];
	}
	return (o);
}

static void
words(struct jh_buf *b, const char *key, const struct jh_sh_word *w,
    size_t n)
{
	size_t i;

	jh_buf_addf(b, "\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			jh_buf_addc(b, ',');
		jh_json_str(b, w[i].s, w[i].len);
	}
	jh_buf_adds(b, "]");
}

static void
wflags(struct jh_buf *b, int f)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{ JH_SHW_GLOB, "glob" }, { JH_SHW_BRACE, "brace" },
		{ JH_SHW_TILDE, "tilde" }, { JH_SHW_EXPAND, "expand" },
		{ JH_SHW_CMDSUB, "cmdsub" }, { JH_SHW_PROCSUB, "procsub" },
	};
	size_t i;
	int first = 1;

	jh_buf_addc(b, '[');
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit) {
			jh_buf_addf(b, "%s\"%s\"", first ? "" : ",",
			    names[i].name);
			first = 0;
		}
	jh_buf_addc(b, ']');
}

static void
flaglist(struct jh_buf *b, const char *key, const struct jh_sh_word *w,
    size_t n)
{
	size_t i;

	jh_buf_addf(b, "\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			jh_buf_addc(b, ',');
		wflags(b, w[i].flags);
	}
	jh_buf_addc(b, ']');
}

static void
cmd_json(struct jh_buf *b, const struct jh_sh_cmd *c)
{
	static const char *const kinds[] = { "?", "read", "write", "dup",
		"heredoc" };
	static const struct {
		int bit;
		const char *name;
	} cf[] = {
		{ JH_SHC_WRAPPED, "wrapped" },
		{ JH_SHC_OPENARGS, "openargs" },
		{ JH_SHC_SUBST, "subst" },
		{ JH_SHC_CWD_UNKNOWN, "cwd-unknown" },
		{ JH_SHC_CWD_SOURCED, "cwd-sourced" },
	};
	size_t i;
	int first = 1;

	jh_buf_addc(b, '{');
	words(b, "assign", c->assign, c->nassign);
	jh_buf_addc(b, ',');
	flaglist(b, "aflags", c->assign, c->nassign);
	jh_buf_addc(b, ',');
	words(b, "argv", c->argv, c->argc);
	jh_buf_addc(b, ',');
	flaglist(b, "flags", c->argv, c->argc);
	jh_buf_adds(b, ",\"redir\":[");
	for (i = 0; i < c->nredir; i++) {
		const struct jh_sh_redir *r = &c->redir[i];

		jh_buf_addf(b, "%s{\"kind\":\"%s\",\"fd\":%d,\"target\":",
		    i ? "," : "", r->kind >= 1 && r->kind <= 4 ?
		    kinds[r->kind] : "?", r->fd);
		jh_json_str(b, r->target.s, r->target.len);
		jh_buf_adds(b, ",\"tflags\":");
		wflags(b, r->target.flags);
		jh_buf_addc(b, '}');
	}
	jh_buf_adds(b, "],\"cwd\":");
	if (c->cwd != NULL)
		jh_json_str(b, c->cwd, strlen(c->cwd));
	else
		jh_buf_adds(b, "null");
	jh_buf_adds(b, ",\"cflags\":[");
	for (i = 0; i < sizeof(cf) / sizeof(cf[0]); i++)
		if (c->flags & cf[i].bit) {
			jh_buf_addf(b, "%s\"%s\"", first ? "" : ",",
			    cf[i].name);
			first = 0;
		}
	jh_buf_adds(b, "]}");
}

static int
one(const char *s, size_t n)
{
	struct jh_sh_script sc;
	struct jh_sh_opts o;
	struct jh_err e;
	struct jh_buf b;
	size_t i;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	o.home = getenv("JH_TEST_HOME");
	jh_buf_init(&b);
	if (jh_sh_parse_with(&sc, s, n, &o, &e) == -1) {
		jh_buf_adds(&b, "{\"ok\":false,\"error\":");
		jh_json_str(&b, e.msg, strlen(e.msg));
		jh_buf_adds(&b, "}\n");
	} else {
		jh_buf_adds(&b, "{\"ok\":true,\"cmds\":[");
		for (i = 0; i < sc.n; i++) {
			if (i)
				jh_buf_addc(&b, ',');
			cmd_json(&b, &sc.cmd[i]);
		}
		jh_buf_adds(&b, "]}\n");
		jh_sh_free(&sc);
	}
	if (b.oom || fwrite(b.p, 1, b.len, stdout) != b.len)
		rc = -1;
	jh_buf_free(&b);
	return (rc);
}

int
main(int argc, char *argv[])
{
	struct jh_buf in;
	struct jh_err e;
	char *s, *nl;
	size_t n, len;
	int ch, all = 0, esc = 0;

	while ((ch = getopt(argc, argv, "ae")) != -1) {
		switch (ch) {
		case 'a':
			all = 1;
			break;
		case 'e':
			esc = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	jh_buf_init(&in);
	if (jh_read_all(&in, STDIN_FILENO, JH_MAX_RECORD, &e) == -1)
		errx(2, "stdin: %s", e.msg);
	s = in.len > 0 ? (char *)in.p : "";
	n = in.len;
	if (all) {
		if (esc)
			n = unescape(s, n);
		if (one(s, n) == -1)
			errx(2, "stdout: write error");
	}
	while (!all && n > 0) {
		nl = memchr(s, '\n', n);
		len = nl != NULL ? (size_t)(nl - s) : n;
		if (one(s, esc ? unescape(s, len) : len) == -1)
			errx(2, "stdout: write error");
		n -= nl != NULL ? len + 1 : len;
		s += nl != NULL ? len + 1 : len;
	}
	jh_buf_free(&in);
	if (fflush(stdout) == EOF || ferror(stdout))
		errx(2, "stdout: write error");
	return (0);
}
