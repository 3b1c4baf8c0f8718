// labgrade end to end: the real program, the real lab harnesses, submissions from submissions/.
// Solution and skeleton of every lab: every_lab_test.cpp.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>
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
  const std::string exit_code_line = "0  grade: the submission was graded";
  for (const char* command : {"list", "check", "grade", "batch", "submit", "release"}) {
    SCOPED_TRACE(command);
    const LabgradeRun run = labgrade({command, "--help"});
    EXPECT_EQ(run.process.exit_code, 0);
    // Named as labgrade, however its path was typed (here an absolute path).
    EXPECT_CONTAINS(run.process.output, std::string("Usage: labgrade ") + command + " [OPTIONS]");
    // A command this build left out (batch without SQLite) says so and how to get it instead.
    if (run.process.output.find("not in this build") == std::string::npos) {
      EXPECT_CONTAINS(run.process.output, std::string("Examples:\n  labgrade ") + command);
    }
    EXPECT_EQ(run.process.output.find(exit_code_line), std::string::npos) << "the exit codes are the top level's";
    for (const char* noise : {"TEXT", "(existing)", "PATH(", "DIR(", ":{"}) {
      EXPECT_EQ(run.process.output.find(noise), std::string::npos) << noise << " in:\n" << run.process.output;
    }
  }
  const std::string top = labgrade({"--help"}).process.output;
  EXPECT_CONTAINS(top, "Usage: labgrade [OPTIONS]");
  EXPECT_CONTAINS(top, "Examples:\n  labgrade list");
  EXPECT_CONTAINS(top, "Exit codes:\n  " + exit_code_line);
  EXPECT_EQ(top.find(exit_code_line), top.rfind(exit_code_line)) << "once";
}

TEST(LabgradeCli, AMistypedCommandGetsTheNearestOne) {
  const LabgradeRun typo = labgrade({"grde", "01_vector_add", "-s", "alice/"});
  EXPECT_EQ(typo.process.exit_code, 2) << typo.process.output;
  EXPECT_CONTAINS(typo.process.output, "labgrade: 'grde' is not a command; did you mean 'grade'?");
  EXPECT_CONTAINS(typo.process.output, "list, check, grade");
  const LabgradeRun after_option = labgrade({"--root", course_file(""), "lsit"});
  EXPECT_EQ(after_option.process.exit_code, 2) << after_option.process.output;
  EXPECT_CONTAINS(after_option.process.output, "did you mean 'list'?");
}

// `list` keeps going past a broken YAML file: the good labs, then each broken one with its
// file:line, and the configuration-error exit code.
// The internal check labgrade runs when a test program says there is no device: a fresh
// process, confined like a test program, that names the device or says why there is none.
TEST(LabgradeCli, TheInternalDeviceCheckSeesWhatATestProgramWould) {
  for (const bool confined : {false, true}) {
    std::vector<std::pair<std::string, std::string>> env;
    if (confined) env.emplace_back("CUDALABS_CONFINE", "1");
    const LabgradeRun run = labgrade({"device-check"}, 120, env);
    const std::string why = std::string(confined ? "confined: " : "") + run.process.output;
    if (has_gpu()) {
      EXPECT_EQ(run.process.exit_code, 0) << why;
      EXPECT_CONTAINS(run.process.output, "usable\t");
      EXPECT_EQ(run.process.output.find("unusable"), std::string::npos) << why;
    } else {
      EXPECT_EQ(run.process.exit_code, 1) << why;
      EXPECT_CONTAINS(run.process.output, "unusable\t");
      EXPECT_EQ(run.process.output.find("could not confine"), std::string::npos) << why;
    }
  }
  const LabgradeRun help = labgrade({"--help"});
  EXPECT_EQ(help.process.output.find("device-check"), std::string::npos) << "an internal command is not in --help";
}

TEST(LabgradeCli, ListNamesBrokenLabsAfterTheGoodOnes) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "cli_list_broken";
  fs::remove_all(root);
  fs::create_directories(root / "config" / "labs");
  fs::copy_file(course_file("config/course.yaml"), root / "config" / "course.yaml");
  fs::copy_file(course_file("config/labs/01_vector_add.yaml"), root / "config" / "labs" / "01_vector_add.yaml");
  std::ofstream(root / "config" / "labs" / "00_broken.yaml") << "lab: 00_broken\ntitle: [unclosed\n";
  const LabgradeRun run = labgrade({"--root", root.string(), "list"});
  EXPECT_EQ(run.process.exit_code, 3) << run.process.output;
  EXPECT_CONTAINS(run.process.output, "01_vector_add  Vector addition and SAXPY");
  EXPECT_CONTAINS(run.process.output, (root / "config" / "labs" / "00_broken.yaml").string() + ":3");
}

// A build tree without the lab's test program (only some targets built): the error names the
// missing file and the command that builds it, before anything is staged or compiled.
TEST(LabgradeCli, AnUnbuiltTestProgramIsNamedWithTheCommandThatBuildsIt) {
  namespace fs = std::filesystem;
  const fs::path build = fs::path(::testing::TempDir()) / "cli_unbuilt_harness";
  fs::remove_all(build);
  fs::create_directories(build / "cudalabs" / "labs");
  const fs::path recipe = fs::path(CUDALABS_BINARY_DIR) / "cudalabs" / "labs" / "01_vector_add.json";
  nlohmann::json json = nlohmann::json::parse(std::ifstream(recipe));
  const fs::path missing = build / "labs" / "01_vector_add" / "lab_01_vector_add_grade";
  json["grade_harness"] = missing.string();
  std::ofstream(build / "cudalabs" / "labs" / "01_vector_add.json") << json.dump();
  const LabgradeRun run = labgrade(
      {"--build-dir", build.string(), "grade", "01_vector_add", "--submission", course_file("solutions/01_vector_add")});
  EXPECT_EQ(run.process.exit_code, 7) << run.process.output;
  EXPECT_CONTAINS(run.process.output, "01_vector_add's test program is not built: " + missing.string() + " is missing");
  EXPECT_CONTAINS(run.process.output, "cmake --build " + build.string() + " --target lab_01_vector_add_grade");
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

// Every report names each kernel's registers, shared memory and spills, GPU or not (the compiler
// says them); the compiler's resource lines are not left in its messages.
TEST(LabgradeCli, ReportsWhatEachKernelUses) {
  const LabgradeRun run =
      labgrade({"grade", "04_transpose", "--submission", course_file("solutions/04_transpose")});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  const auto& kernels = run.report["build"]["kernels"];
  ASSERT_FALSE(kernels.empty()) << run.process.output;
  bool tiled_with_shared_memory = false;
  for (const auto& kernel : kernels) {
    EXPECT_GT(kernel["registers"].get<int>(), 0) << kernel;
    EXPECT_EQ(kernel["spill_store_bytes"], 0) << kernel;
    tiled_with_shared_memory |= kernel["name"].get<std::string>().rfind("tiled_kernel<", 0) == 0 &&
                                kernel["shared_bytes"].get<long>() > 0;
  }
  EXPECT_TRUE(tiled_with_shared_memory) << kernels;
  EXPECT_EQ(run.report["build"]["output"].get<std::string>().find("ptxas info"), std::string::npos);
  EXPECT_CONTAINS(run.process.output, "Your kernels, as the compiler built them");
}

TEST(LabgradeCli, ACompileErrorScoresZeroWithTheCompilersMessage) {
  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", submission("syntax_error")});
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_EQ(run.report["points_possible"], 100);
  EXPECT_FALSE(run.report["build"]["succeeded"].get<bool>());
  EXPECT_CONTAINS(run.report["build"]["output"].get<std::string>(), "vector_add.cu(8): error: expected a \";\"");  // nvcc's own message
  // Named by the student's own path, not by labgrade's temporary copy.
  EXPECT_CONTAINS(run.report["build"]["output"].get<std::string>(),
                  submission("syntax_error") + "/vector_add.cu(8): error");
  EXPECT_EQ(run.report["build"]["output"].get<std::string>().find("labgrade-01_vector_add-"), std::string::npos);
  EXPECT_CONTAINS(run.process.output, "Compiler output");
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["status"], "not run");
  // The stages that ran, in order, each started at a Unix time no earlier than the one before:
  // the build was the last (nothing after a failed build runs).
  std::vector<std::string> stages;
  double previous = 0;
  for (const auto& stage : run.report["timing"]["stages"]) {
    stages.push_back(stage["stage"]);
    EXPECT_GE(stage["started_at"].get<double>(), previous) << stage;
    EXPECT_GE(stage["seconds"].get<double>(), 0) << stage;
    previous = stage["started_at"].get<double>();
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"staging", "include rules", "build"}));
  EXPECT_GT(previous, 1.7e9);  // a Unix time (2023 or later), not a time since some start
  EXPECT_GE(run.report["timing"]["stages"][2]["seconds"].get<double>(), run.report["build"]["seconds"].get<double>());
}

// A folder of links to every program on this PATH except unzip and its kin: the GPU machine's PATH.
std::string path_without_unzip(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::set<std::string> left_out{"unzip", "unzipsfx", "zipinfo", "funzip"};
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');) {
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (left_out.count(name) || fs::exists(fs::symlink_status(folder / name))) continue;
      fs::create_symlink(it->path(), folder / name, error);
    }
  }
  return folder.string();
}

TEST(LabgradeCli, GradesAZipOnAMachineWithoutUnzip) {
  namespace fs = std::filesystem;
  const fs::path scratch = fs::path(::testing::TempDir()) / "cli_zip_without_unzip";
  const std::string path = path_without_unzip(scratch / "bin");
  const fs::path zip = scratch / "alice.zip";
  const std::string pack = fmt::format("cd '{}' && '{}' -E tar cf '{}' --format=zip vector_add.cu",
                                       course_file("solutions/01_vector_add"), LABGRADE_TEST_CMAKE, zip.string());
  ASSERT_EQ(std::system(pack.c_str()), 0) << pack;
  ASSERT_NE(std::system(("PATH='" + path + "' unzip -v >/dev/null 2>&1").c_str()), 0) << "unzip is still on PATH";

  const LabgradeRun run = labgrade({"grade", "01_vector_add", "--submission", zip.string()}, 900, {{"PATH", path}});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["files"]["used"], nlohmann::json::array({"vector_add.cu"})) << run.process.output;
  EXPECT_TRUE(run.report["build"]["succeeded"].get<bool>()) << run.process.output;
  if (!has_gpu()) {
    EXPECT_EQ(run.process.exit_code, 5) << run.process.output;
    GTEST_SKIP() << "no CUDA device: checked that the .zip was unpacked and built without unzip";
  }
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_EQ(run.report["points_earned"], run.report["points_possible"]);
}

// Gradescope reads results.json as the grade: a compile error is one (0, with the compiler's
// messages); a run without a GPU is not, and leaves no file (nor changes one already there).
TEST(LabgradeCli, OnlyAGradeLeavesAGradescopeReport) {
  namespace fs = std::filesystem;
  const fs::path scratch = fs::path(::testing::TempDir()) / "cli_gradescope_only_for_grades";
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  const fs::path compile_error = scratch / "compile_error.json";
  const LabgradeRun failed = labgrade(
      {"grade", "01_vector_add", "--submission", submission("syntax_error"), "--gradescope", compile_error.string()});
  EXPECT_EQ(failed.process.exit_code, 0) << failed.process.output;
  ASSERT_TRUE(fs::exists(compile_error)) << failed.process.output;
  std::ifstream in(compile_error);
  const nlohmann::json results = nlohmann::json::parse(in);
  EXPECT_EQ(results["score"], 0.0);
  EXPECT_CONTAINS(results["output"].get<std::string>(), "error");

  if (has_gpu()) GTEST_SKIP() << "a CUDA device is present: every run here is a grade";
  const fs::path no_gpu = scratch / "results.json";
  const LabgradeRun untested = labgrade(
      {"grade", "01_vector_add", "--submission", course_file("solutions/01_vector_add"), "--gradescope", no_gpu.string()});
  EXPECT_EQ(untested.process.exit_code, 5) << untested.process.output;
  EXPECT_FALSE(fs::exists(no_gpu)) << untested.process.output;
  EXPECT_CONTAINS(untested.process.output, "no Gradescope report written to " + no_gpu.string());
}

TEST(LabgradeCli, SelfCheckRunsOnlyThePublicTests) {
  const LabgradeRun run = labgrade({"check", "01_vector_add"});  // the skeleton in labs/01_vector_add
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["mode"], "check");
  EXPECT_EQ(run.report["points_possible"], 20);
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["visibility"], "public") << test["name"];
  // The lab's README, headers and tests ship with it: not "ignored files" of the student's.
  EXPECT_EQ(run.report["files"]["ignored"], nlohmann::json::array()) << run.process.output;
  EXPECT_EQ(run.process.output.find("ignored:"), std::string::npos) << run.process.output;
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
  // The kernel breaks its runner's CUDA context; the judge fails that test and starts a new runner.
  const auto& crashed = test_named(run.report, "VectorAdd.LargePrime");
  EXPECT_EQ(crashed["status"], "failed");
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
