#!/usr/bin/python3
"""Tests of scripts/plot-matrix on synthetic conformance.json reports: the
producer x consumer picture, and the version matrix (versions.png) drawn
from the report's "version_matrix" in its order, each square the verdict of
its cross.matrix cell with the cases checked. Negative controls: a cell
whose verdict changes changes its square; a report with no version matrix
gets no versions.png, and --only versions then fails.

Usage: plot_matrix_test.py SOURCE_DIR (exit 77 when matplotlib is missing).
"""

import copy
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = None
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def load_script():
    path = os.path.join(SOURCE, "scripts", "plot-matrix")
    loader = importlib.machinery.SourceFileLoader("plot_matrix", path)
    spec = importlib.util.spec_from_loader("plot_matrix", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def entry(subject, label, kind, series):
    return {"subject": subject, "label": label, "kind": kind, "series": series}


def cell(writer, reader, verdict, cases=20, **more):
    c = {"subject": reader, "property": "cross.matrix/" + writer, "verdict": verdict,
         "cases": cases}
    c.update(more)
    return c


def synthetic_report():
    """Three CPythons and the reference; one failure, one known failure, one
    cell the time budget kept from running."""
    subjects = ["reference", "cpython", "cpython-3.7", "cpython-3.13-wasm"]
    cells = []
    for w in subjects:
        for r in subjects:
            if w == r:
                cells.append(cell(w, r, "skip", 0,
                                  skip_reason="a subject's own pickles are roundtrip.*'s business"))
            else:
                cells.append(cell(w, r, "pass"))
    verdicts = {("cpython-3.13-wasm", "cpython-3.7"): ("fail", 3),
                ("cpython", "cpython-3.7"): ("expected-fail", 5)}
    for c in cells:
        key = (c["property"][len("cross.matrix/"):], c["subject"])
        if key in verdicts:
            c["verdict"], c["cases"] = verdicts[key]
        if key == ("cpython-3.7", "cpython-3.13-wasm"):
            c.update(verdict="skip", cases=0, skip_reason="the time budget of 60 s ran out")
    order = [entry("cpython-3.7", "3.7", "native", "3.7"),
             entry("cpython", "3.11 (embedded)", "embedded", "3.11"),
             entry("cpython-3.13-wasm", "3.13 wasm", "wasm", "3.13"),
             entry("reference", "reference", "reference", "")]
    return {
        "seed": 1, "cases": 20, "subjects": subjects,
        "properties": ["cross.matrix/" + s for s in subjects],
        "python_versions": {"cpython": {"version": "3.11.2", "series": "3.11", "source": "build"}},
        "version_matrix": {"writers": order, "readers": order},
        "cells": cells,
    }


class PlotMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.script = os.path.join(SOURCE, "scripts", "plot-matrix")
        cls.module = load_script()

    def tmpdir(self):
        tmp = tempfile.mkdtemp(prefix="plot-matrix-test-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        return tmp

    def run_script(self, report, *args):
        tmp = self.tmpdir()
        path = os.path.join(tmp, "conformance.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f)
        proc = subprocess.run([sys.executable, self.script, path, *args],
                              capture_output=True, text=True, timeout=120)
        return proc, tmp

    def assert_png(self, path):
        self.assertTrue(os.path.exists(path), path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC, path)

    def test_draws_both_pictures_beside_the_report(self):
        proc, tmp = self.run_script(synthetic_report())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_png(os.path.join(tmp, "matrix.png"))
        self.assert_png(os.path.join(tmp, "versions.png"))

    def test_versions_out_and_only(self):
        tmp = self.tmpdir()
        out = os.path.join(tmp, "v.png")
        proc, report_dir = self.run_script(synthetic_report(), "--only", "versions",
                                           "--versions-out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_png(out)
        self.assertFalse(os.path.exists(os.path.join(report_dir, "matrix.png")))

    def test_squares_say_the_verdict_and_cases(self):
        report = synthetic_report()
        cells, _ = self.module.matrix_cells(report)
        out = os.path.join(self.tmpdir(), "versions.png")
        drawn = self.module.draw_versions(report, cells, out)
        self.assertEqual(len(drawn), 16)
        self.assertEqual(drawn[("cpython-3.7", "cpython")], "pass\n20")
        self.assertEqual(drawn[("cpython-3.13-wasm", "cpython-3.7")], "FAIL\n3")
        self.assertEqual(drawn[("cpython", "cpython-3.7")], "xfail\n5")
        self.assertEqual(drawn[("cpython-3.7", "cpython-3.13-wasm")], "not run")
        self.assertEqual(drawn[("cpython", "cpython")], "·")

    def test_a_changed_verdict_changes_its_square(self):
        # Negative control: the picture follows the cells, not a fixed layout.
        report = synthetic_report()
        changed = copy.deepcopy(report)
        for c in changed["cells"]:
            if c["subject"] == "cpython-3.7" and c["property"] == "cross.matrix/reference":
                c["verdict"], c["cases"] = "fail", 7
        out = os.path.join(self.tmpdir(), "versions.png")
        before = self.module.draw_versions(report, self.module.matrix_cells(report)[0], out)
        after = self.module.draw_versions(changed, self.module.matrix_cells(changed)[0], out)
        self.assertEqual(before[("reference", "cpython-3.7")], "pass\n20")
        self.assertEqual(after[("reference", "cpython-3.7")], "FAIL\n7")
        self.assertEqual({k: v for k, v in before.items() if k != ("reference", "cpython-3.7")},
                         {k: v for k, v in after.items() if k != ("reference", "cpython-3.7")})

    def test_no_version_matrix_no_versions_png(self):
        # Negative control: a run of one CPython has "version_matrix": null.
        report = synthetic_report()
        report["version_matrix"] = None
        proc, tmp = self.run_script(report)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_png(os.path.join(tmp, "matrix.png"))
        self.assertFalse(os.path.exists(os.path.join(tmp, "versions.png")))
        proc, tmp = self.run_script(report, "--only", "versions")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no version matrix", proc.stderr)

    def test_no_matrix_cells_fails(self):
        report = synthetic_report()
        report["cells"] = []
        proc, _ = self.run_script(report)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no cross.matrix cells", proc.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    SOURCE = sys.argv.pop(1)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"SKIP: matplotlib is not installed for {sys.executable}")
        sys.exit(77)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
