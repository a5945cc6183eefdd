// libFuzzer target: the reference pickle decoder on arbitrary bytes, and the
// decode -> encode at every protocol -> decode round trip of whatever it
// accepts (pickle_check.h says what counts as a finding).
#include <cstddef>
#include <cstdint>
#include <span>

#include "suite/fuzz/pickle_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  serialcheck::Graph graph;
  const serialcheck::fuzz::DecodeOutcome outcome =
      serialcheck::fuzz::decode_or_refuse(std::span<const std::uint8_t>(data, size), graph);
  if (!outcome.error) serialcheck::fuzz::check_roundtrip(graph);
  return 0;
}
