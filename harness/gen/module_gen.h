// Generators of Module and DeviceBuffer nodes.
//
// Modules: the import names of standard-library modules (each one's
// __name__, so it reads back as the same name), and generated names
// registered as instances of generated types.ModuleType subclasses
// ("sc_mod_<suffix>", class serialcheck_module_types.ScModule_<suffix>; the
// bridge defines the class and registers the instance on first use, see
// harness/python/domain_objects.h). One suffix always names one class, so a
// process never sees one name with two classes.
//
// Device buffers: contents of up to a few hundred bytes on the simulated
// device "sim:0".
#pragma once

#include <rapidcheck.h>

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "harness/gen/value.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

struct ModuleSpec {
  std::string name;
  // The ModuleType subclass (module, qualname) for a generated module.
  std::optional<std::pair<std::string, std::string>> subclass;
};

// Standard-library module names whose module's __name__ is the same name.
std::span<const std::string_view> stdlib_module_names();

// The prefix of generated module names. Those modules, and the classes of
// python::kModuleTypesModule, exist only in a process the harness set up:
// no other Python can import them.
inline constexpr std::string_view kGeneratedModulePrefix = "sc_mod_";

// True for a module name only the harness defines: a generated module, the
// registry of their classes, or the fixtures module of reduce shapes.
bool harness_only_module(std::string_view name);

// `allow_subclass`: also generated names with their ModuleType subclass.
rc::Gen<ModuleSpec> moduleSpec(bool allow_subclass = true);
Node* build_module(const ModuleSpec& spec, Graph& graph);
rc::Gen<GeneratedValue> moduleValue(bool allow_subclass = true);
void showValue(const ModuleSpec& spec, std::ostream& os);

struct DeviceBufferSpec {
  std::string device = "sim:0";
  std::string data;
};

rc::Gen<DeviceBufferSpec> deviceBufferSpec();
// Uploads the contents (one counted host->device copy).
Node* build_device_buffer(const DeviceBufferSpec& spec, Graph& graph);
rc::Gen<GeneratedValue> deviceBufferValue();
void showValue(const DeviceBufferSpec& spec, std::ostream& os);

}  // namespace serialcheck::gen
