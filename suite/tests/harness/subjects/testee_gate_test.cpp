// Tests of what the gate does for subjects outside the process: the
// subjects file and --testee arguments, the fidelity relaxation of
// comparisons (exactly the distinctions named, no more), the capability
// rules every property respects, and the two properties foreign loaders
// need (cross.matrix/<producer>, loads.rejects-malformed), each with a
// deliberately broken subject it must reject.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "harness/props/gate_props.h"
#include "harness/props/value_tools.h"
#include "harness/subjects/reference_subject.h"
#include "harness/subjects/subjects_file.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;

using test_support::make_case;

// ---- the subjects file ------------------------------------------------------

TEST(SubjectsFile, ReadsEveryFieldAndResolvesTheWorkingDirectoryFromTheFile) {
  auto list = parse_subjects_file(R"({"testees": [
      {"name": "pypy-pickle", "command": "pypy3 t.py --preset pickle", "cwd": "sub",
       "env": {"A": "1"}, "timeout_s": 3, "start_timeout_s": 40, "about": "x"},
      {"name": "b", "command": "b"}]})",
                                  "/repo/subjects.json");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, "pypy-pickle");
  EXPECT_EQ(list[0].command, "pypy3 t.py --preset pickle");
  EXPECT_EQ(list[0].cwd, "/repo/sub");
  EXPECT_EQ(list[0].env.at("A"), "1");
  EXPECT_EQ(list[0].timeout_s, 3);
  EXPECT_EQ(list[0].start_timeout_s, 40);
  EXPECT_EQ(list[1].cwd, "/repo");
  EXPECT_EQ(list[1].timeout_s, TesteeConfig{}.timeout_s);
  EXPECT_NE(list[1].origin.find("/testees/1"), std::string::npos);
}

TEST(SubjectsFile, RejectsMistakesNamingWhere) {
  auto error_of = [](const std::string& text) {
    try {
      parse_subjects_file(text, "s.json");
    } catch (const SubjectsFileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("[").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("{}").find("/testees"), std::string::npos);
  EXPECT_NE(error_of(R"({"testees": [{"command": "x"}]})").find("/testees/0/name"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"testees": [{"name": "a b", "command": "x"}]})").find("/testees/0/name"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"testees": [{"name": "a", "command": ""}]})").find("/testees/0/command"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"testees": [{"name": "a", "command": "x", "timout_s": 1}]})")
                .find("/testees/0/timout_s: unknown member"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"testees": [{"name": "a", "command": "x", "timeout_s": -1}]})")
                .find("/testees/0/timeout_s"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"testees": [{"name": "a", "command": "x"}, {"name": "a", "command": "y"}]})")
          .find("named twice"),
      std::string::npos);
}

TEST(SubjectsFile, TesteeArgumentSplitsAtTheFirstEquals) {
  TesteeConfig c = parse_testee_argument("mine=python3 t.py --dumps m:d --opt=x");
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.command, "python3 t.py --dumps m:d --opt=x");
  EXPECT_THROW(parse_testee_argument("no-equals"), SubjectsFileError);
  EXPECT_THROW(parse_testee_argument("=cmd"), SubjectsFileError);
  EXPECT_THROW(parse_testee_argument("bad/name=cmd"), SubjectsFileError);
  EXPECT_THROW(parse_testee_argument("ok=   "), SubjectsFileError);
}

TEST(SubjectsFile, TheRepositorysOwnFileParses) {
  fs::path path = fs::path(SERIALCHECK_SOURCE_DIR) / "subjects.json";
  if (!fs::exists(path)) GTEST_SKIP() << "no subjects.json in the source tree";
  auto list = read_subjects_file(path);
  EXPECT_FALSE(list.empty());
}

// ---- fidelity -----------------------------------------------------------------

bool same_under(const std::string& a, const std::string& b, std::vector<std::string> lost) {
  Graph ga;
  Graph gb;
  Graph ra;
  Graph rb;
  const Node* x = relax_value(from_json(a, ga), ra, lost);
  const Node* y = relax_value(from_json(b, gb), rb, lost);
  return equal(x, y);
}

TEST(Fidelity, EachDistinctionRelaxesItsOwnRuleOnly) {
  struct Row {
    const char* a;
    const char* b;
    const char* lost;
  };
  const Row rows[] = {
      {R"({"tuple": [1, 2]})", R"({"list": [1, 2]})", "tuple"},
      {R"(3)", R"({"float": "3.0"})", "int-float"},
      {R"({"int": "9007199254740993"})", R"({"int": "9007199254740992"})", "big-int"},
      {R"({"bytearray": "6162"})", R"({"bytes": "6162"})", "bytes-bytearray"},
      {R"({"frozenset": [1]})", R"({"set": [1]})", "set-frozenset"},
      {R"({"bytes": "6162"})", R"("ab")", "str-bytes"},
      {R"({"float": "nan", "bits": "7ff0000000000001"})", R"({"float": "nan"})", "nan-bits"},
      {R"({"dict": [["a", 1], ["b", 2]]})", R"({"dict": [["b", 2], ["a", 1]]})", "dict-order"},
  };
  const std::vector<std::string> all = {"tuple",         "int-float", "big-int",  "bytes-bytearray",
                                        "set-frozenset", "str-bytes", "nan-bits", "dict-order"};
  for (const Row& r : rows) {
    // Negative control: exact equality tells them apart.
    EXPECT_FALSE(same_under(r.a, r.b, {})) << r.a << " vs " << r.b;
    EXPECT_TRUE(same_under(r.a, r.b, {r.lost})) << r.lost;
    for (const auto& other : all) {
      if (other == r.lost) continue;
      // Ints read as doubles lose what big-int loses, and more.
      if (other == "int-float" && std::string(r.lost) == "big-int") continue;
      EXPECT_FALSE(same_under(r.a, r.b, {other})) << r.a << " vs " << r.b << " under " << other;
    }
  }
  // Relaxing keeps what is still distinct distinct.
  EXPECT_FALSE(same_under(R"({"tuple": [1, 2]})", R"({"list": [2, 1]})", {"tuple"}));
  EXPECT_FALSE(same_under(R"(3)", R"({"float": "3.5"})", {"int-float"}));
  EXPECT_TRUE(same_under(R"({"int": "1"})", R"(1)", {"big-int"}));
  EXPECT_FALSE(same_under(R"({"bytes": "ff"})", R"("\u00ff")", {"str-bytes"}));  // not UTF-8
  EXPECT_TRUE(same_under(R"({"int": "100000000000000000000000001"})",
                         R"({"int": "100000000000000000000000000"})", {"big-int"}));
  EXPECT_FALSE(same_under(R"({"int": "100000000000000000000000001"})",
                          R"({"int": "100000000000000000000"})", {"big-int"}));
  EXPECT_FALSE(same_under(R"({"dict": [["a", 1], ["b", 2]]})", R"({"dict": [["b", 1], ["a", 2]]})",
                          {"dict-order"}));
  // Keys that are sets holding the same items in another order (Python 2's
  // dicts and sets iterate as they like) are the same keys...
  const char* frozen_keys = R"({"dict": [[{"frozenset": []}, null],
                                         [{"frozenset": [1, {"float": "0.0"}]}, 2]]})";
  EXPECT_TRUE(same_under(frozen_keys, R"({"dict": [[{"frozenset": [{"float": "0.0"}, 1]}, 2],
                                                   [{"frozenset": []}, null]]})",
                         {"dict-order"}));
  // ...and their values still count.
  EXPECT_FALSE(same_under(frozen_keys, R"({"dict": [[{"frozenset": [{"float": "0.0"}, 1]}, null],
                                                    [{"frozenset": []}, 2]]})",
                          {"dict-order"}));
  // Keys that are frozensets whose items two interpreters iterate in other
  // orders (Python 3.6's str hashes and 3.11's): still the same pairs.
  EXPECT_TRUE(
      same_under(R"({"dict": [[{"frozenset": ["b", "a"]}, 1], [{"frozenset": ["a", "c"]}, 2]]})",
                 R"({"dict": [[{"frozenset": ["a", "c"]}, 2], [{"frozenset": ["a", "b"]}, 1]]})",
                 {"dict-order"}));
  EXPECT_FALSE(
      same_under(R"({"dict": [[{"frozenset": ["b", "a"]}, 1], [{"frozenset": ["a", "c"]}, 2]]})",
                 R"({"dict": [[{"frozenset": ["a", "c"]}, 1], [{"frozenset": ["a", "b"]}, 2]]})",
                 {"dict-order"}));
  // big-int keeps ints within 2^53 exact.
  EXPECT_FALSE(same_under(R"(9007199254740991)", R"(9007199254740990)", {"big-int"}));
}

bool same_graphs(const std::string& a, const std::string& b, SharingRule rule,
                 std::vector<std::string> lost) {
  Graph ga;
  Graph gb;
  return equal_under(from_json(a, ga), from_json(b, gb), rule, nullptr, {}, lost);
}

TEST(Fidelity, ListsThatMayHaveBeenTuplesShareAsTuplesDo) {
  // CPython keeps one empty tuple; a reader without tuples gives two lists.
  const char* memoized = R"({"list": [{"tuple": [], "id": 1}, {"ref": 1}]})";
  const char* two_lists = R"({"list": [{"list": []}, {"list": []}]})";
  EXPECT_TRUE(same_graphs(memoized, two_lists, SharingRule::ImmutablesFree, {"tuple"}));
  // Negative controls: without the declaration, or for real lists, sharing counts.
  EXPECT_FALSE(same_graphs(memoized, two_lists, SharingRule::ImmutablesFree, {}));
  EXPECT_FALSE(same_graphs(R"({"list": [{"list": [], "id": 1}, {"ref": 1}]})", two_lists,
                           SharingRule::ImmutablesFree, {}));
  EXPECT_FALSE(same_graphs(memoized, two_lists, SharingRule::GlobalsByName, {"tuple"}));
}

TEST(Fidelity, DictOrderSortsKeysWhateverTheirPartsShare) {
  // Python 3.6 loads 2.7's empty str as the one interned '', so a tuple key
  // holds it twice; the same pairs, which sharing inside a key (an
  // immutable) must not put in another order.
  const char* apart = R"({"dict": [[{"tuple": []}, {"str": "", "id": 1}],
                                    [{"tuple": ["", {"ref": 1}]}, null]]})";
  const char* shared = R"({"dict": [[{"tuple": []}, {"str": "", "id": 1}],
                                     [{"tuple": [{"ref": 1}, {"ref": 1}]}, null]]})";
  EXPECT_TRUE(same_graphs(apart, shared, SharingRule::ImmutablesFree, {"dict-order"}));
  // Negative control: the pairs themselves still count.
  EXPECT_FALSE(same_graphs(apart, R"({"dict": [[{"tuple": []}, null],
                                                [{"tuple": ["", ""]}, ""]]})",
                           SharingRule::ImmutablesFree, {"dict-order"}));
}

TEST(Fidelity, WithoutSharingTreesCompareAsTrees) {
  const char* shared = R"({"list": [{"list": [1], "id": 1}, {"ref": 1}]})";
  const char* copies = R"({"list": [{"list": [1]}, {"list": [1]}]})";
  EXPECT_TRUE(same_graphs(shared, copies, SharingRule::ImmutablesFree, {"sharing"}));
  EXPECT_FALSE(same_graphs(shared, copies, SharingRule::ImmutablesFree, {}));
  // Still a structural comparison, and a cycle is never a tree.
  EXPECT_FALSE(same_graphs(shared, R"({"list": [{"list": [1]}, {"list": [2]}]})",
                           SharingRule::ImmutablesFree, {"sharing"}));
  EXPECT_FALSE(same_graphs(R"({"list": [{"ref": 1}], "id": 1})", R"({"list": [{"list": []}]})",
                           SharingRule::ImmutablesFree, {"sharing"}));
}

// ---- subjects for the properties ----------------------------------------------

// The reference, with capabilities and one bug chosen by the test.
class MutantSubject : public ReferenceSubject {
 public:
  // Reads4: an honest older reader (announces protocols 0-4 and refuses 5
  // naming it); WritesAt5: writes protocol 5 whatever it is asked.
  enum class Bug { None, TuplesAsLists, AcceptsAnything, ReadsOnly, Reads4, WritesAt5 };
  MutantSubject(std::string name, Bug bug, std::vector<std::string> lost = {})
      : name_(std::move(name)), bug_(bug), lost_(std::move(lost)) {}
  std::string name() const override { return name_; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.native_codec = false;
    c.cpython_bytes = false;
    c.cannot_express = lost_;
    if (bug_ == Bug::ReadsOnly) c.can_dump = false;
    if (bug_ == Bug::Reads4) c.read_max_protocol = 4;
    return c;
  }
  Message dumps(const Node* value, const DumpOptions& options) override {
    if (bug_ == Bug::ReadsOnly) throw SubjectError("unsupported", "reads only");
    if (bug_ == Bug::WritesAt5) {
      DumpOptions five = options;
      five.protocol = 5;
      return ReferenceSubject::dumps(value, five);
    }
    return ReferenceSubject::dumps(value, options);
  }
  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    if (bug_ == Bug::AcceptsAnything) {
      try {
        return ReferenceSubject::loads(m, graph, options);
      } catch (const std::exception&) {
        return graph.none();
      }
    }
    if (bug_ == Bug::Reads4 && !m.frames.empty() && m.frames[0].size >= 2 &&
        m.frames[0].data[0] == 0x80 && m.frames[0].data[1] > 4) {
      throw SubjectError("ValueError",
                         "unsupported pickle protocol: " + std::to_string(m.frames[0].data[1]));
    }
    Node* root = ReferenceSubject::loads(m, graph, options);
    if (bug_ == Bug::TuplesAsLists) {
      for (const Node* n : reachable(root)) {
        if (n->kind == Kind::Tuple) const_cast<Node*>(n)->kind = Kind::List;
      }
    }
    return root;
  }

 private:
  std::string name_;
  Bug bug_;
  std::vector<std::string> lost_;
};

struct Env {
  ReferenceSubject reference;
  std::map<std::string, Subject*> extra;
  PropertyEnv env;
  Env() {
    env.subject = [this](const std::string& name, std::string* why) -> Subject* {
      if (name == "reference") return &reference;
      if (auto it = extra.find(name); it != extra.end()) return it->second;
      if (why != nullptr) *why = "not in this test";
      return nullptr;
    };
  }
};

Outcome run_check(const std::string& id, Subject& s, const TestCase& c, Env& e) {
  const GateProperty* p = find_property(id);
  EXPECT_NE(p, nullptr) << id;
  Applicability a = applicability(*p, s, e.env);
  EXPECT_EQ(a.skip_reason, "") << id;
  return check_case(*p, s, c, e.env);
}

// ---- cross.matrix ---------------------------------------------------------------

TEST(CrossMatrix, IsOnePropertyPerProducerMadeOnDemand) {
  const GateProperty* p = find_property("cross.matrix/some-producer");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->id, "cross.matrix/some-producer");
  EXPECT_EQ(p, find_property("cross.matrix/some-producer"));  // one per id, kept
  EXPECT_FALSE(p->needs_dumps);
  EXPECT_TRUE(p->needs_loads);
  EXPECT_EQ(find_property("cross.matrix"), nullptr);
}

TEST(CrossMatrix, PassesAHonestConsumerAndFailsOneThatLosesTuples) {
  Env e;
  MutantSubject producer("producer", MutantSubject::Bug::None);
  e.extra["producer"] = &producer;
  TestCase c = make_case(R"({"list": [{"tuple": [1, "a"]}, 2]})", 2);

  MutantSubject honest("honest", MutantSubject::Bug::None);
  EXPECT_EQ(run_check("cross.matrix/producer", honest, c, e).status, Outcome::Status::Pass);

  // Negative control: a consumer that reads tuples as lists fails...
  MutantSubject lossy("lossy", MutantSubject::Bug::TuplesAsLists);
  Outcome o = run_check("cross.matrix/producer", lossy, c, e);
  EXPECT_TRUE(o.failed());
  EXPECT_EQ(o.fingerprint, "mismatch:kind@loads/tuple->list");
  // ...and passes once it declares it cannot express tuples: the relaxation
  // is what the subject declared, no more.
  MutantSubject declared("declared", MutantSubject::Bug::TuplesAsLists, {"tuple"});
  EXPECT_EQ(run_check("cross.matrix/producer", declared, c, e).status, Outcome::Status::Pass);
  MutantSubject other("other", MutantSubject::Bug::TuplesAsLists, {"int-float"});
  EXPECT_TRUE(run_check("cross.matrix/producer", other, c, e).failed());
}

TEST(CrossMatrix, SkipsWhatCannotBeChecked) {
  Env e;
  MutantSubject reader("reader", MutantSubject::Bug::ReadsOnly);
  MutantSubject consumer("consumer", MutantSubject::Bug::None);
  e.extra["reader"] = &reader;
  e.extra["consumer"] = &consumer;
  auto skip = [&](const std::string& id, Subject& s) {
    return applicability(*find_property(id), s, e.env).skip_reason;
  };
  EXPECT_NE(skip("cross.matrix/reader", consumer).find("does not write"), std::string::npos);
  EXPECT_NE(skip("cross.matrix/consumer", consumer).find("own pickles"), std::string::npos);
  EXPECT_NE(skip("cross.matrix/missing", consumer).find("not in this test"), std::string::npos);
  EXPECT_EQ(skip("cross.matrix/consumer", reader), "");  // a reader consumes
}

// ---- protocol.negotiated with a real peer ------------------------------------

TEST(ProtocolNegotiatedPair, AnOlderReaderGetsTheHighestProtocolItAnnounces) {
  // The simulated peer keeps the registered id; a producer's name makes the
  // pair property.
  EXPECT_EQ(find_property("protocol.negotiated")->id, "protocol.negotiated");
  const GateProperty* p = find_property("protocol.negotiated/producer");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->id, "protocol.negotiated/producer");

  Env e;
  MutantSubject producer("producer", MutantSubject::Bug::None);
  MutantSubject deaf("deaf", MutantSubject::Bug::WritesAt5);
  e.extra["producer"] = &producer;
  e.extra["deaf"] = &deaf;
  MutantSubject older("older", MutantSubject::Bug::Reads4);
  Applicability a = applicability(*p, older, e.env);
  EXPECT_EQ(a.skip_reason, "");
  EXPECT_EQ(a.plan.min_protocol, 4);
  EXPECT_EQ(a.plan.max_protocol, 4);
  EXPECT_FALSE(a.plan.out_of_band);
  TestCase c = make_case(R"({"list": [{"tuple": [1, "a"]}, {"bytes": "0001"}]})", 4);
  EXPECT_EQ(run_check("protocol.negotiated/producer", older, c, e).status, Outcome::Status::Pass);

  // Negative control: a writer that ignores what the reader announced.
  Outcome o = run_check("protocol.negotiated/deaf", older, c, e);
  EXPECT_TRUE(o.failed());
  EXPECT_EQ(o.fingerprint.rfind("negotiate:protocol", 0), 0u) << o.fingerprint;

  // A reader of every protocol the producer writes has nothing to negotiate.
  MutantSubject current("current", MutantSubject::Bug::None);
  EXPECT_NE(applicability(*p, current, e.env).skip_reason.find("nothing to negotiate"),
            std::string::npos);
}

// ---- capability rules ----------------------------------------------------------

TEST(Applicability, AReaderIsSkippedWhereDumpsAreNeededWithTheReason) {
  Env e;
  MutantSubject reader("reader", MutantSubject::Bug::ReadsOnly);
  for (const char* id : {"roundtrip.equal", "roundtrip.identity", "loads.pure", "tensor.grad"}) {
    auto a = applicability(*find_property(id), reader, e.env);
    EXPECT_NE(a.skip_reason.find("only reads"), std::string::npos) << id << ": " << a.skip_reason;
  }
  MutantSubject treeish("treeish", MutantSubject::Bug::None, {"sharing"});
  auto a = applicability(*find_property("roundtrip.identity"), treeish, e.env);
  EXPECT_NE(a.skip_reason.find("sharing"), std::string::npos);
  a = applicability(*find_property("roundtrip.equal"), treeish, e.env);
  EXPECT_EQ(a.skip_reason, "");
  EXPECT_FALSE(a.plan.graph_shaped);
}

// ---- loads.rejects-malformed ------------------------------------------------------

TEST(RejectsMalformed, PassesALoaderThatRejectsAndFailsOneThatAcceptsAnything) {
  Env e;
  // The reference's decoder stands in for CPython as the oracle here: it
  // rejects every mutation this property makes, and says so as CPython would.
  struct Oracle : ReferenceSubject {
    Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
      try {
        return ReferenceSubject::loads(m, graph, options);
      } catch (const std::exception& e) {
        throw SubjectError("UnpicklingError", e.what());
      }
    }
  } oracle;
  e.extra["cpython"] = &oracle;
  MutantSubject strict("strict", MutantSubject::Bug::None);
  for (int protocol = 0; protocol <= 5; ++protocol) {
    TestCase c = make_case(R"({"dict": [["a", {"list": [1, {"bytes": "00"}]}]]})", protocol);
    Outcome o = run_check("loads.rejects-malformed", strict, c, e);
    EXPECT_EQ(o.status, Outcome::Status::Pass) << protocol << ": " << o.message;
    // Negative control.
    MutantSubject lax("lax", MutantSubject::Bug::AcceptsAnything);
    o = run_check("loads.rejects-malformed", lax, c, e);
    EXPECT_TRUE(o.failed()) << protocol;
    EXPECT_EQ(o.fingerprint.rfind("malformed:accepted@", 0), 0u) << o.fingerprint;
  }
}

}  // namespace
}  // namespace serialcheck
