// Generators of byte streams for the decoder's totality property: random
// bytes, "opcode soup" (real opcodes with plausible or broken arguments),
// and real encodings of generated values with a few bytes flipped, set,
// inserted, deleted or cut off.
#pragma once

#include <rapidcheck.h>

#include <ostream>
#include <string>

#include "harness/gen/config.h"

namespace serialcheck::gen {

struct ByteStream {
  std::string bytes;
  std::string origin;  // how it was made, for the counterexample
};

// Uniformly random bytes.
rc::Gen<ByteStream> randomBytes();

// Optionally a PROTO opcode, then opcodes from the opcode table each with an
// argument of its layout (small lengths and memo keys, text lines, now and
// then random bytes), usually ending in STOP.
rc::Gen<ByteStream> opcodeSoup();

// The encoding of a value generated under `config` at a random protocol,
// with one to four mutations applied.
rc::Gen<ByteStream> mutatedEncoding(const GenConfig& config);

// Any of the three.
rc::Gen<ByteStream> hostileStream(const GenConfig& config);

// The origin, then the bytes in hex.
void showValue(const ByteStream& stream, std::ostream& os);

}  // namespace serialcheck::gen
