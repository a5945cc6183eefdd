// The object model: a graph of nodes owned by an arena (`Graph`).
//
// A node's address is its identity. Pickle memoizes shared objects and
// cycles, and CPython's output depends on which objects are the same object,
// so the model keeps sharing exactly: two references to one Python object are
// two pointers to one Node. Nodes never move once made (the arena is chunked),
// which is what makes pointers stable identities.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/value/node_list.h"

namespace serialcheck {

enum class Kind : std::uint8_t {
  None,
  Bool,
  Int,
  Float,
  Str,
  Bytes,
  ByteArray,
  List,
  Tuple,
  Dict,
  Set,
  FrozenSet,
  Global,
  Object,
  PersId,
  PickleBuffer,
  // Domain kinds: values whose Python types have their own reduce forms,
  // written and recognised by the types room (types/).
  NDArray,
  Tensor,
  Module,
  DeviceBuffer,
};

// The last kind, for tables indexed by kind.
inline constexpr Kind kLastKind = Kind::DeviceBuffer;

inline bool is_domain(Kind k) {
  return k == Kind::NDArray || k == Kind::Tensor || k == Kind::Module || k == Kind::DeviceBuffer;
}

// Lower-case name used in JSON, errors and reports ("bytearray", "pickle-buffer"...).
std::string_view kind_name(Kind kind);

// Atoms carry no identity that matters: pickle never memoizes them and
// equality ignores whether two of them are the same node.
inline bool is_atom(Kind k) {
  return k == Kind::None || k == Kind::Bool || k == Kind::Int || k == Kind::Float;
}

struct Node;

// The memory a loader was given for an out-of-band buffer (NEXT_BUFFER,
// PEP 574). Two facts decide whether the object a loader hands back is
// writable, and the model keeps them apart: what the stream says (a
// READONLY_BUFFER after NEXT_BUFFER: the buffer was read-only when it was
// pickled), kept as the value's own flag because that is what writing the
// value again must reproduce; and what the loader supplied (CPython's
// `loads(..., buffers=)` takes bytes, read-only, or bytearray, writable),
// kept here. The loaded object is read-only when either says so.
enum class Supplied : std::uint8_t {
  None,      // not read from an out-of-band buffer (made by hand, in band, from Python)
  ReadOnly,  // the loader was given read-only memory
  Writable,  // the loader was given writable memory
};

// memcpy for payloads, with the commonest sizes (short str keys and values,
// 1 to 32 bytes) copied without a call: as two overlapping words from 4
// bytes up, as three byte stores (the first, the middle, the last) below.
[[gnu::always_inline]] inline void copy_bytes(char* dst, const char* src, std::size_t n) {
  if (n > 16 && n <= 32) {
    char head[16], tail[16];
    std::memcpy(head, src, 16);
    std::memcpy(tail, src + n - 16, 16);
    std::memcpy(dst, head, 16);
    std::memcpy(dst + n - 16, tail, 16);
  } else if (n >= 8 && n <= 16) {
    std::uint64_t head, tail;
    std::memcpy(&head, src, 8);
    std::memcpy(&tail, src + n - 8, 8);
    std::memcpy(dst, &head, 8);
    std::memcpy(dst + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    std::uint32_t head, tail;
    std::memcpy(&head, src, 4);
    std::memcpy(&tail, src + n - 4, 4);
    std::memcpy(dst, &head, 4);
    std::memcpy(dst + n - 4, &tail, 4);
  } else if (n != 0 && n < 4) {
    const char first = src[0], middle = src[n / 2], last = src[n - 1];
    dst[0] = first;
    dst[n / 2] = middle;
    dst[n - 1] = last;
  } else if (n != 0) {
    std::memcpy(dst, src, n);
  }
}

namespace device {
class Buffer;  // reference/device/device.h
}

// NDArray and Tensor: an n-dimensional view of the bytes in the node's
// payload() (the whole buffer or storage the array views).
struct ArrayParts {
  // NDArray: numpy's dtype.str, e.g. "<f8", ">i4", "|b1", "<c16".
  // Tensor: torch's dtype name without the module, e.g. "float32", "bfloat16".
  std::string dtype;
  std::vector<std::int64_t> shape;
  // NDArray: in bytes (may be 0 or negative). Tensor: in elements.
  std::vector<std::int64_t> strides;
  // NDArray: byte offset of element [0,...,0] in payload().
  // Tensor: storage offset in elements.
  std::int64_t offset = 0;
  bool writeable = true;       // NDArray: the WRITEABLE flag, as pickled (see Supplied)
  bool requires_grad = false;  // Tensor
  Node* grad = nullptr;        // Tensor: a Tensor node, or nullptr for none
  std::string device = "cpu";  // Tensor: torch device string ("cpu", "cuda:0")
};

// A generic reduce, as returned by `__reduce_ex__`: callable(*args), then
// state (BUILD, or state_setter(obj, state)), then list and dict items.
// NEWOBJ is the callable `copyreg.__newobj__` with args (cls, *args);
// NEWOBJ_EX is `copyreg.__newobj_ex__` with args (cls, args, kwargs).
struct ObjectParts {
  Node* callable = nullptr;
  Node* args = nullptr;          // a Tuple node
  Node* state = nullptr;         // nullptr: no state
  Node* state_setter = nullptr;  // nullptr: BUILD is used for state
  std::vector<Node*> listitems;
  std::vector<std::pair<Node*, Node*>> dictitems;
};

// What Node::small() holds for every node that is not a small int: any
// kind but Int, and an Int too large for int64 (big). It lies outside the
// int32 range, so a node whose small() is in that range is an Int that
// BININT, BININT1 or BININT2 writes, whatever its kind byte says: the
// encoder's runs of atoms test one field instead of two (see
// Node::binint_value).
inline constexpr std::int64_t kNoSmall = INT64_MIN;

struct Node {
  explicit Node(Kind k) : kind(k), small_(fresh_small(k)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Kind kind;
  // Bool: the value. PickleBuffer: readonly, as pickled (READONLY_BUFFER
  // for one read out of band; see Supplied). Str: interned, the one object
  // that global names (module and qualname) with its text are written from,
  // so pickle memoizes it with them; not part of the value (equality ignores
  // it, since loading does not intern). Module: the Python object it
  // was made from is not the module registered under its name (a copy; only
  // the Python bridge sets it, module.by-reference checks it). Object:
  // instantiate, read from INST or OBJ, which a loader applies as pickle's
  // instantiate() does (with no args, a class without __getinitargs__ is
  // made by cls.__new__(cls), __init__ not called); not part of the value
  // (equality ignores it, the encoder writes REDUCE).
  bool flag = false;
  // Int: true when the value does not fit in int64; then `payload()` holds
  // the minimal two's-complement little-endian bytes (pickle's LONG1 form)
  // and small() is kNoSmall. Set with set_big().
  bool big = false;
  // PickleBuffer and NDArray read through NEXT_BUFFER: the memory the loader
  // was given. Not part of the value: the encoder never reads it and
  // equality ignores it (see loaded_readonly).
  Supplied supplied = Supplied::None;

 private:
  bool borrowed_ = false;
  // Int, not big: the value. kNoSmall for every other node (see kNoSmall),
  // kept so by the setters below, reset() and the constructor.
  std::int64_t small_;
  // What a new node of kind `k` holds there: the int 0, or kNoSmall.
  static constexpr std::int64_t fresh_small(Kind k) { return k == Kind::Int ? 0 : kNoSmall; }

 public:
  double f = 0.0;  // Float

 private:
  // The node is 64 bytes, one cache line (Graph aligns its chunks to one):
  // kind and flags, small, f, the payload view, the items and the pointer
  // to the rarer parts.
  std::string_view view_;

 public:
  // List, Tuple, Set, FrozenSet: the items in order. Dict: key0, value0,
  // key1, value1, ... in insertion order. PersId: one item, the pid.
  // Module: empty, or one Global naming its types.ModuleType subclass (used
  // to materialize it; pickle carries only the import name).
  NodeList items;

  // Str: UTF-8 with lone surrogates encoded as 3-byte sequences (Python's
  // "surrogatepass"), exactly the bytes pickle writes. Bytes, ByteArray,
  // PickleBuffer: the raw bytes. Global: the module name. Int (big): see above.
  std::string_view payload() const { return view_; }
  void set_owned(std::string bytes) {
    borrowed_ = false;
    if (bytes.empty() && !extra_) {  // nothing to own: no extra parts for it
      view_ = {};
      return;
    }
    std::string& owned = extra().owned;
    owned = std::move(bytes);
    view_ = owned;
  }
  // Points at memory the caller keeps alive for the life of the graph
  // (an input buffer, an out-of-band frame): no copy is made.
  void set_borrowed(const void* data, std::size_t size) {
    if (extra_) std::string().swap(extra_->owned);
    view_ = std::string_view(static_cast<const char*>(data), size);
    borrowed_ = true;
  }
  bool borrowed() const { return borrowed_; }

  // Int, not big: the value (kNoSmall for any other node).
  std::int64_t small() const { return small_; }
  // Makes an Int node (its kind must be Int already) hold `v`, not big.
  void set_small(std::int64_t v) {
    big = false;
    small_ = v;
  }
  // Makes an Int node hold a value too large for int64: its minimal
  // two's-complement little-endian bytes, pickle's LONG1 form.
  void set_big(std::string twos_le) {
    big = true;
    small_ = kNoSmall;
    set_owned(std::move(twos_le));
  }
  // For a node whose kind changes from Int to another: no value of its own.
  void drop_small() {
    big = false;
    small_ = kNoSmall;
  }
  // The number fields of `from` (big, small, f), for a copy of it that has
  // its kind.
  void copy_numbers(const Node& from) {
    big = from.big;
    small_ = from.small_;
    f = from.f;
  }
  // kind == Str && !flag (a str that is not an interned name) as one test
  // of one load: kind and flag are the node's first two bytes.
  [[gnu::always_inline]] bool is_plain_str() const {
    static_assert(std::endian::native == std::endian::little, "kind is the low byte");
    std::uint16_t head;
    std::memcpy(&head, reinterpret_cast<const unsigned char*>(this), sizeof head);
    return head == static_cast<std::uint8_t>(Kind::Str);
  }
  // Whether the node is an Int that BININT* writes (int32), as one test of
  // one field: small() is outside int32 for every other node (kNoSmall).
  [[gnu::always_inline]] bool binint_value() const {
    return static_cast<std::uint64_t>(small_) + 0x80000000u < 0x100000000u;
  }

  // Points at bytes the node's Graph owns (its payload arena, see
  // Graph::copy_payload): owned by the value, not borrowed.
  void set_graph_owned(std::string_view bytes) {
    if (extra_) std::string().swap(extra_->owned);
    view_ = bytes;
    borrowed_ = false;
  }

  // The parts only some kinds have live behind one pointer (see Extra), so
  // the node is one cache line: reading them costs a load more, and a node
  // without them (nearly all of them) is at rest after a test of one word.
  //
  // Global: the qualified name. Module: the import name. Empty otherwise.
  const std::string& name() const { return extra_ ? extra_->name : empty_name(); }
  void set_name(std::string name) {
    if (!name.empty() || extra_) extra().name = std::move(name);
  }
  // Object only: the reduce's parts (nullptr for other kinds).
  ObjectParts* obj() const { return extra_ && extra_->obj ? &*extra_->obj : nullptr; }
  // Moves `parts` into the node (nullptr: the node has none).
  void set_obj(std::unique_ptr<ObjectParts> parts) {
    if (parts) {
      extra().obj.emplace(std::move(*parts));
    } else if (extra_) {
      extra_->obj.reset();
    }
  }
  // NDArray and Tensor only: the array's parts (nullptr for other kinds).
  ArrayParts* array() const { return extra_ ? extra_->array.get() : nullptr; }
  void set_array(std::unique_ptr<ArrayParts> parts) {
    if (parts || extra_) extra().array = std::move(parts);
  }
  // DeviceBuffer only: the buffer in device memory (empty for other kinds).
  const std::shared_ptr<device::Buffer>& device() const {
    return extra_ ? extra_->device : empty_device();
  }
  void set_device(std::shared_ptr<device::Buffer> buffer) {
    if (buffer || extra_) extra().device = std::move(buffer);
  }

 private:
  friend class Graph;  // recycles nodes; sets view_ of those it makes with arena payloads
  struct Extra {
    std::string name;
    // In place: an Object node makes one allocation for its parts, not two.
    std::optional<ObjectParts> obj;
    std::unique_ptr<ArrayParts> array;
    std::shared_ptr<device::Buffer> device;
    // Bytes set with set_owned (a node built by hand); most nodes' payloads
    // are in the graph's arena.
    std::string owned;
  };
  Extra& extra() {
    if (!extra_) {
      extra_ = std::make_unique<Extra>();
      heap_parts::note();
    }
    return *extra_;
  }
  static const std::string& empty_name();
  static const std::shared_ptr<device::Buffer>& empty_device();
  std::unique_ptr<Extra> extra_;

  // Graph's recycling (see Graph::make). A node "at rest" holds nothing its
  // destructor would free (no extra parts, no items of its own on the heap):
  // reset() then makes it equal to Node(k) with a handful of stores.
  bool at_rest() const {
    return (reinterpret_cast<std::uintptr_t>(extra_.get()) | items.owns_heap()) == 0;
  }
  void reset(Kind k) {
    // kind, flag, big, supplied and borrowed_, the node's first five bytes
    // (then padding up to `small`), in one 8-byte store: GCC writes the
    // fields one by one, whatever their order and through placement new
    // too, and a graph makes a node per BININT. The test
    // GraphMemory.ReusedNodesStartWithEveryFlagClear checks the layout
    // this assumes.
    const std::uint64_t head = static_cast<std::uint8_t>(k);
    std::memcpy(reinterpret_cast<unsigned char*>(this), &head, sizeof head);
    small_ = fresh_small(k);
    f = 0.0;
    view_ = {};
    items.forget_span();  // at rest: a span of the graph's arena at most
  }
};

static_assert(sizeof(Node) == 64, "a node is one cache line (see the field order above)");

// Whether the object a loader hands back for `n` is read-only: a
// PickleBuffer the stream marks read-only or whose supplied memory is, an
// NDArray that was pickled read-only or views read-only supplied memory.
// False for every other kind.
inline bool loaded_readonly(const Node& n) {
  const bool supplied_readonly = n.supplied == Supplied::ReadOnly;
  if (n.kind == Kind::PickleBuffer) return n.flag || supplied_readonly;
  if (n.kind == Kind::NDArray && n.array()) return !n.array()->writeable || supplied_readonly;
  return false;
}

// Owns every node of one value. Destroying a Graph never recurses, however
// deep the value is.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  // Nodes never move: a moved Graph keeps them where they are.
  Graph(Graph&& other) noexcept
      : root(other.root),
        chunks_(std::move(other.chunks_)),
        chunks_used_(std::exchange(other.chunks_used_, 0)),
        size_(other.size_),
        next_(std::exchange(other.next_, nullptr)),
        chunk_end_(std::exchange(other.chunk_end_, nullptr)),
        arena_(std::move(other.arena_)),
        heap_mark_(other.heap_mark_) {
    other.chunks_.clear();
    other.size_ = 0;
    other.root = nullptr;
  }
  Graph& operator=(Graph&& other) noexcept {
    if (this != &other) {
      destroy();
      root = other.root;
      chunks_ = std::move(other.chunks_);
      chunks_used_ = std::exchange(other.chunks_used_, 0);
      size_ = other.size_;
      next_ = std::exchange(other.next_, nullptr);
      chunk_end_ = std::exchange(other.chunk_end_, nullptr);
      arena_ = std::move(other.arena_);
      heap_mark_ = other.heap_mark_;
      other.chunks_.clear();
      other.size_ = 0;
      other.root = nullptr;
    }
    return *this;
  }
  ~Graph() {
    destroy();
    recycle_chunks();
  }

  [[gnu::always_inline]] Node* make(Kind kind) {
    if (next_ == chunk_end_) [[unlikely]] add_chunk();
    // Every slot of a chunk holds a node at rest (add_chunk, destroy).
    Node* n = next_++;
    n->reset(kind);
    ++size_;
    return n;
  }

  // make() for a run of nodes of one kind: hands each new node to
  // fill(node), and makes another while fill returns true. The chunk's
  // room is checked once per chunk rather than once per node (the
  // decoder's runs of BININT).
  template <class Fill>
  [[gnu::always_inline]] void make_while(Kind kind, Fill fill) {
    for (;;) {
      if (next_ == chunk_end_) [[unlikely]] add_chunk();
      Node* n = next_;
      Node* const last = chunk_end_;
      bool more;
      do {
        n->reset(kind);
        more = fill(n);
        ++n;
      } while (more && n != last);
      size_ += static_cast<std::size_t>(n - next_);
      next_ = n;
      if (!more) return;
    }
  }

  Node* none() { return make(Kind::None); }
  Node* boolean(bool v) {
    Node* n = make(Kind::Bool);
    n->flag = v;
    return n;
  }
  Node* integer(std::int64_t v) {
    Node* n = make(Kind::Int);
    n->small_ = v;
    return n;
  }
  // From minimal-or-not two's-complement little-endian bytes; normalizes to
  // `small` when the value fits in int64.
  Node* integer_le(std::string_view twos_le);
  Node* floating(double v) {
    Node* n = make(Kind::Float);
    n->f = v;
    return n;
  }
  Node* str(std::string utf8_surrogatepass);
  Node* bytes(std::string data);
  // The same, with the bytes copied into the graph's payload arena (one
  // bump allocation instead of a heap string per node; what the decoder uses).
  // (A new node owns nothing yet: its view is set, nothing to clear.)
  [[gnu::always_inline]] Node* str_copy(std::string_view utf8_surrogatepass) {
    Node* n = make(Kind::Str);
    n->view_ = arena_.copy(utf8_surrogatepass);
    return n;
  }
  Node* bytes_copy(std::string_view data) {
    Node* n = make(Kind::Bytes);
    n->view_ = arena_.copy(data);
    return n;
  }
  Node* bytearray(std::string data);
  // Containers, their items in the graph's arena (see append_items). Dict
  // items are interleaved: key0, value0, key1, value1...
  Node* container(Kind kind, Node* const* items, std::size_t count);
#define SERIALCHECK_CONTAINER_BUILDER(name, kind)                                       \
  Node* name(std::initializer_list<Node*> items = {}) {                                 \
    return container(kind, items.begin(), items.size());                                \
  }                                                                                     \
  Node* name(const std::vector<Node*>& items) {                                         \
    return container(kind, items.data(), items.size());                                 \
  }                                                                                     \
  Node* name(const NodeList& items) { return container(kind, items.data(), items.size()); }
  SERIALCHECK_CONTAINER_BUILDER(list, Kind::List)
  SERIALCHECK_CONTAINER_BUILDER(tuple, Kind::Tuple)
  SERIALCHECK_CONTAINER_BUILDER(dict, Kind::Dict)
  SERIALCHECK_CONTAINER_BUILDER(set, Kind::Set)
  SERIALCHECK_CONTAINER_BUILDER(frozenset, Kind::FrozenSet)
#undef SERIALCHECK_CONTAINER_BUILDER
  Node* global(std::string module, std::string qualname);
  Node* object(Node* callable, Node* args);
  Node* persid(Node* pid);
  Node* pickle_buffer(std::string data, bool readonly);
  Node* pickle_buffer_borrowed(const void* data, std::size_t size, bool readonly);
  // NDArray/Tensor with empty ArrayParts and no data; the caller fills them.
  Node* ndarray();
  Node* tensor();
  Node* module(std::string import_name, Node* subclass = nullptr);
  Node* device_buffer(std::shared_ptr<device::Buffer> buffer);

  // Appends `count` items to container node `n`, in a span of the graph's
  // arena (see NodeList): the first append takes exactly `count` slots,
  // and a later one that does not fit moves the items to a span twice as
  // large. What the decoder and the builders above use for every container.
  [[gnu::always_inline]] void append_items(Node* n, Node* const* first, std::size_t count) {
    NodeList& items = n->items;
    // The commonest case, inline: the first items of a container that has
    // none (a decoded list's APPENDS, a tuple), a few of them.
    if (items.capacity() == 0 && count - 1 < kInlineAppendMax) {
      Node** span = arena_.pointers(count);
      if (count >= 4) {  // four at a time, the last four overlapping
        for (std::size_t i = 0; i + 4 <= count; i += 4) {
          std::memcpy(span + i, first + i, 4 * sizeof(Node*));
        }
        std::memcpy(span + count - 4, first + count - 4, 4 * sizeof(Node*));
      } else {
        for (std::size_t i = 0; i < count; ++i) span[i] = first[i];
      }
      items.adopt_span(span, count);
      items.set_size(count);
      return;
    }
    append_items_slow(n, first, count);
  }

  std::size_t size() const { return size_; }
  // Bytes the graph holds in its node chunks and its arena (payloads and
  // item spans). Not counted: the heap parts of the rare kinds (an object's
  // reduce parts, an array's parts, a device buffer) and the payloads and
  // item lists of nodes edited by hand.
  std::size_t bytes_held() const { return chunks_.size() * sizeof(Chunk) + arena_.bytes_held(); }
  // Copies `bytes` into memory the graph owns and frees with its nodes; the
  // copy never moves. For payloads set with Node::set_graph_owned.
  std::string_view copy_payload(std::string_view bytes) { return arena_.copy(bytes); }
  // The i-th node made (creation order).
  Node& node(std::size_t i) { return chunks_[i / kChunkNodes]->at(i % kChunkNodes); }
  const Node& node(std::size_t i) const { return chunks_[i / kChunkNodes]->at(i % kChunkNodes); }

  Node* root = nullptr;

 private:
  // Nodes live in fixed chunks (one allocation per 32 nodes; a std::deque
  // of nodes this size made one per 3). A chunk's nodes are constructed when
  // the chunk is allocated and every slot not in use holds a node at rest
  // (Node::at_rest), which make() reuses and destroy() restores; so a chunk
  // is freed without running destructors, there being nothing to free.
  static constexpr std::size_t kChunkNodes = 32;
  struct alignas(64) Chunk {
    alignas(Node) unsigned char storage[kChunkNodes * sizeof(Node)];
    Node& at(std::size_t i) { return *std::launder(reinterpret_cast<Node*>(storage) + i); }
    const Node& at(std::size_t i) const {
      return *std::launder(reinterpret_cast<const Node*>(storage) + i);
    }
  };
  void add_chunk();
  // append_items() inline takes up to this many items into an empty container.
  static constexpr std::size_t kInlineAppendMax = 32;
  void append_items_slow(Node* n, Node* const* first, std::size_t count);
  // A builder's payload: copied into the arena up to kArenaPayloadMax bytes
  // (no allocation of its own), moved into the node beyond.
  static constexpr std::size_t kArenaPayloadMax = 1024;
  Node* with_payload(Node* n, std::string bytes);
  // Hands the (now empty) chunks and the arena's blocks to this thread's
  // cache, which add_chunk() takes from: a decode of a small pickle would
  // otherwise allocate and free a 2 KiB chunk and a 16 KiB block every
  // time. A few chunks go back in their list, whole, which the next graph
  // takes in one swap.
  void recycle_chunks() noexcept;
  // The thread's cache of empty chunks and standard arena blocks
  // (value.cpp), or null once the thread has destroyed it (a graph
  // destroyed at thread exit frees its memory itself).
  struct ThreadCache;
  static ThreadCache* thread_cache() noexcept;
  // Destroys the nodes that own memory of their own (Node::at_rest); the
  // arena's spans and payloads go with the arena.
  void destroy() noexcept;

  // Payload bytes and item spans: blocks of kArenaBlock bytes, filled in
  // order; a payload larger than a quarter block gets a block of its own.
  // The blocks form a list through a header at the start of each; the
  // standard ones go back to a small per-thread cache when the arena is
  // destroyed, so a decode of a small pickle allocates nothing for them.
  class Arena {
   public:
    static constexpr std::size_t kArenaBlock = 16384;
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    // The blocks move with their bytes; the source is left empty, with no
    // open block, so copying into it again starts a block of its own.
    Arena(Arena&& other) noexcept
        : head_(std::exchange(other.head_, nullptr)),
          next_(std::exchange(other.next_, nullptr)),
          end_(std::exchange(other.end_, nullptr)) {}
    Arena& operator=(Arena&& other) noexcept {
      if (this != &other) {
        release();
        head_ = std::exchange(other.head_, nullptr);
        next_ = std::exchange(other.next_, nullptr);
        end_ = std::exchange(other.end_, nullptr);
      }
      return *this;
    }
    ~Arena() { release(); }
    // A graph's first chunk takes the arena's first block from the same
    // cache, in the same call (Graph::add_chunk): the arena then opens
    // with room and its first span or payload takes no call. Only into an
    // empty arena, and only a block the cache has.
    void adopt_cached_block(ThreadCache* cache) noexcept;
    // Frees the blocks, the standard ones into `cache` while it has room.
    void release(ThreadCache* cache) noexcept;
    [[gnu::always_inline]] std::string_view copy(std::string_view bytes) {
      const std::size_t n = bytes.size();
      if (n == 0) return {};
      if (n > static_cast<std::size_t>(end_ - next_)) return copy_slow(bytes);
      char* p = next_;
      copy_bytes(p, bytes.data(), n);
      next_ += n;
      return {p, n};
    }

    // Room for `n` node pointers, aligned for them; never moves.
    [[gnu::always_inline]] Node** pointers(std::size_t n) {
      const std::size_t bytes = n * sizeof(Node*);
      auto at = reinterpret_cast<std::uintptr_t>(next_);
      at = (at + alignof(Node*) - 1) & ~std::uintptr_t{alignof(Node*) - 1};
      const auto end = reinterpret_cast<std::uintptr_t>(end_);
      if (next_ == nullptr || at > end || bytes > end - at) [[unlikely]] {
        return pointers_slow(bytes);
      }
      next_ = reinterpret_cast<char*>(at + bytes);
      return reinterpret_cast<Node**>(at);
    }

    // Bytes held in blocks (for memory reports).
    std::size_t bytes_held() const;

   private:
    // Each block starts with this header; its bytes follow, aligned for
    // any fundamental type.
    struct alignas(std::max_align_t) Block {
      Block* next;
      std::size_t size;  // bytes after the header
    };
    // A block with room for `bytes` (its payload), linked in; the open
    // block (next_/end_) is left as it is.
    char* add_block(std::size_t bytes);
    std::string_view copy_slow(std::string_view bytes);
    Node** pointers_slow(std::size_t bytes);
    void release() noexcept;
    Block* head_ = nullptr;
    char* next_ = nullptr;
    char* end_ = nullptr;
  };

  // The chunks held: the first chunks_used_ hold the nodes made, in order;
  // any after them are empty, taken by add_chunk() before the cache.
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::size_t chunks_used_ = 0;
  std::size_t size_ = 0;
  Node* next_ = nullptr;       // the last chunk's next free slot
  Node* chunk_end_ = nullptr;  // the end of the last chunk's slots
  Arena arena_;
  // heap_parts::count() when the graph had no node owning anything of its
  // own: when it started, or was last destroyed.
  std::uint64_t heap_mark_ = heap_parts::count();
};

}  // namespace serialcheck
