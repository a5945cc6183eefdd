#include "harness/subjects/mutant_subjects.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "harness/gen/malformed.h"
#include "harness/gen/stdlib_recipes.h"
#include "harness/props/value_tools.h"
#include "harness/subjects/reference_subject.h"
#include "harness/subjects/stdlib_runner.h"
#include "reference/common/utf8.h"
#include "reference/device/device.h"
#include "reference/frames/family.h"
#include "reference/frames/header.h"
#include "reference/frames/packed.h"
#include "reference/pickle/compat.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/scan.h"

namespace serialcheck {
namespace {

using Role = NegativeControl::Role;

// ---- graph surgery on values the mutant owns -------------------------------------

std::vector<Node*> nodes_of(const Node* root) {
  std::vector<Node*> out;
  for (const Node* n : reachable(root)) out.push_back(const_cast<Node*>(n));
  return out;
}

void negate_ints(const Node* root) {
  for (Node* n : nodes_of(root)) {
    if (n->kind == Kind::Int && !n->big && n->small() != std::numeric_limits<std::int64_t>::min()) {
      n->set_small(-n->small());
    }
  }
}

// Every array of items wider than a byte names the other byte order ('<f8'
// becomes '>f8') over the same bytes: numpy reads other numbers from them.
void flip_array_byteorder(const Node* root) {
  for (Node* n : nodes_of(root)) {
    if (n->kind != Kind::NDArray || n->array() == nullptr) continue;
    std::string& dtype = n->array()->dtype;
    if (dtype.empty() || (dtype[0] != '<' && dtype[0] != '>')) continue;
    dtype[0] = dtype[0] == '<' ? '>' : '<';
  }
}

// A node equal to `n` in contents that is not `n`, or nullptr for kinds the
// mutant leaves alone.
Node* shallow_copy(const Node* n, Graph& g) {
  switch (n->kind) {
    case Kind::List: return g.list(n->items);
    case Kind::Tuple: return g.tuple(n->items);
    case Kind::Dict: return g.dict(n->items);
    case Kind::Set: return g.set(n->items);
    case Kind::FrozenSet: return g.frozenset(n->items);
    case Kind::Str: return g.str(std::string(n->payload()));
    case Kind::Bytes: return g.bytes(std::string(n->payload()));
    case Kind::ByteArray: return g.bytearray(std::string(n->payload()));
    default: return nullptr;
  }
}

// Every item slot that reaches a node seen before gets a fresh copy of it.
void unshare(Node* root, Graph& g) {
  std::unordered_set<const Node*> seen{root};
  std::vector<Node*> todo{root};
  while (!todo.empty()) {
    Node* n = todo.back();
    todo.pop_back();
    for (Node*& item : n->items) {
      if (item == nullptr) continue;
      if (!seen.insert(item).second) {
        if (Node* copy = shallow_copy(item, g)) item = copy;
        continue;
      }
      todo.push_back(item);
    }
  }
}

Message with_owned_frames(Message m) {
  for (std::size_t i = 1; i < m.frames.size(); ++i) {
    if (m.frames[i].on_device()) continue;
    m.frames[i] = Frame::owned(std::string(m.frames[i].view()), m.frames[i].readonly);
  }
  return m;
}

// ---- families with one bug ---------------------------------------------------------

// The builtin cuda family, except that each device buffer is staged through
// host memory: downloaded, then uploaded again as a new allocation.
families::Family cuda_through_host() {
  families::Family f = families::cuda_family();
  f.dumps = [inner = f.dumps](const Node& value,
                              families::DumpContext& ctx) -> std::optional<Message> {
    std::optional<Message> m = inner(value, ctx);
    if (!m || m->frames.size() != 1 || !m->frames[0].on_device()) return m;
    const device::Buffer& buffer = *m->frames[0].device_buffer;
    const std::string staged = buffer.device().download(buffer);
    m->frames[0] = Frame::device_view(
        buffer.device().upload(
            {reinterpret_cast<const std::uint8_t*>(staged.data()), staged.size()}),
        false);
    return m;
  };
  return f;
}

// A pickle family that writes the pickle at this side's protocol whatever
// the peer reads, while recording the negotiated one.
families::Family ignores_peer_protocol() {
  families::Family f = families::pickle_family();
  f.dumps = [](const Node& value, families::DumpContext& ctx) -> std::optional<Message> {
    pickle::EncodeOptions options;
    options.protocol = ctx.options().protocol;
    std::vector<Frame> buffers;
    nlohmann::json writeable = nlohmann::json::array();
    if (options.protocol >= 5 && ctx.options().out_of_band) {
      options.buffer_callback = [&](const Node& buffer) {
        const auto payload = buffer.payload();
        buffers.push_back(Frame::borrowed_view(payload.data(), payload.size(), buffer.flag));
        writeable.push_back(!buffer.flag);
        return false;
      };
    }
    Message m;
    m.frames.push_back(Frame::owned(pickle::encode(&value, options).bytes));
    for (Frame& b : buffers) m.frames.push_back(std::move(b));
    m.header = {{"serializer", "pickle"},
                {"writeable", std::move(writeable)},
                {"pickle-protocol", ctx.pickle_protocol()}};
    return m;
  };
  return f;
}

// The builtin pickle family without "writeable" in its header.
families::Family drops_writeable() {
  families::Family f = families::pickle_family();
  f.dumps = [inner = f.dumps](const Node& value,
                              families::DumpContext& ctx) -> std::optional<Message> {
    std::optional<Message> m = inner(value, ctx);
    if (m) m->header.erase("writeable");
    return m;
  };
  return f;
}

// The registry of a mutant whose bug lives in one of its families, or
// nullptr for the others.
std::unique_ptr<families::FamilyRegistry> family_mutant(std::string_view bug) {
  auto registry =
      std::make_unique<families::FamilyRegistry>(families::FamilyRegistry::with_builtin());
  if (bug == "cuda-through-host") {
    registry->add(cuda_through_host());
  } else if (bug == "ignores-peer-protocol") {
    registry->add(ignores_peer_protocol());
  } else if (bug == "drops-writeable") {
    registry->add(drops_writeable());
  } else {
    return nullptr;
  }
  return registry;
}

class Mutant : public ReferenceSubject {
 public:
  Mutant(std::string name, std::string_view bug)
      : name_(std::move(name)), bug_(bug), registry_(family_mutant(bug)) {}
  std::string name() const override { return name_; }
  // A family mutant's families; the others keep the reference's own.
  const families::FamilyRegistry* family_registry() const override {
    return registry_ ? registry_.get() : ReferenceSubject::family_registry();
  }

  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    // The reference's own codec only where the property asks how it copies.
    c.native_codec = is("copies-buffers") || is("first-item-only");
    c.cpython_bytes = is("drops-frame") || is("claims-3.6") || is("flips-array-byteorder");
    if (is("claims-3.6")) {
      c.python_version = "3.6.15";
      c.max_protocol = 4;
    }
    if (is("refuses-5-without-naming-it")) c.read_max_protocol = 4;
    if (is("claims-protocol-4-reads-3")) c.read_max_protocol = 4;
    // Python modules with a broken by-value dumps() (harness/testees/python/):
    // serialcheck_by_reference registers the object's module and pickles it
    // by reference; serialcheck_drops_defaults drops a function's defaults;
    // serialcheck_forgets_classes makes a new class at each load;
    // serialcheck_writes_back writes a class as pickled back over the live one.
    // Stdlib values through the embedded interpreter's runner, where there is one.
    if (is("loads-first-of-kind")) c.stdlib_recipes = stdlib_runner() != nullptr;
    if (is("pickles-by-reference")) c.by_value_pickler = "serialcheck_by_reference";
    if (is("drops-defaults")) c.by_value_pickler = "serialcheck_drops_defaults";
    if (is("forgets-classes")) c.by_value_pickler = "serialcheck_forgets_classes";
    if (is("writes-back-on-load")) c.by_value_pickler = "serialcheck_writes_back";
    if (is("clobbers-sub-header") || is("distributed-drops-grad") || registry_) {
      c.families = {"dask", "pickle"};
      c.pickle_format = false;
      c.limit_loader = false;
    }
    return c;
  }

  Message dumps(const Node* value, const DumpOptions& options) override {
    if (is("clobbers-sub-header") || is("distributed-drops-grad") || registry_) {
      families::SerializeOptions so;
      so.protocol = options.protocol;
      so.out_of_band = options.out_of_band || is("distributed-drops-grad");
      Message m = families::serialize(value, so, *family_registry());
      if (is("clobbers-sub-header")) clobber(m.header);
      return m;
    }
    if (is("negates-ints") || is("flips-array-byteorder")) {
      Graph copy;
      Node* v = copy_value(value, copy);
      if (is("negates-ints")) negate_ints(v);
      if (is("flips-array-byteorder")) flip_array_byteorder(v);
      return with_owned_frames(ReferenceSubject::dumps(v, options));
    }
    DumpOptions o = options;
    if (is("ignores-fix-imports")) o.fix_imports = false;
    if (is("first-item-only")) {
      const bool first_is_array = value->kind == Kind::NDArray ||
                                  (!value->items.empty() && value->items.front() != nullptr &&
                                   value->items.front()->kind == Kind::NDArray);
      o.out_of_band = o.out_of_band && first_is_array;
    }
    Message m = ReferenceSubject::dumps(value, o);
    if (is("copies-buffers")) return with_owned_frames(std::move(m));
    if (is("drops-frame")) {
      std::string bytes(m.frames[0].view());
      // PROTO p, then FRAME and its 8-byte length.
      if (bytes.size() > 11 && static_cast<unsigned char>(bytes[0]) == 0x80 &&
          static_cast<unsigned char>(bytes[2]) == 0x95) {
        bytes.erase(2, 9);
        m.frames[0] = Frame::owned(std::move(bytes), m.frames[0].readonly);
      }
    }
    return m;
  }

  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    if (is("clobbers-sub-header") || is("distributed-drops-grad") || registry_) {
      Node* root = families::deserialize(m, graph, {}, *family_registry());
      if (is("distributed-drops-grad")) drop_grads(root);
      return root;
    }
    if (is("accepts-anything")) {
      try {
        return ReferenceSubject::loads(m, graph, options);
      } catch (const std::exception&) {
        return graph.none();
      }
    }
    if (is("ignores-frame-length") && !m.frames.empty()) {
      // What pickle.py's loader does: a frame's contents are read up to
      // STOP whatever its length says.
      Message unframed = m;
      unframed.frames[0] = Frame::owned(gen::without_frames(m.frames[0].view()), true);
      return ReferenceSubject::loads(unframed, graph, options);
    }
    if (is("reads-float-overflow-as-infinity")) {
      try {
        return ReferenceSubject::loads(m, graph, options);
      } catch (const std::exception& e) {
        // What pickle.py's float() does with FLOAT 1e999, where the C
        // unpickler raises OverflowError. Only a stream kept as a file
        // (corpus/malformed/bad-float-overflow.pickle) holds such a FLOAT.
        if (std::string_view(e.what()).find("FLOAT argument is out of range") ==
            std::string_view::npos)
          throw;
        return graph.floating(std::numeric_limits<double>::infinity());
      }
    }
    if (is("skips-utf8-validation")) {
      try {
        return ReferenceSubject::loads(m, graph, options);
      } catch (const std::exception& e) {
        // What a decoder with errors="replace" (a JavaScript TextDecoder's
        // default) returns where the reference finds text that is not UTF-8.
        if (std::string_view(e.what()).find("not valid UTF-8") == std::string_view::npos) throw;
        return graph.str("\xef\xbf\xbd");
      }
    }
    if (is("refuses-5-without-naming-it") && !m.frames.empty() && m.frames[0].size >= 2 &&
        m.frames[0].data[0] == 0x80 && m.frames[0].data[1] == 5) {
      throw SubjectError("UnpicklingError", "this stream cannot be read here");
    }
    if (is("claims-protocol-4-reads-3") && !m.frames.empty() && m.frames[0].size >= 2 &&
        m.frames[0].data[0] == 0x80 && m.frames[0].data[1] >= 4) {
      throw SubjectError("ValueError",
                         "unsupported pickle protocol: " + std::to_string(m.frames[0].data[1]));
    }
    LoadOptions o = options;
    if (is("ignores-protocol-limit")) o.max_protocol = 5;
    Node* root = ReferenceSubject::loads(m, graph, o);
    if (is("tuples-as-lists")) {
      for (Node* n : nodes_of(root)) {
        if (n->kind == Kind::Tuple) n->kind = Kind::List;
      }
    } else if (is("loses-sharing")) {
      unshare(root, graph);
    } else if (is("negates-ints")) {
      negate_ints(root);
    } else if (is("flips-array-byteorder")) {
      flip_array_byteorder(root);
    } else if (is("drops-grad")) {
      drop_grads(root);
    } else if (is("copies-modules")) {
      for (Node* n : nodes_of(root)) {
        if (n->kind == Kind::Module) n->flag = true;  // "a new module object"
      }
    } else if (is("unstable-second-load")) {
      std::string frame0 = m.frames.empty() ? std::string() : std::string(m.frames[0].view());
      const bool again = frame0 == last_frame0_;
      last_frame0_ = std::move(frame0);
      if (again) return graph.tuple({root});
    }
    return root;
  }

  PackedBytes pack(const Message& message, Compression codec) override {
    PackedBytes out = ReferenceSubject::pack(message, codec);
    if (is("swaps-compression")) out.bytes = swap_compression(out.bytes);
    return out;
  }

  std::string dumps_recipe(const std::string& recipe, int protocol) override {
    if (!is("loads-first-of-kind")) return ReferenceSubject::dumps_recipe(recipe, protocol);
    return runner().dumps("c", recipe, protocol);
  }

  // Loads, in place of the pickle given, one of the first recipe of the
  // same kind written at the same protocol.
  RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle) override {
    if (!is("loads-first-of-kind")) return ReferenceSubject::loads_recipe(recipe, pickle);
    const std::string_view kind = gen::recipe_kind(recipe);
    for (std::string_view first : gen::stdlib_recipes()) {
      if (gen::recipe_kind(first) != kind) continue;
      if (first == recipe) break;  // the first itself: loaded as it is
      const int protocol = pickle.size() >= 2 && static_cast<unsigned char>(pickle[0]) == 0x80
                               ? static_cast<unsigned char>(pickle[1])
                               : 0;
      return runner().loads("c", recipe, runner().dumps("c", std::string(first), protocol));
    }
    return runner().loads("c", recipe, pickle);
  }

 private:
  bool is(std::string_view bug) const { return bug_ == bug; }

  static const StdlibRunner& runner() {
    const StdlibRunner* r = stdlib_runner();
    if (r == nullptr) {
      throw SubjectError(kUnsupported, "no embedded Python interpreter to build stdlib values in");
    }
    return *r;
  }

  static void drop_grads(const Node* root) {
    for (Node* n : nodes_of(root)) {
      if (n->kind == Kind::Tensor && n->array()) n->array()->grad = nullptr;
    }
  }

  // The packed message with the "compression" entries of its first
  // compressed frame and its first frame sent as is swapped (the frames
  // stay where they are); as it is without both.
  static std::string swap_compression(const std::string& packed) {
    std::vector<Frame> frames = unpack_frames(byte_span(packed));
    nlohmann::json header = decode_header(frames.at(0).bytes());
    nlohmann::json& entries = header["compression"];
    std::size_t compressed = entries.size();
    std::size_t plain = entries.size();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].is_string() && compressed == entries.size()) compressed = i;
      if (entries[i].is_null() && plain == entries.size()) plain = i;
    }
    if (compressed == entries.size() || plain == entries.size()) return packed;
    std::swap(entries[compressed], entries[plain]);
    const std::string head = encode_header(header);
    frames[0] = Frame::borrowed_view(head.data(), head.size());
    return pack_frames(frames);
  }

  // The wrapping family's "type" written into the header it nests.
  static void clobber(nlohmann::json& header) {
    if (!header.contains("sub-header") || !header["sub-header"].is_object()) return;
    nlohmann::json& torch = header["sub-header"];
    if (!torch.contains("sub-header") || !torch["sub-header"].is_object()) return;
    torch["sub-header"]["type"] = header.value("type", "torch.Tensor");
  }

  std::string name_;
  std::string_view bug_;
  std::unique_ptr<families::FamilyRegistry> registry_;
  std::string last_frame0_;
};

// ---- Python 2 and Python 3 stand-ins (cross.py2) --------------------------

// The first global a stream below protocol 3 names, as it spells it, whose
// module the other Python lacks: a Python 2 name (__builtin__, copy_reg)
// for a Python 3 reader without fix_imports, a Python 3 name (builtins,
// copyreg) for a Python 2 reader. Empty when there is none.
std::string foreign_module(const Message& m, bool reader_is_python2) {
  if (m.frames.empty()) return {};
  pickle::ScanOptions options;
  options.fix_imports = false;
  const pickle::ScanResult scanned = pickle::scan(m.frames[0].view(), pickle::Allowlist{}, options);
  if (scanned.protocol >= 3) return {};
  for (const pickle::ScanEntry& e : scanned.entries) {
    if (e.kind != pickle::ScanEntry::Kind::Global) continue;
    const pickle::QualifiedName other = reader_is_python2
                                            ? pickle::py3_to_py2(e.module, e.qualname)
                                            : pickle::py2_to_py3(e.module, e.qualname);
    if (other.first != e.module) return e.module;
  }
  return {};
}

// A Python 2 or Python 3 pickle module made of the reference, for the
// negative controls of cross.py2 where no Python 2 is installed. Python 2
// writes protocols 0-2 with bytes as its str (STRING, BINSTRING) and
// Python 2's module names, and reads its str as bytes; Python 3 honours
// loads' encoding and fix_imports. Each fails to import a module of the
// other, naming it, as the real ones do. A bug makes a control of it.
class PythonStandIn : public ReferenceSubject {
 public:
  PythonStandIn(std::string name, int major, std::string_view bug)
      : name_(std::move(name)), major_(major), bug_(bug) {}
  std::string name() const override { return name_; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.native_codec = false;  // it imports, as a Python does
    c.cpython_bytes = false;
    c.families.clear();
    if (major_ == 2) {
      c.python_version = "2.7.18";
      c.max_protocol = 2;
      c.default_protocol = 0;
      c.python2_choices = false;
    } else {
      c.python_version = "3.11.7";
      c.default_protocol = 4;
    }
    return c;
  }
  Message dumps(const Node* value, const DumpOptions& options) override {
    if (major_ == 3) return ReferenceSubject::dumps(value, options);
    if (options.protocol > 2) {
      throw SubjectError(kUnsupported, "Python 2 writes protocols 0-2 only");
    }
    // As the Python adapter under 2.7: bytes beyond ASCII only for a reader
    // that chose how to load them.
    if (!options.reader_chooses_encoding) {
      for (const Node* n : reachable(value)) {
        if (n->kind == Kind::Bytes && !is_ascii(n->payload())) {
          throw SubjectError(kUnsupported, "bytes beyond ASCII for the default ASCII reader");
        }
      }
    }
    pickle::EncodeOptions enc;
    enc.protocol = options.protocol;
    enc.python2_strs = true;
    Message m;
    try {
      m.frames.push_back(Frame::owned(pickle::encode(value, enc).bytes));
    } catch (const pickle::PickleError& e) {
      throw SubjectError(std::string(pickle::error_kind_name(e.kind())), e.detail());
    }
    m.header = {{"serializer", "pickle"},
                {"protocol", options.protocol},
                {"writeable", nlohmann::json::array()}};
    return m;
  }
  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    LoadOptions o = options;
    if (major_ == 2) {
      o = LoadOptions{};
      o.max_protocol = 2;
      o.encoding = "bytes";  // its str is bytes
    } else if (bug_ == "py2-strs-as-latin1") {
      o.encoding = "latin1";
    } else if (bug_ == "py2-strs-as-ascii") {
      o.encoding = "ASCII";
    }
    if (major_ == 2 || !options.fix_imports) {
      if (const std::string module = foreign_module(m, major_ == 2); !module.empty()) {
        if (bug_ == "py2-names-without-clue" || bug_ == "py2-reader-without-clue") {
          throw SubjectError("ImportError", "a module of the stream cannot be imported");
        }
        throw SubjectError(major_ == 2 ? "ImportError" : "ModuleNotFoundError",
                           "No module named '" + module + "'");
      }
    }
    o.fix_imports = true;  // Python 2's own names, or no name to map
    return ReferenceSubject::loads(m, graph, o);
  }

 private:
  std::string name_;
  int major_;
  std::string_view bug_;
};

// The Python major version of a stand-in mutant (cross.py2's consumers), or
// 0 for the other mutants.
int stand_in_major(std::string_view mutant) {
  if (mutant == "py2-reader-without-clue") return 2;
  if (mutant == "py2-strs-as-latin1" || mutant == "py2-strs-as-ascii" ||
      mutant == "py2-names-without-clue") {
    return 3;
  }
  return 0;
}

}  // namespace

const std::vector<NegativeControl>& negative_controls() {
  static const std::vector<NegativeControl> all = [] {
    std::vector<const GateProperty*> properties;
    for (const GateProperty& p : gate_properties()) properties.push_back(&p);
    // A pair family's controls, once per family (and choice): under the
    // producer "*", which stands for whichever producer a control runs with.
    for (const PairFamily& f : pair_families()) {
      if (f.choices.empty()) properties.push_back(find_property(std::string(f.id) + "/*"));
      for (const std::string& c : f.choices) {
        properties.push_back(find_property(std::string(f.id) + "/*@" + c));
      }
    }
    std::vector<NegativeControl> out;
    for (const GateProperty* p : properties) {
      for (NegativeControl c : p->controls) {
        c.property = p->id;  // the registry's properties live as long as the process
        out.push_back(c);
      }
    }
    return out;
  }();
  return all;
}

const NegativeControl* find_negative_control(std::string_view property_id) {
  std::string pair;
  if (auto id = parse_pair_id(property_id)) {
    pair = std::string(id->family->id) + "/*" + (id->choice.empty() ? "" : "@" + id->choice);
    property_id = pair;
  }
  for (const NegativeControl& c : negative_controls()) {
    if (c.property == property_id) return &c;
  }
  return nullptr;
}

std::unique_ptr<Subject> make_python_stand_in(int major, std::string name) {
  if (major != 2 && major != 3) return nullptr;
  if (name.empty()) name = major == 2 ? "python-2" : "python-3";
  return std::make_unique<PythonStandIn>(std::move(name), major, std::string_view());
}

std::string negative_control_for(std::string_view property_id) {
  const NegativeControl* first = find_negative_control(property_id);
  if (first == nullptr) return {};
  std::string out;
  for (const NegativeControl& c : negative_controls()) {
    if (c.property != first->property) continue;
    if (!out.empty()) out += "; ";
    out += c.mutant;
    if (c.role == Role::Peer) out += " (as " + std::string(c.peer) + ")";
    out += ": " + std::string(c.bug);
  }
  return out;
}

std::unique_ptr<Subject> make_mutant_subject(std::string_view mutant, std::string name) {
  for (const NegativeControl& c : negative_controls()) {
    if (c.mutant != mutant) continue;
    if (name.empty()) name = c.role == Role::Peer ? std::string(c.peer) : std::string(c.mutant);
    if (const int major = stand_in_major(c.mutant); major != 0) {
      return std::make_unique<PythonStandIn>(std::move(name), major, c.mutant);
    }
    return std::make_unique<Mutant>(std::move(name), c.mutant);
  }
  return nullptr;
}

}  // namespace serialcheck
