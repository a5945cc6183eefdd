// Runs the pickle fuzz property once per file, saying how far each got, for
// scripts/fuzz to file a finding in the right place. Prints per file:
//   decode-error<TAB>kind<TAB>offset<TAB>detail   the decoder refused it
//   decoded                                       then the round trip runs
//   roundtrip-ok
// A finding aborts after the "serialcheck-fuzz: " line (pickle_check.h), so
// the last line printed tells the stage that failed.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <span>
#include <string>

#include "suite/fuzz/pickle_check.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pickle_triage FILE...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "pickle_triage: cannot read %s\n", argv[i]);
      return 2;
    }
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    serialcheck::Graph graph;
    const auto outcome = serialcheck::fuzz::decode_or_refuse(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(data.data()),
                                      data.size()),
        graph);
    if (outcome.error) {
      std::printf("decode-error\t%s\n", outcome.error->c_str());
      std::fflush(stdout);
      continue;
    }
    std::printf("decoded\n");
    std::fflush(stdout);
    serialcheck::fuzz::check_roundtrip(graph);
    std::printf("roundtrip-ok\n");
    std::fflush(stdout);
  }
  return 0;
}
