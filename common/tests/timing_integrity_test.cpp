// Host-side parts of the timed calls' integrity: the grade seed's text form, the plausibility
// ceilings and the pre-window check's ranges (common/include/cudalabs/timing/grade_seed.hpp,
// plausibility.hpp, prewindow_ranges.hpp; the check itself runs only in a judge, on a GPU: the
// fixture grader/tests/cli/submissions/01_vector_add/writes_outputs_before_the_call).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/timing/grade_seed.hpp"
#include "cudalabs/timing/plausibility.hpp"
#include "cudalabs/timing/prewindow_ranges.hpp"

namespace {

using namespace cudalabs::timing;

TEST(GradeSeed, ParsesHexAndDecimal) {
  EXPECT_EQ(parse_seed("0x0"), 0u);
  EXPECT_EQ(parse_seed("0xFFFFffffFFFFffff"), UINT64_MAX);
  EXPECT_EQ(parse_seed("0x1234abcd5678ef00"), 0x1234abcd5678ef00ull);
  EXPECT_EQ(parse_seed("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_seed("42"), 42u);
}

TEST(GradeSeed, RefusesWhatIsNotASeed) {
  for (const char* text : {"", "0x", "0x10000000000000000", "18446744073709551616", "-1", "12a", "0xg", " 1", "1 "}) {
    EXPECT_FALSE(parse_seed(text).has_value()) << "'" << text << "'";
  }
}

TEST(GradeSeed, FormatReadsBack) {
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, UINT64_MAX, std::uint64_t{0xdeadbeef}}) {
    const std::string text = format_seed(seed);
    EXPECT_EQ(text.size(), 18u) << text;
    EXPECT_EQ(parse_seed(text), seed) << text;
  }
}

TEST(GradeSeed, CasesAndAttemptsGetDistinctSeeds) {
  set_grade_seed(0x1234);
  EXPECT_EQ(grade_seed(), 0x1234u);
  EXPECT_NE(case_seed("vector_add_2to26", 0), case_seed("saxpy_2to26", 0));
  EXPECT_NE(case_seed("vector_add_2to26", 0), case_seed("vector_add_2to26", 1));
  EXPECT_EQ(case_seed("vector_add_2to26", 0), case_seed("vector_add_2to26", 0));
  const std::uint64_t under_1234 = case_seed("vector_add_2to26", 0);
  set_grade_seed(0x1235);
  EXPECT_NE(case_seed("vector_add_2to26", 0), under_1234) << "another grade, other inputs";
}

// An H100-like device: 2880 GB/s copy, 50 MiB L2, 67 TFLOP/s FP32.
constexpr DeviceCeilings kDevice{2880.0, 50.0 * 1048576, 67000.0};

TEST(Plausibility, AnHonestFigureAtCopySpeedIsPlausible) {
  const double bytes = 3.0 * 4 * (1 << 26);  // vector_add at 2^26 floats
  const double ms = bytes / (2880e9 * 1.035) * 1e3;  // 103.5% of copy: what c = a + b reaches
  const Plausibility p = check_plausibility(bytes, 0, ms, kDevice);
  EXPECT_FALSE(p.implausible) << p.reason;
  EXPECT_GT(p.bandwidth_limit_gbs, 1.10 * 2880.0);
  EXPECT_LT(p.bandwidth_limit_gbs, 1.20 * 2880.0);
  EXPECT_EQ(p.flops_limit_gflops, 0.0);
}

TEST(Plausibility, AReusedResultIsImplausible) {
  const double bytes = 3.0 * 4 * (1 << 26);
  const double ms = bytes / 645277e9 * 1e3;  // the figure a repeat-skipping kernel showed
  const Plausibility p = check_plausibility(bytes, 0, ms, kDevice);
  EXPECT_TRUE(p.implausible);
  EXPECT_NE(p.reason.find("645277 GB/s is 224.1x this GPU's measured copy bandwidth"), std::string::npos) << p.reason;
}

TEST(Plausibility, FlopsAbovePeakAreImplausible) {
  const double flops = 2.0 * 4096.0 * 4096 * 4096;
  EXPECT_FALSE(check_plausibility(0, flops, flops / 37e12 * 1e3, kDevice).implausible);  // the reference
  const Plausibility p = check_plausibility(0, flops, flops / 200e12 * 1e3, kDevice);
  EXPECT_TRUE(p.implausible);
  EXPECT_NE(p.reason.find("GFLOP/s is 3.0x this GPU's FP32 peak"), std::string::npos) << p.reason;
}

TEST(Plausibility, SmallCasesAndUnknownCeilingsAreNotChecked) {
  const Plausibility small = check_plausibility(50.0 * 1048576, 0, 1e-6, kDevice);  // under 2 L2s
  EXPECT_FALSE(small.implausible);
  EXPECT_EQ(small.bandwidth_limit_gbs, 0.0);
  EXPECT_FALSE(check_plausibility(1e12, 1e15, 1e-6, DeviceCeilings{}).implausible);
}

TEST(Plausibility, NoTimeAtAllIsImplausible) {
  EXPECT_TRUE(check_plausibility(1e9, 0, 0, kDevice).implausible);
  EXPECT_FALSE(check_plausibility(0, 0, 0, kDevice).implausible);
}

// Stand-ins for allocations a judge shares (never dereferenced here).
char memory[4][64];
cudalabs::remote::WritableRange range_at(int i, std::size_t bytes = 64, bool host = false) {
  return {memory[i], bytes, host};
}

TEST(PreWindowRanges, NothingKnownChecksNothing) {
  PreWindowRanges ranges(8);
  ranges.freeze();
  EXPECT_TRUE(ranges.ranges().empty());
  for (int r = 0; r < 8; ++r) EXPECT_TRUE(ranges.after_prepare_of(r).empty());
  EXPECT_EQ(PreWindowRanges::first_changed({}), -1);
}

TEST(PreWindowRanges, EachReplicasRangesFollowItsOwnPrepareInCallOrder) {
  PreWindowRanges ranges(3);
  ranges.learn(2, {range_at(2)});
  ranges.learn(0, {range_at(0)});
  ranges.learn(1, {range_at(1)});
  ranges.freeze();
  ASSERT_EQ(ranges.ranges().size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ranges.ranges()[static_cast<std::size_t>(r)].data, memory[r]) << "replica 0's first";
    EXPECT_EQ(ranges.owner(static_cast<std::size_t>(r)), r);
    EXPECT_EQ(ranges.after_prepare_of(r), std::vector<std::size_t>{static_cast<std::size_t>(r)});
  }
}

TEST(PreWindowRanges, ARangeSeveralReplicasWriteIsCheckedOnceAfterTheLastOfTheirPrepares) {
  PreWindowRanges ranges(3);
  ranges.learn(0, {range_at(0), range_at(3)});
  ranges.learn(1, {range_at(1), range_at(3)});
  ranges.learn(2, {range_at(2)});
  ranges.freeze();
  ASSERT_EQ(ranges.ranges().size(), 4u);  // memory[3] once
  EXPECT_EQ(ranges.ranges()[1].data, memory[3]);
  EXPECT_EQ(ranges.owner(1), 1) << "replica 1's prepare may still write it after replica 0's";
  EXPECT_EQ(ranges.after_prepare_of(0), std::vector<std::size_t>{0});
  EXPECT_EQ(ranges.after_prepare_of(1), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(ranges.after_prepare_of(2), std::vector<std::size_t>{3});
}

TEST(PreWindowRanges, DifferentExtentsOrKindsAreDifferentRanges) {
  PreWindowRanges ranges(2);
  ranges.learn(0, {range_at(0, 64), range_at(1, 64, false)});
  ranges.learn(1, {range_at(0, 32), range_at(1, 64, true)});
  ranges.freeze();
  EXPECT_EQ(ranges.ranges().size(), 4u);
}

TEST(PreWindowRanges, EmptyRangesAndUnknownReplicasAreIgnored) {
  PreWindowRanges ranges(2);
  ranges.learn(0, {{nullptr, 64, false}, range_at(0, 0)});
  ranges.learn(-1, {range_at(1)});
  ranges.learn(2, {range_at(2)});
  ranges.freeze();
  EXPECT_TRUE(ranges.ranges().empty());
}

TEST(PreWindowRanges, ASampleChecksWhatWasKnownWhenItBegan) {
  PreWindowRanges ranges(1);
  ranges.learn(0, {range_at(0)});
  ranges.freeze();
  ranges.learn(0, {range_at(1), range_at(2)});  // learnt inside the sample's window
  ASSERT_EQ(ranges.ranges().size(), 1u);
  EXPECT_EQ(ranges.ranges()[0].data, memory[0]);
  ranges.freeze();  // the next sample
  ASSERT_EQ(ranges.ranges().size(), 2u);
  EXPECT_EQ(ranges.ranges()[0].data, memory[1]);
}

TEST(PreWindowRanges, TheFirstRangeWhoseTwoChecksumsDifferIsNamed) {
  // Three ranges: after-prepare sums, then before-window sums.
  EXPECT_EQ(PreWindowRanges::first_changed({1, 2, 3, 1, 2, 3}), -1);
  EXPECT_EQ(PreWindowRanges::first_changed({1, 2, 3, 1, 9, 3}), 1);
  EXPECT_EQ(PreWindowRanges::first_changed({1, 2, 3, 7, 9, 3}), 0);
  EXPECT_EQ(PreWindowRanges::first_changed({5, 5}), -1);
  EXPECT_EQ(PreWindowRanges::first_changed({5, 6}), 0);
}

}  // namespace
