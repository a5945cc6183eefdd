// The encoder's task machine (used by the encoder only): the explicit stack
// that replaces save()'s recursion, and the item loops of containers
// (Modules/_pickle.c: store_tuple_elements, batch_list, batch_list_exact,
// batch_dict, batch_dict_exact, save_set's batches). A container pushes the
// continuation of its loop and the save of the item that needs one, so
// nesting depth costs heap, not C++ stack; the main loop pops tasks in the
// order CPython's recursion would run them.
//
// enter() throws PickleError (LimitExceeded) past EncodeOptions::max_depth;
// the rest throws what save() throws.
#pragma once

#include <algorithm>
#include <cstddef>

#include "reference/pickle/internal/encoder_atoms.h"
#include "reference/pickle/internal/encoder_memo.h"
#include "reference/pickle/internal/encoder_state.h"

namespace serialcheck::pickle::encoder_internal {

// Kinds whose save never pushes tasks: they can be written in place.
inline bool is_inline(const Node* n) {
  if (n == nullptr) return true;  // dispatch() reports it
  switch (n->kind) {
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
    case Kind::Str:
    case Kind::Bytes:
    case Kind::ByteArray:
    case Kind::PickleBuffer:
    case Kind::Global: return true;
    default: return false;
  }
}
inline bool is_inline(Entry e) {
  return is_inline(e.first) && is_inline(e.second);
}

// What save_list and save_dict differ in.
template <Kind K>
struct ListOrDict;
template <>
struct ListOrDict<Kind::List> {
  using View = SeqView;
  static constexpr std::size_t kWidth = 1;  // nodes per entry
  static constexpr Op kEmpty = Op::EMPTY_LIST, kText = Op::LIST;
  static constexpr Op kSingle = Op::APPEND, kBatch = Op::APPENDS;
  static constexpr Step kStep = Step::kListEntries;
  static constexpr bool kTrailing = false;  // batch_list_exact: no empty batch after a full one
};
template <>
struct ListOrDict<Kind::Dict> {
  using View = InterleavedView;
  static constexpr std::size_t kWidth = 2;  // key, value
  static constexpr Op kEmpty = Op::EMPTY_DICT, kText = Op::DICT;
  static constexpr Op kSingle = Op::SETITEM, kBatch = Op::SETITEMS;
  static constexpr Step kStep = Step::kDictEntries;
  static constexpr bool kTrailing = true;  // batch_dict_exact: MARK SETITEMS after a full batch
};

// The opening of an empty list or dict: EMPTY_LIST, or MARK LIST at
// protocol 0 (and the same for a dict).
template <Kind K>
void Encoder::open_empty() {
  if (bin_) {
    put(op(ListOrDict<K>::kEmpty));
  } else {
    put(op(Op::MARK));
    put(op(ListOrDict<K>::kText));
  }
}

// `empty` (EMPTY_LIST or EMPTY_DICT), MEMOIZE and MARK as one word for
// store_word: protocol 4's opening of a container written in batches.
inline constexpr std::uint64_t opened_marked(Op empty) {
  return static_cast<std::uint8_t>(op(empty)) |
         std::uint64_t{static_cast<std::uint8_t>(op(Op::MEMOIZE))} << 8 |
         std::uint64_t{static_cast<std::uint8_t>(op(Op::MARK))} << 16;
}

// Protocol 4 and up, with room for all of it (whole_fits): list or dict
// `n`'s opening with its memo id (set in `memo`), then its entries while
// they are atoms. Returns true when the run took every entry, and then the
// closing opcode is written too; false, with the entry it stopped at in
// `stopped_at`, otherwise.
template <Kind K>
[[gnu::always_inline]] inline bool Encoder::write_flat_whole(const Node* n, MemoId* memo,
                                                            std::size_t& stopped_at) {
  using Shape = ListOrDict<K>;
  *memo = next_memo_id();
  store_word(cur_, opened_marked(Shape::kEmpty));
  Node* const* const first = n->items.data();
  Node* const* const last = first + n->items.size();
  RunEnd run;
  if constexpr (K == Kind::List) {
    run = write_atoms(cur_ + 3, first, last);
  } else {
    run = write_atom_pairs(cur_ + 3, first, last);
  }
  cur_ = run.c;
  if (run.p == last) {
    *cur_++ = op(Shape::kBatch);
    return true;
  }
  stopped_at = static_cast<std::size_t>(run.p - first) / Shape::kWidth;
  return false;
}

// save_now() for a list or dict that the atom fast path writes whole (see
// save_list_or_dict_as: LIST's inner lists, MICRO_DICT's inner dicts),
// done here, in the item loop of the container that holds it: the frame's
// boundary, the memo probe, the opening, the run of atoms and the closing
// opcode, with no call. Returns false for any other node, having written
// nothing but what boundary() commits and the frame's opening (which
// save_now() would do first); save_now() then writes it as before. A run
// that stops before the end (an entry that is not an atom) leaves the rest
// to save_flat_rest().
[[gnu::always_inline]] inline bool Encoder::save_flat_here(const Node* n) {
  if (n->kind == Kind::List) return save_flat_here_as<Kind::List>(n);
  if (n->kind == Kind::Dict) return save_flat_here_as<Kind::Dict>(n);
  return false;
}
template <Kind K>
[[gnu::always_inline]] inline bool Encoder::save_flat_here_as(const Node* n) {
  using Shape = ListOrDict<K>;
  const std::size_t count = n->items.size();
  if (K == Kind::Dict && count % 2 != 0) return false;  // save_list_or_dict_as() fails it
  if (!flat_candidate(n, count / Shape::kWidth)) return false;
  boundary();
  // Whatever the general path writes next (an opening, or a memo get)
  // opens the frame here first if none is open: the first container of a
  // pickle whose root writes nothing before it (a tuple) starts so.
  open_frame_if_needed();
  if (!whole_fits(count)) return false;
  MemoId* slot = node_memo_->find_or_add(n);
  if (*slot != kNoMemo) {
    memo_get(*slot);
    return true;
  }
  if (std::size_t i; !write_flat_whole<K>(n, slot, i)) save_flat_rest(n, i);
  return true;
}

// ---- runs of entries -----------------------------------------------------------
// Dicts keyed by strs (pyperformance's DICT and DICT_GROUP) spend most of
// their time in each str's save, and containers of short lists or dicts
// of atoms (LIST, MICRO_DICT) in each inner container's: the writer's
// checks, the memo probe and the loop around them, each reading the
// encoder's fields again after every store. A run takes the entries of a
// list or dict (or the items of a tuple) that are
//  - strs of at most 255 bytes, not interned: SHORT_BINUNICODE and its
//    MEMOIZE, or a memo get;
//  - ints BININT* holds, and Nones;
//  - lists and dicts save_flat_here() writes whole (2 to 999 entries, the
//    first an atom), as items and as a dict's values: their opening, memo
//    and run of atoms, or a memo get;
//  - as a sequence's items, lists of 2 to 999 of all these (LIST's pairs
//    of lists), written as save_list_or_dict_as() writes them, each item
//    sized and checked as it comes (put_nested);
// and writes them with the writer's state, the memo table's fields and the
// next memo id held in locals. What it writes is what save() would write
// entry by entry: it makes the checks save() makes before each entry once
// per entry, on the entry's largest size, and stops before any entry for
// which one could fire (frame full, buffer short, memo table to grow, memo
// ids used up); the general path then writes that entry. A container whose
// atoms stop early (an entry that is not an atom) is finished by the
// general path, save_flat_rest(), as save_flat_here() does (and then the
// rest of the list holding it, if any), and the run goes on after it; so
// is a list of such whose next item the run does not take or has no room
// for.

// The most the run may write for `n` (opcodes, sizes, text, MEMOIZE and
// store_word's 8 bytes of slack), or 0 when the run does not take it.
// `containers`: whether it takes flat lists and dicts here;
// `nested`: also a list of 2 to 999 items, for which only its own opening
// and closing are counted here: put_nested() sizes each item, and stops
// before one it does not take or has no room for.
inline std::size_t Encoder::entry_need(const Node* n, bool containers, bool nested) {
  if (n == nullptr) return 0;
  if (n->kind == Kind::Str) {  // the commonest, before the switch's jump
    const std::string_view utf8 = n->payload();
    if (utf8.size() > 0xff || n->flag) return 0;
    return utf8.size() + 8;
  }
  switch (n->kind) {
    case Kind::Int: return n->binint_value() ? 8 : 0;
    case Kind::None: return 8;
    case Kind::List:
    case Kind::Dict: {
      // flat_candidate() and save_list_or_dict_as()'s odd-dict test.
      const std::size_t count = n->items.size();
      const std::size_t entries = n->kind == Kind::Dict ? count / 2 : count;
      if (!containers || entries < 2 || entries >= kBatchSize ||
          (n->kind == Kind::Dict && count % 2 != 0)) {
        return 0;
      }
      if (maybe_atom(n->items[0])) {
        return kAtomBytes * count + 12;  // 3 opening and 1 closing opcodes, and the slack
      }
      return nested && n->kind == Kind::List ? 12 : 0;  // its opening, closing and slack
    }
    default: return 0;
  }
}

// A memo get written at `c`: memo_get() for binary protocols.
[[gnu::always_inline]] inline char* put_memo_get(char* c, MemoId id) {
  if (id < 256) {
    PickleWriter::store_word(c, static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{id} << 8);
    return c + 2;
  }
  PickleWriter::store_word(c,
                           static_cast<std::uint8_t>(op(Op::LONG_BINGET)) | std::uint64_t{id} << 8);
  return c + 5;
}

// The memo step of a container a run writes: true, its memo get written
// at `c`, when it has an id; else false, the next id taken for it.
template <class MemoRun>
[[gnu::always_inline]] inline bool memo_get_or_take(char*& c, const Node* n, MemoRun& memo,
                                                    MemoId& next_id) {
  MemoId* slot = memo.find_or_add(n);
  if (const MemoId id = *slot; id != kNoMemo) {
    c = put_memo_get(c, id);
    return true;
  }
  *slot = next_id++;
  return false;
}

// A str of at most 255 bytes whose memo slot is `slot` (by identity, or
// by value for a singleton): BINGET when the slot holds an id, else
// SHORT_BINUNICODE and MEMOIZE, the slot taking the next id.
[[gnu::always_inline]] inline char* Encoder::put_str(char* c, MemoId* slot, std::string_view utf8,
                                                     MemoId& next_id) {
  if (const MemoId id = *slot; id != kNoMemo) return put_memo_get(c, id);
  *slot = next_id++;
  const std::size_t size = utf8.size();
  store_word(c, static_cast<std::uint8_t>(op(Op::SHORT_BINUNICODE)) | std::uint64_t{size} << 8);
  copy_bytes(c + 2, utf8.data(), size);
  c[2 + size] = op(Op::MEMOIZE);
  return c + size + 3;
}

// Writes `n`, which entry_need() took, at `c` and returns the new end: a
// str as save_str() writes it and a container as save_flat_here() does
// (a list of such as save_list_or_dict_as(), see put_nested), through the
// run's view of the memo, taking ids from `next_id`; an atom as put_atom()
// does. A container whose atoms stopped early is left open in
// `unfinished`.
template <bool kContainers, class MemoRun>
inline char* Encoder::put_entry(char* c, const Node* n, MemoRun& memo, MemoId& next_id,
                                Unfinished& unfinished, std::uintptr_t bound) {
  const Kind kind = n->kind;
  if (kind == Kind::Str) {
    const std::string_view utf8 = n->payload();
    const std::size_t size = utf8.size();
    MemoId* slot;
    if (size <= 2) [[unlikely]] {
      const int s = latin1_singleton_slot(utf8);
      slot = memo.find_or_add(s >= 0 ? singleton_key(kCharKeys, s) : n);
    } else {
      slot = memo.find_or_add(n);
    }
    return put_str(c, slot, utf8, next_id);
  }
  // Without containers (a run that takes none), nothing here takes the
  // address of `memo` or `next_id`, which can then stay in registers.
  if (!kContainers || (kind != Kind::List && kind != Kind::Dict)) return put_atom(c, n);
  // A container, as write_flat_whole() writes it.
  if (memo_get_or_take(c, n, memo, next_id)) return c;
  if (!maybe_atom(n->items[0])) [[unlikely]]
    return put_nested(c, n, memo, next_id, unfinished, bound);
  return kind == Kind::List ? put_flat<Kind::List>(c, n, unfinished)
                            : put_flat<Kind::Dict>(c, n, unfinished);
}

// A flat list or dict whose memo id put_entry() or put_nested() took, as
// write_flat_whole() writes it: its opening, its run of atoms and its
// closing. One whose atoms stopped early is left open in `unfinished`.
template <Kind K>
[[gnu::always_inline]] inline char* Encoder::put_flat(char* c, const Node* n,
                                                      Unfinished& unfinished) {
  Node* const* const first = n->items.data();
  Node* const* const last = first + n->items.size();
  RunEnd run;
  if constexpr (K == Kind::List) {
    store_word(c, opened_marked(Op::EMPTY_LIST));
    run = write_atoms(c + 3, first, last);
  } else {
    store_word(c, opened_marked(Op::EMPTY_DICT));
    run = write_atom_pairs(c + 3, first, last);
  }
  if (run.p == last) [[likely]] {
    *run.c = op(K == Kind::List ? Op::APPENDS : Op::SETITEMS);
    return run.c + 1;
  }
  unfinished.inner = n;
  unfinished.inner_at = static_cast<std::size_t>(run.p - first) / (K == Kind::List ? 1 : 2);
  return run.c;
}

// A list of 2 to 999 items whose items the run takes one by one, its memo
// id taken: what save_list_or_dict_as() writes for it, EMPTY_LIST MEMOIZE
// MARK, the items, APPENDS. Each item is sized as it comes; the list stops,
// unfinished, before an item the run does not take or whose largest size
// reaches past `bound`, for the general path to go on from that item. An
// item left unfinished leaves the list unfinished too, to go on at the next
// item.
template <class MemoRun>
char* Encoder::put_nested(char* c, const Node* n, MemoRun& memo, MemoId& next_id,
                          Unfinished& unfinished, std::uintptr_t bound) {
  store_word(c, opened_marked(Op::EMPTY_LIST));
  c += 3;
  for (std::size_t i = 0, count = n->items.size(); i < count; ++i) {
    const Node* item = n->items[i];
    // A flat list (LIST's) is sized and written as entry_need() and
    // put_entry() would, without their tests for a str, a dict and a
    // nested list.
    const std::size_t size = item != nullptr && item->kind == Kind::List ? item->items.size() : 0;
    const bool flat_list = size >= 2 && size < kBatchSize && maybe_atom(item->items[0]);
    const std::size_t need = flat_list ? kAtomBytes * size + 12 : entry_need(item, true, false);
    if (need == 0 || reinterpret_cast<std::uintptr_t>(c) + need > bound) [[unlikely]] {
      unfinished.outer = n;
      unfinished.outer_next = i;
      return c;
    }
    if (flat_list) {
      if (memo_get_or_take(c, item, memo, next_id)) continue;
      c = put_flat<Kind::List>(c, item, unfinished);
    } else {
      c = put_entry<true>(c, item, memo, next_id, unfinished, bound);
    }
    if (unfinished.inner != nullptr) [[unlikely]] {
      unfinished.outer = n;
      unfinished.outer_next = i + 1;
      return c;
    }
  }
  *c = op(Op::APPENDS);
  return c + 1;
}

// The run over entries of kWidth nodes (1: items, 2: a dict's key and
// value) from `p` up to `end`; returns the first entry not written.
// kContainers: whether it takes flat containers (a run of strs that takes
// none is spared the test for an unfinished one). Protocol 4 and up only.
template <std::size_t kWidth, bool kContainers>
Node* const* Encoder::write_entry_run(Node* const* p, Node* const* const end) {
  // save_flat_here()'s conditions that hold for the whole run: not at the
  // depth limit, and room for save_flat_rest() to nest; for a list of
  // flat containers, not at the limit inside it either.
  const bool containers =
      kContainers && depth_ < options_.max_depth && direct_depth_ < kDirectDepth;
  const bool nested = kWidth == 1 && containers && depth_ + 1 < options_.max_depth;
  for (;;) {  // once, and again after each container left unfinished
    char* c = cur_;
    // Below it, save()'s boundary() would not commit the frame (a frame
    // is open: frame_limit_ is 0 when none is) and put() would not grow
    // the buffer. An entry whose largest size reaches past it stops the
    // run.
    const std::uintptr_t bound = std::min(reinterpret_cast<std::uintptr_t>(end_), frame_limit_);
    auto memo = node_memo_->open_run();
    MemoId next_id = memo_size_;
    // The run stops where next_memo_id() would fail (past kNoMemo - 2),
    // and leaves the rest to the general path. Most entries take at most
    // kWidth ids, which caps the run's length; a list in a sequence's run
    // takes up to one for itself and one per item, counted entry by entry.
    std::size_t memo_left = kNoMemo - 1 - next_id;
    Node* const* last = end;
    if (!(kContainers && kWidth == 1) &&
        static_cast<std::size_t>(last - p) / kWidth > memo_left / kWidth) {
      last = p + memo_left / kWidth * kWidth;
    }
    Unfinished unfinished;
    for (; p != last; p += kWidth) {
      if constexpr (kWidth == 2 && !kContainers) {
        // A str key of 3 to 255 bytes (no singleton, no interned name)
        // with a str value of such a size or an int BININT* holds, the
        // commonest entries of DICT and DICT_GROUP: entry_need() and
        // put_entry() for them, their tests made once.
        // Both pointers tested in one AND and both sizes in one OR, as
        // write_atoms() does: an entry they turn away for nothing goes to
        // entry_need() below instead.
        while (p != last) {
          const Node* value = p[1];  // the value first: DICT's keys are all strs
          const Node* key = p[0];
          if ((reinterpret_cast<std::uintptr_t>(key) & reinterpret_cast<std::uintptr_t>(value)) ==
                  0 ||
              !key->is_plain_str()) {
            break;
          }
          const std::string_view k = key->payload();
          if (value->is_plain_str()) [[likely]] {
            const std::string_view v = value->payload();
            if (((k.size() - 3) | (v.size() - 3)) > 0xff - 3) break;
            if (reinterpret_cast<std::uintptr_t>(c) + k.size() + v.size() + 16 > bound) break;
            c = put_str(c, memo.find_or_add(key), k, next_id);
            c = put_str(c, memo.find_or_add(value), v, next_id);
          } else {
            if (!value->binint_value() || k.size() - 3 > 0xff - 3) break;
            if (reinterpret_cast<std::uintptr_t>(c) + k.size() + 16 > bound) break;
            c = put_str(c, memo.find_or_add(key), k, next_id);
            c = put_atom(c, value);
          }
          p += 2;
        }
        if (p == last) break;
      }
      // A dict's keys are taken when they are strs or atoms, its values
      // and a sequence's items also when they are flat containers (and a
      // sequence's, lists of such).
      std::size_t need = entry_need(p[0], kWidth == 1 && containers, nested);
      if (need == 0) break;
      if constexpr (kWidth == 2) {
        const std::size_t value_need = entry_need(p[1], containers, false);
        if (value_need == 0) break;
        need += value_need;
      }
      if (reinterpret_cast<std::uintptr_t>(c) + need > bound) break;
      if constexpr (kContainers && kWidth == 1) {
        const Node* n = p[0];
        const std::size_t uses =
            1 + (n->kind == Kind::List || n->kind == Kind::Dict ? n->items.size() : 0);
        if (uses > memo_left) break;
        memo_left -= uses;
      }
      c = put_entry<kContainers>(c, p[0], memo, next_id, unfinished, bound);
      if constexpr (kWidth == 2) {
        c = put_entry<kContainers>(c, p[1], memo, next_id, unfinished, bound);
      }
      if (kContainers && (reinterpret_cast<std::uintptr_t>(unfinished.inner) |
                          reinterpret_cast<std::uintptr_t>(unfinished.outer)) != 0) [[unlikely]] {
        p += kWidth;
        break;
      }
    }
    cur_ = c;
    memo_size_ = next_id;
    if (!kContainers || (unfinished.inner == nullptr && unfinished.outer == nullptr)) return p;
    if (unfinished.outer == nullptr) {
      save_flat_rest(unfinished.inner, unfinished.inner_at);
    } else {
      // As inside the list's own batches: its flat container finished one
      // level down (when one stopped early), then the rest of the list.
      if (unfinished.inner != nullptr) {
        ++depth_;
        save_flat_rest(unfinished.inner, unfinished.inner_at);
        --depth_;
      }
      save_flat_rest(unfinished.outer, unfinished.outer_next);
    }
  }
}

// Items [i, stop) of a sequence, or entries of a dict, where the atom run
// stopped: the run of entries that starts there, if the first is a str (a
// key that is a str, in a dict) or, in a dict, an atom with a str or a
// flat container for its value; returns the index of the first item or
// entry not written. (A sequence's run of containers would start at a
// container too, but short sequences of them, LIST's pairs of lists, cost
// more in a run's start than they save.)
inline std::size_t Encoder::run_of_entries(SeqView view, std::size_t i, std::size_t stop) {
  const Node* n = view.v[i];
  if (proto_ < 4 || n == nullptr) return i;
  Node* const* first = view.v.data();
  if (n->kind == Kind::Str) {
    return static_cast<std::size_t>(write_entry_run<1, false>(first + i, first + stop) - first);
  }
  // Two containers in a row, the first one a run takes: a run with
  // containers (a lone flat list, TUPLE's, costs more in a run's start
  // than it saves).
  if ((n->kind == Kind::List || n->kind == Kind::Dict) && i + 1 < stop) {
    const Node* next = view.v[i + 1];
    if (next != nullptr && (next->kind == Kind::List || next->kind == Kind::Dict) &&
        entry_need(n, true, depth_ + 1 < options_.max_depth) != 0) {
      return static_cast<std::size_t>(write_entry_run<1, true>(first + i, first + stop) - first);
    }
  }
  return i;
}
inline std::size_t Encoder::run_of_entries(InterleavedView view, std::size_t i, std::size_t stop) {
  const Node* key = view.v[2 * i];
  if (proto_ < 4 || key == nullptr) return i;
  Node* const* first = view.v.data();
  Node* const* p = first + 2 * i;
  if (key->kind == Kind::Str) {
    p = write_entry_run<2, false>(p, first + 2 * stop);
  } else {
    // An atom for a key (the atom run stopped at its value): a run with
    // containers when its value is one (MICRO_DICT's), or a str.
    const Node* value = view.v[2 * i + 1];
    if (!maybe_atom(key) || value == nullptr) return i;
    if (value->kind == Kind::List || value->kind == Kind::Dict) {
      if (entry_need(value, true, false) == 0) return i;
      p = write_entry_run<2, true>(p, first + 2 * stop);
    } else if (value->kind == Kind::Str) {
      p = write_entry_run<2, false>(p, first + 2 * stop);
    } else {
      return i;
    }
  }
  return static_cast<std::size_t>(p - first) / 2;
}
inline std::size_t Encoder::run_of_entries(PairView, std::size_t i, std::size_t) {
  return i;
}

// The entries of list or dict `n` from entry `i` on, after its opening and
// memo, the container entered: batch_list_exact or batch_dict_exact, or one
// entry and APPEND (SETITEM) after another at protocol 0.
template <Kind K>
void Encoder::save_entries(const Node* n, std::size_t i) {
  using Shape = ListOrDict<K>;
  if (bin_) {
    exact_batches(n, Shape::kStep, typename Shape::View{n->items}, i, op(Shape::kSingle),
                  op(Shape::kBatch), true, Shape::kTrailing);
  } else {
    each(n, Shape::kStep, typename Shape::View{n->items}, i, op(Shape::kSingle));
  }
}

inline void Encoder::enter() {
  if (++depth_ > options_.max_depth) {
    throw PickleError(ErrorKind::LimitExceeded, offset(),
                      "nesting deeper than max_depth " + std::to_string(options_.max_depth));
  }
}
inline void Encoder::enter_container() {
  enter();
  push(nullptr, 0, Step::kLeave);
}

[[gnu::always_inline]] inline void Encoder::push(const Node* n, std::size_t index, Step step,
                                                 char opcode) {
  stack_.push_back(Task{n, index, step, opcode});
}
inline void Encoder::push_op(Op o) {
  push(nullptr, 0, Step::kWriteOp, op(o));
}
inline void Encoder::push_save(const Node* n) {
  push(n, 0, Step::kSave);
}

[[gnu::always_inline]] inline void Encoder::run_task(const Task& t) {
  switch (t.step) {
    case Step::kSave: dispatch(t.node); break;
    case Step::kWriteOp: put(t.opcode); break;
    case Step::kLeave: --depth_; break;
    case Step::kTupleEnd: tuple_end(t.node); break;
    case Step::kFreshTupleEnd: fresh_tuple_end(t.index); break;
    case Step::kFrozenSetEnd: frozenset_end(t.node); break;
    case Step::kSetReduceEnd: set_reduce_end(t.node); break;
    case Step::kReduceEnd: reduce_end(t.node); break;
    case Step::kItems: items(t.node, SeqView{t.node->items}, t.index); break;
    case Step::kListEntries: save_entries<Kind::List>(t.node, t.index); break;
    case Step::kDictEntries: save_entries<Kind::Dict>(t.node, t.index); break;
    case Step::kSetBatch:
      exact_batches(t.node, t.step, SeqView{t.node->items}, t.index, 0, op(Op::ADDITEMS), false,
                    true);
      break;
    case Step::kListItems:
      object_items(t, SeqView{t.node->obj()->listitems}, op(Op::APPEND), op(Op::APPENDS));
      break;
    case Step::kDictItems:
      object_items(t, PairView{t.node->obj()->dictitems}, op(Op::SETITEM), op(Op::SETITEMS));
      break;
    case Step::kSaveEmptyTuple:
      boundary();
      save_empty_tuple();
      break;
    case Step::kSaveNone:
      boundary();
      put(op(Op::NONE));
      break;
    case Step::kFreshDict: fresh_dict(t.node); break;
  }
}

// Saves one entry (an item, or a key and its value) once whatever must run
// after it is on the stack: inline nodes are written now, the others are
// pushed for the main loop. A container is never dispatched from inside
// another one's save, so nesting does not deepen the C++ stack.
[[gnu::always_inline]] inline void Encoder::save_entry(const Node* n) {
  if (!save_if_inline(n)) push_save(n);
}
inline void Encoder::save_entry(Entry e) {
  if (save_if_inline(e.first)) {
    save_entry(e.second);
  } else {
    push_save(e.second);
    push_save(e.first);
  }
}

// A loop's step over entry `e`: writes it and returns false when it is
// inline; otherwise pushes the loop's continuation (`owner`, resuming at
// `next`) and then the entry's saves, and returns true.
[[gnu::always_inline]] inline bool Encoder::defer_entry(const Node* owner, std::size_t next,
                                                        Step step, const Node* e) {
  if (save_if_inline(e)) return false;
  if (direct_depth_ < kDirectDepth) {
    if (!save_flat_here(e)) save_now(e);
    return false;
  }
  push(owner, next, step);
  push_save(e);
  return true;
}
[[gnu::always_inline]] inline bool Encoder::defer_entry(const Node* owner, std::size_t next,
                                                        Step step, Entry e) {
  if (save_if_inline(e.first)) {
    if (save_if_inline(e.second)) return false;
    if (direct_depth_ < kDirectDepth) {
      if (!save_flat_here(e.second)) save_now(e.second);
      return false;
    }
    push(owner, next, step);
    push_save(e.second);
    return true;
  }
  push(owner, next, step);
  push_save(e.second);
  push_save(e.first);
  return true;
}

// The main loop: runs tasks until the stack is back to `mark` entries.
[[gnu::always_inline]] inline void Encoder::run_tasks_down_to(std::size_t mark) {
  while (stack_.size() > mark) {
    Task t = stack_.back();
    stack_.pop_back();
    run_task(t);
  }
}

// Saves the entry then writes `after`, with nothing to resume afterwards.
template <class E>
void Encoder::entry_then(E e, char after) {
  if (is_inline(e)) {
    save_entry(e);
    put(after);
  } else {
    push(nullptr, 0, Step::kWriteOp, after);
    save_entry(e);
  }
}

// store_tuple_elements / save_frozenset's loop: items in order, no opcodes.
// Returns true when every item was written here; false when the rest was
// left to tasks it pushed (nesting past kDirectDepth).
template <class View>
bool Encoder::items(const Node* node, View view, std::size_t i) {
  const std::size_t n = view.size();
  while (i < n) {
    i = run_of_atoms(view, i, n);
    if (i == n) return true;
    i = run_of_entries(view, i, n);
    if (i == n) return true;
    auto e = view.at(i);
    ++i;
    if (defer_entry(node, i, Step::kItems, e)) return false;
  }
  return true;
}

// Protocol 0: every entry followed by APPEND or SETITEM.
template <class View>
void Encoder::each(const Node* node, Step step, View view, std::size_t i, char after) {
  const std::size_t n = view.size();
  while (i < n) {
    auto e = view.at(i++);
    if (!is_inline(e)) {
      push(node, i, step);
      push(nullptr, 0, Step::kWriteOp, after);
      save_entry(e);
      return;
    }
    save_entry(e);
    put(after);
  }
}

// batch_list_exact (single, no trailing batch), batch_dict_exact (single,
// trailing) and save_set (no single, trailing): MARK up to 1000 entries
// END, repeated. `trailing`: when the size is a multiple of 1000 an empty
// MARK END follows, as the C loops test for a full batch before they stop.
template <class View>
void Encoder::exact_batches(const Node* node, Step step, View view, std::size_t i, char single,
                            char end, bool single_special, bool trailing) {
  const std::size_t n = view.size();
  if (i == 0) {
    if (single_special && n == 1) {
      entry_then(view.at(0), single);
      return;
    }
    put(op(Op::MARK));
  }
  batch_loop(node, step, view, i, end, trailing);
}

// exact_batches' loop, from entry `i`, the batch's MARK written. Returns
// true when it wrote every entry and the closing opcode; false when it left
// the rest to tasks it pushed.
template <class View>
bool Encoder::batch_loop(const Node* node, Step step, View view, std::size_t i, char end,
                         bool trailing) {
  const std::size_t n = view.size();
  for (;;) {
    if (i > 0 && (i % kBatchSize == 0 || i == n)) {
      put(end);
      if (i == n) {
        if (trailing && n % kBatchSize == 0 && !options_.target.exact_batches_like_items()) {
          put(op(Op::MARK));
          put(end);
        }
        return true;
      }
      if (n - i == 1 && end != op(Op::ADDITEMS) && options_.target.exact_batches_like_items()) {
        // 3.15: a last batch of one entry, as batch_list and batch_dict
        // write it. Tasks it leaves sit above the caller's leave task.
        entry_then(view.at(i), end == op(Op::APPENDS) ? op(Op::APPEND) : op(Op::SETITEM));
        return false;
      }
      put(op(Op::MARK));
    }
    // The rest of this batch; the test above runs once per batch.
    const std::size_t stop = std::min(n, i - i % kBatchSize + kBatchSize);
    while (i < stop) {
      i = run_of_atoms(view, i, stop);
      if (i == stop) break;
      i = run_of_entries(view, i, stop);
      if (i == stop) break;
      auto e = view.at(i);
      ++i;
      if (defer_entry(node, i, step, e)) return false;
    }
  }
}

// enter_container() then batch_loop(), with the leave task pushed only
// when the loop leaves tasks behind: beneath them, where it would have
// been. Otherwise the container is left now.
template <class View>
void Encoder::enter_batches(const Node* node, Step step, View view, std::size_t i, char end,
                            bool trailing) {
  enter();
  const std::size_t mark = stack_.size();
  if (batch_loop(node, step, view, i, end, trailing)) {
    --depth_;
    return;
  }
  stack_.insert_at(mark, Task{nullptr, 0, Step::kLeave, 0});
}

// An object's list or dict items (save_reduce's listitems and dictitems):
// each entry followed by APPEND or SETITEM at protocol 0, else batch_list
// or batch_dict.
template <class View>
void Encoder::object_items(const Task& t, View view, char single, char end) {
  if (proto_ == 0) {
    each(t.node, t.step, view, t.index, single);
  } else {
    loose_batches(t.node, t.step, view, t.index, single, end);
  }
}

// batch_list / batch_dict (reduce list and dict items, protocol >= 1): a
// batch holding a single entry is written with APPEND/SETITEM.
template <class View>
void Encoder::loose_batches(const Node* node, Step step, View view, std::size_t i, char single,
                            char end) {
  const std::size_t n = view.size();
  for (;;) {
    if (i % kBatchSize == 0) {
      if (i > 0) put(end);
      std::size_t rest = n - i;
      if (rest == 0) return;
      if (rest == 1) {
        entry_then(view.at(i), single);
        return;
      }
      put(op(Op::MARK));
    } else if (i == n) {
      put(end);
      return;
    }
    auto e = view.at(i);
    ++i;
    if (defer_entry(node, i, step, e)) return;
  }
}

}  // namespace serialcheck::pickle::encoder_internal
