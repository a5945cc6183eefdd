// The encoder's atom fast path (used by the encoder only): the values a
// container's item loop writes in place, with no task (None, ints, strs,
// and the kinds save() writes without pushing anything), and the runs of
// small ints and Nones written with the writer's checks made once per run.
// CPython has no such path; what it writes is what save_long (BININT*),
// save_none and save_unicode (Modules/_pickle.c) write for each item, and
// the frame boundaries fall where _Pickler_OpcodeBoundary would put them.
//
// Nothing here throws but what save() throws (through dispatch()).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "reference/pickle/internal/encoder_memo.h"
#include "reference/pickle/internal/encoder_state.h"

namespace serialcheck::pickle::encoder_internal {

// An Int node written as BININT1/BININT2/BININT (binary protocols).
inline bool Encoder::fits_binint(const Node* n) const {
  return bin_ && !n->big && n->small >= INT32_MIN && n->small <= INT32_MAX;
}

// save_long's BININT1/BININT2/BININT choice, as one store.
[[gnu::always_inline]] inline void Encoder::put_binint(std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  if (u < 0x100) {
    put_word(static_cast<std::uint8_t>(op(Op::BININT1)) | std::uint64_t{u} << 8, 2);
  } else if (u < 0x10000) {
    put_word(static_cast<std::uint8_t>(op(Op::BININT2)) | std::uint64_t{u} << 8, 3);
  } else {
    put_word(static_cast<std::uint8_t>(op(Op::BININT)) | std::uint64_t{u} << 8, 5);
  }
}

// SHORT_BINUNICODE, the length, the text (at most 255 bytes) and MEMOIZE,
// written at cur_ with no check: the caller has made room for the text and
// 8 bytes more in the open frame. The new memo id goes into `slot`.
[[gnu::always_inline]] inline void Encoder::put_short_str_memoized(std::string_view utf8,
                                                                   MemoId* slot) {
  const MemoId id = next_memo_id();
  char* dst = cur_;
  store_word(dst, static_cast<std::uint8_t>(op(Op::SHORT_BINUNICODE)) |
                      std::uint64_t{utf8.size()} << 8);
  copy_bytes(dst + 2, utf8.data(), utf8.size());
  dst[2 + utf8.size()] = op(Op::MEMOIZE);
  cur_ += utf8.size() + 3;
  *slot = id;
}

// save_unicode: one str node, memoized. A one-character latin-1 str is
// memoized by value (see singleton_slot), any other by identity.
[[gnu::always_inline]] inline void Encoder::save_str(const Node* n) {
  const std::string_view utf8 = n->payload();
  MemoId* slot;
  if (int s = latin1_singleton_slot(utf8); s >= 0) {
    slot = &char_memo(s);
  } else {
    slot = node_memo_->find_or_add(n);
  }
  if (*slot != kNoMemo) {
    memo_get(*slot);
    return;
  }
  if (n->flag) [[unlikely]] {
    save_interned_value(utf8, slot);
    return;
  }
  if (proto_ >= 4 && utf8.size() <= 0xff) {
    // The common case in one reservation.
    open_frame_if_needed();
    reserve(utf8.size() + 8);
    put_short_str_memoized(utf8, slot);
    return;
  }
  save_str_data(utf8, true);
  *slot = memo_put_op();
}

// boundary() then save_str() for the commonest str, with the writer's
// checks made in one (fast_room): protocol 4 or more, 3 to 255 bytes (no
// singleton), not interned, and room for all of it in the open frame.
// Returns false, having written nothing, for any other; save_str() then
// writes it as before.
[[gnu::always_inline]] inline bool Encoder::save_short_str(const Node* n) {
  const std::string_view utf8 = n->payload();
  const std::size_t size = utf8.size();
  if (proto_ < 4 || size <= 2 || size > 0xff || n->flag || !fast_room(size + 8)) return false;
  MemoId* slot = node_memo_->find_or_add(n);
  if (const MemoId id = *slot; id != kNoMemo) {
    if (id < 256) {
      store_word(cur_, static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{id} << 8);
      cur_ += 2;
    } else {
      memo_get_long(id);
    }
    return true;
  }
  put_short_str_memoized(utf8, slot);
  return true;
}

// Writes `n` now and returns true when its save pushes no tasks (atoms,
// str, bytes, globals); returns false, having written nothing, for the
// others. One switch on the kind, with the commonest cases written here.
[[gnu::always_inline]] inline bool Encoder::save_if_inline(const Node* n) {
  if (n == nullptr) dispatch(n);  // fails
  if (n->kind == Kind::Str) {  // the commonest item of all, before the switch's jump
    if (!save_short_str(n)) {
      boundary();
      save_str(n);
    }
    return true;
  }
  switch (n->kind) {
    case Kind::None:
      boundary();
      put(op(Op::NONE));
      return true;
    case Kind::Int:
      if (fits_binint(n)) {
        boundary();
        put_binint(static_cast<std::int32_t>(n->small));
      } else {
        dispatch(n);
      }
      return true;
    case Kind::Str:
      boundary();
      save_str(n);
      return true;
    case Kind::Bool:
    case Kind::Float:
    case Kind::Bytes:
    case Kind::ByteArray:
    case Kind::PickleBuffer:
    case Kind::Global: dispatch(n); return true;
    default: return false;
  }
}

// ---- runs of small atoms ----------------------------------------------------
// Containers of ints and Nones are common (pyperformance's LIST, TUPLE and
// MICRO_DICT are mostly that), and for them the per-item checks of put()
// (frame open? room left?) and boundary() (frame full?) cost more than the
// writing. A run writes such items with those checks made once for the
// whole run: it takes only as many items as certainly fit in the buffer
// and in the open frame, writing at most kAtomBytes each, so the checks it
// skips could not have fired. It stops at the first other item and leaves
// it, and anything past its room, to the general path.

// How many atoms may be written from here with no check (see above).
[[gnu::always_inline]] inline std::size_t Encoder::atom_room() const {
  // At or past frame_limit_, boundary() would commit the frame, or (framing
  // with none open) the general path opens one.
  const auto at = reinterpret_cast<std::uintptr_t>(cur_);
  if (!bin_ || at >= frame_limit_) return 0;
  std::size_t room = static_cast<std::size_t>(end_ - cur_);
  room = room > 8 ? room - 8 : 0;  // store_word's slack
  room = std::min(room, static_cast<std::size_t>(frame_limit_ - 1 - at));
  return room / kAtomBytes;
}

[[gnu::always_inline]] inline bool Encoder::maybe_atom(const Node* n) {
  return n != nullptr && (n->kind == Kind::Int || n->kind == Kind::None);
}

// Writes `n` at `c` when it is None or an int BININT* holds; returns the
// new end, or nullptr having written nothing.
[[gnu::always_inline]] inline char* Encoder::put_atom(char* c, const Node* n) {
  if (n->kind == Kind::Int && !n->big) {
    // A branch per form: in a run the form repeats, so they predict well
    // and cost less than selecting size and opcode without branches. The
    // small forms are tested on the int64 itself (a negative one is a
    // huge unsigned value), the int32 range only for BININT.
    const auto v = static_cast<std::uint64_t>(n->small);
    if (v < 0x100) {
      store_word(c, static_cast<std::uint8_t>(op(Op::BININT1)) | v << 8);
      return c + 2;
    }
    if (v < 0x10000) {
      store_word(c, static_cast<std::uint8_t>(op(Op::BININT2)) | v << 8);
      return c + 3;
    }
    if (n->small >= INT32_MIN && n->small <= INT32_MAX) {
      // The opcode and the four bytes as two stores: shifting and masking
      // them into one word costs more.
      const auto u = static_cast<std::uint32_t>(n->small);
      *c = op(Op::BININT);
      std::memcpy(c + 1, &u, 4);
      return c + 5;
    }
    return nullptr;
  }
  if (n->kind == Kind::None) {
    *c = op(Op::NONE);
    return c + 1;
  }
  return nullptr;
}

// The loops of a run, apart from the encoder (a function of their own, so
// that what the item loops around them keep in registers does not crowd
// them): write atoms at `c` from `p` up to `last` or the first non-atom.
Encoder::RunEnd Encoder::write_atoms(char* c, Node* const* p, Node* const* last) {
  for (; p != last; ++p) {
    const Node* n = *p;
    if (n == nullptr) break;
    char* next = put_atom(c, n);
    if (next == nullptr) break;
    c = next;
  }
  return {p, c};
}
Encoder::RunEnd Encoder::write_atom_pairs(char* c, Node* const* p, Node* const* last) {
  for (; p != last; p += 2) {
    const Node* key = p[0];
    const Node* value = p[1];
    if (key == nullptr || value == nullptr) break;
    // The commonest pair (dict.fromkeys(range(n)), pyperformance's
    // MICRO_DICT): a one-byte int and None, BININT1 and NONE in one store.
    if (key->kind == Kind::Int && value->kind == Kind::None && !key->big &&
        static_cast<std::uint64_t>(key->small) < 0x100) {
      store_word(c, static_cast<std::uint8_t>(op(Op::BININT1)) |
                        static_cast<std::uint64_t>(key->small) << 8 |
                        std::uint64_t{static_cast<std::uint8_t>(op(Op::NONE))} << 16);
      c += 3;
      continue;
    }
    char* next = put_atom(c, key);
    if (next == nullptr) break;
    next = put_atom(next, value);
    if (next == nullptr) break;  // the key's bytes are past cur_: not written
    c = next;
  }
  return {p, c};
}

// A list or dict of fewer than kBatchSize entries whose first is an atom
// (LIST's inner lists, MICRO_DICT's inner dicts) starts here, with no task
// pushed: the empty container, its memo, MARK, then a run of atoms. When
// the run covers every entry the closing opcode ends it, with no task at
// all; otherwise the batch loop carries on from the entry where the run
// stopped, as a container does. Not at the depth limit, where the general
// path fails.
inline bool Encoder::flat_candidate(const Node* n, std::size_t entries) const {
  return bin_ && entries >= 2 && entries < kBatchSize && depth_ < options_.max_depth &&
         maybe_atom(n->items[0]);
}

// Protocol 4 and up, with the frame open (atom_room): whether the whole
// container, `atoms` items of at most kAtomBytes, its three opening
// opcodes and its closing one, fits the room no check would have found
// short. Then they are written with no check between them.
[[gnu::always_inline]] inline bool Encoder::whole_fits(std::size_t atoms) const {
  return proto_ >= 4 && atoms + 2 <= atom_room();  // 3 + 1 opcode bytes < 2 * kAtomBytes
}

// Items [i, stop) of a sequence: writes the leading run of atoms, as far
// as the room allows, and returns the index of the first item not written.
[[gnu::always_inline]] inline std::size_t Encoder::atom_run(const NodeList& v,
                                                            std::size_t i, std::size_t stop) {
  if (!maybe_atom(v[i])) return i;  // decided before the room is worked out
  const std::size_t k = std::min(stop - i, atom_room());
  if (k == 0) return i;
  const RunEnd end = write_atoms(cur_, v.data() + i, v.data() + i + k);
  cur_ = end.c;
  return static_cast<std::size_t>(end.p - v.data());
}

// The same over dict entries [i, stop): key0, value0, key1... A run stops
// before an entry whose key or value is not an atom, having written
// neither.
[[gnu::always_inline]] inline std::size_t Encoder::atom_pair_run(const NodeList& v,
                                                                 std::size_t i, std::size_t stop) {
  if (!maybe_atom(v[2 * i]) || !maybe_atom(v[2 * i + 1])) return i;
  const std::size_t k = std::min(stop - i, atom_room() / 2);
  if (k == 0) return i;
  const RunEnd end = write_atom_pairs(cur_, v.data() + 2 * i, v.data() + 2 * (i + k));
  cur_ = end.c;
  return static_cast<std::size_t>(end.p - v.data()) / 2;
}

inline std::size_t Encoder::run_of_atoms(SeqView view, std::size_t i, std::size_t stop) {
  return atom_run(view.v, i, stop);
}
inline std::size_t Encoder::run_of_atoms(InterleavedView view, std::size_t i, std::size_t stop) {
  return atom_pair_run(view.v, i, stop);
}
inline std::size_t Encoder::run_of_atoms(PairView, std::size_t i, std::size_t) {
  return i;
}

// ---- runs of short strs ------------------------------------------------------
// Dicts keyed by strs, with strs and small ints for values (pyperformance's
// DICT and DICT_GROUP), spend most of their time in each str's save: the
// writer's checks, the memo probe and the loop around them, each reading
// the encoder's fields again after the text's copy. A run takes the
// entries that are such strs (at most 255 bytes, not interned: a
// SHORT_BINUNICODE and its MEMOIZE, or a memo get), ints BININT* holds and
// Nones, and writes them with the writer's state, the memo table's fields
// and the next memo id held in locals. What it writes is what save() would
// write item by item; it makes the checks save() makes before every item
// once per entry, on the entry's largest size, and stops before any entry
// for which one could fire (frame full, buffer short, memo table to grow,
// memo ids used up): the general path then writes that entry.

// The most the run may write for `n` (opcode, size, text and MEMOIZE, with
// store_word's 8 bytes of slack), or 0 when the run does not take it: a
// long or interned str, an int past BININT, another kind. `singletons`:
// whether the table of one-character strs is ready (char_memo); until the
// general path has made it so, a run does not take such strs.
inline std::size_t Encoder::short_need(const Node* n, bool singletons) {
  if (n == nullptr) return 0;
  switch (n->kind) {
    case Kind::Str: {
      const std::string_view utf8 = n->payload();
      if (utf8.size() > 0xff || n->flag) return 0;
      if (utf8.size() <= 2 && !singletons && latin1_singleton_slot(utf8) >= 0) return 0;
      return utf8.size() + 8;
    }
    case Kind::Int: return !n->big && n->small >= INT32_MIN && n->small <= INT32_MAX ? 8 : 0;
    case Kind::None: return 8;
    default: return 0;
  }
}

// Writes `n`, which short_need() took, at `c` and returns the new end: a
// str as save_str() writes it, through the run's view of the memo, taking
// ids from `next_id`; an atom as put_atom() does.
template <class MemoRun>
inline char* Encoder::put_short(char* c, const Node* n, MemoRun& memo, MemoId& next_id) {
  if (n->kind != Kind::Str) return put_atom(c, n);
  const std::string_view utf8 = n->payload();
  const std::size_t size = utf8.size();
  MemoId* slot;
  if (size <= 2) [[unlikely]] {
    const int s = latin1_singleton_slot(utf8);
    slot = s >= 0 ? &char_memo_[static_cast<std::size_t>(s)] : memo.find_or_add(n);
  } else {
    slot = memo.find_or_add(n);
  }
  if (const MemoId id = *slot; id != kNoMemo) {
    if (id < 256) {
      store_word(c, static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{id} << 8);
      return c + 2;
    }
    store_word(c, static_cast<std::uint8_t>(op(Op::LONG_BINGET)) | std::uint64_t{id} << 8);
    return c + 5;
  }
  *slot = next_id++;
  store_word(c, static_cast<std::uint8_t>(op(Op::SHORT_BINUNICODE)) | std::uint64_t{size} << 8);
  copy_bytes(c + 2, utf8.data(), size);
  c[2 + size] = op(Op::MEMOIZE);
  return c + size + 3;
}

// The run over entries of kWidth nodes (1: items, 2: a dict's key and
// value) from `p` up to `last`; returns the first entry not written.
// Protocol 4 and up only.
template <std::size_t kWidth>
Node* const* Encoder::write_short_run(Node* const* p, Node* const* last) {
  char* c = cur_;
  // Below it, save()'s boundary() would not commit the frame (a frame is
  // open: frame_limit_ is 0 when none is) and put() would not grow the
  // buffer. An entry whose largest size reaches past it stops the run.
  const std::uintptr_t bound = std::min(reinterpret_cast<std::uintptr_t>(end_), frame_limit_);
  const bool singletons = singletons_ready_;
  auto memo = node_memo_->open_run();
  MemoId next_id = memo_size_;
  // An entry takes at most kWidth memo ids and table slots: the run stops
  // where the table would grow (at room 0) or next_memo_id() fail (past
  // kNoMemo - 2), and leaves the rest to the general path.
  const std::size_t allowed = std::min<std::size_t>(memo.room, kNoMemo - 1 - next_id) / kWidth;
  if (static_cast<std::size_t>(last - p) / kWidth > allowed) last = p + allowed * kWidth;
  for (; p != last; p += kWidth) {
    std::size_t need = short_need(p[0], singletons);
    if (need == 0) break;
    if constexpr (kWidth == 2) {
      const std::size_t value_need = short_need(p[1], singletons);
      if (value_need == 0) break;
      need += value_need;
    }
    if (reinterpret_cast<std::uintptr_t>(c) + need > bound) break;
    c = put_short(c, p[0], memo, next_id);
    if constexpr (kWidth == 2) c = put_short(c, p[1], memo, next_id);
  }
  cur_ = c;
  memo_size_ = next_id;
  node_memo_->close_run(memo);
  return p;
}

// Items [i, stop) of a list, or entries of a dict, where the atom run
// stopped: the run of short strs (with the atoms among them) that starts
// at a str, if any; returns the index of the first item or entry not
// written.
inline std::size_t Encoder::run_of_short(SeqView view, std::size_t i, std::size_t stop) {
  const Node* n = view.v[i];
  if (proto_ < 4 || n == nullptr || n->kind != Kind::Str) return i;
  Node* const* first = view.v.data();
  return static_cast<std::size_t>(write_short_run<1>(first + i, first + stop) - first);
}
inline std::size_t Encoder::run_of_short(InterleavedView view, std::size_t i, std::size_t stop) {
  const Node* key = view.v[2 * i];
  if (proto_ < 4 || key == nullptr || key->kind != Kind::Str) return i;
  Node* const* first = view.v.data();
  return static_cast<std::size_t>(write_short_run<2>(first + 2 * i, first + 2 * stop) - first) /
         2;
}
inline std::size_t Encoder::run_of_short(PairView, std::size_t i, std::size_t) {
  return i;
}

}  // namespace serialcheck::pickle::encoder_internal
