#!/usr/bin/python3
"""Tests of scripts/compare-campaign on a synthetic findings database and
gate report: a defect is a known-failures line (several cells one line
lists count once) or an unlisted cell; a finding at another producer meets
a line with a glob; the findings-over-time row counts by first_seen.
Negative controls: a finding with another fingerprint, or at another
subject, does not count, and a defect not found makes the exit status 1.

Usage: compare_campaign_test.py SOURCE_DIR
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = None


class CompareCampaign(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="compare-campaign-test-")
        os.makedirs(os.path.join(self.tmp, "db", "findings"))
        self.known = os.path.join(self.tmp, "known-failures.txt")
        with open(self.known, "w") as f:
            f.write("# a comment\n"
                    "jp cross.matrix/* mismatch:value@loads/str escapes are not decoded\n"
                    "dist tensor.grad tensor:strides/tensor views load contiguous\n")
        cells = [
            # One line, two cells: one defect.
            {"subject": "jp", "property": "cross.matrix/cpython", "verdict": "expected-fail",
             "fingerprint": "mismatch:value@loads/str"},
            {"subject": "jp", "property": "cross.matrix/pypy", "verdict": "expected-fail",
             "fingerprint": "mismatch:value@loads/str"},
            # Unlisted: the cell is the defect.
            {"subject": "cp", "property": "roundtrip.equal", "verdict": "fail",
             "fingerprint": "mismatch:kind/int"},
            {"subject": "cp", "property": "roundtrip.identity", "verdict": "pass"},
        ]
        self.report = os.path.join(self.tmp, "conformance.json")
        with open(self.report, "w") as f:
            json.dump({"seed": 7, "cells": cells}, f)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def finding(self, name, subject, prop, fingerprint, seen):
        with open(os.path.join(self.tmp, "db", "findings", name + ".json"), "w") as f:
            json.dump({"subject": subject, "property": prop, "fingerprint": fingerprint,
                       "first_seen": seen}, f)

    def run_script(self, *extra):
        return subprocess.run(
            [sys.executable, os.path.join(SOURCE, "scripts", "compare-campaign"),
             "--db", os.path.join(self.tmp, "db"), "--report", self.report,
             "--known-failures", self.known, "--start", "2026-12-01T00:00:00Z",
             "--minutes", "1,5", "--cores", "2", *extra],
            capture_output=True, text=True)

    def test_every_defect_found(self):
        # At another producer than the gate's cells: the line's glob takes it.
        self.finding("a", "jp", "cross.matrix/dill", "mismatch:value@loads/str",
                     "2026-12-01T00:00:30Z")
        self.finding("b", "cp", "roundtrip.equal", "mismatch:kind/int", "2026-12-01T00:04:00Z")
        self.finding("c", "dist", "tensor.grad", "tensor:strides/tensor", "2026-12-01T00:04:30Z")
        r = self.run_script("--also", "dist tensor.grad tensor:strides/tensor")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("defects: 3 (3 failing cells at seed 7, 1 given with --also); found by the "
                      "campaign: 3; not found: 0", r.stdout)
        self.assertIn("| wall minutes (CPU-minutes) | 1 (2) | 5 (10) |", r.stdout)
        self.assertIn("| distinct findings | 1 | 3 |", r.stdout)
        self.assertIn("| the gate's defects found | 1 | 3 |", r.stdout)

    def test_other_fingerprints_and_subjects_do_not_count(self):
        self.finding("a", "jp", "cross.matrix/dill", "mismatch:value@loads/float",
                     "2026-12-01T00:00:30Z")
        self.finding("b", "other", "roundtrip.equal", "mismatch:kind/int",
                     "2026-12-01T00:04:00Z")
        r = self.run_script()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("not found: jp cross.matrix/* mismatch:value@loads/str (2 cell(s)",
                      r.stdout)
        self.assertIn("not found: cp roundtrip.equal mismatch:kind/int (1 cell(s)", r.stdout)
        self.assertIn("found by the campaign: 0; not found: 2", r.stdout)

    def test_unreadable_input_is_named(self):
        with open(self.report, "w") as f:
            f.write("{")
        r = self.run_script()
        self.assertEqual(r.returncode, 2)
        self.assertIn("compare-campaign:", r.stderr)


if __name__ == "__main__":
    SOURCE = sys.argv.pop(1)
    unittest.main()
