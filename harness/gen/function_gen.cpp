#include "harness/gen/function_gen.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace serialcheck::gen {
namespace {

using Names = std::vector<std::string>;

// An int in [-lowest, highest] that shrinks towards 0.
rc::Gen<int> int_towards_zero(int lowest, int highest) {
  return rc::gen::map(rc::gen::inRange(0, highest + lowest + 1),
                      [highest](int v) { return v <= highest ? v : highest - v; });
}

rc::Gen<int> small_int() { return int_towards_zero(3, 9); }

std::string literal(int v) { return v < 0 ? fmt::format("({})", v) : std::to_string(v); }

// An int expression over `names`; shrinks towards a leaf, and a leaf
// towards a literal.
rc::Gen<std::string> expression(Names names, int depth) {
  rc::Gen<std::string> leaf =
      names.empty() ? rc::gen::map(small_int(), literal)
                    : rc::gen::oneOf(rc::gen::map(small_int(), literal), rc::gen::elementOf(names));
  if (depth <= 0) return leaf;
  return rc::gen::oneOf(
      leaf, rc::gen::exec([names, depth] {
        const std::string op = *rc::gen::elementOf(Names{"+", "-", "*", "//", "%"});
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

struct Params {
  Names positional;
  std::vector<std::optional<int>> defaults;  // one per positional parameter
  Names keyword;
  std::vector<std::optional<int>> kwdefaults;
  bool annotated = false;
};

rc::Gen<Params> params(bool keyword_only) {
  return rc::gen::exec([keyword_only] {
    Params p;
    const int n = *rc::gen::inRange(1, 4);
    const int with_default = *rc::gen::inRange(0, n + 1);
    for (int i = 0; i < n; ++i) {
      p.positional.push_back(std::string(1, static_cast<char>('a' + i)));
      p.defaults.push_back(i >= n - with_default ? std::optional<int>(*small_int()) : std::nullopt);
    }
    const int k = keyword_only ? *rc::gen::inRange(0, 3) : 0;
    for (int i = 0; i < k; ++i) {
      p.keyword.push_back(fmt::format("k{}", i));
      p.kwdefaults.push_back(*rc::gen::arbitrary<bool>() ? std::optional<int>(*small_int())
                                                         : std::nullopt);
    }
    p.annotated = *rc::gen::arbitrary<bool>();
    return p;
  });
}

// The parameter list; lambdas take no annotations.
std::string signature(const Params& p, bool lambda, const Names& self = {}) {
  Names parts = self;
  auto one = [&](const std::string& name, const std::optional<int>& d) {
    std::string s = name;
    const bool ann = p.annotated && !lambda;
    if (ann) s += ": int";
    if (d) s += (ann ? " = " : "=") + literal(*d);
    parts.push_back(s);
  };
  for (std::size_t i = 0; i < p.positional.size(); ++i) one(p.positional[i], p.defaults[i]);
  if (!p.keyword.empty()) parts.push_back("*");
  for (std::size_t i = 0; i < p.keyword.size(); ++i) one(p.keyword[i], p.kwdefaults[i]);
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

Names all_names(const Params& p) {
  Names n = p.positional;
  n.insert(n.end(), p.keyword.begin(), p.keyword.end());
  return n;
}

// Calls, mostly with the arguments the parameters ask for; sometimes one
// positional argument too few or too many.
rc::Gen<nlohmann::json> inputs(const Params& p) {
  return rc::gen::exec([p] {
    nlohmann::json calls = nlohmann::json::array();
    const int count = *rc::gen::inRange(1, 5);
    int required = 0;
    for (const auto& d : p.defaults) required += d ? 0 : 1;
    const int n = static_cast<int>(p.positional.size());
    for (int c = 0; c < count; ++c) {
      int given = *rc::gen::inRange(required, n + 1);
      if (*rc::gen::inRange(0, 8) == 0) given = *rc::gen::elementOf(std::vector<int>{0, n + 1});
      nlohmann::json args = nlohmann::json::array();
      for (int i = 0; i < given; ++i) args.push_back(*int_towards_zero(2, 6));
      nlohmann::json kwargs = nlohmann::json::object();
      for (std::size_t i = 0; i < p.keyword.size(); ++i) {
        if (!p.kwdefaults[i] || *rc::gen::arbitrary<bool>()) {
          kwargs[p.keyword[i]] = *int_towards_zero(2, 6);
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

rc::Gen<CallableSource> functionSource() {
  return rc::gen::exec([] {
    // Shrinks towards a module-level def with nothing around it.
    const bool made = *rc::gen::arbitrary<bool>();  // made by _make(), closing over its locals
    const bool lambda = *rc::gen::arbitrary<bool>();
    const Params p = *params(true);
    const int globals = *rc::gen::inRange(0, 3);
    const int cells = made ? *rc::gen::inRange(0, 3) : 0;
    const bool recursive = *rc::gen::arbitrary<bool>();
    const bool nested = *rc::gen::arbitrary<bool>();

    std::string module;
    Names names = all_names(p);
    for (int i = 0; i < globals; ++i) {
      module += fmt::format("G{} = {}\n", i, literal(*small_int()));
      names.push_back(fmt::format("G{}", i));
    }
    std::string locals;
    for (int i = 0; i < cells; ++i) {
      locals += fmt::format("c{} = {}\n", i, literal(*small_int()));
      names.push_back(fmt::format("c{}", i));
    }
    std::string body = *expression(names, 2);
    std::string helper;  // a nested def before the return
    if (nested) {
      Names inner = names;
      inner.push_back("x");
      const std::string inner_body = *expression(inner, 2);
      if (lambda) {
        body = fmt::format("(lambda x: {})({})", inner_body, body);
      } else {
        helper = fmt::format("def inner(x):\n    return {}\n", inner_body);
        body = fmt::format("inner({})", body);
      }
    }
    if (recursive) {
      // The first parameter counts down; the name `subject` is a global, or
      // (made) the cell of _make's local that holds the function itself.
      std::string call = p.positional[0] + " - 1";
      for (std::size_t i = 1; i < p.positional.size(); ++i) call += ", " + p.positional[i];
      for (const auto& k : p.keyword) call += fmt::format(", {}={}", k, k);
      body = fmt::format("0 if {} <= 0 else {} + subject({})", p.positional[0], body, call);
    }
    std::string definition;
    if (lambda) {
      definition = fmt::format("subject = lambda {}: {}\n", signature(p, true), body);
    } else {
      definition = fmt::format("def subject({}){}:\n{}    return {}\n", signature(p, false),
                               p.annotated ? " -> int" : "", indent(helper, 4), body);
    }
    if (made) {
      module += "def _make():\n" + indent(locals + definition + "return subject\n", 4) +
                "subject = _make()\n";
    } else {
      module += definition;
    }
    return CallableSource{std::move(module), *inputs(p)};
  });
}

rc::Gen<CallableSource> classSource() {
  return rc::gen::exec([] {
    const std::string base = *rc::gen::elementOf(
        Names{"object", "serialcheck_fixtures.Plain", "serialcheck_fixtures.Empty",
              "serialcheck_fixtures.GetState"});
    Params p = *params(false);
    p.annotated = false;
    const int attrs = *rc::gen::inRange(0, 3);
    const int globals = *rc::gen::inRange(0, 2);
    std::string module = base == "object" ? "" : "import serialcheck_fixtures\n";
    Names names = p.positional;
    for (int i = 0; i < globals; ++i) {
      module += fmt::format("G{} = {}\n", i, literal(*small_int()));
      names.push_back(fmt::format("G{}", i));
    }
    std::string body;
    for (int i = 0; i < attrs; ++i) {
      body += fmt::format("K{} = {}\n", i, literal(*small_int()));
      names.push_back(fmt::format("self.K{}", i));
    }
    const std::string init = *expression(names, 2);
    names.push_back("self.x");
    const std::string run = *expression(names, 2);
    const std::string sig = signature(p, false, {"self"});
    body += fmt::format("def __init__({}):\n    super().__init__()\n    self.x = {}\n", sig, init);
    body += fmt::format("def run({}):\n    return {}\n", sig, run);
    module += fmt::format("class subject({}):\n", base) + indent(body, 4);
    return CallableSource{std::move(module), *inputs(p)};
  });
}

std::unique_ptr<ByValueRunner>& runner_slot() {
  static std::unique_ptr<ByValueRunner> slot;
  return slot;
}

}  // namespace

rc::Gen<CallableSource> callableSource() { return rc::gen::oneOf(functionSource(), classSource()); }

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

void showValue(const CallableSource& c, std::ostream& os) {
  os << c.source << "inputs: " << c.inputs.dump() << "\n";
}

void set_by_value_runner(ByValueRunner runner) {
  runner_slot() = std::make_unique<ByValueRunner>(std::move(runner));
}

const ByValueRunner* by_value_runner() { return runner_slot().get(); }

}  // namespace serialcheck::gen
