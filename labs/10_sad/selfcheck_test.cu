// Lab 10 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 10_sad
// The grader runs these too, plus hidden cases (1 x 1 frames, primes and sizes that are not
// multiples of 8, every search radius up to 32, more tie patterns, saturated pixels, frames not
// 4-byte aligned, several seeds, the largest frames) and two timed cases; see README.md.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "lab10_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "sad.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

void check(const lab10::Frame& current, const lab10::Frame& reference, int width, int height, int radius,
           const std::string& what) {
  SCOPED_TRACE("motion_search on " + std::to_string(width) + " x " + std::to_string(height) + " frames, R = " +
               std::to_string(radius) + ": " + what);
  const lab10::Motion expected = lab10::cpu_motion_search(current, reference, width, height, radius);
  const lab10::SearchRun run =
      lab10::run_search(&student::motion_search, "motion_search", current, reference, width, height, radius);
  lab10::expect_motion(run, "motion_search", current, reference, expected, width, height, radius, what);
}

// Random frames: 64 x 48 (whole blocks only) and 37 x 23 (the last column of blocks is 5 pixels
// wide, the last row 7 pixels high: partial blocks).
TEST_F(SelfCheck, RandomSmall) {
  ASSERT_NO_FATAL_FAILURE(
      check(lab10::random_frame(64, 48, 1001), lab10::random_frame(64, 48, 1002), 64, 48, 7, "random pixels"));
  ASSERT_NO_FATAL_FAILURE(
      check(lab10::random_frame(37, 23, 1003), lab10::random_frame(37, 23, 1004), 37, 23, 4, "random pixels"));
}

// The current frame is the reference moved by (3, -2): every block far enough from the border
// finds (3, -2) with SAD 0; the others find their best valid candidate.
TEST_F(SelfCheck, ShiftedFrame) {
  const lab10::Frame reference = lab10::random_frame(80, 64, 1011);
  const lab10::Frame current = lab10::shifted_copy(reference, 80, 64, 3, -2, 1012);
  ASSERT_NO_FATAL_FAILURE(check(current, reference, 80, 64, 4, "current(x, y) = reference(x + 3, y - 2)"));
}

// Every candidate has the same SAD (0 on equal flat frames, 255 per pixel on white against
// black): the tie rule picks (0, 0) everywhere.
TEST_F(SelfCheck, FlatFrames) {
  ASSERT_NO_FATAL_FAILURE(
      check(lab10::flat_frame(40, 24, 77), lab10::flat_frame(40, 24, 77), 40, 24, 5, "both frames all 77"));
  ASSERT_NO_FATAL_FAILURE(
      check(lab10::flat_frame(30, 17, 255), lab10::flat_frame(30, 17, 0), 30, 17, 3, "white against black"));
}

// Frames constant along the lines x + y = c: (0, 3), (1, 2), (2, 1) and (3, 0) all have SAD 0
// (with R = 6, so do (4, -1), (-1, 4), ...). All four have |dx| + |dy| = 3, the smallest; then
// the smallest dy wins: (3, 0).
TEST_F(SelfCheck, TieRule) {
  const lab10::Frame reference = lab10::diagonal_frame(48, 40, 1, 0, 1021);
  const lab10::Frame current = lab10::diagonal_frame(48, 40, 1, 3, 1021);
  ASSERT_NO_FATAL_FAILURE(check(current, reference, 48, 40, 6, "diagonal stripes moved by 3: expect (3, 0)"));
}

// Frames smaller than one block, and one block exactly.
TEST_F(SelfCheck, TinyFrames) {
  std::uint64_t seed = 1030;
  for (const auto& [width, height, radius] : std::vector<std::tuple<int, int, int>>{{1, 1, 4}, {5, 3, 2}, {8, 8, 2}}) {
    ++seed;
    ASSERT_NO_FATAL_FAILURE(check(lab10::random_frame(width, height, seed), lab10::random_frame(width, height, seed + 100),
                                  width, height, radius, "random pixels"));
  }
}

// width or height 0: nothing to do, cudaSuccess, nothing written.
TEST_F(SelfCheck, EmptyFrames) { lab10::expect_empty_is_a_no_op(&student::motion_search, "motion_search"); }

}  // namespace
