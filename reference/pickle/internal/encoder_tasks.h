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
        if (trailing && n % kBatchSize == 0) {
          put(op(Op::MARK));
          put(end);
        }
        return true;
      }
      put(op(Op::MARK));
    }
    // The rest of this batch; the test above runs once per batch.
    const std::size_t stop = std::min(n, i - i % kBatchSize + kBatchSize);
    while (i < stop) {
      i = run_of_atoms(view, i, stop);
      if (i == stop) break;
      i = run_of_short(view, i, stop);
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
