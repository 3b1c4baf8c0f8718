#include "cudalabs/timing/event_timer.hpp"

#include <utility>

#include "cudalabs/cuda_check.hpp"

namespace cudalabs::timing {

EventTimer::EventTimer() {
  // Default flags: timing enabled, and the host waits the device's usual (low-latency) way, so
  // the gap between samples stays short.
  CUDALABS_CHECK(cudaEventCreateWithFlags(&start_, cudaEventDefault));
  try {
    CUDALABS_CHECK(cudaEventCreateWithFlags(&stop_, cudaEventDefault));
  } catch (...) {
    release();
    throw;
  }
}

EventTimer::EventTimer(EventTimer&& other) noexcept
    : start_(std::exchange(other.start_, nullptr)), stop_(std::exchange(other.stop_, nullptr)) {}

EventTimer& EventTimer::operator=(EventTimer&& other) noexcept {
  if (this != &other) {
    release();
    start_ = std::exchange(other.start_, nullptr);
    stop_ = std::exchange(other.stop_, nullptr);
  }
  return *this;
}

// A destructor must not throw; a failing destroy on a broken context is reported elsewhere.
EventTimer::~EventTimer() { release(); }

void EventTimer::release() noexcept {
  if (start_ != nullptr) static_cast<void>(cudaEventDestroy(start_));
  if (stop_ != nullptr) static_cast<void>(cudaEventDestroy(stop_));
  start_ = nullptr;
  stop_ = nullptr;
}

void EventTimer::start(cudaStream_t stream) { CUDALABS_CHECK(cudaEventRecord(start_, stream)); }

void EventTimer::stop(cudaStream_t stream) { CUDALABS_CHECK(cudaEventRecord(stop_, stream)); }

double EventTimer::elapsed_ms() const {
  CUDALABS_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDALABS_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace cudalabs::timing
