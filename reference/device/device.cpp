#include "reference/device/device.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <map>

#include "reference/device/cuda_device.h"

namespace serialcheck::device {

std::string_view device_error_kind_name(DeviceErrorKind kind) {
  switch (kind) {
    case DeviceErrorKind::OutOfRange: return "out-of-range";
    case DeviceErrorKind::DeviceMismatch: return "device-mismatch";
    case DeviceErrorKind::AllocationFailed: return "allocation-failed";
    case DeviceErrorKind::Unavailable: return "unavailable";
    case DeviceErrorKind::UnknownDevice: return "unknown-device";
    case DeviceErrorKind::Runtime: return "runtime";
  }
  return "unknown";
}

DeviceError::DeviceError(DeviceErrorKind kind, std::string device, std::string detail)
    : Error(std::string(device_error_kind_name(kind)), std::move(detail),
            Location{.key = std::move(device)}, ErrorStyle::Device),
      kind_(kind) {}

std::string to_string(const CopyCounters& c) {
  return fmt::format("h2d={}/{}B d2h={}/{}B d2d={}/{}B alloc={}/{}B free={}/{}B", c.host_to_device,
                     c.host_to_device_bytes, c.device_to_host, c.device_to_host_bytes,
                     c.device_to_device, c.device_to_device_bytes, c.allocations, c.allocated_bytes,
                     c.frees, c.freed_bytes);
}

// ---- Allocation and Buffer -------------------------------------------------

Allocation::~Allocation() {
  device_->release(*this);
}

Buffer::Buffer(std::shared_ptr<Allocation> allocation, std::size_t offset, std::size_t size)
    : allocation_(std::move(allocation)), offset_(offset), size_(size) {
  if (!allocation_) {
    throw DeviceError(DeviceErrorKind::OutOfRange, "?", "a buffer needs an allocation");
  }
  const std::size_t total = allocation_->size();
  if (offset > total || size > total - offset) {
    throw DeviceError(
        DeviceErrorKind::OutOfRange, allocation_->device().name(),
        fmt::format("region [{}, +{}) outside an allocation of {} bytes", offset, size, total));
  }
}

std::shared_ptr<Buffer> Buffer::slice(std::size_t offset, std::size_t size) const {
  if (offset > size_ || size > size_ - offset) {
    throw DeviceError(DeviceErrorKind::OutOfRange, device().name(),
                      fmt::format("slice [{}, +{}) of a buffer of {} bytes", offset, size, size_));
  }
  return std::make_shared<Buffer>(allocation_, offset_ + offset, size);
}

bool Buffer::overlaps(const Buffer& other) const {
  if (!same_allocation(other) || size_ == 0 || other.size_ == 0) return false;
  return offset_ < other.offset_ + other.size_ && other.offset_ < offset_ + size_;
}

// ---- Device ----------------------------------------------------------------

Device::Device(std::string kind, int id)
    : kind_(std::move(kind)), id_(id), name_(fmt::format("{}:{}", kind_, id)) {}

std::shared_ptr<Buffer> Device::allocate(std::size_t size) {
  std::shared_ptr<Device> self;
  try {
    self = shared_from_this();
  } catch (const std::bad_weak_ptr&) {
    throw DeviceError(DeviceErrorKind::Runtime, name_, "a device must be held by std::shared_ptr");
  }
  std::uint64_t address = 0;
  void* handle = do_allocate(size, address);
  Allocation* raw = nullptr;
  try {
    raw = new Allocation(std::move(self), address, size, handle);
  } catch (...) {
    do_free(handle, size);
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    ++counters_.allocations;
    counters_.allocated_bytes += size;
    ++live_;
  }
  // From here the allocation owns the handle: if the shared_ptr cannot be
  // made, deleting `raw` frees it through release(), counted like any free.
  std::shared_ptr<Allocation> allocation(raw);
  return std::make_shared<Buffer>(std::move(allocation), 0, size);
}

void Device::release(const Allocation& allocation) noexcept {
  do_free(allocation.handle_, allocation.size_);
  std::lock_guard lock(mutex_);
  ++counters_.frees;
  counters_.freed_bytes += allocation.size_;
  if (live_ > 0) --live_;
}

std::shared_ptr<Buffer> Device::upload(std::span<const std::uint8_t> host) {
  auto buffer = allocate(host.size());
  copy_host_to_device(host, *buffer, 0);
  return buffer;
}

std::string Device::download(const Buffer& source) {
  std::string out(source.size(), '\0');
  copy_device_to_host(
      source, 0, std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
  return out;
}

void Device::check_own(const Buffer& buffer, const char* role) const {
  if (&buffer.device() != this) {
    throw DeviceError(DeviceErrorKind::DeviceMismatch, name_,
                      fmt::format("the {} buffer lives on {}", role, buffer.device().name()));
  }
}

void Device::check_range(const Buffer& buffer, std::size_t offset, std::size_t n,
                         const char* role) const {
  check_own(buffer, role);
  if (offset > buffer.size() || n > buffer.size() - offset) {
    throw DeviceError(DeviceErrorKind::OutOfRange, name_,
                      fmt::format("{} range [{}, +{}) outside a buffer of {} bytes", role, offset,
                                  n, buffer.size()));
  }
}

void Device::copy_host_to_device(std::span<const std::uint8_t> source, const Buffer& target,
                                 std::size_t target_offset) {
  check_range(target, target_offset, source.size(), "target");
  do_copy_host_to_device(source.data(), target.allocation()->handle_,
                         target.offset() + target_offset, source.size());
  std::lock_guard lock(mutex_);
  ++counters_.host_to_device;
  counters_.host_to_device_bytes += source.size();
}

void Device::copy_device_to_host(const Buffer& source, std::size_t source_offset,
                                 std::span<std::uint8_t> target) {
  check_range(source, source_offset, target.size(), "source");
  do_copy_device_to_host(source.allocation()->handle_, source.offset() + source_offset,
                         target.data(), target.size());
  std::lock_guard lock(mutex_);
  ++counters_.device_to_host;
  counters_.device_to_host_bytes += target.size();
}

void Device::copy_device_to_device(const Buffer& source, std::size_t source_offset,
                                   const Buffer& target, std::size_t target_offset,
                                   std::size_t size) {
  check_range(source, source_offset, size, "source");
  check_range(target, target_offset, size, "target");
  do_copy_device_to_device(source.allocation()->handle_, source.offset() + source_offset,
                           target.allocation()->handle_, target.offset() + target_offset, size);
  std::lock_guard lock(mutex_);
  ++counters_.device_to_device;
  counters_.device_to_device_bytes += size;
}

CopyCounters Device::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void Device::reset_counters() {
  std::lock_guard lock(mutex_);
  counters_ = CopyCounters{};
}

std::size_t Device::live_allocations() const {
  std::lock_guard lock(mutex_);
  return live_;
}

// ---- SimulatedDevice ---------------------------------------------------------

namespace {
// Synthetic address spaces: one TiB apart per id, allocations 256-aligned
// and never reused, so equal addresses mean the same bytes.
constexpr std::uint64_t kSimBase = 0x0000'1000'0000'0000ull;
constexpr std::uint64_t kSimSpan = 0x0000'0100'0000'0000ull;
constexpr std::uint64_t kSimAlign = 256;
}  // namespace

SimulatedDevice::SimulatedDevice(int id)
    : Device("sim", id), next_address_(kSimBase + static_cast<std::uint64_t>(id) * kSimSpan) {}

std::shared_ptr<SimulatedDevice> SimulatedDevice::create(int id) {
  if (id < 0) {
    throw DeviceError(DeviceErrorKind::UnknownDevice, fmt::format("sim:{}", id),
                      "a device id is not negative");
  }
  return std::shared_ptr<SimulatedDevice>(new SimulatedDevice(id));
}

void* SimulatedDevice::do_allocate(std::size_t size, std::uint64_t& address) {
  std::uint8_t* storage = nullptr;
  try {
    storage = new std::uint8_t[size == 0 ? 1 : size]();
  } catch (const std::bad_alloc&) {
    throw DeviceError(DeviceErrorKind::AllocationFailed, name(),
                      fmt::format("cannot allocate {} bytes", size));
  }
  std::lock_guard lock(address_mutex_);
  address = next_address_;
  const std::uint64_t step = (static_cast<std::uint64_t>(size) + kSimAlign) & ~(kSimAlign - 1);
  next_address_ += step;
  return storage;
}

void SimulatedDevice::do_free(void* handle, std::size_t) noexcept {
  delete[] static_cast<std::uint8_t*>(handle);
}

void SimulatedDevice::do_copy_host_to_device(const std::uint8_t* source, void* target,
                                             std::size_t target_offset, std::size_t n) {
  if (n != 0) std::memcpy(static_cast<std::uint8_t*>(target) + target_offset, source, n);
}

void SimulatedDevice::do_copy_device_to_host(const void* source, std::size_t source_offset,
                                             std::uint8_t* target, std::size_t n) {
  if (n != 0) std::memcpy(target, static_cast<const std::uint8_t*>(source) + source_offset, n);
}

void SimulatedDevice::do_copy_device_to_device(const void* source, std::size_t source_offset,
                                               void* target, std::size_t target_offset,
                                               std::size_t n) {
  // memmove: source and target may be overlapping slices of one allocation.
  if (n != 0) {
    std::memmove(static_cast<std::uint8_t*>(target) + target_offset,
                 static_cast<const std::uint8_t*>(source) + source_offset, n);
  }
}

// ---- registry --------------------------------------------------------------

namespace {

struct ParsedName {
  std::string kind;
  int id = 0;
};

ParsedName parse_name(std::string_view name) {
  ParsedName parsed;
  const auto colon = name.find(':');
  parsed.kind = std::string(name.substr(0, colon));
  if (colon != std::string_view::npos) {
    std::string_view digits = name.substr(colon + 1);
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, parsed.id);
    if (digits.empty() || ec != std::errc() || ptr != end || parsed.id < 0) {
      throw DeviceError(DeviceErrorKind::UnknownDevice, std::string(name),
                        "expected <kind>:<non-negative id>, e.g. sim:0 or cuda:0");
    }
  }
  if (parsed.kind != "sim" && parsed.kind != "cuda") {
    throw DeviceError(DeviceErrorKind::UnknownDevice, std::string(name),
                      "known device kinds are sim and cuda");
  }
  return parsed;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, std::shared_ptr<Device>>& registry() {
  static auto* devices = new std::map<std::string, std::shared_ptr<Device>>();
  return *devices;
}

}  // namespace

std::vector<DeviceInfo> available_devices() {
  std::vector<DeviceInfo> out;
  out.push_back({"sim:0", true, ""});
  const CudaStatus& cuda = cuda_status();
  if (!cuda.available) {
    out.push_back({"cuda", false, cuda.reason});
  } else {
    for (int i = 0; i < cuda.device_count; ++i)
      out.push_back({fmt::format("cuda:{}", i), true, ""});
  }
  return out;
}

std::shared_ptr<Device> open_device(std::string_view name) {
  const ParsedName parsed = parse_name(name);
  const std::string canonical = fmt::format("{}:{}", parsed.kind, parsed.id);
  std::lock_guard lock(registry_mutex());
  auto& devices = registry();
  if (auto it = devices.find(canonical); it != devices.end()) return it->second;
  std::shared_ptr<Device> device;
  if (parsed.kind == "sim") {
    device = SimulatedDevice::create(parsed.id);
  } else {
    device = create_cuda_device(parsed.id);
  }
  devices.emplace(canonical, device);
  return device;
}

}  // namespace serialcheck::device
