#include "reference/common/error.h"

#include <utility>

namespace serialcheck {

std::string render_error(ErrorStyle style, std::string_view kind_name, std::string_view detail,
                         const Location& location) {
  std::string out;
  switch (style) {
    case ErrorStyle::Plain: return std::string(detail);
    case ErrorStyle::KindAtOffset:
      out.append(kind_name).append(" at offset ").append(std::to_string(location.offset));
      return out.append(": ").append(detail);
    case ErrorStyle::KeyFirst:
      out = location.has_key() ? location.key : "(document)";
      return out.append(": ").append(detail);
    case ErrorStyle::Device:
      out.append("device ").append(location.key).append(": ").append(kind_name);
      return out.append(": ").append(detail);
    case ErrorStyle::Kind: break;
  }
  out.append(kind_name).append(": ").append(detail);
  if (location.empty()) return out;
  std::string_view sep = " (";
  if (location.has_key()) {
    out.append(sep).append("header ").append(location.key);
    sep = ", ";
  }
  if (location.has_frame()) {
    out.append(sep).append("frame ").append(std::to_string(location.frame));
    sep = ", ";
  }
  if (location.has_offset()) out.append(sep).append("byte ").append(std::to_string(location.offset));
  return out.append(")");
}

Error::Error(std::string kind_name, std::string detail, Location location, ErrorStyle style)
    : std::runtime_error(render_error(style, kind_name, detail, location)),
      kind_name_(std::move(kind_name)),
      detail_(std::move(detail)),
      location_(std::move(location)),
      style_(style) {}

}  // namespace serialcheck
