// Lab 09 reference: the serial version, and a pipeline of chunks spread round-robin over the
// streams given. The kernel is the handout's, unchanged.
//
// Chunk size: every chunk costs a fixed few microseconds per stage (a DMA set-up, a kernel
// launch and its tail), and the pipeline's fill and drain (the first chunk's copy in, the last
// chunk's copy out, which nothing overlaps) cost one chunk's copy each. With C chunks the
// end-to-end time is about the slowest stage x (1 + 2 / (C x slowest / copy)) plus C times the
// per-chunk cost: 32 chunks bring the fill and drain under 5% of a copy-bound pipeline, and at
// 4 MiB a chunk still moves ~75 us of data per copy at 55 GB/s, far above the per-chunk cost.
// Small arrays use fewer, never smaller than 1 MiB, chunks.
#include <algorithm>

#include "streams.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kTargetChunks = 32;
constexpr std::size_t kMinChunkElements = std::size_t{1} << 18;  // 1 MiB of floats

__device__ float signed_square_root(float x, int rounds) {
  if (x == 0.0f) return x;  // 0 and -0 map to themselves (Heron's step would divide 0 by 0)
  const float a = fabsf(x);
  float y = 1.0f;
  for (int step = 0; step < rounds; ++step) y = 0.5f * (y + a / y);
  return copysignf(y, x);
}

__global__ void transform_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int rounds) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = signed_square_root(in[i], rounds);
  }
}

bool valid(std::size_t n, int rounds) { return n <= kMaxElements && rounds >= 1 && rounds <= kMaxRounds; }

// The three stages for elements [begin, begin + count) on one stream.
cudaError_t queue_chunk(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t begin,
                        std::size_t count, int rounds, cudaStream_t stream) {
  const std::size_t bytes = count * sizeof(float);
  cudaError_t status = cudaMemcpyAsync(dev_in + begin, host_in + begin, bytes, cudaMemcpyHostToDevice, stream);
  if (status != cudaSuccess) return status;
  status = transform(dev_in + begin, dev_out + begin, count, rounds, stream);
  if (status != cudaSuccess) return status;
  return cudaMemcpyAsync(host_out + begin, dev_out + begin, bytes, cudaMemcpyDeviceToHost, stream);
}

}  // namespace

cudaError_t transform(const float* in, float* out, std::size_t n, int rounds, cudaStream_t stream) {
  if (!valid(n, rounds)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const std::size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;  // at most 2^18
  transform_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(in, out, n, rounds);
  return cudaGetLastError();
}

cudaError_t process_serial(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                           int rounds, cudaStream_t stream) {
  if (!valid(n, rounds)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  return queue_chunk(host_in, host_out, dev_in, dev_out, 0, n, rounds, stream);
}

cudaError_t process_pipelined(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                              int rounds, const cudaStream_t* streams, int stream_count) {
  if (!valid(n, rounds) || streams == nullptr || stream_count < 1 || stream_count > kMaxStreams) {
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  const std::size_t chunk = std::max(kMinChunkElements, (n + kTargetChunks - 1) / kTargetChunks);
  int next = 0;  // round-robin: consecutive chunks on different streams
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    const cudaError_t status = queue_chunk(host_in, host_out, dev_in, dev_out, begin, std::min(chunk, n - begin),
                                           rounds, streams[next]);
    if (status != cudaSuccess) return status;
    next = (next + 1) % stream_count;
  }
  return cudaSuccess;
}

}  // namespace LAB_IMPL
