// The device half of cudalabs::timing: interleaved and single measurements, the L2 flush and the
// in-process device peaks. Every test derives from GpuTest, so it skips without a device.
// Policies here are small (short budgets) to keep the suite fast; the bench checks the defaults.
#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "cudalabs/timing/l2_flush.hpp"

namespace {

using cudalabs::CudaError;
using cudalabs::DeviceBuffer;
using namespace cudalabs::timing;

// Compute-bound work whose time is proportional to `iterations`: no memory traffic to vary.
__global__ void busy_work(float* out, int iterations) {
  float x = static_cast<float>(threadIdx.x) * 1e-3f;
  for (int i = 0; i < iterations; ++i) x = fmaf(x, 0.999999f, 1e-7f);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

constexpr int kBlocks = 264;
constexpr int kThreads = 256;

class TimingGpu : public cudalabs::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    out_ = DeviceBuffer<float>(static_cast<std::size_t>(kBlocks) * kThreads);
  }

  Launch busy(int iterations) {
    return [this, iterations](cudaStream_t stream) {
      busy_work<<<kBlocks, kThreads, 0, stream>>>(out_.data(), iterations);
    };
  }

  static SamplingPolicy quick_policy() {
    SamplingPolicy policy;
    policy.time_budget_seconds = 1.0;
    return policy;
  }

  DeviceBuffer<float> out_;  // allocated in SetUp, after the no-device skip
};

// Same kernel on both sides: the paired ratio's median is 1 by symmetry. At 99% and a small
// allowance for the event clock's granularity, a false failure is rarer than 1 in 100 runs.
TEST_F(TimingGpu, KernelAgainstItselfGivesRatioOne) {
  SamplingPolicy policy = quick_policy();
  policy.confidence = 0.99;
  const PairedResult result = measure_interleaved({busy(100000), busy(100000), {}}, policy);
  EXPECT_LE(result.ratio.ci.low, 1.002) << "ratio " << result.ratio.median;
  EXPECT_GE(result.ratio.ci.high, 0.998) << "ratio " << result.ratio.median;
  EXPECT_GE(result.rounds, policy.min_samples);
  EXPECT_EQ(result.ratio.samples, static_cast<std::size_t>(result.rounds));
  EXPECT_EQ(result.student_ms.samples, static_cast<std::size_t>(result.rounds));
  EXPECT_GT(result.student_ms.median, 0.0);
  EXPECT_GT(result.seconds_spent, 0.0);
}

TEST_F(TimingGpu, TwiceTheWorkGivesRatioTwo) {
  const PairedResult result = measure_interleaved({busy(200000), busy(100000), {}}, quick_policy());
  EXPECT_GT(result.ratio.median, 1.6);
  EXPECT_LT(result.ratio.median, 2.4);
  EXPECT_GT(result.student_ms.median, result.solution_ms.median);
}

TEST_F(TimingGpu, RestoreInputsRunsBeforeEverySample) {
  std::vector<char> calls;  // 'r' restore, 's' student, 'o' solution, in order
  const Launch student = [&](cudaStream_t s) { calls.push_back('s'); busy(1000)(s); };
  const Launch solution = [&](cudaStream_t s) { calls.push_back('o'); busy(1000)(s); };
  const Launch restore = [&](cudaStream_t) { calls.push_back('r'); };
  SamplingPolicy policy = quick_policy();
  const PairedResult result = measure_interleaved({student, solution, restore}, policy);

  const std::size_t launches = 2 * static_cast<std::size_t>(policy.warmup + result.rounds);
  ASSERT_EQ(calls.size(), 2 * launches);
  for (std::size_t i = 0; i < calls.size(); i += 2) {
    EXPECT_EQ(calls[i], 'r') << "call " << i;
    EXPECT_NE(calls[i + 1], 'r') << "call " << i + 1;
  }
  // Rounds alternate the order: (s, o), (o, s), ... after the warm-up pairs.
  const std::size_t first_round = 4 * static_cast<std::size_t>(policy.warmup);
  if (result.rounds >= 2) {
    EXPECT_EQ(std::string({calls[first_round + 1], calls[first_round + 3]}), "so");
    EXPECT_EQ(std::string({calls[first_round + 5], calls[first_round + 7]}), "os");
  }
}

TEST_F(TimingGpu, SingleMeasurementRestoresAndStops) {
  int restores = 0;
  int launches = 0;
  const Launch launch = [&](cudaStream_t s) { ++launches; busy(100000)(s); };
  const SamplingPolicy policy = quick_policy();
  const SampleSummary summary = measure_single(launch, [&](cudaStream_t) { ++restores; }, policy);
  EXPECT_EQ(restores, launches);
  EXPECT_EQ(static_cast<std::size_t>(launches), policy.warmup + summary.samples);
  EXPECT_GE(summary.samples, static_cast<std::size_t>(policy.min_samples));
  EXPECT_GT(summary.median, 0.0);
  EXPECT_LE(summary.ci.low, summary.median);
  EXPECT_GE(summary.ci.high, summary.median);
}

TEST_F(TimingGpu, FailedLaunchThrowsCudaError) {
  // 4096 threads per block is an invalid configuration on every GPU: a non-sticky launch error.
  const Launch bad = [this](cudaStream_t s) { busy_work<<<1, 4096, 0, s>>>(out_.data(), 1); };
  EXPECT_THROW(measure_interleaved({busy(100), bad, {}}, quick_policy()), CudaError);
  EXPECT_THROW(measure_single(bad, {}, quick_policy()), CudaError);
}

TEST_F(TimingGpu, RejectsAnInvalidPolicyOrWorkload) {
  SamplingPolicy policy;
  policy.max_samples = 1;
  EXPECT_THROW(measure_interleaved({busy(100), busy(100), {}}, policy), std::invalid_argument);
  EXPECT_THROW(measure_interleaved({busy(100), {}, {}}, SamplingPolicy{}), std::invalid_argument);
}

TEST_F(TimingGpu, L2FlusherCoversTheL2) {
  int device = 0;
  int l2 = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  L2Flusher flusher;
  EXPECT_GE(flusher.buffer_bytes(), static_cast<std::size_t>(l2));
  EXPECT_GE(flusher.buffer_bytes(), 2 * flusher.l2_bytes());
  flusher.flush(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
}

TEST_F(TimingGpu, CopyBandwidthIsPlausibleAndCached) {
  const double gbs = measured_copy_bandwidth_gbs();
  EXPECT_GT(gbs, 100.0);
  EXPECT_LT(gbs, 10000.0);
  EXPECT_EQ(measured_copy_bandwidth_gbs(), gbs);
}

TEST_F(TimingGpu, MeasuredSmClockIsPlausible) {
  const ClockReading clocks = read_clocks();
  EXPECT_GT(clocks.sm_clock_mhz_measured, 100.0) << clocks.note;
  EXPECT_LT(clocks.sm_clock_mhz_measured, 5000.0) << clocks.note;
  if (clocks.sm_clock_mhz_max == 0 || clocks.memory_clock_mhz == 0) {
    EXPECT_FALSE(clocks.note.empty());
  }
}

}  // namespace
