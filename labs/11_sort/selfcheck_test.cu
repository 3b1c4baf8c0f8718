// Lab 11 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 11_sort
// The grader runs these too, plus hidden cases (sizes 1, both sides of every tile and segment
// size, primes, 2^26, several seeds, misaligned arrays, sorted, reversed, all-equal and few
// distinct keys, keys that differ only in one byte, stability of pairs, a reused workspace,
// refused arguments); see README.md. Preview.radix_sort_keys times your radix sort alone at the
// graded size (2^26 keys) against a share of your GPU's copy bandwidth: a preview of the graded
// timed case, worth no points ("What fast means here" in README.md).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_preview.hpp"
#include "cudalabs/timing/interleaved.hpp"
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

// ---- timing preview -----------------------------------------------------------------------------
// Your radix_sort_keys alone at 2^26 random keys, with the checks the grade's timed case makes: an
// untimed call first must be right, every sample gets fresh keys (made on the GPU from a per-run
// seed) and a poisoned output, and every sample is checked (cudalabs/performance_preview.hpp).
// No sorted copy is made to check against: the output must be in order, and hold the same keys
// as the input (two order-free hashes of the multiset agree), both counted on the GPU.

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedKeys = std::size_t{1} << 26;

// Two unrelated 64-bit mixes of a key: the multiset's hashes are their sums.
__device__ std::uint64_t mix_a(std::uint32_t key) {
  std::uint64_t z = key + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__device__ std::uint64_t mix_b(std::uint32_t key) {
  std::uint64_t z = (static_cast<std::uint64_t>(key) << 32 | key) * 0xD6E8FEB86659FD93ull;
  z ^= z >> 32;
  return z * 0xD6E8FEB86659FD93ull ^ (z >> 29);
}

struct KeyCheckTotals {
  unsigned long long input_a, input_b, output_a, output_b, descents;
};

__global__ void key_check_kernel(const std::uint32_t* input, const std::uint32_t* output, std::size_t n,
                                 KeyCheckTotals* totals) {
  unsigned long long in_a = 0, in_b = 0, out_a = 0, out_b = 0, descents = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    in_a += mix_a(input[i]);
    in_b += mix_b(input[i]);
    out_a += mix_a(output[i]);
    out_b += mix_b(output[i]);
    if (i + 1 < n && output[i] > output[i + 1]) ++descents;
  }
  atomicAdd(&totals->input_a, in_a);
  atomicAdd(&totals->input_b, in_b);
  atomicAdd(&totals->output_a, out_a);
  atomicAdd(&totals->output_b, out_b);
  atomicAdd(&totals->descents, descents);
}

// "" when `output` is `input` in ascending order, else what is wrong.
std::string check_sorted_permutation(const std::uint32_t* input, const std::uint32_t* output, std::size_t n,
                                     cudaStream_t stream) {
  cudalabs::DeviceBuffer<KeyCheckTotals> totals(1);
  CUDALABS_CHECK(cudaMemsetAsync(totals.data(), 0, sizeof(KeyCheckTotals), stream));
  key_check_kernel<<<1024, 256, 0, stream>>>(input, output, n, totals.data());
  CUDALABS_CHECK_LAUNCH();
  KeyCheckTotals host{};
  CUDALABS_CHECK(cudaMemcpyAsync(&host, totals.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  if (host.descents != 0) {
    return "radix_sort_keys at 2^26 keys: the output is not in ascending order (" + std::to_string(host.descents) +
           " places where a key is followed by a smaller one)";
  }
  if (host.input_a != host.output_a || host.input_b != host.output_b) {
    return "radix_sort_keys at 2^26 keys: the output is in order but does not hold the input's keys (some are "
           "missing, repeated or changed)";
  }
  return "";
}

TEST_F(Preview, radix_sort_keys) {
  cudalabs::DeviceBuffer<std::uint32_t> in(kTimedKeys), out(kTimedKeys);
  const std::size_t workspace_bytes = student::radix_sort_keys_workspace_bytes(kTimedKeys);
  cudalabs::DeviceBuffer<unsigned char> workspace(workspace_bytes > 0 ? workspace_bytes : 1);
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(reinterpret_cast<unsigned char*>(in.data()), in.bytes(),
                                cudalabs::timing::round_seed(seed, 0), stream);
    cudalabs::poison_async(out.data(), out.bytes(), 0xA5, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::radix_sort_keys(in.data(), out.data(), kTimedKeys, workspace.data(), workspace_bytes, stream);
  };
  // The input is checked unchanged before this runs, so it is the round's input.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) {
    return check_sorted_permutation(in.data(), out.data(), kTimedKeys, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "keys_in"}};
  work.bytes = 2.0 * kTimedKeys * sizeof(std::uint32_t);  // the keys read once and written once
  cudalabs::run_performance_preview("radix_sort_keys", work);
}

}  // namespace
