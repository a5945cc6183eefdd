// Test support: a decode that reports its result instead of throwing, for
// the safe-loading tests (policy_test.cpp, policy_python_test.cpp) that
// check where and why a pickle is refused under an allowlist. Nothing here
// throws except std::bad_alloc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "reference/pickle/decoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/policy.h"
#include "reference/value/value.h"

namespace serialcheck::test_support {

// The decoded root (ok), or the refusal's kind, byte offset and detail.
struct DecodeOutcome {
  bool ok = false;
  pickle::ErrorKind kind = pickle::ErrorKind::BadValue;
  std::size_t offset = 0;
  std::string detail;
  const Node* root = nullptr;

  // The refusal as the error the decoder threw (for is_pickle_error in
  // errors.h); nullopt when it decoded.
  std::optional<pickle::PickleError> error() const {
    if (ok) return std::nullopt;
    return pickle::PickleError(kind, offset, detail);
  }
};

// `data` decoded into `g` under `list` (nullptr: no allowlist), with stand-in
// buffers for out-of-band ones.
inline DecodeOutcome decode_under(std::string_view data, const pickle::Allowlist* list, Graph& g,
                                  bool fix_imports = true) {
  pickle::DecodeOptions options;
  options.allowlist = list;
  options.fix_imports = fix_imports;
  options.stand_in_buffers = true;
  DecodeOutcome o;
  try {
    o.root = pickle::decode(data, g, options).root;
    o.ok = true;
  } catch (const pickle::PickleError& e) {
    o.kind = e.kind();
    o.offset = e.offset();
    o.detail = e.detail();
  }
  return o;
}

}  // namespace serialcheck::test_support
