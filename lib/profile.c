/*
 * Each host's declared conformance profile (spec 6) and the disclosures
 * spec 7 asks for: what the adapter cannot see, whether the ceiling is
 * enforced or only observed.  One table, read by jh-status -P and checked
 * against the README's host table by the tests; what a host can answer
 * (ask, rewrite) comes from its adapter (hosts.c), never restated here.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jh.h"
#include "hosts.h"
#include "profile.h"

static const struct jh_profile profiles[] = {
	{ "claude-code", "Claude Code 2.1.328", "claude-code",
	  "PreToolUse hook (the joulehook plugin; hardened: managed settings)",
	  "ANTHROPIC_BASE_URL and the token header in ~/.claude/settings.json",
	  "MCP server, status line",
	  "real binary, offline against a mock model",
	  { "a subagent's tool calls are decided against the parent's grant, "
	    "with the parent's rights",
	    "a tool an MCP server runs is seen by its name and arguments, "
	    "not by what the server does with them" } },
	{ "gemini-cli", "Gemini CLI 0.61.0", "hooks-family",
	  "BeforeTool hook in ~/.gemini/settings.json",
	  "GOOGLE_GEMINI_BASE_URL and the token header in ~/.gemini/.env",
	  "MCP server",
	  "real binary, offline against a mock model",
	  { "ask is answered as a deny: a headless run hangs on ask",
	    "Gemini CLI sends the provider no session id: the meter's units "
	    "go to the proxy's own log, not the session's",
	    "a request names no output limit: the meter holds its configured "
	    "maximum for each call",
	    "a tool an MCP server runs is seen by its name and arguments, "
	    "not by what the server does with them" } },
	{ "codex", "Codex CLI 0.171.0", "hooks-family",
	  "PreToolUse hook in ~/.codex/hooks.json, trusted in config.toml "
	  "(hardened: managed requirements)",
	  "the provider and profile joulehook in ~/.codex/config.toml "
	  "(codex -p joulehook)",
	  "MCP server",
	  "real binary, offline against a mock model",
	  { "ask is answered as a deny: Codex runs the tool on ask",
	    "a hook after a tool cannot end the run: after a result that "
	    "differs from its decision, the gate refuses the session's later "
	    "calls",
	    "the hook runs only while its trust record in config.toml "
	    "matches; a hook Codex does not trust is skipped without a word",
	    "an apply_patch cannot be rewritten, only allowed or denied",
	    "jh-proxy meters only runs started with codex -p joulehook: a run "
	    "without the profile calls the provider directly, unmetered" } },
	{ "cline", "Cline CLI 3.0.65", "cline",
	  "PreToolUse hook file in ~/.cline/hooks",
	  "the provider's baseUrl and the token header in "
	  "~/.cline/data/settings/providers.json",
	  NULL,
	  "real binary, offline against a mock model",
	  { "a deny aborts the whole run, Cline's only block; its reason is "
	    "in cline.log and the receipt, not shown to the model",
	    "ask is answered as a deny: Cline approves on its own",
	    "no receipt surface: Cline draws no status line and the CLI binds "
	    "no MCP server here" } },
	{ "cursor", "Cursor", "hooks-family",
	  "preToolUse hook with failClosed in ~/.cursor/hooks.json",
	  NULL, NULL,
	  "golden payloads from the host's documentation, not run",
	  { "never run here: bound from the host's documentation",
	    "no meter is bound: the host's model calls are not metered",
	    "ask is answered as a deny: Cursor does not enforce ask on "
	    "preToolUse",
	    "an MCP call on preToolUse names no server" } },
	{ "windsurf", "Windsurf", "hooks-family",
	  "every pre_* hook in ~/.codeium/windsurf/hooks.json",
	  NULL, NULL,
	  "golden payloads from the host's documentation, not run",
	  { "never run here: bound from the host's documentation",
	    "no meter is bound: the host's model calls are not metered",
	    "the payload names no working directory: the session's pinned "
	    "project root is used",
	    "ask and rewrite are answered as denies: the hook can only "
	    "block" } },
	{ "opencode", "OpenCode 1.18.33", "opencode",
	  "tool.execute.before in the plugin ~/.config/opencode/plugin/"
	  "joulehook.js, with its own deadline",
	  "provider.joulehook in ~/.config/opencode/opencode.json",
	  "MCP server",
	  "real binary, offline against a mock model",
	  { "ask is answered as a deny: a plugin cannot ask",
	    "a run cannot be ended after a tool: after a result that differs "
	    "from its decision, the gate refuses the session's later calls",
	    "another plugin that changes a tool's arguments after joulehook's "
	    "runs what was not decided; the result then does not match",
	    "an MCP tool is decided as class other, not by its server",
	    "jh-proxy meters only the models of provider.joulehook: a model of "
	    "another provider calls it directly, unmetered" } },
	{ "acp", "ACP agents (claude-code-acp 0.16.2, codex-acp 0.16.0)",
	  "acp",
	  "jh-acp between the editor and the agent: session/request_permission, "
	  "fs/read_text_file, fs/write_text_file, terminal/create",
	  NULL, "the editor's agent panel (a message for each deny)",
	  "real agents, offline against a mock model, the ACP SDK client as "
	  "the editor; no editor run",
	  { "a call the agent runs without asking permission is only observed: "
	    "sealed after the fact, never stopped",
	    "ask goes to the editor's own permission dialog; rewrite is "
	    "answered as a deny: ACP cannot substitute input",
	    "no meter is bound: the agent's model calls are not metered",
	    "a read through the editor is not checked against what was "
	    "decided" } },
	{ "otel", "any OpenTelemetry host", "meter-only", NULL, NULL, NULL,
	  "the receiver with the real Claude Code and Gemini CLI exports, "
	  "offline against a mock model",
	  { "no gate: the host's tool calls are neither seen nor decided",
	    "the joule ceiling is observed, not enforced: a call is counted "
	    "after the host reports it, never refused",
	    "while the receiver is down, the host's calls go unmetered",
	    "anything on this machine can post units to the receiver: it "
	    "listens on the loopback only, without authentication" } },
	{ "antigravity", "Antigravity", "hooks-family",
	  "PreToolUse hook in ~/.gemini/config/hooks.json",
	  NULL, NULL,
	  "third-party reports only, not run",
	  { "never run here: bound from third-party reports of the host",
	    "no meter is bound: the host's model calls are not metered",
	    "ask and rewrite are answered as denies" } },
};

const struct jh_profile *
jh_profile_at(size_t i)
{
	return (i < sizeof(profiles) / sizeof(profiles[0]) ?
	    &profiles[i] : NULL);
}

const struct jh_profile *
jh_profile_lookup(const char *host)
{
	const struct jh_profile *p;
	size_t i;

	for (i = 0; (p = jh_profile_at(i)) != NULL; i++)
		if (strcmp(p->host, host) == 0)
			return (p);
	return (NULL);
}

/*
 * A small record of the install's, read line by line into f(line): a
 * missing file is empty; a link, a FIFO or a line over the buffer is
 * refused, never followed or waited on.
 */
static int
read_record(const char *path, void (*f)(struct jh_bound *, char *),
    struct jh_bound *b, struct jh_err *e)
{
	struct stat st;
	char line[1024];
	FILE *fp;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (0);
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return (jh_errf(e, "%s: not a regular file", path));
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		close(fd);
		return (jh_errf(e, "%s: %s", path, strerror(errno)));
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strchr(line, '\n') == NULL && !feof(fp)) {
			fclose(fp);
			return (jh_errf(e, "%s: a line is too long", path));
		}
		line[strcspn(line, "\n")] = '\0';
		f(b, line);
	}
	fclose(fp);
	return (0);
}

/* " a b " from words separated by blanks, each word once. */
static void
add_words(char *set, size_t sz, const char *words)
{
	char w[128];
	size_t n;

	while (*words != '\0') {
		words += strspn(words, " \t");
		if ((n = strcspn(words, " \t")) == 0)
			break;
		if (n < sizeof(w) - 2) {
			snprintf(w, sizeof(w), " %.*s ", (int)n, words);
			if (strstr(set, w) == NULL && strlen(set) + n + 2 < sz)
				snprintf(set + strlen(set), sz - strlen(set),
				    "%s%.*s ", set[0] == '\0' ? " " : "",
				    (int)n, words);
		}
		words += n;
	}
}

static void
hosts_line(struct jh_bound *b, char *line)
{
	add_words(b->hosts, sizeof(b->hosts), line);
}

static void
meter_line(struct jh_bound *b, char *line)
{
	if (strncmp(line, "url=", 4) == 0 &&
	    strlen(line + 4) < sizeof(b->proxy_url))
		strcpy(b->proxy_url, line + 4);
	else if (strncmp(line, "hosts=", 6) == 0)
		add_words(b->proxy_hosts, sizeof(b->proxy_hosts), line + 6);
}

static void
otlp_line(struct jh_bound *b, char *line)
{
	if (strncmp(line, "url=", 4) == 0 &&
	    strlen(line + 4) < sizeof(b->otlp_url))
		strcpy(b->otlp_url, line + 4);
	else if (strncmp(line, "hosts=", 6) == 0)
		add_words(b->otlp_hosts, sizeof(b->otlp_hosts), line + 6);
}

static void
conf_line(struct jh_bound *b, char *line)
{
	if (strcmp(line, "meter=transcript") == 0)
		b->transcript = 1;
}

int
jh_bound_read(struct jh_bound *b, const char *home, const char *conf,
    struct jh_err *e)
{
	char path[4096];

	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "%s/hosts", home);
	if (read_record(path, hosts_line, b, e) == -1)
		return (-1);
	snprintf(path, sizeof(path), "%s/meter.conf", home);
	if (read_record(path, meter_line, b, e) == -1)
		return (-1);
	snprintf(path, sizeof(path), "%s/otlp.conf", home);
	if (read_record(path, otlp_line, b, e) == -1)
		return (-1);
	if (conf == NULL) {
		snprintf(path, sizeof(path), "%s/hook.conf", home);
		conf = path;
	}
	return (read_record(conf, conf_line, b, e));
}

static int
in_set(const char *set, const char *word)
{
	char w[160];

	snprintf(w, sizeof(w), " %s ", word);
	return (strstr(set, w) != NULL);
}

json_t *
jh_profile_json(const struct jh_profile *p, const struct jh_bound *b)
{
	const struct jh_host *h = jh_host_lookup(p->host);
	json_t *o, *v, *lim;
	const char *by = NULL, *ceiling = "none", *conf;
	int gate, proxy, sealed, i;

	gate = p->gate != NULL && in_set(b->hosts, p->host);
	proxy = p->proxy != NULL && b->proxy_url[0] != '\0' &&
	    in_set(b->proxy_hosts, p->host);
	if (proxy) {
		by = "jh-proxy";
		ceiling = "enforced";
	} else if (b->otlp_url[0] != '\0' && (p->gate == NULL ||
	    in_set(b->otlp_hosts, p->host))) {
		by = "otel";
		ceiling = "observed";
	} else if (gate && b->transcript && h != NULL && h->transcript) {
		by = "transcript";
		ceiling = "observed";
	}
	sealed = gate || by != NULL;
	conf = gate && proxy ? "full" : sealed ? "minimal" : "none";
	v = json_array();
	if (p->gate != NULL) {
		json_array_append_new(v, json_string("allow"));
		json_array_append_new(v, json_string("deny"));
	}
	if (h != NULL && h->can_ask)
		json_array_append_new(v, json_string("ask"));
	if (h != NULL && h->can_rewrite)
		json_array_append_new(v, json_string("rewrite"));
	lim = json_array();
	for (i = 0; i < JH_PROFILE_LIMITS && p->limits[i] != NULL; i++)
		json_array_append_new(lim, json_string(p->limits[i]));
	if (!proxy && p->proxy != NULL)
		json_array_append_new(lim, json_string(by != NULL ?
		    "the joule ceiling is observed, not enforced: the model's "
		    "tokens are counted after the host reports them (its "
		    "transcript or telemetry), and no jh-proxy is bound "
		    "(jh-install -M)" :
		    "no meter is bound: the model's energy is not counted "
		    "(jh-install -M binds jh-proxy)"));
	o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:{s:s?, s:b},"
	    " s:{s:s?, s:b, s:s?, s:s?, s:s}, s:{s:b, s:s?}, s:o, s:s, s:o}",
	    "host", p->host, "name", p->name, "profile", p->profile,
	    "installed", sealed, "conformance", conf,
	    "gate", "seam", p->gate, "bound", gate,
	    "meter", "offered", p->proxy, "bound", by != NULL, "by", by,
	    "url", proxy ? b->proxy_url : by != NULL && strcmp(by, "otel") ==
	    0 ? b->otlp_url : NULL, "ceiling", ceiling,
	    "receipts", "sealed", sealed, "surface", p->surface,
	    "verdicts", v, "tested", p->tested, "cannot_see", lim);
	return (o);
}
