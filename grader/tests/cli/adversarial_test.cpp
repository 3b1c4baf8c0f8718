// The adversarial corpus: submissions in submissions/01_vector_add/ that try to cheat or to take
// the grader down. Each gets the verdict below, and labgrade always ends normally with a report.
// Static-rule cases run everywhere (they never reach a GPU); the others skip without a GPU.
#include <gtest/gtest.h>

#include "build/build_recipe.hpp"
#include "labgrade_runner.hpp"
#include "model/sanitizer_findings.hpp"

namespace labgrade {
namespace {
using namespace cli;

constexpr int kRuleViolationExit = 8;

LabgradeRun grade(const std::string& name) { return labgrade({"grade", "01_vector_add", "--submission", submission(name)}); }

// A forbid: rule was broken: exit 8, score 0, nothing run, the rule quoted with where it is written.
void expect_rule_violation(const LabgradeRun& run, const std::string& rule, const std::string& rule_file,
                           const std::string& found, bool built) {
  EXPECT_EQ(run.process.exit_code, kRuleViolationExit) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "rule_violation");
  EXPECT_EQ(run.report["exit_code"], kRuleViolationExit);
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_EQ(run.report["points_possible"], 100);
  EXPECT_EQ(run.report["build"]["attempted"].get<bool>(), built);
  ASSERT_FALSE(run.report["rule_violations"].empty());
  const std::string violation = run.report["rule_violations"][0];
  EXPECT_CONTAINS(violation, "rule '" + rule + "'");
  EXPECT_CONTAINS(violation, rule_file + ":");
  EXPECT_CONTAINS(violation, found);
  EXPECT_CONTAINS(run.report["status_detail"].get<std::string>(), "rule '" + rule + "'");
  EXPECT_CONTAINS(run.process.output, "Rules broken");
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["status"], "not run") << test["name"];
}

// ---- caught by the forbid: rules, before anything runs (no GPU needed) ----------------------

TEST(Adversarial, ComputingOnTheCpuBreaksTheLabsRule) {
  expect_rule_violation(grade("cpu_compute"), "cudaMemcpy*", "config/labs/01_vector_add.yaml",
                        "calling cudaMemcpy", true);
}

TEST(Adversarial, AForbiddenHeaderIsRefusedBeforeTheBuild) {
  const LabgradeRun run = grade("forbidden_header");
  expect_rule_violation(run, "fstream", "config/course.yaml", "vector_add.cu:3: #include <fstream>", false);
}

TEST(Adversarial, ForkingBreaksTheCourseRule) {
  expect_rule_violation(grade("forks"), "fork", "config/course.yaml", "calling fork", true);
}

TEST(Adversarial, ForkingThroughARawSyscallIsRefusedByTheProcessFilter) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: the harness runs the calls only on a GPU";
  const LabgradeRun run = grade("forks_via_syscall");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  for (const auto& test : run.report["tests"]) {
    EXPECT_EQ(test["status"], "failed") << test["name"];
    EXPECT_CONTAINS(test["message"].get<std::string>(), "cudaErrorNotPermitted");
  }
  EXPECT_EQ(run.report["points_earned"], 0);
}

TEST(Adversarial, OpeningAFileOutsideTheSandboxBreaksTheCourseRule) {
  expect_rule_violation(grade("reads_passwd"), "fopen*", "config/course.yaml", "calling fopen", true);
}


TEST(Adversarial, ResettingTheDeviceBreaksTheCourseRule) {
  expect_rule_violation(grade("device_reset"), "cudaDeviceReset", "config/course.yaml", "calling cudaDeviceReset",
                        true);
}

// ---- caught while running (GPU) --------------------------------------------------------------

// The test with n = 31 (VectorAdd.OneWarpMinusOne) ended the process: only it is charged.
void expect_only_the_exiting_test_charged(const LabgradeRun& run) {
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  const auto& charged = test_named(run.report, "VectorAdd.OneWarpMinusOne");
  EXPECT_EQ(charged["status"], "crashed");
  EXPECT_CONTAINS(charged["message"].get<std::string>(), "exited with code 0 in the middle of this test");
  // Every other correctness test passed, in fresh processes; performance cases earn what they earn.
  double at_least = 100 - charged["points_possible"].get<double>();
  for (const auto& test : run.report["tests"]) {
    const std::string name = test["name"];
    if (name.rfind("Performance.", 0) == 0) {
      at_least -= test["points_possible"].get<double>();
    } else if (name != "VectorAdd.OneWarpMinusOne") {
      EXPECT_EQ(test["status"], "passed") << name;
    }
  }
  EXPECT_GE(run.report["points_earned"].get<double>(), at_least);
  EXPECT_LT(run.report["points_earned"].get<double>(), 100);
}

TEST(Adversarial, ExitingMidTestCostsOnlyThatTest) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_only_the_exiting_test_charged(grade("exits_mid_test"));
}

TEST(Adversarial, CallingExitCostsOnlyThatTest) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_only_the_exiting_test_charged(grade("calls_exit"));
}

// Code that does nothing useful, whatever it prints or forges, scores 0 and passes no test.
void expect_nothing_passed(const LabgradeRun& run) {
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_NE(run.report["device"], "Forged GPU");
  for (const auto& test : run.report["tests"]) EXPECT_NE(test["status"], "passed") << test["name"];
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["points_earned"], 0) << test["name"];
  EXPECT_CONTAINS(run.process.output, "Score: 0 / 100");
}

TEST(Adversarial, FakePassedLinesAndReportFilesAreIgnored) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_nothing_passed(grade("fake_passed_output"));
}

TEST(Adversarial, ForgedResultLinesFromAStaticConstructorAreIgnored) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_nothing_passed(grade("forged_results"));
}

TEST(Adversarial, HoggingGpuMemoryFailsEachTestThatLeakedAndTheGraderFinishes) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const LabgradeRun run = grade("hogs_gpu_memory");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  // Each test that called the code leaked the GPU and is charged for its own leak (each ran in
  // a process of its own, so none starts without memory because of a neighbour).
  for (const auto& test : run.report["tests"]) {
    EXPECT_EQ(test["status"], "failed") << test["name"];
    EXPECT_CONTAINS(test["message"].get<std::string>(), "of device memory allocated after it ended");
  }
  EXPECT_EQ(run.report["points_earned"], 0);
  // The memory went back with the test processes: the reference still gets full marks next.
  const LabgradeRun after = labgrade({"grade", "01_vector_add", "--submission", course_file("solutions/01_vector_add")});
  EXPECT_EQ(after.report["points_earned"], 100) << after.process.output;
}

// ---- sanitizer mode (GPU and compute-sanitizer) ----------------------------------------------

// Why the sanitizer tests cannot run here, or "" when they can.
std::string sanitizer_missing() {
  if (!has_gpu()) return "no CUDA device";
  std::string nvcc;
  try {
    nvcc = load_build_recipe(std::string(CUDALABS_BINARY_DIR) + "/cudalabs/labs/01_vector_add.json").nvcc;
  } catch (const std::exception&) {
  }
  return find_compute_sanitizer(nvcc).empty() ? "compute-sanitizer not found next to nvcc or on PATH" : "";
}

LabgradeRun grade_sanitized(const std::string& name) {
  return labgrade({"grade", "01_vector_add", "--submission", submission(name), "--sanitize"}, 3000);
}

// The tool's findings of every test whose name starts with `prefix`, concatenated.
std::string findings_of(const nlohmann::json& report, const std::string& prefix, const std::string& tool) {
  std::string found;
  for (const auto& test : report["tests"]) {
    if (test["name"].get<std::string>().rfind(prefix, 0) != 0 || !test.contains("sanitizer")) continue;
    for (const auto& finding : test["sanitizer"]) {
      if (finding["tool"] == tool && !finding["clean"].get<bool>()) found += finding["excerpt"].get<std::string>();
    }
  }
  return found;
}

TEST(Adversarial, AMissingSyncthreadsIsARaceUnderRacecheck) {
  if (const std::string why = sanitizer_missing(); !why.empty()) GTEST_SKIP() << why;
  const LabgradeRun run = grade_sanitized("missing_syncthreads");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  EXPECT_CONTAINS(findings_of(run.report, "VectorAdd.", "racecheck"), "hazard");
  EXPECT_EQ(findings_of(run.report, "Saxpy.", "racecheck"), "");  // saxpy has no shared memory
  EXPECT_CONTAINS(run.process.output, "Sanitizer (memcheck, racecheck)");
  // 01_vector_add does not require a clean run: findings are reported, points unchanged.
  EXPECT_EQ(test_named(run.report, "Saxpy.LargePrime")["status"], "passed");
}

TEST(Adversarial, AnOutOfBoundsWriteIsNamedByMemcheck) {
  if (const std::string why = sanitizer_missing(); !why.empty()) GTEST_SKIP() << why;
  const LabgradeRun run = grade_sanitized("out_of_bounds");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_CONTAINS(findings_of(run.report, "VectorAdd.", "memcheck"), "Invalid __global__ write");
  EXPECT_EQ(findings_of(run.report, "Saxpy.", "memcheck"), "");
  for (const auto& test : run.report["tests"]) {
    const bool timed = test["name"].get<std::string>().rfind("Performance.", 0) == 0;
    EXPECT_EQ(test.contains("sanitizer"), !timed) << test["name"];
  }
}

}  // namespace
}  // namespace labgrade
