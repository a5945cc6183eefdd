// The opcode-argument reader the decoder and the disassembler share: reads
// fixed-size, counted and newline-terminated arguments from a pickle stream,
// keeps every read inside the current FRAME, and turns any overrun into a
// PickleError at the offset of the opcode being read. Nothing is allocated
// for a declared length before the input is known to hold it.
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"

namespace serialcheck::pickle {

class OpReader {
 public:
  explicit OpReader(std::span<const std::uint8_t> data) : data_(data.data()), size_(data.size()) {}

  // Marks the start of the next opcode; errors from here on carry its offset.
  void start_op() {
    start_ = pos_;
    name_ = "opcode";
    code_ = -1;
  }
  // start_op() for a reader whose opcodes are only ever named by their byte
  // (set_op_code, never set_op_name): the name is left as it is.
  void start_coded_op() {
    start_ = pos_;
    code_ = -1;
  }
  // The opcode's name, for messages, once its byte is known.
  void set_op_name(std::string_view name) { name_ = name; }
  // The same by the opcode's byte (a known opcode): the name is looked up
  // only when a message needs it.
  void set_op_code(std::uint8_t code) { code_ = code; }

  std::size_t pos() const { return pos_; }
  std::size_t size() const { return size_; }
  std::size_t op_start() const { return start_; }
  std::string_view op_name() const {
    if (code_ >= 0) {
      if (const OpInfo* info = find_opcode(static_cast<std::uint8_t>(code_))) return info->name;
    }
    return name_;
  }
  bool at_end() const { return pos_ >= size_; }
  // For a loop that reads opcodes itself (the decoder's run_simple): the
  // input, how far reads from pos() may go (the current frame's end, or the
  // input's), and where it stopped.
  const std::uint8_t* data() const { return data_; }
  std::size_t read_limit() const { return pos_ < frame_end_ ? frame_end_ : size_; }
  void skip_to(std::size_t pos) { pos_ = pos; }
  bool in_frame() const { return pos_ < frame_end_; }
  std::size_t frame_end() const { return frame_end_; }

  [[noreturn]] void fail(ErrorKind kind, std::string message) const {
    throw PickleError(kind, start_, std::move(message));
  }

  const std::uint8_t* read(std::size_t n) {
    // Fast path: inside the input, and inside the frame when in one.
    if (n <= size_ - pos_ && (pos_ >= frame_end_ || n <= frame_end_ - pos_)) {
      const std::uint8_t* p = data_ + pos_;
      pos_ += n;
      return p;
    }
    return read_checked(n);
  }

  // read() where the fast path's test failed: reports the overrun.
  [[gnu::noinline]] const std::uint8_t* read_checked(std::size_t n) {
    if (in_frame() && n > frame_end_ - pos_) {
      fail(ErrorKind::BadValue, fmt::format("{} reads past the end of its frame (frame ends at {})",
                                            op_name(), frame_end_));
    }
    if (n > size_ - pos_) {
      fail(ErrorKind::Truncated,
           fmt::format("pickle data was truncated: {} needs {} bytes, {} left", op_name(), n,
                       size_ - pos_));
    }
    const std::uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }

  // Little-endian unsigned integer of n <= 8 bytes. The sizes opcodes use
  // (1, 2, 4, 8) are one load each once n is known at the call.
  [[gnu::always_inline]] std::uint64_t read_uint(std::size_t n) {
    static_assert(std::endian::native == std::endian::little, "read_uint loads little-endian");
    const std::uint8_t* p = read(n);
    switch (n) {
      case 1: return p[0];
      case 2: return load<std::uint16_t>(p);
      case 4: return load<std::uint32_t>(p);
      case 8: return load<std::uint64_t>(p);
      default: break;
    }
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
  }
  template <class T>
  static T load(const std::uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  std::string_view read_view(std::size_t n) { return {reinterpret_cast<const char*>(read(n)), n}; }

  // A length-prefixed argument: the length is checked against the input
  // before anything is made for it.
  std::string_view read_counted(std::size_t length_bytes, bool is_signed = false) {
    const std::uint64_t n = read_uint(length_bytes);
    // Fast path: a sane length that fits in the input and the frame.
    if (!(is_signed && length_bytes == 4 && (n & 0x80000000u) != 0) && n <= size_ - pos_ &&
        (pos_ >= frame_end_ || n <= frame_end_ - pos_)) {
      const char* p = reinterpret_cast<const char*>(data_ + pos_);
      pos_ += static_cast<std::size_t>(n);
      return {p, static_cast<std::size_t>(n)};
    }
    return counted_checked(n, is_signed && length_bytes == 4);
  }

  // read_counted() where the fast path's test failed: reports what is wrong.
  [[gnu::noinline]] std::string_view counted_checked(std::uint64_t n, bool signed4) {
    if (signed4 && (n & 0x80000000u) != 0) {
      fail(ErrorKind::BadValue, fmt::format("{} has a negative byte count", op_name()));
    }
    if (n > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(ErrorKind::LimitExceeded,
           fmt::format("{} declares {} bytes, beyond the largest size a loader accepts", op_name(),
                       n));
    }
    if (n > size_ - pos_) {
      // A read inside a frame is a frame error first, as read() reports it.
      if (in_frame() && n > frame_end_ - pos_) read(static_cast<std::size_t>(n));
      fail(ErrorKind::Truncated,
           fmt::format("pickle data was truncated: {} declares {} bytes, {} left", op_name(), n,
                       size_ - pos_));
    }
    return read_view(static_cast<std::size_t>(n));
  }

  // One line without its newline.
  std::string_view read_line() {
    const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
    if (nl == nullptr) {
      fail(ErrorKind::Truncated,
           fmt::format("pickle data was truncated: {} argument has no newline", op_name()));
    }
    const auto len =
        static_cast<std::size_t>(static_cast<const std::uint8_t*>(nl) - (data_ + pos_));
    const std::uint8_t* p = read(len + 1);  // checks the frame
    return {reinterpret_cast<const char*>(p), len};
  }

  // FRAME's argument, already read: the next n bytes form a frame. A frame
  // may not begin inside another, and must fit in the input.
  void enter_frame(std::uint64_t n) {
    if (pos_ < frame_end_) {
      fail(ErrorKind::BadValue,
           fmt::format("FRAME begins before the end of the current frame (which ends at {})",
                       frame_end_));
    }
    if (n > size_ - pos_) {
      fail(ErrorKind::Truncated,
           fmt::format("pickle data was truncated: FRAME declares {} bytes, {} left", n,
                       size_ - pos_));
    }
    frame_end_ = pos_ + static_cast<std::size_t>(n);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  std::size_t start_ = 0;
  std::size_t frame_end_ = 0;  // pos_ < frame_end_: inside a frame
  std::string_view name_ = "opcode";
  int code_ = -1;  // set_op_code(), or -1
};

}  // namespace serialcheck::pickle
