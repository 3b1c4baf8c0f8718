#include "serve/lab_policy.hpp"

#include <fmt/format.h>

#include "remote_submit/service_api.hpp"

namespace labgrade::serve {
namespace api = service_api;

namespace {
constexpr std::int64_t kHour = 3600;

std::uint64_t left(std::uint64_t limit, std::size_t used) { return used >= limit ? 0 : limit - used; }
}  // namespace

std::optional<std::uint64_t> graded_runs_left(const cudalabs::config::LabConfig& lab, const ServiceStore& store,
                                              const std::string& student_id) {
  if (!lab.service.graded_runs) return 0;
  if (!lab.service.graded_runs_max) return std::nullopt;
  return left(*lab.service.graded_runs_max, store.counted_runs(student_id, lab.id, std::string(api::kModeGrade), 0));
}

std::optional<std::uint64_t> self_checks_left_this_hour(const cudalabs::config::LabConfig& lab,
                                                        const ServiceStore& store, const std::string& student_id) {
  if (!lab.service.self_checks) return 0;
  if (!lab.service.self_checks_per_hour) return std::nullopt;
  return left(*lab.service.self_checks_per_hour,
              store.counted_runs(student_id, lab.id, std::string(api::kModeCheck), unix_now() - kHour));
}

std::optional<PolicyRefusal> refuse_by_lab_policy(const cudalabs::config::LabConfig& lab, const ServiceStore& store,
                                                  const std::string& student_id, const std::string& mode) {
  if (mode == api::kModeGrade) {
    if (!lab.service.graded_runs) {
      return PolicyRefusal{403, fmt::format("{} takes no graded runs on this server (its YAML: service.graded_runs: "
                                            "false); use --check",
                                            lab.id)};
    }
    if (graded_runs_left(lab, store, student_id) == std::optional<std::uint64_t>(0)) {
      return PolicyRefusal{403, fmt::format("you have used your {} graded runs of {}", *lab.service.graded_runs_max,
                                            lab.id)};
    }
    return std::nullopt;
  }
  if (!lab.service.self_checks) {
    return PolicyRefusal{403, fmt::format("{} takes no self-checks on this server (its YAML: service.self_checks: "
                                          "false)",
                                          lab.id)};
  }
  if (self_checks_left_this_hour(lab, store, student_id) == std::optional<std::uint64_t>(0)) {
    return PolicyRefusal{429, fmt::format("{} allows {} self-checks an hour per student; try again later", lab.id,
                                          *lab.service.self_checks_per_hour)};
  }
  return std::nullopt;
}

}  // namespace labgrade::serve
