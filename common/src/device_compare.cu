#include "cudalabs/device_compare.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"

namespace cudalabs {
namespace {

constexpr int kBlock = 256;
constexpr int kMaxBlocks = 4096;  // grid-stride beyond this: enough to read at full bandwidth

struct Tally {
  unsigned long long count;
  unsigned long long first;
};

__device__ bool within(float expected, float actual, double abs, double rel) {
  if (expected == actual) return true;
  const double difference = fabs(static_cast<double>(actual) - static_cast<double>(expected));
  return difference <= abs + rel * fabs(static_cast<double>(expected));  // false for NaN
}

__device__ bool within(long long expected, long long actual, double abs, double) {
  const long long difference = actual > expected ? actual - expected : expected - actual;
  return static_cast<double>(difference) <= abs;
}

template <class T>
__global__ void count_mismatches(const T* __restrict__ expected, const T* __restrict__ actual, std::size_t n,
                                 double abs, double rel, Tally* tally) {
  using Wide = std::conditional_t<std::is_floating_point_v<T>, float, long long>;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!within(static_cast<Wide>(expected[i]), static_cast<Wide>(actual[i]), abs, rel)) {
      atomicAdd(&tally->count, 1ull);
      atomicMin(&tally->first, static_cast<unsigned long long>(i));
    }
  }
}

template <class T>
T element_at(const T* data, std::size_t i) {
  T value{};
  CUDALABS_CHECK(cudaMemcpy(&value, data + i, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

template <class T>
DeviceMismatch compare(const T* expected, const T* actual, std::size_t n, double abs, double rel, cudaStream_t stream) {
  DeviceMismatch result;
  if (n == 0) return result;
  DeviceBuffer<Tally> tally(1);
  const Tally start{0, std::numeric_limits<unsigned long long>::max()};
  CUDALABS_CHECK(cudaMemcpyAsync(tally.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  const int grid = static_cast<int>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
  count_mismatches<T><<<grid, kBlock, 0, stream>>>(expected, actual, n, abs, rel, tally.data());
  CUDALABS_CHECK_LAUNCH();
  Tally found{};
  CUDALABS_CHECK(cudaMemcpyAsync(&found, tally.data(), sizeof found, cudaMemcpyDeviceToHost, stream));
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  result.count = found.count;
  if (found.count != 0) {
    result.first = found.first;
    result.expected = static_cast<double>(element_at(expected, result.first));
    result.actual = static_cast<double>(element_at(actual, result.first));
  }
  return result;
}

}  // namespace

DeviceMismatch compare_on_device(const float* expected, const float* actual, std::size_t n, double abs, double rel,
                                 cudaStream_t stream) {
  return compare(expected, actual, n, abs, rel, stream);
}
DeviceMismatch compare_on_device(const int* expected, const int* actual, std::size_t n, long long abs,
                                 cudaStream_t stream) {
  return compare(expected, actual, n, static_cast<double>(abs), 0.0, stream);
}
DeviceMismatch compare_on_device(const unsigned* expected, const unsigned* actual, std::size_t n, long long abs,
                                 cudaStream_t stream) {
  return compare(expected, actual, n, static_cast<double>(abs), 0.0, stream);
}
DeviceMismatch compare_on_device(const unsigned char* expected, const unsigned char* actual, std::size_t n,
                                 long long abs, cudaStream_t stream) {
  return compare(expected, actual, n, static_cast<double>(abs), 0.0, stream);
}

}  // namespace cudalabs
