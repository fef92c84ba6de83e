/*
 * jh-proxy: the upstream call (libcurl, a pooled handle pair per call)
 * and the relay of its answer to the client as it arrives, reading the
 * usage on the way (lib/wire.c).
 */
#include <sys/socket.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <microhttpd.h>

#include "buf.h"
#include "proxy.h"
#include "util.h"
#include "wire.h"

#define SSE_EVENT_MAX	(4u * 1024 * 1024)
#define COPY_MAX	(16u * 1024 * 1024)	/* a JSON answer read for usage */
#define OUT_HIGH	(1u * 1024 * 1024)	/* relay buffer: pause upstream */

/* --- upstream --------------------------------------------------------- */

/* Hop-by-hop and framing headers, never passed on either way. */
static const char *const hop[] = { "connection", "keep-alive",
    "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "trailers", "transfer-encoding", "upgrade", "content-length",
    NULL };

static int
in_list(const char *const *l, const char *name, size_t n)
{
	for (; *l != NULL; l++)
		if (strlen(*l) == n && strncasecmp(*l, name, n) == 0)
			return (1);
	return (0);
}

/* Is the header named in the request's Connection header? */
static int
named_by_connection(const char *conn, const char *name)
{
	size_t n = strlen(name);
	const char *p = conn;

	while (p != NULL && *p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (strncasecmp(p, name, n) == 0 && (p[n] == '\0' ||
		    p[n] == ',' || p[n] == ' ' || p[n] == '\t'))
			return (1);
		p = strchr(p, ',');
	}
	return (0);
}

/*
 * The client's headers go upstream unchanged (anthropic-version and
 * anthropic-beta always), except hop-by-hop ones, Host (libcurl writes
 * the upstream's), Accept-Encoding (identity is asked, so usage can be
 * read: jh-proxy(1), Headers) and the proxy's own token.  Keys are passed,
 * never logged.
 */
enum MHD_Result
jh_px_req_header(void *cls, enum MHD_ValueKind kind, const char *key,
    const char *value)
{
	static const char *const drop[] = { "host", "expect",
	    "accept-encoding", "x-joulehook-token", NULL };
	struct hdrctx *x = cls;
	struct curl_slist *l;
	char *line;
	size_t n;

	(void)kind;
	n = strlen(key);
	if (in_list(hop, key, n) || in_list(drop, key, n) ||
	    (x->conn != NULL && named_by_connection(x->conn, key)))
		return (MHD_YES);
	if (value == NULL)
		value = "";
	if ((line = malloc(n + strlen(value) + 3)) == NULL) {
		x->oom = 1;
		return (MHD_NO);
	}
	/* "Name;" is how libcurl sends a header with an empty value. */
	if (*value == '\0')
		sprintf(line, "%s;", key);
	else
		sprintf(line, "%s: %s", key, value);
	if ((l = curl_slist_append(x->c->hdrs, line)) == NULL)
		x->oom = 1;
	else
		x->c->hdrs = l;
	free(line);
	return (x->oom ? MHD_NO : MHD_YES);
}

/*
 * The status code of a status line of n bytes, read within them: a
 * header line libcurl hands over is not NUL-terminated (atoi, skipping
 * the line's own CR LF as blanks, would read on past its end).
 */
static int
status_of(const char *p, size_t n)
{
	const char *sp = memchr(p, ' ', n), *end = p + n;
	int st = 0;

	if (sp == NULL)
		return (0);
	for (sp++; sp < end && (*sp == ' ' || *sp == '\t'); sp++)
		;
	for (; sp < end && *sp >= '0' && *sp <= '9' && st < 1000; sp++)
		st = st * 10 + (*sp - '0');
	return (st);
}

size_t
jh_px_on_header(char *p, size_t sz, size_t nm, void *cls)
{
	struct call *c = cls;
	size_t n = sz * nm, k;
	const char *colon, *v;
	struct rhdr *r;

	c->last_data = jh_mono_ms();
	while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* A new header block (after a 1xx): start over. */
		c->status = status_of(p, n);
		for (k = 0; k < c->nrh; k++) {
			free(c->rh[k].name);
			free(c->rh[k].value);
		}
		c->nrh = 0;
		return (sz * nm);
	}
	if (n == 0) {
		if (c->status >= 200) {
			c->headers_done = 1;
			for (k = 0; k < c->nrh; k++)
				if (strcasecmp(c->rh[k].name,
				    "content-type") == 0 &&
				    strncasecmp(c->rh[k].value,
				    "text/event-stream", 17) == 0)
					c->sse = 1;
			if (c->sse && c->metered)
				jh_sse_init(&c->sse_state, SSE_EVENT_MAX);
		}
		return (sz * nm);
	}
	if ((colon = memchr(p, ':', n)) == NULL || colon == p)
		return (sz * nm);
	k = (size_t)(colon - p);
	if (in_list(hop, p, k) || (k == 4 && strncasecmp(p, "date", 4) == 0))
		return (sz * nm);
	for (v = colon + 1; v < p + n && (*v == ' ' || *v == '\t'); v++)
		;
	if ((r = realloc(c->rh, (c->nrh + 1) * sizeof(*r))) == NULL)
		return (0);
	c->rh = r;
	r = &c->rh[c->nrh];
	r->name = strndup(p, k);
	r->value = strndup(v, (size_t)(p + n - v));
	if (r->name == NULL || r->value == NULL) {
		free(r->name);
		free(r->value);
		return (0);
	}
	c->nrh++;
	return (sz * nm);
}

static int
read_event(void *cls, const char *name, const char *data, size_t n,
    const uint8_t *raw, size_t rn)
{
	struct call *c = cls;

	(void)raw;
	(void)rn;
	if (name != NULL)
		jh_wire_event(&c->w, name, data, n);
	return (0);
}

/*
 * The ',"usage":null' a chunk's object ends with once include_usage is
 * asked for: where d[0..n) ends so, its comma's offset, *end past the
 * null; else -1.  Read from the end, so only the top-level last member
 * matches (a string cannot hold a bare quote).
 */
static ssize_t
usage_null(const char *d, size_t n, size_t *end)
{
	static const char key[] = "\"usage\"";
	size_t i = n;

#define WS()	while (i > 0 && strchr(" \t\r\n", d[i - 1]) != NULL) i--
	WS();
	if (i == 0 || d[--i] != '}')
		return (-1);
	WS();
	if (i < 4 || memcmp(d + i - 4, "null", 4) != 0)
		return (-1);
	*end = i;
	i -= 4;
	WS();
	if (i == 0 || d[--i] != ':')
		return (-1);
	WS();
	if (i < sizeof(key) - 1 || memcmp(d + i - (sizeof(key) - 1), key,
	    sizeof(key) - 1) != 0)
		return (-1);
	i -= sizeof(key) - 1;
	WS();
	if (i == 0 || d[--i] != ',')
		return (-1);
#undef WS
	return ((ssize_t)i);
}

/*
 * The relay for a stream with an event to hide: whole events.  The
 * usage chunk the proxy asked for is dropped, and the "usage": null it
 * made every other chunk carry is taken out again, so the client gets
 * the chunks it asked for.
 */
static int
relay_event(void *cls, const char *name, const char *data, size_t n,
    const uint8_t *raw, size_t rn)
{
	struct call *c = cls;
	const uint8_t *at;
	ssize_t comma;
	size_t end, off;

	if (name != NULL && !jh_wire_event(&c->w, name, data, n))
		return (0);
	if (name != NULL && n > 0 && (comma = usage_null(data, n, &end)) >= 0 &&
	    (at = memmem(raw, rn, data, n)) != NULL) {
		off = (size_t)(at - raw);
		jh_buf_add(&c->out, raw, off + (size_t)comma);
		jh_buf_add(&c->out, raw + off + end, rn - off - end);
	} else
		jh_buf_add(&c->out, raw, rn);
	return (c->out.oom ? -1 : 0);
}

/*
 * Upstream bytes: into the relay buffer as they arrive, and a copy into
 * the parser.  A client slower than the provider pauses the transfer.
 */
size_t
jh_px_on_body(char *p, size_t sz, size_t nm, void *cls)
{
	struct call *c = cls;
	size_t n = sz * nm;

	if (c->out.len - c->out_pos >= OUT_HIGH) {
		c->paused = 1;
		return (CURL_WRITEFUNC_PAUSE);
	}
	c->last_data = jh_mono_ms();
	if (!c->metered)
		jh_buf_add(&c->out, p, n);
	else if (c->sse && c->w.hide_usage) {
		if (jh_sse_feed(&c->sse_state, (const uint8_t *)p, n,
		    relay_event, c) == -1)
			return (0);
	} else if (c->sse) {
		jh_buf_add(&c->out, p, n);
		if (jh_sse_feed(&c->sse_state, (const uint8_t *)p, n,
		    read_event, c) == -1)
			return (0);
	} else {
		jh_buf_add(&c->out, p, n);
		if (!c->copy_lost && c->copy.len + n > COPY_MAX) {
			c->copy_lost = 1;
			c->lost_bytes = c->copy.len;
			jh_buf_free(&c->copy);
		} else if (!c->copy_lost)
			jh_buf_add(&c->copy, p, n);
		if (c->copy_lost)
			c->lost_bytes += n;
	}
	return (c->out.oom ? 0 : n);
}

/*
 * Drives the transfer on this thread until there is something to relay
 * (or, with for_headers, until the status and headers are in), or it
 * ends.  Returns -1 when the client went away, the upstream went quiet
 * for too long, or the proxy is cutting calls short.
 */
int
jh_px_pump(struct call *c, int for_headers)
{
	struct curl_waitfd wfd;
	CURLMsg *msg;
	char b;
	ssize_t r;
	int running, left, n;

	for (;;) {
		curl_multi_perform(c->up.m, &running);
		while ((msg = curl_multi_info_read(c->up.m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE) {
				c->up_done = 1;
				c->result = msg->data.result;
			}
		if (c->up_done || (for_headers ? c->headers_done :
		    c->out.len > c->out_pos))
			return (0);
		if (atomic_load(&c->px->stopping) == 2) {
			c->cut = 1;
			return (-1);
		}
		if (c->px->o.idle_ms > 0 && jh_mono_ms() - c->last_data >
		    c->px->o.idle_ms) {
			c->idle = 1;
			return (-1);
		}
		memset(&wfd, 0, sizeof(wfd));
		wfd.fd = c->client_fd;
		wfd.events = CURL_WAIT_POLLIN;
		n = 0;
		curl_multi_poll(c->up.m, c->watch_client ? &wfd : NULL,
		    c->watch_client ? 1 : 0, 200, &n);
		if (c->watch_client && (wfd.revents & CURL_WAIT_POLLIN)) {
			/* Readable: the client hung up, or sent more. */
			r = recv(c->client_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
			if (r == 0 || (r == -1 && errno != EAGAIN &&
			    errno != EWOULDBLOCK && errno != EINTR)) {
				c->client_gone = 1;
				return (-1);
			}
			if (r > 0)
				c->watch_client = 0;
		}
	}
}

/* MHD's content reader: relays what is there, pumping for more. */
ssize_t
jh_px_relay(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct call *c = cls;
	size_t n;
	int clean;

	(void)pos;
	for (;;) {
		if (c->out.len > c->out_pos) {
			n = c->out.len - c->out_pos;
			if (n > max)
				n = max;
			memcpy(buf, c->out.p + c->out_pos, n);
			c->out_pos += n;
			if (c->out_pos == c->out.len)
				c->out.len = c->out_pos = 0;
			if (c->paused && c->out.len - c->out_pos < OUT_HIGH / 2) {
				c->paused = 0;
				curl_easy_pause(c->up.h, CURLPAUSE_CONT);
			}
			return ((ssize_t)n);
		}
		if (c->up_done) {
			clean = c->result == CURLE_OK;
			jh_px_finish(c, NULL);
			return (clean ? MHD_CONTENT_READER_END_OF_STREAM :
			    MHD_CONTENT_READER_END_WITH_ERROR);
		}
		if (jh_px_pump(c, 0) == -1) {
			jh_px_finish(c, NULL);
			return (MHD_CONTENT_READER_END_WITH_ERROR);
		}
	}
}

void
jh_px_up_get(struct call *c)
{
	struct jh_px *px = c->px;

	pthread_mutex_lock(&px->mu);
	if (px->npool > 0)
		c->up = px->pool[--px->npool];
	pthread_mutex_unlock(&px->mu);
	if (c->up.m == NULL) {
		c->up.m = curl_multi_init();
		c->up.h = curl_easy_init();
	} else
		curl_easy_reset(c->up.h);
}

/* Back to the pool: the multi handle keeps its live connections. */
static void
up_put(struct call *c)
{
	struct jh_px *px = c->px;

	if (c->up.m == NULL)
		return;
	curl_multi_remove_handle(c->up.m, c->up.h);
	pthread_mutex_lock(&px->mu);
	if (px->npool < POOL_MAX && c->up.h != NULL) {
		px->pool[px->npool++] = c->up;
		c->up.m = NULL;
	}
	pthread_mutex_unlock(&px->mu);
	if (c->up.m != NULL) {
		curl_easy_cleanup(c->up.h);
		curl_multi_cleanup(c->up.m);
	}
	memset(&c->up, 0, sizeof(c->up));
}

void
jh_px_call_free(struct call *c)
{
	size_t i;

	up_put(c);
	curl_slist_free_all(c->hdrs);
	for (i = 0; i < c->nrh; i++) {
		free(c->rh[i].name);
		free(c->rh[i].value);
	}
	free(c->rh);
	if (c->sse && c->metered && c->headers_done)
		jh_sse_free(&c->sse_state);
	jh_buf_free(&c->body);
	jh_buf_free(&c->out);
	jh_buf_free(&c->copy);
	free(c->fwd);
	free(c->uri);
	free(c);
}

