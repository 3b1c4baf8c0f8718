#pragma once
// The lab's `forbid:` include rules, checked on the staged sources before the build, without
// running or compiling student code.
#include <filesystem>
#include <string>
#include <vector>

#include "checks/rule_violation.hpp"

namespace labgrade {

// #include / #include_next / #import lines of `files` (comments ignored, continuation lines
// joined) whose header name, or any part of it after a '/', matches an include rule. A header
// named by a macro (#include SOME_MACRO) is a violation too when there are include rules, since
// it could name anything. `shown_as[i]` is how files[i] is named in the report.
std::vector<RuleViolation> scan_includes(const std::vector<std::filesystem::path>& files,
                                         const std::vector<std::string>& shown_as,
                                         const std::vector<cudalabs::config::ForbidRule>& rules);

}  // namespace labgrade
