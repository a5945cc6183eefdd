#include "harness/subjects/reference_subject.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "reference/frames/family.h"
#include "reference/frames/wire.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"

namespace serialcheck {
namespace {

SubjectError to_subject_error(const pickle::PickleError& e) {
  return SubjectError(std::string(pickle::error_kind_name(e.kind())),
                      e.detail() + " (at byte " + std::to_string(e.offset()) + ")");
}

// Python 3's pickle.loads(encoding=) for a Python 2 str, among the codecs
// the model holds (docs/versions.md, "Python 2 and 3"); any other codec is
// one the reference has no decoding for.
pickle::Python2Str python2_str_of(const std::string& encoding) {
  std::string e;
  for (const char ch : encoding) {
    e += ch == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (e.empty() || e == "ascii" || e == "us-ascii") return pickle::Python2Str::Ascii;
  if (e == "latin1" || e == "latin-1" || e == "iso-8859-1") return pickle::Python2Str::Latin1;
  if (e == "bytes") return pickle::Python2Str::Bytes;
  throw SubjectError(kUnsupported,
                     "the reference decodes a Python 2 str as ASCII, latin-1 or "
                     "bytes only, not as " +
                         encoding);
}

}  // namespace

Capabilities ReferenceSubject::capabilities() const {
  Capabilities caps;
  caps.min_protocol = 0;
  caps.max_protocol = target_.highest_protocol();
  caps.out_of_band = true;
  caps.limit_loader = true;
  caps.pickle_format = true;
  caps.cpython_bytes = true;
  caps.python_values = false;
  caps.python_version = target_.name();
  caps.native_codec = true;
  caps.families = {"pickle"};
  caps.python2_choices = true;
  caps.packs_messages = true;
  // Up to 3.9 every empty frozenset is one object (the target's rule
  // empty_frozenset_singleton), so empty frozensets apart load as one: the
  // sharing of immutable objects is not what these targets keep.
  if (target_.empty_frozenset_singleton()) caps.cannot_express = {"immutable-sharing"};
  return caps;
}

Message ReferenceSubject::dumps(const Node* value, const DumpOptions& options) {
  pickle::EncodeOptions enc;
  enc.protocol = options.protocol;
  enc.target = target_;
  enc.fix_imports = options.fix_imports;
  if (options.out_of_band && options.protocol >= 5) {
    enc.buffer_callback = [](const Node&) { return false; };
  }
  pickle::EncodeResult result;
  try {
    result = pickle::encode(value, enc);
  } catch (const pickle::PickleError& e) {
    throw to_subject_error(e);
  }
  Message message;
  nlohmann::json writeable = nlohmann::json::array();
  message.frames.push_back(Frame::owned(std::move(result.bytes)));
  for (const Node* buffer : result.buffers) {
    auto payload = buffer->payload();
    message.frames.push_back(Frame::borrowed_view(payload.data(), payload.size(), buffer->flag));
    writeable.push_back(!buffer->flag);
  }
  message.header = {{"serializer", "pickle"},
                    {"protocol", options.protocol},
                    {"writeable", std::move(writeable)}};
  return message;
}

Node* ReferenceSubject::loads(const Message& message, Graph& graph, const LoadOptions& options) {
  if (message.frames.empty()) throw SubjectError("bad-message", "no pickle frame");
  const auto& header = message.header;
  if (header.contains("serializer") && header["serializer"] != "pickle") {
    throw SubjectError("bad-message",
                       "serializer " + header["serializer"].dump() + " is not pickle");
  }
  const nlohmann::json* writeable = nullptr;
  if (header.contains("writeable") && header["writeable"].is_array()) {
    writeable = &header["writeable"];
  }
  std::vector<pickle::BufferView> views;
  for (std::size_t i = 1; i < message.frames.size(); ++i) {
    const Frame& f = message.frames[i];
    bool readonly = f.readonly;
    // The header is what travels with the frames; it decides, as in distributed.
    if (writeable != nullptr && i - 1 < writeable->size() && (*writeable)[i - 1].is_boolean()) {
      readonly = !(*writeable)[i - 1].get<bool>();
    }
    views.push_back({f.data, f.size, readonly});
  }
  pickle::DecodeOptions dec;
  // A version before 3.8 reads no protocol 5, as its unpickler.
  dec.max_protocol = std::min(options.max_protocol, target_.highest_protocol());
  dec.buffers = views;
  dec.fix_imports = options.fix_imports;
  dec.python2_str = python2_str_of(options.encoding);
  const Frame& pickled = message.frames[0];
  try {
    auto result =
        pickle::decode(std::span<const std::uint8_t>(pickled.data, pickled.size), graph, dec);
    return result.root;
  } catch (const pickle::PickleError& e) {
    throw to_subject_error(e);
  }
}

const families::FamilyRegistry* ReferenceSubject::family_registry() const {
  return &families::FamilyRegistry::builtin();
}

PackedBytes ReferenceSubject::pack(const Message& message, Compression codec) {
  PackOptions options;
  options.compression.codec = codec;
  return {pack_message(message, options), codec_library_version(codec)};
}

Message ReferenceSubject::unpack(std::span<const std::uint8_t> bytes) {
  return unpack_message(bytes);
}

std::vector<SubjectFactory> reference_subject_factories() {
  std::vector<SubjectFactory> out;
  for (const pickle::PythonTarget& t : pickle::supported_targets()) {
    out.push_back({"reference@" + t.name(), [t] { return std::make_unique<ReferenceSubject>(t); }});
  }
  return out;
}

}  // namespace serialcheck
