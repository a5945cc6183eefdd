#include "harness/report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness/props/coverage.h"
#include "harness/report/version_matrix.h"
#include "harness/subjects/phase_clock.h"
#include "reference/pickle/opcodes.h"

namespace serialcheck {
namespace {

const CellResult* find_cell(const RunReport& r, const std::string& s, const std::string& p) {
  for (const auto& c : r.cells) {
    if (c.subject == s && c.property == p) return &c;
  }
  return nullptr;
}

// Markdown table cells cannot hold '|' or newlines.
std::string table_safe(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// A fenced block whose fence is longer than any backtick run inside.
std::string fenced(const std::string& body, const std::string& lang = "") {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + lang + "\n" + body;
  if (!body.empty() && body.back() != '\n') out += "\n";
  return out + fence + "\n";
}

constexpr std::string_view kMatrixPrefix = "cross.matrix/";

bool is_matrix(const std::string& property) {
  return property.rfind(kMatrixPrefix, 0) == 0;
}

// A property of a pair family (harness/props/gate_props.h, PairFamily):
// "<family>/<producer>", checked on a consumer. A registered property's id
// has no slash.
bool is_pair(const std::string& property) {
  return property.find('/') != std::string::npos;
}

// The properties of the subjects x properties table: all but the pairs'.
std::vector<std::string> plain_properties(const RunReport& r) {
  std::vector<std::string> out;
  for (const auto& p : r.properties) {
    if (!is_pair(p)) out.push_back(p);
  }
  return out;
}

// The pair families other than cross.matrix (which has a table of its own)
// in the order the run lists them, each with the cells that ran: a pair the
// family does not apply to (most of them: a 2.7 writer's cells with 3.X
// readers, a reader that announces fewer protocols than the writer) is only
// counted, its reason among the skipped cells.
struct PairCells {
  std::string family;
  std::vector<const CellResult*> ran;
  int skipped = 0;
};

std::vector<PairCells> other_pairs(const RunReport& r) {
  std::vector<PairCells> out;
  for (const auto& c : r.cells) {
    if (!is_pair(c.property) || is_matrix(c.property)) continue;
    const std::string family = c.property.substr(0, c.property.find('/'));
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const PairCells& p) { return p.family == family; });
    if (it == out.end()) it = out.insert(out.end(), PairCells{family, {}, 0});
    if (c.verdict == Verdict::Skip) {
      ++it->skipped;
    } else {
      it->ran.push_back(&c);
    }
  }
  return out;
}

// Rows of text cells, padded into columns.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i] + std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> matrix_producers(const RunReport& r) {
  std::vector<std::string> out;
  for (const auto& p : r.properties) {
    if (is_matrix(p)) out.push_back(p.substr(kMatrixPrefix.size()));
  }
  return out;
}

std::string cell_label(const CellResult* c) {
  if (c == nullptr) return "-";
  std::string label = "?";
  switch (c->verdict) {
    case Verdict::Pass: label = fmt::format("pass {}", c->cases); break;
    case Verdict::Fail: label = fmt::format("FAIL {}", c->cases); break;
    case Verdict::ExpectedFail: label = fmt::format("xfail {}", c->cases); break;
    case Verdict::UnexpectedPass: label = fmt::format("XPASS {}", c->cases); break;
    case Verdict::Skip: label = "skip"; break;
  }
  if (int discarded = c->discarded_cases(); discarded > 0) {
    label += fmt::format(" ({} discarded)", discarded);
  }
  return label;
}

std::string discards_text(const RunReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r.cells) {
    if (c.discarded_cases() == 0) continue;
    rows.push_back({c.subject, c.property, fmt::format("{} checked", c.cases),
                    "discarded: " + c.discard_summary()});
  }
  if (rows.empty()) return "";
  return "Discarded cases (neither passed nor failed), by reason:\n" + columns(rows);
}

std::string matrix_text(const RunReport& r) {
  const auto properties = plain_properties(r);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"subject"};
  for (const auto& p : properties) head.push_back(p);
  rows.push_back(head);
  for (const auto& s : r.subjects) {
    std::vector<std::string> row = {s};
    for (const auto& p : properties) row.push_back(cell_label(find_cell(r, s, p)));
    rows.push_back(row);
  }
  std::string out = properties.empty() ? "" : columns(rows);
  for (const PairCells& f : other_pairs(r)) {
    std::vector<std::vector<std::string>> pair_rows = {{f.family + ": producer", "consumer", ""}};
    for (const CellResult* c : f.ran) {
      pair_rows.push_back({c->property.substr(f.family.size() + 1), c->subject, cell_label(c)});
    }
    out += (out.empty() ? "" : "\n") +
           (f.ran.empty() ? f.family + ": no pair ran\n" : columns(pair_rows)) +
           fmt::format("({} more pairs skipped)\n", f.skipped);
  }
  const auto producers = matrix_producers(r);
  if (producers.empty()) {
    if (std::string discards = discards_text(r); !discards.empty()) {
      out += (out.empty() ? "" : "\n") + discards;
    }
    return out;
  }
  rows.clear();
  head = {"cross.matrix: producer / consumer"};
  for (const auto& s : r.subjects) head.push_back(s);
  rows.push_back(head);
  for (const auto& producer : producers) {
    std::vector<std::string> row = {producer};
    for (const auto& consumer : r.subjects) {
      row.push_back(
          consumer == producer
              ? "."
              : cell_label(find_cell(r, consumer, std::string(kMatrixPrefix) + producer)));
    }
    rows.push_back(row);
  }
  out += (out.empty() ? "" : "\n") + columns(rows);
  if (std::string discards = discards_text(r); !discards.empty()) out += "\n" + discards;
  return out;
}

// One row of "Where the time went": cells grouped under `key`.
struct TimeRow {
  int cells = 0;
  long cases = 0;
  double seconds = 0;
  std::map<std::string, double> phases;  // "other" included
};

void add_time(TimeRow& row, const CellResult& c) {
  ++row.cells;
  row.cases += c.cases + c.discarded_cases();
  row.seconds += c.seconds;
  for (const auto& [phase, spent] : c.phases) row.phases[phase] += spent;
}

std::string time_table(const std::string& what, const std::vector<std::pair<std::string, TimeRow>>& rows,
                       const std::vector<std::string>& phases) {
  std::string out = fmt::format("| {} | cells | cases | seconds | cases/s |", what);
  for (const auto& p : phases) out += " " + p + " |";
  out += "\n|---|---|---|---|---|";
  for (std::size_t i = 0; i < phases.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& [key, row] : rows) {
    out += fmt::format("| {} | {} | {} | {:.1f} | {} |", key, row.cells, row.cases, row.seconds,
                       row.seconds > 0 ? fmt::format("{:.0f}", static_cast<double>(row.cases) / row.seconds)
                                       : std::string("-"));
    for (const auto& p : phases) {
      auto it = row.phases.find(p);
      const double spent = it == row.phases.end() ? 0 : it->second;
      out += row.seconds > 0 ? fmt::format(" {:.0f}% |", 100 * spent / row.seconds) : " - |";
    }
    out += "\n";
  }
  return out;
}

// The cells' time by subject and by property (a pair family's cells, e.g.
// cross.matrix/<producer>, as one row), each phase as a share of the
// seconds; "" when no cell sent phases.
std::string time_text(const RunReport& r) {
  std::map<std::string, TimeRow> by_subject;
  std::map<std::string, TimeRow> by_property;
  std::set<std::string> seen;
  for (const auto& c : r.cells) {
    if (c.phases.empty()) continue;
    add_time(by_subject[c.subject], c);
    add_time(by_property[c.property.substr(0, c.property.find('/'))], c);
    for (const auto& [phase, spent] : c.phases) seen.insert(phase);
  }
  if (by_subject.empty()) return "";
  std::vector<std::string> phases;
  for (std::string_view p : phase::kPhaseNames) {
    if (seen.count(std::string(p)) > 0) phases.emplace_back(p);
  }
  if (seen.count("other") > 0) phases.emplace_back("other");
  auto slowest_first = [](const std::map<std::string, TimeRow>& m) {
    std::vector<std::pair<std::string, TimeRow>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    return v;
  };
  return time_table("subject", slowest_first(by_subject), phases) + "\n" +
         time_table("property", slowest_first(by_property), phases);
}

std::string markdown_report(const RunReport& r) {
  std::string out = "# serialcheck conformance report\n\n";
  auto counts = r.summary();
  out += fmt::format("**{}**: {} pass, {} fail, {} expected fail, {} unexpected pass, {} skip.\n",
                     r.verdict_word(), counts["pass"], counts["fail"], counts["expected-fail"],
                     counts["unexpected-pass"], counts["skip"]);
  auto why = r.failure_reasons();
  if (!why.empty()) {
    std::string text;
    for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
    out += (r.verdict_word() == "INCOMPLETE" ? "The run is incomplete, not a pass: "
                                             : "The gate fails: ") +
           text + ".\n";
  }
  out += "\n";
  out += fmt::format("Seed {}, {} cases per cell, max size {}, shard {}/{}, {:.1f} s.\n", r.seed,
                     r.cases, r.max_size, r.shard_index, r.shard_count, r.seconds);
  if (!r.repeat_command.empty()) out += fmt::format("Repeat with `{}`.\n", r.repeat_command);
  const auto properties = plain_properties(r);
  out += "\n## Matrix\n\n| subject |";
  for (const auto& p : properties) out += " " + p + " |";
  out += "\n|---|";
  for (std::size_t i = 0; i < properties.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& s : r.subjects) {
    out += "| " + s + " |";
    for (const auto& p : properties) out += " " + cell_label(find_cell(r, s, p)) + " |";
    out += "\n";
  }
  out +=
      "\nCells: pass N (N cases passed), FAIL, xfail (a listed known failure), XPASS (listed "
      "but passed), skip (see below), - (not run in this shard); (M discarded): M more cases "
      "were drawn and discarded, neither passed nor failed (see Discarded cases).\n";
  const auto producers = matrix_producers(r);
  if (!producers.empty()) {
    out +=
        "\n## Producer x consumer (cross.matrix)\n\nEach cell: what the row's subject dumps, "
        "the column's subject loads to an equal value (property `cross.matrix/<producer>` "
        "checked on the consumer).\n\n| producer / consumer |";
    for (const auto& s : r.subjects) out += " " + s + " |";
    out += "\n|---|";
    for (std::size_t i = 0; i < r.subjects.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& producer : producers) {
      out += "| " + producer + " |";
      for (const auto& consumer : r.subjects) {
        out += " " +
               (consumer == producer
                    ? std::string("·")
                    : cell_label(find_cell(r, consumer, std::string(kMatrixPrefix) + producer))) +
               " |";
      }
      out += "\n";
    }
    out += "\n![producer x consumer](matrix.png)\n";
  }
  out += version_matrix_markdown(r);
  for (const PairCells& f : other_pairs(r)) {
    out += fmt::format(
        "\n## Pairs of {}\n\nEach row: property `{}/<producer>` checked on the consumer. "
        "{} more pairs were skipped (the property does not apply to them; each with its reason "
        "under Skipped).\n",
        f.family, f.family, f.skipped);
    if (f.ran.empty()) continue;
    out += "\n| producer | consumer | cell |\n|---|---|---|\n";
    for (const CellResult* c : f.ran) {
      out += fmt::format("| {} | {} | {} |\n", c->property.substr(f.family.size() + 1), c->subject,
                         cell_label(c));
    }
  }

  bool any_discard = false;
  for (const auto& c : r.cells) any_discard |= c.discarded_cases() > 0;
  if (any_discard) {
    out +=
        "\n## Discarded cases\n\nCases a cell drew but neither passed nor failed: the subject "
        "answered `unsupported`, the value holds a kind the subject cannot express "
        "(`inexpressible`), or the property itself set the case aside (`property`).\n\n"
        "| subject | property | checked |";
    for (std::string_view reason : kDiscardReasons) out += fmt::format(" {} |", reason);
    out += "\n|---|---|---|";
    for (std::size_t i = 0; i < kDiscardReasons.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& c : r.cells) {
      if (c.discarded_cases() == 0) continue;
      out += fmt::format("| {} | {} | {} |", c.subject, c.property, c.cases);
      for (std::string_view reason : kDiscardReasons) {
        auto it = c.discarded.find(std::string(reason));
        out += fmt::format(" {} |", it == c.discarded.end() ? 0 : it->second);
      }
      out += "\n";
    }
  }

  bool any_failure = false;
  for (const auto& c : r.cells) any_failure |= c.failed();
  if (any_failure) {
    out += "\n## Failures\n";
    for (const auto& c : r.cells) {
      if (!c.failed()) continue;
      out += fmt::format("\n### {} / {}{}\n\n", c.subject, c.property,
                         c.verdict == Verdict::ExpectedFail ? " (expected)" : "");
      out += fmt::format("- fingerprint: `{}`\n- message: {}\n- after {} cases\n", c.fingerprint,
                         table_safe(c.message), c.cases);
      if (!c.known_reason.empty()) out += "- known failure: " + c.known_reason + "\n";
      if (!c.case_file.empty()) {
        out += fmt::format("- replay: `serialcheck replay {}`\n", c.case_file);
      }
      if (!c.minimal_case.is_null()) {
        out += "\nMinimal case:\n\n" +
               fenced(c.minimal_case.dump(2, ' ', false, nlohmann::json::error_handler_t::replace),
                      "json");
      }
      if (!c.explanation.empty()) out += "\nExplanation:\n\n" + fenced(c.explanation);
    }
  }

  bool any_skip = false;
  for (const auto& c : r.cells) any_skip |= c.verdict == Verdict::Skip;
  if (any_skip) {
    out += "\n## Skipped\n\n| subject | property | reason |\n|---|---|---|\n";
    for (const auto& c : r.cells) {
      if (c.verdict != Verdict::Skip) continue;
      out += fmt::format("| {} | {} | {} |\n", c.subject, c.property, table_safe(c.skip_reason));
    }
  }

  if (!r.lines_to_add.empty() || !r.lines_to_remove.empty()) {
    out += "\n## Known failures\n\n";
    std::string file =
        r.known_failures_file.empty() ? "the known-failures file" : r.known_failures_file;
    if (!r.lines_to_add.empty()) {
      std::string body;
      for (const auto& l : r.lines_to_add) body += l + "\n";
      out += "Fix these failures, or add these lines to " + file + ":\n\n" + fenced(body);
    }
    if (!r.lines_to_remove.empty()) {
      std::string body;
      for (const auto& l : r.lines_to_remove) body += l + "\n";
      out += "\nRemove these lines from " + file + " (they no longer fail that way):\n\n" +
             fenced(body);
    }
  }

  if (std::string time = time_text(r); !time.empty()) {
    out +=
        "\n## Where the time went\n\nEach cell's seconds, as the worker charged them: "
        "`generate` (drawing the case), `record` (announcing each case to the runner), `start` "
        "(making subjects, starting testees), `subject` (inside the subjects' calls), `bridge` "
        "(values to and from Python objects or a testee's JSON), `testee` (waiting for a "
        "testee's answer), `compare` (comparing values), `shrink` (everything after a cell's "
        "first failure), `other` (the rest of the worker's time: RapidCheck, the property's own "
        "logic). "
        "Slowest first; per cell in conformance.json (`time`).\n\n" +
        time;
  }

  out += "\n## Coverage of the reference encoder\n\n";
  if (r.coverage.opcodes.empty()) {
    out += "No reference dumps ran in this run.\n";
  } else {
    out += "| opcode | protocols |\n|---|---|\n";
    for (const auto& info : pickle::opcode_table()) {
      std::string name(info.name);
      auto it = r.coverage.opcodes.find(name);
      if (it == r.coverage.opcodes.end()) continue;
      std::string protos;
      for (int p : it->second) protos += (protos.empty() ? "" : ", ") + std::to_string(p);
      out += "| " + name + " | " + protos + " |\n";
    }
    if (!r.coverage.missing.empty()) {
      std::string names;
      for (const auto& m : r.coverage.missing) names += (names.empty() ? "" : ", ") + m;
      out += fmt::format("\nNever emitted although the encoder can: {}{}.\n", names,
                         r.coverage.enforced ? " (fails the gate)" : " (not enforced in this run)");
    }
    out += "\n" + unemitted_summary() + "\n";
    std::string keys;
    for (const auto& k : r.coverage.header_keys) keys += (keys.empty() ? "" : ", ") + k;
    out += "\nHeader keys written: " + (keys.empty() ? std::string("none") : keys) + ".\n";
  }
  return out;
}

}  // namespace serialcheck
