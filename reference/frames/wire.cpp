#include "reference/frames/wire.h"

#include <fmt/format.h>

namespace serialcheck {

std::string pack_message(const Message& message, const PackOptions& options) {
  std::vector<Frame> packed;
  packed.reserve(message.frames.size() + 1);
  packed.emplace_back();  // the header, filled in below
  nlohmann::json compression = nlohmann::json::array();
  for (std::size_t i = 0; i < message.frames.size(); ++i) {
    const Frame& frame = message.frames[i];
    if (frame.on_device()) {
      throw FrameError(FrameErrorKind::DeviceFrame,
                       "device frames cannot be packed; copy it with to_host() first",
                       FrameError::kNone, i + 1);
    }
    std::optional<std::string> compressed = maybe_compress(frame.bytes(), options.compression);
    if (compressed) {
      compression.push_back(compression_header_entry(options.compression.codec));
      packed.push_back(Frame::owned(std::move(*compressed)));
    } else {
      compression.push_back(nullptr);
      packed.push_back(frame);
    }
  }
  if (!message.header.is_object() && !message.header.is_null()) {
    throw FrameError(FrameErrorKind::HeaderSchema,
                     fmt::format("a message header is a map, not {}", message.header.type_name()));
  }
  nlohmann::json header = message.header.is_object() ? message.header : nlohmann::json::object();
  header["compression"] = std::move(compression);
  header["count"] = message.frames.size();
  packed[0] = Frame::owned(encode_header(header, options.header));
  return pack_frames(packed);
}

Message unpack_message(std::span<const std::uint8_t> bytes, const UnpackOptions& options,
                       std::shared_ptr<const void> owner) {
  std::vector<Frame> packed = unpack_frames(bytes, options.frames, owner);
  if (packed.empty()) {
    throw FrameError(FrameErrorKind::HeaderSchema, "no header frame: the count is 0", 0);
  }
  const Frame& head = packed[0];
  const std::size_t head_at = static_cast<std::size_t>(head.data - bytes.data());
  Message message;
  try {
    // An empty header frame is an empty header, as in deserialize_bytes.
    if (head.size != 0) message.header = decode_header(head.bytes(), options.header);
  } catch (const FrameError& e) {
    throw FrameError(e.kind(), e.detail(), e.has_offset() ? head_at + e.offset() : head_at, 0);
  }
  if (!message.header.is_object()) {
    throw FrameError(FrameErrorKind::HeaderSchema,
                     fmt::format("the header is a map, not {}", message.header.type_name()),
                     head_at, 0);
  }
  const std::size_t count = packed.size() - 1;
  const auto compression = message.header.find("compression");
  if (compression == message.header.end()) {
    // distributed's deserialize_bytes fails here too (KeyError).
    throw FrameError(FrameErrorKind::HeaderSchema, "the header has no \"compression\" key", head_at,
                     0);
  }
  if (!compression->is_array() || compression->size() != count) {
    throw FrameError(
        FrameErrorKind::HeaderSchema,
        compression->is_array()
            ? fmt::format("\"compression\" has {} entries for {} frames", compression->size(),
                          count)
            : fmt::format("\"compression\" is an array, not {}", compression->type_name()),
        head_at, 0);
  }
  if (const auto declared = message.header.find("count"); declared != message.header.end()) {
    if (!declared->is_number_integer() || declared->get<std::int64_t>() < 0 ||
        static_cast<std::size_t>(declared->get<std::int64_t>()) != count) {
      throw FrameError(
          FrameErrorKind::HeaderSchema,
          fmt::format("\"count\" is {} but {} frames follow the header", declared->dump(), count),
          head_at, 0);
    }
  }
  // Codecs and declared sizes first, so a hostile message is refused before
  // anything is allocated for it.
  std::vector<Compression> codecs(count, Compression::None);
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    codecs[i] = compression_from_header_entry((*compression)[i], i + 1);
    if (codecs[i] == Compression::None) continue;
    const std::size_t size = declared_size(codecs[i], packed[i + 1].bytes(), i + 1);
    if (size > options.max_decompressed_bytes - total) {
      throw FrameError(FrameErrorKind::DecompressedTooLarge,
                       fmt::format("frames declare more than the limit of {} decompressed bytes",
                                   options.max_decompressed_bytes),
                       FrameError::kNone, i + 1);
    }
    total += size;
  }
  message.frames.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    Frame& frame = packed[i + 1];
    if (codecs[i] == Compression::None) {
      message.frames.push_back(std::move(frame));
    } else {
      message.frames.push_back(Frame::owned(
          decompress_frame(codecs[i], frame.bytes(), options.max_decompressed_bytes, i + 1)));
    }
  }
  return message;
}

}  // namespace serialcheck
