#pragma once
// When to stop taking samples: once the median is known precisely enough, or when the sample
// or time budget is spent. Host-only.
#include <functional>
#include <vector>

#include "cudalabs/timing/statistics.hpp"

namespace cudalabs::timing {

struct SamplingPolicy {
  int warmup = 3;                     // launches of each implementation before any sample
  int min_samples = 10;               // never stop on precision before this many samples
  int max_samples = 1000;             // hard cap on samples (rounds, for paired measurements)
  double target_relative_ci = 0.01;   // stop once the median's CI half-width <= 1% of it
  double confidence = 0.95;           // of that interval
  double time_budget_seconds = 2.0;   // hard cap on wall time of one measurement
  // Optional, for a paired measurement that is graded (performance_case.cpp): true when the
  // intervals so far (the student's time, the paired ratio) leave what they are measured for
  // already settled, e.g. a case's points the same anywhere within them. Sampling then stops
  // after min_samples however wide the intervals still are: more rounds would change no point.
  std::function<bool(const SampleSummary& student_ms, const SampleSummary& ratio)> settled{};
};

// Throws std::invalid_argument naming the field when a policy makes no sense: negative warm-up;
// min_samples below what the confidence needs (min_samples_for_confidence: a smaller sample's
// interval would claim a confidence it does not have); max_samples < min_samples; a target that
// is not positive and finite; a confidence outside (0, 1); a budget that is not positive and finite.
void validate(const SamplingPolicy& policy);

// True when sampling should stop:
//  - tracked.samples >= min_samples and tracked.relative_halfwidth() <= target: *target_met = true;
//  - else tracked.samples >= max_samples or elapsed_seconds >= budget: *target_met = false.
// The budget is a hard cap, even before min_samples: the caller sees target_met == false and the
// sample count. target_met may be null. The policy is assumed valid (see validate).
bool should_stop(const SampleSummary& tracked, double elapsed_seconds, const SamplingPolicy& policy,
                 bool* target_met);

// A paired measurement's stop: should_stop on the ratio; and, from min_samples on while the
// precision target is not reached, policy.settled asked whether the intervals so far settle the
// outcome (settled = true: stop, whatever the budget left; also reported when the budget ran out).
struct PairedStop {
  bool stop = false;
  bool target_met = false;
  bool settled = false;
  bool budget_spent = false;  // max_samples or the time budget reached (whatever else is true)
};
PairedStop paired_stop(const SampleSummary& student_ms, const SampleSummary& ratio, double elapsed_seconds,
                       const SamplingPolicy& policy);

// Of several quantities each looked at briefly (min_samples), which must be measured further so
// that the largest is known to target_relative_ci: those whose interval reaches the highest lower
// bound among the looks (they could still be the largest) and whose look missed the target. A
// pipeline's stages (performance_common.cpp): only the slowest is a baseline.
std::vector<bool> worth_measuring_further(const std::vector<SampleSummary>& looks, double target_relative_ci);

}  // namespace cudalabs::timing
