#include "run/suite_runner.hpp"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace labgrade {
namespace {

TEST(ParseTestListing, ReadsSuitesTestsAndIgnoresComments) {
  const std::string output =
      "Running main() from gtest_main.cc\n"
      "VectorAdd.\n"
      "  ZeroLength\n"
      "  Full2To26\n"
      "Sizes/Param.  # TypeParam = int\n"
      "  Works/0  # GetParam() = 4\n";
  EXPECT_EQ(parse_test_listing(output),
            (std::vector<std::string>{"VectorAdd.ZeroLength", "VectorAdd.Full2To26", "Sizes/Param.Works/0"}));
}

// A deferred run's stretched time-out: a time-out says both figures on the line a reader sees
// first; a pass that needed more than the lab's time-out is not believed there but run again
// alone; other outcomes, and unstretched runs, are left as they are.
TEST(HoldToTheLabsTimeOut, ExplainsStretchedTimeOutsAndSendsLatePassesToRunAlone) {
  SuiteRun run;
  run.outcomes = {{"Saxpy.Hangs", TestStatus::TimedOut, "timed out: no result after 25 s\nLast output:\nx", 25},
                  {"Saxpy.Fails", TestStatus::Failed, "expected 1, got 2", 0.1},
                  {"Saxpy.PassesLate", TestStatus::Passed, "", 31.0},
                  {"Saxpy.PassesInTime", TestStatus::Passed, "", 19.0}};
  SuiteRun unstretched = run;
  hold_to_the_labs_time_out(unstretched, 20, 20);
  for (std::size_t i = 0; i < run.outcomes.size(); ++i) {
    EXPECT_EQ(unstretched.outcomes[i].status, run.outcomes[i].status);
    EXPECT_EQ(unstretched.outcomes[i].message, run.outcomes[i].message);
  }

  hold_to_the_labs_time_out(run, 20, 25);
  const std::string& hung = run.outcomes[0].message;
  const std::string first_line = hung.substr(0, hung.find('\n'));
  EXPECT_NE(first_line.find("time-out of 20 s was stretched to 25 s"), std::string::npos) << hung;
  EXPECT_EQ(hung.substr(hung.find('\n')), "\nLast output:\nx");
  EXPECT_EQ(run.outcomes[1].status, TestStatus::Failed);
  EXPECT_EQ(run.outcomes[1].message, "expected 1, got 2");
  const TestOutcome& late = run.outcomes[2];
  EXPECT_EQ(late.status, TestStatus::TimedOut);
  EXPECT_TRUE(late.neighbour_may_have_caused) << "the second part runs it again alone";
  EXPECT_NE(late.message.find("passed after 31.0 s"), std::string::npos) << late.message;
  EXPECT_EQ(run.outcomes[3].status, TestStatus::Passed);
  EXPECT_FALSE(run.outcomes[3].neighbour_may_have_caused);
}

// Drives run_tests with the fake harness in test_child.cpp.
class RunTests : public ::testing::Test {
 protected:
  SuiteRun run(const std::string& script, const std::vector<std::string>& tests, double timeout = 5,
               std::uint64_t host_memory_bytes = 0, std::vector<std::pair<std::string, std::string>> env = {},
               const GpuAloneHook& gpu_alone = {}) {
    HarnessInvocation invocation;
    invocation.harness = LABGRADE_TEST_CHILD;
    invocation.env = std::move(env);
    invocation.env.emplace_back("FAKE_SCRIPT", script);
    invocation.test_timeout_seconds = timeout;
    invocation.limits.max_data_bytes = host_memory_bytes;
    return run_tests(invocation, tests, gpu_alone);
  }
  // The fake harness running `script`, its result channel watched for `quiet` seconds of silence
  // (a batch's first part).
  static HarnessInvocation watched(const std::string& script, double timeout, double quiet) {
    HarnessInvocation invocation;
    invocation.harness = LABGRADE_TEST_CHILD;
    invocation.env.emplace_back("FAKE_SCRIPT", script);
    invocation.test_timeout_seconds = timeout;
    invocation.quiet_seconds = quiet;
    return invocation;
  }
};

const TestOutcome& outcome_of(const SuiteRun& run, const std::string& test) {
  for (const TestOutcome& outcome : run.outcomes) {
    if (outcome.name == test) return outcome;
  }
  throw std::out_of_range("no outcome for " + test);
}

TEST_F(RunTests, CollectsOneOutcomePerTestInOneProcess) {
  const SuiteRun result = run("B.two=fail;C.three=skip", {"A.one", "B.two", "C.three"});
  ASSERT_EQ(result.outcomes.size(), 3u);
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Failed);
  EXPECT_EQ(result.outcomes[1].message, "expected 1, got 2");
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Skipped);
  EXPECT_EQ(result.processes, 1);
  EXPECT_EQ(result.device, "Fake GPU");
}

TEST_F(RunTests, ChargesACrashToItsTestAndRunsTheRest) {
  const SuiteRun result = run("B.two=segv", {"A.one", "B.two", "C.three"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Crashed);
  EXPECT_NE(result.outcomes[1].message.find("SIGSEGV"), std::string::npos) << result.outcomes[1].message;
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Passed);
  EXPECT_EQ(result.processes, 2);
}

// A device seen by one process and not by the next (after a crash) is no device for the run:
// labgrade then checks in a process of its own whether the code hid it (session/stages.cpp).
TEST_F(RunTests, AProcessThatFindsNoDeviceMakesTheRunDeviceless) {
  const std::string marker = ::testing::TempDir() + "/run_tests_device_gone";
  std::remove(marker.c_str());
  const SuiteRun result = run("B.two=segv", {"A.one", "B.two", "C.three"}, 5, 0, {{"FAKE_DEVICE_GONE_AFTER", marker}});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Crashed);
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Skipped);
  EXPECT_EQ(result.processes, 2);
  EXPECT_FALSE(result.cuda_device);
  EXPECT_EQ(result.no_device_reason, "no CUDA device: hidden");
  EXPECT_EQ(result.device, "Fake GPU");
  std::remove(marker.c_str());
}

TEST_F(RunTests, ChargesAHangToItsTestAndRunsTheRest) {
  const SuiteRun result = run("A.one=hang", {"A.one", "B.two"}, 0.5);
  EXPECT_EQ(result.outcomes[0].status, TestStatus::TimedOut);
  EXPECT_NE(result.outcomes[0].message.find("timed out"), std::string::npos) << result.outcomes[0].message;
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Passed);
}

// A batch's correctness slot goes once a harness has gone quiet (session/stages.cpp): said once
// for the hanging test's process, not for the process that runs the tests after it and ends.
TEST_F(RunTests, AHarnessGoneQuietIsToldBeforeItsTimeOut) {
  HarnessInvocation invocation = watched("A.one=hang", 1.0, 0.2);
  int said = 0;
  invocation.on_quiet = [&] { ++said; };
  const SuiteRun result = run_tests(invocation, {"A.one", "B.two"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::TimedOut);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Passed);
  EXPECT_EQ(result.processes, 2);
  EXPECT_EQ(said, 1);
}

// In a batch's first part, a harness gone quiet is ended and its test, with those it had not
// reached, left for a later run (stages.cpp rerun_deferred_tests): NotRun here, never charged.
TEST_F(RunTests, AQuietHarnessLeavesItsTestAndThoseAfterItForLaterWhenAsked) {
  HarnessInvocation invocation = watched("B.two=hang", 5.0, 0.2);
  invocation.defer_quiet_tests = true;
  const auto started = std::chrono::steady_clock::now();
  const SuiteRun result = run_tests(invocation, {"A.one", "B.two", "C.three"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 3.0);
  EXPECT_EQ(result.processes, 1);
  EXPECT_EQ(result.deferred, (std::vector<std::string>{"B.two", "C.three"}));
  ASSERT_EQ(result.outcomes.size(), 3u);
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  for (const char* test : {"B.two", "C.three"}) {
    const TestOutcome& later = outcome_of(result, test);
    EXPECT_EQ(later.status, TestStatus::NotRun) << test;
    EXPECT_NE(later.message.find("not run yet"), std::string::npos) << later.message;
  }

  invocation.defer_quiet_tests = false;  // as before: the hang waits out its time-out, the rest go on
  invocation.test_timeout_seconds = 1.0;
  const SuiteRun charged = run_tests(invocation, {"A.one", "B.two", "C.three"});
  EXPECT_TRUE(charged.deferred.empty());
  EXPECT_EQ(outcome_of(charged, "B.two").status, TestStatus::TimedOut);
  EXPECT_EQ(outcome_of(charged, "C.three").status, TestStatus::Passed);
}

TEST_F(RunTests, ALostContextFailsThatTestAndRestartsForTheOthers) {
  const SuiteRun result = run("A.one=lose", {"A.one", "B.two"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Crashed);
  EXPECT_NE(result.outcomes[0].message.find("cudaErrorIllegalAddress"), std::string::npos) << result.outcomes[0].message;
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Passed);
  EXPECT_EQ(result.processes, 2);
}

TEST_F(RunTests, ALostContextReportedAfterTheTestEndedStillFailsIt) {
  const SuiteRun result = run("A.one=lose-after-end", {"A.one", "B.two"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Crashed);
  EXPECT_NE(result.outcomes[0].message.find("cudaErrorIllegalAddress"), std::string::npos) << result.outcomes[0].message;
  EXPECT_NE(result.outcomes[0].message.find("cudaDeviceSynchronize failed"), std::string::npos);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Passed);
}

TEST_F(RunTests, ATestThatLeakedDeviceMemoryFailsAndTheRestRunInAFreshProcess) {
  const SuiteRun result = run("B.two=leak", {"A.one", "B.two", "C.three"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Failed);
  EXPECT_NE(result.outcomes[1].message.find("left 81920 MiB of device memory allocated"), std::string::npos)
      << result.outcomes[1].message;
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Passed);
  EXPECT_EQ(result.processes, 2);
}

TEST_F(RunTests, ATestPastTheHostMemoryLimitFailsAndTheRestRunInAFreshProcess) {
  const SuiteRun result = run("B.two=host-memory", {"A.one", "B.two", "C.three"});
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Failed);
  EXPECT_NE(result.outcomes[1].message.find("used more than 16 GiB of host memory"), std::string::npos)
      << result.outcomes[1].message;
  EXPECT_NE(result.outcomes[1].message.find("peaked at 19.0 GiB"), std::string::npos) << result.outcomes[1].message;
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Passed);
  EXPECT_EQ(result.processes, 2);
}

TEST_F(RunTests, BadAllocUnderTheLimitIsExplained) {
  const SuiteRun result = run("A.one=bad-alloc", {"A.one", "B.two"}, 5, 16ull << 30);
  EXPECT_EQ(result.outcomes[0].status, TestStatus::Failed);
  EXPECT_NE(result.outcomes[0].message.find("used more than 16 GiB of host memory"), std::string::npos)
      << result.outcomes[0].message;
  EXPECT_NE(result.outcomes[0].message.find("std::bad_alloc"), std::string::npos);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Passed);
}

TEST_F(RunTests, ACrashAtTheHostMemoryLimitIsChargedAsSuch) {
  const std::uint64_t limit = 80ull << 20;  // the child touches 70 MiB, then crashes
  const SuiteRun result = run("B.two=hog-then-segv", {"A.one", "B.two", "C.three"}, 5, limit);
  EXPECT_EQ(result.outcomes[1].status, TestStatus::Crashed);
  EXPECT_NE(result.outcomes[1].message.find("used more than 0.078125 GiB of host memory"), std::string::npos)
      << result.outcomes[1].message;
  EXPECT_NE(result.outcomes[1].message.find("SIGSEGV"), std::string::npos) << result.outcomes[1].message;
  EXPECT_EQ(result.outcomes[2].status, TestStatus::Passed);
  // An ordinary crash is not blamed on memory.
  const SuiteRun plain = run("B.two=segv", {"A.one", "B.two"}, 5, limit);
  EXPECT_EQ(plain.outcomes[1].message.find("host memory"), std::string::npos) << plain.outcomes[1].message;
}

// What a grade that shared the GPU runs again alone (session/stages.cpp): only outcomes another
// process's memory use could explain.
TEST_F(RunTests, MarksOnlyOutcomesANeighbourCouldHaveCaused) {
  const SuiteRun result =
      run("A.one=fail;B.two=fail-oom;C.three=segv;D.four=sigkill;E.five=lose;F.six=bad-alloc;G.seven=pass",
          {"A.one", "B.two", "C.three", "D.four", "E.five", "F.six", "G.seven"});
  ASSERT_EQ(result.outcomes.size(), 7u);
  std::map<std::string, bool> marked;
  for (const TestOutcome& outcome : result.outcomes) marked[outcome.name] = outcome.neighbour_may_have_caused;
  EXPECT_FALSE(marked["A.one"]) << "a wrong value is the code's own";
  EXPECT_TRUE(marked["B.two"]) << "the device may have been full of a neighbour's memory";
  EXPECT_FALSE(marked["C.three"]) << "a crash is the code's own";
  EXPECT_TRUE(marked["D.four"]) << "SIGKILL not sent by labgrade: the OOM killer";
  EXPECT_FALSE(marked["E.five"]) << "a broken context is the code's own";
  EXPECT_FALSE(marked["F.six"]) << "the host-memory limit is per process";
  EXPECT_FALSE(marked["G.seven"]);
  EXPECT_EQ(result.outcomes[3].status, TestStatus::Crashed);
}

// The reference's runners run the trusted solution: their failure is the machine's doing (a
// neighbour's memory, a slow start), so the test runs again alone; a failure of the student's is
// not, even when its runner's error text (which the message carries) copies the reference's words.
TEST_F(RunTests, MarksAFailedReferenceRunnerButNotTheStudents) {
  const SuiteRun result = run("A.one=fail-reference;B.two=fail-student", {"A.one", "B.two"});
  ASSERT_EQ(result.outcomes.size(), 2u);
  EXPECT_TRUE(result.outcomes[0].neighbour_may_have_caused) << result.outcomes[0].message;
  EXPECT_FALSE(result.outcomes[1].neighbour_may_have_caused) << result.outcomes[1].message;
}

// One harness for the correctness tests and the timed cases. It first asks for the GPU alone at
// once; when the hook cannot take it without waiting ("busy"), the harness (the real one ends the
// student's runner here) asks again and waits until the hook returns, however long that takes,
// and the time-out between two results does not count the wait.
TEST_F(RunTests, TimedCasesWaitInTheSameProcessUntilTheGpuAloneHookReturns) {
  std::vector<bool> asked;
  const SuiteRun result = run("", {"A.one", "Performance.x", "Performance.y"}, 0.5, 0, {}, [&](bool at_once) {
    asked.push_back(at_once);
    if (at_once) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    return true;
  });
  EXPECT_EQ(asked, (std::vector<bool>{true, false}));
  EXPECT_EQ(result.processes, 1);
  for (const auto& outcome : result.outcomes) EXPECT_EQ(outcome.status, TestStatus::Passed) << outcome.name;
  EXPECT_EQ(outcome_of(result, "A.one").message, "");
  EXPECT_EQ(outcome_of(result, "Performance.x").message, "alone after busy, then go");
  EXPECT_EQ(outcome_of(result, "Performance.y").message, "");
}

// When the hook takes the GPU at once, the harness is told so and asks nothing more.
TEST_F(RunTests, AGpuTakenAtOnceIsOneQuestion) {
  std::vector<bool> asked;
  const SuiteRun result = run("", {"A.one", "Performance.x"}, 5, 0, {}, [&](bool at_once) {
    asked.push_back(at_once);
    return true;
  });
  EXPECT_EQ(asked, (std::vector<bool>{true}));
  EXPECT_EQ(outcome_of(result, "Performance.x").status, TestStatus::Passed);
  EXPECT_EQ(outcome_of(result, "Performance.x").message, "alone at once");
}

// A harness that crashed in a timed case: the next one asks again before its first timed case
// (the hook returns at once when the GPU is already held alone).
TEST_F(RunTests, AHarnessStartedAfterACrashAsksForTheGpuAloneAgain) {
  int calls = 0;
  const SuiteRun result = run("Performance.x=segv", {"A.one", "Performance.x", "Performance.y"}, 5, 0, {},
                              [&](bool) {
                                ++calls;
                                return true;
                              });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(result.processes, 2);
  EXPECT_EQ(outcome_of(result, "Performance.x").status, TestStatus::Crashed);
  EXPECT_EQ(outcome_of(result, "Performance.y").status, TestStatus::Passed);
  EXPECT_EQ(outcome_of(result, "Performance.y").message, "alone at once");
}

// An answer to a harness that is gone fails quietly: labgrade is not ended by SIGPIPE, and the
// tests the harness never started are charged as before.
TEST_F(RunTests, AnAnswerToAHarnessThatExitedDoesNotEndLabgrade) {
  int calls = 0;
  const SuiteRun result = run("", {"A.one", "Performance.x"}, 5, 0, {{"FAKE_EXIT_AFTER_GPU_ALONE", "1"}}, [&](bool) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the harness is gone by now
    return true;
  });
  EXPECT_GE(calls, 1);
  EXPECT_EQ(outcome_of(result, "A.one").status, TestStatus::Passed);
  EXPECT_EQ(outcome_of(result, "Performance.x").status, TestStatus::Crashed);
  EXPECT_NE(outcome_of(result, "Performance.x").message.find("exited with code 3"), std::string::npos)
      << outcome_of(result, "Performance.x").message;
}

// Without a hook the harness is given no answering pipe, and does not wait.
TEST_F(RunTests, WithoutAGpuAloneHookTheHarnessDoesNotWait) {
  const SuiteRun result = run("", {"A.one", "Performance.x"});
  EXPECT_EQ(outcome_of(result, "Performance.x").status, TestStatus::Passed);
  EXPECT_EQ(outcome_of(result, "Performance.x").message, "");
}

TEST_F(RunTests, EveryTestCrashingStillEnds) {
  const SuiteRun result = run("A.one=segv;B.two=segv;C.three=segv", {"A.one", "B.two", "C.three"});
  for (const auto& outcome : result.outcomes) EXPECT_EQ(outcome.status, TestStatus::Crashed) << outcome.name;
  EXPECT_EQ(result.processes, 3);
}

}  // namespace
}  // namespace labgrade
