// The "pickle" family (distributed's pickle_dumps / pickle_loads): frame 0 is
// the pickle, then one frame per out-of-band buffer (PEP 574), with
//   {"serializer": "pickle", "writeable": [bool per buffer frame],
//    "pickle-protocol": N}
// "pickle-protocol" is this project's addition (distributed ignores unknown
// keys): the protocol negotiated with the peer, which the loader holds the
// pickle to. Below protocol 5 every buffer is written in band.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "reference/frames/families_common.h"
#include "reference/pickle/encoder.h"

namespace serialcheck::families {

namespace {

using detail::json;

std::optional<Message> pickle_dumps(const Node& value, DumpContext& ctx) {
  const int protocol = ctx.pickle_protocol();
  pickle::EncodeOptions options;
  options.protocol = protocol;
  std::vector<Frame> buffers;
  json writeable = json::array();
  if (protocol >= 5 && ctx.options().out_of_band) {
    // Every buffer goes out of band, as distributed's buffer_callback asks;
    // each frame borrows the buffer's memory.
    options.buffer_callback = [&](const Node& buffer) {
      const auto payload = buffer.payload();
      buffers.push_back(Frame::borrowed_view(payload.data(), payload.size(), buffer.flag));
      writeable.push_back(!buffer.flag);
      return false;
    };
  }
  pickle::EncodeResult result = pickle::encode(&value, options);
  Message message;
  message.frames.reserve(1 + buffers.size());
  message.frames.push_back(Frame::owned(std::move(result.bytes)));
  for (Frame& f : buffers) message.frames.push_back(std::move(f));
  message.header = {
      {"serializer", "pickle"}, {"writeable", std::move(writeable)}, {"pickle-protocol", protocol}};
  return message;
}

Node* pickle_loads(const json& header, std::span<const Frame> frames, const LoadContext& ctx) {
  if (frames.empty()) {
    ctx.fail(FamilyErrorKind::BadFrames, "the pickle family needs a pickle frame, and has none");
  }
  const std::size_t buffer_count = frames.size() - 1;
  const json* writeable = detail::find(header, "writeable");
  // distributed treats an absent, null or empty list as "as the frames are".
  if (writeable != nullptr && !writeable->is_null()) {
    if (!writeable->is_array()) {
      ctx.fail(FamilyErrorKind::BadHeader, "\"writeable\" is a list of booleans", "/writeable");
    }
    if (!writeable->empty() && writeable->size() != buffer_count) {
      ctx.fail(FamilyErrorKind::BadHeader,
               fmt::format("\"writeable\" has {} entries for {} buffer frames", writeable->size(),
                           buffer_count),
               "/writeable");
    }
    if (writeable->empty()) writeable = nullptr;
  } else {
    writeable = nullptr;
  }
  std::vector<pickle::BufferView> buffers;
  buffers.reserve(buffer_count);
  for (std::size_t i = 1; i < frames.size(); ++i) {
    auto bytes = detail::host_bytes(ctx, frames, i);
    bool readonly = frames[i].readonly;
    if (writeable != nullptr) {
      const json& w = (*writeable)[i - 1];
      if (w.is_boolean()) {
        readonly = !w.get<bool>();
      } else if (!w.is_null()) {
        ctx.fail(FamilyErrorKind::BadHeader, "entries of \"writeable\" are booleans or null",
                 fmt::format("/writeable/{}", i - 1));
      }
    }
    buffers.push_back({bytes.data(), bytes.size(), readonly});
  }
  std::optional<int> protocol;
  if (const json* p = detail::find(header, "pickle-protocol")) {
    const std::int64_t v = detail::require_int(ctx, *p, "/pickle-protocol");
    if (v < 0 || v > 5) {
      ctx.fail(FamilyErrorKind::BadHeader, fmt::format("pickle protocol {} is not 0..5", v),
               "/pickle-protocol");
    }
    protocol = static_cast<int>(v);
  }
  detail::PickleSource source;
  source.frame = 0;
  return detail::load_pickle(ctx, detail::host_bytes(ctx, frames, 0), source, buffers, protocol);
}

}  // namespace

Family pickle_family() {
  return {.name = "pickle", .dumps = pickle_dumps, .loads = pickle_loads};
}

}  // namespace serialcheck::families
