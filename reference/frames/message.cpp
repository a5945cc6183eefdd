#include "reference/frames/message.h"

#include <stdexcept>

#include "reference/device/device.h"
#include "reference/frames/errors.h"

namespace serialcheck {

namespace detail {
void throw_device_frame_access() {
  throw FrameError(FrameErrorKind::DeviceFrame,
                   "a device frame has no host bytes; copy it with to_host() first");
}
}  // namespace detail

Frame Frame::owned(std::string bytes, bool readonly) {
  auto holder = std::make_shared<const std::string>(std::move(bytes));
  Frame f;
  f.data = reinterpret_cast<const std::uint8_t*>(holder->data());
  f.size = holder->size();
  f.readonly = readonly;
  f.owner = holder;
  return f;
}

Frame Frame::borrowed_view(const void* data, std::size_t size, bool readonly) {
  Frame f;
  f.data = static_cast<const std::uint8_t*>(data);
  f.size = size;
  f.readonly = readonly;
  return f;
}

Frame Frame::device_view(std::shared_ptr<device::Buffer> buffer, bool readonly) {
  if (!buffer) throw std::invalid_argument("Frame::device_view: null buffer");
  Frame f;
  f.size = buffer->size();
  f.readonly = readonly;
  f.owner = buffer;
  f.device_buffer = std::move(buffer);
  return f;
}

Frame to_host(const Frame& frame) {
  if (!frame.on_device()) return frame;
  const device::Buffer& buffer = *frame.device_buffer;
  return Frame::owned(buffer.device().download(buffer), frame.readonly);
}

Frame to_device(const Frame& frame, device::Device& target) {
  if (frame.on_device()) {
    if (&frame.device_buffer->device() == &target) return frame;
    throw device::DeviceError(device::DeviceErrorKind::DeviceMismatch, target.name(),
                              "the frame lives on " + frame.device_buffer->device().name() +
                                  "; copy it to the host first");
  }
  return Frame::device_view(target.upload(frame.bytes()), frame.readonly);
}

}  // namespace serialcheck
