/*
 * fast-upstream: an Anthropic Messages upstream for make bench, fast
 * enough that a direct call beats one through jh-proxy, so the proxy's
 * rows measure the proxy and not the mock (tests/mock/anthropic-mock.py
 * is the scripted one the tests use).  Every POST gets one short answer
 * with its usage: a JSON message, or an SSE stream when the body holds
 * "stream":true.  Listens on 127.0.0.1, port 0 by default, and writes
 * the port it got to the file named.
 *
 *	fast-upstream [-p port] portfile
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

static const char msg[] =
    "{\"id\":\"msg_fast\",\"type\":\"message\",\"role\":\"assistant\","
    "\"model\":\"claude-sonnet-4-6\",\"content\":[{\"type\":\"text\","
    "\"text\":\"a short answer\"}],\"stop_reason\":\"end_turn\","
    "\"usage\":{\"input_tokens\":12,\"output_tokens\":5}}";

static const char sse[] =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
    "{\"id\":\"msg_fast\",\"type\":\"message\",\"role\":\"assistant\","
    "\"model\":\"claude-sonnet-4-6\",\"content\":[],\"usage\":"
    "{\"input_tokens\":12,\"output_tokens\":1}}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\","
    "\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
    "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
    "\"a short answer\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
    "\"index\":0}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
    "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

struct req {
	int stream;
	char tail[16];		/* a match split across two reads */
};

static enum MHD_Result
answer(void *cls, struct MHD_Connection *con, const char *url,
    const char *method, const char *version, const char *data, size_t *n,
    void **ptr)
{
	struct MHD_Response *r;
	struct req *q = *ptr;
	enum MHD_Result ret;
	int stream;

	(void)cls;
	(void)url;
	(void)version;
	if (q == NULL) {
		if ((q = calloc(1, sizeof(*q))) == NULL)
			return (MHD_NO);
		*ptr = q;
		return (MHD_YES);
	}
	if (*n > 0) {
		char buf[64];
		size_t k = strlen(q->tail), m = *n < 32 ? *n : 32;

		/* "stream":true, allowing a space after the colon */
		memcpy(buf, q->tail, k);
		memcpy(buf + k, data, m);
		buf[k + m] = '\0';
		if (strstr(buf, "\"stream\":true") != NULL ||
		    strstr(buf, "\"stream\": true") != NULL || memmem(data, *n,
		    "\"stream\":true", 13) != NULL || memmem(data, *n,
		    "\"stream\": true", 14) != NULL)
			q->stream = 1;
		m = *n < 15 ? *n : 15;
		memcpy(q->tail, data + *n - m, m);
		q->tail[m] = '\0';
		*n = 0;
		return (MHD_YES);
	}
	stream = q->stream && strcmp(method, "POST") == 0;
	r = MHD_create_response_from_buffer(stream ? sizeof(sse) - 1 :
	    sizeof(msg) - 1, (void *)(stream ? sse : msg),
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return (MHD_NO);
	MHD_add_response_header(r, "Content-Type", stream ?
	    "text/event-stream" : "application/json");
	MHD_add_response_header(r, "request-id", "req_fast");
	ret = MHD_queue_response(con, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return (ret);
}

static void
done(void *cls, struct MHD_Connection *con, void **ptr,
    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)con;
	(void)toe;
	free(*ptr);
	*ptr = NULL;
}

int
main(int argc, char *argv[])
{
	const union MHD_DaemonInfo *di;
	struct MHD_Daemon *d;
	struct sockaddr_in sa;
	FILE *f;
	int ch, port = 0;

	while ((ch = getopt(argc, argv, "p:")) != -1)
		switch (ch) {
		case 'p':
			port = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: fast-upstream [-p port] "
			    "portfile\n");
			return (2);
		}
	if (argc - optind != 1) {
		fprintf(stderr, "usage: fast-upstream [-p port] portfile\n");
		return (2);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
	    (uint16_t)port, NULL, NULL, answer, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	    MHD_OPTION_THREAD_POOL_SIZE, 2u,
	    MHD_OPTION_NOTIFY_COMPLETED, done, NULL,
	    MHD_OPTION_CONNECTION_LIMIT, 1000u,
	    MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
	    MHD_OPTION_END);
	if (d == NULL)
		errx(1, "cannot listen on port %d", port);
	if ((di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)) == NULL)
		errx(1, "no port");
	if ((f = fopen(argv[optind], "w")) == NULL)
		err(1, "%s", argv[optind]);
	fprintf(f, "%u\n", (unsigned)di->port);
	fclose(f);
	for (;;)
		pause();
}
