// Lab 06 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 06_scan
// The grader runs these too, plus hidden cases (sizes 1, block sizes +-1, primes, sizes that
// need more than two levels of blocks, 2^26, several seeds, adversarial values, a reused
// workspace); see README.md.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
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

}  // namespace
