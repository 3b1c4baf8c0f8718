#pragma once
// GPU tests skip, with the reason, on machines without a usable CUDA device (CI, laptops), and
// fail loudly when an earlier test left the CUDA context broken.
//
//   class MySuite : public cudalabs::GpuTest {};
//   TEST_F(MySuite, Works) { ... }           // skipped without a device
//
//   TEST(Plain, NeedsGpu) { CUDALABS_REQUIRE_GPU(); ... }
//
// A fixture that overrides SetUp must call GpuTest::SetUp() first and return if
// IsSkipped() || HasFatalFailure().
#include <string>

#include <gtest/gtest.h>

namespace cudalabs {

// Whether a CUDA device can be used by this process. Probed once (device count and context
// creation) and cached; never throws, also without a driver. When false and `reason` is not
// null, *reason says why, e.g. "no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice:
// no CUDA-capable device is detected".
bool cuda_device_available(std::string* reason = nullptr);

// Whether the driver lists a CUDA device, without creating a context: for tests that run labgrade,
// which takes the GPU itself. Under ctest -j4 a neighbour filling the GPU's memory can make a
// context of this process fail to start, and a test that then skipped itself could not fail (seen
// on the H100: a sanitizer test skipped in 1 s); labgrade waits for the GPU instead.
bool cuda_device_listed();

class GpuTest : public ::testing::Test {
 protected:
  // Takes this GPU for the rest of the process (cudalabs/gpu_lock.hpp; not when labgrade holds it
  // already); skips without a device; fails if the context already holds a sticky error.
  void SetUp() override;
  // Waits for the test's kernels, so an asynchronous fault is charged to this test.
  void TearDown() override;
};

}  // namespace cudalabs

// For TEST() bodies: skip the test, with the reason, when there is no usable CUDA device.
#define CUDALABS_REQUIRE_GPU()                                          \
  do {                                                                  \
    std::string cudalabs_no_gpu_reason_;                                \
    if (!::cudalabs::cuda_device_available(&cudalabs_no_gpu_reason_)) { \
      GTEST_SKIP() << cudalabs_no_gpu_reason_;                          \
    }                                                                   \
  } while (false)
