// The CUDA device on the runtime API. Plain C++: no kernels, so no nvcc. The
// whole CUDA part is compiled only with SERIALCHECK_HAVE_CUDA (set by CMake
// when the toolkit is found); without it the entry points report the device
// unavailable.
#include "reference/device/cuda_device.h"

#include <fmt/format.h>

#ifdef SERIALCHECK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace serialcheck::device {

#ifdef SERIALCHECK_HAVE_CUDA

namespace {

std::string describe(cudaError_t err) {
  return fmt::format("{} ({} = {})", cudaGetErrorString(err), cudaGetErrorName(err),
                     static_cast<int>(err));
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) : Device("cuda", ordinal) {}

 protected:
  void* do_allocate(std::size_t size, std::uint64_t& address) override {
    select();
    void* ptr = nullptr;
    // cudaMalloc(0) may return a null pointer; every buffer gets a real address.
    const cudaError_t err = cudaMalloc(&ptr, size == 0 ? 1 : size);
    if (err != cudaSuccess) {
      throw DeviceError(DeviceErrorKind::AllocationFailed, name(),
                        fmt::format("cudaMalloc({}): {}", size, describe(err)));
    }
    address = reinterpret_cast<std::uintptr_t>(ptr);
    return ptr;
  }

  void do_free(void* handle, std::size_t) noexcept override {
    // Nothing to report from a destructor path; a failing free means the
    // context is already gone (process exit).
    if (cudaSetDevice(id()) == cudaSuccess) (void)cudaFree(handle);
  }

  void do_copy_host_to_device(const std::uint8_t* source, void* target, std::size_t target_offset,
                              std::size_t n) override {
    if (n == 0) return;
    select();
    check(cudaMemcpy(static_cast<char*>(target) + target_offset, source, n, cudaMemcpyHostToDevice),
          "cudaMemcpy host->device");
  }

  void do_copy_device_to_host(const void* source, std::size_t source_offset, std::uint8_t* target,
                              std::size_t n) override {
    if (n == 0) return;
    select();
    check(cudaMemcpy(target, static_cast<const char*>(source) + source_offset, n,
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy device->host");
  }

  void do_copy_device_to_device(const void* source, std::size_t source_offset, void* target,
                                std::size_t target_offset, std::size_t n) override {
    if (n == 0) return;
    select();
    check(cudaMemcpy(static_cast<char*>(target) + target_offset,
                     static_cast<const char*>(source) + source_offset, n, cudaMemcpyDeviceToDevice),
          "cudaMemcpy device->device");
    // Device-to-device copies do not block the host; make the copy complete
    // before returning, like the other two directions.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

 private:
  void select() { check(cudaSetDevice(id()), "cudaSetDevice"); }
  void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
      throw DeviceError(DeviceErrorKind::Runtime, name(),
                        fmt::format("{}: {}", what, describe(err)));
    }
  }
};

}  // namespace

bool cuda_built() {
  return true;
}

const CudaStatus& cuda_status() {
  static const CudaStatus status = [] {
    CudaStatus s;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      s.reason = fmt::format("cudaGetDeviceCount: {}", describe(err));
      return s;
    }
    if (count <= 0) {
      s.reason = "cudaGetDeviceCount: no CUDA device";
      return s;
    }
    s.available = true;
    s.device_count = count;
    return s;
  }();
  return status;
}

std::shared_ptr<Device> create_cuda_device(int ordinal) {
  const std::string name = fmt::format("cuda:{}", ordinal);
  const CudaStatus& status = cuda_status();
  if (!status.available) throw DeviceError(DeviceErrorKind::Unavailable, name, status.reason);
  if (ordinal < 0 || ordinal >= status.device_count) {
    throw DeviceError(DeviceErrorKind::UnknownDevice, name,
                      fmt::format("the runtime lists {} device(s)", status.device_count));
  }
  return std::make_shared<CudaDevice>(ordinal);
}

#else  // !SERIALCHECK_HAVE_CUDA

bool cuda_built() {
  return false;
}

const CudaStatus& cuda_status() {
  static const CudaStatus status{false, 0, "built without the CUDA toolkit"};
  return status;
}

std::shared_ptr<Device> create_cuda_device(int ordinal) {
  throw DeviceError(DeviceErrorKind::Unavailable, fmt::format("cuda:{}", ordinal),
                    cuda_status().reason);
}

#endif

}  // namespace serialcheck::device
