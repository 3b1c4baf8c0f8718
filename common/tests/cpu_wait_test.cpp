#include "cudalabs/timing/cpu_wait.hpp"

#include <gtest/gtest.h>

namespace cudalabs::timing {
namespace {

TEST(CpuWait, ATrustedThreadsWaitDisturbsTheRound) {
  RoundCpuWait round;
  round.add({0, 0});
  EXPECT_FALSE(round.disturbed());
  round.add({4000, 0});  // e.g. the judge's thread during a device-idle check
  round.add({30, 9000});
  EXPECT_TRUE(round.disturbed());
  EXPECT_DOUBLE_EQ(round.longest_trusted_us(), 4000) << "the student's own 9 ms wait is not the machine's";
}

// The student's code can make its own runner's thread wait in every window: that is its own
// slowness, however busy the rest of the machine was in other rounds.
TEST(CpuWait, TheStudentsWaitAloneIsTheStudentsInEveryRound) {
  for (int round_number = 0; round_number < 10; ++round_number) {
    RoundCpuWait round;
    round.add({0, 8000});
    round.add({3, 0});
    EXPECT_FALSE(round.disturbed()) << "round " << round_number;
    EXPECT_DOUBLE_EQ(round.longest_trusted_us(), 3);
  }
  EXPECT_FALSE(proves_outside_load({0, 8000}));
}

TEST(CpuWait, SmallOrUnknownWaitsDisturbNothing) {
  RoundCpuWait round;
  round.add({kDisturbingCpuWaitUs, kDisturbingCpuWaitUs});
  round.add({-1, -1});
  round.add({-1, 9000});
  EXPECT_FALSE(round.disturbed());
  EXPECT_FALSE(proves_outside_load({-1, 9000}));
}

// Within a long window of the student's, a wait too short to move its figure past the timing's
// noise is no proof; the same wait elsewhere (the reference's windows, the device-idle checks,
// which carry no window length) still is.
TEST(CpuWait, AWaitCountsAgainstTheLengthOfItsWindow) {
  EXPECT_FALSE(proves_outside_load({71, 0, 22000})) << "71 us of a 22 ms window is 0.3%";
  EXPECT_TRUE(proves_outside_load({71, 0, 500})) << "71 us of a 0.5 ms window is 14%";
  EXPECT_TRUE(proves_outside_load({71, 0, 0})) << "a check without a window keeps the absolute bound";
  EXPECT_TRUE(proves_outside_load({200, 0, 22000})) << "0.9% of the window";
  RoundCpuWait round;
  round.add({71, 0, 22000});
  EXPECT_FALSE(round.disturbed());
  round.add({71, 0, 500});
  EXPECT_TRUE(round.disturbed());
}

}  // namespace
}  // namespace cudalabs::timing
