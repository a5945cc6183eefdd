#include "harness/gen/stdlib_recipes.h"

#include <algorithm>
#include <memory>

namespace serialcheck::gen {

const std::vector<std::string_view>& stdlib_recipes() {
  // Grouped by kind. A name keeps its value once published; a new recipe
  // goes at the end (in serialcheck_stdlib.py too), so that a seed still
  // draws what it drew.
  static const std::vector<std::string_view> recipes = {
      "datetime.date:0",
      "datetime.datetime:0",
      "datetime.datetime:1",
      "datetime.datetime:2",
      "datetime.datetime:3",
      "datetime.time:0",
      "datetime.time:1",
      "datetime.timedelta:0",
      "datetime.timezone:0",
      "datetime.timezone:1",
      "decimal.Decimal:0",
      "decimal.Decimal:1",
      "decimal.Decimal:2",
      "decimal.Decimal:3",
      "decimal.Decimal:4",
      "fractions.Fraction:0",
      "complex:0",
      "complex:1",
      "int:0",
      "int:1",
      "int:2",
      "enum.Enum:0",
      "enum.IntEnum:0",
      "enum.IntEnum:1",
      "enum.Flag:0",
      "enum.Flag:1",
      "enum.Flag:2",
      "collections.OrderedDict:0",
      "collections.defaultdict:0",
      "collections.deque:0",
      "collections.Counter:0",
      "collections.namedtuple:0",
      "collections.namedtuple:1",
      "collections.namedtuple:2",
      "types.SimpleNamespace:0",
      "time.struct_time:0",
      "array.array:0",
      "array.array:1",
      "pathlib.PurePosixPath:0",
      "pathlib.PureWindowsPath:0",
      "ipaddress.IPv4Address:0",
      "ipaddress.IPv6Address:0",
      "ipaddress.IPv6Address:1",
      "ipaddress.IPv4Network:0",
      "ipaddress.IPv6Interface:0",
      "uuid.UUID:0",
      "uuid.UUID:1",
      "re.Pattern:0",
      "re.Pattern:1",
      "range:0",
      "slice:0",
      "typing.Union:0",
      "typing.Union:1",
      "typing.Union:2",
      "typing.GenericAlias:0",
      "typing.GenericAlias:1",
      "functools.partial:0",
      "functools.partial:1",
      "operator.itemgetter:0",
      "operator.attrgetter:0",
      "operator.attrgetter:1",
      "operator.methodcaller:0",
      "itertools.count:0",
      "itertools.cycle:0",
      "itertools.repeat:0",
      "itertools.islice:0",
      "itertools.chain:0",
      "itertools.product:0",
      "itertools.accumulate:0",
      "builtins.ValueError:0",
      "builtins.ValueError:1",
      "builtins.KeyError:0",
      "builtins.OSError:0",
      "builtins.UnicodeDecodeError:0",
      "builtins.ExceptionGroup:0",
  };
  return recipes;
}

bool is_stdlib_recipe(std::string_view name) {
  const auto& all = stdlib_recipes();
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::string_view recipe_kind(std::string_view recipe) {
  return recipe.substr(0, recipe.rfind(':'));
}

rc::Gen<std::string> stdlibRecipe() {
  const auto& all = stdlib_recipes();
  return rc::gen::map(rc::gen::inRange<std::size_t>(0, all.size()),
                      [&all](std::size_t i) { return std::string(all[i]); });
}

rc::Gen<GeneratedValue> stdlibRecipeValue() {
  return rc::gen::map(stdlibRecipe(), [](const std::string& recipe) {
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    v.root = v.graph->str(recipe);
    v.graph->root = v.root;
    return v;
  });
}

}  // namespace serialcheck::gen
