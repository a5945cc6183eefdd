// The copyreg extension registry in the value model.
//
// CPython's pickler writes a global that copyreg.add_extension(module, name,
// code) registered as EXT1/EXT2/EXT4 <code> (protocol 2 and above) instead of
// its name, and never memoizes it. The stream then holds only the code, so
// the model holds only the code too: an extension reference is the object
// node copyreg._inverted_registry(code) (a callable global and a 1-tuple of
// the code, no state, no items), read as "the global registered under
// `code`". The decoder makes one for every EXT opcode, the encoder writes one
// as EXT, and the Python bridge turns one into the registered object and a
// registered global (at protocol 2 and above) into one.
#pragma once

#include <cstdint>
#include <string_view>

#include "reference/value/value.h"

namespace serialcheck::pickle {

inline constexpr std::string_view kExtensionRegistryModule = "copyreg";
inline constexpr std::string_view kExtensionRegistryName = "_inverted_registry";
// copyreg.add_extension accepts codes 1..0x7fffffff.
inline constexpr std::int64_t kMaxExtensionCode = 0x7fffffff;

// The code `n` refers to when it is an extension reference with a code in
// 1..kMaxExtensionCode; 0 otherwise.
std::int64_t extension_code(const Node* n);

// A new extension reference to `code` (1..kMaxExtensionCode, unchecked).
Node* extension_ref(Graph& graph, std::int64_t code);

}  // namespace serialcheck::pickle
