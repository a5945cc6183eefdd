// Devices: where frames that are not host memory live. A Device allocates
// regions of its memory and copies bytes host->device, device->host and
// device->device, counting every copy and allocation, so a test can prove
// that a path moved device data without a round trip through the host.
//
// Two implementations: SimulatedDevice (host memory behind the interface,
// always present; its memory can only be read back by a counted
// device->host copy) and the CUDA device (cuda_device.h; present when the
// project was built with the CUDA toolkit and a GPU answers). Open either by
// name: open_device("sim:0"), open_device("cuda:0").
//
// A Buffer is a region of one allocation (allocation + offset + size), held
// by std::shared_ptr; slices share the allocation, so a frame can be a
// zero-copy slice of another frame's buffer. The allocation is freed, and the
// free counted, when the last buffer referring to it goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/common/error.h"

namespace serialcheck::device {

enum class DeviceErrorKind {
  OutOfRange,        // a copy or slice outside a buffer's bounds
  DeviceMismatch,    // a buffer of another device handed to this one
  AllocationFailed,  // the device could not allocate
  Unavailable,       // the device exists by name but cannot be used (no GPU, no toolkit)
  UnknownDevice,     // a name no registry entry matches
  Runtime,           // the device runtime reported an error (text included)
};

// Stable kebab-case name: "out-of-range", "device-mismatch", ...
std::string_view device_error_kind_name(DeviceErrorKind kind);

// A serialcheck::Error (reference/common/error.h) whose location is the
// device's name. what(): "device <name>: <kind>: <detail>".
class DeviceError : public Error {
 public:
  DeviceError(DeviceErrorKind kind, std::string device, std::string detail);
  DeviceErrorKind kind() const { return kind_; }
  // The device's name ("sim:0"), or the name asked for when none was opened.
  const std::string& device() const { return location().key; }

 private:
  DeviceErrorKind kind_;
};

// Every call is counted, zero-byte ones too; bytes are the bytes moved.
struct CopyCounters {
  std::uint64_t host_to_device = 0;
  std::uint64_t host_to_device_bytes = 0;
  std::uint64_t device_to_host = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::uint64_t device_to_device = 0;
  std::uint64_t device_to_device_bytes = 0;
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
  std::uint64_t frees = 0;
  std::uint64_t freed_bytes = 0;

  std::uint64_t copies() const { return host_to_device + device_to_host + device_to_device; }
  bool operator==(const CopyCounters&) const = default;
};

// "h2d=1/16B d2h=0/0B d2d=0/0B alloc=1/16B free=0/0B", for test messages.
std::string to_string(const CopyCounters& counters);

class Device;

// One allocation of device memory. Made only by Device::allocate; freed
// through its device when the last Buffer referring to it goes. It keeps its
// device alive.
class Allocation {
 public:
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  Device& device() const { return *device_; }
  // Opaque device address of the first byte: for identity and aliasing
  // checks only (on the simulated device it is not a host pointer).
  std::uint64_t address() const { return address_; }
  std::size_t size() const { return size_; }

 private:
  friend class Device;
  Allocation(std::shared_ptr<Device> device, std::uint64_t address, std::size_t size, void* handle)
      : device_(std::move(device)), address_(address), size_(size), handle_(handle) {}

  std::shared_ptr<Device> device_;
  std::uint64_t address_;
  std::size_t size_;
  void* handle_;  // the implementation's own token (a CUDA pointer, the simulated storage)
};

// A region [offset, offset + size) of one allocation.
class Buffer {
 public:
  // Throws DeviceError(OutOfRange) when the region leaves the allocation.
  Buffer(std::shared_ptr<Allocation> allocation, std::size_t offset, std::size_t size);

  Device& device() const { return allocation_->device(); }
  std::size_t size() const { return size_; }
  // Offset of the first byte inside the allocation.
  std::size_t offset() const { return offset_; }
  // Opaque device address of the first byte (allocation address + offset).
  std::uint64_t address() const { return allocation_->address() + offset_; }
  const std::shared_ptr<Allocation>& allocation() const { return allocation_; }

  // A zero-copy view of [offset, offset + size) of this buffer, sharing the
  // allocation. Throws DeviceError(OutOfRange).
  std::shared_ptr<Buffer> slice(std::size_t offset, std::size_t size) const;

  bool same_allocation(const Buffer& other) const { return allocation_ == other.allocation_; }
  // True when both buffers share at least one byte (empty buffers never overlap).
  bool overlaps(const Buffer& other) const;

 private:
  std::shared_ptr<Allocation> allocation_;
  std::size_t offset_;
  std::size_t size_;
};

// The interface. Bounds, device matching and counting live here; an
// implementation supplies the do_* primitives. Devices are always held by
// std::shared_ptr (allocations keep their device alive). Thread-safe.
class Device : public std::enable_shared_from_this<Device> {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // "sim:0", "cuda:1"
  const std::string& name() const { return name_; }
  // "sim" or "cuda"
  const std::string& kind() const { return kind_; }
  int id() const { return id_; }

  // A fresh allocation of `size` bytes (contents unspecified); counted.
  std::shared_ptr<Buffer> allocate(std::size_t size);
  // allocate(host.size()) plus one host->device copy.
  std::shared_ptr<Buffer> upload(std::span<const std::uint8_t> host);
  // One device->host copy of the whole buffer.
  std::string download(const Buffer& source);

  // Each is one counted copy. Throws DeviceError(OutOfRange) when a range
  // leaves its buffer, DeviceError(DeviceMismatch) for another device's buffer.
  void copy_host_to_device(std::span<const std::uint8_t> source, const Buffer& target,
                           std::size_t target_offset = 0);
  void copy_device_to_host(const Buffer& source, std::size_t source_offset,
                           std::span<std::uint8_t> target);
  void copy_device_to_device(const Buffer& source, std::size_t source_offset, const Buffer& target,
                             std::size_t target_offset, std::size_t size);

  CopyCounters counters() const;
  void reset_counters();
  // Allocations not yet freed (not reset by reset_counters).
  std::size_t live_allocations() const;

 protected:
  Device(std::string kind, int id);

  // Returns the implementation's handle for a new allocation and sets
  // `address` to its opaque device address. Throws DeviceError on failure.
  virtual void* do_allocate(std::size_t size, std::uint64_t& address) = 0;
  virtual void do_free(void* handle, std::size_t size) noexcept = 0;
  // Ranges are checked before these are called; n may be 0.
  virtual void do_copy_host_to_device(const std::uint8_t* source, void* target,
                                      std::size_t target_offset, std::size_t n) = 0;
  virtual void do_copy_device_to_host(const void* source, std::size_t source_offset,
                                      std::uint8_t* target, std::size_t n) = 0;
  virtual void do_copy_device_to_device(const void* source, std::size_t source_offset, void* target,
                                        std::size_t target_offset, std::size_t n) = 0;

 private:
  friend class Allocation;
  void release(const Allocation& allocation) noexcept;
  void check_own(const Buffer& buffer, const char* role) const;
  void check_range(const Buffer& buffer, std::size_t offset, std::size_t n, const char* role) const;

  std::string kind_;
  int id_;
  std::string name_;
  mutable std::mutex mutex_;
  CopyCounters counters_;
  std::size_t live_ = 0;
};

// Host memory behind the Device interface. Its addresses are synthetic and
// never reused within one device, so aliasing checks are meaningful; there
// is no way to read its memory except a counted device->host copy.
class SimulatedDevice final : public Device {
 public:
  // An independent device named "sim:<id>" with fresh counters.
  static std::shared_ptr<SimulatedDevice> create(int id = 0);

 protected:
  void* do_allocate(std::size_t size, std::uint64_t& address) override;
  void do_free(void* handle, std::size_t size) noexcept override;
  void do_copy_host_to_device(const std::uint8_t* source, void* target, std::size_t target_offset,
                              std::size_t n) override;
  void do_copy_device_to_host(const void* source, std::size_t source_offset, std::uint8_t* target,
                              std::size_t n) override;
  void do_copy_device_to_device(const void* source, std::size_t source_offset, void* target,
                                std::size_t target_offset, std::size_t n) override;

 private:
  explicit SimulatedDevice(int id);
  std::uint64_t next_address_;  // guarded by the allocation path's own mutex
  std::mutex address_mutex_;
};

// ---- registry ------------------------------------------------------------

struct DeviceInfo {
  std::string name;  // "sim:0", "cuda:0"; "cuda" when no CUDA ordinal can be listed
  bool available = false;
  std::string reason;  // why not, when unavailable
};

// "sim:0" (always available) and the CUDA devices: one entry per GPU, or a
// single unavailable "cuda" entry whose reason says why (not built with the
// toolkit, or the runtime's error text such as an absent/too old driver).
std::vector<DeviceInfo> available_devices();

// "sim" / "sim:N" and "cuda" / "cuda:N". One instance per name in a process,
// so frames opened by name share counters. Throws DeviceError(UnknownDevice)
// for a malformed name, DeviceError(Unavailable) with the reason when the
// device cannot be used.
std::shared_ptr<Device> open_device(std::string_view name);

}  // namespace serialcheck::device
