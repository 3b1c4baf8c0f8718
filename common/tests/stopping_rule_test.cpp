// cudalabs::timing stopping rule and policy validation. Host-only.
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/timing/stopping_rule.hpp"

namespace {

using cudalabs::timing::SampleSummary;
using cudalabs::timing::SamplingPolicy;
using cudalabs::timing::paired_stop;
using cudalabs::timing::should_stop;
using cudalabs::timing::validate;

// A summary with the given count and relative half-width around a median of 1.
SampleSummary tracked(std::size_t samples, double relative_halfwidth) {
  SampleSummary s;
  s.median = 1.0;
  s.ci = {1.0 - relative_halfwidth, 1.0 + relative_halfwidth};
  s.samples = samples;
  return s;
}

// The message of the invalid_argument that validate throws, or "" when it accepts the policy.
std::string rejection(const SamplingPolicy& policy) {
  try {
    validate(policy);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

// --- should_stop -------------------------------------------------------------------------------

TEST(StoppingRule, KeepsGoingBelowMinSamplesEvenWhenPrecise) {
  const SamplingPolicy policy;  // min 10
  bool met = true;
  EXPECT_FALSE(should_stop(tracked(9, 0.0), 0.1, policy, &met));
  EXPECT_FALSE(met);
}

TEST(StoppingRule, StopsWhenTheTargetIsReached) {
  const SamplingPolicy policy;  // target 1%
  bool met = false;
  EXPECT_TRUE(should_stop(tracked(10, 0.0099), 0.1, policy, &met));
  EXPECT_TRUE(met);
  EXPECT_TRUE(should_stop(tracked(500, 0.002), 0.1, policy, &met));
  EXPECT_TRUE(met);
}

TEST(StoppingRule, TargetIsInclusive) {
  SamplingPolicy policy;
  policy.target_relative_ci = 0.25;  // exact in binary, like the half-width below
  bool met = false;
  EXPECT_TRUE(should_stop(tracked(10, 0.25), 0.1, policy, &met));
  EXPECT_TRUE(met);
}

TEST(StoppingRule, KeepsGoingWhileTooImprecise) {
  const SamplingPolicy policy;
  bool met = true;
  EXPECT_FALSE(should_stop(tracked(10, 0.0101), 0.1, policy, &met));
  EXPECT_FALSE(met);
  EXPECT_FALSE(should_stop(tracked(999, 0.05), 1.99, policy, &met));
  EXPECT_FALSE(met);
}

TEST(StoppingRule, StopsAtMaxSamplesWithoutTheTarget) {
  const SamplingPolicy policy;  // max 1000
  bool met = true;
  EXPECT_TRUE(should_stop(tracked(1000, 0.05), 0.1, policy, &met));
  EXPECT_FALSE(met);
}

TEST(StoppingRule, StopsWhenTheBudgetIsSpentEvenBeforeMinSamples) {
  const SamplingPolicy policy;  // budget 2 s
  bool met = true;
  EXPECT_TRUE(should_stop(tracked(50, 0.05), 2.0, policy, &met));
  EXPECT_FALSE(met);
  met = true;
  EXPECT_TRUE(should_stop(tracked(3, 0.0), 2.5, policy, &met));
  EXPECT_FALSE(met);
}

TEST(StoppingRule, TargetWinsOverBudgetWhenBothHold) {
  const SamplingPolicy policy;
  bool met = false;
  EXPECT_TRUE(should_stop(tracked(20, 0.005), 5.0, policy, &met));
  EXPECT_TRUE(met);
}

TEST(StoppingRule, UnknownSpreadNeverMeetsTheTarget) {
  SamplingPolicy policy;
  SampleSummary zero_median = tracked(100, 0.0);
  zero_median.median = 0.0;  // relative_halfwidth is +inf
  bool met = true;
  EXPECT_FALSE(should_stop(zero_median, 0.1, policy, &met));
  EXPECT_FALSE(met);
}

TEST(StoppingRule, TargetMetMayBeNull) {
  const SamplingPolicy policy;
  EXPECT_TRUE(should_stop(tracked(10, 0.0), 0.1, policy, nullptr));
  EXPECT_FALSE(should_stop(tracked(1, 0.0), 0.1, policy, nullptr));
}

// --- validate ------------------------------------------------------------------------------------

TEST(SamplingPolicyValidation, DefaultsAreValid) { EXPECT_EQ(rejection(SamplingPolicy{}), ""); }

TEST(SamplingPolicyValidation, RejectsNonsenseNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* field;
    void (*spoil)(SamplingPolicy&);
  };
  const Case cases[] = {
      {"warmup", [](SamplingPolicy& p) { p.warmup = -1; }},
      {"min_samples", [](SamplingPolicy& p) { p.min_samples = 0; }},
      {"min_samples", [](SamplingPolicy& p) { p.min_samples = 5; }},  // 95% needs 6
      {"max_samples", [](SamplingPolicy& p) { p.max_samples = 9; }},  // below min 10
      {"target_relative_ci", [](SamplingPolicy& p) { p.target_relative_ci = 0.0; }},
      {"target_relative_ci", [](SamplingPolicy& p) { p.target_relative_ci = -0.01; }},
      {"confidence", [](SamplingPolicy& p) { p.confidence = 0.0; }},
      {"confidence", [](SamplingPolicy& p) { p.confidence = 1.0; }},
      {"confidence", [](SamplingPolicy& p) { p.confidence = 95.0; }},
      {"time_budget_seconds", [](SamplingPolicy& p) { p.time_budget_seconds = 0.0; }},
  };
  for (const Case& c : cases) {
    SamplingPolicy policy;
    c.spoil(policy);
    const std::string message = rejection(policy);
    EXPECT_NE(message.find(c.field), std::string::npos) << "expected a rejection naming " << c.field
                                                        << ", got \"" << message << "\"";
  }
  SamplingPolicy policy;
  policy.target_relative_ci = nan;
  EXPECT_NE(rejection(policy).find("target_relative_ci"), std::string::npos);
  policy = SamplingPolicy{};
  policy.time_budget_seconds = inf;
  EXPECT_NE(rejection(policy).find("time_budget_seconds"), std::string::npos);
  policy = SamplingPolicy{};
  policy.confidence = nan;
  EXPECT_NE(rejection(policy).find("confidence"), std::string::npos);
}

// --- paired_stop: a graded case stops once its points are settled ------------------------------

// Settled when the ratio's whole interval lies at or below 1.1 (as a case's full points would be).
SamplingPolicy settled_below_1_1() {
  SamplingPolicy policy;
  policy.settled = [](const SampleSummary&, const SampleSummary& ratio) { return ratio.ci.high <= 1.1; };
  return policy;
}

TEST(PairedStop, StopsOnceSettledEvenWhenImprecise) {
  const auto decision = paired_stop(tracked(10, 0.5), tracked(10, 0.05), 0.1, settled_below_1_1());
  EXPECT_TRUE(decision.stop);
  EXPECT_TRUE(decision.settled);
  EXPECT_FALSE(decision.target_met);  // the interval is still 5%: only the points are settled
  EXPECT_FALSE(decision.budget_spent);
}

TEST(PairedStop, NeverBeforeMinSamples) {
  const auto decision = paired_stop(tracked(9, 0.5), tracked(9, 0.05), 0.1, settled_below_1_1());
  EXPECT_FALSE(decision.stop);
  EXPECT_FALSE(decision.settled);
}

TEST(PairedStop, GoesOnWhileTheIntervalCouldStillMoveThePoints) {
  const auto decision = paired_stop(tracked(10, 0.5), tracked(10, 0.2), 0.1, settled_below_1_1());
  EXPECT_FALSE(decision.stop);
  EXPECT_FALSE(decision.settled);
}

TEST(PairedStop, ThePrecisionTargetStillCountsAsMet) {
  const auto decision = paired_stop(tracked(10, 0.5), tracked(10, 0.005), 0.1, settled_below_1_1());
  EXPECT_TRUE(decision.stop);
  EXPECT_TRUE(decision.target_met);
  EXPECT_FALSE(decision.settled);  // not asked: the interval met the target first
}

TEST(PairedStop, WithoutASettledTestItIsShouldStop) {
  const SamplingPolicy policy;
  EXPECT_FALSE(paired_stop(tracked(10, 0.5), tracked(10, 0.05), 0.1, policy).stop);
  const auto out_of_time = paired_stop(tracked(10, 0.5), tracked(10, 0.05), 2.5, policy);
  EXPECT_TRUE(out_of_time.stop);
  EXPECT_TRUE(out_of_time.budget_spent);
  EXPECT_FALSE(out_of_time.target_met);
  EXPECT_FALSE(out_of_time.settled);
}

TEST(PairedStop, SaysSettledWhenTheBudgetRanOutToo) {
  const auto decision = paired_stop(tracked(10, 0.5), tracked(10, 0.05), 2.5, settled_below_1_1());
  EXPECT_TRUE(decision.stop);
  EXPECT_TRUE(decision.settled);
}

TEST(SamplingPolicyValidation, MinSamplesFollowTheConfidence) {
  SamplingPolicy policy;
  policy.confidence = 0.99;
  policy.min_samples = 7;  // 99% needs 8
  EXPECT_NE(rejection(policy).find("min_samples must be >= 8"), std::string::npos) << rejection(policy);
  policy.min_samples = 8;
  EXPECT_EQ(rejection(policy), "");
}

TEST(SamplingPolicyValidation, ZeroWarmupAndEqualMinMaxAreFine) {
  SamplingPolicy policy;
  policy.warmup = 0;
  policy.min_samples = 6;
  policy.max_samples = 6;
  EXPECT_EQ(rejection(policy), "");
}

// A pipeline's stages (measure_stages): only those that could still be the slowest are measured
// past their first look, and only when that look missed the precision target.
SampleSummary look(double median, double low, double high, std::size_t samples = 10) {
  SampleSummary s;
  s.median = median;
  s.ci = {low, high};
  s.samples = samples;
  return s;
}

TEST(WorthMeasuringFurther, OnlyStagesThatCouldStillBeTheSlowestAndMissedTheTarget) {
  // Lab 09 on the H100: copy in 2.43, transform 3.35 (+-2%), copy out 2.44, both copies 2.87 (+-3%).
  const std::vector<SampleSummary> stages{look(2.43, 2.42, 2.44), look(3.35, 3.28, 3.42), look(2.44, 2.42, 2.46),
                                          look(2.87, 2.78, 2.96)};
  EXPECT_EQ(cudalabs::timing::worth_measuring_further(stages, 0.01), (std::vector<bool>{false, true, false, false}));
  // The same transform known to +-0.5% already: nothing is measured again.
  std::vector<SampleSummary> precise = stages;
  precise[1] = look(3.35, 3.34, 3.36);
  EXPECT_EQ(cudalabs::timing::worth_measuring_further(precise, 0.01), (std::vector<bool>(4, false)));
}

TEST(WorthMeasuringFurther, OverlappingCandidatesAreAllMeasuredAndUnknownSpreadIsNeverPrecise) {
  // Both copies at once reaches the transform's lower bound: either could be the slowest.
  const std::vector<SampleSummary> close{look(3.30, 3.20, 3.40), look(3.25, 3.21, 3.36), look(2.0, 1.99, 2.01)};
  EXPECT_EQ(cudalabs::timing::worth_measuring_further(close, 0.01), (std::vector<bool>{true, true, false}));
  // One sample: no spread known (relative_halfwidth is +inf), so the lone stage is measured on.
  EXPECT_EQ(cudalabs::timing::worth_measuring_further({look(1.0, 1.0, 1.0, 1)}, 0.01), std::vector<bool>{true});
  EXPECT_TRUE(cudalabs::timing::worth_measuring_further({}, 0.01).empty());
}

}  // namespace
