#include "cudalabs/device_generators.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/generator_elements.hpp"

namespace cudalabs {
namespace {

constexpr int kThreads = 256;

// Enough blocks to fill any current GPU several times over; a grid-stride loop covers the rest.
unsigned int blocks_for(std::size_t work_items) {
  const std::size_t wanted = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(std::min<std::size_t>(wanted, 8192));
}

// One element per thread per step: element i depends only on (seed, i).
template <class T, class Element>
__global__ void fill_elements(T* out, std::size_t n, Element element) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = element(i);
  }
}

struct FloatElement {
  element::FloatRange range;
  std::uint64_t seed;
  __device__ float operator()(std::size_t i) const { return element::uniform_float(range, seed, i); }
};

struct DoubleElement {
  element::DoubleRange range;
  std::uint64_t seed;
  __device__ double operator()(std::size_t i) const { return element::uniform_double(range, seed, i); }
};

struct IntElement {
  element::IntRange range;
  std::uint64_t seed;
  __device__ int operator()(std::size_t i) const { return static_cast<int>(element::uniform_int(range, seed, i)); }
};

// One draw per thread: eight bytes, stored as one 8-byte word where the destination allows it
// (the alignment is the same for every word, so the branch is uniform across the grid).
__global__ void fill_bytes_kernel(unsigned char* out, std::size_t n, std::uint64_t seed) {
  const std::size_t words = (n + 7) / 8;
  const bool aligned = reinterpret_cast<std::uintptr_t>(out) % 8 == 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t w = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride) {
    std::uint64_t word = element::draw(seed, w);
    const std::size_t first = w * 8;
    if (aligned && first + 8 <= n) {
      *reinterpret_cast<std::uint64_t*>(out + first) = word;  // little-endian, as random_byte
    } else {
      for (std::size_t i = first; i < n && i < first + 8; ++i, word >>= 8) out[i] = static_cast<unsigned char>(word);
    }
  }
}

void require_output(const void* device_out, std::size_t n, const char* function) {
  if (device_out == nullptr && n != 0) {
    throw std::invalid_argument(std::string(function) + ": device_out is null but n = " + std::to_string(n));
  }
}

template <class T, class Element>
void launch_fill(T* device_out, std::size_t n, const Element& element, cudaStream_t stream, const char* function) {
  require_output(device_out, n, function);
  if (n == 0) return;
  fill_elements<<<blocks_for(n), kThreads, 0, stream>>>(device_out, n, element);
  CUDALABS_CHECK_LAUNCH();
}

}  // namespace

void fill_uniform_floats(float* device_out, std::size_t n, std::uint64_t seed, float lo, float hi,
                         cudaStream_t stream) {
  launch_fill(device_out, n, FloatElement{element::float_range(lo, hi, "fill_uniform_floats"), seed}, stream,
              "fill_uniform_floats");
}

void fill_uniform_doubles(double* device_out, std::size_t n, std::uint64_t seed, double lo, double hi,
                          cudaStream_t stream) {
  launch_fill(device_out, n, DoubleElement{element::double_range(lo, hi, "fill_uniform_doubles"), seed}, stream,
              "fill_uniform_doubles");
}

void fill_uniform_ints(int* device_out, std::size_t n, std::uint64_t seed, int lo, int hi, cudaStream_t stream) {
  launch_fill(device_out, n, IntElement{element::int_range(lo, hi, "fill_uniform_ints"), seed}, stream,
              "fill_uniform_ints");
}

void fill_random_bytes(unsigned char* device_out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  require_output(device_out, n, "fill_random_bytes");
  if (n == 0) return;
  fill_bytes_kernel<<<blocks_for((n + 7) / 8), kThreads, 0, stream>>>(device_out, n, seed);
  CUDALABS_CHECK_LAUNCH();
}

}  // namespace cudalabs
