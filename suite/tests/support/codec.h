// Test support: the codec in one call each, as tests use it. encode_at and
// decode_into throw what the encoder and decoder throw (pickle::PickleError).
#pragma once

#include <string>
#include <string_view>

#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/value/equal.h"
#include "reference/value/value.h"

namespace serialcheck::test_support {

// The pickle of `v` at `protocol`, everything in band.
std::string encode_at(const Node* v, int protocol);

// The root of `bytes` decoded into `g`.
Node* decode_into(std::string_view bytes, Graph& g, const pickle::DecodeOptions& options = {});

// "" when a and b are equal; else "<path>: <reason>" of the first difference.
std::string why_unequal(const Node* a, const Node* b, const EqualOptions& options = {});

}  // namespace serialcheck::test_support
