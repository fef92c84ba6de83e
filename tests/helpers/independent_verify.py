#!/usr/bin/python3
"""Checks conformance/v1 with code this project did not write.

    /usr/bin/python3 independent_verify.py deps
    /usr/bin/python3 independent_verify.py sealed    VECTOR-DIR
    /usr/bin/python3 independent_verify.py accepted  VECTOR-DIR
    /usr/bin/python3 independent_verify.py canonical VECTOR-DIR
    /usr/bin/python3 independent_verify.py digest    VECTOR-DIR
    /usr/bin/python3 independent_verify.py negative  VECTOR-DIR NAME ...

CBOR is Debian's python3-cbor2 and Ed25519 is python3-nacl (libsodium's
verifier, but none of joulehook's CBOR, COSE or JSON code).  VECTOR-DIR
is conformance/v1.  Prints one line per vector (ok NAME, or FAIL NAME:
why) and exits 1 if any failed, 2 if it could not run.  negative checks
only the named negative vectors, those whose defect this helper knows.
"""

import hashlib
import io
import json
import math
import os
import struct
import sys

PROG = "independent_verify"


def need():
    """Imports cbor2 and nacl or stops with what to install."""
    missing = []
    try:
        import cbor2  # noqa: F401
    except ImportError:
        missing.append("cbor2 (Debian package python3-cbor2)")
    try:
        import nacl.signing  # noqa: F401
    except ImportError:
        missing.append("nacl (Debian package python3-nacl)")
    if missing:
        sys.stderr.write("%s: %s lacks %s; install them (scripts/deps "
                         "does) and run this with /usr/bin/python3\n"
                         % (PROG, sys.executable, " and ".join(missing)))
        sys.exit(2)


need()
import cbor2                    # noqa: E402
import cbor2.encoder            # noqa: E402  (the pure-Python encoder)
import nacl.exceptions          # noqa: E402
import nacl.signing             # noqa: E402


class Report:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def ok(self, name, note=""):
        self.passed += 1
        print("ok %s%s" % (name, " (" + note + ")" if note else ""))

    def fail(self, name, why):
        self.failed += 1
        print("FAIL %s: %s" % (name, why))

    def done(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        if self.passed + self.failed == 0:
            print("FAIL: no vectors found")
            return 1
        return 1 if self.failed else 0


def unhex(path):
    with open(path) as f:
        return bytes.fromhex(f.read().strip())


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n")


def names(d, ext):
    return sorted(f[:-len(ext)] for f in os.listdir(d) if f.endswith(ext))


# ---------------------------------------------------------------------------
# did:key (W3C did:key, multicodec ed25519-pub 0xed01, base58btc).

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def didkey_decode(did):
    if not did.startswith("did:key:z"):
        raise ValueError("not a base58btc did:key: %r" % did)
    s = did[len("did:key:z"):]
    n = 0
    for c in s:
        n = n * 58 + B58.index(c)
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    b = b"\0" * (len(s) - len(s.lstrip("1"))) + b
    if len(b) != 34 or b[:2] != b"\xed\x01":
        raise ValueError("not an Ed25519 did:key: %r" % did)
    return b[2:]


def trusted(v1):
    keys = {}
    for role in ("steward", "issuer"):
        did = read_text(os.path.join(v1, "keys", role + ".key.pub")).strip()
        keys[role] = didkey_decode(did)
    return keys


# ---------------------------------------------------------------------------
# Envelopes.

ISSUER_KINDS = ("grant/1", "revocation/1")


def no_float_bool_null(v, path="core"):
    if isinstance(v, (bool, float)) or v is None:
        raise ValueError("%s is %r: cores hold no floats, booleans or nulls"
                         % (path, v))
    if isinstance(v, list):
        for i, x in enumerate(v):
            no_float_bool_null(x, "%s[%d]" % (path, i))
    if isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, str):
                raise ValueError("%s has a non-text key %r" % (path, k))
            no_float_bool_null(x, path + "." + k)


def check_envelope(env, keys):
    """Verifies one envelope with cbor2 and nacl; returns (kind, core,
    payload) or raises ValueError."""
    top = cbor2.loads(env)
    if not isinstance(top, cbor2.CBORTag) or top.tag != 18:
        raise ValueError("not tag 18 (COSE_Sign1)")
    arr = top.value
    if not isinstance(arr, list) or len(arr) != 4:
        raise ValueError("COSE_Sign1 is not an array of 4")
    prot, unprot, payload, sig = arr
    if not isinstance(prot, bytes) or not isinstance(payload, bytes):
        raise ValueError("protected or payload is not a byte string")
    if unprot != {}:
        raise ValueError("unprotected header is not empty: %r" % (unprot,))
    if not isinstance(sig, bytes) or len(sig) != 64:
        raise ValueError("signature is not 64 bytes")
    # The whole envelope is in canonical form, and so are its parts.
    if cbor2.dumps(top, canonical=True) != env:
        raise ValueError("envelope does not re-encode to the same bytes")
    hdr = cbor2.loads(prot)
    if cbor2.dumps(hdr, canonical=True) != prot:
        raise ValueError("protected header is not canonical")
    if set(hdr) != {1, 4} or hdr[1] not in (-8, -19):
        raise ValueError("protected header is %r, not {1: -8|-19, 4: kid}"
                         % (hdr,))
    kid = hdr[4]
    core = cbor2.loads(payload)
    if cbor2.dumps(core, canonical=True) != payload:
        raise ValueError("payload does not re-encode byte for byte with "
                         "cbor2's canonical encoder")
    if not isinstance(core, dict):
        raise ValueError("core is not a map")
    no_float_bool_null(core)
    kind = core.get("kind")
    role = "issuer" if kind in ISSUER_KINDS else "steward"
    if kid != keys[role]:
        raise ValueError("kid %s is not the trusted %s key"
                         % (kid.hex(), role))
    # RFC 9052 section 4.4, built by cbor2.
    tbs = cbor2.dumps(["Signature1", prot, b"", payload])
    try:
        nacl.signing.VerifyKey(kid).verify(tbs, sig)
    except nacl.exceptions.BadSignatureError:
        raise ValueError("nacl: bad signature")
    if didkey_decode(core.get("steward", "")) != kid:
        raise ValueError("core steward is not the kid")
    if kind in ISSUER_KINDS and core.get("issuer") != core.get("steward"):
        raise ValueError("issuer is not the steward")
    if core.get("profile") != "joulehook/1":
        raise ValueError("profile is not joulehook/1")
    if not isinstance(core.get("nonce"), bytes) or len(core["nonce"]) != 8:
        raise ValueError("nonce is not 8 bytes")
    # The caller's uid (hardened mode, SO_PEERCRED): a uid_t, 32 bits.
    if kind == "decision/1" and "uid" in core:
        uid = core["uid"]
        if type(uid) is not int or not 0 <= uid <= 2**32 - 1:
            raise ValueError("decision uid %r is not an integer in "
                             "0..2^32-1" % (uid,))
    return kind, core, payload


def render(v):
    """jh-verify's JSON form of a core, from cbor2's decoded tree: keys
    in the (canonical) order they were decoded, bytes as hex."""
    if isinstance(v, bytes):
        return json.dumps(v.hex())
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" +
                              render(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(render(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def cmd_sealed(v1):
    r = Report()
    keys = trusted(v1)
    d = os.path.join(v1, "sealed")
    payloads = {}
    for name in sorted(os.listdir(d)):
        vd = os.path.join(d, name)
        if not os.path.isdir(vd):
            continue
        try:
            env = unhex(os.path.join(vd, "envelope.hex"))
            params = dict(line.split("=", 1) for line in
                          read_text(os.path.join(vd, "params")).split("\n"))
            kind, core, payload = check_envelope(env, keys)
            payloads[name] = payload
            if kind != params["kind"]:
                raise ValueError("kind %r, params say %r"
                                 % (kind, params["kind"]))
            if core["ts"] != int(params["JH_NOW"]):
                raise ValueError("ts is not JH_NOW")
            if core["nonce"] != bytes.fromhex(params["JH_NONCE"]):
                raise ValueError("nonce is not JH_NONCE")
            want = '{"ok":true,"kind":%s,"core":%s}' % (json.dumps(kind),
                                                        render(core))
            if read_text(os.path.join(vd, "verify.json")) != want:
                raise ValueError("verify.json is not the decoded core")
            check_input(vd, kind, core)
            r.ok("sealed/" + name)
        except Exception as e:  # noqa: BLE001  -- report, go on
            r.fail("sealed/" + name, "%s: %s" % (type(e).__name__, e))
    # A grant's id is the SHA-256 of its payload; the other vectors name
    # the sealed grant by it.
    if "grant" in payloads:
        gid = "sha256:" + hashlib.sha256(payloads["grant"]).hexdigest()
        for name, p in sorted(payloads.items()):
            g = cbor2.loads(p).get("grant")
            if g is not None and g != gid:
                r.fail("sealed/%s" % name, "grant %s is not the sealed "
                       "grant's id %s" % (g, gid))
    return r.done()


def check_input(vd, kind, core):
    """The core against the input it was sealed from: recomputes
    input_digest and updated_digest with Python's json and cbor2."""
    with open(os.path.join(vd, "input.json"), "rb") as f:
        inp = json.loads(f.read().decode("utf-8"))
    if kind != "decision/1":
        return
    if "input" in inp:
        want = "sha256:" + hashlib.sha256(json_to_cbor(
            json.dumps(inp["input"]).encode())).hexdigest()
        if core.get("input_digest") != want:
            raise ValueError("input_digest %s, recomputed %s"
                             % (core.get("input_digest"), want))
    if isinstance(inp.get("updated_input"), dict):
        if json.loads(core["updated_input"]) != inp["updated_input"]:
            raise ValueError("updated_input text is not the input's")
        want = "sha256:" + hashlib.sha256(json_to_cbor(
            core["updated_input"].encode())).hexdigest()
        if core.get("updated_digest") != want:
            raise ValueError("updated_digest %s, recomputed %s"
                             % (core.get("updated_digest"), want))


def cmd_accepted(v1):
    r = Report()
    keys = trusted(v1)
    d = os.path.join(v1, "accepted")
    for name in names(d, ".hex"):
        try:
            kind, core, _ = check_envelope(unhex(os.path.join(
                d, name + ".hex")), keys)
            want = '{"ok":true,"kind":%s,"core":%s}' % (json.dumps(kind),
                                                        render(core))
            if read_text(os.path.join(d, name + ".verify")) != want:
                raise ValueError(".verify is not the decoded core")
            r.ok("accepted/" + name)
        except Exception as e:  # noqa: BLE001
            r.fail("accepted/" + name, "%s: %s" % (type(e).__name__, e))
    return r.done()


def cmd_negative(v1, wanted):
    """The named negative vectors are refused here too."""
    r = Report()
    keys = trusted(v1)
    d = os.path.join(v1, "negative")
    for name in wanted:
        try:
            env = unhex(os.path.join(d, name + ".hex"))
        except OSError as e:
            r.fail("negative/" + name, str(e))
            continue
        try:
            kind, _, _ = check_envelope(env, keys)
        except Exception as e:  # noqa: BLE001  -- the refusal expected
            r.ok("negative/" + name, "refused: %s" % e)
            continue
        r.fail("negative/" + name, "accepted as a %s" % kind)
    return r.done()


# ---------------------------------------------------------------------------
# Canonical CBOR and input_digest.

def pure_dumps(v):
    """cbor2's pure-Python canonical encoder (see half_exact_c_mismatch)."""
    f = io.BytesIO()
    cbor2.encoder.CBOREncoder(f, canonical=True).encode(v)
    return f.getvalue()


def floats(v):
    if isinstance(v, float):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from floats(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from floats(x)


def half_exact_c_mismatch(f):
    """cbor2 5.4.6's C encoder (_cbor2, what cbor2.dumps uses on Debian 12)
    writes a float whose magnitude is in [32768, 65504] as a single even
    when it is exact in half precision (65504.0 -> fa477fe000, not the
    shortest f97bff); its pure-Python encoder gets these right.  So for
    such floats the vectors follow RFC 8949 4.2.1 (shortest form) and the
    check below uses the pure-Python encoder, and asserts the C encoder's
    choice is the same value one size up."""
    if not (32768.0 <= abs(f) <= 65504.0):
        return False
    return struct.unpack(">e", struct.pack(">e", f))[0] == f


class Refused(Exception):
    pass


def json_to_cbor(text):
    """The input_digest mapping, written from its description (DESIGN 3.2,
    SECURITY U6) with Python's json: integers (no fraction, no exponent)
    within int64 are CBOR integers and larger ones are refused; any other
    number is a float in its shortest exact form; duplicate keys are
    refused; NUL is kept in strings (and refused in keys, as jansson
    does); no Unicode normalisation."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Refused("invalid UTF-8: %s" % e)

    def pairs(ps):
        seen = {}
        for k, v in ps:
            if k in seen:
                raise Refused("duplicate object key %r" % k)
            if "\0" in k:
                raise Refused("NUL in an object key")
            seen[k] = v
        return seen

    def pint(s):
        n = int(s)
        if not -2**63 <= n < 2**63:
            raise Refused("integer %s beyond int64" % s)
        return n

    def pfloat(s):
        f = float(s)
        if math.isinf(f):
            raise Refused("number %s overflows a double" % s)
        return f

    def pconst(s):
        raise Refused("%s is not JSON" % s)

    try:
        v = json.loads(text, object_pairs_hook=pairs, parse_int=pint,
                       parse_float=pfloat, parse_constant=pconst)
    except json.JSONDecodeError as e:
        raise Refused(str(e))
    try:
        return pure_dumps(v)
    except (UnicodeEncodeError, cbor2.CBOREncodeError) as e:
        raise Refused("not encodable (%s)" % e)


def cmd_canonical(v1):
    """Each expected CBOR decodes with cbor2 and re-encodes canonically
    to the same bytes; its digest is its SHA-256."""
    r = Report()
    d = os.path.join(v1, "canonical")
    for name in names(d, ".json"):
        base = os.path.join(d, name)
        if os.path.exists(base + ".error"):
            continue
        try:
            b = unhex(base + ".cbor")
            dg = read_text(base + ".digest")
            if dg != "sha256:" + hashlib.sha256(b).hexdigest():
                raise ValueError(".digest is not the SHA-256 of .cbor")
            v = cbor2.loads(b)
            c = cbor2.dumps(v, canonical=True)
            note = ""
            if c != b:
                odd = [f for f in floats(v) if half_exact_c_mismatch(f)]
                if not odd:
                    raise ValueError("cbor2 re-encodes %s as %s"
                                     % (b.hex(), c.hex()))
                # What is true: the pure-Python encoder writes the vector's
                # bytes, and the C encoder's longer form is the same value.
                if pure_dumps(v) != b:
                    raise ValueError("cbor2 (pure Python) re-encodes %s "
                                     "as %s" % (b.hex(), pure_dumps(v).hex()))
                if len(c) <= len(b) or not same(cbor2.loads(c), v):
                    raise ValueError("cbor2 (C) re-encodes %s as %s"
                                     % (b.hex(), c.hex()))
                note = ("cbor2's C encoder writes %s for the half-exact %r; "
                        "its pure-Python encoder agrees with the vector"
                        % (c.hex(), odd[0]))
            r.ok("canonical/" + name, note)
        except Exception as e:  # noqa: BLE001
            r.fail("canonical/" + name, "%s: %s" % (type(e).__name__, e))
    return r.done()


def same(a, b):
    """Equal values, telling -0.0 from 0.0 and 1.0 from 1."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return (list(a) == list(b) and
                all(same(a[k], b[k]) for k in a))
    return a == b


def cmd_digest(v1):
    """Recomputes every canonical vector from its JSON with Python's json
    and cbor2: what a third party recomputing input_digest would do."""
    r = Report()
    d = os.path.join(v1, "canonical")
    for name in names(d, ".json"):
        base = os.path.join(d, name)
        with open(base + ".json", "rb") as f:
            text = f.read()
        if text.endswith(b"\n"):
            text = text[:-1]
        try:
            got = json_to_cbor(text)
        except Refused as e:
            if os.path.exists(base + ".error"):
                r.ok("canonical/" + name, "refused: %s" % e)
            else:
                r.fail("canonical/" + name, "refused here (%s), the vector "
                       "expects CBOR" % e)
            continue
        if os.path.exists(base + ".error"):
            r.fail("canonical/" + name, "the vector expects a refusal, got "
                   + got.hex())
            continue
        want = unhex(base + ".cbor")
        dg = "sha256:" + hashlib.sha256(got).hexdigest()
        if got != want:
            r.fail("canonical/" + name, "CBOR %s, vector %s"
                   % (got.hex(), want.hex()))
        elif dg != read_text(base + ".digest"):
            r.fail("canonical/" + name, "digest %s differs" % dg)
        else:
            r.ok("canonical/" + name)
    return r.done()


def main(argv):
    if argv == ["deps"]:
        print("%s: cbor2 %s and nacl %s under %s"
              % (PROG, getattr(cbor2, "__version__", "?"),
                 getattr(sys.modules["nacl"], "__version__", "?"),
                 sys.executable))
        return 0
    cmds = {"sealed": cmd_sealed, "accepted": cmd_accepted,
            "canonical": cmd_canonical, "digest": cmd_digest}
    if len(argv) >= 3 and argv[0] == "negative":
        return cmd_negative(argv[1], argv[2:])
    if len(argv) != 2 or argv[0] not in cmds:
        sys.stderr.write("usage: %s deps | {%s} conformance/v1 | negative "
                         "conformance/v1 NAME ...\n"
                         % (PROG, "|".join(sorted(cmds))))
        return 2
    return cmds[argv[0]](argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
