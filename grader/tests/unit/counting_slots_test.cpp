// A batch's limits on grades in one stage at once (grader/src/session/counting_slots.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "session/counting_slots.hpp"

namespace {

using labgrade::CountingSlots;

// Sixteen threads, as a batch on a 16-core machine starts, each holding a slot for a while.
int most_at_once(std::size_t slots) {
  CountingSlots gpu(slots);
  std::atomic<int> holding{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      const CountingSlots::Slot slot(gpu);
      const int now = ++holding;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --holding;
    });
  }
  for (std::thread& thread : threads) thread.join();
  return most.load();
}

TEST(CountingSlots, NoMoreGradesTestAtOnceThanThereAreSlots) {
  EXPECT_EQ(most_at_once(4), 4);
  EXPECT_EQ(most_at_once(1), 1);
}

TEST(CountingSlots, ZeroSlotsMeansOneNotADeadlock) { EXPECT_EQ(most_at_once(0), 1); }

// A batch's sanitizer runs wait while any grade waits for a correctness slot, not while one is
// only held (a hanging submission holds its slot for its test's whole timeout).
TEST(CountingSlots, WaitUntilNoneWaitingWaitsForWaitersNotHolders) {
  CountingSlots slots(1);
  std::atomic<bool> waited_out{false};
  std::atomic<bool> second_holding{false};
  std::thread second;
  std::thread low;
  {
    const CountingSlots::Slot first(slots);
    slots.wait_until_none_waiting();  // held, but no one waits: returns at once
    second = std::thread([&] {
      const CountingSlots::Slot slot(slots);  // waits for `first`
      second_holding = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      second_holding = false;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // `second` waits now
    low = std::thread([&] {
      slots.wait_until_none_waiting();
      waited_out = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(waited_out.load());  // `second` still waits
  }
  low.join();  // `second` took the slot, so no one waits
  EXPECT_TRUE(waited_out.load());
  second.join();
}

}  // namespace

// Deferred tests beside each other keep at least the GPU share their first part gave them.
TEST(DeferredTimeoutStretch, GrowsWithTheGradesBesideEachOtherPastThoseOfAFirstPart) {
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(1, 4), 1.0);
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(4, 4), 1.0);
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(5, 4), 1.25);
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(16, 4), 4.0);
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(0, 4), 1.0);
  EXPECT_DOUBLE_EQ(labgrade::deferred_timeout_stretch(3, 0), 3.0);  // no first-part limit: as one
}
