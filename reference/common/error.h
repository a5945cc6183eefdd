// The one base of every error serialcheck throws on purpose: a stable
// kebab-case kind name ("truncated", "bad-header", "out-of-range"...), an
// optional location (byte offset, frame index, a key: header key, JSON
// pointer, file or device name), a detail, and one rendering, what(). Each
// error class of the project derives from it and keeps its own kind enum and
// accessors; it picks one of the few message styles below, so messages read
// as they always have. Catch serialcheck::Error to catch them all.
//
// Nothing here includes anything else from reference/.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace serialcheck {

// Where an error arose; each part may be absent. An absent offset or frame
// is Location::kNone, the one "none" of every error class.
struct Location {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  std::size_t offset = kNone;  // byte offset in the input being read (or written)
  std::size_t frame = kNone;   // index of a frame
  std::string key;             // a header key or JSON pointer, a file, a device name

  bool has_offset() const { return offset != kNone; }
  bool has_frame() const { return frame != kNone; }
  bool has_key() const { return !key.empty(); }
  bool empty() const { return !has_offset() && !has_frame() && !has_key(); }
};

// How what() arranges kind, detail and location. Each error class keeps the
// style its messages have always had (tests, corpus files and the gate's
// fingerprints hold them).
enum class ErrorStyle {
  Plain,         // "<detail>"
  Kind,          // "<kind>: <detail>", then " (header <key>, frame <F>, byte <O>)"
                 // with the parts present
  KindAtOffset,  // "<kind> at offset <O>: <detail>"
  KeyFirst,      // "<key>: <detail>"; "(document)" stands for an empty key
  Device,        // "device <key>: <kind>: <detail>"
};

// The message of an error of that style; what() of every Error is this.
std::string render_error(ErrorStyle style, std::string_view kind_name, std::string_view detail,
                         const Location& location);

class Error : public std::runtime_error {
 public:
  // The stable kebab-case name of the kind ("truncated", "frame-out-of-range").
  const std::string& kind_name() const { return kind_name_; }
  // The message without kind and location.
  const std::string& detail() const { return detail_; }
  const Location& location() const { return location_; }
  ErrorStyle style() const { return style_; }

 protected:
  Error(std::string kind_name, std::string detail, Location location, ErrorStyle style);
  // A Plain error: what() is the detail alone.
  Error(std::string kind_name, std::string detail)
      : Error(std::move(kind_name), std::move(detail), Location{}, ErrorStyle::Plain) {}

 private:
  std::string kind_name_;
  std::string detail_;
  Location location_;
  ErrorStyle style_;
};

}  // namespace serialcheck
