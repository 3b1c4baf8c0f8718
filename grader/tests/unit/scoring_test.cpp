#include "score/scoring.hpp"

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
  GradeResult report;
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

namespace labgrade {
namespace {

cudalabs::config::LabConfig lab_with_a_timed_case() {
  cudalabs::config::LabConfig lab;
  lab.id = "01_vector_add";
  cudalabs::config::PerformanceSpec spec;
  spec.name = "vector_add_2to26";
  spec.points = 10;
  spec.visibility = cudalabs::config::Visibility::Hidden;
  spec.threshold.kind = cudalabs::config::ThresholdKind::MaxRatioToSolution;
  spec.threshold.value = 1.1;
  spec.partial_credit = cudalabs::config::PartialCredit{2.0};
  lab.performance = {spec};
  return lab;
}

PerformanceMeasurement measured_ratio(double median, double low, double high) {
  PerformanceMeasurement m;
  m.device = "Fake GPU";
  m.student_ms = {0.3 * median, 0.3 * low, 0.3 * high, 40};
  m.solution_ms = {0.3, 0.299, 0.301, 40};
  m.ratio = {median, low, high, 40};
  m.rounds = 40;
  m.bytes = 3.0 * (1 << 26) * 4;
  m.peak_bandwidth_gbs = 2900;
  m.achieved_gbs = m.bytes / (m.student_ms.median * 1e-3) / 1e9;
  return m;
}

TEST(PerformanceScoring, CreditFollowsTheVerdictOnTheMeasuredRatio) {
  const auto lab = lab_with_a_timed_case();
  const std::vector<TestOutcome> outcomes{{"Performance.vector_add_2to26", TestStatus::Failed, "slow", 2}};
  const auto tests = score_performance(lab, outcomes, {{"Performance.vector_add_2to26", measured_ratio(1.55, 1.5, 1.6)}},
                                       false);
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_NEAR(tests[0].points_earned, 5.0, 1e-9);  // halfway between 1.1 (full) and 2.0 (none)
  EXPECT_EQ(tests[0].outcome.status, TestStatus::Failed);
  ASSERT_TRUE(tests[0].performance);
  EXPECT_NE(tests[0].outcome.message.find("50% of the points"), std::string::npos) << tests[0].outcome.message;
  EXPECT_NE(tests[0].outcome.message.find("% of the device's 2900 GB/s copy bandwidth"), std::string::npos)
      << tests[0].outcome.message;
}

TEST(PerformanceScoring, AFastEnoughCaseEarnsEverythingAndPasses) {
  const auto lab = lab_with_a_timed_case();
  const auto tests = score_performance(lab, {{"Performance.vector_add_2to26", TestStatus::Passed, "", 2}},
                                       {{"Performance.vector_add_2to26", measured_ratio(1.01, 1.0, 1.02)}}, false);
  EXPECT_DOUBLE_EQ(tests.at(0).points_earned, 10);
  EXPECT_EQ(tests.at(0).outcome.status, TestStatus::Passed);
}

TEST(PerformanceScoring, NoMeasurementEarnsNothing) {
  const auto lab = lab_with_a_timed_case();
  const auto wrong = score_performance(
      lab, {{"Performance.vector_add_2to26", TestStatus::Failed, "vector c: 3 of 67108864 elements differ", 1}}, {},
      false);
  EXPECT_DOUBLE_EQ(wrong.at(0).points_earned, 0);
  EXPECT_FALSE(wrong.at(0).performance);
  EXPECT_EQ(wrong.at(0).outcome.message, "vector c: 3 of 67108864 elements differ");
  // A measurement from a test that then crashed is not used either.
  const auto crashed = score_performance(lab, {{"Performance.vector_add_2to26", TestStatus::Crashed, "SIGSEGV", 1}},
                                         {{"Performance.vector_add_2to26", measured_ratio(1.0, 0.99, 1.01)}}, false);
  EXPECT_DOUBLE_EQ(crashed.at(0).points_earned, 0);
}

TEST(PerformanceScoring, SelfCheckLeavesOutHiddenCasesAndUnscoredListsThem) {
  const auto lab = lab_with_a_timed_case();
  EXPECT_TRUE(score_performance(lab, {}, {}, true).empty());
  const auto unscored = unscored_tests(lab, TestStatus::NotRun, "did not compile", false);
  ASSERT_EQ(unscored.size(), 1u);
  EXPECT_EQ(unscored[0].name, "Performance.vector_add_2to26");
  EXPECT_EQ(unscored[0].points_possible, 10);
}

TEST(PerformanceMeasurementEvent, ParsesWhatTheHarnessSendsAndRejectsTheRest) {
  const auto event = nlohmann::json::parse(R"({"event":"measurement","test":"Performance.x","device":"GPU",
    "student_ms":{"median":1,"low":0.9,"high":1.1,"samples":20},"solution_ms":{"median":1,"low":0.9,"high":1.1,"samples":20},
    "ratio":{"median":1,"low":0.99,"high":1.01,"samples":20},"target_met":true,"rounds":20,"remeasured":0,"seconds":0.5,
    "bytes":100,"flops":0,"achieved_gbs":1,"achieved_gflops":0,"peak_bandwidth_gbs":2,"peak_gflops":0,
    "clocks":{"sm_mhz_measured":1980,"sm_mhz_max":0,"memory_mhz":0,"note":""},"implausible":false,
    "implausible_reason":"","bandwidth_limit_gbs":3300,"flops_limit_gflops":0,"verified_samples":6,
    "timing_seed":"0x00000000000004d2","case_seed":"0x1234567890abcdef"})");
  const auto measurement = parse_measurement(event);
  ASSERT_TRUE(measurement);
  EXPECT_EQ(measurement->rounds, 20);
  EXPECT_DOUBLE_EQ(measurement->ratio.high, 1.01);
  EXPECT_DOUBLE_EQ(measurement->sm_clock_mhz, 1980);
  auto broken = event;
  broken["ratio"]["median"] = "fast";
  EXPECT_FALSE(parse_measurement(broken));
  broken = event;
  broken.erase("student_ms");
  EXPECT_FALSE(parse_measurement(broken));
  // Whether the figure is believable must be said.
  broken = event;
  broken.erase("implausible");
  EXPECT_FALSE(parse_measurement(broken));
  EXPECT_EQ(measurement->verified_samples, 6);
  EXPECT_EQ(measurement->timing_seed, "0x00000000000004d2");
  EXPECT_DOUBLE_EQ(measurement->bandwidth_limit_gbs, 3300);
  EXPECT_FALSE(measurement->points_settled);  // not said: sampling ran to its precision target or budget
}

// A measurement stopped once its points were settled says so, and not that it fell short.
TEST(PerformanceMeasurementEvent, AMeasurementStoppedOnceItsPointsWereSettledSaysSo) {
  const auto event = nlohmann::json::parse(R"({"event":"measurement","test":"Performance.x","device":"GPU",
    "student_ms":{"median":1,"low":0.9,"high":1.1,"samples":10},"solution_ms":{"median":1,"low":0.9,"high":1.1,"samples":10},
    "ratio":{"median":1,"low":0.97,"high":1.04,"samples":10},"target_met":false,"points_settled":true,"rounds":10,
    "remeasured":0,"seconds":0.2,"bytes":100,"flops":0,"achieved_gbs":1,"achieved_gflops":0,"peak_bandwidth_gbs":2,
    "peak_gflops":0,"clocks":{"sm_mhz_measured":1980,"sm_mhz_max":0,"memory_mhz":0,"note":""},"implausible":false,
    "implausible_reason":"","bandwidth_limit_gbs":3300,"flops_limit_gflops":0,"verified_samples":10,
    "timing_seed":"0x00000000000004d2","case_seed":"0x1234567890abcdef"})");
  const auto measurement = parse_measurement(event);
  ASSERT_TRUE(measurement);
  EXPECT_TRUE(measurement->points_settled);
  const PerformanceResult result{*measurement, {}};
  EXPECT_NE(describe(result).find("10 rounds, enough to settle the points"), std::string::npos) << describe(result);
  EXPECT_EQ(describe(result).find("precision target not reached"), std::string::npos) << describe(result);
  EXPECT_EQ(to_json(result)["points_settled"], true);
  // A timing preview (the student's code alone) has no points: its verdict was settled.
  PerformanceMeasurement alone = *measurement;
  alone.compared_with = cudalabs::events::kComparedWithNothing;
  const PerformanceResult preview{alone, {}};
  EXPECT_NE(describe(preview).find("10 samples, interval"), std::string::npos) << describe(preview);
  EXPECT_NE(describe(preview).find("enough to settle the verdict"), std::string::npos) << describe(preview);
}

// A case that left the gated windows says why, and that the last of its runner pairs was kept.
TEST(PerformanceMeasurementEvent, AFallbackFromTheGateAndTheMeasurementKeptReachTheReport) {
  cudalabs::events::Measurement sent;
  sent.test = "Performance.x";
  sent.device = "GPU";
  sent.rounds = 20;
  sent.remeasured = 2;
  sent.kept_best = false;
  sent.gated = false;
  sent.ungated_because = "a call could not be held at the window's gate: vector_add: timed out";
  const auto measurement = parse_measurement(nlohmann::json(sent));
  ASSERT_TRUE(measurement);
  const PerformanceResult result{*measurement, {}};
  const std::string line = describe(result);
  EXPECT_NE(line.find("measured 2 more times, the last kept"), std::string::npos) << line;
  EXPECT_NE(line.find("each window timed from the request to the reply, since in gated windows a call could not be "
                      "held at the window's gate: vector_add: timed out"),
            std::string::npos)
      << line;
  EXPECT_EQ(to_json(result)["gated_windows"], false);
  EXPECT_EQ(to_json(result)["kept_best"], false);
  EXPECT_EQ(to_json(result)["ungated_because"], sent.ungated_because);
  // Gated, the best of the pairs kept: no fallback sentence.
  sent.kept_best = true;
  sent.gated = true;
  sent.ungated_because.clear();
  const PerformanceResult gated{*parse_measurement(nlohmann::json(sent)), {}};
  EXPECT_NE(describe(gated).find("measured 2 more times, the best kept"), std::string::npos) << describe(gated);
  EXPECT_EQ(describe(gated).find("request to the reply"), std::string::npos) << describe(gated);
  EXPECT_EQ(to_json(gated)["gated_windows"], true);
}

TEST(PerformanceScoring, AnImplausibleFigureEarnsNothingAndIsFlagged) {
  const auto lab = lab_with_a_timed_case();
  PerformanceMeasurement m = measured_ratio(0.0045, 0.0044, 0.0046);  // 224x faster than the reference
  m.implausible = true;
  m.implausible_reason = "645277 GB/s is 224.1x this GPU's measured copy bandwidth (2880 GB/s)";
  const auto tests =
      score_performance(lab, {{"Performance.vector_add_2to26", TestStatus::Passed, "", 2}},
                        {{"Performance.vector_add_2to26", m}}, false);
  EXPECT_DOUBLE_EQ(tests.at(0).points_earned, 0);
  EXPECT_EQ(tests.at(0).outcome.status, TestStatus::Failed);
  EXPECT_NE(tests.at(0).outcome.message.find("IMPLAUSIBLE, not scored (for the instructor to review): 645277 GB/s"),
            std::string::npos)
      << tests.at(0).outcome.message;
  ASSERT_TRUE(tests.at(0).performance);
  EXPECT_EQ(tests.at(0).performance->verdict.explanation.rfind("IMPLAUSIBLE, not scored", 0), 0u);
  EXPECT_TRUE(to_json(*tests.at(0).performance)["implausible"].get<bool>());
}

// Figures measured while the grader's timed processes waited for CPUs (the machine's other work)
// are not the code's: no points, however good, and the report says to grade again.
TEST(PerformanceScoring, FiguresOfABusyMachineEarnNothingAndSayGradeAgain) {
  const auto lab = lab_with_a_timed_case();
  PerformanceMeasurement m = measured_ratio(0.98, 0.96, 1.0);  // full points if it were scored
  m.machine_busy = "in 12 of 20 rounds the grader's timed processes had to wait for a CPU";
  const auto tests =
      score_performance(lab, {{"Performance.vector_add_2to26", TestStatus::Passed, "", 2}},
                        {{"Performance.vector_add_2to26", m}}, false);
  EXPECT_DOUBLE_EQ(tests.at(0).points_earned, 0);
  EXPECT_EQ(tests.at(0).outcome.status, TestStatus::Failed);
  EXPECT_NE(tests.at(0).outcome.message.find("NOT SCORED, the machine was too busy to time this case fairly (grade "
                                             "again"),
            std::string::npos)
      << tests.at(0).outcome.message;
  EXPECT_NE(tests.at(0).outcome.message.find("in 12 of 20 rounds"), std::string::npos) << tests.at(0).outcome.message;
  ASSERT_TRUE(tests.at(0).performance);
  EXPECT_EQ(to_json(*tests.at(0).performance)["machine_busy"], m.machine_busy);
  // Such a grade is no grade (session/stages.cpp: RunStatus::MachineBusy), naming the case.
  EXPECT_EQ(cases_timed_on_a_busy_machine(tests), std::vector<std::string>{"Performance.vector_add_2to26"});
  const auto measured_fairly = score_performance(lab, {{"Performance.vector_add_2to26", TestStatus::Passed, "", 2}},
                                                 {{"Performance.vector_add_2to26", measured_ratio(0.98, 0.96, 1.0)}},
                                                 false);
  EXPECT_TRUE(cases_timed_on_a_busy_machine(measured_fairly).empty());
}

}  // namespace
}  // namespace labgrade
