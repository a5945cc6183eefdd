// Per-frame compression as dask.distributed applies it
// (distributed/protocol/compression.py):
//   "lz4":  lz4.block.compress(frame) with its default store_size=True, i.e.
//           a 4-byte little-endian uncompressed size, then one LZ4 block
//           compressed from a fresh stream (LZ4_compress_fast_continue at
//           acceleration 1, as python-lz4 does);
//   "zstd": zstandard.ZstdCompressor(level=3).compress(frame), i.e. one
//           zstd frame that records its content size.
// An uncompressed frame is recorded as None (msgpack nil) in the header's
// "compression" list. Device frames are never compressed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "reference/frames/errors.h"

namespace serialcheck {

enum class Compression { None, Lz4, Zstd };

// "none", "lz4", "zstd"
std::string_view compression_name(Compression codec);
// The inverse of compression_name; nullopt for anything else.
std::optional<Compression> parse_compression(std::string_view name);

// The version of the library behind a codec, as the library reports it
// ("1.9.4" for lz4, "1.5.4" for zstd); "" for none. Compressed bytes are
// the same on two sides only when their libraries are of one version.
std::string codec_library_version(Compression codec);

// The header entry distributed writes: null, "lz4" or "zstd".
nlohmann::json compression_header_entry(Compression codec);
// Reads one entry of header["compression"]: null and false mean none (both
// are distributed's "no compression"). Other strings (distributed also knows
// "zlib" and "snappy") throw FrameError(UnsupportedCompression), any other
// type FrameError(HeaderSchema); `frame` is used in the error.
Compression compression_from_header_entry(const nlohmann::json& entry, std::size_t frame);

// When to compress, like distributed's maybe_compress: only frames of
// min_size..max_size bytes, and only when the result is at most
// max_ratio of the input. Unlike distributed, the decision compresses the
// whole frame instead of random samples, so it is deterministic.
struct CompressionOptions {
  Compression codec = Compression::None;
  std::size_t min_size = 10'000;
  std::size_t max_size = std::size_t{1} << 31;
  double max_ratio = 0.9;
  int zstd_level = 3;  // distributed.comm.zstd.level
};

// The compressed frame, or nullopt when the options say to send it as is.
std::optional<std::string> maybe_compress(std::span<const std::uint8_t> frame,
                                          const CompressionOptions& options);

// Always compresses. Throws FrameError(CompressionFailed) when the codec
// cannot (lz4 takes at most 0x7E000000 bytes); Compression::None copies.
std::string compress_frame(Compression codec, std::span<const std::uint8_t> frame,
                           int zstd_level = 3);

// The size a compressed frame declares (lz4 size prefix, zstd frame header),
// read without decompressing. Throws FrameError(CorruptCompressed) when the
// frame declares none or an invalid one.
std::size_t declared_size(Compression codec, std::span<const std::uint8_t> frame,
                          std::size_t frame_index = FrameError::kNone);

// Decompresses after checking the declared size against `max_size` (before
// allocating). Throws FrameError: DecompressedTooLarge, CorruptCompressed
// (bad data, output size not the declared one, bytes after the zstd frame).
std::string decompress_frame(Compression codec, std::span<const std::uint8_t> frame,
                             std::size_t max_size, std::size_t frame_index = FrameError::kNone);

}  // namespace serialcheck
