// The recipes of cross.stdlib (docs/versions.md, "Stdlib values across
// versions"): names of standard-library values, "<kind>:<variant>"
// ("decimal.Decimal:1", "itertools.count:0"), that each subject's own
// interpreter builds (harness/testees/python/serialcheck_stdlib.py holds
// what each name builds; a test checks that its RECIPES and this table are
// one list, in one order).
//
// A case of cross.stdlib is one recipe, as a str value, and a protocol:
// the value model has no stdlib objects, and a name is what both sides can
// build. Shrinking goes towards the table's first recipes.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <string_view>
#include <vector>

#include "harness/gen/value.h"

namespace serialcheck::gen {

// Every recipe, in serialcheck_stdlib.RECIPES's order.
const std::vector<std::string_view>& stdlib_recipes();

// Whether `name` is one of them.
bool is_stdlib_recipe(std::string_view name);

// The kind part of a recipe ("decimal.Decimal" of "decimal.Decimal:1"); the
// name itself when it has no colon.
std::string_view recipe_kind(std::string_view recipe);

// A recipe drawn from the table, shrinking towards its first entries.
rc::Gen<std::string> stdlibRecipe();
// The same as a str value (the root of a fresh graph).
rc::Gen<GeneratedValue> stdlibRecipeValue();

}  // namespace serialcheck::gen
