// The adversarial corpus: submissions in submissions/01_vector_add/ that try to cheat or to take
// the grader down. Each gets the verdict below, and labgrade always ends normally with a report.
// Static-rule cases run everywhere (they never reach a GPU); the others skip without a GPU.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "build/build_recipe.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/gpu_lock.hpp"
#include "labgrade_runner.hpp"
#include "model/sanitizer_findings.hpp"
#include "sandbox/process_table.hpp"

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

// ---- symbols: nothing the student defines may replace what the test program calls ---------------

// Refused before anything runs: a definition outside namespace student, named, with the fix.
void expect_definition_refused(const LabgradeRun& run, const std::string& symbol) {
  EXPECT_EQ(run.process.exit_code, kRuleViolationExit) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "rule_violation");
  EXPECT_EQ(run.report["points_earned"], 0);
  EXPECT_TRUE(run.report["build"]["succeeded"].get<bool>()) << run.report["build"]["output"];
  std::string violations;
  for (const auto& line : run.report["rule_violations"]) violations += line.get<std::string>() + "\n";
  EXPECT_CONTAINS(violations, "defining " + symbol);
  EXPECT_CONTAINS(violations, "anonymous namespace");
  for (const auto& test : run.report["tests"]) EXPECT_EQ(test["status"], "not run") << test["name"];
}

TEST(Adversarial, ItsOwnWriteCannotReplaceTheTestProgramsWrite) {
  expect_definition_refused(grade("interposes_write"), "write");
}

TEST(Adversarial, ItsOwnMemcmpAndStrlenAreRefused) {
  const LabgradeRun run = grade("interposes_memcmp");
  expect_definition_refused(run, "memcmp");
  EXPECT_CONTAINS(run.report["rule_violations"].dump(), "defining strlen");
}

TEST(Adversarial, AGlobalOperatorNewIsRefused) {
  expect_definition_refused(grade("interposes_operator_new"), "operator new(unsigned long)");
}

TEST(Adversarial, AHelperAtGlobalScopeIsNamedWithTheFix) {
  expect_definition_refused(grade("helper_outside_namespace"), "blocks_for(unsigned long)");
}

// ---- the kernel decides what a test process may touch ------------------------------------------
// The static constructors run when the harness first loads the code (listing its tests), so these
// run everywhere; only the grade itself needs a GPU.

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Graded 0 on a GPU, refused (no device) elsewhere; the raw calls and the constructor are listed
// for the instructor.
void expect_zero_and_reviewed(const LabgradeRun& run) {
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  if (has_gpu()) {
    EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
    EXPECT_EQ(run.report["status"], "graded");
    EXPECT_EQ(run.report["points_earned"], 0);
  } else {
    EXPECT_EQ(run.process.exit_code, 5) << run.process.output;
    EXPECT_TRUE(run.report["points_earned"].is_null()) << "no device: no score";
  }
  const std::string review = run.report["review"].dump();
  EXPECT_CONTAINS(review, "raw system call (syscall)");
  EXPECT_CONTAINS(review, "static constructor");
  EXPECT_CONTAINS(run.process.output, "For the instructor to review (not scored)");
}

TEST(Adversarial, AFileOutsideTheWorkDirectoryCannotBeCreatedThroughSyscall) {
  const std::string escape = "/tmp/cudalabs_adversarial_escape";
  std::filesystem::remove(escape);
  std::filesystem::remove(escape + "_dir");
  const LabgradeRun run = grade("creates_file_via_syscall");
  expect_zero_and_reviewed(run);
  EXPECT_FALSE(std::filesystem::exists(escape)) << "the sandbox let the file be created";
  EXPECT_FALSE(std::filesystem::exists(escape + "_dir")) << "the sandbox let the directory be created";
}

TEST(Adversarial, TheLabsYamlCannotBeOpenedForWriting) {
  const std::string lab_yaml = course_file("config/labs/01_vector_add.yaml");
  const std::string course_yaml = course_file("config/course.yaml");
  const std::string lab_before = file_text(lab_yaml), course_before = file_text(course_yaml);
  const LabgradeRun run = grade("writes_lab_yaml");
  expect_zero_and_reviewed(run);
  EXPECT_EQ(file_text(lab_yaml), lab_before) << "the sandbox let the lab's YAML be changed";
  EXPECT_EQ(file_text(course_yaml), course_before) << "the sandbox let course.yaml be changed";
}

TEST(Adversarial, ASocketCannotReachOut) {
  // Listen where the submission connects; afterwards nothing may be waiting to be accepted.
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(listener, 0);
  const int yes = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(47113);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool listening = ::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                         ::listen(listener, 8) == 0;
  const LabgradeRun run = grade("connects_socket");
  expect_zero_and_reviewed(run);
  if (listening) {
    EXPECT_LT(::accept(listener, nullptr, nullptr), 0) << "the submission connected to 127.0.0.1:47113";
  }
  ::close(listener);
  if (!listening) GTEST_SKIP() << "port 47113 was busy: checked only the grade";
}

// ---- host memory --------------------------------------------------------------------------------

// vector_add takes 48 GiB of host memory: each test that calls it is charged, every Saxpy passes.
void expect_vector_add_charged_for_host_memory(const LabgradeRun& run) {
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  int charged = 0;
  for (const auto& test : run.report["tests"]) {
    const std::string name = test["name"];
    if (name.find("Saxpy") != std::string::npos || name.find("saxpy") != std::string::npos) {
      if (name.rfind("Performance.", 0) != 0) {
        EXPECT_EQ(test["status"], "passed") << name;
      }
    } else {  // every other test calls vector_add (its n == 0 cases too)
      EXPECT_NE(test["status"], "passed") << name;
      EXPECT_CONTAINS(test["message"].get<std::string>(), "used more than 16 GiB of host memory");
      ++charged;
    }
  }
  EXPECT_GT(charged, 0);
  EXPECT_LT(run.report["points_earned"].get<double>(), 100);
  EXPECT_GT(run.report["points_earned"].get<double>(), 0);
}

TEST(Adversarial, FortyEightGibOfHostMemoryInChunksChargesThoseTests) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_vector_add_charged_for_host_memory(grade("hogs_host_memory"));
}

TEST(Adversarial, FortyEightGibOfHostMemoryInOneNewChargesThoseTests) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  expect_vector_add_charged_for_host_memory(grade("hogs_host_memory_new"));
}

// ---- caught while running (GPU) --------------------------------------------------------------

// The test with n = 31 (VectorAdd.OneWarpMinusOne) ended the student's runner process: only it is
// charged (the judge starts a fresh runner for the next call).
void expect_only_the_exiting_test_charged(const LabgradeRun& run) {
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  const auto& charged = test_named(run.report, "VectorAdd.OneWarpMinusOne");
  EXPECT_EQ(charged["status"], "failed");
  EXPECT_CONTAINS(charged["message"].get<std::string>(), "your code (in its runner process) hung up during vector_add");
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

// This process's descendants, each with the file name of its argv[0] (a runner that is not
// dumpable still shows its command line).
std::map<pid_t, std::string> descendants() {
  std::map<pid_t, std::string> found;
  for (const pid_t pid : with_descendants(list_processes(), {::getpid()})) {
    if (pid == ::getpid()) continue;
    std::ifstream command("/proc/" + std::to_string(pid) + "/cmdline");
    std::string argv0;
    if (!std::getline(command, argv0, '\0')) continue;  // gone meanwhile
    found[pid] = std::filesystem::path(argv0).filename().string();
  }
  return found;
}

bool runs(const std::map<pid_t, std::string>& processes, const std::string& name) {
  return std::any_of(processes.begin(), processes.end(), [&](const auto& process) { return process.second == name; });
}

std::string listed(const std::map<pid_t, std::string>& processes) {
  std::string text;
  for (const auto& [pid, name] : processes) text += std::to_string(pid) + " " + name + "\n";
  return text;
}

// A grade's judge waits for the GPU alone between its correctness tests and its timed cases,
// while another grade may be timing its own: the judge's device-idle checks charge whatever runs
// on the GPU to their student, so no process of this student's may be alive then (a runner left
// running could keep a kernel of its own spinning through the other grade's timed cases). Here
// this test is that other grade: it asks for the GPU alone while the grade's correctness tests
// run, which it gets only once the grade lets its shared hold go, and its judge, then waiting,
// must have ended the student's runner. Under ctest -j4 a third grade may hold the lock's intent
// when both ask; flock(2) then wakes its waiters in no set order, and when the grade gets the GPU
// first it is timed and done before this test holds the lock: nothing was waiting to look at, so
// that attempt says nothing and the test tries again with a fresh grade.
struct WaitingGradeSeen {
  LabgradeRun run;
  bool correctness_seen = false;  // its judge and student runner were seen running
  bool held = false;  // this test got the lock
  std::map<pid_t, std::string> while_it_waits;  // the grade's processes once this test held it
};

WaitingGradeSeen hold_the_gpu_while_a_grade_needs_it(const std::string& judge, const std::string& student_runner) {
  WaitingGradeSeen seen;
  std::thread grading([&] {
    seen.run = labgrade({"grade", "01_vector_add", "--submission", course_file("solutions/01_vector_add")});
  });
  // Its correctness tests run once the judge and the student's runner are up (the build first).
  bool correctness_running = false;
  for (const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
       !correctness_running && std::chrono::steady_clock::now() < give_up;
       std::this_thread::sleep_for(std::chrono::milliseconds(5))) {
    const auto processes = descendants();
    correctness_running = runs(processes, judge) && runs(processes, student_runner);
  }
  seen.correctness_seen = correctness_running;
  if (correctness_running) {
    cudalabs::GpuLock alone = cudalabs::GpuLock::acquire(
        0, "labgrade_cli_tests (AGradeWaitingForTheGpuAlone...)", cudalabs::GpuAccess::Exclusive);
    seen.held = alone.held();
    seen.while_it_waits = descendants();
  }
  grading.join();
  return seen;
}

TEST(Adversarial, AGradeWaitingForTheGpuAloneLeavesNoStudentProcessRunning) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  const std::string judge = "lab_01_vector_add_grade";
  const std::string student_runner = "lab_01_vector_add_student_runner";
  constexpr int kAttempts = 3;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    const WaitingGradeSeen seen = hold_the_gpu_while_a_grade_needs_it(judge, student_runner);
    const LabgradeRun& run = seen.run;
    ASSERT_TRUE(seen.correctness_seen) << "the grade's judge and student runner were never seen running:\n"
                                       << run.process.output;
    ASSERT_TRUE(seen.held) << "this test could not take the GPU lock";
    // The grade then went on as usual (machine_busy, exit code 10, when ctest's neighbours loaded the CPUs).
    EXPECT_TRUE(run.process.exit_code == 0 || run.process.exit_code == 10) << run.process.output;
    if (!runs(seen.while_it_waits, judge)) {
      std::cerr << "attempt " << attempt << ": the grade had the GPU alone before this test and was done\n";
      continue;
    }
    // The judge is still there, so the grade waits for the GPU alone (the only time its judge runs
    // without its shared hold), and it said so.
    EXPECT_CONTAINS(run.process.output, "waiting for GPU");
    EXPECT_FALSE(runs(seen.while_it_waits, student_runner))
        << "the student's runner was alive while its judge waited for the GPU alone:\n" << listed(seen.while_it_waits);
    return;
  }
  FAIL() << "in " << kAttempts << " attempts the grade never waited for this test's hold on the GPU";
}

// Code that hides the GPU from the process it runs in: in a grade that is its runner, which then
// cannot start, and every test fails saying so (the judge, which maps no student code, sees the
// GPU). Without a GPU the test program says there is none and there is no grade, as for any code.
TEST(Adversarial, HidingTheGpuFailsEveryTestInsteadOfVoidingTheGrade) {
  const LabgradeRun run = grade("hides_the_gpu");
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  const std::string review = run.report["review"].dump();
  if (!has_gpu()) {
    EXPECT_EQ(run.process.exit_code, 5) << run.process.output;
    EXPECT_EQ(run.report["status"], "no_cuda_device");
    EXPECT_EQ(review.find("the GPU hidden"), std::string::npos) << review;
    return;
  }
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  EXPECT_EQ(run.report["points_earned"], 0);
  for (const auto& test : run.report["tests"]) {
    EXPECT_EQ(test["status"], "failed") << test["name"];
    EXPECT_CONTAINS(test["message"].get<std::string>(), "your code (in its runner process) could not start: "
                                                        "initialising CUDA: cudaErrorNoDevice");
  }
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
  // Its kernel has a shared array, so racecheck ran for every test (none is "not needed").
  for (const auto& test : run.report["tests"]) {
    for (const auto& finding : test.value("sanitizer", nlohmann::json::array())) {
      EXPECT_FALSE(finding.contains("not_needed")) << test["name"] << " " << finding["tool"];
    }
  }
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
  const std::vector<std::string> skipped =
      cudalabs::config::load_lab_config(course_file("config/labs/01_vector_add.yaml")).sanitizer.skip;
  for (const auto& test : run.report["tests"]) {
    const std::string name = test["name"];
    const bool timed = name.rfind("Performance.", 0) == 0;
    const bool left_out = timed || std::find(skipped.begin(), skipped.end(), name) != skipped.end();
    EXPECT_EQ(test.contains("sanitizer"), !left_out) << name;
    // Each finding stays with its own test, though one runner serves many tests of a shard: the
    // tests that call vector_add with elements write out of bounds, no other does.
    const bool writes_out_of_bounds =
        name == "SelfCheck.VectorAddSmall" || (name.rfind("VectorAdd.", 0) == 0 && name != "VectorAdd.ZeroLength");
    if (!left_out) {
      EXPECT_EQ(findings_of(run.report, name, "memcheck").find("Invalid __global__ write") != std::string::npos,
                writes_out_of_bounds)
          << name << ": " << findings_of(run.report, name, "memcheck");
      // No shared memory in its kernels: racecheck, which finds races there only, did not run,
      // and each test says so in a clean finding.
      int racecheck = 0;
      for (const auto& finding : test["sanitizer"]) {
        if (finding["tool"] != "racecheck") continue;
        ++racecheck;
        EXPECT_TRUE(finding["clean"].get<bool>()) << name;
        EXPECT_CONTAINS(finding.value("not_needed", std::string()), "your kernels never use it");
      }
      EXPECT_EQ(racecheck, 1) << name;
    }
  }
  EXPECT_CONTAINS(run.process.output, "racecheck: not run: racecheck looks for races in shared memory");
}

// A library that starts CUDA as it loads (a static constructor's kernel, writing past an
// allocation) is out of the sanitizer's reach: on the H100 compute-sanitizer then reports "CUDA
// initialized before the Sanitizer. The Sanitizer will be disabled". That report comes while a
// runner starts, before any test; a runner serving a shard's tests must not carry it into the
// first test's log alone and call the others clean: every test the student's code ran in is
// flagged, as with a runner per test.
TEST(Adversarial, CudaStartedAtLoadTimeFlagsEveryTestUnderTheSanitizer) {
  if (const std::string why = sanitizer_missing(); !why.empty()) GTEST_SKIP() << why;
  const LabgradeRun run = grade_sanitized("faults_at_load");
  EXPECT_EQ(run.process.exit_code, 0) << run.process.output;
  ASSERT_TRUE(run.report.is_object()) << run.process.output;
  EXPECT_EQ(run.report["status"], "graded");
  EXPECT_EQ(run.report["points_earned"], 100) << run.process.output;  // the plain run is unaffected
  int checked = 0;
  for (const auto& test : run.report["tests"]) {
    if (!test.contains("sanitizer")) continue;
    for (const auto& finding : test["sanitizer"]) {
      if (finding["tool"] != "memcheck") continue;
      ++checked;
      EXPECT_FALSE(finding["clean"].get<bool>()) << test["name"] << ": " << finding["excerpt"];
    }
  }
  EXPECT_GT(checked, 10) << run.process.output;
  const std::string found = findings_of(run.report, "", "memcheck");
  EXPECT_TRUE(found.find("initialized before the Sanitizer") != std::string::npos ||
              found.find("Invalid __global__ write") != std::string::npos)
      << found;
}

}  // namespace
}  // namespace labgrade
