// Lab 02 reference: grayscale and Sobel at memory bandwidth on 8-bit images.
//
// Both kernels do little arithmetic per byte, so what matters is how memory is touched:
//  - rgb_to_gray: one thread converts 16 pixels, reading its 48 RGB bytes as three 16-byte loads
//    and writing 16 gray bytes as one store, so each thread keeps many bytes in flight (one byte
//    per load cannot cover memory latency). Rows that are not 16-byte aligned take a plain
//    one-pixel-per-thread kernel, and so do the last width % 16 pixels of each row.
//  - sobel: each block stages a 128 x 64 tile of the input plus a one-pixel halo in shared
//    memory, loading it with coalesced 4-byte words (a warp reads 128 contiguous bytes of a row);
//    each thread then computes 4 x 8 outputs from shared memory, sliding a 3-row window down its
//    column, and stores 4 outputs as one word. Every input byte is read from DRAM about once
//    instead of 9 times from the caches, and the border clamp is done once, while loading.
// Grids loop over rows in steps of gridDim.y, so images taller than 65535 rows (the limit of
// gridDim.y) are covered.
#include <cstddef>
#include <cstdint>

#include "image.cuh"

namespace LAB_IMPL {
namespace {

constexpr unsigned kMaxGridY = 65535;

__device__ __forceinline__ unsigned luma(unsigned r, unsigned g, unsigned b) {
  return (77u * r + 150u * g + 29u * b + 128u) >> 8;
}

bool aligned(const void* pointer, std::size_t pitch, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(pointer) % alignment == 0 && pitch % alignment == 0;
}

// --- rgb_to_gray -----------------------------------------------------------------------------

constexpr int kGrayThreads = 128;
constexpr int kGrayPixelsPerThread = 16;  // 48 bytes in, 16 out: three uint4 loads, one store

// Every row of rgb and gray starts 16-byte aligned (checked by the host).
__global__ void rgb_to_gray_vec16(const unsigned char* __restrict__ rgb, std::size_t rgb_pitch,
                                  unsigned char* __restrict__ gray, std::size_t gray_pitch, int width,
                                  int height) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kGrayPixelsPerThread;
  if (x0 >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const unsigned char* in = rgb + static_cast<std::size_t>(y) * rgb_pitch;
    unsigned char* out = gray + static_cast<std::size_t>(y) * gray_pitch;
    if (x0 + kGrayPixelsPerThread <= width) {
      const uint4* src = reinterpret_cast<const uint4*>(in + 3 * x0);
      const uint4 a = src[0], b = src[1], c = src[2];
      const unsigned words[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
      unsigned packed[4] = {0, 0, 0, 0};
#pragma unroll
      for (int p = 0; p < kGrayPixelsPerThread; ++p) {
        // Byte k of the 48 is byte k % 4 of word k / 4 (little-endian).
        const unsigned r = (words[(3 * p) / 4] >> (8 * ((3 * p) % 4))) & 0xFFu;
        const unsigned g = (words[(3 * p + 1) / 4] >> (8 * ((3 * p + 1) % 4))) & 0xFFu;
        const unsigned bl = (words[(3 * p + 2) / 4] >> (8 * ((3 * p + 2) % 4))) & 0xFFu;
        packed[p / 4] |= luma(r, g, bl) << (8 * (p % 4));
      }
      *reinterpret_cast<uint4*>(out + x0) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
    } else {
      for (int x = x0; x < width; ++x) out[x] = static_cast<unsigned char>(luma(in[3 * x], in[3 * x + 1], in[3 * x + 2]));
    }
  }
}

// Any alignment: one pixel per thread, consecutive threads on consecutive pixels of a row.
__global__ void rgb_to_gray_bytes(const unsigned char* __restrict__ rgb, std::size_t rgb_pitch,
                                  unsigned char* __restrict__ gray, std::size_t gray_pitch, int width,
                                  int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const unsigned char* in = rgb + static_cast<std::size_t>(y) * rgb_pitch + 3 * static_cast<std::size_t>(x);
    gray[static_cast<std::size_t>(y) * gray_pitch + x] = static_cast<unsigned char>(luma(in[0], in[1], in[2]));
  }
}

// --- sobel -----------------------------------------------------------------------------------

constexpr int kTileWidth = 128;       // output columns per block: 32 threads x 4 pixels
constexpr int kTileHeight = 64;       // output rows per block: 8 threads x 8 rows
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kPixelsPerThreadX = 4;  // one 4-byte word
constexpr int kRowsPerThread = kTileHeight / kThreadsY;
// Shared row: 4 bytes before the tile (the left halo sits at byte 3), the 128 tile bytes, the
// right halo at byte 132; 136 keeps every row's words 4-byte aligned.
constexpr int kSharedRow = 136;
constexpr int kSharedRows = kTileHeight + 2;
constexpr int kWordsPerRow = kTileWidth / 4;
constexpr int kBlockThreads = kThreadsX * kThreadsY;
constexpr int kWordLoadsPerThread = (kSharedRows * kWordsPerRow + kBlockThreads - 1) / kBlockThreads;
// At least 4 resident blocks (1024 threads) per SM: caps registers at 64 per thread, so several
// blocks overlap one's loading phase with another's computing.
constexpr int kSobelBlocksPerSm = 4;

__device__ __forceinline__ int clamp_to(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

// min(255, round(sqrt(gx^2 + gy^2))), exact, with one special-function instruction per pixel.
// That unit (16 lanes per SM and clock, a quarter of the integer and float units) also does the
// int<->float conversions, and with a conversion each way it was this kernel's bottleneck. So:
//  - anything at or above 255.5^2 = 65280.25 saturates: clamp g2 to 65280 first (its root,
//    255.4995, rounds to 255);
//  - int -> float by the 2^23 trick: for 0 <= g2 < 2^23, the float with exponent 2^23 and
//    mantissa g2 is 2^23 + g2 exactly, and subtracting 2^23 leaves g2 (an integer op and a FADD);
//  - sqrt.approx (relative error under 2^-22, so under 6.1e-5 here) cannot round the wrong way:
//    for an integer g2 the exact root is at least 0.25 / 511 = 4.9e-4 away from any k + 0.5;
//  - float -> int by the same trick: adding 2^23 rounds to the nearest integer (ties to even,
//    as __float2uint_rn does) into the low mantissa bits.
__device__ __forceinline__ unsigned magnitude(int gx, int gy) {
  constexpr float kTwoTo23 = 8388608.0f;
  constexpr unsigned kTwoTo23Bits = 0x4B000000u;
  const unsigned g2 = static_cast<unsigned>(min(gx * gx + gy * gy, 65280));
  const float value = __uint_as_float(kTwoTo23Bits | g2) - kTwoTo23;
  float root;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(value));
  return __float_as_uint(root + kTwoTo23) - kTwoTo23Bits;
}

__global__ void __launch_bounds__(kBlockThreads, kSobelBlocksPerSm)
sobel_tiled(const unsigned char* __restrict__ gray, std::size_t gray_pitch, unsigned char* __restrict__ edges,
            std::size_t edges_pitch, int width, int height, bool words_in, bool words_out) {
  __shared__ __align__(4) unsigned char tile[kSharedRows * kSharedRow];
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const int x_origin = blockIdx.x * kTileWidth;
  const int tile_rows = (height + kTileHeight - 1) / kTileHeight;

  for (int tile_row = blockIdx.y; tile_row < tile_rows; tile_row += gridDim.y) {
    const int y_origin = tile_row * kTileHeight;

    // 1. Stage input rows y_origin-1 .. y_origin+64, columns x_origin-1 .. x_origin+128, with
    //    coordinates clamped to the image (the border rule), so step 2 never checks borders.
    //    All word loads are issued before any is stored, to keep them in flight together.
    unsigned staged[kWordLoadsPerThread];
#pragma unroll
    for (int k = 0; k < kWordLoadsPerThread; ++k) {
      const int i = tid + k * kBlockThreads;
      staged[k] = 0;
      if (i < kSharedRows * kWordsPerRow) {
        const int row = i / kWordsPerRow;
        const int x = x_origin + (i % kWordsPerRow) * 4;
        const unsigned char* in = gray + static_cast<std::size_t>(clamp_to(y_origin - 1 + row, height - 1)) * gray_pitch;
        if (words_in && x + 4 <= width) {
          staged[k] = *reinterpret_cast<const unsigned*>(in + x);
        } else {  // the right border, or rows not 4-byte aligned
          for (int b = 0; b < 4; ++b) staged[k] |= static_cast<unsigned>(in[clamp_to(x + b, width - 1)]) << (8 * b);
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kWordLoadsPerThread; ++k) {
      const int i = tid + k * kBlockThreads;
      if (i < kSharedRows * kWordsPerRow) {
        *reinterpret_cast<unsigned*>(&tile[(i / kWordsPerRow) * kSharedRow + 4 + (i % kWordsPerRow) * 4]) = staged[k];
      }
    }
    if (tid < 2 * kSharedRows) {  // the left and right halo columns
      const int row = tid / 2;
      const int column = (tid % 2) ? kTileWidth : -1;
      const unsigned char* in = gray + static_cast<std::size_t>(clamp_to(y_origin - 1 + row, height - 1)) * gray_pitch;
      tile[row * kSharedRow + 4 + column] = in[clamp_to(x_origin + column, width - 1)];
    }
    __syncthreads();

    // 2. 4 x 8 outputs per thread. The Sobel kernels are separable: gx is the vertical [1 2 1]
    //    smoothing of the horizontal difference d = p[c+1] - p[c-1], gy the vertical difference
    //    of the horizontal smoothing s = p[c-1] + 2 p[c] + p[c+1]. Each tile row's d and s are
    //    computed once, when the row enters the 3-row window, and reused by the three outputs
    //    rows that need it; each step down loads one new row (one word and two bytes from shared
    //    memory; lanes read consecutive words, so there are no bank conflicts).
    const int c0 = threadIdx.x * kPixelsPerThreadX;
    const int first_row = threadIdx.y * kRowsPerThread;  // tile row; shared row first_row + 1
    int diff[3][kPixelsPerThreadX], smooth[3][kPixelsPerThreadX];
    auto load_row = [&](int shared_row, int* d, int* sm) {
      const unsigned char* src = &tile[shared_row * kSharedRow + 4 + c0];
      const unsigned word = *reinterpret_cast<const unsigned*>(src);
      int p[kPixelsPerThreadX + 2];
      p[0] = src[-1];
#pragma unroll
      for (int b = 0; b < 4; ++b) p[1 + b] = (word >> (8 * b)) & 0xFF;
      p[5] = src[4];
#pragma unroll
      for (int j = 0; j < kPixelsPerThreadX; ++j) {
        d[j] = p[j + 2] - p[j];
        sm[j] = p[j] + 2 * p[j + 1] + p[j + 2];
      }
    };
    load_row(first_row, diff[0], smooth[0]);
    load_row(first_row + 1, diff[1], smooth[1]);
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
      const int top = r % 3, mid = (r + 1) % 3, bot = (r + 2) % 3;
      load_row(first_row + r + 2, diff[bot], smooth[bot]);
      unsigned packed = 0;
#pragma unroll
      for (int j = 0; j < kPixelsPerThreadX; ++j) {
        const int gx = diff[top][j] + 2 * diff[mid][j] + diff[bot][j];
        const int gy = smooth[bot][j] - smooth[top][j];
        packed |= magnitude(gx, gy) << (8 * j);
      }
      const int y = y_origin + first_row + r;
      const int x = x_origin + c0;
      if (y < height && x < width) {
        unsigned char* out = edges + static_cast<std::size_t>(y) * edges_pitch;
        if (words_out && x + 4 <= width) {
          *reinterpret_cast<unsigned*>(out + x) = packed;
        } else {
          for (int j = 0; j < kPixelsPerThreadX && x + j < width; ++j) out[x + j] = (packed >> (8 * j)) & 0xFF;
        }
      }
    }
    __syncthreads();  // the tile is overwritten by the next tile row
  }
}

unsigned rows_grid(long long rows) { return static_cast<unsigned>(rows < kMaxGridY ? rows : kMaxGridY); }

}  // namespace

cudaError_t rgb_to_gray(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray, std::size_t gray_pitch,
                        int width, int height, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  if (aligned(rgb, rgb_pitch, 16) && aligned(gray, gray_pitch, 16)) {
    const int threads_per_row = (width + kGrayPixelsPerThread - 1) / kGrayPixelsPerThread;
    const dim3 grid((threads_per_row + kGrayThreads - 1) / kGrayThreads, rows_grid(height));
    rgb_to_gray_vec16<<<grid, kGrayThreads, 0, stream>>>(rgb, rgb_pitch, gray, gray_pitch, width, height);
  } else {
    const dim3 grid((width + kGrayThreads - 1) / kGrayThreads, rows_grid(height));
    rgb_to_gray_bytes<<<grid, kGrayThreads, 0, stream>>>(rgb, rgb_pitch, gray, gray_pitch, width, height);
  }
  return cudaGetLastError();
}

cudaError_t sobel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges, std::size_t edges_pitch,
                  int width, int height, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  const dim3 block(kThreadsX, kThreadsY);
  const dim3 grid((width + kTileWidth - 1) / kTileWidth, rows_grid((height + kTileHeight - 1) / kTileHeight));
  sobel_tiled<<<grid, block, 0, stream>>>(gray, gray_pitch, edges, edges_pitch, width, height,
                                          aligned(gray, gray_pitch, 4), aligned(edges, edges_pitch, 4));
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
