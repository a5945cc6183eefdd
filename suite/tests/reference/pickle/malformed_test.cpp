// The malformed corpus (corpus/malformed, written by scripts/make-malformed):
// every stream must fail with the error kind and offset its manifest line
// records, and with nothing but a PickleError. Also: every strict prefix of a
// valid stream is a Truncated error, and the disassembler survives every case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/decoder.h"
#include "reference/pickle/disasm.h"
#include "reference/pickle/errors.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;

const std::filesystem::path kDir =
    std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus" / "malformed";

struct Case {
  std::string name;
  std::string kind;
  std::string offset;  // "-" when not recorded
  std::string options;
  std::string what;
  std::string data;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Case> load_manifest() {
  std::vector<Case> cases;
  std::ifstream in(kDir / "MANIFEST.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) fields.push_back(field);
    if (fields.size() != 5) {
      ADD_FAILURE() << "bad manifest line: " << line;
      continue;
    }
    Case c{fields[0], fields[1], fields[2], fields[3], fields[4], ""};
    c.data = read_file(kDir / (c.name + ".pickle"));
    cases.push_back(std::move(c));
  }
  return cases;
}

// Options are "key=value" pairs separated by commas; "-" is none. `buffers=N`
// hands the decoder N one-byte buffers.
DecodeOptions parse_options(const std::string& text, std::vector<BufferView>& buffers) {
  static const std::uint8_t kByte = 0;
  DecodeOptions o;
  if (text == "-") return o;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::size_t value = std::stoull(item.substr(eq + 1));
    if (key == "max_protocol") {
      o.max_protocol = static_cast<int>(value);
    } else if (key == "max_depth") {
      o.limits.max_depth = value;
    } else if (key == "max_memo") {
      o.limits.max_memo = value;
    } else if (key == "alloc_per_input_byte") {
      o.limits.alloc_per_input_byte = value;
    } else if (key == "alloc_constant") {
      o.limits.alloc_constant = value;
    } else if (key == "buffers") {
      buffers.assign(value, BufferView{&kByte, 1, true});
    } else {
      ADD_FAILURE() << "unknown option " << key;
    }
  }
  o.buffers = buffers;
  return o;
}

TEST(Malformed, ManifestMatchesFilesAndCoversEveryDecoderError) {
  const std::vector<Case> cases = load_manifest();
  EXPECT_GE(cases.size(), 40u);
  std::set<std::string> listed;
  std::set<std::string> kinds;
  for (const Case& c : cases) {
    EXPECT_TRUE(listed.insert(c.name).second) << "listed twice: " << c.name;
    kinds.insert(c.kind);
  }
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".pickle") continue;
    EXPECT_TRUE(listed.count(entry.path().stem().string()))
        << entry.path().filename() << " is not in MANIFEST.tsv";
  }
  // Every kind the decoder raises (trailing data is never an error of
  // decode(), and unpicklable is the encoder's).
  for (ErrorKind k :
       {ErrorKind::UnsupportedProtocol, ErrorKind::Truncated, ErrorKind::UnknownOpcode,
        ErrorKind::StackUnderflow, ErrorKind::MissingMark, ErrorKind::MissingMemo,
        ErrorKind::BadValue, ErrorKind::MissingBuffer, ErrorKind::LimitExceeded}) {
    EXPECT_TRUE(kinds.count(std::string(error_kind_name(k))))
        << "no malformed case for " << error_kind_name(k);
  }
}

TEST(Malformed, EveryCaseGetsItsError) {
  const std::vector<Case> cases = load_manifest();
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.what + ")");
    std::vector<BufferView> buffers;
    const DecodeOptions options = parse_options(c.options, buffers);
    Graph g;
    try {
      decode(c.data, g, options);
      ADD_FAILURE() << "decoded without error";
    } catch (const PickleError& e) {
      EXPECT_EQ(error_kind_name(e.kind()), c.kind) << e.what();
      if (c.offset != "-") {
        EXPECT_EQ(std::to_string(e.offset()), c.offset) << e.what();
      }
      EXPECT_FALSE(e.detail().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw something other than PickleError: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "threw something other than PickleError";
    }
  }
}

TEST(Malformed, DisassemblerStopsAtTheSameSpot) {
  // For errors of the stream's syntax, the disassembler reports the same
  // offset; for the rest (values of the wrong type, limits, options) it only
  // has to survive.
  const std::set<std::string> syntax = {"truncated", "unknown-opcode", "stack-underflow",
                                        "missing-mark", "missing-memo"};
  for (const Case& c : load_manifest()) {
    SCOPED_TRACE(c.name);
    Disassembly d;
    try {
      d = disassemble(std::span<const std::uint8_t>(
          reinterpret_cast<const std::uint8_t*>(c.data.data()), c.data.size()));
    } catch (...) {
      ADD_FAILURE() << "disassemble threw";
      continue;
    }
    EXPECT_FALSE(format_disassembly(d).empty());
    if (syntax.count(c.kind) && c.options == "-" && c.offset != "-") {
      EXPECT_FALSE(d.error.empty());
      EXPECT_EQ(std::to_string(d.error_offset), c.offset) << d.error;
    }
  }
}

TEST(Malformed, EveryPrefixOfAValidStreamIsTruncated) {
  // Valid streams that together use every argument kind.
  const std::string streams[] = {
      // protocol 0: INT, LONG, FLOAT, STRING, UNICODE, GLOBAL, PERSID, PUT, GET, INST
      "(lp0\nI1\naI01\naL12L\naF1.5\naS'a\\n'\naVb\\u20ac\nacm\nf\nap1\nPpid\nag1\na(im\nC\na."s,
      // protocol 2: BININT*, LONG1, LONG4, BINSTRING, BINUNICODE, BINFLOAT, EXT*, BINGET
      "\x80\x02]q\x00(K\x01M\x01\x02J\x01\x02\x03\x04\x8a\x01\x05\x8b\x01\x00\x00\x00\x05"
      "T\x01\x00\x00\x00"
      "aU\x01"
      "bX\x01\x00\x00\x00"
      "cG?\xf0\x00\x00\x00\x00\x00\x00"
      "\x82\x01\x83\x01\x01\x84\x01\x00\x00\x01h\x00j\x00\x00\x00\x00r\x02\x00\x00\x00"
      "e."s,
      // protocol 4 and 5: FRAME, SHORT_BINUNICODE, BINUNICODE8, BINBYTES8, BYTEARRAY8,
      // SHORT_BINBYTES, BINBYTES, STACK_GLOBAL, MEMOIZE
      "\x80\x05\x95\x37\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x01"
      "a\x8d\x01\x00\x00\x00\x00"
      "\x00\x00\x00"
      "b\x8e\x01\x00\x00\x00\x00\x00\x00\x00"
      "c\x96\x01\x00\x00\x00\x00\x00"
      "\x00\x00"
      "dC\x01"
      "eB\x01\x00\x00\x00"
      "f\x8c\x01m\x8c\x01n\x93\x94"
      "e."s,
  };
  for (const std::string& s : streams) {
    SCOPED_TRACE(s);
    Graph full;
    ASSERT_NO_THROW(decode(s, full));
    for (std::size_t n = 0; n < s.size(); ++n) {
      Graph g;
      try {
        decode(std::string_view(s).substr(0, n), g);
        ADD_FAILURE() << "prefix of " << n << " bytes decoded";
      } catch (const PickleError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Truncated) << "prefix of " << n << " bytes: " << e.what();
      } catch (...) {
        ADD_FAILURE() << "prefix of " << n << " bytes threw something other than PickleError";
      }
    }
  }
}

}  // namespace
}  // namespace serialcheck::pickle
