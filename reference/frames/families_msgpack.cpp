// The "msgpack" family (distributed's msgpack_dumps / msgpack_loads): plain
// data as one msgpack frame, header {"serializer": "msgpack"}. distributed
// packs with use_bin_type=True and loads with use_list=False, so arrays come
// back as tuples: a value with a list (or a bytearray, which comes back as
// bytes) is declined here rather than changed, and so is anything msgpack
// cannot hold (sets, big ints, str with lone surrogates, objects, shared
// mutable parts). Loading joins all frames first, as distributed does.
#define MSGPACK_NO_BOOST 1
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <msgpack.hpp>
#include <string>
#include <vector>

#include "reference/frames/families_common.h"
#include "reference/frames/walk.h"
#include "reference/pickle/text.h"

namespace serialcheck::families {

namespace {

using detail::json;

// Nesting msgpack-python packs by default (its recursion limit is 511).
constexpr std::size_t kMaxDepth = 511;

class Writer {
 public:
  // False when the value has no exact msgpack form (nothing useful is left
  // in the buffer then).
  bool pack(const Node* n, std::size_t depth) {
    if (n == nullptr || depth > kMaxDepth) return false;
    const bool has_identity = !is_atom(n->kind) && n->kind != Kind::Str && n->kind != Kind::Bytes;
    if (has_identity && !seen_.insert(n).second) return false;  // msgpack has no references
    switch (n->kind) {
      case Kind::None: packer_.pack_nil(); return true;
      case Kind::Bool: n->flag ? packer_.pack_true() : packer_.pack_false(); return true;
      case Kind::Int:
        if (!n->big) {
          packer_.pack_int64(n->small());
          return true;
        }
        if (auto u = detail::big_as_u64(n->payload())) {
          packer_.pack_uint64(*u);
          return true;
        }
        return false;
      case Kind::Float: {
        // Always float 64, as Python's msgpack writes a float: the
        // library's pack_double writes an integral double as an int
        // (2.0 would load as 2, -0.0 as 0).
        std::uint64_t bits;
        std::memcpy(&bits, &n->f, sizeof bits);
        char raw[9];
        raw[0] = static_cast<char>(0xcb);
        for (int i = 0; i < 8; ++i) raw[1 + i] = static_cast<char>((bits >> (56 - 8 * i)) & 0xFF);
        buffer_.write(raw, sizeof raw);
        return true;
      }
      case Kind::Str: {
        auto s = n->payload();
        if (detail::has_lone_surrogate(s) || s.size() > std::numeric_limits<std::uint32_t>::max()) {
          return false;
        }
        packer_.pack_str(static_cast<std::uint32_t>(s.size()));
        packer_.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
        return true;
      }
      case Kind::Bytes: {
        auto s = n->payload();
        if (s.size() > std::numeric_limits<std::uint32_t>::max()) return false;
        packer_.pack_bin(static_cast<std::uint32_t>(s.size()));
        packer_.pack_bin_body(s.data(), static_cast<std::uint32_t>(s.size()));
        return true;
      }
      case Kind::Tuple:
        packer_.pack_array(static_cast<std::uint32_t>(n->items.size()));
        for (const Node* item : n->items) {
          if (!pack(item, depth + 1)) return false;
        }
        return true;
      case Kind::Dict: {
        packer_.pack_map(static_cast<std::uint32_t>(n->items.size() / 2));
        absl::flat_hash_set<std::string> keys;
        for (std::size_t i = 0; i + 1 < n->items.size(); i += 2) {
          // A key must come back hashable and as its own entry (Python
          // would merge 1 and True).
          if (n->items[i] == nullptr) return false;
          auto identity = key_identity(*n->items[i]);
          if (!identity || !keys.insert(std::move(*identity)).second) return false;
          if (!pack(n->items[i], depth + 1) || !pack(n->items[i + 1], depth + 1)) return false;
        }
        return true;
      }
      default: return false;  // list (comes back a tuple), bytearray (bytes), sets, objects...
    }
  }

  std::string bytes() const { return std::string(buffer_.data(), buffer_.size()); }

 private:
  msgpack::sbuffer buffer_;
  msgpack::packer<msgpack::sbuffer> packer_{buffer_};
  absl::flat_hash_set<const Node*> seen_;
};

std::optional<Message> msgpack_dumps(const Node& value, DumpContext&) {
  Writer writer;
  if (!writer.pack(&value, 0)) return std::nullopt;
  Message message;
  message.header = {{"serializer", "msgpack"}};
  message.frames.push_back(Frame::owned(writer.bytes()));
  return message;
}

// Python's dict identity of a msgpack key (1, 1.0 and True are one key);
// nullopt for an unhashable key (a map, or an array holding one).
std::optional<std::string> object_key_identity(const msgpack::object& o) {
  using T = msgpack::type::object_type;
  switch (o.type) {
    case T::NIL: return "N";
    case T::BOOLEAN: return o.via.boolean ? "i1" : "i0";
    case T::POSITIVE_INTEGER: return "i" + std::to_string(o.via.u64);
    case T::NEGATIVE_INTEGER: return "i" + std::to_string(o.via.i64);
    case T::FLOAT32:
    case T::FLOAT64: {
      const double d = o.via.f64;
      // Range first: converting a double outside int64's range is undefined.
      if (d > -9.2e18 && d < 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
        return "i" + std::to_string(static_cast<std::int64_t>(d));
      }
      return fmt::format("f{}", d);
    }
    case T::STR: return "s" + std::string(o.via.str.ptr, o.via.str.size);
    case T::BIN: return "b" + std::string(o.via.bin.ptr, o.via.bin.size);
    case T::ARRAY: {
      std::string out = "(";
      for (std::uint32_t i = 0; i < o.via.array.size; ++i) {
        auto part = object_key_identity(o.via.array.ptr[i]);
        if (!part) return std::nullopt;
        out += std::to_string(part->size()) + ":" + *part;
      }
      return out + ")";
    }
    default: return std::nullopt;
  }
}

class Reader {
 public:
  Reader(const LoadContext& ctx, std::size_t frame) : ctx_(ctx), frame_(frame) {}

  Node* node(const msgpack::object& o) {
    using T = msgpack::type::object_type;
    Graph& g = ctx_.graph();
    switch (o.type) {
      case T::NIL: return g.none();
      case T::BOOLEAN: return g.boolean(o.via.boolean);
      case T::POSITIVE_INTEGER: {
        const std::uint64_t u = o.via.u64;
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          return g.integer(static_cast<std::int64_t>(u));
        }
        std::string le(9, '\0');
        for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((u >> (8 * i)) & 0xFF);
        return g.integer_le(le);
      }
      case T::NEGATIVE_INTEGER: return g.integer(o.via.i64);
      case T::FLOAT32:
      case T::FLOAT64: return g.floating(o.via.f64);
      case T::STR: {
        std::string s(o.via.str.ptr, o.via.str.size);
        if (!pickle::valid_utf8_surrogatepass(s) || detail::has_lone_surrogate(s)) {
          fail("a msgpack str that is not valid UTF-8");
        }
        return g.str(std::move(s));
      }
      case T::BIN: return g.bytes(std::string(o.via.bin.ptr, o.via.bin.size));
      case T::ARRAY: {
        std::vector<Node*> items;
        items.reserve(o.via.array.size);
        for (std::uint32_t i = 0; i < o.via.array.size; ++i)
          items.push_back(node(o.via.array.ptr[i]));
        return g.tuple(std::move(items));
      }
      case T::MAP: {
        std::vector<Node*> interleaved;
        std::vector<std::string> identities;
        for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
          const auto& kv = o.via.map.ptr[i];
          auto identity = object_key_identity(kv.key);
          if (!identity) fail("a msgpack map key that Python cannot hash");
          Node* key = node(kv.key);
          Node* value = node(kv.val);
          // d[k] = v: a repeated key keeps its first place and takes the last value.
          auto it = std::find(identities.begin(), identities.end(), *identity);
          if (it != identities.end()) {
            interleaved[2 * static_cast<std::size_t>(it - identities.begin()) + 1] = value;
            continue;
          }
          identities.push_back(std::move(*identity));
          interleaved.push_back(key);
          interleaved.push_back(value);
        }
        return g.dict(std::move(interleaved));
      }
      default: fail("msgpack extension types are not read");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    ctx_.fail(FamilyErrorKind::BadFrames, what, {}, frame_);
  }
  const LoadContext& ctx_;
  std::size_t frame_;
};

Node* msgpack_loads(const json&, std::span<const Frame> frames, const LoadContext& ctx) {
  std::string joined;
  std::span<const std::uint8_t> data;
  if (frames.size() == 1) {
    data = detail::host_bytes(ctx, frames, 0);
  } else {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      auto b = detail::host_bytes(ctx, frames, i);
      joined.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
    data = {reinterpret_cast<const std::uint8_t*>(joined.data()), joined.size()};
  }
  // The frame a msgpack error is reported at: the only one, else the first.
  const std::size_t frame = frames.empty() ? FamilyError::kNone : 0;
  // Each element takes at least one byte, which bounds what the parser allocates.
  const std::size_t n = data.size();
  msgpack::unpack_limit limit(n, n, n, n, n, kMaxDepth + 1);
  std::size_t offset = 0;
  msgpack::object_handle handle;
  try {
    msgpack::unpack(handle, reinterpret_cast<const char*>(data.data()), data.size(), offset,
                    nullptr, nullptr, limit);
  } catch (const std::exception& e) {
    ctx.fail(FamilyErrorKind::BadFrames, fmt::format("not one msgpack object: {}", e.what()), {},
             frame);
  }
  if (offset != data.size()) {
    ctx.fail(FamilyErrorKind::BadFrames,
             fmt::format("{} bytes after the msgpack object", data.size() - offset), {}, frame,
             offset);
  }
  return Reader(ctx, frame).node(handle.get());
}

}  // namespace

Family msgpack_family() {
  return {.name = "msgpack", .dumps = msgpack_dumps, .loads = msgpack_loads};
}

}  // namespace serialcheck::families
