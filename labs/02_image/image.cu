// Lab 02: your implementation. Fill in the kernels and the two host functions below; the handout
// (README.md) explains the image layout, what is tested and what "fast" means. Build and check with
//   ./cudalabs check 02_image
#include "image.cuh"

namespace LAB_IMPL {

// One thread per gray pixel (to start with), on a 2D grid: x across a row, y down the rows.
__global__ void rgb_to_gray_kernel(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray,
                                   std::size_t gray_pitch, int width, int height) {
  // TODO(student):
  //  1. x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y.
  //     Let consecutive threads (threadIdx.x) take consecutive pixels of a row: that is what
  //     makes a warp's loads coalesced.
  //  2. Do nothing when x >= width or y >= height (the grid is rounded up to whole blocks).
  //  3. The pixel's bytes start at rgb + y * rgb_pitch + 3 * x (the pitch is in bytes); write
  //     gray[y * gray_pitch + x] = (77 * R + 150 * G + 29 * B + 128) >> 8.
  //  Use std::size_t for y * pitch: it can exceed 2^31.
  static_cast<void>(rgb);
  static_cast<void>(rgb_pitch);
  static_cast<void>(gray);
  static_cast<void>(gray_pitch);
  static_cast<void>(width);
  static_cast<void>(height);
}

// Start with one thread per output pixel reading its 9 neighbours from global memory; then
// stage a tile of the input (plus a 1-pixel halo) in shared memory (see the handout's steps).
__global__ void sobel_kernel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges,
                             std::size_t edges_pitch, int width, int height) {
  // TODO(student):
  //  1. Same 2D indexing and bounds check as rgb_to_gray_kernel.
  //  2. Read p(x+dx, y+dy) for dx, dy in {-1, 0, 1}, clamping each coordinate into the image
  //     (x + dx < 0 reads column 0, x + dx >= width reads column width - 1; rows alike).
  //  3. gx, gy as in image.cuh; edges[y * edges_pitch + x] = min(255, round(sqrt(gx^2 + gy^2))).
  static_cast<void>(gray);
  static_cast<void>(gray_pitch);
  static_cast<void>(edges);
  static_cast<void>(edges_pitch);
  static_cast<void>(width);
  static_cast<void>(height);
}

cudaError_t rgb_to_gray(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray, std::size_t gray_pitch,
                        int width, int height, cudaStream_t stream) {
  // TODO(student):
  //  1. If width == 0 or height == 0, return cudaSuccess without launching anything.
  //  2. Choose a 2D block (e.g. dim3 block(32, 8)) and a grid covering the image:
  //     dim3 grid((width + 31) / 32, (height + 7) / 8). gridDim.y may not exceed 65535: for taller
  //     images, cap it and loop over rows in the kernel (y += gridDim.y * blockDim.y).
  //  3. Launch rgb_to_gray_kernel<<<grid, block, 0, stream>>>(...) and return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(rgb);
  static_cast<void>(rgb_pitch);
  static_cast<void>(gray);
  static_cast<void>(gray_pitch);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t sobel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges, std::size_t edges_pitch,
                  int width, int height, cudaStream_t stream) {
  // TODO(student): the same three steps as rgb_to_gray, launching sobel_kernel.
  // Delete the lines below once you have done that.
  static_cast<void>(gray);
  static_cast<void>(gray_pitch);
  static_cast<void>(edges);
  static_cast<void>(edges_pitch);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
