// The encoder's memo (used by the encoder only): the table of nodes by
// identity, the memo by value of the str and bytes objects CPython keeps as
// singletons, and the opcodes that put and get memo entries
// (Modules/_pickle.c: memo_put, memo_get, PyMemoTable).
//
// Identity rules, as CPython's object identity plays out for the model:
//  - nodes are memoized by address; globals by (module, qualname)
//    (encoder_globals.cpp);
//  - '' and one-character latin-1 strs, b'' and one-byte bytes are
//    singletons in CPython, so those nodes are memoized by value;
//  - temporary objects (argument tuples of reduce, the list a set is reduced
//    to, the str inside codecs.encode(...)) take a memo slot but can never be
//    fetched again (memo_fresh).
//
// memo_put_op() throws PickleError (LimitExceeded) past 2**32 - 2 entries.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/errors.h"
#include "reference/pickle/internal/encoder_state.h"

namespace serialcheck::pickle::encoder_internal {

// The memo of nodes by identity, in two tables whose storage outlives one
// encode:
//  - direct: a node takes the slot its address picks, (address / 64) modulo
//    kDirect (a node is 64 bytes, and a graph makes them side by side in
//    chunks), when the slot is free. The slot keeps the address, so another
//    node whose address picks it (kDirect * 64 bytes away) finds it taken
//    and goes to
//  - the table by hash: open addressing over the addresses, with probing.
// Whichever table holds a node holds it for the whole encode (a direct slot,
// once taken, stays so). For a graph of up to kDirect nodes made side by
// side, each memo operation is then a shift and an index instead of a hash
// and a probe (pyperformance's DICT_GROUP makes 225 of them per dumps).
// Clearing the tables bumps a generation instead of touching the slots, so
// a dumps of a few dozen objects neither allocates nor rehashes from empty
// (growing from empty was a quarter of the time of pyperformance's
// DICT_GROUP dumps). Each thread keeps a small pool, and an encode inside an
// encode (a tensor's storage stream) takes its own tables.
class NodeMemo {
 public:
  // A table this large is not kept for the next call: probing it would touch
  // memory spread over more than the caches hold for a small pickle.
  static constexpr std::size_t kKeepSlots = std::size_t{1} << 14;
  // The direct table's slots: 256 KiB, made with the memo and kept, from
  // calloc: the pages a graph's addresses never pick are never touched.
  static constexpr std::size_t kDirect = std::size_t{1} << 14;

  NodeMemo() : direct_(static_cast<Slot*>(std::calloc(kDirect, sizeof(Slot)))) {
    if (direct_ == nullptr) throw std::bad_alloc();
  }
  ~NodeMemo() { std::free(direct_); }
  NodeMemo(const NodeMemo&) = delete;
  NodeMemo& operator=(const NodeMemo&) = delete;

  void clear() {
    if (slots_.size() > kKeepSlots) {
      std::vector<Slot>().swap(slots_);
      mask_ = 0;
      shift_ = 63;
      limit_ = 0;
    }
    if (++generation_ == 0) {  // wrapped: no stale slot may look current
      for (Slot& slot : slots_) slot.generation = 0;
      for (std::size_t i = 0; i < kDirect; ++i) direct_[i].generation = 0;
      generation_ = 1;
    }
    size_ = 0;
  }

  MemoId find(const Node* key) const {
    const Slot& direct = direct_slot(direct_, key);
    if (direct.generation != generation_) return kNoMemo;  // in neither table
    if (direct.key == key) return direct.value;
    if (slots_.empty()) return kNoMemo;
    for (std::size_t i = index(key);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.generation != generation_) return kNoMemo;
      if (slot.key == key) return slot.value;
    }
  }

  // The value slot of `key`, added (holding kNoMemo) when the key is new:
  // one look for a lookup followed by an insert. The slot stays valid
  // until the next insert.
  [[gnu::always_inline]] MemoId* find_or_add(const Node* key) {
    return open_run().find_or_add(key);
  }

  // Keeps the first value of a key put twice.
  void insert(const Node* key, MemoId value) {
    MemoId* slot = find_or_add(key);
    if (*slot == kNoMemo) *slot = value;
  }

 private:
  struct Slot {  // 16 bytes: four to a cache line
    const Node* key = nullptr;
    MemoId value = 0;
    std::uint32_t generation = 0;
  };

  // Fibonacci hashing: the product's top bits, as many as the table has
  // (64 - shift).
  static std::size_t hash_index(const Node* key, int shift) {
    const auto bits = reinterpret_cast<std::uintptr_t>(key);
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> shift);
  }
  // direct[(address / 64) % kDirect], its byte offset worked out as
  // (address / 4) masked, in two instructions.
  [[gnu::always_inline]] static Slot& direct_slot(Slot* direct, const Node* key) {
    static_assert(sizeof(Node) == 4 * sizeof(Slot));
    const std::uintptr_t at =
        (reinterpret_cast<std::uintptr_t>(key) / 4) & ((kDirect - 1) * sizeof(Slot));
    return *reinterpret_cast<Slot*>(reinterpret_cast<char*>(direct) + at);
  }

  // What find_or_add() does not do inline: the table by hash, for a key
  // whose direct slot another node holds.
  [[gnu::noinline]] MemoId* find_or_add_slow(const Node* key) {
    if (size_ >= limit_) grow();
    std::size_t i = index(key);
    while (slots_[i].generation == generation_) {
      if (slots_[i].key == key) return &slots_[i].value;
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{key, kNoMemo, generation_};
    ++size_;
    return &slots_[i].value;
  }

 public:
  // The table as a loop of many lookups sees it (the encoder's runs of
  // entries, encoder_tasks.h): the fields of the common case copied where
  // the compiler can keep them in registers across the loop's stores into
  // the output, and the rest left to find_or_add_slow().
  struct Run {
    NodeMemo* memo;
    Slot* direct;
    std::uint32_t generation;

    [[gnu::always_inline]] MemoId* find_or_add(const Node* key) {
      Slot& slot = direct_slot(direct, key);
      if (slot.generation != generation) [[likely]] {
        slot = Slot{key, kNoMemo, generation};
        return &slot.value;
      }
      if (slot.key == key) return &slot.value;
      return memo->find_or_add_slow(key);
    }
  };
  Run open_run() { return Run{this, direct_, generation_}; }

 private:
  std::size_t index(const Node* key) const { return hash_index(key, shift_); }

  // Keeps the table by address at most half full.
  [[gnu::noinline]] void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
    limit_ = slots_.size() / 2;
    for (const Slot& slot : old) {
      if (slot.generation != generation_) continue;
      std::size_t i = index(slot.key);
      while (slots_[i].generation == generation_) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  Slot* direct_;  // kDirect slots
  std::uint32_t generation_ = 1;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 63;  // 64 - log2(the slot count)
  std::size_t limit_ = 0;  // grow() before the size reaches it
  std::size_t size_ = 0;
};

// Index into a 257-slot singleton table: '' -> 256, one latin-1 character
// (given as UTF-8) -> its code point; -1 otherwise.
inline int latin1_singleton_slot(std::string_view utf8) {
  if (utf8.size() > 2) return -1;  // the common case, decided first
  if (utf8.empty()) return 256;
  auto b0 = static_cast<unsigned char>(utf8[0]);
  if (utf8.size() == 1 && b0 < 0x80) return b0;
  if (utf8.size() == 2 && (b0 == 0xc2 || b0 == 0xc3)) {
    auto b1 = static_cast<unsigned char>(utf8[1]);
    if ((b1 & 0xc0) == 0x80) return ((b0 & 0x1f) << 6) | (b1 & 0x3f);
  }
  return -1;
}

// The same for bytes: b'' -> 256, one byte -> its value; -1 otherwise.
inline int bytes_singleton_slot(std::string_view data) {
  if (data.empty()) return 256;
  if (data.size() == 1) return static_cast<unsigned char>(data[0]);
  return -1;
}

// The next memo id, taken.
[[gnu::always_inline]] inline MemoId Encoder::next_memo_id() {
  if (memo_size_ == kNoMemo - 1) [[unlikely]] memo_full();
  return memo_size_++;
}

// memo_put: MEMOIZE from protocol 4, else PUT, BINPUT or LONG_BINPUT with the
// new id. Returns the id.
[[gnu::always_inline]] inline MemoId Encoder::memo_put_op() {
  MemoId idx = next_memo_id();
  if (proto_ >= 4) {
    put(op(Op::MEMOIZE));
  } else {
    memo_op(idx, Op::PUT, Op::BINPUT, Op::LONG_BINPUT);
  }
  return idx;
}

void Encoder::memo_full() {
  throw PickleError(ErrorKind::LimitExceeded, offset(),
                    "more than 4294967294 memoized objects in one pickle");
}

// memo_get: BINGET for the first 256 ids, LONG_BINGET past them, GET at
// protocol 0.
[[gnu::always_inline]] inline void Encoder::memo_get(MemoId idx) {
  if (bin_ && idx < 256) {
    put_word(static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{idx} << 8, 2);
  } else {
    memo_get_long(idx);
  }
}
void Encoder::memo_get_long(MemoId idx) {
  memo_op(idx, Op::GET, Op::BINGET, Op::LONG_BINGET);
}

// PUT or GET below protocol 4: the text form (the id in decimal) at
// protocol 0, else the binary form with a 1-byte or a 4-byte id.
inline void Encoder::memo_op(MemoId idx, Op text, Op one_byte, Op four_bytes) {
  if (!bin_) {
    put(op(text));
    put_decimal(static_cast<std::int64_t>(idx));
    put('\n');
  } else if (idx < 256) {
    put_word(static_cast<std::uint8_t>(op(one_byte)) | std::uint64_t{idx} << 8, 2);
  } else {
    put_word(static_cast<std::uint8_t>(op(four_bytes)) | std::uint64_t{idx} << 8, 5);
  }
}

// The memo slot of a temporary object, which nothing fetches again.
inline void Encoder::memo_fresh() {
  memo_put_op();
}

// The memo keys of singletons: '' and one latin-1 character strs
// (kCharKeys, by code point, 256 for ''), b'' and one-byte bytes
// (kBytesKeys, by value, 256 for b''). Addresses in a static block, 64
// bytes apart (one direct slot each), which no node can have: the memo by
// value is the memo by identity with them, and clearing it costs nothing.
inline constexpr int kCharKeys = 0;
inline constexpr int kBytesKeys = 1;
alignas(64) inline unsigned char singleton_keys[2 * 257 * 64];  // never read or written
inline const Node* singleton_key(int table, int slot) {
  return reinterpret_cast<const Node*>(singleton_keys + (table * 257 + slot) * 64);
}

inline MemoId& Encoder::char_memo(int slot) {
  return *node_memo_->find_or_add(singleton_key(kCharKeys, slot));
}

// The memo key of `n`: its singleton's for a singleton str or bytes node,
// else itself.
inline const Node* Encoder::memo_key(const Node* n) {
  if (n->kind == Kind::Str) {
    int s = latin1_singleton_slot(n->payload());
    return s < 0 ? n : singleton_key(kCharKeys, s);
  }
  if (n->kind == Kind::Bytes) {
    int s = bytes_singleton_slot(n->payload());
    return s < 0 ? n : singleton_key(kBytesKeys, s);
  }
  return n;
}

inline MemoId Encoder::find_memo(const Node* n) {
  return node_memo_->find(memo_key(n));
}

inline void Encoder::memo_put_node(const Node* n) {
  node_memo_->insert(memo_key(n), memo_put_op());
}

}  // namespace serialcheck::pickle::encoder_internal
