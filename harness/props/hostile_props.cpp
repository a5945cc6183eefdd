#include "harness/props/hostile_props.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "harness/props/value_tools.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/policy.h"
#include "reference/pickle/scan.h"

namespace serialcheck::props {

namespace {

using Name = std::pair<std::string, std::string>;

std::string describe(const pickle::PickleError& e) {
  return fmt::format("{} at offset {}: {}", pickle::error_kind_name(e.kind()), e.offset(),
                     e.detail());
}

std::string dotted(const Name& n) {
  return n.first + "." + n.second;
}

// The global the encoder writes for a Global node at `protocol`, the way the
// decoder (and so the scan) reads it back: nested names below protocol 4
// are getattr(parent, last), so the stream names the outermost parent; the
// three types of singletons are type(None), type(...), type(NotImplemented).
Name written_name(const Node* g, int protocol) {
  const std::string module(g->payload());
  if (module == "types" &&
      (g->name() == "NoneType" || g->name() == "EllipsisType" || g->name() == "NotImplementedType")) {
    return {"builtins", "type"};
  }
  if (protocol < 4) {
    if (const std::size_t dot = g->name().find('.'); dot != std::string::npos) {
      return {module, g->name().substr(0, dot)};
    }
  }
  return {module, g->name()};
}

bool is_newobj_callable(const Node* g) {
  return g->payload() == "copyreg" && (g->name() == "__newobj__" || g->name() == "__newobj_ex__");
}

// Decodes with `allowlist`; nullopt when it succeeds, else the error.
std::optional<pickle::PickleError> decode_with(const std::string& bytes,
                                               const pickle::Allowlist& allowlist) {
  pickle::DecodeOptions options;
  options.allowlist = &allowlist;
  options.stand_in_buffers = true;
  Graph g;
  try {
    pickle::decode(bytes, g, options);
  } catch (const pickle::PickleError& e) {
    return e;
  }
  return std::nullopt;
}

CheckResult scan_complete_checked(const Node* value, int protocol, std::size_t pick) {
  // The value's globals and persistent ids.
  std::set<Name> expected;
  std::size_t pids = 0;
  bool has_buffer = false;
  for (const Node* n : reachable_pickled(value)) {
    if (n->kind == Kind::PersId) ++pids;
    if (n->kind == Kind::PickleBuffer) has_buffer = true;
    if (n->kind != Kind::Global) continue;
    if (protocol >= 2 && is_newobj_callable(n)) continue;
    expected.insert(written_name(n, protocol));
  }
  if (expected.empty()) return CheckResult::skip("the value holds no global");
  if (has_buffer && protocol < 5) {
    return CheckResult::skip("a PickleBuffer cannot be written below protocol 5");
  }
  pickle::EncodeOptions eo;
  eo.protocol = protocol;
  std::string bytes;
  try {
    bytes = pickle::encode(value, eo).bytes;
  } catch (const pickle::PickleError& e) {
    return CheckResult::skip("the encoder cannot write this value: " + describe(e));
  }

  // Scan with an empty list: everything is reported, nothing allowed.
  const pickle::Allowlist none;
  const pickle::ScanResult s = pickle::scan(bytes, none);
  if (s.error)
    return CheckResult::fail("the scan of a valid encoding failed: " + describe(*s.error));
  if (s.consumed != bytes.size()) {
    return CheckResult::fail(
        fmt::format("the scan stopped at byte {} of {}", s.consumed, bytes.size()));
  }
  std::vector<Name> order;  // distinct global names, in stream order
  std::set<Name> found;
  std::size_t pid_entries = 0;
  std::optional<std::size_t> first_pid;
  for (const pickle::ScanEntry& e : s.entries) {
    if (e.kind == pickle::ScanEntry::Kind::PersistentId) {
      ++pid_entries;
      if (!first_pid) first_pid = e.offset;
    }
    if (e.allowed && e.kind != pickle::ScanEntry::Kind::Call) {
      return CheckResult::fail(
          fmt::format("entry at {} ({}) is allowed by an empty allowlist", e.offset, e.name));
    }
    if (e.kind != pickle::ScanEntry::Kind::Global) continue;
    Name n{e.module, e.qualname};
    if (found.insert(n).second) order.push_back(n);
  }
  for (const Name& n : expected) {
    if (found.count(n) == 0) {
      return CheckResult::fail(
          fmt::format("global {} of the value is missing from the scan of its "
                      "protocol {} encoding",
                      dotted(n), protocol));
    }
  }
  // At least: a tuple on a cycle has its items written twice (the first
  // copy is popped), so a persistent id inside it is read twice.
  if (pid_entries < pids) {
    return CheckResult::fail(
        fmt::format("the value holds {} persistent ids, the scan reports {}", pids, pid_entries));
  }

  // Policy: every name found but one.
  const Name omitted = order[pick % order.size()];
  pickle::Allowlist all;
  for (const Name& n : order) all.allow(n.first, n.second);
  all.persistent_ids = true;
  pickle::Allowlist all_but_one;
  for (const Name& n : order) {
    if (n != omitted) all_but_one.allow(n.first, n.second);
  }
  all_but_one.persistent_ids = true;
  std::size_t first_offset = 0;
  for (const pickle::ScanEntry& e : s.entries) {
    if (e.kind == pickle::ScanEntry::Kind::Global && Name{e.module, e.qualname} == omitted) {
      first_offset = e.offset;
      break;
    }
  }
  if (auto err = decode_with(bytes, all); err) {
    return CheckResult::fail("decoding with every scanned global allowed failed: " +
                             describe(*err));
  }
  const auto err = decode_with(bytes, all_but_one);
  if (!err) {
    return CheckResult::fail("decoding with an allowlist that omits " + dotted(omitted) +
                             " succeeded");
  }
  if (err->kind() != pickle::ErrorKind::ForbiddenGlobal || err->offset() != first_offset ||
      err->detail().find(dotted(omitted)) == std::string::npos) {
    return CheckResult::fail(
        fmt::format("decoding with an allowlist that omits {} (first named at byte {}) threw {}",
                    dotted(omitted), first_offset, describe(*err)));
  }
  const pickle::ScanResult s2 = pickle::scan(bytes, all_but_one);
  for (const pickle::ScanEntry& e : s2.entries) {
    const bool is_omitted =
        e.kind == pickle::ScanEntry::Kind::Global && Name{e.module, e.qualname} == omitted;
    if (e.kind == pickle::ScanEntry::Kind::Global && e.allowed == is_omitted) {
      return CheckResult::fail(fmt::format("scan against the list without {} marks {} at {} as {}",
                                           dotted(omitted), e.name, e.offset,
                                           e.allowed ? "allowed" : "not allowed"));
    }
  }
  if (s2.clean()) return CheckResult::fail("scan against a list that omits a global is clean");

  if (pids != 0) {
    all.persistent_ids = false;
    const auto perr = decode_with(bytes, all);
    if (!perr || perr->kind() != pickle::ErrorKind::ForbiddenPersistentId ||
        perr->offset() != *first_pid) {
      return CheckResult::fail(
          fmt::format("decoding with persistent ids not allowed should fail at byte {}, got {}",
                      *first_pid, perr ? describe(*perr) : std::string("success")));
    }
  }
  return CheckResult::pass();
}

}  // namespace

std::string stats_outside_bounds(const pickle::DecodeStats& st, const pickle::Limits& limits) {
  const std::size_t n = st.input_size;
  std::string out;
  auto over = [&out](std::string_view what, std::size_t got, std::size_t bound) {
    if (got > bound) out += fmt::format("{} {} > bound {}; ", what, got, bound);
  };
  over("steps", st.steps, n);
  over("allocated", st.allocated, limits.alloc_per_input_byte * n + limits.alloc_constant);
  over("work", st.work,
       pickle::kWorkPerInputByte * n + pickle::kWorkPerAllocatedByte * st.allocated);
  over("nodes", st.nodes, pickle::kNodesPerStep * st.steps);
  over("max_stack", st.max_stack, st.steps);
  return out;
}

CheckResult decode_bounded(std::span<const std::uint8_t> data, const pickle::Limits& limits) {
  pickle::DecodeOptions options;
  options.limits = limits;
  options.stand_in_buffers = true;
  pickle::DecodeStats stats;
  options.stats = &stats;
  Graph g;
  std::string outcome = "decoded";
  try {
    pickle::decode(data, g, options);
  } catch (const pickle::PickleError& e) {
    if (e.offset() > data.size()) {
      return CheckResult::fail(fmt::format("error offset {} lies beyond the {}-byte input ({})",
                                           e.offset(), data.size(), describe(e)));
    }
    outcome = describe(e);
  } catch (const std::exception& e) {
    return CheckResult::fail(std::string("decode threw a non-PickleError exception: ") + e.what());
  } catch (...) {
    return CheckResult::fail("decode threw a non-standard exception");
  }
  if (stats.input_size != data.size()) {
    return CheckResult::fail(fmt::format("stats report {} input bytes for a {}-byte input",
                                         stats.input_size, data.size()));
  }
  if (std::string why = stats_outside_bounds(stats, limits); !why.empty()) {
    return CheckResult::fail(fmt::format("{} ({}; steps {}, work {}, allocated {}, nodes {})", why,
                                         outcome, stats.steps, stats.work, stats.allocated,
                                         stats.nodes));
  }
  return CheckResult::pass();
}

CheckResult decode_bounded(std::string_view data, const pickle::Limits& limits) {
  return decode_bounded(std::span<const std::uint8_t>(
                            reinterpret_cast<const std::uint8_t*>(data.data()), data.size()),
                        limits);
}

CheckResult scan_complete(const Node* value, int protocol, std::size_t pick) {
  try {
    return scan_complete_checked(value, protocol, pick);
  } catch (const std::exception& e) {
    return CheckResult::fail(std::string("scan.complete threw: ") + e.what());
  }
}

}  // namespace serialcheck::props
