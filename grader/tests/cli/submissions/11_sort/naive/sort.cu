// Fixture: the first thing that works. The bitonic network runs in global memory, one kernel
// launch per step (all compares ascending, the first step of each merge mirrored, so a short
// segment needs no padding); the radix sort splits on one bit at a time: 32 passes of "count the
// zeros per 256-key block, scan the block counts in one block, split stably". Correct everywhere,
// but it moves many times the bytes of the reference: no timed points.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "sort.cuh"

namespace LAB_IMPL {

constexpr unsigned kBlock = 256;

__global__ void copy_kernel(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// One step of the network on every segment: pair t of segment s.
__global__ void bitonic_step(std::uint32_t* a, std::size_t n, unsigned segment, unsigned half_padded,
                             std::size_t segments, unsigned k, unsigned j, bool mirrored) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= segments * half_padded) return;
  const std::size_t s = g / half_padded;
  const unsigned t = static_cast<unsigned>(g % half_padded);
  unsigned i, partner;
  if (mirrored) {
    const unsigned half = k / 2;
    i = (t / half) * k + t % half;
    partner = (t / half) * k + k - 1 - t % half;
  } else {
    i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
    partner = i + j;
  }
  const std::size_t base = s * segment;
  const std::size_t count = n - base < segment ? n - base : segment;
  if (partner >= count) return;  // past the end: a virtual 0xFFFFFFFF that never moves
  const std::uint32_t x = a[base + i], y = a[base + partner];
  if (x > y) {
    a[base + i] = y;
    a[base + partner] = x;
  }
}

cudaError_t block_sort(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment_size,
                       cudaStream_t stream) {
  if (segment_size == 0 || segment_size > kMaxSegmentSize || n > static_cast<std::size_t>(INT_MAX)) {
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  copy_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(in, out, n);
  unsigned padded = 1;
  while (padded < segment_size) padded <<= 1;
  const std::size_t segments = (n + segment_size - 1) / segment_size;
  const std::size_t pairs = segments * (padded / 2);
  const unsigned blocks = static_cast<unsigned>((pairs + kBlock - 1) / kBlock);
  for (unsigned k = 2; k <= padded; k <<= 1) {
    bitonic_step<<<blocks, kBlock, 0, stream>>>(out, n, segment_size, padded / 2, segments, k, 0, true);
    for (unsigned j = k / 4; j > 0; j >>= 1) {
      bitonic_step<<<blocks, kBlock, 0, stream>>>(out, n, segment_size, padded / 2, segments, k, j, false);
    }
  }
  return cudaGetLastError();
}

// ---- radix sort, one bit per pass ----

std::size_t blocks_for(std::size_t n) { return (n + kBlock - 1) / kBlock; }

__global__ void count_zeros(const std::uint32_t* keys, std::size_t n, int bit, unsigned* zeros) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  const int zero = g < n && ((keys[g] >> bit) & 1u) == 0;
  const int count = __syncthreads_count(zero);
  if (threadIdx.x == 0) zeros[blockIdx.x] = static_cast<unsigned>(count);
}

// One block of 1024 threads: exclusive scan of zeros[0 .. blocks), total in zeros[blocks].
__global__ void scan_zeros(unsigned* zeros, unsigned blocks) {
  __shared__ unsigned sums[1024];
  const unsigned per = (blocks + 1023) / 1024;
  const unsigned begin = threadIdx.x * per;
  unsigned sum = 0;
  for (unsigned i = begin; i < begin + per && i < blocks; ++i) sum += zeros[i];
  sums[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned offset = 1; offset < 1024; offset <<= 1) {
    const unsigned other = threadIdx.x >= offset ? sums[threadIdx.x - offset] : 0;
    __syncthreads();
    sums[threadIdx.x] += other;
    __syncthreads();
  }
  unsigned running = sums[threadIdx.x] - sum;
  for (unsigned i = begin; i < begin + per && i < blocks; ++i) {
    const unsigned value = zeros[i];
    zeros[i] = running;
    running += value;
  }
  if (threadIdx.x == 1023) zeros[blocks] = sums[1023];
}

__global__ void split(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                      std::uint32_t* values_out, std::size_t n, int bit, const unsigned* zeros, unsigned blocks) {
  __shared__ unsigned scan[kBlock];
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  const bool valid = g < n;
  const std::uint32_t key = valid ? keys_in[g] : 0;
  const unsigned zero = valid && ((key >> bit) & 1u) == 0 ? 1 : 0;
  scan[threadIdx.x] = zero;
  __syncthreads();
  for (unsigned offset = 1; offset < kBlock; offset <<= 1) {
    const unsigned other = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0;
    __syncthreads();
    scan[threadIdx.x] += other;
    __syncthreads();
  }
  if (!valid) return;
  const unsigned zeros_before_me = scan[threadIdx.x] - zero;  // in this block
  const unsigned zeros_before_block = zeros[blockIdx.x];
  std::size_t dst;
  if (zero) {
    dst = zeros_before_block + zeros_before_me;
  } else {
    const std::size_t ones_before_block = static_cast<std::size_t>(blockIdx.x) * kBlock - zeros_before_block;
    dst = zeros[blocks] + ones_before_block + (threadIdx.x - zeros_before_me);
  }
  keys_out[dst] = key;
  if (values_in != nullptr) values_out[dst] = values_in[g];
}

std::size_t workspace_for(std::size_t n, bool pairs) {
  if (n == 0) return 0;
  return n * sizeof(std::uint32_t) * (pairs ? 2 : 1) + (blocks_for(n) + 1) * sizeof(unsigned);
}

cudaError_t radix_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                       cudaStream_t stream) {
  const bool pairs = values_in != nullptr || values_out != nullptr;
  if (n > static_cast<std::size_t>(INT_MAX)) return cudaErrorInvalidValue;
  if (workspace_bytes < workspace_for(n, pairs) || (workspace == nullptr && workspace_for(n, pairs) != 0)) {
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  auto* tmp_keys = static_cast<std::uint32_t*>(workspace);
  std::uint32_t* tmp_values = pairs ? tmp_keys + n : nullptr;
  auto* zeros = reinterpret_cast<unsigned*>(tmp_keys + (pairs ? 2 * n : n));
  const unsigned blocks = static_cast<unsigned>(blocks_for(n));
  const std::uint32_t* src_keys = keys_in;
  const std::uint32_t* src_values = values_in;
  for (int bit = 0; bit < 32; ++bit) {  // 32 passes: the last one writes keys_out
    std::uint32_t* dst_keys = bit % 2 == 0 ? tmp_keys : keys_out;
    std::uint32_t* dst_values = bit % 2 == 0 ? tmp_values : values_out;
    count_zeros<<<blocks, kBlock, 0, stream>>>(src_keys, n, bit, zeros);
    scan_zeros<<<1, 1024, 0, stream>>>(zeros, blocks);
    split<<<blocks, kBlock, 0, stream>>>(src_keys, dst_keys, src_values, dst_values, n, bit, zeros, blocks);
    src_keys = dst_keys;
    src_values = dst_values;
  }
  return cudaGetLastError();
}

std::size_t radix_sort_keys_workspace_bytes(std::size_t n) { return workspace_for(n, false); }
std::size_t radix_sort_pairs_workspace_bytes(std::size_t n) { return workspace_for(n, true); }

cudaError_t radix_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  return radix_sort(keys_in, keys_out, nullptr, nullptr, n, workspace, workspace_bytes, stream);
}

cudaError_t radix_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                             std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
  return radix_sort(keys_in, keys_out, values_in, values_out, n, workspace, workspace_bytes, stream);
}

}  // namespace LAB_IMPL
