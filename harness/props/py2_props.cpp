// cross.py2 (docs/conformance.md, docs/versions.md "Python 2 and 3"): what
// Python 2 writes at protocols 0-2 read by Python 3 with each of the choices
// Python 3's pickle.loads offers for it, and what Python 3 writes at
// protocols 0-2 read by Python 2 with each of the writer's choices. Each
// choice is a cell of its own, "cross.py2/<producer>@<choice>", checked on
// the consumer.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "harness/props/value_tools.h"
#include "reference/common/utf8.h"
#include "reference/pickle/scan.h"

namespace serialcheck::props {
namespace {

// Which side chooses: a Python 3 reader of a Python 2 pickle, or a Python 3
// writer of a pickle for Python 2.
enum class Side { Read, Write };

struct Python2Choice {
  std::string_view name;
  Side side;
  std::string_view encoding;  // Read: loads' encoding= ("" for the default, ASCII)
  bool fix_imports;           // loads' or dumps' fix_imports=
};

constexpr Python2Choice kChoices[] = {
    {"ascii", Side::Read, "ASCII", true},             // pickle.loads' default
    {"latin1", Side::Read, "latin1", true},           // each byte its code point
    {"bytes", Side::Read, "bytes", true},             // a Python 2 str is bytes
    {"no-fix-imports", Side::Read, "", false},        // Python 2's names as written
    {"write-fix-imports", Side::Write, "", true},     // pickle.dumps' default
    {"write-no-fix-imports", Side::Write, "", false}  // Python 3's names as they are
};

const Python2Choice* find_choice(std::string_view name) {
  for (const Python2Choice& c : kChoices) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool is_python2(const Capabilities& caps) {
  return caps.python_version.rfind("2.", 0) == 0;
}

std::string version_of(const Capabilities& caps) {
  return caps.python_version.empty() ? std::string("no Python version")
                                     : "Python " + caps.python_version;
}

Applicability py2_applies(Subject& consumer, PropertyEnv& env, const std::string& producer_name,
                          const Python2Choice& choice) {
  std::string why;
  Subject* producer = env.subject(producer_name, &why);
  if (producer == nullptr) return skip("the producer " + producer_name + " is " + why);
  if (producer == &consumer) return skip("a subject's own pickles are roundtrip.*'s business");
  const Capabilities pc = producer->capabilities();
  const Capabilities cc = consumer.capabilities();
  if (!pc.can_dump) return skip("the producer " + producer_name + " does not write pickles");
  if (!pc.pickle_format || !cc.pickle_format)
    return skip("frame 0 of one side is not a plain pickle stream (no pickle_format)");
  if (choice.side == Side::Read) {
    if (!is_python2(pc)) {
      return skip("a reader's choice is for what Python 2 writes, and the producer " +
                  producer_name + " is " + version_of(pc));
    }
    if (is_python2(cc)) return skip("the consumer is Python 2 too: no choice to make");
    if (!cc.python2_choices) {
      return skip(
          "the consumer takes no encoding or fix_imports for Python 2's pickles (no "
          "python2_choices)");
    }
    // The reference's decoder keeps every name inert: without the mapping
    // it has no import that could fail, and would give Python 2's names.
    if (!choice.fix_imports && cc.native_codec) {
      return skip(
          "the consumer imports nothing (it keeps names inert), so fix_imports=False "
          "has no import to fail");
    }
  } else {
    if (!is_python2(cc)) {
      return skip("a writer's choice is for a Python 2 reader, and the consumer is " +
                  version_of(cc));
    }
    if (is_python2(pc)) return skip("the producer is Python 2 too: no choice to make");
    if (!pc.python2_choices) {
      return skip("the producer " + producer_name +
                  " takes no fix_imports for Python 2 (no python2_choices)");
    }
  }
  Applicability a;
  a.plan.python_safe = true;
  a.plan.graph_shaped = !pc.loses("sharing") && !cc.loses("sharing");
  a.plan.min_protocol = std::max(pc.min_protocol, cc.read_min());
  a.plan.max_protocol = std::min({pc.max_protocol, cc.read_max(), 2});
  a.plan.favoured_protocol = pc.default_protocol;
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "the two share none of the protocols 0-2 that Python 2 reads and writes";
  }
  return a;
}

// What a Python 3 reader with `encoding` makes of a value Python 2 wrote:
// the model's bytes travel as Python 2 strs, which come back as str
// (latin1, and ASCII for bytes within ASCII) or as bytes. Sets `beyond_ascii`
// when the value holds bytes beyond ASCII; nullptr (with `why`) when two
// keys of one dict or set become equal strs, which Python merges.
const Node* as_read(const Node* value, Graph& graph, std::string_view encoding, bool& beyond_ascii,
                    std::string& why) {
  beyond_ascii = false;
  for (const Node* n : reachable(value)) {
    if (n->kind == Kind::Bytes && !is_ascii(n->payload())) beyond_ascii = true;
  }
  if (encoding == "bytes") return value;
  Node* copy = copy_value(value, graph);
  for (const Node* c : reachable(copy)) {
    if (c->kind != Kind::Bytes) continue;
    Node* n = const_cast<Node*>(c);
    std::string text;
    for (const char ch : n->payload()) append_utf8(text, static_cast<unsigned char>(ch));
    n->kind = Kind::Str;
    n->flag = false;
    n->set_owned(std::move(text));
  }
  for (const Node* n : reachable(copy)) {
    if (n->kind != Kind::Dict && n->kind != Kind::Set && n->kind != Kind::FrozenSet) continue;
    const std::size_t step = n->kind == Kind::Dict ? 2 : 1;
    std::set<std::string_view> keys;
    for (std::size_t i = 0; i < n->items.size(); i += step) {
      const Node* k = n->items[i];
      if (k == nullptr || k->kind != Kind::Str) continue;
      if (!keys.insert(k->payload()).second) {
        why =
            "a bytes key and a str key that are equal once the bytes load as str: Python "
            "merges them, the value's business";
        return nullptr;
      }
    }
  }
  return copy;
}

// The modules the stream's globals name as it spells them, and the names
// they look up there (the last part of each qualname): what an import or
// a lookup that fails would name.
std::vector<std::string> written_names(const Message& m) {
  std::vector<std::string> out;
  if (m.frames.empty()) return out;
  pickle::ScanOptions options;
  options.fix_imports = false;
  const pickle::ScanResult scanned = pickle::scan(m.frames[0].view(), pickle::Allowlist{}, options);
  for (const pickle::ScanEntry& e : scanned.entries) {
    if (e.kind != pickle::ScanEntry::Kind::Global || e.module.empty()) continue;
    const std::string name = e.qualname.substr(e.qualname.rfind('.') + 1);
    for (const std::string& n : {e.module, name}) {
      if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

// `word` in `text`, not as part of a longer name.
bool names_word(std::string_view text, std::string_view word) {
  auto name_char = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || !name_char(text[at - 1])) && (end == text.size() || !name_char(text[end]))) {
      return true;
    }
  }
  return false;
}

bool names_ascii(std::string_view text) {
  std::string lower(text);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return names_word(lower, "ascii");
}

Outcome with_stream(Outcome o, const Message& m) {
  o.failing_message = message_to_json(m);
  return o;
}

Outcome py2_check(Subject& consumer, const TestCase& c, PropertyEnv& env,
                  const std::string& producer_name, const Python2Choice& choice) {
  Subject* producer = env.subject(producer_name, nullptr);
  if (producer == nullptr) return Outcome::discard("the producer is not available");
  const std::string kind = inexpressible_kind(producer->capabilities(), c.value);
  if (!kind.empty()) {
    return Outcome::discard("the producer " + producer_name + " cannot express " + kind +
                            " values");
  }
  const bool read = choice.side == Side::Read;
  // Python 2 holds both keys as one, whether it writes the value or reads it.
  if (python2_merges_keys(c.value)) {
    return Outcome::discard(
        "a str key and an ASCII bytes key with the same text, one key in Python 2 (unicode "
        "and str compare equal): the value's business");
  }
  DumpOptions dump;
  dump.protocol = c.protocol;
  dump.fix_imports = read || choice.fix_imports;
  // Bytes beyond ASCII where the reader chose an encoding; with the default
  // (no-fix-imports) the writer refuses them, as cross.matrix's reader.
  dump.reader_chooses_encoding = read && !choice.encoding.empty();
  Message m;
  try {
    m = as_pickle_message(producer->dumps(c.value, dump), c.protocol);
  } catch (const std::exception& e) {
    return Outcome::discard("the producer " + producer_name +
                            " cannot pickle this value: " + e.what());
  }

  Graph expected_graph;
  const Node* expected = c.value;
  bool beyond_ascii = false;
  if (read) {
    std::string why;
    expected = as_read(c.value, expected_graph, choice.encoding, beyond_ascii, why);
    if (expected == nullptr) return Outcome::discard(why);
  }
  // What Python 2 cannot express still counts, except str against bytes,
  // which is what the choices decide.
  std::vector<std::string> lost = fidelity(consumer, producer);
  if (read) lost.erase(std::remove(lost.begin(), lost.end(), "str-bytes"), lost.end());

  LoadOptions load;
  if (read) {
    load.encoding = std::string(choice.encoding);
    load.fix_imports = choice.fix_imports;
  }
  const bool must_fail = read && choice.encoding == "ASCII" && beyond_ascii;
  // The one error each choice allows: ASCII's for bytes beyond ASCII, and
  // without fix_imports an import of a module the stream names (or a name
  // looked up in one).
  const bool may_fail_import = !choice.fix_imports;
  Graph graph;
  Node* back = nullptr;
  try {
    back = consumer.loads(m, graph, load);
  } catch (const std::exception& e) {
    const auto* se = dynamic_cast<const SubjectError*>(&e);
    if (se != nullptr && se->kind() == kUnsupported) {
      return Outcome::unsupported(consumer.name(), e.what());
    }
    const std::string text = e.what();
    if (must_fail) {
      if (names_ascii(text)) return Outcome::pass();
      return with_stream(
          Outcome::fail("py2:no-clue",
                        fmt::format("with encoding=ASCII, {}'s protocol-{} pickle of bytes beyond "
                                    "ASCII failed without naming the codec: {}",
                                    producer_name, c.protocol, text)),
          m);
    }
    if (may_fail_import) {
      const std::vector<std::string> modules = written_names(m);
      for (const std::string& module : modules) {
        if (names_word(text, module)) return Outcome::pass();
      }
      std::string named;
      for (const std::string& module : modules) named += (named.empty() ? "" : ", ") + module;
      return with_stream(
          Outcome::fail(
              "py2:no-clue",
              fmt::format("with fix_imports=False, {}'s protocol-{} pickle failed "
                          "without naming a module or name it holds ({}): {}",
                          producer_name, c.protocol, named.empty() ? "none" : named, text)),
          m);
    }
    return with_stream(exception_outcome(e, "loads"), m);
  }
  if (back == nullptr) {
    return with_stream(Outcome::fail("exception:no-value@loads", "loads returned nothing"), m);
  }
  if (must_fail) {
    return with_stream(
        Outcome::fail("py2:wrong-value",
                      fmt::format("with encoding=ASCII, {}'s protocol-{} pickle of bytes beyond "
                                  "ASCII loaded to a value instead of failing",
                                  producer_name, c.protocol)),
        m);
  }
  Difference d;
  const bool python = through_python(consumer) || through_python(*producer);
  if (!same_value(expected, back, python, &d, {}, lost)) {
    return with_stream(
        mismatch_outcome(d, "loads", expected, back,
                         read ? fmt::format("dumped by {}, as encoding={} reads it", producer_name,
                                            choice.encoding.empty() ? "ASCII" : choice.encoding)
                              : "dumped by " + producer_name,
                         "loaded by " + consumer.name()),
        m);
  }
  return Outcome::pass();
}

}  // namespace

const std::vector<std::string>& python2_choices() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Python2Choice& c : kChoices) out.emplace_back(c.name);
    return out;
  }();
  return names;
}

GateProperty python2_property(const std::string& producer, const std::string& choice_name) {
  const Python2Choice* found = find_choice(choice_name);
  const Python2Choice choice = found != nullptr ? *found : kChoices[0];
  GateProperty p;
  p.id = std::string(kPython2Property) + "/" + producer + "@" + choice_name;
  p.summary = choice.side == Side::Read
                  ? "what Python 2's " + producer + " dumps, the subject loads with " +
                        choice_name + " as Python 3's pickle defines it"
                  : "what " + producer + " dumps with " + choice_name.substr(6) +
                        " at protocols 0-2, the Python 2 subject loads";
  p.applies = [producer, choice](Subject& s, PropertyEnv& env) {
    return py2_applies(s, env, producer, choice);
  };
  p.check = [producer, choice](Subject& s, const TestCase& c, PropertyEnv& env) {
    return py2_check(s, c, env, producer, choice);
  };
  p.needs_dumps = false;
  if (choice.side == Side::Read) {
    if (choice.name == "ascii" || choice.name == "bytes") {
      p.controls.push_back(control("py2-strs-as-latin1",
                                   "a Python 3 reader that loads every Python 2 str as latin-1 "
                                   "text, whatever encoding was chosen",
                                   choice.name == "ascii" ? "py2:wrong-value" : "mismatch:"));
    }
    if (choice.name == "latin1" || choice.name == "bytes") {
      p.controls.push_back(control("py2-strs-as-ascii",
                                   "a Python 3 reader that loads every Python 2 str as ASCII "
                                   "text, whatever encoding was chosen",
                                   choice.name == "latin1" ? "exception:" : "mismatch:"));
    }
    if (choice.name == "no-fix-imports") {
      p.controls.push_back(control("py2-names-without-clue",
                                   "a Python 3 reader that, without fix_imports, fails on "
                                   "Python 2's module names with an error that names none",
                                   "py2:no-clue"));
    }
  } else if (choice.fix_imports) {
    p.controls.push_back(peer_control("ignores-fix-imports", "reference",
                                      "a Python 3 writer that writes Python 3's module names "
                                      "below protocol 3 even when told to fix them",
                                      "exception:"));
  } else {
    p.controls.push_back(control("py2-reader-without-clue",
                                 "a Python 2 reader that fails on Python 3's module names with "
                                 "an error that names none",
                                 "py2:no-clue"));
  }
  return p;
}

}  // namespace serialcheck::props
