#include "cudalabs/timing/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace cudalabs::timing {
namespace {

[[noreturn]] void reject(const std::string& what) {
  throw std::invalid_argument("SamplingPolicy: " + what);
}

bool positive_finite(double value) { return std::isfinite(value) && value > 0.0; }

bool budget_spent(std::size_t samples, double elapsed_seconds, const SamplingPolicy& policy) {
  return samples >= static_cast<std::size_t>(policy.max_samples) || elapsed_seconds >= policy.time_budget_seconds;
}

}  // namespace

void validate(const SamplingPolicy& policy) {
  if (policy.warmup < 0) reject("warmup must be >= 0, got " + std::to_string(policy.warmup));
  if (!(policy.confidence > 0.0 && policy.confidence < 1.0)) {
    reject("confidence must lie strictly between 0 and 1, got " + std::to_string(policy.confidence));
  }
  const std::size_t needed = min_samples_for_confidence(policy.confidence);
  if (policy.min_samples < 0 || static_cast<std::size_t>(policy.min_samples) < needed) {
    reject("min_samples must be >= " + std::to_string(needed) + " for a " +
           std::to_string(policy.confidence) + " confidence interval of the median, got " +
           std::to_string(policy.min_samples));
  }
  if (policy.max_samples < policy.min_samples) {
    reject("max_samples (" + std::to_string(policy.max_samples) + ") must be >= min_samples (" +
           std::to_string(policy.min_samples) + ")");
  }
  if (!positive_finite(policy.target_relative_ci)) {
    reject("target_relative_ci must be positive and finite, got " +
           std::to_string(policy.target_relative_ci));
  }
  if (!positive_finite(policy.time_budget_seconds)) {
    reject("time_budget_seconds must be positive and finite, got " +
           std::to_string(policy.time_budget_seconds));
  }
}

bool should_stop(const SampleSummary& tracked, double elapsed_seconds, const SamplingPolicy& policy,
                 bool* target_met) {
  bool met = false;
  bool stop = false;
  const auto samples = tracked.samples;
  if (samples >= static_cast<std::size_t>(policy.min_samples) &&
      tracked.relative_halfwidth() <= policy.target_relative_ci) {
    met = true;
    stop = true;
  } else if (budget_spent(samples, elapsed_seconds, policy)) {
    stop = true;
  }
  if (target_met != nullptr) *target_met = met;
  return stop;
}

PairedStop paired_stop(const SampleSummary& student_ms, const SampleSummary& ratio, double elapsed_seconds,
                       const SamplingPolicy& policy) {
  PairedStop decision;
  decision.stop = should_stop(ratio, elapsed_seconds, policy, &decision.target_met);
  decision.budget_spent = budget_spent(ratio.samples, elapsed_seconds, policy);
  if (decision.target_met || !policy.settled || ratio.samples < static_cast<std::size_t>(policy.min_samples)) {
    return decision;
  }
  decision.settled = policy.settled(student_ms, ratio);  // also said when the budget ran out
  decision.stop = decision.stop || decision.settled;
  return decision;
}

std::vector<bool> worth_measuring_further(const std::vector<SampleSummary>& looks, double target_relative_ci) {
  double highest_low = -std::numeric_limits<double>::infinity();
  for (const SampleSummary& look : looks) highest_low = std::max(highest_low, look.ci.low);
  std::vector<bool> further;
  further.reserve(looks.size());
  for (const SampleSummary& look : looks) {
    // relative_halfwidth is +inf when nothing can be known of the spread: never precise enough.
    further.push_back(look.ci.high >= highest_low && !(look.relative_halfwidth() <= target_relative_ci));
  }
  return further;
}

}  // namespace cudalabs::timing
