// Fixture: a student who gives each stream exactly one chunk (n / stream_count elements). The
// stages of different chunks do overlap, but with 4 chunks the first chunk's copy in and the last
// one's copy out, which nothing overlaps, are a quarter of a copy each: partly overlapped.
#include "streams.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kThreadsPerBlock = 256;

// One element of the transform (streams.cuh says what it computes).
__device__ float signed_square_root(float x, int rounds) {
  if (x == 0.0f) return x;  // 0 and -0 map to themselves (Heron's step would divide 0 by 0)
  const float a = fabsf(x);
  float y = 1.0f;
  for (int step = 0; step < rounds; ++step) y = 0.5f * (y + a / y);
  return copysignf(y, x);
}

// One thread per element, a grid-stride loop so any n fits in the grid.
__global__ void transform_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int rounds) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = signed_square_root(in[i], rounds);
  }
}

}  // namespace

cudaError_t transform(const float* in, float* out, std::size_t n, int rounds, cudaStream_t stream) {
  if (n > kMaxElements || rounds < 1 || rounds > kMaxRounds) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const std::size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;  // at most 2^18
  transform_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(in, out, n, rounds);
  return cudaGetLastError();
}

cudaError_t process_serial(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                           int rounds, cudaStream_t stream) {
  if (n > kMaxElements || rounds < 1 || rounds > kMaxRounds) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  cudaError_t status = cudaMemcpyAsync(dev_in, host_in, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  if (status != cudaSuccess) return status;
  status = transform(dev_in, dev_out, n, rounds, stream);
  if (status != cudaSuccess) return status;
  return cudaMemcpyAsync(host_out, dev_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
}

// The three stages of elements [begin, begin + count) on one stream.
static cudaError_t queue_chunk(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t begin,
                               std::size_t count, int rounds, cudaStream_t stream) {
  cudaError_t status = cudaMemcpyAsync(dev_in + begin, host_in + begin, count * sizeof(float), cudaMemcpyHostToDevice,
                                       stream);
  if (status != cudaSuccess) return status;
  status = transform(dev_in + begin, dev_out + begin, count, rounds, stream);
  if (status != cudaSuccess) return status;
  return cudaMemcpyAsync(host_out + begin, dev_out + begin, count * sizeof(float), cudaMemcpyDeviceToHost, stream);
}

cudaError_t process_pipelined(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                              int rounds, const cudaStream_t* streams, int stream_count) {
  if (n > kMaxElements || rounds < 1 || rounds > kMaxRounds || streams == nullptr || stream_count < 1 ||
      stream_count > kMaxStreams) {
    return cudaErrorInvalidValue;
  }
  const std::size_t chunk = (n + stream_count - 1) / stream_count;
  for (int c = 0; c < stream_count; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * chunk;
    if (begin >= n) break;
    const std::size_t count = n - begin < chunk ? n - begin : chunk;
    const cudaError_t status = queue_chunk(host_in, host_out, dev_in, dev_out, begin, count, rounds, streams[c]);
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

}  // namespace LAB_IMPL
