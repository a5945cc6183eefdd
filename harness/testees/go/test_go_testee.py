"""Drives the Go testee (stalecucumber) over the testee protocol, as the
runner does: hello, dumps at protocol 2 checked by CPython's pickle.loads,
loads of pickles CPython writes at protocols 0-2, the golden corpus,
malformed input, unsupported requests, bench and shutdown. Also pins the
library defects listed in README.md.

Run: /usr/bin/python3 -m pytest -q harness/testees/go/test_go_testee.py
The binary is built with ./build into a temporary directory, or taken from
$SERIALCHECK_GO_TESTEE. Skips (with the reason) when go or the library is
missing.
"""

import os
import pickle
import shutil
import struct
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
GOLDEN = os.path.join(ROOT, "corpus", "golden")
MALFORMED = os.path.join(ROOT, "corpus", "malformed")


sys.path.insert(0, os.path.dirname(HERE))
from testee_wire import (  # noqa: E402  (the adapters' shared protocol helpers)
    Child, ProtocolError, check_canonical, check_try_loads_answers, encode_message, expect_error,
    golden_sweep, malformed_sweep, normalize, read_message, same, value_json_of)




# --------------------------------------------------------------------------
# Fixtures.


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    given = os.environ.get("SERIALCHECK_GO_TESTEE")
    if given and os.access(given, os.X_OK):
        return given
    # Not built (yet): build here, which skips with the reason when go or
    # the library is missing.
    out = str(tmp_path_factory.mktemp("go") / "stalecucumber-testee")
    r = subprocess.run([os.path.join(HERE, "build"), out], capture_output=True, text=True, timeout=120)
    if r.returncode == 3:
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def testee(binary):
    t = Child([binary])
    doc, _ = t.request({"op": "hello", "protocol": 1})
    assert doc["ok"], doc
    t.caps = doc["capabilities"]
    t.lost = set(t.caps["cannot_express"])
    yield t
    t.close()


def dumps(testee, value_json, protocol=2):
    doc, frames = testee.request({"op": "dumps", "value": value_json, "protocol": protocol, "out_of_band": False})
    if doc["ok"]:
        assert len(frames) == 1, doc
    return doc, frames


# Values stalecucumber reads right at protocols 0-2 (at most one dict item:
# a Go map has no order).
GOOD_VALUES = [
    None, True, False, 0, 1, -1, 255, 256, 65535, 65536, 2 ** 31 - 1, -(2 ** 31), 2 ** 63, -(2 ** 1000),
    1.5, -0.0, 0.1, 1e16, 1e-05, 1e300, float("inf"), float("-inf"),
    "", "ascii", "h\xe9llo\u20ac\n\\", [], [1, "a", None], (), (1,), (1, 2, 3), (1, 2, 3, 4),
    {"a": [True, None]}, {}, b"", b"abc\xff\x00", {1, 2, 3}, frozenset({"x"}), set(),
    [[1, [2, [3, []]]]], list(range(1500)),
]

# Values the writer writes (protocol 2) and CPython loads back equal.
WRITE_VALUES = [
    None, True, False, 0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 63, -(2 ** 63) - 1, 2 ** 200, -(2 ** 200),
    -128, -129, -256, 1.5, -0.0, float("inf"), 1e-310, "", "h\xe9llo\u20ac", "\ud800x", [], [1, [2.5, "b"]],
    (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), {"k": (1, 2)}, {}, list(range(1200)),
]


# --------------------------------------------------------------------------
# Tests.


def test_hello(testee):
    caps = testee.caps
    assert caps["dumps"] is True and caps["loads"] is True
    assert caps["read_protocols"] == [0, 1, 2] and caps["write_protocols"] == [2]
    assert caps["out_of_band"] is False
    assert testee.lost == {"tuple", "sharing", "dict-order"}
    assert caps["try_loads"] is True


@pytest.mark.parametrize("index", range(len(GOOD_VALUES)))
def test_loads_cpython_pickles(testee, index):
    value = GOOD_VALUES[index]
    for proto in testee.caps["read_protocols"]:
        doc = testee.loads(pickle.dumps(value, proto))
        assert doc["ok"], (proto, value, doc)
        assert same(doc["value"], value_json_of(value), testee.lost), (proto, value, doc["value"])


def test_loads_nan_bits(testee):
    nan = struct.unpack("<d", bytes.fromhex("010000000000f8ff"))[0]
    for proto in (1, 2):
        doc = testee.loads(pickle.dumps([float("nan"), nan], proto))
        assert doc["value"] == {"list": [{"float": "nan"}, {"float": "nan", "bits": "fff8000000000001"}]}


@pytest.mark.parametrize("index", range(len(WRITE_VALUES)))
def test_dumps_loads_in_cpython(testee, index):
    value = WRITE_VALUES[index]
    doc, frames = dumps(testee, value_json_of(value))
    assert doc["ok"], (value, doc)
    back = pickle.loads(frames[0])
    assert frames[0][:2] == b"\x80\x02"
    assert same(value_json_of(back), value_json_of(value), set()), (value, back)


def test_dumps_nan_bits_and_sharing_as_copies(testee):
    doc, frames = dumps(testee, {"list": [{"float": "nan", "bits": "fff8000000000001"}, {"float": "nan"}]})
    a, b = pickle.loads(frames[0])
    assert struct.pack(">d", a).hex() == "fff8000000000001" and struct.pack(">d", b).hex() == "7ff8000000000000"
    # No memo in the writer: a shared list is written twice (declared: sharing).
    doc, frames = dumps(testee, {"list": [{"list": [1], "id": 1}, {"ref": 1}]})
    x, y = pickle.loads(frames[0])
    assert x == y == [1] and x is not y


@pytest.mark.parametrize("value, why", [
    ({"bytes": "00"}, "bytes"),
    ({"set": [1]}, "set"),
    ({"global": ["builtins", "len"]}, "global"),
    ({"dict": [[{"tuple": [1]}, 1]]}, "key"),
    ({"dict": [[{"int": "-9223372036854775809"}, None]]}, "int beyond 64 bits"),
    ({"list": [{"ref": 1}], "id": 1}, "cycle"),
])
def test_dumps_unsupported(testee, value, why):
    doc, frames = dumps(testee, value)
    assert not doc["ok"] and doc["error"]["kind"] == "unsupported" and frames == [], doc
    assert why in doc["error"]["message"]


@pytest.mark.parametrize("protocol", [0, 1, 3, 4, 5])
def test_dumps_other_protocols_unsupported(testee, protocol):
    doc, _ = dumps(testee, 1, protocol)
    assert not doc["ok"] and doc["error"]["kind"] == "unsupported"


def test_loads_above_protocol_2_is_an_error(testee):
    for proto in (3, 4, 5):
        doc = testee.loads(pickle.dumps(1, proto))
        assert not doc["ok"] and doc["error"]["kind"] == "unsupported-protocol", doc


def test_dict_of_two_in_any_order(testee):
    # Declared dict-order: the pairs come back, in whatever order the Go map
    # iterates them.
    doc = testee.loads(pickle.dumps({"a": 1, "b": 2}, 2))
    assert doc["ok"], doc
    assert sorted(map(tuple, doc["value"]["dict"])) == [("a", 1), ("b", 2)]
    doc, frames = dumps(testee, {"dict": [["a", 1], ["b", 2]]})
    assert doc["ok"], doc
    assert pickle.loads(frames[0]) == {"a": 1, "b": 2}


def test_globals_and_objects(testee):
    import collections
    doc = testee.loads(pickle.dumps(collections.OrderedDict, 2))
    assert doc["value"] == {"global": ["collections", "OrderedDict"]}
    doc = testee.loads(pickle.dumps(complex(1, 2), 2))
    assert doc["value"] == {"object": {"callable": {"global": ["__builtin__", "complex"]},
                                       "args": {"tuple": [{"float": "1.0"}, {"float": "2.0"}]}}}


def test_golden_corpus_answers_every_variant(testee):
    must_pass = {"none", "true", "false", "int_0", "int_m1", "int_2p64", "int_m2p1000", "float_1_5", "float_inf",
                 "str_ascii", "str_bmp", "str_astral", "list_1001", "tuple_3", "set_1001", "frozenset_1001",
                 "bytes_short", "deep_list_200", "dict_1"}
    golden_sweep(testee, GOLDEN, must_pass, "stalecucumber")


@pytest.mark.parametrize("data, kinds", [
    (b"", {"truncated"}),
    (b"\x80\x02]q", {"truncated"}),
    (b"\x80\x02]q\x00", {"truncated"}),
    (b"\x80\x02\xff.", {"invalid-opcode"}),
    (b"\x80\x09N.", {"unsupported-protocol"}),
    (b"\x80\x02X\xff\xff\xff\x7fab.", {"truncated"}),
    (b"\x80\x02a.", {"stack-too-small"}),
])
def test_malformed_input_is_an_error_not_a_crash(testee, data, kinds):
    expect_error(testee, data, kinds)


def test_malformed_corpus_never_kills_the_testee(testee):
    malformed_sweep(testee, MALFORMED)


def test_try_loads_answers_each_stream_in_order(testee):
    # One request, one result per frame in order: {"ok": true} for a stream
    # loads reads, the very error loads answers for the others (a truncated
    # stream, an empty one, a set of tuples that panics inside the library,
    # recovered for its stream alone), and no values.
    valid = pickle.dumps([1, "a"], 2)
    streams = [valid, b"\x80\x02]q\x00K", b"", pickle.dumps({(1, 2)}, 2), valid]
    doc, frames = testee.request({"op": "try-loads", "max_protocol": 5}, streams)
    assert doc["ok"] and frames == [], doc
    results = doc["results"]
    assert [r["ok"] for r in results] == [True, False, False, False, True], results
    assert results[3]["error"]["kind"] == "panic"
    check_try_loads_answers(testee, streams, results)


def test_try_loads_bad_request(testee):
    # No frames, no results; frame_lengths that name no frames is a
    # bad-request, and the testee reads on.
    doc, _ = testee.request({"op": "try-loads", "max_protocol": 5})
    assert doc == {"ok": True, "results": []}
    for lengths in ("3", [-1], [1.5]):
        doc, _ = testee.request({"op": "try-loads", "max_protocol": 5, "frame_lengths": lengths})
        assert not doc["ok"] and doc["error"]["kind"] == "bad-request", (lengths, doc)
    doc, _ = testee.request({"op": "try-loads", "max_protocol": 5}, [pickle.dumps(1, 2)])
    assert doc == {"ok": True, "results": [{"ok": True}]}


def test_bench(testee):
    data = pickle.dumps(list(range(200)), 2)
    doc, _ = testee.request({"op": "bench", "operation": "loads", "iterations": 50, "max_protocol": 5,
                             "writeable": []}, [data])
    assert doc["ok"] and doc["iterations"] == 50 and 0 <= doc["seconds"] < 10, doc
    doc, _ = testee.request({"op": "bench", "operation": "dumps", "iterations": 50,
                             "value": {"list": [1, "a", {"float": "1.5"}]}, "protocol": 2, "out_of_band": False})
    assert doc["ok"] and doc["iterations"] == 50, doc


def test_unknown_op_is_bad_request(testee):
    doc, _ = testee.request({"op": "frobnicate"})
    assert not doc["ok"] and doc["error"]["kind"] == "bad-request"


# The defects README.md lists, pinned. When one of these fails, the library
# got better: move the case out of README.md and the known-failures list.
def _shared_list():
    a = [1]
    return [a, a]


def _self_dict():
    d = {}
    d["self"] = d
    return d


DEFECTS = [
    (bytearray(b"hi"), 2, "unparseable-global"),
    (bytearray(), 0, "unparseable-global"),
    ({(1, 2)}, 2, "panic"),
    ({(1, 2): 3}, 2, "unhashable-key"),
    (_shared_list(), 2, {"list": [{"list": [1]}, {"list": []}]}),
    ("\ud800", 0, "bad-literal"),
    (float("nan"), 0, {"float": "nan", "bits": "7ff8000000000001"}),
    (len, 2, {"global": ["__builtin__", "len"]}),
    (_self_dict(), 2, "unsupported"),
]


def test_known_library_defects_still_present(testee):
    for value, proto, expected in DEFECTS:
        doc = testee.loads(pickle.dumps(value, proto))
        got = doc["value"] if doc["ok"] else doc["error"]["kind"]
        assert got == expected, f"{value!r} at protocol {proto}: now {got!r}; update README.md"


def test_shutdown_exits_zero(binary):
    t = Child([binary])
    doc, _ = t.request({"op": "shutdown"})
    assert doc == {"ok": True}
    assert t.proc.wait(timeout=5) == 0
    t.close()


def test_build_script_reports_missing_library(tmp_path):
    r = subprocess.run([os.path.join(HERE, "build"), str(tmp_path / "x")], capture_output=True, text=True,
                       env=dict(os.environ, GOCODE=str(tmp_path / "nowhere")), timeout=60)
    assert r.returncode != 0 and "stalecucumber" in r.stderr
