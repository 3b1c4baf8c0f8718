// Lab 10's device-side frame maker for the hidden and timed suites (see implementations.cuh).
#include <cstddef>
#include <cstdint>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_generators.hpp"
#include "implementations.cuh"

namespace lab10 {
namespace {

// Overwrites with reference(x + sx, y + sy) every pixel of `out` whose source lies in the frame;
// the others keep the random bytes written before.
__global__ void copy_shifted(unsigned char* out, const unsigned char* reference, int width, int height, int sx,
                             int sy) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int x = static_cast<int>(i % static_cast<std::size_t>(width));
    const int y = static_cast<int>(i / static_cast<std::size_t>(width));
    const int rx = x + sx, ry = y + sy;
    if (rx >= 0 && rx < width && ry >= 0 && ry < height) {
      out[i] = reference[static_cast<std::size_t>(ry) * width + rx];
    }
  }
}

}  // namespace

void fill_shifted_frame(unsigned char* out, const unsigned char* reference, int width, int height, int sx, int sy,
                        std::uint64_t seed, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  if (n == 0) return;
  cudalabs::fill_random_bytes(out, n, seed, stream);
  const std::size_t blocks = (n + 255) / 256;
  copy_shifted<<<static_cast<unsigned>(blocks < 8192 ? blocks : 8192), 256, 0, stream>>>(out, reference, width,
                                                                                          height, sx, sy);
  CUDALABS_CHECK_LAUNCH();
}

}  // namespace lab10
