// The timing preview's measurement of a student call alone (cudalabs/performance_preview.hpp):
// the checks of a graded case's timed calls, without a solution beside it. GPU tests: they skip
// without a device. Policies are small (short budgets) to keep the suite fast.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_preview.hpp"

namespace {

using cudalabs::DeviceBuffer;
using cudalabs::measure_student_alone;
using cudalabs::PreviewSamples;
using namespace cudalabs::timing;

__global__ void double_it(const float* in, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

// Keeps the GPU busy for a while (work left behind on a stream of its own).
__global__ void spin(float* out, int iterations) {
  float x = static_cast<float>(threadIdx.x) * 1e-3f;
  for (int i = 0; i < iterations; ++i) x = fmaf(x, 0.999999f, 1e-7f);
  out[threadIdx.x] = x;
}

// out = 2 * in over 2^20 floats: inputs from the round's seed, the output poisoned, and the check
// a reference of the test's own (as a self-check's CPU reference would be), no solution.
class PreviewGpu : public cudalabs::GpuTest {
 protected:
  static constexpr std::size_t kN = std::size_t{1} << 20;

  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    in_ = DeviceBuffer<float>(kN);
    out_ = DeviceBuffer<float>(kN);
    expected_ = DeviceBuffer<float>(kN);
    scratch_ = DeviceBuffer<float>(256);
  }

  void run(float* out, cudaStream_t stream) {
    double_it<<<static_cast<unsigned>((kN + 255) / 256), 256, 0, stream>>>(in_.data(), out, kN);
  }

  Workload workload(StudentCall student) {
    Workload work;
    work.student = std::move(student);
    work.prepare = [this](std::uint64_t seed, cudaStream_t s) {
      cudalabs::fill_uniform_floats(in_.data(), kN, seed, -1.0f, 1.0f, s);
      cudalabs::poison_async(out_.data(), out_.bytes(), 0xFF, s);
    };
    work.verify = [this](std::uint64_t, cudaStream_t s) {
      run(expected_.data(), s);
      return cudalabs::check_against_reference(expected_.data(), out_.data(), kN, {}, "out", s);
    };
    work.sealed_inputs = {{in_.data(), in_.bytes(), "in"}};
    work.seed = 11;
    return work;
  }

  StudentCall honest() {
    return [this](cudaStream_t s) {
      run(out_.data(), s);
      return cudaSuccess;
    };
  }

  static SamplingPolicy quick_policy() {
    SamplingPolicy policy;
    policy.time_budget_seconds = 1.0;
    return policy;
  }

  DeviceBuffer<float> in_, out_, expected_, scratch_;
};

TEST_F(PreviewGpu, AnHonestCallIsTimedAloneWithItsChecks) {
  const PreviewSamples result = measure_student_alone(workload(honest()), quick_policy());
  EXPECT_EQ(result.integrity_failure, "");
  EXPECT_GE(result.student_ms.samples, 1u);
  EXPECT_GT(result.student_ms.median, 0.0);
  EXPECT_LE(result.student_ms.ci.low, result.student_ms.median);
  EXPECT_GE(result.student_ms.ci.high, result.student_ms.median);
  EXPECT_EQ(result.verified_samples, static_cast<int>(result.student_ms.samples)) << "every sample is checked";
  EXPECT_LT(result.samples_with_outstanding_work, kOutstandingWorkStrikes);
}

TEST_F(PreviewGpu, ACallThatReusesItsFirstResultIsCaught) {
  int calls = 0;
  // Works once (the first warm-up call), then returns at once: the output stays poisoned.
  const PreviewSamples result = measure_student_alone(workload([&](cudaStream_t s) {
                                                        if (calls++ == 0) run(out_.data(), s);
                                                        return cudaSuccess;
                                                      }),
                                                      quick_policy());
  EXPECT_NE(result.integrity_failure.find("the timed call's result was wrong on sample 1"), std::string::npos)
      << result.integrity_failure;
  EXPECT_NE(result.integrity_failure.find("elements differ"), std::string::npos) << result.integrity_failure;
}

TEST_F(PreviewGpu, WorkLeftOnAnotherStreamIsCaught) {
  cudaStream_t own = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
  // The right result, computed (slowly) on a stream of its own, outside the timed one.
  const PreviewSamples result = measure_student_alone(workload([&](cudaStream_t) {
                                                        spin<<<1, 256, 0, own>>>(scratch_.data(), 200000);
                                                        run(out_.data(), own);
                                                        return cudaSuccess;
                                                      }),
                                                      quick_policy());
  CUDALABS_CHECK(cudaStreamDestroy(own));
  EXPECT_NE(result.integrity_failure.find("work was still running on the GPU after the stream you were given finished"),
            std::string::npos)
      << result.integrity_failure;
  EXPECT_GE(result.samples_with_outstanding_work, kOutstandingWorkStrikes);
}

TEST_F(PreviewGpu, ACallThatRewritesItsInputIsCaughtBySealedInputs) {
  // Zeroes its input and its output: consistent with each other, so only the seal tells.
  const PreviewSamples result = measure_student_alone(workload([&](cudaStream_t s) {
                                                        CUDALABS_CHECK(cudaMemsetAsync(in_.data(), 0, in_.bytes(), s));
                                                        CUDALABS_CHECK(cudaMemsetAsync(out_.data(), 0, out_.bytes(), s));
                                                        return cudaSuccess;
                                                      }),
                                                      quick_policy());
  EXPECT_NE(result.integrity_failure.find("its input in was changed"), std::string::npos) << result.integrity_failure;
}

TEST_F(PreviewGpu, AStatusOtherThanSuccessFailsTheMeasurement) {
  const PreviewSamples todo =
      measure_student_alone(workload([](cudaStream_t) { return cudaErrorNotYetImplemented; }), quick_policy());
  EXPECT_EQ(todo.integrity_failure,
            "warm-up call 1 failed: the call is still a TODO(student): it returned cudaErrorNotYetImplemented");
  EXPECT_EQ(todo.student_ms.samples, 0u);
  // Right on the first calls (3 warm-up, 2 timed), then an error: the timed call it came back from.
  int calls = 0;
  const PreviewSamples later = measure_student_alone(workload([&](cudaStream_t s) {
                                                       run(out_.data(), s);
                                                       return ++calls > 5 ? cudaErrorInvalidValue : cudaSuccess;
                                                     }),
                                                     quick_policy());
  EXPECT_EQ(later.integrity_failure.rfind("timed call 3 failed: the call returned cudaErrorInvalidValue", 0), 0u)
      << later.integrity_failure;
}

TEST_F(PreviewGpu, RejectsAnInvalidWorkloadOrPolicy) {
  EXPECT_THROW(measure_student_alone(Workload{}, quick_policy()), std::invalid_argument);
  SamplingPolicy no_budget = quick_policy();
  no_budget.time_budget_seconds = 0;
  EXPECT_THROW(measure_student_alone(workload(honest()), no_budget), std::invalid_argument);
}

}  // namespace
