#include "harness/props/prop_helpers.h"

#include <algorithm>
#include <cctype>

#include "harness/props/explain.h"
#include "harness/props/value_tools.h"

namespace serialcheck::props {

std::string error_kind(const std::exception& e) {
  if (const auto* s = dynamic_cast<const SubjectError*>(&e)) return s->kind();
  return "internal";
}

Outcome exception_outcome(const std::exception& e, std::string_view stage) {
  return Outcome::fail("exception:" + error_kind(e) + "@" + std::string(stage),
                       std::string(stage) + " raised " + e.what());
}

std::optional<Message> dumps_step(Subject& subject, const TestCase& c, std::string_view stage,
                                  Outcome& failed) {
  DumpOptions options;
  options.protocol = c.protocol;
  options.out_of_band = c.out_of_band;
  try {
    return subject.dumps(c.value, options);
  } catch (const std::exception& e) {
    failed = exception_outcome(e, stage);
    return std::nullopt;
  }
}

Node* loads_step(Subject& subject, const Message& m, Graph& graph, int max_protocol,
                 std::string_view stage, Outcome& failed) {
  LoadOptions options;
  options.max_protocol = max_protocol;
  try {
    Node* root = subject.loads(m, graph, options);
    if (root == nullptr) {
      failed = Outcome::fail("exception:no-value@" + std::string(stage),
                             std::string(stage) + " returned no value");
      failed.failing_message = message_to_json(m);
    }
    return root;
  } catch (const std::exception& e) {
    failed = exception_outcome(e, stage);
    failed.failing_message = message_to_json(m);
    return nullptr;
  }
}

bool same_value(const Node* a, const Node* b, bool python, Difference* why,
                const EqualOptions& options) {
  Graph ga;
  Graph gb;
  return equal_under(buffers_as_bytes(a, ga), buffers_as_bytes(b, gb),
                     python ? SharingRule::ImmutablesFree : SharingRule::GlobalsByName, why,
                     options);
}

Outcome mismatch_outcome(const Difference& d, std::string_view stage, const Node* expected,
                         const Node* actual, std::string_view expected_name,
                         std::string_view actual_name) {
  std::string fp = "mismatch:" + difference_category(d);
  if (!stage.empty()) fp += "@" + std::string(stage);
  return Outcome::fail(fp, "values differ at " + d.path + ": " + d.reason,
                       explain_difference(d, expected, actual, expected_name, actual_name));
}

Message owned_copy(const Message& m) {
  Message copy;
  copy.header = m.header;
  for (const Frame& f : m.frames) {
    copy.frames.push_back(Frame::owned(std::string(f.view()), f.readonly));
  }
  return copy;
}

Message as_pickle_message(const Message& m, int protocol) {
  Message out;
  out.frames = m.frames;
  nlohmann::json writeable = nlohmann::json::array();
  const nlohmann::json* given = nullptr;
  if (m.header.is_object() && m.header.contains("writeable") && m.header["writeable"].is_array() &&
      m.header["writeable"].size() + 1 == m.frames.size()) {
    given = &m.header["writeable"];
  }
  for (std::size_t i = 1; i < m.frames.size(); ++i) {
    bool w = !m.frames[i].readonly;
    if (given != nullptr && (*given)[i - 1].is_boolean()) w = (*given)[i - 1].get<bool>();
    writeable.push_back(w);
  }
  out.header = {{"serializer", "pickle"}, {"protocol", protocol}, {"writeable", writeable}};
  return out;
}

std::uint64_t message_hash(const Message& m) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separates consecutive parts
    h *= 1099511628211ull;
  };
  mix(m.header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (const Frame& f : m.frames) mix(f.view());
  return h;
}

bool names_number(std::string_view text, int number) {
  std::string digits = std::to_string(number);
  for (std::size_t at = text.find(digits); at != std::string_view::npos;
       at = text.find(digits, at + 1)) {
    bool before = at > 0 && std::isdigit(static_cast<unsigned char>(text[at - 1]));
    std::size_t end = at + digits.size();
    bool after = end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]));
    if (!before && !after) return true;
  }
  return false;
}

bool through_python(const Subject& subject) {
  return subject.capabilities().python_values;
}

}  // namespace serialcheck::props
