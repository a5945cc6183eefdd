#include "reference/frames/packed.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace serialcheck {

namespace {

constexpr std::size_t kWord = 8;

void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (std::size_t i = 0; i < kWord; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint64_t get_u64(const std::uint8_t* in) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < kWord; ++i) v |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return v;
}

void require_host(const std::vector<Frame>& frames) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].on_device()) {
      throw FrameError(FrameErrorKind::DeviceFrame,
                       "device frames cannot be packed; copy it with to_host() first",
                       FrameError::kNone, i);
    }
  }
}

}  // namespace

std::size_t packed_size(const std::vector<Frame>& frames) {
  require_host(frames);
  std::size_t total = kWord * (1 + frames.size());
  for (const Frame& f : frames) total += f.size;
  return total;
}

void pack_frames_into(const std::vector<Frame>& frames, std::span<std::uint8_t> out) {
  const std::size_t total = packed_size(frames);
  if (out.size() != total) {
    throw std::invalid_argument(fmt::format(
        "pack_frames_into: the output has {} bytes, the frames need {}", out.size(), total));
  }
  std::uint8_t* p = out.data();
  put_u64(p, frames.size());
  p += kWord;
  for (const Frame& f : frames) {
    put_u64(p, f.size);
    p += kWord;
  }
  for (const Frame& f : frames) {
    if (f.size != 0) std::memcpy(p, f.data, f.size);
    p += f.size;
  }
}

std::string pack_frames(const std::vector<Frame>& frames) {
  std::string out(packed_size(frames), '\0');
  pack_frames_into(
      frames, std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
  return out;
}

std::vector<Frame> unpack_frames(std::span<const std::uint8_t> bytes, const UnpackLimits& limits,
                                 std::shared_ptr<const void> owner) {
  const std::size_t n = bytes.size();
  if (n < kWord) {
    throw FrameError(FrameErrorKind::TruncatedPrelude,
                     fmt::format("{} bytes cannot hold the 8-byte frame count", n), 0);
  }
  const std::uint64_t count = get_u64(bytes.data());
  // The lengths table alone needs 8 bytes per frame: bound the count by the
  // input before allocating anything from it.
  const std::uint64_t room = (n - kWord) / kWord;
  if (count > room) {
    throw FrameError(
        FrameErrorKind::TooManyFrames,
        fmt::format("count {} needs a {}-entry lengths table; {} bytes hold at most {}", count,
                    count, n, room),
        0);
  }
  if (count > limits.max_frames) {
    throw FrameError(FrameErrorKind::TooManyFrames,
                     fmt::format("count {} above the limit of {}", count, limits.max_frames), 0);
  }
  std::vector<Frame> frames;
  frames.reserve(static_cast<std::size_t>(count));
  std::size_t start = kWord * (1 + static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length_at = kWord * (1 + i);
    const std::uint64_t length = get_u64(bytes.data() + length_at);
    const std::size_t left = n - start;
    if (length > left) {
      throw FrameError(FrameErrorKind::FrameOutOfRange,
                       fmt::format("length {} at byte {} runs past the end: {} bytes left at {}",
                                   length, length_at, left, start),
                       length_at, i);
    }
    Frame f = Frame::borrowed_view(bytes.data() + start, static_cast<std::size_t>(length),
                                   /*readonly=*/true);
    f.owner = owner;
    frames.push_back(std::move(f));
    start += static_cast<std::size_t>(length);
  }
  if (start != n && !limits.allow_trailing_bytes) {
    throw FrameError(FrameErrorKind::TrailingBytes,
                     fmt::format("{} bytes after the last frame", n - start), start);
  }
  return frames;
}

}  // namespace serialcheck
