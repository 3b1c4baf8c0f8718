#pragma once
// The lab's `service:` section (config/labs/<lab>.yaml) applied to one student's request: whether
// the mode is open, and how many runs the student has left. Runs that ended without a grade (no
// GPU, labgrade's own failure) are not counted.
#include <cstdint>
#include <optional>
#include <string>

#include "cudalabs/course/lab_config.hpp"
#include "serve/service_store.hpp"

namespace labgrade::serve {

struct PolicyRefusal {
  int http_status;  // 403: the mode is closed or used up; 429: the lab's hourly self-check limit
  std::string message;
};

std::optional<PolicyRefusal> refuse_by_lab_policy(const cudalabs::config::LabConfig& lab, const ServiceStore& store,
                                                  const std::string& student_id, const std::string& mode);

// What the student has left of each limited mode; nullopt: no limit of the lab's own.
std::optional<std::uint64_t> graded_runs_left(const cudalabs::config::LabConfig& lab, const ServiceStore& store,
                                              const std::string& student_id);
std::optional<std::uint64_t> self_checks_left_this_hour(const cudalabs::config::LabConfig& lab,
                                                        const ServiceStore& store, const std::string& student_id);

}  // namespace labgrade::serve
