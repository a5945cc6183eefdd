#include "reference/frames/families_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"

namespace serialcheck::families::detail {

std::string pointer(std::string_view key) {
  std::string out = "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

const json* find(const json& header, std::string_view key) {
  if (!header.is_object()) return nullptr;
  auto it = header.find(key);
  return it == header.end() ? nullptr : &*it;
}

const json& require(const LoadContext& ctx, const json& header, std::string_view key,
                    std::string_view prefix) {
  if (!header.is_object()) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("a map is needed, not {}", header.type_name()),
             prefix);
  }
  const json* member = find(header, key);
  if (member == nullptr) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("the header has no \"{}\"", key),
             std::string(prefix) + pointer(key));
  }
  return *member;
}

bool require_bool(const LoadContext& ctx, const json& value, std::string_view where) {
  if (!value.is_boolean()) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("a boolean is needed, not {}", value.dump()),
             where);
  }
  return value.get<bool>();
}

std::int64_t require_int(const LoadContext& ctx, const json& value, std::string_view where) {
  if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  ctx.fail(FamilyErrorKind::BadHeader,
           fmt::format("a 64-bit integer is needed, not {}", value.dump()), where);
}

std::size_t require_index(const LoadContext& ctx, const json& value, std::string_view where) {
  if (value.is_number_unsigned()) return static_cast<std::size_t>(value.get<std::uint64_t>());
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::size_t>(value.get<std::int64_t>());
  }
  ctx.fail(FamilyErrorKind::BadHeader,
           fmt::format("a non-negative integer is needed, not {}", value.dump()), where);
}

const std::string& require_string(const LoadContext& ctx, const json& value,
                                  std::string_view where) {
  if (!value.is_string()) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("a string is needed, not {}", value.dump()),
             where);
  }
  return value.get_ref<const std::string&>();
}

std::span<const std::uint8_t> require_binary(const LoadContext& ctx, const json& value,
                                             std::string_view where) {
  if (!value.is_binary()) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("bytes are needed, not {}", value.type_name()),
             where);
  }
  const auto& bin = value.get_binary();
  return {bin.data(), bin.size()};
}

std::vector<std::int64_t> require_int_array(const LoadContext& ctx, const json& value,
                                            std::string_view where) {
  if (!value.is_array()) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("an array of integers is needed, not {}", value.type_name()), where);
  }
  std::vector<std::int64_t> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.push_back(require_int(ctx, value[i], fmt::format("{}/{}", where, i)));
  }
  return out;
}

std::span<const std::uint8_t> host_bytes(const LoadContext& ctx, std::span<const Frame> frames,
                                         std::size_t i) {
  if (frames[i].on_device()) {
    ctx.fail(FamilyErrorKind::Device,
             "this family reads host bytes, and the frame lives on a device", {}, i);
  }
  return frames[i].bytes();
}

namespace {

Node* decode_into(const LoadContext& ctx, Graph& graph, std::span<const std::uint8_t> bytes,
                  const PickleSource& source, std::span<const pickle::BufferView> buffers,
                  std::optional<int> header_protocol) {
  const DeserializeOptions& options = ctx.options();
  pickle::DecodeOptions decode;
  decode.max_protocol = options.max_protocol;
  decode.limits = options.limits;
  decode.buffers = buffers;
  if (header_protocol) {
    if (*header_protocol > options.max_protocol) {
      throw ctx
          .error(FamilyErrorKind::UnsupportedProtocol,
                 fmt::format("the header records pickle protocol {}; this loader reads up to {}",
                             *header_protocol, options.max_protocol),
                 "/pickle-protocol")
          .with_protocols(*header_protocol, options.max_protocol);
    }
    decode.max_protocol = std::min(options.max_protocol, *header_protocol);
  }
  try {
    return pickle::decode(bytes, graph, decode).root;
  } catch (const pickle::UnsupportedProtocolError& e) {
    const bool by_header = header_protocol && *header_protocol < options.max_protocol;
    throw ctx
        .error(FamilyErrorKind::UnsupportedProtocol,
               by_header ? fmt::format("pickle protocol {} is above the protocol {} the header "
                                       "records",
                                       e.found(), e.max())
                         : fmt::format("pickle protocol {} is above the loader's highest, {}",
                                       e.found(), e.max()),
               source.key, source.frame, e.offset())
        .with_protocols(e.found(), e.max());
  } catch (const pickle::PickleError& e) {
    ctx.fail(FamilyErrorKind::Pickle,
             fmt::format("{}: {}", pickle::error_kind_name(e.kind()), e.detail()), source.key,
             source.frame, e.offset());
  }
}

}  // namespace

Node* load_pickle(const LoadContext& ctx, std::span<const std::uint8_t> bytes,
                  const PickleSource& source, std::span<const pickle::BufferView> buffers,
                  std::optional<int> header_protocol) {
  return decode_into(ctx, ctx.graph(), bytes, source, buffers, header_protocol);
}

json pickled_class(std::string_view module, std::string_view qualname, int protocol) {
  Graph g;
  Node* cls = g.global(std::string(module), std::string(qualname));
  pickle::EncodeOptions options;
  options.protocol = protocol;
  std::string bytes = pickle::encode(cls, options).bytes;
  return json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

std::pair<std::string, std::string> load_pickled_class(const LoadContext& ctx, const json& value,
                                                       std::string_view key) {
  auto bytes = require_binary(ctx, value, key);
  Graph scratch;
  PickleSource source;
  source.key = std::string(key);
  const Node* cls = decode_into(ctx, scratch, bytes, source, {}, std::nullopt);
  if (cls->kind != Kind::Global) {
    ctx.fail(
        FamilyErrorKind::BadHeader,
        fmt::format("a pickled class is needed, and this pickle holds a {}", kind_name(cls->kind)),
        key);
  }
  return {std::string(cls->payload()), cls->name()};
}

std::string python_type_name(const Node& value) {
  switch (value.kind) {
    // The kinds whose model name (kind_name) is not their Python type's name.
    case Kind::None: return "NoneType";
    case Kind::Global: return "type";
    case Kind::PersId: return "persistent id";
    case Kind::PickleBuffer: return "PickleBuffer";
    case Kind::Tensor: return "Tensor";
    case Kind::DeviceBuffer: return "DeviceBuffer";
    case Kind::Object: break;
    // bool, int, float, str, bytes, bytearray, list, tuple, dict, set,
    // frozenset, ndarray, module.
    default: return std::string(kind_name(value.kind));
  }
  const Node* cls = value.obj() ? value.obj()->callable : nullptr;
  // copyreg.__newobj__(cls, ...) and __newobj_ex__(cls, ...) make a `cls`.
  if (cls != nullptr && cls->kind == Kind::Global && cls->payload() == "copyreg" &&
      (cls->name() == "__newobj__" || cls->name() == "__newobj_ex__") && value.obj()->args != nullptr &&
      !value.obj()->args->items.empty() && value.obj()->args->items[0] != nullptr) {
    cls = value.obj()->args->items[0];
  }
  if (cls != nullptr && cls->kind == Kind::Global) {
    auto dot = cls->name().rfind('.');
    return dot == std::string::npos ? cls->name() : cls->name().substr(dot + 1);
  }
  return "object";
}

bool has_lone_surrogate(std::string_view utf8sp) {
  for (std::size_t i = 0; i + 1 < utf8sp.size(); ++i) {
    if (static_cast<unsigned char>(utf8sp[i]) == 0xED &&
        (static_cast<unsigned char>(utf8sp[i + 1]) & 0xE0) == 0xA0) {
      return true;
    }
  }
  return false;
}

std::optional<std::uint64_t> big_as_u64(std::string_view twos_le) {
  if (twos_le.empty() || (static_cast<unsigned char>(twos_le.back()) & 0x80) != 0) {
    return std::nullopt;  // negative: below int64's range
  }
  std::size_t n = twos_le.size();
  while (n > 0 && twos_le[n - 1] == 0) --n;
  if (n > 8) return std::nullopt;
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(twos_le[i]);
  return v;
}

}  // namespace serialcheck::families::detail
