#include "harness/report/report_files.h"

#include <fstream>
#include <stdexcept>

#include "harness/report/json_report.h"
#include "harness/report/junit_report.h"
#include "harness/report/markdown_report.h"

namespace serialcheck {
namespace {

std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace

std::vector<std::filesystem::path> write_reports(const std::filesystem::path& dir,
                                                 const RunReport& report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  std::vector<std::filesystem::path> written;
  written.push_back(write_file(
      dir / "conformance.json",
      report_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  written.push_back(write_file(dir / "conformance.md", markdown_report(report)));
  written.push_back(write_file(dir / "junit.xml", junit_report(report)));
  return written;
}

}  // namespace serialcheck
