// Helpers the family files share (not part of the public API): reading
// header keys with typed errors, pickling and unpickling the small pickles a
// header carries, and frame access checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/frames/family.h"
#include "reference/pickle/decoder.h"

namespace serialcheck::families::detail {

using json = nlohmann::json;

// "/" + key, escaped as RFC 6901 wants ("~" -> "~0", "/" -> "~1").
std::string pointer(std::string_view key);

// The member `key` of `header` (an object), or a BadHeader failure naming it.
const json& require(const LoadContext& ctx, const json& header, std::string_view key,
                    std::string_view prefix = {});
// The member or nullptr (also when `header` is not an object).
const json* find(const json& header, std::string_view key);

bool require_bool(const LoadContext& ctx, const json& value, std::string_view where);
std::int64_t require_int(const LoadContext& ctx, const json& value, std::string_view where);
std::size_t require_index(const LoadContext& ctx, const json& value, std::string_view where);
const std::string& require_string(const LoadContext& ctx, const json& value,
                                  std::string_view where);
std::span<const std::uint8_t> require_binary(const LoadContext& ctx, const json& value,
                                             std::string_view where);
std::vector<std::int64_t> require_int_array(const LoadContext& ctx, const json& value,
                                            std::string_view where);

// Host bytes of frames[i], or a Device failure naming frame i.
std::span<const std::uint8_t> host_bytes(const LoadContext& ctx, std::span<const Frame> frames,
                                         std::size_t i);

// Where a pickle sits, for errors: a frame (index relative to the context)
// or a header key holding its bytes.
struct PickleSource {
  std::size_t frame = FamilyError::kNone;
  std::string key;
};

// Decodes one pickle into ctx.graph() with the loader's limits and protocol
// (lowered to `header_protocol` when the header records one). Pickle errors
// become FamilyError(Pickle / UnsupportedProtocol) at `source`.
Node* load_pickle(const LoadContext& ctx, std::span<const std::uint8_t> bytes,
                  const PickleSource& source, std::span<const pickle::BufferView> buffers = {},
                  std::optional<int> header_protocol = std::nullopt);

// The pickle of the class module.qualname (pickle.dumps(cls, protocol)),
// as a header binary value: what "type-serialized" holds.
json pickled_class(std::string_view module, std::string_view qualname, int protocol);

// The class a "type-serialized" pickle names: (module, qualname).
std::pair<std::string, std::string> load_pickled_class(const LoadContext& ctx, const json& value,
                                                       std::string_view key);

// type(x).__name__ for a value, for error messages as distributed writes them.
std::string python_type_name(const Node& value);

// A str whose bytes (UTF-8, surrogatepass) hold a lone surrogate
// (ED A0..BF xx): it has no msgpack form.
bool has_lone_surrogate(std::string_view utf8sp);

// A big int (two's-complement little-endian) in [2^63, 2^64) as uint64, the
// part of msgpack's range beyond int64; nullopt outside it.
std::optional<std::uint64_t> big_as_u64(std::string_view twos_le);

}  // namespace serialcheck::families::detail
