/*
 * fuzz-hookwire: bytes -> the hardened hook's request and frame parsers
 * (lib/hookwire.c), which take what the other side of the socket sends.
 * Checked: whatever they accept is inside the bytes and within the
 * limits, and a frame built from what was parsed parses back the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hookwire.h"

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_hw_frame f, g;
	char host[64], hdr[JH_HW_HEAD_MAX + 1], *b;
	size_t off, hl;

	if (jh_hw_request(d, n, host, sizeof(host), &off) == 0) {
		if (off > n || off > JH_HW_HEAD_MAX || host[0] == '\0' ||
		    strlen(host) >= sizeof(host) || strchr(host, ' ') != NULL ||
		    d[off - 1] != '\n' || memcmp(d, JH_HW_MAGIC " ", 10) != 0)
			abort();
	}
	switch (jh_hw_frame(d, n, &f)) {
	case 0:
		if (f.hlen + f.out + f.err != n)
			abort();
		/* FALLTHROUGH */
	case -2:
		if (f.status > 255 || f.out > JH_HW_MAX_OUT ||
		    f.err > JH_HW_MAX_DIAG || f.hlen > JH_HW_HEAD_MAX ||
		    f.hlen > n || d[f.hlen - 1] != '\n')
			abort();
		hl = (size_t)snprintf(hdr, sizeof(hdr), "%s %u %zu %zu\n",
		    JH_HW_MAGIC, f.status, f.out, f.err);
		if ((b = calloc(1, hl + f.out + f.err)) == NULL)
			return (0);
		memcpy(b, hdr, hl);
		if (jh_hw_frame(b, hl + f.out + f.err, &g) != 0 ||
		    g.status != f.status || g.out != f.out || g.err != f.err ||
		    g.hlen != hl)
			abort();
		/* One byte short of the whole is cut short, never whole. */
		if (f.out + f.err > 0 &&
		    jh_hw_frame(b, hl + f.out + f.err - 1, &g) != -2)
			abort();
		free(b);
		break;
	case -1:
		break;
	default:
		abort();
	}
	return (0);
}
