// Typed errors of the frame layer: packing and unpacking frames, msgpack
// headers, per-frame compression, and host access to device frames. Each
// error names what went wrong and, where it applies, the byte offset in the
// input and the index of the frame. FrameError is a serialcheck::Error
// (reference/common/error.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "reference/common/error.h"

namespace serialcheck {

enum class FrameErrorKind {
  TruncatedPrelude,        // input ends inside the frame count or the lengths table
  TooManyFrames,           // the count cannot fit the input, or exceeds the caller's limit
  FrameOutOfRange,         // a frame's length runs past the end of the input
  TrailingBytes,           // bytes after the last frame (unless allowed)
  DeviceFrame,             // host bytes asked of a frame that lives on a device
  HeaderMalformed,         // not msgpack, trailing data, bad UTF-8, a non-string map key
  HeaderLimit,             // header too deep or too large
  HeaderSchema,            // a header that is msgpack but not what the message layer needs
  UnsupportedCompression,  // a codec this build does not read ("snappy", "zlib", ...)
  CorruptCompressed,       // a compressed frame that does not decompress to its declared size
  DecompressedTooLarge,    // declared decompressed size above the caller's limit
  CompressionFailed,       // the codec refused to compress (input too large for it)
};

// Stable kebab-case name: "truncated-prelude", "too-many-frames", ...
std::string_view frame_error_kind_name(FrameErrorKind kind);

class FrameError : public Error {
 public:
  static constexpr std::size_t kNone = Location::kNone;

  // what(): "<kind>: <detail> (frame F, byte O)" with the parts that apply.
  FrameError(FrameErrorKind kind, std::string detail, std::size_t offset = kNone,
             std::size_t frame = kNone);

  FrameErrorKind kind() const { return kind_; }
  // Byte offset in the input that was being read, or kNone.
  std::size_t offset() const { return location().offset; }
  // Index of the frame in the packed list (in a message the header is frame 0,
  // so Message::frames[i] is frame i + 1), or kNone.
  std::size_t frame() const { return location().frame; }
  bool has_offset() const { return location().has_offset(); }
  bool has_frame() const { return location().has_frame(); }

 private:
  FrameErrorKind kind_;
};

}  // namespace serialcheck
