// The safe-loading policy (docs/safe-loading.md): the allowlist and its text
// format, the default list, and the decoder refusing globals and persistent
// ids the list does not allow, at the opcode that names them. Against the
// embedded CPython: policy_python_test.cpp.
#include "reference/pickle/policy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/pickle/decoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/scan.h"
#include "reference/value/value.h"
#include "suite/tests/support/decode_outcome.h"
#include "suite/tests/support/errors.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

using Outcome = test_support::DecodeOutcome;
using test_support::decode_under;
using test_support::is_pickle_error;

Allowlist list_of(std::initializer_list<std::string_view> entries, bool pids = false) {
  Allowlist l;
  for (auto e : entries) l.allow(e);
  l.persistent_ids = pids;
  return l;
}

// ---- the allowlist --------------------------------------------------------------

TEST(Allowlist, EntriesSplitAtTheLastDotOrAtAColon) {
  Allowlist l;
  l.allow("numpy.core.multiarray._reconstruct"sv);
  l.allow("pkg.mod:Outer.Inner"sv);
  EXPECT_TRUE(l.allows("numpy.core.multiarray", "_reconstruct"));
  EXPECT_TRUE(l.allows("pkg.mod", "Outer.Inner"));
  // Another split of the same dotted text may be another object in Python.
  EXPECT_FALSE(l.allows("numpy", "core.multiarray._reconstruct"));
  EXPECT_FALSE(l.allows("pkg.mod.Outer", "Inner"));
  EXPECT_FALSE(l.allows("numpy.core.multiarray", "_reconstruct2"));
  EXPECT_EQ(l.size(), 2u);
  l.allow("pkg.mod:Outer.Inner"sv);  // again: no duplicate
  EXPECT_EQ(l.size(), 2u);
}

TEST(Allowlist, MalformedEntriesAreRefused) {
  for (std::string_view bad :
       {""sv, "nodot"sv, ".a"sv, "a."sv, "a..b"sv, "a b.c"sv, ":x"sv, "m:"sv, "m:.x"sv}) {
    Allowlist l;
    EXPECT_THROW(l.allow(bad), AllowlistError) << "'" << bad << "'";
  }
}

TEST(Allowlist, TextFormatHasCommentsAndNamesTheBadLine) {
  Allowlist l;
  l.add_text(
      "# tensors\n"
      "torch._utils._rebuild_tensor_v2\n"
      "\n"
      "   collections.OrderedDict   # trailing comment\n"
      "pkg.mod:Outer.Inner\r\n");
  EXPECT_EQ(l.size(), 3u);
  EXPECT_TRUE(l.allows("collections", "OrderedDict"));
  EXPECT_TRUE(l.allows("pkg.mod", "Outer.Inner"));
  try {
    l.add_text("a.b\n\nnot an entry\n", "mylist.txt");
    FAIL() << "accepted a bad line";
  } catch (const AllowlistError& e) {
    EXPECT_NE(std::string(e.what()).find("mylist.txt:3"), std::string::npos) << e.what();
  }
}

// A file that cannot be read says why, not only that it could not.
TEST(Allowlist, UnreadableFileSaysWhy) {
  const auto missing = std::filesystem::temp_directory_path() / "serialcheck-no-such-allowlist.txt";
  std::filesystem::remove(missing);
  Allowlist l;
  try {
    l.add_file(missing.string());
    FAIL() << "read a missing file";
  } catch (const AllowlistError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read allowlist file '" + missing.string() + "': No such file or directory");
  }
  try {
    l.add_file(std::filesystem::temp_directory_path().string());
    FAIL() << "read a directory";
  } catch (const AllowlistError& e) {
    EXPECT_NE(std::string(e.what()).find(": Is a directory"), std::string::npos) << e.what();
  }
}

TEST(Allowlist, FilesLoadAndMerge) {
  const auto path = std::filesystem::temp_directory_path() / "serialcheck-policy-test.txt";
  {
    std::ofstream out(path);
    out << "# extra\nmypkg.models.Net\n";
  }
  Allowlist extra;
  extra.add_file(path.string());
  std::filesystem::remove(path);
  EXPECT_TRUE(extra.allows("mypkg.models", "Net"));
  EXPECT_THROW(extra.add_file(path.string()), AllowlistError);

  Allowlist merged = default_allowlist();
  const std::size_t before = merged.size();
  extra.persistent_ids = true;
  merged.merge(extra);
  EXPECT_EQ(merged.size(), before + 1);
  EXPECT_TRUE(merged.allows("mypkg.models", "Net"));
  EXPECT_TRUE(merged.persistent_ids);
  const auto entries = merged.entries();
  EXPECT_TRUE(std::is_sorted(entries.begin(), entries.end()));
}

TEST(Allowlist, DefaultListHoldsDataTypesAndNothingThatImportsOrCalls) {
  const Allowlist l = default_allowlist();
  EXPECT_FALSE(l.persistent_ids);
  for (auto [m, n] : std::initializer_list<std::pair<const char*, const char*>>{
           {"builtins", "set"},
           {"builtins", "frozenset"},
           {"builtins", "bytearray"},
           {"builtins", "bytes"},
           {"builtins", "list"},
           {"builtins", "dict"},
           {"builtins", "tuple"},
           {"builtins", "complex"},
           {"_codecs", "encode"},
           {"collections", "OrderedDict"},
           {"datetime", "datetime"},
           {"datetime", "timezone"},
           {"numpy.core.multiarray", "_reconstruct"},
           {"numpy", "ndarray"},
           {"numpy", "dtype"},
           {"numpy.core.numeric", "_frombuffer"},
           {"numpy.core.multiarray", "scalar"},
           {"torch._utils", "_rebuild_tensor_v2"},
           {"torch._tensor", "_rebuild_from_type_v2"},
           {"torch.storage", "_load_from_bytes"},
           {"torch", "FloatStorage"},
           {"torch._utils", "_rebuild_parameter"},
           {"torch", "Tensor"},
           {"torch", "Size"},
           {"torch", "float32"},
       }) {
    EXPECT_TRUE(l.allows(m, n)) << m << "." << n;
  }
  for (auto [m, n] : std::initializer_list<std::pair<const char*, const char*>>{
           {"cloudpickle.cloudpickle", "subimport"},
           {"cloudpickle.cloudpickle", "_make_function"},
           {"copyreg", "_reconstructor"},
           {"copyreg", "_inverted_registry"},
           {"builtins", "eval"},
           {"builtins", "exec"},
           {"builtins", "getattr"},
           {"builtins", "__import__"},
           {"importlib", "import_module"},
           {"functools", "partial"},
           {"operator", "attrgetter"},
           {"os", "system"},
           {"posix", "system"},
           {"subprocess", "Popen"},
           {"torch", "load"},
       }) {
    EXPECT_FALSE(l.allows(m, n)) << m << "." << n;
  }
}

TEST(Allowlist, DescribeValueIsShortWhateverTheValue) {
  Graph g;
  std::vector<Node*> many;
  for (int i = 0; i < 100000; ++i) many.push_back(g.integer(i));
  Node* big = g.tuple(std::move(many));
  const std::string text = describe_value(big, 40);
  EXPECT_LE(text.size(), 50u);
  EXPECT_EQ(text.substr(0, 7), "(0, 1, ");
  Node* self = g.list();
  self->items.push_back(self);
  EXPECT_LE(describe_value(self, 40).size(), 50u);
  EXPECT_EQ(describe_value(g.tuple({g.str("storage"), g.global("torch", "FloatStorage"), g.str("0"),
                                    g.str("cpu"), g.integer(4)})),
            "('storage', torch.FloatStorage, '0', 'cpu', 4)");
  EXPECT_EQ(describe_value(g.bytes("a'\n")), "b'a\\'\\n'");
}

// ---- the decoder under a policy ---------------------------------------------------

TEST(Policy, WithoutAnAllowlistEverythingDecodesAsInertNames) {
  Graph g;
  const Outcome o = decode_under("cos\nsystem\n(S'echo hi'\ntR."sv, nullptr, g);
  ASSERT_TRUE(o.ok) << o.detail;
  EXPECT_EQ(o.root->kind, Kind::Object);
}

TEST(Policy, GlobalNotOnTheListIsRefusedAtItsOpcode) {
  const Allowlist l = default_allowlist();
  Graph g;
  // protocol 0: the list, then GLOBAL at offset 5.
  const Outcome o = decode_under("(lp0\ncos\nsystem\np1\n(S'echo hi'\ntR."sv, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal, 5u));
  EXPECT_NE(o.detail.find("os.system"), std::string::npos) << o.detail;
  EXPECT_NE(o.detail.find("GLOBAL"), std::string::npos) << o.detail;
  EXPECT_EQ(error_kind_name(ErrorKind::ForbiddenGlobal), "forbidden-global");
}

TEST(Policy, StackGlobalIsCheckedWithTheExactStrsOnTheStack) {
  const Allowlist l = list_of({"collections.OrderedDict"});
  // The module str memoized, then reused for a second STACK_GLOBAL.
  const std::string s =
      "\x80\x04\x8c\x0b"
      "collections\x94\x8c\x0bOrderedDict\x94\x93\x94"
      "h\x00\x8c\x07"
      "Counter\x94\x93\x94\x86."s;
  Graph g;
  const Outcome o = decode_under(s, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal, s.find("\x93\x94\x86")));
  EXPECT_NE(o.detail.find("collections.Counter"), std::string::npos) << o.detail;
  EXPECT_NE(o.detail.find("STACK_GLOBAL"), std::string::npos) << o.detail;

  Allowlist both = l;
  both.allow("collections.Counter"sv);
  Graph g2;
  EXPECT_TRUE(decode_under(s, &both, g2).ok);
}

TEST(Policy, InstAndObjAreChecked) {
  const Allowlist l = default_allowlist();
  Graph g;
  Outcome o = decode_under("(S'x'\nimymod\nThing\n."sv, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal, 6u));
  EXPECT_NE(o.detail.find("mymod.Thing"), std::string::npos) << o.detail;
  // OBJ's class comes off the stack: it was named, and refused, before.
  Graph g2;
  o = decode_under("(cmymod\nThing\nK\x01o."sv, &l, g2);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal, 1u));
  // With the class allowed, INST, OBJ, NEWOBJ and BUILD need nothing more.
  const Allowlist thing = list_of({"mymod.Thing"});
  Graph g3, g4, g5;
  EXPECT_TRUE(decode_under("(S'x'\nimymod\nThing\n."sv, &thing, g3).ok);
  EXPECT_TRUE(decode_under("(cmymod\nThing\nK\x01o}b."sv, &thing, g4).ok);
  EXPECT_TRUE(decode_under("\x80\x02\x63mymod\nThing\n)\x81}b."sv, &thing, g5).ok);
}

TEST(Policy, PythonTwoNamesAreCheckedAsPythonThreeLoadsThem) {
  const Allowlist l = default_allowlist();
  // set([1]) at protocol 2: __builtin__.set is builtins.set.
  const std::string s = "\x80\x02\x63__builtin__\nset\nq\x00]q\x01K\x01\x61\x85q\x02Rq\x03."s;
  Graph g;
  const Outcome ok = decode_under(s, &l, g);
  ASSERT_TRUE(ok.ok) << ok.detail;
  EXPECT_EQ(ok.root->kind, Kind::Set);
  // Without fix_imports a Python 3 loader would import __builtin__ itself.
  Graph g2;
  const Outcome raw = decode_under(s, &l, g2, /*fix_imports=*/false);
  ASSERT_TRUE(is_pickle_error(raw.error(), ErrorKind::ForbiddenGlobal));
  EXPECT_NE(raw.detail.find("__builtin__.set"), std::string::npos) << raw.detail;
  // A refused renamed global names both spellings.
  Graph g3;
  const Outcome ev = decode_under("c__builtin__\neval\n."sv, &l, g3);
  ASSERT_FALSE(ev.ok);
  EXPECT_NE(ev.detail.find("builtins.eval (written __builtin__.eval)"), std::string::npos)
      << ev.detail;
}

TEST(Policy, PersistentIdsNeedPermission) {
  Allowlist l = default_allowlist();
  Graph g;
  Outcome o = decode_under("(lp0\nPstorage-7\na."sv, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenPersistentId, 5u));
  EXPECT_NE(o.detail.find("'storage-7'"), std::string::npos) << o.detail;
  EXPECT_EQ(error_kind_name(ErrorKind::ForbiddenPersistentId), "forbidden-persistent-id");
  // BINPERSID with torch.save's kind of tuple.
  const std::string s =
      "\x80\x02(X\x07\x00\x00\x00storageq\x00\x63torch\nFloatStorage\nq\x01X\x01\x00\x00\x00"
      "0X\x03\x00\x00\x00\x63puK\x04tQ."s;
  Graph g2;
  o = decode_under(s, &l, g2);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenPersistentId, s.size() - 2));
  EXPECT_NE(o.detail.find("('storage', torch.FloatStorage, '0', 'cpu', 4)"), std::string::npos)
      << o.detail;
  l.persistent_ids = true;
  Graph g3;
  EXPECT_TRUE(decode_under(s, &l, g3).ok);
}

TEST(Policy, ExtensionCodesAreCheckedAsTheRegistry) {
  Allowlist l = default_allowlist();
  Graph g;
  const Outcome o = decode_under("\x80\x02\x82\x05."sv, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal, 2u));
  EXPECT_NE(o.detail.find("copyreg._inverted_registry"), std::string::npos) << o.detail;
  l.allow("copyreg._inverted_registry"sv);
  Graph g2;
  EXPECT_TRUE(decode_under("\x80\x02\x82\x05."sv, &l, g2).ok);
}

TEST(Policy, CloudpickleSubimportIsNotAllowedByDefault) {
  // cloudpickle's reduce for a module: subimport('os').
  const std::string s =
      "\x80\x04\x8c\x17"
      "cloudpickle.cloudpickle\x94\x8c\tsubimport\x94\x93\x94\x8c\x02os\x94\x85\x94R\x94."s;
  const Allowlist l = default_allowlist();
  Graph g;
  const Outcome o = decode_under(s, &l, g);
  ASSERT_TRUE(is_pickle_error(o.error(), ErrorKind::ForbiddenGlobal));
  EXPECT_NE(o.detail.find("cloudpickle.cloudpickle.subimport"), std::string::npos) << o.detail;
}

// Every golden pickle: decoding under the default list succeeds exactly when
// the scan against it is clean, and otherwise fails at the first entry the
// scan marks forbidden.
TEST(Policy, GoldenCorpusDecodesUnderTheDefaultListExactlyWhenTheScanIsClean) {
  const std::filesystem::path dir = std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus/golden";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no golden corpus at " << dir;
  const Allowlist l = default_allowlist();
  std::size_t clean = 0, refused = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pickle") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const ScanResult s = scan(data, l);
    ASSERT_FALSE(s.error) << s.error->what();
    Graph g;
    const Outcome o = decode_under(data, &l, g);
    EXPECT_EQ(o.ok, s.clean()) << o.detail;
    if (o.ok) {
      ++clean;
      continue;
    }
    ++refused;
    const ScanEntry* first = nullptr;
    for (const ScanEntry& e : s.entries) {
      if (!e.allowed) {
        first = &e;
        break;
      }
    }
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(o.offset, first->offset) << o.detail;
    EXPECT_EQ(o.kind, first->kind == ScanEntry::Kind::PersistentId
                          ? ErrorKind::ForbiddenPersistentId
                          : ErrorKind::ForbiddenGlobal);
    EXPECT_NE(o.detail.find(first->name), std::string::npos) << o.detail << " vs " << first->name;
  }
  EXPECT_GT(clean, 100u);
  EXPECT_GT(refused, 10u);
}

}  // namespace
}  // namespace serialcheck::pickle
