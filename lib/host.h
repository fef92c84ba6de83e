/*
 * joulehook: what a host adapter (host-*.c) needs from hosts.c to turn
 * its native payload into the canonical one, and patch.c's reading of
 * an apply_patch text.  Only the adapters, hosts.c and patch.c include
 * this; the table itself is hosts.h.
 */
#ifndef JH_HOST_H
#define JH_HOST_H

#include <stddef.h>

#include <jansson.h>

#include "hosts.h"

struct jh_buf;

/* One native event name and the canonical one it becomes. */
struct jh_hc_event {
	const char *native;
	const char *canon;
};

extern const struct jh_host jh_host_claude_code, jh_host_codex,
    jh_host_gemini_cli, jh_host_cline, jh_host_cursor, jh_host_windsurf,
    jh_host_antigravity;
extern const struct jh_host jh_host_acp;
extern const struct jh_host jh_host_opencode;

/* Claude Code's answers, which Codex shares in part. */
void	jh_hc_hso(struct jh_buf *b, const char *decision, const char *reason);
/* {"decision": ...}: allow, a rewrite's input between pre and post, deny */
int	jh_hc_decision(struct jh_buf *b, int verdict, const char *reason,
	    const char *updated, const char *pre, const char *post);
/* After a tool: nothing, or continue:false with the reason (and as the
 * systemMessage).  Returns 0. */
int	jh_hc_stop(struct jh_buf *b, int what, const char *reason, int sysmsg);

/* Renames the keys of a tool input ("native=canonical ..."), or back. */
json_t	*jh_hc_rename(const json_t *in, const char *keys, int back);
const struct jh_host_tool *jh_hc_tool(const struct jh_host *h,
	    const char *tool);
/* Sets tool_name and tool_input; the native ones kept where they differ. */
int	jh_hc_set_tool(json_t *c, const struct jh_host *h, const char *native,
	    const char *canon, json_t *in);
/* Renames the event at key to its canonical name, kept as native_event. */
const char *jh_hc_event(json_t *c, const char *key,
	    const struct jh_hc_event *map);
void	jh_hc_move(json_t *o, const char *from, const char *to);
/* A tool_use_id for a host that sends none: session, tool and input. */
int	jh_hc_derive_id(json_t *c);
/* A JSON value a host sent as a string of JSON, decoded. */
json_t	*jh_hc_unstring(const json_t *v);
/* "mcp__<server>__<tool>" */
char	*jh_hc_mcp_name(const char *server, const char *tool);
/* The canonical input of a tool with the default rename back. */
json_t	*jh_hc_native_default(const struct jh_host *h, const char *tool,
	    const json_t *upd);

/* patch.c: the files an apply_patch text adds, updates, moves, deletes. */
int	jh_patch_paths(const char *s, size_t n, json_t *out, char *why,
	    size_t whysz);

#endif
