// Lab 03 reference: C = A * B in FP32 on CUDA cores (no tensor cores, no TF32).
//
// `matmul` is the direct version: one thread per element of C, threadIdx.x along the columns so
// that a warp reads consecutive elements of B and writes consecutive elements of C (coalesced),
// while every thread of the warp reads the same element of A (a broadcast).
//
// `matmul_tiled` is where the lab's technique goes, in the steps that take it from the textbook
// 16 x 16 shared-memory tile (about 1/8 of cuBLAS) to about 2/3 of cuBLAS:
//  1. Block tiling. A block of 256 threads owns a 128 x 128 tile of C and walks along k in steps
//     of 8: each step stages a 128 x 8 slice of A and an 8 x 128 slice of B in shared memory.
//     Every value loaded from global memory is then used 128 times (by the whole tile), instead
//     of 16 times with a 16 x 16 tile.
//  2. Register tiling. Each thread computes 8 x 8 outputs held in registers. Per step of k it
//     reads 8 values of A and 8 of B from shared memory and does 64 fused multiply-adds with
//     them: shared memory is no longer the bottleneck (the textbook tile does 2 shared loads per
//     multiply-add), the FMA units are.
//  3. Vectorised, transposed staging. Global loads are float4 (16 bytes per instruction). A is
//     stored transposed in shared memory (As[k][row]) so that the 8 values of A a thread needs
//     for one k are contiguous and come in two float4 shared loads, like those of B. A padding
//     of 4 floats per As row makes the transposing stores free of bank conflicts.
//  4. Double buffering. Two shared buffers: while the block computes on one, the next slice is
//     loaded from global memory into registers and then stored into the other, so the load
//     latency hides behind 512 multiply-adds per thread and one __syncthreads per step suffices.
//  5. Edges. Loads outside A or B write zeros into the tile (a zero adds nothing to the sum), so
//     the inner loop has no bounds checks at all; only the final stores check row < m and
//     col < n. float4 global accesses need k and n to be multiples of 4 and 16-byte-aligned
//     pointers; otherwise the same kernel is instantiated with scalar loads and stores.
// The thread-to-output mapping (two 4 x 4 quadrants 64 apart, warps as 4 x 8 threads) makes the
// float4 shared loads conflict-free broadcasts and the float4 stores of C coalesced.
// See siboehm's "How to optimize a CUDA matmul kernel" for the same progression, step by step.
#include <cstddef>
#include <cstdint>

#include "matmul.cuh"

namespace LAB_IMPL {
namespace {

// ---- matmul: one thread per output ----------------------------------------------------------

constexpr int kNaiveBlock = 16;      // 16 x 16 = 256 threads per block
constexpr int kMaxGridY = 65535;     // CUDA's limit on gridDim.y

__global__ void matmul_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                    int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= n) return;
  // Rows in a grid-stride loop: gridDim.y is capped at 65535, m is not.
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < m; row += gridDim.y * blockDim.y) {
    const float* a_row = a + static_cast<std::size_t>(row) * k;
    float sum = 0.0f;
    for (int p = 0; p < k; ++p) sum = fmaf(a_row[p], b[static_cast<std::size_t>(p) * n + col], sum);
    c[static_cast<std::size_t>(row) * n + col] = sum;
  }
}

// ---- matmul_tiled: block tile 128 x 128 x 8, thread tile 8 x 8 ------------------------------

constexpr int kBM = 128;  // rows of C per block
constexpr int kBN = 128;  // columns of C per block
constexpr int kBK = 8;    // k per shared-memory step
constexpr int kThreads = 256;
constexpr int kHalf = 64;  // a thread's two 4 x 4 quadrants lie 64 rows (columns) apart
// As is [k][row]: 4 floats of padding put the two float4 columns a warp stores (k and k + 4, see
// store_tile) 16 banks apart, and keep every row 16-byte aligned (132 * 4 bytes = 528 = 33 * 16).
constexpr int kAsStride = kBM + 4;

static_assert(kBM * kBK == kThreads * 4 && kBN * kBK == kThreads * 4, "each thread stages one float4 of A and of B");

// One thread's share of a k-step slice: 4 consecutive k of one row of A, 4 consecutive columns
// of one row of B.
struct Staged {
  float a[4];
  float b[4];
};

// Global -> registers. Elements outside A or B become 0, so partial tiles need no special case
// later. kVector: float4 loads (requires k % 4 == 0, n % 4 == 0 and 16-byte-aligned a and b: a
// float4 then lies entirely inside its row or entirely outside the matrix).
template <bool kVector>
__device__ __forceinline__ void load_slice(const float* __restrict__ a, const float* __restrict__ b, int m, int n,
                                           int k, int row0, int col0, int k0, Staged& s) {
  const int t = threadIdx.x;
  const int a_row = row0 + t / 2;         // 128 rows, two threads per row
  const int a_col = k0 + (t % 2) * 4;     // ... each loading 4 of the 8 k
  const int b_row = k0 + t / 32;          // 8 rows of k
  const int b_col = col0 + (t % 32) * 4;  // 32 threads x 4 columns: a warp reads 512 contiguous bytes
  const float* a_at = a + static_cast<std::size_t>(a_row) * k + a_col;
  const float* b_at = b + static_cast<std::size_t>(b_row) * n + b_col;
  if constexpr (kVector) {
    float4 va = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 vb = va;
    if (a_row < m && a_col < k) va = *reinterpret_cast<const float4*>(a_at);
    if (b_row < k && b_col < n) vb = *reinterpret_cast<const float4*>(b_at);
    s.a[0] = va.x, s.a[1] = va.y, s.a[2] = va.z, s.a[3] = va.w;
    s.b[0] = vb.x, s.b[1] = vb.y, s.b[2] = vb.z, s.b[3] = vb.w;
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      s.a[i] = (a_row < m && a_col + i < k) ? a_at[i] : 0.0f;
      s.b[i] = (b_row < k && b_col + i < n) ? b_at[i] : 0.0f;
    }
  }
}

// Registers -> shared memory: A transposed (As[k][row]), B as it is (Bs[k][col]).
__device__ __forceinline__ void store_slice(const Staged& s, float (*as)[kAsStride], float (*bs)[kBN]) {
  const int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 4; ++i) as[(t % 2) * 4 + i][t / 2] = s.a[i];
  *reinterpret_cast<float4*>(&bs[t / 32][(t % 32) * 4]) = make_float4(s.b[0], s.b[1], s.b[2], s.b[3]);
}

// 64 multiply-adds per k per thread, from 4 float4 shared loads (2 of A, 2 of B).
__device__ __forceinline__ void multiply_slice(const float (*as)[kAsStride], const float (*bs)[kBN], int ty, int tx,
                                               float (&acc)[8][8]) {
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
    float a_frag[8];
    float b_frag[8];
    *reinterpret_cast<float4*>(&a_frag[0]) = *reinterpret_cast<const float4*>(&as[kk][ty * 4]);
    *reinterpret_cast<float4*>(&a_frag[4]) = *reinterpret_cast<const float4*>(&as[kk][kHalf + ty * 4]);
    *reinterpret_cast<float4*>(&b_frag[0]) = *reinterpret_cast<const float4*>(&bs[kk][tx * 4]);
    *reinterpret_cast<float4*>(&b_frag[4]) = *reinterpret_cast<const float4*>(&bs[kk][kHalf + tx * 4]);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
  }
}

// acc[i][j] belongs to row row0 + (i / 4) * 64 + ty * 4 + i % 4 and column
// col0 + (j / 4) * 64 + tx * 4 + j % 4. Only here are rows and columns checked against m and n.
template <bool kVector>
__device__ __forceinline__ void store_result(float* __restrict__ c, int m, int n, int row0, int col0, int ty, int tx,
                                             const float (&acc)[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + (i / 4) * kHalf + ty * 4 + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int col = col0 + half * kHalf + tx * 4;
      float* out = c + static_cast<std::size_t>(row) * n + col;
      const float* v = &acc[i][half * 4];
      if constexpr (kVector) {
        if (col < n) *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j < n) out[j] = v[j];
        }
      }
    }
  }
}

// One block per 128 x 128 tile of C (blockIdx.x: column tile; blockIdx.y: row tile, in a
// grid-stride loop because gridDim.y is capped). At most 128 registers per thread, so that two
// blocks (16 warps) share an SM and one block's barrier wait hides behind the other's work.
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    matmul_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                        int k) {
  __shared__ __align__(16) float as[2][kBK][kAsStride];
  __shared__ __align__(16) float bs[2][kBK][kBN];

  // Warps are 4 x 8 threads; the 8 warps tile 16 x 16 threads.
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int ty = (warp / 2) * 4 + lane / 8;
  const int tx = (warp % 2) * 8 + lane % 8;

  const int col0 = blockIdx.x * kBN;
  const int row_tiles = (m + kBM - 1) / kBM;
  const int k_steps = (k + kBK - 1) / kBK;

  for (int row_tile = blockIdx.y; row_tile < row_tiles; row_tile += gridDim.y) {
    const int row0 = row_tile * kBM;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    }

    if (k_steps > 0) {  // k == 0: C is the empty sum, zeros; a and b are not touched
      Staged staged;
      load_slice<kVector>(a, b, m, n, k, row0, col0, 0, staged);
      store_slice(staged, as[0], bs[0]);
      __syncthreads();
      for (int step = 0; step < k_steps; ++step) {
        const int buffer = step % 2;
        const bool more = step + 1 < k_steps;
        // Issue the next slice's global loads first: they complete while we compute.
        if (more) load_slice<kVector>(a, b, m, n, k, row0, col0, (step + 1) * kBK, staged);
        multiply_slice(as[buffer], bs[buffer], ty, tx, acc);
        // The other buffer was last read in the previous step, before the barrier that ended it.
        if (more) store_slice(staged, as[1 - buffer], bs[1 - buffer]);
        __syncthreads();
      }
    }
    store_result<kVector>(c, m, n, row0, col0, ty, tx, acc);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

unsigned blocks_for(int extent, int per_block, int cap) {
  const int blocks = (extent + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < cap ? blocks : cap);
}

}  // namespace

cudaError_t matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 threads(kNaiveBlock, kNaiveBlock);
  const dim3 blocks(blocks_for(n, kNaiveBlock, 0x7fffffff), blocks_for(m, kNaiveBlock, kMaxGridY));
  matmul_naive_kernel<<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
  return cudaGetLastError();
}

cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 blocks(blocks_for(n, kBN, 0x7fffffff), blocks_for(m, kBM, kMaxGridY));
  const bool vector = k % 4 == 0 && n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c);
  if (vector) {
    matmul_tiled_kernel<true><<<blocks, kThreads, 0, stream>>>(a, b, c, m, n, k);
  } else {
    matmul_tiled_kernel<false><<<blocks, kThreads, 0, stream>>>(a, b, c, m, n, k);
  }
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
