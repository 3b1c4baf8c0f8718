// Fixture: a careful radix sort whose pairs version is not stable. To "keep equal keys in a
// sensible order" it sorts the pairs by (key, value): four passes on the value's digits, then four
// on the key's. Keys and block_sort are right and as fast as the reference; every pair test with
// repeated keys fails (equal keys come out ordered by value, not by input position).
#include <climits>
#include <cstddef>
#include <cstdint>

#include "sort.cuh"

namespace LAB_IMPL {
namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// ============================== Part 1: bitonic sort per block ================================

// A bitonic network sorts 2^m keys in m(m+1)/2 steps; in each step every key is compared with the
// one j places away and the pair is put in the order of its k-block (ascending or descending), so
// that sorted runs of length k are merged into runs of length 2k. One thread per comparator pair,
// a barrier per step. A segment that is not a power of two is padded with 0xFFFFFFFF, which sorts
// last and is never written back (real 0xFFFFFFFF keys are equal to it, so either may be the one
// left out: the keys written are the same).
__global__ void bitonic_segments(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::size_t n,
                                 unsigned segment_size, unsigned padded_size) {
  __shared__ std::uint32_t keys[kMaxSegmentSize];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * segment_size;
  const std::size_t left = n - base;
  const unsigned count = left < segment_size ? static_cast<unsigned>(left) : segment_size;

  // Coalesced load: consecutive threads, consecutive keys.
  for (unsigned i = threadIdx.x; i < padded_size; i += blockDim.x) keys[i] = i < count ? in[base + i] : 0xFFFFFFFFu;
  __syncthreads();

  const unsigned pairs = padded_size / 2;
  for (unsigned k = 2; k <= padded_size; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      for (unsigned t = threadIdx.x; t < pairs; t += blockDim.x) {
        // The t-th pair of this step: i has bit j clear, its partner is i + j. Consecutive t give
        // consecutive i for j >= 32 (no bank conflicts); below that, 2-way conflicts at worst.
        const unsigned i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
        const unsigned partner = i + j;
        const bool ascending = (i & k) == 0;
        const std::uint32_t a = keys[i];
        const std::uint32_t b = keys[partner];
        if ((a > b) == ascending) {
          keys[i] = b;
          keys[partner] = a;
        }
      }
      __syncthreads();
    }
  }

  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) out[base + i] = keys[i];
}

unsigned next_power_of_two(unsigned x) {
  unsigned p = 1;
  while (p < x) p <<= 1;
  return p;
}

// =============================== Part 2 and 3: LSB radix sort =================================

constexpr int kRadixBits = 8;
constexpr int kRadix = 1 << kRadixBits;  // 256 digit values
constexpr int kPasses = 32 / kRadixBits;  // 4, an even number: the last pass writes `out`
constexpr int kThreads = 256;             // == kRadix: thread t owns digit t where digits are summed
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;                   // keys per thread: 16 loads in flight per lane
constexpr int kWarpKeys = 32 * kItems;       // 512 consecutive keys per warp
constexpr int kTileKeys = kThreads * kItems;  // 4096 keys per tile
static_assert(kThreads == kRadix, "the digit loops give one digit to each thread");
static_assert(kPasses % 2 == 0, "an even number of passes ends in the caller's output");

// The spine scan of the counts: chunks of kScanThreads * kScanItems counts per block.
constexpr int kScanThreads = 256;
constexpr int kScanItems = 16;
constexpr int kScanChunk = kScanThreads * kScanItems;
constexpr int kSpineThreads = 1024;  // the one block that scans the chunk sums

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

std::size_t tile_count(std::size_t n) { return (n + kTileKeys - 1) / kTileKeys; }
std::size_t count_entries(std::size_t n) { return static_cast<std::size_t>(kRadix) * tile_count(n); }
std::size_t chunk_count(std::size_t entries) { return (entries + kScanChunk - 1) / kScanChunk; }

// Workspace layout: [tmp keys][tmp values, pairs only][counts][chunk sums], each 256-byte aligned.
struct Workspace {
  std::uint32_t* keys = nullptr;
  std::uint32_t* values = nullptr;
  unsigned* counts = nullptr;
  unsigned* chunk_sums = nullptr;
};

std::size_t workspace_bytes_for(std::size_t n, bool pairs) {
  if (n == 0) return 0;
  const std::size_t entries = count_entries(n);
  return aligned(n * sizeof(std::uint32_t)) * (pairs ? 2 : 1) + aligned(entries * sizeof(unsigned)) +
         aligned(chunk_count(entries) * sizeof(unsigned));
}

Workspace carve(void* workspace, std::size_t n, bool pairs) {
  auto* p = static_cast<unsigned char*>(workspace);
  Workspace w;
  w.keys = reinterpret_cast<std::uint32_t*>(p);
  p += aligned(n * sizeof(std::uint32_t));
  if (pairs) {
    w.values = reinterpret_cast<std::uint32_t*>(p);
    p += aligned(n * sizeof(std::uint32_t));
  }
  w.counts = reinterpret_cast<unsigned*>(p);
  p += aligned(count_entries(n) * sizeof(unsigned));
  w.chunk_sums = reinterpret_cast<unsigned*>(p);
  return w;
}

__device__ __forceinline__ unsigned digit_of(std::uint32_t key, int shift) { return (key >> shift) & (kRadix - 1); }

__device__ __forceinline__ unsigned lanes_below(int lane) { return (1u << lane) - 1u; }

// Exclusive scan over the block of one value per thread (blockDim.x a multiple of 32, at most
// 1024); *total gets the sum of all. Every thread of the block must call it.
__device__ unsigned block_exclusive_scan(unsigned value, unsigned* total) {
  __shared__ unsigned warp_sums[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warps = blockDim.x / 32;
  unsigned inclusive = value;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const unsigned other = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += other;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    unsigned sum = lane < warps ? warp_sums[lane] : 0;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const unsigned other = __shfl_up_sync(kFullMask, sum, offset);
      if (lane >= offset) sum += other;
    }
    warp_sums[lane] = sum;  // inclusive over warps
  }
  __syncthreads();
  *total = warp_sums[warps - 1];
  const unsigned result = inclusive - value + (warp > 0 ? warp_sums[warp - 1] : 0u);
  __syncthreads();  // warp_sums may be reused by the next call
  return result;
}

// --- 1. count ---------------------------------------------------------------------------------

// counts[d * tiles + tile] = number of keys of this tile whose digit is d.
__global__ void __launch_bounds__(kThreads) digit_counts(const std::uint32_t* __restrict__ keys, std::size_t n, int shift,
                                                         unsigned* __restrict__ counts, unsigned tiles) {
  // One histogram per warp: no two warps ever touch the same counter, and within a warp the
  // lanes holding the same digit are combined first, so no atomics are needed at all (a single
  // shared histogram with atomicAdd serialises badly when many keys share a digit).
  __shared__ unsigned warp_hist[kWarps][kRadix];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&warp_hist[0][0])[i] = 0;
  __syncthreads();

  const std::size_t warp_begin = static_cast<std::size_t>(blockIdx.x) * kTileKeys + warp * kWarpKeys;
  std::uint32_t key[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {  // all loads first: 16 in flight per lane
    const std::size_t g = warp_begin + k * 32 + lane;
    key[k] = g < n ? keys[g] : 0;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool valid = warp_begin + k * 32 + lane < n;
    const unsigned digit = valid ? digit_of(key[k], shift) : kRadix;  // kRadix: "no key", never counted
    const unsigned peers = __match_any_sync(kFullMask, digit);
    if (valid && (peers & lanes_below(lane)) == 0) warp_hist[warp][digit] += __popc(peers);
    __syncwarp();  // the next iteration's leader may be another lane
  }
  __syncthreads();

  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) total += warp_hist[w][threadIdx.x];
  counts[static_cast<std::size_t>(threadIdx.x) * tiles + blockIdx.x] = total;
}

// --- 2. scan of the counts (exclusive, in place) -------------------------------------------------

__global__ void __launch_bounds__(kScanThreads) chunk_sums_kernel(const unsigned* __restrict__ data, std::size_t m,
                                                                  unsigned* __restrict__ chunk_sums) {
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * kScanChunk;
  unsigned sum = 0;
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    const std::size_t g = begin + k * kScanThreads + threadIdx.x;  // coalesced
    if (g < m) sum += data[g];
  }
  unsigned total = 0;
  block_exclusive_scan(sum, &total);
  if (threadIdx.x == 0) chunk_sums[blockIdx.x] = total;
}

// One block: exclusive scan of the `chunks` chunk sums in place. Each thread takes a run of
// consecutive sums (there are 1024 at 2^26 keys: one each).
__global__ void __launch_bounds__(kSpineThreads) spine_scan_kernel(unsigned* chunk_sums, unsigned chunks) {
  const unsigned per_thread = (chunks + kSpineThreads - 1) / kSpineThreads;
  const unsigned begin = threadIdx.x * per_thread;
  const unsigned end = min(begin + per_thread, chunks);
  unsigned sum = 0;
  for (unsigned i = begin; i < end; ++i) sum += chunk_sums[i];
  unsigned total = 0;
  unsigned running = block_exclusive_scan(sum, &total);
  for (unsigned i = begin; i < end; ++i) {
    const unsigned value = chunk_sums[i];
    chunk_sums[i] = running;
    running += value;
  }
}

__global__ void __launch_bounds__(kScanThreads) scan_chunks_kernel(unsigned* data, std::size_t m,
                                                                   const unsigned* __restrict__ chunk_offsets) {
  // Load the chunk coalesced into shared memory, let each thread scan 16 consecutive entries
  // (padded by one word per 32 against bank conflicts), scan the threads' totals, write back.
  __shared__ unsigned chunk[kScanChunk + kScanChunk / 32];
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * kScanChunk;
  const auto pad = [](int i) { return i + i / 32; };
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    const int i = k * kScanThreads + threadIdx.x;
    chunk[pad(i)] = begin + i < m ? data[begin + i] : 0;
  }
  __syncthreads();
  unsigned item[kScanItems];
  unsigned sum = 0;
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    item[k] = chunk[pad(threadIdx.x * kScanItems + k)];
    sum += item[k];
  }
  unsigned total = 0;
  unsigned running = chunk_offsets[blockIdx.x] + block_exclusive_scan(sum, &total);
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    chunk[pad(threadIdx.x * kScanItems + k)] = running;
    running += item[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    const int i = k * kScanThreads + threadIdx.x;
    if (begin + i < m) data[begin + i] = chunk[pad(i)];
  }
}

cudaError_t exclusive_scan_counts(unsigned* counts, std::size_t m, unsigned* chunk_sums, cudaStream_t stream) {
  const std::size_t chunks = chunk_count(m);
  chunk_sums_kernel<<<static_cast<unsigned>(chunks), kScanThreads, 0, stream>>>(counts, m, chunk_sums);
  spine_scan_kernel<<<1, kSpineThreads, 0, stream>>>(chunk_sums, static_cast<unsigned>(chunks));
  scan_chunks_kernel<<<static_cast<unsigned>(chunks), kScanThreads, 0, stream>>>(counts, m, chunk_sums);
  return cudaGetLastError();
}

// --- 3. stable scatter ----------------------------------------------------------------------------

template <bool kPairs>
__global__ void __launch_bounds__(kThreads) scatter_kernel(const std::uint32_t* __restrict__ keys_in,
                                                           std::uint32_t* __restrict__ keys_out,
                                                           const std::uint32_t* __restrict__ values_in,
                                                           std::uint32_t* __restrict__ values_out, std::size_t n,
                                                           int shift, const unsigned* __restrict__ offsets,
                                                           unsigned tiles) {
  __shared__ unsigned warp_hist[kWarps][kRadix];  // per-warp digit counts, then their offsets in the tile
  __shared__ unsigned digit_start[kRadix];        // where digit d's run starts in the tile
  __shared__ unsigned run_base[kRadix];           // output index of the run's start, minus digit_start
  __shared__ std::uint32_t staged[kTileKeys];     // the tile in digit order (keys, then values)

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const std::size_t tile_begin = static_cast<std::size_t>(blockIdx.x) * kTileKeys;
  const std::size_t warp_begin = tile_begin + warp * kWarpKeys;
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&warp_hist[0][0])[i] = 0;
  const unsigned run_start = offsets[static_cast<std::size_t>(threadIdx.x) * tiles + blockIdx.x];
  __syncthreads();

  std::uint32_t key[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::size_t g = warp_begin + k * 32 + lane;
    key[k] = g < n ? keys_in[g] : 0;
  }

  // Rank each key among the keys of its warp with the same digit, in index order.
  unsigned place[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool valid = warp_begin + k * 32 + lane < n;
    const unsigned digit = valid ? digit_of(key[k], shift) : kRadix;
    const unsigned peers = __match_any_sync(kFullMask, digit);
    const unsigned below = __popc(peers & lanes_below(lane));
    place[k] = valid ? warp_hist[warp][digit] + below : 0;
    __syncwarp();  // every lane has read the counter before its leader moves it on
    if (valid && below == 0) warp_hist[warp][digit] += __popc(peers);
    __syncwarp();
  }
  __syncthreads();

  // Thread d: the offsets of digit d's keys of each warp within the digit's run (exclusive over
  // warps, in warp order = index order), then where the run starts in the tile (a block scan over
  // the digits).
  const unsigned d = threadIdx.x;
  unsigned in_tile = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const unsigned c = warp_hist[w][d];
    warp_hist[w][d] = in_tile;
    in_tile += c;
  }
  unsigned tile_keys = 0;
  const unsigned start = block_exclusive_scan(in_tile, &tile_keys);  // (also a barrier)
  digit_start[d] = start;
  run_base[d] = run_start - start;  // modulo 2^32; run_base + i is exact for i in the run
  __syncthreads();

  // The tile in digit order in shared memory.
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (warp_begin + k * 32 + lane < n) {
      const unsigned digit = digit_of(key[k], shift);
      place[k] += digit_start[digit] + warp_hist[warp][digit];
      staged[place[k]] = key[k];
    }
  }
  __syncthreads();

  // Consecutive threads write consecutive entries of the staged tile; within a run of one digit
  // those are consecutive output addresses.
  std::size_t destination[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const unsigned i = k * kThreads + threadIdx.x;
    if (i < tile_keys) {
      const std::uint32_t v = staged[i];
      destination[k] = static_cast<std::size_t>(run_base[digit_of(v, shift)] + i);
      keys_out[destination[k]] = v;
    }
  }

  if constexpr (kPairs) {
    // The values follow the same permutation: staged at the same places, written to the same
    // destinations.
    __syncthreads();  // every thread has read its staged keys
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t g = warp_begin + k * 32 + lane;
      if (g < n) staged[place[k]] = values_in[g];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const unsigned i = k * kThreads + threadIdx.x;
      if (i < tile_keys) values_out[destination[k]] = staged[i];
    }
  }
}

template <bool kPairs>
cudaError_t radix_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream) {
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  const std::size_t needed = workspace_bytes_for(n, kPairs);
  if (workspace_bytes < needed || (workspace == nullptr && needed != 0)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;

  const Workspace w = carve(workspace, n, kPairs);
  const unsigned tiles = static_cast<unsigned>(tile_count(n));
  const std::size_t entries = count_entries(n);
  // Pairs: first by value (the value plays the key), then by key: (key, value) order.
  const int passes = kPairs ? 2 * kPasses : kPasses;
  const std::uint32_t* src_keys = keys_in;
  const std::uint32_t* src_values = values_in;
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = (pass % kPasses) * kRadixBits;
    const bool by_value = kPairs && pass < kPasses;
    std::uint32_t* dst_keys = pass % 2 == 0 ? w.keys : keys_out;
    std::uint32_t* dst_values = pass % 2 == 0 ? w.values : values_out;
    const std::uint32_t* sort_src = by_value ? src_values : src_keys;
    std::uint32_t* sort_dst = by_value ? dst_values : dst_keys;
    const std::uint32_t* carry_src = by_value ? src_keys : src_values;
    std::uint32_t* carry_dst = by_value ? dst_keys : dst_values;
    digit_counts<<<tiles, kThreads, 0, stream>>>(sort_src, n, shift, w.counts, tiles);
    if (const cudaError_t status = exclusive_scan_counts(w.counts, entries, w.chunk_sums, stream);
        status != cudaSuccess) {
      return status;
    }
    scatter_kernel<kPairs><<<tiles, kThreads, 0, stream>>>(sort_src, sort_dst, carry_src, carry_dst, n, shift,
                                                           w.counts, tiles);
    if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) return status;
    src_keys = dst_keys;
    src_values = dst_values;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t block_sort(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment_size,
                       cudaStream_t stream) {
  if (segment_size == 0 || segment_size > kMaxSegmentSize) return cudaErrorInvalidValue;
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const unsigned padded = next_power_of_two(segment_size);
  // One thread per comparator pair (at least a warp; padded <= 2048 gives at most 1024 threads).
  const unsigned threads = padded / 2 < 32 ? 32 : padded / 2;
  const std::size_t segments = (n + segment_size - 1) / segment_size;
  bitonic_segments<<<static_cast<unsigned>(segments), threads, 0, stream>>>(in, out, n, segment_size, padded);
  return cudaGetLastError();
}

std::size_t radix_sort_keys_workspace_bytes(std::size_t n) { return workspace_bytes_for(n, false); }
std::size_t radix_sort_pairs_workspace_bytes(std::size_t n) { return workspace_bytes_for(n, true); }

cudaError_t radix_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  return radix_sort<false>(keys_in, keys_out, nullptr, nullptr, n, workspace, workspace_bytes, stream);
}

cudaError_t radix_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                             std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
  return radix_sort<true>(keys_in, keys_out, values_in, values_out, n, workspace, workspace_bytes, stream);
}

}  // namespace LAB_IMPL
