#include "harness/gen/malformed.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include "reference/pickle/disasm.h"
#include "reference/pickle/opcodes.h"

namespace serialcheck::gen {
namespace {

using pickle::ArgKind;
using pickle::Op;
using pickle::OpInfo;

// One instruction of the valid stream: [begin, end) with its row.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  const OpInfo* info = nullptr;
  std::string_view name() const { return info->name; }
  std::size_t arg() const { return begin + 1; }
};

// Opcodes that take something off the stack or need a mark below them: run
// first, on an empty stack, each must fail.
bool pops(Op op) {
  switch (op) {
    case Op::POP:
    case Op::POP_MARK:
    case Op::DUP:
    case Op::APPEND:
    case Op::APPENDS:
    case Op::SETITEM:
    case Op::SETITEMS:
    case Op::ADDITEMS:
    case Op::TUPLE:
    case Op::TUPLE1:
    case Op::TUPLE2:
    case Op::TUPLE3:
    case Op::LIST:
    case Op::DICT:
    case Op::FROZENSET:
    case Op::REDUCE:
    case Op::BUILD:
    case Op::NEWOBJ:
    case Op::NEWOBJ_EX:
    case Op::OBJ:
    case Op::INST:
    case Op::STACK_GLOBAL:
    case Op::PUT:
    case Op::BINPUT:
    case Op::LONG_BINPUT:
    case Op::MEMOIZE:
    case Op::BINPERSID:
    case Op::READONLY_BUFFER: return true;
    default: return false;
  }
}

// Never put in place of another opcode: a persistent id asks the loader's
// application for an object, and an extension code asks copyreg's registry;
// neither says anything about the stream's form.
bool substitutable(Op op) {
  switch (op) {
    case Op::PERSID:
    case Op::BINPERSID:
    case Op::EXT1:
    case Op::EXT2:
    case Op::EXT4: return false;
    default: return true;
  }
}

// The next opcode in byte order with the same argument layout, cycling; or
// nullptr when none other has it.
const OpInfo* same_layout_successor(const OpInfo& row) {
  const auto table = pickle::opcode_table();
  std::size_t at = 0;
  while (at < table.size() && table[at].op != row.op) ++at;
  for (std::size_t k = 1; k < table.size(); ++k) {
    const OpInfo& next = table[(at + k) % table.size()];
    if (next.arg == row.arg && next.op != row.op && substitutable(next.op)) return &next;
  }
  return nullptr;
}

// The width of a length or count field after the opcode, and whether the
// loader reads it as signed; nullopt for opcodes without one.
struct LengthField {
  int width = 0;
  bool is_signed = false;
};

std::optional<LengthField> length_field(const OpInfo& row) {
  if (row.op == Op::FRAME) return LengthField{8, false};
  switch (row.arg) {
    case ArgKind::Bytes1:
    case ArgKind::Long1: return LengthField{1, false};
    case ArgKind::Bytes4: return LengthField{4, row.op == Op::BINSTRING};
    case ArgKind::Long4: return LengthField{4, true};
    case ArgKind::Bytes8: return LengthField{8, false};
    default: return std::nullopt;
  }
}

std::uint64_t read_le(std::string_view s, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = width; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(s[at + i]);
  return v;
}

void write_le(std::string& s, std::size_t at, int width, std::uint64_t v) {
  for (int i = 0; i < width; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

bool is_text(Op op) {
  return op == Op::BINUNICODE || op == Op::SHORT_BINUNICODE || op == Op::BINUNICODE8;
}

bool is_decimal_line(ArgKind arg) {
  return arg == ArgKind::DecimalNlShort || arg == ArgKind::DecimalNlLong ||
         arg == ArgKind::FloatNl || arg == ArgKind::DecimalNlMemo;
}

class Maker {
 public:
  explicit Maker(std::string_view valid) : valid_(valid) {}

  std::vector<MalformedStream> run(const std::vector<Span>& spans) {
    const std::size_t first_body =
        !spans.empty() && spans.front().info->op == Op::PROTO ? spans.front().end : 0;
    for (const Span& s : spans) {
      const Op op = s.info->op;
      const bool stop = op == Op::STOP;
      // Cut inside the instruction: halfway through its argument, or right
      // after an opcode that has none (STOP: the fixed mutations cut it).
      if (!stop) {
        const std::size_t arg_size = s.end - s.arg();
        const std::size_t cut = arg_size > 0 ? s.arg() + arg_size / 2 : s.arg();
        add("truncate", s, fmt::format("cut at byte {}", cut), std::string(valid_.substr(0, cut)));
        std::string deleted(valid_);
        deleted.erase(s.begin, s.end - s.begin);
        add("delete", s, "deleted", std::move(deleted));
        std::string doubled(valid_);
        doubled.insert(s.end, valid_.substr(s.begin, s.end - s.begin));
        add("duplicate", s, "run twice", std::move(doubled));
      }
      if (pops(op)) {
        std::string early(valid_);
        early.insert(first_body, valid_.substr(s.begin, s.end - s.begin));
        add("empty-stack", s,
            fmt::format("run first, at byte {}, on an empty stack with no mark", first_body),
            std::move(early));
      }
      if (const OpInfo* other = same_layout_successor(*s.info)) {
        std::string swapped(valid_);
        swapped[s.begin] = static_cast<char>(other->op);
        add("substitute", s, fmt::format("replaced by {}", other->name), std::move(swapped));
      }
      lengths(s);
      text(s);
      memo(s);
    }
    // STOP with two items on the stack: None pushed just before it.
    if (!spans.empty() && spans.back().info->op == Op::STOP) {
      const Span& s = spans.back();
      std::string two(valid_);
      two.insert(s.begin, "N");
      add("two-items-at-stop", s, "None pushed before it, so two items are left", std::move(two));
    }
    return std::move(out_);
  }

 private:
  void add(std::string mutation, const Span& s, std::string what, std::string bytes) {
    if (!made_.insert({mutation, std::string(s.name())}).second) return;
    if (bytes == valid_) return;
    MalformedStream m;
    m.mutation = std::move(mutation);
    m.opcode = std::string(s.name());
    m.offset = s.begin;
    m.detail = fmt::format("{} at byte {}: {}", m.opcode, s.begin, what);
    m.bytes = std::move(bytes);
    out_.push_back(std::move(m));
  }

  // A length or count that claims more than the stream holds, the most its
  // field can say, a negative one where the loader reads it signed, and one
  // byte short (the rest of the argument is read as opcodes).
  void lengths(const Span& s) {
    const std::optional<LengthField> f = length_field(*s.info);
    if (!f || s.arg() + f->width > s.end) return;
    const std::uint64_t was = read_le(valid_, s.arg(), f->width);
    const std::uint64_t max_unsigned =
        f->width == 8 ? std::numeric_limits<std::uint64_t>::max() : (1ull << (8 * f->width)) - 1;
    const std::uint64_t most = f->is_signed ? max_unsigned >> 1 : max_unsigned;
    const std::uint64_t remaining = valid_.size() - (s.arg() + f->width);
    const auto set = [&](const char* mutation, std::uint64_t v, std::string what) {
      std::string changed(valid_);
      write_le(changed, s.arg(), f->width, v);
      add(mutation, s, fmt::format("its length {} set to {}", was, what), std::move(changed));
    };
    if (remaining + 1 <= most) {
      set("length-past-end", remaining + 1,
          fmt::format("{}, one more byte than the stream holds after it", remaining + 1));
    }
    set("length-huge", most, fmt::format("{}, the most its {}-byte field holds", most, f->width));
    if (f->is_signed) {
      set("length-negative", most + 1, fmt::format("{}", -static_cast<std::int64_t>(most) - 1));
    }
    if (was > 0) set("length-short", was - 1, fmt::format("{}, one byte short", was - 1));
  }

  // Text that is not what its opcode's encoding allows.
  void text(const Span& s) {
    const Op op = s.info->op;
    if (is_text(op)) {
      const std::optional<LengthField> f = length_field(*s.info);
      const std::size_t payload = s.arg() + f->width;
      if (payload < s.end) {
        std::string changed(valid_);
        changed[s.end - 1] = '\xff';
        add("utf8-invalid", s, "its text's last byte set to ff, which is never UTF-8",
            std::move(changed));
      }
      return;
    }
    // Line arguments end in a newline; the byte before it is the last of the
    // text.
    if (s.end < s.begin + 2 || valid_[s.end - 1] != '\n') return;
    const std::size_t line_end = s.end - 1;
    if (op == Op::UNICODE) {
      std::string changed(valid_);
      changed.insert(line_end, "\\u12");
      add("bad-escape", s, "\\u12 (an escape cut short) added to its text", std::move(changed));
    } else if (op == Op::STRING) {
      if (line_end > s.arg() && valid_[line_end - 1] == valid_[s.arg()]) {
        std::string changed(valid_);
        changed.erase(line_end - 1, 1);
        add("bad-quote", s, "its closing quote removed", std::move(changed));
      }
    } else if (is_decimal_line(s.info->arg)) {
      std::string changed(valid_);
      changed.insert(line_end, "x");
      add("bad-number", s, "an x added to its number", std::move(changed));
    }
  }

  // A memo read of an index that was never stored.
  void memo(const Span& s) {
    const Op op = s.info->op;
    std::string changed(valid_);
    if (op == Op::BINGET && s.end == s.arg() + 1) {
      changed[s.arg()] = '\xff';
      add("memo-unknown", s, "reads memo index 255", std::move(changed));
    } else if (op == Op::LONG_BINGET && s.end == s.arg() + 4) {
      write_le(changed, s.arg(), 4, 0x7fffffff);
      add("memo-unknown", s, "reads memo index 2147483647", std::move(changed));
    } else if (op == Op::GET && s.end > s.arg()) {
      changed.replace(s.arg(), s.end - s.arg() - 1, "2147483647");
      add("memo-unknown", s, "reads memo index 2147483647", std::move(changed));
    }
  }

  std::string_view valid_;
  std::set<std::pair<std::string, std::string>> made_;
  std::vector<MalformedStream> out_;
};

}  // namespace

std::vector<MalformedStream> grammar_mutations(std::string_view valid) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(valid.data());
  const pickle::Disassembly d =
      pickle::disassemble(std::span<const std::uint8_t>(data, valid.size()));
  if (!d.error.empty() || d.instructions.empty()) return {};
  std::vector<Span> spans;
  for (std::size_t i = 0; i < d.instructions.size(); ++i) {
    const pickle::Instruction& in = d.instructions[i];
    Span s;
    s.begin = in.offset;
    s.end = i + 1 < d.instructions.size() ? d.instructions[i + 1].offset : valid.size();
    s.info = pickle::kOpcodeIndex[in.code];
    if (s.info == nullptr) return {};
    spans.push_back(s);
  }
  // Bytes after STOP belong to no instruction.
  if (spans.back().info->op == Op::STOP) spans.back().end = spans.back().begin + 1;
  return Maker(valid).run(spans);
}

namespace {

// One instruction found by argument layouts alone.
struct Step {
  const OpInfo* row = nullptr;
  std::size_t arg = 0;   // where its argument starts
  std::size_t next = 0;  // where the next instruction starts
};

// The instruction at `at`, read by its argument layout; nullopt at an
// unknown opcode, at STOP, or where its argument runs past the end. Reads
// instructions where a loader does, and goes on past the errors a loader
// stops at.
std::optional<Step> step_at(std::string_view stream, std::size_t at) {
  if (at >= stream.size()) return std::nullopt;
  const OpInfo* row = pickle::kOpcodeIndex[static_cast<std::uint8_t>(stream[at])];
  if (row == nullptr || row->op == Op::STOP) return std::nullopt;
  const std::size_t arg = at + 1;
  const std::size_t none = std::string_view::npos;
  const auto counted = [&](int width) {
    if (arg + width > stream.size()) return none;
    const std::uint64_t n = read_le(stream, arg, width);
    return n > stream.size() ? none : arg + width + static_cast<std::size_t>(n);
  };
  const auto line = [&](std::size_t from) {
    const std::size_t newline = from > stream.size() ? none : stream.find('\n', from);
    return newline == none ? none : newline + 1;
  };
  std::size_t next = none;
  switch (row->arg) {
    case ArgKind::None: next = arg; break;
    case ArgKind::U1: next = arg + 1; break;
    case ArgKind::U2: next = arg + 2; break;
    case ArgKind::I4:
    case ArgKind::U4: next = arg + 4; break;
    case ArgKind::U8:
    case ArgKind::F8: next = arg + 8; break;
    case ArgKind::Long1:
    case ArgKind::Bytes1: next = counted(1); break;
    case ArgKind::Long4:
    case ArgKind::Bytes4: next = counted(4); break;
    case ArgKind::Bytes8: next = counted(8); break;
    case ArgKind::StringNlPair: {
      const std::size_t first = line(arg);
      next = first == none ? none : line(first);
      break;
    }
    default: next = line(arg); break;
  }
  if (next == none || next > stream.size()) return std::nullopt;
  return Step{row, arg, next};
}

}  // namespace

bool stores_memo_beyond(std::string_view stream, std::uint64_t bound) {
  // It may flag a stream a loader rejects before the store, never miss one.
  for (std::size_t at = 0;;) {
    const std::optional<Step> s = step_at(stream, at);
    if (!s) return false;
    std::uint64_t index = 0;
    if (s->row->op == Op::BINPUT) index = static_cast<std::uint8_t>(stream[s->arg]);
    if (s->row->op == Op::LONG_BINPUT) index = read_le(stream, s->arg, 4);
    if (s->row->op == Op::PUT) {
      index =
          std::strtoull(std::string(stream.substr(s->arg, s->next - s->arg)).c_str(), nullptr, 10);
    }
    if (index > bound) return true;
    at = s->next;
  }
}

std::string without_frames(std::string_view stream) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::optional<Step> s = step_at(stream, at);
    if (!s) break;
    if (s->row->op != Op::FRAME) out.append(stream.substr(at, s->next - at));
    at = s->next;
  }
  out.append(stream.substr(at));
  return out;
}

const std::vector<std::string>& grammar_mutation_kinds() {
  static const std::vector<std::string> kinds = {
      "truncate",        "delete",      "duplicate",       "empty-stack",  "substitute",
      "length-past-end", "length-huge", "length-negative", "length-short", "utf8-invalid",
      "bad-escape",      "bad-quote",   "bad-number",      "memo-unknown", "two-items-at-stop"};
  return kinds;
}

}  // namespace serialcheck::gen
