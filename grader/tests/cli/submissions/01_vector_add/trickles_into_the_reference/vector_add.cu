// Adversarial (the judge/runner split: a child that slows the GPU for whatever runs after it, a
// variant of slows_the_gpu_after that is never busy for long; issue 27). Its kernels are correct
// but move 1.8x the bytes the reference does (as spins_beside_the_reference's). After each timed
// call has returned, a thread of its runner trickles short bursts onto the GPU for 40 ms: 0.1 ms
// on every SM each 0.5 ms, so that some land in the reference's timed window (the GPU time-slices
// the two contexts) and most of the judge's device-idle checks find the GPU idle.
//
// Every such check counts against the student wherever it is made (the ones around the
// reference's sample included), and with bursts on the GPU much of the time many of them find
// one: both timed cases should fail. Fair grade: at most what the same kernels earn without the bursts (kTrickle = false;
// 84.5 on the H100, as spins_beside_the_reference's without spinners), 80 when caught.
#include <chrono>
#include <cstddef>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr bool kTrickle = true;
constexpr int kThreads = 256;

int blocks_for(std::size_t items) {
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t needed = (items + kThreads - 1) / kThreads;
  const std::size_t full = static_cast<std::size_t>(sms) * 8;
  return static_cast<int>(needed < full ? (needed > 0 ? needed : 1) : full);
}

__global__ void add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void axpy(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

// Reads p[0, n), q[0, n) and p[0, n * 2 / 5) again; writes only if the sum is a value it never takes.
__global__ void wasted_reads(const float* p, const float* q, std::size_t n, float* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  float sum = 0;
  for (std::size_t i = first; i < n; i += stride) sum += p[i] + q[i];
  for (std::size_t i = first; i < n * 2 / 5; i += stride) sum += p[i];
  if (sum == 1.0e30f) *sink = sum;
}

__global__ void occupy_gpu(unsigned long long nanoseconds) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

// After a timed-size call has returned: for the next 40 ms, a 0.1 ms burst on every SM each
// 0.5 ms, from a thread of its own (one per call: a sample's eight calls start eight of them,
// whose bursts also slow this code's own later calls), landing while the judge checks the sample
// and while the reference's sample is prepared, timed and checked.
void trickle() {
  if (!kTrickle) return;
  std::thread([] {
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    for (int burst = 0; burst < 80; ++burst) {
      occupy_gpu<<<132 * 4, 256, 0, stream>>>(100'000ull);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }).detach();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  add<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, c);
  if (n >= (std::size_t{1} << 26)) trickle();
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  axpy<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, y);
  if (n >= (std::size_t{1} << 26)) trickle();
  return cudaGetLastError();
}

}  // namespace student
