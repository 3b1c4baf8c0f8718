// Adversarial (a timed call must do the work), a variant of skips_repeated_call that also checks
// the data: a first one-thread kernel compares the pointers, n and 16 elements of each input with
// what the previous call saw and sets a flag; the slow kernel after it returns at once when the
// flag says "same call". Against fixed inputs that skipped every timed sample. With inputs
// regenerated for every sample the fingerprint changes each time, so the work is done, and timed:
// slow. Fair grade: 80 (correct; no timed points).
#include "vector_add.cuh"

namespace student {
namespace {

constexpr unsigned kSlowBlocks = 32;
constexpr unsigned kThreads = 256;
constexpr int kProbes = 16;

struct Fingerprint {
  const void* in1;
  const void* in2;
  void* out;
  unsigned long long n;
  float alpha;
  float probes[2 * kProbes];
};

__device__ Fingerprint last_add;
__device__ Fingerprint last_saxpy;
__device__ int skip_add;
__device__ int skip_saxpy;

// One thread: is this call the previous one again? Then remember this call.
__global__ void same_as_last(Fingerprint* last, int* skip, const float* in1, const float* in2, void* out,
                             std::size_t n, float alpha) {
  Fingerprint now{in1, in2, out, n, alpha, {}};
  for (int p = 0; p < kProbes; ++p) {
    const std::size_t at = (n - 1) / (kProbes - 1) * p;
    now.probes[2 * p] = in1[at];
    now.probes[2 * p + 1] = in2 != nullptr ? in2[at] : 0.0f;
  }
  bool same = last->in1 == now.in1 && last->in2 == now.in2 && last->out == now.out && last->n == now.n &&
              last->alpha == now.alpha;
  for (int p = 0; p < 2 * kProbes && same; ++p) same = last->probes[p] == now.probes[p];
  *skip = same ? 1 : 0;
  *last = now;
}

__global__ void add_slowly(const int* skip, const float* a, const float* b, float* c, std::size_t n) {
  if (*skip) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void saxpy_slowly(const int* skip, float alpha, const float* x, float* y, std::size_t n) {
  if (*skip) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

template <class T>
T* device_address(const T& symbol) {
  void* address = nullptr;
  cudaGetSymbolAddress(&address, symbol);
  return static_cast<T*>(address);
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  int* skip = device_address(skip_add);
  same_as_last<<<1, 1, 0, stream>>>(device_address(last_add), skip, a, b, c, n, 0.0f);
  add_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(skip, a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  int* skip = device_address(skip_saxpy);
  // y is read before it is updated: the fingerprint of a call's inputs.
  same_as_last<<<1, 1, 0, stream>>>(device_address(last_saxpy), skip, x, y, y, n, alpha);
  saxpy_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(skip, alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
