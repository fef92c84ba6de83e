/*
 * joulehook: what an action does (jh-decide(1), "Effects").
 *
 * A parsed shell line (jh_sh_parse) or a file tool's action becomes a
 * list of effects: reads, writes and deletes of resolved paths, execs of
 * programs and of the files they run, the network, installs, and
 * version-control effects, by the command table (cmdtab.h).  What the
 * table does not know is an effect of kind JH_E_UNKNOWN, never a guess.
 * Capabilities and policies are matched against these.
 */
#ifndef JH_EFFECTS_H
#define JH_EFFECTS_H

#include <stddef.h>

struct jh_sh_script;
struct jh_err;

enum jh_eff_kind {
	JH_E_READ = 0,		/* read */
	JH_E_WRITE,		/* write: create or change */
	JH_E_DELETE,		/* delete */
	JH_E_EXEC,		/* exec: a program, and the file it runs */
	JH_E_NET,		/* net */
	JH_E_INSTALL,		/* install */
	JH_E_VCS_DESTROY,	/* vcs-local-destroy */
	JH_E_VCS_REWRITE,	/* vcs-history-rewrite */
	JH_E_VCS_REMOTE,	/* vcs-remote */
	JH_E_VCS_FORCE,		/* vcs-remote-force */
	JH_E_UNKNOWN,		/* unknown */
	JH_E_NKINDS
};

#define JH_EF_TREE	0x01	/* path and everything under it */
#define JH_EF_EXECUTED	0x02	/* a write or delete of a file that a
				   program of the table executes */
#define JH_EF_RUNS	0x04	/* exec: the program runs code (cmdtab
				   JH_CT_RUNS), not only reads a file */
#define JH_EF_UNLISTED	0x08	/* unknown: the program itself is not in
				   the command table */
#define JH_EF_REDIR	0x10	/* the shell's: a redirection's target */
#define JH_EF_META	0x20	/* read: names and attributes only (ls,
				   stat), never the content */
#define JH_EF_INPLACE	0x40	/* write: files that are there rewritten
				   in place (a formatter, sed -i), none
				   made */
#define JH_EF_ONLYTOP	0x80	/* only: matched by the first component
				   below the tree alone (a shell glob's
				   last part: rm -f *.o), not at any depth
				   (find -name) */
#define JH_EF_GLOB	0x100	/* tree: a glob's, whose matches a copy
				   puts side by side, not as the tree is */

struct jh_effect {
	int kind;		/* enum jh_eff_kind */
	int flags;		/* JH_EF_* */
	size_t cmd;		/* the simple command it comes from */
	char *path;		/* resolved absolute path, or NULL */
	char *program;		/* exec, and every effect of a command: the
				   program's name as the table knows it */
	char *arg;		/* net: host or URL; unknown: why */
	int cap;		/* the capability that granted it, or -1 */
	int literal;		/* granted by a literal command capability */
	char *only;		/* a tree: only the paths with a component
				   this glob matches (find -name; with
				   JH_EF_ONLYTOP the first one), or NULL */
	int onlyfold;		/* only is matched ignoring case (-iname) */
	char *name;		/* a read: the last part of the word as
				   written, where that differs from the
				   path's (a link), or NULL */
};

struct jh_effects {
	struct jh_effect *v;
	size_t n, cap;
};

/* What the extractor needs to know of the world. */
struct jh_effctx {
	const char *cwd;	/* absolute: where the line starts */
	const char *root;	/* the project root, or NULL */
	const char *home;	/* the user's home, or NULL */
};

int	jh_effect_add(struct jh_effects *ef, int kind, int flags, size_t cmd,
	    const char *path, const char *prog, const char *arg,
	    struct jh_err *e);
const char *jh_eff_name(int k);		/* "read", ..., "unknown" */
int	jh_eff_kind(const char *s);	/* -1 for a name not listed */
void	jh_effects_init(struct jh_effects *ef);
void	jh_effects_free(struct jh_effects *ef);


/*
 * The effects of every simple command of a parsed line, in order.
 * Returns 0, or -1 (out of memory, a path that cannot be resolved)
 * with the reason; what the table does not know is an effect, not -1.
 */
int	jh_shell_effects(struct jh_effects *ef, const struct jh_effctx *cx,
	    const struct jh_sh_script *sh, struct jh_err *e);

/* The table's entry for a program (basename, versions stripped). */
const struct jh_cmddef *jh_cmd_lookup(const char *name);

/* The host a URL, user@host or host names, lowercased; its length. */
size_t	jh_url_host(const char *s, char *out, size_t sz);

/* Whether a path is a file some program of the table executes. */
int	jh_path_executed(const char *path);

/* Entries looked at under a path a find -name filter may reach. */
#define JH_ONLYSCAN	20000

int	jh_only_reaches(const char *tree, const char *only, int fold,
	    int top, const char *p);

#endif
