// Writes the libFuzzer dictionary of the pickle target, generated from the
// opcode table (reference/pickle/opcodes.h) so it never falls behind it:
// every opcode byte alone and with a well-formed argument of its kind, PROTO
// at every protocol, the names of the builtin reduce forms, and the module
// and callable names real pickles (numpy, torch, cloudpickle...) carry.
// Usage: pickle_dictionary OUTPUT.dict
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/pickle/opcodes.h"
#include "reference/types/builtin_reduce.h"

namespace {

using serialcheck::pickle::ArgKind;
using serialcheck::pickle::OpInfo;

// Names that appear in pickles of ordinary Python, numpy, torch and
// cloudpickle objects (module, then qualified name).
const std::pair<std::string_view, std::string_view> kCommonGlobals[] = {
    {"builtins", "getattr"},
    {"builtins", "object"},
    {"__builtin__", "object"},
    {"copyreg", "_reconstructor"},
    {"copy_reg", "_reconstructor"},
    {"copyreg", "__newobj__"},
    {"copyreg", "__newobj_ex__"},
    {"collections", "OrderedDict"},
    {"_codecs", "encode"},
    {"pickle", "PickleBuffer"},
    {"numpy.core.multiarray", "_reconstruct"},
    {"numpy.core.numeric", "_frombuffer"},
    {"numpy", "ndarray"},
    {"numpy", "dtype"},
    {"torch._utils", "_rebuild_tensor_v2"},
    {"torch._utils", "_rebuild_parameter"},
    {"torch.storage", "_load_from_bytes"},
    {"torch", "FloatStorage"},
    {"cloudpickle.cloudpickle", "subimport"},
    {"cloudpickle.cloudpickle", "_make_function"},
    {"types", "ModuleType"},
};

const std::string_view kCommonStrings[] = {"latin1", "<f8", "<i8", "|b1", "float32", "cpu", "f8"};

std::string le(std::uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// A short well-formed argument of each kind, so mutations start from an
// opcode the decoder reads past.
std::string sample_argument(ArgKind kind) {
  switch (kind) {
    case ArgKind::None: return "";
    case ArgKind::U1: return le(1, 1);
    case ArgKind::U2: return le(1, 2);
    case ArgKind::I4:
    case ArgKind::U4: return le(1, 4);
    case ArgKind::U8: return le(1, 8);
    case ArgKind::F8: return std::string("\x3f\xf0\0\0\0\0\0\0", 8);
    case ArgKind::DecimalNlShort: return "1\n";
    case ArgKind::DecimalNlLong: return "1L\n";
    case ArgKind::FloatNl: return "1.5\n";
    case ArgKind::StringNl: return "'a'\n";
    case ArgKind::StringNlNoEscape: return "a\n";
    case ArgKind::UnicodeNl: return "a\n";
    case ArgKind::StringNlPair: return "builtins\nlist\n";
    case ArgKind::DecimalNlMemo: return "0\n";
    case ArgKind::Long1: return le(1, 1) + le(1, 1);
    case ArgKind::Long4: return le(1, 4) + le(1, 1);
    case ArgKind::Bytes1: return le(1, 1) + "a";
    case ArgKind::Bytes4: return le(1, 4) + "a";
    case ArgKind::Bytes8: return le(1, 8) + "a";
  }
  return "";
}

// libFuzzer's dictionary syntax: name="value" with \\, \" and \xNN escapes.
std::string quoted(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: pickle_dictionary OUTPUT.dict\n");
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> entries;
  std::set<std::string> seen;
  auto add = [&](std::string name, std::string value) {
    if (value.empty() || !seen.insert(value).second) return;
    entries.emplace_back(std::move(name), std::move(value));
  };

  for (const OpInfo& op : serialcheck::pickle::opcode_table()) {
    const std::string code(1, static_cast<char>(op.op));
    add("op_" + std::string(op.name), code);
    add("op_" + std::string(op.name) + "_arg", code + sample_argument(op.arg));
  }
  for (int p = 0; p <= serialcheck::pickle::kHighestProtocol; ++p) {
    add("proto_" + std::to_string(p), "\x80" + le(static_cast<std::uint64_t>(p), 1));
  }

  std::vector<std::pair<std::string, std::string>> globals;
  for (const auto& form : serialcheck::types::builtin_reduce_forms()) {
    globals.emplace_back(form.module, form.name);
  }
  for (const auto& [module, name] : kCommonGlobals) globals.emplace_back(module, name);
  int n = 0;
  for (const auto& [module, name] : globals) {
    const std::string id = std::to_string(n++);
    add("module_" + id, module);
    add("name_" + id, name);
    // As GLOBAL (protocols 0-3) and as SHORT_BINUNICODE (STACK_GLOBAL's operands).
    add("global_" + id, "c" + module + "\n" + name + "\n");
    add("module_str_" + id, "\x8c" + le(module.size(), 1) + module);
    add("name_str_" + id, "\x8c" + le(name.size(), 1) + name);
  }
  int s = 0;
  for (std::string_view text : kCommonStrings) add("str_" + std::to_string(s++), std::string(text));

  std::ofstream out(argv[1], std::ios::binary);
  out << "# Generated by pickle_dictionary from the opcode table; do not edit.\n";
  for (const auto& [name, value] : entries) out << name << "=" << quoted(value) << "\n";
  if (!out) {
    std::fprintf(stderr, "pickle_dictionary: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
