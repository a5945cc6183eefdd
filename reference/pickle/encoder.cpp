// The pickle encoder. It mirrors the control flow of CPython 3.11's C pickler
// (Modules/_pickle.c: save(), save_reduce(), batch_list_exact()...) step by
// step, because byte identity depends on details such as where a frame may
// be cut (only when save() starts), which objects are memoized (also the
// temporary tuples, lists and strings the C pickler builds for old
// protocols) and in which order.
//
// The walk is iterative: containers push continuation tasks on an explicit
// stack instead of recursing, so nesting depth costs heap, not C++ stack.
//
// Identity rules, as CPython's object identity plays out for the model:
//  - nodes are memoized by address; globals by (module, qualname);
//  - '' and one-character latin-1 strs, b'' and one-byte bytes are
//    singletons in CPython, so those nodes are memoized by value;
//  - the module names and qualnames STACK_GLOBAL writes are interned strs
//    or new ones depending on where the global comes from (see origin_of);
//    interned strs, 'latin1' among them, are memoized by value;
//  - temporary objects (argument tuples of reduce, the list a set is reduced
//    to, the str inside codecs.encode(...)) take a memo slot but can never be
//    fetched again.
#include "reference/pickle/encoder.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/pickle/compat.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/extension.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/pod_stack.h"
#include "reference/pickle/scratch_pool.h"
#include "reference/pickle/text.h"
#include "reference/types/domain.h"
#include "reference/value/numeric.h"

namespace serialcheck::pickle {
namespace {

constexpr std::size_t kFrameHeaderSize = 9;
// A memo index. The memo of one pickle never reaches 2**32 - 1 entries (each
// is a node of at least 100 bytes); memo_put_op() fails rather than wrap.
using MemoId = std::uint32_t;
constexpr MemoId kNoMemo = static_cast<MemoId>(-1);
// CPython refuses int -> str conversions beyond this many digits (3.11's
// sys.get_int_max_str_digits() default), which protocols 0 and 1 need.
constexpr std::size_t kMaxStrDigits = 4300;

constexpr char op(Op o) {
  return static_cast<char>(o);
}

// `empty` (EMPTY_LIST or EMPTY_DICT), MEMOIZE and MARK as one word for
// store_word: protocol 4's opening of a container written in batches.
constexpr std::uint64_t opened_marked(Op empty) {
  return static_cast<std::uint8_t>(op(empty)) |
         std::uint64_t{static_cast<std::uint8_t>(op(Op::MEMOIZE))} << 8 |
         std::uint64_t{static_cast<std::uint8_t>(op(Op::MARK))} << 16;
}

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
  kListExact,       // batch_list_exact over node->items
  kListEach,        // protocol 0 list: item APPEND, ...
  kDictExact,       // batch_dict_exact over node->items
  kDictEach,        // protocol 0 dict: key value SETITEM, ...
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

using Entry = std::pair<const Node*, const Node*>;

struct SeqView {
  const std::vector<Node*>& v;
  std::size_t size() const { return v.size(); }
  const Node* at(std::size_t i) const { return v[i]; }
};

struct InterleavedView {  // Dict items: key0, value0, key1, value1...
  const std::vector<Node*>& v;
  std::size_t size() const { return v.size() / 2; }
  Entry at(std::size_t i) const { return {v[2 * i], v[2 * i + 1]}; }
};

struct PairView {  // ObjectParts::dictitems
  const std::vector<std::pair<Node*, Node*>>& v;
  std::size_t size() const { return v.size(); }
  Entry at(std::size_t i) const { return {v[i].first, v[i].second}; }
};

// Kinds whose save never pushes tasks: they can be written in place.
bool is_inline(const Node* n) {
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
bool is_inline(Entry e) {
  return is_inline(e.first) && is_inline(e.second);
}

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

int bytes_singleton_slot(std::string_view data) {
  if (data.empty()) return 256;
  if (data.size() == 1) return static_cast<unsigned char>(data[0]);
  return -1;
}

std::string latin1_to_utf8(std::string_view data) {
  std::string s;
  s.reserve(data.size() + data.size() / 4);
  for (char c : data) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      s.push_back(c);
    } else {
      s.push_back(static_cast<char>(0xc0 | (b >> 6)));
      s.push_back(static_cast<char>(0x80 | (b & 0x3f)));
    }
  }
  return s;
}

// Decimal text of an int node; "" with `too_long` set when CPython would
// refuse the conversion.
std::string int_decimal(const Node* n, bool& too_long) {
  too_long = false;
  if (!n->big) return std::to_string(n->small);
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

// Where a global comes from decides which str objects STACK_GLOBAL writes,
// hence what the memo shares:
//  - Python classes and functions: module name and qualname are interned;
//  - C types: the module name is interned (type.__module__ interns it), the
//    qualname is a new str each time;
//  - C functions: the module name is the module's own __name__ object, which
//    for a C module is not the interned str (so builtins.len and builtins.dict
//    write 'builtins' twice), and the name is a new str each time.
// The model holds names only, so C origins come from this table of common
// cases (CPython 3.11); everything else is taken to be defined in Python.
enum class Origin { kPython, kCType, kCFunction };

// The functions of builtins (CPython 3.11); its other names are C types or
// singletons (Ellipsis...), which behave alike here.
constexpr std::string_view kBuiltinFunctions =
    "__build_class__ __import__ abs aiter all anext any ascii bin breakpoint callable chr "
    "compile delattr dir divmod eval exec format getattr globals hasattr hash hex id input "
    "isinstance issubclass iter len locals max min next oct ord pow print repr round setattr "
    "sorted sum vars ";

struct CType {
  std::string_view module, qualname;
};
constexpr CType kCTypes[] = {
    {"datetime", "date"},           {"datetime", "datetime"}, {"datetime", "time"},
    {"datetime", "timedelta"},      {"datetime", "tzinfo"},   {"datetime", "timezone"},
    {"collections", "OrderedDict"}, {"collections", "deque"}, {"collections", "defaultdict"},
    {"decimal", "Decimal"},         {"decimal", "Context"},   {"array", "array"},
};

Origin origin_of(std::string_view module, std::string_view qualname) {
  if (module == "builtins") {
    // A whole space-separated word of the list.
    for (std::size_t at = kBuiltinFunctions.find(qualname); at != std::string_view::npos;
         at = kBuiltinFunctions.find(qualname, at + 1)) {
      std::size_t end = at + qualname.size();
      if ((at == 0 || kBuiltinFunctions[at - 1] == ' ') &&
          (end == kBuiltinFunctions.size() || kBuiltinFunctions[end] == ' ')) {
        return Origin::kCFunction;
      }
    }
    return Origin::kCType;
  }
  for (const CType& t : kCTypes) {
    if (t.module == module && t.qualname == qualname) return Origin::kCType;
  }
  return Origin::kPython;
}

// The last dotted component of a qualified name.
std::string_view last_component(std::string_view qualname) {
  std::size_t dot = qualname.rfind('.');
  return dot == std::string_view::npos ? qualname : qualname.substr(dot + 1);
}

// The memo of nodes by identity: an open-addressing table of pointers whose
// storage outlives one encode. Clearing it bumps a generation instead of
// touching the slots, so a dumps of a few dozen objects neither allocates
// nor rehashes from empty (growing from empty was a quarter of the time of
// pyperformance's DICT_GROUP dumps). Each thread keeps a small pool, and an
// encode inside an encode (a tensor's storage stream) takes its own table.
class NodeMemo {
 public:
  // A table this large is not kept for the next call: probing it would touch
  // memory spread over more than the caches hold for a small pickle.
  static constexpr std::size_t kKeepSlots = std::size_t{1} << 14;

  void clear() {
    if (slots_.size() > kKeepSlots) {
      slots_ = {};
      mask_ = 0;
      limit_ = 0;
      generation_ = 1;
    } else if (++generation_ == 0) {  // wrapped: no stale slot may look current
      for (Slot& slot : slots_) slot.generation = 0;
      generation_ = 1;
    }
    size_ = 0;
  }

  MemoId find(const Node* key) const {
    if (slots_.empty()) return kNoMemo;
    for (std::size_t i = index(key);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.generation != generation_) return kNoMemo;
      if (slot.key == key) return slot.value;
    }
  }

  // The value slot of `key`, added (holding kNoMemo) when the key is new:
  // one probe for a lookup followed by an insert. The slot stays valid
  // until the next insert.
  [[gnu::always_inline]] MemoId* find_or_add(const Node* key) {
    if (size_ >= limit_) [[unlikely]] grow();
    Slot* slots = slots_.data();
    std::size_t i = index(key);
    while (slots[i].generation == generation_) {
      if (slots[i].key == key) return &slots[i].value;
      i = (i + 1) & mask_;
    }
    slots[i] = Slot{key, kNoMemo, generation_};
    ++size_;
    return &slots[i].value;
  }

  // Keeps the first value of a key put twice.
  void insert(const Node* key, MemoId value) {
    if (size_ >= limit_) grow();
    if (place(key, value)) ++size_;
  }

 private:
  struct Slot {  // 16 bytes: four to a cache line
    const Node* key = nullptr;
    MemoId value = 0;
    std::uint32_t generation = 0;
  };

  std::size_t index(const Node* key) const {
    const auto bits = reinterpret_cast<std::uintptr_t>(key);
    // Fibonacci hashing: the product's top bits, as many as the table has.
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  bool place(const Node* key, MemoId value) {
    std::size_t i = index(key);
    while (slots_[i].generation == generation_) {
      if (slots_[i].key == key) return false;
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{key, value, generation_};
    return true;
  }

  // Keeps the table at most half full.
  [[gnu::noinline]] void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    shift_ = 64 - std::countr_zero(slots_.size());
    limit_ = slots_.size() / 2;
    const std::uint32_t current = generation_;
    generation_ = 1;
    for (const Slot& slot : old) {
      if (slot.generation == current) place(slot.key, slot.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 63;  // 64 - log2(the slot count)
  std::size_t limit_ = 0;  // grow() before the size reaches it
  std::size_t size_ = 0;
  std::uint32_t generation_ = 1;
};

// The encoder's working memory, kept by the thread between calls
// (scratch_pool.h): the memo, the task stack and the output buffer. An output
// buffer larger than kKeepBytes is freed after its call, not kept.
struct Scratch {
  static constexpr std::size_t kKeepBytes = std::size_t{1} << 20;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  NodeMemo memo;
  PodStack<Task> tasks;
  std::unique_ptr<char, Free> buf;
  std::size_t cap = 0;

  void reset() {
    memo.clear();
    tasks.clear();
    if (cap > kKeepBytes) {
      buf.reset();
      cap = 0;
    }
  }
  bool worth_keeping() const { return true; }
};

class Encoder {
 public:
  Encoder(const EncodeOptions& options, EncodeResult& result)
      : options_(options),
        out_(result.bytes),
        buffers_(result.buffers),
        proto_(options.protocol < 0 ? kHighestProtocol : options.protocol),
        bin_(proto_ > 0) {}

  // The nodes domain values were lowered to: an out-of-band buffer of an
  // array is one of them, so the result keeps them alive. A Graph moves
  // without moving its nodes.
  std::shared_ptr<const Graph> take_lowered() {
    if (!lowering_) return nullptr;
    return std::make_shared<const Graph>(std::move(lowering_->scratch()));
  }

  void run(const Node* root) {
    if (proto_ > kHighestProtocol) {
      fail("pickle protocol must be <= " + std::to_string(kHighestProtocol));
    }
    reserve(initial_capacity(root));
    buffers_.clear();
    if (proto_ >= 2) {
      char header[2] = {op(Op::PROTO), static_cast<char>(proto_)};
      write(std::string_view(header, 2));
      framing_ = proto_ >= 4;
    }
    dispatch(root);
    run_tasks_down_to(0);
    put(op(Op::STOP));
    commit_frame();
    framing_ = false;
    // The result: the buffer, with the large payloads set aside by
    // write_payload() copied in at their places (their only copy).
    out_.clear();
    out_.reserve(len() + deferred_bytes_);
    std::size_t from = 0;
    for (const Deferred& d : deferred_) {
      out_.append(buf_ + from, d.at - from);
      out_.append(d.data);
      from = d.at;
    }
    out_.append(buf_ + from, len() - from);
  }

 private:
  // ---- errors -------------------------------------------------------------
  [[noreturn, gnu::noinline, gnu::cold]] void fail(std::string message) {
    throw PickleError(ErrorKind::Unpicklable, len() + deferred_bytes_, std::move(message));
  }

  void enter() {
    if (++depth_ > options_.max_depth) {
      throw PickleError(ErrorKind::LimitExceeded, len() + deferred_bytes_,
                        "nesting deeper than max_depth " + std::to_string(options_.max_depth));
    }
  }
  void enter_container() {
    enter();
    push(nullptr, 0, Step::kLeave);
  }

  static std::size_t initial_capacity(const Node* root) {
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

  // ---- output and framing (_Pickler_Write and friends) ----------------------
  // The pickle is built in a malloc'd buffer (the thread's, kept between
  // calls): bytes [buf_, cur_) are written, up to end_. A byte written is a
  // store; growing neither zero-fills (as resizing a std::string would) nor,
  // for large buffers, copies (realloc remaps). run() copies the result into
  // the std::string once.
  //
  // Opcodes and short arguments are written as one unaligned 8-byte store
  // (store_word) of which only the first bytes count; the buffer keeps 8
  // bytes of room for that. Such a store has the type of a 64-bit integer,
  // so unlike a char store it cannot alias the encoder's pointers and flags:
  // the compiler keeps them in registers across a run of opcodes.
  typedef std::uint64_t UnalignedWord __attribute__((aligned(1)));
  static_assert(std::endian::native == std::endian::little, "store_word stores little-endian words");
  [[gnu::always_inline]] static void store_word(char* at, std::uint64_t word) {
    *reinterpret_cast<UnalignedWord*>(at) = word;
  }

  std::size_t len() const { return static_cast<std::size_t>(cur_ - buf_); }
  [[gnu::always_inline]] void reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) grow(n);
  }
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t used = len();
    const std::size_t capacity = std::max(2 * static_cast<std::size_t>(end_ - buf_), used + n);
    const std::size_t frame_at = frame_ == nullptr ? 0 : static_cast<std::size_t>(frame_ - buf_);
    void* p = std::realloc(buf_, capacity);
    if (p == nullptr) throw std::bad_alloc();
    (*scratch_).buf.release();
    (*scratch_).buf.reset(static_cast<char*>(p));
    (*scratch_).cap = capacity;
    buf_ = static_cast<char*>(p);
    cur_ = buf_ + used;
    end_ = buf_ + capacity;
    if (frame_ != nullptr) frame_ = buf_ + frame_at;
  }
  [[gnu::always_inline]] void open_frame_if_needed() {
    if (framing_ && frame_ == nullptr) {
      reserve(kFrameHeaderSize);
      frame_ = cur_;
      cur_ += kFrameHeaderSize;
    }
  }
  [[gnu::always_inline]] void put(char c) { put_word(static_cast<std::uint8_t>(c), 1); }
  // Writes the low `n` (at most 8) bytes of `word`, first byte lowest.
  [[gnu::always_inline]] void put_word(std::uint64_t word, std::size_t n) {
    open_frame_if_needed();
    reserve(8);
    store_word(cur_, word);
    cur_ += n;
  }
  [[gnu::always_inline]] void write(std::string_view s) {
    open_frame_if_needed();
    reserve(s.size());
    if (!s.empty()) std::memcpy(cur_, s.data(), s.size());
    cur_ += s.size();
  }
  void put_le(std::uint64_t v, int n) {
    open_frame_if_needed();
    reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) cur_[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    cur_ += n;
  }
  void put_decimal(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    write(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  }

  [[gnu::noinline]] void commit_frame() {
    if (!framing_ || frame_ == nullptr) return;
    const std::size_t len = static_cast<std::size_t>(cur_ - frame_) - kFrameHeaderSize;
    if (len >= kFrameSizeMin) {
      frame_[0] = op(Op::FRAME);
      store_word(frame_ + 1, len);  // 8 bytes, little-endian
    } else {
      std::memmove(frame_, frame_ + kFrameHeaderSize, len);
      cur_ -= kFrameHeaderSize;
    }
    frame_ = nullptr;
  }

  // _Pickler_OpcodeBoundary: CPython calls it only at the start of save().
  // A frame is open only while framing.
  [[gnu::always_inline]] void boundary() {
    if (frame_ != nullptr &&
        static_cast<std::size_t>(cur_ - frame_) - kFrameHeaderSize >= kFrameSizeTarget) {
      commit_frame();
    }
  }

  // _Pickler_write_bytes: a payload of 64 KiB or more goes outside any frame.
  // A `stable` payload (a node's, which lives until run() returns) is then
  // not copied into the buffer: run() copies it once, straight into the
  // result. Others (text made on the fly) are copied now.
  void write_payload(std::string_view header, std::string_view data, bool stable) {
    if (data.size() >= kFrameSizeTarget) {
      commit_frame();
      bool framing = framing_;
      framing_ = false;
      write(header);
      if (stable) {
        deferred_.push_back(Deferred{len(), data});
        deferred_bytes_ += data.size();
      } else {
        write(data);
      }
      framing_ = framing;
    } else {
      // One reservation for both.
      open_frame_if_needed();
      reserve(header.size() + data.size());
      std::memcpy(cur_, header.data(), header.size());
      if (!data.empty()) std::memcpy(cur_ + header.size(), data.data(), data.size());
      cur_ += header.size() + data.size();
    }
  }

  // ---- memo -----------------------------------------------------------------
  // The next memo id, taken.
  [[gnu::always_inline]] MemoId next_memo_id() {
    if (memo_size_ == kNoMemo - 1) [[unlikely]] memo_full();
    return memo_size_++;
  }
  [[gnu::always_inline]] MemoId memo_put_op() {
    MemoId idx = next_memo_id();
    if (proto_ >= 4) {
      put(op(Op::MEMOIZE));
    } else if (!bin_) {
      put(op(Op::PUT));
      put_decimal(static_cast<std::int64_t>(idx));
      put('\n');
    } else if (idx < 256) {
      put_word(static_cast<std::uint8_t>(op(Op::BINPUT)) | std::uint64_t{idx} << 8, 2);
    } else {
      put_word(static_cast<std::uint8_t>(op(Op::LONG_BINPUT)) | std::uint64_t{idx} << 8, 5);
    }
    return idx;
  }
  [[noreturn, gnu::noinline, gnu::cold]] void memo_full() {
    throw PickleError(ErrorKind::LimitExceeded, len() + deferred_bytes_,
                      "more than 4294967294 memoized objects in one pickle");
  }

  [[gnu::always_inline]] void memo_get(MemoId idx) {
    if (bin_ && idx < 256) {
      put_word(static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{idx} << 8, 2);
    } else {
      memo_get_long(idx);
    }
  }
  [[gnu::noinline]] void memo_get_long(MemoId idx) {
    if (!bin_) {
      put(op(Op::GET));
      put_decimal(static_cast<std::int64_t>(idx));
      put('\n');
    } else if (idx < 256) {
      put_word(static_cast<std::uint8_t>(op(Op::BINGET)) | std::uint64_t{idx} << 8, 2);
    } else {
      put_word(static_cast<std::uint8_t>(op(Op::LONG_BINGET)) | std::uint64_t{idx} << 8, 5);
    }
  }

  void memo_fresh() { memo_put_op(); }

  // The singleton memo tables are cleared on first use: most pickles hold no
  // one-character str, and clearing 4 KiB costs as much as a small dumps.
  MemoId& char_memo(int slot) {
    if (!singletons_ready_) clear_singletons();
    return char_memo_[static_cast<std::size_t>(slot)];
  }
  MemoId& bytes_memo(int slot) {
    if (!singletons_ready_) clear_singletons();
    return bytes_memo_[static_cast<std::size_t>(slot)];
  }
  void clear_singletons() {
    char_memo_.fill(kNoMemo);
    bytes_memo_.fill(kNoMemo);
    singletons_ready_ = true;
  }

  MemoId* singleton_slot(const Node* n) {
    if (n->kind == Kind::Str) {
      int s = latin1_singleton_slot(n->payload());
      return s < 0 ? nullptr : &char_memo(s);
    }
    if (n->kind == Kind::Bytes) {
      int s = bytes_singleton_slot(n->payload());
      return s < 0 ? nullptr : &bytes_memo(s);
    }
    return nullptr;
  }

  // Made on the first domain node: most pickles have none.
  types::Lowering& lowering() {
    if (!lowering_) {
      lowering_ = std::make_unique<types::Lowering>(
          types::LowerOptions{proto_, static_cast<bool>(options_.buffer_callback)});
    }
    return *lowering_;
  }

  MemoId find_memo(const Node* n) {
    if (MemoId* slot = singleton_slot(n)) return *slot;
    return node_memo_->find(n);
  }

  void memo_put_node(const Node* n) {
    MemoId idx = memo_put_op();
    if (MemoId* slot = singleton_slot(n)) {
      *slot = idx;
    } else {
      node_memo_->insert(n, idx);
    }
  }

  // ---- tasks ------------------------------------------------------------------
  [[gnu::always_inline]] void push(const Node* n, std::size_t index, Step step, char opcode = 0) {
    stack_.push_back(Task{n, index, step, opcode});
  }
  void push_op(Op o) { push(nullptr, 0, Step::kWriteOp, op(o)); }
  void push_save(const Node* n) { push(n, 0, Step::kSave); }

  [[gnu::always_inline]] void run_task(const Task& t) {
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
      case Step::kListExact:
        exact_batches(t.node, t.step, SeqView{t.node->items}, t.index, op(Op::APPEND),
                      op(Op::APPENDS), true, false);
        break;
      case Step::kListEach:
        each(t.node, t.step, SeqView{t.node->items}, t.index, op(Op::APPEND));
        break;
      case Step::kDictExact:
        exact_batches(t.node, t.step, InterleavedView{t.node->items}, t.index, op(Op::SETITEM),
                      op(Op::SETITEMS), true, true);
        break;
      case Step::kDictEach:
        each(t.node, t.step, InterleavedView{t.node->items}, t.index, op(Op::SETITEM));
        break;
      case Step::kSetBatch:
        exact_batches(t.node, t.step, SeqView{t.node->items}, t.index, 0, op(Op::ADDITEMS), false,
                      true);
        break;
      case Step::kListItems:
        if (proto_ == 0) {
          each(t.node, t.step, SeqView{t.node->obj->listitems}, t.index, op(Op::APPEND));
        } else {
          loose_batches(t.node, t.step, SeqView{t.node->obj->listitems}, t.index, op(Op::APPEND),
                        op(Op::APPENDS));
        }
        break;
      case Step::kDictItems:
        if (proto_ == 0) {
          each(t.node, t.step, PairView{t.node->obj->dictitems}, t.index, op(Op::SETITEM));
        } else {
          loose_batches(t.node, t.step, PairView{t.node->obj->dictitems}, t.index, op(Op::SETITEM),
                        op(Op::SETITEMS));
        }
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

  // Writes `n` now and returns true when its save pushes no tasks (atoms,
  // str, bytes, globals); returns false, having written nothing, for the
  // others. One switch on the kind, with the commonest cases written here.
  [[gnu::always_inline]] bool save_if_inline(const Node* n) {
    if (n == nullptr) dispatch(n);  // fails
    if (n->kind == Kind::Str) {  // the commonest item of all, before the switch's jump
      boundary();
      save_str(n);
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

  // Saves one entry (an item, or a key and its value) once whatever must run
  // after it is on the stack: inline nodes are written now, the others are
  // pushed for the main loop. A container is never dispatched from inside
  // another one's save, so nesting does not deepen the C++ stack.
  [[gnu::always_inline]] void save_entry(const Node* n) {
    if (!save_if_inline(n)) push_save(n);
  }
  void save_entry(Entry e) {
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
  [[gnu::always_inline]] bool defer_entry(const Node* owner, std::size_t next, Step step,
                                          const Node* e) {
    if (save_if_inline(e)) return false;
    if (direct_depth_ < kDirectDepth) {
      save_now(e);
      return false;
    }
    push(owner, next, step);
    push_save(e);
    return true;
  }
  [[gnu::always_inline]] bool defer_entry(const Node* owner, std::size_t next, Step step, Entry e) {
    if (save_if_inline(e.first)) {
      if (save_if_inline(e.second)) return false;
      if (direct_depth_ < kDirectDepth) {
        save_now(e.second);
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

  // Saves `n` (whose save may push tasks) completely, now: dispatches it,
  // then runs the tasks it pushed, down to where the stack was. Those are
  // exactly the tasks the main loop would run next, in the same order, so
  // the bytes are the same as pushing `n` and its caller's continuation;
  // but the caller's item loop goes on in place instead of being resumed
  // from the stack, which for short containers cost more than their items.
  // Direct saves nest at most kDirectDepth deep (a little C++ stack each);
  // deeper values go through the task stack as before.
  static constexpr int kDirectDepth = 32;
  [[gnu::noinline]] void save_now(const Node* n) {
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
  // The main loop: runs tasks until the stack is back to `mark` entries.
  [[gnu::always_inline]] void run_tasks_down_to(std::size_t mark) {
    while (stack_.size() > mark) {
      Task t = stack_.back();
      stack_.pop_back();
      run_task(t);
    }
  }

  // Saves the entry then writes `after`, with nothing to resume afterwards.
  template <class E>
  void entry_then(E e, char after) {
    if (is_inline(e)) {
      save_entry(e);
      put(after);
    } else {
      push(nullptr, 0, Step::kWriteOp, after);
      save_entry(e);
    }
  }

  // ---- runs of small atoms ------------------------------------------------------
  // Containers of ints and Nones are common (pyperformance's LIST, TUPLE and
  // MICRO_DICT are mostly that), and for them the per-item checks of put()
  // (frame open? room left?) and boundary() (frame full?) cost more than the
  // writing. A run writes such items with those checks made once for the
  // whole run: it takes only as many items as certainly fit in the buffer
  // and in the open frame, writing at most kAtomBytes each, so the checks it
  // skips could not have fired. It stops at the first other item and leaves
  // it, and anything past its room, to the general path.
  static constexpr std::size_t kAtomBytes = 5;  // BININT: opcode + 4 bytes

  // How many atoms may be written from here with no check (see above).
  [[gnu::always_inline]] std::size_t atom_room() const {
    if (!bin_ || (framing_ && frame_ == nullptr)) return 0;  // the general path opens it
    std::size_t room = static_cast<std::size_t>(end_ - cur_);
    room = room > 8 ? room - 8 : 0;  // store_word's slack
    if (frame_ != nullptr) {
      // boundary() commits when the frame holds kFrameSizeTarget bytes.
      const std::size_t held = static_cast<std::size_t>(cur_ - frame_) - kFrameHeaderSize;
      room = std::min(room, held < kFrameSizeTarget ? kFrameSizeTarget - 1 - held : 0);
    }
    return room / kAtomBytes;
  }

  [[gnu::always_inline]] static bool maybe_atom(const Node* n) {
    return n != nullptr && (n->kind == Kind::Int || n->kind == Kind::None);
  }

  // Writes `n` at `c` when it is None or an int BININT* holds; returns the
  // new end, or nullptr having written nothing.
  [[gnu::always_inline]] static char* put_atom(char* c, const Node* n) {
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
  struct RunEnd {
    Node* const* p;  // the first item not written
    char* c;         // the end of what was written
  };
  [[gnu::noinline]] static RunEnd write_atoms(char* c, Node* const* p, Node* const* last) {
    for (; p != last; ++p) {
      const Node* n = *p;
      if (n == nullptr) break;
      char* next = put_atom(c, n);
      if (next == nullptr) break;
      c = next;
    }
    return {p, c};
  }
  [[gnu::noinline]] static RunEnd write_atom_pairs(char* c, Node* const* p, Node* const* last) {
    for (; p != last; p += 2) {
      if (p[0] == nullptr || p[1] == nullptr) break;
      char* next = put_atom(c, p[0]);
      if (next == nullptr) break;
      next = put_atom(next, p[1]);
      if (next == nullptr) break;  // the key's bytes are past cur_: not written
      c = next;
    }
    return {p, c};
  }

  // Items [i, stop) of a sequence: writes the leading run of atoms, as far
  // as the room allows, and returns the index of the first item not written.
  [[gnu::always_inline]] std::size_t atom_run(const std::vector<Node*>& v, std::size_t i,
                                              std::size_t stop) {
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
  [[gnu::always_inline]] std::size_t atom_pair_run(const std::vector<Node*>& v, std::size_t i,
                                                   std::size_t stop) {
    if (!maybe_atom(v[2 * i]) || !maybe_atom(v[2 * i + 1])) return i;
    const std::size_t k = std::min(stop - i, atom_room() / 2);
    if (k == 0) return i;
    const RunEnd end = write_atom_pairs(cur_, v.data() + 2 * i, v.data() + 2 * (i + k));
    cur_ = end.c;
    return static_cast<std::size_t>(end.p - v.data()) / 2;
  }

  std::size_t run_of_atoms(SeqView view, std::size_t i, std::size_t stop) {
    return atom_run(view.v, i, stop);
  }
  std::size_t run_of_atoms(InterleavedView view, std::size_t i, std::size_t stop) {
    return atom_pair_run(view.v, i, stop);
  }
  std::size_t run_of_atoms(PairView, std::size_t i, std::size_t) { return i; }

  // store_tuple_elements / save_frozenset's loop: items in order, no opcodes.
  // Returns true when every item was written here; false when the rest was
  // left to tasks it pushed (nesting past kDirectDepth).
  template <class View>
  bool items(const Node* node, View view, std::size_t i) {
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
  void each(const Node* node, Step step, View view, std::size_t i, char after) {
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
  void exact_batches(const Node* node, Step step, View view, std::size_t i, char single, char end,
                     bool single_special, bool trailing) {
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
  bool batch_loop(const Node* node, Step step, View view, std::size_t i, char end, bool trailing) {
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
  void enter_batches(const Node* node, Step step, View view, std::size_t i, char end,
                     bool trailing) {
    enter();
    const std::size_t mark = stack_.size();
    if (batch_loop(node, step, view, i, end, trailing)) {
      --depth_;
      return;
    }
    stack_.insert_at(mark, Task{nullptr, 0, Step::kLeave, 0});
  }

  // batch_list / batch_dict (reduce list and dict items, protocol >= 1): a
  // batch holding a single entry is written with APPEND/SETITEM.
  template <class View>
  void loose_batches(const Node* node, Step step, View view, std::size_t i, char single, char end) {
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

  // ---- save() -------------------------------------------------------------------
  // An Int node written as BININT1/BININT2/BININT (binary protocols).
  bool fits_binint(const Node* n) const {
    return bin_ && !n->big && n->small >= INT32_MIN && n->small <= INT32_MAX;
  }

  // save_long's BININT1/BININT2/BININT choice, as one store.
  [[gnu::always_inline]] void put_binint(std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    if (u < 0x100) {
      put_word(static_cast<std::uint8_t>(op(Op::BININT1)) | std::uint64_t{u} << 8, 2);
    } else if (u < 0x10000) {
      put_word(static_cast<std::uint8_t>(op(Op::BININT2)) | std::uint64_t{u} << 8, 3);
    } else {
      put_word(static_cast<std::uint8_t>(op(Op::BININT)) | std::uint64_t{u} << 8, 5);
    }
  }

  void dispatch(const Node* n) {
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
          put_binint(static_cast<std::int32_t>(n->small));  // the common case
        } else {
          save_int(n);
        }
        return;
      case Kind::Float: save_float(n->f); return;
      case Kind::PersId: save_pers(n); return;
      case Kind::Global: emit_global(n->payload(), n->name); return;
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

  [[gnu::always_inline]] void save_list_or_dict(const Node* n) {
    // Looked up and added in one probe; memoized right after the opcode
    // that makes the empty container, before any other memo entry.
    MemoId* slot = node_memo_->find_or_add(n);
    if (*slot != kNoMemo) {
      memo_get(*slot);
      return;
    }
    if (n->kind == Kind::List) {
      save_list(n, slot);
    } else {
      save_dict(n, slot);
    }
  }

  void save_bool(bool v) {
    if (proto_ >= 2) {
      put(v ? op(Op::NEWTRUE) : op(Op::NEWFALSE));
    } else {
      write(v ? "I01\n" : "I00\n");
    }
  }

  void save_int(const Node* n) {
    std::int64_t v = n->small;
    bool fits64 = !n->big;
    if (n->big && n->payload().size() <= 8) fits64 = twos_le_to_int64(n->payload(), v);
    if (fits64 && v >= INT32_MIN && v <= INT32_MAX) {
      if (bin_) {
        put_binint(static_cast<std::int32_t>(v));
      } else {
        put(op(Op::INT));
        put_decimal(v);
        put('\n');
      }
      return;
    }
    if (proto_ >= 2) {
      std::string bytes;
      std::string_view le;
      if (fits64) {
        bytes = int64_to_twos_le(v);
        le = bytes;
      } else {
        le = n->payload();
        std::size_t k = le.size();
        auto top = static_cast<unsigned char>(le[k - 1]);
        bool below_neg = (static_cast<unsigned char>(le[k - 2]) & 0x80) != 0;
        if ((top == 0 && !below_neg) || (top == 0xff && below_neg)) {
          bytes = minimal_twos_le(le);  // a hand-made, non-minimal payload
          le = bytes;
        }
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

  void save_float(double d) {
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
  void save_str_data(std::string_view utf8, bool stable = false) {
    if (!bin_) {
      put(op(Op::UNICODE));
      write(raw_unicode_escape_encode(utf8));
      put('\n');
      return;
    }
    std::size_t size = utf8.size();
    char h[9];
    std::size_t len;
    if (size <= 0xff && proto_ >= 4) {
      h[0] = op(Op::SHORT_BINUNICODE);
      h[1] = static_cast<char>(size);
      len = 2;
    } else if (size <= 0xffffffffu) {
      h[0] = op(Op::BINUNICODE);
      for (int i = 0; i < 4; ++i) h[1 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
      len = 5;
    } else if (proto_ >= 4) {
      h[0] = op(Op::BINUNICODE8);
      for (int i = 0; i < 8; ++i) h[1 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
      len = 9;
    } else {
      fail("serializing a string larger than 4 GiB requires pickle protocol 4 or higher");
    }
    write_payload(std::string_view(h, len), utf8, stable);
  }

  // _save_bytes_data without the memo (protocol >= 3, and in-band buffers).
  void save_bytes_data(std::string_view data, bool stable = false) {
    std::size_t size = data.size();
    char h[9];
    std::size_t len;
    if (size <= 0xff) {
      h[0] = op(Op::SHORT_BINBYTES);
      h[1] = static_cast<char>(size);
      len = 2;
    } else if (size <= 0xffffffffu) {
      h[0] = op(Op::BINBYTES);
      for (int i = 0; i < 4; ++i) h[1 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
      len = 5;
    } else if (proto_ >= 4) {
      h[0] = op(Op::BINBYTES8);
      for (int i = 0; i < 8; ++i) h[1 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
      len = 9;
    } else {
      fail("serializing a bytes object larger than 4 GiB requires pickle protocol 4 or higher");
    }
    write_payload(std::string_view(h, len), data, stable);
  }

  void save_bytearray_data(std::string_view data, bool stable = false) {
    char h[9];
    h[0] = op(Op::BYTEARRAY8);
    for (int i = 0; i < 8; ++i) h[1 + i] = static_cast<char>((data.size() >> (8 * i)) & 0xff);
    write_payload(std::string_view(h, 9), data, stable);
  }

  // save(()) body: EMPTY_TUPLE, or MARK TUPLE at protocol 0. Never memoized.
  void save_empty_tuple() {
    if (bin_) {
      put(op(Op::EMPTY_TUPLE));
    } else {
      put(op(Op::MARK));
      put(op(Op::TUPLE));
    }
  }

  // The end of a temporary tuple whose items were saved: TUPLEn or TUPLE
  // (after a MARK written by the caller), then its memo slot.
  void fresh_tuple_end(std::size_t len) {
    if (proto_ >= 2 && len <= 3) {
      put(static_cast<char>(op(Op::TUPLE1) + static_cast<char>(len - 1)));
    } else {
      put(op(Op::TUPLE));
    }
    memo_fresh();
  }
  bool fresh_tuple_needs_mark(std::size_t len) const { return !(proto_ >= 2 && len <= 3); }

  // save() of a str the C pickler makes on the fly (codecs.encode's text, a
  // dotted name's last part): a singleton when one latin-1 character.
  void save_synthetic_str(std::string_view utf8) {
    boundary();
    int slot = latin1_singleton_slot(utf8);
    if (slot >= 0) {
      MemoId& idx = char_memo(slot);
      if (idx != kNoMemo) {
        memo_get(idx);
        return;
      }
      save_str_data(utf8);
      idx = memo_put_op();
      return;
    }
    save_str_data(utf8);
    memo_fresh();
  }

  // save() of an interned str: module names and qualnames, 'latin1'.
  void save_interned(std::string_view s) {
    boundary();
    auto it = interned_memo_.find(s);
    if (it != interned_memo_.end()) {
      memo_get(it->second);
      return;
    }
    save_str_data(s);
    interned_memo_.emplace(s, memo_put_op());
  }

  // save() of a str value that is the interned object global names of its
  // text are written from (Node::flag): one memo entry with those names, as
  // CPython's memo by identity makes it. `slot` is the node's memo slot.
  void save_interned_value(std::string_view s, MemoId* slot) {
    auto it = interned_memo_.find(s);
    if (it != interned_memo_.end()) {
      *slot = it->second;
      memo_get(it->second);
      return;
    }
    save_str_data(s, true);
    *slot = memo_put_op();
    interned_memo_.emplace(s, *slot);
  }

  // save() of the __name__ object of a C module (see origin_of).
  void save_module_name_object(std::string_view module) {
    boundary();
    auto it = c_module_memo_.find(module);
    if (it != c_module_memo_.end()) {
      memo_get(it->second);
      return;
    }
    save_str_data(module);
    c_module_memo_.emplace(module, memo_put_op());
  }

  // save_bytes below protocol 3: reduce to bytes() or
  // _codecs.encode(<the bytes decoded as latin-1>, 'latin1'). `self` is the
  // node to memoize, or nullptr for a temporary bytes object.
  void save_bytes_reduce(std::string_view data, const Node* self) {
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

  void save_bytes(const Node* n) {
    if (proto_ >= 3) {
      save_bytes_data(n->payload(), true);
      memo_put_node(n);
    } else {
      save_bytes_reduce(n->payload(), n);
    }
  }

  // Below protocol 5 a bytearray reduces to bytearray() or
  // bytearray(<a new bytes object>).
  void save_bytearray(const Node* n) {
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

  void save_picklebuffer(const Node* n) {
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

  // save_unicode: one str node, memoized. A one-character latin-1 str is
  // memoized by value (see singleton_slot), any other by identity.
  [[gnu::always_inline]] void save_str(const Node* n) {
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
      // The common case in one reservation: SHORT_BINUNICODE, the length,
      // the text, MEMOIZE.
      const MemoId id = next_memo_id();
      open_frame_if_needed();
      reserve(utf8.size() + 8);
      char* dst = cur_;
      store_word(dst, static_cast<std::uint8_t>(op(Op::SHORT_BINUNICODE)) |
                          std::uint64_t{utf8.size()} << 8);
      copy_bytes(dst + 2, utf8.data(), utf8.size());
      dst[2 + utf8.size()] = op(Op::MEMOIZE);
      cur_ += utf8.size() + 3;
      *slot = id;
      return;
    }
    save_str_data(utf8, true);
    *slot = memo_put_op();
  }

  // A list or dict of fewer than kBatchSize entries whose first is an atom
  // (LIST's inner lists, MICRO_DICT's inner dicts) starts here, with no task
  // pushed: the empty container, its memo, MARK, then a run of atoms. When
  // the run covers every entry the closing opcode ends it, with no task at
  // all; otherwise the batch loop carries on from the entry where the run
  // stopped, as a container does. Not at the depth limit, where the general
  // path fails.
  bool flat_candidate(const Node* n, std::size_t entries) const {
    return bin_ && entries >= 2 && entries < kBatchSize && depth_ < options_.max_depth &&
           maybe_atom(n->items[0]);
  }
  // Protocol 4 and up, with the frame open (atom_room): whether the whole
  // container, `atoms` items of at most kAtomBytes, its three opening
  // opcodes and its closing one, fits the room no check would have found
  // short. Then they are written with no check between them.
  [[gnu::always_inline]] bool whole_fits(std::size_t atoms) const {
    return proto_ >= 4 && atoms + 2 <= atom_room();  // 3 + 1 opcode bytes < 2 * kAtomBytes
  }

  [[gnu::always_inline]] void open_marked(Op empty, MemoId* memo) {
    if (proto_ >= 4) {
      *memo = next_memo_id();
      put_word(opened_marked(empty), 3);
    } else {
      put(op(empty));
      *memo = memo_put_op();
      put(op(Op::MARK));
    }
  }

  // `memo`: the node's memo slot (NodeMemo::find_or_add), to be set now.
  void save_list(const Node* n, MemoId* memo) {
    if (const std::size_t size = n->items.size(); flat_candidate(n, size)) {
      std::size_t i;
      if (whole_fits(size)) {
        *memo = next_memo_id();
        store_word(cur_, opened_marked(Op::EMPTY_LIST));
        Node* const* const first = n->items.data();
        const RunEnd run = write_atoms(cur_ + 3, first, first + size);
        cur_ = run.c;
        if (run.p == first + size) {
          *cur_++ = op(Op::APPENDS);
          return;
        }
        i = static_cast<std::size_t>(run.p - first);
      } else {
        open_marked(Op::EMPTY_LIST, memo);
        i = atom_run(n->items, 0, size);
      }
      if (i == size) {
        put(op(Op::APPENDS));
        return;
      }
      enter_batches(n, Step::kListExact, SeqView{n->items}, i, op(Op::APPENDS), false);
      return;
    }
    if (proto_ >= 4 && n->items.size() >= 2 && depth_ < options_.max_depth) {
      // What the lines below write, with the three opening opcodes as one
      // store (enter_container() cannot fail here).
      open_marked(Op::EMPTY_LIST, memo);
      enter_batches(n, Step::kListExact, SeqView{n->items}, 0, op(Op::APPENDS), false);
      return;
    }
    if (bin_) {
      put(op(Op::EMPTY_LIST));
    } else {
      put(op(Op::MARK));
      put(op(Op::LIST));
    }
    *memo = memo_put_op();
    if (n->items.empty()) return;
    enter_container();
    if (bin_) {
      exact_batches(n, Step::kListExact, SeqView{n->items}, 0, op(Op::APPEND), op(Op::APPENDS),
                    true, false);
    } else {
      each(n, Step::kListEach, SeqView{n->items}, 0, op(Op::APPEND));
    }
  }

  void save_dict(const Node* n, MemoId* memo) {
    if (n->items.size() % 2 != 0) fail("dict node with an odd number of items");
    if (const std::size_t size = n->items.size() / 2; flat_candidate(n, size)) {
      std::size_t i;
      if (whole_fits(2 * size)) {
        *memo = next_memo_id();
        store_word(cur_, opened_marked(Op::EMPTY_DICT));
        Node* const* const first = n->items.data();
        const RunEnd run = write_atom_pairs(cur_ + 3, first, first + 2 * size);
        cur_ = run.c;
        if (run.p == first + 2 * size) {
          *cur_++ = op(Op::SETITEMS);
          return;
        }
        i = static_cast<std::size_t>(run.p - first) / 2;
      } else {
        open_marked(Op::EMPTY_DICT, memo);
        i = atom_pair_run(n->items, 0, size);
      }
      if (i == size) {
        put(op(Op::SETITEMS));
        return;
      }
      enter_batches(n, Step::kDictExact, InterleavedView{n->items}, i, op(Op::SETITEMS), true);
      return;
    }
    if (proto_ >= 4 && n->items.size() >= 4 && depth_ < options_.max_depth) {
      // As for a list: two entries or more open with MARK.
      open_marked(Op::EMPTY_DICT, memo);
      enter_batches(n, Step::kDictExact, InterleavedView{n->items}, 0, op(Op::SETITEMS), true);
      return;
    }
    if (bin_) {
      put(op(Op::EMPTY_DICT));
    } else {
      put(op(Op::MARK));
      put(op(Op::DICT));
    }
    *memo = memo_put_op();
    if (n->items.empty()) return;
    enter_container();
    if (bin_) {
      exact_batches(n, Step::kDictExact, InterleavedView{n->items}, 0, op(Op::SETITEM),
                    op(Op::SETITEMS), true, true);
    } else {
      each(n, Step::kDictEach, InterleavedView{n->items}, 0, op(Op::SETITEM));
    }
  }

  // A temporary dict holding the items of dict node `n` (the keywords a
  // functools.partial keeps).
  void fresh_dict(const Node* n) {
    boundary();
    put(op(Op::EMPTY_DICT));
    memo_fresh();
    if (n->items.empty()) return;
    exact_batches(n, Step::kDictExact, InterleavedView{n->items}, 0, op(Op::SETITEM),
                  op(Op::SETITEMS), true, true);
  }

  void save_set(const Node* n) {
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

  void save_frozenset(const Node* n) {
    if (proto_ < 4) {
      set_reduce(n, "frozenset");
      return;
    }
    put(op(Op::MARK));
    enter_container();
    push(n, 0, Step::kFrozenSetEnd);
    items(n, SeqView{n->items}, 0);
  }

  void frozenset_end(const Node* n) {
    if (MemoId idx = find_memo(n); idx != kNoMemo) {
      put(op(Op::POP_MARK));
      memo_get(idx);
      return;
    }
    put(op(Op::FROZENSET));
    memo_put_node(n);
  }

  // Below protocol 4: reduce (set, ([items],)) or (frozenset, ([items],)).
  void set_reduce(const Node* n, std::string_view type_name) {
    save_global("builtins", type_name);
    boundary();  // the argument tuple
    if (proto_ < 2) put(op(Op::MARK));
    boundary();  // the list
    if (bin_) {
      put(op(Op::EMPTY_LIST));
    } else {
      put(op(Op::MARK));
      put(op(Op::LIST));
    }
    memo_fresh();
    enter_container();
    push(n, 0, Step::kSetReduceEnd);
    if (n->items.empty()) return;
    if (bin_) {
      exact_batches(n, Step::kListExact, SeqView{n->items}, 0, op(Op::APPEND), op(Op::APPENDS),
                    true, false);
    } else {
      each(n, Step::kListEach, SeqView{n->items}, 0, op(Op::APPEND));
    }
  }

  void set_reduce_end(const Node* n) {
    fresh_tuple_end(1);
    put(op(Op::REDUCE));
    if (MemoId idx = find_memo(n); idx != kNoMemo) {
      put(op(Op::POP));
      memo_get(idx);
      return;
    }
    memo_put_node(n);
  }

  void save_tuple(const Node* n) {
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
  void tuple_end(const Node* n) {
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

  // ---- persistent ids ---------------------------------------------------------
  void save_pers(const Node* n) {
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

  // ---- globals ------------------------------------------------------------------
  void save_global(std::string_view module, std::string_view qualname) {
    boundary();
    emit_global(module, qualname);
  }

  // save_global (and save_type) for the object module.qualname, after
  // save()'s frame boundary.
  void emit_global(std::string_view module, std::string_view qualname) {
    auto key = std::make_pair(module, qualname);
    if (auto it = global_memo_.find(key); it != global_memo_.end()) {
      memo_get(it->second);
      return;
    }
    if (module.empty() || qualname.empty()) fail("a global needs a module and a name");
    for (std::size_t start = 0;;) {
      std::size_t dot = qualname.find('.', start);
      std::string_view part = qualname.substr(
          start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
      if (part.empty()) fail("empty component in global name '" + std::string(qualname) + "'");
      if (part == "<locals>") {
        fail("Can't pickle local object '" + std::string(qualname) + "'");
      }
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    if (module == "types" && (qualname == "NoneType" || qualname == "EllipsisType" ||
                              qualname == "NotImplementedType")) {
      // save_type: these three types reduce to type(None), type(...), ...
      save_global("builtins", "type");
      boundary();
      if (proto_ < 2) put(op(Op::MARK));
      boundary();
      if (qualname == "NoneType") {
        put(op(Op::NONE));
      } else {
        save_global("builtins", qualname == "EllipsisType" ? "Ellipsis" : "NotImplemented");
      }
      fresh_tuple_end(1);
      put(op(Op::REDUCE));
      global_memo_.emplace(key, memo_put_op());
      return;
    }
    if (proto_ >= 4) {
      switch (origin_of(module, qualname)) {
        case Origin::kPython:
          save_interned(module);
          save_interned(qualname);
          break;
        case Origin::kCType:
          save_interned(module);
          save_synthetic_str(qualname);
          break;
        case Origin::kCFunction:
          save_module_name_object(module);
          save_synthetic_str(qualname);
          break;
      }
      put(op(Op::STACK_GLOBAL));
      global_memo_.emplace(key, memo_put_op());
      return;
    }
    std::size_t dot = qualname.rfind('.');
    if (dot == std::string_view::npos) {
      global_text(module, qualname);
      global_memo_.emplace(key, memo_put_op());
      return;
    }
    // A nested name below protocol 4 is getattr(<parent>, '<last part>'),
    // the parent saved the same way. Unrolled, so that a long dotted name
    // does not recurse: first the opening of every level down to a parent
    // that is memoized or not dotted, then the closing of each level upwards.
    std::vector<std::size_t> open_levels;  // lengths of the dotted prefixes opened
    std::string_view current = qualname;
    for (;;) {
      enter();
      open_levels.push_back(current.size());
      save_global("builtins", "getattr");
      boundary();  // the argument tuple
      if (proto_ < 2) put(op(Op::MARK));
      std::string_view parent = current.substr(0, current.rfind('.'));
      auto it = global_memo_.find(std::make_pair(module, parent));
      if (it != global_memo_.end() || parent.find('.') == std::string_view::npos) {
        save_global(module, parent);
        break;
      }
      boundary();  // save(parent), which continues with the next level
      current = parent;
    }
    for (auto level = open_levels.rbegin(); level != open_levels.rend(); ++level) {
      std::string_view name = qualname.substr(0, *level);
      save_synthetic_str(last_component(name));
      fresh_tuple_end(2);
      put(op(Op::REDUCE));
      --depth_;
      global_memo_.emplace(std::make_pair(module, name), memo_put_op());
    }
  }

  // GLOBAL 'module\nname\n', with Python 2 names below protocol 3.
  void global_text(std::string_view module, std::string_view name) {
    std::string mapped_module, mapped_name;
    if (proto_ < 3 && options_.fix_imports) {
      QualifiedName mapped = py3_to_py2(std::string(module), std::string(name));
      mapped_module = std::move(mapped.first);
      mapped_name = std::move(mapped.second);
      module = mapped_module;
      name = mapped_name;
    }
    if (proto_ != 3) {
      if (!is_ascii(module)) {
        fail("can't pickle module identifier '" + std::string(module) + "' using pickle protocol " +
             std::to_string(proto_));
      }
      if (!is_ascii(name)) {
        fail("can't pickle global identifier '" + std::string(name) + "' using pickle protocol " +
             std::to_string(proto_));
      }
    }
    if (module.find('\n') != std::string_view::npos || name.find('\n') != std::string_view::npos) {
      fail("a global name with a newline cannot be written with GLOBAL");
    }
    put(op(Op::GLOBAL));
    write(module);
    put('\n');
    write(name);
    put('\n');
  }

  // ---- reduce ---------------------------------------------------------------------
  void save_object(const Node* n) {
    if (std::int64_t code = extension_code(n); code != 0) {
      save_extension(code);
      return;
    }
    const ObjectParts* parts = n->obj.get();
    if (parts == nullptr || parts->callable == nullptr) fail("object node without a callable");
    const Node* callable = parts->callable;
    const Node* args = parts->args;
    if (args == nullptr || args->kind != Kind::Tuple) {
      fail("second item of the tuple returned by __reduce__ must be a tuple");
    }
    if (callable->kind != Kind::Global && callable->kind != Kind::Object &&
        callable->kind != Kind::PersId) {
      fail("first item of the tuple returned by __reduce__ must be callable");
    }
    bool newobj = false, newobj_ex = false;
    if (proto_ >= 2 && callable->kind == Kind::Global) {
      std::string_view name = last_component(callable->name);
      newobj_ex = name == "__newobj_ex__";
      newobj = name == "__newobj__";
    }
    enter_container();
    push(n, 0, Step::kReduceEnd);
    if (newobj_ex) {
      if (args->items.size() != 3) {
        fail("length of the NEWOBJ_EX argument tuple must be exactly 3, not " +
             std::to_string(args->items.size()));
      }
      const Node* cls = args->items[0];
      const Node* cargs = args->items[1];
      const Node* kwargs = args->items[2];
      if (!is_class_ref(cls)) {
        fail("first item from NEWOBJ_EX argument tuple must be a class");
      }
      if (cargs == nullptr || cargs->kind != Kind::Tuple) {
        fail("second item from NEWOBJ_EX argument tuple must be a tuple");
      }
      if (kwargs == nullptr || kwargs->kind != Kind::Dict || kwargs->items.size() % 2 != 0) {
        fail("third item from NEWOBJ_EX argument tuple must be a dict");
      }
      if (proto_ >= 4) {
        push_op(Op::NEWOBJ_EX);
        push_save(kwargs);
        push_save(cargs);
        dispatch(cls);
      } else {
        newobj_ex_fallback(cls, cargs, kwargs);
      }
      return;
    }
    if (newobj) {
      if (args->items.empty()) fail("__newobj__ arglist is empty");
      const Node* cls = args->items[0];
      if (!is_class_ref(cls)) {
        fail("args[0] from __newobj__ args is not a type");
      }
      push_op(Op::NEWOBJ);
      dispatch(cls);
      boundary();  // the tuple args[1:]
      const std::size_t len = args->items.size() - 1;
      if (len == 0) {
        put(op(Op::EMPTY_TUPLE));
        return;
      }
      if (fresh_tuple_needs_mark(len)) put(op(Op::MARK));
      push(nullptr, len, Step::kFreshTupleEnd);
      items(args, SeqView{args->items}, 1);
      return;
    }
    push_op(Op::REDUCE);
    push_save(args);
    save_entry(callable);
  }

  // What stands for a class in NEWOBJ and NEWOBJ_EX: a global, or (a
  // registered class, as CPython writes it from protocol 2 on, and these
  // opcodes exist only there) an extension reference.
  static bool is_class_ref(const Node* cls) {
    return cls != nullptr && (cls->kind == Kind::Global || extension_code(cls) != 0);
  }

  // save_global for a global in copyreg's extension registry: EXT1, EXT2 or
  // EXT4 by the size of the code, and no memo entry (CPython memoizes only
  // what it writes by name). Below protocol 2 CPython writes the global's
  // name instead, which an extension reference does not hold; writing the
  // reference as the call copyreg._inverted_registry(code) would make a
  // pickle no loader can run (a dict is not callable), so it is refused.
  void save_extension(std::int64_t code) {
    if (proto_ < 2) {
      fail("the global registered under extension code " + std::to_string(code) +
           " needs protocol 2 or above: below 2 it is written by name, which an extension "
           "reference does not hold");
    }
    const auto u = static_cast<std::uint64_t>(code);
    if (u <= 0xff) {
      put_word(static_cast<std::uint8_t>(op(Op::EXT1)) | u << 8, 2);
    } else if (u <= 0xffff) {
      put_word(static_cast<std::uint8_t>(op(Op::EXT2)) | u << 8, 3);
    } else {
      put_word(static_cast<std::uint8_t>(op(Op::EXT4)) | u << 8, 5);
    }
  }

  // copyreg.__newobj_ex__ at protocols 2 and 3: the C pickler reduces with
  // functools.partial(cls.__new__, cls, *args, **kwargs)() instead. cls.__new__
  // is taken to be object.__new__ (a class that does not define __new__).
  void newobj_ex_fallback(const Node* cls, const Node* cargs, const Node* kwargs) {
    const std::size_t partial_args = 1 + cargs->items.size();
    push_op(Op::REDUCE);
    push(nullptr, 0, Step::kSaveEmptyTuple);
    push_op(Op::BUILD);
    push(nullptr, 4, Step::kFreshTupleEnd);  // the partial's state tuple
    push(nullptr, 0, Step::kSaveNone);       // its __dict__
    push(kwargs, 0, Step::kFreshDict);       // its keywords
    push(nullptr, partial_args, Step::kFreshTupleEnd);
    push(cargs, 0, Step::kItems);
    // partial.__reduce__ -> (partial, (fn,), (fn, (cls, *args), kwargs, None))
    boundary();  // the partial object
    save_global("functools", "partial");
    boundary();  // (fn,)
    save_global("builtins", "object.__new__");
    fresh_tuple_end(1);
    put(op(Op::REDUCE));
    memo_fresh();
    boundary();  // the state tuple
    put(op(Op::MARK));
    save_global("builtins", "object.__new__");
    boundary();  // (cls, *args)
    if (fresh_tuple_needs_mark(partial_args)) put(op(Op::MARK));
    dispatch(cls);
  }

  // After callable and args: the object may have been memoized meanwhile
  // (a recursive reduce); then POP and GET, else memoize it and continue with
  // list items, dict items and state.
  void reduce_end(const Node* n) {
    if (MemoId idx = find_memo(n); idx != kNoMemo) {
      put(op(Op::POP));
      memo_get(idx);
      return;
    }
    memo_put_node(n);
    const ObjectParts& parts = *n->obj;
    const Node* state = parts.state;
    if (state != nullptr && state->kind != Kind::None) {
      const Node* setter = parts.state_setter;
      if (setter == nullptr || setter->kind == Kind::None) {
        push_op(Op::BUILD);
        push_save(state);
      } else {
        // state_setter(obj, state), its result popped
        push_op(Op::POP);
        push_op(Op::REDUCE);
        push_op(Op::TUPLE2);
        push_save(state);
        push_save(n);
        push_save(setter);
      }
    }
    if (!parts.dictitems.empty()) push(n, 0, Step::kDictItems);
    if (!parts.listitems.empty()) push(n, 0, Step::kListItems);
  }

  const EncodeOptions& options_;
  std::string& out_;
  Pooled<Scratch> scratch_;
  // The output buffer (owned by the scratch), see reserve().
  char* buf_ = (*scratch_).buf.get();
  char* cur_ = buf_;
  char* end_ = buf_ + (*scratch_).cap;
  // Payloads written by reference: `data` belongs at buffer offset `at`.
  struct Deferred {
    std::size_t at;
    std::string_view data;
  };
  std::vector<Deferred> deferred_;
  std::size_t deferred_bytes_ = 0;
  std::vector<const Node*>& buffers_;
  const int proto_;
  const bool bin_;
  bool framing_ = false;
  char* frame_ = nullptr;  // the open frame's header; nullptr when none
  std::size_t depth_ = 0;
  int direct_depth_ = 0;  // save_now() calls under way
  MemoId memo_size_ = 0;
  PodStack<Task>& stack_ = (*scratch_).tasks;
  NodeMemo* node_memo_ = &(*scratch_).memo;
  absl::flat_hash_map<std::pair<std::string_view, std::string_view>, MemoId> global_memo_;
  absl::flat_hash_map<std::string_view, MemoId> interned_memo_;
  absl::flat_hash_map<std::string_view, MemoId> c_module_memo_;
  std::array<MemoId, 257> char_memo_;   // '' and one latin-1 character strs
  std::array<MemoId, 257> bytes_memo_;  // b'' and one-byte bytes
  std::unique_ptr<types::Lowering> lowering_;
  bool singletons_ready_ = false;
};

}  // namespace

EncodeResult encode(const Node* root, const EncodeOptions& options) {
  EncodeResult result;
  Encoder encoder(options, result);
  encoder.run(root);
  if (!result.buffers.empty()) result.lowered = encoder.take_lowered();
  return result;
}

}  // namespace serialcheck::pickle
