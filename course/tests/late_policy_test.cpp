// The lab YAML's `late:` policy and the timestamps it is written in: valid policies load, each
// mistake is reported at its file, line, column and field.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/course/timestamp.hpp"

namespace {

namespace fs = std::filesystem;
using cudalabs::config::ConfigError;
using cudalabs::config::format_timestamp_utc;
using cudalabs::config::load_lab_config;
using cudalabs::config::parse_timestamp;

const fs::path kFixtures = CUDALABS_CONFIG_FIXTURES_DIR;

TEST(Timestamp, ReadsIsoAndGradescopeForms) {
  // 2026-10-02T06:59:00Z, written four ways.
  constexpr std::int64_t expected = 1790924340;
  EXPECT_EQ(parse_timestamp("2026-10-02T06:59:00Z"), expected);
  EXPECT_EQ(parse_timestamp("2026-10-01T23:59:00-07:00"), expected);
  EXPECT_EQ(parse_timestamp("2026-10-01 23:59-0700"), expected);
  EXPECT_EQ(parse_timestamp("2026-10-01 23:59:00.123456000 -07:00"), expected);  // Gradescope's :created_at
  EXPECT_EQ(parse_timestamp("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_timestamp("2024-02-29T12:00:00+02:00"), 1709200800);  // a leap day
  EXPECT_EQ(format_timestamp_utc(expected), "2026-10-02T06:59:00Z");
  EXPECT_EQ(format_timestamp_utc(1709200800), "2024-02-29T10:00:00Z");
}

TEST(Timestamp, RefusesTimesWithoutZoneOrOutOfRange) {
  EXPECT_FALSE(parse_timestamp("2026-10-01T23:59:00"));  // which zone?
  EXPECT_FALSE(parse_timestamp("2026-10-01"));
  EXPECT_FALSE(parse_timestamp("2025-02-29T00:00:00Z"));  // not a leap year
  EXPECT_FALSE(parse_timestamp("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parse_timestamp("2026-10-01T24:00:00Z"));
  EXPECT_FALSE(parse_timestamp("2026-10-01T23:59:00Z trailing"));
  EXPECT_FALSE(parse_timestamp(""));
}

TEST(LatePolicyConfig, IsReadWithItsDefaults) {
  const auto lab = load_lab_config(kFixtures / "labs" / "late_lab.yaml");
  ASSERT_TRUE(lab.late);
  EXPECT_EQ(lab.late->due, *parse_timestamp("2026-10-02T06:59:00Z"));
  EXPECT_EQ(lab.late->grace_minutes, 15);
  EXPECT_EQ(lab.late->penalty_percent_per_day, 10);
  EXPECT_EQ(lab.late->max_penalty_percent, 30);
  EXPECT_EQ(lab.late->line, 7);
  EXPECT_FALSE(load_lab_config(kFixtures / "labs" / "minimal_lab.yaml").late);
}

TEST(LatePolicyConfig, EveryMistakeIsReportedWithItsPlace) {
  const fs::path file = kFixtures / "labs" / "bad_late.yaml";
  try {
    load_lab_config(file);
    FAIL() << "bad_late.yaml loaded";
  } catch (const ConfigError& error) {
    const auto& found = error.diagnostics();
    ASSERT_EQ(found.size(), 4u) << error.what();
    const struct {
      int line;
      std::string field;
      std::string words;
    } expected[] = {{6, "late.due", "with its time zone"},
                    {7, "late.grace_minutes", "-5"},
                    {8, "late.penalty_percent_per_day", "from 0 to 100, got 150"},
                    {9, "late.max_penalty", "unknown key 'max_penalty'"}};
    for (std::size_t i = 0; i < 4; ++i) {
      SCOPED_TRACE(found[i].to_string());
      EXPECT_EQ(found[i].file, file.string());
      EXPECT_EQ(found[i].line, expected[i].line);
      EXPECT_EQ(found[i].field, expected[i].field);
      EXPECT_NE(found[i].message.find(expected[i].words), std::string::npos);
    }
  }
}

}  // namespace
