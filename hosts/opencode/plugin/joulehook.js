// joulehook's OpenCode plugin (OpenCode 1.18.33; jh-normalize(1) HOSTS,
// hosts/opencode/README.md).  Plain ESM, no dependencies.
//
// Before each tool call it runs the gate, jh-hook -H opencode, with the
// call on its standard input and lets the call run only on a valid
// allow.  A deny, and every failure (the hook cannot be started, exits
// with another status, is killed, answers what is not an allow, or
// outlasts DEADLINE_MS), throws: OpenCode then does not run the tool and
// gives the model the error's text as its result.  OpenCode puts no
// deadline on a plugin's hook, so this one keeps its own.  After each
// call it gives the gate the result, which binds it to the decision; a
// failure there cannot undo the call, so it is reported (in the tool's
// output and on the standard error), never thrown.  When a session goes
// idle it tells the gate, which seals a checkpoint.
//
// jh-install -H opencode writes this file with the three values below
// filled in; as it is in the source tree it runs nothing, and so lets
// nothing run.
import { spawn } from "node:child_process";

const HOOK = "@JH_HOOK@";
const HOOK_ARGS = ["-c", "@JH_CONF@", "-H", "opencode"];
const DEADLINE_MS = Number("@JH_DEADLINE_MS@");
const MAX_ANSWER = 1 << 20;

// Runs the hook on one payload: {status, signal, stdout, stderr}, or
// rejects when it cannot be run or outlasts the deadline (it is killed).
function runHook(payload) {
	return new Promise((resolve, reject) => {
		let child, done = false, out = [], err = [], outlen = 0, errlen = 0;
		const fail = (why) => {
			if (done)
				return;
			done = true;
			clearTimeout(timer);
			kill();
			reject(new Error(why));
		};
		const kill = () => {
			try {
				process.kill(-child.pid, "SIGKILL");
			} catch {
				try { child.kill("SIGKILL"); } catch { /* gone */ }
			}
		};
		if (!HOOK.startsWith("/") || !(DEADLINE_MS > 0)) {
			reject(new Error("the plugin is not configured (install it with jh-install -H opencode)"));
			return;
		}
		const timer = setTimeout(() => fail(`${HOOK} gave no answer within ${DEADLINE_MS} ms and was killed`),
		    DEADLINE_MS);
		try {
			// its own process group, so the deadline kills all of it;
			// no environment: jh-hook clears its own anyway
			child = spawn(HOOK, HOOK_ARGS, { stdio: ["pipe", "pipe", "pipe"],
			    detached: true, env: {} });
		} catch (e) {
			fail(`cannot run ${HOOK}: ${e.message}`);
			return;
		}
		child.on("error", (e) => fail(`cannot run ${HOOK}: ${e.message}`));
		child.stdout.on("data", (d) => {
			outlen += d.length;
			if (outlen > MAX_ANSWER)
				fail(`${HOOK} answered more than ${MAX_ANSWER} bytes`);
			else
				out.push(d);
		});
		child.stderr.on("data", (d) => {
			if (errlen < 65536) {
				errlen += d.length;
				err.push(d);
			}
		});
		child.on("close", (status, signal) => {
			if (done)
				return;
			done = true;
			clearTimeout(timer);
			resolve({ status, signal, stdout: Buffer.concat(out).toString("utf8"),
			    stderr: Buffer.concat(err).toString("utf8") });
		});
		child.stdin.on("error", () => { /* the hook's exit says why */ });
		child.stdin.end(JSON.stringify(payload));
	});
}

// The hook's stderr, last line, for a message.
function lastLine(s) {
	const l = s.trim().split("\n");
	return l[l.length - 1] || "";
}

// Its answer, or throws the reason the call does not run.
function decision(r, tool) {
	let a = null;
	if (r.signal)
		throw new Error(`joulehook: ${tool} was not run: ${HOOK} was killed (${r.signal}); the gate fails closed`);
	try {
		a = JSON.parse(r.stdout);
	} catch {
		a = null;
	}
	if (r.status === 0 && a !== null && typeof a === "object" && a.decision === "allow")
		return a;
	if (a !== null && typeof a === "object" && a.decision === "deny" &&
	    typeof a.reason === "string" && a.reason !== "")
		throw new Error(a.reason);
	const why = lastLine(r.stderr);
	throw new Error(`joulehook: ${tool} was not run: ${HOOK} exited ${r.status}` +
	    ` without a valid answer${why ? ` (${why})` : ""}; the gate fails closed`);
}

// The rewritten arguments in place of the model's (OpenCode runs the
// object it passed the hook).
function replaceArgs(output, args) {
	if (args === null || typeof args !== "object" || Array.isArray(args))
		throw new Error("joulehook: the gate's rewrite is not an object of arguments; the call was not run");
	if (output.args === null || typeof output.args !== "object")
		output.args = {};
	for (const k of Object.keys(output.args))
		delete output.args[k];
	Object.assign(output.args, args);
}

export const JouleHook = async (ctx) => {
	const cwd = ctx.directory;
	return {
		"tool.execute.before": async (input, output) => {
			let r;
			try {
				r = await runHook({ hook_event_name: "tool.execute.before",
				    session_id: input.sessionID, tool_call_id: input.callID,
				    tool: input.tool, args: output.args, cwd });
			} catch (e) {
				throw new Error(`joulehook: ${input.tool} was not run: ${e.message}; the gate fails closed`);
			}
			const a = decision(r, input.tool);
			if (a.args !== undefined)
				replaceArgs(output, a.args);
		},
		"tool.execute.after": async (input, output) => {
			const report = (why) => {
				const msg = `joulehook: the result of ${input.tool} (${input.callID}) was not recorded: ${why}`;
				console.error(msg);
				if (output && typeof output.output === "string")
					output.output += `\n\n${msg}`;
			};
			let r, a = null;
			try {
				r = await runHook({ hook_event_name: "tool.execute.after",
				    session_id: input.sessionID, tool_call_id: input.callID,
				    tool: input.tool, args: input.args, cwd,
				    output: output ? { title: output.title, metadata: output.metadata,
					output: output.output } : null });
			} catch (e) {
				report(e.message);
				return;
			}
			if (r.signal || r.status !== 0) {
				report(`${HOOK} ${r.signal ? `was killed (${r.signal})` : `exited ${r.status}`}` +
				    `${lastLine(r.stderr) ? ` (${lastLine(r.stderr)})` : ""}`);
				return;
			}
			if (r.stdout.trim() === "")
				return;
			try {
				a = JSON.parse(r.stdout);
			} catch {
				a = null;
			}
			if (a === null || typeof a !== "object" || typeof a.reason !== "string") {
				report(`${HOOK} answered what is not an answer`);
				return;
			}
			// what ran is not what was decided: the model is told, and the
			// gate denies the rest of the session
			console.error(a.reason);
			if (!output || typeof output !== "object")
				return;
			if (a.decision === "withhold")
				output.output = a.reason;
			else
				output.output = `${typeof output.output === "string" ? output.output : ""}\n\n${a.reason}`;
		},
		// A session gone idle has ended its turn: the gate closes its
		// open asks and seals a checkpoint (jh-hook(1) "When a session
		// ends").  Nothing is left to block; a failure is reported.
		event: async ({ event }) => {
			if (!event || event.type !== "session.idle" || !event.properties ||
			    typeof event.properties.sessionID !== "string")
				return;
			const sid = event.properties.sessionID;
			try {
				const r = await runHook({ hook_event_name: "session.idle",
				    session_id: sid, cwd });
				if (r.signal || r.status !== 0)
					console.error(`joulehook: the end of session ${sid}'s turn was not recorded: ` +
					    `${HOOK} ${r.signal ? `was killed (${r.signal})` : `exited ${r.status}`}` +
					    `${lastLine(r.stderr) ? ` (${lastLine(r.stderr)})` : ""}`);
			} catch (e) {
				console.error(`joulehook: the end of session ${sid}'s turn was not recorded: ${e.message}`);
			}
		},
	};
};
