#!/usr/bin/python3
"""A scripted Anthropic Messages API server for end-to-end tests.

Standard library only; run it with Debian's /usr/bin/python3:

    anthropic-mock.py --port N --script FILE --log FILE [--port-file F] [--pid-file F]

--port 0 binds a free port; --port-file then receives the port number
(written atomically once the socket listens), --pid-file this process's pid.

Routes
  POST /v1/messages[?beta=true]               scripted turn, JSON or SSE (stream:true)
  POST /v1/messages/count_tokens[?beta=true]  {"input_tokens": len(body)//4}
  GET  /v1/models                             one model list page
  HEAD|GET / and /api/hello                   200, empty body
  anything else                               404, Anthropic error shape

Script (JSON, re-read on every request): a list of assistant turns, or an
object {"turns": [...]}.  Turn k answers a request whose `messages` already
hold k assistant messages.  A turn is an object with any of
  "text": "..."                         a text block
  "tool_use": [{"name": "Bash", "input": {...}, "id"?: "toolu_..."}, ...]
                                        one tool_use block each (several =
                                        parallel calls in one message);
                                        stop_reason "tool_use"
  "error": {"status": 429, "type": "rate_limit_error", "message": "...",
            "headers"?: {"retry-after": "3"}, "count"?: N}
                                        an error response instead; with
                                        "count", only the first N requests
                                        that land on this turn get it, later
                                        ones get the turn's text/tool_use (or
                                        "done")
  "stream_error": {"type": "overloaded_error", "message": "..."}
                                        SSE only: after message_start, an
                                        `event: error` and the end of stream
  "usage": {...}                        overrides/extra usage fields
  "stop_reason": "..."                  override
  "delay_ms": N                         wait before answering
  "chunk_pause_ms": N                   wait between SSE events
  "delta_usage": false                  SSE only: message_delta without usage
                                        (message_start's is the only count)
  "first_pause_ms": N                   SSE only: wait after message_start
  "disconnect_after": N                 SSE only: after N events, close the
                                        connection without ending the
                                        chunked body (an upstream that died)
After the scripted turns: text "done", stop_reason "end_turn".

The object form may also hold "threads": {"KEY": [turns...], ...}: a
request whose first user message contains KEY (a subagent's, whose task
prompt the main thread's Agent call named) is answered from that list,
counted the same way, instead of from "turns".

Every request is appended to --log as one JSON line: time (when the
answer was sent or ended), t_in (when the request arrived), method, path,
headers (x-api-key and authorization values redacted), body (parsed JSON
when it is JSON), and "response": {status, request_id, message_id, turn,
stream, tool_use_ids, usage}.

Responses carry a unique `request-id` header (req_...); messages a unique
id (msg_...); tool_use blocks unique ids (toolu_...).
"""

import itertools
import json
import secrets
import sys
import threading
import time
from urllib.parse import urlsplit

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import mockhttp  # noqa: E402

DEFAULT_MODEL = "claude-opus-5-5"

_counter = itertools.count(1)
_lock = threading.Lock()
_error_hits = {}  # turn index -> how many times its error was served


def _first_user_text(msgs):
    """The text of the first user message: a string, or its text blocks."""
    for m in msgs:
        if isinstance(m, dict) and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return "".join(b.get("text", "") for b in c
                               if isinstance(b, dict))
            return ""
    return ""


def new_id(prefix):
    # A serial number keeps ids ordered and unique within a run; the random
    # part keeps them unique across runs and mock instances.
    return "%s%04d%s" % (prefix, next(_counter), secrets.token_hex(8))


class _Disconnect(Exception):
    pass


class Handler(mockhttp.Handler):
    server_version = "anthropic-mock/1"
    name = "anthropic-mock"
    redact = {"x-api-key", "authorization"}
    sse_type = "text/event-stream; charset=utf-8"
    chunked_requests = True

    # --- plumbing ------------------------------------------------------

    def _event(self, name, obj, pause):
        left = getattr(self, "_events_left", None)
        if left is not None:
            if left <= 0:
                raise _Disconnect()
            self._events_left = left - 1
        self._chunk(("event: %s\ndata: %s\n\n" % (name, json.dumps(obj))).encode())
        if pause:
            time.sleep(pause)

    def _load_script(self, msgs=None):
        script = self._read_script()
        if script is None:
            return []
        if isinstance(script, dict):
            threads = script.get("threads")
            first = _first_user_text(msgs or [])
            if isinstance(threads, dict) and first:
                for key, turns in threads.items():
                    if key and key in first and isinstance(turns, list):
                        return turns
            script = script.get("turns", [])
        return script if isinstance(script, list) else []

    # --- routes --------------------------------------------------------

    def do_HEAD(self):
        self._simple()

    def do_GET(self):
        route = urlsplit(self.path).path
        if route == "/v1/models":
            rid = new_id("req_mock")
            now = "2026-01-01T00:00:00Z"
            models = [{"type": "model", "id": m, "display_name": m, "created_at": now}
                      for m in (DEFAULT_MODEL, "claude-sonnet-5-0", "claude-haiku-5-0")]
            self._log(b"", {"status": 200, "request_id": rid})
            self._send_json(200, {"data": models, "has_more": False,
                                  "first_id": models[0]["id"],
                                  "last_id": models[-1]["id"]}, rid)
            return
        self._simple()

    def _simple(self):
        route = urlsplit(self.path).path
        rid = new_id("req_mock")
        if route in ("/", "/api/hello"):
            self._log(b"", {"status": 200, "request_id": rid})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.send_header("request-id", rid)
            self.end_headers()
            return
        self._not_found(b"", rid)

    def _not_found(self, body, rid):
        self._log(body, {"status": 404, "request_id": rid})
        self._send_json(404, {"type": "error", "error": {
            "type": "not_found_error", "message": "mock: no route %s %s" % (
                self.command, self.path)}, "request_id": rid}, rid)

    def do_POST(self):
        self._t_in = time.time()
        body = self._read_body()
        route = urlsplit(self.path).path
        rid = new_id("req_mock")
        if route == "/v1/messages/count_tokens":
            self._log(body, {"status": 200, "request_id": rid})
            self._send_json(200, {"input_tokens": max(1, len(body) // 4)}, rid)
            return
        if route != "/v1/messages":
            self._not_found(body, rid)
            return
        try:
            req = json.loads(body) if body else {}
            if not isinstance(req, dict):
                raise ValueError("body is not an object")
        except ValueError as e:
            self._log(body, {"status": 400, "request_id": rid})
            self._send_json(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "mock: %s" % e},
                "request_id": rid}, rid)
            return
        self._messages(req, body, rid)

    def _messages(self, req, body, rid):
        msgs = req.get("messages") or []
        k = sum(1 for m in msgs if isinstance(m, dict) and m.get("role") == "assistant")
        script = self._load_script(msgs)
        turn = script[k] if k < len(script) and isinstance(script[k], dict) else None
        stream = bool(req.get("stream"))
        if turn and turn.get("delay_ms"):
            time.sleep(turn["delay_ms"] / 1000.0)

        err = turn.get("error") if turn else None
        if err:
            with _lock:
                hits = _error_hits.get(k, 0)
                serve = "count" not in err or hits < int(err["count"])
                if serve:
                    _error_hits[k] = hits + 1
            if serve:
                status = int(err.get("status", 500))
                self._log(body, {"status": status, "request_id": rid, "turn": k,
                                 "stream": stream})
                self._send_json(status, {"type": "error", "error": {
                    "type": err.get("type", "api_error"),
                    "message": err.get("message", "mock error")},
                    "request_id": rid}, rid, err.get("headers"))
                return

        blocks = []
        if turn is None or ("text" not in turn and "tool_use" not in turn):
            blocks.append({"type": "text", "text": "done"})
        else:
            if turn.get("text") is not None:
                blocks.append({"type": "text", "text": str(turn["text"])})
            for tu in turn.get("tool_use") or []:
                blocks.append({"type": "tool_use",
                               "id": tu.get("id") or new_id("toolu_mock"),
                               "name": tu.get("name", "Bash"),
                               "input": tu.get("input", {})})
        has_tool = any(b["type"] == "tool_use" for b in blocks)
        stop = (turn or {}).get("stop_reason") or ("tool_use" if has_tool else "end_turn")
        out_tokens = sum(max(1, len(json.dumps(b)) // 4) for b in blocks)
        usage = {"input_tokens": max(1, len(body) // 4),
                 "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0,
                 "output_tokens": out_tokens,
                 "service_tier": "standard"}
        # the provider stops at max_tokens: text cut there, stop_reason
        # "max_tokens" (a turn's own usage, a provider that lies, wins)
        limit = req.get("max_tokens")
        if (isinstance(limit, int) and out_tokens > limit and
                "output_tokens" not in ((turn or {}).get("usage") or {})):
            usage["output_tokens"] = limit
            stop = "max_tokens"
            blocks = [b for b in blocks if b["type"] == "text"] or blocks[:1]
            if blocks and blocks[0]["type"] == "text":
                blocks[0]["text"] = blocks[0]["text"][:max(0, limit * 4 - 40)]
        usage.update((turn or {}).get("usage") or {})
        mid = new_id("msg_mock")
        model = req.get("model") or DEFAULT_MODEL
        resp = {"status": 200, "request_id": rid, "message_id": mid, "turn": k,
                "stream": stream, "usage": usage,
                "tool_use_ids": [b["id"] for b in blocks if b["type"] == "tool_use"]}
        if stream and ((turn or {}).get("first_pause_ms") or
                       (turn or {}).get("disconnect_after") is not None):
            # logged when the stream ends, so the log shows how long it ran
            self._stream(turn or {}, blocks, stop, usage, mid, model, rid)
            resp["ended"] = getattr(self, "_ended", "complete")
            self._log(body, resp)
            return
        self._log(body, resp)
        if not stream:
            self._send_json(200, {"id": mid, "type": "message", "role": "assistant",
                                  "model": model, "content": blocks,
                                  "stop_reason": stop, "stop_sequence": None,
                                  "usage": usage}, rid)
            return
        self._stream(turn or {}, blocks, stop, usage, mid, model, rid)

    def _stream(self, turn, blocks, stop, usage, mid, model, rid):
        pause = float(turn.get("chunk_pause_ms") or 0) / 1000.0
        self._sse_start(rid)
        start_usage = dict(usage)
        start_usage["output_tokens"] = 1
        self._events_left = None
        self._ended = "complete"
        if turn.get("disconnect_after") is not None:
            self._events_left = int(turn["disconnect_after"])
        try:
            self._event("message_start", {"type": "message_start", "message": {
                "id": mid, "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": start_usage}}, pause)
            if turn.get("first_pause_ms"):
                time.sleep(float(turn["first_pause_ms"]) / 1000.0)
            if turn.get("stream_error"):
                se = turn["stream_error"]
                self._event("error", {"type": "error", "error": {
                    "type": se.get("type", "overloaded_error"),
                    "message": se.get("message", "mock: overloaded")},
                    "request_id": rid}, 0)
                self._chunk(b"")
                return
            self._event("ping", {"type": "ping"}, pause)
            for i, b in enumerate(blocks):
                if b["type"] == "text":
                    self._event("content_block_start", {
                        "type": "content_block_start", "index": i,
                        "content_block": {"type": "text", "text": ""}}, pause)
                    t = b["text"]
                    parts = [t[j:j + 16] for j in range(0, len(t), 16)] or [""]
                    for p in parts:
                        self._event("content_block_delta", {
                            "type": "content_block_delta", "index": i,
                            "delta": {"type": "text_delta", "text": p}}, pause)
                else:
                    self._event("content_block_start", {
                        "type": "content_block_start", "index": i,
                        "content_block": {"type": "tool_use", "id": b["id"],
                                          "name": b["name"], "input": {}}}, pause)
                    js = json.dumps(b["input"], separators=(",", ":"))
                    parts = [js[j:j + 24] for j in range(0, len(js), 24)]
                    for p in parts:
                        self._event("content_block_delta", {
                            "type": "content_block_delta", "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": p}}, pause)
                self._event("content_block_stop", {"type": "content_block_stop",
                                                   "index": i}, pause)
            delta = {"type": "message_delta",
                     "delta": {"stop_reason": stop, "stop_sequence": None}}
            if turn.get("delta_usage", True):
                delta["usage"] = usage
            self._event("message_delta", delta, pause)
            self._event("message_stop", {"type": "message_stop"}, 0)
            self._chunk(b"")
        except _Disconnect:
            # no terminating chunk: the client sees the stream cut short
            self._ended = "disconnected"
            self.close_connection = True
            try:
                self.wfile.flush()
                self.connection.shutdown(2)
            except OSError:
                pass
        except (BrokenPipeError, ConnectionResetError):
            self._ended = "client-gone"
            self.close_connection = True


def main():
    mockhttp.serve(Handler, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
