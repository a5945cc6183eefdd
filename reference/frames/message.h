// A serialized message: a header (a msgpack-compatible tree) plus a list of
// frames. This is the shape dask.distributed's serialize() returns, and the
// shape every subject dumps to: a plain pickle is one frame, a protocol-5
// pickle with out-of-band buffers is the pickle frame followed by one frame
// per buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace serialcheck {

// A view of bytes. `owner` keeps the memory alive when the frame owns it
// (or shares ownership with another frame); a borrowed frame has no owner
// and points at memory the producer guarantees outlives the message.
struct Frame {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  bool readonly = true;
  std::shared_ptr<const void> owner;

  std::string_view view() const { return {reinterpret_cast<const char*>(data), size}; }
  bool borrowed() const { return owner == nullptr; }

  static Frame owned(std::string bytes, bool readonly = true);
  static Frame borrowed_view(const void* data, std::size_t size, bool readonly = true);
};

struct Message {
  nlohmann::json header = nlohmann::json::object();
  std::vector<Frame> frames;
};

}  // namespace serialcheck
