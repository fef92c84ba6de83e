/*
 * joulehook: a conservative parser for the bash commands an agent asks
 * to run (shellparse.c).  It lists every simple command a line would
 * run, with quote-removed words, in the order they would start, and
 * refuses (returns -1 with a reason) whatever it cannot prove; it never
 * looks at the file system or the environment.  The contract is
 * jh-decide(1), "Shell commands".
 */
#ifndef JH_SHELLPARSE_H
#define JH_SHELLPARSE_H

#include <stddef.h>

struct jh_err;

/*
 * A variable the parser knows (a literal assignment earlier in the same
 * shell, a for loop's word, the home directory of struct jh_sh_opts) is
 * replaced by its value, which is then literal; a for word's GLOB, BRACE
 * or TILDE goes with it.
 */
#define JH_SHW_GLOB	0x01	/* unquoted * ? [ in the word */
#define JH_SHW_BRACE	0x02	/* unquoted brace expansion {a,b} {1..3} */
#define JH_SHW_TILDE	0x04	/* unquoted leading ~ */
#define JH_SHW_EXPAND	0x08	/* $var, ${...}, $(...), `...`, $((...)):
				   not literal; the value is unknown */
#define JH_SHW_CMDSUB	0x10	/* with EXPAND: every unknown part of the
				   word is a command substitution whose
				   commands are listed (no variable) */
#define JH_SHW_SPLIT	0x20	/* with EXPAND: an expansion is unquoted,
				   so its value may split into words */
#define JH_SHW_PROCSUB	0x40	/* with EXPAND: the whole word is <(list)
				   or >(list), whose commands are listed:
				   its value is the path of a pipe */

struct jh_sh_word {
	char *s;		/* quote-removed, NUL-terminated */
	size_t len;		/* may contain no NUL: refused at parse */
	int flags;		/* JH_SHW_* */
};

#define JH_SHR_READ	1	/* < file */
#define JH_SHR_WRITE	2	/* > >> >| &> &>> 2> ... file */
#define JH_SHR_DUP	3	/* >&N <&N N>&M, >&- : no file */
#define JH_SHR_HEREDOC	4	/* << <<- <<< with a literal body */

struct jh_sh_redir {
	int kind;		/* JH_SHR_* */
	int fd;			/* the fd redirected (-1 when implied) */
	struct jh_sh_word target;	/* file (READ/WRITE) */
};

#define JH_SHC_WRAPPED	0x01	/* runs inside a wrapper (env, nice,
				   timeout, nohup, xargs, find -exec, ...) */
#define JH_SHC_OPENARGS	0x02	/* more arguments come at run time
				   (xargs, find -exec ... {} +) */
#define JH_SHC_SUBST	0x04	/* inside $(...) or `...` */
#define JH_SHC_CWD_UNKNOWN 0x08	/* a cd this parser could not follow
				   came before it */
#define JH_SHC_CWD_SOURCED 0x10	/* a sourced file came before it: its
				   directory is cwd unless that file's
				   code moved it */

struct jh_sh_cmd {
	struct jh_sh_word *assign;	/* leading NAME=value words */
	size_t nassign;
	struct jh_sh_word *argv;	/* command word and arguments */
	size_t argc;			/* 0: assignments, redirections only */
	struct jh_sh_redir *redir;
	size_t nredir;
	char *cwd;	/* the directory a literal cd moved to before this
			   command (absolute, or relative to the start
			   directory), or NULL when no cd came before */
	int flags;	/* JH_SHC_* */
	/*
	 * Where a pipe feeds this command's standard input: 1 + the index
	 * of the one simple command whose standard output it is (find . |
	 * xargs: the xargs's); SIZE_MAX where it is more than one command's,
	 * or its standard error too (|&); 0 where no pipe does.
	 */
	size_t pipe_from;
};

struct jh_sh_script {
	struct jh_sh_cmd *cmd;	/* in the order they appear */
	size_t n;
	/*
	 * Arithmetic names a variable whose value is only known when it
	 * runs: bash evaluates that value as an expression too, and
	 * 'a[$(cmd)]' in it runs cmd.  Its effect is unknown.
	 */
	int arith_unknown;
};

/* What the parser may know of the world (NULL fields: nothing). */
struct jh_sh_opts {
	const char *home;	/* ~, $HOME, and the directory of a bare cd */
};

int	jh_sh_parse(struct jh_sh_script *out, const char *s, size_t n,
	    struct jh_err *e);
int	jh_sh_parse_with(struct jh_sh_script *out, const char *s, size_t n,
	    const struct jh_sh_opts *o, struct jh_err *e);
void	jh_sh_free(struct jh_sh_script *sc);

#endif /* JH_SHELLPARSE_H */
