#include "harness/report/junit_report.h"

#include <fmt/format.h>

namespace serialcheck {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') break;
        out.push_back(ch);
    }
  }
  return out;
}

std::string junit_report(const RunReport& report) {
  int failures = 0;
  int skipped = 0;
  for (const auto& c : report.cells) {
    if (c.verdict == Verdict::Fail || c.verdict == Verdict::UnexpectedPass) ++failures;
    if (c.verdict == Verdict::Skip) ++skipped;
  }
  // A partial run is one more failed test case, so that no test-report view
  // shows it as green.
  const int not_run = report.cells_not_run();
  const std::size_t tests = report.cells.size() + (not_run > 0 ? 1 : 0);
  if (not_run > 0) ++failures;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"serialcheck\" tests=\"{0}\" failures=\"{1}\" skipped=\"{2}\" "
      "time=\"{3:.3f}\">\n"
      "  <testsuite name=\"serialcheck.gate\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" "
      "skipped=\"{2}\" time=\"{3:.3f}\">\n",
      tests, failures, skipped, report.seconds);
  out += fmt::format(
      "    <properties>\n"
      "      <property name=\"seed\" value=\"{}\"/>\n"
      "      <property name=\"cases\" value=\"{}\"/>\n"
      "      <property name=\"shard\" value=\"{}/{}\"/>\n"
      "      <property name=\"complete\" value=\"{}\"/>\n"
      "    </properties>\n",
      report.seed, report.cases, report.shard_index, report.shard_count,
      report.complete() ? "true" : "false");
  if (not_run > 0) {
    std::string why = fmt::format("only {} of {} cells ran: the time budget ran out before {} started",
                                  report.cells.size() - static_cast<std::size_t>(not_run),
                                  report.cells.size(), not_run);
    out += fmt::format(
        "    <testcase classname=\"serialcheck\" name=\"run.complete\" time=\"0.000\">\n"
        "      <failure type=\"incomplete\" message=\"{0}\">{0}: the run is partial, not a "
        "pass</failure>\n    </testcase>\n",
        xml_escape(why));
  }
  for (const auto& c : report.cells) {
    out += fmt::format("    <testcase classname=\"serialcheck.{}\" name=\"{}\" time=\"{:.3f}\"",
                       xml_escape(c.subject), xml_escape(c.property), c.seconds);
    switch (c.verdict) {
      case Verdict::Pass: out += "/>\n"; break;
      case Verdict::Skip:
        out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                           xml_escape(c.skip_reason));
        break;
      case Verdict::ExpectedFail:
        out += fmt::format(
            ">\n      <system-out>expected failure {}: {}\n{}</system-out>\n"
            "    </testcase>\n",
            xml_escape(c.fingerprint), xml_escape(c.known_reason), xml_escape(c.message));
        break;
      case Verdict::UnexpectedPass:
        out += fmt::format(
            ">\n      <failure type=\"unexpected-pass\" message=\"{}\">listed in the known "
            "failures ({}) but passed {} cases: remove the entry</failure>\n    </testcase>\n",
            xml_escape("unexpected pass: " + c.known_reason), xml_escape(c.known_reason), c.cases);
        break;
      case Verdict::Fail: {
        std::string body = c.message + "\n";
        if (!c.explanation.empty()) body += c.explanation + "\n";
        if (!c.minimal_case.is_null()) body += "minimal case: " + c.minimal_case.dump() + "\n";
        if (!c.case_file.empty()) body += "replay: serialcheck replay " + c.case_file + "\n";
        out += fmt::format(
            ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
            xml_escape(c.fingerprint), xml_escape(c.fingerprint + ": " + c.message),
            xml_escape(body));
        break;
      }
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace serialcheck
