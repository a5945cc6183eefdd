#include "reference/frames/errors.h"

#include <utility>

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

FrameError::FrameError(FrameErrorKind kind, std::string detail, std::size_t offset,
                       std::size_t frame)
    : Error(std::string(frame_error_kind_name(kind)), std::move(detail),
            Location{.offset = offset, .frame = frame}, ErrorStyle::Kind),
      kind_(kind) {}

}  // namespace serialcheck
