#pragma once
// GPU-side time of the work queued between start() and stop() on a stream, from a pair of CUDA
// events: the host's launch overhead and its scheduling noise are not counted.
//
//   EventTimer timer;
//   timer.start(stream);
//   kernel<<<grid, block, 0, stream>>>(...);
//   timer.stop(stream);
//   double ms = timer.elapsed_ms();   // waits for the stop event
#include <cuda_runtime.h>

namespace cudalabs::timing {

class EventTimer {
 public:
  EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  EventTimer(EventTimer&& other) noexcept;
  EventTimer& operator=(EventTimer&& other) noexcept;
  ~EventTimer();

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Milliseconds between the two events (resolution about 0.5 us). Synchronizes on the stop
  // event, so an asynchronous fault of the timed work surfaces here as a CudaError.
  double elapsed_ms() const;

 private:
  void release() noexcept;

  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace cudalabs::timing
