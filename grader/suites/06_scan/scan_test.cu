// Lab 06 hidden suite: sizes 0 and 1, both sides of every block size, primes, sizes that need
// more than two levels of blocks, the full 2^26, several seeds, misaligned arrays, adversarial
// values, predicates that keep none / all / every other element, and a workspace reused across
// calls. Every output starts as 0xFF poison with guard zones around it, every workspace starts as
// 0xFF garbage, and every input must come back unmodified. Each case runs the reference first and
// checks it against the CPU, so a broken reference shows up as a grader bug rather than as lost
// points. Random cases of kMadeOnTheGpu elements and more are made and checked on the GPU
// instead: inputs from the device generators, sealed by host-held checksums while the student's
// code runs, and the expected output made by the reference solution only after it has finished.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/gpu_test.hpp"
#include "implementations.cuh"

namespace {

using lab06::Offsets;

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

constexpr std::size_t kLargePrime = 1000003;
constexpr std::size_t k2To26 = std::size_t{1} << 26;
// From this size on, random cases are made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;
// Both sides of every power of two a block (or a block times a few items per thread) is likely
// to cover.
constexpr std::size_t kBlockBoundaries[] = {31,   32,   33,   255,  256,  257,  1023, 1024, 1025,
                                            2047, 2049, 4095, 4096, 4097, 8191, 8193, 16385};
// More elements than blocks^2: 2^20 + 1 elements in 1024-element blocks give 1025 block sums,
// more than one 1024-element block can scan; 16777259 (a prime above 2^24) needs three levels
// with 256-element blocks.
constexpr std::size_t kManyLevels[] = {(std::size_t{1} << 20) + 1, 16777259};

std::string describe(const char* what, std::size_t n, const std::string& values, Offsets offsets = {}) {
  std::string text = std::string(what) + " case: n = " + std::to_string(n) + ", " + values;
  if (offsets.in != 0 || offsets.out != 0) {
    text += ", in/out start " + std::to_string(offsets.in) + "/" + std::to_string(offsets.out) +
            " ints into their allocations";
  }
  return text;
}

// --- scans ------------------------------------------------------------------------------------

void check_scan(bool inclusive, const std::vector<int>& values, const std::string& what, Offsets offsets = {}) {
  const lab06::ScanApi& student_api = inclusive ? lab06::kStudentInclusive : lab06::kStudentExclusive;
  const lab06::ScanApi& solution_api = inclusive ? lab06::kSolutionInclusive : lab06::kSolutionExclusive;
  SCOPED_TRACE(describe(student_api.name, values.size(), what, offsets));
  const std::vector<int> expected = lab06::cpu_scan(values, inclusive);

  {  // The reference first; its buffers are freed before the student's are allocated.
    const lab06::ScanRun ref = lab06::run_scan(solution_api, values, offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(cudalabs::matches(cudalabs::compare_ints(expected, ref.out.values()), "reference out")) << kGraderBug;
  }

  const lab06::ScanRun run = lab06::run_scan(student_api, values, offsets);
  ASSERT_TRUE(run.status);
  lab06::expect_scan_result(student_api, run, values, expected);
}

// Values in [-1000, 1000] from `seed`, made on the device in a sealed input.
cudalabs::GeneratedInput<int> random_input(std::size_t n, std::uint64_t seed, std::size_t offset) {
  return cudalabs::GeneratedInput<int>(n, offset, [n, seed](int* out) { cudalabs::fill_uniform_ints(out, n, seed, -1000, 1000); });
}

// The outputs of one call on a device input: a poisoned output and a garbage workspace.
struct DeviceScanRun {
  lab06::IntArray out;
  lab06::ByteArray workspace;
  ::testing::AssertionResult status;
};

DeviceScanRun call_scan(const lab06::ScanApi& api, const int* in, std::size_t n, std::size_t out_offset) {
  lab06::IntArray out(n, out_offset);
  const std::size_t bytes = api.workspace_bytes(n);
  lab06::ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      lab06::call_name(api.name, n), n == 0,
      [&] { return api.scan(in, out.data(), n, bytes == 0 ? nullptr : workspace.data(), bytes, nullptr); },
      lab06::kFaultHint);
  return DeviceScanRun{std::move(out), std::move(workspace), std::move(status)};
}

// check_scan for a large random case, made and checked on the GPU; the same checks, in the same
// order, with the same messages as lab06::expect_scan_result.
void check_random_scan_on_gpu(bool inclusive, std::size_t n, std::uint64_t seed, Offsets offsets) {
  const lab06::ScanApi& student_api = inclusive ? lab06::kStudentInclusive : lab06::kStudentExclusive;
  const lab06::ScanApi& solution_api = inclusive ? lab06::kSolutionInclusive : lab06::kSolutionExclusive;
  SCOPED_TRACE(describe(student_api.name, n, "values in [-1000, 1000], seed " + std::to_string(seed), offsets));
  const cudalabs::GeneratedInput<int> in = random_input(n, seed, offsets.in);
  const DeviceScanRun run = call_scan(student_api, in.data(), n, offsets.out);
  ASSERT_TRUE(run.status);
  // The expected output exists only from here on, made from the input once its checksum holds.
  const DeviceScanRun ref = call_scan(solution_api, in.trusted(), n, 0);
  ASSERT_TRUE(ref.status) << kGraderBug;
  EXPECT_TRUE(run.out.guards_intact(student_api.name, "out"));
  EXPECT_TRUE(run.workspace.guards_intact(student_api.name, "workspace"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_ints_on_device(ref.out.data(), run.out.data(), n),
                                lab06::formula(inclusive)));
  EXPECT_TRUE(in.unmodified(student_api.name, "in"));
  EXPECT_TRUE(in.guards_intact(student_api.name, "in"));
}

void check_random_scan(bool inclusive, std::size_t n, std::uint64_t seed, Offsets offsets = {}) {
  if (n >= kMadeOnTheGpu) return check_random_scan_on_gpu(inclusive, n, seed, offsets);
  check_scan(inclusive, lab06::random_ints(n, seed), "values in [-1000, 1000], seed " + std::to_string(seed),
             offsets);
}

// Every adversarial pattern, at a size spanning many blocks that is not a multiple of any.
void check_adversarial_scans(bool inclusive) {
  constexpr std::size_t n = 1000037;
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, lab06::constant_ints(n, 0), "all zeros"));
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, lab06::constant_ints(n, 1), "all ones"));
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, lab06::alternating_ints(n, 1, -1), "alternating 1, -1"));
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, lab06::random_ints(n, 701, -1000, -1), "all negative"));
  // Large magnitudes: every partial sum stays within +-2^30.
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, lab06::random_ints(2047, 702, -(1 << 19), 1 << 19),
                                     "values in [-2^19, 2^19]"));
  // Every contiguous partial sum is INT_MAX, 0 or -INT_MAX: any order of additions fits.
  ASSERT_NO_FATAL_FAILURE(
      check_scan(inclusive, lab06::alternating_ints(4099, INT_MAX, -INT_MAX), "alternating INT_MAX, -INT_MAX"));
  ASSERT_NO_FATAL_FAILURE(check_scan(inclusive, {INT_MIN}, "the single value INT_MIN"));
}

class InclusiveScan : public cudalabs::GpuTest {};
class ExclusiveScan : public cudalabs::GpuTest {};
class Scan : public cudalabs::GpuTest {};

TEST_F(InclusiveScan, SingleElement) {
  ASSERT_NO_FATAL_FAILURE(check_scan(true, {7}, "the value 7"));
  ASSERT_NO_FATAL_FAILURE(check_scan(true, {-42}, "the value -42"));
}

TEST_F(InclusiveScan, BlockBoundaries) {
  std::uint64_t seed = 710;
  for (std::size_t n : kBlockBoundaries) ASSERT_NO_FATAL_FAILURE(check_random_scan(true, n, seed++));
}

TEST_F(InclusiveScan, LargePrime) { check_random_scan(true, kLargePrime, 720); }

TEST_F(InclusiveScan, ManyLevels) {
  std::uint64_t seed = 730;
  for (std::size_t n : kManyLevels) ASSERT_NO_FATAL_FAILURE(check_random_scan(true, n, seed++));
}

TEST_F(InclusiveScan, Full2To26) { check_random_scan(true, k2To26, 740); }

TEST_F(InclusiveScan, SeveralSeeds) {
  // Odd sizes; arrays aligned, equally misaligned, and misaligned by different amounts.
  const std::size_t sizes[] = {65537, 123457, 333331};
  const Offsets offsets[] = {{0, 0}, {1, 1}, {3, 2}};
  std::uint64_t seed = 750;
  for (std::size_t n : sizes) {
    for (Offsets o : offsets) ASSERT_NO_FATAL_FAILURE(check_random_scan(true, n, seed++, o));
  }
}

TEST_F(InclusiveScan, AdversarialValues) { check_adversarial_scans(true); }

TEST_F(ExclusiveScan, SingleElement) {
  // out[0] is always 0, whatever in[0] holds.
  ASSERT_NO_FATAL_FAILURE(check_scan(false, {7}, "the value 7"));
  ASSERT_NO_FATAL_FAILURE(check_scan(false, {-1}, "the value -1"));
}

TEST_F(ExclusiveScan, BlockBoundaries) {
  std::uint64_t seed = 810;
  for (std::size_t n : kBlockBoundaries) ASSERT_NO_FATAL_FAILURE(check_random_scan(false, n, seed++));
  ASSERT_NO_FATAL_FAILURE(check_random_scan(false, 4097, seed++, {1, 3}));
}

TEST_F(ExclusiveScan, ManyLevels) {
  std::uint64_t seed = 830;
  for (std::size_t n : kManyLevels) ASSERT_NO_FATAL_FAILURE(check_random_scan(false, n, seed++));
  ASSERT_NO_FATAL_FAILURE(check_random_scan(false, kLargePrime, seed++));
}

TEST_F(ExclusiveScan, Full2To26) { check_random_scan(false, k2To26, 840); }

TEST_F(ExclusiveScan, AdversarialValues) { check_adversarial_scans(false); }

// The same workspace for several calls, as a caller that allocates it once would do: whatever a
// call leaves there (block sums, flags, counters) must not confuse the next one.
TEST_F(Scan, ReusedWorkspace) {
  constexpr std::size_t n = 1000003;
  const std::vector<int> first = lab06::random_ints(n, 901);
  const std::vector<int> second = lab06::constant_ints(n, 1);
  const std::vector<int> third = lab06::random_ints(n, 903, -5, 5);
  const std::size_t bytes =
      std::max(student::scan_workspace_bytes(n), student::compact_workspace_bytes(n));
  lab06::ByteArray workspace(bytes, 0);
  void* scratch = bytes == 0 ? nullptr : workspace.data();

  struct Step {
    const char* what;
    const std::vector<int>* values;
    int kind;  // 0 inclusive, 1 exclusive, 2 compact (threshold 0)
  };
  const Step steps[] = {{"inclusive_scan of random values", &first, 0},
                        {"inclusive_scan of all ones, same workspace", &second, 0},
                        {"exclusive_scan of random values, same workspace", &third, 1},
                        {"compact of random values, same workspace", &third, 2},
                        {"inclusive_scan of random values again, same workspace", &first, 0}};
  for (const Step& step : steps) {
    SCOPED_TRACE(step.what);
    const std::vector<int>& values = *step.values;
    lab06::IntArray in(values, 0), out(n, 0), count(1, 0);
    const std::string call = lab06::call_name(step.what, n);
    ASSERT_TRUE(cudalabs::call_and_wait(call, false, [&] {
      switch (step.kind) {
        case 0: return student::inclusive_scan(in.data(), out.data(), n, scratch, bytes, nullptr);
        case 1: return student::exclusive_scan(in.data(), out.data(), n, scratch, bytes, nullptr);
        default: return student::compact(in.data(), out.data(), count.data(), n, 0, scratch, bytes, nullptr);
      }
    }, lab06::kFaultHint));
    EXPECT_TRUE(workspace.guards_intact(call, "workspace"));
    EXPECT_TRUE(out.guards_intact(call, "out"));
    if (step.kind == 2) {
      const std::vector<int> kept = lab06::cpu_compact(values, 0);
      ASSERT_EQ(count.values()[0], static_cast<int>(kept.size())) << "*count";
      std::vector<int> head = out.values();
      head.resize(kept.size());
      EXPECT_TRUE(cudalabs::matches(cudalabs::compare_ints(kept, head), "out[0 .. count)"));
    } else {
      EXPECT_TRUE(cudalabs::matches(cudalabs::compare_ints(lab06::cpu_scan(values, step.kind == 0), out.values()),
                                    lab06::formula(step.kind == 0)));
    }
  }
}

// --- compaction -------------------------------------------------------------------------------

void check_compact(const std::vector<int>& values, int threshold, const std::string& what, Offsets offsets = {}) {
  SCOPED_TRACE(describe("compact", values.size(), what + ", keep > " + std::to_string(threshold), offsets));
  {
    const lab06::CompactRun ref = lab06::run_compact(lab06::kSolutionCompact, values, threshold, offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab06::compact_output_ok(lab06::kSolutionCompact, ref, values, threshold)) << kGraderBug;
  }
  const lab06::CompactRun run = lab06::run_compact(lab06::kStudentCompact, values, threshold, offsets);
  ASSERT_TRUE(run.status);
  lab06::expect_compact_result(lab06::kStudentCompact, run, values, threshold);
}

struct DeviceCompactRun {
  lab06::IntArray out, count;
  lab06::ByteArray workspace;
  ::testing::AssertionResult status;
};

DeviceCompactRun call_compact(const lab06::CompactApi& api, const int* in, std::size_t n, int threshold,
                              std::size_t out_offset) {
  lab06::IntArray out(n, out_offset), count(1, 0);
  const std::size_t bytes = api.workspace_bytes(n);
  lab06::ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      lab06::call_name(api.name, n) + " with threshold " + std::to_string(threshold), n == 0,
      [&] {
        return api.compact(in, out.data(), count.data(), n, threshold, bytes == 0 ? nullptr : workspace.data(), bytes,
                           nullptr);
      },
      lab06::kFaultHint);
  return DeviceCompactRun{std::move(out), std::move(count), std::move(workspace), std::move(status)};
}

// lab06::compact_output_ok against the reference's output, compared on the device; the same
// messages.
::testing::AssertionResult compact_output_matches(const lab06::CompactApi& api, const DeviceCompactRun& run,
                                                  const DeviceCompactRun& ref, std::size_t n, int threshold) {
  const int kept = ref.count.values()[0];
  const int count = run.count.values()[0];
  if (count != kept) {
    return ::testing::AssertionFailure()
           << api.name << " wrote *count = " << count << ", but " << kept << " of the " << n << " elements are > "
           << threshold << (run.count.is_poison(count) ? " (-1 is the poison *count started as: was it written at all?)" : "");
  }
  const std::size_t head = static_cast<std::size_t>(kept);
  const cudalabs::CompareReport report = cudalabs::compare_ints_on_device(ref.out.data(), run.out.data(), head);
  if (!report.ok()) return ::testing::AssertionFailure() << report.to_string("out[0 .. count) = the elements > threshold, in order");
  // Past the kept elements, out must still be poison: the first element that is not.
  cudalabs::DeviceBuffer<int> poison(n - head);
  poison.fill_bytes(run.out.poison());
  const cudalabs::CompareReport rest = cudalabs::compare_ints_on_device(poison.data(), run.out.data() + head, n - head, 1);
  if (rest.mismatches != 0) {
    const cudalabs::Mismatch& first = rest.first.front();
    return ::testing::AssertionFailure() << api.name << " wrote out[" << head + first.index << "] = "
                                         << static_cast<int>(first.actual) << ", but only out[0 .. " << head
                                         << ") may be written (" << head << " elements are kept)";
  }
  return ::testing::AssertionSuccess();
}

// check_compact for a large random case, made and checked on the GPU (see check_random_scan_on_gpu).
void check_random_compact_on_gpu(std::size_t n, std::uint64_t seed, int threshold, Offsets offsets) {
  SCOPED_TRACE(describe("compact", n,
                        "values in [-1000, 1000], seed " + std::to_string(seed) + ", keep > " + std::to_string(threshold),
                        offsets));
  const cudalabs::GeneratedInput<int> in = random_input(n, seed, offsets.in);
  const DeviceCompactRun run = call_compact(lab06::kStudentCompact, in.data(), n, threshold, offsets.out);
  ASSERT_TRUE(run.status);
  const DeviceCompactRun ref = call_compact(lab06::kSolutionCompact, in.trusted(), n, threshold, 0);
  ASSERT_TRUE(ref.status) << kGraderBug;
  const int kept = ref.count.values()[0];
  ASSERT_TRUE(kept >= 0 && static_cast<std::size_t>(kept) <= n) << "reference *count = " << kept << ": " << kGraderBug;
  const char* name = lab06::kStudentCompact.name;
  EXPECT_TRUE(compact_output_matches(lab06::kStudentCompact, run, ref, n, threshold));
  EXPECT_TRUE(run.count.guards_intact(name, "count"));
  EXPECT_TRUE(run.out.guards_intact(name, "out"));
  EXPECT_TRUE(run.workspace.guards_intact(name, "workspace"));
  EXPECT_TRUE(in.unmodified(name, "in"));
  EXPECT_TRUE(in.guards_intact(name, "in"));
}

// Values in [-1000, 1000] from `seed`, kept when > threshold.
void check_random_compact(std::size_t n, std::uint64_t seed, int threshold, Offsets offsets = {}) {
  if (n >= kMadeOnTheGpu) return check_random_compact_on_gpu(n, seed, threshold, offsets);
  check_compact(lab06::random_ints(n, seed), threshold, "values in [-1000, 1000], seed " + std::to_string(seed), offsets);
}

class Compact : public cudalabs::GpuTest {};

TEST_F(Compact, SingleElement) {
  ASSERT_NO_FATAL_FAILURE(check_compact({5}, 0, "the value 5 (kept)"));
  ASSERT_NO_FATAL_FAILURE(check_compact({-5}, 0, "the value -5 (dropped)"));
  ASSERT_NO_FATAL_FAILURE(check_compact({0}, 0, "the value 0 (dropped: not > 0)"));
}

TEST_F(Compact, KeepNone) {
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::constant_ints(1000003, 0), 0, "all zeros"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(65537, 1001), INT_MAX, "values in [-1000, 1000]"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(4097, 1002), 1000, "values in [-1000, 1000]"));
}

TEST_F(Compact, KeepAll) {
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::constant_ints(1000003, 1), 0, "all ones"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(65537, 1011), INT_MIN, "values in [-1000, 1000]"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(4097, 1012), -1001, "values in [-1000, 1000]"));
}

TEST_F(Compact, KeepEveryOther) {
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::alternating_ints(1000003, 1, 0), 0, "alternating 1, 0"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::alternating_ints(4097, -3, 3), 0, "alternating -3, 3"));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::alternating_ints(257, 0, 1), 0, "alternating 0, 1"));
}

TEST_F(Compact, RaggedSizes) {
  // Densities from about 1% to about 99%: values in [-1000, 1000] kept when > threshold.
  const int thresholds[] = {980, 0, -980};
  std::uint64_t seed = 1030;
  std::size_t i = 0;
  for (std::size_t n : kBlockBoundaries) {
    ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(n, seed), thresholds[i % 3],
                                          "values in [-1000, 1000], seed " + std::to_string(seed)));
    ++seed;
    ++i;
  }
  for (std::size_t n : {kLargePrime, kManyLevels[1]}) {
    for (int threshold : thresholds) {
      ASSERT_NO_FATAL_FAILURE(check_random_compact(n, seed, threshold, {1, 2}));
      ++seed;
    }
  }
}

TEST_F(Compact, Full2To26) { check_random_compact(k2To26, 1040, 0); }

}  // namespace
