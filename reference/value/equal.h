// Equality of two values: structural, kind-exact (1 != 1.0 != True),
// NaN-aware (NaN equals NaN, bit for bit), identity-aware (the sharing and
// cycle structure of both graphs must match: a node shared in one must be
// shared the same way in the other). Sets and frozensets compare as
// unordered collections; dicts compare in insertion order.
// Never recurses: a 100,000-deep value compares in constant stack.
//
// Floats are equal when their 64 bits are: 0.0 != -0.0, and a NaN equals a
// NaN with the same bits only. Atoms (None, bool, int, float) carry no
// identity; every other node of `a` is paired with the node of `b` it is
// first compared with, and meeting either again with a different partner
// is a "sharing differs" difference. Set items are matched greedily, in the
// left set's order, against right items of equal structural hash; a failed
// candidate's pairings are undone before the next is tried.
//
// A pickle buffer's readonly flag is compared: it is what the stream says.
// What a loader was supplied for an out-of-band buffer (Node::supplied) is
// not: it belongs to one load, not to the value. Nor is whether a str is
// interned (Node::flag): pickle shares it with global names when writing,
// but no loader interns what it reads. Nor is whether an object was read
// from INST or OBJ (Node::flag): a fact of the stream, not of the value.
//
// Paths start at "root": [i] list/tuple item, .keys[i] dict key, {k} dict
// value under key k (a short repr, or #i for a key that has none), <i> set
// item i of the left set, .callable .args .state .state_setter,
// .listitems[i], .dictitems.keys[i], .dictitems{k}, .pid, .grad (a tensor's).
#pragma once

#include <string>

#include "reference/value/value.h"

namespace serialcheck {

struct Difference {
  std::string path;    // where the values differ, e.g. "root[3]{'a'}.args[0]"
  std::string reason;  // what differs, e.g. "int 3 != int 4"
};

struct EqualOptions {
  // When false, sharing among immutable nodes (str, bytes, tuple, frozenset,
  // global) and modules is not compared: CPython caches and interns such
  // objects (the empty string, one-character strings, the empty tuple...)
  // and keeps one module object per name, so a value
  // that passes through real Python objects can gain or lose that sharing
  // without any serializer being wrong. Sharing and cycles of mutable
  // nodes are still required to match.
  bool immutable_sharing = true;
  // When false, tensors compare by dtype, device, requires_grad, shape and
  // their elements in logical order; strides and the storage offset are
  // layout, as they are for ndarrays. distributed sends a tensor through
  // numpy, which keeps neither.
  bool tensor_layout = true;
  // When false, an ndarray's byte order is layout: '>f8' and '<f8' arrays
  // of the same numbers are equal. numpy loads an array pickled below
  // protocol 5 in its native byte order (ndarray.__setstate__ swaps it).
  bool ndarray_byte_order = true;
};

bool equal(const Node* a, const Node* b, Difference* why = nullptr);
bool equal(const Node* a, const Node* b, const EqualOptions& options, Difference* why = nullptr);

}  // namespace serialcheck
