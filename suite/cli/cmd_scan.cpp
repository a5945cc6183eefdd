// `serialcheck scan`: what pickles would import, call and hand to
// persistent_load, checked against an allowlist, without loading them.
// docs/cli.md and docs/safe-loading.md describe the output and the policy.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/policy.h"
#include "reference/pickle/scan.h"
#include "suite/cli/commands.h"

namespace serialcheck::cli {
namespace {

struct ScanOpts {
  std::vector<std::string> files;
  bool json = false;
  std::vector<std::string> allowlist_files;
  std::vector<std::string> allow;
  bool no_default = false;
  bool persistent_ids = false;
  bool print_allowlist = false;
  int max_protocol = pickle::kHighestProtocol;
};

// One pickle of a file; offsets (its own, its entries', its error's) are
// offsets in the file.
struct PickleScan {
  std::size_t offset = 0;
  pickle::ScanResult result;
};

// A file holds a sequence of pickles (what repeated pickle.dump writes):
// each is scanned from where the one before it stopped, until the end of
// the file or the first that is not a well-formed pickle.
struct FileScan {
  std::string file;
  bool readable = false;
  std::string read_error;  // the file could not be read
  std::size_t size = 0;
  std::vector<PickleScan> pickles;

  // The pickle that failed to read: the first one (the file is malformed)
  // or a later one (bytes after a pickle are not a pickle).
  const PickleScan* failed() const {
    return !pickles.empty() && pickles.back().result.error ? &pickles.back() : nullptr;
  }
  std::size_t forbidden() const {
    std::size_t n = 0;
    for (const auto& p : pickles) n += p.result.forbidden();
    return n;
  }
  // Bytes read by the pickles that ended in STOP.
  std::size_t consumed() const {
    std::size_t n = 0;
    for (const auto& p : pickles) n += p.result.consumed;
    return n;
  }
  bool clean() const { return readable && failed() == nullptr && forbidden() == 0; }
};

FileScan scan_file(const std::string& path, const pickle::Allowlist& allowlist,
                   const pickle::ScanOptions& options) {
  FileScan f;
  f.file = path;
  std::string data;
  try {
    data = read_input(path);
  } catch (const InputError& e) {
    f.read_error = e.what();
    return f;
  }
  f.readable = true;
  f.size = data.size();
  const std::span<const std::uint8_t> all(reinterpret_cast<const std::uint8_t*>(data.data()),
                                          data.size());
  std::size_t at = 0;
  // Every pickle consumes at least its STOP byte, so this ends.
  do {
    PickleScan p;
    p.offset = at;
    p.result = pickle::scan(all.subspan(at), allowlist, options);
    for (auto& e : p.result.entries) e.offset += at;
    if (p.result.error) {
      const pickle::PickleError e = *p.result.error;  // a copy: emplace ends the old one
      p.result.error.emplace(e.kind(), e.offset() + at, e.detail());
    }
    const bool stop = p.result.error.has_value();
    at += p.result.consumed;
    f.pickles.push_back(std::move(p));
    if (stop) break;
  } while (at < data.size());
  return f;
}

nlohmann::json entry_json(const pickle::ScanEntry& e, std::size_t pickle_offset) {
  nlohmann::json j;
  j["offset"] = e.offset;
  j["pickle"] = pickle_offset;
  j["kind"] = std::string(pickle::scan_kind_name(e.kind));
  j["opcode"] = e.opcode;
  if (!e.module.empty()) {
    j["module"] = e.module;
    j["qualname"] = e.qualname;
  }
  if (!e.written.empty()) j["written"] = e.written;
  j["name"] = e.name;
  j["allowed"] = e.allowed;
  return j;
}

nlohmann::json error_json(const pickle::PickleError& e) {
  return {{"kind", std::string(pickle::error_kind_name(e.kind()))},
          {"offset", e.offset()},
          {"message", e.detail()}};
}

// The file's totals first (as when a file held one pickle), then each pickle.
nlohmann::json file_json(const FileScan& f) {
  nlohmann::json j;
  j["file"] = f.file;
  if (!f.readable) {
    j["error"] = {{"kind", "unreadable"}, {"message", f.read_error}};
    j["entries"] = nlohmann::json::array();
    j["pickles"] = nlohmann::json::array();
    j["forbidden"] = 0;
    return j;
  }
  j["size"] = f.size;
  j["protocol"] = f.pickles.front().result.protocol;
  j["consumed"] = f.consumed();
  const PickleScan* failed = f.failed();
  j["error"] = failed ? error_json(*failed->result.error) : nlohmann::json(nullptr);
  nlohmann::json entries = nlohmann::json::array();
  nlohmann::json pickles = nlohmann::json::array();
  for (const auto& p : f.pickles) {
    for (const auto& e : p.result.entries) entries.push_back(entry_json(e, p.offset));
    pickles.push_back({{"offset", p.offset},
                       {"consumed", p.result.consumed},
                       {"protocol", p.result.protocol},
                       {"entries", p.result.entries.size()},
                       {"forbidden", p.result.forbidden()},
                       {"error", p.result.error ? error_json(*p.result.error)
                                                : nlohmann::json(nullptr)}});
  }
  j["entries"] = std::move(entries);
  j["pickles"] = std::move(pickles);
  j["forbidden"] = f.forbidden();
  return j;
}

void print_table(const std::vector<FileScan>& scans) {
  std::size_t file_w = 4, name_w = 4, opcode_w = 6;
  for (const auto& f : scans) {
    file_w = std::max(file_w, f.file.size());
    for (const auto& p : f.pickles) {
      for (const auto& e : p.result.entries) {
        name_w = std::max(name_w, e.name.size());
        opcode_w = std::max(opcode_w, e.opcode.size());
      }
    }
  }
  name_w = std::min<std::size_t>(name_w, 60);
  std::cout << fmt::format("{:<{}}  {:>8}  {:<13}  {:<{}}  {:<{}}  {}\n", "FILE", file_w, "OFFSET",
                           "KIND", "OPCODE", opcode_w, "NAME", name_w, "ALLOWED");
  for (const auto& f : scans) {
    for (const auto& p : f.pickles) {
      for (const auto& e : p.result.entries) {
        std::string name = e.name;
        if (!e.written.empty()) name += " (written " + e.written + ")";
        std::cout << fmt::format("{:<{}}  {:>8}  {:<13}  {:<{}}  {:<{}}  {}\n", f.file, file_w,
                                 e.offset, pickle::scan_kind_name(e.kind), e.opcode, opcode_w,
                                 name, name_w, e.allowed ? "yes" : "NO");
      }
    }
  }
}

std::string counts_text(const pickle::ScanResult& r) {
  std::size_t counts[3] = {0, 0, 0};
  for (const auto& e : r.entries) ++counts[static_cast<int>(e.kind)];
  return fmt::format("protocol {}, {} globals, {} calls, {} persistent ids, {} not allowed",
                     r.protocol, counts[0], counts[1], counts[2], r.forbidden());
}

// What went wrong with the pickle `p` of `f`, for the summary and stderr:
// the first pickle is malformed; bytes after a pickle are not a pickle.
std::string failure_text(const FileScan& f, const PickleScan& p) {
  const std::string error = at_byte(*p.result.error);
  if (p.offset == 0) return "malformed: " + error;
  return fmt::format("{} bytes after the pickle ending at byte {} are not a pickle ({})",
                     f.size - p.offset, p.offset, error);
}

void print_summaries(const std::vector<FileScan>& scans) {
  std::cout << "\n";
  for (const auto& f : scans) {
    if (!f.readable) {
      std::cout << fmt::format("{}: unreadable\n", f.file);
      continue;
    }
    const PickleScan* failed = f.failed();
    if (f.pickles.size() == 1) {
      const PickleScan& p = f.pickles.front();
      std::cout << f.file << ": " << counts_text(p.result)
                << (failed ? "; " + failure_text(f, *failed) : "") << "\n";
      continue;
    }
    // A line for each pickle with something to say; the total for all.
    for (const auto& p : f.pickles) {
      if (p.result.entries.empty()) continue;
      std::cout << fmt::format("{}: pickle at byte {}: {}\n", f.file, p.offset,
                               counts_text(p.result));
    }
    const std::size_t whole = f.pickles.size() - (failed ? 1 : 0);
    std::cout << fmt::format("{}: {} {}, {} not allowed{}\n", f.file, whole,
                             whole == 1 ? "pickle" : "pickles", f.forbidden(),
                             failed ? "; " + failure_text(f, *failed) : "");
  }
}

int run_scan(const ScanOpts& o) {
  pickle::Allowlist allowlist;
  if (!o.no_default) allowlist = pickle::default_allowlist();
  try {
    for (const auto& path : o.allowlist_files) allowlist.add_file(path);
    for (const auto& entry : o.allow) allowlist.allow(std::string_view(entry));
  } catch (const pickle::AllowlistError& e) {
    std::cerr << "serialcheck: " << e.what() << "\n";
    return kExitUsage;
  }
  allowlist.persistent_ids = o.persistent_ids;

  if (o.print_allowlist) {
    for (const auto& [module, qualname] : allowlist.entries()) {
      // The explicit form when the qualname is nested, so the output reads back.
      std::cout << module << (qualname.find('.') == std::string::npos ? "." : ":") << qualname
                << "\n";
    }
    if (o.files.empty()) return kExitOk;
  }
  if (o.files.empty()) {
    std::cerr << "serialcheck: scan needs at least one FILE (see serialcheck scan --help)\n";
    return kExitUsage;
  }

  pickle::ScanOptions options;
  options.max_protocol = o.max_protocol;
  std::vector<FileScan> scans;
  for (const auto& path : o.files) scans.push_back(scan_file(path, allowlist, options));

  if (o.json) {
    nlohmann::json out;
    out["allowlist"] = {{"default", !o.no_default},
                        {"entries", allowlist.size()},
                        {"persistent_ids", allowlist.persistent_ids}};
    nlohmann::json files = nlohmann::json::array();
    bool clean = true;
    for (const auto& f : scans) {
      files.push_back(file_json(f));
      clean = clean && f.clean();
    }
    out["files"] = std::move(files);
    out["clean"] = clean;
    // Names may hold lone surrogates (valid in a pickle str, not in JSON text).
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_table(scans);
    print_summaries(scans);
  }
  std::cout.flush();

  // One line on stderr per problem, then the exit code.
  std::size_t forbidden = 0, forbidden_files = 0;
  bool bad_file = false;
  for (const auto& f : scans) {
    if (!f.readable) {
      bad_file = true;
      fail(f.read_error);
      continue;
    }
    if (const PickleScan* failed = f.failed()) {
      bad_file = true;
      fail(f.file + ": " + failure_text(f, *failed));
    }
    if (const std::size_t n = f.forbidden(); n != 0) {
      forbidden += n;
      ++forbidden_files;
    }
  }
  if (forbidden != 0) {
    fail(fmt::format("{} {} outside the allowlist in {} {}", forbidden,
                     forbidden == 1 ? "entry is" : "entries are", forbidden_files,
                     forbidden_files == 1 ? "file" : "files"));
  }
  return bad_file || forbidden != 0 ? kExitFailed : kExitOk;
}

}  // namespace

void add_scan(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "scan",
      "List the globals, calls and persistent ids of pickles, checked against an allowlist");
  auto o = std::make_shared<ScanOpts>();
  cmd->add_option("FILE", o->files, "Pickle files ('-' for stdin)");
  cmd->add_flag("--json", o->json, "Write JSON (one object for all files) instead of a table");
  cmd->add_option("--allowlist", o->allowlist_files,
                  "Add the entries of a file: one module.qualname per line, # comments "
                  "(repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--allow", o->allow,
                  "Add one entry, module.qualname or module:qualname (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-default-allowlist", o->no_default,
                "Start from an empty list instead of the default one");
  cmd->add_flag("--allow-persistent-ids", o->persistent_ids,
                "Allow PERSID/BINPERSID (their values go to the loader's persistent_load)");
  cmd->add_flag("--print-allowlist", o->print_allowlist,
                "Print the effective allowlist, one entry per line (FILEs then optional)");
  cmd->add_option("--max-protocol", o->max_protocol, "Act as a loader that knows protocols up to N")
      ->check(CLI::Range(0, pickle::kHighestProtocol));
  cmd->footer(
      "Nothing is loaded or executed: the reference decoder reads every pickle of each file\n"
      "(a stream written by repeated pickle.dump holds several; bytes after a pickle that\n"
      "are not one are an error) and reports\n"
      "every global (GLOBAL, INST, STACK_GLOBAL with its exact names, EXT*), every call\n"
      "(REDUCE, NEWOBJ, NEWOBJ_EX, INST, OBJ, BUILD) and every persistent id, with its byte\n"
      "offset and whether the allowlist allows it. The default allowlist holds builtin\n"
      "containers, datetime, numpy arrays and the torch tensor forms; it does not hold\n"
      "cloudpickle's subimport, which imports modules (docs/safe-loading.md).\n"
      "Exit 0 when every entry of every file is allowed, 1 when one is not or a file is\n"
      "malformed or unreadable (one line each on stderr), 2 on usage errors, a bad\n"
      "allowlist entry or an unreadable allowlist file.");
  cmd->callback([&action, o] { action = [o] { return run_scan(*o); }; });
}

}  // namespace serialcheck::cli
