// Lab 11 reference: a bitonic sort of one segment per thread block in shared memory, and an LSB
// radix sort of 32-bit keys (and key-value pairs) built on a scan: four passes of 8-bit digits,
// each one "count, scan, scatter".
//
// Radix sort, one pass (digit = 8 bits of the key, from the least significant up):
//   1. digit_counts: the input is cut into tiles of kTileKeys keys, one block each; every block
//      counts how many of its keys have each of the 256 digit values and writes the 256 counts
//      to counts[digit * tiles + tile] (digit-major: all tiles of digit 0, then of digit 1, ...).
//   2. An exclusive scan of the whole counts array (lab 06's plan: chunk sums, one block scans
//      them, chunks scanned again with their offset). Because of the digit-major layout,
//      counts[d * tiles + t] is now exactly where tile t's first key with digit d goes: after
//      every key with a smaller digit, and after the keys with digit d of the tiles before t.
//   3. scatter: every block ranks its keys by digit, stably (a key's rank is the number of keys
//      before it in the tile with the same digit), places them in shared memory in digit order,
//      and writes each run of equal digits to its place in the output: consecutive threads write
//      consecutive addresses, so the scattered writes are coalesced runs, not single words.
// Each pass is stable, so after pass p the keys are ordered by their low 8(p+1) bits; after four
// passes they are sorted. Passes ping-pong between the output and a buffer in the workspace:
// in -> tmp -> out -> tmp -> out, so the input is never written and the last pass lands in out.
//
// Ranking within a tile without atomics: each warp handles a contiguous 512-key part of the tile,
// 32 keys (one per lane, in order) at a time. Eight ballots, one per digit bit, give each lane the
// lanes holding the same digit ("peers"); the lane's rank among them is the number of peers in
// lower lanes, and the lowest peer adds their number to the warp's private counter for that
// digit. Per-warp counters, scanned over warps and then over digits, give every key its place in
// the tile. Keys are visited in index order, so equal digits keep their order: the pass is stable.
// (__match_any_sync computes the same peer mask in one call, but it is a slow instruction; the
// eight ballots are what fast GPU radix sorts use.)
//
// Cost at 2^26 keys: every pass reads the keys twice and writes them once (3 x 256 MiB) plus
// 16 MiB of counts; values add one read and one write of 256 MiB per pass. What keeps it near that
// bound: 16 keys per thread (loads in flight, the per-tile work shared by 4096 keys), cheap ranking
// (ballots, no block-wide scan per key), 32-bit indices and few registers in the scatter (4 blocks
// of 256 threads per SM), and writes that leave the block in runs of consecutive addresses.
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

// The lanes of the warp whose digit equals this lane's digit (this lane included): the result of
// __match_any_sync(kFullMask, digit), built from one ballot per digit bit. For each bit, the
// ballot says which lanes have it set; keep those that agree with this lane on it. Every lane of
// the warp must call it (the ballots take all 32 lanes).
__device__ __forceinline__ unsigned lanes_with_same_digit(unsigned digit) {
  unsigned peers = kFullMask;
#pragma unroll
  for (int bit = 0; bit < kRadixBits; ++bit) {
    const bool set = ((digit >> bit) & 1u) != 0;
    const unsigned lanes_set = __ballot_sync(kFullMask, set);
    peers &= set ? lanes_set : ~lanes_set;
  }
  return peers;
}

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

// counts[d * tiles + tile] = number of keys of this tile whose digit is d. (n <= INT_MAX, so every
// key index fits in 32 bits, also the ones past the end of the last tile.)
__global__ void __launch_bounds__(kThreads) digit_counts(const std::uint32_t* __restrict__ keys, unsigned n, int shift,
                                                         unsigned* __restrict__ counts, unsigned tiles) {
  // One histogram per warp, counted with shared-memory atomics: only the 32 lanes of one warp
  // ever compete for a counter, and random digits rarely collide (a single histogram for the
  // whole block would make all 256 threads compete).
  __shared__ unsigned warp_hist[kWarps][kRadix];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&warp_hist[0][0])[i] = 0;
  __syncthreads();

  const unsigned warp_begin = blockIdx.x * kTileKeys + warp * kWarpKeys;
  std::uint32_t key[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {  // all loads first: 16 in flight per lane, coalesced
    const unsigned g = warp_begin + k * 32 + lane;
    key[k] = g < n ? keys[g] : 0;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (warp_begin + k * 32 + lane < n) atomicAdd(&warp_hist[warp][digit_of(key[k], shift)], 1u);
  }
  __syncthreads();

  unsigned total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) total += warp_hist[w][threadIdx.x];
  counts[threadIdx.x * tiles + blockIdx.x] = total;  // < 256 * tiles <= 2^27: fits
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

// 4 blocks of 256 threads per SM: at most 64 registers per thread.
constexpr int kScatterBlocksPerSm = 4;

template <bool kPairs>
__global__ void __launch_bounds__(kThreads, kScatterBlocksPerSm)
    scatter_kernel(const std::uint32_t* __restrict__ keys_in, std::uint32_t* __restrict__ keys_out,
                   const std::uint32_t* __restrict__ values_in, std::uint32_t* __restrict__ values_out, unsigned n,
                   int shift, const unsigned* __restrict__ offsets, unsigned tiles) {
  __shared__ unsigned warp_hist[kWarps][kRadix];  // per-warp digit counts, then their offsets in the tile
  __shared__ unsigned digit_start[kRadix];        // where digit d's run starts in the tile
  __shared__ unsigned run_base[kRadix];           // output index of the run's start, minus digit_start
  __shared__ std::uint32_t staged_keys[kTileKeys];                // the tile's keys in digit order
  __shared__ std::uint32_t staged_values[kPairs ? kTileKeys : 1];  // and their values (pairs only)

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const unsigned warp_begin = blockIdx.x * kTileKeys + warp * kWarpKeys;
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&warp_hist[0][0])[i] = 0;
  const unsigned run_start = offsets[threadIdx.x * tiles + blockIdx.x];
  __syncthreads();

  std::uint32_t key[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {  // all loads first: 16 in flight per lane, coalesced
    const unsigned g = warp_begin + k * 32 + lane;
    key[k] = g < n ? keys_in[g] : 0;
  }

  // Rank each key among the keys of its warp with the same digit, in index order: `place` is the
  // number of keys with this digit before it in the warp's part of the tile.
  unsigned place[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool valid = warp_begin + k * 32 + lane < n;
    const unsigned digit = digit_of(key[k], shift);
    const unsigned peers = lanes_with_same_digit(digit) & __ballot_sync(kFullMask, valid);  // only real keys
    const unsigned below = __popc(peers & lanes_below(lane));
    const unsigned before = valid ? warp_hist[warp][digit] : 0;
    __syncwarp();  // every lane has read the counter before its leader moves it on
    if (valid && below == 0) warp_hist[warp][digit] = before + __popc(peers);
    __syncwarp();  // the next key's leader (maybe another lane) sees the new count
    place[k] = before + below;
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

  // The tile in digit order in shared memory: key k goes to its digit's run start in the tile,
  // plus the keys of that digit in earlier warps, plus its rank in its own warp.
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (warp_begin + k * 32 + lane < n) {
      const unsigned digit = digit_of(key[k], shift);
      place[k] += digit_start[digit] + warp_hist[warp][digit];
      staged_keys[place[k]] = key[k];
    }
  }
  if constexpr (kPairs) {
    // The values follow the same permutation: loaded now (16 in flight), staged at the same places.
    std::uint32_t value[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const unsigned g = warp_begin + k * 32 + lane;
      value[k] = g < n ? values_in[g] : 0;
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (warp_begin + k * 32 + lane < n) staged_values[place[k]] = value[k];
    }
  }
  __syncthreads();

  // Consecutive threads write consecutive entries of the staged tile; within a run of one digit
  // those are consecutive output addresses. The destination comes from the staged key's digit,
  // so no per-key state has to survive in registers until here.
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const unsigned i = k * kThreads + threadIdx.x;
    if (i < tile_keys) {
      const std::uint32_t v = staged_keys[i];
      const unsigned destination = run_base[digit_of(v, shift)] + i;
      keys_out[destination] = v;
      if constexpr (kPairs) values_out[destination] = staged_values[i];
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
  const auto n32 = static_cast<unsigned>(n);  // n <= INT_MAX: keys are indexed with 32 bits
  const std::size_t entries = count_entries(n);
  // Pass p reads src and writes dst: in -> tmp -> out -> tmp -> out.
  const std::uint32_t* src_keys = keys_in;
  const std::uint32_t* src_values = values_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kRadixBits;
    std::uint32_t* dst_keys = pass % 2 == 0 ? w.keys : keys_out;
    std::uint32_t* dst_values = pass % 2 == 0 ? w.values : values_out;
    // Every count is written by digit_counts, so the workspace needs no clearing.
    digit_counts<<<tiles, kThreads, 0, stream>>>(src_keys, n32, shift, w.counts, tiles);
    if (const cudaError_t status = exclusive_scan_counts(w.counts, entries, w.chunk_sums, stream);
        status != cudaSuccess) {
      return status;
    }
    scatter_kernel<kPairs><<<tiles, kThreads, 0, stream>>>(src_keys, dst_keys, src_values, dst_values, n32, shift,
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
