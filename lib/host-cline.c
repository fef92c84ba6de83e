/*
 * joulehook: the Cline adapter (observed with the Cline CLI 3.0.65;
 * jh-normalize(1) "HOSTS").  Its hook files get one JSON object per
 * call: hookName says the event, tool_call {id, name, input} the call
 * (tool_result after it ran); the older preToolUse {toolName,
 * parameters}, whose values are JSON texts in strings, is read when
 * there is no tool_call.  The session is the task (taskId), the working
 * directory the first workspace root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "json.h"
#include "shellparse.h"

static const struct jh_hc_event cline_events[] = {
	{ "tool_call", "PreToolUse" },
	{ "tool_result", "PostToolUse" },
	{ "agent_end", "Stop" },
	{ "agent_start", "SessionStart" },
	{ "session_shutdown", "SessionEnd" },
	{ "user_prompt_submit", "UserPromptSubmit" },
	{ "TaskComplete", "Stop" },
	{ "TaskStart", "SessionStart" },
	{ "SessionShutdown", "SessionEnd" },
	{ NULL, NULL }
};

/*
 * Its tools (3.0.65).  run_commands' commands and read_files' files
 * are reshaped by cline_input; editor's path and texts are renamed.
 */
static const struct jh_host_tool cline_tools[] = {
	{ "run_commands", "shell", NULL },
	{ "execute_command", "shell", NULL },
	{ "editor", "edit",
	    "path=file_path old_text=old_string new_text=new_string" },
	{ "read_files", "read", NULL },
	{ "apply_patch", "edit", NULL },
	{ "read_file", "read", "path=file_path" },
	{ "write_to_file", "write", "path=file_path" },
	{ "replace_in_file", "edit", "path=file_path" },
	{ "search_codebase", "search", NULL },
	{ "search_files", "search", "regex=pattern" },
	{ "list_files", "search", NULL },
	{ "fetch_web_content", "fetch", NULL },
	{ "spawn_agent", "agent", NULL },
	{ "team_*", "agent", NULL },
	{ "mcp__*", "mcp", NULL },
	{ NULL, NULL, NULL }
};

/* Whether a command line changes the working directory. */
static int
changes_dir(const char *s)
{
	static const char *const w[] = { "cd", "pushd", "popd", NULL };
	const char *p;
	size_t i, n;

	for (i = 0; w[i] != NULL; i++) {
		n = strlen(w[i]);
		for (p = s; (p = strstr(p, w[i])) != NULL; p += n)
			if ((p == s || strchr(" \t\n;&|(`$", p[-1]) != NULL) &&
			    (p[n] == '\0' || strchr(" \t\n;&|)`", p[n]) !=
			    NULL))
				return (1);
	}
	return (0);
}

/*
 * Whether a command of run_commands is a whole line on its own.  Cline
 * runs each by itself, but they are decided as one script, a line each:
 * a command that the newline after it would continue (a trailing
 * backslash, an open quote, here-document, substitution or compound
 * command, a trailing operator) would read the next one into itself
 * there, and what was decided would not be what runs.
 */
static int
whole_line(const char *s, size_t n)
{
	struct jh_sh_script sh;
	struct jh_err e;
	size_t k = 0;

	while (k < n && s[n - 1 - k] == '\\')
		k++;
	if (k % 2 == 1 || jh_sh_parse(&sh, s, n, &e) == -1)
		return (0);
	jh_sh_free(&sh);
	return (1);
}

/* read_files' keys for its files, as Cline's schema (3.0.65) has them */
static const char *const read_keys[] = { "files", "paths", "path",
	"file_path", "filePath", "file_paths", NULL };

/* Whether in has exactly one key, and it is one of keys. */
static int
one_key(const json_t *in, const char *const keys[])
{
	const char *k;
	json_t *v;
	size_t i, n = 0;

	json_object_foreach((json_t *)in, k, v) {
		for (i = 0; keys[i] != NULL && strcmp(keys[i], k) != 0; i++)
			;
		if (keys[i] == NULL || ++n > 1)
			return (0);
	}
	return (n == 1);
}

/*
 * run_commands' commands, in the shape Cline's schema takes first
 * (3.0.65): commands as an array of lines, or one line; else a command
 * (or cmd) line with no args.  A command given as a program and its
 * arguments, and any other shape, is refused (why): the gate reads a
 * line.  A new array of strings, or NULL.
 */
static json_t *
run_shape(const json_t *in, char *why, size_t whysz)
{
	const json_t *v = json_object_get(in, "commands"), *c;
	size_t i;

	if (json_object_get(in, "args") != NULL) {
		snprintf(why, whysz, "run_commands with args: send the "
		    "command as one line");
		return (NULL);
	}
	if (v == NULL) {
		c = json_object_get(in, "command");
		if (c == NULL)
			c = json_object_get(in, "cmd");
		else if (json_object_get(in, "cmd") != NULL)
			c = NULL;
		v = c;
	}
	if (json_is_string(v))
		return (json_pack("[O]", v));
	if (!json_is_array(v)) {
		snprintf(why, whysz, "run_commands' commands are neither a "
		    "line nor an array of lines");
		return (NULL);
	}
	for (i = 0; i < json_array_size(v); i++)
		if (!json_is_string(json_array_get(v, i))) {
			snprintf(why, whysz, "run_commands' command %zu is "
			    "not a line: send each command as one line",
			    i + 1);
			return (NULL);
		}
	return (json_incref((json_t *)v));
}

/*
 * run_commands' commands as one shell script, a line each, run in
 * turn: a directory change before the last one is refused, since
 * whether Cline carries it over to the next command decides what the
 * next one touches, and so is a command before the last that is not a
 * whole line on its own.
 */
static json_t *
cline_run(const json_t *in, char *why, size_t whysz)
{
	json_t *o, *v;
	struct jh_buf b;
	size_t i, n;

	if ((v = run_shape(in, why, whysz)) == NULL) {
		if (why[0] == '\0')
			snprintf(why, whysz, "run_commands has no command");
		return (json_incref((json_t *)in));
	}
	n = json_array_size(v);
	jh_buf_init(&b);
	for (i = 0; i < n; i++) {
		const json_t *c = json_array_get(v, i);
		if (!json_is_string(c) || memchr(json_string_value(c), '\0',
		    json_string_length(c)) != NULL) {
			snprintf(why, whysz, "run_commands' command %zu is "
			    "not a string", i + 1);
			break;
		}
		if (n > 1 && !whole_line(json_string_value(c),
		    json_string_length(c)))
			snprintf(why, whysz, "run_commands' command %zu is "
			    "not a whole command line on its own, so read "
			    "with the others it is not what runs; send them "
			    "as one command", i + 1);
		else if (i + 1 < n && changes_dir(json_string_value(c)))
			snprintf(why, whysz, "run_commands' command %zu "
			    "changes directory before command %zu: whether "
			    "that carries over cannot be known, so it is not "
			    "checked; send them as one command", i + 1, i + 2);
		/*
		 * Each runs in a shell of its own (3.0.65: bash -c each, all
		 * at once): a subshell each, so a function, alias or
		 * variable one defines is not the next one's.
		 */
		jh_buf_adds(&b, n > 1 ? "(\n" : "");
		jh_buf_adds(&b, json_string_value(c));
		jh_buf_adds(&b, n > 1 ? "\n)\n" : "");
	}
	if (n == 0)
		snprintf(why, whysz, "run_commands has no command");
	json_decref(v);
	o = json_deep_copy(in);
	if (o == NULL || jh_buf_cstr(&b) == NULL) {
		json_decref(o);
		jh_buf_free(&b);
		return (NULL);
	}
	json_object_del(o, "commands");
	json_object_del(o, "args");
	json_object_del(o, "cmd");
	json_object_set_new(o, "command", json_string((char *)b.p));
	json_object_set_new(o, "commands_n", json_integer((json_int_t)n));
	jh_buf_free(&b);
	return (o);
}

/* web fetches: requests[].url, one a call (the gate checks one) */
static json_t *
cline_fetch(const json_t *in, char *why, size_t whysz)
{
	json_t *o, *v = json_object_get(in, "requests");

	if ((o = json_deep_copy(in)) == NULL)
		return (NULL);
	json_object_del(o, "url");
	if (!json_is_array(v) || json_array_size(v) != 1 ||
	    !json_is_string(json_object_get(json_array_get(v, 0), "url")))
		snprintf(why, whysz, "fetch_web_content's requests must be "
		    "one request with a url: the gate checks one URL a call");
	else
		json_object_set(o, "url", json_object_get(json_array_get(v,
		    0), "url"));
	return (o);
}

/* read_files' files as the paths to read, named by exactly one key. */
static json_t *
cline_read(const json_t *in, char *why, size_t whysz)
{
	json_t *o, *v, *paths;
	size_t i;

	if (!one_key(in, read_keys)) {
		snprintf(why, whysz, "read_files names its files by more than "
		    "one key, or by one the gate does not read: send files "
		    "only");
		return (json_incref((json_t *)in));
	}
	if (!json_is_array(v = json_object_get(in, "files")))
		return (json_incref((json_t *)in));
	if ((o = json_deep_copy(in)) == NULL ||
	    (paths = json_array()) == NULL) {
		json_decref(o);
		return (NULL);
	}
	for (i = 0; i < json_array_size(v); i++) {
		const json_t *f = json_array_get(v, i);
		const json_t *p = json_is_string(f) ? f : json_object_get(f,
		    "path");
		if (!json_is_string(p)) {
			snprintf(why, whysz, "read_files' file %zu has no "
			    "path", i + 1);
			continue;
		}
		/* 3.0.65 reads it from its process's directory, not the
		 * workspace's, and the payload does not say which that is */
		if (json_string_value(p)[0] != '/') {
			snprintf(why, whysz, "read_files' file %zu is a "
			    "relative path, which Cline reads from its own "
			    "working directory, not the workspace: give the "
			    "path in full", i + 1);
			continue;
		}
		json_array_append(paths, (json_t *)p);
	}
	json_object_del(o, "files");
	json_object_set_new(o, "paths", paths);
	return (o);
}

/* a patch's files are what it writes (jh-normalize(1) "HOSTS") */
static json_t *
cline_patch(const json_t *in, char *why, size_t whysz)
{
	json_t *o, *paths, *v = json_object_get(in, "input");

	if ((o = json_deep_copy(in)) == NULL ||
	    (paths = json_array()) == NULL) {
		json_decref(o);
		return (NULL);
	}
	if (!json_is_string(v))
		snprintf(why, whysz, "apply_patch has no input");
	else if (jh_patch_paths(json_string_value(v), json_string_length(v),
	    paths, why, whysz) == 0) {
		json_object_set_new(o, "paths", paths);
		return (o);
	}
	json_decref(paths);
	return (o);
}

/* A Cline tool's input as the gate reads it, or NULL (out of memory). */
static json_t *
cline_input(const char *tool, const json_t *in, char *why, size_t whysz)
{
	if (strcmp(tool, "run_commands") == 0)
		return (cline_run(in, why, whysz));
	if (strcmp(tool, "fetch_web_content") == 0)
		return (cline_fetch(in, why, whysz));
	if (strcmp(tool, "read_files") == 0)
		return (cline_read(in, why, whysz));
	if (strcmp(tool, "apply_patch") == 0)
		return (cline_patch(in, why, whysz));
	return (json_incref((json_t *)in));
}

static json_t *
cline_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *call, *in = NULL, *v, *ci;
	const json_t *roots;
	const char *name = NULL, *key;
	char *mcp = NULL;

	if (c == NULL)
		return (NULL);
	jh_hc_move(c, "taskId", JH_HK_SESSION);
	jh_hc_event(c, "hookName", cline_events);
	roots = json_object_get(c, "workspaceRoots");
	if (json_object_get(c, JH_HK_CWD) == NULL) {
		if (json_is_array(roots) && json_array_size(roots) > 0)
			json_object_set(c, JH_HK_CWD, json_array_get(roots, 0));
		else if ((v = json_object_get(json_object_get(c,
		    "workspaceInfo"), "rootPath")) != NULL)
			json_object_set(c, JH_HK_CWD, v);
	}
	key = json_object_get(c, "tool_call") != NULL ? "tool_call" :
	    "tool_result";
	if ((call = json_object_get(c, key)) != NULL) {
		name = json_string_value(json_object_get(call, "name"));
		in = json_incref(json_object_get(call, "input"));
		if ((v = json_object_get(call, "id")) != NULL)
			json_object_set(c, JH_HK_CALL, v);
		if ((v = json_object_get(call, "output")) != NULL)
			json_object_set(c, "tool_response", v);
	} else if ((call = json_object_get(c, "preToolUse")) != NULL ||
	    (call = json_object_get(c, "postToolUse")) != NULL) {
		/* the older shape: every parameter a string */
		const char *k;
		name = json_string_value(json_object_get(call, "toolName"));
		if (name == NULL)
			name = json_string_value(json_object_get(call, "tool"));
		in = json_object();
		json_object_foreach(json_object_get(call, "parameters"), k,
		    v)
			json_object_set_new(in, k, jh_hc_unstring(v));
	}
	/* apply_patch may take its patch as the bare input */
	if (name != NULL && strcmp(name, "apply_patch") == 0 &&
	    json_is_string(in)) {
		v = json_pack("{sO}", "input", in);
		json_decref(in);
		in = v;
	}
	if (name == NULL || !json_is_object(in)) {
		json_decref(in);
		return (c);
	}
	if (strcmp(name, "use_mcp_tool") == 0 &&
	    json_is_string(json_object_get(in, "server_name")) &&
	    json_is_string(json_object_get(in, "tool_name")))
		mcp = jh_hc_mcp_name(json_string_value(json_object_get(in,
		    "server_name")), json_string_value(json_object_get(in,
		    "tool_name")));
	if (mcp != NULL) {
		ci = jh_hc_unstring(json_object_get(in, "arguments"));
		if (!json_is_object(ci)) {
			json_decref(ci);
			ci = json_object();
		}
	} else
		ci = cline_input(name, in, why, whysz);
	if (ci == NULL || jh_hc_set_tool(c, &jh_host_cline, name,
	    mcp ? mcp : name, ci) == -1) {
		free(mcp);
		json_decref(in);
		json_decref(c);
		return (NULL);
	}
	if (json_object_get(c, "native_input") == NULL ||
	    !json_equal(json_object_get(c, "native_input"), in))
		json_object_set(c, "native_input", in);
	free(mcp);
	json_decref(in);
	return (c);
}

/* Cline's only block: it aborts the whole run. */
static void
cancel(struct jh_buf *b, const char *reason)
{
	jh_buf_adds(b, "{\"cancel\":true,\"errorMessage\":");
	jh_json_str(b, reason, strlen(reason));
	jh_buf_adds(b, "}\n");
}

/*
 * Cline's answers (observed): allow is cancel:false; a rewrite is
 * overrideInput; deny cancels, which aborts Cline's whole run (its only
 * block); the exit status means nothing to it, so every failure must
 * print the cancel too (the hook does).
 */
static int
cline_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)replace;
	switch (verdict) {
	case JH_ANSWER_ALLOW:
		jh_buf_adds(b, "{\"cancel\":false}\n");
		return (0);
	case JH_ANSWER_REWRITE:
		jh_buf_adds(b, "{\"cancel\":false,\"overrideInput\":");
		jh_buf_adds(b, updated);
		jh_buf_adds(b, "}\n");
		return (0);
	default:
		cancel(b, reason);
		return (2);
	}
}

/*
 * The native input of a rewrite: one command back in commands[]; the
 * rewrite of several commands joined cannot be split back, nor a read
 * of several files, so those are denied.
 */
static json_t *
cline_native_input(const char *tool, const json_t *upd)
{
	json_t *o, *a;
	const json_t *n = json_object_get(upd, "commands_n");

	if (strcmp(tool, "run_commands") == 0) {
		if (!json_is_integer(n) || json_integer_value(n) != 1 ||
		    !json_is_string(json_object_get(upd, "command")))
			return (NULL);
		if ((o = json_deep_copy(upd)) == NULL)
			return (NULL);
		a = json_array();
		json_array_append(a, json_object_get(upd, "command"));
		json_object_del(o, "command");
		json_object_del(o, "commands_n");
		json_object_set_new(o, "commands", a);
		return (o);
	}
	if (strcmp(tool, "read_files") == 0)
		return (NULL);
	return (jh_hc_native_default(&jh_host_cline, tool, upd));
}

/* After a tool ran: nothing, or cancel the run with the reason. */
static int
cline_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	if (what != JH_POST_OK)
		cancel(b, reason);
	return (0);
}

const struct jh_host jh_host_cline = {
	"cline", JH_HOST_RUN, cline_canon, cline_tools, 0, 1, 2,
	cline_answer, cline_native_input, cline_post_answer, NULL, NULL, 0, 1
};
