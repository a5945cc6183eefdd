// cross.py2 in the embedded interpreter: what the real CPython 2.7 wrote
// (corpus/python2, scripts/make-python2-corpus) read by the cpython and
// cpython-py subjects with each of Python 3's choices, so that every build
// checks Python 3's side against 2.7's real pickles; and the options
// reaching Python (a choice ignored would pass some cells unseen).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "harness/props/gate_props.h"
#include "harness/subjects/python_subjects.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/python2_corpus.h"
#include "suite/tests/support/python_test.h"

namespace serialcheck {
namespace {

class Python2Corpus : public test_support::PythonTest {};

// Each choice's rule holds for every pickle 2.7 wrote, but one: 2.7 writes
// a bytearray as bytearray(u'...', 'latin-1'), whose 'latin-1' is a
// Python 2 str, and with encoding='bytes' Python 3 calls bytearray() with
// a bytes encoding, which it refuses (docs/versions.md, "Python 2 and 3").
TEST_F(Python2Corpus, Python3ReadsWhat27WroteWithEachChoice) {
  auto corpus = test_support::load_python2_corpus();
  ASSERT_TRUE(corpus.has_value());
  test_support::Python2CorpusSubject writer(*corpus);
  for (auto make : {make_cpython_subject, make_cpython_py_subject}) {
    std::unique_ptr<PythonSubject> reader = make("pickle");
    ASSERT_FALSE(reader->unavailable_reason().has_value());
    PropertyEnv env = test_support::env_with({{"cpython-2.7", &writer}});
    std::set<std::string> failed;
    for (const char* choice : {"ascii", "latin1", "bytes", "no-fix-imports"}) {
      const GateProperty* p = find_property(std::string("cross.py2/cpython-2.7@") + choice);
      ASSERT_NE(p, nullptr);
      ASSERT_EQ(applicability(*p, *reader, env).skip_reason, "") << reader->name();
      int passed = 0;
      for (const auto& pickled : corpus->pickles) {
        Outcome o = check_case(*p, *reader, pickled.c, env);
        if (o.status == Outcome::Status::Pass) ++passed;
        // Without a chosen encoding 2.7 is not asked for bytes beyond ASCII.
        if (o.status == Outcome::Status::Discard) {
          EXPECT_EQ(choice, std::string("no-fix-imports")) << pickled.name << ": " << o.message;
        }
        if (!o.failed()) continue;
        failed.insert(std::string(choice) + " " + pickled.name);
        EXPECT_EQ(o.fingerprint.rfind("exception:TypeError@loads", 0), 0u) << o.fingerprint;
        EXPECT_NE(o.message.find("bytearray"), std::string::npos) << o.message;
      }
      EXPECT_GE(passed, static_cast<int>(corpus->pickles.size()) / 2) << choice;
    }
    EXPECT_EQ(failed, (std::set<std::string>{"bytes bytearray"})) << reader->name();
  }
}

// The choices reach Python: 2.7's set names __builtin__, which Python 3
// imports only through fix_imports; its str beyond ASCII loads by encoding.
TEST_F(Python2Corpus, TheChoicesReachPython) {
  auto corpus = test_support::load_python2_corpus();
  ASSERT_TRUE(corpus.has_value());
  std::map<std::string, std::string> pickles;
  for (const auto& p : corpus->pickles) {
    if (p.c.protocol == 2) pickles[p.name] = p.pickle;
  }
  ASSERT_TRUE(pickles.count("set") && pickles.count("latin1-str"));
  auto message = [](const std::string& bytes) {
    Message m;
    m.frames.push_back(Frame::owned(bytes));
    return m;
  };
  std::unique_ptr<PythonSubject> cpython = make_cpython_subject();
  Graph g;
  LoadOptions no_fix;
  no_fix.fix_imports = false;
  EXPECT_EQ(cpython->loads(message(pickles["set"]), g, {})->kind, Kind::Set);
  try {
    cpython->loads(message(pickles["set"]), g, no_fix);
    ADD_FAILURE() << "fix_imports=False imported __builtin__";
  } catch (const SubjectError& e) {
    EXPECT_NE(std::string(e.what()).find("__builtin__"), std::string::npos) << e.what();
  }
  LoadOptions as_bytes;
  as_bytes.encoding = "bytes";
  EXPECT_EQ(cpython->loads(message(pickles["latin1-str"]), g, as_bytes)->kind, Kind::Bytes);
  EXPECT_THROW(cpython->loads(message(pickles["latin1-str"]), g, {}), SubjectError);

  // And the writer's: Python 3's names without fix_imports.
  Graph v;
  Node* set = v.set({v.integer(1)});
  DumpOptions written;
  written.protocol = 2;
  EXPECT_NE(std::string(cpython->dumps(set, written).frames[0].view()).find("__builtin__"),
            std::string::npos);
  written.fix_imports = false;
  const std::string unfixed(cpython->dumps(set, written).frames[0].view());
  EXPECT_EQ(unfixed.find("__builtin__"), std::string::npos);
  EXPECT_NE(unfixed.find("builtins"), std::string::npos);
}

}  // namespace
}  // namespace serialcheck
