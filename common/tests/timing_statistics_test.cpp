// cudalabs::timing statistics: median, the order-statistic confidence interval of the median
// (ranks pinned from exact binomial tails computed independently with Python's exact integers),
// its coverage on synthetic data, and SampleSummary. Host-only.
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/generators.hpp"
#include "cudalabs/timing/statistics.hpp"

namespace {

using cudalabs::SplitMix64;
using cudalabs::timing::Interval;
using cudalabs::timing::SampleSummary;
using cudalabs::timing::median;
using cudalabs::timing::median_confidence_interval;
using cudalabs::timing::min_samples_for_confidence;
using cudalabs::timing::summarize;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// 1..n in a scrambled order: each value is its own rank, so an interval reads as ranks.
std::vector<double> scrambled_ranks(std::size_t n) {
  std::vector<double> values;
  values.reserve(n);
  // 7919 is prime and does not divide n for the sizes used, so i -> i*7919 mod n is a permutation.
  for (std::size_t i = 0; i < n; ++i) values.push_back(static_cast<double>((i * 7919) % n + 1));
  return values;
}

// --- median ----------------------------------------------------------------------------------

TEST(TimingMedian, OddCount) { EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0); }

TEST(TimingMedian, EvenCountAveragesTheMiddlePair) { EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5); }

TEST(TimingMedian, Unsorted) { EXPECT_EQ(median({9.0, -1.0, 5.0, 7.0, 0.5, 3.0, 8.0}), 5.0); }

TEST(TimingMedian, SingleValue) { EXPECT_EQ(median({42.0}), 42.0); }

TEST(TimingMedian, Duplicates) {
  EXPECT_EQ(median({5.0, 5.0, 5.0, 1.0}), 5.0);
  EXPECT_EQ(median({2.0, 1.0, 2.0, 1.0}), 1.5);
  EXPECT_EQ(median({7.0, 7.0, 7.0}), 7.0);
}

TEST(TimingMedian, EmptyThrows) { EXPECT_THROW(median({}), std::invalid_argument); }

// --- confidence interval: ranks ----------------------------------------------------------------

struct RankCase {
  std::size_t n;
  double confidence;
  double low_rank;
  double high_rank;
};

TEST(TimingMedianInterval, OrderStatisticRanks) {
  // l = largest rank with 2 * P(Binomial(n, 1/2) <= l-1) <= 1 - confidence; interval [x(l), x(n+1-l)].
  // n = 10, 95%: P(B<=1) = 11/1024, doubled 0.021 <= 0.05; P(B<=2) = 56/1024, doubled 0.109 > 0.05.
  const RankCase cases[] = {
      {10, 0.95, 2, 9},         {20, 0.95, 6, 15},        {100, 0.95, 40, 61},
      {10, 0.99, 1, 10},        {20, 0.99, 4, 17},        {100, 0.99, 37, 64},
      {2000, 0.95, 956, 1045},  {10000, 0.95, 4902, 5099}, {10000, 0.99, 4871, 5130},
      {6, 0.95, 1, 6},  // smallest n reaching 95%: 2 / 64 <= 0.05
  };
  for (const RankCase& c : cases) {
    const Interval ci = median_confidence_interval(scrambled_ranks(c.n), c.confidence);
    EXPECT_EQ(ci.low, c.low_rank) << "n = " << c.n << ", confidence " << c.confidence;
    EXPECT_EQ(ci.high, c.high_rank) << "n = " << c.n << ", confidence " << c.confidence;
  }
}

TEST(TimingMedianInterval, TooFewSamplesGiveTheFullRange) {
  const Interval five = median_confidence_interval({5.0, 1.0, 4.0, 2.0, 3.0}, 0.95);
  EXPECT_EQ(five.low, 1.0);
  EXPECT_EQ(five.high, 5.0);
  const Interval one = median_confidence_interval({3.0}, 0.95);
  EXPECT_EQ(one.low, 3.0);
  EXPECT_EQ(one.high, 3.0);
}

TEST(TimingMedianInterval, MinSamplesForConfidence) {
  EXPECT_EQ(min_samples_for_confidence(0.95), 6u);  // 2/32 > 0.05 >= 2/64
  EXPECT_EQ(min_samples_for_confidence(0.99), 8u);  // 2/128 > 0.01 >= 2/256
  EXPECT_EQ(min_samples_for_confidence(0.5), 2u);
  EXPECT_EQ(min_samples_for_confidence(0.9375), 5u);  // boundary: exactly 2/32 == 1 - 0.9375
}

TEST(TimingMedianInterval, RejectsBadInput) {
  EXPECT_THROW(median_confidence_interval({}, 0.95), std::invalid_argument);
  EXPECT_THROW(median_confidence_interval({1.0, 2.0}, 0.0), std::invalid_argument);
  EXPECT_THROW(median_confidence_interval({1.0, 2.0}, 1.0), std::invalid_argument);
  EXPECT_THROW(median_confidence_interval({1.0, 2.0}, std::nan("")), std::invalid_argument);
  EXPECT_THROW(min_samples_for_confidence(1.5), std::invalid_argument);
}

// --- confidence interval: coverage -------------------------------------------------------------

// Standard normal by Box-Muller from the course's portable generator.
double standard_normal(SplitMix64& rng) {
  const double u1 = 1.0 - rng.next_unit_double();  // (0, 1]: log is finite
  const double u2 = rng.next_unit_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// Fraction of `trials` data sets of size n whose 95% interval contains the true median.
template <class Draw>
double coverage(std::size_t n, int trials, double true_median, Draw draw) {
  int covered = 0;
  std::vector<double> values(n);
  for (int t = 0; t < trials; ++t) {
    for (double& v : values) v = draw();
    const Interval ci = median_confidence_interval(values, 0.95);
    if (ci.low <= true_median && true_median <= ci.high) ++covered;
  }
  return static_cast<double>(covered) / trials;
}

// Exact coverage is >= 95% by construction, and above it by the binomial's discreteness; n = 37
// (95.3%) and n = 149 (95.1%) sit close to 95%. 2000 trials give a standard error of about 0.5%,
// so [93%, 97%] is about +-4 standard errors, and the fixed seeds make the outcome reproducible.
TEST(TimingMedianInterval, CoversTheTrueMedianOfLognormalData) {
  SplitMix64 rng(20240601);
  const double mu = std::log(2.0);  // lognormal(mu, 0.5): median e^mu = 2, long right tail like timings
  const double c = coverage(37, 2000, 2.0, [&] { return std::exp(mu + 0.5 * standard_normal(rng)); });
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

TEST(TimingMedianInterval, CoversTheTrueMedianOfUniformData) {
  SplitMix64 rng(7);
  const double c = coverage(149, 2000, 0.5, [&] { return rng.next_unit_double(); });
  EXPECT_GE(c, 0.93);
  EXPECT_LE(c, 0.97);
}

// --- SampleSummary -----------------------------------------------------------------------------

TEST(TimingSampleSummary, RelativeHalfwidth) {
  SampleSummary s;
  s.median = 10.0;
  s.ci = {9.0, 12.0};
  s.samples = 20;
  EXPECT_DOUBLE_EQ(s.relative_halfwidth(), 0.15);  // (12 - 9) / 2 / 10
  s.ci = {10.0, 10.0};
  EXPECT_EQ(s.relative_halfwidth(), 0.0);
}

TEST(TimingSampleSummary, RelativeHalfwidthIsInfiniteWithoutSpreadInformation) {
  SampleSummary s;
  s.median = 10.0;
  s.ci = {10.0, 10.0};
  s.samples = 1;
  EXPECT_EQ(s.relative_halfwidth(), kInf);
  s.samples = 0;
  EXPECT_EQ(s.relative_halfwidth(), kInf);
  s.samples = 50;
  s.median = 0.0;
  s.ci = {-1.0, 1.0};
  EXPECT_EQ(s.relative_halfwidth(), kInf);
}

TEST(TimingSampleSummary, SummarizeFillsEveryField) {
  const SampleSummary s = summarize(scrambled_ranks(100), 0.95);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_EQ(s.median, 50.5);
  EXPECT_EQ(s.ci.low, 40.0);
  EXPECT_EQ(s.ci.high, 61.0);
  EXPECT_DOUBLE_EQ(s.relative_halfwidth(), 21.0 / 2.0 / 50.5);
}

TEST(TimingSampleSummary, SummarizeOfNothingIsEmpty) {
  const SampleSummary s = summarize({}, 0.95);
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.relative_halfwidth(), kInf);
  EXPECT_THROW(summarize({1.0}, 2.0), std::invalid_argument);
}

}  // namespace
