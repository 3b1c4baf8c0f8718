#pragma once
// Which files of the instructor tree go into the student release, copied as they are. Generated
// files (the top-level CMakeLists.txt and README.md, config/labs/*.yaml) are not listed here.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade {

// Paths relative to the course root: files, or folders copied whole (regular files only).
// Not in the list, on purpose (and checked absent by tests/release/): solutions/ (reference kernels), grader/suites/ (hidden tests),
// grader/tests/ (fixtures hold solution-like code), bench/ (reference kernels and baselines),
// the tests of course/ and common/, tests/ (the instructor tree's own checks), and
// CMakePresets.json (its workflows run the instructor's tests; the release README gives the
// plain cmake commands).
std::vector<std::filesystem::path> released_paths(const std::vector<std::string>& labs);

// Paths inside released folders that stay out all the same: instructor-only code that the
// release's build never compiles (it sets CUDALABS_STUDENT_COMMANDS_ONLY), namely `labgrade
// batch` (class grading, Slurm) and the SQLite finder only batch needs.
std::vector<std::filesystem::path> withheld_paths();

// Where the release's generated files come from: release/ in the instructor tree.
inline const char* kReleaseTemplateDir = "release";

}  // namespace labgrade
