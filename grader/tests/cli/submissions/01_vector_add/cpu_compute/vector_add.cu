// Adversarial: computes on the CPU. Copies the inputs to the host, adds there and copies the
// result back: correct output, but lab 01 forbids cudaMemcpy*. Expected: rule_violation, score 0,
// the report quoting the rule 'cudaMemcpy*' from config/labs/01_vector_add.yaml.
#include <vector>

#include "vector_add.cuh"

namespace student {

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t) {
  if (n == 0) return cudaSuccess;
  std::vector<float> ha(n), hb(n), hc(n);
  cudaMemcpy(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < n; ++i) hc[i] = ha[i] + hb[i];
  return cudaMemcpy(c, hc.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t) {
  if (n == 0) return cudaSuccess;
  std::vector<float> hx(n), hy(n);
  cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (std::size_t i = 0; i < n; ++i) hy[i] = alpha * hx[i] + hy[i];
  return cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
}

}  // namespace student
