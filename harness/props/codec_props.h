// The codec properties of docs/conformance.md as plain functions over the
// reference pickle codec. Each takes one input (a value, or bytes), runs the
// check and returns a CheckResult; none throws. The GoogleTest suite feeds them
// generated inputs, and the `serialcheck run` gate can feed them corpus
// cases, so both share one definition of every property.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "reference/value/value.h"

namespace serialcheck::props {

// What one check of a property on one input found. Expected-fail and
// unexpected-pass are not decided here: the runner derives them from a
// Fail or Pass and its known-failures list.
struct CheckResult {
  enum class Verdict { Pass, Fail, Skip };
  Verdict verdict = Verdict::Pass;
  std::string message;  // Fail: what went wrong. Skip: why the input does not apply.

  static CheckResult pass() { return {}; }
  static CheckResult fail(std::string why) { return {Verdict::Fail, std::move(why)}; }
  static CheckResult skip(std::string why) { return {Verdict::Skip, std::move(why)}; }
  bool failed() const { return verdict == Verdict::Fail; }
  bool skipped() const { return verdict == Verdict::Skip; }
};

// roundtrip.equal: decode(encode(value, protocol)) equals value, identity
// included. PickleBuffers are written in band and must read back as bytes
// (readonly) or bytearray (writable); below protocol 5 encoding a value
// holding one must fail with ErrorKind::Unpicklable.
CheckResult roundtrip_equal(const Node* value, int protocol);

// roundtrip.equal with out-of-band buffers (protocol 5): every PickleBuffer
// goes out of band, the decoder gets them back as BufferViews of the original
// nodes' memory, the result equals value, and each decoded PickleBuffer
// borrows exactly the original's memory (zero copy).
CheckResult roundtrip_equal_out_of_band(const Node* value);

// roundtrip.reencode: encode(decode(encode(value))) gives the same bytes as
// encode(value), at the same protocol (and the same out-of-band buffers).
// Skips a value holding a PickleBuffer below protocol 5.
CheckResult roundtrip_reencode(const Node* value, int protocol, bool out_of_band = false);

// roundtrip.identity: for a value with sharing or a cycle (skipped
// otherwise; shared singletons alone do not count), the decoded value has as
// many reachable non-atom nodes, as many shared nodes, as many shared
// singletons, a cycle exactly when the original has one, and is equal to it.
CheckResult roundtrip_identity(const Node* value, int protocol);

// decode.total: decoding `data` (with two out-of-band buffers on offer)
// returns a well-formed value or throws a PickleError whose offset lies
// within the input; any other exception is a failure.
CheckResult decode_total(std::span<const std::uint8_t> data);
CheckResult decode_total(std::string_view data);

// protocol.mismatch: the encoding of value at stream_protocol (2..5) given
// to a decoder with max_protocol = loader_protocol (< stream_protocol)
// throws UnsupportedProtocolError with found() == stream_protocol,
// max() == loader_protocol, offset 0, and a message naming both numbers.
CheckResult protocol_mismatch(const Node* value, int stream_protocol, int loader_protocol);

}  // namespace serialcheck::props
