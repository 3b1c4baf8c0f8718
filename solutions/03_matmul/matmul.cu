// Lab 03 reference: C = A * B in FP32 on CUDA cores (no tensor cores, no TF32).
//
// `matmul` is the direct version: one thread per element of C, threadIdx.x along the columns so
// that a warp reads consecutive elements of B and writes consecutive elements of C (coalesced),
// while every thread of the warp reads the same element of A (a broadcast).
//
// `matmul_tiled` is where the lab's technique goes, in the steps that take it from the textbook
// 16 x 16 shared-memory tile (about 1/8 of cuBLAS) to about 4/5 of cuBLAS:
//  1. Block tiling. A block owns a 128 x 128 tile of C and walks along k in steps of 8: each
//     step stages a 128 x 8 slice of A and an 8 x 128 slice of B in shared memory. Every value
//     loaded from global memory is then used 128 times (by the whole tile), instead of 16 times
//     with a 16 x 16 tile.
//  2. Register tiling. Each thread computes 16 x 8 = 128 outputs held in registers. Per step of
//     k it reads 16 values of A and 8 of B from shared memory (six float4 loads) and does 128
//     fused multiply-adds with them: shared memory is no longer the bottleneck (the textbook tile
//     does 2 shared loads per multiply-add, an 8 x 8 thread tile 1 float4 load per 16), the FMA
//     units are.
//  3. Warp tiling. The block's 128 threads are 4 warps, each owning a 64 x 64 quarter of the
//     tile; inside a warp, lanes are 4 (rows) x 8 (columns). Then the float4 shared loads of a
//     warp touch 4 consecutive float4s of A (lanes that want the same value get it in one
//     broadcast) and 8 of B (128 contiguous bytes: no bank conflicts), and each warp's stores of
//     C are whole 128-byte runs.
//  4. Vectorised, transposed staging. Global loads are float4 (16 bytes per instruction). A is
//     stored transposed in shared memory (As[k][row]) so that the 16 values of A a thread needs
//     for one k come in four float4 shared loads, like those of B. A padding of 4 floats per As
//     row makes the transposing stores free of bank conflicts.
//  5. Double buffering. Two shared buffers: while the block computes on one, the next slice is
//     loaded from global memory into registers and then stored into the other, so the load
//     latency hides behind 1024 multiply-adds per thread and one __syncthreads per step suffices.
//  6. Edges. Loads outside A or B write zeros into the tile (a zero adds nothing to the sum), so
//     the inner loop has no bounds checks at all; only the final stores check row < m and
//     col < n. float4 global accesses need k and n to be multiples of 4 and 16-byte-aligned
//     pointers; otherwise the same kernel is instantiated with scalar loads and stores.
// A thread holds 128 accumulators and about 220 registers in all: two blocks (8 warps) fit on an
// SM, so one block's barrier wait hides behind the other's work.
// See siboehm's "How to optimize a CUDA matmul kernel" (kernels 5 to 10) for the same
// progression, step by step.
//
// (Performance note, bench/probes/matmul_variants_probe.cu: this is the probe's wt16x8_bk8, and
// compiles to the same machine code, 221 registers, no spills. At ~220-250 registers ptxas's
// scheduling of the inner loop is sensitive to how the source is written: static __shared__
// arrays instead of the dynamic buffer used here, or 2-D indexing of it, gave different code and
// cost several percent. Keep the shared buffer and its index arithmetic as they are.)
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

// ---- matmul_tiled: block tile 128 x 128 x 8, warp tile 64 x 64, thread tile 16 x 8 -----------

constexpr int kBM = 128;       // rows of C per block
constexpr int kBN = 128;       // columns of C per block
constexpr int kBK = 8;         // k per shared-memory step
constexpr int kThreads = 128;  // 4 warps ...
constexpr int kWarpsN = 2;     // ... as 2 x 2, each owning a 64 x 64 quarter of the block's tile
constexpr int kWarpM = 64;
constexpr int kWarpN = 64;
constexpr int kLanesN = 8;     // a warp's 32 lanes as 4 rows x 8 columns
constexpr int kTM = 16;        // a thread's outputs: 16 rows (four groups of 4, 16 rows apart) ...
constexpr int kTN = 8;         // ... x 8 columns (two groups of 4, 32 columns apart)
constexpr int kLaneRows = (32 / kLanesN) * 4;  // 16: distance between a thread's row groups (4 lanes x 4 rows)
constexpr int kLaneCols = kLanesN * 4;         // 32: distance between its column groups (8 lanes x 4 columns)
// As is [k][row]: with 4 floats of padding, the two float4 columns a warp stores at once (k and
// k + 4, see store_slice) lie 16 banks apart, and every row stays 16-byte aligned (132 * 4 bytes).
constexpr int kAsStride = kBM + 4;
constexpr int kAsFloats = kBK * kAsStride;  // one buffer of As (k-major: row kk at kk * kAsStride)
constexpr int kBsFloats = kBK * kBN;        // one buffer of Bs (row kk at kk * kBN)
constexpr int kSmemBytes = static_cast<int>(sizeof(float)) * 2 * (kAsFloats + kBsFloats);  // 16640

// Staging a slice: A (128 x 8) and B (8 x 128) are 256 float4s each, 2 per thread and matrix.
//  A: two threads per row, each loading 4 consecutive k of the 8-wide slice; a pass covers 64
//     rows, so 2 passes. A warp then reads 16 rows x 32 bytes: whole 32-byte sectors.
//  B: 32 threads per row of 128 columns (a warp reads 512 contiguous bytes); a pass covers 4
//     rows of k, so 2 passes.
constexpr int kARowsPerPass = kThreads / 2;
constexpr int kAPasses = kBM / kARowsPerPass;
constexpr int kBThreadsPerRow = kBN / 4;
constexpr int kBRowsPerPass = kThreads / kBThreadsPerRow;
constexpr int kBPasses = kBK / kBRowsPerPass;

static_assert(kThreads == 32 * (kBM / kWarpM) * (kBN / kWarpN), "one warp per 64 x 64 quarter");
static_assert(kWarpM == (32 / kLanesN) * kTM && kWarpN == kLanesN * kTN, "a warp's lanes cover its tile");
static_assert(kBK == 8 && kAPasses * kThreads * 4 == kBM * kBK && kBPasses * kThreads * 4 == kBK * kBN,
              "staging covers the slice");

// One thread's share of a k-step slice, in registers between the global load and the shared store.
struct Staged {
  float a[kAPasses][4];  // 4 consecutive k of one row of A, per pass
  float b[kBPasses][4];  // 4 consecutive columns of one row of B, per pass
};

// Global -> registers. Elements outside A or B become 0, so partial tiles need no special case
// later. kVector: float4 loads (requires k % 4 == 0, n % 4 == 0 and 16-byte-aligned a and b: a
// float4 then lies entirely inside its row or entirely outside the matrix). __ldg: read through
// the read-only (texture) path; a and b are not written while the kernel runs.
template <bool kVector>
__device__ __forceinline__ void load_slice(const float* __restrict__ a, const float* __restrict__ b, int m, int n,
                                           int k, int row0, int col0, int k0, Staged& s) {
  const int t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < kAPasses; ++p) {
    const int row = row0 + p * kARowsPerPass + t / 2;  // thread pair t/2 owns a row ...
    const int col = k0 + (t % 2) * 4;                  // ... and each of the two 4 of its 8 k
    const float* at = a + static_cast<std::size_t>(row) * k + col;
    if constexpr (kVector) {
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (row < m && col < k) v = __ldg(reinterpret_cast<const float4*>(at));
      s.a[p][0] = v.x, s.a[p][1] = v.y, s.a[p][2] = v.z, s.a[p][3] = v.w;
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) s.a[p][i] = (row < m && col + i < k) ? __ldg(at + i) : 0.0f;
    }
  }
#pragma unroll
  for (int p = 0; p < kBPasses; ++p) {
    const int row = k0 + p * kBRowsPerPass + t / kBThreadsPerRow;  // 32 threads per row of B ...
    const int col = col0 + (t % kBThreadsPerRow) * 4;               // ... 4 columns each
    const float* bt = b + static_cast<std::size_t>(row) * n + col;
    if constexpr (kVector) {
      float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (row < k && col < n) v = __ldg(reinterpret_cast<const float4*>(bt));
      s.b[p][0] = v.x, s.b[p][1] = v.y, s.b[p][2] = v.z, s.b[p][3] = v.w;
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) s.b[p][i] = (row < k && col + i < n) ? __ldg(bt + i) : 0.0f;
    }
  }
}

// Registers -> shared memory, the same places relative to the tile: A transposed, As[kk][row] at
// as[kk * kAsStride + row]; B as it is, Bs[kk][col] at bs[kk * kBN + col].
__device__ __forceinline__ void store_slice(const Staged& s, float* as, float* bs) {
  const int t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < kAPasses; ++p) {
    const int row = p * kARowsPerPass + t / 2;
    const int kk = (t % 2) * 4;
#pragma unroll
    for (int i = 0; i < 4; ++i) as[(kk + i) * kAsStride + row] = s.a[p][i];
  }
#pragma unroll
  for (int p = 0; p < kBPasses; ++p) {
    const int kk = p * kBRowsPerPass + t / kBThreadsPerRow;
    const int col = (t % kBThreadsPerRow) * 4;
    *reinterpret_cast<float4*>(&bs[kk * kBN + col]) = make_float4(s.b[p][0], s.b[p][1], s.b[p][2], s.b[p][3]);
  }
}

// 128 multiply-adds per k per thread, from 6 float4 shared loads (4 of A, 2 of B). row_off and
// col_off: the thread's first row and column inside the block's tile.
__device__ __forceinline__ void multiply_slice(const float* as, const float* bs, int row_off, int col_off,
                                               float (&acc)[kTM][kTN]) {
#pragma unroll
  for (int kk = 0; kk < kBK; ++kk) {
    float a_frag[kTM];
    float b_frag[kTN];
#pragma unroll
    for (int g = 0; g < kTM / 4; ++g) {
      *reinterpret_cast<float4*>(&a_frag[4 * g]) =
          *reinterpret_cast<const float4*>(&as[kk * kAsStride + row_off + g * kLaneRows]);
    }
#pragma unroll
    for (int g = 0; g < kTN / 4; ++g) {
      *reinterpret_cast<float4*>(&b_frag[4 * g]) =
          *reinterpret_cast<const float4*>(&bs[kk * kBN + col_off + g * kLaneCols]);
    }
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
  }
}

// acc[i][j] belongs to row row0 + row_off + (i / 4) * 16 + i % 4 and column
// col0 + col_off + (j / 4) * 32 + j % 4. Only here are rows and columns checked against m and n.
template <bool kVector>
__device__ __forceinline__ void store_result(float* __restrict__ c, int m, int n, int row0, int col0,
                                             const float (&acc)[kTM][kTN], int row_off, int col_off) {
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = row0 + row_off + (i / 4) * kLaneRows + i % 4;
    if (row >= m) continue;
#pragma unroll
    for (int g = 0; g < kTN / 4; ++g) {
      const int col = col0 + col_off + g * kLaneCols;
      float* out = c + static_cast<std::size_t>(row) * n + col;
      const float* v = &acc[i][4 * g];
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

// One block per 128 x 128 tile of C, numbered row by row in a 1D grid (m * n < 2^31, so the
// number of tiles fits gridDim.x). At most 255 registers per thread and two blocks per SM.
template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    matmul_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                        int k) {
  // Shared memory, sized at launch (kSmemBytes): the two buffers of As, then the two of Bs.
  extern __shared__ float4 smem4[];
  float* const as = reinterpret_cast<float*>(smem4);
  float* const bs = as + 2 * kAsFloats;

  const int col_tiles = (n + kBN - 1) / kBN;
  const int tile = blockIdx.x;
  const int row_tile = tile / col_tiles;
  const int col_tile = tile % col_tiles;
  const int row0 = row_tile * kBM, col0 = col_tile * kBN;

  // The thread's place: its warp's quarter of the tile, then its lane's 4 x 4 corner in it.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / kWarpsN, warp_col = warp % kWarpsN;
  const int lane_row = lane / kLanesN, lane_col = lane % kLanesN;
  const int row_off = warp_row * kWarpM + lane_row * 4;
  const int col_off = warp_col * kWarpN + lane_col * 4;

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
  }

  const int k_steps = (k + kBK - 1) / kBK;
  Staged staged;
  if (k_steps > 0) {  // k == 0: C is the empty sum, zeros; a and b are not touched
    load_slice<kVector>(a, b, m, n, k, row0, col0, 0, staged);
    store_slice(staged, as, bs);
    __syncthreads();
    for (int step = 0; step < k_steps; ++step) {
      const int buffer = step % 2;
      const bool more = step + 1 < k_steps;
      // Issue the next slice's global loads first: they complete while we compute.
      if (more) load_slice<kVector>(a, b, m, n, k, row0, col0, (step + 1) * kBK, staged);
      multiply_slice(as + buffer * kAsFloats, bs + buffer * kBsFloats, row_off, col_off, acc);
      // The other buffer was last read in the previous step, before the barrier that ended it.
      if (more) store_slice(staged, as + (1 - buffer) * kAsFloats, bs + (1 - buffer) * kBsFloats);
      __syncthreads();
    }
  }
  store_result<kVector>(c, m, n, row0, col0, acc, row_off, col_off);
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
  const unsigned tiles = blocks_for(m, kBM, 0x7fffffff) * blocks_for(n, kBN, 0x7fffffff);
  const bool vector = k % 4 == 0 && n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c);
  if (vector) {
    matmul_tiled_kernel<true><<<tiles, kThreads, kSmemBytes, stream>>>(a, b, c, m, n, k);
  } else {
    matmul_tiled_kernel<false><<<tiles, kThreads, kSmemBytes, stream>>>(a, b, c, m, n, k);
  }
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
