#include "harness/props/codec_props.h"

#include <exception>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "harness/gen/shape.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/ndarray.h"
#include "reference/value/equal.h"

namespace serialcheck::props {

namespace {

using gen::children;
using gen::shape_of;

std::string p_str(int protocol) {
  return "protocol " + std::to_string(protocol);
}

std::string describe(const pickle::PickleError& e) {
  return std::string(pickle::error_kind_name(e.kind())) + " at offset " +
         std::to_string(e.offset()) + ": " + e.detail();
}

// An array neither C- nor F-contiguous: numpy pickles it in band through
// `_reconstruct` at every protocol, and it loads C-contiguous.
bool has_noncontiguous_ndarray(const Node* value);

bool has_buffer(const Node* value) {
  return shape_of(value).count(Kind::PickleBuffer) > 0;
}

// Every node reachable from root, each once, in depth-first preorder.
std::vector<const Node*> reachable(const Node* root) {
  std::vector<const Node*> order;
  std::unordered_set<const Node*> seen{root};
  std::vector<const Node*> stack{root};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    auto kids = children(*n);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      if (seen.insert(*it).second) stack.push_back(*it);
    }
  }
  return order;
}

// A copy of value with every PickleBuffer replaced by the bytes (readonly)
// or bytearray (writable) that an in-band buffer reads back as. Sharing and
// cycles are copied as they are. No recursion: nodes first, then links.
Node* copy_buffers_in_band(const Node* root, Graph& out) {
  const std::vector<const Node*> nodes = reachable(root);
  std::unordered_map<const Node*, Node*> map;
  for (const Node* n : nodes) {
    Node* c;
    if (n->kind == Kind::PickleBuffer) {
      c = n->flag ? out.bytes(std::string(n->payload())) : out.bytearray(std::string(n->payload()));
    } else {
      c = out.make(n->kind);
      c->flag = n->flag;
      c->supplied = n->supplied;
      c->copy_numbers(*n);
      c->set_name(n->name());
      if (!n->payload().empty()) c->set_owned(std::string(n->payload()));
      if (n->obj()) c->set_obj(std::make_unique<ObjectParts>());
      if (n->array()) c->set_array(std::make_unique<ArrayParts>(*n->array()));
      c->set_device(n->device());
    }
    map.emplace(n, c);
  }
  auto m = [&map](const Node* n) -> Node* { return n ? map.at(n) : nullptr; };
  for (const Node* n : nodes) {
    Node* c = map.at(n);
    if (n->kind == Kind::Module) {
      // Its class is not one of the value's children (reachable skips it).
      for (const Node* cls : n->items) {
        c->items.push_back(out.global(std::string(cls->payload()), cls->name()));
      }
      continue;
    }
    for (const Node* item : n->items) c->items.push_back(m(item));
    if (n->array()) c->array()->grad = m(n->array()->grad);
    if (n->obj()) {
      c->obj()->callable = m(n->obj()->callable);
      c->obj()->args = m(n->obj()->args);
      c->obj()->state = m(n->obj()->state);
      c->obj()->state_setter = m(n->obj()->state_setter);
      for (const Node* item : n->obj()->listitems) c->obj()->listitems.push_back(m(item));
      for (const auto& [k, v] : n->obj()->dictitems) c->obj()->dictitems.emplace_back(m(k), m(v));
    }
  }
  out.root = map.at(root);
  return out.root;
}

// Checks that each PickleBuffer of `decoded` borrows the memory of the
// PickleBuffer at the same position of `original`. The graphs are known to
// be equal; sets hold no buffers (buffers are unhashable), so ordered
// children line up.
std::string zero_copy_violation(const Node* original, const Node* decoded) {
  std::unordered_set<const Node*> seen;
  std::vector<std::pair<const Node*, const Node*>> stack{{original, decoded}};
  while (!stack.empty()) {
    auto [a, b] = stack.back();
    stack.pop_back();
    if (!seen.insert(a).second) continue;
    if (a->kind == Kind::PickleBuffer) {
      if (b->kind != Kind::PickleBuffer)
        return "a PickleBuffer decoded as " + std::string(kind_name(b->kind));
      if (b->payload().data() != a->payload().data() ||
          b->payload().size() != a->payload().size()) {
        return "a decoded PickleBuffer of " + std::to_string(a->payload().size()) +
               " bytes does not point at the out-of-band buffer's memory (copied)";
      }
      continue;
    }
    if (a->kind == Kind::Set || a->kind == Kind::FrozenSet) continue;
    auto ka = children(*a);
    auto kb = children(*b);
    if (ka.size() != kb.size()) return "decoded structure differs";
    for (std::size_t i = 0; i < ka.size(); ++i) stack.emplace_back(ka[i], kb[i]);
  }
  return {};
}

struct Encoded {
  std::string bytes;
  std::vector<const Node*> buffers;
  // Keeps the lowered buffers of domain values (numpy arrays) alive.
  std::shared_ptr<const Graph> lowered;
};

// Runs `body`, turning any exception into a failure that names the step.
template <typename F>
CheckResult guarded(F&& body) {
  try {
    return body();
  } catch (const pickle::PickleError& e) {
    return CheckResult::fail("unexpected PickleError " + describe(e));
  } catch (const std::exception& e) {
    return CheckResult::fail(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return CheckResult::fail("unexpected non-standard exception");
  }
}

// Encodes, or explains why not.
bool try_encode(const Node* value, const pickle::EncodeOptions& options, Encoded& out,
                std::string& why) {
  try {
    pickle::EncodeResult r = pickle::encode(value, options);
    out.bytes = std::move(r.bytes);
    out.buffers = std::move(r.buffers);
    out.lowered = std::move(r.lowered);
    return true;
  } catch (const pickle::PickleError& e) {
    why = "encode at " + p_str(options.protocol) + " failed: " + describe(e);
    return false;
  }
}

bool try_decode(std::string_view bytes, Graph& graph, const pickle::DecodeOptions& options,
                pickle::DecodeResult& out, std::string& why) {
  try {
    out = pickle::decode(bytes, graph, options);
    if (out.consumed != bytes.size()) {
      why = "decode stopped at offset " + std::to_string(out.consumed) + " of " +
            std::to_string(bytes.size()) + " bytes";
      return false;
    }
    return true;
  } catch (const pickle::PickleError& e) {
    why = "decode failed: " + describe(e);
    return false;
  }
}

pickle::EncodeOptions encode_options(int protocol, bool out_of_band) {
  pickle::EncodeOptions o;
  o.protocol = protocol;
  if (out_of_band) o.buffer_callback = [](const Node&) { return false; };
  return o;
}

std::vector<pickle::BufferView> views_of(const std::vector<const Node*>& buffers) {
  std::vector<pickle::BufferView> views;
  for (const Node* b : buffers) {
    views.push_back(
        {reinterpret_cast<const std::uint8_t*>(b->payload().data()), b->payload().size(), b->flag});
  }
  return views;
}

CheckResult expect_unpicklable(const Node* value, int protocol) {
  try {
    pickle::encode(value, encode_options(protocol, false));
  } catch (const pickle::PickleError& e) {
    if (e.kind() == pickle::ErrorKind::Unpicklable) return CheckResult::pass();
    return CheckResult::fail("a PickleBuffer at " + p_str(protocol) +
                             " must fail as unpicklable, got " + describe(e));
  }
  return CheckResult::fail("a value holding a PickleBuffer was encoded at " + p_str(protocol));
}

std::string differs(const Difference& d) {
  return "decoded value differs at " + d.path + ": " + d.reason;
}

}  // namespace

CheckResult roundtrip_equal(const Node* value, int protocol) {
  return guarded([&]() -> CheckResult {
    const bool buffers = has_buffer(value);
    if (buffers && protocol < 5) return expect_unpicklable(value, protocol);
    Encoded enc;
    std::string why;
    if (!try_encode(value, encode_options(protocol, false), enc, why))
      return CheckResult::fail(why);
    if (!enc.buffers.empty())
      return CheckResult::fail("in-band encoding returned out-of-band buffers");
    Graph g;
    pickle::DecodeResult r;
    if (!try_decode(enc.bytes, g, {}, r, why)) return CheckResult::fail(why);
    const int expected_protocol = protocol >= 2 ? protocol : 0;
    if (r.protocol != expected_protocol) {
      return CheckResult::fail("decoder reports protocol " + std::to_string(r.protocol) +
                               ", expected " + std::to_string(expected_protocol));
    }
    Graph expected_graph;
    const Node* expected = buffers ? copy_buffers_in_band(value, expected_graph) : value;
    Difference d;
    if (!equal(expected, r.root, &d)) return CheckResult::fail(differs(d));
    return CheckResult::pass();
  });
}

CheckResult roundtrip_equal_out_of_band(const Node* value) {
  return guarded([&]() -> CheckResult {
    Encoded enc;
    std::string why;
    if (!try_encode(value, encode_options(5, true), enc, why)) return CheckResult::fail(why);
    const std::size_t count = shape_of(value).count(Kind::PickleBuffer);
    // Every buffer goes out at least once. A buffer inside a recursive tuple
    // goes out twice: the pickler saves the tuple's items, meets the tuple
    // in the memo, pops them and writes a GET, as CPython's does.
    if (enc.buffers.size() < count) {
      return CheckResult::fail("value holds " + std::to_string(count) +
                               " PickleBuffers, encoder sent " +
                               std::to_string(enc.buffers.size()) + " out of band");
    }
    for (const Node* b : enc.buffers) {
      if (b->kind != Kind::PickleBuffer) return CheckResult::fail("encoder sent a non-buffer");
    }
    const std::vector<pickle::BufferView> views = views_of(enc.buffers);
    pickle::DecodeOptions options;
    options.buffers = views;
    Graph g;
    pickle::DecodeResult r;
    if (!try_decode(enc.bytes, g, options, r, why)) return CheckResult::fail(why);
    Difference d;
    if (!equal(value, r.root, &d)) return CheckResult::fail(differs(d));
    if (std::string v = zero_copy_violation(value, r.root); !v.empty()) return CheckResult::fail(v);
    return CheckResult::pass();
  });
}

CheckResult roundtrip_reencode(const Node* value, int protocol, bool out_of_band) {
  return guarded([&]() -> CheckResult {
    if (has_buffer(value) && protocol < 5) {
      return CheckResult::skip("a PickleBuffer cannot be written at " + p_str(protocol));
    }
    const bool oob = out_of_band && protocol == 5;
    std::string why;
    // At protocol 5 a non-contiguous array is written through
    // `_reconstruct` and reads back C-contiguous, which is written through
    // `_frombuffer`: numpy's pickles of such a value are not a fixpoint, so
    // the value gets one round trip first and the property holds from there.
    Encoded warmup;
    Graph warm_graph;
    if (protocol == 5 && has_noncontiguous_ndarray(value)) {
      if (!try_encode(value, encode_options(protocol, oob), warmup, why))
        return CheckResult::fail(why);
      const std::vector<pickle::BufferView> wv = views_of(warmup.buffers);
      pickle::DecodeOptions wo;
      wo.buffers = wv;
      pickle::DecodeResult w;
      if (!try_decode(warmup.bytes, warm_graph, wo, w, why)) return CheckResult::fail(why);
      value = w.root;
    }
    Encoded first;
    if (!try_encode(value, encode_options(protocol, oob), first, why))
      return CheckResult::fail(why);
    const std::vector<pickle::BufferView> views = views_of(first.buffers);
    pickle::DecodeOptions options;
    options.buffers = views;
    Graph g;
    pickle::DecodeResult r;
    if (!try_decode(first.bytes, g, options, r, why)) return CheckResult::fail(why);
    Encoded second;
    if (!try_encode(r.root, encode_options(protocol, oob), second, why)) {
      return CheckResult::fail("re-" + why);
    }
    if (second.bytes != first.bytes) {
      std::size_t at = 0;
      while (at < first.bytes.size() && at < second.bytes.size() &&
             first.bytes[at] == second.bytes[at]) {
        ++at;
      }
      return CheckResult::fail("re-encoding differs from offset " + std::to_string(at) + " (" +
                               std::to_string(first.bytes.size()) + " bytes, then " +
                               std::to_string(second.bytes.size()) + ")");
    }
    if (second.buffers.size() != first.buffers.size()) {
      return CheckResult::fail("re-encoding sent " + std::to_string(second.buffers.size()) +
                               " buffers out of band, the first encoding " +
                               std::to_string(first.buffers.size()));
    }
    for (std::size_t i = 0; i < first.buffers.size(); ++i) {
      if (first.buffers[i]->payload() != second.buffers[i]->payload() ||
          first.buffers[i]->flag != second.buffers[i]->flag) {
        return CheckResult::fail("out-of-band buffer " + std::to_string(i) +
                                 " differs after re-encoding");
      }
    }
    return CheckResult::pass();
  });
}

CheckResult roundtrip_identity(const Node* value, int protocol) {
  return guarded([&]() -> CheckResult {
    const gen::Shape before = shape_of(value);
    if (before.shared == 0 && !before.cyclic)
      return CheckResult::skip("the value has no sharing and no cycle");
    if (before.count(Kind::PickleBuffer) > 0 && protocol < 5) {
      return CheckResult::skip("a PickleBuffer cannot be written at " + p_str(protocol));
    }
    Encoded enc;
    std::string why;
    if (!try_encode(value, encode_options(protocol, false), enc, why))
      return CheckResult::fail(why);
    Graph g;
    pickle::DecodeResult r;
    if (!try_decode(enc.bytes, g, {}, r, why)) return CheckResult::fail(why);
    // Atoms carry no identity (a decoder may share one None); everything
    // else must come back node for node.
    const gen::Shape after = shape_of(r.root);
    if (after.non_atoms != before.non_atoms || after.shared != before.shared ||
        after.shared_singletons != before.shared_singletons || after.cyclic != before.cyclic) {
      auto text = [](const gen::Shape& s) {
        return std::to_string(s.non_atoms) + " non-atom nodes, " + std::to_string(s.shared) +
               " shared, " + std::to_string(s.shared_singletons) + " shared singletons, " +
               (s.cyclic ? "cyclic" : "acyclic");
      };
      return CheckResult::fail("identity lost: the value has " + text(before) +
                               ", the decoded one " + text(after));
    }
    Graph expected_graph;
    const Node* expected =
        before.count(Kind::PickleBuffer) > 0 ? copy_buffers_in_band(value, expected_graph) : value;
    Difference d;
    if (!equal(expected, r.root, &d)) return CheckResult::fail(differs(d));
    return CheckResult::pass();
  });
}

CheckResult decode_total(std::span<const std::uint8_t> data) {
  // Two buffers on offer, so NEXT_BUFFER can succeed as well as fail.
  static const std::uint8_t kBufA[] = {1, 2, 3, 4};
  static const std::uint8_t kBufB[] = {0};
  const pickle::BufferView views[] = {{kBufA, sizeof kBufA, true}, {kBufB, 0, false}};
  pickle::DecodeOptions options;
  options.buffers = views;
  Graph g;
  pickle::DecodeResult r;
  try {
    r = pickle::decode(data, g, options);
  } catch (const pickle::PickleError& e) {
    if (e.offset() > data.size()) {
      return CheckResult::fail("error offset " + std::to_string(e.offset()) + " lies beyond the " +
                               std::to_string(data.size()) + "-byte input (" + describe(e) + ")");
    }
    return CheckResult::pass();
  } catch (const std::exception& e) {
    return CheckResult::fail(std::string("decode threw a non-PickleError exception: ") + e.what());
  } catch (...) {
    return CheckResult::fail("decode threw a non-standard exception");
  }
  if (!r.root) return CheckResult::fail("decode returned no value and no error");
  if (r.root != g.root) return CheckResult::fail("decode result's root is not graph.root");
  if (r.consumed == 0 || r.consumed > data.size()) {
    return CheckResult::fail("decode reports " + std::to_string(r.consumed) +
                             " bytes consumed of " + std::to_string(data.size()));
  }
  // Well-formed: the value can be walked and compared with itself.
  return guarded([&]() -> CheckResult {
    (void)shape_of(r.root);
    Difference d;
    if (!equal(r.root, r.root, &d))
      return CheckResult::fail("decoded value is not equal to itself: " + d.path + ": " + d.reason);
    return CheckResult::pass();
  });
}

CheckResult decode_total(std::string_view data) {
  return decode_total(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

CheckResult protocol_mismatch(const Node* value, int stream_protocol, int loader_protocol) {
  return guarded([&]() -> CheckResult {
    if (stream_protocol < 2 || stream_protocol > 5 || loader_protocol < 0 ||
        loader_protocol >= stream_protocol) {
      return CheckResult::skip(
          "needs 0 <= loader protocol < stream protocol, stream protocol 2..5");
    }
    if (has_buffer(value) && stream_protocol < 5) {
      return CheckResult::skip("a PickleBuffer cannot be written at " + p_str(stream_protocol));
    }
    Encoded enc;
    std::string why;
    if (!try_encode(value, encode_options(stream_protocol, false), enc, why))
      return CheckResult::fail(why);
    Graph g;
    pickle::DecodeOptions options;
    options.max_protocol = loader_protocol;
    try {
      pickle::decode(enc.bytes, g, options);
    } catch (const pickle::UnsupportedProtocolError& e) {
      const std::string what = e.what();
      std::string problems;
      if (e.kind() != pickle::ErrorKind::UnsupportedProtocol)
        problems += " kind is not unsupported-protocol;";
      if (e.found() != stream_protocol)
        problems += " found() is " + std::to_string(e.found()) + ";";
      if (e.max() != loader_protocol) problems += " max() is " + std::to_string(e.max()) + ";";
      if (e.offset() != 0) problems += " offset is " + std::to_string(e.offset()) + ";";
      if (what.find(std::to_string(stream_protocol)) == std::string::npos) {
        problems += " message does not name protocol " + std::to_string(stream_protocol) + ";";
      }
      if (what.find(std::to_string(loader_protocol)) == std::string::npos) {
        problems += " message does not name protocol " + std::to_string(loader_protocol) + ";";
      }
      if (!problems.empty())
        return CheckResult::fail("UnsupportedProtocolError \"" + what + "\":" + problems);
      return CheckResult::pass();
    } catch (const pickle::PickleError& e) {
      return CheckResult::fail("expected UnsupportedProtocolError, got " + describe(e));
    }
    return CheckResult::fail("a loader with max_protocol " + std::to_string(loader_protocol) +
                             " accepted a " + p_str(stream_protocol) + " stream");
  });
}

namespace {

bool has_noncontiguous_ndarray(const Node* value) {
  for (const Node* n : reachable(value)) {
    if (n->kind != Kind::NDArray || !n->array()) continue;
    const auto dt = types::parse_numeric_dtype(n->array()->dtype);
    if (!dt) continue;
    if (!types::ndarray_c_contiguous(*n->array(), dt->itemsize) &&
        !types::ndarray_f_contiguous(*n->array(), dt->itemsize)) {
      return true;
    }
  }
  return false;
}

}  // namespace

}  // namespace serialcheck::props
