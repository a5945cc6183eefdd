"""Tests of serialcheck_pytest: the gate's cells become pytest outcomes.

A stand-in for the `serialcheck` command writes a known conformance.json,
and pytest runs a user's test file that calls gate_tests().
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

FAKE_SERIALCHECK = r'''#!%(python)s
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_ARGS"], "w") as f:
    json.dump(args, f)
report = args[args.index("--report") + 1]
cells = [
    {"subject": "mine", "property": "roundtrip.equal", "verdict": "pass", "cases": 5},
    {"subject": "mine", "property": "roundtrip.sharing", "verdict": "fail", "cases": 3,
     "fingerprint": "sharing", "message": "sharing differs at root[1]",
     "explanation": "the loader copied a list it should share",
     "case": {"list": [{"list": [], "id": 1}, {"ref": 1}]}},
    {"subject": "mine", "property": "zerocopy.nested", "verdict": "skip", "cases": 0,
     "skip_reason": "needs out_of_band"},
    {"subject": "mine", "property": "protocol.mismatch", "verdict": "expected-fail",
     "cases": 1, "known_reason": "listed"},
    {"subject": "mine", "property": "loads.rejects-malformed", "verdict": "unexpected-pass",
     "cases": 9},
]
with open(os.path.join(report, "conformance.json"), "w") as f:
    json.dump({"tool": "serialcheck", "cells": cells, "repeat": "serialcheck run --seed 7"}, f)
sys.exit(1)
'''

USER_TEST = '''
import serialcheck_pytest
test_gate = serialcheck_pytest.gate_tests(
    dumps="pickle:dumps", loads="pickle:loads", name="mine",
    serialcheck=%(fake)r, cases=5, seed=7)
'''


def run_pytest(tmp_path, fake):
    (tmp_path / "test_user.py").write_text(USER_TEST % {"fake": fake})
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
               FAKE_ARGS=str(tmp_path / "args.json"))
    return subprocess.run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider",
                           str(tmp_path / "test_user.py")], cwd=str(tmp_path), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_cells_become_pytest_outcomes(tmp_path):
    fake = tmp_path / "serialcheck"
    fake.write_text(FAKE_SERIALCHECK % {"python": sys.executable})
    fake.chmod(0o755)
    done = run_pytest(tmp_path, str(fake))
    out = done.stdout.decode()
    assert "2 failed, 2 passed, 1 skipped" in out, out
    assert "PASSED test_user.py::test_gate[mine-roundtrip.equal]" in out
    assert "FAILED test_user.py::test_gate[mine-roundtrip.sharing]" in out
    assert "the loader copied a list it should share" in out
    assert "replay: serialcheck run --seed 7" in out
    assert "needs out_of_band" in out
    args = json.loads((tmp_path / "args.json").read_text())
    assert args[0] == "run" and args[1] == "--testee"
    assert args[2].startswith("mine=") and "serialcheck_testee.py" in args[2]
    assert "--dumps pickle:dumps --loads pickle:loads" in args[2]
    assert args[3:5] == ["--subjects", "mine"] and "--no-save" in args
    assert args[args.index("--cases") + 1] == "5" and args[args.index("--seed") + 1] == "7"


def test_a_missing_serialcheck_is_one_skipped_test(tmp_path):
    done = run_pytest(tmp_path, "no-such-serialcheck-command")
    out = done.stdout.decode()
    assert "1 skipped" in out and "not found" in out, out
