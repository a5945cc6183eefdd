// Discarded cases per gate cell: a case the cell's subject answers
// `unsupported` (docs/testee-protocol.md), one holding a kind the subject
// cannot express, and one the property sets aside itself are counted apart,
// in the worker, the runner's cell results and every report.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/props/case.h"
#include "harness/props/gate_props.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/runner.h"
#include "harness/props/value_tools.h"
#include "harness/report/json_report.h"
#include "harness/report/markdown_report.h"
#include "harness/subjects/external_subject.h"
#include "harness/subjects/reference_subject.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

// The reference under another name, refusing to dump any value that holds a
// dict (SubjectError "unsupported"), or declaring no dict kind at all.
class RefusesDicts : public ReferenceSubject {
 public:
  enum class How { Unsupported, Inexpressible };
  RefusesDicts(std::string name, How how) : name_(std::move(name)), how_(how) {}
  std::string name() const override { return name_; }
  Capabilities capabilities() const override {
    Capabilities caps = ReferenceSubject::capabilities();
    if (how_ == How::Inexpressible) caps.kinds = {"none", "bool", "int", "str", "list"};
    return caps;
  }
  Message dumps(const Node* value, const DumpOptions& options) override {
    for (const Node* n : reachable(value)) {
      if (how_ == How::Unsupported && n->kind == Kind::Dict) {
        throw SubjectError(kUnsupported, name_ + " has no dicts");
      }
    }
    return ReferenceSubject::dumps(value, options);
  }

 private:
  std::string name_;
  How how_;
};

TestCase case_of(const char* json) {
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = from_json(json, *c.graph);
  c.protocol = 2;
  return c;
}

// A property that dumps with the subject named `dumper` (the cell's subject
// or a helper) and passes when that works.
GateProperty dumping_with(std::string dumper) {
  GateProperty p;
  p.id = "test.dumps-with";
  p.check = [dumper](Subject& subject, const TestCase& c, PropertyEnv& env) {
    Subject* s = dumper.empty() ? &subject : env.subject(dumper, nullptr);
    Outcome failed;
    if (!props::dumps_step(*s, c, "dumps", failed)) return failed;
    return Outcome::pass();
  };
  return p;
}

TEST(Discards, ReasonIsTheCellSubjectsRefusalOrElseThePropertys) {
  RefusesDicts cell("cell", RefusesDicts::How::Unsupported);
  RefusesDicts helper("helper", RefusesDicts::How::Unsupported);
  RefusesDicts narrow("narrow", RefusesDicts::How::Inexpressible);
  PropertyEnv env;
  env.subject = [&](const std::string& name, std::string*) -> Subject* {
    return name == "helper" ? &helper : nullptr;
  };
  const TestCase with_dict = case_of(R"({"list": [1, {"dict": [[1, 2]]}]})");

  Outcome own = check_case(dumping_with(""), cell, with_dict, env);
  EXPECT_EQ(own.status, Outcome::Status::Discard);
  EXPECT_EQ(own.discard_reason, kDiscardUnsupported);
  EXPECT_EQ(own.discarded_by, "cell");

  // The helper's refusal says nothing about the cell's subject.
  Outcome helpers = check_case(dumping_with("helper"), cell, with_dict, env);
  EXPECT_EQ(helpers.status, Outcome::Status::Discard);
  EXPECT_EQ(helpers.discard_reason, kDiscardProperty);

  Outcome inexpressible = check_case(dumping_with(""), narrow, with_dict, env);
  EXPECT_EQ(inexpressible.status, Outcome::Status::Discard);
  EXPECT_EQ(inexpressible.discard_reason, kDiscardInexpressible);

  Outcome passes = check_case(dumping_with(""), cell, case_of(R"({"list": [1]})"), env);
  EXPECT_EQ(passes.status, Outcome::Status::Pass);

  // A probe's outcome keeps its reason through the worker's JSON line.
  Outcome back = outcome_from_json(outcome_to_json(own));
  EXPECT_EQ(back.discard_reason, kDiscardUnsupported);
  EXPECT_EQ(back.discarded_by, "cell");
  EXPECT_EQ(outcome_from_json(outcome_to_json(Outcome::discard("x"))).discard_reason,
            kDiscardProperty);
}

TesteeConfig fake_testee(const std::string& args) {
  TesteeConfig c;
  c.name = "fake";
  c.command = std::string("/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
              "/suite/tests/testees/fake_testee.py' " + args;
  c.timeout_s = 20;
  c.start_timeout_s = 20;
  c.origin = "test";
  return c;
}

RunOutput run_fake(const std::string& args, int cases) {
  RunOptions o;
  o.factories = {{"reference", [] { return std::make_unique<ReferenceSubject>(); }},
                 {"fake", [args] { return std::make_unique<ExternalSubject>(fake_testee(args)); }}};
  o.cells = {{"fake", "roundtrip.equal"}};
  o.cases = cases;
  o.max_size = 30;
  o.seed = 17;
  o.jobs = 1;
  o.case_timeout_s = 60;
  return run_cells(o);
}

RunReport report_of(const RunOutput& out) {
  RunReport r;
  r.subjects = {"fake"};
  r.properties = {"roundtrip.equal"};
  r.cells = out.cells;
  return r;
}

// An external testee that answers `unsupported` for every value with a
// dict: its cell passes on the cases it could check, and the reports say
// how many more were discarded and why.
TEST(Discards, UnsupportedAnswersOfAnExternalTesteeAreCountedInEveryReport) {
  // The fake testee's NaNs come back canonical.
  const std::string caps = R"( --caps '{"python_values": false, "cannot_express": ["nan-bits"]}')";
  const RunOutput refusing = run_fake("--unsupported dict" + caps, 30);
  ASSERT_EQ(refusing.cells.size(), 1u);
  const CellResult& cell = refusing.cells[0];
  ASSERT_EQ(cell.verdict, Verdict::Pass) << cell.skip_reason << cell.message;
  EXPECT_EQ(cell.cases, 30);
  const int unsupported =
      cell.discarded.count("unsupported") ? cell.discarded.at("unsupported") : 0;
  EXPECT_GT(unsupported, 0);
  EXPECT_EQ(cell.discarded.count("property"), 0u);

  // Negative control: the same testee without the refusal discards fewer
  // cases as unsupported (only values its canonical JSON reader lacks).
  const RunOutput plain = run_fake(caps.substr(1), 30);
  ASSERT_EQ(plain.cells.size(), 1u);
  const int plain_unsupported = plain.cells[0].discarded.count("unsupported")
                                    ? plain.cells[0].discarded.at("unsupported")
                                    : 0;
  EXPECT_LT(plain_unsupported, unsupported);

  const RunReport r = report_of(refusing);
  const nlohmann::json j = report_to_json(r)["cells"][0];
  EXPECT_EQ(j["cases"], 30);
  EXPECT_EQ(j["discarded"],
            (nlohmann::json{{"unsupported", unsupported}, {"inexpressible", 0}, {"property", 0}}));

  const std::string label = "pass 30 (" + std::to_string(unsupported) + " discarded)";
  const std::string md = markdown_report(r);
  EXPECT_NE(md.find("| fake | " + label + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Discarded cases"), std::string::npos);
  EXPECT_NE(
      md.find("| fake | roundtrip.equal | 30 | " + std::to_string(unsupported) + " | 0 | 0 |"),
      std::string::npos)
      << md;

  const std::string text = matrix_text(r);
  EXPECT_NE(text.find(label), std::string::npos) << text;
  EXPECT_NE(text.find("discarded: " + std::to_string(unsupported) + " unsupported"),
            std::string::npos)
      << text;
}

// A cell without discards says nothing about them, but its JSON still
// counts every reason, at zero.
TEST(Discards, ACellWithoutDiscardsShowsNone) {
  RunReport r;
  r.subjects = {"reference"};
  r.properties = {"roundtrip.equal"};
  CellResult c;
  c.subject = "reference";
  c.property = "roundtrip.equal";
  c.cases = 100;
  r.cells = {c};
  EXPECT_EQ(report_to_json(r)["cells"][0]["discarded"],
            (nlohmann::json{{"unsupported", 0}, {"inexpressible", 0}, {"property", 0}}));
  EXPECT_EQ(cell_label(&r.cells[0]), "pass 100");
  EXPECT_EQ(markdown_report(r).find("## Discarded cases"), std::string::npos);
  EXPECT_EQ(discards_text(r), "");

  r.cells[0].discarded = {{"property", 3}, {"unsupported", 90}};
  EXPECT_EQ(cell_label(&r.cells[0]), "pass 100 (93 discarded)");
  EXPECT_EQ(r.cells[0].discard_summary(), "90 unsupported, 3 property");
  EXPECT_EQ(report_to_json(r)["cells"][0]["discarded"],
            (nlohmann::json{{"unsupported", 90}, {"inexpressible", 0}, {"property", 3}}));
}

}  // namespace
}  // namespace serialcheck
