#include "harness/gen/build.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "harness/gen/module_gen.h"
#include "harness/gen/ndarray_gen.h"
#include "harness/gen/shape.h"
#include "harness/gen/tensor_gen.h"
#include "reference/value/numeric.h"

namespace serialcheck::gen {

namespace {

std::string int_key(std::string_view minimal_twos) {
  return "i" + std::to_string(minimal_twos.size()) + ":" + std::string(minimal_twos);
}

// The exact integer an integral double equals, as two's-complement bytes.
std::string integral_double_twos(double d) {
  if (std::fabs(d) < 9223372036854775808.0) {
    return int64_to_twos_le(static_cast<std::int64_t>(d));
  }
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(d);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1075;  // d = m * 2**exponent
  const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
  // |d| >= 2**63 makes exponent >= 11: shift the 53-bit mantissa left.
  std::vector<std::uint8_t> mag(static_cast<std::size_t>(exponent / 8) + 10, 0);
  const int byte_shift = exponent / 8, bit_shift = exponent % 8;
  for (int i = 0; i < 8; ++i) {
    const unsigned v = static_cast<unsigned>((mantissa >> (8 * i)) & 0xff) << bit_shift;
    mag[static_cast<std::size_t>(byte_shift + i)] |= static_cast<std::uint8_t>(v & 0xff);
    mag[static_cast<std::size_t>(byte_shift + i + 1)] |= static_cast<std::uint8_t>(v >> 8);
  }
  if (std::signbit(d)) {  // two's complement: invert and add one
    unsigned carry = 1;
    for (auto& b : mag) {
      const unsigned v = static_cast<std::uint8_t>(~b) + carry;
      b = static_cast<std::uint8_t>(v & 0xff);
      carry = v >> 8;
    }
  }
  return minimal_twos_le(std::string(mag.begin(), mag.end()));
}

bool is_empty_tuple(const Node* n) {
  return n->kind == Kind::Tuple && n->items.empty();
}

bool is_singleton_str(std::string_view utf8) {
  Node probe(Kind::Str);
  probe.set_borrowed(utf8.data(), utf8.size());
  return is_singleton(probe);
}

class Builder {
 public:
  Builder(const GenConfig& config, Graph& graph) : c_(config), g_(graph) {}

  // Recursion is bounded by the plan's depth, which the generators bound.
  Node* build(const Plan& p, bool hashable) {
    switch (p.tag) {
      case PlanTag::Share: return share(p.pick, hashable);
      case PlanTag::Cycle: return hashable ? g_.none() : cycle(p.pick);
      case PlanTag::Value: break;
    }
    switch (p.kind) {
      case Kind::None: return g_.none();
      case Kind::Bool: return g_.boolean(p.flag);
      case Kind::Int: return g_.integer_le(p.text);
      case Kind::Float: {
        double f = p.f;
        if (std::isnan(f)) {
          // No NaN as a key; protocol 0 writes "nan", which reads back as the quiet NaN.
          if (hashable)
            f = 0.5;
          else if (c_.min_protocol == 0)
            f = std::numeric_limits<double>::quiet_NaN();
        }
        return g_.floating(f);
      }
      case Kind::Str:
        if (is_singleton_str(p.text)) return intern("S" + p.text, Kind::Str, p);
        return done(g_.str(p.text));
      case Kind::Bytes:
        if (p.text.size() <= 1) return intern("B" + p.text, Kind::Bytes, p);
        return done(g_.bytes(p.text));
      case Kind::ByteArray:
        if (hashable) return g_.none();
        return done(g_.bytearray(p.text));
      case Kind::Global:
        if (hashable) return g_.none();
        return global(p.module, p.name);
      case Kind::PickleBuffer:
        // Out of band, pickle writes a buffer without memoizing it: never shared.
        return hashable ? g_.none() : g_.pickle_buffer(p.text, p.flag);
      case Kind::PersId: {
        if (hashable || p.items.empty()) return g_.none();
        // The persistent id is never memoized, its pid not at protocol 0 (the
        // generator gives protocol 0 no singleton pid, which is shared by value).
        ++private_;
        Node* pid = build(p.items.front(), true);
        --private_;
        return g_.persid(pid);
      }
      case Kind::Tuple: {
        if (hashable) {
          std::vector<Node*> items;
          items.reserve(p.items.size());
          for (const Plan& item : p.items) items.push_back(build(item, true));
          return done(g_.tuple(std::move(items)));
        }
        // A cycle may come back to a tuple through a list, dict or object
        // inside it (see cycle()): the pickler then meets the tuple again
        // while saving its items, and pops them (POP/POP_MARK) for a GET.
        Node* tuple = g_.tuple();
        stack_.push_back(tuple);
        for (const Plan& item : p.items) tuple->items.push_back(build(item, false));
        stack_.pop_back();
        return done(tuple);
      }
      case Kind::FrozenSet:
      case Kind::Set: {
        if (hashable && p.kind == Kind::Set) return g_.none();
        std::vector<Node*> items;
        std::unordered_set<std::string> seen;
        for (const Plan& item : p.items) {
          Node* n = build(item, true);
          auto key = hash_key(n);
          if (key && seen.insert(*key).second) items.push_back(n);
        }
        return done(p.kind == Kind::Set ? g_.set(std::move(items))
                                        : g_.frozenset(std::move(items)));
      }
      case Kind::List: {
        if (hashable) return g_.none();
        Node* list = g_.list();
        stack_.push_back(list);
        for (const Plan& item : p.items) list->items.push_back(build(item, false));
        stack_.pop_back();
        return done(list);
      }
      case Kind::Dict: {
        if (hashable) return g_.none();
        Node* dict = g_.dict();
        stack_.push_back(dict);
        std::unordered_set<std::string> seen;
        for (std::size_t i = 0; i + 1 < p.items.size(); i += 2) {
          Node* k = build(p.items[i], true);
          auto key = hash_key(k);
          if (!key || !seen.insert(*key).second) continue;
          Node* v = build(p.items[i + 1], false);
          dict->items.push_back(k);
          dict->items.push_back(v);
        }
        stack_.pop_back();
        return done(dict);
      }
      case Kind::Object: return hashable ? g_.none() : object(p);
      // Domain leaves are never keys (Python hashes them by identity).
      case Kind::NDArray:
        if (hashable || !p.ndarray) return g_.none();
        return done(build_ndarray(*p.ndarray, g_));
      case Kind::Tensor:
        if (hashable || !p.tensor) return g_.none();
        return done(build_tensor(*p.tensor, g_));
      case Kind::Module: {
        if (hashable || !p.module_spec) return g_.none();
        // One node per module name: loading yields the one module object
        // registered under it.
        const std::string key = "M" + p.module_spec->name;
        auto it = interned_.find(key);
        if (it != interned_.end()) return it->second;
        Node* n = build_module(*p.module_spec, g_);
        interned_.emplace(key, n);
        return done(n);
      }
      case Kind::DeviceBuffer:
        if (hashable || !p.device) return g_.none();
        return done(build_device_buffer(*p.device, g_));
    }
    return g_.none();
  }

 private:
  Node* object(const Plan& p) {
    // The args tuple is a fresh node no other position refers to: NEWOBJ
    // does not write it as it is.
    Node* callable;
    std::vector<Node*> args;
    if (p.flag) {
      // Not offered to Share steps: NEWOBJ does not write its callable.
      callable = global("copyreg", "__newobj__", /*shareable=*/false);
      args.push_back(global(p.module, p.name));
    } else {
      callable = global(p.module, p.name);
    }
    // A fixture request (fixtures.h): its first argument names the kind.
    if (!p.text.empty()) args.push_back(g_.str(p.text));
    // The object is pushed as a cycle target only after its args: Python
    // creates it from them, and fills in only the rest afterwards.
    // Nothing inside the args may come back to a tuple around the object:
    // the pickler saves the args before the object exists, so it would meet
    // the tuple, and then the object, a second time and write them twice.
    args_floor_.push_back(stack_.size());
    for (const Plan& a : p.items) args.push_back(build(a, false));
    args_floor_.pop_back();
    Node* obj;
    if (p.flag && p.pick == 1) {
      // copyreg.__newobj_ex__(cls, args, kwargs): the arguments after the
      // class become the args tuple, with no keyword arguments.
      Node* cls = args.front();
      Node* rest = g_.tuple(std::vector<Node*>(args.begin() + 1, args.end()));
      callable = global("copyreg", "__newobj_ex__", /*shareable=*/false);
      obj = g_.object(callable, g_.tuple({cls, rest, g_.dict()}));
    } else {
      obj = g_.object(callable, g_.tuple(std::move(args)));
    }
    stack_.push_back(obj);
    if (!p.state.empty()) {
      Node* state = build(p.state.front(), false);
      // BUILD is written only for a state that is not None.
      if (state->kind != Kind::None) {
        obj->obj()->state = state;
        if (!p.setter_module.empty()) {
          obj->obj()->state_setter = global(p.setter_module, p.setter_name);
        }
      }
    }
    for (const Plan& item : p.listitems) obj->obj()->listitems.push_back(build(item, false));
    for (std::size_t i = 0; i + 1 < p.dictitems.size(); i += 2) {
      Node* k = build(p.dictitems[i], true);
      Node* v = build(p.dictitems[i + 1], false);
      obj->obj()->dictitems.emplace_back(k, v);
    }
    stack_.pop_back();
    return done(obj);
  }

  Node* share(std::uint32_t pick, bool hashable) {
    const std::vector<Node*>& pool = hashable ? hashable_pool_ : pool_;
    if (pool.empty()) return g_.none();
    return pool[pick % pool.size()];
  }

  Node* cycle(std::uint32_t pick) {
    if (stack_.empty()) return g_.none();
    std::size_t i = pick % stack_.size();
    if (stack_[i]->kind == Kind::Tuple) {
      if (!c_.allow_tuple_cycles) return g_.none();
      if (!args_floor_.empty() && i < args_floor_.back()) return g_.none();
      // Only through lists, dicts and objects, and through no other tuple:
      // Python cannot make a tuple that holds itself through tuples alone,
      // and the pickler, meeting two unfinished tuples on the way back,
      // would save them again and again without end.
      if (i + 1 == stack_.size()) return g_.none();
      for (std::size_t j = i + 1; j < stack_.size(); ++j) {
        if (stack_[j]->kind == Kind::Tuple) return g_.none();
      }
    }
    return stack_[i];
  }

  // One node per value for what pickle memoizes by value.
  Node* intern(std::string key, Kind kind, const Plan& p) {
    auto it = interned_.find(key);
    if (it != interned_.end()) return it->second;
    Node* n = kind == Kind::Str ? g_.str(p.text) : g_.bytes(p.text);
    interned_.emplace(std::move(key), n);
    return done(n);
  }

  // One node per global name: the encoder memoizes globals by name.
  Node* global(const std::string& module, const std::string& name, bool shareable = true) {
    const std::string key = "G" + module + "\n" + name;
    auto it = interned_.find(key);
    if (it != interned_.end()) return it->second;
    Node* n = g_.global(module, name);
    interned_.emplace(key, n);
    return shareable ? done(n) : n;
  }

  // A completed node becomes available to Share steps.
  Node* done(Node* n) {
    if (private_ > 0 || !c_.allow_sharing || is_empty_tuple(n)) return n;
    pool_.push_back(n);
    if (hash_key(n)) hashable_pool_.push_back(n);
    return n;
  }

  const GenConfig& c_;
  Graph& g_;
  // The lists, dicts and objects being filled in around the current
  // position: what a Cycle step may point back to.
  std::vector<Node*> stack_;
  // stack_ sizes where the object args being built began (innermost last).
  std::vector<std::size_t> args_floor_;
  std::vector<Node*> pool_;
  std::vector<Node*> hashable_pool_;
  std::unordered_map<std::string, Node*> interned_;
  int private_ = 0;
};

}  // namespace

namespace {

std::optional<std::string> hash_key_at(const Node* n, int depth);

}  // namespace

std::optional<std::string> hash_key(const Node* n) {
  return hash_key_at(n, 0);
}

namespace {

std::optional<std::string> hash_key_at(const Node* n, int depth) {
  // Generated keys nest a few levels; a decoded graph could nest without end.
  if (depth > 64) return std::nullopt;
  switch (n->kind) {
    case Kind::None: return std::string("N");
    case Kind::Bool: return int_key(int64_to_twos_le(n->flag ? 1 : 0));
    case Kind::Int:
      return int_key(n->big ? std::string(n->payload()) : int64_to_twos_le(n->small()));
    case Kind::Float: {
      const double d = n->f;
      if (std::isnan(d)) return std::nullopt;
      if (std::isfinite(d) && d == std::trunc(d)) return int_key(integral_double_twos(d));
      const std::uint64_t bits = std::bit_cast<std::uint64_t>(d);
      return "f" + std::string(reinterpret_cast<const char*>(&bits), sizeof bits);
    }
    case Kind::Str:
      return "s" + std::to_string(n->payload().size()) + ":" + std::string(n->payload());
    case Kind::Bytes:
      return "b" + std::to_string(n->payload().size()) + ":" + std::string(n->payload());
    case Kind::Tuple:
    case Kind::FrozenSet: {
      std::vector<std::string> keys;
      for (const Node* item : n->items) {
        auto k = hash_key_at(item, depth + 1);
        if (!k) return std::nullopt;
        keys.push_back(std::move(*k));
      }
      if (n->kind == Kind::FrozenSet) std::sort(keys.begin(), keys.end());
      std::string body;
      for (const auto& k : keys) body += k;
      return (n->kind == Kind::Tuple ? "t" : "z") + std::to_string(body.size()) + ":" + body;
    }
    default: return std::nullopt;
  }
}

}  // namespace

Node* build(const Plan& plan, const GenConfig& config, Graph& graph) {
  Builder b(config, graph);
  graph.root = b.build(plan, false);
  return graph.root;
}

}  // namespace serialcheck::gen
