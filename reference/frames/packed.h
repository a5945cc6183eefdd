// Frames packed into one byte string in dask.distributed's layout
// (distributed/protocol/utils.py: pack_frames / unpack_frames):
//
//   u64 count | count x u64 length | payload 0 | payload 1 | ...
//
// all integers little-endian. Unpacking is zero-copy: the frames point into
// the input. Every malformed input gets a FrameError with the byte offset
// (and frame index) where it went wrong; the frame count is checked against
// what the input can hold before anything is allocated from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/frames/errors.h"
#include "reference/frames/message.h"

namespace serialcheck {

inline std::span<const std::uint8_t> byte_span(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

struct UnpackLimits {
  // Frames accepted; the input's size bounds the count in any case (each
  // frame takes 8 bytes of the lengths table).
  std::size_t max_frames = std::size_t{1} << 24;
  // distributed's unpack_frames ignores bytes after the last frame (and
  // silently shortens frames that run past the end); the reference rejects
  // both unless this is set.
  bool allow_trailing_bytes = false;
};

// Size of pack_frames(frames). Throws FrameError(DeviceFrame) for a device
// frame: device memory is never packed, copy it with to_host() first.
std::size_t packed_size(const std::vector<Frame>& frames);

std::string pack_frames(const std::vector<Frame>& frames);

// Writes exactly packed_size(frames) bytes into `out`; throws
// std::invalid_argument when `out` has another size.
void pack_frames_into(const std::vector<Frame>& frames, std::span<std::uint8_t> out);

// The frames of `bytes`, pointing into it, readonly. With an `owner`, every
// frame shares it (so frames may outlive the caller's handle on the input);
// without, frames are borrowed and valid as long as `bytes` is.
std::vector<Frame> unpack_frames(std::span<const std::uint8_t> bytes,
                                 const UnpackLimits& limits = {},
                                 std::shared_ptr<const void> owner = nullptr);

}  // namespace serialcheck
