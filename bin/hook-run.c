/*
 * jh-hook's stages under the deadline (jh-hook(1), What it does; The
 * fused path): a pipeline of exec'd programs in one process group, or
 * the stages as library calls in a worker of their own.  Whatever ends
 * them early, the answer is a deny, never "go ahead".
 */
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fused.h"
#include "hook.h"
#include "util.h"

void
stage_path(char *out, const struct conf *c, int i, const char *name)
{
#ifdef JH_TESTING
	if (i >= 0 && c->stage[i][0] != '\0') {
		strcpy(out, c->stage[i]);
		return;
	}
#else
	(void)i;
#endif
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s", c->bindir, name) >=
	    PATH_MAX)
		out[0] = '\0';	/* execve then fails: a deny */
}

/* A running pipeline: its processes, and the two ends kept. */
struct pipe_run {
	pid_t pid[NSTAGES];
	pid_t pgid;
	int n;
	int ifd;		/* the first stage's input, or -1 once closed */
	int ofd;		/* the last stage's output */
};

/* Kills the group and denies; the deadline's and every error's end. */
static void __attribute__((noreturn))
kill_deny(struct run *r, pid_t pgid, const char *why, unsigned ms)
{
	kill(-pgid, SIGKILL);
	while (waitpid(-pgid, NULL, 0) > 0)
		;
	if (ms > 0)
		deny(r, "the gate did not answer within %u ms", ms);
	deny(r, "%s", why);
}

/* Forks the n stages into one process group, joined by pipes. */
static void
spawn(struct pipe_run *pr, struct run *r, const struct conf *c,
    char *paths[], char **args[], inproc_fn inproc)
{
	int fds[NSTAGES + 1][2], i;

	for (i = 0; i <= pr->n; i++)
		if (pipe2(fds[i], O_CLOEXEC) == -1)
			deny(r, "pipe: %s", strerror(errno));
	for (i = 0; i < pr->n; i++) {
		if ((pr->pid[i] = fork()) == -1) {
			if (pr->pgid > 0)
				kill(-pr->pgid, SIGKILL);
			deny(r, "fork: %s", strerror(errno));
		}
		if (pr->pid[i] == 0) {
			setpgid(0, pr->pgid);
			if (dup2(fds[i][0], STDIN_FILENO) == -1 ||
			    dup2(fds[i + 1][1], STDOUT_FILENO) == -1)
				_exit(127);
			if (inproc != NULL)
				inproc(r, c);
			execve(paths[i], args[i], environ);
			fprintf(stderr, "%s: %s: %s\n", PROG, paths[i],
			    strerror(errno));
			_exit(127);
		}
		if (pr->pgid == 0)
			pr->pgid = pr->pid[i];
		setpgid(pr->pid[i], pr->pgid);
	}
	/* Keep only our ends: the first stage's input, the last's output. */
	for (i = 0; i <= pr->n; i++) {
		if (i != pr->n)
			close(fds[i][0]);
		if (i != 0)
			close(fds[i][1]);
	}
	pr->ifd = fds[0][1];
	pr->ofd = fds[pr->n][0];
	fcntl(pr->ifd, F_SETFL, O_NONBLOCK);
}

/* Feeds in and reads out until the last stage's output ends. */
static void
pump(struct pipe_run *pr, struct run *r, const struct conf *c,
    const struct jh_buf *in, struct jh_buf *out, uint64_t deadline)
{
	struct pollfd p[2];
	size_t written = 0;
	ssize_t w, x;
	uint64_t now;
	int np;

	for (;;) {
		if ((now = jh_mono_ms()) >= deadline)
			kill_deny(r, pr->pgid, NULL, c->deadline_ms);
		np = 0;
		p[np].fd = pr->ofd;
		p[np++].events = POLLIN;
		if (pr->ifd != -1) {
			p[np].fd = pr->ifd;
			p[np++].events = POLLOUT;
		}
		if (poll(p, (nfds_t)np, (int)(deadline - now)) == -1) {
			if (errno == EINTR)
				continue;
			kill_deny(r, pr->pgid, errno == ENOMEM ? "poll: out "
			    "of memory" : "poll failed", 0);
		}
		if (pr->ifd != -1 && p[1].revents) {
			w = write(pr->ifd, in->p + written, in->len - written);
			if (w > 0)
				written += (size_t)w;
			if (w == -1 && errno != EAGAIN && errno != EINTR)
				written = in->len;
			if (written == in->len) {
				close(pr->ifd);
				pr->ifd = -1;
			}
		}
		if (!p[0].revents)
			continue;
		if (jh_buf_reserve(out, 65536) == -1)
			kill_deny(r, pr->pgid, "out of memory", 0);
		x = read(pr->ofd, out->p + out->len, out->cap - out->len);
		if (x == 0)
			return;
		if (x > 0 && (out->len += (size_t)x) > MAX_ANSWER)
			kill_deny(r, pr->pgid, "the answer is too large", 0);
		if (x == -1 && errno != EINTR && errno != EAGAIN)
			kill_deny(r, pr->pgid, strerror(errno), 0);
	}
}

/* Reaps the stages into st[]; what is left at the deadline is killed. */
static int
reap(struct pipe_run *pr, struct run *r, const struct conf *c,
    uint64_t deadline, int st[])
{
	int i, status = -1;
	pid_t w;

	for (i = 0; i < pr->n; i++) {
		for (;;) {
			if ((w = waitpid(pr->pid[i], &status, WNOHANG)) ==
			    pr->pid[i])
				break;
			if (w == -1 && errno != EINTR) {
				status = -1;
				break;
			}
			if (jh_mono_ms() >= deadline) {
				kill(-pr->pgid, SIGKILL);
				waitpid(pr->pid[i], &status, 0);
				if (i == pr->n - 1)
					deny(r, "the gate did not finish "
					    "within %u ms", c->deadline_ms);
				break;
			}
			usleep(1000);
		}
		st[i] = status;
	}
	kill(-pr->pgid, SIGKILL);
	return (st[pr->n - 1]);
}

int
pipeline(struct run *r, const struct conf *c, char *paths[], char **args[],
    int n, const struct jh_buf *in, struct jh_buf *out, uint64_t deadline,
    int st[], inproc_fn inproc)
{
	struct pipe_run pr;

	memset(&pr, 0, sizeof(pr));
	pr.n = n;
	spawn(&pr, r, c, paths, args, inproc);
	pump(&pr, r, c, in, out, deadline);
	if (pr.ifd != -1)
		close(pr.ifd);
	close(pr.ofd);
	return (reap(&pr, r, c, deadline, st));
}

#ifdef JH_TESTING
/* fault=N:SIG: the fused child dies of SIG after stage N, or hangs. */
static void
fault(int stage, void *arg)
{
	const struct conf *c = arg;

	if (stage != c->fault_stage)
		return;
	if (c->fault_sig == 0)
		for (;;)
			pause();
	kill(getpid(), c->fault_sig);	/* the worker: its own pid */
}
#endif

/*
 * The stages as library calls (jh_fused): the answer in out, and the
 * reply stage's status.
 */
static int
fused_stages(const struct run *r, const struct conf *c, struct jh_buf *out)
{
	struct jh_fused f;

	memset(&f, 0, sizeof(f));
	f.host = r->host;
	f.post = r->post;
	f.session = r->session;
	f.call = r->call;
	f.digest = r->digest;
	f.lock_ms = c->lock_ms;
	f.deadline_ms = c->deadline_ms;
	f.answer_allow = c->answer_allow;
	f.bindir = c->bindir;
	f.protect = (char (*)[PATH_MAX])c->protect;
	f.nprotect = c->nprotect;
	f.uid = r->uid[0] != '\0' ? r->uid : NULL;
#ifdef JH_TESTING
	if (c->fault_stage >= 0) {
		f.after = fault;
		f.arg = (void *)c;
	}
#endif
	jh_buf_init(out);
	return (jh_fused(out, stderr, &f, r->payload.p, r->payload.len));
}

/*
 * The fused path in a forked child, where clone(2) cannot make the
 * worker below: the answer on the pipe and the reply stage's status as
 * the child's.
 */
static void __attribute__((noreturn))
fused_child(const struct run *r, const struct conf *c)
{
	struct jh_buf out;
	int status;

	status = fused_stages(r, c, &out);
	if (out.len > 0 && jh_write_all(STDOUT_FILENO, out.p, out.len) == -1)
		status = 127;
	fflush(stderr);
	_exit(status);
}

/*
 * The fused path (fast=1).  The stages run in a worker that is a process
 * of its own, so that its crash, a SIGKILL or SIGSTOP of it, or a wait
 * past the deadline is this process's deny, as a forked child's would
 * be; but the worker shares this process's memory (clone(2), CLONE_VM):
 * nothing is copied when it starts, and it leaves its answer in w.out.
 * A fork here cost more than all the stages together: the page tables
 * copied, and every page either process wrote afterwards copied again.
 *
 * The stages never fork or start a thread: either would rewrite the
 * thread data the two processes share (lib/ has no fork, exec or
 * pthread_create).  While the worker runs, this process only waits, on
 * its own stack.  A worker that ended any other way than by returning
 * may have left the heap or stdio mid-update, so the answer to that end
 * is made before it starts and written with write(2) alone.  Where clone(2) fails, or the
 * sanitizers watch (they follow one stack per thread), the worker is a
 * forked child, as it was.  (valgrind cannot run this clone(2); it runs
 * jh-hook natively: scripts/valgrind-wrap.)
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED	0
#endif
#define WORKER_STACK	(8 << 20)	/* a main thread's; touched as used */
/*
 * The top of the worker's stack a gated call uses (about 120 KiB, 26
 * pages), made present in one call: a page faulted in one at a time costs
 * two to three times as much on a virtual machine.
 */
#define WORKER_HOT	(128 << 10)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23	/* Linux 5.14 */
#endif
/*
 * The heap a gated call uses once its configuration is read (about 200
 * KiB: the payload, the gate's context, the effects', the ledger's and
 * the log's, the decoders' arenas), made present in one call, in one
 * huge page where the kernel has one (heap_ready).
 */
#define WORKER_HEAP	(192 << 10)

struct worker {
	const struct run *r;
	const struct conf *c;
	struct jh_buf out;	/* the answer, read once the worker exited */
};

/* The worker: the stages, and the reply stage's status as its own. */
static int
worker_main(void *arg)
{
	struct worker *w = arg;

	_exit(fused_stages(w->r, w->c, &w->out));
}

/* The deny made in advance for an end of the worker's: bytes, status. */
struct early {
	struct jh_buf out;
	int status;
	char line[600];		/* for the standard error */
};

static void
early_make(struct early *e, const struct run *r, const char *why)
{
	jh_buf_init(&e->out);
	e->status = deny_answer(r, why, &e->out);
	snprintf(e->line, sizeof(e->line), "%s: %s\n", PROG, why);
}

/* Writes a deny made in advance and ends, with no stdio and no heap. */
static void __attribute__((noreturn))
early_end(const struct run *r, const struct early *e)
{
	(void)jh_write_all(STDERR_FILENO, e->line, strlen(e->line));
	if (e->out.len > 0)
		(void)jh_write_all(STDOUT_FILENO, e->out.p, e->out.len);
	finish_raw(r, e->status);
}

/*
 * Reading the payload and binding the call come before any stage, and a
 * payload of many megabytes takes seconds to parse on a loaded machine:
 * the deadline counts from the start, and until the stages start an
 * alarm at the deadline ends this process with the deny made here, by
 * write(2) alone.  The stages keep the deadline themselves.
 */
static struct early pre_late;
static const struct run *pre_run;

static void
pre_alarm(int sig)
{
	(void)sig;
	early_end(pre_run, &pre_late);
}

void
pre_deadline(const struct run *r, const struct conf *c, uint64_t deadline)
{
	struct itimerval it;
	struct sigaction sa;
	char why[160];
	uint64_t now = jh_mono_ms();

	snprintf(why, sizeof(why), "the gate did not answer within %u ms "
	    "(reading the call)", c->deadline_ms);
	early_make(&pre_late, r, why);
	pre_run = r;
	if (now >= deadline)
		early_end(r, &pre_late);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pre_alarm;
	sigemptyset(&sa.sa_mask);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)((deadline - now) / 1000);
	it.it_value.tv_usec = (suseconds_t)((deadline - now) % 1000 * 1000);
	if (sigaction(SIGALRM, &sa, NULL) == -1 ||
	    setitimer(ITIMER_REAL, &it, NULL) == -1)
		deny(r, "cannot set the deadline: %s", strerror(errno));
}

/* The stages start: the alarm is off, its deny is freed. */
void
pre_deadline_off(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	(void)setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
	jh_buf_free(&pre_late.out);
}

#define HUGE_PAGE	((uintptr_t)2 << 20)

/*
 * The worker's stack where heap_ready could place it in the heap, or 0:
 * its top.  8 MiB, as a main thread's, of which the top MiB lies in the
 * heap's huge page and the rest below it in pages of 4 KiB, touched only
 * by a call that goes that deep (the deepest seen, a chain of eight
 * runners, about 680 KiB).  Below it 256 KiB are unmapped, more than
 * any one frame (the largest is about 150 KiB), so an overflow cannot
 * step over them into the heap: it crashes the worker, which is a deny.
 */
#define HEAP_STACK	(8 << 20)
#define STACK_HOT	(1 << 20)	/* its top, in the huge page */
#define STACK_GUARD	(256 << 10)
static uintptr_t heap_stack_top;

/*
 * Makes the heap's next WORKER_HEAP bytes present, and the top of the
 * worker's stack below them, in one huge page where the kernel has one:
 * the kernel zeroes 2 MiB for each huge page it gives, about 0.1 ms on
 * a virtual machine, so the two share one.  The allocator is told to
 * keep what is freed at its top and to serve blocks of up to 16 MiB from
 * the heap rather than from mmap(2) (whose pages would fault anew); a
 * block that is never freed fills the heap up to where the stack's
 * block must begin for its top to lie 1 MiB into a 2 MiB boundary, and
 * the blocks after the stack's follow it in the same huge page; this
 * process ends with the call.  On a virtual machine a page faulted in
 * costs about 10 microseconds, 4 after MADV_POPULATE_WRITE, and the 2
 * MiB page about 1.3 each.  Best effort: on any failure the pages fault
 * in as they are touched, and the worker's stack is a mapping of its
 * own.
 */
void
heap_ready(void)
{
	void *volatile spacer, *volatile big;
	struct mallinfo2 mi;
	uintptr_t top, lo, stk, heap, guard, below = HEAP_STACK - STACK_HOT;

	if (SANITIZED || mallopt(M_TRIM_THRESHOLD, 32 << 20) == 0 ||
	    mallopt(M_MMAP_THRESHOLD, 16 << 20) == 0)
		return;
	mi = mallinfo2();
	top = (uintptr_t)sbrk(0) - mi.keepcost;	/* the top block's start */
	lo = (top + below + 8192 + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	/*
	 * The heap grown past the huge page with nothing written in it
	 * (a block's bounds are written at its two ends only), so that the
	 * kernel can give it whole; then the stack's block, whose end and
	 * the heap after it lie in it.
	 */
	if ((spacer = malloc(lo - below - top - 64)) == NULL ||
	    (big = malloc(below + 2 * HUGE_PAGE)) == NULL)
		return;
	free(big);
	(void)madvise((void *)lo, HUGE_PAGE, MADV_HUGEPAGE);
	(void)madvise((void *)(lo + STACK_HOT - WORKER_HOT), WORKER_HOT +
	    WORKER_HEAP + 4096, MADV_POPULATE_WRITE);
	if ((stk = (uintptr_t)malloc(HEAP_STACK)) == 0)
		return;
	top = (stk + HEAP_STACK) & ~(uintptr_t)63;
	heap = (stk + HEAP_STACK + 4095) & ~(uintptr_t)4095;
	guard = (stk + 4095) & ~(uintptr_t)4095;
	/* where it did not land as reckoned, it is no stack */
	if (top >= lo + STACK_GUARD && heap + WORKER_HEAP <= lo + HUGE_PAGE &&
	    mprotect((void *)guard, STACK_GUARD, PROT_NONE) == 0)
		heap_stack_top = top;
}

/*
 * Keeps this process, and so the worker it starts, on the CPU it runs
 * on.  The two never run at once: this one sleeps while the worker
 * works.  Left free, the kernel starts the worker on an idle CPU and
 * wakes this one on another when the worker ends, and on a virtual
 * machine each wake of an idle CPU costs tens to hundreds of
 * microseconds: in alternated loops a pinned call took 4 to 10% less
 * time.  The process lives a few milliseconds and starts nothing else
 * on this path; where the pin cannot be set nothing changes.  The mask
 * it had is kept in *old, to be put back if the worker cannot start.
 */
static int
pin_here(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu;

	if ((cpu = sched_getcpu()) == -1 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(*old), old) == -1)
		return (0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return (sched_setaffinity(0, sizeof(one), &one) == 0);
}

int
fused_run(struct run *r, const struct conf *c, uint64_t deadline, int sts[])
{
	/* the fallback's one stage is fused_child, never exec'd: its name */
	static char name[] = PROG;
	char *pv[1] = { name }, *a0[2] = { name, NULL }, **av[1] = { a0 };
	static struct worker w;
	struct early late, died;
	struct jh_buf none;
	struct pollfd p;
	cpu_set_t mask;
	char why[160], *stack;
	uintptr_t top;
	uint64_t now;
	int fds[2], st = 0, pinned = 0;
	pid_t pid = -1;

	snprintf(why, sizeof(why), "the gate did not answer within %u ms",
	    c->deadline_ms);
	early_make(&late, r, why);
	early_make(&died, r, "the gate's worker ended before it answered "
	    "(killed, or a crash)");
	w.r = r;
	w.c = c;
	if (pipe2(fds, O_CLOEXEC) == -1)
		deny(r, "cannot start the gate: %s", strerror(errno));
	if ((top = heap_stack_top) == 0 && !SANITIZED) {
		/* room to place the stack's top at a 2 MiB boundary */
		stack = mmap(NULL, WORKER_STACK + HUGE_PAGE, PROT_READ |
		    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		    MAP_STACK, -1, 0);
		if (stack == MAP_FAILED) {
			close(fds[0]);
			close(fds[1]);
			deny(r, "cannot start the gate: %s", strerror(errno));
		}
		/*
		 * The lowest page stays unmapped: an overflow is a crash.
		 * The hot top is made present only for the worker that will
		 * use it (an older kernel faults it in as it is touched), in
		 * the huge page the top 2 MiB are where the kernel has one.
		 */
		if (mprotect(stack, 4096, PROT_NONE) == 0) {
			top = ((uintptr_t)stack + WORKER_STACK + HUGE_PAGE) &
			    ~(HUGE_PAGE - 1);
			(void)madvise((void *)(top - HUGE_PAGE), HUGE_PAGE,
			    MADV_HUGEPAGE);
			(void)madvise((void *)(top - WORKER_HOT), WORKER_HOT,
			    MADV_POPULATE_WRITE);
		}
	}
	if (top != 0) {
		pinned = pin_here(&mask);
		pid = clone(worker_main, (void *)top, CLONE_VM | SIGCHLD, &w);
	}
	if (pid == -1) {
		if (pinned)
			(void)sched_setaffinity(0, sizeof(mask), &mask);
		close(fds[0]);
		close(fds[1]);
		jh_buf_init(&none);
		return (pipeline(r, c, pv, av, 1, &none, &r->answer, deadline,
		    sts, fused_child));
	}
	close(fds[1]);	/* the worker's copy closes when it ends */
	p.fd = fds[0];
	p.events = POLLIN;
	for (;;) {
		if ((now = jh_mono_ms()) >= deadline) {
			kill(pid, SIGKILL);
			early_end(r, &late);
		}
		p.revents = 0;
		if (poll(&p, 1, (int)(deadline - now)) == -1 && errno != EINTR) {
			kill(pid, SIGKILL);
			early_end(r, &died);
		}
		if (p.revents != 0)
			break;
	}
	/* the worker's files are closed as it exits: it is all but gone */
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			kill(pid, SIGKILL);
			early_end(r, &died);
		}
	close(fds[0]);
	if (!WIFEXITED(st))
		early_end(r, &died);
	jh_buf_free(&r->answer);
	r->answer = w.out;
	jh_buf_free(&late.out);
	jh_buf_free(&died.out);
	sts[0] = st;
	return (st);
}

/*
 * Whether this call takes the fused path: fast=1, a tool call (before or
 * after it ran), one JSON value, and in a test build no stage stand-in.
 */
int
fused(const struct run *r, const struct conf *c)
{
#ifdef JH_TESTING
	int i;

	for (i = 0; i < NSTAGES; i++)
		if (c->stage[i][0] != '\0')
			return (0);
#endif
	if (!c->fast || (r->post == NULL && strcmp(r->event,
	    JH_GATE_EVENT) != 0))
		return (0);
	return (jh_fused_fits(r->payload.p, r->payload.len));
}
