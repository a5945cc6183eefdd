"""Python objects as people pickle them, for serialcheck's generator.

Every Python subject imports this module (the embedded interpreter puts this
folder on sys.path; the testee adapter beside it finds it as a neighbour), so
a generated case that names one of these classes means the same object in
every process.

The generator asks for an object as ``make(kind, *args)``: ``kind`` names one
of the shapes below (FIXTURES lists them with the number of arguments the
generator draws for each), ``args`` are generated values. The harness then
builds the real object and describes it the way the pickler sees it at the
case's protocol (the reduce CPython returns), so the value the reference
encodes is what the C pickler writes for this object.

Each class stands for one way CPython reduces an object; the comment on each
says which.

The module imports on every Python from 2.7 on (the testee adapter beside it
serves old interpreters too). On 3.11 every class is what it always was; a
class an interpreter cannot have (a dataclass before 3.7, an enum on 2.7) is
simply not defined there, and make() does not offer its kind, so the adapter
answers a case that names it as `unsupported`. Syntax that Python 2 cannot
parse (keyword-only arguments, annotations) is compiled only on Python 3.
"""

import collections
import functools
import io
import operator
import pickle
import sys

try:
    import copyreg
except ImportError:  # Python 2
    import copy_reg as copyreg

try:
    import dataclasses
except ImportError:  # before 3.7
    dataclasses = None

try:
    import enum
except ImportError:  # Python 2
    enum = None

PY3 = sys.version_info[0] >= 3


def _py3(source):
    """Defines the Python 3 `source` in this module, as if written here:
    same names and qualnames, and tracebacks name this file's lines."""
    path = globals().get("__file__") or "<serialcheck_fixtures>"
    if path.endswith((".pyc", ".pyo")):
        path = path[:-1]
    try:
        with io.open(path, encoding="utf-8") as f:
            text = f.read()
        pad = "\n" * text[:text.index(source)].count("\n")
    except (IOError, OSError, ValueError):
        pad = ""
    exec(compile(pad + source, path, "exec"), globals())


# ---------------------------------------------------------------------------
# Default reduce (object.__reduce_ex__): copyreg._reconstructor below
# protocol 2, copyreg.__newobj__ (NEWOBJ) from 2 on, the instance __dict__ as
# the state (none at all when it is empty).

class Plain(object):
    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b

    def method(self):
        return self.a


class Empty(object):
    """No attributes: no state, so no BUILD."""


class Slots(object):
    """__slots__ alone: the state is (None, {slot: value}); below protocol 2
    CPython refuses it."""
    __slots__ = ("a", "b")

    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b


class SlotsDict(object):
    """__slots__ and a __dict__: the state is (dict, {slot: value})."""
    __slots__ = ("a", "__dict__")

    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b


class PartSlots(object):
    """A slot left unset does not appear in the state."""
    __slots__ = ("a", "b")

    def __init__(self, a=None):
        self.a = a


# ---------------------------------------------------------------------------
# __getstate__ / __setstate__.

class GetState(object):
    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b

    def __getstate__(self):
        return [self.a, self.b]

    def __setstate__(self, state):
        self.a, self.b = state


class FalsyState(object):
    """A falsy state: from protocol 2 on it is still written (BUILD), below 2
    copyreg drops it and __setstate__ is never called on load."""

    def __init__(self, a=None):
        self.a = a

    def __getstate__(self):
        return 0

    def __setstate__(self, state):
        self.a = state


# ---------------------------------------------------------------------------
# __reduce__ returning 2- to 6-tuples, and a string.

class Reduce2(object):
    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b

    def __reduce__(self):
        return (Reduce2, (self.a, self.b))


class Reduce3(object):
    """(callable, args, state): the state goes to __setstate__."""

    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b

    def __reduce__(self):
        return (Reduce3, (self.a,), {"b": self.b})


class Bag(object):
    """(callable, args, None, listitems): the items come back through append."""

    def __init__(self, *items):
        self.items = list(items)

    def append(self, item):
        self.items.append(item)

    def __reduce__(self):
        return (Bag, (), None, iter(self.items))


class Table(object):
    """(callable, args, state, None, dictitems): the items come back through
    __setitem__."""

    def __init__(self, tag=None):
        self.tag = tag
        self.rows = {}

    def __setitem__(self, key, value):
        self.rows[key] = value

    def __reduce__(self):
        return (Table, (), {"tag": self.tag}, None, iter(list(self.rows.items())))


def set_state(obj, state):
    """A state_setter: called as set_state(obj, state) instead of BUILD's
    __setstate__."""
    obj.a = state


class Reduce6(object):
    """(callable, args, state, listitems, dictitems, state_setter)."""

    def __init__(self, a=None):
        self.a = a

    def __reduce__(self):
        return (Reduce6, (), self.a, None, None, set_state)


class Named(object):
    """__reduce__ returns a string: the object is saved as that global."""

    def __reduce__(self):
        return "NAMED"


NAMED = Named()


class ReduceEx(object):
    """__reduce_ex__ that depends on the protocol."""

    def __init__(self, a=None, b=None):
        self.a = a
        self.b = b

    def __reduce_ex__(self, protocol):
        if protocol < 2:
            return (ReduceEx, (self.a, self.b))
        if protocol < 4:
            return (copyreg.__newobj__, (ReduceEx,), {"a": self.a, "b": self.b})
        return (copyreg.__newobj__, (ReduceEx,), {"a": self.a}, iter([self.b]))

    def append(self, item):
        self.b = item


def _keyword_only(kwargs):
    """Python 2's stand-in for `*, key=None`."""
    key = kwargs.pop("key", None)
    if kwargs:
        raise TypeError("unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    return key


# ---------------------------------------------------------------------------
# __getnewargs__ and __getnewargs_ex__: the arguments NEWOBJ (NEWOBJ_EX from
# protocol 4, copyreg.__newobj_ex__ below) passes to __new__.

class NewArgs(object):
    def __new__(cls, a=None, b=None):
        self = super(NewArgs, cls).__new__(cls)
        self.a = a
        return self

    def __init__(self, a=None, b=None):
        self.b = b

    def __getnewargs__(self):
        return (self.a,)


if PY3:
    _py3('''
class NewArgsEx(object):
    """object.__new__ takes the arguments (the class overrides __init__ only)."""

    def __init__(self, a=None, *, key=None):
        self.a = a
        self.key = key

    def __getnewargs_ex__(self):
        return ((self.a,), {"key": self.key})


class NewArgsExNew(object):
    """Its own __new__: at protocols 2 and 3 the pickler calls it through
    functools.partial(NewArgsExNew.__new__, NewArgsExNew, *args, **kwargs)()
    (object.__new__ for a class without one); at 0 and 1 __getnewargs_ex__
    is not used (copyreg._reconstructor)."""

    def __new__(cls, a=None, *, key=None):
        self = super().__new__(cls)
        self.a = a
        self.key = key
        return self

    def __getnewargs_ex__(self):
        return ((self.a,), {"key": self.key})
''')
else:
    class NewArgsEx(object):
        """Python 2: key is keyword-only by hand; __getnewargs_ex__ is not
        used by Python 2's pickle."""

        def __init__(self, a=None, **kwargs):
            self.a = a
            self.key = _keyword_only(kwargs)

        def __getnewargs_ex__(self):
            return ((self.a,), {"key": self.key})

    class NewArgsExNew(object):
        def __new__(cls, a=None, **kwargs):
            self = super(NewArgsExNew, cls).__new__(cls)
            self.a = a
            self.key = _keyword_only(kwargs)
            return self

        def __getnewargs_ex__(self):
            return ((self.a,), {"key": self.key})


# ---------------------------------------------------------------------------
# Subclasses of builtin containers, with attributes.

class TagList(list):
    pass


class TagDict(dict):
    pass


class TagSet(set):
    pass


# ---------------------------------------------------------------------------
# A reducer registered with copyreg (the pickler's dispatch table).

class Registered(object):
    def __init__(self, a=None):
        self.a = a


def reduce_registered(obj):
    return (Registered, (obj.a,))


copyreg.pickle(Registered, reduce_registered)


# ---------------------------------------------------------------------------
# Enum members, namedtuples, dataclasses, nested qualnames.

if enum is not None:
    class Color(enum.Enum):
        RED = 1
        GREEN = "green"
        BLUE = (3, 4)

    class Level(enum.IntEnum):
        LOW = 1
        HIGH = 1000

    class Perm(enum.Flag):
        R = 4
        W = 2
        X = 1


Pair = collections.namedtuple("Pair", ["left", "right"])


if dataclasses is not None:
    _py3('''
@dataclasses.dataclass
class Record:
    a: object = None
    b: object = None


@dataclasses.dataclass(frozen=True)
class FrozenRecord:
    a: object = None
    b: object = None


try:
    @dataclasses.dataclass(slots=True)
    class SlotRecord:
        a: object = None
        b: object = None

    @dataclasses.dataclass(frozen=True, slots=True)
    class FrozenSlotRecord:
        a: object = None
        b: object = None
except TypeError:
    # Before Python 3.10 (PyPy 3.9): the same classes, written out as 3.11's
    # dataclasses makes them, so that every interpreter holds the same objects.
    @dataclasses.dataclass
    class SlotRecord:
        __slots__ = ("a", "b")
        a: object
        b: object

    @dataclasses.dataclass(frozen=True)
    class FrozenSlotRecord:
        __slots__ = ("a", "b")
        a: object
        b: object

        def __getstate__(self):
            return [getattr(self, f.name) for f in dataclasses.fields(self)]

        def __setstate__(self, state):
            for f, value in zip(dataclasses.fields(self), state):
                object.__setattr__(self, f.name, value)
''')


class Outer(object):
    class Inner(object):
        def __init__(self, a=None):
            self.a = a

        def method(self):
            return self.a

    def method(self):
        return 0

    @staticmethod
    def static_method(x=None):
        return x

    @classmethod
    def class_method(cls, x=None):
        return x


# ---------------------------------------------------------------------------
# Callables by reference.

if PY3:
    _py3('''
def function(x=None, *, key=None):
    return x
''')
else:
    def function(x=None, **kwargs):
        _keyword_only(kwargs)
        return x


class Persistent(object):
    """Stands for an object stored elsewhere, known by its pid: a pickler made
    by with_persistent_ids() writes it as a persistent id (PERSID, BINPERSID),
    an unpickler made by with_persistent_load() reads it back."""

    def __init__(self, pid):
        self.pid = pid

    def __eq__(self, other):
        return type(other) is Persistent and other.pid == self.pid

    def __hash__(self):
        return hash(("Persistent", repr(self.pid)))

    def __repr__(self):
        return "Persistent(%r)" % (self.pid,)


def _persistent_id(self, obj):
    return obj.pid if type(obj) is Persistent else None


def _persistent_load(self, pid):
    return Persistent(pid)


_SUBCLASSES = {}


def _with_method(cls, name, method):
    """A subclass of `cls` with `method` as `name`. Python 2's classic
    classes (pickle.Pickler) are subclassed as classic classes; cPickle's
    Pickler and Unpickler are factories, not classes: their objects get
    the method as an attribute, as cPickle expects."""
    if isinstance(cls, type):
        return type(cls.__name__, (cls,), {name: method})
    if type(cls).__name__ == "classobj":
        return type(cls)(cls.__name__, (cls,), {name: method})

    def make(*args, **kwargs):
        obj = cls(*args, **kwargs)
        setattr(obj, name, functools.partial(method, obj))
        return obj
    make.__name__ = getattr(cls, "__name__", name)
    return make


def with_persistent_ids(pickler_class):
    """A subclass of `pickler_class` whose persistent_id names every
    Persistent by its pid."""
    key = (pickler_class, "dump")
    if key not in _SUBCLASSES:
        _SUBCLASSES[key] = _with_method(pickler_class, "persistent_id", _persistent_id)
    return _SUBCLASSES[key]


def with_persistent_load(unpickler_class):
    """A subclass of `unpickler_class` that reads a persistent id as a
    Persistent."""
    key = (unpickler_class, "load")
    if key not in _SUBCLASSES:
        _SUBCLASSES[key] = _with_method(unpickler_class, "persistent_load", _persistent_load)
    return _SUBCLASSES[key]


PersistentPickler = with_persistent_ids(pickle.Pickler)
PersistentUnpickler = with_persistent_load(pickle.Unpickler)


class Inert(object):
    """What an inert unpickler gives for every global: a class that takes
    any arguments, state and items and does nothing with them."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass

    def add(self, item):
        pass


def _inert_find_class(self, module, name):
    return Inert


class WholeStream(object):
    """A file over `data` whose peek() hands the C unpickler everything that
    is left, so that it reads the stream as pickle.loads reads a bytes
    object. Given a BytesIO it reads in chunks, and then a FRAME whose
    length runs past the next one reads otherwise than loads() does."""

    def __init__(self, data):
        self._data = bytes(data)
        self._pos = 0

    def peek(self, n=0):
        return self._data[self._pos:]

    def read(self, n=-1):
        end = len(self._data) if n is None or n < 0 else min(len(self._data), self._pos + n)
        out = self._data[self._pos:end]
        self._pos = end
        return out

    def readline(self):
        newline = self._data.find(b"\n", self._pos)
        end = len(self._data) if newline < 0 else newline + 1
        out = self._data[self._pos:end]
        self._pos = end
        return out


def inert_unpickler(unpickler_class):
    """A subclass of with_persistent_load(unpickler_class) whose find_class
    gives Inert for every global, importing nothing: a stream it rejects is
    rejected for its form, not for what a global or a call did. How a
    malformed stream is put to CPython's loader."""
    key = (unpickler_class, "inert")
    if key not in _SUBCLASSES:
        _SUBCLASSES[key] = _with_method(
            with_persistent_load(unpickler_class), "find_class", _inert_find_class)
    return _SUBCLASSES[key]


# ---------------------------------------------------------------------------
# Globals in copyreg's extension registry. From protocol 2 on pickle writes
# each of them as EXT1, EXT2 or EXT4 and its code instead of its name, and
# never memoizes it. Registered at import, so every process that imports
# this module reads the codes alike. The codes are chosen not to clash: 0xf7
# is in 240-255, which copyreg reserves for private use, and 0xf7f6 and
# 0xf7f6f5 are far from the codes of the standard library and of pickle's
# own tests; their bytes differ, so a wrong byte order shows.

def extension_function(x=None):
    """Written as EXT1 0xf7."""
    return x


class ExtensionClass(object):
    """Written as EXT2 0xf7f6, also where NEWOBJ names it as its
    instances' class."""

    def __init__(self, a=None):
        self.a = a


class ExtensionOuter(object):
    class Inner(object):
        """Written as EXT4 0xf7f6f5: the registry's key is the whole
        qualified name."""


EXTENSION_CODES = {
    "extension_function": 0xf7,
    "ExtensionClass": 0xf7f6,
    "ExtensionOuter.Inner": 0xf7f6f5,
}

for _name, _code in EXTENSION_CODES.items():
    copyreg.add_extension(__name__, _name, _code)


# ---------------------------------------------------------------------------
# make(kind, *args): the objects the generator asks for.

def _self_ref(a):
    obj = Plain(a)
    obj.b = [obj, a]
    obj.me = obj
    return obj


def _tag_list(a, b):
    obj = TagList(a if isinstance(a, list) else [a])
    obj.tag = b
    return obj


def _tag_dict(a, b):
    obj = TagDict(k=a)
    obj.tag = b
    return obj


def _tag_set(a):
    obj = TagSet()
    # Only items that come back as themselves (a PickleBuffer, say, is
    # hashable but loads as a bytearray, which is not).
    obj.add(a if isinstance(a, (int, float, str, bytes, type(None))) else type(a).__name__)
    obj.tag = a
    return obj


def _table(a, b):
    obj = Table(a)
    obj["row"] = b
    return obj


def _pick(members, a):
    if isinstance(a, int):
        return members[a % len(members)]
    if isinstance(a, str):
        return members[len(a) % len(members)]
    return members[0]


def _selector(a):
    return a % 3 if isinstance(a, int) else 0


_BUILDERS = {
    # kind: (number of generated arguments, builder)
    "plain": (2, Plain),
    "empty": (0, Empty),
    "slots": (2, Slots),
    "slots_dict": (2, SlotsDict),
    "part_slots": (1, PartSlots),
    "getstate": (2, GetState),
    "falsy_state": (1, FalsyState),
    "reduce2": (2, Reduce2),
    "reduce3": (2, Reduce3),
    "listitems": (2, Bag),
    "dictitems": (2, _table),
    "state_setter": (1, Reduce6),
    "reduce_string": (0, lambda: NAMED),
    "reduce_ex": (2, ReduceEx),
    "newargs": (2, NewArgs),
    "newargs_ex": (2, lambda a, b: NewArgsEx(a, key=b)),
    "newargs_ex_new": (2, lambda a, b: NewArgsExNew(a, key=b)),
    "list_subclass": (2, _tag_list),
    "dict_subclass": (2, _tag_dict),
    "set_subclass": (1, _tag_set),
    "copyreg": (1, Registered),
    "enum": (1, lambda a: _pick(list(Color), a)),
    "int_enum": (1, lambda a: _pick(list(Level), a)),
    "flag": (1, lambda a: Perm(_selector(a) + 4) if _selector(a) else Perm.R | Perm.W),
    "namedtuple": (2, Pair),
    "dataclass": (2, lambda a, b: Record(a, b)),
    "frozen_dataclass": (2, lambda a, b: FrozenRecord(a, b)),
    "slots_dataclass": (2, lambda a, b: SlotRecord(a, b)),
    "frozen_slots_dataclass": (2, lambda a, b: FrozenSlotRecord(a, b)),
    "nested_class": (1, Outer.Inner),
    "self_ref": (1, _self_ref),
    # Callables by reference.
    "function": (0, lambda: function),
    "builtin": (1, lambda a: (len, abs, sorted)[_selector(a)]),
    "method": (0, lambda: Outer.method),
    "nested_method": (0, lambda: Outer.Inner.method),
    "static_method": (0, lambda: Outer.static_method),
    "class_method": (0, lambda: Outer.class_method),
    "bound_method": (1, lambda a: Plain(a).method),
    "partial": (2, lambda a, b: functools.partial(function, a, key=b)),
    "attrgetter": (1, lambda a: (operator.attrgetter("a"), operator.attrgetter("a.b", "c"),
                                 operator.attrgetter("b"))[_selector(a)]),
    "itemgetter": (1, lambda a: operator.itemgetter(0) if _selector(a) else
                   operator.itemgetter(0, "k")),
    "methodcaller": (2, lambda a, b: operator.methodcaller("method", a) if _selector(a) else
                     operator.methodcaller("method", a, key=b)),
    # Written as EXT1, EXT4 and (the instance's class) EXT2 from protocol 2 on.
    "extension": (1, lambda a: [extension_function, ExtensionOuter.Inner, ExtensionClass(a)]),
}

# The kinds whose classes this interpreter lacks (see the module's docstring).
_NEEDS = {"enum": "Color", "int_enum": "Level", "flag": "Perm", "dataclass": "Record",
          "frozen_dataclass": "FrozenRecord", "slots_dataclass": "SlotRecord",
          "frozen_slots_dataclass": "FrozenSlotRecord"}
for _kind, _class in _NEEDS.items():
    if _class not in globals():
        del _BUILDERS[_kind]

# The fixture classes other versions define and this one cannot: a value
# that names one is a value this interpreter cannot express.
MISSING_HERE = frozenset(c for c in _NEEDS.values() if c not in globals())

FIXTURES = dict((kind, arity) for kind, (arity, _) in _BUILDERS.items())


def make(kind, *args):
    """The object of shape `kind` built from generated `args` (missing ones
    are None, extra ones ignored)."""
    arity, builder = _BUILDERS[kind]
    args = (args + (None,) * arity)[:arity]
    return builder(*args)
