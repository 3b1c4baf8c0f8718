#pragma once
// How many grades of one labgrade process may be in one stage at once (a counting semaphore). A
// batch keeps two: its grades' compilations (one per CPU core, or --jobs), and their correctness
// tests on the GPU. Each grade brings three or four CUDA contexts (its judge and runners), and the
// GPU time-slices between contexts: on an H100 a batch of 16 grades at once took 35 s of test time
// per grade where 4 at once took 5 s (bench/batch_bench.sh 50). Since the judge split (two
// contexts a first part), the class without its hangs (bench/batch_bench.sh --leave-out
// never_returns 45) on one H100 (2026-11-28): batch 87.1 s with 4 at once, 86.8 s with 6, 90.3 s
// with 8, the first parts ending at 34.2, 37.5 and 39.7 s, their tests' own seconds summed 65, 105
// and 154 s: more at once only slows each, the CUDA starts and the GPU's switches being shared.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace labgrade {

class CountingSlots {
 public:
  explicit CountingSlots(std::size_t slots) : free_(slots == 0 ? 1 : slots) {}
  CountingSlots(const CountingSlots&) = delete;
  CountingSlots& operator=(const CountingSlots&) = delete;

  // Holds one slot for its lifetime.
  class Slot {
   public:
    explicit Slot(CountingSlots& slots) : slots_(slots) {
      std::unique_lock lock(slots_.mutex_);
      ++slots_.waiting_;
      slots_.changed_.wait(lock, [&] { return slots_.free_ > 0; });
      --slots_.waiting_;
      --slots_.free_;
    }
    ~Slot() {
      {
        std::lock_guard lock(slots_.mutex_);
        ++slots_.free_;
      }
      slots_.changed_.notify_all();  // a slot's waiter, and wait_until_none_waiting's
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    CountingSlots& slots_;
  };

  // Returns once no one waits for a slot: work of lower priority than the slots' (a batch's
  // sanitizer runs, beside its correctness tests) never keeps a waiting grade from its slot, but
  // goes beside the slots' holders (a hanging submission's 20 s among them).
  void wait_until_none_waiting() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t free_;
  std::size_t waiting_ = 0;  // threads waiting for a slot
};

// By how much a batch stretches the time-out of its deferred tests (session/stages.cpp,
// rerun_deferred_tests) when `deferred_at_once` grades run them beside each other. Those are
// mostly hangs spinning on the GPU, which time-slices between contexts: each run gets about
// 1/deferred_at_once of it. Stretched by deferred_at_once / testing_at_once, a slow but finishing
// test gets at least the share of the GPU its first part gave it (testing_at_once grades there):
// a test beside 15 hangs would otherwise have a sixteenth of the GPU for its whole time-out, and
// one that passes alone in 2 s of a 20-s time-out could time out there.
inline double deferred_timeout_stretch(std::size_t deferred_at_once, std::size_t testing_at_once) {
  return std::max(1.0, static_cast<double>(deferred_at_once) / static_cast<double>(std::max<std::size_t>(testing_at_once, 1)));
}

}  // namespace labgrade
