/*
 * joulehook: a conservative parser for the bash commands an agent asks
 * to run (jh-decide(1), Shell commands).
 *
 * jh_sh_parse() lists every simple command a line would run, with its
 * quote-removed words, in the order they would start: the commands of a
 * substitution come before the command whose word holds it, a wrapper
 * (env, nice, xargs, find -exec, ...) comes just before the command it
 * runs, and an `sh -c' body is listed in place of the shell.  Whatever
 * it cannot prove, it refuses: the caller gets -1 and a reason, never a
 * partial list.  Nothing here looks at the filesystem or the environment.
 *
 * Every branch and body of a compound command is listed; a for loop over
 * known words once per word, a function's body at each call.  Along the
 * way it follows what one shell knows (struct st): its directory, and
 * the variables whose values are literal.  Where paths meet (branches,
 * loop rounds, && and ||, a call's end) only what holds on every path
 * stays known: an assignment has a stamp, and two states agree on a
 * value only with the same stamp.  A loop's rounds are parsed (and their
 * output dropped) until the state a round starts in no longer changes.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jh.h"
#include "buf.h"
#include "shellparse.h"

#define SH_MAX_INPUT	(1024 * 1024)
#define SH_MAX_DEPTH	32
#define SH_MAX_HDOC	16	/* here-documents waiting for one newline */
#define SH_MAX_EXEC	8	/* -exec actions in one find */
#define SH_MAX_COPY	(16u * 1024 * 1024)	/* bytes copied or re-parsed */
#define SH_MAX_CMDS	10000	/* simple commands listed */
#define SH_MAX_VARS	256	/* known values one shell keeps */
#define SH_MAX_FNS	64	/* functions one shell keeps */
#define SH_MAX_FOR	64	/* words a for loop is listed for, one by one */
#define SH_MAX_FIX	4	/* rounds to find what a loop leaves known */
#define SH_MAX_NAME	256	/* longest variable name looked up */
#define SH_MAX_COND	256	/* words in one [[ ... ]] */

enum { SH_BASH, SH_POSIX, SH_ZSH };	/* sh and dash are SH_POSIX */

struct wv {			/* growable word vector */
	struct jh_sh_word *v;
	size_t n, cap;
};

struct rv {			/* growable redirection vector */
	struct jh_sh_redir *v;
	size_t n, cap;
};

/* A variable whose value is known: a literal assignment or a for word. */
struct var {
	char *name;
	char *val;
	int flags;		/* GLOB, BRACE or TILDE of a for word */
	int exported;		/* known to be in the environment */
	unsigned stamp;		/* new with every assignment */
};

/* A function defined by the line; its body is listed where it is called. */
struct fn {
	char *name;
	const char *body;	/* the inside of { } or ( ), in its input */
	size_t len;
	int sub;		/* a ( ) body runs in a subshell */
	int poison;		/* defined on some paths only: no call */
	unsigned stamp;
};

struct dir {			/* a pushd stack entry */
	char *d;		/* NULL: the start directory */
	int unknown;
};

/*
 * What one shell knows: its working directory, OLDPWD and the pushd
 * stack, the variables whose values are literal, and the functions the
 * line defined.  A variable that is not listed has an unknown value.
 */
struct st {
	char *cwd;		/* NULL: the start directory */
	int unknown;		/* a cd we could not follow may have run */
	int sourced;		/* a sourced file may have moved it */
	int vars;		/* a variable (CDPATH) may have been set */
	int pwdvar;		/* PWD may be set: relative cds unknown */
	unsigned changed;	/* counts cd, pushd and popd */
	char *old;		/* OLDPWD, when oldset: NULL is the start */
	int oldset, oldunk;
	struct dir *stk;
	size_t nstk;
	int stkunk;		/* the pushd stack is not known */
	struct var *v;
	size_t nv;
	int ifs;		/* IFS may have changed: no unquoted value */
	int notrack;		/* attributes (readonly, -i, -n) may apply */
	struct fn *f;
	size_t nf;
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

/* Shared by every input of one parse. */
struct shr {
	size_t copied;		/* bytes copied or re-parsed */
	unsigned gen;		/* stamps */
	const char *calls[SH_MAX_DEPTH];	/* function bodies running */
	int ncalls;
};

/* One input being parsed: the line, a backtick body or an sh -c body. */
struct ps {
	const char *s;
	size_t n, i;
	struct jh_sh_script *out;
	struct jh_err *e;
	int depth;		/* nesting, across nested inputs */
	struct shr *sh;
	int cflags;		/* JH_SHC_* for everything listed here */
	int lvl;		/* $( ) nesting inside this input */
	int dialect;		/* SH_BASH, or the shell of an -c body */
	int allexport;		/* set -a seen: functions are exported */
	unsigned serial;
	struct hdoc hd[SH_MAX_HDOC];
	size_t nhd;
	unsigned hdgen;		/* newlines that read here-document bodies */
	unsigned hdbs;		/* unquoted bodies that held a backslash */
	int stop;		/* the T_* that ended the last list() */
	int bare;		/* the last command had no words */
	size_t kwend;		/* and where its keyword ends */
};

/* A word being scanned. */
struct wsc {
	struct jh_buf b;
	int flags;		/* JH_SHW_* */
	int quoted;		/* some part was quoted: not a reserved word */
	int brack;		/* an unquoted [ was seen */
	int brace;		/* 1: unquoted {, 2: then , or .. */
	int noexp;		/* a here-document delimiter: no expansion */
	int asg;		/* an assignment: ~ after the first = and : */
	size_t eqpos;		/* just after that first = (0: none yet) */
	int regex;		/* the right side of =~: ( ) | are its own */
	int depth;		/* of ( ) in a regex */
	int cmdsub;		/* a command substitution was seen */
	int varpart;		/* an unknown part that is not one */
	int nvf;		/* flagged values (for words) substituted */
	int subst;		/* a value was substituted */
	size_t vfs, vfe;	/* where the first one lies */
};

/* How a simple command is listed. */
struct ectx {
	int cflags;
	int inshell;		/* runs in this shell: a cd counts */
	int nofunc;		/* command, builtin: functions are skipped */
	const char *repl;	/* replaced at run time (find {}, xargs -I) */
	unsigned serial;	/* owner of pending here-documents */
};

/* What list() stops at. */
#define T_PAREN	0x001
#define T_BRACE	0x002
#define T_THEN	0x004
#define T_ELIF	0x008
#define T_ELSE	0x010
#define T_FI	0x020
#define T_DO	0x040
#define T_DONE	0x080
#define T_ESAC	0x100
#define T_DSEMI	0x200		/* ;; ;& ;;& */

static int	list(struct ps *, struct st *, int);
static int	scan_word(struct ps *, struct st *, struct wsc *);
static int	scan_dq(struct ps *, struct st *, struct wsc *);
static int	dollar(struct ps *, struct st *, struct wsc *, int);
static int	emit(struct ps *, struct st *, struct jh_sh_cmd *,
		    const struct ectx *);
static int	command(struct ps *, struct st *, int *);
static int	redirs_after(struct ps *, struct st *);
static void	st_clobber(struct st *);

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

/*
 * A name the gate must see every assignment of: one that may be in the
 * environment and change what later commands run or where they write
 * (PATH, HOME, BASH_ENV, BASH_CMDS, PS4, LD_PRELOAD, ...: by convention
 * no lowercase letter), a lowercase one programs read (http_proxy,
 * npm_config_*), and zsh's arrays tied to such names.  A plain NAME=value
 * is listed and decided (lib/effects.c); read, printf -v, for, ${NAME:=}
 * and arithmetic are not, so they may not set one.
 */
static int
guarded_name(const struct ps *p, const char *s, size_t n)
{
	static const char *const zsh[] = { "path", "cdpath", "fpath",
		"manpath", "module_path", NULL };
	char b[SH_MAX_NAME];
	size_t i;

	for (i = 0; i < n && !(s[i] >= 'a' && s[i] <= 'z'); i++)
		;
	if (i == n)
		return (n > 0);
	if (n >= sizeof(b))
		return (1);
	memcpy(b, s, n);
	b[n] = '\0';
	/* npm and Python's urllib read these in any case */
	if (n >= 6 && strcasecmp(b + n - 6, "_proxy") == 0)
		return (1);
	if (strncasecmp(b, "npm_config_", 11) == 0)
		return (1);
	return (p->dialect == SH_ZSH && inlist(b, zsh));
}

static int
refuse_set(struct ps *p, const char *how, const char *s, size_t n)
{
	return (jh_errf(p->e, "%s sets %.*s, which changes what later "
	    "commands run; write it as NAME=value", how, (int)(n > 64 ? 64 :
	    n), s));
}

/*
 * Arithmetic text that assigns a guarded name: NAME= (not ==), NAME op=,
 * NAME++ or ++NAME.  bash evaluates subscripts, offsets and the values
 * of names used in arithmetic the same way.
 */
static int
arith_guard(struct ps *p, const char *s, size_t n)
{
	static const char *const ops[] = { "+=", "-=", "*=", "/=", "%=",
		"&=", "|=", "^=", "<<=", ">>=", "++", "--", NULL };
	size_t i, j, k, b;

	for (i = 0; i < n; i = j) {
		j = i + 1;
		if (!isname0((unsigned char)s[i]) || (i > 0 &&
		    (isnamec((unsigned char)s[i - 1]) || s[i - 1] == '$')))
			continue;
		for (j = i; j < n && isnamec((unsigned char)s[j]); j++)
			;
		if (!guarded_name(p, s + i, j - i))
			continue;
		for (k = j; k < n && (s[k] == ' ' || s[k] == '\t'); k++)
			;
		for (b = i; b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t');
		    b--)
			;
		if ((k < n && s[k] == '=' && (k + 1 >= n || s[k + 1] != '=')) ||
		    (b >= 2 && ((s[b - 1] == '+' && s[b - 2] == '+') ||
		    (s[b - 1] == '-' && s[b - 2] == '-'))))
			return (refuse_set(p, "arithmetic", s + i, j - i));
		for (b = 0; ops[b] != NULL; b++)
			if (n - k >= strlen(ops[b]) && strncmp(s + k, ops[b],
			    strlen(ops[b])) == 0)
				return (refuse_set(p, "arithmetic", s + i,
				    j - i));
	}
	return (0);
}

static struct var *var_get(const struct st *, const char *, size_t);

/*
 * Marks the line when arithmetic text names a variable whose value this
 * parser does not hold as a literal (read, $(...), the environment):
 * bash evaluates that value as an expression, and a[$(cmd)] runs cmd.
 */
static void
arith_values(struct ps *p, const struct st *st, const char *s, size_t n)
{
	const struct var *v;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		j = i + 1;
		if (s[i] == '$' && i + 1 < n && (isdig((unsigned char)s[i + 1]) ||
		    strchr("@*#?-$!{(", s[i + 1]) != NULL)) {
			p->out->arith_unknown = 1;
			return;
		}
		if (!isname0((unsigned char)s[i]) || (i > 0 &&
		    isnamec((unsigned char)s[i - 1])))
			continue;
		for (j = i; j < n && isnamec((unsigned char)s[j]); j++)
			;
		if (st == NULL || (v = var_get(st, s + i, j - i)) == NULL ||
		    v->flags != 0) {
			p->out->arith_unknown = 1;
			return;
		}
	}
}

/*
 * The text of a ${...}: marks the line where it makes a value this
 * parser does not hold run as code.  ${!name} takes name's value as a
 * name, whose subscript is evaluated (${!prefix*} and ${!a[@]} list
 * names, and are inert); ${x@P} expands the value as a prompt, $(...)
 * included; ${x:off:len} evaluates off and len as arithmetic.
 */
static void
param_values(struct ps *p, const struct st *st, const char *s, size_t n)
{
	size_t i = 0, depth;

	if (n > 0 && s[0] == '!') {
		for (i = 1; i < n && isnamec((unsigned char)s[i]); i++)
			;
		if (i > 1 && ((i + 1 == n && (s[i] == '*' || s[i] == '@')) ||
		    (i + 3 == n && s[i] == '[' && (s[i + 1] == '@' ||
		    s[i + 1] == '*') && s[i + 2] == ']')))
			return;
		p->out->arith_unknown = 1;
		return;
	}
	if (n > 1 && s[0] == '#')
		i = 1;
	if (i < n && strchr("@*#?-$!", s[i]) != NULL)
		i++;
	else
		while (i < n && isnamec((unsigned char)s[i]))
			i++;
	if (i < n && s[i] == '[') {
		for (depth = 0; i < n; i++) {
			if (s[i] == '[')
				depth++;
			else if (s[i] == ']' && --depth == 0) {
				i++;
				break;
			}
		}
	}
	if (i + 1 < n && s[i] == '@' && s[i + 1] == 'P')
		p->out->arith_unknown = 1;
	else if (i < n && s[i] == ':' && (i + 1 == n || strchr("-=?+",
	    s[i + 1]) == NULL))
		arith_values(p, st, s + i + 1, n - i - 1);
}

/* State, vectors and commands. */

static int
dupz(char **d, const char *s)
{
	*d = NULL;
	return (s != NULL && (*d = strdup(s)) == NULL ? -1 : 0);
}

static void
st_free(struct st *s)
{
	size_t i;

	free(s->cwd);
	free(s->old);
	for (i = 0; i < s->nstk; i++)
		free(s->stk[i].d);
	free(s->stk);
	for (i = 0; i < s->nv; i++) {
		free(s->v[i].name);
		free(s->v[i].val);
	}
	free(s->v);
	for (i = 0; i < s->nf; i++)
		free(s->f[i].name);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

static int
st_copy(struct ps *p, struct st *d, const struct st *s)
{
	size_t i;
	int bad = 0;

	*d = *s;
	d->stk = NULL;
	d->v = NULL;
	d->f = NULL;
	d->nstk = d->nv = d->nf = 0;
	d->cwd = d->old = NULL;
	/* copies count against the same budget as copied words */
	if ((p->sh->copied += 8 * (1 + s->nv + s->nf + s->nstk)) >
	    SH_MAX_COPY)
		return (fail(p, "command too complex"));
	bad |= dupz(&d->cwd, s->cwd) | dupz(&d->old, s->old);
	if (!bad && s->nstk > 0 && (d->stk = calloc(s->nstk,
	    sizeof(*d->stk))) != NULL)
		for (d->nstk = s->nstk, i = 0; i < s->nstk; i++) {
			d->stk[i].unknown = s->stk[i].unknown;
			bad |= dupz(&d->stk[i].d, s->stk[i].d);
		}
	if (!bad && s->nv > 0 && (d->v = calloc(s->nv, sizeof(*d->v))) !=
	    NULL)
		for (d->nv = s->nv, i = 0; i < s->nv; i++) {
			d->v[i] = s->v[i];
			bad |= dupz(&d->v[i].name, s->v[i].name) |
			    dupz(&d->v[i].val, s->v[i].val);
		}
	if (!bad && s->nf > 0 && (d->f = calloc(s->nf, sizeof(*d->f))) !=
	    NULL)
		for (d->nf = s->nf, i = 0; i < s->nf; i++) {
			d->f[i] = s->f[i];
			bad |= dupz(&d->f[i].name, s->f[i].name);
		}
	if (bad || (s->nstk > 0 && d->stk == NULL) || (s->nv > 0 &&
	    d->v == NULL) || (s->nf > 0 && d->f == NULL)) {
		st_free(d);
		return (fail(p, "out of memory"));
	}
	return (0);
}

static struct var *
var_get(const struct st *s, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < s->nv; i++)
		if (strlen(s->v[i].name) == n && memcmp(s->v[i].name, name,
		    n) == 0)
			return (&s->v[i]);
	return (NULL);
}

static void
var_del(struct st *s, size_t i)
{
	free(s->v[i].name);
	free(s->v[i].val);
	s->v[i] = s->v[--s->nv];
}

/*
 * Names whose value the shell changes by itself, or that change how it
 * works, are never listed as known; 1 for them.
 */
static int
var_special(struct st *s, const char *name, size_t n)
{
	static const char *const dyn[] = { "_", "RANDOM", "SRANDOM",
		"SECONDS", "LINENO", "EPOCHSECONDS", "EPOCHREALTIME",
		"FUNCNAME", "PIPESTATUS", "HISTCMD", "PPID", "UID", "EUID",
		"GROUPS", "OPTIND", "OPTARG", "REPLY", "MAPFILE", "DIRSTACK",
		"PWD", "OLDPWD", "SHLVL", "IFS", "CDPATH", NULL };
	char b[SH_MAX_NAME];

	if (n == 0 || n >= sizeof(b))
		return (1);
	memcpy(b, name, n);
	b[n] = '\0';
	if (strcmp(b, "IFS") == 0)
		s->ifs = 1;
	else if (strcmp(b, "PWD") == 0)
		s->pwdvar = 1;
	else if (strcmp(b, "OLDPWD") == 0)
		s->oldunk = 1;
	else if (strcmp(b, "CDPATH") == 0)
		s->vars = 1;
	return (inlist(b, dyn) || strncmp(b, "BASH", 4) == 0);
}

static void
var_forget(struct st *s, const char *name, size_t n)
{
	struct var *v;

	(void)var_special(s, name, n);
	if ((v = var_get(s, name, n)) != NULL)
		var_del(s, (size_t)(v - s->v));
}

/*
 * NAME is VAL from now on; exported: 1 it is, 0 unknown, -1 as before.
 * Where values are not followed (zsh, attributes), it is forgotten.
 */
static int
var_set(struct ps *p, struct st *s, const char *name, size_t n,
    const char *val, int flags, int exported)
{
	struct var *v, *nv;
	char *d;

	if (var_special(s, name, n) || s->notrack || p->dialect == SH_ZSH ||
	    (s->nv >= SH_MAX_VARS && var_get(s, name, n) == NULL)) {
		var_forget(s, name, n);
		return (0);
	}
	if ((d = strdup(val)) == NULL)
		return (fail(p, "out of memory"));
	if ((v = var_get(s, name, n)) == NULL) {
		if ((nv = realloc(s->v, (s->nv + 1) * sizeof(*nv))) == NULL ||
		    (nv[s->nv].name = strndup(name, n)) == NULL) {
			if (nv != NULL)
				s->v = nv;
			free(d);
			return (fail(p, "out of memory"));
		}
		s->v = nv;
		v = &s->v[s->nv++];
		v->exported = 0;
		v->val = NULL;
	}
	free(v->val);
	v->val = d;
	v->flags = flags;
	if (exported >= 0)
		v->exported = exported;
	v->stamp = ++p->sh->gen;
	return (0);
}

static struct fn *
fn_get(const struct st *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nf; i++)
		if (strcmp(s->f[i].name, name) == 0)
			return (&s->f[i]);
	return (NULL);
}

/* body NULL: a poisoned entry (maybe defined, maybe not). */
static int
fn_set(struct ps *p, struct st *s, const char *name, const char *body,
    size_t len, int sub)
{
	struct fn *f, *nf;

	if ((f = fn_get(s, name)) == NULL) {
		if (s->nf >= SH_MAX_FNS)
			return (fail(p, "too many functions"));
		if ((nf = realloc(s->f, (s->nf + 1) * sizeof(*nf))) == NULL ||
		    (nf[s->nf].name = strdup(name)) == NULL) {
			if (nf != NULL)
				s->f = nf;
			return (fail(p, "out of memory"));
		}
		s->f = nf;
		f = &s->f[s->nf++];
	}
	f->body = body;
	f->len = len;
	f->sub = sub;
	f->poison = body == NULL;
	f->stamp = body == NULL ? 0 : ++p->sh->gen;
	return (0);
}

static void
fn_poison_all(struct st *s)
{
	size_t i;

	for (i = 0; i < s->nf; i++) {
		s->f[i].poison = 1;
		s->f[i].stamp = 0;
	}
}

/* Anything may have been assigned: no value is known any more. */
static void
st_clobber(struct st *s)
{
	while (s->nv > 0)
		var_del(s, s->nv - 1);
	s->ifs = s->vars = s->pwdvar = s->oldunk = 1;
}

static int
same_dir(const char *a, const char *b)
{
	return (a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0);
}

static int
same_stk(const struct st *a, const struct st *b)
{
	size_t i;

	if (a->stkunk != b->stkunk || a->nstk != b->nstk)
		return (0);
	for (i = 0; i < a->nstk; i++)
		if (a->stk[i].unknown != b->stk[i].unknown ||
		    !same_dir(a->stk[i].d, b->stk[i].d))
			return (0);
	return (1);
}

/*
 * a becomes what holds after either a or b: a value stays known only
 * where both hold the same assignment (one stamp), a function that
 * differs is poisoned, a directory that differs is unknown.
 */
static int
st_join(struct ps *p, struct st *a, const struct st *b)
{
	const struct var *v;
	const struct fn *g;
	struct fn *f;
	size_t i;

	for (i = 0; i < a->nv;) {
		v = var_get(b, a->v[i].name, strlen(a->v[i].name));
		if (v == NULL || v->stamp != a->v[i].stamp)
			var_del(a, i);
		else
			i++;
	}
	for (i = 0; i < a->nf; i++) {
		g = fn_get(b, a->f[i].name);
		if (g == NULL || g->stamp != a->f[i].stamp || g->poison)
			a->f[i].poison = 1;
	}
	for (i = 0; i < b->nf; i++)
		if (fn_get(a, b->f[i].name) == NULL && fn_set(p, a,
		    b->f[i].name, NULL, 0, 0) == -1)
			return (-1);
	for (i = 0; i < a->nf; i++)
		if ((f = &a->f[i])->poison)
			f->stamp = 0;
	a->unknown |= b->unknown || !same_dir(a->cwd, b->cwd);
	a->sourced |= b->sourced;
	a->vars |= b->vars;
	a->pwdvar |= b->pwdvar;
	a->ifs |= b->ifs;
	a->notrack |= b->notrack;
	if (b->changed > a->changed)
		a->changed = b->changed;
	if (a->oldset != b->oldset || b->oldunk || !same_dir(a->old, b->old))
		a->oldunk = a->oldset = 1;
	if (!same_stk(a, b))
		a->stkunk = 1;
	return (0);
}

/* Equal for a loop's fixed point (cd counts aside). */
static int
st_same(const struct st *a, const struct st *b)
{
	const struct var *v;
	const struct fn *g;
	size_t i;

	if (a->nv != b->nv || a->nf != b->nf || a->unknown != b->unknown ||
	    a->sourced != b->sourced ||
	    a->vars != b->vars || a->pwdvar != b->pwdvar ||
	    a->ifs != b->ifs || a->notrack != b->notrack ||
	    !same_dir(a->cwd, b->cwd) || a->oldset != b->oldset ||
	    a->oldunk != b->oldunk || !same_dir(a->old, b->old) ||
	    !same_stk(a, b))
		return (0);
	for (i = 0; i < a->nv; i++)
		if ((v = var_get(b, a->v[i].name, strlen(a->v[i].name))) ==
		    NULL || v->stamp != a->v[i].stamp)
			return (0);
	for (i = 0; i < a->nf; i++)
		if ((g = fn_get(b, a->f[i].name)) == NULL ||
		    g->stamp != a->f[i].stamp || g->poison != a->f[i].poison)
			return (0);
	return (1);
}

/* a := join(a, b), taking b. */
static int
st_merge(struct ps *p, struct st *a, struct st *b)
{
	int r = st_join(p, a, b);

	st_free(b);
	return (r);
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

/*
 * Brace expansion, as bash does it first of all, of a word that holds no
 * quoting, no expansion and no glob: {a,b} and nested ones, and {N..M}
 * of integers or of letters.  The words are appended to av, and the
 * count of words made returned (an empty one counts and is dropped, as
 * bash drops it); -2 where the word is to be left as it is (a
 * {x..y..step}, a 0 before a number, more than BR_MAX words, one that
 * would start with ~ and so be tilde expanded after), -1 on an error.
 */
#define BR_MAX	64
#define BR_LEN	1024	/* a longer word is left as it is */


/*
 * The } that closes the { at s[i] as bash's brace_gobbler finds it:
 * the braces inside are counted, and a } at the first one's own level
 * closes it only once a comma, or a .. not right before a }, was seen
 * at that level ({x},y} is x} and y); 0 for none.  *comma is the first
 * comma at that level, or 0.
 */
static size_t
br_close(const char *s, size_t n, size_t i, size_t *comma)
{
	size_t level = 0, k;
	int seen = 0;

	*comma = 0;
	for (k = i + 1; k < n; k++) {
		if (s[k] == '{')
			level++;
		else if (s[k] == '}') {
			if (level > 0)
				level--;
			else if (seen)
				return (k);
		} else if (level == 0 && s[k] == ',') {
			seen = 1;
			if (*comma == 0)
				*comma = k;
		} else if (level == 0 && s[k] == '.' && s[k + 1] == '.' &&
		    s[k + 2] != '}')
			seen = 1;
	}
	return (0);
}

static int
br_seq(const char *a, size_t al, const char *b, size_t bl, long *x, long *y,
    int *letter)
{
	char t[24];
	char *e;

	*letter = al == 1 && bl == 1 && ((*a | 32) >= 'a' && (*a | 32) <= 'z') &&
	    ((*b | 32) >= 'a' && (*b | 32) <= 'z');
	if (*letter) {
		*x = *a;
		*y = *b;
		return (0);
	}
	if (al == 0 || bl == 0 || al >= 20 || bl >= 20 ||
	    (a[al > 1 && a[0] == '-'] == '0' && al > (size_t)1 + (a[0] == '-')) ||
	    (b[bl > 1 && b[0] == '-'] == '0' && bl > (size_t)1 + (b[0] == '-')))
		return (-1);
	memcpy(t, a, al);
	t[al] = '\0';
	*x = strtol(t, &e, 10);
	if (*e != '\0')
		return (-1);
	memcpy(t, b, bl);
	t[bl] = '\0';
	*y = strtol(t, &e, 10);
	return (*e != '\0' ? -1 : 0);
}

/* v in decimal (|v| < 10^19) */
static void
br_num(char *out, long v)
{
	char t[24];
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		out[k++] = '-';
	while (n > 0)
		out[k++] = t[--n];
	out[k] = '\0';
}

static int	br_expand(struct ps *, struct wv *, const char *, int);

/* One alternative: prefix, alt, suffix, expanded again. */
static int
br_one(struct ps *p, struct wv *av, const char *s, size_t i, const char *alt,
    size_t altl, const char *suf, int n)
{
	struct jh_buf b;
	int r;

	jh_buf_init(&b);
	jh_buf_add(&b, s, i);
	jh_buf_add(&b, alt, altl);
	jh_buf_adds(&b, suf);
	if (jh_buf_cstr(&b) == NULL)
		return (fail(p, "out of memory"));
	r = br_expand(p, av, (const char *)b.p, n);
	jh_buf_free(&b);
	return (r);
}

static int
br_expand(struct ps *p, struct wv *av, const char *s, int n)
{
	struct jh_sh_word w;
	const char *dots;
	size_t i, j, k, comma, len = strlen(s);
	long x, y, v;
	char num[24];
	int letter;

	/*
	 * Each { is looked for its } from scratch, as bash does: bounded.
	 * bash passes over a {} that starts the word, or the part after a
	 * brace or an alternative, which it expands on their own; a {}
	 * past the start with another brace is left as it is.
	 */
	if (len > BR_LEN)
		return (-2);
	if (len > 0 && (dots = strstr(s + 1, "{}")) != NULL &&
	    (strchr(s, '{') != dots || strchr(dots + 1, '{') != NULL))
		return (-2);
	for (i = 0; i < len; i++) {
		/* bash passes over a {} that starts the word (find -exec) */
		if (s[i] != '{' || (i == 0 && s[1] == '}') ||
		    (j = br_close(s, len, i, &comma)) == 0)
			continue;
		if (comma != 0) {
			for (k = i + 1; n >= 0 && k <= j; ) {
				size_t e = k, d = 0;
				for (; e < j && (s[e] != ',' || d > 0); e++)
					if (s[e] == '{')
						d++;
					else if (s[e] == '}' && d > 0)
						d--;
				n = br_one(p, av, s, i, s + k, e - k, s + j + 1,
				    n);
				k = e + 1;
			}
			return (n);
		}
		dots = memmem(s + i + 1, j - i - 1, "..", 2);
		if (dots == NULL)
			continue;	/* not reached: a close needs , or .. */
		if (memmem(dots + 2, (size_t)(s + j - dots - 2), "..", 2) !=
		    NULL || br_seq(s + i + 1, (size_t)(dots - s - i - 1),
		    dots + 2, (size_t)(s + j - dots - 2), &x, &y, &letter) ==
		    -1 || (x > y ? x - y : y - x) >= BR_MAX)
			return (-2);
		for (v = x; n >= 0; v += x <= y ? 1 : -1) {
			if (letter) {
				num[0] = (char)v;
				num[1] = '\0';
			} else
				br_num(num, v);
			n = br_one(p, av, s, i, num, strlen(num), s + j + 1, n);
			if (v == y)
				break;
		}
		return (n);
	}
	if (n < 0)
		return (n);
	if (n >= BR_MAX || s[0] == '~')
		return (-2);
	if (len == 0)
		return (n + 1);	/* an empty word made is dropped, as bash does */
	if ((w.s = strdup(s)) == NULL)
		return (fail(p, "out of memory"));
	w.len = len;
	w.flags = 0;
	if (wv_push(p, av, &w) == -1)
		return (-1);
	return (n + 1);
}

/*
 * Pushes word (taken) to av, its braces expanded where br_expand can;
 * else as it is.
 */
static int
br_push(struct ps *p, struct wv *av, struct jh_sh_word *word, int plain)
{
	size_t n0 = av->n;
	int r;

	if (!plain || word->flags != JH_SHW_BRACE)
		return (wv_push(p, av, word));
	r = br_expand(p, av, word->s, 0);
	if (r < 0) {
		/* the words made so far dropped */
		while (av->n > n0)
			free(av->v[--av->n].s);
		if (r == -1) {
			free(word->s);
			return (-1);
		}
		/* {,}~/x: bash expands the ~ of a word braces made */
		if (strchr(word->s, '~') != NULL)
			word->flags |= JH_SHW_TILDE;
		return (wv_push(p, av, word));	/* left as it is */
	}
	free(word->s);
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
	if ((p->sh->copied += n + 32) > SH_MAX_COPY)
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

	if (o->n >= SH_MAX_CMDS) {
		cmd_free(c);
		return (fail(p, "command too complex"));
	}
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
	q->sh = p->sh;
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
	if (!dq)
		w->flags |= JH_SHW_SPLIT;	/* unquoted: it may split */
	w->cmdsub = 1;
	return (0);
}

/*
 * The list of $(...), <(...) or >(...), parsed in place (its
 * here-documents read this input) in a copy of the shell's state, its
 * commands marked SUBST; p->i is just after the (, and ends just after
 * the ).
 */
static int
subst_list(struct ps *p, struct st *st)
{
	struct st sub;
	size_t k;
	int saved = p->cflags, r;

	if (enter(p) == -1 || st_copy(p, &sub, st) == -1)
		return (-1);
	p->cflags |= JH_SHC_SUBST;
	p->lvl++;
	r = list(p, &sub, T_PAREN);
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
	return (0);
}

/* <( or >( at i: a process substitution, not a redirection. */
static int
procsub_at(const struct ps *p, size_t i)
{
	int c = ch(p, i);

	return ((c == '<' || c == '>') && nextc(p, i) == '(');
}

/*
 * <(list) or >(list), a whole word: bash and zsh run the list with its
 * output (or input) on a pipe, and the word becomes the pipe's path
 * (/dev/fd/N; /proc/self/fd/N in zsh): one word, never split, never an
 * option.  The list is parsed in place, as $(...) is, and listed; the
 * word is marked PROCSUB, so that a command may read or write it as the
 * pipe it is.  p->i is at the < or >.  sh (dash) has no such word.
 */
static int
scan_procsub(struct ps *p, struct st *st, struct wsc *w)
{
	size_t start = p->i;

	if (p->dialect == SH_POSIX)
		return (fail(p, "process substitution in an sh -c body (sh "
		    "has none)"));
	p->i = cont(p, p->i + 1) + 1;
	if (subst_list(p, st) == -1)
		return (-1);
	raw(w, p, start, p->i);
	w->flags |= JH_SHW_EXPAND | JH_SHW_PROCSUB;
	p->i = cont(p, p->i);
	if (!meta(ch(p, p->i)) || procsub_at(p, p->i))
		return (fail(p, "a process substitution with more of its word "
		    "after it is not supported"));
	return (0);
}

/* Whether an unquoted value stays one literal word. */
static int
plain_value(const struct st *st, const char *v, size_t n)
{
	size_t i;

	if (n == 0 || st->ifs)
		return (0);
	for (i = 0; i < n; i++)
		if (strchr(" \t\n*?[(\\", v[i]) != NULL)
			return (0);
	return (1);
}

/*
 * $(cat <<'EOF' ... EOF): when the substitution listed only a plain cat
 * of one literal here-document (or here-string), its output is known:
 * the body without its trailing newlines.  1 when w got it.
 */
static int
cat_idiom(struct ps *p, const struct st *st, struct wsc *w, size_t m,
    unsigned bs, int dq)
{
	const struct jh_sh_cmd *c;
	const struct jh_sh_redir *r;
	size_t n;

	if (p->out->n != m + 1 || p->hdbs != bs || fn_get(st, "cat") != NULL)
		return (0);
	c = &p->out->cmd[m];
	r = c->redir;
	if (c->argc != 1 || c->nassign != 0 || c->nredir != 1 ||
	    c->argv[0].flags != 0 || strcmp(c->argv[0].s, "cat") != 0 ||
	    (c->flags & (JH_SHC_WRAPPED | JH_SHC_OPENARGS)) ||
	    r->kind != JH_SHR_HEREDOC || r->fd != 0 || r->target.flags != 0)
		return (0);
	for (n = r->target.len; n > 0 && r->target.s[n - 1] == '\n'; n--)
		;
	if (!dq && !plain_value(st, r->target.s, n))
		return (0);
	jh_buf_add(&w->b, r->target.s, n);
	return (1);
}

/* $( ... ): parsed in place, so its here-documents read this input. */
static int
scan_subst(struct ps *p, struct st *st, struct wsc *w, size_t start, int dq)
{
	size_t m = p->out->n;
	unsigned bs = p->hdbs;

	if (subst_list(p, st) == -1)
		return (-1);
	if (cat_idiom(p, st, w, m, bs, dq))
		return (0);
	raw(w, p, start, p->i);
	w->flags |= JH_SHW_EXPAND;
	if (!dq)
		w->flags |= JH_SHW_SPLIT;	/* unquoted: it may split */
	w->cmdsub = 1;
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

/* $((...)) of numbers and operators only: no variable, no assignment. */
static int
arith_const(const struct ps *p, size_t a, size_t b)
{
	for (; a < b; a++)
		if (strchr("0123456789 \t+-*/%()<>=!&|^~?:,", p->s[a]) == NULL)
			return (0);
	return (1);
}

/*
 * $NAME or ${NAME} of a variable whose value is known: the value, as
 * it is inside double quotes, and unquoted when it is one word that no
 * glob could change.  A for word's flags go with it (a glob word stays
 * a glob), but only as the whole word.  1 when w got it.
 */
static int
subst_var(const struct st *st, struct wsc *w, const char *name, size_t n,
    int dq)
{
	const struct var *v;
	size_t len;

	if (w->noexp || (v = var_get(st, name, n)) == NULL ||
	    (w->asg && v->flags != 0))
		return (0);
	/* an assignment's value is not split or globbed */
	dq |= w->asg;
	len = strlen(v->val);
	if (!dq && !plain_value(st, v->val, len) && (v->flags &
	    JH_SHW_GLOB) == 0)
		return (0);
	if (!dq && (v->flags & ~JH_SHW_BRACE) != 0)
		/* splitting and globbing of a file name the glob found */
		w->flags |= JH_SHW_EXPAND | JH_SHW_SPLIT, w->varpart = 1;
	if (v->flags != 0 && w->nvf++ == 0)
		w->vfs = w->b.len;
	w->subst = 1;
	jh_buf_add(&w->b, v->val, len);
	if (v->flags != 0)
		w->vfe = w->b.len;
	w->flags |= v->flags;
	return (1);
}

/*
 * Whether ${...} may assign: ${x=...}, ${x:=...}, or arithmetic that can
 * (a subscript, an offset, ${!x} of a subscripted name).
 */
static int
inner_assigns(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr("=[!", s[i]) != NULL || (s[i] == ':' && i + 1 < n &&
		    strchr("-=?+", s[i + 1]) == NULL))
			return (1);
	return (0);
}

/*
 * ${NAME=...} and ${NAME:=...} assign NAME; subscripts and offsets are
 * arithmetic, and so is all of $[...].
 */
static int
inner_guard(struct ps *p, const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n && isnamec((unsigned char)s[k]); k++)
		;
	if (k > 0 && k < n && (s[k] == '=' || (s[k] == ':' && k + 1 < n &&
	    s[k + 1] == '=')) && guarded_name(p, s, k))
		return (refuse_set(p, "${NAME:=...}", s, k));
	return (arith_guard(p, s, n));
}

/* At $NAME: 1 and the name when it fits. */
static int
dollar_name(const struct ps *p, size_t *j, char *name, size_t *n)
{
	int ok = 1;

	for (*n = 0; isnamec(ch(p, *j)); *j = cont(p, *j + 1)) {
		if (*n + 1 >= SH_MAX_NAME)
			ok = 0;
		else
			name[(*n)++] = p->s[*j];
	}
	return (ok);
}

/*
 * At a $: an expansion makes the word JH_SHW_EXPAND, unless it is a
 * known variable.  One that may assign (${x:=...}, $((x=1))) makes every
 * value unknown from here on.
 */
static int
dollar(struct ps *p, struct st *st, struct wsc *w, int dq)
{
	char name[SH_MAX_NAME];
	const char *e;
	size_t start = p->i, j = cont(p, p->i + 1), k, n;
	int c = ch(p, j), known = 0;

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
		p->i = k = cont(p, j + 1) + 1;
		if (scan_inner(p, st, dq, '(', ')') == -1 ||
		    arith_guard(p, p->s + k, p->i - k) == -1)
			return (-1);
		arith_values(p, st, p->s + k, p->i - 2 - k);
		if (arith_const(p, k, p->i - 2))
			known = 1;
		else
			st_clobber(st);
	} else if (c == '(') {
		p->i = j + 1;
		return (scan_subst(p, st, w, start, dq || w->asg));
	} else if (c == '{' || c == '[') {
		/* ${NAME} exactly */
		for (k = j + 1; k < p->n && isnamec(ch(p, k)); k++)
			;
		if (c == '{' && isname0(ch(p, j + 1)) && ch(p, k) == '}' &&
		    k - j - 1 < SH_MAX_NAME && subst_var(st, w, p->s + j + 1,
		    k - j - 1, dq)) {
			p->i = k + 1;
			return (0);
		}
		/*
		 * zsh's ${(flags)...}, ${~x}, ${=x}, ${^x}: (e) evaluates the
		 * value as code; bash refuses them all
		 */
		if (c == '{' && strchr("(~=^", ch(p, j + 1)) != NULL &&
		    ch(p, j + 1) != -1)
			return (fail(p, "zsh's ${(flags)...}, ${~...}, "
			    "${=...} or ${^...} is not supported"));
		/*
		 * bash 5.3's ${ cmd; } and ${| cmd; }: a command run in
		 * this shell (earlier bashes refuse them)
		 */
		if (c == '{' && ch(p, j + 1) != -1 && strchr(" \t\n|",
		    ch(p, j + 1)) != NULL)
			return (fail(p, "${ command; } runs a command in bash "
			    "5.3, which this gate does not follow"));
		p->i = k = j + 1;
		if (scan_inner(p, st, dq, c, c == '{' ? '}' : ']') == -1 ||
		    inner_guard(p, p->s + k, p->i - k) == -1)
			return (-1);
		/* $[...], and a subscript of ${a[...]}, are arithmetic */
		if (c == '[')
			arith_values(p, st, p->s + k, p->i - 1 - k);
		else {
			if ((e = memchr(p->s + k, '[', p->i - k)) != NULL)
				arith_values(p, st, e + 1, (size_t)(p->s +
				    p->i - e - 1));
			param_values(p, st, p->s + k, p->i - 1 - k);
		}
		if (c == '[' || inner_assigns(p->s + k, p->i - k))
			st_clobber(st);
	} else if (isname0(c)) {
		if (dollar_name(p, &j, name, &n) && subst_var(st, w, name, n,
		    dq)) {
			p->i = j;
			return (0);
		}
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
	if (!dq)
		w->flags |= JH_SHW_SPLIT;	/* unquoted: it may split */
	if (!known)
		w->varpart = 1;
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
 * A leading ~ (or, in an assignment, one after the first = or a :) that
 * is the whole tilde-prefix: the home directory when it is known.
 */
static int
tilde(struct ps *p, const struct st *st, struct wsc *w, int prev)
{
	const struct var *v;
	int d = nextc(p, p->i);

	if (w->noexp || (prev != 0 && !(w->asg && (prev == ':' ||
	    (prev == '=' && w->b.len == w->eqpos)))))
		return (0);
	if (d != '/' && !meta(d) && !(w->asg && d == ':'))
		return (0);
	if ((v = var_get(st, "HOME", 4)) == NULL || v->flags != 0 ||
	    v->val[0] != '/')
		return (0);
	jh_buf_adds(&w->b, v->val);
	p->i++;
	return (1);
}

/* In a regex after =~, ( ) and | are part of the word. */
static int
regex_char(struct ps *p, struct wsc *w, int c)
{
	if (!w->regex || !(c == '(' || (c == ')' && w->depth > 0) ||
	    ((c == ' ' || c == '\t' || c == '|') && w->depth > 0)))
		return (0);
	w->depth += c == '(' ? 1 : c == ')' ? -1 : 0;
	jh_buf_addc(&w->b, (uint8_t)c);
	p->i++;
	return (1);
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
		if (meta(c)) {
			if (regex_char(p, w, c)) {
				prev = c;
				continue;
			}
			if (!procsub_at(p, p->i))
				break;
			/* bash pastes x<(cmd) into one word: not followed */
			if (prev != 0 || w->b.len > 0 || w->quoted ||
			    w->flags != 0 || w->noexp)
				return (fail(p, "a process substitution inside "
				    "a word is not supported"));
			return (scan_procsub(p, st, w));
		}
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
			/* zsh's ~[name] calls zsh_directory_name */
			if (c == '~' && (prev == 0 || prev == '=' ||
			    prev == ':') && nextc(p, p->i) == '[')
				return (fail(p, "~[...] (zsh runs "
				    "zsh_directory_name for it) is not "
				    "supported"));
			if (c == '~' && (prev == 0 || prev == '=' ||
			    prev == ':') && tilde(p, st, w, prev)) {
				prev = -1;
				continue;
			}
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
			if (c == '=' && w->eqpos == 0)
				w->eqpos = w->b.len;
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
	/* a for word's flags describe it only as the whole word */
	if (w->nvf > 1 || (w->nvf == 1 && (w->vfs != 0 || w->vfe != w->b.len)))
		w->flags |= JH_SHW_EXPAND | JH_SHW_SPLIT, w->varpart = 1;
	if ((w->flags & JH_SHW_EXPAND) && w->cmdsub && !w->varpart)
		w->flags |= JH_SHW_CMDSUB;
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
	int bs = 0;

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
		/* in $( ), bash 5.2 also ends the body at "DELIM)..." */
		if (h->lvl > 0 && le - t > dl && memcmp(p->s + t, h->delim,
		    dl) == 0 && p->s[t + dl] == ')') {
			jh_buf_free(&b);
			return (fail(p, "a here-document line in $( ) that "
			    "starts with its delimiter and )"));
		}
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
			if (memchr(p->s + t, '\\', le - t) != NULL)
				bs = 1;
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
	p->hdbs += bs;
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
	if (p->nhd > 0)
		p->hdgen++;
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

	if (procsub_at(p, j))
		return (0);
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

/* What comes before a redirection's target. */
struct rop {
	long fd;	/* the fd named, -1 when implied */
	int op;		/* R_* */
	int strip;	/* <<- */
	int bang;	/* >! >>! */
};

/* Reads a redirection's fd and operator, up to its target. */
static int
redir_op(struct ps *p, struct rop *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (redir_start(p) == 2)
		return (fail(p, "{var} redirections are not supported"));
	if (isdig(ch(p, p->i)))
		for (o->fd = 0; isdig(ch(p, p->i)); p->i = cont(p, p->i + 1))
			if ((o->fd = o->fd * 10 + (ch(p, p->i) - '0')) > 65535)
				return (fail(p, "fd out of range"));
	/* zsh reads only one digit as the fd: 10>x is an argument 10 */
	if (o->fd > 9)
		return (fail(p, "fd numbers over 9 (zsh reads them as "
		    "arguments)"));
	c = ch(p, p->i);
	p->i = cont(p, p->i + 1);
	if (c == '&') {			/* &> &>> */
		if (ch(p, p->i) == '>' && nextc(p, p->i) == '>')
			p->i = cont(p, p->i + 1);
		p->i = cont(p, p->i + 1);
		o->op = R_BOTH;
	} else if (c == '<') {
		c = ch(p, p->i);
		o->op = R_IN;
		if (c == '<') {
			p->i = cont(p, p->i + 1);
			o->op = R_HDOC;
			if (ch(p, p->i) == '<')
				o->op = R_HSTR;
			else if (ch(p, p->i) == '-')
				o->strip = 1;
			if (o->op == R_HSTR || o->strip)
				p->i = cont(p, p->i + 1);
		} else if (c == '&' || c == '>') {
			o->op = c == '&' ? R_DUPIN : R_RW;
			p->i = cont(p, p->i + 1);
		} else if (c == '(')
			return (fail(p, "process substitution is not "
			    "supported"));
	} else {
		c = ch(p, p->i);
		o->op = R_OUT;
		if (c == '>' || c == '|' || c == '&') {
			if (c == '&')
				o->op = R_DUPOUT;
			p->i = cont(p, p->i + 1);
		} else if (c == '(')
			return (fail(p, "process substitution is not "
			    "supported"));
	}
	/*
	 * zsh's >! and >>! clobber; bash writes to a file named !x.  Both
	 * are listed, when the target is attached.
	 */
	if ((o->op == R_OUT || o->op == R_BOTH ||
	    (o->op == R_DUPOUT && o->fd == -1)) && ch(p, p->i) == '!') {
		p->i = cont(p, p->i + 1);
		if (meta(ch(p, p->i)))
			return (fail(p, ">! without an attached target (bash "
			    "and zsh read it differently)"));
		if (o->op == R_DUPOUT)
			o->op = R_BOTH;
		o->bang = 1;
	}
	return (0);
}

/*
 * A here-document: its delimiter w (the word scanned from start) kept,
 * its body read at the next newline.  w is taken or freed.
 */
static int
redir_hdoc(struct ps *p, struct cb *cb, struct jh_sh_redir *r,
    struct wsc *w, size_t start, int strip)
{
	struct hdoc *h;
	size_t k;

	for (k = start; k < p->i; k++)
		if (p->s[k] == '$' || p->s[k] == '`') {
			jh_buf_free(&w->b);
			return (fail(p, "here-document delimiter with $ or `"));
		}
	if (p->nhd == SH_MAX_HDOC) {
		jh_buf_free(&w->b);
		return (fail(p, "too many here-documents"));
	}
	if (jh_buf_cstr(&w->b) == NULL ||
	    word_set(p, &r->target, "", 0, 0) == -1) {
		jh_buf_free(&w->b);
		return (fail(p, "out of memory"));
	}
	h = &p->hd[p->nhd++];
	memset(h, 0, sizeof(*h));
	h->delim = (char *)w->b.p;
	h->quoted = w->quoted;
	h->strip = strip;
	h->lvl = p->lvl;
	h->serial = cb->serial;
	h->redir = cb->rd.n;
	r->kind = JH_SHR_HEREDOC;
	if (r->fd == -1)
		r->fd = 0;
	return (rv_push(p, &cb->rd, r));
}

/*
 * The kind and fd of a redirection with its target read; its target is
 * freed when it is refused.
 */
static int
redir_kind(struct ps *p, struct jh_sh_redir *r, const struct rop *o)
{
	long fd = o->fd;
	size_t k;

	switch (o->op) {
	case R_IN:
		r->kind = JH_SHR_READ;
		break;
	case R_OUT:
		r->kind = JH_SHR_WRITE;
		break;
	case R_RW:			/* <> creates the file */
		r->kind = JH_SHR_WRITE;
		break;
	case R_BOTH:			/* both 1 and 2: fd -1 */
		r->kind = JH_SHR_WRITE;
		fd = -2;
		break;
	case R_HSTR:
		r->kind = JH_SHR_HEREDOC;
		break;
	default:			/* <& >& */
		k = r->target.len;
		if (r->target.flags != 0)
			/* >&$x may name a file: the target is not literal */
			r->kind = o->op == R_DUPIN ? JH_SHR_READ :
			    JH_SHR_WRITE;
		else if (strcmp(r->target.s, "-") == 0 ||
		    alldigits(r->target.s, k))
			r->kind = JH_SHR_DUP;
		else if (k > 1 && r->target.s[k - 1] == '-' &&
		    alldigits(r->target.s, k - 1)) {
			free(r->target.s);
			return (fail(p, "fd moves (N>&M-) are not supported "
			    "(zsh writes a file M-)"));
		}
		else if (o->op == R_DUPOUT && fd == -1) {
			/* >& word is &> word */
			r->kind = JH_SHR_WRITE;
			fd = -2;
		} else {
			free(r->target.s);
			return (fail(p, "ambiguous redirect"));
		}
		break;
	}
	if (fd == -2)
		r->fd = -1;
	else if (r->fd == -1)
		r->fd = o->op == R_IN || o->op == R_RW || o->op == R_DUPIN ||
		    o->op == R_HSTR ? 0 : 1;
	return (0);
}

/* Lists r; after >! also the file bash would write, !target. */
static int
redir_push(struct ps *p, struct cb *cb, struct jh_sh_redir *r, int bang)
{
	struct jh_sh_redir b = *r;
	struct jh_buf t;

	if (!bang)
		return (rv_push(p, &cb->rd, r));
	jh_buf_init(&t);
	jh_buf_addc(&t, '!');
	jh_buf_add(&t, r->target.s, r->target.len);
	if (jh_buf_cstr(&t) == NULL) {
		jh_buf_free(&t);
		free(r->target.s);
		return (fail(p, "out of memory"));
	}
	b.target.s = (char *)t.p;
	b.target.len = t.len;
	if (rv_push(p, &cb->rd, r) == -1) {
		free(b.target.s);
		return (-1);
	}
	return (rv_push(p, &cb->rd, &b));
}

static int
redir(struct ps *p, struct st *st, struct cb *cb)
{
	struct jh_sh_redir r;
	struct rop o;
	struct wsc w;
	size_t start;

	if (redir_op(p, &o) == -1 || skip(p, 0) == -1)
		return (-1);
	/* in `<2>x' bash reads 2> as an operator, not as the target */
	if ((meta(ch(p, p->i)) && !procsub_at(p, p->i)) || redir_start(p))
		return (fail(p, "redirection without a target"));
	start = p->i;
	wsc_init(&w);
	w.noexp = o.op == R_HDOC;
	if (scan_word(p, st, &w) == -1) {
		jh_buf_free(&w.b);
		return (-1);
	}
	memset(&r, 0, sizeof(r));
	r.fd = (int)o.fd;
	if (o.op == R_HDOC)
		return (redir_hdoc(p, cb, &r, &w, start, o.strip));
	if (word_take(p, &r.target, &w) == -1) {
		jh_buf_free(&w.b);
		return (-1);
	}
	if (redir_kind(p, &r, &o) == -1)
		return (-1);
	return (redir_push(p, cb, &r, o.bang));
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

/* The directory being left becomes OLDPWD. */
static int
set_old(struct ps *p, struct st *st)
{
	free(st->old);
	if (dupz(&st->old, st->cwd) == -1)
		return (fail(p, "out of memory"));
	st->oldset = 1;
	st->oldunk = st->unknown;
	return (0);
}

/* A cd whose target this parser cannot tell. */
static int
cd_unknown(struct st *st, int stack)
{
	st->unknown = st->oldunk = st->oldset = 1;
	if (stack)
		st->stkunk = 1;
	return (0);
}

/*
 * Moves to a literal d.  A relative d that does not start with . may be
 * looked up in CDPATH, which an earlier command may have set; and an
 * assigned PWD moves where cd .. goes.
 */
static int
cd_go(struct ps *p, struct st *st, const char *d)
{
	if (d[0] == '\0' || d[0] == '-' || (d[0] != '/' && ((st->vars &&
	    !nocdpath(d)) || st->pwdvar)))
		return (cd_unknown(st, 0));
	if (set_old(p, st) == -1)
		return (-1);
	return (cd_set(p, st, d));
}

/* Swaps the directory with s (OLDPWD, or the top of the stack). */
static void
cd_swap(struct st *st, char **s, int *unk)
{
	char *t = st->cwd;
	int u = st->unknown;

	st->cwd = *s;
	st->unknown = *unk;
	*s = t;
	*unk = u;
}

/* popd, and pushd without an argument. */
static int
cd_stack(struct ps *p, struct st *st, const struct jh_sh_cmd *c, int push)
{
	struct dir *top;

	if (c->argc > 1 || c->nassign > 0 || st->stkunk || st->nstk == 0)
		return (cd_unknown(st, 1));
	if (set_old(p, st) == -1)
		return (-1);
	top = &st->stk[st->nstk - 1];
	cd_swap(st, &top->d, &top->unknown);
	if (!push) {
		free(top->d);
		st->nstk--;
	}
	return (0);
}

/* pushd DIR: the directory goes on the stack, then as cd DIR. */
static int
cd_push(struct ps *p, struct st *st, const char *d)
{
	struct dir *nd;

	if (d[0] == '+' || d[0] == '-')
		return (cd_unknown(st, 1));
	if ((nd = realloc(st->stk, (st->nstk + 1) * sizeof(*nd))) == NULL)
		return (fail(p, "out of memory"));
	st->stk = nd;
	nd = &st->stk[st->nstk];
	if (dupz(&nd->d, st->cwd) == -1)
		return (fail(p, "out of memory"));
	nd->unknown = st->unknown;
	st->nstk++;
	return (cd_go(p, st, d));
}

/*
 * A cd, pushd or popd run by this shell: `cd [-L|-P] [--] [DIR]', `cd
 * -', `pushd [DIR]' and `popd' are followed when what they go to is
 * known: a literal DIR, the home directory, the OLDPWD or the stack
 * entry this line left.
 */
static int
cd_update(struct ps *p, struct st *st, const struct jh_sh_cmd *c)
{
	const struct var *home;
	const char *name = c->argv[0].s, *d;
	size_t k = 1;

	st->changed++;
	if (strcmp(name, "popd") == 0)
		return (cd_stack(p, st, c, 0));
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
	} else if (k < c->argc && strcmp(c->argv[k].s, "--") == 0)
		k++;
	if (c->nassign > 0 || k + 1 < c->argc || (k < c->argc &&
	    c->argv[k].flags != 0))
		return (cd_unknown(st, name[0] == 'p'));
	if (k == c->argc && name[0] == 'p')
		return (cd_stack(p, st, c, 1));
	if (k == c->argc) {
		home = var_get(st, "HOME", 4);
		if (home == NULL || home->flags != 0 || home->val[0] != '/')
			return (cd_unknown(st, 0));
		return (cd_go(p, st, home->val));
	}
	d = c->argv[k].s;
	if (name[0] == 'p')
		return (cd_push(p, st, d));
	if (strcmp(d, "-") == 0) {
		if (!st->oldset || st->oldunk || st->unknown)
			return (cd_unknown(st, 0));
		cd_swap(st, &st->old, &st->oldunk);
		return (0);
	}
	return (cd_go(p, st, d));
}

/* Variables and builtins that set them. */


static int
valid_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !isname0((unsigned char)s[0]))
		return (0);
	for (i = 1; i < n; i++)
		if (!isnamec((unsigned char)s[i]))
			return (0);
	return (1);
}

/*
 * NAME=value (or NAME+=value): the value from now on when it is
 * literal; no glob or brace expansion applies in an assignment.
 */
static int
asg_apply(struct ps *p, struct st *st, const struct jh_sh_word *a,
    int exported)
{
	const char *eq = strchr(a->s, '=');
	size_t n;

	if (eq == NULL)
		return (0);
	n = (size_t)(eq - a->s);
	if (n > 0 && a->s[n - 1] == '+') {
		var_forget(st, a->s, n - 1);
		return (0);
	}
	if (!valid_name(a->s, n))
		return (0);
	if (a->flags & (JH_SHW_EXPAND | JH_SHW_TILDE)) {
		var_forget(st, a->s, n);
		return (0);
	}
	return (var_set(p, st, a->s, n, eq + 1, 0, exported));
}

static void
asg_forget(struct st *st, const struct jh_sh_word *a)
{
	const char *eq = strchr(a->s, '=');
	size_t n = eq != NULL ? (size_t)(eq - a->s) : 0;

	if (n > 0 && a->s[n - 1] == '+')
		n--;
	var_forget(st, a->s, n);
}

/*
 * export, local, declare, typeset: NAME=value and NAME operands.  An
 * option (-i, -n, -r, ...) may give a name an attribute that changes
 * what later assignments store: nothing is followed after it.
 */
static int
declare(struct ps *p, struct st *st, const struct jh_sh_cmd *c)
{
	const struct jh_sh_word *a;
	const char *eq;
	struct var *v;
	size_t k, n;
	int ex = strcmp(c->argv[0].s, "export") == 0;

	for (k = 1; k < c->argc; k++) {
		a = &c->argv[k];
		eq = strchr(a->s, '=');
		n = eq != NULL ? (size_t)(eq - a->s) : strlen(a->s);
		if (n > 0 && eq != NULL && a->s[n - 1] == '+')
			n--;
		if ((a->flags & JH_SHW_EXPAND) && !valid_name(a->s, n)) {
			st_clobber(st);
			return (0);
		}
		if (a->s[0] == '-' || a->s[0] == '+') {
			if (strcmp(a->s, "-p") == 0 || strcmp(a->s, "--") == 0)
				continue;
			/* -i: each later assignment is arithmetic */
			if (a->s[0] == '-' && strchr(a->s, 'i') != NULL)
				p->out->arith_unknown = 1;
			st_clobber(st);
			st->notrack = 1;
			return (0);
		}
		if (!valid_name(a->s, n)) {
			/* a[i++]=x evaluates the subscript */
			if (memchr(a->s, '[', n) != NULL)
				st_clobber(st);
			continue;
		}
		if (eq == NULL && ex && (v = var_get(st, a->s, n)) != NULL) {
			v->exported = 1;
			v->stamp = ++p->sh->gen;
		} else if (eq == NULL || a->flags != 0 || a->s[n] == '+')
			var_forget(st, a->s, n);
		else if (var_set(p, st, a->s, n, eq + 1, 0, ex ? 1 : -1) == -1)
			return (-1);
	}
	return (0);
}

/* read NAME..., unset NAME...: their names are no longer known. */
static void
forget_args(struct st *st, const struct jh_sh_cmd *c, int unset)
{
	struct fn *f;
	size_t k;

	for (k = 1; k < c->argc; k++) {
		/* read 'a[i++]' evaluates the subscript */
		if (c->argv[k].flags != 0 || strchr(c->argv[k].s, '[') != NULL) {
			st_clobber(st);
			if (unset)
				fn_poison_all(st);
			return;
		}
		var_forget(st, c->argv[k].s, strlen(c->argv[k].s));
		if (unset && (f = fn_get(st, c->argv[k].s)) != NULL) {
			f->poison = 1;
			f->stamp = 0;
		}
	}
}

/* What a simple command run by this shell changes in it. */
static int
effects(struct ps *p, struct st *st, const struct jh_sh_cmd *c)
{
	static const char *const clob[] = { "mapfile", "readarray",
		"getopts", "let", "wait", "readonly", NULL };
	const char *name;
	size_t k;

	if (c->argc == 0) {
		for (k = 0; k < c->nassign; k++)
			if (asg_apply(p, st, &c->assign[k], -1) == -1)
				return (-1);
		return (0);
	}
	/* a prefix assignment (kept after a special builtin in sh) */
	for (k = 0; k < c->nassign; k++)
		asg_forget(st, &c->assign[k]);
	name = c->argv[0].s;
	if (c->argv[0].flags != 0) {
		/* it may be any builtin, or run any code here */
		st_clobber(st);
		fn_poison_all(st);
		st->changed++;
		return (cd_unknown(st, 1));
	}
	if (strcmp(name, "source") == 0 || strcmp(name, ".") == 0) {
		/*
		 * It runs the file's code here, which may set anything and
		 * move anywhere.  What follows is listed in the directory
		 * it would be in had the file not moved, and marked: that
		 * holds only where the file's code is the project's, which
		 * could do whatever follows itself (jh_shell_effects).
		 */
		st_clobber(st);
		fn_poison_all(st);
		st->sourced = 1;
		st->oldunk = st->oldset = st->stkunk = 1;
		return (0);
	}
	if (strcmp(name, "export") == 0 || strcmp(name, "local") == 0 ||
	    strcmp(name, "declare") == 0 || strcmp(name, "typeset") == 0)
		return (declare(p, st, c));
	if (strcmp(name, "read") == 0 || strcmp(name, "unset") == 0)
		forget_args(st, c, name[0] == 'u');
	else if (inlist(name, clob)) {
		st_clobber(st);
		st->notrack |= name[0] == 'r';
	} else if (strcmp(name, "dirs") == 0 && c->argc > 1)
		st->stkunk = 1;
	for (k = 1; k < c->argc && strcmp(name, "printf") == 0; k++)
		if (strncmp(c->argv[k].s, "-v", 2) == 0 ||
		    c->argv[k].flags != 0)
			st_clobber(st);
	return (0);
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

/*
 * /usr/bin/time, GNU time the program, not bash's keyword; its -o FILE,
 * a write this list does not follow, stays refused.
 */
static const char *const l_gtime[] = { "portability", "verbose", "quiet",
	"format=", NULL };
static const struct wrap gnu_time = { "time", "pvq", "f", "", l_gtime, 0,
	0 };

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
	c->flags = cflags | (st->unknown ? JH_SHC_CWD_UNKNOWN : 0) |
	    (st->sourced ? JH_SHC_CWD_SOURCED : 0);
	if (st->cwd != NULL && (c->cwd = strdup(st->cwd)) == NULL)
		return (fail(p, "out of memory"));
	return (0);
}

/*
 * A command whose body is listed in its place (sh -c, a function): its
 * assignments and redirections are listed as a command with no words,
 * so that an empty body still shows them.  c keeps its assignments.
 */
static int
pre_cmd(struct ps *p, const struct st *st, struct jh_sh_cmd *c,
    const struct ectx *x)
{
	struct jh_sh_cmd pc;
	size_t idx;
	int r = 0;

	if (c->nassign == 0 && c->nredir == 0)
		return (0);
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
	if (r == 0)
		hd_place(p, x->serial, idx);
	return (r);
}

/*
 * What a child shell starts with: the exported values, its own
 * assignments, no function, an empty stack.  Under a wrapper (env -i,
 * env -u) the environment is not known.
 */
static int
st_child(struct ps *p, struct st *d, const struct st *s,
    const struct jh_sh_cmd *c, int cflags)
{
	size_t k;

	if (st_copy(p, d, s) == -1)
		return (-1);
	for (k = 0; k < d->nv;)
		if (!d->v[k].exported || (cflags & JH_SHC_WRAPPED))
			var_del(d, k);
		else
			k++;
	while (d->nf > 0)
		free(d->f[--d->nf].name);
	while (d->nstk > 0)
		free(d->stk[--d->nstk].d);
	d->stkunk = 0;
	d->oldunk = d->oldset = 1;
	for (k = 0; k < c->nassign; k++)
		if (asg_apply(p, d, &c->assign[k], 1) == -1) {
			st_free(d);
			return (-1);
		}
	return (0);
}

/*
 * `sh -c BODY': the body's commands are listed instead of the shell, in
 * a shell of their own (a cd in it stays there).  The shell's
 * assignments (LD_PRELOAD, BASH_ENV) are put in front of every one of
 * them.
 */
static int
run_shell(struct ps *p, struct st *st, struct jh_sh_cmd *c, size_t bi,
    const struct ectx *x)
{
	const struct jh_sh_word *body = &c->argv[bi];
	const char *s;
	struct ps q;
	struct st sub;
	size_t m;
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
	if (pre_cmd(p, st, c, x) == -1) {
		cmd_free(c);
		p->depth--;
		return (-1);
	}
	ps_child(&q, p, body->s, body->len, x->cflags);
	s = strrchr(c->argv[0].s, '/');
	s = s != NULL ? s + 1 : c->argv[0].s;
	q.dialect = strcmp(s, "bash") == 0 ? SH_BASH : strcmp(s, "zsh") == 0 ?
	    SH_ZSH : SH_POSIX;
	m = p->out->n;
	if ((r = st_child(&q, &sub, st, c, x->cflags)) == 0) {
		r = list(&q, &sub, 0);
		if (r >= 0)
			r = hd_end(&q);
		st_free(&sub);
	}
	hd_clear(&q);
	if (r >= 0)
		r = prepend_env(p, m, c->assign, c->nassign);
	cmd_free(c);
	p->depth--;
	return (r);
}

/* Builtins that run strings as code: fc re-runs history, compgen -W
 * expands a word list, -C and -F run commands. */
static const char *const refused[] = { "eval", "alias", "coproc",
	"function", "fc", "compgen", "select", NULL };
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
	"[", "mapfile", "readarray", "getopts", "wait", "[[", NULL };
/* Names a function may not take: keywords, POSIX special builtins (found
 * before functions in sh), and hooks a shell calls by itself. */
static const char *const nofname[] = { "time", "coproc", "break", ":",
	".", "continue", "eval", "exec", "exit", "export", "readonly",
	"return", "set", "shift", "times", "trap", "unset", "in",
	"command_not_found_handle", "command_not_found_handler", "precmd",
	"preexec", "chpwd", "periodic", "zshexit", "zshaddhistory", NULL };

/*
 * A literal assignment value that bash may still run as code: a
 * subscript with $ or ` in an arithmetic variable (`RANDOM='a[$(cmd)]''
 * runs cmd), or $( ) and ` kept for PS4, ${x@P} or eval-like use.
 */
static int
check_assign(struct ps *p, const struct jh_sh_cmd *c)
{
	const char *s, *e;
	size_t k;

	for (k = 0; k < c->nassign; k++) {
		s = c->assign[k].s;
		/* a[PATH=0]=x: the subscript is arithmetic */
		if (s[strcspn(s, "[=")] == '[' && (e = strstr(s, "]=")) !=
		    NULL && arith_guard(p, s, (size_t)(e - s)) == -1)
			return (-1);
		if (c->assign[k].flags == 0 && (strstr(s, "$(") != NULL ||
		    strchr(s, '`') != NULL || (strchr(s, '[') != NULL &&
		    strchr(s, '$') != NULL)))
			return (fail(p, "assignment value that bash may run "
			    "as code"));
	}
	return (0);
}

/* `[ -v 'a[$(cmd)]' ]' runs cmd: so do other builtins that evaluate a
 * subscript in an argument. */
static int
check_subscripts(struct ps *p, const struct jh_sh_cmd *c)
{
	const char *s;
	size_t k;

	for (k = 1; k < c->argc && inlist(c->argv[0].s, subscript); k++) {
		s = c->argv[k].s;
		if (strchr(s, '[') != NULL && (strchr(s, '$') != NULL ||
		    strchr(s, '`') != NULL))
			return (jh_errf(p->e, "array subscript with $ or ` in "
			    "an argument of %s", c->argv[0].s));
	}
	return (0);
}

/*
 * The names a builtin sets without an assignment word: read's and
 * mapfile's operands, printf -v and print -v, getopts' name.  Values of
 * options that take one are skipped.
 */
static int
check_setters(struct ps *p, const struct jh_sh_cmd *c)
{
	static const char *const valued[] = { "read", "dinNptu",
		"mapfile", "dnOsuc", "readarray", "dnOsuc", NULL };
	const char *name = c->argv[0].s, *vals = NULL, *a;
	size_t k, i, n;
	int opts = 1, skip = 0;

	for (i = 0; valued[i] != NULL; i += 2)
		if (strcmp(name, valued[i]) == 0)
			vals = valued[i + 1];
	if (vals != NULL || strcmp(name, "getopts") == 0)
		for (k = strcmp(name, "getopts") == 0 ? 2 : 1; k < c->argc;
		    k++) {
			a = c->argv[k].s;
			if (skip) {
				skip = 0;
				continue;
			}
			if (opts && vals != NULL && a[0] == '-' && a[1] != '\0') {
				if (strcmp(a, "--") == 0)
					opts = 0;
				/* -d X: the value is the next word, or the rest */
				else if (strchr(vals, a[strlen(a) - 1]) != NULL)
					skip = 1;
				continue;
			}
			opts = 0;
			if (c->argv[k].flags & JH_SHW_EXPAND)
				return (jh_errf(p->e, "the name %s sets is only "
				    "known when it runs", name));
			n = strcspn(a, "[");
			if (guarded_name(p, a, n))
				return (refuse_set(p, name, a, n));
		}
	/* printf -v NAME, print -v NAME (zsh), -vNAME */
	if (strcmp(name, "printf") == 0 || strcmp(name, "print") == 0)
		for (k = 1; k < c->argc && c->argv[k].s[0] == '-'; k++) {
			a = c->argv[k].s;
			if (strcmp(a, "--") == 0)
				break;
			if (strchr(a, 'v') == NULL)
				continue;
			if (a[strlen(a) - 1] == 'v' && k + 1 < c->argc &&
			    (c->argv[k + 1].flags & JH_SHW_EXPAND))
				return (jh_errf(p->e, "the name %s -v sets is "
				    "only known when it runs", name));
			a = a[strlen(a) - 1] == 'v' ? (k + 1 < c->argc ?
			    c->argv[k + 1].s : "") : strchr(a, 'v') + 1;
			n = strcspn(a, "[");
			if (guarded_name(p, a, n))
				return (refuse_set(p, name, a, n));
		}
	/* let EXPR...: arithmetic */
	for (k = 1; k < c->argc && strcmp(name, "let") == 0; k++) {
		if (arith_guard(p, c->argv[k].s, strlen(c->argv[k].s)) == -1)
			return (-1);
		arith_values(p, NULL, c->argv[k].s, strlen(c->argv[k].s));
	}
	/* hash -p FILE NAME (bash), hash NAME=FILE (zsh): NAME runs FILE */
	for (k = 1; k < c->argc && strcmp(name, "hash") == 0; k++)
		if ((c->argv[k].s[0] == '-' && strchr(c->argv[k].s, 'p') !=
		    NULL) || strchr(c->argv[k].s, '=') != NULL)
			return (fail(p, "hash with a path makes a name run a "
			    "file: not supported"));
	/* declare -n X=PATH: assigning X assigns PATH */
	for (k = 1; k < c->argc && (strcmp(name, "declare") == 0 ||
	    strcmp(name, "typeset") == 0 || strcmp(name, "local") == 0); k++)
		if (c->argv[k].s[0] == '-' && strchr(c->argv[k].s, 'n') !=
		    NULL)
			return (jh_errf(p->e, "%s -n (a name reference) is not "
			    "supported", name));
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
	if (check_subscripts(p, c) == -1 || check_setters(p, c) == -1)
		return (-1);
	/* an exported function reaches child shells unlisted */
	for (k = 1; k < c->argc && (strcmp(name, "export") == 0 ||
	    strcmp(name, "declare") == 0 || strcmp(name, "typeset") == 0);
	    k++)
		if (c->argv[k].s[0] == '-' && strchr(c->argv[k].s, 'f') !=
		    NULL)
			return (jh_errf(p->e, "%s -f is not supported", name));
	/* enable -n turns cd, read, ... into programs */
	for (k = 1; k < c->argc && strcmp(name, "enable") == 0; k++)
		if (c->argv[k].s[0] == '-' && strchr(c->argv[k].s, 'n'))
			return (fail(p, "enable -n is not supported"));
	/*
	 * set -k moves later NAME=value arguments into the environment;
	 * set -H (with history) makes later lines' !! run other commands.
	 */
	for (k = 1; k < c->argc && strcmp(name, "set") == 0; k++) {
		s = c->argv[k].s;
		/* set -a exports the functions defined after it */
		if ((s[0] == '-' && s[1] != '-' && strchr(s, 'a') != NULL) ||
		    (strcmp(s, "allexport") == 0 && strcmp(c->argv[k - 1].s,
		    "-o") == 0))
			p->allexport = 1;
		if ((s[0] == '-' && s[1] != '-' && strpbrk(s, "kH") != NULL) ||
		    (inlist(s, setopts) && strcmp(c->argv[k - 1].s, "-o") == 0))
			return (jh_errf(p->e, "set %s%s is not supported",
			    s[0] == '-' ? "" : "-o ", s));
	}
	return (0);
}

/*
 * A call of a function the line defined: its body is listed here, in
 * this shell (a ( ) body in a subshell), with the call's assignments
 * in front of every command.  What the body changes is not known after
 * it (it may return early, and local values end with it).
 */
static int
call_fn(struct ps *p, struct st *st, struct jh_sh_cmd *c, const struct fn *f,
    const struct ectx *x)
{
	const char *body = f->body;
	size_t len = f->len, m, k;
	struct st snap, sub, *run = st;
	struct ps q;
	unsigned c0 = st->changed;
	int sh = f->sub, r, i;

	for (i = 0; i < p->sh->ncalls; i++)
		if (p->sh->calls[i] == body) {
			cmd_free(c);
			return (fail(p, "recursive function call"));
		}
	if (enter(p) == -1 || (p->sh->copied += len) > SH_MAX_COPY) {
		cmd_free(c);
		return (p->depth > SH_MAX_DEPTH ? -1 : fail(p,
		    "command too complex"));
	}
	if ((r = pre_cmd(p, st, c, x)) == 0)
		r = st_copy(p, &snap, st);
	if (r == -1) {
		cmd_free(c);
		p->depth--;
		return (-1);
	}
	for (k = 0; r == 0 && k < c->nassign; k++)
		r = asg_apply(p, st, &c->assign[k], -1);
	if (r == 0 && sh && (r = st_copy(p, &sub, st)) == 0)
		run = &sub;
	ps_child(&q, p, body, len, x->cflags);
	p->sh->calls[p->sh->ncalls++] = body;
	m = p->out->n;
	if (r == 0 && (r = list(&q, run, 0)) >= 0)
		r = hd_end(&q);
	hd_clear(&q);
	p->sh->ncalls--;
	if (sh && run == &sub)
		st_free(&sub);
	if (r >= 0)
		r = prepend_env(p, m, c->assign, c->nassign);
	if (r >= 0 && (r = st_join(p, &snap, st)) == 0) {
		if (snap.changed != c0)
			snap.unknown = 1;
		st_free(st);
		*st = snap;
	} else
		st_free(&snap);
	cmd_free(c);
	p->depth--;
	return (r < 0 ? -1 : 0);
}

/*
 * What a wrapper (env, nice, timeout, xargs, ...) or find -exec runs
 * with c: in[0..*nin), none when it runs nothing or only looks up.
 */
static int
inner_cmds(struct ps *p, const struct jh_sh_cmd *c, const struct ectx *x,
    struct inner *in, size_t *nin)
{
	const struct wrap *w = NULL;
	const char *name = c->argv[0].s, *base = strrchr(name, '/');
	size_t j, k;
	int lookup = 0;

	/* /usr/bin/env rm ... is env rm ...: a program by its path */
	base = base != NULL ? base + 1 : name;
	*nin = 0;
	for (k = 0; k < sizeof(wraps) / sizeof(wraps[0]); k++)
		if (strcmp(base, wraps[k].name) == 0)
			w = &wraps[k];
	if (w != NULL && strcmp(base, "time") == 0 && base != name)
		w = &gnu_time;
	if (w != NULL) {
		memset(&in[0], 0, sizeof(in[0]));
		if (wrap_opts(p, w, c, &in[0], &lookup) == -1)
			return (-1);
		/* dash has no builtin, and its time is a program */
		in[0].inshell = (w->kind & W_INSHELL) != 0 && base == name &&
		    (p->dialect != SH_POSIX || strcmp(name, "command") == 0);
		if (w->kind & W_XARGS) {
			in[0].flags = JH_SHC_OPENARGS;
			in[0].echo = in[0].a == c->argc;
		}
		*nin = in[0].a < c->argc || in[0].echo ? 1 : 0;
		if (lookup)
			*nin = 0;
		if (*nin == 0 && (w->kind & W_EXEC))
			return (fail(p, "exec without a command is not "
			    "supported"));
		/* the run-time arguments would become the command */
		if (*nin == 0 && !lookup && (x->cflags & JH_SHC_OPENARGS))
			return (fail(p, "run-time arguments to a wrapper"));
	} else if (strcmp(base, "find") == 0) {
		if (x->cflags & JH_SHC_OPENARGS)
			return (fail(p, "run-time arguments to find"));
		if (find_execs(p, c, in, nin) == -1)
			return (-1);
	}
	for (j = 0; x->repl != NULL && j < *nin; j++)
		for (k = 1; k < in[j].a; k++)
			if (strstr(c->argv[k].s, x->repl) != NULL)
				return (fail(p, "a wrapper argument is filled "
				    "in at run time"));
	return (0);
}

/*
 * Lists what a wrapper runs, taking ic[0..nin): in this shell when the
 * wrapper is a builtin, else with a copy of the state (a cd under an
 * external wrapper changes nothing here).
 */
static int
emit_inner(struct ps *p, struct st *st, struct jh_sh_cmd *ic,
    const struct inner *in, size_t nin, const struct ectx *x, int nofunc)
{
	struct ectx ix;
	struct st sub;
	size_t j;
	int r = 0;

	for (j = 0; j < nin; j++) {
		ix = *x;
		ix.cflags |= JH_SHC_WRAPPED | in[j].flags;
		ix.inshell = x->inshell && in[j].inshell;
		ix.nofunc = nofunc;
		ix.serial = 0;
		if (in[j].repl != NULL)
			ix.repl = in[j].repl;
		if (ix.inshell) {
			if ((r = emit(p, st, &ic[j], &ix)) == -1)
				break;
			continue;
		}
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
	return (r);
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
	const struct fn *f;
	size_t nin = 0, bi, idx, j;
	int r, cd = 0, nofunc = 0;

	memset(ic, 0, sizeof(ic));
	if (check_assign(p, c) == -1)
		goto err;
	if (c->argc > 0 && c->argv[0].flags == 0 && x->inshell &&
	    !x->nofunc && (f = fn_get(st, c->argv[0].s)) != NULL) {
		if (f->poison) {
			jh_errf(p->e, "function %.64s may or may not be "
			    "defined here", c->argv[0].s);
			goto err;
		}
		return (call_fn(p, st, c, f, x));
	}
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
		if (inner_cmds(p, c, x, in, &nin) == -1)
			goto err;
		cd = x->inshell && (strcmp(name, "cd") == 0 ||
		    strcmp(name, "pushd") == 0 || strcmp(name, "popd") == 0);
		nofunc = strcmp(name, "command") == 0 ||
		    strcmp(name, "builtin") == 0;
	}
	for (j = 0; j < nin; j++)
		if (make_inner(p, &ic[j], c, &in[j]) == -1)
			goto err;
	if (set_cwd(p, c, st, x->cflags) == -1)
		goto err;
	if (push_cmd(p, c, &idx) == -1)
		goto err;
	hd_place(p, x->serial, idx);
	if (cd && cd_update(p, st, &p->out->cmd[idx]) == -1)
		goto err;
	if (x->inshell && effects(p, st, &p->out->cmd[idx]) == -1)
		goto err;
	if (nin > 0 && enter(p) == -1)
		goto err;
	r = emit_inner(p, st, ic, in, nin, x, nofunc);
	if (nin > 0)
		p->depth--;
	return (r);
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

/* Reserved words, where a command may start. */
enum { K_NONE, K_IF, K_THEN, K_ELIF, K_ELSE, K_FI, K_WHILE, K_UNTIL,
	K_FOR, K_DO, K_DONE, K_CASE, K_ESAC, K_SELECT, K_FUNCTION, K_DBRACK,
	K_IN };
static const char *const kwnames[] = { "", "if", "then", "elif", "else",
	"fi", "while", "until", "for", "do", "done", "case", "esac",
	"select", "function", "[[", "in", NULL };

/*
 * The reserved word at p->i, which ends at *end.  One followed by ( is
 * not taken: bash would take it, zsh does not.
 */
static int
kw(const struct ps *p, size_t *end)
{
	size_t j, k;
	int i, c;

	for (i = 1; kwnames[i] != NULL; i++) {
		for (j = p->i, k = 0; kwnames[i][k] != '\0' &&
		    ch(p, j) == (unsigned char)kwnames[i][k]; k++)
			j = cont(p, j + 1);
		c = ch(p, j);
		if (kwnames[i][k] == '\0' && meta(c) && c != '(') {
			*end = j;
			return (i);
		}
	}
	return (K_NONE);
}

/* The T_* a closing reserved word is, or 0. */
static int
kw_term(int k)
{
	static const int t[] = { 0, 0, T_THEN, T_ELIF, T_ELSE, T_FI, 0, 0,
		0, T_DO, T_DONE, 0, T_ESAC, 0, 0, 0, 0 };

	return (t[k]);
}

/* Where a part that is parsed again, or listed elsewhere, starts. */
struct mark {
	size_t i, m, nhd;
	unsigned hdgen;
};

static void
mark(const struct ps *p, struct mark *k)
{
	k->i = p->i;
	k->m = p->out->n;
	k->nhd = p->nhd;
	k->hdgen = p->hdgen;
}

/*
 * The part from k to here is parsed again (a loop body) or stands for
 * itself (a function body): it may neither read the body of a
 * here-document that started before it nor leave one to read after it.
 * drop: what it listed goes.
 */
static int
region_end(struct ps *p, const struct mark *k, int drop)
{
	if ((k->nhd > 0 && p->hdgen != k->hdgen) || p->nhd > k->nhd)
		return (fail(p, "here-document across the end of a loop or "
		    "function body"));
	if ((p->sh->copied += p->i - k->i) > SH_MAX_COPY)
		return (fail(p, "command too complex"));
	while (drop && p->out->n > k->m)
		cmd_free(&p->out->cmd[--p->out->n]);
	return (0);
}

/* Lists a command of words v[0..n) that no wrapper or function can be. */
static int
push_kw(struct ps *p, const struct st *st, struct jh_sh_word *v, size_t n)
{
	struct jh_sh_cmd c;
	size_t idx;

	memset(&c, 0, sizeof(c));
	if ((c.argv = calloc(n, sizeof(*c.argv))) == NULL) {
		while (n > 0)
			free(v[--n].s);
		return (fail(p, "out of memory"));
	}
	memcpy(c.argv, v, n * sizeof(*v));
	c.argc = n;
	if (check_subscripts(p, &c) == -1 || set_cwd(p, &c, st,
	    p->cflags) == -1) {
		cmd_free(&c);
		return (-1);
	}
	return (push_cmd(p, &c, &idx));
}

/*
 * The inside of (( ... )), from p->i at the first (; p->i ends after
 * the )).  bash evaluates subscripts and expansions in it recursively,
 * which can run code: $( , ` and [ are refused, and so is what does not
 * look like arithmetic at all (then it may be a subshell in a subshell).
 */
static int
arith_span(struct ps *p, size_t *a, size_t *b, int semis)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \t+-*/%<>=!&|^~?:,.$#{}";
	size_t j = cont(p, p->i + 1) + 1;
	int depth = 0, c;

	for (*a = j;; j++) {
		c = ch(p, j);
		if (c == -1)
			return (fail(p, "unterminated (("));
		if (c == ')' && depth == 0) {
			if (ch(p, j + 1) != ')')
				return (fail(p, "(( ... ) that is not "
				    "arithmetic"));
			*b = j;
			p->i = j + 2;
			return (0);
		}
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		else if ((c == '$' && ch(p, j + 1) == '(') ||
		    (c == ';' && !semis) || (c != ';' && strchr(ok, c) == NULL))
			return (fail(p, "(( )) holding $(, `, [ or quotes "
			    "(bash may run code in it)"));
	}
}

/*
 * Lists (( expr )) as the command `((' with one word, the expression;
 * it may assign any variable.  Blank and empty: nothing, unless always.
 */
static int
arith_emit(struct ps *p, struct st *st, const char *s, size_t n, int always)
{
	struct jh_sh_word v[2];

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 && !always)
		return (0);
	if (arith_guard(p, s, n) == -1)
		return (-1);
	arith_values(p, st, s, n);
	if (word_set(p, &v[0], "((", 2, 0) == -1)
		return (-1);
	if (word_set(p, &v[1], s, n, memchr(s, '$', n) != NULL ?
	    JH_SHW_EXPAND : 0) == -1) {
		free(v[0].s);
		return (-1);
	}
	st_clobber(st);
	return (push_kw(p, st, v, 2));
}

/* After a compound command: a cd inside leaves the directory unknown. */
static int
compound_end(struct ps *p, struct st *st, unsigned c0)
{
	if (st->changed != c0)
		st->unknown = 1;
	return (redirs_after(p, st));
}

/* acc := b the first time, join(acc, b) then; b is taken. */
static int
acc_add(struct ps *p, struct st *acc, int *have, struct st *b)
{
	if (*have)
		return (st_merge(p, acc, b));
	*acc = *b;
	memset(b, 0, sizeof(*b));
	*have = 1;
	return (0);
}

static int
need(struct ps *p, int r, const char *what)
{
	if (r == 0)
		return (jh_errf(p->e, "empty %s", what));
	return (r < 0 ? -1 : 0);
}

/*
 * if LIST; then LIST; [elif LIST; then LIST;]... [else LIST;] fi: every
 * branch is listed, each from the state its condition left; after fi,
 * what any branch (or no branch) left.
 */
static int
c_if(struct ps *p, struct st *st, size_t end)
{
	struct st acc, b;
	unsigned c0 = st->changed;
	int have = 0, stop;

	p->i = end;
	for (;;) {
		if (need(p, list(p, st, T_THEN), "if condition") == -1)
			goto err;
		p->i = p->kwend;
		if (st_copy(p, &b, st) == -1)
			goto err;
		if (need(p, list(p, &b, T_ELIF | T_ELSE | T_FI),
		    "then branch") == -1) {
			st_free(&b);
			goto err;
		}
		stop = p->stop;
		p->i = p->kwend;
		if (acc_add(p, &acc, &have, &b) == -1)
			goto err;
		if (stop == T_ELIF)
			continue;
		if (stop == T_ELSE) {
			if (st_copy(p, &b, st) == -1)
				goto err;
			if (need(p, list(p, &b, T_FI), "else branch") == -1 ||
			    st_merge(p, &acc, &b) == -1) {
				st_free(&b);
				goto err;
			}
			p->i = p->kwend;
		} else if (st_join(p, &acc, st) == -1)
			goto err;
		break;
	}
	st_free(st);
	*st = acc;
	return (compound_end(p, st, c0));
err:
	if (have)
		st_free(&acc);
	return (-1);
}

/* A loop: while or until, for NAME, or for (( ; ; )). */
struct loop {
	int kind;		/* K_WHILE (until too), K_FOR, 0: (( ; ; )) */
	char name[SH_MAX_NAME];
	struct wv w;		/* for: its words */
	int unknown;		/* for: the words are not known */
	struct jh_sh_word ar[2];	/* (( ; ; )): the test and the step */
};

/*
 * One round from the loop's start up to done: the condition and the
 * body; *ac gets the state after the condition (the loop may end there).
 */
static int
loop_round(struct ps *p, struct st *st, const struct loop *l,
    struct st *ac)
{
	if (l->kind == K_WHILE) {
		if (need(p, list(p, st, T_DO), "loop condition") == -1)
			return (-1);
		p->i = p->kwend;
	} else if (l->kind == 0 && arith_emit(p, st, l->ar[0].s,
	    l->ar[0].len, 0) == -1)
		return (-1);
	if (ac != NULL && st_copy(p, ac, st) == -1)
		return (-1);
	if (need(p, list(p, st, T_DONE), "loop body") == -1 ||
	    (l->kind == 0 && arith_emit(p, st, l->ar[1].s, l->ar[1].len,
	    0) == -1)) {
		if (ac != NULL)
			st_free(ac);
		return (-1);
	}
	return (0);
}

/*
 * The state every round of a loop may start in: what holds before it
 * and after any number of rounds.  Rounds are parsed and dropped until
 * it no longer changes.
 */
static int
loop_head(struct ps *p, struct st *h, const struct loop *l,
    const struct mark *mk)
{
	struct st e, j;
	int round, r;

	for (round = 0; round < SH_MAX_FIX; round++) {
		if (st_copy(p, &e, h) == -1)
			return (-1);
		r = loop_round(p, &e, l, NULL);
		if (r == 0)
			r = region_end(p, mk, 1);
		p->i = mk->i;
		if (r == 0 && (r = st_copy(p, &j, h)) == 0 &&
		    (r = st_join(p, &j, &e)) == -1)
			st_free(&j);
		st_free(&e);
		if (r == -1)
			return (-1);
		if (l->kind == K_FOR)
			var_forget(&j, l->name, strlen(l->name));
		if (st_same(&j, h)) {
			st_free(&j);
			return (0);
		}
		st_free(h);
		*h = j;
	}
	return (fail(p, "loop too complex"));
}

/*
 * Lists a loop: a for loop once for each of its words with the
 * variable bound to it (the word's flags go with it), or once with the
 * variable unknown; other loops once.
 */
static int
loop_run(struct ps *p, struct st *st, struct loop *l)
{
	struct st h, e, ac, acc;
	struct mark mk;
	unsigned c0 = st->changed;
	size_t it, n, nl = strlen(l->name);
	int r = 0, bind = l->kind == K_FOR && !l->unknown && l->w.n > 0;

	mark(p, &mk);
	if (st_copy(p, &h, st) == -1)
		return (-1);
	var_forget(&h, l->name, nl);
	if (loop_head(p, &h, l, &mk) == -1 || st_copy(p, &acc, &h) == -1) {
		st_free(&h);
		return (-1);
	}
	n = bind ? l->w.n : 1;
	for (it = 0; r == 0 && it < n; it++) {
		p->i = mk.i;
		if ((r = st_copy(p, &e, &h)) == -1)
			break;
		if (bind)
			r = var_set(p, &e, l->name, nl, l->w.v[it].s,
			    l->w.v[it].flags & (JH_SHW_GLOB | JH_SHW_BRACE |
			    JH_SHW_TILDE), -1);
		if (r == 0)
			r = loop_round(p, &e, l, l->kind != K_FOR ? &ac : NULL);
		if (r == 0 && it + 1 < n)
			r = region_end(p, &mk, 0);
		if (r == 0)
			r = st_merge(p, &acc, l->kind != K_FOR ? &ac : &e);
		st_free(&e);
	}
	st_free(&h);
	if (r == -1) {
		st_free(&acc);
		return (-1);
	}
	p->i = p->kwend;
	var_forget(&acc, l->name, nl);
	st_free(st);
	*st = acc;
	return (compound_end(p, st, c0));
}

static int
c_while(struct ps *p, struct st *st, size_t end)
{
	struct loop l;

	memset(&l, 0, sizeof(l));
	l.kind = K_WHILE;
	p->i = end;
	return (loop_run(p, st, &l));
}

/* After the header of a for loop: [;] [newlines] do. */
static int
for_do(struct ps *p)
{
	size_t end;

	if (skip(p, 0) == -1)
		return (-1);
	if (ch(p, p->i) == ';')
		p->i++;
	if (skip(p, 1) == -1)
		return (-1);
	if (kw(p, &end) != K_DO)
		return (fail(p, "for without do"));
	p->i = end;
	return (0);
}

/* for (( INIT; TEST; STEP )) do BODY; done */
static int
c_arith_for(struct ps *p, struct st *st)
{
	struct loop l;
	size_t a, b, k, semi[2], ns = 0;
	int depth = 0, r = -1;

	memset(&l, 0, sizeof(l));
	if (arith_span(p, &a, &b, 1) == -1)
		return (-1);
	for (k = a; k < b; k++) {
		depth += p->s[k] == '(' ? 1 : p->s[k] == ')' ? -1 : 0;
		if (p->s[k] == ';' && depth == 0 && ns < 2)
			semi[ns++] = k;
		else if (p->s[k] == ';')
			return (fail(p, "for (( )) needs two ;"));
	}
	if (ns != 2)
		return (fail(p, "for (( )) needs two ;"));
	if (arith_emit(p, st, p->s + a, semi[0] - a, 0) == -1 ||
	    word_set(p, &l.ar[0], p->s + semi[0] + 1, semi[1] - semi[0] - 1,
	    0) == -1)
		return (-1);
	if (word_set(p, &l.ar[1], p->s + semi[1] + 1, b - semi[1] - 1,
	    0) == 0 && for_do(p) == 0)
		r = loop_run(p, st, &l);
	free(l.ar[0].s);
	free(l.ar[1].s);
	return (r);
}

/* for NAME [in WORD...]; do BODY; done */
static int
c_for(struct ps *p, struct st *st, size_t end)
{
	struct loop l;
	struct wsc w;
	struct jh_sh_word word;
	size_t n = 0, e2;
	int c, r = -1;

	memset(&l, 0, sizeof(l));
	l.kind = K_FOR;
	p->i = end;
	if (skip(p, 0) == -1)
		return (-1);
	if (ch(p, p->i) == '(' && nextc(p, p->i) == '(')
		return (c_arith_for(p, st));
	for (; isnamec(ch(p, p->i)); p->i = cont(p, p->i + 1))
		if (n + 1 < sizeof(l.name))
			l.name[n++] = p->s[p->i];
	if (n == 0 || n + 1 >= sizeof(l.name) || isdig(l.name[0]) ||
	    !meta(ch(p, p->i)))
		return (fail(p, "for without a variable name"));
	if (guarded_name(p, l.name, n))
		return (refuse_set(p, "for", l.name, n));
	if (skip(p, 0) == -1)
		return (-1);
	l.unknown = 1;
	if (ch(p, p->i) != ';' && skip(p, 1) == 0 && kw(p, &e2) == K_IN) {
		p->i = e2;
		l.unknown = 0;
		for (;;) {
			if (skip(p, 0) == -1)
				goto out;
			c = ch(p, p->i);
			if (c == ';' || c == '\n')
				break;
			if (meta(c)) {
				fail(p, "syntax error in a for word list");
				goto out;
			}
			wsc_init(&w);
			if (scan_word(p, st, &w) == -1 ||
			    word_take(p, &word, &w) == -1) {
				jh_buf_free(&w.b);
				goto out;
			}
			l.unknown |= (word.flags & JH_SHW_EXPAND) != 0;
			if (wv_push(p, &l.w, &word) == -1)
				goto out;
		}
	}
	if (l.w.n > SH_MAX_FOR)
		l.unknown = 1;
	if (for_do(p) == 0)
		r = loop_run(p, st, &l);
out:
	words_free(l.w.v, l.w.n);
	return (r);
}

/* A case word or pattern: its substitutions run, it is not listed. */
static int
case_word(struct ps *p, struct st *st)
{
	struct wsc w;
	int r;

	if (skip(p, 0) == -1)
		return (-1);
	if (meta(ch(p, p->i)))
		return (fail(p, "syntax error in case"));
	wsc_init(&w);
	r = scan_word(p, st, &w);
	jh_buf_free(&w.b);
	return (r == -1 ? -1 : skip(p, 0));
}

/* After a case body: ;; (0), or ;& and ;;& (1: the next body may run). */
static int
case_sep(struct ps *p)
{
	p->i = cont(p, p->i + 1);
	if (ch(p, p->i) == '&') {
		p->i++;
		return (1);
	}
	p->i = cont(p, p->i + 1);
	if (ch(p, p->i) == '&') {
		p->i++;
		return (1);
	}
	return (0);
}

/* One PATTERN[|PATTERN]...) clause's patterns. */
static int
case_pats(struct ps *p, struct st *st)
{
	int c;

	if (ch(p, p->i) == '(')
		p->i++;
	for (;;) {
		if (case_word(p, st) == -1)
			return (-1);
		c = ch(p, p->i);
		p->i++;
		if (c == ')')
			return (0);
		if (c != '|')
			return (fail(p, "syntax error in a case pattern"));
	}
}

/*
 * case WORD in [(]PATTERN[|PATTERN]...) LIST ;; ... esac: every body is
 * listed (no pattern is matched here), from the state before it or,
 * after ;& or ;;&, also from the one the body before left.
 */
static int
c_case(struct ps *p, struct st *st, size_t end)
{
	struct st acc, b, prev;
	unsigned c0 = st->changed;
	size_t e2;
	int have = 0, ft = 0, stop;

	memset(&prev, 0, sizeof(prev));
	p->i = end;
	if (case_word(p, st) == -1 || skip(p, 1) == -1)
		return (-1);
	if (kw(p, &e2) != K_IN)
		return (fail(p, "case without in"));
	p->i = e2;
	for (;;) {
		if (skip(p, 1) == -1)
			goto err;
		if (kw(p, &e2) == K_ESAC) {
			p->i = e2;
			break;
		}
		if (case_pats(p, st) == -1 || st_copy(p, &b, st) == -1)
			goto err;
		if ((ft && st_join(p, &b, &prev) == -1) ||
		    list(p, &b, T_DSEMI | T_ESAC) == -1) {
			st_free(&b);
			goto err;
		}
		st_free(&prev);
		stop = p->stop;
		e2 = p->kwend;
		ft = stop == T_DSEMI ? case_sep(p) : 0;
		if ((ft && st_copy(p, &prev, &b) == -1) ||
		    acc_add(p, &acc, &have, &b) == -1) {
			st_free(&b);
			goto err;
		}
		if (stop == T_ESAC) {
			p->i = e2;
			break;
		}
	}
	st_free(&prev);
	if (have) {
		if (st_merge(p, st, &acc) == -1)
			return (-1);
	}
	return (compound_end(p, st, c0));
err:
	st_free(&prev);
	if (have)
		st_free(&acc);
	return (-1);
}

/* [[ ]]: its words, and which are operators (unquoted, literal). */
struct cond {
	const struct jh_sh_word *w;
	const unsigned char *op;
	size_t n, i;
};

static int
cond_is(const struct cond *k, const char *s)
{
	return (k->i < k->n && k->op[k->i] && strcmp(k->w[k->i].s, s) == 0);
}

/* An operand: a word that is not ( ) && || < >. */
static int
cond_word(const struct cond *k, size_t i)
{
	static const char *const ops[] = { "(", ")", "&&", "||", "<", ">",
		NULL };

	return (i < k->n && !(k->op[i] && inlist(k->w[i].s, ops)));
}

static int	cond_or(struct cond *);

static int
cond_prim(struct cond *k)
{
	static const char *const un[] = { "-a", "-b", "-c", "-d", "-e", "-f",
		"-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
		"-G", "-L", "-N", "-O", "-S", "-o", "-v", "-R", "-z", "-n",
		NULL };
	static const char *const bin[] = { "=", "==", "!=", "<", ">", "=~",
		"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
		NULL };

	if (cond_is(k, "!")) {
		k->i++;
		return (cond_prim(k));
	}
	if (cond_is(k, "(")) {
		k->i++;
		if (cond_or(k) == -1 || !cond_is(k, ")"))
			return (-1);
		k->i++;
		return (0);
	}
	if (!cond_word(k, k->i))
		return (-1);
	if (k->i + 1 < k->n && k->op[k->i + 1] &&
	    inlist(k->w[k->i + 1].s, bin)) {
		if (!cond_word(k, k->i + 2))
			return (-1);
		k->i += 3;
	} else if (k->op[k->i] && inlist(k->w[k->i].s, un) &&
	    cond_word(k, k->i + 1))
		k->i += 2;
	else
		k->i++;
	return (0);
}

static int
cond_and(struct cond *k)
{
	if (cond_prim(k) == -1)
		return (-1);
	while (cond_is(k, "&&")) {
		k->i++;
		if (cond_prim(k) == -1)
			return (-1);
	}
	return (0);
}

static int
cond_or(struct cond *k)
{
	if (cond_and(k) == -1)
		return (-1);
	while (cond_is(k, "||")) {
		k->i++;
		if (cond_and(k) == -1)
			return (-1);
	}
	return (0);
}

/* One operator of [[ ]] at p->i, or 0. */
static const char *
cond_op(struct ps *p)
{
	int c = ch(p, p->i), d = nextc(p, p->i);

	if ((c == '&' && d == '&') || (c == '|' && d == '|')) {
		p->i = cont(p, p->i + 1) + 1;
		return (c == '&' ? "&&" : "||");
	}
	if (c == '(' || c == ')' || ((c == '<' || c == '>') &&
	    (d == -1 || strchr("<>&|(", d) == NULL))) {
		p->i++;
		return (c == '(' ? "(" : c == ')' ? ")" : c == '<' ? "<" : ">");
	}
	return (NULL);
}

/*
 * [[ ... ]]: listed as one simple command, [[, its words (the right of
 * =~ is one word, its ( ) | included), and ]].  Arithmetic comparisons
 * may assign variables.
 */
static int
c_dbrack(struct ps *p, struct st *st, size_t end)
{
	static const char *const arith[] = { "-eq", "-ne", "-lt", "-le",
		"-gt", "-ge", NULL };
	struct jh_sh_word v[SH_MAX_COND];
	unsigned char op[SH_MAX_COND];
	struct cond k;
	struct wsc w;
	const char *o;
	size_t n = 0, j;
	int c, rx = 0, ar = 0;

	if (word_set(p, &v[n], "[[", 2, 0) == -1)
		return (-1);
	op[n++] = 1;
	for (p->i = end;;) {
		if (skip(p, 1) == -1)
			goto err;
		c = ch(p, p->i);
		j = cont(p, p->i + 1);
		if (n + 1 >= SH_MAX_COND) {
			fail(p, "[[ ]] with too many words");
			goto err;
		}
		if (c == ']' && ch(p, j) == ']' && meta(nextc(p, j))) {
			p->i = cont(p, j + 1);
			if (word_set(p, &v[n++], "]]", 2, 0) == -1)
				goto err;
			break;
		}
		if (!rx && (o = cond_op(p)) != NULL) {
			op[n] = 1;
			if (word_set(p, &v[n++], o, strlen(o), 0) == -1)
				goto err;
			continue;
		}
		if (meta(c) && !(rx && c == '(')) {
			fail(p, "syntax error in [[ ]]");
			goto err;
		}
		wsc_init(&w);
		w.regex = rx;
		if (scan_word(p, st, &w) == -1 || word_take(p, &v[n], &w) ==
		    -1) {
			jh_buf_free(&w.b);
			goto err;
		}
		/* =~ is an operator, not a tilde after = */
		if (!w.quoted && strcmp(v[n].s, "=~") == 0)
			v[n].flags = 0;
		op[n] = !w.quoted && v[n].flags == 0;
		rx = op[n] && strcmp(v[n].s, "=~") == 0;
		ar |= op[n] && inlist(v[n].s, arith);
		n++;
	}
	k.w = v + 1;
	k.op = op + 1;
	k.n = n - 2;
	k.i = 0;
	if (cond_or(&k) == -1 || k.i != k.n) {
		fail(p, "syntax error in [[ ]]");
		goto err;
	}
	if (ar)
		st_clobber(st);
	if (push_kw(p, st, v, n) == -1)
		return (-1);
	return (redirs_after(p, st));
err:
	while (n > 0)
		free(v[--n].s);
	return (-1);
}

/*
 * A name a function may take: no keyword, special builtin or hook, and
 * only the characters names usually have.
 */
static int
fn_name_ok(const char *s)
{
	size_t i;

	if (*s == '\0' || inlist(s, nofname) || inlist(s, reserved) ||
	    strncmp(s, "TRAP", 4) == 0 || alldigits(s, strlen(s)))
		return (0);
	for (i = 0; s[i] != '\0'; i++)
		if (!isnamec((unsigned char)s[i]) && strchr("-.:", s[i]) ==
		    NULL)
			return (0);
	return (1);
}

/*
 * NAME() { ...; } or NAME() ( ... ), at the body: it is parsed (so its
 * errors are the line's) but listed only where it is called.
 */
static int
fn_define(struct ps *p, struct st *st, const char *name)
{
	struct st tmp;
	struct mark mk;
	size_t a;
	int c, d, sub, r;

	if (!fn_name_ok(name))
		return (jh_errf(p->e, "function name not supported: %.64s",
		    name));
	if (p->allexport)
		return (fail(p, "a function defined after set -a is exported "
		    "to child shells: not supported"));
	if (skip(p, 1) == -1)
		return (-1);
	c = ch(p, p->i);
	d = nextc(p, p->i);
	if (c == '{' && (d == ' ' || d == '\t' || d == '\n'))
		sub = 0;
	else if (c == '(' && d != '(')
		sub = 1;
	else
		return (fail(p, "function body that is not { ...; } or "
		    "( ... )"));
	p->i++;
	mark(p, &mk);
	a = p->i;
	if (enter(p) == -1 || st_copy(p, &tmp, st) == -1)
		return (-1);
	r = list(p, &tmp, sub ? T_PAREN : T_BRACE);
	st_free(&tmp);
	p->depth--;
	if (need(p, r, "function body") == -1 || region_end(p, &mk, 1) == -1 ||
	    fn_set(p, st, name, p->s + a, p->i - a, sub) == -1)
		return (-1);
	p->i++;
	if (skip(p, 0) == -1)
		return (-1);
	c = ch(p, p->i);
	if (redir_start(p) || (!meta(c) && !(c == '}' &&
	    meta(nextc(p, p->i)))))
		return (fail(p, "redirection or word after a function body"));
	p->bare = 0;
	return (0);
}

/* function NAME [()] BODY */
static int
c_function(struct ps *p, struct st *st, size_t end)
{
	struct wsc w;
	int r;

	p->i = end;
	if (skip(p, 0) == -1)
		return (-1);
	wsc_init(&w);
	if (meta(ch(p, p->i)) || scan_word(p, st, &w) == -1 ||
	    jh_buf_cstr(&w.b) == NULL || w.quoted || w.flags != 0) {
		jh_buf_free(&w.b);
		return (fail(p, "function without a literal name"));
	}
	if ((r = skip(p, 0)) == 0 && ch(p, p->i) == '(') {
		p->i++;
		if ((r = skip(p, 0)) == 0 && ch(p, p->i) != ')')
			r = fail(p, "syntax error after function name");
		p->i++;
	}
	if (r == 0)
		r = fn_define(p, st, (const char *)w.b.p);
	jh_buf_free(&w.b);
	return (r);
}

static int
simple(struct ps *p, struct st *st, int *empty)
{
	struct cb cb;
	struct wsc w;
	struct jh_sh_word word;
	int c, a, q0 = 1, r;

	memset(&cb, 0, sizeof(cb));
	cb.serial = ++p->serial;
	for (;;) {
		if (skip(p, 0) == -1)
			goto err;
		c = ch(p, p->i);
		if (c == -1 || c == '\n' || c == ';' || c == '|' || c == ')' ||
		    (c == '&' && nextc(p, p->i) != '>'))
			break;
		if (c == '(' && cb.av.n == 1 && cb.as.n == 0 && cb.rd.n == 0 &&
		    !q0) {
			/* NAME() BODY */
			p->i++;
			if (skip(p, 0) == -1)
				goto err;
			if (ch(p, p->i) != ')') {
				fail(p, "syntax error after NAME(");
				goto err;
			}
			p->i++;
			*empty = 0;
			r = fn_define(p, st, cb.av.v[0].s);
			cb_free(&cb);
			return (r);
		}
		if (c == '(') {
			fail(p, cb.av.n > 0 ? "syntax error near (" :
			    "unexpected (");
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
		w.asg = a;
		if (scan_word(p, st, &w) == -1 ||
		    word_take(p, &word, &w) == -1) {
			jh_buf_free(&w.b);
			goto err;
		}
		if (cb.av.n == 0 && !a)
			q0 = w.quoted || word.flags != 0;
		if (cb.av.n == 0 && !w.quoted && word.flags == 0 &&
		    (strcmp(word.s, "{") == 0 || strcmp(word.s, "}") == 0)) {
			free(word.s);
			fail(p, "unbalanced { or }");
			goto err;
		}
		/* an operand's {a,b}: the words bash makes of it */
		if (a ? wv_push(p, &cb.as, &word) == -1 : br_push(p, &cb.av,
		    &word, cb.av.n > 0 && !w.quoted && !w.subst &&
		    w.brace == 2) == -1)
			goto err;
	}
	if (cb.as.n == 0 && cb.av.n == 0 && cb.rd.n == 0) {
		*empty = 1;
		return (0);
	}
	*empty = 0;
	p->bare = cb.av.n == 0;
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

	p->bare = 0;
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
		fail(p, "unexpected word after a compound command");
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
	size_t a, end;
	int c = ch(p, p->i), r;

	*empty = 0;
	p->bare = 0;
	/* in sh, (( is a subshell in a subshell and [[ a plain command */
	if (c == '(' && nextc(p, p->i) == '(' && p->dialect == SH_POSIX)
		return (fail(p, "(( in an sh -c body (a subshell there)"));
	if (c == '(' && nextc(p, p->i) == '(') {
		if (arith_span(p, &a, &end, 0) == -1 ||
		    arith_emit(p, st, p->s + a, end - a, 1) == -1)
			return (-1);
		return (redirs_after(p, st));
	}
	if (c == '(') {
		p->i++;
		if (enter(p) == -1 || st_copy(p, &sub, st) == -1)
			return (-1);
		r = list(p, &sub, T_PAREN);
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
		if ((r = list(p, st, T_BRACE)) <= 0) {
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
	c = kw(p, &end);
	if (p->dialect == SH_POSIX && (c == K_DBRACK || c == K_FUNCTION))
		c = K_NONE;
	switch (c) {
	case K_NONE:
	case K_IN:
		return (simple(p, st, empty));
	case K_SELECT:
		return (fail(p, "select is not supported"));
	case K_IF:
	case K_WHILE:
	case K_UNTIL:
	case K_FOR:
	case K_CASE:
	case K_DBRACK:
	case K_FUNCTION:
		break;
	default:
		return (jh_errf(p->e, "syntax error near %s", kwnames[c]));
	}
	if (enter(p) == -1)
		return (-1);
	if (c == K_IF)
		r = c_if(p, st, end);
	else if (c == K_WHILE || c == K_UNTIL)
		r = c_while(p, st, end);
	else if (c == K_FOR)
		r = c_for(p, st, end);
	else if (c == K_CASE)
		r = c_case(p, st, end);
	else if (c == K_DBRACK)
		r = c_dbrack(p, st, end);
	else
		r = c_function(p, st, end);
	p->depth--;
	return (r);
}

/*
 * A pipeline's element made the commands from m0 on.  Where a pipe feeds
 * it (in), those of them its standard input reaches get *from: 1 + the
 * element before's one simple command, or SIZE_MAX where that element
 * was more (a group, a pipeline of its own) or |& fed it.  A command a
 * pipeline inside the element already linked keeps its link.  *from
 * becomes this element's, for the next.
 */
static void
pipe_link(struct ps *p, size_t m0, size_t *from, int in)
{
	struct jh_sh_cmd *c;
	size_t m, k;
	size_t f = *from;

	/* { xargs cat; } <FILE: a group's redirection replaces the pipe */
	for (m = m0; in && m < p->out->n; m++) {
		c = &p->out->cmd[m];
		for (k = 0; c->argc == 0 && k < c->nredir; k++)
			if (c->redir[k].fd == 0 || (c->redir[k].fd == -1 &&
			    c->redir[k].kind != JH_SHR_WRITE))
				f = SIZE_MAX;
	}
	for (m = m0; in && m < p->out->n; m++) {
		c = &p->out->cmd[m];
		if (!(c->flags & JH_SHC_SUBST) && c->pipe_from == 0)
			c->pipe_from = f;
	}
	*from = SIZE_MAX;
	if (p->out->n != m0 + 1)
		return;
	c = &p->out->cmd[m0];
	if (c->argc > 0 && !(c->flags & (JH_SHC_SUBST | JH_SHC_WRAPPED)))
		*from = m0 + 1;
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
	size_t m0, from = 0;
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
		m0 = p->out->n;
		if (st_copy(p, &el, st) == -1)
			return (-1);
		r = command(p, &el, &empty);
		if (r == 0)
			pipe_link(p, m0, &from, n > 0);
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
			/* |&: its standard error is in the pipe too */
			if (ch(p, p->i) == '&') {
				p->i++;
				from = SIZE_MAX;
			}
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
			/* under lastpipe (and in zsh) it runs in this shell */
			piped |= el.changed != st->changed;
			if (st_merge(p, st, &el) == -1)
				return (-1);
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
 * there): its directory is unknown.  A value holds after the list only
 * where it holds after each of its pipelines (any may be the last to
 * run), and within it, after a ||, where it holds after all before.
 */
static int
andor(struct ps *p, struct st *st)
{
	struct st acc;
	unsigned c0;
	int anyor = 0, hadcd = 0, have = 0, r = 0;

	for (;;) {
		if (hadcd && anyor)
			st->unknown = 1;
		c0 = st->changed;
		if ((r = pipeline(p, st)) == -1)
			break;
		if (st->changed != c0) {
			hadcd = 1;
			if (anyor)
				st->unknown = 1;
		}
		if (have)
			r = st_join(p, &acc, st);
		if (r == 0 && (r = skip(p, 0)) == 0 && !have &&
		    ch(p, p->i) != -1 && (ch(p, p->i) == '&' || ch(p, p->i) ==
		    '|') && ch(p, p->i) == nextc(p, p->i) && (r = st_copy(p,
		    &acc, st)) == 0)
			have = 1;
		if (r == -1)
			break;
		if (ch(p, p->i) == '&' && nextc(p, p->i) == '&')
			;
		else if (ch(p, p->i) == '|' && nextc(p, p->i) == '|')
			anyor = 1;
		else
			break;
		if (anyor && (r = st_join(p, st, &acc)) == -1)
			break;
		p->i = cont(p, p->i + 1) + 1;
		if ((r = skip(p, 1)) == -1)
			break;
	}
	if (r == 0 && have)
		r = st_join(p, st, &acc);
	if (have)
		st_free(&acc);
	if (hadcd)
		st->unknown = 1;
	return (r);
}

/* Why a list that ends at the end of its input is not complete. */
static int
list_eof(struct ps *p, int term)
{
	if (term & T_PAREN)
		return (fail(p, "unbalanced ("));
	if (term & T_BRACE)
		return (fail(p, "unbalanced {"));
	if (term & T_THEN)
		return (fail(p, "if without then"));
	if (term & T_FI)
		return (fail(p, "if without fi"));
	if (term & (T_DO | T_DONE))
		return (fail(p, "loop without done"));
	return (fail(p, "case without esac"));
}

/*
 * A list up to one of term (T_*: a ), }, reserved word or ;; that is not
 * consumed; p->stop says which, p->kwend where a word ends), or to the
 * end when term is 0.  Returns how many and-or lists it held.  A job
 * put in the background (&) changes no value here.
 */
static int
list(struct ps *p, struct st *st, int term)
{
	struct st pre;
	size_t end;
	int c, k, n = 0, r;

	for (;;) {
		if (skip(p, 1) == -1)
			return (-1);
		c = ch(p, p->i);
		p->stop = 0;
		if (c == -1)
			return (term == 0 ? n : list_eof(p, term));
		if (c == ')') {
			if (term & T_PAREN)
				return (p->stop = T_PAREN, n);
			return (fail(p, "unbalanced )"));
		}
		if (c == '}' && meta(nextc(p, p->i))) {
			if (term & T_BRACE)
				return (p->stop = T_BRACE, n);
			return (fail(p, "unbalanced }"));
		}
		if (kw_term(k = kw(p, &end)) != 0) {
			if (!(term & kw_term(k)))
				return (jh_errf(p->e, "syntax error near %s",
				    kwnames[k]));
			p->stop = kw_term(k);
			p->kwend = end;
			return (n);
		}
		if (c == ';' && (term & T_DSEMI) && (nextc(p, p->i) == ';' ||
		    nextc(p, p->i) == '&'))
			return (p->stop = T_DSEMI, n);
		if (c == ';' || c == '&' || c == '|')
			return (jh_errf(p->e, "syntax error near %c", c));
		if (st_copy(p, &pre, st) == -1)
			return (-1);
		r = andor(p, st);
		c = ch(p, p->i);
		if (r == 0 && c == '&' && p->bare)
			r = fail(p, "a background job ending in assignments "
			    "or redirections only (zsh cannot parse it)");
		if (r == 0 && c == '&')
			r = st_join(p, st, &pre);
		st_free(&pre);
		if (r == -1)
			return (-1);
		n++;
		if (c == ';') {
			if (nextc(p, p->i) == ';' || nextc(p, p->i) == '&') {
				if (term & T_DSEMI)
					return (p->stop = T_DSEMI, n);
				return (fail(p, "unexpected ;; or ;& outside "
				    "case"));
			}
			p->i++;
		} else if (c == '&')
			p->i++;
		else if (c != '\n' && c != -1 && c != ')' && c != '}')
			return (jh_errf(p->e, "syntax error near %c", c));
	}
}

/*
 * The parser with what it may know of the world: with o->home (an
 * absolute path), ~ and $HOME are that directory, and so is where a
 * bare cd goes.
 */
int
jh_sh_parse_with(struct jh_sh_script *out, const char *s, size_t n,
    const struct jh_sh_opts *o, struct jh_err *e)
{
	struct ps p;
	struct st st;
	struct shr sh;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (n > SH_MAX_INPUT)
		return (jh_errf(e, "command longer than 1 MiB"));
	if (n > 0 && memchr(s, '\0', n) != NULL)
		return (jh_errf(e, "NUL byte in command"));
	memset(&p, 0, sizeof(p));
	memset(&st, 0, sizeof(st));
	memset(&sh, 0, sizeof(sh));
	p.s = s;
	p.n = n;
	p.out = out;
	p.e = e;
	p.sh = &sh;
	if (o != NULL && o->home != NULL && o->home[0] == '/')
		r = var_set(&p, &st, "HOME", 4, o->home, 0, 1);
	if (r == 0)
		r = list(&p, &st, 0);
	if (r >= 0)
		r = hd_end(&p);
	hd_clear(&p);
	st_free(&st);
	if (r == -1)
		jh_sh_free(out);
	return (r);
}

int
jh_sh_parse(struct jh_sh_script *out, const char *s, size_t n,
    struct jh_err *e)
{
	return (jh_sh_parse_with(out, s, n, NULL, e));
}
