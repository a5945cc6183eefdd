// Messages as one byte string, as dask.distributed's serialize_bytes and
// deserialize_bytes make and read them (distributed/protocol/serialize.py):
//
//   pack_frames([msgpack(header), frame 0, frame 1, ...])
//
// where the packed header is the message's header plus
//   "compression": [null | "lz4" | "zstd", ...]  one entry per frame
//   "count":       number of frames
// (set by packing, overwriting whatever the message's header had there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "reference/frames/compression.h"
#include "reference/frames/errors.h"
#include "reference/frames/header.h"
#include "reference/frames/message.h"
#include "reference/frames/packed.h"

namespace serialcheck {

struct PackOptions {
  CompressionOptions compression;  // default: no compression
  HeaderLimits header;
};

struct UnpackOptions {
  UnpackLimits frames;
  HeaderLimits header;
  // Sum of the declared decompressed sizes of one message, checked before
  // any frame is decompressed.
  std::size_t max_decompressed_bytes = std::size_t{1} << 30;
};

// Throws FrameError(DeviceFrame) naming the frame when a frame is on a
// device (device frames travel apart from packed bytes), and the header
// errors of encode_header.
std::string pack_message(const Message& message, const PackOptions& options = {});

// The message of `bytes`. The header comes back as decoded, "compression"
// and "count" included; frames are decompressed (owned) or point into
// `bytes` (shared with `owner` when given, else borrowed); all readonly.
// Throws FrameError: the errors of unpack_frames and decode_header (header
// offsets are offsets in `bytes`), HeaderSchema (no header frame, header not
// a map, "compression" missing, not an array, or not one entry per frame;
// "count" present and not the number of frames), UnsupportedCompression,
// CorruptCompressed, DecompressedTooLarge, each naming the frame.
// distributed is laxer in places (it ignores "count" and zips a short
// "compression" list, dropping frames); the reference reports those.
Message unpack_message(std::span<const std::uint8_t> bytes, const UnpackOptions& options = {},
                       std::shared_ptr<const void> owner = nullptr);

}  // namespace serialcheck
