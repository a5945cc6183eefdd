// numpy arrays against the embedded interpreter: the bridge in both
// directions (dtype, shape, strides, offset, the writeable flag, out-of-band
// memory) and a property against real numpy and CPython's C pickler.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "harness/gen/ndarray_gen.h"
#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/domain.h"
#include "reference/types/ndarray.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/ndarrays.h"
#include "suite/tests/support/python_test.h"

namespace serialcheck {
namespace {

// The interpreter and the bridge (harness/python/), used throughout.
using namespace python;
using test_support::all_contiguous;
using test_support::array;
using test_support::arrays_of;
using test_support::decode_with;
using test_support::encode_result;
using test_support::python_truth;
using test_support::views_of;
using test_support::why_unequal;
using types::ndarray_bytes;
using types::ndarray_c_contiguous;
using types::ndarray_f_contiguous;
using types::parse_numeric_dtype;

class NDArrayPython : public test_support::PythonTest {
 protected:
  void SetUp() override {
    PythonTest::SetUp();
    if (IsSkipped()) return;
    Gil gil;
    exec(
        "import pickle, numpy as np\n"
        "def _sc_nd_dumps(obj, protocol, oob):\n"
        "  bufs = []\n"
        "  data = pickle.dumps(obj, protocol=protocol, buffer_callback=bufs.append if oob else "
        "None)\n"
        "  return (data, [(bytes(b.raw()), b.raw().readonly) for b in bufs])\n"
        "def _sc_nd_loads(data, bufs):\n"
        "  return pickle.loads(data, buffers=[p if ro else bytearray(p) for p, ro in bufs])\n");
  }
};

TEST_F(NDArrayPython, ToPythonKeepsDtypeShapeStridesOffsetAndFlag) {
  Gil gil;
  Graph g;
  // [::-1] of a big-endian int16 vector, two bytes into its buffer, read-only.
  Node* a = array(g, ">i2", {3}, {-2}, 6, std::string("xx\x00\x01\x00\x02\x00\x03zz", 10), false);
  PyRef x = to_python(a);
  set_main("x", x.get());
  EXPECT_TRUE(python_truth("type(x) is np.ndarray and x.dtype.str == '>i2' and x.shape == (3,)"));
  EXPECT_TRUE(
      python_truth("x.strides == (-2,) and not x.flags.writeable and x.tolist() == [3, 2, 1]"));
  EXPECT_TRUE(python_truth("x.ctypes.data - np.frombuffer(x.base, np.uint8).ctypes.data == 6"));
  Node* bcast = array(g, "<f4", {2, 2}, {0, 4}, 0, std::string("\0\0\x80?\0\0\0@", 8));
  PyRef y = to_python(bcast);
  set_main("y", y.get());
  EXPECT_TRUE(python_truth("y.strides == (0, 4) and y.tolist() == [[1.0, 2.0], [1.0, 2.0]]"));
  EXPECT_TRUE(python_truth("y.flags.writeable"));
  // Distinct big-endian arrays get distinct dtype objects, native ones share.
  Node* b = array(g, ">i2", {1}, {2}, 0, std::string("\x00\x01", 2));
  Node* c = array(g, "<f8", {1}, {8}, 0, std::string(8, '\0'));
  Node* d = array(g, "<f8", {1}, {8}, 0, std::string(8, '\0'));
  PyRef z = to_python(g.list({a, b, c, d, a}));
  set_main("z", z.get());
  EXPECT_TRUE(
      python_truth("z[0] is z[4] and z[0].dtype is not z[1].dtype and z[2].dtype is z[3].dtype"));
}

// CPython writes a writable array or buffer out of band as NEXT_BUFFER
// alone and a read-only one with READONLY_BUFFER after it; its loader hands
// back a read-only object when the stream or the memory it is given says so.
// The reference agrees about the loaded objects (loaded_readonly, to_python)
// and writes CPython's bytes again whichever memory it was given.
TEST_F(NDArrayPython, OutOfBandWritabilityIsTheStreamsAndTheSuppliedMemorys) {
  Gil gil;
  exec(
      "ro = np.arange(3, dtype='<i4'); ro.flags.writeable = False\n"
      "oob_value = [np.arange(4, dtype='<f8'), ro, pickle.PickleBuffer(bytearray(b'rw')),\n"
      "             pickle.PickleBuffer(b'ro')]\n"
      "oob_data, oob_bufs = _sc_nd_dumps(oob_value, 5, True)\n"
      "def _sc_readonly(o):\n"
      "  return not o.flags.writeable if isinstance(o, np.ndarray) else memoryview(o).readonly\n");
  Graph g;
  const Node* dumped = from_python(eval("(oob_data, oob_bufs)").get(), g);
  const std::string data(dumped->items[0]->payload());
  std::vector<std::string> contents;
  std::vector<bool> stream_readonly;
  for (const Node* b : dumped->items[1]->items) {
    contents.emplace_back(b->items[0]->payload());
    stream_readonly.push_back(b->items[1]->flag);
  }
  ASSERT_EQ(stream_readonly, (std::vector<bool>{false, true, false, true}));
  for (bool supplied_readonly : {true, false}) {
    SCOPED_TRACE(supplied_readonly ? "bytes supplied" : "bytearrays supplied");
    exec(std::string("loaded = pickle.loads(oob_data, buffers=[") +
         (supplied_readonly ? "p" : "bytearray(p)") + " for p, _ in oob_bufs])\n");
    Graph cg;
    const Node* cpython = from_python(eval("[_sc_readonly(o) for o in loaded]").get(), cg);
    std::vector<pickle::BufferView> views;
    for (const std::string& c : contents) {
      views.push_back(
          {reinterpret_cast<const std::uint8_t*>(c.data()), c.size(), supplied_readonly});
    }
    Graph dg;
    Node* decoded = decode_with(data, dg, views);
    ASSERT_EQ(decoded->items.size(), 4u);
    EXPECT_EQ(decoded->items[0]->kind, Kind::NDArray);
    EXPECT_EQ(decoded->items[1]->kind, Kind::NDArray);
    PyRef made = to_python(decoded);
    set_main("made", made.get());
    Graph mg;
    const Node* ours = from_python(eval("[_sc_readonly(o) for o in made]").get(), mg);
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(loaded_readonly(*decoded->items[i]), cpython->items[i]->flag) << "item " << i;
      EXPECT_EQ(ours->items[i]->flag, cpython->items[i]->flag) << "item " << i;
    }
    // The first array is writable only when writable memory was supplied.
    EXPECT_EQ(cpython->items[0]->flag, supplied_readonly);
    pickle::EncodeResult again = encode_result(decoded, 5, true);
    EXPECT_TRUE(again.bytes == data) << "encoding the decoded value differs from CPython's";
    ASSERT_EQ(again.buffers.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(again.buffers[i]->flag, stream_readonly[i]) << "buffer " << i;
    }
  }
}

TEST_F(NDArrayPython, FromPythonDescribesExactNumericArrays) {
  Gil gil;
  exec(
      "a = np.arange(12, dtype='<i4').reshape(3, 4)\n"
      "v = a[::-2, 1::2]\n"
      "r = np.arange(3.0); r.flags.writeable = False\n");
  Graph g;
  PyRef value = eval("[v, a, v, r, np.zeros((0, 5), '>c8'), np.array(7, 'u1')]");
  Node* n = from_python(value.get(), g);
  ASSERT_EQ(n->kind, Kind::List);
  for (const Node* item : n->items) ASSERT_EQ(item->kind, Kind::NDArray);
  const Node* view = n->items[0];
  EXPECT_EQ(view, n->items[2]);  // one object, one node
  EXPECT_EQ(view->array()->dtype, "<i4");
  EXPECT_EQ(view->array()->shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(view->array()->strides, (std::vector<std::int64_t>{-32, 8}));
  // Its payload spans only the elements: rows 2 and 0, columns 1 to 3.
  EXPECT_EQ(view->payload().size(), 44u);
  EXPECT_EQ(view->array()->offset, 32);
  EXPECT_EQ(ndarray_bytes(*view), std::string("\x09\0\0\0\x0b\0\0\0\x01\0\0\0\x03\0\0\0", 16));
  EXPECT_FALSE(n->items[3]->array()->writeable);
  EXPECT_TRUE(n->items[1]->array()->writeable);
  EXPECT_EQ(n->items[4]->array()->dtype, ">c8");
  EXPECT_EQ(n->items[4]->payload().size(), 0u);
  EXPECT_EQ(n->items[5]->array()->dtype, "|u1");
  EXPECT_TRUE(n->items[5]->array()->shape.empty());
  EXPECT_EQ(n->items[5]->payload(), "\x07");
}

TEST_F(NDArrayPython, OtherArraysStayGenericReduces) {
  Gil gil;
  for (const char* expression :
       {"np.array([1, 'a'], dtype=object)", "np.zeros(2, dtype=[('a', '<i4')])",
        "np.matrix([[1, 2]])", "np.ma.array([1, 2], mask=[0, 1])", "np.zeros(2, np.longdouble)",
        "np.zeros(2, np.dtype('<f8', metadata={'m': 1}))", "np.array(['x'])",
        "np.zeros(1, 'M8[s]')", "np.float64(1.5)"}) {
    Graph g;
    PyRef value = eval(expression);
    Node* n = from_python(value.get(), g, python::BridgeOptions{4});
    EXPECT_EQ(n->kind, Kind::Object) << expression;
    EXPECT_TRUE(arrays_of(n).empty()) << expression;
  }
}

// What numpy's pickle.loads makes of `v` pickled at `protocol`: numpy's
// __setstate__ (below protocol 5, and for arrays not contiguous at 5) turns
// a big-endian array into a native one, swapping its bytes, and makes it
// writeable; _frombuffer keeps the dtype and the buffer's flag.
Node* as_numpy_loads(const Node* v, int protocol, Graph& g,
                     std::unordered_map<const Node*, Node*>& made) {
  if (auto it = made.find(v); it != made.end()) return it->second;
  Node* out = nullptr;
  switch (v->kind) {
    case Kind::NDArray: {
      const ArrayParts& a = *v->array();
      auto dt = *parse_numeric_dtype(a.dtype);
      const bool contiguous =
          ndarray_c_contiguous(a, dt.itemsize) || ndarray_f_contiguous(a, dt.itemsize);
      const bool reconstructed = protocol < 5 || !contiguous;
      std::string bytes = ndarray_bytes(*v);
      std::string dtype = a.dtype;
      if (reconstructed && dt.byteorder == '>') {
        const std::size_t part = dt.kind == 'c' ? dt.itemsize / 2 : dt.itemsize;
        for (std::size_t i = 0; i < bytes.size(); i += part) {
          std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(i),
                       bytes.begin() + static_cast<std::ptrdiff_t>(i + part));
        }
        dtype[0] = '<';
      }
      out = array(g, dtype, a.shape, types::contiguous_strides(a.shape, dt.itemsize, 'C'), 0, bytes,
                  reconstructed || a.writeable);
      break;
    }
    case Kind::Str: out = g.str(std::string(v->payload())); break;
    case Kind::List:
    case Kind::Tuple:
    case Kind::Dict: {
      out = g.make(v->kind);
      made.emplace(v, out);
      for (const Node* item : v->items)
        out->items.push_back(as_numpy_loads(item, protocol, g, made));
      return out;
    }
    default: ADD_FAILURE() << "unexpected kind " << kind_name(v->kind); return g.none();
  }
  made.emplace(v, out);
  return out;
}

// For every generated value and every protocol (and protocol 5 out of
// band): the reference's pickle is byte for byte what the C pickler writes
// for the bridged numpy objects; real numpy loads it to the arrays it should;
// the reference decodes it back to the value and writes the same bytes again.
TEST_F(NDArrayPython, MatchesNumpyAndTheCPickler) {
  Gil gil;
  const bool ok = rc::check("generated arrays against numpy and the C pickler", [] {
    const auto v = *gen::ndarrayValue();
    PyRef object = to_python(v.root);
    set_main("_sc_value", object.get());
    for (int variant = 0; variant <= 6; ++variant) {
      const bool oob = variant == 6;
      const int protocol = oob ? 5 : variant;
      RC_LOG() << "protocol " << protocol << (oob ? " out of band" : "") << "\n";
      pickle::EncodeResult ours = encode_result(v.root, protocol, oob);

      // The C pickler on the bridged objects.
      PyRef dumped = eval("_sc_nd_dumps(_sc_value, " + std::to_string(protocol) + ", " +
                          (oob ? "True" : "False") + ")");
      Graph cg;
      Node* cpy = from_python(dumped.get(), cg);
      RC_ASSERT(cpy->items[0]->payload() == std::string_view(ours.bytes));
      const Node* cbufs = cpy->items[1];
      RC_ASSERT(cbufs->items.size() == ours.buffers.size());
      for (std::size_t i = 0; i < ours.buffers.size(); ++i) {
        RC_ASSERT(cbufs->items[i]->items[0]->payload() == ours.buffers[i]->payload());
        RC_ASSERT(cbufs->items[i]->items[1]->flag == ours.buffers[i]->flag);
      }

      // numpy loads our bytes.
      Graph lg;
      std::vector<Node*> bufs;
      for (const Node* b : ours.buffers) {
        bufs.push_back(lg.tuple({lg.bytes(std::string(b->payload())), lg.boolean(b->flag)}));
      }
      PyRef args = to_python(lg.tuple({lg.bytes(ours.bytes), lg.list(std::move(bufs))}));
      set_main("_sc_args", args.get());
      PyRef loaded = eval("_sc_nd_loads(*_sc_args)");
      Node* got = from_python(loaded.get(), lg);
      std::unordered_map<const Node*, Node*> made;
      Node* want = as_numpy_loads(v.root, protocol, lg, made);
      RC_ASSERT(why_unequal(want, got) == "");
      auto want_arrays = arrays_of(want), got_arrays = arrays_of(got);
      RC_ASSERT(want_arrays.size() == got_arrays.size());
      for (std::size_t i = 0; i < got_arrays.size(); ++i) {
        RC_ASSERT(want_arrays[i]->array()->writeable == got_arrays[i]->array()->writeable);
      }

      // The reference decodes its own bytes back to the value, and writes
      // them again.
      auto views = views_of(ours);
      Graph dg;
      Node* back = decode_with(ours.bytes, dg, views);
      RC_ASSERT(why_unequal(v.root, back) == "");
      if (protocol < 5 || all_contiguous(v.root)) {
        RC_ASSERT(encode_result(back, protocol, oob).bytes == ours.bytes);
      }
    }
  });
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace serialcheck
