/*
 * joulehook: the state files' plumbing (statefs.h): the CRC-32 of fixed
 * records, flock(2) bounded by a timer, and the careful openers.
 *
 * State files are opened O_NOFOLLOW under a directory opened
 * O_DIRECTORY|O_NOFOLLOW and must be regular files owned by the user,
 * with one link and no group or other write (jh-chain(1), State files);
 * a reader may read another user's, never one others could write.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jh.h"
#include "statefs.h"

/*
 * CRC-32 (IEEE 802.3, reflected), as zlib's crc32() computes it, eight
 * bytes a step (slice-by-8): the ledger's two 8800-byte slots are
 * checked at every decision and every model call.  The tables are made
 * once, and only read after.
 */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void
crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^
			    crc_tab[0][crc_tab[k - 1][i] & 0xff];
}

uint32_t
jh_crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;

	pthread_once(&crc_once, crc_init);
	for (; n >= 8; n -= 8, b += 8) {
		c ^= (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		    (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		c = crc_tab[7][c & 0xff] ^ crc_tab[6][(c >> 8) & 0xff] ^
		    crc_tab[5][(c >> 16) & 0xff] ^ crc_tab[4][c >> 24] ^
		    crc_tab[3][b[4]] ^ crc_tab[2][b[5]] ^ crc_tab[1][b[6]] ^
		    crc_tab[0][b[7]];
	}
	while (n-- > 0)
		c = (c >> 8) ^ crc_tab[0][(c ^ *b++) & 0xff];
	return (c ^ 0xffffffffu);
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/* Why a bounded flock(2) of ms failed with errno saved: EINTR is the timer. */
static int
flock_failed(struct jh_err *e, int saved, unsigned ms)
{
	if (saved == EINTR)
		return (jh_errf(e, "timed out after %u ms waiting for a lock",
		    ms));
	return (jh_errf(e, "flock: %s", strerror(saved)));
}

/*
 * flock(2) bounded by a timer: an interval timer interrupts the blocking
 * call (no SA_RESTART), and keeps firing, so a signal that arrives just
 * before flock() is entered cannot leave it blocked forever.  A lock no
 * one holds is taken at once, with no timer (four system calls fewer,
 * twice in every gated call).
 */
int
jh_flock(int fd, int op, unsigned ms, struct jh_err *e)
{
	struct sigaction sa, old;
	struct itimerval it, off;
	int r, saved;

	if (flock(fd, op | LOCK_NB) == 0)
		return (0);
	if (errno != EWOULDBLOCK && errno != EINTR)
		return (flock_failed(e, errno, ms));
	if (ms == 0)
		return (jh_errf(e, "lock busy"));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	it.it_interval.tv_usec = 20000;
	setitimer(ITIMER_REAL, &it, NULL);
	r = flock(fd, op);
	saved = errno;
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return (r == -1 ? flock_failed(e, saved, ms) : 0);
}

/*
 * The same bounded flock(2) for a threaded process (no thread waits
 * forever):
 * SIGALRM and setitimer belong to the whole process, so a POSIX timer
 * (timer_create, SIGEV_THREAD_ID) interrupts only the calling thread,
 * with a real-time signal whose handler does nothing and has no
 * SA_RESTART.  It keeps firing, so a signal that lands just before
 * flock() is entered cannot leave it blocked.  The signal is unblocked
 * only around the wait, and any instance still pending afterwards is
 * drained, so no later system call of the thread sees a stray EINTR.
 * flock(2) locks belong to the open file description: each thread must
 * open the file itself for the lock to exclude the others.
 */
#define TFLOCK_SIG	(SIGRTMIN + 4)
#ifndef sigev_notify_thread_id	/* glibc before 2.41 names it only so */
#define sigev_notify_thread_id	_sigev_un._tid
#endif

static pthread_once_t tflock_once = PTHREAD_ONCE_INIT;

static void
tflock_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(TFLOCK_SIG, &sa, NULL);
}

int
jh_tflock(int fd, int op, unsigned ms, struct jh_err *e)
{
	struct itimerspec it;
	struct sigevent sev;
	struct timespec zero = { 0, 0 };
	sigset_t one, old;
	timer_t t;
	int r, saved;

	if (ms == 0) {
		if (flock(fd, op | LOCK_NB) == 0)
			return (0);
		return (jh_errf(e, "lock busy"));
	}
	/* Uncontended: no timer at all. */
	if (flock(fd, op | LOCK_NB) == 0)
		return (0);
	if (errno != EWOULDBLOCK)
		return (jh_errf(e, "flock: %s", strerror(errno)));
	pthread_once(&tflock_once, tflock_install);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = TFLOCK_SIG;
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) == -1)
		return (jh_errf(e, "timer_create: %s", strerror(errno)));
	sigemptyset(&one);
	sigaddset(&one, TFLOCK_SIG);
	pthread_sigmask(SIG_UNBLOCK, &one, &old);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_nsec = (long)(ms % 1000) * 1000000;
	it.it_interval.tv_nsec = 20000000;
	timer_settime(t, 0, &it, NULL);
	r = flock(fd, op);
	saved = errno;
	timer_delete(t);
	pthread_sigmask(SIG_BLOCK, &one, NULL);
	while (sigtimedwait(&one, NULL, &zero) > 0)
		;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (r == -1 ? flock_failed(e, saved, ms) : 0);
}

/*
 * The effective user: no program of the suite changes it once started,
 * and a gated call checks a dozen state files against it.
 */
static uid_t
euid(void)
{
	static uid_t u = (uid_t)-1;

	if (u == (uid_t)-1)
		u = geteuid();
	return (u);
}

/*
 * The rules every state file and directory must meet (jh-chain(1),
 * State files).
 * flags: JH_ST_DIR, and JH_ST_READ for a reader, who may read records
 * another user keeps (hardened mode: the gate's user writes them, the
 * developer reads them); a reader still refuses what others could write.
 */
int
jh_state_check(int fd, int flags, const char *name, struct jh_err *e)
{
	struct stat st;
	int isdir = flags & JH_ST_DIR;

	if (fstat(fd, &st) == -1)
		return (jh_errf(e, "%s: %s", name, strerror(errno)));
	if (isdir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return (jh_errf(e, "%s: not a %s", name, isdir ? "directory" :
		    "regular file"));
	if (!(flags & JH_ST_READ) && st.st_uid != euid())
		return (jh_errf(e, "%s: not owned by the user", name));
	if (st.st_mode & 022)
		return (jh_errf(e, "%s: writable by group or others", name));
	if (!isdir && st.st_nlink != 1)
		return (jh_errf(e, "%s: has %lu links", name,
		    (unsigned long)st.st_nlink));
	return (0);
}

/*
 * Opens a directory under at, never through a link, and checks it
 * (flags: JH_ST_READ or 0); errno is kept for the caller, EPERM when a
 * check failed.
 */
static int
open_dir(int at, const char *name, int flags, struct jh_err *e)
{
	int fd, saved;

	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		saved = errno;
		jh_errf(e, "%s: %s", name, errno == ENOTDIR ||
		    errno == ELOOP ? "not a directory (or a symlink)" :
		    strerror(errno));
		errno = saved;
		return (-1);
	}
	if (jh_state_check(fd, JH_ST_DIR | flags, name, e) == -1) {
		close(fd);
		errno = EPERM;
		return (-1);
	}
	return (fd);
}

/*
 * Clears the O_NONBLOCK a state file was opened with, so that a planted
 * FIFO could not hang the open: none of the openers sets another status
 * flag F_SETFL could change (O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME), so
 * the flags are known without asking F_GETFL.
 */
static void
blocking(int fd)
{
	(void)fcntl(fd, F_SETFL, 0);
}

/*
 * Opens a state file under dirfd with the open flags fl: O_NOFOLLOW,
 * O_NONBLOCK so a planted FIFO cannot hang us, then the checks (flags,
 * as open_dir's).  errno as open_dir keeps it.
 */
static int
open_file(int dirfd, const char *name, int fl, int flags, struct jh_err *e)
{
	int fd, saved;

	fd = openat(dirfd, name, fl | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd == -1) {
		saved = errno;
		jh_errf(e, "%s: %s", name, errno == ELOOP ?
		    "is a symbolic link" : strerror(errno));
		errno = saved;
		return (-1);
	}
	if (jh_state_check(fd, flags, name, e) == -1) {
		close(fd);
		errno = EPERM;
		return (-1);
	}
	blocking(fd);
	return (fd);
}

/*
 * Opens (creating 0755 less the umask) a directory under dirfd, never
 * through a link.  What is there is opened first: on every call but a
 * state directory's first, the mkdirat(2) would only fail.
 */
int
jh_open_dir(int dirfd, const char *name, int create, struct jh_err *e)
{
	int fd;

	if ((fd = open_dir(dirfd, name, 0, e)) != -1 || !create ||
	    errno != ENOENT)
		return (fd);
	if (mkdirat(dirfd, name, 0755) == -1 && errno != EEXIST)
		return (jh_errf(e, "%s: %s", name, strerror(errno)));
	return (open_dir(dirfd, name, 0, e));
}

/*
 * Opens a state file under dirfd to write, created 0644 (less the umask)
 * when create is set.  Sets *created when this call made it.
 */
int
jh_open_state(int dirfd, const char *name, int create, int *created,
    struct jh_err *e)
{
	int fd;

	if (created != NULL)
		*created = 0;
	/*
	 * What is there is opened first (every call but a file's first);
	 * one that is not is made O_EXCL, so that *created is true only
	 * for the call that made it, and one a racing call made between
	 * the two is opened as it is.
	 */
	if ((fd = open_file(dirfd, name, O_RDWR, 0, e)) != -1 || !create ||
	    errno != ENOENT)
		return (fd);
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK | O_CREAT | O_EXCL, 0644);
	if (fd == -1 && errno != EEXIST)
		return (jh_errf(e, "%s: %s", name, strerror(errno)));
	if (fd == -1)
		return (open_file(dirfd, name, O_RDWR, 0, e));
	if (created != NULL)
		*created = 1;
	if (jh_state_check(fd, 0, name, e) == -1) {
		close(fd);
		return (-1);
	}
	blocking(fd);
	return (fd);
}

/* Opens a directory read-only, never through a link, and checks it. */
int
jh_st_dir(int at, const char *name, struct jh_err *e)
{
	return (open_dir(at, name, JH_ST_READ, e));
}

/* Opens a state file read-only: no link, no FIFO wait, the S10 checks. */
int
jh_st_file(int dirfd, const char *name, struct jh_err *e)
{
	return (open_file(dirfd, name, O_RDONLY, JH_ST_READ, e));
}
