// Serialization families in dask.distributed's wire schema
// (distributed/protocol/serialize.py): a value becomes a Message (a header
// plus frames) through the first family of a list that takes it, and a
// header names the family that reads it back ("serializer"). Collections are
// walked so that every array, tensor, bytes and device buffer in them becomes
// its own frame, without copying. docs/families.md is the specification.
//
// Families (each a dumps/loads pair, registered by name in a FamilyRegistry):
//   pickle   protocol-5 pickle, buffers out of band, one frame each
//   dask     a registry of per-type serializers (DaskTypeRegistry): ndarray,
//            tensor, bytes, bytearray, module (by reference)
//   msgpack  plain data (None, bool, int, float, str, bytes, tuple, dict)
//   error    what serialize() sends for a value no family could write
//   cuda     device buffers as device frames, never copied to the host
// A family that wraps another's header nests it under "sub-header" and never
// writes a key into it.
//
// Zero-copy both ways: frames made by serialize() borrow the value's memory
// (Frame::borrowed()), and values made by deserialize() borrow the frames'
// memory (Node::borrowed()). The caller keeps the value alive while the
// message is used, and the frames' memory alive while the graph is.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/common/error.h"
#include "reference/frames/message.h"
#include "reference/pickle/limits.h"
#include "reference/value/value.h"

namespace serialcheck::families {

// ---- errors -----------------------------------------------------------------

enum class FamilyErrorKind {
  UnknownFamily,        // "serializer" names no registered family
  DisallowedFamily,     // a registered family outside the caller's allowed list
  UnknownType,          // a dask/cuda header whose "type-serialized" no loader knows
  BadHeader,            // a key missing, of the wrong type or out of range
  BadFrames,            // frame count or frame contents disagree with the header
  UnsupportedProtocol,  // a pickle protocol above what the loader (or header) allows
  Pickle,               // a pickle frame that does not decode (the pickle error inside)
  InvalidValue,         // serialize(): a value that breaks the model (array outside its buffer)
  Unserializable,       // serialize(): no family took the value (OnError::Raise)
  RemoteError,          // an "error" family message: the sender could not serialize
  Device,               // a device frame where host bytes are needed, or no device to load onto
};

// Stable kebab-case name: "unknown-family", "disallowed-family", ...
std::string_view family_error_kind_name(FamilyErrorKind kind);

// A serialcheck::Error (reference/common/error.h): the header key, frame and
// byte are its location.
class FamilyError : public Error {
 public:
  static constexpr std::size_t kNone = Location::kNone;

  // what(): "<kind>: <detail> (header <key>, frame F, byte O)" with the parts that apply.
  FamilyError(FamilyErrorKind kind, std::string detail, std::string header_key = {},
              std::size_t frame = kNone, std::size_t offset = kNone);

  FamilyErrorKind kind() const { return kind_; }
  // JSON pointer (RFC 6901) into the top-level header, e.g.
  // "/sub-headers/2/sub-header/dtype"; empty when no key is to blame.
  const std::string& header_key() const { return location().key; }
  // Index into the top-level Message::frames, or kNone.
  std::size_t frame() const { return location().frame; }
  // Byte offset inside that frame (or inside the header value at header_key
  // for a pickled "type-serialized"), or kNone.
  std::size_t offset() const { return location().offset; }
  bool has_frame() const { return location().has_frame(); }
  bool has_offset() const { return location().has_offset(); }

  // UnknownFamily / DisallowedFamily: the family named and the list it was
  // checked against (the allowed list, or every registered family).
  const std::string& family() const { return family_; }
  const std::vector<std::string>& allowed() const { return allowed_; }
  // UnsupportedProtocol: the protocol found and the highest accepted.
  int found_protocol() const { return found_protocol_; }
  int max_protocol() const { return max_protocol_; }

  FamilyError& with_family(std::string family, std::vector<std::string> allowed);
  FamilyError& with_protocols(int found, int max);

 private:
  FamilyErrorKind kind_;
  std::string family_;
  std::vector<std::string> allowed_;
  int found_protocol_ = -1;
  int max_protocol_ = -1;
};

// ---- options ------------------------------------------------------------------

enum class OnError {
  Message,  // an "error" family message (distributed's on_error="message")
  Raise,    // throw FamilyError(Unserializable)
};

enum class IterateCollection {
  Auto,    // walk a collection holding data at any depth (docs/families.md)
  Always,  // walk every collection that can be walked
  Never,   // serialize collections whole
};

struct SerializeOptions {
  // Families to try, in order (distributed's `serializers`).
  std::vector<std::string> serializers = {"dask", "pickle"};
  OnError on_error = OnError::Message;
  IterateCollection iterate = IterateCollection::Auto;
  // The pickle protocol this side would write (distributed's context
  // "pickle-protocol").
  int protocol = 5;
  // Negotiation: the highest protocol the peer's loader reads. Every pickle
  // (the pickle family's frame, dask's "type-serialized") is written at
  // negotiated_protocol(protocol, peer_max_protocol); below 5 the pickle
  // family writes buffers in band. The pickle family records the protocol
  // it used in its header ("pickle-protocol").
  int peer_max_protocol = 5;
  // The pickle family sends PEP 574 buffers out of band (protocol 5 only).
  bool out_of_band = true;
};

struct DeserializeOptions {
  // Families a header may name (distributed's `deserializers`); nullopt
  // allows every registered family. Collections are not a family and are
  // always walked.
  std::optional<std::vector<std::string>> allowed;
  // The loader's highest pickle protocol; a pickle above it fails with
  // FamilyError(UnsupportedProtocol) naming both protocols.
  int max_protocol = 5;
  pickle::Limits limits;
  // Where the cuda family puts a frame that arrives as host bytes (one
  // counted upload). nullptr: such a frame is an error (FamilyError(Device)).
  std::shared_ptr<device::Device> device;
};

// The protocol both sides read: min(ours, peer_max), each clamped to 0..5.
int negotiated_protocol(int ours, int peer_max);

// ---- families -------------------------------------------------------------------

class FamilyRegistry;
class Serializer;
class Loader;

// Given to a family's dumps.
class DumpContext {
 public:
  const SerializeOptions& options() const;
  const FamilyRegistry& registry() const;
  // negotiated_protocol(options().protocol, options().peer_max_protocol).
  int pickle_protocol() const;
  // serialize() of a value inside this one (distributed's torch serializer
  // serializes its data as an ndarray this way): same options except the
  // family list, and a value no family takes throws
  // FamilyError(Unserializable) instead of becoming an "error" message
  // nested in this one. `value` may live in scratch().
  Message serialize(const Node& value, const std::vector<std::string>& serializers);
  // A graph for nodes a family makes while serializing (views of the value);
  // it lives until the top-level serialize() returns, so frames must not
  // point into its nodes' owned payloads (borrowed payloads are fine).
  Graph& scratch();

 private:
  friend class Serializer;
  DumpContext(Serializer& serializer, std::size_t depth) : s_(serializer), depth_(depth) {}
  Serializer& s_;
  std::size_t depth_;
};

// Given to a family's loads: where the header being read sits in the
// top-level header, and where its frames start in the top-level frames.
class LoadContext {
 public:
  Graph& graph() const;
  const DeserializeOptions& options() const;
  const FamilyRegistry& registry() const;

  // deserialize() of a header nested at `key` (a JSON pointer relative to
  // this header, e.g. "/sub-header") over `frames`, which start at index
  // `first` of this header's frames.
  Node* load(const nlohmann::json& header, std::string_view key, std::span<const Frame> frames,
             std::size_t first) const;

  // The context of a header nested at `key` over the same frames (what a
  // dask type's loader gets for the "sub-header").
  LoadContext at(std::string_view key) const {
    return LoadContext(l_, path_ + std::string(key), frame_base_, depth_);
  }

  // A FamilyError with the key made absolute and the frame index made
  // top-level. `key` is relative to this header ("" for the header itself);
  // `frame` is relative to this header's frames.
  FamilyError error(FamilyErrorKind kind, std::string detail, std::string_view key = {},
                    std::size_t frame = FamilyError::kNone,
                    std::size_t offset = FamilyError::kNone) const;
  [[noreturn]] void fail(FamilyErrorKind kind, std::string detail, std::string_view key = {},
                         std::size_t frame = FamilyError::kNone,
                         std::size_t offset = FamilyError::kNone) const {
    throw error(kind, std::move(detail), key, frame, offset);
  }

  std::string absolute_key(std::string_view key) const { return path_ + std::string(key); }
  std::size_t absolute_frame(std::size_t frame) const { return frame_base_ + frame; }

 private:
  friend class Loader;
  LoadContext(Loader& loader, std::string path, std::size_t frame_base, std::size_t depth)
      : l_(loader), path_(std::move(path)), frame_base_(frame_base), depth_(depth) {}
  Loader& l_;
  std::string path_;
  std::size_t frame_base_;
  std::size_t depth_;
};

// A family's dumps returns the message for `value`, or nullopt when the
// family does not take values of its kind (distributed's
// NotImplementedError: the next family is tried). Throwing (FamilyError,
// pickle::PickleError, ...) stops serialize(), as any other exception does
// in distributed; the error family then reports it.
using DumpsFn = std::function<std::optional<Message>(const Node& value, DumpContext& context)>;
using LoadsFn = std::function<Node*(const nlohmann::json& header, std::span<const Frame> frames,
                                    const LoadContext& context)>;

struct Family {
  std::string name;
  DumpsFn dumps;  // empty for a family that only loads ("error")
  LoadsFn loads;
  // Kinds whose values this family sends as frames of their own: with the
  // family in the list, a collection holding one (at any depth) is walked.
  std::vector<Kind> data_kinds;
};

// Families by name: distributed's `families` dict.
class FamilyRegistry {
 public:
  FamilyRegistry() = default;
  // pickle, dask (with DaskTypeRegistry::builtin()), msgpack, error, cuda.
  static FamilyRegistry with_builtin();
  // A shared immutable instance of with_builtin().
  static const FamilyRegistry& builtin();

  // Adds or replaces the family of that name.
  void add(Family family);
  const Family* find(std::string_view name) const;
  // Names in registration order.
  std::vector<std::string> names() const;

 private:
  std::vector<Family> families_;
};

// ---- the dask family's type registry ----------------------------------------

// One type of the dask family (distributed's dask_serialize /
// dask_deserialize pair for a class). The dask header around it is
//   {"sub-header": <sub-header>, "type": <type name>,
//    "type-serialized": <pickle of the class>, "serializer": "dask"}.
struct DaskType {
  std::string type_name;  // "numpy.ndarray" (dask.utils.typename of the class)
  std::string module;     // the class as pickle names it: "numpy"
  std::string qualname;   // "ndarray"
  // Kinds this type writes (empty: load only).
  std::vector<Kind> kinds;
  // Sub-header and frames, or nullopt when this value is not taken (the
  // dask family then declines it and the next family is tried).
  std::function<std::optional<std::pair<nlohmann::json, std::vector<Frame>>>(const Node&,
                                                                             DumpContext&)>
      dumps;
  // Reads the sub-header; `context` is positioned at the sub-header.
  std::function<Node*(const nlohmann::json& sub_header, std::span<const Frame> frames,
                      const LoadContext& context)>
      loads;
};

class DaskTypeRegistry {
 public:
  // numpy.ndarray, torch.Tensor, bytes, bytearray, memoryview (load only:
  // a PickleBuffer), types.ModuleType (by reference).
  static DaskTypeRegistry builtin();

  void add(DaskType type);
  // The type that writes `kind`, or nullptr.
  const DaskType* for_kind(Kind kind) const;
  // The type whose class is module.qualname, or nullptr.
  const DaskType* for_class(std::string_view module, std::string_view qualname) const;

 private:
  std::vector<DaskType> types_;
};

// The builtin families, for building a registry of your own.
Family pickle_family();
Family dask_family(DaskTypeRegistry types = DaskTypeRegistry::builtin());
Family msgpack_family();
Family error_family();
Family cuda_family();

// ---- serialize / deserialize ------------------------------------------------------

// distributed's serialize(): walks collections (docs/families.md), then tries
// options.serializers in order. A name not in the registry throws
// FamilyError(UnknownFamily). When no family takes the value: an "error"
// family message, or FamilyError(Unserializable) with OnError::Raise.
Message serialize(const Node* value, const SerializeOptions& options = {},
                  const FamilyRegistry& registry = FamilyRegistry::builtin());

// distributed's deserialize(): the value into `graph` (graph.root is set).
// Values borrow the frames' memory. Throws FamilyError.
Node* deserialize(const nlohmann::json& header, std::span<const Frame> frames, Graph& graph,
                  const DeserializeOptions& options = {},
                  const FamilyRegistry& registry = FamilyRegistry::builtin());

// distributed's merge_and_deserialize(): first joins the frames that
// serialize_and_split() split ("split-num-sub-frames", "split-offsets"; a
// single sub-frame, or sub-frames adjacent in memory, are not copied).
Node* deserialize(const Message& message, Graph& graph, const DeserializeOptions& options = {},
                  const FamilyRegistry& registry = FamilyRegistry::builtin());

// ---- zero-copy checks ---------------------------------------------------------------

// Nodes that hold bulk data: ndarray, tensor, bytes, bytearray, pickle
// buffer, device buffer; each reachable node once, in depth-first order.
std::vector<const Node*> data_nodes(const Node* root);

// The frame's bytes lie inside the node's memory: its payload() (an array's
// whole buffer), or for a device buffer, the same allocation and
// overlapping. An empty frame aliases nothing.
bool frame_aliases(const Frame& frame, const Node& node);

// The node's payload() lies inside the frame (the node borrows the frame's
// memory); a device buffer node shares the frame's allocation.
bool node_borrows(const Node& node, const Frame& frame);

// Data nodes of `root` (empty ones excepted) that no frame of `message`
// aliases: what serialize() copied.
std::vector<const Node*> copied_on_serialize(const Node* root, const Message& message);

// Data nodes of `root` (empty ones excepted) that borrow no frame of
// `message`: what deserialize() copied.
std::vector<const Node*> copied_on_deserialize(const Node* root, const Message& message);

}  // namespace serialcheck::families
