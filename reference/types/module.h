// Modules as a domain kind. A Module node pickles by reference, as
// cloudpickle writes a module found in sys.modules:
//   cloudpickle.cloudpickle.subimport('<import name>')
// which loads as `__import__(name); sys.modules[name]`, so a plain pickle
// loader returns the very module object registered under that name,
// whatever its class. lower_module writes that form and raise_module
// recognises it (domain.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace serialcheck::types {

// Why `name` cannot be an import name, or nullopt: it must be non-empty
// UTF-8 (no lone surrogates, no NUL) of dot-separated non-empty parts.
std::optional<std::string> module_name_problem(std::string_view name);

}  // namespace serialcheck::types
