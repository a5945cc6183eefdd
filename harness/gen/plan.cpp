#include "harness/gen/plan.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "harness/gen/choice.h"
#include "harness/gen/fixtures.h"
#include "harness/gen/module_gen.h"
#include "harness/gen/names.h"
#include "harness/gen/ndarray_gen.h"
#include "harness/gen/numbers.h"
#include "harness/gen/tensor_gen.h"
#include "harness/gen/text.h"
#include "reference/types/ndarray.h"
#include "reference/value/numeric.h"

namespace serialcheck::gen {

namespace {

using PlanList = std::vector<Plan>;

constexpr std::size_t kFrameSizeTarget = 64 * 1024;  // CPython's _FRAME_SIZE_TARGET

// Weights of the root's boundary values, beside about 170 for the others
// (python_safe_config; about 200 with every kind): each is tuned so that
// every switch is drawn at the rate gen_boundaries_test.cpp asserts.
constexpr int kBoundariesWeight = 60;
constexpr int kLongContainersWeight = 14;
constexpr int kFrameFillWeight = 10;
constexpr int kLargePayloadsWeight = 35;

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

Plan strOf(std::string text) {
  Plan p = valuePlan(Kind::Str);
  p.text = std::move(text);
  return p;
}

// Whether values of protocol 5 alone are worth drawing (the protocol is 5
// or unknown), and PickleBuffers allowed.
bool buffersAt5(const GenConfig& c) {
  return c.allow_buffers && (c.target_protocol < 0 || c.target_protocol >= 5);
}

// A readonly and a writable PickleBuffer of a few bytes, appended to the
// root list of a boundary value: each kind of buffer in band or out of band
// (as the case says) wherever such values are drawn.
void addBuffers(Plan& root) {
  for (bool readonly : {true, false}) {
    Plan p = valuePlan(Kind::PickleBuffer);
    p.text = readonly ? "readonly" : "writable";
    p.flag = readonly;
    root.items.push_back(std::move(p));
  }
}

// Lists, dicts and sets of 1000 and of 1001 items, then one latin-1
// character twice: APPENDS, SETITEMS and ADDITEMS split their items in
// batches of 1000, and a last batch of one item is APPEND or SETITEM (or,
// for some Python versions, an empty batch follows a full one). The items
// are cheap (None, ints; distinct ints as keys), but the first container
// begins with 300 distinct strs, each memoized, so the memo outgrows
// one-byte indexes (LONG_BINPUT below protocol 4), and the character's
// second reference is a LONG_BINGET at every protocol, trees included,
// since pickle shares such a str by value.
rc::Gen<Plan> longContainersGen(const GenConfig& c) {
  const bool buffers = buffersAt5(c);
  // Which kind comes first, with the strs.
  return rc::gen::map(rc::gen::inRange(0, 3), [buffers](int first) {
    Plan root = valuePlan(Kind::List);
    const Kind kinds[] = {Kind::List, Kind::Dict, Kind::Set};
    int strs = 300;
    for (int k = 0; k < 3; ++k) {
      const Kind kind = kinds[(first + k) % 3];
      for (int count : {1000, 1001}) {
        Plan p = valuePlan(kind);
        for (int i = 0; i < count; ++i) {
          Plan item;  // None
          if (strs > 0) {
            --strs;
            item = strOf("m" + std::to_string(strs));
          } else if (kind != Kind::List) {
            item = valuePlan(Kind::Int);
            item.text = int64_to_twos_le(i);
          }
          p.items.push_back(std::move(item));
          if (kind == Kind::Dict) p.items.push_back(Plan{});
        }
        if (kind != Kind::Set) {
          // One more reference to an earlier node, where sharing is
          // allowed (else None): a GET with a long key.
          Plan again;
          again.tag = PlanTag::Share;
          again.pick = 280;
          p.items.back() = std::move(again);
        }
        root.items.push_back(std::move(p));
      }
    }
    root.items.push_back(strOf("\xc3\xa9"));
    root.items.push_back(strOf("\xc3\xa9"));
    if (buffers) addBuffers(root);
    return root;
  });
}

// Items that fill a pickle frame begun just before them to exactly its
// 64 KiB target at some opcode boundary: a str payload a little under the
// target, then small items, one boundary after each, so the frame's size
// steps across 65536: half the time in steps of 1 (None), landing on it
// whatever the payload's size, else in steps of 2 and 3 (ints of BININT1
// and BININT2), landing on it most often. An off-by-one in the rule that
// closes a frame changes the bytes at protocols 4 and 5.
rc::Gen<PlanList> frameFillItems() {
  return rc::gen::map(
      rc::gen::tuple(rc::gen::resize(100, rc::gen::inRange(65440, 65521)),
                     rc::gen::arbitrary<bool>(),
                     rc::gen::container<std::vector<bool>>(40, rc::gen::arbitrary<bool>())),
      [](const std::tuple<int, bool, std::vector<bool>>& d) {
        const auto& [size, ones, wide] = d;
        PlanList items;
        // An ASCII str: its record in a case's JSON is its own size.
        items.push_back(strOf(std::string(static_cast<std::size_t>(size), 'f')));
        if (ones) {
          items.resize(items.size() + 100);  // None, a one-byte opcode
          return items;
        }
        for (bool three : wide) {
          Plan i = valuePlan(Kind::Int);
          i.text = int64_to_twos_le(three ? 300 : 7);
          items.push_back(std::move(i));
        }
        return items;
      });
}

rc::Gen<Plan> frameFillGen() {
  return containerOf(Kind::List, frameFillItems());
}

// Payloads on both sides of the size from which CPython writes one outside
// any frame (64 KiB, protocol 4+), of each kind that has it at the
// protocol: str (in UTF-8 bytes) and bytes, and bytearray at protocol 5.
// Cheap repeated patterns; what matters is their length. The last of them
// is written outside frames, so the frame fill after them (frameFillItems)
// begins a frame.
rc::Gen<Plan> largePayloadsGen(const GenConfig& c) {
  const bool bytearrays = c.target_protocol < 0 || c.target_protocol >= 5;
  const bool buffers = buffersAt5(c);
  return rc::gen::map(
      rc::gen::tuple(pyStrOfUtf8Length(kFrameSizeTarget - 1), pyStrOfUtf8Length(kFrameSizeTarget),
                     frameFillItems()),
      [bytearrays, buffers](std::tuple<std::string, std::string, PlanList> d) {
        auto& [below, at, fill] = d;
        Plan root = valuePlan(Kind::List);
        for (std::size_t size : {kFrameSizeTarget - 1, kFrameSizeTarget}) {
          root.items.push_back(strOf(size == kFrameSizeTarget ? std::move(at) : std::move(below)));
          for (Kind kind : {Kind::Bytes, Kind::ByteArray}) {
            if (kind == Kind::ByteArray && !bytearrays) continue;
            Plan p = valuePlan(kind);
            p.text.assign(size, kind == Kind::Bytes ? 'b' : 'a');
            for (std::size_t i = 0; i < size; i += 251) p.text[i] = static_cast<char>(i / 251);
            root.items.push_back(std::move(p));
          }
        }
        for (Plan& p : fill) root.items.push_back(std::move(p));
        if (buffers) addBuffers(root);
        return root;
      });
}

// A 2-by-3 array of `dtype` laid out in C order, Fortran order, or as
// every other column of a 2-by-6 C-ordered buffer (neither contiguous):
// the three forms an array takes at protocol 5 (a buffer with order 'C' or
// 'F', or a copy).
Plan layoutArray(const std::string& dtype, char layout, std::string_view bytes) {
  const auto dt = types::parse_numeric_dtype(dtype);
  const std::int64_t is = dt ? dt->itemsize : 1;
  auto spec = std::make_shared<NDArraySpec>();
  spec->dtype = dtype;
  spec->shape = {2, 3};
  std::int64_t elements = 6;
  if (layout == 'C') {
    spec->strides = {3 * is, is};
  } else if (layout == 'F') {
    spec->strides = {is, 2 * is};
  } else {
    spec->strides = {6 * is, 2 * is};
    elements = 12;
  }
  spec->payload.assign(bytes.substr(0, static_cast<std::size_t>(elements * is)));
  if (dtype == "|b1") {
    for (char& ch : spec->payload) ch = static_cast<char>(ch & 1);
  }
  Plan p = valuePlan(Kind::NDArray);
  p.ndarray = std::move(spec);
  return p;
}

struct BoundaryDraw {
  std::string str255, str256, bytes255, bytes256;
  std::string dtype;   // the arrays'
  std::string array_bytes;
  PlanList others;
};

// The small switches of the format, one value each, beside a few generic
// values: strs, bytes and bytearrays of 255 and 256 bytes (SHORT_BINUNICODE,
// SHORT_BINBYTES), b'' and an empty bytearray (their reduce below protocols
// 3 and 5), tuples of 0 to 4 items (EMPTY_TUPLE, TUPLE1-3, MARK TUPLE), ints
// at the end of BININT1, BININT2, BININT, int64 and LONG1; where the config
// has them and the protocol is 5, a readonly and a writable PickleBuffer
// (in band or out, as the case says); with arrays, one array of each
// layout; and a memo past index 255.
rc::Gen<Plan> boundariesGen(const GenConfig& c, const rc::Gen<Plan>& child, int max_items) {
  const bool buffers = buffersAt5(c);
  const bool arrays = c.allow_ndarrays;
  // Any bytes, or (half the time) ASCII ones: a Python 2 reader with the
  // ascii encoding refuses the others, and the length is what matters here.
  auto bytesOf = [](std::size_t n) {
    auto ascii = rc::gen::cast<char>(rc::gen::inRange(32, 127));
    return weightedChoice<std::string>(
        {{1, rc::gen::container<std::string>(n, rc::gen::arbitrary<char>())},
         {1, rc::gen::container<std::string>(n, ascii)}});
  };
  auto draw = rc::gen::build<BoundaryDraw>(
      rc::gen::set(&BoundaryDraw::str255, pyStrOfUtf8Length(255)),
      rc::gen::set(&BoundaryDraw::str256, pyStrOfUtf8Length(256)),
      rc::gen::set(&BoundaryDraw::bytes255, bytesOf(255)),
      rc::gen::set(&BoundaryDraw::bytes256, bytesOf(256)),
      rc::gen::set(&BoundaryDraw::dtype, rc::gen::elementOf(types::numeric_dtypes())),
      rc::gen::set(&BoundaryDraw::array_bytes, bytesOf(arrays ? 12 * 16 : 0)),
      rc::gen::set(&BoundaryDraw::others, itemsOf(child, max_items)));
  return rc::gen::map(draw, [buffers, arrays](BoundaryDraw d) {
    Plan root = valuePlan(Kind::List);
    root.items.push_back(strOf(std::move(d.str255)));
    root.items.push_back(strOf(std::move(d.str256)));
    for (Kind kind : {Kind::Bytes, Kind::ByteArray}) {
      const std::string* payloads[] = {&d.bytes255, &d.bytes256, nullptr};
      for (const std::string* payload : payloads) {
        Plan p = valuePlan(kind);
        if (payload != nullptr) p.text = *payload;  // else empty
        root.items.push_back(std::move(p));
      }
    }
    for (std::int64_t v : {std::int64_t{255}, std::int64_t{256}, std::int64_t{65535},
                           std::int64_t{65536}, std::int64_t{-1}, std::int64_t{2147483647},
                           std::int64_t{2147483648}, std::int64_t{-2147483648},
                           std::int64_t{-2147483649}, std::numeric_limits<std::int64_t>::max(),
                           std::numeric_limits<std::int64_t>::min()}) {
      Plan p = valuePlan(Kind::Int);
      p.text = int64_to_twos_le(v);
      root.items.push_back(std::move(p));
    }
    // 2**63, and the largest LONG1 (255 bytes) and smallest LONG4 (256).
    for (std::string twos : {std::string("\x00\x00\x00\x00\x00\x00\x00\x80\x00", 9),
                             std::string(254, '\xff') + '\x7f',
                             std::string(255, '\x00') + '\x01'}) {
      Plan p = valuePlan(Kind::Int);
      p.text = std::move(twos);
      root.items.push_back(std::move(p));
    }
    for (std::size_t n = 0; n <= 4; ++n) {
      Plan t = valuePlan(Kind::Tuple);
      for (std::size_t i = 0; i < n; ++i) {
        Plan item = valuePlan(Kind::Int);
        item.text = int64_to_twos_le(static_cast<std::int64_t>(i));
        t.items.push_back(std::move(item));
      }
      root.items.push_back(std::move(t));
    }
    if (buffers) addBuffers(root);
    if (arrays) {
      for (char layout : {'C', 'F', 'S'}) {
        root.items.push_back(layoutArray(d.dtype, layout, d.array_bytes));
      }
    }
    // 260 distinct short strs, each memoized: the memo passes index 255
    // (LONG_BINPUT below protocol 4), and a latin-1 character met twice
    // after them is a LONG_BINGET.
    Plan strs = valuePlan(Kind::List);
    for (int i = 0; i < 260; ++i) strs.items.push_back(strOf("b" + std::to_string(i)));
    root.items.push_back(std::move(strs));
    root.items.push_back(strOf("\xc3\xb1"));
    root.items.push_back(strOf("\xc3\xb1"));
    for (Plan& o : d.others) root.items.push_back(std::move(o));
    return root;
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
  const bool frames = c.target_protocol < 0 || c.target_protocol >= 4;
  std::vector<std::pair<int, rc::Gen<Plan>>> alts = {
      {2, noneGen()},
      {2, boolGen()},
      {6, intGen()},
      {4, floatGen(true)},
      {5, textGen(Kind::Str, pyStr())},
      {2, textGen(Kind::Bytes, blob(c.allow_large && frames))},
      {1, textGen(Kind::ByteArray, blob(c.allow_large && frames))},
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
    if (c.draw_boundaries && root) alts.emplace_back(kBoundariesWeight, boundariesGen(c, child, n));
    if (c.allow_large && root) alts.emplace_back(kLongContainersWeight, longContainersGen(c));
    if (c.allow_large && root && frames) alts.emplace_back(kFrameFillWeight, frameFillGen());
    if (c.allow_large && root && frames) {
      alts.emplace_back(kLargePayloadsWeight, largePayloadsGen(c));
    }
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
