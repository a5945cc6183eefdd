// The version matrix (docs/versions.md, "Reading the version matrix"): the
// cross.matrix cells among the CPython interpreters of a run, as a writer
// version x reader version table. Its subjects are `cpython-X.Y` (native),
// `cpython-X.Y-wasm` (Pyodide), the embedded `cpython` and the `reference`;
// each cell is the verdict of cross.matrix/<writer> checked on the reader.
// conformance.md holds it as the "Version matrix" section, conformance.json
// as "version_matrix", and scripts/plot-matrix draws it as versions.png.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/results.h"

namespace serialcheck {

// Which CPython a subject is, and where the run learned it.
struct SubjectVersion {
  std::string version;  // "3.7.16" where the run knows it; the series "3.7" from a name
  std::string series;   // "3.7"
  // "subject": the subject's Capabilities::python_version, as the run
  // recorded it (RunReport::python_versions); "name": the subject's name,
  // `cpython-X.Y[-wasm]`; "build": the embedded interpreter this binary
  // was built with (the `cpython` subject).
  std::string source;
};

// The Python version of `subject`: RunReport::python_versions first, then
// the name (`cpython-X.Y`, `cpython-X.Y-wasm`), then, for the embedded
// `cpython`, the build's interpreter; nullopt when none says.
std::optional<SubjectVersion> subject_python_version(const RunReport& report,
                                                     const std::string& subject);

// One row or column of the version matrix.
struct VersionMatrixEntry {
  enum class Kind { Native, Embedded, Wasm, Reference };
  std::string subject;
  Kind kind = Kind::Native;
  std::string series;  // "3.12"; empty for the reference (and an embedded one of unknown version)
  // "3.12", "3.12 wasm", "3.11 (embedded)", "reference".
  std::string label() const;
};

struct VersionMatrix {
  std::vector<VersionMatrixEntry> writers;  // rows: the matrix's producers
  std::vector<VersionMatrixEntry> readers;  // columns: the run's subjects
  // The CPython subjects (native, wasm, embedded) among rows and columns.
  int versions = 0;
  // At least two CPython subjects: a run of one version has no matrix.
  bool present() const { return versions >= 2; }
};

// The writers and readers of the run's version matrix, each sorted by
// version (2.7, 3.6, ..., 3.15; of one series native, then embedded, then
// wasm), the reference last.
VersionMatrix version_matrix(const RunReport& report);

// The "## Version matrix" section of conformance.md; "" when the run has
// fewer than two CPython subjects.
std::string version_matrix_markdown(const RunReport& report);

// conformance.json's "version_matrix": {"writers": [...], "readers": [...]},
// each entry {"subject", "label", "kind", "series"} in the matrix's order
// (the cells are the report's cross.matrix cells); null when the run has
// fewer than two CPython subjects.
nlohmann::json version_matrix_json(const RunReport& report);

// conformance.json's "python_versions": {subject: {"version", "series",
// "source"}} for every subject and matrix producer whose version is known.
nlohmann::json python_versions_json(const RunReport& report);

}  // namespace serialcheck
