"""Equality of canonical-JSON values, for the adapter's tests.

The rules of docs/value-json.md ("Equality"): structural and kind-exact,
floats bit for bit, sets in any order, dicts in order, and sharing compared
as a bijection between the nodes of both values. With
`immutable_sharing=False` the sharing of strs, bytes, tuples, frozensets,
globals and modules is ignored, as serialcheck does for values that pass
through real Python objects (CPython caches and interns such objects).
ndarrays compare by dtype, shape and elements in C order.
"""

import struct
import sys

import serialcheck_testee as st

IMMUTABLE = frozenset(("str", "bytes", "tuple", "frozenset", "global", "module"))


def parse(doc):
    """A Node graph from parsed JSON or JSON text."""
    if isinstance(doc, (str, bytes)):
        doc = st._json_loads(doc)
    return st.nodes_from_json(doc)


def _ndarray_elements(a, native=False):
    """The bytes of each element in C order; with `native`, a big-endian
    array's elements in little-endian order (what numpy's loader makes)."""
    itemsize = st._parse_numeric_dtype(a["dtype"])
    if native and a["dtype"][0] == ">":
        unit = itemsize // 2 if a["dtype"][1] == "c" else itemsize
        return [b"".join(e[k:k + unit][::-1] for k in range(0, itemsize, unit))
                for e in _ndarray_elements(a)]
    shape, strides, data = a["shape"], a["strides"], a["data"]
    out = []
    index = [0] * len(shape)
    if any(d == 0 for d in shape):
        return out
    while True:
        at = a["offset"] + sum(i * s for i, s in zip(index, strides))
        out.append(data[at:at + itemsize])
        k = len(shape) - 1
        while k >= 0:
            index[k] += 1
            if index[k] < shape[k]:
                break
            index[k] = 0
            k -= 1
        if k < 0:
            return out


class _Matcher(object):
    def __init__(self, immutable_sharing, native_byteorder=False):
        self.immutable_sharing = immutable_sharing
        self.native = native_byteorder
        self.a2b = {}
        self.b2a = {}
        self.loose = set()
        self.why = None

    def fail(self, path, reason):
        if self.why is None:
            self.why = "%s: %s" % (path or "root", reason)
        return False

    def snapshot(self):
        return dict(self.a2b), dict(self.b2a), set(self.loose)

    def restore(self, snap):
        self.a2b, self.b2a, self.loose = snap

    def eq(self, a, b, path):
        if a.kind != b.kind:
            return self.fail(path, "kind %s != %s" % (a.kind, b.kind))
        kind = a.kind
        if kind in st.ATOMS:
            if kind == "float":
                same = struct.pack(">d", a.value) == struct.pack(">d", b.value)
            else:
                same = a.value == b.value and type(a.value) is type(b.value)
            return True if same else self.fail(path, "%r != %r" % (a.value, b.value))
        if not self.immutable_sharing and kind in IMMUTABLE:
            key = (id(a), id(b))
            if key in self.loose:
                return True
            self.loose.add(key)
            return self.contents(a, b, path)
        ia, ib = self.a2b.get(id(a)), self.b2a.get(id(b))
        if ia is not None or ib is not None:
            if ia is b:
                return True
            return self.fail(path, "sharing differs")
        self.a2b[id(a)] = b
        self.b2a[id(b)] = a
        return self.contents(a, b, path)

    def contents(self, a, b, path):
        kind = a.kind
        if kind in ("str", "bytes", "bytearray", "global", "pickle-buffer", "module",
                    "device-buffer"):
            if a.value != b.value:
                return self.fail(path, "%r != %r" % (a.value, b.value))
            if kind == "module":
                return True  # the class is how to make it, not part of the value
        elif kind == "ndarray":
            x, y = a.value, b.value
            dx, dy = x["dtype"], y["dtype"]
            if self.native:
                dx, dy = dx.replace(">", "<"), dy.replace(">", "<")
            if dx != dy or x["shape"] != y["shape"]:
                return self.fail(path, "ndarray layout %r != %r" % (x, y))
            if _ndarray_elements(x, self.native) != _ndarray_elements(y, self.native):
                return self.fail(path, "ndarray elements differ")
            return True
        elif kind == "tensor":
            x, y = dict(a.value), dict(b.value)
            if x != y:
                return self.fail(path, "tensor %r != %r" % (x, y))
        elif kind == "object":
            pa, pb = st.children(a), st.children(b)
            oa, ob = a.obj, b.obj
            shape_a = (oa.state is None, oa.state_setter is None, len(oa.listitems),
                       len(oa.dictitems))
            shape_b = (ob.state is None, ob.state_setter is None, len(ob.listitems),
                       len(ob.dictitems))
            if shape_a != shape_b:
                return self.fail(path, "object parts differ %r != %r" % (shape_a, shape_b))
            return all(self.eq(x, y, "%s.%d" % (path, i)) for i, (x, y) in
                       enumerate(zip(pa, pb)))
        if kind in ("set", "frozenset"):
            return self.unordered(a.items, b.items, path)
        if len(a.items) != len(b.items):
            return self.fail(path, "%d items != %d" % (len(a.items), len(b.items)))
        return all(self.eq(x, y, "%s[%d]" % (path, i)) for i, (x, y) in
                   enumerate(zip(a.items, b.items)))

    def unordered(self, xs, ys, path):
        if len(xs) != len(ys):
            return self.fail(path, "%d items != %d" % (len(xs), len(ys)))
        snap = self.snapshot()
        why = self.why
        if all(self.eq(x, y, path + "{}") for x, y in zip(xs, ys)):
            return True
        self.restore(snap)
        self.why = why
        left = list(ys)
        for x in xs:
            for j, y in enumerate(left):
                snap = self.snapshot()
                if self.eq(x, y, path + "{}"):
                    del left[j]
                    break
                self.restore(snap)
                self.why = why
            else:
                return self.fail(path, "no match for a set item")
        return True


def equal(a, b, immutable_sharing=True, native_byteorder=False):
    """(bool, reason) for two values given as JSON text or Nodes.

    `native_byteorder` compares big-endian arrays by their elements'
    values, as numpy's loader turns them into native (little-endian) ones."""
    if not isinstance(a, st.Node):
        a = parse(a)
    if not isinstance(b, st.Node):
        b = parse(b)
    m = _Matcher(immutable_sharing, native_byteorder)
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, 20000))
    try:
        ok = m.eq(a, b, "")
    finally:
        sys.setrecursionlimit(saved)
    return ok, m.why
