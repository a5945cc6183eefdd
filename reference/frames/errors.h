// Typed errors of the frame layer: packing and unpacking frames, msgpack
// headers, per-frame compression, and host access to device frames. Each
// error names what went wrong and, where it applies, the byte offset in the
// input and the index of the frame.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

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

class FrameError : public std::runtime_error {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // what(): "<kind>: <detail> (frame F, byte O)" with the parts that apply.
  FrameError(FrameErrorKind kind, std::string detail, std::size_t offset = kNone,
             std::size_t frame = kNone);

  FrameErrorKind kind() const { return kind_; }
  const std::string& detail() const { return detail_; }
  // Byte offset in the input that was being read, or kNone.
  std::size_t offset() const { return offset_; }
  // Index of the frame in the packed list (in a message the header is frame 0,
  // so Message::frames[i] is frame i + 1), or kNone.
  std::size_t frame() const { return frame_; }
  bool has_offset() const { return offset_ != kNone; }
  bool has_frame() const { return frame_ != kNone; }

 private:
  FrameErrorKind kind_;
  std::string detail_;
  std::size_t offset_;
  std::size_t frame_;
};

}  // namespace serialcheck
