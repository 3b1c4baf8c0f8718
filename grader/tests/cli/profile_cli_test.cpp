// `--profile` end to end: without Nsight Compute (or without a GPU) the report says so in one
// line and nothing else changes; an ncu that may not read the counters is reported the same way;
// on a GPU with ncu, the unpadded tile of lab 04 gets its bank-conflict figure beside the
// reference's, with the lab's hint.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "labgrade_runner.hpp"

namespace labgrade::cli {
namespace {

namespace fs = std::filesystem;

// Everything of a report that --profile must leave alone.
void expect_same_outcome(const nlohmann::json& with, const nlohmann::json& without) {
  EXPECT_EQ(with["status"], without["status"]);
  EXPECT_EQ(with["exit_code"], without["exit_code"]);
  EXPECT_EQ(with["points_possible"], without["points_possible"]);
  ASSERT_EQ(with["tests"].size(), without["tests"].size());
  for (std::size_t i = 0; i < with["tests"].size(); ++i) {
    EXPECT_EQ(with["tests"][i]["name"], without["tests"][i]["name"]);
    EXPECT_EQ(with["tests"][i]["status"], without["tests"][i]["status"]) << with["tests"][i]["name"];
  }
}

TEST(LabgradeProfile, WithoutNcuTheReportSaysSoAndNothingElseChanges) {
  const LabgradeRun without = labgrade({"check", "01_vector_add"});
  const LabgradeRun with =
      labgrade({"check", "01_vector_add", "--profile"}, 900, {{"CUDALABS_NCU", "/nonexistent/ncu"}});
  ASSERT_TRUE(with.report.is_object()) << with.process.output;
  ASSERT_TRUE(without.report.is_object()) << without.process.output;
  EXPECT_EQ(with.process.exit_code, without.process.exit_code) << with.process.output;
  expect_same_outcome(with.report, without.report);
  EXPECT_FALSE(without.report.contains("profile"));
  EXPECT_EQ(with.report["profile"]["ran"], false);
  EXPECT_EQ(with.report["profile"]["unavailable"],
            "not run: CUDALABS_NCU names /nonexistent/ncu, which is not an executable file");
  EXPECT_CONTAINS(with.process.output,
                  "Profile (Nsight Compute): not run: CUDALABS_NCU names /nonexistent/ncu, which is not an executable "
                  "file\n");
}

// A stand-in for ncu on a machine where the user may not read the performance counters: ncu
// writes the error into its log and runs the program unprofiled.
fs::path not_permitted_ncu() {
  const fs::path script = fs::path(::testing::TempDir()) / "ncu_not_permitted.sh";
  std::ofstream(script) << "#!/bin/sh\n"
                           "while [ \"$#\" -gt 0 ]; do\n"
                           "  case \"$1\" in --log-file) log=\"$2\"; shift 2; break ;; *) shift ;; esac\n"
                           "done\n"
                           "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                           "Performance Counters on the target device 0.' > \"$log\"\n"
                           "exec \"$@\"\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST(LabgradeProfile, CountersNotPermittedIsOneLineAndTheGradeStands) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: the pass never starts (the first test covers the report line)";
  const LabgradeRun run =
      labgrade({"grade", "01_vector_add", "--submission", course_file("solutions/01_vector_add"), "--profile"}, 900,
               {{"CUDALABS_NCU", not_permitted_ncu().string()}});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["status"], "passed") << test;
  EXPECT_EQ(run.report["profile"]["ran"], false);
  EXPECT_CONTAINS(run.report["profile"]["unavailable"].get<std::string>(), "ERR_NVGPUCTRPERM");
  EXPECT_TRUE(run.report["profile"]["cases"].empty());
}

// The real thing: needs a GPU, Nsight Compute, and the permission to read the counters.
TEST(LabgradeProfile, TheUnpaddedTileShowsItsBankConflictsBesideTheReferences) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const LabgradeRun run = labgrade({"grade", "04_transpose", "--submission",
                                    std::string(LABGRADE_TEST_SUBMISSIONS) + "/04_transpose/unpadded_tile", "--profile"});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  const nlohmann::json& profile = run.report["profile"];
  if (!profile["ran"].get<bool>()) GTEST_SKIP() << "the profile pass could not run here: " << profile["unavailable"];
  EXPECT_GT(profile["seconds"].get<double>(), 0);
  bool seen = false;
  for (const auto& profiled : profile["cases"]) {
    if (profiled["test"] != "Performance.conflict_free_8192") continue;
    seen = true;
    EXPECT_EQ(profiled["problem"], "") << profiled;
    EXPECT_FALSE(profiled["student_kernels"].empty()) << profiled;
    EXPECT_FALSE(profiled["reference_kernels"].empty()) << profiled;
    for (const auto& metric : profiled["metrics"]) {
      if (metric["name"] != "shared_load_bank_conflicts_per_request") continue;
      ASSERT_TRUE(metric["student"].is_number()) << metric;
      ASSERT_TRUE(metric["reference"].is_number()) << metric;
      EXPECT_GT(metric["student"].get<double>(), 4) << metric;  // a column of an unpadded tile: ~31
      EXPECT_LT(metric["reference"].get<double>(), 1) << metric;
      EXPECT_CONTAINS(metric["hint"].get<std::string>(), "tile[32][33]");
    }
  }
  EXPECT_TRUE(seen) << profile;
  EXPECT_CONTAINS(run.process.output, "Profile (Nsight Compute, each timed call once, yours and the reference's;");
}

}  // namespace
}  // namespace labgrade::cli
