// Functions and classes as Python source, for callable.by-value
// (docs/conformance.md): what cloudpickle and dill exist to pickle.
//
// A generated source binds the name `subject` to a function or a class.
//
// Functions: `def` or `lambda`, with one to three positional parameters
// (trailing ones with defaults), up to two keyword-only ones (with or
// without defaults) and, for a def, annotations (`int`, `object`, a string,
// `list[int]`, `int | None`) and a return annotation; at module level, or
// made by a function `_make` whose locals they close over: generated
// values, the function's own name (a cell that holds the function itself),
// and state the function changes: a list it appends to, a `nonlocal`
// counter, or a cell it shares with a second inner function `bump` that
// writes it. They read module globals, may be recursive, and may hold a
// nested function or lambda.
//
// Classes: on `object`, on a fixtures class found by reference (Plain,
// Empty, GetState, Slots, Record, Outer.Inner, TagList, NewArgsEx), or on
// a base `_Base` the source defines (plain, with __init_subclass__, or
// abstract with a registered class), whose attribute B0 the class may set
// again to the same value or another; the class's __init__ calls the
// base's through super() and overrides its `method` through
// super().method(); with class attributes read through `self`,
// `type(self)`, the class's own name and, in a classmethod, `cls`;
// __init__ with defaults, setting `x` and perhaps a generated value `v`;
// a `run` that calls methods m0, m1... chained through self, a
// staticmethod and a classmethod; and each on its own: a property,
// __slots__, a metaclass, typing.Generic over a TypeVar, @dataclass
// (frozen or not), a helper function that closes over the class the
// class's run calls; at module level or defined inside `_make`, its
// methods closing over _make's locals. One class in six is an enum
// instead (Enum, IntEnum, Flag, IntFlag), its members looked up by value.
//
// Values (globals, closed-over locals, defaults, class attributes) are
// ints (big ones too), finite floats, str (non-ASCII, escaped or not),
// bytes, None, bools, tuples, lists and dicts of those, and (not as
// defaults nor inside other values) sets and frozensets. The code reads
// each through something its repr decides: an int or bool itself, a float
// times 4 rounded, anything else the length of its repr; a result is an
// int, or a tuple of an int and the values themselves (a set as the sorted
// reprs of its items), so every result has one repr in every process.
// Every call undoes the state it changed (in a finally), so a result does
// not depend on the calls made before. A call may raise (division by zero,
// a missing argument, a TypeError), and the exception's type is then the
// result.
//
// A case's value is the list [source, inputs], both strings; inputs is the
// JSON array of calls, each [positional_args, keyword_args]. Shrinking
// shrinks the drawn structure, so a failing case ends at a small source.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "harness/gen/value.h"

namespace serialcheck::gen {

// What callable.class-life's _change() may assign after pickling: a
// global, a class attribute, a method, a function's defaults.
struct Changeable {
  enum class Form { Value, Method, Defaults };
  std::string target;  // "G0", "subject.K1", "subject.m0", "subject.__defaults__"
  Form form = Form::Value;
  int count = 0;  // Defaults: how many
};

struct CallableSource {
  std::string source;     // binds `subject`
  nlohmann::json inputs;  // [[args, kwargs], ...]
  bool is_class = false;
  std::vector<Changeable> changeable;
};

rc::Gen<CallableSource> callableSource();
rc::Gen<GeneratedValue> callableValue();

// callable.class-life (docs/conformance.md): the list [source, inputs,
// situation], three strings. The source is a callableSource() and a
// function _change() that assigns new values to some of its changeable
// targets (none, when shrunk); the situation is one of life_situations(),
// the last two only for a class.
const std::vector<std::string>& life_situations();
rc::Gen<GeneratedValue> classLifeValue();
void showValue(const CallableSource& c, std::ostream& os);

// What the embedded interpreter does for one case (installed by whoever
// embeds Python; harness/python/byvalue.h): the request is {"pickler":
// module, "source", "inputs", "protocol"}, the answer the JSON that
// serialcheck_byvalue.check returns (harness/testees/python/).
using ByValueRunner = std::function<nlohmann::json(const nlohmann::json& request)>;
void set_by_value_runner(ByValueRunner runner);
// nullptr when none is installed.
const ByValueRunner* by_value_runner();

}  // namespace serialcheck::gen
