// Generators of text and binary payloads: Python strs (any code point, lone
// surrogates included) as the UTF-8 "surrogatepass" bytes the model holds,
// ASCII identifiers and lines, and bytes payloads.
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <string>

namespace serialcheck::gen {

// Code points drawn from one alphabet per string: ASCII, latin-1, the BMP
// without surrogates, astral planes, lone surrogates, or all of them mixed.
// Lengths mostly short, sometimes around 255 bytes (where SHORT_BINUNICODE
// ends).
rc::Gen<std::u32string> codePoints();

// codePoints() encoded as UTF-8 with surrogates passed through; now and
// then exactly 255 or 256 UTF-8 bytes long.
rc::Gen<std::string> pyStr();

// A str (UTF-8, surrogates passed through) of exactly `size` UTF-8 bytes:
// code points of one of codePoints()' alphabets, then ASCII to fill.
rc::Gen<std::string> pyStrOfUtf8Length(std::size_t size);

// Printable ASCII without newline: what a protocol-0 text line can carry.
rc::Gen<std::string> asciiLine();

// A Python identifier of 1..12 ASCII characters.
rc::Gen<std::string> identifier();

// Raw bytes: mostly short, sometimes around 256 (where SHORT_BINBYTES ends)
// or exactly 255 or 256, and with allow_large rarely longer than a 64 KiB
// pickle frame or within a few bytes of filling one exactly.
rc::Gen<std::string> blob(bool allow_large);

}  // namespace serialcheck::gen
