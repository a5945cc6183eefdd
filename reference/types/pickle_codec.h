// What the domain types need from the pickle codec, which is built on them:
// reference/pickle/ includes types/, never the other way round. torch's
// legacy storage (tensor.cpp) is itself a stream of pickles, and a domain
// value that has no pickle form is refused with the encoder's own error.
//
// reference/pickle/domain_codec.cpp hands the codec in at start-up; its
// CMakeLists.txt keeps that file in every program that links the pickle
// library. pickle_codec() throws std::logic_error when no codec was handed
// in (a program that links the domain types without the pickle codec).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "reference/value/value.h"

namespace serialcheck::types {

// One pickle read from the front of a stream.
struct LoadedPickle {
  const Node* root = nullptr;
  std::size_t consumed = 0;  // bytes up to and including its STOP
};

struct PickleCodec {
  // pickle.dumps(root, protocol): the encoder's bytes, with no buffer callback.
  std::string (*dumps)(const Node* root, int protocol) = nullptr;
  // The pickle at the front of `bytes`, decoded into `graph` with the
  // decoder's default options; nullopt when the decoder refuses it.
  std::optional<LoadedPickle> (*load_front)(std::string_view bytes, Graph& graph) = nullptr;
  // Throws the encoder's error for a value that has no pickle form
  // (PickleError, kind unpicklable, no offset); never returns.
  void (*unpicklable)(const std::string& detail) = nullptr;
};

void set_pickle_codec(const PickleCodec& codec);
const PickleCodec& pickle_codec();

// Refuses to pickle a domain value: throws through PickleCodec::unpicklable.
[[noreturn]] void refuse_pickling(const std::string& detail);

}  // namespace serialcheck::types
