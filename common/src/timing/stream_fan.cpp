#include "cudalabs/timing/stream_fan.hpp"

#include <utility>

#include "cudalabs/cuda_check.hpp"

namespace cudalabs::timing {

// A destructor must not throw; a failing destroy means a broken context, reported elsewhere.
void StreamFan::EventDestroyer::operator()(cudaEvent_t event) const noexcept {
  static_cast<void>(cudaEventDestroy(event));
}

StreamFan::Event StreamFan::untimed_event() {
  cudaEvent_t event = nullptr;
  CUDALABS_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return Event(event);
}

StreamFan::StreamFan(std::vector<cudaStream_t> side_streams) : sides_(std::move(side_streams)) {
  if (sides_.empty()) return;
  forked_ = untimed_event();
  for (std::size_t i = 0; i < sides_.size(); ++i) joined_.push_back(untimed_event());
}

void StreamFan::fork(cudaStream_t stream) {
  if (sides_.empty()) return;
  CUDALABS_CHECK(cudaEventRecord(forked_.get(), stream));
  for (cudaStream_t side : sides_) CUDALABS_CHECK(cudaStreamWaitEvent(side, forked_.get(), 0));
}

void StreamFan::join(cudaStream_t stream) {
  for (std::size_t i = 0; i < sides_.size(); ++i) {
    CUDALABS_CHECK(cudaEventRecord(joined_[i].get(), sides_[i]));
    CUDALABS_CHECK(cudaStreamWaitEvent(stream, joined_[i].get(), 0));
  }
}

}  // namespace cudalabs::timing
