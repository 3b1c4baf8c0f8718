// ProcessDeviceMemory: this process's own device memory from NVML (the leak check's figure while
// correctness tests share the GPU). Without NVML it must say why and give no figure, never guess.
#include <cstdlib>
#include <optional>
#include <string>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "../src/process_device_memory.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"

namespace {

using cudalabs::ProcessDeviceMemory;

// Sets CUDALABS_NVML_LIBRARY for one test, restoring what was there.
class NvmlLibrary {
 public:
  explicit NvmlLibrary(const char* value) {
    if (const char* old = std::getenv(cudalabs::kNvmlLibraryVariable)) saved_ = old;
    ::setenv(cudalabs::kNvmlLibraryVariable, value, 1);
  }
  ~NvmlLibrary() {
    if (saved_) {
      ::setenv(cudalabs::kNvmlLibraryVariable, saved_->c_str(), 1);
    } else {
      ::unsetenv(cudalabs::kNvmlLibraryVariable);
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(ProcessDeviceMemory, WithoutNvmlThereIsNoFigureAndTheReasonNamesTheLibrary) {
  const NvmlLibrary missing("/nonexistent/libnvidia-ml.so.1");
  ProcessDeviceMemory memory("0000:01:00.0");
  EXPECT_FALSE(memory.available());
  EXPECT_NE(memory.reason().find("NVML could not be loaded"), std::string::npos) << memory.reason();
  EXPECT_NE(memory.reason().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << memory.reason();
  EXPECT_FALSE(memory.bytes().has_value());
}

TEST(ProcessDeviceMemory, ALibraryWithoutNvmlsFunctionsGivesNoFigure) {
  const NvmlLibrary not_nvml("libc.so.6");  // loads, but is not NVML
  ProcessDeviceMemory memory("0000:01:00.0");
  EXPECT_FALSE(memory.available());
  EXPECT_NE(memory.reason().find("lacks the NVML functions"), std::string::npos) << memory.reason();
  EXPECT_FALSE(memory.bytes().has_value());
}

class ProcessDeviceMemoryGpu : public cudalabs::GpuTest {};

// The figure follows this process's allocations: 256 MiB more after cudaMalloc, less again after
// cudaFree. Skips (with NVML's reason) where NVML gives no per-process figure, as in a container.
TEST_F(ProcessDeviceMemoryGpu, FollowsThisProcesssAllocations) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  char bus_id[32] = {};
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device), cudaSuccess);
  ProcessDeviceMemory memory(bus_id);
  if (!memory.available()) GTEST_SKIP() << memory.reason();
  const std::optional<std::size_t> before = memory.bytes();
  if (!before) GTEST_SKIP() << memory.reason();
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  std::optional<std::size_t> held;
  {
    cudalabs::DeviceBuffer<unsigned char> buffer(kBytes);
    held = memory.bytes();
    ASSERT_TRUE(held.has_value()) << memory.reason();
    EXPECT_GE(*held, *before + kBytes);
  }
  const std::optional<std::size_t> after = memory.bytes();
  ASSERT_TRUE(after.has_value()) << memory.reason();
  EXPECT_LE(*after, *held - kBytes);
}

}  // namespace
