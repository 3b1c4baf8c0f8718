#include "cudalabs/timing/cpu_wait.hpp"

#include <gtest/gtest.h>

namespace cudalabs::timing {
namespace {

TEST(CpuWait, ATrustedThreadsWaitDisturbsTheWindowAndProvesOutsideLoad) {
  const WindowCpuWait wait{4000, 0};
  EXPECT_TRUE(proves_outside_load(wait));
  EXPECT_TRUE(window_disturbed(wait, false));
}

// The student's code can make its own runner's thread wait: alone, that is its own slowness.
TEST(CpuWait, TheStudentsWaitAloneIsTheStudents) {
  const WindowCpuWait wait{0, 8000};
  EXPECT_FALSE(proves_outside_load(wait));
  EXPECT_FALSE(window_disturbed(wait, false));
  EXPECT_TRUE(window_disturbed(wait, true)) << "once other processes were seen taking CPUs";
}

TEST(CpuWait, SmallOrUnknownWaitsDisturbNothing) {
  EXPECT_FALSE(window_disturbed({kDisturbingCpuWaitUs, kDisturbingCpuWaitUs}, true));
  EXPECT_FALSE(window_disturbed({-1, -1}, true));
  EXPECT_FALSE(proves_outside_load({-1, 9000}));
}

}  // namespace
}  // namespace cudalabs::timing
