#include "harness/props/case.h"

#include <stdexcept>

#include "reference/common/hex.h"
#include "reference/frames/header_json.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) {
    throw std::runtime_error(std::string("missing field \"") + name + "\"");
  }
  return j.at(name);
}

int int_field(const nlohmann::json& j, const char* name, int fallback) {
  if (!j.is_object() || !j.contains(name)) return fallback;
  const auto& v = j.at(name);
  if (!v.is_number_integer())
    throw std::runtime_error(std::string("\"") + name + "\" is not an integer");
  return v.get<int>();
}

std::string string_field(const nlohmann::json& j, const char* name) {
  const auto& v = field(j, name);
  if (!v.is_string()) throw std::runtime_error(std::string("\"") + name + "\" is not a string");
  return v.get<std::string>();
}

std::string optional_string(const nlohmann::json& j, const char* name) {
  if (!j.contains(name) || j.at(name).is_null()) return {};
  return string_field(j, name);
}

}  // namespace

std::string to_hex(std::string_view bytes) { return hex_encode(bytes); }

std::optional<std::string> from_hex(std::string_view hex) { return hex_decode(hex); }

void showValue(const TestCase& c, std::ostream& os) {
  os << case_to_json(c).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json case_to_json(const TestCase& c) {
  nlohmann::json j;
  j["value"] = nlohmann::json::parse(to_json(c.value));
  j["protocol"] = c.protocol;
  j["options"] = {{"out_of_band", c.out_of_band}, {"max_protocol", c.max_protocol}};
  if (c.python_objects) j["options"]["python_objects"] = true;
  return j;
}

std::string case_to_json_text(const TestCase& c) {
  std::string out = "{\"options\":{\"max_protocol\":";
  out += std::to_string(c.max_protocol);
  out += ",\"out_of_band\":";
  out += c.out_of_band ? "true" : "false";
  if (c.python_objects) out += ",\"python_objects\":true";
  out += "},\"protocol\":";
  out += std::to_string(c.protocol);
  out += ",\"value\":";
  out += to_json(c.value);
  out += "}";
  return out;
}

TestCase case_from_json(const nlohmann::json& j) {
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = from_json(field(j, "value").dump(), *c.graph);
  c.protocol = int_field(j, "protocol", 5);
  if (j.contains("options")) {
    const auto& o = j.at("options");
    if (!o.is_object()) throw std::runtime_error("\"options\" is not an object");
    if (o.contains("out_of_band")) {
      if (!o.at("out_of_band").is_boolean())
        throw std::runtime_error("\"out_of_band\" is not a boolean");
      c.out_of_band = o.at("out_of_band").get<bool>();
    }
    c.max_protocol = int_field(o, "max_protocol", 5);
    if (o.contains("python_objects")) {
      if (!o.at("python_objects").is_boolean())
        throw std::runtime_error("\"python_objects\" is not a boolean");
      c.python_objects = o.at("python_objects").get<bool>();
    }
  }
  if (c.protocol < 0 || c.protocol > 5) throw std::runtime_error("\"protocol\" is not 0..5");
  return c;
}

nlohmann::json outcome_to_json(const Outcome& o) {
  const char* status = o.status == Outcome::Status::Pass   ? "pass"
                       : o.status == Outcome::Status::Fail ? "fail"
                                                           : "discard";
  nlohmann::json j = {{"status", status}};
  if (!o.fingerprint.empty()) j["fingerprint"] = o.fingerprint;
  if (!o.message.empty()) j["message"] = o.message;
  if (!o.explanation.empty()) j["explanation"] = o.explanation;
  if (!o.failing_message.is_null()) j["failing_message"] = o.failing_message;
  if (o.status == Outcome::Status::Discard) {
    j["discard_reason"] = o.discard_reason;
    if (!o.discarded_by.empty()) j["discarded_by"] = o.discarded_by;
  }
  return j;
}

Outcome outcome_from_json(const nlohmann::json& j) {
  Outcome o;
  std::string status = string_field(j, "status");
  if (status == "pass") {
    o.status = Outcome::Status::Pass;
  } else if (status == "fail") {
    o.status = Outcome::Status::Fail;
  } else if (status == "discard") {
    o.status = Outcome::Status::Discard;
  } else {
    throw std::runtime_error("unknown outcome status \"" + status + "\"");
  }
  o.fingerprint = optional_string(j, "fingerprint");
  o.message = optional_string(j, "message");
  o.explanation = optional_string(j, "explanation");
  if (j.contains("failing_message")) o.failing_message = j.at("failing_message");
  if (o.status == Outcome::Status::Discard) {
    o.discard_reason = optional_string(j, "discard_reason");
    if (o.discard_reason.empty()) o.discard_reason = kDiscardProperty;
    o.discarded_by = optional_string(j, "discarded_by");
  }
  return o;
}

nlohmann::json message_to_json(const Message& m) {
  nlohmann::json frames = nlohmann::json::array();
  for (const Frame& f : m.frames) frames.push_back(to_hex(f.view()));
  return {{"header", header_to_text_json(m.header)}, {"frames", std::move(frames)}};
}

Message message_from_json(const nlohmann::json& j) {
  Message m;
  if (j.contains("header")) m.header = header_from_text_json(j.at("header"));
  const auto& frames = field(j, "frames");
  if (!frames.is_array()) throw std::runtime_error("\"frames\" is not an array");
  for (const auto& f : frames) {
    if (!f.is_string()) throw std::runtime_error("a frame is not a hex string");
    auto bytes = from_hex(f.get<std::string>());
    if (!bytes) throw std::runtime_error("a frame is not valid hex");
    m.frames.push_back(Frame::owned(std::move(*bytes), /*readonly=*/false));
  }
  return m;
}

nlohmann::json record_to_json(const CaseRecord& r) {
  nlohmann::json j;
  j["format"] = kCaseFormat;
  j["subject"] = r.subject;
  j["property"] = r.property;
  j["fingerprint"] = r.fingerprint;
  j["seed"] = r.seed;
  j["message"] = r.message;
  if (!r.explanation.empty()) j["explanation"] = r.explanation;
  auto c = case_to_json(r.test);
  j["value"] = std::move(c["value"]);
  j["protocol"] = c["protocol"];
  j["options"] = c["options"];
  j["failing_message"] = r.failing_message;
  return j;
}

CaseRecord record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("a case file holds a JSON object");
  std::string format = string_field(j, "format");
  if (format != kCaseFormat) throw std::runtime_error("unknown case format \"" + format + "\"");
  CaseRecord r;
  r.subject = string_field(j, "subject");
  r.property = string_field(j, "property");
  r.fingerprint = string_field(j, "fingerprint");
  if (j.contains("seed")) {
    if (!j.at("seed").is_number_unsigned())
      throw std::runtime_error("\"seed\" is not an unsigned integer");
    r.seed = j.at("seed").get<std::uint64_t>();
  }
  r.message = optional_string(j, "message");
  r.explanation = optional_string(j, "explanation");
  r.test = case_from_json(j);
  if (j.contains("failing_message")) r.failing_message = j.at("failing_message");
  return r;
}

std::string replay_command(const std::string& path) {
  return "serialcheck replay " + path;
}

}  // namespace serialcheck
