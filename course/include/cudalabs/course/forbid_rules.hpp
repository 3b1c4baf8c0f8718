// `forbid:` in course.yaml (every lab) and in a lab's YAML (that lab): headers student code may
// not include and library functions its compiled code may not call. A lab's `allow:` (same
// shape) lifts course-wide rules for that lab only, each named by its exact pattern.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cudalabs/course/diagnostics.hpp"

namespace cudalabs::config {

struct ForbidRule {
  std::string pattern;  // glob: '*' any run of characters, '?' one character
  std::string why;      // optional reason shown to the student ("" when none was given)
  std::string file;     // the YAML file, line and field that state the rule, for the report
  int line = 0;
  std::string field;    // e.g. "forbid.symbols[3]"

  std::string where() const;  // "config/course.yaml:41 (forbid.symbols[3])"
};

struct ForbidRules {
  std::vector<ForbidRule> includes;  // matched against the name in #include <name> / "name"
  std::vector<ForbidRule> symbols;   // matched against undefined symbols, raw and demangled
};

// The course's rules, less those the lab allows, followed by the lab's.
ForbidRules combine(const ForbidRules& course, const ForbidRules& lab, const ForbidRules& lab_allows = {});

// One problem per `allow:` entry that names no course-wide rule of its kind (an allowance that
// lifts nothing is a typo or a stale rule), at the entry's file, line and field.
std::vector<Diagnostic> unmatched_allowances(const ForbidRules& course, const ForbidRules& lab_allows);

// Whole-string glob match: '*' matches any run (also empty), '?' exactly one character.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace cudalabs::config
