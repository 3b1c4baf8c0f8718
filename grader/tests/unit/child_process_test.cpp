#include "sandbox/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "test_child_spec.hpp"

namespace labgrade {
namespace {

TEST(ChildProcess, ReportsExitCode) {
  const ProcessResult result = run_process(child({"exit", "3"}));
  EXPECT_TRUE(result.started);
  EXPECT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.describe_end(10), "exited with code 3");
}

TEST(ChildProcess, RunsAtTheNiceValueItWasGiven) {
  ProcessSpec spec;
  spec.argv = {"nice"};  // prints its own nice value
  const ProcessResult as_is = run_process(spec);
  spec.nice = 5;
  const ProcessResult yielding = run_process(spec);
  ASSERT_TRUE(as_is.succeeded()) << as_is.output;
  ASSERT_TRUE(yielding.succeeded()) << yielding.output;
  const int base = std::stoi(as_is.output);
  EXPECT_EQ(std::stoi(yielding.output), std::min(base + 5, 19));
}

TEST(ChildProcess, ReportsTheSignalThatKilledIt) {
  const ProcessResult result = run_process(child({"segv"}));
  EXPECT_FALSE(result.exited);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_EQ(result.describe_end(10), "killed by SIGSEGV (Segmentation fault)");
}

TEST(ChildProcess, KillsAHangingChildAtTheDeadline) {
  const ProcessResult result = run_process(child({"hang"}, 0.3));
  EXPECT_TRUE(result.timed_out);
  EXPECT_GE(result.wall_seconds, 0.3);
  EXPECT_LT(result.wall_seconds, 5);
  EXPECT_EQ(result.describe_end(0.3), "timed out after 0.3 s and was killed");
}

TEST(ChildProcess, DoesNotWaitForAGrandchildHoldingItsOutput) {
  const ProcessResult result = run_process(child({"orphan"}, 5));
  EXPECT_TRUE(result.succeeded()) << result.describe_end(5);
  EXPECT_EQ(result.output, "parent leaving\n");
  EXPECT_LT(result.wall_seconds, 4);
}

// The pids of the chain of `depth` daemons a run left behind (test_child.cpp "daemon").
std::vector<int> run_leaving_daemons(int depth, bool end_strays) {
  const std::string file = ::testing::TempDir() + "labgrade-daemon-pids-" + std::to_string(::getpid());
  ProcessSpec spec = child({"daemon", std::to_string(depth), file});
  spec.end_strays = end_strays;
  const ProcessResult result = run_process(spec);
  EXPECT_TRUE(result.exited && result.exit_code == 0) << result.output;
  std::vector<int> pids;
  if (FILE* in = std::fopen(file.c_str(), "r")) {
    for (int pid = 0; std::fscanf(in, "%d", &pid) == 1;) pids.push_back(pid);
    std::fclose(in);
  }
  std::remove(file.c_str());
  EXPECT_EQ(pids.size(), static_cast<std::size_t>(depth));
  return pids;
}

bool running(int pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// Those of `pids` still running, each then killed (a failed test leaves nothing behind).
std::vector<int> outlived(const std::vector<int>& pids) {
  std::vector<int> alive;
  for (const int pid : pids) {
    if (pid > 0 && running(pid)) alive.push_back(pid);
  }
  for (const int pid : alive) ::kill(pid, SIGKILL);
  return alive;
}

// A daemon (setsid, then a fork) leaves the run's process group, which kill(-pgid) ends; after a
// run of student code labgrade, the subreaper of what it started, ends it anyway.
TEST(ChildProcess, EndsADaemonAStudentRunLeftBehind) {
  EXPECT_EQ(outlived(run_leaving_daemons(1, true)), std::vector<int>{});
}

// Each level of a chain becomes labgrade's child only when the one above it dies: deeper than any
// fixed number of scans, it is ended all the same.
TEST(ChildProcess, EndsAChainOfDaemonsOfAnyDepth) {
  EXPECT_EQ(outlived(run_leaving_daemons(100, true)), std::vector<int>{});
}

// A trusted tool may start a daemon on purpose (a test's stand-in for Slurm runs its jobs so).
TEST(ChildProcess, LeavesATrustedToolsDaemonAlone) {
  const std::vector<int> pids = run_leaving_daemons(1, false);
  EXPECT_EQ(outlived(pids), pids);
}

TEST(ChildProcess, CapsTheOutputItKeeps) {
  ProcessSpec spec = child({"flood", "1000000"});
  spec.max_output_bytes = 1000;
  const ProcessResult result = run_process(spec);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.output.size(), 1000u);
  EXPECT_EQ(result.output_bytes_dropped, 999000u);
}

TEST(ChildProcess, PassesExtraEnvironment) {
  ProcessSpec spec = child({"echo-env", "CUDALABS_TEST_VALUE"});
  spec.extra_env = {{"CUDALABS_TEST_VALUE", "hello"}};
  EXPECT_EQ(run_process(spec).output, "hello");
}

TEST(ChildProcess, ReportsACommandThatCannotStart) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/program"};
  const ProcessResult result = run_process(spec);
  EXPECT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 127);
  EXPECT_NE(result.output.find("cannot run /nonexistent/program"), std::string::npos) << result.output;
}

TEST(ChildProcess, DeliversResultLinesInOrder) {
  ProcessSpec spec = child({"results", "first", "second"});
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  std::vector<std::string> lines;
  const ProcessResult result = run_process(spec, [&](const std::string& line) { lines.push_back(line); });
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(lines, (std::vector<std::string>{"first", "second"}));
}

TEST(ChildProcess, ResultLinesDoNotExtendALimitOnceTheyStop) {
  ProcessSpec spec = child({"results-then-hang", "only"}, 0.3);
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  int lines = 0;
  const ProcessResult result = run_process(spec, [&](const std::string&) { ++lines; });
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(lines, 1);
}

// A batch lets a grade's correctness slot go once its test has gone quiet (likely hanging), so
// the next grade need not wait out the whole time-out.
TEST(ChildProcess, SaysOnceWhenTheResultChannelGoesQuietBeforeTheTimeOut) {
  ProcessSpec spec = child({"results-then-hang", "only"}, 1.5);
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  spec.quiet_seconds = 0.2;
  const auto started = std::chrono::steady_clock::now();
  std::vector<double> said_at;
  spec.on_quiet = [&] {
    said_at.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  const ProcessResult result = run_process(spec, [](const std::string&) {});
  EXPECT_TRUE(result.timed_out);
  ASSERT_EQ(said_at.size(), 1u);
  EXPECT_GE(said_at[0], 0.2);
  EXPECT_LT(said_at[0], 1.0);  // well before the time-out
}

// A batch ends a harness gone quiet (a likely hang) and runs its test again later, with the whole
// time-out, rather than let it spin beside other grades' tests until then.
TEST(ChildProcess, EndsAChildWhoseResultChannelWentQuietWhenAsked) {
  ProcessSpec spec = child({"results-then-hang", "only"}, 5.0);
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  spec.quiet_seconds = 0.2;
  spec.end_when_quiet = true;
  int said = 0;
  spec.on_quiet = [&] { ++said; };
  int lines = 0;
  const ProcessResult result = run_process(spec, [&](const std::string&) { ++lines; });
  EXPECT_TRUE(result.ended_quiet);
  EXPECT_FALSE(result.timed_out);
  EXPECT_FALSE(result.exited);
  EXPECT_EQ(said, 1);
  EXPECT_EQ(lines, 1);
  EXPECT_LT(result.wall_seconds, 2.5);  // long before the 5-s time-out

  ProcessSpec talking = child({"results", "first", "second"});
  talking.result_fd = 3;
  talking.result_fd_env = "CUDALABS_RESULT_FD";
  talking.quiet_seconds = 0.5;
  talking.end_when_quiet = true;
  const ProcessResult ended = run_process(talking, [](const std::string&) {});
  EXPECT_TRUE(ended.succeeded());
  EXPECT_FALSE(ended.ended_quiet);
}

TEST(ChildProcess, SaysNothingOfAChildThatEndsOrHasNoResultChannel) {
  int said = 0;
  ProcessSpec talking = child({"results", "first", "second"});
  talking.result_fd = 3;
  talking.result_fd_env = "CUDALABS_RESULT_FD";
  talking.quiet_seconds = 0.5;
  talking.on_quiet = [&] { ++said; };
  EXPECT_TRUE(run_process(talking, [](const std::string&) {}).succeeded());
  ProcessSpec silent = child({"hang"}, 0.5);  // no channel: its silence means nothing
  silent.quiet_seconds = 0.1;
  silent.on_quiet = [&] { ++said; };
  EXPECT_TRUE(run_process(silent).timed_out);
  EXPECT_EQ(said, 0);
}

// An answer labgrade cannot give (say the gpu_alone hook failing to take the GPU lock) ends the
// child, with all it started, before the error reaches the caller: a harness left running would
// see its answer pipe close and go on to time its cases without the GPU held for it.
TEST(ChildProcess, AnAnswerThatThrowsEndsTheChildFirst) {
  ProcessSpec spec = child({"pid-then-hang"});
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  pid_t child_pid = 0;
  EXPECT_THROW(run_process(spec, LineAnswerer([&](const std::string& line) -> std::string {
                 child_pid = static_cast<pid_t>(std::stol(line));
                 throw std::runtime_error("no answer");
               })),
               std::runtime_error);
  ASSERT_GT(child_pid, 0);
  const bool alive = ::kill(child_pid, 0) == 0;
  if (alive) {
    ::kill(child_pid, SIGKILL);
    ::waitpid(child_pid, nullptr, 0);
  }
  EXPECT_FALSE(alive) << "the child outlived the answer that failed";
}

// A batch grades in many threads: a descriptor one of them has open when another starts a child
// (a harness being copied into place) must not reach that child.
TEST(ChildProcess, InheritsOnlyStdioAndTheDescriptorsItIsGiven) {
  const int stray = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC, as std::filesystem::copy_file's
  ASSERT_GE(stray, 0);
  ProcessSpec spec = child({"open-fds"});
  spec.result_fd = 3;
  spec.result_fd_env = "CUDALABS_RESULT_FD";
  const ProcessResult result = run_process(spec, [](const std::string&) {});
  ::close(stray);
  EXPECT_TRUE(result.succeeded()) << result.output;
  EXPECT_EQ(result.output, "0 1 2 3 ");
}

TEST(ChildProcess, RefusesAResultDescriptorThatClashesWithStdio) {
  ProcessSpec spec = child({"exit", "0"});
  spec.result_fd = 1;
  EXPECT_FALSE(run_process(spec).started);
}

TEST(ShellQuote, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_quote({"nvcc", "-O3", "my file.cu", "it's"}), "nvcc -O3 'my file.cu' 'it'\\''s'");
}

}  // namespace
}  // namespace labgrade
