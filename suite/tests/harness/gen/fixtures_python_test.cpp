// The fixtures module (harness/testees/python/serialcheck_fixtures.py) in the
// embedded interpreter: its kinds match the generator's table, the reference
// writes what the C pickler writes for every shape, and the properties run
// on cases that hold the resolved objects.
#include <Python.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/gen/config.h"
#include "harness/gen/fixtures.h"
#include "harness/gen/plan.h"
#include "harness/gen/value.h"
#include "harness/props/gate_props.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/value_tools.h"
#include "harness/python/bridge.h"
#include "harness/python/fixtures.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "reference/pickle/encoder.h"
#include "reference/value/json.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/python_values.h"

namespace serialcheck {
namespace {

using test_support::python_bytes;

// The fixtures module's kind named `name` (a default kind when there is none).
gen::FixtureKind fixture_kind(std::string_view name) {
  for (const auto& f : gen::fixture_kinds()) {
    if (f.name == name) return f;
  }
  return {};
}

class PythonFixtures : public test_support::PythonTest {
 protected:
  // make(kind, 7, ['x', 2.5], ...) as a request node.
  static Node* request(Graph& g, const gen::FixtureKind& k) {
    std::vector<Node*> args{g.str(std::string(k.name))};
    for (int i = 0; i < k.arity; ++i) {
      args.push_back(i % 2 == 0 ? g.integer(7) : g.list({g.str("x"), g.floating(2.5)}));
    }
    return g.object(g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker)),
                    g.tuple(std::move(args)));
  }
};

TEST_F(PythonFixtures, KindsMatchTheModulesTable) {
  python::Gil gil;
  python::exec("import serialcheck_fixtures");
  std::set<std::string> names;
  for (const gen::FixtureKind& k : gen::fixture_kinds()) {
    names.insert(std::string(k.name));
    python::PyRef arity =
        python::eval("serialcheck_fixtures.FIXTURES.get('" + std::string(k.name) + "', -1)");
    Graph g;
    Node* n = python::from_python(arity.get(), g);
    EXPECT_EQ(n->small(), k.arity) << k.name;
  }
  python::PyRef count = python::eval("len(serialcheck_fixtures.FIXTURES)");
  Graph g;
  EXPECT_EQ(static_cast<std::size_t>(python::from_python(count.get(), g)->small()), names.size());
}

// The reference's pickle of what each fixture object reduces to is the C
// pickler's pickle of the object, at every protocol CPython pickles it.
TEST_F(PythonFixtures, ReferenceWritesWhatTheCPicklerWritesForEveryShape) {
  for (const gen::FixtureKind& k : gen::fixture_kinds()) {
    for (int protocol = k.min_protocol; protocol <= 5; ++protocol) {
      Graph g;
      Node* req = request(g, k);
      Graph resolved;
      Node* value = nullptr;
      try {
        value = python::resolve_fixture_requests(req, resolved, protocol);
      } catch (const SubjectError& e) {
        ADD_FAILURE() << k.name << " at protocol " << protocol << ": " << e.what();
        continue;
      }
      EXPECT_FALSE(gen::has_fixture_requests(value)) << k.name;
      pickle::EncodeOptions options;
      options.protocol = protocol;
      std::string ours = pickle::encode(value, options).bytes;
      std::string args;
      for (int i = 0; i < k.arity; ++i) args += i % 2 == 0 ? ", 7" : ", ['x', 2.5]";
      std::string theirs = python_bytes(
          "__import__('pickle').dumps(__import__('serialcheck_fixtures').make('" +
          std::string(k.name) + "'" + args + "), protocol=" + std::to_string(protocol) + ")");
      EXPECT_EQ(ours, theirs) << k.name << " at protocol " << protocol;
    }
  }
}

// A kind CPython cannot pickle at a protocol fails to resolve there.
TEST_F(PythonFixtures, UnpicklableBelowItsMinimumProtocol) {
  for (const gen::FixtureKind& k : gen::fixture_kinds()) {
    if (k.min_protocol != 2) continue;
    Graph g;
    Node* req = request(g, k);
    Graph resolved;
    EXPECT_THROW(python::resolve_fixture_requests(req, resolved, 1), SubjectError) << k.name;
  }
}

// Negative control: the reduce the object has at protocol 1
// (copyreg._reconstructor) handed to the reference at protocol 2, where
// CPython uses copyreg.__newobj__, must fail bytes.match-cpython; the right
// form passes.
TEST_F(PythonFixtures, WrongReduceFormFailsBytesMatch) {
  test_support::BytesMatchCpython bytes_match;
  ASSERT_NE(bytes_match.property, nullptr);
  for (std::string_view kind : {"plain", "list_subclass", "newargs"}) {
    const gen::FixtureKind k = fixture_kind(kind);
    for (int form : {2, 1}) {
      Graph g;
      Node* req = request(g, k);
      TestCase c;
      c.graph = std::make_shared<Graph>();
      c.value = python::resolve_fixture_requests(req, *c.graph, form);
      c.protocol = 2;
      Outcome o = bytes_match.check(c);
      if (form == 2) {
        EXPECT_EQ(o.status, Outcome::Status::Pass) << kind << ": " << o.message;
      } else {
        EXPECT_TRUE(o.failed()) << kind << ": the protocol-1 reduce passed at protocol 2";
        EXPECT_EQ(o.fingerprint.rfind("bytes:", 0), 0u) << o.fingerprint;
      }
    }
  }
}

// A class with a __new__ of its own and __getnewargs_ex__: from protocol 4
// NEWOBJ_EX; at 2 and 3 the C pickler calls
// functools.partial(cls.__new__, cls, *args, **kwargs)(), naming the
// class's own __new__; at 0 and 1 copyreg._reconstructor, as for any class.
// At every protocol the reference writes the C pickler's bytes, reads them
// back to a value that is the real object again, and the properties whose
// cases hold fixture objects hold for the reference and the cpython subject.
TEST_F(PythonFixtures, OwnNewWithKeywordArgumentsAtEveryProtocol) {
  ReferenceSubject reference;
  auto cpython = make_cpython_subject();
  PropertyEnv env = test_support::env_with({{"reference", &reference}, {"cpython", cpython.get()}});
  const gen::FixtureKind k = fixture_kind("newargs_ex_new");
  ASSERT_EQ(k.arity, 2);
  EXPECT_EQ(k.min_protocol, 0);
  const std::string object =
      "__import__('serialcheck_fixtures').make('newargs_ex_new', 7, ['x', 2.5])";
  for (int protocol = 0; protocol <= 5; ++protocol) {
    SCOPED_TRACE("protocol " + std::to_string(protocol));
    Graph g;
    Node* req = request(g, k);
    TestCase c;
    c.graph = std::make_shared<Graph>();
    c.value = python::resolve_fixture_requests(req, *c.graph, protocol);
    c.protocol = protocol;
    pickle::EncodeOptions options;
    options.protocol = protocol;
    std::string ours = pickle::encode(c.value, options).bytes;
    std::string theirs = python_bytes("__import__('pickle').dumps(" + object +
                                      ", protocol=" + std::to_string(protocol) + ")");
    EXPECT_EQ(ours, theirs);
    // The class's own __new__ is named where the pickler names it.
    const bool names_new = ours.find("__new__") != std::string::npos;
    EXPECT_EQ(names_new, protocol == 2 || protocol == 3);
    // The reference's reading of the C pickler's bytes, made a Python
    // object, is the object (its __new__ ran with the keyword argument).
    {
      Message m;
      m.frames.push_back(Frame::owned(theirs, true));
      Graph back;
      Node* loaded = reference.loads(m, back, {});
      python::Gil gil;
      python::PyRef made = python::to_python(loaded);
      python::set_main("made_by_reference", made.get());
      python::PyRef same = python::eval(
          "str((lambda a, b: type(a) is type(b) and "
          "vars(a) == vars(b))(made_by_reference, " +
          object + "))");
      EXPECT_EQ(python::str_of(same.get()), "True");
    }
    for (auto [id, subject] :
         std::vector<std::pair<std::string, Subject*>>{{"bytes.match-cpython", &reference},
                                                       {"bytes.reencode", &reference},
                                                       {"bytes.reencode", cpython.get()},
                                                       {"roundtrip.equal", cpython.get()},
                                                       {"roundtrip.identity", cpython.get()},
                                                       {"cross.load", &reference},
                                                       {"cross.load", cpython.get()}}) {
      const GateProperty* property = find_property(id);
      ASSERT_NE(property, nullptr) << id;
      Outcome o = check_case(*property, *subject, c, env);
      EXPECT_EQ(o.status, Outcome::Status::Pass)
          << id << " " << subject->name() << ": " << o.message;
    }
  }
}

// The Python testee adapter describes the objects it loads itself
// (serialcheck_testee.py): for a __getnewargs_ex__ class, with and without a
// __new__ of its own, its description is the bridge's at every protocol.
TEST_F(PythonFixtures, TheTesteeAdapterDescribesNewArgsExAsTheBridgeDoes) {
  for (std::string_view kind : {"newargs_ex", "newargs_ex_new"}) {
    const gen::FixtureKind k = fixture_kind(kind);
    for (int protocol = 0; protocol <= 5; ++protocol) {
      Graph g;
      Graph resolved;
      Node* value = python::resolve_fixture_requests(request(g, k), resolved, protocol);
      python::Gil gil;
      python::PyRef text = python::eval(
          "__import__('serialcheck_testee').value_to_text(__import__('serialcheck_fixtures')"
          ".make('" +
          std::string(kind) + "', 7, ['x', 2.5]), " + std::to_string(protocol) + ")");
      EXPECT_EQ(python::str_of(text.get()), to_json(value)) << kind << " at protocol " << protocol;
    }
  }
}

// Negative control: the same object described as the value model's
// __newobj_ex__ (which stands for object.__new__) at protocols 2 and 3
// fails bytes.match-cpython, as this fixture did before its own __new__
// was described.
TEST_F(PythonFixtures, NewobjExWithObjectNewFailsForAnOwnNew) {
  test_support::BytesMatchCpython bytes_match;
  ASSERT_NE(bytes_match.property, nullptr);
  const gen::FixtureKind k = fixture_kind("newargs_ex_new");
  for (int protocol : {2, 3}) {
    Graph g;
    Node* req = request(g, k);
    TestCase c;
    c.graph = std::make_shared<Graph>();
    // Protocol 4's reduce is copyreg.__newobj_ex__ itself.
    c.value = python::resolve_fixture_requests(req, *c.graph, 4);
    ASSERT_EQ(c.value->kind, Kind::Object);
    ASSERT_EQ(c.value->obj()->callable->name(), "__newobj_ex__");
    c.protocol = protocol;
    Outcome o = bytes_match.check(c);
    EXPECT_TRUE(o.failed()) << "protocol " << protocol;
    EXPECT_EQ(o.fingerprint.rfind("bytes:", 0), 0u) << o.fingerprint;
  }
}

// A reduce whose state is None writes no state, so its state_setter is
// not part of the value either; a persistent object referenced twice is two
// persistent ids (pickle memoizes none).
TEST_F(PythonFixtures, ResolvedValuesHoldOnlyWhatPickleWrites) {
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  Node* setter = g.object(make, g.tuple({g.str("state_setter"), g.none()}));
  Node* self_ref = g.object(make, g.tuple({g.str("self_ref"), g.persid(g.str("pid"))}));
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph out;
    Node* value = python::resolve_fixture_requests(g.list({setter, self_ref}), out, protocol);
    const Node* resolved_setter = value->items.at(0);
    ASSERT_EQ(resolved_setter->kind, Kind::Object);
    EXPECT_EQ(resolved_setter->obj()->state, nullptr);
    EXPECT_EQ(resolved_setter->obj()->state_setter, nullptr);
    std::vector<const Node*> persids;
    for (const Node* n : reachable(value)) {
      if (n->kind == Kind::PersId) persids.push_back(n);
    }
    EXPECT_EQ(persids.size(), 2u) << "protocol " << protocol;
  }
}

// NewArgs keeps its argument as its attribute, so a PickleBuffer argument
// is one object reached twice (through __getnewargs__ and the state). In
// band the C pickler memoizes it; out of band it writes it twice (NEXT_BUFFER
// is never memoized) and it loads as two. No description holds both, so it
// is refused; a buffer reached once (Plain keeps only the state) stands.
TEST_F(PythonFixtures, ABufferReachedTwiceIsRefused) {
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  auto with_buffer = [&](const char* kind) {
    return g.object(make,
                    g.tuple({g.str(kind), g.pickle_buffer(std::string("p"), false), g.none()}));
  };
  Graph out;
  EXPECT_THROW(python::resolve_fixture_requests(with_buffer("newargs"), out, 5), SubjectError);
  Graph fine;
  EXPECT_NO_THROW(python::resolve_fixture_requests(with_buffer("plain"), fine, 5));
  // Why: out of band the C pickler writes two NEXT_BUFFERs for the one buffer.
  python::Gil gil;
  python::PyRef objects = python::to_python(with_buffer("newargs"));
  python::PyRef count = python::eval(
      "lambda o: [op.name for op, _, _ in __import__('pickletools').genops(__import__('pickle')"
      ".dumps(o, protocol=5, buffer_callback=lambda b: False))].count('NEXT_BUFFER')");
  python::PyRef n = python::PyRef::steal(PyObject_CallOneArg(count.get(), objects.get()));
  ASSERT_TRUE(n.get() != nullptr && PyLong_Check(n.get()));
  EXPECT_EQ(PyLong_AsLong(n.get()), 2);
}

// Persistent ids through the Python subjects: the C pickler with the
// fixtures module's persistent_id writes what the reference writes (PERSID at
// protocol 0, BINPERSID above), and each pickle subject reads them back.
TEST_F(PythonFixtures, PersistentIdsThroughThePythonSubjects) {
  std::vector<std::unique_ptr<PythonSubject>> subjects;
  subjects.push_back(make_cpython_subject());
  subjects.push_back(make_cpython_py_subject());
  subjects.push_back(make_cloudpickle_subject());
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    std::vector<Node*> items{g.persid(g.str("ab")), g.integer(1)};
    if (protocol > 0) items.push_back(g.persid(g.tuple({g.integer(3), g.str("x")})));
    Node* value = g.list(std::move(items));
    pickle::EncodeOptions encode_options;
    encode_options.protocol = protocol;
    std::string ours = pickle::encode(value, encode_options).bytes;
    EXPECT_NE(ours.find(protocol == 0 ? 'P' : 'Q'), std::string::npos);
    for (auto& subject : subjects) {
      if (subject->unavailable_reason()) continue;
      DumpOptions options;
      options.protocol = protocol;
      Message m = subject->dumps(value, options);
      if (subject->name() != "cloudpickle") {
        EXPECT_EQ(m.frames.at(0).view(), ours) << subject->name() << " at " << protocol;
      }
      Graph out;
      Node* back = subject->loads(m, out, {});
      EXPECT_TRUE(props::same_value(value, back, true, nullptr))
          << subject->name() << " at " << protocol;
    }
  }
}

// A subject in another process iterates its sets in its own order: its
// pickle still matches when the reference, reading it back, writes the same
// bytes. Below protocol 4 that pickle names a nested class through getattr,
// which the reference must write again as the class it names (NEWOBJ).
class OtherSetOrder : public ReferenceSubject {
 public:
  std::string name() const override { return "other-set-order"; }
  Message dumps(const Node* value, const DumpOptions& options) override {
    Graph copy;
    std::unordered_map<const Node*, Node*> map;
    Node* root = copy_value(value, copy, &map);
    for (auto& [original, node] : map) {
      if (node->kind == Kind::Set) std::reverse(node->items.begin(), node->items.end());
    }
    Message m = ReferenceSubject::dumps(root, options);
    return props::owned_copy(m);
  }
};

TEST_F(PythonFixtures, BytesMatchAcceptsAnotherSetOrderBesideANestedClass) {
  OtherSetOrder subject;
  test_support::BytesMatchCpython bytes_match;
  ASSERT_NE(bytes_match.property, nullptr);
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  Node* request = g.list({g.set({g.str("a1"), g.str("b2"), g.str("c3")}),
                          g.object(make, g.tuple({g.str("nested_class"), g.integer(1)}))});
  for (int protocol : {2, 3, 4}) {
    TestCase c;
    c.graph = std::make_shared<Graph>();
    c.value = python::resolve_fixture_requests(request, *c.graph, protocol);
    c.protocol = protocol;
    Outcome o = bytes_match.check(c, &subject);
    EXPECT_EQ(o.status, Outcome::Status::Pass) << protocol << ": " << o.message;
  }
}

// Two bound methods of one class method are two objects: CPython writes
// getattr(Outer, 'class_method') twice. Read back below protocol 4, where a
// nested class is written the same way, the two calls must stay two when the
// reference writes them again (the nested class a NEWOBJ names becomes its
// global; these do not).
TEST_F(PythonFixtures, TwoBoundMethodsStayTwoWhenWrittenAgain) {
  ReferenceSubject reference;
  auto cpython = make_cpython_subject();
  PropertyEnv env = test_support::env_with({{"reference", &reference}, {"cpython", cpython.get()}});
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  Node* request = g.list({g.object(make, g.tuple({g.str("class_method")})),
                          g.object(make, g.tuple({g.str("class_method")})),
                          g.object(make, g.tuple({g.str("nested_class"), g.integer(3)}))});
  for (int protocol = 0; protocol <= 5; ++protocol) {
    SCOPED_TRACE("protocol " + std::to_string(protocol));
    TestCase c;
    c.graph = std::make_shared<Graph>();
    c.value = python::resolve_fixture_requests(request, *c.graph, protocol);
    c.protocol = protocol;
    ASSERT_NE(c.value->items.at(0), c.value->items.at(1));
    for (auto [id, subject] : std::vector<std::pair<std::string, Subject*>>{
             {"bytes.reencode", &reference},
             {"bytes.reencode", cpython.get()},
             {"bytes.match-cpython", &reference},
             {"cross.load", &reference}}) {
      Outcome o = check_case(*find_property(id), *subject, c, env);
      EXPECT_EQ(o.status, Outcome::Status::Pass) << id << " " << subject->name() << ": "
                                                 << o.message << "\n" << o.explanation;
    }
  }
}

// A str that a generated value shares with a name a class's own code
// interns: functools.partial's keyword 'key' and the 'key' that
// NewArgsEx.__getnewargs_ex__ returns are one interned object in the real
// value, but the Python subjects build theirs from the description, where
// that str is a new object the class's 'key' is not. The C pickler then
// writes 'key' twice where the reference, holding the description, writes it
// once. Such a description is refused; the gate draws another case.
TEST_F(PythonFixtures, ADescriptionWhoseRebuiltObjectsReduceOtherwiseIsRefused) {
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  Node* inner = g.object(make, g.tuple({g.str("newargs_ex"), g.none(), g.none()}));
  Node* partial = g.object(make, g.tuple({g.str("partial"), g.none(), g.list({inner})}));
  for (int protocol : {4, 5}) {
    Graph out;
    EXPECT_THROW(python::resolve_fixture_requests(partial, out, protocol), SubjectError)
        << protocol;
  }
  // Each alone describes itself faithfully.
  for (Node* alone : {inner, g.object(make, g.tuple({g.str("partial"), g.none(), g.none()}))}) {
    Graph out;
    EXPECT_NO_THROW(python::resolve_fixture_requests(alone, out, 5));
  }
  // Through the gate's resolver the case is refused, not resolved wrongly.
  python::install_fixture_resolver();
  gen::GeneratedValue v;
  v.graph = std::make_shared<Graph>();
  v.root = partial;
  EXPECT_FALSE(gen::resolve_fixtures(v, 5).has_value());
  // The check the worker's shrinking applies to each edit: a resolved
  // NewArgsEx passes it; with its arguments dropped (what CPython, calling
  // __getnewargs_ex__, would never write) it does not.
  Graph out;
  Node* resolved = python::resolve_fixture_requests(inner, out, 5);
  EXPECT_TRUE(gen::rebuilds_to_itself(resolved, 5)) << to_json(resolved);
  ASSERT_EQ(resolved->kind, Kind::Object);
  ASSERT_EQ(resolved->obj()->args->items.size(), 3u);
  resolved->obj()->args->items[1] = out.tuple();
  resolved->obj()->args->items[2] = out.dict();
  EXPECT_FALSE(gen::rebuilds_to_itself(resolved, 5)) << to_json(resolved);
}

// A Plain instance's attribute 'a' beside the str 'a': in CPython 3.11 the
// attribute's name is the interned 'a' of the class's code, another object
// than the one-character 'a' every other str 'a' is, so the real value holds
// two and the C pickler writes 'a' twice. The reference memoizes a
// one-character str by its text (CPython's one object per such value), so it
// writes 'a' once: no description stands for these objects, and it is
// refused. With 'c', which is no attribute's name, it stands.
TEST_F(PythonFixtures, ADescriptionWithTwoObjectsForOneSingletonValueIsRefused) {
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  auto beside = [&](const char* text) {
    return g.list(
        {g.object(make, g.tuple({g.str("plain"), g.integer(1), g.integer(2)})), g.str(text)});
  };
  for (int protocol = 0; protocol <= 5; ++protocol) {
    SCOPED_TRACE("protocol " + std::to_string(protocol));
    Graph out;
    EXPECT_THROW(python::resolve_fixture_requests(beside("a"), out, protocol), SubjectError);
    Graph fine;
    EXPECT_NO_THROW(python::resolve_fixture_requests(beside("c"), fine, protocol));
  }
  // Why: the C pickler writes the str twice (SHORT_BINUNICODE 'a' as the
  // attribute's name and again as the list's item), where one object would
  // be written once and fetched from the memo.
  python::Gil gil;
  python::PyRef objects = python::to_python(beside("a"));
  python::PyRef dumps = python::eval("__import__('pickle').dumps");
  python::PyRef pickled =
      python::PyRef::steal(PyObject_CallFunction(dumps.get(), "Oi", objects.get(), 5));
  ASSERT_TRUE(pickled.get() != nullptr && PyBytes_Check(pickled.get()));
  const std::string_view bytes(PyBytes_AS_STRING(pickled.get()),
                               static_cast<std::size_t>(PyBytes_GET_SIZE(pickled.get())));
  const std::string short_a =
      "\x8c\x01"
      "a";
  std::size_t written = 0;
  for (std::size_t at = bytes.find(short_a); at != std::string_view::npos;
       at = bytes.find(short_a, at + 1)) {
    ++written;
  }
  EXPECT_EQ(written, 2u);
}

// A Reduce3 whose argument is a list holding the object itself, as the
// worker's shrinking may edit a case into: pickle calls __reduce__ again for
// the copy it drops, Reduce3.__reduce__ builds a new argument tuple, and the
// C pickler writes that tuple anew where the reference, holding one tuple,
// fetches it from the memo. The shrinking's check refuses the edit.
TEST_F(PythonFixtures, AnObjectReachedFromItsOwnArgumentsIsRefused) {
  python::install_fixture_resolver();  // gen::rebuilds_to_itself asks the interpreter
  Graph g;
  Node* make = g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker));
  Node* request = g.object(make, g.tuple({g.str("reduce3"), g.integer(1), g.integer(2)}));
  for (int protocol = 0; protocol <= 5; ++protocol) {
    SCOPED_TRACE("protocol " + std::to_string(protocol));
    Graph out;
    Node* resolved = python::resolve_fixture_requests(request, out, protocol);
    ASSERT_EQ(resolved->kind, Kind::Object);
    EXPECT_TRUE(gen::rebuilds_to_itself(resolved, protocol)) << to_json(resolved);
    resolved->obj()->args->items.at(0) = out.list({resolved});
    EXPECT_FALSE(gen::rebuilds_to_itself(resolved, protocol)) << to_json(resolved);
    // Why: the two pickles differ.
    pickle::EncodeOptions options;
    options.protocol = protocol;
    const std::string ours = pickle::encode(resolved, options).bytes;
    python::Gil gil;
    python::PyRef objects = python::to_python(resolved);
    python::PyRef dumps = python::eval("__import__('pickle').dumps");
    python::PyRef pickled =
        python::PyRef::steal(PyObject_CallFunction(dumps.get(), "Oi", objects.get(), protocol));
    ASSERT_TRUE(pickled.get() != nullptr && PyBytes_Check(pickled.get()));
    EXPECT_NE(ours, std::string(PyBytes_AS_STRING(pickled.get()),
                                static_cast<std::size_t>(PyBytes_GET_SIZE(pickled.get()))));
  }
}

// What the gate's cases hold for Python subjects: requests resolved, never
// left in the value.
TEST_F(PythonFixtures, CasesHoldResolvedObjects) {
  python::install_fixture_resolver();
  CasePlan plan;
  plan.graph_shaped = true;
  plan.python_safe = true;
  plan.python_objects = true;
  rc::Gen<TestCase> cases = case_generator(plan);
  rc::Random random(11);
  int with_fixtures = 0;
  for (int i = 0; i < 300; ++i) {
    TestCase c = cases(random.split(), 60).value();
    EXPECT_FALSE(gen::has_fixture_requests(c.value));
    bool found = false;
    std::vector<const Node*> todo{c.value};
    std::set<const Node*> seen;
    while (!todo.empty() && !found) {
      const Node* n = todo.back();
      todo.pop_back();
      if (n == nullptr || !seen.insert(n).second) continue;
      if (n->kind == Kind::Global && n->payload() == gen::kFixturesModule) found = true;
      for (const Node* item : n->items) todo.push_back(item);
      if (n->obj()) todo.insert(todo.end(), {n->obj()->callable, n->obj()->args, n->obj()->state});
    }
    with_fixtures += found ? 1 : 0;
  }
  EXPECT_GT(with_fixtures, 30);
}

}  // namespace
}  // namespace serialcheck
