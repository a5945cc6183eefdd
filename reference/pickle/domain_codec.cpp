// Hands the pickle codec to the domain types below it
// (reference/types/pickle_codec.h) when the program starts. Nothing calls
// into this file, so reference/pickle/CMakeLists.txt has the linker keep it
// by its one exported name, serialcheck_pickle_domain_codec.
#include <optional>
#include <string>
#include <string_view>

#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/pickle_codec.h"

namespace serialcheck::pickle {

namespace {

std::string dumps(const Node* root, int protocol) {
  EncodeOptions options;
  options.protocol = protocol;
  return encode(root, options).bytes;
}

std::optional<types::LoadedPickle> load_front(std::string_view bytes, Graph& graph) {
  try {
    DecodeResult r = decode(bytes, graph);
    return types::LoadedPickle{r.root, r.consumed};
  } catch (const PickleError&) {
    return std::nullopt;
  }
}

void unpicklable(const std::string& detail) {
  throw PickleError(ErrorKind::Unpicklable, 0, detail);
}

}  // namespace

}  // namespace serialcheck::pickle

extern "C" {
// The name the linker is told to keep (see the comment at the top).
extern const bool serialcheck_pickle_domain_codec;
const bool serialcheck_pickle_domain_codec = [] {
  serialcheck::types::set_pickle_codec({serialcheck::pickle::dumps, serialcheck::pickle::load_front,
                                        serialcheck::pickle::unpicklable});
  return true;
}();
}
