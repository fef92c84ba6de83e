// A real MCP client (the official TypeScript SDK from npm) driving
// `jh-status -m` over stdio, for tests/status.bats.
//
//   MCP_SDK=<dir with node_modules/@modelcontextprotocol/sdk> \
//   node mcp-client.mjs ROOT OP [ARG]
//
// The server is `jh-status -m -r ROOT`, found in PATH, with this
// process's environment (JH_HOME, JH_STATE).  OP is one of:
//   info              the initialize result the client kept
//   list              every resource, page by page: {pages, resources}
//   read URI          the resources/read result
//   tools             the tools/list result
//   verify [SESSION]  the tools/call result of verify
// One JSON object is printed; an error prints {"error": message} and
// exits 1.  The server must then exit 0 at the end of its input (so an
// ASan build's leak report fails the test): else this exits 3.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const sdk = path.join(process.env.MCP_SDK, 'node_modules',
    '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const { Client } = await import(pathToFileURL(path.join(sdk, 'client',
    'index.js')).href);
const { StdioClientTransport } = await import(pathToFileURL(path.join(sdk,
    'client', 'stdio.js')).href);

const [root, op, arg] = process.argv.slice(2);
const transport = new StdioClientTransport({
	command: process.env.JH_STATUS ?? 'jh-status',
	args: ['-m', '-r', root],
	env: process.env,
	stderr: 'inherit',
});
const client = new Client({ name: 'jh-status-test', version: '1.0.0' });
let out, server;
// Closing the client ends the server's input: it must exit 0.
async function done(status) {
	await client.close().catch(() => {});
	if (server !== undefined && server.exitCode !== 0) {
		console.error(`jh-status -m exited ${server.exitCode} ` +
		    `(signal ${server.signalCode})`);
		process.exit(3);
	}
	process.exit(status);
}
try {
	await client.connect(transport);
	server = transport._process;
	switch (op) {
	case 'info':
		out = {
			serverInfo: client.getServerVersion(),
			capabilities: client.getServerCapabilities(),
			instructions: client.getInstructions(),
		};
		break;
	case 'list': {
		let cursor, pages = 0;
		const resources = [];
		do {
			const r = await client.listResources(cursor ? { cursor } : {});
			pages++;
			resources.push(...r.resources);
			cursor = r.nextCursor;
			if (pages > 10000)
				throw new Error('the cursor never ends');
		} while (cursor);
		out = { pages, resources };
		break;
	}
	case 'read':
		out = await client.readResource({ uri: arg });
		break;
	case 'tools':
		out = await client.listTools();
		break;
	case 'verify':
		out = await client.callTool({ name: 'verify',
		    arguments: arg ? { session: arg } : {} });
		break;
	default:
		throw new Error(`unknown op ${op}`);
	}
} catch (e) {
	console.log(JSON.stringify({ error: String(e?.message ?? e) }));
	await done(1);
}
console.log(JSON.stringify(out));
await done(0);
