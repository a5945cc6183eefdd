// The pickle opcode table: one row per opcode (name, byte, argument kind,
// protocol introduced, short doc). The decoder, the encoder and the
// disassembler all read this one table, as pickletools does.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace serialcheck::pickle {

enum class Op : std::uint8_t {
  MARK = '(',
  STOP = '.',
  POP = '0',
  POP_MARK = '1',
  DUP = '2',
  FLOAT = 'F',
  INT = 'I',
  BININT = 'J',
  BININT1 = 'K',
  LONG = 'L',
  BININT2 = 'M',
  NONE = 'N',
  PERSID = 'P',
  BINPERSID = 'Q',
  REDUCE = 'R',
  STRING = 'S',
  BINSTRING = 'T',
  SHORT_BINSTRING = 'U',
  UNICODE = 'V',
  BINUNICODE = 'X',
  APPEND = 'a',
  BUILD = 'b',
  GLOBAL = 'c',
  DICT = 'd',
  EMPTY_DICT = '}',
  APPENDS = 'e',
  GET = 'g',
  BINGET = 'h',
  INST = 'i',
  LONG_BINGET = 'j',
  LIST = 'l',
  EMPTY_LIST = ']',
  OBJ = 'o',
  PUT = 'p',
  BINPUT = 'q',
  LONG_BINPUT = 'r',
  SETITEM = 's',
  TUPLE = 't',
  EMPTY_TUPLE = ')',
  SETITEMS = 'u',
  BINFLOAT = 'G',
  // protocol 2
  PROTO = 0x80,
  NEWOBJ = 0x81,
  EXT1 = 0x82,
  EXT2 = 0x83,
  EXT4 = 0x84,
  TUPLE1 = 0x85,
  TUPLE2 = 0x86,
  TUPLE3 = 0x87,
  NEWTRUE = 0x88,
  NEWFALSE = 0x89,
  LONG1 = 0x8a,
  LONG4 = 0x8b,
  // protocol 3
  BINBYTES = 'B',
  SHORT_BINBYTES = 'C',
  // protocol 4
  SHORT_BINUNICODE = 0x8c,
  BINUNICODE8 = 0x8d,
  BINBYTES8 = 0x8e,
  EMPTY_SET = 0x8f,
  ADDITEMS = 0x90,
  FROZENSET = 0x91,
  NEWOBJ_EX = 0x92,
  STACK_GLOBAL = 0x93,
  MEMOIZE = 0x94,
  FRAME = 0x95,
  // protocol 5
  BYTEARRAY8 = 0x96,
  NEXT_BUFFER = 0x97,
  READONLY_BUFFER = 0x98,
};

// How an opcode's inline argument is laid out in the stream.
enum class ArgKind : std::uint8_t {
  None,
  U1,                // 1-byte unsigned
  U2,                // 2-byte little-endian unsigned
  I4,                // 4-byte little-endian signed
  U4,                // 4-byte little-endian unsigned
  U8,                // 8-byte little-endian unsigned
  F8,                // 8-byte big-endian IEEE double
  DecimalNlShort,    // INT: decimal (or 00/01 bool) then newline
  DecimalNlLong,     // LONG: decimal with optional trailing L, newline
  FloatNl,           // FLOAT: float text, newline
  StringNl,          // STRING: quoted repr-escaped text, newline
  StringNlNoEscape,  // PERSID: raw text, newline
  UnicodeNl,         // UNICODE: raw-unicode-escape text, newline
  StringNlPair,      // GLOBAL, INST: module newline name newline
  DecimalNlMemo,     // GET, PUT: decimal memo index, newline
  Long1,             // LONG1: 1-byte length + two's complement bytes
  Long4,             // LONG4: 4-byte length + two's complement bytes
  Bytes1,            // 1-byte length + data
  Bytes4,            // 4-byte length + data
  Bytes8,            // 8-byte length + data
};

struct OpInfo {
  Op op;
  std::string_view name;
  ArgKind arg;
  int proto;  // protocol that introduced it
  std::string_view doc;
};

// Every opcode, in byte order.
std::span<const OpInfo> opcode_table();

// The row for each byte, or nullptr where no opcode has that byte.
extern const std::array<const OpInfo*, 256> kOpcodeIndex;

// For each byte, the protocol that introduced its opcode, or kNoOpcode
// where no opcode has that byte: the loader's per-opcode check reads one
// byte instead of a row.
inline constexpr std::uint8_t kNoOpcode = 0xff;
extern const std::array<std::uint8_t, 256> kOpcodeProtocol;

// The row for `byte`, or nullptr when no opcode has that byte.
inline const OpInfo* find_opcode(std::uint8_t byte) {
  return kOpcodeIndex[byte];
}

constexpr int kHighestProtocol = 5;

// kOpcodeReadable[p][byte]: 1 when a loader of protocols up to p runs the
// opcode with that byte (a known opcode of protocol p or older, or PROTO,
// which it must read to name the protocol it refuses), else 0. One load
// answers both of the loader's per-opcode checks.
extern const std::array<std::array<std::uint8_t, 256>, kHighestProtocol + 1> kOpcodeReadable;

constexpr std::size_t kBatchSize = 1000;  // APPENDS/SETITEMS/ADDITEMS
constexpr std::size_t kFrameSizeTarget = 64 * 1024;
constexpr std::size_t kFrameSizeMin = 4;

}  // namespace serialcheck::pickle
