"""Interop between the reference's frame layer and dask.distributed.

Run by frames_test.cpp with Debian's interpreter:

  frames_interop.py produce DIR   writes bytes made by distributed into DIR
  frames_interop.py consume DIR   loads the bytes the reference wrote into DIR
                                  with distributed and writes DIR/results.json

Values that are not plain JSON are described the same way on both sides:
bytes as {"binary": "<hex>"} (the form of reference/frames/header_json.h),
tuples as lists.
"""

import json
import os
import sys

import msgpack
import numpy as np

import dask
from distributed.protocol import deserialize_bytes, serialize_bytes
from distributed.protocol.compression import compressions
from distributed.protocol.utils import pack_frames, unpack_frames


def describe(x):
    if isinstance(x, (bytes, bytearray, memoryview)):
        return {"binary": bytes(x).hex()}
    if isinstance(x, (list, tuple)):
        return [describe(v) for v in x]
    if isinstance(x, dict):
        return {k: describe(v) for k, v in x.items()}
    return x


# The objects serialized by distributed; the same on both sides by name.
def objects():
    return {
        # 240 kB of small repeating ints: distributed compresses it.
        "ndarray": (np.arange(30000, dtype="int64") % 7).reshape(100, 300),
        "bytes": b"x" * 20000 + bytes(range(256)),
        "dict": {"a": 1, "b": [1.5, None, "s"], "c": b"\x00\x01"},
        "small": np.array([1.0, 2.5, -3.0], dtype=np.float32),
    }


def same(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and bool((a == b).all()))
    return type(a) is type(b) and a == b


# A header exercising every msgpack type distributed writes.
HEADER = {
    "serializer": "pickle",
    "type-serialized": b"\x80\x05\x95\x00",
    "writeable": (True, False),
    "int": -5,
    "big": 2**64 - 1,
    "most-negative": -(2**63),
    "float": 1.5,
    "third": 1.0 / 3.0,
    "none": None,
    "nested": {"sub-header": {"x": (1, (2, (3,)))}, "empty": {}},
    "unicode": "h\u00e9llo \u2603 \U0001d11e",
    "empty-bytes": b"",
    "empty-tuple": (),
    "long-string": "s" * 300,
    "long-bytes": bytes(range(256)) * 2,
}

CODECS = {"none": False, "lz4": "lz4", "zstd": "zstd"}

RAW_FRAMES = [b"", b"abc", bytes(range(256)) * 3]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def produce(d):
    manifest = {"codecs": sorted(k for k in CODECS if CODECS[k] in compressions or k == "none")}
    write(os.path.join(d, "packed.bin"), pack_frames(RAW_FRAMES))
    manifest["packed"] = describe(RAW_FRAMES)
    write(os.path.join(d, "header.msgpack"), msgpack.dumps(HEADER, use_bin_type=True))
    manifest["header"] = describe(HEADER)
    cases = {}
    for name, obj in objects().items():
        for codec in manifest["codecs"]:
            with dask.config.set({"distributed.comm.compression": CODECS[codec]}):
                b = serialize_bytes(obj)
            frames = unpack_frames(b)
            header = msgpack.loads(frames[0], raw=False, use_list=False)
            plain = [compressions[c]["decompress"](f)
                     for c, f in zip(header["compression"], frames[1:])]
            key = f"{name}.{codec}"
            write(os.path.join(d, key + ".bin"), b)
            # The decompressed frames, packed: what the reference must unpack.
            write(os.path.join(d, key + ".frames"), pack_frames(plain))
            cases[key] = {"header": describe(header)}
    manifest["cases"] = cases
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)


def consume(d):
    results = {}
    objs = objects()
    for fname in sorted(os.listdir(d)):
        path = os.path.join(d, fname)
        with open(path, "rb") as f:
            data = f.read()
        try:
            if fname.startswith("ref."):
                # ref.<object>.<codec>.bin: a message re-packed by the reference
                name = fname.split(".")[1]
                obj = deserialize_bytes(data)
                header = msgpack.loads(unpack_frames(data)[0], raw=False, use_list=False)
                results[fname] = {"ok": same(objs[name], obj),
                                  "compression": list(header["compression"]),
                                  "count": header["count"]}
            elif fname == "ref-packed.bin":
                results[fname] = {"ok": describe(unpack_frames(data)) == describe(RAW_FRAMES)}
            elif fname == "ref-header.msgpack":
                with open(os.path.join(d, "ref-header.json")) as f:
                    want = json.load(f)
                got = describe(msgpack.loads(data, raw=False, use_list=False))
                results[fname] = {"ok": got == want, "got": got}
            elif fname.startswith("ref-compressed."):
                # ref-compressed.<codec>: the reference's compression of payload.bin
                codec = fname.split(".")[1]
                with open(os.path.join(d, "payload.bin"), "rb") as f:
                    payload = f.read()
                back = compressions[codec]["decompress"](data)
                again = compressions[codec]["compress"](payload)
                results[fname] = {"ok": bytes(back) == payload,
                                  "identical": bytes(again) == data}
        except Exception as e:  # reported, not raised: the C++ side says which file
            results[fname] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    {"produce": produce, "consume": consume}[sys.argv[1]](sys.argv[2])
