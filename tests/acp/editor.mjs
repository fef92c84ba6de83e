// An ACP editor for the tests (tests/acp.bats): the client side of the
// Agent Client Protocol, by @agentclientprotocol/sdk (its path in
// $ACP_SDK), driving one agent command over its stdio.
//
//   node editor.mjs SPEC.json -- COMMAND [ARGS...]
//
// SPEC: {"cwd": DIR, "prompts": [TEXT...], "log": FILE,
//        "answer": "allow" | "reject" | "hang",  (a permission request)
//        "fs": true, "terminal": true,            (capabilities offered)
//        "cancel_after_ms": N}                    (session/cancel N ms
//                                                  after a permission ask)
// Every request and notification the editor received is a line of FILE
// ({"dir":"req"|"note", "method", "params"}), then the permission
// answers it gave ("answered"), then {"dir":"done", "stopReason"} per
// prompt or {"dir":"error", "message"}.  Exit 0 when every prompt ended,
// 3 when the connection failed.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Readable, Writable } from "node:stream";

const acp = await import(process.env.ACP_SDK);
const argv = process.argv.slice(2);
const spec = JSON.parse(readFileSync(argv[0], "utf8"));
const cmd = argv.slice(argv.indexOf("--") + 1);
const log = (o) => appendFileSync(spec.log, JSON.stringify(o) + "\n");
const cwd = spec.cwd ?? process.cwd();

const child = spawn(cmd[0], cmd.slice(1), {
	cwd, stdio: ["pipe", "pipe", "inherit"],
});
let childExit = null;
child.on("exit", (code, sig) => {
	childExit = { code, sig };
	log({ dir: "agent-exit", code, signal: sig });
});
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout));

let sessionId = null;
let cancelled = null;
const terms = new Map();
let nterm = 0;

const app = acp.client({ name: "jh-acp-test-editor" })
    .onRequest("*", async (c) => {
	log({ dir: "req", method: c.method, params: c.params });
	throw acp.RequestError.methodNotFound(c.method);
    })
    .onNotification("*", async (c) => {
	log({ dir: "note", method: c.method, params: c.params });
    })
    .onNotification(acp.methods.client.session.update, async (c) => {
	log({ dir: "note", method: c.method, params: c.params });
    })
    .onRequest(acp.methods.client.session.requestPermission, async (c) => {
	const p = c.params;
	log({ dir: "req", method: c.method, params: p });
	if (spec.cancel_after_ms != null && cancelled == null) {
		cancelled = setTimeout(() => {
			log({ dir: "sent", method: "session/cancel" });
			c.agent.notify(acp.methods.agent.session.cancel,
			    { sessionId: p.sessionId });
		}, spec.cancel_after_ms);
	}
	if (spec.answer === "hang")
		return await new Promise(() => {});
	const want = spec.answer === "reject" ? ["reject_once", "reject_always"] :
	    ["allow_once", "allow_always"];
	const o = want.map((k) => p.options.find((x) => x.kind === k))
	    .find((x) => x);
	const ans = o ? { outcome: { outcome: "selected", optionId: o.optionId } } :
	    { outcome: { outcome: "cancelled" } };
	log({ dir: "answered", answer: ans });
	return ans;
    })
    .onRequest(acp.methods.client.fs.readTextFile, async (c) => {
	log({ dir: "req", method: c.method, params: c.params });
	return { content: readFileSync(c.params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async (c) => {
	log({ dir: "req", method: c.method, params: c.params });
	mkdirSync(dirname(c.params.path), { recursive: true });
	writeFileSync(c.params.path, c.params.content);
	return {};
    })
    .onRequest(acp.methods.client.terminal.create, async (c) => {
	const p = c.params;
	log({ dir: "req", method: c.method, params: p });
	const id = "term-" + ++nterm;
	const env = { ...process.env };
	for (const e of p.env ?? [])
		env[e.name] = e.value;
	const t = { out: "", exit: null, waiters: [] };
	const pr = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? cwd, env,
	    shell: (p.args ?? []).length === 0 });
	pr.stdout.on("data", (d) => { t.out += d; });
	pr.stderr.on("data", (d) => { t.out += d; });
	pr.on("close", (code, sig) => {
		t.exit = { exitCode: code, signal: sig };
		t.waiters.forEach((w) => w(t.exit));
	});
	t.proc = pr;
	terms.set(id, t);
	return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.output, async (c) => {
	const t = terms.get(c.params.terminalId);
	return { output: t.out, truncated: false,
	    ...(t.exit ? { exitStatus: t.exit } : {}) };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async (c) => {
	const t = terms.get(c.params.terminalId);
	return t.exit ?? await new Promise((r) => t.waiters.push(r));
    })
    .onRequest(acp.methods.client.terminal.kill, async (c) => {
	terms.get(c.params.terminalId)?.proc.kill();
	return {};
    })
    .onRequest(acp.methods.client.terminal.release, async (c) => {
	terms.get(c.params.terminalId)?.proc.kill();
	return {};
    });

let rc = 0;
try {
	await app.connectWith(stream, async (ctx) => {
		const init = await ctx.request(acp.methods.agent.initialize, {
			protocolVersion: acp.PROTOCOL_VERSION,
			clientCapabilities: {
				fs: { readTextFile: !!spec.fs, writeTextFile: !!spec.fs },
				terminal: !!spec.terminal,
			},
		});
		log({ dir: "init", result: init });
		const s = await ctx.request(acp.methods.agent.session.new,
		    { cwd, mcpServers: [] });
		sessionId = s.sessionId;
		log({ dir: "session", sessionId });
		for (const text of spec.prompts ?? []) {
			const r = await ctx.request(acp.methods.agent.session.prompt,
			    { sessionId, prompt: [{ type: "text", text }] });
			log({ dir: "done", stopReason: r.stopReason });
		}
	});
} catch (e) {
	log({ dir: "error", message: String(e?.message ?? e),
	    data: e?.data ?? null });
	rc = 3;
}
if (cancelled)
	clearTimeout(cancelled);
for (const t of terms.values())
	t.proc.kill();
if (childExit == null) {
	child.stdin.end();
	setTimeout(() => { child.kill("SIGTERM"); }, 2000).unref();
}
process.exitCode = rc;
setTimeout(() => process.exit(rc), 3000).unref();
