/*
 * fuzz-sse: bytes -> jh-proxy's readers of what the client and the
 * upstream send, without a connection: the request body's scan
 * (jh_px_scan, lib/proxyserve.c: model, stream, the output token limit,
 * the worst case held, the Chat Completions body rewritten to ask for
 * usage) and the upstream's answer as libcurl hands it over
 * (jh_px_on_header, jh_px_on_body, lib/proxyup.c), the SSE parser and
 * the usage, id and stop readers of each API (lib/wire.c), then the
 * answer's whole-body reading (jh_wire_body) as jh_px_finish makes it.
 *
 * The first byte picks: bits 0-1 the API (Messages, Chat Completions,
 * Responses), bit 2 whether the usage chunk is to be hidden, bit 3 the
 * request (else the answer), bits 4-7 how the answer is cut into the
 * pieces libcurl delivers.  An answer that does not begin with "HTTP/"
 * gets a 200 with an SSE content type (a JSON one when bit 2 is set and
 * the API is Messages).  Checked:
 *
 *   - the hold is the worst case, or the cap; a rewritten body is JSON
 *     that asks for usage;
 *   - what is relayed is the answer's bytes, untouched (whole events of
 *     them, when a usage chunk is hidden);
 *   - usage read is within the token limit, the text counted is no more
 *     than the bytes read, every string is one.
 */
#include "fuzz-common.h"

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "energy.h"
#include "json.h"
#include "ledger.h"
#include "proxy.h"
#include "wire.h"

static const int apis[4] = { JH_API_ANTHROPIC, JH_API_CHAT,
    JH_API_RESPONSES, JH_API_GEMINI };

/* The proxy's state, as jh-proxy's main makes it: options only. */
static struct jh_px *px;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[600];
	struct jh_err e;

	(void)argc; (void)argv;
	fz_world("fuzz-sse", "request scan, SSE and body readers");
	if ((px = jh_px_new()) == NULL)
		abort();
	snprintf(p, sizeof(p), "%s/lib/coefficients.json", FZ_TOP);
	if (jh_coeffs_load(&px->o.coeffs, p, &e) == -1) {
		fprintf(stderr, "%s\n", e.msg);
		abort();
	}
	px->o.default_out = 4096;
	return (0);
}

static void
cstring(const char *s, size_t sz)
{
	if (memchr(s, '\0', sz) == NULL)
		abort();
}

static void
request(struct call *c, uint8_t ctl, const uint8_t *d, size_t n)
{
	char why[512];
	json_t *j;
	int r, reals;

	jh_buf_add(&c->body, d, n);
	/*
	 * A large body is read member by member: wherever the whole body
	 * parses as an object, that reading is the same object (all of its
	 * numbers reals when one integer is past int64, where the member
	 * reading makes reals of that member's only), and with small
	 * members left out it still parses.
	 */
	if ((j = jh_json_load_wire(d, n, &reals)) != NULL &&
	    json_is_object(j)) {
		json_t *m;
		int mr;

		if ((m = jh_json_load_members((const char *)d, n, (size_t)-1,
		    &mr, NULL)) == NULL || mr != reals || (!reals &&
		    !json_equal(j, m)))
			abort();
		json_decref(m);
		if ((m = jh_json_load_members((const char *)d, n, 8, &mr,
		    NULL)) == NULL)
			abort();
		json_decref(m);
	}
	json_decref(j);
	px->o.cap_uj = (ctl & 0x40) ? 1000000 : 0;
	r = jh_px_scan(c, why, sizeof(why));
	if (r == -1) {
		cstring(why, sizeof(why));
		return;
	}
	if (r != 0)
		return;
	cstring(c->model, sizeof(c->model));
	/*
	 * The worst case is the output limit (or -m's default) plus the
	 * thinking budget, times the choices asked for, saturated: a count
	 * of choices no provider takes (n past 128, say) makes a hold
	 * larger than any budget, never a smaller one.
	 */
	if (c->fam == NULL || c->n_cand == 0 || c->out_worst !=
	    jh_mul_sat(jh_add_sat(c->lim_asked, c->think), c->n_cand) ||
	    c->worst < c->in_cost ||
	    (px->o.cap_uj == 0 && c->hold != c->worst) ||
	    (px->o.cap_uj > 0 && c->hold != (c->worst >
	    px->o.cap_uj ? px->o.cap_uj : c->worst)))
		abort();
	if (c->fwd != NULL) {
		if (c->api != JH_API_CHAT || !c->client_stream ||
		    !c->w.hide_usage)
			abort();
		j = jh_json_load_wire(c->fwd, c->fwdlen, &reals);
		if (!json_is_object(j) || !json_is_true(json_object_get(
		    json_object_get(j, "stream_options"), "include_usage"))) {
			fprintf(stderr, "rewritten body: %.*s\n",
			    (int)c->fwdlen, c->fwd);
			abort();
		}
		json_decref(j);
	}
}

static const char default_sse[] = "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream\r\n\r\n";
static const char default_json[] = "HTTP/1.1 200 OK\r\n"
    "Content-Type: application/json\r\n\r\n";

/*
 * Header lines one at a time, as libcurl gives them: whole lines, each
 * with its line end (a header block cut short never reaches the
 * callback: the transfer fails).
 */
static size_t
headers(struct call *c, const uint8_t *d, size_t n)
{
	const uint8_t *nl;
	size_t at = 0, e;

	while (at < n && !c->headers_done &&
	    (nl = memchr(d + at, '\n', n - at)) != NULL) {
		e = (size_t)(nl - d) + 1;
		if (jh_px_on_header((char *)(uintptr_t)(d + at), 1, e - at, c) !=
		    e - at)
			break;
		at = e;
	}
	return (at);
}

static void
answer(struct call *c, uint8_t ctl, const uint8_t *d, size_t n)
{
	const char *h;
	size_t at, k, piece;
	uint32_t seed = ctl;

	if (n >= 5 && memcmp(d, "HTTP/", 5) == 0)
		at = headers(c, d, n);
	else {
		h = (c->api == JH_API_ANTHROPIC || c->api == JH_API_GEMINI) &&
		    (ctl & 0x04) ? default_json : default_sse;
		(void)headers(c, (const uint8_t *)h, strlen(h));
		at = 0;
	}
	if (!c->headers_done)
		return;
	/* a hidden usage chunk is asked for only on a chat stream */
	c->w.hide_usage = c->api == JH_API_CHAT && c->sse && (ctl & 0x04);
	for (k = at; k < n; k += piece) {
		seed = seed * 1103515245u + 12345u;
		piece = (ctl >> 4) == 0 ? n - k : 1 + (seed >> 16) %
		    (1u << ((ctl >> 4) % 12));
		if (piece > n - k)
			piece = n - k;
		if (jh_px_on_body((char *)(uintptr_t)(d + k), 1, piece, c) !=
		    piece)
			return;
	}
	if (!c->sse)
		jh_wire_body(&c->w, c->copy.p, c->copy.len, c->status);
	(void)jh_wire_accepted(&c->w);
	if (!c->w.hide_usage && (c->out.len != n - at ||
	    (n > at && memcmp(c->out.p, d + at, n - at) != 0))) {
		fprintf(stderr, "relayed %zu bytes of %zu, not the same\n",
		    c->out.len, n - at);
		abort();
	}
	if (c->out.len > n - at)
		abort();
	if (!c->sse && (c->copy.len != n - at || (n > at &&
	    memcmp(c->copy.p, d + at, n - at) != 0)))
		abort();
	cstring(c->w.id, sizeof(c->w.id));
	cstring(c->w.model, sizeof(c->w.model));
	cstring(c->w.stop, sizeof(c->w.stop));
	cstring(c->w.err, sizeof(c->w.err));
	cstring(c->w.usage_err, sizeof(c->w.usage_err));
	if (c->w.u.in > JH_TOKENS_MAX || c->w.u.out > JH_TOKENS_MAX ||
	    c->w.u.cache_read > JH_TOKENS_MAX ||
	    c->w.u.cache_write > JH_TOKENS_MAX || c->w.text_bytes > n)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct call *c;
	uint8_t ctl;

	if (n < 1 || (c = calloc(1, sizeof(*c))) == NULL)
		return (0);
	ctl = d[0];
	c->px = px;
	c->client_fd = -1;
	c->metered = 1;
	c->forwarded = 1;
	c->api = c->w.api = apis[ctl & 3];
	if (ctl & 0x08)
		request(c, ctl, d + 1, n - 1);
	else
		answer(c, ctl, d + 1, n - 1);
	jh_px_call_free(c);
	return (0);
}
