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
  return bin_ && n->binint_value();
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
// memoized by value (see singleton_key), any other by identity.
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
        put_binint(static_cast<std::int32_t>(n->small()));
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
  // A branch per form: in a run the form repeats, so they predict well and
  // cost less than selecting size and opcode without branches. The forms
  // are tested on small() alone, with no test of the kind: it is kNoSmall,
  // a huge unsigned value outside int32, for every node but a small int
  // (and so is a negative int).
  const auto v = static_cast<std::uint64_t>(n->small());
  if (v < 0x100) {
    store_word(c, static_cast<std::uint8_t>(op(Op::BININT1)) | v << 8);
    return c + 2;
  }
  if (v < 0x10000) {
    store_word(c, static_cast<std::uint8_t>(op(Op::BININT2)) | v << 8);
    return c + 3;
  }
  if (n->binint_value()) {
    // The opcode and the four bytes as two stores: shifting and masking
    // them into one word costs more.
    const auto u = static_cast<std::uint32_t>(v);
    *c = op(Op::BININT);
    std::memcpy(c + 1, &u, 4);
    return c + 5;
  }
  if (n->kind == Kind::None) {
    *c = op(Op::NONE);
    return c + 1;
  }
  return nullptr;
}

// The two int forms write_atoms() runs over in loops of their own: which
// items each takes, one at a time (one test of small(), see put_atom) and
// two at a time (both values in one OR, which may turn away two it takes
// one at a time: BININT's OR of two differences from 0x10000 may reach
// 2**31 - 0x10000 where neither does), and how each writes them.
namespace int_forms {
struct OneByte {  // BININT1: [0, 0x100)
  static bool one(const Node* n) { return static_cast<std::uint64_t>(n->small()) < 0x100; }
  static bool two(std::uint64_t a, std::uint64_t b) { return (a | b) < 0x100; }
  static char* put_one(char* c, std::uint64_t v) {
    PickleWriter::store_word(c, static_cast<std::uint8_t>(op(Op::BININT1)) | v << 8);
    return c + 2;
  }
  static char* put_two(char* c, std::uint64_t a, std::uint64_t b) {
    constexpr std::uint64_t kOp = static_cast<std::uint8_t>(op(Op::BININT1));
    PickleWriter::store_word(c, kOp | a << 8 | kOp << 16 | b << 24);
    return c + 4;
  }
};
struct FourByte {  // BININT: [0x10000, 2**31) two at a time, also negative ones alone
  static bool one(const Node* n) {
    return n->binint_value() && static_cast<std::uint64_t>(n->small()) >= 0x10000;
  }
  static bool two(std::uint64_t a, std::uint64_t b) {
    return ((a - 0x10000) | (b - 0x10000)) < 0x80000000u - 0x10000;
  }
  static char* put_one(char* c, std::uint64_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    *c = op(Op::BININT);
    std::memcpy(c + 1, &u, 4);
    return c + 5;
  }
  static char* put_two(char* c, std::uint64_t a, std::uint64_t b) {
    return put_one(put_one(c, a), b);
  }
};
}  // namespace int_forms

// A run of `Form` ints from `p`, whose item `n` is one: two at a time while
// both are of the form (two pointers are both non-null when their AND is
// not 0; the AND of two others may be 0 too, and those go one at a time),
// then one at a time. Leaves `p` and `n` at the first item not of the form
// and returns true, or returns false at `last` or a null item.
template <class Form>
[[gnu::always_inline]] inline bool write_int_run(char*& c, Node* const*& p, const Node*& n,
                                                 Node* const* last, Node* const* pair_end) {
  while (p < pair_end) {
    const Node* a = p[0];
    const Node* b = p[1];
    if ((reinterpret_cast<std::uintptr_t>(a) & reinterpret_cast<std::uintptr_t>(b)) == 0) break;
    const auto va = static_cast<std::uint64_t>(a->small());
    const auto vb = static_cast<std::uint64_t>(b->small());
    if (!Form::two(va, vb)) break;
    c = Form::put_two(c, va, vb);
    p += 2;
  }
  if (p == last) return false;
  n = *p;
  if (n == nullptr) return false;
  while (Form::one(n)) {
    c = Form::put_one(c, static_cast<std::uint64_t>(n->small()));
    if (++p == last) return false;
    n = *p;
    if (n == nullptr) return false;
  }
  return true;
}

// The loops of a run, apart from the encoder (a function of their own, so
// that what the item loops around them keep in registers does not crowd
// them): write atoms at `c` from `p` up to `last` or the first non-atom.
Encoder::RunEnd Encoder::write_atoms(char* c, Node* const* p, Node* const* last) {
  // Runs of one-byte ints (list(range(n)), pyperformance's LIST) and of
  // four-byte ones (TUPLE) in loops of their own while they last; the
  // other atoms one at a time.
  if (p == last) return {p, c};
  Node* const* const pair_end = last - 1;  // p < pair_end: p[0] and p[1] are there
  for (; p != last; ++p) {
    const Node* n = *p;
    if (n == nullptr) break;
    if (int_forms::OneByte::one(n) && !write_int_run<int_forms::OneByte>(c, p, n, last, pair_end)) {
      return {p, c};
    }
    if (int_forms::FourByte::one(n) &&
        !write_int_run<int_forms::FourByte>(c, p, n, last, pair_end)) {
      return {p, c};
    }
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
    // MICRO_DICT): a one-byte int and None, BININT1 and NONE in one store,
    // in a loop of its own while they last.
    if (static_cast<std::uint64_t>(key->small()) < 0x100 && value->kind == Kind::None) {
      for (;;) {
        store_word(c, static_cast<std::uint8_t>(op(Op::BININT1)) |
                          static_cast<std::uint64_t>(key->small()) << 8 |
                          std::uint64_t{static_cast<std::uint8_t>(op(Op::NONE))} << 16);
        c += 3;
        p += 2;
        if (p == last) return {p, c};
        key = p[0];
        value = p[1];
        if (key == nullptr || value == nullptr) return {p, c};
        if (static_cast<std::uint64_t>(key->small()) >= 0x100 || value->kind != Kind::None) {
          break;
        }
      }
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

}  // namespace serialcheck::pickle::encoder_internal
