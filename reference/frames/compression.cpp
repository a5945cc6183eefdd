#include "reference/frames/compression.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <climits>
#include <memory>

namespace serialcheck {

namespace {
constexpr std::size_t kLz4Prefix = 4;
static_assert(sizeof(std::size_t) == sizeof(unsigned long long), "zstd content sizes are 64-bit");
}  // namespace

std::string_view compression_name(Compression codec) {
  switch (codec) {
    case Compression::None: return "none";
    case Compression::Lz4: return "lz4";
    case Compression::Zstd: return "zstd";
  }
  return "none";
}

std::optional<Compression> parse_compression(std::string_view name) {
  if (name == "none") return Compression::None;
  if (name == "lz4") return Compression::Lz4;
  if (name == "zstd") return Compression::Zstd;
  return std::nullopt;
}

std::string codec_library_version(Compression codec) {
  switch (codec) {
    case Compression::None: return {};
    case Compression::Lz4: return LZ4_versionString();
    case Compression::Zstd: return ZSTD_versionString();
  }
  return {};
}

nlohmann::json compression_header_entry(Compression codec) {
  if (codec == Compression::None) return nullptr;
  return std::string(compression_name(codec));
}

Compression compression_from_header_entry(const nlohmann::json& entry, std::size_t frame) {
  if (entry.is_null() || (entry.is_boolean() && !entry.get<bool>())) return Compression::None;
  if (entry.is_string()) {
    const auto& name = entry.get_ref<const std::string&>();
    if (name == "lz4") return Compression::Lz4;
    if (name == "zstd") return Compression::Zstd;
    throw FrameError(FrameErrorKind::UnsupportedCompression,
                     fmt::format("compression \"{}\" is not supported (lz4, zstd or none)", name),
                     FrameError::kNone, frame);
  }
  throw FrameError(
      FrameErrorKind::HeaderSchema,
      fmt::format("a compression entry is null or a codec name, not {}", entry.type_name()),
      FrameError::kNone, frame);
}

std::string compress_frame(Compression codec, std::span<const std::uint8_t> frame, int zstd_level) {
  switch (codec) {
    case Compression::None:
      return std::string(reinterpret_cast<const char*>(frame.data()), frame.size());
    case Compression::Lz4: {
      if (frame.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
        throw FrameError(FrameErrorKind::CompressionFailed,
                         fmt::format("lz4 takes at most {} bytes, the frame has {}",
                                     LZ4_MAX_INPUT_SIZE, frame.size()));
      }
      const int n = static_cast<int>(frame.size());
      std::string out(kLz4Prefix + static_cast<std::size_t>(LZ4_compressBound(n)), '\0');
      const auto size = static_cast<std::uint32_t>(frame.size());
      for (std::size_t i = 0; i < kLz4Prefix; ++i) out[i] = static_cast<char>(size >> (8 * i));
      // One block from a fresh stream, as python-lz4's block.compress makes
      // it (LZ4_resetStream, then LZ4_compress_fast_continue). Not
      // LZ4_compress_default: below 64 KiB it indexes positions in 16 bits
      // and finds other matches, so its bytes differ from distributed's.
      const std::unique_ptr<LZ4_stream_t, int (*)(LZ4_stream_t*)> stream(LZ4_createStream(),
                                                                         LZ4_freeStream);
      if (!stream) throw FrameError(FrameErrorKind::CompressionFailed, "LZ4 has no memory");
      const int written = LZ4_compress_fast_continue(
          stream.get(), reinterpret_cast<const char*>(frame.data()), out.data() + kLz4Prefix, n,
          static_cast<int>(out.size() - kLz4Prefix), 1);
      if (written <= 0)
        throw FrameError(FrameErrorKind::CompressionFailed, "LZ4 refused the frame");
      out.resize(kLz4Prefix + static_cast<std::size_t>(written));
      return out;
    }
    case Compression::Zstd: {
      std::string out(ZSTD_compressBound(frame.size()), '\0');
      const std::size_t written =
          ZSTD_compress(out.data(), out.size(), frame.data(), frame.size(), zstd_level);
      if (ZSTD_isError(written)) {
        throw FrameError(FrameErrorKind::CompressionFailed,
                         fmt::format("zstd: {}", ZSTD_getErrorName(written)));
      }
      out.resize(written);
      return out;
    }
  }
  return {};
}

std::optional<std::string> maybe_compress(std::span<const std::uint8_t> frame,
                                          const CompressionOptions& options) {
  if (options.codec == Compression::None) return std::nullopt;
  if (frame.size() < options.min_size || frame.size() > options.max_size) return std::nullopt;
  if (options.codec == Compression::Lz4 &&
      frame.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
    return std::nullopt;
  }
  std::string out = compress_frame(options.codec, frame, options.zstd_level);
  if (static_cast<double>(out.size()) > options.max_ratio * static_cast<double>(frame.size())) {
    return std::nullopt;
  }
  return out;
}

std::size_t declared_size(Compression codec, std::span<const std::uint8_t> frame,
                          std::size_t frame_index) {
  switch (codec) {
    case Compression::None: return frame.size();
    case Compression::Lz4: {
      if (frame.size() < kLz4Prefix) {
        throw FrameError(
            FrameErrorKind::CorruptCompressed,
            fmt::format("an lz4 frame of {} bytes has no 4-byte size prefix", frame.size()),
            FrameError::kNone, frame_index);
      }
      std::uint32_t size = 0;
      for (std::size_t i = 0; i < kLz4Prefix; ++i) size |= std::uint32_t{frame[i]} << (8 * i);
      // python-lz4 reads the prefix as a signed 32-bit int and rejects
      // negative sizes; so does the reference.
      if (size > static_cast<std::uint32_t>(INT_MAX)) {
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         fmt::format("lz4 size prefix {} is negative as a 32-bit int", size),
                         FrameError::kNone, frame_index);
      }
      return size;
    }
    case Compression::Zstd: {
      const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
      if (size == ZSTD_CONTENTSIZE_ERROR) {
        throw FrameError(FrameErrorKind::CorruptCompressed, "not a zstd frame", FrameError::kNone,
                         frame_index);
      }
      if (size == ZSTD_CONTENTSIZE_UNKNOWN) {
        // zstandard's ZstdDecompressor.decompress() refuses such frames too.
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         "the zstd frame does not record its content size", FrameError::kNone,
                         frame_index);
      }
      return static_cast<std::size_t>(size);
    }
  }
  return frame.size();
}

std::string decompress_frame(Compression codec, std::span<const std::uint8_t> frame,
                             std::size_t max_size, std::size_t frame_index) {
  const std::size_t size = declared_size(codec, frame, frame_index);
  if (size > max_size) {
    throw FrameError(FrameErrorKind::DecompressedTooLarge,
                     fmt::format("{} frame declares {} bytes, above the limit of {}",
                                 compression_name(codec), size, max_size),
                     FrameError::kNone, frame_index);
  }
  switch (codec) {
    case Compression::None:
      return std::string(reinterpret_cast<const char*>(frame.data()), frame.size());
    case Compression::Lz4: {
      const std::size_t body = frame.size() - kLz4Prefix;
      if (body > static_cast<std::size_t>(INT_MAX)) {
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         fmt::format("an lz4 block of {} bytes is too large to be one", body),
                         FrameError::kNone, frame_index);
      }
      std::string out(size, '\0');
      const int got =
          LZ4_decompress_safe(reinterpret_cast<const char*>(frame.data()) + kLz4Prefix, out.data(),
                              static_cast<int>(body), static_cast<int>(size));
      if (got < 0) {
        throw FrameError(FrameErrorKind::CorruptCompressed, "corrupt lz4 block", FrameError::kNone,
                         frame_index);
      }
      if (static_cast<std::size_t>(got) != size) {
        throw FrameError(
            FrameErrorKind::CorruptCompressed,
            fmt::format("lz4 block decompressed to {} bytes, the prefix says {}", got, size),
            FrameError::kNone, frame_index);
      }
      return out;
    }
    case Compression::Zstd: {
      const std::size_t whole = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
      if (ZSTD_isError(whole)) {
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         fmt::format("zstd: {}", ZSTD_getErrorName(whole)), FrameError::kNone,
                         frame_index);
      }
      if (whole != frame.size()) {
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         fmt::format("{} bytes after the zstd frame", frame.size() - whole),
                         FrameError::kNone, frame_index);
      }
      std::string out(size, '\0');
      const std::size_t got = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
      if (ZSTD_isError(got)) {
        throw FrameError(FrameErrorKind::CorruptCompressed,
                         fmt::format("zstd: {}", ZSTD_getErrorName(got)), FrameError::kNone,
                         frame_index);
      }
      if (got != size) {
        throw FrameError(
            FrameErrorKind::CorruptCompressed,
            fmt::format("zstd frame decompressed to {} bytes, its header says {}", got, size),
            FrameError::kNone, frame_index);
      }
      return out;
    }
  }
  return {};
}

}  // namespace serialcheck
