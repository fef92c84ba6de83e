/*
 * joulehook: the Claude Code and Codex adapters.  Claude Code's payload
 * is the canonical one (jh-normalize(1) "HOSTS"); Codex sends the same
 * shape (observed with 0.171.0) with its own tools and fewer answers.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "json.h"

/*
 * Claude Code 2.1.328.  Tool names are matched exactly, or by a pattern
 * whose '*' matches any run of characters; a tool no pattern matches is
 * of class "other".
 */
static const struct jh_host_tool cc_tools[] = {
	{ "Bash", "shell", NULL },
	{ "PowerShell", "shell", NULL },
	{ "Write", "write", NULL },
	{ "Edit", "edit", NULL },
	{ "MultiEdit", "edit", NULL },
	{ "NotebookEdit", "edit", NULL },
	{ "Read", "read", NULL },
	{ "Glob", "search", NULL },
	{ "Grep", "search", NULL },
	{ "LS", "search", NULL },
	{ "WebFetch", "fetch", NULL },
	{ "WebSearch", "fetch", NULL },
	{ "Agent", "agent", NULL },
	{ "Task", "agent", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

void
jh_hc_hso(struct jh_buf *b, const char *decision, const char *reason)
{
	jh_buf_adds(b, "{\"hookSpecificOutput\":{\"hookEventName\":"
	    "\"PreToolUse\"");
	if (decision == NULL)
		return;
	jh_buf_addf(b, ",\"permissionDecision\":\"%s\","
	    "\"permissionDecisionReason\":", decision);
	jh_json_str(b, reason, strlen(reason));
}

/*
 * Claude Code's PreToolUse answers (jh-normalize(1), Claude Code answers):
 * allow is "no opinion" (exit 0, nothing on stdout) so the host's own
 * permission flow still applies, unless the grant replaces the prompt;
 * a rewrite is updatedInput alone, which the host checks again; deny is
 * the deny JSON and exit 2, which blocks even if the JSON were not
 * understood.
 */
static int
cc_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	switch (verdict) {
	case JH_ANSWER_ALLOW:
		if (!replace)
			return (0);
		jh_hc_hso(b, "allow", reason);
		break;
	case JH_ANSWER_REWRITE:
		jh_hc_hso(b, replace ? "allow" : NULL, reason);
		jh_buf_adds(b, ",\"updatedInput\":");
		jh_buf_adds(b, updated);
		break;
	case JH_ANSWER_ASK:
		/*
		 * The REPL's dialogs for Write, Edit and Read do not show a
		 * hook's permissionDecisionReason (tests/claude-session.bats);
		 * a systemMessage is shown to the user for every tool.
		 */
		jh_hc_hso(b, "ask", reason);
		jh_buf_adds(b, "},\"systemMessage\":");
		jh_json_str(b, reason, strlen(reason));
		jh_buf_adds(b, "}\n");
		return (0);
	default:
		jh_hc_hso(b, "deny", reason);
		jh_buf_adds(b, "}}\n");
		return (2);
	}
	jh_buf_adds(b, "}}\n");
	return (0);
}

/*
 * Claude Code's answers after a tool ran (jh-result(1)):
 * nothing when what ran is what was decided; otherwise continue:false,
 * which ends the run after this tool, with the reason for the user and
 * for the model; a Read whose bytes are not the ones decided on is
 * replaced (updatedToolOutput, in the Read result's own shape).
 */
static int
cc_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	if (what == JH_POST_OK)
		return (0);
	jh_buf_adds(b, "{\"continue\":false,\"stopReason\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, ",\"systemMessage\":");
	jh_json_str(b, reason, strlen(reason));
	if (strcmp(event, "PostToolUse") == 0 ||
	    strcmp(event, "PostToolUseFailure") == 0) {
		jh_buf_addf(b, ",\"hookSpecificOutput\":{\"hookEventName\":"
		    "\"%s\",\"additionalContext\":", event);
		jh_json_str(b, reason, strlen(reason));
		if (what == JH_POST_WITHHOLD && path != NULL &&
		    strcmp(event, "PostToolUse") == 0) {
			jh_buf_adds(b, ",\"updatedToolOutput\":{\"type\":"
			    "\"text\",\"file\":{\"filePath\":");
			jh_json_str(b, path, strlen(path));
			jh_buf_adds(b, ",\"content\":");
			jh_json_str(b, reason, strlen(reason));
			jh_buf_adds(b, ",\"numLines\":1,\"startLine\":1,"
			    "\"totalLines\":1}}");
		}
		jh_buf_adds(b, "}");
	}
	jh_buf_adds(b, "}\n");
	return (0);
}

/*
 * A Read result's text when it is the whole file (1 with *p, *n),
 * 0 when it is not text or only part of the file, -1 when malformed.
 */
static int
cc_read_text(const json_t *resp, const char **p, size_t *n,
    const char **path)
{
	const json_t *f, *c, *start, *nl, *tot, *fp;

	if (!json_is_object(resp))
		return (-1);
	if (!json_is_string(json_object_get(resp, "type")) ||
	    strcmp(json_string_value(json_object_get(resp, "type")),
	    "text") != 0)
		return (0);
	f = json_object_get(resp, "file");
	c = json_object_get(f, "content");
	fp = json_object_get(f, "filePath");
	start = json_object_get(f, "startLine");
	nl = json_object_get(f, "numLines");
	tot = json_object_get(f, "totalLines");
	if (!json_is_string(c) || !json_is_string(fp))
		return (-1);
	*path = json_string_value(fp);
	if (!json_is_integer(start) || !json_is_integer(nl) ||
	    !json_is_integer(tot) || json_integer_value(start) != 1 ||
	    json_integer_value(nl) != json_integer_value(tot))
		return (0);
	*p = json_string_value(c);
	*n = json_string_length(c);
	return (1);
}

/* The path a Write or Edit result says it wrote, or NULL. */
static const char *
cc_written_path(const json_t *resp)
{
	const json_t *fp = json_object_get(resp, "filePath");

	return (json_is_string(fp) ? json_string_value(fp) : NULL);
}


const struct jh_host jh_host_claude_code = {
	"claude-code", JH_HOST_RUN, NULL, cc_tools, 1, 1, 2,
	cc_answer, NULL, cc_post_answer, cc_read_text, cc_written_path, 1, 1
};

/*
 * Codex 0.171.0: exec_command reaches the hook as "Bash" with the
 * command string alone, apply_patch with the patch text as "command"
 * (observed); exec_command under its own name (cmd, workdir) is mapped
 * too, should a build send it so.  spawn_agent is its subagent.
 */
static const struct jh_host_tool codex_tools[] = {
	{ "Bash", "shell", NULL },
	{ "exec_command", "shell", "cmd=command workdir=workdir" },
	{ "apply_patch", "edit", NULL },
	{ "view_image", "read", "path=file_path" },
	{ "web_search", "fetch", NULL },
	{ "spawn_agent", "agent", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

/*
 * Whether a shell line is exactly "apply_patch <<'TAG'", a patch and
 * "TAG" (what Codex applies itself): anything more is a shell line and
 * decided as one.  Sets [*beg, *end) to the patch.
 */
static int
heredoc_patch(const char *s, size_t n, const char **beg, const char **end)
{
	const char *e = s + n, *tag, *te, *body, *q;
	size_t tl;

	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		e--;
	if ((size_t)(e - s) < 13 || memcmp(s, "apply_patch", 11) != 0)
		return (0);
	s += 11;
	while (s < e && *s == ' ')
		s++;
	if (e - s < 2 || s[0] != '<' || s[1] != '<')
		return (0);
	s += 2;
	while (s < e && *s == ' ')
		s++;
	if (s < e && (*s == '\'' || *s == '"'))
		s++;
	for (tag = s; s < e && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' &&
	    *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'); s++)
		;
	if ((tl = (size_t)(s - tag)) == 0)
		return (0);
	te = s;
	if (s < e && (*s == '\'' || *s == '"'))
		s++;
	if (s >= e || *s != '\n')
		return (0);
	body = s + 1;
	/* the line that ends the here-document is the last one */
	if ((size_t)(e - body) < tl + 1 || memcmp(e - tl, tag, tl) != 0 ||
	    e[-(ptrdiff_t)tl - 1] != '\n')
		return (0);
	q = e - tl - 1;
	(void)te;
	if ((size_t)(q - body) < 28 || memcmp(body, "*** Begin Patch", 15) != 0)
		return (0);
	while (q > body && q[-1] == '\n')
		q--;
	if (q - body < 13 || memcmp(q - 13, "*** End Patch", 13) != 0)
		return (0);
	*beg = body;
	*end = q;
	return (1);
}

/*
 * A patch's files become the input's "paths", so the gate decides
 * every file it adds, updates, moves or deletes as a write of it.  A
 * shell line that only feeds a patch to apply_patch (Codex applies it
 * itself) is decided as the patch.
 */
static json_t *
codex_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *in, *paths, *cmd;
	const char *tool, *s, *beg, *end;
	size_t n;

	if (c == NULL)
		return (NULL);
	tool = json_string_value(json_object_get(c, JH_HK_TOOL));
	in = json_object_get(c, JH_HK_INPUT);
	cmd = json_object_get(in, "command");
	if (tool == NULL || !json_is_string(cmd))
		return (c);
	s = json_string_value(cmd);
	n = json_string_length(cmd);
	if (strcmp(tool, "Bash") == 0) {
		if (!heredoc_patch(s, n, &beg, &end))
			return (c);
		json_object_set_new(c, "native_tool", json_string(tool));
		json_object_set_new(c, "native_input", json_deep_copy(in));
		json_object_set_new(c, JH_HK_TOOL, json_string("apply_patch"));
		in = json_object();
		json_object_set_new(in, "command", json_stringn(beg,
		    (size_t)(end - beg)));
		/* the old input, which beg points into, goes with this */
		json_object_set_new(c, JH_HK_INPUT, in);
		cmd = json_object_get(in, "command");
		if (!json_is_string(cmd)) {
			json_decref(c);
			return (NULL);
		}
		s = json_string_value(cmd);
		n = json_string_length(cmd);
	} else if (strcmp(tool, "apply_patch") != 0)
		return (c);
	if ((paths = json_array()) == NULL) {
		json_decref(c);
		return (NULL);
	}
	if (jh_patch_paths(s, n, paths, why, whysz) == 0)
		json_object_set_new(in, "paths", paths);
	else
		json_decref(paths);
	return (c);
}

/*
 * Codex's answers (observed) are Claude Code's but that a rewrite must
 * be "allow" with updatedInput, which alone Codex ignores; an ask never
 * comes here (the core denies it: Codex runs the tool on one).  Codex
 * treats a field it does not support as a failed hook and runs the
 * tool, so nothing else is ever written.
 */
static int
codex_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	return (cc_answer(b, verdict, reason, updated, replace ||
	    verdict == JH_ANSWER_REWRITE));
}

/* A rewrite Codex can take: the shell command; never a patch. */
static json_t *
codex_native_input(const char *tool, const json_t *upd)
{
	if (strcmp(tool, "apply_patch") == 0)
		return (NULL);
	return (jh_hc_native_default(&jh_host_codex, tool, upd));
}

/* After a tool ran: nothing, or stop the run with the reason. */
static int
codex_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	return (jh_hc_stop(b, what, reason, 0));
}

const struct jh_host jh_host_codex = {
	"codex", JH_HOST_RUN, codex_canon, codex_tools, 0, 1, 2,
	codex_answer, codex_native_input, codex_post_answer, NULL, NULL, 0, 0
};
