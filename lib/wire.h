/*
 * joulehook: the model APIs' wire formats as jh-proxy meets them
 * (lib/wire.c): Anthropic Messages, OpenAI Chat Completions and
 * Responses, and Gemini's generateContent.  SSE framing, what each API's
 * events and bodies say about usage, ids and the end of a call, and each
 * API's error shape.  Used by jh-proxy (lib/proxy*.c) and
 * tests/fuzz/fuzz-sse.c.
 */
#ifndef JH_WIRE_H
#define JH_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "energy.h"

#define JH_API_ANTHROPIC	1	/* Messages */
#define JH_API_CHAT		2	/* OpenAI Chat Completions */
#define JH_API_RESPONSES	3	/* OpenAI Responses */
#define JH_API_GEMINI		4	/* Gemini generateContent */

/*
 * An event's name ("" none), its data lines joined by newlines (n bytes,
 * NUL-terminated) and its raw bytes as received; name and data NULL for
 * raw bytes of an event too large to read, to pass on.  -1 stops the
 * feed.
 */
typedef int (*jh_sse_cb)(void *ctx, const char *name, const char *data,
    size_t n, const uint8_t *raw, size_t rn);

struct jh_sse {
	struct jh_buf raw;	/* the event being received */
	struct jh_buf data;	/* its data lines */
	char name[64];
	size_t line;		/* start of the line being received */
	size_t max;		/* larger events are passed on unread */
	size_t ndata;
	int skip;		/* an event too large: passed on unread */
};

struct jh_wire {
	int api;
	int hide_usage;		/* chat: drop the include_usage chunk */
	struct jh_usage u;
	int usage_bad;		/* a usage was refused (negative, absurd) */
	char usage_err[128];
	char id[128];		/* message or response id */
	char model[128];
	char stop[48];		/* stop_reason, finish_reason, finishReason
				   or status */
	char err[96];		/* error type from the body or an event */
	int done;		/* the answer's end was seen */
	uint64_t text_bytes;	/* content relayed, for estimates */
	int out_provisional;	/* only message_start's count was seen */
};

void	jh_sse_init(struct jh_sse *s, size_t max);
void	jh_sse_free(struct jh_sse *s);
int	jh_sse_feed(struct jh_sse *s, const uint8_t *p, size_t n,
	    jh_sse_cb cb, void *ctx);
int	jh_wire_event(struct jh_wire *w, const char *name, const char *data,
	    size_t n);
void	jh_wire_body(struct jh_wire *w, const uint8_t *p, size_t n,
	    int status);
int	jh_wire_accepted(const struct jh_wire *w);
void	jh_wire_error(struct jh_buf *b, int api, int status,
	    const char *type, const char *msg);

#endif /* !JH_WIRE_H */
