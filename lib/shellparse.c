/*
 * joulehook: a conservative parser for the bash commands an agent asks
 * to run (DESIGN.md 4, SECURITY.md S7).
 *
 * jh_sh_parse() lists every simple command a line would run, with its
 * quote-removed words, in the order they would start: the commands of a
 * substitution come before the command whose word holds it, a wrapper
 * (env, nice, xargs, find -exec, ...) comes just before the command it
 * runs, and an `sh -c' body is listed in place of the shell.  Whatever
 * it cannot prove, it refuses: the caller gets -1 and a reason, never a
 * partial list.  Nothing here looks at the filesystem or the environment.
 */
#include <stdlib.h>
#include <string.h>

#include "jh.h"

#define SH_MAX_INPUT	(1024 * 1024)
#define SH_MAX_DEPTH	32
#define SH_MAX_HDOC	16	/* here-documents waiting for one newline */
#define SH_MAX_EXEC	8	/* -exec actions in one find */
#define SH_MAX_COPY	(16u * 1024 * 1024)	/* bytes of copied words */

enum { SH_BASH, SH_POSIX, SH_ZSH };	/* sh and dash are SH_POSIX */

struct wv {			/* growable word vector */
	struct jh_sh_word *v;
	size_t n, cap;
};

struct rv {			/* growable redirection vector */
	struct jh_sh_redir *v;
	size_t n, cap;
};

/* What one shell knows about its working directory. */
struct st {
	char *cwd;		/* NULL: the start directory */
	int unknown;		/* a cd we could not follow may have run */
	int vars;		/* a variable (CDPATH) may have been set */
	unsigned changed;	/* counts cd, pushd and popd */
};

/* A here-document whose body starts after the next newline. */
struct hdoc {
	char *delim;
	int quoted;		/* quoted delimiter: the body is literal */
	int strip;		/* <<-: leading tabs go */
	int lvl;		/* $( ) level of its operator */
	int placed;		/* its command is listed at cmd */
	unsigned serial;	/* the simple command it belongs to */
	size_t cmd, redir;
};

/* One input being parsed: the line, a backtick body or an sh -c body. */
struct ps {
	const char *s;
	size_t n, i;
	struct jh_sh_script *out;
	struct jh_err *e;
	int depth;		/* nesting, across nested inputs */
	size_t *copied;		/* bytes of copied words, across inputs */
	int cflags;		/* JH_SHC_* for everything listed here */
	int lvl;		/* $( ) nesting inside this input */
	int dialect;		/* SH_BASH, or the shell of an -c body */
	unsigned serial;
	struct hdoc hd[SH_MAX_HDOC];
	size_t nhd;
};

/* A word being scanned. */
struct wsc {
	struct jh_buf b;
	int flags;		/* JH_SHW_* */
	int quoted;		/* some part was quoted: not a reserved word */
	int brack;		/* an unquoted [ was seen */
	int brace;		/* 1: unquoted {, 2: then , or .. */
};

/* How a simple command is listed. */
struct ectx {
	int cflags;
	int inshell;		/* runs in this shell: a cd counts */
	const char *repl;	/* replaced at run time (find {}, xargs -I) */
	unsigned serial;	/* owner of pending here-documents */
};

static int	list(struct ps *, struct st *, int);
static int	scan_word(struct ps *, struct st *, struct wsc *);
static int	scan_dq(struct ps *, struct st *, struct wsc *);
static int	dollar(struct ps *, struct st *, struct wsc *, int);
static int	emit(struct ps *, struct st *, struct jh_sh_cmd *,
		    const struct ectx *);

static int
fail(struct ps *p, const char *why)
{
	return (jh_errf(p->e, "%s", why));
}

static int
ch(const struct ps *p, size_t i)
{
	return (i < p->n ? (unsigned char)p->s[i] : -1);
}

/*
 * Backslash-newline joins lines before the lexer sees them, outside
 * single quotes, comments and literal here-document bodies; so every
 * look at the next character of a token goes through here.
 */
static size_t
cont(const struct ps *p, size_t i)
{
	while (i + 1 < p->n && p->s[i] == '\\' && p->s[i + 1] == '\n')
		i += 2;
	return (i);
}

static int
nextc(const struct ps *p, size_t i)
{
	return (ch(p, cont(p, i + 1)));
}

static int
meta(int c)
{
	return (c == -1 || c == ' ' || c == '\t' || c == '\n' || c == ';' ||
	    c == '&' || c == '|' || c == '(' || c == ')' || c == '<' ||
	    c == '>');
}

static int
isdig(int c)
{
	return (c >= '0' && c <= '9');
}

static int
isname0(int c)
{
	return (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

static int
isnamec(int c)
{
	return (isname0(c) || isdig(c));
}

static int
enter(struct ps *p)
{
	if (++p->depth > SH_MAX_DEPTH)
		return (fail(p, "nesting deeper than 32"));
	return (0);
}

static int
inlist(const char *s, const char *const *l)
{
	for (; *l != NULL; l++)
		if (strcmp(s, *l) == 0)
			return (1);
	return (0);
}

/* State, vectors and commands. */

static int
st_copy(struct ps *p, struct st *d, const struct st *s)
{
	*d = *s;
	if (s->cwd != NULL && (d->cwd = strdup(s->cwd)) == NULL)
		return (fail(p, "out of memory"));
	return (0);
}

static void
st_free(struct st *s)
{
	free(s->cwd);
	s->cwd = NULL;
}

static int
wv_push(struct ps *p, struct wv *v, struct jh_sh_word *w)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4;
		struct jh_sh_word *nv = realloc(v->v, cap * sizeof(*nv));

		if (nv == NULL) {
			free(w->s);
			return (fail(p, "out of memory"));
		}
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = *w;
	return (0);
}

static int
rv_push(struct ps *p, struct rv *v, struct jh_sh_redir *r)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4;
		struct jh_sh_redir *nv = realloc(v->v, cap * sizeof(*nv));

		if (nv == NULL) {
			free(r->target.s);
			return (fail(p, "out of memory"));
		}
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = *r;
	return (0);
}

static void
words_free(struct jh_sh_word *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].s);
	free(v);
}

static void
cmd_free(struct jh_sh_cmd *c)
{
	size_t i;

	words_free(c->assign, c->nassign);
	words_free(c->argv, c->argc);
	for (i = 0; i < c->nredir; i++)
		free(c->redir[i].target.s);
	free(c->redir);
	free(c->cwd);
	memset(c, 0, sizeof(*c));
}

void
jh_sh_free(struct jh_sh_script *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++)
		cmd_free(&sc->cmd[i]);
	free(sc->cmd);
	sc->cmd = NULL;
	sc->n = 0;
}

/*
 * Copies of words (a wrapper's environment given to its command, an sh
 * -c's to every command of its body) are bounded, so that a short line
 * cannot make the parser allocate without end.
 */
static int
word_set(struct ps *p, struct jh_sh_word *w, const char *s, size_t n,
    int flags)
{
	if ((*p->copied += n + 32) > SH_MAX_COPY)
		return (fail(p, "command too complex"));
	if ((w->s = malloc(n + 1)) == NULL)
		return (fail(p, "out of memory"));
	memcpy(w->s, s, n);
	w->s[n] = '\0';
	w->len = n;
	w->flags = flags;
	return (0);
}

/* Takes a scanned word's buffer. */
static int
word_take(struct ps *p, struct jh_sh_word *w, struct wsc *sc)
{
	if (jh_buf_cstr(&sc->b) == NULL)
		return (fail(p, "out of memory"));
	w->s = (char *)sc->b.p;
	w->len = sc->b.len;
	w->flags = sc->flags;
	jh_buf_init(&sc->b);
	return (0);
}

/* Appends c to the script, taking it; *idx is where it went. */
static int
push_cmd(struct ps *p, struct jh_sh_cmd *c, size_t *idx)
{
	struct jh_sh_script *o = p->out;

	if (o->n == 0 || (o->n >= 4 && (o->n & (o->n - 1)) == 0)) {
		size_t cap = o->n == 0 ? 4 : o->n * 2;
		struct jh_sh_cmd *nc;

		if (cap > SIZE_MAX / sizeof(*nc) ||
		    (nc = realloc(o->cmd, cap * sizeof(*nc))) == NULL) {
			cmd_free(c);
			return (fail(p, "out of memory"));
		}
		o->cmd = nc;
	}
	o->cmd[o->n] = *c;
	*idx = o->n++;
	memset(c, 0, sizeof(*c));
	return (0);
}

/* Words. */

static void
wsc_init(struct wsc *w)
{
	memset(w, 0, sizeof(*w));
	jh_buf_init(&w->b);
}

static void
raw(struct wsc *w, const struct ps *p, size_t a, size_t b)
{
	jh_buf_add(&w->b, p->s + a, b - a);
}

static int
scan_sq(struct ps *p, struct wsc *w)
{
	const char *q = memchr(p->s + p->i + 1, '\'', p->n - p->i - 1);

	if (q == NULL)
		return (fail(p, "unterminated single quote"));
	raw(w, p, p->i + 1, (size_t)(q - p->s));
	p->i = (size_t)(q - p->s) + 1;
	w->quoted = 1;
	return (0);
}

static int
hexv(int c)
{
	if (isdig(c))
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

static void
utf8(struct jh_buf *b, unsigned long u)
{
	int n = u < 0x80 ? 0 : u < 0x800 ? 1 : u < 0x10000 ? 2 : 3;

	/* lead byte 0xxxxxxx, 110xxxxx, 1110xxxx or 11110xxx */
	jh_buf_addc(b, (uint8_t)(n == 0 ? u : ((0xff00 >> (n + 1)) & 0xff) |
	    u >> 6 * n));
	while (n-- > 0)
		jh_buf_addc(b, (uint8_t)(0x80 | ((u >> 6 * n) & 0x3f)));
}

/*
 * $'...': decoded as bash does, so `$'\x72\x6d'' is matched as rm.  A
 * NUL would cut the word short in bash but not here: refused.
 */
static int
scan_ansi(struct ps *p, struct wsc *w)
{
	static const char simple[] = "abeEfnrtv\\'\"?";
	static const char value[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
	const char *q;
	size_t i = p->i + 1;
	unsigned long v;
	int c, d, k, max;

	w->quoted = 1;
	for (;;) {
		if ((c = ch(p, i)) == -1)
			return (fail(p, "unterminated $'...'"));
		if (c == '\'')
			break;
		if (c != '\\') {
			jh_buf_addc(&w->b, (uint8_t)c);
			i++;
			continue;
		}
		if ((d = ch(p, i + 1)) == -1)
			return (fail(p, "unterminated $'...'"));
		i += 2;
		v = 256;
		if ((q = strchr(simple, d)) != NULL) {
			v = (unsigned char)value[q - simple];
			d = 0;
		}
		switch (d) {
		case 0:
			break;
		case 'c':
			c = ch(p, i);
			if (c == '\\' && ch(p, i + 1) == '\\') {
				v = 0x1c;
				i += 2;
			} else if (c == -1 || c == '\\' || c == '\'')
				return (fail(p, "unsupported \\c in $'...'"));
			else {
				v = c == '?' ? 0x7f : (unsigned)(c & 0x1f);
				i++;
			}
			break;
		case 'x': case 'u': case 'U':
			max = d == 'x' ? 2 : d == 'u' ? 4 : 8;
			for (v = 0, k = 0; k < max && hexv(ch(p, i)) >= 0;
			    k++, i++)
				v = v * 16 + (unsigned)hexv(ch(p, i));
			if (k == 0) {
				jh_buf_addc(&w->b, '\\');
				jh_buf_addc(&w->b, (uint8_t)d);
				continue;
			}
			if (d != 'x') {
				if (v == 0 || v > 0x10ffff ||
				    (v >= 0xd800 && v <= 0xdfff))
					return (fail(p, "NUL or invalid code "
					    "point in $'...'"));
				utf8(&w->b, v);
				continue;
			}
			break;
		default:
			if (d >= '0' && d <= '7') {
				for (v = (unsigned)(d - '0'), k = 1; k < 3 &&
				    ch(p, i) >= '0' && ch(p, i) <= '7';
				    k++, i++)
					v = v * 8 + (unsigned)(ch(p, i) - '0');
				v &= 0xff;
				break;
			}
			/* bash keeps unknown escapes as they are */
			jh_buf_addc(&w->b, '\\');
			jh_buf_addc(&w->b, (uint8_t)d);
			continue;
		}
		if (v == 0)
			return (fail(p, "NUL byte in $'...'"));
		jh_buf_addc(&w->b, (uint8_t)v);
	}
	p->i = i + 1;
	return (0);
}

/* A nested input: a backtick body or an sh -c body. */
static void
ps_child(struct ps *q, const struct ps *p, const char *s, size_t n,
    int cflags)
{
	memset(q, 0, sizeof(*q));
	q->s = s;
	q->n = n;
	q->out = p->out;
	q->e = p->e;
	q->depth = p->depth;
	q->copied = p->copied;
	q->dialect = p->dialect;
	q->cflags = cflags;
}

static void
hd_clear(struct ps *p)
{
	size_t k;

	for (k = 0; k < p->nhd; k++)
		free(p->hd[k].delim);
	p->nhd = 0;
}

/* An input ended: a here-document still waiting never got its body. */
static int
hd_end(struct ps *p)
{
	if (p->nhd > 0) {
		hd_clear(p);
		return (fail(p, "here-document without a body"));
	}
	return (0);
}

/*
 * `...`: the body ends at the first unescaped backquote; \$ \` \\ (and
 * \" inside double quotes) lose their backslash, then the body is parsed
 * as commands of its own, as bash does.
 */
static int
scan_bq(struct ps *p, struct st *st, struct wsc *w, int dq)
{
	struct jh_buf body;
	struct ps q;
	struct st sub;
	size_t start = p->i, i = p->i + 1, end, k;
	int r, c;

	for (;;) {
		if ((c = ch(p, i)) == -1)
			return (fail(p, "unterminated backquote"));
		if (c == '`')
			break;
		if (c == '\\') {
			if (i + 1 >= p->n)
				return (fail(p, "unterminated backquote"));
			i++;
		}
		i++;
	}
	end = i;
	jh_buf_init(&body);
	for (k = start + 1; k < end; k++) {
		c = (unsigned char)p->s[k];
		if (c == '\\' && k + 1 < end && (p->s[k + 1] == '$' ||
		    p->s[k + 1] == '`' || p->s[k + 1] == '\\' ||
		    (dq && p->s[k + 1] == '"')))
			c = (unsigned char)p->s[++k];
		jh_buf_addc(&body, (uint8_t)c);
	}
	if (body.oom || enter(p) == -1) {
		jh_buf_free(&body);
		return (body.oom ? fail(p, "out of memory") : -1);
	}
	ps_child(&q, p, (const char *)body.p, body.len,
	    p->cflags | JH_SHC_SUBST);
	if ((r = st_copy(p, &sub, st)) == 0) {
		r = list(&q, &sub, 0);
		if (r >= 0)
			r = hd_end(&q);
		st_free(&sub);
	}
	hd_clear(&q);
	jh_buf_free(&body);
	p->depth--;
	if (r == -1)
		return (-1);
	p->i = end + 1;
	raw(w, p, start, p->i);
	w->flags |= JH_SHW_EXPAND;
	return (0);
}

/* $( ... ): parsed in place, so its here-documents read this input. */
static int
scan_subst(struct ps *p, struct st *st, struct wsc *w, size_t start)
{
	struct st sub;
	size_t k;
	int saved = p->cflags, r;

	if (enter(p) == -1 || st_copy(p, &sub, st) == -1)
		return (-1);
	p->cflags |= JH_SHC_SUBST;
	p->lvl++;
	r = list(p, &sub, ')');
	for (k = 0; r >= 0 && k < p->nhd; k++)
		if (p->hd[k].lvl >= p->lvl)
			r = fail(p, "here-document without a body");
	p->lvl--;
	p->cflags = saved;
	p->depth--;
	st_free(&sub);
	if (r == -1)
		return (-1);
	p->i++;
	raw(w, p, start, p->i);
	w->flags |= JH_SHW_EXPAND;
	return (0);
}

/*
 * The inside of ${...}, $((...)) and $[...]: the value is unknown, but
 * command substitutions in it still run, so they are parsed and listed
 * (and process substitutions, which bash runs there too, refused).
 * A single quote inside "${...}" is literal in some bash versions and a
 * quote in others, so the end of the expansion is not provable: refused.
 */
static int
scan_inner(struct ps *p, struct st *st, int dq, int open, int close)
{
	struct wsc tmp;
	int c, nest = 0, r = 0;

	if (enter(p) == -1)
		return (-1);
	wsc_init(&tmp);
	for (;;) {
		p->i = cont(p, p->i);
		c = ch(p, p->i);
		if (c == -1) {
			r = fail(p, close == '}' ? "unterminated ${" :
			    "unterminated arithmetic expansion");
			break;
		}
		if (c == close && nest == 0) {
			if (close == ')') {
				if (nextc(p, p->i) != ')') {
					r = fail(p, "$(( without matching ))");
					break;
				}
				p->i = cont(p, p->i + 1);
			}
			p->i++;
			break;
		}
		/* bash runs ${x:->(cmd)} */
		if ((c == '<' || c == '>') && nextc(p, p->i) == '(') {
			r = fail(p, "process substitution is not supported");
			break;
		}
		if (c == open) {
			if (close == '}') {
				r = fail(p, "unsupported { inside ${...}");
				break;
			}
			nest++;
		} else if (c == close)
			nest--;
		if (c == '\\') {
			if (p->i + 1 >= p->n) {
				r = fail(p, "unterminated expansion");
				break;
			}
			p->i += 2;
		} else if (c == '\'') {
			if (dq || close != '}') {
				r = fail(p, "single quote inside an expansion "
				    "that cannot be proven");
				break;
			}
			r = scan_sq(p, &tmp);
		} else if (c == '"')
			r = scan_dq(p, st, &tmp);
		else if (c == '$')
			r = dollar(p, st, &tmp, dq || close != '}');
		else if (c == '`')
			r = scan_bq(p, st, &tmp, dq);
		else
			p->i++;
		if (r == -1)
			break;
	}
	jh_buf_free(&tmp.b);
	p->depth--;
	return (r);
}

/* At a $: every expansion makes the word JH_SHW_EXPAND. */
static int
dollar(struct ps *p, struct st *st, struct wsc *w, int dq)
{
	size_t start = p->i, j = cont(p, p->i + 1);
	int c = ch(p, j);

	if (!dq && (c == '\'' || c == '"')) {
		/*
		 * $'...' decoded; $"..." (locale translation) as "...".  dash
		 * reads both as $ and a quoted string, zsh the second.
		 */
		if (p->dialect == SH_POSIX || (c == '"' &&
		    p->dialect == SH_ZSH))
			return (fail(p, "$'...' or $\"...\" in an sh or zsh "
			    "-c body (they differ from bash)"));
		p->i = j;
		return (c == '\'' ? scan_ansi(p, w) : scan_dq(p, st, w));
	}
	if (c == '(' && nextc(p, j) == '(') {
		p->i = cont(p, j + 1) + 1;
		if (scan_inner(p, st, dq, '(', ')') == -1)
			return (-1);
	} else if (c == '(') {
		p->i = j + 1;
		return (scan_subst(p, st, w, start));
	} else if (c == '{' || c == '[') {
		p->i = j + 1;
		if (scan_inner(p, st, dq, c, c == '{' ? '}' : ']') == -1)
			return (-1);
	} else if (isname0(c)) {
		while (isnamec(ch(p, j)))
			j = cont(p, j + 1);
		p->i = j;
	} else if (c != -1 && (isdig(c) || strchr("@*#?-$!", c) != NULL))
		p->i = j + 1;
	else {
		/* a lone $ is literal */
		jh_buf_addc(&w->b, '$');
		p->i = start + 1;
		return (0);
	}
	raw(w, p, start, p->i);
	w->flags |= JH_SHW_EXPAND;
	return (0);
}

static int
scan_dq(struct ps *p, struct st *st, struct wsc *w)
{
	int c, d;

	w->quoted = 1;
	p->i++;
	for (;;) {
		c = ch(p, p->i);
		if (c == -1)
			return (fail(p, "unterminated double quote"));
		if (c == '"') {
			p->i++;
			return (0);
		}
		if (c == '\\') {
			d = ch(p, p->i + 1);
			if (d == '\n')
				p->i += 2;
			else if (d != -1 && strchr("$`\"\\", d) != NULL) {
				jh_buf_addc(&w->b, (uint8_t)d);
				p->i += 2;
			} else {
				jh_buf_addc(&w->b, '\\');
				p->i++;
			}
		} else if (c == '$') {
			if (dollar(p, st, w, 1) == -1)
				return (-1);
		} else if (c == '`') {
			if (scan_bq(p, st, w, 1) == -1)
				return (-1);
		} else {
			jh_buf_addc(&w->b, (uint8_t)c);
			p->i++;
		}
	}
}

/*
 * One word, up to an unquoted metacharacter.  Flags record what the
 * shell would still do to it: expansions, globs, braces, tildes (also
 * after = and :, as bash does for assignment-like words).
 */
static int
scan_word(struct ps *p, struct st *st, struct wsc *w)
{
	int c, prev = 0, r;

	for (;;) {
		p->i = cont(p, p->i);
		c = ch(p, p->i);
		if (meta(c))
			break;
		r = 0;
		switch (c) {
		case '\\':
			/* a backslash at the very end stays */
			if (p->i + 1 >= p->n) {
				jh_buf_addc(&w->b, '\\');
				p->i++;
			} else {
				jh_buf_addc(&w->b, (uint8_t)p->s[p->i + 1]);
				p->i += 2;
			}
			w->quoted = 1;
			break;
		case '\'':
			r = scan_sq(p, w);
			break;
		case '"':
			r = scan_dq(p, st, w);
			break;
		case '$':
			r = dollar(p, st, w, 0);
			break;
		case '`':
			r = scan_bq(p, st, w, 0);
			break;
		default:
			if (strchr("?*+@!", c) != NULL && nextc(p, p->i) == '(')
				return (fail(p, "extglob is not supported"));
			if (c == '*' || c == '?')
				w->flags |= JH_SHW_GLOB;
			else if (c == '[')
				w->brack = 1;
			else if (c == '~' && (prev == 0 || prev == '=' ||
			    prev == ':'))
				w->flags |= JH_SHW_TILDE;
			else if (c == '{' && w->brace == 0)
				w->brace = 1;
			else if (w->brace == 1 && (c == ',' ||
			    (c == '.' && prev == '.')))
				w->brace = 2;
			else if (c == '}' && w->brace == 2)
				w->flags |= JH_SHW_BRACE;
			jh_buf_addc(&w->b, (uint8_t)c);
			p->i++;
			prev = c;
			continue;
		}
		if (r == -1)
			return (-1);
		prev = -1;
	}
	if (w->brack && w->b.len > 0 && memchr(w->b.p, ']', w->b.len))
		w->flags |= JH_SHW_GLOB;
	if (w->b.oom)
		return (fail(p, "out of memory"));
	return (0);
}

/* Blanks, comments and, when nl, newlines (with here-document bodies). */
static int	newline(struct ps *);

static int
skip(struct ps *p, int nl)
{
	int c;

	for (;;) {
		p->i = cont(p, p->i);
		c = ch(p, p->i);
		if (c == ' ' || c == '\t')
			p->i++;
		else if (c == '#') {
			while (p->i < p->n && p->s[p->i] != '\n')
				p->i++;
		} else if (c == '\n' && nl) {
			if (newline(p) == -1)
				return (-1);
		} else
			return (0);
	}
}

/* Here-documents. */

static int
hd_body(struct ps *p, struct hdoc *h)
{
	struct jh_sh_redir *r;
	struct jh_buf b;
	size_t dl = strlen(h->delim), ls, le, t, k;
	const char *nl;

	jh_buf_init(&b);
	for (;;) {
		if (p->i >= p->n) {
			jh_buf_free(&b);
			return (jh_errf(p->e, "unterminated here-document "
			    "(%.64s)", h->delim));
		}
		ls = p->i;
		nl = memchr(p->s + ls, '\n', p->n - ls);
		le = nl != NULL ? (size_t)(nl - p->s) : p->n;
		p->i = nl != NULL ? le + 1 : p->n;
		for (t = ls; h->strip && t < le && p->s[t] == '\t'; t++)
			;
		if (le - t == dl && memcmp(p->s + t, h->delim, dl) == 0)
			break;
		if (!h->quoted) {
			/*
			 * An unquoted delimiter lets $ and ` expand in the
			 * body: refused.  A trailing backslash would join
			 * lines and move the delimiter: refused too.
			 */
			for (k = t; k < le; k++)
				if (p->s[k] == '$' || p->s[k] == '`')
					break;
			if (k < le || (le > t && p->s[le - 1] == '\\')) {
				jh_buf_free(&b);
				return (fail(p, "here-document body with "
				    "expansions (quote the delimiter)"));
			}
			for (k = t; k < le; k++) {
				if (p->s[k] == '\\' && k + 1 < le &&
				    p->s[k + 1] == '\\')
					k++;
				jh_buf_addc(&b, (uint8_t)p->s[k]);
			}
		} else
			jh_buf_add(&b, p->s + t, le - t);
		jh_buf_addc(&b, '\n');
	}
	if (jh_buf_cstr(&b) == NULL) {
		jh_buf_free(&b);
		return (fail(p, "out of memory"));
	}
	r = &p->out->cmd[h->cmd].redir[h->redir];
	free(r->target.s);
	r->target.s = (char *)b.p;
	r->target.len = b.len;
	r->target.flags = 0;
	return (0);
}

static int
newline(struct ps *p)
{
	size_t k;

	p->i++;
	for (k = 0; k < p->nhd; k++) {
		if (!p->hd[k].placed || p->hd[k].lvl != p->lvl)
			return (fail(p, "here-document body inside a command "
			    "substitution"));
		if (hd_body(p, &p->hd[k]) == -1)
			return (-1);
	}
	hd_clear(p);
	return (0);
}

static void
hd_place(struct ps *p, unsigned serial, size_t idx)
{
	size_t k;

	for (k = 0; k < p->nhd; k++)
		if (!p->hd[k].placed && p->hd[k].serial == serial) {
			p->hd[k].cmd = idx;
			p->hd[k].placed = 1;
		}
}

/* Redirections. */

struct cb {			/* a simple command being built */
	struct wv as, av;
	struct rv rd;
	unsigned serial;
};

static void
cb_free(struct cb *c)
{
	size_t i;

	words_free(c->as.v, c->as.n);
	words_free(c->av.v, c->av.n);
	for (i = 0; i < c->rd.n; i++)
		free(c->rd.v[i].target.s);
	free(c->rd.v);
	memset(c, 0, sizeof(*c));
}

/* 1: a redirection starts here; 2: a {var} redirection. */
static int
redir_start(const struct ps *p)
{
	size_t j = p->i;
	int c = ch(p, j);

	if (c == '<' || c == '>' || (c == '&' && nextc(p, j) == '>'))
		return (1);
	if (isdig(c)) {
		while (isdig(ch(p, j)))
			j = cont(p, j + 1);
		return (ch(p, j) == '<' || ch(p, j) == '>');
	}
	if (c == '{' && isname0(nextc(p, j))) {
		for (j = cont(p, j + 1); isnamec(ch(p, j)); j = cont(p, j + 1))
			;
		if (ch(p, j) == '}' && (nextc(p, j) == '<' ||
		    nextc(p, j) == '>'))
			return (2);
	}
	return (0);
}

static int
alldigits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdig((unsigned char)s[i]))
			return (0);
	return (n > 0);
}

enum { R_IN, R_OUT, R_RW, R_DUPIN, R_DUPOUT, R_BOTH, R_HDOC, R_HSTR };

static int
redir(struct ps *p, struct st *st, struct cb *cb)
{
	struct jh_sh_redir r;
	struct wsc w;
	struct hdoc *h;
	size_t start, k;
	long fd = -1;
	int c, op, strip = 0;

	if (redir_start(p) == 2)
		return (fail(p, "{var} redirections are not supported"));
	if (isdig(ch(p, p->i)))
		for (fd = 0; isdig(ch(p, p->i)); p->i = cont(p, p->i + 1))
			if ((fd = fd * 10 + (ch(p, p->i) - '0')) > 65535)
				return (fail(p, "fd out of range"));
	c = ch(p, p->i);
	p->i = cont(p, p->i + 1);
	if (c == '&') {			/* &> &>> */
		if (ch(p, p->i) == '>' && nextc(p, p->i) == '>')
			p->i = cont(p, p->i + 1);
		p->i = cont(p, p->i + 1);
		op = R_BOTH;
	} else if (c == '<') {
		c = ch(p, p->i);
		op = R_IN;
		if (c == '<') {
			p->i = cont(p, p->i + 1);
			op = R_HDOC;
			if (ch(p, p->i) == '<')
				op = R_HSTR;
			else if (ch(p, p->i) == '-')
				strip = 1;
			if (op == R_HSTR || strip)
				p->i = cont(p, p->i + 1);
		} else if (c == '&' || c == '>') {
			op = c == '&' ? R_DUPIN : R_RW;
			p->i = cont(p, p->i + 1);
		} else if (c == '(')
			return (fail(p, "process substitution is not "
			    "supported"));
	} else {
		c = ch(p, p->i);
		op = R_OUT;
		if (c == '>' || c == '|' || c == '&') {
			if (c == '&')
				op = R_DUPOUT;
			p->i = cont(p, p->i + 1);
		} else if (c == '(')
			return (fail(p, "process substitution is not "
			    "supported"));
	}
	if (skip(p, 0) == -1)
		return (-1);
	/* in `<2>x' bash reads 2> as an operator, not as the target */
	if (meta(ch(p, p->i)) || redir_start(p))
		return (fail(p, "redirection without a target"));
	start = p->i;
	wsc_init(&w);
	if (scan_word(p, st, &w) == -1) {
		jh_buf_free(&w.b);
		return (-1);
	}
	memset(&r, 0, sizeof(r));
	r.fd = (int)fd;
	if (op == R_HDOC) {
		for (k = start; k < p->i; k++)
			if (p->s[k] == '$' || p->s[k] == '`') {
				jh_buf_free(&w.b);
				return (fail(p, "here-document delimiter with "
				    "$ or `"));
			}
		if (p->nhd == SH_MAX_HDOC) {
			jh_buf_free(&w.b);
			return (fail(p, "too many here-documents"));
		}
		if (jh_buf_cstr(&w.b) == NULL ||
		    word_set(p, &r.target, "", 0, 0) == -1) {
			jh_buf_free(&w.b);
			return (fail(p, "out of memory"));
		}
		h = &p->hd[p->nhd++];
		memset(h, 0, sizeof(*h));
		h->delim = (char *)w.b.p;
		h->quoted = w.quoted;
		h->strip = strip;
		h->lvl = p->lvl;
		h->serial = cb->serial;
		h->redir = cb->rd.n;
		r.kind = JH_SHR_HEREDOC;
		if (r.fd == -1)
			r.fd = 0;
		return (rv_push(p, &cb->rd, &r));
	}
	if (word_take(p, &r.target, &w) == -1) {
		jh_buf_free(&w.b);
		return (-1);
	}
	switch (op) {
	case R_IN:
		r.kind = JH_SHR_READ;
		break;
	case R_OUT:
		r.kind = JH_SHR_WRITE;
		break;
	case R_RW:			/* <> creates the file */
		r.kind = JH_SHR_WRITE;
		break;
	case R_BOTH:			/* both 1 and 2: fd -1 */
		r.kind = JH_SHR_WRITE;
		fd = -2;
		break;
	case R_HSTR:
		r.kind = JH_SHR_HEREDOC;
		break;
	default:			/* <& >& */
		k = r.target.len;
		if (r.target.flags != 0)
			/* >&$x may name a file: the target is not literal */
			r.kind = op == R_DUPIN ? JH_SHR_READ : JH_SHR_WRITE;
		else if (strcmp(r.target.s, "-") == 0 ||
		    alldigits(r.target.s, k) || (k > 1 &&
		    r.target.s[k - 1] == '-' && alldigits(r.target.s, k - 1)))
			r.kind = JH_SHR_DUP;
		else if (op == R_DUPOUT && fd == -1) {
			/* >& word is &> word */
			r.kind = JH_SHR_WRITE;
			fd = -2;
		} else {
			free(r.target.s);
			return (fail(p, "ambiguous redirect"));
		}
		break;
	}
	if (fd == -2)
		r.fd = -1;
	else if (r.fd == -1)
		r.fd = op == R_IN || op == R_RW || op == R_DUPIN ||
		    op == R_HSTR ? 0 : 1;
	return (rv_push(p, &cb->rd, &r));
}

/* cd tracking. */

static int
cd_set(struct ps *p, struct st *st, const char *d)
{
	size_t a, b;
	char *n;

	if (d[0] == '/' || st->cwd == NULL) {
		n = strdup(d);
	} else {
		a = strlen(st->cwd);
		b = strlen(d);
		if ((n = malloc(a + b + 2)) != NULL) {
			memcpy(n, st->cwd, a);
			if (a == 0 || st->cwd[a - 1] != '/')
				n[a++] = '/';
			memcpy(n + a, d, b + 1);
		}
	}
	if (n == NULL)
		return (fail(p, "out of memory"));
	free(st->cwd);
	st->cwd = n;
	if (d[0] == '/')
		st->unknown = 0;
	return (0);
}

/* CDPATH is not searched for /x, ., .., ./x and ../x. */
static int
nocdpath(const char *d)
{
	return (d[0] == '/' || strcmp(d, ".") == 0 || strcmp(d, "..") == 0 ||
	    strncmp(d, "./", 2) == 0 || strncmp(d, "../", 3) == 0);
}

/*
 * A cd, pushd or popd run by this shell.  Only `cd [-L|-P] [--] DIR'
 * with one literal DIR is followed; a relative DIR that does not start
 * with . may be looked up in CDPATH, which an earlier command may have
 * set.
 */
static int
cd_update(struct ps *p, struct st *st, const struct jh_sh_cmd *c)
{
	const char *name = c->argv[0].s, *d;
	size_t k = 1;

	st->changed++;
	if (strcmp(name, "cd") == 0) {
		for (; k < c->argc && c->argv[k].s[0] == '-' &&
		    c->argv[k].s[1] != '\0'; k++) {
			if (strcmp(c->argv[k].s, "--") == 0) {
				k++;
				break;
			}
			if (strspn(c->argv[k].s + 1, "LPe") !=
			    strlen(c->argv[k].s + 1))
				break;
		}
	} else if (strcmp(name, "pushd") == 0) {
		if (k < c->argc && strcmp(c->argv[k].s, "--") == 0)
			k++;
	} else
		k = c->argc;
	if (c->nassign > 0 || k + 1 != c->argc) {
		st->unknown = 1;
		return (0);
	}
	d = c->argv[k].s;
	if (c->argv[k].flags != 0 || d[0] == '\0' || d[0] == '-' ||
	    (d[0] == '+' && strcmp(name, "pushd") == 0) ||
	    (st->vars && !nocdpath(d))) {
		st->unknown = 1;
		return (0);
	}
	return (cd_set(p, st, d));
}

/* Wrappers. */

#define W_ENV		0x01	/* env: NAME=value operands, -C DIR */
#define W_INSHELL	0x02	/* the command runs in this shell */
#define W_EXEC		0x04	/* exec: a command must follow */
#define W_NUM		0x08	/* nice -N */
#define W_XARGS		0x10
#define W_ASSIGN	0x20	/* time: NAME=value words are assignments */

struct wrap {
	const char *name;
	const char *flags;	/* short options without an argument */
	const char *args;	/* short options with one */
	const char *opt;	/* with an optional, attached one */
	const char *const *longs;	/* "name", "name=" or "name?" */
	int npos;		/* operands before the command */
	int kind;
};

static const char *const l_none[] = { NULL };
static const char *const l_env[] = { "ignore-environment", "null",
	"unset=", "chdir=", "debug", NULL };
static const char *const l_nice[] = { "adjustment=", NULL };
static const char *const l_timeout[] = { "preserve-status",
	"foreground", "verbose", "kill-after=", "signal=", NULL };
static const char *const l_stdbuf[] = { "input=", "output=", "error=",
	NULL };
static const char *const l_setsid[] = { "ctty", "fork", "wait", NULL };
static const char *const l_ionice[] = { "class=", "classdata=", "ignore",
	NULL };
static const char *const l_chrt[] = { "batch", "deadline", "fifo", "idle",
	"other", "rr", "reset-on-fork", "verbose", "sched-runtime=",
	"sched-period=", "sched-deadline=", NULL };
static const char *const l_xargs[] = { "null", "no-run-if-empty",
	"verbose", "interactive", "exit", "open-tty", "arg-file=",
	"delimiter=", "max-args=", "max-procs=", "max-chars=", "max-lines?",
	"eof?", "replace?", "process-slot-var=", NULL };

static const struct wrap wraps[] = {
	{ "builtin", "", "", "", l_none, 0, W_INSHELL },
	{ "chrt", "bdfiorRv", "TPD", "", l_chrt, 1, 0 },
	{ "command", "pvV", "", "", l_none, 0, W_INSHELL },
	{ "env", "i0v", "uC", "", l_env, 0, W_ENV },
	{ "exec", "cl", "a", "", l_none, 0, W_EXEC },
	{ "ionice", "t", "cn", "", l_ionice, 0, 0 },
	{ "nice", "", "n", "", l_nice, 0, W_NUM },
	{ "nohup", "", "", "", l_none, 0, 0 },
	{ "setsid", "cfw", "", "", l_setsid, 0, 0 },
	{ "stdbuf", "", "ioe", "", l_stdbuf, 0, 0 },
	{ "time", "p", "", "", l_none, 0, W_INSHELL | W_ASSIGN },
	{ "timeout", "v", "ks", "", l_timeout, 1, 0 },
	{ "xargs", "0oprtx", "adEILnPs", "eil", l_xargs, 0, W_XARGS },
};

/* A command another one runs: argv[a..b), env's NAME=value argv[ea..eb). */
struct inner {
	size_t a, b, ea, eb;
	int flags;		/* JH_SHC_* added */
	int inshell;
	int cwdunk;		/* find -execdir: the found file's directory */
	const char *chdir;	/* env -C */
	const char *repl;
	int echo;		/* xargs without a command runs echo */
};

static const char *
long_opt(const char *const *l, const char *s, int *next)
{
	size_t n;

	for (*next = 0; *l != NULL; l++) {
		n = strlen(*l);
		if ((*l)[n - 1] != '=' && (*l)[n - 1] != '?') {
			if (strcmp(s, *l) == 0)
				return (s + n);
			continue;
		}
		if (strncmp(s, *l, n - 1) != 0)
			continue;
		if (s[n - 1] == '=')
			return (s + n);
		if (s[n - 1] == '\0') {
			*next = (*l)[n - 1] == '=';
			return (s + n - 1);
		}
	}
	return (NULL);
}

/*
 * Walks a wrapper's options and operands; in->a is where the command
 * starts (argc when there is none).  Every word a wrapper reads before
 * its command must be literal: `env -u $x ls' could split into a whole
 * other command.  An option this table does not know is refused.
 */
static int
wrap_opts(struct ps *p, const struct wrap *w, const struct jh_sh_cmd *c,
    struct inner *in, int *lookup)
{
	const char *s, *q, *v;
	size_t k, j;
	int next, opt;

	for (k = 1; k < c->argc; k++) {
		s = c->argv[k].s;
		if (c->argv[k].flags != 0)
			break;
		if (strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (strcmp(s, "-") == 0 && (w->kind & W_ENV))
			continue;
		if (s[0] != '-' || s[1] == '\0')
			break;
		v = NULL;
		opt = 0;
		if (s[1] == '-') {
			if ((v = long_opt(w->longs, s + 2, &next)) == NULL)
				goto bad;
			opt = s[2];
			if (next) {
				if (++k == c->argc || c->argv[k].flags != 0)
					goto bad;
				v = c->argv[k].s;
			}
		} else if ((w->kind & W_NUM) && alldigits(s + 1,
		    strlen(s + 1)))
			continue;
		else
			for (q = s + 1; *q != '\0'; q++) {
				opt = *q;
				if (strchr(w->flags, *q) != NULL) {
					if ((*q == 'v' || *q == 'V') &&
					    strcmp(w->name, "command") == 0)
						*lookup = 1;
					continue;
				}
				if (strchr(w->opt, *q) != NULL) {
					v = q + 1;
					break;
				}
				if (strchr(w->args, *q) == NULL)
					goto bad;
				if (q[1] != '\0')
					v = q + 1;
				else if (++k == c->argc ||
				    c->argv[k].flags != 0)
					goto bad;
				else
					v = c->argv[k].s;
				break;
			}
		if ((w->kind & W_ENV) && (opt == 'C' || opt == 'c'))
			in->chdir = v;
		if ((w->kind & W_XARGS) && (opt == 'I' || opt == 'i' ||
		    opt == 'r') && v != NULL && (opt != 'r' || s[1] == '-'))
			in->repl = *v != '\0' ? v : "{}";
	}
	for (j = 0; j < (size_t)w->npos && k < c->argc; j++, k++)
		if (c->argv[k].flags != 0)
			goto bad;
	in->ea = in->eb = k;
	/*
	 * env takes every word with an = as an assignment, names a shell
	 * would refuse (BASH_FUNC_f%%=...) included.
	 */
	for (; (w->kind & W_ENV) && k < c->argc &&
	    strchr(c->argv[k].s, '=') != NULL; k++)
		if (c->argv[k].flags != 0)
			return (fail(p, "non-literal env assignment"));
	/* `time A=1 cmd' is a simple command with an assignment */
	while ((w->kind & W_ASSIGN) && k < c->argc &&
	    isname0((unsigned char)c->argv[k].s[0])) {
		for (q = c->argv[k].s; isnamec((unsigned char)*q); q++)
			;
		if (q[0] != '=' && (q[0] != '+' || q[1] != '='))
			break;
		k++;
	}
	in->eb = k;
	in->a = k;
	in->b = c->argc;
	return (0);
bad:
	return (jh_errf(p->e, "unfamiliar %s option or argument: %.64s",
	    w->name, c->argv[k < c->argc ? k : c->argc - 1].s));
}

/* find -exec/-execdir/-ok/-okdir CMD ... ; or CMD ... {} + */
static int
find_execs(struct ps *p, const struct jh_sh_cmd *c, struct inner *in,
    size_t *nin)
{
	const char *s;
	size_t k, j, l;
	int plus;

	for (k = 1; k < c->argc; k++) {
		s = c->argv[k].s;
		if (c->argv[k].flags != 0 || (strcmp(s, "-exec") != 0 &&
		    strcmp(s, "-execdir") != 0 && strcmp(s, "-ok") != 0 &&
		    strcmp(s, "-okdir") != 0))
			continue;
		for (j = k + 1, plus = 0; j < c->argc; j++) {
			if (c->argv[j].flags != 0)
				continue;
			if (strcmp(c->argv[j].s, ";") == 0)
				break;
			if (strcmp(c->argv[j].s, "+") == 0 && j > k + 1 &&
			    strcmp(c->argv[j - 1].s, "{}") == 0) {
				plus = 1;
				break;
			}
		}
		if (j == c->argc)
			return (fail(p, "find -exec without ; or {} +"));
		if (j == k + 1)
			return (fail(p, "find -exec without a command"));
		if (*nin == SH_MAX_EXEC)
			return (fail(p, "too many find -exec actions"));
		memset(&in[*nin], 0, sizeof(in[*nin]));
		in[*nin].a = k + 1;
		in[*nin].b = j;
		in[*nin].ea = in[*nin].eb = k + 1;
		in[*nin].repl = "{}";
		in[*nin].cwdunk = strstr(s, "dir") != NULL;
		for (l = k + 1; l < j; l++)
			if (strstr(c->argv[l].s, "{}") != NULL)
				plus = 1;
		if (plus)
			in[*nin].flags = JH_SHC_OPENARGS;
		(*nin)++;
		k = j;
	}
	return (0);
}

static int
copy_words(struct ps *p, struct jh_sh_word *d, const struct jh_sh_word *s,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (word_set(p, &d[i], s[i].s, s[i].len, s[i].flags) == -1)
			return (-1);
	return (0);
}

/* The inner command: the wrapper's environment plus env's assignments. */
static int
make_inner(struct ps *p, struct jh_sh_cmd *ic, const struct jh_sh_cmd *c,
    const struct inner *in)
{
	size_t na = c->nassign + (in->eb - in->ea);
	size_t nv = in->echo ? 1 : in->b - in->a;

	memset(ic, 0, sizeof(*ic));
	if ((na > 0 && (ic->assign = calloc(na, sizeof(*ic->assign))) ==
	    NULL) || (ic->argv = calloc(nv, sizeof(*ic->argv))) == NULL) {
		free(ic->assign);
		ic->assign = NULL;
		return (fail(p, "out of memory"));
	}
	ic->nassign = na;
	ic->argc = nv;
	if ((na > 0 && (copy_words(p, ic->assign, c->assign, c->nassign) ==
	    -1 || copy_words(p, ic->assign + c->nassign, c->argv + in->ea,
	    in->eb - in->ea) == -1)) || (in->echo ? word_set(p, ic->argv,
	    "echo", 4, 0) : copy_words(p, ic->argv, c->argv + in->a,
	    nv)) == -1) {
		cmd_free(ic);
		return (-1);
	}
	return (0);
}

/* Shells whose -c body is parsed in place of the shell. */
static const char *const shells[] = { "sh", "bash", "dash", "zsh",
	"/bin/sh", "/bin/bash", "/bin/dash", "/bin/zsh", "/usr/bin/sh",
	"/usr/bin/bash", "/usr/bin/dash", "/usr/bin/zsh", NULL };

/*
 * Finds the body of `sh -c BODY'.  0 in *bi: no -c (a script file or
 * stdin: listed as a plain command).  With -c, only options that do not
 * change how the body parses or what it runs are accepted (-i reads rc
 * files, -k moves arguments into the environment, -O may turn on
 * extglob, -H history expansion).
 */
static int
shell_body(struct ps *p, const struct jh_sh_cmd *c, size_t *bi)
{
	static const char *const oset[] = { "pipefail", "errexit", "nounset",
		"xtrace", "noglob", "noclobber", "verbose", NULL };
	const char *s;
	size_t k;
	int cflag = 0;

	*bi = 0;
	for (k = 1; k < c->argc; k++) {
		s = c->argv[k].s;
		if (c->argv[k].flags != 0 || (s[0] != '-' && s[0] != '+') ||
		    strcmp(s, "-") == 0 || strcmp(s, "--") == 0)
			break;
		if (s[0] == '-' && s[1] != '-' && strchr(s, 'c') != NULL)
			cflag = 1;
		if (s[1] != '-' && strchr(s, 'o') != NULL)
			k++;
	}
	if (!cflag)
		return (0);
	for (k = 1; k < c->argc; k++) {
		s = c->argv[k].s;
		if (strcmp(s, "-") == 0 || strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (s[0] == '+')
			return (fail(p, "unfamiliar shell option"));
		if (s[0] != '-' || c->argv[k].flags != 0)
			break;
		if (strcmp(s, "--norc") == 0 || strcmp(s, "--noprofile") == 0)
			continue;
		if (s[1] == '-' || strspn(s + 1, "abcefhlmnouvxBCEPT") !=
		    strlen(s + 1))
			return (jh_errf(p->e, "unfamiliar shell option: %.64s",
			    s));
		if (strchr(s, 'o') != NULL && (++k == c->argc ||
		    c->argv[k].flags != 0 || !inlist(c->argv[k].s, oset)))
			return (fail(p, "unfamiliar shell -o option"));
	}
	if (k >= c->argc)
		return (fail(p, "sh -c without a command string"));
	*bi = k;
	return (0);
}

/* Prepends copies of env to the commands listed from m on. */
static int
prepend_env(struct ps *p, size_t m, const struct jh_sh_word *env, size_t ne)
{
	struct jh_sh_cmd *c;
	struct jh_sh_word *v;

	for (; ne > 0 && m < p->out->n; m++) {
		c = &p->out->cmd[m];
		if ((v = calloc(ne + c->nassign, sizeof(*v))) == NULL)
			return (fail(p, "out of memory"));
		if (copy_words(p, v, env, ne) == -1) {
			words_free(v, ne);
			return (-1);
		}
		if (c->nassign > 0)
			memcpy(v + ne, c->assign, c->nassign * sizeof(*v));
		free(c->assign);
		c->assign = v;
		c->nassign += ne;
	}
	return (0);
}

static int
set_cwd(struct ps *p, struct jh_sh_cmd *c, const struct st *st, int cflags)
{
	c->flags = cflags | (st->unknown ? JH_SHC_CWD_UNKNOWN : 0);
	if (st->cwd != NULL && (c->cwd = strdup(st->cwd)) == NULL)
		return (fail(p, "out of memory"));
	return (0);
}

/*
 * `sh -c BODY': the body's commands are listed instead of the shell, in
 * a shell of their own (a cd in it stays there).  The shell's
 * assignments (LD_PRELOAD, BASH_ENV) are put in front of every one of
 * them, and with its redirections they are also listed as a command with
 * no words, so that an empty body still shows them.
 */
static int
run_shell(struct ps *p, struct st *st, struct jh_sh_cmd *c, size_t bi,
    const struct ectx *x)
{
	const struct jh_sh_word *body = &c->argv[bi];
	const char *s;
	struct jh_sh_cmd pc;
	struct ps q;
	struct st sub;
	size_t idx, m;
	int r;

	if (body->flags != 0)
		r = fail(p, "sh -c body is not a literal word");
	else if (x->repl != NULL && strstr(body->s, x->repl) != NULL)
		r = fail(p, "sh -c body is filled in at run time");
	else
		r = enter(p);
	if (r == -1) {
		cmd_free(c);
		return (-1);
	}
	if (c->nassign > 0 || c->nredir > 0) {
		memset(&pc, 0, sizeof(pc));
		pc.redir = c->redir;
		pc.nredir = c->nredir;
		c->redir = NULL;
		c->nredir = 0;
		if (c->nassign > 0 && (pc.assign = calloc(c->nassign,
		    sizeof(*pc.assign))) == NULL)
			r = fail(p, "out of memory");
		else {
			pc.nassign = c->nassign;
			r = copy_words(p, pc.assign, c->assign, c->nassign);
		}
		if (r == 0)
			r = set_cwd(p, &pc, st, x->cflags);
		if (r == 0)
			r = push_cmd(p, &pc, &idx);
		else
			cmd_free(&pc);
		if (r == -1) {
			cmd_free(c);
			p->depth--;
			return (-1);
		}
		hd_place(p, x->serial, idx);
	}
	ps_child(&q, p, body->s, body->len, x->cflags);
	s = strrchr(c->argv[0].s, '/');
	s = s != NULL ? s + 1 : c->argv[0].s;
	q.dialect = strcmp(s, "bash") == 0 ? SH_BASH : strcmp(s, "zsh") == 0 ?
	    SH_ZSH : SH_POSIX;
	m = p->out->n;
	if ((r = st_copy(p, &sub, st)) == 0) {
		/* its environment may hold CDPATH */
		sub.vars |= c->nassign > 0;
		r = list(&q, &sub, 0);
		if (r >= 0)
			r = hd_end(&q);
		st_free(&sub);
	}
	hd_clear(&q);
	if (r == 0)
		r = prepend_env(p, m, c->assign, c->nassign);
	cmd_free(c);
	p->depth--;
	return (r);
}

/* Builtins that run strings as code: fc re-runs history, compgen -W
 * expands a word list, -C and -F run commands. */
static const char *const refused[] = { "eval", "source", ".", "alias",
	"coproc", "function", "fc", "compgen", NULL };
/* ... and options of others that do: jobs -x CMD, mapfile -C CODE,
 * enable -f FILE (loads a shared object). */
static const char *const setopts[] = { "keyword", "histexpand", "history",
	NULL };
static const char *const codeopt[] = { "jobs", "x", "mapfile", "C",
	"readarray", "C", "enable", "f", NULL };
static const char *const reserved[] = { "if", "then", "elif", "else",
	"fi", "for", "while", "until", "do", "done", "case", "esac",
	"select", "[[", "]]", "{", "}", "!", NULL };
/* Builtins that evaluate array subscripts in their arguments. */
static const char *const subscript[] = { "let", "declare", "typeset",
	"local", "export", "readonly", "unset", "read", "printf", "test",
	"[", "mapfile", "readarray", "getopts", "wait", NULL };
/* Builtins that may set a variable such as CDPATH. */
static const char *const setters[] = { "export", "declare", "typeset",
	"local", "readonly", "read", "printf", "mapfile", "readarray",
	"getopts", "let", "unset", "wait", NULL };

/*
 * A literal assignment value that bash may still run as code: a
 * subscript with $ or ` in an arithmetic variable (`RANDOM='a[$(cmd)]''
 * runs cmd), or $( ) and ` kept for PS4, ${x@P} or eval-like use.
 */
static int
check_assign(struct ps *p, const struct jh_sh_cmd *c)
{
	const char *s;
	size_t k;

	for (k = 0; k < c->nassign; k++) {
		s = c->assign[k].s;
		if (c->assign[k].flags == 0 && (strstr(s, "$(") != NULL ||
		    strchr(s, '`') != NULL || (strchr(s, '[') != NULL &&
		    strchr(s, '$') != NULL)))
			return (fail(p, "assignment value that bash may run "
			    "as code"));
	}
	return (0);
}

/*
 * Checks that hold for any simple command, wrapped or not.
 */
static int
check_cmd(struct ps *p, const struct jh_sh_cmd *c, const struct ectx *x)
{
	const char *name = c->argv[0].s, *s;
	size_t k, j;

	if (strcmp(name, "function") == 0)
		return (fail(p, "function definitions are not supported"));
	if (inlist(name, refused))
		return (jh_errf(p->e, "%s is not supported", name));
	if (inlist(name, reserved))
		return (jh_errf(p->e, "compound command not supported (%s)",
		    name));
	if (x->repl != NULL && strstr(name, x->repl) != NULL)
		return (fail(p, "the command word is filled in at run time"));
	for (k = 0; codeopt[k] != NULL; k += 2)
		for (j = 1; j < c->argc && strcmp(name, codeopt[k]) == 0; j++)
			if (c->argv[j].s[0] == '-' && strpbrk(c->argv[j].s,
			    codeopt[k + 1]) != NULL)
				return (jh_errf(p->e, "%s -%s runs code",
				    name, codeopt[k + 1]));
	/* trap ACTION SIG: only -, '' (reset, ignore) and listing */
	if (strcmp(name, "trap") == 0 && c->argc > 1 &&
	    c->argv[1].s[0] != '-' && c->argv[1].s[0] != '\0')
		return (fail(p, "trap with an action is not supported"));
	if (strcmp(name, "trap") == 0 && c->argc > 2 &&
	    strcmp(c->argv[1].s, "--") == 0)
		return (fail(p, "trap with an action is not supported"));
	for (k = 1; k < c->argc && inlist(name, subscript); k++) {
		s = c->argv[k].s;
		/* `[ -v 'a[$(cmd)]' ]' runs cmd */
		if (strchr(s, '[') != NULL && (strchr(s, '$') != NULL ||
		    strchr(s, '`') != NULL))
			return (jh_errf(p->e, "array subscript with $ or ` in "
			    "an argument of %s", name));
	}
	/*
	 * set -k moves later NAME=value arguments into the environment;
	 * set -H (with history) makes later lines' !! run other commands.
	 */
	for (k = 1; k < c->argc && strcmp(name, "set") == 0; k++) {
		s = c->argv[k].s;
		if ((s[0] == '-' && s[1] != '-' && strpbrk(s, "kH") != NULL) ||
		    (inlist(s, setopts) && strcmp(c->argv[k - 1].s, "-o") == 0))
			return (jh_errf(p->e, "set %s%s is not supported",
			    s[0] == '-' ? "" : "-o ", s));
	}
	return (0);
}

/*
 * Lists one simple command, taking c, and then what it runs when it is
 * a wrapper: the wrapper must be granted, and so must its command.
 */
static int
emit(struct ps *p, struct st *st, struct jh_sh_cmd *c, const struct ectx *x)
{
	struct inner in[SH_MAX_EXEC];
	struct jh_sh_cmd ic[SH_MAX_EXEC];
	const struct wrap *w = NULL;
	struct ectx ix;
	struct st sub;
	size_t nin = 0, bi, idx, k, j;
	int lookup = 0, r = 0, cd = 0;

	memset(ic, 0, sizeof(ic));
	if (check_assign(p, c) == -1)
		goto err;
	if (c->argc > 0 && c->argv[0].flags == 0) {
		const char *name = c->argv[0].s;

		if (check_cmd(p, c, x) == -1)
			goto err;
		if (inlist(name, shells)) {
			if (shell_body(p, c, &bi) == -1)
				goto err;
			if (bi > 0)
				return (run_shell(p, st, c, bi, x));
		}
		for (k = 0; k < sizeof(wraps) / sizeof(wraps[0]); k++)
			if (strcmp(name, wraps[k].name) == 0)
				w = &wraps[k];
		if (w != NULL) {
			memset(&in[0], 0, sizeof(in[0]));
			if (wrap_opts(p, w, c, &in[0], &lookup) == -1)
				goto err;
			/* dash has no builtin, and its time is a program */
			in[0].inshell = (w->kind & W_INSHELL) != 0 &&
			    (p->dialect != SH_POSIX ||
			    strcmp(name, "command") == 0);
			if (w->kind & W_XARGS) {
				in[0].flags = JH_SHC_OPENARGS;
				in[0].echo = in[0].a == c->argc;
			}
			nin = in[0].a < c->argc || in[0].echo ? 1 : 0;
			if (lookup)
				nin = 0;
			if (nin == 0 && (w->kind & W_EXEC))
				goto noexec;
			/* the run-time arguments would become the command */
			if (nin == 0 && !lookup && (x->cflags &
			    JH_SHC_OPENARGS)) {
				r = fail(p, "run-time arguments to a wrapper");
				goto err;
			}
		} else if (strcmp(name, "find") == 0) {
			if (x->cflags & JH_SHC_OPENARGS) {
				r = fail(p, "run-time arguments to find");
				goto err;
			}
			if (find_execs(p, c, in, &nin) == -1)
				goto err;
		}
		cd = x->inshell && (strcmp(name, "cd") == 0 ||
		    strcmp(name, "pushd") == 0 || strcmp(name, "popd") == 0);
		for (j = 0; x->repl != NULL && j < nin; j++)
			for (k = 1; k < in[j].a; k++)
				if (strstr(c->argv[k].s, x->repl) != NULL) {
					r = fail(p, "a wrapper argument is "
					    "filled in at run time");
					goto err;
				}
	}
	for (j = 0; j < nin; j++)
		if (make_inner(p, &ic[j], c, &in[j]) == -1)
			goto err;
	if (c->argc == 0 ? c->nassign > 0 : inlist(c->argv[0].s, setters))
		st->vars = 1;
	for (k = 0; k < c->argc; k++)
		if (c->argv[k].flags & JH_SHW_EXPAND)
			st->vars = 1;	/* ${CDPATH:=...} */
	if (set_cwd(p, c, st, x->cflags) == -1)
		goto err;
	if (push_cmd(p, c, &idx) == -1)
		goto err;
	hd_place(p, x->serial, idx);
	if (cd && cd_update(p, st, &p->out->cmd[idx]) == -1)
		goto err;
	if (nin > 0 && enter(p) == -1)
		goto err;
	for (j = 0; j < nin; j++) {
		ix = *x;
		ix.cflags |= JH_SHC_WRAPPED | in[j].flags;
		ix.inshell = x->inshell && in[j].inshell;
		ix.serial = 0;
		if (in[j].repl != NULL)
			ix.repl = in[j].repl;
		if (ix.inshell) {
			if ((r = emit(p, st, &ic[j], &ix)) == -1)
				break;
			continue;
		}
		/* an external wrapper: a cd under it changes nothing here */
		if (st_copy(p, &sub, st) == -1) {
			cmd_free(&ic[j]);
			r = -1;
			break;
		}
		if (in[j].cwdunk || (in[j].chdir != NULL &&
		    *in[j].chdir == '\0'))
			sub.unknown = 1;
		else if (in[j].chdir != NULL &&
		    cd_set(p, &sub, in[j].chdir) == -1) {
			st_free(&sub);
			cmd_free(&ic[j]);
			r = -1;
			break;
		}
		r = emit(p, &sub, &ic[j], &ix);
		st_free(&sub);
		if (r == -1)
			break;
	}
	/* emit() took ic[j] whether or not it failed */
	for (j++; r == -1 && j < nin; j++)
		cmd_free(&ic[j]);
	if (nin > 0)
		p->depth--;
	return (r);
noexec:
	r = fail(p, "exec without a command is not supported");
err:
	for (j = 0; j < SH_MAX_EXEC; j++)
		cmd_free(&ic[j]);
	cmd_free(c);
	return (-1);
}

/* Hands a built simple command to emit(). */
static int
emit_cb(struct ps *p, struct st *st, struct cb *cb)
{
	struct jh_sh_cmd c;
	struct ectx x;

	memset(&c, 0, sizeof(c));
	c.assign = cb->as.v;
	c.nassign = cb->as.n;
	c.argv = cb->av.v;
	c.argc = cb->av.n;
	c.redir = cb->rd.v;
	c.nredir = cb->rd.n;
	memset(&x, 0, sizeof(x));
	x.cflags = p->cflags;
	x.inshell = 1;
	x.serial = cb->serial;
	memset(cb, 0, sizeof(*cb));
	return (emit(p, st, &c, &x));
}

/* Commands and lists. */

/*
 * 1 when a NAME= or NAME+= assignment starts here, 2 for NAME[ and
 * NAME=( (arrays: refused).  A subscript may hold blanks and $(...), so
 * where NAME[...]= ends is not for this parser to guess.
 */
static int
is_assign(const struct ps *p)
{
	size_t j = p->i;

	if (!isname0(ch(p, j)))
		return (0);
	while (isnamec(ch(p, j)))
		j = cont(p, j + 1);
	if (ch(p, j) == '[')
		return (2);
	if (ch(p, j) == '+')
		j = cont(p, j + 1);
	if (ch(p, j) != '=')
		return (0);
	return (nextc(p, j) == '(' ? 2 : 1);
}

static int
simple(struct ps *p, struct st *st, int *empty)
{
	struct cb cb;
	struct wsc w;
	struct jh_sh_word word;
	int c, a;

	memset(&cb, 0, sizeof(cb));
	cb.serial = ++p->serial;
	for (;;) {
		if (skip(p, 0) == -1)
			goto err;
		c = ch(p, p->i);
		if (c == -1 || c == '\n' || c == ';' || c == '|' || c == ')' ||
		    (c == '&' && nextc(p, p->i) != '>'))
			break;
		if (c == '(') {
			fail(p, cb.av.n > 0 ? "function definitions are not "
			    "supported" : "unexpected (");
			goto err;
		}
		if (redir_start(p)) {
			if (redir(p, st, &cb) == -1)
				goto err;
			continue;
		}
		a = cb.av.n == 0 ? is_assign(p) : 0;
		if (a == 2) {
			fail(p, "array assignments are not supported");
			goto err;
		}
		wsc_init(&w);
		if (scan_word(p, st, &w) == -1 ||
		    word_take(p, &word, &w) == -1) {
			jh_buf_free(&w.b);
			goto err;
		}
		if (ch(p, p->i) == '(') {
			free(word.s);
			fail(p, "function definitions are not supported");
			goto err;
		}
		if (cb.av.n == 0 && !w.quoted && word.flags == 0 &&
		    (strcmp(word.s, "{") == 0 || strcmp(word.s, "}") == 0)) {
			free(word.s);
			fail(p, "unbalanced { or }");
			goto err;
		}
		if (wv_push(p, a ? &cb.as : &cb.av, &word) == -1)
			goto err;
	}
	if (cb.as.n == 0 && cb.av.n == 0 && cb.rd.n == 0) {
		*empty = 1;
		return (0);
	}
	*empty = 0;
	return (emit_cb(p, st, &cb));
err:
	cb_free(&cb);
	return (-1);
}

/* Redirections after ( ... ) or { ...; }, listed as a wordless command. */
static int
redirs_after(struct ps *p, struct st *st)
{
	struct cb cb;
	int c;

	memset(&cb, 0, sizeof(cb));
	cb.serial = ++p->serial;
	for (;;) {
		if (skip(p, 0) == -1)
			goto err;
		if (!redir_start(p))
			break;
		if (redir(p, st, &cb) == -1)
			goto err;
	}
	c = ch(p, p->i);
	if (!meta(c) && !(c == '}' && meta(nextc(p, p->i)))) {
		fail(p, "unexpected word after ) or }");
		goto err;
	}
	if (cb.rd.n == 0)
		return (0);
	return (emit_cb(p, st, &cb));
err:
	cb_free(&cb);
	return (-1);
}

static int
command(struct ps *p, struct st *st, int *empty)
{
	struct st sub;
	int c = ch(p, p->i), r;

	*empty = 0;
	if (c == '(') {
		if (nextc(p, p->i) == '(')
			return (fail(p, "compound command not supported "
			    "((( ... )))"));
		p->i++;
		if (enter(p) == -1 || st_copy(p, &sub, st) == -1)
			return (-1);
		r = list(p, &sub, ')');
		st->vars |= sub.vars;
		st_free(&sub);
		p->depth--;
		if (r == 0)
			return (fail(p, "empty ( )"));
		if (r == -1)
			return (-1);
		p->i++;
		return (redirs_after(p, st));
	}
	if (c == '{' && (nextc(p, p->i) == ' ' || nextc(p, p->i) == '\t' ||
	    nextc(p, p->i) == '\n')) {
		/* its redirections are made before the group runs */
		p->i++;
		if (enter(p) == -1 || st_copy(p, &sub, st) == -1)
			return (-1);
		if ((r = list(p, st, '}')) <= 0) {
			st_free(&sub);
			return (r == 0 ? fail(p, "empty { }") : -1);
		}
		p->depth--;
		p->i++;
		r = redirs_after(p, &sub);
		st->vars |= sub.vars;
		st_free(&sub);
		return (r);
	}
	return (simple(p, st, empty));
}

/*
 * A pipeline.  Each element runs in a subshell (the last one in this
 * shell under lastpipe), so a cd inside a pipe leaves the directory
 * unknown; a negated cd may have failed.
 */
static int
pipeline(struct ps *p, struct st *st)
{
	struct st el;
	unsigned c0 = st->changed;
	int neg = 0, n = 0, piped = 0, empty, r;

	for (;;) {
		if (skip(p, 0) == -1)
			return (-1);
		if (ch(p, p->i) != '!' || !meta(nextc(p, p->i)) ||
		    nextc(p, p->i) == '(')
			break;
		neg = 1;
		p->i++;
	}
	for (;;) {
		if (st_copy(p, &el, st) == -1)
			return (-1);
		r = command(p, &el, &empty);
		if (r == 0 && empty)
			r = fail(p, "missing command");
		if (r == 0)
			r = skip(p, 0);
		if (r == -1) {
			st_free(&el);
			return (-1);
		}
		st->vars |= el.vars;
		if (ch(p, p->i) == '|' && nextc(p, p->i) != '|') {
			p->i = cont(p, p->i + 1);
			if (ch(p, p->i) == '&')
				p->i++;
			piped |= el.changed != st->changed;
			st_free(&el);
			n++;
			if (skip(p, 1) == -1)
				return (-1);
			continue;
		}
		if (n == 0) {
			st_free(st);
			*st = el;
		} else {
			piped |= el.changed != st->changed;
			st_free(&el);
		}
		break;
	}
	if (piped || (neg && st->changed != c0))
		st->unknown = 1;
	return (0);
}

/*
 * An and-or list.  After `cd DIR', the commands reached only through
 * && run in DIR.  Anything else may run after a cd that failed or never
 * ran (`cd x || make', `a || cd x && make', `cd x; make' when x is not
 * there): its directory is unknown.
 */
static int
andor(struct ps *p, struct st *st)
{
	unsigned c0;
	int anyor = 0, hadcd = 0;

	for (;;) {
		if (hadcd && anyor)
			st->unknown = 1;
		c0 = st->changed;
		if (pipeline(p, st) == -1)
			return (-1);
		if (st->changed != c0) {
			hadcd = 1;
			if (anyor)
				st->unknown = 1;
		}
		if (skip(p, 0) == -1)
			return (-1);
		if (ch(p, p->i) == '&' && nextc(p, p->i) == '&')
			;
		else if (ch(p, p->i) == '|' && nextc(p, p->i) == '|')
			anyor = 1;
		else
			break;
		p->i = cont(p, p->i + 1) + 1;
		if (skip(p, 1) == -1)
			return (-1);
	}
	if (hadcd)
		st->unknown = 1;
	return (0);
}

/*
 * A list up to term: ')' or '}' (not consumed), or 0 for the end.
 * Returns how many and-or lists it held.
 */
static int
list(struct ps *p, struct st *st, int term)
{
	int c, n = 0;

	for (;;) {
		if (skip(p, 1) == -1)
			return (-1);
		c = ch(p, p->i);
		if (c == -1) {
			if (term == ')')
				return (fail(p, "unbalanced ("));
			if (term == '}')
				return (fail(p, "unbalanced {"));
			return (n);
		}
		if (c == ')') {
			if (term == ')')
				return (n);
			return (fail(p, "unbalanced )"));
		}
		if (c == '}' && meta(nextc(p, p->i))) {
			if (term == '}')
				return (n);
			return (fail(p, "unbalanced }"));
		}
		if (c == ';' || c == '&' || c == '|')
			return (jh_errf(p->e, "syntax error near %c", c));
		if (andor(p, st) == -1)
			return (-1);
		n++;
		c = ch(p, p->i);
		if (c == ';') {
			if (nextc(p, p->i) == ';' || nextc(p, p->i) == '&')
				return (fail(p, "compound command not "
				    "supported (case)"));
			p->i++;
		} else if (c == '&')
			p->i++;
		else if (c != '\n' && c != -1 && c != ')' && c != '}')
			return (jh_errf(p->e, "syntax error near %c", c));
	}
}

int
jh_sh_parse(struct jh_sh_script *out, const char *s, size_t n,
    struct jh_err *e)
{
	struct ps p;
	struct st st;
	size_t copied = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (n > SH_MAX_INPUT)
		return (jh_errf(e, "command longer than 1 MiB"));
	if (n > 0 && memchr(s, '\0', n) != NULL)
		return (jh_errf(e, "NUL byte in command"));
	memset(&p, 0, sizeof(p));
	memset(&st, 0, sizeof(st));
	p.s = s;
	p.n = n;
	p.out = out;
	p.e = e;
	p.copied = &copied;
	r = list(&p, &st, 0);
	if (r >= 0)
		r = hd_end(&p);
	hd_clear(&p);
	st_free(&st);
	if (r == -1)
		jh_sh_free(out);
	return (r);
}

/* The parser with what it may know of the world (struct jh_sh_opts). */
int
jh_sh_parse_with(struct jh_sh_script *out, const char *s, size_t n,
    const struct jh_sh_opts *o, struct jh_err *e)
{
	(void)o;
	return (jh_sh_parse(out, s, n, e));
}
