#include "cudalabs/gpu_test.hpp"

#include <string>

#include <cuda_runtime.h>

namespace cudalabs {
namespace {

std::string describe(const char* call, cudaError_t status) {
  return std::string(call) + " returned " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
}

struct Probe {
  bool available = false;
  std::string reason;
};

// Every step only asks the runtime and reads return codes: safe without a driver.
Probe probe_device() {
  Probe probe;
  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess) {
    probe.reason = "no CUDA device: " + describe("cudaGetDeviceCount", counted);
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
    probe.reason = "CUDA device unusable: " + describe("cudaFree(nullptr) (context creation)", context);
    return probe;
  }
  probe.available = true;
  return probe;
}

}  // namespace

bool cuda_device_available(std::string* reason) {
  static const Probe probe = probe_device();  // thread-safe, once per process
  if (!probe.available && reason != nullptr) *reason = probe.reason;
  return probe.available;
}

void GpuTest::SetUp() {
  std::string reason;
  if (!cuda_device_available(&reason)) GTEST_SKIP() << reason;
  // Clears a non-sticky error an earlier test left behind; a sticky one survives and shows below.
  static_cast<void>(cudaGetLastError());
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    FAIL() << "the CUDA context was already broken when this test started ("
           << describe("cudaDeviceSynchronize", status)
           << "); an earlier test in this process caused it, this test could not run";
  }
}

void GpuTest::TearDown() {
  if (!cuda_device_available(nullptr)) return;
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    ADD_FAILURE() << "after the test, the device reported an error from its kernels ("
                  << describe("cudaDeviceSynchronize", status)
                  << "); e.g. an out-of-bounds access or a trap in device code";
  }
  static_cast<void>(cudaGetLastError());
}

}  // namespace cudalabs
