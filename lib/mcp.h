/*
 * joulehook: jh-status's MCP server on stdio (lib/mcp.c, jh-status(1),
 * The MCP server), used by bin/jh-status.c and tests/fuzz/fuzz-mcp.c.
 */
#ifndef JH_MCP_H
#define JH_MCP_H

#include <stdio.h>

struct jh_err;
struct jh_stctx;

/*
 * Serves the project's sessions (o) to requests read from fd, answering
 * on out, until EOF (0) or a write error (-1, e says why).
 */
int	jh_mcp_serve(const struct jh_stctx *o, int fd, FILE *out,
	    struct jh_err *e);

#endif /* !JH_MCP_H */
