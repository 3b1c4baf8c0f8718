// Host-side parts of the timed calls' integrity: the grade seed's text form and the plausibility
// ceilings (common/include/cudalabs/timing/grade_seed.hpp, plausibility.hpp).
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/timing/grade_seed.hpp"
#include "cudalabs/timing/plausibility.hpp"

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

}  // namespace
