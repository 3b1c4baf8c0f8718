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

// A batch's sanitizer runs wait while any grade holds or waits for a correctness slot.
TEST(CountingSlots, WaitUntilUnwantedWaitsForHoldersAndWaiters) {
  CountingSlots slots(1);
  std::atomic<bool> waited_out{false};
  std::atomic<bool> second_holding{false};
  std::thread second;
  std::thread low;
  {
    const CountingSlots::Slot first(slots);
    second = std::thread([&] {
      const CountingSlots::Slot slot(slots);  // waits for `first`
      second_holding = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      second_holding = false;
    });
    low = std::thread([&] {
      slots.wait_until_unwanted();
      waited_out = true;
      EXPECT_FALSE(second_holding.load());  // not between the first slot and the waiting second
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(waited_out.load());  // a slot is held
  }
  second.join();
  low.join();
  EXPECT_TRUE(waited_out.load());
  slots.wait_until_unwanted();  // nothing held or waited for: returns at once
}

}  // namespace
