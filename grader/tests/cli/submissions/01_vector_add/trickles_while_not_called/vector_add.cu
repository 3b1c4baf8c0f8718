// Adversarial (the judge/runner split: work started before the timed cases that acts only between
// this code's own calls; issue 27). A lone grade's judge keeps the student's runner from the
// correctness tests into the timed cases when labgrade takes the GPU alone at once, so a thread
// started by the first call of any test is still there when the reference is timed. Its kernels
// are correct but move 1.8x the bytes the reference does (as trickles_into_the_reference's). On
// its first call it starts one thread that, for two minutes, puts a 0.1 ms burst on every SM each
// 0.5 ms whenever none of its calls has run for 2 ms: while the judge prepares, times and checks
// the reference's samples, never inside its own calls.
//
// The judge's device-idle checks count against the student wherever they are made (the ones
// around the reference's samples included), so both timed cases should fail, whether the runner
// lived on from the correctness tests or was started again for the timed cases. Fair grade: at
// most what the same kernels earn without the thread (kTrickle = false; 84.5 on the H100 for
// trickles_into_the_reference's kernels), 80 when caught.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr bool kTrickle = true;
constexpr int kThreads = 256;

using Clock = std::chrono::steady_clock;
std::atomic<long long> last_call_ns{0};

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

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

// Once per process, on its first call; bursts only in the gaps between this code's calls.
void start_trickling_between_calls() {
  static std::once_flag once;
  last_call_ns = now_ns();
  if (!kTrickle) return;
  std::call_once(once, [] {
    std::thread([] {
      int device = 0, sms = 132;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      const auto end = Clock::now() + std::chrono::minutes(2);
      while (Clock::now() < end) {
        if (now_ns() - last_call_ns.load() > 2'000'000) {
          occupy_gpu<<<sms * 4, 256, 0, stream>>>(100'000ull);
          std::this_thread::sleep_for(std::chrono::microseconds(500));
        } else {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      }
    }).detach();
  });
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  start_trickling_between_calls();
  if (n == 0) return cudaSuccess;
  add<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, c);
  last_call_ns = now_ns();
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  start_trickling_between_calls();
  if (n == 0) return cudaSuccess;
  axpy<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, y);
  last_call_ns = now_ns();
  return cudaGetLastError();
}

}  // namespace student
