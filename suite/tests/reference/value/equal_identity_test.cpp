// Equality (reference/value/equal.h) tested directly. Every property of the
// gate judges with it, so a comparator that misses a difference makes every
// property pass what it should fail, and no property can notice. Each test
// is a pair that must differ, checked both ways round, beside its equal
// twin (the same text read into another graph), so a comparator that said
// "different" to everything would fail too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/value/equal.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

struct Verdict {
  bool same = false;
  std::string reason;  // the Difference's reason when they differ
};

Verdict compare(const std::string& a, const std::string& b, const EqualOptions& options = {}) {
  Graph ga;
  Graph gb;
  Difference d;
  Verdict v;
  v.same = equal(from_json(a, ga), from_json(b, gb), options, &d);
  v.reason = d.reason;
  return v;
}

// `a` and `b` differ (either way round), the reason names `why`, and each
// equals a copy of itself read into another graph.
void expect_differ(const std::string& a, const std::string& b, const std::string& why,
                   const EqualOptions& options = {}) {
  SCOPED_TRACE(a + "  vs  " + b);
  Verdict ab = compare(a, b, options);
  Verdict ba = compare(b, a, options);
  EXPECT_FALSE(ab.same);
  EXPECT_FALSE(ba.same);
  EXPECT_NE(ab.reason.find(why), std::string::npos) << ab.reason;
  EXPECT_NE(ba.reason.find(why), std::string::npos) << ba.reason;
  EXPECT_TRUE(compare(a, a, options).same) << "twin of the left: " << compare(a, a, options).reason;
  EXPECT_TRUE(compare(b, b, options).same)
      << "twin of the right: " << compare(b, b, options).reason;
}

void expect_same(const std::string& a, const std::string& b, const EqualOptions& options = {}) {
  SCOPED_TRACE(a + "  vs  " + b);
  Verdict ab = compare(a, b, options);
  EXPECT_TRUE(ab.same) << ab.reason;
  EXPECT_TRUE(compare(b, a, options).same);
}

// One value of each kind that has identity, written with an id so that a
// test can share it ({"ref": 1}), and the same value without the id.
struct IdentityKind {
  const char* name;
  std::string with_id;  // contains "ID" where the id member goes
  std::string plain() const { return with(""); }
  std::string with(const std::string& id) const {
    std::string s = with_id;
    auto at = s.find("ID");
    s.replace(at, 2, id.empty() ? std::string() : ", \"id\": " + id);
    return s;
  }
  bool immutable = false;  // CPython may share or copy it freely
};

std::vector<IdentityKind> identity_kinds() {
  const std::string obj_body =
      R"("object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": [1]}})";
  return {
      {"dict", R"({"dict": [["k", 1]]ID})"},
      {"set", R"({"set": [1, 2]ID})"},
      {"bytearray", R"({"bytearray": "6162"ID})"},
      {"list", R"({"list": [1, "x"]ID})"},
      {"object", "{" + obj_body + "ID}"},
      {"str", R"({"str": "shared text"ID})", true},
      {"bytes", R"({"bytes": "00ff"ID})", true},
      {"tuple", R"({"tuple": [1, 2]ID})", true},
      {"frozenset", R"({"frozenset": [3]ID})", true},
  };
}

EqualOptions loose() {
  EqualOptions o;
  o.immutable_sharing = false;
  return o;
}

// ---- sharing ---------------------------------------------------------------------

TEST(EqualIdentity, OneObjectTwiceIsNotTwoEqualObjects) {
  for (const IdentityKind& k : identity_kinds()) {
    SCOPED_TRACE(k.name);
    const std::string shared = R"({"list": [)" + k.with("1") + R"(, {"ref": 1}]})";
    const std::string copies = R"({"list": [)" + k.plain() + ", " + k.plain() + "]}";
    expect_differ(shared, copies, "sharing differs");
    // Mutable kinds keep their identity even where CPython's caching of
    // immutable objects is forgiven.
    if (k.immutable) {
      expect_same(shared, copies, loose());
    } else {
      expect_differ(shared, copies, "sharing differs", loose());
    }
  }
}

TEST(EqualIdentity, TheSameSharingInAnotherPlaceDiffers) {
  for (const IdentityKind& k : identity_kinds()) {
    SCOPED_TRACE(k.name);
    // [x, y, x] against [x, y, y], x and y equal in structure.
    const std::string first =
        R"({"list": [)" + k.with("1") + ", " + k.plain() + R"(, {"ref": 1}]})";
    const std::string second =
        R"({"list": [)" + k.plain() + ", " + k.with("1") + R"(, {"ref": 1}]})";
    expect_differ(first, second, "sharing differs");
    if (!k.immutable) expect_differ(first, second, "sharing differs", loose());
  }
}

TEST(EqualIdentity, SharingAcrossContainersCounts) {
  for (const IdentityKind& k : identity_kinds()) {
    SCOPED_TRACE(k.name);
    // A dict value and a list item that are one object, against two.
    const std::string shared =
        R"({"tuple": [{"dict": [["a", )" + k.with("1") + R"(]]}, {"list": [{"ref": 1}]}]})";
    const std::string copies =
        R"({"tuple": [{"dict": [["a", )" + k.plain() + R"(]]}, {"list": [)" + k.plain() + "]}]}";
    expect_differ(shared, copies, "sharing differs");
    if (!k.immutable) expect_differ(shared, copies, "sharing differs", loose());
  }
}

TEST(EqualIdentity, ObjectPartsShareWithTheRestOfTheGraph) {
  // The same dict as an object's state and as a list item, against a copy.
  const std::string shared = R"({"list": [{"dict": [["a", 1]], "id": 1},
      {"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "state": {"ref": 1}}}]})";
  const std::string copies = R"({"list": [{"dict": [["a", 1]]},
      {"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []},
                  "state": {"dict": [["a", 1]]}}}]})";
  expect_differ(shared, copies, "sharing differs");
  expect_differ(shared, copies, "sharing differs", loose());
}

TEST(EqualIdentity, SetItemsShareWithTheRestOfTheGraph) {
  const std::string shared = R"({"list": [{"set": [{"frozenset": [1], "id": 1}, 2]}, {"ref": 1}]})";
  const std::string copies = R"({"list": [{"set": [{"frozenset": [1]}, 2]}, {"frozenset": [1]}]})";
  expect_differ(shared, copies, "sharing differs");
  // The set's own order is no part of the value.
  expect_same(shared, R"({"list": [{"set": [2, {"frozenset": [1], "id": 1}]}, {"ref": 1}]})");
}

// ---- cycles ------------------------------------------------------------------------

TEST(EqualIdentity, ACycleIsNotItsUnfolding) {
  // Unfolded once, a cycle is the same infinite tree, but not the same graph.
  struct Cycle {
    const char* name;
    std::string cycle;
    std::string unfolded;
  };
  const std::vector<Cycle> cycles = {
      {"list", R"({"list": [1, {"ref": 1}], "id": 1})",
       R"({"list": [1, {"list": [1, {"ref": 2}], "id": 2}]})"},
      {"dict", R"({"dict": [["self", {"ref": 1}]], "id": 1})",
       R"({"dict": [["self", {"dict": [["self", {"ref": 2}]], "id": 2}]]})"},
      {"object",
       R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "state": {"ref": 1}}, "id": 1})",
       R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "state":
          {"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "state": {"ref": 2}},
           "id": 2}}})"},
      {"tuple through a list", R"({"tuple": [{"list": [{"ref": 1}]}], "id": 1})",
       R"({"tuple": [{"list": [{"tuple": [{"list": [{"ref": 2}]}], "id": 2}]}]})"},
  };
  for (const Cycle& c : cycles) {
    SCOPED_TRACE(c.name);
    expect_differ(c.cycle, c.unfolded, "sharing differs");
    expect_differ(c.cycle, c.unfolded, "sharing differs", loose());
  }
}

TEST(EqualIdentity, CyclesThroughDifferentNodesDiffer) {
  // [a, b] where a contains itself, against [a, b] where a contains b.
  const std::string self =
      R"({"list": [{"list": [{"ref": 1}], "id": 1}, {"list": [{"list": []}]}]})";
  const std::string other =
      R"({"list": [{"list": [{"list": [{"list": []}], "id": 2}]}, {"ref": 2}]})";
  EXPECT_FALSE(compare(self, other).same);
  EXPECT_FALSE(compare(other, self).same);
  expect_same(self, self);
  // A cycle at another depth.
  expect_differ(R"({"list": [{"list": [{"ref": 2}], "id": 2}]})",
                R"({"list": [{"list": [{"ref": 1}]}], "id": 1})", "sharing differs");
}

// ---- kinds -------------------------------------------------------------------------

TEST(EqualIdentity, KindsDifferEvenWithTheSameContents) {
  struct Pair {
    const char* a;
    const char* b;
  };
  const Pair pairs[] = {
      {R"({"list": [1, 2]})", R"({"tuple": [1, 2]})"},
      {R"({"set": [1]})", R"({"frozenset": [1]})"},
      {R"({"bytes": "6162"})", R"({"bytearray": "6162"})"},
      {R"({"bytes": "6162"})", R"("ab")"},
      {R"({"bytearray": "6162"})", R"({"buffer": "6162", "readonly": false})"},
      {R"({"dict": []})", R"({"list": []})"},
      {R"({"dict": []})", R"({"set": []})"},
      {R"(1)", R"(true)"},
      {R"(1)", R"({"float": "1.0"})"},
      {R"(0)", R"(false)"},
      {R"(null)", R"({"tuple": []})"},
      {R"({"global": ["m", "C"]})", R"("m.C")"},
      {R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}}})",
       R"({"tuple": [{"global": ["m", "C"]}, {"tuple": []}]})"},
  };
  for (const Pair& p : pairs) expect_differ(p.a, p.b, "kind");
  // Inside a shared node, reached the second time only through the sharing.
  expect_differ(R"({"list": [{"list": [{"list": [1]}], "id": 1}, {"ref": 1}]})",
                R"({"list": [{"list": [{"tuple": [1]}], "id": 1}, {"ref": 1}]})", "kind");
}

TEST(EqualIdentity, ContentsOfEachKindDiffer) {
  struct Pair {
    const char* a;
    const char* b;
    const char* why;
  };
  const Pair pairs[] = {
      {R"({"dict": [["a", 1], ["b", 2]]})", R"({"dict": [["b", 2], ["a", 1]]})", "str"},  // order
      {R"({"dict": [["a", 1]]})", R"({"dict": [["a", 2]]})", "int"},
      {R"({"dict": [["a", 1]]})", R"({"dict": [["a", 1], ["b", 1]]})", "length"},
      {R"({"set": [1, 2]})", R"({"set": [1, 3]})", "no equal"},
      {R"({"bytearray": "6162"})", R"({"bytearray": "6163"})", "differ at offset 1"},
      {R"({"bytearray": "61"})", R"({"bytearray": "6100"})", "length"},
      {R"({"bytes": "00"})", R"({"bytes": ""})", "length"},
      {R"("a")", R"("b")", "str"},
      {R"({"tuple": [1]})", R"({"tuple": [1, 1]})", "length"},
      {R"({"float": "0.0"})", R"({"float": "-0.0"})", "float"},
      {R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}}})",
       R"({"object": {"callable": {"global": ["m", "D"]}, "args": {"tuple": []}}})", "global"},
      {R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}}})",
       R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "state": null}})",
       "state"},
      {R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "listitems": [1]}})",
       R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "listitems": [2]}})",
       "int"},
      {R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "dictitems": [["k", 1]]}})",
       R"({"object": {"callable": {"global": ["m", "C"]}, "args": {"tuple": []}, "dictitems": [["j", 1]]}})",
       "str"},
  };
  for (const Pair& p : pairs) expect_differ(p.a, p.b, p.why);
  // Set order is no part of the value; dict order is.
  expect_same(R"({"set": [1, "a", {"tuple": []}]})", R"({"set": [{"tuple": []}, "a", 1]})");
  expect_same(R"({"frozenset": [1, 2]})", R"({"frozenset": [2, 1]})");
}

TEST(EqualIdentity, ADictKeySharedWithAValueCounts) {
  // One string as a key and as a value, against two equal strings.
  const std::string shared = R"({"dict": [[{"str": "k", "id": 1}, {"ref": 1}]]})";
  const std::string copies = R"({"dict": [["k", "k"]]})";
  expect_differ(shared, copies, "sharing differs");
  expect_same(shared, copies, loose());
  // A tuple key shared with a value inside a list.
  expect_differ(R"({"list": [{"dict": [[{"tuple": [1], "id": 1}, 0]]}, {"ref": 1}]})",
                R"({"list": [{"dict": [[{"tuple": [1]}, 0]]}, {"tuple": [1]}]})",
                "sharing differs");
}

}  // namespace
}  // namespace serialcheck
