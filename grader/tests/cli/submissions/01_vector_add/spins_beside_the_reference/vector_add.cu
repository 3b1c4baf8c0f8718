// Adversarial (the judge/runner split: a runner that slows the reference while it is timed;
// issue 27). Its kernels are correct but move 1.8x the bytes the reference does (a wasted read of
// both inputs and 40% of the first again, kept alive behind a write that never happens). From its
// first call on it keeps a spinning thread on every CPU of the machine, each first asking to be
// moved onto its own CPU (the reference's and the judge's cores among them), and lets them spin
// only while none of its own calls is running: the interleaved rounds then time the reference on
// a busy core and this code on a quiet one, and the ratio would flatter it.
//
// The judge starts this runner on cores of its own and its filter refuses sched_setaffinity (and
// every other call that would move or raise a thread), so the spinners stay beside this code's own
// calls and slow nothing of the reference's. Fair grade: what the same slow kernels earn without
// the spinners (both timed cases partial; kSpin = false gives that submission).
#include <sched.h>

#include <atomic>
#include <cstddef>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr bool kSpin = true;
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

std::atomic<int> calls_running{0};

// One spinner per CPU of the machine, each asking for its CPU; all idle while a call of ours runs.
void start_spinners() {
  if (!kSpin) return;
  static const bool started = [] {
    const unsigned cpus = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < cpus; ++cpu) {
      std::thread([cpu] {
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(cpu, &only);
        static_cast<void>(sched_setaffinity(0, sizeof only, &only));  // refused when confined
        volatile unsigned long spins = 0;
        for (;;) {
          if (calls_running.load(std::memory_order_relaxed) == 0) {
            for (int i = 0; i < 4096; ++i) spins = spins + 1;
          } else {
            std::this_thread::yield();
          }
        }
      }).detach();
    }
    return true;
  }();
  static_cast<void>(started);
}

// Marks one of our calls running for its lifetime.
struct OurCall {
  OurCall() {
    start_spinners();
    calls_running.fetch_add(1);
  }
  ~OurCall() { calls_running.fetch_sub(1); }
};

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  const OurCall call;
  if (n == 0) return cudaSuccess;
  add<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, c);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  const OurCall call;
  if (n == 0) return cudaSuccess;
  axpy<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
  wasted_reads<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n, y);
  return cudaGetLastError();
}

}  // namespace student
