#include "harness/gen/module_gen.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "harness/gen/fixtures.h"
#include "harness/python/domain_objects.h"
#include "reference/device/device.h"

namespace serialcheck::gen {

namespace {

constexpr std::array<std::string_view, 24> kStdlibModules{{
    "os",
    "posixpath",
    "sys",
    "builtins",
    "math",
    "json",
    "json.decoder",
    "collections",
    "collections.abc",
    "functools",
    "itertools",
    "pickle",
    "copyreg",
    "string",
    "re",
    "struct",
    "types",
    "io",
    "datetime",
    "decimal",
    "urllib.parse",
    "xml.etree.ElementTree",
    "concurrent.futures",
    "encodings.utf_8",
}};

GeneratedValue value_of(const std::function<Node*(Graph&)>& build) {
  GeneratedValue v;
  v.graph = std::make_shared<Graph>();
  v.root = build(*v.graph);
  v.graph->root = v.root;
  return v;
}

}  // namespace

std::span<const std::string_view> stdlib_module_names() {
  return kStdlibModules;
}

bool harness_only_module(std::string_view name) {
  return name.substr(0, kGeneratedModulePrefix.size()) == kGeneratedModulePrefix ||
         name == python::kModuleTypesModule || name == kFixturesModule;
}

rc::Gen<ModuleSpec> moduleSpec(bool allow_subclass) {
  auto stdlib = rc::gen::map(rc::gen::elementOf(kStdlibModules), [](std::string_view name) {
    return ModuleSpec{std::string(name), std::nullopt};
  });
  if (!allow_subclass) return stdlib;
  // A small alphabet, so runs meet the same generated name again.
  auto generated = rc::gen::map(
      rc::gen::container<std::string>(rc::gen::elementOf(std::string("abcxyz019"))),
      [](const std::string& suffix) {
        std::string tail = suffix.empty() ? "0" : suffix;
        return ModuleSpec{std::string(kGeneratedModulePrefix) + tail,
                          std::make_pair(std::string(python::kModuleTypesModule),
                                         "ScModule_" + tail)};
      });
  return rc::gen::weightedOneOf<ModuleSpec>({{1, stdlib}, {1, generated}});
}

Node* build_module(const ModuleSpec& spec, Graph& graph) {
  Node* subclass =
      spec.subclass ? graph.global(spec.subclass->first, spec.subclass->second) : nullptr;
  return graph.module(spec.name, subclass);
}

rc::Gen<GeneratedValue> moduleValue(bool allow_subclass) {
  return rc::gen::map(moduleSpec(allow_subclass), [](const ModuleSpec& spec) {
    return value_of([&](Graph& g) { return build_module(spec, g); });
  });
}

void showValue(const ModuleSpec& spec, std::ostream& os) {
  os << "module " << spec.name;
  if (spec.subclass) os << " of class " << spec.subclass->first << "." << spec.subclass->second;
}

rc::Gen<DeviceBufferSpec> deviceBufferSpec() {
  return rc::gen::map(rc::gen::scale(4.0, rc::gen::arbitrary<std::string>()), [](std::string data) {
    return DeviceBufferSpec{"sim:0", std::move(data)};
  });
}

Node* build_device_buffer(const DeviceBufferSpec& spec, Graph& graph) {
  auto device = device::open_device(spec.device);
  return graph.device_buffer(device->upload(std::span<const std::uint8_t>(
      reinterpret_cast<const std::uint8_t*>(spec.data.data()), spec.data.size())));
}

rc::Gen<GeneratedValue> deviceBufferValue() {
  return rc::gen::map(deviceBufferSpec(), [](const DeviceBufferSpec& spec) {
    return value_of([&](Graph& g) { return build_device_buffer(spec, g); });
  });
}

void showValue(const DeviceBufferSpec& spec, std::ostream& os) {
  os << "device-buffer on " << spec.device << " of " << spec.data.size() << " bytes";
}

}  // namespace serialcheck::gen
