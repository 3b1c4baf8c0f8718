// The device generators against the host ones: bit for bit, for every generator, several seeds,
// sizes (0, 1, around a draw of bytes, primes, 2^20 + 3) and ranges. A mismatch names the
// generator, its arguments and the first differing element.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generator_elements.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"

namespace {

using cudalabs::DeviceBuffer;

const std::uint64_t kSeeds[] = {0, 42, 0xDEADBEEFCAFEF00Dull};
const std::size_t kSizes[] = {0, 1, 2, 7, 8, 9, 97, 1021, 65537, (std::size_t{1} << 20) + 3};

// Bitwise (so -0.0f vs 0.0f or two NaN payloads would count as different).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& host, const std::vector<T>& device) {
  if (host.size() != device.size()) {
    return ::testing::AssertionFailure() << "sizes differ: host " << host.size() << ", device " << device.size();
  }
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (std::memcmp(&host[i], &device[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure() << "first difference at element " << i << ": host " << +host[i]
                                           << ", device " << +device[i];
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T, class Fill>
std::vector<T> on_device(std::size_t n, Fill&& fill) {
  DeviceBuffer<T> buffer(n);
  buffer.fill_bytes(0xA5);  // so an element the kernel never writes shows
  fill(buffer.data());
  CUDALABS_CHECK(cudaDeviceSynchronize());
  return buffer.copy_to_host();
}

class DeviceGenerators : public cudalabs::GpuTest {};

TEST_F(DeviceGenerators, FloatsMatchTheHostBitForBit) {
  const std::pair<float, float> ranges[] = {
      {-1.0f, 1.0f}, {0.0f, 1.0f}, {-1000.0f, 1000.0f}, {-20.0f, 20.0f}, {1e-30f, 1.0000001e-30f}, {5.0f, 5.0f},
      {-1e38f, 1e38f}};
  for (const auto& range : ranges) {
    const float lo = range.first, hi = range.second;  // named: lambdas cannot capture bindings in C++17
    for (std::uint64_t seed : kSeeds) {
      for (std::size_t n : kSizes) {
        const std::vector<float> device = on_device<float>(
            n, [&](float* out) { cudalabs::fill_uniform_floats(out, n, seed, lo, hi); });
        EXPECT_TRUE(same_bits(cudalabs::uniform_floats(n, seed, lo, hi), device))
            << "uniform_floats(n = " << n << ", seed = " << seed << ", [" << lo << ", " << hi << "))";
      }
    }
  }
}

TEST_F(DeviceGenerators, DoublesMatchTheHostBitForBit) {
  const std::pair<double, double> ranges[] = {{-1.0, 1.0}, {0.0, 1.0}, {10.0, 10.5}, {-1e300, 1e300}, {3.0, 3.0}};
  for (const auto& range : ranges) {
    const double lo = range.first, hi = range.second;  // named: lambdas cannot capture bindings in C++17
    for (std::uint64_t seed : kSeeds) {
      for (std::size_t n : kSizes) {
        const std::vector<double> device = on_device<double>(
            n, [&](double* out) { cudalabs::fill_uniform_doubles(out, n, seed, lo, hi); });
        EXPECT_TRUE(same_bits(cudalabs::uniform_doubles(n, seed, lo, hi), device))
            << "uniform_doubles(n = " << n << ", seed = " << seed << ", [" << lo << ", " << hi << "))";
      }
    }
  }
}

TEST_F(DeviceGenerators, IntsMatchTheHostBitForBit) {
  const std::pair<int, int> ranges[] = {{0, 99},       {-1000, 1000}, {-128, 128}, {-2, 2},
                                        {5, 5},        {0, 255},      {-50000, 50000},
                                        {INT_MIN, INT_MAX}, {INT_MIN, INT_MIN + 2}, {-3, INT_MAX}};
  for (const auto& range : ranges) {
    const int lo = range.first, hi = range.second;  // named: lambdas cannot capture bindings in C++17
    for (std::uint64_t seed : kSeeds) {
      for (std::size_t n : kSizes) {
        const std::vector<int> device = on_device<int>(
            n, [&](int* out) { cudalabs::fill_uniform_ints(out, n, seed, lo, hi); });
        EXPECT_TRUE(same_bits(cudalabs::uniform_ints(n, seed, lo, hi), device))
            << "uniform_ints(n = " << n << ", seed = " << seed << ", [" << lo << ", " << hi << "])";
      }
    }
  }
}

// Every start alignment: the kernel stores whole 8-byte words only where the address allows.
TEST_F(DeviceGenerators, BytesMatchTheHostBitForBitAtEveryAlignment) {
  for (std::uint64_t seed : kSeeds) {
    for (std::size_t n : kSizes) {
      const std::vector<unsigned char> host = cudalabs::random_bytes(n, seed);
      for (std::size_t offset = 0; offset < 8; ++offset) {
        DeviceBuffer<unsigned char> buffer(n + offset);
        buffer.fill_bytes(0xA5);
        cudalabs::fill_random_bytes(buffer.data() + offset, n, seed);
        CUDALABS_CHECK(cudaDeviceSynchronize());
        const std::vector<unsigned char> all = buffer.copy_to_host();
        for (std::size_t i = 0; i < offset; ++i) ASSERT_EQ(all[i], 0xA5) << "wrote before the start, offset " << offset;
        EXPECT_TRUE(same_bits(host, std::vector<unsigned char>(all.begin() + offset, all.end())))
            << "random_bytes(n = " << n << ", seed = " << seed << ") at byte offset " << offset;
      }
    }
  }
}

// The retry path of the integer mapping, which int ranges almost never take (probability below
// 2^-32): a 64-bit span of 2^63 + 1 rejects almost half the draws.
__global__ void int64_elements(std::int64_t* out, std::size_t n, cudalabs::element::IntRange range,
                               std::uint64_t seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = cudalabs::element::uniform_int(range, seed, i);
}

TEST_F(DeviceGenerators, RejectedIntDrawsRetryTheSameWayOnBothSides) {
  const auto range = cudalabs::element::int_range(-1, std::numeric_limits<std::int64_t>::max(), "test");
  ASSERT_GT(range.reject_below, std::uint64_t{1} << 62);
  constexpr std::size_t n = 4099;
  for (std::uint64_t seed : kSeeds) {
    std::vector<std::int64_t> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = cudalabs::element::uniform_int(range, seed, i);
    const std::vector<std::int64_t> device = on_device<std::int64_t>(n, [&](std::int64_t* out) {
      int64_elements<<<(n + 255) / 256, 256>>>(out, n, range, seed);
      CUDALABS_CHECK_LAUNCH();
    });
    EXPECT_TRUE(same_bits(host, device)) << "seed " << seed;
  }
}

TEST_F(DeviceGenerators, RunOnTheGivenStream) {
  cudaStream_t stream = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  constexpr std::size_t n = 100003;
  DeviceBuffer<float> buffer(n);
  cudalabs::fill_uniform_floats(buffer.data(), n, 7, -2.0f, 3.0f, stream);
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  CUDALABS_CHECK(cudaStreamDestroy(stream));
  EXPECT_TRUE(same_bits(cudalabs::uniform_floats(n, 7, -2.0f, 3.0f), buffer.copy_to_host()));
}

// --- host-only: argument checks happen before anything reaches the device --------------------

TEST(DeviceGeneratorArguments, InvalidRangesThrowLikeTheHostGenerators) {
  EXPECT_THROW(cudalabs::fill_uniform_ints(nullptr, 0, 0, 3, 2), std::invalid_argument);
  EXPECT_THROW(cudalabs::fill_uniform_floats(nullptr, 0, 0, 1.0f, -1.0f), std::invalid_argument);
  EXPECT_THROW(cudalabs::fill_uniform_floats(nullptr, 0, 0, 0.0f, std::numeric_limits<float>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(cudalabs::fill_uniform_doubles(nullptr, 0, 0, -1e308, 1e308), std::invalid_argument);
  try {
    cudalabs::fill_uniform_ints(nullptr, 0, 0, 3, 2);
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "fill_uniform_ints: lo 3 > hi 2");
  }
}

TEST(DeviceGeneratorArguments, NullOutputWithElementsThrows) {
  EXPECT_THROW(cudalabs::fill_uniform_floats(nullptr, 1, 0), std::invalid_argument);
  EXPECT_THROW(cudalabs::fill_random_bytes(nullptr, 3, 0), std::invalid_argument);
  EXPECT_NO_THROW(cudalabs::fill_random_bytes(nullptr, 0, 0));  // nothing to write, nothing launched
}

}  // namespace
