// The CUDA device: Device on the CUDA runtime API (cudaMalloc, cudaMemcpy,
// cudaFree; synchronous copies). It exists only when the project is built
// with the CUDA toolkit (SERIALCHECK_HAVE_CUDA); otherwise, and when no GPU
// answers (no driver, a driver too old for the runtime, zero devices), every
// entry point here reports the device unavailable with the reason instead of
// failing. Most code opens it through open_device("cuda:N") in device.h.
#pragma once

#include <memory>
#include <string>

#include "reference/device/device.h"

namespace serialcheck::device {

// Whether this build links the CUDA runtime.
bool cuda_built();

struct CudaStatus {
  bool available = false;
  int device_count = 0;
  // Why not, when unavailable: "built without the CUDA toolkit", or the
  // runtime's text, e.g. "cudaGetDeviceCount: CUDA driver version is
  // insufficient for CUDA runtime version (cudaErrorInsufficientDriver = 35)".
  std::string reason;
};

// Asks the runtime once per process (later calls return the cached answer).
const CudaStatus& cuda_status();

// A new handle on GPU `ordinal`, named "cuda:<ordinal>", with fresh counters.
// Throws DeviceError(Unavailable) with cuda_status().reason, or
// DeviceError(UnknownDevice) for an ordinal the runtime does not list.
std::shared_ptr<Device> create_cuda_device(int ordinal);

}  // namespace serialcheck::device
