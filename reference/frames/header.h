// Message headers in msgpack, as dask.distributed writes and reads them:
// msgpack.dumps(header, use_bin_type=True) and
// msgpack.loads(frame, raw=False, use_list=False).
//
// Mapping between msgpack and nlohmann::json:
//   nil <-> null, bool <-> boolean, int <-> number_integer/number_unsigned,
//   float 32/64 <-> number_float, str <-> string (must be valid UTF-8, as
//   Python's raw=False decoding requires), bin <-> binary (Python bytes),
//   ext <-> binary with a subtype, array <-> array (Python tuple), map with
//   str keys <-> object.
// Writing is value-compatible with Python's msgpack, not byte-identical:
// object keys come out sorted (nlohmann::json keeps them in a std::map) and
// a float that is exact in 32 bits is written as msgpack float 32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "reference/frames/errors.h"

namespace serialcheck {

struct HeaderLimits {
  // Encoded size; a longer header is rejected before it is parsed.
  std::size_t max_bytes = std::size_t{64} << 20;
  // Nesting of arrays and maps. Python's msgpack stops at 1024 (StackError),
  // so anything distributed can read, the reference can too.
  std::size_t max_depth = 1024;
};

// Throws FrameError(HeaderLimit) for a tree deeper than the limit or an
// encoding above max_bytes, FrameError(HeaderMalformed) for a string that is
// not valid UTF-8 (Python could not load it).
std::string encode_header(const nlohmann::json& header, const HeaderLimits& limits = {});

// One msgpack object filling `bytes` exactly. Throws FrameError:
// HeaderMalformed (syntax, truncation, trailing bytes, invalid UTF-8, a
// non-string map key: with the byte offset where the library reports one),
// HeaderLimit (size, depth). Duplicate keys keep the last value, as a
// Python dict does.
nlohmann::json decode_header(std::span<const std::uint8_t> bytes, const HeaderLimits& limits = {});

}  // namespace serialcheck
