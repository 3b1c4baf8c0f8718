#include "scoring.hpp"

#include <gtest/gtest.h>

namespace labgrade {
namespace {

using cudalabs::config::Visibility;

cudalabs::config::LabConfig lab_with_three_tests() {
  cudalabs::config::LabConfig lab;
  lab.id = "01_vector_add";
  lab.total_points = 30;
  lab.tests = {{"SelfCheck.Small", 5, Visibility::Public, 1},
               {"Hidden.Large", 20, Visibility::Hidden, 2},
               {"Hidden.Seeds", 5, Visibility::Hidden, 3}};
  return lab;
}

TEST(Scoring, OnlyPassedTestsEarnTheirPoints) {
  const auto lab = lab_with_three_tests();
  GradeReport report;
  report.tests = score_tests(lab, {{"Hidden.Large", TestStatus::Passed, "", 1},
                                   {"SelfCheck.Small", TestStatus::Skipped, "no GPU", 0},
                                   {"Hidden.Seeds", TestStatus::Crashed, "SIGSEGV", 0}},
                             false);
  total_points(report);
  ASSERT_EQ(report.tests.size(), 3u);
  EXPECT_EQ(report.tests[0].name, "SelfCheck.Small");  // YAML order, not outcome order
  EXPECT_EQ(report.tests[0].points_earned, 0);
  EXPECT_EQ(report.tests[1].points_earned, 20);
  EXPECT_EQ(report.tests[2].points_earned, 0);
  EXPECT_EQ(report.points_earned, 20);
  EXPECT_EQ(report.points_possible, 30);
}

TEST(Scoring, ATestWithoutAnOutcomeIsNotRunAndEarnsNothing) {
  const auto tests = score_tests(lab_with_three_tests(), {}, false);
  for (const auto& test : tests) {
    EXPECT_EQ(test.outcome.status, TestStatus::NotRun);
    EXPECT_EQ(test.points_earned, 0);
  }
}

TEST(Scoring, SelfCheckCountsOnlyPublicTests) {
  const auto tests = score_tests(lab_with_three_tests(), {{"SelfCheck.Small", TestStatus::Passed, "", 0}}, true);
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(tests[0].points_earned, 5);
}

TEST(Scoring, UnscoredTestsCarryTheReason) {
  const auto tests = unscored_tests(lab_with_three_tests(), TestStatus::NotRun, "did not compile", false);
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[2].outcome.message, "did not compile");
  EXPECT_EQ(tests[2].points_possible, 5);
  EXPECT_EQ(tests[2].points_earned, 0);
}

}  // namespace
}  // namespace labgrade
