#include "harness/gen/plan.h"

#include <utility>

#include "harness/gen/choice.h"
#include "harness/gen/fixtures.h"
#include "harness/gen/module_gen.h"
#include "harness/gen/names.h"
#include "harness/gen/ndarray_gen.h"
#include "harness/gen/numbers.h"
#include "harness/gen/tensor_gen.h"
#include "harness/gen/text.h"
#include "reference/value/numeric.h"

namespace serialcheck::gen {

namespace {

using PlanList = std::vector<Plan>;

Plan valuePlan(Kind kind) {
  Plan p;
  p.kind = kind;
  return p;
}

rc::Gen<Plan> noneGen() {
  return rc::gen::just(Plan{});
}

rc::Gen<Plan> boolGen() {
  return rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) {
    Plan p = valuePlan(Kind::Bool);
    p.flag = b;
    return p;
  });
}

rc::Gen<Plan> intGen() {
  return rc::gen::map(pyInt(), [](std::string twos) {
    Plan p = valuePlan(Kind::Int);
    p.text = std::move(twos);
    return p;
  });
}

rc::Gen<Plan> floatGen(bool allow_nan) {
  return rc::gen::map(pyFloat(allow_nan), [](double d) {
    Plan p = valuePlan(Kind::Float);
    p.f = d;
    return p;
  });
}

rc::Gen<Plan> textGen(Kind kind, rc::Gen<std::string> payload) {
  return rc::gen::map(std::move(payload), [kind](std::string s) {
    Plan p = valuePlan(kind);
    p.text = std::move(s);
    return p;
  });
}

rc::Gen<Plan> globalGen(const GenConfig& c) {
  return rc::gen::map(globalName(c), [](QualName q) {
    Plan p = valuePlan(Kind::Global);
    p.module = std::move(q.first);
    p.name = std::move(q.second);
    return p;
  });
}

rc::Gen<Plan> bufferGen(const GenConfig& c) {
  return rc::gen::map(rc::gen::pair(blob(c.allow_large), rc::gen::arbitrary<bool>()),
                      [](std::pair<std::string, bool> b) {
                        Plan p = valuePlan(Kind::PickleBuffer);
                        // In band, a buffer reads back as bytes; one of 0 or 1
                        // bytes would then be a singleton, memoized by value,
                        // and re-encode differently. Two bytes at least.
                        p.text = b.first.size() >= 2 ? std::move(b.first) : b.first + "pb";
                        p.flag = b.second;
                        return p;
                      });
}

// Small domain leaves: the codec properties want many of them in one value,
// not a few big ones.
rc::Gen<Plan> ndarrayLeaf() {
  NDArrayGenOptions o;
  o.max_dims = 3;
  o.max_elements = 24;
  o.allow_big = false;
  return rc::gen::map(ndarraySpec(o), [](NDArraySpec s) {
    Plan p = valuePlan(Kind::NDArray);
    p.ndarray = std::make_shared<const NDArraySpec>(std::move(s));
    return p;
  });
}

rc::Gen<Plan> tensorLeaf(bool grads) {
  TensorGenOptions o;
  o.allow_grad = grads;
  o.max_grad_depth = 1;
  return rc::gen::map(tensorSpec(o), [](TensorSpec s) {
    Plan p = valuePlan(Kind::Tensor);
    p.tensor = std::make_shared<const TensorSpec>(std::move(s));
    return p;
  });
}

rc::Gen<Plan> moduleLeaf() {
  return rc::gen::map(moduleSpec(true), [](ModuleSpec s) {
    Plan p = valuePlan(Kind::Module);
    p.module_spec = std::make_shared<const ModuleSpec>(std::move(s));
    return p;
  });
}

rc::Gen<Plan> deviceLeaf() {
  return rc::gen::map(deviceBufferSpec(), [](DeviceBufferSpec s) {
    Plan p = valuePlan(Kind::DeviceBuffer);
    p.device = std::make_shared<const DeviceBufferSpec>(std::move(s));
    return p;
  });
}

rc::Gen<Plan> containerOf(Kind kind, rc::Gen<PlanList> items) {
  return rc::gen::map(std::move(items), [kind](PlanList v) {
    Plan p = valuePlan(kind);
    p.items = std::move(v);
    return p;
  });
}

rc::Gen<PlanList> pairsOf(rc::Gen<Plan> key, rc::Gen<Plan> value, int max_items) {
  return rc::gen::map(itemsOf(rc::gen::pair(key, value), max_items),
                      [](std::vector<std::pair<Plan, Plan>> pairs) {
                        PlanList kv;
                        kv.reserve(pairs.size() * 2);
                        for (auto& [k, v] : pairs) {
                          kv.push_back(std::move(k));
                          kv.push_back(std::move(v));
                        }
                        return kv;
                      });
}

// A persistent id. Protocol 0 writes it as a text line, so there it must be
// a printable ASCII str; from protocol 1 on, any picklable pid works.
rc::Gen<Plan> persidGen(const GenConfig& c) {
  // Two characters at least: a singleton str is memoized by value, which
  // an unmemoized protocol-0 pid could not match.
  auto asciiStr = textGen(Kind::Str, rc::gen::map(asciiLine(), [](std::string s) {
                            return s.size() >= 2 ? s : s + "id";
                          }));
  rc::Gen<Plan> pid = asciiStr;
  if (c.min_protocol > 0) {
    auto scalar = weightedChoice<Plan>({{1, intGen()}, {1, textGen(Kind::Str, pyStr())}});
    pid = weightedChoice<Plan>({{3, scalar}, {1, containerOf(Kind::Tuple, itemsOf(scalar, 3))}});
  }
  return rc::gen::map(pid, [](Plan id) {
    Plan p = valuePlan(Kind::PersId);
    p.items.push_back(std::move(id));
    return p;
  });
}

rc::Gen<Plan> refGen(PlanTag tag) {
  return rc::gen::map(rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>()),
                      [tag](std::uint32_t pick) {
                        Plan p;
                        p.tag = tag;
                        p.pick = pick;
                        return p;
                      });
}

// A list, dict or set of just over 1000 small ints: APPENDS, SETITEMS and
// ADDITEMS split their items in batches of 1000.
rc::Gen<Plan> longContainerGen() {
  auto kind = rc::gen::element(Kind::List, Kind::Dict, Kind::Set);
  return rc::gen::map(rc::gen::pair(kind, rc::gen::resize(100, rc::gen::inRange(999, 1003))),
                      [](std::pair<Kind, int> kn) {
                        Plan p = valuePlan(kn.first);
                        for (int i = 0; i < kn.second; ++i) {
                          // Distinct strs: each is memoized, so the memo outgrows one-byte
                          // keys (LONG_BINPUT) around the batch boundary of 1000.
                          Plan item = valuePlan(Kind::Str);
                          item.text = "k" + std::to_string(i);
                          p.items.push_back(std::move(item));
                          if (kn.first == Kind::Dict) p.items.push_back(Plan{});
                        }
                        if (kn.first != Kind::Set) {
                          // One more reference to an earlier item: a GET with a long key.
                          Plan again;
                          again.tag = PlanTag::Share;
                          again.pick = 700;
                          if (kn.first == Kind::Dict) {
                            p.items.back() = std::move(again);
                          } else {
                            p.items.push_back(std::move(again));
                          }
                        }
                        return p;
                      });
}

// A list that fills a pickle frame to exactly its 64 KiB target at some
// opcode boundary: a bytes payload a little under the target, then ints of
// two and three bytes each (BININT1, BININT2), one boundary after each, so
// the frame's size steps across 65536 in steps of 2 and 3 and most often
// lands on it. Half the time the payload is 65536 bytes instead: the size
// from which CPython writes a payload outside any frame. An
// off-by-one in either rule changes the bytes at protocols 4 and 5.
rc::Gen<Plan> frameFillGen() {
  auto size = weightedChoice<int>(
      {{1, rc::gen::just(65536)}, {1, rc::gen::resize(100, rc::gen::inRange(65490, 65530))}});
  auto wide = rc::gen::container<std::vector<bool>>(24, rc::gen::arbitrary<bool>());
  return rc::gen::map(rc::gen::pair(size, wide), [](const std::pair<int, std::vector<bool>>& d) {
    Plan p = valuePlan(Kind::List);
    Plan payload = valuePlan(Kind::Bytes);
    payload.text.assign(static_cast<std::size_t>(d.first), 'f');
    p.items.push_back(std::move(payload));
    for (bool three : d.second) {
      Plan i = valuePlan(Kind::Int);
      i.text = int64_to_twos_le(three ? 300 : 7);
      p.items.push_back(std::move(i));
    }
    return p;
  });
}

struct ObjectDraw {
  QualName callable;
  bool newobj = false;
  bool newobj_ex = false;  // with newobj: copyreg.__newobj_ex__ (cls, args, kwargs)
  PlanList args;
  PlanList state;
  bool use_setter = false;
  QualName setter;
  PlanList listitems;
  PlanList dictitems;
};

rc::Gen<Plan> objectGen(const GenConfig& c, rc::Gen<Plan> child, rc::Gen<Plan> key) {
  const int n = c.max_items;
  auto dictState = containerOf(Kind::Dict, pairsOf(key, child, n));
  auto stateGen = weightedChoice<Plan>({{3, dictState}, {1, child}});
  auto emptyList = rc::gen::just(PlanList{});
  auto state =
      weightedChoice<PlanList>({{1, emptyList}, {2, rc::gen::container<PlanList>(1, stateGen)}});
  auto listitems = weightedChoice<PlanList>({{3, emptyList}, {1, itemsOf(child, n)}});
  auto dictitems = weightedChoice<PlanList>({{3, emptyList}, {1, pairsOf(key, child, n)}});
  auto useSetter = c.allow_state_setter ? chance(1, 5) : rc::gen::just(false);
  auto draw = rc::gen::build<ObjectDraw>(rc::gen::set(&ObjectDraw::callable, callableName(c)),
                                         rc::gen::set(&ObjectDraw::newobj, chance(1, 4)),
                                         rc::gen::set(&ObjectDraw::newobj_ex, chance(1, 3)),
                                         rc::gen::set(&ObjectDraw::args, itemsOf(child, n)),
                                         rc::gen::set(&ObjectDraw::state, state),
                                         rc::gen::set(&ObjectDraw::use_setter, useSetter),
                                         rc::gen::set(&ObjectDraw::setter, callableName(c)),
                                         rc::gen::set(&ObjectDraw::listitems, listitems),
                                         rc::gen::set(&ObjectDraw::dictitems, dictitems));
  return rc::gen::map(draw, [](ObjectDraw d) {
    Plan p = valuePlan(Kind::Object);
    p.module = std::move(d.callable.first);
    p.name = std::move(d.callable.second);
    p.flag = d.newobj;
    p.pick = d.newobj && d.newobj_ex ? 1 : 0;
    p.items = std::move(d.args);
    p.state = std::move(d.state);
    if (d.use_setter && !p.state.empty()) {
      p.setter_module = std::move(d.setter.first);
      p.setter_name = std::move(d.setter.second);
    }
    p.listitems = std::move(d.listitems);
    p.dictitems = std::move(d.dictitems);
    return p;
  });
}

// A request for a fixture object (fixtures.h): serialcheck_fixtures.make
// with the kind's name (kept in `text`, so shrinking never drops it) and as
// many generated arguments as the kind takes.
rc::Gen<Plan> fixtureGen(const GenConfig& c, rc::Gen<Plan> child) {
  std::vector<FixtureKind> kinds;
  for (const FixtureKind& k : fixture_kinds()) {
    if (k.min_protocol <= c.min_protocol) kinds.push_back(k);
  }
  return rc::gen::mapcat(rc::gen::elementOf(kinds), [child](const FixtureKind& k) {
    return rc::gen::map(rc::gen::container<PlanList>(static_cast<std::size_t>(k.arity), child),
                        [name = std::string(k.name)](PlanList args) {
                          Plan p = valuePlan(Kind::Object);
                          p.module = std::string(kFixturesModule);
                          p.name = std::string(kFixtureMaker);
                          p.text = name;
                          p.items = std::move(args);
                          return p;
                        });
  });
}

rc::Gen<Plan> hashableAt(const GenConfig& c, int depth) {
  std::vector<std::pair<int, rc::Gen<Plan>>> alts = {
      {1, noneGen()},
      {1, boolGen()},
      {3, intGen()},
      {2, floatGen(false)},
      {3, textGen(Kind::Str, pyStr())},
      {2, textGen(Kind::Bytes, blob(false))},
  };
  if (depth > 0) {
    auto child = hashableAt(c, depth - 1);
    alts.emplace_back(3, containerOf(Kind::Tuple, itemsOf(child, c.max_items)));
    alts.emplace_back(1, containerOf(Kind::FrozenSet, itemsOf(child, c.max_items)));
  }
  if (c.allow_sharing) alts.emplace_back(1, refGen(PlanTag::Share));
  return weightedChoice<Plan>(std::move(alts));
}

// Plans with at most `depth` container levels. `root`: no Share/Cycle step
// and containers preferred.
rc::Gen<Plan> planAt(const GenConfig& c, int depth, bool root, const rc::Gen<Plan>* below) {
  const int containerWeight = root ? 6 : 2;
  std::vector<std::pair<int, rc::Gen<Plan>>> alts = {
      {2, noneGen()},
      {2, boolGen()},
      {6, intGen()},
      {4, floatGen(true)},
      {5, textGen(Kind::Str, pyStr())},
      {2, textGen(Kind::Bytes, blob(c.allow_large))},
      {1, textGen(Kind::ByteArray, blob(c.allow_large))},
      {1, globalGen(c)},
      {c.allow_buffers ? 1 : 0, bufferGen(c)},
      {c.allow_persid ? 1 : 0, persidGen(c)},
      {c.allow_ndarrays ? 1 : 0, ndarrayLeaf()},
      {c.allow_tensors ? 1 : 0, tensorLeaf(c.allow_tensor_grads)},
      {c.allow_modules ? 1 : 0, moduleLeaf()},
      {c.allow_device_buffers ? 1 : 0, deviceLeaf()},
  };
  if (depth > 0) {
    const rc::Gen<Plan> child = *below;
    const rc::Gen<Plan> key = hashableAt(c, depth - 1);
    const int n = c.max_items;
    alts.emplace_back(6 * containerWeight, containerOf(Kind::List, itemsOf(child, n)));
    alts.emplace_back(5 * containerWeight, containerOf(Kind::Tuple, itemsOf(child, n)));
    alts.emplace_back(6 * containerWeight, containerOf(Kind::Dict, pairsOf(key, child, n)));
    alts.emplace_back(2 * containerWeight, containerOf(Kind::Set, itemsOf(key, n)));
    alts.emplace_back(2 * containerWeight, containerOf(Kind::FrozenSet, itemsOf(key, n)));
    if (c.allow_objects) alts.emplace_back(4 * containerWeight, objectGen(c, child, key));
    if (c.allow_fixtures) alts.emplace_back(4 * containerWeight, fixtureGen(c, child));
    if (c.allow_large && root) alts.emplace_back(12, longContainerGen());
    if (c.allow_large && root) alts.emplace_back(10, frameFillGen());
  }
  if (!root) {
    if (c.allow_sharing) alts.emplace_back(3, refGen(PlanTag::Share));
    if (c.allow_cycles) alts.emplace_back(3, refGen(PlanTag::Cycle));
  }
  return weightedChoice<Plan>(std::move(alts));
}

}  // namespace

rc::Gen<Plan> plan(const GenConfig& config) {
  // One generator per level, each built on the one below: linear in depth.
  rc::Gen<Plan> level = planAt(config, 0, false, nullptr);
  for (int d = 1; d < config.max_depth; ++d) level = planAt(config, d, false, &level);
  return planAt(config, config.max_depth, true, config.max_depth > 0 ? &level : nullptr);
}

rc::Gen<Plan> hashablePlan(const GenConfig& config) {
  return hashableAt(config, config.max_depth);
}

}  // namespace serialcheck::gen
