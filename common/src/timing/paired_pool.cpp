#include "cudalabs/timing/paired_pool.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cudalabs/timing/statistics.hpp"

namespace cudalabs::timing {

namespace {

int share_of(int total, int pairs) { return (total + pairs - 1) / pairs; }

void append(std::vector<double>& to, const std::vector<double>& from) { to.insert(to.end(), from.begin(), from.end()); }

}  // namespace

SamplingPolicy policy_for_one_of(const SamplingPolicy& policy, int pairs) {
  if (pairs <= 1) return policy;
  SamplingPolicy share = policy;
  const int least = static_cast<int>(min_samples_for_confidence(policy.confidence));
  share.min_samples = std::max(least, share_of(policy.min_samples, pairs));
  share.max_samples = std::max(share.min_samples, share_of(policy.max_samples, pairs));
  share.time_budget_seconds = policy.time_budget_seconds / pairs;
  return share;
}

PairedResult pool_measurements(const std::vector<PairedResult>& parts, const SamplingPolicy& policy) {
  if (parts.empty()) throw std::invalid_argument("pool_measurements: no measurement to pool");
  if (parts.size() == 1) return parts.front();
  PairedResult pool;
  std::vector<double> overheads;
  std::vector<double> student_overheads;
  for (const PairedResult& part : parts) {
    append(pool.student_samples, part.student_samples);
    append(pool.solution_samples, part.solution_samples);
    append(pool.ratio_samples, part.ratio_samples);
    pool.rounds += part.rounds;
    pool.seconds_spent += part.seconds_spent;
    pool.verified_samples += part.verified_samples;
    pool.samples_with_outstanding_work += part.samples_with_outstanding_work;
    pool.max_outstanding_ms = std::max(pool.max_outstanding_ms, part.max_outstanding_ms);
    pool.disturbed_rounds += part.disturbed_rounds;
    pool.max_cpu_wait_ms = std::max(pool.max_cpu_wait_ms, part.max_cpu_wait_ms);
    overheads.push_back(part.call_overhead_ms);
    student_overheads.push_back(part.student_call_overhead_ms);
    if (pool.integrity_failure.empty()) pool.integrity_failure = part.integrity_failure;
    if (pool.machine_busy.empty()) pool.machine_busy = part.machine_busy;
  }
  pool.runner_pairs = static_cast<int>(parts.size());
  pool.call_overhead_ms = median(overheads);
  pool.student_call_overhead_ms = median(student_overheads);
  pool.student_ms = summarize(pool.student_samples, policy.confidence);
  pool.solution_ms = summarize(pool.solution_samples, policy.confidence);
  pool.ratio = summarize(pool.ratio_samples, policy.confidence);
  if (pool.integrity_failure.empty() && pool.machine_busy.empty() && pool.ratio.samples > 0) {
    pool.target_met = static_cast<int>(pool.ratio.samples) >= policy.min_samples &&
                      pool.ratio.relative_halfwidth() <= policy.target_relative_ci;
    pool.settled = !pool.target_met && policy.settled && policy.settled(pool.student_ms, pool.ratio);
  }
  return pool;
}

}  // namespace cudalabs::timing
