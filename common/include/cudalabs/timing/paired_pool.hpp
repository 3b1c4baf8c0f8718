#pragma once
// A paired measurement made of several runner pairs (course.yaml `timing: runner_pairs`): each
// pair of runner processes carries a bias of its own that stays with it for every round (see
// README "Performance cases"), so N pairs, each measuring its share of the rounds, pooled into one
// result, average N such biases where one pair's rounds average none. Host-only arithmetic; the
// caller (performance_case.cpp) starts each pair and measures (measure_interleaved).
#include <vector>

#include "cudalabs/timing/interleaved.hpp"
#include "cudalabs/timing/stopping_rule.hpp"

namespace cudalabs::timing {

// The policy of one pair's share of a measurement pooled over `pairs` pairs: at least the rounds
// a median's interval needs at this confidence, else the policy's min_samples and max_samples
// shared out (rounded up), and the time budget shared out; `settled` as given, so a pair stops
// early only where its own, wider intervals already settle the points. pairs <= 1: the policy.
SamplingPolicy policy_for_one_of(const SamplingPolicy& policy, int pairs);

// One result of the pairs' results, as if one measurement had taken all their kept rounds:
// medians and intervals of the pooled samples (PairedResult's *_samples), rounds, seconds and
// disturbed rounds added up, the longest waits kept, the reference's round trip the median of the
// pairs'. The first integrity failure or busy machine found is the pool's (the figures are not
// scored then). target_met and settled are decided again on the pool by `policy` (the whole
// measurement's policy). Throws std::invalid_argument for no parts.
PairedResult pool_measurements(const std::vector<PairedResult>& parts, const SamplingPolicy& policy);

}  // namespace cudalabs::timing
