// Malformed pickle streams made from a valid one at opcode granularity, for
// loads.rejects-malformed (docs/conformance.md): each instruction cut short,
// deleted, doubled, run first on an empty stack, its opcode swapped for
// another of the same argument layout, its length, memo index or text
// broken. The format's grammar decides where an instruction starts and ends
// (the reference's disassembler reads the opcode table), so every stream
// changes exactly one instruction and names it.
//
// One stream per (mutation, opcode) pair, made at the pair's first
// instruction in the stream: a value that shrinks but still holds that
// opcode still makes that stream, and a case alone (value and protocol)
// says which streams it tried.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace serialcheck::gen {

struct MalformedStream {
  std::string mutation;    // "delete", "truncate", "length-past-end"...
  std::string opcode;      // the instruction changed, by name ("APPENDS")
  std::size_t offset = 0;  // of that instruction in the valid stream
  std::string detail;      // what was done, in words, for the report
  std::string bytes;

  // "<mutation>/<opcode>", or the mutation alone when it names no opcode:
  // stable, part of a failure's fingerprint.
  std::string name() const { return opcode.empty() ? mutation : mutation + "/" + opcode; }
};

// The mutations, in the stream's order of first occurrence. Empty when
// `valid` is not a well-formed pickle.
std::vector<MalformedStream> grammar_mutations(std::string_view valid);

// Whether `stream` stores at a memo index above `bound` before it ends or
// goes wrong (as the reference's disassembler reads it). CPython's loader
// sizes its memo by the largest index it is given, so a LONG_BINPUT of
// 2**31 that a malformation makes up costs it gigabytes and a minute:
// such a stream is not put to it.
bool stores_memo_beyond(std::string_view stream, std::uint64_t bound);

// `stream` with every FRAME instruction taken out, as a loader that reads
// frames by their contents alone sees it (the ignores-frame-length
// negative control of loads.rejects-malformed).
std::string without_frames(std::string_view stream);

// The mutation kinds grammar_mutations makes, in a fixed order (docs and
// tests list them).
const std::vector<std::string>& grammar_mutation_kinds();

}  // namespace serialcheck::gen
