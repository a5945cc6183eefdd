// A growable stack of trivially copyable items for the codec's hot loops:
// push is a store and an increment, with growth out of line (std::vector's
// push_back stayed an out-of-line call inside the large opcode switches).
// Shrinks only through pop_back(), resize() below its size and clear(); its
// memory is kept until it is destroyed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace serialcheck::pickle {

template <class T>
class PodStack {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }
  std::size_t capacity() const { return static_cast<std::size_t>(cap_ - begin_); }
  bool empty() const { return end_ == begin_; }
  T* begin() { return begin_; }
  T* end() { return end_; }
  T* data() { return begin_; }
  T& back() { return end_[-1]; }
  T& operator[](std::size_t i) { return begin_[i]; }
  void pop_back() { --end_; }
  void resize(std::size_t n) { end_ = begin_ + n; }  // n <= size()
  void clear() { end_ = begin_; }
  [[gnu::always_inline]] void push_back(const T& item) {
    if (end_ == cap_) [[unlikely]] {
      reserve(std::max<std::size_t>(64, 2 * capacity()));
    }
    *end_++ = item;
  }
  // Room for at least `n` more items, and the end to push them at; a caller
  // writing through that pointer gives the new end back with set_end().
  T* room_for(std::size_t n) {
    if (static_cast<std::size_t>(cap_ - end_) < n) reserve(std::max(size() + n, 2 * capacity()));
    return end_;
  }
  void set_end(T* end) { end_ = end; }  // within what room_for() made room for
  // Puts `a` (then `b`) at index i (<= size()), the items from there moving
  // up.
  void insert_at(std::size_t i, const T& a) {
    room_for(1);
    std::memmove(begin_ + i + 1, begin_ + i, (size() - i) * sizeof(T));
    begin_[i] = a;
    end_ += 1;
  }
  void insert_at(std::size_t i, const T& a, const T& b) {
    room_for(2);
    std::memmove(begin_ + i + 2, begin_ + i, (size() - i) * sizeof(T));
    begin_[i] = a;
    begin_[i + 1] = b;
    end_ += 2;
  }
  [[gnu::noinline]] void reserve(std::size_t n) {
    if (n <= capacity()) return;
    const std::size_t used = size();
    auto grown = std::make_unique_for_overwrite<T[]>(n);
    if (used != 0) std::memcpy(grown.get(), begin_, used * sizeof(T));
    storage_ = std::move(grown);
    begin_ = storage_.get();
    end_ = begin_ + used;
    cap_ = begin_ + n;
  }

 private:
  std::unique_ptr<T[]> storage_;
  T* begin_ = nullptr;
  T* end_ = nullptr;
  T* cap_ = nullptr;
};

}  // namespace serialcheck::pickle
