// numpy arrays (NDArray nodes): the model's layout rules, equality and JSON
// form; numpy 1.24's pickle forms against the pickles numpy itself wrote
// (corpus/golden-ndarray, made by scripts/make-golden-ndarray); zero-copy in
// both directions; generated arrays through the codec. The bridge and a
// property against real numpy and CPython's C pickler:
// ndarray_python_test.cpp.
#include "reference/types/ndarray.h"

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
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/domain.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/ndarrays.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using test_support::all_contiguous;
using test_support::array;
using test_support::arrays_of;
using test_support::decode_with;
using test_support::encode_result;
using test_support::views_of;
using types::ndarray_bytes;
using types::ndarray_c_contiguous;
using types::ndarray_f_contiguous;
using types::ndarray_problem;
using types::parse_numeric_dtype;

std::string iota_bytes(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i);
  return s;
}

std::string equal_why(const Node* a, const Node* b) {
  Difference d;
  if (equal(a, b, &d)) return "";
  return d.path + ": " + d.reason;
}

// ---------------------------------------------------------------------------
// The model

TEST(NDArrayModel, NumericDtypesInNumpysSpelling) {
  EXPECT_EQ(types::numeric_dtypes().size(), 25u);
  for (const std::string& s : types::numeric_dtypes()) {
    auto d = parse_numeric_dtype(s);
    ASSERT_TRUE(d) << s;
    EXPECT_EQ(d->str(), s);
  }
  EXPECT_EQ(parse_numeric_dtype("<c16")->itemsize, 16);
  EXPECT_EQ(parse_numeric_dtype(">f2")->kind_and_size(), "f2");
  EXPECT_TRUE(parse_numeric_dtype("|b1")->singleton());
  EXPECT_TRUE(parse_numeric_dtype("<i8")->singleton());
  EXPECT_FALSE(parse_numeric_dtype(">i8")->singleton());
  for (const char* bad : {"<b1", "<i1", ">u1", "|f8", "=f8", "f8", "<f16", "<c32", "<i3", "<f1",
                          "<U3", "<M8", "|O", "|V8", "<c4", "<i16", ""}) {
    EXPECT_FALSE(parse_numeric_dtype(bad)) << bad;
  }
}

TEST(NDArrayModel, ContiguityFollowsNumpysRelaxedRules) {
  ArrayParts a;
  a.dtype = "<f8";
  auto set = [&](std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
    a.shape = std::move(shape);
    a.strides = std::move(strides);
  };
  set({2, 3}, {24, 8});
  EXPECT_TRUE(ndarray_c_contiguous(a, 8));
  EXPECT_FALSE(ndarray_f_contiguous(a, 8));
  set({2, 3}, {8, 16});
  EXPECT_FALSE(ndarray_c_contiguous(a, 8));
  EXPECT_TRUE(ndarray_f_contiguous(a, 8));
  set({3, 1, 2}, {16, 999, 8});  // a length-1 dimension may have any stride
  EXPECT_TRUE(ndarray_c_contiguous(a, 8));
  set({2, 0, 3}, {0, 0, 0});  // empty: both
  EXPECT_TRUE(ndarray_c_contiguous(a, 8));
  EXPECT_TRUE(ndarray_f_contiguous(a, 8));
  set({}, {});  // 0-d: both
  EXPECT_TRUE(ndarray_c_contiguous(a, 8));
  EXPECT_TRUE(ndarray_f_contiguous(a, 8));
  set({4}, {16});
  EXPECT_FALSE(ndarray_c_contiguous(a, 8));
  EXPECT_FALSE(ndarray_f_contiguous(a, 8));
  set({4}, {-8});
  EXPECT_FALSE(ndarray_c_contiguous(a, 8));
  set({4, 3}, {0, 8});
  EXPECT_FALSE(ndarray_c_contiguous(a, 8));
  EXPECT_EQ(types::contiguous_strides({2, 0, 3}, 2, 'C'), (std::vector<std::int64_t>{6, 6, 2}));
  EXPECT_EQ(types::contiguous_strides({3, 1, 2}, 2, 'F'), (std::vector<std::int64_t>{2, 6, 6}));
}

TEST(NDArrayModel, ProblemsAreNamed) {
  ArrayParts a;
  a.dtype = "<i4";
  a.shape = {3};
  a.strides = {4};
  EXPECT_EQ(ndarray_problem(a, 12), "");
  EXPECT_NE(ndarray_problem(a, 11).find("outside the payload"), std::string::npos);
  a.offset = 4;
  EXPECT_NE(ndarray_problem(a, 12).find("outside the payload"), std::string::npos);
  a.strides = {-4};
  a.offset = 8;
  EXPECT_EQ(ndarray_problem(a, 12), "");
  a.offset = 4;
  EXPECT_NE(ndarray_problem(a, 12).find("outside the payload"), std::string::npos);
  a.offset = 13;
  EXPECT_NE(ndarray_problem(a, 12).find("offset 13"), std::string::npos);
  a.offset = 0;
  a.strides = {4, 4};
  EXPECT_NE(ndarray_problem(a, 12).find("2 strides for 1 dimensions"), std::string::npos);
  a.shape = {-1};
  a.strides = {4};
  EXPECT_NE(ndarray_problem(a, 12).find("negative"), std::string::npos);
  a.shape = {0, INT64_MAX};  // empty, but numpy still refuses the byte size
  a.strides = {0, 0};
  EXPECT_NE(ndarray_problem(a, 0).find("too big"), std::string::npos);
  a.shape = {0, 1000};
  EXPECT_EQ(ndarray_problem(a, 0), "");  // empty: any strides, no bytes
  a.shape.assign(33, 1);
  a.strides.assign(33, 0);
  EXPECT_NE(ndarray_problem(a, 4).find("33 dimensions"), std::string::npos);
  a.shape = {1};
  a.strides = {0};
  a.dtype = "<f16";
  EXPECT_NE(ndarray_problem(a, 16).find("not a numeric numpy dtype"), std::string::npos);
}

TEST(NDArrayModel, LogicalBytesInCAndFortranOrder) {
  Graph g;
  // A 2x3 uint8 array over bytes 0..5 in C order, then views of it.
  Node* c = array(g, "|u1", {2, 3}, {3, 1}, 0, iota_bytes(6));
  EXPECT_EQ(ndarray_bytes(*c, 'C'), std::string("\0\1\2\3\4\5", 6));
  EXPECT_EQ(ndarray_bytes(*c, 'F'), std::string("\0\3\1\4\2\5", 6));
  Node* t = array(g, "|u1", {3, 2}, {1, 3}, 0, iota_bytes(6));  // the transpose
  EXPECT_EQ(ndarray_bytes(*t, 'C'), std::string("\0\3\1\4\2\5", 6));
  Node* rev = array(g, "<u2", {3}, {-2}, 4, iota_bytes(6));  // [::-1]
  EXPECT_EQ(ndarray_bytes(*rev), std::string("\4\5\2\3\0\1", 6));
  Node* bcast = array(g, "|u1", {2, 3}, {0, 1}, 1, iota_bytes(4));
  EXPECT_EQ(ndarray_bytes(*bcast), std::string("\1\2\3\1\2\3", 6));
  Node* zero_d = array(g, "<i2", {}, {}, 1, iota_bytes(3));
  EXPECT_EQ(ndarray_bytes(*zero_d), std::string("\1\2", 2));
  Node* empty = array(g, "<f8", {0, 4}, {8, 8}, 0, "");
  EXPECT_EQ(ndarray_bytes(*empty), "");
}

TEST(NDArrayEqual, LayoutAndWriteableAreNotValue) {
  Graph g;
  // The same 2x3 int16 elements in C order, in Fortran order, and as a
  // reversed view at an offset inside a bigger, read-only buffer.
  std::string c_bytes = iota_bytes(12);
  std::string f_bytes;
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 2; ++row) f_bytes += c_bytes.substr((row * 3 + col) * 2, 2);
  }
  Node* c = array(g, "<i2", {2, 3}, {6, 2}, 0, c_bytes);
  Node* f = array(g, "<i2", {2, 3}, {2, 4}, 0, f_bytes, false);
  std::string padded = "xx";
  for (int i = 5; i >= 0; --i) padded += c_bytes.substr(static_cast<std::size_t>(i) * 2, 2);
  padded += "yyyy";
  Node* rev = array(g, "<i2", {2, 3}, {-6, -2}, 12, padded);
  EXPECT_EQ(equal_why(c, f), "");
  EXPECT_EQ(equal_why(c, rev), "");
  Node* other = array(g, "<i2", {2, 3}, {6, 2}, 0, c_bytes);
  other->set_owned(std::string(c_bytes).replace(8, 1, "\x7f"));
  EXPECT_EQ(equal_why(c, other), "root: ndarray elements differ at flat index 4 (C order)");
  Node* big = array(g, ">i2", {2, 3}, {6, 2}, 0, c_bytes);
  EXPECT_EQ(equal_why(c, big), "root: ndarray dtype '<i2' != '>i2'");
  Node* flat = array(g, "<i2", {6}, {2}, 0, c_bytes);
  EXPECT_EQ(equal_why(c, flat), "root: ndarray shape (2, 3) != (6,)");
  EXPECT_EQ(equal_why(c, g.bytes(c_bytes)), "root: kind ndarray != bytes");
}

// numpy loads an array pickled below protocol 5 in its native byte order
// (its __setstate__ swaps the elements), so comparisons through Python
// take the byte order as layout: the numbers must still agree.
TEST(NDArrayEqual, ByteOrderIsLayoutWhenAsked) {
  Graph g;
  Node* little = array(g, "<i2", {2}, {2}, 0, std::string("\x01\x02\x03\x04", 4));
  Node* big = array(g, ">i2", {2}, {2}, 0, std::string("\x02\x01\x04\x03", 4));
  Node* same_bytes = array(g, ">i2", {2}, {2}, 0, std::string("\x01\x02\x03\x04", 4));
  EXPECT_FALSE(types::ndarray_equal(*little, *big));
  EXPECT_TRUE(types::ndarray_equal(*little, *big, nullptr, false));
  std::string why;
  EXPECT_FALSE(types::ndarray_equal(*little, *same_bytes, &why, false));
  EXPECT_EQ(why, "ndarray elements differ at flat index 0 (C order)");
  // A complex number swaps each part on its own.
  Node* c_little = array(g, "<c8", {1}, {8}, 0, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  Node* c_big = array(g, ">c8", {1}, {8}, 0, std::string("\x04\x03\x02\x01\x08\x07\x06\x05", 8));
  EXPECT_TRUE(types::ndarray_equal(*c_little, *c_big, nullptr, false));
  // Another kind or item size is another value, whatever the byte order.
  Node* wide = array(g, ">i4", {1}, {4}, 0, std::string("\x04\x03\x02\x01", 4));
  Node* narrow = array(g, "<u4", {1}, {4}, 0, std::string("\x01\x02\x03\x04", 4));
  EXPECT_FALSE(types::ndarray_equal(*wide, *narrow, &why, false));
  EXPECT_EQ(why, "ndarray dtype '>i4' != '<u4'");
  EqualOptions loose;
  loose.ndarray_byte_order = false;
  EXPECT_TRUE(equal(little, big, loose));
  EXPECT_FALSE(equal(little, big));
}

TEST(NDArrayEqual, SharingCounts) {
  Graph g;
  Node* a = array(g, "|u1", {2}, {1}, 0, "ab");
  Node* b = array(g, "|u1", {2}, {1}, 0, "ab");
  EXPECT_NE(equal_why(g.list({a, a}), g.list({a, b})).find("sharing differs"), std::string::npos);
  EXPECT_EQ(equal_why(g.list({a, b}), g.list({b, a})), "");
}

// ---------------------------------------------------------------------------
// JSON

TEST(NDArrayJson, FormIsReadableAndLossless) {
  Graph g;
  Node* a = array(g, ">i2", {2}, {-2}, 3, std::string("\x00\x01\x02\x03\x04", 5), false);
  EXPECT_EQ(to_json(a), R"({"ndarray":{"dtype":">i2","shape":[2],"strides":[-2],"offset":3,)"
                        R"("writeable":false,"data":"0001020304"}})");
  Node* shared = g.list({a, a});
  const std::string text = to_json(shared);
  EXPECT_NE(text.find(R"("data":"0001020304"},"id":1})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"({"ref":1})"), std::string::npos) << text;
  Graph back;
  Node* read = from_json(text, back);
  EXPECT_EQ(equal_why(shared, read), "");
  EXPECT_EQ(to_json(read), text);  // strides, offset, flag and spare bytes too
  EXPECT_EQ(to_json(from_json(to_json(shared, true), back)), text);
}

TEST(NDArrayJson, BadFormsAreRefusedWithTheirPlace) {
  auto error_of = [](std::string_view text) -> std::string {
    Graph g;
    try {
      from_json(text, g);
    } catch (const JsonFormError& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string ok = R"("shape":[2],"strides":[1],"offset":0,"writeable":true,"data":"0102")";
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1",)" + ok + "}}"), "accepted");
  EXPECT_EQ(error_of(R"({"list":[{"ndarray":{"dtype":"|f8",)" + ok + "}}]}"),
            "/list/0/ndarray: dtype '|f8' is not a numeric numpy dtype (|b1, |i1, |u1, or <, > "
            "with i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16)");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[3],"strides":[1],"offset":0,)"
                     R"("writeable":true,"data":"0102"}})"),
            "/ndarray: elements reach outside the payload of 2 bytes (offset 0)");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[-2],"strides":[1],"offset":0,)"
                     R"("writeable":true,"data":"0102"}})"),
            "/ndarray/shape/0: expected a non-negative integer");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[2],"strides":[1],"offset":0,)"
                     R"("writeable":1,"data":"0102"}})"),
            "/ndarray/writeable: writeable must be true or false");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[2],"strides":[1],"offset":0,)"
                     R"("writeable":true,"data":"0102","order":"C"}})"),
            "/ndarray/order: unknown ndarray member \"order\"");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[2],"strides":[1],"offset":0,)"
                     R"("writeable":true}})"),
            "/ndarray: ndarray needs \"data\"");
  EXPECT_EQ(error_of(R"({"ndarray":{"dtype":"|u1","shape":[2],"strides":[1],"offset":0,)"
                     R"("writeable":true,"data":"010"}})"),
            "/ndarray/data: expected hexadecimal digits in pairs");
}

// ---------------------------------------------------------------------------
// Pickling

TEST(NDArrayPickle, MalformedArraysAreUnpicklable) {
  Graph g;
  Node* a = array(g, "<f8", {2}, {8}, 0, std::string(8, '\0'));
  try {
    pickle::encode(a);
    FAIL() << "encoded";
  } catch (const pickle::PickleError& e) {
    EXPECT_EQ(e.kind(), pickle::ErrorKind::Unpicklable);
    EXPECT_NE(e.detail().find("outside the payload"), std::string::npos) << e.detail();
  }
}

TEST(NDArrayPickle, OutOfBandBuffersBorrowTheArraysMemory) {
  Graph g;
  std::string payload = "...." + iota_bytes(24) + "..";
  Node* c = array(g, "<u4", {2, 3}, {12, 4}, 4, payload, false);
  Node* f = array(g, "<u2", {3, 2}, {2, 6}, 4, payload);
  Node* strided = array(g, "<u4", {3}, {8}, 4, payload);
  Node* value = g.list({c, f, strided, c});
  pickle::EncodeResult r = encode_result(value, 5, true);
  ASSERT_EQ(r.buffers.size(), 2u);  // the strided view travels in band
  EXPECT_EQ(r.buffers[0]->payload().data(), c->payload().data() + 4);
  EXPECT_EQ(r.buffers[0]->payload().size(), 24u);
  EXPECT_TRUE(r.buffers[0]->flag);  // read-only array, read-only buffer
  EXPECT_EQ(r.buffers[1]->payload().data(), f->payload().data() + 4);
  EXPECT_EQ(r.buffers[1]->payload().size(), 12u);
  EXPECT_FALSE(r.buffers[1]->flag);

  // Decoding borrows the caller's buffers: no copy on either side.
  std::vector<pickle::BufferView> views = views_of(r);
  Graph out;
  Node* back = decode_with(r.bytes, out, views);
  ASSERT_EQ(back->kind, Kind::List);
  EXPECT_EQ(equal_why(value, back), "");
  EXPECT_TRUE(back->items[0]->borrowed());
  EXPECT_EQ(back->items[0]->payload().data(), c->payload().data() + 4);
  EXPECT_EQ(back->items[1]->payload().data(), f->payload().data() + 4);
  EXPECT_FALSE(back->items[0]->array()->writeable);
  EXPECT_TRUE(back->items[1]->array()->writeable);
  EXPECT_EQ(back->items[0], back->items[3]);  // one array, twice
}

TEST(NDArrayPickle, InBandBufferKindFollowsTheFlag) {
  Graph g;
  Node* rw = array(g, "|u1", {3}, {1}, 0, "abc");
  Node* ro = array(g, "|u1", {3}, {1}, 0, "abc", false);
  const std::string a = pickle::encode(rw).bytes;
  const std::string b = pickle::encode(ro).bytes;
  EXPECT_NE(a.find(std::string("\x96\x03\0\0\0\0\0\0\0abc", 12)), std::string::npos);  // BYTEARRAY8
  EXPECT_NE(b.find(std::string("C\x03"
                               "abc",
                               5)),
            std::string::npos);  // SHORT_BINBYTES
  // Below protocol 5 both are the same writeable array, as numpy loads them.
  Graph out;
  Node* back = decode_with(encode_result(ro, 4, false).bytes, out);
  ASSERT_EQ(back->kind, Kind::NDArray);
  EXPECT_TRUE(back->array()->writeable);
  EXPECT_EQ(encode_result(rw, 4, false).bytes, encode_result(ro, 4, false).bytes);
}

// A numpy form whose parts something else refers to stays a generic reduce:
// the model would write them afresh and lose the sharing.
TEST(NDArrayPickle, SharedPartsKeepTheGenericForm) {
  Graph g;
  Node* a = array(g, "<f8", {2}, {8}, 0, std::string(16, '\x01'));
  const std::string plain = encode_result(a, 3, false).bytes;
  Graph d1;
  Node* raised = decode_with(plain, d1);
  ASSERT_EQ(raised->kind, Kind::NDArray);
  // numpy's reduce by hand: alone, beside its own data bytes, beside its dtype.
  Graph h;
  Node* data = h.bytes(std::string(16, '\x01'));
  Node* dtype = h.object(h.global("numpy", "dtype"),
                         h.tuple({h.str("f8"), h.boolean(false), h.boolean(true)}));
  dtype->obj()->state = h.tuple({h.integer(3), h.str("<"), h.none(), h.none(), h.none(),
                               h.integer(-1), h.integer(-1), h.integer(0)});
  Node* obj =
      h.object(h.global("numpy.core.multiarray", "_reconstruct"),
               h.tuple({h.global("numpy", "ndarray"), h.tuple({h.integer(0)}), h.bytes("b")}));
  obj->obj()->state = h.tuple({h.integer(1), h.tuple({h.integer(2)}), dtype, h.boolean(false), data});
  for (Node* value : {h.list({obj}), h.list({obj, data}), h.list({obj, dtype})}) {
    const std::string bytes = encode_result(value, 3, false).bytes;
    Graph out;
    Node* back = decode_with(bytes, out);
    const bool alone = value->items.size() == 1;
    EXPECT_EQ(back->items[0]->kind, alone ? Kind::NDArray : Kind::Object);
    EXPECT_EQ(encode_result(back, 3, false).bytes, bytes);
  }
}

// ---------------------------------------------------------------------------
// Golden vectors written by numpy

fs::path golden_dir() {
  return fs::path(SERIALCHECK_SOURCE_DIR) / "corpus" / "golden-ndarray";
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct GoldenArray {
  std::string case_name, label;
  int protocol = 0;
  bool out_of_band = false;
  std::string pickle_file, json_file;                 // json_file empty: a generic case
  std::int64_t ndarrays = -1;                         // generic: NDArray nodes the decoder makes
  std::vector<std::pair<std::string, bool>> buffers;  // file, read-only
  // Where numpy's pickle of the decoded value differs from the file (see
  // scripts/make-golden-ndarray): that pickle and its buffers.
  std::string reencode_reason, reencode_file;
  std::vector<std::pair<std::string, bool>> reencode_buffers;
};

void PrintTo(const GoldenArray& v, std::ostream* os) {
  *os << v.case_name << "." << v.label;
}

std::vector<GoldenArray> golden_arrays() {
  std::vector<GoldenArray> out;
  auto text = read_file(golden_dir() / "MANIFEST.json");
  if (!text) return out;
  auto doc = nlohmann::json::parse(*text);
  for (const auto& c : doc.at("cases")) {
    for (const auto& v : c.at("variants")) {
      GoldenArray g;
      g.case_name = c.at("name").get<std::string>();
      g.label = v.at("label").get<std::string>();
      g.protocol = v.at("protocol").get<int>();
      g.out_of_band = v.at("out_of_band").get<bool>();
      g.pickle_file = v.at("pickle").get<std::string>();
      g.json_file = v.value("json", std::string());
      g.ndarrays = c.value("ndarrays", std::int64_t{-1});
      for (const auto& b : v.value("buffers", nlohmann::json::array())) {
        g.buffers.emplace_back(b.at("file").get<std::string>(), b.at("readonly").get<bool>());
      }
      if (v.contains("reencode")) {
        const auto& r = v.at("reencode");
        g.reencode_reason = r.at("reason").get<std::string>();
        g.reencode_file = r.at("pickle").get<std::string>();
        for (const auto& b : r.at("buffers")) {
          g.reencode_buffers.emplace_back(b.at("file").get<std::string>(),
                                          b.at("readonly").get<bool>());
        }
      }
      out.push_back(std::move(g));
    }
  }
  return out;
}

class NDArrayGolden : public ::testing::TestWithParam<GoldenArray> {};

// The canonical text of `root` without its "supplied-readonly" members: the
// graph's nodes forget what their loader was given while it is written.
std::string json_without_supplied(Graph& graph, const Node* root) {
  std::vector<std::pair<Node*, Supplied>> saved;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.node(i);
    if (n.supplied != Supplied::None) {
      saved.emplace_back(&n, std::exchange(n.supplied, Supplied::None));
    }
  }
  std::string text = to_json(root);
  for (auto& [n, supplied] : saved) n->supplied = supplied;
  return text;
}

TEST(NDArrayGoldenCorpus, IsThere) {
  auto all = golden_arrays();
  EXPECT_GE(all.size(), 400u) << "corpus/golden-ndarray is missing (scripts/make-golden-ndarray)";
}

TEST_P(NDArrayGolden, DecodeThenEncodeGivesNumpysBytes) {
  const GoldenArray& v = GetParam();
  auto read_buffers = [](const std::vector<std::pair<std::string, bool>>& files,
                         std::vector<std::string>& out) {
    for (const auto& [file, readonly] : files) {
      auto content = read_file(golden_dir() / file);
      if (!content) return ::testing::AssertionFailure() << "cannot read " << file;
      out.push_back(std::move(*content));
    }
    return ::testing::AssertionSuccess();
  };
  auto data = read_file(golden_dir() / v.pickle_file);
  ASSERT_TRUE(data) << v.pickle_file;
  std::vector<std::string> buffer_data;
  ASSERT_TRUE(read_buffers(v.buffers, buffer_data));
  std::vector<pickle::BufferView> views;
  for (std::size_t i = 0; i < buffer_data.size(); ++i) {
    views.push_back({reinterpret_cast<const std::uint8_t*>(buffer_data[i].data()),
                     buffer_data[i].size(), v.buffers[i].second});
  }
  // What encoding the decoded value must give: the file itself, or numpy's
  // pickle of the decoded value where the manifest says why they differ.
  std::string want_bytes = *data;
  std::vector<std::string> want_buffers = buffer_data;
  auto want_flags = v.buffers;
  if (!v.reencode_file.empty()) {
    auto redo = read_file(golden_dir() / v.reencode_file);
    ASSERT_TRUE(redo) << v.reencode_file;
    want_bytes = std::move(*redo);
    want_buffers.clear();
    ASSERT_TRUE(read_buffers(v.reencode_buffers, want_buffers));
    want_flags = v.reencode_buffers;
    EXPECT_NE(want_bytes, *data) << "stale reencode entry";
  }
  SCOPED_TRACE(v.reencode_reason);

  Graph decoded;
  const Node* got = decode_with(*data, decoded, views);
  const auto arrays = arrays_of(got);
  if (!v.json_file.empty()) {
    auto json = read_file(golden_dir() / v.json_file);
    ASSERT_TRUE(json) << v.json_file;
    Graph expected;
    const Node* want = from_json(*json, expected);
    EXPECT_EQ(equal_why(got, want), "");
    // Layout and flags as numpy made them. The expected value describes the
    // arrays numpy loaded, not the memory their loader was given, which the
    // decoded arrays record as "supplied-readonly".
    for (const Node* a : arrays) {
      Supplied supplied = Supplied::None;
      for (std::size_t i = 0; i < buffer_data.size(); ++i) {
        if (!buffer_data[i].empty() && a->payload().data() == buffer_data[i].data()) {
          supplied = v.buffers[i].second ? Supplied::ReadOnly : Supplied::Writable;
        }
      }
      if (supplied != Supplied::None || !v.out_of_band) {
        EXPECT_EQ(a->supplied, supplied);
      }
    }
    EXPECT_EQ(json_without_supplied(decoded, got), to_json(want));
    EXPECT_EQ(arrays.size(), arrays_of(want).size());
    // The expected value alone encodes to the same bytes.
    EXPECT_TRUE(encode_result(want, v.protocol, v.out_of_band).bytes == want_bytes)
        << "encoding the expected value differs";
  } else {
    EXPECT_EQ(static_cast<std::int64_t>(arrays.size()), v.ndarrays);
  }

  pickle::EncodeResult again = encode_result(got, v.protocol, v.out_of_band);
  EXPECT_TRUE(again.bytes == want_bytes) << "encoding the decoded value differs";
  ASSERT_EQ(again.buffers.size(), want_buffers.size());
  for (std::size_t i = 0; i < want_buffers.size(); ++i) {
    EXPECT_EQ(again.buffers[i]->payload(), want_buffers[i]);
    EXPECT_EQ(again.buffers[i]->flag, want_flags[i].second);
  }
  // The same bytes whatever memory the loader is given for each buffer:
  // the stream, not the memory, says which arrays were read-only.
  if (v.out_of_band) {
    for (bool supplied_readonly : {true, false}) {
      SCOPED_TRACE(supplied_readonly ? "read-only memory supplied" : "writable memory supplied");
      std::vector<pickle::BufferView> other = views;
      for (pickle::BufferView& b : other) b.readonly = supplied_readonly;
      Graph g;
      pickle::EncodeResult r = encode_result(decode_with(*data, g, other), v.protocol, true);
      EXPECT_TRUE(r.bytes == want_bytes) << "encoding the decoded value differs";
      ASSERT_EQ(r.buffers.size(), want_flags.size());
      for (std::size_t i = 0; i < want_flags.size(); ++i) {
        EXPECT_EQ(r.buffers[i]->flag, want_flags[i].second) << "buffer " << i;
      }
    }
  }
  // Zero-copy end to end: each array that came out of band borrowed its
  // buffer, and the pickle buffer it is written with borrows the array.
  if (!v.json_file.empty()) {
    std::unordered_set<const void*> handed_out;
    for (const Node* b : again.buffers) handed_out.insert(b->payload().data());
    for (const std::string& b : buffer_data) {
      if (!b.empty()) {
        EXPECT_TRUE(handed_out.count(b.data())) << "a buffer was copied";
      }
    }
  }
}

std::string golden_name(const ::testing::TestParamInfo<GoldenArray>& param) {
  return param.param.case_name + "_" + param.param.label;
}

INSTANTIATE_TEST_SUITE_P(Corpus, NDArrayGolden, ::testing::ValuesIn(golden_arrays()), golden_name);

// ---------------------------------------------------------------------------
// Generated arrays

RC_GTEST_PROP(NDArrayGen, SpecsAreWellFormed, ()) {
  const auto spec = *gen::ndarraySpec();
  Graph g;
  Node* n = gen::build_ndarray(spec, g);
  RC_ASSERT(ndarray_problem(*n->array(), n->payload().size()) == "");
}

TEST(NDArrayGen, CoversDtypesAndLayouts) {
  std::unordered_map<std::string, int> seen;
  auto sample =
      rc::gen::container<std::vector<gen::NDArraySpec>>(600, gen::ndarraySpec())(rc::Random(7), 50)
          .value();
  for (const auto& s : sample) {
    Graph g;
    Node* n = gen::build_ndarray(s, g);
    const ArrayParts& a = *n->array();
    const int itemsize = parse_numeric_dtype(a.dtype)->itemsize;
    const bool c = ndarray_c_contiguous(a, itemsize), f = ndarray_f_contiguous(a, itemsize);
    ++seen["dtype " + a.dtype];
    seen[c && f ? "both" : c ? "C only" : f ? "F only" : "neither"]++;
    if (a.shape.empty()) ++seen["0-d"];
    if (types::ndarray_size(a) == 0) ++seen["empty"];
    if (std::find(a.strides.begin(), a.strides.end(), 0) != a.strides.end() &&
        types::ndarray_size(a) > 1) {
      ++seen["zero stride"];
    }
    if (std::any_of(a.strides.begin(), a.strides.end(),
                    [](std::int64_t stride) { return stride < 0; })) {
      ++seen["negative stride"];
    }
    if (a.offset % itemsize != 0) ++seen["unaligned"];
    if (!a.writeable) ++seen["read-only"];
    if (n->payload().size() > 65536) ++seen["past a frame"];
  }
  for (const std::string& d : types::numeric_dtypes()) EXPECT_GT(seen["dtype " + d], 0) << d;
  for (const char* k : {"both", "C only", "F only", "neither", "0-d", "empty", "zero stride",
                        "negative stride", "unaligned", "read-only", "past a frame"}) {
    EXPECT_GT(seen[k], 0) << k;
  }
}

// Through the reference codec alone: decode(encode(v)) == v at every
// protocol, in band and out of band, and re-encoding gives the same bytes
// (at protocol 5 once the arrays are contiguous, as decoded arrays are).
RC_GTEST_PROP(NDArrayCodec, RoundTripsAndReencodes, ()) {
  const auto v = *gen::ndarrayValue();
  for (int variant = 0; variant <= 6; ++variant) {
    const bool oob = variant == 6;
    const int protocol = oob ? 5 : variant;
    RC_LOG() << "protocol " << protocol << (oob ? " out of band" : "") << "\n";
    pickle::EncodeResult r = encode_result(v.root, protocol, oob);
    Graph out;
    Node* back = decode_with(r.bytes, out, views_of(r));
    RC_ASSERT(equal_why(v.root, back) == "");
    RC_ASSERT(all_contiguous(back));
    pickle::EncodeResult again = encode_result(back, protocol, oob);
    if (protocol < 5 || all_contiguous(v.root)) {
      RC_ASSERT(again.bytes == r.bytes);
      RC_ASSERT(again.buffers.size() == r.buffers.size());
    }
    Graph out2;
    Node* back2 = decode_with(again.bytes, out2, views_of(again));
    RC_ASSERT(equal_why(v.root, back2) == "");
    RC_ASSERT(encode_result(back2, protocol, oob).bytes == again.bytes);
  }
}

// ---------------------------------------------------------------------------
// With numpy itself

}  // namespace
}  // namespace serialcheck
