/*
 * joulehook: the state files' plumbing: the CRC-32 that seals fixed
 * records (the log's sidecar, the index, the ledger's slots), flock(2)
 * bounded by a timer, and the careful openers every state file and
 * directory goes through (jh-chain(1), State files).
 */
#ifndef JH_STATEFS_H
#define JH_STATEFS_H

#include <stddef.h>
#include <stdint.h>

struct jh_err;

/* CRC-32 (IEEE 802.3), as zlib's crc32() computes it. */
uint32_t jh_crc32(const void *p, size_t n);

/*
 * flock(2) with op on fd, waiting at most ms (0: not at all); -1 with
 * why in e when the lock was not taken.  jh_tflock is the same for a
 * threaded process: only the calling thread's wait is interrupted.
 */
int	jh_flock(int fd, int op, unsigned ms, struct jh_err *e);
int	jh_tflock(int fd, int op, unsigned ms, struct jh_err *e);

/*
 * The rules a state file or directory must meet, checked on the open fd;
 * name is what the reason in e calls it.
 */
#define JH_ST_DIR	1	/* jh_state_check: a directory */
#define JH_ST_READ	2	/* only read: any owner, still not writable */
int	jh_state_check(int fd, int flags, const char *name, struct jh_err *e);

/*
 * To write: a directory under dirfd (made first when create is set) and a
 * state file, opened read-write (made when create is set, *created then
 * saying whether this call made it).  Each returns the fd, or -1 with
 * why in e.
 */
int	jh_open_dir(int dirfd, const char *name, int create, struct jh_err *e);
int	jh_open_state(int dirfd, const char *name, int create, int *created,
	    struct jh_err *e);

/*
 * To read only, what another user may keep (JH_ST_READ): a directory
 * under at and a file under dirfd.  -1 with errno set (EPERM when the
 * checks failed) and why in e.
 */
int	jh_st_dir(int at, const char *name, struct jh_err *e);
int	jh_st_file(int dirfd, const char *name, struct jh_err *e);

#endif /* JH_STATEFS_H */
