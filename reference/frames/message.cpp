#include "reference/frames/message.h"

namespace serialcheck {

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

}  // namespace serialcheck
