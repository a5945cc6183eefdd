#include "harness/props/prop_helpers.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "harness/props/explain.h"
#include "harness/props/value_tools.h"
#include "harness/subjects/phase_clock.h"
#include "reference/common/utf8.h"
#include "reference/pickle/target.h"
#include "reference/types/ndarray.h"

namespace serialcheck::props {

Applicability skip(std::string reason) {
  Applicability a;
  a.skip_reason = std::move(reason);
  return a;
}

std::string minor_version(const std::string& python_version) {
  const std::size_t dot = python_version.find('.');
  if (dot == std::string::npos) return python_version;
  return python_version.substr(0, python_version.find('.', dot + 1));
}

GetattrScope nested_name_scope(const std::string& python_version) {
  const auto target = pickle::PythonTarget::parse(python_version);
  return target && target->nested_names_unmemoized() ? GetattrScope::Everywhere
                                                     : GetattrScope::ClassPositions;
}

std::string reference_at(const std::string& python_version) {
  if (python_version.empty()) return kReference;
  const auto target = pickle::PythonTarget::parse(python_version);
  if (!target) return {};
  if (*target == pickle::PythonTarget::default_target()) return kReference;
  return std::string(kReference) + "@" + target->name();
}

CasePlan subject_plan(const Capabilities& caps) {
  CasePlan plan;
  plan.python_safe = caps.python_values;
  plan.min_protocol = caps.min_protocol;
  plan.max_protocol = caps.max_protocol;
  plan.out_of_band = caps.out_of_band;
  return plan;
}

std::string error_kind(const std::exception& e) {
  if (const auto* s = dynamic_cast<const SubjectError*>(&e)) return s->kind();
  return "internal";
}

Outcome exception_outcome(const std::exception& e, std::string_view stage) {
  Outcome o = Outcome::fail("exception:" + error_kind(e) + "@" + std::string(stage),
                            std::string(stage) + " raised " + e.what());
  if (const auto* s = dynamic_cast<const SubjectError*>(&e); s != nullptr && !s->detail().empty()) {
    o.explanation = s->detail();
  }
  return o;
}

namespace {

bool unsupported(const std::exception& e) {
  const auto* s = dynamic_cast<const SubjectError*>(&e);
  return s != nullptr && s->kind() == kUnsupported;
}

}  // namespace

std::vector<std::string> fidelity(const Subject& a, const Subject* b) {
  std::vector<std::string> lost = a.capabilities().cannot_express;
  if (b != nullptr) {
    for (const auto& d : b->capabilities().cannot_express) {
      if (std::find(lost.begin(), lost.end(), d) == lost.end()) lost.push_back(d);
    }
  }
  return lost;
}

bool holds_strided_array(const Node* value) {
  if (value == nullptr) return false;
  for (const Node* n : reachable(value)) {
    if (n->kind != Kind::NDArray || n->array() == nullptr) continue;
    const auto dtype = types::parse_numeric_dtype(n->array()->dtype);
    if (!dtype) continue;
    if (!types::ndarray_c_contiguous(*n->array(), dtype->itemsize) &&
        !types::ndarray_f_contiguous(*n->array(), dtype->itemsize)) {
      return true;
    }
  }
  return false;
}

bool takes_kind(const Capabilities& caps, std::string_view kind) {
  return caps.kinds.empty() ||
         std::find(caps.kinds.begin(), caps.kinds.end(), kind) != caps.kinds.end();
}

std::string inexpressible_kind(const Capabilities& caps, const Node* value) {
  if (caps.kinds.empty() || value == nullptr) return {};
  for (const Node* n : reachable(value)) {
    std::string_view name = kind_name(n->kind);
    if (std::find(caps.kinds.begin(), caps.kinds.end(), name) == caps.kinds.end()) {
      return std::string(name);
    }
  }
  return {};
}

std::optional<Message> dumps_step(Subject& subject, const TestCase& c, std::string_view stage,
                                  Outcome& failed) {
  DumpOptions options;
  options.protocol = c.protocol;
  options.out_of_band = c.out_of_band;
  std::string kind = inexpressible_kind(subject.capabilities(), c.value);
  if (!kind.empty()) {
    failed = Outcome::inexpressible(subject.name(),
                                    subject.name() + " cannot express " + kind + " values");
    return std::nullopt;
  }
  try {
    return subject.dumps(c.value, options);
  } catch (const std::exception& e) {
    failed = unsupported(e) ? Outcome::unsupported(subject.name(), subject.name() + ": " + e.what())
                            : exception_outcome(e, stage);
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
    if (unsupported(e)) {
      failed = Outcome::unsupported(subject.name(), subject.name() + ": " + e.what());
      return nullptr;
    }
    failed = exception_outcome(e, stage);
    failed.failing_message = message_to_json(m);
    return nullptr;
  }
}

bool same_value(const Node* a, const Node* b, bool python, Difference* why,
                const EqualOptions& options, const std::vector<std::string>& lost) {
  phase::Scope timed(phase::Phase::Compare);
  Graph ga;
  Graph gb;
  const bool sharing_lost = std::find(lost.begin(), lost.end(), "sharing") != lost.end() ||
                            std::find(lost.begin(), lost.end(), "immutable-sharing") != lost.end();
  // Through Python, getattr(M.Q, 'n') and the global M.Q.n are one object.
  Graph na;
  Graph nb;
  EqualOptions through = options;
  if (python) {
    a = getattr_as_globals(a, na);
    b = getattr_as_globals(b, nb);
    // numpy's own load turns an array pickled below protocol 5 in the other
    // byte order into a native one with the same numbers.
    through.ndarray_byte_order = false;
  }
  return equal_under(
      buffers_as_bytes(a, ga), buffers_as_bytes(b, gb),
      python || sharing_lost ? SharingRule::ImmutablesFree : SharingRule::GlobalsByName, why,
      through, lost);
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

bool python2_merges_keys(const Node* value) {
  for (const Node* n : reachable(value)) {
    if (n->kind != Kind::Dict && n->kind != Kind::Set && n->kind != Kind::FrozenSet) continue;
    const std::size_t step = n->kind == Kind::Dict ? 2 : 1;
    std::set<std::string_view> strs, ascii_bytes;
    for (std::size_t i = 0; i < n->items.size(); i += step) {
      const Node* k = n->items[i];
      if (k == nullptr) continue;
      if (k->kind == Kind::Str) strs.insert(k->payload());
      if (k->kind == Kind::Bytes && is_ascii(k->payload())) ascii_bytes.insert(k->payload());
    }
    for (std::string_view text : strs) {
      if (ascii_bytes.count(text) != 0) return true;
    }
  }
  return false;
}

bool is_python2(const Subject& subject) {
  return subject.capabilities().python_version.rfind("2.", 0) == 0;
}

bool through_python(const Subject& subject) {
  return subject.capabilities().python_values;
}

bool UnlistedFailure::take(Outcome& o) {
  if (!env_.replaying.empty() && o.fingerprint == env_.replaying) return true;
  if (std::find(env_.listed.begin(), env_.listed.end(), o.fingerprint) != env_.listed.end()) {
    return false;
  }
  if (env_.replaying.empty()) return true;
  if (!first_) first_ = std::move(o);
  return false;
}

}  // namespace serialcheck::props
