// The hostile-input properties of docs/conformance.md: decode.bounded (the
// decoder's work and memory stay within the bounds docs/safe-loading.md
// states, whatever the input) and scan.complete (the scan reports every
// global a value's encoding names, and policy decoding lets none it omits
// through). Plain functions over the reference codec, like codec_props.h:
// each takes one input, never throws, and returns a CheckResult.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "harness/props/codec_props.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/limits.h"
#include "reference/value/value.h"

namespace serialcheck::props {

inline constexpr std::string_view kDecodeBounded = "decode.bounded";
inline constexpr std::string_view kScanComplete = "scan.complete";

// Whether `stats` of a decode of an n-byte input under `limits` keep the
// bounds of limits.h; empty when they do, else what was exceeded.
std::string stats_outside_bounds(const pickle::DecodeStats& stats, const pickle::Limits& limits);

// decode.bounded: decoding `data` under `limits` (with stand-in buffers)
// returns a value or throws a PickleError whose offset lies within the
// input, and in both cases the stats keep the bounds.
CheckResult decode_bounded(std::span<const std::uint8_t> data, const pickle::Limits& limits = {});
CheckResult decode_bounded(std::string_view data, const pickle::Limits& limits = {});

// scan.complete: for `value` encoded at `protocol`, the scan reads the whole
// stream without error; every Global node of the value appears as a global
// entry with its module and qualname (except the copyreg.__newobj__ and
// __newobj_ex__ callables of NEWOBJ forms, which protocols 2 and up do not
// write as globals); every persistent id appears (a tuple on a cycle is
// written twice, so an id inside it may appear twice); and with an allowlist of
// every global the scan found but one (chosen by `pick`), persistent ids
// allowed, decoding throws ForbiddenGlobal at that global's first entry,
// naming it, and the scan marks exactly that name as not allowed. With the
// whole list decoding succeeds; with the whole list but no persistent ids
// it throws ForbiddenPersistentId at the first persistent id. Skips a value
// with no global or one the protocol cannot carry.
CheckResult scan_complete(const Node* value, int protocol, std::size_t pick);

}  // namespace serialcheck::props
