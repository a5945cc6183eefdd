#!/usr/bin/env python3
"""A serialcheck testee for any Python dumps/loads pair.

Serves the testee protocol (docs/testee-protocol.md) on standard input and
output, so that `serialcheck run --testee NAME="python3 serialcheck_testee.py
..."` can gate a serializer that lives outside serialcheck: pickle under
another interpreter (PyPy), a fork of pickle, cloudpickle, dill, zodbpickle,
or a maintainer's own working tree.

Values travel in the canonical JSON form of docs/value-json.md. This file
turns them into live Python objects (for dumps) and describes live objects
as values again (for loads) exactly as serialcheck's embedded bridge does
(harness/python/bridge.cpp): the same kinds, the same sharing, the same
reduce of objects that are not builtin kinds, so that this adapter under
CPython agrees with the in-process subjects case by case.

Only the standard library is used; numpy and torch are used when they
import. Neither conversion recurses, so deeply nested values work.

Run `serialcheck_testee.py --help` for the command line. As a module:

    import serialcheck_testee as st
    st.value_to_json(obj, protocol=5)   # -> the value as parsed JSON
    st.value_to_text(obj, protocol=5)   # -> canonical JSON text
    st.value_from_json(doc)             # doc: parsed JSON or JSON text
    st.serve(dumps, loads, name=...)    # serve the protocol on stdin/stdout
"""

import argparse
import binascii
import functools
import importlib
import inspect
import io
import json
import math
import os
import pickle
import pickletools
import platform
import re
import select
import struct
import sys
import threading
import time
import traceback
import types

try:
    import copyreg
except ImportError:  # Python 2
    import copy_reg as copyreg

# Python 2 (2.7): the value model's str is `unicode`, its bytes is `str`,
# its int is int and long (docs/testee-protocol.md names the mapping, and the
# hello says it).
PY2 = sys.version_info[0] == 2
if PY2:
    TEXT = unicode  # noqa: F821 (Python 2)
    INTS = (int, long)  # noqa: F821
    BYTES = str
    _intern = intern  # noqa: F821
    RecursionError = RuntimeError
else:
    TEXT = str
    INTS = (int,)
    BYTES = bytes
    _intern = sys.intern
    RecursionError = RecursionError
_timer = getattr(time, "perf_counter", time.time)


# Python 2's copy_reg has no __newobj_ex__: nothing is it there.
_NEWOBJ_EX = getattr(copyreg, "__newobj_ex__", object())


def _tohex(data):
    return binascii.hexlify(data).decode("ascii")


def _fromhex(text):
    return binascii.unhexlify(text.encode("ascii") if isinstance(text, TEXT) else text)


# A str holding a surrogate code point is written as str-utf8sp.
_LONE_SURROGATE = re.compile(u"[\ud800-\udfff]")
# Python 2's UTF-8 codec joins a high and a low surrogate into one code
# point, so such a str cannot be pickled as it is there.
_SURROGATE_PAIR = re.compile(u"[\ud800-\udbff][\udc00-\udfff]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


_SURROGATE_SPLIT = re.compile(u"([\ud800-\udfff])")


def _encode_utf8sp(s):
    """UTF-8 with each surrogate code point as its own three bytes (Python 2's
    codec would join a high and a low one into one four-byte sequence)."""
    if not PY2:
        return s.encode("utf-8", "surrogatepass")
    out = []
    for i, piece in enumerate(_SURROGATE_SPLIT.split(s)):
        if i % 2:
            c = ord(piece)
            out.append(bytearray((0xe0 | c >> 12, 0x80 | (c >> 6) & 0x3f, 0x80 | c & 0x3f)))
        else:
            out.append(piece.encode("utf-8"))
    return b"".join(BYTES(b) for b in out)


def _decode_utf8sp(raw):
    """UTF-8 with lone surrogates allowed (Python 2's codec allows them)."""
    return raw.decode("utf-8") if PY2 else raw.decode("utf-8", "surrogatepass")


def _byte_view(data):
    """A frame to write: the bytes the serializer returned, unsplit."""
    return data if PY2 else memoryview(data).cast("B")


def _nbytes(frame):
    return frame.nbytes if isinstance(frame, memoryview) else len(frame)


# Python 2 objects that pickle writes as globals (its save_global), beside
# functions and classes.
_PY2_GLOBAL_TYPES = (types.BuiltinFunctionType, type(len)) + (
    (types.ClassType,) if PY2 else ())  # noqa: the classic classes


__all__ = [
    "BridgeError", "Unsupported", "ValueFormError", "PRESETS",
    "value_to_json", "value_to_text", "value_from_json", "canonical_json",
    "serve", "main",
]

PROTOCOL_VERSION = 1
PickleBuffer = getattr(pickle, "PickleBuffer", None)

# The value kinds, named as serialcheck names them (Capabilities::kinds):
# pickle-buffer only where pickle has PickleBuffer (3.8 on).
BASE_KINDS = tuple(k for k in (
    "none", "bool", "int", "float", "str", "bytes", "bytearray", "list", "tuple", "dict", "set",
    "frozenset", "global", "object", "pickle-buffer", "module")
    if k != "pickle-buffer" or PickleBuffer is not None)
ATOMS = frozenset(("none", "bool", "int", "float"))
DISTINCTIONS = ("tuple", "int-float", "big-int", "bytes-bytearray", "set-frozenset", "set-list",
                "immutable-sharing", "sharing", "str-bytes", "nan-bits", "dict-order")

MODULE_TYPES_MODULE = "serialcheck_module_types"
TORCH_DTYPES = ("float64", "float32", "float16", "bfloat16", "complex128", "complex64",
                "int64", "int32", "int16", "int8", "uint8", "bool")
CANONICAL_NAN_BITS = "7ff8000000000000"
# The fixtures module beside this file: its Persistent objects stand for
# persistent ids, as they do in serialcheck's in-process Python subjects.
FIXTURES_MODULE = "serialcheck_fixtures"
# The module beside this file that defines and calls the sources of
# callable.by-value (define-dumps and load-call).
BYVALUE_MODULE = "serialcheck_byvalue"
# The module beside this file that builds and compares the stdlib values of
# cross.stdlib (dumps-recipe and loads-recipe).
STDLIB_MODULE = "serialcheck_stdlib"
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class BridgeError(Exception):
    """The object or value has no counterpart on the other side (the kind the
    embedded bridge reports for the same problem)."""


class Unsupported(Exception):
    """This interpreter cannot express the value at all (protocol kind
    `unsupported`: the runner discards the case)."""


class ValueFormError(ValueError):
    """A document that is not a canonical-JSON value; `where` is a JSON pointer."""

    def __init__(self, where, message):
        ValueError.__init__(self, "%s: %s" % (where or "(root)", message))
        self.where = where


# ---------------------------------------------------------------------------
# The value graph: one Node per value node, shared nodes shared.

class Node(object):
    """One node of a value graph.

    `value` holds the payload: None/bool/int/float for atoms, the str, the
    bytes (bytes, bytearray), (module, qualname) for a global, (bytes,
    readonly) for a pickle buffer, a dict of the layout for ndarray and
    tensor, the name for a module, (hex, device) for a device buffer.
    `items` holds the children: container items (a dict's as key, value,
    key, value...), a module's class, a tensor's grad, a persid's pid.
    `obj` holds an object's reduce parts."""

    __slots__ = ("kind", "value", "items", "obj")

    def __init__(self, kind, value=None, items=None, obj=None):
        self.kind = kind
        self.value = value
        self.items = items if items is not None else []
        self.obj = obj


class ObjectParts(object):
    __slots__ = ("callable", "args", "state", "state_setter", "listitems", "dictitems")

    def __init__(self):
        self.callable = None
        self.args = None
        self.state = None          # a Node (kind "none" for a None state) or None: absent
        self.state_setter = None
        self.listitems = []
        self.dictitems = []        # flat: key, value, key, value...


def children(n):
    """The children of `n` in the order the JSON form writes them."""
    if n.kind == "object":
        o = n.obj
        out = [o.callable, o.args]
        if o.state is not None:
            out.append(o.state)
        if o.state_setter is not None:
            out.append(o.state_setter)
        out.extend(o.listitems)
        out.extend(o.dictitems)
        return out
    return n.items


class _NoIntLimit(object):
    """Lifts Python's limit on int <-> decimal text for a while (values may
    hold ints of any size)."""

    def __enter__(self):
        get = getattr(sys, "get_int_max_str_digits", None)
        self.saved = get() if get else None
        if self.saved:
            sys.set_int_max_str_digits(0)

    def __exit__(self, *exc):
        if self.saved:
            sys.set_int_max_str_digits(self.saved)


class _DeepRecursion(object):
    """A high recursion limit while the json module parses a deep document
    (its parser recurses; serve() runs on a thread with a large stack)."""

    LIMIT = 200000

    def __enter__(self):
        self.saved = sys.getrecursionlimit()
        if self.saved < self.LIMIT:
            sys.setrecursionlimit(self.LIMIT)

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.saved)


def _json_loads(text):
    with _DeepRecursion(), _NoIntLimit():
        return json.loads(text)


# ---------------------------------------------------------------------------
# Canonical JSON -> graph

_TAGS = {
    # tag: the members allowed beside it
    "int": (), "float": ("bits",), "str": ("id",), "str-utf8sp": ("id",),
    "bytes": ("id",), "bytearray": ("id",), "list": ("id",), "tuple": ("id",),
    "set": ("id",), "frozenset": ("id",), "dict": ("id",), "global": ("id",),
    "object": ("id",), "persid": ("id",), "buffer": ("id", "readonly"),
    "ndarray": ("id",), "tensor": ("id",), "module": ("id", "class"),
    "device-buffer": ("id", "device"),
}
_SEQUENCE_KIND = {"list": "list", "tuple": "tuple", "set": "set", "frozenset": "frozenset"}
_OBJECT_MEMBERS = ("callable", "args", "state", "state_setter", "listitems", "dictitems")
_NDARRAY_MEMBERS = ("dtype", "shape", "strides", "offset", "writeable", "data")
_TENSOR_MEMBERS = ("dtype", "shape", "strides", "offset", "device", "requires_grad", "data")


_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")


def _pointer(path):
    parts = []
    while path is not None:
        path, key = path
        parts.append("/" + str(key).replace("~", "~0").replace("/", "~1"))
    return "".join(reversed(parts))


def _is_int(j):
    return isinstance(j, INTS) and not isinstance(j, bool)


def _hex(text, path, member):
    if not isinstance(text, TEXT):
        raise ValueFormError(_pointer((path, member)), "hexadecimal must be a string")
    try:
        return _fromhex(text)
    except (ValueError, TypeError, UnicodeError):
        raise ValueFormError(_pointer((path, member)), "malformed hexadecimal")


def _int_list(j, path, member):
    if not isinstance(j, list) or not all(_is_int(v) for v in j):
        raise ValueFormError(_pointer((path, member)), "must be an array of integers")
    return list(j)


def _parse_float(j, path):
    text = j.get("float")
    if not isinstance(text, TEXT):
        raise ValueFormError(_pointer((path, "float")), "a float must be a string")
    try:
        f = float(text)
    except ValueError:
        raise ValueFormError(_pointer((path, "float")), "not a float: %r" % text)
    if "bits" in j:
        bits = j["bits"]
        if not (isinstance(bits, TEXT) and len(bits) == 16):
            raise ValueFormError(_pointer((path, "bits")), "bits must be 16 hex digits")
        try:
            f2 = struct.unpack(">d", _fromhex(bits))[0]
        except (ValueError, TypeError, UnicodeError):
            raise ValueFormError(_pointer((path, "bits")), "bits must be 16 hex digits")
        if not (f != f and f2 != f2):
            raise ValueFormError(_pointer((path, "bits")), "bits are only for a NaN")
        f = f2
    elif f != f:
        f = struct.unpack(">d", _fromhex(CANONICAL_NAN_BITS))[0]
    return f


def nodes_from_json(doc):
    """Parses a canonical-JSON value (already parsed by `json`) into a graph
    and returns its root Node. Raises ValueFormError. Does not recurse."""
    ids = {}
    root = [None]
    # (json value, list to put the node in, index, path for errors)
    todo = [(doc, root, 0, None)]
    while todo:
        j, target, index, path = todo.pop()
        if type(j) is _ObjectHead:
            o = j.parts
            o.callable, o.args, o.state, o.state_setter = j.head
            if o.args.kind != "tuple":
                raise ValueFormError(_pointer(j.path), "an object's args must be a tuple")
            continue
        if j is None:
            target[index] = Node("none")
            continue
        if isinstance(j, bool):
            target[index] = Node("bool", j)
            continue
        if isinstance(j, INTS):
            if not INT64_MIN <= j < (1 << 64):
                raise ValueFormError(_pointer(path), "a bare integer beyond 64 bits")
            target[index] = Node("int", int(j))
            continue
        if isinstance(j, TEXT):
            target[index] = Node("str", j)
            continue
        if isinstance(j, float):
            raise ValueFormError(_pointer(path), "a bare non-integer number")
        if isinstance(j, list):
            raise ValueFormError(_pointer(path), "a bare JSON array")
        if not isinstance(j, dict):
            raise ValueFormError(_pointer(path), "not a value")
        if "ref" in j:
            if len(j) != 1:
                raise ValueFormError(_pointer(path), "a ref has other members")
            ref = j["ref"]
            if not _is_int(ref) or ref not in ids:
                raise ValueFormError(_pointer((path, "ref")), "no node with id %r before" % (ref,))
            target[index] = ids[ref]
            continue
        tags = [k for k in j if k in _TAGS]
        if len(tags) != 1:
            raise ValueFormError(_pointer(path), "a tagged object needs exactly one tag, not %d"
                                 % len(tags))
        tag = tags[0]
        allowed = _TAGS[tag]
        for k in j:
            if k != tag and k not in allowed:
                raise ValueFormError(_pointer((path, k)), "member %r is not allowed on %s"
                                     % (k, tag))
        body = j[tag]
        bpath = (path, tag)
        n = None
        pending = []  # (json, target list, index, path), in document order
        if tag == "int":
            if not isinstance(body, TEXT):
                raise ValueFormError(_pointer(bpath), "an int must be a decimal string")
            if not _DECIMAL.match(body):
                raise ValueFormError(_pointer(bpath), "not a decimal integer: %r" % body)
            with _NoIntLimit():
                n = Node("int", int(int(body)))
        elif tag == "float":
            n = Node("float", _parse_float(j, path))
        elif tag == "str":
            if not isinstance(body, TEXT):
                raise ValueFormError(_pointer(bpath), "must be a string")
            n = Node("str", body)
        elif tag == "str-utf8sp":
            raw = _hex(body, path, tag)
            try:
                n = Node("str", _decode_utf8sp(raw))
            except UnicodeDecodeError:
                raise ValueFormError(_pointer(bpath), "not UTF-8 (lone surrogates allowed)")
        elif tag in ("bytes", "bytearray"):
            n = Node(tag, _hex(body, path, tag))
        elif tag in _SEQUENCE_KIND:
            if not isinstance(body, list):
                raise ValueFormError(_pointer(bpath), "must be an array")
            n = Node(_SEQUENCE_KIND[tag], None, [None] * len(body))
            pending = [(v, n.items, i, (bpath, i)) for i, v in enumerate(body)]
        elif tag == "dict":
            if not isinstance(body, list):
                raise ValueFormError(_pointer(bpath), "must be an array of pairs")
            n = Node("dict", None, [None] * (2 * len(body)))
            for i, pair in enumerate(body):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ValueFormError(_pointer((bpath, i)), "a dict entry must be a pair")
                pending.append((pair[0], n.items, 2 * i, ((bpath, i), 0)))
                pending.append((pair[1], n.items, 2 * i + 1, ((bpath, i), 1)))
        elif tag == "global":
            if not (isinstance(body, list) and len(body) == 2
                    and all(isinstance(s, TEXT) for s in body)):
                raise ValueFormError(_pointer(bpath), "a global is two strings")
            n = Node("global", (body[0], body[1]))
        elif tag == "persid":
            n = Node("persid", None, [None])
            pending = [(body, n.items, 0, bpath)]
        elif tag == "buffer":
            readonly = j.get("readonly")
            if not isinstance(readonly, bool):
                raise ValueFormError(_pointer(path), "a buffer needs a boolean \"readonly\"")
            n = Node("pickle-buffer", (_hex(body, path, tag), readonly))
        elif tag == "object":
            if not isinstance(body, dict):
                raise ValueFormError(_pointer(bpath), "must be an object")
            for k in body:
                if k not in _OBJECT_MEMBERS:
                    raise ValueFormError(_pointer((bpath, k)), "unknown member of an object")
            if "callable" not in body or "args" not in body:
                raise ValueFormError(_pointer(bpath), "an object needs callable and args")
            args = body["args"]
            if not (isinstance(args, dict) and ("tuple" in args or "ref" in args)):
                raise ValueFormError(_pointer((bpath, "args")), "args must be a tuple")
            o = ObjectParts()
            n = Node("object", obj=o)
            head = [None] * 4
            pending.append((body["callable"], head, 0, (bpath, "callable")))
            pending.append((args, head, 1, (bpath, "args")))
            if "state" in body:
                pending.append((body["state"], head, 2, (bpath, "state")))
            if "state_setter" in body:
                pending.append((body["state_setter"], head, 3, (bpath, "state_setter")))
            li = body.get("listitems", [])
            di = body.get("dictitems", [])
            if not isinstance(li, list):
                raise ValueFormError(_pointer((bpath, "listitems")), "must be an array")
            if not isinstance(di, list):
                raise ValueFormError(_pointer((bpath, "dictitems")), "must be an array")
            o.listitems = [None] * len(li)
            o.dictitems = [None] * (2 * len(di))
            for i, v in enumerate(li):
                pending.append((v, o.listitems, i, ((bpath, "listitems"), i)))
            for i, pair in enumerate(di):
                where = ((bpath, "dictitems"), i)
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ValueFormError(_pointer(where), "a dictitems entry must be a pair")
                pending.append((pair[0], o.dictitems, 2 * i, (where, 0)))
                pending.append((pair[1], o.dictitems, 2 * i + 1, (where, 1)))
            # The head parts are placed by a fix-up once they are parsed.
            todo.append((_ObjectHead(o, head, (bpath, "args")), None, 0, None))
        elif tag == "ndarray":
            n = Node("ndarray", _parse_layout(body, bpath, _NDARRAY_MEMBERS))
        elif tag == "tensor":
            members = _TENSOR_MEMBERS + ("grad",)
            n = Node("tensor", _parse_layout(body, bpath, members))
            if "grad" in body:
                n.items = [None]
                pending.append((body["grad"], n.items, 0, (bpath, "grad")))
        elif tag == "module":
            if not isinstance(body, TEXT) or not body or "" in body.split("."):
                raise ValueFormError(_pointer(bpath), "a module name is dotted non-empty parts")
            n = Node("module", body)
            if "class" in j:
                cls = j["class"]
                if not isinstance(cls, dict) or not ("global" in cls or "ref" in cls):
                    raise ValueFormError(_pointer((path, "class")), "the class must be a global")
                n.items = [None]
                pending.append((cls, n.items, 0, (path, "class")))
        elif tag == "device-buffer":
            device = j.get("device")
            if not isinstance(device, TEXT):
                raise ValueFormError(_pointer((path, "device")), "a device must be a string")
            n = Node("device-buffer", (_hex(body, path, tag), device))
        if "id" in j:
            ident = j["id"]
            if not _is_int(ident) or ident <= 0:
                raise ValueFormError(_pointer((path, "id")), "an id must be a positive integer")
            if ident in ids:
                raise ValueFormError(_pointer((path, "id")), "id %d is defined twice" % ident)
            ids[ident] = n
        target[index] = n
        todo.extend(reversed(pending))
    return root[0]


class _ObjectHead(object):
    """A marker on the parse stack: once popped, the callable/args/state/setter
    parsed into `head` (pushed after it, so parsed before it) are placed."""
    __slots__ = ("parts", "head", "path")

    def __init__(self, parts, head, path):
        self.parts = parts
        self.head = head
        self.path = path


def _parse_layout(body, path, members):
    if not isinstance(body, dict):
        raise ValueFormError(_pointer(path), "must be an object")
    for k in body:
        if k not in members:
            raise ValueFormError(_pointer((path, k)), "unknown member")
    for k in members:
        if k != "grad" and k not in body:
            raise ValueFormError(_pointer(path), "missing member %r" % k)
    out = {
        "dtype": body["dtype"],
        "shape": _int_list(body["shape"], path, "shape"),
        "strides": _int_list(body["strides"], path, "strides"),
        "offset": body["offset"],
        "data": _hex(body["data"], path, "data"),
    }
    if not isinstance(out["dtype"], TEXT):
        raise ValueFormError(_pointer((path, "dtype")), "must be a string")
    if not _is_int(out["offset"]):
        raise ValueFormError(_pointer((path, "offset")), "must be an integer")
    if len(out["strides"]) != len(out["shape"]):
        raise ValueFormError(_pointer((path, "strides")), "one stride per dimension")
    if any(d < 0 for d in out["shape"]):
        raise ValueFormError(_pointer((path, "shape")), "a negative length")
    for k in ("writeable", "requires_grad"):
        if k in members:
            if not isinstance(body[k], bool):
                raise ValueFormError(_pointer((path, k)), "must be a bool")
            out[k] = body[k]
    if "device" in members:
        if not isinstance(body["device"], TEXT):
            raise ValueFormError(_pointer((path, "device")), "must be a string")
        out["device"] = body["device"]
    return out


def _walk(root):
    """Every node reachable from `root`, once each."""
    seen = set()
    todo = [root]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        todo.extend(children(n))


# ---------------------------------------------------------------------------
# graph -> canonical JSON text (as reference/value/json.cpp writes it)

def _json_str(s):
    return json.dumps(s, ensure_ascii=False)


def _float_text(f):
    if f != f:
        bits = _tohex(struct.pack(">d", f))
        if bits != CANONICAL_NAN_BITS:
            return '{"float":"nan","bits":"%s"}' % bits
        return '{"float":"nan"}'
    return '{"float":"%s"}' % repr(f)


def _push_pairs(stack, items):
    """Pushes the flat key, value `items` onto text_from_nodes's stack so that
    they come off as [key,value],[key,value]..."""
    for i in range(len(items) // 2 - 1, -1, -1):
        stack.append("]")
        stack.append(items[2 * i + 1])
        stack.append(",")
        stack.append(items[2 * i])
        stack.append("[" if i == 0 else ",[")


def text_from_nodes(root):
    """The compact canonical JSON text of the graph at `root`."""
    refs = {}
    todo = [root]
    refs[id(root)] = 0
    if root.kind not in ATOMS:
        refs[id(root)] = 1
    order = [root]
    while todo:
        n = todo.pop()
        for c in children(n):
            if c.kind in ATOMS:
                continue
            k = id(c)
            if k in refs:
                refs[k] += 1
            else:
                refs[k] = 1
                todo.append(c)
                order.append(c)
    ids = {}
    next_id = [1]
    out = []
    stack = [root]  # Nodes to write, or str text to copy
    with _NoIntLimit():
        while stack:
            n = stack.pop()
            if type(n) is not Node:
                out.append(n)
                continue
            kind = n.kind
            ident = 0
            if kind not in ATOMS and refs.get(id(n), 0) >= 2:
                if id(n) in ids:
                    out.append('{"ref":%d}' % ids[id(n)])
                    continue
                ident = next_id[0]
                ids[id(n)] = ident
                next_id[0] += 1
            idm = ',"id":%d' % ident if ident else ""
            if kind == "none":
                out.append("null")
            elif kind == "bool":
                out.append("true" if n.value else "false")
            elif kind == "int":
                v = n.value
                out.append(str(v) if INT64_MIN <= v <= INT64_MAX else '{"int":"%d"}' % v)
            elif kind == "float":
                out.append(_float_text(n.value))
            elif kind == "str":
                s = n.value
                plain = _LONE_SURROGATE.search(s) is None
                if plain and not ident:
                    out.append(_json_str(s))
                elif plain:
                    out.append('{"str":%s%s}' % (_json_str(s), idm))
                else:
                    out.append('{"str-utf8sp":"%s"%s}'
                               % (_tohex(_encode_utf8sp(s)), idm))
            elif kind in ("bytes", "bytearray"):
                out.append('{"%s":"%s"%s}' % (kind, _tohex(n.value), idm))
            elif kind == "pickle-buffer":
                data, readonly = n.value
                out.append('{"buffer":"%s"%s,"readonly":%s}'
                           % (_tohex(data), idm, "true" if readonly else "false"))
            elif kind == "global":
                out.append('{"global":[%s,%s]%s}'
                           % (_json_str(n.value[0]), _json_str(n.value[1]), idm))
            elif kind in ("list", "tuple", "set", "frozenset"):
                out.append('{"%s":[' % kind)
                stack.append("]" + idm + "}")
                items = n.items
                for i in range(len(items) - 1, -1, -1):
                    stack.append(items[i])
                    if i:
                        stack.append(",")
            elif kind == "dict":
                out.append('{"dict":[')
                stack.append("]" + idm + "}")
                _push_pairs(stack, n.items)
            elif kind == "persid":
                out.append('{"persid":')
                stack.append(idm + "}")
                stack.append(n.items[0])
            elif kind == "object":
                o = n.obj
                out.append('{"object":{"callable":')
                stack.append("}" + idm + "}")
                if o.dictitems:
                    stack.append("]")
                    _push_pairs(stack, o.dictitems)
                    stack.append(',"dictitems":[')
                if o.listitems:
                    stack.append("]")
                    li = o.listitems
                    for i in range(len(li) - 1, -1, -1):
                        stack.append(li[i])
                        if i:
                            stack.append(",")
                    stack.append(',"listitems":[')
                if o.state_setter is not None:
                    stack.append(o.state_setter)
                    stack.append(',"state_setter":')
                if o.state is not None:
                    stack.append(o.state)
                    stack.append(',"state":')
                stack.append(o.args)
                stack.append(',"args":')
                stack.append(o.callable)
            elif kind == "ndarray":
                a = n.value
                out.append('{"ndarray":{%s,"writeable":%s,"data":"%s"}%s}'
                           % (_layout_text(a), "true" if a["writeable"] else "false",
                              _tohex(a["data"]), idm))
            elif kind == "tensor":
                a = n.value
                out.append('{"tensor":{%s,"device":%s,"requires_grad":%s,"data":"%s"'
                           % (_layout_text(a), _json_str(a["device"]),
                              "true" if a["requires_grad"] else "false", _tohex(a["data"])))
                if n.items:
                    out.append(',"grad":')
                    stack.append("}" + idm + "}")
                    stack.append(n.items[0])
                else:
                    out.append("}" + idm + "}")
            elif kind == "module":
                out.append('{"module":%s%s' % (_json_str(n.value), idm))
                if n.items:
                    out.append(',"class":')
                    stack.append("}")
                    stack.append(n.items[0])
                else:
                    out.append("}")
            elif kind == "device-buffer":
                data, device = n.value
                out.append('{"device-buffer":"%s"%s,"device":%s}'
                           % (_tohex(data), idm, _json_str(device)))
            else:
                raise BridgeError("unknown node kind %r" % kind)
    return "".join(out)


def _layout_text(a):
    return '"dtype":%s,"shape":[%s],"strides":[%s],"offset":%d' % (
        _json_str(a["dtype"]), ",".join(str(v) for v in a["shape"]),
        ",".join(str(v) for v in a["strides"]), a["offset"])


# ---------------------------------------------------------------------------
# Domain objects: numpy arrays, torch tensors, modules (as the bridge's
# domain_objects.cpp makes and reads them)

def _parse_numeric_dtype(s):
    """The itemsize of a numeric numpy dtype string (|b1, <i2, >f8...), or None."""
    if not isinstance(s, TEXT) or len(s) not in (3, 4):
        return None
    order, kind, size = s[0], s[1], s[2:]
    sizes = {"1": 1, "2": 2, "4": 4, "8": 8, "16": 16}
    if size not in sizes:
        return None
    itemsize = sizes[size]
    ok = {"b": itemsize == 1, "i": itemsize <= 8, "u": itemsize <= 8,
          "f": 2 <= itemsize <= 8, "c": itemsize in (8, 16)}.get(kind, False)
    if not ok:
        return None
    if (order != "|") if itemsize == 1 else (order not in "<>"):
        return None
    return itemsize


def _numpy():
    try:
        import numpy
    except Exception as e:  # ImportError, or a broken installation
        raise Unsupported("ndarray values need numpy, which does not import here: %s" % e)
    return numpy


def _torch():
    try:
        import torch
    except Exception as e:
        raise Unsupported("tensor values need torch, which does not import here: %s" % e)
    return torch


def make_ndarray(a):
    numpy = _numpy()
    if _parse_numeric_dtype(a["dtype"]) is None:
        raise BridgeError("ndarray: dtype %r is not a numeric numpy dtype" % (a["dtype"],))
    # numpy.dtype(str) is numpy's singleton for '<' and '|' dtypes and a new
    # object for '>' ones, as the bridge makes them.
    dtype = numpy.dtype(a["dtype"])
    array = numpy.ndarray(tuple(a["shape"]), dtype, buffer=bytearray(a["data"]),
                          offset=a["offset"], strides=tuple(a["strides"]))
    if not a["writeable"]:
        array.flags.writeable = False
    return array


def describe_ndarray(o):
    """The layout of an exact numpy.ndarray of a numeric dtype, or None."""
    numpy = sys.modules.get("numpy")
    if numpy is None or type(o) is not getattr(numpy, "ndarray", None):
        return None
    dtype = o.dtype
    s = dtype.str
    if dtype.metadata is not None:
        return None
    itemsize = _parse_numeric_dtype(s)
    if itemsize is None:
        return None
    shape = [int(v) for v in o.shape]
    strides = [int(v) for v in o.strides]
    a = {"dtype": s, "shape": shape, "strides": strides, "offset": 0,
         "writeable": bool(o.flags.writeable), "data": b""}
    size = 1
    for d in shape:
        size *= d
    if size == 0:
        return a
    # The bytes from the lowest to one past the highest element.
    lo, hi = 0, itemsize
    for d, st in zip(shape, strides):
        span = (d - 1) * st
        if span < 0:
            lo += span
        else:
            hi += span
    import ctypes
    first = o.__array_interface__["data"][0]
    a["data"] = ctypes.string_at(first + lo, hi - lo)
    a["offset"] = -lo
    return a


def make_tensor(a, grad):
    torch = _torch()
    if a["dtype"] not in TORCH_DTYPES:
        raise BridgeError("tensor: unknown dtype %r" % (a["dtype"],))
    data = a["data"]
    if data:
        raw = torch.frombuffer(bytearray(data), dtype=torch.uint8).clone()
    else:
        raw = torch.empty(0, dtype=torch.uint8)
    if a["device"] != "cpu":
        raw = raw.to(a["device"])
    t = torch.empty(0, dtype=getattr(torch, a["dtype"]), device=raw.device)
    t.set_(raw.storage().untyped(), a["offset"], a["shape"], a["strides"])
    t.requires_grad_(a["requires_grad"])
    if grad is not None:
        t.grad = grad
    return t


def is_exact_tensor(o):
    torch = sys.modules.get("torch")
    return (torch is not None and type(o).__name__ == "Tensor"
            and type(o) is getattr(torch, "Tensor", None))


def describe_tensor(t):
    """(layout, grad or None) of an exact torch.Tensor the model holds, or None."""
    import torch
    if (t.layout is not torch.strided or t.is_quantized or t.device.type not in ("cpu", "cuda")
            or any(n is not None for n in t.names)):
        return None
    dtype = str(t.dtype).rpartition(".")[2]
    if dtype not in TORCH_DTYPES:
        return None
    storage = t.detach().storage().untyped()
    raw = torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)
    data = raw.cpu().numpy().tobytes()
    grad = t.grad if t.is_leaf else None
    a = {"dtype": dtype, "shape": [int(v) for v in t.shape],
         "strides": [int(v) for v in t.stride()], "offset": int(t.storage_offset()),
         "device": str(t.device), "requires_grad": bool(t.requires_grad), "data": data}
    return a, grad


def module_types_registry():
    module = sys.modules.get(MODULE_TYPES_MODULE)
    if module is None:
        module = types.ModuleType(
            MODULE_TYPES_MODULE, "types.ModuleType subclasses named by generated values.")
        sys.modules[MODULE_TYPES_MODULE] = module
    return module


def module_type(name):
    """The class serialcheck_module_types.<name>, a direct ModuleType subclass
    defined on first use (so generated values can name one everywhere)."""
    if not _IDENTIFIER.match(name):
        raise ValueError("%s.%s: a module type name must be an identifier"
                         % (MODULE_TYPES_MODULE, name))
    module = module_types_registry()
    cls = module.__dict__.get(name)
    if cls is None:
        cls = type(str(name), (types.ModuleType,), {"__module__": MODULE_TYPES_MODULE,
                                                    "__qualname__": name})
        setattr(module, name, cls)
    return cls


def materialize_module(name, cls):
    if PY2:
        name = _PY3_MODULES.get(name, name)
    module = sys.modules.get(name)
    if module is None:
        if cls is None:
            importlib.import_module(name)
            module = sys.modules[name]
        else:
            module = cls(name)
            sys.modules[name] = module
    return module


def walk_qualname(obj, qualname):
    """pickle's _getattribute: getattr along the dotted name, no <locals>."""
    for part in qualname.split("."):
        if part == "<locals>":
            raise AttributeError("Can't get local attribute %r on %r" % (qualname, obj))
        obj = getattr(obj, part)
    return obj


def resolve_global(module, qualname):
    """What pickle's find_class finds, with _compat_pickle's Python 2 names
    as a fallback. On Python 2 the value's Python 3 name is first mapped to
    the Python 2 one (what Python 3's pickler writes below protocol 3). A
    name this interpreter cannot have (a fixture class its version lacks, a
    newer part of the standard library) is Unsupported."""
    if PY2:
        module, qualname = _py2_name(module, qualname)
        if "." in qualname and module not in (MODULE_TYPES_MODULE,):
            # Python 2's pickle names a global by __name__, so it has no
            # nested qualname (Outer.Inner, Class.method) to write.
            raise Unsupported("Python 2 cannot pickle %s.%s by reference: it names a global "
                              "by __name__, never a nested qualified name" % (module, qualname))
    try:
        return walk_qualname(importlib.import_module(module), qualname)
    except Exception as e:
        renamed = None
        if not PY2:
            import _compat_pickle
            renamed = _compat_pickle.NAME_MAPPING.get((module, qualname))
            if renamed is None and module in _compat_pickle.IMPORT_MAPPING:
                renamed = (_compat_pickle.IMPORT_MAPPING[module], qualname)
        if renamed is None:
            why = _missing_here(module, qualname, e)
            if why:
                raise Unsupported(why)
            raise
        return walk_qualname(importlib.import_module(renamed[0]), renamed[1])


# Modules of Python 3's standard library, with the version that added them,
# that values may name (a name in one of them is Unsupported before that).
_NEWER_MODULES = {
    "_operator": (3, 4), "asyncio": (3, 4), "concurrent": (3, 2), "contextvars": (3, 7),
    "dataclasses": (3, 7), "enum": (3, 4), "graphlib": (3, 9), "ipaddress": (3, 3),
    "lzma": (3, 3), "pathlib": (3, 4), "secrets": (3, 6), "selectors": (3, 4),
    "statistics": (3, 4), "tomllib": (3, 11), "typing": (3, 5), "zoneinfo": (3, 9),
    "builtins": (3, 0), "copyreg": (3, 0), "urllib.parse": (3, 0), "collections.abc": (3, 3),
}
# ...and those removed since, with the version that removed them.
_REMOVED_MODULES = dict(
    [(m, (3, 12)) for m in ("distutils", "imp", "asynchat", "asyncore", "smtpd")] +
    [(m, (3, 13)) for m in ("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr",
                            "mailcap", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr",
                            "spwd", "sunau", "telnetlib", "uu", "xdrlib", "lib2to3")])
# The Python whose names serialcheck's values hold (its embedded CPython): a
# name a standard-library module of an older Python lacks is taken for a
# newer name; on this version and later it is an error.
_VALUES_PYTHON = (3, 11)


def _stdlib_dirs():
    import sysconfig
    paths = sysconfig.get_paths()
    dirs = set(os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths)
    return tuple(d + os.sep for d in dirs)


def _is_stdlib(module):
    if module in sys.builtin_module_names:
        return True
    f = getattr(module if not isinstance(module, (str, TEXT)) else sys.modules.get(module),
                "__file__", None)
    if not f:
        return False
    f = os.path.realpath(f)
    return f.startswith(_stdlib_dirs()) and "-packages" + os.sep not in f


def _missing_here(module, qualname, error):
    """Why this interpreter cannot have module.qualname, or None when the name
    is simply wrong (an ImportError or AttributeError is the answer then)."""
    here = "%s %s" % (platform.python_implementation(), platform.python_version())
    if not isinstance(error, (ImportError, AttributeError)):
        return None
    mod = sys.modules.get(module)
    if module == FIXTURES_MODULE and mod is not None:
        if qualname.split(".")[0] in getattr(mod, "MISSING_HERE", ()):
            return ("%s.%s does not exist on %s (the fixtures module defines only the "
                    "classes this version can have)" % (module, qualname, here))
        return None
    if mod is not None and sys.version_info[:2] < _VALUES_PYTHON and _is_stdlib(module):
        return "%s.%s is not in the standard library of %s" % (module, qualname, here)
    top = module.split(".")[0]
    added = _NEWER_MODULES.get(module) or _NEWER_MODULES.get(top)
    if mod is None and added is not None and sys.version_info[:2] < added:
        return "%s is not in the standard library of %s (added in %d.%d)" % (
            module, here, added[0], added[1])
    removed = _REMOVED_MODULES.get(top)
    if mod is None and removed is not None and sys.version_info[:2] >= removed:
        return "%s is not in the standard library of %s (removed in %d.%d)" % (
            module, here, removed[0], removed[1])
    return None


# Python 2 and 3 names of the same global, as Python 3's pickle maps them
# below protocol 3 (_compat_pickle; the reference decoder's compat.cpp): the
# part of that table the standard library's Python 2 can meet.
_PY2_MODULES = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue",
    "SocketServer": "socketserver", "ConfigParser": "configparser", "repr": "reprlib",
    "thread": "_thread", "dummy_thread": "_dummy_thread", "urlparse": "urllib.parse",
    "robotparser": "urllib.robotparser", "urllib2": "urllib.request", "anydbm": "dbm",
    "_abcoll": "collections.abc", "httplib": "http.client", "Cookie": "http.cookies",
    "cookielib": "http.cookiejar", "htmlentitydefs": "html.entities",
    "HTMLParser": "html.parser", "xmlrpclib": "xmlrpc.client", "markupbase": "_markupbase",
    "BaseHTTPServer": "http.server", "commands": "subprocess", "dumbdbm": "dbm.dumb",
}
_PY3_MODULES = dict((v, k) for k, v in _PY2_MODULES.items())
_PY2_NAMES = {
    ("__builtin__", "xrange"): ("builtins", "range"),
    ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"),
    ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"),
    ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"),
    ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"),
    ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"),
}
_PY3_NAMES = dict((v, k) for k, v in _PY2_NAMES.items())
_PY3_NAMES[("_functools", "reduce")] = ("__builtin__", "reduce")
_PY3_NAMES[("builtins", "bytes")] = ("__builtin__", "str")


def _py2_name(module, name):
    """The Python 2 name of the Python 3 global module.name."""
    pair = _PY3_NAMES.get((module, name))
    if pair is not None:
        return pair
    return _PY3_MODULES.get(module, module), name


def _py3_name(module, name):
    """The Python 3 name of the Python 2 global module.name (as Python 3's
    fix_imports loads it)."""
    pair = _PY2_NAMES.get((module, name))
    if pair is not None:
        return pair
    if module == "exceptions":
        return "builtins", name
    return _PY2_MODULES.get(module, module), name


# copyreg's extension registry. From protocol 2 on pickle writes a global
# that copyreg.add_extension registered as EXT1/EXT2/EXT4 <code>, never
# memoized; the value graph holds it as the call
# copyreg._inverted_registry(code), an extension reference.
EXTENSION_REGISTRY = ("copyreg", "_inverted_registry")
MAX_EXTENSION_CODE = 0x7fffffff


def extension_code(n):
    """The code `n` refers to when it is an extension reference, else 0."""
    o = n.obj
    if n.kind != "object" or o is None:
        return 0
    if (o.state is not None or o.state_setter is not None or o.listitems or o.dictitems
            or o.callable is None or o.args is None):
        return 0
    if o.callable.kind != "global" or tuple(o.callable.value) != EXTENSION_REGISTRY:
        return 0
    if o.args.kind != "tuple" or len(o.args.items) != 1 or o.args.items[0].kind != "int":
        return 0
    code = o.args.items[0].value
    return code if 1 <= code <= MAX_EXTENSION_CODE else 0


def extension_node(code):
    """A new extension reference to `code`."""
    n = Node("object", obj=ObjectParts())
    n.obj.callable = Node("global", EXTENSION_REGISTRY)
    n.obj.args = Node("tuple", items=[Node("int", code)])
    return n


def registered_object(code):
    """What pickle's Unpickler.get_extension loads for `code`: the cached
    object, else the global copyreg._inverted_registry names (then cached)."""
    nil = []
    obj = copyreg._extension_cache.get(code, nil)
    if obj is not nil:
        return obj
    key = copyreg._inverted_registry.get(code)
    if not key:
        raise ValueError("unregistered extension code %d" % code)
    obj = resolve_global(*key)
    copyreg._extension_cache[code] = obj
    return obj


# ---------------------------------------------------------------------------
# graph -> Python objects, in the order pickle's loader makes them

_MAKE, _FILL, _CREATE, _LISTITEMS, _DICTITEMS, _STATE = range(6)


class _Builder(object):
    def __init__(self):
        self.made = {}      # id(node) -> object
        self.keep = []      # the nodes, so ids stay unique
        self.entry = {}     # id(node) -> stack index of its latest Make/Create task
        self.stack = []     # tasks: [node, step, next, fills, prev_entry]

    def build(self, root):
        self.visit(root)
        stack = self.stack
        made = self.made
        while stack:
            top = stack[-1]
            nxt = self.child(top)
            if nxt is not None:
                top[2] += 1
                if id(nxt) not in made:
                    self.visit(nxt)
                continue
            done = self.pop()
            self.finish(done)
        return made[id(root)]

    def put(self, n, obj):
        self.made[id(n)] = obj
        self.keep.append(n)

    def push(self, n, step):
        fills_like = step not in (_MAKE, _CREATE)
        fills = (self.stack[-1][3] if self.stack else 0) + (1 if fills_like else 0)
        task = [n, step, 0, fills, None]
        if not fills_like:
            prev = self.entry.get(id(n))
            task[4] = prev
            self.entry[id(n)] = len(self.stack)
        self.stack.append(task)

    def pop(self):
        task = self.stack.pop()
        if task[1] in (_MAKE, _CREATE):
            if task[4] is None:
                del self.entry[id(task[0])]
            else:
                self.entry[id(task[0])] = task[4]
        return task

    def visit(self, n):
        kind = n.kind
        if kind in ATOMS or kind == "str":
            self.put(n, n.value)
        elif kind == "bytes":
            self.put(n, BYTES(n.value))
        elif kind == "bytearray":
            self.put(n, bytearray(n.value))
        elif kind == "global":
            module, name = n.value
            if module == MODULE_TYPES_MODULE:
                self.put(n, module_type(name))
            else:
                self.put(n, resolve_global(module, name))
        elif kind == "pickle-buffer":
            if PickleBuffer is None:
                raise Unsupported("this Python has no pickle.PickleBuffer")
            data, readonly = n.value
            self.put(n, PickleBuffer(bytes(data) if readonly else bytearray(data)))
        elif kind == "ndarray":
            self.put(n, make_ndarray(n.value))
        elif kind == "list":
            self.put(n, [])
            self.push(n, _FILL)
        elif kind == "dict":
            self.put(n, {})
            self.push(n, _FILL)
        elif kind == "set":
            self.put(n, set())
            self.push(n, _FILL)
        elif kind == "object" and extension_code(n):
            self.put(n, registered_object(extension_code(n)))
        elif kind in ("tuple", "frozenset", "object", "tensor", "module", "persid"):
            self.enter(n)
        elif kind == "device-buffer":
            raise Unsupported("a device-buffer has no Python object here")
        else:
            raise BridgeError("unknown value kind %r" % kind)

    def enter(self, n):
        # An immutable (or reduced) object already in the making further down
        # is allowed, as in pickle, only when a mutable one made since breaks
        # the cycle.
        at = self.entry.get(id(n))
        if at is not None and self.stack[-1][3] == self.stack[at][3]:
            raise BridgeError("a %s contains itself through immutable objects only; "
                              "Python cannot build that" % n.kind)
        self.push(n, _CREATE if n.kind == "object" else _MAKE)

    @staticmethod
    def child(task):
        n, step, i = task[0], task[1], task[2]
        if step == _MAKE or step == _FILL:
            items = n.items
            return items[i] if i < len(items) else None
        o = n.obj
        if step == _CREATE:
            parts = (o.callable, o.args)
        elif step == _LISTITEMS:
            parts = o.listitems
        elif step == _DICTITEMS:
            parts = o.dictitems
        else:  # _STATE: the state first, then the setter (pickle's order)
            parts = [p for p in (o.state, o.state_setter) if p is not None]
        return parts[i] if i < len(parts) else None

    def part(self, n):
        return self.made[id(n)]

    def finish(self, task):
        n, step = task[0], task[1]
        made = self.made
        if step == _FILL:
            target = made[id(n)]
            items = n.items
            if n.kind == "list":
                for item in items:
                    target.append(made[id(item)])
            elif n.kind == "set":
                for item in items:
                    target.add(made[id(item)])
            else:
                for i in range(0, len(items), 2):
                    target[made[id(items[i])]] = made[id(items[i + 1])]
        elif step == _MAKE:
            if id(n) in made:
                return  # a nested entry made it already
            if n.kind == "tensor":
                self.put(n, make_tensor(n.value, self.part(n.items[0]) if n.items else None))
            elif n.kind == "module":
                self.put(n, materialize_module(n.value,
                                               self.part(n.items[0]) if n.items else None))
            elif n.kind == "tuple":
                self.put(n, tuple(made[id(i)] for i in n.items))
            elif n.kind == "persid":
                # What the fixtures module's persistent_load gives for the pid.
                self.put(n, fixtures_module().Persistent(self.part(n.items[0])))
            else:
                self.put(n, frozenset(made[id(i)] for i in n.items))
        elif step == _CREATE:
            if id(n) in made:
                return
            self.put(n, self.create(n))
            self.push(n, _LISTITEMS)
        elif step == _LISTITEMS:
            self.apply_listitems(n)
            self.push(n, _DICTITEMS)
        elif step == _DICTITEMS:
            target = made[id(n)]
            d = n.obj.dictitems
            for i in range(0, len(d), 2):
                target[made[id(d[i])]] = made[id(d[i + 1])]
            self.push(n, _STATE)
        else:
            self.apply_state(n)

    def create(self, n):
        """callable(*args), copyreg's NEWOBJ forms as cls.__new__(cls, ...)."""
        func = self.part(n.obj.callable)
        args = self.part(n.obj.args)
        if not isinstance(args, tuple):
            raise BridgeError("the args of an object must be a tuple, not %s"
                              % type(args).__name__)
        if func is copyreg.__newobj__:
            if not args:
                raise BridgeError("copyreg.__newobj__ needs a class as its first argument")
            cls = args[0]
            if not isinstance(cls, type):
                raise BridgeError("NEWOBJ class argument isn't a type: %r" % (cls,))
            return cls.__new__(*args)
        if func is _NEWOBJ_EX:
            if len(args) != 3:
                raise BridgeError("copyreg.__newobj_ex__ takes (cls, args, kwargs)")
            cls, cls_args, kwargs = args
            if not isinstance(cls, type):
                raise BridgeError("NEWOBJ_EX class argument isn't a type: %r" % (cls,))
            if not isinstance(cls_args, tuple):
                raise BridgeError("NEWOBJ_EX args argument isn't a tuple")
            if not isinstance(kwargs, dict):
                raise BridgeError("NEWOBJ_EX kwargs argument isn't a dict")
            return cls.__new__(cls, *cls_args, **kwargs)
        return func(*args)

    def apply_listitems(self, n):
        items = n.obj.listitems
        if not items:
            return
        target = self.made[id(n)]
        values = [self.made[id(i)] for i in items]
        try:
            extend = target.extend
        except AttributeError:
            append = target.append
            for v in values:
                append(v)
            return
        extend(values)

    def apply_state(self, n):
        """BUILD as pickle's load_build does it, or state_setter(obj, state)."""
        o = n.obj
        if o.state is None:
            return
        inst = self.made[id(n)]
        state = self.part(o.state)
        if o.state_setter is not None:
            self.part(o.state_setter)(inst, state)
            return
        try:
            setstate = inst.__setstate__
        except AttributeError:
            setstate = None
        if setstate is not None:
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst_dict = inst.__dict__
            intern = _intern
            for k, v in state.items():
                if type(k) is str:
                    inst_dict[intern(k)] = v
                else:
                    inst_dict[k] = v
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)


def objects_from_nodes(root):
    return _Builder().build(root)


def _neighbour(name):
    """The module `name` from beside this file, imported on first use (from
    sys.path when it is there already)."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if getattr(e, "name", None) != name:
            raise
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.append(here)
    return importlib.import_module(name)


def fixtures_module():
    """The fixtures module, imported on first use from beside this file when
    it is not on sys.path already."""
    return _neighbour(FIXTURES_MODULE)


def holds_persistent_ids(data):
    """Whether the pickle stream `data` has a PERSID or BINPERSID opcode
    (among those read before any malformed part, that one included).

    pickletools cannot read every PERSID that pickle writes: it decodes the
    line's escapes, which PERSID does not have, so a protocol 0 pid ending in
    a backslash (or holding "\\x") makes it raise. The opcode it stopped on
    is the byte after the last one it read, and counts when it is PERSID."""
    if b"P" not in data and b"Q" not in data:
        return False
    stream = io.BytesIO(data)
    end = 0  # where the last opcode read whole ends
    try:
        for op, _, _ in pickletools.genops(stream):
            if op.name in ("PERSID", "BINPERSID"):
                return True
            if op.name == "STOP":
                return False
            end = stream.tell()
    except Exception:
        return data[end:end + 1] in (b"P", b"Q")
    return False


# ---------------------------------------------------------------------------
# Python objects -> graph, as pickle's saver sees them

class _Describer(object):
    def __init__(self, protocol):
        self.protocol = protocol
        self.seen = {}     # id(object) -> Node
        self.alive = []    # everything in seen stays alive, so no id is reused
        self.work = []     # (object, node, extra)
        self.dispatch_table = copyreg.dispatch_table
        self.special_types = {type(None): None, type(NotImplemented): NotImplemented,
                              type(Ellipsis): Ellipsis}

    def describe(self, root):
        result = self.node_for(root)
        work = self.work
        while work:
            o, n, extra = work.pop()
            self.fill(o, n, extra)
        return result

    def remember(self, o, n):
        self.alive.append(o)
        self.seen[id(o)] = n
        return n

    def shell(self, o, kind, extra=None):
        n = Node(kind, obj=ObjectParts()) if kind == "object" else Node(kind)
        self.remember(o, n)
        self.work.append((o, n, extra))
        return n

    def node_for(self, o):
        n = self.seen.get(id(o))
        if n is not None:
            # A registered global is written as EXT at each reference, never
            # memoized, so each reference is a node of its own.
            code = extension_code(n)
            return extension_node(code) if code else n
        t = type(o)
        if o is None:
            return self.remember(o, Node("none"))
        if t is bool:
            return self.remember(o, Node("bool", o))
        if t in INTS:
            return self.remember(o, Node("int", o))
        if t is float:
            return self.remember(o, Node("float", o))
        if t is TEXT:
            return self.remember(o, Node("str", o))
        if t is BYTES:
            return self.remember(o, Node("bytes", o))
        if t is bytearray:
            return self.remember(o, Node("bytearray", BYTES(o)))
        if t is list:
            return self.shell(o, "list")
        if t is tuple:
            return self.shell(o, "tuple")
        if t is dict:
            return self.shell(o, "dict")
        if t is set:
            return self.shell(o, "set")
        if t is frozenset:
            return self.shell(o, "frozenset")
        if (PickleBuffer is not None and t is PickleBuffer) or t is memoryview:
            # Loaders hand out-of-band buffers back as the objects they were
            # given (or a read-only memoryview of them): the buffer they stand for.
            m = memoryview(o)
            try:
                return self.remember(o, Node("pickle-buffer", (m.tobytes(), bool(m.readonly))))
            finally:
                if not PY2:  # Python 2's memoryview has no release()
                    m.release()
        if t is types.FunctionType or (PY2 and t in _PY2_GLOBAL_TYPES):
            return self.remember(o, self.describe_global(o, None))
        if isinstance(o, type):
            # pickle's save_type: the types of the three singletons reduce to
            # type(singleton); every other class is a global.
            if o in self.special_types:
                return self.shell(o, "object", (type, (self.special_types[o],)))
            return self.remember(o, self.describe_global(o, None))
        array = describe_ndarray(o)
        if array is not None:
            return self.remember(o, Node("ndarray", array))
        if isinstance(o, types.ModuleType):
            name = o.__dict__.get("__name__")
            if not isinstance(name, (str, TEXT)):
                raise SystemError("nameless module")
            if PY2:
                name = _PY2_MODULES.get(name, name)
            n = Node("module", TEXT(name))
            self.remember(o, n)
            self.work.append((o, n, None))
            return n
        if is_exact_tensor(o):
            described = describe_tensor(o)
            if described is not None:
                layout, grad = described
                n = Node("tensor", layout)
                self.remember(o, n)
                self.work.append((o, n, grad))
                return n
        fixtures = sys.modules.get(FIXTURES_MODULE)
        if fixtures is not None and t is getattr(fixtures, "Persistent", None):
            # What a pickler with the fixtures' persistent_id writes as a
            # persistent id (and their persistent_load reads back). Pickle
            # never memoizes a persistent id: each reference is a persid of
            # its own (only the pid may be shared), so it is not remembered.
            n = Node("persid")
            self.alive.append(o)
            self.work.append((o, n, None))
            return n
        reduced = self.reduce(o)
        if isinstance(reduced, (str, TEXT)):
            return self.remember(o, self.describe_global(o, reduced))
        if not isinstance(reduced, tuple):
            raise BridgeError("reducing a %s object must give a string or a tuple, not %s"
                              % (t.__name__, type(reduced).__name__))
        if not 2 <= len(reduced) <= 6:
            raise BridgeError("the tuple reducing a %s object must have two to six items"
                              % t.__name__)
        return self.shell(o, "object", self.newobj_ex_as_saved(reduced))

    def newobj_ex_as_saved(self, reduced):
        """Below protocol 4 there is no NEWOBJ_EX: pickle saves a
        copyreg.__newobj_ex__ reduce as the call
        functools.partial(cls.__new__, cls, *args, **kwargs)(). The value
        model's __newobj_ex__ stands for that call with object.__new__; a
        class with a __new__ of its own gets the partial itself, so that its
        pickle names that __new__ (as the harness's bridge describes it)."""
        if not 2 <= self.protocol < 4 or reduced[0] is not _NEWOBJ_EX:
            return reduced
        args = reduced[1]
        if not isinstance(args, tuple) or len(args) != 3:
            return reduced
        cls, cls_args, kwargs = args
        if not isinstance(cls, type) or not isinstance(cls_args, tuple) or \
                not isinstance(kwargs, dict):
            return reduced
        cls_new = cls.__new__
        if cls_new is object.__new__:
            return reduced
        return (functools.partial(cls_new, cls, *cls_args, **kwargs), ()) + tuple(reduced[2:])

    def reduce(self, o):
        """copyreg.dispatch_table, then __reduce_ex__(protocol), then
        __reduce__(): the order pickle looks in."""
        reducer = self.dispatch_table.get(type(o))
        if reducer is not None:
            return reducer(o)
        try:
            reduce_ex = o.__reduce_ex__
        except AttributeError:
            return o.__reduce__()
        return reduce_ex(self.protocol)

    def describe_global(self, o, name):
        """pickle's save_global: the name is `name` or the object's
        __qualname__ (__name__), the module whichmodule()'s answer, and the
        pair must lead back to this very object."""
        if name is None:
            try:
                name = o.__qualname__
            except AttributeError:
                name = o.__name__
        module = pickle.whichmodule(o, name)
        if not isinstance(module, (str, TEXT)) or not isinstance(name, (str, TEXT)):
            raise BridgeError("the module and name of a %s object are not strings"
                              % type(o).__name__)
        try:
            found = walk_qualname(importlib.import_module(module), name)
        except Exception:
            raise BridgeError("Can't describe %r: it's not found as %s.%s" % (o, module, name))
        if found is not o:
            raise BridgeError("Can't describe %r: it's not the same object as %s.%s"
                              % (o, module, name))
        if self.protocol >= 2:
            code = copyreg._extension_registry.get((module, name))
            if code:
                return extension_node(code)
        if PY2:
            module, name = _py3_name(module, name)
        return Node("global", (TEXT(module), TEXT(name)))

    def fill(self, o, n, extra):
        kind = n.kind
        node_for = self.node_for
        if kind in ("list", "tuple", "set", "frozenset"):
            items = list(o)
            self.alive.append(items)
            n.items = [node_for(i) for i in items]
        elif kind == "dict":
            pairs = list(o.items())
            self.alive.append(pairs)
            out = []
            for k, v in pairs:
                out.append(node_for(k))
                out.append(node_for(v))
            n.items = out
        elif kind == "object":
            self.fill_object(n, extra)
        elif kind == "tensor":
            if extra is not None:
                n.items = [node_for(extra)]
        elif kind == "module":
            if type(o) is not types.ModuleType:
                n.items = [node_for(type(o))]
        elif kind == "persid":
            n.items = [node_for(o.pid)]

    def fill_object(self, n, reduced):
        """`reduced` is (callable, args[, state[, listitems[, dictitems[, setter]]]])."""
        self.alive.append(reduced)
        func, args = reduced[0], reduced[1]
        if not callable(func):
            raise BridgeError("the first item of a reduce must be callable, not %s"
                              % type(func).__name__)
        if not isinstance(args, tuple):
            raise BridgeError("the second item of a reduce must be a tuple, not %s"
                              % type(args).__name__)

        def optional(i):
            return reduced[i] if len(reduced) > i and reduced[i] is not None else None

        parts = n.obj
        parts.callable = self.node_for(func)
        parts.args = self.node_for(args)
        state = optional(2)
        if state is not None:
            parts.state = self.node_for(state)
        listitems = optional(3)
        if listitems is not None:
            items = list(listitems)
            self.alive.append(items)
            parts.listitems = [self.node_for(i) for i in items]
        dictitems = optional(4)
        if dictitems is not None:
            pairs = list(dictitems)
            self.alive.append(pairs)
            flat = []
            for pair in pairs:
                if not isinstance(pair, tuple) or len(pair) != 2:
                    raise BridgeError("dictitems must yield (key, value) pairs")
                flat.append(self.node_for(pair[0]))
                flat.append(self.node_for(pair[1]))
            parts.dictitems = flat
        setter = optional(5)
        # Pickle ignores a state_setter when there is no state (None).
        if setter is not None and parts.state is not None:
            parts.state_setter = self.node_for(setter)


def nodes_from_object(obj, protocol=5):
    return _Describer(protocol).describe(obj)


# ---------------------------------------------------------------------------
# The public conversions

def value_to_text(obj, protocol=5):
    """The canonical JSON text of a live object, described as pickle at
    `protocol` sees it (objects reduce differently below 2 and at 5)."""
    return text_from_nodes(nodes_from_object(obj, protocol))


def value_to_json(obj, protocol=5):
    """The canonical JSON form of a live object, as parsed JSON."""
    return _json_loads(value_to_text(obj, protocol))


def value_from_json(doc):
    """The live object for a canonical-JSON value (parsed JSON, or text)."""
    if isinstance(doc, (str, TEXT, BYTES, bytearray)):
        doc = _json_loads(doc)
    return objects_from_nodes(nodes_from_json(doc))


def canonical_json(doc):
    """The canonical compact text of a JSON value (parsed JSON or text),
    without going through Python objects: ids renumbered, layout normalized."""
    if isinstance(doc, (str, TEXT, BYTES, bytearray)):
        doc = _json_loads(doc)
    return text_from_nodes(nodes_from_json(doc))


# ---------------------------------------------------------------------------
# Subjects: what a preset or a MODULE:ATTR pair names

def _interpreter():
    impl = platform.python_implementation()
    return "%s %s" % (impl, platform.python_version())


def _interpreter_version():
    if platform.python_implementation() == "PyPy" and hasattr(sys, "implementation"):
        v = sys.implementation.version
        return "%d.%d.%d" % (v.major, v.minor, v.micro)
    return platform.python_version()


# The distinctions of the value model Python 2 loses (docs/testee-protocol.md,
# "Fidelity"); the adapter's README says why for each.
PY2_CANNOT_EXPRESS = ("str-bytes", "nan-bits", "dict-order")

# How the value model maps onto Python 2's types, said in the hello.
PY2_MAPPING = ("values: str is unicode, bytes is str, int is int or long; "
               "names mapped to Python 2's (builtins as __builtin__, copyreg as copy_reg)")


def _with_mapping(implementation):
    return "%s; %s" % (implementation, PY2_MAPPING) if PY2 else implementation


def interpreter_claims():
    """The hello's python_version, default_protocol and highest_protocol:
    this interpreter's, whatever the serializer. Python 2 has no
    pickle.DEFAULT_PROTOCOL: its dumps writes protocol 0 when given none."""
    return {"python_version": "%d.%d.%d" % tuple(sys.version_info[:3]),
            "default_protocol": getattr(pickle, "DEFAULT_PROTOCOL", 0),
            "highest_protocol": pickle.HIGHEST_PROTOCOL}


# --package-dir: the directory the presets import their package from (only
# from there, and without putting it on sys.path).
_PACKAGE_DIR = [None]


def _import_package(name):
    """The package `name` (a top-level module): imported as usual, or, with
    --package-dir DIR, from DIR alone. It is registered in sys.modules under
    its real name, so its submodules import from DIR too and the globals its
    pickles name resolve in every process started the same way; nothing
    else is taken from DIR (its numpy, say, compiled for another Python)."""
    where = _PACKAGE_DIR[0]
    if where is None:
        return importlib.import_module(name)
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    package = os.path.join(where, name)
    init = os.path.join(package, "__init__.py")
    single = os.path.join(where, name + ".py")
    if not os.path.isfile(init) and not os.path.isfile(single):
        raise ImportError("no package %s in %s" % (name, where))
    if PY2:
        import imp
        found = imp.find_module(name, [where])
        try:
            return imp.load_module(name, *found)
        except BaseException:
            _forget_package(name)
            raise
        finally:
            if found[0] is not None:
                found[0].close()
    import importlib.util as util
    if os.path.isfile(init):
        spec = util.spec_from_file_location(name, init, submodule_search_locations=[package])
    else:
        spec = util.spec_from_file_location(name, single)
    module = util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        _forget_package(name)
        raise
    return module


def _forget_package(name):
    for k in list(sys.modules):
        if k == name or k.startswith(name + "."):
            del sys.modules[k]


def _dist_version(name, module=None):
    v = getattr(module, "__version__", None)
    if isinstance(v, (str, TEXT)):
        return v
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:
        return ""


def _pickle_is_c(dumps):
    try:
        import _pickle
    except ImportError:
        return False
    return dumps is getattr(_pickle, "dumps", None)


def _preset_pickle():
    if PY2:
        import cPickle as module
        return dict(dumps=module.dumps, loads=module.loads, version=_interpreter_version(),
                    pickler=module.Pickler, unpickler=module.Unpickler,
                    implementation=_with_mapping("%s, cPickle (C)" % _interpreter()),
                    highest=module.HIGHEST_PROTOCOL,
                    # The reference encoder writes what 3.8 and later's C
                    # pickler writes; Python 2's memo and strings differ.
                    cpython_bytes=False)
    import pickle as module
    c = _pickle_is_c(module.dumps)
    return dict(dumps=module.dumps, loads=module.loads, version=_interpreter_version(),
                python2_choices=True,
                pickler=module.Pickler, unpickler=module.Unpickler,
                implementation="%s, pickle (%s)" % (
                    _interpreter(), "C _pickle" if c else "pure Python"),
                highest=module.HIGHEST_PROTOCOL,
                # The reference encoder is byte-identical to CPython's C pickler
                # from 3.8 on (3.6 and 3.7 reduce a bytearray otherwise below
                # protocol 3).
                cpython_bytes=c and platform.python_implementation() == "CPython"
                and sys.version_info >= (3, 8))


def _preset_pickle_py():
    import pickle as module
    if PY2:
        return dict(dumps=module.dumps, loads=module.loads, version=_interpreter_version(),
                    pickler=module.Pickler, unpickler=module.Unpickler,
                    implementation=_with_mapping("%s, pickle (pure Python)" % _interpreter()),
                    highest=module.HIGHEST_PROTOCOL)
    return dict(dumps=module._dumps, loads=module._loads, version=_interpreter_version(),
                python2_choices=True,
                pickler=module._Pickler, unpickler=module._Unpickler,
                implementation="%s, pickle._dumps/_loads (pure Python)" % _interpreter(),
                highest=module.HIGHEST_PROTOCOL)


def _preset_cloudpickle():
    cloudpickle = _import_package("cloudpickle")
    return dict(dumps=cloudpickle.dumps, loads=pickle.loads,
                pickler=cloudpickle.CloudPickler, unpickler=pickle.Unpickler,
                version=_dist_version("cloudpickle", cloudpickle),
                implementation="%s, cloudpickle.dumps + pickle.loads" % _interpreter(),
                by_value=True,
                highest=pickle.HIGHEST_PROTOCOL)


def _preset_dill():
    dill = _import_package("dill")
    return dict(dumps=dill.dumps, loads=dill.loads, version=_dist_version("dill", dill),
                pickler=dill.Pickler, unpickler=dill.Unpickler,
                implementation="%s, dill.dumps/loads" % _interpreter(),
                by_value=True,
                highest=getattr(dill, "HIGHEST_PROTOCOL", pickle.HIGHEST_PROTOCOL))


def _preset_zodbpickle():
    _import_package("zodbpickle")
    from zodbpickle import fastpickle as module
    return dict(dumps=module.dumps, loads=module.loads,
                pickler=module.Pickler, unpickler=module.Unpickler,
                version=_dist_version("zodbpickle"),
                implementation="%s, zodbpickle.fastpickle (C)" % _interpreter(),
                highest=module.HIGHEST_PROTOCOL)


def _preset_zodbpickle_py():
    _import_package("zodbpickle")
    from zodbpickle import slowpickle as module
    return dict(dumps=module.dumps, loads=module.loads,
                pickler=module.Pickler, unpickler=module.Unpickler,
                version=_dist_version("zodbpickle"),
                implementation="%s, zodbpickle.slowpickle (pure Python)" % _interpreter(),
                highest=module.HIGHEST_PROTOCOL)


_PACKAGE_PRESETS = ("cloudpickle", "dill", "zodbpickle", "zodbpickle-py")

PRESETS = {
    "pickle": (_preset_pickle, "this interpreter's pickle.dumps/loads (the C pickler on CPython)"),
    "pickle-py": (_preset_pickle_py, "pure-Python pickle._dumps/_loads"),
    "cloudpickle": (_preset_cloudpickle, "cloudpickle.dumps, loaded with pickle.loads"),
    "dill": (_preset_dill, "dill.dumps/loads"),
    "zodbpickle": (_preset_zodbpickle, "zodbpickle's C implementation (zodbpickle.fastpickle)"),
    "zodbpickle-py": (_preset_zodbpickle_py,
                      "zodbpickle's pure-Python implementation (zodbpickle.slowpickle)"),
}


def import_attr(spec):
    """MODULE:ATTR (ATTR may be dotted) -> (object, module)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError("%r is not MODULE:ATTR" % spec)
    module = importlib.import_module(module_name)
    return walk_qualname(module, attr), module


def _accepts(func, keyword):
    """True/False when the signature says whether `func` takes `keyword`; None
    when it cannot be read."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError, AttributeError):
        return None
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            return True
        if p.name == keyword and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return True
    return False


def _probe_out_of_band(dumps, loads):
    """Whether the pair takes buffer_callback= and buffers= (tried once)."""
    if PickleBuffer is None:
        return False
    ok_dumps = _accepts(dumps, "buffer_callback") if dumps else True
    ok_loads = _accepts(loads, "buffers") if loads else True
    if ok_dumps is False or ok_loads is False:
        return False
    if ok_dumps and ok_loads:
        return True
    try:
        got = []
        if dumps is not None:
            data = dumps(PickleBuffer(b"x"), protocol=5, buffer_callback=got.append)
        if loads is not None and dumps is not None:
            loads(data, buffers=got)
        elif loads is not None:
            loads(b"\x80\x05\x97\x94.", buffers=[PickleBuffer(b"x")])
        return True
    except Exception:
        return False


def _protocol_range(text):
    """'0-5', '2', '0,1,2' -> a sorted list of consecutive ints in 0..5."""
    out = set()
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        lo, sep, hi = piece.partition("-")
        lo = int(lo)
        hi = int(hi) if sep else lo
        out.update(range(lo, hi + 1))
    values = sorted(out)
    if not values or values[0] < 0 or values[-1] > 5:
        raise ValueError("protocols must lie in 0-5: %r" % text)
    if values != list(range(values[0], values[-1] + 1)):
        raise ValueError("protocols must be consecutive: %r" % text)
    return values


def supported_kinds(exclude=()):
    """The value kinds this interpreter takes and returns: the builtin ones,
    and ndarray and tensor when numpy and torch import (tried here)."""
    kinds = [k for k in BASE_KINDS if k not in exclude]
    for module, kind in (("numpy", "ndarray"), ("torch", "tensor")):
        if kind in exclude:
            continue
        try:
            importlib.import_module(module)
        except Exception:
            continue
        kinds.append(kind)
    return kinds


# ---------------------------------------------------------------------------
# The protocol

class _Stream(object):
    """Exact reads and whole writes on raw file descriptors."""

    def __init__(self, in_file, out_file):
        self.inp = in_file
        self.out = out_file

    def read_exact(self, n):
        """n bytes, or None at end of input before the first byte; raises
        EOFError at end of input in the middle."""
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.inp.readinto(view[got:])
            if k is None:
                # A non-blocking input with nothing in it yet (the runner
                # hands over a blocking pipe, but whoever started this process
                # may not): wait for it rather than take it for the end.
                select.select([self.inp], [], [])
                continue
            if not k:
                if got == 0:
                    return None
                raise EOFError("end of input after %d of %d bytes" % (got, n))
            got += k
        return buf

    def write(self, doc_bytes, frames=()):
        out = self.out
        out.write(struct.pack("<I", len(doc_bytes)))
        out.write(doc_bytes)
        for f in frames:
            out.write(f)
        out.flush()


def _clean_message(text, limit=8192):
    if PY2 and isinstance(text, str):
        # Python 2's messages are bytes: escape those beyond ASCII as
        # Python 3's messages show them.
        text = "".join(c if c < "\x80" else "\\x%02x" % ord(c) for c in text).decode("ascii")
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[:limit] + "..."


def error_doc(kind, message, stage=None):
    error = {"kind": kind, "message": _clean_message(message)}
    if stage is not None:
        error["stage"] = stage
    return json.dumps({"ok": False, "error": error},
                      ensure_ascii=True, separators=(",", ":")).encode("utf-8")


def _error_kind(e):
    if isinstance(e, Unsupported):
        return "unsupported"
    if type(e).__name__ == "Inexpressible" and type(e).__module__ == STDLIB_MODULE:
        return "inexpressible"
    if isinstance(e, ValueFormError):
        return "bad-request"
    return type(e).__name__


class BadRequest(Exception):
    pass


def _is_cpickle(pickler):
    cpickle = sys.modules.get("cPickle")
    return cpickle is not None and pickler is getattr(cpickle, "Pickler", None)


def _check_py2_dumps(n, reader_chooses_encoding=False):
    """Raises Unsupported for a value Python 2's pickle cannot write so that
    Python 3 reads it back: bytes beyond ASCII (written as a Python 2 str,
    STRING or BINSTRING, which Python 3 loads as ASCII text by default; ASCII
    bytes come back as a str, hence the str-bytes relaxation) unless the
    request says the reader chooses another encoding (cross.py2), and a str
    holding a surrogate pair (Python 2's UTF-8 codec joins the two into one
    code point)."""
    if n.kind == "bytes" and not reader_chooses_encoding and \
            any(b >= 0x80 for b in bytearray(n.value)):
        raise Unsupported("Python 2 writes bytes as its str (STRING/BINSTRING), which Python 3 "
                          "loads as ASCII text: bytes beyond ASCII do not come back")
    if n.kind == "str" and _SURROGATE_PAIR.search(n.value):
        raise Unsupported("Python 2's UTF-8 codec joins a high and a low surrogate into one "
                          "code point: this str does not come back as it is")


class DefineError(Exception):
    """A define-dumps source that did not run: answered with "stage":
    "define" and the type of `error`, the exception it raised."""

    def __init__(self, error):
        Exception.__init__(self, "%s: %s" % (type(error).__name__, error))
        self.error = error


class LifeStopped(Exception):
    """A class-life half that stopped at a stage ("dumps", "load",
    "no-instance"): answered with that "stage" and the error's type."""

    def __init__(self, stop):
        Exception.__init__(self, stop.error)
        self.stage = stop.stage
        kind, _, message = stop.error.partition(": ")
        self.kind = kind if message and " " not in kind else "error"
        self.message = message if self.kind != "error" else stop.error


def _is_inputs(v):
    """[[args, kwargs], ...] as serialcheck_byvalue.results takes them."""
    return isinstance(v, list) and all(
        isinstance(i, list) and len(i) == 2 and isinstance(i[0], list) and isinstance(i[1], dict)
        for i in v)


def _stream_protocol(data):
    """The protocol a stream says it was written with (its PROTO opcode);
    0 when it has none (protocols 0 and 1 reduce alike)."""
    head = bytearray(data[:2])
    if len(head) == 2 and head[0] == 0x80 and head[1] <= 5:
        return head[1]
    return 0


class Testee(object):
    """One dumps/loads pair and what it claims; handles one request at a time."""

    def __init__(self, dumps=None, loads=None, name="python", version="", implementation="",
                 write_protocols=None, read_protocols=None, out_of_band=None,
                 limit_loader=False, cpython_bytes=False, cannot_express=(), kinds=None,
                 without_kinds=(), unavailable=None, verbose=True, by_value=False,
                 pickler=None, unpickler=None, python2_choices=False):
        self.dumps = dumps
        self.loads = loads
        # The Pickler and Unpickler classes that persistent ids go through
        # (dumps and loads alone take no persistent_id/persistent_load).
        self.pickler = pickler
        self.unpickler = unpickler
        self.name = name
        self.version = version
        self.implementation = implementation or _interpreter()
        self.write_protocols = list(write_protocols or range(6))
        self.read_protocols = list(read_protocols or self.write_protocols)
        if out_of_band is None:
            out_of_band = (5 in self.write_protocols or dumps is None) and \
                _probe_out_of_band(dumps, loads)
        self.out_of_band = bool(out_of_band)
        self.limit_loader = limit_loader
        self.cpython_bytes = cpython_bytes
        self.cannot_express = list(cannot_express)
        self.kinds = list(kinds) if kinds is not None else None  # found at hello
        self.without_kinds = tuple(without_kinds)
        # define-dumps and load-call: dumps and loads pickle functions and
        # classes by value.
        self.by_value = bool(by_value) and dumps is not None and loads is not None
        self.unavailable = unavailable
        self.verbose = verbose
        # loads takes Python 3's encoding= and fix_imports=, dumps its
        # fix_imports= (never on Python 2, whose pickle has neither).
        self.python2_choices = bool(python2_choices) and not PY2

    def takes_persistent_ids(self):
        """Whether persid values can be dumped and loaded: each half there
        is has its Pickler or Unpickler class."""
        if self.dumps is None and self.loads is None:
            return False
        return (self.dumps is None or self.pickler is not None) and \
            (self.loads is None or self.unpickler is not None)

    def capabilities(self):
        if self.kinds is None:
            self.kinds = supported_kinds(self.without_kinds)
            if self.takes_persistent_ids() and "persid" not in self.without_kinds:
                self.kinds.append("persid")
        caps = {
            "dumps": self.dumps is not None,
            "loads": self.loads is not None,
            "write_protocols": self.write_protocols,
            "read_protocols": self.read_protocols,
            "out_of_band": self.out_of_band,
            "limit_loader": self.limit_loader,
            "cpython_bytes": self.cpython_bytes,
            "python_values": True,
            "cannot_express": self.cannot_express,
            "kinds": self.kinds,
        }
        caps.update(interpreter_claims())
        if self.by_value:
            caps["by_value"] = True
            caps["class_life"] = True
        if self.python2_choices:
            caps["python2_choices"] = True
        if self.unavailable is None:
            caps["stdlib_recipes"] = True
        if self.loads is not None:
            caps["try_loads"] = True
        return caps

    # -- requests --------------------------------------------------------

    def handle(self, req, frames):
        """(document bytes, frames) answering one request."""
        op = req.get("op")
        try:
            if op == "hello":
                return self.hello(req), ()
            if op == "shutdown":
                return b'{"ok":true}', ()
            if op == "dumps":
                return self.do_dumps(req)
            if op == "loads":
                return self.do_loads(req, frames)
            if op == "try-loads":
                return self.do_try_loads(req, frames), ()
            if op == "bench":
                return self.do_bench(req, frames), ()
            if op == "define-dumps":
                return self.do_define_dumps(req)
            if op == "load-call":
                return self.do_load_call(req, frames), ()
            if op == "life-here":
                return self.do_life_here(req)
            if op == "life-fresh":
                return self.do_life_fresh(req, frames), ()
            if op == "dumps-recipe":
                return self.do_dumps_recipe(req)
            if op == "loads-recipe":
                return self.do_loads_recipe(req, frames), ()
            return error_doc("bad-request", "unknown op %r" % (op,)), ()
        except BadRequest as e:
            return error_doc("bad-request", str(e)), ()
        except DefineError as e:
            return error_doc(type(e.error).__name__, str(e.error) or type(e.error).__name__,
                             stage="define"), ()
        except LifeStopped as e:
            return error_doc(e.kind, e.message, stage=e.stage), ()
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as e:
            if self.verbose and not isinstance(e, Unsupported):
                sys.stderr.write("serialcheck-testee: %s failed:\n" % op)
                traceback.print_exc(limit=-20, file=sys.stderr)
                sys.stderr.flush()
            return error_doc(_error_kind(e), str(e) or type(e).__name__), ()

    def hello(self, req):
        if self.unavailable is not None:
            return error_doc("unavailable", self.unavailable)
        if req.get("only") == "load-call" and self.kinds is None:
            # An instance that will only load callables: spare importing
            # numpy and torch to find the kinds.
            self.kinds = [k for k in BASE_KINDS if k not in self.without_kinds]
        doc = {"ok": True, "protocol": PROTOCOL_VERSION, "name": self.name,
               "version": self.version, "implementation": self.implementation,
               "capabilities": self.capabilities()}
        return json.dumps(doc, separators=(",", ":")).encode("utf-8")

    def _need(self, req, field, check, what):
        if field not in req or not check(req[field]):
            raise BadRequest("%s needs %r: %s" % (req.get("op"), field, what))
        return req[field]

    def _dump_input(self, req):
        if self.dumps is None:
            raise Unsupported("this testee does not dump (no --dumps)")
        if self.unavailable is not None:
            raise Unsupported(self.unavailable)
        protocol = self._need(req, "protocol", _is_int, "an integer 0-5")
        if protocol not in self.write_protocols:
            raise Unsupported("protocol %d is not one this testee writes" % protocol)
        out_of_band = bool(req.get("out_of_band", False)) and protocol >= 5
        if out_of_band and not self.out_of_band:
            raise Unsupported("this testee does not send buffers out of band")
        if "value" not in req:
            raise BadRequest("dumps needs 'value'")
        root = nodes_from_json(req["value"])
        chooses = self._flag(req, "reader_chooses_encoding", False)
        persistent = False
        for n in _walk(root):
            if n.kind in self.without_kinds:
                raise Unsupported("%s values are left out (--without-kinds)" % n.kind)
            if PY2:
                _check_py2_dumps(n, chooses)
            if n.kind == "persid":
                persistent = True
        if persistent and protocol == 0 and PY2 and _is_cpickle(self.pickler):
            raise Unsupported("cPickle writes a persistent id at protocol 0 only when it is a "
                              "Python 2 str (bytes here), and a pid is text in Python 3")
        dumps = self._persistent_dumps() if persistent else self.dumps
        fix_imports = self._python2_choices(req, ("fix_imports",)).get("fix_imports", True)
        if not fix_imports:
            dumps = functools.partial(dumps, fix_imports=False)
        return objects_from_nodes(root), protocol, out_of_band, dumps

    def _flag(self, req, field, default):
        value = req.get(field, default)
        if not isinstance(value, bool):
            raise BadRequest("%s: %r must be true or false" % (req.get("op"), field))
        return value

    def _python2_choices(self, req, fields):
        """The request's Python 2 choices among `fields` ("encoding",
        "fix_imports") as keyword arguments of pickle's loads or dumps. A
        testee that does not take them refuses them (Python 2's pickle, a
        serializer whose functions have no such parameters): ignored, they
        would be answered as if they were the defaults."""
        chosen = {}
        if "encoding" in fields and "encoding" in req:
            encoding = req["encoding"]
            if not isinstance(encoding, (str, TEXT)) or not encoding:
                raise BadRequest("loads: 'encoding' must be a codec name or \"bytes\"")
            chosen["encoding"] = str(encoding)
        if "fix_imports" in fields and "fix_imports" in req:
            chosen["fix_imports"] = self._flag(req, "fix_imports", True)
        if chosen and not self.python2_choices:
            raise Unsupported("%s takes no %s here (%s)" % (
                req.get("op"), " or ".join(sorted(chosen)),
                "Python 2's pickle has none" if PY2 else "no python2_choices"))
        return chosen

    def _persistent_dumps(self):
        """A dumps whose pickler writes each fixtures Persistent as its pid."""
        if self.pickler is None:
            raise Unsupported("a persistent id needs a Pickler class to give a persistent_id "
                              "method, and this testee's dumps comes without one")
        pickler_class = fixtures_module().with_persistent_ids(self.pickler)

        def dumps(obj, protocol, buffer_callback=None, fix_imports=True):
            f = io.BytesIO()
            kwargs = {"protocol": protocol}
            if buffer_callback is not None:
                kwargs["buffer_callback"] = buffer_callback
            if not fix_imports:
                kwargs["fix_imports"] = False
            pickler_class(f, **kwargs).dump(obj)
            return f.getvalue()
        return dumps

    def _loader(self, data, kwargs):
        """(loads, kwargs) for the stream: the testee's loads, or its
        Unpickler with the fixtures' persistent_load when the stream holds
        persistent ids."""
        if self.unpickler is None or not holds_persistent_ids(data):
            return self.loads, kwargs
        unpickler_class = fixtures_module().with_persistent_load(self.unpickler)

        def loads(data, **chosen):
            return unpickler_class(io.BytesIO(data), **chosen).load()
        return loads, {k: v for k, v in kwargs.items()
                       if k in ("buffers", "encoding", "fix_imports")}

    def do_dumps(self, req):
        obj, protocol, out_of_band, dumps = self._dump_input(req)
        if out_of_band:
            buffers = []
            data = dumps(obj, protocol=protocol, buffer_callback=buffers.append)
        else:
            buffers = []
            data = dumps(obj, protocol=protocol)
        frames = [_byte_view(data)]
        writeable = []
        for b in buffers:  # only on Python 3: Python 2 has no out of band
            with memoryview(b) as m:
                writeable.append(not m.readonly)
                # A view of bytes, where there are some: cast() refuses a
                # shape with a zero in it (an empty array of shape (0, 3)).
                frames.append(m.cast("B") if m.contiguous and m.nbytes else m.tobytes())
        doc = {"ok": True, "frame_lengths": [_nbytes(f) for f in frames]}
        if out_of_band:
            doc["writeable"] = writeable
        return json.dumps(doc, separators=(",", ":")).encode("utf-8"), frames

    def _load_input(self, req, frames):
        if self.loads is None:
            raise Unsupported("this testee does not load (no --loads)")
        if self.unavailable is not None:
            raise Unsupported(self.unavailable)
        if not frames:
            raise BadRequest("loads needs at least one frame (the pickle)")
        writeable = req.get("writeable") or []
        if not isinstance(writeable, list):
            raise BadRequest("'writeable' must be an array of bools")
        kwargs = {}
        if len(frames) > 1:
            if not self.out_of_band:
                raise Unsupported("this testee does not take out-of-band buffers")
            buffers = []
            for i, f in enumerate(frames[1:]):
                w = i < len(writeable) and writeable[i] is True
                base = f if w else bytes(f)
                buffers.append(PickleBuffer(base))
            kwargs["buffers"] = buffers
        if self.limit_loader:
            kwargs["max_protocol"] = req.get("max_protocol", 5)
        kwargs.update(self._python2_choices(req, ("encoding", "fix_imports")))
        return BYTES(frames[0]), kwargs

    def do_loads(self, req, frames):
        data, kwargs = self._load_input(req, frames)
        loads, kwargs = self._loader(data, kwargs)
        obj = loads(data, **kwargs)
        text = value_to_text(obj, _stream_protocol(data))
        return ('{"ok":true,"value":%s}' % text).encode("utf-8"), ()

    def do_try_loads(self, req, frames):
        """Loads each frame as a pickle of its own and says for each whether
        loads returned or what it raised. No values are sent back: this is
        how loads.rejects-malformed asks about many streams at once."""
        if self.loads is None:
            raise Unsupported("this testee does not load (no --loads)")
        if self.unavailable is not None:
            raise Unsupported(self.unavailable)
        base = {}
        if self.limit_loader:
            base["max_protocol"] = req.get("max_protocol", 5)
        results = []
        for frame in frames:
            data = BYTES(frame)
            try:
                loads, kwargs = self._loader(data, dict(base))
                loads(data, **kwargs)
                results.append(b'{"ok":true}')
            except (KeyboardInterrupt, GeneratorExit):
                raise
            except BaseException as e:
                results.append(error_doc(_error_kind(e), str(e) or type(e).__name__))
        return b'{"ok":true,"results":[' + b",".join(results) + b"]}"

    def do_bench(self, req, frames):
        operation = req.get("operation")
        iterations = self._need(req, "iterations", lambda v: _is_int(v) and v >= 0,
                                "a count >= 0")
        timer = _timer
        if operation == "dumps":
            obj, protocol, out_of_band, dumps = self._dump_input(req)
            if out_of_band:
                buffers = []
                callback = buffers.append
                start = timer()
                for _ in range(iterations):
                    dumps(obj, protocol=protocol, buffer_callback=callback)
                    del buffers[:]
                seconds = timer() - start
            else:
                start = timer()
                for _ in range(iterations):
                    dumps(obj, protocol=protocol)
                seconds = timer() - start
        elif operation == "loads":
            data, kwargs = self._load_input(req, frames)
            loads, kwargs = self._loader(data, kwargs)
            if "buffers" in kwargs:
                kwargs["buffers"] = tuple(kwargs["buffers"])
            start = timer()
            for _ in range(iterations):
                loads(data, **kwargs)
            seconds = timer() - start
        else:
            raise BadRequest("bench needs 'operation' dumps or loads, not %r" % (operation,))
        return json.dumps({"ok": True, "iterations": iterations, "seconds": seconds},
                          separators=(",", ":")).encode("utf-8")


    # -- callable.by-value ------------------------------------------------

    def _by_value_input(self, req):
        if not self.by_value:
            raise Unsupported("this testee does not pickle functions and classes by value")
        if self.unavailable is not None:
            raise Unsupported(self.unavailable)
        return self._need(req, "inputs", _is_inputs, "an array of [args, kwargs]")

    def do_define_dumps(self, req):
        """Defines the source in a fresh module object (named so that no
        other process can import it), calls what it binds to `subject` on
        each input, and dumps it."""
        inputs = self._by_value_input(req)
        source = self._need(req, "source", lambda v: isinstance(v, TEXT), "a Python source")
        protocol = self._need(req, "protocol", _is_int, "an integer 0-5")
        if protocol not in self.write_protocols:
            raise Unsupported("protocol %d is not one this testee writes" % protocol)
        byvalue = _neighbour(BYVALUE_MODULE)
        try:
            subject = byvalue.define(source)
        except Exception as e:
            raise DefineError(e)
        results = byvalue.results(subject, inputs)
        frame = _byte_view(self.dumps(subject, protocol=protocol))
        doc = {"ok": True, "results": results, "frame_lengths": [_nbytes(frame)]}
        return json.dumps(doc, separators=(",", ":")).encode("utf-8"), [frame]

    def do_load_call(self, req, frames):
        """Loads the pickle of a define-dumps and calls what it gets on
        each input."""
        inputs = self._by_value_input(req)
        if len(frames) != 1:
            raise BadRequest("load-call needs one frame (the pickle), not %d" % len(frames))
        subject = self.loads(BYTES(frames[0]))
        results = _neighbour(BYVALUE_MODULE).results(subject, inputs)
        return json.dumps({"ok": True, "results": results},
                          separators=(",", ":")).encode("utf-8")


    # -- callable.class-life ----------------------------------------------

    def _life_input(self, req):
        inputs = self._by_value_input(req)
        byvalue = _neighbour(BYVALUE_MODULE)
        situation = self._need(req, "situation", lambda v: v in byvalue.LIFE_SITUATIONS,
                               "one of " + ", ".join(byvalue.LIFE_SITUATIONS))
        return byvalue, inputs, situation

    def do_life_here(self, req):
        """The pickling half of a class-life situation: defines the source,
        pickles, changes and perhaps loads here; answers "expect",
        "observed" and the pickles as frames."""
        byvalue, inputs, situation = self._life_input(req)
        source = self._need(req, "source", lambda v: isinstance(v, TEXT), "a Python source")
        protocol = self._need(req, "protocol", _is_int, "an integer 0-5")
        if protocol not in self.write_protocols:
            raise Unsupported("protocol %d is not one this testee writes" % protocol)
        dumps = lambda obj: self.dumps(obj, protocol=protocol)
        try:
            here = byvalue.life_here(dumps, self.loads, source, situation, inputs, protocol)
        except byvalue.LifeStop as e:
            raise LifeStopped(e)
        except Exception as e:
            raise DefineError(e)
        frames = [_byte_view(p) for p in here["pickles"]]
        doc = {"ok": True, "expect": here["expect"], "observed": here["observed"],
               "frame_lengths": [_nbytes(f) for f in frames]}
        return json.dumps(doc, separators=(",", ":")).encode("utf-8"), frames

    def do_life_fresh(self, req, frames):
        """The fresh half: loads the pickles of a life-here and answers
        "observed"."""
        byvalue, inputs, situation = self._life_input(req)
        want = 2 if situation in ("two-pickles", "older-definition") else 1
        if len(frames) != want:
            raise BadRequest("life-fresh for %s needs %d frames (the pickles), not %d"
                             % (situation, want, len(frames)))
        try:
            there = byvalue.life_fresh(self.loads, situation, [BYTES(f) for f in frames], inputs)
        except byvalue.LifeStop as e:
            raise LifeStopped(e)
        return json.dumps({"ok": True, "observed": there["observed"]},
                          separators=(",", ":")).encode("utf-8")


    # -- cross.stdlib --------------------------------------------------------

    def _recipe(self, req):
        if self.unavailable is not None:
            raise Unsupported(self.unavailable)
        recipe = self._need(req, "recipe", lambda v: isinstance(v, TEXT), "a recipe name")
        stdlib = _neighbour(STDLIB_MODULE)
        if recipe not in stdlib.RECIPES:
            raise BadRequest("no stdlib recipe %r here (this adapter knows %d)"
                             % (recipe, len(stdlib.RECIPES)))
        return stdlib, recipe

    def do_dumps_recipe(self, req):
        """Builds the recipe's value in this interpreter and pickles it with
        this testee's dumps at "protocol"."""
        if self.dumps is None:
            raise Unsupported("this testee does not dump (no --dumps)")
        stdlib, recipe = self._recipe(req)
        protocol = self._need(req, "protocol", _is_int, "an integer 0-5")
        if protocol not in self.write_protocols:
            raise Unsupported("protocol %d is not one this testee writes" % protocol)
        frame = _byte_view(stdlib.dumps_recipe(recipe, protocol, self.dumps))
        doc = {"ok": True, "frame_lengths": [_nbytes(frame)]}
        return json.dumps(doc, separators=(",", ":")).encode("utf-8"), [frame]

    def do_loads_recipe(self, req, frames):
        """Loads the pickle with this testee's loads and compares what it
        gets with this interpreter's own build of the recipe."""
        if self.loads is None:
            raise Unsupported("this testee does not load (no --loads)")
        stdlib, recipe = self._recipe(req)
        if len(frames) != 1:
            raise BadRequest("loads-recipe needs one frame (the pickle), not %d" % len(frames))
        equal, loaded, expected = stdlib.load_compare(recipe, BYTES(frames[0]), self.loads)
        return json.dumps({"ok": True, "equal": bool(equal), "loaded": loaded,
                           "expected": expected}, separators=(",", ":")).encode("utf-8")


def _serve_loop(testee, stream):
    """Answers requests until shutdown (0) or end of input (0; 1 when the
    input ends inside a message)."""
    while True:
        try:
            head = stream.read_exact(4)
            if head is None:
                return 0
            (n,) = struct.unpack("<I", BYTES(head))
            raw = stream.read_exact(n)
            if raw is None:
                raise EOFError("end of input before a %d-byte document" % n)
        except EOFError as e:
            sys.stderr.write("serialcheck-testee: %s\n" % e)
            return 1
        try:
            with _DeepRecursion(), _NoIntLimit():
                req = json.loads(BYTES(raw).decode("utf-8"))
            if not isinstance(req, dict):
                raise ValueError("the document is not a JSON object")
            lengths = req.get("frame_lengths", [])
            if not isinstance(lengths, list) or not all(_is_int(v) and v >= 0 for v in lengths):
                raise ValueError("'frame_lengths' must be an array of sizes")
        except RecursionError as e:
            # A well-formed value deeper than this testee can parse (a dumps
            # request, which has no frames): what pickle itself would say.
            stream.write(error_doc("RecursionError", "the request nests too deeply: %s" % e))
            continue
        except Exception as e:
            # The frames that follow cannot be found: answer, and hope the
            # runner restarts us (it treats bad-request as a protocol error).
            stream.write(error_doc("bad-request", "unreadable request: %s" % e))
            continue
        try:
            frames = []
            for length in lengths:
                f = stream.read_exact(length) if length else bytearray()
                if f is None:
                    raise EOFError("end of input before a frame")
                frames.append(f)
        except EOFError as e:
            sys.stderr.write("serialcheck-testee: %s\n" % e)
            return 1
        doc, out_frames = testee.handle(req, frames)
        stream.write(doc, out_frames)
        if req.get("op") == "shutdown":
            return 0


def serve(dumps=None, loads=None, stdin=None, stdout=None, protect_stdout=True, **claims):
    """Serves the testee protocol for a dumps/loads pair until shutdown or end
    of input; returns the exit status.

    `claims` are Testee's keywords: name, version, implementation,
    write_protocols, read_protocols, out_of_band, limit_loader,
    cpython_bytes, cannot_express, kinds, unavailable, verbose, by_value,
    pickler, unpickler.

    By default the real standard output is kept private: file descriptor 1
    and sys.stdout are pointed at standard error (and descriptor 0 and
    sys.stdin at /dev/null), so nothing the serializer prints can corrupt
    the stream. Pass binary `stdin`/`stdout` files to serve other streams.
    """
    # Importing the fixtures module registers its globals in copyreg's
    # extension registry, so EXT codes mean here what they mean in
    # serialcheck's own interpreter, in what is dumped and what is loaded.
    fixtures_module()
    if stdin is None or stdout is None:
        if protect_stdout:
            in_fd = os.dup(0)
            out_fd = os.dup(1)
            sys.stdout.flush()
            os.dup2(2, 1)
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)
            os.close(devnull)
            sys.stdout = sys.stderr
            sys.stdin = open(os.devnull, "r")
        else:
            in_fd, out_fd = 0, 1
        stdin = io.FileIO(in_fd, "rb", closefd=protect_stdout)
        stdout = io.open(out_fd, "wb", closefd=protect_stdout)
    testee = Testee(dumps, loads, **claims)
    stream = _Stream(stdin, stdout)
    result = [1]

    def run():
        result[0] = _serve_loop(testee, stream)

    # Deep values make the json parser and the serializers recurse: a large
    # stack turns what would crash into a RecursionError answer.
    try:
        old = threading.stack_size(512 << 20)
    except (ValueError, RuntimeError, AttributeError):
        old = None
    try:
        worker = threading.Thread(target=run, name="serialcheck-testee")
        worker.daemon = True
        worker.start()
    finally:
        if old is not None:
            threading.stack_size(old)
    while worker.is_alive():
        worker.join(0.5)
    return result[0]


# ---------------------------------------------------------------------------
# Command line

_EPILOG = """\
presets:
%s

examples:
  %%(prog)s --preset pickle
  pypy3 %%(prog)s --preset pickle --name pypy-pickle
  %%(prog)s --path ~/src/mypickle --dumps mypickle:dumps --loads mypickle:loads
  %%(prog)s --loads myreader:loads            (a reader only)

With serialcheck:
  serialcheck run --testee mine="python3 %%(prog)s --preset dill" --subjects mine

The adapter speaks docs/testee-protocol.md on stdin/stdout; run
`serialcheck testee-check COMMAND...` to see that it does.
""" % "\n".join("  %-14s %s" % (k, v[1]) for k, v in PRESETS.items())


def _parser():
    p = argparse.ArgumentParser(
        prog=os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "serialcheck_testee.py",
        description="Serve serialcheck's testee protocol (version %d) for a Python "
                    "dumps/loads pair: a preset, or any MODULE:ATTR functions."
                    % PROTOCOL_VERSION,
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("what to test")
    g.add_argument("--preset", choices=sorted(PRESETS),
                   help="a known serializer (see below); --dumps/--loads override its parts")
    g.add_argument("--dumps", metavar="MODULE:ATTR",
                   help="the function called as dumps(obj, protocol=P[, buffer_callback=cb])")
    g.add_argument("--loads", metavar="MODULE:ATTR",
                   help="the function called as loads(data[, buffers=[...]])")
    g.add_argument("--path", metavar="DIR", action="append", default=[],
                   help="put DIR first on sys.path (repeatable): point it at a working tree")
    g.add_argument("--package-dir", metavar="DIR",
                   help="the cloudpickle, dill and zodbpickle presets import their package "
                        "from DIR alone, without putting DIR on sys.path (so another "
                        "Python's pure-Python package can be lent without its other "
                        "packages)")
    g.add_argument("--name", help="the name shown in reports (default: the preset or the "
                                  "functions)")
    c = p.add_argument_group("capabilities (defaults depend on the preset)")
    c.add_argument("--protocols", metavar="RANGE",
                   help="pickle protocols it writes, e.g. 0-5 or 2-4 (default: 0 to the "
                        "module's HIGHEST_PROTOCOL)")
    c.add_argument("--read-protocols", metavar="RANGE",
                   help="pickle protocols it reads (default: as --protocols)")
    c.add_argument("--no-out-of-band", action="store_true",
                   help="never use buffer_callback=/buffers= (default: used when both "
                        "functions accept them and protocol 5 is written)")
    b = c.add_mutually_exclusive_group()
    b.add_argument("--cpython-bytes", dest="cpython_bytes", action="store_true", default=None,
                   help="claim the exact bytes of CPython's C pickler (default: only for "
                        "the pickle preset on CPython)")
    b.add_argument("--no-cpython-bytes", dest="cpython_bytes", action="store_false")
    c.add_argument("--limit-loader", action="store_true",
                   help="loads honours a protocol limit: it is called with max_protocol=N "
                        "and must refuse a stream above N naming both protocols")
    c.add_argument("--cannot-express", metavar="A,B", default="",
                   help="distinctions the serializer loses: " + ", ".join(DISTINCTIONS))
    v = c.add_mutually_exclusive_group()
    v.add_argument("--by-value", dest="by_value", action="store_true", default=None,
                   help="dumps and loads pickle functions and classes by value: serve "
                        "define-dumps and load-call for callable.by-value (default: only the "
                        "cloudpickle and dill presets)")
    v.add_argument("--no-by-value", dest="by_value", action="store_false")
    c.add_argument("--without-kinds", metavar="A,B", default="",
                   help="value kinds not to claim, e.g. ndarray,tensor (spares importing "
                        "numpy and torch at start; default: claim those that import)")
    o = p.add_argument_group("output")
    o.add_argument("--quiet", action="store_true",
                   help="no tracebacks on standard error for failed requests")
    return p


def _setup(args):
    """(dumps, loads, claims) from the parsed command line; claims carries
    `unavailable` when the serializer does not import."""
    for d in reversed(args.path):
        sys.path.insert(0, os.path.abspath(os.path.expanduser(d)))
    claims = {"verbose": not args.quiet}
    if args.package_dir:
        if args.preset not in _PACKAGE_PRESETS:
            raise SystemExit("--package-dir is for the presets %s"
                             % ", ".join(sorted(_PACKAGE_PRESETS)))
        _PACKAGE_DIR[0] = os.path.abspath(os.path.expanduser(args.package_dir))
    dumps = loads = None
    highest = 5
    cpython_bytes = False
    name = args.name
    try:
        if args.preset:
            info = PRESETS[args.preset][0]()
            dumps, loads = info["dumps"], info["loads"]
            highest = info.get("highest", 5)
            cpython_bytes = info.get("cpython_bytes", False)
            claims["pickler"] = info.get("pickler")
            claims["unpickler"] = info.get("unpickler")
            claims["by_value"] = info.get("by_value", False)
            claims["python2_choices"] = info.get("python2_choices", False)
            claims["version"] = info["version"]
            claims["implementation"] = info["implementation"]
            name = name or args.preset
        if args.dumps:
            dumps, module = import_attr(args.dumps)
            # Persistent ids go through the module's Pickler, when it has one.
            claims["pickler"] = getattr(module, "Pickler", None)
            highest = getattr(module, "HIGHEST_PROTOCOL", highest)
            cpython_bytes = False
        if args.loads:
            loads, module = import_attr(args.loads)
            claims["unpickler"] = getattr(module, "Unpickler", None)
        if args.dumps or args.loads:
            # Whether another dumps or loads takes encoding= and
            # fix_imports= is not known.
            claims["python2_choices"] = False
            claims["implementation"] = "%s, %s" % (
                _interpreter(), " / ".join(s for s in (args.dumps, args.loads) if s))
            claims.setdefault("version", _interpreter_version())
            if args.preset:
                claims["implementation"] += " (from preset %s)" % args.preset
    except Exception as e:
        what = "preset " + args.preset if args.preset and not (args.dumps or args.loads) \
            else " / ".join(s for s in (args.dumps, args.loads) if s)
        if _PACKAGE_DIR[0] is not None:
            what += " from %s under %s" % (_PACKAGE_DIR[0], _interpreter())
        claims["unavailable"] = "cannot import %s: %s: %s" % (what, type(e).__name__, e)
        claims["out_of_band"] = False
        dumps = loads = None
        claims["pickler"] = claims["unpickler"] = None
    name = name or " / ".join(s for s in (args.dumps, args.loads) if s) or "python"
    claims["name"] = name
    if not isinstance(highest, int) or not 0 <= highest:
        highest = 5
    highest = min(highest, 5)
    write = _protocol_range(args.protocols) if args.protocols else list(range(highest + 1))
    read = _protocol_range(args.read_protocols) if args.read_protocols else list(write)
    claims["write_protocols"] = write
    claims["read_protocols"] = read
    if args.no_out_of_band or PickleBuffer is None:
        claims["out_of_band"] = False
    elif "out_of_band" not in claims and dumps is not None and 5 not in write:
        claims["out_of_band"] = False
    claims["cpython_bytes"] = cpython_bytes if args.cpython_bytes is None else args.cpython_bytes
    claims["limit_loader"] = args.limit_loader
    lost = [s.strip() for s in args.cannot_express.split(",") if s.strip()]
    for s in lost:
        if s not in DISTINCTIONS:
            raise SystemExit("--cannot-express: unknown distinction %r (known: %s)"
                             % (s, ", ".join(DISTINCTIONS)))
    if PY2:
        # What Python 2 writes for bytes (its str) Python 3 loads as a str;
        # Python 2 reads protocol 0's text NaN as fff8000000000000, whatever
        # NaN was written; its dicts keep no insertion order.
        lost.extend(d for d in PY2_CANNOT_EXPRESS if d not in lost)
    claims["cannot_express"] = lost
    if args.by_value is not None:
        if args.by_value and "unavailable" not in claims and (dumps is None or loads is None):
            raise SystemExit("--by-value needs both a dumps and a loads")
        claims["by_value"] = args.by_value
    claims["without_kinds"] = [s.strip() for s in args.without_kinds.split(",") if s.strip()]
    if dumps is None and loads is None and "unavailable" not in claims:
        raise SystemExit("nothing to test: give --preset, --dumps or --loads (see --help)")
    return dumps, loads, claims


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        dumps, loads, claims = _setup(args)
    except ValueError as e:
        raise SystemExit("serialcheck_testee: %s" % e)
    return serve(dumps, loads, **claims)


if __name__ == "__main__":
    sys.exit(main())
