#include "reference/value/domain_kinds.h"

#include <array>
#include <stdexcept>

namespace serialcheck {
namespace {

struct Slot {
  DomainKind hooks;
  bool registered = false;
};

// Constant-initialized (constinit), so registrations made during the
// static initialization of other files find it ready, whatever the order
// files are initialized in.
constinit std::array<Slot, static_cast<std::size_t>(kLastKind) + 1> slots{};

}  // namespace

void register_domain_kind(Kind kind, const DomainKind& hooks) {
  Slot& slot = slots[static_cast<std::size_t>(kind)];
  slot.hooks = hooks;
  slot.registered = true;
}

const DomainKind& domain_kind(Kind kind) {
  const Slot& slot = slots[static_cast<std::size_t>(kind)];
  if (!slot.registered) {
    throw std::logic_error("serialcheck: nothing registered for the " +
                           std::string(kind_name(kind)) +
                           " kind (call types::register_value_kinds() in a program that compares "
                           "or reads domain values without the pickle codec)");
  }
  return slot.hooks;
}

}  // namespace serialcheck
