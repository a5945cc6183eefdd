// The safe-loading policy against the embedded CPython: what pickle.dumps
// writes for the data the default list is meant for loads under it, and what
// a real Unpickler's find_class is asked for is exactly what the scan
// reports.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/policy.h"
#include "reference/pickle/scan.h"
#include "reference/value/value.h"
#include "suite/tests/support/decode_outcome.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/python_values.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;
using Outcome = test_support::DecodeOutcome;
using test_support::decode_under;
using test_support::python_bytes;

// The names a real Unpickler asks find_class for, and its persistent ids,
// recorded in Python while loading.
constexpr std::string_view kRecorder = R"(
import pickle, io
class _Recorder(pickle.Unpickler):
    def __init__(self, data):
        super().__init__(io.BytesIO(data))
        self.names = []
        self.pids = 0
    def find_class(self, module, name):
        self.names.append(module + '.' + name)
        return super().find_class(module, name)
    def persistent_load(self, pid):
        self.pids += 1
        # torch.save's storages: ('storage', type, key, location, size).
        if isinstance(pid, tuple) and pid and pid[0] == 'storage':
            return pid[1](pid[4])
        return pid
def _found_names(data):
    r = _Recorder(data)
    r.load()
    return (sorted(set(r.names)), r.pids)
)";

class PolicyAgainstCPython : public test_support::PythonTest {
 protected:
  // sorted distinct names find_class saw, and the persistent id count.
  static std::pair<std::set<std::string>, std::size_t> found_by_python(std::string_view var) {
    python::PyRef r = python::eval("_found_names(" + std::string(var) + ")");
    Graph g;
    const Node* t = python::from_python(r.get(), g);
    std::set<std::string> names;
    for (const Node* n : t->items[0]->items) names.insert(std::string(n->payload()));
    return {names, static_cast<std::size_t>(t->items[1]->small())};
  }
};

TEST_F(PolicyAgainstCPython, DefaultListLoadsTheDataItIsFor) {
  python::Gil gil;
  python::exec(std::string(kRecorder));
  python::exec(R"(
import pickle, collections, datetime, numpy as np, torch
_values = {
  'containers': [set([1, 2]), frozenset([3]), b'ab', bytearray(b'cd'), (1, 2), {'k': [1.5]},
                 collections.OrderedDict(a=1), 3+4j],
  'datetime': [datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
               datetime.date(2020, 1, 2), datetime.time(1, 2), datetime.timedelta(days=3)],
  'numpy': [np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros(3, dtype=[('a', 'i4')]),
            np.float64(1.5), np.dtype('>i2'), np.array(['a', 'bc'])],
  'torch': [torch.arange(6.).reshape(2, 3), torch.nn.Parameter(torch.ones(2)),
            torch.Size([2, 3]), torch.float32, torch.int64],
}
_cases = {}
for name, value in _values.items():
    for p in range(6):
        _cases[name + '.p' + str(p)] = pickle.dumps(value, protocol=p)
_case_names = sorted(_cases)
)");
  const Allowlist l = default_allowlist();
  python::PyRef names_obj = python::eval("_case_names");
  Graph ng;
  const Node* names = python::from_python(names_obj.get(), ng);
  ASSERT_EQ(names->items.size(), 24u);
  for (const Node* name_node : names->items) {
    const std::string name(name_node->payload());
    SCOPED_TRACE(name);
    const std::string data = python_bytes("_cases['" + name + "']");
    const ScanResult s = scan(data, l);
    ASSERT_FALSE(s.error) << s.error->what();
    for (const ScanEntry& e : s.entries) EXPECT_TRUE(e.allowed) << e.name << " at " << e.offset;
    Graph g;
    const Outcome o = decode_under(data, &l, g);
    EXPECT_TRUE(o.ok) << error_kind_name(o.kind) << " at " << o.offset << ": " << o.detail;
    // The scan's globals, as written, are what find_class is asked for.
    python::exec("_data = _cases['" + name + "']");
    const auto [python_names, pids] = found_by_python("_data");
    std::set<std::string> scanned;
    for (const ScanEntry& e : s.entries) {
      if (e.kind == ScanEntry::Kind::Global) scanned.insert(e.written.empty() ? e.name : e.written);
    }
    EXPECT_EQ(scanned, python_names);
    EXPECT_EQ(pids, 0u);
  }
}

TEST_F(PolicyAgainstCPython, WhatTheDefaultListRefuses) {
  python::Gil gil;
  python::exec(std::string(kRecorder));
  python::exec(R"(
import io, os, pickle, zipfile, cloudpickle, torch
def _uses_os():
    return os.getcwd()
_cloud = cloudpickle.dumps(_uses_os, protocol=4)
class _Evil:
    def __reduce__(self):
        return (os.system, ('true',))
_evil = pickle.dumps(_Evil(), protocol=2)
_buf = io.BytesIO()
torch.save({'w': torch.ones(3)}, _buf)
_zip = zipfile.ZipFile(io.BytesIO(_buf.getvalue()))
_saved = _zip.read([n for n in _zip.namelist() if n.endswith('data.pkl')][0])
)");
  const Allowlist l = default_allowlist();
  {
    const std::string data = python_bytes("_cloud");
    const ScanResult s = scan(data, l);
    ASSERT_FALSE(s.error) << s.error->what();
    bool subimport = false;
    for (const ScanEntry& e : s.entries) {
      if (e.kind == ScanEntry::Kind::Global && e.name == "cloudpickle.cloudpickle.subimport") {
        subimport = true;
        EXPECT_FALSE(e.allowed);
      }
    }
    EXPECT_TRUE(subimport) << "cloudpickle wrote no subimport";
    Graph g;
    const Outcome o = decode_under(data, &l, g);
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.kind, ErrorKind::ForbiddenGlobal);
  }
  {
    const std::string data = python_bytes("_evil");
    Graph g;
    const Outcome o = decode_under(data, &l, g);
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.kind, ErrorKind::ForbiddenGlobal);
    // os.system pickles as posix.system: the name checked is the one imported.
    EXPECT_NE(o.detail.find("posix.system"), std::string::npos) << o.detail;
  }
  {
    // torch.save's data.pkl refers to its storages by persistent id.
    const std::string data = python_bytes("_saved");
    Graph g;
    const Outcome o = decode_under(data, &l, g);
    ASSERT_FALSE(o.ok);
    EXPECT_EQ(o.kind, ErrorKind::ForbiddenPersistentId);
    Allowlist with_pids = l;
    with_pids.persistent_ids = true;
    Graph g2;
    const Outcome ok = decode_under(data, &with_pids, g2);
    EXPECT_TRUE(ok.ok) << ok.detail;
    const ScanResult s = scan(data, with_pids);
    EXPECT_TRUE(s.clean());
    std::size_t pid_entries = 0;
    for (const ScanEntry& e : s.entries) pid_entries += e.kind == ScanEntry::Kind::PersistentId;
    const auto [python_names, pids] = found_by_python("_saved");
    EXPECT_EQ(pid_entries, pids);
    EXPECT_GT(pids, 0u);
  }
}

}  // namespace
}  // namespace serialcheck::pickle
