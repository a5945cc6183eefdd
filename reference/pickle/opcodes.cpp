#include "reference/pickle/opcodes.h"

#include <array>

namespace serialcheck::pickle {

namespace {

using A = ArgKind;

// In byte order. The docs say what each opcode does to the unpickler's stack
// and memo, in the terms the decoder uses.
constexpr OpInfo kOpcodes[] = {
    {Op::MARK, "MARK", A::None, 0, "Push a mark; later opcodes take the items above it."},
    {Op::EMPTY_TUPLE, "EMPTY_TUPLE", A::None, 1, "Push an empty tuple."},
    {Op::STOP, "STOP", A::None, 0, "End of pickle: the top of the stack is the result."},
    {Op::POP, "POP", A::None, 0,
     "Discard the top item (or the topmost mark if nothing is above it)."},
    {Op::POP_MARK, "POP_MARK", A::None, 1, "Discard the topmost mark and every item above it."},
    {Op::DUP, "DUP", A::None, 0, "Push the top item again."},
    {Op::BINBYTES, "BINBYTES", A::Bytes4, 3, "Push bytes; 4-byte length, then the data."},
    {Op::SHORT_BINBYTES, "SHORT_BINBYTES", A::Bytes1, 3,
     "Push bytes; 1-byte length, then the data."},
    {Op::FLOAT, "FLOAT", A::FloatNl, 0, "Push a float written as text, ended by a newline."},
    {Op::BINFLOAT, "BINFLOAT", A::F8, 1, "Push a float: 8-byte big-endian IEEE 754 double."},
    {Op::INT, "INT", A::DecimalNlShort, 0,
     "Push an int written in decimal; \"00\" and \"01\" stand for False and True."},
    {Op::BININT, "BININT", A::I4, 1, "Push a 4-byte little-endian signed int."},
    {Op::BININT1, "BININT1", A::U1, 1, "Push a 1-byte unsigned int."},
    {Op::LONG, "LONG", A::DecimalNlLong, 0,
     "Push an int written in decimal, optionally followed by 'L'."},
    {Op::BININT2, "BININT2", A::U2, 1, "Push a 2-byte little-endian unsigned int."},
    {Op::NONE, "NONE", A::None, 0, "Push None."},
    {Op::PERSID, "PERSID", A::StringNlNoEscape, 0,
     "Push a persistent reference named by an ASCII line."},
    {Op::BINPERSID, "BINPERSID", A::None, 1,
     "Replace the top item by a persistent reference it names."},
    {Op::REDUCE, "REDUCE", A::None, 0,
     "Pop an argument tuple and a callable; push the call's result."},
    {Op::STRING, "STRING", A::StringNl, 0,
     "Push a Python 2 str: a quoted, backslash-escaped literal on one line."},
    {Op::BINSTRING, "BINSTRING", A::Bytes4, 1,
     "Push a Python 2 str; 4-byte signed length, then the data."},
    {Op::SHORT_BINSTRING, "SHORT_BINSTRING", A::Bytes1, 1,
     "Push a Python 2 str; 1-byte length, then the data."},
    {Op::UNICODE, "UNICODE", A::UnicodeNl, 0,
     "Push a str written in raw-unicode-escape form on one line."},
    {Op::BINUNICODE, "BINUNICODE", A::Bytes4, 1,
     "Push a str; 4-byte length, then UTF-8 (surrogatepass)."},
    {Op::EMPTY_LIST, "EMPTY_LIST", A::None, 1, "Push an empty list."},
    {Op::APPEND, "APPEND", A::None, 0, "Pop an item and append it to the list below it."},
    {Op::BUILD, "BUILD", A::None, 0,
     "Pop a state and apply it to the object below it (__setstate__ or __dict__)."},
    {Op::GLOBAL, "GLOBAL", A::StringNlPair, 0,
     "Push the global named by a module line and a name line."},
    {Op::DICT, "DICT", A::None, 0,
     "Replace the topmost mark and the key/value items above it by a dict."},
    {Op::APPENDS, "APPENDS", A::None, 1,
     "Extend the list below the topmost mark with the items above it."},
    {Op::GET, "GET", A::DecimalNlMemo, 0, "Push the memo entry at a decimal key."},
    {Op::BINGET, "BINGET", A::U1, 1, "Push the memo entry at a 1-byte key."},
    {Op::INST, "INST", A::StringNlPair, 0,
     "Call the class named by two lines with the items above the topmost mark."},
    {Op::LONG_BINGET, "LONG_BINGET", A::U4, 1, "Push the memo entry at a 4-byte key."},
    {Op::LIST, "LIST", A::None, 0, "Replace the topmost mark and the items above it by a list."},
    {Op::OBJ, "OBJ", A::None, 1,
     "Call the first item above the topmost mark with the items after it."},
    {Op::PUT, "PUT", A::DecimalNlMemo, 0, "Store the top item in the memo at a decimal key."},
    {Op::BINPUT, "BINPUT", A::U1, 1, "Store the top item in the memo at a 1-byte key."},
    {Op::LONG_BINPUT, "LONG_BINPUT", A::U4, 1, "Store the top item in the memo at a 4-byte key."},
    {Op::SETITEM, "SETITEM", A::None, 0,
     "Pop a value and a key; set that item in the dict below them."},
    {Op::TUPLE, "TUPLE", A::None, 0, "Replace the topmost mark and the items above it by a tuple."},
    {Op::SETITEMS, "SETITEMS", A::None, 1,
     "Set the key/value pairs above the topmost mark in the dict below it."},
    {Op::EMPTY_DICT, "EMPTY_DICT", A::None, 1, "Push an empty dict."},
    {Op::PROTO, "PROTO", A::U1, 2, "Declare the protocol of the stream (1 byte)."},
    {Op::NEWOBJ, "NEWOBJ", A::None, 2,
     "Pop an argument tuple and a class; push cls.__new__(cls, *args)."},
    {Op::EXT1, "EXT1", A::U1, 2, "Push the global registered under a 1-byte extension code."},
    {Op::EXT2, "EXT2", A::U2, 2, "Push the global registered under a 2-byte extension code."},
    {Op::EXT4, "EXT4", A::I4, 2, "Push the global registered under a 4-byte extension code."},
    {Op::TUPLE1, "TUPLE1", A::None, 2, "Replace the top item by a 1-tuple of it."},
    {Op::TUPLE2, "TUPLE2", A::None, 2, "Replace the top two items by a 2-tuple."},
    {Op::TUPLE3, "TUPLE3", A::None, 2, "Replace the top three items by a 3-tuple."},
    {Op::NEWTRUE, "NEWTRUE", A::None, 2, "Push True."},
    {Op::NEWFALSE, "NEWFALSE", A::None, 2, "Push False."},
    {Op::LONG1, "LONG1", A::Long1, 2,
     "Push an int; 1-byte length, then little-endian two's complement bytes."},
    {Op::LONG4, "LONG4", A::Long4, 2,
     "Push an int; 4-byte signed length, then little-endian two's complement bytes."},
    {Op::SHORT_BINUNICODE, "SHORT_BINUNICODE", A::Bytes1, 4,
     "Push a str; 1-byte length, then UTF-8 (surrogatepass)."},
    {Op::BINUNICODE8, "BINUNICODE8", A::Bytes8, 4,
     "Push a str; 8-byte length, then UTF-8 (surrogatepass)."},
    {Op::BINBYTES8, "BINBYTES8", A::Bytes8, 4, "Push bytes; 8-byte length, then the data."},
    {Op::EMPTY_SET, "EMPTY_SET", A::None, 4, "Push an empty set."},
    {Op::ADDITEMS, "ADDITEMS", A::None, 4,
     "Add the items above the topmost mark to the set below it."},
    {Op::FROZENSET, "FROZENSET", A::None, 4,
     "Replace the topmost mark and the items above it by a frozenset."},
    {Op::NEWOBJ_EX, "NEWOBJ_EX", A::None, 4,
     "Pop kwargs, args and a class; push cls.__new__(cls, *args, **kwargs)."},
    {Op::STACK_GLOBAL, "STACK_GLOBAL", A::None, 4,
     "Pop a name and a module (both str); push that global."},
    {Op::MEMOIZE, "MEMOIZE", A::None, 4,
     "Store the top item in the memo at the next key (the memo's size)."},
    {Op::FRAME, "FRAME", A::U8, 4,
     "Start a frame: the next 8-byte-length bytes hold whole opcodes."},
    {Op::BYTEARRAY8, "BYTEARRAY8", A::Bytes8, 5, "Push a bytearray; 8-byte length, then the data."},
    {Op::NEXT_BUFFER, "NEXT_BUFFER", A::None, 5,
     "Push the next out-of-band buffer the loader was given."},
    {Op::READONLY_BUFFER, "READONLY_BUFFER", A::None, 5,
     "Make the buffer on top of the stack read-only."},
};

constexpr std::array<const OpInfo*, 256> make_index() {
  std::array<const OpInfo*, 256> index{};
  for (const OpInfo& info : kOpcodes) index[static_cast<std::uint8_t>(info.op)] = &info;
  return index;
}

}  // namespace

constexpr std::array<const OpInfo*, 256> kOpcodeIndex = make_index();

constexpr std::array<std::uint8_t, 256> kOpcodeProtocol = [] {
  std::array<std::uint8_t, 256> protocol{};
  protocol.fill(kNoOpcode);
  for (const OpInfo& info : kOpcodes) {
    protocol[static_cast<std::uint8_t>(info.op)] = static_cast<std::uint8_t>(info.proto);
  }
  return protocol;
}();

constexpr std::array<std::array<std::uint8_t, 256>, kHighestProtocol + 1> kOpcodeReadable = [] {
  std::array<std::array<std::uint8_t, 256>, kHighestProtocol + 1> readable{};
  for (int max = 0; max <= kHighestProtocol; ++max) {
    for (const OpInfo& info : kOpcodes) {
      const bool runs = info.proto <= max || info.op == Op::PROTO;
      readable[static_cast<std::size_t>(max)][static_cast<std::uint8_t>(info.op)] = runs ? 1 : 0;
    }
  }
  return readable;
}();

std::span<const OpInfo> opcode_table() {
  return kOpcodes;
}

}  // namespace serialcheck::pickle
