/*
 * A fault injector for tests/faults.bats: a shared object that a stand-in
 * stage loads with LD_PRELOAD before it execs a real, dynamically linked
 * program.  It makes one system call fail, or the process stop, at a
 * chosen moment, on a chosen file, so the suite can show what a program
 * does when the disk fails under it or it is stopped holding a lock:
 *
 *	JH_FI_FAIL=CALL:PATH:N:ERRNO[,CALL:PATH:N:ERRNO...]
 *		(up to four) the Nth call (from 1) of CALL (write, pwrite, fsync,
 *		fdatasync, ftruncate or rename) on a file whose path holds
 *		PATH fails with ERRNO (EIO, ENOSPC, EDQUOT or EROFS),
 *		without touching the file; a write or pwrite with SHORT
 *		instead writes half of what it was given and returns that,
 *		and every later one on such a file fails with ENOSPC, as a
 *		disk that fills up in the middle of a write does.
 *		For rename, PATH is looked for in the new name.
 *
 *	JH_FI_STOP_LOCK=PATH
 *		the first exclusive flock(2) taken on a file whose path holds
 *		PATH stops the process (SIGSTOP) at once, lock held, until a
 *		SIGCONT.
 *
 * The path of a descriptor is read from /proc/self/fd.  Nothing is
 * injected when neither variable is set; a malformed JH_FI_FAIL is
 * reported on the standard error and ignored.
 */
#include <sys/file.h>
#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FI_MAX	4

struct fault {
	char call[16];
	char path[1024];
	long nth;
	long seen;
	int err;		/* 0: a short write */
	int full;		/* after a short write: ENOSPC */
};

struct fi {
	int parsed;
	struct fault f[FI_MAX];
	int n;
	char stop[1024];
	int stopped;
};

static struct fi fi;

static int
fi_errno(const char *e)
{
	static const struct {
		const char *name;
		int err;
	} t[] = {
		{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },
		{ "EROFS", EROFS }, { "SHORT", 0 }, { NULL, -1 }
	};
	int i;

	for (i = 0; t[i].name != NULL; i++)
		if (strcmp(e, t[i].name) == 0)
			break;
	return (t[i].err);
}

static void
fi_init(void)
{
	const char *s;
	char e[16], spec[1200];
	struct fault *f;
	size_t len;

	if (fi.parsed)
		return;
	fi.parsed = 1;
	if ((s = getenv("JH_FI_STOP_LOCK")) != NULL)
		snprintf(fi.stop, sizeof(fi.stop), "%s", s);
	if ((s = getenv("JH_FI_FAIL")) == NULL)
		return;
	while (*s != '\0' && fi.n < FI_MAX) {
		len = strcspn(s, ",");
		snprintf(spec, sizeof(spec), "%.*s", (int)len, s);
		s += len + (s[len] == ',');
		f = &fi.f[fi.n];
		if (sscanf(spec, "%15[^:]:%1023[^:]:%ld:%15s", f->call,
		    f->path, &f->nth, e) != 4 || f->nth < 1 ||
		    (f->err = fi_errno(e)) == -1) {
			fprintf(stderr, "faultinject: JH_FI_FAIL: %s: want "
			    "CALL:PATH:N:ERRNO\n", spec);
			memset(f, 0, sizeof(*f));
			continue;
		}
		fi.n++;
	}
}

/* Whether the file open on fd has a path holding sub. */
static int
fd_matches(int fd, const char *sub)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) == -1)
		return (0);
	path[n] = '\0';
	return (strstr(path, sub) != NULL);
}

/*
 * Whether this call is the one to fail: -1 with errno set, 1 for a short
 * write, 0 to go on.
 */
static int
fi_hit(const char *call, int fd, const char *name)
{
	struct fault *f;
	int i;

	fi_init();
	for (i = 0; i < fi.n; i++) {
		f = &fi.f[i];
		if (strcmp(call, f->call) != 0 || (name != NULL ?
		    strstr(name, f->path) == NULL : !fd_matches(fd, f->path)))
			continue;
		if (f->full) {
			errno = ENOSPC;
			return (-1);
		}
		if (++f->seen != f->nth)
			continue;
		if (f->err == 0) {
			f->full = 1;
			return (1);
		}
		errno = f->err;
		return (-1);
	}
	return (0);
}

static void *
next(const char *name)
{
	return (dlsym(RTLD_NEXT, name));
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	ssize_t (*f)(int, const void *, size_t) = next("write");
	int h = fi_hit("write", fd, NULL);

	if (h == -1)
		return (-1);
	return (f(fd, buf, h == 1 && n > 1 ? n / 2 : n));
}

ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*f)(int, const void *, size_t, off_t) = next("pwrite");
	int h = fi_hit("pwrite", fd, NULL);

	if (h == -1)
		return (-1);
	return (f(fd, buf, h == 1 && n > 1 ? n / 2 : n, off));
}

ssize_t
pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return (pwrite(fd, buf, n, off));
}

int
fsync(int fd)
{
	int (*f)(int) = next("fsync");

	if (fi_hit("fsync", fd, NULL) == -1)
		return (-1);
	return (f(fd));
}

int
fdatasync(int fd)
{
	int (*f)(int) = next("fdatasync");

	if (fi_hit("fdatasync", fd, NULL) == -1)
		return (-1);
	return (f(fd));
}

int
ftruncate(int fd, off_t len)
{
	int (*f)(int, off_t) = next("ftruncate");

	if (fi_hit("ftruncate", fd, NULL) == -1)
		return (-1);
	return (f(fd, len));
}

int
ftruncate64(int fd, off_t len)
{
	return (ftruncate(fd, len));
}

int
rename(const char *from, const char *to)
{
	int (*f)(const char *, const char *) = next("rename");

	if (fi_hit("rename", -1, to) == -1)
		return (-1);
	return (f(from, to));
}

int
flock(int fd, int op)
{
	int (*f)(int, int) = next("flock");
	int r = f(fd, op);

	fi_init();
	if (r == 0 && (op & LOCK_EX) && fi.stop[0] != '\0' && !fi.stopped &&
	    fd_matches(fd, fi.stop)) {
		fi.stopped = 1;
		raise(SIGSTOP);
	}
	return (r);
}
