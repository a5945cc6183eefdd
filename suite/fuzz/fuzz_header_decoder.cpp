// libFuzzer target: decoding a message header (msgpack) from arbitrary
// bytes. A FrameError is the only allowed failure. What decodes must print as
// JSON (strings are valid UTF-8, as header.h promises), encode again, and
// decode to the same tree.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "reference/frames/errors.h"
#include "reference/frames/header.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "serialcheck-fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json header;
  try {
    header = serialcheck::decode_header(std::span<const std::uint8_t>(data, size));
  } catch (const serialcheck::FrameError&) {
    return 0;
  } catch (const std::exception& e) {
    finding(std::string("decode: threw something other than FrameError: ") + e.what());
  }
  // Compared as printed JSON: NaN never equals itself as a json value, and
  // print it does the same way on both sides.
  std::string printed;
  try {
    printed = header.dump();
  } catch (const std::exception& e) {
    finding(std::string("dump: the decoded header does not print: ") + e.what());
  }
  std::string encoded;
  try {
    encoded = serialcheck::encode_header(header);
  } catch (const std::exception& e) {
    finding(std::string("encode: a decoded header does not encode: ") + e.what());
  }
  try {
    const nlohmann::json again = serialcheck::decode_header(bytes_of(encoded));
    if (again.dump() != printed) finding("roundtrip: the header differs after encode and decode");
  } catch (const std::exception& e) {
    finding(std::string("roundtrip: the encoded header does not decode: ") + e.what());
  }
  return 0;
}
