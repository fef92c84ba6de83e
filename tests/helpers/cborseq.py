#!/usr/bin/python3
"""Test helper: take a CBOR sequence (a joulehook log) apart and back.

  cborseq.py split FILE DIR       writes DIR/0, DIR/1, ... (raw item bytes)
  cborseq.py count FILE           number of complete items
  cborseq.py receipt ENTRYFILE    the receipt bytes embedded in a chain/1 entry
  cborseq.py droplast FILE OUT    FILE less its last item, to OUT (a log cut
                                  short by one entry)
  cborseq.py missing FILE LOG     the index of each complete item of FILE
                                  whose bytes are nowhere in LOG, one a line
"""
import io
import sys

import cbor2


def items(data):
    f = io.BytesIO(data)
    out = []
    while f.tell() < len(data):
        start = f.tell()
        try:
            cbor2.load(f)
        except Exception:
            break
        out.append(data[start:f.tell()])
    return out


def main():
    cmd = sys.argv[1]
    data = open(sys.argv[2], "rb").read()
    if cmd == "split":
        for i, it in enumerate(items(data)):
            with open("%s/%d" % (sys.argv[3], i), "wb") as f:
                f.write(it)
    elif cmd == "count":
        print(len(items(data)))
    elif cmd == "droplast":
        with open(sys.argv[3], "wb") as f:
            f.write(b"".join(items(data)[:-1]))
    elif cmd == "missing":
        log = open(sys.argv[3], "rb").read()
        for i, it in enumerate(items(data)):
            if it not in log:
                print(i)
    elif cmd == "receipt":
        env = cbor2.loads(data)
        core = cbor2.loads(env.value[2])
        sys.stdout.buffer.write(core["receipt"])
    else:
        sys.exit("unknown command")


main()
