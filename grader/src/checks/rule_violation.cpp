#include "checks/rule_violation.hpp"

#include <fmt/format.h>

namespace labgrade {

std::string RuleViolation::describe() const {
  std::string line = fmt::format("{}: {} is not allowed", location, found);
  if (rule.file.empty()) {
    line += fmt::format(": {}", rule.why);
  } else {
    line += fmt::format(" (rule '{}', {})", rule.pattern, rule.where());
    if (!rule.why.empty()) line += ": " + rule.why;
  }
  return line;
}

}  // namespace labgrade
