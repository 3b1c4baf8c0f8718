// The lab YAML's `service:` section (how `labgrade serve` takes the lab): its defaults, a valid
// section, and each mistake reported at its file, line and field.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"

namespace {

namespace fs = std::filesystem;
using cudalabs::config::ConfigError;
using cudalabs::config::load_lab_config;

const fs::path kFixtures = CUDALABS_CONFIG_FIXTURES_DIR;

TEST(ServicePolicyConfig, DefaultsAllowEverythingWithoutLimits) {
  const auto lab = load_lab_config(kFixtures / "labs" / "minimal_lab.yaml");
  EXPECT_TRUE(lab.service.self_checks);
  EXPECT_TRUE(lab.service.graded_runs);
  EXPECT_FALSE(lab.service.self_checks_per_hour);
  EXPECT_FALSE(lab.service.graded_runs_max);
}

TEST(ServicePolicyConfig, IsRead) {
  const auto lab = load_lab_config(kFixtures / "labs" / "service_lab.yaml");
  EXPECT_TRUE(lab.service.self_checks);
  EXPECT_EQ(lab.service.self_checks_per_hour, 4u);
  EXPECT_TRUE(lab.service.graded_runs);
  EXPECT_EQ(lab.service.graded_runs_max, 2u);
}

TEST(ServicePolicyConfig, EveryMistakeIsReportedWithItsPlace) {
  const fs::path file = kFixtures / "labs" / "bad_service.yaml";
  try {
    load_lab_config(file);
    FAIL() << "bad_service.yaml loaded";
  } catch (const ConfigError& error) {
    const auto& found = error.diagnostics();
    ASSERT_EQ(found.size(), 3u) << error.what();
    const struct {
      int line;
      std::string field;
      std::string words;
    } expected[] = {{6, "service.self_checks", "true or false"},
                    {7, "service.graded_runs_max", "positive"},
                    {8, "service.graded_run_max", "unknown key 'graded_run_max'"}};
    for (std::size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE(found[i].to_string());
      EXPECT_EQ(found[i].file, file.string());
      EXPECT_EQ(found[i].line, expected[i].line);
      EXPECT_EQ(found[i].field, expected[i].field);
      EXPECT_NE(found[i].message.find(expected[i].words), std::string::npos) << found[i].message;
    }
  }
}

}  // namespace
