// Machine-wide slots (cudalabs/host_slot.hpp): as many holders at once as slots, whether threads
// of one process or processes; a taker waits until one is let go, also by a holder's death; no
// slot file, no bound and no wait.
#include "cudalabs/host_slot.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class HostSlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("cudalabs_host_slot_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  cudalabs::HostSlot take(unsigned count) { return cudalabs::HostSlot::acquire_in(dir_.string(), "runs", count); }
  fs::path dir_;
};

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

TEST_F(HostSlotTest, HoldsAsManyAtOnceAsThereAreSlots) {
  cudalabs::HostSlot first = take(2);
  cudalabs::HostSlot second = take(2);
  ASSERT_TRUE(first.held());
  ASSERT_TRUE(second.held());
  EXPECT_NE(first.index(), second.index());
  // A third waits until one is let go.
  const Clock::time_point start = Clock::now();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    first = cudalabs::HostSlot();
  });
  const cudalabs::HostSlot third = take(2);
  release.join();
  EXPECT_TRUE(third.held());
  EXPECT_GE(ms_since(start), 150);
}

TEST_F(HostSlotTest, AnotherProcessWaitsForTheSlotAndGetsItWhenItsHolderDies) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const cudalabs::HostSlot slot = take(1);
    const char byte = slot.held() ? 'y' : 'n';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(2);
    ::pause();  // until killed: the slot goes with the process
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  const Clock::time_point start = Clock::now();
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ::kill(holder, SIGKILL);
  });
  const cudalabs::HostSlot slot = take(1);
  killer.join();
  ::waitpid(holder, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_TRUE(slot.held());
  EXPECT_GE(ms_since(start), 200);
}

TEST_F(HostSlotTest, NoSlotFileMeansNoBoundAndNoWait) {
  const cudalabs::HostSlot slot = cudalabs::HostSlot::acquire_in((dir_ / "missing").string(), "runs", 1);
  EXPECT_FALSE(slot.held());
  const cudalabs::HostSlot another = cudalabs::HostSlot::acquire_in((dir_ / "missing").string(), "runs", 1);
  EXPECT_FALSE(another.held());
}

}  // namespace
