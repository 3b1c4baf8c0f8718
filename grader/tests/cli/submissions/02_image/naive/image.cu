// Fixture: the "typical student" lab 02 submission. Correct everywhere, but Sobel reads its 9
// neighbours straight from global memory with x and y swapped in the thread mapping:
// threadIdx.x walks down a column, so the 32 threads of a warp touch 32 different rows (32
// sectors per load instead of one) and nothing is staged in shared memory. rgb_to_gray is the
// plain one-pixel-per-thread kernel with byte loads. Must lose the Sobel performance points.
#include "image.cuh"

namespace LAB_IMPL {

__device__ __forceinline__ int clamp_index(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

__global__ void rgb_to_gray_kernel(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray,
                                   std::size_t gray_pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const unsigned char* p = rgb + static_cast<std::size_t>(y) * rgb_pitch + 3 * static_cast<std::size_t>(x);
    gray[static_cast<std::size_t>(y) * gray_pitch + x] = static_cast<unsigned char>((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
  }
}

__global__ void sobel_kernel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges,
                             std::size_t edges_pitch, int width, int height) {
  const int x = blockIdx.y * blockDim.y + threadIdx.y;  // swapped: threadIdx.x runs down the rows
  if (x >= width) return;
  for (int y = blockIdx.x * blockDim.x + threadIdx.x; y < height; y += gridDim.x * blockDim.x) {
    int p[3][3];
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        p[dy + 1][dx + 1] = gray[static_cast<std::size_t>(clamp_index(y + dy, height - 1)) * gray_pitch +
                                 clamp_index(x + dx, width - 1)];
      }
    }
    const int gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
    const int gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
    const float m = sqrtf(static_cast<float>(gx * gx + gy * gy));
    edges[static_cast<std::size_t>(y) * edges_pitch + x] = static_cast<unsigned char>(fminf(255.0f, m + 0.5f));
  }
}

cudaError_t rgb_to_gray(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray, std::size_t gray_pitch,
                        int width, int height, cudaStream_t stream) {
  if (width == 0 || height == 0) return cudaSuccess;
  const dim3 block(32, 8);
  const int rows = (height + 7) / 8;
  const dim3 grid((width + 31) / 32, rows < 65535 ? rows : 65535);
  rgb_to_gray_kernel<<<grid, block, 0, stream>>>(rgb, rgb_pitch, gray, gray_pitch, width, height);
  return cudaGetLastError();
}

cudaError_t sobel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges, std::size_t edges_pitch,
                  int width, int height, cudaStream_t stream) {
  if (width == 0 || height == 0) return cudaSuccess;
  const dim3 block(16, 16);
  const int row_blocks = (height + 15) / 16;
  const dim3 grid(row_blocks < 65535 ? row_blocks : 65535, (width + 15) / 16);
  sobel_kernel<<<grid, block, 0, stream>>>(gray, gray_pitch, edges, edges_pitch, width, height);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
