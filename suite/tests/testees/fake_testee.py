#!/usr/bin/python3
"""A testee for the tests of the runner's side of the testee protocol.

Well-behaved by default: it pickles and unpickles with the stdlib pickle
module and speaks docs/testee-protocol.md. Options make it misbehave in
one way each, so that every failure path of the runner can be seen:

  --crash-at N         exit (status 3) on the Nth request, hello being the 1st
  --signal             crash with SIGSEGV instead of exiting
  --hang-at N          read the Nth request and never answer it
  --exit-unread N      exit (status 3) at the Nth request, having read only its length
  --garbage-length     answer dumps with a length that is not the document's
  --not-object         answer dumps with a JSON array
  --no-ok              answer dumps without "ok"
  --short-frames       announce a longer frame than is sent, then exit 0
  --huge-length        answer dumps with a length of almost 4 GiB, then wait
  --junk-stdout        print a line to standard output before the hello
  --flood-stderr MB    write MB megabytes to standard error for each request
  --no-read            answer hello, then never read standard input again
  --unavailable        answer hello with kind "unavailable"
  --error KIND         answer every dumps and loads with an error of KIND
  --unsupported TAG    answer dumps of a value holding a TAG (canonical JSON tag,
                       e.g. dict) with kind "unsupported"
  --lenient            answer loads of a stream pickle refuses with None (and try-loads
                       of one with "ok": true)
  --wrong-count        answer try-loads with one result fewer than it was sent streams
  --crash-on-try-loads exit (status 3) on every try-loads request
  --hang-on-try-loads  read every try-loads request and never answer it
  --bad-value          answer loads with a value that is not canonical JSON
  --wrong-value        answer loads with a value one off (ints + 1)
  --wrong-float        answer loads with floats one off (a second defect beside --wrong-value)
  --optimize           answer dumps with pickletools.optimize's bytes (not CPython's)
  --bad-bench          answer bench with one iteration too many
  --caps JSON          merge JSON into the capabilities of the hello
  --spawn-child        at hello, start a child `sleep 30` and name its pid on stderr
  --no-exit            answer shutdown but keep running
  --delay S            wait S seconds before answering each request but hello
"""

import argparse
import json
import math
import os
import pickle
import pickletools
import signal
import struct
import subprocess
import sys
import time

OUT = sys.stdout.buffer
sys.stdout = sys.stderr  # a stray print must not corrupt the stream
IN = sys.stdin.buffer


class Unsupported(Exception):
    pass


# ---- the canonical JSON form (docs/value-json.md), for simple values --------


REFUSED_TAGS = set()


def from_canonical(j, ids):
    if j is None or isinstance(j, (bool, int)):
        return j
    if isinstance(j, str):
        return j
    if isinstance(j, list):
        raise ValueError("a bare array is not a value")
    if "ref" in j:
        return ids[j["ref"]]
    tag = next(k for k in j if k != "id")
    if tag in REFUSED_TAGS:
        raise Unsupported("this testee refuses every " + tag)
    body = j[tag]
    ident = j.get("id")

    def keep(obj):
        if ident is not None:
            ids[ident] = obj
        return obj

    if tag == "int":
        return int(body)
    if tag == "float":
        return float(body)
    if tag == "str":
        return keep(body)
    if tag == "str-utf8sp":
        return keep(bytes.fromhex(body).decode("utf-8", "surrogatepass"))
    if tag == "bytes":
        return keep(bytes.fromhex(body))
    if tag == "bytearray":
        return keep(bytearray.fromhex(body))
    if tag == "list":
        out = keep([])
        out.extend(from_canonical(x, ids) for x in body)
        return out
    if tag == "dict":
        out = keep({})
        for k, v in body:
            out[from_canonical(k, ids)] = from_canonical(v, ids)
        return out
    if tag == "set":
        out = keep(set())
        out.update(from_canonical(x, ids) for x in body)
        return out
    if tag == "tuple":
        return keep(tuple(from_canonical(x, ids) for x in body))
    if tag == "frozenset":
        return keep(frozenset(from_canonical(x, ids) for x in body))
    if tag == "global":
        # The generators invent names too (outside python_safe): a global
        # that does not exist here is a value this testee cannot build.
        try:
            obj = __import__(body[0], fromlist=["_"])
            for part in body[1].split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as e:
            raise Unsupported("this testee has no global " + body[0] + "." + body[1]) from e
        return keep(obj)
    if tag == "buffer":
        data = bytes.fromhex(body) if j["readonly"] else bytearray.fromhex(body)
        return keep(pickle.PickleBuffer(data))
    raise Unsupported("this testee has no " + tag)


ATOMS = (type(None), bool, int, float)


def to_canonical(root):
    counts = {}
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, ATOMS):
            continue
        counts[id(x)] = counts.get(id(x), 0) + 1
        if counts[id(x)] > 1:
            continue
        if isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                stack.extend((k, v))
    ids = {}

    def conv(x):
        if x is None or isinstance(x, bool):
            return x
        if isinstance(x, int):
            return x if -(2**63) <= x < 2**63 else {"int": str(x)}
        if isinstance(x, float):
            return {"float": "nan" if math.isnan(x) else repr(x)}
        if id(x) in ids:
            return {"ref": ids[id(x)]}
        shared = counts.get(id(x), 0) > 1

        def tagged(tag, body, extra=None):
            d = {tag: body}
            if shared:
                d["id"] = ids[id(x)]
            if extra:
                d.update(extra)
            return d

        if shared:
            ids[id(x)] = len(ids) + 1
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return tagged("str-utf8sp", x.encode("utf-8", "surrogatepass").hex())
            return tagged("str", x) if shared else x
        if isinstance(x, bytes):
            return tagged("bytes", x.hex())
        if isinstance(x, bytearray):
            return tagged("bytearray", x.hex())
        if isinstance(x, (memoryview, pickle.PickleBuffer)):
            m = memoryview(x)
            return tagged("buffer", m.tobytes().hex(), {"readonly": m.readonly})
        for kind, tag in ((list, "list"), (tuple, "tuple"), (set, "set"), (frozenset, "frozenset")):
            if type(x) is kind:
                # The id counts as defined before the items (cycles).
                d = tagged(tag, None)
                d[tag] = [conv(i) for i in x]
                return d
        if type(x) is dict:
            d = tagged("dict", None)
            d["dict"] = [[conv(k), conv(v)] for k, v in x.items()]
            return d
        if isinstance(x, type) or callable(x):
            return tagged("global", [x.__module__, x.__qualname__])
        raise Unsupported("cannot describe a " + type(x).__name__)

    return conv(root)


# ---- messages ----------------------------------------------------------------


def read_exact(n):
    data = IN.read(n)
    if data is None or len(data) < n:
        sys.exit(0)  # the runner went away
    return data


def read_message(exit_unread=False):
    (n,) = struct.unpack("<I", read_exact(4))
    if exit_unread:
        os._exit(3)
    doc = json.loads(read_exact(n))
    frames = [read_exact(length) for length in doc.get("frame_lengths", [])]
    return doc, frames


def write_message(doc, frames=(), raw_doc=None, length=None):
    text = raw_doc if raw_doc is not None else json.dumps(doc, separators=(",", ":")).encode()
    OUT.write(struct.pack("<I", len(text) if length is None else length))
    OUT.write(text)
    for f in frames:
        OUT.write(f)
    OUT.flush()


def error(kind, message):
    return {"ok": False, "error": {"kind": kind, "message": message}}


# ---- the operations ------------------------------------------------------------


def do_dumps(req):
    value = from_canonical(req["value"], {})
    buffers = []
    callback = buffers.append if req.get("out_of_band") and req["protocol"] >= 5 else None
    data = pickle.dumps(value, protocol=req["protocol"], buffer_callback=callback)
    raws = [b.raw() for b in buffers]
    frames = [data] + [bytes(r) for r in raws]
    doc = {"ok": True, "frame_lengths": [len(f) for f in frames]}
    if raws:
        doc["writeable"] = [not r.readonly for r in raws]
    return doc, frames


def do_loads(req, frames):
    writeable = req.get("writeable", [])
    buffers = [bytearray(f) if (i < len(writeable) and writeable[i]) else f
               for i, f in enumerate(frames[1:])]
    value = pickle.loads(frames[0], buffers=buffers)
    return {"ok": True, "value": to_canonical(value)}


def bump_ints(j):
    if isinstance(j, bool) or j is None:
        return j
    if isinstance(j, int):
        return j + 1
    if isinstance(j, list):
        return [bump_ints(x) for x in j]
    if isinstance(j, dict):
        return {k: bump_ints(v) for k, v in j.items()}
    return j


def bump_floats(j):
    if isinstance(j, list):
        return [bump_floats(x) for x in j]
    if isinstance(j, dict):
        if set(j) == {"float"}:
            return {"float": repr(float(j["float"]) + 1.0)}
        return {k: bump_floats(v) for k, v in j.items()}
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crash-at", type=int, default=0)
    ap.add_argument("--signal", action="store_true")
    ap.add_argument("--hang-at", type=int, default=0)
    ap.add_argument("--exit-unread", type=int, default=0)
    ap.add_argument("--lenient", action="store_true")
    ap.add_argument("--wrong-count", action="store_true")
    ap.add_argument("--crash-on-try-loads", action="store_true")
    ap.add_argument("--hang-on-try-loads", action="store_true")
    ap.add_argument("--optimize", action="store_true")
    ap.add_argument("--bad-bench", action="store_true")
    ap.add_argument("--garbage-length", action="store_true")
    ap.add_argument("--not-object", action="store_true")
    ap.add_argument("--no-ok", action="store_true")
    ap.add_argument("--short-frames", action="store_true")
    ap.add_argument("--huge-length", action="store_true")
    ap.add_argument("--junk-stdout", action="store_true")
    ap.add_argument("--flood-stderr", type=float, default=0)
    ap.add_argument("--no-read", action="store_true")
    ap.add_argument("--unavailable", action="store_true")
    ap.add_argument("--error", default="")
    ap.add_argument("--unsupported", action="append", default=[])
    ap.add_argument("--bad-value", action="store_true")
    ap.add_argument("--wrong-value", action="store_true")
    ap.add_argument("--wrong-float", action="store_true")
    ap.add_argument("--caps", default="{}")
    ap.add_argument("--spawn-child", action="store_true")
    ap.add_argument("--no-exit", action="store_true")
    ap.add_argument("--delay", type=float, default=0)
    args = ap.parse_args()
    REFUSED_TAGS.update(args.unsupported)

    if args.junk_stdout:
        OUT.write(b"Loading the fake testee...\n")
        OUT.flush()
    count = 0
    while True:
        count += 1
        req, frames = read_message(exit_unread=count == args.exit_unread)
        op = req.get("op")
        print(f"fake testee: request {count}: {op}", file=sys.stderr, flush=True)
        if args.flood_stderr:
            line = b"x" * 1023 + b"\n"
            for _ in range(int(args.flood_stderr * 1024)):
                sys.stderr.buffer.write(line)
            sys.stderr.buffer.write(b"flood done\n")
            sys.stderr.flush()
        if count == args.crash_at:
            print("fake testee: crashing now", file=sys.stderr, flush=True)
            if args.signal:
                os.kill(os.getpid(), signal.SIGSEGV)
            os._exit(3)
        if count == args.hang_at:
            time.sleep(3600)
        if args.delay and op != "hello":
            time.sleep(args.delay)
        if op == "hello":
            if args.unavailable:
                print("ModuleNotFoundError: No module named 'fancy_pickle'", file=sys.stderr, flush=True)
                write_message(error("unavailable", "cannot import fancy_pickle"))
                continue
            caps = {"dumps": True, "loads": True, "write_protocols": [0, 1, 2, 3, 4, 5],
                    "read_protocols": [0, 1, 2, 3, 4, 5], "out_of_band": True,
                    "limit_loader": False, "cpython_bytes": True, "python_values": True,
                    "cannot_express": []}
            caps.update(json.loads(args.caps))
            if args.spawn_child:
                child = subprocess.Popen(["sleep", "30"])
                print(f"fake testee: child pid {child.pid}", file=sys.stderr, flush=True)
            write_message({"ok": True, "protocol": 1, "name": "fake-testee", "version": "1.0",
                           "implementation": "CPython " + sys.version.split()[0] + ", pickle",
                           "capabilities": caps})
            if args.no_read:
                time.sleep(3600)
            continue
        if op == "shutdown":
            write_message({"ok": True})
            if args.no_exit:
                time.sleep(3600)
            return 0
        if op in ("dumps", "loads") and args.error:
            write_message(error(args.error, f"the fake testee refuses every {op}"))
            continue
        if op == "dumps":
            if args.garbage_length:
                write_message(None, raw_doc=b'{"ok":true,"frame_lengths":[]}', length=3)
                continue
            if args.not_object:
                write_message([1, 2])
                continue
            if args.no_ok:
                write_message({"frame_lengths": []})
                continue
            if args.huge_length:
                OUT.write(struct.pack("<I", 0xFFFFFFF0))
                OUT.flush()
                time.sleep(3600)
            if args.short_frames:
                write_message({"ok": True, "frame_lengths": [100]}, frames=[b"\x80\x04short"])
                return 0
        try:
            if op == "dumps":
                doc, out_frames = do_dumps(req)
                if args.optimize:
                    out_frames[0] = pickletools.optimize(out_frames[0])
                    doc["frame_lengths"][0] = len(out_frames[0])
                write_message(doc, out_frames)
            elif op == "loads":
                if args.bad_value:
                    write_message({"ok": True, "value": {"list": [1, {"float": "not a float"}]}})
                    continue
                try:
                    doc = do_loads(req, frames)
                except pickle.UnpicklingError:
                    if not args.lenient:
                        raise
                    doc = {"ok": True, "value": None}
                if args.wrong_value:
                    doc["value"] = bump_ints(doc["value"])
                if args.wrong_float:
                    doc["value"] = bump_floats(doc["value"])
                write_message(doc)
            elif op == "try-loads":
                if args.crash_on_try_loads:
                    print("fake testee: crashing on try-loads", file=sys.stderr, flush=True)
                    os._exit(3)
                if args.hang_on_try_loads:
                    time.sleep(3600)
                results = []
                for f in frames:
                    try:
                        pickle.loads(f)
                        results.append({"ok": True})
                    except Exception as e:  # noqa: BLE001 - every failure is an answer
                        ok = args.lenient and isinstance(e, pickle.UnpicklingError)
                        results.append({"ok": True} if ok else error(type(e).__name__, str(e)))
                if args.wrong_count:
                    results = results[:-1]
                write_message({"ok": True, "results": results})
            elif op == "bench":
                if req["operation"] == "dumps":
                    value = from_canonical(req["value"], {})
                    start = time.perf_counter()
                    for _ in range(req["iterations"]):
                        pickle.dumps(value, protocol=req["protocol"])
                else:
                    start = time.perf_counter()
                    for _ in range(req["iterations"]):
                        pickle.loads(frames[0])
                write_message({"ok": True, "iterations": req["iterations"] + args.bad_bench,
                               "seconds": time.perf_counter() - start})
            else:
                write_message(error("bad-request", f"unknown op {op!r}"))
        except Unsupported as e:
            write_message(error("unsupported", str(e)))
        except Exception as e:  # noqa: BLE001 - every failure is an answer
            write_message(error(type(e).__name__, str(e)))


if __name__ == "__main__":
    sys.exit(main())
