"""Standard-library values people pickle between Python versions, for
serialcheck's cross.stdlib (docs/versions.md, "Stdlib values across
versions").

A recipe names one value: ``"<kind>:<variant>"``, the kind (the value's
type as people know it: ``decimal.Decimal``, ``enum.Flag``,
``itertools.count``) and a small index among that kind's values
(``"decimal.Decimal:1"`` is ``Decimal('-0')``). RECIPES lists them in a fixed
order (serialcheck's generator keeps the same list, harness/gen/
stdlib_recipes.cpp, and a test checks that the two agree); a recipe keeps its
name and value once published, and new ones go at the end of the list, so
that a seed still draws what it drew.

Each interpreter builds a recipe itself (``build``), so a version pickles
its own object, and a reader compares what it loaded with its own build of
the same recipe (``same``): the type by module and qualified name, then the
value, with an explicit key for types whose ``==`` says too little or
nothing (``_key``). A version that cannot build a recipe (ExceptionGroup
before 3.11, ``int | str`` before 3.10, anything of ``pathlib`` on 2.7)
raises Inexpressible: the runner discards such a case for that subject.

The module imports on every Python from 2.7 on, as serialcheck_fixtures.py
beside it does. Nothing here depends on the time, the locale or the
machine, so a recipe means one value everywhere.
"""

from __future__ import unicode_literals

import array
import collections
import datetime
import decimal
import fractions
import functools
import itertools
import operator
import re
import sys
import time

PY2 = sys.version_info[0] == 2
VERSION = tuple(sys.version_info[:2])

# How many items of an iterator are compared (itertools objects).
ITEMS_COMPARED = 6


class Inexpressible(Exception):
    """This interpreter cannot build the recipe (or cannot write it at the
    protocol asked): the case is discarded for it, never failed."""


class UnknownRecipe(ValueError):
    """A name that is not in RECIPES (or not of the form kind:variant)."""


def _needs(version, why):
    if VERSION < version:
        raise Inexpressible("Python %d.%d %s (needs %d.%d)"
                            % (VERSION + (why,) + version))


def _module(name, version=None):
    """The module, or Inexpressible when this interpreter has none."""
    if version is not None:
        _needs(version, "has no %s" % name)
    try:
        return __import__(name, fromlist=["_"])
    except ImportError as e:
        raise Inexpressible("no module %s here: %s" % (name, e))


# ---------------------------------------------------------------------------
# The recipes: (name, builder). A builder returns the value or raises
# Inexpressible. Values hold text as str (unicode on 2.7: unicode_literals).

def _utc():
    _needs((3, 2), "has no datetime.timezone")
    return datetime.timezone.utc


def _offset(hours, minutes, name):
    _needs((3, 2), "has no datetime.timezone")
    return datetime.timezone(datetime.timedelta(hours=hours, minutes=minutes), name)


def _datetime_fold():
    _needs((3, 6), "has no fold (PEP 495)")
    return datetime.datetime(2021, 11, 7, 1, 30, fold=1)


def _enum_member(module, path):
    _module("enum", (3, 4))
    obj = _module(module)
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise Inexpressible("Python %d.%d has no %s.%s" % (VERSION + (module, path)))
    return obj


def _regex_flag(value):
    _needs((3, 6), "has no re.RegexFlag (re's flags are plain ints)")
    return re.RegexFlag(value)


def _typing(expression, version):
    _needs(version, "cannot build %s" % expression)
    typing = _module("typing")
    return eval(expression, {"typing": typing})


def _operator_getter(make):
    return make()


def _exception_group():
    _needs((3, 11), "has no ExceptionGroup")
    return ExceptionGroup("two failures", [ValueError("bad", 1), KeyError("k")])  # noqa: F821


def _exception_with_note():
    _needs((3, 11), "has no BaseException.add_note")
    e = ValueError("with a note")
    e.add_note("noted by the sender")
    return e


def _big_int(sign, digits):
    return sign * 10 ** (digits - 1)


def _os_error():
    # No errno: an errno picks a subclass (2 is FileNotFoundError on Linux,
    # PermissionError under WebAssembly), which is the platform's business.
    return OSError(None, "No such file or directory", "missing.txt")


def _unicode_error():
    return UnicodeDecodeError(str("utf-8"), b"\xff\xfe", 0, 1, str("invalid start byte"))


def _namedtuple_match():
    import difflib
    return difflib.Match(3, 5, 2)


def _namedtuple_split():
    if PY2:
        import urlparse
        return urlparse.SplitResult("https", "example.org:8080", "/a/b", "q=1", "frag")
    from urllib.parse import SplitResult
    return SplitResult("https", "example.org:8080", "/a/b", "q=1", "frag")


# A namedtuple class of one's own, as services define them: found by
# reference in this module, which every subject imports.
Point = collections.namedtuple(str("Point"), str("x y"))


def _namedtuple_own():
    return Point(1, "y")


def _path(cls, text):
    pathlib = _module("pathlib", (3, 4))
    return getattr(pathlib, cls)(text)


def _ip(cls, text):
    ipaddress = _module("ipaddress", (3, 3))
    return getattr(ipaddress, cls)(text)


def _ip_scoped():
    _needs((3, 9), "has no IPv6 scope ids in ipaddress")
    return _ip("IPv6Address", "fe80::1%eth0")


def _uuid(text):
    import uuid
    return uuid.UUID(text)


def _uuid_safe():
    import uuid
    _needs((3, 7), "has no uuid.SafeUUID")
    return uuid.UUID("12345678-1234-5678-1234-567812345678", is_safe=uuid.SafeUUID.safe)


def _simple_namespace():
    types = _module("types")
    if not hasattr(types, "SimpleNamespace"):
        raise Inexpressible("Python %d.%d has no types.SimpleNamespace" % VERSION)
    return types.SimpleNamespace(a=1, b="two")


def _itertools(make):
    return make()


def _cycle_started():
    c = itertools.cycle("abc")
    next(c)
    next(c)
    return c


def _accumulate():
    _needs((3, 2), "has no itertools.accumulate")
    return itertools.accumulate([1, 2, 3, 4, 5])


RECIPES_TABLE = [
    # datetime
    ("datetime.date:0", lambda: datetime.date(2024, 2, 29)),
    ("datetime.datetime:0", lambda: datetime.datetime(2024, 2, 29, 13, 45, 30, 123456)),
    ("datetime.datetime:1", lambda: datetime.datetime(1999, 12, 31, 23, 59, 59, tzinfo=_utc())),
    ("datetime.datetime:2",
     lambda: datetime.datetime(2024, 7, 1, 8, 0, tzinfo=_offset(5, 30, "IST"))),
    ("datetime.datetime:3", _datetime_fold),
    ("datetime.time:0", lambda: datetime.time(23, 59, 59, 999999)),
    ("datetime.time:1", lambda: datetime.time(6, 30, tzinfo=_offset(-3, 0, "BRT"))),
    ("datetime.timedelta:0", lambda: datetime.timedelta(days=-1, seconds=5, microseconds=7)),
    ("datetime.timezone:0", _utc),
    ("datetime.timezone:1", lambda: _offset(-8, 0, "PST")),
    # numbers
    ("decimal.Decimal:0", lambda: decimal.Decimal("3.14159265358979323846264338327950288")),
    ("decimal.Decimal:1", lambda: decimal.Decimal("-0")),
    ("decimal.Decimal:2", lambda: decimal.Decimal("NaN")),
    ("decimal.Decimal:3", lambda: decimal.Decimal("-Infinity")),
    ("decimal.Decimal:4", lambda: decimal.Decimal("1.500E+999999")),
    ("fractions.Fraction:0", lambda: fractions.Fraction(-355, 113)),
    ("complex:0", lambda: complex(1.5, -0.0)),
    ("complex:1", lambda: complex(float("nan"), float("inf"))),
    ("int:0", lambda: _big_int(1, 4300)),
    ("int:1", lambda: _big_int(-1, 4301)),
    ("int:2", lambda: 2 ** 64 + 1),
    # enum members
    ("enum.Enum:0", lambda: _enum_member("uuid", "SafeUUID.unknown")),
    ("enum.IntEnum:0", lambda: _enum_member("http", "HTTPStatus.NOT_FOUND")),
    ("enum.IntEnum:1", lambda: _enum_member("signal", "Signals.SIGTERM")),
    ("enum.Flag:0", lambda: _regex_flag(re.IGNORECASE | re.MULTILINE)),
    ("enum.Flag:1", lambda: _regex_flag(0)),
    ("enum.Flag:2", lambda: _regex_flag(re.DOTALL)),
    # collections
    ("collections.OrderedDict:0", lambda: collections.OrderedDict([("b", 1), ("a", [2, 3])])),
    ("collections.defaultdict:0", lambda: collections.defaultdict(list, {"x": [1, 2]})),
    ("collections.deque:0", lambda: collections.deque([1, "two", 3.0], maxlen=5)),
    ("collections.Counter:0", lambda: collections.Counter("abracadabra")),
    ("collections.namedtuple:0", _namedtuple_match),
    ("collections.namedtuple:1", _namedtuple_split),
    ("collections.namedtuple:2", _namedtuple_own),
    ("types.SimpleNamespace:0", _simple_namespace),
    ("time.struct_time:0", lambda: time.gmtime(951782400)),
    ("array.array:0", lambda: array.array(str("d"), [1.5, -2.25, 1e300])),
    ("array.array:1", lambda: array.array(str("i"), [-1, 0, 2 ** 31 - 1])),
    # paths and addresses
    ("pathlib.PurePosixPath:0", lambda: _path("PurePosixPath", "/srv/data/report.csv")),
    ("pathlib.PureWindowsPath:0", lambda: _path("PureWindowsPath", "C:/Users/Ann/notes.txt")),
    ("ipaddress.IPv4Address:0", lambda: _ip("IPv4Address", "192.0.2.1")),
    ("ipaddress.IPv6Address:0", lambda: _ip("IPv6Address", "2001:db8::1")),
    ("ipaddress.IPv6Address:1", _ip_scoped),
    ("ipaddress.IPv4Network:0", lambda: _ip("IPv4Network", "198.51.100.0/24")),
    ("ipaddress.IPv6Interface:0", lambda: _ip("IPv6Interface", "2001:db8::7/64")),
    ("uuid.UUID:0", lambda: _uuid("12345678-1234-5678-1234-567812345678")),
    ("uuid.UUID:1", _uuid_safe),
    # patterns, ranges, slices
    ("re.Pattern:0", lambda: re.compile(r"(?P<key>\w+)\s*=\s*(\d+)", re.IGNORECASE)),
    ("re.Pattern:1", lambda: re.compile(b"^\\x00+$", re.MULTILINE)),
    ("range:0", lambda: (xrange if PY2 else range)(3, 100, 7)),  # noqa: F821
    ("slice:0", lambda: slice(1, None, -2)),
    # typing
    ("typing.Union:0", lambda: _typing("typing.Union[int, str]", (3, 5))),
    ("typing.Union:1", lambda: _typing("typing.Optional[typing.List[int]]", (3, 5))),
    ("typing.Union:2", lambda: _typing("int | str", (3, 10))),
    ("typing.GenericAlias:0", lambda: _typing("typing.Dict[str, typing.Tuple[int, ...]]", (3, 5))),
    ("typing.GenericAlias:1", lambda: _typing("list[int]", (3, 9))),
    # functools and operator
    ("functools.partial:0", lambda: functools.partial(int, base=16)),
    ("functools.partial:1", lambda: functools.partial(max, 3, 1, key=abs)),
    ("operator.itemgetter:0", lambda: operator.itemgetter(1, 0)),
    ("operator.attrgetter:0", lambda: operator.attrgetter("real", "imag")),
    ("operator.attrgetter:1", lambda: operator.attrgetter("start.real")),
    ("operator.methodcaller:0",
     lambda: operator.methodcaller("encode", "ascii", errors="replace")),
    # itertools
    ("itertools.count:0", lambda: itertools.count(5, 2)),
    ("itertools.cycle:0", _cycle_started),
    ("itertools.repeat:0", lambda: itertools.repeat("x", 3)),
    ("itertools.islice:0", lambda: itertools.islice(itertools.count(), 2, 20, 3)),
    ("itertools.chain:0", lambda: itertools.chain([1, 2], (3,), "ab")),
    ("itertools.product:0", lambda: itertools.product("ab", range(2))),
    ("itertools.accumulate:0", _accumulate),
    # exceptions
    ("builtins.ValueError:0", lambda: ValueError("bad value", 42)),
    ("builtins.ValueError:1", _exception_with_note),
    ("builtins.KeyError:0", lambda: KeyError("missing")),
    ("builtins.OSError:0", _os_error),
    ("builtins.UnicodeDecodeError:0", _unicode_error),
    ("builtins.ExceptionGroup:0", _exception_group),
]

RECIPES = tuple(name for name, _ in RECIPES_TABLE)
_BUILDERS = dict(RECIPES_TABLE)

class _Probe(object):
    """What an operator getter is applied to where it cannot be reduced
    (Python 2.7's getters have no __reduce__): its result is the key."""
    real = 1.5
    imag = -2.0
    start = complex(3, 4)


_GETTER_PROBES = {
    "itemgetter": lambda: ["a", "b", "c"],
    "attrgetter": _Probe,
    "methodcaller": lambda: "a\xe9",
}


def kind_of(recipe):
    """The kind part of a recipe: "decimal.Decimal" of "decimal.Decimal:1"."""
    kind, sep, variant = recipe.partition(":")
    if not sep or not kind or not variant.isdigit():
        raise UnknownRecipe("%r is not a recipe (kind:variant)" % (recipe,))
    return kind


def build(recipe):
    """The recipe's value, built by this interpreter. Raises Inexpressible
    when this version cannot build it, UnknownRecipe for a name not in
    RECIPES."""
    kind_of(recipe)
    try:
        builder = _BUILDERS[recipe]
    except KeyError:
        raise UnknownRecipe("no recipe %r (known: %d recipes, %s ... %s)"
                            % (recipe, len(RECIPES), RECIPES[0], RECIPES[-1]))
    return builder()


# ---------------------------------------------------------------------------
# Comparison

def type_name(obj):
    t = type(obj)
    return "%s.%s" % (t.__module__, getattr(t, "__qualname__", t.__name__))


def _items(iterator):
    return list(itertools.islice(iterator, ITEMS_COMPARED))


def _own_reduce(obj):
    """The type's own reduce, callable and arguments, as a key (a
    methodcaller with keywords reduces to a partial that holds its name);
    None where the type has none (Python 2.7's getters, PyPy's, whose
    default reduce holds internals that differ by identity)."""
    if type(obj).__reduce__ is object.__reduce__:
        return None
    try:
        return _plain_key(obj.__reduce__())
    except TypeError:
        return None


def _exception_key(e):
    key = [_plain_key(e.args), sorted((k, repr(v)) for k, v in vars(e).items())]
    if isinstance(e, EnvironmentError):
        key.append((e.errno, e.strerror, e.filename))
    exceptions = getattr(e, "exceptions", None)
    if isinstance(exceptions, tuple):
        key.append(_plain_key(exceptions))
    return key


def _plain_key(v):
    """Arguments as comparable keys: exceptions (an ExceptionGroup's list)
    by type and key, partials by their parts, floats by repr, sequences item
    by item."""
    if isinstance(v, BaseException):
        return (type_name(v), _exception_key(v))
    if isinstance(v, functools.partial):
        return ("partial", v.func, _plain_key(v.args), sorted((v.keywords or {}).items()))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_plain_key(x) for x in v])
    if isinstance(v, (float, complex)):
        return repr(v)
    return v


def _key(obj):
    """What two values of one type must agree on, beyond the type itself."""
    if isinstance(obj, BaseException):
        return _exception_key(obj)
    if isinstance(obj, (decimal.Decimal, complex, float, datetime.datetime, datetime.time)):
        # repr: -0 and 0, NaN and NaN, two time zones of one offset, fold.
        return repr(obj)
    if isinstance(obj, collections.defaultdict):
        return (obj.default_factory, dict(obj))
    if isinstance(obj, collections.deque):
        return (obj.maxlen, list(obj))
    if isinstance(obj, type(re.compile(""))):
        return (obj.pattern, obj.flags)
    if PY2 and isinstance(obj, xrange):  # noqa: F821 (Python 2's xrange has no ==)
        return repr(obj)
    if isinstance(obj, functools.partial):
        return (obj.func, obj.args, obj.keywords, getattr(obj, "__dict__", None))
    if isinstance(obj, array.array):
        return (obj.typecode, obj.tolist())
    if type(obj).__module__ == "uuid" and type(obj).__name__ == "UUID":
        return (obj.int, getattr(obj, "is_safe", None))
    if isinstance(obj, (operator.itemgetter, operator.attrgetter, operator.methodcaller)):
        reduced = _own_reduce(obj)
        if reduced is not None:
            return reduced
        return ("applied to a probe", obj(_GETTER_PROBES[type(obj).__name__]()))
    if type(obj).__module__ == "itertools":
        return _items(obj)
    return obj


def same(loaded, expected):
    """True when `loaded` is `expected`'s value: the same type (module and
    qualified name) and the same key. Consumes iterators."""
    if type_name(loaded) != type_name(expected):
        return False
    try:
        return bool(_key(loaded) == _key(expected))
    except Exception:
        return False


def _digits(n):
    """The decimal digits of |n|, without str() (limited to 4300 digits in
    newer versions)."""
    n = abs(n)
    d = max(1, int(n.bit_length() * 0.30102999566398120) - 1)
    while 10 ** d <= n:
        d += 1
    return d


def describe(obj):
    """A repr for reports; an iterator's shows its next items (consumed), a
    big int its sign, size and last digits."""
    if type(obj).__module__ == "itertools":
        return "%s yielding %r" % (type_name(obj), _items(obj))
    if isinstance(obj, int if not PY2 else (int, long)) and not isinstance(obj, bool) and \
            abs(obj) >= 10 ** 40:  # noqa: F821
        return "%s: %san int of %d digits ending %s" % (
            type_name(obj), "-" if obj < 0 else "", _digits(obj), repr(abs(obj) % 10 ** 12).rstrip("L"))
    try:
        if isinstance(obj, type(re.compile(""))):
            text = "pattern %r, flags %d" % (obj.pattern, obj.flags)
        else:
            text = repr(obj)
            if " at 0x" in text:
                # A repr that names an address says nothing: show the key.
                text = "compared as %r" % (_key(obj),)
    except Exception as e:
        text = "<repr raised %s>" % type(e).__name__
    if len(text) > 300:
        text = text[:140] + "...(%d characters)..." % len(text) + text[-140:]
    return "%s: %s" % (type_name(obj), text)


# ---------------------------------------------------------------------------
# What a subject does: dump with its pickler, load with its loader.

def _int_digit_limit():
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get is not None else 0


def dumps_recipe(recipe, protocol, dumps):
    """The pickle `dumps(obj, protocol=protocol)` writes for the recipe.

    Two values cannot be written at low protocols, by design and alike in
    every version that has them, so they are Inexpressible there: a
    datetime's fold (PEP 495 keeps it from protocol 4 on only), and an int
    beyond the int-to-str limit at protocols 0 and 1, which write ints as
    decimal text (3.11, and 3.7.14, 3.8.14, 3.9.14, 3.10.7 on, refuse more
    than 4300 digits)."""
    obj = build(recipe)
    if protocol < 4 and getattr(obj, "fold", 0):
        raise Inexpressible("a datetime's fold is pickled from protocol 4 on only (PEP 495)")
    limit = _int_digit_limit()
    if protocol < 2 and limit and kind_of(recipe) == "int" and abs(obj) >= 10 ** limit:
        raise Inexpressible("Python %d.%d limits int-to-str conversion to %d digits: it writes "
                            "no larger int at protocol %d" % (VERSION + (limit, protocol)))
    return dumps(obj, protocol=protocol)


def load_compare(recipe, data, loads):
    """(equal, loaded description, expected description) for a pickle of the
    recipe: loaded with `loads`, compared with this interpreter's own build.
    The build comes first, so a recipe this version cannot build raises
    Inexpressible before the pickle is read; the load's error propagates."""
    expected = build(recipe)
    loaded = loads(data)
    equal = same(loaded, expected)
    # same() consumed iterators: describe fresh ones.
    if type(expected).__module__ == "itertools":
        expected = build(recipe)
        loaded = loads(data)
    return equal, describe(loaded), describe(expected)
