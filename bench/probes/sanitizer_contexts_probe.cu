// Whether CUDA contexts held elsewhere on the GPU, idle, slow a compute-sanitizer run. A sanitized
// batch's tool runs took 25-40 s each beside the batch's 12-16 contexts, and 40-100 s beside 35-39
// (a branch that kept eight grades' judges parked), with the GPU under 3% and the CPUs under 30%
// busy: the time went to neither.
//
// H100 80GB HBM3 (2026-11-27): no. With 0, 8, 32 and again 0 idle contexts held by other
// processes: the plain run 0.52-0.69 s (2.86 s at 32, whose holders were still creating theirs),
// memcheck over 200 rounds 1.10-1.44 s (3.0-3.5 ms a round), racecheck over 50 rounds 1.77-1.90 s
// (5.8-6.3 ms a round), context included. So the slow tool runs wait on something else.
//
//   hold SECONDS   create a context, allocate 64 MiB, then sleep (an idle judge or runner)
//   work ROUNDS    create a context, then ROUNDS times: a kernel over 64 MiB and a synchronise,
//                  a 4 MiB copy each way; prints the context's and the rounds' wall times
//
//   nvcc -O2 -arch=sm_90 bench/probes/sanitizer_contexts_probe.cu -o sanitizer_contexts_probe
//   ./sanitizer_contexts_probe hold 60 &  (K of them), then
//   compute-sanitizer --tool memcheck ./sanitizer_contexts_probe work 200
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__global__ void scale(float* data, std::size_t n, float factor) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    data[i] = data[i] * factor + 1.0f;
  }
}

int fail(cudaError_t status, const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "hold") != 0 && std::strcmp(argv[1], "work") != 0)) {
    std::fprintf(stderr, "usage: %s hold SECONDS | work ROUNDS\n", argv[0]);
    return 2;
  }
  const int count = std::atoi(argv[2]);
  const double start = now_ms();
  if (const cudaError_t status = cudaFree(nullptr); status != cudaSuccess) return fail(status, "context");
  const double context_ms = now_ms() - start;
  constexpr std::size_t kFloats = std::size_t{16} << 20;  // 64 MiB
  float* data = nullptr;
  if (const cudaError_t status = cudaMalloc(&data, kFloats * sizeof(float)); status != cudaSuccess) {
    return fail(status, "cudaMalloc");
  }
  if (const cudaError_t status = cudaMemset(data, 0, kFloats * sizeof(float)); status != cudaSuccess) {
    return fail(status, "cudaMemset");
  }
  if (std::strcmp(argv[1], "hold") == 0) {
    if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return fail(status, "sync");
    ::sleep(static_cast<unsigned>(count));
    return cudaFree(data) == cudaSuccess ? 0 : 1;
  }
  static float host[1 << 20];  // 4 MiB
  const double rounds_start = now_ms();
  for (int round = 0; round < count; ++round) {
    scale<<<264, 256>>>(data, kFloats, 0.5f);
    if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return fail(status, "kernel");
    if (const cudaError_t status = cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost); status != cudaSuccess) {
      return fail(status, "copy out");
    }
    if (const cudaError_t status = cudaMemcpy(data, host, sizeof(host), cudaMemcpyHostToDevice); status != cudaSuccess) {
      return fail(status, "copy in");
    }
  }
  const double rounds_ms = now_ms() - rounds_start;
  std::printf("context %.0f ms, %d rounds %.0f ms (%.2f ms a round), total %.0f ms\n", context_ms, count, rounds_ms,
              rounds_ms / count, now_ms() - start);
  return cudaFree(data) == cudaSuccess ? 0 : 1;
}
