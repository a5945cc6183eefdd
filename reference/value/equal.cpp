#include "reference/value/equal.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "reference/device/device.h"
#include "reference/value/domain_kinds.h"
#include "reference/value/numeric.h"

namespace serialcheck {

namespace {

// One step from a parent to a child, kept so a failure can name its path
// without every pending comparison carrying a string.
enum class Step : std::uint8_t {
  Root,
  Item,           // [i] of a list or tuple
  DictKey,        // .keys[i]
  DictValue,      // {key}
  SetItem,        // <i> of a set or frozenset, in the left set's order
  Callable,       // .callable
  Args,           // .args
  State,          // .state
  StateSetter,    // .state_setter
  ListItem,       // .listitems[i]
  DictItemKey,    // .dictitems.keys[i]
  DictItemValue,  // .dictitems{key}
  Pid,            // .pid
  Grad,           // .grad of a tensor
};

struct PathRec {
  std::uint32_t parent;
  Step step;
  std::uint32_t index;
  const Node* key;  // DictValue, DictItemValue: the left key
};

struct Task {
  enum Type : std::uint8_t { Pair, SetStep, TrialEnd } type;
  const Node* a;
  const Node* b;
  std::uint32_t rec;  // Pair: path record; SetStep, TrialEnd: the set match
};

// Matching of one pair of sets: items of the left set are matched in order,
// each against the unused right items with the same structural hash; a
// candidate is tried under a trial that is undone if it fails.
struct SetMatch {
  const Node* a;
  const Node* b;
  std::uint32_t rec;
  std::vector<std::uint64_t> hash_a;
  std::vector<std::uint64_t> hash_b;
  std::vector<char> used;
  std::size_t ai = 0;          // left item being matched
  std::size_t next_cand = 0;   // first right item not yet tried for it
  std::size_t cand = 0;        // right item under trial
  std::size_t log_pos = 0;     // undo-log size when the trial began
  std::size_t loose_pos = 0;   // loose-pair log size when the trial began
  std::size_t stack_pos = 0;   // task-stack size when the trial began
  std::size_t tried = 0;       // candidates tried for the current left item
  std::uint32_t fail_rec = 0;  // why the last candidate failed
  std::string fail_reason;
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// Identity-blind structural hash that looks `depth` levels down; equal values
// always hash equal, which is all the set matcher needs. Bounded depth keeps
// the recursion shallow and the cost proportional to what is compared anyway.
std::uint64_t shallow_hash(const Node* n, int depth) {
  if (n == nullptr) return 0x51ed27;
  std::uint64_t h = mix(0, static_cast<std::uint64_t>(n->kind) + 1);
  switch (n->kind) {
    case Kind::None: return h;
    case Kind::Bool: return mix(h, n->flag ? 1 : 0);
    case Kind::Int: {
      std::int64_t v = n->small();
      if (n->big && !twos_le_to_int64(n->payload(), v)) {
        return mix(h, hash_bytes(minimal_twos_le(n->payload())));
      }
      return mix(h, static_cast<std::uint64_t>(v));
    }
    case Kind::Float: return mix(h, std::bit_cast<std::uint64_t>(n->f));
    case Kind::Str:
    case Kind::Bytes:
    case Kind::ByteArray: return mix(h, hash_bytes(n->payload()));
    case Kind::PickleBuffer: return mix(mix(h, hash_bytes(n->payload())), n->flag ? 1 : 0);
    case Kind::Global: return mix(mix(h, hash_bytes(n->payload())), hash_bytes(n->name()));
    case Kind::List:
    case Kind::Tuple:
    case Kind::Dict:
    case Kind::PersId: {
      h = mix(h, n->items.size());
      if (depth > 0) {
        for (const Node* c : n->items) h = mix(h, shallow_hash(c, depth - 1));
      }
      return h;
    }
    case Kind::Set:
    case Kind::FrozenSet: {
      h = mix(h, n->items.size());
      if (depth > 0) {
        std::uint64_t sum = 0;  // order-independent
        for (const Node* c : n->items) sum += shallow_hash(c, depth - 1);
        h = mix(h, sum);
      }
      return h;
    }
    case Kind::NDArray: {
      // dtype and shape only: equal arrays may differ in layout.
      if (!n->array()) return h;
      h = mix(h, hash_bytes(n->array()->dtype));
      for (std::int64_t d : n->array()->shape) h = mix(h, static_cast<std::uint64_t>(d));
      return h;
    }
    case Kind::Tensor: {
      if (!n->array()) return h;
      h = mix(h, hash_bytes(n->array()->dtype));
      for (std::int64_t d : n->array()->shape) h = mix(h, static_cast<std::uint64_t>(d));
      return h;
    }
    case Kind::Module: return mix(h, hash_bytes(n->name()));
    case Kind::DeviceBuffer: return mix(h, n->device() ? n->device()->size() : 0);
    case Kind::Object: {
      if (!n->obj()) return h;
      const ObjectParts& o = *n->obj();
      h = mix(h, o.listitems.size());
      h = mix(h, o.dictitems.size());
      h = mix(h, o.state ? 1 : 0);
      h = mix(h, o.state_setter ? 1 : 0);
      if (depth > 0) {
        h = mix(h, shallow_hash(o.callable, depth - 1));
        h = mix(h, shallow_hash(o.args, depth - 1));
      }
      return h;
    }
  }
  return h;
}

std::string hex16(double f) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(f)));
  return buf;
}

std::string shorten(std::string s) {
  constexpr std::size_t kMax = 60;
  if (s.size() > kMax) {
    s.resize(kMax - 3);
    s += "...";
  }
  return s;
}

// Python-like repr of a str payload (surrogatepass UTF-8): printable ASCII
// as is, the rest escaped, enough to tell two strings apart in a report.
std::string str_repr(std::string_view s) {
  std::string out = "'";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\'' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
    if (out.size() > 64) break;
  }
  out.push_back('\'');
  return shorten(out);
}

std::string int_text(const Node* n) {
  if (!n->big) return std::to_string(n->small());
  return shorten(twos_le_to_decimal(n->payload()));
}

// A short description of an atom or a key, for paths and reasons.
std::string brief(const Node* n) {
  switch (n->kind) {
    case Kind::None: return "None";
    case Kind::Bool: return n->flag ? "True" : "False";
    case Kind::Int: return int_text(n);
    case Kind::Float: return float_repr(n->f);
    case Kind::Str: return str_repr(n->payload());
    default: return std::string(kind_name(n->kind));
  }
}

bool simple_key(const Node* n) {
  return n->kind == Kind::None || n->kind == Kind::Bool || n->kind == Kind::Int ||
         n->kind == Kind::Float || n->kind == Kind::Str;
}

bool int_equal(const Node* a, const Node* b) {
  if (!a->big && !b->big) return a->small() == b->small();
  std::string pa = a->big ? minimal_twos_le(a->payload()) : int64_to_twos_le(a->small());
  std::string pb = b->big ? minimal_twos_le(b->payload()) : int64_to_twos_le(b->small());
  return pa == pb;
}

class Comparer {
 public:
  explicit Comparer(const EqualOptions& options) : options_(options) {}

  bool run(const Node* a, const Node* b, Difference* why) {
    recs_.push_back({0, Step::Root, 0, nullptr});
    stack_.push_back({Task::Pair, a, b, 0});
    while (!stack_.empty()) {
      Task t = stack_.back();
      stack_.pop_back();
      bool ok = true;
      switch (t.type) {
        case Task::Pair: ok = compare(t.a, t.b, t.rec); break;
        case Task::SetStep: ok = set_step(t.rec); break;
        case Task::TrialEnd: trial_succeeded(t.rec); break;
      }
      if (!ok && !retry_trial()) {
        if (why != nullptr) {
          why->path = path(fail_rec_);
          why->reason = fail_reason_;
        }
        return false;
      }
    }
    return true;
  }

 private:
  struct Pairing {
    const Node* other;
    std::uint32_t rec;  // where the pairing was made
  };

  bool fail(std::uint32_t rec, std::string reason) {
    fail_rec_ = rec;
    fail_reason_ = std::move(reason);
    return false;
  }

  std::uint32_t add_rec(std::uint32_t parent, Step step, std::size_t index = 0,
                        const Node* key = nullptr) {
    recs_.push_back({parent, step, static_cast<std::uint32_t>(index), key});
    return static_cast<std::uint32_t>(recs_.size() - 1);
  }

  void push_pair(const Node* a, const Node* b, std::uint32_t rec) {
    stack_.push_back({Task::Pair, a, b, rec});
  }

  bool compare(const Node* a, const Node* b, std::uint32_t rec) {
    if (a == nullptr || b == nullptr) {
      if (a == b) return true;
      return fail(rec, a == nullptr ? "missing != present" : "present != missing");
    }
    if (a->kind != b->kind) {
      return fail(rec, "kind " + std::string(kind_name(a->kind)) +
                           " != " + std::string(kind_name(b->kind)));
    }
    switch (a->kind) {
      case Kind::None: return true;
      case Kind::Bool:
        if (a->flag == b->flag) return true;
        return fail(rec, "bool " + brief(a) + " != bool " + brief(b));
      case Kind::Int:
        if (int_equal(a, b)) return true;
        return fail(rec, "int " + int_text(a) + " != int " + int_text(b));
      case Kind::Float:
        // Bit-exact: NaN equals a NaN with the same bits; 0.0 != -0.0.
        if (std::bit_cast<std::uint64_t>(a->f) == std::bit_cast<std::uint64_t>(b->f)) return true;
        if (float_repr(a->f) == float_repr(b->f)) {
          return fail(rec, "float " + float_repr(a->f) + " != float " + float_repr(b->f) +
                               " (bits " + hex16(a->f) + " != " + hex16(b->f) + ")");
        }
        return fail(rec, "float " + float_repr(a->f) + " != float " + float_repr(b->f));
      default: break;
    }

    // Immutable kinds when only mutable sharing counts: a pair compared once
    // is not compared again (keeps shared DAGs linear), but no bijection.
    if (!options_.immutable_sharing && is_immutable(a->kind)) {
      if (!loose_.insert(PairKey{a, b}).second) return true;
      loose_log_.push_back(PairKey{a, b});
      return compare_contents(a, b, rec);
    }
    // Non-atoms: the pairing of identities must be a bijection.
    auto ia = a_to_b_.find(a);
    auto ib = b_to_a_.find(b);
    if (ia != a_to_b_.end() || ib != b_to_a_.end()) {
      if (ia != a_to_b_.end() && ia->second.other == b) return true;  // seen together
      if (ia != a_to_b_.end()) {
        return fail(rec, "sharing differs: the left " + std::string(kind_name(a->kind)) +
                             " is the same object as at " + path(ia->second.rec) +
                             ", the right one is not");
      }
      return fail(rec, "sharing differs: the right " + std::string(kind_name(b->kind)) +
                           " is the same object as at " + path(ib->second.rec) +
                           ", the left one is not");
    }
    a_to_b_.emplace(a, Pairing{b, rec});
    b_to_a_.emplace(b, Pairing{a, rec});
    log_.push_back(a);
    return compare_contents(a, b, rec);
  }

  bool compare_bytes(const Node* a, const Node* b, std::uint32_t rec, std::string_view what) {
    std::string_view x = a->payload();
    std::string_view y = b->payload();
    if (x == y) return true;
    if (x.size() != y.size()) {
      return fail(rec, std::string(what) + " length " + std::to_string(x.size()) +
                           " != " + std::to_string(y.size()));
    }
    std::size_t i = 0;
    while (x[i] == y[i]) ++i;
    return fail(rec, std::string(what) + " differ at offset " + std::to_string(i));
  }

  bool compare_length(std::size_t x, std::size_t y, std::uint32_t rec, const Node* a,
                      std::string_view what = "length") {
    if (x == y) return true;
    return fail(rec, std::string(kind_name(a->kind)) + " " + std::string(what) + " " +
                         std::to_string(x) + " != " + std::to_string(y));
  }

  // The same number of items, then item i with item i, in order.
  bool compare_items(const Node* a, const Node* b, std::uint32_t rec, Step step) {
    if (!compare_length(a->items.size(), b->items.size(), rec, a)) return false;
    for (std::size_t i = a->items.size(); i-- > 0;) {
      push_pair(a->items[i], b->items[i], add_rec(rec, step, i));
    }
    return true;
  }

  bool compare_contents(const Node* a, const Node* b, std::uint32_t rec) {
    switch (a->kind) {
      case Kind::Str:
        if (a->payload() == b->payload()) return true;
        return fail(rec, "str " + str_repr(a->payload()) + " != str " + str_repr(b->payload()));
      case Kind::Bytes: return compare_bytes(a, b, rec, "bytes");
      case Kind::ByteArray: return compare_bytes(a, b, rec, "bytearray");
      case Kind::PickleBuffer:
        if (a->flag != b->flag) {
          return fail(rec, std::string("pickle-buffer readonly ") + (a->flag ? "true" : "false") +
                               " != " + (b->flag ? "true" : "false"));
        }
        return compare_bytes(a, b, rec, "pickle-buffer bytes");
      case Kind::Global:
        if (a->payload() == b->payload() && a->name() == b->name()) return true;
        return fail(rec, "global " + std::string(a->payload()) + "." + a->name() + " != global " +
                             std::string(b->payload()) + "." + b->name());
      case Kind::List:
      case Kind::Tuple: return compare_items(a, b, rec, Step::Item);
      case Kind::Dict:
        if (!compare_length(a->items.size() / 2, b->items.size() / 2, rec, a) ||
            !compare_length(a->items.size(), b->items.size(), rec, a, "item count")) {
          return false;
        }
        for (std::size_t i = a->items.size() / 2; i-- > 0;) {
          const Node* key = a->items[2 * i];
          push_pair(a->items[2 * i + 1], b->items[2 * i + 1],
                    add_rec(rec, Step::DictValue, i, key));
          push_pair(key, b->items[2 * i], add_rec(rec, Step::DictKey, i));
        }
        return true;
      case Kind::PersId: return compare_items(a, b, rec, Step::Pid);
      case Kind::Set:
      case Kind::FrozenSet: return start_set(a, b, rec);
      case Kind::Object: return compare_object(a, b, rec);
      case Kind::Tensor: {
        std::string reason;
        if (!domain_kind(Kind::Tensor).equal(*a, *b, options_, &reason)) return fail(rec, reason);
        push_pair(a->array() ? a->array()->grad : nullptr, b->array() ? b->array()->grad : nullptr,
                  add_rec(rec, Step::Grad));
        return true;
      }
      case Kind::Module:
        // The class a module was made with is materialization metadata that
        // pickle cannot carry; the import name is the value.
        if (a->name() == b->name()) return true;
        return fail(rec, "module " + shorten(a->name()) + " != module " + shorten(b->name()));
      case Kind::DeviceBuffer: return compare_device_buffers(a, b, rec);
      case Kind::NDArray: {
        std::string reason;
        if (domain_kind(Kind::NDArray).equal(*a, *b, options_, &reason)) return true;
        return fail(rec, reason);
      }
      default: return true;  // atoms are handled before
    }
  }

  // Device name, size, then the contents, each read back with one counted
  // device->host copy.
  bool compare_device_buffers(const Node* a, const Node* b, std::uint32_t rec) {
    if (!a->device() || !b->device()) {
      if (!a->device() && !b->device()) return true;
      return fail(
          rec, a->device() ? "device-buffer present != missing" : "device-buffer missing != present");
    }
    const device::Buffer& x = *a->device();
    const device::Buffer& y = *b->device();
    if (x.device().name() != y.device().name()) {
      return fail(rec, "device-buffer device " + x.device().name() + " != " + y.device().name());
    }
    if (x.size() != y.size()) {
      return fail(rec, "device-buffer size " + std::to_string(x.size()) +
                           " != " + std::to_string(y.size()));
    }
    const std::string hx = x.device().download(x);
    const std::string hy = y.device().download(y);
    if (hx == hy) return true;
    std::size_t i = 0;
    while (hx[i] == hy[i]) ++i;
    return fail(rec, "device-buffer bytes differ at offset " + std::to_string(i));
  }

  bool compare_object(const Node* a, const Node* b, std::uint32_t rec) {
    static const ObjectParts kEmpty;
    const ObjectParts& x = a->obj() ? *a->obj() : kEmpty;
    const ObjectParts& y = b->obj() ? *b->obj() : kEmpty;
    if ((x.state == nullptr) != (y.state == nullptr)) {
      return fail(rec, std::string("object state ") + (x.state ? "present" : "absent") +
                           " != " + (y.state ? "present" : "absent"));
    }
    if ((x.state_setter == nullptr) != (y.state_setter == nullptr)) {
      return fail(rec, std::string("object state_setter ") +
                           (x.state_setter ? "present" : "absent") +
                           " != " + (y.state_setter ? "present" : "absent"));
    }
    if (!compare_length(x.listitems.size(), y.listitems.size(), rec, a, "listitems length") ||
        !compare_length(x.dictitems.size(), y.dictitems.size(), rec, a, "dictitems length")) {
      return false;
    }
    // Pushed in reverse so they are compared callable, args, state, ... in order.
    for (std::size_t i = x.dictitems.size(); i-- > 0;) {
      const Node* key = x.dictitems[i].first;
      push_pair(x.dictitems[i].second, y.dictitems[i].second,
                add_rec(rec, Step::DictItemValue, i, key));
      push_pair(key, y.dictitems[i].first, add_rec(rec, Step::DictItemKey, i));
    }
    for (std::size_t i = x.listitems.size(); i-- > 0;) {
      push_pair(x.listitems[i], y.listitems[i], add_rec(rec, Step::ListItem, i));
    }
    push_pair(x.state_setter, y.state_setter, add_rec(rec, Step::StateSetter));
    push_pair(x.state, y.state, add_rec(rec, Step::State));
    push_pair(x.args, y.args, add_rec(rec, Step::Args));
    push_pair(x.callable, y.callable, add_rec(rec, Step::Callable));
    return true;
  }

  bool start_set(const Node* a, const Node* b, std::uint32_t rec) {
    if (!compare_length(a->items.size(), b->items.size(), rec, a)) return false;
    SetMatch m;
    m.a = a;
    m.b = b;
    m.rec = rec;
    for (const Node* c : a->items) m.hash_a.push_back(shallow_hash(c, 2));
    for (const Node* c : b->items) m.hash_b.push_back(shallow_hash(c, 2));
    m.used.assign(b->items.size(), 0);
    sets_.push_back(std::move(m));
    stack_.push_back(
        {Task::SetStep, nullptr, nullptr, static_cast<std::uint32_t>(sets_.size() - 1)});
    return true;
  }

  bool set_step(std::uint32_t id) {
    SetMatch& m = sets_[id];
    if (m.ai == m.a->items.size()) return true;
    std::size_t j = m.next_cand;
    while (j < m.b->items.size() && (m.used[j] || m.hash_b[j] != m.hash_a[m.ai])) ++j;
    if (j == m.b->items.size()) {
      // One candidate only: its own difference says more than "no equal".
      if (m.tried == 1) return fail(m.fail_rec, m.fail_reason);
      return fail(add_rec(m.rec, Step::SetItem, m.ai),
                  std::string(kind_name(m.a->kind)) + " item " + brief(m.a->items[m.ai]) +
                      " has no equal in the right " + std::string(kind_name(m.b->kind)));
    }
    m.cand = j;
    stack_.push_back({Task::SetStep, nullptr, nullptr, id});
    m.stack_pos = stack_.size();
    m.log_pos = log_.size();
    m.loose_pos = loose_log_.size();
    stack_.push_back({Task::TrialEnd, nullptr, nullptr, id});
    trials_.push_back(id);
    push_pair(m.a->items[m.ai], m.b->items[j], add_rec(m.rec, Step::SetItem, m.ai));
    return true;
  }

  void trial_succeeded(std::uint32_t id) {
    trials_.pop_back();
    SetMatch& m = sets_[id];
    m.used[m.cand] = 1;
    ++m.ai;
    m.next_cand = 0;
    m.tried = 0;
  }

  // After a failure: if it happened under a set-item trial, undo the trial
  // and let its set try the next candidate. False when there is none.
  bool retry_trial() {
    if (trials_.empty()) return false;
    std::uint32_t id = trials_.back();
    trials_.pop_back();
    SetMatch& m = sets_[id];
    stack_.resize(m.stack_pos);
    while (log_.size() > m.log_pos) {
      const Node* a = log_.back();
      log_.pop_back();
      auto it = a_to_b_.find(a);
      b_to_a_.erase(it->second.other);
      a_to_b_.erase(it);
    }
    while (loose_log_.size() > m.loose_pos) {
      loose_.erase(loose_log_.back());
      loose_log_.pop_back();
    }
    m.next_cand = m.cand + 1;
    ++m.tried;
    m.fail_rec = fail_rec_;
    m.fail_reason = fail_reason_;
    // Sets opened inside the failed trial are dead; drop their state.
    sets_.resize(id + 1);
    return true;
  }

  std::string path(std::uint32_t rec) const {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t r = rec; r != 0; r = recs_[r].parent) chain.push_back(r);
    std::string out = "root";
    for (std::size_t k = chain.size(); k-- > 0;) {
      const PathRec& p = recs_[chain[k]];
      std::string i = std::to_string(p.index);
      auto key = [&] { return p.key != nullptr && simple_key(p.key) ? brief(p.key) : "#" + i; };
      switch (p.step) {
        case Step::Root: break;
        case Step::Item: out += "[" + i + "]"; break;
        case Step::DictKey: out += ".keys[" + i + "]"; break;
        case Step::DictValue: out += "{" + key() + "}"; break;
        case Step::SetItem: out += "<" + i + ">"; break;
        case Step::Callable: out += ".callable"; break;
        case Step::Args: out += ".args"; break;
        case Step::State: out += ".state"; break;
        case Step::StateSetter: out += ".state_setter"; break;
        case Step::ListItem: out += ".listitems[" + i + "]"; break;
        case Step::DictItemKey: out += ".dictitems.keys[" + i + "]"; break;
        case Step::DictItemValue: out += ".dictitems{" + key() + "}"; break;
        case Step::Pid: out += ".pid"; break;
        case Step::Grad: out += ".grad"; break;
      }
    }
    return out;
  }

  std::vector<Task> stack_;
  std::vector<PathRec> recs_;
  std::vector<SetMatch> sets_;
  std::vector<std::uint32_t> trials_;  // set matches with a trial in progress
  std::vector<const Node*> log_;       // left nodes in pairing order, for undo
  struct PairKey {
    const Node* a;
    const Node* b;
    bool operator==(const PairKey& o) const { return a == o.a && b == o.b; }
  };
  struct PairKeyHash {
    std::size_t operator()(const PairKey& k) const {
      return std::hash<const void*>()(k.a) * 31 + std::hash<const void*>()(k.b);
    }
  };
  static bool is_immutable(Kind k) {
    return k == Kind::Str || k == Kind::Bytes || k == Kind::Tuple || k == Kind::FrozenSet ||
           k == Kind::Global || k == Kind::Module;
  }

  EqualOptions options_;
  std::unordered_set<PairKey, PairKeyHash> loose_;
  std::vector<PairKey> loose_log_;
  std::unordered_map<const Node*, Pairing> a_to_b_;
  std::unordered_map<const Node*, Pairing> b_to_a_;
  std::uint32_t fail_rec_ = 0;
  std::string fail_reason_;
};

}  // namespace

bool equal(const Node* a, const Node* b, Difference* why) {
  return equal(a, b, EqualOptions{}, why);
}

bool equal(const Node* a, const Node* b, const EqualOptions& options, Difference* why) {
  Comparer c(options);
  return c.run(a, b, why);
}

}  // namespace serialcheck
