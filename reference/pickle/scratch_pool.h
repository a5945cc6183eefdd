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
#include <vector>

namespace serialcheck::pickle {

template <class T>
class Pooled {
 public:
  static constexpr std::size_t kPoolSize = 4;

  Pooled() {
    auto& pool = free_list();
    if (pool.empty()) {
      item_ = std::make_unique<T>();
    } else {
      item_ = std::move(pool.back());
      pool.pop_back();
    }
  }
  ~Pooled() {
    item_->reset();
    auto& pool = free_list();
    if (pool.size() < kPoolSize && item_->worth_keeping()) pool.push_back(std::move(item_));
  }
  Pooled(const Pooled&) = delete;
  Pooled& operator=(const Pooled&) = delete;

  T& operator*() { return *item_; }

 private:
  static std::vector<std::unique_ptr<T>>& free_list() {
    thread_local std::vector<std::unique_ptr<T>> pool;
    return pool;
  }
  std::unique_ptr<T> item_;
};

}  // namespace serialcheck::pickle
