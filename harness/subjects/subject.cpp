// Subject's default callable.by-value: the embedded interpreter's runner
// (harness/gen/function_gen.h, installed by harness/python/byvalue.h) with
// the subject's by_value_pickler module.
#include "harness/subjects/subject.h"

#include <tuple>
#include <utility>

#include "harness/gen/function_gen.h"

namespace serialcheck {
namespace {

// "Type: message" -> ("Type", "message"); a text without a type in front
// -> ("error", text).
std::pair<std::string, std::string> split_error(const std::string& error) {
  const std::size_t colon = error.find(':');
  std::string type = error.substr(0, colon);
  if (colon == std::string::npos || type.empty() || type.find(' ') != std::string::npos) {
    return {"error", error};
  }
  std::size_t start = colon + 1;
  while (start < error.size() && error[start] == ' ') ++start;
  return {std::move(type), error.substr(start)};
}

}  // namespace

ByValueOutcome Subject::by_value(const ByValueCase& c) {
  const std::string pickler = capabilities().by_value_pickler;
  if (pickler.empty()) {
    throw SubjectError(kUnsupported, "the subject does not pickle functions and classes by value");
  }
  ByValueOutcome out;
  const gen::ByValueRunner* run = gen::by_value_runner();
  if (run == nullptr) {
    out.stage = "no-interpreter";
    out.error = "no embedded Python interpreter to define the callable in";
    return out;
  }
  const nlohmann::json answer = (*run)(
      {{"pickler", pickler}, {"source", c.source}, {"inputs", c.inputs}, {"protocol", c.protocol}});
  out.stage = answer.value("stage", "");
  if (answer.contains("original")) out.original = answer["original"];
  if (answer.contains("loaded")) out.loaded = answer["loaded"];
  if (!out.stage.empty()) {
    const std::string error = answer.value("error", "");
    if (out.stage == "define" || out.stage == "dumps" || out.stage == "load") {
      std::tie(out.kind, out.error) = split_error(error);
    } else {
      out.error = error;
    }
  }
  return out;
}

ClassLifeOutcome Subject::class_life(const ClassLifeCase& c) {
  const std::string pickler = capabilities().by_value_pickler;
  if (pickler.empty()) {
    throw SubjectError(kUnsupported, "the subject does not pickle functions and classes by value");
  }
  ClassLifeOutcome out;
  const gen::ByValueRunner* run = gen::by_value_runner();
  if (run == nullptr) {
    out.stage = "no-interpreter";
    out.error = "no embedded Python interpreter to define the callable in";
    return out;
  }
  const nlohmann::json answer = (*run)({{"pickler", pickler},
                                        {"source", c.source},
                                        {"inputs", c.inputs},
                                        {"situation", c.situation},
                                        {"protocol", c.protocol}});
  out.stage = answer.value("stage", "");
  if (answer.contains("expect")) out.expect = answer["expect"];
  if (answer.contains("observed")) out.observed = answer["observed"];
  if (!out.stage.empty()) {
    const std::string error = answer.value("error", "");
    if (out.stage == "process" || out.stage == "no-instance") {
      out.error = error;
    } else {
      std::tie(out.kind, out.error) = split_error(error);
    }
  }
  return out;
}

std::string Subject::dumps_recipe(const std::string&, int) {
  throw SubjectError(kUnsupported,
                     "the subject builds no stdlib values (no interpreter of its own)");
}

RecipeLoad Subject::loads_recipe(const std::string&, std::string_view) {
  throw SubjectError(kUnsupported,
                     "the subject builds no stdlib values (no interpreter of its own)");
}

PackedBytes Subject::pack(const Message&, Compression) {
  throw SubjectError(kUnsupported, "the subject packs no messages into one byte string");
}

Message Subject::unpack(std::span<const std::uint8_t>) {
  throw SubjectError(kUnsupported, "the subject unpacks no messages from one byte string");
}

PackedBytes Subject::dumps_packed(const Node*, Compression) {
  throw SubjectError(kUnsupported, "the subject writes no packed messages of values");
}

Node* Subject::loads_packed(std::span<const std::uint8_t>, Graph&) {
  throw SubjectError(kUnsupported, "the subject reads no packed messages into values");
}

}  // namespace serialcheck

namespace serialcheck {

Message plain_pickle_message(std::string stream, int protocol) {
  Message m;
  m.header = {
      {"serializer", "pickle"}, {"protocol", protocol}, {"writeable", nlohmann::json::array()}};
  m.frames.push_back(Frame::owned(std::move(stream), true));
  return m;
}

std::vector<LoadAttempt> Subject::try_loads(const std::vector<std::string>& streams, int protocol,
                                            const LoadOptions& options) {
  std::vector<LoadAttempt> out;
  out.reserve(streams.size());
  for (const std::string& stream : streams) {
    LoadAttempt a;
    try {
      Graph g;
      loads(plain_pickle_message(stream, protocol), g, options);
      a.loaded = true;
    } catch (const SubjectError& e) {
      a.kind = e.kind();
      a.message = e.message();
      a.detail = e.detail();
    } catch (const std::exception& e) {
      a.kind = "internal";
      a.message = e.what();
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace serialcheck
