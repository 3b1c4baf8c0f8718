// Which block shape makes lab 02's reference Sobel fastest on this GPU, and a proof that its
// float-only magnitude is exact. The reference's own kernel is compiled here with each shape
// (solutions/02_image/image.cu is included whole):
//  1. every (gx, gy) in [-1020, 1020]^2, in both 16-bit halves, against min(255, round(sqrt))
//     computed in double: the count of differences must be 0;
//  2. each shape on an 8192 x 8192 image (tight rows) and a 1001 x 777 one (misaligned, padded
//     rows), checked pixel for pixel against a CPU Sobel, then timed interleaved with a
//     device-to-device cudaMemcpy of the same bytes (2 per pixel): the fraction of memcpy.
// On the H100 (2026-11-25): 0 magnitude differences, 0 wrong pixels for every shape; 8 px x 16
// rows, 32x4 threads, 8 blocks/SM (the reference) 0.747 of memcpy, 8 px x 8 rows at 8/SM 0.733,
// 8 px x 8 rows, 32x8 at 4/SM 0.699, 4 px x 16 rows at 8/SM 0.656, 4 px x 8 rows at 4/SM 0.664,
// 4 px x 4 rows 0.548: wider strips and taller windows amortise the halo bytes and the two
// window rows loaded before the first output.
//
//   sobel_shape_probe
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/interleaved.hpp"

#define LAB_IMPL probe
#include "../../solutions/02_image/image.cu"
#undef LAB_IMPL

namespace {

using cudalabs::DeviceBuffer;
using namespace cudalabs::timing;

constexpr int kSide = 8192;

__global__ void magnitude_differences(unsigned long long* differences) {
  const int gx = static_cast<int>(blockIdx.x) - 1020;
  for (int gy = static_cast<int>(threadIdx.x) - 1020; gy <= 1020; gy += blockDim.x) {
    const int other = (gx * 7 + gy * 13) & 2047;  // something else in the other half
    const unsigned expected = static_cast<unsigned>(min(255.0, floor(sqrt(static_cast<double>(gx * gx + gy * gy)) + 0.5)));
    const unsigned gx_low = static_cast<unsigned>(gx + 1024) | (static_cast<unsigned>(other) << 16);
    const unsigned gy_low = static_cast<unsigned>(gy + 1024) | (static_cast<unsigned>(other) << 16);
    const unsigned gx_high = static_cast<unsigned>(other) | (static_cast<unsigned>(gx + 1024) << 16);
    const unsigned gy_high = static_cast<unsigned>(other) | (static_cast<unsigned>(gy + 1024) << 16);
    const unsigned low = probe::magnitude_in_low_byte(gx_low, gy_low, 0x4B000000u, 0x7610) & 0xFFu;
    const unsigned high = probe::magnitude_in_low_byte(gx_high, gy_high, 0x4B000000u, 0x7632) & 0xFFu;
    if (low != expected) atomicAdd(differences, 1ull);
    if (high != expected) atomicAdd(differences, 1ull);
  }
}

std::vector<unsigned char> cpu_sobel(const std::vector<unsigned char>& in, std::size_t pitch, int width, int height) {
  std::vector<unsigned char> out(static_cast<std::size_t>(width) * height);
  auto p = [&](int x, int y) {
    return static_cast<int>(in[static_cast<std::size_t>(std::clamp(y, 0, height - 1)) * pitch + std::clamp(x, 0, width - 1)]);
  };
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int gx = (p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)) - (p(x - 1, y - 1) + 2 * p(x - 1, y) + p(x - 1, y + 1));
      const int gy = (p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)) - (p(x - 1, y - 1) + 2 * p(x, y - 1) + p(x + 1, y - 1));
      out[static_cast<std::size_t>(y) * width + x] =
          static_cast<unsigned char>(std::min(255.0, std::floor(std::sqrt(static_cast<double>(gx * gx + gy * gy)) + 0.5)));
    }
  }
  return out;
}

// Random bytes, with every 5th row pushed to 0 or 255 so that gradients saturate too.
std::vector<unsigned char> test_image(std::size_t pitch, int height, unsigned seed) {
  const std::vector<int> values = cudalabs::uniform_ints(pitch * height, seed, 0, 255);
  std::vector<unsigned char> image(values.begin(), values.end());
  for (std::size_t i = 0; i < image.size(); ++i) {
    if ((i / pitch) % 5 == 0) image[i] = image[i] < 128 ? 0 : 255;
  }
  return image;
}

struct Image {
  int width, height;
  std::size_t pitch, offset;  // offset: bytes from the allocation's start, to misalign rows
  std::vector<unsigned char> host, expected;
  DeviceBuffer<unsigned char> in, out;
  Image(int w, int h, std::size_t p, std::size_t off, unsigned seed)
      : width(w), height(h), pitch(p), offset(off), host(test_image(p, h, seed)),
        expected(cpu_sobel(host, p, w, h)), in(off + p * h), out(off + p * h) {
    CUDALABS_CHECK(cudaMemcpy(in.data() + off, host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  std::size_t wrong_pixels() const {
    std::vector<unsigned char> got(pitch * height);
    CUDALABS_CHECK(cudaMemcpy(got.data(), out.data() + offset, got.size(), cudaMemcpyDeviceToHost));
    std::size_t wrong = 0;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) wrong += got[y * pitch + x] != expected[static_cast<std::size_t>(y) * width + x];
    }
    return wrong;
  }
};

template <class Shape>
void measure(const char* name, Image& big, Image& odd) {
  auto run = [](Image& m, cudaStream_t s) {
    CUDALABS_CHECK(probe::launch_sobel<Shape>(m.in.data() + m.offset, m.pitch, m.out.data() + m.offset, m.pitch,
                                              m.width, m.height, s));
  };
  run(big, nullptr);
  run(odd, nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const std::size_t wrong = big.wrong_pixels() + odd.wrong_pixels();
  const std::size_t bytes = static_cast<std::size_t>(kSide) * kSide;
  const Launch shape = [&](cudaStream_t s) { run(big, s); };
  const Launch copy_same_bytes = [&](cudaStream_t s) {
    CUDALABS_CHECK(cudaMemcpyAsync(big.out.data(), big.in.data(), bytes, cudaMemcpyDeviceToDevice, s));
  };
  SamplingPolicy policy;
  policy.min_samples = 30;
  policy.max_samples = 200;
  policy.time_budget_seconds = 3;
  Workload work;
  work.student = always_succeeding(shape);
  work.solution = copy_same_bytes;
  const PairedResult r = measure_interleaved(work, policy);
  cudaFuncAttributes attributes{};
  CUDALABS_CHECK(cudaFuncGetAttributes(&attributes, probe::sobel_tiled<Shape>));
  int blocks = 0;
  CUDALABS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe::sobel_tiled<Shape>, Shape::kThreads, 0));
  std::printf("  %-26s %7.4f ms  memcpy %7.4f ms  %.3f of memcpy [%.3f, %.3f]; %d regs, %d blocks/SM, %zu wrong pixels\n",
              name, r.student_ms.median, r.solution_ms.median, 1.0 / r.ratio.median, 1.0 / r.ratio.ci.high,
              1.0 / r.ratio.ci.low, attributes.numRegs, blocks, wrong);
}

}  // namespace

int main() {
  DeviceBuffer<unsigned long long> differences(1);
  CUDALABS_CHECK(cudaMemset(differences.data(), 0, sizeof(unsigned long long)));
  magnitude_differences<<<2041, 256>>>(differences.data());
  CUDALABS_CHECK(cudaGetLastError());
  unsigned long long count = 0;
  CUDALABS_CHECK(cudaMemcpy(&count, differences.data(), sizeof count, cudaMemcpyDeviceToHost));
  std::printf("magnitude: %llu differences from min(255, round(sqrt(gx^2 + gy^2))) over all 2041^2 (gx, gy), both halves\n",
              count);

  Image big(kSide, kSide, kSide, 0, 2002);
  Image odd(1001, 777, 1003, 1, 2003);
  std::printf("sobel, %d x %d, tight rows: shapes (pixels x, threads y, rows per thread, blocks/SM) against a "
              "cudaMemcpy of the same bytes (paired)\n", kSide, kSide);
  measure<probe::SobelReferenceShape>("reference shape", big, odd);
  measure<probe::SobelShape<4, 8, 16, 4>>("4 px, 32x8, 16 rows, 4/SM", big, odd);
  measure<probe::SobelShape<8, 8, 8, 4>>("8 px, 32x8, 8 rows, 4/SM", big, odd);
  measure<probe::SobelShape<8, 4, 16, 8>>("8 px, 32x4, 16 rows, 8/SM", big, odd);
  measure<probe::SobelShape<4, 4, 16, 8>>("4 px, 32x4, 16 rows, 8/SM", big, odd);
  measure<probe::SobelShape<8, 8, 4, 4>>("8 px, 32x8, 4 rows, 4/SM", big, odd);
  measure<probe::SobelShape<8, 8, 4, 3>>("8 px, 32x8, 4 rows, 3/SM", big, odd);
  measure<probe::SobelShape<8, 8, 8, 3>>("8 px, 32x8, 8 rows, 3/SM", big, odd);
  measure<probe::SobelShape<8, 4, 8, 8>>("8 px, 32x4, 8 rows, 8/SM", big, odd);
  measure<probe::SobelShape<4, 8, 4, 4>>("4 px, 32x8, 4 rows, 4/SM", big, odd);
  return count == 0 ? 0 : 1;
}
