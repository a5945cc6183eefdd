// One subject's dumps and loads of one workload, prepared for a timed loop.
//
// prepare() runs outside any timing: it dumps once, loads that output once
// and checks that the result equals the workload's value; what the loops
// then repeat is exactly the call that was checked. The Python subjects are
// timed through the C API (harness/python/call.h) with the GIL held, so no
// Python-level loop, argument building or attribute look-up is counted:
//   reference    pickle::encode / pickle::decode of the workload's value graph
//                (no Message, no header): the codec's own speed
//   reference-py the reference called from the Python object the C pickler
//                starts from: python::from_python, pickle::encode, a new bytes
//                object / pickle::decode of that bytes object, python::to_python
//                (harness/python/bridge.h): what a Python caller would see
//   cpython      _pickle.dumps(obj, 5) / _pickle.loads(data)
//   cpython-py   pickle._dumps / pickle._loads (the pure-Python pickler)
//   cloudpickle  cloudpickle.dumps(obj, 5) / _pickle.loads(data)
//   distributed  distributed.protocol.serialize(obj) / deserialize(header, frames)
// Device workloads are the reference's alone, through its families
// (families::serialize / deserialize, the "cuda" family): their check also
// requires that neither direction copied device memory to the host.
// Out-of-band workloads pass buffer_callback=list.append (emptied after
// each dumps) and loads(..., buffers=list), as dask does.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "suite/bench/workloads.h"

namespace serialcheck::bench {

// The subject's output is wrong (it does not load back to an equal value, or
// its bytes differ from the C pickler's where they must not).
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TimedSubject {
 public:
  virtual ~TimedSubject() = default;
  virtual std::string name() const = 0;
  // The loops below run with the GIL held.
  virtual bool needs_gil() const = 0;
  // Frame 0 is a pickle that the C pickler's can be compared with.
  virtual bool pickle_format() const = 0;
  // Its frames must equal the C pickler's for the same value (where the
  // workload's spec.same_bytes says they can): see check_cpython_bytes.
  virtual bool writes_cpython_bytes() const { return false; }

  // Throws CheckFailed when the output is wrong and SubjectError when the
  // subject cannot run (a module is missing...). Takes the GIL itself.
  virtual void prepare(Workload& workload) = 0;

  // The timed operations; the Python subjects' need the GIL held.
  virtual void dumps() = 0;
  virtual void loads() = 0;

  // The prepared output: the pickle, then each out-of-band buffer.
  virtual std::vector<std::string_view> frames() const = 0;

  // A subject that times its own loop (an external testee): the benchmark
  // asks it for the seconds one operation takes instead of timing dumps()
  // and loads() itself.
  virtual bool self_timed() const { return false; }
  virtual double seconds_per_op(bool /*dumps*/) { return 0; }
  // A self-timed subject: the wall time of one whole loads request (pipe,
  // JSON both ways, the testee's work), for the protocol's overhead.
  virtual double request_seconds() { return 0; }
};

// "reference", "reference-py", "cpython", "cpython-py", "cloudpickle",
// "distributed".
const std::vector<std::string>& subject_names();

// nullptr when the subject does not run `spec` (device workloads are the
// reference's only). External subjects (external_timed.h) are made here too.
std::unique_ptr<TimedSubject> make_timed_subject(const std::string& name, const WorkloadSpec& spec);

// Throws CheckFailed, naming the first difference, when the prepared
// `subject`'s frames differ from the prepared C pickler's.
void check_cpython_bytes(const TimedSubject& subject, const TimedSubject& cpython);

// Where `a` and `b` first differ ("frame 0 byte 17: 0x94 != 0x95", "frame 1:
// 0 bytes != 32768 bytes", "2 frames != 1 frames"), or "" when they are equal.
std::string first_difference(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>& b);

}  // namespace serialcheck::bench
