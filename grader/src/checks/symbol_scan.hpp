#pragma once
// The lab's `forbid:` symbol rules, checked without running student code: the undefined symbols
// of the compiled student objects and library after the build (include_scan.hpp checks the
// sources before it).
//
// Limits, on purpose stated: a symbol check sees what the library asks the dynamic linker for.
// Code that issues raw system calls with inline assembly, or finds functions by scanning memory,
// is not caught here; the supervision (process group, limits, result-channel token) is what
// contains it.
#include <filesystem>
#include <string>
#include <vector>

#include "checks/rule_violation.hpp"
#include "sandbox/resource_limits.hpp"

namespace labgrade {

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
