/*
 * joulehook: the host adapters' table and the canonical payload
 * (hosts.c; each host's entry is in a host-*.c file, and what the
 * adapters share is host.h).  Per host: how its native payload becomes
 * the canonical one (Claude Code's shape: session_id, hook_event_name,
 * tool_name, tool_input with the canonical keys, cwd, tool_use_id), the
 * class of each of its tools, and its answer to each verdict, a verdict
 * it lacks degraded to a deny.  The contract is jh-normalize(1), "The
 * ActionEvent", "Classes", "content_id" and "HOSTS", and
 * joulehook-formats(5), "ActionEvent".
 */
#ifndef JH_HOSTS_H
#define JH_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct jh_buf;
struct jh_err;
struct jh_reader;

/* The canonical payload's keys, the same for every host. */
#define JH_HK_SESSION	"session_id"
#define JH_HK_EVENT	"hook_event_name"
#define JH_HK_TOOL	"tool_name"
#define JH_HK_INPUT	"tool_input"
#define JH_HK_CWD	"cwd"
#define JH_HK_CALL	"tool_use_id"
#define JH_GATE_EVENT	"PreToolUse"

/* The types of the canonical fields hosts.c carries over (canon_fields). */
#define JH_HF_ANY	0	/* any JSON value */
#define JH_HF_TEXT	1	/* a string */
#define JH_HF_NAME	2	/* a string without NUL (ids, paths) */
#define JH_HF_UINT	3	/* a non-negative integer */
#define JH_HF_BOOL	4
#define JH_HF_OBJECT	5
#define JH_HF_ARRAY	6

struct jh_host_field {
	const char *native;	/* the canonical payload's key */
	const char *name;	/* the ActionEvent's */
	int type;		/* JH_HF_* */
};

/* A host's tool: its class, and the renames of its input's keys. */
struct jh_host_tool {
	const char *pattern;	/* a tool name; '*' matches any run */
	const char *cls;	/* shell read write edit fetch search mcp
				   agent (other when nothing matches) */
	const char *keys;	/* "native=canonical ..." input renames */
};

/* The verdicts a host answers, and what ran after a tool (post_answer). */
#define JH_ANSWER_ALLOW		0
#define JH_ANSWER_REWRITE	1
#define JH_ANSWER_ASK		2
#define JH_ANSWER_DENY		3

#define JH_POST_OK		0	/* what ran is what was decided */
#define JH_POST_STOP		1	/* end the run after this tool */
#define JH_POST_WITHHOLD	2	/* and replace the tool's output */

/* Where a host's adapter comes from. */
#define JH_HOST_RUN	0	/* tested against the real host */
#define JH_HOST_DOCS	1	/* from documentation, not run */

struct jh_host {
	const char *name;		/* -H name, the event's "host" */
	int from;			/* JH_HOST_RUN, JH_HOST_DOCS */
	/* the canonical payload of a native one (NULL: it is canonical) */
	json_t *(*canon)(const json_t *p, char *why, size_t whysz);
	const struct jh_host_tool *tools;
	int can_ask;			/* else ask is answered deny */
	int can_rewrite;		/* else rewrite is answered deny */
	int block_status;		/* the exit status that blocks */
	/* the answer to a verdict (jh_host_answer) */
	int (*answer)(struct jh_buf *b, int verdict, const char *reason,
	    const char *updated, int replace);
	/* the native input of a rewrite, NULL when it has none */
	json_t *(*native_input)(const char *tool, const json_t *upd);
	/* the answer after a tool ran: what is JH_POST_* */
	int (*post_answer)(struct jh_buf *b, const char *event, int what,
	    const char *reason, const char *path);
	/* a Read's text when it is the whole file (1), 0 when not, -1 */
	int (*read_text)(const json_t *resp, const char **p, size_t *n,
	    const char **path);
	/* the path a tool's response says it wrote */
	const char *(*written_path)(const json_t *resp);
	int transcript;			/* transcript_path is Claude Code's */
	int can_stop;			/* it ends a run after a tool */
};

const struct jh_host *jh_host_lookup(const char *name);
/* The known hosts' names, separated by ", ", for messages. */
const char *jh_host_names(char *out, size_t sz);
/* The class of a tool by name (tool[0..n)): "other" when none matches. */
const char *jh_host_class(const struct jh_host *h, const char *tool, size_t n);
/* 1 with the action's sha256: id from the payload alone, 0 when none. */
int	jh_content_id(char *out, const struct jh_host *h, const char *cls,
	    const char *tool, size_t n, const json_t *input);
/* The canonical payload of a native one; the first defect left in why. */
json_t	*jh_host_canon(const struct jh_host *h, const json_t *p, char *why,
	    size_t whysz);
/* The ActionEvent of a native payload (keep_native: what it did not use). */
json_t	*jh_host_event(const struct jh_host *h, const json_t *p,
	    int keep_native);
/*
 * One payload the reader framed to its ActionEvent line, appended to out:
 * 0, 1 when it is refused (why in e), -1 when out of memory.
 */
int	jh_normalize_one(struct jh_buf *out, const struct jh_host *h,
	    const char *val, size_t len, int native, struct jh_err *e);
/*
 * The host's answer to a verdict (JH_ANSWER_*) into b; returns the exit
 * status.  A verdict the host lacks becomes a deny that says so.
 */
int	jh_host_answer(struct jh_buf *b, const struct jh_host *h, int verdict,
	    const char *reason, const char *tool, const char *updated,
	    int replace);
/* What a post-tool event says happened ("ok", "failed", ...), or NULL. */
const char *jh_host_post_status(const struct jh_host *h, const char *event);
int	jh_host_post_answer(struct jh_buf *b, const struct jh_host *h,
	    const char *event, int what, const char *reason, const char *path);

/*
 * The next JSON value of a stream of values written back to back, framed
 * but not parsed: 1 with its bytes (*start: its stream offset), 0 at the
 * end of input, or one of these.
 */
#define JH_JSON_TOOLONG	(-1)	/* a value over JH_MAX_RECORD, skipped */
#define JH_JSON_BROKEN	(-2)	/* input ends inside a value; read error */
int	jh_reader_json(struct jh_reader *r, const char **val, size_t *len,
	    uint64_t *start, struct jh_err *e);

#endif /* JH_HOSTS_H */
