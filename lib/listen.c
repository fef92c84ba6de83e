/*
 * joulehook: a listening TCP socket on "addr:port" ("127.0.0.1:4318",
 * "[::1]:4318", or a port alone, on 127.0.0.1), for the programs that
 * serve HTTP (jh-meter(1) otel -l, jh-proxy(1) -l).  Port 0 takes a free
 * one; the address and port bound are written to shown.  A numeric
 * address only: no name is looked up.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jh.h"
#include "listen.h"

int
jh_listen_tcp(const char *spec, int any, char *shown, size_t sz,
    struct jh_err *e)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[256], *colon, *end;
	const char *h;
	unsigned long port;
	int fd, one = 1, loop;

	memset(&ss, 0, sizeof(ss));
	if (strlen(spec) + 10 >= sizeof(host))
		return (jh_errf(e, "%s: too long for addr:port", spec));
	/* A port alone is loopback's. */
	if (*spec != '\0' && strspn(spec, "0123456789") == strlen(spec))
		snprintf(host, sizeof(host), "127.0.0.1:%s", spec);
	else
		strcpy(host, spec);
	if ((colon = strrchr(host, ':')) == NULL)
		return (jh_errf(e, "%s: not addr:port", spec));
	*colon = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (colon[1] < '0' || colon[1] > '9' || *end != '\0' || errno != 0 ||
	    port > 65535)
		return (jh_errf(e, "%s: the port is not 0 to 65535", spec));
	h = host;
	if (h[0] == '[' && h[strlen(h) - 1] == ']') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		host[strlen(host) - 1] = '\0';
		h++;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, h, &s6->sin6_addr) != 1)
			return (jh_errf(e, "%s: not a numeric address", spec));
		loop = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, h, &s4->sin_addr) != 1)
			return (jh_errf(e, "%s: not a numeric address", spec));
		loop = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
		sl = sizeof(*s4);
	}
	if (!loop && !any)
		return (jh_errf(e, "%s is not a loopback address: anyone who "
		    "can reach it could write units into the logs", spec));
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (jh_errf(e, "socket: %s", strerror(errno)));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1 ||
	    listen(fd, 128) == -1) {
		jh_errf(e, "%s: %s", spec, strerror(errno));
		close(fd);
		return (-1);
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET6)
		snprintf(shown, sz, "[%s]:%u", h, ntohs(((struct sockaddr_in6 *)
		    &ss)->sin6_port));
	else
		snprintf(shown, sz, "%s:%u", h, ntohs(((struct sockaddr_in *)
		    &ss)->sin_port));
	return (fd);
}

void
jh_listen_msg(char *m, size_t sz, const char *fmt, va_list ap)
{
	size_t n;

	if (sz == 0)
		return;
	vsnprintf(m, sz, fmt, ap);
	n = strlen(m);
	while (n > 0 && m[n - 1] == '\n')
		m[--n] = '\0';
}
