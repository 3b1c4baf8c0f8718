// Contracts every lab keeps, checked end to end with the real labgrade for each lab in
// config/labs/ (a new lab is covered without touching this file):
//  - the reference solution, graded as a submission, scores full marks;
//  - the untouched skeleton scores 0, every test failing with a message that names the TODO;
//  - grading the reference solution takes at most the lab's time bound below (build, and the
//    test phase alone), so a slow check (e.g. large inputs made or checked on the host again)
//    shows up as a failure;
//  - each fixture in submissions/<lab>/<name>/ that has an expected_grade.json (typically the
//    "correct but naive" implementation a lab's thresholds must separate from the technique)
//    lands where that file says.
//
// expected_grade.json:
//   {"why": "one thread per output, no tiling: correct but slow",
//    "points_min": 80, "points_max": 92,                  // inclusive bounds on points_earned
//    "passed": ["Matmul.Square64"], "failed": ["Performance.matmul_4096"],   // optional
//    "messages": {"Performance.matmul_4096": "text the test's message must contain"},  // optional
//    "messages_without": {"Performance.matmul_4096": "text it must not contain"}}         // optional
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "labgrade_runner.hpp"
#include "sandbox/child_process.hpp"
#include "run/suite_runner.hpp"
#include "build/build_recipe.hpp"

namespace labgrade {
namespace {
using namespace cli;
namespace fs = std::filesystem;

std::vector<std::string> lab_ids() {
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(course_file("config/labs"))) {
    if (entry.path().extension() == ".yaml") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

struct Fixture {
  std::string lab;
  std::string name;
  fs::path dir;
};

// How GoogleTest names a fixture in its output (instead of its bytes).
void PrintTo(const Fixture& fixture, std::ostream* out) { *out << fixture.lab << "/" << fixture.name; }

std::vector<Fixture> graded_fixtures() {
  std::vector<Fixture> fixtures;
  const fs::path root = LABGRADE_TEST_SUBMISSIONS;
  for (const std::string& lab : lab_ids()) {
    if (!fs::is_directory(root / lab)) continue;
    for (const auto& entry : fs::directory_iterator(root / lab)) {
      if (fs::exists(entry.path() / "expected_grade.json")) {
        fixtures.push_back({lab, entry.path().filename().string(), entry.path()});
      }
    }
  }
  std::sort(fixtures.begin(), fixtures.end(), [](const Fixture& a, const Fixture& b) {
    return a.lab + "/" + a.name < b.lab + "/" + b.name;
  });
  return fixtures;
}

void print_grade(const LabgradeRun& run, const std::string& what) {
  std::cout << "[ grade    ] " << what << ": " << run.report["points_earned"] << " / " << run.report["points_possible"]
            << " in " << run.report["timing"]["total_seconds"] << " s\n";
  for (const auto& test : run.report["tests"]) {
    if (test["status"] != "passed" || test.contains("performance")) {
      std::cout << "    " << test["name"].get<std::string>() << ": " << test["status"].get<std::string>() << ", "
                << test["points_earned"] << " / " << test["points_possible"];
      if (test.contains("performance")) std::cout << " (" << test["performance"]["verdict"].value("explanation", "") << ")";
      std::cout << "\n";
    }
  }
}

class EveryLab : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryLab, ReferenceSolutionScoresFullMarks) {
  const std::string lab = GetParam();
  const LabgradeRun run = labgrade_when_quiet({"grade", lab, "--submission", course_file("solutions/" + lab)});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_TRUE(run.report["build"]["succeeded"].get<bool>()) << run.report["build"]["output"];
  if (!has_gpu()) {
    EXPECT_EQ(run.process.exit_code, 5) << run.process.output;
    GTEST_SKIP() << "no CUDA device: checked only that the solution builds and that labgrade refuses to grade";
  }
  print_grade(run, "solutions/" + lab);
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_EQ(run.report["points_earned"], run.report["points_possible"]) << run.process.output;
  const auto& timing = run.report["timing"];
  const double tests = timing["test_seconds"].get<double>();
  const double build_and_tests = timing["build_seconds"].get<double>() + tests;
  // For the log only: the bounds on these live in bench/grade_time_bounds.py, run alone on the GPU
  // machine (here, under ctest -j4, other tests' compilers share the CPU).
  std::cout << "[ time     ] " << lab << ": build + tests " << build_and_tests << " s, tests " << tests << " s\n";
}

TEST_P(EveryLab, UntouchedSkeletonScoresZeroAndNamesTheTodo) {
  const std::string lab = GetParam();
  const LabgradeRun run = labgrade({"grade", lab, "--submission", course_file("labs/" + lab)});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_TRUE(run.report["build"]["succeeded"].get<bool>()) << "the skeleton must compile:\n"
                                                            << run.report["build"]["output"];
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: checked only that the skeleton compiles";
  print_grade(run, "labs/" + lab);
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_EQ(run.report["points_earned"], 0) << run.process.output;
  for (const auto& test : run.report["tests"]) {
    EXPECT_EQ(test["status"], "failed") << test["name"];
    EXPECT_CONTAINS(test["message"].get<std::string>(), "TODO(student)");
  }
}

// A grade's one judge waits for the GPU alone before its first timed case, and GoogleTest runs
// tests in registration order: a correctness test listed after a timed case would run with the
// GPU held alone, keeping every other grade's correctness tests waiting (and a hang there, all of
// them for the test timeout). No GPU needed: the judge only lists its tests.
class EveryJudge : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryJudge, ListsItsTimedCasesAfterItsCorrectnessTests) {
  const std::string lab = GetParam();
  const BuildRecipe recipe = load_build_recipe(std::string(CUDALABS_BINARY_DIR) + "/cudalabs/labs/" + lab + ".json");
  if (recipe.grade_harness.empty()) GTEST_SKIP() << "no hidden suite for " << lab << " in this tree";
  ProcessSpec spec;
  spec.argv = {recipe.grade_harness, "--gtest_list_tests"};
  const ProcessResult listing = run_process(spec);
  ASSERT_TRUE(listing.succeeded()) << listing.output;
  const std::vector<std::string> tests = parse_test_listing(listing.output);
  const auto in_suite = [](const std::string& test, const char* suite) { return test.rfind(suite, 0) == 0; };
  std::size_t first_timed = tests.size(), last_correctness = 0;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (in_suite(tests[i], "Performance.")) {
      first_timed = std::min(first_timed, i);
    } else if (!in_suite(tests[i], "Preview.")) {  // previews run only in a self-check, after its tests
      last_correctness = i;
    }
  }
  ASSERT_LT(first_timed, tests.size()) << lab << " has no timed case";
  EXPECT_LT(last_correctness, first_timed) << lab << ": " << tests[last_correctness] << " comes after "
                                           << tests[first_timed];
}

// A batch's first parts time nothing, so their judges run the solution linked into them instead of
// a reference runner (labgrade sets CUDALABS_REFERENCE_IN_JUDGE, and CUDALABS_JUDGE_CUDA_QUEUES for one
// hardware queue in the judge; cudalabs/remote/judge.hpp): the
// expected outputs come from there, and a solution must pass every correctness test and the
// skeleton fail each with its TODO, as when a runner makes them. (The timed cases, run by a judge
// of the usual kind, are not looked at: under ctest -j4 their figures may end "machine busy".)
TEST_P(EveryJudge, GradesCorrectnessInABatchWhoseFirstPartsRunTheReferenceInTheJudge) {
  const std::string lab = GetParam();
  const BuildRecipe recipe = load_build_recipe(std::string(CUDALABS_BINARY_DIR) + "/cudalabs/labs/" + lab + ".json");
  if (recipe.grade_harness.empty()) GTEST_SKIP() << "no hidden suite for " << lab << " in this tree";
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: a batch's first parts run on a GPU";
  const fs::path scratch = fs::path(::testing::TempDir()) / ("every_judge_batch_" + lab);
  fs::remove_all(scratch);
  fs::create_directories(scratch / "class");
  fs::copy(course_file("solutions/" + lab), scratch / "class" / "solution", fs::copy_options::recursive);
  fs::copy(course_file("labs/" + lab), scratch / "class" / "skeleton", fs::copy_options::recursive);
  const LabgradeRun run = labgrade({"batch", lab, (scratch / "class").string(), "--out", (scratch / "out").string()});
  ASSERT_TRUE(run.process.exited) << run.process.output;
  const auto report_of = [&](const char* student) {
    std::ifstream in(scratch / "out" / "reports" / student / "report.json");
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  };
  const nlohmann::json solution = report_of("solution");
  const nlohmann::json skeleton = report_of("skeleton");
  ASSERT_TRUE(solution.is_object() && skeleton.is_object()) << run.process.output;
  int correctness_tests = 0;
  for (const auto& test : solution["tests"]) {
    if (test.contains("performance")) continue;
    ++correctness_tests;
    EXPECT_EQ(test["status"], "passed") << "solution, " << test["name"] << ": " << test.value("message", "");
  }
  EXPECT_GT(correctness_tests, 0);
  for (const auto& test : skeleton["tests"]) {
    if (test.contains("performance")) continue;
    EXPECT_EQ(test["status"], "failed") << "skeleton, " << test["name"];
    EXPECT_CONTAINS(test.value("message", ""), "TODO(student)");
  }
  fs::remove_all(scratch);
}

INSTANTIATE_TEST_SUITE_P(Labs, EveryJudge, ::testing::ValuesIn(lab_ids()),
                         [](const auto& info) { return "lab" + info.param; });

INSTANTIATE_TEST_SUITE_P(Labs, EveryLab, ::testing::ValuesIn(lab_ids()),
                         [](const auto& info) { return "lab" + info.param; });

class LabFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(LabFixture, LandsWhereItsExpectedGradeSays) {
  const Fixture& fixture = GetParam();
  std::ifstream in(fixture.dir / "expected_grade.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: fixtures are graded on a GPU";
  const LabgradeRun run = labgrade_when_quiet({"grade", fixture.lab, "--submission", fixture.dir.string()});
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  print_grade(run, fixture.lab + "/" + fixture.name + " (" + expected.value("why", "") + ")");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  const double points = run.report["points_earned"].get<double>();
  EXPECT_GE(points, expected.at("points_min").get<double>()) << run.process.output;
  EXPECT_LE(points, expected.at("points_max").get<double>()) << run.process.output;
  for (const auto& name : expected.value("passed", nlohmann::json::array())) {
    EXPECT_EQ(test_named(run.report, name)["status"], "passed") << name;
  }
  for (const auto& name : expected.value("failed", nlohmann::json::array())) {
    const auto& test = test_named(run.report, name);
    EXPECT_LT(test["points_earned"].get<double>(), test["points_possible"].get<double>()) << name;
  }
  // Named first: items() of a temporary would outlive the object it walks.
  const nlohmann::json messages = expected.value("messages", nlohmann::json::object());
  for (const auto& item : messages.items()) {
    EXPECT_CONTAINS(test_named(run.report, item.key())["message"].get<std::string>(), item.value().get<std::string>())
        << item.key();
  }
  const nlohmann::json absent = expected.value("messages_without", nlohmann::json::object());
  for (const auto& item : absent.items()) {
    const std::string message = test_named(run.report, item.key())["message"].get<std::string>();
    EXPECT_EQ(message.find(item.value().get<std::string>()), std::string::npos)
        << item.key() << ": the message must not say \"" << item.value().get<std::string>() << "\":\n" << message;
  }
}

// Without fixtures the suite would be empty, which GoogleTest reports as an error.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LabFixture);
INSTANTIATE_TEST_SUITE_P(Fixtures, LabFixture, ::testing::ValuesIn(graded_fixtures()),
                         [](const auto& info) { return info.param.lab + "_" + info.param.name; });

}  // namespace
}  // namespace labgrade
