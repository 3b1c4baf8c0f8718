#pragma once
// One broken `forbid:` rule, found by the include scan (before the build) or the symbol scan
// (after it), in the form the report prints.
#include <string>

#include "cudalabs/course/forbid_rules.hpp"

namespace labgrade {

struct RuleViolation {
  cudalabs::config::ForbidRule rule;
  std::string found;     // "#include <fstream>" or "cudaMemcpy" (with its C++ name when mangled)
  std::string location;  // "vector_add.cu:3" or "the compiled code of vector_add.cu"

  // One line for the report: where, what, the rule quoted with where it is written, and why.
  std::string describe() const;
};

}  // namespace labgrade
