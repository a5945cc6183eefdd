// The CPython version whose C pickler the encoder imitates. The encoder is
// byte-identical to CPython 3.11's by default; where another version's C
// pickler writes other bytes for the same value, the difference is one named
// rule below, a predicate of the target, so that each version is spoken by
// name and each rule has golden vectors written by the versions on each side
// (corpus/golden-versions/, docs/versions.md).
//
// Targets cover CPython 3.6 to 3.15. Python 2.7 is not a target: its str is
// bytes and its pickler has no protocol above 2, a world of its own.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace serialcheck::pickle {

// The rules that differ between versions' C picklers, each named for what
// the versions that have it write.
enum class PicklerRule : std::uint8_t {
  // Protocol 0 writes every int as LONG ("L5L\n"), not INT for the ones
  // that fit 32 bits (3.6 and before).
  kIntsAsLongAtProtocol0,
  // Protocol 0's raw-unicode-escape text also escapes '\r', '\0' and
  // '\x1a' as \uXXXX, not only '\\' and '\n' (3.7 and later).
  kEscapesCrNulSubInText,
  // FRAME is written even for a frame shorter than 4 bytes (3.6 and before).
  kFramesTinyFrames,
  // A payload of 64 KiB or more stays inside the frame instead of being
  // written between frames (3.6 and before).
  kFramesLargePayloads,
  // Below protocol 4 a nested name is getattr(getattr(module.first, 'b'),
  // 'c') with only the outermost result memoized: the first part is a
  // GLOBAL of its own, the intermediate objects and the argument tuples are
  // not memoized (3.13 and later). Before, each parent is saved as an
  // object (memoized, and shared with the same global elsewhere) and each
  // argument tuple memoized.
  kNestedNamesUnmemoized,
  // A list's or dict's last batch of exactly one entry is written with
  // APPEND or SETITEM, as reduce items are, and a dict or set of a multiple
  // of 1000 entries ends without an empty MARK SETITEMS / ADDITEMS batch
  // (3.15 and later).
  kExactBatchesLikeItems,
  // The empty frozenset is one object, so empty frozensets made apart are
  // written as one, memoized: the second is a GET (3.9 and before).
  kEmptyFrozensetSingleton,
  kCount,
};

// Whether CPython 3.`minor` has the rule.
constexpr bool version_has(PicklerRule rule, int minor) {
  switch (rule) {
    case PicklerRule::kIntsAsLongAtProtocol0: return minor <= 6;
    case PicklerRule::kEscapesCrNulSubInText: return minor >= 7;
    case PicklerRule::kFramesTinyFrames: return minor <= 6;
    case PicklerRule::kFramesLargePayloads: return minor <= 6;
    case PicklerRule::kNestedNamesUnmemoized: return minor >= 13;
    case PicklerRule::kExactBatchesLikeItems: return minor >= 15;
    case PicklerRule::kEmptyFrozensetSingleton: return minor <= 9;
    case PicklerRule::kCount: break;
  }
  return false;
}

// Inline throughout: the encoder asks at every call, and the default target
// must cost it nothing measurable.
struct PythonTarget {
  int major = 3;
  int minor = 11;
  // Rules turned the other way from what the version has: only for negative
  // controls, which check that the golden vectors notice a wrong rule.
  std::uint32_t flipped = 0;

  // "3.7" or "3.7.16" (the patch level is ignored); nullopt for anything
  // that is not a supported target (see supported_targets()).
  static std::optional<PythonTarget> parse(std::string_view text);
  // The default target: CPython 3.11.
  static constexpr PythonTarget default_target() { return {}; }

  std::string name() const;  // "3.7"
  // pickle.DEFAULT_PROTOCOL and pickle.HIGHEST_PROTOCOL of the version.
  constexpr int default_protocol() const { return minor >= 14 ? 5 : minor >= 8 ? 4 : 3; }
  constexpr int highest_protocol() const { return minor >= 8 ? 5 : 4; }

  constexpr bool has(PicklerRule rule) const {
    const bool flip = ((flipped >> static_cast<unsigned>(rule)) & 1u) != 0;
    return version_has(rule, minor) != flip;
  }
  constexpr PythonTarget with_flipped(PicklerRule rule) const {
    PythonTarget t = *this;
    t.flipped ^= 1u << static_cast<unsigned>(rule);
    return t;
  }

  bool ints_as_long_at_protocol_0() const { return has(PicklerRule::kIntsAsLongAtProtocol0); }
  bool escapes_cr_nul_sub_in_text() const { return has(PicklerRule::kEscapesCrNulSubInText); }
  bool frames_tiny_frames() const { return has(PicklerRule::kFramesTinyFrames); }
  bool frames_large_payloads() const { return has(PicklerRule::kFramesLargePayloads); }
  bool nested_names_unmemoized() const { return has(PicklerRule::kNestedNamesUnmemoized); }
  bool exact_batches_like_items() const { return has(PicklerRule::kExactBatchesLikeItems); }
  bool empty_frozenset_singleton() const { return has(PicklerRule::kEmptyFrozensetSingleton); }

  // Orders by version only.
  friend constexpr auto operator<=>(const PythonTarget& a, const PythonTarget& b) {
    if (auto c = a.major <=> b.major; c != 0) return c;
    return a.minor <=> b.minor;
  }
  friend constexpr bool operator==(const PythonTarget& a, const PythonTarget& b) {
    return a.major == b.major && a.minor == b.minor && a.flipped == b.flipped;
  }
};

// Every target, oldest first: 3.6 to 3.15.
const std::vector<PythonTarget>& supported_targets();

// The rule's name as docs/versions.md spells it ("ints_as_long_at_protocol_0").
std::string_view rule_name(PicklerRule rule);

}  // namespace serialcheck::pickle
