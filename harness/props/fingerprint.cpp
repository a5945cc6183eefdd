#include "harness/props/fingerprint.h"

#include <cctype>
#include <deque>
#include <set>

#include "harness/props/value_tools.h"

namespace serialcheck {
namespace {

bool collection(Kind k) {
  return k == Kind::List || k == Kind::Tuple || k == Kind::Dict || k == Kind::Set ||
         k == Kind::FrozenSet;
}

std::string kind_category(const Node* n) {
  if (n == nullptr) return "none";
  if (n->kind == Kind::Tensor && n->array()) return "tensor." + dtype_family(n->array()->dtype);
  if (collection(n->kind)) return "collection";
  return std::string(kind_name(n->kind));
}

// The kind names a difference reason may start with, as kind_name() spells them.
bool is_kind_name(std::string_view word) {
  for (int k = 0; k <= static_cast<int>(kLastKind); ++k) {
    if (kind_name(static_cast<Kind>(k)) == word) return true;
  }
  return false;
}

std::string category_of_kind_name(std::string_view word) {
  for (std::string_view c : {"list", "tuple", "dict", "set", "frozenset"}) {
    if (word == c) return "collection";
  }
  return std::string(word);
}

std::string_view next_word(std::string_view text, std::size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  std::size_t start = at;
  while (at < text.size() && text[at] != ' ') ++at;
  return text.substr(start, at - start);
}

// The shape of a RecursionError names where the limit was hit ("in
// comparison", "while calling a Python object"), which depends on how deep
// the drawn value is, not on why the recursion never ends.
constexpr std::string_view kRecursionShape = "maximum-recursion-depth-exceeded";

// The shape of a missing reduction: Python's default reduction fails with
// "cannot pickle 'T' object" at protocol 2 and later.
constexpr std::string_view kNoReductionShape = "cannot-pickle-q-object";

// Class names the value holds: the last part of every global's qualname
// (a module's ModuleType subclass, an object's class).
bool names_a_class_of(const Node* root, std::string_view name) {
  for (const Node* n : reachable(root)) {
    if (n->kind != Kind::Global) continue;
    std::string_view qualname = n->name();
    if (std::size_t dot = qualname.rfind('.'); dot != std::string_view::npos) {
      qualname.remove_prefix(dot + 1);
    }
    if (qualname == name) return true;
  }
  return false;
}

// At protocols 0 and 1 the same missing reduction reads otherwise:
// copyreg._reduce_ex calls the object's nearest built-in base with the
// object itself, so the base's constructor rejects it by its type:
// "module() argument 'name' must be str, not ScModule_0". True for a
// TypeError at a dumps stage whose message is such an argument error naming
// a class the value holds.
bool default_reduction_failure(const std::string& base, std::string_view message,
                               const TestCase& c) {
  if (base.rfind("exception:TypeError@", 0) != 0 || base.find("dumps") == std::string::npos ||
      c.protocol >= 2) {
    return false;
  }
  if (std::size_t r = message.find(" raised TypeError: "); r != std::string_view::npos) {
    message.remove_prefix(r + 19);
  }
  const std::size_t call = message.find("() argument ");
  const std::size_t must = message.find(" must be ", call == std::string_view::npos ? 0 : call);
  const std::size_t not_at = message.rfind(", not ");
  if (call == std::string_view::npos || must == std::string_view::npos ||
      not_at == std::string_view::npos || not_at < must) {
    return false;
  }
  std::string_view type = message.substr(not_at + 6);
  if (type.size() >= 2 && (type.front() == '\'' || type.front() == '"') &&
      type.back() == type.front()) {
    type = type.substr(1, type.size() - 2);
  }
  return !type.empty() && names_a_class_of(c.value, type);
}

}  // namespace

std::string dtype_family(std::string_view d) {
  if (d == "bool") return "bool";
  if (d == "bfloat16") return "bfloat16";
  if (d.rfind("complex", 0) == 0) return "complex";
  if (d.rfind("float", 0) == 0 || d == "half" || d == "double") return "float";
  if (d.rfind("int", 0) == 0 || d.rfind("uint", 0) == 0) return "int";
  return d.empty() ? "unknown" : std::string(d);
}

std::string value_category(const Node* root) {
  if (root == nullptr) return "none";
  // Breadth first over every reference a node holds, each node once.
  std::deque<const Node*> queue{root};
  std::set<const Node*> seen{root};
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    if (is_domain(n->kind)) return kind_category(n);
    auto push = [&](const Node* c) {
      if (c != nullptr && seen.insert(c).second) queue.push_back(c);
    };
    for (const Node* c : children(n)) push(c);
  }
  return kind_category(root);
}

std::string difference_category_of(std::string_view message) {
  constexpr std::string_view lead = "values differ at ";
  if (message.rfind(lead, 0) != 0) return {};
  std::size_t colon = message.find(": ", lead.size());
  if (colon == std::string_view::npos) return {};
  std::string_view reason = message.substr(colon + 2);
  std::size_t at = 0;
  std::string_view first = next_word(reason, at);
  if (first == "kind") {
    std::string_view a = next_word(reason, at);
    next_word(reason, at);  // "!="
    std::string_view b = next_word(reason, at);
    if (is_kind_name(a) && is_kind_name(b)) {
      // A generic object where something else belongs is a reduce call the
      // loader kept as a call: the call is the cause, whatever type it
      // stood for (dill's _load_type('set') and _load_type('bytearray')).
      if (b == "object") return "any->object";
      // The kinds themselves, containers too: a tuple read as a list is the
      // difference.
      return std::string(a) + "->" + std::string(b);
    }
    return {};
  }
  if (first == "sharing") {
    // "sharing differs: the left list is the same object as ..."
    next_word(reason, at);
    next_word(reason, at);
    next_word(reason, at);
    std::string_view k = next_word(reason, at);
    return is_kind_name(k) ? category_of_kind_name(k) : std::string();
  }
  if (first == "missing" || first == "present") return "entry";
  return is_kind_name(first) ? category_of_kind_name(first) : std::string();
}

std::string message_shape(std::string_view message) {
  // Drop "<stage> raised " and the "<kind>: " the exception text starts with.
  if (std::size_t r = message.find(" raised "); r != std::string_view::npos) {
    message.remove_prefix(r + 8);
    std::size_t colon = message.find(": ");
    std::size_t space = message.find(' ');
    if (colon != std::string_view::npos && (space == std::string_view::npos || colon <= space)) {
      message.remove_prefix(colon + 2);
    }
  }
  message = message.substr(0, message.find('\n'));
  std::string words;  // tokens separated by single spaces
  auto put = [&words](std::string_view token) {
    if (!words.empty() && words.back() != ' ') words.push_back(' ');
    words.append(token);
  };
  std::size_t i = 0;
  while (i < message.size()) {
    unsigned char c = static_cast<unsigned char>(message[i]);
    // An apostrophe inside a word ("can't", "it's") is not a quote.
    const bool in_word = i > 0 && std::isalpha(static_cast<unsigned char>(message[i - 1]));
    if ((c == '\'' && !in_word) || c == '"') {
      std::size_t j = i + 1;
      while (j < message.size() && message[j] != static_cast<char>(c)) j += message[j] == '\\' ? 2 : 1;
      put("q");
      i = j + 1;
    } else if (c == '<') {
      std::size_t j = message.find('>', i);
      if (j == std::string_view::npos) j = message.size();
      put("a");
      i = j + 1;
    } else if (c == '0' && i + 1 < message.size() && (message[i + 1] == 'x' || message[i + 1] == 'X')) {
      std::size_t j = i + 2;
      while (j < message.size() && std::isxdigit(static_cast<unsigned char>(message[j]))) ++j;
      put("x");
      i = j;
    } else if (std::isdigit(c)) {
      std::size_t j = i;
      while (j < message.size() &&
             (std::isdigit(static_cast<unsigned char>(message[j])) || message[j] == '.' ||
              message[j] == 'e' || message[j] == 'E' ||
              ((message[j] == '+' || message[j] == '-') && j > i &&
               (message[j - 1] == 'e' || message[j - 1] == 'E')))) {
        ++j;
      }
      // Digits that end a name (ScModule_0, float32) are part of it: n then.
      if (!words.empty() && words.back() != ' ') {
        words.push_back('n');
      } else {
        put("n");
      }
      i = j;
    } else if (std::isalpha(c) || c == '_') {
      std::size_t j = i;
      while (j < message.size() && (std::isalpha(static_cast<unsigned char>(message[j])) ||
                                    message[j] == '_')) {
        ++j;
      }
      // A dotted name (module.qualname, as "not found as m.f" or "lookup
      // m.C failed" print it) names what the drawn value holds: q, like
      // quoted text.
      std::size_t k = i;
      bool dotted = false;
      while (k < message.size() && (std::isalnum(static_cast<unsigned char>(message[k])) ||
                                    message[k] == '_' ||
                                    (message[k] == '.' && k + 1 < message.size() &&
                                     (std::isalpha(static_cast<unsigned char>(message[k + 1])) ||
                                      message[k + 1] == '_')))) {
        dotted = dotted || message[k] == '.';
        ++k;
      }
      if (dotted && (i == 0 || !std::isalnum(static_cast<unsigned char>(message[i - 1])))) {
        put("q");
        i = k;
        continue;
      }
      std::string token(message.substr(i, j - i));
      for (char& ch : token) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (!words.empty() && words.back() != ' ' && std::isalnum(static_cast<unsigned char>(words.back())) &&
          i > 0 && std::isalnum(static_cast<unsigned char>(message[i - 1]))) {
        words.append(token);
      } else {
        put(token);
      }
      i = j;
    } else {
      if (!words.empty() && words.back() != ' ') words.push_back(' ');
      ++i;
    }
  }
  std::string slug;
  for (char ch : words) {
    if (ch == ' ') {
      if (!slug.empty() && slug.back() != '-') slug.push_back('-');
    } else {
      slug.push_back(ch);
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.rfind(kRecursionShape, 0) == 0) return std::string(kRecursionShape);
  if (slug.size() > 48) {
    std::size_t cut = slug.rfind('-', 48);
    slug.resize(cut == std::string::npos || cut == 0 ? 48 : cut);
  }
  return slug;
}

std::string refine_fingerprint(const Outcome& o, const TestCase& c) {
  const std::string& base = o.fingerprint;
  if (base.find('/') != std::string::npos) return base;
  auto starts = [&base](std::string_view p) { return base.rfind(p, 0) == 0; };
  if (starts("mismatch:")) {
    std::string category = difference_category_of(o.message);
    if (category.empty()) category = value_category(c.value);
    return base + "/" + category;
  }
  if (starts("exception:")) {
    std::string out = base + "/" + value_category(c.value);
    std::string shape = default_reduction_failure(base, o.message, c)
                            ? std::string(kNoReductionShape)
                            : message_shape(o.message);
    if (!shape.empty()) out += "/" + shape;
    return out;
  }
  // Failures of the domain properties: the domain names the value; a tensor's
  // dtype family is part of the cause where the check was about that tensor.
  if (starts("tensor:") || starts("zerocopy:") || starts("module:") || starts("header:") ||
      starts("negotiate:")) {
    std::string category = value_category(c.value);
    if (category.rfind("tensor.", 0) == 0) category = "tensor";
    return base + "/" + category;
  }
  return base;
}

std::string fingerprint_cause(std::string_view fingerprint) {
  std::size_t first = fingerprint.find('/');
  if (first == std::string_view::npos) return std::string(fingerprint);
  std::size_t second = fingerprint.find('/', first + 1);
  std::string out(fingerprint.substr(0, first));
  if (second != std::string_view::npos) out += std::string(fingerprint.substr(second));
  return out;
}

}  // namespace serialcheck
