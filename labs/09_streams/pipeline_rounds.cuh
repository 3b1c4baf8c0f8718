#pragma once
// How the grader, the self-check's timing preview and bench/labs/09_streams_bench.cu pick `rounds`
// for the timed cases: so that on the GPU at hand the transform of the whole array alone takes
// kKernelShare times as long as copying it in alone. Every stage then matters, the transform is
// the slowest by a margin that measurement noise cannot flip, and running the stages one after
// the other costs about 1 + kKernelShare + 1 times the copy, against kKernelShare for perfect
// overlap.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "lab09_test_support.cuh"

namespace lab09 {

inline constexpr double kKernelShare = 1.25;

// `transform` is the reference's, or in the self-check's preview the student's (given complete:
// the same kernel); an error status it returns throws cudalabs::CudaError. host_in (pinned) and
// dev_in, dev_out hold n floats each; their contents are overwritten. The probe runs on inputs
// like the tests' (uniform in [kLow, kHigh)), since the cost depends on them: a zero costs no
// steps at all.
inline int rounds_for_kernel_share(TransformFn transform, int max_rounds, float* host_in, float* dev_in, float* dev_out,
                                   std::size_t n, cudaStream_t stream = nullptr) {
  using namespace cudalabs::timing;
  SamplingPolicy quick;
  quick.warmup = 2;
  quick.min_samples = 10;
  quick.max_samples = 40;
  quick.target_relative_ci = 0.02;
  quick.time_budget_seconds = 0.5;
  const std::size_t bytes = n * sizeof(float);
  const double copy_ms = measure_single(
      [&](cudaStream_t s) { CUDALABS_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, s)); }, {},
      quick, stream).median;
  constexpr int kProbeRounds = 64;
  cudalabs::fill_uniform_floats(dev_in, n, 0x09C0FFEE, kLow, kHigh, stream);
  const double probe_ms = measure_single(
      [&](cudaStream_t s) { CUDALABS_CHECK(transform(dev_in, dev_out, n, kProbeRounds, s)); }, {}, quick,
      stream).median;
  // The kernel's time grows in proportion to the rounds (each is the same division and addition).
  const double rounds = kProbeRounds * kKernelShare * copy_ms / std::max(probe_ms, 1e-3);
  return static_cast<int>(std::clamp(std::lround(rounds), 1L, static_cast<long>(max_rounds)));
}

}  // namespace lab09
