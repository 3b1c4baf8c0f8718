#pragma once
// Whether this process can use a CUDA device: the device count, then the creation of a context.
// Shared by the test programs (GpuTest, the result stream's first event) and by labgrade, which
// asks the same question in a process holding none of a submission's code when a test program
// says there is no device (grader/src/run/device_check.hpp).
#include <string>

#include <cuda_runtime.h>

namespace cudalabs {

// "cudaFree(nullptr) returned cudaErrorNoDevice: no CUDA-capable device is detected".
std::string describe_cuda_result(const char* call, cudaError_t status);

struct DeviceProbe {
  bool available = false;
  std::string device;  // the device's name, when available
  // When not available, why, e.g. "no CUDA device: cudaGetDeviceCount returned
  // cudaErrorNoDevice: no CUDA-capable device is detected".
  std::string reason;
};

// Probes now, every call: asks the runtime and reads return codes only, so it never throws and
// is safe without a driver. Creates this process's context on device 0 when there is one.
DeviceProbe probe_cuda_device();

}  // namespace cudalabs
