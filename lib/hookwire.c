/*
 * hookwire.c: the hardened hook's request and frame (hookwire.h).
 * Strict: one exact header shape, decimal numbers of at most 9 digits,
 * lengths within the limits, a frame that is exactly as long as it says.
 */
#include <string.h>

#include "hookwire.h"

/* A decimal of 1 to 9 digits at *q, then *q past it; -1 if none. */
static int
number(const char **q, const char *end, unsigned long *v)
{
	const char *s = *q;

	*v = 0;
	while (*q < end && **q >= '0' && **q <= '9' && *q - s < 9)
		*v = *v * 10 + (unsigned long)(*(*q)++ - '0');
	if (*q == s || (*q < end && **q >= '0' && **q <= '9'))
		return (-1);
	return (0);
}

/* The header line: its end (the newline) after "jh-hook/1 ", or NULL. */
static const char *
head(const void *p, size_t n)
{
	const char *c = p, *nl;
	size_t ml = strlen(JH_HW_MAGIC);

	if ((nl = memchr(c, '\n', n < JH_HW_HEAD_MAX ? n :
	    JH_HW_HEAD_MAX)) == NULL || (size_t)(nl - c) <= ml + 1 ||
	    memcmp(c, JH_HW_MAGIC, ml) != 0 || c[ml] != ' ')
		return (NULL);
	return (nl);
}

int
jh_hw_request(const void *p, size_t n, char *host, size_t hostsz,
    size_t *off)
{
	const char *c = p, *nl, *h;
	size_t hl;

	if ((nl = head(p, n)) == NULL)
		return (-1);
	h = c + strlen(JH_HW_MAGIC) + 1;
	hl = (size_t)(nl - h);
	if (hl == 0 || hl >= hostsz || memchr(h, ' ', hl) != NULL ||
	    memchr(h, '\0', hl) != NULL)
		return (-1);
	memcpy(host, h, hl);
	host[hl] = '\0';
	*off = (size_t)(nl - c) + 1;
	return (0);
}

int
jh_hw_frame(const void *p, size_t n, struct jh_hw_frame *f)
{
	const char *c = p, *nl, *q;
	unsigned long v[3];
	int i;

	if ((nl = head(p, n)) == NULL)
		return (-1);
	q = c + strlen(JH_HW_MAGIC);
	for (i = 0; i < 3; i++) {
		if (q >= nl || *q++ != ' ' || number(&q, nl, &v[i]) == -1)
			return (-1);
	}
	if (q != nl || v[0] > 255 || v[1] > JH_HW_MAX_OUT ||
	    v[2] > JH_HW_MAX_DIAG)
		return (-1);
	f->hlen = (size_t)(nl - c) + 1;
	f->status = (unsigned)v[0];
	f->out = v[1];
	f->err = v[2];
	if (f->hlen + f->out + f->err != n)
		return (-2);
	return (0);
}
