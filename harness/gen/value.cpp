#include "harness/gen/value.h"

#include "harness/gen/build.h"
#include "harness/gen/shape.h"
#include "reference/value/json.h"

namespace serialcheck::gen {

GeneratedValue make_value(const Plan& plan, const GenConfig& config) {
  GeneratedValue v;
  v.graph = std::make_shared<Graph>();
  v.root = build(plan, config, *v.graph);
  return v;
}

rc::Gen<GeneratedValue> value(const GenConfig& config) {
  return rc::gen::map(plan(config), [config](const Plan& p) { return make_value(p, config); });
}

rc::Gen<GeneratedValue> valueWithSharing(const GenConfig& config) {
  return rc::gen::map(value(config), [](GeneratedValue v) {
    if (shape_of(v.root).shared > 0) return v;
    Graph& g = *v.graph;
    Node* x = v.root;
    const bool shareable = !is_atom(x->kind) && !is_singleton(*x) &&
                           x->kind != Kind::PickleBuffer && x->kind != Kind::PersId &&
                           !(x->kind == Kind::Tuple && x->items.empty());
    if (!shareable) x = g.list({x});
    v.root = g.list({x, x});
    g.root = v.root;
    return v;
  });
}

void showValue(const GeneratedValue& value, std::ostream& os) {
  if (!value.root) {
    os << "<no value>";
    return;
  }
  os << to_json(value.root);
}

std::ostream& operator<<(std::ostream& os, const GeneratedValue& value) {
  showValue(value, os);
  return os;
}

}  // namespace serialcheck::gen
