// A subject is anything that can dump a value to a message and load it back:
// the reference serializer, CPython's C and pure-Python picklers, cloudpickle,
// dask.distributed. A subject declares what it can do; a property that needs
// a capability the subject lacks is skipped with a reason, never passed.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/frames/message.h"
#include "reference/value/value.h"

namespace serialcheck {

struct Capabilities {
  int min_protocol = 0;
  int max_protocol = 5;
  bool out_of_band = false;      // protocol-5 buffers travel as separate frames
  bool limit_loader = false;     // loads() honours LoadOptions::max_protocol
  bool pickle_format = true;     // frame 0 is a plain pickle stream
  bool cpython_bytes = false;    // claims byte identity with the C pickler
  bool python_values = false;    // values pass through real Python objects
  std::vector<std::string> families;
};

struct DumpOptions {
  int protocol = 5;
  bool out_of_band = false;  // send pickle buffers out of band (protocol 5)
};

struct LoadOptions {
  int max_protocol = 5;  // honoured only when capabilities().limit_loader
};

// A failure inside a subject: `kind` is a stable short name (an ErrorKind
// name for the reference, the Python exception type for Python subjects).
class SubjectError : public std::runtime_error {
 public:
  SubjectError(std::string kind, std::string message)
      : std::runtime_error(kind + ": " + message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
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
};

}  // namespace serialcheck
