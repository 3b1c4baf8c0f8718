#include "../src/remote/run_queue_wait.hpp"

#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cudalabs::remote {
namespace {

TEST(RunQueueWait, ParsesTheSecondFigure) {
  EXPECT_EQ(parse_run_queue_wait_ns("123456 7890 12\n"), 7890);
  EXPECT_EQ(parse_run_queue_wait_ns("0 0 0\n"), 0);
  EXPECT_EQ(parse_run_queue_wait_ns("18446744073 4000000000000 5\n"), 4000000000000);
}

TEST(RunQueueWait, RefusesWhatIsNotSchedstat) {
  EXPECT_EQ(parse_run_queue_wait_ns(""), -1);
  EXPECT_EQ(parse_run_queue_wait_ns("12"), -1);
  EXPECT_EQ(parse_run_queue_wait_ns("12 x 3"), -1);
  EXPECT_EQ(parse_run_queue_wait_ns("x 12 3"), -1);
  EXPECT_EQ(parse_run_queue_wait_ns("12 34"), -1);
  EXPECT_EQ(read_run_queue_wait_ns(-1), -1);
}

// This thread and a spinning one on the same single CPU, for 300 ms: this one waits for the CPU
// about half the time, and the kernel's figure grows by about that.
TEST(RunQueueWait, GrowsWhileAnotherThreadHoldsTheCpu) {
  const int fd = open_schedstat(0, 0);
  if (fd < 0) GTEST_SKIP() << "this kernel has no /proc/thread-self/schedstat (CONFIG_SCHED_INFO off)";
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // the spinner inherits it
  const std::int64_t before = read_run_queue_wait_ns(fd);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  const auto spin = [until] {
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  std::thread other(spin);
  spin();
  other.join();
  const std::int64_t after = read_run_queue_wait_ns(fd);
  ASSERT_EQ(::sched_setaffinity(0, sizeof allowed, &allowed), 0);
  ::close(fd);
  ASSERT_GE(before, 0);
  EXPECT_GT(after - before, 30'000'000) << "waited " << (after - before) / 1e6 << " ms of 300 ms beside a spinner";
}

TEST(RunQueueWait, ReadsAnotherProcesssMainThread) {
  const int fd = open_schedstat(::getpid(), ::getpid());
  if (fd < 0) GTEST_SKIP() << "this kernel has no /proc/<pid>/task/<tid>/schedstat (CONFIG_SCHED_INFO off)";
  EXPECT_GE(read_run_queue_wait_ns(fd), 0);
  ::close(fd);
}

}  // namespace
}  // namespace cudalabs::remote
