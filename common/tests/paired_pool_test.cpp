// A measurement pooled over several runner pairs (cudalabs/timing/paired_pool.hpp): each pair's
// share of the rounds, and one result of all of them.
#include "cudalabs/timing/paired_pool.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace {

using cudalabs::timing::PairedResult;
using cudalabs::timing::SamplingPolicy;
using cudalabs::timing::SampleSummary;

PairedResult part(std::vector<double> student, std::vector<double> solution, double overhead_ms) {
  PairedResult result;
  for (std::size_t i = 0; i < student.size(); ++i) result.ratio_samples.push_back(student[i] / solution[i]);
  result.student_samples = std::move(student);
  result.solution_samples = std::move(solution);
  result.rounds = static_cast<int>(result.ratio_samples.size());
  result.call_overhead_ms = overhead_ms;
  result.seconds_spent = 0.5;
  result.verified_samples = result.rounds;
  return result;
}

TEST(PolicyForOneOf, SharesTheRoundsAndTheBudgetButNeverBelowWhatAnIntervalNeeds) {
  SamplingPolicy policy;
  policy.min_samples = 10;
  policy.max_samples = 1000;
  policy.time_budget_seconds = 2.0;
  const SamplingPolicy two = cudalabs::timing::policy_for_one_of(policy, 2);
  EXPECT_EQ(two.min_samples, 6);  // 10 / 2 = 5 rounds cannot give a 95% interval of a median
  EXPECT_EQ(two.max_samples, 500);
  EXPECT_DOUBLE_EQ(two.time_budget_seconds, 1.0);
  policy.min_samples = 20;
  const SamplingPolicy three = cudalabs::timing::policy_for_one_of(policy, 3);
  EXPECT_EQ(three.min_samples, 7);  // 20 / 3 rounded up
  EXPECT_EQ(three.max_samples, 334);
  EXPECT_EQ(cudalabs::timing::policy_for_one_of(policy, 1).min_samples, 20);
}

TEST(PoolMeasurements, SummarisesEveryPairsRoundsAsOneMeasurement) {
  // One pair slow by 2%, the other fast by 2%: the pool's median ratio sits between them.
  const PairedResult slow = part({1.02, 1.02, 1.02, 1.02, 1.02, 1.02}, {1, 1, 1, 1, 1, 1}, 0.30);
  const PairedResult fast = part({0.98, 0.98, 0.98, 0.98, 0.98, 0.98}, {1, 1, 1, 1, 1, 1}, 0.32);
  SamplingPolicy policy;
  policy.min_samples = 10;
  policy.target_relative_ci = 0.05;
  const PairedResult pool = cudalabs::timing::pool_measurements({slow, fast}, policy);
  EXPECT_EQ(pool.runner_pairs, 2);
  EXPECT_EQ(pool.rounds, 12);
  EXPECT_EQ(pool.ratio.samples, 12u);
  EXPECT_DOUBLE_EQ(pool.ratio.median, 1.0);
  EXPECT_DOUBLE_EQ(pool.student_ms.median, 1.0);
  EXPECT_DOUBLE_EQ(pool.ratio.ci.low, 0.98);
  EXPECT_DOUBLE_EQ(pool.ratio.ci.high, 1.02);
  EXPECT_DOUBLE_EQ(pool.seconds_spent, 1.0);
  EXPECT_EQ(pool.verified_samples, 12);
  EXPECT_DOUBLE_EQ(pool.call_overhead_ms, 0.31);
  EXPECT_TRUE(pool.target_met);  // +-2% within the 5% asked
  policy.target_relative_ci = 0.01;
  EXPECT_FALSE(cudalabs::timing::pool_measurements({slow, fast}, policy).target_met);
}

TEST(PoolMeasurements, TheSettledRuleIsAskedOfThePool) {
  const PairedResult a = part({2, 2, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1}, 0.3);
  const PairedResult b = part({2.2, 2.2, 2.2, 2.2, 2.2, 2.2}, {1, 1, 1, 1, 1, 1}, 0.3);
  SamplingPolicy policy;
  policy.target_relative_ci = 0.001;
  std::size_t asked_with = 0;
  policy.settled = [&](const SampleSummary& student, const SampleSummary& ratio) {
    asked_with = ratio.samples;
    return student.median > 1.5;  // "slower than 1.5x whatever the interval": the points are set
  };
  const PairedResult pool = cudalabs::timing::pool_measurements({a, b}, policy);
  EXPECT_EQ(asked_with, 12u);
  EXPECT_FALSE(pool.target_met);
  EXPECT_TRUE(pool.settled);
}

TEST(PoolMeasurements, AFailureOrABusyMachineInAnyPairIsThePools) {
  PairedResult good = part({1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, 0.3);
  PairedResult wrong = good;
  wrong.integrity_failure = "the timed call's result was wrong on sample 3";
  PairedResult busy = good;
  busy.machine_busy = "in 9 of 12 rounds the grader's own timed processes had to wait";
  busy.disturbed_rounds = 9;
  busy.max_cpu_wait_ms = 0.4;
  SamplingPolicy policy;
  policy.target_relative_ci = 0.5;
  const PairedResult failed = cudalabs::timing::pool_measurements({good, wrong}, policy);
  EXPECT_EQ(failed.integrity_failure, wrong.integrity_failure);
  EXPECT_FALSE(failed.target_met);
  const PairedResult disturbed = cudalabs::timing::pool_measurements({good, busy}, policy);
  EXPECT_EQ(disturbed.machine_busy, busy.machine_busy);
  EXPECT_EQ(disturbed.disturbed_rounds, 9);
  EXPECT_DOUBLE_EQ(disturbed.max_cpu_wait_ms, 0.4);
  EXPECT_FALSE(disturbed.target_met);
  EXPECT_THROW(cudalabs::timing::pool_measurements({}, policy), std::invalid_argument);
}

}  // namespace
