/*
 * joulehook: the Gemini CLI adapter (observed with 0.61.0, headless,
 * offline; jh-normalize(1) "HOSTS").  Its payload is Claude Code's shape
 * with its own event and tool names, and no tool-call id: the adapter
 * derives one from the session, the tool and its input, so the reply
 * binds to this call and AfterTool finds its decision.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "buf.h"
#include "host.h"
#include "hosts.h"
#include "paths.h"
#include "shellcheck.h"

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

/* Whether the first n bytes of pat name a directory, from cwd. */
static int
there(const char *cwd, const char *pat, size_t n)
{
	char p[PATH_MAX];
	struct stat st;
	int k;

	if (n == 0)
		return (0);
	k = pat[0] == '/' || cwd == NULL ? snprintf(p, sizeof(p), "%.*s",
	    (int)n, pat) : snprintf(p, sizeof(p), "%s/%.*s", cwd, (int)n, pat);
	return (k > 0 && (size_t)k < sizeof(p) && stat(p, &st) == 0 &&
	    S_ISDIR(st.st_mode));
}

/*
 * The length of the white space JavaScript's \s matches at p (ASCII's,
 * no-break spaces, Unicode's spaces and separators, the byte order
 * mark), or 0.
 */
static size_t
js_space(const unsigned char *p)
{
	if (strchr(" \t\n\v\f\r", *p) != NULL && *p != '\0')
		return (1);
	if (p[0] == 0xc2 && p[1] == 0xa0)			/* U+00A0 */
		return (2);
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)	/* U+1680 */
		return (3);
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <=
	    0x8a) || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
		return (3);		/* U+2000-200A, 2028, 2029, 202F */
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)	/* U+205F */
		return (3);
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)	/* U+3000 */
		return (3);
	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)	/* U+FEFF */
		return (3);
	return (0);
}

/*
 * The URLs a prompt names, as web_fetch reads them: the prompt split at
 * white space as JavaScript's split(/\s+/) splits it, and every piece
 * that holds "://" whole (new URL(piece) is what is fetched: its host
 * may come after a [ or a quote).  Where http:// or https:// starts
 * inside a piece, also the piece from there (the releases that took
 * URLs by a pattern).
 */
static int
prompt_urls(const char *s, json_t *urls)
{
	const unsigned char *p = (const unsigned char *)s, *t;
	const char *h;
	size_t n, w;

	for (;;) {
		while ((w = js_space(p)) > 0)
			p += w;
		if (*p == '\0')
			return (0);
		for (t = p; *t != '\0' && js_space(t) == 0; t++)
			;
		n = (size_t)(t - p);
		if (memmem(p, n, "://", 3) != NULL) {
			if (json_array_append_new(urls, json_stringn(
			    (const char *)p, n)) == -1)
				return (-1);
			for (h = (const char *)p + 1; h < (const char *)t; h++)
				if ((strncasecmp(h, "https://", 8) == 0 ||
				    strncasecmp(h, "http://", 7) == 0) &&
				    json_array_append_new(urls, json_stringn(h,
				    (size_t)((const char *)t - h))) == -1)
					return (-1);
		}
		p = t;
	}
}

/*
 * A file tool's path as 0.61.0 reads it.  A leading "@" is dropped where
 * the path is not there as written (resolveDefensiveToolPath), so both
 * forms are targets.  replace given a relative path that is not there
 * searches the workspace for a file whose path ends with it
 * (correctPath), which may be any file: refused, to be named in full.
 */
static json_t *
gemini_file(const char *tool, json_t *in, const char *fp, const char *cwd,
    char *why, size_t whysz)
{
	char lex[PATH_MAX + 1], bare[PATH_MAX + 1];
	const char *b = NULL;
	struct stat st;
	json_t *o;

	if (fp[0] == '@' && fp[1] != '\0') {
		b = fp + 1 + strspn(fp + 1, "/\\");
		snprintf(bare, sizeof(bare), "%s", b);
		b = bare[0] != '\0' ? bare : NULL;
	}
	if (strcmp(tool, "replace") == 0 && fp[0] != '/' && (cwd == NULL ||
	    jh_path_lexical(lex, sizeof(lex), cwd, fp) == -1 ||
	    stat(lex, &st) == -1) && (b == NULL || b[0] == '/' || cwd ==
	    NULL || jh_path_lexical(lex, sizeof(lex), cwd, b) == -1 ||
	    stat(lex, &st) == -1)) {
		snprintf(why, whysz, "replace names %.200s, which is not in "
		    "the working directory: Gemini CLI would search the "
		    "workspace for a file of that name; give its path in full",
		    fp);
		return (json_incref(in));
	}
	if (b == NULL)
		return (json_incref(in));
	if ((o = json_deep_copy(in)) == NULL || json_object_set_new(o, "paths",
	    json_pack("[s]", b)) == -1) {
		json_decref(o);
		return (NULL);
	}
	return (o);
}

/*
 * The arguments as the tool reads them (0.61.0).  web_fetch fetches the
 * URLs its prompt names (and its url, where direct fetching is on): the
 * one URL they come to is the fetch's, and several are refused, as the
 * gate checks one URL a call.  read_many_files' include patterns are
 * expanded by glob(3)-like matching, case folded, dot files included: a
 * pattern is the tree of its literal directory prefix (the working
 * directory when that prefix is not there as written).
 */
static json_t *
gemini_input(const char *tool, json_t *in, const char *cwd, char *why,
    size_t whysz)
{
	json_t *o, *v, *urls;
	size_t i, k;

	if (strcmp(tool, "web_fetch") == 0) {
		if ((o = json_deep_copy(in)) == NULL ||
		    (urls = json_array()) == NULL) {
			json_decref(o);
			return (NULL);
		}
		if (json_is_string(v = json_object_get(in, "url")))
			json_array_append(urls, v);
		if (json_is_string(v = json_object_get(in, "prompt")) &&
		    prompt_urls(json_string_value(v), urls) == -1) {
			json_decref(urls);
			json_decref(o);
			return (NULL);
		}
		for (i = 1; i < json_array_size(urls); i++)
			for (k = 0; k < i; k++)
				if (!json_equal(json_array_get(urls, i),
				    json_array_get(urls, k))) {
					snprintf(why, whysz, "web_fetch names "
					    "more than one URL (in its url or "
					    "its prompt): the gate checks one a "
					    "call; fetch each on its own");
					i = k = json_array_size(urls);
				}
		if (json_array_size(urls) == 0)
			snprintf(why, whysz, "web_fetch names no URL");
		else
			json_object_set(o, "url", json_array_get(urls, 0));
		json_decref(urls);
		return (o);
	}
	if ((strcmp(tool, "write_file") == 0 || strcmp(tool, "replace") == 0 ||
	    strcmp(tool, "read_file") == 0) && json_is_string(v =
	    json_object_get(in, "file_path")))
		return (gemini_file(tool, in, json_string_value(v), cwd, why,
		    whysz));
	if (strcmp(tool, "read_many_files") == 0 &&
	    json_is_array(v = json_object_get(in, "include"))) {
		if ((o = json_deep_copy(in)) == NULL ||
		    (urls = json_array()) == NULL) {
			json_decref(o);
			return (NULL);
		}
		for (i = 0; i < json_array_size(v); i++) {
			const char *pat = json_string_value(
			    json_array_get(v, i));
			size_t m;
			if (pat == NULL) {
				snprintf(why, whysz, "read_many_files' "
				    "include %zu is not a string", i + 1);
				break;
			}
			if (jh_glob_climbs(pat)) {
				snprintf(why, whysz, "read_many_files' include "
				    "%zu (%.200s) may climb out of its "
				    "directory (a '..', a bracket or a brace "
				    "with a '.' after a wildcard): name the "
				    "files or directories plainly", i + 1, pat);
				break;
			}
			m = strcspn(pat, "*?[{!");
			if (pat[m] == '\0') {
				json_array_append_new(urls, json_string(pat));
				continue;
			}
			while (m > 0 && pat[m - 1] != '/')
				m--;
			m = m > 1 ? m - 1 : m;
			/* not there as written (case folded): the cwd's tree */
			if (!there(cwd, pat, m))
				json_array_append_new(urls, json_string("."));
			else
				json_array_append_new(urls, json_stringn(pat,
				    m));
		}
		json_object_set_new(o, "include", urls);
		return (o);
	}
	return (json_incref(in));
}

static json_t *
gemini_canon(const json_t *p, char *why, size_t whysz)
{
	json_t *c = json_deep_copy(p), *in, *mc, *ci;
	const char *tool, *srv, *name;
	char *mcp = NULL;

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
	json_incref(in);
	if ((ci = gemini_input(tool, in, json_string_value(json_object_get(c,
	    "cwd")), why, whysz)) == NULL || jh_hc_set_tool(c,
	    &jh_host_gemini_cli, tool, mcp ? mcp : tool, ci) == -1 ||
	    jh_hc_derive_id(c) == -1) {
		free(mcp);
		json_decref(in);
		json_decref(c);
		return (NULL);
	}
	/* the host's own arguments, for a rewrite merged over them */
	if (!json_equal(json_object_get(c, JH_HK_INPUT), in))
		json_object_set(c, "native_input", in);
	free(mcp);
	json_decref(in);
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
