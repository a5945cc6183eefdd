// Python objects of every reduce shape (harness/testees/python/
// serialcheck_fixtures.py) in generated values.
//
// The generator asks for such an object with a request node: the generic
// object serialcheck_fixtures.make(kind, *args), whose args are generated
// values. A request is not what the C pickler writes for the object it asks
// for: what CPython's __reduce_ex__ returns depends on the protocol. So
// before a case uses the value, a resolver (installed by the embedded
// interpreter, harness/python/fixtures.h) builds the real objects and
// describes the whole value again as the pickler sees it at the case's
// protocol. The reference then encodes that description, the Python subjects
// build and pickle the real objects, and bytes.match-cpython compares them.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/gen/value.h"

namespace serialcheck::gen {

inline constexpr std::string_view kFixturesModule = "serialcheck_fixtures";
inline constexpr std::string_view kFixtureMaker = "make";

struct FixtureKind {
  std::string_view name;  // make()'s first argument
  int arity;              // generated arguments after it
  int min_protocol;       // CPython refuses to pickle it below this one
};

// Every shape the fixtures module makes (its FIXTURES table; a test keeps
// the two in step).
const std::vector<FixtureKind>& fixture_kinds();

// A request node's kind, or empty when `n` is no request.
std::string_view fixture_request_kind(const Node* n);

// Whether any node reachable from `root` is a request.
bool has_fixture_requests(const Node* root);

// Describes `value` with its requests replaced by the real objects, as the
// pickler sees them at `protocol`; nullopt when Python cannot build or
// reduce them.
using FixtureResolver =
    std::function<std::optional<GeneratedValue>(const GeneratedValue& value, int protocol)>;

// Installed once per process by whoever can build Python objects.
void set_fixture_resolver(FixtureResolver resolver);
bool have_fixture_resolver();

// nullopt when no resolver is installed or it fails.
std::optional<GeneratedValue> resolve_fixtures(const GeneratedValue& value, int protocol);

// Whether `value`, a description of real Python objects (a resolved value,
// or one edited from it), is what the objects built from it reduce to again
// at `protocol`. The Python subjects build their objects from the value, so
// a value that fails this no longer stands for objects any of them holds: a
// shrinker's edit that drops an argument a class's __getnewargs_ex__ gives
// back, say. Installed with the resolver; without one, every value passes.
using FixtureChecker = std::function<bool(const Node* value, int protocol)>;
void set_fixture_checker(FixtureChecker checker);
bool rebuilds_to_itself(const Node* value, int protocol);

}  // namespace serialcheck::gen
