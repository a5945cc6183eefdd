"""The runner's side of the testee protocol, in Python, for the adapters' own
tests (harness/testees/*/test_*.py): framing, a child process speaking the
protocol, a check that a value is canonical JSON (docs/value-json.md), and
the comparison with a testee's declared fidelity relaxed
(docs/testee-protocol.md, "Fidelity"). Standard library only.
"""

import json
import math
import os
import struct
import subprocess
import time

class ProtocolError(Exception):
    """The testee broke the protocol: what the runner charges as testee:protocol."""


# --------------------------------------------------------------------------
# The wire: u32 length, JSON document, frames.


def encode_message(doc, frames=()):
    if frames:
        doc = dict(doc, frame_lengths=[len(f) for f in frames])
    body = json.dumps(doc).encode()
    return struct.pack("<I", len(body)) + body + b"".join(frames)


def _read_exact(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise ProtocolError(f"output closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_message(stream):
    (n,) = struct.unpack("<I", _read_exact(stream, 4))
    if n > 64 << 20:
        raise ProtocolError(f"document of {n} bytes")
    try:
        doc = json.loads(_read_exact(stream, n))
    except ValueError as e:
        raise ProtocolError(f"document is not JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("ok"), bool):
        raise ProtocolError(f"document is not an object with a boolean ok: {doc!r}")
    frames = [_read_exact(stream, length) for length in doc.get("frame_lengths", [])]
    if not doc["ok"]:
        err = doc.get("error")
        if not isinstance(err, dict) or not isinstance(err.get("kind"), str) or not isinstance(err.get("message"), str):
            raise ProtocolError(f"error response without kind and message: {doc!r}")
    return doc, frames


class Child:
    def __init__(self, argv, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd)

    def request(self, doc, frames=()):
        self.proc.stdin.write(encode_message(doc, frames))
        self.proc.stdin.flush()
        return read_message(self.proc.stdout)

    def loads(self, data, buffers=(), writeable=()):
        doc, _ = self.request({"op": "loads", "max_protocol": 5, "writeable": list(writeable)}, [data, *buffers])
        if doc["ok"]:
            if "value" not in doc:
                raise ProtocolError("loads answered ok without a value")
            check_canonical(doc["value"])
        return doc

    def close(self):
        if self.proc.poll() is None:
            try:
                self.request({"op": "shutdown"})
                self.proc.wait(timeout=1)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            s.close()


# --------------------------------------------------------------------------
# The canonical JSON form: a structural check (what the runner refuses) and
# a comparison with exactly the declared distinctions relaxed.

TAGS = {"int", "float", "str", "str-utf8sp", "bytes", "bytearray", "list", "tuple", "set", "frozenset", "dict",
        "global", "object", "persid", "buffer"}
EXTRA = {"float": {"bits"}, "buffer": {"readonly"}}
NO_ID = {"int", "float"}


def _is_hex(s):
    return isinstance(s, str) and len(s) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in s)


def check_canonical(root):
    """Raises ProtocolError when `root` is not a value in the canonical form."""
    defined = set()
    stack = [root]
    while stack:
        v = stack.pop()
        if v is None or isinstance(v, (bool, str)):
            continue
        if isinstance(v, int):
            if not -(2 ** 64) < v < 2 ** 64:
                raise ProtocolError(f"bare integer out of range: {v}")
            continue
        if isinstance(v, (float, list)):
            raise ProtocolError(f"bare JSON {type(v).__name__} is not a value: {v!r}")
        if not isinstance(v, dict):
            raise ProtocolError(f"not a value: {v!r}")
        if "ref" in v:
            if len(v) != 1 or v["ref"] not in defined:
                raise ProtocolError(f"bad ref {v!r}")
            continue
        tags = [k for k in v if k in TAGS]
        if len(tags) != 1:
            raise ProtocolError(f"tagged object needs exactly one tag: {v!r}")
        tag = tags[0]
        allowed = {tag} | EXTRA.get(tag, set()) | (set() if tag in NO_ID else {"id"})
        if set(v) - allowed:
            raise ProtocolError(f"unknown members {sorted(set(v) - allowed)} in {tag}")
        if "id" in v:
            if not isinstance(v["id"], int) or v["id"] <= 0 or v["id"] in defined:
                raise ProtocolError(f"bad id in {v!r}")
            defined.add(v["id"])
        body = v[tag]
        if tag == "int":
            if not (isinstance(body, str) and body.lstrip("+-").isdigit()):
                raise ProtocolError(f"bad int {body!r}")
        elif tag == "float":
            try:
                float(body)
            except (TypeError, ValueError):
                raise ProtocolError(f"bad float {body!r}")
        elif tag in ("bytes", "bytearray", "str-utf8sp", "buffer"):
            if not _is_hex(body):
                raise ProtocolError(f"bad hex in {tag}")
            if tag == "buffer" and not isinstance(v.get("readonly"), bool):
                raise ProtocolError("buffer without a boolean readonly")
        elif tag == "str":
            if not isinstance(body, str):
                raise ProtocolError("str that is not a string")
        elif tag in ("list", "tuple", "set", "frozenset"):
            if not isinstance(body, list):
                raise ProtocolError(f"{tag} that is not an array")
            stack.extend(reversed(body))
        elif tag == "dict":
            if not isinstance(body, list) or any(not isinstance(p, list) or len(p) != 2 for p in body):
                raise ProtocolError("dict that is not an array of pairs")
            for p in reversed(body):
                stack.extend(reversed(p))
        elif tag == "global":
            if not (isinstance(body, list) and len(body) == 2 and all(isinstance(s, str) for s in body)):
                raise ProtocolError("global that is not two strings")
        elif tag == "object":
            if not isinstance(body, dict) or "callable" not in body or "args" not in body:
                raise ProtocolError("object without callable and args")
            if not (isinstance(body["args"], dict) and "tuple" in body["args"]):
                raise ProtocolError("object args that are not a tuple")
            parts = [body["callable"], body["args"]]
            if "state" in body:
                parts.append(body["state"])
            if "state_setter" in body:
                parts.append(body["state_setter"])
            parts.extend(body.get("listitems", []))
            for p in body.get("dictitems", []):
                parts.extend(p)
            stack.extend(reversed(parts))
        elif tag == "persid":
            stack.append(body)


def normalize(root, lost):
    """A comparable Python form of a canonical value, with the distinctions in
    `lost` relaxed. Sharing is not compared here (see the sharing tests);
    a reference back to an enclosing node becomes ("cycle",)."""
    ids = {}

    def walk(v, path):
        if isinstance(v, bool) or v is None:
            return ("atom", v)
        if isinstance(v, int):
            return number(v)
        if isinstance(v, str):
            return ("str", v)
        if "ref" in v:
            if v["ref"] in path:
                return ("cycle",)
            return walk(ids[v["ref"]], path)
        if "id" in v:
            ids[v["id"]] = v
            path = path | {v["id"]}
        tag = next(k for k in v if k in TAGS)
        body = v[tag]
        if tag == "int":
            return number(int(body))
        if tag == "float":
            f = float(body)
            if math.isnan(f):
                return ("nan", None if "nan-bits" in lost else v.get("bits"))
            return ("float", f) if "int-float" not in lost else ("num", f)
        if tag == "str":
            return ("str", body)
        if tag == "str-utf8sp":
            return ("str", bytes.fromhex(body).decode("utf-8", "surrogatepass"))
        if tag in ("bytes", "bytearray"):
            kind = "bytes" if "bytes-bytearray" in lost else tag
            return (kind, body.lower())
        if tag in ("list", "tuple"):
            kind = "list" if "tuple" in lost else tag
            return (kind, tuple(walk(x, path) for x in body))
        if tag in ("set", "frozenset"):
            kind = "set" if "set-frozenset" in lost else tag
            return (kind, tuple(sorted((walk(x, path) for x in body), key=repr)))
        if tag == "dict":
            return ("dict", tuple((walk(k, path), walk(x, path)) for k, x in body))
        if tag == "global":
            return ("global", tuple(body))
        if tag == "buffer":
            return ("buffer", body.lower(), v["readonly"])
        if tag == "persid":
            return ("persid", walk(body, path))
        if tag == "object":
            parts = [("callable", walk(body["callable"], path)), ("args", walk(body["args"], path))]
            for key in ("state", "state_setter"):
                if key in body:
                    parts.append((key, walk(body[key], path)))
            parts.append(("listitems", tuple(walk(x, path) for x in body.get("listitems", []))))
            parts.append(("dictitems", tuple((walk(k, path), walk(x, path)) for k, x in body.get("dictitems", []))))
            return ("object", tuple(parts))
        raise AssertionError(f"unknown tag {tag}")

    def as_double(i):
        try:
            return float(i)
        except OverflowError:
            return math.inf if i > 0 else -math.inf

    def number(i):
        if "int-float" in lost:
            return ("num", as_double(i))
        if "big-int" in lost and abs(i) > 2 ** 53:
            return ("int~", as_double(i))
        return ("int", i)

    return walk(root, frozenset())


def same(a, b, lost):
    return normalize(a, lost) == normalize(b, lost)


def check_try_loads_answers(testee, streams, results):
    """A try-loads answer agrees with loads, stream by stream: {"ok": true}
    where loads answered a value, and where it refused, the very error
    document loads answers for that stream alone."""
    assert len(results) == len(streams), results
    for data, result in zip(streams, results):
        if result["ok"]:
            assert result == {"ok": True}
        else:
            assert result == {"ok": False, "error": testee.loads(data)["error"]}, data
            assert result["error"]["kind"] and isinstance(result["error"]["message"], str)


def golden_sweep(testee, golden, must_pass, label, budget_s=20):
    """Loads every in-band variant of the golden corpus (directory `golden`)
    at the protocols `testee` reads (testee.caps["read_protocols"]). Each
    answer is ok with a value or an error; the cases named in `must_pass` come
    back equal to CPython's value, under testee.lost, at every such protocol.
    Prints one summary line that starts with `label`; the sweep must take less
    than `budget_s` seconds, and the testee must still be running after it."""
    manifest = json.load(open(os.path.join(golden, "MANIFEST.json")))
    passed, mismatched, errors = set(), [], {}
    deadline = time.time() + budget_s
    for case in manifest["cases"]:
        for var in case["variants"]:
            if var["out_of_band"] or var["protocol"] not in testee.caps["read_protocols"]:
                continue
            data = open(os.path.join(golden, var["pickle"]), "rb").read()
            expected = json.load(open(os.path.join(golden, var["json"])))
            doc = testee.loads(data)
            if not doc["ok"]:
                errors.setdefault(doc["error"]["kind"], []).append(var["pickle"])
            elif same(doc["value"], expected, testee.lost):
                passed.add((case["name"], var["protocol"]))
            else:
                mismatched.append(var["pickle"])
        assert time.time() < deadline, "the golden sweep is too slow"
    print(f"\n{label}: {len(passed)} golden variants equal, {len(mismatched)} differ, "
          f"errors {{{', '.join(f'{k}: {len(v)}' for k, v in sorted(errors.items()))}}}")
    for name in sorted(must_pass):
        for proto in testee.caps["read_protocols"]:
            assert (name, proto) in passed, f"{name} at protocol {proto}"
    assert testee.proc.poll() is None


def expect_error(testee, data, kinds):
    """`testee` answers the stream `data` with an error of one of `kinds`, and
    keeps running."""
    doc = testee.loads(data)
    assert not doc["ok"], doc
    assert doc["error"]["kind"] in kinds, doc["error"]
    assert testee.proc.poll() is None


def malformed_sweep(testee, malformed):
    """Every stream of the malformed corpus (directory `malformed`) gets a
    well-formed answer (a crash or a bad message raises), and the testee keeps
    running."""
    names = sorted(n for n in os.listdir(malformed) if n.endswith(".pickle"))
    assert names
    for name in names:
        testee.loads(open(os.path.join(malformed, name), "rb").read())
    assert testee.proc.poll() is None


def value_json_of(obj):
    """The canonical JSON of a small Python value (the cases below hold no
    sharing, so no ids)."""
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        return obj if -(2 ** 63) <= obj < 2 ** 63 else {"int": str(obj)}
    if isinstance(obj, float):
        return {"float": repr(obj)}
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
            return obj
        except UnicodeEncodeError:
            return {"str-utf8sp": obj.encode("utf-8", "surrogatepass").hex()}
    if isinstance(obj, bytes):
        return {"bytes": obj.hex()}
    if isinstance(obj, bytearray):
        return {"bytearray": obj.hex()}
    if isinstance(obj, list):
        return {"list": [value_json_of(x) for x in obj]}
    if isinstance(obj, tuple):
        return {"tuple": [value_json_of(x) for x in obj]}
    if isinstance(obj, frozenset):
        return {"frozenset": [value_json_of(x) for x in obj]}
    if isinstance(obj, set):
        return {"set": [value_json_of(x) for x in obj]}
    if isinstance(obj, dict):
        return {"dict": [[value_json_of(k), value_json_of(v)] for k, v in obj.items()]}
    raise TypeError(obj)
