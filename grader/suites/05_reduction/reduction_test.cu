// Lab 05 hidden suite: edge sizes, sizes that are not multiples of any block size, the full 2^26,
// several seeds, misaligned input, int overflow, float orders, NaN, infinities, signed zeros, the
// maximum at either end. Every case first runs the reference solution and checks it against the
// CPU, so a broken reference shows up as a grader bug rather than as lost points; then the
// student's answer, the input (bit for bit), and the guard zones of input, result and workspace.
// The 2^26-element cases are made and checked on the GPU instead: inputs from the device
// generators, sealed by host-held checksums while the student's code runs; after it, an oracle
// on the GPU (sums in double, the maximum) computes the expected value from the verified input,
// and the reference solution is checked against that oracle.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"

namespace {

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";
constexpr std::size_t k2To26 = std::size_t{1} << 26;
constexpr std::size_t kLargePrime = 1000003;
constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Not multiples of 32, 128, 256, 512 or 1024 (nor of 4, so vector loads leave a tail), around
// the block sizes students pick, plus a large prime.
const std::size_t kRaggedSizes[] = {2, 3, 31, 33, 255, 257, 1023, 1025, 4097, 65537, kLargePrime};

std::string describe(const char* function, std::size_t n, const std::string& what, std::size_t offset) {
  return std::string(function) + " case: " + what + ", n = " + std::to_string(n) +
         (offset ? ", input starting " + std::to_string(offset) + " elements into its allocation (not 16-byte aligned)"
                 : std::string());
}

void check_sum_int(const std::vector<int>& x, const std::string& what, std::size_t offset = 0) {
  SCOPED_TRACE(describe("sum_int", x.size(), what, offset));
  const int expected = lab05::cpu_sum_int(x);
  {  // The reference first; its buffers are freed before the student's are allocated.
    const auto ref = lab05::run_reduction<int>(&solution::sum_int, "solution::sum_int", x, offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab05::int_result_is(expected, ref, "reference sum")) << kGraderBug;
  }
  const auto run = lab05::run_reduction<int>(&student::sum_int, "sum_int", x, offset);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_int"));
  EXPECT_TRUE(lab05::int_result_is(expected, run, "sum of the ints (modulo 2^32)"));
}

// `exact`: the data make every order exact (see lab05::exactly_summable_floats), so no tolerance.
void check_sum_float(const std::vector<float>& x, const std::string& what, std::size_t offset = 0,
                     bool exact = false) {
  SCOPED_TRACE(describe("sum_float", x.size(), what, offset));
  const double expected = lab05::cpu_sum_double(x);
  const cudalabs::Tolerance tolerance =
      exact ? cudalabs::Tolerance{0, 0} : lab05::sum_float_tolerance(x, cudalabs::lab_tolerance("sum_float"));
  {
    const auto ref = lab05::run_reduction<float>(&solution::sum_float, "solution::sum_float", x, offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab05::float_result_is(expected, ref, tolerance, "reference sum")) << kGraderBug;
  }
  const auto run = lab05::run_reduction<float>(&student::sum_float, "sum_float", x, offset);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_float"));
  EXPECT_TRUE(lab05::float_result_is(expected, run, tolerance,
                                     exact ? "sum of the floats (exact in every order for these values)"
                                           : "sum of the floats (tolerance scales with sum |x_i|)"));
}

void check_max_float(const std::vector<float>& x, const std::string& what, std::size_t offset = 0) {
  SCOPED_TRACE(describe("max_float", x.size(), what, offset));
  const float expected = lab05::cpu_max_float(x);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("max_float");
  {
    const auto ref = lab05::run_reduction<float>(&solution::max_float, "solution::max_float", x, offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab05::float_result_is(expected, ref, tolerance, "reference maximum")) << kGraderBug;
  }
  const auto run = lab05::run_reduction<float>(&student::max_float, "max_float", x, offset);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "max_float"));
  EXPECT_TRUE(lab05::float_result_is(expected, run, tolerance, "maximum (NaN ignored, -inf when none)"));
}

// --- large cases: made and checked on the GPU -----------------------------------------------

template <class T>
using Recipe = typename cudalabs::GeneratedInput<T>::Recipe;

template <class T>
__global__ void fill_with(T* out, std::size_t n, T value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) out[i] = value;
}

template <class T>
Recipe<T> all_equal(std::size_t n, T value) {
  return [n, value](T* out) {
    fill_with<<<1024, 256>>>(out, n, value);
    CUDALABS_CHECK_LAUNCH();
  };
}

// Floats as unsigned keys in the same order (NaN excluded), so atomicMax finds the largest.
__device__ unsigned int order_key(float v) {
  const unsigned int bits = __float_as_uint(v);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

float from_order_key(unsigned int key) {
  const unsigned int bits = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// The key of -infinity: what the maximum of nothing (or of only NaN) is.
constexpr unsigned int order_key_of_minus_infinity() { return ~0xFF800000u; }

// What the CPU references compute, on the device: the int sum modulo 2^32, the float sum and
// sum |x_i| in double (their rounding, in any order, is ~2^-27 of sum |x_i|: far inside the
// tolerance), the maximum ignoring NaN.
struct OracleSums {
  unsigned int int_sum;
  unsigned int max_key;
  double sum;
  double sum_abs;
};

template <class T>
__global__ void oracle_kernel(const T* x, std::size_t n, OracleSums* out) {
  unsigned int int_sum = 0, max_key = 0;
  double sum = 0, sum_abs = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_same_v<T, int>) {
      int_sum += static_cast<unsigned int>(x[i]);
    } else {
      const float v = x[i];
      sum += v;
      sum_abs += fabs(static_cast<double>(v));
      if (!isnan(v)) max_key = max(max_key, order_key(v));
    }
  }
  for (int step = 16; step > 0; step /= 2) {
    int_sum += __shfl_down_sync(0xFFFFFFFFu, int_sum, step);
    max_key = max(max_key, __shfl_down_sync(0xFFFFFFFFu, max_key, step));
    sum += __shfl_down_sync(0xFFFFFFFFu, sum, step);
    sum_abs += __shfl_down_sync(0xFFFFFFFFu, sum_abs, step);
  }
  if (threadIdx.x % 32 != 0) return;
  atomicAdd(&out->int_sum, int_sum);
  atomicMax(&out->max_key, max_key);
  atomicAdd(&out->sum, sum);
  atomicAdd(&out->sum_abs, sum_abs);
}

template <class T>
OracleSums oracle(const T* x, std::size_t n) {
  cudalabs::DeviceBuffer<OracleSums> out(1);
  const OracleSums start{0, order_key_of_minus_infinity(), 0, 0};
  CUDALABS_CHECK(cudaMemcpy(out.data(), &start, sizeof start, cudaMemcpyHostToDevice));
  oracle_kernel<<<1024, 256>>>(x, n, out.data());
  CUDALABS_CHECK_LAUNCH();
  OracleSums result{};
  CUDALABS_CHECK(cudaMemcpy(&result, out.data(), sizeof result, cudaMemcpyDeviceToHost));
  return result;
}

// memory_respected for a sealed input: the same checks in the same order, the input's on the GPU.
template <class T>
::testing::AssertionResult memory_respected_on_gpu(const lab05::ReductionOutputs<T>& run,
                                                   const cudalabs::GeneratedInput<T>& in, const std::string& function) {
  if (auto ok = run.result.guards_intact(function, "result"); !ok) return ok;
  if (auto ok = run.workspace.guards_intact(function, "workspace"); !ok) return ok;
  if (auto ok = in.guards_intact(function, "in"); !ok) return ok;
  return in.unmodified(function, "in");
}

// The three checks below: the student's call on a sealed input, then the oracle and the
// reference solution on the verified input, then the student's answer.
void check_sum_int_on_gpu(std::size_t n, const Recipe<int>& recipe, const std::string& what) {
  SCOPED_TRACE(describe("sum_int", n, what, 0));
  const cudalabs::GeneratedInput<int> in(n, 0, recipe);
  const auto run = lab05::call_reduction<int>(&student::sum_int, "sum_int", in.data(), n);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(memory_respected_on_gpu(run, in, "sum_int"));
  const int expected = static_cast<int>(oracle(in.trusted(), n).int_sum);
  const auto ref = lab05::call_reduction<int>(&solution::sum_int, "solution::sum_int", in.trusted(), n);
  ASSERT_TRUE(ref.status) << kGraderBug;
  ASSERT_TRUE(lab05::int_result_is(expected, ref, "reference sum")) << kGraderBug;
  EXPECT_TRUE(lab05::int_result_is(expected, run, "sum of the ints (modulo 2^32)"));
}

void check_sum_float_on_gpu(std::size_t n, const Recipe<float>& recipe, const std::string& what) {
  SCOPED_TRACE(describe("sum_float", n, what, 0));
  const cudalabs::GeneratedInput<float> in(n, 0, recipe);
  const auto run = lab05::call_reduction<float>(&student::sum_float, "sum_float", in.data(), n);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(memory_respected_on_gpu(run, in, "sum_float"));
  const OracleSums sums = oracle(in.trusted(), n);
  const cudalabs::Tolerance yaml = cudalabs::lab_tolerance("sum_float");
  const cudalabs::Tolerance tolerance{yaml.abs + yaml.rel * sums.sum_abs, 0.0};  // lab05::sum_float_tolerance
  const auto ref = lab05::call_reduction<float>(&solution::sum_float, "solution::sum_float", in.trusted(), n);
  ASSERT_TRUE(ref.status) << kGraderBug;
  ASSERT_TRUE(lab05::float_result_is(sums.sum, ref, tolerance, "reference sum")) << kGraderBug;
  EXPECT_TRUE(lab05::float_result_is(sums.sum, run, tolerance, "sum of the floats (tolerance scales with sum |x_i|)"));
}

void check_max_float_on_gpu(std::size_t n, const Recipe<float>& recipe, const std::string& what) {
  SCOPED_TRACE(describe("max_float", n, what, 0));
  const cudalabs::GeneratedInput<float> in(n, 0, recipe);
  const auto run = lab05::call_reduction<float>(&student::max_float, "max_float", in.data(), n);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(memory_respected_on_gpu(run, in, "max_float"));
  const float expected = from_order_key(oracle(in.trusted(), n).max_key);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("max_float");
  const auto ref = lab05::call_reduction<float>(&solution::max_float, "solution::max_float", in.trusted(), n);
  ASSERT_TRUE(ref.status) << kGraderBug;
  ASSERT_TRUE(lab05::float_result_is(expected, ref, tolerance, "reference maximum")) << kGraderBug;
  EXPECT_TRUE(lab05::float_result_is(expected, run, tolerance, "maximum (NaN ignored, -inf when none)"));
}

class SumInt : public cudalabs::GpuTest {};
class SumFloat : public cudalabs::GpuTest {};
class MaxFloat : public cudalabs::GpuTest {};

// --- sum_int ---------------------------------------------------------------------------------

TEST_F(SumInt, ZeroLength) { check_sum_int({}, "empty input: the result is 0"); }

TEST_F(SumInt, SingleElement) {
  check_sum_int({-7}, "one element");
  check_sum_int({std::numeric_limits<int>::min()}, "one element, the lowest int");
}

TEST_F(SumInt, NotMultiplesOfBlockSizes) {
  std::uint64_t seed = 1100;
  for (std::size_t n : kRaggedSizes) {
    ASSERT_NO_FATAL_FAILURE(check_sum_int(cudalabs::uniform_ints(n, ++seed, -1000, 1000), "values in [-1000, 1000]"));
  }
}

TEST_F(SumInt, Full2To26) {
  check_sum_int_on_gpu(k2To26, [](int* out) { cudalabs::fill_uniform_ints(out, k2To26, 1201, -1000, 1000); },
                       "values in [-1000, 1000]");
}

TEST_F(SumInt, SeveralSeeds) {
  for (std::uint64_t seed : {1301, 1302, 1303, 1304}) {
    ASSERT_NO_FATAL_FAILURE(check_sum_int(cudalabs::uniform_ints(123457 + seed % 7, seed, -50000, 50000),
                                          "values in [-50000, 50000], seed " + std::to_string(seed)));
  }
}

TEST_F(SumInt, WrapsAround) {
  // Every int is possible: the sum overflows many times and is defined modulo 2^32.
  const int lo = std::numeric_limits<int>::min();
  const int hi = std::numeric_limits<int>::max();
  ASSERT_NO_FATAL_FAILURE(check_sum_int(cudalabs::uniform_ints(kLargePrime, 1401, lo, hi), "values over the whole int range"));
  ASSERT_NO_FATAL_FAILURE(check_sum_int(std::vector<int>(65537, hi), "65537 times INT_MAX"));
}

TEST_F(SumInt, MisalignedInput) {
  std::uint64_t seed = 1500;
  for (std::size_t offset : {1, 2, 3}) {
    for (std::size_t n : {1, 2, 3, 5, 1027, 100003}) {
      ASSERT_NO_FATAL_FAILURE(check_sum_int(cudalabs::uniform_ints(n, ++seed, -1000, 1000), "values in [-1000, 1000]", offset));
    }
  }
}

TEST_F(SumInt, AllEqual) {
  ASSERT_NO_FATAL_FAILURE(check_sum_int_on_gpu(k2To26, all_equal(k2To26, -1), "2^26 times -1"));
  ASSERT_NO_FATAL_FAILURE(check_sum_int(std::vector<int>(kLargePrime, 7), "all 7"));
}

// --- sum_float -------------------------------------------------------------------------------

TEST_F(SumFloat, ZeroLength) { check_sum_float({}, "empty input: the result is 0", 0, true); }

TEST_F(SumFloat, SingleElement) {
  check_sum_float({-3.25f}, "one element", 0, true);
  check_sum_float({1.0e30f}, "one large element", 0, true);
}

TEST_F(SumFloat, ExactInAnyOrder) {
  // Multiples of 1/128 in [-1, 1], at most 2^16 of them: every order gives the exact sum, so a
  // missing or doubled element shows up even though float sums usually need a tolerance.
  std::uint64_t seed = 2100;
  for (std::size_t n : {2, 31, 33, 257, 1025, 4097, 65536}) {
    const std::vector<float> x = lab05::exactly_summable_floats(cudalabs::uniform_ints(n, ++seed, -128, 128));
    ASSERT_NO_FATAL_FAILURE(check_sum_float(x, "multiples of 1/128 (exact in every order)", 0, true));
  }
  const std::vector<float> x = lab05::exactly_summable_floats(cudalabs::uniform_ints(65535, 2199, 0, 128));
  ASSERT_NO_FATAL_FAILURE(check_sum_float(x, "non-negative multiples of 1/128 (exact in every order)", 3, true));
}

TEST_F(SumFloat, NotMultiplesOfBlockSizes) {
  std::uint64_t seed = 2200;
  for (std::size_t n : kRaggedSizes) {
    ASSERT_NO_FATAL_FAILURE(check_sum_float(cudalabs::uniform_floats(n, ++seed), "uniform in [-1, 1)"));
  }
}

TEST_F(SumFloat, Full2To26) {
  check_sum_float_on_gpu(k2To26, [](float* out) { cudalabs::fill_uniform_floats(out, k2To26, 2301); }, "uniform in [-1, 1)");
}

TEST_F(SumFloat, Full2To26Positive) {
  // All positive, no cancellation: a running sum that adds one element at a time stalls once the
  // total is so large that adding a value below 1 no longer changes it (here at about 2^24-2^25).
  check_sum_float_on_gpu(k2To26, [](float* out) { cudalabs::fill_uniform_floats(out, k2To26, 2401, 0.0f, 1.0f); },
                         "uniform in [0, 1)");
}

TEST_F(SumFloat, AllEqual) {
  ASSERT_NO_FATAL_FAILURE(check_sum_float_on_gpu(k2To26, all_equal(k2To26, 1.0f), "2^26 times 1.0"));
  ASSERT_NO_FATAL_FAILURE(check_sum_float(std::vector<float>(kLargePrime, 0.1f), "all 0.1"));
}

TEST_F(SumFloat, AlternatingLargeSmall) {
  std::vector<float> grow(kLargePrime), cancel(kLargePrime);
  for (std::size_t i = 0; i < kLargePrime; ++i) {
    grow[i] = i % 2 == 0 ? 4096.0f : 1.0f / 1024;               // small values lost next to large ones
    cancel[i] = i % 2 == 0 ? 1048576.0f : -1048576.0f + 0.25f;  // large values cancelling pairwise
  }
  ASSERT_NO_FATAL_FAILURE(check_sum_float(grow, "alternating 4096 and 1/1024"));
  ASSERT_NO_FATAL_FAILURE(check_sum_float(cancel, "alternating 2^20 and -2^20 + 0.25"));
}

TEST_F(SumFloat, MisalignedInput) {
  std::uint64_t seed = 2500;
  for (std::size_t offset : {1, 2, 3}) {
    for (std::size_t n : {1, 2, 3, 5, 1027, 100003}) {
      ASSERT_NO_FATAL_FAILURE(check_sum_float(cudalabs::uniform_floats(n, ++seed), "uniform in [-1, 1)", offset));
    }
  }
}

TEST_F(SumFloat, SeveralSeeds) {
  for (std::uint64_t seed : {2601, 2602, 2603, 2604}) {
    ASSERT_NO_FATAL_FAILURE(check_sum_float(cudalabs::uniform_floats(123457 + seed % 7, seed, -1000.0f, 1000.0f),
                                            "uniform in [-1000, 1000), seed " + std::to_string(seed)));
  }
}

// --- max_float -------------------------------------------------------------------------------

TEST_F(MaxFloat, ZeroLength) { check_max_float({}, "empty input: the result is -infinity"); }

TEST_F(MaxFloat, SingleElement) {
  check_max_float({-3.25f}, "one negative element");
  check_max_float({kNaN}, "one NaN: nothing left, the result is -infinity");
}

TEST_F(MaxFloat, MaxAtEitherEnd) {
  std::uint64_t seed = 3100;
  for (std::size_t n : {std::size_t{2}, std::size_t{33}, std::size_t{1025}, kLargePrime}) {
    std::vector<float> x = cudalabs::uniform_floats(n, ++seed);
    x.front() = 2.0f;
    ASSERT_NO_FATAL_FAILURE(check_max_float(x, "the maximum at index 0"));
    x.front() = 0.0f;
    x.back() = 2.0f;
    ASSERT_NO_FATAL_FAILURE(check_max_float(x, "the maximum at index n-1"));
  }
}

TEST_F(MaxFloat, NegativeOnly) {
  // A result initialised to 0 instead of -infinity would show here.
  std::uint64_t seed = 3200;
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{4097}, kLargePrime}) {
    ASSERT_NO_FATAL_FAILURE(check_max_float(cudalabs::uniform_floats(n, ++seed, -1000.0f, -1.0f), "all in [-1000, -1)"));
  }
}

TEST_F(MaxFloat, NotMultiplesOfBlockSizes) {
  std::uint64_t seed = 3300;
  for (std::size_t n : kRaggedSizes) {
    ASSERT_NO_FATAL_FAILURE(check_max_float(cudalabs::uniform_floats(n, ++seed, -1.0e6f, 1.0e6f), "uniform in [-1e6, 1e6)"));
  }
}

TEST_F(MaxFloat, Full2To26) {
  check_max_float_on_gpu(k2To26, [](float* out) {
    cudalabs::fill_uniform_floats(out, k2To26, 3401, -1.0f, 1.0f);
    const float maximum = 1.5f;  // a unique maximum near the end
    CUDALABS_CHECK(cudaMemcpy(out + (k2To26 - 3), &maximum, sizeof maximum, cudaMemcpyHostToDevice));
  }, "uniform in [-1, 1), unique maximum at n-3");
}

TEST_F(MaxFloat, NaNIgnored) {
  std::vector<float> x = cudalabs::uniform_floats(kLargePrime, 3501, -10.0f, -1.0f);
  for (std::size_t i = 0; i < x.size(); i += 7) x[i] = kNaN;
  x.back() = kNaN;
  ASSERT_NO_FATAL_FAILURE(check_max_float(x, "every 7th element and the last one NaN, the rest negative"));
  ASSERT_NO_FATAL_FAILURE(check_max_float(std::vector<float>(4097, kNaN), "all NaN: the result is -infinity"));
}

TEST_F(MaxFloat, SignedZeros) {
  std::vector<float> x = cudalabs::uniform_floats(10007, 3601, -5.0f, -1.0f);
  x[17] = -0.0f;
  x[5000] = 0.0f;
  ASSERT_NO_FATAL_FAILURE(check_max_float(x, "negatives, one -0.0 and one +0.0 (either zero is accepted)"));
  ASSERT_NO_FATAL_FAILURE(check_max_float(std::vector<float>(1027, -0.0f), "all -0.0 (either zero is accepted)"));
}

TEST_F(MaxFloat, Infinities) {
  std::vector<float> x = cudalabs::uniform_floats(65537, 3701);
  x[40000] = kInf;
  ASSERT_NO_FATAL_FAILURE(check_max_float(x, "one +infinity"));
  ASSERT_NO_FATAL_FAILURE(check_max_float(std::vector<float>(4099, -kInf), "all -infinity"));
}

TEST_F(MaxFloat, MisalignedInput) {
  std::uint64_t seed = 3800;
  for (std::size_t offset : {1, 2, 3}) {
    for (std::size_t n : {1, 2, 3, 5, 1027, 100003}) {
      std::vector<float> x = cudalabs::uniform_floats(n, ++seed, -100.0f, -1.0f);
      x[seed % 2 == 0 ? 0 : n - 1] = -0.5f;  // in the scalar head or in the tail
      ASSERT_NO_FATAL_FAILURE(check_max_float(x, "negatives, maximum at one end", offset));
    }
  }
}

TEST_F(MaxFloat, AllEqual) {
  ASSERT_NO_FATAL_FAILURE(check_max_float(std::vector<float>(kLargePrime, -2.5f), "all -2.5"));
  ASSERT_NO_FATAL_FAILURE(check_max_float_on_gpu(k2To26, all_equal(k2To26, 3.0f), "2^26 times 3.0"));
}

}  // namespace
