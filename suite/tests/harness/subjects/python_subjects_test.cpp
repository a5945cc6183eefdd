// The Python subjects: cpython, cpython-py, cloudpickle, distributed.
#include "harness/subjects/python_subjects.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/python/bridge.h"
#include "harness/python/buffers.h"
#include "harness/python/interpreter.h"
#include "reference/value/equal.h"
#include "reference/value/value.h"
#include "suite/tests/support/python_test.h"

namespace serialcheck {
namespace {

// The interpreter and the bridge (harness/python/), used throughout.
using namespace python;

class PythonSubjects : public test_support::PythonTest {
 protected:
  static std::unique_ptr<PythonSubject> available(std::unique_ptr<PythonSubject> subject) {
    auto reason = subject->unavailable_reason();
    EXPECT_FALSE(reason.has_value()) << subject->name() << ": " << reason.value_or("");
    return reason ? nullptr : std::move(subject);
  }

  // cpython, cpython-py and cloudpickle: the subjects that write pickles,
  // each that is available.
  static std::vector<std::unique_ptr<PythonSubject>> pickle_subjects() {
    std::unique_ptr<PythonSubject> made[] = {make_cpython_subject(), make_cpython_py_subject(),
                                             make_cloudpickle_subject()};
    std::vector<std::unique_ptr<PythonSubject>> out;
    for (auto& subject : made) {
      if (auto ok = available(std::move(subject))) out.push_back(std::move(ok));
    }
    return out;
  }

  static bool truth(std::string_view expression) {
    PyRef result = eval(expression);
    Graph g;
    Node* n = python::from_python(result.get(), g);
    return n->kind == Kind::Bool && n->flag;
  }

  static std::string bytes_value(std::string_view expression) {
    PyRef result = eval(expression);
    Graph g;
    Node* n = python::from_python(result.get(), g);
    EXPECT_EQ(n->kind, Kind::Bytes) << expression;
    return std::string(n->payload());
  }

  static const void* address_of(std::string_view expression) {
    PyRef object = eval(expression);
    return python::buffer_address(object.get());
  }

  // A few values every subject must carry, sharing and cycles included.
  static Node* sample(Graph& g) {
    Node* shared = g.dict({g.str("k"), g.list({g.integer(1), g.floating(2.5)})});
    Node* cycle = g.list({g.str("self")});
    cycle->items.push_back(cycle);
    return g.list({g.none(), g.boolean(true), g.integer(-7), g.integer_le(std::string(20, '\x7F')),
                   g.str("h\xC3\xA9"), g.bytes("raw"), g.bytearray("ba"),
                   g.tuple({g.integer(1), g.tuple({})}), shared, shared, cycle,
                   g.set({g.integer(3)}), g.frozenset({g.str("f")}),
                   g.global("collections", "OrderedDict")});
  }
};

TEST_F(PythonSubjects, FactoryMakesAllFour) {
  auto subjects = make_python_subjects();
  std::vector<std::string> names;
  for (const auto& s : subjects) names.push_back(s->name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"cpython", "cpython-py", "cloudpickle", "distributed"}));
  for (const auto& s : subjects) {
    EXPECT_FALSE(s->unavailable_reason().has_value()) << s->name();
    EXPECT_TRUE(s->capabilities().python_values) << s->name();
  }
  EXPECT_TRUE(subjects[0]->capabilities().cpython_bytes);
  EXPECT_FALSE(subjects[1]->capabilities().cpython_bytes);
  EXPECT_FALSE(subjects[3]->capabilities().pickle_format);
}

TEST_F(PythonSubjects, PickleSubjectsRoundTripAtEveryProtocol) {
  for (auto& subject : pickle_subjects()) {
    for (int protocol = 0; protocol <= 5; ++protocol) {
      Graph g;
      Node* value = sample(g);
      DumpOptions options;
      options.protocol = protocol;
      Message message = subject->dumps(value, options);
      ASSERT_EQ(message.frames.size(), 1u);
      EXPECT_EQ(message.header["serializer"], "pickle");
      EXPECT_EQ(message.header["protocol"], protocol);
      Graph out;
      Node* back = subject->loads(message, out, {});
      Difference why;
      EXPECT_TRUE(equal(value, back, &why))
          << subject->name() << " protocol " << protocol << ": " << why.path << ": " << why.reason;
    }
  }
}

TEST_F(PythonSubjects, CPythonBytesAreWhatPickleDumpsWrites) {
  auto cpython = available(make_cpython_subject());
  auto pure = available(make_cpython_py_subject());
  ASSERT_TRUE(cpython && pure);
  Gil gil;
  exec(
      "import pickle, datetime\n"
      "shared = ['s']\n"
      "value = [1, -2**70, 2.5, 'text', b'bytes', (shared, shared), {'k': {1, 2}},\n"
      "         datetime.date(2020, 5, 17), len, frozenset([b'x']), bytearray(b'ba')]\n");
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    python::BridgeOptions bridge;
    bridge.protocol = protocol;
    Node* value = python::from_python(eval("value").get(), g, bridge);
    DumpOptions options;
    options.protocol = protocol;
    std::string expected =
        bytes_value("pickle.dumps(value, protocol=" + std::to_string(protocol) + ")");
    EXPECT_EQ(cpython->dumps(value, options).frames.at(0).view(), expected) << protocol;
    EXPECT_EQ(pure->dumps(value, options).frames.at(0).view(),
              bytes_value("pickle._dumps(value, protocol=" + std::to_string(protocol) + ")"))
        << protocol;
  }
}

TEST_F(PythonSubjects, OutOfBandFramesAliasPythonMemory) {
  for (auto& subject : pickle_subjects()) {
    Gil gil;
    exec(
        "import pickle\n"
        "writable = bytearray(b'0123456789')\n"
        "readonly = b'abcdef' * 3\n"
        "pair = [pickle.PickleBuffer(writable), pickle.PickleBuffer(readonly)]\n");
    DumpOptions options;
    options.protocol = 5;
    options.out_of_band = true;
    PyRef pair = eval("pair");
    Message message = subject->dumps_object(pair.get(), options);
    ASSERT_EQ(message.frames.size(), 3u) << subject->name();
    EXPECT_EQ(message.header["writeable"], nlohmann::json::array({true, false}));
    // No copy: the frames point at the bytearray's and the bytes' own memory.
    EXPECT_EQ(message.frames[1].data, address_of("writable")) << subject->name();
    EXPECT_EQ(message.frames[2].data, address_of("readonly")) << subject->name();
    EXPECT_FALSE(message.frames[1].readonly);
    EXPECT_TRUE(message.frames[2].readonly);
    EXPECT_FALSE(message.frames[0].borrowed());  // it owns a reference to the pickle bytes

    // Loading wraps the frames without copying them.
    PyRef loaded = subject->loads_object(message, {});
    python::set_main("loaded", loaded.get());
    EXPECT_EQ(address_of("loaded[0]"), message.frames[1].data) << subject->name();
    EXPECT_EQ(address_of("loaded[1]"), message.frames[2].data) << subject->name();
    EXPECT_TRUE(truth("bytes(loaded[0]) == b'0123456789' and bytes(loaded[1]) == readonly"));
    EXPECT_TRUE(truth("not memoryview(loaded[0]).readonly and memoryview(loaded[1]).readonly"));
    // The loaded object keeps the frames alive after the message is gone,
    // and writes through to the memory it shares.
    message = Message{};
    exec("del pair\nwritable = None\nmemoryview(loaded[0])[0] = ord('X')");
    EXPECT_TRUE(truth("bytes(loaded[0]) == b'X123456789'"));
    exec("del loaded");
  }
}

TEST_F(PythonSubjects, OutOfBandValuesRoundTrip) {
  auto subject = available(make_cpython_subject());
  ASSERT_TRUE(subject);
  Graph g;
  Node* value =
      g.list({g.pickle_buffer("writable", false), g.pickle_buffer("readonly", true), g.integer(3)});
  DumpOptions options;
  options.protocol = 5;
  options.out_of_band = true;
  Message message = subject->dumps(value, options);
  ASSERT_EQ(message.frames.size(), 3u);
  EXPECT_EQ(message.frames[1].view(), "writable");
  EXPECT_EQ(message.frames[2].view(), "readonly");
  Graph out;
  Node* back = subject->loads(message, out, {});
  Difference why;
  EXPECT_TRUE(equal(value, back, &why)) << why.path << ": " << why.reason;

  // Without out-of-band, protocol 5 writes the buffers in band: a writable
  // one loads as a bytearray, a read-only one as bytes (pickle's rule).
  options.out_of_band = false;
  Message in_band = subject->dumps(value, options);
  EXPECT_EQ(in_band.frames.size(), 1u);
  Graph in_band_out;
  Node* loaded = subject->loads(in_band, in_band_out, {});
  EXPECT_EQ(loaded->items[0]->kind, Kind::ByteArray);
  EXPECT_EQ(loaded->items[1]->kind, Kind::Bytes);
}

TEST_F(PythonSubjects, WritableBufferFromAReadOnlyFrameIsCopied) {
  auto subject = available(make_cpython_subject());
  ASSERT_TRUE(subject);
  Gil gil;
  exec("import pickle\nsource = pickle.PickleBuffer(bytearray(b'data'))\n");
  DumpOptions options;
  options.out_of_band = true;
  Message message = subject->dumps_object(eval("source").get(), options);
  ASSERT_EQ(message.frames.size(), 2u);
  static const char kConst[] = "data";
  message.frames[1] = Frame::borrowed_view(kConst, 4, /*readonly=*/true);
  PyRef loaded = subject->loads_object(message, {});
  python::set_main("loaded", loaded.get());
  EXPECT_TRUE(truth("not memoryview(loaded).readonly and bytes(loaded) == b'data'"));
  EXPECT_NE(python::buffer_address(loaded.get()), static_cast<const void*>(kConst));
}

TEST_F(PythonSubjects, DistributedSerializesWithItsFamilies) {
  auto subject = available(make_distributed_subject());
  ASSERT_TRUE(subject);
  Gil gil;
  exec("import numpy as np\narray = np.arange(10.0)\n");
  Message message = subject->dumps_object(eval("array").get(), {});
  EXPECT_EQ(message.header["serializer"], "dask");
  EXPECT_EQ(message.header["type"], "numpy.ndarray");
  EXPECT_TRUE(message.header["type-serialized"].is_binary());
  ASSERT_EQ(message.frames.size(), 1u);
  EXPECT_EQ(message.frames[0].data, address_of("array"));  // zero copy
  PyRef loaded = subject->loads_object(message, {});
  python::set_main("loaded", loaded.get());
  EXPECT_TRUE(truth("type(loaded) is np.ndarray and np.array_equal(loaded, array)"));
  EXPECT_EQ(address_of("loaded"), message.frames[0].data);  // zero copy back

  // Plain values take the pickle family.
  Graph g;
  Node* value = sample(g);
  Message pickled = subject->dumps(value, {});
  EXPECT_EQ(pickled.header["serializer"], "pickle");
  Graph out;
  Node* back = subject->loads(pickled, out, {});
  Difference why;
  EXPECT_TRUE(equal(value, back, &why)) << why.path << ": " << why.reason;

  // A collection with an array in front is walked: one sub-header per item.
  exec("mixed = (array, 1)\n");
  Graph mg;
  Node* mixed = python::from_python(eval("mixed").get(), mg);
  Message walked = subject->dumps(mixed, {});
  EXPECT_EQ(walked.header["is-collection"], true);
  Graph mixed_out;
  Node* mixed_back = subject->loads(walked, mixed_out, {});
  EXPECT_TRUE(equal(mixed, mixed_back, &why)) << why.path << ": " << why.reason;
}

TEST_F(PythonSubjects, MissingModuleGivesAReason) {
  auto subject = make_cloudpickle_subject("serialcheck_no_such_module");
  auto reason = subject->unavailable_reason();
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("No module named 'serialcheck_no_such_module'"), std::string::npos)
      << *reason;
  Graph g;
  try {
    subject->dumps(g.integer(1), {});
    FAIL() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "unavailable");
  }
  EXPECT_TRUE(make_distributed_subject("serialcheck_no_such_module.protocol")
                  ->unavailable_reason()
                  .has_value());
}

TEST_F(PythonSubjects, PythonErrorsKeepTheirTypeNames) {
  auto subject = available(make_cpython_subject());
  ASSERT_TRUE(subject);
  Graph g;
  DumpOptions old;
  old.protocol = 4;
  try {
    subject->dumps(g.pickle_buffer("x", false), old);
    FAIL() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "PicklingError") << e.what();
  }
  Message garbage;
  garbage.frames.push_back(Frame::owned("\x80\x05not a pickle"));
  Graph out;
  try {
    subject->loads(garbage, out, {});
    FAIL() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "UnpicklingError") << e.what();
  }
  Message empty;
  EXPECT_THROW(subject->loads(empty, out, {}), SubjectError);
}

TEST_F(PythonSubjects, FramesCanBeDroppedOnAnotherThread) {
  auto subject = available(make_cpython_subject());
  ASSERT_TRUE(subject);
  Graph g;
  DumpOptions options;
  options.out_of_band = true;
  auto message = std::make_unique<Message>(
      subject->dumps(g.list({g.pickle_buffer("buffer", false)}), options));
  ASSERT_EQ(message->frames.size(), 2u);
  std::thread dropper([&] { message.reset(); });  // the owners take the GIL themselves
  dropper.join();
  EXPECT_EQ(message, nullptr);
}

}  // namespace
}  // namespace serialcheck
