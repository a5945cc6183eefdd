"""Drives the Node testee (testee.js) over the testee protocol, as the runner
does: hello, loads of pickles CPython writes at every protocol the reader
claims, the golden corpus, malformed input, unsupported requests, bench and
shutdown. Also pins the reader defects listed in README.md, so that a fixed
defect shows up here and the known-failures list can shrink.

Run: /usr/bin/python3 -m pytest -q harness/testees/node/test_node_testee.py
Skips (with the reason) when node or node_modules is missing.
"""

import math
import os
import pickle
import shutil
import struct
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
GOLDEN = os.path.join(ROOT, "corpus", "golden")
MALFORMED = os.path.join(ROOT, "corpus", "malformed")
NODE = shutil.which("node")
TIMEOUT = 10.0

if NODE is None:
    pytest.skip("node is not installed (scripts/setup installs it)", allow_module_level=True)


def _missing_modules():
    return [m for m in ("pickleparser", "jpickle") if not os.path.isdir(os.path.join(HERE, "node_modules", m))]


sys.path.insert(0, os.path.dirname(HERE))
from testee_wire import (  # noqa: E402  (the adapters' shared protocol helpers)
    Child, ProtocolError, check_canonical, check_try_loads_answers, encode_message, expect_error,
    golden_sweep, malformed_sweep, normalize, read_message, same, value_json_of)




# --------------------------------------------------------------------------
# Fixtures.

READERS = ["pickleparser", "jpickle"]


def start(reader):
    missing = _missing_modules()
    if missing:
        pytest.skip(f"node_modules lacks {', '.join(missing)}: run scripts/setup "
                    f"(scripts/setup runs npm ci for it)")
    return Child([NODE, os.path.join(HERE, "testee.js"), "--reader", reader])


@pytest.fixture(params=READERS, scope="module")
def testee(request):
    t = start(request.param)
    doc, _ = t.request({"op": "hello", "protocol": 1})
    assert doc["ok"], doc
    t.reader = request.param
    t.caps = doc["capabilities"]
    t.lost = set(t.caps["cannot_express"])
    yield t
    t.close()


# Values both readers read right at every protocol they claim.
GOOD_VALUES = [
    None, True, False, 0, 1, -1, 255, 256, 65535, 65536, 2 ** 31 - 1, -(2 ** 31),
    1.5, -0.0, 0.1, 1e16, 1e-05, 1e300, float("inf"), float("-inf"), float("nan"),
    "", "ascii", "h\xe9llo", [], [1, "a", None], (), (1,), (1, 2, 3), (1, 2, 3, 4),
    {"a": 1, "b": [True, None]}, b"", b"abc\xff", bytearray(b"hi"), bytearray(),
    {1, 2, 3}, frozenset({"x"}), set(), [[1, [2, [3, []]]]], list(range(1500)),
]


# --------------------------------------------------------------------------
# Tests.


def test_hello(testee):
    caps = testee.caps
    assert caps["dumps"] is False and caps["loads"] is True
    rp = caps["read_protocols"]
    assert rp == list(range(rp[0], rp[-1] + 1)), "read_protocols must be consecutive"
    assert rp == ([0, 1, 2, 3, 4, 5] if testee.reader == "pickleparser" else [0, 1, 2])
    assert {"tuple", "int-float", "big-int", "nan-bits"} <= testee.lost
    assert "sharing" not in testee.lost
    assert set(caps["kinds"]) >= {"none", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "set"}
    assert caps["try_loads"] is True


@pytest.mark.parametrize("index", range(len(GOOD_VALUES)))
def test_loads_cpython_pickles(testee, index):
    value = GOOD_VALUES[index]
    for proto in testee.caps["read_protocols"]:
        if proto == 0 and isinstance(value, float) and math.isinf(value):
            continue  # a defect of both readers, pinned below
        doc = testee.loads(pickle.dumps(value, proto))
        assert doc["ok"], (proto, value, doc)
        assert same(doc["value"], value_json_of(value), testee.lost), (proto, value, doc["value"])


def test_loads_keeps_sharing_and_cycles(testee):
    a = [1]
    shared = [a, a]
    for proto in testee.caps["read_protocols"]:
        doc = testee.loads(pickle.dumps(shared, proto))
        assert doc["value"] == {"list": [{"list": [1], "id": 1}, {"ref": 1}]}, (proto, doc)
        cyc = []
        cyc.append(cyc)
        doc = testee.loads(pickle.dumps(cyc, proto))
        assert doc["value"] == {"list": [{"ref": 1}], "id": 1}, (proto, doc)


def test_float_repr_matches_python(testee):
    import random
    rng = random.Random(7)
    values = [rng.uniform(-1e6, 1e6) for _ in range(150)]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(63)))[0] for _ in range(150)]
    values = [v for v in values if not math.isnan(v)]
    proto = testee.caps["read_protocols"][-1]
    doc = testee.loads(pickle.dumps(values, proto))
    got = [x["float"] if isinstance(x, dict) else repr(float(x)) for x in doc["value"]["list"]]
    # An integral float comes back as an int (one number type in JavaScript).
    assert [float(g) for g in got] == values
    assert [g for g, v in zip(got, values) if v != int(v)] == [repr(v) for v in values if v != int(v)]


def test_golden_corpus_answers_every_variant(testee):
    """Every golden pickle at a claimed protocol gets a well-formed answer
    (ok with a canonical value, or an error), and the cases listed here come
    back equal to CPython's value under the declared relaxations."""
    must_pass = {"none", "true", "false", "int_0", "int_m1", "int_255", "int_65536", "float_1_5",
                 "str_ascii", "list_1001", "tuple_3", "set_1001",
                 "recursive_list", "deep_list_200", "frozenset_1001", "shared_list_twice"}
    golden_sweep(testee, GOLDEN, must_pass, testee.reader)


def test_out_of_band_buffers(testee):
    if not testee.caps["out_of_band"]:
        doc = testee.loads(pickle.dumps(1, 2), buffers=[b"x"], writeable=[False])
        assert not doc["ok"] and doc["error"]["kind"] == "unsupported"
        return
    bufs = []
    value = [pickle.PickleBuffer(b"abc"), pickle.PickleBuffer(bytearray(b"de"))]
    data = pickle.dumps(value, 5, buffer_callback=bufs.append)
    raw = [bytes(b.raw()) for b in bufs]
    doc = testee.loads(data, buffers=raw, writeable=[False, True])
    assert doc["ok"], doc
    assert doc["value"] == {"list": [{"buffer": "616263", "readonly": True}, {"buffer": "6465", "readonly": False}]}
    doc = testee.loads(data)  # buffers announced by the stream, none given
    assert not doc["ok"] and doc["error"]["kind"] == "out-of-band"


def test_globals_and_objects(testee):
    import collections
    if "object" not in testee.caps["kinds"]:
        doc = testee.loads(pickle.dumps(collections.OrderedDict(a=1), 2))
        assert not doc["ok"] and doc["error"]["kind"] == "unsupported", doc
        return
    doc = testee.loads(pickle.dumps(collections.OrderedDict, 4))
    assert doc["value"] == {"global": ["collections", "OrderedDict"]}
    doc = testee.loads(pickle.dumps(collections.OrderedDict(a=1), 4))
    assert doc["value"] == {"object": {"callable": {"global": ["collections", "OrderedDict"]},
                                       "args": {"tuple": []}, "dictitems": [["a", 1]]}}


@pytest.mark.parametrize("data, kinds", [
    (b"", {"truncated", "no-value"}),
    (b"\x80\x02]q", {"truncated"}),
    (b"\x80\x02]q\x00", {"truncated", "no-value"}),
    (b"\x80\x02\xff.", {"unknown-opcode"}),
    (b"\x80\x09N.", {"unsupported-protocol"}),
    (b"\x80\x02X\xff\xff\xff\x7fab.", {"truncated", "no-value"}),
])
def test_malformed_input_is_an_error_not_a_crash(testee, data, kinds):
    if testee.reader == "jpickle" and data == b"\x80\x09N.":
        kinds = {"unsupported-protocol"}
    expect_error(testee, data, kinds)


def test_malformed_corpus_never_kills_the_testee(testee):
    malformed_sweep(testee, MALFORMED)


def test_try_loads_answers_each_stream_in_order(testee):
    # One request, one result per frame in order: {"ok": true} for a stream
    # loads reads, the very error loads answers for the others (a truncated
    # stream, an empty one, a STACK_GLOBAL of ints that the conversion
    # refuses), and no values.
    valid = pickle.dumps([1, "a"], 2)
    streams = [valid, b"\x80\x02]q\x00K", b"", b"\x80\x04K\x01K\x02\x93.", valid]
    doc, frames = testee.request({"op": "try-loads", "max_protocol": 5}, streams)
    assert doc["ok"] and frames == [], doc
    results = doc["results"]
    assert [r["ok"] for r in results] == [True, False, False, False, True], results
    check_try_loads_answers(testee, streams, results)


def test_try_loads_of_many_megabytes(testee):
    # A batch the size the runner sends (it caps them at 16 MiB) arrives in
    # many chunks; the answer comes, one result per stream.
    proto = testee.caps["read_protocols"][-1]
    streams = [pickle.dumps([i, b"x" * 300_000], proto) for i in range(20)]
    doc, _ = testee.request({"op": "try-loads", "max_protocol": 5}, streams)
    assert doc == {"ok": True, "results": [{"ok": True}] * 20}


def test_try_loads_bad_request(testee):
    # No frames, no results; frame_lengths that name no frames is a
    # bad-request, and the testee reads on.
    doc, _ = testee.request({"op": "try-loads", "max_protocol": 5})
    assert doc == {"ok": True, "results": []}
    for lengths in ("3", [-1], [1.5], None):
        doc, _ = testee.request({"op": "try-loads", "max_protocol": 5, "frame_lengths": lengths})
        assert not doc["ok"] and doc["error"]["kind"] == "bad-request", (lengths, doc)
    doc, _ = testee.request({"op": "try-loads", "max_protocol": 5}, [pickle.dumps(1, 2)])
    assert doc == {"ok": True, "results": [{"ok": True}]}


def test_dumps_is_unsupported(testee):
    doc, frames = testee.request({"op": "dumps", "value": {"list": [1]}, "protocol": 2, "out_of_band": False})
    assert not doc["ok"] and doc["error"]["kind"] == "unsupported" and frames == []
    doc, _ = testee.request({"op": "bench", "operation": "dumps", "iterations": 3, "value": 1, "protocol": 2,
                             "out_of_band": False})
    assert not doc["ok"] and doc["error"]["kind"] == "unsupported"


def test_bench_loads(testee):
    data = pickle.dumps(list(range(200)), 2)
    doc, _ = testee.request({"op": "bench", "operation": "loads", "iterations": 50, "max_protocol": 5,
                             "writeable": []}, [data])
    assert doc["ok"] and doc["iterations"] == 50 and 0 <= doc["seconds"] < 10, doc


def test_unknown_op_is_bad_request(testee):
    doc, _ = testee.request({"op": "frobnicate"})
    assert not doc["ok"] and doc["error"]["kind"] == "bad-request"


# The defects README.md lists, pinned. When one of these fails, the library
# got better: move the case out of README.md and the known-failures list.
DEFECTS = {
    "pickleparser": [
        # (value, protocol, what comes back: an error kind or a value JSON)
        (2 ** 64, 2, "value-too-large"),
        (-(2 ** 31) - 1, 2, 1097364144127),
        ("\u20ac", 0, "\\u20ac"),
        ("\ud800", 3, "\ufffd\ufffd\ufffd"),
        (b"\x00", 0, {"bytes": "5c7530303030"}),
    ],
    "jpickle": [
        (2 ** 31, 2, 0),
        (-(2 ** 31) - 1, 2, 0),
        ({1: 2}, 2, {"dict": [["1", 2]]}),
        ({"b": 1, "1": 2}, 2, {"dict": [["1", 2], ["b", 1]]}),
        ("\u20ac", 0, "\\u20ac"),
        ("\ud800", 2, "\ufffd\ufffd\ufffd"),
        (b"\x00", 0, {"bytes": "5c7530303030"}),
    ],
}


def test_known_reader_defects_still_present(testee):
    for value, proto, expected in DEFECTS[testee.reader]:
        doc = testee.loads(pickle.dumps(value, proto))
        got = doc["value"] if doc["ok"] else doc["error"]["kind"]
        assert got == expected, f"{value!r} at protocol {proto}: now {got!r}; update README.md"


def test_shutdown_exits_zero():
    t = start("pickleparser")
    doc, _ = t.request({"op": "shutdown"})
    assert doc == {"ok": True}
    assert t.proc.wait(timeout=5) == 0
    t.close()


def test_unavailable_without_node_modules(tmp_path):
    # The script alone, away from its node_modules: the hello says how to fix it.
    shutil.copy(os.path.join(HERE, "testee.js"), tmp_path / "testee.js")
    t = Child([NODE, str(tmp_path / "testee.js"), "--reader", "pickleparser"], cwd=str(tmp_path))
    doc, _ = t.request({"op": "hello", "protocol": 1})
    assert not doc["ok"] and doc["error"]["kind"] == "unavailable"
    assert "scripts/setup" in doc["error"]["message"]
    t.close()
