// The pickle encoder's one class, declared for the files it is split into
// (used by the encoder only). It mirrors the control flow of CPython 3.11's
// C pickler (Modules/_pickle.c: save(), save_reduce(), batch_list_exact()...)
// step by step, because byte identity depends on details such as where a
// frame may be cut (only when save() starts), which objects are memoized
// (also the temporary tuples, lists and strings the C pickler builds for old
// protocols) and in which order.
//
// Where each part lives:
//  - output and framing (_Pickler_Write and friends): reference/pickle/writer.h,
//    the base class;
//  - the memo (memo_put, memo_get, the memo by value of singletons):
//    internal/encoder_memo.h;
//  - the task machine, the explicit stack that replaces save()'s recursion,
//    the batch loops (batch_list_exact...) and the runs of entries they
//    write in place (strs, atoms and flat containers, with the writer's
//    and the memo's state in locals): internal/encoder_tasks.h;
//  - the atom fast path (items written in place, runs of small ints and
//    Nones): internal/encoder_atoms.h;
//  - save() and the save_* of each kind, with the reduce forms old protocols
//    give bytes, bytearray and sets: encoder.cpp;
//  - globals (save_global, save_type) and the interned strs they write:
//    encoder_globals.cpp;
//  - reduce (save_reduce of an object node: REDUCE, NEWOBJ, NEWOBJ_EX,
//    extension codes, state and items) and domain lowering:
//    encoder_reduce.cpp.
//
// Members declared `inline` below without a body are defined in encoder.cpp
// and called only there (save()'s per-kind cases): the compiler may fold them
// into save() as it would a function of that file alone. The hot members
// other files call are inline in the internal headers named above.
//
// Failures throw PickleError (Unpicklable, or LimitExceeded for depth and
// memo size) with the output offset.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "reference/pickle/encoder.h"
#include "reference/pickle/pod_stack.h"
#include "reference/pickle/writer.h"
#include "reference/types/domain.h"
#include "reference/value/value.h"

namespace serialcheck::pickle::encoder_internal {

// A memo index. The memo of one pickle never reaches 2**32 - 1 entries (each
// is a node of at least 100 bytes); memo_put_op() fails rather than wrap.
using MemoId = std::uint32_t;
constexpr MemoId kNoMemo = static_cast<MemoId>(-1);

class NodeMemo;  // internal/encoder_memo.h

// A memo by value for the names a pickle writes (globals by module and
// qualname, interned strs by text). Most pickles name a few, so the first
// kInline keys are found along a short array and only the rest go to a hash
// table: a pickle with one datetime.date neither hashes a name nor allocates
// (the three hash tables this replaces were about 14% of the instructions of
// pyperformance's DICT dumps). Keys view the graph's names, which outlive the
// encode. The first id put for a key stays.
template <class Key>
class NameMemo {
 public:
  // The id of `key`, or kNoMemo.
  MemoId find(const Key& key) const {
    for (std::size_t i = 0; i < count_; ++i) {
      if (key_at(i) == key) return ids_[i];
    }
    if (more_.empty()) return kNoMemo;
    auto it = more_.find(key);
    return it == more_.end() ? kNoMemo : it->second;
  }

  // Puts `id` for `key` unless the key has one.
  void add(const Key& key, MemoId id) {
    if (find(key) != kNoMemo) return;
    if (count_ < kInline) {
      std::memcpy(keys_ + count_ * sizeof(Key), &key, sizeof(Key));
      ids_[count_] = id;
      ++count_;
    } else {
      more_.emplace(key, id);
    }
  }

 private:
  static_assert(std::is_trivially_copyable_v<Key>);
  static constexpr std::size_t kInline = 8;

  Key key_at(std::size_t i) const {
    Key key;
    std::memcpy(&key, keys_ + i * sizeof(Key), sizeof(Key));
    return key;
  }

  // Left unset until used: an encoder is made for every call.
  alignas(Key) unsigned char keys_[kInline * sizeof(Key)];
  MemoId ids_[kInline];
  std::size_t count_ = 0;
  absl::flat_hash_map<Key, MemoId> more_;
};

// A global's key in the encoder's memo.
struct GlobalName {
  std::string_view module, qualname;
  friend bool operator==(const GlobalName&, const GlobalName&) = default;
  template <class H>
  friend H AbslHashValue(H h, const GlobalName& g) {
    return H::combine(std::move(h), g.module, g.qualname);
  }
};

// What a task on the stack does when it is popped.
enum class Step : std::uint8_t {
  kSave,            // save(node)
  kWriteOp,         // write one opcode byte
  kLeave,           // a container is done: depth - 1
  kTupleEnd,        // after a tuple's items: TUPLE*, or POP... GET when it became recursive
  kFreshTupleEnd,   // after a temporary tuple's items (index = length)
  kFrozenSetEnd,    // after a frozenset's items (protocol >= 4)
  kSetReduceEnd,    // after the list a set/frozenset is reduced to (protocol < 4)
  kReduceEnd,       // after callable and args of an object
  kItems,           // save node->items[index...] one by one
  kListEntries,     // batch_list_exact over node->items; protocol 0: item APPEND, ...
  kDictEntries,     // batch_dict_exact over node->items; protocol 0: key value SETITEM, ...
  kSetBatch,        // save_set's ADDITEMS batches
  kListItems,       // batch_list over obj->listitems
  kDictItems,       // batch_dict over obj->dictitems
  kSaveEmptyTuple,  // save(()) of a temporary empty tuple
  kSaveNone,        // save(None) of a temporary None
  kFreshDict,       // save a temporary copy of the dict `node`
};

struct Task {
  const Node* node;
  std::size_t index;
  Step step;
  char opcode;
};

// The entries the loops walk: one node, or a key and its value.
using Entry = std::pair<const Node*, const Node*>;

struct SeqView {
  const NodeList& v;
  std::size_t size() const { return v.size(); }
  const Node* at(std::size_t i) const { return v[i]; }
};

struct InterleavedView {  // Dict items: key0, value0, key1, value1...
  const NodeList& v;
  std::size_t size() const { return v.size() / 2; }
  Entry at(std::size_t i) const { return {v[2 * i], v[2 * i + 1]}; }
};

struct PairView {  // ObjectParts::dictitems
  const std::vector<std::pair<Node*, Node*>>& v;
  std::size_t size() const { return v.size(); }
  Entry at(std::size_t i) const { return {v[i].first, v[i].second}; }
};

// The last dotted component of a qualified name.
inline std::string_view last_component(std::string_view qualname) {
  std::size_t dot = qualname.rfind('.');
  return dot == std::string_view::npos ? qualname : qualname.substr(dot + 1);
}

class Encoder : private PickleWriter {
 public:
  // `memo`, `tasks` and `out` are the thread's working memory (encoder.cpp's
  // Scratch), empty.
  Encoder(const EncodeOptions& options, EncodeResult& result, NodeMemo& memo, PodStack<Task>& tasks,
          OutputBuffer& out)
      : PickleWriter(out),
        options_(options),
        out_(result.bytes),
        buffers_(result.buffers),
        proto_(options.protocol < 0 ? options.target.highest_protocol() : options.protocol),
        bin_(proto_ > 0),
        stack_(tasks),
        node_memo_(&memo) {}

  // Writes the pickle of `root` into the result's bytes.
  void run(const Node* root);

  // The nodes domain values were lowered to: an out-of-band buffer of an
  // array is one of them, so the result keeps them alive. A Graph moves
  // without moving its nodes.
  std::shared_ptr<const Graph> take_lowered();

 private:
  // ---- errors (encoder.cpp) and depth (encoder_tasks.h) ----
  [[noreturn, gnu::noinline, gnu::cold]] void fail(std::string message);
  [[gnu::noinline, gnu::cold]] void apply_target();
  inline void enter();
  inline void enter_container();
  static std::size_t initial_capacity(const Node* root);

  // ---- memo (encoder_memo.h) ----
  [[gnu::always_inline]] inline MemoId next_memo_id();
  [[gnu::always_inline]] inline MemoId memo_put_op();
  [[noreturn, gnu::noinline, gnu::cold]] inline void memo_full();
  [[gnu::always_inline]] inline void memo_get(MemoId idx);
  [[gnu::noinline]] inline void memo_get_long(MemoId idx);
  [[gnu::always_inline]] inline void memo_op(MemoId idx, Op text, Op one_byte, Op four_bytes);
  inline void memo_fresh();
  inline MemoId& char_memo(int slot);
  inline const Node* memo_key(const Node* n);
  inline MemoId find_memo(const Node* n);
  inline void memo_put_node(const Node* n);

  // ---- the task machine and the batch loops (encoder_tasks.h) ----
  [[gnu::always_inline]] inline void push(const Node* n, std::size_t index, Step step,
                                          char opcode = 0);
  inline void push_op(Op o);
  inline void push_save(const Node* n);
  [[gnu::always_inline]] inline void run_task(const Task& t);
  [[gnu::always_inline]] inline void save_entry(const Node* n);
  inline void save_entry(Entry e);
  [[gnu::always_inline]] inline bool defer_entry(const Node* owner, std::size_t next, Step step,
                                                 const Node* e);
  [[gnu::always_inline]] inline bool defer_entry(const Node* owner, std::size_t next, Step step,
                                                 Entry e);
  static constexpr int kDirectDepth = 32;
  [[gnu::noinline]] void save_now(const Node* n);  // encoder.cpp
  [[gnu::always_inline]] inline void run_tasks_down_to(std::size_t mark);
  template <class E>
  void entry_then(E e, char after);
  template <class View>
  bool items(const Node* node, View view, std::size_t i);
  template <class View>
  void each(const Node* node, Step step, View view, std::size_t i, char after);
  template <class View>
  [[gnu::always_inline]] inline void exact_batches(const Node* node, Step step, View view,
                                                   std::size_t i, char single, char end,
                                                   bool single_special, bool trailing);
  template <class View>
  bool batch_loop(const Node* node, Step step, View view, std::size_t i, char end, bool trailing);
  template <class View>
  [[gnu::always_inline]] inline void enter_batches(const Node* node, Step step, View view,
                                                   std::size_t i, char end, bool trailing);
  template <class View>
  [[gnu::always_inline]] inline void object_items(const Task& t, View view, char single, char end);
  template <class View>
  void loose_batches(const Node* node, Step step, View view, std::size_t i, char single, char end);

  // ---- the atom fast path (encoder_atoms.h) ----
  static constexpr std::size_t kAtomBytes = 5;  // BININT: opcode + 4 bytes
  struct RunEnd {
    Node* const* p;  // the first item not written
    char* c;         // the end of what was written
  };
  [[gnu::always_inline]] inline bool save_if_inline(const Node* n);
  inline bool fits_binint(const Node* n) const;
  [[gnu::always_inline]] inline void put_binint(std::int32_t v);
  [[gnu::always_inline]] inline void save_str(const Node* n);
  [[gnu::always_inline]] inline bool save_short_str(const Node* n);
  [[gnu::always_inline]] inline void put_short_str_memoized(std::string_view utf8, MemoId* slot);
  [[gnu::always_inline]] inline std::size_t atom_room() const;
  [[gnu::always_inline]] static inline bool maybe_atom(const Node* n);
  [[gnu::always_inline]] static inline char* put_atom(char* c, const Node* n);
  [[gnu::noinline, gnu::aligned(64)]] static inline RunEnd write_atoms(char* c, Node* const* p,
                                                                       Node* const* last);
  [[gnu::noinline, gnu::aligned(64)]] static inline RunEnd write_atom_pairs(char* c, Node* const* p,
                                                                            Node* const* last);
  [[gnu::always_inline]] inline std::size_t atom_run(const NodeList& v, std::size_t i,
                                                     std::size_t stop);
  [[gnu::always_inline]] inline std::size_t atom_pair_run(const NodeList& v, std::size_t i,
                                                          std::size_t stop);
  [[gnu::always_inline]] inline std::size_t run_of_atoms(SeqView view, std::size_t i,
                                                         std::size_t stop);
  [[gnu::always_inline]] inline std::size_t run_of_atoms(InterleavedView view, std::size_t i,
                                                         std::size_t stop);
  [[gnu::always_inline]] inline std::size_t run_of_atoms(PairView view, std::size_t i,
                                                         std::size_t stop);
  [[gnu::always_inline]] static inline std::size_t entry_need(const Node* n, bool containers,
                                                              bool nested);
  // A container a run left for the general path to finish: `inner` (a
  // flat list or dict) from entry `inner_at`, then, when it is an item of
  // a list the run wrote (put_nested), `outer` from item `outer_next`; or
  // `outer` alone, which stopped before that item.
  struct Unfinished {
    const Node* inner = nullptr;
    std::size_t inner_at = 0;
    const Node* outer = nullptr;
    std::size_t outer_next = 0;
  };
  [[gnu::always_inline]] static inline char* put_str(char* c, MemoId* slot, std::string_view utf8,
                                                     MemoId& next_id);
  template <bool kContainers, class MemoRun>  // NodeMemo::Run (see encoder_memo.h)
  [[gnu::always_inline]] inline char* put_entry(char* c, const Node* n, MemoRun& memo,
                                                MemoId& next_id, Unfinished& unfinished,
                                                std::uintptr_t bound);
  template <Kind K>
  [[gnu::always_inline]] inline char* put_flat(char* c, const Node* n, Unfinished& unfinished);
  template <class MemoRun>
  [[gnu::noinline]] char* put_nested(char* c, const Node* n, MemoRun& memo, MemoId& next_id,
                                     Unfinished& unfinished, std::uintptr_t bound);
  // Aligned to a cache line: where its loop fell within one moved the
  // time of pyperformance's DICT_GROUP dumps by 5-8% between builds of the
  // same code.
  template <std::size_t kWidth, bool kContainers>
  [[gnu::noinline, gnu::aligned(64)]] Node* const* write_entry_run(Node* const* p,
                                                                   Node* const* end);
  [[gnu::always_inline]] inline std::size_t run_of_entries(SeqView view, std::size_t i,
                                                           std::size_t stop);
  [[gnu::always_inline]] inline std::size_t run_of_entries(InterleavedView view, std::size_t i,
                                                           std::size_t stop);
  [[gnu::always_inline]] inline std::size_t run_of_entries(PairView view, std::size_t i,
                                                           std::size_t stop);

  // ---- save() and the save_* of each kind (encoder.cpp) ----
  void dispatch(const Node* n);
  [[gnu::always_inline]] inline void save_list_or_dict(const Node* n);
  inline void save_bool(bool v);
  void save_int(const Node* n);
  void save_float(double d);
  void save_str_data(std::string_view utf8, bool stable = false);
  struct CountedOps {  // the forms with a 1-, 4- and 8-byte size
    Op size1, size4, size8;
  };
  void save_counted(std::string_view data, bool stable, bool short_size, const CountedOps& ops,
                    const char* what);
  inline void save_bytes_data(std::string_view data, bool stable = false);
  inline void save_bytearray_data(std::string_view data, bool stable = false);
  void save_empty_tuple();
  void fresh_tuple_end(std::size_t len);
  bool fresh_tuple_needs_mark(std::size_t len) const { return !(proto_ >= 2 && len <= 3); }
  void save_bytes_reduce(std::string_view data, const Node* self);
  void save_python2_str(std::string_view data);
  inline void save_bytes(const Node* n);
  [[gnu::always_inline]] inline void save_bytearray(const Node* n);
  [[gnu::always_inline]] inline void save_picklebuffer(const Node* n);
  inline bool flat_candidate(const Node* n, std::size_t entries) const;
  [[gnu::always_inline]] inline bool whole_fits(std::size_t atoms) const;
  [[gnu::always_inline]] inline void open_marked(Op empty, MemoId* memo);
  template <Kind K>
  [[gnu::always_inline]] inline void open_empty();
  template <Kind K>
  [[gnu::always_inline]] inline void save_entries(const Node* n, std::size_t i);
  template <Kind K>
  void save_list_or_dict_as(const Node* n, MemoId* memo);
  template <Kind K>
  [[gnu::always_inline]] inline bool write_flat_whole(const Node* n, MemoId* memo,
                                                      std::size_t& stopped_at);
  [[gnu::always_inline]] inline bool save_flat_here(const Node* n);
  template <Kind K>
  [[gnu::always_inline]] inline bool save_flat_here_as(const Node* n);
  [[gnu::noinline]] void save_flat_rest(const Node* n, std::size_t i);
  template <Kind K>
  [[gnu::always_inline]] inline void batches_from(const Node* n, std::size_t i);
  void fresh_dict(const Node* n);
  [[gnu::always_inline]] inline void save_set(const Node* n);
  [[gnu::always_inline]] inline void save_frozenset(const Node* n);
  void frozenset_end(const Node* n);
  void set_reduce(const Node* n, std::string_view type_name);
  void set_reduce_end(const Node* n);
  [[gnu::always_inline]] inline void save_tuple(const Node* n);
  void tuple_end(const Node* n);
  [[gnu::always_inline]] inline void save_pers(const Node* n);

  // ---- globals (encoder_globals.cpp) ----
  void save_global(std::string_view module, std::string_view qualname);
  void emit_global(std::string_view module, std::string_view qualname);
  void global_text(std::string_view module, std::string_view name);
  void save_nested_unmemoized(std::string_view module, std::string_view qualname);
  void save_synthetic_str(std::string_view utf8);
  using StrMemo = NameMemo<std::string_view>;
  void save_str_memoized_in(StrMemo& memo, std::string_view s);
  void save_interned(std::string_view s);
  void save_interned_value(std::string_view s, MemoId* slot);
  void save_module_name_object(std::string_view module);

  // ---- reduce (encoder_reduce.cpp) ----
  types::Lowering& lowering();
  void save_object(const Node* n);
  static bool is_class_ref(const Node* cls);
  void save_extension(std::int64_t code);
  void newobj_ex_fallback(const Node* cls, const Node* cargs, const Node* kwargs);
  void reduce_end(const Node* n);

  const EncodeOptions& options_;
  std::string& out_;
  std::vector<const Node*>& buffers_;
  const int proto_;
  const bool bin_;
  std::size_t depth_ = 0;
  int direct_depth_ = 0;  // save_now() calls under way
  // The first empty frozenset written, where the target keeps one
  // (empty_frozenset_singleton): later ones are written as it.
  const Node* empty_frozenset_ = nullptr;
  MemoId memo_size_ = 0;
  PodStack<Task>& stack_;
  NodeMemo* node_memo_;
  NameMemo<GlobalName> global_memo_;
  StrMemo interned_memo_;
  StrMemo c_module_memo_;
  std::unique_ptr<types::Lowering> lowering_;
};

}  // namespace serialcheck::pickle::encoder_internal
