#include "cudalabs/device_probe.hpp"

#include <string>

#include <cuda_runtime.h>

namespace cudalabs {

std::string describe_cuda_result(const char* call, cudaError_t status) {
  return std::string(call) + " returned " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
}

DeviceProbe probe_cuda_device() {
  DeviceProbe probe;
  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess) {
    probe.reason = "no CUDA device: " + describe_cuda_result("cudaGetDeviceCount", counted);
    // Without a driver the runtime says "insufficient driver", which sends people hunting for
    // a driver upgrade; say plainly that there is none.
    int driver_version = 0;
    if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version == 0) {
      probe.reason += " (no NVIDIA driver is installed on this machine)";
    }
    return probe;
  }
  if (count == 0) {
    probe.reason = "no CUDA device: cudaGetDeviceCount found 0 devices";
    return probe;
  }
  // A device can be listed yet unusable (exclusive mode held by another process, no kernel
  // image for it): creating the context tells.
  const cudaError_t context = cudaFree(nullptr);
  if (context != cudaSuccess) {
    probe.reason = "CUDA device unusable: " + describe_cuda_result("cudaFree(nullptr) (context creation)", context);
    return probe;
  }
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
    probe.device = properties.name;
  }
  probe.available = true;
  return probe;
}

}  // namespace cudalabs
