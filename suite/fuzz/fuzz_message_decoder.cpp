// libFuzzer target: unpacking a packed message (distributed's pack_frames
// layout: u64 count, u64 lengths, payloads) from arbitrary bytes. A
// FrameError is the only allowed failure. What unpacks must lie within the
// input, and packing the frames again must give back the input byte for byte
// (the layout has one spelling, and trailing bytes are refused).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "reference/frames/errors.h"
#include "reference/frames/packed.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "serialcheck-fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<serialcheck::Frame> frames;
  try {
    frames = serialcheck::unpack_frames(std::span<const std::uint8_t>(data, size));
  } catch (const serialcheck::FrameError&) {
    return 0;
  } catch (const std::exception& e) {
    finding(std::string("unpack: threw something other than FrameError: ") + e.what());
  }
  // Each frame's length takes 8 bytes of the input.
  if (frames.size() > size / 8) finding("unpack: more frames than the input has room for");
  std::size_t total = 0;
  for (const auto& frame : frames) {
    if (frame.size > size - total) finding("unpack: frames hold more bytes than the input");
    total += frame.size;
    if (frame.size == 0) continue;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const auto at = reinterpret_cast<std::uintptr_t>(frame.data);
    if (at < begin || at - begin > size - frame.size) {
      finding("unpack: a frame points outside the input");
    }
  }
  std::string packed;
  try {
    packed = serialcheck::pack_frames(frames);
  } catch (const std::exception& e) {
    finding(std::string("pack: unpacked frames do not pack: ") + e.what());
  }
  if (packed.size() != size || (size != 0 && std::memcmp(packed.data(), data, size) != 0)) {
    finding("pack: packing the unpacked frames does not give back the input");
  }
  return 0;
}
