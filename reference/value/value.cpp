#include "reference/value/value.h"

#include <algorithm>
#include <bit>

#include "reference/value/numeric.h"

namespace serialcheck {

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::None: return "none";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::ByteArray: return "bytearray";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Set: return "set";
    case Kind::FrozenSet: return "frozenset";
    case Kind::Global: return "global";
    case Kind::Object: return "object";
    case Kind::PersId: return "persid";
    case Kind::PickleBuffer: return "pickle-buffer";
    case Kind::NDArray: return "ndarray";
    case Kind::Tensor: return "tensor";
    case Kind::Module: return "module";
    case Kind::DeviceBuffer: return "device-buffer";
  }
  return "?";
}

namespace {

// Empty node chunks kept by a thread for its next graphs. The cache object
// is destroyed at thread exit (freeing what it holds); a graph destroyed
// after that on the same thread (a static one) frees its chunks itself,
// which the trivially destructible flag tells it.
template <class Chunk>
struct ChunkCache {
  static constexpr std::size_t kKeep = 8;
  std::unique_ptr<Chunk> slots[kKeep];
  std::size_t count = 0;
  // An empty chunk list with room, for the next graph's first chunk (a
  // graph's list would otherwise be allocated and freed every time).
  std::vector<std::unique_ptr<Chunk>> spare_list;
  ~ChunkCache();
};

thread_local bool chunk_cache_gone = false;

template <class Chunk>
ChunkCache<Chunk>::~ChunkCache() {
  chunk_cache_gone = true;
}

}  // namespace

struct Graph::ChunkCacheAccess {
  static ChunkCache<Chunk>* get() {
    if (chunk_cache_gone) return nullptr;
    thread_local ChunkCache<Chunk> cache;
    return &cache;
  }
};

void Graph::add_chunk() {
  ChunkCache<Chunk>* cache = ChunkCacheAccess::get();
  if (cache != nullptr && chunks_.capacity() == 0) chunks_.swap(cache->spare_list);
  if (cache != nullptr && cache->count > 0) {
    chunks_.push_back(std::move(cache->slots[--cache->count]));
  } else {
    auto chunk = std::unique_ptr<Chunk>(new Chunk);
    for (std::size_t i = 0; i < kChunkNodes; ++i) {
      new (chunk->storage + i * sizeof(Node)) Node(Kind::None);  // at rest
    }
    chunks_.push_back(std::move(chunk));
  }
  next_ = &chunks_.back()->at(0);
  chunk_end_ = next_ + kChunkNodes;
}

void Graph::recycle_chunks() noexcept {
  ChunkCache<Chunk>* cache = ChunkCacheAccess::get();
  if (cache == nullptr) return;
  while (!chunks_.empty() && cache->count < ChunkCache<Chunk>::kKeep) {
    cache->slots[cache->count++] = std::move(chunks_.back());
    chunks_.pop_back();
  }
  if (chunks_.empty() && chunks_.capacity() <= 64 && cache->spare_list.capacity() == 0) {
    chunks_.swap(cache->spare_list);
  }
}

namespace {

// Item arrays of destroyed nodes, kept by a thread for its next graphs, by
// capacity: bucket b holds empty arrays of capacity 2**b (1 to 256 items),
// at most 4096 items' worth per bucket (about 288 KiB in all). Decoding
// many small containers would otherwise allocate and free an array for each.
// Like the chunk cache, a graph destroyed after the cache (a static one)
// frees its arrays itself.
struct ItemsCache {
  static constexpr int kBuckets = 9;
  static constexpr std::size_t kSlots = 128;
  static constexpr std::size_t keep(int bucket) {
    return std::min<std::size_t>(kSlots, std::size_t{4096} >> bucket);
  }
  std::vector<Node*> slots[kBuckets][kSlots];
  std::size_t count[kBuckets] = {};
  ~ItemsCache();
};

thread_local bool items_cache_gone = false;

ItemsCache::~ItemsCache() { items_cache_gone = true; }

}  // namespace

struct Graph::ItemsCacheAccess {
  static ItemsCache* get() {
    if (items_cache_gone) return nullptr;
    thread_local ItemsCache cache;
    return &cache;
  }
};

void Graph::append_items(Node* n, Node* const* first, std::size_t count) {
  std::vector<Node*>& items = n->items;
  if (items.capacity() < count && items.empty()) {
    const int bucket = static_cast<int>(std::bit_width(count - 1));  // ceil(log2(count))
    if (bucket < ItemsCache::kBuckets) {
      ItemsCache* cache = ItemsCacheAccess::get();
      if (cache != nullptr && cache->count[bucket] > 0) {
        // The cached array is empty, of capacity 2**bucket >= count.
        items.swap(cache->slots[bucket][--cache->count[bucket]]);
      } else {
        items.reserve(std::size_t{1} << bucket);
      }
    }
  }
  items.insert(items.end(), first, first + count);
}

void Graph::destroy() noexcept {
  ItemsCache* cache = size_ > 0 ? ItemsCacheAccess::get() : nullptr;
  // Chunk by chunk: the nodes made are the first size_ slots.
  for (std::size_t c = 0, left = size_; left > 0; ++c) {
    const std::size_t used = std::min(left, kChunkNodes);
    left -= used;
    Node* const first = &chunks_[c]->at(0);
    for (Node* n = first; n != first + used; ++n) {
      const std::size_t capacity = n->items.capacity();
      if (capacity != 0 && cache != nullptr && (capacity & (capacity - 1)) == 0) {
        const int bucket = std::countr_zero(capacity);
        if (bucket < ItemsCache::kBuckets && cache->count[bucket] < ItemsCache::keep(bucket)) {
          n->items.clear();
          cache->slots[bucket][cache->count[bucket]++] = std::move(n->items);
        }
      }
      // Back at rest for make() (see kChunkNodes): most nodes already are,
      // once their item array is handed back.
      if (!n->at_rest()) [[unlikely]] {
        n->~Node();
        new (n) Node(Kind::None);
      }
    }
  }
  size_ = 0;
  next_ = chunk_end_ = nullptr;  // make() takes a chunk again
}

Node* Graph::integer_le(std::string_view twos_le) {
  Node* n = make(Kind::Int);
  std::string minimal = minimal_twos_le(twos_le);
  std::int64_t v = 0;
  if (twos_le_to_int64(minimal, v)) {
    n->small = v;
  } else {
    n->big = true;
    n->set_owned(std::move(minimal));
  }
  return n;
}

std::string_view Graph::Arena::copy_slow(std::string_view bytes) {
  char* p;
  if (bytes.size() > kArenaBlock / 4) {
    // A large payload gets a block of its own; the open block stays open.
    blocks_.emplace_back(new char[bytes.size()]);
    p = blocks_.back().get();
  } else {
    blocks_.emplace_back(new char[kArenaBlock]);
    p = blocks_.back().get();
    next_ = p + bytes.size();
    end_ = p + kArenaBlock;
  }
  std::memcpy(p, bytes.data(), bytes.size());
  return {p, bytes.size()};
}

namespace {
Node* with_payload(Node* n, std::string bytes) {
  n->set_owned(std::move(bytes));
  return n;
}
Node* with_items(Node* n, std::vector<Node*> items) {
  n->items = std::move(items);
  return n;
}
}  // namespace

Node* Graph::str(std::string s) { return with_payload(make(Kind::Str), std::move(s)); }
Node* Graph::bytes(std::string data) { return with_payload(make(Kind::Bytes), std::move(data)); }
Node* Graph::bytearray(std::string data) {
  return with_payload(make(Kind::ByteArray), std::move(data));
}

Node* Graph::list(std::vector<Node*> items) { return with_items(make(Kind::List), std::move(items)); }
Node* Graph::tuple(std::vector<Node*> items) { return with_items(make(Kind::Tuple), std::move(items)); }
Node* Graph::dict(std::vector<Node*> kv) { return with_items(make(Kind::Dict), std::move(kv)); }
Node* Graph::set(std::vector<Node*> items) { return with_items(make(Kind::Set), std::move(items)); }
Node* Graph::frozenset(std::vector<Node*> items) {
  return with_items(make(Kind::FrozenSet), std::move(items));
}

Node* Graph::global(std::string module, std::string qualname) {
  Node* n = with_payload(make(Kind::Global), std::move(module));
  n->name = std::move(qualname);
  return n;
}

Node* Graph::object(Node* callable, Node* args) {
  Node* n = make(Kind::Object);
  n->obj = std::make_unique<ObjectParts>();
  n->obj->callable = callable;
  n->obj->args = args;
  return n;
}

Node* Graph::persid(Node* pid) { return with_items(make(Kind::PersId), {pid}); }

Node* Graph::pickle_buffer(std::string data, bool readonly) {
  Node* n = with_payload(make(Kind::PickleBuffer), std::move(data));
  n->flag = readonly;
  return n;
}

Node* Graph::pickle_buffer_borrowed(const void* data, std::size_t size, bool readonly) {
  Node* n = make(Kind::PickleBuffer);
  n->set_borrowed(data, size);
  n->flag = readonly;
  return n;
}

Node* Graph::ndarray() {
  Node* n = make(Kind::NDArray);
  n->array = std::make_unique<ArrayParts>();
  return n;
}

Node* Graph::tensor() {
  Node* n = make(Kind::Tensor);
  n->array = std::make_unique<ArrayParts>();
  return n;
}

Node* Graph::module(std::string import_name, Node* subclass) {
  Node* n = make(Kind::Module);
  n->name = std::move(import_name);
  if (subclass != nullptr) n->items.push_back(subclass);
  return n;
}

Node* Graph::device_buffer(std::shared_ptr<device::Buffer> buffer) {
  Node* n = make(Kind::DeviceBuffer);
  n->device = std::move(buffer);
  return n;
}

}  // namespace serialcheck
