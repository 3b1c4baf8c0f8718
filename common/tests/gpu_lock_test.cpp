// The GPU lock's locking, host side (the device lookup needs a GPU): exclusive between processes,
// a waiter says who holds it and goes on once it is released, and it is released when its holder
// dies however it dies; shared holders run together, and a waiting exclusive taker goes before
// shared ones that come after it.
#include "cudalabs/gpu_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace {

std::string lock_path(const char* name) {
  return ::testing::TempDir() + "cudalabs_gpu_lock_test_" + name + "_" + std::to_string(::getpid()) + ".lock";
}

void remove_lock(const std::string& path) {
  std::remove(path.c_str());
  std::remove((path + ".intent").c_str());
}

cudalabs::GpuLock take(const std::string& path, cudalabs::GpuAccess access, const char* holder) {
  return cudalabs::GpuLock::lock_file(path, "Test GPU (GPU-0000)", "GPU-0000", holder, access);
}

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Forks a child that, once `go` is readable, takes the lock with stderr on a pipe; returns its pid
// and the pipe. Forked before the parent takes the lock: a child holding a copy of the parent's
// lock descriptor would hold the lock itself (flock belongs to the open file description).
pid_t waiting_child(const std::string& path, int* stderr_pipe, int go) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    char byte = 0;
    if (::read(go, &byte, 1) != 1) ::_exit(2);
    ::dup2(fds[1], STDERR_FILENO);
    const cudalabs::GpuLock lock = cudalabs::GpuLock::lock_file(path, "Test GPU (GPU-0000)", "GPU-0000", "second");
    ::_exit(lock.held() ? 0 : 1);
  }
  ::close(fds[1]);
  *stderr_pipe = fds[0];
  return child;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

bool still_running(pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) == 0; }

TEST(GpuLock, ASecondHolderWaitsSayingWhoHoldsItThenGetsIt) {
  const std::string path = lock_path("wait");
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  int err = -1;
  const pid_t child = waiting_child(path, &err, go[0]);
  ASSERT_GT(child, 0);
  cudalabs::GpuLock first = cudalabs::GpuLock::lock_file(path, "Test GPU (GPU-0000)", "GPU-0000", "first grade");
  ASSERT_TRUE(first.held());
  EXPECT_EQ(first.uuid(), "GPU-0000");
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(still_running(child)) << "the second holder did not wait";
  first = cudalabs::GpuLock();  // released
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string message = read_all(err);
  EXPECT_NE(message.find("waiting for GPU Test GPU (GPU-0000), held by pid " + std::to_string(::getpid()) +
                         " (first grade) since "),
            std::string::npos)
      << message;
  remove_lock(path);
}

TEST(GpuLock, IsReleasedWhenItsHolderIsKilled) {
  const std::string path = lock_path("killed");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const cudalabs::GpuLock lock = cudalabs::GpuLock::lock_file(path, "Test GPU", "GPU-0000", "doomed");
    if (::write(ready[1], lock.held() ? "y" : "n", 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char held = 0;
  ASSERT_EQ(::read(ready[0], &held, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(held, 'y');
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  const cudalabs::GpuLock lock = cudalabs::GpuLock::lock_file(path, "Test GPU", "GPU-0000", "next");
  EXPECT_TRUE(lock.held());
  remove_lock(path);
}

// Threads of one process are enough: flock belongs to each open file description, and every
// lock_file opens its own.
TEST(GpuLock, SharedHoldersRunTogether) {
  const std::string path = lock_path("shared");
  const cudalabs::GpuLock first = take(path, cudalabs::GpuAccess::Shared, "first");
  ASSERT_TRUE(first.held());
  EXPECT_EQ(first.access(), cudalabs::GpuAccess::Shared);
  std::atomic<bool> second_held{false};
  std::thread second([&] { second_held = take(path, cudalabs::GpuAccess::Shared, "second").held(); });
  second.join();  // would block for ever if shared holders excluded each other
  EXPECT_TRUE(second_held);
  remove_lock(path);
}

TEST(GpuLock, ExclusiveWaitsForSharedAndSharedForExclusive) {
  const std::string path = lock_path("mixed");
  cudalabs::GpuLock shared = take(path, cudalabs::GpuAccess::Shared, "correctness");
  std::atomic<bool> exclusive_in{false};
  std::thread exclusive([&] {
    const cudalabs::GpuLock lock = take(path, cudalabs::GpuAccess::Exclusive, "timed");
    exclusive_in = lock.held();
    pause_ms(300);
  });
  pause_ms(300);
  EXPECT_FALSE(exclusive_in) << "an exclusive taker ran beside a shared holder";
  shared = cudalabs::GpuLock();
  pause_ms(100);
  EXPECT_TRUE(exclusive_in);
  const auto before = std::chrono::steady_clock::now();
  const cudalabs::GpuLock after = take(path, cudalabs::GpuAccess::Shared, "next correctness");
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(100))
      << "a shared taker ran beside an exclusive holder";
  exclusive.join();
  remove_lock(path);
}

// Without writers first, shared holders that keep overlapping would starve a timed case.
TEST(GpuLock, AWaitingExclusiveTakerGoesBeforeLaterSharedOnes) {
  const std::string path = lock_path("order");
  cudalabs::GpuLock first = take(path, cudalabs::GpuAccess::Shared, "first correctness");
  std::atomic<int> order{0};
  int exclusive_turn = 0;
  int shared_turn = 0;
  std::thread exclusive([&] {
    const cudalabs::GpuLock lock = take(path, cudalabs::GpuAccess::Exclusive, "timed");
    exclusive_turn = ++order;
    pause_ms(200);
  });
  pause_ms(200);  // the exclusive taker is waiting now
  std::thread later_shared([&] {
    const cudalabs::GpuLock lock = take(path, cudalabs::GpuAccess::Shared, "later correctness");
    shared_turn = ++order;
  });
  pause_ms(200);
  EXPECT_EQ(order, 0) << "someone ran beside the first shared holder's exclusive waiter";
  first = cudalabs::GpuLock();
  exclusive.join();
  later_shared.join();
  EXPECT_EQ(exclusive_turn, 1);
  EXPECT_EQ(shared_turn, 2);
  remove_lock(path);
}

// A grade between its correctness tests and its timed cases, alone on the GPU: it takes the GPU
// alone without waiting, so its student's runner may go on into the timed cases.
TEST(GpuLock, ASharedHolderAloneMakesItExclusiveAtOnce) {
  const std::string path = lock_path("try_alone");
  cudalabs::GpuLock grade = take(path, cudalabs::GpuAccess::Shared, "grade");
  ASSERT_TRUE(grade.try_make_exclusive("grade, timed"));
  EXPECT_EQ(grade.access(), cudalabs::GpuAccess::Exclusive);
  std::atomic<bool> other_in{false};
  std::thread other([&] { other_in = take(path, cudalabs::GpuAccess::Shared, "other correctness").held(); });
  pause_ms(200);
  EXPECT_FALSE(other_in) << "a shared taker ran beside the grade made exclusive";
  grade = cudalabs::GpuLock();
  other.join();
  EXPECT_TRUE(other_in);
  remove_lock(path);
}

// Beside another grade's correctness tests the try fails at once; from then on no third grade can
// be timed before this one (its runner ends meanwhile), and make_exclusive waits for the other.
TEST(GpuLock, AFailedTryKeepsItsPlaceBeforeLaterExclusiveTakers) {
  const std::string path = lock_path("try_shared");
  cudalabs::GpuLock grade = take(path, cudalabs::GpuAccess::Shared, "grade");
  cudalabs::GpuLock neighbour = take(path, cudalabs::GpuAccess::Shared, "neighbour correctness");
  EXPECT_FALSE(grade.try_make_exclusive("grade, timed"));
  EXPECT_EQ(grade.access(), cudalabs::GpuAccess::Shared);
  std::atomic<int> order{0};
  int third_turn = 0;
  std::thread third([&] {
    const cudalabs::GpuLock lock = take(path, cudalabs::GpuAccess::Exclusive, "third, timed");
    third_turn = ++order;
  });
  pause_ms(200);
  neighbour = cudalabs::GpuLock();
  pause_ms(200);
  EXPECT_EQ(order, 0) << "another grade was timed between this grade's failed try and its wait";
  const auto before = std::chrono::steady_clock::now();
  ASSERT_TRUE(grade.make_exclusive("grade, timed"));
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(150));
  const int grade_turn = ++order;
  EXPECT_EQ(grade.access(), cudalabs::GpuAccess::Exclusive);
  pause_ms(100);
  grade = cudalabs::GpuLock();
  third.join();
  EXPECT_EQ(grade_turn, 1);
  EXPECT_EQ(third_turn, 2);
  remove_lock(path);
}

// An exclusive taker already waits (holding the intent, for this grade's shared hold among
// others): the try must not wait for it (each would wait for the other), it fails at once with the
// shared hold kept, and make_exclusive lets go of that and queues behind the taker.
TEST(GpuLock, ATryBehindAWaitingExclusiveTakerFailsWithoutDeadlock) {
  const std::string path = lock_path("try_behind");
  cudalabs::GpuLock grade = take(path, cudalabs::GpuAccess::Shared, "grade");
  std::atomic<int> order{0};
  int waiting_turn = 0;
  std::thread waiting([&] {
    const cudalabs::GpuLock lock = take(path, cudalabs::GpuAccess::Exclusive, "another grade, timed");
    waiting_turn = ++order;
    pause_ms(100);
  });
  pause_ms(200);  // it holds the intent and waits for the grade's shared hold
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(grade.try_make_exclusive("grade, timed"));
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(100));
  EXPECT_EQ(grade.access(), cudalabs::GpuAccess::Shared);
  EXPECT_EQ(order, 0) << "the waiting taker got in while the grade still held the GPU shared";
  ASSERT_TRUE(grade.make_exclusive("grade, timed"));
  const int grade_turn = ++order;
  waiting.join();
  EXPECT_EQ(waiting_turn, 1);
  EXPECT_EQ(grade_turn, 2);
  remove_lock(path);
}

TEST(GpuLock, NothingIsTakenWhenAParentHoldsIt) {
  ::setenv(cudalabs::kGpuLockHeldVariable, "GPU-0000", 1);
  EXPECT_FALSE(cudalabs::GpuLock::acquire(0, "child").held());
  ::unsetenv(cudalabs::kGpuLockHeldVariable);
}

}  // namespace
