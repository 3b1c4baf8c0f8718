#include "cudalabs/compare.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/compare_gtest.hpp"

namespace {

using cudalabs::compare_doubles;
using cudalabs::compare_floats;
using cudalabs::compare_ints;
using cudalabs::Tolerance;

// gmock's HasSubstr without linking gmock.
::testing::AssertionResult contains(const std::string& text, const std::string& needle) {
  if (text.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << needle << "\" not found in:\n" << text;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// What a suite's 0xFF fill leaves in an element the kernel never wrote.
template <class T>
T poison() {
  T value;
  std::memset(&value, 0xFF, sizeof value);
  return value;
}

TEST(Compare, IdenticalVectorsMatch) {
  const std::vector<float> v{1.0f, -2.5f, 0.0f};
  const auto report = compare_floats(v, v, Tolerance{});
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.checked, 3u);
  EXPECT_EQ(report.mismatches, 0u);
  EXPECT_EQ(report.to_string("vector c"), "vector c: all 3 elements match (tolerance abs 0, rel 0)");
}

TEST(Compare, ReportsCountAndIndexOfMismatches) {
  const std::vector<float> expected{1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<float> actual{1.0f, 2.5f, 3.0f, -4.0f};
  const auto report = compare_floats(expected, actual, Tolerance{});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.mismatches, 2u);
  ASSERT_EQ(report.first.size(), 2u);
  EXPECT_EQ(report.first[0].index, 1u);
  EXPECT_EQ(report.first[0].expected, 2.0);
  EXPECT_EQ(report.first[0].actual, 2.5);
  EXPECT_EQ(report.first[1].index, 3u);
  const std::string text = report.to_string("vector c");
  EXPECT_TRUE(contains(text, "vector c: 2 of 4 elements differ (tolerance abs 0, rel 0)"));
  EXPECT_TRUE(contains(text, "[1] expected 2, got 2.5"));
  EXPECT_TRUE(contains(text, "[3] expected 4, got -4"));
}

TEST(Compare, ToleranceBoundaryIsInclusive) {
  EXPECT_TRUE(cudalabs::within_tolerance(1.0, 1.25, Tolerance{0.25, 0}));
  EXPECT_FALSE(cudalabs::within_tolerance(1.0, 1.2500001, Tolerance{0.25, 0}));
  EXPECT_TRUE(cudalabs::within_tolerance(100.0, 101.0, Tolerance{0, 0.01}));
  EXPECT_FALSE(cudalabs::within_tolerance(100.0, 101.5, Tolerance{0, 0.01}));
  EXPECT_TRUE(cudalabs::within_tolerance(100.0, 101.5, Tolerance{0.5, 0.01}));
}

TEST(Compare, NaNNeedsNaN) {
  EXPECT_TRUE(compare_floats({kNaN}, {kNaN}, Tolerance{}).ok());
  EXPECT_FALSE(compare_floats({kNaN}, {1.0f}, Tolerance{1e9, 1e9}).ok());
  EXPECT_FALSE(compare_floats({1.0f}, {kNaN}, Tolerance{1e9, 1e9}).ok());
}

TEST(Compare, InfinitiesMustMatchExactly) {
  EXPECT_TRUE(compare_floats({kInf, -kInf}, {kInf, -kInf}, Tolerance{}).ok());
  EXPECT_FALSE(compare_floats({kInf}, {1e30f}, Tolerance{0, 10}).ok());
  EXPECT_FALSE(compare_floats({kInf}, {-kInf}, Tolerance{1e9, 1e9}).ok());
  EXPECT_FALSE(compare_floats({1e30f}, {kInf}, Tolerance{0, 10}).ok());
}

TEST(Compare, PoisonCountsAsNeverWritten) {
  std::vector<float> expected(1000, 1.5f);
  std::vector<float> actual = expected;
  actual[997] = poison<float>();
  actual[999] = poison<float>();
  actual[3] = 2.0f;
  const auto report = compare_floats(expected, actual, Tolerance{});
  EXPECT_EQ(report.mismatches, 3u);
  EXPECT_EQ(report.never_written, 2u);
  ASSERT_EQ(report.first.size(), 3u);
  EXPECT_FALSE(report.first[0].never_written);
  EXPECT_TRUE(report.first[1].never_written);
  EXPECT_EQ(report.first[1].index, 997u);
  const std::string text = report.to_string("vector c");
  EXPECT_TRUE(contains(text, "vector c: 3 of 1000 elements differ (tolerance abs 0, rel 0); 2 never written (some "
                             "elements in the middle were not written"));
  EXPECT_TRUE(contains(text, "  [999] expected 1.5, got <never written (still 0xFF poison)>"));
}

TEST(Compare, AnUnwrittenTailGetsTheBoundsHint) {
  std::vector<float> expected(100, 1.5f);
  std::vector<float> actual = expected;
  for (std::size_t i = 96; i < 100; ++i) actual[i] = poison<float>();
  const auto report = compare_floats(expected, actual, Tolerance{});
  EXPECT_EQ(report.first_never_written, 96u);
  EXPECT_TRUE(contains(report.to_string("vector c"),
                       "4 never written (every element from index 96 on: the last 4 were not written; check that the "
                       "grid covers all n elements and the bound is i < n)"))
      << report.to_string("vector c");
}

TEST(Compare, PoisonIsNotExcusedByNaNExpected) {
  const auto report = compare_floats({kNaN}, {poison<float>()}, Tolerance{});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.never_written, 1u);
}

TEST(Compare, AllPoisonSaysNothingWasWritten) {
  const auto report = compare_floats({1, 2, 3}, std::vector<float>(3, poison<float>()), Tolerance{});
  EXPECT_TRUE(contains(report.to_string("c"), "nothing was written"));
}

TEST(Compare, DoublePoison) {
  const auto report = compare_doubles({1.0, 2.0}, {1.0, poison<double>()}, Tolerance{0.1, 0});
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_EQ(report.never_written, 1u);
}

TEST(Compare, ListingIsCappedAndSaysHowManyMore) {
  const auto report = compare_floats(std::vector<float>(50, 0.0f), std::vector<float>(50, 1.0f), Tolerance{}, 4);
  EXPECT_EQ(report.mismatches, 50u);
  ASSERT_EQ(report.first.size(), 4u);
  EXPECT_EQ(report.first[3].index, 3u);
  EXPECT_TRUE(contains(report.to_string("c"), "... and 46 more"));
}

TEST(Compare, SizeMismatchIsReported) {
  const auto report = compare_floats({1, 2, 3}, {1, 2}, Tolerance{});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.checked, 2u);
  EXPECT_EQ(report.mismatches, 0u);
  EXPECT_TRUE(contains(report.to_string("c"), "c: expected 3 elements, got 2"));
}

TEST(Compare, IntsAreExactAndMinusOneIsPoisonOnlyWhenWrong) {
  EXPECT_TRUE(compare_ints({-1, 0, 7}, {-1, 0, 7}).ok());
  const auto report = compare_ints({5, 6, 7}, {5, -1, 8});
  EXPECT_EQ(report.mismatches, 2u);
  EXPECT_EQ(report.never_written, 1u);
  const std::string text = report.to_string("histogram");
  EXPECT_TRUE(contains(text, "histogram: 2 of 3 elements differ (exact); 1 never written"));
  EXPECT_TRUE(contains(text, "[2] expected 7, got 8"));
}

TEST(Compare, MatchesCarriesTheReport) {
  const auto bad = compare_floats({1.0f}, {2.0f}, Tolerance{});
  const ::testing::AssertionResult result = cudalabs::matches(bad, "vector c");
  EXPECT_FALSE(result);
  EXPECT_TRUE(contains(result.message(), "vector c: 1 of 1 elements differ"));
  EXPECT_TRUE(cudalabs::matches(compare_floats({1.0f}, {1.0f}, Tolerance{}), "vector c"));
}

}  // namespace
