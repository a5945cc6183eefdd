#!/usr/bin/python3
"""Tests of scripts/mutate's enumeration of mutants on C++ snippets: each
operator makes the mutants it should, and none where it must not (template
angle brackets, comments, string and character literals, preprocessor
lines, attributes, declarations); ids and hashes stay the same when unrelated
code moves; --sample is reproducible and spread over operators. Negative
controls: a change at the mutated place changes the hash, and a snippet
with the operator in code (not in a comment) does get the mutant.

Usage: mutate_test.py SOURCE_DIR
"""

import importlib.machinery
import importlib.util
import os
import sys
import unittest

SOURCE = None


def load_script():
    path = os.path.join(SOURCE, "scripts", "mutate")
    loader = importlib.machinery.SourceFileLoader("mutate", path)
    spec = importlib.util.spec_from_loader("mutate", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


SNIPPET = r'''#include <vector>
#define LIMIT 10
// a comment: if (a < b) return 1;
/* a block: x == y && z */
static const char* kText = "a < b || c == 3";
static const char kChar = '<';
template <typename T, int N = 4>
struct Box {
  std::vector<std::pair<int, T>> items;
  std::array<int, 8> slots;
};
[[nodiscard]] int pick(int a, int b) {
  if (a < b) return 1;
  if (a >= b && b != 0) throw std::runtime_error("no");
  check_size(a, 5);
  return static_cast<int>(a) + 7;
}
int f(std::optional<int> x, std::vector<int>&& v) { return pick(x.value(), v.size()); }
'''


class Enumeration(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = load_script()

    def mutants(self, src, op=None):
        ms = self.m.enumerate_mutants("x.cpp", src)
        return [m for m in ms if op is None or m.op == op]

    def line_of(self, src, m):
        return src.split("\n")[m.line - 1]

    def test_relational_only_in_code(self):
        rel = self.mutants(SNIPPET, "rel")
        changes = sorted((m.line, m.original, m.replacement) for m in rel)
        self.assertEqual(changes, [(13, "<", "<="), (14, "!=", "=="), (14, ">=", ">")])

    def test_template_brackets_never_mutated(self):
        for m in self.mutants(SNIPPET):
            line = self.line_of(SNIPPET, m)
            self.assertFalse(m.op == "rel" and ("vector" in line or "template" in line or "array" in line),
                             f"{m.id} {m.describe()}")
        # the constants inside template arguments are not mutated either
        consts = [m for m in self.mutants(SNIPPET) if m.op.startswith("const")]
        self.assertEqual(sorted({(m.line, m.original) for m in consts}),
                         [(13, "1"), (14, "0"), (15, "5"), (16, "7")])

    def test_logic_not_rvalue_reference(self):
        logic = self.mutants(SNIPPET, "logic")
        self.assertEqual([(m.line, m.original, m.replacement) for m in logic], [(14, "&&", "||")])

    def test_comments_strings_preprocessor_skipped(self):
        for m in self.mutants(SNIPPET):
            self.assertGreater(m.line, 6, f"{m.id} {m.describe()} is in a comment, literal or #line")

    def test_deleted_checks(self):
        dc = self.mutants(SNIPPET, "del-check")
        self.assertEqual([(m.line, m.original, m.replacement) for m in dc],
                         [(13, "a < b", "false"), (14, "a >= b && b != 0", "false")])
        calls = self.mutants(SNIPPET, "del-call")
        self.assertEqual([(m.line, m.original) for m in calls], [(15, "check_size(a, 5)")])
        # a condition that declares or has an init-statement is left alone
        self.assertEqual(self.mutants("void g() { if (auto* p = q()) return; if (int i = 0; i) return; }",
                                      "del-check"), [])

    def test_swapped_arguments(self):
        sw = self.mutants(SNIPPET, "swap-args")
        self.assertEqual(sorted((m.line, m.replacement) for m in sw),
                         [(15, "5, a"), (18, "v.size(), x.value()")])
        # definitions and declarations are not calls; min/max are symmetric
        self.assertEqual(self.mutants("void h(Node* a, Node* b) { std::max(a, b); }", "swap-args"), [])

    def test_constants(self):
        src = "int g() { return 0x1F + 10u + 0; }"
        got = sorted((m.op, m.original, m.replacement) for m in self.mutants(src) if m.op.startswith("const"))
        self.assertEqual(got, [("const+1", "0", "1"), ("const+1", "0x1F", "0x20"), ("const+1", "10u", "11u"),
                               ("const-1", "0x1F", "0x1E"), ("const-1", "10u", "9u")])

    def test_applying_a_mutant(self):
        for m in self.mutants(SNIPPET):
            self.assertEqual(SNIPPET[m.start:m.end], m.original)

    def test_ids_stable(self):
        a = self.mutants(SNIPPET)
        self.assertEqual([(m.id, m.hash) for m in a], [(m.id, m.hash) for m in self.mutants(SNIPPET)])
        self.assertEqual(len({m.hash for m in a}), len(a), "hashes are unique")
        # code added far above moves the lines, keeps the hashes
        moved = self.mutants("// a new first line\n" * 3 + SNIPPET)
        self.assertEqual([m.hash for m in a], [m.hash for m in moved])
        self.assertEqual([m.line + 3 for m in a], [m.line for m in moved])
        # negative control: a change at the place changes the hash
        changed = self.mutants(SNIPPET.replace("if (a < b) return 1;", "if (a < c) return 1;"))
        self.assertNotEqual({m.hash for m in a}, {m.hash for m in changed})
        self.assertEqual(a[0].id.split(":")[0], "x.cpp")

    def test_negative_control_code_gets_mutants(self):
        # the text of the comment line, as code, is mutated
        self.assertEqual(len(self.mutants("int g(int a, int b) {\n  if (a < b) return 1;\n}", "rel")), 1)

    def test_sample_reproducible_and_spread(self):
        ms = self.mutants(SNIPPET)
        s1 = self.m.sample(ms, 6, 7)
        self.assertEqual([m.hash for m in s1], [m.hash for m in self.m.sample(ms, 6, 7)])
        self.assertEqual(len({m.op for m in s1}), 6, "six operators present, one mutant each")

    def test_real_sources_tokenize(self):
        ms = self.m.all_mutants(["reference/pickle", "reference/frames"], self.m.OPERATORS, root=SOURCE)
        self.assertGreater(len(ms), 1000)
        self.assertEqual({m.op for m in ms}, set(self.m.OPERATORS))


if __name__ == "__main__":
    SOURCE = sys.argv.pop(1)
    unittest.main()
