// Python 2 <-> Python 3 module and name mapping for protocols below 3, the
// facts CPython's _compat_pickle holds (fix_imports=True).
#pragma once

#include <string>
#include <utility>

namespace serialcheck::pickle {

using QualifiedName = std::pair<std::string, std::string>;  // module, name

// What the C pickler writes below protocol 3 for a Python 3 global.
QualifiedName py3_to_py2(const std::string& module, const std::string& name);

// What the unpickler looks up for a Python 2 name read from a stream below
// protocol 3.
QualifiedName py2_to_py3(const std::string& module, const std::string& name);

}  // namespace serialcheck::pickle
