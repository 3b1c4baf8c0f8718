// Calibration fixture for lab 07: the textbook privatized histogram, what a student who has
// learnt privatization but not contention writes first. One shared histogram per block, one byte
// per thread per grid-stride step, one global atomic per non-empty bin per block. Correct
// everywhere; on uniform data it should be near the reference, on all-equal data every lane of
// every warp updates the same shared counter. Its expected_grade.json only asserts correctness;
// the lead's H100 calibration of the YAML thresholds decides where its timed cases land.
#include "histogram.cuh"

namespace LAB_IMPL {

__global__ void histogram_global_kernel(const unsigned char* data, std::size_t n, unsigned int* bins) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&bins[data[i]], 1u);
  }
}

__global__ void histogram_shared_kernel(const unsigned char* data, std::size_t n, unsigned int* bins) {
  __shared__ unsigned int local[kHistogramBins];
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
  }
}

namespace {

unsigned blocks_for(std::size_t n, unsigned per_sm) {
  static int sms = 0;
  if (sms == 0) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      sms = 1;
    }
  }
  const std::size_t needed = (n + 255) / 256;
  const std::size_t full = static_cast<std::size_t>(sms) * per_sm;
  return static_cast<unsigned>(needed < full ? needed : full);
}

}  // namespace

cudaError_t histogram_global_atomics(const unsigned char* data, std::size_t n, unsigned int* bins,
                                     cudaStream_t stream) {
  const cudaError_t zeroed = cudaMemsetAsync(bins, 0, kHistogramBins * sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) return zeroed;
  if (n == 0) return cudaSuccess;
  histogram_global_kernel<<<blocks_for(n, 8), 256, 0, stream>>>(data, n, bins);
  return cudaGetLastError();
}

cudaError_t histogram_shared(const unsigned char* data, std::size_t n, unsigned int* bins, cudaStream_t stream) {
  const cudaError_t zeroed = cudaMemsetAsync(bins, 0, kHistogramBins * sizeof(unsigned int), stream);
  if (zeroed != cudaSuccess) return zeroed;
  if (n == 0) return cudaSuccess;
  histogram_shared_kernel<<<blocks_for(n, 8), 256, 0, stream>>>(data, n, bins);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
