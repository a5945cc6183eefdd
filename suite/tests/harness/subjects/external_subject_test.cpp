// The external subject against a fake testee (testees/fake_testee.py) that
// behaves, or misbehaves in one way per option: every failure's kind and
// message, restarts, timeouts, the stderr tail and its bound, processes
// reaped, and `serialcheck testee-check` on good and bad testees.
#include "harness/subjects/external_subject.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "suite/tests/support/cli.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string fake_command(const std::string& args) {
  return std::string("/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
         "/suite/tests/testees/fake_testee.py' " + args;
}

TesteeConfig fake(const std::string& args, double timeout_s = 5) {
  TesteeConfig c;
  c.name = "fake";
  c.command = fake_command(args);
  c.timeout_s = timeout_s;
  c.start_timeout_s = 10;
  c.origin = "test";
  return c;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The pids of this process's children (zombies included).
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "children");
    pid_t pid;
    while (in >> pid) out.push_back(pid);
  }
  return out;
}

std::string cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

// No child of ours is a fake testee (or the shell running one), alive or zombie.
void expect_no_testee_children() {
  for (pid_t pid : children()) {
    EXPECT_EQ(cmdline(pid).find("fake_testee"), std::string::npos) << "child " << pid << " left";
  }
}

// Gone, or a zombie waiting for a parent that is not us.
bool process_gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

Node* value_of(Graph& g, const char* json) {
  return from_json(json, g);
}

// Expects `f` to throw a SubjectError and returns it.
template <typename F>
SubjectError error_of(F&& f) {
  try {
    f();
  } catch (const SubjectError& e) {
    return e;
  }
  ADD_FAILURE() << "no SubjectError";
  return SubjectError("none", "none");
}

Message dump_list(ExternalSubject& s, int protocol = 2) {
  Graph g;
  return s.dumps(value_of(g, R"({"list":[1,"a"]})"), DumpOptions{protocol, false});
}

bool dumps_work(ExternalSubject& s) {
  Message m = dump_list(s);
  Graph back;
  Graph want;
  return equal(pickle::decode(m.frames.at(0).view(), back).root,
               value_of(want, R"({"list":[1,"a"]})"));
}

// ---- the well-behaved testee ----------------------------------------------------------

TEST(ExternalSubject, HelloGivesInfoAndCapabilities) {
  ExternalSubject s(fake(""));
  EXPECT_EQ(s.starts(), 0) << "started before it was needed";
  EXPECT_EQ(s.unavailable_reason(), std::nullopt);
  EXPECT_EQ(s.starts(), 1);
  const TesteeInfo& info = s.info();
  EXPECT_EQ(info.name, "fake-testee");
  EXPECT_EQ(info.version, "1.0");
  EXPECT_EQ(info.protocol, 1);
  EXPECT_EQ(info.write_protocols, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  const Capabilities caps = s.capabilities();
  EXPECT_TRUE(caps.can_dump);
  EXPECT_TRUE(caps.can_load);
  EXPECT_TRUE(caps.out_of_band);
  EXPECT_TRUE(caps.cpython_bytes);
  EXPECT_FALSE(caps.limit_loader);
  EXPECT_EQ(caps.min_protocol, 0);
  EXPECT_EQ(caps.max_protocol, 5);
  EXPECT_EQ(caps.families, (std::vector<std::string>{"pickle"}));
  EXPECT_NE(s.description().find("fake-testee 1.0 (CPython"), std::string::npos) << s.description();
  EXPECT_EQ(s.name(), "fake");
  EXPECT_EQ(s.starts(), 1);
}

TEST(ExternalSubject, DumpsAndLoadsAtEveryProtocol) {
  ExternalSubject s(fake(""));
  const char* json =
      R"({"list":[1,"a",{"bytes":"ff"},{"tuple":[{"float":"0.5"},null]},{"int":"-18446744073709551617"}]})";
  for (int p = 0; p <= 5; ++p) {
    Graph g;
    Node* v = value_of(g, json);
    Message m = s.dumps(v, DumpOptions{p, false});
    ASSERT_EQ(m.frames.size(), 1u);
    EXPECT_EQ(m.header["serializer"], "pickle");
    EXPECT_EQ(m.header["protocol"], p);
    EXPECT_EQ(m.header["writeable"], nlohmann::json::array());
    EXPECT_EQ(std::string(m.frames[0].view()), pickle::encode(v, {.protocol = p}).bytes)
        << "CPython's bytes at protocol " << p;

    Message in;
    in.frames.push_back(Frame::owned(pickle::encode(v, {.protocol = p}).bytes));
    Graph back;
    Difference why;
    EXPECT_TRUE(equal(v, s.loads(in, back, LoadOptions{5}), &why))
        << why.path << ": " << why.reason;
  }
  EXPECT_EQ(s.starts(), 1);
}

TEST(ExternalSubject, OutOfBandBuffersKeepTheirWriteableFlag) {
  ExternalSubject s(fake(""));
  Graph g;
  Node* v = value_of(
      g, R"({"list":[{"buffer":"010203","readonly":false},{"buffer":"04","readonly":true}]})");
  Message m = s.dumps(v, DumpOptions{5, true});
  ASSERT_EQ(m.frames.size(), 3u);
  EXPECT_EQ(m.header["writeable"], (nlohmann::json{true, false}));
  EXPECT_FALSE(m.frames[1].readonly);
  EXPECT_TRUE(m.frames[2].readonly);
  EXPECT_EQ(m.frames[1].view(), "\x01\x02\x03");
  EXPECT_FALSE(m.frames[1].borrowed()) << "frames must own their bytes";

  // Back through the testee: writable buffers come back as bytearray.
  Graph back;
  Node* root = s.loads(m, back, LoadOptions{5});
  EXPECT_EQ(to_json(root), R"({"list":[{"bytearray":"010203"},{"bytes":"04"}]})");
}

TEST(ExternalSubject, LargeFramesBothWays) {
  ExternalSubject s(fake(""));
  Graph g;
  Node* big = g.bytes(std::string(3 << 20, '\x5a'));
  Message m = s.dumps(big, DumpOptions{4, false});
  Graph back;
  Node* root = s.loads(m, back, LoadOptions{5});
  ASSERT_EQ(root->kind, Kind::Bytes);
  EXPECT_EQ(root->payload().size(), std::size_t{3} << 20);
}

TEST(ExternalSubject, BenchReportsTheTesteesTiming) {
  ExternalSubject s(fake(""));
  Graph g;
  Node* v = value_of(g, R"({"list":[1,2,3]})");
  const TesteeTiming d = s.bench_dumps(v, DumpOptions{5, false}, 10);
  EXPECT_EQ(d.iterations, 10);
  EXPECT_GE(d.seconds, 0);
  Message m;
  m.frames.push_back(Frame::owned(pickle::encode(v).bytes));
  const TesteeTiming l = s.bench_loads(m, LoadOptions{5}, 7);
  EXPECT_EQ(l.iterations, 7);
  EXPECT_THROW(s.bench_dumps(v, DumpOptions{}, 0), std::invalid_argument);
}

// ---- error answers -------------------------------------------------------------------

TEST(ExternalSubject, ErrorAnswersKeepTheirKindAndTheTestee) {
  ExternalSubject s(fake("--error ValueError"));
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_EQ(e.kind(), "ValueError");
  EXPECT_STREQ(e.what(), "ValueError: the fake testee refuses every dumps");
  EXPECT_NE(e.detail().find("fake testee: request 2: dumps"), std::string::npos) << e.detail();
  EXPECT_EQ(e.detail().find("request 1: hello"), std::string::npos) << "only this request's stderr";
  Message m;
  m.frames.push_back(Frame::owned("\x80\x02N."));
  Graph back;
  EXPECT_EQ(error_of([&] { s.loads(m, back, LoadOptions{}); }).kind(), "ValueError");
  EXPECT_EQ(s.starts(), 1) << "an error answer is not a reason to restart";
}

TEST(ExternalSubject, UnsupportedPassesThrough) {
  ExternalSubject s(fake("--error unsupported"));
  EXPECT_EQ(error_of([&] { dump_list(s); }).kind(), kUnsupported);
}

TEST(ExternalSubject, ValueTheTesteeCannotBuildIsAnError) {
  ExternalSubject s(fake(""));
  Graph g;
  Node* v = value_of(g, R"({"object":{"callable":{"global":["m","f"]},"args":{"tuple":[]}}})");
  EXPECT_EQ(error_of([&] { s.dumps(v, DumpOptions{}); }).kind(), kUnsupported);
  EXPECT_TRUE(dumps_work(s));
}

TEST(ExternalSubject, NonCanonicalValueIsAProtocolError) {
  ExternalSubject s(fake("--bad-value"));
  Message m;
  m.frames.push_back(Frame::owned("\x80\x02N."));
  Graph back;
  const SubjectError e = error_of([&] { s.loads(m, back, LoadOptions{}); });
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find(
                "loads answered a value that is not canonical JSON at /list/1/float: "),
            std::string::npos)
      << e.what();
  EXPECT_TRUE(dumps_work(s));
  EXPECT_EQ(s.starts(), 2) << "restarted after the protocol error";
}

// ---- crashes and hangs -----------------------------------------------------------------

TEST(ExternalSubject, CrashIsChargedAndTheTesteeRestarted) {
  ExternalSubject s(fake("--crash-at 3"));
  EXPECT_TRUE(dumps_work(s));
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_EQ(e.kind(), "testee-crash");
  EXPECT_STREQ(e.what(), "testee-crash: dumps: the testee exited with status 3");
  EXPECT_NE(e.detail().find("fake testee: crashing now"), std::string::npos) << e.detail();
  EXPECT_EQ(s.starts(), 1);
  expect_no_testee_children();  // the crashed one was reaped
  EXPECT_TRUE(dumps_work(s));
  EXPECT_EQ(s.starts(), 2);
}

TEST(ExternalSubject, CrashBySignalIsNamed) {
  ExternalSubject s(fake("--crash-at 2 --signal"));
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_EQ(e.kind(), "testee-crash");
  EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos) << e.what();
}

TEST(ExternalSubject, ClosedInputWhileWritingIsACrashNotASigpipe) {
  ExternalSubject s(fake("--exit-unread 2"));
  Graph g;
  Message m;
  m.frames.push_back(Frame::owned(pickle::encode(g.bytes(std::string(8 << 20, 'x'))).bytes));
  Graph back;
  const SubjectError e = error_of([&] { s.loads(m, back, LoadOptions{}); });
  EXPECT_EQ(e.kind(), "testee-crash");
  EXPECT_NE(std::string(e.what()).find("loads: the testee exited with status 3"), std::string::npos)
      << e.what();
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST(ExternalSubject, HangIsKilledAtTheTimeoutAndRestarted) {
  ExternalSubject s(fake("--hang-at 3", 0.3));
  EXPECT_TRUE(dumps_work(s));
  const auto start = Clock::now();
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_LT(seconds_since(start), 2.0);
  EXPECT_GE(seconds_since(start), 0.29);
  EXPECT_EQ(e.kind(), "testee-timeout");
  EXPECT_STREQ(e.what(), "testee-timeout: no answer to dumps within 0.3s");
  EXPECT_NE(e.detail().find("request 3: dumps"), std::string::npos) << e.detail();
  expect_no_testee_children();
  EXPECT_TRUE(dumps_work(s));
  EXPECT_EQ(s.starts(), 2);
}

TEST(ExternalSubject, TimeoutKillsTheWholeProcessGroup) {
  ExternalSubject s(fake("--spawn-child --hang-at 2", 0.3));
  EXPECT_EQ(error_of([&] { dump_list(s); }).kind(), "testee-timeout");
  const std::string tail = s.stderr_tail();
  const auto at = tail.find("child pid ");
  ASSERT_NE(at, std::string::npos) << tail;
  const pid_t child = std::stoi(tail.substr(at + 10));
  const auto start = Clock::now();
  while (!process_gone(child) && seconds_since(start) < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(process_gone(child)) << "the testee's own child " << child << " outlived it";
}

TEST(ExternalSubject, TesteeThatDoesNotReadTimesOutInsteadOfBlockingUs) {
  ExternalSubject s(fake("--no-read", 0.5));
  Graph g;
  Message m;
  m.frames.push_back(Frame::owned(pickle::encode(g.bytes(std::string(8 << 20, 'x'))).bytes));
  Graph back;
  const auto start = Clock::now();
  const SubjectError e = error_of([&] { s.loads(m, back, LoadOptions{}); });
  EXPECT_LT(seconds_since(start), 3.0);
  EXPECT_EQ(e.kind(), "testee-timeout");
  EXPECT_STREQ(e.what(), "testee-timeout: no answer to loads within 0.5s");
}

// ---- malformed answers -----------------------------------------------------------------

struct Malformed {
  const char* args;
  const char* message;  // a part of the error's message
};

class ExternalSubjectMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(ExternalSubjectMalformed, IsAProtocolErrorAndTheTesteeRestarted) {
  ExternalSubject s(fake(GetParam().args));
  const auto start = Clock::now();
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_LT(seconds_since(start), 2.5);
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("testee-protocol: dumps: ", 0), 0u) << e.what();
  EXPECT_EQ(s.starts(), 1);
  EXPECT_EQ(error_of([&] { dump_list(s); }).kind(), "testee-protocol");
  EXPECT_EQ(s.starts(), 2) << "a malformed answer discards the testee";
  expect_no_testee_children();
}

INSTANTIATE_TEST_SUITE_P(
    Answers, ExternalSubjectMalformed,
    ::testing::Values(
        Malformed{"--garbage-length", "the document is not JSON"},
        Malformed{"--not-object", "the document is not a JSON object but array"},
        Malformed{"--no-ok", "the response has no \"ok\""},
        Malformed{"--short-frames", "frame 0 is shorter than announced: 7 of 100 bytes came"},
        Malformed{"--huge-length",
                  "the response's document length 4294967280 is over the limit of 67108864 bytes"}),
    [](const auto& param) {
      std::string name = std::string(param.param.args).substr(2);
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

TEST(ExternalSubject, FramesOverTheLimitAreRefusedBeforeReading) {
  TesteeLimits limits;
  limits.max_frames = 1000;
  ExternalSubject s(fake(""), limits);
  Graph g;
  const SubjectError e = error_of([&] {
    s.dumps(g.bytes(std::string(5000, 'x')), DumpOptions{4, false});
  });
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find("add up to more than the limit of 1000 bytes"),
            std::string::npos)
      << e.what();
}

TEST(ExternalSubject, JunkBeforeHelloIsAProtocolErrorWithAHint) {
  ExternalSubject s(fake("--junk-stdout"));
  const SubjectError e = error_of([&] { s.info(); });
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find("hello: "), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("is the testee printing to standard output?"),
            std::string::npos)
      << e.what();
  // Not unavailable: each case fails loudly, with a fresh testee.
  EXPECT_EQ(s.unavailable_reason(), std::nullopt);
  EXPECT_TRUE(s.capabilities().can_dump);
  EXPECT_EQ(error_of([&] { dump_list(s); }).kind(), "testee-protocol");
  EXPECT_EQ(s.starts(), 2);
}

TEST(ExternalSubject, BadCapabilityIsAProtocolErrorNamingTheField) {
  ExternalSubject s(fake(R"(--caps '{"write_protocols": [0, 2]}')"));
  const SubjectError e = error_of([&] { s.info(); });
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find("hello: capabilities.write_protocols: "), std::string::npos)
      << e.what();
}

TEST(ExternalSubject, CapabilitiesFromJson) {
  const Capabilities defaults = capabilities_from_json(nlohmann::json::object());
  EXPECT_TRUE(defaults.can_dump);
  EXPECT_TRUE(defaults.can_load);
  EXPECT_EQ(defaults.min_protocol, 0);
  EXPECT_EQ(defaults.max_protocol, 5);
  EXPECT_FALSE(defaults.out_of_band);
  EXPECT_FALSE(defaults.limit_loader);
  EXPECT_FALSE(defaults.cpython_bytes);
  EXPECT_FALSE(defaults.python_values);
  EXPECT_TRUE(defaults.cannot_express.empty());
  EXPECT_TRUE(defaults.kinds.empty());

  const Capabilities reader = capabilities_from_json({{"dumps", false},
                                                      {"write_protocols", nlohmann::json::array()},
                                                      {"read_protocols", {2, 3, 4}},
                                                      {"cannot_express", {"tuple", "sharing"}},
                                                      {"kinds", {"int", "list", "buffer"}}});
  EXPECT_FALSE(reader.can_dump);
  EXPECT_EQ(reader.min_protocol, 2);
  EXPECT_EQ(reader.max_protocol, 4);
  EXPECT_EQ(reader.cannot_express, (std::vector<std::string>{"tuple", "sharing"}));
  EXPECT_EQ(reader.kinds, (std::vector<std::string>{"int", "list", "buffer"}));

  const Capabilities both =
      capabilities_from_json({{"write_protocols", {0, 1, 2, 3}}, {"read_protocols", {2, 3, 4, 5}}});
  EXPECT_EQ(both.min_protocol, 2);
  EXPECT_EQ(both.max_protocol, 3);

  const std::pair<nlohmann::json, const char*> bad[] = {
      {{{"dumps", "yes"}}, "capabilities.dumps: "},
      {{{"out_of_band", 1}}, "capabilities.out_of_band: "},
      {{{"read_protocols", {0, 6}}}, "capabilities.read_protocols: "},
      {{{"read_protocols", {3, 2}}}, "capabilities.read_protocols: "},
      {{{"write_protocols", nlohmann::json::array()}}, "capabilities.write_protocols: "},
      {{{"write_protocols", "0-5"}}, "capabilities.write_protocols: "},
      {{{"cannot_express", {"tuples"}}}, "capabilities.cannot_express: "},
      {{{"kinds", {"integer"}}}, "capabilities.kinds: "},
      {{{"dumps", false}, {"loads", false}}, "neither dumps nor loads"},
      {nlohmann::json::array(), "not an object"},
  };
  for (const auto& entry : bad) {
    const nlohmann::json& j = entry.first;  // (clang 14 captures no structured bindings)
    const char* message = entry.second;
    const SubjectError e = error_of([&] { capabilities_from_json(j); });
    EXPECT_EQ(e.kind(), "testee-protocol") << j.dump();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

// The hello's "python_version" (a CPython testee's interpreter) becomes
// Capabilities::python_version, which bytes.reencode and bytes.match-cpython
// turn into the reference's target; a testee without it has none.
TEST(ExternalSubject, PythonVersionFromHello) {
  EXPECT_EQ(capabilities_from_json(nlohmann::json::object()).python_version, "");
  EXPECT_EQ(capabilities_from_json({{"python_version", "3.7.16"}, {"default_protocol", 3}})
                .python_version,
            "3.7.16");
  try {
    (void)capabilities_from_json({{"python_version", 3.7}});
    ADD_FAILURE() << "a python_version that is not a string was accepted";
  } catch (const SubjectError& e) {
    EXPECT_NE(std::string(e.what()).find("capabilities.python_version: "), std::string::npos)
        << e.what();
  }
}

// cross.py2's choices: "python2_choices" in the hello, and the options sent
// only to a testee that claims them (another would answer as if they were
// the defaults), to the Python adapter's pickle preset here.
TEST(ExternalSubject, Python2ChoicesGoOnlyToATesteeThatTakesThem) {
  EXPECT_FALSE(capabilities_from_json(nlohmann::json::object()).python2_choices);
  EXPECT_TRUE(capabilities_from_json({{"python2_choices", true}}).python2_choices);
  EXPECT_EQ(error_of([] {
              (void)capabilities_from_json({{"python2_choices", "yes"}});
            }).kind(),
            "testee-protocol");

  // What cPickle 2.7 writes at protocol 2 for its str '\xe9t\xe9'.
  Message py2;
  py2.frames.push_back(Frame::owned(std::string("\x80\x02U\x03\xe9t\xe9q\x01.", 10)));
  LoadOptions as_bytes;
  as_bytes.encoding = "bytes";
  DumpOptions unfixed{2, false};
  unfixed.fix_imports = false;

  ExternalSubject plain(fake(""));
  Graph g;
  EXPECT_FALSE(plain.capabilities().python2_choices);
  EXPECT_EQ(error_of([&] { plain.loads(py2, g, as_bytes); }).kind(), kUnsupported);
  EXPECT_EQ(error_of([&] { plain.dumps(value_of(g, R"({"set":[1]})"), unfixed); }).kind(),
            kUnsupported);

  TesteeConfig c = fake("");
  c.name = "pickle";
  c.command = std::string("/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
              "/harness/testees/python/serialcheck_testee.py' --preset pickle --without-kinds "
              "ndarray,tensor --quiet";
  ExternalSubject adapter(c);
  ASSERT_EQ(adapter.unavailable_reason(), std::nullopt);
  EXPECT_TRUE(adapter.capabilities().python2_choices);
  EXPECT_EQ(adapter.loads(py2, g, as_bytes)->kind, Kind::Bytes);
  LoadOptions latin1;
  latin1.encoding = "latin1";
  EXPECT_EQ(std::string(adapter.loads(py2, g, latin1)->payload()), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(error_of([&] { adapter.loads(py2, g, LoadOptions{}); }).kind(), "UnicodeDecodeError");
  const Message written = adapter.dumps(value_of(g, R"({"set":[1]})"), unfixed);
  EXPECT_NE(std::string(written.frames.at(0).view()).find("cbuiltins\nset"), std::string::npos);
}

// ---- stderr ----------------------------------------------------------------------------

TEST(ExternalSubject, FloodedStderrIsDrainedAndItsTailBounded) {
  TesteeLimits limits;
  limits.stderr_tail = 1000;
  ExternalSubject s(fake("--flood-stderr 4"), limits);
  const auto start = Clock::now();
  EXPECT_TRUE(dumps_work(s));
  EXPECT_TRUE(dumps_work(s));
  EXPECT_LT(seconds_since(start), 10.0);
  const std::string tail = s.stderr_tail();
  EXPECT_LE(tail.size(), 1000u);
  EXPECT_NE(tail.find("flood done"), std::string::npos);
}

TEST(ExternalSubject, ErrorDetailIsBoundedToo) {
  TesteeLimits limits;
  limits.stderr_tail = 2048;
  ExternalSubject s(fake("--flood-stderr 1 --crash-at 2"), limits);
  const SubjectError e = error_of([&] { dump_list(s); });
  EXPECT_EQ(e.kind(), "testee-crash");
  EXPECT_LE(e.detail().size(), 2048u);
  EXPECT_NE(e.detail().find("crashing now"), std::string::npos);
}

// ---- testees that cannot run -----------------------------------------------------------

// ---- try-loads: many streams in one request ----------------------------------------

// A valid stream, one cut short, one that is not a pickle at all.
std::vector<std::string> three_streams() {
  return {std::string("\x80\x04K\x07.", 5), std::string("\x80\x04K", 3), "not a pickle"};
}

void expect_three_verdicts(const std::vector<LoadAttempt>& got) {
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].loaded);
  EXPECT_FALSE(got[1].loaded);
  EXPECT_EQ(got[1].kind, "UnpicklingError") << got[1].message;
  EXPECT_FALSE(got[2].loaded);
  EXPECT_FALSE(got[2].kind.empty());
}

TEST(ExternalSubject, TryLoadsAsksForManyStreamsInOneRequest) {
  ExternalSubject s(fake(R"(--caps '{"try_loads": true}' --crash-at 3)"));
  ASSERT_TRUE(s.capabilities().try_loads);
  // hello, then one try-loads; a second request would crash the testee.
  expect_three_verdicts(s.try_loads(three_streams(), 4, LoadOptions{}));
  EXPECT_EQ(s.starts(), 1);
}

TEST(ExternalSubject, TryLoadsWithoutTheCapabilityIsOneLoadsAStream) {
  ExternalSubject s(fake(""));
  ASSERT_FALSE(s.capabilities().try_loads);
  expect_three_verdicts(s.try_loads(three_streams(), 4, LoadOptions{}));
}

TEST(ExternalSubject, TryLoadsThatCrashesIsTriedAgainOneStreamAtATime) {
  // The try-loads request crashes the testee: each stream is then loaded
  // alone, in a testee started again, and gets its own verdict.
  ExternalSubject s(fake(R"(--caps '{"try_loads": true}' --crash-on-try-loads)"));
  expect_three_verdicts(s.try_loads(three_streams(), 4, LoadOptions{}));
  EXPECT_EQ(s.starts(), 2);
}

TEST(ExternalSubject, TryLoadsThatHangsIsGivenHalfTheTimeout) {
  // A batch that hangs is given half the request timeout, then each stream
  // is loaded alone (each with the whole timeout): so a stream that hangs
  // costs the batch's time and its own, within the runner's case timeout
  // (twice the request timeout), and is charged to itself. Here nothing
  // hangs alone, so the whole call takes the batch's half and two starts.
  ExternalSubject s(fake(R"(--caps '{"try_loads": true}' --hang-on-try-loads)", 8));
  const auto start = std::chrono::steady_clock::now();
  expect_three_verdicts(s.try_loads(three_streams(), 4, LoadOptions{}));
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(s.starts(), 2);
  EXPECT_GE(took, 4.0);
  EXPECT_LT(took, 7.5) << "the batch waited the whole timeout (8 s), not half of it";
}

TEST(ExternalSubject, TryLoadsWithTooFewResultsIsAProtocolError) {
  ExternalSubject s(fake(R"(--caps '{"try_loads": true}' --wrong-count)"));
  const SubjectError e = error_of([&] { s.try_loads(three_streams(), 4, LoadOptions{}); });
  EXPECT_EQ(e.kind(), "testee-protocol");
  EXPECT_NE(std::string(e.what()).find("try-loads answered 2 results for 3 streams"),
            std::string::npos)
      << e.what();
}

TEST(ExternalSubject, UnavailableAnswerSaysWhyAndSticks) {
  ExternalSubject s(fake("--unavailable"));
  const auto reason = s.unavailable_reason();
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("cannot import fancy_pickle"), std::string::npos) << *reason;
  EXPECT_NE(reason->find("No module named 'fancy_pickle'"), std::string::npos) << *reason;
  EXPECT_FALSE(s.capabilities().can_dump);
  EXPECT_FALSE(s.capabilities().can_load);
  EXPECT_EQ(error_of([&] { dump_list(s); }).kind(), "unavailable");
  EXPECT_EQ(error_of([&] { s.info(); }).kind(), "unavailable");
  EXPECT_EQ(s.starts(), 1) << "an unavailable testee is not started again";
  expect_no_testee_children();
}

TEST(ExternalSubject, MissingCommandIsUnavailable) {
  TesteeConfig c = fake("");
  c.command = "serialcheck-no-such-testee --flag";
  ExternalSubject s(c);
  const auto reason = s.unavailable_reason();
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("exited with status 127"), std::string::npos) << *reason;
  EXPECT_NE(reason->find("not found"), std::string::npos) << *reason;
  EXPECT_FALSE(s.capabilities().can_dump);
}

TEST(ExternalSubject, MissingDirectoryIsUnavailable) {
  TesteeConfig c = fake("");
  c.cwd = "/nonexistent-serialcheck-dir";
  ExternalSubject s(c);
  const auto reason = s.unavailable_reason();
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("cannot change to directory /nonexistent-serialcheck-dir"),
            std::string::npos)
      << *reason;
}

TEST(ExternalSubject, SilentTesteeIsUnavailableAfterTheStartTimeout) {
  TesteeConfig c = fake("");
  c.command = "sleep 30";
  c.start_timeout_s = 0.3;
  ExternalSubject s(c);
  const auto start = Clock::now();
  const auto reason = s.unavailable_reason();
  EXPECT_LT(seconds_since(start), 2.0);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("no answer to hello within 0.3s"), std::string::npos) << *reason;
}

TEST(ExternalSubject, EnvironmentAndDirectoryReachTheTestee) {
  TesteeConfig c = fake("");
  const std::string dir = fs::temp_directory_path().string();
  c.command = "echo \"var=$SERIALCHECK_TEST_VAR dir=$(pwd)\" >&2; " + fake_command("");
  c.env["SERIALCHECK_TEST_VAR"] = "hello there";
  c.cwd = dir;
  ExternalSubject s(c);
  EXPECT_TRUE(dumps_work(s));
  EXPECT_NE(s.stderr_tail().find("var=hello there dir=" + fs::canonical(dir).string()),
            std::string::npos)
      << s.stderr_tail();
}

TEST(ExternalSubject, TesteeInheritsNoDescriptorButItsPipes) {
  // A descriptor this process holds without close-on-exec, at a known number.
  const int stray = ::fcntl(::open("/dev/null", O_RDONLY), F_DUPFD, 200);
  ASSERT_GE(stray, 200);
  ExternalSubject other(fake(""));
  ASSERT_TRUE(dumps_work(other));  // its pipes are open here while the next starts
  TesteeConfig c = fake("");
  // A glob, not $(ls): the shell itself lists what it holds, no pipe of its own.
  c.command = "set -- /proc/$$/fd/*; echo \"fds: $*\" >&2; " + fake_command("");
  ExternalSubject s(c);
  EXPECT_TRUE(dumps_work(s));
  const std::string tail = s.stderr_tail();
  const auto at = tail.find("fds: ");
  ASSERT_NE(at, std::string::npos) << tail;
  std::string fds = tail.substr(at + 5, tail.find('\n', at) - at - 5);
  std::vector<std::string> numbers;
  for (std::size_t slash; (slash = fds.find("/fd/")) != std::string::npos;) {
    fds = fds.substr(slash + 4);
    numbers.push_back(fds.substr(0, fds.find(' ')));
  }
  // 0-2, and 3: the directory the glob reads.
  EXPECT_GE(numbers.size(), 3u) << tail;
  for (const auto& n : numbers)
    EXPECT_LE(std::stoi(n), 3) << "descriptor " << n << " leaked\n" << tail;
  ::close(stray);
}

// ---- ending ----------------------------------------------------------------------------

TEST(ExternalSubject, ShutdownEndsTheTesteeAndLeavesNoZombie) {
  {
    ExternalSubject s(fake(""));
    EXPECT_TRUE(dumps_work(s));
    EXPECT_EQ(s.shutdown(), std::nullopt);
    EXPECT_EQ(s.shutdown(), std::nullopt) << "nothing left to shut down";
    EXPECT_TRUE(dumps_work(s)) << "started again";
    EXPECT_EQ(s.starts(), 2);
  }  // the destructor shuts the second one down
  expect_no_testee_children();
}

TEST(ExternalSubject, TesteeThatIgnoresShutdownIsKilledAfterASecond) {
  ExternalSubject s(fake("--no-exit"));
  EXPECT_TRUE(dumps_work(s));
  const auto start = Clock::now();
  const auto problem = s.shutdown();
  EXPECT_LT(seconds_since(start), 2.5);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("did not exit within 1s"), std::string::npos) << *problem;
  expect_no_testee_children();
}

TEST(ExternalSubject, ForkedChildStartsItsOwnTesteeAndLeavesTheParentsAlone) {
  ExternalSubject s(fake(""));
  ASSERT_TRUE(dumps_work(s));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child's calls must neither use nor end the parent's testee.
    bool ok = false;
    try {
      ok = dumps_work(s) && s.starts() == 2 && s.shutdown() == std::nullopt;
    } catch (...) {
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(dumps_work(s));
  EXPECT_EQ(s.starts(), 1) << "the parent's testee survived the child";
}

// ---- serialcheck testee-check ----------------------------------------------------------

using test_support::CliRun;

// `serialcheck testee-check ARGS`, stderr into stdout.
CliRun testee_check(const std::string& args) {
  return test_support::run_cli("testee-check " + args, test_support::Stderr::ToOut);
}

// testee-check on `args` exits 1 and prints `line` (a failed check); what it printed.
CliRun expect_check_fails(const std::string& args, std::string_view line) {
  CliRun r = testee_check(args);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  return r;
}

// The fake's command as one shell word (single-quoted).
std::string quoted_fake(const std::string& args) {
  std::string out = "'";
  for (char c : fake_command(args)) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(TesteeCheck, GoodTesteePassesEveryCheck) {
  const CliRun r = testee_check("--timeout 5 " + quoted_fake(""));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  for (const char* line :
       {"ok   hello: fake-testee 1.0",
        "ok   dumps protocol 0:", "ok   dumps protocol 5:", "ok   dumps protocol 5 out of band",
        "ok   loads protocol 3:", "ok   loads protocol 5 out of band",
        "ok   loads of a truncated pickle: refused", "ok   loads of an unknown opcode: refused",
        "ok   bench dumps protocol 5", "ok   bench loads protocol 5", "ok   shutdown",
        "22 checks, 0 failed"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

TEST(TesteeCheck, CommandAsWordsAfterDoubleDash) {
  const CliRun r =
      testee_check(std::string("-- /usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
                   "/suite/tests/testees/fake_testee.py' --caps '{\"out_of_band\": false}'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("out of band"), std::string::npos) << "not claimed, not checked\n" << r.out;
}

TEST(TesteeCheck, WrongValuesFail) {
  const CliRun r = expect_check_fails(
      quoted_fake("--wrong-value"),
      "FAIL loads protocol 0: small ints: answered a value that differs at root[0]: "
      "int 0 != int 1");
  EXPECT_NE(r.out.find("ok   dumps protocol 0"), std::string::npos) << r.out;
}

TEST(TesteeCheck, CrashesAreChargedAndTheRestGoesOn) {
  const CliRun r = expect_check_fails(
      quoted_fake("--crash-at 30"),
      "testee-crash: dumps: the testee exited with status 3 [standard error: fake "
      "testee: crashing now]");
  EXPECT_NE(r.out.find("ok   shutdown"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the testee was started"), std::string::npos) << r.out;
}

TEST(TesteeCheck, MalformedStreamMustBeRefused) {
  expect_check_fails(quoted_fake("--lenient"),
                     "FAIL loads of a truncated pickle: answered a value, not an error: null");
}

TEST(TesteeCheck, ErrorAnswersFail) {
  expect_check_fails(
      quoted_fake("--error ValueError"),
      "FAIL dumps protocol 0: small ints: ValueError: the fake testee refuses every dumps");
}

TEST(TesteeCheck, FalseCpythonBytesClaimFails) {
  expect_check_fails(quoted_fake("--optimize"),
                     "FAIL dumps protocol 2: small ints: the bytes differ from CPython's at byte ");
}

TEST(TesteeCheck, BadBenchAnswerFails) {
  expect_check_fails(quoted_fake("--bad-bench"),
                     "FAIL bench dumps protocol 5: testee-protocol: bench: \"iterations\" is not "
                     "the 100 asked for");
}

TEST(TesteeCheck, FalseLimitLoaderClaimFails) {
  expect_check_fails(
      quoted_fake("--caps '{\"limit_loader\": true}'"),
      "FAIL loads above max_protocol: a protocol-5 stream with max_protocol 4 was loaded");
}

TEST(TesteeCheck, ShutdownIgnoredFails) {
  expect_check_fails(quoted_fake("--no-exit"),
                     "FAIL shutdown: the testee did not exit within 1s of shutdown");
}

TEST(TesteeCheck, UnavailableAndMissingTesteesFail) {
  expect_check_fails(
      quoted_fake("--unavailable"),
      "FAIL hello: unavailable: the testee is unavailable: cannot import fancy_pickle");
  expect_check_fails("serialcheck-no-such-testee",
                     "FAIL hello: unavailable: `serialcheck-no-such-testee` did not answer hello: "
                     "the testee exited with status 127");
}

TEST(TesteeCheck, UsageErrors) {
  EXPECT_EQ(testee_check("").status, 2);
  EXPECT_EQ(testee_check("--env NOEQUALS " + quoted_fake("")).status, 2);
  const CliRun help = testee_check("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--timeout"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace serialcheck
