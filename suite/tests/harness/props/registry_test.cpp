// The gate's one property registry (harness/props/prop_registry.h): each
// file registers its properties with their place in the matrix, the places
// and ids are unique, and docs/conformance.md defines exactly the registered
// properties, each under a `#### <id>` heading.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/gate_props.h"
#include "harness/props/prop_registry.h"

namespace serialcheck {
namespace {

// The ids of the `#### <id>` headings of a Markdown text, outside code fences.
std::vector<std::string> section_ids(const std::string& doc) {
  std::vector<std::string> ids;
  std::istringstream lines(doc);
  bool fenced = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.rfind("#### ", 0) != 0) continue;
    std::string id = line.substr(5);
    id = id.substr(0, id.find(' '));
    ids.push_back(id);
  }
  return ids;
}

// Where `doc` and the registered ids disagree, one line each.
std::vector<std::string> doc_problems(const std::string& doc,
                                      const std::vector<std::string>& registered) {
  const std::vector<std::string> ids = section_ids(doc);
  const std::set<std::string> documented(ids.begin(), ids.end());
  const std::set<std::string> known(registered.begin(), registered.end());
  std::vector<std::string> problems;
  for (const std::string& id : registered) {
    if (documented.count(id) == 0) problems.push_back("no `#### " + id + "` section");
  }
  for (const std::string& id : ids) {
    if (known.count(id) == 0) {
      problems.push_back("section `#### " + id + "` names no registered property");
    }
  }
  return problems;
}

// Every registered id, and the matrix's (one property per producer).
std::vector<std::string> registered_ids() {
  std::vector<std::string> ids;
  for (const GateProperty& p : gate_properties()) ids.push_back(p.id);
  for (const PairFamily& f : pair_families()) ids.emplace_back(f.id);
  return ids;
}

std::string conformance_md() {
  std::ifstream in(std::string(SERIALCHECK_SOURCE_DIR) + "/docs/conformance.md");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(GateRegistry, DocumentsEveryProperty) {
  const std::string doc = conformance_md();
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc_problems(doc, registered_ids()), std::vector<std::string>{});
}

// The check itself catches both mistakes: a registered property without its
// section, and a section of a property that is not registered.
TEST(GateRegistry, DocCheckCatchesAMissingOrStraySection) {
  const std::string doc =
      "# Doc\n\n#### roundtrip.equal\n\ntext\n\n```\n#### in.a-fence\n```\n"
      "#### no.such-property\n";
  EXPECT_EQ(doc_problems(doc, {"roundtrip.equal", "bytes.reencode"}),
            (std::vector<std::string>{
                "no `#### bytes.reencode` section",
                "section `#### no.such-property` names no registered property"}));
  // The real document without one registered property's section.
  std::string missing = conformance_md();
  const std::string heading = "\n#### bytes.reencode\n";
  const auto at = missing.find(heading);
  ASSERT_NE(at, std::string::npos);
  missing.replace(at, heading.size(), "\n");
  EXPECT_EQ(doc_problems(missing, registered_ids()),
            std::vector<std::string>{"no `#### bytes.reencode` section"});
}

TEST(GateRegistry, PlacesAndIdsAreUnique) {
  const props::Registry all = props::registrations();
  ASSERT_EQ(all.size(), gate_properties().size());
  std::set<std::string> ids;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_TRUE(ids.insert(all[i].property.id).second) << "registered twice: " << all[i].property.id;
    EXPECT_EQ(gate_properties()[i].id, all[i].property.id) << "the matrix follows the places";
    if (i > 0) {
      EXPECT_LT(all[i - 1].order, all[i].order)
          << all[i - 1].property.id << " and " << all[i].property.id << " share a place";
    }
  }
}

}  // namespace
}  // namespace serialcheck
