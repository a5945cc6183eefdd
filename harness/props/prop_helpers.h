// Steps the gate properties share: dumping and loading with failures turned
// into outcomes whose fingerprints name the stage, and value comparison that
// knows when a value went through Python. Internal to harness/props.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/case.h"
#include "harness/props/gate_props.h"
#include "harness/props/value_tools.h"
#include "harness/subjects/subject.h"
#include "reference/value/equal.h"

namespace serialcheck::props {

// The helper subjects properties consult through PropertyEnv::subject.
inline constexpr const char* kOracle = "cpython";
inline constexpr const char* kReference = "reference";

// Why a property that reads frame 0 as a plain pickle skips a subject.
inline constexpr const char* kNoPickleFormat =
    "frame 0 is not a plain pickle stream (no pickle_format)";

// Why a property whose oracle is the cpython subject skips that subject.
inline constexpr const char* kIsTheOracle = "the cpython subject is the oracle of this property";

// The applicability of a property that skips the subject for `reason`.
Applicability skip(std::string reason);

// "3.7" of a Capabilities::python_version ("3.7.16", "3.7"); empty for "".
std::string minor_version(const std::string& python_version);

// The reference subject that writes as CPython `python_version`'s C pickler:
// "reference" for 3.11 (and for an empty version), "reference@3.7" for 3.7;
// empty when no target covers the version (reference/pickle/target.h).
std::string reference_at(const std::string& python_version);

// Which getattr calls of a value decoded from a pickle below protocol 4 to
// read as the nested globals they stand for (value_tools.h) before the
// reference writes it again as CPython `python_version` did: in class
// positions only, except for 3.13 and later, whose C pickler writes every
// nested name as a getattr chain of its own (docs/versions.md).
GetattrScope nested_name_scope(const std::string& python_version);

// The kind of a failure: SubjectError::kind(), else "internal".
std::string error_kind(const std::exception& e);

// "exception:<kind>@<stage>" with the exception's text as the message.
Outcome exception_outcome(const std::exception& e, std::string_view stage);

// Dumps c.value with c's protocol and out-of-band choice. On failure sets
// `failed` and returns nullopt. A value the subject cannot express (a kind
// its capabilities do not list, or a SubjectError of kind "unsupported")
// sets a discard instead of a failure.
std::optional<Message> dumps_step(Subject& subject, const TestCase& c, std::string_view stage,
                                  Outcome& failed);

// The subject's own range: its protocols and out-of-band choice, and
// python_safe values where its values pass through Python.
CasePlan subject_plan(const Capabilities& caps);

// Loads `m` into `graph` with the loader limit `max_protocol`. On failure
// sets `failed` (with the message attached) and returns nullptr; an
// "unsupported" SubjectError sets a discard.
Node* loads_step(Subject& subject, const Message& m, Graph& graph, int max_protocol,
                 std::string_view stage, Outcome& failed);

// equal_under() with globals by name, or with immutables free of identity
// when the value went through Python (value_tools.h); a PickleBuffer counts
// as the bytes or bytearray it holds, since whether it travels in band (and
// comes back as bytes) or out of band is the subject's choice.
// `options`: e.g. tensor_layout false where a tensor travels as its numpy view.
// `lost`: distinctions one side cannot express (Capabilities::cannot_express
// of the subjects involved, see fidelity()), erased from both values first;
// "sharing" among them exempts immutable sharing as through_python does.
bool same_value(const Node* a, const Node* b, bool through_python, Difference* why,
                const EqualOptions& options = {}, const std::vector<std::string>& lost = {});

// The distinctions lost by any of the subjects a comparison involves.
std::vector<std::string> fidelity(const Subject& a, const Subject* b = nullptr);

// Whether the value holds a numpy array that is neither C- nor
// F-contiguous, which numpy pickles with _reconstruct even at protocol 5.
// Any reader, numpy included, gets a contiguous array back, which numpy
// writes at protocol 5 with _frombuffer: read and written again, such a
// stream changes form (corpus/golden-ndarray's "reencoded" files).
bool holds_strided_array(const Node* value);
inline constexpr const char* kStridedArrayAt5 =
    "an array neither C- nor F-contiguous at protocol 5: numpy reads it back contiguous and "
    "writes that in another form (_frombuffer for _reconstruct), so no reader writes the "
    "stream again";

// Whether the subject takes and returns values of the kind ("ndarray",
// "tensor"): `caps.kinds` lists it, or is empty (every kind).
bool takes_kind(const Capabilities& caps, std::string_view kind);

// The first kind of the value that `caps.kinds` does not list (by
// kind_name()), or empty when the subject can express every kind in it.
std::string inexpressible_kind(const Capabilities& caps, const Node* value);

// A failed outcome for values that differ: "mismatch:<category>[@stage]".
// Of the failures one case shows, the one to report, for a property that
// looks past the failures the known-failures file lists for the cell
// (PropertyEnv::listed): offer each failure in turn to take(); when it
// answers true, report that one. A listed failure is passed over; in a
// replay (PropertyEnv::replaying), the failure the case was saved with is
// reported when it shows, else the first that showed (first()).
class UnlistedFailure {
 public:
  explicit UnlistedFailure(const PropertyEnv& env) : env_(env) {}
  bool take(Outcome& o);
  std::optional<Outcome> first() { return std::move(first_); }

 private:
  const PropertyEnv& env_;
  std::optional<Outcome> first_;
};

Outcome mismatch_outcome(const Difference& d, std::string_view stage, const Node* expected,
                         const Node* actual, std::string_view expected_name,
                         std::string_view actual_name);

// The same message with every frame copied into memory it owns (writable).
Message owned_copy(const Message& m);

// The message frame 0 is a plain pickle of: the header reduced to what a
// pickle loader reads ({"serializer": "pickle", "protocol", "writeable"}).
Message as_pickle_message(const Message& m, int protocol);

// FNV-1a over the header text and every frame's bytes.
std::uint64_t message_hash(const Message& m);

// True when `text` contains `number` as a whole decimal number.
bool names_number(std::string_view text, int number);

// Whether a value that `subject` loads or dumps passes through Python.
bool through_python(const Subject& subject);

// Whether a dict or set of the value holds a str key and an ASCII bytes key
// with the same text: Python 2 holds them as unicode and str, which are
// equal there, so the two keys become one, whether Python 2 writes the
// value or reads it (cross.py2, and cross.matrix with a 2.7 side).
bool python2_merges_keys(const Node* value);
// Whether the subject is a Python 2 (its python_version).
bool is_python2(const Subject& subject);

}  // namespace serialcheck::props
