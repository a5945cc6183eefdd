"""The dask.distributed side of families_test.cpp's interop tests.

  families_interop.py make DIR   write DIR/<case>.bin = serialize_bytes(x) for every
                                 case below, and DIR/cases.json: per case what
                                 distributed's own deserialize_bytes makes of it
  families_interop.py load DIR   deserialize_bytes every DIR/<name>.bin listed in
                                 DIR/manifest.json; print {name: description}

A description is plain JSON that both sides compute the same way (the C++
side from the reference's value): arrays by dtype, shape, C-order bytes and
writeability; tensors by dtype, shape, bytes, requires_grad, grad, device.
"""
import json
import os
import pickle
import struct
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from distributed.protocol import deserialize_bytes, serialize_bytes  # noqa: E402


def describe(x):
    if x is None or isinstance(x, bool):
        return x
    if type(x) is int:
        return {"int": str(x)}
    if type(x) is float:
        return {"float": struct.pack("<d", x).hex()}
    if type(x) is str:
        return {"str": x}
    if type(x) is bytes:
        return {"bytes": x.hex()}
    if type(x) is bytearray:
        return {"bytearray": x.hex()}
    if type(x) is memoryview:
        return {"buffer": x.tobytes().hex()}
    if isinstance(x, pickle.PickleBuffer):
        return {"buffer": x.raw().tobytes().hex()}
    if type(x) is list:
        return {"list": [describe(i) for i in x]}
    if type(x) is tuple:
        return {"tuple": [describe(i) for i in x]}
    if type(x) is dict:
        return {"dict": [[describe(k), describe(v)] for k, v in x.items()]}
    if type(x) is set:
        return {"set": sorted(canonical(describe(i)) for i in x)}
    if isinstance(x, np.ndarray):
        return {
            "ndarray": {
                "dtype": x.dtype.str,
                "shape": list(x.shape),
                "data": x.tobytes().hex(),
                "writeable": bool(x.flags.writeable),
            }
        }
    if isinstance(x, torch.Tensor):
        return {
            "tensor": {
                "dtype": str(x.dtype).replace("torch.", ""),
                "shape": list(x.shape),
                "data": x.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex(),
                "requires_grad": bool(x.requires_grad),
                "grad": describe(x.grad),
                "device": x.device.type,
            }
        }
    return {"repr": repr(x)}


def canonical(d):
    return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cases():
    a = np.arange(6.0).reshape(2, 3)
    ro = np.arange(4.0)
    ro.flags.writeable = False
    t = torch.arange(4.0, requires_grad=True)
    t.grad = torch.full((4,), 0.5)
    rng = np.random.RandomState(7)
    noise = np.frombuffer(rng.bytes(20000), dtype=np.uint8)
    out = [
        ("nd_c_f8", a, {}),
        ("nd_fortran", np.asfortranarray(a), {}),
        ("nd_noncontig", a[:, ::2], {}),
        ("nd_reversed", np.arange(5, dtype="<i4")[::-1], {}),
        ("nd_0d", np.array(3.5), {}),
        ("nd_empty", np.zeros((0, 3)), {}),
        ("nd_u1", np.arange(7, dtype=np.uint8), {}),
        ("nd_bool", np.array([True, False, True]), {}),
        ("nd_c16", np.array([1 + 2j, 3 - 4j]), {}),
        ("nd_m8", np.array([1, 2], dtype="M8[ns]"), {}),
        ("nd_U3", np.array(["ab", "xyz"]), {}),
        ("nd_S4", np.array([b"ab", b"xyzw"]), {}),
        ("nd_be_i4", np.arange(4, dtype=">i4"), {}),
        ("nd_readonly", ro, {}),
        ("nd_readonly_noncontig", ro[::2], {}),
        ("nd_broadcast", np.broadcast_to(np.arange(3), (4, 3)), {}),
        ("nd_broadcast_noncontig", np.broadcast_to(np.arange(6).reshape(3, 2)[:, :1], (3, 4)), {}),
        ("nd_void", np.frombuffer(b"abcdefgh12345678", dtype="V8"), {}),
        ("nd_f2_3d", np.arange(24, dtype="<f2").reshape(2, 3, 4).transpose(2, 0, 1), {}),
        ("list_arr_first", [np.arange(3), 1, "a"], {}),
        ("dict_arr_first", {"a": np.arange(2.0), "b": 2, 3: "x"}, {}),
        ("tuple_nested", (np.arange(2), [np.ones(2), 3], {"k": np.zeros(1)}), {}),
        ("set_bytes", {b"p", b"q"}, {}),
        ("tensor_grad", t, {}),
        ("tensor_i64", torch.arange(5), {}),
        ("tensor_t", torch.arange(6.0).reshape(2, 3).t(), {}),
        ("tensor_offset", torch.arange(10.0)[3:7], {}),
        ("tensor_bf16", torch.zeros(2, dtype=torch.bfloat16), {}),
        ("bytes", b"hello", {}),
        ("bytearray", bytearray(b"xy"), {}),
        ("memoryview", memoryview(b"abc"), {}),
        ("msgpack_plain", (1, "a", (2, b"x"), {"k": 1.5, 2: None, "z": 2.0}), {"serializers": ["msgpack"]}),
        ("msgpack_list", [1, [2, "z"]], {"serializers": ["msgpack"]}),
        ("error_obj", object(), {"serializers": ["msgpack"]}),
        ("compressed", np.zeros(100000), {}),
        ("split", noise, {"size": 4096}),
        ("plain_int", 12345, {}),
        ("plain_str", "h\u00e9llo", {}),
        ("protocol4", [1, "a", None], {"context": {"pickle-protocol": 4}}),
        # Pickled whole by distributed (the first element is no array),
        # arrays out of band.
        ("pickled_list", [1, np.arange(3)], {}),
        ("pickled_nested", [(1, np.arange(2.0))], {}),
    ]
    return out


def make(directory):
    manifest = []
    for name, x, kw in cases():
        data = serialize_bytes(x, **kw)
        with open(os.path.join(directory, name + ".bin"), "wb") as f:
            f.write(data)
        entry = {"name": name, "original": describe(x)}
        try:
            entry["expected"] = describe(deserialize_bytes(data))
        except Exception as e:  # what distributed raises on its own message
            entry["error"] = type(e).__name__
        manifest.append(entry)
    with open(os.path.join(directory, "cases.json"), "w") as f:
        json.dump(manifest, f, ensure_ascii=False)


def load(directory):
    with open(os.path.join(directory, "manifest.json")) as f:
        names = json.load(f)
    out = {}
    for name in names:
        with open(os.path.join(directory, name + ".bin"), "rb") as f:
            data = f.read()
        try:
            out[name] = describe(deserialize_bytes(data))
        except Exception as e:
            out[name] = {"error": type(e).__name__, "message": str(e)[:300]}
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    {"make": make, "load": load}[sys.argv[1]](sys.argv[2])
