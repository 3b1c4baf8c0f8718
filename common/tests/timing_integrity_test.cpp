// Host-side parts of the timed calls' integrity: the grade seed's text form, the plausibility
// ceilings and the pre-window check's ranges (common/include/cudalabs/timing/grade_seed.hpp,
// plausibility.hpp, prewindow_ranges.hpp; the check itself runs only in a judge, on a GPU: the
// fixture grader/tests/cli/submissions/01_vector_add/writes_outputs_before_the_call).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/timing/busy_device.hpp"
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

// The busy-device rule (cudalabs/timing/busy_device.hpp): what an honest call's idle checks look
// like in a judge against work left running after a call returns, or landing in the reference's
// sample.
constexpr const char* kBeforeYours = "before your call started";
constexpr const char* kAfterReturn = "after your call had returned";
constexpr const char* kBeforeReference = "while the reference was about to run";
constexpr const char* kAfterReference = "right after the reference's call";

// One round's four checks, as the engine makes them.
void feed_round(BusyDeviceRule& rule, double before_student, double student_after, double before_reference,
                double reference_after) {
  rule.begin_round();
  rule.check(before_student, kBeforeYours);
  rule.check(student_after, kAfterReturn);
  rule.check(before_reference, kBeforeReference);
  rule.check(reference_after, kAfterReference, true);
}

TEST(BusyDeviceRule, AnHonestCallsRareSlowChecksAreNotCharged) {
  BusyDeviceRule rule;
  // Like lab 05's solution on the H100: after-call checks up to 93 us on both sides around a
  // 45 us median (none 50 us beyond it), and one check at 123 us (lab 01's went up to that).
  const double student[] = {0.093, 0.041, 0.062, 0.045, 0.088, 0.039, 0.044, 0.047, 0.043, 0.046};
  const double reference[] = {0.044, 0.047, 0.091, 0.040, 0.046, 0.043, 0.075, 0.042, 0.048, 0.045};
  const double before_reference[] = {0.123, 0.040, 0.044, 0.041, 0.055, 0.043, 0.046, 0.058, 0.041, 0.044};
  const double before_student[] = {0.045, 0.044, 0.060, 0.042, 0.046, 0.043, 0.041, 0.047, 0.050, 0.045};
  for (int round = 0; round < 10; ++round) {
    feed_round(rule, before_student[round], student[round], before_reference[round], reference[round]);
    EXPECT_EQ(rule.verdict(round + 1, false), "") << "round " << round + 1;
  }
  EXPECT_EQ(rule.busy_rounds(), 1) << "only the 123 us check, 78 us beyond the reference's median";
  EXPECT_EQ(rule.verdict(10, true), "");
  EXPECT_FALSE(rule.pending(10));
}

TEST(BusyDeviceRule, WorkLeftRunningAfterTheCallFailsTheCase) {
  BusyDeviceRule rule;
  for (int round = 0; round < 7; ++round) {
    feed_round(rule, 0.04, 0.045 + 0.12, 0.04, 0.045);  // 0.12 ms of the call ran on after it
    EXPECT_EQ(rule.verdict(round + 1, false), "") << "not before the 8th round";
  }
  feed_round(rule, 0.04, 0.165, 0.04, 0.045);
  const std::string verdict = rule.verdict(8, false);
  EXPECT_NE(verdict.find("work was still running on the GPU after your call had returned (in 8 of 8 rounds"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("0.120 ms longer to go idle than after the reference's calls"), std::string::npos) << verdict;
}

TEST(BusyDeviceRule, WorkThatLandsInTheReferencesSampleIsCharged) {
  BusyDeviceRule rule;
  // Launched late (from a thread of the student's runner), so that it runs while the reference is
  // timed: clean checks around the student's calls, slow ones around the reference's.
  for (int round = 0; round < 8; ++round) feed_round(rule, 0.012, 0.011, 0.3, 0.3);
  EXPECT_EQ(rule.busy_rounds(), 8) << "both checks around the reference's calls, every round";
  EXPECT_NE(rule.verdict(8, false).find("right after the reference's call"), std::string::npos)
      << rule.verdict(8, false);
}

TEST(BusyDeviceRule, WorkThatSlowsEveryCheckCannotRaiseTheBaselinePastAnHonestCheck) {
  BusyDeviceRule rule;
  for (int round = 0; round < 8; ++round) feed_round(rule, 0.4, 0.4, 0.4, 0.4);
  EXPECT_EQ(rule.busy_rounds(), 8) << "every check, 0.3 ms beyond the ceiling";
  EXPECT_NE(rule.verdict(8, false), "");
}

TEST(BusyDeviceRule, OneSlowReferenceCheckDoesNotHideTheStudentsWork) {
  BusyDeviceRule rule;
  for (int round = 0; round < 10; ++round) feed_round(rule, 0.02, 0.12, 0.02, round == 0 ? 0.1 : 0.02);
  EXPECT_EQ(rule.busy_rounds(), 10)
      << "the student's ten against the median of 0.02 ms (the slow check itself, which only the student's runner can "
         "have slowed, is in the first of them)";
  EXPECT_NE(rule.verdict(10, true), "");
}

TEST(BusyDeviceRule, AFewStrikesArePendingUntilMoreRoundsDilute) {
  BusyDeviceRule rule;
  for (int round = 0; round < 10; ++round) feed_round(rule, 0.04, round < 3 ? 0.2 : 0.04, 0.04, 0.04);
  EXPECT_EQ(rule.verdict(10, false), "") << "3 of 10 is not half the rounds: sampling goes on";
  EXPECT_TRUE(rule.pending(10)) << "3 of 10: a settled stop waits";
  EXPECT_NE(rule.verdict(10, true), "") << "and the case fails if the budget ends there";
  for (int round = 10; round < 13; ++round) feed_round(rule, 0.04, 0.04, 0.04, 0.04);
  EXPECT_FALSE(rule.pending(13)) << "3 of 13";
  EXPECT_EQ(rule.verdict(13, true), "");
}

TEST(BusyDeviceRule, ChecksBeforeACallAreNamedAsSuch) {
  BusyDeviceRule rule;
  rule.check(0.05, kBeforeYours);  // at the limit, with no baseline yet: not above it
  EXPECT_EQ(rule.busy_rounds(), 0);
  for (int i = 0; i < 3; ++i) {
    rule.begin_round();
    rule.check(0.4, kBeforeYours);
  }
  EXPECT_EQ(rule.verdict(5, false), "") << "not before the 8th round";
  EXPECT_NE(rule.verdict(5, true).find("before your call started (in 3 of 5 rounds"), std::string::npos)
      << rule.verdict(5, true);
}

TEST(BusyDeviceRule, SlowChecksOfOneRoundCountOnce) {
  BusyDeviceRule rule;
  // Three of one round's four checks slow (a hiccup of the machine around one round), nine
  // clean rounds: one round counted, not three checks, so no strike rule is near.
  feed_round(rule, 0.2, 0.2, 0.2, 0.04);
  for (int round = 1; round < 10; ++round) feed_round(rule, 0.04, 0.04, 0.04, 0.04);
  EXPECT_EQ(rule.busy_rounds(), 1);
  EXPECT_FALSE(rule.pending(10));
  EXPECT_EQ(rule.verdict(10, true), "");
}

TEST(BusyDeviceRule, ADiscardedRoundsChecksDoNotCount) {
  BusyDeviceRule rule;
  // Rounds the machine's load disturbed are measured again and their checks forgotten: twelve
  // kept rounds, clean, after three disturbed ones whose checks were slow.
  for (int round = 0; round < 3; ++round) {
    feed_round(rule, 0.3, 0.3, 0.04, 0.04);
    rule.discard_round();
  }
  for (int round = 0; round < 12; ++round) feed_round(rule, 0.04, 0.04, 0.04, 0.04);
  EXPECT_EQ(rule.busy_rounds(), 0);
  EXPECT_EQ(rule.verdict(12, true), "");
  // Work left running in every kept round still fails the case.
  BusyDeviceRule lingering;
  for (int round = 0; round < 8; ++round) feed_round(lingering, 0.04, 0.2, 0.04, 0.04);
  lingering.begin_round();
  lingering.check(0.04, kBeforeYours);
  lingering.discard_round();
  EXPECT_EQ(lingering.busy_rounds(), 8);
  EXPECT_NE(lingering.verdict(8, false), "");
}
