// The "cuda" family (distributed/protocol/cuda.py with the rmm DeviceBuffer
// serializer of rmm.py): a device buffer travels as one device frame that
// shares the buffer: no copy, and never through the host.
//   {"sub-header": {"shape": [size], "strides": [1], "typestr": "|u1",
//                   "version": 3, "device": "<device name>"},
//    "type-serialized": <pickle of rmm._lib.device_buffer.DeviceBuffer>,
//    "serializer": "cuda", "compression": [false]}
// "compression": [false] marks the frame as never compressed, as
// distributed's cuda_dumps does. A frame that arrives as host bytes (a
// packed message) is uploaded to DeserializeOptions::device, one counted
// copy, or refused when there is none.
#include <fmt/format.h>

#include <string>

#include "reference/device/device.h"
#include "reference/frames/families_common.h"

namespace serialcheck::families {

namespace {

using detail::json;

constexpr const char* kModule = "rmm._lib.device_buffer";
constexpr const char* kClass = "DeviceBuffer";

std::optional<Message> cuda_dumps(const Node& value, DumpContext& ctx) {
  if (value.kind != Kind::DeviceBuffer || value.device() == nullptr) return std::nullopt;
  const device::Buffer& buffer = *value.device();
  Message message;
  message.header = {
      {"sub-header",
       {{"shape", json::array({buffer.size()})},
        {"strides", json::array({1})},
        {"typestr", "|u1"},
        {"version", 3},
        {"device", buffer.device().name()}}},
      {"type-serialized", detail::pickled_class(kModule, kClass, ctx.pickle_protocol())},
      {"serializer", "cuda"},
      {"compression", json::array({false})}};
  message.frames.push_back(Frame::device_view(value.device(), false));
  return message;
}

Node* cuda_loads(const json& header, std::span<const Frame> frames, const LoadContext& ctx) {
  auto [module, qualname] = detail::load_pickled_class(
      ctx, detail::require(ctx, header, "type-serialized"), "/type-serialized");
  // rmm has moved the class between modules; any rmm DeviceBuffer is one.
  if (qualname != kClass || module.rfind("rmm", 0) != 0) {
    ctx.fail(FamilyErrorKind::UnknownType,
             fmt::format("the cuda family has no loader for {}.{}", module, qualname),
             "/type-serialized");
  }
  const json& sub = detail::require(ctx, header, "sub-header");
  if (!sub.is_object()) {
    ctx.fail(FamilyErrorKind::BadHeader, "the sub-header is a map", "/sub-header");
  }
  if (frames.size() != 1) {
    ctx.fail(FamilyErrorKind::BadFrames,
             fmt::format("a device buffer is one frame, not {}", frames.size()));
  }
  const Frame& frame = frames[0];
  if (const json* shape = detail::find(sub, "shape")) {
    auto dims = detail::require_int_array(ctx, *shape, "/sub-header/shape");
    if (dims.size() != 1 || dims[0] < 0 || static_cast<std::size_t>(dims[0]) != frame.size) {
      ctx.fail(FamilyErrorKind::BadFrames,
               fmt::format("the sub-header's shape {} does not match the frame's {} bytes",
                           shape->dump(), frame.size),
               "/sub-header/shape", 0);
    }
  }
  if (frame.on_device()) return ctx.graph().device_buffer(frame.device_buffer);
  if (ctx.options().device == nullptr) {
    ctx.fail(FamilyErrorKind::Device,
             "a cuda frame arrived as host bytes and no device was given to load it onto", {}, 0);
  }
  try {
    return ctx.graph().device_buffer(ctx.options().device->upload(frame.bytes()));
  } catch (const device::DeviceError& e) {
    ctx.fail(FamilyErrorKind::Device, fmt::format("uploading the frame: {}", e.what()), {}, 0);
  }
}

}  // namespace

Family cuda_family() {
  return {
      .name = "cuda",
      .dumps = cuda_dumps,
      .loads = cuda_loads,
      .data_kinds = {Kind::DeviceBuffer},
  };
}

}  // namespace serialcheck::families
