/*
 * joulehook: the ACP adapter (jh-normalize(1) "HOSTS", jh-acp(1)).  An
 * Agent Client Protocol agent has no hooks: jh-acp(1) stands between
 * the editor and the agent and writes this payload for each request it
 * gates,
 *
 *	{"hook_event_name", "session_id", "cwd", "acp_method",
 *	 "tool_call" (session/request_permission, session/update),
 *	 "params" (fs/read_text_file, fs/write_text_file, terminal/create),
 *	 "tool_response" (after the call)}
 *
 * and this file maps the ACP tool call onto the canonical payload:
 * claude-code-acp 0.16.2 names Claude Code's tool in
 * _meta.claudeCode.toolName (its own mcp__acp__Read, Write, Edit and
 * Bash are Claude Code's Read, Write, Edit and Bash done through the
 * editor) with Claude Code's input as rawInput; codex-acp 0.16.0 sends
 * Codex's exec (rawInput.command, an argv, and rawInput.cwd) and its
 * patches (rawInput.changes, path -> {type, ...}); any other agent is
 * read by the call's ACP kind, rawInput and locations.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"

/* The canonical tools an ACP call becomes (Claude Code's, and Codex's
 * apply_patch for a change of several files). */
static const struct jh_host_tool acp_tools[] = {
	/* workdir: the terminal's or the exec's cwd, set below, never raw */
	{ "Bash", "shell", "workdir=workdir" },
	{ "Write", "write", NULL },
	{ "Edit", "edit", NULL },
	{ "MultiEdit", "edit", NULL },
	{ "NotebookEdit", "edit", NULL },
	{ "apply_patch", "edit", NULL },
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

static int
safe_word(const char *s)
{
	if (*s == '\0')
		return (0);
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_./=:,+-@%", *s) == NULL)
			return (0);
	return (1);
}

/* Appends s as one shell word. */
static void
shell_word(struct jh_buf *b, const char *s, size_t n)
{
	size_t i;

	if (strlen(s) == n && safe_word(s)) {
		jh_buf_add(b, s, n);
		return;
	}
	jh_buf_addc(b, '\'');
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			jh_buf_adds(b, "'\\''");
		else
			jh_buf_addc(b, (uint8_t)s[i]);
	}
	jh_buf_addc(b, '\'');
}

/*
 * The shell line of an argv: the script of sh -c / bash -lc SCRIPT, as
 * Codex runs its commands, else the words quoted.  NULL when an element
 * is not a string.
 */
static json_t *
argv_line(const json_t *argv, const json_t *env)
{
	struct jh_buf b;
	const char *a0, *base, *name, *val;
	json_t *v, *e, *out;
	size_t i, n = json_array_size(argv);

	json_array_foreach(argv, i, v)
		if (!json_is_string(v))
			return (NULL);
	if (n == 0)
		return (NULL);
	a0 = json_string_value(json_array_get(argv, 0));
	base = strrchr(a0, '/') ? strrchr(a0, '/') + 1 : a0;
	/*
	 * The script is the line only where the shell is the system's:
	 * a bare name or one under /bin or /usr/bin.  Codex's exec takes
	 * the shell from the model, which may name one it wrote.
	 */
	if (base != a0 && strcmp(a0, "/bin/bash") != 0 && strcmp(a0,
	    "/bin/sh") != 0 && strcmp(a0, "/bin/zsh") != 0 && strcmp(a0,
	    "/usr/bin/bash") != 0 && strcmp(a0, "/usr/bin/sh") != 0 &&
	    strcmp(a0, "/usr/bin/zsh") != 0)
		base = "";
	if (n == 3 && env == NULL && (strcmp(base, "bash") == 0 ||
	    strcmp(base, "sh") == 0 || strcmp(base, "zsh") == 0) &&
	    (strcmp(json_string_value(json_array_get(argv, 1)), "-c") == 0 ||
	    strcmp(json_string_value(json_array_get(argv, 1)), "-lc") == 0))
		return (json_incref(json_array_get(argv, 2)));
	jh_buf_init(&b);
	/* the variables the command is given are part of what it does */
	json_array_foreach(env, i, e) {
		name = json_string_value(json_object_get(e, "name"));
		val = json_string_value(json_object_get(e, "value"));
		if (name == NULL || val == NULL || !safe_word(name) ||
		    strchr(name, '=') != NULL) {
			jh_buf_free(&b);
			return (NULL);
		}
		jh_buf_addf(&b, "%s=", name);
		shell_word(&b, val, strlen(val));
		jh_buf_addc(&b, ' ');
	}
	json_array_foreach(argv, i, v) {
		if (i > 0)
			jh_buf_addc(&b, ' ');
		shell_word(&b, json_string_value(v), json_string_length(v));
	}
	out = b.oom ? NULL : json_stringn((char *)b.p, b.len);
	jh_buf_free(&b);
	return (out);
}

/*
 * Whether a variable may change what the command runs or loads: any but
 * a short list of inert ones (the terminal's, the locale's, and
 * CLAUDECODE=1, which claude-code-acp sets).  Programs read options and
 * commands from names no list can keep up with (TAR_OPTIONS, CC,
 * MAKEFLAGS, NPM_CONFIG_*, XDG_CONFIG_HOME, LESSOPEN...), so such a
 * variable stays in the shell line, where the gate decides it as any
 * assignment before a command; an inert one is left out.
 */
static int
risky_var(const char *n)
{
	static const char *const inert[] = { "CLAUDECODE", "TERM",
	    "COLORTERM", "COLUMNS", "LINES", "LANG", "LANGUAGE", "NO_COLOR",
	    "FORCE_COLOR", "CLICOLOR", "CI", NULL };
	int i;

	if (strncmp(n, "LC_", 3) == 0 && safe_word(n) &&
	    strchr(n, '=') == NULL)
		return (0);
	for (i = 0; inert[i] != NULL; i++)
		if (strcmp(n, inert[i]) == 0)
			return (0);
	return (1);
}

/* terminal/create: {command, args, env, cwd} as a Bash call. */
static int
acp_terminal(json_t *c, const json_t *p)
{
	json_t *argv, *line, *in, *risky, *e;
	const json_t *args = json_object_get(p, "args");
	const json_t *env = json_object_get(p, "env");
	const json_t *cmd = json_object_get(p, "command");
	const json_t *cwd = json_object_get(p, "cwd");
	const char *name;
	struct jh_buf b;
	size_t i;

	if (!json_is_string(cmd) || (env != NULL && !json_is_array(env)) ||
	    (args != NULL && !json_is_array(args)) || (risky = json_array()) ==
	    NULL)
		return (0);
	json_array_foreach(env, i, e) {
		name = json_string_value(json_object_get(e, "name"));
		if (name == NULL || risky_var(name))
			json_array_append(risky, e);
	}
	if (json_array_size(args) == 0 && json_array_size(risky) == 0)
		/* claude-code-acp's Bash: one shell line in command */
		line = json_incref((json_t *)cmd);
	else if (json_array_size(args) == 0) {
		/* the variables, then the shell line */
		argv = json_pack("[s]", "true");
		line = argv != NULL ? argv_line(argv, risky) : NULL;
		json_decref(argv);
		jh_buf_init(&b);
		if (line != NULL) {
			jh_buf_add(&b, json_string_value(line),
			    json_string_length(line) - 4);
			jh_buf_add(&b, json_string_value(cmd),
			    json_string_length(cmd));
		}
		json_decref(line);
		line = b.oom || b.len == 0 ? NULL : json_stringn((char *)b.p,
		    b.len);
		jh_buf_free(&b);
	} else {
		if ((argv = json_array()) == NULL) {
			json_decref(risky);
			return (-1);
		}
		json_array_append(argv, (json_t *)cmd);
		json_array_extend(argv, (json_t *)args);
		line = argv_line(argv, json_array_size(risky) ? risky : NULL);
		json_decref(argv);
	}
	json_decref(risky);
	if (line == NULL)
		return (0);
	in = json_pack("{s:o}", "command", line);
	if (in == NULL)
		return (-1);
	if (json_is_string(cwd))
		json_object_set(in, "workdir", (json_t *)cwd);
	else if (json_is_string(json_object_get(c, JH_HK_CWD)))
		json_object_set(in, "workdir", json_object_get(c, JH_HK_CWD));
	return (jh_hc_set_tool(c, &jh_host_acp, "terminal/create", "Bash",
	    in));
}

/* fs/read_text_file {path, line, limit}, fs/write_text_file {path,
 * content}: Read and Write. */
static int
acp_fs(json_t *c, const json_t *p, int write)
{
	json_t *in;
	const json_t *path = json_object_get(p, "path");

	if (!json_is_string(path))
		return (0);
	if (write) {
		if (!json_is_string(json_object_get(p, "content")))
			return (0);
		in = json_pack("{s:O,s:O}", "file_path", path, "content",
		    json_object_get(p, "content"));
	} else {
		in = json_pack("{s:O}", "file_path", path);
		if (in != NULL && json_object_get(p, "line") != NULL)
			json_object_set(in, "offset", json_object_get(p,
			    "line"));
		if (in != NULL && json_object_get(p, "limit") != NULL)
			json_object_set(in, "limit", json_object_get(p,
			    "limit"));
	}
	return (jh_hc_set_tool(c, &jh_host_acp, write ? "fs/write_text_file" :
	    "fs/read_text_file", write ? "Write" : "Read", in));
}

/*
 * Whether a key of a tool's input may name a path, by its words: the
 * agents name them file_path, filePath, absolute_path, dir_path,
 * notebook_path, source, target, from, to, destination and more (a cwd
 * is where relative ones are, not a target).  A key
 * taken for one that is not only adds a target to check.
 */
static int
path_key(const char *k)
{
	static const char *const words[] = { "path", "file", "dir",
	    "source", "target", "dest", "location", NULL };
	static const char *const whole[] = { "to", "from", "src", "root",
	    NULL };
	char w[64];
	size_t i, n = 0;

	for (; *k != '\0' && n < sizeof(w) - 1; k++)
		if (*k != '_' && *k != '-')
			w[n++] = (char)tolower((unsigned char)*k);
	w[n] = '\0';
	for (i = 0; whole[i] != NULL; i++)
		if (strcmp(w, whole[i]) == 0)
			return (1);
	for (i = 0; words[i] != NULL; i++)
		if (strstr(w, words[i]) != NULL)
			return (1);
	return (0);
}

/*
 * The paths of a call: its locations, then every string (or array of
 * strings) of the input under a key that may name a path.
 */
static json_t *
call_paths(const json_t *call, const json_t *raw)
{
	json_t *a = json_array(), *l, *v, *e;
	const char *k;
	size_t i;

	if (a == NULL)
		return (NULL);
	json_array_foreach(json_object_get(call, "locations"), i, l)
		if (json_is_string(v = json_object_get(l, "path")))
			json_array_append(a, v);
	json_object_foreach((json_t *)raw, k, v) {
		if (!path_key(k))
			continue;
		if (json_is_string(v))
			json_array_append(a, v);
		else if (json_is_array(v))
			json_array_foreach(v, i, e)
				if (json_is_string(e))
					json_array_append(a, e);
	}
	return (a);
}

/* Codex's rawInput.changes: every file added, updated, moved (both
 * names) or deleted is a target. */
static json_t *
changes_paths(const json_t *ch)
{
	json_t *a = json_array(), *v, *mp;
	const char *path;

	if (a == NULL)
		return (NULL);
	json_object_foreach((json_t *)ch, path, v) {
		json_array_append_new(a, json_string(path));
		mp = json_object_get(v, "move_path");
		if (json_is_string(mp))
			json_array_append(a, mp);
	}
	return (a);
}

/* The class an ACP kind names, for a cross-check with the tool. */
static const char *
kind_class(const char *kind)
{
	static const char *const map[][2] = {
		{ "execute", "shell" }, { "edit", "edit" },
		{ "delete", "edit" }, { "move", "edit" }, { "read", "read" },
		{ "search", "search" }, { "fetch", "fetch" }, { NULL, NULL }
	};
	int i;

	for (i = 0; kind != NULL && map[i][0] != NULL; i++)
		if (strcmp(map[i][0], kind) == 0)
			return (map[i][1]);
	return (NULL);
}

/* claude-code-acp: Claude Code's tool tn and its input */
static int
acp_claude(json_t *c, const json_t *raw, const char *tn, const char *kind,
    char *why, size_t whysz)
{
	const char *canon, *kc, *tc;
	json_t *in;

	canon = strncmp(tn, "mcp__acp__", 10) == 0 ? tn + 10 : tn;
	if (raw == NULL) {
		snprintf(why, whysz, "the tool call has no rawInput");
		return (0);
	}
	kc = kind_class(kind);
	tc = jh_host_class(&jh_host_acp, canon, strlen(canon));
	/*
	 * The kind is what the editor's dialog shows: one that names
	 * another class than the tool's is refused, and a tool of no class
	 * of its own (Claude Code's to-do list tool) may not say it edits.
	 */
	if (kc != NULL && (strcmp(tc, "other") != 0 || strcmp(kc, "edit") ==
	    0) && strcmp(kc, tc) != 0 && !(strcmp(kc, "edit") == 0 &&
	    strcmp(tc, "write") == 0)) {
		snprintf(why, whysz, "the tool call says it is %s, "
		    "of kind %s", tn, kind);
		return (0);
	}
	in = json_deep_copy(raw);
	/* Claude's Bash takes no directory: a workdir in it is a decoy */
	if (in != NULL && strcmp(canon, "Bash") == 0)
		json_object_del(in, "workdir");
	if (in != NULL && strcmp(canon, "Bash") == 0 &&
	    strcmp(tn, canon) != 0 &&
	    json_is_string(json_object_get(c, JH_HK_CWD)))
		/* through the editor's terminal, in the session's cwd */
		json_object_set(in, "workdir", json_object_get(c,
		    JH_HK_CWD));
	return (jh_hc_set_tool(c, &jh_host_acp, tn, canon, in));
}

/*
 * A call of kind class kc (read, search, fetch, edit, delete, move) by
 * the paths and the URL it names.
 */
static int
acp_bykind(json_t *c, const json_t *call, const json_t *raw, const char *kc,
    const char *kind, const char *native, char *why, size_t whysz)
{
	json_t *in, *v, *paths;
	size_t i;

	if ((paths = call_paths(call, raw)) == NULL)
		return (-1);
	if (strcmp(kc, "fetch") == 0) {
		json_decref(paths);
		v = json_object_get(raw, "url");
		in = json_is_string(v) ? json_pack("{s:O}", "url", v) :
		    json_object();
		return (jh_hc_set_tool(c, &jh_host_acp, native, "WebFetch",
		    in));
	}
	if (json_array_size(paths) == 0) {
		json_decref(paths);
		snprintf(why, whysz, "a %s call that names no path", kind);
		return (0);
	}
	if (strcmp(kc, "read") == 0) {
		in = json_pack("{s:O}", "file_path", json_array_get(paths, 0));
		if (json_array_size(paths) > 1)
			json_object_set(in, "paths", paths);
		json_decref(paths);
		return (jh_hc_set_tool(c, &jh_host_acp, native, "Read", in));
	}
	if (strcmp(kc, "search") == 0) {
		/* a search checks one path: its locations and input agree */
		for (i = 1; i < json_array_size(paths); i++)
			if (!json_equal(json_array_get(paths, i),
			    json_array_get(paths, 0))) {
				snprintf(why, whysz, "a %s call that names more "
				    "than one path (%.200s and %.200s): the gate "
				    "checks one a search", kind,
				    json_string_value(json_array_get(paths, 0)),
				    json_string_value(json_array_get(paths, i)));
				json_decref(paths);
				return (0);
			}
		in = json_pack("{s:O}", "path", json_array_get(paths, 0));
		if (in != NULL && json_is_string(json_object_get(raw,
		    "pattern")))
			json_object_set(in, "pattern", json_object_get(raw,
			    "pattern"));
		json_decref(paths);
		return (jh_hc_set_tool(c, &jh_host_acp, native, "Grep", in));
	}
	/* edit, delete, move: every path is a target written */
	in = json_pack("{s:o}", "paths", paths);
	return (jh_hc_set_tool(c, &jh_host_acp, native, "apply_patch", in));
}

/*
 * A tool call of session/request_permission or session/update.  Sets
 * the tool, or leaves it unset with a defect in why.
 */
static int
acp_call(json_t *c, const json_t *call, char *why, size_t whysz)
{
	const json_t *raw = json_object_get(call, "rawInput");
	const char *kind = json_string_value(json_object_get(call, "kind"));
	const char *tn, *kc;
	json_t *in, *v, *paths;
	char native[256];

	tn = json_string_value(json_object_get(json_object_get(json_object_get(
	    call, "_meta"), "claudeCode"), "toolName"));
	if (raw != NULL && !json_is_object(raw)) {
		snprintf(why, whysz, "the tool call's rawInput is not an "
		    "object");
		return (0);
	}
	if (tn != NULL)
		return (acp_claude(c, raw, tn, kind, why, whysz));
	snprintf(native, sizeof(native), "acp:%s", kind ? kind : "other");
	if (raw != NULL && json_is_array(v = json_object_get(raw, "command"))) {
		/* codex-acp's exec: an argv and its cwd */
		if ((v = argv_line(v, NULL)) == NULL) {
			snprintf(why, whysz, "the command is not an argv of "
			    "strings");
			return (0);
		}
		in = json_pack("{s:o}", "command", v);
		if (in != NULL && json_is_string(json_object_get(raw, "cwd")))
			json_object_set(in, "workdir", json_object_get(raw,
			    "cwd"));
		return (jh_hc_set_tool(c, &jh_host_acp, native, "Bash", in));
	}
	if (raw != NULL && json_is_object(v = json_object_get(raw,
	    "changes"))) {
		/* codex-acp's patch: the files it touches */
		if ((paths = changes_paths(v)) == NULL)
			return (-1);
		in = json_pack("{s:o}", "paths", paths);
		return (jh_hc_set_tool(c, &jh_host_acp, native, "apply_patch",
		    in));
	}
	if (kind != NULL && strcmp(kind, "execute") == 0) {
		v = json_object_get(raw, "command");
		if (!json_is_string(v)) {
			snprintf(why, whysz, "an execute call without a "
			    "command");
			return (0);
		}
		in = json_pack("{s:O}", "command", v);
		if (in != NULL && json_is_string(json_object_get(raw, "cwd")))
			json_object_set(in, "workdir", json_object_get(raw,
			    "cwd"));
		return (jh_hc_set_tool(c, &jh_host_acp, native, "Bash", in));
	}
	kc = kind_class(kind);
	if (kc != NULL && strcmp(kc, "shell") != 0)
		return (acp_bykind(c, call, raw, kc, kind, native, why,
		    whysz));
	/* think, switch_mode, other: a tool of class other */
	in = raw != NULL ? json_deep_copy(raw) : json_object();
	return (jh_hc_set_tool(c, &jh_host_acp, native, native, in));
}

static json_t *
acp_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *call, *pa, *id, *src;
	const char *m, *ev;
	char mbuf[64];
	int rc = 0;

	if (c == NULL)
		return (NULL);
	snprintf(mbuf, sizeof(mbuf), "%s", json_is_string(json_object_get(c,
	    "acp_method")) ? json_string_value(json_object_get(c,
	    "acp_method")) : "");
	m = mbuf;
	call = json_incref(json_object_get(c, "tool_call"));
	pa = json_incref(json_object_get(c, "params"));
	json_object_del(c, "acp_method");
	json_object_del(c, "tool_call");
	json_object_del(c, "params");
	if (strcmp(m, "fs/write_text_file") == 0)
		rc = acp_fs(c, pa, 1);
	else if (strcmp(m, "fs/read_text_file") == 0)
		rc = acp_fs(c, pa, 0);
	else if (strcmp(m, "terminal/create") == 0)
		rc = acp_terminal(c, pa);
	else if (json_is_object(call)) {
		id = json_object_get(call, "toolCallId");
		if (json_is_string(id))
			json_object_set(c, JH_HK_CALL, id);
		rc = acp_call(c, call, why, whysz);
	}
	ev = json_string_value(json_object_get(c, JH_HK_EVENT));
	if (rc == 0 && why[0] == '\0' && json_object_get(c, JH_HK_TOOL) ==
	    NULL && ev != NULL && strcmp(ev, "PreToolUse") == 0)
		snprintf(why, whysz, "%s: not a request jh-acp can read",
		    m[0] != '\0' ? m : "no acp_method");
	/* what the agent sent, kept as it was (jh-normalize(1) HOSTS) */
	src = json_is_object(pa) ? pa : json_object_get(call, "rawInput");
	if (rc == 0 && why[0] != '\0' && json_object_get(c, JH_HK_TOOL) ==
	    NULL) {
		/* unreadable: still a call, so its deny is sealed with why */
		snprintf(mbuf, sizeof(mbuf), "acp:%s", json_is_string(
		    json_object_get(call, "kind")) ? json_string_value(
		    json_object_get(call, "kind")) : "unreadable");
		rc = jh_hc_set_tool(c, &jh_host_acp, mbuf, mbuf,
		    json_is_object(src) ? json_deep_copy(src) : json_object());
	}
	if (rc == 0 && json_object_get(c, JH_HK_INPUT) != NULL &&
	    json_is_object(src) && !json_equal(src, json_object_get(c,
	    JH_HK_INPUT)))
		json_object_set(c, "native_input", src);
	if (rc == 0 && jh_hc_derive_id(c) == -1)
		rc = -1;
	json_decref(call);
	json_decref(pa);
	if (rc == -1) {
		json_decref(c);
		return (NULL);
	}
	return (c);
}

/*
 * jh-acp reads Claude Code's answers: allow (with -A), ask and deny as
 * hookSpecificOutput.permissionDecision, deny also exit 2.  An allow
 * without -A is nothing, "no opinion": the editor asks the user, as it
 * would without joulehook.  ACP cannot give the agent another input, so
 * a rewrite is a deny (can_rewrite 0).
 */
static int
acp_answer(struct jh_buf *b, int verdict, const char *reason,
    const char *updated, int replace)
{
	(void)updated;
	switch (verdict) {
	case JH_ANSWER_ALLOW:
		if (!replace)
			return (0);
		jh_hc_hso(b, "allow", reason);
		break;
	case JH_ANSWER_ASK:
		jh_hc_hso(b, "ask", reason);
		break;
	default:
		jh_hc_hso(b, "deny", reason);
		jh_buf_adds(b, "}}\n");
		return (2);
	}
	jh_buf_adds(b, "}}\n");
	return (0);
}

/* After a call: nothing, or continue:false, which jh-acp turns into a
 * session/cancel and a message to the user. */
static int
acp_post_answer(struct jh_buf *b, const char *event, int what,
    const char *reason, const char *path)
{
	(void)event;
	(void)path;
	return (jh_hc_stop(b, what, reason, 0));
}

const struct jh_host jh_host_acp = {
	"acp", JH_HOST_RUN, acp_canon, acp_tools, 1, 0, 2,
	acp_answer, NULL, acp_post_answer, NULL, NULL, 0, 1
};
