#include "service_policy_reader.hpp"

namespace cudalabs::config::detail {

ServicePolicy read_service_policy(const MapReader& top) {
  ServicePolicy policy;
  const std::optional<MapReader> section =
      top.optional_map("service", "a map {self_checks, self_checks_per_hour, graded_runs, graded_runs_max}");
  if (!section) return policy;
  section->check_keys({"self_checks", "self_checks_per_hour", "graded_runs", "graded_runs_max"});
  policy.self_checks = section->optional_bool("self_checks").value_or(true);
  policy.self_checks_per_hour = section->optional_positive_integer("self_checks_per_hour");
  policy.graded_runs = section->optional_bool("graded_runs").value_or(true);
  policy.graded_runs_max = section->optional_positive_integer("graded_runs_max");
  return policy;
}

}  // namespace cudalabs::config::detail
