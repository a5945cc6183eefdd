#include "reference/types/pickle_codec.h"

#include <stdexcept>

namespace serialcheck::types {

namespace {

// Constant-initialized, so it is set before any dynamic initializer runs.
PickleCodec installed;

}  // namespace

void set_pickle_codec(const PickleCodec& codec) {
  installed = codec;
}

const PickleCodec& pickle_codec() {
  if (installed.dumps == nullptr || installed.load_front == nullptr ||
      installed.unpicklable == nullptr) {
    throw std::logic_error(
        "serialcheck: the domain types have no pickle codec (link the pickle library)");
  }
  return installed;
}

void refuse_pickling(const std::string& detail) {
  pickle_codec().unpicklable(detail);
  throw std::logic_error("serialcheck: the pickle codec's unpicklable() returned");
}

}  // namespace serialcheck::types
