// Working memory a codec keeps per thread between calls: a small dumps or
// loads would otherwise spend much of its time allocating its stacks, memo
// and buffers from empty. Each thread keeps up to kPoolSize sets, so an
// encode inside an encode (a tensor's storage stream) takes a set of its own.
//
// T provides `void reset()` (made empty for the next call, keeping what
// memory it should) and `bool worth_keeping() const` (false: the set is
// freed instead of kept, e.g. after a huge call).
#pragma once

#include <cstddef>
#include <memory>

namespace serialcheck::pickle {

template <class T>
class Pooled {
 public:
  static constexpr std::size_t kPoolSize = 4;

  Pooled() {
    FreeList& list = free_list();
    if (list.count == 0) {
      item_ = std::make_unique<T>();
    } else {
      item_.reset(list.items[--list.count]);
    }
  }
  ~Pooled() {
    item_->reset();
    FreeList& list = free_list();
    if (list.count < kPoolSize && item_->worth_keeping())
      list.items[list.count++] = item_.release();
  }
  Pooled(const Pooled&) = delete;
  Pooled& operator=(const Pooled&) = delete;

  T& operator*() { return *item_; }

 private:
  // A fixed array rather than a vector: taking and returning a set is a
  // load and a store.
  struct FreeList {
    T* items[kPoolSize] = {};
    std::size_t count = 0;
    FreeList() = default;
    FreeList(const FreeList&) = delete;
    FreeList& operator=(const FreeList&) = delete;
    ~FreeList() {
      for (std::size_t i = 0; i < count; ++i) delete items[i];
    }
  };
  static FreeList& free_list() {
    thread_local FreeList list;
    return list;
  }
  std::unique_ptr<T> item_;
};

}  // namespace serialcheck::pickle
