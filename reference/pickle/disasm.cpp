// The disassembler reads arguments by the opcode table's ArgKind, so every
// opcode is shown the same way the table describes it. Besides reading
// arguments it emulates the stack as pickletools.dis does (counts only: items
// above each mark) and the memo keys, so it stops where the decoder would:
// unknown opcode, truncation, a malformed argument, a missing mark, a stack
// underflow, a GET of a key never stored, a frame rule broken. Semantic
// checks that need values (BUILD on a non-object, a tuple where a dict must
// be) are the decoder's alone.
#include "reference/pickle/disasm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "reference/common/pyrepr.h"
#include "reference/common/utf8.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/pickle/reader.h"
#include "reference/pickle/text.h"
#include "reference/value/numeric.h"

namespace serialcheck::pickle {

namespace {

// Arguments longer than this are cut in the text; nobody reads 70,000 'a's.
constexpr std::size_t kMaxArgChars = 120;
// Ints longer than this (about 4300 decimal digits, CPython's limit for
// int -> str) are shown by size instead of value.
constexpr std::size_t kMaxIntBytes = 1785;
// Indentation stops growing after this many marks, as value-json's pretty
// printer stops after 32 levels: n nested MARKs would otherwise print
// 2n^2 spaces (50,000 of them, 5 GB).
constexpr std::size_t kMaxIndentLevels = 32;

std::string cut(std::string s, std::size_t total) {
  if (s.size() <= kMaxArgChars) return s;
  s.resize(kMaxArgChars);
  return s + fmt::format("... ({} total)", total);
}

// ascii(str) and repr(bytes), cut to kMaxArgChars.
std::string str_repr(std::string_view utf8) {
  std::string out = ascii_repr(utf8, kMaxArgChars);
  if (out.size() <= kMaxArgChars) return out;
  return cut(std::move(out), utf8_to_code_points(utf8).size());
}

std::string bytes_repr(std::string_view data, std::string_view prefix = "b") {
  return cut(serialcheck::bytes_repr(data, prefix, kMaxArgChars), data.size());
}

bool is_decimal(std::string_view s, bool allow_sign) {
  if (allow_sign && !s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool has_leading_zero(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  return s.size() > 1 && s.front() == '0' && s.find_first_not_of('0') != std::string_view::npos;
}

// How an opcode uses the stack, for the count emulation.
struct StackUse {
  bool takes_mark = false;  // pops the topmost mark and the items above it
  int below_mark = 0;       // items it needs below the mark (APPENDS: the list)
  int min_above = 0;        // items it needs above the mark (OBJ: the class)
  int pops = 0;             // items popped (when no mark is taken)
  int pushes = 0;
};

StackUse stack_use(Op op) {
  switch (op) {
    case Op::MARK: return {};
    case Op::STOP: return {false, 0, 0, 1, 0};
    case Op::POP: return {false, 0, 0, 1, 0};  // or the mark; see run()
    case Op::POP_MARK: return {true, 0, 0, 0, 0};
    case Op::DUP: return {false, 0, 0, 1, 2};
    case Op::PUT:
    case Op::BINPUT:
    case Op::LONG_BINPUT:
    case Op::MEMOIZE:
    case Op::BINPERSID:
    case Op::READONLY_BUFFER:
    case Op::TUPLE1: return {false, 0, 0, 1, 1};
    case Op::REDUCE:
    case Op::BUILD:
    case Op::APPEND:
    case Op::NEWOBJ:
    case Op::TUPLE2:
    case Op::STACK_GLOBAL: return {false, 0, 0, 2, 1};
    case Op::SETITEM:
    case Op::TUPLE3:
    case Op::NEWOBJ_EX: return {false, 0, 0, 3, 1};
    case Op::DICT:
    case Op::LIST:
    case Op::TUPLE:
    case Op::FROZENSET:
    case Op::INST: return {true, 0, 0, 0, 1};
    case Op::OBJ: return {true, 0, 1, 0, 1};
    case Op::APPENDS:
    case Op::SETITEMS:
    case Op::ADDITEMS: return {true, 1, 0, 0, 0};
    case Op::PROTO:
    case Op::FRAME: return {};
    default: return {false, 0, 0, 0, 1};  // everything else pushes one value
  }
}

class Disassembler {
 public:
  Disassembler(std::span<const std::uint8_t> data, const Limits& limits)
      : in_(data), limits_(limits) {}

  Disassembly run() {
    Disassembly d;
    try {
      while (true) {
        in_.start_op();
        info_ = nullptr;
        if (in_.at_end()) fail(ErrorKind::Truncated, "pickle data was truncated: no STOP opcode");
        const std::uint8_t code = in_.read(1)[0];
        info_ = find_opcode(code);
        if (info_ == nullptr) {
          fail(ErrorKind::UnknownOpcode, fmt::format("invalid load key, '\\x{:02x}'", code));
        }
        in_.set_op_name(info_->name);
        Instruction ins;
        ins.offset = in_.op_start();
        ins.code = code;
        ins.name = std::string(info_->name);
        ins.depth = static_cast<int>(marks_.size());
        ins.arg = read_arg();
        highest_ = std::max(highest_, info_->proto);
        // The line is shown even when its effects are wrong, as pickletools
        // does: the reader sees where the error is.
        d.instructions.push_back(ins);
        effects(d.instructions.back());
        if (info_->op == Op::STOP) break;
      }
    } catch (const PickleError& e) {
      d.error = e.what();
      d.error_offset = e.offset();
      d.error_kind = e.kind();
      d.error_detail = e.detail();
    }
    d.highest_protocol = highest_;
    return d;
  }

 private:
  [[noreturn]] void fail(ErrorKind kind, std::string message) const {
    in_.fail(kind, std::move(message));
  }
  std::string op_name() const { return std::string(info_ ? info_->name : "opcode"); }

  std::uint64_t read_uint(std::size_t n) { return in_.read_uint(n); }
  std::string_view read_line() { return in_.read_line(); }
  std::string_view read_counted(std::size_t width, bool is_signed) {
    return in_.read_counted(width, is_signed);
  }

  std::string int_text(std::string_view twos) {
    if (twos.size() > kMaxIntBytes) return fmt::format("(int of {} bytes)", twos.size());
    return twos_le_to_decimal(twos);
  }

  std::string decimal_arg(std::string_view line) {
    if (!is_decimal(line, true) || has_leading_zero(line)) {
      fail(ErrorKind::BadValue, fmt::format("{} argument is not a decimal integer: {}", op_name(),
                                            bytes_repr(line, "")));
    }
    return std::string(line.front() == '+' ? line.substr(1) : line);
  }

  // The argument's text; validates it as the decoder does.
  std::string read_arg() {
    const Op op = info_->op;
    switch (info_->arg) {
      case ArgKind::None: return "";
      case ArgKind::U1: {
        const std::uint64_t v = read_uint(1);
        if (op == Op::PROTO && v > static_cast<std::uint64_t>(kHighestProtocol)) {
          throw UnsupportedProtocolError(in_.op_start(), static_cast<int>(v), kHighestProtocol);
        }
        if (op == Op::EXT1 && v == 0) fail(ErrorKind::BadValue, "EXT1 specifies code 0");
        arg_key_ = v;
        return std::to_string(v);
      }
      case ArgKind::U2: {
        const std::uint64_t v = read_uint(2);
        if (op == Op::EXT2 && v == 0) fail(ErrorKind::BadValue, "EXT2 specifies code 0");
        return std::to_string(v);
      }
      case ArgKind::I4: {
        const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(read_uint(4)));
        if (op == Op::EXT4 && v <= 0) {
          fail(ErrorKind::BadValue, fmt::format("EXT4 specifies code {} <= 0", v));
        }
        return std::to_string(v);
      }
      case ArgKind::U4: arg_key_ = read_uint(4); return std::to_string(arg_key_);
      case ArgKind::U8: {
        const std::uint64_t v = read_uint(8);
        if (op == Op::FRAME) in_.enter_frame(v);
        return std::to_string(v);
      }
      case ArgKind::F8: {
        const std::uint8_t* p = in_.read(8);
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return float_repr(v);
      }
      case ArgKind::DecimalNlShort: {
        const std::string_view line = read_line();
        if (line == "00") return "False";
        if (line == "01") return "True";
        return decimal_arg(line);
      }
      case ArgKind::DecimalNlLong: {
        std::string_view line = read_line();
        if (!line.empty() && line.back() == 'L') line.remove_suffix(1);
        return decimal_arg(line);
      }
      case ArgKind::FloatNl: {
        const std::string_view line = read_line();
        const std::optional<double> v = parse_float(line);
        if (!v) {
          fail(ErrorKind::BadValue,
               fmt::format("FLOAT argument is not a float: {}", bytes_repr(line, "")));
        }
        return float_repr(*v);
      }
      case ArgKind::StringNl: {
        const std::string_view line = read_line();
        const std::optional<std::string> s = string_literal_decode(line);
        if (!s) {
          fail(ErrorKind::BadValue,
               fmt::format("STRING argument is not a quoted literal: {}", bytes_repr(line, "")));
        }
        return is_ascii(*s) ? str_repr(*s) : bytes_repr(*s);
      }
      case ArgKind::StringNlNoEscape: {
        const std::string_view line = read_line();
        if (!is_ascii(line))
          fail(ErrorKind::BadValue, "persistent IDs in protocol 0 must be ASCII");
        return str_repr(line);
      }
      case ArgKind::UnicodeNl: {
        const std::optional<std::string> s = raw_unicode_escape_decode(read_line());
        if (!s) fail(ErrorKind::BadValue, "UNICODE argument has a bad escape");
        return str_repr(*s);
      }
      case ArgKind::StringNlPair: {
        const std::string_view module = read_line();
        const std::string_view name = read_line();
        for (std::string_view part : {module, name}) {
          if (part.empty() || !valid_utf8(part, Surrogates::Allow)) {
            fail(ErrorKind::BadValue,
                 fmt::format("{} needs a non-empty module and name", op_name()));
          }
        }
        return str_repr(std::string(module) + " " + std::string(name));
      }
      case ArgKind::DecimalNlMemo: {
        const std::string_view line = read_line();
        if (!is_decimal(line, false)) {
          fail(ErrorKind::BadValue,
               fmt::format("{} argument is not a memo key: {}", op_name(), bytes_repr(line, "")));
        }
        arg_key_ = 0;
        for (char c : line) {
          arg_key_ = arg_key_ * 10 + static_cast<std::uint64_t>(c - '0');
          if (arg_key_ > (std::uint64_t{1} << 62)) break;
        }
        return std::to_string(arg_key_);
      }
      case ArgKind::Long1: return int_text(read_counted(1, false));
      case ArgKind::Long4: return int_text(read_counted(4, true));
      case ArgKind::Bytes1:
      case ArgKind::Bytes4:
      case ArgKind::Bytes8: {
        const std::size_t width = info_->arg == ArgKind::Bytes1   ? 1
                                  : info_->arg == ArgKind::Bytes4 ? 4
                                                                  : 8;
        const std::string_view data = read_counted(width, op == Op::BINSTRING);
        switch (op) {
          case Op::SHORT_BINUNICODE:
          case Op::BINUNICODE:
          case Op::BINUNICODE8:
            if (!valid_utf8(data, Surrogates::Allow)) {
              fail(ErrorKind::BadValue, fmt::format("{} argument is not valid UTF-8", op_name()));
            }
            return str_repr(data);
          case Op::BINSTRING:
          case Op::SHORT_BINSTRING: return is_ascii(data) ? str_repr(data) : bytes_repr(data);
          case Op::BYTEARRAY8: return "bytearray(" + bytes_repr(data) + ")";
          default: return bytes_repr(data);
        }
      }
    }
    return "";
  }

  // Stack and memo emulation; adds mark and memo notes to the line.
  void effects(Instruction& ins) {
    const Op op = info_->op;
    auto underflow = [&] {
      fail(ErrorKind::StackUnderflow,
           fmt::format("{} needs more items than the stack holds{}", op_name(),
                       marks_.empty() ? "" : " above the mark"));
    };
    auto note = [&](const std::string& text) {
      if (!ins.arg.empty()) ins.arg += ' ';
      ins.arg += text;
    };
    if (op == Op::MARK) {
      // The decoder's limit and message (decoder.cpp), so both stop here.
      if (marks_.size() >= limits_.max_depth) {
        fail(ErrorKind::LimitExceeded,
             fmt::format("more than {} marks open at once", limits_.max_depth));
      }
      marks_.push_back(in_.op_start());
      levels_.push_back(0);
      return;
    }
    if (op == Op::POP && !marks_.empty() && levels_.back() == 0) {
      note(fmt::format("(MARK at {})", marks_.back()));
      marks_.pop_back();
      levels_.pop_back();
      return;
    }
    const StackUse use = stack_use(op);
    if (use.takes_mark) {
      if (marks_.empty()) {
        fail(ErrorKind::MissingMark, fmt::format("{} needs a MARK and there is none", op_name()));
      }
      note(fmt::format("(MARK at {})", marks_.back()));
      const std::size_t above = levels_.back();
      marks_.pop_back();
      levels_.pop_back();
      if (above < static_cast<std::size_t>(use.min_above)) underflow();
      if (levels_.back() < static_cast<std::size_t>(use.below_mark)) underflow();
    } else if (levels_.back() < static_cast<std::size_t>(use.pops)) {
      underflow();
    } else {
      levels_.back() -= static_cast<std::size_t>(use.pops);
    }
    levels_.back() += static_cast<std::size_t>(use.pushes);

    switch (op) {
      case Op::MEMOIZE:
        note(fmt::format("(as {})", memo_.size()));
        memo_put(memo_.size());
        break;
      case Op::PUT:
      case Op::BINPUT:
      case Op::LONG_BINPUT: memo_put(arg_key_); break;
      case Op::GET:
      case Op::BINGET:
      case Op::LONG_BINGET:
        if (memo_.count(arg_key_) == 0) {
          fail(ErrorKind::MissingMemo, fmt::format("memo key {} was never stored", arg_key_));
        }
        break;
      default: break;
    }
  }

  // The decoder's memo limits, checked in its order.
  void memo_put(std::uint64_t key) {
    if (key > limits_.max_memo) {
      fail(ErrorKind::LimitExceeded,
           fmt::format("memo key {} is above the limit of {}", key, limits_.max_memo));
    }
    memo_.insert(key);
    if (memo_.size() > limits_.max_memo) {
      fail(ErrorKind::LimitExceeded, fmt::format("more than {} memo entries", limits_.max_memo));
    }
  }

  OpReader in_;
  Limits limits_;
  const OpInfo* info_ = nullptr;
  std::uint64_t arg_key_ = 0;  // the last U1/U4/decimal memo argument
  int highest_ = 0;
  std::vector<std::size_t> marks_;      // offsets of open MARKs
  std::vector<std::size_t> levels_{0};  // items above each mark; [0] below all
  std::unordered_set<std::uint64_t> memo_;
};

}  // namespace

Disassembly disassemble(std::span<const std::uint8_t> data, const Limits& limits) {
  return Disassembler(data, limits).run();
}

std::string format_disassembly(const Disassembly& d) {
  std::string out;
  for (const Instruction& ins : d.instructions) {
    const OpInfo* info = find_opcode(ins.code);
    std::string code;
    if (ins.code >= 0x20 && ins.code < 0x7F) {
      code = std::string(1, static_cast<char>(ins.code));
    } else {
      code = fmt::format("\\x{:02x}", ins.code);
    }
    std::string line = fmt::format(
        "{:>5}: {:<4} {}{}", ins.offset, code,
        std::string(4 * std::min(static_cast<std::size_t>(ins.depth), kMaxIndentLevels), ' '),
        info ? info->name : std::string_view(ins.name));
    if (!ins.arg.empty()) {
      // Align arguments as pickletools does: names padded to 10 columns.
      line += std::string(ins.name.size() < 10 ? 10 - ins.name.size() : 0, ' ');
      line += ' ';
      line += ins.arg;
    }
    out += line;
    out += '\n';
  }
  if (!d.error.empty()) {
    out += "error: " + d.error + '\n';
  } else {
    out += fmt::format("highest protocol among opcodes = {}\n", d.highest_protocol);
  }
  return out;
}

}  // namespace serialcheck::pickle
