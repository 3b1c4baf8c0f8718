// labgrade end to end: the real program, the real lab harnesses, submissions from submissions/.
// Solution and skeleton of every lab: every_lab_test.cpp.
#include <iostream>

#include <gtest/gtest.h>

#include "labgrade_runner.hpp"

namespace labgrade {
namespace {
using namespace cli;

TEST(LabgradeCli, ListsLabsWithTitlesAndPoints) {
  const LabgradeRun run = labgrade({"list"});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_CONTAINS(run.process.output, "01_vector_add");
  EXPECT_CONTAINS(run.process.output, "Vector addition and SAXPY");
  EXPECT_CONTAINS(run.process.output, "100 points");
}

TEST(LabgradeCli, EveryCommandHasHelp) {
  for (const char* command : {"list", "check", "grade"}) {
    const LabgradeRun run = labgrade({command, "--help"});
    EXPECT_EQ(run.process.exit_code, 0) << command;
    EXPECT_CONTAINS(run.process.output, "Usage");
  }
  EXPECT_CONTAINS(labgrade({"--help"}).process.output, "Exit codes");
}

TEST(LabgradeCli, UnknownLabIsAUsageError) {
  const LabgradeRun run = labgrade({"grade", "99_nothing", "--submission", submission("off_by_one")});
  EXPECT_EQ(run.process.exit_code, 2) << run.process.output;
  EXPECT_CONTAINS(run.process.output, "99_nothing");
  EXPECT_CONTAINS(run.process.output, "01_vector_add");  // names the labs that exist
}

TEST(LabgradeCli, BadArgumentsAreAUsageError) {
  EXPECT_EQ(labgrade({"grade", "01_vector_add"}).process.exit_code, 2);  // --submission missing
  EXPECT_EQ(labgrade({"frobnicate"}).process.exit_code, 2);
  EXPECT_EQ(labgrade({"grade", "01_vector_add", "--submission", "/nonexistent"}).process.exit_code, 2);
}

TEST(LabgradeCli, AMissingStudentFileRejectsTheSubmission) {
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("misnamed_file")});
  EXPECT_EQ(run.process.exit_code, 4) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "submission_rejected");
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_CONTAINS(run.report["status_detail"].get<std::string>(), "vector_add.cu");
}

TEST(LabgradeCli, ACompileErrorScoresZeroWithTheCompilersMessage) {
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("syntax_error")});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_EQ(run.report["points_possible"], 100);
  EXPECT_FALSE(run.report["build"]["succeeded"].get<bool>());
  EXPECT_CONTAINS(run.report["build"]["output"].get<std::string>(), "vector_add.cu(8): error: expected a \";\"");  // nvcc's own message
  EXPECT_CONTAINS(run.process.output, "Compiler output");
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["status"], "not run");
}

TEST(LabgradeCli, SelfCheckRunsOnlyThePublicTests) {
  const LabgradeRun run = labgrade({"check", "01_vector_add"});  // the skeleton in labs/01_vector_add
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["mode"], "check");
  EXPECT_EQ(run.report["points_possible"], 30);  // 4 public tests (20) and the public timed case saxpy_2to26 (10)
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["visibility"], "public") << test["name"];
  if (!has_gpu()) {
    EXPECT_EQ(run.process.exit_code, 5) << run.process.output;
    GTEST_SKIP() << "no CUDA device: checked only that the skeleton builds and nothing is graded";
  }
  EXPECT_EQ(run.process.exit_code, 1) << run.process.output;  // the skeleton fails its public tests
  EXPECT_EQ(run.report["status"], "tests_failed");
}

TEST(LabgradeCli, AnOffByOneEarnsPartialCredit) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("off_by_one")});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_GT(run.report["points_earned"].get<double>(), 0);
  EXPECT_LT(run.report["points_earned"].get<double>(), 100);
  EXPECT_EQ(test_named(run.report, "VectorAdd.ZeroLength")["status"], "passed");
  EXPECT_EQ(test_named(run.report, "VectorAdd.SingleElement")["status"], "failed");
  EXPECT_CONTAINS(test_named(run.report, "VectorAdd.SingleElement")["message"].get<std::string>(), "never written");
}

TEST(LabgradeCli, OutOfBoundsWritesCostOnlyTheirOwnTests) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("out_of_bounds")});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  const auto& crashed = test_named(run.report, "VectorAdd.LargePrime");
  EXPECT_EQ(crashed["status"], "crashed");
  EXPECT_CONTAINS(crashed["message"].get<std::string>(), "cudaErrorIllegalAddress");
  EXPECT_EQ(test_named(run.report, "Saxpy.LargePrime")["status"], "passed");  // ran in a fresh process
  EXPECT_EQ(test_named(run.report, "Saxpy.Full2To26")["status"], "passed");
}

TEST(LabgradeCli, AKernelThatNeverReturnsTimesOutAndTheRestRuns) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("never_returns")});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(test_named(run.report, "Saxpy.OneWarpMinusOne")["status"], "timed out");
  EXPECT_EQ(test_named(run.report, "Saxpy.LargePrime")["status"], "passed");
  EXPECT_EQ(test_named(run.report, "VectorAdd.Full2To26")["status"], "passed");
}

}  // namespace
}  // namespace labgrade
