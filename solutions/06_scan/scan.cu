// Lab 06 reference: single-pass scan with decoupled look-back (Merrill & Garland, 2016), and
// stream compaction built on the same kernel.
//
// Why single-pass: a scan must read n elements and write n. The classic reduce-then-scan reads
// the input twice (pass 1: per-block sums; pass 3: scan again and add the block's offset), so it
// moves 3n elements and can reach at best ~2/3 of a copy's speed. Here each block (a "tile" of
// 4096 elements) reads its input once, and learns the sum of all earlier tiles from a small
// status array in the workspace, which its predecessors fill in as they go:
//   1. take a ticket: tile ids are handed out in the order blocks start, so every tile a block
//      waits for belongs to a block that is already running (no deadlock, whatever the
//      scheduler does with blockIdx);
//   2. load the tile (coalesced), scan it in the block, and publish the tile's own sum
//      ("aggregate") at once;
//   3. look back: one warp reads the status of the 32 preceding tiles at a time and adds their
//      aggregates until it meets a tile that has published its inclusive prefix; then publish
//      this tile's own inclusive prefix, so later tiles stop here;
//   4. add the prefix and write the tile (coalesced).
// Each status is one 64-bit word (flag in the high half, value in the low half), written with a
// single store, so a reader never sees a flag without its value.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "scan.cuh"

namespace LAB_IMPL {
namespace {

// A tile's shape: threads per block, elements per thread, and the blocks per SM the compiler
// must fit (a register budget).
template <int Threads, int ItemsPerThread, int MinBlocksPerSm>
struct TileShape {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kItemsPerThread = ItemsPerThread;
  static constexpr int kTileItems = Threads * ItemsPerThread;
  // One padding word per 32 (see padded()).
  static constexpr int kPaddedTileItems = kTileItems + kTileItems / 32;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static_assert(ItemsPerThread % 4 == 0, "tiles are loaded and stored as 16-byte vectors");
};
// 256 threads x 16 elements: enough independent loads in flight per thread to cover memory
// latency, and few enough tiles (16384 at 2^26) that the look-back chain stays short.
using DefaultShape = TileShape<256, 16, 1>;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Tile status flags (the high 32 bits of a status word). 0 is what the workspace is cleared to.
constexpr unsigned kStatusInvalid = 0;    // nothing published yet
constexpr unsigned kStatusAggregate = 1;  // value = this tile's own sum
constexpr unsigned kStatusPrefix = 2;     // value = sum of this tile and every tile before it

// Workspace layout: the ticket counter (padded to 8 bytes), then one status word per tile.
constexpr std::size_t kCounterBytes = sizeof(unsigned long long);

template <class Shape>
std::size_t tile_count(std::size_t n) {
  return (n + Shape::kTileItems - 1) / Shape::kTileItems;
}

template <class Shape = DefaultShape>
std::size_t workspace_bytes_for(std::size_t n) {
  return n == 0 ? 0 : kCounterBytes + tile_count<Shape>(n) * sizeof(unsigned long long);
}

// One padding word per 32: thread t reads items t*16 .. t*16+15 of the tile, and without padding
// the 32 threads of a warp would hit only 2 of the 32 shared-memory banks (16-way conflicts).
__device__ __forceinline__ int padded(int i) { return i + i / 32; }

__device__ __forceinline__ unsigned long long pack_status(unsigned flag, int value) {
  return (static_cast<unsigned long long>(flag) << 32) | static_cast<unsigned>(value);
}
__device__ __forceinline__ unsigned status_flag(unsigned long long word) { return static_cast<unsigned>(word >> 32); }
__device__ __forceinline__ int status_value(unsigned long long word) {
  return static_cast<int>(static_cast<unsigned>(word & 0xFFFFFFFFull));
}

// volatile: every read goes to L2 (where other blocks' stores land), never to a stale L1 line.
__device__ __forceinline__ void publish(unsigned long long* status, unsigned flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(status) = pack_status(flag, value);
}
__device__ __forceinline__ unsigned long long read_status(const unsigned long long* status) {
  return *reinterpret_cast<const volatile unsigned long long*>(status);
}

__device__ __forceinline__ int warp_sum(int value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullMask, value, offset);
  return value;
}

__device__ __forceinline__ int warp_inclusive_scan(int value, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int other = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// Run by warp 0 of tile `tile` (> 0) after it published its aggregate: the sum of every element
// before this tile. All 32 lanes return it.
__device__ __forceinline__ int look_back(const unsigned long long* status, long long tile, int lane) {
  int exclusive = 0;
  long long window_end = tile - 1;  // lane 0 looks at the nearest predecessor
  while (true) {
    const long long index = window_end - lane;
    unsigned long long word = 0;
    // Lanes before tile 0 act as an empty prefix; tile 0 always publishes a prefix, so the loop
    // stops there at the latest.
    do {
      word = index >= 0 ? read_status(status + index) : pack_status(kStatusPrefix, 0);
    } while (__any_sync(kFullMask, status_flag(word) == kStatusInvalid));

    const unsigned prefix_lanes = __ballot_sync(kFullMask, status_flag(word) == kStatusPrefix);
    if (prefix_lanes != 0) {
      // The nearest tile with a prefix is the lowest such lane: add it and the aggregates
      // between it and us, nothing further back.
      const int stop_lane = __ffs(prefix_lanes) - 1;
      exclusive += warp_sum(lane <= stop_lane ? status_value(word) : 0);
      return exclusive;
    }
    exclusive += warp_sum(status_value(word));
    window_end -= 32;
  }
}

enum class Mode { Inclusive, Exclusive, Compact };

template <Mode mode, class Shape>
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocksPerSm) scan_tiles(const int* __restrict__ in, int* __restrict__ out,
                                                       int* __restrict__ count, std::size_t n, int threshold,
                                                       unsigned* tile_counter, unsigned long long* status,
                                                       bool vectors) {
  __shared__ int tile_data[Shape::kPaddedTileItems];
  __shared__ int warp_totals[Shape::kWarps];
  __shared__ int shared_tile_id;
  __shared__ int shared_tile_prefix;

  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;

  // 1. Ticket.
  if (tid == 0) shared_tile_id = static_cast<int>(atomicAdd(tile_counter, 1u));
  __syncthreads();
  const long long tile = shared_tile_id;
  const std::size_t tile_begin = static_cast<std::size_t>(tile) * Shape::kTileItems;

  // 2a. Coalesced load: consecutive threads read consecutive elements, 16 loads in flight each;
  //     a full tile of 16-byte aligned data as four 16-byte loads per thread (a warp reads 512
  //     contiguous bytes per instruction). Past the end, the identity (0; for compaction, a
  //     value that is not kept).
  const bool full_tile = tile_begin + Shape::kTileItems <= n;
  if (vectors && full_tile) {
    const int4* in4 = reinterpret_cast<const int4*>(in + tile_begin);
    int4 loaded[Shape::kItemsPerThread / 4];
#pragma unroll
    for (int k = 0; k < Shape::kItemsPerThread / 4; ++k) loaded[k] = in4[k * Shape::kThreads + tid];
#pragma unroll
    for (int k = 0; k < Shape::kItemsPerThread / 4; ++k) {
      const int i = 4 * (k * Shape::kThreads + tid);
      tile_data[padded(i)] = loaded[k].x;
      tile_data[padded(i + 1)] = loaded[k].y;
      tile_data[padded(i + 2)] = loaded[k].z;
      tile_data[padded(i + 3)] = loaded[k].w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < Shape::kItemsPerThread; ++k) {
      const int i = k * Shape::kThreads + tid;
      const std::size_t g = tile_begin + i;
      int value = 0;
      if (g < n) value = in[g];
      tile_data[padded(i)] = value;
    }
  }
  __syncthreads();

  // 2b. Each thread takes 16 consecutive elements and scans them sequentially (cheap, no sync).
  int items[Shape::kItemsPerThread];
  int thread_total = 0;
#pragma unroll
  for (int k = 0; k < Shape::kItemsPerThread; ++k) {
    const int i = tid * Shape::kItemsPerThread + k;
    const int value = tile_data[padded(i)];
    items[k] = value;
    if constexpr (mode == Mode::Compact) {
      const bool in_range = tile_begin + i < n;
      thread_total += (in_range && value > threshold) ? 1 : 0;
    } else {
      thread_total += value;
    }
  }

  // 2c. Block-wide exclusive scan of the 256 thread totals: within each warp by shuffles, then
  //     across the 8 warp totals.
  const int warp_inclusive = warp_inclusive_scan(thread_total, lane);
  if (lane == 31) warp_totals[warp] = warp_inclusive;
  __syncthreads();
  if (warp == 0) {
    const int total = lane < Shape::kWarps ? warp_totals[lane] : 0;
    const int scanned = warp_inclusive_scan(total, lane);
    if (lane < Shape::kWarps) warp_totals[lane] = scanned;  // inclusive over warps
  }
  __syncthreads();
  const int block_total = warp_totals[Shape::kWarps - 1];
  const int thread_offset = warp_inclusive - thread_total + (warp > 0 ? warp_totals[warp - 1] : 0);

  // 3. Publish and look back (warp 0 only; the others wait at the barrier).
  if (warp == 0) {
    int tile_prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish(status, kStatusPrefix, block_total);
    } else {
      if (lane == 0) publish(status + tile, kStatusAggregate, block_total);
      tile_prefix = look_back(status, tile, lane);
      if (lane == 0) publish(status + tile, kStatusPrefix, tile_prefix + block_total);
    }
    if (lane == 0) shared_tile_prefix = tile_prefix;
  }
  __syncthreads();
  const int tile_prefix = shared_tile_prefix;

  if constexpr (mode == Mode::Compact) {
    // 4 (compaction). Kept elements go to their rank within the tile in shared memory (every
    // thread has read its items: the barriers above separate that from these writes), then the
    // block writes the kept ones to out contiguously, coalesced.
    int rank = thread_offset;
#pragma unroll
    for (int k = 0; k < Shape::kItemsPerThread; ++k) {
      const bool in_range = tile_begin + tid * Shape::kItemsPerThread + k < n;
      if (in_range && items[k] > threshold) tile_data[padded(rank++)] = items[k];
    }
    __syncthreads();
    for (int i = tid; i < block_total; i += Shape::kThreads) out[tile_prefix + i] = tile_data[padded(i)];
    if (tid == 0 && static_cast<std::size_t>(tile) == gridDim.x - 1u) *count = tile_prefix + block_total;
  } else {
    // 4 (scan). Each thread overwrites only its own 16 slots, then the block stores the tile in
    // the same coalesced order it was loaded.
    int running = tile_prefix + thread_offset;
#pragma unroll
    for (int k = 0; k < Shape::kItemsPerThread; ++k) {
      const int inclusive = running + items[k];
      tile_data[padded(tid * Shape::kItemsPerThread + k)] = mode == Mode::Inclusive ? inclusive : running;
      running = inclusive;
    }
    __syncthreads();
    if (vectors && full_tile) {
      int4* out4 = reinterpret_cast<int4*>(out + tile_begin);
#pragma unroll
      for (int k = 0; k < Shape::kItemsPerThread / 4; ++k) {
        const int i = 4 * (k * Shape::kThreads + tid);
        out4[k * Shape::kThreads + tid] = make_int4(tile_data[padded(i)], tile_data[padded(i + 1)],
                                             tile_data[padded(i + 2)], tile_data[padded(i + 3)]);
      }
    } else {
#pragma unroll
      for (int k = 0; k < Shape::kItemsPerThread; ++k) {
        const int i = k * Shape::kThreads + tid;
        const std::size_t g = tile_begin + i;
        if (g < n) out[g] = tile_data[padded(i)];
      }
    }
  }
}

cudaError_t check_arguments(std::size_t n, const void* workspace, std::size_t workspace_bytes) {
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  if (workspace_bytes < workspace_bytes_for(n) || (workspace == nullptr && workspace_bytes_for(n) != 0)) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

template <Mode mode, class Shape = DefaultShape>
cudaError_t launch(const int* in, int* out, int* count, std::size_t n, int threshold, void* workspace,
                   cudaStream_t stream) {
  const std::size_t tiles = tile_count<Shape>(n);
  // Clear the ticket counter and every tile's status: the workspace may hold the previous call's.
  if (const cudaError_t status = cudaMemsetAsync(workspace, 0, workspace_bytes_for<Shape>(n), stream);
      status != cudaSuccess) {
    return status;
  }
  auto* counter = static_cast<unsigned*>(workspace);
  auto* status = reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(workspace) + kCounterBytes);
  // 16-byte loads and stores need 16-byte aligned arrays (compaction writes out unaligned runs
  // anyway, so only its loads use them).
  const bool vectors = reinterpret_cast<std::uintptr_t>(in) % alignof(int4) == 0 &&
                       (mode == Mode::Compact || reinterpret_cast<std::uintptr_t>(out) % alignof(int4) == 0);
  scan_tiles<mode, Shape><<<static_cast<unsigned>(tiles), Shape::kThreads, 0, stream>>>(
      in, out, count, n, threshold, counter, status, vectors);
  return cudaGetLastError();
}

}  // namespace

std::size_t scan_workspace_bytes(std::size_t n) { return workspace_bytes_for(n); }
std::size_t compact_workspace_bytes(std::size_t n) { return workspace_bytes_for(n); }

cudaError_t inclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  if (const cudaError_t status = check_arguments(n, workspace, workspace_bytes); status != cudaSuccess) return status;
  if (n == 0) return cudaSuccess;
  return launch<Mode::Inclusive>(in, out, nullptr, n, 0, workspace, stream);
}

cudaError_t exclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  if (const cudaError_t status = check_arguments(n, workspace, workspace_bytes); status != cudaSuccess) return status;
  if (n == 0) return cudaSuccess;
  return launch<Mode::Exclusive>(in, out, nullptr, n, 0, workspace, stream);
}

cudaError_t compact(const int* in, int* out, int* count, std::size_t n, int threshold, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream) {
  if (const cudaError_t status = check_arguments(n, workspace, workspace_bytes); status != cudaSuccess) return status;
  if (n == 0) {
    // Nothing to scan, but the caller still reads a count.
    if (const cudaError_t status = cudaMemsetAsync(count, 0, sizeof(int), stream); status != cudaSuccess) {
      return status;
    }
    return cudaGetLastError();
  }
  return launch<Mode::Compact>(in, out, count, n, threshold, workspace, stream);
}

}  // namespace LAB_IMPL
