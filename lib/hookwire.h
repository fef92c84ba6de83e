/*
 * hookwire.h: the hardened hook's two messages over its Unix socket
 * (jh-hook(1), "Hardened mode"), parsed in one place for the client, the
 * server and the fuzz target.
 *
 *	request:  "jh-hook/1 HOST\n" PAYLOAD            (then a half-close)
 *	frame:    "jh-hook/1 STATUS OUTLEN ERRLEN\n" OUTPUT DIAGNOSTICS
 */
#ifndef JH_HOOKWIRE_H
#define JH_HOOKWIRE_H

#include <stddef.h>

#define JH_HW_MAGIC	"jh-hook/1"
#define JH_HW_MAX_OUT	(1024 * 1024)	/* a frame's standard output */
#define JH_HW_MAX_DIAG	(64 * 1024)	/* a frame's standard error */
#define JH_HW_HEAD_MAX	80		/* the longest first line */

struct jh_hw_frame {
	size_t hlen;		/* the header line, its newline included */
	unsigned status;	/* 0 to 255 */
	size_t out, err;	/* the lengths that follow */
};

/*
 * A request's first line: the host's name (1 to hostsz - 1 bytes, no
 * space or NUL) into host, the payload's offset into *off; -1 when the
 * line is not a request.
 */
int	jh_hw_request(const void *p, size_t n, char *host, size_t hostsz,
	    size_t *off);

/*
 * A frame: 0 when p holds exactly one whole frame, -1 when its header is
 * malformed or over the limits, -2 when it is well formed but cut short
 * or followed by more bytes.
 */
int	jh_hw_frame(const void *p, size_t n, struct jh_hw_frame *f);

#endif
