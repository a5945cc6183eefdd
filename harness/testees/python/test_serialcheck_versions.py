"""The Python testee adapter under the interpreter that runs this file.

test_serialcheck_testee.py needs pytest and Python 3; this file needs
neither, so that every Python the adapter serves (2.7, 3.6 and later, PyPy)
runs it: `python test_serialcheck_versions.py` runs each test_* function,
prints a line for each (ok, SKIP with the reason, FAIL with the error) and
exits 0 when none failed, 1 when one did, 77 when every test skipped.
pytest collects it too.

What it checks, with the adapter as a subprocess of this interpreter: the
hello says this interpreter's version and pickle protocols (and what a
stand-in claiming another version is caught), every kind comes back through
dumps and loads at every protocol the hello claims and agrees with this
interpreter's own pickle, a fixture class this version cannot have is
answered `unsupported` (a stand-in answering an error instead is caught),
the Python 2 mapping, --package-dir (a package imported from one directory
only, and one that does not import is unavailable with the reason), and
`serialcheck testee-check` for the pickle presets when SERIALCHECK names the
command.
"""

from __future__ import print_function

import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import serialcheck_testee as st  # noqa: E402
import value_equal  # noqa: E402

ADAPTER = os.path.join(HERE, "serialcheck_testee.py")
PY2 = sys.version_info[0] == 2
VERSION = "%d.%d.%d" % tuple(sys.version_info[:3])
# numpy and torch are not what these tests are about: sparing their import
# keeps each adapter start short.
LEAN = ["--without-kinds", "ndarray,tensor", "--quiet"]


class Skip(Exception):
    pass


def skip(reason):
    if "pytest" in sys.modules:
        import pytest
        pytest.skip(reason)
    raise Skip(reason)


# ---------------------------------------------------------------------------
# The testee protocol, from the runner's side

class Adapter(object):
    def __init__(self, args, python=sys.executable, env=None):
        self.args = [python] + list(args)
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=HERE, env=env)

    def ask(self, doc, frames=()):
        if frames:
            doc = dict(doc, frame_lengths=[len(f) for f in frames])
        raw = json.dumps(doc).encode("utf-8")
        self.proc.stdin.write(struct.pack("<I", len(raw)) + raw + b"".join(frames))
        self.proc.stdin.flush()
        head = self.proc.stdout.read(4)
        if len(head) != 4:
            raise AssertionError("%s: no answer to %s; standard error: %s" % (
                " ".join(self.args), doc.get("op"), self.proc.stderr.read()[-2000:]))
        answer = json.loads(self.proc.stdout.read(struct.unpack("<I", head)[0]).decode("utf-8"))
        frames = [self.proc.stdout.read(n) for n in answer.get("frame_lengths", [])]
        return answer, frames

    def hello(self):
        return self.ask({"op": "hello", "protocol": 1})[0]

    def close(self):
        try:
            self.ask({"op": "shutdown"})
        except Exception:
            pass
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def adapter(*args):
    return Adapter([ADAPTER] + list(args) + LEAN)


def stand_in(code, *args):
    """The adapter with `code` run first (a stand-in that misbehaves)."""
    script = ("import sys\nsys.path.insert(0, %r)\nimport serialcheck_testee as st\n%s\n"
              "sys.exit(st.main(sys.argv[1:]))\n" % (HERE, code))
    return Adapter(["-c", script] + list(args) + LEAN)


# ---------------------------------------------------------------------------
# The hello

def this_interpreter_default_protocol():
    """The protocol this interpreter's dumps writes when given none, read
    from what it writes (PROTO, or none at all for 0 and 1)."""
    obj = [1, (2,), {"a": None}]
    data = pickle.dumps(obj)
    for p in range(pickle.HIGHEST_PROTOCOL, -1, -1):
        if pickle.dumps(obj, p) == data:
            return p
    raise AssertionError("pickle.dumps writes no protocol's bytes")


def hello_problems(hello, preset):
    """What is wrong in a hello from preset `preset` under this interpreter."""
    problems = []
    if not hello.get("ok"):
        return ["not ok: %r" % (hello,)]
    caps = hello["capabilities"]
    highest = min(pickle.HIGHEST_PROTOCOL, 5)
    expected = {
        "python_version": VERSION,
        "default_protocol": this_interpreter_default_protocol(),
        "highest_protocol": pickle.HIGHEST_PROTOCOL,
        "write_protocols": list(range(highest + 1)),
        "read_protocols": list(range(highest + 1)),
    }
    for k, v in expected.items():
        if caps.get(k) != v:
            problems.append("%s is %r, not %r" % (k, caps.get(k), v))
    has_buffer = getattr(pickle, "PickleBuffer", None) is not None
    if ("pickle-buffer" in caps["kinds"]) != has_buffer:
        problems.append("kinds %s pickle-buffer, which this pickle %s" % (
            "claims" if not has_buffer else "lacks", "has" if has_buffer else "lacks"))
    cpython = st.platform.python_implementation() == "CPython"
    c_bytes = preset == "pickle" and cpython and sys.version_info >= (3, 8)
    if caps.get("cpython_bytes") != c_bytes:
        problems.append("cpython_bytes is %r" % caps.get("cpython_bytes"))
    if PY2:
        lost = ["str-bytes", "nan-bits", "dict-order"]
        if caps.get("cannot_express") != lost:
            problems.append("cannot_express is %r, not %r" % (caps.get("cannot_express"), lost))
        for word in ("unicode", "long"):
            if word not in hello["implementation"]:
                problems.append("the implementation text does not say the mapping (%s)" % word)
    elif caps.get("cannot_express") != []:
        problems.append("cannot_express is %r" % caps.get("cannot_express"))
    return problems


def test_hello_says_this_interpreter():
    for preset in ("pickle", "pickle-py"):
        start = time.time()
        with adapter("--preset", preset) as t:
            hello = t.hello()
        took = time.time() - start
        assert not hello_problems(hello, preset), (preset, hello_problems(hello, preset))
        print("  %s: hello in %.0f ms (%s)" % (preset, took * 1000, hello["implementation"]))


def test_a_hello_that_claims_another_version_is_caught():
    # Negative control: hello_problems must see a wrong version and protocol.
    code = ("claims = st.interpreter_claims\n"
            "st.interpreter_claims = lambda: dict(claims(), python_version='3.99.0', "
            "default_protocol=7)")
    with stand_in(code, "--preset", "pickle") as t:
        problems = hello_problems(t.hello(), "pickle")
    assert any("python_version" in p for p in problems), problems
    assert any("default_protocol" in p for p in problems), problems


# ---------------------------------------------------------------------------
# dumps and loads

VALUES = [
    "null", "true", "false", "0", "-7", "9223372036854775807", "-9223372036854775808",
    '{"int":"9223372036854775808"}', '{"int":"-123456789012345678901234567890"}',
    '{"float":"1.5"}', '{"float":"-0.0"}', '{"float":"inf"}', '{"float":"nan"}',
    '{"float":"nan","bits":"7ff0000000000001"}',
    '"a"', '"h\\u00e9llo \\u20ac"', '"\\ud83d\\ude00"', '{"str-utf8sp":"eda080"}',
    '{"bytes":""}', '{"bytes":"616263"}', '{"bytearray":"00ff"}',
    '{"list":[]}', '{"tuple":[]}', '{"dict":[]}', '{"set":[]}', '{"frozenset":[]}',
    '{"list":[1,"a",{"tuple":[2,{"list":[]}]}]}',
    '{"dict":[["a",1],[2,{"list":[null]}]]}',
    '{"list":[{"set":[1,2,3]},{"frozenset":["x"]}]}',
    '{"list":[{"list":[1],"id":1},{"ref":1}]}',
    '{"list":[{"ref":1}],"id":1}',
    '{"dict":[["me",{"ref":1}]],"id":1}',
    '{"global":["builtins","len"]}', '{"global":["collections","OrderedDict"]}',
    '{"object":{"callable":{"global":["collections","OrderedDict"]},"args":{"tuple":[]},'
    '"dictitems":[["a",1]]}}',
]


def equal(a, b):
    """value_equal's equality of two JSON texts (as Python sees values:
    sharing of immutable objects ignored)."""
    if PY2:
        a, b = [t.encode("utf-8") if isinstance(t, st.TEXT) else t for t in (a, b)]
    return value_equal.equal(a, b, immutable_sharing=False)


def test_every_kind_through_dumps_and_loads_at_every_protocol():
    with adapter("--preset", "pickle") as t:
        caps = t.hello()["capabilities"]
        tried = 0
        for text in VALUES:
            if PY2 and text == '"\\ud83d\\ude00"':
                continue  # a surrogate pair: see test_python2_says_what_it_cannot_write
            value = json.loads(text)
            for p in caps["write_protocols"]:
                if p == 0 and ("bits" in text or (PY2 and "nan" in text)):
                    # Protocol 0 writes a float as text: no NaN payload (and
                    # Python 2 reads "nan" as fff8000000000000: nan-bits).
                    continue
                doc, frames = t.ask({"op": "dumps", "value": value, "protocol": p,
                                     "out_of_band": False})
                assert doc["ok"], (text, p, doc)
                # What this interpreter's objects are (its standard library
                # may reduce them otherwise: 2.7's OrderedDict does).
                obj = st.value_from_json(text)
                expected = st.value_to_text(obj, p)
                back, _ = t.ask({"op": "loads", "max_protocol": 5}, [frames[0]])
                assert back["ok"], (text, p, back)
                ok, why = equal(json.dumps(back["value"]), expected)
                assert ok, (text, p, back["value"], why)
                # This interpreter's own pickle of the object loads alike.
                theirs, _ = t.ask({"op": "loads", "max_protocol": 5}, [pickle.dumps(obj, p)])
                ok, why = equal(json.dumps(theirs["value"]), expected)
                assert ok, (text, p, theirs, why)
                tried += 1
    print("  %d values x protocols" % tried)


def test_persistent_ids_dump_and_load_at_every_protocol():
    for preset in ("pickle", "pickle-py"):
        with adapter("--preset", preset) as t:
            caps = t.hello()["capabilities"]
            assert "persid" in caps["kinds"], caps
            for value in ({"persid": "abc"}, {"list": [{"persid": {"tuple": [1, "x"]}}, 2]}):
                for p in caps["write_protocols"]:
                    if p == 0 and "tuple" in str(value):
                        continue  # PERSID writes str(pid): the tuple comes back as text
                    doc, frames = t.ask({"op": "dumps", "value": value, "protocol": p,
                                         "out_of_band": False})
                    if PY2 and preset == "pickle" and p == 0:
                        # cPickle takes only a byte string as a protocol-0 pid.
                        assert doc["error"]["kind"] == "unsupported", doc
                        continue
                    assert doc["ok"], (preset, value, p, doc)
                    back, _ = t.ask({"op": "loads", "max_protocol": 5}, frames[:1])
                    if PY2 and p == 0:
                        # Python 2 reads PERSID's line as its str: str-bytes.
                        value = {"persid": {"bytes": "616263"}}
                    assert back.get("value") == value, (preset, value, p, back)


def test_python2_says_what_it_cannot_write():
    if not PY2:
        skip("Python 2 only: Python %s writes bytes and surrogate pairs as they are" % VERSION)
    with adapter("--preset", "pickle") as t:
        t.hello()
        for value in ({"bytes": "00ff"}, {"str-utf8sp": "eda0bdedb880"}):
            doc, _ = t.ask({"op": "dumps", "value": value, "protocol": 2, "out_of_band": False})
            assert doc["error"]["kind"] == "unsupported", (value, doc)
        # The same values load: the mapping holds that way round.
        doc, _ = t.ask({"op": "loads", "max_protocol": 2},
                       [b"\x80\x02c_codecs\nencode\nX\x02\x00\x00\x00\xc3\xbfU\x06latin1\x86R."])
        assert doc["value"] == {"bytes": "ff"}, doc


def test_the_python2_mapping_in_this_process():
    # Holds on every version: str is text, bytes is bytes, ints of any size.
    assert type(st.value_from_json('"a"')) is st.TEXT
    assert type(st.value_from_json('{"bytes":"61"}')) is st.BYTES
    assert st.value_from_json('{"int":"123456789012345678901234567890"}') == \
        123456789012345678901234567890
    assert type(st.value_from_json("5")) is int
    assert st.value_to_text(st.BYTES(b"ab")) == '{"bytes":"6162"}'
    assert st.value_to_text(st.TEXT("ab")) == '"ab"'
    if PY2:
        assert st.value_to_text(long(5)) == "5"  # noqa: F821
        assert st.value_to_text(len) == '{"global":["builtins","len"]}'
        assert st.value_to_text(unicode) == '{"global":["builtins","str"]}'  # noqa: F821
        assert st.value_from_json('{"global":["builtins","str"]}') is unicode  # noqa: F821
        assert st.value_from_json('{"global":["copyreg","_reconstructor"]}') is \
            st.copyreg._reconstructor
        assert st.value_to_text(ValueError) == '{"global":["builtins","ValueError"]}'


# ---------------------------------------------------------------------------
# Python 2 and 3: loads' encoding= and fix_imports=, dumps' fix_imports=
# (cross.py2, docs/testee-protocol.md)

# What cPickle 2.7 writes at protocol 2 for the str '\xe9t\xe9' (a
# SHORT_BINSTRING), and for set([1]) (a __builtin__ name).
PY2_STR = b"\x80\x02U\x03\xe9t\xe9q\x01."
PY2_SET = b"\x80\x02c__builtin__\nset\nq\x01]q\x02K\x01a\x85Rq\x03."


def test_python2_choices_are_claimed_by_the_pickle_presets_on_python3():
    for preset in ("pickle", "pickle-py"):
        with adapter("--preset", preset) as t:
            caps = t.hello()["capabilities"]
            assert caps.get("python2_choices", False) is (not PY2), (preset, caps)


def test_loads_honours_encoding_and_fix_imports():
    with adapter("--preset", "pickle") as t:
        t.hello()
        if PY2:
            # Python 2's pickle has neither: refused, never answered as if
            # they were the defaults.
            for field, value in (("encoding", "latin1"), ("fix_imports", False)):
                doc, _ = t.ask({"op": "loads", "max_protocol": 2, field: value}, [PY2_STR])
                assert doc["error"]["kind"] == "unsupported", (field, doc)
            return
        answers = {}
        for encoding in ("ASCII", "latin1", "bytes"):
            answers[encoding], _ = t.ask({"op": "loads", "max_protocol": 2,
                                          "encoding": encoding}, [PY2_STR])
        assert answers["latin1"]["value"] == u"\xe9t\xe9", answers
        assert answers["bytes"]["value"] == {"bytes": "e974e9"}, answers
        error = answers["ASCII"]["error"]
        assert error["kind"] == "UnicodeDecodeError" and "ascii" in error["message"], error
        doc, _ = t.ask({"op": "loads", "max_protocol": 2}, [PY2_SET])
        assert doc["value"] == {"set": [1]}, doc
        doc, _ = t.ask({"op": "loads", "max_protocol": 2, "fix_imports": False}, [PY2_SET])
        assert not doc["ok"] and "__builtin__" in doc["error"]["message"], doc
        doc, _ = t.ask({"op": "loads", "max_protocol": 2, "encoding": 5}, [PY2_STR])
        assert doc["error"]["kind"] == "bad-request", doc


def test_dumps_honours_fix_imports():
    request = {"op": "dumps", "value": {"set": [1]}, "protocol": 2, "out_of_band": False}
    with adapter("--preset", "pickle") as t:
        t.hello()
        doc, written = t.ask(request)
        assert doc["ok"] and b"c__builtin__\nset\n" in written[0], (doc, written)
        doc, written = t.ask(dict(request, fix_imports=False))
        if PY2:
            assert doc["error"]["kind"] == "unsupported", doc
            return
        assert doc["ok"] and b"cbuiltins\nset\n" in written[0], (doc, written)
        doc, _ = t.ask(dict(request, fix_imports="no"))
        assert doc["error"]["kind"] == "bad-request", doc


def test_python2_writes_bytes_beyond_ascii_for_a_reader_that_chooses():
    if not PY2:
        skip("Python 2 only: Python %s writes bytes as bytes" % VERSION)
    request = {"op": "dumps", "value": {"bytes": "e974e9"}, "protocol": 2, "out_of_band": False}
    with adapter("--preset", "pickle") as t:
        t.hello()
        doc, _ = t.ask(request)
        assert doc["error"]["kind"] == "unsupported", doc
        doc, written = t.ask(dict(request, reader_chooses_encoding=True))
        assert doc["ok"] and b"U\x03\xe9t\xe9" in written[0], (doc, written)


# ---------------------------------------------------------------------------
# Fixture classes a version cannot have

# The state each class's reduce has (protocol 2): a __dict__, the
# (None, slots) pair, or the list a frozen slots dataclass's __getstate__ gives.
STATES = {"SlotRecord": {"tuple": [None, {"dict": [["a", 1], ["b", 2]]}]},
          "FrozenSlotRecord": {"list": [1, 2]}}


def fixture_object(name):
    return {"object": {"callable": {"global": ["copyreg", "__newobj__"]},
                       "args": {"tuple": [{"global": ["serialcheck_fixtures", name]}]},
                       "state": STATES.get(name, {"dict": [["a", 1], ["b", 2]]})}}


def fixture_answers(t, names):
    out = {}
    for name in names:
        doc, _ = t.ask({"op": "dumps", "value": fixture_object(name), "protocol": 2,
                        "out_of_band": False})
        out[name] = doc
    return out


def missing_fixture_problems(answers, missing):
    """A class this version lacks must be `unsupported`; the others must work."""
    problems = []
    for name, doc in answers.items():
        if name in missing:
            if doc.get("ok") or doc["error"]["kind"] != "unsupported":
                problems.append("%s: %r, not unsupported" % (name, doc))
        elif not doc.get("ok"):
            problems.append("%s: %r" % (name, doc))
    return problems


NAMES = ["Plain", "Record", "FrozenRecord", "SlotRecord", "FrozenSlotRecord"]
# Removes Record from the fixtures module, as a Python without dataclasses has it.
WITHOUT_RECORD = ("import serialcheck_fixtures as f\n"
                  "f.__dict__.pop('Record', None)\n"
                  "f.MISSING_HERE = f.MISSING_HERE | frozenset(['Record'])")


def test_a_fixture_class_this_version_lacks_is_unsupported():
    import serialcheck_fixtures
    missing = set(serialcheck_fixtures.MISSING_HERE)
    with adapter("--preset", "pickle") as t:
        t.hello()
        problems = missing_fixture_problems(fixture_answers(t, NAMES), missing)
        assert not problems, problems
        # In a load too: a pickle naming it (written by hand, as 3.11 does).
        doc, _ = t.ask({"op": "loads", "max_protocol": 5},
                       [b"\x80\x02cserialcheck_fixtures\nRecord\nq\x00)\x81q\x01."])
        if "Record" in missing:
            assert doc["error"]["kind"] == "AttributeError", doc
    # Where this version has every class, a stand-in without one.
    with stand_in(WITHOUT_RECORD, "--preset", "pickle") as t:
        t.hello()
        problems = missing_fixture_problems(fixture_answers(t, NAMES), missing | {"Record"})
        assert not problems, problems


def test_a_name_that_exists_nowhere_is_still_an_error():
    with adapter("--preset", "pickle") as t:
        t.hello()
        for value in ({"global": ["serialcheck_fixtures", "NoSuchClass"]},
                      {"global": ["m_no_such_module", "x"]}):
            doc, _ = t.ask({"op": "dumps", "value": value, "protocol": 2,
                            "out_of_band": False})
            assert doc["error"]["kind"] in ("AttributeError", "ImportError",
                                            "ModuleNotFoundError"), (value, doc)


def test_a_newer_standard_library_name_is_unsupported_where_missing():
    names = [("graphlib", "TopologicalSorter", (3, 9), None),
             ("types", "SimpleNamespace", (3, 3), None),
             ("telnetlib", "Telnet", None, (3, 13))]
    with adapter("--preset", "pickle") as t:
        t.hello()
        for module, name, added, removed in names:
            doc, _ = t.ask({"op": "dumps", "value": {"global": [module, name]},
                            "protocol": 2, "out_of_band": False})
            here = sys.version_info[:2]
            missing = (added and here < added) or (removed and here >= removed)
            if missing:
                assert doc["error"]["kind"] == "unsupported", (module, name, doc)
            else:
                assert doc["ok"], (module, name, doc)


def test_a_missing_fixture_answered_with_an_error_is_caught():
    # Negative control: a testee that answers it with its AttributeError.
    code = WITHOUT_RECORD + "\nst._missing_here = lambda *args: None"
    with stand_in(code, "--preset", "pickle") as t:
        t.hello()
        problems = missing_fixture_problems(fixture_answers(t, ["Record"]), {"Record"})
    assert problems and "not unsupported" in problems[0], problems


# ---------------------------------------------------------------------------
# --package-dir

FAKE_CLOUDPICKLE = '''
import os, sys
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if any(os.path.abspath(p or ".") == here for p in sys.path):
    raise ImportError("the package directory is on sys.path")
from cloudpickle.sub import dumps, CloudPickler
__version__ = "0.0-from-package-dir"
'''
FAKE_SUB = "from pickle import dumps, Pickler as CloudPickler\n"


def package_dir(init):
    d = tempfile.mkdtemp(prefix="sc-package-dir-")
    os.mkdir(os.path.join(d, "cloudpickle"))
    with open(os.path.join(d, "cloudpickle", "__init__.py"), "w") as f:
        f.write(init)
    with open(os.path.join(d, "cloudpickle", "sub.py"), "w") as f:
        f.write(FAKE_SUB)
    return d


def test_package_dir_imports_the_package_from_there_alone():
    d = package_dir(FAKE_CLOUDPICKLE)
    try:
        with adapter("--preset", "cloudpickle", "--package-dir", d) as t:
            hello = t.hello()
            assert hello["ok"] and hello["version"] == "0.0-from-package-dir", hello
            doc, frames = t.ask({"op": "dumps", "value": {"list": [1]}, "protocol": 2,
                                 "out_of_band": False})
            assert doc["ok"] and frames[0] == pickle.dumps([1], 2), doc
    finally:
        shutil.rmtree(d)


def test_a_package_that_does_not_import_is_unavailable_with_the_reason():
    d = package_dir("raise ImportError('needs Python 9')\n")
    try:
        with adapter("--preset", "cloudpickle", "--package-dir", d) as t:
            hello = t.hello()
        assert hello["error"]["kind"] == "unavailable", hello
        assert "needs Python 9" in hello["error"]["message"], hello
        assert VERSION in hello["error"]["message"], hello
        with adapter("--preset", "dill", "--package-dir", d) as t:
            hello = t.hello()
        assert hello["error"]["kind"] == "unavailable", hello
        assert "no package dill in" in hello["error"]["message"], hello
    finally:
        shutil.rmtree(d)


def test_package_dir_with_debians_packages():
    where = "/usr/lib/python3/dist-packages"
    found = [p for p in ("cloudpickle", "dill") if os.path.isdir(os.path.join(where, p))]
    if not found:
        skip("no cloudpickle or dill in %s" % where)
    for preset in found:
        with adapter("--preset", preset, "--package-dir", where) as t:
            hello = t.hello()
            if not hello["ok"]:
                # An error that says why, as the runner shows it.
                assert hello["error"]["kind"] == "unavailable", hello
                assert VERSION in hello["error"]["message"], hello
                print("  %s: unavailable: %s" % (preset, hello["error"]["message"][:160]))
                continue
            assert hello["capabilities"].get("by_value") is True, hello
            doc, frames = t.ask({"op": "define-dumps", "source": "def subject(a):\n"
                                 "    return a + 1\n", "inputs": [[[1], {}]], "protocol": 2})
            assert doc["ok"] and doc["results"] == [["value", "2"]], doc
        with adapter("--preset", preset, "--package-dir", where) as fresh:
            fresh.ask({"op": "hello", "protocol": 1, "only": "load-call"})
            doc, _ = fresh.ask({"op": "load-call", "inputs": [[[1], {}]]}, frames)
            assert doc["ok"] and doc["results"] == [["value", "2"]], doc
        print("  %s %s: by value, loaded in a fresh adapter" % (preset, hello["version"]))


# ---------------------------------------------------------------------------
# serialcheck testee-check

def test_testee_check_passes_for_the_pickle_presets():
    command = os.environ.get("SERIALCHECK")
    if not command or not os.path.exists(command):
        skip("SERIALCHECK does not name the serialcheck command (%r)" % (command,))
    for preset in ("pickle", "pickle-py"):
        proc = subprocess.Popen([command, "testee-check", "--", sys.executable, ADAPTER,
                                 "--preset", preset] + LEAN,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.communicate()[0].decode("utf-8", "replace")
        assert proc.returncode == 0, out
        print("  %s: %s" % (preset, out.strip().splitlines()[-1]))


# ---------------------------------------------------------------------------
# cross.stdlib: the recipes this interpreter builds, and dumps-recipe and
# loads-recipe through the adapter

import serialcheck_stdlib as stdlib  # noqa: E402

# Recipes every interpreter here builds and reads back from its own pickle,
# at every protocol it writes (Python 2.7 has no datetime.timezone, enum,
# pathlib...; what else fails on one version alone is listed in
# known-failures.txt and docs/versions.md, not here).
EVERYWHERE = ("datetime.date:0", "datetime.timedelta:0", "decimal.Decimal:1",
              "decimal.Decimal:2", "fractions.Fraction:0", "complex:1", "int:0",
              "collections.OrderedDict:0", "collections.defaultdict:0", "collections.deque:0",
              "collections.Counter:0", "collections.namedtuple:2", "time.struct_time:0",
              "uuid.UUID:0", "range:0", "slice:0", "functools.partial:1",
              "builtins.ValueError:0", "builtins.OSError:0")


def test_every_recipe_builds_or_says_why():
    built = {}
    for recipe in stdlib.RECIPES:
        try:
            built[recipe] = stdlib.build(recipe)
        except stdlib.Inexpressible as e:
            assert str(e), recipe
            continue
        assert stdlib.same(stdlib.build(recipe), stdlib.build(recipe)), recipe
        assert stdlib.describe(stdlib.build(recipe)), recipe
    for recipe in EVERYWHERE:
        assert recipe in built, "%s does not build on %s" % (recipe, VERSION)
    # same() tells the variants of a kind apart, and kinds from each other.
    for a in built:
        for b in built:
            if a != b:
                assert not stdlib.same(stdlib.build(a), stdlib.build(b)), (a, b)
    # Within one recipe's type, what the key holds: a methodcaller's name and
    # keywords, a deque's maxlen, a Decimal's sign of zero, a datetime's fold.
    import collections, decimal, operator
    near = [("operator.methodcaller:0", operator.methodcaller("encode", "ascii", errors="strict")),
            ("operator.methodcaller:0", operator.methodcaller("decode", "ascii", errors="replace")),
            ("collections.deque:0", collections.deque([1, "two", 3.0])),
            ("decimal.Decimal:1", decimal.Decimal("0"))]
    for recipe, other in near:
        if recipe in built:
            assert not stdlib.same(other, stdlib.build(recipe)), (recipe, other)
    for bad in ("decimal.Decimal", "decimal.Decimal:99", "nothing:0", ""):
        try:
            stdlib.build(bad)
        except stdlib.UnknownRecipe:
            continue
        raise AssertionError("build(%r) raised no UnknownRecipe" % bad)


def test_recipes_go_through_the_adapter_and_back():
    with adapter("--preset", "pickle") as t:
        hello = t.ask({"op": "hello", "protocol": 1})[0]
        assert hello["capabilities"].get("stdlib_recipes") is True, hello
        for recipe in EVERYWHERE:
            for protocol in hello["capabilities"]["write_protocols"]:
                doc, frames = t.ask({"op": "dumps-recipe", "recipe": recipe,
                                     "protocol": protocol})
                assert doc["ok"] and len(frames) == 1, (recipe, protocol, doc)
                back, _ = t.ask({"op": "loads-recipe", "recipe": recipe}, frames)
                assert back["ok"] and back["equal"] is True, (recipe, protocol, back)
                assert back["loaded"] == back["expected"], back
        # Another recipe's pickle is not equal; the reprs say both values.
        _, frames = t.ask({"op": "dumps-recipe", "recipe": "decimal.Decimal:1", "protocol": 2})
        other, _ = t.ask({"op": "loads-recipe", "recipe": "decimal.Decimal:2"}, frames)
        assert other["ok"] and other["equal"] is False, other
        assert "-0" in other["loaded"] and "NaN" in other["expected"], other
        # What this version cannot build is "inexpressible", never an error
        # of another kind; a name the adapter does not know is a bad request.
        for recipe in stdlib.RECIPES:
            try:
                stdlib.build(recipe)
                continue
            except stdlib.Inexpressible:
                pass
            doc, _ = t.ask({"op": "dumps-recipe", "recipe": recipe, "protocol": 2})
            assert doc["error"]["kind"] == "inexpressible", (recipe, doc)
            doc, _ = t.ask({"op": "loads-recipe", "recipe": recipe}, frames)
            assert doc["error"]["kind"] == "inexpressible", (recipe, doc)
        doc, _ = t.ask({"op": "dumps-recipe", "recipe": "no.such:0", "protocol": 2})
        assert doc["error"]["kind"] == "bad-request", doc
        # A pickle that does not load is the loader's error.
        doc, _ = t.ask({"op": "loads-recipe", "recipe": "int:0"}, [b"\x80\x02K"])
        assert not doc["ok"] and doc["error"]["kind"] not in ("inexpressible", "bad-request"), doc


# ---------------------------------------------------------------------------

def main():
    tests = sorted((k, v) for k, v in globals().items() if k.startswith("test_") and callable(v))
    wanted = sys.argv[1:]
    failed = skipped = 0
    print("%s %s: %s" % (st.platform.python_implementation(), VERSION, sys.executable))
    for name, test in tests:
        if wanted and not any(w in name for w in wanted):
            continue
        start = time.time()
        try:
            test()
        except Skip as e:
            skipped += 1
            print("SKIP %s: %s" % (name, e))
            continue
        except Exception:
            failed += 1
            print("FAIL %s\n%s" % (name, traceback.format_exc()))
            continue
        print("ok   %s (%.1f s)" % (name, time.time() - start))
    ran = len([t for t in tests if not wanted or any(w in t[0] for w in wanted)])
    print("%d tests: %d failed, %d skipped" % (ran, failed, skipped))
    if failed:
        return 1
    return 77 if skipped == ran else 0


if __name__ == "__main__":
    sys.exit(main())
