// The "error" family (distributed's serialization_error_loads): what
// serialize() sends when no family could write a value. Its frames are UTF-8
// text (the message, then the failure's details); loading one throws
// FamilyError(RemoteError) with that text. It has no dumps: serialize()
// itself makes these messages.
#include <fmt/format.h>

#include <string>

#include "reference/frames/families_common.h"

namespace serialcheck::families {

namespace {

// Enough of a sender's message to say what failed, kept to one line.
constexpr std::size_t kMaxShown = 2000;

Node* error_loads(const detail::json&, std::span<const Frame> frames, const LoadContext& ctx) {
  std::string text;
  for (std::size_t i = 0; i < frames.size() && text.size() < kMaxShown; ++i) {
    if (i > 0) text += " | ";
    auto bytes = detail::host_bytes(ctx, frames, i);
    text.append(reinterpret_cast<const char*>(bytes.data()),
                std::min(bytes.size(), kMaxShown - std::min(kMaxShown, text.size())));
  }
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  ctx.fail(FamilyErrorKind::RemoteError,
           text.empty() ? std::string("the sender could not serialize the value")
                        : "the sender could not serialize the value: " + text);
}

}  // namespace

Family error_family() {
  return {.name = "error", .loads = error_loads};
}

}  // namespace serialcheck::families
