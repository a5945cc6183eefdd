#include "reference/types/builtin_reduce.h"

#include <optional>
#include <string>

#include "reference/common/utf8.h"
#include "reference/types/internal/forms.h"

namespace serialcheck::types {

namespace {

using internal::is_str;

// The str's code points as bytes when every one is below 256 (what
// str.encode('latin-1') gives), nullopt otherwise.
std::optional<std::string> latin1_bytes(const Node& str) {
  const std::string_view utf8 = str.payload();
  std::string out;
  out.reserve(utf8.size());
  for (char32_t cp : utf8_to_code_points(utf8)) {
    if (cp > 0xFF) return std::nullopt;
    out += static_cast<char>(cp);
  }
  return out;
}

// _codecs.encode(str, 'latin1'): bytes below protocol 3.
Node* codecs_encode(Graph& graph, const Node& args) {
  if (args.items.size() != 2 || args.items[0]->kind != Kind::Str ||
      !is_str(args.items[1], "latin1")) {
    return nullptr;
  }
  auto data = latin1_bytes(*args.items[0]);
  return data ? graph.bytes(std::move(*data)) : nullptr;
}

// bytes(): the empty bytes below protocol 3.
Node* builtins_bytes(Graph& graph, const Node& args) {
  return args.items.empty() ? graph.bytes("") : nullptr;
}

// bytearray(), bytearray(bytes) (protocols 0-4 of CPython 3.11, the bytes
// itself spelled as _codecs.encode below protocol 3) and
// bytearray(str, 'latin-1') (what earlier CPython 3 releases wrote).
Node* builtins_bytearray(Graph& graph, const Node& args) {
  if (args.items.empty()) return graph.bytearray("");
  if (args.items.size() == 1 && args.items[0]->kind == Kind::Bytes) {
    return graph.bytearray(std::string(args.items[0]->payload()));
  }
  if (args.items.size() == 2 && args.items[0]->kind == Kind::Str &&
      is_str(args.items[1], "latin-1")) {
    auto data = latin1_bytes(*args.items[0]);
    return data ? graph.bytearray(std::move(*data)) : nullptr;
  }
  return nullptr;
}

// set(list) and frozenset(list) below protocol 4. The items are taken as
// the list holds them when REDUCE runs, as CPython's call would; equal items
// are not merged (the model does not hash).
Node* builtins_set(Graph& graph, const Node& args) {
  if (args.items.size() != 1 || args.items[0]->kind != Kind::List) return nullptr;
  return graph.set(args.items[0]->items);
}

Node* builtins_frozenset(Graph& graph, const Node& args) {
  if (args.items.size() != 1 || args.items[0]->kind != Kind::List) return nullptr;
  return graph.frozenset(args.items[0]->items);
}

constexpr ReduceForm kForms[] = {
    {"_codecs", "encode", "(str with code points < 256, 'latin1') -> bytes", codecs_encode},
    {"builtins", "bytes", "() -> bytes", builtins_bytes},
    {"builtins", "bytearray", "(), (bytes,), (str with code points < 256, 'latin-1') -> bytearray",
     builtins_bytearray},
    {"builtins", "set", "(list,) -> set", builtins_set},
    {"builtins", "frozenset", "(list,) -> frozenset", builtins_frozenset},
};

}  // namespace

std::span<const ReduceForm> builtin_reduce_forms() {
  return kForms;
}

Node* convert_builtin_reduce(Graph& graph, const Node* callable, const Node* args) {
  if (callable == nullptr || args == nullptr || callable->kind != Kind::Global ||
      args->kind != Kind::Tuple) {
    return nullptr;
  }
  for (const ReduceForm& form : kForms) {
    if (callable->payload() == form.module && callable->name() == form.name) {
      return form.convert(graph, *args);
    }
  }
  return nullptr;
}

}  // namespace serialcheck::types
