/*
 * fuzz-payload: bytes -> the host payload normalizer as jh-normalize
 * runs it (lib/hosts.c, lib/json.c): a stream of JSON values framed by
 * jh_reader_json, each with its lone surrogates replaced, parsed by
 * jh_json_parse and mapped by jh_host_event to an ActionEvent by every
 * host of lib/hosts.c; then the host's answers to each verdict built
 * from what
 * the event says.  The payload is what the host (and through it, the
 * agent) writes.  Checked:
 *
 *   - each framed value lies inside the stream, and the next one starts
 *     after it;
 *   - the event is an object that names the host, whose "input" (when
 *     there is one) has an input_digest, whose "class" is the tool's
 *     class, whose content_id is an id, and whose fields have no NUL
 *     unless the event says it is malformed; it dumps and parses back
 *     the same;
 *   - every answer, before and after a tool, is one line of JSON (or
 *     nothing), with the exit status the host expects.
 */
#include "fuzz-common.h"

#include <sys/mman.h>

#include <jansson.h>

#include "jh.h"
#include "buf.h"
#include "hosts.h"
#include "json.h"
#include "util.h"

#define MAXVALUES	64

static const char *const names_of_hosts[] = { "claude-code", "gemini-cli",
    "codex", "cline", "cursor", "windsurf", "antigravity", "opencode",
    "acp" };
#define NHOSTS	(sizeof(names_of_hosts) / sizeof(names_of_hosts[0]))
static const struct jh_host *all[NHOSTS];
static const struct jh_host *host;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	size_t i;

	for (i = 0; i < NHOSTS; i++)
		if ((all[i] = jh_host_lookup(names_of_hosts[i])) == NULL)
			abort();
	host = all[0];
	fz_world("fuzz-payload", "stream framing, JSON, every host's "
	    "mapping and answers");
	return (0);
}

/*
 * Texts already checked, by their bytes: most answers repeat (the same
 * verdict and tool, host after host, value after value, input after
 * input), and so do the events of repeated values; the same bytes pass
 * the same check, so each is checked once.  Static, so that the cache
 * allocates nothing.
 */
#define SEEN		2048
#define SEEN_MAX	4096	/* a longer text is checked every time */
struct seen {
	size_t n;
	uint8_t p[SEEN_MAX];
};
static struct seen answers_seen[SEEN], events_seen[SEEN];

/* The slot of p[0..n) in t; *hit when it is there. */
static size_t
seen_slot(struct seen *t, const void *p, size_t n, int *hit)
{
	const uint8_t *c = p;
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	i = (size_t)(h % SEEN);
	*hit = n <= SEEN_MAX && t[i].n == n && memcmp(t[i].p, p, n) == 0;
	return (i);
}

static void
seen_add(struct seen *t, size_t slot, const void *p, size_t n)
{
	if (n > SEEN_MAX)
		return;
	memcpy(t[slot].p, p, n);
	t[slot].n = n;
}

/* Nothing, or one line of JSON. */
static void
answer_ok(const struct jh_buf *b)
{
	json_error_t je;
	json_t *j;
	size_t slot;
	int hit;

	if (b->oom || b->len == 0)
		return;
	if (b->p[b->len - 1] != '\n' || memchr(b->p, '\n', b->len) !=
	    b->p + b->len - 1)
		abort();
	if ((slot = seen_slot(answers_seen, b->p, b->len, &hit), hit))
		return;
	/* a command may hold a NUL, which JSON.parse takes as \u0000 */
	if ((j = json_loadb((const char *)b->p, b->len - 1, JSON_ALLOW_NUL,
	    &je)) == NULL || !json_is_object(j)) {
		fprintf(stderr, "answer is not a JSON object (%s): %.*s\n",
		    je.text, (int)b->len, (const char *)b->p);
		abort();
	}
	json_decref(j);
	seen_add(answers_seen, slot, b->p, b->len);
}

static const char *
str(const json_t *ev, const char *k)
{
	json_t *v = json_object_get(ev, k);

	return (json_is_string(v) ? json_string_value(v) : NULL);
}

static int
has_nul(const json_t *v)
{
	return (json_is_string(v) && strlen(json_string_value(v)) !=
	    json_string_length(v));
}

static void
check_event(const json_t *ev, int native)
{
	static const char *const names[] = { "session_id", "event", "tool",
	    "tool_use_id", "cwd", "agent_id", "agent_type", "transcript_path",
	    "permission_mode", "prompt_id", NULL };
	json_t *in, *v, *back;
	char dg[JH_ID_LEN], *txt;
	const char *tool, *cls, *cid;
	struct jh_err e;
	size_t i, slot;
	int malformed, hit;

	if (!json_is_object(ev) || str(ev, "host") == NULL ||
	    strcmp(str(ev, "host"), host->name) != 0)
		abort();
	malformed = json_object_get(ev, "malformed") != NULL;
	if (malformed && str(ev, "malformed") == NULL)
		abort();
	if ((in = json_object_get(ev, "input")) != NULL) {
		if (!json_is_object(in))
			abort();
		if (jh_input_digest(dg, in, &e) == -1) {
			fprintf(stderr, "an event's input has no digest: %s\n",
			    e.msg);
			abort();
		}
	}
	tool = str(ev, "tool");
	if (tool != NULL) {
		v = json_object_get(ev, "tool");
		cls = str(ev, "class");
		if (cls == NULL || strcmp(cls, jh_host_class(host,
		    json_string_value(v), json_string_length(v))) != 0)
			abort();
		if (json_object_get(ev, "content_id") == NULL)
			abort();
		if ((cid = str(ev, "content_id")) != NULL &&
		    (strlen(cid) != JH_ID_LEN - 1 ||
		    strncmp(cid, "sha256:", 7) != 0))
			abort();
	} else if (json_object_get(ev, "class") != NULL ||
	    json_object_get(ev, "content_id") != NULL)
		abort();
	if (!malformed) {
		if (str(ev, "session_id") == NULL || str(ev, "event") == NULL)
			abort();
		for (i = 0; names[i] != NULL; i++)
			if (has_nul(json_object_get(ev, names[i])))
				abort();
	}
	if (!native && json_object_get(ev, "native") != NULL)
		abort();
	if ((txt = json_dumps(ev, JSON_COMPACT)) == NULL)
		return;
	/* the same text is the same event, which parsed back before */
	if ((slot = seen_slot(events_seen, txt, strlen(txt), &hit), hit)) {
		free(txt);
		return;
	}
	/* "native" nests the payload one level deeper than jansson's
	   parsing depth may allow */
	back = jh_json_parse(txt, strlen(txt), &e);
	if ((back == NULL && strstr(e.msg, "depth") == NULL) ||
	    (back != NULL && !json_equal(back, (json_t *)ev))) {
		fprintf(stderr, "event does not parse back: %s\n", txt);
		abort();
	}
	json_decref(back);
	seen_add(events_seen, slot, txt, strlen(txt));
	free(txt);
}

static void
answers(const json_t *ev)
{
	const char *reason, *evn, *path, *p, *st;
	json_t *in = json_object_get(ev, "input"), *resp;
	struct jh_buf b;
	char *upd = NULL;
	size_t n;
	int verdict, what, r, rc;

	reason = str(ev, "malformed") ? str(ev, "malformed") :
	    str(ev, "tool") ? str(ev, "tool") : "reason";
	if (in != NULL)
		upd = json_dumps(in, JSON_COMPACT);
	jh_buf_init(&b);
	for (verdict = JH_ANSWER_ALLOW; verdict <= JH_ANSWER_DENY; verdict++)
		for (r = 0; r < 2; r++) {
			if (verdict == JH_ANSWER_REWRITE && upd == NULL)
				continue;
			jh_buf_reset(&b);
			rc = jh_host_answer(&b, host, verdict, reason,
			    str(ev, "tool"), upd, r);
			if (verdict == JH_ANSWER_DENY ? rc != host->block_status :
			    rc != 0 && rc != host->block_status)
				abort();
			answer_ok(&b);
		}
	if ((evn = str(ev, "event")) != NULL &&
	    strlen(evn) == json_string_length(json_object_get(ev, "event"))) {
		st = jh_host_post_status(host, evn);
		if (st != NULL && strcmp(st, "ok") != 0 &&
		    strcmp(st, "failed") != 0 && strcmp(st, "denied") != 0)
			abort();
		path = NULL;
		if ((resp = json_object_get(ev, "response")) != NULL) {
			if (host->written_path != NULL)
				path = host->written_path(resp);
			if (host->read_text != NULL &&
			    host->read_text(resp, &p, &n, &path) == 1 &&
			    (p == NULL || memchr(p, '\0', n + 1) == NULL))
				abort();
		}
		for (what = JH_POST_OK; what <= JH_POST_WITHHOLD; what++) {
			jh_buf_reset(&b);
			if (jh_host_post_answer(&b, host, evn, what, reason,
			    path) != 0)
				abort();
			answer_ok(&b);
		}
	}
	jh_buf_free(&b);
	free(upd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct jh_reader r;
	struct jh_err e;
	const char *val;
	char *fix;
	uint64_t start, last = 0;
	size_t len, k, h;
	json_t *j, *ev;
	int fd, x;

	if ((fd = memfd_create("fuzz-payload", MFD_CLOEXEC)) == -1)
		return (0);
	if (n > 0 && write(fd, d, n) != (ssize_t)n) {
		close(fd);
		return (0);
	}
	lseek(fd, 0, SEEK_SET);
	jh_reader_init(&r, fd);
	for (k = 0; k < MAXVALUES; k++) {
		if ((x = jh_reader_json(&r, &val, &len, &start, &e)) == 0)
			break;
		if (x != 1) {
			if (x != JH_JSON_BROKEN && x != JH_JSON_TOOLONG)
				abort();
			if (x == JH_JSON_BROKEN)
				break;
			continue;
		}
		/* inside the stream, after the last one */
		if (len == 0 || start < last || start + len > n ||
		    memcmp(val, d + start, len) != 0)
			abort();
		last = start + len;
		fix = NULL;
		if (memmem(val, len, "\\u", 2) != NULL) {
			if ((fix = malloc(len)) == NULL)
				break;
			memcpy(fix, val, len);
			jh_json_lone_surrogates(fix, len);
		}
		j = jh_json_parse(fix != NULL ? fix : val, len, &e);
		free(fix);
		if (j == NULL)
			continue;
		for (h = 0; h < NHOSTS; h++) {
			host = all[h];
			if ((ev = jh_host_event(host, j, (int)(k & 1))) !=
			    NULL) {
				check_event(ev, (int)(k & 1));
				answers(ev);
				json_decref(ev);
			}
		}
		json_decref(j);
	}
	jh_reader_free(&r);
	close(fd);
	return (0);
}
