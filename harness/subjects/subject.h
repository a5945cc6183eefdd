// A subject is anything that can dump a value to a message and load it back:
// the reference serializer, CPython's C and pure-Python picklers, cloudpickle,
// dask.distributed. A subject declares what it can do; a property that needs
// a capability the subject lacks is skipped with a reason, never passed.
#pragma once

#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/common/error.h"
#include "reference/frames/compression.h"
#include "reference/frames/message.h"
#include "reference/value/value.h"

namespace serialcheck {

namespace families {
class FamilyRegistry;
}

// The distinctions a subject may declare lost (docs/testee-protocol.md,
// "Fidelity"); relax_value() (harness/props/value_tools.h) erases each.
inline constexpr std::array<std::string_view, 10> kFidelityNames = {
    "tuple",   "int-float",         "big-int",   "bytes-bytearray", "set-frozenset",
    "sharing", "immutable-sharing", "str-bytes", "nan-bits",        "dict-order"};

struct Capabilities {
  // The protocols the subject writes (or, when it only reads, reads).
  int min_protocol = 0;
  int max_protocol = 5;
  // The protocols loads() reads, when they differ from the above; -1: the same.
  int read_min_protocol = -1;
  int read_max_protocol = -1;
  int read_min() const { return read_min_protocol < 0 ? min_protocol : read_min_protocol; }
  int read_max() const { return read_max_protocol < 0 ? max_protocol : read_max_protocol; }
  bool loses(const std::string& distinction) const {
    for (const auto& d : cannot_express) {
      if (d == distinction) return true;
    }
    return false;
  }
  bool out_of_band = false;    // protocol-5 buffers travel as separate frames
  bool limit_loader = false;   // loads() honours LoadOptions::max_protocol
  bool pickle_format = true;   // frame 0 is a plain pickle stream
  bool cpython_bytes = false;  // claims byte identity with the C pickler
  // Frame 0 is written by CPython's C pickler or a subclass of it (cloudpickle's
  // CloudPickler): bytes.reencode asks the reference to write it again exactly.
  bool c_pickler = false;
  bool python_values = false;  // values pass through real Python objects
  // The CPython version the subject is or writes like ("3.7.16", "3.11"):
  // an interpreter's own (an external testee's hello says it), the
  // reference's target; empty for a subject that is no Python. bytes.reencode
  // and bytes.match-cpython compare against the reference at this version.
  std::string python_version;
  // The protocol the subject's interpreter writes when none is asked for
  // (pickle.DEFAULT_PROTOCOL: 3 before 3.8, 4 to 3.13, 5 from 3.14); -1:
  // unknown. cross.matrix draws it often, since it is what peers receive.
  int default_protocol = -1;
  // loads() honours LoadOptions::encoding and fix_imports and dumps()
  // DumpOptions::fix_imports, as Python 3's pickle does (a testee whose
  // hello lists "python2_choices"). cross.py2 runs where this is set.
  bool python2_choices = false;
  bool can_dump = true;  // dumps() works (a reader-only testee says false)
  bool can_load = true;  // loads() works (a writer-only testee says false)
  // This project's own codec in this process: its frames borrow the value's
  // memory, and it serves the families and the simulated device directly.
  bool native_codec = false;
  // A Python module whose dumps() pickles functions and classes by value
  // and whose loads() reads them ("cloudpickle", "dill"); empty: none.
  // Subject::by_value() by default defines, dumps and loads in the embedded
  // interpreter with this module.
  std::string by_value_pickler;
  // The subject pickles functions and classes by value itself: its own
  // by_value() does the work (an external testee whose hello says
  // "by_value"). callable.by-value runs where this or by_value_pickler is set.
  bool by_value = false;
  // An external testee that also runs callable.class-life's situations
  // (life-here and life-fresh; its hello says "class_life").
  bool class_life = false;
  bool pickles_by_value() const { return by_value || !by_value_pickler.empty(); }
  // The subject builds stdlib values in an interpreter of its own and
  // answers dumps_recipe and loads_recipe (cross.stdlib): the embedded
  // pickle subjects, and a testee whose hello says "stdlib_recipes".
  bool stdlib_recipes = false;
  // Subject::pack() and unpack() work: the subject puts messages into one
  // byte string (distributed's serialize_bytes layout) and reads them back
  // (wire.packed runs where this and family_registry() are set).
  bool packs_messages = false;
  // An external testee that answers try-loads: many streams in one request
  // (docs/testee-protocol.md). Others get them one loads() at a time.
  bool try_loads = false;
  std::vector<std::string> families;
  // Distinctions of the value model the subject's language loses
  // (docs/testee-protocol.md, "Fidelity"): "tuple", "int-float", "big-int",
  // "bytes-bytearray", "set-frozenset", "sharing", "immutable-sharing", "str-bytes",
  // "nan-bits". Comparisons a subject takes part in relax exactly these.
  std::vector<std::string> cannot_express;
  // The value kinds (docs/value-json.md names: "int", "list", "global"...)
  // the subject takes and returns; empty: all.
  std::vector<std::string> kinds;
};

struct DumpOptions {
  int protocol = 5;
  bool out_of_band = false;  // send pickle buffers out of band (protocol 5)
  // Python 3's pickle.dumps(fix_imports=): below protocol 3, write Python 2's
  // module names (__builtin__, copy_reg) for Python 3's. A subject that has
  // no such choice ignores it (cross.py2 asks only Python 3 writers).
  bool fix_imports = true;
  // cross.py2: the pickle is for a Python 3 reader that chose how to load a
  // Python 2 str (LoadOptions::encoding), so a Python 2 writer writes bytes
  // beyond ASCII as well, which it otherwise refuses (the default ASCII
  // reader cannot read them back).
  bool reader_chooses_encoding = false;
};

struct LoadOptions {
  int max_protocol = 5;  // honoured only when capabilities().limit_loader
  // Python 3's pickle.loads(encoding=, fix_imports=) for what Python 2 wrote:
  // how a Python 2 str (STRING, BINSTRING, SHORT_BINSTRING) comes back
  // ("ASCII", "latin1", "bytes"; empty: the loader's default, "ASCII"), and
  // whether Python 2's module names are mapped to Python 3's. Only
  // cross.py2 sets them, and only for a loader whose capabilities() say
  // python2_choices; the others ignore them.
  std::string encoding;
  bool fix_imports = true;
  // A loader that can (the in-process Python pickle subjects) gives every
  // global an inert stand-in, a class that takes any arguments, state and
  // items and does nothing, so that it imports and calls nothing and fails
  // only where the stream's form is wrong: loads.rejects-malformed asks
  // CPython about malformed streams this way. Other loaders ignore it.
  bool inert_globals = false;
};

// One stream's fate in Subject::try_loads: a value came back, or an error
// with its kind, message and the report's extra lines.
struct LoadAttempt {
  bool loaded = false;
  std::string kind;
  std::string message;
  std::string detail;
};

// A failure inside a subject: `kind` is a stable short name (an ErrorKind
// name for the reference, the Python exception type for Python subjects,
// the error kind an external testee reports, or "testee-timeout",
// "testee-crash", "testee-protocol" for a testee that misbehaved). The kind
// "unsupported" means the subject cannot express the value or option at
// all: properties discard such a case instead of failing it. `detail` holds
// more lines for the case report (an external testee's standard error).
// A serialcheck::Error whose kind name is `kind`; what() is "<kind>: <message>".
// Error::detail() is the message; SubjectError::detail() (which hides it) is
// the report's extra lines.
class SubjectError : public Error {
 public:
  SubjectError(std::string kind, std::string message, std::string detail = {})
      : Error(std::move(kind), std::move(message), Location{}, ErrorStyle::Kind),
        report_detail_(std::move(detail)) {}
  const std::string& kind() const { return kind_name(); }
  const std::string& message() const { return Error::detail(); }
  const std::string& detail() const { return report_detail_; }

 private:
  std::string report_detail_;
};

inline constexpr const char* kUnsupported = "unsupported";

// The kinds the runner gives an external testee that crashed, hung or
// answered something that is not a message: the testee's failure, never an
// answer to the request.
inline bool testee_misbehaved(std::string_view kind) {
  return kind == "testee-crash" || kind == "testee-timeout" || kind == "testee-protocol";
}

// One case of callable.by-value (docs/conformance.md): a Python source that
// binds `subject` to a function or class, the calls to make on it
// ([[args, kwargs], ...]), and the protocol to dump it at.
struct ByValueCase {
  std::string source;
  nlohmann::json inputs = nlohmann::json::array();
  int protocol = 5;
};

// What became of a ByValueCase. Each result is ["value", repr] or
// ["raises", exception type name], one per input.
struct ByValueOutcome {
  // Empty when the callable was defined, dumped and loaded in a fresh
  // process; else where it stopped: "define" (the source did not run),
  // "dumps", "load", or another step ("process": the fresh process
  // crashed; "no-interpreter").
  std::string stage;
  std::string kind;    // the error's kind at that stage: an exception type, "testee-crash"...
  std::string error;   // its message
  std::string detail;  // more lines for the report (a testee's standard error)
  nlohmann::json original = nlohmann::json::array();  // the results where it was defined
  nlohmann::json loaded = nlohmann::json::array();    // the results after loading
};

// One case of callable.class-life (docs/conformance.md): a source that
// binds `subject` and defines _change(), the calls, the situation (one of
// gen::life_situations()) and the protocol to dump at.
struct ClassLifeCase {
  std::string source;
  nlohmann::json inputs = nlohmann::json::array();
  std::string situation;
  int protocol = 5;
};

// What became of a ClassLifeCase: `expect` (what the same code does when
// nothing is pickled) and `observed` (what the pickler gave), objects with
// the same check names ("identity", "instance-class", "original",
// "result"), or a stage where it stopped as ByValueOutcome says ("define",
// "dumps", "load", "no-instance", "process"...).
struct ClassLifeOutcome {
  std::string stage;
  std::string kind;
  std::string error;
  std::string detail;
  nlohmann::json expect = nlohmann::json::object();
  nlohmann::json observed = nlohmann::json::object();
};

// wire.packed (docs/conformance.md): a message as one byte string, in
// distributed's serialize_bytes layout (reference/frames/wire.h).
struct PackedBytes {
  std::string bytes;
  // The version of the library that compressed its frames ("1.9.4"), empty
  // for no codec: compressed bytes are compared only between equal versions.
  std::string codec_version;
};

// cross.stdlib (docs/versions.md): a stdlib value named by a recipe,
// "decimal.Decimal:0", built by the subject's own interpreter so that each
// version pickles its own object. `equal` says whether what was loaded
// equals the loader's own build of the recipe; the reprs are for the report.
struct RecipeLoad {
  bool equal = false;
  std::string loaded;    // repr of what the pickle loaded to
  std::string expected;  // repr of the loader's own build
};

class Subject {
 public:
  virtual ~Subject() = default;
  virtual std::string name() const = 0;
  virtual Capabilities capabilities() const = 0;
  // Why the subject cannot run here (a package is missing...), or nullopt.
  virtual std::optional<std::string> unavailable_reason() const { return std::nullopt; }
  // Throws SubjectError.
  virtual Message dumps(const Node* value, const DumpOptions& options) = 0;
  // Decodes into `graph` and returns the root. Throws SubjectError.
  virtual Node* loads(const Message& message, Graph& graph, const LoadOptions& options) = 0;
  // Who the subject is beyond its name, for reports: an external testee's
  // "name version (implementation)"; empty for built-in subjects.
  virtual std::string description() const { return {}; }
  // The serialization families (docs/families.md) this subject serializes
  // with in this process, or nullptr when it has none here. The properties
  // of the families (zerocopy.device, protocol.negotiated, wire.distributed)
  // run families::serialize() and deserialize() with this registry, so they
  // test the subject's families; a subject without one skips them.
  virtual const families::FamilyRegistry* family_registry() const { return nullptr; }
  // callable.by-value: defines the case's source where the subject's
  // pickler lives, calls it, dumps it, and loads it in a fresh process that
  // cannot find it by reference, then calls it again. The default does this
  // in the embedded interpreter with capabilities().by_value_pickler (stage
  // "no-interpreter" when none is embedded); an external subject does it
  // through its testee. Throws SubjectError "unsupported" when the subject
  // cannot take part.
  virtual ByValueOutcome by_value(const ByValueCase& c);
  // callable.class-life: runs the case's situation, its pickling half where
  // the subject's pickler lives and its other half (when it has one) in a
  // fresh process; the same defaults and errors as by_value().
  virtual ClassLifeOutcome class_life(const ClassLifeCase& c);
  // cross.stdlib: builds the recipe's value and pickles it at `protocol`;
  // loads a pickle and compares it with its own build. Both throw
  // SubjectError "unsupported" where the subject has no interpreter to
  // build stdlib values in (the default), and "inexpressible" where its
  // version cannot build this recipe; a failing load throws its error.
  virtual std::string dumps_recipe(const std::string& recipe, int protocol);
  virtual RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle);
  // wire.packed: a message as one byte string with its frames compressed by
  // `codec` where distributed's maybe_compress would (pack), and such a
  // string as a message with its frames decompressed (unpack; the frames
  // may point into `bytes`). The reference and its mutants
  // (capabilities().packs_messages) do it with pack_message and
  // unpack_message. Both throw SubjectError "unsupported" by default.
  virtual PackedBytes pack(const Message& message, Compression codec);
  virtual Message unpack(std::span<const std::uint8_t> bytes);
  // The same from and to a value, the way distributed's serialize_bytes (with
  // "distributed.comm.compression" set to `codec`) and deserialize_bytes do
  // it: the distributed subject, the peer of wire.packed. "unsupported" by
  // default.
  virtual PackedBytes dumps_packed(const Node* value, Compression codec);
  virtual Node* loads_packed(std::span<const std::uint8_t> bytes, Graph& graph);
  // loads.rejects-malformed: loads each stream (frame 0 of a message with
  // the pickle family's header at `protocol`, no buffers) and says whether
  // a value came back or which error. The default calls loads() once a
  // stream, catching what it throws (a misbehaving testee's
  // "testee-crash" and the like included); an external testee whose hello
  // claims "try_loads" gets many streams in one request.
  virtual std::vector<LoadAttempt> try_loads(const std::vector<std::string>& streams, int protocol,
                                             const LoadOptions& options);
};

// A message holding `stream` as frame 0, with the pickle family's header
// at `protocol` and no buffers.
Message plain_pickle_message(std::string stream, int protocol);

}  // namespace serialcheck
