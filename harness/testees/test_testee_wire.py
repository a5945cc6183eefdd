"""Negative controls of the adapters' shared protocol helpers (testee_wire.py):
the framing and canonical checks must reject a testee that breaks the
protocol, and the relaxed comparison must relax exactly the distinctions
named, so that the adapters' tests built on them can fail.

Run: /usr/bin/python3 -m pytest -q harness/testees/test_testee_wire.py
"""

import os
import pickle
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testee_wire import Child, ProtocolError, check_canonical, same  # noqa: E402

BROKEN = r"""
import json, struct, sys
out = sys.stdout.buffer
n = struct.unpack('<I', sys.stdin.buffer.read(4))[0]; sys.stdin.buffer.read(n)
mode = sys.argv[1]
if mode == 'short-frame':
    body = json.dumps({"ok": True, "frame_lengths": [10]}).encode()
    out.write(struct.pack('<I', len(body)) + body + b'abc'); out.flush(); sys.exit(0)
if mode == 'bare-array':
    body = json.dumps({"ok": True, "value": [1]}).encode()
elif mode == 'dangling-ref':
    body = json.dumps({"ok": True, "value": {"list": [{"ref": 2}]}}).encode()
else:
    body = b'not json'
out.write(struct.pack('<I', len(body)) + body); out.flush()
"""


@pytest.mark.parametrize("mode", ["short-frame", "bare-array", "dangling-ref", "not-json"])
def test_a_testee_that_breaks_the_protocol_is_rejected(mode):
    t = Child([sys.executable, "-c", BROKEN, mode])
    try:
        with pytest.raises(ProtocolError):
            t.loads(pickle.dumps([1], 2))
    finally:
        t.proc.kill()
        t.proc.wait()
        for s in (t.proc.stdin, t.proc.stdout, t.proc.stderr):
            s.close()


@pytest.mark.parametrize("doc", [[1], 1.5, {"list": [{"ref": 7}]}, {"tuple": [1], "bogus": 1},
                                 {"bytes": "abc"}])
def test_non_canonical_values_are_rejected(doc):
    with pytest.raises(ProtocolError):
        check_canonical(doc)


def test_relaxation_is_exactly_what_is_declared():
    # Equal under the declared loss...
    assert same({"tuple": [1]}, {"list": [1]}, {"tuple"})
    assert same(3, {"float": "3.0"}, {"int-float"})
    # ...not without it, and never beyond it.
    assert not same({"tuple": [1]}, {"list": [1]}, set())
    assert not same({"tuple": [1]}, {"list": [1]}, {"int-float"})
    assert not same({"tuple": [1]}, {"list": [2]}, {"tuple"})
    assert not same(3, {"float": "3.5"}, {"int-float"})
