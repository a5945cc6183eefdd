// Equality and the JSON form learn the domain kinds through a registration
// (reference/value/domain_kinds.h); the types room registers them
// (reference/types/value_kinds.h).
#include "reference/value/domain_kinds.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "reference/types/value_kinds.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

// Puts `kind`'s registered hooks back when the test ends.
class HooksRestored {
 public:
  explicit HooksRestored(Kind kind) : kind_(kind), saved_(domain_kind(kind)) {}
  ~HooksRestored() { register_domain_kind(kind_, saved_); }
  HooksRestored(const HooksRestored&) = delete;
  HooksRestored& operator=(const HooksRestored&) = delete;

 private:
  Kind kind_;
  DomainKind saved_;
};

Node* small_tensor(Graph& g) {
  Node* t = g.tensor();
  t->array()->dtype = "uint8";
  t->array()->shape = {2};
  t->array()->strides = {1};
  t->set_owned("ab");
  return t;
}

TEST(DomainKinds, TheTypesRoomRegistersItsKindsBeforeMain) {
  for (Kind k : {Kind::NDArray, Kind::Tensor}) {
    EXPECT_NE(domain_kind(k).equal, nullptr) << kind_name(k);
    EXPECT_NE(domain_kind(k).json_problem, nullptr) << kind_name(k);
  }
  EXPECT_NE(domain_kind(Kind::Module).json_problem, nullptr);
  types::register_value_kinds();  // again: harmless
  EXPECT_NE(domain_kind(Kind::Tensor).equal, nullptr);
}

TEST(DomainKinds, AKindNothingRegisteredIsALogicError) {
  try {
    (void)domain_kind(Kind::List);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("serialcheck: nothing registered for the list kind", 0),
              0u)
        << e.what();
  }
}

TEST(DomainKinds, EqualityAsksTheRegisteredHook) {
  Graph g;
  Node* a = small_tensor(g);
  Node* b = small_tensor(g);
  Difference why;
  EXPECT_TRUE(equal(a, b, &why)) << why.reason;  // control: the types room's own hook
  HooksRestored restore(Kind::Tensor);
  DomainKind hooks = domain_kind(Kind::Tensor);
  hooks.equal = [](const Node&, const Node&, const EqualOptions&, std::string* reason) {
    *reason = "the registered hook says no";
    return false;
  };
  register_domain_kind(Kind::Tensor, hooks);
  EXPECT_FALSE(equal(a, b, &why));
  EXPECT_EQ(why.reason, "the registered hook says no");
  EXPECT_EQ(why.path, "root");
}

TEST(DomainKinds, JsonReadingAsksTheRegisteredHook) {
  Graph control;
  EXPECT_NO_THROW(from_json(R"({"module":"os.path"})", control));
  HooksRestored restore(Kind::Module);
  DomainKind hooks = domain_kind(Kind::Module);
  hooks.json_problem = [](const Node& n) -> std::optional<std::string> {
    return "refused " + n.name();
  };
  register_domain_kind(Kind::Module, hooks);
  Graph g;
  try {
    from_json(R"({"module":"os.path"})", g);
    FAIL() << "no error";
  } catch (const JsonFormError& e) {
    EXPECT_EQ(e.where(), "/module");
    EXPECT_STREQ(e.what(), "/module: refused os.path");
  }
}

}  // namespace
}  // namespace serialcheck
