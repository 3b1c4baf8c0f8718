// Lab 03 benchmark: the reference matmul_tiled against cuBLAS SGEMM (FP32, no TF32) at 4096^3,
// in one run, interleaved and L2-flushed (target in config/labs/03_matmul.yaml reference_targets: >= 50% of cuBLAS's throughput).
// Also measures, for calibrating config/labs/03_matmul.yaml:
//  - a textbook 16x16 shared-memory tile and the reference's one-thread-per-element matmul, each
//    against the reference matmul_tiled at 4096^3 (the matmul_tiled_4096 case's ratios);
//  - a one-thread-per-element kernel with threadIdx.x along rows (uncoalesced) against the
//    reference matmul at 2048^3 (the matmul_naive_2048 case's ratio).
// Exit status 1 when the target is missed (or the reference disagrees with cuBLAS).
//
//   bench_03_matmul [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "matmul.cuh"  // LAB_IMPL=solution (bench/CMakeLists.txt)

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using namespace cudalabs::timing;

constexpr double kTargetFractionOfCublas = 0.80;

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: cuBLAS status " + std::to_string(static_cast<int>(status)));
  }
}

// Textbook tiling: 16x16 threads, one output each, one 16x16 tile of A and of B per k-step.
constexpr int kTile = 16;
__global__ void textbook_tile_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    as[threadIdx.y][threadIdx.x] = (row < m && k0 + threadIdx.x < k) ? a[(size_t)row * k + k0 + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < k && col < n) ? b[(size_t)(k0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) sum += as[threadIdx.y][p] * bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[(size_t)row * n + col] = sum;
}

// The classic mistake: threadIdx.x along rows, so a warp touches 32 rows of A and of C.
__global__ void rows_along_x_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += a[(size_t)row * k + p] * b[(size_t)p * n + col];
  c[(size_t)row * n + col] = sum;
}

struct Problem {
  int size;
  DeviceBuffer<float> a, b, c;
  explicit Problem(int s)
      : size(s),
        a(cudalabs::uniform_floats(static_cast<std::size_t>(s) * s, 1)),
        b(cudalabs::uniform_floats(static_cast<std::size_t>(s) * s, 2)),
        c(static_cast<std::size_t>(s) * s) {}
  double flops() const { return 2.0 * size * size * static_cast<double>(size); }
};

// Interleaved measurement of `first` against `second`; prints both and the ratio.
json compare(const char* what, const char* first_name, const Launch& first, const char* second_name,
             const Launch& second, double flops, const SamplingPolicy& policy) {
  const PairedResult r = measure_interleaved({always_succeeding(first), second, {}}, policy);
  const double first_tflops = flops / (r.student_ms.median * 1e-3) / 1e12;
  const double second_tflops = flops / (r.solution_ms.median * 1e-3) / 1e12;
  std::printf("%s\n  %-34s %8.3f ms  %6.2f TFLOP/s\n  %-34s %8.3f ms  %6.2f TFLOP/s\n  time ratio %.3f "
              "[%.3f, %.3f] over %d rounds%s\n",
              what, first_name, r.student_ms.median, first_tflops, second_name, r.solution_ms.median, second_tflops,
              r.ratio.median, r.ratio.ci.low, r.ratio.ci.high, r.rounds, r.target_met ? "" : " (CI target not met)");
  return {{"first", first_name},           {"second", second_name},
          {"first_ms", summary_json(r.student_ms)}, {"second_ms", summary_json(r.solution_ms)},
          {"first_tflops", first_tflops},  {"second_tflops", second_tflops},
          {"time_ratio", summary_json(r.ratio)}, {"rounds", r.rounds}};
}

// Largest |reference - cuBLAS| relative to sqrt(k) * max|C|: both are FP32 sums of k products.
double disagreement_with_cublas(Problem& p, cublasHandle_t handle) {
  DeviceBuffer<float> c_blas(p.c.size());
  const float one = 1.0f, zero = 0.0f;
  CUDALABS_CHECK(solution::matmul_tiled(p.a.data(), p.b.data(), p.c.data(), p.size, p.size, p.size));
  check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.size, p.size, p.size, &one, p.b.data(), p.size,
                           p.a.data(), p.size, &zero, c_blas.data(), p.size),
               "cublasSgemm");
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const std::vector<float> ours = p.c.copy_to_host(), theirs = c_blas.copy_to_host();
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(ours[i]) - theirs[i]));
    largest = std::max(largest, std::fabs(static_cast<double>(theirs[i])));
  }
  return worst / (std::sqrt(static_cast<double>(p.size)) * largest);
}

int run(const std::string& json_path) {
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // FP32, no TF32

  SamplingPolicy policy;
  policy.time_budget_seconds = 4.0;
  policy.min_samples = 15;

  Problem big(4096);
  const int n = big.size;
  const float one = 1.0f, zero = 0.0f;
  const Launch reference = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::matmul_tiled(big.a.data(), big.b.data(), big.c.data(), n, n, n, s));
  };
  // Row-major C = A * B is column-major C^T = B^T * A^T: swap the operands, keep the layouts.
  const Launch cublas = [&](cudaStream_t s) {
    check_cublas(cublasSetStream(handle, s), "cublasSetStream");
    check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, big.b.data(), n, big.a.data(), n,
                             &zero, big.c.data(), n),
                 "cublasSgemm");
  };
  const Launch textbook = [&](cudaStream_t s) {
    const dim3 blocks((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
    textbook_tile_kernel<<<blocks, dim3(kTile, kTile), 0, s>>>(big.a.data(), big.b.data(), big.c.data(), n, n, n);
    CUDALABS_CHECK(cudaGetLastError());
  };
  const Launch direct = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::matmul(big.a.data(), big.b.data(), big.c.data(), n, n, n, s));
  };

  const double disagreement = disagreement_with_cublas(big, handle);
  std::printf("reference vs cuBLAS: max |difference| = %.3g * sqrt(k) * max|C|%s\n", disagreement,
              disagreement < 1e-6 ? "" : "  << TOO LARGE");

  json out;
  out["device"] = prop.name;
  out["reference_vs_cublas"] = compare("matmul_tiled 4096^3: reference vs cuBLAS SGEMM", "reference matmul_tiled",
                                       reference, "cublasSgemm (FP32)", cublas, big.flops(), policy);
  const double fraction = 1.0 / out["reference_vs_cublas"]["time_ratio"]["median"].get<double>();
  const bool met = fraction >= kTargetFractionOfCublas && disagreement < 1e-6;
  std::printf("  reference reaches %.1f%% of cuBLAS's throughput: target %.0f%% %s\n\n", 100 * fraction,
              100 * kTargetFractionOfCublas, met ? "MET" : "MISSED");

  out["textbook_vs_reference"] = compare("calibration, matmul_tiled_4096: textbook 16x16 tile vs reference",
                                         "textbook 16x16 tile", textbook, "reference matmul_tiled", reference,
                                         big.flops(), policy);
  out["direct_vs_reference"] = compare("calibration, matmul_tiled_4096: one thread per element vs reference",
                                       "reference matmul (direct)", direct, "reference matmul_tiled", reference,
                                       big.flops(), policy);

  Problem mid(2048);
  const int m = mid.size;
  const Launch direct_mid = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::matmul(mid.a.data(), mid.b.data(), mid.c.data(), m, m, m, s));
  };
  const Launch rows_along_x = [&](cudaStream_t s) {
    rows_along_x_kernel<<<dim3((m + 15) / 16, (m + 15) / 16), dim3(16, 16), 0, s>>>(mid.a.data(), mid.b.data(),
                                                                                    mid.c.data(), m, m, m);
    CUDALABS_CHECK(cudaGetLastError());
  };
  out["uncoalesced_vs_direct"] = compare("calibration, matmul_naive_2048: threadIdx.x along rows vs reference matmul",
                                         "rows along threadIdx.x", rows_along_x, "reference matmul (direct)",
                                         direct_mid, mid.flops(), policy);

  out["fraction_of_cublas"] = fraction;
  out["target_fraction_of_cublas"] = kTargetFractionOfCublas;
  out["disagreement_with_cublas"] = disagreement;
  out["target_met"] = met;
  check_cublas(cublasDestroy(handle), "cublasDestroy");
  return cudalabs::bench::finish(out, json_path, met);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_03_matmul", run);
}
