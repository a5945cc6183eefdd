// Disassembly in the manner of pickletools.dis: one line per opcode with its
// offset, name, argument and memo notes, then the highest protocol used.
// Reads the opcode table; never builds a value, so it also shows streams the
// decoder rejects, up to the first error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

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
};

Disassembly disassemble(std::span<const std::uint8_t> data);

// Text as `serialcheck dis` prints it.
std::string format_disassembly(const Disassembly& d);

}  // namespace serialcheck::pickle
