#include "harness/gen/function_gen.h"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "reference/common/utf8.h"

namespace serialcheck::gen {
namespace {

using Names = std::vector<std::string>;

// ---------------------------------------------------------------------------
// Values: Python literals whose repr is the same in every process.

// An int in [-lowest, highest] that shrinks towards 0.
rc::Gen<int> int_towards_zero(int lowest, int highest) {
  return rc::gen::map(rc::gen::inRange(0, highest + lowest + 1),
                      [highest](int v) { return v <= highest ? v : highest - v; });
}

rc::Gen<int> small_int() { return int_towards_zero(3, 9); }

// An index in [0, n), uniform at every size, that shrinks towards 0.
rc::Gen<int> index(int n) { return rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, n)); }

// One of `items`, uniform, shrinking towards the first.
template <typename T>
rc::Gen<T> pick(std::vector<T> items) {
  return rc::gen::map(index(static_cast<int>(items.size())),
                      [items](int i) { return items[static_cast<std::size_t>(i)]; });
}

std::string literal(int v) { return v < 0 ? fmt::format("({})", v) : std::to_string(v); }

// Simplest first: a drawn kind shrinks towards Int.
enum class PyKind { Int, Bool, None, Float, BigInt, Str, Bytes, Tuple, List, Dict, FrozenSet, Set };
constexpr int kScalarKinds = 7;  // Int .. Bytes: hashable, no items
constexpr int kKinds = 12;

struct PyValue {
  PyKind kind = PyKind::Int;
  std::string literal;
};

// Code points that print (written as themselves when `raw`); the rest of
// the alphabet is always escaped.
bool printable(char32_t c) {
  return (c >= 0x20 && c < 0x7F) || c == 0xE9 || c == 0xDF || c == 0x416 || c == 0x65E5 ||
         c == 0x1F600 || c == 0xFFFD;
}

rc::Gen<PyValue> str_value() {
  return rc::gen::exec([] {
    static const std::vector<char32_t> alphabet = {
        U'a', U'Z', U'0', U' ', U'\'', U'"', U'\\', U'\n', U'\0', 0xE9,  // é
        0xDF,                                                           // ß
        0x416,                                                          // Ж
        0x65E5,                                                         // 日
        0x1F600,                                                        // 😀
        0x200B,                                                         // zero width space
        0xFFFD};
    const int n = *rc::gen::inRange(0, 5);
    const bool raw = *rc::gen::arbitrary<bool>();  // non-ASCII written as UTF-8
    std::string out = "'";
    for (int i = 0; i < n; ++i) {
      const char32_t c = *pick(alphabet);
      if (c == U'\'' || c == U'\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x80 && printable(c)) {
        out += static_cast<char>(c);
      } else if (raw && printable(c)) {
        append_utf8(out, c);
      } else if (c < 0x100) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
      } else if (c < 0x10000) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      } else {
        out += fmt::format("\\U{:08x}", static_cast<unsigned>(c));
      }
    }
    return PyValue{PyKind::Str, out + "'"};
  });
}

rc::Gen<PyValue> bytes_value() {
  return rc::gen::exec([] {
    static const std::vector<unsigned> alphabet = {0x61, 0x00, 0x27, 0x5C, 0x0A, 0x7F, 0x80, 0xFF};
    const int n = *rc::gen::inRange(0, 5);
    std::string out = "b'";
    for (int i = 0; i < n; ++i) {
      const unsigned b = *pick(alphabet);
      if (b == 0x27 || b == 0x5C) {
        out += '\\';
        out += static_cast<char>(b);
      } else if (b >= 0x20 && b < 0x7F) {
        out += static_cast<char>(b);
      } else {
        out += fmt::format("\\x{:02x}", b);
      }
    }
    return PyValue{PyKind::Bytes, out + "'"};
  });
}

std::string joined(const Names& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

// A value of a drawn kind; `depth` bounds the nesting of tuples, lists and
// dicts; sets and frozensets (whose repr follows hash order) only where
// `sets` allows, and never inside another value. Shrinks towards a small int.
rc::Gen<PyValue> value(int depth, bool sets) {
  return rc::gen::exec([depth, sets] {
    const int kinds = depth <= 0 ? kScalarKinds : sets ? kKinds : kKinds - 2;
    // About half the values are small ints.
    const int k = *index(2 * kinds);
    const PyKind kind = k < kinds ? static_cast<PyKind>(k) : PyKind::Int;
    switch (kind) {
      case PyKind::Int: return PyValue{kind, literal(*small_int())};
      case PyKind::Bool: return PyValue{kind, *rc::gen::arbitrary<bool>() ? "True" : "False"};
      case PyKind::None: return PyValue{kind, "None"};
      case PyKind::Float:
        return PyValue{kind, *pick(Names{"0.5", "0.0", "(-0.0)", "(-1.25)", "0.1",
                                                       "1e+300", "5e-324", "3.141592653589793",
                                                       "1e+16", "(-2.5e-05)", "123456789.125"})};
      case PyKind::BigInt:
        return PyValue{kind,
                       *pick(Names{"9223372036854775808", "(-18446744073709551617)",
                                                 "1267650600228229401496703205376",
                                                 "(-1000000000000000000000000000007)"})};
      case PyKind::Str: return *str_value();
      case PyKind::Bytes: return *bytes_value();
      case PyKind::Tuple:
      case PyKind::List: {
        const int n = *rc::gen::inRange(0, 4);
        Names items;
        for (int i = 0; i < n; ++i) items.push_back((*value(depth - 1, false)).literal);
        if (kind == PyKind::List) return PyValue{kind, "[" + joined(items) + "]"};
        return PyValue{kind, "(" + joined(items) + (n == 1 ? ",)" : ")")};
      }
      case PyKind::Dict: {
        const int n = *rc::gen::inRange(0, 4);
        Names items;
        for (int i = 0; i < n; ++i) {
          const std::string key =
              *rc::gen::arbitrary<bool>() ? (*str_value()).literal : literal(*small_int());
          items.push_back(key + ": " + (*value(depth - 1, false)).literal);
        }
        return PyValue{kind, "{" + joined(items) + "}"};
      }
      case PyKind::FrozenSet:
      case PyKind::Set: {
        const int n = *rc::gen::inRange(0, 4);
        Names items;
        for (int i = 0; i < n; ++i) items.push_back((*value(0, false)).literal);
        if (kind == PyKind::Set) return PyValue{kind, n == 0 ? "set()" : "{" + joined(items) + "}"};
        return PyValue{kind, n == 0 ? "frozenset()" : "frozenset({" + joined(items) + "})"};
      }
    }
    return PyValue{PyKind::Int, "0"};
  });
}

// An int (or bool) expression that reads the value `name` holds: the int
// itself, else something of it that does not depend on set order.
std::string observe(PyKind kind, const std::string& name) {
  switch (kind) {
    case PyKind::Int:
    case PyKind::BigInt:
    case PyKind::Bool: return name;
    case PyKind::None: return fmt::format("({} is None)", name);
    case PyKind::Float: return fmt::format("round({} * 4)", name);
    default: return fmt::format("len(repr({}))", name);
  }
}

// What a result shows of the value `name` holds: the value itself, or for a
// set the sorted reprs of its items.
std::string view(PyKind kind, const std::string& name) {
  if (kind == PyKind::Set || kind == PyKind::FrozenSet) {
    return fmt::format("sorted(map(repr, {}))", name);
  }
  return name;
}

// Generated values bound to names: the statements that bind them, and the
// leaves and views the expressions may use.
struct Scope {
  Names leaves;
  Names views;
};

// "NAME = value\n" for `count` values named PREFIX0..; adds them to `scope`.
std::string bind_values(const std::string& prefix, int count, bool sets, Scope& scope) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    const PyValue v = *value(2, sets);
    const std::string name = fmt::format("{}{}", prefix, i);
    out += fmt::format("{} = {}\n", name, v.literal);
    scope.leaves.push_back(observe(v.kind, name));
    scope.views.push_back(view(v.kind, name));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Expressions, parameters, calls.

// An int expression over `names`; shrinks towards a leaf, and a leaf
// towards a literal.
rc::Gen<std::string> expression(Names names, int depth) {
  rc::Gen<std::string> leaf =
      names.empty() ? rc::gen::map(small_int(), literal)
                    : rc::gen::oneOf(rc::gen::map(small_int(), literal), pick(names));
  if (depth <= 0) return leaf;
  return rc::gen::oneOf(
      leaf, rc::gen::exec([names, depth] {
        const std::string op = *pick(Names{"+", "-", "*", "//", "%"});
        std::string a = *expression(names, depth - 1);
        std::string b = *expression(names, depth - 1);
        return fmt::format("({} {} {})", a, op, b);
      }),
      rc::gen::exec([names, depth] {
        std::string a = *expression(names, depth - 1);
        std::string b = *expression(names, depth - 1);
        std::string c = *expression(names, depth - 1);
        return fmt::format("({} if {} > 0 else {})", a, b, c);
      }));
}

struct Param {
  std::string name;
  std::optional<PyValue> default_value;
  std::string annotation;  // empty: none
};

struct Params {
  std::vector<Param> positional;
  std::vector<Param> keyword;
  std::string returns;  // the return annotation; empty: none
};

rc::Gen<Param> param(std::string name, bool with_default, bool annotated) {
  return rc::gen::exec([name, with_default, annotated] {
    Param p;
    p.name = name;
    if (with_default) p.default_value = *value(1, false);
    if (annotated) {
      p.annotation =
          *pick(Names{"int", "object", "'int'", "list[int]", "int | None"});
    }
    return p;
  });
}

rc::Gen<Params> params(bool keyword_only, bool annotations) {
  return rc::gen::exec([keyword_only, annotations] {
    Params p;
    const bool annotated = annotations && *rc::gen::arbitrary<bool>();
    const int n = *rc::gen::inRange(1, 4);
    const int with_default = *rc::gen::inRange(0, n + 1);
    for (int i = 0; i < n; ++i) {
      p.positional.push_back(
          *param(std::string(1, static_cast<char>('a' + i)), i >= n - with_default, annotated));
    }
    const int k = keyword_only ? *rc::gen::inRange(0, 3) : 0;
    for (int i = 0; i < k; ++i) {
      p.keyword.push_back(*param(fmt::format("k{}", i), *rc::gen::arbitrary<bool>(), annotated));
    }
    if (annotated) p.returns = *pick(Names{"int", "tuple", "'int'"});
    return p;
  });
}

// The parameter list; `self` first when given.
std::string signature(const Params& p, const Names& self = {}) {
  Names parts = self;
  auto one = [&](const Param& q) {
    std::string s = q.name;
    if (!q.annotation.empty()) s += ": " + q.annotation;
    if (q.default_value) s += (q.annotation.empty() ? "=" : " = ") + q.default_value->literal;
    parts.push_back(s);
  };
  for (const auto& q : p.positional) one(q);
  if (!p.keyword.empty()) parts.push_back("*");
  for (const auto& q : p.keyword) one(q);
  return joined(parts);
}

// The parameters as leaves: read through their default's kind, which the
// int arguments of the calls pass through as well.
Names param_leaves(const Params& p) {
  Names out;
  auto one = [&](const Param& q) {
    out.push_back(observe(q.default_value ? q.default_value->kind : PyKind::Int, q.name));
  };
  for (const auto& q : p.positional) one(q);
  for (const auto& q : p.keyword) one(q);
  return out;
}

// Calls, mostly with the arguments the parameters ask for; sometimes one
// positional argument too few or too many.
rc::Gen<nlohmann::json> inputs(const Params& p) {
  return rc::gen::exec([p] {
    nlohmann::json calls = nlohmann::json::array();
    const int count = *rc::gen::inRange(1, 5);
    int required = 0;
    for (const auto& q : p.positional) required += q.default_value ? 0 : 1;
    const int n = static_cast<int>(p.positional.size());
    for (int c = 0; c < count; ++c) {
      int given = *rc::gen::inRange(required, n + 1);
      if (*index(8) == 7) given = *pick(std::vector<int>{0, n + 1});
      nlohmann::json args = nlohmann::json::array();
      for (int i = 0; i < given; ++i) args.push_back(*int_towards_zero(2, 6));
      nlohmann::json kwargs = nlohmann::json::object();
      for (const auto& q : p.keyword) {
        if (!q.default_value || *rc::gen::arbitrary<bool>()) {
          kwargs[q.name] = *int_towards_zero(2, 6);
        }
      }
      calls.push_back(nlohmann::json::array({std::move(args), std::move(kwargs)}));
    }
    return calls;
  });
}

std::string indent(const std::string& text, int spaces) {
  std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += pad + text.substr(start, end - start);
    out += '\n';
    start = end + 1;
  }
  return out;
}

// `definition` (of `subject`) as module code: as it is, or, when `made`,
// inside def _make() after `locals`, whose subject the module then binds.
std::string at_module_level(const std::string& definition, const std::string& locals, bool made) {
  if (!made) return definition;
  return "def _make():\n" + indent(locals + definition + "return subject\n", 4) +
         "subject = _make()\n";
}

// `int_expr` alone, or a tuple of it and the views.
std::string result(const std::string& int_expr, const Names& views) {
  if (views.empty()) return int_expr;
  return fmt::format("({}, {})", int_expr, joined(views));
}

// ---------------------------------------------------------------------------
// Functions.

// State a made function keeps in _make's cells; every call undoes what it
// did (in a finally), so a call's result does not depend on the calls made
// before it, in this process or before the pickle was written.
enum class State { None, List, Counter, SharedCell };

rc::Gen<CallableSource> functionSource() {
  return rc::gen::exec([] {
    // Shrinks towards a module-level def with nothing around it.
    const bool made = *rc::gen::arbitrary<bool>();  // made by _make(), closing over its locals
    const bool lambda = *rc::gen::arbitrary<bool>();
    const Params p = *params(true, !lambda);
    const int globals = *rc::gen::inRange(0, 3);
    const int cells = made ? *rc::gen::inRange(0, 3) : 0;
    const State state = made && !lambda ? static_cast<State>(*index(4)) : State::None;
    const bool recursive = *rc::gen::arbitrary<bool>();
    const bool nested = *rc::gen::arbitrary<bool>();
    const bool with_views = *rc::gen::arbitrary<bool>();

    Scope scope;
    scope.leaves = param_leaves(p);
    std::string module = bind_values("G", globals, true, scope);
    std::string locals = bind_values("c", cells, true, scope);

    std::string before;  // statements of the def before its return
    std::string undo;    // what its finally does
    if (state == State::List) {
      // A list the function appends to; the loaded function appends to its own.
      Names items;
      for (int i = *rc::gen::inRange(0, 3); i > 0; --i) items.push_back((*value(0, false)).literal);
      locals += "acc = [" + joined(items) + "]\n";
      before = fmt::format("acc.append({})\n", *expression(scope.leaves, 1));
      undo = "acc.pop()\n";
      scope.leaves.push_back("len(acc)");
      scope.leaves.push_back("acc[-1]");
      scope.views.push_back("acc");
    } else if (state == State::Counter) {
      locals += fmt::format("n = {}\n", literal(*small_int()));
      before = "nonlocal n\nn += 1\n";
      undo = "n -= 1\n";
      scope.leaves.push_back("n");
      scope.views.push_back("n");
    } else if (state == State::SharedCell) {
      // One cell, two functions: bump writes it, subject reads it.
      const int d = *rc::gen::inRange(1, 4);
      locals += fmt::format("s = {}\ndef bump(d):\n    nonlocal s\n    s += d\n    return s\n",
                            literal(*small_int()));
      before = fmt::format("bump({})\n", d);
      undo = fmt::format("bump(-{})\n", d);
      scope.leaves.push_back("s");
      scope.leaves.push_back("bump(0)");
    }

    std::string body = *expression(scope.leaves, 2);
    // The result always reads the list or the counter, so a loaded function
    // whose state is not what it was gives another one. The shared cell is
    // read only when drawn: cloudpickle 2.2 splits it, and always reading it
    // would fail about one case in thirty for that one known reason.
    if (state == State::List) body = fmt::format("({} + len(acc))", body);
    if (state == State::Counter) body = fmt::format("({} + n)", body);
    std::string helper;  // a nested def before the return
    if (nested) {
      Names inner = scope.leaves;
      inner.push_back("x");
      const std::string inner_body = *expression(inner, 2);
      if (lambda) {
        body = fmt::format("(lambda x: {})({})", inner_body, body);
      } else {
        helper = fmt::format("def inner(x):\n    return {}\n", inner_body);
        body = fmt::format("inner({})", body);
      }
    }
    Names views = with_views ? scope.views : Names{};
    if (with_views && !p.returns.empty()) views.push_back("subject.__annotations__");
    if (recursive) {
      // The first parameter counts down; the name `subject` is a global, or
      // (made) the cell of _make's local that holds the function itself.
      std::string call = p.positional[0].name + " - 1";
      for (std::size_t i = 1; i < p.positional.size(); ++i) call += ", " + p.positional[i].name;
      for (const auto& k : p.keyword) call += fmt::format(", {}={}", k.name, k.name);
      body = fmt::format("0 if {} <= 0 else {} + subject({}){}", p.positional[0].name, body, call,
                         views.empty() ? "" : "[0]");
    }
    const std::string ret = result(body, views);
    std::string definition;
    if (lambda) {
      definition = fmt::format("subject = lambda {}: {}\n", signature(p), ret);
    } else {
      std::string statements = before + helper;
      if (undo.empty()) {
        statements += "return " + ret + "\n";
      } else {
        statements += "try:\n" + indent("return " + ret + "\n", 4) + "finally:\n" + indent(undo, 4);
      }
      definition = fmt::format("def subject({}){}:\n{}", signature(p),
                               p.returns.empty() ? "" : " -> " + p.returns, indent(statements, 4));
    }
    module += at_module_level(definition, locals, made);
    CallableSource out{std::move(module), *inputs(p)};
    for (int i = 0; i < globals; ++i) out.changeable.push_back({fmt::format("G{}", i)});
    int defaults = 0;
    for (const Param& q : p.positional) defaults += q.default_value ? 1 : 0;
    if (defaults > 0) {
      out.changeable.push_back({"subject.__defaults__", Changeable::Form::Defaults, defaults});
    }
    return out;
  });
}

// ---------------------------------------------------------------------------
// Classes.

// A base class: on `object`, or one of the fixtures module, found there by
// reference in every process.
struct Base {
  std::string name;
  int args;              // how many arguments its __init__ takes from the subclass
  std::string init;      // the super().__init__ call, {} for each argument
  Names leaves;          // what the subclass's methods may read of it
  bool method = false;   // it has method(self), which the subclass overrides
};

const std::vector<Base>& bases() {
  static const std::vector<Base> all = {
      {"object", 0, "super().__init__()", {}, false},
      {"serialcheck_fixtures.Plain", 2, "super().__init__({}, {})", {"self.a", "self.b"}, true},
      {"serialcheck_fixtures.Empty", 0, "super().__init__()", {}, false},
      {"serialcheck_fixtures.GetState", 2, "super().__init__({}, {})", {"self.a", "self.b"},
       false},
      {"serialcheck_fixtures.Slots", 2, "super().__init__({}, {})", {"self.a", "self.b"}, false},
      {"serialcheck_fixtures.Record", 2, "super().__init__({}, {})", {"self.a", "self.b"}, false},
      {"serialcheck_fixtures.Outer.Inner", 1, "super().__init__({})", {"self.a"}, true},
      {"serialcheck_fixtures.TagList", 2, "super().__init__([{}, {}])", {"len(self)", "self[0]"},
       false},
      {"serialcheck_fixtures.NewArgsEx", 2, "super().__init__({}, key={})", {"self.a", "self.key"},
       false},
  };
  return all;
}

rc::Gen<CallableSource> classSource() {
  return rc::gen::exec([] {
    // Shrinks towards a module-level class on object with __init__ and run.
    const bool made = *rc::gen::arbitrary<bool>();  // defined inside _make(), closing over its locals
    // A fixtures base (found by reference), or a base defined by the source
    // itself and so pickled by value with the class: plain, with an
    // __init_subclass__, or abstract (abc.ABC, with a class registered).
    const int fixtures = static_cast<int>(bases().size());
    const int which = *index(fixtures + 3);
    const bool by_value_base = which >= fixtures;
    const int variant = which - fixtures;  // of the by-value base
    const bool abc_base = by_value_base && variant == 2;
    Base base;
    std::string imports;   // at the top of the module
    std::string preamble;  // module-level definitions before the class
    std::string shadow;    // the class's own B0, over the by-value base's
    if (!by_value_base) {
      base = bases()[static_cast<std::size_t>(which)];
      if (which > 0) imports += "import serialcheck_fixtures\n";
    } else {
      const PyValue b0 = *value(1, false);
      base = {"_Base",
              0,
              "super().__init__()",
              {observe(b0.kind, "self.B0"), observe(b0.kind, "type(self).B0")},
              true};
      std::string body = fmt::format("B0 = {}\n", b0.literal);
      if (variant == 1) {
        body += fmt::format(
            "def __init_subclass__(cls, **kwargs):\n    super().__init_subclass__(**kwargs)\n"
            "    cls.tag = len(cls.__name__) + {}\n",
            literal(*small_int()));
        base.leaves.push_back("self.tag");
      }
      if (abc_base) {
        imports += "import abc\n";
        body += "@abc.abstractmethod\n";
      }
      body += fmt::format("def method(self):\n    return {}\n", observe(b0.kind, "self.B0"));
      preamble +=
          fmt::format("class _Base({}):\n", abc_base ? "abc.ABC" : "object") + indent(body, 4);
      if (abc_base) {
        preamble += "_Base.register(tuple)\n";
        base.leaves.push_back("int(isinstance((), _Base))");
      }
      // The class's own B0: none, the base's value again (the same object
      // for small ints, interned strs, None), or another value.
      const int shadowing = *index(3);
      if (shadowing == 1) shadow = fmt::format("B0 = {}\n", b0.literal);
      if (shadowing == 2) shadow = fmt::format("B0 = {}\n", (*value(1, false)).literal);
    }
    // What people pickle by value beyond a plain class (each shrinks away).
    const bool with_property = *rc::gen::arbitrary<bool>();
    const bool slots = which == 0 && *rc::gen::arbitrary<bool>();
    const bool metaclass = !abc_base && *rc::gen::arbitrary<bool>();
    const bool generic = *rc::gen::arbitrary<bool>();
    const int dataclass = which == 0 || (by_value_base && !abc_base) ? *index(3) : 0;  // frozen: 2
    const bool self_closure = made && *rc::gen::arbitrary<bool>();
    const Params p = *params(false, true);
    const int attrs = *rc::gen::inRange(0, 3);
    const int globals = *rc::gen::inRange(0, 2);
    const int cells = made ? *rc::gen::inRange(0, 3) : 0;
    const int methods = *rc::gen::inRange(0, 3);  // m0 calls m1 calls ... through self
    const bool static_method = *rc::gen::arbitrary<bool>();
    const bool class_method = *rc::gen::arbitrary<bool>();
    const bool stored = *rc::gen::arbitrary<bool>();  // a generated value as an instance attribute
    const bool with_views = *rc::gen::arbitrary<bool>();

    Scope outside;  // globals and _make's locals
    std::string module = bind_values("G", globals, true, outside);
    std::string locals = bind_values("c", cells, true, outside);
    Names extra_leaves;  // what the extras add for run to read
    if (metaclass) {
      preamble += fmt::format(
          "class _Meta(type):\n    def describe(cls):\n        return len(cls.__name__) + {}\n",
          literal(*small_int()));
      extra_leaves.push_back("type(self).describe()");
    }
    if (generic) {
      imports += "import typing\n";
      preamble += "T = typing.TypeVar('T')\n";
      extra_leaves.push_back("len(subject.__parameters__)");
    }
    if (self_closure) {
      // A function the class's run calls, which reads the class: each
      // closes over the other.
      locals += "def helper():\n    return len(subject.__name__)\n";
      extra_leaves.push_back("helper()");
    }
    if (dataclass > 0) imports += "import dataclasses\n";
    // An instance attribute set in __init__ (a frozen dataclass's through
    // object.__setattr__).
    auto assign = [&](const std::string& name, const std::string& expr) {
      return dataclass == 2 ? fmt::format("object.__setattr__(self, '{}', {})\n", name, expr)
                            : fmt::format("self.{} = {}\n", name, expr);
    };
    // Class attributes, read through the instance, its type and the class's
    // name (a global, or when made the cell of _make's local); the views
    // read them through self.
    Scope attr;        // read in __init__, run and m0..: self.K, type(self).K, subject.K
    Scope in_class;    // read in the classmethod: cls.K
    Scope in_static;   // read in the staticmethod: subject.K
    std::string body = shadow;  // the class body
    if (slots) body += "__slots__ = ('x', 'v')\n";
    if (dataclass > 0) {
      body += fmt::format("F0: int = {}\n", literal(*small_int()));
      extra_leaves.push_back("self.F0");
      extra_leaves.push_back("len(repr(self))");
    }
    for (int i = 0; i < attrs; ++i) {
      const PyValue v = *value(2, true);
      const std::string k = fmt::format("K{}", i);
      body += fmt::format("{} = {}\n", k, v.literal);
      for (const char* read : {"self.", "type(self).", "subject."}) {
        attr.leaves.push_back(observe(v.kind, read + k));
      }
      attr.views.push_back(view(v.kind, "self." + k));
      in_class.leaves.push_back(observe(v.kind, "cls." + k));
      in_static.leaves.push_back(observe(v.kind, "subject." + k));
    }

    Names shared = outside.leaves;  // what every method may read
    Names init_names = param_leaves(p);
    init_names.insert(init_names.end(), shared.begin(), shared.end());
    init_names.insert(init_names.end(), attr.leaves.begin(), attr.leaves.end());
    std::string init = base.init;
    {
      std::string call;
      std::size_t at = 0;
      for (int i = 0; i < base.args; ++i) {
        const std::size_t hole = init.find("{}", at);
        call += init.substr(at, hole - at) + *expression(init_names, 1);
        at = hole + 2;
      }
      init = call + init.substr(at);
    }
    const std::string sig = signature(p, {"self"});
    std::string init_body = init + "\n" + assign("x", *expression(init_names, 2));
    Names self_leaves = {"self.x"};
    self_leaves.insert(self_leaves.end(), base.leaves.begin(), base.leaves.end());
    self_leaves.insert(self_leaves.end(), extra_leaves.begin(), extra_leaves.end());
    if (stored) {
      const PyValue v = *value(2, false);
      init_body += assign("v", v.literal);
      self_leaves.push_back(observe(v.kind, "self.v"));
    }
    body += fmt::format("def __init__({}):\n{}", sig, indent(init_body, 4));

    Names method_names = {"x"};
    method_names.insert(method_names.end(), shared.begin(), shared.end());
    method_names.insert(method_names.end(), attr.leaves.begin(), attr.leaves.end());
    method_names.insert(method_names.end(), self_leaves.begin(), self_leaves.end());
    std::string extra;  // the methods after run
    for (int i = 0; i < methods; ++i) {
      std::string e = *expression(method_names, 1);
      if (i + 1 < methods) e = fmt::format("self.m{}(x) + {}", i + 1, e);
      extra += fmt::format("def m{}(self, x):\n    return {}\n", i, e);
    }
    if (static_method) {
      Names names = {"x"};
      names.insert(names.end(), shared.begin(), shared.end());
      names.insert(names.end(), in_static.leaves.begin(), in_static.leaves.end());
      extra += fmt::format("@staticmethod\ndef s(x):\n    return {}\n", *expression(names, 1));
    }
    if (class_method) {
      Names names = {"x"};
      names.insert(names.end(), shared.begin(), shared.end());
      names.insert(names.end(), in_class.leaves.begin(), in_class.leaves.end());
      extra += fmt::format("@classmethod\ndef c(cls, x):\n    return {}\n", *expression(names, 1));
    }
    if (base.method) {
      Names names(method_names.begin() + 1, method_names.end());  // no x
      extra += fmt::format("def method(self):\n    return super().method() + {}\n",
                           *expression(names, 1));
    }
    if (with_property) {
      Names names(method_names.begin() + 1, method_names.end());  // no x
      extra += fmt::format("@property\ndef p(self):\n    return {}\n", *expression(names, 1));
    }

    // run: an expression over everything, plus a call of each method.
    Names run_names = param_leaves(p);
    run_names.insert(run_names.end(), shared.begin(), shared.end());
    run_names.insert(run_names.end(), attr.leaves.begin(), attr.leaves.end());
    run_names.insert(run_names.end(), self_leaves.begin(), self_leaves.end());
    std::string run = *expression(run_names, 2);
    const std::string arg = param_leaves(p).front();
    if (methods > 0) run += fmt::format(" + self.m0({})", arg);
    if (static_method) {
      run += fmt::format(" + {}.s({})", *pick(Names{"self", "subject"}), arg);
    }
    if (class_method) {
      run += fmt::format(" + {}.c({})",
                         *pick(Names{"self", "type(self)", "subject"}), arg);
    }
    if (base.method) run += " + self.method()";
    if (with_property) run += " + self.p";
    for (const std::string& leaf : extra_leaves) run += " + " + leaf;  // each extra is read
    Names views;
    if (with_views) {
      views = outside.views;
      views.insert(views.end(), attr.views.begin(), attr.views.end());
    }
    body += fmt::format("def run({}):\n    return {}\n", sig, result(run, views)) + extra;

    std::string heading = base.name;
    // object before Generic has no consistent method resolution order.
    if (generic)
      heading = base.name == "object" ? "typing.Generic[T]" : heading + ", typing.Generic[T]";
    if (metaclass) heading += ", metaclass=_Meta";
    std::string definition = fmt::format("class subject({}):\n", heading) + indent(body, 4);
    if (dataclass > 0) {
      definition =
          (dataclass == 2 ? "@dataclasses.dataclass(frozen=True)\n" : "@dataclasses.dataclass\n") +
          definition;
    }
    module = imports + module + preamble + at_module_level(definition, locals, made);
    CallableSource out{std::move(module), *inputs(p)};
    out.is_class = true;
    for (int i = 0; i < globals; ++i) out.changeable.push_back({fmt::format("G{}", i)});
    for (int i = 0; i < attrs; ++i) out.changeable.push_back({fmt::format("subject.K{}", i)});
    for (int i = 0; i < methods; ++i) {
      out.changeable.push_back({fmt::format("subject.m{}", i), Changeable::Form::Method});
    }
    if (by_value_base) out.changeable.push_back({"_Base.B0"});
    return out;
  });
}

// An enum defined at run time: Enum, IntEnum, Flag or IntFlag, with one to
// three members, a `run` method and perhaps a classmethod; at module level
// or made by _make(). Calling it looks a member up by value (a value that
// is none raises ValueError), and run reads the member's value.
rc::Gen<CallableSource> enumSource() {
  return rc::gen::exec([] {
    const bool made = *rc::gen::arbitrary<bool>();
    const int flavour = *index(4);
    const bool flag = flavour >= 2;
    const int members = *rc::gen::inRange(1, 4);
    const int globals = *rc::gen::inRange(0, 2);
    const bool class_method = *rc::gen::arbitrary<bool>();
    Scope outside;
    std::string module = "import enum\n" + bind_values("G", globals, false, outside);
    std::string body;
    for (int i = 0; i < members; ++i) {
      body += fmt::format("{} = {}\n", static_cast<char>('A' + i), flag ? (1 << i) : i);
    }
    Params p;
    p.positional.push_back(Param{"a", std::nullopt, ""});
    Names names = {"a", "self.value"};
    names.insert(names.end(), outside.leaves.begin(), outside.leaves.end());
    std::string run = *expression(names, 2);
    if (class_method) {
      body += "@classmethod\ndef c(cls, x):\n    return len(cls) + x\n";
      run += " + type(self).c(a)";
    }
    body += fmt::format("def run(self, a):\n    return {}\n", run);
    static const char* const kinds[] = {"Enum", "IntEnum", "Flag", "IntFlag"};
    const std::string definition =
        fmt::format("class subject(enum.{}):\n", kinds[flavour]) + indent(body, 4);
    module += at_module_level(definition, "", made);
    CallableSource out{std::move(module), *inputs(p)};
    out.is_class = true;
    for (int i = 0; i < globals; ++i) out.changeable.push_back({fmt::format("G{}", i)});
    return out;
  });
}

// A class: mostly the general grammar, sometimes an enum.
rc::Gen<CallableSource> anyClassSource() {
  return rc::gen::weightedOneOf<CallableSource>({{5, classSource()}, {1, enumSource()}});
}

// The source of _change(): a new value for each drawn target.
rc::Gen<std::string> change_function(std::vector<Changeable> targets) {
  return rc::gen::exec([targets = std::move(targets)] {
    std::string globals;
    std::string body;
    for (const Changeable& t : targets) {
      if (!*rc::gen::arbitrary<bool>()) continue;  // shrinks towards changing nothing
      std::string v;
      switch (t.form) {
        case Changeable::Form::Value: v = (*value(2, false)).literal; break;
        case Changeable::Form::Method: v = "lambda self, x: " + literal(*small_int()); break;
        case Changeable::Form::Defaults: {
          Names items;
          for (int i = 0; i < t.count; ++i) items.push_back((*value(1, false)).literal);
          v = "(" + joined(items) + ",)";
          break;
        }
      }
      if (t.target.find('.') == std::string::npos) globals += "global " + t.target + "\n";
      body += t.target + " = " + v + "\n";
    }
    return "def _change():\n" + indent(globals + (body.empty() ? "pass\n" : body), 4);
  });
}

std::unique_ptr<ByValueRunner>& runner_slot() {
  static std::unique_ptr<ByValueRunner> slot;
  return slot;
}

}  // namespace

rc::Gen<CallableSource> callableSource() {
  return rc::gen::oneOf(functionSource(), anyClassSource());
}

rc::Gen<GeneratedValue> callableValue() {
  return rc::gen::map(callableSource(), [](const CallableSource& c) {
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    Graph& g = *v.graph;
    v.root = g.list({g.str(c.source), g.str(c.inputs.dump())});
    g.root = v.root;
    return v;
  });
}

const std::vector<std::string>& life_situations() {
  static const std::vector<std::string> all = {"changed-fresh", "changed-here", "loaded-twice",
                                               "two-pickles", "older-definition"};
  return all;
}

rc::Gen<GeneratedValue> classLifeValue() {
  return rc::gen::exec([] {
    const bool is_class = *rc::gen::arbitrary<bool>();
    CallableSource c = is_class ? *anyClassSource() : *functionSource();
    // The last two are about an instance and its class.
    const std::vector<std::string>& all = life_situations();
    const std::string situation =
        *pick(is_class ? all : std::vector<std::string>(all.begin(), all.begin() + 3));
    const std::string source = c.source + *change_function(c.changeable);
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    Graph& g = *v.graph;
    v.root = g.list({g.str(source), g.str(c.inputs.dump()), g.str(situation)});
    g.root = v.root;
    return v;
  });
}

void showValue(const CallableSource& c, std::ostream& os) {
  os << c.source << "inputs: " << c.inputs.dump() << "\n";
}

void set_by_value_runner(ByValueRunner runner) {
  runner_slot() = std::make_unique<ByValueRunner>(std::move(runner));
}

const ByValueRunner* by_value_runner() { return runner_slot().get(); }

}  // namespace serialcheck::gen
