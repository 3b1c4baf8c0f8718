// Lab 06 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 06_scan
// The grader runs these too, plus hidden cases (sizes 1, block sizes +-1, primes, sizes that
// need more than two levels of blocks, 2^26, several seeds, adversarial values, a reused
// workspace); see README.md. Preview.inclusive_scan times your inclusive scan alone at the
// graded size (2^26 ints) against a share of your GPU's copy bandwidth: a preview of the graded
// timed case, worth no points ("Check your work" in README.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_preview.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "lab06_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "scan.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

const lab06::ScanApi kInclusive{"inclusive_scan", &student::scan_workspace_bytes, &student::inclusive_scan, true};
const lab06::ScanApi kExclusive{"exclusive_scan", &student::scan_workspace_bytes, &student::exclusive_scan, false};
const lab06::CompactApi kCompact{"compact", &student::compact_workspace_bytes, &student::compact};

// 1000 is not a multiple of a warp or of a typical block size; 5000 needs more than one block
// of up to 1024 threads with 4 elements each.
constexpr std::size_t kSmall = 1000;
constexpr std::size_t kFewBlocks = 5000;

void check_scan(const lab06::ScanApi& api, const std::vector<int>& values) {
  const lab06::ScanRun run = lab06::run_scan(api, values);
  ASSERT_TRUE(run.status);
  lab06::expect_scan_result(api, run, values, lab06::cpu_scan(values, api.inclusive));
}

void check_compact(const std::vector<int>& values, int threshold) {
  const lab06::CompactRun run = lab06::run_compact(kCompact, values, threshold);
  ASSERT_TRUE(run.status);
  lab06::expect_compact_result(kCompact, run, values, threshold);
}

TEST_F(SelfCheck, InclusiveScanSmall) {
  // All ones first: out[i] = i + 1 is easy to read in a failure report.
  ASSERT_NO_FATAL_FAILURE(check_scan(kInclusive, lab06::constant_ints(kSmall, 1)));
  ASSERT_NO_FATAL_FAILURE(check_scan(kInclusive, lab06::random_ints(kSmall, 601)));
  ASSERT_NO_FATAL_FAILURE(check_scan(kInclusive, lab06::random_ints(kFewBlocks, 602)));
}

TEST_F(SelfCheck, ExclusiveScanSmall) {
  ASSERT_NO_FATAL_FAILURE(check_scan(kExclusive, lab06::constant_ints(kSmall, 1)));
  ASSERT_NO_FATAL_FAILURE(check_scan(kExclusive, lab06::random_ints(kSmall, 611)));
  ASSERT_NO_FATAL_FAILURE(check_scan(kExclusive, lab06::random_ints(kFewBlocks, 612)));
}

TEST_F(SelfCheck, CompactSmall) {
  // Values in [-10, 10], keep those > 0: about half.
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(kSmall, 621, -10, 10), 0));
  ASSERT_NO_FATAL_FAILURE(check_compact(lab06::random_ints(kFewBlocks, 622, -10, 10), 0));
}

TEST_F(SelfCheck, ZeroLength) {
  // n == 0: the scans launch nothing and succeed, also with null pointers; compact writes
  // *count = 0.
  ASSERT_NO_FATAL_FAILURE(check_scan(kInclusive, {}));
  ASSERT_NO_FATAL_FAILURE(check_scan(kExclusive, {}));
  ASSERT_NO_FATAL_FAILURE(check_compact({}, 0));
  // Null in and out (a workspace of the size asked for, null if that is 0).
  const std::size_t bytes = student::scan_workspace_bytes(0);
  lab06::ByteArray workspace(bytes, 0);
  void* scratch = bytes == 0 ? nullptr : workspace.data();
  ASSERT_TRUE(cudalabs::call_and_wait("inclusive_scan(n = 0, null in and out)", true, [&] {
    return student::inclusive_scan(nullptr, nullptr, 0, scratch, bytes);
  }));
  ASSERT_TRUE(cudalabs::call_and_wait("exclusive_scan(n = 0, null in and out)", true, [&] {
    return student::exclusive_scan(nullptr, nullptr, 0, scratch, bytes);
  }));
}

// --- Timing preview (no points) -------------------------------------------------------------
// Your inclusive_scan alone at the graded size, with the grade's checks
// (cudalabs/performance_preview.hpp): every sample's output is compared with a scan on the CPU
// of the same values.

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

// n ints of device memory, copied to the host once the stream's work is done.
std::vector<int> download(const int* device, std::size_t n, cudaStream_t stream) {
  std::vector<int> host(n);
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  CUDALABS_CHECK(cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost));
  return host;
}

TEST_F(Preview, inclusive_scan) {
  cudalabs::DeviceBuffer<int> in(kTimedSize), out(kTimedSize);
  // The workspace it asks for, allocated once and garbage-filled once, as the graded case does.
  const std::size_t workspace_bytes = student::scan_workspace_bytes(kTimedSize);
  cudalabs::DeviceBuffer<unsigned char> workspace(workspace_bytes);
  if (workspace_bytes != 0) workspace.fill_bytes(cudalabs::kPoisonByte);
  cudalabs::PreviewWork work;
  // Values in [-1000, 1000], as the graded case's: every partial sum fits in an int.
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_ints(in.data(), kTimedSize, cudalabs::timing::round_seed(seed, 0), -1000, 1000, stream);
    cudalabs::poison_async(out.data(), out.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::inclusive_scan(in.data(), out.data(), kTimedSize, workspace.data(), workspace_bytes, stream);
  };
  // The input is checked unchanged before this runs, so its copy is the round's values.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    const std::vector<int> expected = lab06::cpu_scan(download(in.data(), kTimedSize, stream), true);
    const cudalabs::CompareReport report = cudalabs::compare_ints(expected, download(out.data(), kTimedSize, stream));
    return report.ok() ? "" : report.to_string(std::string("inclusive_scan at 2^26 ints: ") + lab06::formula(true));
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "in"}};
  work.bytes = 2.0 * kTimedSize * sizeof(int);  // read in, write out: the least any scan moves
  cudalabs::run_performance_preview("inclusive_scan", work);
}

}  // namespace
