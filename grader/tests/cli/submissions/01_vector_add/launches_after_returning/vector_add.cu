// Adversarial (the judge/runner split: a call that returns before its work is even queued;
// issue 27). In a pipelined window (lab 01's timed cases: every call but the last is answered as
// soon as it returns, and the last once the runner's device is idle) a kernel launched from
// another thread a little after its call returned may be queued after the runner began waiting
// for the device: the runner then answers before that kernel has run, and the judge's clock
// would stop one call early. Its kernels are correct but move 1.8x the bytes the reference does
// (as trickles_into_the_reference's), so a window cut short would show as a better ratio than
// they earn. A call that comes within 0.2 ms of the one before (the calls of a window) returns at
// once and a thread of its own launches its kernels 30 us later; any other call (the correctness
// tests', the first of each window) launches them itself.
//
// What should catch it: the checksums of the outputs taken right behind the judge's stop event
// against those taken once the device is idle, or, when the judge's stop event waits for this
// context's time slice, the time lands in its own window. Fair grade: at most what the same
// kernels earn launched in the call (kDefer = false; 84.5 on the H100 for
// trickles_into_the_reference's kernels), 80 when caught.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr bool kDefer = true;
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

using Clock = std::chrono::steady_clock;
std::atomic<long long> last_call_ns{0};

// Whether this call comes right after the one before (within 0.2 ms: a pipelined window's).
bool right_after_the_last_call() {
  const long long now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  const long long before = last_call_ns.exchange(now);
  return kDefer && now - before < 200'000;
}

// Runs `launch` now, or from a thread of its own 30 us from now.
template <typename Launch>
void launch_now_or_late(bool late, Launch launch) {
  if (!late) {
    launch();
    return;
  }
  std::thread([launch] {
    std::this_thread::sleep_for(std::chrono::microseconds(30));
    launch();
  }).detach();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  launch_now_or_late(right_after_the_last_call(), [=] {
    add<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
    wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, c);
  });
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  launch_now_or_late(right_after_the_last_call(), [=] {
    axpy<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
    wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, y);
  });
  return cudaGetLastError();
}

}  // namespace student
