// Fixture: the technique, applied halfway. block_sort is a sound shared-memory network. The radix
// sort counts digits per block and scans the counts, but with 4-bit digits (8 passes), one
// atomicAdd per key on the block's counter in global memory (no shared histogram), a rank found by
// 16 ballots per key, and every key written straight from its register to its place (a warp's
// stores land in up to 16 places: no staging in shared memory). Correct and stable; the timed
// radix cases earn little.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "sort.cuh"

namespace LAB_IMPL {

// ---- block_sort: all compares ascending, first step of each merge mirrored ----

__global__ void bitonic_shared(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment,
                               unsigned padded) {
  __shared__ std::uint32_t s[kMaxSegmentSize];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * segment;
  const unsigned count = n - base < segment ? static_cast<unsigned>(n - base) : segment;
  for (unsigned i = threadIdx.x; i < padded; i += blockDim.x) s[i] = i < count ? in[base + i] : 0xFFFFFFFFu;
  __syncthreads();
  for (unsigned k = 2; k <= padded; k <<= 1) {
    for (unsigned j = k / 2; j > 0; j >>= 1) {
      for (unsigned t = threadIdx.x; t < padded / 2; t += blockDim.x) {
        unsigned i, partner;
        if (j == k / 2) {
          i = (t / j) * k + t % j;
          partner = (t / j) * k + k - 1 - t % j;
        } else {
          i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
          partner = i + j;
        }
        const std::uint32_t x = s[i], y = s[partner];
        if (x > y) {
          s[i] = y;
          s[partner] = x;
        }
      }
      __syncthreads();
    }
  }
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) out[base + i] = s[i];
}

cudaError_t block_sort(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment_size,
                       cudaStream_t stream) {
  if (segment_size == 0 || segment_size > kMaxSegmentSize || n > static_cast<std::size_t>(INT_MAX)) {
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  unsigned padded = 1;
  while (padded < segment_size) padded <<= 1;
  const unsigned threads = padded / 2 < 64 ? 64 : padded / 2;
  const std::size_t segments = (n + segment_size - 1) / segment_size;
  bitonic_shared<<<static_cast<unsigned>(segments), threads, 0, stream>>>(in, out, n, segment_size, padded);
  return cudaGetLastError();
}

// ---- radix sort, 4-bit digits ----

constexpr unsigned kBlock = 256;
constexpr unsigned kDigits = 16;
constexpr unsigned kChunk = 1024;  // counts per block of the scan

std::size_t tiles_for(std::size_t n) { return (n + kBlock - 1) / kBlock; }
std::size_t chunks_for(std::size_t m) { return (m + kChunk - 1) / kChunk; }

__global__ void count_digits(const std::uint32_t* keys, std::size_t n, int shift, unsigned* counts, unsigned tiles) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (g >= n) return;
  const unsigned d = (keys[g] >> shift) & (kDigits - 1);
  atomicAdd(&counts[static_cast<std::size_t>(d) * tiles + blockIdx.x], 1u);
}

// Block-wide inclusive scan of one value per thread (Hillis-Steele), blockDim.x == 1024.
__device__ unsigned block_inclusive(unsigned v, unsigned* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset <<= 1) {
    const unsigned other = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0;
    __syncthreads();
    s[threadIdx.x] += other;
    __syncthreads();
  }
  return s[threadIdx.x];
}

__global__ void chunk_totals(const unsigned* counts, std::size_t m, unsigned* totals) {
  __shared__ unsigned s[kChunk];
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kChunk + threadIdx.x;
  const unsigned total = block_inclusive(g < m ? counts[g] : 0, s);
  if (threadIdx.x == kChunk - 1) totals[blockIdx.x] = total;
}

__global__ void scan_totals(unsigned* totals, unsigned chunks) {
  __shared__ unsigned s[kChunk];
  const unsigned per = (chunks + kChunk - 1) / kChunk;
  const unsigned begin = threadIdx.x * per;
  unsigned sum = 0;
  for (unsigned i = begin; i < begin + per && i < chunks; ++i) sum += totals[i];
  unsigned running = block_inclusive(sum, s) - sum;
  for (unsigned i = begin; i < begin + per && i < chunks; ++i) {
    const unsigned value = totals[i];
    totals[i] = running;
    running += value;
  }
}

__global__ void scan_chunk(unsigned* counts, std::size_t m, const unsigned* offsets) {
  __shared__ unsigned s[kChunk];
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kChunk + threadIdx.x;
  const unsigned v = g < m ? counts[g] : 0;
  const unsigned inclusive = block_inclusive(v, s);
  if (g < m) counts[g] = offsets[blockIdx.x] + inclusive - v;
}

__global__ void scatter(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                        std::uint32_t* values_out, std::size_t n, int shift, const unsigned* offsets, unsigned tiles) {
  __shared__ unsigned warp_counts[kBlock / 32][kDigits];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  const bool valid = g < n;
  const std::uint32_t key = valid ? keys_in[g] : 0;
  const unsigned d = (key >> shift) & (kDigits - 1);
  unsigned rank = 0;
  for (unsigned v = 0; v < kDigits; ++v) {
    const unsigned mask = __ballot_sync(0xFFFFFFFFu, valid && d == v);
    if (d == v) rank = __popc(mask & ((1u << lane) - 1u));
    if (lane == 0) warp_counts[warp][v] = __popc(mask);
  }
  __syncthreads();
  if (!valid) return;
  for (unsigned w = 0; w < warp; ++w) rank += warp_counts[w][d];
  const std::size_t dst = offsets[static_cast<std::size_t>(d) * tiles + blockIdx.x] + rank;
  keys_out[dst] = key;
  if (values_in != nullptr) values_out[dst] = values_in[g];
}

std::size_t workspace_for(std::size_t n, bool pairs) {
  if (n == 0) return 0;
  const std::size_t m = kDigits * tiles_for(n);
  return n * sizeof(std::uint32_t) * (pairs ? 2 : 1) + (m + chunks_for(m)) * sizeof(unsigned);
}

cudaError_t radix_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                       bool pairs, cudaStream_t stream) {
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  const std::size_t needed = workspace_for(n, pairs);
  if (workspace_bytes < needed || (workspace == nullptr && needed != 0)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const unsigned tiles = static_cast<unsigned>(tiles_for(n));
  const std::size_t m = kDigits * static_cast<std::size_t>(tiles);
  const unsigned chunks = static_cast<unsigned>(chunks_for(m));
  auto* tmp_keys = static_cast<std::uint32_t*>(workspace);
  std::uint32_t* tmp_values = pairs ? tmp_keys + n : nullptr;
  auto* counts = reinterpret_cast<unsigned*>(tmp_keys + (pairs ? 2 * n : n));
  unsigned* totals = counts + m;
  const std::uint32_t* src_keys = keys_in;
  const std::uint32_t* src_values = values_in;
  for (int pass = 0; pass < 8; ++pass) {  // 8 passes: the last one writes keys_out
    std::uint32_t* dst_keys = pass % 2 == 0 ? tmp_keys : keys_out;
    std::uint32_t* dst_values = pass % 2 == 0 ? tmp_values : values_out;
    if (const cudaError_t status = cudaMemsetAsync(counts, 0, m * sizeof(unsigned), stream); status != cudaSuccess) {
      return status;
    }
    count_digits<<<tiles, kBlock, 0, stream>>>(src_keys, n, 4 * pass, counts, tiles);
    chunk_totals<<<chunks, kChunk, 0, stream>>>(counts, m, totals);
    scan_totals<<<1, kChunk, 0, stream>>>(totals, chunks);
    scan_chunk<<<chunks, kChunk, 0, stream>>>(counts, m, totals);
    scatter<<<tiles, kBlock, 0, stream>>>(src_keys, dst_keys, src_values, dst_values, n, 4 * pass, counts, tiles);
    src_keys = dst_keys;
    src_values = dst_values;
  }
  return cudaGetLastError();
}

std::size_t radix_sort_keys_workspace_bytes(std::size_t n) { return workspace_for(n, false); }
std::size_t radix_sort_pairs_workspace_bytes(std::size_t n) { return workspace_for(n, true); }

cudaError_t radix_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  return radix_sort(keys_in, keys_out, nullptr, nullptr, n, workspace, workspace_bytes, false, stream);
}

cudaError_t radix_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                             std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
  return radix_sort(keys_in, keys_out, values_in, values_out, n, workspace, workspace_bytes, true, stream);
}

}  // namespace LAB_IMPL
