#!/usr/bin/python3
"""A scripted ACP agent for tests/acp.bats: the Agent Client Protocol's
real wire format (JSON-RPC 2.0, one object per line on stdio), no model.

    fake-agent.py SCRIPT.json LOG.jsonl

It answers initialize, session/new (sessionId "fake-1"), session/load and
session/prompt; for each prompt it runs the script's steps, in order:

  {"send": OBJ}          write OBJ as one line (a request when it has an id)
  {"raw": TEXT}          write TEXT and a newline as they are
  {"huge": N, "send": OBJ}  OBJ with a "pad" string of N bytes
  {"await": ID}          read until the client's response to ID
  {"await_cancel": true} read until session/cancel
  {"sleep_ms": N}

Every line it reads from the client is logged as {"got": OBJ} (or
{"bad": TEXT}), every response it awaited as {"response": OBJ}.
"""
import json
import sys
import time

script = json.load(open(sys.argv[1]))
logf = open(sys.argv[2], "a", buffering=1)
out = sys.stdout


def log(o):
    logf.write(json.dumps(o) + "\n")


def send(o):
    out.write(json.dumps(o) + "\n")
    out.flush()


def read():
    line = sys.stdin.readline()
    if not line:
        log({"eof": True})
        sys.exit(0)
    try:
        m = json.loads(line)
    except ValueError:
        log({"bad": line})
        return None
    log({"got": m})
    return m


def run_steps():
    for st in script:
        if "sleep_ms" in st:
            time.sleep(st["sleep_ms"] / 1000)
        elif "huge" in st:
            o = dict(st["send"])
            o["params"] = dict(o.get("params", {}))
            o["params"]["pad"] = "x" * st["huge"]
            send(o)
        elif "send" in st:
            send(st["send"])
        elif "raw" in st:
            out.write(st["raw"] + "\n")
            out.flush()
        elif "await" in st:
            while True:
                m = read()
                if m and "method" not in m and m.get("id") == st["await"]:
                    log({"response": m})
                    break
        elif "await_cancel" in st:
            while True:
                m = read()
                if m and m.get("method") == "session/cancel":
                    break


while True:
    m = read()
    if m is None or "method" not in m or "id" not in m:
        continue
    meth, rid = m["method"], m["id"]
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": 1, "agentCapabilities": {},
            "authMethods": []}})
    elif meth == "session/new":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "fake-1"}})
    elif meth == "session/prompt":
        run_steps()
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {
            "code": -32601, "message": "Method not found: " + meth}})
