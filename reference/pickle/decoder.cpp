// The decoder is a stack machine in the manner of CPython's Unpickler: one
// object stack, a separate stack of mark positions (so MARK and POP_MARK are
// O(1)), and a memo from keys to nodes. Items below the topmost mark are out
// of reach of every opcode but the one that consumes the mark, as in
// CPython. Nothing is executed: globals are names, calls are Object nodes.
//
// Choices where the model or the "never execute" rule forces one:
// - STRING/BINSTRING/SHORT_BINSTRING (Python 2 str) decode as CPython 3
//   decodes them with DecodeOptions::python2_str: by default (encoding=
//   "ASCII") a Str when every byte is ASCII, BadValue otherwise; "latin1"
//   a Str of the bytes' code points; "bytes" a Bytes.
// - EXT1/2/4 consult no registry: the value is an inert extension reference
//   Object(Global("copyreg", "_inverted_registry"), (code,)), read as "the
//   global registered under `code`" (reference/pickle/extension.h), a new
//   node for every EXT, since CPython never memoizes one. The encoder writes
//   it back as the same EXT.
// - A second BUILD on the same object is BadValue: the model holds one state.
//   BUILD on anything but an Object is BadValue too.
// - REDUCE immediately followed by POP, calling f with (obj, state) where obj
//   is an Object without state and the tuple is the one TUPLE2 made just
//   before the REDUCE, is how CPython writes a reduce value's state_setter;
//   it becomes obj's state and state_setter. A tuple from the memo is not
//   one: REDUCE, POP on a memoized tuple drops a second copy of an object
//   that its own arguments reached.
// - Dict items and set items are kept as the stream lists them: the model does
//   not hash, so duplicate keys are not merged.
// - An out-of-band buffer's readonly flag is what the stream says
//   (READONLY_BUFFER or not), not whether the memory the loader supplied is
//   writable; that is kept apart in Node::supplied. So decoding and encoding
//   again gives the same bytes whatever memory the loader was given, where
//   CPython's loaded object would say only whether it is writable.
// - A str that STACK_GLOBAL takes as a module name or qualname is marked
//   interned (Node::flag): CPython writes a global's names from interned
//   strs and memoizes by identity, so a str value that the stream shares
//   with a name is that interned object, which the encoder writes again
//   through one memo entry with the names.
// - INST and OBJ make an Object marked instantiate (Node::flag, JSON
//   "instantiate"): CPython's loader does not call cls(*args) for them but
//   pickle's instantiate(), which with no args makes an instance of a class
//   without __getinitargs__ by cls.__new__(cls), __init__ not called. The
//   decoder cannot know the class, so it keeps the stream fact; a loader
//   (the Python bridge) acts on it. The encoder ignores the mark and writes
//   REDUCE, as CPython 3, which never writes INST or OBJ, would.
// - None, True, False and BININT1 ints are shared nodes (atoms have no
//   identity that matters), which keeps long runs of them cheap.
// - Globals are interned: every mention of one qualified name (after
//   fix_imports) is one node, as it is one object in Python. So the
//   copyreg.__newobj__ callable of every NEWOBJ object is one node too.
// - Memory: what the budget must stop is amplification, where a few input
//   bytes make unbounded memory (a huge declared length, a huge memo key,
//   NEWOBJ or set(list) copying a long shared sequence again and again).
//   Payload bytes, item lists and the memo are charged at their real size,
//   before they are made. Each node is charged a nominal kNodeCost: every
//   opcode makes at most a few nodes, so a fixed charge keeps long runs of
//   small values (CPython writes `)` for each empty tuple, `]\x94` for each
//   empty list) inside the default budget. The object and mark stacks are not
//   charged: each push consumes at least one input byte.
// - Nothing here recurses, so the depth of the value built is not limited;
//   Limits::max_depth bounds the marks open at once.
// - Work: DecodeStats::work counts what each opcode does beyond a constant
//   (bytes read, stack items moved, bytes charged, big-int conversion), at
//   the place it is done, so the bounds of docs/safe-loading.md can be checked
//   by measuring instead of by reading the code.
// - Policy: the allowlist is checked where a name enters the stack (GLOBAL,
//   INST, STACK_GLOBAL, EXT*) and where a persistent id is read; calls need no
//   check of their own (docs/safe-loading.md says why). The observer hooks sit
//   at the same opcodes.
#include "reference/pickle/decoder.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "reference/common/pyrepr.h"
#include "reference/common/utf8.h"
#include "reference/pickle/compat.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/pod_stack.h"
#include "reference/pickle/policy.h"
#include "reference/pickle/reader.h"
#include "reference/pickle/scratch_pool.h"
#include "reference/pickle/text.h"
#include "reference/types/builtin_reduce.h"
#include "reference/types/domain.h"
#include "reference/value/numeric.h"

namespace serialcheck::pickle {

namespace {

// CPython refuses int <-> decimal text conversions longer than this
// (sys.get_int_max_str_digits()), for the same reason: they are quadratic.
constexpr std::size_t kMaxIntDigits = 4300;

// The nominal charge for one node (see above).
constexpr std::size_t kNodeCost = 32;

// Rough cost of a hash-map memo entry (node, key, bucket pointer).
constexpr std::size_t kSparseMemoEntryCost = 48;

// Characters of a persistent id shown in a policy error.
constexpr std::size_t kDescribeChars = 80;

// An argument for a message: printable ASCII as it is (the text sits
// between single quotes), other bytes as \x escapes, cut at `max` bytes.
std::string printable(std::string_view s, std::size_t max = 40) {
  std::string out;
  append_escaped_bytes(out, s.substr(0, max), Shown::PrintableAscii);
  if (s.size() > max) out += "...";
  return out;
}

// A global's name part for a message: as it is (UTF-8 included), with
// control characters and backslashes escaped, cut at 200 bytes.
std::string name_text(std::string_view s) {
  constexpr std::size_t kMax = 200;
  std::string out;
  append_escaped_bytes(out, s.substr(0, kMax), Shown::AllButControls);
  if (s.size() > kMax) out += "...";
  return out;
}

// The memo: a dense vector for the keys CPython's picklers use (0, 1, 2...)
// and a hash map for any others, so a single huge key cannot make the decoder
// allocate a huge array. The dense part only grows while it stays at least
// about half full.
class Memo {
 public:
  Node* get(std::uint64_t key) const {
    if (key < dense_.size() && dense_[key] != nullptr) return dense_[key];
    if (sparse_.empty()) return nullptr;
    auto it = sparse_.find(key);
    return it == sparse_.end() ? nullptr : it->second;
  }

  // Stores `node` at `key`; returns the bytes newly allocated for it.
  std::size_t put(std::uint64_t key, Node* node) {
    // The common case: the next key in order (MEMOIZE, or a pickler's
    // BINPUT), nothing in the sparse part.
    if (key == dense_.size() && sparse_.empty() && key < 2 * count_ + 4096) {
      const std::size_t before = dense_.capacity();
      dense_.push_back(node);
      ++count_;
      return (dense_.capacity() - before) * sizeof(Node*);
    }
    std::size_t cost = 0;
    if (key >= dense_.size() && key < 2 * count_ + 4096) {
      const std::size_t before = dense_.capacity();
      dense_.resize(static_cast<std::size_t>(key) + 1, nullptr);
      cost += (dense_.capacity() - before) * sizeof(Node*);
    }
    if (key < dense_.size()) {
      Node*& slot = dense_[key];
      if (slot == nullptr) {
        // The key may sit in the sparse map from before the dense part grew.
        if (sparse_.empty() || sparse_.erase(key) == 0) ++count_;
      }
      slot = node;
      return cost;
    }
    auto [it, inserted] = sparse_.try_emplace(key, node);
    if (inserted) {
      ++count_;
      cost += kSparseMemoEntryCost;
    } else {
      it->second = node;
    }
    return cost;
  }

  // put() of the next key in order when that needs no allocation (the
  // commonest MEMOIZE); false, having done nothing, otherwise.
  [[gnu::always_inline]] bool put_next_in_place(Node* node) {
    if (!sparse_.empty() || dense_.size() != count_ || dense_.size() == dense_.capacity()) {
      return false;
    }
    dense_.push_back(node);
    ++count_;
    return true;
  }

  std::size_t size() const { return count_; }
  std::size_t capacity() const { return dense_.capacity(); }

  // Empty again, keeping the dense part's memory.
  void clear() {
    dense_.clear();
    if (!sparse_.empty()) sparse_.clear();  // clear() zeroes every bucket, even when empty
    count_ = 0;
  }

 private:
  std::vector<Node*> dense_;
  std::unordered_map<std::uint64_t, Node*> sparse_;
  std::size_t count_ = 0;
};

// The decoder's working memory (object stack, mark stack, memo, small-int
// table), kept by the thread between calls (scratch_pool.h). Scratch grown
// past kKeepEntries is freed, not kept.
struct Scratch {
  static constexpr std::size_t kKeepEntries = std::size_t{1} << 16;
  PodStack<Node*> stack;
  std::vector<std::size_t> marks;
  Memo memo;
  // BININT1's node for each value, made once per decode: null until then.
  // Between decodes every slot is null again; reset() clears just the slots
  // `small_ints_made` names, not the whole 2 KiB.
  std::array<Node*, 256> small_ints{};
  std::array<std::uint8_t, 256> small_ints_made{};  // the values set, in the order made
  std::size_t small_ints_count = 0;
  // The Object nodes the decode made, in order: the only nodes whose reduce
  // forms may be domain types (see Decoder::run).
  std::vector<Node*> objects;
  // The Global nodes the decode made, by name (Decoder::interned_global):
  // kept here so that a decode naming a global does not allocate the table.
  absl::flat_hash_map<std::string, Node*> globals;

  void reset() {
    stack.clear();
    marks.clear();
    memo.clear();
    objects.clear();
    if (!globals.empty()) globals.clear();  // a small table keeps its memory
    for (std::size_t i = 0; i < small_ints_count; ++i) small_ints[small_ints_made[i]] = nullptr;
    small_ints_count = 0;
  }
  bool worth_keeping() const {
    return stack.capacity() <= kKeepEntries && marks.capacity() <= kKeepEntries &&
           memo.capacity() <= kKeepEntries && objects.capacity() <= kKeepEntries &&
           globals.capacity() <= kKeepEntries;
  }
};

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> data, Graph& graph, const DecodeOptions& options)
      : in_(data),
        size_(data.size()),
        graph_(graph),
        options_(options),
        max_protocol_(std::clamp(options.max_protocol, 0, kHighestProtocol)) {
    const Limits& lim = options.limits;
    // per_byte * size + constant, saturating at SIZE_MAX (checked with the
    // overflow builtins: a division here cost more than a small decode's
    // opcodes).
    std::size_t scaled = 0;
    if (__builtin_mul_overflow(lim.alloc_per_input_byte, size_, &scaled) ||
        __builtin_add_overflow(scaled, lim.alloc_constant, &budget_)) {
      budget_ = SIZE_MAX;
    }
    nodes_before_ = graph.size();
  }

  DecodeStats stats() const {
    DecodeStats st;
    st.input_size = size_;
    st.steps = steps_;
    const std::size_t made = graph_.size() - nodes_before_;
    st.nodes = stopped_ ? nodes_at_stop_ : made;
    // The post-decode pass looks at each node once.
    st.work = steps_ + in_.pos() + moved_ + allocated_ + extra_work_ + made;
    st.allocated = allocated_;
    st.budget = budget_;
    st.max_stack = max_stack_;
    return st;
  }

  DecodeResult run();

 private:
  // ---- errors --------------------------------------------------------------
  [[noreturn]] void fail(ErrorKind kind, std::string message) const {
    in_.fail(kind, std::move(message));
  }
  [[noreturn]] void underflow() const {
    fail(ErrorKind::StackUnderflow,
         fmt::format("{} needs more items than the stack holds{}", op_name(),
                     marks_.empty() ? "" : " above the mark"));
  }
  std::string op_name() const { return std::string(op_name_view()); }

  // ---- input ---------------------------------------------------------------
  const std::uint8_t* read(std::size_t n) { return in_.read(n); }
  std::uint64_t read_uint(std::size_t n) { return in_.read_uint(n); }
  std::string_view read_counted(std::size_t length_bytes, bool is_signed = false) {
    return in_.read_counted(length_bytes, is_signed);
  }
  std::string_view read_line() { return in_.read_line(); }

  // ---- memory --------------------------------------------------------------
  // A refused charge is not counted: nothing was allocated for it.
  bool affordable(std::size_t bytes) const { return bytes <= budget_ - allocated_; }
  [[gnu::always_inline]] void charge(std::size_t bytes) {
    if (bytes > budget_ - allocated_) [[unlikely]]
      over_budget();
    allocated_ += bytes;
  }
  [[noreturn, gnu::noinline, gnu::cold]] void over_budget() const {
    fail(ErrorKind::LimitExceeded,
         fmt::format("decoding would allocate more than {} bytes for {} input bytes", budget_,
                     size_));
  }
  void charge_node(std::size_t payload = 0, std::size_t items = 0) {
    charge(kNodeCost + payload + items * sizeof(Node*));
  }
  void charge_object() { charge(kNodeCost + sizeof(ObjectParts)); }
  // After the fact, for nodes made elsewhere (the builtin reduce table).
  void charge_made(const Node* n) {
    charge_node(n->borrowed() ? 0 : n->payload().size(), n->items.size());
  }

  // ---- stack ---------------------------------------------------------------
  std::size_t fence() const { return marks_.empty() ? 0 : marks_.back(); }
  [[gnu::always_inline]] void push(Node* n) {
    stack_.push_back(n);
    if (stack_.size() > max_stack_) max_stack_ = stack_.size();
  }
  Node* pop() {
    if (stack_.size() <= fence()) underflow();
    Node* n = stack_.back();
    stack_.pop_back();
    return n;
  }
  Node*& top() {
    if (stack_.size() <= fence()) underflow();
    return stack_.back();
  }
  // The items above the topmost mark, removing them and the mark.
  std::vector<Node*> pop_mark() {
    const std::size_t mark = take_mark();
    std::vector<Node*> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);  // take_mark() counted them as moved
    return items;
  }
  // A container of `kind` holding the items above the topmost mark, which
  // are removed with the mark (DICT, LIST, TUPLE, FROZENSET).
  Node* from_mark(Kind kind) {
    const std::size_t mark = take_mark();
    const std::size_t count = stack_.size() - mark;
    if (kind == Kind::Dict && count % 2 != 0) {
      fail(ErrorKind::BadValue, "odd number of items for DICT");
    }
    charge_node(0, count);
    Node* n = graph_.make(kind);
    if (count != 0) graph_.append_items(n, stack_.data() + mark, count);
    stack_.resize(mark);
    return n;
  }
  // Removes the topmost mark and returns its stack position; the items above
  // it stay on the stack for the caller to move (and then drop with
  // stack_.resize(mark)), so no temporary vector is made.
  std::size_t take_mark() {
    if (marks_.empty()) {
      fail(ErrorKind::MissingMark, fmt::format("{} needs a MARK and there is none", op_name()));
    }
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    moved_ += stack_.size() - mark;
    return mark;
  }
  // The item just below stack position `pos` (the target of APPENDS and the
  // like), which must lie above the new topmost mark.
  Node* below(std::size_t pos) {
    if (pos <= fence()) underflow();
    return stack_[pos - 1];
  }

  // ---- values --------------------------------------------------------------
  Node* none() {
    if (none_ == nullptr) {
      charge_node();
      none_ = graph_.none();
    }
    return none_;
  }
  Node* boolean(bool v) {
    Node*& slot = v ? true_ : false_;
    if (slot == nullptr) {
      charge_node();
      slot = graph_.boolean(v);
    }
    return slot;
  }
  Node* small_int(std::uint8_t v) {
    Node*& slot = small_ints_[v];
    if (slot == nullptr) {
      charge_node();
      slot = graph_.integer(v);
      (*scratch_).small_ints_made[(*scratch_).small_ints_count++] = v;  // for Scratch::reset()
    }
    return slot;
  }
  Node* integer(std::int64_t v) {
    charge_node();
    return graph_.integer(v);
  }
  Node* integer_le(std::string_view twos) {
    charge_node(twos.size());
    return graph_.integer_le(twos);
  }
  Node* decimal_int(std::string_view text);
  [[gnu::always_inline]] Node* str_utf8(std::string_view utf8) {
    if (!is_ascii(utf8) && !valid_utf8(utf8, Surrogates::Allow)) [[unlikely]]
      not_utf8(utf8);
    charge_node(utf8.size());
    return graph_.str_copy(utf8);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void not_utf8(std::string_view utf8) const {
    fail(ErrorKind::BadValue,
         fmt::format("{} argument is not valid UTF-8: '{}'", op_name(), printable(utf8)));
  }
  Node* py2_string(std::string_view bytes) {
    // As latin-1 text a byte beyond ASCII takes two bytes of UTF-8.
    charge_node(options_.python2_str == Python2Str::Latin1 ? 2 * bytes.size() : bytes.size());
    switch (options_.python2_str) {
      case Python2Str::Bytes: return graph_.bytes_copy(bytes);
      case Python2Str::Latin1: {
        std::string utf8;
        utf8.reserve(bytes.size() * 2);
        for (const char ch : bytes) append_utf8(utf8, static_cast<unsigned char>(ch));
        return graph_.str(std::move(utf8));
      }
      case Python2Str::Ascii: break;
    }
    if (!is_ascii(bytes)) not_ascii(bytes);
    return graph_.str_copy(bytes);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void not_ascii(std::string_view bytes) const {
    std::size_t at = 0;
    while (static_cast<unsigned char>(bytes[at]) < 0x80) ++at;
    fail(ErrorKind::BadValue,
         fmt::format("{} holds byte 0x{:02x} at position {}, beyond ASCII; a Python 2 str "
                     "loads as 'ascii' text unless another encoding is chosen",
                     op_name(), static_cast<unsigned char>(bytes[at]), at));
  }
  Node* tuple(std::vector<Node*> items) {
    charge_node(0, items.size());
    return graph_.tuple(std::move(items));
  }
  // A global the stream names: mapped, shown to the observer, checked
  // against the allowlist, then interned.
  Node* global(std::string module, std::string name) {
    std::string written_module, written_name;
    if (options_.fix_imports && proto_ < 3) {
      auto mapped = py2_to_py3(module, name);
      if (mapped.first != module || mapped.second != name) {
        written_module = std::exchange(module, std::move(mapped.first));
        written_name = std::exchange(name, std::move(mapped.second));
      }
    }
    const bool renamed = !written_module.empty();
    check_global(module, name, renamed ? written_module : module, renamed ? written_name : name);
    return interned_global(std::move(module), std::move(name));
  }
  void check_global(std::string_view module, std::string_view name, std::string_view written_module,
                    std::string_view written_name) {
    if (options_.observer != nullptr) {
      options_.observer->on_global(
          {in_.op_start(), op_name_view(), module, name, written_module, written_name});
    }
    if (options_.allowlist == nullptr) return;
    extra_work_ += module.size() + name.size();  // the lookup key
    if (options_.allowlist->allows(module, name)) return;
    std::string as_written;
    if (written_module != module || written_name != name) {
      as_written =
          fmt::format(" (written {}.{})", name_text(written_module), name_text(written_name));
    }
    fail(ErrorKind::ForbiddenGlobal,
         fmt::format("{} names global {}.{}{}, which is not on the allowlist", op_name(),
                     name_text(module), name_text(name), as_written));
  }
  // A callable applied to arguments: only the observer hears of it.
  void on_call(const Node* callee) {
    called_ = true;
    if (options_.observer != nullptr) {
      options_.observer->on_call({in_.op_start(), op_name_view(), callee});
    }
  }
  void check_persistent_id(const Node* pid) {
    if (options_.observer != nullptr) {
      options_.observer->on_persistent_id({in_.op_start(), op_name_view(), pid});
    }
    if (options_.allowlist == nullptr || options_.allowlist->persistent_ids) return;
    extra_work_ += kDescribeChars;
    fail(ErrorKind::ForbiddenPersistentId,
         fmt::format("{} carries persistent id {}, and the allowlist allows no persistent ids",
                     op_name(), describe_value(pid, kDescribeChars)));
  }
  // The reader knows the opcode being run (by its byte, once read).
  std::string_view op_name_view() const { return in_.op_name(); }
  // A name the decoder itself supplies (copyreg's helpers): never remapped.
  Node* internal_global(std::string_view module, std::string_view name) {
    return interned_global(std::string(module), std::string(name));
  }
  // One node per qualified name: in Python a name resolves to one object,
  // however many times the stream names it.
  Node* interned_global(std::string module, std::string name) {
    // Charged on every lookup, not only the first: STACK_GLOBAL can name two
    // long memoized strings again and again for a few bytes each, and the
    // budget is what keeps that work linear in the input.
    charge(module.size() + name.size());
    // Most pickles name a few globals: the first kFewGlobals are found by a
    // look along a short list (at most kFewGlobals times the work charged),
    // the rest in a table by name.
    for (std::size_t i = 0; i < few_globals_count_; ++i) {
      Node* g = few_globals_[i];
      if (g->payload() == module && g->name() == name) return g;
    }
    std::string key;
    if (few_globals_count_ == kFewGlobals) {
      key = std::to_string(module.size()) + ':' + module + name;
      auto it = globals_.find(key);
      if (it != globals_.end()) return it->second;
    }
    charge_node(2 * (module.size() + name.size()));  // the node and the key
    Node* n = graph_.global(std::move(module), std::move(name));
    if (few_globals_count_ < kFewGlobals) {
      few_globals_[few_globals_count_++] = n;
    } else {
      globals_.emplace(std::move(key), n);
    }
    return n;
  }
  Node* object(Node* callable, Node* args) {
    charge_object();
    Node* n = graph_.object(callable, args);
    objects_.push_back(n);
    return n;
  }
  // INST and OBJ: an Object marked instantiate (Node::flag), since a loader
  // does not simply call cls(*args) (see the header comment).
  Node* instantiate(Node* cls, Node* args) {
    Node* n = object(cls, args);
    n->flag = true;
    return n;
  }
  // callable(*args): a known builtin form, or a generic Object.
  Node* reduce(Node* callable, Node* args) {
    // The table reads str arguments (is every code point below 256?); that
    // work is charged, so naming one long memoized str again and again in a
    // form that does not match stays linear too.
    // Every form takes at most two arguments; a longer tuple (which may be a
    // long memoized one, named again and again) is not looked into.
    if (callable->kind == Kind::Global && args->items.size() <= 2) {
      std::size_t work = 0;
      for (const Node* a : args->items) {
        if (a->kind == Kind::Str) work += a->payload().size();
        // set(list) copies the list.
        if (a->kind == Kind::List) work += a->items.size() * sizeof(Node*);
      }
      charge(work);
    }
    if (Node* builtin = types::convert_builtin_reduce(graph_, callable, args)) {
      charge_made(builtin);
      return builtin;
    }
    if (Node* ex = newobj_ex_fallback(callable, args)) return ex;
    return object(callable, args);
  }

  static bool is_global(const Node* n, std::string_view module, std::string_view name) {
    return n != nullptr && n->kind == Kind::Global && n->payload() == module && n->name() == name;
  }

  // Below protocol 4 the C pickler writes a copyreg.__newobj_ex__ reduce as
  // partial(cls.__new__, cls, *args, **kwargs)() (cls.__new__ spelled
  // getattr(C, '__new__')). Read that exact shape back as the
  // __newobj_ex__ reduce it stands for, so the value is the same whatever
  // protocol carried it, as with the builtin forms. Only where C is object:
  // the encoder writes __newobj_ex__ with object.__new__, so a class's own
  // __new__ stays the partial call it is.
  Node* newobj_ex_fallback(Node* callable, Node* args) {
    if (callable->kind != Kind::Object || !args->items.empty()) return nullptr;
    const ObjectParts& partial = *callable->obj();
    if (!is_global(partial.callable, "functools", "partial") || partial.state == nullptr ||
        partial.state_setter != nullptr || !partial.listitems.empty() ||
        !partial.dictitems.empty() || partial.args == nullptr ||
        partial.args->kind != Kind::Tuple || partial.args->items.size() != 1) {
      return nullptr;
    }
    const Node* func = partial.args->items[0];
    const Node* state = partial.state;
    if (func->kind != Kind::Object || state->kind != Kind::Tuple || state->items.size() != 4 ||
        state->items[0] != func || state->items[1]->kind != Kind::Tuple ||
        state->items[1]->items.empty() || state->items[2]->kind != Kind::Dict ||
        state->items[3]->kind != Kind::None) {
      return nullptr;
    }
    const ObjectParts& getter = *func->obj();
    if (!is_global(getter.callable, "builtins", "getattr") || getter.state != nullptr ||
        getter.args == nullptr || getter.args->kind != Kind::Tuple ||
        getter.args->items.size() != 2 || !is_global(getter.args->items[0], "builtins", "object") ||
        getter.args->items[1]->kind != Kind::Str || getter.args->items[1]->payload() != "__new__") {
      return nullptr;
    }
    const NodeList& call_args = state->items[1]->items;
    Node* cls = call_args[0];
    Node* rest = graph_.tuple(std::vector<Node*>(call_args.begin() + 1, call_args.end()));
    Node* ex_args = graph_.tuple({cls, rest, state->items[2]});
    charge_made(rest);
    charge_made(ex_args);
    return object(internal_global("copyreg", "__newobj_ex__"), ex_args);
  }

  // ---- opcodes ---------------------------------------------------------------
  // step() runs one opcode: each case is one line that calls the opcode's
  // handler, named load_<opcode> as in _pickle.c's load(). The handlers
  // defined here in the class are inlined into step()'s switch, which stays
  // one jump table.
  [[gnu::always_inline]] inline void step(std::uint8_t code);
  // kNewest: the loader reads every protocol, so the fast table is one
  // fixed address rather than a pointer the loop must keep.
  template <bool kNewest>
  void run_simple();
  template <bool kNewest, bool kRoomy>
  void run_fast();
  struct RunEnd {
    const std::uint8_t* p;
    Node** sp;
  };
  RunEnd bin_int_run(const std::uint8_t* p, const std::uint8_t* stop, const std::uint8_t* end,
                     std::size_t affordable, Node** sp);

  [[gnu::always_inline]] std::int64_t read_int32() {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(read_uint(4)));
  }

  // REDUCE's and NEWOBJ's callable and argument tuple, popped, the callable
  // checked by the policy.
  [[gnu::always_inline]] std::pair<Node*, Node*> pop_call() {
    Node* args = pop();
    Node* callable = pop();
    if (args->kind != Kind::Tuple) {
      fail(ErrorKind::BadValue,
           fmt::format("{} argument is a {}, not a tuple", op_name(), kind_name(args->kind)));
    }
    on_call(callable);
    return {callable, args};
  }

  // GLOBAL's and INST's two lines, module and name: UTF-8 to CPython for
  // GLOBAL, ASCII for INST.
  [[gnu::always_inline]] Node* global_from_lines(bool ascii) {
    const std::string_view module = read_line();
    const std::string_view name = read_line();
    for (std::string_view part : {module, name}) {
      if (part.empty() || (ascii ? !is_ascii(part) : !valid_utf8(part, Surrogates::Reject))) {
        fail(ErrorKind::BadValue,
             fmt::format("{} needs a non-empty {} module and name, got '{}'", op_name(),
                         ascii ? "ASCII" : "UTF-8", printable(part)));
      }
    }
    return global(std::string(module), std::string(name));
  }

  [[gnu::always_inline]] void load_mark() {
    if (marks_.size() >= options_.limits.max_depth) {
      fail(ErrorKind::LimitExceeded,
           fmt::format("more than {} marks open at once", options_.limits.max_depth));
    }
    marks_.push_back(stack_.size());
  }

  [[gnu::always_inline]] void load_stop() {
    result_ = pop();
    stopped_ = true;
  }

  [[gnu::always_inline]] void load_dup() {
    Node* n = top();
    push(n);
  }

  [[gnu::always_inline]] void load_float() {
    const std::string_view line = read_line();
    const std::optional<double> v = parse_float(line);
    if (!v) {
      fail(ErrorKind::BadValue,
           fmt::format("FLOAT argument is not a float: '{}'", printable(line)));
    }
    // "1e999" parses to inf; CPython refuses it as out of range.
    if (std::isinf(*v) && line.find_first_of("nN") == std::string_view::npos) {
      fail(ErrorKind::BadValue,
           fmt::format("FLOAT argument is out of range: '{}'", printable(line)));
    }
    charge_node();
    push(graph_.floating(*v));
  }

  [[gnu::always_inline]] void load_int() {
    const std::string_view line = read_line();
    if (line == "00" || line == "01") {
      push(boolean(line == "01"));  // protocol 0's spelling of False/True
    } else {
      push(decimal_int(line));
    }
  }

  [[gnu::always_inline]] void load_long() {
    std::string_view line = read_line();
    if (!line.empty() && line.back() == 'L') line.remove_suffix(1);
    push(decimal_int(line));
  }

  [[gnu::always_inline]] void load_persid() {
    const std::string_view line = read_line();
    if (!is_ascii(line)) fail(ErrorKind::BadValue, "persistent IDs in protocol 0 must be ASCII");
    charge_node(line.size());
    Node* pid = graph_.str(std::string(line));
    check_persistent_id(pid);
    charge_node(0, 1);
    push(graph_.persid(pid));
  }

  [[gnu::always_inline]] void load_binpersid() {
    Node*& slot = top();
    check_persistent_id(slot);
    charge_node(0, 1);
    slot = graph_.persid(slot);
  }

  // The made object if it may be a state_setter call, which becomes
  // last_reduce_ for the next opcode; nullptr if not.
  //
  // Both CPython picklers write a setter's call as setter, obj, state,
  // TUPLE2, REDUCE, POP, the tuple made there and never memoized. A REDUCE
  // whose tuple comes from the memo is no setter call, even if a POP follows:
  // it is how a pickler drops a second copy of an object whose argument
  // tuple reached the object itself (save_reduce() finds the object memoized
  // once its arguments are written, pops the copy and fetches the first).
  [[gnu::always_inline]] Node* load_reduce() {
    const auto [callable, args] = pop_call();
    Node* reduced = reduce(callable, args);
    push(reduced);
    return args == last_tuple2_ ? reduced : nullptr;
  }

  [[gnu::always_inline]] void load_string() {
    const std::string_view line = read_line();
    if (line.size() < 2 || line.front() != line.back() ||
        (line.front() != '\'' && line.front() != '"')) {
      fail(ErrorKind::BadValue, "the STRING opcode argument must be quoted");
    }
    const std::optional<std::string> bytes = string_literal_decode(line);
    if (!bytes) {
      fail(ErrorKind::BadValue,
           fmt::format("STRING argument has a bad escape: '{}'", printable(line)));
    }
    push(py2_string(*bytes));
  }

  [[gnu::always_inline]] void load_unicode() {
    const std::string_view line = read_line();
    std::optional<std::string> utf8 = raw_unicode_escape_decode(line);
    if (!utf8) {
      fail(ErrorKind::BadValue,
           fmt::format("UNICODE argument has a bad escape: '{}'", printable(line)));
    }
    charge_node(utf8->size());
    push(graph_.str(std::move(*utf8)));
  }

  // BINBYTES, SHORT_BINBYTES, BINBYTES8: a count of `width` bytes, then the data.
  [[gnu::always_inline]] void load_bytes(std::size_t width) {
    const std::string_view data = read_counted(width);
    charge_node(data.size());
    push(graph_.bytes_copy(data));
  }

  [[gnu::always_inline]] void load_bytearray8() {
    const std::string_view data = read_counted(8);
    charge_node(data.size());
    push(graph_.bytearray(std::string(data)));
  }

  // EMPTY_LIST, EMPTY_DICT, EMPTY_SET, EMPTY_TUPLE: the items (of the first
  // three) come later.
  [[gnu::always_inline]] void load_empty(Kind kind) {
    charge_node();
    push(graph_.make(kind));
  }

  [[gnu::always_inline]] void load_append() {
    Node* value = pop();
    append_to(top(), &value, 1);
  }

  [[gnu::always_inline]] void load_appends() {
    const std::size_t mark = take_mark();
    append_to(below(mark), stack_.data() + mark, stack_.size() - mark);
    stack_.resize(mark);
  }

  [[gnu::always_inline]] void load_setitem() {
    Node* kv[2];
    kv[1] = pop();
    kv[0] = pop();
    set_items_of(top(), kv, 2);
  }

  [[gnu::always_inline]] void load_setitems() {
    const std::size_t mark = take_mark();
    set_items_of(below(mark), stack_.data() + mark, stack_.size() - mark);
    stack_.resize(mark);
  }

  [[gnu::always_inline]] void load_additems() {
    const std::size_t mark = take_mark();
    Node* set = below(mark);
    if (set->kind != Kind::Set) {
      fail(ErrorKind::BadValue,
           fmt::format("ADDITEMS on a {}: only sets take items", kind_name(set->kind)));
    }
    charge((stack_.size() - mark) * sizeof(Node*));
    graph_.append_items(set, stack_.data() + mark, stack_.size() - mark);
    stack_.resize(mark);
  }

  // TUPLE1, TUPLE2, TUPLE3; the tuple made.
  [[gnu::always_inline]] Node* load_tuple_n(std::size_t n) {
    if (stack_.size() < fence() + n) underflow();
    charge_node(0, n);
    Node* t = graph_.make(Kind::Tuple);
    graph_.append_items(t, stack_.end() - n, n);
    stack_.resize(stack_.size() - n);
    moved_ += n;
    push(t);
    return t;
  }

  [[gnu::always_inline]] void load_global() { push(global_from_lines(false)); }

  [[gnu::always_inline]] void load_inst() {
    if (marks_.empty()) fail(ErrorKind::MissingMark, "INST needs a MARK and there is none");
    Node* cls = global_from_lines(true);
    on_call(cls);
    Node* args = tuple(pop_mark());
    push(instantiate(cls, args));
  }

  [[gnu::always_inline]] void load_stack_global() {
    Node* name = pop();
    Node* module = pop();
    if (module->kind != Kind::Str || name->kind != Kind::Str) {
      fail(ErrorKind::BadValue, fmt::format("STACK_GLOBAL needs two str, got {} and {}",
                                            kind_name(module->kind), kind_name(name->kind)));
    }
    // The two strs are the objects the names are written from: interned,
    // so a str value that is one of them is the same object (see Node::flag).
    module->flag = true;
    name->flag = true;
    push(global(std::string(module->payload()), std::string(name->payload())));
  }

  [[gnu::always_inline]] void load_obj() {
    std::vector<Node*> items = pop_mark();
    if (items.empty()) {
      fail(ErrorKind::StackUnderflow, "OBJ needs a class above the mark and there is none");
    }
    Node* cls = items.front();
    on_call(cls);
    Node* args = tuple(std::vector<Node*>(items.begin() + 1, items.end()));
    push(instantiate(cls, args));
  }

  // NEWOBJ's and NEWOBJ_EX's class: a value that can never be a class (a
  // str, None, a list...) fails as it does in CPython, which checks the
  // class before calling anything. A global, the result of a call and a
  // persistent id may be one.
  void require_class(const Node* cls) {
    if (cls->kind == Kind::Global || cls->kind == Kind::Object || cls->kind == Kind::PersId) return;
    fail(ErrorKind::BadValue,
         fmt::format("{} class argument must be a type, not {}", op_name(), kind_name(cls->kind)));
  }

  [[gnu::always_inline]] void load_newobj() {
    const auto [cls, args] = pop_call();
    require_class(cls);
    charge_node(0, args->items.size() + 1);  // before copying: args may be shared and large
    std::vector<Node*> all;
    all.reserve(args->items.size() + 1);
    all.push_back(cls);
    all.insert(all.end(), args->items.begin(), args->items.end());
    Node* newobj_args = graph_.tuple(std::move(all));
    push(reduce(internal_global("copyreg", "__newobj__"), newobj_args));
  }

  [[gnu::always_inline]] void load_newobj_ex() {
    Node* kwargs = pop();
    Node* args = pop();
    Node* cls = pop();
    if (args->kind != Kind::Tuple || kwargs->kind != Kind::Dict) {
      fail(ErrorKind::BadValue, fmt::format("NEWOBJ_EX needs a tuple and a dict, got {} and {}",
                                            kind_name(args->kind), kind_name(kwargs->kind)));
    }
    require_class(cls);
    on_call(cls);
    Node* ex_args = tuple({cls, args, kwargs});
    push(object(internal_global("copyreg", "__newobj_ex__"), ex_args));
  }

  [[gnu::always_inline]] void load_binfloat() {
    const std::uint8_t* p = read(8);
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian
    double v;
    std::memcpy(&v, &bits, sizeof v);
    charge_node();
    push(graph_.floating(v));
  }

  // Handlers and helpers defined below, out of line.
  void append_to(Node* list, Node* const* first, std::size_t count);
  void set_items_of(Node* dict, Node* const* kv, std::size_t count);
  [[noreturn, gnu::noinline, gnu::cold]] void refuse_opcode(std::uint8_t code);
  std::uint64_t memo_key_text();
  void load_pop();
  void load_build();
  void load_get(std::uint64_t key);
  void load_put(std::uint64_t key);
  void load_proto();
  void load_frame();
  void open_frame_fast();
  void load_ext(std::int64_t code);
  void load_next_buffer();
  void load_readonly_buffer();

  OpReader in_;
  std::size_t size_;
  Graph& graph_;
  const DecodeOptions& options_;
  int max_protocol_;
  // kOpcodeReadable's row for max_protocol_.
  const std::array<std::uint8_t, 256>& readable_ =
      kOpcodeReadable[static_cast<std::size_t>(max_protocol_)];
  std::size_t budget_ = 0;
  std::size_t allocated_ = 0;

  std::size_t nodes_before_ = 0;
  std::size_t nodes_at_stop_ = 0;  // made by the opcodes, before domain forms
  std::size_t steps_ = 0;
  std::size_t moved_ = 0;       // items taken off the stack into new containers
  std::size_t extra_work_ = 0;  // big-int conversion, policy lookups
  std::size_t max_stack_ = 0;
  int proto_ = 0;
  bool stopped_ = false;
  bool called_ = false;  // a call opcode ran: there may be domain forms to raise
  Node* result_ = nullptr;

  Pooled<Scratch> scratch_;
  PodStack<Node*>& stack_ = (*scratch_).stack;
  std::vector<std::size_t>& marks_ = (*scratch_).marks;
  Memo& memo_ = (*scratch_).memo;
  std::vector<Node*>& objects_ = (*scratch_).objects;
  std::size_t next_buffer_ = 0;
  // A state_setter call, while the opcode after it runs: the REDUCE result
  // whose argument tuple is last_tuple2_.
  Node* last_reduce_ = nullptr;
  // The tuple TUPLE2 made, while the opcode after it runs.
  Node* last_tuple2_ = nullptr;

  // Interned Global nodes: the first kFewGlobals made, then a table.
  static constexpr std::size_t kFewGlobals = 8;
  std::array<Node*, kFewGlobals> few_globals_;
  std::size_t few_globals_count_ = 0;
  absl::flat_hash_map<std::string, Node*>& globals_ = (*scratch_).globals;
  Node* none_ = nullptr;
  Node* true_ = nullptr;
  Node* false_ = nullptr;
  std::array<Node*, 256>& small_ints_ = (*scratch_).small_ints;
};

Node* Decoder::decimal_int(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  const bool all_digits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (!all_digits) {
    fail(ErrorKind::BadValue,
         fmt::format("{} argument is not a decimal integer: '{}'", op_name(), printable(text)));
  }
  // "010" is 8 to CPython's C unpickler (strtol, base 0) and an error to
  // pickle.py (int(x, 0)); no pickler writes it, so it is refused.
  if (digits.size() > 1 && digits.front() == '0' &&
      digits.find_first_not_of('0') != std::string_view::npos) {
    fail(ErrorKind::BadValue,
         fmt::format("{} argument has a leading zero: '{}'", op_name(), printable(text)));
  }
  if (digits.size() > kMaxIntDigits) {
    fail(ErrorKind::LimitExceeded,
         fmt::format("{} argument has {} digits, more than the {} CPython converts", op_name(),
                     digits.size(), kMaxIntDigits));
  }
  // The conversion is quadratic: about (digits / 9)^2 limb steps.
  extra_work_ += (digits.size() / 9 + 1) * (digits.size() / 9 + 1);
  if (digits.size() <= 18) {
    std::int64_t v = 0;
    for (char c : digits) v = v * 10 + (c - '0');
    return integer(negative ? -v : v);
  }
  return integer_le(decimal_to_twos_le(text).value());
}

void Decoder::load_proto() {
  const int found = read(1)[0];
  if (found > max_protocol_) {
    throw UnsupportedProtocolError(in_.op_start(), found, max_protocol_);
  }
  proto_ = found;
}

void Decoder::load_frame() {
  in_.enter_frame(read_uint(8));
}

void Decoder::load_build() {
  Node* state = pop();
  Node* inst = top();
  on_call(inst);
  if (inst->kind != Kind::Object) {
    fail(ErrorKind::BadValue,
         fmt::format("BUILD on a {}: only objects take a state", kind_name(inst->kind)));
  }
  if (inst->obj()->state != nullptr) {
    fail(ErrorKind::BadValue, "BUILD on an object whose state is already set");
  }
  inst->obj()->state = state;
}

void Decoder::append_to(Node* list, Node* const* first, std::size_t count) {
  charge(count * sizeof(Node*));
  if (list->kind == Kind::List) {
    graph_.append_items(list, first, count);
  } else if (list->kind == Kind::Object) {
    auto& li = list->obj()->listitems;
    li.insert(li.end(), first, first + count);
  } else {
    fail(ErrorKind::BadValue, fmt::format("{} on a {}: only lists and objects take items",
                                          op_name(), kind_name(list->kind)));
  }
}

void Decoder::set_items_of(Node* dict, Node* const* kv, std::size_t count) {
  if (count % 2 != 0)
    fail(ErrorKind::BadValue, fmt::format("odd number of items for {}", op_name()));
  charge(count * sizeof(Node*));
  if (dict->kind == Kind::Dict) {
    graph_.append_items(dict, kv, count);
  } else if (dict->kind == Kind::Object) {
    auto& di = dict->obj()->dictitems;
    for (std::size_t i = 0; i < count; i += 2) di.emplace_back(kv[i], kv[i + 1]);
  } else {
    fail(ErrorKind::BadValue, fmt::format("{} on a {}: only dicts and objects take items",
                                          op_name(), kind_name(dict->kind)));
  }
}

void Decoder::load_pop() {
  // With nothing above the topmost mark, POP discards the mark (as CPython).
  if (!marks_.empty() && marks_.back() == stack_.size()) {
    marks_.pop_back();
    return;
  }
  Node* popped = pop();
  // setter(obj, state) whose result is dropped: a reduce value's state_setter.
  if (popped == last_reduce_ && popped->kind == Kind::Object) {
    const Node* args = popped->obj()->args;
    if (args->kind == Kind::Tuple && args->items.size() == 2 &&
        args->items[0]->kind == Kind::Object && args->items[0]->obj()->state == nullptr &&
        args->items[0]->obj()->state_setter == nullptr) {
      ObjectParts& target = *args->items[0]->obj();
      target.state = args->items[1];
      target.state_setter = popped->obj()->callable;
    }
  }
}

void Decoder::load_put(std::uint64_t key) {
  Node* value = top();
  if (key > options_.limits.max_memo) {
    fail(ErrorKind::LimitExceeded,
         fmt::format("memo key {} is above the limit of {}", key, options_.limits.max_memo));
  }
  charge(memo_.put(key, value));
  if (memo_.size() > options_.limits.max_memo) {
    fail(ErrorKind::LimitExceeded,
         fmt::format("more than {} memo entries", options_.limits.max_memo));
  }
}

void Decoder::load_get(std::uint64_t key) {
  Node* n = memo_.get(key);
  if (n == nullptr) {
    fail(ErrorKind::MissingMemo, fmt::format("memo key {} was never stored", key));
  }
  push(n);
}

std::uint64_t Decoder::memo_key_text() {
  const std::string_view line = read_line();
  if (line.empty() ||
      !std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    fail(ErrorKind::BadValue,
         fmt::format("{} argument is not a memo key: '{}'", op_name(), printable(line)));
  }
  std::uint64_t key = 0;
  for (char c : line) {
    key = key * 10 + static_cast<std::uint64_t>(c - '0');
    if (key > (std::uint64_t{1} << 62)) break;  // far above any limit; stop growing
  }
  return key;
}

void Decoder::load_ext(std::int64_t code) {
  if (code <= 0)
    fail(ErrorKind::BadValue, fmt::format("{} specifies code {} <= 0", op_name(), code));
  // The registry names the global; the stream does not, so a policy checks
  // the registry itself (docs/safe-loading.md).
  check_global("copyreg", "_inverted_registry", "copyreg", "_inverted_registry");
  Node* registry = internal_global("copyreg", "_inverted_registry");
  push(object(registry, tuple({integer(code)})));
}

// NEXT_BUFFER alone says the buffer was writable when it was pickled (a
// READONLY_BUFFER follows a read-only one); what the loader was given is
// recorded beside that, never in its place (see Supplied).
void Decoder::load_next_buffer() {
  if (next_buffer_ >= options_.buffers.size() && options_.stand_in_buffers) {
    ++next_buffer_;
    charge_node();
    static const std::uint8_t kEmpty = 0;
    Node* n = graph_.pickle_buffer_borrowed(&kEmpty, 0, false);
    n->supplied = Supplied::ReadOnly;
    push(n);
    return;
  }
  if (next_buffer_ >= options_.buffers.size()) {
    fail(ErrorKind::MissingBuffer,
         fmt::format("NEXT_BUFFER needs out-of-band buffer #{}, but {} were given", next_buffer_,
                     options_.buffers.size()));
  }
  const BufferView& b = options_.buffers[next_buffer_++];
  charge_node();
  Node* n = graph_.pickle_buffer_borrowed(b.data, b.size, false);
  n->supplied = b.readonly ? Supplied::ReadOnly : Supplied::Writable;
  push(n);
}

void Decoder::load_readonly_buffer() {
  Node*& slot = top();
  Node* n = slot;
  switch (n->kind) {
    case Kind::Bytes: return;  // already read-only
    case Kind::PickleBuffer:
      if (n->flag) return;
      if (n->supplied == Supplied::ReadOnly) {
        // CPython keeps a read-only object as it is: the same object, now
        // also marked read-only by the stream.
        n->flag = true;
        return;
      }
      // A read-only view of writable memory is a new object in CPython; the
      // writable one may be memoized and must stay as it is.
      if (n->borrowed()) {
        charge_node();
        slot = graph_.pickle_buffer_borrowed(n->payload().data(), n->payload().size(), true);
        slot->supplied = n->supplied;
      } else {
        charge_node(n->payload().size());
        slot = graph_.pickle_buffer(std::string(n->payload()), true);
      }
      return;
    case Kind::ByteArray:
      charge_node(n->payload().size());
      slot = graph_.pickle_buffer(std::string(n->payload()), true);
      return;
    default:
      fail(ErrorKind::BadValue,
           fmt::format("READONLY_BUFFER on a {}: a buffer is required", kind_name(n->kind)));
  }
}

inline void Decoder::step(std::uint8_t code) {
  Node* reduced = nullptr;  // becomes last_reduce_ for the next opcode
  Node* tuple2 = nullptr;   // becomes last_tuple2_
  switch (static_cast<Op>(code)) {
    case Op::MARK: load_mark(); break;
    case Op::STOP: load_stop(); break;
    case Op::POP: load_pop(); break;
    case Op::POP_MARK: stack_.resize(take_mark()); break;  // nothing to keep: no copy
    case Op::DUP: load_dup(); break;
    case Op::FLOAT: load_float(); break;
    case Op::INT: load_int(); break;
    case Op::BININT: push(integer(read_int32())); break;
    case Op::BININT1: push(small_int(read(1)[0])); break;
    case Op::LONG: load_long(); break;
    case Op::BININT2: push(integer(static_cast<std::int64_t>(read_uint(2)))); break;
    case Op::NONE: push(none()); break;
    case Op::PERSID: load_persid(); break;
    case Op::BINPERSID: load_binpersid(); break;
    case Op::REDUCE: reduced = load_reduce(); break;
    case Op::STRING: load_string(); break;
    case Op::BINSTRING: push(py2_string(read_counted(4, true))); break;
    case Op::SHORT_BINSTRING: push(py2_string(read_counted(1))); break;
    case Op::UNICODE: load_unicode(); break;
    case Op::BINUNICODE: push(str_utf8(read_counted(4))); break;
    case Op::SHORT_BINUNICODE: push(str_utf8(read_counted(1))); break;
    case Op::BINUNICODE8: push(str_utf8(read_counted(8))); break;
    case Op::BINBYTES: load_bytes(4); break;
    case Op::SHORT_BINBYTES: load_bytes(1); break;
    case Op::BINBYTES8: load_bytes(8); break;
    case Op::BYTEARRAY8: load_bytearray8(); break;
    case Op::EMPTY_LIST: load_empty(Kind::List); break;
    case Op::EMPTY_DICT: load_empty(Kind::Dict); break;
    case Op::EMPTY_SET: load_empty(Kind::Set); break;
    case Op::EMPTY_TUPLE: load_empty(Kind::Tuple); break;
    case Op::APPEND: load_append(); break;
    case Op::APPENDS: load_appends(); break;
    case Op::SETITEM: load_setitem(); break;
    case Op::SETITEMS: load_setitems(); break;
    case Op::ADDITEMS: load_additems(); break;
    case Op::BUILD: load_build(); break;
    case Op::DICT: push(from_mark(Kind::Dict)); break;
    case Op::LIST: push(from_mark(Kind::List)); break;
    case Op::TUPLE: push(from_mark(Kind::Tuple)); break;
    case Op::FROZENSET: push(from_mark(Kind::FrozenSet)); break;
    case Op::TUPLE1: load_tuple_n(1); break;
    case Op::TUPLE2: tuple2 = load_tuple_n(2); break;
    case Op::TUPLE3: load_tuple_n(3); break;
    case Op::GLOBAL: load_global(); break;
    case Op::INST: load_inst(); break;
    case Op::STACK_GLOBAL: load_stack_global(); break;
    case Op::OBJ: load_obj(); break;
    case Op::NEWOBJ: load_newobj(); break;
    case Op::NEWOBJ_EX: load_newobj_ex(); break;
    case Op::GET: load_get(memo_key_text()); break;
    case Op::BINGET: load_get(read(1)[0]); break;
    case Op::LONG_BINGET: load_get(read_uint(4)); break;
    case Op::PUT: load_put(memo_key_text()); break;
    case Op::BINPUT: load_put(read(1)[0]); break;
    case Op::LONG_BINPUT: load_put(read_uint(4)); break;
    // MEMOIZE and BINGET's common cases run in run_simple(); these are the rest.
    case Op::MEMOIZE: load_put(memo_.size()); break;
    case Op::PROTO: load_proto(); break;
    case Op::FRAME: load_frame(); break;
    case Op::EXT1: load_ext(static_cast<std::int64_t>(read_uint(1))); break;
    case Op::EXT2: load_ext(static_cast<std::int64_t>(read_uint(2))); break;
    case Op::EXT4: load_ext(read_int32()); break;
    case Op::NEWTRUE: push(boolean(true)); break;
    case Op::NEWFALSE: push(boolean(false)); break;
    case Op::LONG1: push(integer_le(read_counted(1))); break;
    case Op::LONG4: push(integer_le(read_counted(4, true))); break;
    case Op::BINFLOAT: load_binfloat(); break;
    case Op::NEXT_BUFFER: load_next_buffer(); break;
    case Op::READONLY_BUFFER: load_readonly_buffer(); break;
  }
  last_reduce_ = reduced;
  last_tuple2_ = tuple2;
}

void Decoder::refuse_opcode(std::uint8_t code) {
  const std::uint8_t proto = kOpcodeProtocol[code];
  if (proto == kNoOpcode) {
    fail(ErrorKind::UnknownOpcode, fmt::format("invalid load key, '\\x{:02x}'", code));
  }
  // An older loader does not know the newer opcodes (PROTO aside, which it
  // must read to name the protocol it refuses).
  in_.set_op_code(code);
  fail(ErrorKind::UnknownOpcode,
       fmt::format("{} is a protocol {} opcode; this loader reads up to protocol {}",
                   op_name_view(), proto, max_protocol_));
}

// run_simple()'s opcodes, numbered densely so its switch is one jump, and
// kFastOps[p][byte]: the byte's number when a loader of protocols up to p
// reads it, kNotFast otherwise (the general loop then runs it, or refuses
// it). One table load decides both.
enum FastOp : std::uint8_t {
  kNotFast,
  kFastBinInt1,
  kFastBinInt2,
  kFastBinInt,
  kFastNone,
  kFastShortStr,
  kFastMemoize,
  kFastBinGet,
  kFastMark,
  kFastEmptyList,
  kFastEmptyDict,
  kFastEmptyTuple,
  kFastAppends,
  kFastSetItems,
  kFastTuple1,  // kFastTuple1 + n - 1: TUPLEn
  kFastTuple2,
  kFastTuple3,
  kFastStop,
};

const auto kFastOps = [] {
  std::array<std::array<std::uint8_t, 256>, kHighestProtocol + 1> table{};
  const std::pair<Op, FastOp> fast[] = {
      {Op::BININT1, kFastBinInt1},
      {Op::BININT2, kFastBinInt2},
      {Op::BININT, kFastBinInt},
      {Op::NONE, kFastNone},
      {Op::SHORT_BINUNICODE, kFastShortStr},
      {Op::MEMOIZE, kFastMemoize},
      {Op::BINGET, kFastBinGet},
      {Op::MARK, kFastMark},
      {Op::EMPTY_LIST, kFastEmptyList},
      {Op::EMPTY_DICT, kFastEmptyDict},
      {Op::EMPTY_TUPLE, kFastEmptyTuple},
      {Op::APPENDS, kFastAppends},
      {Op::SETITEMS, kFastSetItems},
      {Op::TUPLE1, kFastTuple1},
      {Op::TUPLE2, kFastTuple2},
      {Op::TUPLE3, kFastTuple3},
      {Op::STOP, kFastStop},
  };
  for (std::size_t p = 0; p < table.size(); ++p) {
    for (const auto& [o, f] : fast) {
      const auto code = static_cast<std::uint8_t>(o);
      if (kOpcodeReadable[p][code] != 0) table[p][code] = f;
    }
  }
  return table;
}();

// The commonest opcodes (small ints, None, short ASCII str, memo, MARK,
// empty containers, APPENDS and SETITEMS onto a list or dict, TUPLE1-3,
// STOP), run with the position, step count and stack top in locals and no
// per-opcode bookkeeping for error messages. It stops after STOP, and
// *before* any opcode that needs
// more than that: another opcode, the end of the frame or input, an argument
// that is not all there, a str that is not ASCII, a memo miss, a missing
// mark, an odd SETITEMS, a target of another kind, too few items above the
// topmost mark for a TUPLEn, a limit or the budget about to be reached. Such
// an opcode has changed nothing yet, and the general loop runs it with every
// check and message.
//
// The budget. A run over n bytes allocates at most n * kFastBytesCost plus 8
// bytes for each item already on the stack: per byte read, at most one node
// (kNodeCost), one byte of str payload and one item pointer moved into a
// container (an item is moved once, when it is popped, and each push reads
// at least a byte). When what is left of the budget covers that, the run
// checks nothing (kRoomy); otherwise it checks each charge before making
// anything. Either way it charges a local count, added to allocated_ when
// it stops.
constexpr std::size_t kFastRunBytes = 4096;
constexpr std::size_t kFastBytesCost = kNodeCost + 1 + sizeof(Node*);

// A run of BININT in run_fast(), from `p`: the opcodes that start before
// `stop` with their arguments before `end`, at most `affordable` of them
// (the nodes the budget pays for), each checked to be a BININT but the
// first. Pushes their nodes at `sp`; returns where the run and the stack
// end (as they were when none could be made). Out of line, and taking and
// returning its pointers by value: inside run_fast's loop, its
// chunk-at-a-time loop (Graph::make_while) cost the other opcodes their
// registers.
[[gnu::noinline]] Decoder::RunEnd Decoder::bin_int_run(const std::uint8_t* p,
                                                       const std::uint8_t* stop,
                                                       const std::uint8_t* end,
                                                       std::size_t affordable, Node** sp) {
  const std::size_t most = std::min({static_cast<std::size_t>(stop - p + 4) / 5,
                                     static_cast<std::size_t>(end - p) / 5, affordable});
  if (most == 0) return {p, sp};
  const std::uint8_t* const last = p + 5 * most;
  // Each argument is read before the node it goes into is made: a read of
  // the input (bytes, which may alias anything) between make_while's reset
  // of a node and the store of its value kept the compiler from dropping the
  // reset's store of 0 and from merging the reset's one-byte stores.
  std::int64_t value = static_cast<std::int32_t>(OpReader::load<std::uint32_t>(p + 1));
  graph_.make_while(Kind::Int, [&](Node* n) {
    n->set_small(value);
    *sp++ = n;
    p += 5;
    if (p == last || *p != static_cast<std::uint8_t>(Op::BININT)) return false;
    value = static_cast<std::int32_t>(OpReader::load<std::uint32_t>(p + 1));
    return true;
  });
  return {p, sp};
}

template <bool kNewest>
void Decoder::run_simple() {
  const std::size_t room = std::min(in_.read_limit() - in_.pos(), kFastRunBytes);
  if (budget_ - allocated_ >= room * kFastBytesCost + stack_.size() * sizeof(Node*)) {
    run_fast<kNewest, true>();
  } else {
    run_fast<kNewest, false>();
  }
}

template <bool kNewest, bool kRoomy>
void Decoder::run_fast() {
  const std::uint8_t* const data = in_.data();
  const std::uint8_t* const start = data + in_.pos();
  const std::uint8_t* const end = data + in_.read_limit();  // arguments stay before it
  const std::uint8_t* const fast = kNewest
                                       ? kFastOps[kHighestProtocol].data()
                                       : kFastOps[static_cast<std::size_t>(max_protocol_)].data();
  std::size_t steps = 0;
  // The object stack in locals. Each of these opcodes reads at least one
  // byte and pushes at most one item, so with room for n items the loop may
  // start opcodes over the next n bytes without checking the room. Only
  // APPENDS, SETITEMS and TUPLEn pop, and they note the depth first;
  // otherwise the deepest the stack got is where it ends.
  const std::size_t room = std::min(static_cast<std::size_t>(end - start), kFastRunBytes);
  Node** sp = stack_.room_for(room);
  const std::size_t avail = budget_ - allocated_;
  std::size_t spent = 0;
  const auto affordable = [&](std::size_t bytes) { return kRoomy || bytes <= avail - spent; };
  Node** const base = stack_.data();
  const std::uint8_t* const stop = start + room;
  Node* const* const small = small_ints_.data();
  const std::uint8_t* p = start;
  const std::uint8_t* tuple_end = nullptr;  // where the last TUPLEn ended
  while (p < stop) {
    const std::uint8_t code = *p;
    const std::size_t left = static_cast<std::size_t>(end - p);
    switch (static_cast<FastOp>(fast[code])) {
      case kFastBinInt1: {
        // Small ints and Nones come in runs (a list of small ints, a dict
        // of small int keys and None values). While each is one already
        // made in this decode, they are read here, in a loop of their own
        // with nothing else to keep in registers. Each is an opcode like
        // any other: it starts before `stop`, its argument lies before
        // `end`, and it pushes one item (so the items pushed count the
        // steps). BININT1 is readable here, so is NONE at every protocol.
        const std::uint8_t* q = p;
        Node** s = sp;
        Node* const none = none_;
        const std::uint8_t* const last = std::min(stop, end - 1);  // q < last: q[1] is there
        for (;;) {
          const std::uint8_t c = *q;
          if (c == static_cast<std::uint8_t>(Op::BININT1) && q < last) {
            Node* const m = small[q[1]];
            if (m == nullptr) break;
            *s++ = m;
            q += 2;
          } else if (c == static_cast<std::uint8_t>(Op::NONE) && none != nullptr) {
            *s++ = none;
            q += 1;
          } else {
            break;
          }
          if (q >= stop) break;
        }
        if (s != sp) {
          steps += static_cast<std::size_t>(s - sp);
          sp = s;
          p = q;
          continue;
        }
        // The first of its value in this decode, or its argument cut short.
        if (left < 2) goto out;
        const std::uint8_t v = p[1];
        if (!affordable(kNodeCost)) goto out;
        spent += kNodeCost;
        Node* made = graph_.integer(v);
        small_ints_[v] = made;
        (*scratch_).small_ints_made[(*scratch_).small_ints_count++] = v;  // for Scratch::reset()
        *sp++ = made;
        p += 2;
        break;
      }
      case kFastBinInt2:
        if (left < 3 || !affordable(kNodeCost)) goto out;
        spent += kNodeCost;
        *sp++ = graph_.integer(OpReader::load<std::uint16_t>(p + 1));
        p += 3;
        break;
      case kFastBinInt: {
        // Runs of them (a list of ints past 65535), as for BININT1 above,
        // made by bin_int_run().
        const auto [next, top] =
            bin_int_run(p, stop, end, kRoomy ? SIZE_MAX : (avail - spent) / kNodeCost, sp);
        const auto made = static_cast<std::size_t>(top - sp);
        if (made == 0) goto out;
        p = next;
        sp = top;
        spent += made * kNodeCost;
        steps += made;
        continue;
      }
      case kFastNone:
        if (none_ == nullptr) {
          if (!affordable(kNodeCost)) goto out;
          spent += kNodeCost;
          none_ = graph_.none();
        }
        *sp++ = none_;
        p += 1;
        break;
      case kFastShortStr: {
        if (left < 2) goto out;
        const std::size_t n = p[1];
        if (left - 2 < n || !affordable(kNodeCost + n)) goto out;
        const std::string_view text(reinterpret_cast<const char*>(p + 2), n);
        if (!is_ascii(text)) goto out;
        spent += kNodeCost + n;
        *sp++ = graph_.str_copy(text);
        p += 2 + n;
        break;
      }
      case kFastMemoize:
        if (static_cast<std::size_t>(sp - base) <= fence() ||
            memo_.size() >= options_.limits.max_memo || !memo_.put_next_in_place(sp[-1])) {
          goto out;
        }
        p += 1;
        break;
      case kFastBinGet: {
        if (left < 2) goto out;
        Node* n = memo_.get(p[1]);
        if (n == nullptr) goto out;
        *sp++ = n;
        p += 2;
        break;
      }
      case kFastMark:
        if (marks_.size() >= options_.limits.max_depth) goto out;
        marks_.push_back(static_cast<std::size_t>(sp - base));
        p += 1;
        break;
      case kFastEmptyList:
      case kFastEmptyDict:
      case kFastEmptyTuple: {
        if (!affordable(kNodeCost)) goto out;
        spent += kNodeCost;
        const Kind kind = fast[code] == kFastEmptyList   ? Kind::List
                          : fast[code] == kFastEmptyDict ? Kind::Dict
                                                         : Kind::Tuple;
        *sp++ = graph_.make(kind);
        p += 1;
        break;
      }
      case kFastAppends:
      case kFastSetItems: {
        // Onto a list or dict below the topmost mark, which must lie above
        // the mark under it; the items move into its array.
        const std::size_t marks = marks_.size();
        if (marks == 0) goto out;
        const std::size_t mark = marks_[marks - 1];
        const std::size_t fence_below = marks >= 2 ? marks_[marks - 2] : 0;
        if (mark <= fence_below) goto out;
        Node* target = base[mark - 1];
        const std::size_t count = static_cast<std::size_t>(sp - base) - mark;
        const bool appends = fast[code] == kFastAppends;
        if (target->kind != (appends ? Kind::List : Kind::Dict) || (!appends && count % 2 != 0) ||
            !affordable(count * sizeof(Node*))) {
          goto out;
        }
        max_stack_ = std::max(max_stack_, static_cast<std::size_t>(sp - base));  // about to pop
        marks_.pop_back();
        moved_ += count;
        spent += count * sizeof(Node*);
        if (count != 0) graph_.append_items(target, base + mark, count);
        sp = base + mark;
        p += 1;
        break;
      }
      case kFastTuple1:
      case kFastTuple2:
      case kFastTuple3: {
        const std::size_t n = fast[code] - kFastTuple1 + 1u;
        if (static_cast<std::size_t>(sp - base) < fence() + n ||
            !affordable(kNodeCost + n * sizeof(Node*))) {
          goto out;
        }
        max_stack_ = std::max(max_stack_, static_cast<std::size_t>(sp - base));  // about to pop
        spent += kNodeCost + n * sizeof(Node*);
        Node* t = graph_.make(Kind::Tuple);
        graph_.append_items(t, sp - n, n);
        sp -= n;
        moved_ += n;
        *sp++ = t;
        p += 1;
        tuple_end = p;
        break;
      }
      case kFastStop:
        // The result: the item on top, which must lie above the topmost
        // mark. The run ends here, whatever follows.
        if (static_cast<std::size_t>(sp - base) <= fence()) goto out;
        max_stack_ = std::max(max_stack_, static_cast<std::size_t>(sp - base));  // about to pop
        result_ = *--sp;
        stopped_ = true;
        p += 1;
        ++steps;
        goto out;
      case kNotFast: goto out;
      default: __builtin_unreachable();  // kFastOps holds nothing else
    }
    ++steps;
  }
out:
  allocated_ += spent;
  stack_.set_end(sp);
  max_stack_ = std::max(max_stack_, static_cast<std::size_t>(sp - base));
  if (steps != 0) {
    in_.skip_to(static_cast<std::size_t>(p - data));
    steps_ += steps;
    last_reduce_ = nullptr;  // none of these is a REDUCE
    // The last of them made a TUPLE2 tuple if a TUPLEn ended where they stop.
    last_tuple2_ =
        tuple_end == p && p[-1] == static_cast<std::uint8_t>(Op::TUPLE2) ? sp[-1] : nullptr;
  }
}

// The opening of nearly every protocol 4 and 5 pickle, PROTO then FRAME,
// read without the general loop's per-opcode setup when neither can fail:
// a loader of protocol 4 or more, a protocol it reads, and a frame that
// lies inside the input. Anything else is left to the general loop, which
// runs the same two opcodes with every check and message.
void Decoder::open_frame_fast() {
  constexpr std::size_t kOpening = 11;  // PROTO p, FRAME and its 8-byte length
  const std::uint8_t* const d = in_.data();
  if (size_ < kOpening || max_protocol_ < 4 || d[0] != static_cast<std::uint8_t>(Op::PROTO) ||
      d[1] > max_protocol_ || d[2] != static_cast<std::uint8_t>(Op::FRAME)) {
    return;
  }
  const std::uint64_t length = OpReader::load<std::uint64_t>(d + 3);
  if (length > size_ - kOpening) return;
  proto_ = d[1];
  steps_ += 2;
  in_.skip_to(kOpening);
  in_.enter_frame(length);
}

DecodeResult Decoder::run() {
  open_frame_fast();
  while (!stopped_) {
    // A fast run only when the next opcode is one of its own: an opcode
    // the general loop reads once a pickle (PROTO, FRAME) skips its setup.
    const std::size_t pos = in_.pos();
    if (pos < in_.read_limit() &&
        kFastOps[static_cast<std::size_t>(max_protocol_)][in_.data()[pos]] != kNotFast) {
      if (max_protocol_ == kHighestProtocol) {
        run_simple<true>();
      } else {
        run_simple<false>();
      }
      if (stopped_) break;  // it ran STOP
    }
    in_.start_coded_op();
    if (in_.at_end()) {
      fail(ErrorKind::Truncated, "pickle data was truncated: no STOP opcode");
    }
    const std::uint8_t code = read(1)[0];
    ++steps_;
    // One byte of table per opcode here; its row (name) is read only for
    // a message.
    if (readable_[code] == 0) [[unlikely]]
      refuse_opcode(code);
    in_.set_op_code(code);
    step(code);
  }
  graph_.root = result_;
  nodes_at_stop_ = graph_.size() - nodes_before_;
  // Known reduce forms (numpy, torch, cloudpickle's subimport) become domain nodes.
  // Every such form is a call, so a pickle without one has none. Into an
  // empty graph, the Object nodes this decode made are all the graph has,
  // and the recognisers look at just those rather than at every node.
  if (called_) {
    if (nodes_before_ == 0) {
      types::raise_domain_forms(graph_, objects_);
    } else {
      types::raise_domain_forms(graph_);
    }
  }
  return DecodeResult{result_, proto_, in_.pos(), stats()};
}

}  // namespace

DecodeResult decode(std::span<const std::uint8_t> data, Graph& graph,
                    const DecodeOptions& options) {
  Decoder decoder(data, graph, options);
  try {
    DecodeResult result = decoder.run();
    if (options.stats != nullptr) *options.stats = result.stats;
    return result;
  } catch (...) {
    if (options.stats != nullptr) *options.stats = decoder.stats();
    throw;
  }
}

}  // namespace serialcheck::pickle
