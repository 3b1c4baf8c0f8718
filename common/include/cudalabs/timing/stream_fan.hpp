#pragma once
// Fork and join of a call that queues work on several streams (a pipeline): the side streams
// wait for what the main stream queued before the call, and the main stream waits for all of
// them after it, so whatever follows on the main stream (a stop event, a check) sees the whole
// call done.
//
//   StreamFan fan(side_streams);
//   fan.fork(stream);          // each side stream waits for `stream`'s work so far
//   call(stream);              // queues on `stream` and on the side streams
//   fan.join(stream);          // `stream` waits for each side stream's work so far
//
// With no side streams both are no-ops. The events are made without timing (the cheapest kind)
// and owned here.
#include <memory>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

namespace cudalabs::timing {

class StreamFan {
 public:
  explicit StreamFan(std::vector<cudaStream_t> side_streams);

  void fork(cudaStream_t stream);
  void join(cudaStream_t stream);

 private:
  struct EventDestroyer {
    void operator()(cudaEvent_t event) const noexcept;
  };
  using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroyer>;
  static Event untimed_event();

  std::vector<cudaStream_t> sides_;
  Event forked_;
  std::vector<Event> joined_;  // one per side stream
};

}  // namespace cudalabs::timing
