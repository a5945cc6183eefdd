#include "reference/value/json.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reference/device/device.h"
#include "reference/types/module.h"
#include "reference/types/ndarray.h"
#include "reference/types/tensor.h"
#include "reference/value/numeric.h"

namespace serialcheck {

namespace {

constexpr std::uint64_t kCanonicalNan = 0x7ff8000000000000ULL;
constexpr char kHex[] = "0123456789abcdef";

// True when `s` is well-formed UTF-8. With `allow_surrogates`, the 3-byte
// forms of U+D800..U+DFFF are accepted too (Python's "surrogatepass").
bool valid_utf8(std::string_view s, bool allow_surrogates) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return false;
    if (cp >= 0xd800 && cp <= 0xdfff && !allow_surrogates) return false;
    i += len;
  }
  return true;
}

void append_hex(std::string& out, std::string_view bytes) {
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xf]);
  }
}

std::optional<std::string> parse_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(text.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(text[2 * i]);
    int lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// A JSON string literal for valid UTF-8 `s`; non-ASCII is written as is.
void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

// Calls fn(child) for every child of n, in the canonical order the JSON form
// writes them (and so the order ids are numbered in).
template <typename Fn>
void for_each_child(const Node* n, Fn&& fn) {
  if (n->kind == Kind::Object) {
    if (!n->obj) return;
    const ObjectParts& o = *n->obj;
    fn(o.callable);
    fn(o.args);
    if (o.state != nullptr) fn(o.state);
    if (o.state_setter != nullptr) fn(o.state_setter);
    for (const Node* c : o.listitems) fn(c);
    for (const auto& [k, v] : o.dictitems) {
      fn(k);
      fn(v);
    }
    return;
  }
  if (n->kind == Kind::Tensor) {
    if (n->array && n->array->grad != nullptr) fn(n->array->grad);
    return;
  }
  for (const Node* c : n->items) fn(c);
}

// ---------------------------------------------------------------------------
// Writing

class Writer {
 public:
  std::string write(const Node* root) {
    count_references(root);
    emit(root);
    return std::move(out_);
  }

 private:
  // Actions of the explicit emit stack: a value to write, or fixed text
  // (closing brackets, separators, a trailing "id" member).
  struct Action {
    bool is_value;  // write `node` (null when absent)...
    const Node* node;
    std::string_view text;  // ...or else this text,
    std::uint32_t id;       // followed by `,"id":N}` when id != 0
  };

  void count_references(const Node* root) {
    std::vector<const Node*> todo;
    auto visit = [&](const Node* n) {
      if (n == nullptr || is_atom(n->kind)) return;
      if (++refs_[n] == 1) todo.push_back(n);
    };
    visit(root);
    while (!todo.empty()) {
      const Node* n = todo.back();
      todo.pop_back();
      for_each_child(n, visit);
    }
  }

  void push_value(const Node* n) { stack_.push_back({true, n, {}, 0}); }
  void push_text(std::string_view t, std::uint32_t id = 0) {
    stack_.push_back({false, nullptr, t, id});
  }

  // Pushes items so they are written in order, separated by commas.
  void push_items(const std::vector<Node*>& items) {
    for (std::size_t i = items.size(); i-- > 0;) {
      push_value(items[i]);
      if (i != 0) push_text(",");
    }
  }

  void write_id_member(std::uint32_t id) {
    out_ += ",\"id\":";
    out_ += std::to_string(id);
  }

  void emit(const Node* root) {
    push_value(root);
    while (!stack_.empty()) {
      Action a = stack_.back();
      stack_.pop_back();
      if (!a.is_value) {
        out_ += a.text;
        if (a.id != 0) {
          write_id_member(a.id);
          out_.push_back('}');
        }
        continue;
      }
      if (a.node == nullptr) {
        out_ += "null";  // a missing child; never made by the codec
      } else {
        write_node(a.node);
      }
    }
  }

  void write_node(const Node* n) {
    std::uint32_t id = 0;
    if (!is_atom(n->kind)) {
      auto it = refs_.find(n);
      if (it != refs_.end() && it->second >= 2) {
        auto [pos, fresh] = ids_.emplace(n, next_id_);
        if (!fresh) {
          out_ += "{\"ref\":";
          out_ += std::to_string(pos->second);
          out_.push_back('}');
          return;
        }
        id = next_id_++;
      }
    }
    switch (n->kind) {
      case Kind::None: out_ += "null"; return;
      case Kind::Bool: out_ += n->flag ? "true" : "false"; return;
      case Kind::Int: write_int(n); return;
      case Kind::Float: write_float(n->f); return;
      case Kind::Str: write_str(n, id); return;
      case Kind::Bytes: write_blob("bytes", n, id); return;
      case Kind::ByteArray: write_blob("bytearray", n, id); return;
      case Kind::PickleBuffer:
        write_blob("buffer", n, id, false);
        out_ += n->flag ? ",\"readonly\":true" : ",\"readonly\":false";
        write_supplied(n);
        out_.push_back('}');
        return;
      case Kind::Global:
        out_ += "{\"global\":[";
        append_json_string_any(n->payload());
        out_.push_back(',');
        append_json_string_any(n->name);
        out_ += "]";
        if (id != 0) write_id_member(id);
        out_.push_back('}');
        return;
      case Kind::List: open_sequence("{\"list\":[", n, id); return;
      case Kind::Tuple: open_sequence("{\"tuple\":[", n, id); return;
      case Kind::Set: open_sequence("{\"set\":[", n, id); return;
      case Kind::FrozenSet: open_sequence("{\"frozenset\":[", n, id); return;
      case Kind::Dict: {
        out_ += "{\"dict\":[";
        push_close("]", id);
        std::size_t pairs = n->items.size() / 2;
        for (std::size_t i = pairs; i-- > 0;) {
          push_text("]");
          push_value(n->items[2 * i + 1]);
          push_text(",");
          push_value(n->items[2 * i]);
          push_text(i == 0 ? "[" : ",[");
        }
        return;
      }
      case Kind::PersId:
        out_ += "{\"persid\":";
        push_close("", id);
        if (!n->items.empty()) {
          push_value(n->items[0]);
        } else {
          push_text("null");
        }
        return;
      case Kind::Object: write_object(n, id); return;
      case Kind::NDArray: write_ndarray(n, id); return;
      case Kind::Tensor: write_tensor(n, id); return;
      case Kind::Module: write_module(n, id); return;
      case Kind::DeviceBuffer: write_device_buffer(n, id); return;
    }
  }

  // Pushes the text that closes a tagged object: `suffix}` or `suffix,"id":N}`.
  void push_close(std::string_view suffix, std::uint32_t id) {
    if (id != 0) {
      push_text(suffix, id);
    } else if (suffix.empty()) {
      push_text("}");
    } else if (suffix == "]") {
      push_text("]}");
    } else {
      push_text("}}");
    }
  }

  void open_sequence(std::string_view head, const Node* n, std::uint32_t id) {
    out_ += head;
    push_close("]", id);
    push_items(n->items);
  }

  void write_object(const Node* n, std::uint32_t id) {
    out_ += "{\"object\":{\"callable\":";
    push_close("}", id);
    static const ObjectParts kEmpty;
    const ObjectParts& o = n->obj ? *n->obj : kEmpty;
    // Pushed in reverse of the written order.
    if (n->flag) push_text(",\"instantiate\":true");
    if (!o.dictitems.empty()) {
      push_text("]");
      for (std::size_t i = o.dictitems.size(); i-- > 0;) {
        push_text("]");
        push_value(o.dictitems[i].second);
        push_text(",");
        push_value(o.dictitems[i].first);
        push_text(i == 0 ? "[" : ",[");
      }
      push_text(",\"dictitems\":[");
    }
    if (!o.listitems.empty()) {
      push_text("]");
      push_items(o.listitems);
      push_text(",\"listitems\":[");
    }
    if (o.state_setter != nullptr) {
      push_value(o.state_setter);
      push_text(",\"state_setter\":");
    }
    if (o.state != nullptr) {
      push_value(o.state);
      push_text(",\"state\":");
    }
    push_value(o.args);
    push_text(",\"args\":");
    push_value(o.callable);
  }

  // "dtype":..,"shape":[..],"strides":[..],"offset":N of an array or tensor.
  void write_layout(const ArrayParts& a) {
    auto ints = [&](const std::vector<std::int64_t>& v) {
      out_.push_back('[');
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out_.push_back(',');
        out_ += std::to_string(v[i]);
      }
      out_.push_back(']');
    };
    out_ += "\"dtype\":";
    append_json_string_any(a.dtype);
    out_ += ",\"shape\":";
    ints(a.shape);
    out_ += ",\"strides\":";
    ints(a.strides);
    out_ += ",\"offset\":" + std::to_string(a.offset);
  }

  // ,"supplied-readonly":B for a buffer or array read out of band: what the
  // loader was given, beside (never instead of) what the stream says.
  void write_supplied(const Node* n) {
    if (n->supplied == Supplied::None) return;
    out_ += n->supplied == Supplied::ReadOnly ? ",\"supplied-readonly\":true"
                                              : ",\"supplied-readonly\":false";
  }

  // {"ndarray":{"dtype":..,"shape":[..],"strides":[..],"offset":N,
  // "writeable":B[,"supplied-readonly":B],"data":"hex"}[,"id":N]}: the whole
  // payload, so the layout (strides, offset, bytes outside the view) survives too.
  void write_ndarray(const Node* n, std::uint32_t id) {
    static const ArrayParts kNone;
    const ArrayParts& a = n->array ? *n->array : kNone;
    out_ += "{\"ndarray\":{";
    write_layout(a);
    out_ += a.writeable ? ",\"writeable\":true" : ",\"writeable\":false";
    write_supplied(n);
    out_ += ",\"data\":\"";
    append_hex(out_, n->payload());
    out_ += "\"}";
    if (id != 0) write_id_member(id);
    out_.push_back('}');
  }

  // {"tensor":{"dtype":..,"shape":[..],"strides":[..],"offset":N,"device":..,
  // "requires_grad":B,"data":"hex"[,"grad":value]}[,"id":N]}: the whole
  // storage, so strides and offset keep their meaning.
  void write_tensor(const Node* n, std::uint32_t id) {
    static const ArrayParts kNone;
    const ArrayParts& a = n->array ? *n->array : kNone;
    out_ += "{\"tensor\":{";
    write_layout(a);
    out_ += ",\"device\":";
    append_json_string_any(a.device);
    out_ += a.requires_grad ? ",\"requires_grad\":true" : ",\"requires_grad\":false";
    out_ += ",\"data\":\"";
    append_hex(out_, n->payload());
    out_.push_back('"');
    if (a.grad != nullptr) {
      out_ += ",\"grad\":";
      push_close("}", id);
      push_value(a.grad);
      return;
    }
    out_.push_back('}');
    if (id != 0) write_id_member(id);
    out_.push_back('}');
  }

  // {"module":"name"[,"id":N][,"class":value]}
  void write_module(const Node* n, std::uint32_t id) {
    out_ += "{\"module\":";
    append_json_string_any(n->name);
    if (id != 0) write_id_member(id);
    if (!n->items.empty()) {
      out_ += ",\"class\":";
      push_text("}");
      push_value(n->items[0]);
      return;
    }
    out_.push_back('}');
  }

  // {"device-buffer":"hex"[,"id":N],"device":"sim:0"}: the contents come
  // back to the host through one counted device->host copy.
  void write_device_buffer(const Node* n, std::uint32_t id) {
    out_ += "{\"device-buffer\":\"";
    if (n->device) append_hex(out_, n->device->device().download(*n->device));
    out_.push_back('"');
    if (id != 0) write_id_member(id);
    out_ += ",\"device\":";
    append_json_string_any(n->device ? n->device->device().name() : std::string());
    out_.push_back('}');
  }

  void write_int(const Node* n) {
    std::int64_t v = n->small;
    if (!n->big || twos_le_to_int64(n->payload(), v)) {
      out_ += std::to_string(v);
      return;
    }
    out_ += "{\"int\":\"";
    out_ += twos_le_to_decimal(n->payload());
    out_ += "\"}";
  }

  void write_float(double f) {
    out_ += "{\"float\":\"";
    out_ += float_repr(f);
    out_.push_back('"');
    auto bits = std::bit_cast<std::uint64_t>(f);
    if (f != f && bits != kCanonicalNan) {
      out_ += ",\"bits\":\"";
      for (int shift = 60; shift >= 0; shift -= 4) out_.push_back(kHex[(bits >> shift) & 0xf]);
      out_.push_back('"');
    }
    out_.push_back('}');
  }

  void write_str(const Node* n, std::uint32_t id) {
    std::string_view s = n->payload();
    bool plain = valid_utf8(s, false);
    if (plain && id == 0 && !n->flag) {
      append_json_string(out_, s);
      return;
    }
    if (plain) {
      out_ += "{\"str\":";
      append_json_string(out_, s);
    } else {
      out_ += "{\"str-utf8sp\":\"";
      append_hex(out_, s);
      out_.push_back('"');
    }
    if (id != 0) write_id_member(id);
    if (n->flag) out_ += ",\"interned\":true";
    out_.push_back('}');
  }

  // {"tag":"hex"[,"id":N]} and, when `close` is false, without the final brace.
  void write_blob(std::string_view tag, const Node* n, std::uint32_t id, bool close = true) {
    out_ += "{\"";
    out_ += tag;
    out_ += "\":\"";
    append_hex(out_, n->payload());
    out_.push_back('"');
    if (id != 0) write_id_member(id);
    if (close) out_.push_back('}');
  }

  // Module and qualified names should be UTF-8; anything else is escaped
  // byte by byte as \u00XX so the output stays valid JSON.
  void append_json_string_any(std::string_view s) {
    if (valid_utf8(s, false)) {
      append_json_string(out_, s);
      return;
    }
    std::string latin;
    for (char ch : s) {
      auto c = static_cast<unsigned char>(ch);
      if (c < 0x80) {
        latin.push_back(ch);
      } else {
        latin.push_back(static_cast<char>(0xc0 | (c >> 6)));
        latin.push_back(static_cast<char>(0x80 | (c & 0x3f)));
      }
    }
    append_json_string(out_, latin);
  }

  std::unordered_map<const Node*, std::uint32_t> refs_;
  std::unordered_map<const Node*, std::uint32_t> ids_;
  std::uint32_t next_id_ = 1;
  std::vector<Action> stack_;
  std::string out_;
};

// Re-indents compact JSON: a container whose compact text is short stays on
// one line; longer ones put each element on its own line. Indentation stops
// growing past kMaxIndentLevels so very deep values stay linear in size.
std::string prettify(const std::string& compact) {
  constexpr std::size_t kInlineWidth = 72;
  constexpr std::size_t kMaxIndentLevels = 32;

  // Pass 1: where each container (in order of its opening bracket) closes.
  std::vector<std::size_t> close_of;
  {
    std::vector<std::size_t> open;
    bool in_string = false;
    for (std::size_t i = 0; i < compact.size(); ++i) {
      char c = compact[i];
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        open.push_back(close_of.size());
        close_of.push_back(0);
      } else if (c == ']' || c == '}') {
        close_of[open.back()] = i;
        open.pop_back();
      }
    }
  }

  std::string out;
  out.reserve(compact.size() * 2);
  std::size_t depth = 0;
  std::size_t inline_until = 0;  // > i: inside a container written on one line
  std::size_t container = 0;
  bool in_string = false;
  auto newline = [&] {
    out.push_back('\n');
    out.append(2 * std::min(depth, kMaxIndentLevels), ' ');
  };
  for (std::size_t i = 0; i < compact.size(); ++i) {
    char c = compact[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\') {
        out.push_back(compact[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    bool inl = i < inline_until;
    switch (c) {
      case '"':
        in_string = true;
        out.push_back(c);
        break;
      case '[':
      case '{': {
        std::size_t close = close_of[container++];
        out.push_back(c);
        if (inl) break;
        if (close - i + 1 <= kInlineWidth || close == i + 1) {
          inline_until = close + 1;
          break;
        }
        ++depth;
        newline();
        break;
      }
      case ']':
      case '}':
        if (!inl) {
          --depth;
          newline();
        }
        out.push_back(c);
        break;
      case ',':
        out.push_back(',');
        if (inl) {
          out.push_back(' ');
        } else {
          newline();
        }
        break;
      case ':': out += ": "; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Reading

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
      if (auto problem = types::tensor_problem(*node))
        throw error(child_ptr(ptr, "grad"), *problem);
    }
    for (const auto& [node, ptr] : modules_) {
      if (node->items[0]->kind != Kind::Global) {
        throw error(child_ptr(ptr, "class"), "class must be a global");
      }
    }
    for (const auto& [node, ptr] : objects_) {
      if (node->obj->args->kind != Kind::Tuple) {
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
    auto bytes = parse_hex(string_member(j, tag, ptr));
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
      if (!valid_utf8(bytes, true)) {
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
        raw = parse_hex(b.get_ref<const std::string&>());
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
    ArrayParts& a = *n->array;
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
    if (std::string problem = types::ndarray_problem(a, n->payload().size()); !problem.empty()) {
      throw error(p, problem);
    }
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
    ArrayParts& a = *n->array;
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
    if (auto problem = types::tensor_problem(*n)) throw error(p, *problem);
    define_id(j, n, ptr);
    if (o.contains("grad")) {
      push(o.at("grad"), &a.grad, child_ptr(p, "grad"));
      tensors_.emplace_back(n, p);
    }
    return n;
  }

  Node* build_module(const Json& j, std::uint32_t ptr) {
    const std::string& name = string_member(j, "module", ptr);
    if (auto problem = types::module_name_problem(name)) {
      throw error(child_ptr(ptr, "module"), *problem);
    }
    Node* n = graph_.module(name);
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
    ObjectParts& parts = *n->obj;
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

std::string to_json(const Node* root, bool pretty) {
  Writer w;
  std::string compact = w.write(root);
  return pretty ? prettify(compact) : compact;
}

Node* from_json(std::string_view text, Graph& graph) {
  Reader r(graph);
  return r.read(text);
}

}  // namespace serialcheck
