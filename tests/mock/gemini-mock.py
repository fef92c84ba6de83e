#!/usr/bin/python3
"""A scripted Gemini API server (generateContent) for end-to-end tests.

Standard library only; run it with Debian's /usr/bin/python3:

    gemini-mock.py --script FILE --log FILE [--port N] [--port-file F] [--pid-file F]

Routes (v1beta, v1 and v1alpha alike)
  POST /VER/models/M:streamGenerateContent?alt=sse   scripted turn, SSE chunks
  POST /VER/models/M:streamGenerateContent           the same chunks as one JSON array
  POST /VER/models/M:generateContent                 scripted turn, one JSON answer
  POST /VER/models/M:countTokens                     {"totalTokens": len(body)//4}
  GET  /VER/models                                   one model list page
  HEAD|GET /                                         200, empty body
  anything else                                      404, google.rpc.Status shape

Script (JSON, re-read on every request): a list of model turns, or an
object {"turns": [...]}.  Turn k answers a request whose `contents` already
hold k turns of role "model".  A turn is an object with any of
  "text": "..."                       a text part
  "function_calls": [{"name": "run_shell_command", "args": {...}}, ...]
                                      one functionCall part each (several =
                                      parallel calls in one turn)
  "usage": {...}                      usageMetadata fields, over the computed
                                      ones (promptTokenCount = body bytes / 4,
                                      candidatesTokenCount = answer bytes / 4)
  "no_usage": true                    no usageMetadata at all
  "finish_reason": "..."              default STOP
  "error": {"status": 429, "status_name": "RESOURCE_EXHAUSTED",
            "message": "...", "count"?: N}
                                      an error answer instead; with "count"
                                      only the first N requests of this turn
  "stream_error": {"message": "..."}  SSE: after the first chunk, an error
                                      chunk and the end of the stream
  "disconnect_after": N               SSE: after N chunks, close without
                                      ending the chunked body
  "delay_ms": N, "chunk_pause_ms": N
After the scripted turns: text "done".  A request that asks for JSON
(generationConfig.responseMimeType "application/json": Gemini CLI's own
side questions, such as who speaks next) is answered
{"next_speaker": "user", "reasoning": "mock"} and does not use a turn.

In a stream every chunk carries usageMetadata, growing, and the last one,
with the finishReason, is the call's total (as the real API sends it).

Every request is appended to --log as one JSON line: time, t_in, method,
path, headers (authorization redacted; x-goog-api-key is kept, so that a
test can see the key reach the provider: tests give fake keys), body, and
"response": {status, turn, stream, response_id, usage, function_calls}.
"""

import itertools
import json
import secrets
import sys
import threading
import time
from urllib.parse import urlsplit, parse_qs

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import mockhttp  # noqa: E402

_counter = itertools.count(1)
_lock = threading.Lock()
_error_hits = {}


def new_id():
    return "resp%04d%s" % (next(_counter), secrets.token_hex(6))


class Handler(mockhttp.Handler):
    server_version = "gemini-mock/1"
    name = "gemini-mock"
    redact = {"authorization"}
    rid_header = "x-mock-request-id"

    def _turns(self):
        s = self._read_script()
        if isinstance(s, dict):
            s = s.get("turns", [])
        return s if isinstance(s, list) else []

    def _status(self, code, name, msg, rid, body):
        self._log(body, {"status": code})
        self._send_json(code, {"error": {"code": code, "message": msg,
                                         "status": name}}, rid)

    def do_HEAD(self):
        self._t_in = time.time()
        self._log(b"", {"status": 200})
        self._send_json(200, {}, new_id())

    def do_GET(self):
        self._t_in = time.time()
        path = urlsplit(self.path).path
        rid = new_id()
        if path == "/":
            self._log(b"", {"status": 200})
            self._send_json(200, {}, rid)
        elif path.split("/")[2:3] == ["models"]:
            self._log(b"", {"status": 200})
            self._send_json(200, {"models": [{"name": "models/gemini-2.5-pro",
                                              "displayName": "mock"}]}, rid)
        else:
            self._status(404, "NOT_FOUND", "mock: no route", rid, b"")

    def do_POST(self):
        self._t_in = time.time()
        raw = self._read_body()
        u = urlsplit(self.path)
        rid = new_id()
        parts = u.path.split("/")
        if len(parts) != 4 or parts[2] != "models" or ":" not in parts[3]:
            self._status(404, "NOT_FOUND", "mock: no route", rid, raw)
            return
        model, method = parts[3].split(":", 1)
        try:
            req = json.loads(raw) if raw else {}
            if not isinstance(req, dict):
                raise ValueError("not an object")
        except ValueError as e:
            self._status(400, "INVALID_ARGUMENT", "mock: %s" % e, rid, raw)
            return
        if method == "countTokens":
            self._log(raw, {"status": 200})
            self._send_json(200, {"totalTokens": max(1, len(raw) // 4)}, rid)
            return
        if method not in ("generateContent", "streamGenerateContent"):
            self._status(404, "NOT_FOUND", "mock: no method %s" % method, rid, raw)
            return
        sse = parse_qs(u.query).get("alt") == ["sse"]
        self._generate(req, raw, model, method == "streamGenerateContent", sse, rid)

    def _generate(self, req, raw, model, stream, sse, rid):
        contents = req.get("contents") or []
        gc = req.get("generationConfig") or {}
        side = gc.get("responseMimeType") == "application/json"
        k = sum(1 for c in contents if isinstance(c, dict) and c.get("role") == "model")
        turns = self._turns()
        turn = turns[k] if not side and k < len(turns) and isinstance(turns[k], dict) else {}
        if turn.get("delay_ms"):
            time.sleep(turn["delay_ms"] / 1000.0)
        err = turn.get("error")
        if err:
            with _lock:
                n = _error_hits.get(k, 0)
                _error_hits[k] = n + 1
            if "count" not in err or n < int(err["count"]):
                code = int(err.get("status", 500))
                self._log(raw, {"status": code, "turn": k})
                self._send_json(code, {"error": {
                    "code": code, "message": err.get("message", "mock error"),
                    "status": err.get("status_name", "INTERNAL")}}, rid)
                return
        parts = []
        text = None
        if side:
            text = json.dumps({"next_speaker": "user", "reasoning": "mock"})
        elif "text" in turn or "function_calls" in turn:
            if turn.get("text") is not None:
                text = str(turn["text"])
        else:
            text = "done"
        if text is not None:
            parts.append({"text": text})
        calls = []
        for fc in ([] if side else turn.get("function_calls") or []):
            calls.append({"name": fc["name"], "args": fc.get("args") or {}})
            parts.append({"functionCall": calls[-1]})
        out_bytes = len(text or "") + sum(len(json.dumps(c)) for c in calls)
        usage = {"promptTokenCount": max(1, len(raw) // 4),
                 "candidatesTokenCount": max(1, out_bytes // 4)}
        usage.update(turn.get("usage") or {})
        usage["totalTokenCount"] = (usage.get("promptTokenCount", 0) +
                                    usage.get("candidatesTokenCount", 0) +
                                    usage.get("thoughtsTokenCount", 0) +
                                    usage.get("toolUsePromptTokenCount", 0))
        if turn.get("no_usage"):
            usage = None
        resp_id = new_id()
        fin = turn.get("finish_reason", "STOP")
        version = model
        self._log(raw, {"status": 200, "turn": None if side else k, "side": side,
                        "stream": stream, "response_id": resp_id, "usage": usage,
                        "function_calls": calls})

        def chunk(ps, last, frac):
            c = {"candidates": [{"content": {"role": "model", "parts": ps},
                                 "index": 0}],
                 "modelVersion": version, "responseId": resp_id}
            if last:
                c["candidates"][0]["finishReason"] = fin
            if usage is not None:
                if last:
                    c["usageMetadata"] = usage
                else:
                    # growing, as the real stream's are; the last is the total
                    c["usageMetadata"] = {
                        "promptTokenCount": usage.get("promptTokenCount", 0),
                        "candidatesTokenCount": max(
                            1, int(usage.get("candidatesTokenCount", 0) * frac)),
                        "totalTokenCount": usage.get("promptTokenCount", 0)}
            return c

        if not stream:
            self._send_json(200, chunk(parts, True, 1), rid)
            return
        # the text in pieces, then the calls and the end in the last chunk
        pieces = []
        if text:
            pieces = [text[i:i + 16] for i in range(0, len(text), 16)]
        chunks = [[{"text": p}] for p in pieces[:-1]]
        chunks.append(([{"text": pieces[-1]}] if pieces else []) +
                      [{"functionCall": c} for c in calls])
        bodies = [chunk(ps, i == len(chunks) - 1, (i + 1) / len(chunks))
                  for i, ps in enumerate(chunks)]
        if not sse:
            self._send_json(200, bodies, rid)
            return
        pause = float(turn.get("chunk_pause_ms") or 0) / 1000.0
        self._sse_start(rid)
        try:
            for i, b in enumerate(bodies):
                if turn.get("disconnect_after") is not None and \
                        i >= int(turn["disconnect_after"]):
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self._chunk(("data: %s\r\n\r\n" % json.dumps(b)).encode())
                if i == 0 and turn.get("stream_error"):
                    e = {"error": {"code": 500, "status": "INTERNAL",
                                   "message": turn["stream_error"].get("message", "mock")}}
                    self._chunk(("data: %s\r\n\r\n" % json.dumps(e)).encode())
                    break
                if pause:
                    time.sleep(pause)
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main():
    mockhttp.serve(Handler, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
