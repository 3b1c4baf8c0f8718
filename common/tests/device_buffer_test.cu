// DeviceBuffer, PinnedHostBuffer, CUDALABS_CHECK and GpuTest. Tests that need a device derive
// from GpuTest and skip without one; the rest run everywhere.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"

namespace {

using cudalabs::CudaError;
using cudalabs::DeviceBuffer;
using cudalabs::PinnedHostBuffer;

__global__ void write_indices(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// Keeps the GPU busy for about `cycles` clock ticks (tens of milliseconds at 10^8).
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// --- host-only -------------------------------------------------------------------------------

TEST(CudaCheck, MessageNamesFileLineCallAndError) {
  const CudaError error(cudaErrorInvalidValue, "cudaMalloc(&p, n)", "lab.cu", 12);
  EXPECT_EQ(error.code(), cudaErrorInvalidValue);
  EXPECT_EQ(error.call(), "cudaMalloc(&p, n)");
  EXPECT_EQ(error.file(), "lab.cu");
  EXPECT_EQ(error.line(), 12);
  EXPECT_EQ(std::string(error.what()),
            std::string("lab.cu:12: cudaMalloc(&p, n) failed: cudaErrorInvalidValue: ") +
                cudaGetErrorString(cudaErrorInvalidValue));
}

TEST(CudaCheck, ThrowsOnlyOnError) {
  EXPECT_NO_THROW(CUDALABS_CHECK(cudaSuccess));
  try {
    CUDALABS_CHECK(cudaErrorInvalidValue);
    FAIL() << "CUDALABS_CHECK did not throw";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
    EXPECT_EQ(error.call(), "cudaErrorInvalidValue");
    EXPECT_NE(std::string(error.what()).find("device_buffer_test.cu:"), std::string::npos) << error.what();
  }
}

TEST(DeviceBuffer, ZeroSizeAllocatesNothing) {
  DeviceBuffer<float> buffer(0);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.bytes(), 0u);
  EXPECT_TRUE(buffer.copy_to_host().empty());
  EXPECT_NO_THROW(buffer.fill_bytes(0xFF));
  EXPECT_NO_THROW(buffer.copy_from_host({}));
  PinnedHostBuffer<double> pinned(0);
  EXPECT_EQ(pinned.data(), nullptr);
  EXPECT_EQ(pinned.begin(), pinned.end());
}

TEST(GpuAvailability, GivesAReasonWhenUnavailable) {
  std::string reason;
  const bool available = cudalabs::cuda_device_available(&reason);
  EXPECT_EQ(available, cudalabs::cuda_device_available(nullptr));  // cached, stable
  if (!available) {
    EXPECT_FALSE(reason.empty());
    EXPECT_NE(reason.find("cuda"), std::string::npos) << reason;
  }
}

// --- device ----------------------------------------------------------------------------------

class DeviceBufferGpu : public cudalabs::GpuTest {};

TEST_F(DeviceBufferGpu, RoundTripsData) {
  const std::vector<float> host{1.0f, -2.0f, 3.5f, 1e30f, -0.0f};
  DeviceBuffer<float> buffer(host);
  EXPECT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), host.size());
  EXPECT_EQ(buffer.bytes(), host.size() * sizeof(float));
  const std::vector<float> back = buffer.copy_to_host();
  ASSERT_EQ(back.size(), host.size());
  EXPECT_EQ(std::memcmp(back.data(), host.data(), buffer.bytes()), 0);
}

TEST_F(DeviceBufferGpu, FillBytesWritesEveryByte) {
  DeviceBuffer<std::uint32_t> buffer(1001);
  buffer.fill_bytes(0xFF);
  for (std::uint32_t v : buffer.copy_to_host()) ASSERT_EQ(v, 0xFFFFFFFFu);
  buffer.fill_bytes(0x01);
  for (std::uint32_t v : buffer.copy_to_host()) ASSERT_EQ(v, 0x01010101u);
}

// Lab 09's streams do not wait for the legacy default stream: a fill still queued there when
// fill_bytes returned could land after the kernel under test wrote its output.
TEST_F(DeviceBufferGpu, FillBytesHasFinishedWhenItReturns) {
  DeviceBuffer<std::uint32_t> buffer(std::size_t{1} << 20);
  spin<<<1, 1>>>(100'000'000);  // the fill queues behind this
  CUDALABS_CHECK_LAUNCH();
  buffer.fill_bytes(0xFF);
  EXPECT_EQ(cudaStreamQuery(cudaStreamLegacy), cudaSuccess) << "fill_bytes returned before its cudaMemset ran";
}

TEST_F(DeviceBufferGpu, KernelOutputComesBack) {
  constexpr int n = 1000;
  DeviceBuffer<int> out(n);
  write_indices<<<(n + 255) / 256, 256>>>(out.data(), n);
  CUDALABS_CHECK_LAUNCH();
  const std::vector<int> back = out.copy_to_host();
  for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], i);
}

TEST_F(DeviceBufferGpu, MoveTransfersOwnership) {
  DeviceBuffer<int> a(16);
  int* const pointer = a.data();
  DeviceBuffer<int> b(std::move(a));
  EXPECT_EQ(b.data(), pointer);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is part of the contract
  EXPECT_EQ(a.size(), 0u);
  DeviceBuffer<int> c(4);
  c = std::move(b);
  EXPECT_EQ(c.data(), pointer);
  EXPECT_EQ(c.size(), 16u);
}

TEST_F(DeviceBufferGpu, SizeMismatchThrows) {
  DeviceBuffer<float> buffer(3);
  EXPECT_THROW(buffer.copy_from_host(std::vector<float>(4)), std::invalid_argument);
}

TEST_F(DeviceBufferGpu, BadLaunchIsCaughtByCheckLaunch) {
  DeviceBuffer<int> out(1);
  write_indices<<<1, 4096>>>(out.data(), 1);  // more threads per block than any GPU allows
  try {
    CUDALABS_CHECK_LAUNCH();
    FAIL() << "CUDALABS_CHECK_LAUNCH did not throw";
  } catch (const CudaError& error) {
    // CUDA 12 reports cudaErrorInvalidConfiguration, CUDA 13 cudaErrorInvalidValue.
    EXPECT_TRUE(error.code() == cudaErrorInvalidConfiguration || error.code() == cudaErrorInvalidValue)
        << error.what();
  }
}

TEST_F(DeviceBufferGpu, HugeAllocationThrowsCudaError) {
  EXPECT_THROW(DeviceBuffer<char>(std::size_t{1} << 62), CudaError);
}

TEST_F(DeviceBufferGpu, PinnedBufferRoundTripsThroughDevice) {
  PinnedHostBuffer<double> pinned(std::vector<double>{1.0, 2.0, 3.0});
  ASSERT_NE(pinned.data(), nullptr);
  EXPECT_EQ(pinned[1], 2.0);
  DeviceBuffer<double> device(pinned.size());
  CUDALABS_CHECK(cudaMemcpy(device.data(), pinned.data(), pinned.bytes(), cudaMemcpyHostToDevice));
  pinned.fill_bytes(0);
  CUDALABS_CHECK(cudaMemcpy(pinned.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(pinned.copy_to_host(), (std::vector<double>{1.0, 2.0, 3.0}));
  double sum = 0;
  for (double v : pinned) sum += v;
  EXPECT_EQ(sum, 6.0);
}

TEST(GpuMacro, RequireGpuSkipsWithoutDevice) {
  CUDALABS_REQUIRE_GPU();
  int count = 0;
  CUDALABS_CHECK(cudaGetDeviceCount(&count));
  EXPECT_GT(count, 0);
}

}  // namespace
