// Lab 02 reference: grayscale and Sobel at memory bandwidth on 8-bit images.
//
// Both kernels do little arithmetic per byte, so what matters is how memory is touched and,
// for Sobel, how few instructions each pixel costs:
//  - rgb_to_gray: one thread converts 16 pixels, reading its 48 RGB bytes as three 16-byte loads
//    and writing 16 gray bytes as one store, so each thread keeps many bytes in flight (one byte
//    per load cannot cover memory latency). Rows that are not 16-byte aligned take a plain
//    one-pixel-per-thread kernel, and so do the last width % 16 pixels of each row.
//  - sobel: each block stages a 256 x 64 tile of the input plus a one-pixel halo in shared
//    memory, loading it with coalesced 4-byte words (a warp reads 128 contiguous bytes of a row);
//    each thread then computes 8 x 16 outputs from shared memory, sliding a 3-row window down its
//    columns, two pixels per 32-bit register, and stores 8 outputs as one 8-byte store. Every
//    input byte is read from DRAM about once instead of 9 times from the caches, and the border
//    clamp is done once, while loading, and only for the tiles on the image's border.
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
//
// At 2 bytes per pixel, a Sobel at copy speed on an H100 has about 21 instruction issues per
// pixel (132 SMs x 4 schedulers x 1.98 GHz against the 1.56e12 pixels/s of a memcpy), and the
// integer units (half the rate of the float units) do most of the work. The previous version
// (bytes extracted one by one, gx and gy in 32-bit ints, conversions to float and back) reached
// 0.475 of a memcpy; packing pixels alone, with every staging load clamped and addressed in
// 64-bit arithmetic, still issued 36 instructions a pixel (0.49). This one issues 17.7 (Nsight
// Compute, 8192 x 8192) and reaches 0.74:
//  - two pixels per 32-bit register: pixels j and j + 2 of a 4-byte word sit in the two 16-bit
//    halves of one register (one byte_perm builds it), so each add computes two pixels' sums;
//    differences carry a bias of 256 per half so no half ever borrows from the other;
//  - gx and gy go to float with one byte_perm each (the 2^23 trick below) and the magnitude
//    stays in float: square, add, clamp, one special-function square root, round;
//  - four rounded results are packed back into a word by byte_perm.

// The block's shape: 32 x kThreadsY threads, each computing kPixelsX x kRowsPerThread outputs
// of a kTileWidth x kTileHeight tile.
template <int kPixelsX, int kThreadsYCount, int kRows, int kBlocksPerSmCount>
struct SobelShape {
  static_assert(kPixelsX == 4 || kPixelsX == 8, "one or two 4-byte words per thread and row");
  static constexpr int kPixelsPerThreadX = kPixelsX;
  static constexpr int kWords = kPixelsX / 4;
  static constexpr int kPairs = 2 * kWords;  // 16-bit pairs per row: pixels (0,2) and (1,3) of each word
  static constexpr int kThreadsX = 32;
  static constexpr int kThreadsY = kThreadsYCount;
  static constexpr int kThreads = kThreadsX * kThreadsY;
  static constexpr int kRowsPerThread = kRows;
  static constexpr int kBlocksPerSm = kBlocksPerSmCount;
  static constexpr int kTileWidth = kThreadsX * kPixelsX;
  static constexpr int kTileHeight = kThreadsY * kRows;
  // Shared row: 8 bytes before the tile (the left halo at byte 7), the tile, the right halo
  // right after it; padded to 8 bytes so every thread's words are 8-byte aligned.
  static constexpr int kLead = 8;
  static constexpr int kSharedRow = kLead + kTileWidth + 8;
  static constexpr int kSharedRows = kTileHeight + 2;
  static constexpr int kWordsPerRow = kTileWidth / 4;
  static constexpr int kWordLoadsPerThread = (kSharedRows * kWordsPerRow + kThreads - 1) / kThreads;
};

// The reference's shape: tiles of 256 x 64 pixels, 128 threads of 8 x 16 outputs, 8 blocks (64
// registers a thread) per SM. Eight pixels a thread halve the halo bytes and per-row overheads
// of four, and the small blocks let one block's loads overlap seven others' arithmetic; see
// bench/probes/sobel_shape_probe.cu for the other shapes measured.
using SobelReferenceShape = SobelShape<8, 4, 16, 8>;

__device__ __forceinline__ int clamp_to(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

constexpr unsigned kPairBias256 = 0x01000100u;   // 256 in each 16-bit half
constexpr unsigned kPairBias1024 = 0x04000400u;  // 1024 in each half: gx, gy + 1024 lie in [4, 2044]

// The horizontal halves of the two Sobel kernels for one shared-memory row, two pixels per
// register: d = p[c+1] - p[c-1] + 256 (in [1, 511]) and s = p[c-1] + 2 p[c] + p[c+1] (at most 1020).
// Register 2k holds pixels 4k and 4k+2 of the thread's columns, register 2k+1 pixels 4k+1 and 4k+3.
template <class Shape>
__device__ __forceinline__ void row_halves(const unsigned char* src, unsigned (&d)[Shape::kPairs],
                                           unsigned (&s)[Shape::kPairs]) {
  unsigned words[Shape::kWords];
  if constexpr (Shape::kWords == 2) {
    const uint2 both = *reinterpret_cast<const uint2*>(src);
    words[0] = both.x;
    words[1] = both.y;
  } else {
    words[0] = *reinterpret_cast<const unsigned*>(src);
  }
  const unsigned left = src[-1], right = src[Shape::kPixelsPerThreadX];
  unsigned even[Shape::kWords], odd[Shape::kWords];  // (p0, p2) and (p1, p3) of each word
#pragma unroll
  for (int k = 0; k < Shape::kWords; ++k) {
    even[k] = __byte_perm(words[k], 0, 0x4240);
    odd[k] = __byte_perm(words[k], 0, 0x4341);
  }
#pragma unroll
  for (int k = 0; k < Shape::kWords; ++k) {
    // (p[-1], p1) and (p2, p4) of word k: the neighbours come from the words beside it.
    const unsigned lefts = k == 0 ? __byte_perm(left, odd[0], 0x5410) : __byte_perm(odd[k - 1], odd[k], 0x5432);
    const unsigned next = k + 1 < Shape::kWords ? even[(k + 1) % Shape::kWords] : right;
    const unsigned rights = __byte_perm(even[k], next, 0x5432);
    d[2 * k] = odd[k] + kPairBias256 - lefts;      // pixels 0, 2: right neighbours are the odd pixels
    s[2 * k] = lefts + 2 * even[k] + odd[k];
    d[2 * k + 1] = rights + kPairBias256 - even[k];  // pixels 1, 3: left neighbours are the even ones
    s[2 * k + 1] = even[k] + 2 * odd[k] + rights;
  }
}

// min(255, round(sqrt(gx^2 + gy^2))) for one 16-bit half of biased gx and gy (selector 0x7610:
// the low half, 0x7632: the high one), returned in the low byte of a float's bit pattern
// (two_to_23_bits: 0x4B000000, the bit pattern of 2^23):
//  - int -> float by the 2^23 trick: the float with exponent 2^23 and mantissa m is 2^23 + m
//    exactly, so placing the half (m = g + 1024) under that exponent with one byte_perm and
//    subtracting 2^23 + 1024 gives g exactly, with no conversion instruction (those run on the
//    special-function unit, a quarter of the float units' rate);
//  - gx^2 + gy^2 <= 2080800 < 2^24 is exact in float; anything at or above 255.5^2 = 65280.25
//    saturates, so it is clamped to 65280 (whose root, 255.4995, rounds to 255);
//  - sqrt.approx (relative error under 2^-22, so under 6.1e-5 here) cannot round the wrong way:
//    for an integer n the exact root is at least 0.25 / 511 = 4.9e-4 away from any k + 0.5;
//  - float -> int by the same trick: adding 2^23 rounds to the nearest integer (ties to even,
//    as __float2uint_rn does) into the mantissa's low byte.
__device__ __forceinline__ unsigned magnitude_in_low_byte(unsigned gx_pair, unsigned gy_pair, unsigned two_to_23_bits,
                                                          unsigned selector) {
  constexpr float kTwoTo23 = 8388608.0f;
  constexpr float kTwoTo23PlusBias = 8388608.0f + 1024.0f;
  const float gx = __uint_as_float(__byte_perm(gx_pair, two_to_23_bits, selector)) - kTwoTo23PlusBias;
  const float gy = __uint_as_float(__byte_perm(gy_pair, two_to_23_bits, selector)) - kTwoTo23PlusBias;
  const float g2 = fminf(gx * gx + gy * gy, 65280.0f);
  float root;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(root) : "f"(g2));
  return __float_as_uint(root + kTwoTo23);
}

// 1. Stage input rows y_origin-1 .. y_origin+kTileHeight, columns x_origin-1 .. x_origin+kTileWidth
//    into shared memory, with coordinates clamped to the image (the border rule), so the compute
//    step never checks borders. A warp reads 128 contiguous bytes of a row.

// The halo columns left and right of the tile; kInside: no clamping needed.
template <class Shape, bool kInside>
__device__ __forceinline__ void stage_halo(unsigned char* tile, const unsigned char* __restrict__ gray,
                                           std::size_t gray_pitch, int width, int height, int x_origin,
                                           int y_origin, int tid) {
  for (int h = tid; h < 2 * Shape::kSharedRows; h += Shape::kThreads) {
    const int row = h / 2;
    const int column = (h % 2) ? Shape::kTileWidth : -1;
    const int y = kInside ? y_origin - 1 + row : clamp_to(y_origin - 1 + row, height - 1);
    const int x = kInside ? x_origin + column : clamp_to(x_origin + column, width - 1);
    tile[row * Shape::kSharedRow + Shape::kLead + column] = gray[static_cast<std::size_t>(y) * gray_pitch + x];
  }
}

// A tile whose halo lies inside the image, with 4-byte aligned rows (all tiles but the image's
// outer ring): no clamping, no byte loads, a row pointer that steps by a fixed number of rows.
// All of a thread's loads are issued before any is stored, to keep them in flight together.
template <class Shape>
__device__ __forceinline__ void stage_inside_tile(unsigned char* tile, const unsigned char* __restrict__ gray,
                                                  std::size_t gray_pitch, int x_origin, int y_origin, int tid) {
  constexpr int kRowStep = Shape::kThreads / Shape::kWordsPerRow;  // rows between a thread's loads
  const int first_row = tid / Shape::kWordsPerRow;                  // < kRowStep
  const int column = (tid % Shape::kWordsPerRow) * 4;
  unsigned staged[Shape::kWordLoadsPerThread];
  const unsigned char* in = gray + static_cast<std::size_t>(y_origin - 1 + first_row) * gray_pitch + x_origin + column;
  const std::size_t step = kRowStep * gray_pitch;
#pragma unroll
  for (int k = 0; k < Shape::kWordLoadsPerThread; ++k, in += step) {
    // Only the last load can fall below the tile.
    const bool in_tile = (k + 1) * kRowStep <= Shape::kSharedRows || first_row + k * kRowStep < Shape::kSharedRows;
    staged[k] = in_tile ? *reinterpret_cast<const unsigned*>(in) : 0u;
  }
  unsigned char* word = tile + first_row * Shape::kSharedRow + Shape::kLead + column;
#pragma unroll
  for (int k = 0; k < Shape::kWordLoadsPerThread; ++k) {
    if ((k + 1) * kRowStep <= Shape::kSharedRows || first_row + k * kRowStep < Shape::kSharedRows) {
      *reinterpret_cast<unsigned*>(word + k * kRowStep * Shape::kSharedRow) = staged[k];
    }
  }
  stage_halo<Shape, true>(tile, gray, gray_pitch, /*width, height: not needed inside*/ 0, 0, x_origin, y_origin, tid);
}

// Any other tile: every coordinate clamped, a word load where the row allows it. Loads go in
// batches of kBorderBatch per thread, all issued before any is stored, so a border tile waits
// for memory a few times rather than once per word; fully unrolled like the inside path, its
// byte fallbacks would make the kernel's code several times larger.
constexpr int kBorderBatch = 8;

template <class Shape>
__device__ void stage_border_tile(unsigned char* tile, const unsigned char* __restrict__ gray, std::size_t gray_pitch,
                                  int width, int height, bool words_in, int x_origin, int y_origin, int tid) {
  constexpr int kWords = Shape::kSharedRows * Shape::kWordsPerRow;
#pragma unroll 1
  for (int first = tid; first < kWords; first += kBorderBatch * Shape::kThreads) {
    unsigned staged[kBorderBatch];
#pragma unroll
    for (int k = 0; k < kBorderBatch; ++k) {
      const int i = first + k * Shape::kThreads;
      const int x = x_origin + (i % Shape::kWordsPerRow) * 4;
      const unsigned char* in =
          gray + static_cast<std::size_t>(clamp_to(y_origin - 1 + i / Shape::kWordsPerRow, height - 1)) * gray_pitch;
      staged[k] = 0;
      if (i >= kWords) continue;
      if (words_in && x + 4 <= width) {
        staged[k] = *reinterpret_cast<const unsigned*>(in + x);
      } else {  // the right border, or rows not 4-byte aligned
#pragma unroll 1
        for (int b = 0; b < 4; ++b) staged[k] |= static_cast<unsigned>(in[clamp_to(x + b, width - 1)]) << (8 * b);
      }
    }
#pragma unroll
    for (int k = 0; k < kBorderBatch; ++k) {
      const int i = first + k * Shape::kThreads;
      if (i < kWords) {
        *reinterpret_cast<unsigned*>(&tile[(i / Shape::kWordsPerRow) * Shape::kSharedRow + Shape::kLead +
                                           (i % Shape::kWordsPerRow) * 4]) = staged[k];
      }
    }
  }
  stage_halo<Shape, false>(tile, gray, gray_pitch, width, height, x_origin, y_origin, tid);
}

// 2. kPixelsX x kRowsPerThread outputs per thread from the staged tile. The Sobel kernels are
//    separable: gx is the vertical [1 2 1] smoothing of the horizontal differences d, gy the
//    vertical difference of the horizontal smoothings s. Each row's d and s are computed once,
//    when the row enters the 3-row window, and reused by the three output rows that need it;
//    lanes read consecutive words, so there are no bank conflicts.

// One output row of the thread's kPixelsX pixels, packed 4 to a word, from the window's rows.
template <class Shape>
__device__ __forceinline__ void sobel_row(const unsigned (&d_top)[Shape::kPairs], const unsigned (&d_mid)[Shape::kPairs],
                                          const unsigned (&d_bot)[Shape::kPairs], const unsigned (&s_top)[Shape::kPairs],
                                          const unsigned (&s_bot)[Shape::kPairs], unsigned two_to_23_bits,
                                          unsigned (&packed)[Shape::kWords]) {
#pragma unroll
  for (int k = 0; k < Shape::kWords; ++k) {
    unsigned low[2], high[2];  // pair 2k: pixels 0 and 2 of the word; pair 2k+1: pixels 1 and 3
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int pair = 2 * k + q;
      const unsigned gx = d_top[pair] + 2 * d_mid[pair] + d_bot[pair];  // gx + 1024 per half
      const unsigned gy = s_bot[pair] + kPairBias1024 - s_top[pair];    // gy + 1024 per half
      low[q] = magnitude_in_low_byte(gx, gy, two_to_23_bits, 0x7610);
      high[q] = magnitude_in_low_byte(gx, gy, two_to_23_bits, 0x7632);
    }
    packed[k] = __byte_perm(__byte_perm(low[0], low[1], 0x0040), __byte_perm(high[0], high[1], 0x0040), 0x5410);
  }
}

// Every output of the tile inside the image, rows aligned (all tiles but the right and bottom
// ones): fully unrolled, the 3-row window rotates by renaming registers, one unchecked store a row.
template <class Shape>
__device__ __forceinline__ void sobel_full_tile(const unsigned char* column, unsigned char* out, std::size_t edges_pitch,
                                                unsigned two_to_23_bits) {
  unsigned d[3][Shape::kPairs], s[3][Shape::kPairs];
  row_halves<Shape>(column, d[0], s[0]);
  row_halves<Shape>(column + Shape::kSharedRow, d[1], s[1]);
#pragma unroll
  for (int r = 0; r < Shape::kRowsPerThread; ++r, out += edges_pitch) {
    const int top = r % 3, mid = (r + 1) % 3, bot = (r + 2) % 3;
    row_halves<Shape>(column + (r + 2) * Shape::kSharedRow, d[bot], s[bot]);
    unsigned packed[Shape::kWords];
    sobel_row<Shape>(d[top], d[mid], d[bot], s[top], s[bot], two_to_23_bits, packed);
    if constexpr (Shape::kWords == 2) {
      *reinterpret_cast<uint2*>(out) = make_uint2(packed[0], packed[1]);
    } else {
      *reinterpret_cast<unsigned*>(out) = packed[0];
    }
  }
}

// The right and bottom tiles: each row and pixel checked. A plain loop that moves the window's
// rows (few tiles take it; unrolled, it would double the kernel's code).
template <class Shape>
__device__ void sobel_edge_tile(const unsigned char* column, unsigned char* out, std::size_t edges_pitch, int x, int y,
                                int width, int height, bool vectors_out, unsigned two_to_23_bits) {
  unsigned d_top[Shape::kPairs], d_mid[Shape::kPairs], d_bot[Shape::kPairs];
  unsigned s_top[Shape::kPairs], s_mid[Shape::kPairs], s_bot[Shape::kPairs];
  row_halves<Shape>(column, d_mid, s_mid);
  row_halves<Shape>(column + Shape::kSharedRow, d_bot, s_bot);
#pragma unroll 1
  for (int r = 0; r < Shape::kRowsPerThread && y + r < height; ++r, out += edges_pitch) {
#pragma unroll
    for (int p = 0; p < Shape::kPairs; ++p) {
      d_top[p] = d_mid[p], d_mid[p] = d_bot[p];
      s_top[p] = s_mid[p], s_mid[p] = s_bot[p];
    }
    row_halves<Shape>(column + (r + 2) * Shape::kSharedRow, d_bot, s_bot);
    unsigned packed[Shape::kWords];
    sobel_row<Shape>(d_top, d_mid, d_bot, s_top, s_bot, two_to_23_bits, packed);
    if (vectors_out && x + Shape::kPixelsPerThreadX <= width) {
#pragma unroll
      for (int k = 0; k < Shape::kWords; ++k) reinterpret_cast<unsigned*>(out)[k] = packed[k];
    } else {
      for (int j = 0; j < Shape::kPixelsPerThreadX && x + j < width; ++j) out[j] = (packed[j / 4] >> (8 * (j % 4))) & 0xFF;
    }
  }
}

// two_to_23_bits: always 0x4B000000 (see magnitude_in_low_byte). It is a parameter so that the
// compiler keeps it in a register: as a literal it becomes the byte_perms' immediate operand
// and each selector is then re-created in a register before every use, 2 instructions a pixel.
template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kBlocksPerSm)
sobel_tiled(const unsigned char* __restrict__ gray, std::size_t gray_pitch, unsigned char* __restrict__ edges,
            std::size_t edges_pitch, int width, int height, bool words_in, bool vectors_out,
            unsigned two_to_23_bits) {
  static_assert(Shape::kThreads % Shape::kWordsPerRow == 0, "each thread loads words of one column");
  __shared__ __align__(8) unsigned char tile[Shape::kSharedRows * Shape::kSharedRow];
  const int tid = threadIdx.y * Shape::kThreadsX + threadIdx.x;
  const int x_origin = blockIdx.x * Shape::kTileWidth;
  const int tile_rows = (height + Shape::kTileHeight - 1) / Shape::kTileHeight;
  for (int tile_row = blockIdx.y; tile_row < tile_rows; tile_row += gridDim.y) {
    const int y_origin = tile_row * Shape::kTileHeight;
    if (words_in && x_origin >= 1 && x_origin + Shape::kTileWidth < width && y_origin >= 1 &&
        y_origin + Shape::kTileHeight < height) {
      stage_inside_tile<Shape>(tile, gray, gray_pitch, x_origin, y_origin, tid);
    } else {
      stage_border_tile<Shape>(tile, gray, gray_pitch, width, height, words_in, x_origin, y_origin, tid);
    }
    __syncthreads();
    // This thread's columns and first output row; shared row first_row + 1 is output row first_row.
    const int c0 = threadIdx.x * Shape::kPixelsPerThreadX;
    const int first_row = threadIdx.y * Shape::kRowsPerThread;
    const unsigned char* column = &tile[first_row * Shape::kSharedRow + Shape::kLead + c0];
    const int x = x_origin + c0, y = y_origin + first_row;
    unsigned char* out = edges + static_cast<std::size_t>(y) * edges_pitch + x;
    if (vectors_out && x_origin + Shape::kTileWidth <= width && y_origin + Shape::kTileHeight <= height) {
      sobel_full_tile<Shape>(column, out, edges_pitch, two_to_23_bits);
    } else {
      sobel_edge_tile<Shape>(column, out, edges_pitch, x, y, width, height, vectors_out, two_to_23_bits);
    }
    __syncthreads();  // the tile is overwritten by the next tile row
  }
}

unsigned rows_grid(long long rows) { return static_cast<unsigned>(rows < kMaxGridY ? rows : kMaxGridY); }

template <class Shape>
cudaError_t launch_sobel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges,
                         std::size_t edges_pitch, int width, int height, cudaStream_t stream) {
  if (width <= 0 || height <= 0) return cudaSuccess;
  const dim3 block(Shape::kThreadsX, Shape::kThreadsY);
  const dim3 grid((width + Shape::kTileWidth - 1) / Shape::kTileWidth,
                  rows_grid((height + Shape::kTileHeight - 1) / Shape::kTileHeight));
  sobel_tiled<Shape><<<grid, block, 0, stream>>>(gray, gray_pitch, edges, edges_pitch, width, height,
                                                 aligned(gray, gray_pitch, 4),
                                                 aligned(edges, edges_pitch, Shape::kPixelsPerThreadX), 0x4B000000u);
  return cudaGetLastError();
}

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
  return launch_sobel<SobelReferenceShape>(gray, gray_pitch, edges, edges_pitch, width, height, stream);
}

}  // namespace LAB_IMPL
