// Does a trusted process starting CUDA disturb another process's timed windows? A batch could
// start the next grade's judge and reference runner (trusted, no student code) while the grade
// before it times its cases, and so take two of a second part's three CUDA starts off the batch's
// critical path (about 0.3 s a grade: cuda_start_probe.cu). That is fair only if a context being
// made, used a little and torn down beside a timed window leaves the window's time alone.
//
// The parent times windows of eight c = a + b calls on 256 MiB arrays (lab 01's timed case) with
// its own events, `windows` of them with nothing else on the GPU, then as many while children,
// one after another, each start CUDA (cudaFree(0)), allocate 768 MiB, run a kernel over it and
// exit: what a judge and a reference runner do before their first timed call. Per phase: the
// median window, its 90th percentile and its maximum, and how many windows exceed the quiet
// phase's maximum. With `context`, the children only start CUDA and exit; with PROBE_INIT_ONLY=1
// in the environment as well, they only query the device (cudaGetDeviceCount and
// cudaGetDeviceProperties: the driver initialised, no context), as labgrade does before it waits
// for the GPU lock (GpuLock::query_device).
//
// H100 80GB HBM3 (2026-11-28), 2000 windows a phase, 12-13 starts beside them: quiet, a call
// 0.2915-0.2930 ms median, 0.2920-0.2933 p90, 0.295-0.305 max; beside the starts the median the
// same but the p90 0.337 ms (+15%) and the max 0.493-0.495 ms (+69%), 272-356 windows of 2000
// over the quiet maximum (about 25 windows, some 55 ms of timing, per start), alike whether a
// child only starts CUDA and exits (272, 309) or also allocates and runs a kernel (289-356).
// So no CUDA start, trusted or not, may overlap another grade's timed cases: the next grade's
// judge and runners start only once the GPU is its alone. A device query without a context is
// harmless: 177-179 of them beside 2000 windows, 0 and 4 windows over the quiet maximum (by at
// most 0.0001 ms), the same median and p90 (so labgrade may query while another grade times).
//
//   nvcc -O3 -arch=sm_90 bench/probes/start_beside_timing_probe.cu -o start_beside_timing_probe && ./start_beside_timing_probe 2000 [context]
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ipc_probe_support.cuh"

extern char** environ;

namespace {

using probe_support::add;
using probe_support::check;

constexpr std::size_t kElements = std::size_t{1} << 26;
constexpr int kCallsPerWindow = 8;

__global__ void touch(float* data, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i);
}

// A child: what a trusted party does from exec to its first timed call, then its teardown; with
// `context_only`, only the CUDA start and teardown (a judge that waits for its turn first).
int start_once(bool context_only) {
  if (std::getenv("PROBE_INIT_ONLY") != nullptr) {  // labgrade's device query: no context
    int count = 0;
    cudaDeviceProp properties{};
    check(cudaGetDeviceCount(&count), "count");
    check(cudaGetDeviceProperties(&properties, 0), "properties");
    return 0;
  }
  check(cudaFree(nullptr), "context");
  if (context_only) return 0;
  float* data = nullptr;
  const std::size_t n = 3 * kElements;
  check(cudaMalloc(&data, n * sizeof(float)), "malloc");
  touch<<<static_cast<unsigned>((n + 255) / 256), 256>>>(data, n);
  check(cudaDeviceSynchronize(), "touch");
  check(cudaFree(data), "free");
  return 0;
}

struct Summary {
  double median, p90, max;
};

Summary summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) { return ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1))]; };
  return {at(0.5), at(0.9), ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "start") == 0) return start_once(std::strcmp(argv[2], "context") == 0);
  const int windows = argc > 1 ? std::atoi(argv[1]) : 400;
  const bool context_only = argc > 2 && std::strcmp(argv[2], "context") == 0;
  float *a, *b, *c;
  check(cudaMalloc(&a, kElements * sizeof(float)), "a");
  check(cudaMalloc(&b, kElements * sizeof(float)), "b");
  check(cudaMalloc(&c, kElements * sizeof(float)), "c");
  check(cudaMemset(a, 0, kElements * sizeof(float)), "memset");
  check(cudaMemset(b, 0, kElements * sizeof(float)), "memset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const unsigned blocks = static_cast<unsigned>((kElements + 255) / 256);
  const auto window = [&] {
    check(cudaEventRecord(start), "record");
    for (int k = 0; k < kCallsPerWindow; ++k) add<<<blocks, 256>>>(a, b, c, kElements);
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    return static_cast<double>(ms) / kCallsPerWindow;
  };
  for (int i = 0; i < 20; ++i) window();

  std::vector<double> quiet;
  for (int i = 0; i < windows; ++i) quiet.push_back(window());

  std::atomic<bool> done{false};
  std::atomic<int> starts{0};
  std::thread starter([&] {
    char self[] = "/proc/self/exe";
    char mode[] = "start";
    char what[] = "context";
    char all[] = "all";
    char* child_argv[] = {self, mode, context_only ? what : all, nullptr};
    while (!done) {
      pid_t pid = 0;
      if (::posix_spawn(&pid, self, nullptr, nullptr, child_argv, environ) != 0) break;
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++starts;
    }
  });
  std::vector<double> beside;
  for (int i = 0; i < windows; ++i) beside.push_back(window());
  done = true;
  starter.join();

  const Summary q = summarise(quiet), s = summarise(beside);
  const long over = std::count_if(beside.begin(), beside.end(), [&](double ms) { return ms > q.max; });
  std::printf("ms a call    median   p90      max\n");
  std::printf("quiet        %.4f   %.4f   %.4f   (%d windows)\n", q.median, q.p90, q.max, windows);
  std::printf("beside starts %.4f  %.4f   %.4f   (%d windows, %d CUDA starts made meanwhile, %ld windows over the quiet max)\n",
              s.median, s.p90, s.max, windows, starts.load(), over);
  return 0;
}
