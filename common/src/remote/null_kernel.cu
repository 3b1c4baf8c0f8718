// The work of a ping (cudalabs/remote/protocol.hpp): one empty kernel, so a ping's round trip has
// everything a call's has (a launch, the GPU switching to the runner's context and back) but the
// call's own work.
#include <cuda_runtime.h>

namespace cudalabs::remote {
namespace {
__global__ void null_kernel() {}
}  // namespace

cudaError_t launch_null_kernel(cudaStream_t stream) {
  null_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace cudalabs::remote
