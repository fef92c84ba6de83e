/*
 * joulehook: the adapters built from documentation, not run: Cursor
 * and Windsurf from their hook references, Antigravity from third-party
 * reports only (no official reference exists).  Every fact here is in
 * this file and in tests/hosts/<host>/, so that a real capture corrects
 * it in one place; jh-normalize(1) "HOSTS" says which.  Each asks for
 * nothing the documentation does not promise: ask and rewrite become a
 * deny that says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "json.h"

/* A deny with the reason under every key the documentation uses. */
static int
permission(struct jh_buf *b, const char *perm, const char *reason)
{
	jh_buf_addf(b, "{\"permission\":\"%s\"", perm);
	if (reason != NULL) {
		static const char *const k[] = { "user_message",
		    "agent_message", "userMessage", "agentMessage", NULL };
		size_t i;
		for (i = 0; k[i] != NULL; i++) {
			jh_buf_addf(b, ",\"%s\":", k[i]);
			jh_json_str(b, reason, strlen(reason));
		}
	}
	jh_buf_adds(b, "}\n");
	return (0);
}

/* Sets cwd from the first of a list of workspace roots, if none. */
static void
cwd_from_roots(json_t *c, const char *key)
{
	const json_t *r = json_object_get(c, key), *w;

	/* an empty cwd is none (Cursor sends "") */
	if ((w = json_object_get(c, JH_HK_CWD)) != NULL &&
	    json_is_string(w) && json_string_length(w) == 0)
		json_object_del(c, JH_HK_CWD);
	if (json_object_get(c, JH_HK_CWD) == NULL && json_is_array(r) &&
	    json_is_string(json_array_get(r, 0)))
		json_object_set(c, JH_HK_CWD, json_array_get(r, 0));
}

/*
 * Cursor (hooks reference, 2025-26).  preToolUse covers every tool;
 * beforeShellExecution, beforeMCPExecution and beforeReadFile are
 * decided the same way when a user binds them (jh-install binds
 * preToolUse only: binding both would decide a shell call twice).
 */
static const struct jh_hc_event cursor_events[] = {
	{ "preToolUse", "PreToolUse" },
	{ "beforeShellExecution", "PreToolUse" },
	{ "beforeMCPExecution", "PreToolUse" },
	{ "beforeReadFile", "PreToolUse" },
	{ "postToolUse", "PostToolUse" },
	{ "postToolUseFailure", "PostToolUseFailure" },
	{ "stop", "Stop" },
	{ "sessionEnd", "SessionEnd" },
	{ "sessionStart", "SessionStart" },
	{ "beforeSubmitPrompt", "UserPromptSubmit" },
	{ NULL, NULL }
};

static const struct jh_host_tool cursor_tools[] = {
	{ "Shell", "shell", "working_directory=workdir cwd=workdir" },
	{ "Read", "read", "path=file_path target_file=file_path" },
	{ "Write", "write", "path=file_path target_file=file_path" },
	{ "Edit", "edit", "path=file_path target_file=file_path" },
	{ "Delete", "edit", "path=file_path target_file=file_path" },
	{ "Grep", "search", NULL },
	{ "LS", "search", NULL },
	{ "Glob", "search", NULL },
	{ "Task", "agent", NULL },
	{ "MCP:*", "mcp", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

/*
 * A Shell call's working directory: the reference names working_directory,
 * Cursor was seen sending cwd, often "" (the workspace).  An empty one
 * gives way to the other, whichever key comes first: the one to keep is
 * returned (borrowed), or NULL where there is nothing to choose.  Two that
 * differ leave no way to tell where the command runs: a defect (a deny),
 * never the later key's pick.
 */
static json_t *
cursor_shell_dir(const json_t *in, char *why, size_t whysz)
{
	json_t *wd = json_object_get(in, "working_directory");
	json_t *cw = json_object_get(in, "cwd");

	if (wd == NULL || cw == NULL)
		return (NULL);
	if (json_is_string(cw) && json_string_length(cw) == 0)
		return (wd);
	if (json_is_string(wd) && json_string_length(wd) == 0)
		return (cw);
	if (!json_equal(wd, cw))
		snprintf(why, whysz, "the Shell call names two working "
		    "directories (working_directory and cwd differ), so where "
		    "it runs cannot be told");
	return (NULL);
}

static json_t *
cursor_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *in = NULL, *v, *dir = NULL;
	const char *ev, *tool = NULL, *srv;
	char *mcp = NULL;

	if (c == NULL)
		return (NULL);
	jh_hc_move(c, "conversation_id", JH_HK_SESSION);
	ev = json_string_value(json_object_get(c, JH_HK_EVENT));
	if (ev == NULL)
		return (c);
	if (strcmp(ev, "beforeShellExecution") == 0) {
		tool = "Shell";
		in = json_object();
		if ((v = json_object_get(c, "command")) != NULL)
			json_object_set(in, "command", v);
	} else if (strcmp(ev, "beforeReadFile") == 0) {
		/* the file's text is not the event's: the gate reads it */
		tool = "Read";
		in = json_object();
		if ((v = json_object_get(c, "file_path")) != NULL)
			json_object_set(in, "file_path", v);
		json_object_del(c, "content");
	} else if (strcmp(ev, "beforeMCPExecution") == 0) {
		srv = json_string_value(json_object_get(c, "mcp_server_name"));
		tool = json_string_value(json_object_get(c, JH_HK_TOOL));
		in = jh_hc_unstring(json_object_get(c, JH_HK_INPUT));
		if (srv != NULL && tool != NULL)
			tool = mcp = jh_hc_mcp_name(srv, tool);
	} else if ((tool = json_string_value(json_object_get(c,
	    JH_HK_TOOL))) != NULL) {
		in = jh_hc_unstring(json_object_get(c, JH_HK_INPUT));
		if (strcmp(tool, "Shell") == 0 && json_is_object(in))
			dir = cursor_shell_dir(in, why, whysz);
	}
	jh_hc_event(c, JH_HK_EVENT, cursor_events);
	cwd_from_roots(c, "workspace_roots");
	if (tool != NULL && json_is_object(in)) {
		char *t = strdup(tool);
		if (t == NULL || jh_hc_set_tool(c, &jh_host_cursor, t, t,
		    json_incref(in)) == -1 || jh_hc_derive_id(c) == -1) {
			free(t);
			free(mcp);
			json_decref(in);
			json_decref(c);
			return (NULL);
		}
		free(t);
		if (dir != NULL && json_object_set(json_object_get(c,
		    JH_HK_INPUT), "workdir", dir) == -1) {
			free(mcp);
			json_decref(in);
			json_decref(c);
			return (NULL);
		}
	}
	free(mcp);
	json_decref(in);
	return (c);
}

/*
 * Cursor's answers: a JSON object always (one report has its
 * permission hooks fail closed on an empty answer), deny also exit 2.
 * "ask" is documented for shell and MCP but not enforced on preToolUse,
 * and a rewrite (updated_input) only on preToolUse: neither is used.
 */
static int
cursor_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)updated;
	(void)replace;
	if (verdict == JH_ANSWER_ALLOW)
		return (permission(b, "allow", NULL));
	permission(b, "deny", reason);
	return (2);
}

/* After a tool ran Cursor cannot be stopped: the reason goes to the
 * model as context. */
static int
cursor_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	if (what == JH_POST_OK)
		return (0);
	jh_buf_adds(b, "{\"additional_context\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, "}\n");
	return (0);
}

const struct jh_host jh_host_cursor = {
	"cursor", JH_HOST_DOCS, cursor_canon, cursor_tools, 0, 0, 2,
	cursor_answer, NULL, cursor_post_answer, NULL, NULL, 0, 0
};

/*
 * Windsurf's Cascade hooks: the event is agent_action_name, the call's
 * fields are under tool_info; the answer is the exit status alone.
 */
static const struct {
	const char *event;	/* agent_action_name */
	const char *canon;
	const char *tool;	/* the tool it stands for */
} windsurf_events[] = {
	{ "pre_run_command", "PreToolUse", "run_command" },
	{ "pre_write_code", "PreToolUse", "write_code" },
	{ "pre_read_code", "PreToolUse", "read_code" },
	{ "pre_mcp_tool_use", "PreToolUse", NULL },
	{ "post_run_command", "PostToolUse", "run_command" },
	{ "post_write_code", "PostToolUse", "write_code" },
	{ "post_read_code", "PostToolUse", "read_code" },
	{ "post_mcp_tool_use", "PostToolUse", NULL },
	{ "pre_user_prompt", "UserPromptSubmit", NULL },
	{ "post_cascade_response", "Stop", NULL },
	{ NULL, NULL, NULL }
};

static const struct jh_host_tool windsurf_tools[] = {
	{ "run_command", "shell", "command_line=command cwd=workdir" },
	{ "write_code", "edit", NULL },
	{ "read_code", "read", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

static json_t *
windsurf_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *ti, *in;
	const char *ev, *tool = NULL;
	char *mcp = NULL;
	size_t i;

	if (c == NULL)
		return (NULL);
	jh_hc_move(c, "trajectory_id", JH_HK_SESSION);
	ev = json_string_value(json_object_get(c, "agent_action_name"));
	if (ev == NULL)
		return (c);
	for (i = 0; windsurf_events[i].event != NULL; i++)
		if (strcmp(windsurf_events[i].event, ev) == 0)
			break;
	if (windsurf_events[i].event != NULL)
		ev = windsurf_events[i].event;	/* outlives the payload's */
	json_object_set_new(c, "native_event", json_string(ev));
	json_object_set_new(c, JH_HK_EVENT, json_string(
	    windsurf_events[i].canon ? windsurf_events[i].canon : ev));
	ti = json_object_get(c, "tool_info");
	if (windsurf_events[i].event == NULL || !json_is_object(ti))
		return (c);
	json_object_del(c, "agent_action_name");
	if ((tool = windsurf_events[i].tool) == NULL &&
	    json_is_string(json_object_get(ti, "mcp_server_name")) &&
	    json_is_string(json_object_get(ti, "mcp_tool_name")))
		tool = mcp = jh_hc_mcp_name(json_string_value(
		    json_object_get(ti, "mcp_server_name")),
		    json_string_value(json_object_get(ti, "mcp_tool_name")));
	if (tool == NULL)
		return (c);
	(void)why;
	(void)whysz;
	/*
	 * A command's cwd is the model's argument, and the payload names
	 * no workspace: it may pin no session's project but a work tree's
	 * (cwd_chosen, jh-decide(1)).
	 */
	if (json_is_string(json_object_get(ti, "cwd"))) {
		json_object_set(c, JH_HK_CWD, json_object_get(ti, "cwd"));
		json_object_set_new(c, "cwd_chosen", json_true());
	} else	/* its file and MCP events: the session's project */
		json_object_set_new(c, "cwd_unknown", json_true());
	in = mcp != NULL ? jh_hc_unstring(json_object_get(ti,
	    "mcp_tool_arguments")) : json_incref(ti);
	if (!json_is_object(in)) {
		json_decref(in);
		in = json_object();
	}
	if (jh_hc_set_tool(c, &jh_host_windsurf, tool, tool, in) == -1 ||
	    jh_hc_derive_id(c) == -1) {
		free(mcp);
		json_decref(c);
		return (NULL);
	}
	json_object_del(c, "tool_info");
	free(mcp);
	return (c);
}

/* Windsurf reads the exit status only: 2 blocks, with stderr shown. */
static int
windsurf_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)b;
	(void)reason;
	(void)updated;
	(void)replace;
	return (verdict == JH_ANSWER_ALLOW ? 0 : 2);
}

static int
windsurf_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)b;
	(void)event;
	(void)what;
	(void)reason;
	(void)path;
	return (0);
}

const struct jh_host jh_host_windsurf = {
	"windsurf", JH_HOST_DOCS, windsurf_canon, windsurf_tools, 0, 0, 2,
	windsurf_answer, NULL, windsurf_post_answer, NULL, NULL, 0, 0
};

/*
 * Antigravity (agy), third-party reports only: toolCall {name, args}
 * with PascalCase args, the conversation as the session, no event name
 * in some versions (a payload with a tool call and no result is taken
 * as the pre-tool one), answers {"decision": ...}; exit codes are
 * reported to be ignored.
 */
static const struct jh_host_tool agy_tools[] = {
	{ "run_command", "shell", "CommandLine=command Cwd=workdir" },
	{ "view_file", "read", "AbsolutePath=file_path TargetFile=file_path" },
	{ "write_to_file", "write",
	    "TargetFile=file_path CodeContent=content" },
	{ "replace_file_content", "edit", "TargetFile=file_path" },
	{ "multi_replace_file_content", "edit", "TargetFile=file_path" },
	{ "edit_file", "edit", "TargetFile=file_path" },
	{ "codebase_search", "search", "SearchPath=path" },
	{ "grep_search", "search", "SearchPath=path Query=pattern" },
	{ "list_dir", "search", "DirectoryPath=path" },
	{ "read_url_content", "fetch", "Url=url" },
	{ "browser_*", "fetch", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

static const struct jh_hc_event agy_events[] = {
	{ "PreToolUse", "PreToolUse" },
	{ "PostToolUse", "PostToolUse" },
	{ "Stop", "Stop" },
	{ "SessionStart", "SessionStart" },
	{ NULL, NULL }
};

static json_t *
agy_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *call, *in, *v;
	const char *tool;

	(void)why;
	(void)whysz;
	if (c == NULL)
		return (NULL);
	jh_hc_move(c, "conversationId", JH_HK_SESSION);
	jh_hc_move(c, "hookEventName", JH_HK_EVENT);
	call = json_object_get(c, "toolCall");
	/*
	 * No event name: a tool call with a result (or an error) is the
	 * post-tool one, without one the pre-tool one; no tool call at all
	 * is neither, and gets no opinion.
	 */
	if (json_object_get(c, JH_HK_EVENT) == NULL)
		json_object_set_new(c, JH_HK_EVENT, json_string(
		    !json_is_object(call) ? "ToolEvent" :
		    json_object_get(c, "toolResult") != NULL ||
		    json_object_get(c, "result") != NULL ||
		    json_object_get(c, "error") != NULL ? "PostToolUse" :
		    "PreToolUse"));
	jh_hc_event(c, JH_HK_EVENT, agy_events);
	if ((v = json_object_get(c, "toolResult")) != NULL ||
	    (v = json_object_get(c, "result")) != NULL)
		json_object_set(c, "tool_response", v);
	tool = json_string_value(json_object_get(call, "name"));
	in = jh_hc_unstring(json_object_get(call, "args"));
	if (tool == NULL || !json_is_object(in)) {
		json_decref(in);
		cwd_from_roots(c, "workspacePaths");
		return (c);
	}
	/*
	 * The workspace is the session's project; run_command's Cwd, the
	 * model's argument, is only where that command runs (workdir).
	 */
	cwd_from_roots(c, "workspacePaths");
	if (json_object_get(c, JH_HK_CWD) == NULL &&
	    json_is_string(json_object_get(in, "Cwd"))) {
		json_object_set(c, JH_HK_CWD, json_object_get(in, "Cwd"));
		json_object_set_new(c, "cwd_chosen", json_true());
	}
	if (jh_hc_set_tool(c, &jh_host_antigravity, tool, tool, in) == -1 ||
	    jh_hc_derive_id(c) == -1) {
		json_decref(c);
		return (NULL);
	}
	json_object_del(c, "toolCall");
	return (c);
}

static int
agy_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)updated;
	(void)replace;
	if (verdict == JH_ANSWER_ALLOW) {
		jh_buf_adds(b, "{\"decision\":\"allow\"}\n");
		return (0);
	}
	jh_buf_adds(b, "{\"decision\":\"deny\",\"reason\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, "}\n");
	return (2);
}

static int
agy_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	if (what == JH_POST_OK)
		return (0);
	jh_buf_adds(b, "{\"decision\":\"block\",\"reason\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, "}\n");
	return (0);
}

const struct jh_host jh_host_antigravity = {
	"antigravity", JH_HOST_DOCS, agy_canon, agy_tools, 0, 0, 2,
	agy_answer, NULL, agy_post_answer, NULL, NULL, 0, 0
};
