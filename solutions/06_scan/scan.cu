// Lab 06 reference: single-pass scan with decoupled look-back (Merrill & Garland, 2016), and
// stream compaction built on the same kernel.
//
// Why single-pass: a scan must read n elements and write n. The classic reduce-then-scan reads
// the input twice (pass 1: per-block sums; pass 3: scan again and add the block's offset), so it
// moves 3n elements and can reach at best ~2/3 of a copy's speed. Here each block (a "tile" of
// 7680 elements) reads its input once, and learns the sum of all earlier tiles from a small
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
//
// What made it fast (Nsight Compute, H100, 2^26 ints; bench/probes/scan_shape_probe.cu): the
// first version had every warp wait at five block-wide barriers per tile, and barrier stalls
// were 59% of its warps' time (DRAM at 54% of peak, 0.77x CUB). Now each warp loads, transposes
// and stores its own contiguous part of the tile (__syncwarp only), so the block meets at two
// barriers: the warps' totals, and warp 0's look-back that hands every warp its prefix. With 40
// registers per thread, four blocks of 384 threads (20 elements each) fit on an SM, and the input and output are
// streamed past the L2 (__ldcs/__stcs: each byte is touched once): 0.91x CUB DeviceScan.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "scan.cuh"

namespace LAB_IMPL {
namespace {

// A tile's shape: threads per block, elements per thread, and the blocks per SM the compiler
// must fit (a register budget). Other shapes are compared in bench/probes/scan_shape_probe.cu.
template <int Threads, int ItemsPerThread, int MinBlocksPerSm>
struct TileShape {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kItemsPerThread = ItemsPerThread;
  static constexpr int kWarpItems = 32 * ItemsPerThread;  // one warp's contiguous part of a tile
  static constexpr int kTileItems = Threads * ItemsPerThread;
  // One padding word per 32 (see padded()).
  static constexpr int kPaddedTileItems = kTileItems + kTileItems / 32;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
  static_assert(ItemsPerThread % 4 == 0, "tiles are loaded and stored as 16-byte vectors");
};
// 384 threads x 20 elements, 4 blocks per SM: 20 elements per thread keep five 16-byte loads in
// flight each; 4 x 384 threads at 40 registers fill an SM's register file with 48 warps, enough
// to hide both the loads and the look-backs; 8739 tiles at 2^26.
using DefaultShape = TileShape<384, 20, 4>;
// Compaction gathers each tile's kept elements through shared memory at their rank (a second,
// block-wide pass over the tile): with 20 elements per thread it ran at 0.49x CUB's
// DeviceSelect, with 16 at 0.58x (H100), so it keeps the smaller tile.
using CompactShape = TileShape<384, 16, 4>;
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

// One padding word per 32: lane l of a warp reads items l*20 .. l*20+19 of its part, and without
// padding its 32 lanes' reads would meet in a few of the 32 shared-memory banks (lane l and lane
// l + 8 in the same bank: 4-way conflicts; with 16 elements, 16-way).
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
__global__ void __launch_bounds__(Shape::kThreads, Shape::kMinBlocksPerSm)
scan_tiles(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ count, std::size_t n, int threshold,
           unsigned* tile_counter, unsigned long long* status, bool vectors) {
  constexpr int kItems = Shape::kItemsPerThread;
  __shared__ int tile_data[Shape::kPaddedTileItems];
  __shared__ int warp_totals[Shape::kWarps];
  __shared__ int warp_offsets[Shape::kWarps];  // exclusive, within the tile
  __shared__ int shared_tile_id;
  __shared__ int shared_tile_prefix;
  __shared__ int shared_tile_total;

  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;

  // 1. Ticket.
  if (tid == 0) shared_tile_id = static_cast<int>(atomicAdd(tile_counter, 1u));
  __syncthreads();
  const long long tile = shared_tile_id;
  const std::size_t tile_begin = static_cast<std::size_t>(tile) * Shape::kTileItems;

  // 2a. Each warp loads its own contiguous part of the tile, coalesced (a full tile of 16-byte
  //     aligned data as 16-byte loads: a warp reads 512 contiguous bytes per instruction, 5 in
  //     flight per lane), through shared memory, so that each lane then holds 20 consecutive
  //     elements. Only this warp touches its part: __syncwarp is enough. Past the end, the
  //     identity (0; for compaction, a value that is not counted).
  const int warp_base = warp * Shape::kWarpItems;
  const bool full_tile = tile_begin + Shape::kTileItems <= n;
  if (vectors && full_tile) {
    const int4* in4 = reinterpret_cast<const int4*>(in + tile_begin + warp_base);
    int4 loaded[kItems / 4];
#pragma unroll
    for (int k = 0; k < kItems / 4; ++k) loaded[k] = __ldcs(&in4[k * 32 + lane]);  // read once: stream it
#pragma unroll
    for (int k = 0; k < kItems / 4; ++k) {
      const int i = warp_base + 4 * (k * 32 + lane);
      tile_data[padded(i)] = loaded[k].x;
      tile_data[padded(i + 1)] = loaded[k].y;
      tile_data[padded(i + 2)] = loaded[k].z;
      tile_data[padded(i + 3)] = loaded[k].w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int i = warp_base + k * 32 + lane;
      const std::size_t g = tile_begin + i;
      tile_data[padded(i)] = g < n ? in[g] : 0;
    }
  }
  __syncwarp();

  // 2b. Each lane takes its 20 consecutive elements and totals them (no sync).
  const int first = warp_base + lane * kItems;  // this lane's first element, within the tile
  int items[kItems];
  int thread_total = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int value = tile_data[padded(first + k)];
    items[k] = value;
    if constexpr (mode == Mode::Compact) {
      const bool in_range = tile_begin + first + k < n;
      thread_total += (in_range && value > threshold) ? 1 : 0;
    } else {
      thread_total += value;
    }
  }

  // 2c and 3. The block's scan of the lanes' totals in two barriers: each warp scans its lanes'
  //     totals by shuffles; then warp 0 scans the warps' totals, publishes the tile's aggregate,
  //     looks back (the other warps wait at the second barrier), publishes the tile's prefix,
  //     and hands every warp its offset.
  const int warp_inclusive = warp_inclusive_scan(thread_total, lane);
  if (lane == 31) warp_totals[warp] = warp_inclusive;
  __syncthreads();
  if (warp == 0) {
    const int total = lane < Shape::kWarps ? warp_totals[lane] : 0;
    const int scanned = warp_inclusive_scan(total, lane);
    const int tile_total = __shfl_sync(kFullMask, scanned, Shape::kWarps - 1);
    int tile_prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish(status, kStatusPrefix, tile_total);
    } else {
      if (lane == 0) publish(status + tile, kStatusAggregate, tile_total);
      tile_prefix = look_back(status, tile, lane);
      if (lane == 0) publish(status + tile, kStatusPrefix, tile_prefix + tile_total);
    }
    if (lane < Shape::kWarps) warp_offsets[lane] = scanned - total;
    if (lane == 0) {
      shared_tile_prefix = tile_prefix;
      shared_tile_total = tile_total;
    }
  }
  __syncthreads();
  const int tile_prefix = shared_tile_prefix;
  const int thread_offset = warp_offsets[warp] + warp_inclusive - thread_total;  // within the tile

  if constexpr (mode == Mode::Compact) {
    // 4 (compaction). Kept elements go to their rank within the tile in shared memory (every
    // lane has read its items before the barriers above), then the block writes the kept ones
    // to out contiguously, coalesced.
    int rank = thread_offset;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const bool in_range = tile_begin + first + k < n;
      if (in_range && items[k] > threshold) tile_data[padded(rank++)] = items[k];
    }
    __syncthreads();
    const int tile_total = shared_tile_total;
    for (int i = tid; i < tile_total; i += Shape::kThreads) out[tile_prefix + i] = tile_data[padded(i)];
    if (tid == 0 && static_cast<std::size_t>(tile) == gridDim.x - 1u) *count = tile_prefix + tile_total;
  } else {
    // 4 (scan). Each lane overwrites only its own 20 slots of its warp's part, then the warp
    // stores its part in the order it was loaded.
    int running = tile_prefix + thread_offset;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int inclusive = running + items[k];
      tile_data[padded(first + k)] = mode == Mode::Inclusive ? inclusive : running;
      running = inclusive;
    }
    __syncwarp();
    if (vectors && full_tile) {
      int4* out4 = reinterpret_cast<int4*>(out + tile_begin + warp_base);
#pragma unroll
      for (int k = 0; k < kItems / 4; ++k) {
        const int i = warp_base + 4 * (k * 32 + lane);
        __stcs(&out4[k * 32 + lane], make_int4(tile_data[padded(i)], tile_data[padded(i + 1)],
                                               tile_data[padded(i + 2)], tile_data[padded(i + 3)]));
      }
    } else {
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = warp_base + k * 32 + lane;
        const std::size_t g = tile_begin + i;
        if (g < n) out[g] = tile_data[padded(i)];
      }
    }
  }
}

template <class Shape = DefaultShape>
cudaError_t check_arguments(std::size_t n, const void* workspace, std::size_t workspace_bytes) {
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  const std::size_t needed = workspace_bytes_for<Shape>(n);
  if (workspace_bytes < needed || (workspace == nullptr && needed != 0)) return cudaErrorInvalidValue;
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
std::size_t compact_workspace_bytes(std::size_t n) { return workspace_bytes_for<CompactShape>(n); }

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
  if (const cudaError_t status = check_arguments<CompactShape>(n, workspace, workspace_bytes); status != cudaSuccess) return status;
  if (n == 0) {
    // Nothing to scan, but the caller still reads a count.
    if (const cudaError_t status = cudaMemsetAsync(count, 0, sizeof(int), stream); status != cudaSuccess) {
      return status;
    }
    return cudaGetLastError();
  }
  return launch<Mode::Compact, CompactShape>(in, out, count, n, threshold, workspace, stream);
}

}  // namespace LAB_IMPL
