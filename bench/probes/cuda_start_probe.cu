// What P processes that start CUDA at once each pay, phase by phase: a context (cudaFree(0)),
// 768 MiB (a lab 01 case's three arrays), a kernel over it, an IPC handle, the free, and the
// teardown (cudaDeviceReset). A grade starts its judge and three runners, twice unless one harness
// serves both parts, and a batch runs four grades' correctness tests at once beside sanitizer
// runs: if the driver serialises context creation, a batch's grades wait on each other there.
//
// H100 80GB HBM3 (2026-11-27): all P done in 0.35-0.46 s for P=1, 0.52 s for 2, 0.83-0.87 s for 4,
// 1.73 s for 8, 3.37-3.46 s for 16: the context alone 0.28 s at P=1, 0.52 s each at 4, 2.1-2.2 s
// each at 16, the teardown 0.06, 0.25 and 1.0-1.1 s; allocation, kernel and IPC handle under
// 0.02 s throughout.
//
//   nvcc -O2 -arch=sm_90 bench/probes/cuda_start_probe.cu -o cuda_start_probe && for p in 1 4 16; do ./cuda_start_probe $p; done
#include <cuda_runtime.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_ms(const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; }

__global__ void fill(float* data, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    data[i] = 1.0f;
  }
}

bool ok(cudaError_t status, const char* what, int process) {
  if (status == cudaSuccess) return true;
  std::printf("p%d: %s: %s\n", process, what, cudaGetErrorString(status));
  return false;
}

int one_process(int process, double start_ms) {
  const double begun = now_ms();
  if (!ok(cudaFree(nullptr), "cudaFree(0)", process)) return 1;
  const double context = now_ms();
  constexpr std::size_t kElements = std::size_t{3} << 26;
  float* data = nullptr;
  if (!ok(cudaMalloc(&data, kElements * sizeof(float)), "cudaMalloc", process)) return 1;
  const double allocated = now_ms();
  fill<<<528, 256>>>(data, kElements);
  if (!ok(cudaDeviceSynchronize(), "kernel", process)) return 1;
  const double ran = now_ms();
  cudaIpcMemHandle_t handle;
  if (!ok(cudaIpcGetMemHandle(&handle, data), "cudaIpcGetMemHandle", process)) return 1;
  const double exported = now_ms();
  if (!ok(cudaFree(data), "cudaFree", process)) return 1;
  const double freed = now_ms();
  if (!ok(cudaDeviceReset(), "cudaDeviceReset", process)) return 1;
  const double reset = now_ms();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("p%-2d started at +%.0f ms: context %.0f, malloc %.1f, kernel %.1f, ipc %.1f, free %.1f, reset %.0f ms "
              "(cpu: user %.0f, system %.0f ms)\n",
              process, begun - start_ms, context - begun, allocated - context, ran - allocated, exported - ran,
              freed - exported, reset - freed, cpu_ms(usage.ru_utime), cpu_ms(usage.ru_stime));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int processes = argc > 1 ? std::atoi(argv[1]) : 1;
  if (processes < 1) {
    std::fprintf(stderr, "usage: cuda_start_probe [PROCESSES]  (at least 1)\n");
    return 2;
  }
  std::fflush(stdout);
  const double start = now_ms();
  for (int i = 0; i < processes; ++i) {
    if (fork() == 0) {  // CUDA is started in the children only
      const int code = one_process(i, start);
      std::fflush(stdout);
      _exit(code);
    }
  }
  int failed = 0;
  for (int status = 0; wait(&status) > 0;) failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::printf("P=%d: all done in %.0f ms%s\n", processes, now_ms() - start, failed ? " (some failed)" : "");
  return failed ? 1 : 0;
}
