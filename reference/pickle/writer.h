// The output side of the pickle encoder, to match the decoder's reader.h:
// the buffer a pickle is written into, and its FRAME handling as CPython
// 3.11's C pickler does it (Modules/_pickle.c: _Pickler_Write,
// _Pickler_OpcodeBoundary, _Pickler_CommitFrame, _Pickler_write_bytes).
//
// The pickle is built in a malloc'd buffer (an OutputBuffer the thread keeps
// between calls): bytes [buf_, cur_) are written, up to end_. A byte written
// is a store; growing neither zero-fills (as resizing a std::string would)
// nor, for large buffers, copies (realloc remaps). finish() copies the result
// into a std::string once.
//
// Opcodes and short arguments are written as one unaligned 8-byte store
// (store_word) of which only the first bytes count; the buffer keeps 8 bytes
// of room for that. Such a store has the type of a 64-bit integer, so unlike
// a char store it cannot alias the writer's pointers and flags: the compiler
// keeps them in registers across a run of opcodes.
//
// Throws std::bad_alloc when the buffer cannot grow; nothing else.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/opcodes.h"

namespace serialcheck::pickle {

// FRAME and its 8-byte length.
constexpr std::size_t kFrameHeaderSize = 9;

constexpr char op(Op o) {
  return static_cast<char>(o);
}

// The memory a PickleWriter grows into, owned by whoever keeps it between
// calls (the encoder's per-thread scratch, scratch_pool.h).
struct OutputBuffer {
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  std::size_t capacity = 0;
};

class PickleWriter {
 public:
  explicit PickleWriter(OutputBuffer& storage)
      : storage_(&storage), buf_(storage.data.get()), cur_(buf_), end_(buf_ + storage.capacity) {}

  typedef std::uint64_t UnalignedWord __attribute__((aligned(1)));
  static_assert(std::endian::native == std::endian::little,
                "store_word stores little-endian words");
  [[gnu::always_inline]] static void store_word(char* at, std::uint64_t word) {
    *reinterpret_cast<UnalignedWord*>(at) = word;
  }

  // Bytes in the buffer; offset(): bytes of the pickle so far, the payloads
  // write_payload() set aside included (where an error is reported).
  std::size_t len() const { return static_cast<std::size_t>(cur_ - buf_); }
  std::size_t offset() const { return len() + deferred_bytes_; }

  [[gnu::always_inline]] void reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) grow(n);
  }
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t used = len();
    const std::size_t capacity = std::max(2 * static_cast<std::size_t>(end_ - buf_), used + n);
    const std::size_t frame_at = frame_ == nullptr ? 0 : static_cast<std::size_t>(frame_ - buf_);
    void* p = std::realloc(buf_, capacity);
    if (p == nullptr) throw std::bad_alloc();
    storage_->data.release();
    storage_->data.reset(static_cast<char*>(p));
    storage_->capacity = capacity;
    buf_ = static_cast<char*>(p);
    cur_ = buf_ + used;
    end_ = buf_ + capacity;
    if (frame_ != nullptr) frame_ = buf_ + frame_at;
    update_frame_limit();
  }

  // Framing starts with protocol 4 (after PROTO) and stops before STOP is
  // committed; a frame is opened lazily by the first write after a commit.
  void set_framing(bool on) {
    framing_ = on;
    update_frame_limit();
  }
  [[gnu::always_inline]] void open_frame_if_needed() {
    if (framing_ && frame_ == nullptr) {
      reserve(kFrameHeaderSize);
      frame_ = cur_;
      cur_ += kFrameHeaderSize;
      frame_limit_ = commit_point(frame_);
    }
  }

  // Whether `n` bytes may be written at cur_ with no other check: boundary()
  // would not commit the frame, a frame is open when framing (so
  // open_frame_if_needed() would do nothing), and reserve(n) would not
  // grow. One comparison against frame_limit_ stands for the first two,
  // which the encoder's path for short strs would otherwise make for every
  // str and memo fetch.
  [[gnu::always_inline]] bool fast_room(std::size_t n) const {
    return reinterpret_cast<std::uintptr_t>(cur_) < frame_limit_ &&
           n <= static_cast<std::size_t>(end_ - cur_);
  }
  [[gnu::always_inline]] void put(char c) { put_word(static_cast<std::uint8_t>(c), 1); }
  // Writes the low `n` (at most 8) bytes of `word`, first byte lowest.
  [[gnu::always_inline]] void put_word(std::uint64_t word, std::size_t n) {
    open_frame_if_needed();
    reserve(8);
    store_word(cur_, word);
    cur_ += n;
  }
  [[gnu::always_inline]] void write(std::string_view s) {
    open_frame_if_needed();
    reserve(s.size());
    if (!s.empty()) std::memcpy(cur_, s.data(), s.size());
    cur_ += s.size();
  }
  void put_le(std::uint64_t v, int n) {
    open_frame_if_needed();
    reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) cur_[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    cur_ += n;
  }
  void put_decimal(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    write(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }

  // _Pickler_CommitFrame: FRAME and the length go in front of the frame's
  // bytes, or the room kept for them is closed up when the frame is shorter
  // than kFrameSizeMin.
  [[gnu::noinline]] void commit_frame() {
    if (!framing_ || frame_ == nullptr) return;
    const std::size_t len = static_cast<std::size_t>(cur_ - frame_) - kFrameHeaderSize;
    if (len >= kFrameSizeMin || tiny_frames_) {
      frame_[0] = op(Op::FRAME);
      store_word(frame_ + 1, len);  // 8 bytes, little-endian
    } else {
      std::memmove(frame_, frame_ + kFrameHeaderSize, len);
      cur_ -= kFrameHeaderSize;
    }
    frame_ = nullptr;
    frame_limit_ = 0;  // framing, with no frame open
  }

  // The framing of CPython 3.6 and before (PicklerRule): a FRAME even for
  // fewer than kFrameSizeMin bytes, and large payloads inside frames.
  void set_frame_rules(bool tiny_frames, bool large_payloads_in_frames) {
    tiny_frames_ = tiny_frames;
    large_payloads_in_frames_ = large_payloads_in_frames;
  }

  // _Pickler_OpcodeBoundary: CPython calls it only at the start of save().
  // A frame is open only while framing.
  [[gnu::always_inline]] void boundary() {
    if (frame_ != nullptr && reinterpret_cast<std::uintptr_t>(cur_) >= frame_limit_) {
      commit_frame();
    }
  }

  // _Pickler_write_bytes: a payload of 64 KiB or more goes outside any frame.
  // A `stable` payload (one that lives until finish() returns) is then not
  // copied into the buffer: finish() copies it once, straight into the
  // result. Others (text made on the fly) are copied now.
  void write_payload(std::string_view header, std::string_view data, bool stable) {
    if (data.size() >= kFrameSizeTarget && !large_payloads_in_frames_) {
      commit_frame();
      bool framing = framing_;
      set_framing(false);
      write(header);
      if (stable) {
        deferred_.push_back(Deferred{len(), data});
        deferred_bytes_ += data.size();
      } else {
        write(data);
      }
      set_framing(framing);
    } else {
      // One reservation for both.
      open_frame_if_needed();
      reserve(header.size() + data.size());
      std::memcpy(cur_, header.data(), header.size());
      if (!data.empty()) std::memcpy(cur_ + header.size(), data.data(), data.size());
      cur_ += header.size() + data.size();
    }
  }

  // The pickle: the buffer, with the payloads set aside by write_payload()
  // copied in at their places (their only copy). The open frame, if any,
  // must be committed first.
  void finish(std::string& out) const {
    if (deferred_.empty()) {  // the common case: one allocation and one copy
      out = std::string(buf_, len());
      return;
    }
    out.clear();
    out.reserve(len() + deferred_bytes_);
    std::size_t from = 0;
    for (const Deferred& d : deferred_) {
      out.append(buf_ + from, d.at - from);
      out.append(d.data);
      from = d.at;
    }
    out.append(buf_ + from, len() - from);
  }

 protected:
  // The encoder's runs of small atoms write at cur_ themselves, with the
  // checks of put() made once for the whole run (they read end_ and frame_).
  OutputBuffer* storage_;
  char* buf_;
  char* cur_;
  char* end_;
  bool framing_ = false;
  char* frame_ = nullptr;  // the open frame's header; nullptr when none
  // Where cur_ stands when the frame opened at `frame` is full: boundary()
  // commits it there (kFrameSizeTarget bytes after its header).
  static std::uintptr_t commit_point(const char* frame) {
    return reinterpret_cast<std::uintptr_t>(frame) + kFrameHeaderSize + kFrameSizeTarget;
  }
  // The open frame's commit point, which boundary() and fast_room() test;
  // 0 when framing with no frame open (open_frame_if_needed() has work to
  // do); no bound when not framing.
  std::uintptr_t frame_limit_ = UINTPTR_MAX;

  void update_frame_limit() {
    if (frame_ != nullptr) {
      frame_limit_ = commit_point(frame_);
    } else {
      frame_limit_ = framing_ ? 0 : UINTPTR_MAX;
    }
  }

 private:
  // Payloads written by reference: `data` belongs at buffer offset `at`.
  struct Deferred {
    std::size_t at;
    std::string_view data;
  };
  std::vector<Deferred> deferred_;
  std::size_t deferred_bytes_ = 0;
  bool tiny_frames_ = false;
  bool large_payloads_in_frames_ = false;
};

}  // namespace serialcheck::pickle
