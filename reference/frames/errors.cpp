#include "reference/frames/errors.h"

#include <fmt/format.h>

namespace serialcheck {

std::string_view frame_error_kind_name(FrameErrorKind kind) {
  switch (kind) {
    case FrameErrorKind::TruncatedPrelude: return "truncated-prelude";
    case FrameErrorKind::TooManyFrames: return "too-many-frames";
    case FrameErrorKind::FrameOutOfRange: return "frame-out-of-range";
    case FrameErrorKind::TrailingBytes: return "trailing-bytes";
    case FrameErrorKind::DeviceFrame: return "device-frame";
    case FrameErrorKind::HeaderMalformed: return "header-malformed";
    case FrameErrorKind::HeaderLimit: return "header-limit";
    case FrameErrorKind::HeaderSchema: return "header-schema";
    case FrameErrorKind::UnsupportedCompression: return "unsupported-compression";
    case FrameErrorKind::CorruptCompressed: return "corrupt-compressed";
    case FrameErrorKind::DecompressedTooLarge: return "decompressed-too-large";
    case FrameErrorKind::CompressionFailed: return "compression-failed";
  }
  return "unknown";
}

namespace {
std::string format_what(FrameErrorKind kind, const std::string& detail, std::size_t offset,
                        std::size_t frame) {
  std::string where;
  if (frame != FrameError::kNone) where += fmt::format("frame {}", frame);
  if (offset != FrameError::kNone) {
    if (!where.empty()) where += ", ";
    where += fmt::format("byte {}", offset);
  }
  if (where.empty()) return fmt::format("{}: {}", frame_error_kind_name(kind), detail);
  return fmt::format("{}: {} ({})", frame_error_kind_name(kind), detail, where);
}
}  // namespace

FrameError::FrameError(FrameErrorKind kind, std::string detail, std::size_t offset,
                       std::size_t frame)
    : std::runtime_error(format_what(kind, detail, offset, frame)),
      kind_(kind),
      detail_(std::move(detail)),
      offset_(offset),
      frame_(frame) {}

}  // namespace serialcheck
