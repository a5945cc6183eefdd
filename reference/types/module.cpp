#include "reference/types/module.h"

#include <string>

#include "reference/common/utf8.h"
#include "reference/types/domain.h"
#include "reference/types/pickle_codec.h"

namespace serialcheck::types {

namespace {

constexpr std::string_view kSubimportModule = "cloudpickle.cloudpickle";
constexpr std::string_view kSubimportName = "subimport";

}  // namespace

std::optional<std::string> module_name_problem(std::string_view name) {
  if (name.empty()) return "an empty module name";
  if (!valid_utf8(name, Surrogates::Allow)) return "a module name that is not UTF-8";
  for (char32_t cp : utf8_to_code_points(name)) {
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return "a module name with a NUL or a lone surrogate";
    }
  }
  if (name.front() == '.' || name.back() == '.' || name.find("..") != std::string_view::npos) {
    return "module name \"" + std::string(name) + "\" has an empty part";
  }
  return std::nullopt;
}

Node* lower_module(Lowering& lowering, const Node& n) {
  if (auto problem = module_name_problem(n.name())) {
    refuse_pickling("can't pickle module: " + *problem);
  }
  // Python has one module object per name (sys.modules), so every Module
  // node of one name is written as that one object: the second is a memo GET.
  return lowering.shared("module:" + n.name(), [&](Graph& g) {
    return g.object(g.global(std::string(kSubimportModule), std::string(kSubimportName)),
                    g.tuple({g.str(n.name())}));
  });
}

bool raise_module(Graph& /*graph*/, Node& object) {
  if (object.kind != Kind::Object || !object.obj()) return false;
  const ObjectParts& o = *object.obj();
  const Node* callable = o.callable;
  if (callable == nullptr || callable->kind != Kind::Global ||
      callable->payload() != kSubimportModule || callable->name() != kSubimportName) {
    return false;
  }
  if (o.state != nullptr || o.state_setter != nullptr || !o.listitems.empty() ||
      !o.dictitems.empty() || o.args == nullptr || o.args->kind != Kind::Tuple ||
      o.args->items.size() != 1) {
    return false;
  }
  const Node* name = o.args->items[0];
  if (name == nullptr || name->kind != Kind::Str || module_name_problem(name->payload())) {
    return false;
  }
  std::string import_name(name->payload());
  object.kind = Kind::Module;
  object.set_obj(nullptr);
  object.items.clear();
  object.set_name(std::move(import_name));
  object.set_owned("");
  return true;
}

}  // namespace serialcheck::types
