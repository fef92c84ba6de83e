/*
 * jh-hook's parts (jh-hook(1)), what its files share:
 *
 *	jh-hook.c	the driver: the call's binding, the answer, a
 *			deny, the end of a session, main
 *	hook-conf.c	the install-time config
 *	hook-run.c	the stages under the deadline: a pipeline of
 *			exec'd programs, or the fused worker
 *	hook-sock.c	hardened mode's socket: the client (-s) and the
 *			server's side of a connection (-a)
 *
 * Everything here ends the process on failure (deny, finish): this is a
 * program's code, not the library's.
 */
#ifndef JH_HOOK_H
#define JH_HOOK_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "chain.h"
#include "gate.h"
#include "hookwire.h"
#include "hosts.h"
#include "jh.h"

#define PROG		"jh-hook"
#define NSTAGES		5
#define MAX_ANSWER	(1024 * 1024)
_Static_assert(MAX_ANSWER <= JH_HW_MAX_OUT, "a frame carries every answer");
#define CONF_DEVELOPERS	16
/*
 * A config's protect lines (jh-hook(1): up to 16), each passed on as a
 * -P; jh-decide takes up to JH_PROTECT_ARGS of them (lib/gate.h).
 */
#define CONF_PROTECT	16
_Static_assert(CONF_PROTECT <= JH_PROTECT_ARGS,
    "jh-decide must take every protect line as a -P");

/* The numbers first: with the first path they share a page. */
struct conf {
	int nprotect;
	unsigned deadline_ms;
	unsigned lock_ms;
	int answer_allow;
	int readable;		/* readable=1: records 0644 (hardened) */
	int ndev;
	int meter;		/* meter=transcript: observe at Stop */
	int fast;		/* fast=1: the stages in one process */
	char bindir[PATH_MAX];
	char home[PATH_MAX];
	char state[PATH_MAX];
	char user_home[PATH_MAX];
	char sink[PATH_MAX];	/* checkpoints are appended here */
	char protect[CONF_PROTECT][PATH_MAX];
	struct {
		uid_t uid;
		char home[PATH_MAX];
	} dev[CONF_DEVELOPERS];	/* developer=: who -a serves */
#ifdef JH_TESTING
	char stage[NSTAGES][PATH_MAX];	/* test builds: stand-ins */
	int fault_stage;	/* fault=N:SIG: the fused child raises SIG */
	int fault_sig;		/* after stage N (0-4); SIG 0: it hangs */
	char now[32];		/* now=, nonce=: JH_NOW and JH_NONCE */
	char nonce[32];		/* for the stages, so runs compare */
#endif
};

/* The small fields first: a call touches one page of them. */
struct run {
	const struct jh_host *host;
	const char *post;	/* the post-tool event, when it is one */
	char event[64];
	char prompt[128];		/* the host's id of the user's prompt */
	struct jh_buf payload;
	struct jh_buf answer;
	char call[256];
	char digest[JH_ID_LEN];
	int conn;		/* -a: the connection; else -1 */
	char uid[16];		/* -a: the caller's uid, for jh-decide -u */
	char session[JH_SESSION_MAX + 1];
	char transcript[PATH_MAX];	/* the host's, at Stop */
};

/* A stage run in the forked child itself, not exec'd: it never returns. */
typedef void (*inproc_fn)(const struct run *r, const struct conf *c);

/* jh-hook.c */
void	finish_raw(const struct run *r, int status)
	    __attribute__((noreturn));
void	finish(const struct run *r, int status) __attribute__((noreturn));
int	deny_answer(const struct run *run, const char *why, struct jh_buf *b);
int	answer_readable(const struct run *r, int status, const uint8_t *out,
	    size_t n);
void	deny(const struct run *run, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
int	bind_call(struct run *r, char *why, size_t whysz);

/* hook-conf.c: c all zero on entry; -1 with why */
int	read_conf(struct conf *c, const char *path, char *why, size_t whysz);

/* hook-run.c */
void	stage_path(char *out, const struct conf *c, int i, const char *name);
/*
 * Runs n stages as one pipeline in one process group: feeds in, collects
 * the last stage's output into out, under the deadline.  Returns the last
 * stage's wait status, and each stage's in st[]; a stage past the
 * deadline is a deny.  With inproc, the one stage is that function in a
 * child of this process (the fused path), supervised the same way.
 */
int	pipeline(struct run *r, const struct conf *c, char *paths[],
	    char **args[], int n, const struct jh_buf *in, struct jh_buf *out,
	    uint64_t deadline, int st[], inproc_fn inproc);
/* Whether this call takes the fused path; and the path itself. */
int	fused(const struct run *r, const struct conf *c);
/* The deadline before the stages start (hook-run.c), and its end. */
void	pre_deadline(const struct run *r, const struct conf *c,
	    uint64_t deadline);
void	pre_deadline_off(void);
void	heap_ready(void);
int	fused_run(struct run *r, const struct conf *c, uint64_t deadline,
	    int sts[]);

/* hook-sock.c */
void	sock_timeouts(int fd, uint64_t ms);
void	client(struct run *r, const char *sock, unsigned ms)
	    __attribute__((noreturn));
void	read_request(struct run *r, unsigned ms);
void	check_peer(struct run *r, struct conf *c, const char *cfg);
void	check_owner(struct run *r, const struct conf *c);
void	check_transcript(struct run *r);
void	serve_start(struct run *r);

#endif /* JH_HOOK_H */
