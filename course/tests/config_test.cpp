// Tests of config/course.yaml and config/labs/*.yaml loading: valid files load with every field,
// and each kind of mistake is reported at the exact file, line, column and field, with a message
// that says what was expected and what was found.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"

namespace {

namespace fs = std::filesystem;
using cudalabs::config::check_against_suite;
using cudalabs::config::ConfigError;
using cudalabs::config::CourseConfig;
using cudalabs::config::Diagnostic;
using cudalabs::config::LabConfig;
using cudalabs::config::load_course_config;
using cudalabs::config::load_lab_config;
using cudalabs::config::Visibility;

const fs::path kFixtures = CUDALABS_CONFIG_FIXTURES_DIR;
const fs::path kRepoRoot = CUDALABS_REPO_ROOT;

fs::path lab_fixture(const std::string& id) { return kFixtures / "labs" / (id + ".yaml"); }

// One expected diagnostic: where it points and words its message must contain.
struct Expected {
  int line;
  int column;
  std::string field;
  std::vector<std::string> words;
};

std::string all_text(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) text += "  " + diagnostic.to_string() + "\n";
  return text;
}

// Compares in order, so the tests also pin down that diagnostics come in file order.
void expect_diagnostics(const std::vector<Diagnostic>& actual, const fs::path& file,
                        const std::vector<Expected>& expected) {
  ASSERT_EQ(actual.size(), expected.size()) << "diagnostics:\n" << all_text(actual);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("diagnostic " + std::to_string(i) + ": " + actual[i].to_string());
    EXPECT_EQ(actual[i].file, file.string());
    EXPECT_EQ(actual[i].line, expected[i].line);
    EXPECT_EQ(actual[i].column, expected[i].column);
    EXPECT_EQ(actual[i].field, expected[i].field);
    for (const std::string& word : expected[i].words) {
      EXPECT_NE(actual[i].message.find(word), std::string::npos) << "missing \"" << word << "\"";
    }
  }
}

template <typename Load>
std::vector<Diagnostic> errors_of(Load load, const fs::path& file) {
  try {
    load(file);
  } catch (const ConfigError& error) {
    return error.diagnostics();
  }
  ADD_FAILURE() << file << " loaded without errors";
  return {};
}

std::vector<Diagnostic> lab_errors(const fs::path& file) { return errors_of(load_lab_config, file); }
std::vector<Diagnostic> course_errors(const fs::path& file) { return errors_of(load_course_config, file); }

void expect_lab_errors(const std::string& id, const std::vector<Expected>& expected) {
  expect_diagnostics(lab_errors(lab_fixture(id)), lab_fixture(id), expected);
}

// ---- course.yaml ---------------------------------------------------------------------------

TEST(CourseConfig, LoadsEveryField) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  EXPECT_EQ(course.source_path, (kFixtures / "course.yaml").string());
  EXPECT_EQ(course.course, "Test course");
  EXPECT_DOUBLE_EQ(course.test_timeout_seconds, 45);
  EXPECT_DOUBLE_EQ(course.build_timeout_seconds, 120.5);
  EXPECT_EQ(course.max_source_bytes, 65536u);
  EXPECT_EQ(course.max_output_bytes, 4096u);
}

TEST(CourseConfig, MisspeltSectionIsUnknownAndMissing) {
  expect_diagnostics(course_errors(kFixtures / "bad_course.yaml"), kFixtures / "bad_course.yaml",
                     {{2, 1, "defaults", {"missing required key 'defaults'"}},
                      {3, 1, "default", {"unknown key 'default'", "did you mean 'defaults'?"}}});
}

TEST(CourseConfig, ReportsEveryBadDefault) {
  expect_diagnostics(course_errors(kFixtures / "bad_course_values.yaml"), kFixtures / "bad_course_values.yaml",
                     {{2, 9, "course", {"non-empty string", "''"}},
                      {4, 25, "defaults.test_timeout_seconds", {"positive number", "'0'"}},
                      {5, 26, "defaults.build_timeout_seconds", {"positive number", "'ten'"}},
                      {6, 21, "defaults.max_source_bytes", {"positive integer", "'1.5e6'"}},
                      {7, 21, "defaults.max_output_bytes", {"positive integer", "'-1'"}}});
}

TEST(CourseConfig, ReadsTimingSettings) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  EXPECT_EQ(course.timing.warmup, 2);
  EXPECT_EQ(course.timing.min_samples, 8);
  EXPECT_EQ(course.timing.max_samples, 500);
  EXPECT_DOUBLE_EQ(course.timing.target_relative_ci, 0.02);
  EXPECT_DOUBLE_EQ(course.timing.confidence, 0.9);
  EXPECT_DOUBLE_EQ(course.timing.time_budget_seconds, 1.5);
  EXPECT_EQ(course.timing.remeasure_attempts, 1);
}

TEST(CourseConfig, ReportsEveryBadTimingSetting) {
  const fs::path file = kFixtures / "bad_course_timing.yaml";
  expect_diagnostics(course_errors(file), file,
                     {{5, 11, "timing.warmup", {"non-negative number", "'-1'"}},
                      {6, 16, "timing.min_samples", {"at least 6 samples", "3"}},
                      {7, 16, "timing.max_samples", {"at least min_samples (3)", "2"}},
                      {8, 23, "timing.target_relative_ci", {"fraction", "5"}},
                      {9, 15, "timing.confidence", {"below 1", "1.5"}},
                      {10, 24, "timing.time_budget_seconds", {"positive number", "'0'"}},
                      {12, 3, "timing.samples", {"unknown key 'samples'"}}});
}

// ---- valid lab files -----------------------------------------------------------------------

TEST(LabConfig, LoadsEveryField) {
  const LabConfig lab = load_lab_config(lab_fixture("good_lab"));
  EXPECT_EQ(lab.source_path, lab_fixture("good_lab").string());
  EXPECT_EQ(lab.id, "good_lab");
  EXPECT_EQ(lab.title, "A good lab");
  EXPECT_DOUBLE_EQ(lab.total_points, 30.5);
  EXPECT_EQ(lab.student_files, (std::vector<std::string>{"kernel.cu", "kernel.cuh", "helpers.cpp"}));
  ASSERT_TRUE(lab.test_timeout_seconds.has_value());
  EXPECT_DOUBLE_EQ(*lab.test_timeout_seconds, 12.5);
  ASSERT_TRUE(lab.host_memory_gib.has_value());
  EXPECT_DOUBLE_EQ(*lab.host_memory_gib, 24);
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  EXPECT_EQ(lab.test_limits(course).max_data_bytes, 24ull << 30);  // the lab's, not the course's 16 GiB
  EXPECT_EQ(course.test_limits.max_data_bytes, 16ull << 30);

  ASSERT_EQ(lab.tolerances.size(), 2u);
  EXPECT_DOUBLE_EQ(lab.tolerances.at("exact").abs, 0);
  EXPECT_DOUBLE_EQ(lab.tolerances.at("exact").rel, 0);
  EXPECT_DOUBLE_EQ(lab.tolerances.at("sum").abs, 1e-6);
  EXPECT_DOUBLE_EQ(lab.tolerances.at("sum").rel, 2.5e-7);

  EXPECT_EQ(lab.tests_line, 12);
  ASSERT_EQ(lab.tests.size(), 3u);
  EXPECT_EQ(lab.tests[0].name, "SelfCheck.Small");
  EXPECT_DOUBLE_EQ(lab.tests[0].points, 10);
  EXPECT_EQ(lab.tests[0].visibility, Visibility::Public);
  EXPECT_EQ(lab.tests[0].line, 13);
  EXPECT_EQ(lab.tests[1].name, "Hidden.Large");  // block style
  EXPECT_DOUBLE_EQ(lab.tests[1].points, 20.5);
  EXPECT_EQ(lab.tests[1].visibility, Visibility::Hidden);
  EXPECT_EQ(lab.tests[1].line, 14);
  EXPECT_EQ(lab.tests[2].name, "Hidden.Unscored");
  EXPECT_DOUBLE_EQ(lab.tests[2].points, 0);
  EXPECT_EQ(lab.tests[2].line, 17);
}

TEST(LabConfig, OptionalFieldsMayBeLeftOut) {
  const LabConfig lab = load_lab_config(lab_fixture("minimal_lab"));
  EXPECT_FALSE(lab.test_timeout_seconds.has_value());
  EXPECT_FALSE(lab.host_memory_gib.has_value());
  EXPECT_TRUE(lab.tolerances.empty());
  ASSERT_EQ(lab.tests.size(), 1u);
}

TEST(LabConfig, PointsAddUpWithinRounding) {
  EXPECT_DOUBLE_EQ(load_lab_config(lab_fixture("fractional_points")).total_points, 0.3);
}

TEST(LabConfig, FindTestByName) {
  const LabConfig lab = load_lab_config(lab_fixture("good_lab"));
  const auto* found = lab.find_test("Hidden.Large");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &lab.tests[1]);
  EXPECT_EQ(lab.find_test("Hidden.Larg"), nullptr);
  EXPECT_EQ(lab.find_test(""), nullptr);
}

TEST(LabConfig, TimeoutOverridesTheCourseDefault) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  EXPECT_DOUBLE_EQ(load_lab_config(lab_fixture("good_lab")).timeout_for_tests(course), 12.5);
  EXPECT_DOUBLE_EQ(load_lab_config(lab_fixture("minimal_lab")).timeout_for_tests(course), 45);
}

TEST(LabConfig, TimingKeysReplaceOnlyTheCoursesOwn) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  const cudalabs::config::TimingSettings timing = load_lab_config(lab_fixture("timing_lab")).timing_settings(course);
  EXPECT_EQ(timing.min_samples, 6);
  EXPECT_DOUBLE_EQ(timing.time_budget_seconds, 3);
  EXPECT_EQ(timing.warmup, 2);  // the rest are course.yaml's
  EXPECT_EQ(timing.max_samples, 500);
  EXPECT_DOUBLE_EQ(timing.target_relative_ci, 0.02);
  EXPECT_DOUBLE_EQ(timing.confidence, 0.9);
  EXPECT_EQ(timing.remeasure_attempts, 1);
  const cudalabs::config::TimingSettings plain = load_lab_config(lab_fixture("minimal_lab")).timing_settings(course);
  EXPECT_EQ(plain.min_samples, 8);
  EXPECT_DOUBLE_EQ(plain.time_budget_seconds, 1.5);
}

TEST(LabConfigErrors, TimingKeysAreCheckedLikeTheCourses) {
  expect_lab_errors("bad_timing", {{6, 16, "timing.min_samples", {"at least 6 samples", "4"}},
                                   {7, 15, "timing.confidence", {"below 1", "1.5"}},
                                   {8, 3, "timing.rounds", {"unknown key 'rounds'"}}});
}

TEST(LabConfigErrors, AMinimumAboveTheCoursesMaximumIsNamedInTheLabsFile) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  const LabConfig lab = load_lab_config(lab_fixture("timing_above_course_max"));
  try {
    static_cast<void>(lab.timing_settings(course));
    FAIL() << "a lab's min_samples above the course's max_samples was accepted";
  } catch (const ConfigError& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find(lab_fixture("timing_above_course_max").string() + ":5:"), std::string::npos) << text;
    EXPECT_NE(text.find("min_samples 600 is above max_samples 500"), std::string::npos) << text;
  }
}

TEST(LabConfig, VisibilityIsWrittenAsInTheYaml) {
  EXPECT_EQ(cudalabs::config::to_string(Visibility::Public), "public");
  EXPECT_EQ(cudalabs::config::to_string(Visibility::Hidden), "hidden");
}

// ---- one fixture per kind of mistake -------------------------------------------------------

TEST(LabConfigErrors, UnknownKeySuggestsTheNearestOne) {
  expect_lab_errors("unknown_key", {{5, 1, "tolerance", {"unknown key 'tolerance'", "did you mean 'tolerances'?"}},
                                    {6, 1, "author", {"unknown key 'author'", "expected one of: lab, title"}}});
  // Nothing is near "author": no suggestion rather than a puzzling one.
  EXPECT_EQ(lab_errors(lab_fixture("unknown_key"))[1].message.find("did you mean"), std::string::npos);
}

TEST(LabConfigErrors, UnknownKeyInsideATest) {
  expect_lab_errors("unknown_nested_key",
                    {{7, 5, "tests[1].visibility", {"missing required key 'visibility'", "public or hidden"}},
                     {7, 36, "tests[1].visiblity", {"unknown key 'visiblity'", "did you mean 'visibility'?"}}});
}

TEST(LabConfigErrors, ListWhereAMapBelongs) {
  expect_lab_errors("wrong_type_map", {{5, 13, "tolerances", {"expected a map", "got a list"}}});
}

TEST(LabConfigErrors, QuotedStringWhereANumberBelongs) {
  expect_lab_errors("wrong_type_number",
                    {{5, 23, "test_timeout_seconds", {"expected a positive number", "the quoted string '20'"}}});
}

TEST(LabConfigErrors, HostMemoryMustBeAPositiveNumberOfGib) {
  expect_lab_errors("bad_host_memory", {{5, 18, "host_memory_gib", {"expected a positive number", "'0'"}}});
}

TEST(LabConfigErrors, NegativePoints) {
  expect_lab_errors("negative_value", {{7, 35, "tests[1].points", {"non-negative number", "'-5'"}}});
}

TEST(LabConfigErrors, WordsInfinityAndNanAreNotNumbers) {
  expect_lab_errors("non_numeric", {{5, 23, "test_timeout_seconds", {"positive number", "'.inf'", "finite"}},
                                    {7, 14, "tolerances.sum.abs", {"non-negative number", "'.nan'", "finite"}},
                                    {9, 33, "tests[0].points", {"non-negative number", "'ten'"}}});
}

TEST(LabConfigErrors, TestNamesMustBeSuiteDotTest) {
  expect_lab_errors("bad_test_name",
                    {{7, 12, "tests[1].name", {"GoogleTest name 'Suite.Test'", "'VectorAdd_LargePrime'"}},
                     {8, 12, "tests[2].name", {"GoogleTest name 'Suite.Test'", "'Suite.9Lives'"}}});
}

TEST(LabConfigErrors, DuplicateTestReportedAtTheSecondWithTheFirstLine) {
  expect_lab_errors("duplicate_test", {{8, 12, "tests[2].name", {"'Basic.Works' is listed twice", "first on line 6"}}});
}

TEST(LabConfigErrors, PointsMustAddUpToTotal) {
  expect_lab_errors("points_mismatch", {{3, 15, "total_points", {"total_points is 100", "add up to 95"}}});
}

TEST(LabConfigErrors, LabIdMustEqualFileStem) {
  expect_lab_errors("id_mismatch", {{1, 6, "lab", {"'02_other_lab'", "'id_mismatch'"}}});
}

TEST(LabConfigErrors, StudentFilesMustBePlainSourceNames) {
  expect_lab_errors("student_file_path",
                    {{5, 5, "student_files[0]", {"'src/kernel.cu'", "plain file name, not a path"}},
                     {6, 5, "student_files[1]", {"'../secrets.cu'", "plain file name, not a path"}},
                     {7, 5, "student_files[2]", {"'.hidden.cu'", "must not start with '.'"}},
                     {8, 5, "student_files[3]", {"'notes.txt'", ".cu, .cuh, .h, .hpp or .cpp"}},
                     {10, 5, "student_files[5]", {"'kernel.cu' is listed twice", "first on line 9"}},
                     {11, 5, "student_files[6]", {"'my kernel.cu'", "spaces"}}});
}

TEST(LabConfigErrors, MissingFile) {
  expect_diagnostics(lab_errors(lab_fixture("no_such_lab")), lab_fixture("no_such_lab"),
                     {{0, 0, "", {"file not found"}}});
}

TEST(LabConfigErrors, DirectoryInsteadOfFile) {
  expect_diagnostics(lab_errors(kFixtures / "labs"), kFixtures / "labs", {{0, 0, "", {"is a directory"}}});
}

TEST(LabConfigErrors, EmptyFile) {
  expect_lab_errors("empty", {{0, 0, "", {"expected a map of lab settings", "got nothing"}}});
}

TEST(LabConfigErrors, InvalidYamlSyntax) {
  expect_lab_errors("invalid_syntax", {{7, 5, "", {"YAML syntax error", "end of map flow not found"}}});
}

TEST(LabConfigErrors, MissingRequiredKeysReportedAtTheTopMap) {
  expect_lab_errors("missing_keys", {{2, 1, "title", {"missing required key 'title'"}},
                                     {2, 1, "total_points", {"missing required key 'total_points'"}},
                                     {2, 1, "student_files", {"missing required key 'student_files'"}},
                                     {2, 1, "tests", {"missing required key 'tests'"}}});
}

TEST(LabConfigErrors, EveryErrorInOneFileIsReported) {
  expect_lab_errors("many_errors",
                    {{2, 8, "title", {"non-empty string"}},
                     {3, 15, "total_points", {"positive number", "'0'"}},
                     {4, 16, "student_files", {"non-empty list of file names", "empty list"}},
                     {6, 8, "tolerances.sum.rel", {"missing required key 'rel'"}},
                     {7, 25, "tolerances.max.ulp", {"unknown key 'ulp'", "expected one of: abs, rel"}},
                     {9, 48, "tests[0].visibility", {"public or hidden", "'hiden'", "did you mean 'hidden'?"}},
                     {10, 5, "tests[1]", {"expected a map {name, points, visibility}", "'Basic.Edges'"}},
                     {11, 5, "tests[2].visibility", {"missing required key 'visibility'"}},
                     {11, 12, "tests[2].name", {"'Basic.Works' is listed twice", "first on line 9"}},
                     {12, 1, "title", {"'title' is given twice", "first on line 2"}}});
}

TEST(LabConfigErrors, WhatListsOneDiagnosticPerLine) {
  try {
    load_lab_config(lab_fixture("points_mismatch"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              lab_fixture("points_mismatch").string() +
                  ":3:15: total_points: total_points is 100, but the points of tests: add up to 95");
  }
}

TEST(Diagnostic, LeavesOutUnknownPositionsAndEmptyField) {
  EXPECT_EQ((Diagnostic{"a.yaml", 0, 0, "", "file not found"}).to_string(), "a.yaml: file not found");
  EXPECT_EQ((Diagnostic{"a.yaml", 4, 0, "tests", "x"}).to_string(), "a.yaml:4: tests: x");
  EXPECT_EQ((Diagnostic{"a.yaml", 4, 7, "tests[0].name", "x"}).to_string(), "a.yaml:4:7: tests[0].name: x");
}

// ---- consistency with a compiled suite ------------------------------------------------------
// good_lab lists SelfCheck.Small (public, line 13), Hidden.Large (hidden, line 14) and
// Hidden.Unscored (hidden, line 17) under `tests:` on line 12.

class SuiteCheck : public ::testing::Test {
 protected:
  const LabConfig lab = load_lab_config(lab_fixture("good_lab"));
  const fs::path file = lab_fixture("good_lab");
};

TEST_F(SuiteCheck, ConsistentSuiteHasNoDiagnostics) {
  EXPECT_TRUE(check_against_suite(lab, {"Hidden.Unscored", "SelfCheck.Small", "Hidden.Large"}, false).empty());
}

TEST_F(SuiteCheck, MisspeltTestIsMissingWithASuggestionAndTheSuiteNameIsUnlisted) {
  expect_diagnostics(check_against_suite(lab, {"SelfCheck.Small", "Hidden.Larg", "Hidden.Unscored"}, false), file,
                     {{14, 0, "tests[1].name", {"the suite has no test named 'Hidden.Large'", "did you mean 'Hidden.Larg'?"}},
                      {12, 0, "tests", {"the suite has test 'Hidden.Larg', which tests: does not list",
                                        "give it points, even 0"}}});
}

TEST_F(SuiteCheck, TestMissingFromSuiteWithNothingClose) {
  const auto diagnostics = check_against_suite(lab, {"SelfCheck.Small", "Hidden.Large"}, false);
  expect_diagnostics(diagnostics, file, {{17, 0, "tests[2].name", {"the suite has no test named 'Hidden.Unscored'"}}});
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].message.find("did you mean"), std::string::npos);
}

TEST_F(SuiteCheck, SuiteTestsTheYamlDoesNotList) {
  expect_diagnostics(
      check_against_suite(lab, {"SelfCheck.Small", "Hidden.Large", "Hidden.Unscored", "Extra.One", "Extra.Two"}, false),
      file, {{12, 0, "tests", {"'Extra.One'", "does not list"}}, {12, 0, "tests", {"'Extra.Two'", "does not list"}}});
}

TEST_F(SuiteCheck, PublicSuiteIsComparedWithPublicTestsOnly) {
  EXPECT_TRUE(check_against_suite(lab, {"SelfCheck.Small"}, true).empty());
}

TEST_F(SuiteCheck, PublicSuiteMissingAPublicTest) {
  expect_diagnostics(check_against_suite(lab, {"SelfCheck.Smal"}, true), file,
                     {{13, 0, "tests[0].name", {"the public self-check suite has no test named 'SelfCheck.Small'",
                                                "did you mean 'SelfCheck.Smal'?"}},
                      {12, 0, "tests", {"the public self-check suite has test 'SelfCheck.Smal'"}}});
}

TEST_F(SuiteCheck, HiddenTestInThePublicSuiteIsAnError) {
  expect_diagnostics(check_against_suite(lab, {"SelfCheck.Small", "Hidden.Large"}, true), file,
                     {{14, 0, "tests[1].visibility", {"'Hidden.Large' is declared hidden",
                                                      "the public self-check suite contains it"}}});
}

// ---- the repository's own configuration ---------------------------------------------------

TEST(RepositoryConfig, CourseLoads) {
  const CourseConfig course = load_course_config(kRepoRoot / "config" / "course.yaml");
  EXPECT_FALSE(course.course.empty());
  EXPECT_DOUBLE_EQ(course.test_timeout_seconds, 60);
  EXPECT_DOUBLE_EQ(course.build_timeout_seconds, 300);
  EXPECT_EQ(course.max_source_bytes, 1048576u);
  EXPECT_EQ(course.max_output_bytes, 1048576u);
}

TEST(RepositoryConfig, VectorAddLabLoads) {
  const LabConfig lab = load_lab_config(kRepoRoot / "config" / "labs" / "01_vector_add.yaml");
  EXPECT_EQ(lab.id, "01_vector_add");
  EXPECT_EQ(lab.student_files, std::vector<std::string>{"vector_add.cu"});
  EXPECT_EQ(lab.tolerances.count("vector_add"), 1u);
  EXPECT_EQ(lab.tolerances.count("saxpy"), 1u);
  EXPECT_NE(lab.find_test("SelfCheck.VectorAddSmall"), nullptr);
  EXPECT_EQ(lab.find_test("SelfCheck.VectorAddSmall")->visibility, Visibility::Public);
}

// Every lab file in the repository, so a new lab with a mistake fails here before it reaches a
// grading run.
TEST(RepositoryConfig, EveryLabFileLoads) {
  int labs = 0;
  for (const auto& entry : fs::directory_iterator(kRepoRoot / "config" / "labs")) {
    if (entry.path().extension() != ".yaml") continue;
    ++labs;
    try {
      load_lab_config(entry.path());
    } catch (const ConfigError& error) {
      ADD_FAILURE() << error.what();
    }
  }
  EXPECT_GE(labs, 1);
}

}  // namespace

// ---- performance cases ---------------------------------------------------------------------

namespace cudalabs::config {
namespace {

TEST(PerformanceConfig, LoadsEveryThresholdKind) {
  const LabConfig lab = load_lab_config(lab_fixture("performance_lab"));
  ASSERT_EQ(lab.performance.size(), 4u);
  EXPECT_EQ(lab.performance_line, 8);
  const PerformanceSpec& ratio = lab.performance[0];
  EXPECT_EQ(ratio.test_name(), "Performance.ratio_case");
  EXPECT_EQ(ratio.threshold.kind, ThresholdKind::MaxRatioToSolution);
  EXPECT_DOUBLE_EQ(ratio.threshold.value, 1.1);
  ASSERT_TRUE(ratio.partial_credit);
  EXPECT_DOUBLE_EQ(ratio.partial_credit->zero_at, 2.0);
  EXPECT_EQ(ratio.line, 9);
  EXPECT_EQ(lab.performance[1].visibility, Visibility::Public);
  EXPECT_EQ(lab.performance[1].threshold.kind, ThresholdKind::MinFractionOfPeakBandwidth);
  EXPECT_FALSE(lab.performance[2].partial_credit);
  const PerformanceThreshold& absolute = lab.performance[3].threshold;
  EXPECT_EQ(absolute.kind, ThresholdKind::MaxMs);
  EXPECT_EQ(absolute.limit_for("NVIDIA H100 80GB HBM3"), 0.5);
  EXPECT_EQ(absolute.limit_for("NVIDIA A100-SXM4-80GB"), 2.5);
  EXPECT_EQ(lab.find_performance_test("Performance.flops_case"), &lab.performance[2]);
  EXPECT_EQ(lab.find_performance_test("flops_case"), nullptr);
}

TEST(PerformanceConfig, ReportsImpossibleThresholds) {
  expect_lab_errors(
      "bad_performance",
      {{4, 15, "total_points", {"tests: (50)", "performance: (55)", "105"}},
       {9, 91, "performance[0].threshold.max_ratio_to_solution", {"positive number", "'0'"}},
       {10, 99, "performance[1].threshold.min_fraction_of_peak_bandwidth", {"at most 1", "1.5"}},
       {11, 66, "performance[2].threshold", {"exactly one threshold", "got 2"}},
       {12, 123, "performance[3].partial_credit.zero_at", {"greater than the threshold 1.5", "1.2"}},
       {13, 12, "performance[4].name", {"C identifier", "'bad-name'"}},
       {14, 12, "performance[5].name", {"listed twice (first on line 9)"}},
       {14, 96, "performance[5].partial", {"unknown key 'partial'"}}});
}

TEST(PerformanceConfig, SuiteMustDefineEachCaseAndNoOthers) {
  const LabConfig lab = load_lab_config(lab_fixture("performance_lab"));
  const auto problems = check_against_suite(
      lab, {"Basic.Works", "Performance.ratio_case", "Performance.bandwidth_cas", "Performance.flops_case",
            "Performance.absolute_case"},
      false);
  ASSERT_EQ(problems.size(), 2u) << all_text(problems);
  EXPECT_EQ(problems[0].line, 14);
  EXPECT_EQ(problems[0].field, "performance[1].name");
  EXPECT_NE(problems[0].message.find("no test Performance.bandwidth_case"), std::string::npos);
  EXPECT_NE(problems[0].message.find("did you mean 'Performance.bandwidth_cas'?"), std::string::npos);
  EXPECT_EQ(problems[1].line, 8);
  EXPECT_EQ(problems[1].field, "performance");
  EXPECT_NE(problems[1].message.find("does not list as case 'bandwidth_cas'"), std::string::npos);
}

TEST(PerformanceConfig, SelfCheckSuiteHoldsOnlyPublicCases) {
  const LabConfig lab = load_lab_config(lab_fixture("performance_lab"));
  EXPECT_TRUE(check_against_suite(lab, {"Basic.Works", "Performance.bandwidth_case"}, true).empty());
  const auto problems = check_against_suite(lab, {"Basic.Works", "Performance.bandwidth_case",
                                                  "Performance.ratio_case"}, true);
  ASSERT_EQ(problems.size(), 1u) << all_text(problems);
  EXPECT_EQ(problems[0].field, "performance[0].visibility");
}

TEST(PerformanceConfig, PublicCaseNeedsAThresholdWithoutTheSolution) {
  expect_lab_errors("public_ratio_case",
                    {{9, 48, "performance[0].visibility", {"self-check, which has no solution", "make it hidden"}}});
}

TEST(PerformanceConfig, PublicPipelineCaseIsRefusedToo) {
  expect_lab_errors("public_stage_case",
                    {{10, 51, "performance[0].visibility",
                      {"self-check, which has no solution", "make it hidden", "reference's kernels",
                       "preview: true"}}});
}

TEST(PreviewConfig, PreviewIsPublicWorthNothingAndRunsInTheSelfCheckOnly) {
  const LabConfig lab = load_lab_config(lab_fixture("preview_lab"));
  ASSERT_EQ(lab.performance.size(), 3u);
  EXPECT_FALSE(lab.performance[0].preview);
  const PerformanceSpec& preview = lab.performance[1];
  EXPECT_TRUE(preview.preview);
  EXPECT_EQ(preview.points, 0);
  EXPECT_EQ(preview.visibility, Visibility::Public);
  EXPECT_EQ(preview.threshold.kind, ThresholdKind::MinFractionOfPeakBandwidth);
  EXPECT_DOUBLE_EQ(preview.threshold.value, 0.8);
  EXPECT_EQ(preview.test_name(), "Preview.ratio_preview");
  EXPECT_EQ(lab.find_performance_test("Preview.ratio_preview"), &preview);
  EXPECT_EQ(lab.find_performance_test("Performance.ratio_preview"), nullptr);
  EXPECT_TRUE(lab.performance[2].preview);
  EXPECT_EQ(lab.performance[2].threshold.kind, ThresholdKind::MaxMs);
  EXPECT_EQ(lab.performance_test_names(true),
            (std::vector<std::string>{"Preview.ratio_preview", "Preview.timed_preview"}));
  EXPECT_EQ(lab.performance_test_names(false), std::vector<std::string>{"Performance.ratio_case"});
  EXPECT_DOUBLE_EQ(lab.points_possible(true), 90);
  EXPECT_DOUBLE_EQ(lab.points_possible(false), 100);
  // The self-check suite holds the previews; the grade's (self-check + hidden) too.
  EXPECT_TRUE(check_against_suite(lab, {"Basic.Works", "Preview.ratio_preview", "Preview.timed_preview"}, true).empty());
  EXPECT_TRUE(check_against_suite(lab, {"Basic.Works", "Performance.ratio_case", "Preview.ratio_preview",
                                        "Preview.timed_preview"},
                                  false)
                  .empty());
}

TEST(PreviewConfig, SuiteWithoutItsPreviewOrWithAnUnlistedOne) {
  const LabConfig lab = load_lab_config(lab_fixture("preview_lab"));
  const auto problems = check_against_suite(lab, {"Basic.Works", "Preview.ratio_preview", "Preview.timed_previe"}, true);
  ASSERT_EQ(problems.size(), 2u) << all_text(problems);
  EXPECT_EQ(problems[0].field, "performance[2].name");
  EXPECT_NE(problems[0].message.find("no test Preview.timed_preview"), std::string::npos) << problems[0].message;
  EXPECT_EQ(problems[1].field, "performance");
  EXPECT_NE(problems[1].message.find("does not list as a timing preview 'timed_previe' (preview: true)"),
            std::string::npos)
      << problems[1].message;
}

TEST(PreviewConfig, BadPreviewsNameTheirField) {
  expect_lab_errors(
      "bad_preview",
      {{9, 49, "performance[0].points", {"earns no points", "got 5"}},
       {10, 55, "performance[1].visibility", {"must be public"}},
       {11, 54, "performance[2].visibility",
        {"timing preview", "no solution", "min_fraction_of_peak_bandwidth", "max_ratio_to_slowest_stage"}},
       {12, 130, "performance[3].partial_credit", {"no partial credit"}},
       {13, 33, "performance[4].preview", {"expected true or false", "'yes'"}},
       // preview: false is an ordinary case, which needs its points.
       {14, 5, "performance[5].points", {"missing required key 'points'"}}});
}

TEST(PreviewConfig, PipelinePreviewAgainstItsSlowestStageIsAccepted) {
  // Its stages are the self-check's own (copies and the student's kernel): no solution needed.
  const LabConfig lab = load_lab_config(lab_fixture("stage_preview_lab"));
  const PerformanceSpec* preview = lab.find_performance_test("Preview.pipeline_preview");
  ASSERT_NE(preview, nullptr);
  EXPECT_TRUE(preview->preview);
  EXPECT_EQ(preview->visibility, Visibility::Public);
  EXPECT_EQ(preview->points, 0);
  EXPECT_EQ(preview->threshold.kind, ThresholdKind::MaxRatioToSlowestStage);
  EXPECT_DOUBLE_EQ(preview->threshold.value, 1.15);
}

TEST(PreviewConfig, PreviewAgainstTheSolutionIsStillRefused) {
  expect_lab_errors("solution_ratio_preview",
                    {{10, 54, "performance[1].visibility",
                      {"timing preview", "self-check, which has no solution", "min_fraction_of_peak_bandwidth",
                       "for a pipeline, max_ratio_to_slowest_stage"}}});
}

TEST(PreviewConfig, Lab09PreviewsItsPipelineAgainstTheSlowestStage) {
  // The same yardstick and threshold as the graded case it previews.
  const LabConfig lab = load_lab_config(kRepoRoot / "config" / "labs" / "09_streams.yaml");
  const PerformanceSpec* preview = lab.find_performance_test("Preview.pipelined_4streams");
  const PerformanceSpec* graded = lab.find_performance_test("Performance.pipelined_2to25_4streams");
  ASSERT_NE(preview, nullptr);
  ASSERT_NE(graded, nullptr);
  EXPECT_TRUE(preview->preview);
  EXPECT_EQ(preview->visibility, Visibility::Public);
  EXPECT_EQ(preview->points, 0);
  EXPECT_EQ(preview->threshold.kind, graded->threshold.kind);
  EXPECT_DOUBLE_EQ(preview->threshold.value, graded->threshold.value);
}

TEST(PerformanceConfig, PipelineCaseReadsItsThreshold) {
  const LabConfig lab = load_lab_config(kRepoRoot / "config" / "labs" / "09_streams.yaml");
  const PerformanceSpec* spec = lab.find_performance_test("Performance.pipelined_2to25_4streams");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->threshold.kind, ThresholdKind::MaxRatioToSlowestStage);
  EXPECT_DOUBLE_EQ(spec->threshold.value, 1.15);
  ASSERT_TRUE(spec->partial_credit);
  EXPECT_DOUBLE_EQ(spec->partial_credit->zero_at, 1.60);
}

// ---- a student release's copy (labgrade release) ----------------------------------------------

TEST(ReleaseConfig, WithheldPointsCompleteTheTotal) {
  const LabConfig lab = load_lab_config(lab_fixture("release_lab"));
  ASSERT_TRUE(lab.withheld_points);
  EXPECT_DOUBLE_EQ(*lab.withheld_points, 70);
  EXPECT_DOUBLE_EQ(lab.total_points, 100);
  ASSERT_EQ(lab.tests.size(), 1u);
  ASSERT_EQ(lab.performance.size(), 1u);
}

TEST(ReleaseConfig, OrdinaryLabHasNoWithheldPoints) {
  EXPECT_FALSE(load_lab_config(lab_fixture("good_lab")).withheld_points);
}

TEST(ReleaseConfig, HiddenEntriesAreRefused) {
  expect_lab_errors("release_with_hidden",
                    {{9, 0, "tests[1].visibility", {"'Hidden.Edge' is hidden", "withheld_points", "line 5"}},
                     {11, 0, "performance[0].visibility", {"'ratio_case' is hidden", "only public entries"}}});
}

TEST(ReleaseConfig, WithheldPointsMustAddUp) {
  expect_lab_errors("release_points_mismatch",
                    {{4, 15, "total_points", {"total_points is 100", "withheld_points (75)", "add up to 95"}}});
}

PerformanceSpec spec_with(ThresholdKind kind, double value, std::optional<double> zero_at) {
  PerformanceSpec spec;
  spec.name = "case";
  spec.threshold.kind = kind;
  spec.threshold.value = value;
  if (zero_at) spec.partial_credit = PartialCredit{*zero_at};
  return spec;
}

TEST(PerformanceVerdict, RatioGetsFullCreditUpToTheThresholdThenLinear) {
  const PerformanceSpec spec = spec_with(ThresholdKind::MaxRatioToSolution, 1.1, 2.0);
  EXPECT_DOUBLE_EQ(judge(spec, {0.9, 0.88, 0.92}, "gpu").credit, 1.0);
  EXPECT_DOUBLE_EQ(judge(spec, {1.1, 1.09, 1.11}, "gpu").credit, 1.0);
  EXPECT_NEAR(judge(spec, {1.55, 1.5, 1.6}, "gpu").credit, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(judge(spec, {2.0, 1.9, 2.1}, "gpu").credit, 0.0);
  EXPECT_DOUBLE_EQ(judge(spec, {7.0, 6.0, 8.0}, "gpu").credit, 0.0);
}

TEST(PerformanceVerdict, WithoutPartialCreditItIsAllOrNothing) {
  const PerformanceSpec spec = spec_with(ThresholdKind::MaxRatioToSolution, 1.05, std::nullopt);
  EXPECT_DOUBLE_EQ(judge(spec, {1.04, 1.03, 1.05}, "gpu").credit, 1.0);
  EXPECT_DOUBLE_EQ(judge(spec, {1.06, 1.05, 1.07}, "gpu").credit, 0.0);
}

TEST(PerformanceVerdict, FractionOfPeakCreditFallsTowardsZeroAt) {
  const PerformanceSpec spec = spec_with(ThresholdKind::MinFractionOfPeakBandwidth, 0.8, 0.4);
  EXPECT_DOUBLE_EQ(judge(spec, {0.85, 0.84, 0.86}, "gpu").credit, 1.0);
  EXPECT_NEAR(judge(spec, {0.7, 0.69, 0.71}, "gpu").credit, 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(judge(spec, {0.3, 0.29, 0.31}, "gpu").credit, 0.0);
}

TEST(PerformanceVerdict, FlagsAnIntervalThatStraddlesTheLimit) {
  const PerformanceSpec spec = spec_with(ThresholdKind::MaxRatioToSolution, 1.05, std::nullopt);
  EXPECT_TRUE(judge(spec, {1.04, 1.03, 1.06}, "gpu").too_close_to_call);
  EXPECT_FALSE(judge(spec, {1.2, 1.18, 1.22}, "gpu").too_close_to_call);
}

TEST(PerformanceVerdict, AbsoluteLimitsDependOnTheDevice) {
  PerformanceSpec spec = spec_with(ThresholdKind::MaxMs, 0, std::nullopt);
  spec.threshold.max_ms_by_device = {{"NVIDIA H100 80GB HBM3", 0.5}};
  const Verdict h100 = judge(spec, {0.6, 0.59, 0.61}, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(h100.applicable);
  EXPECT_DOUBLE_EQ(h100.limit, 0.5);
  EXPECT_DOUBLE_EQ(h100.credit, 0.0);
  EXPECT_NE(h100.explanation.find("required at most 0.5 ms"), std::string::npos) << h100.explanation;
  const Verdict other = judge(spec, {9.0, 8.0, 10.0}, "Some Other GPU");
  EXPECT_FALSE(other.applicable);
  EXPECT_NE(other.explanation.find("not judged on this device"), std::string::npos) << other.explanation;
}

// Sampling may stop once the whole interval earns the same points: all of them, or none.
TEST(PerformanceVerdict, PointsAreSettledOnlyWhereTheWholeIntervalEarnsAllOrNone) {
  const PerformanceSpec ratio = spec_with(ThresholdKind::MaxRatioToSolution, 1.1, 2.0);
  EXPECT_TRUE(points_settled(ratio, {1.0, 0.95, 1.09}, "gpu"));    // full points anywhere in it
  EXPECT_TRUE(points_settled(ratio, {1.0, 0.95, 1.1}, "gpu"));     // the limit itself earns them all
  EXPECT_FALSE(points_settled(ratio, {1.05, 1.0, 1.11}, "gpu"));   // straddles the limit
  EXPECT_FALSE(points_settled(ratio, {1.5, 1.45, 1.55}, "gpu"));   // partial credit still moves within it
  EXPECT_TRUE(points_settled(ratio, {2.3, 2.05, 2.6}, "gpu"));     // none anywhere in it
  EXPECT_FALSE(points_settled(ratio, {2.1, 1.95, 2.2}, "gpu"));    // straddles zero_at
  const PerformanceSpec all_or_nothing = spec_with(ThresholdKind::MaxRatioToSolution, 1.05, std::nullopt);
  EXPECT_TRUE(points_settled(all_or_nothing, {1.2, 1.1, 1.3}, "gpu"));
  EXPECT_FALSE(points_settled(all_or_nothing, {1.05, 1.0, 1.1}, "gpu"));
  // Higher is better for a fraction of peak.
  const PerformanceSpec peak = spec_with(ThresholdKind::MinFractionOfPeakBandwidth, 0.85, 0.4);
  EXPECT_TRUE(points_settled(peak, {0.93, 0.9, 0.95}, "gpu"));
  EXPECT_FALSE(points_settled(peak, {0.86, 0.84, 0.88}, "gpu"));
  EXPECT_FALSE(points_settled(peak, {0.6, 0.55, 0.65}, "gpu"));
  EXPECT_TRUE(points_settled(peak, {0.3, 0.25, 0.35}, "gpu"));
  // Nothing at stake on a device the case has no limit for.
  PerformanceSpec absolute = spec_with(ThresholdKind::MaxMs, 0, std::nullopt);
  absolute.threshold.max_ms_by_device = {{"NVIDIA H100 80GB HBM3", 0.5}};
  EXPECT_TRUE(points_settled(absolute, {9.0, 1.0, 20.0}, "Some Other GPU"));
  EXPECT_FALSE(points_settled(absolute, {0.5, 0.45, 0.55}, "NVIDIA H100 80GB HBM3"));
}

TEST(PerformanceVerdict, AnotherMeasurementIsWorthItOnlyWithinReachOfMoreCredit) {
  const PerformanceSpec ratio = spec_with(ThresholdKind::MaxRatioToSolution, 1.1, 2.0);
  // 1.129x of the solution (97% of the points) is 1.1x or less if the measurement was 15% high.
  EXPECT_TRUE(could_earn_more_within(ratio, judge(ratio, {1.129, 1.11, 1.134}, "gpu"), 0.15, "gpu"));
  EXPECT_FALSE(could_earn_more_within(ratio, judge(ratio, {1.05, 1.04, 1.06}, "gpu"), 0.15, "gpu"));  // full points
  EXPECT_FALSE(could_earn_more_within(ratio, judge(ratio, {2.5, 2.4, 2.6}, "gpu"), 0.15, "gpu"));     // 2.17x: still 0
  const PerformanceSpec all_or_nothing = spec_with(ThresholdKind::MaxRatioToSolution, 1.05, std::nullopt);
  EXPECT_TRUE(could_earn_more_within(all_or_nothing, judge(all_or_nothing, {1.2, 1.18, 1.22}, "gpu"), 0.15, "gpu"));
  EXPECT_FALSE(could_earn_more_within(all_or_nothing, judge(all_or_nothing, {1.3, 1.28, 1.32}, "gpu"), 0.15, "gpu"));
  // Higher is better for a fraction of peak: 0.72 of peak reaches 0.8 when 15% low.
  const PerformanceSpec peak = spec_with(ThresholdKind::MinFractionOfPeakBandwidth, 0.8, std::nullopt);
  EXPECT_TRUE(could_earn_more_within(peak, judge(peak, {0.72, 0.71, 0.73}, "gpu"), 0.15, "gpu"));
  EXPECT_FALSE(could_earn_more_within(peak, judge(peak, {0.6, 0.59, 0.61}, "gpu"), 0.15, "gpu"));
  // A limit that does not apply on this device has nothing to gain.
  PerformanceSpec absolute = spec_with(ThresholdKind::MaxMs, 0, std::nullopt);
  EXPECT_FALSE(could_earn_more_within(absolute, judge(absolute, {9.0, 8.0, 10.0}, "gpu"), 0.15, "gpu"));
}

TEST(PerformanceVerdict, ExplainsTheFiguresBehindTheVerdict) {
  const PerformanceSpec spec = spec_with(ThresholdKind::MaxRatioToSolution, 1.1, 2.0);
  EXPECT_EQ(judge(spec, {1.55, 1.5, 1.6}, "gpu").explanation,
            "1.550x the solution's time (95% CI 1.500-1.600); required at most 1.1x: 50% of the points");
}

}  // namespace
}  // namespace cudalabs::config

// ---- sanitizer: ----------------------------------------------------------------------------

namespace {

TEST(SanitizerConfig, RequiredIsReadAndOffByDefault) {
  EXPECT_TRUE(load_lab_config(lab_fixture("sanitizer_lab")).sanitizer.required);
  EXPECT_FALSE(load_lab_config(lab_fixture("minimal_lab")).sanitizer.required);
  // The course's own lab leaves it off: the sanitizer pass would slow every grade.
  EXPECT_FALSE(load_lab_config(kRepoRoot / "config" / "labs" / "01_vector_add.yaml").sanitizer.required);
}

TEST(ReferenceTargets, AreReadAndEveryCourseLabStatesItsOwn) {
  const LabConfig lab = load_lab_config(lab_fixture("reference_targets_lab"));
  ASSERT_EQ(lab.reference_targets.size(), 2u);
  EXPECT_EQ(lab.reference_targets[0].name, "gray");
  EXPECT_EQ(lab.reference_targets[0].baseline, "copy_bandwidth");
  EXPECT_DOUBLE_EQ(lab.reference_targets[1].at_least, 0.95);
  EXPECT_TRUE(load_lab_config(lab_fixture("minimal_lab")).reference_targets.empty());
  // Handouts and benches cite these; the repository must hold every lab's bar.
  for (const auto& entry : std::filesystem::directory_iterator(kRepoRoot / "config" / "labs")) {
    EXPECT_FALSE(load_lab_config(entry.path()).reference_targets.empty()) << entry.path();
  }
}

TEST(ReferenceTargets, BadEntriesAreReportedWithTheirPlace) {
  expect_lab_errors("bad_reference_targets",
                    {{6, 28, "reference_targets[0].baseline", {"copy_bandwidth"}},
                     {7, 42, "reference_targets[1].at_least", {"positive"}},
                     {7, 46, "reference_targets[1].by", {"unknown key 'by'"}}});
}

TEST(KernelRequirementsConfig, AreReadInOrder) {
  const auto lab = load_lab_config(lab_fixture("kernels_lab"));
  ASSERT_EQ(lab.kernels.size(), 2u);
  EXPECT_EQ(lab.kernels[0].kernel, "transpose_coalesced_kernel");
  EXPECT_EQ(lab.kernels[0].uses, "shared_memory");
  EXPECT_EQ(lab.kernels[0].why, "stage the tile in shared memory (step 2)");
  EXPECT_EQ(lab.kernels[1].uses, "no_spills");
  EXPECT_TRUE(load_lab_config(lab_fixture("minimal_lab")).kernels.empty());
}

TEST(KernelRequirementsConfig, UnknownUseAndMissingWhyAreReported) {
  expect_lab_errors("bad_kernels", {{6, 23, "kernels[0].uses", {"shared_memory", "no_spills"}},
                                    {7, 5, "kernels[1].why", {"missing required key 'why'"}}});
}

TEST(SanitizerConfig, SkipNamesTestsOfTheLab) {
  EXPECT_TRUE(load_lab_config(lab_fixture("sanitizer_lab")).sanitizer.skip.empty());
  const LabConfig matmul = load_lab_config(kRepoRoot / "config" / "labs" / "03_matmul.yaml");
  EXPECT_EQ(matmul.sanitizer.skip, (std::vector<std::string>{"Matmul.Largest4096", "MatmulTiled.Largest4096"}));
  EXPECT_FALSE(matmul.sanitizer.required);
  expect_lab_errors("bad_sanitizer_skip",
                    {{5, 33, "sanitizer.skip[1]", {"'Basic.Wroks' is not one of this lab's tests", "Basic.Works"}}});
}

TEST(SanitizerConfig, BadValueAndUnknownSubKeyAreReported) {
  expect_lab_errors("bad_sanitizer", {{5, 23, "sanitizer.required", {"expected true or false", "'yes'"}},
                                      {5, 28, "sanitizer.tools", {"unknown key 'tools'"}}});
}

}  // namespace
