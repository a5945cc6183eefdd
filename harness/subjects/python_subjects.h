// The subjects that run real Python code in the embedded interpreter:
//   cpython      the C pickler (_pickle.dumps / loads), protocols 0-5
//   cpython-py   the pure-Python pickler (pickle._Pickler / _Unpickler)
//   cloudpickle  cloudpickle.dumps, loaded with pickle.loads
//   distributed  dask.distributed's serialize / deserialize (families "dask"
//                and "pickle"; always protocol 5 with out-of-band buffers)
// A value crosses into Python through the bridge (harness/python/bridge.h),
// is serialized there, and comes back through the bridge after loading.
//
// Pickle subjects write the header {"serializer": "pickle", "protocol": p,
// "writeable": [one bool per out-of-band buffer]}. Frames alias Python memory
// (the pickle bytes and each out-of-band buffer) and keep it alive through
// Frame::owner; loading wraps the frames without copying them, except a frame
// that is read-only while the header says its buffer was writable, which is
// copied (as distributed does).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/props/runner.h"
#include "harness/python/fixtures.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"

namespace serialcheck {

class PythonSubject : public Subject {
 public:
  // The interpreter cannot start, or a module the subject needs does not
  // import (the reason quotes the import error).
  std::optional<std::string> unavailable_reason() const override;

  Message dumps(const Node* value, const DumpOptions& options) final;
  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) final;

  // The same on Python objects, for callers that build them themselves
  // (benchmarks, tests). Both take the GIL. The object loads_object returns
  // may alias the frames' memory (it keeps their owners alive; a borrowed
  // frame's memory must outlive it), and must be dropped with the GIL held.
  virtual Message dumps_object(PyObject* object, const DumpOptions& options) = 0;
  virtual python::PyRef loads_object(const Message& message, const LoadOptions& options) = 0;

 protected:
  // `modules` are imported to decide availability (the first that fails is
  // the reason).
  explicit PythonSubject(std::vector<std::string> modules) : modules_(std::move(modules)) {
    // Cases for Python subjects may hold fixture objects (harness/gen/fixtures.h).
    python::install_fixture_resolver();
    // And callable.by-value, for the subjects that pickle by value.
    install_by_value();
    // And cross.stdlib's runner, for the subjects that build no Python
    // objects of their own (harness/subjects/stdlib_runner.h).
    install_stdlib();
  }
  static void install_by_value();
  static void install_stdlib();
  // Throws SubjectError("unavailable", reason) when the subject cannot run.
  void require_available() const;
  // The __reduce_ex__ protocol used to describe what loads_object returns.
  virtual int describe_protocol(const Message& message) const;
  // Set by dumps() while dumps_object runs: the value holds persistent ids,
  // which the bridge builds as the fixtures module's Persistent objects; a
  // pickle subject then pickles with that module's persistent_id.
  bool persistent_ids_ = false;

 private:
  std::vector<std::string> modules_;
  mutable bool checked_ = false;  // checked_ and reason_ are guarded by the GIL
  mutable std::optional<std::string> reason_;
};

// All four, available or not (ask unavailable_reason()).
std::vector<std::unique_ptr<Subject>> make_python_subjects();

// The four as the runner's factories, each making its subject afresh in a
// worker. Asking their names starts no interpreter, so the calling process
// stays free of Python.
std::vector<SubjectFactory> python_subject_factories();

// The embedded interpreter's version, "3.11.2" (Capabilities::python_version).
std::string embedded_python_version();

// One at a time. `module` replaces the main module the subject imports
// ("_pickle", "pickle", "cloudpickle", "distributed.protocol"); tests point
// it at a module that does not exist.
std::unique_ptr<PythonSubject> make_cpython_subject(std::string module = "_pickle");
std::unique_ptr<PythonSubject> make_cpython_py_subject(std::string module = "pickle");
std::unique_ptr<PythonSubject> make_cloudpickle_subject(std::string module = "cloudpickle");
std::unique_ptr<PythonSubject> make_distributed_subject(
    std::string module = "distributed.protocol");

}  // namespace serialcheck
