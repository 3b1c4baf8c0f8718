#pragma once
// The lab's `forbid:` rules, checked without running student code: #include lines of the staged
// sources before the build, and the undefined symbols of the compiled student library after it.
//
// Limits, on purpose stated: a symbol check sees what the library asks the dynamic linker for.
// Code that issues raw system calls with inline assembly, or finds functions by scanning memory,
// is not caught here; the supervision (process group, limits, result-channel token) is what
// contains it.
#include <filesystem>
#include <string>
#include <vector>

#include "cudalabs/config/forbid_rules.hpp"
#include "resource_limits.hpp"

namespace labgrade {

struct RuleViolation {
  cudalabs::config::ForbidRule rule;
  std::string found;     // "#include <fstream>" or "cudaMemcpy" (with its C++ name when mangled)
  std::string location;  // "vector_add.cu:3" or "the compiled code of vector_add.cu"

  // One line for the report: where, what, the rule quoted with where it is written, and why.
  std::string describe() const;
};

// #include / #include_next / #import lines of `files` (comments ignored, continuation lines
// joined) whose header name, or any part of it after a '/', matches an include rule. A header
// named by a macro (#include SOME_MACRO) is a violation too when there are include rules, since
// it could name anything. `shown_as[i]` is how files[i] is named in the report.
std::vector<RuleViolation> scan_includes(const std::vector<std::filesystem::path>& files,
                                         const std::vector<std::string>& shown_as,
                                         const std::vector<cudalabs::config::ForbidRule>& rules);

// Names in `nm -D --undefined-only` output, without version suffixes ("cudaFree@libcudart.so.13").
std::vector<std::string> parse_nm_undefined(const std::string& nm_output);

// The demangled form of a C++ symbol; the name itself when it is not a mangled C++ name.
std::string demangle(const std::string& symbol);

// Symbols that match a symbol rule, raw or demangled; one violation per symbol (its first rule).
std::vector<RuleViolation> check_symbols(const std::vector<std::string>& symbols,
                                         const std::vector<cudalabs::config::ForbidRule>& rules,
                                         const std::string& location);

// Runs nm on an object file (its undefined symbols) or a library (its undefined dynamic symbols). Throws std::runtime_error
// when nm cannot run or fails (naming the Debian package that provides it).
std::vector<std::string> undefined_symbols(const std::filesystem::path& library, const ResourceLimits& limits);

}  // namespace labgrade
