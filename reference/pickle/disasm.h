// Disassembly in the manner of pickletools.dis: one line per opcode with its
// offset, name, argument and memo notes, then the highest protocol used.
// Reads the opcode table; never builds a value, so it also shows streams the
// decoder rejects, up to the first error. It keeps the decoder's limits on
// marks open at once and memo entries (same errors, same offsets), and the
// text it formats grows linearly with the input, however deep the nesting.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/pickle/errors.h"
#include "reference/pickle/limits.h"

namespace serialcheck::pickle {

struct Instruction {
  std::size_t offset = 0;
  std::uint8_t code = 0;
  std::string name;  // opcode name
  std::string arg;   // printable argument ("" when none)
  int depth = 0;     // MARK nesting, for indentation
};

struct Disassembly {
  std::vector<Instruction> instructions;
  int highest_protocol = 0;
  // Set when the stream is malformed: the error line and its offset.
  std::string error;
  std::size_t error_offset = 0;
  // The same error in parts, as the decoder's PickleError gives them.
  ErrorKind error_kind = ErrorKind::Truncated;
  std::string error_detail;
};

// Only `max_depth` and `max_memo` of the limits apply: the disassembler makes
// no values, and its own memory is linear in the input.
Disassembly disassemble(std::span<const std::uint8_t> data, const Limits& limits = {});

// Text as `serialcheck dis` prints it.
std::string format_disassembly(const Disassembly& d);

}  // namespace serialcheck::pickle
