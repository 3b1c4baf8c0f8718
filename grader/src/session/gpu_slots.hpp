#pragma once
// How many grades of one labgrade process may run their correctness tests on the GPU at once.
// Each grade brings three or four CUDA contexts (its judge and runners), and the GPU time-slices
// between contexts: on an H100 a batch of 16 grades at once took 35 s of test time per grade
// where 4 at once took 5 s (bench/batch_bench.sh 50). Builds, which need no GPU, are not limited.
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace labgrade {

class GpuSlots {
 public:
  explicit GpuSlots(std::size_t slots) : free_(slots == 0 ? 1 : slots) {}
  GpuSlots(const GpuSlots&) = delete;
  GpuSlots& operator=(const GpuSlots&) = delete;

  // Holds one slot for its lifetime.
  class Slot {
   public:
    explicit Slot(GpuSlots& slots) : slots_(slots) {
      std::unique_lock lock(slots_.mutex_);
      slots_.freed_.wait(lock, [&] { return slots_.free_ > 0; });
      --slots_.free_;
    }
    ~Slot() {
      {
        std::lock_guard lock(slots_.mutex_);
        ++slots_.free_;
      }
      slots_.freed_.notify_one();
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    GpuSlots& slots_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t free_;
};

}  // namespace labgrade
