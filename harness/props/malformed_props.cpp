// loads.rejects-malformed (docs/conformance.md): streams CPython's loader
// rejects, the subject rejects too, with an error: never a value, a crash,
// a hang or unbounded memory. The streams are mutations of the reference's
// encoding of the case's value: a fixed list, each breaking one rule of the
// format, and one per (mutation, opcode) pair of the format's grammar
// (harness/gen/malformed.h); and the streams kept as files (corpus/malformed,
// the fuzz targets' finds, a user's directories: harness/gen/stream_files.h)
// that declare the case's protocol. So a case alone (value and protocol)
// says which streams it tried, and a saved case replays exactly.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "harness/gen/malformed.h"
#include "harness/gen/stream_files.h"
#include "harness/props/fingerprint.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "reference/pickle/encoder.h"

namespace serialcheck::props {
namespace {

using gen::MalformedStream;

MalformedStream fixed(std::string name, std::string bytes) {
  MalformedStream m;
  m.mutation = std::move(name);
  m.bytes = std::move(bytes);
  return m;
}

// `bytes` with `insert` placed just before the final STOP.
std::string before_stop(const std::string& bytes, std::string_view insert) {
  if (bytes.empty() || bytes.back() != '.') return bytes + std::string(insert);
  return bytes.substr(0, bytes.size() - 1) + std::string(insert) + ".";
}

// The mutations of one valid stream. Each breaks a different rule of the
// format: where the stream ends, which opcodes exist, marks, pairs, the
// memo, lengths and the protocol number; then `files`, the streams kept as
// files for this case. A stream made twice is tried once.
std::vector<MalformedStream> mutations(const std::string& valid, int protocol,
                                       std::vector<MalformedStream> files) {
  std::vector<MalformedStream> out;
  out.push_back(fixed("empty", ""));
  out.push_back(fixed("truncated-no-stop", valid.substr(0, valid.size() - 1)));
  if (valid.size() > 4) out.push_back(fixed("truncated-half", valid.substr(0, valid.size() / 2)));
  out.push_back(fixed("unknown-opcode", before_stop(valid, "\xff")));
  out.push_back(fixed("stop-on-empty-stack", protocol >= 2 ? valid.substr(0, 2) + "." : "."));
  out.push_back(fixed("unbalanced-mark", before_stop(valid, "(")));
  out.push_back(fixed("pop-mark-without-mark", before_stop(valid, "1")));
  // An empty dict, a mark and one item: SETITEMS with an odd count.
  out.push_back(fixed("odd-setitems", before_stop(valid, "}(Nu")));
  // A memo index nothing was stored at.
  out.push_back(
      fixed("missing-memo", before_stop(valid, protocol >= 1 ? std::string("j\xff\xff\xff\x7f", 5)
                                                             : std::string("g2147483647\n"))));
  // BINUNICODE claiming 1000 bytes where 2 follow.
  out.push_back(
      fixed("length-past-end", valid.substr(0, valid.size() - 1) + std::string("X\xe8\x03\x00\x00"
                                                                               "ab",
                                                                               7)));
  // Text that is not UTF-8, where a reader must validate before it decodes
  // (CPython allows only surrogates, with "surrogatepass"): a byte that never
  // starts a character, an overlong NUL (modified UTF-8's), a sequence cut
  // short; and, in protocol 0's raw-unicode-escape text, an escape cut short.
  // A reader that decodes with replacement characters returns text for them.
  out.push_back(fixed("utf8-invalid-byte", before_stop(valid, std::string("X\x02\x00\x00\x00"
                                                                          "a\xff",
                                                                          7))));
  out.push_back(
      fixed("utf8-overlong", before_stop(valid, std::string("X\x02\x00\x00\x00\xc0\x80", 7))));
  out.push_back(fixed("utf8-truncated", before_stop(valid, std::string("X\x03\x00\x00\x00"
                                                                       "a\xe2\x82",
                                                                       8))));
  out.push_back(fixed("unicode-bad-escape", before_stop(valid, "V\\u12\n")));
  if (protocol >= 2 && valid.size() > 2) {
    std::string higher = valid;
    higher[1] = 6;
    out.push_back(fixed("protocol-above-5", higher));
  }
  // Then the grammar's: every kind of instruction in the stream, each
  // mutation once. A stream made twice is tried once, under its first name.
  std::set<std::string> seen;
  for (const MalformedStream& m : out) seen.insert(m.bytes);
  for (MalformedStream& m : gen::grammar_mutations(valid)) {
    if (seen.insert(m.bytes).second) out.push_back(std::move(m));
  }
  // Then the streams kept as files, likewise once each.
  for (MalformedStream& m : files) {
    if (seen.insert(m.bytes).second) out.push_back(std::move(m));
  }
  return out;
}

// Errors that say the stream is malformed, as opposed to a name that does
// not resolve or a callable that refuses its arguments (which a reader
// that never imports anything has no reason to reject). Two errors of
// those kinds come from the loading process, not the stream, and do not
// count either: an extension code missing from copyreg's registry (which
// is the process's to fill, as the modules it can import are), and an INT
// or LONG past the interpreter's limit on digits (sys.set_int_max_str_digits:
// a setting, absent before CPython 3.11, 3.10.7 and 3.9.14).
bool format_error(const LoadAttempt& oracle) {
  static const std::array<std::string_view, 8> kinds = {
      "UnpicklingError", "EOFError",      "ValueError",  "KeyError",
      "IndexError",      "OverflowError", "MemoryError", "UnicodeDecodeError"};
  if (std::find(kinds.begin(), kinds.end(), oracle.kind) == kinds.end()) return false;
  if (oracle.kind == "ValueError" &&
      (oracle.message.starts_with("unregistered extension code") ||
       oracle.message.find("for integer string conversion") != std::string::npos))
    return false;
  return true;
}

// The rule of the format a stream broke, as CPython's loader names it:
// its error message with the varying parts taken out ("pickle data was
// truncated" -> pickle-data-was-truncated, "unexpected MARK found" ->
// unexpected-mark-found), and for text that does not decode, the codec
// ("not-utf-8", "not-rawunicodeescape"). This, not the mutation that made
// the stream, is what a fingerprint holds: one defect of a reader (it never
// checks a FRAME's length) is met by many mutations (a FRAME's length
// changed, any instruction deleted from a frame...), and is one line of
// the known-failures file.
std::string broken_rule(const LoadAttempt& oracle) {
  if (oracle.kind == "UnicodeDecodeError") {
    const std::size_t open = oracle.message.find('\'');
    const std::size_t close =
        open == std::string::npos ? open : oracle.message.find('\'', open + 1);
    if (close != std::string::npos)
      return "not-" + oracle.message.substr(open + 1, close - open - 1);
    return "not-text";
  }
  // "NEWOBJ args argument must be a tuple, not bytes": the type after
  // "not" is whatever the stream happened to hold there, not the rule.
  std::string message = oracle.message;
  const std::size_t must = message.find(" must be ");
  const std::size_t not_type = message.rfind(", not ");
  if (must != std::string::npos && not_type != std::string::npos && not_type > must)
    message.erase(not_type);
  std::string rule = message_shape(message);
  return rule.empty() ? message_shape(oracle.kind) : rule;
}

// Memo indexes above this are not put to CPython (gen::stores_memo_beyond).
constexpr std::uint64_t kLargestMemoIndex = std::uint64_t{1} << 20;

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
  // Shared and cyclic values, so that streams read the memo (GET, BINGET,
  // LONG_BINGET) and the grammar's mutations reach it.
  a.plan.graph_shaped = true;
  a.plan.min_protocol = caps.read_min();
  a.plan.max_protocol = caps.read_max();
  a.plan.out_of_band = false;
  return a;
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
  // The files whose declared protocol is this case's (or, past the
  // subject's protocols, the nearest it reads): each file is tried at one
  // protocol, and every case of that protocol tries it.
  const Capabilities caps = subject.capabilities();
  std::vector<MalformedStream> files;
  for (const gen::StreamFile& f : gen::stream_files()) {
    if (std::clamp(f.protocol, caps.read_min(), caps.read_max()) != c.protocol) continue;
    MalformedStream m;
    m.mutation = "file";
    m.detail = f.what.empty() ? f.name : f.name + ": " + f.what;
    m.bytes = f.bytes;
    files.push_back(std::move(m));
  }
  std::vector<MalformedStream> candidates = mutations(valid, c.protocol, std::move(files));
  std::erase_if(candidates, [](const MalformedStream& m) {
    return gen::stores_memo_beyond(m.bytes, kLargestMemoIndex);
  });
  // CPython with every global inert: a stream it rejects is rejected for
  // its form, not for what a call did with arguments a mutation changed.
  LoadOptions classify;
  classify.inert_globals = true;
  std::vector<std::string> streams;
  for (const MalformedStream& m : candidates) streams.push_back(m.bytes);
  const std::vector<LoadAttempt> oracle_says = oracle->try_loads(streams, c.protocol, classify);
  std::vector<std::size_t> must_reject;
  streams.clear();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const LoadAttempt& o = oracle_says[i];
    if (o.loaded || !format_error(o)) continue;  // not malformed by CPython's rules
    must_reject.push_back(i);
    streams.push_back(candidates[i].bytes);
  }
  const int tried = static_cast<int>(must_reject.size());
  std::vector<LoadAttempt> subject_says;
  try {
    subject_says = subject.try_loads(streams, c.protocol, LoadOptions{});
  } catch (const SubjectError& e) {
    return exception_outcome(e, "try-loads");  // a testee's malformed answer
  }
  // The first failure whose fingerprint the known-failures file does not
  // list for this cell; a case whose failures are all listed passes, and
  // their saved cases confirm them (PropertyEnv::listed). A replayed case
  // reports the failure it was saved with when it still fails that way.
  UnlistedFailure pick(env);
  for (std::size_t k = 0; k < must_reject.size(); ++k) {
    const MalformedStream& bad = candidates[must_reject[k]];
    const LoadAttempt& o = oracle_says[must_reject[k]];
    const LoadAttempt& a = subject_says[k];
    if (!a.loaded && !testee_misbehaved(a.kind))
      continue;  // rejected with an error: what is wanted
    const std::string cpython = o.kind + ": " + o.message;
    const std::string what = bad.detail.empty() ? bad.name() : bad.detail;
    const std::string rule = broken_rule(o);
    Outcome out;
    if (a.loaded) {
      out =
          Outcome::fail("malformed:accepted@" + rule,
                        fmt::format("loads returned a value for a stream CPython rejects ({}; {})",
                                    cpython, what));
    } else {
      out = exception_outcome(SubjectError(a.kind, a.message, a.detail), "loads-" + rule);
      out.message =
          fmt::format("on a stream CPython rejects ({}; {}): {}", cpython, what, out.message);
    }
    out.failing_message = message_to_json(plain_pickle_message(bad.bytes, c.protocol));
    if (pick.take(out)) return out;
  }
  if (std::optional<Outcome> first = pick.first()) return *first;
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
               "malformed:accepted@not-utf-8"),
       control("reads-float-overflow-as-infinity",
               "reads a FLOAT too large for a double as infinity (as pickle.py does); only a "
               "stream kept as a file has one",
               "malformed:accepted@value-too-large-to-convert-to-float"),
       control("ignores-frame-length",
               "reads a FRAME's contents up to STOP whatever its length says (as pickle.py does)",
               "malformed:accepted@pickle-data-was-truncated")});
}

}  // namespace serialcheck::props
