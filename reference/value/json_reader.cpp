// Canonical JSON -> value (json.h): nlohmann parses the text, then an
// explicit task stack builds the nodes in document order, so reading never
// recurses; every malformed element is a JsonFormError with its JSON
// pointer.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reference/common/hex.h"
#include "reference/common/utf8.h"
#include "reference/device/device.h"
#include "reference/value/domain_kinds.h"
#include "reference/value/json.h"
#include "reference/value/numeric.h"

namespace serialcheck {

namespace {

using Json = nlohmann::ordered_json;

class Reader {
 public:
  explicit Reader(Graph& graph) : graph_(graph) {}

  Node* read(std::string_view text) {
    Json doc;
    try {
      doc = Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
      throw JsonFormError("", std::string("not valid JSON: ") + e.what());
    }
    Node* root = nullptr;
    ptrs_.push_back({0, {}});
    tasks_.push_back({&doc, &root, 0});
    while (!tasks_.empty()) {
      Task t = tasks_.back();
      tasks_.pop_back();
      *t.slot = build(*t.json, t.ptr);
    }
    for (const auto& [node, ptr] : tensors_) {
      if (auto problem = domain_problem(*node)) throw error(child_ptr(ptr, "grad"), *problem);
    }
    for (const auto& [node, ptr] : modules_) {
      if (node->items[0]->kind != Kind::Global) {
        throw error(child_ptr(ptr, "class"), "class must be a global");
      }
    }
    for (const auto& [node, ptr] : objects_) {
      if (node->obj()->args->kind != Kind::Tuple) {
        throw error(child_ptr(child_ptr(ptr, "object"), "args"), "args must be a tuple");
      }
    }
    graph_.root = root;
    return root;
  }

 private:
  struct Task {
    const Json* json;
    Node** slot;
    std::uint32_t ptr;
  };
  struct PtrRec {
    std::uint32_t parent;
    std::string token;
  };

  std::uint32_t child_ptr(std::uint32_t parent, std::string token) {
    ptrs_.push_back({parent, std::move(token)});
    return static_cast<std::uint32_t>(ptrs_.size() - 1);
  }
  std::uint32_t child_ptr(std::uint32_t parent, std::size_t index) {
    return child_ptr(parent, std::to_string(index));
  }

  std::string pointer(std::uint32_t ptr) const {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t p = ptr; p != 0; p = ptrs_[p].parent) chain.push_back(p);
    std::string out;
    for (std::size_t k = chain.size(); k-- > 0;) {
      out.push_back('/');
      for (char c : ptrs_[chain[k]].token) {
        if (c == '~') {
          out += "~0";
        } else if (c == '/') {
          out += "~1";
        } else {
          out.push_back(c);
        }
      }
    }
    return out;
  }

  JsonFormError error(std::uint32_t ptr, std::string message) const {
    return JsonFormError(pointer(ptr), std::move(message));
  }

  void push(const Json& j, Node** slot, std::uint32_t ptr) { tasks_.push_back({&j, slot, ptr}); }

  // Queues the elements of array `arr` into `slots` so they are built in
  // document order.
  void push_array(const Json& arr, Node** slots, std::uint32_t ptr) {
    for (std::size_t i = arr.size(); i-- > 0;) push(arr[i], &slots[i], child_ptr(ptr, i));
  }

  const Json& array_member(const Json& j, const char* tag, std::uint32_t ptr) {
    const Json& v = j.at(tag);
    if (!v.is_array()) throw error(child_ptr(ptr, tag), std::string(tag) + " must be an array");
    return v;
  }

  const std::string& string_member(const Json& j, const char* tag, std::uint32_t ptr) {
    const Json& v = j.at(tag);
    if (!v.is_string()) throw error(child_ptr(ptr, tag), std::string(tag) + " must be a string");
    return v.get_ref<const std::string&>();
  }

  std::string hex_member(const Json& j, const char* tag, std::uint32_t ptr) {
    auto bytes = hex_decode(string_member(j, tag, ptr));
    if (!bytes) throw error(child_ptr(ptr, tag), "expected hexadecimal digits in pairs");
    return std::move(*bytes);
  }

  // Queues [[k, v], ...] into interleaved slots k0, v0, k1, v1, ...
  void push_pairs(const Json& arr, Node** slots, std::uint32_t ptr) {
    for (std::size_t i = arr.size(); i-- > 0;) {
      const Json& kv = arr[i];
      std::uint32_t p = child_ptr(ptr, i);
      if (!kv.is_array() || kv.size() != 2) throw error(p, "expected a [key, value] pair");
      push(kv[1], &slots[2 * i + 1], child_ptr(p, 1));
      push(kv[0], &slots[2 * i], child_ptr(p, 0));
    }
  }

  Node* build(const Json& j, std::uint32_t ptr) {
    switch (j.type()) {
      case Json::value_t::null: return graph_.none();
      case Json::value_t::boolean: return graph_.boolean(j.get<bool>());
      case Json::value_t::number_integer: return graph_.integer(j.get<std::int64_t>());
      case Json::value_t::number_unsigned: {
        auto u = j.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return graph_.integer(static_cast<std::int64_t>(u));
        }
        return graph_.integer_le(*decimal_to_twos_le(std::to_string(u)));
      }
      case Json::value_t::number_float:
        throw error(ptr,
                    "a bare JSON number must be an integer; write floats as {\"float\": \"...\"}");
      case Json::value_t::string: return graph_.str(j.get<std::string>());
      case Json::value_t::array:
        throw error(ptr,
                    "a bare array is not a value; write {\"list\": [...]} or {\"tuple\": [...]}");
      case Json::value_t::object: return build_tagged(j, ptr);
      default: throw error(ptr, "unsupported JSON value");
    }
  }

  Node* build_tagged(const Json& j, std::uint32_t ptr) {
    if (j.contains("ref")) {
      if (j.size() != 1) throw error(ptr, "a ref object must have no other members");
      std::uint32_t p = child_ptr(ptr, "ref");
      std::uint64_t id = id_value(j.at("ref"), p);
      auto it = ids_.find(id);
      if (it == ids_.end()) {
        throw error(p, "ref " + std::to_string(id) + " does not name an id defined before it");
      }
      return it->second;
    }

    // Find the one tag; everything else must be an allowed extra member.
    static constexpr const char* kTags[] = {
        "int",    "float",   "str",    "str-utf8sp", "bytes",        "bytearray", "list",
        "tuple",  "dict",    "set",    "frozenset",  "global",       "object",    "persid",
        "buffer", "ndarray", "tensor", "module",     "device-buffer"};
    const char* tag = nullptr;
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (const char* t : kTags) {
        if (key == t) {
          if (tag != nullptr) {
            throw error(ptr, "two type tags: \"" + std::string(tag) + "\" and \"" + key + "\"");
          }
          tag = t;
          known = true;
        }
      }
      if (!known && key != "id" && key != "bits" && key != "readonly" && key != "class" &&
          key != "device" && key != "supplied-readonly" && key != "interned") {
        throw error(child_ptr(ptr, key), "unknown member \"" + key + "\"");
      }
    }
    if (tag == nullptr) throw error(ptr, "object without a type tag");
    std::string_view t = tag;
    std::string_view extra = t == "float"           ? "bits"
                             : t == "buffer"        ? "readonly"
                             : t == "module"        ? "class"
                             : t == "device-buffer" ? "device"
                                                    : "";
    const bool is_str = t == "str" || t == "str-utf8sp";
    for (std::string_view m :
         {"id", "bits", "readonly", "class", "device", "supplied-readonly", "interned"}) {
      bool allowed = m == extra || (m == "id" && !atom_tag(t)) ||
                     (m == "supplied-readonly" && t == "buffer") || (m == "interned" && is_str);
      if (!allowed && j.contains(m)) {
        throw error(
            child_ptr(ptr, std::string(m)),
            "member \"" + std::string(m) + "\" is not allowed with \"" + std::string(t) + "\"");
      }
    }

    if (t == "int") {
      auto le = decimal_to_twos_le(string_member(j, tag, ptr));
      if (!le) throw error(child_ptr(ptr, tag), "expected decimal digits with an optional sign");
      return graph_.integer_le(*le);
    }
    if (t == "float") return build_float(j, ptr);

    Node* n = nullptr;
    if (t == "str") {
      n = graph_.str(string_member(j, tag, ptr));
      n->flag = interned_member(j, ptr);
    } else if (t == "str-utf8sp") {
      std::string bytes = hex_member(j, tag, ptr);
      if (!valid_utf8(bytes, Surrogates::Allow)) {
        throw error(child_ptr(ptr, tag), "not UTF-8 (surrogates allowed)");
      }
      n = graph_.str(std::move(bytes));
      n->flag = interned_member(j, ptr);
    } else if (t == "bytes") {
      n = graph_.bytes(hex_member(j, tag, ptr));
    } else if (t == "bytearray") {
      n = graph_.bytearray(hex_member(j, tag, ptr));
    } else if (t == "buffer") {
      const Json* ro = j.contains("readonly") ? &j.at("readonly") : nullptr;
      if (ro == nullptr || !ro->is_boolean()) {
        throw error(child_ptr(ptr, "readonly"), "buffer needs \"readonly\": true or false");
      }
      n = graph_.pickle_buffer(hex_member(j, tag, ptr), ro->get<bool>());
      n->supplied = supplied_member(j, ptr);
    } else if (t == "global") {
      const Json& g = j.at(tag);
      if (!g.is_array() || g.size() != 2 || !g[0].is_string() || !g[1].is_string()) {
        throw error(child_ptr(ptr, tag), "global must be [\"module\", \"qualname\"]");
      }
      n = graph_.global(g[0].get<std::string>(), g[1].get<std::string>());
    } else if (t == "list" || t == "tuple" || t == "set" || t == "frozenset") {
      Kind k = t == "list"    ? Kind::List
               : t == "tuple" ? Kind::Tuple
               : t == "set"   ? Kind::Set
                              : Kind::FrozenSet;
      const Json& arr = array_member(j, tag, ptr);
      n = graph_.make(k);
      n->items.resize(arr.size());
      define_id(j, n, ptr);
      push_array(arr, n->items.data(), child_ptr(ptr, tag));
      return n;
    } else if (t == "dict") {
      const Json& arr = array_member(j, tag, ptr);
      n = graph_.dict();
      n->items.resize(2 * arr.size());
      define_id(j, n, ptr);
      push_pairs(arr, n->items.data(), child_ptr(ptr, tag));
      return n;
    } else if (t == "persid") {
      n = graph_.persid(nullptr);
      define_id(j, n, ptr);
      push(j.at(tag), &n->items[0], child_ptr(ptr, tag));
      return n;
    } else if (t == "object") {
      return build_object(j, ptr);
    } else if (t == "ndarray") {
      n = build_ndarray(j.at(tag), child_ptr(ptr, tag));
    } else if (t == "tensor") {
      return build_tensor(j, ptr);
    } else if (t == "module") {
      return build_module(j, ptr);
    } else if (t == "device-buffer") {
      n = build_device_buffer(j, ptr);
    }
    define_id(j, n, ptr);
    return n;
  }

  // What the node's domain kind (its registered hooks) finds wrong with it.
  static std::optional<std::string> domain_problem(const Node& n) {
    auto check = domain_kind(n.kind).json_problem;
    return check != nullptr ? check(n) : std::nullopt;
  }

  static bool atom_tag(std::string_view t) { return t == "int" || t == "float"; }

  Node* build_float(const Json& j, std::uint32_t ptr) {
    const std::string& text = string_member(j, "float", ptr);
    auto v = parse_float(text);
    if (!v) throw error(child_ptr(ptr, "float"), "not a float: \"" + text + "\"");
    if (j.contains("bits")) {
      std::uint32_t p = child_ptr(ptr, "bits");
      const Json& b = j.at("bits");
      std::optional<std::string> raw;
      if (b.is_string() && b.get_ref<const std::string&>().size() == 16) {
        raw = hex_decode(b.get_ref<const std::string&>());
      }
      if (!raw) throw error(p, "bits must be 16 hexadecimal digits");
      std::uint64_t bits = 0;
      for (char c : *raw) bits = (bits << 8) | static_cast<unsigned char>(c);
      double f = std::bit_cast<double>(bits);
      if (*v == *v || f == f) throw error(p, "bits are only for NaN, and must be a NaN");
      v = f;
    }
    return graph_.floating(*v);
  }

  // The optional "interned" of a str: only ever true.
  bool interned_member(const Json& o, std::uint32_t p) {
    auto it = o.find("interned");
    if (it == o.end()) return false;
    if (!it->is_boolean() || !it->get<bool>()) {
      throw error(child_ptr(p, "interned"), "interned must be true (or left out)");
    }
    return true;
  }

  // The optional "supplied-readonly" of a buffer or an array.
  Supplied supplied_member(const Json& o, std::uint32_t p) {
    auto it = o.find("supplied-readonly");
    if (it == o.end()) return Supplied::None;
    if (!it->is_boolean()) {
      throw error(child_ptr(p, "supplied-readonly"), "supplied-readonly must be true or false");
    }
    return it->get<bool>() ? Supplied::ReadOnly : Supplied::Writable;
  }

  Node* build_ndarray(const Json& o, std::uint32_t p) {
    if (!o.is_object()) throw error(p, "ndarray must be a JSON object");
    for (const auto& [key, value] : o.items()) {
      if (key != "dtype" && key != "shape" && key != "strides" && key != "offset" &&
          key != "writeable" && key != "supplied-readonly" && key != "data") {
        throw error(child_ptr(p, key), "unknown ndarray member \"" + key + "\"");
      }
    }
    for (const char* m : {"dtype", "shape", "strides", "offset", "writeable", "data"}) {
      if (!o.contains(m)) throw error(p, std::string("ndarray needs \"") + m + "\"");
    }
    auto int_of = [&](const Json& v, std::uint32_t vp, std::int64_t min) {
      if (!v.is_number_integer() ||
          (v.is_number_unsigned() &&
           v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) ||
          v.get<std::int64_t>() < min) {
        throw error(vp, min == 0 ? "expected a non-negative integer" : "expected an integer");
      }
      return v.get<std::int64_t>();
    };
    auto ints = [&](const char* m, std::int64_t min) {
      std::uint32_t mp = child_ptr(p, m);
      const Json& arr = o.at(m);
      if (!arr.is_array()) throw error(mp, std::string(m) + " must be an array of integers");
      std::vector<std::int64_t> out;
      for (std::size_t i = 0; i < arr.size(); ++i) {
        out.push_back(int_of(arr[i], child_ptr(mp, i), min));
      }
      return out;
    };
    Node* n = graph_.ndarray();
    ArrayParts& a = *n->array();
    a.dtype = string_member(o, "dtype", p);
    a.shape = ints("shape", 0);
    a.strides = ints("strides", INT64_MIN);
    a.offset = int_of(o.at("offset"), child_ptr(p, "offset"), 0);
    if (!o.at("writeable").is_boolean()) {
      throw error(child_ptr(p, "writeable"), "writeable must be true or false");
    }
    a.writeable = o.at("writeable").get<bool>();
    n->supplied = supplied_member(o, p);
    n->set_owned(hex_member(o, "data", p));
    if (auto problem = domain_problem(*n)) throw error(p, *problem);
    return n;
  }

  std::int64_t int64_member(const Json& v, std::uint32_t vp, std::int64_t min) {
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() &&
         v.get<std::uint64_t>() >
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) ||
        v.get<std::int64_t>() < min) {
      throw error(vp, min == 0 ? "expected a non-negative integer" : "expected an integer");
    }
    return v.get<std::int64_t>();
  }

  Node* build_tensor(const Json& j, std::uint32_t ptr) {
    std::uint32_t p = child_ptr(ptr, "tensor");
    const Json& o = j.at("tensor");
    if (!o.is_object()) throw error(p, "tensor must be a JSON object");
    static constexpr const char* kMembers[] = {"dtype",  "shape",         "strides", "offset",
                                               "device", "requires_grad", "data",    "grad"};
    for (const auto& [key, value] : o.items()) {
      if (std::find(std::begin(kMembers), std::end(kMembers), key) == std::end(kMembers)) {
        throw error(child_ptr(p, key), "unknown tensor member \"" + key + "\"");
      }
    }
    for (const char* m : kMembers) {
      if (!o.contains(m) && std::string_view(m) != "grad") {
        throw error(p, std::string("tensor needs \"") + m + "\"");
      }
    }
    auto ints = [&](const char* m) {
      std::uint32_t mp = child_ptr(p, m);
      const Json& arr = o.at(m);
      if (!arr.is_array()) throw error(mp, std::string(m) + " must be an array of integers");
      std::vector<std::int64_t> out;
      for (std::size_t i = 0; i < arr.size(); ++i) {
        out.push_back(int64_member(arr[i], child_ptr(mp, i), 0));
      }
      return out;
    };
    Node* n = graph_.tensor();
    ArrayParts& a = *n->array();
    a.dtype = string_member(o, "dtype", p);
    a.shape = ints("shape");
    a.strides = ints("strides");
    a.offset = int64_member(o.at("offset"), child_ptr(p, "offset"), 0);
    a.device = string_member(o, "device", p);
    if (!o.at("requires_grad").is_boolean()) {
      throw error(child_ptr(p, "requires_grad"), "requires_grad must be true or false");
    }
    a.requires_grad = o.at("requires_grad").get<bool>();
    n->set_owned(hex_member(o, "data", p));
    if (auto problem = domain_problem(*n)) throw error(p, *problem);
    define_id(j, n, ptr);
    if (o.contains("grad")) {
      push(o.at("grad"), &a.grad, child_ptr(p, "grad"));
      tensors_.emplace_back(n, p);
    }
    return n;
  }

  Node* build_module(const Json& j, std::uint32_t ptr) {
    Node* n = graph_.module(string_member(j, "module", ptr));
    if (auto problem = domain_problem(*n)) throw error(child_ptr(ptr, "module"), *problem);
    define_id(j, n, ptr);
    if (j.contains("class")) {
      n->items.resize(1);
      push(j.at("class"), &n->items[0], child_ptr(ptr, "class"));
      modules_.emplace_back(n, ptr);
    }
    return n;
  }

  Node* build_device_buffer(const Json& j, std::uint32_t ptr) {
    std::string data = hex_member(j, "device-buffer", ptr);
    std::uint32_t dp = child_ptr(ptr, "device");
    if (!j.contains("device") || !j.at("device").is_string()) {
      throw error(dp, "device-buffer needs \"device\": a device name such as \"sim:0\"");
    }
    try {
      auto device = device::open_device(j.at("device").get_ref<const std::string&>());
      return graph_.device_buffer(device->upload(std::span<const std::uint8_t>(
          reinterpret_cast<const std::uint8_t*>(data.data()), data.size())));
    } catch (const device::DeviceError& e) {
      throw error(dp, e.what());
    }
  }

  Node* build_object(const Json& j, std::uint32_t ptr) {
    std::uint32_t p = child_ptr(ptr, "object");
    const Json& o = j.at("object");
    if (!o.is_object()) throw error(p, "object must be a JSON object");
    if (!o.contains("callable")) throw error(p, "object needs \"callable\"");
    if (!o.contains("args")) throw error(p, "object needs \"args\"");
    Node* n = graph_.object(nullptr, nullptr);
    ObjectParts& parts = *n->obj();
    define_id(j, n, ptr);
    // Members are built in the order they appear, so refs follow the text.
    std::vector<Task> queued;
    for (const auto& [key, value] : o.items()) {
      std::uint32_t kp = child_ptr(p, key);
      if (key == "callable") {
        queued.push_back({&value, &parts.callable, kp});
      } else if (key == "args") {
        queued.push_back({&value, &parts.args, kp});
      } else if (key == "state") {
        queued.push_back({&value, &parts.state, kp});
      } else if (key == "state_setter") {
        queued.push_back({&value, &parts.state_setter, kp});
      } else if (key == "listitems") {
        if (!value.is_array()) throw error(kp, "listitems must be an array");
        parts.listitems.resize(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) {
          queued.push_back({&value[i], &parts.listitems[i], child_ptr(kp, i)});
        }
      } else if (key == "dictitems") {
        if (!value.is_array()) throw error(kp, "dictitems must be an array");
        parts.dictitems.resize(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) {
          const Json& kv = value[i];
          std::uint32_t ip = child_ptr(kp, i);
          if (!kv.is_array() || kv.size() != 2) throw error(ip, "expected a [key, value] pair");
          queued.push_back({&kv[0], &parts.dictitems[i].first, child_ptr(ip, 0)});
          queued.push_back({&kv[1], &parts.dictitems[i].second, child_ptr(ip, 1)});
        }
      } else if (key == "instantiate") {
        if (!value.is_boolean() || !value.get<bool>()) {
          throw error(kp, "instantiate must be true (or left out)");
        }
        n->flag = true;
      } else {
        throw error(kp, "unknown object member \"" + key + "\"");
      }
    }
    tasks_.insert(tasks_.end(), queued.rbegin(), queued.rend());
    objects_.emplace_back(n, ptr);
    return n;
  }

  std::uint64_t id_value(const Json& v, std::uint32_t ptr) const {
    std::uint64_t id = 0;
    if (v.is_number_unsigned()) {
      id = v.get<std::uint64_t>();
    } else if (v.is_number_integer() && v.get<std::int64_t>() > 0) {
      id = static_cast<std::uint64_t>(v.get<std::int64_t>());
    }
    if (id == 0) throw error(ptr, "an id must be a positive integer");
    return id;
  }

  void define_id(const Json& j, Node* n, std::uint32_t ptr) {
    if (!j.contains("id")) return;
    std::uint32_t p = child_ptr(ptr, "id");
    std::uint64_t id = id_value(j.at("id"), p);
    if (!ids_.emplace(id, n).second)
      throw error(p, "id " + std::to_string(id) + " is defined twice");
  }

  Graph& graph_;
  std::vector<Task> tasks_;
  std::vector<PtrRec> ptrs_;
  std::unordered_map<std::uint64_t, Node*> ids_;
  std::vector<std::pair<Node*, std::uint32_t>> objects_;  // to check args once built
  std::vector<std::pair<Node*, std::uint32_t>> tensors_;  // with a grad, to check it once built
  std::vector<std::pair<Node*, std::uint32_t>> modules_;  // with a class, to check it once built
};

}  // namespace

Node* from_json(std::string_view text, Graph& graph) {
  Reader r(graph);
  return r.read(text);
}

}  // namespace serialcheck
