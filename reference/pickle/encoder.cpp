// The pickle encoder: encode() and save() with the save_* of each kind,
// the reduce forms old protocols give bytes, bytearray and sets included. It
// mirrors the control flow of CPython 3.11's C pickler (Modules/_pickle.c:
// save(), save_reduce(), batch_list_exact()...) step by step, because byte
// identity depends on details such as where a frame may be cut (only when
// save() starts), which objects are memoized (also the temporary tuples,
// lists and strings the C pickler builds for old protocols) and in which
// order. internal/encoder_state.h says where the other parts live.
//
// This file holds save()'s hot loop: the main task loop and the item loops
// (encoder_tasks.h), the atom runs (encoder_atoms.h) and the memo
// (encoder_memo.h) are inline here, as they were when the encoder was one
// file.
#include "reference/pickle/encoder.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "reference/common/utf8.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/internal/encoder_atoms.h"
#include "reference/pickle/internal/encoder_memo.h"
#include "reference/pickle/internal/encoder_state.h"
#include "reference/pickle/internal/encoder_tasks.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/pod_stack.h"
#include "reference/pickle/scratch_pool.h"
#include "reference/pickle/text.h"
#include "reference/pickle/writer.h"
#include "reference/types/domain.h"
#include "reference/value/numeric.h"

namespace serialcheck::pickle {
namespace encoder_internal {
namespace {

// CPython refuses int -> str conversions beyond this many digits (3.11's
// sys.get_int_max_str_digits() default), which protocols 0 and 1 need.
constexpr std::size_t kMaxStrDigits = 4300;

// `data` decoded as latin-1 (a code point per byte), as UTF-8.
std::string latin1_to_utf8(std::string_view data) {
  std::string s;
  s.reserve(data.size() + data.size() / 4);
  for (char c : data) append_utf8(s, static_cast<unsigned char>(c));
  return s;
}

// Decimal text of an int node; "" with `too_long` set when CPython would
// refuse the conversion.
std::string int_decimal(const Node* n, bool& too_long) {
  too_long = false;
  if (!n->big) return std::to_string(n->small());
  // A minimal payload of k bytes has at least (8k - 9) * log10(2) digits, so
  // past 1800 bytes the limit is always exceeded: refuse without converting.
  if (n->payload().size() > 1800) {
    too_long = true;
    return {};
  }
  std::string s = twos_le_to_decimal(n->payload());
  std::size_t digits = s.size() - (!s.empty() && s[0] == '-' ? 1 : 0);
  if (digits > kMaxStrDigits) {
    too_long = true;
    return {};
  }
  return s;
}

// The encoder's working memory, kept by the thread between calls
// (scratch_pool.h): the memo, the task stack and the output buffer. An output
// buffer larger than kKeepBytes is freed after its call, not kept.
struct Scratch {
  static constexpr std::size_t kKeepBytes = std::size_t{1} << 20;
  NodeMemo memo;
  PodStack<Task> tasks;
  OutputBuffer out;

  void reset() {
    memo.clear();
    tasks.clear();
    if (out.capacity > kKeepBytes) {
      out.data.reset();
      out.capacity = 0;
    }
  }
  bool worth_keeping() const { return true; }
};

// An opcode and the size of the payload after it, little-endian in `width`
// bytes.
class CountedHeader {
 public:
  CountedHeader(Op o, std::size_t size, int width) : len_(1 + static_cast<std::size_t>(width)) {
    bytes_[0] = op(o);
    for (int i = 0; i < width; ++i) bytes_[1 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
  }
  std::string_view view() const { return {bytes_, len_}; }

 private:
  char bytes_[9];
  std::size_t len_;
};

}  // namespace

void Encoder::run(const Node* root) {
  // Two compares for the default target, which small dumps pay on every call.
  const PythonTarget& target = options_.target;
  if (target.minor != PythonTarget::default_target().minor || target.flipped != 0) {
    apply_target();
  } else if (proto_ > kHighestProtocol) {
    fail("pickle protocol must be <= " + std::to_string(kHighestProtocol));
  }
  reserve(initial_capacity(root));
  buffers_.clear();
  if (proto_ >= 2) {
    char header[2] = {op(Op::PROTO), static_cast<char>(proto_)};
    write(std::string_view(header, 2));
    set_framing(proto_ >= 4);
  }
  dispatch(root);
  run_tasks_down_to(0);
  put(op(Op::STOP));
  commit_frame();
  set_framing(false);
  finish(out_);
}

// Another target than 3.11: its highest protocol and its framing.
void Encoder::apply_target() {
  const PythonTarget& target = options_.target;
  if (proto_ > target.highest_protocol()) {
    fail("pickle protocol must be <= " + std::to_string(target.highest_protocol()));
  }
  set_frame_rules(target.frames_tiny_frames(), target.frames_large_payloads());
}

void Encoder::fail(std::string message) {
  throw PickleError(ErrorKind::Unpicklable, offset(), std::move(message));
}

std::size_t Encoder::initial_capacity(const Node* root) {
  if (root != nullptr) {
    switch (root->kind) {
      case Kind::Str:
      case Kind::Bytes:
      case Kind::ByteArray:
      case Kind::PickleBuffer:
        // A large payload is not copied into the buffer (write_payload).
        if (root->payload().size() < kFrameSizeTarget) return root->payload().size() + 64;
        break;
      default: break;
    }
  }
  return 4096;
}

// Saves `n` (whose save may push tasks) completely, now: dispatches it,
// then runs the tasks it pushed, down to where the stack was. Those are
// exactly the tasks the main loop would run next, in the same order, so
// the bytes are the same as pushing `n` and its caller's continuation;
// but the caller's item loop goes on in place instead of being resumed
// from the stack, which for short containers cost more than their items.
// Direct saves nest at most kDirectDepth deep (a little C++ stack each);
// deeper values go through the task stack as before.
void Encoder::save_now(const Node* n) {
  const std::size_t mark = stack_.size();
  ++direct_depth_;
  // dispatch()'s first case, without its call: most items that get here
  // are lists and dicts.
  if (n->kind == Kind::List || n->kind == Kind::Dict) {
    boundary();
    save_list_or_dict(n);
  } else {
    dispatch(n);
  }
  run_tasks_down_to(mark);
  --direct_depth_;
}

// ---- save() ------------------------------------------------------------------
// save(): the frame boundary, the memo, then the kind's save_*.
void Encoder::dispatch(const Node* n) {
  if (n == nullptr) fail("null node in the value");
  // Lists and dicts first: the item loops write the atoms themselves, so
  // most of what reaches here is a container.
  if (n->kind == Kind::List || n->kind == Kind::Dict) {
    boundary();
    save_list_or_dict(n);
    return;
  }
  // A domain node is written as the reduce its Python type returns.
  if (is_domain(n->kind)) n = lowering().lower(n);
  boundary();
  switch (n->kind) {
    case Kind::None: put(op(Op::NONE)); return;
    case Kind::Bool: save_bool(n->flag); return;
    case Kind::Int:
      if (fits_binint(n)) {
        put_binint(static_cast<std::int32_t>(n->small()));  // the common case
      } else {
        save_int(n);
      }
      return;
    case Kind::Float: save_float(n->f); return;
    case Kind::PersId: save_pers(n); return;
    case Kind::Global: emit_global(n->payload(), n->name()); return;
    default: break;
  }
  if (n->kind == Kind::Str) {
    save_str(n);
    return;
  }
  if (MemoId idx = find_memo(n); idx != kNoMemo) {
    memo_get(idx);
    return;
  }
  switch (n->kind) {
    case Kind::Bytes: save_bytes(n); return;
    case Kind::ByteArray: save_bytearray(n); return;
    case Kind::PickleBuffer: save_picklebuffer(n); return;
    case Kind::Tuple: save_tuple(n); return;
    case Kind::Set: save_set(n); return;
    case Kind::FrozenSet: save_frozenset(n); return;
    case Kind::Object: save_object(n); return;
    default: fail("cannot pickle a node of kind " + std::string(kind_name(n->kind)));
  }
}

[[gnu::always_inline]] void Encoder::save_list_or_dict(const Node* n) {
  // Looked up and added in one probe; memoized right after the opcode
  // that makes the empty container, before any other memo entry.
  MemoId* slot = node_memo_->find_or_add(n);
  if (*slot != kNoMemo) {
    memo_get(*slot);
    return;
  }
  if (n->kind == Kind::List) {
    save_list_or_dict_as<Kind::List>(n, slot);
  } else {
    save_list_or_dict_as<Kind::Dict>(n, slot);
  }
}

void Encoder::save_bool(bool v) {
  if (proto_ >= 2) {
    put(v ? op(Op::NEWTRUE) : op(Op::NEWFALSE));
  } else {
    write(v ? "I01\n" : "I00\n");
  }
}

void Encoder::save_int(const Node* n) {
  std::int64_t v = n->small();
  bool fits64 = !n->big;
  if (n->big && n->payload().size() <= 8) fits64 = twos_le_to_int64(n->payload(), v);
  if (fits64 && v >= INT32_MIN && v <= INT32_MAX) {
    if (bin_) {
      put_binint(static_cast<std::int32_t>(v));
    } else if (!options_.target.ints_as_long_at_protocol_0()) {
      put(op(Op::INT));
      put_decimal(v);
      put('\n');
    } else {
      put(op(Op::LONG));
      put_decimal(v);
      write("L\n");
    }
    return;
  }
  if (proto_ >= 2 && fits64) {
    // LONG1 and the minimal two's-complement bytes, 5 to 8 of them (the
    // value is past int32): the bits of the magnitude and a sign bit.
    const auto u = static_cast<std::uint64_t>(v);
    const int bits = 65 - std::countl_zero(v < 0 ? ~u : u);
    const auto size = static_cast<std::size_t>((bits + 7) / 8);
    put_word(static_cast<std::uint8_t>(op(Op::LONG1)) | std::uint64_t{size} << 8, 2);
    reserve(8);
    store_word(cur_, u);
    cur_ += size;
    return;
  }
  if (proto_ >= 2) {
    // A payload of more than 8 bytes (twos_le_to_int64 took the others),
    // made minimal if it was built by hand.
    std::string bytes;
    std::string_view le = n->payload();
    std::size_t k = le.size();
    auto top = static_cast<unsigned char>(le[k - 1]);
    bool below_neg = (static_cast<unsigned char>(le[k - 2]) & 0x80) != 0;
    if ((top == 0 && !below_neg) || (top == 0xff && below_neg)) {
      bytes = minimal_twos_le(le);  // a hand-made, non-minimal payload
      le = bytes;
    }
    if (le.size() < 256) {
      char h[2] = {op(Op::LONG1), static_cast<char>(le.size())};
      write(std::string_view(h, 2));
    } else {
      if (le.size() > 0x7fffffffu) fail("int too large to pickle");
      put(op(Op::LONG4));
      put_le(le.size(), 4);
    }
    write(le);
    return;
  }
  bool too_long = false;
  std::string text = fits64 ? std::to_string(v) : int_decimal(n, too_long);
  if (too_long) {
    fail("Exceeds the limit (4300 digits) for integer string conversion");
  }
  put(op(Op::LONG));
  write(text);
  write("L\n");
}

void Encoder::save_float(double d) {
  if (bin_) {
    auto bits = std::bit_cast<std::uint64_t>(d);
    char b[9];
    b[0] = op(Op::BINFLOAT);
    for (int i = 0; i < 8; ++i) b[1 + i] = static_cast<char>((bits >> (8 * (7 - i))) & 0xff);
    write(std::string_view(b, 9));
  } else {
    put(op(Op::FLOAT));
    write(float_repr(d));
    put('\n');
  }
}

// save_unicode without the memo: UTF-8 (surrogatepass) in binary protocols,
// raw-unicode-escape text at protocol 0.
void Encoder::save_str_data(std::string_view utf8, bool stable) {
  if (!bin_) {
    put(op(Op::UNICODE));
    write(raw_unicode_escape_encode(utf8, options_.target.escapes_cr_nul_sub_in_text()));
    put('\n');
    return;
  }
  save_counted(utf8, stable, proto_ >= 4, {Op::SHORT_BINUNICODE, Op::BINUNICODE, Op::BINUNICODE8},
               "a string");
}

// _save_bytes_data without the memo (protocol >= 3, and in-band buffers).
void Encoder::save_bytes_data(std::string_view data, bool stable) {
  save_counted(data, stable, true, {Op::SHORT_BINBYTES, Op::BINBYTES, Op::BINBYTES8},
               "a bytes object");
}

// The opcode of a payload and its size, as _save_bytes_data and
// save_unicode choose them: the 1-byte size when `short_size` allows it,
// else the 4-byte one, else (from protocol 4) the 8-byte one.
void Encoder::save_counted(std::string_view data, bool stable, bool short_size,
                           const CountedOps& ops, const char* what) {
  const std::size_t size = data.size();
  // The commonest case (a global's names, a short bytes), written in place:
  // with fast_room, write_payload() would open no frame and not grow.
  if (size <= 0xff && short_size && fast_room(size + 8)) [[likely]] {
    store_word(cur_, static_cast<std::uint8_t>(op(ops.size1)) | std::uint64_t{size} << 8);
    copy_bytes(cur_ + 2, data.data(), size);
    cur_ += size + 2;
    return;
  }
  if (size <= 0xff && short_size) {
    write_payload(CountedHeader(ops.size1, size, 1).view(), data, stable);
  } else if (size <= 0xffffffffu) {
    write_payload(CountedHeader(ops.size4, size, 4).view(), data, stable);
  } else if (proto_ >= 4) {
    write_payload(CountedHeader(ops.size8, size, 8).view(), data, stable);
  } else {
    fail(std::string("serializing ") + what +
         " larger than 4 GiB requires pickle protocol 4 or higher");
  }
}

void Encoder::save_bytearray_data(std::string_view data, bool stable) {
  write_payload(CountedHeader(Op::BYTEARRAY8, data.size(), 8).view(), data, stable);
}

// save(()) body: EMPTY_TUPLE, or MARK TUPLE at protocol 0. Never memoized.
void Encoder::save_empty_tuple() {
  if (bin_) {
    put(op(Op::EMPTY_TUPLE));
  } else {
    put(op(Op::MARK));
    put(op(Op::TUPLE));
  }
}

// The end of a temporary tuple whose items were saved: TUPLEn or TUPLE
// (after a MARK written by the caller), then its memo slot.
void Encoder::fresh_tuple_end(std::size_t len) {
  if (proto_ >= 2 && len <= 3) {
    put(static_cast<char>(op(Op::TUPLE1) + static_cast<char>(len - 1)));
  } else {
    put(op(Op::TUPLE));
  }
  memo_fresh();
}

// save_bytes below protocol 3: reduce to bytes() or
// _codecs.encode(<the bytes decoded as latin-1>, 'latin1'). `self` is the
// node to memoize, or nullptr for a temporary bytes object.
void Encoder::save_bytes_reduce(std::string_view data, const Node* self) {
  if (data.empty()) {
    save_global("builtins", "bytes");
    boundary();
    save_empty_tuple();
  } else {
    save_global("_codecs", "encode");
    boundary();
    if (proto_ < 2) put(op(Op::MARK));
    save_synthetic_str(latin1_to_utf8(data));
    save_interned("latin1");
    fresh_tuple_end(2);
  }
  put(op(Op::REDUCE));
  if (self != nullptr) {
    memo_put_node(self);
  } else {
    memo_fresh();
  }
}

// Python 2's save_string: BINSTRING forms in binary protocols, else STRING
// with the str's repr (quoted with ', every byte outside printable ASCII, a
// quote and a backslash escaped).
void Encoder::save_python2_str(std::string_view data) {
  if (bin_) {
    save_counted(data, true, true, {Op::SHORT_BINSTRING, Op::BINSTRING, Op::BINSTRING},
                 "a Python 2 str");
    return;
  }
  std::string text = "'";
  for (const char ch : data) {
    const auto b = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '\'') {
      text += '\\';
      text += ch;
    } else if (b < 0x20 || b >= 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      text += "\\x";
      text += kHex[b >> 4];
      text += kHex[b & 0xf];
    } else {
      text += ch;
    }
  }
  text += '\'';
  put(op(Op::STRING));
  write(text);
  put('\n');
}

void Encoder::save_bytes(const Node* n) {
  if (proto_ >= 3) {
    save_bytes_data(n->payload(), true);
    memo_put_node(n);
  } else if (options_.python2_strs) {
    save_python2_str(n->payload());
    memo_put_node(n);
  } else {
    save_bytes_reduce(n->payload(), n);
  }
}

// Below protocol 5 a bytearray reduces to bytearray() or
// bytearray(<a new bytes object>).
void Encoder::save_bytearray(const Node* n) {
  std::string_view data = n->payload();
  if (proto_ >= 5) {
    save_bytearray_data(data, true);
    memo_put_node(n);
    return;
  }
  save_global("builtins", "bytearray");
  boundary();
  if (data.empty()) {
    save_empty_tuple();
  } else {
    if (proto_ < 2) put(op(Op::MARK));
    boundary();
    if (proto_ >= 3) {
      save_bytes_data(data, true);
      memo_fresh();
    } else {
      save_bytes_reduce(data, nullptr);
    }
    fresh_tuple_end(1);
  }
  put(op(Op::REDUCE));
  memo_put_node(n);
}

void Encoder::save_picklebuffer(const Node* n) {
  if (proto_ < 5) fail("PickleBuffer can only be pickled with protocol >= 5");
  bool in_band = !options_.buffer_callback || options_.buffer_callback(*n);
  if (in_band) {
    if (n->flag) {
      save_bytes_data(n->payload(), true);
    } else {
      save_bytearray_data(n->payload(), true);
    }
    memo_put_node(n);
    return;
  }
  put(op(Op::NEXT_BUFFER));
  if (n->flag) put(op(Op::READONLY_BUFFER));
  buffers_.push_back(n);
}

[[gnu::always_inline]] void Encoder::open_marked(Op empty, MemoId* memo) {
  if (proto_ >= 4) {
    *memo = next_memo_id();
    put_word(opened_marked(empty), 3);
  } else {
    put(op(empty));
    *memo = memo_put_op();
    put(op(Op::MARK));
  }
}

// List or dict `n`'s batches from entry `i` on, after its opening, its
// memo and whatever run of atoms came first.
template <Kind K>
void Encoder::batches_from(const Node* n, std::size_t i) {
  using Shape = ListOrDict<K>;
  enter_batches(n, Shape::kStep, typename Shape::View{n->items}, i, op(Shape::kBatch),
                Shape::kTrailing);
}

// save_list and save_dict. `memo`: the node's memo slot
// (NodeMemo::find_or_add), to be set now.
template <Kind K>
void Encoder::save_list_or_dict_as(const Node* n, MemoId* memo) {
  using Shape = ListOrDict<K>;
  using View = typename Shape::View;
  constexpr std::size_t kWidth = Shape::kWidth;
  if (K == Kind::Dict && n->items.size() % 2 != 0) fail("dict node with an odd number of items");
  if (const std::size_t size = n->items.size() / kWidth; flat_candidate(n, size)) {
    std::size_t i;
    if (whole_fits(kWidth * size)) {
      if (write_flat_whole<K>(n, memo, i)) return;  // its closing opcode written
    } else {
      open_marked(Shape::kEmpty, memo);
      i = run_of_atoms(View{n->items}, 0, size);
    }
    if (i == size) {
      put(op(Shape::kBatch));
      return;
    }
    batches_from<K>(n, i);
    return;
  }
  if (proto_ >= 4 && n->items.size() >= 2 * kWidth && depth_ < options_.max_depth) {
    // What the lines below write, with the three opening opcodes as one
    // store (enter_container() cannot fail here): two entries or more open
    // with MARK.
    open_marked(Shape::kEmpty, memo);
    batches_from<K>(n, 0);
    return;
  }
  open_empty<K>();
  *memo = memo_put_op();
  if (n->items.empty()) return;
  enter_container();
  save_entries<K>(n, 0);
}

// What save_list_or_dict_as() writes after a run of atoms that stopped
// before the end of list or dict `n`, at entry `i`: the rest of its
// batches, as save_now() would run them (save_flat_here()'s slow end).
void Encoder::save_flat_rest(const Node* n, std::size_t i) {
  const std::size_t mark = stack_.size();
  ++direct_depth_;
  if (n->kind == Kind::List) {
    batches_from<Kind::List>(n, i);
  } else {
    batches_from<Kind::Dict>(n, i);
  }
  run_tasks_down_to(mark);
  --direct_depth_;
}

// A temporary dict holding the items of dict node `n` (the keywords a
// functools.partial keeps).
void Encoder::fresh_dict(const Node* n) {
  boundary();
  put(op(Op::EMPTY_DICT));
  memo_fresh();
  if (n->items.empty()) return;
  save_entries<Kind::Dict>(n, 0);  // batch_dict_exact: protocols 2 and 3 only
}

void Encoder::save_set(const Node* n) {
  if (proto_ < 4) {
    set_reduce(n, "set");
    return;
  }
  put(op(Op::EMPTY_SET));
  memo_put_node(n);
  if (n->items.empty()) return;
  enter_container();
  exact_batches(n, Step::kSetBatch, SeqView{n->items}, 0, 0, op(Op::ADDITEMS), false, true);
}

void Encoder::save_frozenset(const Node* n) {
  // Only a frozenset not in the memo gets here: for a target whose empty
  // frozenset is a singleton, another empty one is the first, memoized.
  if (n->items.empty() && options_.target.empty_frozenset_singleton()) {
    if (empty_frozenset_ == nullptr) {
      empty_frozenset_ = n;
    } else if (MemoId idx = find_memo(empty_frozenset_); idx != kNoMemo) {
      memo_get(idx);
      return;
    }
  }
  if (proto_ < 4) {
    set_reduce(n, "frozenset");
    return;
  }
  put(op(Op::MARK));
  enter_container();
  push(n, 0, Step::kFrozenSetEnd);
  items(n, SeqView{n->items}, 0);
}

void Encoder::frozenset_end(const Node* n) {
  if (MemoId idx = find_memo(n); idx != kNoMemo) {
    put(op(Op::POP_MARK));
    memo_get(idx);
    return;
  }
  put(op(Op::FROZENSET));
  memo_put_node(n);
}

// Below protocol 4: reduce (set, ([items],)) or (frozenset, ([items],)).
void Encoder::set_reduce(const Node* n, std::string_view type_name) {
  save_global("builtins", type_name);
  boundary();  // the argument tuple
  if (proto_ < 2) put(op(Op::MARK));
  boundary();  // the list
  open_empty<Kind::List>();
  memo_fresh();
  enter_container();
  push(n, 0, Step::kSetReduceEnd);
  if (n->items.empty()) return;
  save_entries<Kind::List>(n, 0);
}

void Encoder::set_reduce_end(const Node* n) {
  fresh_tuple_end(1);
  put(op(Op::REDUCE));
  if (MemoId idx = find_memo(n); idx != kNoMemo) {
    put(op(Op::POP));
    memo_get(idx);
    return;
  }
  memo_put_node(n);
}

void Encoder::save_tuple(const Node* n) {
  if (n->items.empty()) {
    save_empty_tuple();
    return;
  }
  enter();
  if (!(proto_ >= 2 && n->items.size() <= 3)) put(op(Op::MARK));
  const std::size_t mark = stack_.size();
  if (items(n, SeqView{n->items}, 0)) {
    // Written in place: the end follows now, as its task would have.
    tuple_end(n);
    --depth_;
    return;
  }
  // The items left tasks to finish them: the end and the leave run after
  // those, so they go beneath.
  stack_.insert_at(mark, Task{nullptr, 0, Step::kLeave, 0}, Task{n, 0, Step::kTupleEnd, 0});
}

// The tuple may have been memoized while its items were saved (it is
// recursive): then drop what was pushed and fetch it from the memo.
void Encoder::tuple_end(const Node* n) {
  const std::size_t len = n->items.size();
  const bool short_form = proto_ >= 2 && len <= 3;
  // Looked up and added in one probe (a tuple is no singleton); the slot
  // is set right after the opcode, before any other memo entry.
  MemoId* slot = node_memo_->find_or_add(n);
  if (const MemoId idx = *slot; idx != kNoMemo) {
    if (short_form) {
      for (std::size_t i = 0; i < len; ++i) put(op(Op::POP));
    } else if (bin_) {
      put(op(Op::POP_MARK));
    } else {
      for (std::size_t i = 0; i <= len; ++i) put(op(Op::POP));
    }
    memo_get(idx);
    return;
  }
  if (short_form && proto_ >= 4) {
    *slot = next_memo_id();  // TUPLEn and MEMOIZE in one store
    put_word(static_cast<std::uint8_t>(op(Op::TUPLE1) + static_cast<char>(len - 1)) |
                 std::uint64_t{static_cast<std::uint8_t>(op(Op::MEMOIZE))} << 8,
             2);
    return;
  }
  if (short_form) {
    put(static_cast<char>(op(Op::TUPLE1) + static_cast<char>(len - 1)));
  } else {
    put(op(Op::TUPLE));
  }
  *slot = memo_put_op();
}

// ---- persistent ids ----------------------------------------------------------
void Encoder::save_pers(const Node* n) {
  if (n->items.size() != 1 || n->items[0] == nullptr) fail("persid node without a pid");
  const Node* pid = n->items[0];
  if (pid->kind == Kind::PersId) fail("a persistent id cannot itself be a persid node");
  if (bin_) {
    if (is_inline(pid)) {
      dispatch(pid);
      put(op(Op::BINPERSID));
    } else {
      push_op(Op::BINPERSID);
      push_save(pid);
    }
    return;
  }
  // Protocol 0 writes str(pid), which must be ASCII.
  std::string text;
  switch (pid->kind) {
    case Kind::Str: text = std::string(pid->payload()); break;
    case Kind::Int: {
      bool too_long = false;
      text = int_decimal(pid, too_long);
      if (too_long) fail("Exceeds the limit (4300 digits) for integer string conversion");
      break;
    }
    case Kind::Bool: text = pid->flag ? "True" : "False"; break;
    case Kind::Float: text = float_repr(pid->f); break;
    default:
      fail("persistent id of kind " + std::string(kind_name(pid->kind)) +
           " cannot be written at protocol 0");
  }
  if (!is_ascii(text)) fail("persistent IDs in protocol 0 must be ASCII strings");
  // PERSID ends at the first newline. CPython's pickler writes such a pid
  // anyway, and its own unpickler then fails on the rest of the line; the
  // reference refuses to write a pickle nobody can read.
  if (text.find('\n') != std::string::npos) {
    fail("persistent IDs in protocol 0 must not contain a newline");
  }
  put(op(Op::PERSID));
  write(text);
  put('\n');
}

}  // namespace encoder_internal

EncodeResult encode(const Node* root, const EncodeOptions& options) {
  using encoder_internal::Encoder;
  using encoder_internal::Scratch;
  EncodeResult result;
  Pooled<Scratch> scratch;
  Encoder encoder(options, result, (*scratch).memo, (*scratch).tasks, (*scratch).out);
  encoder.run(root);
  if (!result.buffers.empty()) result.lowered = encoder.take_lowered();
  return result;
}

}  // namespace serialcheck::pickle
