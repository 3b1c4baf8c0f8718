// Fairness (gated timing windows): a submission that chooses its instrument. At entry each call
// asks whether the stream it was given is idle; in a gated timed window it is not (the judge's
// gate holds it), and the call then waits for it, which it cannot do while held: the judge gives
// the gate up for the case and times its windows from request to reply, which carry each runner
// process's own host path (+-1-2% a pair of processes). Elsewhere it never waits. Its vector_add
// moves half as many bytes again as it must (the whole array, then its first half once more),
// so its ratio (about 1.5x) earns partial credit and would earn more were it 15% better: where
// the judge keeps the best of several runner pairs, that case would be measured again by new
// pairs and the student would keep the luckiest. Fair grade: correctness in full, saxpy in full,
// vector_add its partial credit from the pairs as measured, the last one kept, never the best of
// them; the report names the fallback.
#include <cstdint>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kBlocks = 132 * 8;

__global__ void add_plain(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void saxpy_plain(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

// Work queued ahead of the call means the judge is holding the stream: wait it out, so the call
// cannot return while held.
cudaError_t wait_if_held(cudaStream_t stream) {
  const cudaError_t idle = cudaStreamQuery(stream);
  if (idle == cudaErrorNotReady) return cudaStreamSynchronize(stream);
  return idle;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (const cudaError_t waited = wait_if_held(stream); waited != cudaSuccess) return waited;
  add_plain<<<kBlocks, kThreads, 0, stream>>>(a, b, c, n);
  if (n > 1) add_plain<<<kBlocks, kThreads, 0, stream>>>(a, b, c, n / 2);  // the same sums again
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (const cudaError_t waited = wait_if_held(stream); waited != cudaSuccess) return waited;
  saxpy_plain<<<kBlocks, kThreads, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
