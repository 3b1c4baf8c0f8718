// Lab 10 reference solution: block-matching motion search.
//
// One thread block per 8 x 8 block of the current frame. The block first copies its search
// window, the (8 + 2R) x (8 + 2R) pixels of the reference frame that any candidate can read, into
// shared memory, and its own 64 current pixels into registers as 16 packed words (4 pixels per
// 32-bit word). Every candidate then reads only shared memory.
//
// The work is split among the threads in items of one dx and four consecutive dy. A thread walks
// down the 11 window rows those four candidates read; each row is loaded once, as two words of
// 4 pixels aligned to the candidate's dx (three 32-bit shared loads and two funnel shifts), and
// is compared with the current block's row for each of the (up to) four candidates that use it:
// one __vsadu4 per 4 pixels, the per-byte |a - b| summed in one instruction. That is about 0.7
// instructions per pixel compared, against six or more for a kernel that loads each byte from
// global memory and subtracts it on its own.
//
// Each thread keeps its best candidate as one 64-bit key that orders exactly as the contract's
// rule (SAD, then |dx| + |dy|, then dy, then dx), so the block's answer is the minimum key:
// a warp-shuffle reduction, then one warp over the warps' minima.
//
// Partial blocks (the last column or row of blocks when a side is not a multiple of 8) take the
// same path with a byte mask: pixels outside the block are 0 in the current words and masked to
// 0 in the reference words, so they add |0 - 0| = 0.
#include <cstdint>

#include "sad.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kDyPerItem = 4;                        // candidates (consecutive dy) per work item
constexpr int kRowsPerItem = kBlockSide + kDyPerItem - 1;  // window rows those candidates read
constexpr int kMaxThreads = 256;

// Bytes per window row: every candidate reads 3 words starting at word (dx + R) / 4, so a row
// holds at least 2R + 12 bytes, rounded up to whole words (rows stay 4-byte aligned).
__host__ __device__ constexpr int window_stride(int radius) { return (2 * radius + 12 + 3) / 4 * 4; }
// Window rows: 8 + 2R, plus the rows the last item of four dy reads past dy = R (left at 0).
__host__ __device__ constexpr int window_rows(int radius) { return kBlockSide + 2 * radius + kDyPerItem - 1; }

// The key: SAD in bits 24.., |dx| + |dy| in 16..23, dy + R in 8..15, dx + R in 0..7 (R <= 32, so
// each fits). A smaller key is a better candidate, in exactly the contract's order.
__device__ __forceinline__ unsigned long long candidate_key(unsigned sad, int dx, int dy, int radius) {
  const unsigned length = static_cast<unsigned>(abs(dx) + abs(dy));
  return (static_cast<unsigned long long>(sad) << 24) | (length << 16) | (static_cast<unsigned>(dy + radius) << 8) |
         static_cast<unsigned>(dx + radius);
}

__device__ __forceinline__ unsigned long long min_key(unsigned long long a, unsigned long long b) {
  return b < a ? b : a;
}

// All items of this thread, for a full block (kMasked = false) or a partial one (true).
template <bool kMasked>
__device__ unsigned long long search_items(const unsigned* window, int stride_words, const unsigned (&current)[16],
                                           const unsigned (&mask)[16], int radius, int x0, int y0, int bw, int bh,
                                           int width, int height) {
  const int span = 2 * radius + 1;  // dx (and dy) values
  const int items = span * ((span + kDyPerItem - 1) / kDyPerItem);
  unsigned long long best = ~0ull;
  for (int item = threadIdx.x; item < items; item += blockDim.x) {
    const int dx_index = item % span;  // dx + R: the window column where this candidate's row starts
    const int chunk = item / span;
    const int dx = dx_index - radius;
    const int dy_first = chunk * kDyPerItem - radius;
    const unsigned* row = window + chunk * kDyPerItem * stride_words + (dx_index >> 2);
    const unsigned shift = 8u * static_cast<unsigned>(dx_index & 3);

    unsigned sad[kDyPerItem] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < kRowsPerItem; ++j, row += stride_words) {
      // 8 reference pixels starting at this candidate's column, as two aligned words.
      const unsigned a = row[0], b = row[1], c = row[2];
      const unsigned left = __funnelshift_r(a, b, shift);
      const unsigned right = __funnelshift_r(b, c, shift);
      // Window row j is row k = j - q of the block for candidate dy_first + q.
#pragma unroll
      for (int q = 0; q < kDyPerItem; ++q) {
        const int k = j - q;
        if (k < 0 || k >= kBlockSide) continue;  // resolved at compile time
        if (kMasked) {
          sad[q] += __vsadu4(current[2 * k], left & mask[2 * k]);
          sad[q] += __vsadu4(current[2 * k + 1], right & mask[2 * k + 1]);
        } else {
          sad[q] += __vsadu4(current[2 * k], left);
          sad[q] += __vsadu4(current[2 * k + 1], right);
        }
      }
    }

    // Only candidates that keep the block inside the reference frame count.
    const bool dx_valid = x0 + dx >= 0 && x0 + bw + dx <= width;
#pragma unroll
    for (int q = 0; q < kDyPerItem; ++q) {
      const int dy = dy_first + q;
      const bool valid = dx_valid && dy <= radius && y0 + dy >= 0 && y0 + bh + dy <= height;
      if (valid) best = min_key(best, candidate_key(sad[q], dx, dy, radius));
    }
  }
  return best;
}

__global__ void motion_search_kernel(const unsigned char* __restrict__ current_frame,
                                     const unsigned char* __restrict__ reference_frame, int width, int height,
                                     int radius, int blocks_x, int2* __restrict__ vectors,
                                     unsigned* __restrict__ sads) {
  extern __shared__ unsigned window_words[];  // window_rows x window_stride bytes
  __shared__ unsigned current_words[16];
  __shared__ unsigned long long warp_best[kMaxThreads / 32];

  const int x0 = blockIdx.x * kBlockSide;
  const int y0 = blockIdx.y * kBlockSide;
  const int bw = min(kBlockSide, width - x0);
  const int bh = min(kBlockSide, height - y0);
  const int stride = window_stride(radius);
  const int rows = window_rows(radius);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;

  // 1. The search window: window pixel (c, r) is reference pixel (x0 - R + c, y0 - R + r), or 0
  //    where that lies outside the frame (only invalid candidates read those). One warp per row:
  //    consecutive lanes read consecutive bytes.
  unsigned char* window = reinterpret_cast<unsigned char*>(window_words);
  for (int r = warp; r < rows; r += warps) {
    const int y = y0 - radius + r;
    const bool row_inside = y >= 0 && y < height && r < kBlockSide + 2 * radius;
    const unsigned char* source = reference_frame + static_cast<long long>(y) * width;
    for (int c = lane; c < stride; c += 32) {
      const int x = x0 - radius + c;
      window[r * stride + c] = (row_inside && x >= 0 && x < width) ? source[x] : 0;
    }
  }
  // 2. The current block, 0 outside the frame (partial blocks).
  if (threadIdx.x < kBlockSide * kBlockSide) {
    const int k = threadIdx.x / kBlockSide;
    const int c = threadIdx.x % kBlockSide;
    const bool inside = k < bh && c < bw;
    reinterpret_cast<unsigned char*>(current_words)[threadIdx.x] =
        inside ? current_frame[static_cast<long long>(y0 + k) * width + x0 + c] : 0;
  }
  __syncthreads();

  unsigned current[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) current[i] = current_words[i];

  // 3. Every candidate of this thread's items.
  unsigned long long best;
  if (bw == kBlockSide && bh == kBlockSide) {
    const unsigned no_mask[16] = {};
    best = search_items<false>(window_words, stride / 4, current, no_mask, radius, x0, y0, bw, bh, width, height);
  } else {
    unsigned mask[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const int k = i / 2;
      const int first_column = (i % 2) * 4;
      unsigned m = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        if (k < bh && first_column + b < bw) m |= 0xFFu << (8 * b);
      }
      mask[i] = m;
    }
    best = search_items<true>(window_words, stride / 4, current, mask, radius, x0, y0, bw, bh, width, height);
  }

  // 4. The block's minimum key: within each warp, then across the warps.
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) best = min_key(best, __shfl_xor_sync(0xFFFFFFFFu, best, offset));
  if (lane == 0) warp_best[warp] = best;
  __syncthreads();
  if (warp == 0) {
    best = lane < warps ? warp_best[lane] : ~0ull;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) best = min_key(best, __shfl_xor_sync(0xFFFFFFFFu, best, offset));
    if (lane == 0) {
      const int index = blockIdx.y * blocks_x + blockIdx.x;
      vectors[index] = make_int2(static_cast<int>(best & 0xFF) - radius, static_cast<int>((best >> 8) & 0xFF) - radius);
      sads[index] = static_cast<unsigned>(best >> 24);
    }
  }
}

}  // namespace

cudaError_t motion_search(const unsigned char* current, const unsigned char* reference, int width, int height,
                          int search_radius, int2* vectors, unsigned int* sads, cudaStream_t stream) {
  if (width < 0 || height < 0 || width > kMaxFrameSide || height > kMaxFrameSide || search_radius < 0 ||
      search_radius > kMaxSearchRadius) {
    return cudaErrorInvalidValue;
  }
  if (width == 0 || height == 0) return cudaSuccess;
  if (current == nullptr || reference == nullptr || vectors == nullptr || sads == nullptr) {
    return cudaErrorInvalidValue;
  }
  const int blocks_x = (width + kBlockSide - 1) / kBlockSide;
  const int blocks_y = (height + kBlockSide - 1) / kBlockSide;

  // As few rounds of items as 256 threads allow, then as few threads (whole warps) as those
  // rounds need: R = 16 has 33 x 9 = 297 items, run as 2 rounds of 160 threads (93% busy).
  const int span = 2 * search_radius + 1;
  const int items = span * ((span + kDyPerItem - 1) / kDyPerItem);
  const int rounds = (items + kMaxThreads - 1) / kMaxThreads;
  const int per_round = (items + rounds - 1) / rounds;
  const int threads = (per_round + 31) / 32 * 32 < 64 ? 64 : (per_round + 31) / 32 * 32;  // >= 64: step 2
  const std::size_t window_bytes =
      static_cast<std::size_t>(window_rows(search_radius)) * window_stride(search_radius);

  motion_search_kernel<<<dim3(blocks_x, blocks_y), threads, window_bytes, stream>>>(
      current, reference, width, height, search_radius, blocks_x, vectors, sads);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
