#include "harness/props/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "reference/pickle/disasm.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

std::span<const std::uint8_t> as_span(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

bool memo_put(const std::string& name) {
  return name == "PUT" || name == "BINPUT" || name == "LONG_BINPUT" || name == "MEMOIZE";
}

std::string cell(const pickle::Disassembly& d, std::size_t i) {
  if (i >= d.instructions.size()) {
    if (i == d.instructions.size() && !d.error.empty()) return "!! " + d.error;
    return "";
  }
  const auto& ins = d.instructions[i];
  std::string text =
      fmt::format("{:>6}: {}{}", ins.offset, std::string(std::max(0, ins.depth), ' '), ins.name);
  if (!ins.arg.empty()) text += " " + ins.arg;
  if (text.size() > 56) text = text.substr(0, 53) + "...";
  return text;
}

std::size_t memo_count(const pickle::Disassembly& d, std::size_t upto) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < upto && i < d.instructions.size(); ++i) {
    n += memo_put(d.instructions[i].name) ? 1 : 0;
  }
  return n;
}

}  // namespace

ByteDiff diff_pickles(std::string_view left, std::string_view right, std::string_view left_name,
                      std::string_view right_name) {
  ByteDiff out;
  if (left == right) return out;
  out.same = false;
  auto a = pickle::disassemble(as_span(left));
  auto b = pickle::disassemble(as_span(right));
  std::size_t n = std::min(a.instructions.size(), b.instructions.size());
  std::size_t i = 0;
  while (i < n && a.instructions[i].code == b.instructions[i].code &&
         a.instructions[i].arg == b.instructions[i].arg) {
    ++i;
  }
  std::string what;
  if (i < n) {
    const auto& x = a.instructions[i];
    const auto& y = b.instructions[i];
    out.where = x.code != y.code ? "opcode" : "argument";
    what = fmt::format("{} writes {}{} at offset {}, {} writes {}{} at offset {}", left_name,
                       x.name, x.arg.empty() ? "" : " " + x.arg, x.offset, right_name, y.name,
                       y.arg.empty() ? "" : " " + y.arg, y.offset);
  } else if (a.instructions.size() != b.instructions.size()) {
    bool left_short = a.instructions.size() < b.instructions.size();
    const auto& shorter = left_short ? a : b;
    out.where = shorter.error.empty() ? "length" : "malformed";
    what = fmt::format("{} stops after instruction {}{}", left_short ? left_name : right_name, i,
                       shorter.error.empty() ? "" : " (" + shorter.error + ")");
  } else if (!a.error.empty() || !b.error.empty()) {
    out.where = "malformed";
    what = !a.error.empty() ? fmt::format("{}: {}", left_name, a.error)
                            : fmt::format("{}: {}", right_name, b.error);
  } else {
    out.where = "raw";
    std::size_t k = 0;
    while (k < left.size() && k < right.size() && left[k] == right[k]) ++k;
    what = fmt::format("same instructions, bytes differ at offset {}", k);
  }
  std::size_t memo_a = memo_count(a, i);
  std::size_t memo_b = memo_count(b, i);
  out.summary = fmt::format("pickles differ at instruction {}: {}", i, what);
  std::string text = out.summary + "\n";
  text += fmt::format("memo before the divergence: {} has {} entries, {} has {}\n", left_name,
                      memo_a, right_name, memo_b);
  text += fmt::format("sizes: {} {} bytes, {} {} bytes\n\n", left_name, left.size(), right_name,
                      right.size());
  std::size_t first = i > 8 ? i - 8 : 0;
  std::size_t last = std::max(a.instructions.size(), b.instructions.size()) + 1;
  last = std::min(last, i + 9);
  text += fmt::format("   {:<58}{}\n", left_name, right_name);
  for (std::size_t k = first; k < last; ++k) {
    std::string l = cell(a, k);
    std::string r = cell(b, k);
    if (l.empty() && r.empty()) continue;
    text += fmt::format("{} {:<58}{}\n", k == i ? ">>" : "  ", l, r);
  }
  out.explanation = text;
  return out;
}

std::string short_json(const Node* value, std::size_t limit) {
  std::string text = value == nullptr ? "null" : to_json(value);
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

std::string explain_difference(const Difference& d, const Node* expected, const Node* actual,
                               std::string_view expected_name, std::string_view actual_name) {
  return fmt::format("values differ at {}: {}\n{}: {}\n{}: {}\n", d.path, d.reason, expected_name,
                     short_json(expected), actual_name, short_json(actual));
}

std::string difference_category(const Difference& d) {
  const std::string& r = d.reason;
  if (r.rfind("sharing", 0) == 0) return "sharing";
  if (r.rfind("kind ", 0) == 0) return "kind";
  if (r.find("missing") != std::string::npos || r.find("present") != std::string::npos) {
    return "structure";
  }
  if (r.find(" length ") != std::string::npos || r.find("item count") != std::string::npos) {
    return "length";
  }
  if (r.find("readonly") != std::string::npos) return "readonly";
  return "value";
}

}  // namespace serialcheck
