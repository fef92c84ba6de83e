/*
 * jh-hook's config (jh-hook(1), FILES): one install-time file, named by
 * absolute path, of key=value lines.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"
#include "util.h"

static int
set_path(char *dst, const char *v)
{
	if (v[0] != '/' || strlen(v) >= PATH_MAX)
		return (-1);
	strcpy(dst, v);
	return (0);
}

/*
 * developer=UID or developer=UID:HOME, the callers -a serves: a decimal
 * uid, and the home their "~" means (else user_home).
 */
static int
add_developer(struct conf *c, const char *v)
{
	unsigned long u;
	char *end;

	if (c->ndev >= CONF_DEVELOPERS || v[0] < '0' || v[0] > '9')
		return (-1);
	errno = 0;
	u = strtoul(v, &end, 10);
	if (errno != 0 || u >= (uid_t)-1 || (*end != '\0' && *end != ':'))
		return (-1);
	c->dev[c->ndev].uid = (uid_t)u;
	c->dev[c->ndev].home[0] = '\0';
	if (*end == ':' && set_path(c->dev[c->ndev].home, end + 1) == -1)
		return (-1);
	c->ndev++;
	return (0);
}

/* One key=value line of the config; -1 for a key or value it refuses. */
static int
conf_line(struct conf *c, const char *line, const char *v)
{
	if (strcmp(line, "bindir") == 0) {
		if (set_path(c->bindir, v) == -1)
			return (-1);
	} else if (strcmp(line, "home") == 0) {
		if (set_path(c->home, v) == -1)
			return (-1);
	} else if (strcmp(line, "state") == 0) {
		if (set_path(c->state, v) == -1)
			return (-1);
	} else if (strcmp(line, "user_home") == 0) {
		if (set_path(c->user_home, v) == -1)
			return (-1);
	} else if (strcmp(line, "protect") == 0) {
		if (c->nprotect >= CONF_PROTECT ||
		    set_path(c->protect[c->nprotect++], v) == -1)
			return (-1);
	} else if (strcmp(line, "deadline_ms") == 0) {
		if (jh_parse_ms(&c->deadline_ms, v) == -1 ||
		    c->deadline_ms < 100 || c->deadline_ms > 600000)
			return (-1);
	} else if (strcmp(line, "lock_ms") == 0) {
		if (jh_parse_ms(&c->lock_ms, v) == -1 || c->lock_ms > 600000)
			return (-1);
	} else if (strcmp(line, "answer_allow") == 0)
		c->answer_allow = strcmp(v, "1") == 0;
	else if (strcmp(line, "meter") == 0) {
		if (strcmp(v, "transcript") == 0)
			c->meter = 1;
		else if (strcmp(v, "none") != 0)
			return (-1);
	} else if (strcmp(line, "sink") == 0) {
		if (set_path(c->sink, v) == -1)
			return (-1);
	} else if (strcmp(line, "readable") == 0)
		c->readable = strcmp(v, "1") == 0;
	else if (strcmp(line, "fast") == 0) {
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
			return (-1);
		c->fast = v[0] == '1';
	} else if (strcmp(line, "developer") == 0) {
		if (add_developer(c, v) == -1)
			return (-1);
	}
#ifdef JH_TESTING
	else if (strncmp(line, "stage", 5) == 0 && line[5] >= '0' &&
	    line[5] < '0' + NSTAGES && line[6] == '\0') {
		if (set_path(c->stage[line[5] - '0'], v) == -1)
			return (-1);
	} else if (strcmp(line, "now") == 0 || strcmp(line,
	    "nonce") == 0) {
		char *dst = strcmp(line, "now") == 0 ? c->now :
		    c->nonce;
		if (strlen(v) >= sizeof(c->now))
			return (-1);
		strcpy(dst, v);
	} else if (strcmp(line, "fault") == 0) {
		if (sscanf(v, "%d:%d", &c->fault_stage,
		    &c->fault_sig) != 2 || c->fault_stage < 0 ||
		    c->fault_stage >= NSTAGES || c->fault_sig < 0 ||
		    c->fault_sig >= NSIG)
			return (-1);
	}
#endif
	else
		return (-1);
	return (0);
}

/* The config's size at most: every line it may hold, with room. */
#define CONF_MAX	((CONF_PROTECT + CONF_DEVELOPERS + 32) * (PATH_MAX + 64))

/*
 * The config is the installer's: absolute path, a regular file owned by
 * the user and writable by nobody else, "key=value" lines.  c is all
 * zero on entry: main's, in static storage, so that the pages of its
 * path arrays are never touched unless a line fills them (a memset here
 * would fault in 150 KiB on every hook call, and copy them at the fork).
 */
int
read_conf(struct conf *c, const char *path, char *why, size_t whysz)
{
	struct stat st;
	struct jh_buf b;
	struct jh_err e;
	char line[PATH_MAX + 64], *eq;
	const char *p, *end, *nl;
	size_t n;
	int fd, lineno = 0;

	c->deadline_ms = 8000;
	c->lock_ms = 2000;
	c->fast = 1;
#ifdef JH_TESTING
	c->fault_stage = -1;
#endif
	if (path[0] != '/')
		return (snprintf(why, whysz, "config path %s is not absolute",
		    path), -1);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return (snprintf(why, whysz, "%s: %s", path, strerror(errno)),
		    -1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return (snprintf(why, whysz, "%s: not a regular file of the "
		    "user's that only the user can write", path), -1);
	}
	/* read whole with read(2): stdio's buffer and code cost page faults */
	jh_buf_init(&b);
	if (jh_read_all(&b, fd, CONF_MAX, &e) == -1) {
		close(fd);
		jh_buf_free(&b);
		return (snprintf(why, whysz, "%s: %s", path, e.msg), -1);
	}
	close(fd);
	for (p = (const char *)b.p, end = p + b.len; p < end; p = nl + 1) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((n = (size_t)(nl - p)) >= sizeof(line) ||
		    memchr(p, '\0', n) != NULL)
			goto bad;
		memcpy(line, p, n);
		line[n] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if ((eq = strchr(line, '=')) == NULL)
			goto bad;
		*eq = '\0';
		if (conf_line(c, line, eq + 1) == -1)
			goto bad;
	}
	jh_buf_free(&b);
	if (c->bindir[0] == '\0' || c->home[0] == '\0' || c->state[0] == '\0')
		return (snprintf(why, whysz, "%s: needs bindir, home and "
		    "state", path), -1);
	if (c->lock_ms >= c->deadline_ms)
		return (snprintf(why, whysz, "%s: lock_ms must be below "
		    "deadline_ms", path), -1);
	return (0);
bad:
	jh_buf_free(&b);
	return (snprintf(why, whysz, "%s:%d: bad line", path, lineno), -1);
}
