#include "reference/frames/family.h"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

#include "reference/device/device.h"
#include "reference/frames/families_common.h"
#include "reference/frames/walk.h"

namespace serialcheck::families {

using json = nlohmann::json;

// ---- errors -------------------------------------------------------------------

std::string_view family_error_kind_name(FamilyErrorKind kind) {
  switch (kind) {
    case FamilyErrorKind::UnknownFamily: return "unknown-family";
    case FamilyErrorKind::DisallowedFamily: return "disallowed-family";
    case FamilyErrorKind::UnknownType: return "unknown-type";
    case FamilyErrorKind::BadHeader: return "bad-header";
    case FamilyErrorKind::BadFrames: return "bad-frames";
    case FamilyErrorKind::UnsupportedProtocol: return "unsupported-protocol";
    case FamilyErrorKind::Pickle: return "pickle";
    case FamilyErrorKind::InvalidValue: return "invalid-value";
    case FamilyErrorKind::Unserializable: return "unserializable";
    case FamilyErrorKind::RemoteError: return "remote-error";
    case FamilyErrorKind::Device: return "device";
  }
  return "unknown";
}

FamilyError::FamilyError(FamilyErrorKind kind, std::string detail, std::string header_key,
                         std::size_t frame, std::size_t offset)
    : Error(std::string(family_error_kind_name(kind)), std::move(detail),
            Location{.offset = offset, .frame = frame, .key = std::move(header_key)},
            ErrorStyle::Kind),
      kind_(kind) {}

FamilyError& FamilyError::with_family(std::string family, std::vector<std::string> allowed) {
  family_ = std::move(family);
  allowed_ = std::move(allowed);
  return *this;
}

FamilyError& FamilyError::with_protocols(int found, int max) {
  found_protocol_ = found;
  max_protocol_ = max;
  return *this;
}

int negotiated_protocol(int ours, int peer_max) {
  return std::clamp(std::min(ours, peer_max), 0, 5);
}

// ---- registry -------------------------------------------------------------------

void FamilyRegistry::add(Family family) {
  for (auto& f : families_) {
    if (f.name == family.name) {
      f = std::move(family);
      return;
    }
  }
  families_.push_back(std::move(family));
}

const Family* FamilyRegistry::find(std::string_view name) const {
  for (const auto& f : families_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> FamilyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& f : families_) out.push_back(f.name);
  return out;
}

FamilyRegistry FamilyRegistry::with_builtin() {
  FamilyRegistry r;
  r.add(dask_family());
  r.add(pickle_family());
  r.add(msgpack_family());
  r.add(error_family());
  r.add(cuda_family());
  return r;
}

const FamilyRegistry& FamilyRegistry::builtin() {
  static const FamilyRegistry registry = with_builtin();
  return registry;
}

// ---- serialize --------------------------------------------------------------------

namespace {

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// distributed iterates a list when "msgpack" comes before "pickle" (or
// there is no "pickle"), since msgpack would turn it into a tuple.
bool msgpack_first(const std::vector<std::string>& serializers) {
  auto m = std::find(serializers.begin(), serializers.end(), "msgpack");
  if (m == serializers.end()) return false;
  auto p = std::find(serializers.begin(), serializers.end(), "pickle");
  return p == serializers.end() || p > m;
}

void append_compression(json& out, const json& header, std::size_t frames) {
  const json* c = detail::find(header, "compression");
  if (c != nullptr && c->is_array() && c->size() == frames) {
    for (const auto& entry : *c) out.push_back(entry);
  } else {
    for (std::size_t i = 0; i < frames; ++i) out.push_back(nullptr);
  }
}

}  // namespace

class Serializer {
 public:
  Serializer(const Node* root, const SerializeOptions& options, const FamilyRegistry& registry)
      : options_(options),
        registry_(registry),
        plan_(root, [this](const Node& n) { return is_data(n); }) {
    if (options.protocol < 0 || options.protocol > 5 || options.peer_max_protocol < 0 ||
        options.peer_max_protocol > 5) {
      throw std::invalid_argument(fmt::format("pickle protocols are 0..5, not {} and {}",
                                              options.protocol, options.peer_max_protocol));
    }
  }

  Message run(const Node& value, const std::vector<std::string>& serializers, std::size_t depth,
              OnError on_error) {
    if (depth < kMaxWalkDepth && should_walk(value, serializers)) {
      return walk(value, serializers, depth, on_error);
    }
    std::string failure;
    for (const std::string& name : serializers) {
      const Family* family = registry_.find(name);
      if (family == nullptr) {
        throw FamilyError(FamilyErrorKind::UnknownFamily,
                          fmt::format("no family named \"{}\" to serialize with; registered: {}",
                                      name, fmt::join(registry_.names(), ", ")))
            .with_family(name, registry_.names());
      }
      if (!family->dumps) continue;
      DumpContext context(*this, depth);
      try {
        std::optional<Message> message = family->dumps(value, context);
        if (!message) continue;
        message->header["serializer"] = name;
        return std::move(*message);
      } catch (const FamilyError& e) {
        if (e.kind() == FamilyErrorKind::UnknownFamily) throw;
        failure = fmt::format("{}: {}", name, e.what());
        break;
      } catch (const std::exception& e) {
        failure = fmt::format("{}: {}", name, e.what());
        break;
      }
    }
    std::string message = "Could not serialize object of type " + detail::python_type_name(value);
    if (on_error == OnError::Raise) {
      throw FamilyError(FamilyErrorKind::Unserializable,
                        failure.empty() ? message : message + ": " + failure);
    }
    Message out;
    out.header = {{"serializer", "error"}};
    out.frames.push_back(Frame::owned(std::move(message)));
    if (!failure.empty()) out.frames.push_back(Frame::owned(std::move(failure)));
    return out;
  }

  const SerializeOptions& options() const { return options_; }
  const FamilyRegistry& registry() const { return registry_; }
  Graph& scratch() { return scratch_; }

 private:
  bool is_data(const Node& n) const {
    for (const std::string& name : options_.serializers) {
      const Family* family = registry_.find(name);
      if (family == nullptr) continue;
      const auto& kinds = family->data_kinds;
      if (std::find(kinds.begin(), kinds.end(), n.kind) != kinds.end()) return true;
    }
    return false;
  }

  bool should_walk(const Node& value, const std::vector<std::string>& serializers) const {
    if (options_.iterate == IterateCollection::Never) return false;
    if (!plan_.separable(&value)) return false;
    const bool subclass = value.kind == Kind::Object;
    // A subclass's shell (callable, args, state) can only travel pickled.
    if (subclass && !contains(serializers, "pickle")) return false;
    if (!collection_shape(value)) return false;
    if (options_.iterate == IterateCollection::Always) return true;
    if (value.kind == Kind::List && msgpack_first(serializers)) return true;
    return plan_.holds_data(&value);
  }

  Message walk(const Node& value, const std::vector<std::string>& serializers, std::size_t depth,
               OnError on_error) {
    CollectionShape shape = *collection_shape(value);
    Message out;
    json sub_headers = json::array();
    json lengths = json::array();
    json compression = json::array();
    for (std::size_t i = 0; i < shape.elements.size(); ++i) {
      const Node* element = shape.elements[i];
      if (element == nullptr) {
        throw FamilyError(FamilyErrorKind::InvalidValue, "a collection holds a null element");
      }
      Message m = run(*element, serializers, depth + 1, on_error);
      if (shape.type == CollectionType::Dict) {
        if (m.header.contains("key")) {
          // The key would overwrite a key of the element's own header.
          throw FamilyError(FamilyErrorKind::InvalidValue,
                            "a dict value's header already has a \"key\" member");
        }
        m.header["key"] = *key_to_header(*shape.keys[i]);
      }
      append_compression(compression, m.header, m.frames.size());
      lengths.push_back(m.frames.size());
      sub_headers.push_back(std::move(m.header));
      for (Frame& f : m.frames) out.frames.push_back(std::move(f));
    }
    out.header = {{"sub-headers", std::move(sub_headers)},
                  {"is-collection", true},
                  {"frame-lengths", std::move(lengths)},
                  {"type-serialized", std::string(collection_type_name(shape.type))}};
    if (shape.subclass) {
      // The object without its items: callable, args and state.
      const ObjectParts& parts = *value.obj();
      Node* shell =
          scratch_.object(const_cast<Node*>(parts.callable), const_cast<Node*>(parts.args));
      shell->obj()->state = parts.state;
      shell->obj()->state_setter = parts.state_setter;
      Message m = run(*shell, serializers, depth + 1, OnError::Raise);
      append_compression(compression, m.header, m.frames.size());
      out.header["subclass"] = {{"header", std::move(m.header)}, {"start", out.frames.size()}};
      for (Frame& f : m.frames) out.frames.push_back(std::move(f));
    }
    for (const auto& entry : compression) {
      if (!entry.is_null()) {
        out.header["compression"] = std::move(compression);
        break;
      }
    }
    return out;
  }

  const SerializeOptions& options_;
  const FamilyRegistry& registry_;
  WalkPlan plan_;
  Graph scratch_;
};

const SerializeOptions& DumpContext::options() const {
  return s_.options();
}
const FamilyRegistry& DumpContext::registry() const {
  return s_.registry();
}
int DumpContext::pickle_protocol() const {
  return negotiated_protocol(options().protocol, options().peer_max_protocol);
}
Message DumpContext::serialize(const Node& value, const std::vector<std::string>& serializers) {
  return s_.run(value, serializers, depth_ + 1, OnError::Raise);
}
Graph& DumpContext::scratch() {
  return s_.scratch();
}

Message serialize(const Node* value, const SerializeOptions& options,
                  const FamilyRegistry& registry) {
  if (value == nullptr) throw std::invalid_argument("serialize() of a null value");
  Serializer serializer(value, options, registry);
  return serializer.run(*value, options.serializers, 0, options.on_error);
}

// ---- deserialize ------------------------------------------------------------------------

namespace {

// Header nesting deeper than a walk can produce (each level of a walk is two
// levels of header, each wrapping family one more) is refused.
constexpr std::size_t kMaxLoadDepth = 4 * kMaxWalkDepth;

// Python's dict identity of a header key: 1, 1.0 and True are one key.
std::string key_identity(const json& key) {
  using Type = json::value_t;
  switch (key.type()) {
    case Type::null: return "N";
    case Type::boolean: return key.get<bool>() ? "i1" : "i0";
    case Type::number_integer: return "i" + std::to_string(key.get<std::int64_t>());
    case Type::number_unsigned: return "i" + std::to_string(key.get<std::uint64_t>());
    case Type::number_float: {
      const double d = key.get<double>();
      // Range first: converting a double outside int64's range is undefined.
      if (d > -9.2e18 && d < 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
        return "i" + std::to_string(static_cast<std::int64_t>(d));
      }
      return fmt::format("f{}", d);
    }
    case Type::string: return "s" + key.get<std::string>();
    case Type::binary: {
      const auto& b = key.get_binary();
      return "b" + std::string(b.begin(), b.end());
    }
    case Type::array: {
      std::string out = "(";
      for (const auto& item : key) {
        std::string part = key_identity(item);
        out += std::to_string(part.size()) + ":" + part;
      }
      return out + ")";
    }
    default: return "?";
  }
}

}  // namespace

class Loader {
 public:
  Loader(Graph& graph, const DeserializeOptions& options, const FamilyRegistry& registry)
      : graph_(graph), options_(options), registry_(registry) {}

  Node* load(const json& header, std::span<const Frame> frames, const std::string& path,
             std::size_t frame_base, std::size_t depth) {
    LoadContext ctx(*this, path, frame_base, depth);
    if (depth > kMaxLoadDepth) {
      ctx.fail(FamilyErrorKind::BadHeader,
               fmt::format("headers nested more than {} deep", kMaxLoadDepth));
    }
    if (!header.is_object()) {
      ctx.fail(FamilyErrorKind::BadHeader,
               fmt::format("a header is a map, not {}", header.type_name()));
    }
    if (header.contains("is-collection")) return load_collection(ctx, header, frames);
    const json* serializer = detail::find(header, "serializer");
    if (serializer == nullptr) {
      ctx.fail(FamilyErrorKind::BadHeader, "no \"serializer\" names the family", "/serializer");
    }
    const std::string& name = detail::require_string(ctx, *serializer, "/serializer");
    if (options_.allowed && !contains(*options_.allowed, name)) {
      throw ctx
          .error(FamilyErrorKind::DisallowedFamily,
                 fmt::format("data serialized with \"{}\", but only {} may be deserialized", name,
                             allowed_text(*options_.allowed)),
                 "/serializer")
          .with_family(name, *options_.allowed);
    }
    const Family* family = registry_.find(name);
    if (family == nullptr || !family->loads) {
      std::vector<std::string> known = options_.allowed ? *options_.allowed : registry_.names();
      throw ctx
          .error(FamilyErrorKind::UnknownFamily,
                 fmt::format("no family named \"{}\"; known: {}", name, allowed_text(known)),
                 "/serializer")
          .with_family(name, known);
    }
    return family->loads(header, frames, ctx);
  }

  Graph& graph() { return graph_; }
  const DeserializeOptions& options() const { return options_; }
  const FamilyRegistry& registry() const { return registry_; }

 private:
  static std::string allowed_text(const std::vector<std::string>& names) {
    return fmt::format("[{}]", fmt::join(names, ", "));
  }

  Node* load_collection(const LoadContext& ctx, const json& header, std::span<const Frame> frames) {
    const json& subs = detail::require(ctx, header, "sub-headers");
    const json& lengths = detail::require(ctx, header, "frame-lengths");
    if (!subs.is_array()) {
      ctx.fail(FamilyErrorKind::BadHeader, "\"sub-headers\" is not an array", "/sub-headers");
    }
    if (!lengths.is_array() || lengths.size() != subs.size()) {
      ctx.fail(FamilyErrorKind::BadHeader,
               fmt::format("\"frame-lengths\" has to be an array of {} counts, one per sub-header",
                           subs.size()),
               "/frame-lengths");
    }
    const std::string& type_name = detail::require_string(
        ctx, detail::require(ctx, header, "type-serialized"), "/type-serialized");
    const auto type = parse_collection_type(type_name);
    if (!type) {
      ctx.fail(FamilyErrorKind::BadHeader,
               fmt::format("collection type \"{}\" is none of tuple, list, set, dict", type_name),
               "/type-serialized");
    }
    std::vector<Node*> elements;
    std::vector<Node*> keys;
    std::vector<std::string> identities;
    std::size_t start = 0;
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const std::string at = fmt::format("/frame-lengths/{}", i);
      const std::size_t n = detail::require_index(ctx, lengths[i], at);
      if (n > frames.size() - start) {
        ctx.fail(
            FamilyErrorKind::BadFrames,
            fmt::format("\"frame-lengths\" count more frames than the {} given", frames.size()),
            at);
      }
      const std::string sub_key = fmt::format("/sub-headers/{}", i);
      const json& sub = subs[i];
      Node* key = nullptr;
      if (*type == CollectionType::Dict) {
        const json& k = detail::require(ctx, sub, "key", sub_key);
        key = key_from_header(k, graph_);
        if (key == nullptr) {
          ctx.fail(FamilyErrorKind::BadHeader, "a dict key must be hashable (no maps)",
                   sub_key + "/key");
        }
        identities.push_back(key_identity(k));
      }
      // The loaders ignore "key", so the sub-header is read as it is.
      Node* element = ctx.load(sub, sub_key, frames.subspan(start, n), start);
      start += n;
      if (key != nullptr) {
        // d[k] = v: a repeated key keeps its first place and takes the last value.
        auto it = std::find(identities.begin(), identities.end() - 1, identities.back());
        if (it != identities.end() - 1) {
          elements[static_cast<std::size_t>(it - identities.begin())] = element;
          identities.pop_back();
          continue;
        }
        keys.push_back(key);
      }
      elements.push_back(element);
    }
    Node* shell = nullptr;
    if (const json* subclass = detail::find(header, "subclass")) {
      if (*type != CollectionType::List && *type != CollectionType::Dict) {
        ctx.fail(FamilyErrorKind::BadHeader, "only list and dict collections have a subclass",
                 "/subclass");
      }
      const json& shell_header = detail::require(ctx, *subclass, "header", "/subclass");
      const std::size_t first = detail::require_index(
          ctx, detail::require(ctx, *subclass, "start", "/subclass"), "/subclass/start");
      if (first != start) {
        ctx.fail(
            FamilyErrorKind::BadFrames,
            fmt::format("the subclass's frames start at {}, after the elements' {}", first, start),
            "/subclass/start");
      }
      shell = ctx.load(shell_header, "/subclass/header", frames.subspan(start), start);
      if (shell->kind != Kind::Object || !shell->obj()->listitems.empty() ||
          !shell->obj()->dictitems.empty()) {
        ctx.fail(FamilyErrorKind::BadHeader,
                 fmt::format("a subclass shell loads as an object without items, not a {}",
                             kind_name(shell->kind)),
                 "/subclass/header");
      }
      start = frames.size();
    }
    if (start != frames.size()) {
      ctx.fail(FamilyErrorKind::BadFrames,
               fmt::format("{} frames given, the header accounts for {}", frames.size(), start),
               "/frame-lengths", start);
    }
    if (shell != nullptr) {
      if (*type == CollectionType::List) {
        shell->obj()->listitems = std::move(elements);
      } else {
        for (std::size_t i = 0; i < keys.size(); ++i) {
          shell->obj()->dictitems.emplace_back(keys[i], elements[i]);
        }
      }
      return shell;
    }
    switch (*type) {
      case CollectionType::List: return graph_.list(std::move(elements));
      case CollectionType::Tuple: return graph_.tuple(std::move(elements));
      case CollectionType::Set: return graph_.set(std::move(elements));
      case CollectionType::Dict: break;
    }
    std::vector<Node*> interleaved;
    interleaved.reserve(2 * keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      interleaved.push_back(keys[i]);
      interleaved.push_back(elements[i]);
    }
    return graph_.dict(std::move(interleaved));
  }

  Graph& graph_;
  const DeserializeOptions& options_;
  const FamilyRegistry& registry_;
};

Graph& LoadContext::graph() const {
  return l_.graph();
}
const DeserializeOptions& LoadContext::options() const {
  return l_.options();
}
const FamilyRegistry& LoadContext::registry() const {
  return l_.registry();
}

Node* LoadContext::load(const json& header, std::string_view key, std::span<const Frame> frames,
                        std::size_t first) const {
  return l_.load(header, frames, path_ + std::string(key), frame_base_ + first, depth_ + 1);
}

FamilyError LoadContext::error(FamilyErrorKind kind, std::string detail, std::string_view key,
                               std::size_t frame, std::size_t offset) const {
  return FamilyError(kind, std::move(detail), absolute_key(key),
                     frame == FamilyError::kNone ? FamilyError::kNone : absolute_frame(frame),
                     offset);
}

Node* deserialize(const json& header, std::span<const Frame> frames, Graph& graph,
                  const DeserializeOptions& options, const FamilyRegistry& registry) {
  Loader loader(graph, options, registry);
  Node* root = loader.load(header, frames, "", 0, 0);
  graph.root = root;
  return root;
}

Node* deserialize(const Message& message, Graph& graph, const DeserializeOptions& options,
                  const FamilyRegistry& registry) {
  const json& header = message.header;
  const json* counts = detail::find(header, "split-num-sub-frames");
  if (counts == nullptr) return deserialize(header, message.frames, graph, options, registry);

  auto fail = [](std::string detail, std::string key) -> FamilyError {
    return FamilyError(FamilyErrorKind::BadHeader, std::move(detail), std::move(key));
  };
  const json* offsets = detail::find(header, "split-offsets");
  if (!counts->is_array() || offsets == nullptr || !offsets->is_array() ||
      offsets->size() != counts->size()) {
    throw fail("\"split-num-sub-frames\" and \"split-offsets\" are arrays of one length",
               "/split-offsets");
  }
  std::vector<Frame> merged;
  merged.reserve(counts->size());
  for (std::size_t i = 0; i < counts->size(); ++i) {
    const json& c = (*counts)[i];
    const json& o = (*offsets)[i];
    auto index = [](const json& j) -> std::optional<std::uint64_t> {
      if (j.is_number_unsigned()) return j.get<std::uint64_t>();
      if (j.is_number_integer() && j.get<std::int64_t>() >= 0) {
        return static_cast<std::uint64_t>(j.get<std::int64_t>());
      }
      return std::nullopt;
    };
    const auto count = index(c);
    const auto offset = index(o);
    if (!count || !offset) {
      throw fail("split counts and offsets are non-negative integers",
                 fmt::format("/split-num-sub-frames/{}", i));
    }
    const std::uint64_t n = *count;
    const std::uint64_t at = *offset;
    if (at > message.frames.size() || n > message.frames.size() - at) {
      throw FamilyError(FamilyErrorKind::BadFrames,
                        fmt::format("split frame {} takes frames {}..{} of {}", i, at, at + n,
                                    message.frames.size()),
                        fmt::format("/split-offsets/{}", i));
    }
    std::span<const Frame> parts(message.frames.data() + at, n);
    if (n == 1) {
      merged.push_back(parts[0]);
      continue;
    }
    // Sub-frames that follow each other in memory are one view; others are joined.
    bool adjacent = n > 0;
    std::size_t total = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (parts[j].on_device()) {
        throw FamilyError(FamilyErrorKind::Device, "a split frame lives on a device",
                          fmt::format("/split-offsets/{}", i), at + j);
      }
      total += parts[j].size;
      if (j > 0 && (parts[j].data != parts[j - 1].data + parts[j - 1].size ||
                    parts[j].owner != parts[0].owner)) {
        adjacent = false;
      }
    }
    if (adjacent) {
      Frame f = parts[0];
      f.size = total;
      merged.push_back(std::move(f));
      continue;
    }
    std::string joined;
    joined.reserve(total);
    for (const Frame& part : parts) joined.append(part.view());
    // The graph keeps the joined bytes alive as long as the values borrowing them.
    Node* holder = graph.bytes(std::move(joined));
    merged.push_back(
        Frame::borrowed_view(holder->payload().data(), holder->payload().size(), true));
  }
  return deserialize(header, merged, graph, options, registry);
}

// ---- zero-copy checks ---------------------------------------------------------------

namespace {

bool is_data_kind(Kind k) {
  return k == Kind::NDArray || k == Kind::Tensor || k == Kind::Bytes || k == Kind::ByteArray ||
         k == Kind::PickleBuffer || k == Kind::DeviceBuffer;
}

bool empty_data(const Node& n) {
  if (n.kind == Kind::DeviceBuffer) return n.device() == nullptr || n.device()->size() == 0;
  if (n.array()) {
    for (std::int64_t d : n.array()->shape) {
      if (d == 0) return true;  // no elements: nothing to alias
    }
  }
  return n.payload().empty();
}

}  // namespace

std::vector<const Node*> data_nodes(const Node* root) {
  std::vector<const Node*> out;
  if (root == nullptr) return out;
  absl::flat_hash_set<const Node*> seen{root};
  std::vector<const Node*> stack{root};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (is_data_kind(n->kind)) out.push_back(n);
    std::vector<const Node*> children;
    for_each_child(*n, [&](const Node* c) {
      if (c != nullptr && seen.insert(c).second) children.push_back(c);
    });
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return out;
}

bool frame_aliases(const Frame& frame, const Node& node) {
  if (frame.on_device() || node.kind == Kind::DeviceBuffer) {
    return frame.on_device() && node.kind == Kind::DeviceBuffer && node.device() != nullptr &&
           frame.device_buffer->overlaps(*node.device());
  }
  if (frame.size == 0) return false;
  const auto p = node.payload();
  const auto* begin = reinterpret_cast<const std::uint8_t*>(p.data());
  return frame.data >= begin && frame.data + frame.size <= begin + p.size();
}

bool node_borrows(const Node& node, const Frame& frame) {
  if (frame.on_device() || node.kind == Kind::DeviceBuffer) {
    return frame.on_device() && node.kind == Kind::DeviceBuffer && node.device() != nullptr &&
           frame.device_buffer->overlaps(*node.device());
  }
  const auto p = node.payload();
  if (p.empty()) return false;
  const auto* begin = reinterpret_cast<const std::uint8_t*>(p.data());
  return begin >= frame.data && begin + p.size() <= frame.data + frame.size;
}

std::vector<const Node*> copied_on_serialize(const Node* root, const Message& message) {
  std::vector<const Node*> out;
  for (const Node* n : data_nodes(root)) {
    if (empty_data(*n)) continue;
    bool aliased = std::any_of(message.frames.begin(), message.frames.end(),
                               [&](const Frame& f) { return frame_aliases(f, *n); });
    if (!aliased) out.push_back(n);
  }
  return out;
}

std::vector<const Node*> copied_on_deserialize(const Node* root, const Message& message) {
  std::vector<const Node*> out;
  for (const Node* n : data_nodes(root)) {
    if (empty_data(*n)) continue;
    bool borrows = std::any_of(message.frames.begin(), message.frames.end(),
                               [&](const Frame& f) { return node_borrows(*n, f); });
    if (!borrows) out.push_back(n);
  }
  return out;
}

}  // namespace serialcheck::families
