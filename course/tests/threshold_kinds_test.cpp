// The table of threshold kinds: every kind has one entry, found by its enum value and its YAML key.
#include <set>

#include <gtest/gtest.h>

#include "cudalabs/course/threshold_kinds.hpp"

namespace cudalabs::config {
namespace {

TEST(ThresholdKinds, EveryKindHasOneEntryFoundByItsKey) {
  std::set<std::string_view> keys;
  for (const ThresholdKindEntry& entry : threshold_kinds()) {
    EXPECT_TRUE(keys.insert(entry.key).second) << "two entries for " << entry.key;
    EXPECT_EQ(&threshold_kind(entry.kind), &entry);
    EXPECT_EQ(find_threshold_kind(entry.key), &entry);
    EXPECT_EQ(to_string(entry.kind), entry.key);
  }
  EXPECT_EQ(find_threshold_kind("max_speedup"), nullptr);
  EXPECT_EQ(threshold_kind_keys(" or "),
            "max_ratio_to_solution, min_fraction_of_peak_bandwidth, min_fraction_of_peak_flops, max_ms or "
            "max_ratio_to_slowest_stage");
}

TEST(ThresholdKinds, SayWhatTheSuiteMustDeclare) {
  const auto& bandwidth = threshold_kind(ThresholdKind::MinFractionOfPeakBandwidth);
  EXPECT_NE(bandwidth.missing_declaration({0, 0, 0, 0}), "");
  EXPECT_EQ(bandwidth.missing_declaration({1e9, 0, 0, 0}), "");
  const auto& flops = threshold_kind(ThresholdKind::MinFractionOfPeakFlops);
  EXPECT_NE(flops.missing_declaration({0, 1e9, 0, 0}), "");
  EXPECT_EQ(flops.missing_declaration({0, 1e9, 50e3, 0}), "");
  const auto& ratio = threshold_kind(ThresholdKind::MaxRatioToSolution);
  EXPECT_EQ(ratio.missing_declaration({0, 0, 0, 0}), "");
  // Stages declared for a case compared with the solution: the suite and the YAML disagree.
  EXPECT_NE(ratio.missing_declaration({0, 0, 0, 3}), "");
  const auto& pipeline = threshold_kind(ThresholdKind::MaxRatioToSlowestStage);
  EXPECT_NE(pipeline.missing_declaration({0, 0, 0, 0}), "");
  EXPECT_EQ(pipeline.missing_declaration({0, 0, 0, 3}), "");
}

TEST(ThresholdKinds, ARateIsLowestAtTheSlowestTime) {
  Timings timings;
  timings.student_ms = {1.0, 0.9, 1.25};  // median, low, high
  timings.bytes = 2e9;                    // 2 GB in 1 ms: 2000 GB/s
  timings.peak_bandwidth_gbs = 4000;
  const MeasuredFigure figure = threshold_kind(ThresholdKind::MinFractionOfPeakBandwidth).figure(timings);
  EXPECT_DOUBLE_EQ(figure.median, 0.5);
  EXPECT_DOUBLE_EQ(figure.low, 0.4);
  EXPECT_LT(figure.median, figure.high);
}

}  // namespace
}  // namespace cudalabs::config
