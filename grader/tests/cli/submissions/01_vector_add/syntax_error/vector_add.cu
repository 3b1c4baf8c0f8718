// A submission that does not compile: the grader must show nvcc's message and score it 0.
#include "vector_add.cuh"

namespace student {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x
  if (i < n) c[i] = a[i] + b[i];
}

}  // namespace student
