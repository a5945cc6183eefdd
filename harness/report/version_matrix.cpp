#include "harness/report/version_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "harness/report/markdown_report.h"

namespace serialcheck {
namespace {

constexpr std::string_view kMatrixPrefix = "cross.matrix/";
constexpr std::string_view kEmbedded = "cpython";
constexpr std::string_view kReference = "reference";

bool all_digits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "3.12" of "3.12", "3.12.1", "3.15.0a2"; "" when `v` is not MAJOR.MINOR[...].
std::string series_of(std::string_view v) {
  const std::size_t dot = v.find('.');
  if (dot == std::string_view::npos || !all_digits(v.substr(0, dot))) return "";
  std::size_t end = dot + 1;
  while (end < v.size() && std::isdigit(static_cast<unsigned char>(v[end])) != 0) ++end;
  if (end == dot + 1) return "";
  return std::string(v.substr(0, end));
}

// `cpython-X.Y` or `cpython-X.Y-wasm`: the series and whether it is wasm.
std::optional<std::pair<std::string, bool>> parse_name(std::string_view name) {
  constexpr std::string_view prefix = "cpython-";
  constexpr std::string_view wasm = "-wasm";
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = name.substr(prefix.size());
  bool is_wasm = false;
  if (rest.size() > wasm.size() && rest.substr(rest.size() - wasm.size()) == wasm) {
    is_wasm = true;
    rest.remove_suffix(wasm.size());
  }
  const std::size_t dot = rest.find('.');
  if (dot == std::string_view::npos || !all_digits(rest.substr(0, dot)) ||
      !all_digits(rest.substr(dot + 1))) {
    return std::nullopt;
  }
  return std::make_pair(std::string(rest), is_wasm);
}

std::pair<int, int> series_key(const std::string& series) {
  if (series.empty()) return {1 << 20, 0};  // unknown: after every version
  const std::size_t dot = series.find('.');
  return {std::stoi(series.substr(0, dot)), std::stoi(series.substr(dot + 1))};
}

std::optional<VersionMatrixEntry> entry_for(const RunReport& r, const std::string& subject) {
  VersionMatrixEntry e;
  e.subject = subject;
  if (subject == kReference) {
    e.kind = VersionMatrixEntry::Kind::Reference;
    return e;
  }
  if (subject == kEmbedded) {
    e.kind = VersionMatrixEntry::Kind::Embedded;
  } else if (auto parsed = parse_name(subject)) {
    e.kind = parsed->second ? VersionMatrixEntry::Kind::Wasm : VersionMatrixEntry::Kind::Native;
  } else {
    return std::nullopt;
  }
  if (auto v = subject_python_version(r, subject)) e.series = v->series;
  return e;
}

void sort_entries(std::vector<VersionMatrixEntry>& entries) {
  std::stable_sort(
      entries.begin(), entries.end(), [](const VersionMatrixEntry& a, const VersionMatrixEntry& b) {
        auto key = [](const VersionMatrixEntry& e) {
          const bool ref = e.kind == VersionMatrixEntry::Kind::Reference;
          return std::make_tuple(ref, series_key(e.series), static_cast<int>(e.kind), e.subject);
        };
        return key(a) < key(b);
      });
}

const CellResult* find_cell(const RunReport& r, const std::string& reader,
                            const std::string& writer) {
  const std::string property = std::string(kMatrixPrefix) + writer;
  for (const auto& c : r.cells) {
    if (c.subject == reader && c.property == property) return &c;
  }
  return nullptr;
}

// A cell of the Markdown table: the verdict in words with the cases checked.
std::string short_label(const CellResult* c) {
  if (c == nullptr) return "-";
  switch (c->verdict) {
    case Verdict::Pass: return fmt::format("✓ pass {}", c->cases);
    case Verdict::Fail: return fmt::format("✗ **FAIL** {}", c->cases);
    case Verdict::ExpectedFail: return fmt::format("✗ xfail {}", c->cases);
    case Verdict::UnexpectedPass: return fmt::format("! XPASS {}", c->cases);
    case Verdict::Skip: return c->not_run() ? "not run" : "skip";
  }
  return "?";
}

std::string kind_name(VersionMatrixEntry::Kind k) {
  switch (k) {
    case VersionMatrixEntry::Kind::Native: return "native";
    case VersionMatrixEntry::Kind::Embedded: return "embedded";
    case VersionMatrixEntry::Kind::Wasm: return "wasm";
    case VersionMatrixEntry::Kind::Reference: return "reference";
  }
  return "";
}

nlohmann::json entries_json(const std::vector<VersionMatrixEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries) {
    out.push_back({{"subject", e.subject},
                   {"label", e.label()},
                   {"kind", kind_name(e.kind)},
                   {"series", e.series}});
  }
  return out;
}

}  // namespace

std::optional<SubjectVersion> subject_python_version(const RunReport& r,
                                                     const std::string& subject) {
  if (auto it = r.python_versions.find(subject); it != r.python_versions.end()) {
    if (std::string series = series_of(it->second); !series.empty()) {
      return SubjectVersion{it->second, series, "subject"};
    }
  }
  if (auto parsed = parse_name(subject)) {
    return SubjectVersion{parsed->first, parsed->first, "name"};
  }
#ifdef SERIALCHECK_EMBEDDED_PYTHON_VERSION
  if (subject == kEmbedded) {
    const std::string v = SERIALCHECK_EMBEDDED_PYTHON_VERSION;
    if (std::string series = series_of(v); !series.empty()) {
      return SubjectVersion{v, series, "build"};
    }
  }
#endif
  return std::nullopt;
}

std::string VersionMatrixEntry::label() const {
  switch (kind) {
    case Kind::Native: return series.empty() ? subject : series;
    case Kind::Wasm: return series.empty() ? subject : series + " wasm";
    case Kind::Embedded: return (series.empty() ? subject : series) + " (embedded)";
    case Kind::Reference: return "reference";
  }
  return subject;
}

VersionMatrix version_matrix(const RunReport& r) {
  VersionMatrix m;
  std::map<std::string, bool> cpython;  // the CPython subjects among rows and columns
  for (const auto& producer : matrix_producers(r)) {
    if (auto e = entry_for(r, producer)) {
      m.writers.push_back(*e);
      if (e->kind != VersionMatrixEntry::Kind::Reference) cpython[producer] = true;
    }
  }
  for (const auto& subject : r.subjects) {
    if (auto e = entry_for(r, subject)) {
      m.readers.push_back(*e);
      if (e->kind != VersionMatrixEntry::Kind::Reference) cpython[subject] = true;
    }
  }
  sort_entries(m.writers);
  sort_entries(m.readers);
  m.versions = static_cast<int>(cpython.size());
  return m;
}

std::string version_matrix_markdown(const RunReport& r) {
  const VersionMatrix m = version_matrix(r);
  if (!m.present() || m.writers.empty() || m.readers.empty()) return "";
  std::map<std::string, int> counts;
  std::string table = "| writer \\ reader |";
  for (const auto& reader : m.readers) table += " " + reader.label() + " |";
  table += "\n|---|";
  for (std::size_t i = 0; i < m.readers.size(); ++i) table += "---|";
  table += "\n";
  for (const auto& writer : m.writers) {
    table += "| " + writer.label() + " |";
    for (const auto& reader : m.readers) {
      if (writer.subject == reader.subject) {
        table += " · |";
        continue;
      }
      const CellResult* c = find_cell(r, reader.subject, writer.subject);
      ++counts[c == nullptr ? "-" : c->not_run() ? "not-run" : verdict_name(c->verdict)];
      table += " " + short_label(c) + " |";
    }
    table += "\n";
  }
  std::string out =
      "\n## Version matrix\n\nEach cell: what the row's CPython writes, at every protocol it "
      "writes, the column's CPython reads to an equal value, or refuses naming the protocol "
      "when it cannot read that protocol (property `cross.matrix/<writer>` checked on the "
      "reader), with the cases checked. Rows and columns by version; `wasm` is Pyodide, "
      "`(embedded)` the `cpython` subject.\n\n";
  out += fmt::format(
      "Pairs: {} pass, {} fail, {} expected fail, {} unexpected pass, {} skip, {} not run, {} not "
      "planned.\n\n",
      counts["pass"], counts["fail"], counts["expected-fail"], counts["unexpected-pass"],
      counts["skip"], counts["not-run"], counts["-"]);
  out += table;
  out +=
      "\n✓ pass N: N cases read back equal (or refused by protocol); ✗ **FAIL**: a new "
      "failure (see Failures); ✗ xfail: a listed known failure; ! XPASS: listed but passed; "
      "skip: see Skipped; not run: the time budget ran out; -: a pair this run did not plan; "
      "·: a subject and itself (roundtrip.*).\n";
  out += "\n![version matrix](versions.png)\n";
  return out;
}

nlohmann::json version_matrix_json(const RunReport& r) {
  const VersionMatrix m = version_matrix(r);
  if (!m.present()) return nullptr;
  return {{"writers", entries_json(m.writers)}, {"readers", entries_json(m.readers)}};
}

nlohmann::json python_versions_json(const RunReport& r) {
  nlohmann::json out = nlohmann::json::object();
  auto add = [&](const std::string& subject) {
    if (out.contains(subject)) return;
    if (auto v = subject_python_version(r, subject)) {
      out[subject] = {{"version", v->version}, {"series", v->series}, {"source", v->source}};
    }
  };
  for (const auto& s : r.subjects) add(s);
  for (const auto& p : matrix_producers(r)) add(p);
  return out;
}

}  // namespace serialcheck
