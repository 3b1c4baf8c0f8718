// Lab 11 hidden suite: sizes 0 and 1, both sides of every segment and tile size, primes, the full
// 2^26, several seeds, misaligned arrays, adversarial keys (all equal, already sorted, reversed,
// four distinct values, differing only in the top or only in the low byte, the extreme values),
// stability of pairs with repeated keys (random values, so the order of equal keys shows), a
// workspace reused across calls, and refused arguments. Every output starts as 0xFF poison with
// guard zones around it, every workspace starts as 0xFF garbage, and every input must come back
// unmodified. Small and medium cases run the reference first and check it against the CPU
// (std::sort / std::stable_sort), so a broken reference shows up as a grader bug rather than as lost
// points. Cases of kMadeOnTheGpu keys and more are made and checked on the GPU instead: inputs
// from device kernels, sealed by host-held checksums while the student's code runs, and the
// expected output made by the reference solution only after it has finished (the reference is
// stable, so its output is the one correct answer for pairs too).
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
#include "cudalabs/generated_input.hpp"
#include "cudalabs/gpu_test.hpp"
#include "device_patterns.cuh"
#include "implementations.cuh"

namespace {

using lab11::Offsets;
using lab11::Pattern;

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

constexpr std::size_t kLargePrime = 1000003;
constexpr std::size_t k2To26 = std::size_t{1} << 26;
// From this size on, cases are made and checked on the GPU (sorting on the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;
// A prime above 2^24: many tiles and segments, none of them full at the end.
constexpr std::size_t kLargeOddSize = 16777259;
// Both sides of every power of two a block, a tile (a block times a few keys per thread) or a
// warp's share of one is likely to be.
constexpr std::size_t kTileBoundaries[] = {31,   32,   33,   255,  256,  257,  1023, 1024,  1025,
                                           2047, 2048, 2049, 4095, 4096, 4097, 8191, 8193, 16385};
constexpr unsigned kSegmentSizes[] = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1023, 1024, 1025, 2047, 2048};
constexpr Pattern kAdversarial[] = {Pattern::AllEqual,    Pattern::Sorted,      Pattern::Reversed,
                                    Pattern::FewDistinct, Pattern::TopByteOnly, Pattern::LowByteOnly};

std::string describe(const char* what, std::size_t n, const std::string& keys, Offsets offsets = {}) {
  std::string text = std::string(what) + " case: n = " + std::to_string(n) + ", " + keys;
  if (offsets.in != 0 || offsets.out != 0) {
    text += ", inputs/outputs start " + std::to_string(offsets.in) + "/" + std::to_string(offsets.out) +
            " elements into their allocations";
  }
  return text;
}

std::string seeded(Pattern pattern, std::uint64_t seed) {
  return std::string(lab11::pattern_name(pattern)) + ", seed " + std::to_string(seed);
}

// 0 and 0xFFFFFFFF alternating with random keys: the extremes a padding value or a signed
// comparison gets wrong.
std::vector<std::uint32_t> extreme_keys(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> keys = lab11::make_keys(Pattern::Uniform, n, seed);
  for (std::size_t i = 0; i < n; i += 3) keys[i] = 0xFFFFFFFFu;
  for (std::size_t i = 1; i < n; i += 3) keys[i] = 0;
  return keys;
}

// A sealed device input of `n` keys in `pattern`.
cudalabs::GeneratedInput<std::uint32_t> device_keys(Pattern pattern, std::size_t n, std::uint64_t seed,
                                                    std::size_t offset) {
  return cudalabs::GeneratedInput<std::uint32_t>(
      n, offset, [=](std::uint32_t* out) { lab11::fill_keys(out, n, pattern, seed); });
}

cudalabs::GeneratedInput<std::uint32_t> device_values(std::size_t n, std::uint64_t seed, std::size_t offset) {
  return cudalabs::GeneratedInput<std::uint32_t>(n, offset,
                                                 [=](std::uint32_t* out) { lab11::fill_values(out, n, seed); });
}

// An output that refused calls must have left as it was (all poison).
::testing::AssertionResult untouched(const lab11::KeyArray& out, const char* function, const char* name) {
  const std::vector<std::uint32_t> values = out.values();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!out.is_poison(values[i])) {
      return ::testing::AssertionFailure() << function << " wrote " << name << "[" << i << "] = " << values[i]
                                           << " in a call it had to refuse: check the arguments before launching";
    }
  }
  return ::testing::AssertionSuccess();
}

// ================================ block_sort ====================================================

void check_block_sort(const std::vector<std::uint32_t>& keys, unsigned segment_size, const std::string& what,
                      Offsets offsets = {}) {
  SCOPED_TRACE(describe("block_sort", keys.size(), what + ", segment_size " + std::to_string(segment_size), offsets));
  {  // The reference first; its buffers are freed before the student's are allocated.
    const lab11::BlockSortRun ref = lab11::run_block_sort(lab11::kSolutionBlockSort, keys, segment_size, offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab11::keys_match(lab11::cpu_block_sort(keys, segment_size), ref.out.values(), "reference out"))
        << kGraderBug;
  }
  const lab11::BlockSortRun run = lab11::run_block_sort(lab11::kStudentBlockSort, keys, segment_size, offsets);
  ASSERT_TRUE(run.status);
  lab11::expect_block_sort_result(lab11::kStudentBlockSort, run, keys, segment_size);
}

// A large case made and checked on the GPU: the same checks as lab11::expect_block_sort_result.
void check_block_sort_on_gpu(Pattern pattern, std::size_t n, unsigned segment_size, std::uint64_t seed) {
  SCOPED_TRACE(describe("block_sort", n, seeded(pattern, seed) + ", segment_size " + std::to_string(segment_size)));
  const char* name = lab11::kStudentBlockSort.name;
  const cudalabs::GeneratedInput<std::uint32_t> in = device_keys(pattern, n, seed, 0);
  lab11::KeyArray out(n, 1);
  ASSERT_TRUE(cudalabs::call_and_wait(
      lab11::call_name(name, n) + " with segment_size " + std::to_string(segment_size), false,
      [&] { return student::block_sort(in.data(), out.data(), n, segment_size, nullptr); }, lab11::kFaultHint));
  lab11::KeyArray expected(n, 0);
  ASSERT_TRUE(cudalabs::call_and_wait("solution::block_sort", false, [&] {
    return solution::block_sort(in.trusted(), expected.data(), n, segment_size, nullptr);
  })) << kGraderBug;
  EXPECT_TRUE(out.guards_intact(name, "out"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_uints_on_device(expected.data(), out.data(), n),
                                "out (each segment of segment_size keys sorted on its own)"));
  EXPECT_TRUE(in.unmodified(name, "in"));
  EXPECT_TRUE(in.guards_intact(name, "in"));
}

class BlockSort : public cudalabs::GpuTest {};

TEST_F(BlockSort, SingleElement) {
  ASSERT_NO_FATAL_FAILURE(check_block_sort({42}, 1, "the key 42"));
  ASSERT_NO_FATAL_FAILURE(check_block_sort({0xFFFFFFFFu}, 2048, "the key 0xFFFFFFFF"));
  ASSERT_NO_FATAL_FAILURE(check_block_sort({7, 3}, 2048, "two keys, one short segment"));
}

TEST_F(BlockSort, SegmentSizes) {
  // Every segment size on both sides of a power of two; 7 full segments and a partial one.
  std::uint64_t seed = 1210;
  for (unsigned segment : kSegmentSizes) {
    const std::size_t n = 7 * static_cast<std::size_t>(segment) + (segment + 1) / 2;
    ASSERT_NO_FATAL_FAILURE(
        check_block_sort(lab11::make_keys(Pattern::Uniform, n, seed), segment, seeded(Pattern::Uniform, seed)));
    ++seed;
  }
  // Misaligned arrays.
  ASSERT_NO_FATAL_FAILURE(check_block_sort(lab11::make_keys(Pattern::Uniform, 10007, seed), 2048,
                                           seeded(Pattern::Uniform, seed), {1, 3}));
}

TEST_F(BlockSort, AdversarialValues) {
  std::uint64_t seed = 1230;
  for (Pattern pattern : kAdversarial) {
    for (unsigned segment : {2048u, 1500u}) {
      ASSERT_NO_FATAL_FAILURE(
          check_block_sort(lab11::make_keys(pattern, 20011, seed), segment, seeded(pattern, seed)));
      ++seed;
    }
  }
  // 0 and 0xFFFFFFFF among the keys: padding a short segment with a value that can be a key
  // works only if the padded slots are never written back.
  ASSERT_NO_FATAL_FAILURE(check_block_sort(extreme_keys(20011, seed), 1500, "0, 0xFFFFFFFF and random keys"));
  ASSERT_NO_FATAL_FAILURE(check_block_sort(std::vector<std::uint32_t>(5000, 0xFFFFFFFFu), 1000, "all 0xFFFFFFFF"));
}

TEST_F(BlockSort, Full2To26) {
  ASSERT_NO_FATAL_FAILURE(check_block_sort_on_gpu(Pattern::Uniform, k2To26, 2048, 1240));
  ASSERT_NO_FATAL_FAILURE(check_block_sort_on_gpu(Pattern::Reversed, kLargeOddSize, 1999, 1241));
}

TEST_F(BlockSort, RefusesBadSegmentSize) {
  const std::vector<std::uint32_t> keys = lab11::make_keys(Pattern::Uniform, 1000, 1250);
  lab11::KeyArray in(keys, 0), out(keys.size(), 0);
  for (unsigned segment : {0u, student::kMaxSegmentSize + 1, 100000u}) {
    EXPECT_TRUE(lab11::refused("block_sort(n = 1000) with segment_size " + std::to_string(segment),
                               [&] { return student::block_sort(in.data(), out.data(), 1000, segment, nullptr); }));
  }
  EXPECT_TRUE(lab11::refused("block_sort(n = 0) with segment_size 0",
                             [&] { return student::block_sort(nullptr, nullptr, 0, 0, nullptr); }));
  EXPECT_TRUE(untouched(out, "block_sort", "out"));
}

// ================================ radix_sort_keys ===============================================

void check_keys(const std::vector<std::uint32_t>& keys, const std::string& what, Offsets offsets = {}) {
  SCOPED_TRACE(describe("radix_sort_keys", keys.size(), what, offsets));
  const std::vector<std::uint32_t> expected = lab11::cpu_sort_keys(keys);
  {
    const lab11::KeysRun ref = lab11::run_sort_keys(lab11::kSolutionKeys, keys, offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab11::keys_match(expected, ref.out.values(), "reference keys_out")) << kGraderBug;
  }
  const lab11::KeysRun run = lab11::run_sort_keys(lab11::kStudentKeys, keys, offsets);
  ASSERT_TRUE(run.status);
  lab11::expect_keys_result(lab11::kStudentKeys, run, keys, expected);
}

// The outputs of one call on device inputs: a poisoned output and a garbage workspace.
struct DeviceKeysRun {
  lab11::KeyArray out;
  lab11::ByteArray workspace;
  ::testing::AssertionResult status;
};

DeviceKeysRun call_keys(const lab11::KeysApi& api, const std::uint32_t* in, std::size_t n, std::size_t out_offset) {
  lab11::KeyArray out(n, out_offset);
  const std::size_t bytes = api.workspace_bytes(n);
  lab11::ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      lab11::call_name(api.name, n), n == 0,
      [&] { return api.sort(in, out.data(), n, bytes == 0 ? nullptr : workspace.data(), bytes, nullptr); },
      lab11::kFaultHint);
  return DeviceKeysRun{std::move(out), std::move(workspace), std::move(status)};
}

void check_keys_on_gpu(Pattern pattern, std::size_t n, std::uint64_t seed, Offsets offsets) {
  SCOPED_TRACE(describe("radix_sort_keys", n, seeded(pattern, seed), offsets));
  const char* name = lab11::kStudentKeys.name;
  const cudalabs::GeneratedInput<std::uint32_t> in = device_keys(pattern, n, seed, offsets.in);
  const DeviceKeysRun run = call_keys(lab11::kStudentKeys, in.data(), n, offsets.out);
  ASSERT_TRUE(run.status);
  // The expected output exists only from here on, made from the input once its checksum holds.
  const DeviceKeysRun ref = call_keys(lab11::kSolutionKeys, in.trusted(), n, 0);
  ASSERT_TRUE(ref.status) << kGraderBug;
  EXPECT_TRUE(run.out.guards_intact(name, "keys_out"));
  EXPECT_TRUE(run.workspace.guards_intact(name, "workspace"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_uints_on_device(ref.out.data(), run.out.data(), n),
                                "keys_out (ascending)"));
  EXPECT_TRUE(in.unmodified(name, "keys_in"));
  EXPECT_TRUE(in.guards_intact(name, "keys_in"));
}

void check_pattern_keys(Pattern pattern, std::size_t n, std::uint64_t seed, Offsets offsets = {}) {
  if (n >= kMadeOnTheGpu) return check_keys_on_gpu(pattern, n, seed, offsets);
  check_keys(lab11::make_keys(pattern, n, seed), seeded(pattern, seed), offsets);
}

class RadixSortKeys : public cudalabs::GpuTest {};

TEST_F(RadixSortKeys, SingleElement) {
  ASSERT_NO_FATAL_FAILURE(check_keys({42}, "the key 42"));
  ASSERT_NO_FATAL_FAILURE(check_keys({0xFFFFFFFFu}, "the key 0xFFFFFFFF"));
}

TEST_F(RadixSortKeys, TileBoundaries) {
  std::uint64_t seed = 1310;
  for (std::size_t n : kTileBoundaries) ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::Uniform, n, seed++));
}

TEST_F(RadixSortKeys, LargePrime) { check_pattern_keys(Pattern::Uniform, kLargePrime, 1320); }

TEST_F(RadixSortKeys, Full2To26) {
  ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::Uniform, k2To26, 1330));
  ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::Uniform, kLargeOddSize, 1331, {1, 2}));
}

TEST_F(RadixSortKeys, SeveralSeeds) {
  // Odd sizes; arrays aligned, equally misaligned, and misaligned by different amounts.
  const std::size_t sizes[] = {65537, 123457, 333331};
  const Offsets offsets[] = {{0, 0}, {1, 1}, {3, 2}};
  std::uint64_t seed = 1340;
  for (std::size_t n : sizes) {
    for (Offsets o : offsets) ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::Uniform, n, seed++, o));
  }
}

TEST_F(RadixSortKeys, AdversarialValues) {
  constexpr std::size_t n = 300007;
  std::uint64_t seed = 1350;
  for (Pattern pattern : kAdversarial) ASSERT_NO_FATAL_FAILURE(check_pattern_keys(pattern, n, seed++));
  ASSERT_NO_FATAL_FAILURE(check_keys(extreme_keys(n, seed), "0, 0xFFFFFFFF and random keys"));
}

TEST_F(RadixSortKeys, LargeAdversarial) {
  // At full scale: one digit value for every key in every pass (a shared histogram with atomics
  // meets its worst case), and keys that differ only where the last pass looks.
  ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::AllEqual, kLargeOddSize, 1360));
  ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::TopByteOnly, kLargeOddSize, 1361));
  ASSERT_NO_FATAL_FAILURE(check_pattern_keys(Pattern::Reversed, kLargeOddSize, 1362));
}

// ================================ radix_sort_pairs ==============================================

void check_pairs(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                 const std::string& what, Offsets offsets = {}) {
  SCOPED_TRACE(describe("radix_sort_pairs", keys.size(), what + ", random values", offsets));
  const lab11::SortedPairs expected = lab11::cpu_sort_pairs(keys, values);
  {
    const lab11::PairsRun ref = lab11::run_sort_pairs(lab11::kSolutionPairs, keys, values, offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab11::keys_match(expected.keys, ref.keys_out.values(), "reference keys_out")) << kGraderBug;
    ASSERT_TRUE(lab11::keys_match(expected.values, ref.values_out.values(), "reference values_out")) << kGraderBug;
  }
  const lab11::PairsRun run = lab11::run_sort_pairs(lab11::kStudentPairs, keys, values, offsets);
  ASSERT_TRUE(run.status);
  lab11::expect_pairs_result(lab11::kStudentPairs, run, keys, values, expected);
}

struct DevicePairsRun {
  lab11::KeyArray keys_out, values_out;
  lab11::ByteArray workspace;
  ::testing::AssertionResult status;
};

DevicePairsRun call_pairs(const lab11::PairsApi& api, const std::uint32_t* keys, const std::uint32_t* values,
                          std::size_t n, std::size_t out_offset) {
  lab11::KeyArray keys_out(n, out_offset), values_out(n, out_offset);
  const std::size_t bytes = api.workspace_bytes(n);
  lab11::ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      lab11::call_name(api.name, n), n == 0,
      [&] {
        return api.sort(keys, keys_out.data(), values, values_out.data(), n, bytes == 0 ? nullptr : workspace.data(),
                        bytes, nullptr);
      },
      lab11::kFaultHint);
  return DevicePairsRun{std::move(keys_out), std::move(values_out), std::move(workspace), std::move(status)};
}

void check_pairs_on_gpu(Pattern pattern, std::size_t n, std::uint64_t seed, Offsets offsets) {
  SCOPED_TRACE(describe("radix_sort_pairs", n, seeded(pattern, seed) + ", random values", offsets));
  const char* name = lab11::kStudentPairs.name;
  const cudalabs::GeneratedInput<std::uint32_t> keys = device_keys(pattern, n, seed, offsets.in);
  const cudalabs::GeneratedInput<std::uint32_t> values = device_values(n, seed, offsets.in);
  const DevicePairsRun run = call_pairs(lab11::kStudentPairs, keys.data(), values.data(), n, offsets.out);
  ASSERT_TRUE(run.status);
  const DevicePairsRun ref = call_pairs(lab11::kSolutionPairs, keys.trusted(), values.trusted(), n, 0);
  ASSERT_TRUE(ref.status) << kGraderBug;
  EXPECT_TRUE(run.keys_out.guards_intact(name, "keys_out"));
  EXPECT_TRUE(run.values_out.guards_intact(name, "values_out"));
  EXPECT_TRUE(run.workspace.guards_intact(name, "workspace"));
  const ::testing::AssertionResult keys_ok = cudalabs::matches(
      cudalabs::compare_uints_on_device(ref.keys_out.data(), run.keys_out.data(), n), "keys_out (ascending)");
  EXPECT_TRUE(keys_ok);
  if (keys_ok) {
    const cudalabs::CompareReport report =
        cudalabs::compare_uints_on_device(ref.values_out.data(), run.values_out.data(), n);
    EXPECT_TRUE(report.ok()) << report.to_string("values_out (each value must stay with its key)")
                             << "\nkeys_out is right, so the values were moved differently: is every pass STABLE "
                                "(equal digits keep their input order, across warps and blocks too) and does each "
                                "value travel with its own key?";
  }
  EXPECT_TRUE(keys.unmodified(name, "keys_in"));
  EXPECT_TRUE(values.unmodified(name, "values_in"));
  EXPECT_TRUE(keys.guards_intact(name, "keys_in"));
  EXPECT_TRUE(values.guards_intact(name, "values_in"));
}

void check_pattern_pairs(Pattern pattern, std::size_t n, std::uint64_t seed, Offsets offsets = {}) {
  if (n >= kMadeOnTheGpu) return check_pairs_on_gpu(pattern, n, seed, offsets);
  check_pairs(lab11::make_keys(pattern, n, seed), lab11::make_values(n, seed), seeded(pattern, seed), offsets);
}

class RadixSortPairs : public cudalabs::GpuTest {};

TEST_F(RadixSortPairs, SingleElement) {
  ASSERT_NO_FATAL_FAILURE(check_pairs({42}, {7}, "the pair (42, 7)"));
  ASSERT_NO_FATAL_FAILURE(check_pairs({5, 5}, {2, 1}, "two equal keys with values 2, 1 (stays 2, 1)"));
}

TEST_F(RadixSortPairs, TileBoundaries) {
  std::uint64_t seed = 1410;
  for (std::size_t n : kTileBoundaries) ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::FewDistinct, n, seed++));
}

TEST_F(RadixSortPairs, StableRepeatedKeys) {
  // Long runs of equal keys with random values: the values must come out in input order, within a
  // warp, across warps, across blocks, and in the pass that decides (first or last).
  std::uint64_t seed = 1420;
  ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::FewDistinct, kLargePrime, seed++));
  ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::AllEqual, 65537, seed++));
  ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::TopByteOnly, 300007, seed++));
  ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::LowByteOnly, 300007, seed++));
  ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::FewDistinct, kLargeOddSize, seed++, {1, 2}));
}

TEST_F(RadixSortPairs, Full2To26) {
  // 2^26 random 32-bit keys repeat about 2^19 times: stability counts here too.
  check_pattern_pairs(Pattern::Uniform, k2To26, 1430);
}

TEST_F(RadixSortPairs, SeveralSeeds) {
  const std::size_t sizes[] = {65537, 123457};
  const Offsets offsets[] = {{0, 0}, {1, 1}, {3, 2}};
  std::uint64_t seed = 1440;
  for (std::size_t n : sizes) {
    for (Offsets o : offsets) ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(Pattern::Uniform, n, seed++, o));
  }
}

TEST_F(RadixSortPairs, AdversarialValues) {
  constexpr std::size_t n = 200003;
  std::uint64_t seed = 1450;
  for (Pattern pattern : {Pattern::Sorted, Pattern::Reversed, Pattern::AllEqual}) {
    ASSERT_NO_FATAL_FAILURE(check_pattern_pairs(pattern, n, seed++));
  }
  ASSERT_NO_FATAL_FAILURE(
      check_pairs(extreme_keys(n, seed), lab11::make_values(n, seed), "0, 0xFFFFFFFF and random keys"));
}

// ================================ both radix sorts ==============================================

class Sort : public cudalabs::GpuTest {};

// The same workspace for several calls, as a caller that allocates it once would do: whatever a
// call leaves there (counts, a half-sorted buffer) must not confuse the next one.
TEST_F(Sort, ReusedWorkspace) {
  constexpr std::size_t n = 100003;
  const std::size_t bytes =
      std::max(student::radix_sort_keys_workspace_bytes(n), student::radix_sort_pairs_workspace_bytes(n));
  lab11::ByteArray workspace(bytes, 0);
  void* scratch = bytes == 0 ? nullptr : workspace.data();

  struct Step {
    const char* what;
    Pattern pattern;
    bool pairs;
  };
  const Step steps[] = {{"radix_sort_keys of random keys", Pattern::Uniform, false},
                        {"radix_sort_keys of equal keys, same workspace", Pattern::AllEqual, false},
                        {"radix_sort_pairs of 4 distinct keys, same workspace", Pattern::FewDistinct, true},
                        {"radix_sort_keys of random keys again, same workspace", Pattern::Uniform, false},
                        {"radix_sort_pairs of random keys, same workspace", Pattern::Uniform, true}};
  std::uint64_t seed = 1510;
  for (const Step& step : steps) {
    SCOPED_TRACE(step.what);
    const std::vector<std::uint32_t> keys = lab11::make_keys(step.pattern, n, seed);
    const std::vector<std::uint32_t> values = lab11::make_values(n, seed);
    ++seed;
    lab11::KeyArray keys_in(keys, 0), keys_out(n, 0), values_in(values, 0), values_out(n, 0);
    const std::string call = lab11::call_name(step.what, n);
    ASSERT_TRUE(cudalabs::call_and_wait(call, false, [&] {
      if (!step.pairs) return student::radix_sort_keys(keys_in.data(), keys_out.data(), n, scratch, bytes, nullptr);
      return student::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                       scratch, bytes, nullptr);
    }, lab11::kFaultHint));
    EXPECT_TRUE(workspace.guards_intact(call, "workspace"));
    EXPECT_TRUE(keys_out.guards_intact(call, "keys_out"));
    if (step.pairs) {
      const lab11::SortedPairs expected = lab11::cpu_sort_pairs(keys, values);
      const ::testing::AssertionResult keys_ok =
          lab11::keys_match(expected.keys, keys_out.values(), "keys_out (ascending)");
      EXPECT_TRUE(keys_ok);
      if (keys_ok) EXPECT_TRUE(lab11::values_match(expected.values, values_out.values()));
    } else {
      EXPECT_TRUE(lab11::keys_match(lab11::cpu_sort_keys(keys), keys_out.values(), "keys_out (ascending)"));
    }
  }
}

TEST_F(Sort, RefusesBadArguments) {
  // n above INT_MAX (the arrays are small: a call that does not refuse it faults), then a workspace
  // one byte smaller than asked for, and a null one.
  constexpr std::size_t kTooMany = static_cast<std::size_t>(INT_MAX) + 1;
  constexpr std::size_t n = 1000;
  const std::vector<std::uint32_t> keys = lab11::make_keys(Pattern::Uniform, n, 1520);
  lab11::KeyArray keys_in(keys, 0), keys_out(n, 0), values_in(keys, 0), values_out(n, 0);
  const std::size_t key_bytes = student::radix_sort_keys_workspace_bytes(n);
  const std::size_t pair_bytes = student::radix_sort_pairs_workspace_bytes(n);
  lab11::ByteArray workspace(key_bytes > pair_bytes ? key_bytes : pair_bytes, 0);
  void* scratch = workspace.size() == 0 ? nullptr : workspace.data();

  EXPECT_TRUE(lab11::refused("radix_sort_keys(n = INT_MAX + 1)", [&] {
    return student::radix_sort_keys(keys_in.data(), keys_out.data(), kTooMany, scratch, SIZE_MAX, nullptr);
  }));
  EXPECT_TRUE(lab11::refused("radix_sort_pairs(n = INT_MAX + 1)", [&] {
    return student::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), kTooMany,
                                     scratch, SIZE_MAX, nullptr);
  }));
  if (key_bytes > 0) {
    EXPECT_TRUE(lab11::refused("radix_sort_keys(n = 1000) with workspace_bytes one less than asked for", [&] {
      return student::radix_sort_keys(keys_in.data(), keys_out.data(), n, scratch, key_bytes - 1, nullptr);
    }));
    EXPECT_TRUE(lab11::refused("radix_sort_keys(n = 1000) with a null workspace", [&] {
      return student::radix_sort_keys(keys_in.data(), keys_out.data(), n, nullptr, key_bytes, nullptr);
    }));
  }
  if (pair_bytes > 0) {
    EXPECT_TRUE(lab11::refused("radix_sort_pairs(n = 1000) with workspace_bytes one less than asked for", [&] {
      return student::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                       scratch, pair_bytes - 1, nullptr);
    }));
  }
  EXPECT_TRUE(untouched(keys_out, "radix_sort_keys", "keys_out"));
  EXPECT_TRUE(untouched(values_out, "radix_sort_pairs", "values_out"));
}

}  // namespace
