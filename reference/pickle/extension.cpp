#include "reference/pickle/extension.h"

namespace serialcheck::pickle {

std::int64_t extension_code(const Node* n) {
  if (n == nullptr || n->kind != Kind::Object || n->obj() == nullptr) return 0;
  const ObjectParts& o = *n->obj();
  if (o.state != nullptr || o.state_setter != nullptr || !o.listitems.empty() ||
      !o.dictitems.empty()) {
    return 0;
  }
  const Node* callable = o.callable;
  if (callable == nullptr || callable->kind != Kind::Global ||
      callable->payload() != kExtensionRegistryModule ||
      callable->name() != kExtensionRegistryName) {
    return 0;
  }
  const Node* args = o.args;
  if (args == nullptr || args->kind != Kind::Tuple || args->items.size() != 1) return 0;
  const Node* code = args->items[0];
  if (code == nullptr || code->kind != Kind::Int || code->big) return 0;
  if (code->small() < 1 || code->small() > kMaxExtensionCode) return 0;
  return code->small();
}

Node* extension_ref(Graph& graph, std::int64_t code) {
  return graph.object(
      graph.global(std::string(kExtensionRegistryModule), std::string(kExtensionRegistryName)),
      graph.tuple({graph.integer(code)}));
}

}  // namespace serialcheck::pickle
