// The late policy's arithmetic: whole days started after the deadline, the grace period, the cap.
#include <gtest/gtest.h>

#include "batch/late_penalty.hpp"

namespace {

using cudalabs::config::LatePolicy;
using labgrade::batch::late_penalty;

constexpr std::int64_t kDue = 1790924340;  // 2026-10-02T06:59:00Z
constexpr std::int64_t kDay = 86400;

LatePolicy policy(double grace_minutes, double per_day, double cap) {
  LatePolicy late;
  late.due = kDue;
  late.grace_minutes = grace_minutes;
  late.penalty_percent_per_day = per_day;
  late.max_penalty_percent = cap;
  return late;
}

TEST(LatePenalty, NothingWithoutAPolicyOrASubmissionTime) {
  EXPECT_FALSE(late_penalty(std::nullopt, kDue + kDay, 80));
  EXPECT_FALSE(late_penalty(policy(0, 10, 100), std::nullopt, 80));
}

TEST(LatePenalty, OnTimeAndWithinGraceCostNothing) {
  const auto early = late_penalty(policy(15, 10, 100), kDue - 3600, 80);
  ASSERT_TRUE(early);
  EXPECT_EQ(early->days_late, 0);
  EXPECT_EQ(early->points, 0);
  const auto in_grace = late_penalty(policy(15, 10, 100), kDue + 15 * 60, 80);
  ASSERT_TRUE(in_grace);
  EXPECT_EQ(in_grace->days_late, 0);
  EXPECT_EQ(in_grace->percent, 0);
}

TEST(LatePenalty, EachDayStartedCountsFromTheDeadline) {
  // Past the grace period, lateness counts from the deadline itself.
  const auto just_after_grace = late_penalty(policy(15, 10, 100), kDue + 15 * 60 + 1, 80);
  ASSERT_TRUE(just_after_grace);
  EXPECT_EQ(just_after_grace->days_late, 1);
  EXPECT_DOUBLE_EQ(just_after_grace->percent, 10);
  EXPECT_DOUBLE_EQ(just_after_grace->points, 8);
  EXPECT_EQ(late_penalty(policy(0, 10, 100), kDue + 1, 80)->days_late, 1);
  EXPECT_EQ(late_penalty(policy(0, 10, 100), kDue + kDay, 80)->days_late, 1);
  EXPECT_EQ(late_penalty(policy(0, 10, 100), kDue + kDay + 1, 80)->days_late, 2);
  const auto three = late_penalty(policy(0, 12.5, 100), kDue + 2 * kDay + 7, 60);
  EXPECT_EQ(three->days_late, 3);
  EXPECT_DOUBLE_EQ(three->percent, 37.5);
  EXPECT_DOUBLE_EQ(three->points, 22.5);
}

TEST(LatePenalty, TheCapBoundsThePenalty) {
  const auto very_late = late_penalty(policy(0, 10, 30), kDue + 20 * kDay, 90);
  ASSERT_TRUE(very_late);
  EXPECT_EQ(very_late->days_late, 20);
  EXPECT_DOUBLE_EQ(very_late->percent, 30);
  EXPECT_DOUBLE_EQ(very_late->points, 27);
  EXPECT_DOUBLE_EQ(late_penalty(policy(0, 50, 100), kDue + 5 * kDay, 40)->points, 40);  // never below zero
}

}  // namespace
