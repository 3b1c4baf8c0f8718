// Lab 08: your implementation. Fill in the filters, the kernels and the host functions below, in
// order; the handout (README.md) explains each step, what is tested and what "fast" means.
// Build and check with
//   ./cudalabs check 08_convolution
#include "convolution.cuh"

namespace LAB_IMPL {

// --- The filters, in constant memory ---------------------------------------------------------
//
// TODO(student): declare the two filters here, sized for the widest filter the API allows:
//   __constant__ float c_filter_1d[kMaxFilterWidth1d];
//   __constant__ float c_filter_2d[kMaxFilterWidth2d * kMaxFilterWidth2d];
// Kernels read them like ordinary arrays (c_filter_2d[j * w + k]); only the host writes them.

// Suggested shape of the 2D thread blocks; change it if you like.
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
static_assert(kBlockX * kBlockY <= 1024, "a block has at most 1024 threads");

cudaError_t set_filter_1d(const float* taps, int filter_width, cudaStream_t stream) {
  // TODO(student):
  //  1. Return cudaErrorInvalidValue when taps is null, filter_width is even, < 1 or
  //     > kMaxFilterWidth1d.
  //  2. Copy filter_width floats from `taps` (host memory) to c_filter_1d, on `stream`:
  //       return cudaMemcpyToSymbolAsync(c_filter_1d, taps, filter_width * sizeof(float), 0,
  //                                      cudaMemcpyHostToDevice, stream);
  // Delete the lines below once you have done that.
  static_cast<void>(taps);
  static_cast<void>(filter_width);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t set_filter_2d(const float* taps, int filter_width, cudaStream_t stream) {
  // TODO(student): as set_filter_1d, for filter_width * filter_width taps, into c_filter_2d, with
  // kMaxFilterWidth2d as the limit.
  // Delete the lines below once you have done that.
  static_cast<void>(taps);
  static_cast<void>(filter_width);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

// --- Step 1: 1D, one thread per output --------------------------------------------------------

__global__ void convolve_1d_kernel(const float* in, float* out, int n, int radius) {
  // TODO(student):
  //  1. i = blockIdx.x * blockDim.x + threadIdx.x; do nothing when i >= n.
  //  2. sum over k = 0 .. 2 * radius of c_filter_1d[k] * in[clamp(i + k - radius, 0, n - 1)]
  //     (clamp: below 0 reads 0, above n - 1 reads n - 1).
  //  3. out[i] = sum.
  // Every thread of a warp reads the same tap k at the same time: one constant-memory read
  // serves the whole warp.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(radius);
}

// --- Step 2: 2D, one thread per output, straight from global memory ---------------------------

__global__ void convolve_2d_naive_kernel(const float* in, float* out, int width, int height, int radius) {
  // TODO(student):
  //  1. x from the x dimension (blockIdx.x, blockDim.x, threadIdx.x), y from the y dimension;
  //     do nothing when x >= width or y >= height. Consecutive threadIdx.x take consecutive x,
  //     so a warp's loads of one filter row fall on consecutive floats of one image row.
  //  2. sum over j, k in 0 .. 2 * radius of
  //       c_filter_2d[j * (2 * radius + 1) + k] * in[clamp(y + j - radius) * width + clamp(x + k - radius)]
  //  3. out[y * width + x] = sum.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(radius);
}

// --- Step 3: 2D with the tile and its halo in shared memory ------------------------------------

__global__ void convolve_2d_tiled_kernel(const float* in, float* out, int width, int height, int radius) {
  // TODO(student): this block computes the kBlockX x kBlockY outputs whose top-left pixel is
  // (x0, y0) = (blockIdx.x * kBlockX, blockIdx.y * kBlockY). They need the input pixels from
  // (x0 - radius, y0 - radius) to (x0 + kBlockX - 1 + radius, y0 + kBlockY - 1 + radius).
  //  1. Declare the tile, sized for the largest radius (7):
  //       __shared__ float tile[kBlockY + kMaxFilterWidth2d - 1][kBlockX + kMaxFilterWidth2d - 1];
  //  2. Load (kBlockY + 2 * radius) rows of (kBlockX + 2 * radius) pixels: all threads together,
  //     e.g. for (int i = threadIdx.y * kBlockX + threadIdx.x; i < rows * cols; i += kBlockX * kBlockY)
  //     with row = i / cols, col = i % cols, tile[row][col] = in(clamp(x0 - radius + col),
  //     clamp(y0 - radius + row)). Clamp here, so the compute loop never checks the borders.
  //  3. __syncthreads(): a thread reads pixels that other threads loaded.
  //  4. If this thread's output (x0 + threadIdx.x, y0 + threadIdx.y) is inside the image:
  //       sum over j, k of c_filter_2d[j * w + k] * tile[threadIdx.y + j][threadIdx.x + k].
  //     (No early return before __syncthreads(): every thread must reach the barrier.)
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(radius);
}

// --- Host functions ------------------------------------------------------------------------------

cudaError_t convolve_1d(const float* in, float* out, int n, int filter_width, cudaStream_t stream) {
  // TODO(student):
  //  1. Return cudaErrorInvalidValue for a filter_width that is even, < 1 or > kMaxFilterWidth1d.
  //  2. If n == 0, return cudaSuccess without launching anything.
  //  3. Launch convolve_1d_kernel<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n, filter_width / 2);
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(filter_width);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t convolve_2d_naive(const float* in, float* out, int width, int height, int filter_width,
                              cudaStream_t stream) {
  // TODO(student):
  //  1. Return cudaErrorInvalidValue for a filter_width that is even, < 1 or > kMaxFilterWidth2d.
  //  2. If width == 0 or height == 0, return cudaSuccess without launching anything.
  //  3. dim3 threads(kBlockX, kBlockY), blocks((width + kBlockX - 1) / kBlockX,
  //     (height + kBlockY - 1) / kBlockY); launch convolve_2d_naive_kernel on `stream`.
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(filter_width);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t convolve_2d_tiled(const float* in, float* out, int width, int height, int filter_width,
                              cudaStream_t stream) {
  // TODO(student): the same checks and launch as convolve_2d_naive, with convolve_2d_tiled_kernel.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(filter_width);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
