// The kernel proc_write_probe launches (its "kernel" step): a real module load and launch, not
// one of the runtime's own memset kernels.
#include <cuda_runtime.h>

namespace {

__global__ void fill(int* data, int n, int value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value + i;
}

}  // namespace

cudaError_t proc_write_probe_launch(int* data, int n) {
  fill<<<(n + 255) / 256, 256>>>(data, n, 7);
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) return launched;
  const cudaError_t finished = cudaDeviceSynchronize();
  if (finished != cudaSuccess) return finished;
  int last = 0;
  const cudaError_t copied = cudaMemcpy(&last, data + n - 1, sizeof last, cudaMemcpyDeviceToHost);
  if (copied != cudaSuccess) return copied;
  return last == 7 + n - 1 ? cudaSuccess : cudaErrorUnknown;
}
