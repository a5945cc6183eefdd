// loads.rejects-malformed (docs/conformance.md): streams CPython's loader
// rejects, the subject rejects too, with an error: never a value, a crash,
// a hang or unbounded memory. The streams are fixed mutations of the
// reference's encoding of the case's value, so a case alone (value and
// protocol) says which streams it tried, and a saved case replays exactly.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "reference/pickle/encoder.h"

namespace serialcheck::props {
namespace {

struct Malformed {
  std::string name;  // stable: part of the failure's fingerprint
  std::string bytes;
};

// `bytes` with `insert` placed just before the final STOP.
std::string before_stop(const std::string& bytes, std::string_view insert) {
  if (bytes.empty() || bytes.back() != '.') return bytes + std::string(insert);
  return bytes.substr(0, bytes.size() - 1) + std::string(insert) + ".";
}

// The mutations of one valid stream. Each breaks a different rule of the
// format: where the stream ends, which opcodes exist, marks, pairs, the
// memo, lengths and the protocol number.
std::vector<Malformed> mutations(const std::string& valid, int protocol) {
  std::vector<Malformed> out;
  out.push_back({"empty", ""});
  out.push_back({"truncated-no-stop", valid.substr(0, valid.size() - 1)});
  if (valid.size() > 4) out.push_back({"truncated-half", valid.substr(0, valid.size() / 2)});
  out.push_back({"unknown-opcode", before_stop(valid, "\xff")});
  out.push_back({"stop-on-empty-stack", protocol >= 2 ? valid.substr(0, 2) + "." : "."});
  out.push_back({"unbalanced-mark", before_stop(valid, "(")});
  out.push_back({"pop-mark-without-mark", before_stop(valid, "1")});
  // An empty dict, a mark and one item: SETITEMS with an odd count.
  out.push_back({"odd-setitems", before_stop(valid, "}(Nu")});
  // A memo index nothing was stored at.
  out.push_back(
      {"missing-memo", before_stop(valid, protocol >= 1 ? std::string("j\xff\xff\xff\x7f", 5)
                                                        : std::string("g2147483647\n"))});
  // BINUNICODE claiming 1000 bytes where 2 follow.
  out.push_back(
      {"length-past-end", valid.substr(0, valid.size() - 1) + std::string("X\xe8\x03\x00\x00"
                                                                          "ab",
                                                                          7)});
  // Text that is not UTF-8, where a reader must validate before it decodes
  // (CPython allows only surrogates, with "surrogatepass"): a byte that never
  // starts a character, an overlong NUL (modified UTF-8's), a sequence cut
  // short; and, in protocol 0's raw-unicode-escape text, an escape cut short.
  // A reader that decodes with replacement characters returns text for them.
  out.push_back(
      {"utf8-invalid-byte", before_stop(valid, std::string("X\x02\x00\x00\x00a\xff", 7))});
  out.push_back({"utf8-overlong", before_stop(valid, std::string("X\x02\x00\x00\x00\xc0\x80", 7))});
  out.push_back(
      {"utf8-truncated", before_stop(valid, std::string("X\x03\x00\x00\x00a\xe2\x82", 8))});
  out.push_back({"unicode-bad-escape", before_stop(valid, "V\\u12\n")});
  if (protocol >= 2 && valid.size() > 2) {
    std::string higher = valid;
    higher[1] = 6;
    out.push_back({"protocol-above-5", higher});
  }
  return out;
}

// Errors that say the stream is malformed, as opposed to a name that does
// not resolve or a callable that refuses its arguments (which a reader
// that never imports anything has no reason to reject).
bool format_error(const std::string& kind) {
  static const std::array<std::string_view, 8> kinds = {
      "UnpicklingError", "EOFError",      "ValueError",  "KeyError",
      "IndexError",      "OverflowError", "MemoryError", "UnicodeDecodeError"};
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool misbehaved(const std::string& kind) {
  return kind == "testee-crash" || kind == "testee-timeout" || kind == "testee-protocol";
}

Applicability malformed_applies(Subject& subject, PropertyEnv& env) {
  Applicability a;
  std::string why;
  Subject* oracle = env.subject(kOracle, &why);
  if (oracle == nullptr)
    return skip("needs the cpython subject to say which streams CPython rejects: " + why);
  if (oracle == &subject) return skip(kIsTheOracle);
  Capabilities caps = subject.capabilities();
  if (!caps.pickle_format) return skip(kNoPickleFormat);
  a.plan.python_safe = true;
  a.plan.graph_shaped = false;
  a.plan.min_protocol = caps.read_min();
  a.plan.max_protocol = caps.read_max();
  a.plan.out_of_band = false;
  return a;
}

Message plain_message(std::string bytes, int protocol) {
  Message m;
  m.header = {
      {"serializer", "pickle"}, {"protocol", protocol}, {"writeable", nlohmann::json::array()}};
  m.frames.push_back(Frame::owned(std::move(bytes), true));
  return m;
}

Outcome rejects_malformed(Subject& subject, const TestCase& c, PropertyEnv& env) {
  Subject* oracle = env.subject(kOracle, nullptr);
  if (oracle == nullptr) return Outcome::discard("the cpython subject is not available");
  pickle::EncodeOptions options;
  options.protocol = c.protocol;
  std::string valid;
  try {
    valid = pickle::encode(c.value, options).bytes;
  } catch (const std::exception&) {
    return Outcome::discard("the reference cannot pickle this value at this protocol");
  }
  int tried = 0;
  for (Malformed& bad : mutations(valid, c.protocol)) {
    Message m = plain_message(std::move(bad.bytes), c.protocol);
    LoadOptions lo;
    std::string oracle_kind;
    try {
      Graph g;
      oracle->loads(m, g, lo);
      continue;  // CPython accepts it: not malformed by CPython's rules
    } catch (const std::exception& e) {
      oracle_kind = error_kind(e);
    }
    if (!format_error(oracle_kind)) continue;
    ++tried;
    try {
      Graph g;
      subject.loads(m, g, lo);
    } catch (const std::exception& e) {
      std::string kind = error_kind(e);
      if (!misbehaved(kind)) continue;  // rejected with an error: what the property wants
      Outcome o = exception_outcome(e, "loads-" + bad.name);
      o.message = fmt::format("on a stream CPython rejects with {} ({}): {}", oracle_kind, bad.name,
                              o.message);
      o.failing_message = message_to_json(m);
      return o;
    }
    Outcome o = Outcome::fail(
        "malformed:accepted@" + bad.name,
        fmt::format("loads returned a value for a stream CPython rejects with {} ({})", oracle_kind,
                    bad.name));
    o.failing_message = message_to_json(m);
    return o;
  }
  if (tried == 0) return Outcome::discard("CPython accepted every mutation of this stream");
  return Outcome::pass();
}

}  // namespace

void add_malformed_properties(Registry& out) {
  GateProperty p{"loads.rejects-malformed",
                 "streams CPython's loader rejects, the subject rejects with an error",
                 malformed_applies, rejects_malformed};
  p.needs_dumps = false;
  add(out, 70, std::move(p),
      {control("accepts-anything", "returns None for a stream it cannot decode instead of raising",
               "malformed:accepted@"),
       control("skips-utf8-validation",
               "decodes text that is not UTF-8 with replacement characters instead of raising",
               "malformed:accepted@utf8-")});
}

}  // namespace serialcheck::props
