#pragma once
// Constructs that honest lab code hardly needs but that patching the test program's own memory
// does (its GOT, its clock, the result channel): raw system calls, inline assembly, changing
// memory protection, reading /proc/self, static constructors. Nothing here can be stopped inside
// one process, and each has rare honest uses (PTX inline assembly, a lookup table built at load),
// so they are not scored: the report lists them "for the instructor to review", with where.
#include <filesystem>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "sandbox/resource_limits.hpp"

namespace labgrade {

// Each construct found in the student files (comments ignored), with file and line; `shown_as[i]`
// names files[i] in the report.
std::vector<ReviewNote> review_sources(const std::vector<std::filesystem::path>& files,
                                       const std::vector<std::string>& shown_as);

// Static constructors in the compiled objects: entries of .init_array/.ctors beyond the one nvcc
// adds to register the fat binary (found with readelf, so whatever wrote them: a global object
// with a constructor, __attribute__((constructor)), or assembly).
std::vector<ReviewNote> review_objects(const std::vector<std::string>& objects, const std::string& shown_as,
                                       const ResourceLimits& limits);

// How many entries each constructor section holds, from `readelf -rW` output.
int constructor_entries(const std::string& readelf_relocations);

}  // namespace labgrade
