#include "cudalabs/gpu_test.hpp"

#include "cudalabs/device_probe.hpp"
#include "cudalabs/gpu_lock.hpp"
#include "cudalabs/remote/judge.hpp"

#include <string>

#include <cuda_runtime.h>

namespace cudalabs {

bool cuda_device_available(std::string* reason) {
  static const DeviceProbe probe = probe_cuda_device();  // thread-safe, once per process
  if (!probe.available && reason != nullptr) *reason = probe.reason;
  return probe.available;
}

bool cuda_device_listed() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

void GpuTest::SetUp() {
  // Before the context exists: a test waiting for the GPU takes none of the holder's memory.
  hold_gpu_lock_for_process();
  std::string reason;
  if (!cuda_device_available(&reason)) GTEST_SKIP() << reason;
  // Clears a non-sticky error an earlier test left behind; a sticky one survives and shows below.
  static_cast<void>(cudaGetLastError());
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    FAIL() << "the CUDA context was already broken when this test started ("
           << describe_cuda_result("cudaDeviceSynchronize", status)
           << "); an earlier test in this process caused it, this test could not run";
  }
}

void GpuTest::TearDown() {
  if (!cuda_device_available(nullptr)) return;
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    ADD_FAILURE() << "after the test, the device reported an error from its kernels ("
                  << describe_cuda_result("cudaDeviceSynchronize", status)
                  << "); e.g. an out-of-bounds access or a trap in device code";
  }
  static_cast<void>(cudaGetLastError());
  // In a judge: the runners let go of this test's buffers (their mappings would otherwise keep
  // the memory the test freed), and a student runner with a broken context is replaced.
  if (remote::judge_mode()) remote::end_of_test();
}

}  // namespace cudalabs
