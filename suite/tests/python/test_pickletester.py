"""CPython's own pickle tests (Lib/test/pickletester.py) against the reference.

The serialcheck_reference extension module (docs/python-module.md) is plugged
into pickletester's abstract test classes the way Lib/test/test_pickle.py
plugs in pickle and _pickle: on its own (unpickling, pickling, module API,
persistent ids, dispatch tables, reducer_override, Pickler/Unpickler
objects) and crossed with the C pickler in both directions. It also loads
every input of corpus/malformed/ with the reference and with the C unpickler
and compares the exception classes (MalformedCorpusTests).

Tests that do not apply are listed in pickletester-exclusions.txt beside this
file, one per line: `Class.test_name  reason`. They still run, as expected
failures: one that passes fails the run, so the list can only shrink. A name
in the list that is no test fails the run too.

Usage: test_pickletester.py MODULE_DIR [--exclusions FILE] [-k PATTERN] [-v]
       test_pickletester.py MODULE_DIR --selftest
Prints tests run, passed, excluded and skipped (by class), and exits 0 only
when every test that is not excluded passes (2 for a bad exclusion file, 77
when CPython's test package is missing). --selftest runs the negative
controls: a passing test on the list, a name that is no test, and an
Unpickler that raises the wrong exceptions must each fail the run.
"""

import collections
import io
import os
import pickle
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXCLUSIONS = os.path.join(HERE, "pickletester-exclusions.txt")
# A negative control of the selftest: the Unpickler's errors all become
# ValueError, so the bad-data tests must fail.
PLANT_WRONG_ERRORS = os.environ.get("SERIALCHECK_PICKLETESTER_PLANT") == "wrong-errors"


def usage_error(message):
    print("serialcheck: " + message, file=sys.stderr)
    sys.exit(2)


if len(sys.argv) < 2:
    usage_error("usage: test_pickletester.py MODULE_DIR [--exclusions FILE] [-k PATTERN] [-v]")
MODULE_DIR = sys.argv.pop(1)
sys.path.insert(0, MODULE_DIR)

try:
    from test import pickletester
    from test.pickletester import (
        AbstractCustomPicklerClass, AbstractDispatchTableTests, AbstractHookTests,
        AbstractIdentityPersistentPicklerTests, AbstractPersistentPicklerTests,
        AbstractPickleModuleTests, AbstractPickleTests, AbstractPicklerUnpicklerObjectTests,
        AbstractUnpickleTests)
    from test.test_pickle import PersistentPicklerUnpicklerMixin
except ImportError as e:
    print("SKIP: CPython's test suite is not installed for %s (Debian: libpython3.11-testsuite): %s"
          % (sys.executable, e))
    sys.exit(77)

import _pickle  # noqa: E402
import serialcheck_reference as ref  # noqa: E402

# The C unpickler's error classes: the reference is judged by its rules.
C_ERRORS = dict(bad_stack_errors=(pickle.UnpicklingError,),
                truncated_errors=(pickle.UnpicklingError,))


class ReferenceUnpicklerTests(AbstractUnpickleTests, unittest.TestCase):
    bad_stack_errors = C_ERRORS["bad_stack_errors"]
    truncated_errors = C_ERRORS["truncated_errors"]

    def loads(self, buf, **kwds):
        if PLANT_WRONG_ERRORS:
            try:
                return ref.Unpickler(io.BytesIO(buf), **kwds).load()
            except Exception as e:
                raise ValueError("planted") from e
        return ref.Unpickler(io.BytesIO(buf), **kwds).load()


class FileRoundTrip:
    """dumps and loads through Pickler / Unpickler objects and a BytesIO."""
    pickler = None
    unpickler = None

    def dumps(self, arg, proto=None, **kwargs):
        f = io.BytesIO()
        self.pickler(f, proto, **kwargs).dump(arg)
        return f.getvalue()

    def loads(self, buf, **kwds):
        return self.unpickler(io.BytesIO(buf), **kwds).load()


class ReferencePicklerTests(FileRoundTrip, AbstractPickleTests, unittest.TestCase):
    pickler = ref.Pickler
    unpickler = ref.Unpickler


class ReferencePickleModuleTests(AbstractPickleModuleTests, unittest.TestCase):
    dump = staticmethod(ref.dump)
    dumps = staticmethod(ref.dumps)
    load = staticmethod(ref.load)
    loads = staticmethod(ref.loads)
    Pickler = ref.Pickler
    Unpickler = ref.Unpickler


class ReferencePersPicklerTests(AbstractPersistentPicklerTests,
                                PersistentPicklerUnpicklerMixin, unittest.TestCase):
    pickler = ref.Pickler
    unpickler = ref.Unpickler


class ReferenceIdPersPicklerTests(AbstractIdentityPersistentPicklerTests,
                                  PersistentPicklerUnpicklerMixin, unittest.TestCase):
    pickler = ref.Pickler
    unpickler = ref.Unpickler


class ReferencePicklerUnpicklerObjectTests(AbstractPicklerUnpicklerObjectTests,
                                           unittest.TestCase):
    pickler_class = ref.Pickler
    unpickler_class = ref.Unpickler


class ReferenceDispatchTableTests(AbstractDispatchTableTests, unittest.TestCase):
    pickler_class = ref.Pickler

    def get_dispatch_table(self):
        return pickle.dispatch_table.copy()


class ReferenceChainDispatchTableTests(AbstractDispatchTableTests, unittest.TestCase):
    pickler_class = ref.Pickler

    def get_dispatch_table(self):
        return collections.ChainMap({}, pickle.dispatch_table)


class ReferencePicklerHookTests(AbstractHookTests, unittest.TestCase):
    class CustomReferencePicklerClass(ref.Pickler, AbstractCustomPicklerClass):
        pass
    pickler_class = CustomReferencePicklerClass


# Cross tests: what one writes, the other reads.
class ReferenceDumpCLoadTests(FileRoundTrip, AbstractPickleTests, unittest.TestCase):
    pickler = ref.Pickler
    unpickler = _pickle.Unpickler


class CDumpReferenceLoadTests(FileRoundTrip, AbstractPickleTests, unittest.TestCase):
    pickler = _pickle.Pickler
    unpickler = ref.Unpickler


# Beyond pickletester: every input of corpus/malformed/ (the decoder's bad
# inputs, each with the error kind it must get) raises the same exception
# class from the reference as from the C unpickler.
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "corpus", "malformed"))


def error_class(load, data):
    try:
        load(data)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e)
    return None


class MalformedCorpusTests(unittest.TestCase):
    pass


def add_corpus_tests():
    with open(os.path.join(CORPUS, "MANIFEST.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f
                if line.strip() and not line.startswith("#")]
    for name, kind, _, options, what in (row[:5] for row in rows):
        if options != "-":
            continue  # needs decoder options (max_protocol...) pickle does not have

        def test(self, path=os.path.join(CORPUS, name + ".pickle"), kind=kind, what=what):
            with open(path, "rb") as f:
                data = f.read()
            want, got = error_class(_pickle.loads, data), error_class(ref.loads, data)
            self.assertIs(got, want, "%s (%s): the C unpickler raises %s, the reference %s"
                          % (what, kind, want and want.__name__, got and got.__name__))
        test.__name__ = "test_" + name.replace("-", "_")
        setattr(MalformedCorpusTests, test.__name__, test)


add_corpus_tests()

CLASSES = [ReferenceUnpicklerTests, ReferencePicklerTests, ReferencePickleModuleTests,
           ReferencePersPicklerTests, ReferenceIdPersPicklerTests,
           ReferencePicklerUnpicklerObjectTests, ReferenceDispatchTableTests,
           ReferenceChainDispatchTableTests, ReferencePicklerHookTests,
           ReferenceDumpCLoadTests, CDumpReferenceLoadTests, MalformedCorpusTests]


def read_exclusions(path):
    """{(class, test): reason} from the exclusion file; '#' starts a comment."""
    known = {cls.__name__: cls for cls in CLASSES}
    excluded = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(" ")
            cls_name, _, test = name.partition(".")
            where = "%s:%d" % (os.path.basename(path), number)
            if not reason.strip():
                usage_error("%s: %s has no reason" % (where, name))
            if cls_name not in known or not test.startswith("test_") or \
                    not callable(getattr(known[cls_name], test, None)):
                usage_error("%s: %s is not a test of this runner" % (where, name))
            if (cls_name, test) in excluded:
                usage_error("%s: %s is listed twice" % (where, name))
            excluded[(cls_name, test)] = reason.strip()
    return excluded


def apply_exclusions(excluded):
    # An excluded test runs as an expected failure: if it passes, unittest
    # reports an unexpected success and the run fails.
    # Each gets a wrapper of its own: expectedFailure marks the function it is
    # given, and the original is shared by every class that inherits it.
    for (cls_name, test), _ in excluded.items():
        cls = next(c for c in CLASSES if c.__name__ == cls_name)
        original = getattr(cls, test)

        def excluded_test(self, original=original):
            return original(self)
        excluded_test.__name__ = excluded_test.__qualname__ = test
        excluded_test.__doc__ = original.__doc__
        setattr(cls, test, unittest.expectedFailure(excluded_test))


class CountingResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.by_class = collections.defaultdict(collections.Counter)
        self._failed_ids = set()

    def _count(self, test, what):
        self.by_class[type(test).__name__][what] += 1

    def addSuccess(self, test):
        super().addSuccess(test)
        if test.id() not in self._failed_ids:
            self._count(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._failed_ids.add(test.id())
        self._count(test, "failed")

    def addError(self, test, err):
        super().addError(test, err)
        self._failed_ids.add(test.id())
        self._count(test, "failed")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None and test.id() not in self._failed_ids:
            self._failed_ids.add(test.id())
            self._count(test, "failed")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._count(test, "skipped")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._count(test, "excluded")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._count(test, "excluded but passed")


def selftest(module_dir):
    """The negative controls; returns the exit status."""
    def run(lines, pattern, env=None):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("".join(line + "\n" for line in lines))
        try:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), module_dir, "--exclusions", f.name,
                 "-k", pattern], capture_output=True, text=True,
                env=dict(os.environ, **(env or {})))
        finally:
            os.unlink(f.name)
        return proc.returncode, proc.stdout + proc.stderr

    checks = [
        ("a passing test on the list fails the run",
         run(["ReferenceUnpicklerTests.test_constants  planted"], "test_constants"),
         1, "passes but is listed"),
        ("a name that is no test fails the run",
         run(["ReferenceUnpicklerTests.test_no_such_test  planted"], "test_constants"),
         2, "is not a test of this runner"),
        ("an Unpickler raising the wrong exceptions fails the bad-data tests",
         run([], "test_truncated_data", {"SERIALCHECK_PICKLETESTER_PLANT": "wrong-errors"}),
         1, "FAILED"),
        ("the same tests pass without the planted mistake",
         run([], "test_truncated_data"), 0, "OK"),
    ]
    status = 0
    for what, (rc, output), want_rc, want_text in checks:
        ok = rc == want_rc and want_text in output
        print("%s: %s" % ("ok" if ok else "FAILED", what))
        if not ok:
            print("  exit %d (wanted %d), output:\n%s" % (rc, want_rc, output[-2000:]))
            status = 1
    return status


def main(module_dir):
    argv = sys.argv[1:]
    if "--selftest" in argv:
        return selftest(module_dir)
    exclusions = EXCLUSIONS
    if "--exclusions" in argv:
        exclusions = argv[argv.index("--exclusions") + 1]
    excluded = read_exclusions(exclusions)
    apply_exclusions(excluded)
    loader = unittest.TestLoader()
    if "-k" in argv:
        loader.testNamePatterns = ["*%s*" % argv[argv.index("-k") + 1]]
    suite = unittest.TestSuite(loader.loadTestsFromTestCase(cls) for cls in CLASSES)
    verbosity = 2 if "-v" in argv else 1
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=verbosity,
                                     resultclass=CountingResult)
    result = runner.run(suite)

    columns = ["passed", "excluded", "skipped", "failed", "excluded but passed"]
    heads = ["passed", "excluded", "skipped", "failed", "unexp.ok"]
    print("\n%-40s %6s %s" % ("class", "run", " ".join("%8s" % h for h in heads)))
    total = collections.Counter()
    for cls in CLASSES:
        counts = result.by_class.get(cls.__name__, collections.Counter())
        run = sum(counts.values())
        total.update(counts)
        print("%-40s %6d %s" % (cls.__name__, run, " ".join("%8d" % counts[c] for c in columns)))
    print("%-40s %6d %s" % ("total", sum(total.values()),
                            " ".join("%8d" % total[c] for c in columns)))
    for test in result.unexpectedSuccesses:
        cls_name, name = type(test).__name__, test._testMethodName
        print("serialcheck: %s.%s passes but is listed in %s (%s): remove it from the list"
              % (cls_name, name, os.path.basename(exclusions), excluded.get((cls_name, name))))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(MODULE_DIR))
