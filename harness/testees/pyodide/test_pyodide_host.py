"""Drives the Pyodide host (host.js) over the testee protocol: for each
CPython version package.json declares, `serialcheck testee-check` with the
pickle and pickle-py presets; and, on one installed version, the controls:
a version that is not installed is refused as unavailable, standard output
carries protocol messages only however loudly the serializer prints, the
framing survives split and back-to-back messages, a document too deep for
WebAssembly's stack gets an answer instead of a crash, --list, bad command
lines, and by-value pickling (define-dumps in one process, load-call in
another) with Debian's cloudpickle mounted into Pyodide.

Run: /usr/bin/python3 -m pytest -q -rs harness/testees/pyodide/test_pyodide_host.py
Environment:
  SERIALCHECK_CLI   the serialcheck binary (default: build/bin/serialcheck)
  SC_PYODIDE_ONLY   X.Y: only that version's testee-check; "controls": only
                    the controls (ctest runs one test of each)
Skips, with the reason, when node, a version's npm package or the
serialcheck binary is missing (scripts/setup runs npm ci for this folder).
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
HOST = os.path.join(HERE, "host.js")
NODE = shutil.which("node")
CLI = os.environ.get("SERIALCHECK_CLI") or os.path.join(ROOT, "build", "bin", "serialcheck")
ONLY = os.environ.get("SC_PYODIDE_ONLY", "")
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
EXIT_UNAVAILABLE = 3

if NODE is None:
    pytest.skip("node is not installed (scripts/setup installs it)", allow_module_level=True)

sys.path.insert(0, os.path.dirname(HERE))
from testee_wire import Child, encode_message, read_message  # noqa: E402


def _declared():
    with open(os.path.join(HERE, "package.json")) as f:
        deps = json.load(f).get("dependencies", {})
    out = [a[len("pyodide-"):] for a in deps if a.startswith("pyodide-")]
    return sorted(out, key=lambda v: tuple(int(x) for x in v.split(".")))


DECLARED = _declared()


def _installed():
    """{X.Y: the --list line} of the versions the host finds."""
    out = subprocess.run([NODE, HOST, "--list"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return {d["python"]: d for d in map(json.loads, out.stdout.splitlines())}


INSTALLED = _installed()


def need(version):
    if version not in INSTALLED:
        pytest.skip("Pyodide for Python %s (npm alias pyodide-%s) is not installed: run "
                    "scripts/setup (npm ci --prefix harness/testees/pyodide)" % (version, version))


def need_cli():
    if not os.access(CLI, os.X_OK):
        pytest.skip("no serialcheck binary at %s (build it, or set SERIALCHECK_CLI)" % CLI)


def control_version():
    """The version the controls run on: the newest stable one installed."""
    stable = [v for v in DECLARED if v in INSTALLED and
              not any(c in INSTALLED[v]["interpreter"] for c in "abr")]
    if not stable:
        pytest.skip("no stable Pyodide is installed: run scripts/setup")
    return stable[-1]


def controls(f):
    return pytest.mark.skipif(ONLY not in ("", "controls"),
                              reason="SC_PYODIDE_ONLY=%s runs one version's checks" % ONLY)(f)


def host(*args):
    return [NODE, HOST] + list(args)


def run_testee_check(argv, timeout=300):
    out = subprocess.run([CLI, "testee-check", "--start-timeout", "60", "--"] + argv,
                         capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return out.returncode, out.stdout + out.stderr


# --------------------------------------------------------------------------
# Each version: the adapter's two pickle presets pass every check.

@pytest.mark.skipif(ONLY == "controls", reason="SC_PYODIDE_ONLY=controls: the controls only")
@pytest.mark.parametrize("preset", ["pickle", "pickle-py"])
@pytest.mark.parametrize("version", [v for v in DECLARED if ONLY in ("", "controls", v)])
def test_testee_check(version, preset):
    need(version)
    need_cli()
    rc, out = run_testee_check(host("--python", version, "--preset", preset))
    assert rc == 0 and "0 failed" in out, out
    assert "ok   hello: %s %s" % (preset, INSTALLED[version]["interpreter"]) in out, out
    # The C pickler runs in Pyodide and claims CPython's bytes.
    if preset == "pickle":
        assert "C _pickle" in out and "cpython_bytes" in out, out


# --------------------------------------------------------------------------
# Controls.

@controls
def test_list_names_what_is_installed():
    for version, d in INSTALLED.items():
        assert set(d) == {"python", "interpreter", "pyodide", "package"}, d
        assert d["package"] == "pyodide-" + version
        assert d["interpreter"].startswith(version + "."), d
        assert os.path.isdir(os.path.join(HERE, "node_modules", d["package"]))
    for version in DECLARED:
        if os.path.isfile(os.path.join(HERE, "node_modules", "pyodide-" + version, "package.json")):
            assert version in INSTALLED


@controls
def test_missing_version_is_unavailable():
    # 2.7 is never a Pyodide: the host refuses the hello with the reason.
    t = Child(host("--python", "2.7", "--preset", "pickle"))
    doc, _ = t.request({"op": "hello", "protocol": 1})
    assert doc["ok"] is False and doc["error"]["kind"] == "unavailable", doc
    assert "Python 2.7" in doc["error"]["message"], doc
    doc, _ = t.request({"op": "dumps", "value": 1, "protocol": 2, "out_of_band": False})
    assert doc["ok"] is False and doc["error"]["kind"] == "unavailable", doc
    assert t.request({"op": "shutdown"})[0] == {"ok": True}
    assert t.proc.wait(timeout=10) == 0
    assert t.proc.stdout.read() == b""
    err = t.proc.stderr.read().decode()
    assert err.count("\n") == 1 and "2.7" in err, err
    t.close()
    # Input that ends without a shutdown: the distinct status.
    p = subprocess.run(host("--python", "2.7"), input=b"", capture_output=True, timeout=30)
    assert p.returncode == EXIT_UNAVAILABLE and p.stdout == b"", p
    assert b"Python 2.7" in p.stderr


@controls
def test_testee_check_reports_missing_version_unavailable():
    need_cli()
    rc, out = run_testee_check(host("--python", "2.7", "--preset", "pickle"), timeout=60)
    assert rc == 1 and "unavailable" in out and "Python 2.7" in out, out


@controls
def test_bad_command_lines():
    p = subprocess.run(host(), capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--python" in p.stderr and p.stdout == "", p
    p = subprocess.run(host("--python", "3.12", "--mount", "/no/such/dir=/x"),
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "/no/such/dir" in p.stderr and p.stdout == "", p
    p = subprocess.run(host("--python", "3.12", "--mount", "relative"),
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and p.stdout == "", p
    p = subprocess.run(host("--help"), capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "--python X.Y" in p.stdout and "--list" in p.stdout, p


@controls
def test_adapter_command_line_error():
    version = control_version()
    p = subprocess.run(host("--python", version, "--preset", "no-such-preset"),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "no-such-preset" in p.stderr and p.stdout == "", p


NOISY = '''\
import os, pickle, sys
print("NOISE-import")
def dumps(obj, protocol=None, **kw):
    print("NOISE-print")
    sys.stdout.flush()
    os.write(1, b"NOISE-fd1\\n")
    sys.__stdout__.write("NOISE-dunder\\n")
    sys.__stdout__.flush()
    return pickle.dumps(obj, protocol=protocol, **kw)
def loads(data, **kw):
    print("NOISE-partial", end="")
    return pickle.loads(data, **kw)
'''


@controls
def test_stdout_carries_only_messages(tmp_path):
    """A serializer that prints (print, os.write(1), sys.__stdout__) in
    import, dumps and loads: every byte on standard output is a message,
    the noise is on standard error; framing holds for a message split into
    single bytes, two messages in one write, a NaN document with a frame,
    and a document too deep for the stack."""
    version = control_version()
    (tmp_path / "noisy_pickle.py").write_text(NOISY)
    t = Child(host("--python", version, "--mount", "%s=/noisy" % tmp_path, "--",
                   "--path", "/noisy", "--dumps", "noisy_pickle:dumps",
                   "--loads", "noisy_pickle:loads"))
    try:
        doc, _ = t.request({"op": "hello", "protocol": 1})
        assert doc["ok"], doc
        doc, frames = t.request({"op": "dumps", "value": {"list": [1, "a"]}, "protocol": 2,
                                 "out_of_band": False})
        assert doc["ok"] and frames[0].endswith(b"."), doc
        doc = t.loads(frames[0])
        assert doc == {"ok": True, "value": {"list": [1, "a"]}}, doc

        m = encode_message({"op": "dumps", "value": 7, "protocol": 2, "out_of_band": False})
        for i in range(len(m)):
            t.proc.stdin.write(m[i:i + 1])
            t.proc.stdin.flush()
            if i % 16 == 0:
                time.sleep(0.001)
        assert read_message(t.proc.stdout) == ({"ok": True, "frame_lengths": [5]},
                                                [b"\x80\x02K\x07."])
        t.proc.stdin.write(m + m)
        t.proc.stdin.flush()
        assert read_message(t.proc.stdout)[1] == [b"\x80\x02K\x07."]
        assert read_message(t.proc.stdout)[1] == [b"\x80\x02K\x07."]

        # JavaScript's JSON.parse refuses NaN, Python's json reads it: the
        # frame after the document must still be taken as its frame.
        body = b'{"op":"loads","max_protocol":5,"writeable":[],"x":NaN,"frame_lengths":[5]}'
        t.proc.stdin.write(struct.pack("<I", len(body)) + body + b"\x80\x04K\x01.")
        t.proc.stdin.flush()
        assert read_message(t.proc.stdout)[0] == {"ok": True, "value": 1}

        # Deeper than the interpreter's recursion limit: an answer, not a crash.
        depth = 100000
        body = ('{"op":"dumps","protocol":4,"out_of_band":false,"value":' +
                '{"list":[' * depth + ']}' * depth + '}').encode()
        t.proc.stdin.write(struct.pack("<I", len(body)) + body)
        t.proc.stdin.flush()
        doc, _ = read_message(t.proc.stdout)
        assert doc["ok"] is False and doc["error"]["kind"] == "RecursionError", doc
        doc = t.loads(b"\x80\x04K\x02.")
        assert doc == {"ok": True, "value": 2}, doc

        assert t.request({"op": "shutdown"})[0] == {"ok": True}
        assert t.proc.wait(timeout=30) == 0
        assert t.proc.stdout.read() == b"", "bytes after the shutdown answer"
        err = t.proc.stderr.read().decode()
        for noise in ("NOISE-import", "NOISE-print", "NOISE-fd1", "NOISE-dunder",
                      "NOISE-partial"):
            assert noise in err, (noise, err)
    finally:
        t.close()


def _cloudpickle_version():
    """A version on which Debian's cloudpickle imports (2.2.0 predates 3.12)."""
    if not os.path.isfile(os.path.join(DIST_PACKAGES, "cloudpickle", "__init__.py")):
        pytest.skip("cloudpickle is not in %s (Debian: python3-cloudpickle)" % DIST_PACKAGES)
    for v in ("3.10", "3.11"):
        if v in INSTALLED:
            return v
    pytest.skip("neither Pyodide 3.10 nor 3.11 (where Debian's cloudpickle 2.2 imports) "
                "is installed")


@controls
def test_by_value_in_two_processes():
    """cloudpickle from the host's dist-packages, mounted: define-dumps in one
    host, load-call in a second one started by the runner."""
    need_cli()
    version = _cloudpickle_version()
    with open(os.path.join(ROOT, "harness", "testees", "python", "serialcheck_testee.py")) as f:
        where = "--package-dir" if "--package-dir" in f.read() else "--path"
    rc, out = run_testee_check(host("--python", version, "--mount", DIST_PACKAGES + "=/dist", "--",
                                "--preset", "cloudpickle", where, "/dist"))
    assert "ok   hello: cloudpickle" in out, out
    assert "ok   define-dumps" in out and "ok   load-call in a fresh instance" in out, out
    assert rc == 0, out
