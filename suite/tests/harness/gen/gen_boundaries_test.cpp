// The boundary census: every place where the pickle format switches form
// with a length or a width (SHORT_BINUNICODE to BINUNICODE at 256 UTF-8
// bytes, TUPLE3 to MARK TUPLE at 4 items, BININT1 to BININT2 at 256, LONG1
// to LONG4 at 256 bytes, BINPUT to LONG_BINPUT at memo index 256, a frame
// closed at exactly 64 KiB, a batch of APPENDS at 1000 items...), reached by
// the kind it belongs to, at a protocol where the switch exists, in the
// cases a gate cell really draws: the gate's own case generator
// (case_generator) with the plans of the cells of `serialcheck run
// --subjects reference,cpython`, 100 cases at RapidCheck's sizes, at three
// seeds. Each boundary must be drawn in at least kMinCasesPerCell of every
// 100 cases, in every plan that can reach it, at every seed. A str-only
// defect is then met by a str within every cell, not only by a bytes.
//
// Out of reach by design, and so not in the census: the 4 GiB switches to
// BINUNICODE8, BINBYTES8 and LONG4's 2**31-byte limit (no gate case can
// allocate them), and switches of objects (an object's listitems and
// dictitems batches) that only the default preset draws, through the same
// batching code as a list's and a dict's.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "harness/gen/config.h"
#include "harness/gen/domain_values.h"
#include "harness/gen/value.h"
#include "harness/props/gate_props.h"
#include "harness/props/value_tools.h"
#include "reference/pickle/disasm.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/ndarray.h"
#include "reference/value/numeric.h"

namespace serialcheck {
namespace {

// The rate every boundary must meet: drawn in at least this many of every
// 100 cases (one gate cell), in each census plan that can reach it, at each
// census seed.
constexpr int kMinCasesPerCell = 1;
constexpr int kCellCases = 100;
constexpr int kMaxSize = 100;  // serialcheck run's default --max-size
// The gate's seed in CI, ctest's RapidCheck seed, and one more.
constexpr std::uint64_t kSeeds[] = {20261129, 20261205, 7};

constexpr std::size_t kFrameTarget = 64 * 1024;  // CPython's _FRAME_SIZE_TARGET

using Hits = std::set<std::string>;

// Where a plan's cases may reach a boundary: which plans must, in the census.
enum Reach : unsigned {
  kBuiltin = 1,     // every builtin plan (both presets, trees and graphs)
  kDefaultOnly = 2, // builtin plans of default_config() only (domain leaves, objects)
  kArrays = 4,      // the array domains of zerocopy.oob and zerocopy.nested
};

struct Boundary {
  const char* name;
  unsigned reach;
};

// Every boundary of the census, by kind. The protocol in the name is where
// the switch exists; a case at another protocol does not count.
const Boundary kBoundaries[] = {
    // str: SHORT_BINUNICODE (protocol 4+) holds at most 255 UTF-8 bytes;
    // from 64 KiB a payload is written outside frames (protocol 4+).
    {"str: 255 UTF-8 bytes (last SHORT_BINUNICODE), protocol 4+", kBuiltin},
    {"str: 256 UTF-8 bytes (first BINUNICODE), protocol 4+", kBuiltin},
    {"str: 65,535 UTF-8 bytes (last one framed), protocol 4+", kBuiltin},
    {"str: 65,536 UTF-8 bytes (written outside frames), protocol 4+", kBuiltin},
    // bytes: SHORT_BINBYTES (protocol 3+); below 3, b'' reduces to bytes()
    // and any other bytes to _codecs.encode(str, 'latin1').
    {"bytes: 255 bytes (last SHORT_BINBYTES), protocol 3+", kBuiltin},
    {"bytes: 256 bytes (first BINBYTES), protocol 3+", kBuiltin},
    {"bytes: 65,535 bytes (last one framed), protocol 4+", kBuiltin},
    {"bytes: 65,536 bytes (written outside frames), protocol 4+", kBuiltin},
    {"bytes: empty (bytes() reduce), protocol 0-2", kBuiltin},
    // bytearray: bytearray(bytes) at protocols 3 and 4 (SHORT_BINBYTES
    // inside), BYTEARRAY8 at 5; bytearray() when empty, below 5.
    {"bytearray: 255 bytes (last SHORT_BINBYTES inside), protocol 3-4", kBuiltin},
    {"bytearray: 256 bytes (first BINBYTES inside), protocol 3-4", kBuiltin},
    {"bytearray: 65,535 bytes (last BYTEARRAY8 framed), protocol 5", kBuiltin},
    {"bytearray: 65,536 bytes (BYTEARRAY8 outside frames), protocol 5", kBuiltin},
    {"bytearray: empty (bytearray() reduce), protocol 0-4", kBuiltin},
    // tuple: EMPTY_TUPLE, TUPLE1-3, then MARK ... TUPLE (protocol 2+).
    {"tuple: 0 items (EMPTY_TUPLE), protocol 2+", kBuiltin},
    {"tuple: 1 item (TUPLE1), protocol 2+", kBuiltin},
    {"tuple: 2 items (TUPLE2), protocol 2+", kBuiltin},
    {"tuple: 3 items (TUPLE3), protocol 2+", kBuiltin},
    {"tuple: 4 items (first MARK TUPLE), protocol 2+", kBuiltin},
    // int: BININT1 (0..255), BININT2 (..65535), BININT (signed 32 bits),
    // then LONG1 (protocol 2+) or LONG text (0-1); protocol 0 writes INT
    // within 32 bits. LONG1 holds 255 bytes, then LONG4.
    {"int: 255 (last BININT1), protocol 1+", kBuiltin},
    {"int: 256 (first BININT2), protocol 1+", kBuiltin},
    {"int: 65,535 (last BININT2), protocol 1+", kBuiltin},
    {"int: 65,536 (first BININT past BININT2), protocol 1+", kBuiltin},
    {"int: -1 (negative: BININT), protocol 1+", kBuiltin},
    {"int: 2**31-1 (last BININT / INT)", kBuiltin},
    {"int: 2**31 (first LONG1 / LONG)", kBuiltin},
    {"int: -2**31 (first BININT / INT)", kBuiltin},
    {"int: -2**31-1 (last LONG1 / LONG)", kBuiltin},
    {"int: 2**63-1 or -2**63 (8-byte LONG1 from int64), protocol 2+", kBuiltin},
    {"int: 2**63 or -2**63-1 (9-byte LONG1 beyond int64), protocol 2+", kBuiltin},
    {"int: 255 bytes (last LONG1), protocol 2+", kBuiltin},
    {"int: 256 bytes (first LONG4), protocol 2+", kBuiltin},
    // The memo: BINPUT and BINGET take indexes 0..255, LONG_BINPUT and
    // LONG_BINGET the others (protocol 4+ writes MEMOIZE, but still GETs).
    {"memo: LONG_BINPUT (index 256 or more), protocol 1-3", kBuiltin},
    {"memo: LONG_BINGET (index 256 or more), protocol 1+", kBuiltin},
    // Frames (protocol 4+): a frame closes at the first opcode boundary at
    // or past 64 KiB.
    {"frame: a FRAME of exactly 65,536 bytes, protocol 4+", kBuiltin},
    // Batches of 1000 (APPENDS, SETITEMS, ADDITEMS; a last batch of one
    // item is APPEND or SETITEM): a set reduces to set([...]) below 4.
    {"list: 1000 items (one full batch), protocol 1+", kBuiltin},
    {"list: 1001 items (a batch and one APPEND), protocol 1+", kBuiltin},
    {"dict: 1000 items (one full batch), protocol 1+", kBuiltin},
    {"dict: 1001 items (a batch and one SETITEM), protocol 1+", kBuiltin},
    {"set: 1000 items (one full batch), protocol 1+", kBuiltin},
    {"set: 1001 items (two batches), protocol 1+", kBuiltin},
    // Pickle buffers (protocol 5): in band a readonly one is bytes, a
    // writable one BYTEARRAY8; out of band NEXT_BUFFER, then READONLY_BUFFER
    // for a readonly one.
    {"PickleBuffer: readonly, in band, protocol 5", kBuiltin},
    {"PickleBuffer: writable, in band, protocol 5", kBuiltin},
    {"PickleBuffer: readonly, out of band, protocol 5", kBuiltin},
    {"PickleBuffer: writable, out of band, protocol 5", kBuiltin},
    // numpy arrays: at protocol 5 a C- or F-contiguous array is a
    // PickleBuffer with order 'C' or 'F', any other a copy (as below 5).
    {"ndarray: C-contiguous, protocol 5", kDefaultOnly | kArrays},
    {"ndarray: F-contiguous only (order 'F'), protocol 5", kDefaultOnly},
    {"ndarray: neither C- nor F-contiguous (a copy), protocol 5", kDefaultOnly},
    {"ndarray: below protocol 5 (reduce with bytes)", kDefaultOnly},
    // The zero-copy threshold of zerocopy.oob and zerocopy.nested: an array
    // of exactly kZeroCopyThreshold bytes must travel as its own frame.
    {"ndarray: exactly the zero-copy threshold (1,024 bytes), protocol 5", kArrays},
    // The dtypes of the zero-copy domains' arrays (each travels with its
    // dtype in the header); the default preset's array leaves draw all 25
    // numeric dtypes, which the census does not hold to a rate.
    {"ndarray: dtype <f8", kArrays},
    {"ndarray: dtype <f4", kArrays},
    {"ndarray: dtype <i4", kArrays},
    {"ndarray: dtype |u1", kArrays},
    {"ndarray: dtype >i2", kArrays},
    {"ndarray: dtype <c16", kArrays},
    {"ndarray: dtype |b1", kArrays},
};

// The boundaries a case reaches: its value's nodes at its protocol, and the
// opcodes the reference writes for it.
Hits boundaries_of(const TestCase& c) {
  Hits out;
  const int p = c.protocol;
  auto hit = [&out](const char* name) { out.insert(name); };
  Hits dtypes;
  for (const Node* n : reachable(c.value)) {
    switch (n->kind) {
      case Kind::Str: {
        const std::size_t size = n->payload().size();
        if (p >= 4 && size == 255) hit("str: 255 UTF-8 bytes (last SHORT_BINUNICODE), protocol 4+");
        if (p >= 4 && size == 256) hit("str: 256 UTF-8 bytes (first BINUNICODE), protocol 4+");
        if (p >= 4 && size == kFrameTarget - 1) {
          hit("str: 65,535 UTF-8 bytes (last one framed), protocol 4+");
        }
        if (p >= 4 && size == kFrameTarget) {
          hit("str: 65,536 UTF-8 bytes (written outside frames), protocol 4+");
        }
        break;
      }
      case Kind::Bytes: {
        const std::size_t size = n->payload().size();
        if (p >= 3 && size == 255) hit("bytes: 255 bytes (last SHORT_BINBYTES), protocol 3+");
        if (p >= 3 && size == 256) hit("bytes: 256 bytes (first BINBYTES), protocol 3+");
        if (p >= 4 && size == kFrameTarget - 1) {
          hit("bytes: 65,535 bytes (last one framed), protocol 4+");
        }
        if (p >= 4 && size == kFrameTarget) {
          hit("bytes: 65,536 bytes (written outside frames), protocol 4+");
        }
        if (p <= 2 && size == 0) hit("bytes: empty (bytes() reduce), protocol 0-2");
        break;
      }
      case Kind::ByteArray: {
        const std::size_t size = n->payload().size();
        if ((p == 3 || p == 4) && size == 255) {
          hit("bytearray: 255 bytes (last SHORT_BINBYTES inside), protocol 3-4");
        }
        if ((p == 3 || p == 4) && size == 256) {
          hit("bytearray: 256 bytes (first BINBYTES inside), protocol 3-4");
        }
        if (p == 5 && size == kFrameTarget - 1) {
          hit("bytearray: 65,535 bytes (last BYTEARRAY8 framed), protocol 5");
        }
        if (p == 5 && size == kFrameTarget) {
          hit("bytearray: 65,536 bytes (BYTEARRAY8 outside frames), protocol 5");
        }
        if (p <= 4 && size == 0) hit("bytearray: empty (bytearray() reduce), protocol 0-4");
        break;
      }
      case Kind::Tuple: {
        if (p < 2) break;
        switch (n->items.size()) {
          case 0: hit("tuple: 0 items (EMPTY_TUPLE), protocol 2+"); break;
          case 1: hit("tuple: 1 item (TUPLE1), protocol 2+"); break;
          case 2: hit("tuple: 2 items (TUPLE2), protocol 2+"); break;
          case 3: hit("tuple: 3 items (TUPLE3), protocol 2+"); break;
          case 4: hit("tuple: 4 items (first MARK TUPLE), protocol 2+"); break;
          default: break;
        }
        break;
      }
      case Kind::Int: {
        const std::string twos =
            n->big ? minimal_twos_le(n->payload()) : int64_to_twos_le(n->small());
        std::int64_t v = 0;
        if (twos_le_to_int64(twos, v)) {
          if (p >= 1) {
            if (v == 255) hit("int: 255 (last BININT1), protocol 1+");
            if (v == 256) hit("int: 256 (first BININT2), protocol 1+");
            if (v == 65535) hit("int: 65,535 (last BININT2), protocol 1+");
            if (v == 65536) hit("int: 65,536 (first BININT past BININT2), protocol 1+");
            if (v == -1) hit("int: -1 (negative: BININT), protocol 1+");
          }
          if (v == 2147483647) hit("int: 2**31-1 (last BININT / INT)");
          if (v == 2147483648) hit("int: 2**31 (first LONG1 / LONG)");
          if (v == -2147483648LL) hit("int: -2**31 (first BININT / INT)");
          if (v == -2147483649LL) hit("int: -2**31-1 (last LONG1 / LONG)");
          if (p >= 2 && (v == INT64_MAX || v == INT64_MIN)) {
            hit("int: 2**63-1 or -2**63 (8-byte LONG1 from int64), protocol 2+");
          }
        } else if (p >= 2) {
          if (twos.size() == 9) {
            hit("int: 2**63 or -2**63-1 (9-byte LONG1 beyond int64), protocol 2+");
          }
          if (twos.size() == 255) hit("int: 255 bytes (last LONG1), protocol 2+");
          if (twos.size() == 256) hit("int: 256 bytes (first LONG4), protocol 2+");
        }
        break;
      }
      case Kind::List:
      case Kind::Set:
      case Kind::Dict: {
        if (p < 1) break;
        const std::size_t items = n->kind == Kind::Dict ? n->items.size() / 2 : n->items.size();
        if (items == 1000) {
          hit(n->kind == Kind::List  ? "list: 1000 items (one full batch), protocol 1+"
              : n->kind == Kind::Set ? "set: 1000 items (one full batch), protocol 1+"
                                     : "dict: 1000 items (one full batch), protocol 1+");
        }
        if (items == 1001) {
          hit(n->kind == Kind::List  ? "list: 1001 items (a batch and one APPEND), protocol 1+"
              : n->kind == Kind::Set ? "set: 1001 items (two batches), protocol 1+"
                                     : "dict: 1001 items (a batch and one SETITEM), protocol 1+");
        }
        break;
      }
      case Kind::PickleBuffer: {
        if (p < 5) break;
        const bool readonly = n->flag;
        if (c.out_of_band) {
          hit(readonly ? "PickleBuffer: readonly, out of band, protocol 5"
                       : "PickleBuffer: writable, out of band, protocol 5");
        } else {
          hit(readonly ? "PickleBuffer: readonly, in band, protocol 5"
                       : "PickleBuffer: writable, in band, protocol 5");
        }
        break;
      }
      case Kind::NDArray: {
        const ArrayParts* a = n->array();
        if (a == nullptr) break;
        const auto dt = types::parse_numeric_dtype(a->dtype);
        if (!dt) break;
        dtypes.insert("ndarray: dtype " + a->dtype);
        if (p < 5) {
          hit("ndarray: below protocol 5 (reduce with bytes)");
          break;
        }
        const bool cc = types::ndarray_c_contiguous(*a, dt->itemsize);
        const bool fc = types::ndarray_f_contiguous(*a, dt->itemsize);
        if (cc) hit("ndarray: C-contiguous, protocol 5");
        if (fc && !cc) hit("ndarray: F-contiguous only (order 'F'), protocol 5");
        if (!cc && !fc) hit("ndarray: neither C- nor F-contiguous (a copy), protocol 5");
        std::int64_t elements = 1;
        for (std::int64_t d : a->shape) elements *= d;
        if (cc && elements * dt->itemsize == static_cast<std::int64_t>(gen::kZeroCopyThreshold)) {
          hit("ndarray: exactly the zero-copy threshold (1,024 bytes), protocol 5");
        }
        break;
      }
      default: break;
    }
  }
  out.insert(dtypes.begin(), dtypes.end());
  // The opcodes: memo indexes and frames, which no single node decides.
  pickle::EncodeOptions options;
  options.protocol = p;
  if (c.out_of_band) options.buffer_callback = [](const Node&) { return false; };
  std::string bytes;
  try {
    bytes = pickle::encode(c.value, options).bytes;
  } catch (const pickle::PickleError&) {
    return out;  // not picklable at this protocol: no opcode boundary
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const pickle::Disassembly d = pickle::disassemble(std::span(data, bytes.size()));
  for (const pickle::Instruction& ins : d.instructions) {
    if (ins.name == "LONG_BINPUT" && p <= 3) {
      hit("memo: LONG_BINPUT (index 256 or more), protocol 1-3");
    }
    if (ins.name == "LONG_BINGET") hit("memo: LONG_BINGET (index 256 or more), protocol 1+");
    if (ins.name == "FRAME" && ins.arg == std::to_string(kFrameTarget)) {
      hit("frame: a FRAME of exactly 65,536 bytes, protocol 4+");
    }
  }
  return out;
}

// The cases one gate cell draws: RapidCheck's size for the i-th of n cases
// of at most kMaxSize (its sizes run evenly from 0 to the largest).
int size_of_case(int i) {
  return i * kMaxSize / (kCellCases - 1);
}

// Per boundary, in how many of one cell's cases it is drawn.
std::map<std::string, int> census(const rc::Gen<TestCase>& cases, std::uint64_t seed) {
  rc::Random random(seed);
  std::map<std::string, int> count;
  for (int i = 0; i < kCellCases; ++i) {
    TestCase c = cases(random.split(), size_of_case(i)).value();
    for (const std::string& b : boundaries_of(c)) ++count[b];
  }
  return count;
}

struct CensusPlan {
  std::string name;
  unsigned reach;  // which boundaries it must reach (Reach bits)
  CasePlan plan;
};

// The builtin plans of the gate's cells on the reference (default preset)
// and on cpython and across subjects (python_safe), trees and graphs; the
// array domains of the zero-copy properties.
std::vector<CensusPlan> gate_plans() {
  std::vector<CensusPlan> out;
  for (bool python_safe : {false, true}) {
    for (bool graphs : {false, true}) {
      CasePlan p;
      p.python_safe = python_safe;
      p.graph_shaped = graphs;
      p.min_protocol = 0;
      p.max_protocol = 5;
      p.out_of_band = true;
      out.push_back({std::string(python_safe ? "python_safe" : "default") +
                         (graphs ? ", graphs" : ", trees"),
                     python_safe ? unsigned{kBuiltin} : unsigned{kBuiltin | kDefaultOnly}, p});
    }
  }
  for (CaseDomain d : {CaseDomain::BigArray, CaseDomain::NestedArrays}) {
    CasePlan p;
    p.domain = d;
    p.min_protocol = p.max_protocol = 5;
    p.out_of_band = true;
    out.push_back({d == CaseDomain::BigArray ? "big arrays" : "nested arrays", kArrays, p});
  }
  return out;
}

// Every shortfall: "<plan>, seed <s>: <boundary>: <n> of 100".
std::vector<std::string> shortfalls(const std::string& plan_name, unsigned reach,
                                    const rc::Gen<TestCase>& cases, int min_cases,
                                    std::map<std::string, std::vector<int>>* table = nullptr) {
  std::vector<std::string> out;
  for (std::uint64_t seed : kSeeds) {
    std::map<std::string, int> count = census(cases, seed);
    for (const Boundary& b : kBoundaries) {
      if ((b.reach & reach) == 0) continue;
      const int n = count[b.name];
      if (table != nullptr) (*table)[b.name].push_back(n);
      if (n < min_cases) {
        out.push_back(plan_name + ", seed " + std::to_string(seed) + ": " + b.name + ": " +
                      std::to_string(n) + " of " + std::to_string(kCellCases));
      }
    }
  }
  return out;
}

TEST(GenBoundaries, EveryBoundaryIsDrawnAtItsRateInEveryGateCell) {
  // SERIALCHECK_CENSUS_TABLE=1 prints the counts of every plan and seed.
  const bool print = std::getenv("SERIALCHECK_CENSUS_TABLE") != nullptr;
  for (const CensusPlan& p : gate_plans()) {
    SCOPED_TRACE(p.name);
    std::map<std::string, std::vector<int>> table;
    const std::vector<std::string> missing =
        shortfalls(p.name, p.reach, case_generator(p.plan), kMinCasesPerCell, &table);
    for (const std::string& m : missing) ADD_FAILURE() << m;
    if (print) {
      std::cout << "== " << p.name << " (cases of 100 at seeds";
      for (std::uint64_t s : kSeeds) std::cout << ' ' << s;
      std::cout << ")\n";
      for (const auto& [name, counts] : table) {
        std::cout << "  ";
        for (int n : counts) std::cout << n << ' ';
        std::cout << " " << name << '\n';
      }
    }
  }
}

// The census's own negative control: a case generator that never draws a
// str of 255 or 256 UTF-8 bytes (they are cut to 254) while bytes keep
// theirs must be reported short of exactly those str boundaries; and the
// generator with its boundary values switched off (draw_boundaries and
// allow_large off) short of the batches, frames, the memo past 255 and the
// bytearray lengths.
TEST(GenBoundaries, CensusReportsABoundaryAGeneratorMisses) {
  CasePlan plan;
  plan.python_safe = true;
  plan.graph_shaped = true;
  plan.out_of_band = true;
  auto no_short_limit_strs = rc::gen::map(case_generator(plan), [](TestCase c) {
    for (const Node* n : reachable(c.value)) {
      if (n->kind == Kind::Str && (n->payload().size() == 255 || n->payload().size() == 256)) {
        // Rebuilt as a str of 254 ASCII bytes, in place.
        const_cast<Node*>(n)->set_owned(std::string(254, 's'));
      }
    }
    return c;
  });
  std::vector<std::string> missing =
      shortfalls("crippled str", kBuiltin, no_short_limit_strs, kMinCasesPerCell);
  auto reported = [&missing](const std::string& what) {
    for (const std::string& m : missing) {
      if (m.find(what) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(reported("str: 255 UTF-8 bytes"));
  EXPECT_TRUE(reported("str: 256 UTF-8 bytes"));
  EXPECT_FALSE(reported("bytes: 255 bytes")) << "bytes keep their own lengths";

  // The boundary values switched off (no boundary lists, no large values):
  // what generic values alone reach at protocol 4.
  auto no_large = rc::gen::map(gen::value([] {
                                 gen::GenConfig c = gen::python_safe_config();
                                 c.allow_large = false;
                                 c.draw_boundaries = false;
                                 c.target_protocol = 4;
                                 return c;
                               }()),
                               [](gen::GeneratedValue v) {
                                 TestCase c;
                                 c.graph = v.graph;
                                 c.value = v.root;
                                 c.protocol = 4;
                                 return c;
                               });
  missing = shortfalls("without boundary values", kBuiltin, no_large, kMinCasesPerCell);
  for (const std::string& m : missing) RecordProperty("missing", m);
  EXPECT_TRUE(reported("list: 1000 items"));
  EXPECT_TRUE(reported("set: 1001 items"));
  EXPECT_TRUE(reported("frame: a FRAME of exactly 65,536 bytes"));
  EXPECT_TRUE(reported("str: 65,536 UTF-8 bytes"));
  EXPECT_TRUE(reported("memo: LONG_BINGET"));
  EXPECT_TRUE(reported("bytearray: 256 bytes"));
}

// What the boundaries cost: in the cases of a cross-subject cell (the
// python_safe preset at every protocol, as the gate draws them), values
// with a payload near a frame or a container near a batch stay under one in
// six (43 of 300 when measured). Their JSON records, which the gate's runner writes and reads for
// every case, are most of their cost (docs/conformance.md, "Boundaries").
TEST(GenBoundaries, LargeValuesStayRare) {
  CasePlan plan;
  plan.python_safe = true;
  plan.graph_shaped = true;
  plan.out_of_band = true;
  const rc::Gen<TestCase> cases = case_generator(plan);
  int large = 0;
  int total = 0;
  for (std::uint64_t seed : kSeeds) {
    rc::Random random(seed);
    for (int i = 0; i < kCellCases; ++i) {
      TestCase c = cases(random.split(), size_of_case(i)).value();
      bool is_large = false;
      for (const Node* n : reachable(c.value)) {
        is_large = is_large || n->payload().size() >= 60000 || n->items.size() >= 900;
      }
      large += is_large ? 1 : 0;
      ++total;
    }
  }
  RecordProperty("large values", large);
  EXPECT_LE(large * 6, total) << large << " of " << total
                              << " cases hold a payload of 60,000 bytes or 900 items or more";
}

}  // namespace
}  // namespace serialcheck
