// The units of a campaign (docs/campaigns.md): a unit is one `serialcheck
// run` at one seed over one subject, in a process of its own, so a crash,
// a hang or a lost machine costs that unit and nothing else. Executors run
// units (here on this machine's cores, or on a dask cluster through
// harness/campaign/dask_units.py) and hand back each unit's result as one
// JSON document, the same from every executor:
//
// A unit's files (UnitSpec::files) travel with it, so workers share no
// files with the campaign either way.
//
//   {"id": ID, "status": EXIT-STATUS (-1: killed or never started),
//    "seconds": S, "report": <the run's conformance.json> or null,
//    "cases": {CASE_FILE: <case document>, ...},   keyed as the report names them
//    "log_tail": the last lines the run printed, "why": why it did not finish}
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/campaign/findings_db.h"

namespace serialcheck::campaign {

// Where a unit's argv says its working folder goes; every executor
// replaces it with a fresh folder of its own.
inline constexpr std::string_view kUnitDir = "{unit_dir}";

struct UnitSpec {
  std::string id;  // "<seed>/<subject>"
  std::uint64_t seed = 0;
  std::string subject;
  std::vector<std::string> argv;  // the `serialcheck run` command, with kUnitDir in it
  // Files the executor writes into the unit's folder before the run (name
  // -> text): the campaign's known-failures list, which grows as it runs.
  std::map<std::string, std::string> files;
};

// What a unit's document says, read for merging.
struct UnitOutcome {
  std::string id;
  bool ok = false;  // the run wrote its report
  std::string why;  // when not ok: the exit status or signal, and the log's tail
  std::uint64_t seed = 0;
  std::vector<CellKey> cells;         // every cell that ran (a skip is not a check)
  // The cells that failed, listed or not, and the listed failures a cell
  // looked past (run --look-past-known), one per cell and fingerprint.
  std::vector<CellFinding> failures;
  long cases = 0;                     // cases checked
  double seconds = 0;
};

// Reads a unit document. A document without a report, or with one that
// cannot be read, is not ok and says why; it never throws.
UnitOutcome read_unit_document(const nlohmann::json& doc);

// The document of a unit that ran in `dir` (its report in dir/report, its
// cases where the report says): what the local executor sends.
nlohmann::json unit_document(const std::string& id, const std::filesystem::path& dir, int status,
                             double seconds, const std::string& why);

// The last `lines` lines of a file, for a unit that failed.
std::string file_tail(const std::filesystem::path& path, int lines = 12);

class UnitExecutor {
 public:
  virtual ~UnitExecutor() = default;
  // Whether a unit could start now without waiting behind others.
  virtual bool has_room() const = 0;
  virtual void start(const UnitSpec& unit) = 0;
  // Waits up to `seconds` for units to end; the documents of those that did.
  virtual std::vector<nlohmann::json> poll(double seconds) = 0;
  virtual int running() const = 0;
  // Stops every running unit (their documents are lost) and gives back what
  // the executor holds.
  virtual void stop() = 0;
  // How many units can run at once, for the progress line.
  virtual int slots() const = 0;
};

// Units as child processes of this one, `jobs` at once, each in a folder of
// its own under `work_root`, killed (its whole process group) after
// `unit_timeout_s`.
class LocalExecutor : public UnitExecutor {
 public:
  LocalExecutor(int jobs, std::filesystem::path work_root, double unit_timeout_s);
  ~LocalExecutor() override;
  bool has_room() const override { return static_cast<int>(running_.size()) < jobs_; }
  void start(const UnitSpec& unit) override;
  std::vector<nlohmann::json> poll(double seconds) override;
  int running() const override { return static_cast<int>(running_.size()); }
  void stop() override;
  int slots() const override { return jobs_; }

 private:
  struct Running {
    std::string id;
    pid_t pid = -1;
    std::filesystem::path dir;
    std::chrono::steady_clock::time_point started;
    bool killed = false;
  };
  int jobs_;
  std::filesystem::path work_root_;
  double unit_timeout_s_;
  std::vector<Running> running_;
  int started_ = 0;
};

// Units on a dask.distributed cluster: `python3 driver --scheduler ADDRESS`
// (or `--workers N` for a LocalCluster it starts), fed unit lines on its
// standard input, answering unit documents on its standard output
// (harness/campaign/dask_units.py). Throws std::runtime_error when the
// driver does not start or does not say hello.
class DaskExecutor : public UnitExecutor {
 public:
  DaskExecutor(std::vector<std::string> driver_argv, double unit_timeout_s);
  ~DaskExecutor() override;
  bool has_room() const override;
  void start(const UnitSpec& unit) override;
  std::vector<nlohmann::json> poll(double seconds) override;
  int running() const override { return in_flight_; }
  void stop() override;
  int slots() const override { return slots_; }
  const std::string& describe() const { return cluster_; }  // the driver's hello

 private:
  bool read_some(double seconds, std::vector<nlohmann::json>& out);
  pid_t pid_ = -1;
  int to_driver_ = -1;
  int from_driver_ = -1;
  std::string buffer_;
  int slots_ = 1;
  int in_flight_ = 0;
  std::string cluster_;
  std::string stderr_path_;
};

}  // namespace serialcheck::campaign
