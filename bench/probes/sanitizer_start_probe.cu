// The smallest CUDA program a compute-sanitizer start can watch: one allocation, one kernel, one
// synchronisation. bench/sanitizer_starts.sh times the tool's starts on it, alone and several at
// once, to tell what a sanitized batch waits for (issue 30).
#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void touch(float* data) { data[threadIdx.x] += 1.0f; }

bool check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "sanitizer_start_probe: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

}  // namespace

int main() {
  constexpr int kThreads = 256;
  float* data = nullptr;
  if (!check(cudaMalloc(&data, kThreads * sizeof(float)), "cudaMalloc")) return 1;
  bool ok = check(cudaMemset(data, 0, kThreads * sizeof(float)), "cudaMemset");
  touch<<<1, kThreads>>>(data);
  ok = ok && check(cudaGetLastError(), "launch") && check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  ok = check(cudaFree(data), "cudaFree") && ok;
  return ok ? 0 : 1;
}
