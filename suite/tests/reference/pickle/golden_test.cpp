// Golden vectors: pickles written by CPython 3.11's C pickler at every protocol
// (corpus/golden/, made by scripts/make-golden and listed in MANIFEST.json).
// For each case and protocol, one test checks three things:
//   decode   the pickle (with its out-of-band buffers) decodes to the value in
//            the expected canonical JSON;
//   encode   that expected value encodes, at the same protocol, to the file's
//            exact bytes (the encoder alone, whatever the decoder does);
//   round    the decoded value re-encodes to the same bytes, and the
//            out-of-band buffers come back in the same order with the same
//            contents and read-only flags.
// Out-of-band cases are also decoded with every buffer supplied read-only
// and then writable: the bytes must come back the same either way.
// The byte checks are skipped only where the manifest gives a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/files.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;

fs::path golden_dir() {
  return test_support::source_path("corpus/golden");
}

struct BufferFile {
  std::string file;
  bool readonly = true;
};

// One pickle of one case: a protocol, in band or with out-of-band buffers.
struct GoldenVariant {
  std::string case_name;
  std::string label;  // "p3", "p5oob"
  int protocol = 0;
  bool out_of_band = false;
  std::string pickle_file;
  std::string json_file;
  bool byte_identical = true;
  std::string not_identical_reason;
  std::vector<BufferFile> buffers;
};

// gtest prints parameters of failing tests; keep it to the name.
void PrintTo(const GoldenVariant& v, std::ostream* os) {
  *os << v.case_name << "." << v.label;
}

struct Manifest {
  std::string error;  // empty when it loaded
  std::size_t cases = 0;
  std::vector<GoldenVariant> variants;
};

using test_support::read_file;

Manifest load_manifest() {
  Manifest m;
  fs::path path = golden_dir() / "MANIFEST.json";
  auto text = read_file(path);
  if (!text) {
    m.error = "cannot read " + path.string() + " (run scripts/make-golden)";
    return m;
  }
  try {
    auto doc = nlohmann::json::parse(*text);
    for (const auto& c : doc.at("cases")) {
      ++m.cases;
      for (const auto& v : c.at("variants")) {
        GoldenVariant g;
        g.case_name = c.at("name").get<std::string>();
        g.protocol = v.at("protocol").get<int>();
        g.out_of_band = v.value("out_of_band", false);
        g.label = "p" + std::to_string(g.protocol) + (g.out_of_band ? "oob" : "");
        g.pickle_file = v.at("pickle").get<std::string>();
        g.json_file = v.at("json").get<std::string>();
        g.byte_identical = v.value("byte_identical", true);
        g.not_identical_reason = v.value("not_identical_reason", std::string());
        if (v.contains("buffers")) {
          for (const auto& b : v.at("buffers")) {
            g.buffers.push_back({b.at("file").get<std::string>(), b.at("readonly").get<bool>()});
          }
        }
        m.variants.push_back(std::move(g));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    m.error = "bad " + path.string() + ": " + e.what();
    m.variants.clear();
  }
  return m;
}

const Manifest& manifest() {
  static const Manifest m = load_manifest();
  return m;
}

std::string hex_window(std::string_view bytes, std::size_t center, std::size_t radius) {
  std::size_t begin = center > radius ? center - radius : 0;
  std::size_t end = std::min(bytes.size(), center + radius);
  std::ostringstream out;
  out << "@" << begin << ":";
  for (std::size_t i = begin; i < end; ++i) {
    out << (i == center ? " [" : " ") << std::hex << std::setw(2) << std::setfill('0')
        << static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << std::dec
        << (i == center ? "]" : "");
  }
  return out.str();
}

// Byte identity, with the first differing offset and a little context.
::testing::AssertionResult same_bytes(std::string_view what, std::string_view actual,
                                      std::string_view expected) {
  if (actual == expected) return ::testing::AssertionSuccess();
  std::size_t n = std::min(actual.size(), expected.size());
  std::size_t at = static_cast<std::size_t>(
      std::mismatch(actual.begin(), actual.begin() + static_cast<std::ptrdiff_t>(n),
                    expected.begin())
          .first -
      actual.begin());
  // A FRAME length differs as soon as anything inside the frame does; the
  // common tail says where the two agree again.
  std::size_t tail = 0;
  while (tail < n - at &&
         actual[actual.size() - 1 - tail] == expected[expected.size() - 1 - tail]) {
    ++tail;
  }
  return ::testing::AssertionFailure()
         << what << " differs from CPython's at offset " << at << " (sizes " << actual.size()
         << " vs " << expected.size() << "; the last " << tail << " bytes agree)"
         << "\n  ours:    " << hex_window(actual, at, 16)
         << "\n  CPython: " << hex_window(expected, at, 16);
}

std::string clipped_json(const Node* root) {
  try {
    std::string s = to_json(root);
    if (s.size() > 1500) s = s.substr(0, 1500) + "...";
    return s;
  } catch (const std::exception& e) {
    return std::string("(cannot write JSON: ") + e.what() + ")";
  }
}

class GoldenTest : public ::testing::TestWithParam<GoldenVariant> {};

TEST_P(GoldenTest, DecodeEncodeRoundTrip) {
  const GoldenVariant& v = GetParam();
  const fs::path dir = golden_dir();
  auto data = read_file(dir / v.pickle_file);
  ASSERT_TRUE(data) << "cannot read " << v.pickle_file;
  auto json_text = read_file(dir / v.json_file);
  ASSERT_TRUE(json_text) << "cannot read " << v.json_file;

  // The buffers live as long as the decoded graph, which borrows them.
  std::vector<std::string> buffer_data;
  std::vector<pickle::BufferView> views;
  for (const BufferFile& b : v.buffers) {
    auto content = read_file(dir / b.file);
    ASSERT_TRUE(content) << "cannot read " << b.file;
    buffer_data.push_back(std::move(*content));
  }
  for (std::size_t i = 0; i < buffer_data.size(); ++i) {
    views.push_back({reinterpret_cast<const std::uint8_t*>(buffer_data[i].data()),
                     buffer_data[i].size(), v.buffers[i].readonly});
  }

  Graph expected;
  const Node* want = nullptr;
  try {
    want = from_json(*json_text, expected);
  } catch (const JsonFormError& e) {
    FAIL() << v.json_file << " is not canonical JSON at " << e.where() << ": " << e.what();
  }

  pickle::EncodeOptions encode_options;
  encode_options.protocol = v.protocol;
  if (v.out_of_band) {
    encode_options.buffer_callback = [](const Node&) { return false; };  // all out of band
  }
  const bool check_bytes = v.byte_identical;
  if (!check_bytes) {
    RecordProperty("bytes_not_checked", v.not_identical_reason);
  }

  // encode: the expected value alone must give CPython's bytes.
  if (check_bytes) {
    try {
      pickle::EncodeResult from_expected = pickle::encode(want, encode_options);
      EXPECT_TRUE(same_bytes("encoding of the expected value", from_expected.bytes, *data));
      EXPECT_EQ(from_expected.buffers.size(), v.buffers.size())
          << "out-of-band buffers from encoding the expected value";
    } catch (const pickle::PickleError& e) {
      ADD_FAILURE() << "encoding the expected value failed: " << e.what();
    }
  }

  // decode
  Graph decoded;
  pickle::DecodeOptions decode_options;
  decode_options.buffers = views;
  pickle::DecodeResult result;
  try {
    result = pickle::decode(*data, decoded, decode_options);
  } catch (const pickle::PickleError& e) {
    FAIL() << "decoding " << v.pickle_file << " failed at offset " << e.offset() << ": "
           << e.what();
  }
  ASSERT_NE(result.root, nullptr);
  EXPECT_EQ(result.consumed, data->size());
  // CPython writes PROTO from protocol 2 on; a stream without it reads as 0.
  EXPECT_EQ(result.protocol, v.protocol >= 2 ? v.protocol : 0);
  Difference why;
  EXPECT_TRUE(equal(result.root, want, &why))
      << v.pickle_file << " decodes to a value that differs from " << v.json_file << " at "
      << why.path << ": " << why.reason << "\n  decoded: " << clipped_json(result.root);
  // Into a graph that already holds a node, the recognisers of domain forms
  // look at every node rather than at the decode's list of the Object nodes
  // it made: both ways must give the expected value.
  {
    Graph busy;
    busy.root = busy.integer(0);
    const Node* root = nullptr;
    try {
      root = pickle::decode(*data, busy, decode_options).root;
    } catch (const pickle::PickleError& e) {
      FAIL() << "decoding " << v.pickle_file << " into a graph holding a node failed at offset "
             << e.offset() << ": " << e.what();
    }
    Difference busy_why;
    EXPECT_TRUE(equal(root, want, &busy_why))
        << v.pickle_file << " decoded into a graph holding a node differs at " << busy_why.path
        << ": " << busy_why.reason;
  }

  // round: decode, then encode again.
  if (!check_bytes) return;
  pickle::EncodeResult again;
  try {
    again = pickle::encode(result.root, encode_options);
  } catch (const pickle::PickleError& e) {
    FAIL() << "re-encoding the decoded value failed: " << e.what();
  }
  EXPECT_TRUE(same_bytes("re-encoding of the decoded value", again.bytes, *data));
  ASSERT_EQ(again.buffers.size(), v.buffers.size()) << "number of out-of-band buffers";
  for (std::size_t i = 0; i < again.buffers.size(); ++i) {
    const Node* b = again.buffers[i];
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->kind, Kind::PickleBuffer) << "out-of-band buffer " << i;
    EXPECT_TRUE(
        same_bytes("out-of-band buffer " + std::to_string(i), b->payload(), buffer_data[i]));
    EXPECT_EQ(b->flag, v.buffers[i].readonly) << "read-only flag of out-of-band buffer " << i;
  }
}

std::string variant_name(const ::testing::TestParamInfo<GoldenVariant>& info) {
  std::string name = info.param.case_name + "_" + info.param.label;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest, ::testing::ValuesIn(manifest().variants),
                         variant_name);
// Without a manifest there are no parameters; GoldenManifest.Loads reports why.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenTest);

// CPython's loads(buffers=) is given read-only (bytes) or writable
// (bytearray) memory for each NEXT_BUFFER, while the stream alone says which
// buffers were read-only when pickled (READONLY_BUFFER). Whatever the loader
// is given, the decoded value encodes again to CPython's bytes and buffer
// flags, and records what was supplied.
struct LoadedWith {
  Graph graph;
  const Node* root = nullptr;
  std::vector<std::string> buffers;  // borrowed by the graph
};

std::vector<GoldenVariant> out_of_band_variants() {
  std::vector<GoldenVariant> out;
  for (const GoldenVariant& v : manifest().variants) {
    if (v.out_of_band && v.byte_identical) out.push_back(v);
  }
  return out;
}

void load_with(const GoldenVariant& v, bool supplied_readonly, LoadedWith& out) {
  const fs::path dir = golden_dir();
  auto data = read_file(dir / v.pickle_file);
  ASSERT_TRUE(data) << "cannot read " << v.pickle_file;
  for (const BufferFile& b : v.buffers) {
    auto content = read_file(dir / b.file);
    ASSERT_TRUE(content) << "cannot read " << b.file;
    out.buffers.push_back(std::move(*content));
  }
  std::vector<pickle::BufferView> views;
  for (const std::string& b : out.buffers) {
    views.push_back({reinterpret_cast<const std::uint8_t*>(b.data()), b.size(), supplied_readonly});
  }
  pickle::DecodeOptions options;
  options.buffers = views;
  out.root = pickle::decode(*data, out.graph, options).root;
}

class GoldenOutOfBandTest : public ::testing::TestWithParam<GoldenVariant> {};

TEST_P(GoldenOutOfBandTest, ReencodesTheSameWhateverTheLoaderSupplies) {
  const GoldenVariant& v = GetParam();
  auto data = read_file(golden_dir() / v.pickle_file);
  ASSERT_TRUE(data);
  for (bool supplied_readonly : {true, false}) {
    SCOPED_TRACE(supplied_readonly ? "read-only memory supplied" : "writable memory supplied");
    LoadedWith loaded;
    ASSERT_NO_FATAL_FAILURE(load_with(v, supplied_readonly, loaded));
    std::size_t buffers = 0;
    for (std::size_t i = 0; i < loaded.graph.size(); ++i) {
      const Node& n = loaded.graph.node(i);
      if (n.kind != Kind::PickleBuffer) continue;
      ++buffers;
      EXPECT_EQ(n.supplied, supplied_readonly ? Supplied::ReadOnly : Supplied::Writable);
    }
    EXPECT_GE(buffers, v.buffers.size());
    pickle::EncodeOptions options;
    options.protocol = 5;
    options.buffer_callback = [](const Node&) { return false; };
    pickle::EncodeResult again = pickle::encode(loaded.root, options);
    EXPECT_TRUE(same_bytes("re-encoding of the decoded value", again.bytes, *data));
    ASSERT_EQ(again.buffers.size(), v.buffers.size());
    for (std::size_t i = 0; i < again.buffers.size(); ++i) {
      EXPECT_EQ(again.buffers[i]->flag, v.buffers[i].readonly) << "buffer " << i;
      EXPECT_EQ(again.buffers[i]->payload(), loaded.buffers[i]) << "buffer " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenOutOfBandTest, ::testing::ValuesIn(out_of_band_variants()),
                         variant_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenOutOfBandTest);

// Negative control: a decoder that took the supplied memory's writability
// for the stream's (as this one once did) writes READONLY_BUFFER after a
// buffer CPython wrote writable, and the check above would see it.
TEST(GoldenOutOfBand, TakingTheSuppliedMemoryForTheStreamChangesTheBytes) {
  const std::vector<GoldenVariant> all = out_of_band_variants();
  auto it = std::find_if(all.begin(), all.end(), [](const GoldenVariant& v) {
    return std::any_of(v.buffers.begin(), v.buffers.end(),
                       [](const BufferFile& b) { return !b.readonly; });
  });
  ASSERT_NE(it, all.end()) << "no out-of-band golden case with a writable buffer";
  auto data = read_file(golden_dir() / it->pickle_file);
  ASSERT_TRUE(data);
  LoadedWith loaded;
  ASSERT_NO_FATAL_FAILURE(load_with(*it, /*supplied_readonly=*/true, loaded));
  for (std::size_t i = 0; i < loaded.graph.size(); ++i) {
    Node& n = loaded.graph.node(i);
    if (n.kind == Kind::PickleBuffer) n.flag = loaded_readonly(n);
  }
  pickle::EncodeOptions options;
  options.protocol = 5;
  options.buffer_callback = [](const Node&) { return false; };
  EXPECT_FALSE(same_bytes("conflated", pickle::encode(loaded.root, options).bytes, *data));
}

// CPython writes a global's module name from the interned str, and a str
// value that is that object is one memo entry with it (a BINGET in place of
// the name). The decoder marks the str as interned, so the decoded value
// encodes again to CPython's bytes. (The case stays not byte-identical in
// the manifest: its expected JSON, written without the mark, encodes the
// name again, which is also this test's negative control.)
TEST(GoldenInterned, AStrValueSharedWithAGlobalsNameEncodesAgainTheSame) {
  for (const char* file :
       {"str_aliases_global_module.p4.pickle", "str_aliases_global_module.p5.pickle"}) {
    SCOPED_TRACE(file);
    auto data = read_file(golden_dir() / file);
    ASSERT_TRUE(data) << "cannot read " << file;
    Graph g;
    Node* root = pickle::decode(*data, g).root;
    ASSERT_EQ(root->kind, Kind::List);
    ASSERT_EQ(root->items.size(), 2u);
    Node* name = root->items[0];
    ASSERT_EQ(name->kind, Kind::Str);
    EXPECT_TRUE(name->flag) << "the str value is the interned module name";
    EXPECT_EQ(to_json(root), R"({"list":[{"str":"collections","interned":true},)"
                             R"({"global":["collections","OrderedDict"]}]})");
    pickle::EncodeOptions options;
    options.protocol = file[std::string_view(file).find(".p") + 2] - '0';
    EXPECT_TRUE(same_bytes("re-encoding", pickle::encode(root, options).bytes, *data));
    name->flag = false;  // negative control: without the mark the name is written again
    EXPECT_FALSE(same_bytes("unmarked", pickle::encode(root, options).bytes, *data));
  }
}

TEST(GoldenManifest, Loads) {
  const Manifest& m = manifest();
  ASSERT_TRUE(m.error.empty()) << m.error;
  EXPECT_GE(m.cases, 60u);
  std::size_t per_protocol[6] = {};
  std::size_t out_of_band = 0;
  for (const GoldenVariant& v : m.variants) {
    ASSERT_GE(v.protocol, 0);
    ASSERT_LE(v.protocol, 5);
    ++per_protocol[v.protocol];
    if (v.out_of_band) {
      ++out_of_band;
      EXPECT_EQ(v.protocol, 5) << v.case_name;
      EXPECT_FALSE(v.buffers.empty()) << v.case_name;
    }
    if (!v.byte_identical) {
      EXPECT_FALSE(v.not_identical_reason.empty()) << v.case_name << "." << v.label;
    }
    EXPECT_TRUE(fs::exists(golden_dir() / v.pickle_file)) << v.pickle_file;
    EXPECT_TRUE(fs::exists(golden_dir() / v.json_file)) << v.json_file;
    for (const BufferFile& b : v.buffers) EXPECT_TRUE(fs::exists(golden_dir() / b.file)) << b.file;
  }
  for (int p = 0; p <= 5; ++p) EXPECT_GE(per_protocol[p], 60u) << "protocol " << p;
  EXPECT_GE(out_of_band, 3u);  // arrays sent out of band: corpus/golden-ndarray
}

}  // namespace
}  // namespace serialcheck
