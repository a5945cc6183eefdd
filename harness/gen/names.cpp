#include "harness/gen/names.h"

#include <array>
#include <vector>

#include "harness/gen/choice.h"
#include "harness/gen/text.h"

namespace serialcheck::gen {

namespace {

using NameRow = std::pair<std::string_view, std::string_view>;

// Checked against CPython 3.11: pickle.dumps(obj) names exactly this global
// at every protocol (modulo the Python 2 mapping below protocol 3).
constexpr std::array kRealNames = {
    NameRow{"builtins", "len"},
    NameRow{"builtins", "print"},
    NameRow{"builtins", "object"},
    NameRow{"builtins", "getattr"},
    NameRow{"builtins", "range"},
    NameRow{"builtins", "str"},
    NameRow{"builtins", "int"},
    NameRow{"builtins", "dict"},
    NameRow{"builtins", "list"},
    NameRow{"builtins", "ValueError"},
    NameRow{"builtins", "set"},
    NameRow{"collections", "OrderedDict"},
    NameRow{"collections", "deque"},
    NameRow{"collections", "Counter"},
    NameRow{"copyreg", "_reconstructor"},
    NameRow{"datetime", "datetime"},
    NameRow{"datetime", "date"},
    NameRow{"decimal", "Decimal"},
    NameRow{"fractions", "Fraction"},
    NameRow{"functools", "partial"},
    NameRow{"_operator", "add"},
    NameRow{"operator", "itemgetter"},
    NameRow{"uuid", "UUID"},
    NameRow{"itertools", "chain"},
    NameRow{"math", "sqrt"},
    NameRow{"types", "SimpleNamespace"},
};

// Real callables no decoder table recognises.
constexpr std::array kPlainCallables = {
    NameRow{"collections", "OrderedDict"}, NameRow{"datetime", "date"},
    NameRow{"functools", "partial"},       NameRow{"types", "SimpleNamespace"},
    NameRow{"decimal", "Decimal"},
};

rc::Gen<QualName> fromRows(std::span<const NameRow> rows) {
  std::vector<QualName> names;
  for (const auto& [m, n] : rows) names.emplace_back(std::string(m), std::string(n));
  return rc::gen::elementOf(names);
}

rc::Gen<QualName> invented() {
  auto module = rc::gen::map(rc::gen::pair(identifier(), chance(1, 4)),
                             [](const std::pair<std::string, bool>& p) {
                               return "m_" + p.first + (p.second ? ".sub" : "");
                             });
  return rc::gen::pair(module, identifier());
}

}  // namespace

std::span<const std::pair<std::string_view, std::string_view>> real_global_names() {
  return kRealNames;
}

rc::Gen<QualName> globalName(const GenConfig& config) {
  return weightedChoice<QualName>(
      {{1, fromRows(kRealNames)}, {config.real_globals_only ? 0 : 1, invented()}});
}

rc::Gen<QualName> callableName(const GenConfig& config) {
  return weightedChoice<QualName>(
      {{config.real_globals_only ? 0 : 3, invented()}, {1, fromRows(kPlainCallables)}});
}

}  // namespace serialcheck::gen
