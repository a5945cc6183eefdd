#include "reference/frames/header_json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "reference/common/hex.h"

namespace serialcheck {
namespace {

using json = nlohmann::json;

std::string hex_of(const json::binary_t& bytes) {
  return hex_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::optional<json::binary_t::container_type> bytes_of_hex(const std::string& hex) {
  auto bytes = hex_decode(hex);
  if (!bytes) return std::nullopt;
  return json::binary_t::container_type(bytes->begin(), bytes->end());
}

// The subtype member of a binary form: absent or null (none) or an unsigned
// integer that fits a msgpack ext type. False when it is anything else.
bool read_subtype(const json& object, std::optional<std::uint8_t>& subtype) {
  const auto it = object.find("subtype");
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 255) return false;
  subtype = static_cast<std::uint8_t>(it->get<std::uint64_t>());
  return true;
}

json make_binary(json::binary_t::container_type bytes, std::optional<std::uint8_t> subtype) {
  return subtype ? json::binary(std::move(bytes), *subtype) : json::binary(std::move(bytes));
}

// The binary value an object stands for, if it is exactly one of the forms.
std::optional<json> as_binary(const json& object) {
  const std::size_t n = object.size();
  std::optional<std::uint8_t> subtype;
  if (const auto hex = object.find("binary"); hex != object.end()) {
    const bool only = n == 1 || (n == 2 && object.contains("subtype"));
    if (!only || !hex->is_string() || !read_subtype(object, subtype)) return std::nullopt;
    auto bytes = bytes_of_hex(hex->get<std::string>());
    if (!bytes) return std::nullopt;
    return make_binary(std::move(*bytes), subtype);
  }
  if (const auto list = object.find("bytes"); list != object.end()) {
    // nlohmann's form always has both members.
    if (n != 2 || !object.contains("subtype") || !list->is_array()) return std::nullopt;
    if (!read_subtype(object, subtype)) return std::nullopt;
    json::binary_t::container_type bytes;
    bytes.reserve(list->size());
    for (const auto& b : *list) {
      if (!b.is_number_unsigned() || b.get<std::uint64_t>() > 255) return std::nullopt;
      bytes.push_back(static_cast<std::uint8_t>(b.get<std::uint64_t>()));
    }
    return make_binary(std::move(bytes), subtype);
  }
  return std::nullopt;
}

}  // namespace

json header_to_text_json(const json& header) {
  if (header.is_binary()) {
    const auto& bin = header.get_binary();
    json out = {{"binary", hex_of(bin)}};
    if (bin.has_subtype()) out["subtype"] = bin.subtype();
    return out;
  }
  if (header.is_array()) {
    json out = json::array();
    for (const auto& item : header) out.push_back(header_to_text_json(item));
    return out;
  }
  if (header.is_object()) {
    json out = json::object();
    for (const auto& [key, item] : header.items()) out[key] = header_to_text_json(item);
    return out;
  }
  return header;
}

json header_from_text_json(const json& text) {
  if (text.is_object()) {
    if (auto bin = as_binary(text)) return std::move(*bin);
    json out = json::object();
    for (const auto& [key, item] : text.items()) out[key] = header_from_text_json(item);
    return out;
  }
  if (text.is_array()) {
    json out = json::array();
    for (const auto& item : text) out.push_back(header_from_text_json(item));
    return out;
  }
  return text;
}

}  // namespace serialcheck
