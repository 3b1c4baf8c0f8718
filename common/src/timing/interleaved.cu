#include "cudalabs/timing/interleaved.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "cudalabs/timing/l2_flush.hpp"

namespace cudalabs::timing {
namespace {

using Clock = std::chrono::steady_clock;

// CUDA events resolve about 0.5 us; a time below it is "too short to tell", and clamping the
// ratio's operands to it keeps every ratio finite (a 0/0 NaN would break sorting).
constexpr double kEventResolutionMs = 0.0005;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Launches and checks the launch itself; a bad configuration is reported only by cudaGetLastError.
void launch_checked(const Launch& launch, cudaStream_t stream) {
  launch(stream);
  CUDALABS_CHECK_LAUNCH();
}

// The per-sample procedure shared by paired and single measurements.
class Sampler {
 public:
  Sampler(const Launch& restore, cudaStream_t stream) : restore_(restore), stream_(stream) {}

  void warm(const Launch& launch) {
    if (restore_) restore_(stream_);
    launch_checked(launch, stream_);
  }

  double sample_ms(const Launch& launch) {
    if (restore_) restore_(stream_);
    flusher_.flush(stream_);
    timer_.start(stream_);
    launch_checked(launch, stream_);
    timer_.stop(stream_);
    return timer_.elapsed_ms();
  }

  void finish_warmup() { CUDALABS_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  const Launch& restore_;
  cudaStream_t stream_;
  L2Flusher flusher_;
  EventTimer timer_;
};

}  // namespace

PairedResult measure_interleaved(const Workload& work, const SamplingPolicy& policy, cudaStream_t stream) {
  validate(policy);
  if (!work.student || !work.solution) {
    throw std::invalid_argument("measure_interleaved: Workload needs both a student and a solution launch");
  }
  const Clock::time_point started = Clock::now();
  Sampler sampler(work.restore_inputs, stream);
  for (int i = 0; i < policy.warmup; ++i) {
    sampler.warm(work.student);
    sampler.warm(work.solution);
  }
  sampler.finish_warmup();

  std::vector<double> student;
  std::vector<double> solution;
  std::vector<double> ratio;
  const auto capacity = static_cast<std::size_t>(policy.max_samples);
  student.reserve(capacity);
  solution.reserve(capacity);
  ratio.reserve(capacity);

  PairedResult result;
  for (int round = 0;; ++round) {
    double student_ms = 0;
    double solution_ms = 0;
    // Alternate which goes first, so an order effect appears in both directions equally.
    if (round % 2 == 0) {
      student_ms = sampler.sample_ms(work.student);
      solution_ms = sampler.sample_ms(work.solution);
    } else {
      solution_ms = sampler.sample_ms(work.solution);
      student_ms = sampler.sample_ms(work.student);
    }
    student.push_back(student_ms);
    solution.push_back(solution_ms);
    ratio.push_back(std::max(student_ms, kEventResolutionMs) / std::max(solution_ms, kEventResolutionMs));
    result.ratio = summarize(ratio, policy.confidence);
    if (should_stop(result.ratio, seconds_since(started), policy, &result.target_met)) break;
  }
  result.rounds = static_cast<int>(ratio.size());
  result.student_ms = summarize(student, policy.confidence);
  result.solution_ms = summarize(solution, policy.confidence);
  result.seconds_spent = seconds_since(started);
  return result;
}

SampleSummary measure_single(const Launch& launch, Launch restore, const SamplingPolicy& policy,
                             cudaStream_t stream) {
  validate(policy);
  if (!launch) throw std::invalid_argument("measure_single: empty launch");
  const Clock::time_point started = Clock::now();
  Sampler sampler(restore, stream);
  for (int i = 0; i < policy.warmup; ++i) sampler.warm(launch);
  sampler.finish_warmup();

  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(policy.max_samples));
  SampleSummary summary;
  for (;;) {
    times.push_back(sampler.sample_ms(launch));
    summary = summarize(times, policy.confidence);
    if (should_stop(summary, seconds_since(started), policy, nullptr)) break;
  }
  return summary;
}

}  // namespace cudalabs::timing
