// A batch's limit on grades running correctness tests at once (grader/src/session/gpu_slots.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "session/gpu_slots.hpp"

namespace {

using labgrade::GpuSlots;

// Sixteen threads, as a batch on a 16-core machine starts, each holding a slot for a while.
int most_at_once(std::size_t slots) {
  GpuSlots gpu(slots);
  std::atomic<int> holding{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      const GpuSlots::Slot slot(gpu);
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

TEST(GpuSlots, NoMoreGradesTestAtOnceThanThereAreSlots) {
  EXPECT_EQ(most_at_once(4), 4);
  EXPECT_EQ(most_at_once(1), 1);
}

TEST(GpuSlots, ZeroSlotsMeansOneNotADeadlock) { EXPECT_EQ(most_at_once(0), 1); }

}  // namespace
