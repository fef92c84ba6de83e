/*
 * joulehook: a listening TCP socket for the programs that serve HTTP
 * (listen.c): jh-meter(1) otel -l and jh-proxy(1) -l, whose pages are
 * its contract.
 */
#ifndef JH_LISTEN_H
#define JH_LISTEN_H

#include <stdarg.h>
#include <stddef.h>

struct jh_err;

/*
 * Listens on spec, "addr:port" ("127.0.0.1:4318", "[::1]:4318") or a
 * port alone (on 127.0.0.1), a numeric address only and a loopback one
 * unless any is set; port 0 takes a free one.  The address and port
 * bound are written to shown[0..sz).  Returns the socket, or -1.
 */
int	jh_listen_tcp(const char *spec, int any, char *shown, size_t sz,
	    struct jh_err *e);

/*
 * A message of the HTTP server's (libmicrohttpd's log callback: fmt and
 * ap) as one line in m[0..sz), its trailing newlines dropped.
 */
void	jh_listen_msg(char *m, size_t sz, const char *fmt, va_list ap);

#endif /* JH_LISTEN_H */
