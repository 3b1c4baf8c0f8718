// Adversarial (the judge/runner split: a child that slows the GPU for whatever runs after it;
// issue 27). Its kernels are correct but move 1.8x the bytes the reference does (as
// trickles_into_the_reference's), so that any time it took from the reference would show as a
// better ratio than those kernels earn. After every timed-size call, a thread of its runner puts a
// kernel on every SM for 3 ms, starting 50 us after the call: the reference, timed after this
// code's sample in a runner of its own, would share the GPU with it and look slower.
//
// What catches it depends on where the 3 ms land. When each call of a sample is its own round
// trip, the last call's kernel runs after the runner has answered and the judge's device-idle
// check after the sample finds it (both timed cases failed, 80). When a sample's calls are
// pipelined (lab 01 since 2026-11-27), the kernels start while the sample's later calls still run,
// so they slow this code's own window, or the judge's untimed checks of it; the check before the
// reference's window (after its inputs are made, milliseconds later) finds the GPU idle or fails
// the case. Fair grade: at most what the same kernels earn without the 3 ms kernels
// (kLinger = false; 84.5 on the H100, as trickles_into_the_reference's without its bursts), 80
// when caught.
#include <chrono>
#include <cstddef>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr bool kLinger = true;
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

// After the runner has answered a timed-size call (50 us from now), every SM busy for 3 ms.
void linger() {
  if (!kLinger) return;
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    occupy_gpu<<<132 * 4, 256, 0, stream>>>(3'000'000ull);
  }).detach();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  add<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, c);
  if (n >= (std::size_t{1} << 26)) linger();
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  axpy<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, y);
  if (n >= (std::size_t{1} << 26)) linger();
  return cudaGetLastError();
}

}  // namespace student
