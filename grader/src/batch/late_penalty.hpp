#pragma once
// The lab's `late:` policy applied to one submission.
#include <cstdint>
#include <optional>

#include "cudalabs/course/lab_config.hpp"

namespace labgrade::batch {

struct LatePenalty {
  std::int64_t days_late = 0;  // whole days started after the deadline; 0 when on time (or in the grace period)
  double percent = 0;          // min(days_late * penalty_percent_per_day, max_penalty_percent)
  double points = 0;           // `percent` of the points earned
};

// nullopt when it cannot be applied: the lab has no policy, or the submission time is unknown.
std::optional<LatePenalty> late_penalty(const std::optional<cudalabs::config::LatePolicy>& policy,
                                        std::optional<std::int64_t> submitted_at, double points_earned);

}  // namespace labgrade::batch
