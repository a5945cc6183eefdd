// A serialized message: a header (a msgpack-compatible tree) plus a list of
// frames. This is the shape dask.distributed's serialize() returns, and the
// shape every subject dumps to: a plain pickle is one frame, a protocol-5
// pickle with out-of-band buffers is the pickle frame followed by one frame
// per buffer. A frame is host bytes, or a buffer of device memory
// (reference/device) that never passes through the host unless asked to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace serialcheck {

namespace device {
class Buffer;
class Device;
}  // namespace device

namespace detail {
[[noreturn]] void throw_device_frame_access();
}

// A view of bytes. `owner` keeps the memory alive when the frame owns it
// (or shares ownership with another frame); a borrowed frame has no owner
// and points at memory the producer guarantees outlives the message.
//
// A device frame has `device_buffer` set: `data` is null, `size` is the
// buffer's size and `owner` shares the buffer, so it is never borrowed().
// Its bytes are reachable only through a counted copy (to_host).
struct Frame {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  bool readonly = true;
  std::shared_ptr<const void> owner;
  std::shared_ptr<device::Buffer> device_buffer;

  bool on_device() const { return device_buffer != nullptr; }
  bool borrowed() const { return owner == nullptr; }

  // The host bytes. A device frame has none: throws FrameError(DeviceFrame).
  std::string_view view() const {
    if (device_buffer) detail::throw_device_frame_access();
    return {reinterpret_cast<const char*>(data), size};
  }
  std::span<const std::uint8_t> bytes() const {
    if (device_buffer) detail::throw_device_frame_access();
    return {data, size};
  }

  static Frame owned(std::string bytes, bool readonly = true);
  static Frame borrowed_view(const void* data, std::size_t size, bool readonly = true);
  // A frame of device memory; zero-copy (shares the buffer). A null buffer
  // throws std::invalid_argument.
  static Frame device_view(std::shared_ptr<device::Buffer> buffer, bool readonly = true);
};

// A host frame with the bytes of `frame`: a device frame is copied with one
// counted device->host copy into an owned frame; a host frame is returned as
// it is (no copy). `readonly` is kept.
Frame to_host(const Frame& frame);

// A device frame on `device` with the bytes of `frame`: a host frame is
// uploaded (one allocation, one host->device copy); a frame already on
// `device` is returned as it is; a frame on another device throws
// device::DeviceError(DeviceMismatch). `readonly` is kept.
Frame to_device(const Frame& frame, device::Device& device);

struct Message {
  nlohmann::json header = nlohmann::json::object();
  std::vector<Frame> frames;
};

}  // namespace serialcheck
