// The allowlist, its text format, the default list and the bounded value
// describer used in policy errors and scan reports.
#include "reference/pickle/policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reference/common/pyrepr.h"
#include "reference/value/numeric.h"

namespace serialcheck::pickle {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A dotted name: non-empty parts, no whitespace or newline.
bool valid_dotted(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  if (s.find("..") != std::string_view::npos) return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return is_space(c) || c == '\n'; });
}

// Why each group is on the list: docs/safe-loading.md. Every entry is a type
// or function that, given plain data and other listed names, builds data and
// neither imports nor calls anything its arguments name.
constexpr std::string_view kDefaultEntries[] = {
    // Builtin containers and the calls CPython writes for them below
    // protocols 3-5 (bytes as _codecs.encode, set/frozenset/bytearray as
    // calls of the type), plus complex, which always pickles as a call.
    "builtins.set",
    "builtins.frozenset",
    "builtins.bytearray",
    "builtins.bytes",
    "builtins.list",
    "builtins.dict",
    "builtins.tuple",
    "builtins.complex",
    "_codecs.encode",
    "collections.OrderedDict",
    // datetime values: constructors from a packed bytes state.
    "datetime.date",
    "datetime.time",
    "datetime.datetime",
    "datetime.timedelta",
    "datetime.timezone",
    // numpy arrays (protocols 0-4 and protocol 5), dtypes and scalars.
    "numpy.core.multiarray._reconstruct",
    "numpy.ndarray",
    "numpy.dtype",
    "numpy.core.numeric._frombuffer",
    "numpy.core.multiarray.scalar",
    // torch tensors, parameters, sizes, storages and dtypes.
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_parameter",
    "torch._tensor._rebuild_from_type_v2",
    "torch.storage._load_from_bytes",
    "torch.Tensor",
    "torch.Size",
    "torch.nn.parameter.Parameter",
    "torch.storage.TypedStorage",
    "torch.storage.UntypedStorage",
    "torch.BFloat16Storage",
    "torch.BoolStorage",
    "torch.ByteStorage",
    "torch.CharStorage",
    "torch.ComplexDoubleStorage",
    "torch.ComplexFloatStorage",
    "torch.DoubleStorage",
    "torch.FloatStorage",
    "torch.HalfStorage",
    "torch.IntStorage",
    "torch.LongStorage",
    "torch.QInt32Storage",
    "torch.QInt8Storage",
    "torch.QUInt2x4Storage",
    "torch.QUInt4x2Storage",
    "torch.QUInt8Storage",
    "torch.ShortStorage",
    "torch.bfloat16",
    "torch.bool",
    "torch.complex32",
    "torch.complex64",
    "torch.complex128",
    "torch.float16",
    "torch.float32",
    "torch.float64",
    "torch.int8",
    "torch.int16",
    "torch.int32",
    "torch.int64",
    "torch.uint8",
};

class Describer {
 public:
  explicit Describer(std::size_t max) : max_(max) {}

  void node(const Node* n, int depth) {
    if (full()) return;
    if (n == nullptr) {
      out_ += "<null>";
      return;
    }
    if (depth > 6) {
      out_ += "...";
      return;
    }
    switch (n->kind) {
      case Kind::None: out_ += "None"; return;
      case Kind::Bool: out_ += n->flag ? "True" : "False"; return;
      case Kind::Int:
        if (!n->big) {
          out_ += std::to_string(n->small());
        } else if (n->payload().size() <= 32) {
          out_ += twos_le_to_decimal(n->payload());
        } else {
          out_ += fmt::format("<int of {} bytes>", n->payload().size());
        }
        return;
      case Kind::Float: out_ += float_repr(n->f); return;
      case Kind::Str: text(n->payload(), ""); return;
      case Kind::Bytes: text(n->payload(), "b"); return;
      case Kind::ByteArray:
        out_ += "bytearray(";
        text(n->payload(), "b");
        out_ += ')';
        return;
      case Kind::PickleBuffer:
        out_ += fmt::format("PickleBuffer(<{} bytes>)", n->payload().size());
        return;
      case Kind::Global:
        out_ += n->payload();
        out_ += '.';
        out_ += n->name();
        return;
      case Kind::List: seq(n->items, "[", "]", depth); return;
      case Kind::Tuple: seq(n->items, "(", n->items.size() == 1 ? ",)" : ")", depth); return;
      case Kind::Set: seq(n->items, "{", "}", depth); return;
      case Kind::FrozenSet: seq(n->items, "frozenset({", "})", depth); return;
      case Kind::Dict: {
        out_ += '{';
        for (std::size_t i = 0; i + 1 < n->items.size(); i += 2) {
          if (i != 0) out_ += ", ";
          if (full()) return ellipsis();
          node(n->items[i], depth + 1);
          out_ += ": ";
          node(n->items[i + 1], depth + 1);
        }
        out_ += '}';
        return;
      }
      case Kind::PersId:
        out_ += "persistent_id(";
        if (!n->items.empty()) node(n->items[0], depth + 1);
        out_ += ')';
        return;
      case Kind::Object:
        if (n->obj() == nullptr) {
          out_ += "<object>";
          return;
        }
        node(n->obj()->callable, depth + 1);
        if (n->obj()->args != nullptr && n->obj()->args->kind == Kind::Tuple) {
          seq(n->obj()->args->items, "(", ")", depth);
        } else {
          out_ += "(...)";
        }
        return;
      default: out_ += fmt::format("<{}>", kind_name(n->kind)); return;
    }
  }

  std::string take() {
    if (out_.size() > max_ + 3) {
      out_.resize(max_);
      out_ += "...";
    }
    return std::move(out_);
  }

 private:
  bool full() const { return out_.size() >= max_; }
  void ellipsis() { out_ += "..."; }

  void seq(const NodeList& items, std::string_view open, std::string_view close, int depth) {
    out_ += open;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i != 0) out_ += ", ";
      if (full()) return ellipsis();
      node(items[i], depth + 1);
    }
    out_ += close;
  }

  // Bytes shown as repr shows them; a str's non-ASCII UTF-8 bytes as \x
  // escapes, which keeps the text ASCII and the cost bounded.
  void text(std::string_view data, std::string_view prefix) {
    out_ += prefix;
    out_ += '\'';
    for (char c : data) {
      if (full()) return ellipsis();
      append_repr_char(out_, static_cast<unsigned char>(c), '\'');
    }
    out_ += '\'';
  }

  std::size_t max_;
  std::string out_;
};

}  // namespace

std::string Allowlist::key(std::string_view module, std::string_view qualname) {
  std::string k = std::to_string(module.size());
  k += ':';
  k += module;
  k += qualname;
  return k;
}

void Allowlist::allow(std::string module, std::string qualname) {
  if (keys_.insert(key(module, qualname)).second) {
    entries_.emplace_back(std::move(module), std::move(qualname));
  }
}

void Allowlist::allow(std::string_view entry) {
  const std::string_view e = trim(entry);
  std::string_view module, qualname;
  if (const std::size_t colon = e.find(':'); colon != std::string_view::npos) {
    module = e.substr(0, colon);
    qualname = e.substr(colon + 1);
  } else if (const std::size_t dot = e.rfind('.'); dot != std::string_view::npos) {
    module = e.substr(0, dot);
    qualname = e.substr(dot + 1);
  }
  if (!valid_dotted(module) || !valid_dotted(qualname)) {
    throw AllowlistError(fmt::format(
        "'{}' is not an allowlist entry: write module.qualname (e.g. collections.OrderedDict) "
        "or module:qualname for a nested qualname",
        e));
  }
  allow(std::string(module), std::string(qualname));
}

void Allowlist::add_text(std::string_view text, std::string_view source) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) continue;
    try {
      allow(line);
    } catch (const AllowlistError& e) {
      throw AllowlistError(fmt::format("{}:{}: {}", source, line_no, e.what()));
    }
  }
}

void Allowlist::add_file(const std::string& path) {
  // Every failure names its reason; a directory opens as a stream and reads
  // as nothing, so it is refused by name.
  auto unreadable = [&](const char* why) {
    return AllowlistError(fmt::format("cannot read allowlist file '{}': {}", path, why));
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw unreadable(std::strerror(EISDIR));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw unreadable(errno != 0 ? std::strerror(errno) : "cannot open it");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw unreadable(std::strerror(EIO));
  add_text(text.str(), path);
}

void Allowlist::merge(const Allowlist& other) {
  for (const auto& [module, qualname] : other.entries_) allow(module, qualname);
  persistent_ids = persistent_ids || other.persistent_ids;
}

bool Allowlist::allows(std::string_view module, std::string_view qualname) const {
  return keys_.count(key(module, qualname)) != 0;
}

std::vector<std::pair<std::string, std::string>> Allowlist::entries() const {
  auto out = entries_;
  std::sort(out.begin(), out.end());
  return out;
}

Allowlist default_allowlist() {
  Allowlist list;
  for (std::string_view entry : kDefaultEntries) list.allow(entry);
  return list;
}

std::string describe_value(const Node* node, std::size_t max_chars) {
  Describer d(max_chars);
  d.node(node, 0);
  return d.take();
}

}  // namespace serialcheck::pickle
