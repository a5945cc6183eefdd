// The items of a container node: a run of node pointers in one of two
// kinds of memory. A list built by hand (push_back, assignment from a
// vector) owns a heap block and frees it. A list its Graph filled
// (Graph::append_items, Graph::list and the other builders) is a span of the
// graph's arena, freed with the graph's other memory all at once: a decoded
// value then frees nothing per container, and the graph's destruction does
// not visit its item arrays. Growing an arena span past its room moves it
// to the heap, so code that edits items keeps working unchanged.
//
// The interface is the part of std::vector the project uses, with the same
// meaning and the same invalidation (growing invalidates pointers into it).
// Sixteen bytes where a vector takes twenty-four.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace serialcheck {

struct Node;

// How many times, in this process, a node list took a heap block or a node
// took its extra parts: what a node may own that its graph must free. A
// graph notes the count when it starts; if the count has not moved when it
// is destroyed, none of its nodes owns anything, and it skips looking at
// each one (see Graph::destroy). Relaxed is enough: a graph is destroyed
// after whatever changed its nodes (anything else is a data race already),
// so it sees that change's count or a later one, and the count only grows.
namespace heap_parts {
inline std::atomic<std::uint64_t> made{0};
inline void note() noexcept { made.fetch_add(1, std::memory_order_relaxed); }
inline std::uint64_t count() noexcept { return made.load(std::memory_order_relaxed); }
}  // namespace heap_parts

class NodeList {
 public:
  using value_type = Node*;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = Node*&;
  using const_reference = Node* const&;
  using pointer = Node**;
  using const_pointer = Node* const*;
  using iterator = Node**;
  using const_iterator = Node* const*;

  // The most items one list holds (its count is 32 bits wide).
  static constexpr std::size_t kMaxSize = (std::size_t{1} << 31) - 1;

  NodeList() = default;
  NodeList(std::initializer_list<Node*> items) { assign(items.begin(), items.size()); }
  // NOLINTNEXTLINE(google-explicit-constructor): a vector of items is a list of them
  NodeList(const std::vector<Node*>& items) { assign(items.data(), items.size()); }
  template <class It>
  NodeList(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }
  NodeList(const NodeList& other) { assign(other.data_, other.size_); }
  NodeList(NodeList&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        cap_(std::exchange(other.cap_, 0)) {}
  NodeList& operator=(const NodeList& other) {
    if (this != &other) {
      clear();
      assign(other.data_, other.size_);
    }
    return *this;
  }
  NodeList& operator=(NodeList&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      cap_ = std::exchange(other.cap_, 0);
      if (owns_heap()) heap_parts::note();  // a heap block into a node, maybe
    }
    return *this;
  }
  NodeList& operator=(const std::vector<Node*>& items) {
    clear();
    assign(items.data(), items.size());
    return *this;
  }
  NodeList& operator=(std::initializer_list<Node*> items) {
    clear();
    assign(items.begin(), items.size());
    return *this;
  }
  ~NodeList() {
    if (owns_heap()) std::free(data_);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return cap_ & ~kHeap; }
  Node** data() { return data_; }
  Node* const* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  Node*& operator[](std::size_t i) { return data_[i]; }
  Node* operator[](std::size_t i) const { return data_[i]; }
  Node*& at(std::size_t i) {
    check_index(i);
    return data_[i];
  }
  Node* at(std::size_t i) const {
    check_index(i);
    return data_[i];
  }
  Node*& front() { return data_[0]; }
  Node* front() const { return data_[0]; }
  Node*& back() { return data_[size_ - 1]; }
  Node* back() const { return data_[size_ - 1]; }

  void reserve(std::size_t n) {
    if (n > capacity()) grow_to(n);
  }
  void resize(std::size_t n) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = nullptr;
    size_ = static_cast<std::uint32_t>(n);
  }
  // Keeps the memory, as vector's clear() does.
  void clear() { size_ = 0; }
  void push_back(Node* n) {
    if (size_ == capacity()) [[unlikely]] grow_to(std::size_t{size_} + 1);
    data_[size_++] = n;
  }
  Node*& emplace_back(Node* n) {
    push_back(n);
    return back();
  }
  void pop_back() { --size_; }
  iterator insert(const_iterator pos, Node* n) { return insert(pos, &n, &n + 1); }
  template <class It>
  iterator insert(const_iterator pos, It first, It last) {
    const std::size_t at = static_cast<std::size_t>(pos - data_);
    std::vector<Node*> add(first, last);  // may alias this list: copied first
    if (add.empty()) return data_ + at;
    reserve(std::size_t{size_} + add.size());
    if (at != size_) std::memmove(data_ + at + add.size(), data_ + at, (size_ - at) * sizeof(Node*));
    std::copy(add.begin(), add.end(), data_ + at);
    size_ += static_cast<std::uint32_t>(add.size());
    return data_ + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const std::size_t at = static_cast<std::size_t>(first - data_);
    const std::size_t gone = static_cast<std::size_t>(last - first);
    if (gone == 0) return data_ + at;
    if (at + gone != size_) {
      std::memmove(data_ + at, data_ + at + gone, (size_ - at - gone) * sizeof(Node*));
    }
    size_ -= static_cast<std::uint32_t>(gone);
    return data_ + at;
  }
  void swap(NodeList& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(cap_, other.cap_);
    if (owns_heap() || other.owns_heap()) heap_parts::note();
  }

  friend bool operator==(const NodeList& a, const NodeList& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

  // ---- for Graph ----
  // Whether the list owns a heap block (the graph must run its destructor).
  bool owns_heap() const { return (cap_ & kHeap) != 0; }
  // Takes `span`, memory the graph owns with room for `capacity` items, of
  // which the first size() already hold this list's items; frees the heap
  // block it had, if any.
  void adopt_span(Node** span, std::size_t capacity) {
    if (owns_heap()) std::free(data_);
    data_ = span;
    cap_ = static_cast<std::uint32_t>(capacity);
  }
  void set_size(std::size_t n) { size_ = static_cast<std::uint32_t>(n); }
  // Empties a list that owns no heap block, dropping its span (the graph
  // frees the span's memory).
  void forget_span() {
    data_ = nullptr;
    size_ = 0;
    cap_ = 0;
  }

 private:
  void check_index(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("NodeList::at: index out of range");
  }
  void assign(Node* const* items, std::size_t n) {
    reserve(n);
    if (n != 0) std::memcpy(data_, items, n * sizeof(Node*));
    size_ = static_cast<std::uint32_t>(n);
  }
  // Moves the items to a heap block with room for at least `n`.
  void grow_to(std::size_t n) {
    if (n > kMaxSize) throw std::length_error("NodeList: more than 2**31 - 1 items");
    std::size_t room = std::max<std::size_t>({n, capacity() * 2, 4});
    room = std::min(room, kMaxSize);
    auto* block = static_cast<Node**>(std::malloc(room * sizeof(Node*)));
    if (block == nullptr) throw std::bad_alloc();
    heap_parts::note();
    if (size_ != 0) std::memcpy(block, data_, size_ * sizeof(Node*));
    if (owns_heap()) std::free(data_);
    data_ = block;
    cap_ = static_cast<std::uint32_t>(room) | kHeap;
  }
  void release() {
    if (owns_heap()) std::free(data_);
    data_ = nullptr;
    size_ = 0;
    cap_ = 0;
  }

  // cap_'s top bit: the items are in a heap block this list frees.
  static constexpr std::uint32_t kHeap = std::uint32_t{1} << 31;
  Node** data_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = 0;
};

static_assert(sizeof(NodeList) == 16);

}  // namespace serialcheck
