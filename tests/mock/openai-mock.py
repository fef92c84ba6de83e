#!/usr/bin/python3
"""A scripted OpenAI API server (Chat Completions and Responses) for tests.

Standard library only; run it with Debian's /usr/bin/python3:

    openai-mock.py --script FILE --log FILE [--port N] [--port-file F] [--pid-file F]

Routes
  POST /v1/chat/completions   JSON, or SSE chunks + "data: [DONE]" (stream:true);
                              a usage chunk (choices: []) before [DONE] only
                              when stream_options.include_usage is true
  POST /v1/responses          JSON, or SSE response.created,
                              response.output_item.added/.done (tool calls),
                              response.output_text.delta..., response.completed
  GET  /v1/models             one model list page
  anything else               404, OpenAI error shape

Script (a JSON object, re-read on every request), all keys optional:
  "text": "..."                 the answer (default "done")
  "usage": {...}                the usage object, replacing the computed one
  "no_usage": true              send no usage at all
  "error": {"status": 429, "type": "...", "message": "...", "code": "..."}
  "stream_error": {"message": "..."}   SSE: after the first chunk, an error
                                chunk (chat) or a response.failed (responses)
  "delay_ms": N, "chunk_pause_ms": N, "first_pause_ms": N
  "finish_reason": "..."        chat (default "stop")
  "turns": [{...}, ...]         Responses only: scripted assistant turns.
                                Turn k answers a request whose `input`
                                already holds k assistant turns (runs of
                                message/function_call/custom_tool_call/
                                reasoning items; a call id the script gave
                                marks its turn too).  A turn is an object
                                with any of
      "text": "..."             the assistant message
      "calls": [{"name": "exec_command", "arguments": {"cmd": "...",
                 "workdir": "..."}}, {"name": "apply_patch",
                 "input": "*** Begin Patch..."}, ...]
                                one output item each, in one response
                                (several = parallel calls): "input" makes a
                                custom_tool_call (freeform), else a
                                function_call ("arguments" an object or a
                                JSON string); "call_id" optional (default
                                call_<k>_<j>)
      "usage": {...}            this turn's usage in response.completed
                                After the turns: text "done".
  "chat_turns": [turn, ...]     chat only: scripted assistant turns.  Turn k
                                answers a request whose `messages` already
                                hold k assistant messages; after the last,
                                the "text" above.  A turn is an object with
                                any of
      "text": "..."             content before the calls
      "tool_calls": [{"name": "run_commands", "arguments": {...} or "...",
                      "id"?: "call_..."}, ...]
                                one function call each (several = parallel
                                calls in one message), streamed the way
                                OpenAI does: a delta with index, id, type,
                                name and empty arguments, then the
                                arguments in pieces; finish_reason
                                "tool_calls"
      "usage": {...}, "finish_reason": "..."   overrides for this turn
  "toolless_text": "..."        chat_turns only: a request that offers no
                                tools is answered with this text and is
                                not a turn (OpenCode asks for a session
                                title so, beside the turns)

Every request is appended to --log as one JSON line: time, t_in, method,
path, headers (authorization redacted), body, response {status, id}.
"""

import itertools
import json
import secrets
import sys
import time
from urllib.parse import urlsplit

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
import mockhttp  # noqa: E402

_counter = itertools.count(1)


def new_id(prefix):
    return "%s%04d%s" % (prefix, next(_counter), secrets.token_hex(6))


def responses_turn(req, sc):
    """The scripted Responses turn for this request: (k, turn) where k
    counts the assistant turns already in req["input"] (see "turns" in
    the module docstring); turn is {} past the script or without one."""
    turns = sc.get("turns")
    if not isinstance(turns, list):
        return None, None
    owner = {}
    for k, t in enumerate(turns):
        for j, c in enumerate((t or {}).get("calls") or []):
            owner[c.get("call_id") or "call_%d_%d" % (k, j)] = k
    items = req.get("input")
    items = items if isinstance(items, list) else []
    runs, inrun, marked = 0, False, -1
    for it in items:
        if not isinstance(it, dict):
            continue
        ty = it.get("type", "message")
        mine = (ty in ("function_call", "custom_tool_call", "reasoning")
                or (ty == "message" and it.get("role") == "assistant"))
        if mine and not inrun:
            runs += 1
        inrun = mine
        if ty in ("function_call", "custom_tool_call") and it.get("call_id") in owner:
            marked = max(marked, owner[it["call_id"]])
    k = max(runs, marked + 1)
    return k, (turns[k] if k < len(turns) and isinstance(turns[k], dict) else {})


def responses_items(k, turn):
    """The output items of scripted turn k: its calls, then its text."""
    out = []
    for j, c in enumerate(turn.get("calls") or []):
        cid = c.get("call_id") or "call_%d_%d" % (k, j)
        if "input" in c:
            out.append({"type": "custom_tool_call", "id": new_id("ctc_"),
                        "status": "completed", "call_id": cid,
                        "name": c.get("name", "apply_patch"), "input": c["input"]})
        else:
            a = c.get("arguments", {})
            out.append({"type": "function_call", "id": new_id("fc_"),
                        "status": "completed", "call_id": cid,
                        "name": c.get("name", "exec_command"),
                        "arguments": a if isinstance(a, str) else json.dumps(a)})
    return out


class Handler(mockhttp.Handler):
    server_version = "openai-mock/1"
    name = "openai-mock"
    rid_header = "x-request-id"

    def _data(self, obj, event=None):
        s = ""
        if event:
            s += "event: %s\n" % event
        s += "data: %s\n\n" % (obj if isinstance(obj, str) else json.dumps(obj))
        self._chunk(s.encode())

    def _script(self):
        s = self._read_script()
        return s if isinstance(s, dict) else {}

    def do_GET(self):
        self._t_in = time.time()
        rid = new_id("req_")
        if urlsplit(self.path).path == "/v1/models":
            self._log(b"", {"status": 200})
            self._send_json(200, {"object": "list", "data": [
                {"id": "gpt-5.5", "object": "model", "owned_by": "mock"}]}, rid)
            return
        self._log(b"", {"status": 404})
        self._send_json(404, {"error": {"message": "no route", "type": "invalid_request_error",
                                   "param": None, "code": "not_found"}}, rid)

    def do_POST(self):
        self._t_in = time.time()
        raw = self._read_body()
        route = urlsplit(self.path).path
        rid = new_id("req_")
        sc = self._script()
        try:
            req = json.loads(raw) if raw else {}
            if not isinstance(req, dict):
                raise ValueError("not an object")
        except ValueError as e:
            self._log(raw, {"status": 400})
            self._send_json(400, {"error": {"message": "mock: %s" % e,
                                       "type": "invalid_request_error",
                                       "param": None, "code": None}}, rid)
            return
        if sc.get("delay_ms"):
            time.sleep(sc["delay_ms"] / 1000.0)
        err = sc.get("error")
        if err:
            st = int(err.get("status", 500))
            self._log(raw, {"status": st})
            self._send_json(st, {"error": {"message": err.get("message", "mock error"),
                                      "type": err.get("type", "server_error"),
                                      "param": None, "code": err.get("code")}}, rid)
            return
        if route == "/v1/chat/completions":
            self._chat(req, raw, sc, rid)
        elif route == "/v1/responses":
            self._responses(req, raw, sc, rid)
        else:
            self._log(raw, {"status": 404})
            self._send_json(404, {"error": {"message": "no route", "type": "invalid_request_error",
                                       "param": None, "code": "not_found"}}, rid)

    def _usage_chat(self, raw, text, sc):
        if "usage" in sc:
            return sc["usage"]
        p = max(1, len(raw) // 4)
        c = max(1, len(text) // 4)
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                "prompt_tokens_details": {"cached_tokens": 0}}

    def _chat_turn(self, req, sc):
        """The "chat_turns" entry for this request: (turn index, text,
        tool calls as [{"id", "name", "arguments" (a string)}], the turn's
        overrides); (None, ...) without "chat_turns"."""
        turns = sc.get("chat_turns")
        if not isinstance(turns, list):
            return None, sc.get("text", "done"), [], {}
        if "toolless_text" in sc and not req.get("tools"):
            # a request offering no tools (OpenCode's session title) is
            # answered in words and is no turn
            return None, sc["toolless_text"], [], {}
        k = sum(1 for m in req.get("messages") or []
                if isinstance(m, dict) and m.get("role") == "assistant")
        turn = turns[k] if k < len(turns) and isinstance(turns[k], dict) else None
        if turn is None:
            return k, sc.get("text", "done"), [], {}
        calls = []
        for i, tc in enumerate(turn.get("tool_calls") or []):
            args = tc.get("arguments", {})
            if not isinstance(args, str):
                args = json.dumps(args)
            calls.append({"id": tc.get("id") or "call_%d_%d%s" % (
                k, i, secrets.token_hex(4)), "name": tc["name"], "arguments": args})
        text = turn.get("text", "" if calls else sc.get("text", "done"))
        over = {key: turn[key] for key in ("usage", "finish_reason") if key in turn}
        if calls and "finish_reason" not in over:
            over["finish_reason"] = "tool_calls"
        return k, text, calls, over

    def _chat(self, req, raw, sc, rid):
        k, text, calls, over = self._chat_turn(req, sc)
        if over:
            sc = dict(sc, **over)
        cid = new_id("chatcmpl-")
        model = req.get("model") or "gpt-5.5"
        usage = None if sc.get("no_usage") else self._usage_chat(
            raw, text + "".join(c["name"] + c["arguments"] for c in calls), sc)
        fin = sc.get("finish_reason", "stop")
        stream = bool(req.get("stream"))
        include = bool((req.get("stream_options") or {}).get("include_usage"))
        pause = float(sc.get("chunk_pause_ms") or 0) / 1000.0
        logged = {"status": 200, "id": cid, "stream": stream, "include_usage": include}
        if k is not None:
            logged.update(turn=k, tool_call_ids=[c["id"] for c in calls], usage=usage)
        self._log(raw, logged)
        if not stream:
            msg = {"role": "assistant", "content": text or None}
            if calls:
                msg["tool_calls"] = [{"id": c["id"], "type": "function", "function": {
                    "name": c["name"], "arguments": c["arguments"]}} for c in calls]
            body = {"id": cid, "object": "chat.completion", "created": int(time.time()),
                    "model": model, "choices": [{"index": 0, "message": msg,
                                                 "finish_reason": fin}]}
            if usage is not None:
                body["usage"] = usage
            self._send_json(200, body, rid)
            return
        self._sse_start(rid)
        base = {"id": cid, "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}
        try:
            first = dict(base, choices=[{"index": 0, "delta": {"role": "assistant",
                                                                "content": ""},
                                         "finish_reason": None}])
            if include:
                first["usage"] = None
            self._data(first)
            if sc.get("first_pause_ms"):
                time.sleep(sc["first_pause_ms"] / 1000.0)
            if sc.get("stream_error"):
                self._data({"error": {"message": sc["stream_error"].get("message", "mock"),
                                      "type": "server_error", "param": None,
                                      "code": None}})
                self._chunk(b"")
                return
            for i in range(0, len(text), 8):
                ch = dict(base, choices=[{"index": 0, "delta": {"content": text[i:i + 8]},
                                          "finish_reason": None}])
                if include:
                    ch["usage"] = None
                self._data(ch)
                if pause:
                    time.sleep(pause)
            self._chat_tool_deltas(base, calls, include, pause)
            last = dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": fin}])
            if include:
                last["usage"] = None
            self._data(last)
            if include and usage is not None:
                self._data(dict(base, choices=[], usage=usage))
            self._data("[DONE]")
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chat_tool_deltas(self, base, calls, include, pause):
        """SSE deltas for the turn's tool calls, as OpenAI streams them."""
        for i, c in enumerate(calls):
            head = {"index": i, "id": c["id"], "type": "function",
                    "function": {"name": c["name"], "arguments": ""}}
            pieces = [c["arguments"][j:j + 16] for j in range(0, len(c["arguments"]), 16)]
            for d in [head] + [{"index": i, "function": {"arguments": a}} for a in pieces]:
                ch = dict(base, choices=[{"index": 0, "delta": {"tool_calls": [d]},
                                          "finish_reason": None}])
                if include:
                    ch["usage"] = None
                self._data(ch)
                if pause:
                    time.sleep(pause)

    def _responses(self, req, raw, sc, rid):
        k, turn = responses_turn(req, sc)
        calls = responses_items(k, turn) if turn else []
        text = (turn.get("text", "" if calls else "done") if turn is not None
                else sc.get("text", "done"))
        resp_id = new_id("resp_")
        model = req.get("model") or "gpt-5.5"
        if turn and "usage" in turn:
            usage = turn["usage"]
        elif "usage" in sc:
            usage = sc["usage"]
        else:
            i = max(1, len(raw) // 4)
            o = max(1, (len(text) + (len(json.dumps(calls)) if calls else 0)) // 4)
            usage = {"input_tokens": i, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": o, "output_tokens_details": {"reasoning_tokens": 0},
                     "total_tokens": i + o}
        if sc.get("no_usage"):
            usage = None
        stream = bool(req.get("stream"))
        pause = float(sc.get("chunk_pause_ms") or 0) / 1000.0
        logged = {"status": 200, "id": resp_id, "stream": stream}
        if turn is not None:
            logged.update(turn=k, call_ids=[c["call_id"] for c in calls], usage=usage)
        self._log(raw, logged)
        out = list(calls)
        if text or not calls:
            out.append({"type": "message", "id": new_id("msg_"), "status": "completed",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text,
                                     "annotations": []}]})
        full = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": model, "output": out, "usage": usage}
        if not stream:
            self._send_json(200, full, rid)
            return
        self._sse_start(rid)
        seq = itertools.count(0)
        try:
            self._data({"type": "response.created", "sequence_number": next(seq),
                        "response": dict(full, status="in_progress", output=[],
                                         usage=None)}, "response.created")
            if sc.get("first_pause_ms"):
                time.sleep(sc["first_pause_ms"] / 1000.0)
            if sc.get("stream_error"):
                self._data({"type": "response.failed", "sequence_number": next(seq),
                            "response": dict(full, status="failed", usage=None,
                                             error={"code": "server_error",
                                                    "message": "mock"})},
                           "response.failed")
                self._chunk(b"")
                return
            for n, item in enumerate(out):
                if item["type"] == "message":
                    if turn is not None:
                        self._data({"type": "response.output_item.added",
                                    "sequence_number": next(seq), "output_index": n,
                                    "item": dict(item, status="in_progress", content=[])},
                                   "response.output_item.added")
                    for i in range(0, len(text), 8):
                        self._data({"type": "response.output_text.delta",
                                    "sequence_number": next(seq), "item_id": item["id"],
                                    "output_index": n, "content_index": 0,
                                    "delta": text[i:i + 8]}, "response.output_text.delta")
                        if pause:
                            time.sleep(pause)
                else:
                    self._data({"type": "response.output_item.added",
                                "sequence_number": next(seq), "output_index": n,
                                "item": item}, "response.output_item.added")
                if item["type"] != "message" or turn is not None:
                    self._data({"type": "response.output_item.done",
                                "sequence_number": next(seq), "output_index": n,
                                "item": item}, "response.output_item.done")
            self._data({"type": "response.completed", "sequence_number": next(seq),
                        "response": full}, "response.completed")
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main():
    mockhttp.serve(Handler, __doc__.split("\n")[0])


if __name__ == "__main__":
    main()
