// The lab YAML's `profile:` section (what the Nsight Compute pass collects and when it hints):
// defaults, a valid section, every course lab's, and each mistake reported at its line and field.
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/course/profile_spec.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalabs::config;

const fs::path kFixtures = CUDALABS_CONFIG_FIXTURES_DIR;
const fs::path kRepoRoot = CUDALABS_REPO_ROOT;

TEST(ProfileConfig, AbsentMeansOffWithTheDefaultMetrics) {
  const LabConfig lab = load_lab_config(kFixtures / "labs" / "minimal_lab.yaml");
  EXPECT_FALSE(lab.profile.on_grade);
  EXPECT_FALSE(lab.profile.on_check);
  EXPECT_TRUE(lab.profile.metrics.empty());
  EXPECT_EQ(&metrics_of(lab.profile), &default_profile_metrics());
  const auto needed = ncu_metrics_for(lab.profile);
  EXPECT_EQ(needed.front(), kLaunchDurationMetric);  // always: it weighs averages over launches
  EXPECT_NE(std::find(needed.begin(), needed.end(), "dram__throughput.avg.pct_of_peak_sustained_elapsed"), needed.end());
}

TEST(ProfileConfig, IsReadWithLabelsAndConditions) {
  const LabConfig lab = load_lab_config(kFixtures / "labs" / "profile_lab.yaml");
  EXPECT_TRUE(lab.profile.on_grade);
  EXPECT_FALSE(lab.profile.on_check);
  ASSERT_EQ(lab.profile.metrics.size(), 3u);
  const ProfileMetricSpec& conflicts = lab.profile.metrics[0];
  EXPECT_EQ(conflicts.name, "shared_bank_conflicts");
  EXPECT_EQ(conflicts.label, "shared-memory bank conflicts (loads and stores)");  // the derived metric's meaning
  EXPECT_EQ(conflicts.hint, "pad the tile (step 3)");
  EXPECT_EQ(conflicts.hint_when_ratio_above, 4.0);
  EXPECT_FALSE(conflicts.hint_when_above);
  EXPECT_EQ(conflicts.line, 10);
  EXPECT_EQ(lab.profile.metrics[1].label, "bytes read from DRAM");
  EXPECT_EQ(lab.profile.metrics[2].hint_when_below, 25.0);
  EXPECT_EQ(lab.profile.metrics[2].hint_when_ratio_below, 0.5);
  // Both bank-conflict counters, the duration and the plain metric, each once.
  const auto needed = ncu_metrics_for(lab.profile);
  EXPECT_EQ(needed, (std::vector<std::string>{"gpu__time_duration.sum",
                                              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                                              "dram__bytes_read.sum",
                                              "sm__warps_active.avg.pct_of_peak_sustained_active"}));
}

TEST(ProfileConfig, NcuMetricNamesAreRecognisedBySpelling) {
  EXPECT_TRUE(is_ncu_metric_name("dram__bytes.sum"));
  EXPECT_TRUE(is_ncu_metric_name("sm__warps_active.avg.pct_of_peak_sustained_active"));
  EXPECT_FALSE(is_ncu_metric_name("DRAM Throughput"));
  EXPECT_FALSE(is_ncu_metric_name("dram_throughput"));
  EXPECT_FALSE(is_ncu_metric_name("__sum"));
  EXPECT_FALSE(is_ncu_metric_name("dram__"));
}

TEST(ProfileConfig, EveryMistakeIsReportedWithItsPlace) {
  const fs::path file = kFixtures / "labs" / "bad_profile.yaml";
  try {
    load_lab_config(file);
    FAIL() << "bad_profile.yaml loaded";
  } catch (const ConfigError& error) {
    const auto& found = error.diagnostics();
    const struct {
      int line;
      std::string field;
      std::string words;
    } expected[] = {
        {6, "profile.on_grade", "true or false"},
        {8, "profile.metrics[0].name", "did you mean 'shared_bank_conflicts'?"},
        {8, "profile.metrics[0].hint", "a hint needs a condition"},
        {9, "profile.metrics[1].name", "neither a derived metric"},
        {10, "profile.metrics[2].hint_when_above", "needs the hint it shows"},
        {11, "profile.metrics[3].name", "'dram_throughput' is listed twice"},
        {12, "profile.metrics[4].hint_when_ratio_above", "positive"},
        {12, "profile.metrics[4].color", "unknown key 'color'"},
    };
    ASSERT_EQ(found.size(), std::size(expected)) << error.what();
    for (std::size_t i = 0; i < std::size(expected); ++i) {
      SCOPED_TRACE(found[i].to_string());
      EXPECT_EQ(found[i].file, file.string());
      EXPECT_EQ(found[i].line, expected[i].line);
      EXPECT_EQ(found[i].field, expected[i].field);
      EXPECT_NE(found[i].message.find(expected[i].words), std::string::npos) << found[i].message;
    }
  }
}

// The course's labs that profile name metrics that exist and hints that say what to do.
TEST(ProfileConfig, CourseLabsNameTheirFigures) {
  for (const char* id : {"01_vector_add", "02_image", "03_matmul", "04_transpose", "05_reduction"}) {
    SCOPED_TRACE(id);
    const LabConfig lab = load_lab_config(kRepoRoot / "config" / "labs" / (std::string(id) + ".yaml"));
    EXPECT_FALSE(lab.profile.metrics.empty());
    EXPECT_FALSE(lab.profile.on_grade);  // a profile pass costs every grade minutes: on request only
    for (const ProfileMetricSpec& metric : lab.profile.metrics) EXPECT_FALSE(metric.label.empty()) << metric.name;
  }
}

}  // namespace
