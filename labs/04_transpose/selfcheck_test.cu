// Lab 04 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 04_transpose
// The grader runs these too, plus hidden cases (1 x N and N x 1, primes, 131071-long rows and
// columns, 16384 x 4096, arrays not 16-byte aligned, NaN/-0.0/denormal values); see README.md.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "lab04_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "transpose.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// Transposes a rows x cols matrix of seeded values with `transpose` and checks everything.
void check_small(lab04::TransposeFn transpose, const char* name, std::size_t rows, std::size_t cols,
                 std::uint64_t seed) {
  SCOPED_TRACE(std::string(name) + " on a " + lab04::shape(rows, cols) + " matrix, seed " + std::to_string(seed));
  const std::vector<float> in = cudalabs::uniform_floats(rows * cols, seed);
  const lab04::TransposeRun run = lab04::run_transpose(transpose, name, in, rows, cols);
  lab04::expect_transposed(run, name, in, lab04::cpu_transpose(in, rows, cols), rows, cols,
                           cudalabs::lab_tolerance("transpose"), /*bit_exact=*/false);
}

// 45 x 70 and 70 x 45: neither side is a multiple of 8, 16 or 32, so the last tiles are partial,
// and the matrix is not square, so mixing up rows and cols shows.
TEST_F(SelfCheck, NaiveSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_naive, "transpose_naive", 45, 70, 401));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_naive, "transpose_naive", 70, 45, 402));
}

TEST_F(SelfCheck, CoalescedSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_coalesced, "transpose_coalesced", 45, 70, 411));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_coalesced, "transpose_coalesced", 70, 45, 412));
}

TEST_F(SelfCheck, ConflictFreeSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_conflict_free, "transpose_conflict_free", 45, 70, 421));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_conflict_free, "transpose_conflict_free", 70, 45, 422));
}

// 0 rows or 0 cols: nothing to do, cudaSuccess, nothing written.
TEST_F(SelfCheck, EmptyMatrix) {
  ASSERT_NO_FATAL_FAILURE(lab04::expect_empty_is_a_no_op(&student::transpose_naive, "transpose_naive", 0, 7));
  ASSERT_NO_FATAL_FAILURE(lab04::expect_empty_is_a_no_op(&student::transpose_coalesced, "transpose_coalesced", 7, 0));
  ASSERT_NO_FATAL_FAILURE(
      lab04::expect_empty_is_a_no_op(&student::transpose_conflict_free, "transpose_conflict_free", 0, 0));
}

}  // namespace
