// The sanitizer pass's host side: reading compute-sanitizer's report and scoring with it.
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <optional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "run/sanitizer_pass.hpp"

namespace labgrade {
namespace {

// What compute-sanitizer (CUDA 12/13) prints around the harness's own output.
const std::string kMemcheckOutput = R"(========= COMPUTE-SANITIZER
Running main() from gtest_main.cc
[==========] Running 1 test from 1 test suite.
[ RUN      ] VectorAdd.LargePrime
========= Invalid __global__ write of size 4 bytes
=========     at student::(anonymous namespace)::vector_add_kernel(const float *, const float *, float *, unsigned long)+0x1b0
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f1c00000000 is out of bounds
=========     and is 274877906944 bytes after the nearest allocation at 0x7f0c00200000 of size 4000012 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f8c5f] in libcuda.so.1
=========         Host Frame: student::vector_add(float const*, float const*, float*, unsigned long, CUstream_st*) [0x1a2b] in liblab_01_vector_add_student.so
=========
========= Invalid __global__ write of size 4 bytes
=========     at student::(anonymous namespace)::vector_add_kernel(const float *, const float *, float *, unsigned long)+0x1b0
=========     by thread (1,0,0) in block (0,0,0)
=========     Address 0x7f1c00000004 is out of bounds
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========
[  FAILED  ] VectorAdd.LargePrime (812 ms)
========= ERROR SUMMARY: 3 errors
)";

const std::string kRacecheckOutput = R"(========= COMPUTE-SANITIZER
[ RUN      ] VectorAdd.SingleElement
[       OK ] VectorAdd.SingleElement (40 ms)
========= Error: Race reported between Write access at student::(anonymous namespace)::vector_add_kernel(const float *, const float *, float *, unsigned long)+0xf0
=========     and Read access at student::(anonymous namespace)::vector_add_kernel(const float *, const float *, float *, unsigned long)+0x130 [248 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

TEST(SanitizerFindings, MemcheckErrorsAndTheirFirstLines) {
  const SanitizerFinding finding = parse_sanitizer_output("memcheck", kMemcheckOutput);
  EXPECT_EQ(finding.tool, "memcheck");
  EXPECT_TRUE(finding.completed);
  EXPECT_FALSE(finding.clean);
  EXPECT_EQ(finding.errors, 3);
  EXPECT_NE(finding.excerpt.find("Invalid __global__ write of size 4 bytes"), std::string::npos) << finding.excerpt;
  EXPECT_NE(finding.excerpt.find("vector_add_kernel"), std::string::npos);
  EXPECT_NE(finding.excerpt.find("ERROR SUMMARY: 3 errors"), std::string::npos);
  // Neither the banner, the host frames nor the harness's own lines.
  EXPECT_EQ(finding.excerpt.find("COMPUTE-SANITIZER"), std::string::npos);
  EXPECT_EQ(finding.excerpt.find("Host Frame"), std::string::npos);
  EXPECT_EQ(finding.excerpt.find("[ RUN"), std::string::npos);
  EXPECT_EQ(summarize(finding), "memcheck: 3 errors");
}

TEST(SanitizerFindings, RacecheckSummaryCountsErrorsNotWarnings) {
  const SanitizerFinding finding = parse_sanitizer_output("racecheck", kRacecheckOutput);
  EXPECT_TRUE(finding.completed);
  EXPECT_FALSE(finding.clean);
  EXPECT_EQ(finding.errors, 1);
  EXPECT_NE(finding.excerpt.find("Race reported between Write access"), std::string::npos) << finding.excerpt;
  EXPECT_NE(finding.excerpt.find("1 hazard displayed"), std::string::npos);
  const SanitizerFinding warnings_only = parse_sanitizer_output(
      "racecheck", "========= RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)\n");
  EXPECT_TRUE(warnings_only.clean);
}

TEST(SanitizerFindings, CleanRunAndUnfinishedRun) {
  const SanitizerFinding clean =
      parse_sanitizer_output("memcheck", "========= COMPUTE-SANITIZER\n[  PASSED  ] 1 test.\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.completed);
  EXPECT_TRUE(clean.clean);
  EXPECT_EQ(summarize(clean), "memcheck: clean");
  const SanitizerFinding cut = parse_sanitizer_output("memcheck", "========= COMPUTE-SANITIZER\n[ RUN      ] A.B\n");
  EXPECT_FALSE(cut.completed);
  EXPECT_FALSE(cut.clean);
  EXPECT_EQ(summarize(cut), "memcheck: did not finish");
}

TEST(SanitizerFindings, AToolNotNeededIsCleanAndSaysWhy) {
  const SanitizerFinding skipped = not_needed_finding("racecheck", "not run: no shared memory");
  EXPECT_TRUE(skipped.completed);
  EXPECT_TRUE(skipped.clean);
  EXPECT_EQ(skipped.errors, 0);
  EXPECT_EQ(skipped.not_needed, "not run: no shared memory");
  EXPECT_EQ(summarize(skipped), "racecheck: not needed");
}

ScoredTest passed(const std::string& name) {
  ScoredTest test;
  test.name = name;
  test.points_possible = test.points_earned = 4;
  test.outcome = TestOutcome{name, TestStatus::Passed, "", 0.1};
  return test;
}

TEST(SanitizerFindings, ErrorsCostPointsOnlyWhenRequired) {
  const std::map<std::string, std::vector<SanitizerFinding>> findings{
      {"A.Racy", {parse_sanitizer_output("memcheck", "========= ERROR SUMMARY: 0 errors\n"),
                  parse_sanitizer_output("racecheck", kRacecheckOutput)}},
      {"A.Slow", {SanitizerFinding{"memcheck", false, false, 0, "timed out", 0, ""}}},
      {"A.Clean", {parse_sanitizer_output("memcheck", "========= ERROR SUMMARY: 0 errors\n")}}};
  std::vector<ScoredTest> reported{passed("A.Racy"), passed("A.Slow"), passed("A.Clean")};
  apply_sanitizer_findings(reported, findings, false);
  for (const auto& test : reported) EXPECT_EQ(test.points_earned, 4) << test.name;
  EXPECT_EQ(reported[0].sanitizer.size(), 2u);

  std::vector<ScoredTest> graded{passed("A.Racy"), passed("A.Slow"), passed("A.Clean")};
  apply_sanitizer_findings(graded, findings, true);
  EXPECT_EQ(graded[0].points_earned, 0);
  EXPECT_EQ(graded[0].outcome.status, TestStatus::Failed);
  EXPECT_NE(graded[0].outcome.message.find("racecheck: 1 error"), std::string::npos) << graded[0].outcome.message;
  EXPECT_EQ(graded[1].points_earned, 4);  // an unfinished run is reported, never charged
  EXPECT_EQ(graded[2].points_earned, 4);
}

}  // namespace
}  // namespace labgrade

namespace labgrade {
namespace {

// Sets an environment variable for one test and puts the old value back.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(SanitizerRunsAtOnce, TheVariableSetsHowManyRunsGoSideBySide) {
  const ScopedVariable jobs("CUDALABS_SANITIZER_JOBS", "12");
  EXPECT_EQ(sanitizer_runs_at_once(), 12u);
}

TEST(SanitizerRunsAtOnce, WithoutTheVariableOnePerFourThreadsUpToTheCap) {
  const ScopedVariable jobs("CUDALABS_SANITIZER_JOBS", "");
  const unsigned threads = std::thread::hardware_concurrency();
  EXPECT_EQ(sanitizer_runs_at_once(), std::clamp(threads / 4, 1u, kDefaultMaxSanitizerRuns));
}

// Alone, a grade's tools share the runs at once by their weights (racecheck the costlier);
// beside other passes (a batch), each tool runs its tests under one start, the other grades'
// passes filling the runs.
TEST(SanitizerShards, SharedByWeightAloneOnePerToolBesideOtherGradesPasses) {
  using Counts = std::vector<std::size_t>;
  EXPECT_EQ(shards_per_tool(1, 4, {1, 3}), (Counts{1, 3}));
  EXPECT_EQ(shards_per_tool(1, 8, {1, 3}), (Counts{2, 6}));
  EXPECT_EQ(shards_per_tool(1, 3, {1, 3}), (Counts{1, 2}));
  EXPECT_EQ(shards_per_tool(1, 1, {1, 3}), (Counts{1, 1}));  // never none
  EXPECT_EQ(shards_per_tool(1, 4, {1, 1}), (Counts{2, 2}));
  EXPECT_EQ(shards_per_tool(2, 8, {1, 3}), (Counts{1, 1}));
  EXPECT_EQ(shards_per_tool(16, 4, {1, 3}), (Counts{1, 1}));
  EXPECT_EQ(kSanitizerToolWeights.size(), kSanitizerTools.size());
}

TEST(SanitizerShards, TheCostliestTestsGoToDifferentShardsInSuiteOrder) {
  const std::vector<std::string> tests{"A.Small1", "A.Full", "A.Small2", "B.Full", "B.Small", "C.New"};
  const std::map<std::string, double> seconds{{"A.Small1", 0.01}, {"A.Full", 0.5}, {"A.Small2", 0.02},
                                              {"B.Full", 0.45}, {"B.Small", 0.01}};
  const auto groups = deal_by_cost(tests, 3, seconds);
  ASSERT_EQ(groups.size(), 3u);
  // The two full-size tests and the unknown one (costed as the most known) each lead a shard.
  std::size_t total = 0;
  for (const auto& group : groups) {
    total += group.size();
    const int heavy = std::count(group.begin(), group.end(), "A.Full") + std::count(group.begin(), group.end(), "B.Full") +
                      std::count(group.begin(), group.end(), "C.New");
    EXPECT_EQ(heavy, 1) << ::testing::PrintToString(group);
    EXPECT_TRUE(std::is_sorted(group.begin(), group.end(), [&](const std::string& a, const std::string& b) {
      return std::find(tests.begin(), tests.end(), a) < std::find(tests.begin(), tests.end(), b);
    })) << ::testing::PrintToString(group);
  }
  EXPECT_EQ(total, tests.size());
  EXPECT_EQ(deal_by_cost({"X.One"}, 4, {}).size(), 1u);  // never an empty shard
  EXPECT_TRUE(deal_by_cost({}, 4, {}).empty());
}

TEST(SanitizerRunsAtOnce, ABadValueIsAnErrorNamingTheVariable) {
  for (const char* bad : {"0", "-3", "four", "8x", "100000"}) {
    const ScopedVariable jobs("CUDALABS_SANITIZER_JOBS", bad);
    try {
      sanitizer_runs_at_once();
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("CUDALABS_SANITIZER_JOBS is '" + std::string(bad) + "'"),
                std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace labgrade
