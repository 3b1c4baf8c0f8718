#include "sandbox/containment_rules.hpp"

#include <system_error>

namespace labgrade {
namespace fs = std::filesystem;

namespace {

void name_relative_to(std::vector<cudalabs::config::ForbidRule>& rules, const fs::path& root) {
  for (auto& rule : rules) {
    std::error_code error;
    const fs::path relative = fs::relative(rule.file, root, error);
    if (!error && !relative.empty() && relative.begin()->string() != "..") rule.file = relative.string();
  }
}

}  // namespace

cudalabs::config::ForbidRules forbid_rules_for(const cudalabs::config::CourseConfig& course,
                                               const cudalabs::config::LabConfig& lab, const fs::path& course_root) {
  const auto unmatched = cudalabs::config::unmatched_allowances(course.forbid, lab.allow);
  if (!unmatched.empty()) throw cudalabs::config::ConfigError(unmatched);
  cudalabs::config::ForbidRules rules = cudalabs::config::combine(course.forbid, lab.forbid, lab.allow);
  name_relative_to(rules.includes, course_root);
  name_relative_to(rules.symbols, course_root);
  return rules;
}

ResourceLimits compiler_limits(const cudalabs::config::ProcessLimits& limits) {
  ResourceLimits result = test_process_limits(limits);
  result.max_address_space_bytes = limits.max_compiler_memory_bytes;
  return result;
}

ResourceLimits test_process_limits(const cudalabs::config::ProcessLimits& limits) {
  ResourceLimits result;
  result.cpu_seconds = limits.cpu_seconds;
  result.max_open_files = limits.max_open_files;
  result.max_file_bytes = limits.max_file_bytes;
  return result;
}

}  // namespace labgrade
