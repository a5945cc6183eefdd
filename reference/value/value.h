// The object model: a graph of nodes owned by an arena (`Graph`).
//
// A node's address is its identity. Pickle memoizes shared objects and
// cycles, and CPython's output depends on which objects are the same object,
// so the model keeps sharing exactly: two references to one Python object are
// two pointers to one Node. Nodes never move once made (the arena is a deque),
// which is what makes pointers stable identities.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
};

// Lower-case name used in JSON, errors and reports ("bytearray", "pickle-buffer"...).
std::string_view kind_name(Kind kind);

// Atoms carry no identity that matters: pickle never memoizes them and
// equality ignores whether two of them are the same node.
inline bool is_atom(Kind k) {
  return k == Kind::None || k == Kind::Bool || k == Kind::Int || k == Kind::Float;
}

struct Node;

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

struct Node {
  explicit Node(Kind k) : kind(k) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Kind kind;
  // Bool: the value. PickleBuffer: readonly.
  bool flag = false;
  // Int: true when the value does not fit in `small`; then `payload()` holds
  // the minimal two's-complement little-endian bytes (pickle's LONG1 form).
  bool big = false;
  std::int64_t small = 0;
  double f = 0.0;  // Float

  // Str: UTF-8 with lone surrogates encoded as 3-byte sequences (Python's
  // "surrogatepass"), exactly the bytes pickle writes. Bytes, ByteArray,
  // PickleBuffer: the raw bytes. Global: the module name. Int (big): see above.
  std::string_view payload() const { return view_; }
  void set_owned(std::string bytes) {
    owned_ = std::move(bytes);
    view_ = owned_;
    borrowed_ = false;
  }
  // Points at memory the caller keeps alive for the life of the graph
  // (an input buffer, an out-of-band frame): no copy is made.
  void set_borrowed(const void* data, std::size_t size) {
    owned_.clear();
    view_ = std::string_view(static_cast<const char*>(data), size);
    borrowed_ = true;
  }
  bool borrowed() const { return borrowed_; }

  std::string name;  // Global: the qualified name

  // List, Tuple, Set, FrozenSet: the items in order. Dict: key0, value0,
  // key1, value1, ... in insertion order. PersId: one item, the pid.
  std::vector<Node*> items;

  std::unique_ptr<ObjectParts> obj;  // Object only

 private:
  std::string owned_;
  std::string_view view_;
  bool borrowed_ = false;
};

// Owns every node of one value. Destroying a Graph never recurses, however
// deep the value is.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  Node* make(Kind kind);

  Node* none();
  Node* boolean(bool v);
  Node* integer(std::int64_t v);
  // From minimal-or-not two's-complement little-endian bytes; normalizes to
  // `small` when the value fits in int64.
  Node* integer_le(std::string_view twos_le);
  Node* floating(double v);
  Node* str(std::string utf8_surrogatepass);
  Node* bytes(std::string data);
  Node* bytearray(std::string data);
  Node* list(std::vector<Node*> items = {});
  Node* tuple(std::vector<Node*> items = {});
  Node* dict(std::vector<Node*> interleaved = {});
  Node* set(std::vector<Node*> items = {});
  Node* frozenset(std::vector<Node*> items = {});
  Node* global(std::string module, std::string qualname);
  Node* object(Node* callable, Node* args);
  Node* persid(Node* pid);
  Node* pickle_buffer(std::string data, bool readonly);
  Node* pickle_buffer_borrowed(const void* data, std::size_t size, bool readonly);

  std::size_t size() const { return nodes_.size(); }

  Node* root = nullptr;

 private:
  std::deque<Node> nodes_;
};

}  // namespace serialcheck
