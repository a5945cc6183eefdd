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

// What a thread keeps for its next graphs: empty node chunks (a decode of a
// small pickle would otherwise allocate and free a 2 KiB chunk every time),
// a chunk list with room, holding the empty chunks of the graph that left
// it, and standard arena blocks (at most kKeepBlocks, 128 KiB in all). One
// object, so that a graph's first node reaches all three with one lookup.
// It is destroyed at thread exit (freeing what it holds); a graph destroyed
// after that on the same thread (a static one) frees its memory itself,
// which the flag tells it.
struct Graph::ThreadCache {
  static constexpr std::size_t kKeepChunks = 8;
  std::unique_ptr<Chunk> chunks[kKeepChunks];
  std::size_t chunk_count = 0;
  std::vector<std::unique_ptr<Chunk>> spare_list;
  static constexpr std::size_t kKeepBlocks = 8;
  void* blocks[kKeepBlocks] = {};
  std::size_t block_count = 0;
  ~ThreadCache();
};

namespace {
thread_local bool thread_cache_gone = false;
}  // namespace

Graph::ThreadCache::~ThreadCache() {
  for (std::size_t i = 0; i < block_count; ++i) ::operator delete(blocks[i]);
  thread_cache_gone = true;
}

Graph::ThreadCache* Graph::thread_cache() noexcept {
  if (thread_cache_gone) return nullptr;
  thread_local ThreadCache cache;
  return &cache;
}

void Graph::add_chunk() {
  if (chunks_used_ == chunks_.size()) {
    ThreadCache* cache = thread_cache();
    // A graph's first chunk: the list a graph left, with its chunks, and a
    // block for the arena.
    if (cache != nullptr && chunks_.capacity() == 0) {
      chunks_.swap(cache->spare_list);
      arena_.adopt_cached_block(cache);
    }
    if (chunks_used_ == chunks_.size()) {
      if (cache != nullptr && cache->chunk_count > 0) {
        chunks_.push_back(std::move(cache->chunks[--cache->chunk_count]));
      } else {
        auto chunk = std::unique_ptr<Chunk>(new Chunk);
        for (std::size_t i = 0; i < kChunkNodes; ++i) {
          new (chunk->storage + i * sizeof(Node)) Node(Kind::None);  // at rest
        }
        chunks_.push_back(std::move(chunk));
      }
    }
  }
  next_ = &chunks_[chunks_used_++]->at(0);
  chunk_end_ = next_ + kChunkNodes;
}

void Graph::recycle_chunks() noexcept {
  ThreadCache* cache = thread_cache();
  if (cache == nullptr) return;
  arena_.release(cache);
  if (cache->spare_list.capacity() == 0 && chunks_.size() <= ThreadCache::kKeepChunks &&
      chunks_.capacity() <= 64) {
    chunks_.swap(cache->spare_list);  // chunks and all, for the next graph's first add_chunk()
    return;
  }
  while (!chunks_.empty() && cache->chunk_count < ThreadCache::kKeepChunks) {
    cache->chunks[cache->chunk_count++] = std::move(chunks_.back());
    chunks_.pop_back();
  }
  if (chunks_.empty() && chunks_.capacity() <= 64 && cache->spare_list.capacity() == 0) {
    chunks_.swap(cache->spare_list);
  }
}

void Graph::append_items_slow(Node* n, Node* const* first, std::size_t count) {
  NodeList& items = n->items;
  const std::size_t size = items.size();
  if (count > items.capacity() - size) {
    if (count > NodeList::kMaxSize - size) throw std::length_error("a container of more than 2**31 - 1 items");
    const std::size_t room = size == 0 ? count : std::min(std::max(size + count, 2 * size), NodeList::kMaxSize);
    Node** span = arena_.pointers(room);
    if (size != 0) std::memcpy(span, items.data(), size * sizeof(Node*));
    items.adopt_span(span, room);
  }
  if (count != 0) std::memcpy(items.data() + size, first, count * sizeof(Node*));
  items.set_size(size + count);
}

void Graph::destroy() noexcept {
  // Chunk by chunk: the nodes made are the first size_ slots. None of them
  // owns anything when no node anywhere took a heap part since the mark.
  const std::size_t made = heap_parts::count() == heap_mark_ ? 0 : size_;
  for (std::size_t c = 0, left = made; left > 0; ++c) {
    const std::size_t used = std::min(left, kChunkNodes);
    left -= used;
    Node* const first = &chunks_[c]->at(0);
    for (Node* n = first; n != first + used; ++n) {
      // Back at rest for make() (see kChunkNodes): most nodes already are.
      if (!n->at_rest()) [[unlikely]] {
        n->~Node();
        new (n) Node(Kind::None);
      }
    }
  }
  size_ = 0;
  chunks_used_ = 0;
  next_ = chunk_end_ = nullptr;  // make() takes the first chunk again
  heap_mark_ = heap_parts::count();
}

const std::string& Node::empty_name() {
  static const std::string empty;
  return empty;
}

const std::shared_ptr<device::Buffer>& Node::empty_device() {
  static const std::shared_ptr<device::Buffer> empty;
  return empty;
}

Node* Graph::integer_le(std::string_view twos_le) {
  Node* n = make(Kind::Int);
  std::string minimal = minimal_twos_le(twos_le);
  std::int64_t v = 0;
  if (twos_le_to_int64(minimal, v)) {
    n->set_small(v);
  } else {
    n->set_big(std::move(minimal));
  }
  return n;
}

char* Graph::Arena::add_block(std::size_t bytes) {
  void* memory = nullptr;
  if (bytes == kArenaBlock) {
    ThreadCache* cache = thread_cache();
    if (cache != nullptr && cache->block_count > 0) memory = cache->blocks[--cache->block_count];
  }
  if (memory == nullptr) memory = ::operator new(sizeof(Block) + bytes);
  auto* block = static_cast<Block*>(memory);
  block->next = head_;
  block->size = bytes;
  head_ = block;
  return reinterpret_cast<char*>(block + 1);
}

void Graph::Arena::adopt_cached_block(ThreadCache* cache) noexcept {
  if (head_ != nullptr || cache->block_count == 0) return;
  auto* block = static_cast<Block*>(cache->blocks[--cache->block_count]);
  block->next = nullptr;
  block->size = kArenaBlock;
  head_ = block;
  next_ = reinterpret_cast<char*>(block + 1);
  end_ = next_ + kArenaBlock;
}

void Graph::Arena::release() noexcept {
  if (head_ != nullptr) release(thread_cache());
}

void Graph::Arena::release(ThreadCache* cache) noexcept {
  while (head_ != nullptr) {
    Block* block = head_;
    head_ = block->next;
    if (block->size == kArenaBlock && cache != nullptr &&
        cache->block_count < ThreadCache::kKeepBlocks) {
      cache->blocks[cache->block_count++] = block;
    } else {
      ::operator delete(block);
    }
  }
  next_ = end_ = nullptr;
}

std::size_t Graph::Arena::bytes_held() const {
  std::size_t total = 0;
  for (const Block* b = head_; b != nullptr; b = b->next) total += sizeof(Block) + b->size;
  return total;
}

Node** Graph::Arena::pointers_slow(std::size_t bytes) {
  if (bytes > kArenaBlock / 4) return reinterpret_cast<Node**>(add_block(bytes));  // its own
  char* p = add_block(kArenaBlock);
  next_ = p + bytes;
  end_ = p + kArenaBlock;
  return reinterpret_cast<Node**>(p);
}

std::string_view Graph::Arena::copy_slow(std::string_view bytes) {
  char* p;
  if (bytes.size() > kArenaBlock / 4) {
    p = add_block(bytes.size());  // a block of its own; the open block stays open
  } else {
    p = add_block(kArenaBlock);
    next_ = p + bytes.size();
    end_ = p + kArenaBlock;
  }
  std::memcpy(p, bytes.data(), bytes.size());
  return {p, bytes.size()};
}

Node* Graph::with_payload(Node* n, std::string bytes) {
  if (bytes.size() <= kArenaPayloadMax) {
    n->set_graph_owned(arena_.copy(bytes));
  } else {
    n->set_owned(std::move(bytes));  // moved, not copied
  }
  return n;
}

Node* Graph::str(std::string s) { return with_payload(make(Kind::Str), std::move(s)); }
Node* Graph::bytes(std::string data) { return with_payload(make(Kind::Bytes), std::move(data)); }
Node* Graph::bytearray(std::string data) {
  return with_payload(make(Kind::ByteArray), std::move(data));
}

Node* Graph::container(Kind kind, Node* const* items, std::size_t count) {
  Node* n = make(kind);
  if (count != 0) append_items(n, items, count);
  return n;
}

Node* Graph::global(std::string module, std::string qualname) {
  Node* n = with_payload(make(Kind::Global), std::move(module));
  n->set_name(std::move(qualname));
  return n;
}

Node* Graph::object(Node* callable, Node* args) {
  Node* n = make(Kind::Object);
  ObjectParts& parts = n->extra().obj.emplace();
  parts.callable = callable;
  parts.args = args;
  return n;
}

Node* Graph::persid(Node* pid) { return container(Kind::PersId, &pid, 1); }

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
  n->set_array(std::make_unique<ArrayParts>());
  return n;
}

Node* Graph::tensor() {
  Node* n = make(Kind::Tensor);
  n->set_array(std::make_unique<ArrayParts>());
  return n;
}

Node* Graph::module(std::string import_name, Node* subclass) {
  Node* n = make(Kind::Module);
  n->set_name(std::move(import_name));
  if (subclass != nullptr) n->items.push_back(subclass);
  return n;
}

Node* Graph::device_buffer(std::shared_ptr<device::Buffer> buffer) {
  Node* n = make(Kind::DeviceBuffer);
  n->set_device(std::move(buffer));
  return n;
}

}  // namespace serialcheck
