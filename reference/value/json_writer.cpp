// Value -> canonical JSON (json.h): an explicit stack of text and values,
// so writing never recurses; shared nodes get an "id" where first written
// and {"ref": id} after.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reference/common/hex.h"
#include "reference/common/utf8.h"
#include "reference/device/device.h"
#include "reference/value/children.h"
#include "reference/value/json.h"
#include "reference/value/numeric.h"

namespace serialcheck {
namespace {

constexpr std::uint64_t kCanonicalNan = 0x7ff8000000000000ULL;

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
          append_hex_digits(out, c, 2);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

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
      for_each_child(*n, visit);
    }
  }

  void push_value(const Node* n) { stack_.push_back({true, n, {}, 0}); }
  void push_text(std::string_view t, std::uint32_t id = 0) {
    stack_.push_back({false, nullptr, t, id});
  }

  // Pushes items so they are written in order, separated by commas.
  void push_items(const NodeList& items) {
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
        append_json_string_any(n->name());
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
    const ObjectParts& o = n->obj() ? *n->obj() : kEmpty;
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
    const ArrayParts& a = n->array() ? *n->array() : kNone;
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
    const ArrayParts& a = n->array() ? *n->array() : kNone;
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
    append_json_string_any(n->name());
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
    if (n->device()) append_hex(out_, n->device()->device().download(*n->device()));
    out_.push_back('"');
    if (id != 0) write_id_member(id);
    out_ += ",\"device\":";
    append_json_string_any(n->device() ? n->device()->device().name() : std::string());
    out_.push_back('}');
  }

  void write_int(const Node* n) {
    std::int64_t v = n->small();
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
      append_hex_digits(out_, bits, 16);
      out_.push_back('"');
    }
    out_.push_back('}');
  }

  void write_str(const Node* n, std::uint32_t id) {
    std::string_view s = n->payload();
    bool plain = valid_utf8(s, Surrogates::Reject);
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
    if (valid_utf8(s, Surrogates::Reject)) {
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

}  // namespace

std::string to_json(const Node* root, bool pretty) {
  Writer w;
  std::string compact = w.write(root);
  return pretty ? prettify(compact) : compact;
}

}  // namespace serialcheck
