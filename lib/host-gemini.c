/*
 * joulehook: the Gemini CLI adapter (observed with 0.61.0, headless,
 * offline; jh-normalize(1) "HOSTS").  Its payload is Claude Code's shape
 * with its own event and tool names, and no tool-call id: the adapter
 * derives one from the session, the tool and its input, so the reply
 * binds to this call and AfterTool finds its decision.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"

static const struct jh_hc_event gemini_events[] = {
	{ "BeforeTool", "PreToolUse" },
	{ "AfterTool", "PostToolUse" },
	{ "AfterAgent", "Stop" },
	{ "BeforeAgent", "UserPromptSubmit" },
	{ NULL, NULL }
};

/* Its built-in tools (0.61.0); an MCP tool is named as Claude Code's. */
static const struct jh_host_tool gemini_tools[] = {
	{ "run_shell_command", "shell", "dir_path=workdir" },
	{ "write_file", "write", NULL },
	{ "replace", "edit", NULL },
	{ "read_file", "read", NULL },
	{ "read_many_files", "read", "include=paths" },
	{ "list_directory", "search", "dir_path=path" },
	{ "glob", "search", "dir_path=path" },
	{ "search_file_content", "search", "dir_path=path" },
	{ "grep_search", "search", "dir_path=path" },
	{ "web_fetch", "fetch", NULL },
	{ "google_web_search", "fetch", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

static json_t *
gemini_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *in, *mc;
	const char *tool, *srv, *name;
	char *mcp = NULL;

	(void)why;
	(void)whysz;
	if (c == NULL)
		return (NULL);
	jh_hc_event(c, JH_HK_EVENT, gemini_events);
	tool = json_string_value(json_object_get(c, JH_HK_TOOL));
	in = json_object_get(c, JH_HK_INPUT);
	if (tool == NULL || !json_is_object(in))
		return (c);
	/* an MCP tool: its server and name, when the host says them */
	mc = json_object_get(c, "mcp_context");
	srv = json_string_value(json_object_get(mc, "server_name"));
	name = json_string_value(json_object_get(mc, "tool_name"));
	if (srv != NULL && name != NULL && strncmp(tool, "mcp__", 5) != 0)
		mcp = jh_hc_mcp_name(srv, name);
	if (jh_hc_set_tool(c, &jh_host_gemini_cli, tool, mcp ? mcp : tool,
	    json_incref(in)) == -1 || jh_hc_derive_id(c) == -1) {
		free(mcp);
		json_decref(c);
		return (NULL);
	}
	free(mcp);
	return (c);
}

/*
 * Gemini CLI's BeforeTool answers (observed): it treats a non-JSON
 * answer as allow, so every answer is JSON; deny is the deny JSON and
 * exit 2 with the reason on stderr; a rewrite is tool_input merged over
 * the model's arguments.  Headless it hangs on "ask", so the core
 * answers ask with a deny.
 */
static int
gemini_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)replace;
	return (jh_hc_decision(b, verdict, reason, updated,
	    ",\"hookSpecificOutput\":{\"tool_input\":", "}}\n"));
}

/* After a tool ran: nothing, or end the run with the reason. */
static int
gemini_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	return (jh_hc_stop(b, what, reason, 1));
}

const struct jh_host jh_host_gemini_cli = {
	"gemini-cli", JH_HOST_RUN, gemini_canon, gemini_tools, 0, 1, 2,
	gemini_answer, NULL, gemini_post_answer, NULL, NULL, 0, 1
};
