// The sanitizer pass's rounds (run/sanitizer_pass.cpp), driven with the fake harness of
// test_child.cpp, which keeps tool logs the way the judge does (judge.cpp): which test each finding
// lands in, and when a shard runs again with a runner per test.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run/sanitizer_pass.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTests = {"A.one", "B.two", "C.three", "D.four"};

class SanitizerPass : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("labgrade-sanitizer-pass-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("CUDALABS_SANITIZER_JOBS", "1", 1);  // one shard per tool: a predictable count of runs
    // The machine-wide run slots of this test alone: a real sanitizer run elsewhere on the
    // machine (a GPU test under ctest -j4) must not hold these tests up.
    ::setenv("CUDALABS_LOCK_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("CUDALABS_SANITIZER_JOBS");
    ::unsetenv("CUDALABS_LOCK_DIR");
    fs::remove_all(dir_);
  }

  std::map<std::string, std::vector<SanitizerFinding>> pass(std::vector<std::pair<std::string, std::string>> env,
                                                            const std::vector<std::string>& tools = kSanitizerTools) {
    HarnessInvocation normal;
    normal.harness = LABGRADE_TEST_CHILD;
    normal.working_dir = dir_;
    normal.test_timeout_seconds = 5;
    normal.env = std::move(env);
    normal.env.emplace_back("FAKE_TOOL_RUNS", (dir_ / "runs").string());
    // The sanitizer itself never runs here: labgrade hands its words to the judge (the fake).
    return run_sanitizer_pass(normal, "/nonexistent/compute-sanitizer", kTests, StudentCode::in_runners, {}, {},
                              tools);
  }

  // The harness processes the pass started, by kind ("spanning" or "per test").
  std::map<std::string, int> runs() const {
    std::map<std::string, int> count;
    std::ifstream in(dir_ / "runs");
    for (std::string line; std::getline(in, line);) ++count[line];
    return count;
  }

  fs::path dir_;
};

// Whether `test`'s finding of `tool` is clean, and its excerpt.
const SanitizerFinding& finding(const std::map<std::string, std::vector<SanitizerFinding>>& found,
                                const std::string& test, const std::string& tool) {
  static const SanitizerFinding none;
  const auto of_test = found.find(test);
  if (of_test == found.end()) return none;
  for (const SanitizerFinding& f : of_test->second) {
    if (f.tool == tool) return f;
  }
  return none;
}

TEST_F(SanitizerPass, ACompleteShardKeepsEachTestsFindingsWithoutRunningAgain) {
  const auto found = pass({{"FAKE_TOOL_REPORTS", "B.two,D.four"}});
  for (const std::string tool : {"memcheck", "racecheck"}) {
    for (const std::string& test : kTests) {
      const SanitizerFinding& f = finding(found, test, tool);
      EXPECT_TRUE(f.completed) << test << " " << tool << ": " << f.excerpt;
      const bool reported = test == "B.two" || test == "D.four";
      EXPECT_EQ(f.clean, !reported) << test << " " << tool << ": " << f.excerpt;
      if (reported) {
        EXPECT_EQ(f.errors, 1) << test;
        EXPECT_NE(f.excerpt.find("in " + test), std::string::npos) << test << ": " << f.excerpt;  // its own report
      }
    }
  }
  EXPECT_EQ(runs(), (std::map<std::string, int>{{"spanning", 2}}));  // one run per tool, none again
}

TEST_F(SanitizerPass, AToolLeftOutStartsNoRunAndHasNoFinding) {
  // racecheck left out (kernels without shared memory: stages.cpp says why in its own finding).
  const auto found = pass({{"FAKE_TOOL_REPORTS", "B.two"}}, {kMemcheck});
  for (const std::string& test : kTests) {
    ASSERT_EQ(found.at(test).size(), 1u) << test;
    EXPECT_EQ(found.at(test)[0].tool, kMemcheck);
    EXPECT_EQ(found.at(test)[0].clean, test != "B.two") << test;
  }
  EXPECT_EQ(runs(), (std::map<std::string, int>{{"spanning", 1}}));  // memcheck's run only
  EXPECT_TRUE(pass({}, {}).empty());                                   // no tool: nothing runs
  EXPECT_THROW(pass({}, {"initcheck"}), std::invalid_argument);         // not one of the pass's tools
}

TEST_F(SanitizerPass, ARunnerThatDiesRunsOnlyItsTestAgain) {
  // C.three's runner dies mid-test under both tools (its log in the spanning round has no
  // summary): that test alone runs again, a runner of its own per tool; the others keep the
  // findings of the first round.
  const auto found = pass({{"FAKE_TOOL_REPORTS", "B.two"}, {"FAKE_SCRIPT", "C.three=segv"}});
  for (const std::string tool : {"memcheck", "racecheck"}) {
    EXPECT_TRUE(finding(found, "A.one", tool).clean) << tool;
    const SanitizerFinding& reported = finding(found, "B.two", tool);
    EXPECT_TRUE(reported.completed && !reported.clean && reported.errors == 1) << tool << ": " << reported.excerpt;
    EXPECT_NE(reported.excerpt.find("in B.two"), std::string::npos) << reported.excerpt;
    EXPECT_EQ(finding(found, "C.three", tool).tool, tool);  // from its runner of its own
    EXPECT_TRUE(finding(found, "D.four", tool).clean) << tool;
    for (const std::string& test : kTests) EXPECT_EQ(found.at(test).size(), 2u) << test;  // one finding per tool
  }
  const std::map<std::string, int> count = runs();
  EXPECT_EQ(count.count("per test") ? count.at("per test") : 0, 2) << "only C.three, once per tool";
}

TEST_F(SanitizerPass, AReportWhileEachRunnerStartsReachesEveryTest) {
  const auto found = pass({{"FAKE_TOOL_REPORTS", "@start"}});
  for (const std::string& test : kTests) {
    const SanitizerFinding& f = finding(found, test, "memcheck");
    EXPECT_TRUE(f.completed && !f.clean) << test << ": " << f.excerpt;
    EXPECT_NE(f.excerpt.find("Sanitizer will be disabled"), std::string::npos) << test << ": " << f.excerpt;
  }
  EXPECT_EQ(runs(), (std::map<std::string, int>{{"spanning", 2}}));
}

TEST_F(SanitizerPass, AReportInNoTestsLogRunsTheShardAgainARunnerPerTest) {
  const auto found = pass({{"FAKE_TOOL_ORPHAN", "1"}});
  for (const std::string& test : kTests) {
    const SanitizerFinding& f = finding(found, test, "memcheck");
    EXPECT_TRUE(f.completed && !f.clean) << test << ": " << f.excerpt;
  }
  const std::map<std::string, int> count = runs();
  EXPECT_EQ(count.at("spanning"), 2);
  EXPECT_GE(count.count("per test") ? count.at("per test") : 0, 2);  // each tool's tests again
}

TEST_F(SanitizerPass, AnUnfinishedLogInNoTestsNameRunsTheShardAgain) {
  // Its report has no summary to count it, so only a runner per test can place it.
  const auto found = pass({{"FAKE_TOOL_ORPHAN", "unfinished"}});
  for (const std::string& test : kTests) {
    const SanitizerFinding& f = finding(found, test, "memcheck");
    EXPECT_TRUE(f.completed && !f.clean) << test << ": " << f.excerpt;
  }
  EXPECT_GE(runs().count("per test") ? runs().at("per test") : 0, 2);
}

}  // namespace
}  // namespace labgrade
