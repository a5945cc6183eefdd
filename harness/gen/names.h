// Generators of global names (module, qualname) for Global nodes and for the
// callables of generic objects.
#pragma once

#include <rapidcheck.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "harness/gen/config.h"

namespace serialcheck::gen {

using QualName = std::pair<std::string, std::string>;  // module, qualname

// Names that exist in CPython 3.11 and that pickle writes under the same
// module and name (functions and classes whose __module__ is that module),
// so a Python subject can import them and get the same bytes.
std::span<const std::pair<std::string_view, std::string_view>> real_global_names();

// A name for a Global node: a real name or, unless config.real_globals_only,
// an invented one ("m_" module prefix so that no Python 2 name mapping of
// fix_imports applies to it; qualnames never contain dots, which protocols
// below 4 cannot write as one global).
rc::Gen<QualName> globalName(const GenConfig& config);

// A callable for a generic object: never one of the builtin reduce forms the
// decoder turns back into builtin kinds (builtins.set, _codecs.encode...) nor
// copyreg.__newobj__, which is reserved for the NEWOBJ form.
rc::Gen<QualName> callableName(const GenConfig& config);

}  // namespace serialcheck::gen
