// Lab 06 "typical student" fixture: correct for every size, but without the lab's technique.
// Each block of 1024 threads scans 1024 elements with Hillis-Steele (log2(1024) = 10 steps over a
// double-buffered shared array, O(n log n) additions), writes its sum, the block sums are scanned
// the same way one level up (recursively), and a last pass adds each block's offset. The input is
// read twice and the output written twice, plus the extra work; compaction adds a flags array, a
// scan of it and a scatter as separate kernels.
#include <cstddef>

#include "scan.cuh"

namespace LAB_IMPL {

constexpr int kBlock = 1024;

std::size_t blocks_for(std::size_t n) { return (n + kBlock - 1) / kBlock; }

// Ints of scratch the recursion needs: one sum per block, then the same for the sums.
std::size_t scan_scratch_ints(std::size_t n) {
  const std::size_t blocks = blocks_for(n);
  return blocks <= 1 ? blocks : blocks + scan_scratch_ints(blocks);
}

// Inclusive scan of each 1024-element chunk; in may equal out (each thread reads before writing).
__global__ void hillis_steele_blocks(const int* in, int* out, int* block_sums, std::size_t n) {
  __shared__ int buffer[2][kBlock];
  const int tid = threadIdx.x;
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + tid;
  int current = 0;
  buffer[current][tid] = g < n ? in[g] : 0;
  __syncthreads();
  for (int offset = 1; offset < kBlock; offset <<= 1) {
    const int previous = current;
    current = 1 - current;
    int value = buffer[previous][tid];
    if (tid >= offset) value += buffer[previous][tid - offset];
    buffer[current][tid] = value;
    __syncthreads();
  }
  if (g < n) out[g] = buffer[current][tid];
  if (tid == kBlock - 1) block_sums[blockIdx.x] = buffer[current][tid];
}

// out[i] += sum of all earlier blocks; for an exclusive result also subtract in[i].
__global__ void add_block_offsets(int* out, const int* scanned_sums, const int* in, std::size_t n, bool exclusive) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (g >= n) return;
  int value = out[g];
  if (scanned_sums && blockIdx.x > 0) value += scanned_sums[blockIdx.x - 1];
  if (exclusive) value -= in[g];
  out[g] = value;
}

void inclusive_levels(const int* in, int* out, std::size_t n, int* scratch, cudaStream_t stream) {
  const std::size_t blocks = blocks_for(n);
  hillis_steele_blocks<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(in, out, scratch, n);
  if (blocks > 1) {
    inclusive_levels(scratch, scratch, blocks, scratch + blocks, stream);
    add_block_offsets<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(out, scratch, nullptr, n, false);
  }
}

cudaError_t scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                 cudaStream_t stream, bool exclusive) {
  if (n > 2147483647u || workspace_bytes < scan_scratch_ints(n) * sizeof(int)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  int* scratch = static_cast<int*>(workspace);
  inclusive_levels(in, out, n, scratch, stream);
  if (exclusive) {
    add_block_offsets<<<static_cast<unsigned>(blocks_for(n)), kBlock, 0, stream>>>(out, nullptr, in, n, true);
  }
  return cudaGetLastError();
}

std::size_t scan_workspace_bytes(std::size_t n) { return scan_scratch_ints(n) * sizeof(int); }

cudaError_t inclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  return scan(in, out, n, workspace, workspace_bytes, stream, false);
}

cudaError_t exclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  return scan(in, out, n, workspace, workspace_bytes, stream, true);
}

__global__ void keep_flags(const int* in, int* flags, std::size_t n, int threshold) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < n) flags[g] = in[g] > threshold ? 1 : 0;
}

// positions = inclusive scan of the flags: a kept in[i] goes to positions[i] - 1.
__global__ void scatter_kept(const int* in, const int* positions, int* out, int* count, std::size_t n,
                             int threshold) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= n) return;
  if (in[g] > threshold) out[positions[g] - 1] = in[g];
  if (g == n - 1) *count = positions[g];
}

std::size_t compact_workspace_bytes(std::size_t n) { return n * sizeof(int) + scan_workspace_bytes(n); }

cudaError_t compact(const int* in, int* out, int* count, std::size_t n, int threshold, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream) {
  if (n > 2147483647u || workspace_bytes < compact_workspace_bytes(n)) return cudaErrorInvalidValue;
  if (n == 0) {
    if (const cudaError_t status = cudaMemsetAsync(count, 0, sizeof(int), stream); status != cudaSuccess) return status;
    return cudaGetLastError();
  }
  int* positions = static_cast<int*>(workspace);
  const unsigned blocks = static_cast<unsigned>(blocks_for(n));
  keep_flags<<<blocks, kBlock, 0, stream>>>(in, positions, n, threshold);
  inclusive_levels(positions, positions, n, positions + n, stream);
  scatter_kept<<<blocks, kBlock, 0, stream>>>(in, positions, out, count, n, threshold);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
