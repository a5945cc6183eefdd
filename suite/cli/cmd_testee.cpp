// `serialcheck testee-check`: drives one testee (docs/testee-protocol.md)
// through every request kind, with fixed values, and prints one line per
// check saying what it does wrong. The first thing a testee's author runs.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/function_gen.h"
#include "harness/subjects/external_subject.h"
#include "harness/subjects/reference_subject.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "suite/cli/commands.h"

namespace serialcheck::cli {
namespace {

// A fixed value, and the distinctions (cannot_express names) it relies on:
// a testee that says it loses one of them is not asked about the value.
struct Fixture {
  const char* name;
  const char* json;
  std::vector<std::string> relies_on;
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> all = {
      {"small ints", R"({"list":[0,1,-1,255,256,65535,65536,-2147483648,2147483647]})", {}},
      {"big ints",
       R"({"list":[4611686018427387904,-9223372036854775808,{"int":"18446744073709551616"},)"
       R"({"int":"-1267650600228229401496703205376"}]})",
       {"big-int"}},
      {"None and bools", R"({"list":[null,true,false]})", {"int-float"}},
      {"floats",
       R"({"list":[{"float":"0.5"},{"float":"-2.25"},{"float":"1e+300"},{"float":"1.5e-10"}]})",
       {}},
      {"strs", R"({"list":["","a","h\u00e9llo","\u65e5\u672c","\ud83d\ude00"]})", {"str-bytes"}},
      {"bytes", R"({"bytes":"00ff41"})", {"str-bytes"}},
      {"bytearray", R"({"bytearray":"0102"})", {"bytes-bytearray"}},
      {"tuple", R"({"tuple":[1,"b",{"tuple":[]}]})", {"tuple"}},
      {"dict", R"({"dict":[["k",1],[2,{"list":[3]}]]})", {}},
      {"set and frozenset",
       R"({"list":[{"set":[1,2]},{"frozenset":[3]}]})",
       {"set-frozenset", "set-list"}},
      {"nested lists", R"({"list":[{"list":[1,{"list":[2,{"list":[3]}]}]},{"list":[]}]})", {}},
      {"shared list", R"({"list":[{"list":[1],"id":1},{"ref":1}]})", {"sharing"}},
      {"cycle", R"({"list":[{"ref":1}],"id":1})", {"sharing"}},
  };
  return all;
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_@%+=:,./-") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string protocols_text(const std::vector<int>& protocols) {
  if (protocols.empty()) return "none";
  if (protocols.size() == 1) return std::to_string(protocols.front());
  return fmt::format("{}-{}", protocols.front(), protocols.back());
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// An error and the last line the testee wrote to standard error with it.
std::string explain(const SubjectError& e) {
  std::string out = e.what();
  std::string_view tail = e.detail();
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.remove_suffix(1);
  if (!tail.empty()) {
    const auto nl = tail.find_last_of('\n');
    const std::string line(tail.substr(nl == std::string_view::npos ? 0 : nl + 1));
    if (out.find(line) == std::string::npos) out += " [standard error: " + line + "]";
  }
  return out;
}

bool is_testee_failure(const SubjectError& e) {
  return testee_misbehaved(e.kind()) || e.kind() == "unavailable";
}

class Checker {
 public:
  Checker(ExternalSubject& testee, const TesteeInfo& info) : testee_(testee), info_(info) {
    const auto& lost = info.capabilities.cannot_express;
    lost_.insert(lost.begin(), lost.end());
    equal_.immutable_sharing = !info.capabilities.python_values;
  }

  void run() {
    const Capabilities& caps = info_.capabilities;
    if (caps.can_dump) {
      for (int p : info_.write_protocols) check_dumps(p);
      if (caps.out_of_band && writes(5)) check_dumps_out_of_band();
    } else {
      skip("dumps", "the testee does not dump");
    }
    if (caps.can_load) {
      for (int p : info_.read_protocols) check_loads(p);
      if (caps.out_of_band && reads(5)) check_loads_out_of_band();
      if (caps.limit_loader) check_limit_loader();
      check_malformed();
      check_try_loads();
    } else {
      skip("loads", "the testee does not load");
    }
    check_unknown_global();
    check_by_value();
    check_class_life();
    check_stdlib_recipes();
    check_bench();
    check_shutdown();
  }

  int failures() const { return failures_; }
  int checks() const { return checks_; }

  void ok(const std::string& what, const std::string& note = {}) {
    ++checks_;
    std::cout << "ok   " << what << (note.empty() ? "" : ": " + note) << "\n" << std::flush;
  }
  void failed(const std::string& what, const std::string& why) {
    ++checks_;
    ++failures_;
    std::cout << "FAIL " << what << ": " << why << "\n" << std::flush;
  }
  void skip(const std::string& what, const std::string& why) {
    std::cout << "skip " << what << ": " << why << "\n" << std::flush;
  }
  // An error answered to a request that an error may answer: the check fails
  // only when the testee itself failed (crash, hang, malformed answer);
  // otherwise it passes, noted as `answer` followed by the error.
  void error_answer(const std::string& what, const SubjectError& e, std::string_view answer) {
    if (is_testee_failure(e)) {
      failed(what, explain(e));
    } else {
      ok(what, std::string(answer) + e.what());
    }
  }

 private:
  bool writes(int p) const {
    return std::find(info_.write_protocols.begin(), info_.write_protocols.end(), p) !=
           info_.write_protocols.end();
  }
  bool reads(int p) const {
    return std::find(info_.read_protocols.begin(), info_.read_protocols.end(), p) !=
           info_.read_protocols.end();
  }

  // Fixtures this testee can express, each parsed into `graph`.
  std::vector<std::pair<const Fixture*, Node*>> values(Graph& graph) const {
    std::vector<std::pair<const Fixture*, Node*>> out;
    for (const Fixture& f : fixtures()) {
      bool lost = false;
      for (const auto& name : f.relies_on) lost = lost || lost_.count(name) > 0;
      if (!lost) out.emplace_back(&f, from_json(f.json, graph));
    }
    return out;
  }

  // Each fixture dumped by the testee must read back, with the reference
  // decoder, as the value; byte for byte the reference's (CPython's) output
  // when the testee claims that.
  void check_dumps(int protocol) {
    const std::string what = fmt::format("dumps protocol {}", protocol);
    Graph graph;
    std::vector<std::string> problems;
    int done = 0;
    for (auto [fixture, value] : values(graph)) {
      const std::string item = fixture->name;
      Message message;
      try {
        message = testee_.dumps(value, DumpOptions{protocol, false});
      } catch (const SubjectError& e) {
        problems.push_back(item + ": " + explain(e));
        if (is_testee_failure(e)) break;  // the next value would only repeat it
        continue;
      }
      const std::string_view bytes = message.frames.front().view();
      Graph back;
      try {
        pickle::DecodeOptions options;
        const auto result = pickle::decode(bytes, back, options);
        Difference why;
        if (!equal(value, result.root, equal_, &why)) {
          problems.push_back(
              fmt::format("{}: the reference reads back a value that differs at {}: {}", item,
                          why.path, why.reason));
          continue;
        }
        if (result.protocol != (protocol >= 2 ? protocol : 0)) {
          problems.push_back(fmt::format("{}: the stream says protocol {}", item, result.protocol));
          continue;
        }
      } catch (const pickle::PickleError& e) {
        problems.push_back(item + ": the reference cannot read it: " + at_byte(e));
        continue;
      }
      if (info_.capabilities.cpython_bytes) {
        const std::string expected = pickle::encode(value, {.protocol = protocol}).bytes;
        if (expected != bytes) {
          std::size_t at = 0;
          while (at < expected.size() && at < bytes.size() && expected[at] == bytes[at]) ++at;
          problems.push_back(
              fmt::format("{}: the bytes differ from CPython's at byte {} (the hello "
                          "claims cpython_bytes)",
                          item, at));
          continue;
        }
      }
      ++done;
    }
    report(what, problems, fmt::format("{} values read back equal", done));
  }

  void check_dumps_out_of_band() {
    const std::string what = "dumps protocol 5 out of band";
    Graph graph;
    Node* value = from_json(R"({"buffer":"0102030405","readonly":true})", graph);
    try {
      Message message = testee_.dumps(value, DumpOptions{5, true});
      if (message.frames.size() != 2) {
        return failed(what,
                      fmt::format("a PickleBuffer came as {} frames, not the pickle and one buffer",
                                  message.frames.size()));
      }
      Graph back;
      ReferenceSubject reference;
      const Node* root = reference.loads(message, back, LoadOptions{});
      if (root->payload() != value->payload()) {
        return failed(what, "the reference reads back other bytes than the buffer's");
      }
      ok(what);
    } catch (const SubjectError& e) {
      failed(what, explain(e));
    }
  }

  // Each fixture as the reference writes it must load as the value.
  void check_loads(int protocol) {
    const std::string what = fmt::format("loads protocol {}", protocol);
    Graph graph;
    std::vector<std::string> problems;
    int done = 0;
    for (auto [fixture, value] : values(graph)) {
      Message message;
      message.frames.push_back(Frame::owned(pickle::encode(value, {.protocol = protocol}).bytes));
      message.header = {
          {"serializer", "pickle"}, {"protocol", protocol}, {"writeable", nlohmann::json::array()}};
      Graph back;
      try {
        const Node* root = testee_.loads(message, back, LoadOptions{5});
        Difference why;
        if (!equal(value, root, equal_, &why)) {
          problems.push_back(
              fmt::format("{}: answered a value that differs at {}: {} (it answered {})",
                          fixture->name, why.path, why.reason, to_json(root)));
          continue;
        }
      } catch (const SubjectError& e) {
        problems.push_back(std::string(fixture->name) + ": " + explain(e));
        if (is_testee_failure(e)) break;
        continue;
      }
      ++done;
    }
    report(what, problems, fmt::format("{} values loaded equal", done));
  }

  void check_loads_out_of_band() {
    const std::string what = "loads protocol 5 out of band";
    Graph graph;
    Node* value = from_json(R"({"buffer":"0102030405","readonly":true})", graph);
    ReferenceSubject reference;
    Message message = reference.dumps(value, DumpOptions{5, true});
    Graph back;
    try {
      const Node* root = testee_.loads(message, back, LoadOptions{5});
      const bool buffer_like = root->kind == Kind::PickleBuffer || root->kind == Kind::Bytes ||
                               root->kind == Kind::ByteArray;
      if (!buffer_like || root->payload() != value->payload()) {
        return failed(what, "answered " + to_json(root) + ", not the buffer 0102030405");
      }
      ok(what);
    } catch (const SubjectError& e) {
      failed(what, explain(e));
    }
  }

  // A limit_loader testee given a stream above "max_protocol" must refuse
  // it, naming both protocols.
  void check_limit_loader() {
    const std::string what = "loads above max_protocol";
    if (info_.read_protocols.size() < 2) return skip(what, "the testee reads one protocol only");
    const int p = info_.read_protocols.back();
    Graph graph;
    Node* value = from_json(R"({"list":[1]})", graph);
    Message message;
    message.frames.push_back(Frame::owned(pickle::encode(value, {.protocol = p}).bytes));
    Graph back;
    try {
      const Node* root = testee_.loads(message, back, LoadOptions{p - 1});
      failed(what,
             fmt::format("a protocol-{} stream with max_protocol {} was loaded as {} (the hello "
                         "claims limit_loader)",
                         p, p - 1, to_json(root)));
    } catch (const SubjectError& e) {
      const std::string message_text = e.what();
      if (is_testee_failure(e)) return failed(what, explain(e));
      if (message_text.find(std::to_string(p)) == std::string::npos ||
          message_text.find(std::to_string(p - 1)) == std::string::npos) {
        return failed(what, fmt::format("the error does not name both protocols {} and {}: {}", p,
                                        p - 1, message_text));
      }
      ok(what, "refused: " + message_text);
    }
  }

  // One pickle to the testee's loads, where an error is an answer
  // (error_answer); a value is one only when `value_ok`.
  void loads_answer(const std::string& what, std::string bytes, bool value_ok,
                    std::string_view error_note) {
    Message message;
    message.frames.push_back(Frame::owned(std::move(bytes)));
    Graph back;
    try {
      const Node* root = testee_.loads(message, back, LoadOptions{5});
      if (value_ok) {
        ok(what, "answered " + to_json(root));
      } else {
        failed(what, "answered a value, not an error: " + to_json(root));
      }
    } catch (const SubjectError& e) {
      error_answer(what, e, error_note);
    }
  }

  // A malformed stream must be answered with an error: no value, no crash,
  // no hang.
  void check_malformed() {
    const std::pair<const char*, std::string> streams[] = {
        {"a truncated pickle", std::string("\x80\x02]q\x00K", 6)},
        {"an unknown opcode", std::string("\x80\x02\xff\xfe.", 5)},
    };
    for (const auto& [name, bytes] : streams) {
      loads_answer(std::string("loads of ") + name, bytes, false, "refused: ");
    }
  }

  // A testee that claims try_loads: one request with a valid stream and the
  // two malformed ones, answered in order, the valid one loaded and the
  // others refused.
  void check_try_loads() {
    const std::string what = "try-loads of three streams";
    if (!info_.capabilities.try_loads) {
      return skip(what,
                  "the testee does not claim try_loads (the gate sends it one loads a stream)");
    }
    Graph graph;
    const int p = info_.read_protocols.back();
    const std::vector<std::string> streams = {
        pickle::encode(from_json(R"({"list": [1, "a"]})", graph), {.protocol = p}).bytes,
        std::string("\x80\x02]q\x00K", 6), std::string("\x80\x02\xff\xfe.", 5)};
    try {
      const std::vector<LoadAttempt> got = testee_.try_loads_request(streams, LoadOptions{});
      if (!got[0].loaded) {
        return failed(what, fmt::format("the valid stream (protocol {}) was refused: {}: {}", p,
                                        got[0].kind, got[0].message));
      }
      for (std::size_t i = 1; i < got.size(); ++i) {
        if (got[i].loaded) {
          return failed(what, fmt::format("malformed stream {} was loaded, not refused", i + 1));
        }
      }
      ok(what, fmt::format("loaded, refused ({}), refused ({})", got[1].kind, got[2].kind));
    } catch (const SubjectError& e) {
      failed(what, explain(e));
    }
  }

  // A value the testee may well not handle: any answer but a crash, a hang
  // or a malformed message will do.
  void check_unknown_global() {
    Graph graph;
    Node* value = from_json(R"({"global":["serialcheck_no_such_module","Nothing"]})", graph);
    if (info_.capabilities.can_dump && !info_.write_protocols.empty()) {
      const std::string what = "dumps of a global that does not exist";
      try {
        testee_.dumps(value, DumpOptions{info_.write_protocols.back(), false});
        ok(what, "answered a pickle");
      } catch (const SubjectError& e) {
        error_answer(what, e, "answered ");
      }
    }
    if (info_.capabilities.can_load && !info_.read_protocols.empty()) {
      loads_answer("loads of a global that does not exist",
                   pickle::encode(value, {.protocol = info_.read_protocols.back()}).bytes, true,
                   "answered ");
    }
  }

  // A testee that claims by_value: two callables defined, called and dumped
  // by define-dumps, loaded and called again by load-call in a fresh
  // instance, where they cannot be found by reference.
  void check_by_value() {
    const int p = info_.capabilities.max_protocol;
    const std::string define_what = fmt::format("define-dumps protocol {}", p);
    const std::string load_what = "load-call in a fresh instance";
    if (!info_.capabilities.by_value) {
      skip("define-dumps", "the testee does not claim by_value");
      skip("load-call", "the testee does not claim by_value");
      return;
    }
    struct Callable {
      const char* name;
      const char* source;
      const char* inputs;
      const char* results;
    };
    static const Callable callables[] = {
        {"a closure with defaults",
         "G = 3\n\ndef _make():\n    k = 2\n    def subject(a, b=2, *, c=1):\n"
         "        return a * G + b * k - c\n    return subject\n\nsubject = _make()\n",
         R"([[[1],{}],[[1,5],{"c":0}],[[],{}]])",
         R"([["value","6"],["value","13"],["raises","TypeError"]])"},
        {"a class",
         "class subject(object):\n    scale = 2\n    def __init__(self, x):\n        self.x = x\n"
         "    def run(self, x):\n        return self.x * self.scale + x\n",
         R"([[[4],{}]])", R"j([["value","([('x', 4)], 12)"]])j"},
    };
    std::vector<std::optional<std::string>> pickles(std::size(callables));
    std::vector<std::string> define_problems, sizes;
    for (std::size_t i = 0; i < std::size(callables); ++i) {
      const Callable& c = callables[i];
      ByValueCase request{c.source, nlohmann::json::parse(c.inputs), p};
      ByValueOutcome out;
      std::string pickle;
      try {
        out = testee_.define_dumps(request, &pickle);
      } catch (const SubjectError& e) {
        define_problems.push_back(std::string(c.name) + ": " + explain(e));
        continue;
      }
      if (!out.stage.empty()) {
        define_problems.push_back(fmt::format("{}: {}: {}: {}{}", c.name, out.stage, out.kind,
                                              out.error, stderr_line(out.detail)));
        continue;
      }
      if (out.original != nlohmann::json::parse(c.results)) {
        define_problems.push_back(
            fmt::format("{}: the calls gave {}, not {}", c.name, out.original.dump(), c.results));
        continue;
      }
      sizes.push_back(std::to_string(pickle.size()));
      pickles[i] = std::move(pickle);
    }
    report(define_what, define_problems,
           fmt::format("{} callables called as expected and dumped ({} bytes)", sizes.size(),
                       join(sizes)));
    if (sizes.empty()) return skip(load_what, "define-dumps dumped nothing to load");
    std::vector<std::string> load_problems;
    for (std::size_t i = 0; i < std::size(callables); ++i) {
      const Callable& c = callables[i];
      if (!pickles[i]) continue;
      std::unique_ptr<ExternalSubject> fresh = testee_.fresh_instance();
      ByValueOutcome out;
      try {
        out = fresh->load_call(*pickles[i], nlohmann::json::parse(c.inputs));
      } catch (const SubjectError& e) {
        load_problems.push_back(std::string(c.name) + ": " + explain(e));
        continue;
      }
      fresh->shutdown();
      if (!out.stage.empty()) {
        load_problems.push_back(
            fmt::format("{}: {}: {}{}", c.name, out.kind, out.error, stderr_line(out.detail)));
        continue;
      }
      if (out.loaded != nlohmann::json::parse(c.results)) {
        load_problems.push_back(
            fmt::format("{}: the calls gave {}, not {}", c.name, out.loaded.dump(), c.results));
      }
    }
    report(load_what, load_problems,
           fmt::format("{} callables loaded and called as before", sizes.size()));
  }

  // A testee that claims class_life: every situation of callable.class-life
  // on one class, life-here in the testee and life-fresh in a fresh
  // instance. What is checked is the protocol: each situation answers, and
  // answers an observation for each expectation; whether the observations
  // agree is the property's verdict on the pickler (dill makes a new class
  // at each load, and says so there), not this command's.
  void check_class_life() {
    const std::string what = "life-here and life-fresh";
    if (!info_.capabilities.class_life) {
      return skip(what, info_.capabilities.by_value ? "the testee does not claim class_life"
                                                    : "the testee does not claim by_value");
    }
    static const char* const source =
        "class subject(object):\n    scale = 2\n    def __init__(self, x):\n"
        "        self.x = x\n    def run(self, x):\n        return self.x * self.scale + x\n"
        "def _change():\n    subject.scale = 5\n";
    std::vector<std::string> problems;
    for (const std::string& situation : gen::life_situations()) {
      const ClassLifeCase request{source, nlohmann::json::parse(R"([[[4],{}]])"), situation,
                                  info_.capabilities.max_protocol};
      ClassLifeOutcome out;
      try {
        out = testee_.class_life(request);
      } catch (const SubjectError& e) {
        problems.push_back(situation + ": " + explain(e));
        continue;
      }
      if (!out.stage.empty()) {
        problems.push_back(fmt::format("{}: {}: {}: {}{}", situation, out.stage, out.kind,
                                       out.error, stderr_line(out.detail)));
        continue;
      }
      for (const auto& [check, expected] : out.expect.items()) {
        if (!out.observed.contains(check)) {
          problems.push_back(fmt::format("{}: no observation for \"{}\"", situation, check));
        }
      }
    }
    report(what, problems,
           fmt::format("the {} situations answered, each observation beside its expectation",
                       gen::life_situations().size()));
  }

  // A testee that claims stdlib_recipes: two recipes dumped by
  // dumps-recipe and read back by loads-recipe as equal, and one read as
  // another recipe, which must be unequal (a testee that says "equal" to
  // everything is caught).
  void check_stdlib_recipes() {
    const int p = std::min(info_.capabilities.max_protocol, info_.capabilities.read_max());
    const std::string dump_what = fmt::format("dumps-recipe protocol {}", p);
    const std::string load_what = fmt::format("loads-recipe protocol {}", p);
    if (!info_.capabilities.stdlib_recipes) {
      skip("dumps-recipe", "the testee does not claim stdlib_recipes");
      skip("loads-recipe", "the testee does not claim stdlib_recipes");
      return;
    }
    std::vector<std::string> dump_problems, load_problems, sizes;
    for (const char* recipe : {"decimal.Decimal:1", "collections.OrderedDict:0"}) {
      std::string pickle;
      try {
        pickle = testee_.dumps_recipe(recipe, p);
      } catch (const SubjectError& e) {
        dump_problems.push_back(std::string(recipe) + ": " + explain(e));
        continue;
      }
      sizes.push_back(std::to_string(pickle.size()));
      try {
        const RecipeLoad same = testee_.loads_recipe(recipe, pickle);
        if (!same.equal) {
          load_problems.push_back(fmt::format("{}: its own pickle loads as {}, not as {}", recipe,
                                              same.loaded, same.expected));
        }
        const std::string other = recipe == std::string_view("decimal.Decimal:1")
                                      ? "decimal.Decimal:2"
                                      : "collections.Counter:0";
        if (testee_.loads_recipe(other, pickle).equal) {
          load_problems.push_back(
              fmt::format("{}'s pickle is said to equal {}, another value", recipe, other));
        }
      } catch (const SubjectError& e) {
        load_problems.push_back(std::string(recipe) + ": " + explain(e));
      }
    }
    report(dump_what, dump_problems,
           fmt::format("{} stdlib values dumped ({} bytes)", sizes.size(), join(sizes)));
    if (sizes.empty()) return skip(load_what, "dumps-recipe dumped nothing to load");
    report(load_what, load_problems,
           "read back equal, and unequal when compared with another recipe");
  }

  // " [standard error: LAST LINE]", or nothing.
  static std::string stderr_line(std::string_view detail) {
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' '))
      detail.remove_suffix(1);
    if (detail.empty()) return {};
    const auto nl = detail.find_last_of('\n');
    return " [standard error: " +
           std::string(detail.substr(nl == std::string_view::npos ? 0 : nl + 1)) + "]";
  }

  void check_bench() {
    constexpr long kIterations = 100;
    Graph graph;
    Node* value = from_json(fixtures().front().json, graph);
    const auto timing = [](const TesteeTiming& t) {
      return fmt::format("{} iterations in {:.3g} ms ({:.3g} us each)", t.iterations,
                         t.seconds * 1e3, t.seconds * 1e6 / static_cast<double>(t.iterations));
    };
    if (info_.capabilities.can_dump && !info_.write_protocols.empty()) {
      const int p = info_.write_protocols.back();
      const std::string what = fmt::format("bench dumps protocol {}", p);
      try {
        ok(what, timing(testee_.bench_dumps(value, DumpOptions{p, false}, kIterations)));
      } catch (const SubjectError& e) {
        failed(what, explain(e));
      }
    }
    if (info_.capabilities.can_load && !info_.read_protocols.empty()) {
      const int p = info_.read_protocols.back();
      const std::string what = fmt::format("bench loads protocol {}", p);
      Message message;
      message.frames.push_back(Frame::owned(pickle::encode(value, {.protocol = p}).bytes));
      try {
        ok(what, timing(testee_.bench_loads(message, LoadOptions{5}, kIterations)));
      } catch (const SubjectError& e) {
        failed(what, explain(e));
      }
    }
  }

  void check_shutdown() {
    if (auto problem = testee_.shutdown()) return failed("shutdown", *problem);
    ok("shutdown", "answered and exited with status 0");
  }

  void report(const std::string& what, const std::vector<std::string>& problems,
              const std::string& good) {
    if (problems.empty()) return ok(what, good);
    failed(what,
           problems.front() +
               (problems.size() > 1 ? fmt::format(" (and {} more)", problems.size() - 1) : ""));
    for (std::size_t i = 1; i < problems.size(); ++i) std::cout << "       " << problems[i] << "\n";
  }

  ExternalSubject& testee_;
  const TesteeInfo info_;  // a copy: a restarted testee's hello replaces the subject's
  std::set<std::string> lost_;
  EqualOptions equal_;
  int checks_ = 0;
  int failures_ = 0;
};

struct TesteeCheckArgs {
  std::vector<std::string> command;
  double timeout = 10;
  double start_timeout = 30;
  std::string cwd;
  std::vector<std::string> env;
};

int testee_check(const TesteeCheckArgs& a) {
  TesteeConfig config;
  config.name = "testee";
  if (a.command.size() == 1) {
    config.command = a.command.front();
  } else {
    for (const auto& word : a.command)
      config.command += (config.command.empty() ? "" : " ") + shell_quote(word);
  }
  config.cwd = a.cwd;
  for (const auto& kv : a.env) {
    const auto eq = kv.find('=');
    config.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  config.timeout_s = a.timeout;
  config.start_timeout_s = a.start_timeout;
  config.origin = "testee-check";
  ExternalSubject testee(config);

  std::cout << "testee: " << config.command << "\n";
  const TesteeInfo* info = nullptr;
  try {
    info = &testee.info();
  } catch (const SubjectError& e) {
    std::cout << "FAIL hello: " << explain(e) << "\n\n1 check, 1 failed\n";
    return kExitFailed;
  }
  Checker checker(testee, *info);
  const Capabilities& caps = info->capabilities;
  checker.ok("hello", fmt::format("{} {} ({})", info->name, info->version, info->implementation));
  std::vector<std::string> flags;
  if (caps.out_of_band) flags.push_back("out_of_band");
  if (caps.limit_loader) flags.push_back("limit_loader");
  if (caps.cpython_bytes) flags.push_back("cpython_bytes");
  if (caps.python_values) flags.push_back("python_values");
  std::cout << fmt::format(
      "     dumps: {}; loads: {}; {}; cannot_express: {}; kinds: {}\n",
      caps.can_dump ? "protocols " + protocols_text(info->write_protocols) : "no",
      caps.can_load ? "protocols " + protocols_text(info->read_protocols) : "no",
      flags.empty() ? "no other claims" : join(flags),
      caps.cannot_express.empty() ? "nothing" : join(caps.cannot_express),
      caps.kinds.empty() ? "all" : join(caps.kinds));
  checker.run();
  if (testee.starts() > 1) {
    std::cout << fmt::format(
        "(the testee was started {} times: after a crash, hang or malformed "
        "answer it is started again)\n",
        testee.starts());
  }
  std::cout << fmt::format("\n{} checks, {} failed\n", checker.checks(), checker.failures());
  return checker.failures() == 0 ? kExitOk : kExitFailed;
}

}  // namespace

void add_testee_check(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("testee-check",
                                 "Drive a testee through every request and say what it does wrong");
  auto a = std::make_shared<TesteeCheckArgs>();
  cmd->add_option("COMMAND", a->command,
                  "The testee's command, run with /bin/sh -c: one string, or words after --")
      ->required();
  cmd->add_option("--timeout", a->timeout, "Seconds the testee may take to answer one request")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--start-timeout", a->start_timeout,
                  "Seconds the testee may take to answer hello")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--cwd", a->cwd, "Working directory of the testee (default: this one)");
  cmd->add_option("--env", a->env, "K=V added to the testee's environment (repeatable)")
      ->allow_extra_args(false)
      ->check([](const std::string& kv) {
        const auto eq = kv.find('=');
        return eq == std::string::npos || eq == 0 ? std::string("expected K=V, got ") + kv
                                                  : std::string();
      });
  cmd->footer(
      "Examples:\n"
      "  serialcheck testee-check -- python3 harness/testees/python/serialcheck_testee.py --preset "
      "pickle\n"
      "  serialcheck testee-check --env PYTHONPATH=src 'python3 my_testee.py --fast'\n"
      "Words of the command that start with - need the -- before the command, or one string.\n"
      "The testee gets hello, dumps of fixed values at each protocol it writes (read back by the\n"
      "reference decoder), loads of the reference's pickles at each protocol it reads, malformed\n"
      "streams (which must be refused with an error), a global that does not exist, define-dumps\n"
      "and load-call (in a second instance of the testee) when it claims by_value, life-here and\n"
      "life-fresh when it claims class_life, dumps-recipe and loads-recipe when it claims\n"
      "stdlib_recipes, bench and shutdown. One line per check:\n"
      "ok, FAIL with what was wrong, or skip with why.\n"
      "docs/testee-protocol.md describes the protocol.\n"
      "Exit codes: 0 every check passed; 1 a check failed or the testee could not start;\n"
      "2 usage error.");
  cmd->callback([&action, a] { action = [a] { return testee_check(*a); }; });
}

}  // namespace serialcheck::cli
