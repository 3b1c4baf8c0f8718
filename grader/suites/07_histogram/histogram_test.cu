// Lab 07 hidden suite: sizes 0, 1, primes, 2^28 bytes; data starting 1 to 15 bytes past a
// 16-byte boundary (students vectorise); uniform, all-equal (the contention case), few-valued and
// sorted data; several seeds; inputs left intact; bins poisoned with guard counters around them.
// Every case also runs the reference solution and checks it against the CPU first, so a broken
// reference shows up as a grader bug rather than as lost points. Cases of kMadeOnTheGpu bytes and
// more are made and checked on the GPU instead: data from the device generators, sealed by a
// host-held checksum while the student's code runs, and the expected bins counted by the
// reference solution only after it has finished.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/gpu_test.hpp"
#include "implementations.cuh"
#include "lab07_test_support.cuh"

namespace {

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

constexpr std::size_t k2To28 = std::size_t{1} << 28;
// From this size on, a case is made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;
// Primes: no multiple of a warp, a block, or a 4- or 16-byte vector. 15485863 is the millionth.
constexpr std::size_t kPrimes[] = {2, 3, 13, 17, 31, 257, 4099, 65537, 1000003, 15485863};

// One lab function under both names.
struct Api {
  lab07::HistogramFn student;
  lab07::HistogramFn solution;
  const char* name;
};

const Api kGlobal{&student::histogram_global_atomics, &solution::histogram_global_atomics, "histogram_global_atomics"};
const Api kShared{&student::histogram_shared, &solution::histogram_shared, "histogram_shared"};

// `data` placed `offset` bytes into its allocation (cudaMalloc is 256-byte aligned, so offset % 16
// is the pointer's misalignment); `what` describes the data for the failure message.
void check_case(const Api& api, const std::vector<unsigned char>& data, std::size_t offset, const std::string& what,
                bool check_input = false) {
  SCOPED_TRACE(std::string(api.name) + " case: n = " + std::to_string(data.size()) + ", " + what + ", data starts " +
               std::to_string(offset) + " bytes into its allocation");
  const std::vector<unsigned int> expected = lab07::cpu_histogram(data);
  {  // The reference first; its buffers are freed before the student's are allocated.
    lab07::HistogramRun ref = lab07::run_histogram(api.solution, std::string("solution::") + api.name, data, offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab07::bins_match(expected, ref.bins.values(), "reference bins")) << kGraderBug;
  }
  lab07::expect_histogram(api.student, api.name, data, expected, offset, check_input);
}

std::string seed_text(std::uint64_t seed) { return "uniform random bytes, seed " + std::to_string(seed); }
std::string value_text(unsigned value) { return "every byte equal to " + std::to_string(value); }

// check_case for data made on the device by `recipe`: the same checks and messages.
void check_case_on_gpu(const Api& api, std::size_t n, const cudalabs::GeneratedInput<unsigned char>::Recipe& recipe,
                       std::size_t offset, const std::string& what, bool check_input = false) {
  SCOPED_TRACE(std::string(api.name) + " case: n = " + std::to_string(n) + ", " + what + ", data starts " +
               std::to_string(offset) + " bytes into its allocation");
  const cudalabs::GeneratedInput<unsigned char> data(n, offset, recipe);
  lab07::GuardedBins bins = lab07::poisoned_bins();
  ASSERT_TRUE(lab07::call_and_wait(api.name, n, [&] { return api.student(data.data(), n, bins.data(), nullptr); }));
  // The expected bins exist only from here on, counted from data whose checksum holds.
  lab07::GuardedBins reference = lab07::poisoned_bins();
  ASSERT_TRUE(lab07::call_and_wait(std::string("solution::") + api.name, n,
                                   [&] { return api.solution(data.trusted(), n, reference.data(), nullptr); }))
      << kGraderBug;
  const std::vector<unsigned int> expected = reference.values();
  std::uint64_t total = 0;
  for (unsigned int count : expected) total += count;
  ASSERT_EQ(total, n) << "the reference bins do not add up to n: " << kGraderBug;
  EXPECT_TRUE(bins.guards_intact(api.name, "bins"));
  EXPECT_TRUE(lab07::bins_match(expected, bins.values(), "bins"));
  if (check_input) {
    EXPECT_TRUE(data.unmodified(api.name, "data"));
    EXPECT_TRUE(data.guards_intact(api.name, "data"));
  }
}

// Uniform random bytes from `seed`, made on the GPU when large.
void check_random_case(const Api& api, std::size_t n, std::uint64_t seed, std::size_t offset) {
  if (n < kMadeOnTheGpu) return check_case(api, lab07::random_bytes(n, seed), offset, seed_text(seed));
  check_case_on_gpu(api, n, [n, seed](unsigned char* out) { cudalabs::fill_random_bytes(out, n, seed); }, offset,
                    seed_text(seed));
}

// n == 0 with null data, then with a valid data pointer that must not be touched: either way
// all 256 bins are overwritten with 0.
void check_zero_length(const Api& api) {
  const std::vector<unsigned int> zeros(lab07::kBins, 0);
  {
    lab07::GuardedBins bins = lab07::poisoned_bins();
    ASSERT_TRUE(lab07::call_and_wait(std::string("solution::") + api.name, 0,
                                     [&] { return api.solution(nullptr, 0, bins.data(), nullptr); }))
        << kGraderBug;
    ASSERT_TRUE(lab07::bins_match(zeros, bins.values(), "reference bins")) << kGraderBug;
  }
  lab07::GuardedBins bins = lab07::poisoned_bins();
  ASSERT_TRUE(lab07::call_and_wait(api.name, 0, [&] { return api.student(nullptr, 0, bins.data(), nullptr); }));
  EXPECT_TRUE(bins.guards_intact(api.name, "bins"));
  EXPECT_TRUE(lab07::bins_match(zeros, bins.values(), "bins after n = 0 with null data (all must be 0)"));

  const std::vector<unsigned char> sentinel{1, 2, 3, 4, 5};
  lab07::GuardedBytes data(sentinel, 3);
  lab07::GuardedBins more_bins = lab07::poisoned_bins();
  ASSERT_TRUE(lab07::call_and_wait(api.name, 0, [&] { return api.student(data.data(), 0, more_bins.data(), nullptr); }));
  EXPECT_TRUE(lab07::bins_match(zeros, more_bins.values(), "bins after n = 0 (all must be 0)"));
  EXPECT_TRUE(cudalabs::bit_identical(sentinel, data.values(), std::string(api.name) + " with n = 0", "data"));
  EXPECT_TRUE(data.guards_intact(api.name, "data"));
}

void check_single_element(const Api& api) {
  for (const unsigned value : {0u, 255u, 137u}) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{7}}) {
      ASSERT_NO_FATAL_FAILURE(check_case(api, lab07::all_equal_bytes(1, static_cast<unsigned char>(value)), offset,
                                         value_text(value)));
    }
  }
}

void check_prime_sizes(const Api& api, std::size_t largest) {
  std::uint64_t seed = 7100;
  for (const std::size_t n : kPrimes) {
    if (n > largest) continue;
    ++seed;
    ASSERT_NO_FATAL_FAILURE(check_random_case(api, n, seed, 0));
  }
}

// Every misalignment 1..15, with sizes shorter than the unaligned head, just past it, and large.
void check_misaligned(const Api& api, std::size_t step) {
  std::uint64_t seed = 7200;
  for (std::size_t offset = 1; offset < 16; offset += step) {
    for (const std::size_t n : {std::size_t{5}, std::size_t{33}, std::size_t{100003}}) {
      ++seed;
      ASSERT_NO_FATAL_FAILURE(check_case(api, lab07::random_bytes(n, seed), offset, seed_text(seed)));
    }
  }
}

void check_all_equal(const Api& api) {
  constexpr std::size_t n = (std::size_t{1} << 20) + 7;
  for (const unsigned value : {0u, 255u, 97u}) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
      ASSERT_NO_FATAL_FAILURE(
          check_case(api, lab07::all_equal_bytes(n, static_cast<unsigned char>(value)), offset, value_text(value)));
    }
  }
}

void check_inputs_unmodified(const Api& api) {
  ASSERT_NO_FATAL_FAILURE(check_case(api, lab07::random_bytes(1000003, 7301), 0, seed_text(7301), true));
  ASSERT_NO_FATAL_FAILURE(check_case(api, lab07::random_bytes(65537, 7302), 11, seed_text(7302), true));
  ASSERT_NO_FATAL_FAILURE(check_case(api, lab07::all_equal_bytes(4099, 42), 5, value_text(42), true));
}

class GlobalAtomics : public cudalabs::GpuTest {};
class Shared : public cudalabs::GpuTest {};

// --- histogram_global_atomics ----------------------------------------------------------------

TEST_F(GlobalAtomics, ZeroLength) { check_zero_length(kGlobal); }
TEST_F(GlobalAtomics, SingleElement) { check_single_element(kGlobal); }
TEST_F(GlobalAtomics, PrimeSizes) { check_prime_sizes(kGlobal, 1000003); }
TEST_F(GlobalAtomics, MisalignedData) { check_misaligned(kGlobal, 7); }
// 2^20 + 7 bytes: every atomic on one global counter, slow but bounded.
TEST_F(GlobalAtomics, AllEqual) {
  constexpr std::size_t n = (std::size_t{1} << 20) + 7;
  ASSERT_NO_FATAL_FAILURE(check_case(kGlobal, lab07::all_equal_bytes(n, 0), 0, value_text(0)));
  ASSERT_NO_FATAL_FAILURE(check_case(kGlobal, lab07::all_equal_bytes(n, 255), 1, value_text(255)));
}
TEST_F(GlobalAtomics, Full2To28) { check_random_case(kGlobal, k2To28, 7401, 0); }
TEST_F(GlobalAtomics, InputsUnmodified) { check_inputs_unmodified(kGlobal); }

// --- histogram_shared ------------------------------------------------------------------------

TEST_F(Shared, ZeroLength) { check_zero_length(kShared); }
TEST_F(Shared, SingleElement) { check_single_element(kShared); }
TEST_F(Shared, PrimeSizes) { check_prime_sizes(kShared, k2To28); }
TEST_F(Shared, MisalignedData) { check_misaligned(kShared, 1); }
TEST_F(Shared, AllEqual) { check_all_equal(kShared); }

// High contention on a few counters, with runs too short for run-length tricks to catch all of it.
TEST_F(Shared, FewDistinctValues) {
  const std::vector<std::vector<unsigned char>> value_sets = {
      {0, 255}, {7, 8, 9, 10}, {1, 2, 4, 8, 16, 32, 64, 128}};
  std::uint64_t seed = 7500;
  for (const auto& values : value_sets) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{5}}) {
      ++seed;
      ASSERT_NO_FATAL_FAILURE(check_case(kShared, lab07::few_distinct_bytes(1000003, seed, values), offset,
                                         std::to_string(values.size()) + " distinct values, seed " +
                                             std::to_string(seed)));
    }
  }
}

// 256 long runs: boundaries between values fall inside vectors and inside one thread's bytes.
TEST_F(Shared, SortedRuns) {
  for (const std::size_t n : {std::size_t{4099}, std::size_t{1000003}}) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{9}}) {
      ASSERT_NO_FATAL_FAILURE(check_case(kShared, lab07::sorted_run_bytes(n), offset, "sorted runs 0, 0, ..., 255"));
    }
  }
}

TEST_F(Shared, Full2To28Uniform) { check_random_case(kShared, k2To28, 7601, 0); }

// 2^28 equal bytes: one bin counts 268435456, and every update contends for it.
TEST_F(Shared, Full2To28AllEqual) {
  check_case_on_gpu(kShared, k2To28, [](unsigned char* out) { CUDALABS_CHECK(cudaMemset(out, 255, k2To28)); }, 0,
                    value_text(255));
}

TEST_F(Shared, InputsUnmodified) { check_inputs_unmodified(kShared); }

}  // namespace
