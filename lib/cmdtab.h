/*
 * joulehook: the command table, what each program an agent runs does
 * with each of its words (jh-decide(1), "Effects").  Data, not code: one
 * entry per program or subcommand, in lib/cmdtab.c, read by effects.c.
 *
 * name	"git" for a program, "git log" for a subcommand of one (flag
 *	JH_CT_SUB on "git"), "git stash drop" for a subcommand of that.
 *
 * opts	blank-separated option specs, each NAMES[=E|?E][:TAG[,TAG...]]
 *	NAMES	comma-separated spellings: -x (short), --long (long, taken
 *		as --long=V or --long V when it has a value), or -long
 *		(single-dash long, only with JH_CT_DASHLONG: find, go, java).
 *	=E	the option takes a value: short -xV or -x V, long --l=V or
 *		--l V.  E is the value's effect, one letter of EFFECTS below.
 *	=EF	the option takes two value words, of effects E and F (jq
 *		--rawfile NAME FILE: "=ir").
 *	?E	an optional value, only ever attached (-j4, --color=auto).
 *	TAG	what the option itself does (TAGS below).
 *	The entry "-*" says every option not listed is a flag with no
 *	effect; without it an option the entry does not list is unknown.
 *	Short flags cluster (-qf is -q -f; -ofile is -o file) unless
 *	JH_CT_NOCLUSTER.  With JH_CT_ABBREV a unique prefix of a long
 *	option is that option (getopt_long(3), git's parse-options).
 *
 * args	the operands' effects: comma-separated rules taken in order, each
 *	EFFECTS letters; a rule ending in '*' takes every operand left
 *	(but those a '$' rule takes); a rule starting with '$' takes the
 *	last operand (cp "r*,$w").  "" means the program takes no
 *	operands: one is unknown.  Operands a rule does not reach are
 *	unknown.
 *
 * EFFECTS (of an option value or an operand)
 *	r  read PATH	     w  write PATH (create or change)
 *	m  read PATH's names and attributes, not its content (ls, stat)
 *	d  delete PATH	     x  exec FILE (a script or program it runs)
 *	f  a file read as code or as configuration that runs code (make -f,
 *	   pytest -c): an exec effect of the program on that file
 *	c  the directory the program works in (git -C, make -C): later
 *	   relative paths and the runs files are taken there; with
 *	   JH_CT_OPSDIR only the operands are (tar -C)
 *	i  inert: a name, a count, a message, a pattern
 *	n  network: a host or a URL
 *	s  a subcommand: the entry "NAME WORD" decides the rest
 *	P  the rest of the words are a command line this program runs
 *	   (npx, sudo, uv run): decided as a command of its own
 *	u  unknown: what it does is only known when it runs
 *	A  passed to code an exec capability already trusts (npm test --
 *	   ARGS): inert, unless it names a path outside the project, which
 *	   is unknown
 *
 * TAGS (of an option; also of a subcommand entry's `tags')
 *	destroy	 vcs-local-destroy: work or history lost locally (reset
 *		 --hard, clean -f, checkout -f, branch -D, stash drop)
 *	rewrite	 vcs-history-rewrite (rebase, commit --amend, filter-branch)
 *	remote	 vcs-remote (push)
 *	force	 vcs-remote-force (push --force, +refspec, --delete)
 *	net	 the network (fetch, clone, curl)
 *	install	 a package manager fetching and running code
 *	exec	 the option makes the program run code of its own choosing
 *	recursive  path operands are whole trees (rm -r, cp -r, grep -r)
 *	inplace	 read operands are written too (sed -i, perl -i)
 *	delete	 path operands are deleted (find -delete, git rm)
 *	pattern	 the pattern is given by the option: the first operand
 *		 rule (grep's PATTERN) is skipped
 *	target	 the value (=w or =c) is the destination: every operand is
 *		 read (cp -t DIR, mv -t DIR)
 *	end	 the rest are operands, as after "--"
 *	rest	 the rest of the words are passed on as A (npm test -- ...)
 *	unknown	 the option is never provable
 *	keep	 path operands to delete are kept, and the entry's tags
 *		 dropped: a read (git rm --cached and -n, git clean -n)
 *	exit	 the option prints and exits (--version, --help): an
 *		 interpreter given it runs no standard input
 *	rmt	 the value (=w) is an archive that HOST:PATH names on
 *		 another host, reached through rsh (tar -f): unknown
 *
 * runs	comma-separated globs of the files the program executes as
 *	configuration or build scripts, relative to the directory it works
 *	in ("Makefile,makefile,GNUmakefile"; "**" crosses directories):
 *	not the project's source and test files, which run whenever the
 *	project's code runs.  A write to a file that matches any entry's
 *	runs is marked "executed" (joulehook-formats(5)).
 *
 * tags	TAGS that hold whenever this entry runs ("git push": remote).
 *
 * src	where the meanings were checked: "git-log(1)", "make --help".
 */
#ifndef JH_CMDTAB_H
#define JH_CMDTAB_H

#include <stddef.h>

#define JH_CT_RUNS	0x001	/* runs code: needs an exec capability */
#define JH_CT_SUB	0x002	/* first operand is a subcommand (rule s) */
#define JH_CT_POSIX	0x004	/* options end at the first operand */
#define JH_CT_ABBREV	0x008	/* unique prefixes of long options */
#define JH_CT_DASHLONG	0x010	/* -name long options */
#define JH_CT_NOCLUSTER	0x020	/* short options do not cluster */
#define JH_CT_NET	0x040	/* reaches the network whenever it runs */
#define JH_CT_INSTALL	0x080	/* fetches and runs packages' code */
#define JH_CT_WRAPPER	0x100	/* lib/shellparse.c unwraps it (env, xargs,
				   timeout, ...): no effect of its own */
#define JH_CT_FILTER	0x200	/* without path operands it reads only its
				   standard input */
#define JH_CT_FINDEXPR	0x400	/* find: operands are paths until the first
				   word starting with - ( ! or , */
#define JH_CT_OPSDIR	0x800	/* c moves only the operands after it (tar
				   -C): option values stay where it
				   started; a name before it is unknown */
#define JH_CT_CAMEL	0x1000	/* a long option is also taken in kebab
				   case (yargs, cac): --setup-files is
				   --setupFiles */
#define JH_CT_TEXT	0x2000	/* its operands are text it prints (echo,
				   basename): never a script, a pattern or
				   a program, so find's paths may be them */

struct jh_cmddef {
	const char *name;
	const char *opts;
	const char *args;
	const char *runs;
	const char *tags;
	unsigned flags;
	const char *src;
};

extern const struct jh_cmddef jh_cmdtab[];
extern const unsigned long jh_ncmdtab;

/*
 * Checks every entry of the table against the grammar above; 0, or -1
 * with the first problem in why.
 */
int	jh_cmdtab_check(char *why, size_t whysz);

#endif
