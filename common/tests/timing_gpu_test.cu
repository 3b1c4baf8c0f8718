// The device half of cudalabs::timing: interleaved and single measurements, the L2 flush and the
// in-process device peaks. Every test derives from GpuTest, so it skips without a device.
// Policies here are small (short budgets) to keep the suite fast; the bench checks the defaults.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
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
  const PairedResult result = measure_interleaved({always_succeeding(busy(100000)), busy(100000), {}}, policy);
  EXPECT_LE(result.ratio.ci.low, 1.002) << "ratio " << result.ratio.median;
  EXPECT_GE(result.ratio.ci.high, 0.998) << "ratio " << result.ratio.median;
  EXPECT_GE(result.rounds, policy.min_samples);
  EXPECT_EQ(result.ratio.samples, static_cast<std::size_t>(result.rounds));
  EXPECT_EQ(result.student_ms.samples, static_cast<std::size_t>(result.rounds));
  EXPECT_GT(result.student_ms.median, 0.0);
  EXPECT_GT(result.seconds_spent, 0.0);
}

TEST_F(TimingGpu, TwiceTheWorkGivesRatioTwo) {
  const PairedResult result = measure_interleaved({always_succeeding(busy(200000)), busy(100000), {}}, quick_policy());
  EXPECT_GT(result.ratio.median, 1.6);
  EXPECT_LT(result.ratio.median, 2.4);
  EXPECT_GT(result.student_ms.median, result.solution_ms.median);
}

// K calls per sample, each on its own replica: every call is prepared and verified with a seed of
// its own, the calls of a sample run back to back between the events, and the figure is per call
// (the same work per call as with one call per sample, so the ratio stays where it was).
TEST_F(TimingGpu, SeveralCallsPerSampleAreEachPreparedVerifiedAndTimedPerCall) {
  constexpr int kCalls = 4;
  int replica = -1;
  std::vector<int> prepared, verified, student_calls;
  std::vector<std::uint64_t> verify_seeds;
  Workload work{[&](cudaStream_t s) {
                  student_calls.push_back(replica);
                  busy(200000)(s);
                  return cudaSuccess;
                },
                busy(100000),
                [&](std::uint64_t, cudaStream_t) { prepared.push_back(replica); },
                [&](std::uint64_t seed, cudaStream_t) {
                  verified.push_back(replica);
                  verify_seeds.push_back(seed);
                  return std::string();
                }};
  work.calls_per_sample = kCalls;
  work.use_replica = [&](int r) { replica = r; };
  const PairedResult result = measure_interleaved(work, quick_policy());
  EXPECT_TRUE(result.integrity_failure.empty()) << result.integrity_failure;
  EXPECT_GT(result.ratio.median, 1.6);
  EXPECT_LT(result.ratio.median, 2.4);
  ASSERT_EQ(verified.size(), static_cast<std::size_t>(kCalls * result.rounds));
  for (std::size_t i = 0; i < verified.size(); ++i) EXPECT_EQ(verified[i], static_cast<int>(i % kCalls));
  std::vector<std::uint64_t> distinct = verify_seeds;
  std::sort(distinct.begin(), distinct.end());
  EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end()) << "every call of every round its own inputs";
  // Each replica is called once per sample (and once per warm-up launch).
  for (int r = 0; r < kCalls; ++r) {
    EXPECT_EQ(std::count(student_calls.begin(), student_calls.end(), r), quick_policy().warmup + result.rounds);
  }

  // A single call per sample times the same work per call: the figure is per call.
  const PairedResult single = measure_interleaved({always_succeeding(busy(200000)), busy(100000), {}}, quick_policy());
  EXPECT_NEAR(result.student_ms.median, single.student_ms.median, 0.1 * single.student_ms.median);
}

TEST(TimingReplicas, SeveralCallsNeedUseReplica) {
  Workload work{always_succeeding([](cudaStream_t) {}), [](cudaStream_t) {}, {}};
  work.calls_per_sample = 2;
  EXPECT_THROW(qualifying_call(work, 1), std::invalid_argument);
  work.calls_per_sample = 0;
  EXPECT_THROW(qualifying_call(work, 1), std::invalid_argument);
}

TEST(TimingReplicas, ReplicaZeroKeepsTheRoundsSeedAndTheOthersDiffer) {
  EXPECT_EQ(replica_seed(77, 0), 77u);
  EXPECT_NE(replica_seed(77, 1), 77u);
  EXPECT_NE(replica_seed(77, 1), replica_seed(77, 2));
  EXPECT_NE(replica_seed(77, 1), round_seed(77, 1)) << "replica seeds live apart from the rounds'";
}

TEST_F(TimingGpu, PrepareRunsBeforeEverySampleWithTheRoundsSeed) {
  std::vector<char> calls;  // 'r' prepare, 's' student, 'o' solution, in order
  std::vector<std::uint64_t> seeds;
  const Launch student = [&](cudaStream_t s) { calls.push_back('s'); busy(1000)(s); };
  const Launch solution = [&](cudaStream_t s) { calls.push_back('o'); busy(1000)(s); };
  const Prepare prepare = [&](std::uint64_t seed, cudaStream_t) {
    calls.push_back('r');
    seeds.push_back(seed);
  };
  SamplingPolicy policy = quick_policy();
  Workload work{always_succeeding(student), solution, prepare, {}};
  work.seed = 42;
  const PairedResult result = measure_interleaved(work, policy);
  EXPECT_TRUE(result.integrity_failure.empty()) << result.integrity_failure;

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
  // Both sides of a round time the same inputs; every round, and every warm-up, gets new ones.
  const std::size_t first_seed = 2 * static_cast<std::size_t>(policy.warmup);
  for (int round = 0; round < result.rounds; ++round) {
    const std::size_t i = first_seed + 2 * static_cast<std::size_t>(round);
    EXPECT_EQ(seeds[i], seeds[i + 1]) << "round " << round;
    EXPECT_EQ(seeds[i], round_seed(42, static_cast<std::uint64_t>(round)));
  }
  std::vector<std::uint64_t> distinct;
  for (std::size_t i = 0; i < seeds.size(); i += 2) distinct.push_back(seeds[i]);
  std::sort(distinct.begin(), distinct.end());
  EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end()) << "a seed was used in two rounds";
}

TEST_F(TimingGpu, SingleMeasurementPreparesAndStops) {
  int restores = 0;
  int launches = 0;
  const Launch launch = [&](cudaStream_t s) { ++launches; busy(100000)(s); };
  const SamplingPolicy policy = quick_policy();
  const SampleSummary summary = measure_single(launch, [&](std::uint64_t, cudaStream_t) { ++restores; }, policy);
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
  EXPECT_THROW(measure_interleaved({always_succeeding(busy(100)), bad, {}}, quick_policy()), CudaError);
  EXPECT_THROW(measure_single(bad, {}, quick_policy()), CudaError);
}

TEST_F(TimingGpu, RejectsAnInvalidPolicyOrWorkload) {
  SamplingPolicy policy;
  policy.max_samples = 1;
  EXPECT_THROW(measure_interleaved({always_succeeding(busy(100)), busy(100), {}}, policy), std::invalid_argument);
  EXPECT_THROW(measure_interleaved({always_succeeding(busy(100)), {}, {}}, SamplingPolicy{}), std::invalid_argument);
}

// --- A timed call must do the work -------------------------------------------------------------

__global__ void twice(const float* in, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

// out = 2 * in over 2^20 floats, inputs from the round's seed, the output poisoned; the reference
// is the same kernel into a buffer of the check's own.
class TwiceWorkload {
 public:
  static constexpr std::size_t kN = std::size_t{1} << 20;

  TwiceWorkload() : in_(kN), out_(kN), expected_(kN) {}

  static void run(const float* in, float* out, cudaStream_t stream) {
    twice<<<static_cast<unsigned>((kN + 255) / 256), 256, 0, stream>>>(in, out, kN);
  }

  Workload workload(Launch student) {
    Workload work;
    work.student = always_succeeding(std::move(student));
    work.solution = [this](cudaStream_t s) { run(in_.data(), out_.data(), s); };
    work.prepare = [this](std::uint64_t seed, cudaStream_t s) {
      cudalabs::fill_uniform_floats(in_.data(), kN, seed, -1.0f, 1.0f, s);
      cudalabs::poison_async(out_.data(), out_.bytes(), 0xFF, s);
    };
    work.verify = [this](std::uint64_t, cudaStream_t s) {
      run(in_.data(), expected_.data(), s);
      return cudalabs::check_against_reference(expected_.data(), out_.data(), kN, {}, "out", s);
    };
    work.seed = 7;
    return work;
  }

  DeviceBuffer<float> in_, out_, expected_;
};

TEST_F(TimingGpu, AnHonestCallPassesEveryCheck) {
  TwiceWorkload w;
  const PairedResult result =
      measure_interleaved(w.workload([&](cudaStream_t s) { TwiceWorkload::run(w.in_.data(), w.out_.data(), s); }),
                          quick_policy());
  EXPECT_EQ(result.integrity_failure, "");
  EXPECT_EQ(result.verified_samples, result.rounds) << "every round's student call is checked";
  EXPECT_LT(result.samples_with_outstanding_work, kOutstandingWorkStrikes);
}

TEST_F(TimingGpu, ACallThatReusesItsFirstResultIsCaught) {
  TwiceWorkload w;
  int calls = 0;
  // Works once (a warm-up), then returns at once: the output stays poisoned.
  const PairedResult result = measure_interleaved(w.workload([&](cudaStream_t s) {
                                                    if (calls++ == 0) TwiceWorkload::run(w.in_.data(), w.out_.data(), s);
                                                  }),
                                                  quick_policy());
  EXPECT_NE(result.integrity_failure.find("the timed call's result was wrong on sample 1"), std::string::npos)
      << result.integrity_failure;
  EXPECT_NE(result.integrity_failure.find("elements differ"), std::string::npos) << result.integrity_failure;
}

TEST_F(TimingGpu, WorkLeftOnAnotherStreamIsCaught) {
  TwiceWorkload w;
  cudaStream_t own = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
  // The right result, but computed (slowly) on a stream of its own, outside the timed one.
  const PairedResult result = measure_interleaved(w.workload([&](cudaStream_t) {
                                                    busy_work<<<kBlocks, kThreads, 0, own>>>(out_.data(), 100000);
                                                    TwiceWorkload::run(w.in_.data(), w.out_.data(), own);
                                                  }),
                                                  quick_policy());
  CUDALABS_CHECK(cudaStreamDestroy(own));
  EXPECT_NE(result.integrity_failure.find("work was still running on the GPU after the stream you were given finished"),
            std::string::npos)
      << result.integrity_failure;
  EXPECT_GE(result.samples_with_outstanding_work, kOutstandingWorkStrikes);
  EXPECT_GT(result.max_outstanding_ms, kOutstandingWorkLimitMs);
}

// The same work on a side stream the workload declares (a pipeline's stream): forked at the
// start event and joined before the stop event, so it is timed whole, and nothing is left
// running after the sample. Its time is the busy kernel's, as when it runs on the given stream.
TEST_F(TimingGpu, WorkOnDeclaredSideStreamsIsTimedWhole) {
  TwiceWorkload w;
  cudaStream_t side = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  Workload pipeline = w.workload([&](cudaStream_t) {
    busy_work<<<kBlocks, kThreads, 0, side>>>(out_.data(), 20000);
    TwiceWorkload::run(w.in_.data(), w.out_.data(), side);
  });
  pipeline.side_streams = {side};
  pipeline.solution = [&](cudaStream_t s) {
    busy_work<<<kBlocks, kThreads, 0, s>>>(out_.data(), 20000);
    TwiceWorkload::run(w.in_.data(), w.out_.data(), s);
  };
  EXPECT_EQ(qualifying_call(pipeline, 5), "") << "the join makes the check wait for the side stream";
  const PairedResult result = measure_interleaved(pipeline, quick_policy());
  CUDALABS_CHECK(cudaStreamDestroy(side));
  EXPECT_EQ(result.integrity_failure, "");
  EXPECT_EQ(result.samples_with_outstanding_work, 0);
  EXPECT_NEAR(result.ratio.median, 1.0, 0.1) << "student " << result.student_ms.median << " ms, solution "
                                             << result.solution_ms.median << " ms";
}

TEST_F(TimingGpu, ACallThatRewritesItsInputIsCaughtBySealedInputs) {
  TwiceWorkload w;
  // Zeroes its input and its output: consistent with each other, so a reference computed from
  // the input after the call would agree; only the seal taken before the call tells.
  const Launch rewrites = [&](cudaStream_t s) {
    CUDALABS_CHECK(cudaMemsetAsync(w.in_.data(), 0, w.in_.bytes(), s));
    CUDALABS_CHECK(cudaMemsetAsync(w.out_.data(), 0, w.out_.bytes(), s));
  };
  Workload unsealed = w.workload(rewrites);
  EXPECT_EQ(measure_interleaved(unsealed, quick_policy()).integrity_failure, "")
      << "without the seal the rewrite goes unnoticed (what the seal is for)";
  Workload sealed = w.workload(rewrites);
  sealed.sealed_inputs = {{w.in_.data(), w.in_.bytes(), "in"}};
  const PairedResult result = measure_interleaved(sealed, quick_policy());
  EXPECT_NE(result.integrity_failure.find("its input in was changed"), std::string::npos) << result.integrity_failure;
  EXPECT_NE(qualifying_call(sealed, 99).find("its input in was changed"), std::string::npos);
}

TEST_F(TimingGpu, AStatusOtherThanSuccessFailsTheCall) {
  TwiceWorkload w;
  Workload todo = w.workload([](cudaStream_t) {});
  todo.student = [](cudaStream_t) { return cudaErrorNotYetImplemented; };
  EXPECT_EQ(qualifying_call(todo, 3), "the call is still a TODO(student): it returned cudaErrorNotYetImplemented");
  // Right on the first calls, then an error: the timed sample it came back from fails the case.
  int calls = 0;
  todo.student = [&](cudaStream_t s) {
    TwiceWorkload::run(w.in_.data(), w.out_.data(), s);
    return ++calls > 5 ? cudaErrorInvalidValue : cudaSuccess;
  };
  const PairedResult result = measure_interleaved(todo, quick_policy());
  EXPECT_NE(result.integrity_failure.find("failed: the call returned cudaErrorInvalidValue"), std::string::npos)
      << result.integrity_failure;
}

TEST_F(TimingGpu, TheQualifyingCallChecksOneUntimedCall) {
  TwiceWorkload w;
  Workload honest = w.workload([&](cudaStream_t s) { TwiceWorkload::run(w.in_.data(), w.out_.data(), s); });
  honest.sealed_inputs = {{w.in_.data(), w.in_.bytes(), "in"}};
  EXPECT_EQ(qualifying_call(honest, 5), "");
  Workload idle = w.workload([](cudaStream_t) {});  // writes nothing: the output stays poisoned
  EXPECT_NE(qualifying_call(idle, 5).find("elements differ"), std::string::npos);
}

// No schedule to detect: a call that skips its work on one timed call out of many, whichever it
// is, is caught on that call.
TEST_F(TimingGpu, EveryTimedCallIsChecked) {
  const int warmup = quick_policy().warmup;
  for (const int lazy_call : {2, 5, 8}) {
    TwiceWorkload w;
    int calls = 0;
    Workload lazy = w.workload([&](cudaStream_t s) {
      if (++calls != warmup + lazy_call) TwiceWorkload::run(w.in_.data(), w.out_.data(), s);
    });
    const PairedResult result = measure_interleaved(lazy, quick_policy());
    EXPECT_EQ(result.integrity_failure.rfind("the timed call's result was wrong on sample " + std::to_string(lazy_call), 0),
              0u)
        << result.integrity_failure;
    EXPECT_EQ(result.verified_samples, lazy_call);
  }
}

// An input that changes while the reference runs (the student's runner holds its memory too, and
// could rewrite it into a pattern slow for the reference) fails the case.
TEST_F(TimingGpu, AnInputChangedDuringTheReferencesSampleFailsTheCase) {
  TwiceWorkload w;
  Workload work = w.workload([&](cudaStream_t s) { TwiceWorkload::run(w.in_.data(), w.out_.data(), s); });
  work.sealed_inputs = {{w.in_.data(), w.in_.bytes(), "in"}};
  work.solution = [&](cudaStream_t s) {
    TwiceWorkload::run(w.in_.data(), w.out_.data(), s);
    CUDALABS_CHECK(cudaMemsetAsync(w.in_.data(), 0, sizeof(float), s));
  };
  const PairedResult result = measure_interleaved(work, quick_policy());
  EXPECT_NE(result.integrity_failure.find("the input in changed while the reference ran on sample 1"), std::string::npos)
      << result.integrity_failure;
}

TEST_F(TimingGpu, TheFlushResetsPersistingL2) {
  L2Flusher flusher;
  if (!flusher.has_persisting_l2()) GTEST_SKIP() << "this GPU has no persisting L2 lines";
  int device = 0;
  int max_persisting = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device));
  CUDALABS_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(max_persisting)));
  std::size_t limit = 0;
  CUDALABS_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  ASSERT_GT(limit, 0u);
  flusher.flush(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  CUDALABS_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(limit, 0u) << "the persisting carve-out survived the flush";
}

TEST_F(TimingGpu, Fp32PeakIsPlausible) {
  const double peak = fp32_peak_gflops();
  EXPECT_GT(peak, 1000.0);
  EXPECT_LT(peak, 1e6);
  EXPECT_EQ(fp32_peak_gflops(), peak);
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
