// The scan is a decode with an observer and no allowlist: the decoder reads
// the stream as it always does (so STACK_GLOBAL names are the strs actually
// on the stack, memo and all), and the observer writes one entry per event.
// Entry texts are capped, so a stream naming one long memoized name again
// and again for a few bytes each cannot make the report grow faster than
// the input.
#include "reference/pickle/scan.h"

#include <fmt/format.h>

#include <algorithm>

#include "reference/common/pyrepr.h"
#include "reference/pickle/decoder.h"

namespace serialcheck::pickle {

namespace {

// Longest text kept in one field of an entry; longer ones end in "...".
constexpr std::size_t kMaxFieldChars = 200;

std::string capped(std::string_view s) {
  if (s.size() <= kMaxFieldChars) return std::string(s);
  return std::string(s.substr(0, kMaxFieldChars)) + "...";
}

// For the `name` column: control characters and backslashes escaped, so a
// name read from a STACK_GLOBAL str cannot break a line of the report.
std::string display(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < kMaxFieldChars; ++i) {
    append_escaped_bytes(out, s.substr(i, 1), Shown::AllButControls);
  }
  if (out.size() >= kMaxFieldChars && s.size() > kMaxFieldChars) out += "...";
  return out;
}

std::string dotted(std::string_view module, std::string_view qualname) {
  return display(module) + "." + display(qualname);
}

bool is_global(const Node* n, std::string_view module, std::string_view name) {
  return n != nullptr && n->kind == Kind::Global && n->payload() == module && n->name() == name;
}

// The class of an object BUILD sets the state of: its callable, or for the
// NEWOBJ and NEWOBJ_EX forms (callable copyreg.__newobj__/__newobj_ex__)
// the class those were given.
const Node* class_of(const Node* obj) {
  if (obj == nullptr || obj->kind != Kind::Object || obj->obj() == nullptr) return obj;
  const ObjectParts& parts = *obj->obj();
  if ((is_global(parts.callable, "copyreg", "__newobj__") ||
       is_global(parts.callable, "copyreg", "__newobj_ex__")) &&
      parts.args != nullptr && !parts.args->items.empty()) {
    return parts.args->items[0];
  }
  return parts.callable;
}

class Collector : public DecodeObserver {
 public:
  Collector(const Allowlist& allowlist, std::vector<ScanEntry>& out)
      : allowlist_(allowlist), out_(out) {}

  void on_global(const GlobalEvent& e) override {
    ScanEntry entry = start(ScanEntry::Kind::Global, e.offset, e.opcode);
    entry.module = capped(e.module);
    entry.qualname = capped(e.qualname);
    if (e.written_module != e.module || e.written_qualname != e.qualname) {
      entry.written = dotted(e.written_module, e.written_qualname);
    }
    entry.name = dotted(e.module, e.qualname);
    entry.allowed = allowlist_.allows(e.module, e.qualname);
    out_.push_back(std::move(entry));
  }

  void on_call(const CallEvent& e) override {
    ScanEntry entry = start(ScanEntry::Kind::Call, e.offset, e.opcode);
    const Node* callee = e.opcode == "BUILD" ? class_of(e.callee) : e.callee;
    if (e.opcode == "BUILD" && (e.callee == nullptr || e.callee->kind != Kind::Object)) {
      // Not an object: the decoder refuses this BUILD right after.
      entry.name = fmt::format("<{}>", e.callee ? kind_name(e.callee->kind) : "null");
    } else if (callee != nullptr && callee->kind == Kind::Global) {
      entry.module = capped(callee->payload());
      entry.qualname = capped(callee->name());
      entry.name = dotted(callee->payload(), callee->name());
      entry.allowed = allowlist_.allows(callee->payload(), callee->name());
    } else if (callee != nullptr && callee->kind == Kind::PersId) {
      entry.name = "<persistent id>";
      entry.allowed = allowlist_.persistent_ids;
    } else if (callee != nullptr && callee->kind == Kind::Object && callee->obj() != nullptr &&
               callee->obj()->callable != nullptr &&
               callee->obj()->callable->kind == Kind::Global) {
      const Node* maker = callee->obj()->callable;
      entry.name = "<result of " + dotted(maker->payload(), maker->name()) + ">";
    } else {
      entry.name = fmt::format("<{}>", callee ? kind_name(callee->kind) : "null");
    }
    out_.push_back(std::move(entry));
  }

  void on_persistent_id(const PersistentIdEvent& e) override {
    ScanEntry entry = start(ScanEntry::Kind::PersistentId, e.offset, e.opcode);
    entry.name = display(describe_value(e.pid, kMaxFieldChars));
    entry.allowed = allowlist_.persistent_ids;
    out_.push_back(std::move(entry));
  }

 private:
  static ScanEntry start(ScanEntry::Kind kind, std::size_t offset, std::string_view opcode) {
    ScanEntry entry;
    entry.kind = kind;
    entry.offset = offset;
    entry.opcode = std::string(opcode);
    return entry;
  }

  const Allowlist& allowlist_;
  std::vector<ScanEntry>& out_;
};

}  // namespace

std::string_view scan_kind_name(ScanEntry::Kind kind) {
  switch (kind) {
    case ScanEntry::Kind::Global: return "global";
    case ScanEntry::Kind::Call: return "call";
    case ScanEntry::Kind::PersistentId: return "persistent-id";
  }
  return "unknown";
}

std::size_t ScanResult::forbidden() const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [](const ScanEntry& e) { return !e.allowed; }));
}

ScanResult scan(std::span<const std::uint8_t> data, const Allowlist& allowlist,
                const ScanOptions& options) {
  ScanResult result;
  result.size = data.size();
  Collector collector(allowlist, result.entries);
  DecodeOptions decode_options;
  decode_options.max_protocol = options.max_protocol;
  decode_options.fix_imports = options.fix_imports;
  decode_options.limits = options.limits;
  decode_options.stand_in_buffers = true;
  decode_options.observer = &collector;
  Graph graph;
  try {
    const DecodeResult decoded = decode(data, graph, decode_options);
    result.protocol = decoded.protocol;
    result.consumed = decoded.consumed;
  } catch (const PickleError& e) {
    result.error = e;
    if (data.size() >= 2 && data[0] == 0x80) result.protocol = data[1];
  }
  return result;
}

}  // namespace serialcheck::pickle
