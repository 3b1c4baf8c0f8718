// Lab 05 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 05_reduction
// The grader runs these too, plus hidden cases (sizes 1, primes, sizes that are not multiples of
// any block size, 2^26, several seeds, misaligned input, overflow, NaN, infinities, signed zeros,
// the maximum at either end); see README.md.
// Preview.* time sum_float and max_float alone at 2^26 elements against 75% of your GPU's copy
// bandwidth: a preview of the graded timed cases, worth no points (see "What fast means here" in
// README.md).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_preview.hpp"
#include "lab05_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "reduction.cuh"
#undef LAB_IMPL

static_assert(student::kReductionWorkspaceBytes == lab05::kWorkspaceBytes, "workspace size out of sync");

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// 1000 is not a multiple of a warp or of a typical block size.
constexpr std::size_t kSmall = 1000;

TEST_F(SelfCheck, SumIntSmall) {
  const std::vector<int> x = cudalabs::uniform_ints(kSmall, 501, -1000, 1000);
  const auto run = lab05::run_reduction<int>(&student::sum_int, "sum_int", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_int"));
  EXPECT_TRUE(lab05::int_result_is(lab05::cpu_sum_int(x), run, "sum of the ints"));
}

TEST_F(SelfCheck, SumFloatSmall) {
  const std::vector<float> x = cudalabs::uniform_floats(kSmall, 502);
  const auto run = lab05::run_reduction<float>(&student::sum_float, "sum_float", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_float"));
  const cudalabs::Tolerance tolerance = lab05::sum_float_tolerance(x, cudalabs::lab_tolerance("sum_float"));
  EXPECT_TRUE(lab05::float_result_is(lab05::cpu_sum_double(x), run, tolerance, "sum of the floats"));
}

TEST_F(SelfCheck, MaxFloatSmall) {
  std::vector<float> x = cudalabs::uniform_floats(kSmall, 503, -100.0f, 0.0f);  // all negative
  x[kSmall - 1] = -0.5f;  // the maximum is the very last element
  const auto run = lab05::run_reduction<float>(&student::max_float, "max_float", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "max_float"));
  EXPECT_TRUE(lab05::float_result_is(lab05::cpu_max_float(x), run, cudalabs::lab_tolerance("max_float"),
                                     "maximum of the floats"));
}

TEST_F(SelfCheck, ZeroLength) {
  // n == 0: in may be null, but the result is still written: 0, 0.0f, -infinity.
  const auto ints = lab05::run_reduction<int>(&student::sum_int, "sum_int", {});
  ASSERT_TRUE(ints.status);
  EXPECT_TRUE(lab05::int_result_is(0, ints, "sum of no ints"));

  const auto sums = lab05::run_reduction<float>(&student::sum_float, "sum_float", {});
  ASSERT_TRUE(sums.status);
  EXPECT_TRUE(lab05::float_result_is(0.0, sums, {0, 0}, "sum of no floats"));

  const auto maxima = lab05::run_reduction<float>(&student::max_float, "max_float", {});
  ASSERT_TRUE(maxima.status);
  EXPECT_TRUE(lab05::float_result_is(-std::numeric_limits<double>::infinity(), maxima, {0, 0},
                                     "maximum of no floats"));
}

// --- Timing previews --------------------------------------------------------------------------
// Your function alone at the graded size, 2^26 elements (256 MiB read per call), on fresh inputs
// every sample; every sample's result is checked against a CPU reference of that sample's input.

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

using cudalabs::timing::round_seed;

// Puts a maximum no other element reaches at a place the seed chooses, so that each sample's
// maximum is its own (the largest of 2^26 uniform floats is nearly always the same value).
__global__ void plant_maximum(float* x, std::size_t index, float value) { x[index] = value; }

// n values of device memory, copied to the host once the stream's work is done.
template <class T>
std::vector<T> download(const T* device, std::size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  CUDALABS_CHECK(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Times `fn` on kTimedSize floats that `generate` makes afresh for every sample; `expected`
// returns the CPU's answer and the allowed difference for one sample's input.
template <class Generate, class Expected>
void preview_float_reduction(const char* name, lab05::ReduceFn<float> fn, Generate generate, Expected expected) {
  cudalabs::DeviceBuffer<float> in(kTimedSize), result(1);
  cudalabs::DeviceBuffer<unsigned char> workspace(lab05::kWorkspaceBytes);
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate(in.data(), seed, stream);
    cudalabs::poison_async(result.data(), result.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return fn(in.data(), kTimedSize, result.data(), workspace.data(), stream);
  };
  // The input is checked unchanged before this runs, so its copy is the sample's input.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    const std::vector<float> x = download(in.data(), kTimedSize, stream);
    const float actual = download(result.data(), 1, stream)[0];
    const auto [want, allowed] = expected(x);
    const double difference = std::fabs(static_cast<double>(actual) - want);
    if (difference <= allowed) return "";  // false for NaN (the poison)
    std::ostringstream text;
    text.precision(9);
    text << name << " of 2^26 elements returned " << static_cast<double>(actual) << ", the CPU " << want
         << " (allowed difference " << allowed << ")";
    return text.str();
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "in"}};
  work.bytes = static_cast<double>(kTimedSize) * sizeof(float);  // every element read once
  work.flops = static_cast<double>(kTimedSize);
  cudalabs::run_performance_preview(name, work);
}

TEST_F(Preview, sum_float) {
  const cudalabs::Tolerance yaml = cudalabs::lab_tolerance("sum_float");
  preview_float_reduction(
      "sum_float", &student::sum_float,
      [](float* data, std::uint64_t seed, cudaStream_t stream) {
        cudalabs::fill_uniform_floats(data, kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
      },
      [yaml](const std::vector<float>& x) {
        return std::pair<double, double>{lab05::cpu_sum_double(x), lab05::sum_float_tolerance(x, yaml).abs};
      });
}

TEST_F(Preview, max_float) {
  preview_float_reduction(
      "max_float", &student::max_float,
      [](float* data, std::uint64_t seed, cudaStream_t stream) {
        cudalabs::fill_uniform_floats(data, kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
        const std::uint64_t where = round_seed(seed, 1);
        const float value = 1.0f + static_cast<float>(where >> 40) * 0x1.0p-24f;  // in [1, 2)
        plant_maximum<<<1, 1, 0, stream>>>(data, where % kTimedSize, value);
        CUDALABS_CHECK_LAUNCH();
      },
      [](const std::vector<float>& x) {
        return std::pair<double, double>{static_cast<double>(lab05::cpu_max_float(x)),
                                         cudalabs::lab_tolerance("max_float").abs};
      });
}

}  // namespace
