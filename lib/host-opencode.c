/*
 * joulehook: the OpenCode adapter (observed with 1.18.33; jh-normalize(1)
 * "HOSTS").  OpenCode has no command hooks: its plugin (hosts/opencode/
 * plugin/joulehook.js) runs jh-hook from tool.execute.before and
 * tool.execute.after, and sends one JSON object per call:
 *
 *	{"hook_event_name": "tool.execute.before" | "tool.execute.after",
 *	 "session_id": sessionID, "tool_call_id": callID, "tool": tool,
 *	 "args": the tool's arguments, "cwd": the plugin's directory,
 *	 "output": {title, metadata, output} (after only)}
 *
 * and, when a session goes idle (its turn is over), {"hook_event_name":
 * "session.idle", "session_id", "cwd"}, which is a Stop.
 * The tools take camelCase arguments (filePath, oldString, ...), which
 * become the canonical ones; the plugin takes the answer as JSON,
 * {"decision": "allow" | "deny", "reason", "args"}, and throws on a deny
 * (OpenCode then does not run the tool and gives the model the reason).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "json.h"

static const struct jh_hc_event oc_events[] = {
	{ "tool.execute.before", "PreToolUse" },
	{ "tool.execute.after", "PostToolUse" },
	{ "session.idle", "Stop" },
	{ NULL, NULL }
};

/*
 * Its built-in tools (1.18.33; the ten the model is offered, and the
 * ones other models get in their place).  An MCP tool is named
 * "<server>_<tool>" by OpenCode, which cannot be told from a tool of a
 * plugin: both are "other".
 */
static const struct jh_host_tool oc_tools[] = {
	{ "bash", "shell", "workdir=workdir" },
	{ "write", "write", "filePath=file_path" },
	{ "edit", "edit", "filePath=file_path oldString=old_string "
	    "newString=new_string replaceAll=replace_all" },
	{ "multiedit", "edit", "filePath=file_path" },
	{ "apply_patch", "edit", NULL },
	{ "read", "read", "filePath=file_path filePaths=paths" },
	{ "glob", "search", NULL },
	{ "grep", "search", NULL },
	{ "list", "search", NULL },
	{ "webfetch", "fetch", NULL },
	{ "websearch", "fetch", NULL },
	{ "codesearch", "fetch", NULL },
	{ "task", "agent", NULL },
	{ NULL, NULL, NULL }
};

static json_t *
oc_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *in, *paths;
	const json_t *pt;
	const char *tool;
	char *name;

	if (c == NULL)
		return (NULL);
	jh_hc_event(c, JH_HK_EVENT, oc_events);
	jh_hc_move(c, "tool_call_id", JH_HK_CALL);
	jh_hc_move(c, "output", "tool_response");
	tool = json_string_value(json_object_get(c, "tool"));
	in = json_object_get(c, "args");
	if (tool == NULL || !json_is_object(in))
		return (c);
	if ((name = strdup(tool)) == NULL) {
		json_decref(c);
		return (NULL);
	}
	json_incref(in);
	json_object_del(c, "tool");
	json_object_del(c, "args");
	if (jh_hc_set_tool(c, &jh_host_opencode, name, name, in) == -1 ||
	    jh_hc_derive_id(c) == -1) {
		free(name);
		json_decref(c);
		return (NULL);
	}
	/* a patch's files are what it writes (jh-normalize(1) "HOSTS") */
	in = json_object_get(c, JH_HK_INPUT);
	pt = json_object_get(in, "patchText");
	if (strcmp(name, "apply_patch") == 0) {
		if (!json_is_string(pt))
			snprintf(why, whysz, "apply_patch has no patchText");
		else if ((paths = json_array()) == NULL) {
			free(name);
			json_decref(c);
			return (NULL);
		} else if (jh_patch_paths(json_string_value(pt),
		    json_string_length(pt), paths, why, whysz) == 0)
			json_object_set_new(in, "paths", paths);
		else
			json_decref(paths);
	}
	free(name);
	return (c);
}

/*
 * The plugin's answers: allow; a rewrite is allow with the tool's new
 * arguments, which the plugin puts in place of the model's; deny is the
 * deny JSON and exit 2, and the plugin throws the reason, which OpenCode
 * gives the model as the tool's result.  The plugin cannot ask (there is
 * no permission hook in 1.18.33): the core answers ask with a deny.
 */
static int
oc_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)replace;
	return (jh_hc_decision(b, verdict, reason, updated,
	    ",\"args\":", "}\n"));
}

/* A rewrite OpenCode can take: the renames undone; never a patch. */
static json_t *
oc_native_input(const char *tool, const json_t *upd)
{
	json_t *o;

	if (strcmp(tool, "apply_patch") == 0)
		return (NULL);
	if ((o = jh_hc_native_default(&jh_host_opencode, tool, upd)) != NULL)
		json_object_del(o, "paths");
	return (o);
}

/*
 * After a tool ran: nothing when it is what was decided; else "stop",
 * which the plugin adds to the tool's output for the model and the user
 * ("withhold": in place of it).  OpenCode's plugin cannot end the run:
 * the gate denies the session's later calls (jh-result(1)).
 */
static int
oc_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	if (what == JH_POST_OK)
		return (0);
	jh_buf_addf(b, "{\"decision\":\"%s\",\"reason\":",
	    what == JH_POST_WITHHOLD ? "withhold" : "stop");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, "}\n");
	return (0);
}

const struct jh_host jh_host_opencode = {
	"opencode", JH_HOST_RUN, oc_canon, oc_tools, 0, 1, 2,
	oc_answer, oc_native_input, oc_post_answer, NULL, NULL, 0, 0
};
