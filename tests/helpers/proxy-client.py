#!/usr/bin/python3
"""HTTP clients for tests/proxy.bats and the proxy rows of make bench.

  proxy-client.py stream URL BODYFILE OUT [HEADER...]
      POST, read the answer as it arrives; prints
      "status first_byte_ms total_ms" (first byte of the body); body to OUT
  proxy-client.py disconnect URL BODYFILE NBYTES [HEADER...]
      POST, read NBYTES of the body, then close the connection
  proxy-client.py concurrent N URL BODYFILE OUTDIR [HEADER...]
      N POSTs at once; OUTDIR/<i>.status and OUTDIR/<i>.body
  proxy-client.py bench N CLIENTS URL BODYFILE [HEADER...]
      N POSTs over CLIENTS keep-alive connections; prints JSON
      {n, secs, rps, p50_ms, p99_ms, ttfb_p50_ms, ttfb_p99_ms, errors}

URL is http://host:port/path or unix:/socket/path:/path.  A HEADER is
"Name: value".
"""

import http.client
import json
import os
import socket
import sys
import threading
import time


class UnixConn(http.client.HTTPConnection):
    def __init__(self, path, timeout=60):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def parse(url):
    if url.startswith("unix:"):
        rest = url[5:]
        sock, _, path = rest.partition(":")
        return (lambda: UnixConn(sock)), path
    u = url[len("http://"):]
    hostport, _, path = u.partition("/")
    host, _, port = hostport.rpartition(":")
    return (lambda: http.client.HTTPConnection(host, int(port), timeout=60)), "/" + path


def headers_of(args):
    h = {"Content-Type": "application/json"}
    for a in args:
        k, _, v = a.partition(":")
        h[k.strip()] = v.strip()
    return h


def stream(url, bodyfile, out, hdrs):
    mk, path = parse(url)
    body = open(bodyfile, "rb").read()
    c = mk()
    t0 = time.monotonic()
    c.request("POST", path, body=body, headers=headers_of(hdrs))
    r = c.getresponse()
    first = None
    data = b""
    while True:
        try:
            chunk = r.read1(65536)
        except http.client.IncompleteRead as e:
            data += e.partial
            break
        if not chunk:
            break
        if first is None:
            first = time.monotonic()
        data += chunk
    t1 = time.monotonic()
    open(out, "wb").write(data)
    print("%d %d %d" % (r.status, int(((first or t1) - t0) * 1000), int((t1 - t0) * 1000)))


def disconnect(url, bodyfile, nbytes, hdrs):
    mk, path = parse(url)
    body = open(bodyfile, "rb").read()
    c = mk()
    c.request("POST", path, body=body, headers=headers_of(hdrs))
    r = c.getresponse()
    got = b""
    while len(got) < nbytes:
        chunk = r.read1(nbytes - len(got))
        if not chunk:
            break
        got += chunk
    c.sock.shutdown(socket.SHUT_RDWR)
    c.close()
    print("%d %d" % (r.status, len(got)))


def concurrent(n, url, bodyfile, outdir, hdrs):
    mk, path = parse(url)
    body = open(bodyfile, "rb").read()
    h = headers_of(hdrs)
    barrier = threading.Barrier(n)

    def one(i):
        c = mk()
        c.connect()
        barrier.wait()
        try:
            c.request("POST", path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            st = r.status
        except Exception as e:  # noqa: BLE001 (record any failure)
            st, data = 0, str(e).encode()
        open(os.path.join(outdir, "%d.status" % i), "w").write("%d\n" % st)
        open(os.path.join(outdir, "%d.body" % i), "wb").write(data)

    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def pct(v, p):
    v = sorted(v)
    if not v:
        return 0.0
    k = min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))
    return v[k]


def bench(n, clients, url, bodyfile, hdrs):
    mk, path = parse(url)
    body = open(bodyfile, "rb").read()
    h = headers_of(hdrs)
    lat, ttfb, errors = [], [], [0]
    lock = threading.Lock()
    per = [n // clients + (1 if i < n % clients else 0) for i in range(clients)]

    def worker(k):
        c = mk()
        mine_l, mine_t = [], []
        for _ in range(per[k]):
            t0 = time.monotonic()
            try:
                c.request("POST", path, body=body, headers=h)
                r = c.getresponse()
                first = r.read1(65536)
                t1 = time.monotonic()
                r.read()
                t2 = time.monotonic()
                if r.status != 200 or not first:
                    raise RuntimeError("status %d" % r.status)
                mine_t.append((t1 - t0) * 1000)
                mine_l.append((t2 - t0) * 1000)
            except Exception:  # noqa: BLE001
                with lock:
                    errors[0] += 1
                c.close()
                c = mk()
        with lock:
            lat.extend(mine_l)
            ttfb.extend(mine_t)

    t0 = time.monotonic()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    secs = time.monotonic() - t0
    print(json.dumps({"n": n, "clients": clients, "secs": round(secs, 3),
                      "rps": round(len(lat) / secs, 1),
                      "p50_ms": round(pct(lat, 50), 3), "p99_ms": round(pct(lat, 99), 3),
                      "ttfb_p50_ms": round(pct(ttfb, 50), 3),
                      "ttfb_p99_ms": round(pct(ttfb, 99), 3),
                      "errors": errors[0]}))


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmd = a[0]
    if cmd == "stream":
        stream(a[1], a[2], a[3], a[4:])
    elif cmd == "disconnect":
        disconnect(a[1], a[2], int(a[3]), a[4:])
    elif cmd == "concurrent":
        concurrent(int(a[1]), a[2], a[3], a[4], a[5:])
    elif cmd == "bench":
        bench(int(a[1]), int(a[2]), a[3], a[4], a[5:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
