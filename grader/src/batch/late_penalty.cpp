#include "late_penalty.hpp"

#include <algorithm>
#include <cmath>

namespace labgrade::batch {

std::optional<LatePenalty> late_penalty(const std::optional<cudalabs::config::LatePolicy>& policy,
                                        std::optional<std::int64_t> submitted_at, double points_earned) {
  if (!policy || !submitted_at) return std::nullopt;
  LatePenalty penalty;
  const double grace_seconds = policy->grace_minutes * 60;
  const std::int64_t after_due = *submitted_at - policy->due;
  if (static_cast<double>(after_due) <= grace_seconds) return penalty;
  constexpr std::int64_t kDay = 86400;
  penalty.days_late = (after_due + kDay - 1) / kDay;  // one second late is one day started
  penalty.percent =
      std::min(static_cast<double>(penalty.days_late) * policy->penalty_percent_per_day, policy->max_penalty_percent);
  penalty.points = points_earned * penalty.percent / 100;
  return penalty;
}

}  // namespace labgrade::batch
