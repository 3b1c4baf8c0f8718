// How many grades a batch has under way (grader/src/batch/batch_engine.hpp, grades_under_way).
#include <gtest/gtest.h>

#include "batch/batch_engine.hpp"

namespace {

using labgrade::batch::grades_under_way;

// A grade waiting for the GPU or in its sanitizer pass holds no compile slot, so more grades are
// under way than compile at once: the last submissions of a class reach the GPU while the first
// are still being tested, instead of after them.
TEST(BatchGradesUnderWay, FourPerCompileSlotAtMostOnePerSubmission) {
  EXPECT_EQ(grades_under_way(16, 20), 20u);
  EXPECT_EQ(grades_under_way(16, 300), 64u);
  EXPECT_EQ(grades_under_way(1, 300), 4u);
  EXPECT_EQ(grades_under_way(0, 3), 3u);   // no job count: still one slot
  EXPECT_EQ(grades_under_way(16, 0), 1u);  // nothing to grade: one idle thread
}

}  // namespace
