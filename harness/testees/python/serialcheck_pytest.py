"""Run serialcheck's conformance gate from a Python project's own pytest suite.

In a test file of your project (or conftest.py):

    import serialcheck_pytest

    test_serialcheck = serialcheck_pytest.gate_tests(
        dumps="mypickle:dumps", loads="mypickle:loads",
        paths=["src"],              # where mypickle lives (the working tree)
        cases=100, seed=12345)

pytest then shows one test per cell of the gate (subject x property):
`test_serialcheck[mypickle-roundtrip.equal]` passes, fails with the
message, the explanation and the command that replays the case, or is
skipped with serialcheck's reason. The gate runs once, when pytest
collects the tests: `serialcheck run --testee NAME="<python>
serialcheck_testee.py ..." --subjects NAME --report DIR --no-save`.

Only the standard library and pytest are needed here; the `serialcheck`
command must be on PATH or named with `serialcheck=`. When it is missing,
the gate is one skipped test that says so.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import pytest

ADAPTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serialcheck_testee.py")

# verdicts, as harness/report/json_report.cpp writes them
FAILING = ("fail", "unexpected-pass")

_runs = {}  # one gate run per distinct configuration and session


def testee_command(dumps=None, loads=None, preset=None, python=None, paths=(), name=None,
                   adapter_args=()):
    """The command line that starts the adapter for this serializer."""
    argv = [python or sys.executable, ADAPTER]
    if preset:
        argv += ["--preset", preset]
    for p in paths:
        argv += ["--path", os.path.abspath(p)]
    if dumps:
        argv += ["--dumps", dumps]
    if loads:
        argv += ["--loads", loads]
    if name:
        argv += ["--name", name]
    argv += list(adapter_args)
    return " ".join(shlex.quote(a) for a in argv)


def run_gate(dumps=None, loads=None, preset=None, name="subject", serialcheck="serialcheck",
             python=None, paths=(), cases=None, seed=None, properties=None,
             known_failures=None, time_budget=None, adapter_args=(), run_args=(),
             report_dir=None, env=None, timeout=None):
    """Runs the gate once and returns (report dict or None, why no report).

    `report_dir` keeps conformance.json (and the Markdown and JUnit reports)
    there; by default a temporary folder is used."""
    exe = shutil.which(serialcheck) if os.path.sep not in serialcheck else serialcheck
    if not exe or not os.path.exists(exe):
        return None, "the serialcheck command is not found (%r): build serialcheck and put " \
                     "it on PATH, or pass serialcheck=PATH" % serialcheck
    command = testee_command(dumps, loads, preset, python, paths, None, adapter_args)
    report_dir = report_dir or tempfile.mkdtemp(prefix="serialcheck-gate-")
    argv = [exe, "run", "--testee", "%s=%s" % (name, command), "--subjects", name,
            "--report", report_dir, "--no-save"]
    if cases is not None:
        argv += ["--cases", str(cases)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if properties:
        argv += ["--properties", ",".join(properties) if not isinstance(properties, str)
                 else properties]
    if known_failures:
        argv += ["--known-failures", known_failures]
    if time_budget is not None:
        argv += ["--time-budget", str(time_budget)]
    argv += list(run_args)
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=full_env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "serialcheck run took more than %s s: %s" % (timeout, _quote(argv))
    path = os.path.join(report_dir, "conformance.json")
    if not os.path.exists(path):
        tail = done.stdout.decode("utf-8", "replace")[-4000:]
        return None, "serialcheck run exited with %d and wrote no report:\n%s\n%s" % (
            done.returncode, _quote(argv), tail)
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    report["_command"] = _quote(argv)
    return report, None


def _quote(argv):
    return " ".join(shlex.quote(a) for a in argv)


def cell_id(cell):
    return "%s-%s" % (cell.get("subject", "?"), cell.get("property", "?"))


def describe_failure(cell, report):
    """The text a failing cell's test shows."""
    lines = ["%s: %s on %s" % (cell.get("verdict"), cell.get("property"), cell.get("subject"))]
    for key in ("message", "explanation", "fingerprint", "known_reason"):
        if cell.get(key):
            lines.append("%s: %s" % (key, cell[key]))
    if "case" in cell:
        lines.append("minimal case: %s" % json.dumps(cell["case"])[:2000])
    replay = cell.get("replay") or report.get("repeat") or report.get("_command")
    if replay:
        lines.append("replay: %s" % replay)
    return "\n".join(lines)


def check_cell(cell, report):
    """Passes, fails or skips as the cell's verdict says."""
    verdict = cell.get("verdict")
    if verdict in FAILING:
        pytest.fail(describe_failure(cell, report), pytrace=False)
    if verdict == "skip":
        pytest.skip(cell.get("skip_reason") or "skipped by serialcheck")
    # pass and expected-fail (a failure listed in the known-failures file)


def gate_tests(dumps=None, loads=None, preset=None, name=None, **options):
    """A pytest test function with one parametrized case per gate cell.

    dumps, loads: "MODULE:ATTR" of the functions under test (either may be
        left out for a writer or a reader only); preset: one of the
        adapter's presets instead (pickle, pickle-py, cloudpickle, dill,
        zodbpickle, zodbpickle-py).
    name: the subject's name in the gate (default: the module of dumps or
        loads, or the preset).
    Keyword options: serialcheck (the command, default "serialcheck"),
        python (the interpreter for the adapter, default this one), paths
        (folders put first on the adapter's sys.path: your working tree),
        cases, seed, properties (ids or a comma list), known_failures (a
        file), time_budget (seconds), adapter_args (more adapter flags, e.g.
        ["--cannot-express", "sharing"]), run_args (more `serialcheck run`
        flags), report_dir, env, timeout.

    Assign the result to a name starting with test_ in a test module."""
    if name is None:
        spec = dumps or loads
        name = spec.partition(":")[0].replace(".", "-") if spec else (preset or "subject")
    key = json.dumps([dumps, loads, preset, name, sorted(
        (k, repr(v)) for k, v in options.items())])
    if key not in _runs:
        _runs[key] = run_gate(dumps=dumps, loads=loads, preset=preset, name=name, **options)
    report, problem = _runs[key]

    if report is None:
        missing = problem.startswith("the serialcheck command is not found")

        def test_gate():
            if missing:
                pytest.skip(problem)
            pytest.fail(problem, pytrace=False)
        return test_gate

    cells = report.get("cells", [])
    if not cells:
        def test_gate():
            pytest.fail("serialcheck ran but reported no cells: %s" % report.get("_command"),
                        pytrace=False)
        return test_gate

    @pytest.mark.parametrize("cell", cells, ids=[cell_id(c) for c in cells])
    def test_gate(cell):
        check_cell(cell, report)
    return test_gate
