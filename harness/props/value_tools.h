// Graph utilities the gate needs beyond the value model: walking and copying
// a value with its sharing intact, and the comparison used when values pass
// through real Python objects.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "reference/value/equal.h"
#include "reference/value/value.h"

namespace serialcheck {

// The nodes `root` references directly, in a fixed order (items; a
// tensor's grad; for objects callable, args, state, state_setter,
// listitems, dictitems). Null entries are left out.
std::vector<Node*> children(const Node* node);

// The children a node's pickle writes: children() without a module's class
// (which only says how the bridge makes the module; pickle names the module
// by its import name alone).
std::vector<Node*> pickled_children(const Node* node);

// Every node reachable from `root`, each once, breadth first (root first).
std::vector<const Node*> reachable(const Node* root);

// The same through pickled_children(): the nodes a pickle of `root` writes.
std::vector<const Node*> reachable_pickled(const Node* root);

// Copies the value reachable from `root` into `out`, keeping sharing and
// cycles; payloads are copied (the copy borrows nothing). `map`, when given,
// receives original -> copy for every node. Iterative.
Node* copy_value(const Node* root, Graph& out,
                 std::unordered_map<const Node*, Node*>* map = nullptr);

// True for kinds whose objects Python never mutates, so that sharing one of
// them is unobservable except through `is`: str, bytes, tuple, frozenset,
// global (and the atoms).
bool immutable_kind(Kind kind);

// A copy of `value` in which every PickleBuffer is the bytes (read-only)
// or bytearray (writable) it holds; `value` itself when it has none.
const Node* buffers_as_bytes(const Node* value, Graph& scratch);

// A copy of `value` in which every getattr(<global M.Q>, 'n') object (no
// state, no items) is the global M.Q.n: the one object in Python, and the
// form CPython's pickler writes a nested name in below protocol 4, so a
// reader cannot tell them apart. `value` itself when it has none.
// Where: Everywhere for comparing values; ClassPositions for a value the
// reference writes again. There only the class a copyreg.__newobj__ or
// __newobj_ex__ call names (and the getattr chain inside it) becomes a
// global: NEWOBJ needs one, and elsewhere the call writes the same bytes,
// while globals are memoized by name: two distinct getattr objects (a bound
// method reduces to one; each access makes a new method) made one global
// would be written once and then fetched from the memo.
enum class GetattrScope { Everywhere, ClassPositions };
const Node* getattr_as_globals(const Node* value, Graph& scratch,
                               GetattrScope scope = GetattrScope::Everywhere);

// A copy of `value` with the distinctions named in `lost` erased
// (docs/testee-protocol.md, "Fidelity"): "tuple" makes tuples lists,
// "int-float" makes ints and floats doubles, "big-int" makes ints outside
// +-2^53 doubles, "bytes-bytearray" makes bytearrays bytes, "set-frozenset"
// makes frozensets sets, "str-bytes" makes bytes that are valid UTF-8 strs,
// "nan-bits" makes every NaN the canonical one, "dict-order" puts every
// dict's pairs in one order. Unknown names are ignored
// ("sharing" is a sharing rule, not a rewrite). `value` itself when nothing
// changes.
const Node* relax_value(const Node* value, Graph& scratch, const std::vector<std::string>& lost);

// Which sharing does not count when two values are compared.
enum class SharingRule {
  // A global is one object per name, as it is in Python (pickle memoizes
  // the class object, and NEWOBJ names copyreg.__newobj__ without a node of
  // its own): two global nodes with one name count as one. All other
  // sharing must match exactly.
  GlobalsByName,
  // Sharing of immutable objects does not count at all. The honest
  // equality for values that passed through CPython, which caches empty and
  // one-character strings, small bytes and the empty tuple. Sharing of
  // mutable objects (lists, dicts, sets, bytearrays, objects, buffers) and
  // every cycle must still match.
  ImmutablesFree,
};

// Equality as equal() defines it, except for the sharing `rule` exempts:
// both values are first rewritten so that equal exempt subvalues are one
// node (hash-consing), then compared with equal().
// `lost` (Capabilities::cannot_express) erases those distinctions first
// (relax_value); with "tuple" or "set-frozenset" lost, lists and sets then
// share as the tuples and frozensets they may have been, and with "sharing"
// lost, values without cycles compare as trees.
bool equal_under(const Node* a, const Node* b, SharingRule rule, Difference* why = nullptr,
                 const EqualOptions& options = {}, const std::vector<std::string>& lost = {});

}  // namespace serialcheck
