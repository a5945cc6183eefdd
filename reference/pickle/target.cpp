#include "reference/pickle/target.h"

#include <charconv>

namespace serialcheck::pickle {
namespace {

constexpr int kOldestMinor = 6;
constexpr int kNewestMinor = 15;

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::optional<PythonTarget> PythonTarget::parse(std::string_view text) {
  std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(dot + 1);
  std::size_t dot2 = rest.find('.');
  std::string_view minor_text = rest.substr(0, dot2);
  int major = 0, minor = 0;
  if (!parse_int(text.substr(0, dot), major) || !parse_int(minor_text, minor)) return std::nullopt;
  if (dot2 != std::string_view::npos) {
    // A patch level: digits, maybe followed by a release tag (3.15.0a2, 3.14.0rc1).
    std::string_view patch = rest.substr(dot2 + 1);
    if (patch.empty() || patch[0] < '0' || patch[0] > '9') return std::nullopt;
  }
  if (major != 3 || minor < kOldestMinor || minor > kNewestMinor) return std::nullopt;
  return PythonTarget{major, minor, 0};
}

std::string PythonTarget::name() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

const std::vector<PythonTarget>& supported_targets() {
  static const std::vector<PythonTarget> targets = [] {
    std::vector<PythonTarget> out;
    for (int minor = kOldestMinor; minor <= kNewestMinor; ++minor) out.push_back({3, minor, 0});
    return out;
  }();
  return targets;
}

std::string_view rule_name(PicklerRule rule) {
  switch (rule) {
    case PicklerRule::kIntsAsLongAtProtocol0: return "ints_as_long_at_protocol_0";
    case PicklerRule::kEscapesCrNulSubInText: return "escapes_cr_nul_sub_in_text";
    case PicklerRule::kFramesTinyFrames: return "frames_tiny_frames";
    case PicklerRule::kFramesLargePayloads: return "frames_large_payloads";
    case PicklerRule::kNestedNamesUnmemoized: return "nested_names_unmemoized";
    case PicklerRule::kExactBatchesLikeItems: return "exact_batches_like_items";
    case PicklerRule::kEmptyFrozensetSingleton: return "empty_frozenset_singleton";
    case PicklerRule::kCount: break;
  }
  return "?";
}

}  // namespace serialcheck::pickle
