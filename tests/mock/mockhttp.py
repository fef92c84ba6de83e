"""The HTTP and SSE plumbing the scripted API mocks share.

anthropic-mock.py and openai-mock.py subclass Handler for their routes and
call serve() from their main(); standard library only.
"""

import argparse
import hashlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in separate writes: without TCP_NODELAY,
    # Nagle and the client's delayed ACK add 40 ms to every answer
    disable_nagle_algorithm = True
    name = "mock"                   # for messages on stderr
    redact = {"authorization"}      # request headers logged as REDACTED
    rid_header = "request-id"       # the answer's request id header
    sse_type = "text/event-stream"
    chunked_requests = False        # read Transfer-Encoding: chunked bodies

    def log_message(self, fmt, *args):  # quiet; the JSON log is the record
        pass

    def _read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if self.chunked_requests and "chunked" in te:
            data = b""
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _log(self, body_raw, response):
        """One JSON line a request: time, t_in, method, path, headers,
        body, response."""
        headers = {}
        t_in = getattr(self, "_t_in", None)
        for k, v in self.headers.items():
            headers[k] = "REDACTED" if k.lower() in self.redact else v
        try:
            body = json.loads(body_raw) if body_raw else None
        except ValueError:
            body = body_raw.decode("utf-8", "replace")
        rec = {
            "time": time.time(),
            "t_in": t_in,
            "method": self.command,
            "path": self.path,
            "headers": headers,
            "body": body,
            "body_sha256": hashlib.sha256(body_raw or b"").hexdigest(),
            "response": response,
        }
        line = json.dumps(rec, separators=(",", ":")) + "\n"
        with _lock:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(line)

    def _send_json(self, status, obj, request_id, extra_headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header(self.rid_header, request_id)
        for k, v in (extra_headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _sse_start(self, request_id):
        self.send_response(200)
        self.send_header("Content-Type", self.sse_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header(self.rid_header, request_id)
        self.end_headers()

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _read_script(self):
        """The script file's JSON, re-read on every request; None when it
        cannot be read."""
        try:
            with open(self.server.script_path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write("%s: script unreadable: %s\n" % (self.name, e))
            return None


def serve(handler, description):
    """The mocks' command line: --script FILE --log FILE [--port N]
    [--host H] [--port-file F] [--pid-file F]; serves until interrupted."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file")
    ap.add_argument("--pid-file")
    a = ap.parse_args()

    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer((a.host, a.port), handler)
    srv.script_path = a.script
    srv.log_path = a.log
    open(a.log, "a").close()
    if a.pid_file:
        with open(a.pid_file + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.replace(a.pid_file + ".tmp", a.pid_file)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
