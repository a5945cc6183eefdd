// The commands' promises on hostile or mistaken input (docs/cli.md): every
// command that reads a pickle stays linear and stops at decode's limits,
// `scan` reads every pickle of a file, `encode` reads what `decode` reads and
// names JSON pointers, and every error is one line, `serialcheck: <what>`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "reference/pickle/disasm.h"
#include "reference/value/value.h"
#include "suite/tests/support/cli.h"
#include "suite/tests/support/scratch.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

using test_support::CliRun;
using test_support::run_cli;
using test_support::run_shell;

// The promise of docs/cli.md: one line, prefixed.
void expect_one_error_line(const CliRun& r) {
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("serialcheck: ", 0), 0u) << r.err;
}

// `serialcheck ARGS` exits with `status` and one error line that says
// `says`; what it printed.
CliRun expect_error(const std::string& args, int status, std::string_view says = "") {
  CliRun r = run_cli(args);
  EXPECT_EQ(r.status, status) << r.out << r.err;
  expect_one_error_line(r);
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  return r;
}

using CliCommands = test_support::FilesTest;

// ---- dis ------------------------------------------------------------------------

pickle::Disassembly dis(const std::string& s) {
  return pickle::disassemble(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

TEST(DisBounds, TextIsLinearInTheInputHoweverDeep) {
  // 5,000 nested MARKs printed 50 MB when each level indented four more spaces.
  const std::string marks(5000, '(');
  const std::string text = pickle::format_disassembly(dis(marks));
  EXPECT_LT(text.size(), 200 * marks.size());  // 32 levels of indentation at most
}

TEST(DisBounds, StopsAtDecodesMarkLimitWithItsError) {
  const std::string marks(pickle::Limits{}.max_depth + 1, '(');
  const pickle::Disassembly d = dis(marks);
  EXPECT_EQ(d.error_kind, pickle::ErrorKind::LimitExceeded) << d.error;
  EXPECT_EQ(d.error_offset, pickle::Limits{}.max_depth);
  EXPECT_EQ(d.error_detail, "more than 250000 marks open at once");
}

TEST_F(CliCommands, DisAndDecodeStopWithTheSameLine) {
  const std::string file = write("marks.pickle", std::string(300, '('));
  const CliRun d = run_cli("dis --max-depth 100 " + file);
  const CliRun decode = run_cli("decode --max-depth 100 " + file);
  EXPECT_EQ(d.status, 1) << d.err;
  EXPECT_EQ(decode.status, 1);
  EXPECT_EQ(d.err, decode.err);
  EXPECT_NE(d.err.find("limit-exceeded at byte 100"), std::string::npos) << d.err;
  // An allocation limit the disassembler cannot see alone: decode's pass.
  const std::string memo = write("memo.pickle", "\x80\x04]\x94]\x94]\x94."s);
  const CliRun m = run_cli("dis --max-memo 1 " + memo);
  EXPECT_EQ(m.status, 1);
  EXPECT_EQ(m.err, run_cli("decode --max-memo 1 " + memo).err);
}

// `decode --stats` counts what it decoded (scripts/measure-memory reads it).
TEST_F(CliCommands, DecodeStatsCountTheNodesAndTheGraphsBytes) {
  // [1, 'ab', (None,)] at protocol 2: a list, an int, a str, a tuple, None.
  const std::string file = write("five.pickle",
                                 "\x80\x02]q\x00(K\x01X\x02\x00\x00\x00"
                                 "abq\x01N\x85q\x02"
                                 "e."s);
  const CliRun r = run_cli("decode --stats " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("input_bytes").get<std::size_t>(), 23u);
  EXPECT_EQ(j.at("nodes").get<std::size_t>(), 5u);
  EXPECT_EQ(j.at("node_size").get<std::size_t>(), sizeof(Node));
  EXPECT_GE(j.at("graph_bytes").get<std::size_t>(), 5 * sizeof(Node));
  EXPECT_GT(j.at("peak_rss_bytes").get<std::size_t>(), 0u);
  EXPECT_GE(j.at("peak_rss_bytes").get<std::size_t>(),
            j.at("peak_growth_bytes").get<std::size_t>());
  // A bad pickle is still an error, not statistics; --stats prints no value,
  // so --pretty with it is a usage error.
  expect_error("decode --stats " + write("bad.pickle", "\x80\x02]q\x00(K\x01"s), 1, "at byte");
  EXPECT_EQ(run_cli("decode --stats --pretty " + file).status, 2);
}

// ---- scan -----------------------------------------------------------------------

TEST_F(CliCommands, ScanNamesWhyAnAllowlistFileCannotBeRead) {
  const std::string clean =
      "\x80\x02]q\x00(K\x01K\x02"
      "e."s;
  const CliRun r =
      run_cli("scan --allowlist " + path("missing.txt") + " " + write("a.pickle", clean));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("missing.txt': No such file or directory"), std::string::npos) << r.err;
  expect_one_error_line(r);
}

TEST_F(CliCommands, ScanReadsEveryPickleOfAStream) {
  // [1, 2] at protocol 2, then posix.system('true'): what two pickle.dump calls write.
  const std::string clean =
      "\x80\x02]q\x00(K\x01K\x02"
      "e."s;
  const std::string evil = "\x80\x02\x63posix\nsystem\nX\x04\x00\x00\x00true\x85R."s;
  const CliRun r = run_cli("scan " + write("stream.pickle", clean + evil));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("posix.system"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(clean.size() + 2)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 pickles"), std::string::npos) << r.out;
  expect_one_error_line(r);

  const CliRun two = run_cli("scan " + write("clean2.pickle", clean + clean));
  EXPECT_EQ(two.status, 0) << two.err;

  const CliRun junk = run_cli("scan " + write("junk.pickle", clean + "junk\n"));
  EXPECT_EQ(junk.status, 1);
  EXPECT_NE(junk.err.find("5 bytes after the pickle ending at byte " +
                          std::to_string(clean.size()) + " are not a pickle"),
            std::string::npos)
      << junk.err;
  expect_one_error_line(junk);
}

// ---- encode ---------------------------------------------------------------------

TEST_F(CliCommands, EncodeWritesWhatDecodeReads) {
  constexpr int kDepth = 100000;
  std::string json;
  for (int i = 0; i < kDepth; ++i) json += "{\"list\":[";
  for (int i = 0; i < kDepth; ++i) json += "]}";
  const std::string in = write("deep.json", json);
  const CliRun enc = run_cli("encode -i " + in + " -o " + path("deep.pickle"));
  ASSERT_EQ(enc.status, 0) << enc.err;
  const CliRun dec = run_cli("decode " + path("deep.pickle"));
  EXPECT_EQ(dec.status, 0) << dec.err;
  EXPECT_EQ(dec.out, json + "\n");

  const CliRun limited = run_cli("encode --max-depth 3 -i " + in + " -o /dev/null");
  EXPECT_EQ(limited.status, 1);
  EXPECT_NE(limited.err.find("limit-exceeded at /list/0/list/0/list/0:"), std::string::npos)
      << limited.err;
  expect_one_error_line(limited);
}

TEST_F(CliCommands, EncodeErrorsNameAJsonPointer) {
  const std::string in =
      write("buffer.json", R"({"list": [1, {"buffer": "00", "readonly": true}]})");
  const CliRun r = run_cli("encode -p 4 -i " + in + " -o /dev/null");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unpicklable at /list/1: PickleBuffer"), std::string::npos) << r.err;
  expect_one_error_line(r);

  const CliRun bad = run_cli("encode -i " + write("bad.json", R"({"list": [1, {"x": 1}]})"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, "serialcheck: invalid JSON value at /list/1/x: unknown member \"x\"\n");
}

// --python X.Y writes as that version's C pickler, at its default protocol
// unless --protocol says otherwise (docs/versions.md).
TEST_F(CliCommands, EncodeAsAnotherPythonVersion) {
  const std::string in = write("five.json", "5");
  const CliRun at36 = run_cli("encode --python 3.6 -i " + in);
  ASSERT_EQ(at36.status, 0) << at36.err;
  EXPECT_EQ(at36.out, std::string("\x80\x03K\x05.", 5));  // 3.6's default protocol, 3
  const CliRun p0 = run_cli("encode --python 3.6.15 -p 0 -i " + in);
  EXPECT_EQ(p0.out, "L5L\n.");
  EXPECT_EQ(run_cli("encode -p 0 -i " + in).out, "I5\n.");
  const CliRun at314 = run_cli("encode --python 3.14 -i " + in);
  EXPECT_EQ(at314.out, std::string("\x80\x05K\x05.", 5));

  const CliRun too_high = run_cli("encode --python 3.7 -p 5 -i " + in + " -o /dev/null");
  EXPECT_EQ(too_high.status, 1);
  EXPECT_NE(too_high.err.find("pickle protocol must be <= 4"), std::string::npos) << too_high.err;
  const CliRun unknown = run_cli("encode --python 2.7 -i " + in + " -o /dev/null");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.err.find("not a supported CPython version"), std::string::npos) << unknown.err;
}

// ---- decode, then encode, out of band -------------------------------------------

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// CPython's out-of-band pickles decode and encode again to the same bytes
// and buffers whether decode's loader is given its buffers read-only (the
// default, as bytes) or writable (--writable-buffers, as bytearray); the JSON
// says which beside what the stream says.
TEST_F(CliCommands, DecodeThenEncodeGivesCPythonsOutOfBandBytesWhateverTheBuffers) {
  const fs::path source(SERIALCHECK_SOURCE_DIR);
  struct Case {
    fs::path pickle;
    int buffers;
    const char* stream_says;  // a member the JSON must hold whatever is supplied
  };
  // Buffers over bytearray, bytes, bytearray, bytearray; a writable array.
  const Case cases[] = {
      {source / "corpus/golden/pickle_buffers_mixed.p5oob.pickle", 4, R"("readonly":false)"},
      {source / "corpus/golden-ndarray/dtype_b1.p5oob.pickle", 1, R"("writeable":true)"},
  };
  for (const Case& c : cases) {
    for (bool writable : {false, true}) {
      SCOPED_TRACE(c.pickle.string() + (writable ? " --writable-buffers" : ""));
      std::string args = "decode '" + c.pickle.string() + "'";
      std::string stem = c.pickle.string();
      stem.resize(stem.size() - std::string(".pickle").size());
      for (int i = 0; i < c.buffers; ++i)
        args += " --buffer '" + stem + ".buf" + std::to_string(i) + "'";
      if (writable) args += " --writable-buffers";
      const CliRun dec = run_cli(args + " > " + path("v.json"));
      ASSERT_EQ(dec.status, 0) << dec.err;
      const std::string json = file_bytes(dir_ / "v.json");
      EXPECT_NE(json.find(c.stream_says), std::string::npos) << json;
      EXPECT_NE(
          json.find(writable ? R"("supplied-readonly":false)" : R"("supplied-readonly":true)"),
          std::string::npos)
          << json;
      EXPECT_EQ(
          json.find(writable ? R"("supplied-readonly":true)" : R"("supplied-readonly":false)"),
          std::string::npos)
          << json;
      fs::remove_all(dir_ / "bufs");
      const CliRun enc = run_cli("encode --buffers-dir " + path("bufs") + " -i " + path("v.json") +
                                 " -o " + path("again.pickle"));
      ASSERT_EQ(enc.status, 0) << enc.err;
      EXPECT_TRUE(file_bytes(dir_ / "again.pickle") == file_bytes(c.pickle)) << "pickle differs";
      for (int i = 0; i < c.buffers; ++i) {
        EXPECT_TRUE(file_bytes(dir_ / "bufs" / ("buffer-" + std::to_string(i) + ".bin")) ==
                    file_bytes(stem + ".buf" + std::to_string(i)))
            << "buffer " << i;
      }
    }
  }
  // Writability of buffers that are not there is a mistake, not a no-op.
  expect_error("decode '" + cases[0].pickle.string() + "' --writable-buffers", 2,
               "--writable-buffers");
}

// ---- bench ----------------------------------------------------------------------

TEST_F(CliCommands, BenchRefusesABadFilterOrCompareFileInOneLine) {
  expect_error("bench --report " + path("r") + " --filter '(['", 2, "not a regular expression");

  const std::string not_bench = write("not-bench.json", R"({"a": 1})");
  expect_error("bench --quick --filter 'memcpy/copy_1KiB/warm' --report " + path("r") +
                   " --compare " + not_bench,
               1, "is not a bench.json");

  const CliRun none = run_cli("bench --report " + path("r") + " --filter no-such-benchmark-xyz");
  if (none.err.find("this build has no benchmarks") != std::string::npos) return;
  EXPECT_EQ(none.status, 2);
  expect_one_error_line(none);
  EXPECT_NE(none.err.find("matches no benchmark"), std::string::npos) << none.err;
}

// ---- one error format -----------------------------------------------------------

TEST_F(CliCommands, UsageErrorsAreOnePrefixedLine) {
  expect_error("frobnicate", 2, "unknown command 'frobnicate'");
  expect_error("", 2);
  const CliRun cases = expect_error("run --cases 0", 2, "--cases");
  EXPECT_LT(cases.err.size(), 200u) << cases.err;
  expect_error("decode", 2, "serialcheck decode --help");
  expect_error("dis --frobnicate x", 2);
  // run's own checks of its arguments, after parsing, in the same format.
  expect_error("run --no-subjects-file --subjects no-such-subject", 2,
               "unknown subject \"no-such-subject\"");
  expect_error("run --no-subjects-file --shard 3/2", 2);
}

// A module case names a module only the harness defines: no golden user can
// import it, so promote refuses it and writes nothing.
TEST_F(CliCommands, PromoteRefusesAModuleOnlyTheHarnessDefines) {
  const std::string manifest = R"({"cases": []})";
  fs::create_directories(dir_ / "golden");
  std::ofstream(dir_ / "golden" / "MANIFEST.json") << manifest;
  const std::string case_file = write("module-case.json", R"({
    "format": "serialcheck-case/1", "subject": "cpython", "property": "module.by-reference",
    "fingerprint": "exception:TypeError@dumps/module", "seed": 1, "message": "m",
    "protocol": 0, "options": {"max_protocol": 5, "out_of_band": false},
    "failing_message": null,
    "value": {"module": "sc_mod_0", "class": {"global": ["serialcheck_module_types", "ScModule_0"]}}})");
  expect_error("promote --no-subjects-file --golden " + path("golden") + " " + case_file, 1,
               "module sc_mod_0, which only the harness defines");
  std::ifstream in(dir_ / "golden" / "MANIFEST.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), manifest);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "golden"), fs::directory_iterator{}), 1);

  // An instance of a fixtures class: the fixtures module is the harness's too.
  const std::string fixture_case = write("fixture-case.json", R"({
    "format": "serialcheck-case/1", "subject": "cpython", "property": "roundtrip.equal",
    "fingerprint": "mismatch:kind", "seed": 1, "message": "m",
    "protocol": 2, "options": {"max_protocol": 5, "out_of_band": false},
    "failing_message": null,
    "value": {"object": {"callable": {"global": ["serialcheck_fixtures", "Point"]},
                         "args": {"tuple": [1, 2]}}}})");
  const CliRun fixture =
      run_cli("promote --no-subjects-file --golden " + path("golden") + " " + fixture_case);
  EXPECT_EQ(fixture.status, 1) << fixture.out << fixture.err;
  EXPECT_NE(fixture.err.find("module serialcheck_fixtures, which only the harness defines"),
            std::string::npos)
      << fixture.err;
  in.close();
  in.open(dir_ / "golden" / "MANIFEST.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), manifest);

  // A module any Python imports is promoted.
  const std::string stdlib_case = write("stdlib-case.json", R"({
    "format": "serialcheck-case/1", "subject": "cpython", "property": "module.by-reference",
    "fingerprint": "exception:TypeError@dumps/module", "seed": 1, "message": "m",
    "protocol": 0, "options": {"max_protocol": 5, "out_of_band": false},
    "failing_message": null, "value": {"module": "json"}})");
  const CliRun ok =
      run_cli("promote --no-subjects-file --golden " + path("golden") + " " + stdlib_case);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST_F(CliCommands, InputErrorsSayWhy) {
  expect_error("decode " + path("no-such.pickle"), 1, "No such file or directory");

  expect_error("promote " + path("no-such-case.json"), 1, "No such file or directory");

  const CliRun dir = run_cli("dis '" + dir_.string() + "'");
  EXPECT_EQ(dir.status, 1);
  EXPECT_NE(dir.err.find("Is a directory"), std::string::npos) << dir.err;

  const std::string msg = write("value.json", R"({"list": [1, 2]})");
  ASSERT_EQ(run_cli("encode --message -i " + msg + " -o " + path("msg.bin")).status, 0);
  const CliRun packed = expect_error("decode " + path("msg.bin"), 1,
                                     (dir_ / "msg.bin").string() + " looks like a packed message");
  EXPECT_NE(packed.err.find("--message"), std::string::npos) << packed.err;
}

// ---- scripts/run ----------------------------------------------------------------

TEST_F(CliCommands, ScriptsRunLetsTheCallersOptionsWin) {
  const fs::path build_dir = fs::path(SERIALCHECK_CLI).parent_path().parent_path();
  const CliRun r =
      run_shell("SKIP_BUILD=1 BUILD_DIR='" + build_dir.string() + "' '" + SERIALCHECK_SOURCE_DIR +
                "/scripts/run' --list --report " + path("reports"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reference"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace serialcheck
