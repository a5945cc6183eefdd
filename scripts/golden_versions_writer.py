# Runs inside one Python interpreter (2.7, 3.6 and later, Pyodide too) and
# prints, as one JSON object on stdout, what that interpreter's C pickler
# writes for each case at each protocol it has. scripts/make-golden-versions
# runs it under every interpreter it finds and writes the corpus; this file
# must stay stdlib-only and valid Python 2.7 (no f-strings).
#
# Output: {"python": "3.7.16", "implementation": ..., "default_protocol": 3,
#          "highest_protocol": 4, "cases": [{"name", "description",
#          "pickles": {"0": base64, ...}, "errors": {"0": message, ...}}]}
# "default" in pickles is pickle.dumps(value) with no protocol argument.

from __future__ import print_function

import argparse
import base64
import collections
import datetime
import decimal
import json
import os
import sys

PY2 = sys.version_info[0] == 2
if PY2:
  import cPickle as pickle  # the C pickler; 2.7's `pickle` is the Python one
  text_type = unicode  # noqa: F821
  import __builtin__ as builtins  # noqa: F401
else:
  import pickle
  text_type = str

CASES = []


def case(name, make, description, protocols=None, min_version=None):
  CASES.append((name, make, description, protocols, min_version))


def B(ints):
  """bytes from a sequence of ints, the same under 2.7 (where bytes is str)."""
  return bytes(bytearray(ints))


def lcg_bytes(n, seed):
  """n pseudo-random bytes from a fixed LCG: the same in every version (the
  random module's algorithms differ between 2.7 and 3)."""
  out = bytearray(n)
  x = seed
  for i in range(n):
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    out[i] = (x >> 16) & 0xFF
  return bytes(out)


def fresh(text):
  """An equal text that is not the same object as any literal."""
  return text.encode("utf-8").decode("utf-8")


def recursive_list():
  a = []
  a.append(a)
  return a


def recursive_dict():
  d = {u"name": u"self"}
  d[u"self"] = d
  return d


def list_tuple_cycle():
  lst = [1]
  lst.append((lst, 2))
  return lst


def tuple_list_cycle():
  inner = [u"x"]
  t = (inner, 3)
  inner.append(t)
  return t


def shared_everything():
  lst = [1, 2]
  tup = (u"t", 1)
  d = {u"k": lst}
  s = fresh(u"shared text")
  return [lst, tup, d, s, lst, tup, d, s, {s: lst}]


def nested_mixed():
  return {
      u"list": [1, 2.5, u"three", B(b"four"), None, True],
      u"tuple": (1, (2, (3, ())), [], {}),
      u"dict": {u"a": {u"b": {u"c": [1, {u"d": ()}]}}},
      u"set": set([1, 2, 3]),
      u"frozenset": frozenset([(1, 2), (3, 4)]),
      u"bytearray": bytearray(b"ba"),
  }


def namespace_cycle():
  ns = argparse.Namespace(name=u"node")
  ns.me = ns
  ns.children = [ns, ns]
  return ns


class NewObjEx(object):
  """Keyword arguments for __new__: NEWOBJ_EX from protocol 4 (3.6+), and
  functools.partial(object.__new__, ...) at 2 and 3 (3.6+). It does not
  define __new__, so the reduce names object.__new__, a nested name."""

  def __init__(self, *args, **kwargs):
    self.args = args
    self.kwargs = kwargs

  def __getnewargs_ex__(self):
    return self.args, self.kwargs

  def __getnewargs__(self):
    return self.args


class Outer(object):
  class Inner(object):
    class Deepest(object):
      pass


def make_atoms_repeated():
  f = float(fresh(u"2.5"))
  big = 2**100 + len(fresh(u"xy"))
  empty = ()
  return [f, f, big, big, empty, empty, (empty,)]


def make_buffers_mixed():
  w = pickle.PickleBuffer(bytearray(b"w" * 300))
  ro = pickle.PickleBuffer(b"r" * 300)
  empty = pickle.PickleBuffer(bytearray())
  return {u"w": w, u"ro": ro, u"again": w, u"empty": empty, u"n": 1}


INTS = [0, 1, -1, 255, 256, -256, 65535, 65536, 2**31 - 1, -2**31, 2**31, -2**31 - 1,
        2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64, 10**100, -(2**1000)]


def define_cases():
  case("none", lambda: None, "None")
  case("bools", lambda: [True, False], "True and False")
  case("int_boundaries", lambda: list(INTS), "every int width boundary in one list")
  case("int_4300_digits", lambda: int("9" * 4300), "int of 4300 decimal digits (the limit)")
  case("int_4301_digits", lambda: -10**4300,
       "int of 4301 decimal digits: over the int-to-str limit of 3.7.14+, so only 3.6 and "
       "before write it at protocols 0 and 1")
  case("floats", lambda: [0.0, -0.0, 1.5, 1e16, 1e-5, 5e-324, 1.7976931348623157e308,
                          float("inf"), float("-inf"), 1.0 / 3], "floats")
  case("float_nan", lambda: float("nan"), "NaN")
  case("strs", lambda: [u"", u"hello, world", u"caf\u00e9 \u00ff", u"\u20ac \u4e2d\u6587",
                        u"\U0001f600 \U0010ffff"], "ASCII, latin-1, BMP and astral strs")
  case("str_proto0_escapes", lambda: u"back\\slash new\nline cr\r nul\x00 sub\x1a \\u1234 end",
       "characters protocol 0's raw-unicode-escape must escape")
  case("str_255_bytes", lambda: u"s" * 255, "str of 255 UTF-8 bytes")
  case("str_256_bytes", lambda: u"s" * 256, "str of 256 UTF-8 bytes")
  case("bytes_short", lambda: [B(b""), B(b"\x00\x01abc\xff")], "empty and short bytes")
  case("bytes_255", lambda: B(range(255)), "255 bytes (SHORT_BINBYTES limit)")
  case("bytes_256", lambda: B(range(256)), "256 bytes")
  case("bytes_shared", lambda: (lambda b: [b, b, B(b"")])(fresh(u"same").encode("ascii")),
       "one bytes object referenced twice, and b''")
  case("bytes_66k_framed", lambda: [u"before", lcg_bytes(66 * 1024, 3), u"after", 1],
       "66 KiB bytes between small items: the frame around a large payload", protocols=(4,))
  case("bytearrays", lambda: (lambda a: [a, bytearray(b"other"), a, bytearray()])(
      bytearray(b"ba\xe9")), "bytearrays, one referenced twice, and an empty one")
  case("bytearray_256", lambda: bytearray(range(256)), "bytearray of 256 bytes")
  BATCHED = (1, 2, 3, 4, 5)  # protocol 0 has no batches
  for n in (0, 1, 2):
    case("list_%d" % n, (lambda n=n: list(range(n))), "list of %d ints" % n)
  for n in (1000, 1001):
    case("list_%d" % n, (lambda n=n: list(range(n))), "list of %d ints" % n, protocols=BATCHED)
  for n in (0, 1, 2, 3, 4, 5):
    case("tuple_%d" % n, (lambda n=n: tuple(range(n))), "tuple of %d ints" % n)
  for n in (0, 1):
    case("dict_%d" % n, (lambda n=n: dict((i, text_type(i)) for i in range(n))),
         "dict of %d int->str" % n)
    case("set_%d" % n, (lambda n=n: set(range(n))), "set of %d ints" % n)
    case("frozenset_%d" % n, (lambda n=n: frozenset(range(n))), "frozenset of %d ints" % n)
  for n in (1000, 1001):
    case("dict_%d" % n, (lambda n=n: dict((i, None) for i in range(n))),
         "dict of %d int->None" % n, protocols=BATCHED)
    case("set_%d" % n, (lambda n=n: set(range(n))), "set of %d ints" % n, protocols=BATCHED)
  case("set_of_str", lambda: set([u"alpha", u"beta", u"gamma", u"delta", u"\u00e9psilon", u""]),
       "set of strs (iteration order depends on the version's str hash)")
  case("nested_mixed", nested_mixed, "nested collections of every builtin kind")
  case("shared_list_twice", lambda: (lambda a: [a, a])([1, 2]), "one list referenced twice")
  case("shared_str_twice", lambda: (lambda s: [s, s, fresh(u"shared!")])(fresh(u"shared!")),
       "one str referenced twice, beside an equal but distinct str")
  case("atoms_repeated", make_atoms_repeated,
       "one float, one big int and one empty tuple object each referenced twice")
  case("shared_tuple", lambda: (lambda t: {u"a": t, u"b": t, u"c": [t]})((u"x", 1)),
       "one tuple referenced three times")
  case("shared_everything", shared_everything,
       "list, tuple, dict and str each referenced several times, also as a dict key")
  case("shared_set_frozenset",
       lambda: (lambda s, f: [s, f, s, f, {f: s}])(set([1, 2]), frozenset([3])),
       "a set and a frozenset referenced several times")
  case("empty_frozensets", lambda: [frozenset(), frozenset(list()), {frozenset(): None}],
       "three empty frozensets made apart: one object up to 3.9, where the empty frozenset "
       "is a singleton, three from 3.10")
  case("recursive_list", recursive_list, "a list that contains itself")
  case("recursive_dict", recursive_dict, "a dict that contains itself")
  case("list_tuple_cycle", list_tuple_cycle, "a list holding a tuple that holds the list")
  case("tuple_list_cycle", tuple_list_cycle, "a tuple reached again through a list inside it")
  case("namespace_cycle", namespace_cycle, "an object whose state refers to itself")
  case("datetime", lambda: [datetime.datetime(2024, 2, 29, 13, 45, 7, 123456),
                            datetime.date(1999, 12, 31),
                            datetime.timedelta(days=-3, seconds=5, microseconds=7)],
       "datetime, date and timedelta")
  case("ordered_dict", lambda: collections.OrderedDict([(u"b", 1), (u"a", [2]), (u"c", None)]),
       "collections.OrderedDict")
  case("decimal", lambda: [decimal.Decimal(u"3.14159"), decimal.Decimal(u"-0")], "decimal.Decimal")
  case("complex", lambda: [complex(1.5, -2), complex(0, 1)], "complex numbers")
  case("argparse_namespace", lambda: argparse.Namespace(verbose=True, files=[u"a", u"b"]),
       "a plain class instance with __dict__ (NEWOBJ from protocol 2)")
  case("counter", lambda: collections.Counter(u"abracadabra"), "collections.Counter")
  case("newobj_ex", lambda: NewObjEx(1, u"two", key=3), "__getnewargs_ex__ with keywords")
  case("global_len", lambda: len, "builtin function by reference")
  case("global_several", lambda: [len, dict, Exception, ValueError, object, len, dict,
                                  collections.OrderedDict, decimal.Decimal, os.path.join],
       "several globals, repeated ones memoized")
  case("global_method", lambda: [text_type.upper, datetime.datetime.now],
       "methods of builtin classes (reduced to getattr)")
  case("global_nested_class", lambda: argparse.HelpFormatter._Section,
       "a stdlib class nested in a class")
  case("global_nested_twice", lambda: [Outer.Inner.Deepest, Outer.Inner, Outer.Inner.Deepest],
       "classes nested two deep, one repeated")
  case("pickle_buffer_bytearray", lambda: pickle.PickleBuffer(bytearray(b"writable\x00\xff")),
       "PickleBuffer over a bytearray", protocols=(5,), min_version=(3, 8))
  case("pickle_buffer_bytes", lambda: pickle.PickleBuffer(b"read-only\x00\xff"),
       "PickleBuffer over bytes", protocols=(5,), min_version=(3, 8))
  case("pickle_buffers_mixed", make_buffers_mixed, "several PickleBuffers, one referenced twice",
       protocols=(5,), min_version=(3, 8))


def main():
  sys.setrecursionlimit(20000)
  define_cases()
  highest = pickle.HIGHEST_PROTOCOL
  default = getattr(pickle, "DEFAULT_PROTOCOL", 0)
  out = {"python": "%d.%d.%d" % sys.version_info[:3],
         "implementation": sys.platform,
         "default_protocol": default, "highest_protocol": highest, "cases": []}
  for name, make, description, protocols, min_version in CASES:
    if min_version and sys.version_info[:2] < min_version:
      continue
    value = make()
    pickles, errors = {}, {}
    for p in (protocols if protocols is not None else range(highest + 1)):
      if p > highest:
        continue
      try:
        pickles[str(p)] = base64.b64encode(pickle.dumps(value, p)).decode("ascii")
      except Exception as e:  # the version cannot pickle it: recorded, not fatal
        errors[str(p)] = "%s: %s" % (type(e).__name__, str(e)[:200])
    try:
      pickles["default"] = base64.b64encode(pickle.dumps(value)).decode("ascii")
    except Exception as e:
      errors["default"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    out["cases"].append({"name": name, "description": description, "pickles": pickles,
                         "errors": errors})
  return json.dumps(out, sort_keys=True)


if __name__ == "__main__":
  sys.stdout.write(main())
  sys.stdout.write("\n")
