"""Smoke test of `serialcheck bench --quick`: the run finishes and writes a
complete report, and every benchmark either has a time or reports that its
subject's output was wrong (which the report must list; conformance itself is
gated by `serialcheck run`). Any other error (a subject that cannot run, a
failure while timed) fails the test, and so do bytes that differ from the C
pickler's where a subject claims them (`reference`, `reference-py`): their
ratios would compare different work. No timing is asserted.

Usage: check_report.py SERIALCHECK REPORT_DIR
"""

import json
import os
import shutil
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    serialcheck, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([serialcheck, "bench", "--quick", "--report", out],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(proc.stdout[-4000:])

    path = os.path.join(out, "bench.json")
    if not os.path.exists(path):
        fail("no bench.json (exit status %d)" % proc.returncode)
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    names = {r["name"] for r in runs}
    for subject in ("reference", "reference-py", "cpython", "cpython-py", "cloudpickle",
                    "distributed"):
        for op in ("dumps", "loads"):
            name = "%s/pyperf_dict/%s" % (op, subject)
            if name not in names:
                fail("bench.json has no " + name)
    if not any(n.startswith("memcpy/") for n in names):
        fail("bench.json has no memcpy benchmark")
    if "result/pyperf_dict/string" not in names:
        fail("bench.json has no result/pyperf_dict/string (the fresh string's cost)")
    errors = [(r["name"], r.get("error_message", "")) for r in runs if r.get("error_occurred")]
    for name, message in errors:
        print("error: %s: %s" % (name, message))
    timed = [r for r in runs if not r.get("error_occurred")]
    for r in timed:
        if r["name"].split("/")[0] in ("dumps", "loads") and not r.get("bytes_per_second"):
            fail(r["name"] + " reports no bytes_per_second")

    report = os.path.join(out, "perf.md")
    if not os.path.exists(report):
        fail("no perf.md")
    with open(report) as f:
        text = f.read()
    for heading in ("## Targets for the reference", "## Speed relative to the C pickler",
                    "## Throughput of single buffers", "## Returning the bytes", "## Errors",
                    "## Plots"):
        if heading not in text:
            fail("perf.md has no section " + heading)
    try:
        import matplotlib  # noqa: F401
        for png in ("throughput_inband.png", "throughput_oob.png", "bars_pyperf_dict.png"):
            p = os.path.join(out, png)
            if not os.path.exists(p) or os.path.getsize(p) == 0:
                fail("no plot " + png)
    except ImportError:
        print("matplotlib is missing: plots not checked")

    differ = [name for name, message in errors if "bytes differ from the C pickler's" in message]
    if differ:
        fail("bytes differ from the C pickler's: %s" % ", ".join(differ))
    if "| reference | reference-py |" not in text:
        fail("perf.md has no reference-py column beside the reference's")
    wrong = [name for name, message in errors if message.startswith("wrong output:")]
    for name in wrong:
        if name not in text:
            fail("perf.md does not list the error of " + name)
    other = [name for name, message in errors if name not in wrong]
    if other:
        fail("%d benchmarks could not run: %s" % (len(other), ", ".join(other)))
    if proc.returncode != (1 if errors else 0):
        fail("serialcheck bench exited with %d" % proc.returncode)
    if wrong:
        print("note: %d benchmarks report a wrong output (listed in perf.md)" % len(wrong))
    print("OK: %d benchmarks, report in %s" % (len(runs), out))


if __name__ == "__main__":
    main()
