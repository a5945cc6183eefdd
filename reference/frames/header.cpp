#include "reference/frames/header.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/common/utf8.h"

namespace serialcheck {

namespace {

using json = nlohmann::json;

std::string pointer_of(const std::vector<std::string>& path) {
  if (path.empty()) return "the top level";
  std::string out;
  for (const auto& part : path) out += "/" + part;
  return out;
}

// Builds the tree from nlohmann's msgpack SAX events. Unlike the library's
// own DOM builder it stops at max_depth (the binary reader recurses once
// per nesting level, so depth must be refused before it is entered) and
// checks strings are UTF-8.
class BoundedBuilder {
 public:
  BoundedBuilder(json& root, std::size_t max_depth) : root_(root), max_depth_(max_depth) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) {
    if (!utf8(v, "string")) return false;
    return put(json(std::move(v)));
  }
  bool binary(json::binary_t& v) { return put(json(std::move(v))); }

  bool start_object(std::size_t) { return open(json::object()); }
  bool key(json::string_t& k) {
    if (!utf8(k, "map key")) return false;
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    // position counts the bytes read, the offending one included.
    fail(FrameErrorKind::HeaderMalformed, library_message(e.what()),
         position == 0 ? 0 : position - 1);
    return false;
  }

  bool failed() const { return error_.has_value(); }
  const FrameError& error() const { return *error_; }

 private:
  static std::string library_message(std::string_view what) {
    // "[json.exception.parse_error.110] parse error at byte 3: <reason>"
    const auto at = what.find("parse error at byte ");
    if (at != std::string_view::npos) {
      const auto colon = what.find(": ", at);
      if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
    }
    return std::string(what);
  }

  void fail(FrameErrorKind kind, std::string detail, std::size_t offset = FrameError::kNone) {
    if (!error_) error_.emplace(kind, std::move(detail), offset);
  }

  bool utf8(const std::string& s, const char* what) {
    const std::size_t bad = utf8_error_at(s, Surrogates::Reject);
    if (bad == std::string_view::npos) return true;
    fail(FrameErrorKind::HeaderMalformed,
         fmt::format("{} at {} is not valid UTF-8 (byte {} of the string)", what, here(), bad));
    return false;
  }

  std::string here() const { return pointer_of(path_); }

  // Where the next value goes; returns the slot.
  json* slot() {
    if (stack_.empty()) return &root_;
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(nullptr);
      return &top.back();
    }
    return &top[key_];
  }

  bool put(json v) {
    *slot() = std::move(v);
    return true;
  }

  bool open(json container) {
    if (stack_.size() >= max_depth_) {
      fail(FrameErrorKind::HeaderLimit,
           fmt::format("nesting deeper than the limit of {} at {}", max_depth_, here()));
      return false;
    }
    const bool in_array = !stack_.empty() && stack_.back()->is_array();
    std::string step = stack_.empty() ? ""
                       : in_array     ? std::to_string(stack_.back()->size())
                                      : key_;
    json* s = slot();
    *s = std::move(container);
    if (!stack_.empty()) path_.push_back(std::move(step));
    stack_.push_back(s);
    return true;
  }

  bool close() {
    stack_.pop_back();
    if (!path_.empty() && path_.size() >= stack_.size()) path_.pop_back();
    return true;
  }

  json& root_;
  std::size_t max_depth_;
  std::vector<json*> stack_;
  std::vector<std::string> path_;
  std::string key_;
  std::optional<FrameError> error_;
};

// Depth and UTF-8 of a tree about to be written, without recursion.
void check_encodable(const json& root, const HeaderLimits& limits) {
  struct Item {
    const json* node;
    std::size_t depth;
    std::string where;
  };
  std::vector<Item> todo{{&root, 0, ""}};
  while (!todo.empty()) {
    Item item = std::move(todo.back());
    todo.pop_back();
    const json& node = *item.node;
    const std::string where = item.where.empty() ? "the top level" : item.where;
    if (node.is_string()) {
      const std::size_t bad = utf8_error_at(node.get_ref<const std::string&>(), Surrogates::Reject);
      if (bad != std::string_view::npos) {
        throw FrameError(
            FrameErrorKind::HeaderMalformed,
            fmt::format("string at {} is not valid UTF-8 (byte {} of the string)", where, bad));
      }
    } else if (node.is_structured()) {
      if (item.depth >= limits.max_depth) {
        throw FrameError(
            FrameErrorKind::HeaderLimit,
            fmt::format("nesting deeper than the limit of {} at {}", limits.max_depth, where));
      }
      if (node.is_array()) {
        for (std::size_t i = 0; i < node.size(); ++i) {
          todo.push_back({&node[i], item.depth + 1, item.where + "/" + std::to_string(i)});
        }
      } else {
        for (auto it = node.begin(); it != node.end(); ++it) {
          const std::size_t bad = utf8_error_at(it.key(), Surrogates::Reject);
          if (bad != std::string_view::npos) {
            throw FrameError(
                FrameErrorKind::HeaderMalformed,
                fmt::format("map key at {} is not valid UTF-8 (byte {} of the key)", where, bad));
          }
          todo.push_back({&it.value(), item.depth + 1, item.where + "/" + it.key()});
        }
      }
    }
  }
}

}  // namespace

std::string encode_header(const nlohmann::json& header, const HeaderLimits& limits) {
  check_encodable(header, limits);
  std::string out;
  json::to_msgpack(header, nlohmann::detail::output_adapter<char>(out));
  if (out.size() > limits.max_bytes) {
    throw FrameError(FrameErrorKind::HeaderLimit,
                     fmt::format("encoded header of {} bytes above the limit of {}", out.size(),
                                 limits.max_bytes));
  }
  return out;
}

nlohmann::json decode_header(std::span<const std::uint8_t> bytes, const HeaderLimits& limits) {
  if (bytes.size() > limits.max_bytes) {
    throw FrameError(
        FrameErrorKind::HeaderLimit,
        fmt::format("header of {} bytes above the limit of {}", bytes.size(), limits.max_bytes));
  }
  json root;
  BoundedBuilder builder(root, limits.max_depth);
  bool ok = false;
  try {
    ok = json::sax_parse(bytes.data(), bytes.data() + bytes.size(), &builder,
                         nlohmann::json::input_format_t::msgpack,
                         /*strict=*/true);
  } catch (const nlohmann::json::exception& e) {
    // The reader reports through parse_error(); anything else it throws
    // (out_of_range on absurd sizes) is malformed input too.
    throw FrameError(FrameErrorKind::HeaderMalformed, e.what());
  }
  if (builder.failed()) throw builder.error();
  if (!ok) throw FrameError(FrameErrorKind::HeaderMalformed, "msgpack reader stopped");
  return root;
}

}  // namespace serialcheck
