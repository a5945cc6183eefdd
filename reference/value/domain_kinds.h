// What equality and the canonical JSON form need to know about a domain
// kind (ndarray, tensor, module) that only the domain types (the types/
// room) know: how two nodes of the kind compare, and what makes a node
// read from JSON not one the kind can hold. The object model sits below
// the domain types, so it does not call them; each domain kind registers
// its hooks here instead, as families register with a FamilyRegistry.
// types::register_value_kinds() (types/value_kinds.h) registers every kind
// the types room defines; a program that links the pickle codec has them
// registered before main().
//
// domain_kind() throws std::logic_error for a kind nothing registered: a
// program that compares or reads domain values without the types room.
#pragma once

#include <optional>
#include <string>

#include "reference/value/equal.h"
#include "reference/value/value.h"

namespace serialcheck {

struct DomainKind {
  // Whether a and b (both of the kind) hold the same value, apart from
  // their children, which equality compares itself (a tensor's grad). When
  // not, says what differs in *why (never null).
  bool (*equal)(const Node& a, const Node& b, const EqualOptions& options,
                std::string* why) = nullptr;
  // Why `n`, a node of the kind just read from JSON (its children may still
  // be missing), is not one the kind can hold; nullopt when it is. Null:
  // any node is.
  std::optional<std::string> (*json_problem)(const Node& n) = nullptr;
};

// Sets the hooks of `kind`, replacing any it had (the last registration
// wins; registering the same hooks twice is harmless). Not thread-safe:
// register before values are compared or read, as static initialization
// and types::register_value_kinds() do.
void register_domain_kind(Kind kind, const DomainKind& hooks);

// The hooks of `kind`. Throws std::logic_error when none were registered.
const DomainKind& domain_kind(Kind kind);

}  // namespace serialcheck
