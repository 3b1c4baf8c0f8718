// Lab 11 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 11_sort
// The grader runs these too, plus hidden cases (sizes 1, both sides of every tile and segment
// size, primes, 2^26, several seeds, misaligned arrays, sorted, reversed, all-equal and few
// distinct keys, keys that differ only in one byte, stability of pairs, a reused workspace,
// refused arguments); see README.md.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "lab11_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "sort.cuh"
#undef LAB_IMPL

namespace {

using lab11::Pattern;

class SelfCheck : public cudalabs::GpuTest {};

const lab11::BlockSortApi kBlockSort{"block_sort", &student::block_sort};
const lab11::KeysApi kKeys{"radix_sort_keys", &student::radix_sort_keys_workspace_bytes, &student::radix_sort_keys};
const lab11::PairsApi kPairs{"radix_sort_pairs", &student::radix_sort_pairs_workspace_bytes,
                             &student::radix_sort_pairs};

void check_block_sort(const std::vector<std::uint32_t>& keys, unsigned segment_size) {
  const lab11::BlockSortRun run = lab11::run_block_sort(kBlockSort, keys, segment_size);
  ASSERT_TRUE(run.status);
  lab11::expect_block_sort_result(kBlockSort, run, keys, segment_size);
}

void check_keys(const std::vector<std::uint32_t>& keys) {
  const lab11::KeysRun run = lab11::run_sort_keys(kKeys, keys);
  ASSERT_TRUE(run.status);
  lab11::expect_keys_result(kKeys, run, keys, lab11::cpu_sort_keys(keys));
}

void check_pairs(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
  const lab11::PairsRun run = lab11::run_sort_pairs(kPairs, keys, values);
  ASSERT_TRUE(run.status);
  lab11::expect_pairs_result(kPairs, run, keys, values, lab11::cpu_sort_pairs(keys, values));
}

TEST_F(SelfCheck, BlockSortSmall) {
  // 10000 keys in segments of 2048 (the largest; the last segment has 1808 keys), of 1000 (not a
  // power of two: pad it) and of 7.
  ASSERT_NO_FATAL_FAILURE(check_block_sort(lab11::make_keys(Pattern::Uniform, 10000, 1101), 2048));
  ASSERT_NO_FATAL_FAILURE(check_block_sort(lab11::make_keys(Pattern::Uniform, 5000, 1102), 1000));
  ASSERT_NO_FATAL_FAILURE(check_block_sort(lab11::make_keys(Pattern::Reversed, 1000, 1103), 7));
}

TEST_F(SelfCheck, RadixSortKeysSmall) {
  // Reversed keys first: a wrong pass shows up as a readable pattern.
  ASSERT_NO_FATAL_FAILURE(check_keys(lab11::make_keys(Pattern::Reversed, 1000, 1111)));
  ASSERT_NO_FATAL_FAILURE(check_keys(lab11::make_keys(Pattern::Uniform, 1000, 1112)));
  ASSERT_NO_FATAL_FAILURE(check_keys(lab11::make_keys(Pattern::Uniform, 100000, 1113)));  // many blocks
}

TEST_F(SelfCheck, RadixSortPairsSmall) {
  // 4 distinct keys with random values: the values show whether equal keys kept their order.
  ASSERT_NO_FATAL_FAILURE(
      check_pairs(lab11::make_keys(Pattern::FewDistinct, 1000, 1121), lab11::make_values(1000, 1122)));
  ASSERT_NO_FATAL_FAILURE(
      check_pairs(lab11::make_keys(Pattern::FewDistinct, 100000, 1123), lab11::make_values(100000, 1124)));
  ASSERT_NO_FATAL_FAILURE(
      check_pairs(lab11::make_keys(Pattern::Uniform, 100000, 1125), lab11::make_values(100000, 1126)));
}

TEST_F(SelfCheck, ZeroLength) {
  // n == 0: nothing to do, cudaSuccess, also with null arrays (and a null workspace if you ask
  // for 0 bytes).
  ASSERT_NO_FATAL_FAILURE(check_block_sort({}, 2048));
  ASSERT_NO_FATAL_FAILURE(check_keys({}));
  ASSERT_NO_FATAL_FAILURE(check_pairs({}, {}));
  ASSERT_TRUE(cudalabs::call_and_wait("block_sort(n = 0, null in and out)", true,
                                      [&] { return student::block_sort(nullptr, nullptr, 0, 256, nullptr); }));
  const std::size_t key_bytes = student::radix_sort_keys_workspace_bytes(0);
  const std::size_t pair_bytes = student::radix_sort_pairs_workspace_bytes(0);
  lab11::ByteArray workspace(key_bytes > pair_bytes ? key_bytes : pair_bytes, 0);
  ASSERT_TRUE(cudalabs::call_and_wait("radix_sort_keys(n = 0, null arrays)", true, [&] {
    return student::radix_sort_keys(nullptr, nullptr, 0, key_bytes == 0 ? nullptr : workspace.data(), key_bytes,
                                    nullptr);
  }));
  ASSERT_TRUE(cudalabs::call_and_wait("radix_sort_pairs(n = 0, null arrays)", true, [&] {
    return student::radix_sort_pairs(nullptr, nullptr, nullptr, nullptr, 0,
                                     pair_bytes == 0 ? nullptr : workspace.data(), pair_bytes, nullptr);
  }));
}

}  // namespace
