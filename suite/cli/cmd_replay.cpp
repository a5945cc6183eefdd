// `serialcheck replay` and `serialcheck promote`: saved failing cases run
// again (in worker processes, each subject's cases in one), and a case
// turned into a golden vector. docs/cli.md defines the verdicts and exit
// codes.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "harness/corpus/corpus.h"
#include "harness/corpus/promote.h"
#include "harness/corpus/replay.h"
#include "suite/cli/commands.h"
#include "suite/cli/subjects.h"

namespace serialcheck::cli {
namespace {

int replay(const std::vector<std::string>& args, double timeout_s, int jobs,
           const SubjectArgs& sources) {
  std::vector<std::filesystem::path> roots;
  for (const auto& a : args) roots.emplace_back(a);
  if (roots.empty()) {
    roots.emplace_back("corpus/failing");
    if (!std::filesystem::exists(roots.front())) {
      std::cout << "no cases: corpus/failing does not exist\n";
      return kExitOk;
    }
  }
  std::vector<std::filesystem::path> files;
  try {
    files = list_cases(roots);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  auto factories = subject_factories(sources);
  std::map<ReplayVerdict, int> counts;
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  replay_files(files, factories, timeout_s, jobs, [&counts](const ReplayResult& r) {
    ++counts[r.verdict];
    std::cout << format_replay(r) << "\n" << std::flush;
  });
  std::cout << fmt::format(
      "\n{} cases: {} still failing, {} fixed, {} changed, {} skipped, {} invalid\n", files.size(),
      counts[ReplayVerdict::StillFailing], counts[ReplayVerdict::Fixed],
      counts[ReplayVerdict::Changed], counts[ReplayVerdict::Skipped],
      counts[ReplayVerdict::Invalid]);
  bool bad = counts[ReplayVerdict::Fixed] + counts[ReplayVerdict::Changed] +
                 counts[ReplayVerdict::Invalid] >
             0;
  if (counts[ReplayVerdict::Fixed] > 0) {
    std::cout << "A fixed case should be removed from corpus/failing (or promoted with "
                 "`serialcheck promote CASE`).\n";
  }
  return bad ? kExitFailed : kExitOk;
}

}  // namespace

void add_replay(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("replay", "Replay saved failing cases and report each verdict");
  struct Opts {
    std::vector<std::string> paths;
    double timeout = 20;
    int jobs = 0;
    SubjectArgs sources;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("PATH", o->paths, "Case files or directories (default: corpus/failing)");
  cmd->add_option("-j,--jobs", o->jobs,
                  "Worker processes at once (default: CPUs); each subject's cases share one")
      ->check(CLI::NonNegativeNumber);
  add_subject_options(cmd, o->sources);
  add_malformed_streams(cmd);
  add_case_timeout(cmd, o->timeout, "Seconds one case may run");
  cmd->footer(
      "Verdicts: still-failing (same fingerprint), fixed (passes now), changed (fails another\n"
      "way or no longer applies), skipped (subject not available here), invalid (unreadable).\n"
      "A subject's cases run one after another in one worker, the subject started once; a\n"
      "case that does not still fail there runs again alone in a fresh worker, which decides.\n"
      "Exit codes: 0 every available case still fails as recorded; 1 a case is fixed,\n"
      "changed or invalid, or a PATH does not exist; 2 usage error.");
  cmd->callback([&action, o] {
    action = [o] { return replay(o->paths, o->timeout, o->jobs, o->sources); };
  });
}

void add_promote(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("promote", "Turn a saved case into a golden vector");
  struct Opts {
    std::string file;
    std::string golden = "corpus/golden";
    std::string name;
    double timeout = 20;
    SubjectArgs sources;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("CASE", o->file, "A case file (corpus/failing/...json)")->required();
  add_subject_options(cmd, o->sources);
  add_malformed_streams(cmd);
  cmd->add_option("--golden", o->golden, "The golden corpus directory (holds MANIFEST.json)")
      ->capture_default_str();
  cmd->add_option("--name", o->name, "Entry name (default: promoted_<subject>_<property>_<hash>)");
  add_case_timeout(cmd, o->timeout, "Seconds the dump may run");
  cmd->footer(
      "The bytes come from the cpython subject (the reference when cpython is not available);\n"
      "the JSON is what the reference decodes from them. Exit codes: 0 written; 1 the case,\n"
      "the manifest or the dump failed; 2 usage error.");
  cmd->callback([&action, o] {
    // A PromoteError is reported as bad input (main).
    action = [o] {
      auto name = o->name.empty() ? std::nullopt : std::optional<std::string>(o->name);
      PromoteResult r =
          promote_case(o->file, o->golden, subject_factories(o->sources), o->timeout, name);
      std::cout << fmt::format("promoted as \"{}\" with {} bytes{}{}\n", r.name, r.source,
                               r.source_note.empty() ? "" : " (" + r.source_note + ")",
                               r.byte_identical ? ""
                                                : "; the reference encoder writes "
                                                  "other bytes (byte_identical false)");
      for (const auto& f : r.files) std::cout << "  wrote " << f.string() << "\n";
      return kExitOk;
    };
  });
}

}  // namespace serialcheck::cli
